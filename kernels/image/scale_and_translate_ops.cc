// ScaleAndTranslate (the resize of tf.image.resize with antialias=True or
// the lanczos, gaussian and mitchellcubic methods) and its gradient
// ScaleAndTranslateGrad on CPU.
//
// Each output row (then column) is a normalized, kernel-weighted sum over a
// span of source rows (columns): output x samples the source at
// (x + 0.5) / scale - translation / scale, with the kernel stretched by
// 1 / scale when antialiasing a downscale. The gradient transposes the
// spans. Sums run in TensorFlow's order: rows first, then columns.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "kernels/image/image_kernels.h"
#include "kernels/image/image_util.h"
#include "runtime/op_kernel.h"

namespace dfx {
namespace {

using Eigen::bfloat16;
using Eigen::half;

enum class SamplingKernel {
  kLanczos1,
  kLanczos3,
  kLanczos5,
  kGaussian,
  kBox,
  kTriangle,
  kKeysCubic,
  kMitchellCubic,
};

bool ParseKernel(const std::string& name, SamplingKernel* kernel) {
  static const std::pair<const char*, SamplingKernel> kNames[] = {
      {"lanczos1", SamplingKernel::kLanczos1},
      {"lanczos3", SamplingKernel::kLanczos3},
      {"lanczos5", SamplingKernel::kLanczos5},
      {"gaussian", SamplingKernel::kGaussian},
      {"box", SamplingKernel::kBox},
      {"triangle", SamplingKernel::kTriangle},
      {"keyscubic", SamplingKernel::kKeysCubic},
      {"mitchellcubic", SamplingKernel::kMitchellCubic}};
  for (const auto& [n, k] : kNames) {
    if (name == n) {
      *kernel = k;
      return true;
    }
  }
  return false;
}

float Radius(SamplingKernel k) {
  switch (k) {
    case SamplingKernel::kLanczos1:
      return 1.0f;
    case SamplingKernel::kLanczos3:
      return 3.0f;
    case SamplingKernel::kLanczos5:
      return 5.0f;
    case SamplingKernel::kGaussian:
      return 1.5f;
    case SamplingKernel::kBox:
    case SamplingKernel::kTriangle:
      return 1.0f;
    case SamplingKernel::kKeysCubic:
    case SamplingKernel::kMitchellCubic:
      return 2.0f;
  }
  return 1.0f;
}

// The kernel's value at distance x, in TensorFlow's float (and, for the
// Gaussian, double) arithmetic.
float KernelAt(SamplingKernel k, float x) {
  x = std::abs(x);
  switch (k) {
    case SamplingKernel::kLanczos1:
    case SamplingKernel::kLanczos3:
    case SamplingKernel::kLanczos5: {
      const float radius = Radius(k);
      constexpr float kPi = 3.14159265359f;
      if (x > radius) return 0.0f;
      if (x <= 1e-3f) return 1.0f;  // the limit of sin(x) / x
      return radius * std::sin(kPi * x) * std::sin(kPi * x / radius) /
             (kPi * kPi * x * x);
    }
    case SamplingKernel::kGaussian: {
      const float radius = 1.5f;
      const float sigma = radius / 3.0f;
      if (x >= radius) return 0.0f;
      return static_cast<float>(std::exp(-x * x / (2.0 * sigma * sigma)));
    }
    case SamplingKernel::kBox:
      return x < 0.5f ? 1.0f : x == 0.5f ? 0.5f : 0.0f;
    case SamplingKernel::kTriangle:
      return x < 1.0f ? 1.0f - x : 0.0f;
    case SamplingKernel::kKeysCubic:
      if (x >= 2.0f) return 0.0f;
      if (x >= 1.0f) return ((-0.5f * x + 2.5f) * x - 4.0f) * x + 2.0f;
      return ((1.5f * x - 2.5f) * x) * x + 1.0f;
    case SamplingKernel::kMitchellCubic:
      if (x >= 2.0f) return 0.0f;
      if (x >= 1.0f) {
        return (((-7.0f / 18.0f) * x + 2.0f) * x - 10.0f / 3.0f) * x +
               16.0f / 9.0f;
      }
      return (((7.0f / 6.0f) * x - 2.0f) * x) * x + 8.0f / 9.0f;
  }
  return 0.0f;
}

// For each output index, the first source index and span_size weights
// (zero past the span's real end).
struct Spans {
  int64_t span_size = 0;
  std::vector<int64_t> starts;
  std::vector<float> weights;
};

absl::Status ComputeSpans(SamplingKernel kernel, int64_t output_size,
                          int64_t input_size, float scale, float translate,
                          bool antialias, Spans* spans) {
  const float inv_scale = static_cast<float>(1.0 / scale);
  const float inv_translate = -inv_scale * translate;
  const float kernel_scale = antialias ? std::max(inv_scale, 1.0f) : 1.0f;
  const float reach = Radius(kernel) * kernel_scale;
  const double span_f = 2.0 * std::ceil(reach) + 1;
  spans->span_size =
      std::min(static_cast<int64_t>(std::min(span_f, 1e18)), input_size);
  spans->starts.assign(output_size, 0);
  spans->weights.assign(spans->span_size * output_size, 0.0f);
  const float one_over_kernel_scale = 1.0f / kernel_scale;
  std::vector<float> w;
  for (int64_t x = 0; x < output_size; ++x) {
    const float sample =
        (static_cast<float>(x) + 0.5f) * inv_scale + inv_translate;
    // No sample from outside the source (nor at a NaN position).
    if (!(sample >= 0 && sample <= static_cast<float>(input_size))) continue;
    const int64_t first = std::clamp<int64_t>(
        static_cast<int64_t>(std::ceil(sample - reach - 0.5f)), 0,
        input_size - 1);
    const int64_t last =
        std::clamp<int64_t>(
            static_cast<int64_t>(std::floor(sample + reach - 0.5f)), 0,
            input_size - 1) +
        1;
    if (last - first > spans->span_size) {
      return absl::InternalError(absl::StrCat(
          "Span is too large: ", last - first, " vs ", spans->span_size, "."));
    }
    float total = 0.0f;
    w.clear();
    for (int64_t s = first; s < last; ++s) {
      const float pos = static_cast<float>(s) + 0.5f - sample;
      const float weight = KernelAt(kernel, pos * one_over_kernel_scale);
      total += weight;
      w.push_back(weight);
    }
    if (std::abs(total) >= 1000.0f * std::numeric_limits<float>::min()) {
      const float inv_total = 1.0f / total;
      for (size_t j = 0; j < w.size(); ++j) {
        spans->weights[x * spans->span_size + j] = w[j] * inv_total;
      }
    }
    spans->starts[x] = first;
  }
  return absl::OkStatus();
}

// The spans of the gradient: for each forward input index, the forward
// outputs whose spans weigh it, with those weights.
Spans TransposeSpans(const Spans& fwd, int64_t forward_output_size,
                     int64_t forward_input_size) {
  std::vector<std::vector<std::pair<int64_t, float>>> parts(forward_input_size);
  for (int64_t o = 0; o < forward_output_size; ++o) {
    for (int64_t j = 0; j < fwd.span_size; ++j) {
      const int64_t in = fwd.starts[o] + j;
      const float weight = fwd.weights[o * fwd.span_size + j];
      if (weight != 0.0f && in < forward_input_size) {
        parts[in].push_back({o, weight});
      }
    }
  }
  Spans grad;
  for (const auto& p : parts) {
    if (!p.empty()) {
      grad.span_size =
          std::max(grad.span_size, p.back().first - p.front().first + 1);
    }
  }
  grad.starts.assign(forward_input_size, 0);
  grad.weights.assign(grad.span_size * forward_input_size, 0.0f);
  for (int64_t in = 0; in < forward_input_size; ++in) {
    if (parts[in].empty()) continue;
    const int64_t start = parts[in].front().first;
    grad.starts[in] = start;
    for (const auto& [o, weight] : parts[in]) {
      grad.weights[in * grad.span_size + o - start] += weight;
    }
  }
  return grad;
}

// image [batch, in_h, in_w, c] (T) to out [batch, out_h, out_w, c]: rows
// through `rows` into a float buffer, then columns through `cols`.
template <typename T>
void GatherSpans(const Device& device, const Spans& rows, const Spans& cols,
                 const T* image, int64_t batch, int64_t in_h, int64_t in_w,
                 int64_t channels, int64_t out_h, int64_t out_w, float* out) {
  const int64_t in_row = in_w * channels;
  const int64_t out_row = out_w * channels;
  ImageParallelFor(
      device, batch * out_h,
      Eigen::TensorOpCost(
          4 * (rows.span_size * in_row + cols.span_size * out_row), 4 * out_row,
          2 * (rows.span_size * in_row + cols.span_size * out_row)),
      [&](int64_t first, int64_t last) {
        std::vector<float> mid(in_row);
        for (int64_t r = first; r < last; ++r) {
          const int64_t b = r / out_h;
          const int64_t y = r % out_h;
          std::fill(mid.begin(), mid.end(), 0.0f);
          const int64_t start = rows.starts[y];
          const int64_t n = std::min(start + rows.span_size, in_h) - start;
          const T* src = image + (b * in_h + start) * in_row;
          for (int64_t j = 0; j < n; ++j, src += in_row) {
            const float weight = rows.weights[y * rows.span_size + j];
            for (int64_t k = 0; k < in_row; ++k) {
              mid[k] += weight * static_cast<float>(src[k]);
            }
          }
          float* dst = out + r * out_row;
          for (int64_t x = 0; x < out_w; ++x) {
            float* px = dst + x * channels;
            std::fill(px, px + channels, 0.0f);
            const int64_t cs = cols.starts[x];
            const int64_t cn = std::min(cs + cols.span_size, in_w) - cs;
            for (int64_t j = 0; j < cn; ++j) {
              const float weight = cols.weights[x * cols.span_size + j];
              const float* m = mid.data() + (cs + j) * channels;
              for (int64_t c = 0; c < channels; ++c) px[c] += weight * m[c];
            }
          }
        }
      });
}

// A float input of shape [2] (scale or translation).
absl::Status TwoFloats(const Tensor& t, float* a, float* b) {
  if (t.dims() != 1) {
    return absl::InvalidArgumentError(
        absl::StrCat("t must be 1-dimensional", t.shape().DebugString()));
  }
  if (t.NumElements() != 2) {
    return absl::InvalidArgumentError(
        absl::StrCat("t must have two elements", t.shape().DebugString()));
  }
  *a = t.data<float>()[0];
  *b = t.data<float>()[1];
  return absl::OkStatus();
}

absl::Status ReadSamplingAttrs(OpKernelConstruction* ctx,
                               SamplingKernel* kernel, bool* antialias) {
  std::string name;
  DFX_RETURN_IF_ERROR(ctx->GetAttr("kernel_type", &name));
  DFX_RETURN_IF_ERROR(ctx->GetAttr("antialias", antialias));
  if (!ParseKernel(name, kernel)) {
    return absl::InvalidArgumentError("Unrecognized kernel type: " + name);
  }
  return absl::OkStatus();
}

absl::Status ReadScaleTranslation(OpKernelContext* ctx, float* row_scale,
                                  float* col_scale, float* row_translation,
                                  float* col_translation) {
  DFX_RETURN_IF_ERROR(TwoFloats(ctx->input(2), row_scale, col_scale));
  if (!(*row_scale > 0 && *col_scale > 0)) {
    return absl::InvalidArgumentError("Scale must be greater than zero.");
  }
  return TwoFloats(ctx->input(3), row_translation, col_translation);
}

template <typename T>
class ScaleAndTranslateOp : public OpKernel {
 public:
  explicit ScaleAndTranslateOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    ctx->SetStatus(ReadSamplingAttrs(ctx, &kernel_, &antialias_));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& input = ctx->input(0);
    const Tensor& size = ctx->input(1);
    DFX_OP_REQUIRES(
        ctx, input.dims() == 4,
        absl::InvalidArgumentError(absl::StrCat("input must be 4-dimensional",
                                                input.shape().DebugString())));
    DFX_OP_REQUIRES(ctx, size.dims() == 1,
                    absl::InvalidArgumentError(
                        absl::StrCat("output_shape_t must be 1-dimensional",
                                     size.shape().DebugString())));
    DFX_OP_REQUIRES(ctx, size.NumElements() == 2,
                    absl::InvalidArgumentError(
                        absl::StrCat("output_shape_t must have two elements",
                                     size.shape().DebugString())));
    const int64_t out_h = size.data<int32_t>()[0];
    const int64_t out_w = size.data<int32_t>()[1];
    const int64_t batch = input.dim_size(0);
    const int64_t in_h = input.dim_size(1);
    const int64_t in_w = input.dim_size(2);
    const int64_t channels = input.dim_size(3);
    constexpr int64_t kInt32Max = std::numeric_limits<int32_t>::max();
    DFX_OP_REQUIRES(ctx, in_h < kInt32Max && in_w < kInt32Max,
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
    float row_scale, col_scale, row_translation, col_translation;
    DFX_OP_REQUIRES_OK(
        ctx, ReadScaleTranslation(ctx, &row_scale, &col_scale, &row_translation,
                                  &col_translation));
    Tensor* out = nullptr;
    DFX_OP_REQUIRES_OK(ctx, AllocateImageOutput(
                                ctx, 0, {batch, out_h, out_w, channels}, &out));
    if (out->NumElements() == 0) return;
    Spans cols, rows;
    DFX_OP_REQUIRES_OK(ctx, ComputeSpans(kernel_, out_w, in_w, col_scale,
                                         col_translation, antialias_, &cols));
    DFX_OP_REQUIRES_OK(ctx, ComputeSpans(kernel_, out_h, in_h, row_scale,
                                         row_translation, antialias_, &rows));
    GatherSpans(*ctx->device(), rows, cols, input.data<T>(), batch, in_h, in_w,
                channels, out_h, out_w, out->data<float>());
  }

 private:
  SamplingKernel kernel_ = SamplingKernel::kLanczos3;
  bool antialias_ = true;
};

class ScaleAndTranslateGradOp : public OpKernel {
 public:
  explicit ScaleAndTranslateGradOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    ctx->SetStatus(ReadSamplingAttrs(ctx, &kernel_, &antialias_));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& grads = ctx->input(0);
    const Tensor& original = ctx->input(1);
    DFX_OP_REQUIRES(
        ctx, grads.dims() == 4,
        absl::InvalidArgumentError(absl::StrCat(
            "input_grad must be 4-dimensional", grads.shape().DebugString())));
    DFX_OP_REQUIRES(ctx, original.dims() == 4,
                    absl::InvalidArgumentError(
                        absl::StrCat("original_image must be 4-dimensional",
                                     original.shape().DebugString())));
    const int64_t batch = grads.dim_size(0);
    const int64_t channels = grads.dim_size(3);
    const int64_t in_h = original.dim_size(1);
    const int64_t in_w = original.dim_size(2);
    constexpr int64_t kInt32Max = std::numeric_limits<int32_t>::max();
    DFX_OP_REQUIRES(ctx, in_h < kInt32Max && in_w < kInt32Max,
                    absl::InvalidArgumentError(
                        "original sizes must be between 0 and max int32"));
    Tensor* out = nullptr;
    DFX_OP_REQUIRES_OK(
        ctx, AllocateImageOutput(ctx, 0, {batch, in_h, in_w, channels}, &out));
    float row_scale, col_scale, row_translation, col_translation;
    DFX_OP_REQUIRES_OK(
        ctx, ReadScaleTranslation(ctx, &row_scale, &col_scale, &row_translation,
                                  &col_translation));
    float* o = out->data<float>();
    std::fill(o, o + out->NumElements(), 0.0f);
    const int64_t fwd_out_h = grads.dim_size(1);
    const int64_t fwd_out_w = grads.dim_size(2);
    if (out->NumElements() == 0) return;
    Spans cols, rows;
    DFX_OP_REQUIRES_OK(ctx, ComputeSpans(kernel_, fwd_out_w, in_w, col_scale,
                                         col_translation, antialias_, &cols));
    DFX_OP_REQUIRES_OK(ctx, ComputeSpans(kernel_, fwd_out_h, in_h, row_scale,
                                         row_translation, antialias_, &rows));
    const Spans grad_cols = TransposeSpans(cols, fwd_out_w, in_w);
    const Spans grad_rows = TransposeSpans(rows, fwd_out_h, in_h);
    if (grads.NumElements() == 0) return;
    GatherSpans(*ctx->device(), grad_rows, grad_cols, grads.data<float>(),
                batch, fwd_out_h, fwd_out_w, channels, in_h, in_w, o);
  }

 private:
  SamplingKernel kernel_ = SamplingKernel::kLanczos3;
  bool antialias_ = true;
};

template <typename... Ts>
void RegisterForward(KernelRegistry* registry) {
  (RegisterKernel<ScaleAndTranslateOp<Ts>>(
       registry, KernelDefBuilder("ScaleAndTranslate").TypeConstraint<Ts>("T")),
   ...);
}

}  // namespace

void RegisterScaleAndTranslateKernels(KernelRegistry* registry) {
  RegisterForward<int8_t, uint8_t, int16_t, uint16_t, int32_t, int64_t,
                  bfloat16, half, float, double>(registry);
  RegisterKernel<ScaleAndTranslateGradOp>(
      registry,
      KernelDefBuilder("ScaleAndTranslateGrad").TypeConstraint<float>("T"));
}

}  // namespace dfx
