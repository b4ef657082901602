// The qfused family's ops (tests/golden/gen_qfused.py: TensorFlow's fused
// quantized convolutions and matmuls): TensorFlow 2.21's signatures and
// CPU kernel types, the shape functions, errors that name the node, and
// the inputs on which TensorFlow aborts or writes out of bounds, where dfx
// says InvalidArgument.
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
using testing::InferShapes;
using testing::RunKernel;
using testing::StatusIs;
using testing::TestNodeBuilder;

std::string Str(const absl::StatusOr<PartialShape>& s) {
  return s.ok() ? s->DebugString() : s.status().ToString();
}

Tensor Quint8(const TensorShape& shape) {
  Tensor t(DT_QUINT8, shape);
  for (int64_t i = 0; i < t.NumElements(); ++i) {
    t.data<quint8>()[i] = quint8((1 + i) % 7);
  }
  return t;
}

Tensor Qint8(const TensorShape& shape) {
  Tensor t(DT_QINT8, shape);
  for (int64_t i = 0; i < t.NumElements(); ++i) {
    t.data<qint8>()[i] = qint8(static_cast<int32_t>(i % 5) - 2);
  }
  return t;
}

Tensor F(float v) { return Tensor::Scalar<float>(v); }

NodeDef ConvNode(const char* op, DataType out) {
  return TestNodeBuilder("qconv", op, 9)
      .Attr("Tinput", DT_QUINT8)
      .Attr("Tfilter", DT_QINT8)
      .Attr("Tbias", DT_FLOAT)
      .Attr("out_type", out)
      .Attr("strides", std::vector<int64_t>{1, 1, 1, 1})
      .Attr("padding", "VALID")
      .Build();
}

PartialShape Known(std::vector<int64_t> dims) {
  return PartialShape::Known(std::move(dims));
}

TEST_CASE("Every qfused op has TensorFlow 2.21's signature and CPU types",
          "[qfused]") {
  testing::CheckSignaturesWithTensorFlow("qfused", 20);
}

TEST_CASE(
    "Qfused shape functions give Conv2D's, DepthwiseConv2dNative's and "
    "MatMul's output, per-channel output ranges and check range ranks",
    "[qfused]") {
  const NodeDef conv = TestNodeBuilder("c", "QuantizedConv2DWithBias", 7)
                           .Attr("Tinput", DT_QUINT8)
                           .Attr("Tfilter", DT_QINT8)
                           .Attr("strides", std::vector<int64_t>{1, 1, 1, 1})
                           .Attr("padding", "SAME")
                           .Build();
  const PartialShape s = PartialShape::Scalar();
  auto out = InferShapes(conv, {Known({1, 5, 5, 2}), Known({3, 3, 2, 3}),
                                Known({3}), s, s, Known({3}), Known({3})});
  REQUIRE(out.ok());
  CHECK((*out)[0].DebugString() == "[1,5,5,3]");
  CHECK((*out)[1].DebugString() == "[3]");
  CHECK((*out)[2].DebugString() == "[3]");
  CHECK_THAT(InferShape(conv, {Known({1, 5, 5, 2}), Known({3, 3, 2, 3}),
                               Known({3}), Known({1}), s, s, s})
                 .status(),
             StatusIs(absl::StatusCode::kInvalidArgument, "node 'c'"));
  CHECK_THAT(InferShape(conv, {Known({1, 5, 5, 2}), Known({3, 3, 2, 3}),
                               Known({3}), s, s, Known({1, 1}), s})
                 .status(),
             StatusIs(absl::StatusCode::kInvalidArgument, "at most rank 1"));
  const NodeDef req = TestNodeBuilder("r", "QuantizedConv2DAndRequantize", 8)
                          .Attr("Tinput", DT_QUINT8)
                          .Attr("Tfilter", DT_QINT8)
                          .Attr("strides", std::vector<int64_t>{1, 2, 2, 1})
                          .Attr("padding", "VALID")
                          .Build();
  out = InferShapes(
      req, {Known({1, 5, 5, 2}), Known({3, 3, 2, 3}), s, s, s, s, s, s});
  REQUIRE(out.ok());
  CHECK((*out)[0].DebugString() == "[1,2,2,3]");
  CHECK((*out)[1].DebugString() == "[]");
  CHECK_THAT(InferShape(req, {Known({1, 5, 5, 2}), Known({3, 3, 2, 3}), s, s,
                              Known({3}), s, s, s})
                 .status(),
             StatusIs(absl::StatusCode::kInvalidArgument, "rank 0"));
  const NodeDef dw = TestNodeBuilder("d", "QuantizedDepthwiseConv2D", 6)
                         .Attr("Tinput", DT_QUINT8)
                         .Attr("Tfilter", DT_QINT8)
                         .Attr("strides", std::vector<int64_t>{1, 1, 1, 1})
                         .Attr("padding", "SAME")
                         .Build();
  CHECK(Str(InferShape(dw, {Known({1, 5, 5, 2}), Known({3, 3, 2, 3}), s, s, s,
                            s})) == "[1,5,5,6]");
  const NodeDef mm = TestNodeBuilder("m", "QuantizedMatMulWithBias", 7)
                         .Attr("T1", DT_QUINT8)
                         .Attr("T2", DT_QINT8)
                         .Attr("Tbias", DT_FLOAT)
                         .Attr("transpose_b", true)
                         .Build();
  CHECK(Str(InferShape(mm, {Known({2, 3}), Known({4, 3}), Known({4}), s, s, s,
                            s})) == "[2,4]");
  CHECK_THAT(
      InferShape(mm, {Known({2, 3}), Known({4, 3}), s, s, s, s, s}).status(),
      StatusIs(absl::StatusCode::kInvalidArgument, "node 'm'"));
}

TEST_CASE(
    "Qfused kernels say InvalidArgument where TensorFlow aborts or writes "
    "out of bounds",
    "[qfused]") {
  const Tensor x = Quint8(TensorShape({1, 3, 3, 2}));
  const Tensor w = Qint8(TensorShape({2, 2, 2, 3}));
  const Tensor bias = Tensor::FromVector<float>({0.5f, -1.0f, 2.0f});
  const NodeDef req =
      ConvNode("QuantizedConv2DWithBiasAndRequantize", DT_QINT8);
  // Well formed: runs.
  auto ok = RunKernel(req, {x, w, bias, F(0), F(6), F(-1), F(1), F(-5), F(5)});
  REQUIRE(ok.ok());
  CHECK((*ok)[0].shape() == TensorShape({1, 2, 2, 3}));
  // A rank-3 input: TensorFlow asks for a fourth dimension (a failed CHECK).
  CHECK_THAT(RunKernel(req, {Quint8(TensorShape({3, 3, 2})), w, bias, F(0),
                             F(6), F(-1), F(1), F(-5), F(5)})
                 .status(),
             StatusIs(absl::StatusCode::kInvalidArgument,
                      "input must be 4-dimensional: [3,3,2]"));
  // A non-scalar input range or frozen output range: TensorFlow reads it
  // as a scalar (a failed CHECK).
  CHECK_THAT(RunKernel(req, {x, w, bias, Tensor::FromVector<float>({0}), F(6),
                             F(-1), F(1), F(-5), F(5)})
                 .status(),
             StatusIs(absl::StatusCode::kInvalidArgument,
                      "`min_input` must be rank 0"));
  CHECK_THAT(RunKernel(req, {x, w, bias, F(0), F(6), F(-1), F(1),
                             Tensor::FromVector<float>({-5}), F(5)})
                 .status(),
             StatusIs(absl::StatusCode::kInvalidArgument,
                      "`min_freezed_output` must be rank 0"));
  // Per-channel ranges of the wrong length: TensorFlow reads past them.
  CHECK_THAT(RunKernel(req, {x, w, bias, F(0), F(6),
                             Tensor::FromVector<float>({-1, -1}),
                             Tensor::FromVector<float>({1, 1}), F(-5), F(5)})
                 .status(),
             StatusIs(absl::StatusCode::kInvalidArgument, "2 values for 3"));
  // A summand whose shape is not the output's: TensorFlow makes it the
  // output buffer and oneDNN writes past it.
  const NodeDef sum =
      TestNodeBuilder("qsum", "QuantizedConv2DWithBiasSumAndRelu", 8)
          .Attr("Tinput", DT_QUINT8)
          .Attr("Tfilter", DT_QINT8)
          .Attr("strides", std::vector<int64_t>{1, 1, 1, 1})
          .Attr("padding", "VALID")
          .Build();
  CHECK_THAT(RunKernel(sum, {x, w, bias, F(0), F(6), F(-1), F(1),
                             Tensor(DT_FLOAT, TensorShape({1, 2, 2, 2}))})
                 .status(),
             StatusIs(absl::StatusCode::kInvalidArgument,
                      "is not the output's [1,2,2,3]"));
}

TEST_CASE(
    "QuantizedMatMulWithBias is Aborted, as TensorFlow's oneDNN kernel, when "
    "the inner dimensions or the bias length do not match",
    "[qfused]") {
  const NodeDef mm = TestNodeBuilder("qmm", "QuantizedMatMulWithBias", 7)
                         .Attr("T1", DT_QUINT8)
                         .Attr("T2", DT_QINT8)
                         .Attr("Tbias", DT_FLOAT)
                         .Build();
  const Tensor a = Quint8(TensorShape({2, 3}));
  const Tensor bias = Tensor::FromVector<float>({1, 2, 3, 4});
  auto ok = RunKernel(
      mm, {a, Qint8(TensorShape({3, 4})), bias, F(-1), F(2), F(-1), F(1)});
  REQUIRE(ok.ok());
  CHECK((*ok)[0].shape() == TensorShape({2, 4}));
  CHECK_THAT(RunKernel(mm, {a, Qint8(TensorShape({4, 4})), bias, F(-1), F(2),
                            F(-1), F(1)})
                 .status(),
             StatusIs(absl::StatusCode::kAborted, "[2,3] and [4,4]"));
  CHECK_THAT(RunKernel(mm, {a, Qint8(TensorShape({3, 4})),
                            Tensor::FromVector<float>({1, 2, 3}), F(-1), F(2),
                            F(-1), F(1)})
                 .status(),
             StatusIs(absl::StatusCode::kAborted, "primitive descriptor"));
}

}  // namespace
}  // namespace dfx
