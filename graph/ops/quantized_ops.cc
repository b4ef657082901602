// The quantized family: the eight-bit inference ops of TF1 graphs that
// graph_transforms' quantize_nodes wrote (Requantize, RequantizationRange,
// QuantizeDownAndShrinkRange, QuantizedMatMul, QuantizedConv2D,
// QuantizedBiasAdd, QuantizedRelu/Relu6, QuantizedAdd, QuantizedMul,
// QuantizedMaxPool/AvgPool, QuantizedConcat, QuantizedReshape,
// QuantizedBatchNormWithGlobalNormalization).
// Signatures follow TensorFlow 2.21's math_ops.cc, nn_ops.cc and
// array_ops.cc; each shape function is the float op's (found in the
// registry and run on the same inputs) plus TensorFlow's rank-0 checks of
// the range inputs, and scalar range outputs.
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "graph/node_def_util.h"
#include "graph/op_registry.h"
#include "graph/ops/ops.h"

namespace dfx {
namespace {

constexpr char kQuantizedTypes[] = "{qint8, quint8, qint32, qint16, quint16}";

std::string QAttr(const char* name, const char* default_type = nullptr) {
  std::string spec = absl::StrCat(name, ": ", kQuantizedTypes);
  if (default_type != nullptr) absl::StrAppend(&spec, " = ", default_type);
  return spec;
}

// Inputs [first, last] must be scalars (TensorFlow's WithRank(.., 0)).
absl::Status ScalarInputs(InferenceContext* c, int first, int last) {
  for (int i = first; i <= last && i < c->num_inputs(); ++i) {
    DFX_RETURN_IF_ERROR(c->WithRank(c->input(i), 0));
  }
  return absl::OkStatus();
}

// Outputs 1 and 2 (the range) are scalars.
void ScalarRangeOutputs(InferenceContext* c) {
  c->set_output(1, PartialShape::Scalar());
  c->set_output(2, PartialShape::Scalar());
}

// Output 0 as the float op `op` infers it from this node's attrs and the
// inputs `inputs` (in order).
absl::Status FloatOpShape(InferenceContext* c, const char* op,
                          const std::vector<int>& inputs) {
  const OpRegistrationData* float_op = OpRegistry::Global()->LookUp(op);
  if (float_op == nullptr || !float_op->shape_fn) {
    c->set_output(0, PartialShape::Unknown());
    return absl::OkStatus();
  }
  std::vector<PartialShape> shapes;
  std::vector<const TensorProto*> tensors;
  for (int i : inputs) {
    shapes.push_back(c->input(i));
    tensors.push_back(c->input_tensor(i));
  }
  InferenceContext inner(c->node_def(), float_op->op_def, std::move(shapes),
                         std::move(tensors),
                         float_op->op_def.output_arg_size());
  DFX_RETURN_IF_ERROR(float_op->shape_fn(&inner));
  c->set_output(0, inner.output(0));
  return absl::OkStatus();
}

// A shape function: the float op's output 0, inputs [first_range, end)
// scalars, scalar range outputs.
ShapeFn QuantizedShape(const char* op, std::vector<int> inputs,
                       int first_range) {
  return [op, inputs = std::move(inputs), first_range](InferenceContext* c) {
    if (op == nullptr) {
      c->set_output(0, c->input(0));
    } else {
      DFX_RETURN_IF_ERROR(FloatOpShape(c, op, inputs));
    }
    DFX_RETURN_IF_ERROR(ScalarInputs(c, first_range, c->num_inputs() - 1));
    ScalarRangeOutputs(c);
    return absl::OkStatus();
  };
}

OpDefBuilder& RangeOutputs(OpDefBuilder& b, const char* min, const char* max) {
  return b.Output(absl::StrCat(min, ": float"))
      .Output(absl::StrCat(max, ": float"));
}

// Ops of two quantized operands with ranges: QuantizedMatMul, QuantizedAdd,
// QuantizedMul, QuantizedBiasAdd, QuantizedConv2D.
OpDefBuilder BinaryOp(const char* name, const char* a, const char* b,
                      const char* ta, const char* tb,
                      const std::vector<const char*>& range_names,
                      const char* out, const char* out_type,
                      const std::vector<const char*>& out_range) {
  OpDefBuilder builder(name);
  builder.Input(absl::StrCat(a, ": ", ta)).Input(absl::StrCat(b, ": ", tb));
  for (const char* r : range_names) builder.Input(absl::StrCat(r, ": float"));
  builder.Output(absl::StrCat(out, ": ", out_type));
  RangeOutputs(builder, out_range[0], out_range[1]);
  return builder;
}

}  // namespace

absl::Status RegisterQuantizedOps(OpRegistry* r) {
  {
    OpDefBuilder b("Requantize");
    b.Input("input: Tinput")
        .Input("input_min: float")
        .Input("input_max: float")
        .Input("requested_output_min: float")
        .Input("requested_output_max: float")
        .Output("output: out_type");
    RangeOutputs(b, "output_min", "output_max")
        .Attr(QAttr("Tinput"))
        .Attr(QAttr("out_type"))
        .SetShapeFn(QuantizedShape(nullptr, {}, 1));
    DFX_RETURN_IF_ERROR(r->Register(b));
  }
  {
    OpDefBuilder b("RequantizationRange");
    b.Input("input: Tinput")
        .Input("input_min: float")
        .Input("input_max: float")
        .Output("output_min: float")
        .Output("output_max: float")
        .Attr(QAttr("Tinput"))
        .SetShapeFn([](InferenceContext* c) {
          DFX_RETURN_IF_ERROR(ScalarInputs(c, 1, 2));
          c->set_output(0, PartialShape::Scalar());
          c->set_output(1, PartialShape::Scalar());
          return absl::OkStatus();
        });
    DFX_RETURN_IF_ERROR(r->Register(b));
  }
  {
    OpDefBuilder b("QuantizeDownAndShrinkRange");
    b.Input("input: Tinput")
        .Input("input_min: float")
        .Input("input_max: float")
        .Output("output: out_type");
    RangeOutputs(b, "output_min", "output_max")
        .Attr(QAttr("Tinput"))
        .Attr(QAttr("out_type"))
        .SetShapeFn(QuantizedShape(nullptr, {}, 1));
    DFX_RETURN_IF_ERROR(r->Register(b));
  }
  {
    OpDefBuilder b = BinaryOp("QuantizedMatMul", "a", "b", "T1", "T2",
                              {"min_a", "max_a", "min_b", "max_b"}, "out",
                              "Toutput", {"min_out", "max_out"});
    b.Attr(QAttr("T1"))
        .Attr(QAttr("T2"))
        .Attr(QAttr("Toutput", "DT_QINT32"))
        .Attr("transpose_a: bool = false")
        .Attr("transpose_b: bool = false")
        .Attr(QAttr("Tactivation", "DT_QUINT8"))
        .SetShapeFn(QuantizedShape("MatMul", {0, 1}, 2));
    DFX_RETURN_IF_ERROR(r->Register(b));
  }
  {
    OpDefBuilder b =
        BinaryOp("QuantizedConv2D", "input", "filter", "Tinput", "Tfilter",
                 {"min_input", "max_input", "min_filter", "max_filter"},
                 "output", "out_type", {"min_output", "max_output"});
    b.Attr(QAttr("Tinput"))
        .Attr(QAttr("Tfilter"))
        .Attr(QAttr("out_type", "DT_QINT32"))
        .Attr("strides: list(int)")
        .Attr("padding: {'SAME', 'VALID'}")
        .Attr("dilations: list(int) = [1, 1, 1, 1]")
        .SetShapeFn(QuantizedShape("Conv2D", {0, 1}, 2));
    DFX_RETURN_IF_ERROR(r->Register(b));
  }
  {
    OpDefBuilder b =
        BinaryOp("QuantizedBiasAdd", "input", "bias", "T1", "T2",
                 {"min_input", "max_input", "min_bias", "max_bias"}, "output",
                 "out_type", {"min_out", "max_out"});
    b.Attr(QAttr("T1"))
        .Attr(QAttr("T2"))
        .Attr(QAttr("out_type"))
        .SetShapeFn(QuantizedShape("BiasAdd", {0, 1}, 2));
    DFX_RETURN_IF_ERROR(r->Register(b));
  }
  for (const char* name : {"QuantizedRelu", "QuantizedRelu6"}) {
    OpDefBuilder b(name);
    b.Input("features: Tinput")
        .Input("min_features: float")
        .Input("max_features: float")
        .Output("activations: out_type");
    RangeOutputs(b, "min_activations", "max_activations")
        .Attr(QAttr("Tinput"))
        .Attr(QAttr("out_type", "DT_QUINT8"))
        .SetShapeFn(QuantizedShape(nullptr, {}, 1));
    DFX_RETURN_IF_ERROR(r->Register(b));
  }
  for (const char* name : {"QuantizedAdd", "QuantizedMul"}) {
    OpDefBuilder b = BinaryOp(name, "x", "y", "T1", "T2",
                              {"min_x", "max_x", "min_y", "max_y"}, "z",
                              "Toutput", {"min_z", "max_z"});
    b.Attr(QAttr("T1"))
        .Attr(QAttr("T2"))
        .Attr(QAttr("Toutput", "DT_QINT32"))
        .SetShapeFn([](InferenceContext* c) {
          PartialShape out;
          DFX_RETURN_IF_ERROR(
              c->BroadcastBinary(c->input(0), c->input(1), &out));
          c->set_output(0, std::move(out));
          DFX_RETURN_IF_ERROR(ScalarInputs(c, 2, 5));
          ScalarRangeOutputs(c);
          return absl::OkStatus();
        });
    DFX_RETURN_IF_ERROR(r->Register(b));
  }
  for (const auto& [name, float_op] :
       {std::pair{"QuantizedMaxPool", "MaxPool"},
        std::pair{"QuantizedAvgPool", "AvgPool"}}) {
    OpDefBuilder b(name);
    b.Input("input: T")
        .Input("min_input: float")
        .Input("max_input: float")
        .Output("output: T");
    RangeOutputs(b, "min_output", "max_output")
        .Attr(QAttr("T"))
        .Attr("ksize: list(int)")
        .Attr("strides: list(int)")
        .Attr("padding: {'SAME', 'VALID'}")
        .SetShapeFn(QuantizedShape(float_op, {0}, 1));
    DFX_RETURN_IF_ERROR(r->Register(b));
  }
  {
    OpDefBuilder b("QuantizedConcat");
    b.Input("concat_dim: int32")
        .Input("values: N * T")
        .Input("input_mins: N * float")
        .Input("input_maxes: N * float")
        .Output("output: T");
    RangeOutputs(b, "output_min", "output_max")
        .Attr("N: int >= 2")
        .Attr("T: type")
        .SetShapeFn([](InferenceContext* c) {
          const int n = (c->num_inputs() - 1) / 3;
          std::vector<int> inputs;
          for (int i = 0; i <= n; ++i) inputs.push_back(i);
          DFX_RETURN_IF_ERROR(FloatOpShape(c, "Concat", inputs));
          DFX_RETURN_IF_ERROR(ScalarInputs(c, n + 1, c->num_inputs() - 1));
          ScalarRangeOutputs(c);
          return absl::OkStatus();
        });
    DFX_RETURN_IF_ERROR(r->Register(b));
  }
  {
    OpDefBuilder b("QuantizedReshape");
    b.Input("tensor: T")
        .Input("shape: Tshape")
        .Input("input_min: float")
        .Input("input_max: float")
        .Output("output: T");
    RangeOutputs(b, "output_min", "output_max")
        .Attr("T: type")
        .Attr("Tshape: {int32, int64} = DT_INT32")
        .SetShapeFn(QuantizedShape("Reshape", {0, 1}, 2));
    DFX_RETURN_IF_ERROR(r->Register(b));
  }
  {
    OpDefBuilder b("QuantizedBatchNormWithGlobalNormalization");
    for (const char* in : {"t", "m", "v", "beta", "gamma"}) {
      b.Input(absl::StrCat(in, ": Tinput"))
          .Input(absl::StrCat(in, "_min: float"))
          .Input(absl::StrCat(in, "_max: float"));
    }
    b.Output("result: out_type");
    RangeOutputs(b, "result_min", "result_max")
        .Attr(QAttr("Tinput"))
        .Attr(QAttr("out_type"))
        .Attr("variance_epsilon: float")
        .Attr("scale_after_normalization: bool")
        .SetShapeFn([](InferenceContext* c) {
          DFX_RETURN_IF_ERROR(FloatOpShape(
              c, "BatchNormWithGlobalNormalization", {0, 3, 6, 9, 12}));
          for (int i = 1; i < c->num_inputs(); ++i) {
            if (i % 3 != 0) DFX_RETURN_IF_ERROR(c->WithRank(c->input(i), 0));
          }
          ScalarRangeOutputs(c);
          return absl::OkStatus();
        });
    DFX_RETURN_IF_ERROR(r->Register(b));
  }
  return absl::OkStatus();
}

}  // namespace dfx
