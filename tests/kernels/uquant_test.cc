// The uquant family's ops (tests/golden/gen_uquant.py: TensorFlow's uniform
// quantized ops): TensorFlow 2.21's signatures and CPU kernel types, the
// shape functions, errors that name the node, and the inputs on which
// TensorFlow aborts or reads out of bounds, where dfx says InvalidArgument.
#include <cstdint>
#include <string>
#include <vector>

#include "catch2/catch.hpp"
#include "graph/node_def_util.h"
#include "graph/op_registry.h"
#include "runtime/quantized_types.h"
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

Tensor Qint32(const std::vector<int32_t>& v, const TensorShape& shape) {
  Tensor t(DT_QINT32, shape);
  for (size_t i = 0; i < v.size(); ++i) t.data<qint32>()[i] = qint32(v[i]);
  return t;
}

Tensor Floats(const std::vector<float>& v) {
  return Tensor::FromVector<float>(v);
}
Tensor Ints(const std::vector<int32_t>& v) {
  return Tensor::FromVector<int32_t>(v);
}

NodeDef AddNode(int lhs_axis, int rhs_axis, int out_axis) {
  TestNodeBuilder b("add", "UniformQuantizedAdd", 8);
  b.Attr("T", DT_QINT32)
      .Attr("lhs_quantization_axis", lhs_axis)
      .Attr("rhs_quantization_axis", rhs_axis)
      .Attr("output_quantization_axis", out_axis);
  for (const char* side : {"lhs", "rhs", "output"}) {
    b.Attr(std::string(side) + "_quantization_min_val", -1000)
        .Attr(std::string(side) + "_quantization_max_val", 1000);
  }
  return b.Build();
}

TEST_CASE("Every uquant op has TensorFlow 2.21's signature and CPU types",
          "[uquant]") {
  testing::CheckSignaturesWithTensorFlow("uquant", 12);
}

TEST_CASE(
    "Uquant shape functions keep, broadcast or multiply shapes and check "
    "the ranks of scales and zero points",
    "[uquant]") {
  const NodeDef q = TestNodeBuilder("q", "UniformQuantize", 3)
                        .Attr("Tin", DT_FLOAT)
                        .Attr("Tout", DT_QINT8)
                        .Attr("quantization_min_val", -128)
                        .Attr("quantization_max_val", 127)
                        .Build();
  CHECK(
      Str(InferShape(q, {PartialShape::Known({2, 3}), PartialShape::Known({3}),
                         PartialShape::Known({3})})) == "[2,3]");
  CHECK_THAT(
      InferShape(q, {PartialShape::Known({2, 3}), PartialShape::Known({1, 3}),
                     PartialShape::Known({1, 3})})
          .status(),
      StatusIs(absl::StatusCode::kInvalidArgument, "node 'q'"));
  CHECK_THAT(InferShape(q, {PartialShape::Known({2, 3}), PartialShape::Scalar(),
                            PartialShape::Known({3})})
                 .status(),
             StatusIs(absl::StatusCode::kInvalidArgument, "same rank"));

  std::vector<PartialShape> add_inputs(8, PartialShape::Scalar());
  add_inputs[0] = PartialShape::Known({2, 1});
  add_inputs[1] = PartialShape::Known({1, 3});
  CHECK(Str(InferShape(AddNode(-1, -1, -1), add_inputs)) == "[2,3]");

  const NodeDef dot = TestNodeBuilder("d", "UniformQuantizedDotHybrid", 4)
                          .Attr("Tlhs", DT_FLOAT)
                          .Attr("Trhs", DT_QINT8)
                          .Attr("Tout", DT_FLOAT)
                          .Attr("rhs_quantization_min_val", -128)
                          .Attr("rhs_quantization_max_val", 127)
                          .Build();
  CHECK(Str(InferShape(
            dot, {PartialShape::Known({5, 4}), PartialShape::Known({4, 7}),
                  PartialShape::Scalar(), PartialShape::Scalar()})) == "[5,7]");
  CHECK_THAT(
      InferShape(dot, {PartialShape::Known({5, 4}), PartialShape::Known({3, 7}),
                       PartialShape::Scalar(), PartialShape::Scalar()})
          .status(),
      StatusIs(absl::StatusCode::kInvalidArgument));
  CHECK_THAT(
      InferShape(dot, {PartialShape::Known({5}), PartialShape::Known({5, 7}),
                       PartialShape::Scalar(), PartialShape::Scalar()})
          .status(),
      StatusIs(absl::StatusCode::kInvalidArgument));
}

// Construction errors carry the node's name from the kernel registry;
// Compute's errors get it from the executor (golden cases run those).
TEST_CASE("Uquant kernel errors carry TensorFlow's codes and messages",
          "[uquant]") {
  const NodeDef bad_axis = TestNodeBuilder("quant", "UniformQuantize", 3)
                               .Attr("Tin", DT_FLOAT)
                               .Attr("Tout", DT_QINT8)
                               .Attr("quantization_axis", -2)
                               .Attr("quantization_min_val", -128)
                               .Attr("quantization_max_val", 127)
                               .Build();
  CHECK_THAT(
      RunKernel(bad_axis, {Floats({1, 2}), Floats({1}), Ints({0})}).status(),
      StatusIs(absl::StatusCode::kInvalidArgument,
               "node 'quant' (op UniformQuantize): quantization_axis must be "
               ">= -1, given: -2"));
  const NodeDef q = TestNodeBuilder("quant", "UniformQuantize", 3)
                        .Attr("Tin", DT_FLOAT)
                        .Attr("Tout", DT_QINT8)
                        .Attr("quantization_axis", 1)
                        .Attr("quantization_min_val", -128)
                        .Attr("quantization_max_val", 127)
                        .Build();
  CHECK_THAT(RunKernel(q, {Floats({1, 2}), Floats({1}), Ints({0})}).status(),
             StatusIs(absl::StatusCode::kInvalidArgument,
                      "quantization_axis must be -1 or in range [0, "
                      "input.rank), but given 1"));
  const NodeDef deq = TestNodeBuilder("deq", "UniformDequantize", 3)
                          .Attr("Tin", DT_QINT32)
                          .Attr("Tout", DT_FLOAT)
                          .Attr("quantization_min_val", -128)
                          .Attr("quantization_max_val", 127)
                          .Build();
  CHECK_THAT(
      RunKernel(deq, {Qint32({1}, TensorShape({1})),
                      Tensor::Scalar<float>(-1.0f), Tensor::Scalar<int32_t>(0)})
          .status(),
      StatusIs(absl::StatusCode::kInvalidArgument,
               "rhs scales elements must be all positive."));
}

TEST_CASE(
    "UniformQuantizedAdd is InvalidArgument where TensorFlow aborts or "
    "reads out of bounds",
    "[uquant]") {
  const Tensor lhs = Qint32({1, 2, 3, 4, 5, 6}, TensorShape({2, 3}));
  const Tensor one = Tensor::Scalar<float>(1.0f);
  const Tensor zero = Tensor::Scalar<int32_t>(0);
  // A per-tensor lhs with a per-axis output: TensorFlow reads the output's
  // scale vector as a scalar (a failed CHECK).
  CHECK_THAT(RunKernel(AddNode(-1, -1, 1), {lhs, lhs, one, zero, one, zero,
                                            Floats({1, 1, 1}), Ints({0, 0, 0})})
                 .status(),
             StatusIs(absl::StatusCode::kInvalidArgument, "TensorFlow"));
  // A per-tensor rhs of rank 1 with the output's axis 1: TensorFlow asks
  // the rhs for a dim it lacks (a failed CHECK).
  const Tensor row = Qint32({1, 2, 3}, TensorShape({3}));
  CHECK_THAT(RunKernel(AddNode(1, -1, 1),
                       {lhs, row, Floats({1, 1, 1}), Ints({0, 0, 0}), one, zero,
                        Floats({1, 1, 1}), Ints({0, 0, 0})})
                 .status(),
             StatusIs(absl::StatusCode::kInvalidArgument, "TensorFlow"));
  // ... and with the output's axis 0, more rhs slices along its own axis 0
  // than the output has scales (TensorFlow reads past them).
  CHECK_THAT(
      RunKernel(AddNode(0, -1, 0), {lhs, row, Floats({1, 1}), Ints({0, 0}), one,
                                    zero, Floats({1, 1}), Ints({0, 0})})
          .status(),
      StatusIs(absl::StatusCode::kInvalidArgument, "TensorFlow"));
  // The same operands with both per tensor add as TensorFlow does.
  auto sum = RunKernel(AddNode(-1, -1, -1),
                       {lhs, row, one, zero, one, zero, one, zero});
  REQUIRE(sum.ok());
  const qint32* s = (*sum)[0].data<qint32>();
  CHECK(s[0].value == 2);
  CHECK(s[5].value == 9);
}

TEST_CASE(
    "RequantizePerChannel is InvalidArgument where TensorFlow aborts or "
    "reads out of bounds",
    "[uquant]") {
  const NodeDef node = TestNodeBuilder("rpc", "RequantizePerChannel", 5)
                           .Attr("T", DT_QINT32)
                           .Attr("out_type", DT_QUINT8)
                           .Build();
  const Tensor mins = Floats({-1, -1});
  const Tensor maxs = Floats({1, 1});
  const Tensor lo = Tensor::Scalar<float>(-1.0f);
  const Tensor hi = Tensor::Scalar<float>(1.0f);
  // An empty input (TensorFlow's oneDNN reorder aborts).
  CHECK_THAT(RunKernel(node, {Qint32({}, TensorShape({0, 1, 1, 2})), mins, maxs,
                              lo, hi})
                 .status(),
             StatusIs(absl::StatusCode::kInvalidArgument, "TensorFlow"));
  // More channels than scales (TensorFlow reads past them).
  CHECK_THAT(RunKernel(node, {Qint32({1, 2, 3}, TensorShape({1, 1, 1, 3})),
                              mins, maxs, lo, hi})
                 .status(),
             StatusIs(absl::StatusCode::kInvalidArgument, "TensorFlow"));
  // An empty requested_output_max, which TensorFlow reads unchecked.
  CHECK_THAT(RunKernel(node, {Qint32({1, 2}, TensorShape({1, 1, 1, 2})), mins,
                              maxs, lo, Floats({})})
                 .status(),
             StatusIs(absl::StatusCode::kInvalidArgument,
                      "requested_output_max must be a scalar"));
  // Two channels: levels times 255 / 2^31, rounded half to even.
  auto out = RunKernel(node, {Qint32({1 << 30, -5}, TensorShape({1, 1, 1, 2})),
                              mins, maxs, lo, hi});
  REQUIRE(out.ok());
  CHECK((*out)[0].data<quint8>()[0].value == 128);
  CHECK((*out)[0].data<quint8>()[1].value == 0);
}

TEST_CASE(
    "UniformQuantizedConvolution is InvalidArgument for dimension numbers "
    "that repeat a dimension and an empty rhs input feature dimension",
    "[uquant]") {
  auto node = [](const std::string& dims) {
    TestNodeBuilder b("conv", "UniformQuantizedConvolution", 8);
    b.Attr("Tin", DT_QINT8).Attr("Tout", DT_QINT32).Attr("padding", "VALID");
    for (const char* side : {"lhs", "rhs", "output"}) {
      b.Attr(std::string(side) + "_quantization_min_val", -128)
          .Attr(std::string(side) + "_quantization_max_val", 127);
    }
    NodeDef def = b.Build();
    (*def.mutable_attr())["dimension_numbers"].set_s(dims);
    return def;
  };
  auto levels = [](const TensorShape& shape) {
    Tensor t(DT_QINT8, shape);
    for (int64_t i = 0; i < t.NumElements(); ++i) t.data<qint8>()[i] = qint8(1);
    return t;
  };
  const Tensor one = Tensor::Scalar<float>(1.0f);
  const Tensor zero = Tensor::Scalar<int32_t>(0);
  // input_batch_dimension 0 and input_feature_dimension 0 (field 1 unset,
  // field 2 = 0), spatial 2, 3 (field 3, packed); kernel and output spatial
  // 2, 3 (fields 6 and 9).
  const std::string repeated(
      "\x10\x00\x1a\x02\x02\x03\x28\x00\x20\x01"
      "\x32\x02\x02\x03\x38\x00\x40\x01"
      "\x4a\x02\x02\x03",
      22);
  CHECK_THAT(RunKernel(node(repeated), {levels(TensorShape({1, 1, 3, 3})),
                                        levels(TensorShape({1, 1, 2, 2})), one,
                                        zero, one, zero, one, zero})
                 .status(),
             StatusIs(absl::StatusCode::kInvalidArgument, "TensorFlow"));
  // Default dimension numbers, an rhs with no input features.
  CHECK_THAT(RunKernel(node(""), {levels(TensorShape({1, 0, 3, 3})),
                                  levels(TensorShape({1, 0, 2, 2})), one, zero,
                                  one, zero, one, zero})
                 .status(),
             StatusIs(absl::StatusCode::kInvalidArgument, "divides"));
  // The same convolution with a feature: 4 ones summed, scale 1.
  auto out = RunKernel(node(""), {levels(TensorShape({1, 1, 3, 3})),
                                  levels(TensorShape({1, 1, 2, 2})), one, zero,
                                  one, zero, one, zero});
  REQUIRE(out.ok());
  CHECK((*out)[0].shape() == TensorShape({1, 1, 2, 2}));
  CHECK((*out)[0].data<qint32>()[3].value == 4);
}

}  // namespace
}  // namespace dfx
