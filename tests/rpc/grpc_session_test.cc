// GrpcSession against an in-process gRPC server serving a Master over one
// in-process worker: the same results as the local session, several
// sessions and threads, errors as the Session contract states them, and
// targets that are wrong or have no master.
#include "rpc/grpc_session.h"

#include <chrono>
#include <future>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "base/status_macros.h"
#include "catch2/catch.hpp"
#include "google/protobuf/text_format.h"
#include "graph/builder/ops.h"
#include "graph/builder/scope.h"
#include "grpcpp/client_context.h"
#include "grpcpp/security/server_credentials.h"
#include "grpcpp/server.h"
#include "grpcpp/server_builder.h"
#include "master/master.h"
#include "proto/master_service.grpc.pb.h"
#include "rendezvous/rendezvous_mgr.h"
#include "rpc/grpc_master_service.h"
#include "rpc/grpc_util.h"
#include "runtime/device.h"
#include "runtime/thread_pool.h"
#include "tests/master/session_test_util.h"
#include "tests/testing/status_matchers.h"
#include "worker/local_worker.h"
#include "worker/worker.h"
#include "worker/worker_cache.h"

namespace dfx {
namespace {

using ::dfx::testing::BlockUntilCancelledOp;
using ::dfx::testing::Registries;
using ::dfx::testing::StatusIs;

constexpr char kTask[] = "/job:worker/replica:0/task:0";

// A master on 127.0.0.1:<port> over one in-process worker with two CPU
// devices, using the test registries (the standard ops and
// BlockUntilCancelled).
class TestServer {
 public:
  explicit TestServer(int master_threads = 8, int max_queued = 1024) {
    CpuDeviceOptions options;
    options.task_name = kTask;
    options.num_devices = 2;
    options.intra_op_threads = 1;
    auto devices = DeviceMgr::NewCpu(options);
    REQUIRE_OK(devices);
    devices_ = std::move(devices).value();
    pool_ = std::make_unique<ThreadPool>("grpc_session_test", 4);
    WorkerEnv env;
    env.device_mgr = devices_.get();
    env.rendezvous_mgr = &rendezvous_mgr_;
    env.compute_pool = pool_.get();
    env.ops = &Registries()->ops;
    env.kernels = &Registries()->kernels;
    worker_ = std::make_unique<Worker>(env);
    local_ = std::make_unique<LocalWorker>(worker_.get());
    cache_.AddWorker(kTask, local_.get());
    MasterEnv master_env;
    master_env.worker_cache = &cache_;
    master_env.local_task = kTask;
    master_env.ops = &Registries()->ops;
    master_env.kernels = &Registries()->kernels;
    master_ = std::make_unique<Master>(master_env);
    service_ = std::make_unique<GrpcMasterService>(master_.get(),
                                                   master_threads, max_queued);

    grpc::ServerBuilder builder;
    ConfigureServerBuilder(&builder);
    builder.AddListeningPort("127.0.0.1:0", grpc::InsecureServerCredentials(),
                             &port_);
    service_->RegisterWith(&builder);
    server_ = builder.BuildAndStart();
    REQUIRE(server_ != nullptr);
    REQUIRE(port_ > 0);
  }
  ~TestServer() {
    master_->Shutdown();
    server_->Shutdown(std::chrono::system_clock::now() +
                      std::chrono::seconds(10));
    server_->Wait();
    server_.reset();
    service_.reset();
    master_.reset();
    pool_.reset();
    local_.reset();
    worker_.reset();
  }

  std::string address() const { return absl::StrCat("127.0.0.1:", port_); }
  std::string target() const { return absl::StrCat("grpc://", address()); }
  Master* master() { return master_.get(); }

 private:
  std::unique_ptr<DeviceMgr> devices_;
  RendezvousMgr rendezvous_mgr_;
  std::unique_ptr<ThreadPool> pool_;
  std::unique_ptr<Worker> worker_;
  std::unique_ptr<LocalWorker> local_;
  StaticWorkerCache cache_;
  std::unique_ptr<Master> master_;
  std::unique_ptr<GrpcMasterService> service_;
  std::unique_ptr<grpc::Server> server_;
  int port_ = 0;
};

std::unique_ptr<Session> NewSession(const std::string& target,
                                    const SessionOptions& options = {}) {
  auto session = Session::Create(target, options);
  REQUIRE_OK(session);
  return std::move(session).value();
}

// Runs `f` on another thread and waits for it, bounded.
template <typename F>
auto Bounded(F&& f) {
  auto future = std::async(std::launch::async, std::forward<F>(f));
  REQUIRE(future.wait_for(std::chrono::seconds(60)) ==
          std::future_status::ready);
  return future.get();
}

// The values of a float tensor; empty for another dtype. Asserts nothing,
// so threads a test starts may call it (Catch2 is not thread-safe).
std::vector<float> FloatValues(const Tensor& t) {
  if (t.dtype() != DT_FLOAT) return {};
  auto span = t.span<float>();
  return std::vector<float>(span.begin(), span.end());
}

std::vector<float> Floats(const Tensor& t) {
  REQUIRE(t.dtype() == DT_FLOAT);
  return FloatValues(t);
}

// relu(x @ w - 5) and its column sums, built with the C++ builder.
GraphDef MlpGraph() {
  Scope root = Scope::NewRootScope();
  auto x = ops::Placeholder(root.WithOpName("x"), DT_FLOAT);
  auto w = ops::Const(root.WithOpName("w"), {{1.f, 2.f}, {3.f, 4.f}});
  auto y = ops::MatMul(root.WithOpName("y"), x, w);
  auto z = ops::Relu(root.WithOpName("z"),
                     ops::Sub(root.WithOpName("shift"), y,
                              ops::Const(root.WithOpName("five"), 5.f)));
  ops::Sum(root.WithOpName("s"), z, ops::Const(root.WithOpName("axis"), 0));
  GraphDef def;
  REQUIRE_OK(root.ToGraphDef(&def));
  return def;
}

GraphDef BlockingGraph() {
  GraphDef def;
  REQUIRE(google::protobuf::TextFormat::ParseFromString(R"pb(
    node {
      name: "x"
      op: "Placeholder"
      attr { key: "dtype" value { type: DT_FLOAT } }
    }
    node { name: "b" op: "BlockUntilCancelled" input: "x" }
  )pb", &def));
  return def;
}

TEST_CASE("a grpc session computes what the local session computes") {
  TestServer server;
  std::unique_ptr<Session> remote = NewSession(server.target());
  std::unique_ptr<Session> local = NewSession("local");
  const GraphDef graph = MlpGraph();
  REQUIRE_OK(remote->Extend(graph));
  REQUIRE_OK(local->Extend(graph));

  const Tensor x = Tensor::FromVector<float>({1, 2, 3, 4, 5, 6},
                                             TensorShape({3, 2}));
  const std::vector<std::string> fetches = {"z", "s:0", "y", "z"};
  std::vector<Tensor> want;
  std::vector<Tensor> got;
  REQUIRE_OK(local->Run({{"x", x}}, fetches, {}, &want));
  REQUIRE_OK(remote->Run({{"x", x}}, fetches, {}, &got));
  REQUIRE(got.size() == fetches.size());
  for (size_t i = 0; i < fetches.size(); ++i) {
    INFO(fetches[i]);
    CHECK(got[i].shape() == want[i].shape());
    CHECK(Floats(got[i]) == Floats(want[i]));
  }
  CHECK(Floats(got[1]) == std::vector<float>{30, 51});

  // A later Extend goes to the same session (ExtendSession).
  const std::string handle =
      static_cast<GrpcSession*>(remote.get())->handle();
  CHECK(handle.size() == 16);
  GraphDef extension;
  REQUIRE(google::protobuf::TextFormat::ParseFromString(R"pb(
    node {
      name: "neg"
      op: "Neg"
      input: "s"
      attr { key: "T" value { type: DT_FLOAT } }
    })pb", &extension));
  REQUIRE_OK(remote->Extend(extension));
  REQUIRE_OK(local->Extend(extension));
  REQUIRE_OK(remote->Run({{"x", x}}, {"neg"}, {}, &got));
  REQUIRE_OK(local->Run({{"x", x}}, {"neg"}, {}, &want));
  CHECK(Floats(got[0]) == Floats(want[0]));
  CHECK(static_cast<GrpcSession*>(remote.get())->handle() == handle);
  CHECK(server.master()->NumSessions() == 1);

  SECTION("step statistics come back") {
    RunOptions options;
    options.set_trace_level(RunOptions::FULL_TRACE);
    RunMetadata metadata;
    REQUIRE_OK(remote->Run(options, {{"x", x}}, {"s"}, {}, &got, &metadata));
    CHECK(metadata.step_stats().dev_stats_size() > 0);
  }
  SECTION("Close ends the session on the master, later calls are Cancelled") {
    REQUIRE_OK(remote->Close());
    CHECK(server.master()->NumSessions() == 0);
    CHECK_THAT(remote->Run({{"x", x}}, {"s"}, {}, &got),
               StatusIs(absl::StatusCode::kCancelled));
    CHECK_THAT(remote->Extend(GraphDef()),
               StatusIs(absl::StatusCode::kCancelled));
    CHECK_THAT(remote->ListDevices().status(),
               StatusIs(absl::StatusCode::kCancelled));
    REQUIRE_OK(remote->Close());  // idempotent
  }
}

TEST_CASE("ListDevices before any Extend creates the session first") {
  TestServer server;
  std::unique_ptr<Session> session = NewSession(server.target());
  auto devices = session->ListDevices();
  REQUIRE_OK(devices);
  std::vector<std::string> names;
  for (const DeviceAttributes& d : *devices) names.push_back(d.name());
  const std::vector<std::string> want = {absl::StrCat(kTask, "/device:CPU:0"),
                                         absl::StrCat(kTask, "/device:CPU:1")};
  CHECK(names == want);
  CHECK(server.master()->NumSessions() == 1);
  // The whole graph then comes as ExtendSession.
  REQUIRE_OK(session->Extend(MlpGraph()));
  std::vector<Tensor> out;
  REQUIRE_OK(session->Run(
      {{"x", Tensor::FromVector<float>({1, 1}, TensorShape({1, 2}))}}, {"y"},
      {}, &out));
  CHECK(Floats(out[0]) == std::vector<float>{4, 6});
  CHECK(server.master()->NumSessions() == 1);
}

TEST_CASE("several grpc sessions run steps from several threads") {
  TestServer server;
  std::vector<std::unique_ptr<Session>> sessions;
  for (int i = 0; i < 3; ++i) {
    sessions.push_back(NewSession(server.target()));
    REQUIRE_OK(sessions.back()->Extend(MlpGraph()));
  }
  CHECK(server.master()->NumSessions() == 3);
  std::vector<std::future<absl::Status>> runs;
  for (int t = 0; t < 6; ++t) {
    Session* session = sessions[t % 3].get();
    runs.push_back(std::async(std::launch::async, [session, t] {
      for (int i = 0; i < 10; ++i) {
        const float v = static_cast<float>(t * 10 + i);
        std::vector<Tensor> out;
        DFX_RETURN_IF_ERROR(session->Run(
            {{"x", Tensor::FromVector<float>({v, 0}, TensorShape({1, 2}))}},
            {"y", "y"}, {}, &out));
        // No Catch2 assertion on this thread: the main thread checks the
        // status.
        if (out.size() != 2 ||
            FloatValues(out[0]) != std::vector<float>{v, 2 * v} ||
            FloatValues(out[1]) != FloatValues(out[0])) {
          return absl::InternalError(absl::StrCat("wrong result for ", v));
        }
      }
      return absl::OkStatus();
    }));
  }
  for (auto& run : runs) {
    REQUIRE(run.wait_for(std::chrono::seconds(60)) ==
            std::future_status::ready);
    REQUIRE_OK(run.get());
  }
}

TEST_CASE("grpc session errors") {
  TestServer server;
  SessionOptions options;
  std::unique_ptr<Session> session = NewSession(server.target(), options);
  REQUIRE_OK(session->Extend(MlpGraph()));
  // The blocking node reads the MLP's placeholder.
  GraphDef block;
  REQUIRE(google::protobuf::TextFormat::ParseFromString(
      R"pb(node { name: "b" op: "BlockUntilCancelled" input: "x" })pb",
      &block));
  REQUIRE_OK(session->Extend(block));
  std::vector<Tensor> out;
  const Tensor x = Tensor::FromVector<float>({1, 2}, TensorShape({1, 2}));

  SECTION("an unknown fetch") {
    CHECK_THAT(session->Run({{"x", x}}, {"nope:0"}, {}, &out),
               StatusIs(absl::StatusCode::kInvalidArgument, "nope"));
  }
  SECTION("a feed of the wrong dtype") {
    CHECK_THAT(session->Run({{"x", Tensor::FromVector<int32_t>({1, 2})}},
                            {"y"}, {}, &out),
               StatusIs(absl::StatusCode::kInvalidArgument, "'x'"));
  }
  SECTION("a graph the master rejects names the node") {
    GraphDef bad;
    REQUIRE(google::protobuf::TextFormat::ParseFromString(
        R"pb(node { name: "odd" op: "NoSuchOp" })pb", &bad));
    CHECK_THAT(session->Extend(bad),
               StatusIs(absl::StatusCode::kInvalidArgument, "NoSuchOp"));
    // The session's graph is unchanged and still runs.
    REQUIRE_OK(session->Run({{"x", x}}, {"y"}, {}, &out));
  }
  SECTION("a step past its timeout") {
    RunOptions run_options;
    run_options.set_timeout_in_ms(200);
    CHECK_THAT(Bounded([&] {
                 return session->Run(run_options,
                                     {{"x", Tensor::Scalar<float>(1)}}, {"b"},
                                     {}, &out, nullptr);
               }),
               StatusIs(absl::StatusCode::kDeadlineExceeded));
  }
  SECTION("Close ends a running step with Cancelled") {
    const int started = BlockUntilCancelledOp::started.load();
    auto run = std::async(std::launch::async, [&] {
      std::vector<Tensor> blocked;
      return session->Run({{"x", Tensor::Scalar<float>(1)}}, {"b"}, {},
                          &blocked);
    });
    const absl::Time give_up = absl::Now() + absl::Seconds(60);
    while (BlockUntilCancelledOp::started.load() == started &&
           absl::Now() < give_up) {
      absl::SleepFor(absl::Milliseconds(5));
    }
    REQUIRE(BlockUntilCancelledOp::started.load() > started);
    REQUIRE_OK(session->Close());
    REQUIRE(run.wait_for(std::chrono::seconds(60)) ==
            std::future_status::ready);
    CHECK_THAT(run.get(), StatusIs(absl::StatusCode::kCancelled));
  }
}

TEST_CASE("the master service answers TensorFlow's RunStep error forms") {
  TestServer server;
  auto stub = tensorflow::MasterService::NewStub(
      NewChannel(server.address()));
  RunStepRequest request;
  request.set_session_handle("0123456789abcdef");
  request.add_fetch("y:0");
  RunStepResponse response;

  SECTION("errors in the body: gRPC OK, the status in the response") {
    request.set_store_errors_in_response_body(true);
    grpc::ClientContext ctx;
    SetTimeout(&ctx, absl::Seconds(30));
    grpc::Status s = stub->RunStep(&ctx, request, &response);
    REQUIRE(s.ok());
    CHECK(response.status_code() == error::ABORTED);
    CHECK_THAT(response.status_error_message(),
               Catch::Contains("Session 0123456789abcdef is not found"));
    CHECK(response.tensor_size() == 0);
  }
  SECTION("errors as the gRPC status") {
    grpc::ClientContext ctx;
    SetTimeout(&ctx, absl::Seconds(30));
    grpc::Status s = stub->RunStep(&ctx, request, &response);
    CHECK(s.error_code() == grpc::StatusCode::ABORTED);
  }
  SECTION("ListDevices of an unknown session") {
    ListDevicesRequest list;
    list.set_session_handle("0123456789abcdef");
    ListDevicesResponse devices;
    grpc::ClientContext ctx;
    SetTimeout(&ctx, absl::Seconds(30));
    grpc::Status s = stub->ListDevices(&ctx, list, &devices);
    CHECK(s.error_code() == grpc::StatusCode::INVALID_ARGUMENT);
  }
}

TEST_CASE("a client that cancels its RunStep cancels the step and a full "
          "master answers ResourceExhausted at once") {
  // One master thread and no queue: a second call while the first runs is
  // refused.
  TestServer server(1, 0);
  auto stub =
      tensorflow::MasterService::NewStub(NewChannel(server.address()));
  CreateSessionRequest create;
  *create.mutable_graph_def() = BlockingGraph();
  CreateSessionResponse created;
  {
    grpc::ClientContext ctx;
    SetTimeout(&ctx, absl::Seconds(30));
    REQUIRE_OK(FromGrpcStatus(stub->CreateSession(&ctx, create, &created)));
  }
  RunStepRequest blocking;
  blocking.set_session_handle(created.session_handle());
  NamedTensorProto* feed = blocking.add_feed();
  feed->set_name("x");
  Tensor::Scalar<float>(1).AsProtoTensorContent(feed->mutable_tensor());
  blocking.add_fetch("b");

  const int started = BlockUntilCancelledOp::started.load();
  grpc::ClientContext blocked_ctx;
  SetTimeout(&blocked_ctx, absl::Seconds(60));
  auto blocked = std::async(std::launch::async, [&] {
    RunStepResponse response;
    return stub->RunStep(&blocked_ctx, blocking, &response);
  });
  const absl::Time give_up = absl::Now() + absl::Seconds(60);
  while (BlockUntilCancelledOp::started.load() == started &&
         absl::Now() < give_up) {
    absl::SleepFor(absl::Milliseconds(5));
  }
  REQUIRE(BlockUntilCancelledOp::started.load() > started);

  {
    ListDevicesRequest list;
    ListDevicesResponse devices;
    grpc::ClientContext ctx;
    SetTimeout(&ctx, absl::Seconds(30));
    const grpc::Status s = stub->ListDevices(&ctx, list, &devices);
    CHECK(s.error_code() == grpc::StatusCode::RESOURCE_EXHAUSTED);
    CHECK_THAT(s.error_message(), Catch::Contains("the master is busy"));
  }

  // No timeout in the request: only the gRPC cancellation ends the step.
  blocked_ctx.TryCancel();
  REQUIRE(blocked.wait_for(std::chrono::seconds(60)) ==
          std::future_status::ready);
  CHECK(blocked.get().error_code() == grpc::StatusCode::CANCELLED);

  // The thread is free again: the session serves (fetching the fed x).
  RunStepRequest next = blocking;
  next.clear_fetch();
  next.add_fetch("x");
  RunStepResponse response;
  const absl::Time retry_until = absl::Now() + absl::Seconds(30);
  grpc::Status answer;
  do {
    grpc::ClientContext ctx;
    SetTimeout(&ctx, absl::Seconds(30));
    answer = stub->RunStep(&ctx, next, &response);
    // The cancelled call may hold the thread a moment longer.
  } while (answer.error_code() == grpc::StatusCode::RESOURCE_EXHAUSTED &&
           absl::Now() < retry_until);
  REQUIRE(answer.ok());
  REQUIRE(response.tensor_size() == 1);
}

TEST_CASE("the session's operation timeout bounds its steps") {
  TestServer server;
  SessionOptions options;
  options.config.set_operation_timeout_in_ms(200);
  std::unique_ptr<Session> session = NewSession(server.target(), options);
  REQUIRE_OK(session->Extend(BlockingGraph()));
  std::vector<Tensor> out;
  CHECK_THAT(Bounded([&] {
               return session->Run({{"x", Tensor::Scalar<float>(1)}}, {"b"},
                                   {}, &out);
             }),
             // The master's own error, not gRPC's bare one.
             StatusIs(absl::StatusCode::kDeadlineExceeded, "200 ms"));
}

TEST_CASE("a target with no master fails with Unavailable") {
  // A port nobody listens on: a server's, after it has gone.
  std::string target;
  {
    TestServer gone;
    target = gone.target();
  }
  SessionOptions options;
  options.config.set_operation_timeout_in_ms(300);  // caps the connect wait
  std::unique_ptr<Session> session = NewSession(target, options);
  CHECK_THAT(Bounded([&] { return session->Extend(GraphDef()); }),
             StatusIs(absl::StatusCode::kUnavailable, "no master at"));
  CHECK_THAT(Bounded([&] { return session->ListDevices().status(); }),
             StatusIs(absl::StatusCode::kUnavailable, target));
  REQUIRE_OK(session->Close());
}

TEST_CASE("bad grpc targets are InvalidArgument") {
  CHECK_THAT(Session::Create("grpc://localhost").status(),
             StatusIs(absl::StatusCode::kInvalidArgument, "grpc://localhost"));
  CHECK_THAT(Session::Create("grpc://host:port").status(),
             StatusIs(absl::StatusCode::kInvalidArgument));
  CHECK_THAT(Session::Create("grpc://127.0.0.1:70000").status(),
             StatusIs(absl::StatusCode::kInvalidArgument));
  SessionOptions options;
  options.config.set_operation_timeout_in_ms(-5);
  CHECK_THAT(Session::Create("grpc://127.0.0.1:1234", options).status(),
             StatusIs(absl::StatusCode::kInvalidArgument));
}

}  // namespace
}  // namespace dfx
