// A tensor in the memory of a GPU of task 0 (a fake one: the host must not
// read it, tests/rpc/fake_gpu.h) received by a CPU of task 1, two
// GrpcServers in this process: its _Send leaves it on the device, and
// RecvTensor serves it by range through staging buffers, the copy of each
// range overlapping the sending of the last (rpc/held_tensors.h), over the
// bulk plane (TCP and same-host shared memory) and the gRPC chunk calls;
// bit-exact, never copied whole, and a device copy error fails the step
// naming the tensor while the cluster serves on.
#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "catch2/catch.hpp"
#include "google/protobuf/text_format.h"
#include "rpc/cluster_spec.h"
#include "rpc/grpc_server.h"
#include "rpc/grpc_util.h"
#include "runtime/more_devices.h"
#include "runtime/session.h"
#include "tests/rpc/fake_gpu.h"
#include "tests/testing/status_matchers.h"

namespace dfx {
namespace {

using ::dfx::testing::FakeGpu;
using ::dfx::testing::StatusIs;

constexpr char kGpu[] = "/job:worker/replica:0/task:0/device:GPU:0";

struct Transport {
  bool bulk = true;
  bool bulk_local = true;
  int64_t max_chunk_bytes = int64_t{1} << 30;
};

// Task 0 with a fake GPU, task 1 with CPUs only, on 127.0.0.1.
struct Cluster {
  FakeGpu* gpu = nullptr;
  std::vector<std::unique_ptr<GrpcServer>> servers;
  std::unique_ptr<Session> session;

  explicit Cluster(const Transport& transport) {
    absl::Status status;
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
        options.inter_op_threads = 2;
        options.intra_op_threads = 1;
        options.master_threads = 4;
        options.optimize_graphs = false;
        options.enable_bulk = transport.bulk;
        options.enable_bulk_local = transport.bulk_local;
        options.max_chunk_bytes = transport.max_chunk_bytes;
        std::unique_ptr<ScopedMoreDevices> fake;
        if (task == 0) {
          fake = std::make_unique<ScopedMoreDevices>(FakeGpu::Factory(&gpu));
        }
        absl::StatusOr<std::unique_ptr<GrpcServer>> server =
            GrpcServer::Create(options);
        status = server.status();
        if (!server.ok()) break;
        servers.push_back(*std::move(server));
      }
      if (status.ok()) break;
    }
    REQUIRE_OK(status);
    REQUIRE(gpu != nullptr);
    absl::StatusOr<std::unique_ptr<Session>> made =
        Session::Create(servers[0]->target(), SessionOptions());
    REQUIRE_OK(made);
    session = *std::move(made);
  }
  ~Cluster() {
    if (session != nullptr) session->Close().IgnoreError();
    session.reset();
    // The GPU's task goes last: task 1 may still be asking it.
    for (size_t i = servers.size(); i-- > 0;) servers[i]->Stop();
  }

  // r = Range(0, n) on task 0's CPU, g = Identity(r) on its GPU, y =
  // Identity(g) on task 1's CPU: g crosses from the GPU to task 1.
  void Extend(int64_t n) {
    GraphDef graph;
    const std::string text = absl::StrCat(
        R"pb(
          node {
            name: "start"
            op: "Const"
            device: "/job:worker/replica:0/task:0/device:CPU:0"
            attr {
              key: "dtype"
              value { type: DT_FLOAT }
            }
            attr {
              key: "value"
              value { tensor { dtype: DT_FLOAT float_val: 0 } }
            }
          }
          node { name: "limit" op: "Const"
                 device: "/job:worker/replica:0/task:0/device:CPU:0"
                 attr {
                   key: "dtype"
                   value { type: DT_FLOAT }
                 }
                 attr { key: "value"
                        value { tensor { dtype: DT_FLOAT float_val:)pb",
        n, R"pb(}
                } } }
      node { name: "delta" op: "Const"
             device: "/job:worker/replica:0/task:0/device:CPU:0"
             attr { key: "dtype" value { type: DT_FLOAT } }
             attr { key: "value" value { tensor { dtype: DT_FLOAT
                                                  float_val: 1 } } } }
      node { name: "r" op: "Range" input: "start" input: "limit"
             input: "delta"
             device: "/job:worker/replica:0/task:0/device:CPU:0"
             attr { key: "Tidx" value { type: DT_FLOAT } } }
      node { name: "g" op: "Identity" input: "r"
             device: "/job:worker/replica:0/task:0/device:GPU:0"
             attr { key: "T" value { type: DT_FLOAT } } }
      node { name: "y" op: "Identity" input: "g"
             device: "/job:worker/replica:0/task:1/device:CPU:0"
             attr { key: "T" value { type: DT_FLOAT } } }
    )pb");
    REQUIRE(google::protobuf::TextFormat::ParseFromString(text, &graph));
    REQUIRE_OK(session->Extend(graph));
  }

  absl::StatusOr<Tensor> Run() {
    RunOptions options;
    options.set_timeout_in_ms(60000);
    std::vector<Tensor> out;
    absl::Status s = session->Run(options, {}, {"y"}, {}, &out, nullptr);
    if (!s.ok()) return s;
    return out[0];
  }

  // The staging buffers went back (gRPC may drop a slice of the last one a
  // little after the step).
  bool StagingReturned() const {
    for (const absl::Time deadline = absl::Now() + absl::Seconds(30);
         absl::Now() < deadline; absl::SleepFor(absl::Milliseconds(10))) {
      if (gpu->host_memory().live_bytes() == 0) return true;
    }
    return false;
  }
};

// 0, 1, 2, ... n - 1, exactly.
bool IsRange(const Tensor& t, int64_t n) {
  if (t.dtype() != DT_FLOAT || t.NumElements() != n) return false;
  const float* v = t.data<float>();
  for (int64_t i = 0; i < n; ++i) {
    if (v[i] != static_cast<float>(i)) return false;
  }
  return true;
}

// Every byte of `total` was copied by range, each copy at most
// `max_piece`, none whole.
void CheckRangeCopies(const FakeGpu& gpu, uint64_t total, uint64_t max_piece) {
  CHECK(gpu.whole_copies() == 0);
  std::vector<FakeGpu::RangeCopy> copies = gpu.range_copies();
  CHECK(copies.size() >= (total + max_piece - 1) / max_piece);
  std::sort(copies.begin(), copies.end(),
            [](const auto& a, const auto& b) { return a.offset < b.offset; });
  uint64_t covered = 0;
  for (const auto& copy : copies) {
    CHECK(copy.length <= max_piece);
    CHECK(copy.offset <= covered);
    covered = std::max(covered, copy.offset + copy.length);
  }
  CHECK(covered == total);
}

// A sequential reader's copies, in the order started: one per range, and
// each started before the copy of the range before it was waited for, that
// is, before that range was sent.
void CheckOverlapped(const FakeGpu& gpu) {
  const std::vector<FakeGpu::RangeCopy> copies = gpu.range_copies();
  REQUIRE(copies.size() >= 2);
  for (size_t k = 1; k < copies.size(); ++k) {
    CHECK(copies[k].offset == copies[k - 1].offset + copies[k - 1].length);
    CHECK(copies[k].started < copies[k - 1].waited);
  }
}

// 10 Mi floats: five 8 MiB pieces of the bulk plane, ten 4 MiB chunks.
constexpr int64_t kFloats = int64_t{10} << 20;
constexpr uint64_t kBytes = uint64_t{kFloats} * 4;

TEST_CASE(
    "a GPU tensor for another task goes over the bulk plane's TCP by "
    "range, each range's copy overlapping the last one's sending") {
  Cluster cluster(Transport{.bulk = true, .bulk_local = false});
  cluster.gpu->set_copy_delay(absl::Milliseconds(5));
  cluster.Extend(kFloats);
  absl::StatusOr<Tensor> y = cluster.Run();
  REQUIRE_OK(y);
  CHECK(IsRange(*y, kFloats));
  CheckRangeCopies(*cluster.gpu, kBytes, uint64_t{8} << 20);
  CheckOverlapped(*cluster.gpu);
  CHECK(cluster.StagingReturned());
}

TEST_CASE(
    "a GPU tensor for another task on this host goes through the bulk "
    "plane's shared memory by range, overlapped") {
  Cluster cluster(Transport{.bulk = true, .bulk_local = true});
  cluster.gpu->set_copy_delay(absl::Milliseconds(5));
  cluster.Extend(kFloats);
  absl::StatusOr<Tensor> y = cluster.Run();
  REQUIRE_OK(y);
  CHECK(IsRange(*y, kFloats));
  CheckRangeCopies(*cluster.gpu, kBytes, uint64_t{8} << 20);
  CheckOverlapped(*cluster.gpu);
  CHECK(cluster.StagingReturned());
}

TEST_CASE(
    "a GPU tensor for another task goes in gRPC chunks by range, its "
    "first chunk inline from a copy of just that prefix") {
  Cluster cluster(Transport{.bulk = false, .max_chunk_bytes = 4 << 20});
  cluster.Extend(kFloats);
  absl::StatusOr<Tensor> y = cluster.Run();
  REQUIRE_OK(y);
  CHECK(IsRange(*y, kFloats));
  CheckRangeCopies(*cluster.gpu, kBytes, uint64_t{4} << 20);
  const std::vector<FakeGpu::RangeCopy> copies = cluster.gpu->range_copies();
  REQUIRE(!copies.empty());
  CHECK(copies[0].offset == 0);  // the inline prefix
  CHECK(copies[0].length == uint64_t{4} << 20);
  CHECK(cluster.StagingReturned());
  // Again, on the same servers.
  y = cluster.Run();
  REQUIRE_OK(y);
  CHECK(IsRange(*y, kFloats));
}

TEST_CASE(
    "a GPU tensor for another task up to the push size is copied "
    "whole at its send") {
  Cluster cluster(Transport{});
  cluster.Extend(1000);
  absl::StatusOr<Tensor> y = cluster.Run();
  REQUIRE_OK(y);
  CHECK(IsRange(*y, 1000));
  CHECK(cluster.gpu->range_copies().empty());
  CHECK(cluster.gpu->whole_copies() == 1);
}

TEST_CASE(
    "a GPU tensor for another task under the chunk size, for a "
    "receiver without the bulk plane, is copied whole and answered "
    "inline") {
  Cluster cluster(Transport{.bulk = false});
  cluster.Extend(100000);  // 400 KB
  absl::StatusOr<Tensor> y = cluster.Run();
  REQUIRE_OK(y);
  CHECK(IsRange(*y, 100000));
  CHECK(cluster.gpu->range_copies().empty());
  CHECK(cluster.gpu->whole_copies() == 1);
}

TEST_CASE(
    "a GPU copy error in the middle of a tensor for another task fails "
    "the step naming the tensor, and the task serves on") {
  Cluster cluster(Transport{.bulk = true, .bulk_local = false});
  cluster.Extend(kFloats);
  cluster.gpu->set_fail_from(int64_t{20} << 20);
  absl::StatusOr<Tensor> y = cluster.Run();
  // The rendezvous key names the tensor: its source device, then ';'.
  CHECK_THAT(y.status(), StatusIs(absl::StatusCode::kInternal,
                                  absl::StrCat("of '", kGpu, ";")));
  CHECK_THAT(y.status(), StatusIs(absl::StatusCode::kInternal,
                                  "the fake copy engine failed"));
  cluster.gpu->set_fail_from(-1);
  y = cluster.Run();
  REQUIRE_OK(y);
  CHECK(IsRange(*y, kFloats));
  // The failed step's tensor went with its cleanup (sent with this step).
  CHECK(cluster.StagingReturned());
}

}  // namespace
}  // namespace dfx
