// FusedBatchNorm's and FusedBatchNormGrad's attrs and input checks, with
// TensorFlow's messages, shared by the CPU kernels
// (kernels/conv/batch_norm_ops.cc) and the GPU kernels
// (gpu/kernels/batch_norm_gpu.cc).
#ifndef DFX_KERNELS_CONV_BATCH_NORM_CHECKS_H_
#define DFX_KERNELS_CONV_BATCH_NORM_CHECKS_H_

#include <cstdint>
#include <string>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "runtime/op_kernel.h"

namespace dfx::conv_internal {

// x as [outer, channels, inner]: element (o, c, s) lives at
// (o * channels + c) * inner + s. Channel-last formats have inner == 1.
struct BnLayout {
  int64_t outer = 0;
  int64_t channels = 0;
  int64_t inner = 1;
  int64_t count() const { return outer * inner; }  // elements per channel
};

// REQUIRES: x is 4- or 5-D.
inline BnLayout MakeBnLayout(const TensorShape& x, bool channel_first) {
  BnLayout l;
  const int rank = x.dims();
  const int channel = channel_first ? 1 : rank - 1;
  l.channels = x.dim_size(channel);
  l.outer = 1;
  for (int i = 0; i < channel; ++i) l.outer *= x.dim_size(i);
  for (int i = channel + 1; i < rank; ++i) l.inner *= x.dim_size(i);
  return l;
}

// data_format: NHWC, NCHW, NDHWC or NCDHW ("Invalid data format").
inline absl::Status ReadBnFormat(const OpKernelConstruction& ctx,
                                 bool* channel_first) {
  std::string format;
  DFX_RETURN_IF_ERROR(ctx.GetAttr("data_format", &format));
  if (format != "NHWC" && format != "NCHW" && format != "NDHWC" &&
      format != "NCDHW") {
    return absl::InvalidArgumentError("Invalid data format");
  }
  *channel_first = format == "NCHW" || format == "NCDHW";
  return absl::OkStatus();
}

inline absl::Status CheckBnRank(const Tensor& t) {
  if (t.dims() != 4 && t.dims() != 5) {
    return absl::InvalidArgumentError(absl::StrCat(
        "input must be 4 or 5-dimensional", t.shape().DebugString()));
  }
  return absl::OkStatus();
}

inline absl::Status CheckBnVector(const Tensor& t, const char* what) {
  if (t.dims() != 1) {
    return absl::InvalidArgumentError(absl::StrCat(
        what, " must be 1-dimensional", t.shape().DebugString()));
  }
  return absl::OkStatus();
}

inline absl::Status CheckBnChannels(const Tensor& t, const char* prefix,
                                    const char* what, int64_t channels) {
  if (t.NumElements() != channels) {
    return absl::InvalidArgumentError(absl::StrCat(
        prefix, what, " must have the same number of elements as the "
        "channels of x, got ", t.NumElements(), " and ", channels));
  }
  return absl::OkStatus();
}

// FusedBatchNorm's inputs x, scale, offset, mean, variance; the running
// statistics are read (and checked) unless training with factor 1.
inline absl::Status CheckBatchNormInputs(const OpKernelContext& ctx,
                                         bool channel_first, bool is_training,
                                         float factor, BnLayout* l) {
  const Tensor& x = ctx.input(0);
  DFX_RETURN_IF_ERROR(CheckBnRank(x));
  DFX_RETURN_IF_ERROR(CheckBnVector(ctx.input(1), "scale"));
  DFX_RETURN_IF_ERROR(CheckBnVector(ctx.input(2), "offset"));
  DFX_RETURN_IF_ERROR(CheckBnVector(ctx.input(3), "estimated_mean"));
  DFX_RETURN_IF_ERROR(CheckBnVector(ctx.input(4), "estimated_variance"));
  *l = MakeBnLayout(x.shape(), channel_first);
  DFX_RETURN_IF_ERROR(CheckBnChannels(ctx.input(1), "", "scale", l->channels));
  DFX_RETURN_IF_ERROR(
      CheckBnChannels(ctx.input(2), "", "offset", l->channels));
  if (!is_training || factor != 1.0f) {
    const char* prefix = is_training ? "When exponential_avg_factor != 1, "
                                     : "When is_training=false, ";
    DFX_RETURN_IF_ERROR(
        CheckBnChannels(ctx.input(3), prefix, "mean", l->channels));
    DFX_RETURN_IF_ERROR(
        CheckBnChannels(ctx.input(4), prefix, "variance", l->channels));
  }
  return absl::OkStatus();
}

// FusedBatchNormGrad's inputs y_backprop, x, scale, reserve_space_1 (the
// saved mean), reserve_space_2 (the saved variance).
inline absl::Status CheckBatchNormGradInputs(const OpKernelContext& ctx,
                                             bool channel_first,
                                             BnLayout* l) {
  const Tensor& dy = ctx.input(0);
  const Tensor& x = ctx.input(1);
  DFX_RETURN_IF_ERROR(CheckBnRank(dy));
  DFX_RETURN_IF_ERROR(CheckBnRank(x));
  DFX_RETURN_IF_ERROR(CheckBnVector(ctx.input(2), "scale"));
  DFX_RETURN_IF_ERROR(CheckBnVector(ctx.input(3), "saved mean"));
  DFX_RETURN_IF_ERROR(CheckBnVector(ctx.input(4), "saved variance"));
  if (x.shape() != dy.shape()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "x and y_backprop must have same shape, but x has shape ",
        x.shape().DebugString(), " and y_backprop has shape ",
        dy.shape().DebugString()));
  }
  *l = MakeBnLayout(x.shape(), channel_first);
  DFX_RETURN_IF_ERROR(CheckBnChannels(ctx.input(2), "", "scale", l->channels));
  DFX_RETURN_IF_ERROR(
      CheckBnChannels(ctx.input(3), "", "reserve_space_1", l->channels));
  return CheckBnChannels(ctx.input(4), "", "reserve_space_2", l->channels);
}

}  // namespace dfx::conv_internal

#endif  // DFX_KERNELS_CONV_BATCH_NORM_CHECKS_H_
