// The dataset4 family (graph/ops/dataset4_ops.cc, kernels/data/
// dataset4_kernels.cc): TensorFlow 2.21's signatures, the shape checks a
// graph meets at import, and what the golden cases (tests/golden/
// gen_dataset4.py) cannot show: a save or load node whose function is
// missing from the graph's library fails when its kernel is built; a
// compressed element that crossed tasks (encoded, decoded) uncompresses.
#include <string>
#include <vector>

#include "catch2/catch.hpp"
#include "runtime/variant.h"
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
  testing::CheckSignaturesWithTensorFlow("dataset4", 8);
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

TEST_CASE("A compressed element uncompresses after crossing tasks",
          "[dataset4]") {
  const Tensor ints = Tensor::FromVector<int64_t>({4, 5, 6});
  const Tensor str = Tensor::Scalar<std::string>("x");
  absl::StatusOr<std::vector<Tensor>> c =
      RunKernel(TestNodeBuilder("c", "CompressElement", 2)
                    .Attr("input_types", DataTypeVector{DT_INT64, DT_STRING})
                    .Build(),
                {ints, str});
  REQUIRE(c.ok());
  // What a receiving task decodes: an opaque value of the same type name.
  VariantTensorDataProto proto;
  (*c)[0].data<Variant>()[0].Encode(&proto);
  absl::StatusOr<Variant> decoded = Variant::Decode(proto);
  REQUIRE(decoded.ok());
  Tensor received(DT_VARIANT, TensorShape({}));
  received.data<Variant>()[0] = *decoded;
  const NodeDef u =
      TestNodeBuilder("u", "UncompressElement", 1)
          .Attr("output_types", DataTypeVector{DT_INT64, DT_STRING})
          .Build();
  absl::StatusOr<std::vector<Tensor>> out = RunKernel(u, {received});
  REQUIRE(out.ok());
  REQUIRE(out->size() == 2);
  CHECK((*out)[0].NumElements() == 3);
  CHECK((*out)[0].data<int64_t>()[2] == 6);
  CHECK((*out)[1].data<std::string>()[0] == "x");
  // An empty variant is no compressed element.
  CHECK_THAT(RunKernel(u, {Tensor(DT_VARIANT, TensorShape({}))}).status(),
             StatusIs(absl::StatusCode::kInvalidArgument,
                      "does not contain a compressed element"));
}

}  // namespace
}  // namespace dfx
