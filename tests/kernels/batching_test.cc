// The batching family's ops (tests/golden/gen_batching.py): TensorFlow
// 2.21's signatures and CPU kernel types, shape functions, and what Unbatch
// and UnbatchGrad do across calls, which one-step golden cases cannot show:
// a call whose rows come later waits without a thread, its step's
// cancellation and its timeout end it, and a batch_index TensorFlow's
// kernel aborts on is InvalidArgument. BatchFunction's concurrent steps are
// tests/golden/batching_session_test.cc's.
#include <cstdint>
#include <vector>

#include "catch2/catch.hpp"
#include "graph/node_def_util.h"
#include "graph/op_registry.h"
#include "tests/kernels/async_kernel_test_util.h"
#include "tests/kernels/kernel_test_util.h"
#include "tests/kernels/shape_fn_test_util.h"
#include "runtime/device.h"
#include "runtime/resource_mgr.h"
#include "tests/testing/status_matchers.h"

namespace dfx {
namespace {

using testing::InferShape;
using testing::Start;
using testing::StatusIs;
using testing::TestNodeBuilder;

std::string Str(const absl::StatusOr<PartialShape>& s) {
  return s.ok() ? s->DebugString() : s.status().ToString();
}

Tensor Index(const std::vector<int64_t>& rows) {
  Tensor t(DT_INT64, TensorShape({static_cast<int64_t>(rows.size() / 3), 3}));
  for (size_t i = 0; i < rows.size(); ++i) t.data<int64_t>()[i] = rows[i];
  return t;
}

Tensor Floats(const std::vector<float>& v) {
  Tensor t(DT_FLOAT, TensorShape({static_cast<int64_t>(v.size())}));
  for (size_t i = 0; i < v.size(); ++i) t.data<float>()[i] = v[i];
  return t;
}

std::vector<float> Values(const Tensor& t) {
  return std::vector<float>(t.data<float>(), t.data<float>() + t.NumElements());
}

NodeDef Unbatch(const std::string& shared_name, int64_t timeout_micros) {
  return TestNodeBuilder("unbatch", "Unbatch", 3)
      .Attr("T", DT_FLOAT)
      .Attr("timeout_micros", timeout_micros)
      .Attr("shared_name", shared_name.c_str())
      .Build();
}

TEST_CASE("Every batching op has TensorFlow 2.21's signature and CPU types",
          "[batching]") {
  testing::CheckSignaturesWithTensorFlow("batching", 4);
}

TEST_CASE("Batching shape functions leave dim 0 to the batch", "[batching]") {
  const NodeDef batch = TestNodeBuilder("b", "Batch", 2)
                            .Attr("T", DataTypeVector{DT_FLOAT, DT_INT32})
                            .Attr("num_batch_threads", 1)
                            .Attr("max_batch_size", 4)
                            .Attr("batch_timeout_micros", 1)
                            .Attr("grad_timeout_micros", 1)
                            .Build();
  CHECK(Str(InferShape(
            batch, {PartialShape::Known({3, 2}), PartialShape::Known({3})})) ==
        PartialShape::Known({-1, 2}).DebugString());
  CHECK_THAT(
      InferShape(batch, {PartialShape::Scalar(), PartialShape::Known({3})})
          .status(),
      StatusIs(absl::StatusCode::kInvalidArgument));
  const NodeDef unbatch = Unbatch("", 1);
  CHECK(Str(InferShape(
            unbatch, {PartialShape::Known({5, 7}), PartialShape::Known({2, 3}),
                      PartialShape::Scalar()})) ==
        PartialShape::Known({-1, 7}).DebugString());
}

TEST_CASE(
    "Unbatch: a call whose rows come in another call's batch waits for "
    "them without a thread",
    "[batching]") {
  const NodeDef node = Unbatch("rows_later", 60000000);
  // Request 5 comes first, with no batch: it waits.
  auto waiting =
      Start(node, {Floats({}), Index({}), Tensor::Scalar<int64_t>(5)});
  CHECK_FALSE(waiting->finished());
  // Request 6's call carries the batch: rows [0, 2) are 6's, [2, 3) 5's.
  auto owner = Start(node, {Floats({1, 2, 3}), Index({6, 0, 2, 5, 2, 3}),
                            Tensor::Scalar<int64_t>(6)});
  REQUIRE(owner->finished());
  REQUIRE_OK(owner->status());
  CHECK(Values(owner->output(0)) == std::vector<float>{1, 2});
  waiting->done.WaitForNotification();
  REQUIRE_OK(waiting->status());
  CHECK(Values(waiting->output(0)) == std::vector<float>{3});

  // Rows that come before their call wait for it.
  auto owner2 = Start(node, {Floats({4, 5}), Index({7, 0, 1, 8, 1, 2}),
                             Tensor::Scalar<int64_t>(7)});
  REQUIRE(owner2->finished());
  auto later = Start(node, {Floats({}), Index({}), Tensor::Scalar<int64_t>(8)});
  REQUIRE(later->finished());
  REQUIRE_OK(later->status());
  CHECK(Values(later->output(0)) == std::vector<float>{5});
}

TEST_CASE(
    "Unbatch: a waiting call ends at its timeout, its step's "
    "cancellation, or when its resource goes",
    "[batching]") {
  auto timed = Start(Unbatch("timeouts", 1000),
                     {Floats({}), Index({}), Tensor::Scalar<int64_t>(1)});
  timed->done.WaitForNotification();
  CHECK_THAT(timed->status(), StatusIs(absl::StatusCode::kDeadlineExceeded));

  CancellationManager cm;
  auto cancelled =
      Start(Unbatch("cancels", 60000000),
            {Floats({}), Index({}), Tensor::Scalar<int64_t>(1)}, &cm);
  CHECK_FALSE(cancelled->finished());
  cm.StartCancel();
  REQUIRE(cancelled->finished());
  CHECK_THAT(cancelled->status(), StatusIs(absl::StatusCode::kCancelled));

  auto orphan = Start(Unbatch("deleted", 60000000),
                      {Floats({}), Index({}), Tensor::Scalar<int64_t>(1)});
  CHECK_FALSE(orphan->finished());
  REQUIRE_OK(testing::TestCpuDevice()->resource_manager()->Delete(
      "", "deleted", "UnbatchResource"));
  orphan->done.WaitForNotification();
  CHECK_THAT(orphan->status(), StatusIs(absl::StatusCode::kCancelled));
}

TEST_CASE(
    "Unbatch: a batch_index row ending before it starts is InvalidArgument "
    "(TensorFlow's kernel aborts)",
    "[batching]") {
  auto bad = Start(Unbatch("bad", 1000), {Floats({1, 2, 3}), Index({7, 2, 1}),
                                          Tensor::Scalar<int64_t>(7)});
  REQUIRE(bad->finished());
  CHECK_THAT(bad->status(),
             StatusIs(absl::StatusCode::kInvalidArgument, "before it starts"));
  auto cols = Start(Unbatch("bad", 1000),
                    {Floats({1}), Tensor(DT_INT64, TensorShape({1, 2})),
                     Tensor::Scalar<int64_t>(7)});
  REQUIRE(cols->finished());
  CHECK_THAT(cols->status(), StatusIs(absl::StatusCode::kInvalidArgument));
}

TEST_CASE(
    "UnbatchGrad: the batch's call waits for every request's gradient, "
    "then concatenates them in batch_index order",
    "[batching]") {
  const NodeDef node = TestNodeBuilder("grad", "UnbatchGrad", 4)
                           .Attr("T", DT_FLOAT)
                           .Attr("shared_name", "grads")
                           .Build();
  const Tensor index = Index({1, 0, 1, 2, 1, 3});
  auto owner = Start(node, {Floats({0, 0, 0, 0}), index, Floats({10}),
                            Tensor::Scalar<int64_t>(1)});
  CHECK_FALSE(owner->finished());
  auto other = Start(node, {Floats({}), Index({}), Floats({20, 30}),
                            Tensor::Scalar<int64_t>(2)});
  REQUIRE(other->finished());
  REQUIRE_OK(other->status());
  CHECK(other->output(0).NumElements() == 0);
  REQUIRE(owner->finished());
  REQUIRE_OK(owner->status());
  CHECK(Values(owner->output(0)) == std::vector<float>{10, 20, 30});
}

NodeDef Batch(const std::string& shared_name) {
  return TestNodeBuilder("batch", "Batch", 1)
      .Attr("T", DataTypeVector{DT_FLOAT})
      .Attr("num_batch_threads", 1)
      .Attr("max_batch_size", 3)
      .Attr("batch_timeout_micros", int64_t{60000000})
      .Attr("grad_timeout_micros", 0)
      .Attr("shared_name", shared_name.c_str())
      .Build();
}

TEST_CASE(
    "Batch: calls meet in one batch, which goes out whole through the "
    "last, with batch_index saying whose rows are where",
    "[batching]") {
  auto first = Start(Batch("meet"), {Floats({1, 2})});
  CHECK_FALSE(first->finished());
  auto second = Start(Batch("meet"), {Floats({3})});
  first->done.WaitForNotification();
  second->done.WaitForNotification();
  REQUIRE_OK(first->status());
  REQUIRE_OK(second->status());
  CHECK(first->output(0).NumElements() == 0);
  CHECK(first->output(1).shape() == TensorShape({0, 3}));
  CHECK(Values(second->output(0)) == std::vector<float>{1, 2, 3});
  const int64_t* index = second->output(1).data<int64_t>();
  REQUIRE(second->output(1).shape() == TensorShape({2, 3}));
  CHECK(index[0] == first->output(2).scalar<int64_t>());
  CHECK((index[1] == 0 && index[2] == 2));
  CHECK(index[3] == second->output(2).scalar<int64_t>());
  CHECK((index[4] == 2 && index[5] == 3));
}

TEST_CASE(
    "Batch: a request waiting for its batch ends Cancelled when the "
    "batcher resource goes, or its step is cancelled",
    "[batching]") {
  auto waiting = Start(Batch("gone"), {Floats({1})});
  CHECK_FALSE(waiting->finished());
  ResourceMgr* rm = testing::TestCpuDevice()->resource_manager();
  REQUIRE_OK(rm->Delete("", "gone", "BatchResource"));
  waiting->done.WaitForNotification();
  CHECK_THAT(waiting->status(), StatusIs(absl::StatusCode::kCancelled));

  CancellationManager cm;
  auto cancelled = Start(Batch("cancel"), {Floats({1})}, &cm);
  CHECK_FALSE(cancelled->finished());
  cm.StartCancel();
  REQUIRE(cancelled->finished());
  CHECK_THAT(cancelled->status(), StatusIs(absl::StatusCode::kCancelled));
  // The cancelled request left the batch: two more rows do not fill it.
  auto a = Start(Batch("cancel"), {Floats({2, 3})});
  CHECK_FALSE(a->finished());
  auto b = Start(Batch("cancel"), {Floats({4})});
  a->done.WaitForNotification();
  b->done.WaitForNotification();
  CHECK(Values(b->output(0)) == std::vector<float>{2, 3, 4});
}

}  // namespace
}  // namespace dfx
