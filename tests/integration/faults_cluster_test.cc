// Faults on a cluster of real `dfx server` processes, each a failure a user
// met before it was fixed:
// - a SIGKILLed worker restarted on its port rejoins the same client
//   session (its state is gone: a variable it held reads as uninitialized),
//   at once when the master's heartbeat saw the restart first;
// - a client that cancels or passes its deadline cancels the step on the
//   master and on every worker (their CPUs go idle);
// - creating a session against a SIGSTOPped worker obeys --timeout-ms;
// - a step that allocates beyond --memory-limit fails with ResourceExhausted
//   naming the node, and the server serves on.
#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <future>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_split.h"
#include "absl/time/clock.h"
#include "catch2/catch.hpp"
#include "graph/builder/ops.h"
#include "graph/builder/scope.h"
#include "grpcpp/create_channel.h"
#include "grpcpp/security/credentials.h"
#include "proto/master_service.grpc.pb.h"
#include "rpc/grpc_util.h"
#include "runtime/session.h"
#include "tests/integration/test_cluster.h"
#include "tests/testing/loop_graph.h"
#include "tests/testing/status_matchers.h"

namespace dfx {
namespace {

using ::dfx::testing::G;
using ::dfx::testing::Loop;
using ::dfx::testing::TestCluster;

constexpr char kTask1[] = "/job:worker/replica:0/task:1";

// x on task 1 (a variable there, and a constant), y = x + 1 on task 0.
GraphDef TwoTaskGraph() {
  Scope root = Scope::NewRootScope();
  const Scope t1 = root.WithDevice(kTask1);
  Output v = ops::VarHandleOp(t1.WithOpName("v"), DT_FLOAT, {}, "v");
  ops::AssignVariableOp(t1.WithOpName("init"), v, ops::Const(t1, 41.0f));
  Output read = ops::ReadVariableOp(t1.WithOpName("read"), v, DT_FLOAT);
  Output c = ops::Const(t1.WithOpName("c"), 2.0f);
  ops::AddV2(root.WithDevice("/job:worker/replica:0/task:0")
                 .WithOpName("y"),
             c, ops::Const(root, 1.0f));
  ops::AddV2(root.WithDevice("/job:worker/replica:0/task:0")
                 .WithOpName("v_plus_one"),
             read, ops::Const(root, 1.0f));
  // Task 0 to task 1 and back: z = (c0 on task 0) + 1 on task 1.
  Output c0 = ops::Const(
      root.WithDevice("/job:worker/replica:0/task:0").WithOpName("c0"), 5.0f);
  ops::AddV2(t1.WithOpName("z"), c0, ops::Const(t1, 1.0f));
  GraphDef def;
  REQUIRE(root.ToGraphDef(&def).ok());
  return def;
}

std::unique_ptr<Session> Open(const TestCluster& cluster, GraphDef graph) {
  SessionOptions options;
  options.config.set_operation_timeout_in_ms(60000);
  auto s = Session::Create(cluster.Target(), options);
  REQUIRE_OK(s.status());
  REQUIRE_OK((*s)->Extend(graph));
  return *std::move(s);
}

absl::StatusOr<float> Fetch(Session* session, const std::string& name) {
  std::vector<Tensor> out;
  absl::Status s = session->Run({}, {name}, {}, &out);
  if (!s.ok()) return s;
  return out[0].scalar<float>();
}

TEST_CASE("a restarted worker rejoins the same client session") {
  // The rejoin that a failed step starts, without the heartbeat: a
  // heartbeat that met the task while it was down would leave the master's
  // channel in its reconnect backoff (up to 1 s), and this loop's steps,
  // fail-fast, would count those failures too. The heartbeat's own rejoin
  // is the next test.
  TestCluster cluster({{"worker", 2}}, {"--heartbeat-seconds", "0"});
  std::unique_ptr<Session> session = Open(cluster, TwoTaskGraph());
  {
    std::vector<Tensor> none;
    REQUIRE_OK(session->Run({}, {}, {"init"}, &none));
  }
  auto before = Fetch(session.get(), "v_plus_one");
  REQUIRE_OK(before.status());
  CHECK(*before == 42.0f);

  SECTION("killed and restarted between steps") {
    cluster.Restart("worker", 1);
  }
  SECTION("killed, a step fails, then restarted") {
    cluster.Kill("worker", 1);
    auto failed = Fetch(session.get(), "y");
    INFO(failed.status().ToString());
    CHECK(failed.status().code() == absl::StatusCode::kUnavailable);
    CHECK(absl::StrContains(failed.status().message(), kTask1));
    cluster.Restart("worker", 1);
  }
  // The step that finds the task gone fails with Unavailable naming it;
  // a later step succeeds, in the same session, and so do the ones after
  // it. Steps are fail-fast: while the master's channel to the task is in
  // gRPC's reconnect backoff (at most 1 s after a call met the task down)
  // they fail with Unavailable too, so a client retrying at once may see
  // several; this one retries every 50 ms, as a client would. (How fast
  // the rejoin is: tools/soak measures it; the bound here only keeps a
  // broken rejoin from looping.)
  const absl::Time restarted = absl::Now();
  absl::StatusOr<float> y = absl::UnknownError("not run");
  int failures = 0;
  while (absl::Now() - restarted < absl::Seconds(60)) {
    y = Fetch(session.get(), "y");
    if (y.ok()) break;
    ++failures;
    INFO(y.status().ToString());
    CHECK(y.status().code() == absl::StatusCode::kUnavailable);
    CHECK(absl::StrContains(y.status().message(), kTask1));
    absl::SleepFor(absl::Milliseconds(50));
  }
  INFO(y.status().ToString() << " after " << failures << " failed step(s)");
  REQUIRE(y.ok());
  CHECK(*y == 3.0f);
  for (int i = 0; i < 5; ++i) {
    auto again = Fetch(session.get(), "y");
    INFO(again.status().ToString());
    CHECK(again.ok());
  }

  // The variable lived in the old process: it must be set again.
  auto lost = Fetch(session.get(), "v_plus_one");
  INFO(lost.status().ToString());
  CHECK(lost.status().code() == absl::StatusCode::kFailedPrecondition);
  CHECK(absl::StrContains(lost.status().message(), "v"));
  {
    std::vector<Tensor> none;
    REQUIRE_OK(session->Run({}, {}, {"init"}, &none));
  }
  auto after = Fetch(session.get(), "v_plus_one");
  REQUIRE_OK(after.status());
  CHECK(*after == 42.0f);
  REQUIRE_OK(session->Close());
}

TEST_CASE("a probe answered by another task's server fails with "
          "FailedPrecondition naming both") {
  TestCluster cluster({{"worker", 2}});
  const ChannelSecurity& security = cluster.client_security();
  REQUIRE_OK(WaitForWorkerReady(cluster.Address("worker", 1),
                                absl::Now() + absl::Seconds(10), nullptr,
                                security, kTask1));
  // Task 0 listed at task 1's address (a wrong cluster spec, or a stranger
  // on a dead task's port).
  const absl::Status wrong = WaitForWorkerReady(
      cluster.Address("worker", 0), absl::Now() + absl::Seconds(10), nullptr,
      security, kTask1);
  INFO(wrong);
  CHECK(absl::IsFailedPrecondition(wrong));
  CHECK(absl::StrContains(wrong.message(), kTask1));
  CHECK(absl::StrContains(wrong.message(), "/job:worker/replica:0/task:0/"));

  // While killed (TestCluster holds its port, not listening), task 1's
  // address refuses connections; after Restart the task serves there again.
  cluster.Kill("worker", 1);
  const std::string address = cluster.Address("worker", 1);
  const absl::Status dead = WaitForWorkerReady(
      address, absl::Now() + absl::Milliseconds(700), nullptr, security,
      kTask1);
  CHECK(absl::IsDeadlineExceeded(dead));
  cluster.Restart("worker", 1);
  REQUIRE_OK(WaitForWorkerReady(address, absl::Now() + absl::Seconds(10),
                                nullptr, security, kTask1));
}

TEST_CASE("with a heartbeat, a worker restarted while its session is idle "
          "rejoins before the next step, which runs at once") {
  TestCluster cluster({{"worker", 2}}, {"--heartbeat-seconds", "1"});
  std::unique_ptr<Session> session = Open(cluster, TwoTaskGraph());
  {
    std::vector<Tensor> none;
    REQUIRE_OK(session->Run({}, {}, {"init"}, &none));
  }
  REQUIRE_OK(Fetch(session.get(), "y").status());
  // Both ways between the tasks: task 0's push stream to task 1 is up.
  for (int i = 0; i < 3; ++i) REQUIRE_OK(Fetch(session.get(), "z").status());
  cluster.Restart("worker", 1);
  // The master (task 0) logs the rejoin when its heartbeat meets the new
  // process; no step runs meanwhile.
  const absl::Time deadline = absl::Now() + absl::Seconds(60);
  while (!absl::StrContains(cluster.Log("worker", 0),
                            "the task rejoins the session") &&
         absl::Now() < deadline) {
    absl::SleepFor(absl::Milliseconds(20));
  }
  INFO(cluster.Log("worker", 0));
  REQUIRE(absl::StrContains(cluster.Log("worker", 0),
                            "the task rejoins the session"));
  // The first step after the restart succeeds: no step had to fail first.
  auto y = Fetch(session.get(), "y");
  INFO(y.status().ToString());
  REQUIRE_OK(y.status());
  CHECK(*y == 3.0f);
  // So does the first one sending to the restarted task (the push stream
  // to the old process broke; what went on it is fetched instead).
  auto z = Fetch(session.get(), "z");
  INFO(z.status().ToString());
  REQUIRE_OK(z.status());
  CHECK(*z == 6.0f);
  // The variable lived in the old process.
  auto lost = Fetch(session.get(), "v_plus_one");
  CHECK(lost.status().code() == absl::StatusCode::kFailedPrecondition);
  REQUIRE_OK(session->Close());
}

// CPU time (user + system) a process has used.
absl::Duration CpuTime(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
  std::string text((std::istreambuf_iterator<char>(in)),
                   std::istreambuf_iterator<char>());
  // Fields after the command name, which is in parentheses.
  const std::vector<std::string> fields =
      absl::StrSplit(text.substr(text.rfind(')') + 2), ' ');
  REQUIRE(fields.size() > 13);
  const long ticks = std::stol(fields[11]) + std::stol(fields[12]);
  return absl::Seconds(static_cast<double>(ticks) / ::sysconf(_SC_CLK_TCK));
}

// CPU time the cluster's worker processes have used so far.
absl::Duration ClusterCpuTime(const TestCluster& cluster) {
  absl::Duration total;
  for (int t : {0, 1}) total += CpuTime(cluster.Pid("worker", t));
  return total;
}

// CPU time the cluster's processes use over `window`, as a share of one core.
double ClusterCpuShare(const TestCluster& cluster, absl::Duration window) {
  const absl::Duration before = ClusterCpuTime(cluster);
  absl::SleepFor(window);
  return (ClusterCpuTime(cluster) - before) / window;
}

// i = 0; while (i < n) i += 1, with the counting on task 1 and the
// condition on task 0: runs about for ever for a big n.
GraphDef EndlessLoop() {
  G g;
  g.Placeholder("n", DT_INT32);
  const std::string exit = dfx::testing::CounterLoop(&g, "loop", 10, "n");
  GraphDef def = g.def();
  for (NodeDef& node : *def.mutable_node()) {
    if (node.name() == "loop/add" || node.name() == "loop/one") {
      node.set_device(kTask1);
    } else {
      node.set_device("/job:worker/replica:0/task:0");
    }
  }
  (void)exit;
  return def;
}

TEST_CASE("a client that cancels or passes its deadline stops the step on "
          "every task") {
  TestCluster cluster({{"worker", 2}});
  auto channel =
      NewChannel(cluster.Address("worker", 0), cluster.client_security());
  auto stub = tensorflow::MasterService::NewStub(channel);
  CreateSessionRequest create;
  *create.mutable_graph_def() = EndlessLoop();
  CreateSessionResponse created;
  {
    grpc::ClientContext ctx;
    SetTimeout(&ctx, absl::Seconds(60));
    REQUIRE_OK(FromGrpcStatus(stub->CreateSession(&ctx, create, &created)));
  }
  RunStepRequest run;
  run.set_session_handle(created.session_handle());
  NamedTensorProto* feed = run.add_feed();
  feed->set_name("n");
  run.add_fetch("loop/i/exit");

  // Warm: the graphs registered, a short loop right.
  {
    Tensor::Scalar<int32_t>(100).AsProtoTensorContent(feed->mutable_tensor());
    grpc::ClientContext ctx;
    SetTimeout(&ctx, absl::Seconds(60));
    RunStepResponse out;
    REQUIRE_OK(FromGrpcStatus(stub->RunStep(&ctx, run, &out)));
    REQUIRE(out.tensor_size() == 1);
  }
  Tensor::Scalar<int32_t>(2000000000).AsProtoTensorContent(
      feed->mutable_tensor());

  // No timeout in the request: only the gRPC call's deadline or
  // cancellation tells the master.
  SECTION("the client's deadline passes") {
    grpc::ClientContext ctx;
    SetTimeout(&ctx, absl::Milliseconds(1500));
    RunStepResponse out;
    const grpc::Status s = stub->RunStep(&ctx, run, &out);
    CHECK(s.error_code() == grpc::StatusCode::DEADLINE_EXCEEDED);
  }
  SECTION("the client cancels the call") {
    grpc::ClientContext ctx;
    const absl::Duration cpu_before = ClusterCpuTime(cluster);
    auto step = std::async(std::launch::async, [&] {
      RunStepResponse out;
      return stub->RunStep(&ctx, run, &out);
    });
    // The loop is running once the cluster has worked 0.3 s of CPU time
    // since the call (a count, not a share of some window: on a machine
    // busy with other tests the cluster may get a small share for a long
    // while). The call is cancelled whatever happened, so that a failure
    // here cannot leave the test waiting on the call for ever.
    const absl::Time start = absl::Now();
    bool running = false;
    while (!running && absl::Now() - start < absl::Seconds(60)) {
      absl::SleepFor(absl::Milliseconds(50));
      running = ClusterCpuTime(cluster) - cpu_before >= absl::Seconds(0.3);
    }
    ctx.TryCancel();
    REQUIRE(step.wait_for(std::chrono::seconds(30)) ==
            std::future_status::ready);
    INFO("the loop never used 0.3 s of the cluster's CPU within 60 s");
    REQUIRE(running);
    CHECK(step.get().error_code() == grpc::StatusCode::CANCELLED);
  }
  // The step ends on the master and on both workers: the cluster idles.
  const absl::Time cancelled = absl::Now();
  double share = 1.0;
  while (absl::Now() - cancelled < absl::Seconds(10)) {
    share = ClusterCpuShare(cluster, absl::Milliseconds(500));
    if (share < 0.1) break;
  }
  INFO("the cluster still uses " << share << " of a core");
  CHECK(share < 0.1);

  // And it serves the next step.
  Tensor::Scalar<int32_t>(7).AsProtoTensorContent(feed->mutable_tensor());
  grpc::ClientContext ctx;
  SetTimeout(&ctx, absl::Seconds(60));
  RunStepResponse out;
  REQUIRE_OK(FromGrpcStatus(stub->RunStep(&ctx, run, &out)));
  REQUIRE(out.tensor_size() == 1);
  auto i = Tensor::FromProto(out.tensor(0).tensor());
  REQUIRE_OK(i.status());
  CHECK(i->scalar<int32_t>() == 7);
}

TEST_CASE("creating a session against a stopped worker obeys --timeout-ms") {
  TestCluster cluster({{"worker", 2}});
  dfx::testing::TempDir dir;
  const std::string graph = dir.File("g.pbtxt");
  std::ofstream(graph) << "node { name: 'c' op: 'Const' attr { key: 'dtype' "
                          "value { type: DT_FLOAT } } attr { key: 'value' "
                          "value { tensor { dtype: DT_FLOAT tensor_shape {} "
                          "float_val: 1 } } } }";
  cluster.Freeze("worker", 1);
  const auto start = std::chrono::steady_clock::now();
  std::vector<std::string> args = {"run",     "--graph",        graph,
                                   "--fetch", "c",              "--target",
                                   cluster.Target(), "--timeout-ms", "2000"};
  args.insert(args.end(), cluster.client_flags().begin(),
              cluster.client_flags().end());
  dfx::testing::ProcessResult r =
      dfx::testing::RunDfx(args, std::chrono::seconds(60));
  const double seconds = std::chrono::duration<double>(
                             std::chrono::steady_clock::now() - start)
                             .count();
  cluster.Signal("worker", 1, SIGCONT);
  INFO(dfx::testing::Describe(r) << "after " << seconds << " s");
  CHECK(r.exit_code == 1);
  CHECK(absl::StrContains(r.err, "no answer within 2s"));
  CHECK(absl::StrContains(r.err, "task:1"));
  // 2 s, and the time to start the binary; the keepalive watchdog would
  // have taken 20 s and more.
  CHECK(seconds < 10);
}

TEST_CASE("a step beyond --memory-limit fails with ResourceExhausted naming "
          "the node and the server serves on") {
  TestCluster cluster({{"worker", 1}}, {"--memory-limit", "256M"});
  Scope root = Scope::NewRootScope();
  Output dims = ops::Placeholder(root.WithOpName("dims"), DT_INT32);
  Output fill =
      ops::Fill(root.WithOpName("big"), dims, ops::Const(root, 1.0f));
  ops::Sum(root.WithOpName("total"), fill, ops::Const(root, 0));
  GraphDef def;
  REQUIRE(root.ToGraphDef(&def).ok());
  std::unique_ptr<Session> session = Open(cluster, def);

  std::vector<Tensor> out;
  // 1 GiB of floats.
  Tensor huge(DT_INT32, TensorShape({1}));
  huge.data<int32_t>()[0] = 1 << 28;
  absl::Status s = session->Run({{"dims", huge}}, {"total"}, {}, &out);
  INFO(s.ToString());
  CHECK(s.code() == absl::StatusCode::kResourceExhausted);
  CHECK(absl::StrContains(s.message(), "'big'"));
  CHECK(absl::StrContains(s.message(), "1073741824 bytes"));
  CHECK(absl::StrContains(s.message(), "limit of 268435456"));

  Tensor small(DT_INT32, TensorShape({1}));
  small.data<int32_t>()[0] = 1000;
  REQUIRE_OK(session->Run({{"dims", small}}, {"total"}, {}, &out));
  CHECK(out[0].scalar<float>() == 1000.0f);
  REQUIRE_OK(session->Close());
}

TEST_CASE("a second server on a task's port fails to start instead of "
          "sharing it") {
  TestCluster cluster({{"worker", 1}});
  dfx::testing::ProcessResult r = dfx::testing::RunDfx(
      {"server", "--cluster", cluster.json(), "--job", "worker", "--task",
       "0"},
      std::chrono::seconds(60));
  INFO(dfx::testing::Describe(r));
  CHECK(r.exit_code == 1);
  CHECK(absl::StrContains(r.err, "cannot listen on " +
                                     cluster.Address("worker", 0)));
  // The first one serves on.
  auto session = Session::Create(cluster.Target());
  REQUIRE_OK(session.status());
  auto devices = (*session)->ListDevices();
  REQUIRE_OK(devices.status());
  CHECK(devices->size() == 1);
}

}  // namespace
}  // namespace dfx
