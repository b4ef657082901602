#include "kernels/conv/pool_util.h"

#include <cstdint>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "base/status_macros.h"

namespace dfx::conv_internal {

absl::Status CheckWindow(const std::vector<int64_t>& ksize,
                         const std::vector<int64_t>& strides) {
  if (ksize.size() != 4) {
    return absl::InvalidArgumentError(
        "Sliding window ksize field must specify 4 dimensions");
  }
  for (int i = 0; i < 4; ++i) {
    if (ksize[i] <= 0) {
      return absl::InvalidArgumentError(absl::StrCat(
          "Sliding window ksize for dimension ", i, " was zero."));
    }
  }
  if (strides.size() != 4) {
    return absl::InvalidArgumentError(
        "Sliding window stride field must specify 4 dimensions");
  }
  for (int i = 0; i < 4; ++i) {
    if (strides[i] <= 0) {
      return absl::InvalidArgumentError(absl::StrCat(
          "Sliding window stride for dimension ", i, " must be positive."));
    }
  }
  if (ksize[0] != 1 || strides[0] != 1) {
    return absl::UnimplementedError(
        "Pooling is not yet supported on the batch dimension.");
  }
  return absl::OkStatus();
}

std::vector<int64_t> NchwToNhwc(const std::vector<int64_t>& v) {
  return {v[0], v[2], v[3], v[1]};
}

namespace {

// Reads data_format (NHWC only on CPU; NCHW too where `nchw` is not null),
// padding, explicit paddings and, when `from_attrs`, ksize and strides.
absl::Status ReadAttrs(const OpKernelConstruction& ctx,
                       absl::string_view op_class, bool from_attrs,
                       PoolAttrs* attrs, bool* nchw) {
  std::string format, padding;
  DFX_RETURN_IF_ERROR(ctx.GetAttr("data_format", &format));
  const bool is_nchw = nchw != nullptr && format == "NCHW";
  if (nchw != nullptr) *nchw = is_nchw;
  if (format != "NHWC" && !is_nchw) {
    return absl::InvalidArgumentError(absl::StrCat(
        "Default ", op_class, " only supports NHWC on device type CPU"));
  }
  DFX_RETURN_IF_ERROR(ctx.GetAttr("padding", &padding));
  DFX_RETURN_IF_ERROR(ParsePadding(padding, &attrs->padding));
  if (FindNodeAttr(ctx.def(), "explicit_paddings") != nullptr) {
    DFX_RETURN_IF_ERROR(
        ctx.GetAttr("explicit_paddings", &attrs->explicit_paddings));
  }
  if (is_nchw && attrs->explicit_paddings.size() == 8) {
    // (before, after) pairs of N, C, H, W into N, H, W, C.
    const std::vector<int64_t> p = attrs->explicit_paddings;
    attrs->explicit_paddings = {p[0], p[1], p[4], p[5], p[6], p[7], p[2], p[3]};
  }
  if (attrs->padding == Padding::kExplicit) {
    const std::vector<int64_t>& p = attrs->explicit_paddings;
    if (p.size() != 8) {
      return absl::InvalidArgumentError(absl::StrCat(
          "explicit_paddings attribute must contain 8 values, but got: ",
          p.size()));
    }
    for (int64_t v : p) {
      if (v < 0) {
        return absl::InvalidArgumentError(absl::StrCat(
            "All elements of explicit_paddings must be nonnegative, but "
            "got: ",
            v));
      }
    }
    if (p[0] != 0 || p[1] != 0 || p[6] != 0 || p[7] != 0) {
      return absl::InvalidArgumentError(
          "Nonzero explicit padding in the batch or depth dimensions is not "
          "supported");
    }
  } else if (!attrs->explicit_paddings.empty()) {
    return absl::InvalidArgumentError(
        "explicit_paddings attribute must be empty if the padding attribute "
        "is not EXPLICIT");
  }
  if (!from_attrs) return absl::OkStatus();
  DFX_RETURN_IF_ERROR(ctx.GetAttr("ksize", &attrs->ksize));
  DFX_RETURN_IF_ERROR(ctx.GetAttr("strides", &attrs->strides));
  DFX_RETURN_IF_ERROR(CheckWindow(attrs->ksize, attrs->strides));
  if (is_nchw) {
    attrs->ksize = NchwToNhwc(attrs->ksize);
    attrs->strides = NchwToNhwc(attrs->strides);
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status ReadPoolAttrs(const OpKernelConstruction& ctx,
                           absl::string_view op_class, bool from_attrs,
                           PoolAttrs* attrs) {
  return ReadAttrs(ctx, op_class, from_attrs, attrs, nullptr);
}

absl::Status ReadPoolAttrsAnyFormat(const OpKernelConstruction& ctx,
                                    absl::string_view op_class, bool from_attrs,
                                    PoolAttrs* attrs, bool* nchw) {
  return ReadAttrs(ctx, op_class, from_attrs, attrs, nchw);
}

// Reads ksize and strides from int32 input tensors (the V2 ops).
absl::Status WindowFromInputs(const Tensor& ksize, const Tensor& strides,
                              PoolAttrs* attrs) {
  attrs->ksize.assign(ksize.span<int32_t>().begin(), ksize.span<int32_t>().end());
  attrs->strides.assign(strides.span<int32_t>().begin(),
                        strides.span<int32_t>().end());
  return CheckWindow(attrs->ksize, attrs->strides);
}

// PoolParameters of TensorFlow: the output geometry of pooling `input_shape`.
absl::Status MakePoolGeom(const TensorShape& input_shape,
                          const PoolAttrs& attrs, bool allow_depth,
                          PoolGeom* g) {
  if (input_shape.dims() != 4) {
    return absl::InvalidArgumentError("tensor_in must be 4-dimensional");
  }
  DFX_RETURN_IF_ERROR(CheckDimsFitInt(input_shape, "Input"));
  g->batch = input_shape.dim_size(0);
  g->in_rows = input_shape.dim_size(1);
  g->in_cols = input_shape.dim_size(2);
  g->depth = input_shape.dim_size(3);
  g->window_rows = attrs.ksize[1];
  g->window_cols = attrs.ksize[2];
  g->depth_window = attrs.ksize[3];
  g->stride_rows = attrs.strides[1];
  g->stride_cols = attrs.strides[2];
  const int64_t depth_stride = attrs.strides[3];
  if (g->depth_window != 1 && !allow_depth) {
    return absl::UnimplementedError(
        "Non-spatial pooling is not yet supported. Volunteers? :)");
  }
  if (g->depth_window != 1 && (g->window_rows != 1 || g->window_cols != 1)) {
    return absl::UnimplementedError(
        "MaxPooling supports exactly one of pooling across depth or pooling "
        "across width/height.");
  }
  if (g->depth_window == 1) {
    const std::vector<int64_t>& p = attrs.explicit_paddings;
    const bool has_explicit = attrs.padding == Padding::kExplicit;
    int64_t pad_after = 0;
    DFX_RETURN_IF_ERROR(WindowedOutputSize(
        g->in_rows, g->window_rows, 1, g->stride_rows, attrs.padding,
        has_explicit ? p[2] : 0, has_explicit ? p[3] : 0, &g->out_rows,
        &g->pad_top, &pad_after));
    DFX_RETURN_IF_ERROR(WindowedOutputSize(
        g->in_cols, g->window_cols, 1, g->stride_cols, attrs.padding,
        has_explicit ? p[4] : 0, has_explicit ? p[5] : 0, &g->out_cols,
        &g->pad_left, &pad_after));
    g->out_depth = g->depth;
  } else {
    if (g->depth % g->depth_window != 0) {
      return absl::UnimplementedError(
          "Depthwise max pooling requires the depth window to evenly divide "
          "the input depth");
    }
    if (depth_stride != g->depth_window) {
      return absl::UnimplementedError(
          "Depthwise max pooling requires the depth window to equal the depth "
          "stride");
    }
    g->out_rows = g->in_rows;
    g->out_cols = g->in_cols;
    g->out_depth = g->depth / g->depth_window;
  }
  return absl::OkStatus();
}

}  // namespace dfx::conv_internal
