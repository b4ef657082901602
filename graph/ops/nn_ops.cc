// Neural-network ops (MatMul; BiasAdd, BiasAddV1 and BiasAddGrad; the
// activations Relu, Relu6, Elu, Selu, Softplus, Softsign, LeakyRelu, Softmax,
// LogSoftmax and their gradients; L2Loss and the softmax cross entropies; LRN
// and LRNGrad) and the reductions (Sum, Mean, Prod, Max, Min), with their
// shape functions. Signatures follow TensorFlow's math_ops.cc and nn_ops.cc.
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "graph/node_def_util.h"
#include "graph/ops/ops.h"

namespace dfx {
namespace {

absl::Status WithRankAtLeast(InferenceContext* c, const PartialShape& shape,
                             int rank, absl::string_view what) {
  if (shape.RankKnown() && shape.rank() < rank) {
    return c->Error(absl::StrCat(what, " must be at least rank ", rank,
                                 " but is rank ", shape.rank(), " (",
                                 shape.DebugString(), ")"));
  }
  return absl::OkStatus();
}

absl::Status MatMulShape(InferenceContext* c) {
  const PartialShape& a = c->input(0);
  const PartialShape& b = c->input(1);
  DFX_RETURN_IF_ERROR(c->WithRank(a, 2));
  DFX_RETURN_IF_ERROR(c->WithRank(b, 2));
  bool transpose_a = false;
  bool transpose_b = false;
  DFX_RETURN_IF_ERROR(
      GetNodeAttr(c->node_def(), "transpose_a", &transpose_a));
  DFX_RETURN_IF_ERROR(
      GetNodeAttr(c->node_def(), "transpose_b", &transpose_b));
  const int64_t m = a.RankKnown() ? a.dims[transpose_a ? 1 : 0] : -1;
  const int64_t ka = a.RankKnown() ? a.dims[transpose_a ? 0 : 1] : -1;
  const int64_t kb = b.RankKnown() ? b.dims[transpose_b ? 1 : 0] : -1;
  const int64_t n = b.RankKnown() ? b.dims[transpose_b ? 0 : 1] : -1;
  if (ka >= 0 && kb >= 0 && ka != kb) {
    return c->Error(absl::StrCat(
        "Matrix size-incompatible: In[0]: ", a.DebugString(),
        ", In[1]: ", b.DebugString(), " (transpose_a=",
        transpose_a ? "true" : "false", ", transpose_b=",
        transpose_b ? "true" : "false", ")"));
  }
  c->set_output(0, PartialShape::Known({m, n}));
  return absl::OkStatus();
}

// "NHWC" (also for BiasAddV1, which has no data_format attr) or "NCHW".
std::string DataFormat(const InferenceContext& c) {
  const AttrValue* format = FindNodeAttr(c.node_def(), "data_format");
  return format == nullptr ? "NHWC" : format->s();
}

// Output: value's shape, with the channel dim (the last in NHWC, dim 1 in
// NCHW, where TensorFlow wants rank >= 3) merged with the bias length.
absl::Status BiasAddShape(InferenceContext* c) {
  const PartialShape& value = c->input(0);
  const PartialShape& bias = c->input(1);
  const std::string data_format = DataFormat(*c);
  const bool nchw = data_format == "NCHW";
  DFX_RETURN_IF_ERROR(WithRankAtLeast(c, value, nchw ? 3 : 2, "value"));
  DFX_RETURN_IF_ERROR(c->WithRank(bias, 1));
  if (!value.RankKnown()) {
    c->set_output(0, value);
    return absl::OkStatus();
  }
  PartialShape out = value;
  const int channel = nchw ? 1 : value.rank() - 1;
  const int64_t bias_dim = bias.RankKnown() ? bias.dims[0] : -1;
  if (out.dims[channel] >= 0 && bias_dim >= 0 &&
      out.dims[channel] != bias_dim) {
    return c->Error(absl::StrCat(
        "Must provide as many biases as the channel dimension of the input "
        "tensor: ",
        bias.DebugString(), " vs. ", value.DebugString(), " (data_format ",
        data_format, ")"));
  }
  if (out.dims[channel] < 0) out.dims[channel] = bias_dim;
  c->set_output(0, std::move(out));
  return absl::OkStatus();
}

// Output: [channels], the channel dim of out_backprop.
absl::Status BiasAddGradShape(InferenceContext* c) {
  const PartialShape& grad = c->input(0);
  const bool nchw = DataFormat(*c) == "NCHW";
  DFX_RETURN_IF_ERROR(WithRankAtLeast(c, grad, nchw ? 3 : 2, "out_backprop"));
  if (!grad.RankKnown()) {
    c->set_output(0, PartialShape::Known({-1}));
    return absl::OkStatus();
  }
  c->set_output(0,
                PartialShape::Known({grad.dims[nchw ? 1 : grad.rank() - 1]}));
  return absl::OkStatus();
}

// Output 0: inputs 0 and 1 merged (they must describe the same shape).
absl::Status MergeBothInputsShape(InferenceContext* c) {
  PartialShape out;
  DFX_RETURN_IF_ERROR(c->Merge(c->input(0), c->input(1), &out));
  c->set_output(0, std::move(out));
  return absl::OkStatus();
}

// loss: [batch]; backprop: the broadcast of logits and labels, which must be
// a matrix.
absl::Status SoftmaxXentShape(InferenceContext* c) {
  const PartialShape& logits = c->input(0);
  const PartialShape& labels = c->input(1);
  PartialShape matrix;
  if (c->WithRank(logits, 2).ok() &&
      c->Merge(logits.RankKnown() ? logits : UnknownDims(2), labels, &matrix)
          .ok()) {
    c->set_output(0, PartialShape::Known({matrix.dims[0]}));
    c->set_output(1, std::move(matrix));
    return absl::OkStatus();
  }
  DFX_RETURN_IF_ERROR(c->BroadcastBinary(logits, labels, &matrix));
  if (!matrix.RankKnown()) {
    return c->Error(
        "Shape must be broadcasted with rank 2, but is rank is unknown.");
  }
  if (matrix.rank() != 2) {
    return c->Error(absl::StrCat("Shape must be broadcasted with rank 2, but "
                                 "is rank ",
                                 matrix.rank()));
  }
  c->set_output(0, PartialShape::Known({matrix.dims[0]}));
  c->set_output(1, std::move(matrix));
  return absl::OkStatus();
}

// loss: [batch]; backprop: logits' shape [batch, classes], batch merged
// with the length of labels.
absl::Status SparseSoftmaxXentShape(InferenceContext* c) {
  const PartialShape& logits = c->input(0);
  const PartialShape& labels = c->input(1);
  DFX_RETURN_IF_ERROR(c->WithRank(logits, 2));
  DFX_RETURN_IF_ERROR(c->WithRank(labels, 1));
  PartialShape features = logits.RankKnown() ? logits : UnknownDims(2);
  int64_t batch = -1;
  DFX_RETURN_IF_ERROR(c->MergeDim(features.dims[0],
                                  labels.RankKnown() ? labels.dims[0] : -1,
                                  &batch));
  features.dims[0] = batch;
  c->set_output(0, PartialShape::Known({batch}));
  c->set_output(1, std::move(features));
  return absl::OkStatus();
}

// Output: input 0, which must be rank 4.
absl::Status LrnShape(InferenceContext* c) {
  DFX_RETURN_IF_ERROR(c->WithRank(c->input(0), 4));
  c->set_output(0, c->input(0).RankKnown() ? c->input(0) : UnknownDims(4));
  return absl::OkStatus();
}

// Output: the three rank-4 inputs merged.
absl::Status LrnGradShape(InferenceContext* c) {
  PartialShape out = UnknownDims(4);
  for (int i = 0; i < 3; ++i) {
    DFX_RETURN_IF_ERROR(c->WithRank(c->input(i), 4));
    DFX_RETURN_IF_ERROR(c->Merge(out, c->input(i), &out));
  }
  c->set_output(0, std::move(out));
  return absl::OkStatus();
}

absl::Status SoftmaxShape(InferenceContext* c) {
  DFX_RETURN_IF_ERROR(WithRankAtLeast(c, c->input(0), 1, "logits"));
  c->set_output(0, c->input(0));
  return absl::OkStatus();
}

absl::Status ReductionShape(InferenceContext* c) {
  const PartialShape& input = c->input(0);
  const PartialShape& indices = c->input(1);
  if (indices.RankKnown() && indices.rank() > 1) {
    return c->Error(absl::StrCat(
        "reduction_indices must be a scalar or a vector, got shape ",
        indices.DebugString()));
  }
  bool keep_dims = false;
  DFX_RETURN_IF_ERROR(GetNodeAttr(c->node_def(), "keep_dims", &keep_dims));
  std::vector<int64_t> axes;
  if (!ConstantInts(c->input_tensor(1), &axes)) {
    if (keep_dims && input.RankKnown()) {
      c->set_output(0, UnknownDims(input.rank()));
    } else if (indices.RankKnown() && indices.rank() == 1 &&
               indices.dims[0] == 0) {
      c->set_output(0, input);  // reducing over no axis changes nothing
    } else {
      c->set_output(0, PartialShape::Unknown());
    }
    return absl::OkStatus();
  }
  if (!input.RankKnown()) {
    c->set_output(0, PartialShape::Unknown());
    return absl::OkStatus();
  }
  const int rank = input.rank();
  std::vector<bool> reduced(rank, false);
  for (int64_t axis : axes) {
    if (axis < -rank || axis >= rank) {
      return c->Error(absl::StrCat("Invalid reduction dimension (", axis,
                                   " for input with ", rank,
                                   " dimension(s))"));
    }
    reduced[axis < 0 ? axis + rank : axis] = true;
  }
  PartialShape out = PartialShape::Scalar();
  for (int i = 0; i < rank; ++i) {
    if (!reduced[i]) {
      out.dims.push_back(input.dims[i]);
    } else if (keep_dims) {
      out.dims.push_back(1);
    }
  }
  c->set_output(0, std::move(out));
  return absl::OkStatus();
}

absl::Status RegisterReduction(OpRegistry* registry, const std::string& name,
                               absl::string_view types) {
  return registry->Register(OpDefBuilder(name)
                                .Input("input: T")
                                .Input("reduction_indices: Tidx")
                                .Output("output: T")
                                .Attr("keep_dims: bool = false")
                                .Attr(absl::StrCat("T: ", types))
                                .Attr("Tidx: {int32, int64} = DT_INT32")
                                .SetShapeFn(ReductionShape));
}

// TensorFlow's numbertype (BiasAdd's types), spelled out: dfx's numbertype
// lacks qint16 and quint16.
constexpr const char* kBiasTypes =
    "T: {float, double, int32, uint8, int16, int8, complex64, int64, qint8, "
    "quint8, qint32, bfloat16, qint16, quint16, uint16, complex128, half, "
    "uint32, uint64}";
// The floating types of the activations and losses.
constexpr const char* kFloatTypes = "T: {half, bfloat16, float, double}";

}  // namespace

absl::Status RegisterNnOps(OpRegistry* registry) {
  DFX_RETURN_IF_ERROR(registry->Register(
      OpDefBuilder("MatMul")
          .Input("a: T")
          .Input("b: T")
          .Output("product: T")
          .Attr("transpose_a: bool = false")
          .Attr("transpose_b: bool = false")
          .Attr("T: {bfloat16, half, float, double, int32, int64, uint8, "
                "uint16, uint32, uint64, complex64, complex128}")
          .Attr("grad_a: bool = false")
          .Attr("grad_b: bool = false")
          .SetShapeFn(MatMulShape)));
  // SparseMatMul (old graphs; the legacy family's kernel): float or
  // bfloat16 operands, a float product; the sparsity attrs are hints.
  DFX_RETURN_IF_ERROR(registry->Register(
      OpDefBuilder("SparseMatMul")
          .Input("a: Ta")
          .Input("b: Tb")
          .Output("product: float")
          .Attr("transpose_a: bool = false")
          .Attr("transpose_b: bool = false")
          .Attr("a_is_sparse: bool = false")
          .Attr("b_is_sparse: bool = false")
          .Attr("Ta: {float, bfloat16} = DT_FLOAT")
          .Attr("Tb: {float, bfloat16} = DT_FLOAT")
          .SetShapeFn(MatMulShape)));
  DFX_RETURN_IF_ERROR(registry->Register(
      OpDefBuilder("BiasAdd")
          .Input("value: T")
          .Input("bias: T")
          .Output("output: T")
          .Attr(kBiasTypes)
          .Attr("data_format: {'NHWC', 'NCHW'} = 'NHWC'")
          .SetShapeFn(BiasAddShape)));
  DFX_RETURN_IF_ERROR(registry->Register(
      OpDefBuilder("BiasAddV1")
          .Input("value: T")
          .Input("bias: T")
          .Output("output: T")
          .Attr(kBiasTypes)
          .SetShapeFn(BiasAddShape)));
  DFX_RETURN_IF_ERROR(registry->Register(
      OpDefBuilder("BiasAddGrad")
          .Input("out_backprop: T")
          .Output("output: T")
          .Attr(kBiasTypes)
          .Attr("data_format: {'NHWC', 'NCHW'} = 'NHWC'")
          .SetShapeFn(BiasAddGradShape)));
  DFX_RETURN_IF_ERROR(registry->Register(
      OpDefBuilder("Relu")
          .Input("features: T")
          .Output("activations: T")
          .Attr("T: {float, double, int32, uint8, int16, int8, int64, bfloat16, "
                "uint16, half, uint32, uint64, qint8}")
          .SetShapeFn(shape_fn::UnchangedShape)));
  DFX_RETURN_IF_ERROR(registry->Register(
      OpDefBuilder("Relu6")
          .Input("features: T")
          .Output("activations: T")
          .Attr("T: realnumbertype")
          .SetShapeFn(shape_fn::UnchangedShape)));
  for (const char* name : {"ReluGrad", "Relu6Grad"}) {
    DFX_RETURN_IF_ERROR(registry->Register(
        OpDefBuilder(name)
            .Input("gradients: T")
            .Input("features: T")
            .Output("backprops: T")
            .Attr("T: realnumbertype")
            .SetShapeFn(MergeBothInputsShape)));
  }
  for (const char* name : {"Elu", "Selu", "Softplus", "Softsign"}) {
    DFX_RETURN_IF_ERROR(registry->Register(
        OpDefBuilder(name)
            .Input("features: T")
            .Output("activations: T")
            .Attr(kFloatTypes)
            .SetShapeFn(shape_fn::UnchangedShape)));
  }
  // EluGrad and SeluGrad take the activation's output, the others its input.
  for (const char* name : {"EluGrad", "SeluGrad"}) {
    DFX_RETURN_IF_ERROR(registry->Register(
        OpDefBuilder(name)
            .Input("gradients: T")
            .Input("outputs: T")
            .Output("backprops: T")
            .Attr(kFloatTypes)
            .SetShapeFn(MergeBothInputsShape)));
  }
  for (const char* name : {"SoftplusGrad", "SoftsignGrad"}) {
    DFX_RETURN_IF_ERROR(registry->Register(
        OpDefBuilder(name)
            .Input("gradients: T")
            .Input("features: T")
            .Output("backprops: T")
            .Attr(kFloatTypes)
            .SetShapeFn(MergeBothInputsShape)));
  }
  DFX_RETURN_IF_ERROR(registry->Register(
      OpDefBuilder("LeakyRelu")
          .Input("features: T")
          .Output("activations: T")
          .Attr("alpha: float = 0.2")
          .Attr("T: {half, bfloat16, float, double} = DT_FLOAT")
          .SetShapeFn(shape_fn::UnchangedShape)));
  DFX_RETURN_IF_ERROR(registry->Register(
      OpDefBuilder("LeakyReluGrad")
          .Input("gradients: T")
          .Input("features: T")
          .Output("backprops: T")
          .Attr("alpha: float = 0.2")
          .Attr("T: {half, bfloat16, float, double} = DT_FLOAT")
          .SetShapeFn(MergeBothInputsShape)));
  DFX_RETURN_IF_ERROR(registry->Register(
      OpDefBuilder("Softmax")
          .Input("logits: T")
          .Output("softmax: T")
          .Attr(kFloatTypes)
          .SetShapeFn(SoftmaxShape)));
  DFX_RETURN_IF_ERROR(registry->Register(
      OpDefBuilder("LogSoftmax")
          .Input("logits: T")
          .Output("logsoftmax: T")
          .Attr(kFloatTypes)
          .SetShapeFn(SoftmaxShape)));
  DFX_RETURN_IF_ERROR(registry->Register(OpDefBuilder("L2Loss")
                                             .Input("t: T")
                                             .Output("output: T")
                                             .Attr(kFloatTypes)
                                             .SetShapeFn(shape_fn::Scalar)));
  DFX_RETURN_IF_ERROR(registry->Register(
      OpDefBuilder("SoftmaxCrossEntropyWithLogits")
          .Input("features: T")
          .Input("labels: T")
          .Output("loss: T")
          .Output("backprop: T")
          .Attr(kFloatTypes)
          .SetShapeFn(SoftmaxXentShape)));
  DFX_RETURN_IF_ERROR(registry->Register(
      OpDefBuilder("SparseSoftmaxCrossEntropyWithLogits")
          .Input("features: T")
          .Input("labels: Tlabels")
          .Output("loss: T")
          .Output("backprop: T")
          .Attr(kFloatTypes)
          .Attr("Tlabels: {int32, int64} = DT_INT64")
          .SetShapeFn(SparseSoftmaxXentShape)));
  DFX_RETURN_IF_ERROR(registry->Register(
      OpDefBuilder("LRN")
          .Input("input: T")
          .Output("output: T")
          .Attr("depth_radius: int = 5")
          .Attr("bias: float = 1")
          .Attr("alpha: float = 1")
          .Attr("beta: float = 0.5")
          .Attr("T: {half, bfloat16, float} = DT_FLOAT")
          .SetShapeFn(LrnShape)));
  DFX_RETURN_IF_ERROR(registry->Register(
      OpDefBuilder("LRNGrad")
          .Input("input_grads: T")
          .Input("input_image: T")
          .Input("output_image: T")
          .Output("output: T")
          .Attr("depth_radius: int = 5")
          .Attr("bias: float = 1")
          .Attr("alpha: float = 1")
          .Attr("beta: float = 0.5")
          .Attr("T: {half, bfloat16, float} = DT_FLOAT")
          .SetShapeFn(LrnGradShape)));
  DFX_RETURN_IF_ERROR(RegisterReduction(registry, "Sum", "numbertype"));
  DFX_RETURN_IF_ERROR(RegisterReduction(registry, "Mean", "numbertype"));
  DFX_RETURN_IF_ERROR(RegisterReduction(registry, "Prod", "numbertype"));
  DFX_RETURN_IF_ERROR(RegisterReduction(registry, "Max", "realnumbertype"));
  DFX_RETURN_IF_ERROR(RegisterReduction(registry, "Min", "realnumbertype"));
  return absl::OkStatus();
}

}  // namespace dfx
