// The quantized family's ops (tests/golden/gen_quantized.py: Requantize,
// RequantizationRange, QuantizeDownAndShrinkRange, QuantizedMatMul,
// QuantizedConv2D, QuantizedBiasAdd, QuantizedRelu/Relu6, QuantizedAdd,
// QuantizedMul, QuantizedMaxPool/AvgPool, QuantizedConcat,
// QuantizedReshape, QuantizedBatchNormWithGlobalNormalization; and
// QuantizeAndDequantize v1): TensorFlow 2.21's signatures, the quantized type
// combinations its CPU kernels serve (which the golden signature files
// leave out), the shape functions, and the inputs on which TensorFlow
// aborts or leaves outputs unwritten, which the golden cases cannot hold.
#include <algorithm>
#include <cstdint>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "catch2/catch.hpp"
#include "graph/node_def_util.h"
#include "graph/op_registry.h"
#include "graph/types.h"
#include "kernels/kernels.h"
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

PartialShape S(std::vector<int64_t> dims) {
  return PartialShape::Known(std::move(dims));
}

Tensor Scalar(float v) {
  Tensor t(DT_FLOAT, TensorShape());
  t.data<float>()[0] = v;
  return t;
}

Tensor Levels(const TensorShape& shape, uint8_t fill) {
  Tensor t(DT_QUINT8, shape);
  for (int64_t i = 0; i < t.NumElements(); ++i) {
    t.data<quint8>()[i] = quint8{fill};
  }
  return t;
}

TEST_CASE("Every quantized op has TensorFlow 2.21's signature", "[quantized]") {
  testing::CheckSignaturesWithTensorFlow("quantized", 16);
}

// TensorFlow 2.21's CPU kernels (kernels.get_registered_kernels_for_op, with
// TF_ENABLE_ONEDNN_OPTS=0): the type attrs each one constrains. dfx leaves
// out QuantizedConv2D with a qint8 filter, whose TensorFlow kernel returns
// no output unless oneDNN's rewrite replaces it.
TEST_CASE("The quantized kernels serve TensorFlow's type combinations",
          "[quantized]") {
  const std::vector<std::pair<std::string, std::set<std::string>>> want = {
      {"Requantize",
       {"Tinput=qint32 out_type=qint8", "Tinput=qint32 out_type=quint8"}},
      {"RequantizationRange", {"Tinput=qint32"}},
      {"QuantizeDownAndShrinkRange", {"Tinput=qint32 out_type=quint8"}},
      {"QuantizedMatMul", {"T1=quint8 T2=quint8 Toutput=qint32"}},
      {"QuantizedConv2D", {"Tinput=quint8 Tfilter=quint8 out_type=qint32"}},
      {"QuantizedBiasAdd",
       {"T1=quint8 T2=quint8 out_type=qint32",
        "T1=qint8 T2=qint8 out_type=qint32"}},
      {"QuantizedRelu",
       {"Tinput=quint8 out_type=quint8", "Tinput=qint32 out_type=qint32"}},
      {"QuantizedRelu6",
       {"Tinput=quint8 out_type=quint8", "Tinput=qint32 out_type=qint32"}},
      {"QuantizedAdd", {"T1=quint8 T2=quint8 Toutput=qint32"}},
      {"QuantizedMul", {"T1=quint8 T2=quint8 Toutput=qint32"}},
      {"QuantizedMaxPool", {"T=quint8", "T=qint8"}},
      {"QuantizedAvgPool", {"T=quint8", "T=qint8"}},
      {"QuantizedConcat", {"T=quint8", "T=qint32"}},
      {"QuantizedReshape", {"T=quint8", "T=qint32"}},
      {"QuantizedBatchNormWithGlobalNormalization",
       {"Tinput=quint8 out_type=qint32"}},
  };
  for (const auto& [op, combos] : want) {
    std::set<std::string> got;
    for (const KernelDefBuilder& k :
         StandardKernelRegistry()->KernelDefsOf(op)) {
      if (k.device_type() != "CPU") continue;
      std::vector<std::string> parts;
      for (const auto& c : k.constraints()) {
        for (DataType t : c.allowed) {
          parts.push_back(absl::StrCat(c.attr, "=", DataTypeString(t)));
        }
      }
      std::sort(parts.begin(), parts.end());
      got.insert(absl::StrJoin(parts, " "));
    }
    std::set<std::string> sorted_want;
    for (const std::string& w : combos) {
      std::vector<std::string> parts = absl::StrSplit(w, ' ');
      std::sort(parts.begin(), parts.end());
      sorted_want.insert(absl::StrJoin(parts, " "));
    }
    INFO(op);
    CHECK(got == sorted_want);
  }
}

TEST_CASE("Quantized shape functions are the float ops' with scalar ranges",
          "[quantized]") {
  const NodeDef mm = TestNodeBuilder("mm", "QuantizedMatMul", 6)
                         .Attr("T1", DT_QUINT8)
                         .Attr("T2", DT_QUINT8)
                         .Attr("transpose_b", true)
                         .Build();
  const PartialShape s = PartialShape::Scalar();
  CHECK(Str(InferShape(mm, {S({2, 3}), S({4, 3}), s, s, s, s})) ==
        S({2, 4}).DebugString());
  CHECK(Str(InferShape(mm, {S({2, 3}), S({4, 3}), s, s, s, s}, 1)) ==
        s.DebugString());
  CHECK_THAT(InferShape(mm, {S({2, 3}), S({3, 4}), s, s, s, s}).status(),
             StatusIs(absl::StatusCode::kInvalidArgument));
  // A range of rank 1 fails at graph construction, as in TensorFlow.
  CHECK_THAT(InferShape(mm, {S({2, 3}), S({4, 3}), S({1}), s, s, s}).status(),
             StatusIs(absl::StatusCode::kInvalidArgument));

  const NodeDef conv = TestNodeBuilder("c", "QuantizedConv2D", 6)
                           .Attr("Tinput", DT_QUINT8)
                           .Attr("Tfilter", DT_QUINT8)
                           .Attr("strides", std::vector<int64_t>{1, 2, 2, 1})
                           .Attr("padding", "SAME")
                           .Build();
  CHECK(Str(InferShape(conv, {S({1, 5, 5, 2}), S({3, 3, 2, 4}), s, s, s, s})) ==
        S({1, 3, 3, 4}).DebugString());

  const NodeDef pool = TestNodeBuilder("p", "QuantizedAvgPool", 3)
                           .Attr("T", DT_QUINT8)
                           .Attr("ksize", std::vector<int64_t>{1, 2, 2, 1})
                           .Attr("strides", std::vector<int64_t>{1, 2, 2, 1})
                           .Attr("padding", "VALID")
                           .Build();
  CHECK(Str(InferShape(pool, {S({2, 5, 4, 3}), s, s})) ==
        S({2, 2, 2, 3}).DebugString());

  const NodeDef add = TestNodeBuilder("a", "QuantizedAdd", 6)
                          .Attr("T1", DT_QUINT8)
                          .Attr("T2", DT_QUINT8)
                          .Build();
  CHECK(Str(InferShape(add, {S({2, 1}), S({3}), s, s, s, s})) ==
        S({2, 3}).DebugString());

  const NodeDef concat = TestNodeBuilder("cc", "QuantizedConcat", 7)
                             .Attr("N", 2)
                             .Attr("T", DT_QUINT8)
                             .Build();
  // The axis is not a constant here: rank 2, dims unknown.
  CHECK(Str(InferShape(concat, {s, S({2, 3}), S({2, 5}), s, s, s, s})) ==
        PartialShape::Known({-1, -1}).DebugString());
  CHECK(Str(InferShape(concat, {s, S({2, 3}), S({2, 5}), s, s, s, s}, 2)) ==
        s.DebugString());
  CHECK_THAT(
      InferShape(concat, {s, S({2, 3}), S({2, 5}), S({2}), s, s, s}).status(),
      StatusIs(absl::StatusCode::kInvalidArgument));

  const NodeDef relu = TestNodeBuilder("r", "QuantizedRelu6", 3)
                           .Attr("Tinput", DT_QINT32)
                           .Attr("out_type", DT_QINT32)
                           .Build();
  CHECK(Str(InferShape(relu, {S({7}), s, s})) == S({7}).DebugString());
}

TEST_CASE(
    "QuantizedConv2D with an empty output is InvalidArgument "
    "(TensorFlow aborts)",
    "[quantized]") {
  const NodeDef conv = TestNodeBuilder("c", "QuantizedConv2D", 6)
                           .Attr("Tinput", DT_QUINT8)
                           .Attr("Tfilter", DT_QUINT8)
                           .Attr("strides", std::vector<int64_t>{1, 1, 1, 1})
                           .Attr("padding", "VALID")
                           .Build();
  CHECK_THAT(RunKernel(conv, {Levels(TensorShape({1, 1, 1, 2}), 3),
                              Levels(TensorShape({2, 2, 2, 1}), 5), Scalar(0),
                              Scalar(6), Scalar(-1), Scalar(1)})
                 .status(),
             StatusIs(absl::StatusCode::kInvalidArgument, "empty"));
  // An output channel count of zero: TensorFlow aborts too.
  CHECK_THAT(RunKernel(conv, {Levels(TensorShape({1, 3, 3, 2}), 3),
                              Levels(TensorShape({2, 2, 2, 0}), 5), Scalar(0),
                              Scalar(6), Scalar(-1), Scalar(1)})
                 .status(),
             StatusIs(absl::StatusCode::kInvalidArgument));
}

TEST_CASE(
    "QuantizedAdd and QuantizedMul of operands broadcast against each "
    "other fill what TensorFlow fills and zero the rest",
    "[quantized]") {
  for (const char* op : {"QuantizedAdd", "QuantizedMul"}) {
    const NodeDef node = TestNodeBuilder("b", op, 6)
                             .Attr("T1", DT_QUINT8)
                             .Attr("T2", DT_QUINT8)
                             .Build();
    auto out = RunKernel(
        node, {Levels(TensorShape({2, 1}), 10), Levels(TensorShape({1, 3}), 20),
               Scalar(0), Scalar(1), Scalar(0), Scalar(1)});
    INFO(op);
    REQUIRE(out.ok());
    REQUIRE((*out)[0].shape() == TensorShape({2, 3}));
    const qint32* z = (*out)[0].data<qint32>();
    // TensorFlow repeats the two-element x along y's three elements.
    CHECK(z[0].value != 0);
    CHECK(z[2].value != 0);
    CHECK(z[3].value == 0);
    CHECK(z[5].value == 0);
  }
}

TEST_CASE(
    "Quantized kernels refuse empty range tensors instead of reading "
    "past them",
    "[quantized]") {
  Tensor empty(DT_FLOAT, TensorShape({0}));
  const NodeDef pool = TestNodeBuilder("p", "QuantizedMaxPool", 3)
                           .Attr("T", DT_QUINT8)
                           .Attr("ksize", std::vector<int64_t>{1, 1, 1, 1})
                           .Attr("strides", std::vector<int64_t>{1, 1, 1, 1})
                           .Attr("padding", "VALID")
                           .Build();
  CHECK_THAT(
      RunKernel(pool, {Levels(TensorShape({1, 2, 2, 1}), 1), empty, Scalar(1)})
          .status(),
      StatusIs(absl::StatusCode::kInvalidArgument));
  const NodeDef concat = TestNodeBuilder("c", "QuantizedConcat", 7)
                             .Attr("N", 2)
                             .Attr("T", DT_QUINT8)
                             .Build();
  Tensor axis(DT_INT32, TensorShape());
  axis.data<int32_t>()[0] = 0;
  CHECK_THAT(RunKernel(concat, {axis, Levels(TensorShape({2}), 1),
                                Levels(TensorShape({2}), 1), empty, Scalar(0),
                                Scalar(1), Scalar(1)})
                 .status(),
             StatusIs(absl::StatusCode::kInvalidArgument));
  const NodeDef reshape =
      TestNodeBuilder("r", "QuantizedReshape", 4).Attr("T", DT_QUINT8).Build();
  Tensor shape(DT_INT32, TensorShape({1}));
  shape.data<int32_t>()[0] = 2;
  CHECK_THAT(
      RunKernel(reshape, {Levels(TensorShape({2}), 1), shape, empty, Scalar(1)})
          .status(),
      StatusIs(absl::StatusCode::kInvalidArgument));
}

}  // namespace
}  // namespace dfx
