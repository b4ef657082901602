#include "kernels/conv/conv_util.h"

#include <algorithm>
#include <limits>

#include "absl/strings/str_cat.h"
#include "base/status_macros.h"

namespace dfx {
namespace conv_internal {

absl::Status ParsePadding(const std::string& text, Padding* padding) {
  if (text == "VALID") {
    *padding = Padding::kValid;
  } else if (text == "SAME") {
    *padding = Padding::kSame;
  } else if (text == "EXPLICIT") {
    *padding = Padding::kExplicit;
  } else {
    return absl::InvalidArgumentError(
        absl::StrCat("Unknown padding type: ", text));
  }
  return absl::OkStatus();
}

absl::Status WindowedOutputSize(int64_t in, int64_t window, int64_t dilation,
                                int64_t stride, Padding padding,
                                int64_t explicit_before, int64_t explicit_after,
                                int64_t* out, int64_t* pad_before,
                                int64_t* pad_after) {
  if (stride <= 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("Stride must be > 0, but got ", stride));
  }
  if (dilation < 1) {
    return absl::InvalidArgumentError(
        absl::StrCat("Dilation rate must be >= 1, but got ", dilation));
  }
  const int64_t effective = (window - 1) * dilation + 1;
  switch (padding) {
    case Padding::kValid:
      *out = (in - effective + stride) / stride;
      *pad_before = 0;
      *pad_after = 0;
      break;
    case Padding::kSame: {
      *out = (in + stride - 1) / stride;
      const int64_t needed =
          std::max<int64_t>(0, (*out - 1) * stride + effective - in);
      *pad_before = needed / 2;
      *pad_after = needed - *pad_before;
      break;
    }
    case Padding::kExplicit:
      *out = (in + explicit_before + explicit_after - effective + stride) /
             stride;
      *pad_before = explicit_before;
      *pad_after = explicit_after;
      break;
  }
  if (*out < 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        "Computed output size would be negative: ", *out,
        " [input_size: ", in, ", effective_filter_size: ", effective,
        ", stride: ", stride, "]"));
  }
  return absl::OkStatus();
}

absl::Status ReadConvAttrs(const OpKernelConstruction& ctx, ConvAttrs* attrs) {
  std::vector<int64_t> strides, dilations, explicit_paddings;
  std::string padding, format;
  DFX_RETURN_IF_ERROR(ctx.GetAttr("strides", &strides));
  DFX_RETURN_IF_ERROR(ctx.GetAttr("dilations", &dilations));
  DFX_RETURN_IF_ERROR(ctx.GetAttr("padding", &padding));
  DFX_RETURN_IF_ERROR(ctx.GetAttr("explicit_paddings", &explicit_paddings));
  DFX_RETURN_IF_ERROR(ctx.GetAttr("data_format", &format));
  if (format != "NHWC" && format != "NCHW") {
    return absl::InvalidArgumentError("Invalid data format");
  }
  attrs->nchw = format == "NCHW";
  const int n = 0, c = attrs->nchw ? 1 : 3, h = attrs->nchw ? 2 : 1,
            w = attrs->nchw ? 3 : 2;
  if (dilations.size() != 4) {
    return absl::InvalidArgumentError(
        "Sliding window dilations field must specify 4 dimensions");
  }
  if (strides.size() != 4) {
    return absl::InvalidArgumentError(
        "Sliding window strides field must specify 4 dimensions");
  }
  if (strides[n] != 1 || strides[c] != 1) {
    return absl::UnimplementedError(
        "Current implementation does not yet support strides in the batch "
        "and depth dimensions.");
  }
  if (strides[h] <= 0 || strides[w] <= 0) {
    return absl::InvalidArgumentError(
        "Row and column strides should be larger than 0.");
  }
  if (dilations[n] != 1 || dilations[c] != 1) {
    return absl::UnimplementedError(
        "Current implementation does not yet support dilations in the batch "
        "and depth dimensions.");
  }
  if (dilations[h] <= 0 || dilations[w] <= 0) {
    return absl::InvalidArgumentError("Dilated rates should be larger than 0.");
  }
  DFX_RETURN_IF_ERROR(ParsePadding(padding, &attrs->padding));
  if (attrs->padding == Padding::kExplicit) {
    if (explicit_paddings.size() != 8) {
      return absl::InvalidArgumentError(absl::StrCat(
          "explicit_paddings attribute must contain 8 values, but got: ",
          explicit_paddings.size()));
    }
    for (int64_t p : explicit_paddings) {
      if (p < 0) {
        return absl::InvalidArgumentError(absl::StrCat(
            "All elements of explicit_paddings must be nonnegative, but "
            "got: ",
            p));
      }
    }
    if (explicit_paddings[2 * n] != 0 || explicit_paddings[2 * n + 1] != 0 ||
        explicit_paddings[2 * c] != 0 || explicit_paddings[2 * c + 1] != 0) {
      return absl::InvalidArgumentError(
          "Nonzero explicit padding in the batch or depth dimensions is not "
          "supported");
    }
    attrs->explicit_pads[0] = explicit_paddings[2 * h];
    attrs->explicit_pads[1] = explicit_paddings[2 * h + 1];
    attrs->explicit_pads[2] = explicit_paddings[2 * w];
    attrs->explicit_pads[3] = explicit_paddings[2 * w + 1];
  } else if (!explicit_paddings.empty()) {
    return absl::InvalidArgumentError(
        "explicit_paddings attribute must be empty if the padding attribute "
        "is not EXPLICIT");
  }
  attrs->stride_rows = strides[h];
  attrs->stride_cols = strides[w];
  attrs->dilation_rows = dilations[h];
  attrs->dilation_cols = dilations[w];
  return absl::OkStatus();
}

bool ConvGeom::operator==(const ConvGeom& o) const {
  return batch == o.batch && in_rows == o.in_rows && in_cols == o.in_cols &&
         in_depth == o.in_depth && filter_rows == o.filter_rows &&
         filter_cols == o.filter_cols && out_rows == o.out_rows &&
         out_cols == o.out_cols && out_depth == o.out_depth &&
         groups == o.groups && stride_rows == o.stride_rows &&
         stride_cols == o.stride_cols && dilation_rows == o.dilation_rows &&
         dilation_cols == o.dilation_cols && pad_top == o.pad_top &&
         pad_bottom == o.pad_bottom && pad_left == o.pad_left &&
         pad_right == o.pad_right;
}

absl::Status ComputeConvOutput(const ConvAttrs& attrs, ConvGeom* geom) {
  geom->stride_rows = attrs.stride_rows;
  geom->stride_cols = attrs.stride_cols;
  geom->dilation_rows = attrs.dilation_rows;
  geom->dilation_cols = attrs.dilation_cols;
  DFX_RETURN_IF_ERROR(WindowedOutputSize(
      geom->in_rows, geom->filter_rows, attrs.dilation_rows, attrs.stride_rows,
      attrs.padding, attrs.explicit_pads[0], attrs.explicit_pads[1],
      &geom->out_rows, &geom->pad_top, &geom->pad_bottom));
  return WindowedOutputSize(
      geom->in_cols, geom->filter_cols, attrs.dilation_cols, attrs.stride_cols,
      attrs.padding, attrs.explicit_pads[2], attrs.explicit_pads[3],
      &geom->out_cols, &geom->pad_left, &geom->pad_right);
}

absl::Status ConvInputAndFilter(const ConvAttrs& attrs,
                                const TensorShape& input,
                                const TensorShape& filter, bool depthwise,
                                ConvGeom* geom) {
  if (input.dims() != 4) {
    return absl::InvalidArgumentError(absl::StrCat(
        "convolution input must be 4-dimensional: ", input.DebugString()));
  }
  if (filter.dims() != 4) {
    return absl::InvalidArgumentError(absl::StrCat(
        "filter must be 4-dimensional: ", filter.DebugString()));
  }
  DFX_RETURN_IF_ERROR(CheckDimsFitInt(filter, "filter"));
  DFX_RETURN_IF_ERROR(CheckDimsFitInt(input, "Input"));
  geom->batch = input.dim_size(0);
  geom->in_rows = input.dim_size(attrs.nchw ? 2 : 1);
  geom->in_cols = input.dim_size(attrs.nchw ? 3 : 2);
  geom->in_depth = input.dim_size(attrs.nchw ? 1 : 3);
  geom->filter_rows = filter.dim_size(0);
  geom->filter_cols = filter.dim_size(1);
  const int64_t filter_in = filter.dim_size(2);
  if (depthwise) {
    if (geom->in_depth != filter_in) {
      return absl::InvalidArgumentError(absl::StrCat(
          "input and filter must have the same depth: ", geom->in_depth,
          " vs ", filter_in));
    }
    geom->groups = std::max<int64_t>(1, geom->in_depth);
    geom->out_depth = geom->in_depth * filter.dim_size(3);
    return absl::OkStatus();
  }
  if (filter_in <= 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        "filter depth must be stricly positive, got ", filter_in));
  }
  if (geom->in_depth % filter_in != 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        "input depth must be evenly divisible by filter depth: ",
        geom->in_depth, " vs ", filter_in));
  }
  geom->groups = std::max<int64_t>(1, geom->in_depth / filter_in);
  geom->out_depth = filter.dim_size(3);
  return absl::OkStatus();
}

absl::Status CheckDimsFitInt(const TensorShape& shape, const char* what) {
  for (int i = 0; i < shape.dims(); ++i) {
    if (shape.dim_size(i) > std::numeric_limits<int32_t>::max()) {
      return absl::InvalidArgumentError(absl::StrCat(what, " too large"));
    }
  }
  return absl::OkStatus();
}

int IntraOpThreads(const Device& device) {
  const ThreadPool* pool = device.intra_op_pool();
  return pool == nullptr ? 1 : std::max(1, pool->NumThreads());
}

namespace {

template <typename From, typename To>
void ConvertTyped(const Device& device, const Tensor& from, Tensor* to) {
  const From* src = from.data<From>();
  To* dst = to->data<To>();
  ParallelForCost(device, from.NumElements(), 2.0,
                  [src, dst](int64_t first, int64_t last) {
                    for (int64_t i = first; i < last; ++i) {
                      dst[i] = static_cast<To>(static_cast<float>(src[i]));
                    }
                  });
}

}  // namespace

void ConvertElements(const Device& device, const Tensor& from, Tensor* to) {
  DFX_CHECK(from.NumElements() == to->NumElements());
  if (from.dtype() == DT_HALF && to->dtype() == DT_FLOAT) {
    ConvertTyped<Eigen::half, float>(device, from, to);
  } else if (from.dtype() == DT_BFLOAT16 && to->dtype() == DT_FLOAT) {
    ConvertTyped<Eigen::bfloat16, float>(device, from, to);
  } else if (from.dtype() == DT_FLOAT && to->dtype() == DT_HALF) {
    ConvertTyped<float, Eigen::half>(device, from, to);
  } else if (from.dtype() == DT_FLOAT && to->dtype() == DT_BFLOAT16) {
    ConvertTyped<float, Eigen::bfloat16>(device, from, to);
  } else {
    DFX_CHECK_MSG(false, absl::StrCat("ConvertElements: unsupported pair ",
                                      DataTypeString(from.dtype()), " -> ",
                                      DataTypeString(to->dtype())));
  }
}

}  // namespace conv_internal
}  // namespace dfx
