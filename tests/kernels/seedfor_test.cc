// The seedfor family's ops (tests/golden/gen_seedfor.py): TensorFlow 2.21's
// signatures and CPU kernel types, shape functions, and what the golden
// cases cannot show: SleepOp ends at once when its step is cancelled, and
// fails (where TensorFlow's kernel aborts) on a non-scalar sleep_seconds;
// For's lowered pieces; FakeQueue keeps the first handle it sees.
#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "catch2/catch.hpp"
#include "graph/node_def_util.h"
#include "runtime/cancellation.h"
#include "tests/kernels/async_kernel_test_util.h"
#include "tests/kernels/kernel_test_util.h"
#include "tests/kernels/shape_fn_test_util.h"
#include "tests/testing/status_matchers.h"

namespace dfx {
namespace {

using testing::InferShape;
using testing::StatusIs;
using testing::TestNodeBuilder;

std::string Str(const absl::StatusOr<PartialShape>& s) {
  return s.ok() ? s->DebugString() : s.status().ToString();
}

TEST_CASE("Every seedfor op has TensorFlow 2.21's signature and CPU types",
          "[seedfor]") {
  testing::CheckSignaturesWithTensorFlow("seedfor", 7);
}

TEST_CASE("Seedfor shape functions", "[seedfor]") {
  TensorShapeProto shape;
  shape.add_dim()->set_size(2);
  shape.add_dim()->set_size(-1);
  const NodeDef fake = TestNodeBuilder("p", "FakeParam", 0)
                           .Attr("dtype", DT_FLOAT)
                           .Attr("shape", shape)
                           .Build();
  CHECK(Str(InferShape(fake, {})) ==
        PartialShape::FromProto(shape).DebugString());
  const NodeDef sleep =
      TestNodeBuilder("s", "SleepIdentityOp", 2).Attr("T", DT_INT64).Build();
  CHECK(Str(InferShape(
            sleep, {PartialShape::Known({}), PartialShape::Known({3, 4})})) ==
        PartialShape::Known({3, 4}).DebugString());
  const NodeDef queue = TestNodeBuilder("q", "FakeQueue", 1).Build();
  CHECK(Str(InferShape(queue, {PartialShape::Known({})})) ==
        PartialShape::Known({2}).DebugString());
}

NodeDef SleepNode(const std::string& op) {
  TestNodeBuilder b("nap", op, op == "SleepOp" ? 1 : 2);
  if (op == "SleepIdentityOp") b.Attr("T", DT_FLOAT);
  return b.Build();
}

std::vector<Tensor> SleepInputs(const std::string& op, int32_t seconds) {
  std::vector<Tensor> in = {Tensor::Scalar<int32_t>(seconds)};
  if (op == "SleepIdentityOp") in.push_back(Tensor::Scalar<float>(2.5f));
  return in;
}

TEST_CASE("A sleeping SleepOp ends at once when its step is cancelled",
          "[seedfor]") {
  for (const std::string op : {"SleepOp", "SleepIdentityOp"}) {
    SECTION(op) {
      CancellationManager cm;
      const absl::Time start = absl::Now();
      auto call = testing::Start(SleepNode(op), SleepInputs(op, 3600), &cm);
      CHECK(!call->finished());
      cm.StartCancel();
      // Bounded: an hour's sleep that ignored the cancellation fails here.
      REQUIRE(call->done.WaitForNotificationWithTimeout(absl::Seconds(30)));
      CHECK(absl::Now() - start < absl::Seconds(30));
      CHECK_THAT(call->status(),
                 StatusIs(absl::StatusCode::kCancelled, "node 'nap'"));
    }
  }
}

TEST_CASE("SleepOp in a cancelled step fails without sleeping", "[seedfor]") {
  CancellationManager cm;
  cm.StartCancel();
  auto call =
      testing::Start(SleepNode("SleepOp"), SleepInputs("SleepOp", 3600), &cm);
  REQUIRE(call->finished());
  CHECK_THAT(call->status(), StatusIs(absl::StatusCode::kCancelled));
}

TEST_CASE("SleepIdentityOp sleeps, then outputs its input", "[seedfor]") {
  CancellationManager cm;
  const absl::Time start = absl::Now();
  auto call = testing::Start(SleepNode("SleepIdentityOp"),
                             SleepInputs("SleepIdentityOp", 1), &cm);
  REQUIRE(call->done.WaitForNotificationWithTimeout(absl::Seconds(30)));
  CHECK(absl::Now() - start >= absl::Milliseconds(990));
  REQUIRE_OK(call->status());
  CHECK(call->output(0).scalar<float>() == 2.5f);
}

TEST_CASE("SleepOp refuses a sleep_seconds that is not a scalar", "[seedfor]") {
  // TensorFlow's kernel reads a scalar without checking and aborts.
  auto call = testing::Start(SleepNode("SleepOp"),
                             {Tensor::FromVector<int32_t>({1, 2})});
  REQUIRE(call->finished());
  CHECK_THAT(call->status(), StatusIs(absl::StatusCode::kInvalidArgument,
                                      "sleep_seconds must be a scalar"));
}

absl::StatusOr<bool> ForCond(int32_t iter, int32_t limit, int32_t delta) {
  auto call = testing::Start(
      TestNodeBuilder("c", "_ForLoopCond", 3).Build(),
      {Tensor::Scalar<int32_t>(iter), Tensor::Scalar<int32_t>(limit),
       Tensor::Scalar<int32_t>(delta)});
  if (!call->status().ok()) return call->status();
  return call->output(0).scalar<bool>();
}

TEST_CASE("For's lowered pieces follow TensorFlow's ForOp", "[seedfor]") {
  CHECK(*ForCond(0, 3, 1));
  CHECK(!*ForCond(3, 3, 1));
  CHECK(*ForCond(3, 0, -1));
  CHECK(!*ForCond(0, 0, -1));
  CHECK(!*ForCond(2, 2, 0));
  const NodeDef start = TestNodeBuilder("s", "_ForLoopStart", 3)
                            .Attr("T", DataTypeVector{})
                            .Build();
  auto bad = testing::Start(
      start, {Tensor::Scalar<int32_t>(0), Tensor::Scalar<int32_t>(1),
              Tensor::Scalar<int32_t>(0)});
  CHECK_THAT(bad->status(), StatusIs(absl::StatusCode::kInvalidArgument,
                                     "Invalid start/limit/delta: 0 1 0"));
  auto vec = testing::Start(
      start, {Tensor::Scalar<int32_t>(0), Tensor::FromVector<int32_t>({1}),
              Tensor::Scalar<int32_t>(1)});
  CHECK_THAT(vec->status(), StatusIs(absl::StatusCode::kInvalidArgument,
                                     "limit must be a scalar, but [1]"));
  auto ok = testing::Start(
      start, {Tensor::Scalar<int32_t>(5), Tensor::Scalar<int32_t>(5),
              Tensor::Scalar<int32_t>(0)});
  REQUIRE_OK(ok->status());
  CHECK(ok->output(0).scalar<int32_t>() == 5);
}

}  // namespace
}  // namespace dfx
