// The qfused family: TensorFlow's fused quantized convolutions and matrix
// products that Intel's quantization tools write into int8 inference
// graphs and that TensorFlow 2.21's CPU build runs through oneDNN:
// QuantizedConv2D{WithBias,AndRelu,AndRequantize,...} (bias, Relu, Sum
// and Requantize fused), QuantizedConv2DPerChannel,
// QuantizedDepthwiseConv2D{,WithBias,WithBiasAndRelu,
// WithBiasAndReluAndRequantize} and QuantizedMatMulWithBias{,AndRelu,
// AndReluAndRequantize,AndRequantize,AndDequantize}. Signatures follow
// TensorFlow 2.21's nn_ops.cc and math_ops.cc; the shape functions are
// the float op's (Conv2D, DepthwiseConv2dNative, MatMul) plus TensorFlow's
// rank checks of bias and range inputs.
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "graph/node_def_util.h"
#include "graph/op_registry.h"

namespace dfx {
namespace {

constexpr char kQTypes[] = "{qint8, quint8, qint32, qint16, quint16}";

std::string QAttr(const char* name, const char* default_type = nullptr) {
  std::string spec = absl::StrCat(name, ": ", kQTypes);
  if (default_type != nullptr) absl::StrAppend(&spec, " = ", default_type);
  return spec;
}

// Output 0 as the float op `op` infers it from this node's attrs and
// inputs 0 and 1.
absl::Status FloatShape(InferenceContext* c, const char* op) {
  const OpRegistrationData* float_op = OpRegistry::Global()->LookUp(op);
  if (float_op == nullptr || !float_op->shape_fn) {
    c->set_output(0, PartialShape::Unknown());
    return absl::OkStatus();
  }
  InferenceContext inner(c->node_def(), float_op->op_def,
                         {c->input(0), c->input(1)},
                         {c->input_tensor(0), c->input_tensor(1)},
                         float_op->op_def.output_arg_size());
  DFX_RETURN_IF_ERROR(float_op->shape_fn(&inner));
  c->set_output(0, inner.output(0));
  return absl::OkStatus();
}

absl::Status AtMostRank1(InferenceContext* c, int i) {
  const PartialShape& s = c->input(i);
  if (s.RankKnown() && s.rank() > 1) {
    return c->Error(
        absl::StrCat("Shape must be at most rank 1 but is rank ", s.rank()));
  }
  return absl::OkStatus();
}

// What one op takes beyond input and filter, in TensorFlow's input order.
struct ConvSpec {
  const char* name;
  bool bias = false;
  bool bias_typed = false;  // Tbias (float or qint32) rather than float
  bool requantize = false;  // min/max_freezed_output inputs, 8-bit output
  int summand = 0;          // 0: none, 1: float summand, 2: Tsummand + range
  const char* out_default = "DT_QINT32";
  bool padding_list = true;
  bool scalar_filter_range = false;  // QuantizedConv2DAndRequantize
};

// The convolutions' shape function: Conv2D's output, bias a vector, the
// input range scalars, the filter range scalars or vectors (TensorFlow's
// output range takes the filter range's shape unless requantized).
ShapeFn ConvShape(ConvSpec spec) {
  return [spec](InferenceContext* c) {
    DFX_RETURN_IF_ERROR(FloatShape(c, "Conv2D"));
    int i = 2;
    if (spec.bias) DFX_RETURN_IF_ERROR(c->WithRank(c->input(i++), 1));
    DFX_RETURN_IF_ERROR(c->WithRank(c->input(i++), 0));
    DFX_RETURN_IF_ERROR(c->WithRank(c->input(i++), 0));
    for (int k = 0; k < 2; ++k, ++i) {
      if (spec.scalar_filter_range) {
        DFX_RETURN_IF_ERROR(c->WithRank(c->input(i), 0));
      } else {
        DFX_RETURN_IF_ERROR(AtMostRank1(c, i));
      }
    }
    if (spec.requantize) {
      DFX_RETURN_IF_ERROR(c->WithRank(c->input(i++), 0));
      DFX_RETURN_IF_ERROR(c->WithRank(c->input(i++), 0));
      c->set_output(1, PartialShape::Scalar());
      c->set_output(2, PartialShape::Scalar());
    } else {
      const int max_filter = spec.bias ? 6 : 5;
      c->set_output(1, c->input(max_filter));
      c->set_output(2, c->input(max_filter));
    }
    return absl::OkStatus();
  };
}

OpDefBuilder ConvOp(const ConvSpec& spec, bool depthwise) {
  OpDefBuilder b(spec.name);
  b.Input("input: Tinput").Input("filter: Tfilter");
  if (spec.bias) b.Input(spec.bias_typed ? "bias: Tbias" : "bias: float");
  b.Input("min_input: float")
      .Input("max_input: float")
      .Input("min_filter: float")
      .Input("max_filter: float");
  if (spec.requantize) {
    b.Input("min_freezed_output: float").Input("max_freezed_output: float");
  }
  if (spec.summand == 1) b.Input("summand: float");
  if (spec.summand == 2) {
    b.Input("summand: Tsummand")
        .Input("min_summand: float")
        .Input("max_summand: float");
  }
  b.Output("output: out_type")
      .Output("min_output: float")
      .Output("max_output: float")
      .Attr(QAttr("Tinput"))
      .Attr(QAttr("Tfilter"));
  if (spec.bias_typed) b.Attr("Tbias: {float, qint32}");
  if (spec.summand == 2) b.Attr(QAttr("Tsummand"));
  b.Attr(QAttr("out_type", spec.out_default))
      .Attr("strides: list(int)")
      .Attr("padding: {'SAME', 'VALID'}")
      .Attr("dilations: list(int) = [1, 1, 1, 1]");
  if (spec.padding_list) b.Attr("padding_list: list(int) = []");
  if (depthwise) {
    b.SetShapeFn([](InferenceContext* c) {
      DFX_RETURN_IF_ERROR(FloatShape(c, "DepthwiseConv2dNative"));
      c->set_output(1, PartialShape::Unknown());
      c->set_output(2, PartialShape::Unknown());
      return absl::OkStatus();
    });
  } else {
    b.SetShapeFn(ConvShape(spec));
  }
  return b;
}

// QuantizedMatMulWithBias*: MatMul's output, bias a vector, every range
// input a scalar, scalar output ranges.
OpDefBuilder MatMulOp(const char* name, bool bias_typed, bool freezed,
                      const char* out_type) {
  OpDefBuilder b(name);
  b.Input("a: T1")
      .Input("b: T2")
      .Input(bias_typed ? "bias: Tbias" : "bias: float")
      .Input("min_a: float")
      .Input("max_a: float")
      .Input("min_b: float")
      .Input("max_b: float");
  if (freezed) {
    b.Input("min_freezed_output: float").Input("max_freezed_output: float");
  }
  const bool dequantize = std::string(out_type) == "{float}";
  b.Output("out: Toutput");
  if (!dequantize) b.Output("min_out: float").Output("max_out: float");
  b.Attr(QAttr("T1")).Attr(QAttr("T2"));
  if (bias_typed) b.Attr("Tbias: {float, qint32}");
  if (dequantize) {
    b.Attr("Toutput: {float}");
  } else {
    b.Attr(QAttr("Toutput", out_type));
  }
  b.Attr("transpose_a: bool = false")
      .Attr("transpose_b: bool = false")
      .Attr("input_quant_mode: {'MIN_FIRST', 'SCALED'} = 'MIN_FIRST'")
      .SetShapeFn([dequantize](InferenceContext* c) {
        DFX_RETURN_IF_ERROR(FloatShape(c, "MatMul"));
        DFX_RETURN_IF_ERROR(c->WithRank(c->input(2), 1));
        for (int i = 3; i < c->num_inputs(); ++i) {
          DFX_RETURN_IF_ERROR(c->WithRank(c->input(i), 0));
        }
        if (!dequantize) {
          c->set_output(1, PartialShape::Scalar());
          c->set_output(2, PartialShape::Scalar());
        }
        return absl::OkStatus();
      });
  return b;
}

}  // namespace

absl::Status RegisterQfusedOps(OpRegistry* r) {
  const std::vector<ConvSpec> convs = {
      {.name = "QuantizedConv2DWithBias", .bias = true},
      {.name = "QuantizedConv2DWithBiasAndRelu", .bias = true},
      {.name = "QuantizedConv2DWithBiasAndRequantize",
       .bias = true,
       .bias_typed = true,
       .requantize = true,
       .out_default = "DT_QINT8"},
      {.name = "QuantizedConv2DWithBiasAndReluAndRequantize",
       .bias = true,
       .bias_typed = true,
       .requantize = true,
       .out_default = "DT_QUINT8"},
      {.name = "QuantizedConv2DWithBiasSumAndRelu", .bias = true, .summand = 1},
      {.name = "QuantizedConv2DWithBiasSumAndReluAndRequantize",
       .bias = true,
       .bias_typed = true,
       .requantize = true,
       .summand = 2,
       .out_default = "DT_QUINT8"},
      {.name = "QuantizedConv2DWithBiasSignedSumAndReluAndRequantize",
       .bias = true,
       .bias_typed = true,
       .requantize = true,
       .summand = 2,
       .out_default = "DT_QUINT8"},
      {.name = "QuantizedConv2DAndRelu"},
      {.name = "QuantizedConv2DAndRequantize",
       .requantize = true,
       .out_default = "DT_QINT8",
       .scalar_filter_range = true},
      {.name = "QuantizedConv2DAndReluAndRequantize",
       .requantize = true,
       .out_default = "DT_QUINT8"},
      {.name = "QuantizedConv2DPerChannel", .padding_list = false},
  };
  for (const ConvSpec& spec : convs) {
    DFX_RETURN_IF_ERROR(r->Register(ConvOp(spec, false)));
  }
  const std::vector<ConvSpec> depthwise = {
      {.name = "QuantizedDepthwiseConv2D", .padding_list = false},
      {.name = "QuantizedDepthwiseConv2DWithBias",
       .bias = true,
       .padding_list = false},
      {.name = "QuantizedDepthwiseConv2DWithBiasAndRelu", .bias = true},
      {.name = "QuantizedDepthwiseConv2DWithBiasAndReluAndRequantize",
       .bias = true,
       .bias_typed = true,
       .requantize = true,
       .out_default = "DT_QUINT8"},
  };
  for (const ConvSpec& spec : depthwise) {
    DFX_RETURN_IF_ERROR(r->Register(ConvOp(spec, true)));
  }
  DFX_RETURN_IF_ERROR(r->Register(
      MatMulOp("QuantizedMatMulWithBias", true, false, "DT_QINT32")));
  DFX_RETURN_IF_ERROR(r->Register(
      MatMulOp("QuantizedMatMulWithBiasAndRelu", false, false, "DT_QINT32")));
  DFX_RETURN_IF_ERROR(r->Register(MatMulOp(
      "QuantizedMatMulWithBiasAndReluAndRequantize", true, true, "DT_QUINT8")));
  DFX_RETURN_IF_ERROR(r->Register(MatMulOp(
      "QuantizedMatMulWithBiasAndRequantize", true, true, "DT_QUINT8")));
  DFX_RETURN_IF_ERROR(r->Register(
      MatMulOp("QuantizedMatMulWithBiasAndDequantize", true, true, "{float}")));
  return absl::OkStatus();
}

}  // namespace dfx
