// The xla1 family's ops (tests/golden/gen_xla1.py: TensorFlow's XLA array
// ops on CPU): TensorFlow 2.21's signatures and CPU kernel types, the shape
// functions, and the inputs the goldens cannot show -- malformed proto
// attrs and dimension numbers on which TensorFlow crashes, where dfx says
// InvalidArgument naming the node.
#include <cstdint>
#include <string>
#include <vector>

#include "catch2/catch.hpp"
#include "graph/node_def_util.h"
#include "graph/op_registry.h"
#include "proto/xla_data.pb.h"
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

Tensor Floats(const std::vector<float>& v, const TensorShape& shape) {
  return Tensor::FromVector<float>(v, shape);
}

Tensor Ints(const std::vector<int32_t>& v) {
  return Tensor::FromVector<int32_t>(v);
}

std::string DotDims(std::vector<int64_t> lc, std::vector<int64_t> rc,
                    std::vector<int64_t> lb = {},
                    std::vector<int64_t> rb = {}) {
  xla::DotDimensionNumbers dn;
  for (int64_t d : lc) dn.add_lhs_contracting_dimensions(d);
  for (int64_t d : rc) dn.add_rhs_contracting_dimensions(d);
  for (int64_t d : lb) dn.add_lhs_batch_dimensions(d);
  for (int64_t d : rb) dn.add_rhs_batch_dimensions(d);
  return dn.SerializeAsString();
}

NodeDef DotNode(const std::string& dims, const std::string& precision = "") {
  NodeDef node =
      TestNodeBuilder("dot", "XlaDot", 2).Attr("T", DT_FLOAT).Build();
  (*node.mutable_attr())["dimension_numbers"].set_s(dims);
  (*node.mutable_attr())["precision_config"].set_s(precision);
  return node;
}

TEST_CASE("Every xla1 op has TensorFlow 2.21's signature and CPU types",
          "[xla1]") {
  testing::CheckSignaturesWithTensorFlow("xla1", 18);
}

TEST_CASE("XlaDot's shape function puts batch, lhs and rhs dims in order",
          "[xla1]") {
  const NodeDef dot = DotNode(DotDims({2}, {1}, {0}, {0}));
  CHECK(Str(InferShape(dot, {PartialShape::Known({2, 3, 4}),
                             PartialShape::Known({2, 4, 5})})) == "[2,3,5]");
  CHECK(Str(InferShape(dot, {PartialShape::Known({-1, 3, 4}),
                             PartialShape::Known({2, 4, -1})})) == "[2,3,?]");
  CHECK(Str(InferShape(dot, {PartialShape::Unknown(),
                             PartialShape::Known({2, 4, 5})})) == "<unknown>");
  CHECK_THAT(InferShape(dot, {PartialShape::Known({2, 3, 4}),
                              PartialShape::Known({2, 3, 5})})
                 .status(),
             StatusIs(absl::StatusCode::kInvalidArgument, "node 'dot'"));
  // A dimension number beyond the rank: TensorFlow's shape function
  // reads out of bounds; dfx's refuses it.
  CHECK_THAT(
      InferShape(DotNode(DotDims({3}, {1})),
                 {PartialShape::Known({2, 3}), PartialShape::Known({3, 2})})
          .status(),
      StatusIs(absl::StatusCode::kInvalidArgument));
}

TEST_CASE("XlaPad and XlaDynamicSlice shapes come from constant inputs",
          "[xla1]") {
  const NodeDef pad = TestNodeBuilder("pad", "XlaPad", 5)
                          .Attr("T", DT_FLOAT)
                          .Attr("Tindices", DT_INT32)
                          .Build();
  auto shapes = testing::InferShapes(
      pad,
      {PartialShape::Known({2, 3}), PartialShape::Scalar(),
       PartialShape::Known({2}), PartialShape::Known({2}),
       PartialShape::Known({2})},
      {Tensor(), Tensor(), Ints({1, -1}), Ints({0, 2}), Ints({1, 0})});
  REQUIRE(shapes.ok());
  CHECK((*shapes)[0].DebugString() == "[4,4]");
  // Paddings not constant: the rank only.
  CHECK(
      Str(InferShape(pad, {PartialShape::Known({2, 3}), PartialShape::Scalar(),
                           PartialShape::Known({2}), PartialShape::Known({2}),
                           PartialShape::Known({2})})) == "[?,?]");
  CHECK_THAT(
      InferShape(pad, {PartialShape::Known({2, 3}), PartialShape::Known({1}),
                       PartialShape::Known({2}), PartialShape::Known({2}),
                       PartialShape::Known({2})})
          .status(),
      StatusIs(absl::StatusCode::kInvalidArgument, "scalar"));

  const NodeDef ds = TestNodeBuilder("ds", "XlaDynamicSlice", 3)
                         .Attr("T", DT_FLOAT)
                         .Attr("Tindices", DT_INT32)
                         .Build();
  auto sliced =
      testing::InferShapes(ds,
                           {PartialShape::Known({4, 5}),
                            PartialShape::Known({2}), PartialShape::Known({2})},
                           {Tensor(), Tensor(), Ints({2, 3})});
  REQUIRE(sliced.ok());
  CHECK((*sliced)[0].DebugString() == "[2,3]");
  CHECK(
      Str(InferShape(ds, {PartialShape::Known({4, 5}), PartialShape::Known({2}),
                          PartialShape::Known({2})})) == "[?,?]");
  CHECK_THAT(
      InferShape(ds, {PartialShape::Known({4, 5}), PartialShape::Known({2}),
                      PartialShape::Known({2, 1})})
          .status(),
      StatusIs(absl::StatusCode::kInvalidArgument, "1D"));
}

TEST_CASE("Malformed xla proto attrs are InvalidArgument naming the node",
          "[xla1]") {
  const Tensor a = Floats({1, 2}, TensorShape({1, 2}));
  const Tensor b = Floats({3, 4}, TensorShape({2, 1}));
  auto good = RunKernel(DotNode(DotDims({1}, {0})), {a, b});
  REQUIRE(good.ok());
  CHECK((*good)[0].data<float>()[0] == 11.0f);
  // TensorFlow answers Unknown from its MLIR bridge for these.
  CHECK_THAT(RunKernel(DotNode(std::string("\xff\xff", 2)), {a, b}).status(),
             StatusIs(absl::StatusCode::kInvalidArgument,
                      "node 'dot' (op XlaDot): attr 'dimension_numbers'"));
  CHECK_THAT(
      RunKernel(DotNode(DotDims({1}, {0}), std::string("\xff\xff", 2)), {a, b})
          .status(),
      StatusIs(absl::StatusCode::kInvalidArgument, "precision_config"));

  NodeDef gather = TestNodeBuilder("g", "XlaGather", 3)
                       .Attr("T", DT_FLOAT)
                       .Attr("Tindices", DT_INT32)
                       .Attr("indices_are_sorted", false)
                       .Build();
  (*gather.mutable_attr())["dimension_numbers"].set_s(
      std::string("\x0a\x05", 2));  // a packed field cut short
  CHECK_THAT(RunKernel(gather, {a, Ints({0}), Ints({1, 2})}).status(),
             StatusIs(absl::StatusCode::kInvalidArgument, "node 'g'"));
}

TEST_CASE("XlaDot refuses dimension numbers on which TensorFlow crashes",
          "[xla1]") {
  const Tensor a = Floats({1, 2, 3, 4, 5, 6}, TensorShape({2, 3}));
  const Tensor b = Floats({1, 2, 3, 4, 5, 6}, TensorShape({3, 2}));
  // TensorFlow 2.21 segfaults on a contracting dimension beyond the rank.
  CHECK_THAT(RunKernel(DotNode(DotDims({2}, {0})), {a, b}).status(),
             StatusIs(absl::StatusCode::kInvalidArgument,
                      "out of range for an operand of rank 2"));
  CHECK_THAT(
      RunKernel(DotNode(DotDims({-1}, {0})), {a, b}).status(),
      StatusIs(absl::StatusCode::kInvalidArgument, "lhs dimension number -1"));
  // The executor puts the node's name before a kernel's compute errors.
}

std::string ConvDims2d() {
  xla::ConvolutionDimensionNumbers dn;  // NHWC input and output, HWIO kernel
  dn.set_input_batch_dimension(0);
  dn.set_input_feature_dimension(3);
  dn.add_input_spatial_dimensions(1);
  dn.add_input_spatial_dimensions(2);
  dn.set_kernel_input_feature_dimension(2);
  dn.set_kernel_output_feature_dimension(3);
  dn.add_kernel_spatial_dimensions(0);
  dn.add_kernel_spatial_dimensions(1);
  dn.set_output_batch_dimension(0);
  dn.set_output_feature_dimension(3);
  dn.add_output_spatial_dimensions(1);
  dn.add_output_spatial_dimensions(2);
  return dn.SerializeAsString();
}

absl::Status RunConv(const TensorShape& lhs, const TensorShape& rhs,
                     const std::vector<int32_t>& strides, int32_t groups) {
  NodeDef node = TestNodeBuilder("conv", "XlaConv", 7)
                     .Attr("T", DT_FLOAT)
                     .Attr("Tindices", DT_INT32)
                     .Build();
  (*node.mutable_attr())["dimension_numbers"].set_s(ConvDims2d());
  (*node.mutable_attr())["precision_config"].set_s("");
  Tensor l(DT_FLOAT, lhs);
  Tensor r(DT_FLOAT, rhs);
  for (int64_t i = 0; i < l.NumElements(); ++i) l.data<float>()[i] = 1;
  for (int64_t i = 0; i < r.NumElements(); ++i) r.data<float>()[i] = 1;
  Tensor padding =
      Tensor::FromVector<int32_t>({0, 0, 0, 0}, TensorShape({2, 2}));
  return RunKernel(node, {l, r, Ints(strides), padding, Ints({1, 1}),
                          Ints({1, 1}), Tensor::Scalar<int32_t>(groups)})
      .status();
}

TEST_CASE(
    "XlaConv's shape errors are InvalidArgument where TensorFlow says "
    "Unknown or aborts",
    "[xla1]") {
  CHECK(RunConv(TensorShape({1, 3, 3, 2}), TensorShape({2, 2, 2, 3}), {1, 1}, 1)
            .ok());
  // Input features 3, kernel input features 2 (TensorFlow: Unknown).
  CHECK_THAT(
      RunConv(TensorShape({1, 3, 3, 3}), TensorShape({2, 2, 2, 2}), {1, 1}, 1),
      StatusIs(absl::StatusCode::kInvalidArgument, "features"));
  // 3 output features in 2 groups (TensorFlow: Unknown).
  CHECK_THAT(
      RunConv(TensorShape({1, 3, 3, 4}), TensorShape({2, 2, 2, 3}), {1, 1}, 2),
      StatusIs(absl::StatusCode::kInvalidArgument, "multiple"));
  // One stride for two spatial dims (TensorFlow aborts).
  CHECK_THAT(
      RunConv(TensorShape({1, 3, 3, 2}), TensorShape({2, 2, 2, 3}), {1}, 1),
      StatusIs(absl::StatusCode::kInvalidArgument, "window_strides"));
  CHECK_THAT(
      RunConv(TensorShape({1, 3, 3, 2}), TensorShape({2, 2, 2, 3}), {0, 1}, 1),
      StatusIs(absl::StatusCode::kInvalidArgument, "positive"));
}

TEST_CASE("XlaScatter without its update_computation is InvalidArgument",
          "[xla1]") {
  NodeDef node = TestNodeBuilder("s", "XlaScatter", 3)
                     .Attr("T", DT_FLOAT)
                     .Attr("Tindices", DT_INT32)
                     .Attr("indices_are_sorted", false)
                     .Build();
  (*node.mutable_attr())["dimension_numbers"].set_s("");
  (*node.mutable_attr())["update_computation"].mutable_func()->set_name("add");
  CHECK_THAT(RunKernel(node, {Floats({1, 2}, TensorShape({2})), Ints({0}),
                              Floats({1}, TensorShape({}))})
                 .status(),
             StatusIs(absl::StatusCode::kInvalidArgument, "node 's'"));
}

TEST_CASE(
    "XlaSpmdShardToFullShape on one device takes a shard that is the whole "
    "tensor",
    "[xla1]") {
  TensorShapeProto full;
  full.add_dim()->set_size(2);
  full.add_dim()->set_size(3);
  NodeDef node = TestNodeBuilder("s2f", "XlaSpmdShardToFullShape", 1)
                     .Attr("T", DT_FLOAT)
                     .Attr("manual_sharding", "")
                     .Attr("full_shape", full)
                     .Build();
  CHECK(Str(InferShape(node, {PartialShape::Unknown()})) == "[2,3]");
  CHECK(
      RunKernel(node, {Floats({1, 2, 3, 4, 5, 6}, TensorShape({2, 3}))}).ok());
  // TensorFlow: Internal from its sharding remover.
  CHECK_THAT(RunKernel(node, {Floats({1, 2, 3}, TensorShape({1, 3}))}).status(),
             StatusIs(absl::StatusCode::kInvalidArgument, "full_shape"));
}

TEST_CASE("XlaDequantize refuses a scalar, on which TensorFlow crashes",
          "[xla1]") {
  const NodeDef node = TestNodeBuilder("dq", "XlaDequantize", 1)
                           .Attr("min_range", 0.0f)
                           .Attr("max_range", 1.0f)
                           .Attr("mode", "MIN_COMBINED")
                           .Attr("transpose_output", false)
                           .Build();
  CHECK_THAT(RunKernel(node, {Tensor::Scalar<uint32_t>(5)}).status(),
             StatusIs(absl::StatusCode::kInvalidArgument, "rank 1"));
  auto out = RunKernel(node, {Tensor::FromVector<uint32_t>({0xff000100u})});
  REQUIRE(out.ok());
  REQUIRE((*out)[0].NumElements() == 4);
  CHECK(static_cast<float>((*out)[0].data<Eigen::bfloat16>()[0]) == 1.0f);
  CHECK(static_cast<float>((*out)[0].data<Eigen::bfloat16>()[1]) == 0.0f);
}

TEST_CASE(
    "XlaSvd and XlaSelfAdjointEig refuse what TensorFlow aborts on or gets "
    "wrong",
    "[xla1]") {
  const NodeDef svd = TestNodeBuilder("svd", "XlaSvd", 1)
                          .Attr("T", DT_FLOAT)
                          .Attr("max_iter", 100)
                          .Attr("epsilon", 1e-6f)
                          .Attr("precision_config", "")
                          .Build();
  // TensorFlow 2.21 aborts on a vector.
  CHECK_THAT(RunKernel(svd, {Floats({1, 2, 3}, TensorShape({3}))}).status(),
             StatusIs(absl::StatusCode::kInvalidArgument, "matrices"));
  auto out = RunKernel(svd, {Floats({3, 0, 0, -2}, TensorShape({2, 2}))});
  REQUIRE(out.ok());
  CHECK((*out)[0].data<float>()[0] == 3.0f);
  CHECK((*out)[0].data<float>()[1] == 2.0f);
  // TensorFlow's complex eigenvalues of the identity are [1+1j, 0].
  const NodeDef eig = TestNodeBuilder("eig", "XlaSelfAdjointEig", 1)
                          .Attr("T", DT_COMPLEX64)
                          .Attr("lower", true)
                          .Attr("max_iter", 100)
                          .Attr("epsilon", 1e-6f)
                          .Build();
  Tensor c(DT_COMPLEX64, TensorShape({1, 1}));
  c.data<std::complex<float>>()[0] = 1;
  CHECK_THAT(RunKernel(eig, {c}).status(),
             StatusIs(absl::StatusCode::kInvalidArgument, "real"));
}

TEST_CASE("XlaPad refuses paddings whose sizes would overflow", "[xla1]") {
  const NodeDef pad = TestNodeBuilder("pad", "XlaPad", 5)
                          .Attr("T", DT_FLOAT)
                          .Attr("Tindices", DT_INT64)
                          .Build();
  auto i64 = [](int64_t v) { return Tensor::FromVector<int64_t>({v}); };
  const Tensor x = Floats({1, 2}, TensorShape({2}));
  const Tensor zero = Tensor::Scalar<float>(0);
  CHECK_THAT(
      RunKernel(pad, {x, zero, i64(0), i64(0), i64(int64_t{1} << 62)}).status(),
      StatusIs(absl::StatusCode::kInvalidArgument, "too large"));
  auto out = RunKernel(pad, {x, zero, i64(-1), i64(1), i64(2)});
  REQUIRE(out.ok());
  CHECK((*out)[0].NumElements() == 4);  // 2 + 2 interior - 1 + 1
}

TEST_CASE("XlaEinsum checks the sizes TensorFlow does not", "[xla1]") {
  NodeDef node = TestNodeBuilder("e", "XlaEinsum", 2)
                     .Attr("T", DT_FLOAT)
                     .Attr("equation", "ab,bc->ac")
                     .Build();
  // TensorFlow 2.21 returns numbers read past the smaller dim.
  CHECK_THAT(
      RunKernel(node, {Floats({1, 2, 3, 4, 5, 6}, TensorShape({2, 3})),
                       Floats(std::vector<float>(16, 1), TensorShape({4, 4}))})
          .status(),
      StatusIs(absl::StatusCode::kInvalidArgument));
  CHECK(Str(InferShape(node, {PartialShape::Known({2, 3}),
                              PartialShape::Known({3, -1})})) == "[2,?]");
  NodeDef three = TestNodeBuilder("e3", "XlaEinsum", 2)
                      .Attr("T", DT_FLOAT)
                      .Attr("equation", "a->a")
                      .Build();
  CHECK_THAT(
      InferShape(three, {PartialShape::Known({2}), PartialShape::Known({2})})
          .status(),
      StatusIs(absl::StatusCode::kInvalidArgument, "Expected one"));
}

}  // namespace
}  // namespace dfx
