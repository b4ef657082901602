// Convolution, pooling and batch-normalization ops, forward and gradient,
// with their shape functions. Signatures follow TensorFlow 2.21's nn_ops.cc;
// the shape functions follow its common_shape_fns.cc (Conv2DShapeImpl,
// DepthwiseConv2DNativeShapeImpl, MaxPoolShapeImpl, AvgPoolShape,
// FusedBatchNormShape and their gradients).
#include <cstdint>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "base/status_macros.h"
#include "graph/node_def_util.h"
#include "graph/ops/ops.h"

namespace dfx {
namespace {

// Layout of a 4-D (or 5-D) activation tensor.
struct Layout {
  bool nchw = false;
  int rank = 4;
  int batch() const { return 0; }
  int channel() const { return nchw ? 1 : rank - 1; }
  // Spatial dim i (0 = rows).
  int spatial(int i) const { return nchw ? 2 + i : 1 + i; }
};

absl::Status GetLayout(InferenceContext* c, int rank, Layout* layout) {
  std::string format = "NHWC";
  if (FindNodeAttr(c->node_def(), "data_format") != nullptr) {
    DFX_RETURN_IF_ERROR(GetNodeAttr(c->node_def(), "data_format", &format));
  }
  if (format != "NHWC" && format != "NCHW" && format != "NDHWC" &&
      format != "NCDHW") {
    return c->Error(absl::StrCat("Invalid data format ", format));
  }
  layout->nchw = format == "NCHW" || format == "NCDHW";
  layout->rank = rank;
  return absl::OkStatus();
}

int64_t DimOrUnknown(const PartialShape& s, int i) {
  return s.RankKnown() && i < s.rank() ? s.dims[i] : -1;
}

// The output size of one windowed dimension, as TensorFlow's
// GetWindowedOutputSizeVerbose computes it; -1 when the input size is not
// known. `pad_before`/`pad_after` are used for EXPLICIT padding only.
absl::Status WindowedOutputSize(InferenceContext* c, int64_t in, int64_t window,
                                int64_t dilation, int64_t stride,
                                const std::string& padding, int64_t pad_before,
                                int64_t pad_after, int64_t* out) {
  if (stride <= 0) {
    return c->Error(absl::StrCat("Stride must be > 0, but got ", stride));
  }
  if (dilation < 1) {
    return c->Error(
        absl::StrCat("Dilation rate must be >= 1, but got ", dilation));
  }
  if (in < 0 || window < 0) {
    *out = -1;
    return absl::OkStatus();
  }
  const int64_t effective = (window - 1) * dilation + 1;
  if (padding == "VALID") {
    *out = (in - effective + stride) / stride;
  } else if (padding == "SAME") {
    *out = (in + stride - 1) / stride;
  } else {
    *out = (in + pad_before + pad_after - effective + stride) / stride;
  }
  if (*out < 0) {
    return c->Error(absl::StrCat(
        "Computed output size would be negative: ", *out,
        " [input_size: ", in, ", effective_filter_size: ", effective,
        ", stride: ", stride, "]"));
  }
  return absl::OkStatus();
}

// Reads a list(int) attr that must hold `size` values.
absl::Status GetSizedList(InferenceContext* c, const char* attr,
                          const char* what, size_t size,
                          std::vector<int64_t>* values) {
  DFX_RETURN_IF_ERROR(GetNodeAttr(c->node_def(), attr, values));
  if (values->size() != size) {
    return c->Error(absl::StrCat(c->node_def().op(), " requires the ", what,
                                 " attribute to contain ", size,
                                 " values, but got: ", values->size()));
  }
  return absl::OkStatus();
}

// Explicit paddings of the node when padding is EXPLICIT (pairs per dim of a
// rank-4 tensor), checked as TensorFlow's CheckValidPadding does.
absl::Status GetExplicitPaddings(InferenceContext* c, const std::string& padding,
                                 const Layout& layout,
                                 std::vector<int64_t>* paddings) {
  paddings->clear();
  if (FindNodeAttr(c->node_def(), "explicit_paddings") == nullptr) {
    return absl::OkStatus();
  }
  DFX_RETURN_IF_ERROR(
      GetNodeAttr(c->node_def(), "explicit_paddings", paddings));
  if (padding != "EXPLICIT") {
    if (!paddings->empty()) {
      return c->Error(
          "explicit_paddings attr must be empty if padding is not explicit.");
    }
    return absl::OkStatus();
  }
  if (paddings->size() != 8) {
    return c->Error(absl::StrCat(
        "explicit_paddings attribute must contain 8 values, but got: ",
        paddings->size()));
  }
  for (int64_t p : *paddings) {
    if (p < 0) {
      return c->Error(absl::StrCat("All elements of explicit_paddings must "
                                   "be nonnegative, but got: ",
                                   p));
    }
  }
  const int n = layout.batch();
  const int ch = layout.channel();
  if ((*paddings)[2 * n] != 0 || (*paddings)[2 * n + 1] != 0 ||
      (*paddings)[2 * ch] != 0 || (*paddings)[2 * ch + 1] != 0) {
    return c->Error(
        "Nonzero explicit padding in the batch or depth dimensions is not "
        "supported");
  }
  return absl::OkStatus();
}

PartialShape MakeShape(const Layout& layout, int64_t n, int64_t h, int64_t w,
                       int64_t ch) {
  PartialShape s = UnknownDims(4);
  s.dims[layout.batch()] = n;
  s.dims[layout.spatial(0)] = h;
  s.dims[layout.spatial(1)] = w;
  s.dims[layout.channel()] = ch;
  return s;
}

// Conv2D and DepthwiseConv2dNative.
absl::Status ConvShape(InferenceContext* c, bool depthwise) {
  const PartialShape& input = c->input(0);
  const PartialShape& filter = c->input(1);
  DFX_RETURN_IF_ERROR(c->WithRank(input, 4));
  DFX_RETURN_IF_ERROR(c->WithRank(filter, 4));
  Layout layout;
  DFX_RETURN_IF_ERROR(GetLayout(c, 4, &layout));
  std::vector<int64_t> strides, dilations, paddings;
  DFX_RETURN_IF_ERROR(GetSizedList(c, "strides", "stride", 4, &strides));
  DFX_RETURN_IF_ERROR(
      GetSizedList(c, "dilations", "dilation", 4, &dilations));
  std::string padding;
  DFX_RETURN_IF_ERROR(GetNodeAttr(c->node_def(), "padding", &padding));
  DFX_RETURN_IF_ERROR(GetExplicitPaddings(c, padding, layout, &paddings));

  const int64_t batch = DimOrUnknown(input, layout.batch());
  const int64_t in_rows = DimOrUnknown(input, layout.spatial(0));
  const int64_t in_cols = DimOrUnknown(input, layout.spatial(1));
  const int64_t in_depth = DimOrUnknown(input, layout.channel());
  const int64_t filter_rows = DimOrUnknown(filter, 0);
  const int64_t filter_cols = DimOrUnknown(filter, 1);
  const int64_t filter_in = DimOrUnknown(filter, 2);
  const int64_t filter_out = DimOrUnknown(filter, 3);

  int64_t out_depth = -1;
  if (depthwise) {
    int64_t merged;
    if (in_depth >= 0 && filter_in >= 0 && in_depth != filter_in) {
      return c->Error(absl::StrCat(
          "input and filter must have the same depth: ", in_depth, " vs ",
          filter_in));
    }
    DFX_RETURN_IF_ERROR(c->MergeDim(in_depth, filter_in, &merged));
    if (merged >= 0 && filter_out >= 0) out_depth = merged * filter_out;
  } else {
    if (in_depth >= 0 && filter_in >= 0) {
      if (filter_in == 0 || in_depth % filter_in != 0) {
        return c->Error(absl::StrCat("Depth of input (", in_depth,
                                     ") is not a multiple of input depth of "
                                     "filter (",
                                     filter_in, ")"));
      }
      const int64_t groups = in_depth / filter_in;
      if (filter_out >= 0 && filter_out % groups != 0) {
        return c->Error(absl::StrCat("Depth of output (", filter_out,
                                     ") is not a multiple of the number of "
                                     "groups (",
                                     groups, ")"));
      }
    }
    out_depth = filter_out;
  }

  const int rh = layout.spatial(0), rw = layout.spatial(1);
  int64_t out_rows = -1, out_cols = -1;
  DFX_RETURN_IF_ERROR(WindowedOutputSize(
      c, in_rows, filter_rows, dilations[rh], strides[rh], padding,
      paddings.empty() ? 0 : paddings[2 * rh],
      paddings.empty() ? 0 : paddings[2 * rh + 1], &out_rows));
  DFX_RETURN_IF_ERROR(WindowedOutputSize(
      c, in_cols, filter_cols, dilations[rw], strides[rw], padding,
      paddings.empty() ? 0 : paddings[2 * rw],
      paddings.empty() ? 0 : paddings[2 * rw + 1], &out_cols));
  c->set_output(0, MakeShape(layout, batch, out_rows, out_cols, out_depth));
  return absl::OkStatus();
}

absl::Status Conv2DShape(InferenceContext* c) { return ConvShape(c, false); }
absl::Status DepthwiseShape(InferenceContext* c) { return ConvShape(c, true); }

// The output of a backprop op whose shape is the value of input `index`
// (input_sizes, filter_sizes, orig_input_shape): known when that input is a
// constant, else a rank-4 shape of unknown dims. With `allow_two`, a
// two-element input_sizes names the spatial dims only (Conv2DBackpropInput):
// batch comes from out_backprop and depth from the filter.
absl::Status ShapeFromSizesInput(InferenceContext* c, int index,
                                 bool allow_two) {
  const PartialShape& sizes = c->input(index);
  DFX_RETURN_IF_ERROR(c->WithRank(sizes, 1));
  std::vector<int64_t> values;
  if (!ConstantInts(c->input_tensor(index), &values)) {
    c->set_output(0, UnknownDims(4));
    return absl::OkStatus();
  }
  if (values.size() == 4) {
    for (int64_t v : values) {
      if (v < 0) {
        return c->Error(absl::StrCat("Dimension size must be non-negative, "
                                     "but got ",
                                     v));
      }
    }
    c->set_output(0, PartialShape::Known(values));
    return absl::OkStatus();
  }
  if (allow_two && values.size() == 2) {
    Layout layout;
    DFX_RETURN_IF_ERROR(GetLayout(c, 4, &layout));
    const int64_t batch = DimOrUnknown(c->input(2), layout.batch());
    const int64_t depth = DimOrUnknown(c->input(1), 2);
    c->set_output(0, MakeShape(layout, batch, values[0], values[1], depth));
    return absl::OkStatus();
  }
  return c->Error(absl::StrCat(
      c->node_def().op(), " requires input_sizes to contain 4 values",
      allow_two ? " or 2 values" : "", ", but got: ", values.size()));
}

absl::Status BackpropInputShape(InferenceContext* c) {
  DFX_RETURN_IF_ERROR(c->WithRank(c->input(1), 4));
  DFX_RETURN_IF_ERROR(c->WithRank(c->input(2), 4));
  return ShapeFromSizesInput(c, 0, c->node_def().op() == "Conv2DBackpropInput");
}

absl::Status BackpropFilterShape(InferenceContext* c) {
  DFX_RETURN_IF_ERROR(c->WithRank(c->input(0), 4));
  DFX_RETURN_IF_ERROR(c->WithRank(c->input(2), 4));
  return ShapeFromSizesInput(c, 1, false);
}

// Pooling with ksize/strides from attrs (or, for the V2 ops, from constant
// inputs 1 and 2). `depth_pooling` allows a window over depth (MaxPool).
absl::Status PoolShapeFrom(InferenceContext* c,
                           const std::vector<int64_t>& ksize,
                           const std::vector<int64_t>& strides,
                           bool depth_pooling) {
  const PartialShape& input = c->input(0);
  DFX_RETURN_IF_ERROR(c->WithRank(input, 4));
  Layout layout;
  DFX_RETURN_IF_ERROR(GetLayout(c, 4, &layout));
  std::string padding;
  DFX_RETURN_IF_ERROR(GetNodeAttr(c->node_def(), "padding", &padding));
  std::vector<int64_t> paddings;
  DFX_RETURN_IF_ERROR(GetExplicitPaddings(c, padding, layout, &paddings));
  const int rh = layout.spatial(0), rw = layout.spatial(1);
  const int ch = layout.channel();
  int64_t out_rows = -1, out_cols = -1;
  DFX_RETURN_IF_ERROR(WindowedOutputSize(
      c, DimOrUnknown(input, rh), ksize[rh], 1, strides[rh], padding,
      paddings.empty() ? 0 : paddings[2 * rh],
      paddings.empty() ? 0 : paddings[2 * rh + 1], &out_rows));
  DFX_RETURN_IF_ERROR(WindowedOutputSize(
      c, DimOrUnknown(input, rw), ksize[rw], 1, strides[rw], padding,
      paddings.empty() ? 0 : paddings[2 * rw],
      paddings.empty() ? 0 : paddings[2 * rw + 1], &out_cols));
  int64_t out_depth = DimOrUnknown(input, ch);
  if (depth_pooling && (ksize[ch] != 1 || strides[ch] != 1)) {
    DFX_RETURN_IF_ERROR(WindowedOutputSize(c, out_depth, ksize[ch], 1,
                                           strides[ch], padding, 0, 0,
                                           &out_depth));
  }
  c->set_output(0, MakeShape(layout, DimOrUnknown(input, 0), out_rows,
                             out_cols, out_depth));
  return absl::OkStatus();
}

absl::Status PoolShape(InferenceContext* c, bool depth_pooling) {
  std::vector<int64_t> ksize, strides;
  DFX_RETURN_IF_ERROR(GetSizedList(c, "ksize", "ksize", 4, &ksize));
  DFX_RETURN_IF_ERROR(GetSizedList(c, "strides", "stride", 4, &strides));
  return PoolShapeFrom(c, ksize, strides, depth_pooling);
}

absl::Status MaxPoolShape(InferenceContext* c) { return PoolShape(c, true); }
absl::Status AvgPoolShape(InferenceContext* c) { return PoolShape(c, false); }

// MaxPoolWithArgmax: both outputs have the pooled shape.
absl::Status MaxPoolWithArgmaxShape(InferenceContext* c) {
  DFX_RETURN_IF_ERROR(MaxPoolShape(c));
  c->set_output(1, c->output(0));
  return absl::OkStatus();
}

absl::Status MaxPoolV2Shape(InferenceContext* c) {
  DFX_RETURN_IF_ERROR(c->WithRank(c->input(0), 4));
  std::vector<int64_t> ksize, strides;
  if (!ConstantInts(c->input_tensor(1), &ksize) ||
      !ConstantInts(c->input_tensor(2), &strides)) {
    c->set_output(0, UnknownDims(4));
    return absl::OkStatus();
  }
  if (ksize.size() != 4) {
    return c->Error(absl::StrCat(
        "MaxPool requires ksize to contain 4 values, but got: ",
        ksize.size()));
  }
  if (strides.size() != 4) {
    return c->Error(absl::StrCat(
        "MaxPool requires strides to contain 4 values, but got: ",
        strides.size()));
  }
  return PoolShapeFrom(c, ksize, strides, true);
}

// MaxPoolGrad(V2): the output has the shape of orig_input.
absl::Status MaxPoolGradShape(InferenceContext* c) {
  DFX_RETURN_IF_ERROR(c->WithRank(c->input(0), 4));
  c->set_output(0, c->input(0));
  return absl::OkStatus();
}

// MaxPoolGradGrad: orig_output's shape.
absl::Status MaxPoolGradGradShape(InferenceContext* c) {
  DFX_RETURN_IF_ERROR(c->WithRank(c->input(0), 4));
  DFX_RETURN_IF_ERROR(c->WithRank(c->input(1), 4));
  c->set_output(0, c->input(1));
  return absl::OkStatus();
}

absl::Status AvgPoolGradShape(InferenceContext* c) {
  DFX_RETURN_IF_ERROR(c->WithRank(c->input(1), 4));
  return ShapeFromSizesInput(c, 0, false);
}

// Rank of x for batch norm: 4, or 5 for the 3-D formats of V3.
absl::Status BatchNormLayout(InferenceContext* c, const PartialShape& x,
                             Layout* layout) {
  std::string format = "NHWC";
  DFX_RETURN_IF_ERROR(GetNodeAttr(c->node_def(), "data_format", &format));
  const int rank = (format == "NDHWC" || format == "NCDHW") ? 5 : 4;
  DFX_RETURN_IF_ERROR(c->WithRank(x, rank));
  return GetLayout(c, rank, layout);
}

absl::Status MergeVector(InferenceContext* c, const PartialShape& v,
                         int64_t* channels) {
  DFX_RETURN_IF_ERROR(c->WithRank(v, 1));
  return c->MergeDim(*channels, DimOrUnknown(v, 0), channels);
}

absl::Status FusedBatchNormShape(InferenceContext* c) {
  PartialShape x = c->input(0);
  Layout layout;
  DFX_RETURN_IF_ERROR(BatchNormLayout(c, x, &layout));
  bool is_training = true;
  DFX_RETURN_IF_ERROR(GetNodeAttr(c->node_def(), "is_training", &is_training));
  float exponential_avg_factor = 1.0f;
  if (FindNodeAttr(c->node_def(), "exponential_avg_factor") != nullptr) {
    DFX_RETURN_IF_ERROR(GetNodeAttr(c->node_def(), "exponential_avg_factor",
                                    &exponential_avg_factor));
  }
  int64_t channels = DimOrUnknown(x, layout.channel());
  DFX_RETURN_IF_ERROR(MergeVector(c, c->input(1), &channels));
  DFX_RETURN_IF_ERROR(MergeVector(c, c->input(2), &channels));
  // In training with a factor of 1 the running mean and variance are not
  // read, and may be empty.
  const int num_stats = (!is_training || exponential_avg_factor != 1.0f) ? 5 : 3;
  for (int i = 3; i < num_stats; ++i) {
    DFX_RETURN_IF_ERROR(MergeVector(c, c->input(i), &channels));
  }
  if (num_stats == 3) {
    DFX_RETURN_IF_ERROR(c->WithRank(c->input(3), 1));
    DFX_RETURN_IF_ERROR(c->WithRank(c->input(4), 1));
  }
  if (x.RankKnown()) x.dims[layout.channel()] = channels;
  c->set_output(0, x);
  for (int i = 1; i < 5; ++i) c->set_output(i, PartialShape::Known({channels}));
  if (c->num_outputs() > 5) c->set_output(5, PartialShape::Unknown());
  return absl::OkStatus();
}

absl::Status FusedBatchNormGradShape(InferenceContext* c) {
  PartialShape y_backprop = c->input(0);
  Layout layout;
  DFX_RETURN_IF_ERROR(BatchNormLayout(c, y_backprop, &layout));
  // x of the same rank too: merged with an unknown y_backprop, a scalar x
  // would leave no channel dim to set below.
  DFX_RETURN_IF_ERROR(BatchNormLayout(c, c->input(1), &layout));
  PartialShape x;
  DFX_RETURN_IF_ERROR(c->Merge(y_backprop, c->input(1), &x));
  int64_t channels = DimOrUnknown(x, layout.channel());
  for (int i = 2; i < 5; ++i) {
    DFX_RETURN_IF_ERROR(MergeVector(c, c->input(i), &channels));
  }
  if (x.RankKnown()) x.dims[layout.channel()] = channels;
  c->set_output(0, x);
  c->set_output(1, PartialShape::Known({channels}));
  c->set_output(2, PartialShape::Known({channels}));
  c->set_output(3, PartialShape::Known({0}));
  c->set_output(4, PartialShape::Known({0}));
  return absl::OkStatus();
}

constexpr char kConvTypes[] = "T: {half, bfloat16, float, double, int32}";
constexpr char kFloatTypes[] = "T: {half, bfloat16, float, double}";
constexpr char kPaddingWithExplicit[] =
    "padding: {'SAME', 'VALID', 'EXPLICIT'}";
constexpr char kPadding[] = "padding: {'SAME', 'VALID'}";
constexpr char kFormat[] = "data_format: {'NHWC', 'NCHW'} = 'NHWC'";
constexpr char kDilations[] = "dilations: list(int) = [1, 1, 1, 1]";
constexpr char kMaxPoolTypes[] =
    "T: {half, bfloat16, float, double, int32, int64, uint8, int16, int8, "
    "uint16, qint8} = DT_FLOAT";
constexpr char kMaxPoolGradTypes[] = "T: realnumbertype = DT_FLOAT";

absl::Status RegisterConvolutions(OpRegistry* registry) {
  DFX_RETURN_IF_ERROR(registry->Register(
      OpDefBuilder("Conv2D")
          .Input("input: T")
          .Input("filter: T")
          .Output("output: T")
          .Attr(kConvTypes)
          .Attr("strides: list(int)")
          .Attr("use_cudnn_on_gpu: bool = true")
          .Attr(kPaddingWithExplicit)
          .Attr("explicit_paddings: list(int) = []")
          .Attr(kFormat)
          .Attr(kDilations)
          .SetShapeFn(Conv2DShape)));
  DFX_RETURN_IF_ERROR(registry->Register(
      OpDefBuilder("Conv2DBackpropInput")
          .Input("input_sizes: int32")
          .Input("filter: T")
          .Input("out_backprop: T")
          .Output("output: T")
          .Attr(kConvTypes)
          .Attr("strides: list(int)")
          .Attr("use_cudnn_on_gpu: bool = true")
          .Attr(kPaddingWithExplicit)
          .Attr("explicit_paddings: list(int) = []")
          .Attr(kFormat)
          .Attr(kDilations)
          .SetShapeFn(BackpropInputShape)));
  DFX_RETURN_IF_ERROR(registry->Register(
      OpDefBuilder("Conv2DBackpropFilter")
          .Input("input: T")
          .Input("filter_sizes: int32")
          .Input("out_backprop: T")
          .Output("output: T")
          .Attr(kFloatTypes)
          .Attr("strides: list(int)")
          .Attr("use_cudnn_on_gpu: bool = true")
          .Attr(kPaddingWithExplicit)
          .Attr("explicit_paddings: list(int) = []")
          .Attr(kFormat)
          .Attr(kDilations)
          .SetShapeFn(BackpropFilterShape)));
  DFX_RETURN_IF_ERROR(registry->Register(
      OpDefBuilder("DepthwiseConv2dNative")
          .Input("input: T")
          .Input("filter: T")
          .Output("output: T")
          .Attr(kFloatTypes)
          .Attr("strides: list(int)")
          .Attr(kPaddingWithExplicit)
          .Attr("explicit_paddings: list(int) = []")
          .Attr(kFormat)
          .Attr(kDilations)
          .SetShapeFn(DepthwiseShape)));
  DFX_RETURN_IF_ERROR(registry->Register(
      OpDefBuilder("DepthwiseConv2dNativeBackpropInput")
          .Input("input_sizes: int32")
          .Input("filter: T")
          .Input("out_backprop: T")
          .Output("output: T")
          .Attr(kFloatTypes)
          .Attr("strides: list(int)")
          .Attr(kPaddingWithExplicit)
          .Attr("explicit_paddings: list(int) = []")
          .Attr(kFormat)
          .Attr(kDilations)
          .SetShapeFn(BackpropInputShape)));
  return registry->Register(
      OpDefBuilder("DepthwiseConv2dNativeBackpropFilter")
          .Input("input: T")
          .Input("filter_sizes: int32")
          .Input("out_backprop: T")
          .Output("output: T")
          .Attr(kFloatTypes)
          .Attr("strides: list(int)")
          .Attr(kPaddingWithExplicit)
          .Attr("explicit_paddings: list(int) = []")
          .Attr(kFormat)
          .Attr(kDilations)
          .SetShapeFn(BackpropFilterShape));
}

absl::Status RegisterPooling(OpRegistry* registry) {
  DFX_RETURN_IF_ERROR(registry->Register(
      OpDefBuilder("MaxPool")
          .Input("input: T")
          .Output("output: T")
          .Attr(kMaxPoolTypes)
          .Attr("ksize: list(int) >= 4")
          .Attr("strides: list(int) >= 4")
          .Attr(kPaddingWithExplicit)
          .Attr("explicit_paddings: list(int) = []")
          .Attr("data_format: {'NHWC', 'NCHW', 'NCHW_VECT_C'} = 'NHWC'")
          .SetShapeFn(MaxPoolShape)));
  DFX_RETURN_IF_ERROR(registry->Register(
      OpDefBuilder("MaxPoolV2")
          .Input("input: T")
          .Input("ksize: int32")
          .Input("strides: int32")
          .Output("output: T")
          .Attr(kMaxPoolTypes)
          .Attr(kPadding)
          .Attr("data_format: {'NHWC', 'NCHW', 'NCHW_VECT_C'} = 'NHWC'")
          .SetShapeFn(MaxPoolV2Shape)));
  DFX_RETURN_IF_ERROR(registry->Register(
      OpDefBuilder("AvgPool")
          .Input("value: T")
          .Output("output: T")
          .Attr("ksize: list(int) >= 4")
          .Attr("strides: list(int) >= 4")
          .Attr(kPadding)
          .Attr(kFormat)
          .Attr(kFloatTypes)
          .SetShapeFn(AvgPoolShape)));
  DFX_RETURN_IF_ERROR(registry->Register(
      OpDefBuilder("MaxPoolGrad")
          .Input("orig_input: T")
          .Input("orig_output: T")
          .Input("grad: T")
          .Output("output: T")
          .Attr("ksize: list(int) >= 4")
          .Attr("strides: list(int) >= 4")
          .Attr(kPaddingWithExplicit)
          .Attr("explicit_paddings: list(int) = []")
          .Attr(kFormat)
          .Attr(kMaxPoolGradTypes)
          .SetShapeFn(MaxPoolGradShape)));
  DFX_RETURN_IF_ERROR(registry->Register(
      OpDefBuilder("MaxPoolGradGrad")
          .Input("orig_input: T")
          .Input("orig_output: T")
          .Input("grad: T")
          .Output("output: T")
          .Attr("ksize: list(int) >= 4")
          .Attr("strides: list(int) >= 4")
          .Attr(kPadding)
          .Attr(kFormat)
          .Attr("T: realnumbertype")
          .SetShapeFn(MaxPoolGradGradShape)));
  DFX_RETURN_IF_ERROR(registry->Register(
      OpDefBuilder("MaxPoolGradGradV2")
          .Input("orig_input: T")
          .Input("orig_output: T")
          .Input("grad: T")
          .Input("ksize: int32")
          .Input("strides: int32")
          .Output("output: T")
          .Attr(kPadding)
          .Attr(kFormat)
          .Attr("T: realnumbertype")
          .SetShapeFn(MaxPoolGradGradShape)));
  DFX_RETURN_IF_ERROR(registry->Register(
      OpDefBuilder("MaxPoolGradV2")
          .Input("orig_input: T")
          .Input("orig_output: T")
          .Input("grad: T")
          .Input("ksize: int32")
          .Input("strides: int32")
          .Output("output: T")
          .Attr(kPadding)
          .Attr(kFormat)
          .Attr(kMaxPoolGradTypes)
          .SetShapeFn(MaxPoolGradShape)));
  DFX_RETURN_IF_ERROR(registry->Register(
      OpDefBuilder("MaxPoolWithArgmax")
          .Input("input: T")
          .Output("output: T")
          .Output("argmax: Targmax")
          .Attr("ksize: list(int) >= 4")
          .Attr("strides: list(int) >= 4")
          .Attr("Targmax: {int32, int64} = DT_INT64")
          .Attr(kPadding)
          .Attr("include_batch_in_index: bool = false")
          .Attr("T: realnumbertype")
          .SetShapeFn(MaxPoolWithArgmaxShape)));
  DFX_RETURN_IF_ERROR(registry->Register(
      OpDefBuilder("MaxPoolGradWithArgmax")
          .Input("input: T")
          .Input("grad: T")
          .Input("argmax: Targmax")
          .Output("output: T")
          .Attr("ksize: list(int) >= 4")
          .Attr("strides: list(int) >= 4")
          .Attr(kPadding)
          .Attr("include_batch_in_index: bool = false")
          .Attr("Targmax: {int32, int64}")
          .Attr("T: realnumbertype")
          .SetShapeFn(MaxPoolGradShape)));
  return registry->Register(OpDefBuilder("AvgPoolGrad")
                                .Input("orig_input_shape: int32")
                                .Input("grad: T")
                                .Output("output: T")
                                .Attr("ksize: list(int) >= 4")
                                .Attr("strides: list(int) >= 4")
                                .Attr(kPadding)
                                .Attr(kFormat)
                                .Attr(kFloatTypes)
                                .SetShapeFn(AvgPoolGradShape));
}

absl::Status RegisterBatchNorm(OpRegistry* registry) {
  DFX_RETURN_IF_ERROR(registry->Register(
      OpDefBuilder("FusedBatchNorm")
          .Input("x: T")
          .Input("scale: T")
          .Input("offset: T")
          .Input("mean: T")
          .Input("variance: T")
          .Output("y: T")
          .Output("batch_mean: T")
          .Output("batch_variance: T")
          .Output("reserve_space_1: T")
          .Output("reserve_space_2: T")
          .Attr("T: {float}")
          .Attr("epsilon: float = 0.0001")
          .Attr("exponential_avg_factor: float = 1.0")
          .Attr(kFormat)
          .Attr("is_training: bool = true")
          .SetShapeFn(FusedBatchNormShape)));
  DFX_RETURN_IF_ERROR(registry->Register(
      OpDefBuilder("FusedBatchNormV2")
          .Input("x: T")
          .Input("scale: U")
          .Input("offset: U")
          .Input("mean: U")
          .Input("variance: U")
          .Output("y: T")
          .Output("batch_mean: U")
          .Output("batch_variance: U")
          .Output("reserve_space_1: U")
          .Output("reserve_space_2: U")
          .Attr("T: {half, bfloat16, float}")
          .Attr("U: {float}")
          .Attr("epsilon: float = 0.0001")
          .Attr("exponential_avg_factor: float = 1.0")
          .Attr(kFormat)
          .Attr("is_training: bool = true")
          .SetShapeFn(FusedBatchNormShape)));
  DFX_RETURN_IF_ERROR(registry->Register(
      OpDefBuilder("FusedBatchNormV3")
          .Input("x: T")
          .Input("scale: U")
          .Input("offset: U")
          .Input("mean: U")
          .Input("variance: U")
          .Output("y: T")
          .Output("batch_mean: U")
          .Output("batch_variance: U")
          .Output("reserve_space_1: U")
          .Output("reserve_space_2: U")
          .Output("reserve_space_3: U")
          .Attr("T: {half, bfloat16, float}")
          .Attr("U: {bfloat16, float}")
          .Attr("epsilon: float = 0.0001")
          .Attr("exponential_avg_factor: float = 1.0")
          .Attr("data_format: {'NHWC', 'NCHW', 'NDHWC', 'NCDHW'} = 'NHWC'")
          .Attr("is_training: bool = true")
          .SetShapeFn(FusedBatchNormShape)));
  DFX_RETURN_IF_ERROR(registry->Register(
      OpDefBuilder("FusedBatchNormGrad")
          .Input("y_backprop: T")
          .Input("x: T")
          .Input("scale: T")
          .Input("reserve_space_1: T")
          .Input("reserve_space_2: T")
          .Output("x_backprop: T")
          .Output("scale_backprop: T")
          .Output("offset_backprop: T")
          .Output("reserve_space_3: T")
          .Output("reserve_space_4: T")
          .Attr("T: {float}")
          .Attr("epsilon: float = 0.0001")
          .Attr(kFormat)
          .Attr("is_training: bool = true")
          .SetShapeFn(FusedBatchNormGradShape)));
  DFX_RETURN_IF_ERROR(registry->Register(
      OpDefBuilder("FusedBatchNormGradV2")
          .Input("y_backprop: T")
          .Input("x: T")
          .Input("scale: float")
          .Input("reserve_space_1: U")
          .Input("reserve_space_2: U")
          .Output("x_backprop: T")
          .Output("scale_backprop: U")
          .Output("offset_backprop: U")
          .Output("reserve_space_3: U")
          .Output("reserve_space_4: U")
          .Attr("T: {half, bfloat16, float}")
          .Attr("U: {float}")
          .Attr("epsilon: float = 0.0001")
          .Attr(kFormat)
          .Attr("is_training: bool = true")
          .SetShapeFn(FusedBatchNormGradShape)));
  return registry->Register(
      OpDefBuilder("FusedBatchNormGradV3")
          .Input("y_backprop: T")
          .Input("x: T")
          .Input("scale: float")
          .Input("reserve_space_1: U")
          .Input("reserve_space_2: U")
          .Input("reserve_space_3: U")
          .Output("x_backprop: T")
          .Output("scale_backprop: U")
          .Output("offset_backprop: U")
          .Output("reserve_space_4: U")
          .Output("reserve_space_5: U")
          .Attr("T: {half, bfloat16, float}")
          .Attr("U: {float}")
          .Attr("epsilon: float = 0.0001")
          .Attr("data_format: {'NHWC', 'NCHW', 'NDHWC', 'NCDHW'} = 'NHWC'")
          .Attr("is_training: bool = true")
          .SetShapeFn(FusedBatchNormGradShape));
}

}  // namespace

absl::Status RegisterConvOps(OpRegistry* registry) {
  DFX_RETURN_IF_ERROR(RegisterConvolutions(registry));
  DFX_RETURN_IF_ERROR(RegisterPooling(registry));
  return RegisterBatchNorm(registry);
}

}  // namespace dfx
