// The conv3 family's kernels: Conv (TensorFlow's generic convolution: two
// spatial dims run Conv2D's ConvRunner pass, three run direct loops as
// Conv3D's CuboidConvolution does), FusedPadConv2D and
// FusedResizeAndPadConv2D (mirror padding, and TensorFlow's legacy
// bilinear resize, folded into the convolution's patches), ApproxTopK
// (exact on CPU, as TensorFlow's kernel), RefSelect and Fact; with the
// quantized two of kernels/quantized/conv3_quantized_kernels.cc.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <numeric>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "kernels/conv/conv_backend.h"
#include "kernels/conv/conv_util.h"

namespace dfx {

void RegisterConv3Kernels(KernelRegistry* registry);
// QuantizedResizeBilinear, QuantizedInstanceNorm
// (kernels/quantized/conv3_quantized_kernels.cc).
void RegisterConv3QuantizedKernels(KernelRegistry* registry);

namespace {

using conv_internal::ConvGeom;
using conv_internal::ConvPass;
using conv_internal::ConvRunner;
using conv_internal::Padding;

constexpr int64_t kIntMax = 2147483647;

// Sums in double for double, float for the floating types, and for int32
// in uint32: products and sums wrap modulo 2^32 as TensorFlow's int32
// contraction does in practice, without signed overflow.
template <typename T>
using Acc = std::conditional_t<
    std::is_same_v<T, double>, double,
    std::conditional_t<std::is_same_v<T, int32_t>, uint32_t, float>>;

// ---------------------------------------------------------------------------
// Conv

// A 3-D NDHWC convolution with a DHWIO filter, no dilation; pads[] are the
// padding before each spatial dim.
template <typename T>
void Conv3DLoops(const Device& device, const T* in, const T* filter, T* out,
                 int64_t batch, const int64_t in_sp[3], int64_t in_c,
                 const int64_t f_sp[3], int64_t out_c, const int64_t out_sp[3],
                 const int64_t stride[3], const int64_t pads[3]) {
  const int64_t out_plane = out_sp[0] * out_sp[1] * out_sp[2];
  const double cost =
      static_cast<double>(f_sp[0] * f_sp[1] * f_sp[2] * in_c * out_c) + 1;
  conv_internal::ParallelForCost(
      device, batch * out_plane, cost, [&](int64_t first, int64_t last) {
        std::vector<Acc<T>> sums(static_cast<size_t>(out_c));
        for (int64_t p = first; p < last; ++p) {
          const int64_t b = p / out_plane;
          int64_t rest = p % out_plane;
          const int64_t od = rest / (out_sp[1] * out_sp[2]);
          rest %= out_sp[1] * out_sp[2];
          const int64_t oh = rest / out_sp[2];
          const int64_t ow = rest % out_sp[2];
          std::fill(sums.begin(), sums.end(), Acc<T>(0));
          for (int64_t fd = 0; fd < f_sp[0]; ++fd) {
            const int64_t id = od * stride[0] - pads[0] + fd;
            if (id < 0 || id >= in_sp[0]) continue;
            for (int64_t fh = 0; fh < f_sp[1]; ++fh) {
              const int64_t ih = oh * stride[1] - pads[1] + fh;
              if (ih < 0 || ih >= in_sp[1]) continue;
              for (int64_t fw = 0; fw < f_sp[2]; ++fw) {
                const int64_t iw = ow * stride[2] - pads[2] + fw;
                if (iw < 0 || iw >= in_sp[2]) continue;
                const T* x =
                    in +
                    (((b * in_sp[0] + id) * in_sp[1] + ih) * in_sp[2] + iw) *
                        in_c;
                const T* w = filter + ((fd * f_sp[1] + fh) * f_sp[2] + fw) *
                                          in_c * out_c;
                for (int64_t ci = 0; ci < in_c; ++ci) {
                  const Acc<T> xv = static_cast<Acc<T>>(x[ci]);
                  const T* wr = w + ci * out_c;
                  for (int64_t co = 0; co < out_c; ++co) {
                    sums[co] += xv * static_cast<Acc<T>>(wr[co]);
                  }
                }
              }
            }
          }
          T* o = out + p * out_c;
          for (int64_t co = 0; co < out_c; ++co)
            o[co] = static_cast<T>(sums[co]);
        }
      });
}

// TensorFlow's ConvOp (conv_ops_impl.h): checks in its order, the batch
// dims folded into one, then Conv2D's or Conv3D's CPU launch.
class ConvOp : public OpKernel {
 public:
  explicit ConvOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    int64_t groups = 1;
    DFX_OP_REQUIRES_OK(ctx, ctx->GetAttr("groups", &groups));
    DFX_OP_REQUIRES(
        ctx, groups == 1,
        absl::UnimplementedError(
            "Grouped/Depthwise Convolutions are not supported yet."));
    std::string format;
    DFX_OP_REQUIRES_OK(ctx, ctx->GetAttr("data_format", &format));
    DFX_OP_REQUIRES(ctx,
                    format == "CHANNELS_LAST" || format == "CHANNELS_FIRST",
                    absl::InvalidArgumentError(
                        absl::StrCat("Unknown data format: ", format)));
    channels_first_ = format == "CHANNELS_FIRST";
    DFX_OP_REQUIRES_OK(ctx, ctx->GetAttr("batch_dims", &batch_dims_));
    DFX_OP_REQUIRES_OK(ctx, ctx->GetAttr("strides", &strides_));
    DFX_OP_REQUIRES_OK(ctx, ctx->GetAttr("dilations", &dilations_));
    DFX_OP_REQUIRES_OK(ctx,
                       ctx->GetAttr("explicit_paddings", &explicit_paddings_));
    std::string padding;
    DFX_OP_REQUIRES_OK(ctx, ctx->GetAttr("padding", &padding));
    DFX_OP_REQUIRES_OK(ctx, conv_internal::ParsePadding(padding, &padding_));
  }

  void Compute(OpKernelContext* ctx) override {
    Tensor input = ctx->input(0);
    Tensor filter = ctx->input(1);
    const int rank = input.dims();
    const int spatial = rank - 1 - static_cast<int>(batch_dims_);
    DFX_OP_REQUIRES(
        ctx, spatial == 2 || spatial == 3,
        absl::InvalidArgumentError(absl::StrCat(
            "The input must have 2 or 3 spatial dimensions but got ",
            spatial)));
    DFX_OP_REQUIRES(
        ctx, filter.NumElements() > 0,
        absl::InvalidArgumentError("filter must not have zero elements "
                                   "(i.e. all dimensions must be non-zero)"));
    // The batch dims folded into one: [batch, spatial..., C] or [batch, C,
    // spatial...].
    int64_t batch = 1;
    for (int i = 0; i < batch_dims_; ++i) batch *= input.dim_size(i);
    std::vector<int64_t> flat = {batch};
    for (int i = static_cast<int>(batch_dims_); i < rank; ++i) {
      flat.push_back(input.dim_size(i));
    }
    DFX_OP_REQUIRES(
        ctx, filter.dims() == 4 || filter.dims() == 5,
        absl::InvalidArgumentError(absl::StrCat(
            "The filter must be rank 4 or 5 but got ", filter.dims())));
    // TensorFlow reads a filter of the other rank at shifted positions (its
    // shape function refuses one at graph construction).
    DFX_OP_REQUIRES(
        ctx, filter.dims() == spatial + 2,
        absl::InvalidArgumentError(absl::StrCat(
            "The filter must be rank ", spatial + 2, " for an input with ",
            spatial, " spatial dimensions, but got ", filter.dims())));
    for (int i = 0; i < spatial; ++i) {
      DFX_OP_REQUIRES(ctx, filter.dim_size(i) < kIntMax,
                      absl::InvalidArgumentError("filter too large"));
    }
    const int n = spatial + 2;
    DFX_OP_REQUIRES(
        ctx, static_cast<int>(strides_.size()) == n,
        absl::InvalidArgumentError(absl::StrCat(
            "Sliding window strides field must specify ", n, " dimensions")));
    const int c_pos = channels_first_ ? 1 : n - 1;
    const int sp0 = channels_first_ ? 2 : 1;
    DFX_OP_REQUIRES(ctx, strides_[c_pos] == 1 && strides_[0] == 1,
                    absl::InvalidArgumentError(
                        "Current implementation does not support strides in "
                        "the batch and depth dimensions."));
    for (int i = 0; i < spatial; ++i) {
      DFX_OP_REQUIRES(ctx, strides_[sp0 + i] > 0,
                      absl::InvalidArgumentError(
                          "Spatial strides should be larger than 0."));
    }
    std::vector<int64_t> dilations = dilations_;
    if (dilations.empty()) {
      dilations.assign(n, 1);
    } else {
      DFX_OP_REQUIRES(
          ctx, static_cast<int>(dilations.size()) == n,
          absl::InvalidArgumentError(absl::StrCat(
              "Dilation rates field must specify", n, "dimensions")));
      DFX_OP_REQUIRES(ctx, dilations[0] == 1 && dilations[c_pos] == 1,
                      absl::InvalidArgumentError(
                          "Current implementation does not support dilation "
                          "rates in the batch and depth dimensions."));
      for (int i = 0; i < spatial; ++i) {
        DFX_OP_REQUIRES(ctx, dilations[sp0 + i] > 0,
                        absl::InvalidArgumentError(
                            "Dilated rates should be larger than 0."));
      }
    }
    DFX_OP_REQUIRES_OK(ctx, CheckValidPadding(n, c_pos));
    const int64_t in_depth = flat[c_pos];
    const int64_t patch_depth = filter.dim_size(spatial);
    DFX_OP_REQUIRES(ctx, in_depth < kIntMax,
                    absl::InvalidArgumentError("Input depth too large"));
    DFX_OP_REQUIRES(ctx, patch_depth < kIntMax,
                    absl::InvalidArgumentError("Patch depth too large"));
    DFX_OP_REQUIRES(
        ctx, patch_depth > 0,
        absl::InvalidArgumentError(absl::StrCat(
            "filter depth must be stricly positive, got ", patch_depth)));
    DFX_OP_REQUIRES(ctx, in_depth == patch_depth,
                    absl::InvalidArgumentError(absl::StrCat(
                        "Input depth must be equal to filter depth: ", in_depth,
                        " vs ", patch_depth)));
    const int64_t out_depth = filter.dim_size(spatial + 1);
    std::vector<int64_t> in_sp(spatial), out_sp(spatial), before(spatial),
        after(spatial);
    for (int i = 0; i < spatial; ++i) {
      in_sp[i] = flat[sp0 + i];
      DFX_OP_REQUIRES(ctx, in_sp[i] < kIntMax,
                      absl::InvalidArgumentError(absl::StrCat(
                          "Input spatial dimension ", i, " too large")));
    }
    DFX_OP_REQUIRES(ctx, batch < kIntMax,
                    absl::InvalidArgumentError("Batch is too large"));
    for (int i = 0; i < spatial; ++i) {
      const int pos = sp0 + i;
      // TensorFlow reads explicit paddings for H and W only.
      const bool explicit_pad = padding_ == Padding::kExplicit && i < 2;
      DFX_OP_REQUIRES_OK(
          ctx, conv_internal::WindowedOutputSize(
                   in_sp[i], filter.dim_size(i), dilations[pos], strides_[pos],
                   padding_, explicit_pad ? explicit_paddings_[2 * pos] : 0,
                   explicit_pad ? explicit_paddings_[2 * pos + 1] : 0,
                   &out_sp[i], &before[i], &after[i]));
    }
    std::vector<int64_t> out_dims;
    for (int i = 0; i < batch_dims_; ++i) out_dims.push_back(input.dim_size(i));
    if (channels_first_) out_dims.push_back(out_depth);
    out_dims.insert(out_dims.end(), out_sp.begin(), out_sp.end());
    if (!channels_first_) out_dims.push_back(out_depth);
    auto out_shape = TensorShape::Build(out_dims);
    DFX_OP_REQUIRES_OK(ctx, out_shape.status());
    Tensor* output = nullptr;
    DFX_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, *out_shape, &output));
    if (output->NumElements() == 0) return;
    if (input.NumElements() == 0) {
      std::memset(output->raw_data(), 0,
                  static_cast<size_t>(output->NumElements()) *
                      DataTypeSize(output->dtype()));
      return;
    }
    if (spatial == 2) {
      DFX_OP_REQUIRES(
          ctx, !channels_first_,
          absl::UnimplementedError(
              "The Conv2D op currently only supports the NHWC tensor format "
              "on the CPU. The op was given the format: NCHW"));
      for (int64_t p : explicit_paddings_) {
        DFX_OP_REQUIRES(ctx, p < kIntMax,
                        absl::InvalidArgumentError("filter too large"));
      }
      ConvGeom geom;
      geom.batch = batch;
      geom.in_rows = in_sp[0];
      geom.in_cols = in_sp[1];
      geom.in_depth = in_depth;
      geom.filter_rows = filter.dim_size(0);
      geom.filter_cols = filter.dim_size(1);
      geom.out_rows = out_sp[0];
      geom.out_cols = out_sp[1];
      geom.out_depth = out_depth;
      geom.stride_rows = strides_[1];
      geom.stride_cols = strides_[2];
      geom.dilation_rows = dilations[1];
      geom.dilation_cols = dilations[2];
      geom.pad_top = before[0];
      geom.pad_bottom = after[0];
      geom.pad_left = before[1];
      geom.pad_right = after[1];
      auto flat_in =
          input.Reshaped(TensorShape({batch, in_sp[0], in_sp[1], in_depth}));
      DFX_OP_REQUIRES_OK(ctx, flat_in.status());
      auto flat_out = output->Reshaped(
          TensorShape({batch, out_sp[0], out_sp[1], out_depth}));
      DFX_OP_REQUIRES_OK(ctx, flat_out.status());
      DFX_OP_REQUIRES_OK(ctx, runner_.Run(ctx, ConvPass::kForward, geom,
                                          &*flat_in, &filter, &*flat_out));
      return;
    }
    DFX_OP_REQUIRES(ctx, !channels_first_,
                    absl::InvalidArgumentError(
                        "CPU implementation of Conv3D currently only "
                        "supports the NHWC tensor format."));
    DFX_OP_REQUIRES(ctx,
                    dilations[1] == 1 && dilations[2] == 1 && dilations[3] == 1,
                    absl::InvalidArgumentError(
                        "CPU implementation of Conv3D currently only supports "
                        "dilated rates of 1."));
    const int64_t strides3[3] = {strides_[1], strides_[2], strides_[3]};
    const int64_t in3[3] = {in_sp[0], in_sp[1], in_sp[2]};
    const int64_t f3[3] = {filter.dim_size(0), filter.dim_size(1),
                           filter.dim_size(2)};
    const int64_t out3[3] = {out_sp[0], out_sp[1], out_sp[2]};
    const int64_t pads3[3] = {before[0], before[1], before[2]};
    switch (input.dtype()) {
#define DFX_CONV3_CASE(DT, T)                                              \
  case DT:                                                                 \
    Conv3DLoops<T>(*ctx->device(), input.data<T>(), filter.data<T>(),      \
                   output->data<T>(), batch, in3, in_depth, f3, out_depth, \
                   out3, strides3, pads3);                                 \
    break;
      DFX_CONV3_CASE(DT_FLOAT, float)
      DFX_CONV3_CASE(DT_DOUBLE, double)
      DFX_CONV3_CASE(DT_HALF, Eigen::half)
      DFX_CONV3_CASE(DT_BFLOAT16, Eigen::bfloat16)
      DFX_CONV3_CASE(DT_INT32, int32_t)
#undef DFX_CONV3_CASE
      default:
        ctx->SetStatus(absl::InvalidArgumentError("unsupported type"));
    }
  }

 private:
  // TensorFlow's CheckValidPadding.
  absl::Status CheckValidPadding(int n, int c_pos) const {
    if (padding_ == Padding::kExplicit) {
      if (static_cast<int>(explicit_paddings_.size()) != 2 * n) {
        return absl::InvalidArgumentError(
            absl::StrCat("explicit_paddings attribute must contain ", 2 * n,
                         " values, but got: ", explicit_paddings_.size()));
      }
      for (int64_t p : explicit_paddings_) {
        if (p < 0) {
          return absl::InvalidArgumentError(absl::StrCat(
              "All elements of explicit_paddings must be nonnegative, got ",
              p));
        }
      }
      if (explicit_paddings_[0] != 0 || explicit_paddings_[1] != 0 ||
          explicit_paddings_[2 * c_pos] != 0 ||
          explicit_paddings_[2 * c_pos + 1] != 0) {
        return absl::InvalidArgumentError(
            "Nonzero explicit padding in the batch or depth dimensions is "
            "not supported");
      }
    } else if (!explicit_paddings_.empty()) {
      return absl::InvalidArgumentError(
          "explicit_paddings attribute must be empty if the padding "
          "attribute is not EXPLICIT");
    }
    return absl::OkStatus();
  }

  bool channels_first_ = false;
  int64_t batch_dims_ = 1;
  std::vector<int64_t> strides_;
  std::vector<int64_t> dilations_;
  std::vector<int64_t> explicit_paddings_;
  Padding padding_ = Padding::kValid;
  ConvRunner runner_;
};

// ---------------------------------------------------------------------------
// FusedPadConv2D and FusedResizeAndPadConv2D

// TensorFlow's kernel (conv_ops_fused_image_transform.cc) resizes with
// legacy bilinear sampling (no half-pixel centers; the lower and upper
// source rows are floor and min(ceil, size - 1) of y * scale), mirrors the
// resized image's edges, and places its patches as its own im2col does:
// VALID windows are centered, so they may start past the padded image's
// first row when the stride leaves rows over.
//
// The resized, padded rows pass through a cache of 8 Mi elements / (line
// width x depth) rows, indexed by row modulo its height, refilled only
// below the last row filled. TensorFlow does not reset that mark between
// the images of a batch, so a later image reads the rows an earlier one
// left (when the cache holds every row, every image's output is the
// first image's): a bug, since the unfused resize, pad and Conv2D give
// each image its own. dfx resets it per image.
template <typename T>
void FusedConv(const Device& device, const T* in, int64_t batch, int64_t in_h,
               int64_t in_w, int64_t depth, int64_t resized_h,
               int64_t resized_w, float height_scale, float width_scale,
               bool bilinear, int64_t top, int64_t left, int64_t padded_h,
               int64_t padded_w, int64_t pad_offset, const T* filter,
               int64_t f_h, int64_t f_w, int64_t out_c, int64_t stride_h,
               int64_t stride_w, bool valid, int64_t out_h, int64_t out_w,
               T* out) {
  using A = Acc<T>;
  const int64_t row_offset =
      ((out_h - 1) * stride_h + f_h - padded_h + (valid ? 1 : 0)) / 2;
  const int64_t col_offset =
      ((out_w - 1) * stride_w + f_w - padded_w + (valid ? 1 : 0)) / 2;
  auto mirror = [pad_offset](float v, int64_t size) {
    if (v < 0) return -(v + 1.0f - static_cast<float>(pad_offset));
    if (v >= static_cast<float>(size)) {
      return static_cast<float>(size) * 2.0f -
             (v + 1.0f + static_cast<float>(pad_offset));
    }
    return v;
  };
  struct Sample {
    int64_t lo, hi;
    T lerp;
  };
  auto sample = [&mirror](int64_t pos, int64_t resized, float scale,
                          int64_t in_size) {
    const float v = mirror(static_cast<float>(pos), resized) * scale;
    // Clamped: TensorFlow's float positions stay inside the image but for
    // sizes past float's precision, where it would read outside.
    const int64_t lo = std::clamp(static_cast<int64_t>(std::floor(v)),
                                  int64_t{0}, in_size - 1);
    return Sample{lo, std::min(static_cast<int64_t>(std::ceil(v)), in_size - 1),
                  static_cast<T>(v - static_cast<float>(lo))};
  };
  // The cache's columns: every x a patch reads.
  const int64_t x_first = -col_offset;
  const int64_t x_end = (out_w - 1) * stride_w - col_offset + f_w;
  const int64_t line = x_end - x_first;
  std::vector<Sample> cols(static_cast<size_t>(line));
  for (int64_t x = x_first; x < x_end; ++x) {
    cols[x - x_first] = sample(x - left, resized_w, width_scale, in_w);
  }
  const int64_t cache_height = (int64_t{8} * 1024 * 1024) / (line * depth);
  const int64_t y_first = -row_offset;
  const int64_t y_end = out_h * stride_h - row_offset + f_h;
  // Rows are kept by TensorFlow's index (y modulo the height) when they
  // could collide, else by y - y_first: the same rows either way.
  const bool wraps = cache_height < y_end - y_first;
  const int64_t slots = wraps ? cache_height : y_end - y_first;
  std::vector<T> cache(static_cast<size_t>(slots * line * depth));
  auto row_at = [&](int64_t y) {
    int64_t slot = y - y_first;
    if (wraps) {
      slot = y < 0 ? cache_height + (y % cache_height) : y % cache_height;
    }
    return cache.data() + slot * line * depth;
  };
  auto fill_row = [&](const T* img, int64_t y) {
    T* row = row_at(y);
    if (y < 0 || y >= padded_h) {
      std::fill_n(row, line * depth, T(0));
      return;
    }
    const Sample r = sample(y - top, resized_h, height_scale, in_h);
    for (int64_t i = 0; i < line; ++i) {
      const int64_t x = x_first + i;
      T* p = row + i * depth;
      if (x < 0 || x >= padded_w) {
        std::fill_n(p, depth, T(0));
        continue;
      }
      const Sample& c = cols[i];
      const T* tl = img + (r.lo * in_w + c.lo) * depth;
      if (!bilinear) {
        std::copy_n(tl, depth, p);
        continue;
      }
      const T* tr = img + (r.lo * in_w + c.hi) * depth;
      const T* bl = img + (r.hi * in_w + c.lo) * depth;
      const T* br = img + (r.hi * in_w + c.hi) * depth;
      for (int64_t ch = 0; ch < depth; ++ch) {
        const T t = tl[ch] + (tr[ch] - tl[ch]) * c.lerp;
        const T btm = bl[ch] + (br[ch] - bl[ch]) * c.lerp;
        p[ch] = t + (btm - t) * r.lerp;
      }
    }
  };
  const double cost = static_cast<double>(f_h * f_w * depth * out_c) + 1;
  for (int64_t b = 0; b < batch; ++b) {
    const T* img = in + b * in_h * in_w * depth;
    int64_t end_cached = std::numeric_limits<int64_t>::min();
    for (int64_t oy = 0; oy < out_h; ++oy) {
      const int64_t y_origin = oy * stride_h - row_offset;
      if (end_cached < y_origin + f_h) {
        const int64_t from = std::max(y_origin, end_cached);
        const int64_t to =
            std::min(y_end, std::max(y_origin + cache_height, end_cached));
        for (int64_t y = from; y < to; ++y) fill_row(img, y);
        end_cached = to;
      }
      T* out_row = out + (b * out_h + oy) * out_w * out_c;
      conv_internal::ParallelForCost(
          device, out_w, cost, [&](int64_t first, int64_t last) {
            std::vector<A> sums(static_cast<size_t>(out_c));
            for (int64_t ox = first; ox < last; ++ox) {
              std::fill(sums.begin(), sums.end(), A(0));
              const int64_t x0 = ox * stride_w - col_offset - x_first;
              for (int64_t fy = 0; fy < f_h; ++fy) {
                const T* px = row_at(y_origin + fy) + x0 * depth;
                const T* w = filter + fy * f_w * depth * out_c;
                for (int64_t i = 0; i < f_w * depth; ++i) {
                  const A xv = static_cast<A>(px[i]);
                  const T* wr = w + i * out_c;
                  for (int64_t co = 0; co < out_c; ++co) {
                    sums[co] += xv * static_cast<A>(wr[co]);
                  }
                }
              }
              for (int64_t co = 0; co < out_c; ++co) {
                out_row[ox * out_c + co] = static_cast<T>(sums[co]);
              }
            }
          });
    }
  }
}

template <bool kResize>
class FusedPadConvOp : public OpKernel {
 public:
  explicit FusedPadConvOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    if (kResize) {
      DFX_OP_REQUIRES_OK(ctx,
                         ctx->GetAttr("resize_align_corners", &align_corners_));
    }
    std::string mode;
    DFX_OP_REQUIRES_OK(ctx, ctx->GetAttr("mode", &mode));
    if (mode == "SYMMETRIC") {
      offset_ = 0;
    } else if (mode == "REFLECT") {
      offset_ = 1;
    } else {
      ctx->SetStatus(absl::InvalidArgumentError(
          "mode must be either REFLECT or SYMMETRIC."));
      return;
    }
    DFX_OP_REQUIRES_OK(ctx, ctx->GetAttr("strides", &strides_));
    DFX_OP_REQUIRES(ctx, strides_.size() == 4,
                    absl::InvalidArgumentError(
                        "Sliding window strides field must specify 4 "
                        "dimensions"));
    DFX_OP_REQUIRES(ctx, strides_[0] == 1 && strides_[3] == 1,
                    absl::InvalidArgumentError(
                        "Current implementation does not yet support strides "
                        "in the batch and depth dimensions."));
    std::string padding;
    DFX_OP_REQUIRES_OK(ctx, ctx->GetAttr("padding", &padding));
    valid_ = padding == "VALID";
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& input = ctx->input(0);
    DFX_OP_REQUIRES(ctx, input.NumElements() > 0,
                    absl::InvalidArgumentError("Input tensor can't be empty"));
    int64_t out_h = 0, out_w = 0;
    float height_scale = 1.0f, width_scale = 1.0f;
    if (kResize) {
      DFX_OP_REQUIRES_OK(ctx, ResizeSize(ctx, input, &out_h, &out_w,
                                         &height_scale, &width_scale));
    } else {
      DFX_OP_REQUIRES(ctx, input.dims() == 4,
                      absl::InvalidArgumentError(
                          absl::StrCat("Fused mirror padding only supports "
                                       "four-dimensional inputs, but ",
                                       input.dims(), " requested")));
      out_h = input.dim_size(1);
      out_w = input.dim_size(2);
    }
    const int64_t resized[4] = {input.dim_size(0), out_h, out_w,
                                input.dim_size(3)};
    const Tensor& paddings = ctx->input(kResize ? 2 : 1);
    DFX_OP_REQUIRES(ctx, paddings.dims() == 2 && paddings.dim_size(1) == 2,
                    absl::InvalidArgumentError(absl::StrCat(
                        "paddings must be a matrix with 2 columns: ",
                        paddings.shape().DebugString())));
    DFX_OP_REQUIRES(ctx, paddings.dim_size(0) == 4,
                    absl::InvalidArgumentError(absl::StrCat(
                        "The first dimension of paddings must be the rank of "
                        "inputs: 4 ",
                        paddings.shape().DebugString())));
    const int32_t* pads = paddings.data<int32_t>();
    int64_t padded[4];
    for (int d = 0; d < 4; ++d) {
      const int32_t before = pads[2 * d], after = pads[2 * d + 1];
      DFX_OP_REQUIRES(
          ctx, before >= 0 && after >= 0,
          absl::InvalidArgumentError(absl::StrCat(
              "paddings must be non-negative: ", before, " ", after)));
      if (offset_ == 0) {
        DFX_OP_REQUIRES(
            ctx, before <= resized[d] && after <= resized[d],
            absl::InvalidArgumentError(absl::StrCat(
                "paddings must be no greater than the dimension "
                "size: ",
                before, ", ", after, " greater than ", resized[d])));
      } else {
        DFX_OP_REQUIRES(
            ctx, before < resized[d] && after < resized[d],
            absl::InvalidArgumentError(absl::StrCat(
                "paddings must be less than the dimension size: ", before, ", ",
                after, " not less than ", resized[d])));
      }
      padded[d] = before + resized[d] + after;
    }
    DFX_OP_REQUIRES(ctx, pads[0] == 0 && pads[1] == 0,
                    absl::InvalidArgumentError(
                        "Fused mirror padding only support spatial padding, "
                        "not batches"));
    DFX_OP_REQUIRES(ctx, pads[6] == 0 && pads[7] == 0,
                    absl::InvalidArgumentError(
                        "Fused mirror padding only support spatial padding, "
                        "not channels"));
    const Tensor& filter = ctx->input(kResize ? 3 : 2);
    DFX_OP_REQUIRES(
        ctx, filter.dims() == 4,
        absl::InvalidArgumentError(absl::StrCat(
            "filter must be 4-dimensional: ", filter.shape().DebugString())));
    for (int i = 0; i < 3; ++i) {
      DFX_OP_REQUIRES(ctx, filter.dim_size(i) < kIntMax,
                      absl::InvalidArgumentError("filter too large"));
    }
    DFX_OP_REQUIRES(ctx, padded[3] == filter.dim_size(2),
                    absl::InvalidArgumentError(absl::StrCat(
                        "input and filter must have the same depth: ",
                        padded[3], " vs ", filter.dim_size(2))));
    DFX_OP_REQUIRES(ctx, padded[1] < kIntMax,
                    absl::InvalidArgumentError("Input rows too large"));
    DFX_OP_REQUIRES(ctx, padded[2] < kIntMax,
                    absl::InvalidArgumentError("Input cols too large"));
    DFX_OP_REQUIRES(ctx, padded[0] < kIntMax,
                    absl::InvalidArgumentError("batch is too large"));
    const Padding padding = valid_ ? Padding::kValid : Padding::kSame;
    int64_t rows = 0, cols = 0, unused0 = 0, unused1 = 0;
    DFX_OP_REQUIRES_OK(ctx, conv_internal::WindowedOutputSize(
                                padded[1], filter.dim_size(0), 1, strides_[1],
                                padding, 0, 0, &rows, &unused0, &unused1));
    DFX_OP_REQUIRES_OK(ctx, conv_internal::WindowedOutputSize(
                                padded[2], filter.dim_size(1), 1, strides_[2],
                                padding, 0, 0, &cols, &unused0, &unused1));
    auto built =
        TensorShape::Build({padded[0], rows, cols, filter.dim_size(3)});
    DFX_OP_REQUIRES_OK(ctx, built.status());
    const TensorShape& out_shape = *built;
    DFX_OP_REQUIRES(ctx, out_shape.num_elements() > 0,
                    absl::InvalidArgumentError("Output tensor can't be empty"));
    // TensorFlow's buffers: the im2col chunk and the resize cache.
    const int64_t elem = static_cast<int64_t>(DataTypeSize(input.dtype()));
    DFX_OP_REQUIRES(
        ctx,
        filter.dim_size(0) * filter.dim_size(1) * padded[3] * elem <=
            16 * 1024 * 1024,
        absl::InvalidArgumentError("Im2Col patch too large for buffer"));
    const int64_t line = (cols - 1) * strides_[2] + filter.dim_size(1);
    DFX_OP_REQUIRES(
        ctx, filter.dim_size(0) * line * padded[3] * elem <= 8 * 1024 * 1024,
        absl::InvalidArgumentError("Input too large for resize cache"));
    Tensor* output = nullptr;
    DFX_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, out_shape, &output));
    switch (input.dtype()) {
#define DFX_FUSED_CASE(DT, T)                                                 \
  case DT:                                                                    \
    FusedConv<T>(*ctx->device(), input.data<T>(), padded[0],                  \
                 input.dim_size(1), input.dim_size(2), padded[3], out_h,      \
                 out_w, height_scale, width_scale, kResize, pads[2], pads[4], \
                 padded[1], padded[2], offset_, filter.data<T>(),             \
                 filter.dim_size(0), filter.dim_size(1), filter.dim_size(3),  \
                 strides_[1], strides_[2], valid_, rows, cols,                \
                 output->data<T>());                                          \
    break;
      DFX_FUSED_CASE(DT_FLOAT, float)
      DFX_FUSED_CASE(DT_DOUBLE, double)
      DFX_FUSED_CASE(DT_HALF, Eigen::half)
      DFX_FUSED_CASE(DT_BFLOAT16, Eigen::bfloat16)
#undef DFX_FUSED_CASE
      default:
        ctx->SetStatus(absl::InvalidArgumentError("unsupported type"));
    }
  }

 private:
  // TensorFlow's ImageResizerState::ValidateAndCalculateOutputSize.
  absl::Status ResizeSize(OpKernelContext* ctx, const Tensor& input,
                          int64_t* out_h, int64_t* out_w, float* height_scale,
                          float* width_scale) const {
    if (input.dims() != 4) {
      return absl::InvalidArgumentError(absl::StrCat(
          "input must be 4-dimensional", input.shape().DebugString()));
    }
    const Tensor& size = ctx->input(1);
    if (size.dims() != 1) {
      return absl::InvalidArgumentError(absl::StrCat(
          "shape_t must be 1-dimensional", size.shape().DebugString()));
    }
    if (size.NumElements() != 2) {
      return absl::InvalidArgumentError(absl::StrCat(
          "shape_t must have two elements", size.shape().DebugString()));
    }
    const int32_t* s = size.data<int32_t>();
    *out_h = s[0];
    *out_w = s[1];
    const int64_t in_h = input.dim_size(1), in_w = input.dim_size(2);
    if (in_h >= kIntMax || in_w >= kIntMax) {
      return absl::InvalidArgumentError(
          "input sizes must be between 0 and max int32");
    }
    auto scale = [this](int64_t in, int64_t out) {
      return align_corners_ && out > 1
                 ? static_cast<float>(in - 1) / static_cast<float>(out - 1)
                 : static_cast<float>(in) / static_cast<float>(out);
    };
    *height_scale = scale(in_h, *out_h);
    *width_scale = scale(in_w, *out_w);
    if (*out_h <= 0 || *out_w <= 0) {
      return absl::InvalidArgumentError(
          absl::StrCat("output dimensions must be positive"));
    }
    if (in_h <= 0 || in_w <= 0) {
      return absl::InvalidArgumentError("input image must be of non-zero size");
    }
    return absl::OkStatus();
  }

  bool align_corners_ = false;
  int64_t offset_ = 0;
  bool valid_ = false;
  std::vector<int64_t> strides_;
};

// ---------------------------------------------------------------------------
// ApproxTopK: on CPU, TensorFlow's kernel serves reduction_dimension -1 and
// is_max_k true only, and computes the exact top k of the last dim, sorted,
// ties by lower index. NaNs rank first, as in TopKV2 (TensorFlow's order of
// NaNs follows its sort's internals).

class ApproxTopKOp : public OpKernel {
 public:
  explicit ApproxTopKOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    int64_t dim = -1;
    bool max_k = true;
    DFX_OP_REQUIRES_OK(ctx, ctx->GetAttr("k", &k_));
    DFX_OP_REQUIRES_OK(ctx, ctx->GetAttr("reduction_dimension", &dim));
    DFX_OP_REQUIRES_OK(ctx, ctx->GetAttr("is_max_k", &max_k));
    DFX_OP_REQUIRES_OK(ctx, ctx->GetAttr("aggregate_to_topk", &aggregate_));
    DFX_OP_REQUIRES(
        ctx, dim == -1 && max_k,
        absl::InvalidArgumentError(absl::StrCat(
            "No OpKernel was registered to support Op 'ApproxTopK' with "
            "reduction_dimension=",
            dim, ", is_max_k=", max_k ? "true" : "false",
            " on CPU (TensorFlow's CPU kernel serves reduction_dimension=-1 "
            "and is_max_k=true only)")));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& input = ctx->input(0);
    DFX_OP_REQUIRES(
        ctx, input.dims() >= 1,
        absl::InvalidArgumentError(absl::StrCat(
            "input must be >= 1-D, got shape ", input.shape().DebugString())));
    const int64_t cols = input.dim_size(input.dims() - 1);
    DFX_OP_REQUIRES(ctx, cols >= k_,
                    absl::InvalidArgumentError(
                        absl::StrCat("input must have at least k columns. Had ",
                                     cols, ", needed ", k_)));
    TensorShape out_shape = input.shape();
    out_shape.set_dim(input.dims() - 1, k_);
    Tensor* values = nullptr;
    Tensor* indices = nullptr;
    DFX_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, out_shape, &values));
    DFX_OP_REQUIRES_OK(ctx, ctx->allocate_output(1, out_shape, &indices));
    if (values->NumElements() == 0) return;
    const int64_t rows = input.NumElements() / cols;
    switch (input.dtype()) {
      case DT_FLOAT:
        Rows<float>(input.data<float>(), rows, cols, values->data<float>(),
                    indices->data<int32_t>());
        break;
      case DT_HALF:
        Rows<Eigen::half>(input.data<Eigen::half>(), rows, cols,
                          values->data<Eigen::half>(),
                          indices->data<int32_t>());
        break;
      default:
        Rows<Eigen::bfloat16>(input.data<Eigen::bfloat16>(), rows, cols,
                              values->data<Eigen::bfloat16>(),
                              indices->data<int32_t>());
    }
  }

 private:
  template <typename T>
  void Rows(const T* in, int64_t rows, int64_t cols, T* values,
            int32_t* indices) const {
    std::vector<int64_t> order(static_cast<size_t>(cols));
    for (int64_t r = 0; r < rows; ++r) {
      const T* row = in + r * cols;
      auto before = [row](int64_t a, int64_t b) {
        const float x = static_cast<float>(row[a]);
        const float y = static_cast<float>(row[b]);
        const bool xn = std::isnan(x), yn = std::isnan(y);
        if (xn || yn) return xn && yn ? a < b : xn;
        if (y < x) return true;
        if (x < y) return false;
        return a < b;
      };
      std::iota(order.begin(), order.end(), int64_t{0});
      std::partial_sort(order.begin(), order.begin() + k_, order.end(), before);
      for (int64_t j = 0; j < k_; ++j) {
        values[r * k_ + j] = row[order[j]];
        indices[r * k_ + j] = static_cast<int32_t>(order[j]);
      }
    }
  }

  int64_t k_ = 0;
  bool aggregate_ = true;
};

// ---------------------------------------------------------------------------
// RefSelect and Fact

class RefSelectOp : public OpKernel {
 public:
  explicit RefSelectOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    set_expensive(false);
  }
  void Compute(OpKernelContext* ctx) override {
    const Tensor& index = ctx->input(0);
    DFX_OP_REQUIRES(ctx, index.dims() == 0,
                    absl::InvalidArgumentError(absl::StrCat(
                        "Index must be a scalar, but it has shape ",
                        index.shape().DebugString())));
    const int32_t i = index.data<int32_t>()[0];
    const int n = ctx->num_inputs() - 1;
    DFX_OP_REQUIRES(
        ctx, i >= 0 && i < n,
        absl::InvalidArgumentError(absl::StrCat(
            "Index must be in the range [0, ", n, ") but got ", i)));
    ctx->forward_ref_input_to_ref_output(i + 1, 0);
  }
};

// TensorFlow's test op. Its unlabelled CPU kernel answers "0! == 1"; the
// kernels labelled "Sergey" and "sergey" (the node's _kernel attr) their
// one fact; another label has no kernel.
class FactOp : public OpKernel {
 public:
  explicit FactOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    set_expensive(false);
    std::string label;
    if (!ctx->GetAttr("_kernel", &label).ok() || label.empty()) {
      fact_ = "0! == 1";
    } else if (label == "Sergey" || label == "sergey") {
      fact_ =
          "Sergey Brin and Batman have never been seen at the same place at "
          "the same time.";
    } else {
      ctx->SetStatus(absl::InvalidArgumentError(absl::StrCat(
          "No OpKernel was registered to support Op 'Fact' with kernel "
          "label '",
          label, "'")));
    }
  }
  void Compute(OpKernelContext* ctx) override {
    Tensor* out = nullptr;
    DFX_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, TensorShape(), &out));
    out->data<std::string>()[0] = fact_;
  }

 private:
  std::string fact_;
};

}  // namespace

void RegisterConv3Kernels(KernelRegistry* r) {
  RegisterKernel<ConvOp>(
      r, KernelDefBuilder("Conv").TypeConstraint(
             "T", {DT_FLOAT, DT_DOUBLE, DT_HALF, DT_BFLOAT16, DT_INT32}));
  RegisterKernel<FusedPadConvOp<false>>(
      r, KernelDefBuilder("FusedPadConv2D")
             .TypeConstraint("T", {DT_FLOAT, DT_DOUBLE, DT_HALF, DT_BFLOAT16}));
  RegisterKernel<FusedPadConvOp<true>>(
      r, KernelDefBuilder("FusedResizeAndPadConv2D")
             .TypeConstraint("T", {DT_FLOAT, DT_DOUBLE, DT_HALF}));
  RegisterKernel<ApproxTopKOp>(
      r, KernelDefBuilder("ApproxTopK")
             .TypeConstraint("T", {DT_FLOAT, DT_HALF, DT_BFLOAT16}));
  // TensorFlow's CPU kernels: every type but the quantized ones.
  RegisterKernel<RefSelectOp>(
      r, KernelDefBuilder("RefSelect")
             .TypeConstraint(
                 "T", {DT_FLOAT, DT_DOUBLE, DT_INT32, DT_UINT8, DT_INT16,
                       DT_INT8, DT_STRING, DT_COMPLEX64, DT_INT64, DT_BOOL,
                       DT_BFLOAT16, DT_UINT16, DT_COMPLEX128, DT_HALF,
                       DT_UINT32, DT_UINT64, DT_RESOURCE, DT_VARIANT}));
  RegisterKernel<FactOp>(r, KernelDefBuilder("Fact"));
  RegisterConv3QuantizedKernels(r);
}

}  // namespace dfx
