// Worker sessions nobody will come back for are collected, and a replayed
// RunGraph does not run twice: tests of worker/worker.h through
// worker/local_worker.h.
#include <string>

#include "absl/time/clock.h"
#include "catch2/catch.hpp"
#include "tests/testing/status_matchers.h"
#include "tests/worker/worker_test_util.h"
#include "worker/worker.h"

namespace dfx {
namespace {

using ::dfx::testing::StatusIs;
using namespace ::dfx::worker_testing;  // NOLINT

// c = 7 on CPU:0, fetched.
constexpr char kConstGraph[] = R"pb(
  node {
    name: "c" op: "Const" device: DEV0
    attr { key: "dtype" value { type: DT_INT32 } }
    attr { key: "value" value { tensor {
      dtype: DT_INT32 tensor_shape {} int_val: 7 } } }
  }
)pb";

constexpr char kMaster[] = "/job:worker/replica:0/task:0";

bool SessionExists(TestWorker& w, const std::string& handle) {
  StepGraph step = w.Prepare(ParseGraph(kConstGraph), {}, {"c:0"});
  absl::StatusOr<std::string> graph = w.Register(step.whole, handle);
  if (graph.ok()) return true;
  CHECK_THAT(graph.status(), StatusIs(absl::StatusCode::kAborted,
                                      "is not found"));
  return false;
}

TEST_CASE("a worker session whose master restarted is deleted when the new "
          "master creates one") {
  TestWorker w(1);
  REQUIRE_OK(w.CreateSession("old_a", kMaster, 111));
  REQUIRE_OK(w.CreateSession("old_b", kMaster, 111));
  REQUIRE_OK(w.CreateSession("other_master", "/job:ps/replica:0/task:0", 5));
  REQUIRE_OK(w.CreateSession("no_master"));
  CHECK(SessionExists(w, "old_a"));

  // The same master process again: nothing goes.
  REQUIRE_OK(w.CreateSession("old_c", kMaster, 111));
  CHECK(SessionExists(w, "old_a"));

  // A new process on the master's task.
  REQUIRE_OK(w.CreateSession("new", kMaster, 222));
  CHECK_FALSE(SessionExists(w, "old_a"));
  CHECK_FALSE(SessionExists(w, "old_b"));
  CHECK_FALSE(SessionExists(w, "old_c"));
  CHECK(SessionExists(w, "new"));
  CHECK(SessionExists(w, "other_master"));
  CHECK(SessionExists(w, "no_master"));
}

TEST_CASE("a worker session with no call for longer than the idle limit is "
          "deleted while one in use is kept") {
  // The limit is 20 times the busy session's call interval, so that a
  // loaded machine that delays one call does not make "busy" idle.
  const absl::Duration limit = absl::Seconds(1);
  TestWorker w(1, kTask, nullptr, limit);
  REQUIRE_OK(w.CreateSession("idle"));
  REQUIRE_OK(w.CreateSession("busy"));
  const absl::Time start = absl::Now();
  absl::Time next_look = start + 3 * limit;
  bool idle_gone = false;
  // "busy" gets a call every 50 ms; "idle" none, except a look every
  // 3 limits (a look is a call and keeps it alive for one more limit).
  while (!idle_gone && absl::Now() - start < absl::Seconds(30)) {
    REQUIRE(SessionExists(w, "busy"));
    absl::SleepFor(absl::Milliseconds(50));
    if (absl::Now() >= next_look) {
      idle_gone = !SessionExists(w, "idle");
      next_look = absl::Now() + 3 * limit;
    }
  }
  CHECK(idle_gone);
  CHECK(SessionExists(w, "busy"));
}

TEST_CASE("a RunGraph request sent twice with the same request_id runs once") {
  TestWorker w(1);
  StepGraph step = w.Prepare(ParseGraph(kConstGraph), {}, {"c:0"});
  auto handle = w.Register(step.whole);
  REQUIRE_OK(handle);
  auto call = TestWorker::MakeCall(*handle, 5, {}, step.fetch_keys);
  call->request.set_request_id(987654321);
  {
    Pending p;
    w.wi()->RunGraphAsync(nullptr, call.get(), p.Callback());
    REQUIRE_OK(p.Wait());
    REQUIRE(call->recv.size() == 1);
  }
  REQUIRE_OK(w.CleanupGraph(5));
  auto again = TestWorker::MakeCall(*handle, 6, {}, step.fetch_keys);
  again->request.set_request_id(987654321);
  {
    Pending p;
    w.wi()->RunGraphAsync(nullptr, again.get(), p.Callback());
    CHECK_THAT(p.Wait(), StatusIs(absl::StatusCode::kAborted, "987654321"));
    CHECK(again->recv.empty());
  }
  // A new id runs.
  again->request.set_request_id(987654322);
  {
    Pending p;
    w.wi()->RunGraphAsync(nullptr, again.get(), p.Callback());
    REQUIRE_OK(p.Wait());
  }
  REQUIRE_OK(w.CleanupGraph(6));
}

}  // namespace
}  // namespace dfx
