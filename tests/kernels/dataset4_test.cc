// The dataset4 family (graph/ops/dataset4_ops.cc, kernels/data/
// dataset4_kernels.cc): TensorFlow 2.21's signatures, the shape checks a
// graph meets at import, and what the golden cases (tests/golden/
// gen_dataset4.py) cannot show: a save or load node whose function is
// missing from the graph's library fails when its kernel is built.
#include <string>
#include <vector>

#include "catch2/catch.hpp"
#include "tests/kernels/kernel_test_util.h"
#include "tests/kernels/shape_fn_test_util.h"
#include "tests/testing/status_matchers.h"

namespace dfx {
namespace {

using testing::InferShape;
using testing::RunKernel;
using testing::StatusIs;
using testing::TestNodeBuilder;

TEST_CASE("Every dataset4 op has TensorFlow 2.21's signature and CPU types",
          "[dataset4]") {
  testing::CheckSignaturesWithTensorFlow("dataset4", 5);
}

TEST_CASE("Save and load take a scalar path", "[dataset4]") {
  const PartialShape scalar = PartialShape::Known({});
  const PartialShape vector = PartialShape::Known({2});
  const NodeDef save = TestNodeBuilder("s", "SaveDataset", 2)
                           .Attr("Tshard_func_args", DataTypeVector{})
                           .Build();
  CHECK(testing::InferShapes(save, {scalar, scalar}).ok());
  CHECK_THAT(testing::InferShapes(save, {scalar, vector}).status(),
             StatusIs(absl::StatusCode::kInvalidArgument));
  const NodeDef save2 = TestNodeBuilder("s2", "SaveDatasetV2", 2)
                            .Attr("Tshard_func_args", DataTypeVector{})
                            .Attr("output_types", DataTypeVector{DT_INT64})
                            .Build();
  absl::StatusOr<PartialShape> handle = InferShape(save2, {scalar, scalar});
  REQUIRE(handle.ok());
  CHECK(handle->DebugString() == scalar.DebugString());
  CHECK_THAT(InferShape(save2, {scalar, vector}).status(),
             StatusIs(absl::StatusCode::kInvalidArgument));
  const NodeDef load = TestNodeBuilder("l", "LoadDataset", 1)
                           .Attr("Treader_func_args", DataTypeVector{})
                           .Attr("output_types", DataTypeVector{DT_INT64})
                           .Build();
  handle = InferShape(load, {scalar});
  REQUIRE(handle.ok());
  CHECK(handle->DebugString() == scalar.DebugString());
  CHECK_THAT(InferShape(load, {vector}).status(),
             StatusIs(absl::StatusCode::kInvalidArgument));
}

TEST_CASE("A save or load node without its function's definition fails",
          "[dataset4]") {
  NameAttrList f;
  f.set_name("no_such_function");
  AttrValue func;
  *func.mutable_func() = f;
  NodeDef load = TestNodeBuilder("l", "LoadDataset", 1)
                     .Attr("Treader_func_args", DataTypeVector{})
                     .Attr("output_types", DataTypeVector{DT_INT64})
                     .Build();
  (*load.mutable_attr())["reader_func"] = func;
  CHECK_THAT(
      RunKernel(load, {Tensor::Scalar<std::string>("/nowhere")}).status(),
      StatusIs(absl::StatusCode::kInvalidArgument, "no_such_function"));
}

}  // namespace
}  // namespace dfx
