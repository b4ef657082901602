// 3-D convolution and pooling with their gradients, image and volume patch
// extraction, and grayscale morphology (Dilation2D and its gradients).
// Signatures follow TensorFlow 2.21's nn_ops.cc and array_ops.cc; the shape
// functions follow its common_shape_fns.cc (Conv3DShape, Pool3DShape) and the
// ops' own shape functions.
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "graph/node_def_util.h"
#include "graph/ops/ops.h"

namespace dfx {
namespace {

int64_t DimOr(const PartialShape& s, int i) {
  return s.RankKnown() && i < s.rank() ? s.dims[i] : -1;
}

// The output size of one windowed dim as TensorFlow's
// GetWindowedOutputSizeVerbose computes it (SAME or VALID); -1 when `in` or
// `window` is unknown.
absl::Status OutSize(InferenceContext* c, int64_t in, int64_t window,
                     int64_t rate, int64_t stride, const std::string& padding,
                     int64_t* out) {
  if (stride <= 0) {
    return c->Error(absl::StrCat("Stride must be > 0, but got ", stride));
  }
  if (rate < 1) {
    return c->Error(absl::StrCat("Dilation rate must be >= 1, but got ", rate));
  }
  if (in < 0 || window < 0) {
    *out = -1;
    return absl::OkStatus();
  }
  const int64_t effective = (window - 1) * rate + 1;
  *out = padding == "VALID" ? (in - effective + stride) / stride
                            : (in + stride - 1) / stride;
  if (*out < 0) {
    return c->Error(absl::StrCat(
        "Computed output size would be negative: ", *out,
        " [input_size: ", in, ", effective_filter_size: ", effective,
        ", stride: ", stride, "]"));
  }
  return absl::OkStatus();
}

absl::Status SizedList(InferenceContext* c, const char* attr, size_t size,
                       std::vector<int64_t>* values) {
  DFX_RETURN_IF_ERROR(GetNodeAttr(c->node_def(), attr, values));
  if (values->size() != size) {
    return c->Error(absl::StrCat(c->node_def().op(), " requires the ", attr,
                                 " attribute to contain ", size,
                                 " values, but got: ", values->size()));
  }
  return absl::OkStatus();
}

// Positions of the channel dim and the first spatial dim of a 5-D tensor in
// the node's data_format.
void Layout5(InferenceContext* c, int* channel, int* first_spatial) {
  std::string format = "NDHWC";
  if (FindNodeAttr(c->node_def(), "data_format") != nullptr) {
    GetNodeAttr(c->node_def(), "data_format", &format).IgnoreError();
  }
  const bool ncdhw = format == "NCDHW";
  *channel = ncdhw ? 1 : 4;
  *first_spatial = ncdhw ? 2 : 1;
}

// Conv3D: [N, D, H, W, C] x [KD, KH, KW, C, O] -> [N, OD, OH, OW, O].
absl::Status Conv3DShape(InferenceContext* c) {
  const PartialShape& input = c->input(0);
  const PartialShape& filter = c->input(1);
  DFX_RETURN_IF_ERROR(c->WithRank(input, 5));
  DFX_RETURN_IF_ERROR(c->WithRank(filter, 5));
  int ch, sp;
  Layout5(c, &ch, &sp);
  std::vector<int64_t> strides, dilations;
  DFX_RETURN_IF_ERROR(SizedList(c, "strides", 5, &strides));
  DFX_RETURN_IF_ERROR(SizedList(c, "dilations", 5, &dilations));
  std::string padding;
  DFX_RETURN_IF_ERROR(GetNodeAttr(c->node_def(), "padding", &padding));
  PartialShape out = UnknownDims(5);
  out.dims[0] = DimOr(input, 0);
  out.dims[ch] = DimOr(filter, 4);
  for (int i = 0; i < 3; ++i) {
    DFX_RETURN_IF_ERROR(OutSize(c, DimOr(input, sp + i), DimOr(filter, i),
                                dilations[sp + i], strides[sp + i], padding,
                                &out.dims[sp + i]));
  }
  c->set_output(0, out);
  return absl::OkStatus();
}

// The output of a 3-D gradient op whose shape is the value of input `index`
// when that is a constant.
absl::Status ShapeFromInput5(InferenceContext* c, int index) {
  DFX_RETURN_IF_ERROR(c->WithRank(c->input(index), 1));
  std::vector<int64_t> values;
  if (!ConstantInts(c->input_tensor(index), &values)) {
    c->set_output(0, UnknownDims(5));
    return absl::OkStatus();
  }
  if (values.size() != 5) {
    return c->Error(absl::StrCat("Shape must have 5 values, but got ",
                                 values.size()));
  }
  for (int64_t v : values) {
    if (v < 0) {
      return c->Error(
          absl::StrCat("Dimension size must be non-negative, but got ", v));
    }
  }
  c->set_output(0, PartialShape::Known(values));
  return absl::OkStatus();
}

// The v1 backprop ops: the gradient has the shape of input 0 (input) or
// input 1 (filter), of rank 5.
absl::Status Conv3DBackpropV1Shape(InferenceContext* c, int index) {
  DFX_RETURN_IF_ERROR(c->WithRank(c->input(index), 5));
  c->set_output(0, c->input(index).RankKnown() ? c->input(index)
                                               : UnknownDims(5));
  return absl::OkStatus();
}

absl::Status Conv3DBackpropInputV2Shape(InferenceContext* c) {
  DFX_RETURN_IF_ERROR(c->WithRank(c->input(1), 5));
  DFX_RETURN_IF_ERROR(c->WithRank(c->input(2), 5));
  return ShapeFromInput5(c, 0);
}

absl::Status Conv3DBackpropFilterV2Shape(InferenceContext* c) {
  DFX_RETURN_IF_ERROR(c->WithRank(c->input(0), 5));
  DFX_RETURN_IF_ERROR(c->WithRank(c->input(2), 5));
  return ShapeFromInput5(c, 1);
}

// MaxPool3D, AvgPool3D.
absl::Status Pool3DShape(InferenceContext* c) {
  const PartialShape& input = c->input(0);
  DFX_RETURN_IF_ERROR(c->WithRank(input, 5));
  int ch, sp;
  Layout5(c, &ch, &sp);
  std::vector<int64_t> ksize, strides;
  DFX_RETURN_IF_ERROR(SizedList(c, "ksize", 5, &ksize));
  DFX_RETURN_IF_ERROR(SizedList(c, "strides", 5, &strides));
  std::string padding;
  DFX_RETURN_IF_ERROR(GetNodeAttr(c->node_def(), "padding", &padding));
  PartialShape out = UnknownDims(5);
  out.dims[0] = DimOr(input, 0);
  out.dims[ch] = DimOr(input, ch);
  for (int i = 0; i < 3; ++i) {
    DFX_RETURN_IF_ERROR(OutSize(c, DimOr(input, sp + i), ksize[sp + i], 1,
                                strides[sp + i], padding, &out.dims[sp + i]));
  }
  c->set_output(0, out);
  return absl::OkStatus();
}

// MaxPool3DGrad: orig_input's shape. MaxPool3DGradGrad: orig_output's.
absl::Status ShapeOfInput5(InferenceContext* c, int index) {
  DFX_RETURN_IF_ERROR(c->WithRank(c->input(index), 5));
  c->set_output(0, c->input(index));
  return absl::OkStatus();
}
absl::Status MaxPool3DGradShape(InferenceContext* c) {
  return ShapeOfInput5(c, 0);
}
absl::Status MaxPool3DGradGradShape(InferenceContext* c) {
  return ShapeOfInput5(c, 1);
}
absl::Status AvgPool3DGradShape(InferenceContext* c) {
  return ShapeFromInput5(c, 0);
}


// ExtractImagePatches (rank 4, with rates) and ExtractVolumePatches (rank 5):
// [N, spatial..., C] -> [N, out spatial..., prod(ksizes) * C].
absl::Status PatchesShape(InferenceContext* c, int rank, bool has_rates) {
  const PartialShape& input = c->input(0);
  DFX_RETURN_IF_ERROR(c->WithRank(input, rank));
  std::vector<int64_t> ksizes, strides, rates(rank, 1);
  DFX_RETURN_IF_ERROR(SizedList(c, "ksizes", rank, &ksizes));
  DFX_RETURN_IF_ERROR(SizedList(c, "strides", rank, &strides));
  if (has_rates) DFX_RETURN_IF_ERROR(SizedList(c, "rates", rank, &rates));
  // Values the kernel rejects (windows across batch or depth, non-positive
  // sizes) leave the shape unknown, so the kernel gives TensorFlow's error.
  for (int i = 0; i < rank; ++i) {
    const bool edge = i == 0 || i == rank - 1;
    if ((edge && (ksizes[i] != 1 || strides[i] != 1 || rates[i] != 1)) ||
        ksizes[i] <= 0 || strides[i] <= 0 || rates[i] <= 0) {
      c->set_output(0, UnknownDims(rank));
      return absl::OkStatus();
    }
  }
  std::string padding;
  DFX_RETURN_IF_ERROR(GetNodeAttr(c->node_def(), "padding", &padding));
  PartialShape out = UnknownDims(rank);
  out.dims[0] = DimOr(input, 0);
  int64_t taps = 1;
  for (int i = 1; i < rank - 1; ++i) {
    taps *= ksizes[i];
    DFX_RETURN_IF_ERROR(OutSize(c, DimOr(input, i), ksizes[i], rates[i],
                                strides[i], padding, &out.dims[i]));
  }
  const int64_t depth = DimOr(input, rank - 1);
  out.dims[rank - 1] = depth < 0 ? -1 : depth * taps;
  c->set_output(0, out);
  return absl::OkStatus();
}
absl::Status ImagePatchesShape(InferenceContext* c) {
  return PatchesShape(c, 4, true);
}
absl::Status VolumePatchesShape(InferenceContext* c) {
  return PatchesShape(c, 5, false);
}

// Dilation2D: [N, H, W, C] with a [FH, FW, C] filter -> [N, OH, OW, C].
absl::Status Dilation2DShape(InferenceContext* c) {
  const PartialShape& input = c->input(0);
  const PartialShape& filter = c->input(1);
  DFX_RETURN_IF_ERROR(c->WithRank(input, 4));
  DFX_RETURN_IF_ERROR(c->WithRank(filter, 3));
  std::vector<int64_t> strides, rates;
  DFX_RETURN_IF_ERROR(SizedList(c, "strides", 4, &strides));
  DFX_RETURN_IF_ERROR(SizedList(c, "rates", 4, &rates));
  std::string padding;
  DFX_RETURN_IF_ERROR(GetNodeAttr(c->node_def(), "padding", &padding));
  int64_t depth = -1;
  DFX_RETURN_IF_ERROR(c->MergeDim(DimOr(input, 3), DimOr(filter, 2), &depth));
  PartialShape out = UnknownDims(4);
  out.dims[0] = DimOr(input, 0);
  out.dims[3] = depth;
  for (int i = 0; i < 2; ++i) {
    DFX_RETURN_IF_ERROR(OutSize(c, DimOr(input, 1 + i), DimOr(filter, i),
                                rates[1 + i], strides[1 + i], padding,
                                &out.dims[1 + i]));
  }
  c->set_output(0, out);
  return absl::OkStatus();
}
// The gradients: the shape of input `index` (input or filter).
absl::Status Dilation2DBackpropInputShape(InferenceContext* c) {
  DFX_RETURN_IF_ERROR(c->WithRank(c->input(0), 4));
  c->set_output(0, c->input(0));
  return absl::OkStatus();
}
absl::Status Dilation2DBackpropFilterShape(InferenceContext* c) {
  DFX_RETURN_IF_ERROR(c->WithRank(c->input(1), 3));
  c->set_output(0, c->input(1));
  return absl::OkStatus();
}

constexpr char kPadding[] = "padding: {'SAME', 'VALID'}";
constexpr char kFormat3D[] = "data_format: {'NDHWC', 'NCDHW'} = 'NDHWC'";
constexpr char kDilations3D[] = "dilations: list(int) = [1, 1, 1, 1, 1]";

absl::Status RegisterVolumetricConvOps(OpRegistry* registry) {
  DFX_RETURN_IF_ERROR(registry->Register(
      OpDefBuilder("Conv3D")
          .Input("input: T")
          .Input("filter: T")
          .Output("output: T")
          .Attr("T: {half, bfloat16, float, double}")
          .Attr("strides: list(int) >= 5")
          .Attr(kPadding)
          .Attr(kFormat3D)
          .Attr(kDilations3D)
          .SetShapeFn(Conv3DShape)));
  DFX_RETURN_IF_ERROR(registry->Register(
      OpDefBuilder("Conv3DBackpropInputV2")
          .Input("input_sizes: Tshape")
          .Input("filter: T")
          .Input("out_backprop: T")
          .Output("output: T")
          .Attr("T: {half, bfloat16, float, double}")
          .Attr("strides: list(int) >= 5")
          .Attr(kPadding)
          .Attr(kFormat3D)
          .Attr(kDilations3D)
          .Attr("Tshape: {int32, int64} = DT_INT32")
          .SetShapeFn(Conv3DBackpropInputV2Shape)));
  // Deprecated at GraphDef version 10: input and filter given as tensors,
  // NDHWC only.
  for (const char* name : {"Conv3DBackpropInput", "Conv3DBackpropFilter"}) {
    const bool input_grad = std::string(name) == "Conv3DBackpropInput";
    DFX_ASSIGN_OR_RETURN(
        OpRegistrationData v1,
        OpDefBuilder(name)
            .Input("input: T")
            .Input("filter: T")
            .Input("out_backprop: T")
            .Output("output: T")
            .Attr("T: {half, float, double}")
            .Attr("strides: list(int) >= 5")
            .Attr(kPadding)
            .Attr(kDilations3D)
            .SetShapeFn([input_grad](InferenceContext* c) {
              return Conv3DBackpropV1Shape(c, input_grad ? 0 : 1);
            })
            .Finalize());
    v1.op_def.mutable_deprecation()->set_version(10);
    v1.op_def.mutable_deprecation()->set_explanation(
        input_grad ? "Use Conv3DBackpropInputV2" : "Use Conv3DBackpropFilterV2");
    DFX_RETURN_IF_ERROR(registry->Register(std::move(v1)));
  }
  return registry->Register(
      OpDefBuilder("Conv3DBackpropFilterV2")
          .Input("input: T")
          .Input("filter_sizes: int32")
          .Input("out_backprop: T")
          .Output("output: T")
          .Attr("T: {half, bfloat16, float, double}")
          .Attr("strides: list(int) >= 5")
          .Attr(kPadding)
          .Attr(kFormat3D)
          .Attr(kDilations3D)
          .SetShapeFn(Conv3DBackpropFilterV2Shape));
}

absl::Status RegisterVolumetricPoolOps(OpRegistry* registry) {
  DFX_RETURN_IF_ERROR(registry->Register(
      OpDefBuilder("MaxPool3D")
          .Input("input: T")
          .Output("output: T")
          .Attr("ksize: list(int) >= 5")
          .Attr("strides: list(int) >= 5")
          .Attr(kPadding)
          .Attr(kFormat3D)
          .Attr("T: {half, bfloat16, float}")
          .SetShapeFn(Pool3DShape)));
  DFX_RETURN_IF_ERROR(registry->Register(
      OpDefBuilder("AvgPool3D")
          .Input("input: T")
          .Output("output: T")
          .Attr("ksize: list(int) >= 5")
          .Attr("strides: list(int) >= 5")
          .Attr(kPadding)
          .Attr(kFormat3D)
          .Attr("T: {half, bfloat16, float, double}")
          .SetShapeFn(Pool3DShape)));
  DFX_RETURN_IF_ERROR(registry->Register(
      OpDefBuilder("MaxPool3DGrad")
          .Input("orig_input: TInput")
          .Input("orig_output: TInput")
          .Input("grad: T")
          .Output("output: T")
          .Attr("ksize: list(int) >= 5")
          .Attr("strides: list(int) >= 5")
          .Attr(kPadding)
          .Attr(kFormat3D)
          .Attr("T: {half, bfloat16, float} = DT_FLOAT")
          .Attr("TInput: {half, bfloat16, float} = DT_FLOAT")
          .SetShapeFn(MaxPool3DGradShape)));
  DFX_RETURN_IF_ERROR(registry->Register(
      OpDefBuilder("MaxPool3DGradGrad")
          .Input("orig_input: T")
          .Input("orig_output: T")
          .Input("grad: T")
          .Output("output: T")
          .Attr("ksize: list(int) >= 5")
          .Attr("strides: list(int) >= 5")
          .Attr(kPadding)
          .Attr(kFormat3D)
          .Attr("T: realnumbertype")
          .SetShapeFn(MaxPool3DGradGradShape)));
  return registry->Register(
      OpDefBuilder("AvgPool3DGrad")
          .Input("orig_input_shape: int32")
          .Input("grad: T")
          .Output("output: T")
          .Attr("ksize: list(int) >= 5")
          .Attr("strides: list(int) >= 5")
          .Attr(kPadding)
          .Attr(kFormat3D)
          .Attr("T: {half, bfloat16, float, double}")
          .SetShapeFn(AvgPool3DGradShape));
}


absl::Status RegisterPatchesOps(OpRegistry* registry) {
  DFX_RETURN_IF_ERROR(registry->Register(
      OpDefBuilder("ExtractImagePatches")
          .Input("images: T")
          .Output("patches: T")
          .Attr("ksizes: list(int) >= 4")
          .Attr("strides: list(int) >= 4")
          .Attr("rates: list(int) >= 4")
          .Attr("T: {bfloat16, half, float, double, int8, int16, int32, int64, "
                "uint8, uint16, uint32, uint64, complex64, complex128, bool}")
          .Attr(kPadding)
          .SetShapeFn(ImagePatchesShape)));
  return registry->Register(
      OpDefBuilder("ExtractVolumePatches")
          .Input("input: T")
          .Output("patches: T")
          .Attr("ksizes: list(int) >= 5")
          .Attr("strides: list(int) >= 5")
          .Attr("T: realnumbertype")
          .Attr(kPadding)
          .SetShapeFn(VolumePatchesShape));
}

absl::Status RegisterDilationOps(OpRegistry* registry) {
  DFX_RETURN_IF_ERROR(registry->Register(
      OpDefBuilder("Dilation2D")
          .Input("input: T")
          .Input("filter: T")
          .Output("output: T")
          .Attr("T: realnumbertype")
          .Attr("strides: list(int) >= 4")
          .Attr("rates: list(int) >= 4")
          .Attr(kPadding)
          .SetShapeFn(Dilation2DShape)));
  DFX_RETURN_IF_ERROR(registry->Register(
      OpDefBuilder("Dilation2DBackpropInput")
          .Input("input: T")
          .Input("filter: T")
          .Input("out_backprop: T")
          .Output("in_backprop: T")
          .Attr("T: realnumbertype")
          .Attr("strides: list(int) >= 4")
          .Attr("rates: list(int) >= 4")
          .Attr(kPadding)
          .SetShapeFn(Dilation2DBackpropInputShape)));
  return registry->Register(
      OpDefBuilder("Dilation2DBackpropFilter")
          .Input("input: T")
          .Input("filter: T")
          .Input("out_backprop: T")
          .Output("filter_backprop: T")
          .Attr("T: realnumbertype")
          .Attr("strides: list(int) >= 4")
          .Attr("rates: list(int) >= 4")
          .Attr(kPadding)
          .SetShapeFn(Dilation2DBackpropFilterShape));
}

}  // namespace

absl::Status RegisterVolumetricOps(OpRegistry* registry) {
  DFX_RETURN_IF_ERROR(RegisterVolumetricConvOps(registry));
  DFX_RETURN_IF_ERROR(RegisterVolumetricPoolOps(registry));
  DFX_RETURN_IF_ERROR(RegisterPatchesOps(registry));
  return RegisterDilationOps(registry);
}

}  // namespace dfx
