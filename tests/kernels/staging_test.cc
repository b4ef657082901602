// Staging areas, staging maps and barriers (graph/ops/staging_ops.cc,
// kernels/data_flow/staging*.cc, barrier*.cc): their signatures equal
// TensorFlow 2.21's byte for byte, and their waits, which the golden cases
// cannot show because TensorFlow's kernels block a thread for ever on them:
// an Unstage of an empty area, a Stage into a full one, a peek of what is
// not there yet and a TakeMany of more than is ready hold no thread, go on
// when another step brings what they wait for, and end with Cancelled when
// their own step is cancelled (a TakeMany also with DeadlineExceeded after
// its timeout_ms). Waits are observed by whether the kernel's done callback
// has run: the kernels that end a wait run their callbacks before they
// return, so no test sleeps.
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/synchronization/notification.h"
#include "absl/time/time.h"
#include "catch2/catch.hpp"
#include "runtime/cancellation.h"
#include "runtime/op_kernel.h"
#include "tests/kernels/async_kernel_test_util.h"
#include "tests/kernels/kernel_test_util.h"
#include "tests/testing/status_matchers.h"

namespace dfx {
namespace {

using absl::StatusCode;
using testing::Call;
using testing::RunNow;
using testing::Start;
using testing::StatusIs;
using testing::TestNodeBuilder;

TEST_CASE(
    "Every staging area, staging map and barrier op has TensorFlow 2.21's "
    "signature and CPU types",
    "[staging]") {
  testing::CheckSignaturesWithTensorFlow("staging", 25);
}

Tensor F(std::vector<float> v) { return Tensor::FromVector<float>(v); }
Tensor I32(int32_t v) { return Tensor::Scalar<int32_t>(v); }
Tensor I64(int64_t v) { return Tensor::Scalar<int64_t>(v); }
Tensor Indices(std::vector<int32_t> v) {
  return Tensor::FromVector<int32_t>(v);
}
std::vector<float> Values(const Tensor& t) {
  return std::vector<float>(t.data<float>(), t.data<float>() + t.NumElements());
}

// --- StagingArea: one float component, shared under `area`.

NodeDef AreaOp(const char* op, const std::string& area, int inputs,
               int64_t capacity = 0, int64_t memory_limit = 0) {
  return TestNodeBuilder(op, op, inputs)
      .Attr("dtypes", DataTypeVector{DT_FLOAT})
      .Attr("shared_name", area.c_str())
      .Attr("capacity", capacity)
      .Attr("memory_limit", memory_limit)
      .Build();
}
NodeDef Stage(const std::string& area, int64_t capacity = 0,
              int64_t memory_limit = 0) {
  return AreaOp("Stage", area, 1, capacity, memory_limit);
}
NodeDef Unstage(const std::string& area) { return AreaOp("Unstage", area, 0); }
int32_t AreaSize(const std::string& area) {
  return RunNow(AreaOp("StageSize", area, 0), {})[0].scalar<int32_t>();
}

TEST_CASE(
    "A producer step and a consumer step hand tuples over through a "
    "staging area",
    "[staging]") {
  // Two threads, each running its steps one after another, as two client
  // sessions' steps would; capacity 2 makes the producer wait for the
  // consumer as often as the other way round.
  constexpr int kTuples = 200;
  std::vector<float> got;
  // Catch's assertions are not thread-safe: the consumer thread records
  // what went wrong, and the test's own thread checks it after the join.
  std::string consumer_error;
  std::thread consumer([&got, &consumer_error] {
    for (int i = 0; i < kTuples; ++i) {
      CancellationManager step;
      absl::StatusOr<std::unique_ptr<Call>> started =
          testing::TryStart(Unstage("handover"), {}, &step);
      if (!started.ok()) {
        consumer_error = started.status().ToString();
        return;
      }
      const std::unique_ptr<Call>& c = *started;
      if (!c->done.WaitForNotificationWithTimeout(absl::Seconds(60))) {
        consumer_error = absl::StrCat("Unstage ", i, " did not finish");
        return;
      }
      if (!c->status().ok()) {
        consumer_error =
            absl::StrCat("Unstage ", i, ": ", c->status().ToString());
        return;
      }
      got.push_back(Values(c->output(0))[0]);
    }
  });
  // The producer side also asserts only after the join (a failed REQUIRE
  // would leave the consumer thread unjoined).
  std::string producer_error;
  for (int i = 0; i < kTuples && producer_error.empty(); ++i) {
    CancellationManager step;
    absl::StatusOr<std::unique_ptr<Call>> c = testing::TryStart(
        Stage("handover", /*capacity=*/2), {F({float(i)})}, &step);
    if (!c.ok()) {
      producer_error = c.status().ToString();
    } else if (!(*c)->done.WaitForNotificationWithTimeout(absl::Seconds(60))) {
      producer_error = absl::StrCat("Stage ", i, " did not finish");
    } else if (!(*c)->status().ok()) {
      producer_error =
          absl::StrCat("Stage ", i, ": ", (*c)->status().ToString());
    }
  }
  consumer.join();
  INFO(producer_error);
  REQUIRE(producer_error.empty());
  INFO(consumer_error);
  REQUIRE(consumer_error.empty());
  REQUIRE(got.size() == kTuples);
  for (int i = 0; i < kTuples; ++i) CHECK(got[i] == float(i));
  CHECK(AreaSize("handover") == 0);
}

TEST_CASE("An Unstage of an empty area waits for a later Stage", "[staging]") {
  CancellationManager step;
  std::unique_ptr<Call> get = Start(Unstage("wait_for_stage"), {}, &step);
  CHECK_FALSE(get->finished());
  RunNow(Stage("wait_for_stage"), {F({1, 2})});
  REQUIRE(get->finished());
  REQUIRE_OK(get->status());
  CHECK(Values(get->output(0)) == std::vector<float>{1, 2});
  CHECK(AreaSize("wait_for_stage") == 0);
}

TEST_CASE(
    "An Unstage of an empty area ends with Cancelled when its step is "
    "cancelled, and takes nothing staged later",
    "[staging]") {
  CancellationManager step;
  std::unique_ptr<Call> get = Start(Unstage("cancel_unstage"), {}, &step);
  CHECK_FALSE(get->finished());
  step.StartCancel();
  REQUIRE(get->finished());
  CHECK_THAT(get->status(), StatusIs(StatusCode::kCancelled,
                                     "Unstage on StagingArea "
                                     "'cancel_unstage' was cancelled"));
  RunNow(Stage("cancel_unstage"), {F({3})});
  CHECK(AreaSize("cancel_unstage") == 1);
  // A step cancelled before the Unstage starts: Cancelled at once.
  CancellationManager cancelled;
  cancelled.StartCancel();
  RunNow(Unstage("cancel_unstage"), {});
  std::unique_ptr<Call> late = Start(Unstage("cancel_unstage"), {}, &cancelled);
  REQUIRE(late->finished());
  CHECK_THAT(late->status(), StatusIs(StatusCode::kCancelled));
}

TEST_CASE("A Stage into a full area waits for an Unstage, then goes in",
          "[staging]") {
  RunNow(Stage("full_area", /*capacity=*/1), {F({1})});
  CancellationManager step;
  std::unique_ptr<Call> put =
      Start(Stage("full_area", /*capacity=*/1), {F({2})}, &step);
  CHECK_FALSE(put->finished());
  CHECK(AreaSize("full_area") == 1);
  CHECK(Values(RunNow(Unstage("full_area"), {})[0]) == std::vector<float>{1});
  REQUIRE(put->finished());
  REQUIRE_OK(put->status());
  CHECK(Values(RunNow(Unstage("full_area"), {})[0]) == std::vector<float>{2});
  // And a waiting Stage ends with its step's cancellation, staging nothing.
  RunNow(Stage("full_area", /*capacity=*/1), {F({3})});
  std::unique_ptr<Call> cancelled =
      Start(Stage("full_area", /*capacity=*/1), {F({4})}, &step);
  CHECK_FALSE(cancelled->finished());
  step.StartCancel();
  REQUIRE(cancelled->finished());
  CHECK_THAT(cancelled->status(), StatusIs(StatusCode::kCancelled));
  CHECK(AreaSize("full_area") == 1);
}

TEST_CASE(
    "memory_limit makes a Stage wait for room, and a tuple larger than it "
    "is ResourceExhausted at once",
    "[staging]") {
  const std::string area = "memory_area";
  RunNow(Stage(area, 0, /*memory_limit=*/16), {F({1, 2, 3})});
  std::unique_ptr<Call> put = Start(Stage(area, 0, 16), {F({4, 5})});
  CHECK_FALSE(put->finished());  // 12 + 8 > 16
  RunNow(Unstage(area), {});
  REQUIRE(put->finished());
  REQUIRE_OK(put->status());
  std::unique_ptr<Call> big = Start(Stage(area, 0, 16), {F({1, 2, 3, 4, 5})});
  REQUIRE(big->finished());
  CHECK_THAT(big->status(),
             StatusIs(StatusCode::kResourceExhausted, "memory limit of '16'"));
}

TEST_CASE("A StagePeek waits until the area holds its index", "[staging]") {
  const std::string area = "peek_wait";
  CancellationManager step;
  std::unique_ptr<Call> peek =
      Start(AreaOp("StagePeek", area, 1), {I32(1)}, &step);
  RunNow(Stage(area), {F({1})});
  CHECK_FALSE(peek->finished());
  RunNow(Stage(area), {F({2})});
  REQUIRE(peek->finished());
  REQUIRE_OK(peek->status());
  CHECK(Values(peek->output(0)) == std::vector<float>{2});
  CHECK(AreaSize(area) == 2);  // a peek leaves the tuple
  std::unique_ptr<Call> negative =
      Start(AreaOp("StagePeek", area, 1), {I32(-1)});
  CHECK_THAT(negative->status(), StatusIs(StatusCode::kInvalidArgument));
}

// --- StagingMap: two float components.

// `outputs`: how many components a get or peek takes (its dtypes); the
// other ops name the map's two.
// The map takes its capacity from the first node that reaches it.
NodeDef MapOp(const std::string& op, const std::string& map, int inputs,
              int outputs = 2, int64_t capacity = 0) {
  return TestNodeBuilder(op, op, inputs)
      .Attr("dtypes", DataTypeVector(outputs, DT_FLOAT))
      .Attr("shared_name", map.c_str())
      .Attr("capacity", capacity)
      .Build();
}
NodeDef MapStage(const std::string& map, int n, bool ordered = false,
                 int64_t capacity = 0) {
  const std::string op = ordered ? "OrderedMapStage" : "MapStage";
  return TestNodeBuilder(op, op, 2 + n)
      .Attr("dtypes", DataTypeVector{DT_FLOAT, DT_FLOAT})
      .Attr("fake_dtypes", DataTypeVector(n, DT_FLOAT))
      .Attr("shared_name", map.c_str())
      .Attr("capacity", capacity)
      .Build();
}
int32_t MapSize(const std::string& map, const char* op = "MapSize") {
  return RunNow(MapOp(op, map, 0), {})[0].scalar<int32_t>();
}

TEST_CASE(
    "A MapUnstage waits for its key, also when another key comes "
    "first",
    "[staging]") {
  const std::string map = "map_wait_key";
  CancellationManager step;
  std::unique_ptr<Call> get =
      Start(MapOp("MapUnstage", map, 2), {I64(7), Indices({0, 1})}, &step);
  RunNow(MapStage(map, 2), {I64(3), Indices({0, 1}), F({1}), F({2})});
  CHECK_FALSE(get->finished());
  // Key 7 partly in: still incomplete, so still waiting.
  RunNow(MapStage(map, 1), {I64(7), Indices({1}), F({8})});
  CHECK_FALSE(get->finished());
  CHECK(MapSize(map, "MapIncompleteSize") == 1);
  RunNow(MapStage(map, 1), {I64(7), Indices({0}), F({9})});
  REQUIRE(get->finished());
  REQUIRE_OK(get->status());
  CHECK(Values(get->output(0)) == std::vector<float>{9});
  CHECK(Values(get->output(1)) == std::vector<float>{8});
  CHECK(MapSize(map) == 1);  // key 3 left
  CHECK(MapSize(map, "MapIncompleteSize") == 0);
}

TEST_CASE(
    "A MapPeek of an absent key ends with Cancelled when its step is "
    "cancelled",
    "[staging]") {
  const std::string map = "map_cancel_peek";
  CancellationManager step;
  std::unique_ptr<Call> peek =
      Start(MapOp("MapPeek", map, 2, 1), {I64(1), Indices({0})}, &step);
  CHECK_FALSE(peek->finished());
  step.StartCancel();
  REQUIRE(peek->finished());
  CHECK_THAT(peek->status(),
             StatusIs(StatusCode::kCancelled, "'map_cancel_peek'"));
}

TEST_CASE(
    "An OrderedMapUnstageNoKey waits for any key and takes the "
    "smallest, and a full map makes a MapStage wait",
    "[staging]") {
  const std::string map = "ordered_no_key";
  std::unique_ptr<Call> get =
      Start(MapOp("OrderedMapUnstageNoKey", map, 1, 2, /*capacity=*/2),
            {Indices({0, 1})});
  CHECK_FALSE(get->finished());
  RunNow(MapStage(map, 2, true, /*capacity=*/2),
         {I64(5), Indices({0, 1}), F({5}), F({50})});
  REQUIRE(get->finished());
  REQUIRE_OK(get->status());
  CHECK(get->output(0).scalar<int64_t>() == 5);
  CHECK(Values(get->output(2)) == std::vector<float>{50});
  for (int64_t k : {9, 4}) {
    RunNow(MapStage(map, 2, true, 2),
           {I64(k), Indices({0, 1}), F({1}), F({2})});
  }
  std::unique_ptr<Call> put = Start(MapStage(map, 2, true, 2),
                                    {I64(1), Indices({0, 1}), F({1}), F({2})});
  CHECK_FALSE(put->finished());
  std::vector<Tensor> first =
      RunNow(MapOp("OrderedMapUnstageNoKey", map, 1), {Indices({0, 1})});
  CHECK(first[0].scalar<int64_t>() == 4);
  REQUIRE(put->finished());
  REQUIRE_OK(put->status());
  CHECK(RunNow(MapOp("OrderedMapUnstageNoKey", map, 1), {Indices({0, 1})})[0]
            .scalar<int64_t>() == 1);
}

TEST_CASE("Bad map inputs are InvalidArgument and change nothing",
          "[staging]") {
  const std::string map = "map_bad_input";
  auto put = [&](std::vector<int32_t> idx, std::vector<Tensor> values) {
    std::vector<Tensor> in = {I64(1), Indices(idx)};
    for (Tensor& v : values) in.push_back(v);
    std::unique_ptr<Call> c =
        Start(MapStage(map, static_cast<int>(values.size())), in);
    REQUIRE(c->finished());
    return c->status();
  };
  CHECK_THAT(put({1, 0}, {F({1}), F({2})}),
             StatusIs(StatusCode::kInvalidArgument, "strictly ordered"));
  CHECK_THAT(put({2}, {F({1})}),
             StatusIs(StatusCode::kInvalidArgument, "out of bounds"));
  CHECK_THAT(put({0, 1}, {F({1})}), StatusIs(StatusCode::kInvalidArgument));
  std::unique_ptr<Call> key =
      Start(MapStage(map, 1),
            {Tensor::FromVector<int64_t>({1, 2}), Indices({0}), F({1})});
  CHECK_THAT(key->status(), StatusIs(StatusCode::kInvalidArgument, "key"));
  std::unique_ptr<Call> count =
      Start(MapOp("MapPeek", map, 2, 1), {I64(1), Indices({0, 1})});
  CHECK_THAT(count->status(),
             StatusIs(StatusCode::kInvalidArgument, "size mismatch"));
  CHECK(MapSize(map) == 0);
  CHECK(MapSize(map, "MapIncompleteSize") == 0);
}

// --- Barrier: a float and a [2] float component.

struct TestBarrier {
  std::unique_ptr<Call> made;
  TensorRef ref() const { return made->ctx->output_refs()[0]; }
};

TestBarrier NewBarrier(const std::string& name) {
  TensorShapeProto scalar, pair;
  pair.add_dim()->set_size(2);
  NodeDef def = TestNodeBuilder("barrier", "Barrier", 0)
                    .Attr("component_types", DataTypeVector{DT_FLOAT, DT_FLOAT})
                    .Attr("shared_name", name.c_str())
                    .Build();
  auto* shapes = (*def.mutable_attr())["shapes"].mutable_list();
  *shapes->add_shape() = scalar;
  *shapes->add_shape() = pair;
  TestBarrier b;
  b.made = Start(def, {});
  REQUIRE_OK(b.made->status());
  REQUIRE(b.ref().valid());
  return b;
}

Tensor Keys(std::vector<std::string> keys) {
  return Tensor::FromVector<std::string>(keys);
}

absl::Status Insert(const TestBarrier& b, int component,
                    std::vector<std::string> keys, Tensor values) {
  std::unique_ptr<Call> c =
      Start(TestNodeBuilder("insert", "BarrierInsertMany", 3)
                .Attr("T", DT_FLOAT)
                .Attr("component_index", component)
                .Build(),
            {Tensor(), Keys(keys), values}, nullptr, b.ref());
  REQUIRE(c->finished());
  return c->status();
}

std::unique_ptr<Call> Take(const TestBarrier& b, int32_t n,
                           CancellationManager* cm = nullptr,
                           int64_t timeout_ms = -1,
                           bool allow_small_batch = false) {
  return Start(TestNodeBuilder("take", "BarrierTakeMany", 2)
                   .Attr("component_types", DataTypeVector{DT_FLOAT, DT_FLOAT})
                   .Attr("timeout_ms", timeout_ms)
                   .Attr("allow_small_batch", allow_small_batch)
                   .Build(),
               {Tensor(), I32(n)}, cm, b.ref());
}

int32_t BarrierSize(const TestBarrier& b, const char* op) {
  std::unique_ptr<Call> c = Start(TestNodeBuilder("size", op, 1).Build(),
                                  {Tensor()}, nullptr, b.ref());
  REQUIRE_OK(c->status());
  return c->output(0).scalar<int32_t>();
}

TEST_CASE(
    "A TakeMany waits until its elements are complete, in insertion "
    "order",
    "[staging]") {
  TestBarrier b = NewBarrier("take_waits");
  CancellationManager step;
  std::unique_ptr<Call> take = Take(b, 2, &step);
  REQUIRE_OK(Insert(b, 0, {"a", "b"}, F({1, 2})));
  REQUIRE_OK(Insert(b, 0, {"c"}, F({3})));
  REQUIRE_OK(Insert(b, 1, {"c"},
                    Tensor::FromVector<float>({30, 31}, TensorShape({1, 2}))));
  CHECK_FALSE(take->finished());  // one ready
  CHECK(BarrierSize(b, "BarrierReadySize") == 1);
  CHECK(BarrierSize(b, "BarrierIncompleteSize") == 2);
  REQUIRE_OK(Insert(b, 1, {"b"},
                    Tensor::FromVector<float>({20, 21}, TensorShape({1, 2}))));
  REQUIRE(take->finished());
  REQUIRE_OK(take->status());
  // b came in with the first insert: before c.
  CHECK(take->output(1).data<std::string>()[0] == "b");
  CHECK(take->output(1).data<std::string>()[1] == "c");
  CHECK(take->output(0).data<int64_t>()[0] + 1 ==
        take->output(0).data<int64_t>()[1]);
  CHECK(Values(take->output(2)) == std::vector<float>{2, 3});
  CHECK(Values(take->output(3)) == std::vector<float>{20, 21, 30, 31});
  CHECK_THAT(Insert(b, 0, {"a"}, F({9})),
             StatusIs(StatusCode::kInvalidArgument,
                      "already has a value for component 0"));
}

TEST_CASE(
    "A waiting TakeMany ends with Cancelled on its step's cancellation "
    "and with DeadlineExceeded after timeout_ms",
    "[staging]") {
  TestBarrier b = NewBarrier("take_ends");
  CancellationManager step;
  std::unique_ptr<Call> take = Take(b, 1, &step);
  CHECK_FALSE(take->finished());
  step.StartCancel();
  REQUIRE(take->finished());
  CHECK_THAT(take->status(), StatusIs(StatusCode::kCancelled, "'take_ends'"));
  std::unique_ptr<Call> timed = Take(b, 1, nullptr, /*timeout_ms=*/20);
  REQUIRE(timed->done.WaitForNotificationWithTimeout(absl::Seconds(60)));
  CHECK_THAT(timed->status(),
             StatusIs(StatusCode::kDeadlineExceeded, "timed out after 20 ms"));
  // Neither took anything.
  REQUIRE_OK(Insert(b, 0, {"k"}, F({1})));
  REQUIRE_OK(Insert(b, 1, {"k"},
                    Tensor::FromVector<float>({1, 1}, TensorShape({1, 2}))));
  std::unique_ptr<Call> last = Take(b, 1);
  REQUIRE(last->finished());
  REQUIRE_OK(last->status());
}

TEST_CASE(
    "Closing a barrier with nothing incomplete ends a waiting "
    "TakeMany with OutOfRange, and small batches take what is ready",
    "[staging]") {
  TestBarrier b = NewBarrier("close_wakes");
  std::unique_ptr<Call> take = Take(b, 3);
  std::unique_ptr<Call> waiting_small = Take(b, 3, nullptr, -1, true);
  REQUIRE_OK(Insert(b, 0, {"a"}, F({1})));
  REQUIRE_OK(Insert(b, 1, {"a"},
                    Tensor::FromVector<float>({1, 1}, TensorShape({1, 2}))));
  CHECK_FALSE(take->finished());
  RunNow(TestNodeBuilder("close", "BarrierClose", 1).Build(), {Tensor()},
         b.ref());
  REQUIRE(take->finished());
  CHECK_THAT(take->status(), StatusIs(StatusCode::kOutOfRange));
  // The small batch waiting behind it takes the one ready element.
  REQUIRE(waiting_small->finished());
  REQUIRE_OK(waiting_small->status());
  CHECK(waiting_small->output(1).NumElements() == 1);
  std::unique_ptr<Call> small = Take(b, 3, nullptr, -1, true);
  REQUIRE(small->finished());
  CHECK_THAT(small->status(), StatusIs(StatusCode::kOutOfRange));
  CHECK_THAT(Insert(b, 0, {"new"}, F({1})),
             StatusIs(StatusCode::kCancelled, "is closed"));
}

}  // namespace
}  // namespace dfx
