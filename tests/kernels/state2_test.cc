// The state2 family's ops (tests/golden/gen_state2.py: strided-slice and
// N-d scatter updates of variables and tensors, ResourceGatherNd,
// TensorScatterSub/Min/Max, Inplace*, CountUpTo, Empty, TemporaryVariable):
// TensorFlow 2.21's signatures and CPU kernel types, the shape checks a
// graph meets at import, and error codes the golden cases show only by
// code.
#include <cstdint>
#include <vector>

#include "catch2/catch.hpp"
#include "graph/node_def_util.h"
#include "graph/op_registry.h"
#include "tests/kernels/kernel_test_util.h"
#include "tests/kernels/shape_fn_test_util.h"
#include "tests/testing/status_matchers.h"

namespace dfx {
namespace {

using testing::InferShape;
using testing::RunKernel;
using testing::StatusIs;
using testing::TestNodeBuilder;

std::string Str(const absl::StatusOr<PartialShape>& s) {
  return s.ok() ? s->DebugString() : s.status().ToString();
}

TEST_CASE("Every state2 op has TensorFlow 2.21's signature and CPU types",
          "[state2]") {
  testing::CheckSignaturesWithTensorFlow("state2", 26);
}

TEST_CASE(
    "State2 shape functions keep the variable's shape and reject "
    "updates that cannot fit",
    "[state2]") {
  const NodeDef ssa = TestNodeBuilder("a", "StridedSliceAssign", 5)
                          .Attr("T", DT_FLOAT)
                          .Attr("Index", DT_INT32)
                          .Build();
  CHECK(Str(InferShape(ssa,
                       {PartialShape::Known({4, 5}), PartialShape::Known({2}),
                        PartialShape::Known({2}), PartialShape::Known({2}),
                        PartialShape::Known({2, 3})})) ==
        PartialShape::Known({4, 5}).DebugString());

  const NodeDef add = TestNodeBuilder("s", "ScatterNdAdd", 3)
                          .Attr("T", DT_FLOAT)
                          .Attr("Tindices", DT_INT32)
                          .Build();
  // indices [2, 1] name rows: updates [2, 3].
  CHECK(Str(InferShape(
            add, {PartialShape::Known({4, 3}), PartialShape::Known({2, 1}),
                  PartialShape::Known({2, 3})})) ==
        PartialShape::Known({4, 3}).DebugString());
  CHECK_THAT(
      InferShape(add, {PartialShape::Known({4, 3}), PartialShape::Known({2, 1}),
                       PartialShape::Known({2, 2})})
          .status(),
      StatusIs(absl::StatusCode::kInvalidArgument));
  // More index components than the variable has dimensions.
  CHECK_THAT(
      InferShape(add, {PartialShape::Known({4, 3}), PartialShape::Known({2, 3}),
                       PartialShape::Known({2})})
          .status(),
      StatusIs(absl::StatusCode::kInvalidArgument));

  const NodeDef count = TestNodeBuilder("c", "CountUpTo", 1)
                            .Attr("T", DT_INT64)
                            .Attr("limit", int64_t{3})
                            .Build();
  CHECK(Str(InferShape(count, {PartialShape::Known({})})) ==
        PartialShape::Known({}).DebugString());
  CHECK_THAT(InferShape(count, {PartialShape::Known({2})}).status(),
             StatusIs(absl::StatusCode::kInvalidArgument));

  const NodeDef empty =
      TestNodeBuilder("e", "Empty", 1).Attr("dtype", DT_FLOAT).Build();
  // The shape's value is not a constant here: only its rank is known.
  CHECK(Str(InferShape(empty, {PartialShape::Known({3})})) ==
        UnknownDims(3).DebugString());
  CHECK_THAT(InferShape(empty, {PartialShape::Known({1, 3})}).status(),
             StatusIs(absl::StatusCode::kInvalidArgument));
}

TEST_CASE(
    "TensorStridedSliceUpdate broadcasts the value and names a value "
    "that cannot broadcast",
    "[state2]") {
  const NodeDef node = TestNodeBuilder("u", "TensorStridedSliceUpdate", 5)
                           .Attr("T", DT_INT32)
                           .Attr("Index", DT_INT32)
                           .Build();
  const Tensor x =
      Tensor::FromVector<int32_t>({0, 1, 2, 3, 4, 5}, TensorShape({2, 3}));
  const Tensor begin = Tensor::FromVector<int32_t>({0, 2});
  const Tensor end = Tensor::FromVector<int32_t>({2, 0});
  const Tensor strides = Tensor::FromVector<int32_t>({1, -2});
  // x[:, 2:0:-2] is column 2 ([2, 1]); a [1] value broadcasts into it.
  auto out = RunKernel(
      node, {x, begin, end, strides, Tensor::FromVector<int32_t>({9})});
  REQUIRE(out.ok());
  CHECK(std::vector<int32_t>(out->at(0).span<int32_t>().begin(),
                             out->at(0).span<int32_t>().end()) ==
        std::vector<int32_t>{0, 1, 9, 3, 4, 9});
  // The input is not changed.
  CHECK(x.data<int32_t>()[2] == 2);
  CHECK_THAT(RunKernel(node, {x, begin, end, strides,
                              Tensor::FromVector<int32_t>({7, 8, 9})})
                 .status(),
             StatusIs(absl::StatusCode::kInvalidArgument,
                      "Cannot broadcast input shape [3] into final shape "
                      "[2,1]"));
}

TEST_CASE("Inplace ops wrap row indices and reject arithmetic on strings",
          "[state2]") {
  const Tensor x = Tensor::FromVector<float>({1, 2, 3, 4}, TensorShape({2, 2}));
  const Tensor v = Tensor::FromVector<float>({10, 20}, TensorShape({1, 2}));
  const NodeDef add =
      TestNodeBuilder("a", "InplaceAdd", 3).Attr("T", DT_FLOAT).Build();
  // Row -1 is the last row.
  auto out = RunKernel(add, {x, Tensor::FromVector<int32_t>({-1}), v});
  REQUIRE(out.ok());
  CHECK(std::vector<float>(out->at(0).span<float>().begin(),
                           out->at(0).span<float>().end()) ==
        std::vector<float>{1, 2, 13, 24});
  CHECK(x.data<float>()[2] == 3);

  Tensor s(DT_STRING, TensorShape({2}));
  Tensor sv(DT_STRING, TensorShape({1}));
  const NodeDef sadd =
      TestNodeBuilder("s", "InplaceSub", 3).Attr("T", DT_STRING).Build();
  CHECK_THAT(
      RunKernel(sadd, {s, Tensor::FromVector<int32_t>({0}), sv}).status(),
      StatusIs(absl::StatusCode::kInvalidArgument,
               "Unsupported data type: string"));
}

TEST_CASE(
    "TensorScatterMax and Min keep the larger and smaller, and name "
    "an index outside the tensor",
    "[state2]") {
  const Tensor x = Tensor::FromVector<int64_t>({5, 1, 7});
  const Tensor idx =
      Tensor::FromVector<int32_t>({0, 1, 0}, TensorShape({3, 1}));
  const Tensor upd = Tensor::FromVector<int64_t>({3, 4, 9});
  const NodeDef max = TestNodeBuilder("m", "TensorScatterMax", 3)
                          .Attr("T", DT_INT64)
                          .Attr("Tindices", DT_INT32)
                          .Build();
  auto out = RunKernel(max, {x, idx, upd});
  REQUIRE(out.ok());
  CHECK(std::vector<int64_t>(out->at(0).span<int64_t>().begin(),
                             out->at(0).span<int64_t>().end()) ==
        std::vector<int64_t>{9, 4, 7});
  const NodeDef min = TestNodeBuilder("n", "TensorScatterMin", 3)
                          .Attr("T", DT_INT64)
                          .Attr("Tindices", DT_INT32)
                          .Build();
  out = RunKernel(min, {x, idx, upd});
  REQUIRE(out.ok());
  CHECK(std::vector<int64_t>(out->at(0).span<int64_t>().begin(),
                             out->at(0).span<int64_t>().end()) ==
        std::vector<int64_t>{3, 1, 7});
  CHECK_THAT(
      RunKernel(min, {x, Tensor::FromVector<int32_t>({3}, TensorShape({1, 1})),
                      Tensor::FromVector<int64_t>({1})})
          .status(),
      StatusIs(absl::StatusCode::kInvalidArgument,
               "indices[0] = [3] does not index into shape [3]"));
}

TEST_CASE(
    "Empty is zeros of the shape it is given and rejects negative "
    "dims",
    "[state2]") {
  const NodeDef node = TestNodeBuilder("e", "Empty", 1)
                           .Attr("dtype", DT_DOUBLE)
                           .Attr("init", true)
                           .Build();
  auto out = RunKernel(node, {Tensor::FromVector<int32_t>({2, 0, 3})});
  REQUIRE(out.ok());
  CHECK(out->at(0).shape() == TensorShape({2, 0, 3}));
  out = RunKernel(node, {Tensor::FromVector<int32_t>({2})});
  REQUIRE(out.ok());
  CHECK(out->at(0).data<double>()[1] == 0.0);
  CHECK_THAT(RunKernel(node, {Tensor::FromVector<int32_t>({2, -1})}).status(),
             StatusIs(absl::StatusCode::kInvalidArgument,
                      "Dimension -1 must be >= 0"));
}

}  // namespace
}  // namespace dfx
