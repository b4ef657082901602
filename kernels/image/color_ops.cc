// RGBToHSV and HSVToRGB (half, bfloat16, float, double) and the float CPU
// kernels of AdjustContrastv2, AdjustSaturation and AdjustHue.
//
// Each follows TensorFlow's own formula for the op, which differ between
// ops (RGBToHSV's hue uses (1 / range) / 6 in T, AdjustSaturation's
// 1 / (6 range) plus double constants, AdjustHue works on a [0, 6) hue and
// the min/max range), so the results agree to the bit where the arithmetic
// order allows.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include "absl/strings/str_cat.h"
#include "kernels/eigen_util.h"
#include "kernels/image/image_kernels.h"
#include "kernels/image/image_util.h"
#include "runtime/op_kernel.h"

namespace dfx {
namespace {

using Eigen::bfloat16;
using Eigen::half;

Eigen::TensorOpCost PixelCost() { return Eigen::TensorOpCost(12, 12, 30); }

// Runs fn(first, last) over pixel ranges of `pixels` in parallel.
template <typename Fn>
void ForPixels(OpKernelContext* ctx, int64_t pixels, Fn&& fn) {
  ImageParallelFor(*ctx->device(), pixels, PixelCost(), std::forward<Fn>(fn));
}

// RGBToHSV and HSVToRGB: last dim 3, TensorFlow's FailedPrecondition
// otherwise.
absl::Status CheckColorInput(const Tensor& input) {
  if (input.dims() < 1) {
    return absl::InvalidArgumentError(
        absl::StrCat("input must be at least 1D", input.shape().DebugString()));
  }
  const int64_t channels = input.dim_size(input.dims() - 1);
  if (channels != 3) {
    return absl::FailedPreconditionError(
        absl::StrCat("input must have 3 channels but input only has ", channels,
                     " channels."));
  }
  return absl::OkStatus();
}

template <typename T>
class RgbToHsvOp : public OpKernel {
 public:
  using OpKernel::OpKernel;

  void Compute(OpKernelContext* ctx) override {
    const Tensor& input = ctx->input(0);
    DFX_OP_REQUIRES_OK(ctx, CheckColorInput(input));
    Tensor* out = nullptr;
    DFX_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, input.shape(), &out));
    const T* in = input.data<T>();
    T* o = out->data<T>();
    ForPixels(ctx, input.NumElements() / 3, [&](int64_t first, int64_t last) {
      const T zero(0), one(1);
      const T sixth = one / T(6);
      const T third = T(2) / T(6);
      const T two_thirds = T(4) / T(6);
      for (int64_t i = first; i < last; ++i) {
        const T r = in[3 * i], g = in[3 * i + 1], b = in[3 * i + 2];
        const T v = std::max(std::max(r, g), b);
        const T range = v - std::min(std::min(r, g), b);
        const T s = v > zero ? T(range / v) : zero;
        const T norm = T(one / range) * sixth;
        T h;
        if (r == v) {
          h = norm * T(g - b);
        } else if (g == v) {
          h = T(norm * T(b - r)) + third;
        } else {
          h = T(norm * T(r - g)) + two_thirds;
        }
        if (!(range > zero)) h = zero;
        if (h < zero) h = h + one;
        o[3 * i] = h;
        o[3 * i + 1] = s;
        o[3 * i + 2] = v;
      }
    });
  }
};

template <typename T>
class HsvToRgbOp : public OpKernel {
 public:
  using OpKernel::OpKernel;

  void Compute(OpKernelContext* ctx) override {
    const Tensor& input = ctx->input(0);
    DFX_OP_REQUIRES_OK(ctx, CheckColorInput(input));
    Tensor* out = nullptr;
    DFX_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, input.shape(), &out));
    const T* in = input.data<T>();
    T* o = out->data<T>();
    ForPixels(ctx, input.NumElements() / 3, [&](int64_t first, int64_t last) {
      const T zero(0), one(1), two(2);
      auto clamp01 = [&](T x) { return std::min(std::max(x, zero), one); };
      for (int64_t i = first; i < last; ++i) {
        const T h = in[3 * i], s = in[3 * i + 1], v = in[3 * i + 2];
        const T dh = h * T(6);
        const T dr = clamp01(T(Eigen::numext::abs(T(dh - T(3)))) - one);
        const T dg = clamp01(T(-Eigen::numext::abs(T(dh - two))) + two);
        const T db = clamp01(T(-Eigen::numext::abs(T(dh - T(4)))) + two);
        const T one_s = T(-s) + one;
        o[3 * i] = T(one_s + T(s * dr)) * v;
        o[3 * i + 1] = T(one_s + T(s * dg)) * v;
        o[3 * i + 2] = T(one_s + T(s * db)) * v;
      }
    });
  }
};

// AdjustContrastv2: each channel of each image moves away from (or
// toward) its mean by the factor. The mean is TensorFlow's: the image's
// pixels folded in halves (left half plus right half, repeatedly), times
// 1 / (height * width).
class AdjustContrastV2Op : public OpKernel {
 public:
  using OpKernel::OpKernel;

  void Compute(OpKernelContext* ctx) override {
    const Tensor& input = ctx->input(0);
    const Tensor& factor = ctx->input(1);
    DFX_OP_REQUIRES(ctx, input.dims() >= 3,
                    absl::InvalidArgumentError(
                        absl::StrCat("input must be at least 3-D, got shape",
                                     input.shape().DebugString())));
    const int64_t height = input.dim_size(input.dims() - 3);
    const int64_t width = input.dim_size(input.dims() - 2);
    const int64_t channels = input.dim_size(input.dims() - 1);
    DFX_OP_REQUIRES(
        ctx, factor.dims() == 0,
        absl::InvalidArgumentError(absl::StrCat(
            "contrast_factor must be scalar: ", factor.shape().DebugString())));
    Tensor* out = nullptr;
    DFX_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, input.shape(), &out));
    if (input.NumElements() == 0) return;
    const int64_t image_size = height * width;
    const int64_t plane = image_size * channels;
    const int64_t batch = input.NumElements() / plane;
    const float f = factor.data<float>()[0];
    const float* in = input.data<float>();
    float* o = out->data<float>();
    ImageParallelFor(
        *ctx->device(), batch,
        Eigen::TensorOpCost(8 * plane, 4 * plane, 4 * plane),
        [&](int64_t first, int64_t last) {
          std::vector<float> sum(plane);
          for (int64_t b = first; b < last; ++b) {
            const float* x = in + b * plane;
            int64_t remaining = image_size;
            bool first_round = true;
            do {
              const int64_t right = remaining / 2;
              const int64_t left = remaining - right;
              if (first_round) {
                for (int64_t k = 0; k < right * channels; ++k) {
                  sum[k] = x[left * channels + k] + x[k];
                }
                if (left > right) {
                  std::copy(x + right * channels, x + left * channels,
                            sum.begin() + right * channels);
                }
              } else {
                for (int64_t k = 0; k < right * channels; ++k) {
                  sum[k] += sum[left * channels + k];
                }
              }
              remaining = left;
              first_round = false;
            } while (remaining > 1);
            const float scale = 1.0f / static_cast<float>(image_size);
            float* y = o + b * plane;
            for (int64_t c = 0; c < channels; ++c) {
              const float mean = sum[c] * scale;
              for (int64_t p = 0; p < image_size; ++p) {
                const int64_t k = p * channels + c;
                y[k] = mean + f * (x[k] - mean);
              }
            }
          }
        });
  }
};

// AdjustSaturation and AdjustHue: rank >= 3, a scalar, 3 channels.
absl::Status CheckAdjustInput(const Tensor& input, const Tensor& scalar,
                              const char* name) {
  if (input.dims() < 3) {
    return absl::InvalidArgumentError(absl::StrCat(
        "input must be at least 3-D, got shape", input.shape().DebugString()));
  }
  if (scalar.dims() != 0) {
    return absl::InvalidArgumentError(
        absl::StrCat(name, " must be scalar: ", scalar.shape().DebugString()));
  }
  const int64_t channels = input.dim_size(input.dims() - 1);
  if (channels != 3) {
    return absl::InvalidArgumentError(absl::StrCat(
        "input must have 3 channels but instead has ", channels, " channels."));
  }
  return absl::OkStatus();
}

// AdjustSaturation's HSV: hue in [0, 1), with TensorFlow's double
// constants 2/6 and 4/6.
void SaturationRgbToHsv(float r, float g, float b, float* h, float* s,
                        float* v) {
  const float vv = std::max(r, std::max(g, b));
  const float range = vv - std::min(r, std::min(g, b));
  *s = vv > 0 ? range / vv : 0.0f;
  const float norm = 1.0f / (6.0f * range);
  float hh;
  if (r == vv) {
    hh = norm * (g - b);
  } else if (g == vv) {
    hh = static_cast<float>(norm * (b - r) + 2.0 / 6.0);
  } else {
    hh = static_cast<float>(norm * (r - g) + 4.0 / 6.0);
  }
  if (range <= 0.0) hh = 0;
  if (hh < 0.0) hh = hh + 1;
  *v = vv;
  *h = hh;
}

void SaturationHsvToRgb(float h, float s, float v, float* rgb) {
  const float c = s * v;
  const float m = v - c;
  const float dh = h * 6;
  const int sector = static_cast<int>(dh);
  // dh modulo 2 into (0, 2), as TensorFlow's loops compute it for the hues
  // [0, 1) this op produces.
  float mod2 = dh;
  while (mod2 <= 0) mod2 += 2.0f;
  while (mod2 >= 2.0f) mod2 -= 2.0f;
  const float x = c * (1 - std::abs(mod2 - 1));
  float r = 0, g = 0, b = 0;
  switch (sector) {
    case 0:
      r = c;
      g = x;
      break;
    case 1:
      r = x;
      g = c;
      break;
    case 2:
      g = c;
      b = x;
      break;
    case 3:
      g = x;
      b = c;
      break;
    case 4:
      r = x;
      b = c;
      break;
    case 5:
      r = c;
      b = x;
      break;
    default:
      break;
  }
  rgb[0] = r + m;
  rgb[1] = g + m;
  rgb[2] = b + m;
}

class AdjustSaturationOp : public OpKernel {
 public:
  using OpKernel::OpKernel;

  void Compute(OpKernelContext* ctx) override {
    const Tensor& input = ctx->input(0);
    const Tensor& scale = ctx->input(1);
    DFX_OP_REQUIRES_OK(ctx, CheckAdjustInput(input, scale, "scale"));
    Tensor* out = nullptr;
    DFX_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, input.shape(), &out));
    const float k = scale.data<float>()[0];
    const float* in = input.data<float>();
    float* o = out->data<float>();
    ForPixels(ctx, input.NumElements() / 3, [&](int64_t first, int64_t last) {
      for (int64_t i = first; i < last; ++i) {
        float h, s, v;
        SaturationRgbToHsv(in[3 * i], in[3 * i + 1], in[3 * i + 2], &h, &s, &v);
        s = std::min(1.0f, std::max(0.0f, s * k));
        SaturationHsvToRgb(h, s, v, o + 3 * i);
      }
    });
  }
};

// AdjustHue's hue in [0, 6) from the sorted channels, with the min and max.
void HueFromRgb(float r, float g, float b, float* h, float* lo, float* hi) {
  float mid;
  int sector;
  // Equal channels may fall on either side: the hue is the same.
  if (r < g) {
    if (b < r) {
      *hi = g, mid = r, *lo = b, sector = 1;
    } else if (b > g) {
      *hi = b, mid = g, *lo = r, sector = 3;
    } else {
      *hi = g, mid = b, *lo = r, sector = 2;
    }
  } else {
    if (b < g) {
      *hi = r, mid = g, *lo = b, sector = 0;
    } else if (b > r) {
      *hi = b, mid = r, *lo = g, sector = 4;
    } else {
      *hi = r, mid = b, *lo = g, sector = 5;
    }
  }
  if (*hi == *lo) {
    *h = 0;
    return;
  }
  const float ratio = (mid - *lo) / (*hi - *lo);
  *h = sector + ((sector & 1) == 0 ? ratio : (1 - ratio));
}

void RgbFromHue(float h, float lo, float hi, float* rgb) {
  const int sector = static_cast<int>(h);
  float ratio = h - sector;
  if ((sector & 1) != 0) ratio = 1 - ratio;
  const float mid = lo + ratio * (hi - lo);
  float r, g, b;
  switch (sector) {
    case 0:
      r = hi, g = mid, b = lo;
      break;
    case 1:
      r = mid, g = hi, b = lo;
      break;
    case 2:
      r = lo, g = hi, b = mid;
      break;
    case 3:
      r = lo, g = mid, b = hi;
      break;
    case 4:
      r = mid, g = lo, b = hi;
      break;
    default:
      r = hi, g = lo, b = mid;
      break;
  }
  rgb[0] = r;
  rgb[1] = g;
  rgb[2] = b;
}

class AdjustHueOp : public OpKernel {
 public:
  using OpKernel::OpKernel;

  void Compute(OpKernelContext* ctx) override {
    const Tensor& input = ctx->input(0);
    const Tensor& delta = ctx->input(1);
    DFX_OP_REQUIRES_OK(ctx, CheckAdjustInput(input, delta, "delta"));
    Tensor* out = nullptr;
    DFX_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, input.shape(), &out));
    const float shift = delta.data<float>()[0] * 6;
    const float* in = input.data<float>();
    float* o = out->data<float>();
    ForPixels(ctx, input.NumElements() / 3, [&](int64_t first, int64_t last) {
      for (int64_t i = first; i < last; ++i) {
        float h, lo, hi;
        HueFromRgb(in[3 * i], in[3 * i + 1], in[3 * i + 2], &h, &lo, &hi);
        h += shift;
        // Back into [0, 6) by whole turns as TensorFlow does; a hue so far
        // out that adding 6 no longer moves it (or an infinite one) would
        // loop forever there, so it takes fmod instead.
        if (std::abs(h) < 1e6f) {
          while (h < 0) h += 6;
          while (h >= 6) h -= 6;
        } else if (std::isfinite(h)) {
          h = std::fmod(h, 6.0f);
          if (h < 0) h += 6;
          if (h >= 6) h = 0;
        } else {
          h = 0;
        }
        RgbFromHue(h, lo, hi, o + 3 * i);
      }
    });
  }
};

}  // namespace

void RegisterColorKernels(KernelRegistry* registry) {
  RegisterKernel<RgbToHsvOp<float>>(
      registry, KernelDefBuilder("RGBToHSV").TypeConstraint<float>("T"));
  RegisterKernel<RgbToHsvOp<double>>(
      registry, KernelDefBuilder("RGBToHSV").TypeConstraint<double>("T"));
  RegisterKernel<RgbToHsvOp<half>>(
      registry, KernelDefBuilder("RGBToHSV").TypeConstraint<half>("T"));
  RegisterKernel<RgbToHsvOp<bfloat16>>(
      registry, KernelDefBuilder("RGBToHSV").TypeConstraint<bfloat16>("T"));
  RegisterKernel<HsvToRgbOp<float>>(
      registry, KernelDefBuilder("HSVToRGB").TypeConstraint<float>("T"));
  RegisterKernel<HsvToRgbOp<double>>(
      registry, KernelDefBuilder("HSVToRGB").TypeConstraint<double>("T"));
  RegisterKernel<HsvToRgbOp<half>>(
      registry, KernelDefBuilder("HSVToRGB").TypeConstraint<half>("T"));
  RegisterKernel<HsvToRgbOp<bfloat16>>(
      registry, KernelDefBuilder("HSVToRGB").TypeConstraint<bfloat16>("T"));
  RegisterKernel<AdjustContrastV2Op>(
      registry,
      KernelDefBuilder("AdjustContrastv2").TypeConstraint<float>("T"));
  RegisterKernel<AdjustSaturationOp>(
      registry,
      KernelDefBuilder("AdjustSaturation").TypeConstraint<float>("T"));
  RegisterKernel<AdjustHueOp>(
      registry, KernelDefBuilder("AdjustHue").TypeConstraint<float>("T"));
}

}  // namespace dfx
