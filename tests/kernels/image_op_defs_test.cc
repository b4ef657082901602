// The image ops' signatures and kernel types (graph/ops/image_ops.cc,
// kernels/image/): every op equals TensorFlow 2.21's OpDef and has CPU
// kernels for exactly the types TensorFlow's CPU kernels serve; and their
// shape functions.
#include <cstdint>
#include <string>
#include <vector>

#include "base/status_macros.h"
#include "catch2/catch.hpp"
#include "graph/node_def_util.h"
#include "graph/op_registry.h"
#include "kernels/kernels.h"
#include "proto/op_def.pb.h"
#include "runtime/tensor.h"
#include "tests/kernels/kernel_test_util.h"
#include "tests/kernels/shape_fn_test_util.h"
#include "tests/testing/status_matchers.h"

namespace dfx {
namespace {

using testing::InferShapes;
using testing::StatusIs;
using testing::TestNodeBuilder;

TEST_CASE("Every image op has TensorFlow 2.21's signature and CPU types",
          "[image]") {
  testing::CheckSignaturesWithTensorFlow("image", 24);
}

std::string Str(const absl::StatusOr<std::vector<PartialShape>>& r) {
  if (!r.ok()) return r.status().ToString();
  return (*r)[0].DebugString();
}

PartialShape S(std::vector<int64_t> dims) {
  return PartialShape::Known(std::move(dims));
}

Tensor Ints(std::vector<int32_t> v, TensorShape shape) {
  return Tensor::FromVector<int32_t>(v, shape);
}

TEST_CASE("Image op shape functions", "[image]") {
  const NodeDef resize =
      TestNodeBuilder("r", "ResizeBilinear", 2).Attr("T", DT_FLOAT).Build();
  CHECK(Str(InferShapes(resize, {S({2, 4, 5, 3}), S({2})},
                        {Tensor(), Ints({7, 9}, TensorShape({2}))})) ==
        "[2,7,9,3]");
  CHECK(Str(InferShapes(resize, {S({2, -1, 5, 3}), S({2})})) == "[2,?,?,3]");
  CHECK_THAT(InferShapes(resize, {S({4, 5, 3}), S({2})}).status(),
             StatusIs(absl::StatusCode::kInvalidArgument));
  CHECK_THAT(InferShapes(resize, {S({1, 4, 5, 3}), S({3})}).status(),
             StatusIs(absl::StatusCode::kInvalidArgument));
  const NodeDef grad = TestNodeBuilder("g", "ResizeBilinearGrad", 2)
                           .Attr("T", DT_DOUBLE)
                           .Build();
  CHECK(Str(InferShapes(grad, {S({2, 7, 9, 3}), S({2, 4, 5, 3})})) ==
        "[2,4,5,3]");

  const NodeDef d2s = TestNodeBuilder("d", "DepthToSpace", 1)
                          .Attr("T", DT_FLOAT)
                          .Attr("block_size", 2)
                          .Build();
  CHECK(Str(InferShapes(d2s, {S({1, 2, -1, 8})})) == "[1,4,?,2]");
  CHECK_THAT(InferShapes(d2s, {S({1, 2, 2, 6})}).status(),
             StatusIs(absl::StatusCode::kInvalidArgument,
                      "evenly divisible by 4 but is 6"));
  const NodeDef s2d = TestNodeBuilder("d", "SpaceToDepth", 1)
                          .Attr("T", DT_FLOAT)
                          .Attr("block_size", 3)
                          .Build();
  CHECK(Str(InferShapes(s2d, {S({1, 6, 9, 2})})) == "[1,2,3,18]");

  const NodeDef s2b = TestNodeBuilder("s", "SpaceToBatchND", 3)
                          .Attr("T", DT_FLOAT)
                          .Attr("Tblock_shape", DT_INT32)
                          .Attr("Tpaddings", DT_INT32)
                          .Build();
  const Tensor block = Ints({2, 3}, TensorShape({2}));
  const Tensor pads = Ints({1, 1, 0, 3}, TensorShape({2, 2}));
  CHECK(Str(InferShapes(s2b, {S({2, 4, 6, 5}), S({2}), S({2, 2})},
                        {Tensor(), block, pads})) == "[12,3,3,5]");
  CHECK(Str(InferShapes(s2b, {S({2, 4, 6, 5}), S({2}), S({2, 2})})) ==
        "[?,?,?,5]");
  CHECK_THAT(InferShapes(s2b, {S({2, 4}), S({2}), S({2, 2})}).status(),
             StatusIs(absl::StatusCode::kInvalidArgument));
  const NodeDef b2s = TestNodeBuilder("b", "BatchToSpaceND", 3)
                          .Attr("T", DT_FLOAT)
                          .Attr("Tblock_shape", DT_INT32)
                          .Attr("Tcrops", DT_INT32)
                          .Build();
  CHECK(Str(InferShapes(b2s, {S({12, 3, 3, 5}), S({2}), S({2, 2})},
                        {Tensor(), block, pads})) == "[2,4,6,5]");
  CHECK_THAT(InferShapes(b2s, {S({5, 3, 3, 5}), S({2}), S({2, 2})},
                         {Tensor(), block, pads})
                 .status(),
             StatusIs(absl::StatusCode::kInvalidArgument,
                      "evenly divisible by 6 but is 5"));
}

}  // namespace
}  // namespace dfx
