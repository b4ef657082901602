// Variables on a cluster of real `dfx server` processes: a variable on a ps
// task outlives the session that made it and is shared by the sessions of
// other clients; two clients adding to it at once with locking lose no
// update; a Reset of the master clears it.
#include <string>
#include <thread>
#include <vector>

#include "catch2/catch.hpp"
#include "graph/builder/ops.h"
#include "graph/builder/scope.h"
#include "proto/master_service.grpc.pb.h"
#include "rpc/grpc_util.h"
#include "runtime/session.h"
#include "tests/integration/test_cluster.h"
#include "tests/testing/status_matchers.h"

namespace dfx {
namespace {

using ::dfx::testing::TestCluster;

// counter on the ps task; "init" sets it to 0, "inc" adds 1 (locked),
// "read" reads it, "is_init" says whether it exists and is initialized.
GraphDef CounterGraph() {
  Scope root = Scope::NewRootScope();
  const Scope ps = root.WithDevice("/job:ps/task:0");
  Output v = ops::VarHandleOp(ps.WithOpName("counter"), DT_FLOAT, {},
                              "counter");
  ops::AssignVariableOp(ps.WithOpName("init"), v, ops::Const(ps, 0.0f));
  ops::AssignAddVariableOp(ps.WithOpName("inc"), v, ops::Const(ps, 1.0f));
  ops::ReadVariableOp(root.WithOpName("read"), v, DT_FLOAT);
  GraphDef def;
  REQUIRE(root.ToGraphDef(&def).ok());
  NodeDef* is_init = def.add_node();
  is_init->set_name("is_init");
  is_init->set_op("VarIsInitializedOp");
  is_init->add_input("counter");
  return def;
}

std::unique_ptr<Session> Open(const std::string& target) {
  SessionOptions options;
  options.config.set_operation_timeout_in_ms(60000);
  auto s = Session::Create(target, options);
  REQUIRE(s.ok());
  REQUIRE((*s)->Extend(CounterGraph()).ok());
  return *std::move(s);
}

float Read(Session* s) {
  std::vector<Tensor> out;
  absl::Status st = s->Run({}, {"read"}, {}, &out);
  INFO(st.ToString());
  REQUIRE(st.ok());
  return out[0].scalar<float>();
}

TEST_CASE("a variable on a ps task is shared by clients and outlives "
          "sessions") {
  TestCluster cluster({{"worker", 2}, {"ps", 1}});
  std::vector<Tensor> out;
  {
    auto first = Open(cluster.Target("worker", 0));
    REQUIRE(first->Run({}, {}, {"init"}, &out).ok());
    REQUIRE(first->Run({}, {}, {"inc"}, &out).ok());
    REQUIRE(first->Close().ok());
  }
  // Another client, through the other worker's master, sees it.
  auto a = Open(cluster.Target("worker", 0));
  auto b = Open(cluster.Target("worker", 1));
  CHECK(Read(b.get()) == 1.0f);

  // Two clients adding at once lose nothing (AssignAddVariableOp locks).
  constexpr int kSteps = 150;
  // The threads keep their first error for the main thread to check (no
  // Catch2 assertion off the main thread: Catch is not thread-safe).
  auto add = [&](Session* s, absl::Status* status) {
    for (int i = 0; i < kSteps && status->ok(); ++i) {
      std::vector<Tensor> ignored;
      *status = s->Run({}, {}, {"inc"}, &ignored);
    }
  };
  absl::Status sa, sb;
  std::thread ta(add, a.get(), &sa);
  std::thread tb(add, b.get(), &sb);
  ta.join();
  tb.join();
  REQUIRE_OK(sa);
  REQUIRE_OK(sb);
  CHECK(Read(a.get()) == 1.0f + 2 * kSteps);

  // A Reset (what tf.compat.v1.Session.reset sends) closes the sessions and
  // clears the ps task's container: the variable is gone.
  auto master = tensorflow::MasterService::NewStub(
      NewChannel(cluster.Address("worker", 1), cluster.client_security()));
  grpc::ClientContext ctx;
  SetTimeout(&ctx, absl::Seconds(30));
  ResetRequest reset;
  ResetResponse reset_response;
  REQUIRE(master->Reset(&ctx, reset, &reset_response).ok());
  auto after = Open(cluster.Target("worker", 0));
  REQUIRE(after->Run({}, {"is_init"}, {}, &out).ok());
  CHECK_FALSE(out[0].scalar<bool>());
  absl::Status st = after->Run({}, {"read"}, {}, &out);
  CHECK_THAT(st, testing::StatusIs(absl::StatusCode::kFailedPrecondition,
                                   "counter"));
}

}  // namespace
}  // namespace dfx
