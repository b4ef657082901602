// Queues through a local session (graph/builder/sync_replicas.h wrappers):
// the executor's cancellation reaches a waiting dequeue (the session's
// operation timeout, Close); many concurrent steps blocking on a small
// queue from both sides neither deadlock nor lose or duplicate elements.
#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "catch2/catch.hpp"
#include "graph/builder/ops.h"
#include "graph/builder/sync_replicas.h"
#include "runtime/session.h"
#include "tests/testing/status_matchers.h"

namespace dfx {
namespace {

using absl::StatusCode;
using testing::StatusIs;

struct QueueGraph {
  Scope root = Scope::NewRootScope();
  Output queue, value, dequeued, size;
  Operation enqueue, close;

  explicit QueueGraph(int64_t capacity, const std::string& shared_name = "") {
    queue = ops::FIFOQueue(root.WithOpName("q"), {DT_INT64}, {{}}, capacity,
                           shared_name);
    value = ops::Placeholder(root.WithOpName("v"), DT_INT64);
    enqueue = ops::QueueEnqueue(root.WithOpName("enq"), queue, {value});
    dequeued = ops::QueueDequeue(root.WithOpName("deq"), queue, {DT_INT64})[0];
    size = ops::QueueSize(root.WithOpName("size"), queue);
    close = ops::QueueClose(root.WithOpName("close"), queue);
  }

  std::unique_ptr<Session> Start(int64_t timeout_ms = 0) const {
    GraphDef def;
    REQUIRE_OK(root.ToGraphDef(&def));
    SessionOptions options;
    options.config.set_inter_op_parallelism_threads(2);
    if (timeout_ms > 0) options.config.set_operation_timeout_in_ms(timeout_ms);
    auto s = Session::Create("local", options);
    REQUIRE_OK(s.status());
    REQUIRE_OK((*s)->Extend(def));
    return *std::move(s);
  }
};

absl::Status Enqueue(Session* s, int64_t v) {
  std::vector<Tensor> out;
  return s->Run({{"v", Tensor::Scalar<int64_t>(v)}}, {}, {"enq"}, &out);
}

absl::StatusOr<int64_t> Dequeue(Session* s) {
  std::vector<Tensor> out;
  absl::Status st = s->Run({}, {"deq"}, {}, &out);
  if (!st.ok()) return st;
  return out[0].scalar<int64_t>();
}

TEST_CASE("The step's timeout ends a step waiting in a dequeue, and the "
          "queue works on",
          "[queue_session]") {
  QueueGraph g(/*capacity=*/-1);
  std::unique_ptr<Session> s = g.Start(/*timeout_ms=*/60000);
  // Only this step has a short deadline: it can only end by it.
  RunOptions options;
  options.set_timeout_in_ms(100);
  std::vector<Tensor> out;
  CHECK_THAT(s->Run(options, {}, {"deq"}, {}, &out, nullptr),
             StatusIs(StatusCode::kDeadlineExceeded));
  // The abandoned dequeue took nothing and waits no more: the next element
  // goes to the next dequeue.
  REQUIRE_OK(Enqueue(s.get(), 42));
  absl::StatusOr<int64_t> got = Dequeue(s.get());
  REQUIRE_OK(got.status());
  CHECK(*got == 42);
}

TEST_CASE("Closing the session ends a step waiting in a dequeue",
          "[queue_session]") {
  QueueGraph g(/*capacity=*/-1);
  std::unique_ptr<Session> s = g.Start();
  absl::Status waited;
  std::thread waiter([&] { waited = Dequeue(s.get()).status(); });
  // Close cancels running steps whether or not the dequeue has started
  // waiting yet; either way the step ends with an error.
  REQUIRE_OK(s->Close());
  waiter.join();
  CHECK_FALSE(waited.ok());
}

TEST_CASE("Closing the queue ends a step waiting in a dequeue with "
          "OutOfRange",
          "[queue_session]") {
  QueueGraph g(/*capacity=*/-1);
  std::unique_ptr<Session> s = g.Start(/*timeout_ms=*/60000);
  absl::Status waited;
  std::thread waiter([&] { waited = Dequeue(s.get()).status(); });
  std::vector<Tensor> out;
  REQUIRE_OK(s->Run({}, {}, {"close"}, &out));
  waiter.join();
  CHECK_THAT(waited, StatusIs(StatusCode::kOutOfRange, "node 'deq'"));
}

TEST_CASE("Producers and consumers blocking on a queue of 2 from 8 threads "
          "move every element once",
          "[queue_session]") {
  QueueGraph g(/*capacity=*/2);
  std::unique_ptr<Session> s = g.Start(/*timeout_ms=*/60000);
  constexpr int kThreads = 4;
  constexpr int kPerThread = 50;
  std::atomic<int64_t> sum{0};
  std::atomic<int> failures{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < kPerThread; ++i) {
        if (!Enqueue(s.get(), t * 1000 + i).ok()) ++failures;
      }
    });
    threads.emplace_back([&] {
      for (int i = 0; i < kPerThread; ++i) {
        absl::StatusOr<int64_t> v = Dequeue(s.get());
        if (v.ok()) {
          sum += *v;
        } else {
          ++failures;
        }
      }
    });
  }
  for (std::thread& th : threads) th.join();
  CHECK(failures == 0);
  int64_t want = 0;
  for (int t = 0; t < kThreads; ++t) {
    for (int i = 0; i < kPerThread; ++i) want += t * 1000 + i;
  }
  CHECK(sum == want);
  std::vector<Tensor> out;
  REQUIRE_OK(s->Run({}, {"size"}, {}, &out));
  CHECK(out[0].scalar<int32_t>() == 0);
}

}  // namespace
}  // namespace dfx
