// The conv3 family's quantized kernels: QuantizedResizeBilinear (TensorFlow's
// fixed-point interpolation for quint8 with 7 fraction bits in 16-bit sums
// and for qint32 with 30 in 64-bit sums, float interpolation for float) and
// QuantizedInstanceNorm (quint8: per image and channel mean and variance in
// float, normalized, quantized into the normalized range or a given one).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "kernels/quantized/quantized_math.h"
#include "runtime/op_kernel.h"
#include "runtime/quantized_types.h"

namespace dfx {

void RegisterConv3QuantizedKernels(KernelRegistry* registry);

namespace {

constexpr int64_t kIntMax = 2147483647;

// One output position's interpolation: source positions multiplied by
// `step`, the float fraction and its fixed-point form. Computed per
// position rather than cached, so a huge requested size costs no memory
// beyond the output's.
struct Lerp {
  int64_t lower, upper;
  float lerp;
  int64_t ilerp;
};

struct LerpDim {
  int64_t in_size;
  float scale;
  int64_t step;
  int resolution;
  bool half_pixel;

  Lerp operator()(int64_t i) const {
    const float in = half_pixel ? (static_cast<float>(i) + 0.5f) * scale - 0.5f
                                : static_cast<float>(i) * scale;
    const float in_f = std::floor(in);
    const int64_t upper = std::max(
        std::min(static_cast<int64_t>(std::ceil(in)), in_size - 1), int64_t{0});
    const int64_t lower =
        std::min(std::max(static_cast<int64_t>(in_f), int64_t{0}), upper);
    // TensorFlow truncates the scaled fraction to its int16 or int32.
    const int64_t ilerp =
        resolution == 7 ? static_cast<int16_t>((in - in_f) * (1 << resolution))
                        : static_cast<int32_t>((in - in_f) * (1 << resolution));
    return Lerp{lower * step, upper * step, in - in_f, ilerp};
  }
};

// quint8: every step in 16 bits, as TensorFlow's ComputeLerp<7, quint8,
// int16, int16> stores them.
uint8_t LerpQuint8(int tl, int tr, int bl, int br, int16_t xl, int16_t yl) {
  constexpr int kMult = 128;
  const int16_t top =
      static_cast<int16_t>(tl * kMult + static_cast<int16_t>((tr - tl) * xl));
  const int16_t bottom =
      static_cast<int16_t>(bl * kMult + static_cast<int16_t>((br - bl) * xl));
  const int16_t out = static_cast<int16_t>(top + (bottom - top) / kMult * yl);
  return static_cast<uint8_t>(static_cast<int32_t>((out + kMult / 2) / kMult));
}

// qint32: 64-bit sums (ComputeLerp<30, qint32, int32, int64>), wrapping
// where TensorFlow's would overflow. TensorFlow's cast of a qint32 level to
// int64 goes through float, so each level is rounded to float first.
int32_t LerpQint32(int32_t tl_level, int32_t tr_level, int32_t bl_level,
                   int32_t br_level, int64_t xl, int64_t yl) {
  auto widen = [](int32_t v) {
    return static_cast<int64_t>(static_cast<float>(v));
  };
  const int64_t tl = widen(tl_level), tr = widen(tr_level),
                bl = widen(bl_level), br = widen(br_level);
  constexpr int64_t kMult = int64_t{1} << 30;
  auto wrap = [](uint64_t v) { return static_cast<int64_t>(v); };
  const int64_t top =
      wrap(static_cast<uint64_t>(tl) * kMult +
           static_cast<uint64_t>(tr - tl) * static_cast<uint64_t>(xl));
  const int64_t bottom =
      wrap(static_cast<uint64_t>(bl) * kMult +
           static_cast<uint64_t>(br - bl) * static_cast<uint64_t>(xl));
  const int64_t diff =
      wrap(static_cast<uint64_t>(bottom) - static_cast<uint64_t>(top));
  const int64_t out =
      wrap(static_cast<uint64_t>(top) +
           static_cast<uint64_t>(diff / kMult) * static_cast<uint64_t>(yl));
  const int64_t rounded =
      wrap(static_cast<uint64_t>(out) + static_cast<uint64_t>(kMult / 2));
  return static_cast<int32_t>(rounded / kMult);
}

class QuantizedResizeBilinearOp : public OpKernel {
 public:
  explicit QuantizedResizeBilinearOp(OpKernelConstruction* ctx)
      : OpKernel(ctx) {
    DFX_OP_REQUIRES_OK(ctx, ctx->GetAttr("align_corners", &align_corners_));
    DFX_OP_REQUIRES_OK(ctx, ctx->GetAttr("half_pixel_centers", &half_pixel_));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& input = ctx->input(0);
    const Tensor& min_t = ctx->input(2);
    DFX_OP_REQUIRES(ctx, min_t.dims() == 0,
                    absl::InvalidArgumentError("min must be a scalar"));
    const Tensor& max_t = ctx->input(3);
    DFX_OP_REQUIRES(ctx, max_t.dims() == 0,
                    absl::InvalidArgumentError("max must be a scalar"));
    const float in_min = min_t.data<float>()[0];
    const float in_max = max_t.data<float>()[0];
    // ImageResizerState::ValidateAndCreateOutput (half-pixel centers do
    // not enter it: TensorFlow builds it with false).
    DFX_OP_REQUIRES(
        ctx, input.dims() == 4,
        absl::InvalidArgumentError(absl::StrCat("input must be 4-dimensional",
                                                input.shape().DebugString())));
    const Tensor& size = ctx->input(1);
    DFX_OP_REQUIRES(
        ctx, size.dims() == 1,
        absl::InvalidArgumentError(absl::StrCat("shape_t must be 1-dimensional",
                                                size.shape().DebugString())));
    DFX_OP_REQUIRES(
        ctx, size.NumElements() == 2,
        absl::InvalidArgumentError(absl::StrCat(
            "shape_t must have two elements", size.shape().DebugString())));
    const int64_t batch = input.dim_size(0);
    const int64_t out_h = size.data<int32_t>()[0];
    const int64_t out_w = size.data<int32_t>()[1];
    const int64_t in_h = input.dim_size(1), in_w = input.dim_size(2);
    const int64_t channels = input.dim_size(3);
    DFX_OP_REQUIRES(ctx, in_h < kIntMax && in_w < kIntMax,
                    absl::InvalidArgumentError(
                        "input sizes must be between 0 and max int32"));
    DFX_OP_REQUIRES(
        ctx, out_h > 0 && out_w > 0,
        absl::InvalidArgumentError("output dimensions must be positive"));
    DFX_OP_REQUIRES(
        ctx, channels > 0,
        absl::InvalidArgumentError("image must have at least one channel"));
    DFX_OP_REQUIRES(
        ctx, in_h > 0 && in_w > 0,
        absl::InvalidArgumentError("input image must be of non-zero size"));
    auto scale = [this](int64_t in, int64_t out) {
      return align_corners_ && out > 1
                 ? static_cast<float>(in - 1) / static_cast<float>(out - 1)
                 : static_cast<float>(in) / static_cast<float>(out);
    };
    const float height_scale = scale(in_h, out_h);
    const float width_scale = scale(in_w, out_w);
    auto out_shape = TensorShape::Build({batch, out_h, out_w, channels});
    DFX_OP_REQUIRES_OK(ctx, out_shape.status());
    Tensor* output = nullptr;
    DFX_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, *out_shape, &output));
    // TensorFlow returns here without its range outputs, which a fetch of
    // them then misses.
    if (output->NumElements() == 0) return;
    if (out_h == in_h && out_w == in_w) {
      std::memcpy(output->raw_data(), input.raw_data(),
                  static_cast<size_t>(input.NumElements()) *
                      DataTypeSize(input.dtype()));
    } else {
      const int resolution = input.dtype() == DT_QUINT8   ? 7
                             : input.dtype() == DT_QINT32 ? 30
                                                          : 0;
      const LerpDim xs{in_w, width_scale, channels, resolution, half_pixel_};
      const LerpDim ys{in_h, height_scale, 1, resolution, half_pixel_};
      switch (input.dtype()) {
        case DT_QUINT8:
          Resize<quint8>(input, xs, ys, batch, out_h, out_w, channels, output,
                         [](const quint8* lo, const quint8* hi, const Lerp& x,
                            int64_t c, const Lerp& y) {
                           return quint8(LerpQuint8(
                               lo[x.lower + c].value, lo[x.upper + c].value,
                               hi[x.lower + c].value, hi[x.upper + c].value,
                               static_cast<int16_t>(x.ilerp),
                               static_cast<int16_t>(y.ilerp)));
                         });
          break;
        case DT_QINT32:
          Resize<qint32>(input, xs, ys, batch, out_h, out_w, channels, output,
                         [](const qint32* lo, const qint32* hi, const Lerp& x,
                            int64_t c, const Lerp& y) {
                           return qint32(LerpQint32(
                               lo[x.lower + c].value, lo[x.upper + c].value,
                               hi[x.lower + c].value, hi[x.upper + c].value,
                               x.ilerp, y.ilerp));
                         });
          break;
        default:
          Resize<float>(input, xs, ys, batch, out_h, out_w, channels, output,
                        [](const float* lo, const float* hi, const Lerp& x,
                           int64_t c, const Lerp& y) {
                          const float tl = lo[x.lower + c];
                          const float tr = lo[x.upper + c];
                          const float bl = hi[x.lower + c];
                          const float br = hi[x.upper + c];
                          const float top = tl + (tr - tl) * x.lerp;
                          const float bottom = bl + (br - bl) * x.lerp;
                          return top + (bottom - top) * y.lerp;
                        });
      }
    }
    Tensor* out_min = nullptr;
    DFX_OP_REQUIRES_OK(ctx, ctx->allocate_output(1, TensorShape(), &out_min));
    out_min->data<float>()[0] = in_min;
    Tensor* out_max = nullptr;
    DFX_OP_REQUIRES_OK(ctx, ctx->allocate_output(2, TensorShape(), &out_max));
    out_max->data<float>()[0] = in_max;
  }

 private:
  template <typename T, typename Fn>
  static void Resize(const Tensor& input, const LerpDim& xs, const LerpDim& ys,
                     int64_t batch, int64_t out_h, int64_t out_w,
                     int64_t channels, Tensor* output, Fn&& lerp) {
    const int64_t row = input.dim_size(2) * channels;
    const int64_t image = input.dim_size(1) * row;
    const T* in = input.data<T>();
    T* out = output->data<T>();
    for (int64_t b = 0; b < batch; ++b) {
      for (int64_t y = 0; y < out_h; ++y) {
        const Lerp ly = ys(y);
        const T* lo = in + b * image + ly.lower * row;
        const T* hi = in + b * image + ly.upper * row;
        for (int64_t x = 0; x < out_w; ++x) {
          const Lerp lx = xs(x);
          for (int64_t c = 0; c < channels; ++c) {
            *out++ = lerp(lo, hi, lx, c, ly);
          }
        }
      }
    }
  }

  bool align_corners_ = false;
  bool half_pixel_ = false;
};

// TensorFlow's unoptimized (non-NEON) path: per image and channel, the mean
// of the levels and the mean of (scale * (level - mean))^2, summed in float
// in row order; each value normalized and quantized into the normalized
// range (or the given one), at least min_separation wide.
class QuantizedInstanceNormOp : public OpKernel {
 public:
  explicit QuantizedInstanceNormOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    DFX_OP_REQUIRES_OK(ctx, ctx->GetAttr("variance_epsilon", &epsilon_));
    DFX_OP_REQUIRES_OK(ctx, ctx->GetAttr("min_separation", &min_separation_));
    DFX_OP_REQUIRES_OK(ctx, ctx->GetAttr("output_range_given", &range_given_));
    if (range_given_) {
      DFX_OP_REQUIRES_OK(ctx, ctx->GetAttr("given_y_min", &given_min_));
      DFX_OP_REQUIRES_OK(ctx, ctx->GetAttr("given_y_max", &given_max_));
      DFX_OP_REQUIRES(ctx, given_min_ < given_max_,
                      absl::InvalidArgumentError(absl::StrCat(
                          "given_y_min must be less than given_y_max : ",
                          given_min_, " >= ", given_max_)));
    }
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& input = ctx->input(0);
    const Tensor& x_min = ctx->input(1);
    const Tensor& x_max = ctx->input(2);
    DFX_OP_REQUIRES(ctx, x_min.dims() == 0,
                    absl::InvalidArgumentError(absl::StrCat(
                        "`x_min` must be rank 0 but is rank ", x_min.dims())));
    DFX_OP_REQUIRES(ctx, x_max.dims() == 0,
                    absl::InvalidArgumentError(absl::StrCat(
                        "`x_max` must be rank 0 but is rank ", x_max.dims())));
    const float in_min = x_min.data<float>()[0];
    const float in_max = x_max.data<float>()[0];
    const float in_scale = (in_max - in_min) / 255.0f;
    DFX_OP_REQUIRES(ctx, in_min < in_max,
                    absl::InvalidArgumentError(absl::StrCat(
                        "input_min must be less than input_max : ", in_min,
                        " >= ", in_max)));
    // TensorFlow reads the input as 4-D without checking (a failed CHECK).
    DFX_OP_REQUIRES(ctx, input.dims() == 4,
                    absl::InvalidArgumentError(
                        absl::StrCat("x must be 4-dimensional, got shape ",
                                     input.shape().DebugString())));
    const int64_t n = input.dim_size(0), h = input.dim_size(1),
                  w = input.dim_size(2), c = input.dim_size(3);
    Tensor* output = nullptr;
    DFX_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, input.shape(), &output));
    Tensor* out_min = nullptr;
    DFX_OP_REQUIRES_OK(ctx, ctx->allocate_output(1, TensorShape(), &out_min));
    Tensor* out_max = nullptr;
    DFX_OP_REQUIRES_OK(ctx, ctx->allocate_output(2, TensorShape(), &out_max));
    const quint8* x = input.data<quint8>();
    const int64_t plane = h * w;
    std::vector<float> mean(static_cast<size_t>(n * c), 0.0f);
    std::vector<float> inv_std(static_cast<size_t>(n * c), 0.0f);
    for (int64_t b = 0; b < n; ++b) {
      for (int64_t ch = 0; ch < c; ++ch) {
        float sum = 0;
        for (int64_t p = 0; p < plane; ++p) {
          sum += static_cast<float>(x[(b * plane + p) * c + ch].value);
        }
        const float m = sum / static_cast<float>(plane);
        float sq = 0;
        for (int64_t p = 0; p < plane; ++p) {
          const float d =
              in_scale *
              (static_cast<float>(x[(b * plane + p) * c + ch].value) - m);
          sq += d * d;
        }
        const float var = sq / static_cast<float>(plane);
        mean[b * c + ch] = m;
        inv_std[b * c + ch] = 1.0f / std::sqrt(var + epsilon_);
      }
    }
    const int64_t total = input.NumElements();
    std::vector<float> normed(static_cast<size_t>(total));
    float lo = std::numeric_limits<float>::max();
    float hi = std::numeric_limits<float>::lowest();
    for (int64_t i = 0; i < total; ++i) {
      const int64_t ch = i % c;
      const int64_t b = i / (plane * c);
      normed[i] = in_scale *
                  (static_cast<float>(x[i].value) - mean[b * c + ch]) *
                  inv_std[b * c + ch];
      lo = std::min(lo, normed[i]);
      hi = std::max(hi, normed[i]);
    }
    if (range_given_) {
      lo = given_min_;
      hi = given_max_;
    }
    if (hi - lo < min_separation_) hi = lo + min_separation_;
    const quantized::TensorQuantizer<quint8> quantize(lo, hi);
    quint8* y = output->data<quint8>();
    for (int64_t i = 0; i < total; ++i) y[i] = quantize(normed[i]);
    out_min->data<float>()[0] = lo;
    out_max->data<float>()[0] = hi;
  }

 private:
  float epsilon_ = 1e-5f;
  float min_separation_ = 1e-3f;
  bool range_given_ = false;
  float given_min_ = 0;
  float given_max_ = 0;
};

}  // namespace

void RegisterConv3QuantizedKernels(KernelRegistry* r) {
  RegisterKernel<QuantizedResizeBilinearOp>(
      r, KernelDefBuilder("QuantizedResizeBilinear")
             .TypeConstraint("T", {DT_QUINT8, DT_QINT32, DT_FLOAT}));
  RegisterKernel<QuantizedInstanceNormOp>(
      r, KernelDefBuilder("QuantizedInstanceNorm")
             .TypeConstraint("T", {DT_QUINT8}));
}

}  // namespace dfx
