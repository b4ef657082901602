// tf.CriticalSection's mutex through a dfx local session, where the golden
// cases (one step at a time) cannot go: steps that run at once. A step
// holding the mutex waits on a queue, so the test decides when it lets go
// and sees, through a second queue, when a step has the mutex; no sleeps.
// A step waiting for the mutex past its timeout ends without hanging and
// without taking the mutex from its holder; two steps contending take turns;
// a lock nothing consumes is released when its step ends.
#include <future>
#include <memory>
#include <string>
#include <vector>

#include "catch2/catch.hpp"
#include "google/protobuf/text_format.h"
#include "runtime/session.h"

namespace dfx {
namespace {

// lock -> signal (enqueue on "held") -> wait (dequeue from "go") ->
// consume: a step running "consume" holds the mutex until the test
// enqueues on "go", and enqueues on "held" once it has it.
constexpr char kGraph[] = R"pb(
  node {
    name: "m"
    op: "MutexV2"
    attr {
      key: "shared_name"
      value { s: "section" }
    }
  }
  node { name: "lock" op: "MutexLock" input: "m" }
  node {
    name: "held"
    op: "FIFOQueueV2"
    attr {
      key: "component_types"
      value { list { type: DT_FLOAT } }
    }
    attr {
      key: "shared_name"
      value { s: "held" }
    }
  }
  node {
    name: "go"
    op: "FIFOQueueV2"
    attr {
      key: "component_types"
      value { list { type: DT_FLOAT } }
    }
    attr {
      key: "shared_name"
      value { s: "go" }
    }
  }
  node {
    name: "one"
    op: "Const"
    attr {
      key: "dtype"
      value { type: DT_FLOAT }
    }
    attr {
      key: "value"
      value { tensor { dtype: DT_FLOAT float_val: 1 } }
    }
  }
  node {
    name: "signal"
    op: "QueueEnqueueV2"
    input: "held"
    input: "one"
    input: "^lock"
    attr {
      key: "Tcomponents"
      value { list { type: DT_FLOAT } }
    }
  }
  node {
    name: "wait"
    op: "QueueDequeueV2"
    input: "go"
    input: "^signal"
    attr {
      key: "component_types"
      value { list { type: DT_FLOAT } }
    }
  }
  node { name: "consume" op: "ConsumeMutexLock" input: "lock" input: "^wait" }
  node {
    name: "take_held"
    op: "QueueDequeueV2"
    input: "held"
    attr {
      key: "component_types"
      value { list { type: DT_FLOAT } }
    }
  }
  node {
    name: "let_go"
    op: "QueueEnqueueV2"
    input: "go"
    input: "one"
    attr {
      key: "Tcomponents"
      value { list { type: DT_FLOAT } }
    }
  }
  node {
    name: "m2"
    op: "MutexV2"
    attr {
      key: "shared_name"
      value { s: "unconsumed" }
    }
  }
  node { name: "lock2" op: "MutexLock" input: "m2" }
  node {
    name: "after_lock2"
    op: "Identity"
    input: "one"
    input: "^lock2"
    attr {
      key: "T"
      value { type: DT_FLOAT }
    }
  }
)pb";

std::unique_ptr<Session> NewSession() {
  GraphDef graph;
  REQUIRE(google::protobuf::TextFormat::ParseFromString(kGraph, &graph));
  SessionOptions options;
  // Every step ends within a minute, or the test fails instead of hanging.
  options.config.set_operation_timeout_in_ms(60000);
  auto session = Session::Create("local", options);
  REQUIRE(session.ok());
  REQUIRE((*session)->Extend(graph).ok());
  return *std::move(session);
}

absl::Status RunTarget(Session* s, const std::string& target,
                       int64_t timeout_ms = 0) {
  RunOptions options;
  if (timeout_ms > 0) options.set_timeout_in_ms(timeout_ms);
  std::vector<Tensor> outputs;
  return s->Run(options, {}, {}, {target}, &outputs, nullptr);
}

// Returns once a step has taken the mutex (its signal).
absl::Status AwaitHolder(Session* s) {
  std::vector<Tensor> outputs;
  return s->Run({}, {"take_held:0"}, {}, &outputs);
}

std::future<absl::Status> Critical(Session* s) {
  return std::async(std::launch::async,
                    [s] { return RunTarget(s, "consume"); });
}

TEST_CASE(
    "critical section: a step timed out while waiting for the mutex "
    "ends, and the holder and the next step go on") {
  std::unique_ptr<Session> s = NewSession();
  std::future<absl::Status> holder = Critical(s.get());
  REQUIRE(AwaitHolder(s.get()).ok());

  // The mutex is held: this step waits for it until its deadline.
  const absl::Status late = RunTarget(s.get(), "consume", 200);
  CHECK(late.code() == absl::StatusCode::kDeadlineExceeded);

  REQUIRE(RunTarget(s.get(), "let_go").ok());
  CHECK(holder.get().ok());

  // The cancelled wait left the mutex free for the next step.
  std::future<absl::Status> next = Critical(s.get());
  REQUIRE(AwaitHolder(s.get()).ok());
  REQUIRE(RunTarget(s.get(), "let_go").ok());
  CHECK(next.get().ok());
  (void)s->Close();
}

TEST_CASE("critical section: two steps contending take turns") {
  std::unique_ptr<Session> s = NewSession();
  std::future<absl::Status> a = Critical(s.get());
  std::future<absl::Status> b = Critical(s.get());
  // One has the mutex; the other waits until the first lets go.
  REQUIRE(AwaitHolder(s.get()).ok());
  REQUIRE(RunTarget(s.get(), "let_go").ok());
  REQUIRE(AwaitHolder(s.get()).ok());
  REQUIRE(RunTarget(s.get(), "let_go").ok());
  CHECK(a.get().ok());
  CHECK(b.get().ok());
  (void)s->Close();
}

TEST_CASE(
    "critical section: a lock nothing consumes is released when its "
    "step ends") {
  std::unique_ptr<Session> s = NewSession();
  for (int i = 0; i < 3; ++i) {
    std::vector<Tensor> outputs;
    REQUIRE(s->Run({}, {"after_lock2:0"}, {}, &outputs).ok());
  }
  (void)s->Close();
}

TEST_CASE(
    "critical section: closing the session ends a step waiting for "
    "the mutex") {
  std::unique_ptr<Session> s = NewSession();
  std::future<absl::Status> holder = Critical(s.get());
  REQUIRE(AwaitHolder(s.get()).ok());
  std::future<absl::Status> waiting = Critical(s.get());
  (void)s->Close();
  CHECK_FALSE(holder.get().ok());
  CHECK_FALSE(waiting.get().ok());
}

}  // namespace
}  // namespace dfx
