// Neural-network ops (MatMul, BiasAdd, Relu, Relu6, Softmax, LogSoftmax) and
// the reductions (Sum, Mean, Prod, Max, Min), with their shape functions.
// Signatures follow TensorFlow's math_ops.cc and nn_ops.cc.
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

absl::Status BiasAddShape(InferenceContext* c) {
  const PartialShape& value = c->input(0);
  const PartialShape& bias = c->input(1);
  DFX_RETURN_IF_ERROR(WithRankAtLeast(c, value, 2, "value"));
  DFX_RETURN_IF_ERROR(c->WithRank(bias, 1));
  std::string data_format;
  DFX_RETURN_IF_ERROR(GetNodeAttr(c->node_def(), "data_format", &data_format));
  if (!value.RankKnown()) {
    c->set_output(0, value);
    return absl::OkStatus();
  }
  PartialShape out = value;
  const int channel = data_format == "NCHW" ? 1 : value.rank() - 1;
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
                "uint16, uint32, uint64, int8, int16, complex64, complex128}")
          .Attr("grad_a: bool = false")
          .Attr("grad_b: bool = false")
          .SetShapeFn(MatMulShape)));
  DFX_RETURN_IF_ERROR(registry->Register(
      OpDefBuilder("BiasAdd")
          .Input("value: T")
          .Input("bias: T")
          .Output("output: T")
          .Attr("T: numbertype")
          .Attr("data_format: {'NHWC', 'NCHW'} = 'NHWC'")
          .SetShapeFn(BiasAddShape)));
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
  DFX_RETURN_IF_ERROR(registry->Register(
      OpDefBuilder("Softmax")
          .Input("logits: T")
          .Output("softmax: T")
          .Attr("T: {half, bfloat16, float, double}")
          .SetShapeFn(SoftmaxShape)));
  DFX_RETURN_IF_ERROR(registry->Register(
      OpDefBuilder("LogSoftmax")
          .Input("logits: T")
          .Output("logsoftmax: T")
          .Attr("T: {half, bfloat16, float, double}")
          .SetShapeFn(SoftmaxShape)));
  DFX_RETURN_IF_ERROR(RegisterReduction(registry, "Sum", "numbertype"));
  DFX_RETURN_IF_ERROR(RegisterReduction(registry, "Mean", "numbertype"));
  DFX_RETURN_IF_ERROR(RegisterReduction(registry, "Prod", "numbertype"));
  DFX_RETURN_IF_ERROR(RegisterReduction(registry, "Max", "realnumbertype"));
  DFX_RETURN_IF_ERROR(RegisterReduction(registry, "Min", "realnumbertype"));
  return absl::OkStatus();
}

}  // namespace dfx
