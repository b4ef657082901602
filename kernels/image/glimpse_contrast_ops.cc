// ExtractGlimpse and ExtractGlimpseV2 (windows of a float NHWC batch at
// per-image offsets; the part outside the image is zero, uniform or
// Gaussian noise) and AdjustContrast (v1, deprecated at GraphDef version 2:
// float output clamped to [min_value, max_value]) on CPU.
//
// Glimpse offsets follow TensorFlow's Eigen GlimpseExtractionOp: (y, x)
// un-normalized and un-centered in float, then truncated to integers; V1
// removes half the window even for unnormalized offsets, V2 only for
// normalized centered ones. The noise of the random modes is drawn as
// TensorFlow draws it (uniform over the image's [min, max]; per channel
// Gaussian of the channel's mean and deviation, clamped to its range), not
// from the same stream.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "kernels/eigen_util.h"
#include "kernels/image/image2_kernels.h"
#include "runtime/op_kernel.h"

namespace dfx {
namespace {

enum class Noise { kUniform, kGaussian, kZero };

class ExtractGlimpseOp : public OpKernel {
 public:
  explicit ExtractGlimpseOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    v1_ = def().op() == "ExtractGlimpse";
    bool uniform = false;
    std::string noise;
    ctx->SetStatus(ctx->GetAttr("normalized", &normalized_));
    ctx->SetStatus(ctx->GetAttr("centered", &centered_));
    ctx->SetStatus(ctx->GetAttr("uniform_noise", &uniform));
    ctx->SetStatus(ctx->GetAttr("noise", &noise));
    if (uniform && !noise.empty() && noise != "uniform") {
      ctx->SetStatus(absl::InvalidArgumentError(
          "The uniform_noise and noise could not be specified at the same "
          "time"));
      return;
    }
    if (noise.empty()) {
      noise_ = uniform ? Noise::kUniform : Noise::kGaussian;
    } else if (noise == "uniform") {
      noise_ = Noise::kUniform;
    } else if (noise == "gaussian") {
      noise_ = Noise::kGaussian;
    } else if (noise == "zero") {
      noise_ = Noise::kZero;
    } else {
      ctx->SetStatus(absl::InvalidArgumentError(absl::StrCat(
          "The noise could only be uniform, gaussian, or zero, got", noise)));
    }
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& input = ctx->input(0);
    const Tensor& size = ctx->input(1);
    const Tensor& offsets = ctx->input(2);
    DFX_OP_REQUIRES(
        ctx, input.dims() == 4,
        absl::InvalidArgumentError(absl::StrCat(
            "input must be 4-dimensional (batch_size, height, width, depth)",
            input.shape().DebugString())));
    const int64_t batch = input.dim_size(0);
    DFX_OP_REQUIRES(ctx, size.dims() == 1 && size.dim_size(0) == 2,
                    absl::InvalidArgumentError(absl::StrCat(
                        "input must be a vector of size 2 (height, width)",
                        size.shape().DebugString())));
    const int64_t out_h = size.data<int32_t>()[0];
    const int64_t out_w = size.data<int32_t>()[1];
    DFX_OP_REQUIRES(
        ctx, out_h >= 0 && out_w >= 0,
        absl::InvalidArgumentError(absl::StrCat(
            "Expected a non-negative size, got ", out_h < 0 ? out_h : out_w)));
    DFX_OP_REQUIRES(
        ctx, offsets.dims() == 2,
        absl::InvalidArgumentError(absl::StrCat(
            "input must be a matrix", offsets.shape().DebugString())));
    DFX_OP_REQUIRES(
        ctx, offsets.dim_size(0) == batch,
        absl::InvalidArgumentError(absl::StrCat(
            "first dimension should be batch", offsets.shape().DebugString())));
    DFX_OP_REQUIRES(ctx, offsets.dim_size(1) == 2,
                    absl::InvalidArgumentError(absl::StrCat(
                        "second dimension should be of size 2 (y,x)",
                        offsets.shape().DebugString())));
    const int64_t depth = input.dim_size(3);
    Tensor* out = nullptr;
    DFX_OP_REQUIRES_OK(
        ctx, ctx->allocate_output(0, TensorShape({batch, out_h, out_w, depth}),
                                  &out));
    if (out->NumElements() == 0) return;
    const int64_t in_h = input.dim_size(1);
    const int64_t in_w = input.dim_size(2);
    DFX_OP_REQUIRES(
        ctx, in_h > 0 && in_w > 0,
        absl::InvalidArgumentError("input height and width must be positive"));
    const float* in = input.data<float>();
    const float* off = offsets.data<float>();
    float* o = out->data<float>();
    std::mt19937 gen(std::random_device{}());
    for (int64_t b = 0; b < batch; ++b) {
      float y = off[2 * b];
      float x = off[2 * b + 1];
      // V1 halves centered offsets and removes half the window whether or
      // not they are normalized; V2 only for normalized ones.
      if (v1_ || normalized_) {
        if (normalized_) {
          x *= static_cast<float>(in_w);
          y *= static_cast<float>(in_h);
        }
        if (centered_) {
          x /= 2.0f;
          y /= 2.0f;
          x += static_cast<float>(in_w) / 2.0f;
          y += static_cast<float>(in_h) / 2.0f;
        }
        if (v1_ || centered_) {
          x -= static_cast<float>(out_w) / 2.0f;
          y -= static_cast<float>(out_h) / 2.0f;
        }
      } else if (centered_) {
        x += static_cast<float>(in_w) / 2.0f;
        y += static_cast<float>(in_h) / 2.0f;
      }
      Window wx = Place(static_cast<int64_t>(x), out_w, in_w);
      Window wy = Place(static_cast<int64_t>(y), out_h, in_h);
      const float* img = in + b * in_h * in_w * depth;
      float* dst = o + b * out_h * out_w * depth;
      if (wx.partial || wy.partial) {
        FillNoise(img, in_h * in_w, depth, out_h * out_w, &gen, dst);
        if (wx.covered == 0 || wy.covered == 0) continue;
      }
      for (int64_t r = 0; r < wy.extent; ++r) {
        for (int64_t c = 0; c < wx.extent; ++c) {
          const float* src =
              img + ((wy.source + r) * in_w + (wx.source + c)) * depth;
          std::copy(src, src + depth,
                    dst + ((wy.base + r) * out_w + (wx.base + c)) * depth);
        }
      }
    }
  }

 private:
  // Along one axis: the window's first input position `source`, its first
  // output position `base`, the count copied and whether noise is needed.
  struct Window {
    int64_t source;
    int64_t base;
    int64_t extent;
    int64_t covered;
    bool partial;
  };

  static Window Place(int64_t offset, int64_t size, int64_t in_size) {
    Window w{offset, 0, size, size, false};
    if (offset < 0) {
      w.source = 0;
      w.covered = std::max<int64_t>(0, size + offset);
      w.extent = w.covered;
      w.base = size - w.covered;
      w.partial = true;
    } else if (offset + size >= in_size) {
      w.covered = std::max<int64_t>(0, in_size - offset);
      w.extent = w.covered;
      w.partial = true;
    }
    w.extent = std::min(in_size, w.extent);
    return w;
  }

  void FillNoise(const float* img, int64_t pixels, int64_t depth,
                 int64_t out_pixels, std::mt19937* gen, float* dst) const {
    const int64_t n = pixels * depth;
    if (noise_ == Noise::kZero) {
      std::fill(dst, dst + out_pixels * depth, 0.0f);
    } else if (noise_ == Noise::kUniform) {
      const float lo = *std::min_element(img, img + n);
      const float range = *std::max_element(img, img + n) - lo;
      std::uniform_real_distribution<float> u(0.0f, 1.0f);
      for (int64_t i = 0; i < out_pixels * depth; ++i) {
        dst[i] = lo + u(*gen) * range;
      }
    } else {
      std::normal_distribution<float> normal(0.0f, 1.0f);
      for (int64_t d = 0; d < depth; ++d) {
        double sum = 0;
        float lo = img[d];
        float hi = img[d];
        for (int64_t p = 0; p < pixels; ++p) {
          const float v = img[p * depth + d];
          sum += v;
          lo = std::min(lo, v);
          hi = std::max(hi, v);
        }
        const float mean = static_cast<float>(sum / pixels);
        double sq = 0;
        for (int64_t p = 0; p < pixels; ++p) {
          const double e = img[p * depth + d] - mean;
          sq += e * e;
        }
        const float sigma = static_cast<float>(std::sqrt(sq / pixels));
        for (int64_t p = 0; p < out_pixels; ++p) {
          dst[p * depth + d] =
              std::max(std::min(mean + normal(*gen) * sigma, hi), lo);
        }
      }
    }
  }

  bool v1_ = false;
  bool normalized_ = true;
  bool centered_ = true;
  Noise noise_ = Noise::kUniform;
};

// The input of a real type as float.
void ToFloat(const Tensor& t, std::vector<float>* out) {
  const int64_t n = t.NumElements();
  out->resize(n);
  auto convert = [&](const auto* p) {
    for (int64_t i = 0; i < n; ++i) (*out)[i] = static_cast<float>(p[i]);
  };
  switch (t.dtype()) {
    case DT_UINT8:
      convert(t.data<uint8_t>());
      break;
    case DT_INT8:
      convert(t.data<int8_t>());
      break;
    case DT_INT16:
      convert(t.data<int16_t>());
      break;
    case DT_INT32:
      convert(t.data<int32_t>());
      break;
    case DT_DOUBLE:
      convert(t.data<double>());
      break;
    default:
      convert(t.data<float>());
      break;
  }
}

class AdjustContrastOp : public OpKernel {
 public:
  using OpKernel::OpKernel;

  void Compute(OpKernelContext* ctx) override {
    const Tensor& input = ctx->input(0);
    DFX_OP_REQUIRES(ctx, input.dims() >= 3,
                    absl::InvalidArgumentError(
                        absl::StrCat("input must be at least 3-D, got shape",
                                     input.shape().DebugString())));
    const char* names[] = {"contrast_factor", "min_value", "max_value"};
    for (int i = 1; i <= 3; ++i) {
      DFX_OP_REQUIRES(ctx, ctx->input(i).dims() == 0,
                      absl::InvalidArgumentError(
                          absl::StrCat(names[i - 1], " must be scalar: ",
                                       ctx->input(i).shape().DebugString())));
    }
    const float factor = ctx->input(1).data<float>()[0];
    const float lo = ctx->input(2).data<float>()[0];
    const float hi = ctx->input(3).data<float>()[0];
    Tensor* out = nullptr;
    DFX_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, input.shape(), &out));
    if (input.NumElements() == 0) return;
    const int64_t pixels =
        input.dim_size(input.dims() - 3) * input.dim_size(input.dims() - 2);
    const int64_t channels = input.dim_size(input.dims() - 1);
    const int64_t images = input.NumElements() / (pixels * channels);
    std::vector<float> x;
    ToFloat(input, &x);
    float* o = out->data<float>();
    for (int64_t b = 0; b < images; ++b) {
      const float* img = x.data() + b * pixels * channels;
      float* dst = o + b * pixels * channels;
      for (int64_t c = 0; c < channels; ++c) {
        double sum = 0;
        for (int64_t p = 0; p < pixels; ++p) sum += img[p * channels + c];
        const float mean = static_cast<float>(sum / pixels);
        for (int64_t p = 0; p < pixels; ++p) {
          const float v = (img[p * channels + c] - mean) * factor + mean;
          dst[p * channels + c] = std::max(std::min(v, hi), lo);
        }
      }
    }
  }
};

}  // namespace

void RegisterGlimpseContrastKernels(KernelRegistry* registry) {
  RegisterKernel<ExtractGlimpseOp>(registry,
                                   KernelDefBuilder("ExtractGlimpse"));
  RegisterKernel<ExtractGlimpseOp>(registry,
                                   KernelDefBuilder("ExtractGlimpseV2"));
  RegisterKernel<AdjustContrastOp>(
      registry, KernelDefBuilder("AdjustContrast")
                    .TypeConstraint("T", {DT_UINT8, DT_INT8, DT_INT16, DT_INT32,
                                          DT_FLOAT, DT_DOUBLE}));
}

}  // namespace dfx
