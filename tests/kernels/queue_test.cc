// Queues and conditional accumulators (graph/ops/queue_ops.cc,
// kernels/data_flow/queue*.cc, accumulator_kernels.cc): their signatures
// equal TensorFlow 2.21's byte for byte, and their waits: a dequeue on an
// empty queue (or an enqueue on a full one) holds no thread and ends when
// a later enqueue (dequeue), a close, the step's cancellation or its
// timeout_ms ends it; a take waits for num_required gradients. Waits are
// observed by whether the kernel's done callback has run: the kernels that
// end a wait run their callbacks before they return, so no test sleeps.
#include <memory>
#include <string>
#include <vector>

#include "absl/synchronization/notification.h"
#include "absl/time/time.h"
#include "absl/strings/match.h"
#include "catch2/catch.hpp"
#include "graph/node_def_util.h"
#include "graph/op_registry.h"
#include "kernels/kernels.h"
#include "proto/op_def.pb.h"
#include "runtime/allocator.h"
#include "runtime/cancellation.h"
#include "runtime/memory_limit.h"
#include "runtime/op_kernel.h"
#include "runtime/resource_mgr.h"
#include "tests/kernels/async_kernel_test_util.h"
#include "tests/kernels/kernel_test_util.h"
#include "tests/testing/status_matchers.h"

namespace dfx {
namespace {

using absl::StatusCode;
using testing::StatusIs;
using testing::TestCpuDevice;
using testing::TestNodeBuilder;
using testing::Call;
using testing::RunNow;
using testing::Start;

TEST_CASE(
    "Every queue and accumulator op has TensorFlow 2.21's signature and CPU "
    "types",
    "[queue]") {
  testing::CheckSignaturesWithTensorFlow("queues", 36);
}

TensorShapeProto Shape(std::vector<int64_t> dims) {
  TensorShapeProto p;
  for (int64_t d : dims) p.add_dim()->set_size(d);
  return p;
}

Tensor F(std::vector<float> v) { return Tensor::FromVector<float>(v); }
Tensor I32(int32_t v) { return Tensor::Scalar<int32_t>(v); }
Tensor I64(int64_t v) { return Tensor::Scalar<int64_t>(v); }
std::vector<float> Values(const Tensor& t) {
  return std::vector<float>(t.data<float>(), t.data<float>() + t.NumElements());
}

// A float queue of [2] elements, shared under `name`.
Tensor NewQueue(const std::string& name, int64_t capacity = -1,
                const char* op = "FIFOQueueV2") {
  TestNodeBuilder b("q", op, 0);
  b.Attr("component_types", DataTypeVector{DT_FLOAT})
      .Attr("capacity", capacity)
      .Attr("shared_name", name.c_str());
  NodeDef def = b.Build();
  *(*def.mutable_attr())["shapes"].mutable_list()->add_shape() = Shape({2});
  return RunNow(def, {})[0];
}

NodeDef Enqueue(int64_t timeout_ms = -1, bool many = false) {
  return TestNodeBuilder("enq", many ? "QueueEnqueueManyV2" : "QueueEnqueueV2",
                         2)
      .Attr("Tcomponents", DataTypeVector{DT_FLOAT})
      .Attr("timeout_ms", timeout_ms)
      .Build();
}
NodeDef Dequeue(int64_t timeout_ms = -1) {
  return TestNodeBuilder("deq", "QueueDequeueV2", 1)
      .Attr("component_types", DataTypeVector{DT_FLOAT})
      .Attr("timeout_ms", timeout_ms)
      .Build();
}
NodeDef Close(bool cancel_pending = false) {
  return TestNodeBuilder("close", "QueueCloseV2", 1)
      .Attr("cancel_pending_enqueues", cancel_pending)
      .Build();
}
int32_t Size(const Tensor& q) {
  return RunNow(TestNodeBuilder("size", "QueueSizeV2", 1).Build(), {q})[0]
      .scalar<int32_t>();
}

TEST_CASE("A dequeue on an empty queue waits for a later enqueue",
          "[queue]") {
  Tensor q = NewQueue("wait_for_enqueue");
  CancellationManager cm;
  std::unique_ptr<Call> deq = Start(Dequeue(), {q}, &cm);
  CHECK_FALSE(deq->finished());
  RunNow(Enqueue(), {q, F({1, 2})});
  REQUIRE(deq->finished());
  REQUIRE_OK(deq->status());
  CHECK(Values(deq->output(0)) == std::vector<float>{1, 2});
  CHECK(Size(q) == 0);
}

TEST_CASE("Waiting dequeues are served in arrival order", "[queue]") {
  Tensor q = NewQueue("arrival_order");
  std::unique_ptr<Call> first = Start(Dequeue(), {q});
  std::unique_ptr<Call> second = Start(Dequeue(), {q});
  RunNow(Enqueue(), {q, F({1, 1})});
  REQUIRE(first->finished());
  CHECK_FALSE(second->finished());
  RunNow(Enqueue(), {q, F({2, 2})});
  REQUIRE(second->finished());
  CHECK(Values(first->output(0)) == std::vector<float>{1, 1});
  CHECK(Values(second->output(0)) == std::vector<float>{2, 2});
}

TEST_CASE("An enqueue on a full queue waits for a dequeue", "[queue]") {
  Tensor q = NewQueue("full_queue", /*capacity=*/1);
  RunNow(Enqueue(), {q, F({1, 1})});
  std::unique_ptr<Call> enq = Start(Enqueue(), {q, F({2, 2})});
  CHECK_FALSE(enq->finished());
  CHECK(Size(q) == 1);
  std::vector<Tensor> got = RunNow(Dequeue(), {q});
  CHECK(Values(got[0]) == std::vector<float>{1, 1});
  REQUIRE(enq->finished());
  REQUIRE_OK(enq->status());
  CHECK(Size(q) == 1);
}

TEST_CASE("Closing a queue ends a waiting dequeue with OutOfRange naming it",
          "[queue]") {
  Tensor q = NewQueue("close_wakes");
  std::unique_ptr<Call> deq = Start(Dequeue(), {q});
  CHECK_FALSE(deq->finished());
  RunNow(Close(), {q});
  REQUIRE(deq->finished());
  CHECK_THAT(deq->status(),
             StatusIs(StatusCode::kOutOfRange,
                      "'close_wakes' is closed"));
  // And a later enqueue is Cancelled.
  std::unique_ptr<Call> enq = Start(Enqueue(), {q, F({1, 2})});
  REQUIRE(enq->finished());
  CHECK_THAT(enq->status(), StatusIs(StatusCode::kCancelled,
                                     "close_wakes"));
}

TEST_CASE("Close with cancel_pending_enqueues cancels a waiting enqueue",
          "[queue]") {
  Tensor q = NewQueue("cancel_pending", /*capacity=*/1);
  RunNow(Enqueue(), {q, F({1, 1})});
  std::unique_ptr<Call> enq = Start(Enqueue(), {q, F({2, 2})});
  CHECK_FALSE(enq->finished());
  RunNow(Close(/*cancel_pending=*/true), {q});
  REQUIRE(enq->finished());
  CHECK_THAT(enq->status(), StatusIs(StatusCode::kCancelled));
  // The element already in stays dequeuable.
  CHECK(Values(RunNow(Dequeue(), {q})[0]) == std::vector<float>{1, 1});
}

TEST_CASE("The step's cancellation ends a waiting dequeue with Cancelled",
          "[queue]") {
  Tensor q = NewQueue("step_cancel");
  CancellationManager cm;
  std::unique_ptr<Call> deq = Start(Dequeue(), {q}, &cm);
  CHECK_FALSE(deq->finished());
  cm.StartCancel();
  REQUIRE(deq->finished());
  CHECK_THAT(deq->status(),
             StatusIs(StatusCode::kCancelled, "step_cancel"));
  // The cancelled attempt is gone: the next element goes to a new dequeue.
  RunNow(Enqueue(), {q, F({3, 3})});
  CHECK(Size(q) == 1);
  CHECK(Values(RunNow(Dequeue(), {q})[0]) == std::vector<float>{3, 3});
}

TEST_CASE("A dequeue in an already cancelled step fails at once", "[queue]") {
  Tensor q = NewQueue("already_cancelled");
  CancellationManager cm;
  cm.StartCancel();
  std::unique_ptr<Call> deq = Start(Dequeue(), {q}, &cm);
  REQUIRE(deq->finished());
  CHECK_THAT(deq->status(), StatusIs(StatusCode::kCancelled));
}

TEST_CASE("timeout_ms ends a waiting dequeue with DeadlineExceeded",
          "[queue]") {
  Tensor q = NewQueue("timeout");
  std::unique_ptr<Call> deq = Start(Dequeue(/*timeout_ms=*/20), {q});
  // The wait ends by itself (the bound here only keeps a broken build from
  // hanging the test run).
  REQUIRE(deq->done.WaitForNotificationWithTimeout(absl::Seconds(60)));
  CHECK_THAT(deq->status(), StatusIs(StatusCode::kDeadlineExceeded,
                                     "'timeout'"));
  // Nothing was taken or left behind.
  RunNow(Enqueue(), {q, F({1, 2})});
  CHECK(Size(q) == 1);
}

TEST_CASE("A DequeueMany takes elements as they come and returns them if "
          "the queue closes short",
          "[queue]") {
  Tensor q = NewQueue("many_partial");
  std::unique_ptr<Call> deq =
      Start(TestNodeBuilder("deq", "QueueDequeueManyV2", 2)
                .Attr("component_types", DataTypeVector{DT_FLOAT})
                .Build(),
            {q, I32(3)});
  RunNow(Enqueue(), {q, F({1, 1})});
  RunNow(Enqueue(), {q, F({2, 2})});
  CHECK_FALSE(deq->finished());
  CHECK(Size(q) == 0);  // held by the waiting attempt
  RunNow(Close(), {q});
  REQUIRE(deq->finished());
  CHECK_THAT(deq->status(), StatusIs(StatusCode::kOutOfRange));
  CHECK(Size(q) == 2);  // back, in order
  CHECK(Values(RunNow(Dequeue(), {q})[0]) == std::vector<float>{1, 1});
}

NodeDef DequeueN(const char* op) {
  return TestNodeBuilder("deq", op, 2)
      .Attr("component_types", DataTypeVector{DT_FLOAT})
      .Build();
}

TEST_CASE("After a close without cancel_pending_enqueues a waiting enqueue "
          "still goes in and is dequeued",
          "[queue]") {
  Tensor q = NewQueue("close_keeps_pending", /*capacity=*/1);
  RunNow(Enqueue(), {q, F({1, 1})});
  std::unique_ptr<Call> enq = Start(Enqueue(), {q, F({2, 2})});
  CHECK_FALSE(enq->finished());
  RunNow(Close(), {q});
  CHECK_FALSE(enq->finished());
  CHECK(Values(RunNow(Dequeue(), {q})[0]) == std::vector<float>{1, 1});
  REQUIRE(enq->finished());
  REQUIRE_OK(enq->status());
  CHECK(Values(RunNow(Dequeue(), {q})[0]) == std::vector<float>{2, 2});
  std::unique_ptr<Call> last = Start(Dequeue(), {q});
  REQUIRE(last->finished());
  CHECK_THAT(last->status(), StatusIs(StatusCode::kOutOfRange));
}

TEST_CASE("A waiting DequeueUpTo returns what is left when the queue closes",
          "[queue]") {
  Tensor q = NewQueue("up_to_on_close");
  std::unique_ptr<Call> deq =
      Start(DequeueN("QueueDequeueUpToV2"), {q, I32(3)});
  RunNow(Enqueue(), {q, F({7, 8})});
  CHECK_FALSE(deq->finished());  // waits for 3 while the queue is open
  RunNow(Close(), {q});
  REQUIRE(deq->finished());
  REQUIRE_OK(deq->status());
  CHECK(deq->output(0).shape() == TensorShape({1, 2}));
  CHECK(Values(deq->output(0)) == std::vector<float>{7, 8});
}

TEST_CASE("An EnqueueMany larger than the capacity and a DequeueMany larger "
          "than the capacity complete each other",
          "[queue]") {
  Tensor q = NewQueue("bigger_than_capacity", /*capacity=*/2);
  std::unique_ptr<Call> enq = Start(
      Enqueue(-1, /*many=*/true),
      {q, Tensor::FromVector<float>({0, 0, 1, 1, 2, 2, 3, 3, 4, 4},
                                    TensorShape({5, 2}))});
  CHECK_FALSE(enq->finished());
  CHECK(Size(q) == 2);
  std::unique_ptr<Call> deq =
      Start(DequeueN("QueueDequeueManyV2"), {q, I32(5)});
  REQUIRE(deq->finished());
  REQUIRE(enq->finished());
  REQUIRE_OK(enq->status());
  REQUIRE_OK(deq->status());
  CHECK(Values(deq->output(0)) ==
        std::vector<float>{0, 0, 1, 1, 2, 2, 3, 3, 4, 4});
  CHECK(Size(q) == 0);
}

TEST_CASE("Queues are shared by name, and a mismatched definition is "
          "InvalidArgument",
          "[queue]") {
  Tensor a = NewQueue("shared_by_name");
  Tensor b = NewQueue("shared_by_name");
  RunNow(Enqueue(), {a, F({5, 6})});
  CHECK(Size(b) == 1);
  TestNodeBuilder other("q2", "FIFOQueueV2", 0);
  other.Attr("component_types", DataTypeVector{DT_INT32})
      .Attr("shared_name", "shared_by_name");
  std::unique_ptr<Call> c = Start(other.Build(), {});
  CHECK_THAT(c->status(), StatusIs(StatusCode::kInvalidArgument,
                                   "shared_by_name"));
}

TEST_CASE("Bad enqueues are InvalidArgument and change nothing", "[queue]") {
  Tensor q = NewQueue("bad_input");
  std::unique_ptr<Call> shape = Start(Enqueue(), {q, F({1, 2, 3})});
  CHECK_THAT(shape->status(),
             StatusIs(StatusCode::kInvalidArgument,
                      "Shape mismatch in tuple component 0"));
  std::unique_ptr<Call> dtype =
      Start(TestNodeBuilder("enq", "QueueEnqueueV2", 2)
                .Attr("Tcomponents", DataTypeVector{DT_INT32})
                .Build(),
            {q, Tensor::FromVector<int32_t>({1, 2})});
  CHECK_THAT(dtype->status(), StatusIs(StatusCode::kInvalidArgument));
  std::unique_ptr<Call> many =
      Start(Enqueue(-1, /*many=*/true),
            {q, Tensor::FromVector<float>({1, 2, 3}, TensorShape({1, 3}))});
  CHECK_THAT(many->status(), StatusIs(StatusCode::kInvalidArgument));
  CHECK(Size(q) == 0);
}

TEST_CASE("A queue's elements are its memory", "[queue]") {
  Tensor q = NewQueue("memory");
  RunNow(Enqueue(-1, /*many=*/true),
         {q, Tensor::FromVector<float>(std::vector<float>(2000, 1.0f),
                                       TensorShape({1000, 2}))});
  int64_t bytes = -1;
  for (const ResourceMgr::Entry& e :
       TestCpuDevice()->resource_manager()->List()) {
    if (e.name == "memory" && e.type_name == "Queue") bytes = e.bytes;
  }
  CHECK(bytes == 1000 * 2 * 4);
}

TEST_CASE("An enqueue that would hold more than the memory limit allows is "
          "ResourceExhausted naming the queue",
          "[queue]") {
  Tensor q = NewQueue("memory_limit");
  const int64_t previous = HostMemoryLimit();
  // Room for a few MiB beside what is in use now.
  SetHostMemoryLimit(CpuAllocator()->GetStats().bytes_in_use +
                     (int64_t{4} << 20));
  absl::Status failed;
  int enqueued = 0;
  for (int i = 0; i < 64 && failed.ok(); ++i) {
    // 512 KiB a batch of 65536 rows (each copied into the queue).
    std::unique_ptr<Call> enq = Start(
        Enqueue(-1, /*many=*/true),
        {q, Tensor::FromVector<float>(std::vector<float>(2 << 16, 1.0f),
                                      TensorShape({1 << 16, 2}))});
    REQUIRE(enq->finished());
    failed = enq->status();
    if (failed.ok()) ++enqueued;
  }
  SetHostMemoryLimit(previous);
  CHECK_THAT(failed, StatusIs(StatusCode::kResourceExhausted));
  CHECK_THAT(failed, StatusIs(StatusCode::kResourceExhausted,
                              "'memory_limit'"));
  CHECK(enqueued > 0);
  CHECK(Size(q) == (1 << 16) * enqueued);
}

// --- Accumulators

NodeDef Accumulator(const std::string& name, const char* op =
                                                 "ConditionalAccumulator") {
  return TestNodeBuilder("acc", op, 0)
      .Attr("dtype", DT_FLOAT)
      .Attr("shape", Shape({2}))
      .Attr("shared_name", name.c_str())
      .Build();
}

// A reference accumulator and the kernel that holds its handle.
struct RefAccumulator {
  std::unique_ptr<Call> made;
  TensorRef ref() const { return made->ctx->output_refs()[0]; }
};

RefAccumulator NewRefAccumulator(const std::string& name) {
  RefAccumulator a;
  a.made = Start(Accumulator(name), {});
  REQUIRE_OK(a.made->status());
  REQUIRE(a.ref().valid());
  return a;
}

absl::Status Apply(const RefAccumulator& a, int64_t step,
                   std::vector<float> g) {
  std::unique_ptr<Call> c =
      Start(TestNodeBuilder("apply", "AccumulatorApplyGradient", 3)
                .Attr("dtype", DT_FLOAT)
                .Build(),
            {Tensor(), I64(step), F(g)}, nullptr, a.ref());
  REQUIRE(c->finished());
  return c->status();
}

std::unique_ptr<Call> Take(const RefAccumulator& a, int32_t n,
                           CancellationManager* cm = nullptr) {
  return Start(TestNodeBuilder("take", "AccumulatorTakeGradient", 2)
                   .Attr("dtype", DT_FLOAT)
                   .Build(),
               {Tensor(), I32(n)}, cm, a.ref());
}

TEST_CASE("A take waits for num_required gradients and returns their mean",
          "[accumulator]") {
  RefAccumulator a = NewRefAccumulator("take_waits");
  std::unique_ptr<Call> take = Take(a, 2);
  CHECK_FALSE(take->finished());
  REQUIRE_OK(Apply(a, 0, {1, 2}));
  CHECK_FALSE(take->finished());
  REQUIRE_OK(Apply(a, 0, {3, 6}));
  REQUIRE(take->finished());
  REQUIRE_OK(take->status());
  CHECK(Values(take->output(0)) == std::vector<float>{2, 4});
  // The take advanced the global step to 1: a step-0 gradient is dropped.
  REQUIRE_OK(Apply(a, 0, {100, 100}));
  std::unique_ptr<Call> next = Take(a, 1);
  CHECK_FALSE(next->finished());
  REQUIRE_OK(Apply(a, 1, {5, 7}));
  REQUIRE(next->finished());
  CHECK(Values(next->output(0)) == std::vector<float>{5, 7});
}

TEST_CASE("The step's cancellation ends a waiting take", "[accumulator]") {
  RefAccumulator a = NewRefAccumulator("take_cancel");
  CancellationManager cm;
  std::unique_ptr<Call> take = Take(a, 1, &cm);
  CHECK_FALSE(take->finished());
  cm.StartCancel();
  REQUIRE(take->finished());
  CHECK_THAT(take->status(),
             StatusIs(StatusCode::kCancelled, "take_cancel"));
  // The gradient applied next is still there for the next take.
  REQUIRE_OK(Apply(a, 0, {1, 1}));
  std::unique_ptr<Call> again = Take(a, 1);
  REQUIRE(again->finished());
  CHECK(Values(again->output(0)) == std::vector<float>{1, 1});
}

TEST_CASE("Accumulator shape mismatches are InvalidArgument", "[accumulator]") {
  RefAccumulator a = NewRefAccumulator("acc_shape");
  CHECK_THAT(Apply(a, 0, {1, 2, 3}),
             StatusIs(StatusCode::kInvalidArgument,
                      "acc_shape"));
  std::unique_ptr<Call> zero = Take(a, 0);
  CHECK_THAT(zero->status(), StatusIs(StatusCode::kInvalidArgument,
                                      "num_required"));
}

// A priority queue of (int64 priority, float) without shapes (TensorFlow
// 2.21 cannot use one at all: see gen_queues.py) and with them.
Tensor NewPriorityQueue(const std::string& name, bool shaped) {
  TestNodeBuilder b("pq", "PriorityQueueV2", 0);
  b.Attr("component_types", DataTypeVector{DT_FLOAT})
      .Attr("shared_name", name.c_str());
  NodeDef def = b.Build();
  auto* shapes = (*def.mutable_attr())["shapes"].mutable_list();
  if (shaped) *shapes->add_shape() = Shape({1});
  return RunNow(def, {})[0];
}
NodeDef PriorityOp(const char* op, int inputs) {
  return TestNodeBuilder(op, op, inputs)
      .Attr(absl::StartsWith(op, "QueueEnqueue") ? "Tcomponents"
                                                 : "component_types",
            DataTypeVector{DT_INT64, DT_FLOAT})
      .Build();
}

TEST_CASE("A priority queue's DequeueMany waits for all n, then takes the "
          "lowest priorities in order",
          "[queue]") {
  Tensor q = NewPriorityQueue("priority_wait", /*shaped=*/true);
  CancellationManager cm;
  std::unique_ptr<Call> many =
      Start(PriorityOp("QueueDequeueManyV2", 2), {q, I32(2)}, &cm);
  RunNow(PriorityOp("QueueEnqueueV2", 3), {q, I64(5), F({50})});
  // One element is there: a priority queue's batch waits for both, so
  // that it comes out sorted.
  CHECK_FALSE(many->finished());
  CHECK(Size(q) == 1);
  RunNow(PriorityOp("QueueEnqueueV2", 3), {q, I64(-1), F({-10})});
  REQUIRE(many->finished());
  REQUIRE_OK(many->status());
  const Tensor& p = many->output(0);
  CHECK(std::vector<int64_t>(p.data<int64_t>(), p.data<int64_t>() + 2) ==
        std::vector<int64_t>{-1, 5});
  CHECK(Values(many->output(1)) == std::vector<float>{-10, 50});
}

TEST_CASE("An unshaped priority queue takes any shape but a priority that "
          "is not a scalar",
          "[queue]") {
  Tensor q = NewPriorityQueue("priority_unshaped", /*shaped=*/false);
  std::unique_ptr<Call> bad = Start(PriorityOp("QueueEnqueueV2", 3),
                                    {q, Tensor::FromVector<int64_t>({1, 2}),
                                     F({1})});
  REQUIRE(bad->finished());
  CHECK_THAT(bad->status(),
             StatusIs(StatusCode::kInvalidArgument,
                      "Expected the priority element to be a scalar, but "
                      "received shape: [2]"));
  RunNow(PriorityOp("QueueEnqueueV2", 3), {q, I64(3), F({1, 2, 3})});
  std::vector<Tensor> got = RunNow(PriorityOp("QueueDequeueV2", 1), {q});
  CHECK(got[0].scalar<int64_t>() == 3);
  CHECK(Values(got[1]) == std::vector<float>{1, 2, 3});
}

}  // namespace
}  // namespace dfx
