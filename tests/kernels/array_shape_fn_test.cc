// Shape functions of the array ops (graph/ops/array_ops.cc).
#include <string>
#include <vector>

#include "catch2/catch.hpp"
#include "graph/node_def_util.h"
#include "graph/op_registry.h"
#include "runtime/tensor.h"
#include "tests/kernels/kernel_test_util.h"
#include "tests/kernels/shape_fn_test_util.h"
#include "tests/testing/status_matchers.h"

namespace dfx {
namespace {

using testing::InferShapes;
using testing::StatusIs;
using testing::TestNodeBuilder;

PartialShape S(std::vector<int64_t> dims) {
  return PartialShape::Known(std::move(dims));
}
const PartialShape kUnknown = PartialShape::Unknown();

std::string Str(const absl::StatusOr<std::vector<PartialShape>>& r,
                int i = 0) {
  if (!r.ok()) return r.status().ToString();
  return (*r)[i].DebugString();
}

TEST_CASE("Every array op is registered with TensorFlow's signature") {
  const char* ops[] = {"Const",     "Placeholder", "PlaceholderWithDefault",
                       "Identity",  "IdentityN",   "NoOp",
                       "Reshape",   "Shape",       "ExpandDims",
                       "Squeeze",   "Transpose",   "ConcatV2",
                       "Pack",      "Fill",        "ZerosLike",
                       "OnesLike"};
  for (const char* name : ops) {
    INFO(name);
    REQUIRE(OpRegistry::Global()->LookUp(name) != nullptr);
  }
  const OpDef& ph = OpRegistry::Global()->LookUp("Placeholder")->op_def;
  REQUIRE(ph.attr_size() == 2);
  REQUIRE(ph.attr(1).name() == "shape");
  REQUIRE(ph.attr(1).default_value().shape().unknown_rank());
  const OpDef& idn = OpRegistry::Global()->LookUp("IdentityN")->op_def;
  REQUIRE(idn.input_arg(0).type_list_attr() == "T");
  const OpDef& concat = OpRegistry::Global()->LookUp("ConcatV2")->op_def;
  REQUIRE(concat.input_arg(0).name() == "values");
  REQUIRE(concat.input_arg(1).name() == "axis");
  REQUIRE(concat.attr(0).minimum() == 2);
  const OpDef& squeeze = OpRegistry::Global()->LookUp("Squeeze")->op_def;
  REQUIRE(squeeze.attr(1).name() == "squeeze_dims");
  const OpDef& fill = OpRegistry::Global()->LookUp("Fill")->op_def;
  REQUIRE(fill.input_arg(0).type_attr() == "index_type");
}

TEST_CASE("Const, Placeholder and PlaceholderWithDefault shapes") {
  auto c = InferShapes(TestNodeBuilder("c", "Const", 0)
                           .Attr("dtype", DT_FLOAT)
                           .Attr("value", Tensor(DT_FLOAT, TensorShape({2, 3})))
                           .Build(),
                       {});
  REQUIRE(Str(c) == "[2,3]");
  TensorShapeProto shape;
  shape.add_dim()->set_size(-1);
  shape.add_dim()->set_size(3);
  REQUIRE(Str(InferShapes(TestNodeBuilder("p", "Placeholder", 0)
                              .Attr("dtype", DT_FLOAT)
                              .Attr("shape", shape)
                              .Build(),
                          {})) == "[?,3]");
  REQUIRE(Str(InferShapes(TestNodeBuilder("p", "Placeholder", 0)
                              .Attr("dtype", DT_FLOAT)
                              .Build(),
                          {})) == "<unknown>");
  NodeDef pwd = TestNodeBuilder("p", "PlaceholderWithDefault", 1)
                    .Attr("dtype", DT_FLOAT)
                    .Attr("shape", shape)
                    .Build();
  REQUIRE(Str(InferShapes(pwd, {S({5, 3})})) == "[?,3]");
  REQUIRE_THAT(InferShapes(pwd, {S({5, 4})}).status(),
               StatusIs(absl::StatusCode::kInvalidArgument, "node 'p'"));
}

TEST_CASE("Identity and IdentityN pass shapes through") {
  REQUIRE(Str(InferShapes(
              TestNodeBuilder("i", "Identity", 1).Attr("T", DT_FLOAT).Build(),
              {S({2, -1})})) == "[2,?]");
  auto n = InferShapes(TestNodeBuilder("i", "IdentityN", 2)
                           .Attr("T", DataTypeVector{DT_FLOAT, DT_INT32})
                           .Build(),
                       {S({1}), kUnknown});
  REQUIRE(Str(n, 0) == "[1]");
  REQUIRE(Str(n, 1) == "<unknown>");
}

TEST_CASE("Reshape shape function uses a constant shape input") {
  NodeDef node = TestNodeBuilder("r", "Reshape", 2).Attr("T", DT_FLOAT).Build();
  REQUIRE(Str(InferShapes(node, {S({2, 6}), S({2})},
                          {Tensor(), Tensor::FromVector<int32_t>({-1, 3})})) ==
          "[4,3]");
  REQUIRE(Str(InferShapes(node, {S({-1, 6}), S({2})},
                          {Tensor(), Tensor::FromVector<int32_t>({-1, 3})})) ==
          "[?,3]");
  REQUIRE(Str(InferShapes(node, {kUnknown, S({3})})) == "[?,?,?]");
  REQUIRE(Str(InferShapes(node, {kUnknown, kUnknown})) == "<unknown>");
  REQUIRE_THAT(InferShapes(node, {S({2, 6}), S({1})},
                           {Tensor(), Tensor::FromVector<int32_t>({5})})
                   .status(),
               StatusIs(absl::StatusCode::kInvalidArgument, "node 'r'"));
}

TEST_CASE("Shape, ExpandDims, Squeeze shape functions") {
  NodeDef shape = TestNodeBuilder("s", "Shape", 1).Attr("T", DT_FLOAT).Build();
  REQUIRE(Str(InferShapes(shape, {S({2, -1, 4})})) == "[3]");
  REQUIRE(Str(InferShapes(shape, {kUnknown})) == "[?]");

  NodeDef ed = TestNodeBuilder("e", "ExpandDims", 2).Attr("T", DT_FLOAT).Build();
  REQUIRE(Str(InferShapes(ed, {S({2, 3}), S({})},
                          {Tensor(), Tensor::Scalar<int32_t>(-1)})) ==
          "[2,3,1]");
  REQUIRE(Str(InferShapes(ed, {S({2, 3}), S({})})) == "[?,?,?]");
  REQUIRE_THAT(InferShapes(ed, {S({2, 3}), S({})},
                           {Tensor(), Tensor::Scalar<int32_t>(5)})
                   .status(),
               StatusIs(absl::StatusCode::kInvalidArgument, "out of range"));

  NodeDef sq = TestNodeBuilder("q", "Squeeze", 1).Attr("T", DT_FLOAT).Build();
  REQUIRE(Str(InferShapes(sq, {S({1, 2, 1})})) == "[2]");
  REQUIRE(Str(InferShapes(sq, {S({1, -1})})) == "<unknown>");
  NodeDef sq1 = TestNodeBuilder("q", "Squeeze", 1)
                    .Attr("T", DT_FLOAT)
                    .Attr("squeeze_dims", std::vector<int64_t>{-1})
                    .Build();
  REQUIRE(Str(InferShapes(sq1, {S({1, -1, -1})})) == "[1,?]");
  REQUIRE_THAT(InferShapes(sq1, {S({1, 3})}).status(),
               StatusIs(absl::StatusCode::kInvalidArgument,
                        "expected a dimension of 1, got 3"));
}

TEST_CASE("Transpose, ConcatV2, Pack, Fill shape functions") {
  NodeDef tr = TestNodeBuilder("t", "Transpose", 2).Attr("T", DT_FLOAT).Build();
  REQUIRE(
      Str(InferShapes(tr, {S({2, -1, 4}), S({3})},
                      {Tensor(), Tensor::FromVector<int32_t>({2, 0, 1})})) ==
      "[4,2,?]");
  REQUIRE(Str(InferShapes(tr, {S({2, 3}), S({2})})) == "[?,?]");
  REQUIRE_THAT(InferShapes(tr, {S({2, 3}), S({2})},
                           {Tensor(), Tensor::FromVector<int32_t>({0, 0})})
                   .status(),
               StatusIs(absl::StatusCode::kInvalidArgument, "permutation"));

  NodeDef cat = TestNodeBuilder("c", "ConcatV2", 3)
                    .Attr("T", DT_FLOAT)
                    .Attr("N", 2)
                    .Build();
  REQUIRE(Str(InferShapes(cat, {S({2, 3}), S({-1, 4}), S({})},
                          {Tensor(), Tensor(), Tensor::Scalar<int32_t>(-1)})) ==
          "[2,7]");
  REQUIRE(Str(InferShapes(cat, {S({2, 3}), kUnknown, S({})},
                          {Tensor(), Tensor(), Tensor::Scalar<int32_t>(0)})) ==
          "[?,3]");
  REQUIRE(Str(InferShapes(cat, {S({2, 3}), S({2, 5}), S({})})) == "[?,?]");
  REQUIRE_THAT(InferShapes(cat, {S({2, 3}), S({3, 3}), S({})},
                           {Tensor(), Tensor(), Tensor::Scalar<int32_t>(1)})
                   .status(),
               StatusIs(absl::StatusCode::kInvalidArgument, "input 1"));

  NodeDef pack = TestNodeBuilder("p", "Pack", 2)
                     .Attr("T", DT_FLOAT)
                     .Attr("N", 2)
                     .Attr("axis", -1)
                     .Build();
  REQUIRE(Str(InferShapes(pack, {S({2, -1}), S({-1, 3})})) == "[2,3,2]");
  REQUIRE(Str(InferShapes(pack, {kUnknown, kUnknown})) == "<unknown>");
  REQUIRE_THAT(InferShapes(pack, {S({2}), S({3})}).status(),
               StatusIs(absl::StatusCode::kInvalidArgument, "input 1"));

  NodeDef fill = TestNodeBuilder("f", "Fill", 2).Attr("T", DT_FLOAT).Build();
  REQUIRE(Str(InferShapes(fill, {S({2}), S({})},
                          {Tensor::FromVector<int32_t>({4, 5})})) == "[4,5]");
  REQUIRE(Str(InferShapes(fill, {S({3}), S({})})) == "[?,?,?]");
}

}  // namespace
}  // namespace dfx
