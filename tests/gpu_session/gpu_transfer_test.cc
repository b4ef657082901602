// A tensor a GPU kernel of task 0 wrote, received by a CPU of task 1, two
// GrpcServers in this process (tagged [gpu]; without a GPU the test says
// "SKIPPED: no CUDA device visible"): RecvTensor serves it from the GPU by
// range through pinned staging buffers (rpc/held_tensors.h) over the bulk
// plane's TCP and shared memory and over gRPC chunks, and a small one
// whole; every value arrives bit-exact. tests/rpc/
// device_tensor_transfer_test.cc checks the same paths with a fake GPU on
// every machine.
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "catch2/catch.hpp"
#include "gpu/gpu_device_factory.h"
#include "google/protobuf/text_format.h"
#include "rpc/cluster_spec.h"
#include "rpc/grpc_server.h"
#include "rpc/grpc_util.h"
#include "runtime/session.h"
#include "tests/testing/status_matchers.h"

namespace dfx {
namespace {

bool HaveGpu() {
  std::string why;
  if (gpu::VisibleGpuCount(&why) > 0) return true;
  WARN("SKIPPED: no CUDA device visible: " << why);
  return false;
}

struct Transport {
  bool bulk = true;
  bool bulk_local = true;
  int64_t max_chunk_bytes = int64_t{1} << 30;
};

// Task 0 with the GPUs, task 1 with none, on 127.0.0.1.
std::vector<std::unique_ptr<GrpcServer>> StartCluster(const Transport& t) {
  absl::Status status;
  std::vector<std::unique_ptr<GrpcServer>> servers;
  for (int attempt = 0; attempt < 3; ++attempt) {
    servers.clear();
    absl::StatusOr<std::vector<int>> ports = PickFreeLoopbackPorts(2);
    REQUIRE_OK(ports);
    absl::StatusOr<ClusterDef> cluster = ParseClusterJson(
        absl::StrCat(R"({"worker": ["127.0.0.1:)", (*ports)[0],
                     R"(", "127.0.0.1:)", (*ports)[1], R"("]})"));
    REQUIRE_OK(cluster);
    for (int task = 0; task < 2; ++task) {
      GrpcServerOptions options;
      options.cluster = *cluster;
      options.job_name = "worker";
      options.task_index = task;
      options.max_gpu_devices = task == 0 ? 1 : 0;
      options.gpu_options.set_allow_growth(true);
      options.inter_op_threads = 2;
      options.intra_op_threads = 2;
      options.master_threads = 4;
      options.optimize_graphs = false;
      options.enable_bulk = t.bulk;
      options.enable_bulk_local = t.bulk_local;
      options.max_chunk_bytes = t.max_chunk_bytes;
      absl::StatusOr<std::unique_ptr<GrpcServer>> server =
          GrpcServer::Create(options);
      status = server.status();
      if (!server.ok()) break;
      servers.push_back(*std::move(server));
    }
    if (status.ok()) break;
  }
  REQUIRE_OK(status);
  return servers;
}

// r = Range(0, n) on task 0's CPU, g = Neg(r) on its GPU (a CUDA kernel
// writes it), y = Neg(g) on task 1's CPU: y == r, exactly.
GraphDef NegatedTwice(int64_t n) {
  GraphDef graph;
  const std::string cpu0 = "/job:worker/replica:0/task:0/device:CPU:0";
  const std::string text = absl::StrCat(
      R"pb(
        node { name: "start" op: "Const" device: ")pb",
      cpu0,
      R"pb(           "
               attr { key: "dtype" value { type: DT_FLOAT } }
               attr { key: "value" value { tensor { dtype: DT_FLOAT
                                                    float_val: 0 } } } }
                      node { name: "limit" op: "Const" device: ")pb",
      cpu0, R"pb("
                 attr {
                   key: "dtype"
                   value { type: DT_FLOAT }
                 }
                 attr { key: "value"
                        value { tensor { dtype: DT_FLOAT float_val:)pb",
      n,
      R"pb(}
           } } }
        node { name: "delta" op: "Const" device: ")pb",
      cpu0, R"pb(                 "
               attr { key: "dtype" value { type: DT_FLOAT } }
               attr { key: "value" value { tensor { dtype: DT_FLOAT
                                                    float_val: 1 } } } }
                                  node { name: "r" op: "Range" input: "start" input: "limit"
               input: "delta" device: ")pb",
      cpu0, R"pb(                 "
               attr { key: "Tidx" value { type: DT_FLOAT } } }
                                  node { name: "g" op: "Neg" input: "r"
               device: "/job:worker/replica:0/task:0/device:GPU:0"
               attr { key: "T" value { type: DT_FLOAT } } }
        node { name: "y" op: "Neg" input: "g"
               device: "/job:worker/replica:0/task:1/device:CPU:0"
               attr { key: "T" value { type: DT_FLOAT } } }
      )pb");
  REQUIRE(google::protobuf::TextFormat::ParseFromString(text, &graph));
  return graph;
}

void CheckArrivesExactly(const Transport& transport, int64_t n) {
  std::vector<std::unique_ptr<GrpcServer>> servers = StartCluster(transport);
  absl::StatusOr<std::unique_ptr<Session>> session =
      Session::Create(servers[0]->target(), SessionOptions());
  REQUIRE_OK(session);
  REQUIRE_OK((*session)->Extend(NegatedTwice(n)));
  for (int step = 0; step < 2; ++step) {
    RunOptions options;
    options.set_timeout_in_ms(120000);
    std::vector<Tensor> out;
    REQUIRE_OK((*session)->Run(options, {}, {"y"}, {}, &out, nullptr));
    REQUIRE(out[0].NumElements() == n);
    const float* v = out[0].data<float>();
    int64_t wrong = 0;
    for (int64_t i = 0; i < n; ++i) wrong += v[i] != static_cast<float>(i);
    CHECK(wrong == 0);
  }
  REQUIRE_OK((*session)->Close());
  for (size_t i = servers.size(); i-- > 0;) servers[i]->Stop();
}

// 16 Mi floats (64 MiB; Range's floats are exact below 2^24).
constexpr int64_t kFloats = int64_t{16} << 20;

TEST_CASE(
    "gpu transfer: a GPU tensor for another task arrives bit-exact "
    "over the bulk plane's TCP, by range",
    "[gpu]") {
  if (!HaveGpu()) return;
  CheckArrivesExactly(Transport{.bulk = true, .bulk_local = false}, kFloats);
}

TEST_CASE(
    "gpu transfer: a GPU tensor for another task on this host arrives "
    "bit-exact through the bulk plane's shared memory",
    "[gpu]") {
  if (!HaveGpu()) return;
  CheckArrivesExactly(Transport{.bulk = true, .bulk_local = true}, kFloats);
}

TEST_CASE(
    "gpu transfer: a GPU tensor for another task arrives bit-exact in "
    "gRPC chunks, its first chunk inline",
    "[gpu]") {
  if (!HaveGpu()) return;
  CheckArrivesExactly(Transport{.bulk = false, .max_chunk_bytes = 4 << 20},
                      kFloats);
}

TEST_CASE(
    "gpu transfer: small GPU tensors for another task arrive "
    "bit-exact, copied whole at the send or in RecvTensor",
    "[gpu]") {
  if (!HaveGpu()) return;
  CheckArrivesExactly(Transport{}, 1001);
  CheckArrivesExactly(Transport{.bulk = false}, 100001);
}

}  // namespace
}  // namespace dfx
