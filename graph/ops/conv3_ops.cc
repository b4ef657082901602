// The conv3 family: TensorFlow's generic N-D convolution Conv, the fused
// mirror-pad (and bilinear resize) convolutions FusedPadConv2D and
// FusedResizeAndPadConv2D that graph_transforms' fuse_pad_and_conv and
// fuse_resize_pad_and_conv write, ApproxTopK (exact on CPU), RefSelect and
// the test op Fact, and the quantized QuantizedResizeBilinear and
// QuantizedInstanceNorm. Signatures follow TensorFlow 2.21's nn_ops.cc,
// array_ops.cc, control_flow_ops.cc and user_ops.cc; the shape functions
// give the output shapes and reject what TensorFlow's reject at graph
// construction.
#include <cstdint>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "graph/node_def_util.h"
#include "graph/op_registry.h"

namespace dfx {
namespace {

int64_t DimAt(const PartialShape& s, int i) {
  return s.RankKnown() && i >= 0 && i < s.rank() ? s.dims[i] : -1;
}

// One windowed output size, -1 when the input or window is unknown.
absl::Status WindowOut(InferenceContext* c, int64_t in, int64_t window,
                       int64_t dilation, int64_t stride,
                       const std::string& padding, int64_t before,
                       int64_t after, int64_t* out) {
  *out = -1;
  if (stride < 1) {
    return c->Error(absl::StrCat("Stride must be > 0, but got ", stride));
  }
  if (dilation < 1) {
    return c->Error(
        absl::StrCat("Dilation rate must be >= 1, but got ", dilation));
  }
  if (in < 0 || window < 0) return absl::OkStatus();
  const int64_t effective = (window - 1) * dilation + 1;
  if (padding == "VALID") {
    *out = (in - effective + stride) / stride;
  } else if (padding == "SAME") {
    *out = (in + stride - 1) / stride;
  } else {
    *out = (in + before + after - effective + stride) / stride;
  }
  if (*out < 0) {
    return c->Error(absl::StrCat(
        "Computed output size would be negative: ", *out, " [input_size: ", in,
        ", effective_filter_size: ", effective, ", stride: ", stride, "]"));
  }
  return absl::OkStatus();
}

// Conv: [batch dims..., spatial..., channels] (or channels first) and an
// HWIO / DHWIO filter.
absl::Status ConvShape(InferenceContext* c) {
  const PartialShape& input = c->input(0);
  const PartialShape& filter = c->input(1);
  int64_t batch_dims = 1, groups = 1;
  std::string format, padding;
  std::vector<int64_t> strides, dilations, explicit_paddings;
  DFX_RETURN_IF_ERROR(GetNodeAttr(c->node_def(), "batch_dims", &batch_dims));
  DFX_RETURN_IF_ERROR(GetNodeAttr(c->node_def(), "groups", &groups));
  DFX_RETURN_IF_ERROR(GetNodeAttr(c->node_def(), "data_format", &format));
  DFX_RETURN_IF_ERROR(GetNodeAttr(c->node_def(), "padding", &padding));
  DFX_RETURN_IF_ERROR(GetNodeAttr(c->node_def(), "strides", &strides));
  DFX_RETURN_IF_ERROR(GetNodeAttr(c->node_def(), "dilations", &dilations));
  DFX_RETURN_IF_ERROR(
      GetNodeAttr(c->node_def(), "explicit_paddings", &explicit_paddings));
  if (batch_dims < 0) {
    return c->Error("Batch dims must be non-negative");
  }
  if (!input.RankKnown()) {
    c->set_output(0, PartialShape::Unknown());
    return absl::OkStatus();
  }
  const int64_t standard_rank = input.rank() - batch_dims + 1;
  if (standard_rank != 4 && standard_rank != 5) {
    return c->Error(absl::StrCat(
        "Input tensor must be rank 4 or 5, excluding extra batch dimensions, "
        "but got: ",
        standard_rank));
  }
  const int spatial = static_cast<int>(standard_rank) - 2;
  if (filter.RankKnown() && filter.rank() != spatial + 2) {
    return c->Error(absl::StrCat("Filter tensor must be rank ", spatial + 2,
                                 " but got: ", filter.rank()));
  }
  if (static_cast<int>(strides.size()) != spatial + 2) {
    return c->Error(absl::StrCat("Stride attribute should contain ",
                                 spatial + 2,
                                 " values, but got: ", strides.size()));
  }
  if (dilations.empty()) dilations.assign(spatial + 2, 1);
  if (static_cast<int>(dilations.size()) != spatial + 2) {
    return c->Error(absl::StrCat("Dilation attribute should contain ",
                                 spatial + 2,
                                 " values, but got: ", dilations.size()));
  }
  if (padding == "EXPLICIT") {
    if (spatial == 3) {
      return c->Error("Explicit padding not supported for 3D Convolution");
    }
    if (static_cast<int>(explicit_paddings.size()) != 2 * (spatial + 2)) {
      return c->Error(absl::StrCat(
          "explicit_paddings attribute must contain ", 2 * (spatial + 2),
          " values, but got: ", explicit_paddings.size()));
    }
  } else if (!explicit_paddings.empty()) {
    return c->Error(
        "explicit_paddings attribute must be empty if the padding attribute "
        "is not EXPLICIT");
  }
  const bool first = format == "CHANNELS_FIRST";
  const int b = static_cast<int>(batch_dims);
  // Positions within the standard (one batch dim) layout.
  const int channel = first ? 1 : spatial + 1;
  const int spatial0 = first ? 2 : 1;
  const int64_t in_depth = DimAt(input, b - 1 + channel);
  const int64_t filter_in = DimAt(filter, spatial);
  if (in_depth >= 0 && filter_in > 0 && in_depth % filter_in != 0) {
    return c->Error(absl::StrCat(
        "Depth of input (", in_depth,
        ") is not a multiple of input depth of filter (", filter_in, ")"));
  }
  if (in_depth >= 0 && filter_in > 0 && in_depth / filter_in != groups) {
    return c->Error(absl::StrCat("Input depth divided by filter input depth (",
                                 in_depth / filter_in,
                                 ") does not match groups (", groups, ")"));
  }
  std::vector<int64_t> dims(input.dims.begin(), input.dims.begin() + b);
  std::vector<int64_t> outs(spatial);
  for (int i = 0; i < spatial; ++i) {
    const int pos = spatial0 + i;
    DFX_RETURN_IF_ERROR(WindowOut(
        c, DimAt(input, b - 1 + pos), DimAt(filter, i), dilations[pos],
        strides[pos], padding,
        padding == "EXPLICIT" ? explicit_paddings[2 * pos] : 0,
        padding == "EXPLICIT" ? explicit_paddings[2 * pos + 1] : 0, &outs[i]));
  }
  const int64_t out_depth = DimAt(filter, spatial + 1);
  if (first) dims.push_back(out_depth);
  dims.insert(dims.end(), outs.begin(), outs.end());
  if (!first) dims.push_back(out_depth);
  c->set_output(0, PartialShape::Known(dims));
  return absl::OkStatus();
}

// The fused convolutions: NHWC input, a [4, 2] paddings matrix, an HWIO
// filter. The output's batch and depth, and its spatial dims when the
// sizes and paddings are constants.
absl::Status FusedConvShape(InferenceContext* c, bool resize) {
  const int pad_index = resize ? 2 : 1;
  const PartialShape& input = c->input(0);
  const PartialShape& filter = c->input(pad_index + 1);
  DFX_RETURN_IF_ERROR(c->WithRank(input, 4));
  DFX_RETURN_IF_ERROR(c->WithRank(filter, 4));
  DFX_RETURN_IF_ERROR(c->WithRank(c->input(pad_index), 2));
  if (resize) DFX_RETURN_IF_ERROR(c->WithRank(c->input(1), 1));
  c->set_output(
      0, PartialShape::Known({DimAt(input, 0), -1, -1, DimAt(filter, 3)}));
  return absl::OkStatus();
}

}  // namespace

absl::Status RegisterConv3Ops(OpRegistry* r) {
  DFX_RETURN_IF_ERROR(r->Register(
      OpDefBuilder("Conv")
          .Input("input: T")
          .Input("filter: T")
          .Output("output: T")
          .Attr("T: {half, bfloat16, float, double, int32}")
          .Attr("strides: list(int)")
          .Attr("padding: {'SAME', 'VALID', 'EXPLICIT'}")
          .Attr("explicit_paddings: list(int) = []")
          .Attr("data_format: {'CHANNELS_FIRST', 'CHANNELS_LAST'} = "
                "'CHANNELS_LAST'")
          .Attr("dilations: list(int) = []")
          .Attr("batch_dims: int = 1")
          .Attr("groups: int = 1")
          .SetShapeFn(ConvShape)));
  DFX_RETURN_IF_ERROR(
      r->Register(OpDefBuilder("FusedResizeAndPadConv2D")
                      .Input("input: T")
                      .Input("size: int32")
                      .Input("paddings: int32")
                      .Input("filter: T")
                      .Output("output: T")
                      .Attr("T: {half, float, double}")
                      .Attr("resize_align_corners: bool = false")
                      .Attr("mode: {'REFLECT', 'SYMMETRIC'}")
                      .Attr("strides: list(int)")
                      .Attr("padding: {'SAME', 'VALID'}")
                      .SetShapeFn([](InferenceContext* c) {
                        return FusedConvShape(c, true);
                      })));
  DFX_RETURN_IF_ERROR(
      r->Register(OpDefBuilder("FusedPadConv2D")
                      .Input("input: T")
                      .Input("paddings: int32")
                      .Input("filter: T")
                      .Output("output: T")
                      .Attr("T: {half, bfloat16, float, double}")
                      .Attr("mode: {'REFLECT', 'SYMMETRIC'}")
                      .Attr("strides: list(int)")
                      .Attr("padding: {'SAME', 'VALID'}")
                      .SetShapeFn([](InferenceContext* c) {
                        return FusedConvShape(c, false);
                      })));
  DFX_RETURN_IF_ERROR(r->Register(
      OpDefBuilder("ApproxTopK")
          .Input("input: T")
          .Output("values: T")
          .Output("indices: int32")
          .Attr("k: int >= 0")
          .Attr("reduction_dimension: int = -1")
          .Attr("recall_target: float = 0.95")
          .Attr("is_max_k: bool = true")
          .Attr("reduction_input_size_override: int = -1")
          .Attr("aggregate_to_topk: bool = true")
          .Attr("T: {half, bfloat16, float}")
          .SetShapeFn([](InferenceContext* c) {
            int64_t k = 0, dim = -1;
            bool aggregate = true;
            DFX_RETURN_IF_ERROR(GetNodeAttr(c->node_def(), "k", &k));
            DFX_RETURN_IF_ERROR(
                GetNodeAttr(c->node_def(), "reduction_dimension", &dim));
            DFX_RETURN_IF_ERROR(
                GetNodeAttr(c->node_def(), "aggregate_to_topk", &aggregate));
            // TensorFlow's shape function refuses an unknown rank at graph
            // construction; dfx's graphs may lose it across devices, so
            // here it gives unknown outputs.
            const PartialShape& input = c->input(0);
            if (!input.RankKnown()) {
              c->set_output(0, PartialShape::Unknown());
              c->set_output(1, PartialShape::Unknown());
              return absl::OkStatus();
            }
            const int rank = input.rank();
            if (dim < -rank || dim >= rank) {
              return c->Error(absl::StrCat("Invalid reduction dimension: ", dim,
                                           ". Must be within the range of [",
                                           -rank, ", ", rank - 1, "]"));
            }
            if (dim < 0) dim += rank;
            std::vector<int64_t> dims = input.dims;
            if (dims[dim] >= 0 && dims[dim] < k) {
              return c->Error(
                  absl::StrCat("input must have last dimension >= k = ", k,
                               " but was ", dims[dim]));
            }
            if (aggregate) dims[dim] = k;
            c->set_output(0, PartialShape::Known(dims));
            c->set_output(1, PartialShape::Known(dims));
            return absl::OkStatus();
          })));
  DFX_RETURN_IF_ERROR(
      r->Register(OpDefBuilder("RefSelect")
                      .Input("index: int32")
                      .Input("inputs: Ref(N * T)")
                      .Output("output: Ref(T)")
                      .Attr("T: type")
                      .Attr("N: int >= 1")
                      .SetShapeFn([](InferenceContext* c) {
                        DFX_RETURN_IF_ERROR(c->WithRank(c->input(0), 0));
                        PartialShape first = c->input(1);
                        for (int i = 2; i < c->num_inputs(); ++i) {
                          const PartialShape& s = c->input(i);
                          if (!first.RankKnown() || !s.RankKnown() ||
                              first.rank() != s.rank()) {
                            first = PartialShape::Unknown();
                            break;
                          }
                          for (int d = 0; d < first.rank(); ++d) {
                            if (first.dims[d] != s.dims[d]) first.dims[d] = -1;
                          }
                        }
                        c->set_output(0, first);
                        return absl::OkStatus();
                      })));
  DFX_RETURN_IF_ERROR(r->Register(
      OpDefBuilder("QuantizedResizeBilinear")
          .Input("images: T")
          .Input("size: int32")
          .Input("min: float")
          .Input("max: float")
          .Output("resized_images: T")
          .Output("out_min: float")
          .Output("out_max: float")
          .Attr("T: {quint8, qint32, float}")
          .Attr("align_corners: bool = false")
          .Attr("half_pixel_centers: bool = false")
          .SetShapeFn([](InferenceContext* c) {
            const PartialShape& input = c->input(0);
            DFX_RETURN_IF_ERROR(c->WithRank(input, 4));
            DFX_RETURN_IF_ERROR(c->WithRank(c->input(1), 1));
            DFX_RETURN_IF_ERROR(c->WithRank(c->input(2), 0));
            DFX_RETURN_IF_ERROR(c->WithRank(c->input(3), 0));
            c->set_output(0, PartialShape::Known(
                                 {DimAt(input, 0), -1, -1, DimAt(input, 3)}));
            c->set_output(1, PartialShape::Scalar());
            c->set_output(2, PartialShape::Scalar());
            return absl::OkStatus();
          })));
  DFX_RETURN_IF_ERROR(
      r->Register(OpDefBuilder("QuantizedInstanceNorm")
                      .Input("x: T")
                      .Input("x_min: float")
                      .Input("x_max: float")
                      .Output("y: T")
                      .Output("y_min: float")
                      .Output("y_max: float")
                      .Attr("T: {qint8, quint8, qint32, qint16, quint16}")
                      .Attr("output_range_given: bool = false")
                      .Attr("given_y_min: float = 0")
                      .Attr("given_y_max: float = 0")
                      .Attr("variance_epsilon: float = 1e-05")
                      .Attr("min_separation: float = 0.001")
                      .SetShapeFn([](InferenceContext* c) {
                        DFX_RETURN_IF_ERROR(c->WithRank(c->input(0), 4));
                        DFX_RETURN_IF_ERROR(c->WithRank(c->input(1), 0));
                        DFX_RETURN_IF_ERROR(c->WithRank(c->input(2), 0));
                        c->set_output(0, c->input(0));
                        c->set_output(1, PartialShape::Scalar());
                        c->set_output(2, PartialShape::Scalar());
                        return absl::OkStatus();
                      })));
  DFX_RETURN_IF_ERROR(r->Register(OpDefBuilder("Fact")
                                      .Output("fact: string")
                                      .SetShapeFn([](InferenceContext* c) {
                                        c->set_output(0,
                                                      PartialShape::Unknown());
                                        return absl::OkStatus();
                                      })));
  return absl::OkStatus();
}

}  // namespace dfx
