// Signatures and shape functions of the slicing, tiling, padding and
// splitting ops (graph/ops/array_index_ops.cc).
#include <string>
#include <vector>

#include "catch2/catch.hpp"
#include "graph/node_def_util.h"
#include "graph/op_registry.h"
#include "runtime/tensor.h"
#include "tests/kernels/array_index_test_util.h"
#include "tests/kernels/kernel_test_util.h"
#include "tests/kernels/shape_fn_test_util.h"
#include "tests/testing/status_matchers.h"

namespace dfx {
namespace {

using testing::I32;
using testing::I64;
using testing::InferShapes;
using testing::Paddings;
using testing::StatusIs;
using testing::TestNodeBuilder;

PartialShape S(std::vector<int64_t> dims) {
  return PartialShape::Known(std::move(dims));
}
const PartialShape kUnknown = PartialShape::Unknown();
const Tensor kNone;  // an input whose value is not known

std::string Str(const absl::StatusOr<std::vector<PartialShape>>& r, int i = 0) {
  if (!r.ok()) return r.status().ToString();
  return (*r)[i].DebugString();
}

TEST_CASE("Every index op is registered with TensorFlow's signature") {
  const char* ops[] = {"StridedSlice", "StridedSliceGrad",
                       "Slice",        "Tile",
                       "Pad",          "PadV2",
                       "MirrorPad",    "MirrorPadGrad",
                       "ReverseV2",    "BroadcastTo",
                       "Size",         "Rank",
                       "Split",        "SplitV",
                       "Unpack",       "Range",
                       "LinSpace"};
  for (const char* name : ops) {
    INFO(name);
    REQUIRE(OpRegistry::Global()->LookUp(name) != nullptr);
  }
  const OpDef& ss = OpRegistry::Global()->LookUp("StridedSlice")->op_def;
  REQUIRE(ss.input_arg_size() == 4);
  REQUIRE(ss.attr_size() == 7);
  const OpDef& splitv = OpRegistry::Global()->LookUp("SplitV")->op_def;
  bool found = false;
  for (const auto& a : splitv.attr()) {
    if (a.name() == "Tlen") {
      found = true;
      REQUIRE(a.default_value().type() == DT_INT64);
    }
  }
  REQUIRE(found);
}

NodeDef SS(int64_t begin_mask = 0, int64_t end_mask = 0,
           int64_t ellipsis_mask = 0, int64_t new_axis_mask = 0,
           int64_t shrink_axis_mask = 0) {
  return TestNodeBuilder("ss", "StridedSlice", 4)
      .Attr("T", DT_FLOAT)
      .Attr("Index", DT_INT32)
      .Attr("begin_mask", begin_mask)
      .Attr("end_mask", end_mask)
      .Attr("ellipsis_mask", ellipsis_mask)
      .Attr("new_axis_mask", new_axis_mask)
      .Attr("shrink_axis_mask", shrink_axis_mask)
      .Build();
}

TEST_CASE("StridedSlice shape function") {
  // x[1:3, ::-1] of [5, 4]
  auto r = InferShapes(SS(), {S({5, 4}), S({2}), S({2}), S({2})},
                       {kNone, I32({1, 0}), I32({3, 0}), I32({1, -1})});
  // end_mask unset: x[1:3, 0:0:-1] is empty along dim 1
  REQUIRE(Str(r) == "[2,0]");
  // x[1:3, 0::-1]: one element of dim 1
  r = InferShapes(SS(0, 2), {S({5, 4}), S({2}), S({2}), S({2})},
                  {kNone, I32({1, 0}), I32({3, 0}), I32({1, -1})});
  REQUIRE(Str(r) == "[2,1]");
  // x[1:3, ::-1]
  r = InferShapes(SS(2, 2), {S({5, 4}), S({2}), S({2}), S({2})},
                  {kNone, I32({1, 0}), I32({3, 0}), I32({1, -1})});
  REQUIRE(Str(r) == "[2,4]");
  // x[..., None, 2] of [?, 3, 4]
  r = InferShapes(SS(0, 0, 1, 2, 4), {S({-1, 3, 4}), S({3}), S({3}), S({3})},
                  {kNone, I32({0, 0, 2}), I32({0, 0, 3}), I32({1, 1, 1})});
  REQUIRE(Str(r) == "[?,3,1]");
  // Begin and end unknown: masked dims are known, others not.
  r = InferShapes(SS(1, 1), {S({5, 4}), S({2}), S({2}), S({2})},
                  {kNone, kNone, kNone, I32({1, 1})});
  REQUIRE(Str(r) == "[5,?]");
  // Strides unknown: nothing is known.
  r = InferShapes(SS(), {S({5, 4}), S({2}), S({2}), S({2})});
  REQUIRE(Str(r) == "<unknown>");
  r = InferShapes(SS(0, 0, 0, 0, 1), {S({5, 4}), S({1}), S({1}), S({1})},
                  {kNone, I32({7}), I32({8}), I32({1})});
  REQUIRE_THAT(r.status(), StatusIs(absl::StatusCode::kInvalidArgument,
                                    "slice index 7 of dimension 0"));
  r = InferShapes(SS(), {S({5, 4}), S({1}), S({2}), S({2})});
  REQUIRE_THAT(r.status(), StatusIs(absl::StatusCode::kInvalidArgument));
}

TEST_CASE("Slice, Tile and BroadcastTo shape functions") {
  NodeDef slice = TestNodeBuilder("s", "Slice", 3)
                      .Attr("T", DT_FLOAT)
                      .Attr("Index", DT_INT32)
                      .Build();
  auto r = InferShapes(slice, {S({5, 4}), S({2}), S({2})},
                       {kNone, I32({1, 1}), I32({2, -1})});
  REQUIRE(Str(r) == "[2,3]");
  r = InferShapes(slice, {S({5, 4}), S({2}), S({2})});
  REQUIRE(Str(r) == "[?,?]");
  r = InferShapes(slice, {S({5, 4, 3}), S({2}), S({2})});
  REQUIRE_THAT(r.status(), StatusIs(absl::StatusCode::kInvalidArgument));

  NodeDef tile = TestNodeBuilder("t", "Tile", 2).Attr("T", DT_FLOAT).Build();
  r = InferShapes(tile, {S({2, -1, 3}), S({3})}, {kNone, I32({3, 2, 0})});
  REQUIRE(Str(r) == "[6,?,0]");
  r = InferShapes(tile, {S({2, 3}), S({3})});
  REQUIRE_THAT(r.status(), StatusIs(absl::StatusCode::kInvalidArgument,
                                    "vector of length 2 but got length 3"));

  NodeDef bcast =
      TestNodeBuilder("b", "BroadcastTo", 2).Attr("T", DT_FLOAT).Build();
  r = InferShapes(bcast, {S({3, 1}), S({3})}, {kNone, I32({2, -1, 5})});
  REQUIRE(Str(r) == "[2,3,5]");
  r = InferShapes(bcast, {S({3}), S({2})}, {kNone, I32({2, 4})});
  REQUIRE_THAT(r.status(), StatusIs(absl::StatusCode::kInvalidArgument,
                                    "Incompatible shapes"));
  // Shape unknown: its length gives the rank, the input a known dim.
  r = InferShapes(bcast, {S({3}), S({2})});
  REQUIRE(Str(r) == "[?,3]");
}

TEST_CASE("Pad, MirrorPad and MirrorPadGrad shape functions") {
  NodeDef pad = TestNodeBuilder("p", "Pad", 2).Attr("T", DT_FLOAT).Build();
  auto r = InferShapes(pad, {S({2, -1}), S({2, 2})},
                       {kNone, Paddings({{1, 2}, {3, 4}})});
  REQUIRE(Str(r) == "[5,?]");
  r = InferShapes(pad, {kUnknown, S({3, 2})});
  REQUIRE(Str(r) == "[?,?,?]");
  r = InferShapes(pad, {S({2}), S({2, 2})});
  REQUIRE_THAT(r.status(), StatusIs(absl::StatusCode::kInvalidArgument));
  r = InferShapes(pad, {S({2}), S({1, 2})}, {kNone, Paddings({{-1, 0}})});
  REQUIRE_THAT(r.status(), StatusIs(absl::StatusCode::kInvalidArgument,
                                    "Paddings must be non-negative"));
  NodeDef grad = TestNodeBuilder("g", "MirrorPadGrad", 2)
                     .Attr("T", DT_FLOAT)
                     .Attr("mode", "REFLECT")
                     .Build();
  r = InferShapes(grad, {S({7, 3}), S({2, 2})},
                  {kNone, Paddings({{2, 1}, {0, 0}})});
  REQUIRE(Str(r) == "[4,3]");
  r = InferShapes(grad, {kUnknown, S({-1, 2})});
  REQUIRE(Str(r) == "<unknown>");
}

TEST_CASE("Split, SplitV and Unpack shape functions") {
  NodeDef split = TestNodeBuilder("s", "Split", 2)
                      .Attr("T", DT_FLOAT)
                      .Attr("num_split", 3)
                      .Build();
  auto r =
      InferShapes(split, {S({}), S({4, 6})}, {Tensor::Scalar<int32_t>(-1)});
  REQUIRE(r.ok());
  REQUIRE(r->size() == 3u);
  REQUIRE(Str(r, 2) == "[4,2]");
  r = InferShapes(split, {S({}), S({4, 5})}, {Tensor::Scalar<int32_t>(1)});
  REQUIRE_THAT(r.status(),
               StatusIs(absl::StatusCode::kInvalidArgument, "evenly divide"));
  r = InferShapes(split, {S({}), S({4, 6})});
  REQUIRE(Str(r) == "[?,?]");

  NodeDef splitv = TestNodeBuilder("v", "SplitV", 3)
                       .Attr("T", DT_FLOAT)
                       .Attr("num_split", 3)
                       .Build();
  r = InferShapes(splitv, {S({4, 6}), S({3}), S({})},
                  {kNone, I64({1, -1, 2}), Tensor::Scalar<int32_t>(1)});
  REQUIRE(r.ok());
  REQUIRE(Str(r, 1) == "[4,3]");
  r = InferShapes(splitv, {S({4, 6}), S({3}), S({})},
                  {kNone, I64({1, 1, 2}), Tensor::Scalar<int32_t>(1)});
  REQUIRE_THAT(r.status(), StatusIs(absl::StatusCode::kInvalidArgument,
                                    "can't split axis of size 6"));
  r = InferShapes(splitv, {S({4, 6}), S({3}), S({})},
                  {kNone, kNone, Tensor::Scalar<int32_t>(0)});
  REQUIRE(Str(r, 0) == "[?,6]");

  NodeDef unpack = TestNodeBuilder("u", "Unpack", 1)
                       .Attr("T", DT_FLOAT)
                       .Attr("num", 3)
                       .Attr("axis", -1)
                       .Build();
  r = InferShapes(unpack, {S({2, 3})});
  REQUIRE(Str(r, 2) == "[2]");
  r = InferShapes(unpack, {S({2, 4})});
  REQUIRE_THAT(r.status(), StatusIs(absl::StatusCode::kInvalidArgument));
}

TEST_CASE("Range, LinSpace, ReverseV2, Size and Rank shape functions") {
  NodeDef range = TestNodeBuilder("r", "Range", 3).Build();
  auto r = InferShapes(range, {S({}), S({}), S({})},
                       {Tensor::Scalar<int32_t>(1), Tensor::Scalar<int32_t>(10),
                        Tensor::Scalar<int32_t>(4)});
  REQUIRE(Str(r) == "[3]");
  r = InferShapes(range, {S({}), S({}), S({})},
                  {Tensor::Scalar<int32_t>(1), Tensor::Scalar<int32_t>(10),
                   Tensor::Scalar<int32_t>(0)});
  REQUIRE_THAT(r.status(), StatusIs(absl::StatusCode::kInvalidArgument,
                                    "Requires delta != 0"));
  r = InferShapes(range, {S({}), S({}), S({})});
  REQUIRE(Str(r) == "[?]");
  NodeDef lin = TestNodeBuilder("l", "LinSpace", 3).Attr("T", DT_FLOAT).Build();
  r = InferShapes(lin, {S({}), S({}), S({})},
                  {kNone, kNone, Tensor::Scalar<int32_t>(7)});
  REQUIRE(Str(r) == "[7]");
  NodeDef rev =
      TestNodeBuilder("v", "ReverseV2", 2).Attr("T", DT_FLOAT).Build();
  r = InferShapes(rev, {S({2, 3}), S({1})}, {kNone, I32({-1})});
  REQUIRE(Str(r) == "[2,3]");
  r = InferShapes(rev, {S({2, 3}), S({2})}, {kNone, I32({1, -1})});
  REQUIRE_THAT(r.status(), StatusIs(absl::StatusCode::kInvalidArgument,
                                    "specified more than once"));
  NodeDef size = TestNodeBuilder("s", "Size", 1).Attr("T", DT_FLOAT).Build();
  REQUIRE(Str(InferShapes(size, {kUnknown})) == "[]");
  NodeDef rank = TestNodeBuilder("k", "Rank", 1).Attr("T", DT_FLOAT).Build();
  REQUIRE(Str(InferShapes(rank, {S({2})})) == "[]");
}

}  // namespace
}  // namespace dfx
