// The distributed runtime end to end: `dfx server` processes on 127.0.0.1,
// driven through GrpcSession and raw RPCs.
#include <signal.h>

#include <atomic>
#include <future>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "catch2/catch.hpp"
#include "graph/builder/ops.h"
#include "graph/builder/scope.h"
#include "proto/master_service.grpc.pb.h"
#include "proto/worker_service.grpc.pb.h"
#include "rpc/grpc_util.h"
#include "runtime/rendezvous.h"
#include "runtime/session.h"
#include "tests/integration/test_cluster.h"
#include "tests/testing/status_matchers.h"

namespace dfx {
namespace {

using ::dfx::testing::TestCluster;

constexpr char kPs[] = "/job:ps/replica:0/task:0";
constexpr char kWorker0[] = "/job:worker/replica:0/task:0";
constexpr char kWorker1[] = "/job:worker/replica:0/task:1";

std::unique_ptr<Session> OpenSession(const std::string& target,
                                     const GraphDef& graph) {
  absl::StatusOr<std::unique_ptr<Session>> session = Session::Create(target);
  REQUIRE_OK(session.status());
  REQUIRE_OK((*session)->Extend(graph));
  return std::move(session).value();
}

GraphDef SpreadGraph(const char* ps_device = kPs);

GraphDef SpreadGraphOnWorkers() { return SpreadGraph(kWorker1); }

GraphDef WithoutDevices(GraphDef graph) {
  for (NodeDef& node : *graph.mutable_node()) node.clear_device();
  return graph;
}

// out = relu(x @ w) * scale + x, with its nodes on the three tasks (or,
// without a ps, the ps's nodes on worker 1).
GraphDef SpreadGraph(const char* ps_device) {
  Scope root = Scope::NewRootScope();
  Output x = ops::Placeholder(root.WithOpName("x").WithDevice(kWorker0),
                              DT_FLOAT);
  Output w = ops::Const(root.WithOpName("w").WithDevice(ps_device),
                        {{0.5f, -1.0f, 2.0f}, {1.5f, 0.25f, -0.75f},
                         {-2.0f, 1.0f, 0.125f}});
  Output scale = ops::Const(root.WithOpName("scale").WithDevice(kWorker1),
                            3.0f);
  Output y = ops::MatMul(root.WithOpName("y").WithDevice(kWorker1), x, w);
  Output r = ops::Relu(root.WithOpName("r").WithDevice(ps_device), y);
  Output s = ops::Mul(root.WithOpName("s").WithDevice(kWorker1), r, scale);
  ops::AddV2(root.WithOpName("out").WithDevice(kWorker0), s, x);
  ops::Sum(root.WithOpName("total").WithDevice(ps_device), s,
           ops::Const(root.WithOpName("axes").WithDevice(ps_device), {0, 1}));
  GraphDef graph;
  REQUIRE_OK(root.ToGraphDef(&graph));
  return graph;
}

Tensor Feed(float base) {
  return Tensor::FromVector<float>(
      {base, -base, 0.5f * base, 1.0f, base * base, -2.0f}, TensorShape({2, 3}));
}

void RequireSameTensors(const std::vector<Tensor>& a,
                        const std::vector<Tensor>& b) {
  REQUIRE(a.size() == b.size());
  for (size_t i = 0; i < a.size(); ++i) {
    REQUIRE(a[i].dtype() == b[i].dtype());
    REQUIRE(a[i].shape() == b[i].shape());
    REQUIRE(a[i].TotalBytes() == b[i].TotalBytes());
    REQUIRE(std::memcmp(a[i].raw_data(), b[i].raw_data(), a[i].TotalBytes()) ==
            0);
  }
}

TEST_CASE("a graph spread over three server processes gives the local "
          "results") {
  TestCluster cluster({{"worker", 2}, {"ps", 1}});
  const GraphDef graph = SpreadGraph();
  auto remote = OpenSession(cluster.Target(), graph);
  auto local = OpenSession("local", WithoutDevices(graph));

  absl::StatusOr<std::vector<DeviceAttributes>> devices =
      remote->ListDevices();
  REQUIRE_OK(devices.status());
  std::vector<std::string> names;
  for (const DeviceAttributes& d : *devices) names.push_back(d.name());
  CHECK_THAT(names, Catch::Matchers::VectorContains(
                        std::string(kPs) + "/device:CPU:0"));
  CHECK_THAT(names, Catch::Matchers::VectorContains(
                        std::string(kWorker1) + "/device:CPU:0"));

  for (float base : {1.0f, -2.5f, 7.0f}) {
    std::vector<Tensor> got, want;
    REQUIRE_OK(remote->Run({{"x", Feed(base)}}, {"out", "total", "y"}, {},
                           &got));
    REQUIRE_OK(local->Run({{"x", Feed(base)}}, {"out", "total", "y"}, {},
                          &want));
    RequireSameTensors(got, want);
  }
  // Any task is a master: the same graph through worker 1's master.
  auto other = OpenSession(cluster.Target("worker", 1), graph);
  std::vector<Tensor> got, want;
  REQUIRE_OK(other->Run({{"x", Feed(4.0f)}}, {"out"}, {}, &got));
  REQUIRE_OK(local->Run({{"x", Feed(4.0f)}}, {"out"}, {}, &want));
  RequireSameTensors(got, want);
  REQUIRE_OK(remote->Close());
  REQUIRE_OK(other->Close());
}

// A small fed tensor (declared [2,3] float) read on all three tasks, and
// a feed of unknown shape read on worker 1: the small one goes straight to
// each reader's task with its RunGraph, the other through the client's.
GraphDef SmallFeedGraph() {
  Scope root = Scope::NewRootScope();
  Output x = ops::Placeholder(root.WithOpName("x").WithDevice(kWorker0),
                              DT_FLOAT, PartialShape::Known({2, 3}));
  Output u = ops::Placeholder(root.WithOpName("u").WithDevice(kWorker0),
                              DT_FLOAT);
  Output on_ps = ops::Mul(root.WithOpName("on_ps").WithDevice(kPs), x,
                          ops::Const(root.WithOpName("two").WithDevice(kPs),
                                     2.0f));
  Output on_w1 = ops::AddV2(root.WithOpName("on_w1").WithDevice(kWorker1),
                            x, u);
  Output on_w0 = ops::Neg(root.WithOpName("on_w0").WithDevice(kWorker0), x);
  Output sum = ops::AddV2(root.WithOpName("sum").WithDevice(kWorker1),
                          on_ps, on_w1);
  ops::AddV2(root.WithOpName("out").WithDevice(kWorker0), sum, on_w0);
  GraphDef graph;
  REQUIRE_OK(root.ToGraphDef(&graph));
  return graph;
}

bool HasNodeNamed(const GraphDef& graph, absl::string_view name) {
  for (const NodeDef& n : graph.node()) {
    if (n.name() == name) return true;
  }
  return false;
}

TEST_CASE("a small fed tensor goes straight to the tasks that read it and "
          "gives the local results") {
  TestCluster cluster({{"worker", 2}, {"ps", 1}});
  const GraphDef graph = SmallFeedGraph();
  auto remote = OpenSession(cluster.Target(), graph);
  auto local = OpenSession("local", WithoutDevices(graph));
  for (float base : {1.0f, -2.5f, 7.0f}) {
    const std::vector<std::pair<std::string, Tensor>> feeds = {
        {"x", Feed(base)}, {"u", Feed(base + 1.0f)}};
    std::vector<Tensor> got, want;
    RunOptions options;
    options.set_output_partition_graphs(true);
    RunMetadata metadata;
    REQUIRE_OK(remote->Run(options, feeds, {"out", "on_w1"}, {}, &got,
                           &metadata));
    REQUIRE_OK(local->Run(feeds, {"out", "on_w1"}, {}, &want));
    RequireSameTensors(got, want);
    // x has a client _Recv on each task; u only on the client's task.
    int x_recvs = 0;
    int u_recvs = 0;
    for (const GraphDef& part : metadata.partition_graphs()) {
      x_recvs += HasNodeNamed(part, "_recv_x_0") ||
                 HasNodeNamed(part, "_recv_x_0/ps_0_0_CPU_0") ||
                 HasNodeNamed(part, "_recv_x_0/worker_0_1_CPU_0");
      u_recvs += HasNodeNamed(part, "_recv_u_0");
    }
    CHECK(metadata.partition_graphs_size() == 3);
    CHECK(x_recvs == 3);
    CHECK(u_recvs == 1);
  }
  // A value of another shape than declared is refused, as before.
  std::vector<Tensor> got;
  CHECK_THAT(remote->Run({{"x", Tensor::FromVector<float>({1, 2})},
                          {"u", Feed(1.0f)}},
                         {"out"}, {}, &got),
             ::dfx::testing::StatusIs(absl::StatusCode::kInvalidArgument));
  REQUIRE_OK(remote->Close());
}

TEST_CASE("several clients run sessions on one cluster at once") {
  TestCluster cluster({{"worker", 2}, {"ps", 1}});
  const GraphDef graph = SpreadGraph();
  auto local = OpenSession("local", WithoutDevices(graph));
  constexpr int kClients = 4;
  constexpr int kSteps = 15;
  std::atomic<int> ok_steps{0};
  std::vector<std::string> failures(kClients);
  std::vector<std::thread> clients;
  for (int c = 0; c < kClients; ++c) {
    clients.emplace_back([&, c] {
      // Clients alternate between the two masters.
      auto session = Session::Create(cluster.Target("worker", c % 2));
      if (!session.ok()) {
        failures[c] = session.status().ToString();
        return;
      }
      if (absl::Status s = (*session)->Extend(graph); !s.ok()) {
        failures[c] = s.ToString();
        return;
      }
      for (int i = 0; i < kSteps; ++i) {
        const float base = static_cast<float>(c * 100 + i);
        std::vector<Tensor> got, want;
        absl::Status s = (*session)->Run({{"x", Feed(base)}}, {"out"}, {},
                                         &got);
        absl::Status l = local->Run({{"x", Feed(base)}}, {"out"}, {}, &want);
        if (!s.ok() || !l.ok()) {
          failures[c] = s.ok() ? l.ToString() : s.ToString();
          return;
        }
        if (got.size() != 1 || want.size() != 1 ||
            std::memcmp(got[0].raw_data(), want[0].raw_data(),
                        want[0].TotalBytes()) != 0) {
          failures[c] = absl::StrCat("wrong result at step ", i);
          return;
        }
        ok_steps.fetch_add(1);
      }
      (void)(*session)->Close();
    });
  }
  for (auto& t : clients) t.join();
  for (int c = 0; c < kClients; ++c) {
    INFO("client " << c);
    CHECK(failures[c].empty());
    if (!failures[c].empty()) WARN(failures[c]);
  }
  CHECK(ok_steps.load() == kClients * kSteps);
}

// An outer product u (rows x 1) * v (1 x cols), made on `device`; both
// tasks compute it from the same constants, bit for bit.
Output OuterProduct(const Scope& scope, int rows, int cols) {
  std::vector<float> u(rows), v(cols);
  for (int i = 0; i < rows; ++i) u[i] = 1.0f + 0.001f * static_cast<float>(i);
  for (int j = 0; j < cols; ++j) v[j] = 0.5f - 0.0003f * static_cast<float>(j);
  Output uc = ops::Const(scope.WithOpName(scope.GetUniqueNameForOp("u")), u,
                         std::vector<int64_t>{rows, 1});
  Output vc = ops::Const(scope.WithOpName(scope.GetUniqueNameForOp("v")), v,
                         std::vector<int64_t>{1, cols});
  return ops::MatMul(scope.WithOpName(scope.GetUniqueNameForOp("outer")), uc,
                     vc);
}

// Sends a rows x cols float tensor from the ps to worker 1 and checks there,
// against the same tensor computed on worker 1, that every bit arrived.
void CheckBigTransfer(const std::string& target, int rows, int cols) {
  Scope root = Scope::NewRootScope();
  Output sent = OuterProduct(root.WithDevice(kPs), rows, cols);
  Scope w1 = root.WithDevice(kWorker1);
  Output local = OuterProduct(w1, rows, cols);
  Output diff = ops::Sub(w1.WithOpName("diff"), sent, local);
  ops::Max(w1.WithOpName("max_sq_diff"), ops::Square(w1, diff),
           ops::Const(w1.WithOpName("axes"), {0, 1}));
  ops::Shape(w1.WithOpName("shape"), sent);
  GraphDef graph;
  REQUIRE_OK(root.ToGraphDef(&graph));
  auto session = OpenSession(target, graph);
  std::vector<Tensor> out;
  REQUIRE_OK(session->Run({}, {"max_sq_diff", "shape"}, {}, &out));
  REQUIRE(out.size() == 2);
  CHECK(out[0].scalar<float>() == 0.0f);
  REQUIRE(out[1].NumElements() == 2);
  CHECK(out[1].data<int32_t>()[0] == rows);
  CHECK(out[1].data<int32_t>()[1] == cols);
  REQUIRE_OK(session->Close());
}

TEST_CASE("a 512 MiB tensor crosses processes intact") {
  TestCluster cluster({{"worker", 2}, {"ps", 1}});
  CheckBigTransfer(cluster.Target(), 8192, 16384);  // 2^27 floats
}

// [big]: the TSan build leaves it out of the TLS run of this file.
TEST_CASE("a tensor over gRPC's 2 GiB message limit crosses processes",
          "[big]") {
#if defined(__SANITIZE_THREAD__)
  // TSan's shadow and metadata take several times the memory they track: a
  // server holding this tensor and its copies reached 13 GiB and was killed
  // by the kernel on the 24 GiB build machine. The plain and ASan suites
  // run it.
  WARN("SKIPPED: under TSan the 2.5 GiB transfer needs more memory than "
       "TSan's shadow leaves");
  return;
#endif
  // 20480 x 32768 floats = 2.5 GiB, made on the ps and reduced on worker 1;
  // the ps reduces its own copy the same way, so the sums agree bit for bit
  // only if every byte arrived in its place.
  TestCluster cluster({{"worker", 2}, {"ps", 1}});
  constexpr int kRows = 20480;
  constexpr int kCols = 32768;
  Scope root = Scope::NewRootScope();
  Scope ps = root.WithDevice(kPs);
  Scope w1 = root.WithDevice(kWorker1);
  Output big = OuterProduct(ps, kRows, kCols);
  ops::Sum(ps.WithOpName("sum_at_ps"), big,
           ops::Const(ps.WithOpName("ps_axes"), {0, 1}));
  Output moved = ops::Identity(w1.WithOpName("moved"), big);
  ops::Sum(w1.WithOpName("sum_at_w1"), moved,
           ops::Const(w1.WithOpName("w1_axes"), {0, 1}));
  ops::Max(w1.WithOpName("max_at_w1"), moved,
           ops::Const(w1.WithOpName("w1_axes2"), {0, 1}));
  ops::Shape(w1.WithOpName("shape_at_w1"), moved);
  GraphDef graph;
  REQUIRE_OK(root.ToGraphDef(&graph));
  auto session = OpenSession(cluster.Target(), graph);
  std::vector<Tensor> out;
  RunOptions options;
  options.set_timeout_in_ms(240000);
  REQUIRE_OK(session->Run(options, {},
                          {"sum_at_ps", "sum_at_w1", "max_at_w1",
                           "shape_at_w1"},
                          {}, &out, nullptr));
  REQUIRE(out.size() == 4);
  CHECK(out[0].scalar<float>() == out[1].scalar<float>());
  // The largest element is u[last] * v[0].
  CHECK(out[2].scalar<float>() ==
        (1.0f + 0.001f * static_cast<float>(kRows - 1)) * 0.5f);
  CHECK(out[3].data<int32_t>()[0] == kRows);
  CHECK(out[3].data<int32_t>()[1] == kCols);
  REQUIRE_OK(session->Close());
}

TEST_CASE("a tensor larger than the chunk size crosses in chunks intact") {
  // Without the bulk data plane, 1 MiB chunks: a 24 MiB + odd-bytes tensor
  // goes over gRPC in 25 pieces.
  TestCluster cluster({{"worker", 2}, {"ps", 1}},
                      {"--max-chunk-bytes", "1048576", "--no-bulk"});
  CheckBigTransfer(cluster.Target(), 6151, 1024);
}

// A step that cannot finish while worker 1 is stopped: worker 0 waits for
// worker 1's tensor.
GraphDef CrossGraph() {
  Scope root = Scope::NewRootScope();
  Output a = ops::Fill(root.WithOpName("a").WithDevice(kWorker1),
                       ops::Const(root.WithOpName("dims").WithDevice(kWorker1),
                                  {16}),
                       ops::Const(root.WithOpName("v").WithDevice(kWorker1),
                                  2.0f));
  ops::Mul(root.WithOpName("b").WithDevice(kWorker0), a, a);
  GraphDef graph;
  REQUIRE_OK(root.ToGraphDef(&graph));
  return graph;
}

GraphDef LocalOnlyGraph() {
  Scope root = Scope::NewRootScope();
  Output c = ops::Const(root.WithOpName("c").WithDevice(kPs), {1.0f, 2.0f});
  ops::Mul(root.WithOpName("d").WithDevice(kWorker0), c, c);
  GraphDef graph;
  REQUIRE_OK(root.ToGraphDef(&graph));
  return graph;
}

TEST_CASE("a worker killed in the middle of a step ends the step with "
          "Unavailable naming it, and the master keeps serving") {
  TestCluster cluster({{"worker", 2}, {"ps", 1}});
  auto session = OpenSession(cluster.Target(), CrossGraph());
  std::vector<Tensor> out;
  REQUIRE_OK(session->Run({}, {"b"}, {}, &out));  // warm: graphs registered
  CHECK(out[0].data<float>()[0] == 4.0f);

  // Stopped, worker 1 holds the step in the middle; then it dies.
  cluster.Freeze("worker", 1);
  auto step = std::async(std::launch::async, [&] {
    RunOptions options;
    options.set_timeout_in_ms(60000);
    std::vector<Tensor> o;
    return session->Run(options, {}, {"b"}, {}, &o, nullptr);
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(500));
  REQUIRE(step.wait_for(std::chrono::seconds(0)) ==
          std::future_status::timeout);
  cluster.Kill("worker", 1);
  REQUIRE(step.wait_for(std::chrono::seconds(30)) ==
          std::future_status::ready);
  absl::Status s = step.get();
  INFO(s.ToString());
  CHECK((s.code() == absl::StatusCode::kUnavailable ||
         s.code() == absl::StatusCode::kAborted));
  CHECK(absl::StrContains(s.message(), kWorker1));

  // The master serves a new session on the tasks still up.
  auto healthy = Session::Create(cluster.Target());
  REQUIRE_OK(healthy.status());
  SessionOptions filtered;
  filtered.config.add_device_filters("/job:ps");
  filtered.config.add_device_filters("/job:worker/replica:0/task:0");
  auto survivor = Session::Create(cluster.Target(), filtered);
  REQUIRE_OK(survivor.status());
  REQUIRE_OK((*survivor)->Extend(LocalOnlyGraph()));
  REQUIRE_OK((*survivor)->Run({}, {"d"}, {}, &out));
  CHECK(out[0].data<float>()[1] == 4.0f);
  // And a new session over the whole cluster fails fast, naming the task.
  absl::Status whole = (*healthy)->Extend(LocalOnlyGraph());
  CHECK(!whole.ok());
  CHECK(absl::StrContains(whole.message(), kWorker1));
}

TEST_CASE("bad requests get the right code and the server keeps serving") {
  TestCluster cluster({{"worker", 2}});
  auto master = tensorflow::MasterService::NewStub(
      NewChannel(cluster.Address("worker", 0), cluster.client_security()));
  auto worker = tensorflow::WorkerService::NewStub(
      NewChannel(cluster.Address("worker", 1), cluster.client_security()));
  auto call_ctx = [] {
    auto ctx = std::make_unique<grpc::ClientContext>();
    SetTimeout(ctx.get(), absl::Seconds(20));
    return ctx;
  };

  SECTION("unknown session handle") {
    RunStepRequest request;
    request.set_session_handle("0123456789abcdef");
    request.add_fetch("x:0");
    RunStepResponse response;
    auto ctx = call_ctx();
    grpc::Status s = master->RunStep(ctx.get(), request, &response);
    CHECK(s.error_code() == grpc::StatusCode::ABORTED);
    CHECK(absl::StrContains(s.error_message(), "0123456789abcdef"));
    // In the body when the client asks for it, as TensorFlow's does.
    request.set_store_errors_in_response_body(true);
    auto ctx2 = call_ctx();
    s = master->RunStep(ctx2.get(), request, &response);
    CHECK(s.ok());
    CHECK(response.status_code() == dfx::error::ABORTED);
    CHECK(absl::StrContains(response.status_error_message(),
                            "0123456789abcdef"));
  }
  SECTION("unknown graph handle") {
    RunGraphRequest request;
    request.set_graph_handle("no-such-graph");
    request.set_step_id(7);
    RunGraphResponse response;
    auto ctx = call_ctx();
    grpc::Status s = worker->RunGraph(ctx.get(), request, &response);
    CHECK((s.error_code() == grpc::StatusCode::ABORTED ||
           s.error_code() == grpc::StatusCode::NOT_FOUND));
    CHECK(absl::StrContains(s.error_message(), "no-such-graph"));
  }
  SECTION("malformed and stale rendezvous keys") {
    RecvTensorRequest request;
    request.set_step_id(1);
    request.set_rendezvous_key("not;a;key");
    RecvTensorResponse response;
    auto ctx = call_ctx();
    grpc::Status s = worker->RecvTensor(ctx.get(), request, &response);
    CHECK(s.error_code() == grpc::StatusCode::INVALID_ARGUMENT);
    CHECK(absl::StrContains(s.error_message(), "not;a;key"));

    GetStatusRequest status_request;
    GetStatusResponse status;
    auto ctx2 = call_ctx();
    REQUIRE(worker->GetStatus(ctx2.get(), status_request, &status).ok());
    REQUIRE(status.device_attributes_size() >= 1);
    const DeviceAttributes& device = status.device_attributes(0);
    request.set_rendezvous_key(Rendezvous::CreateKey(
        device.name(), device.incarnation() + 1,
        std::string(kWorker0) + "/device:CPU:0", "edge_1_x"));
    auto ctx3 = call_ctx();
    s = worker->RecvTensor(ctx3.get(), request, &response);
    CHECK(s.error_code() == grpc::StatusCode::ABORTED);
    CHECK(absl::StrContains(s.error_message(), "incarnation"));
  }
  SECTION("a feed of the wrong dtype") {
    auto session = OpenSession(cluster.Target(), SpreadGraphOnWorkers());
    std::vector<Tensor> out;
    absl::Status s = session->Run(
        {{"x", Tensor::FromVector<int32_t>({1, 2, 3, 4, 5, 6},
                                           TensorShape({2, 3}))}},
        {"out"}, {}, &out);
    CHECK(s.code() == absl::StatusCode::kInvalidArgument);
    CHECK(absl::StrContains(s.message(), "x"));
  }
  // Whatever came before, the cluster still runs steps.
  auto session = OpenSession(cluster.Target(), SpreadGraphOnWorkers());
  std::vector<Tensor> out;
  REQUIRE_OK(session->Run({{"x", Feed(1.0f)}}, {"out"}, {}, &out));
}

TEST_CASE("SIGTERM cancels the steps in flight and the server exits 0") {
  TestCluster cluster({{"worker", 2}});
  auto session = OpenSession(cluster.Target(), CrossGraph());
  std::vector<Tensor> out;
  REQUIRE_OK(session->Run({}, {"b"}, {}, &out));
  cluster.Freeze("worker", 1);
  auto step = std::async(std::launch::async, [&] {
    RunOptions options;
    options.set_timeout_in_ms(60000);
    std::vector<Tensor> o;
    return session->Run(options, {}, {"b"}, {}, &o, nullptr);
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  cluster.Signal("worker", 0, SIGTERM);
  REQUIRE(step.wait_for(std::chrono::seconds(30)) ==
          std::future_status::ready);
  absl::Status s = step.get();
  INFO(s.ToString());
  CHECK((s.code() == absl::StatusCode::kCancelled ||
         s.code() == absl::StatusCode::kUnavailable ||
         s.code() == absl::StatusCode::kAborted));
  CHECK(cluster.WaitExit("worker", 0) == 0);
  CHECK(absl::StrContains(cluster.Log("worker", 0), "SIGTERM"));
  cluster.Signal("worker", 1, SIGCONT);
  cluster.Signal("worker", 1, SIGINT);
  CHECK(cluster.WaitExit("worker", 1) == 0);
}

}  // namespace
}  // namespace dfx
