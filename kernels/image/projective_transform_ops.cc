// ImageProjectiveTransformV2 and V3 on CPU: each output pixel (x, y) of
// image n samples the input at ((a0 x + a1 y + a2) / k, (b0 x + b1 y + b2)
// / k), k = c0 x + c1 y + 1, for the row [a0 a1 a2 b0 b1 b2 c0 c1] of
// `transforms` (one row for every image, or one per image). Coordinates
// outside the image are mapped by fill_mode (REFLECT, WRAP, CONSTANT,
// NEAREST, as scipy.ndimage and TensorFlow map them), then sampled NEAREST
// or BILINEAR; a sampled pixel outside the input reads fill_value (V3's
// input; 0 for V2), so CONSTANT blends it in at the edges.
// Keras's RandomRotation, RandomTranslation, RandomZoom and RandomShear
// emit these, so every graph with those layers holds one. The arithmetic
// is TensorFlow's, in float, so results match it bit for bit.
#include <cmath>
#include <cstdint>
#include <string>

#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "kernels/eigen_util.h"
#include "kernels/image/image_kernels.h"
#include "kernels/image/image_util.h"
#include "runtime/op_kernel.h"

namespace dfx {
namespace {

using Eigen::bfloat16;
using Eigen::half;

enum class FillMode { kReflect, kWrap, kConstant, kNearest };

float Clamp(float v, int64_t len) {
  const float hi = static_cast<float>(len - 1);
  return v < 0.0f ? 0.0f : (v > hi ? hi : v);
}

// Maps `coord` along an axis of `len` pixels into it, as fill_mode says;
// CONSTANT leaves it where it is (the caller then reads the fill value).
float MapCoordinate(FillMode mode, float coord, int64_t len) {
  switch (mode) {
    case FillMode::kReflect: {
      // [abcd] reflected to [dcba|abcd|dcba].
      if (coord < 0) {
        if (len <= 1) return 0.0f;
        const int64_t twice = 2 * len;
        if (coord < static_cast<float>(twice)) {
          coord = static_cast<float>(
                      twice * static_cast<int64_t>(-coord / twice)) +
                  coord;
        }
        coord = coord < static_cast<float>(-len) ? coord + twice : -coord - 1;
      } else if (coord > static_cast<float>(len - 1)) {
        if (len <= 1) return 0.0f;
        const int64_t twice = 2 * len;
        coord -= static_cast<float>(twice * static_cast<int64_t>(coord / twice));
        if (coord >= static_cast<float>(len)) coord = twice - coord - 1;
      }
      // 3.5 in a length of 4 would round to 4 in nearest sampling.
      return Clamp(coord, len);
    }
    case FillMode::kWrap: {
      // [abcd] wrapped to [abcd|abcd|abcd].
      if (coord < 0) {
        if (len <= 1) return 0.0f;
        const int64_t span = len - 1;
        coord += static_cast<float>(
            len * (static_cast<int64_t>(-coord / span) + 1));
      } else if (coord > static_cast<float>(len - 1)) {
        if (len <= 1) return 0.0f;
        const int64_t span = len - 1;
        coord -= static_cast<float>(len * static_cast<int64_t>(coord / span));
      }
      return Clamp(coord, len);
    }
    case FillMode::kConstant:
      return coord;
    case FillMode::kNearest:
      return Clamp(coord, len);
  }
  return coord;
}

// A pixel index from a whole-valued coordinate; -1 (outside every image,
// so the fill value is read) for NaN and for values no int64 holds, whose
// conversion C++ leaves undefined.
int64_t ToIndex(float v) {
  return v >= -1e18f && v <= 1e18f ? static_cast<int64_t>(v) : -1;
}

template <typename T>
class ProjectiveTransformOp : public OpKernel {
 public:
  explicit ProjectiveTransformOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    std::string interpolation;
    std::string mode;
    ctx->SetStatus(ctx->GetAttr("interpolation", &interpolation));
    ctx->SetStatus(ctx->GetAttr("fill_mode", &mode));
    if (interpolation == "BILINEAR") {
      bilinear_ = true;
    } else if (interpolation != "NEAREST") {
      // TensorFlow only logs this and runs with an unset mode.
      ctx->SetStatus(absl::InvalidArgumentError(
          absl::StrCat("Invalid interpolation ", interpolation,
                       ". Supported types: NEAREST, BILINEAR")));
    }
    if (mode == "REFLECT") {
      mode_ = FillMode::kReflect;
    } else if (mode == "WRAP") {
      mode_ = FillMode::kWrap;
    } else if (mode == "CONSTANT") {
      mode_ = FillMode::kConstant;
    } else if (mode == "NEAREST") {
      mode_ = FillMode::kNearest;
    } else {
      ctx->SetStatus(absl::InvalidArgumentError(
          absl::StrCat("Invalid mode ", mode,
                       ". Supported types: REFLECT, WRAP, CONSTANT, NEAREST")));
    }
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& images = ctx->input(0);
    const Tensor& transforms = ctx->input(1);
    const Tensor& shape = ctx->input(2);
    DFX_OP_REQUIRES(
        ctx, images.dims() == 4,
        absl::InvalidArgumentError("Input images must have rank 4"));
    const int64_t batch = images.dim_size(0);
    DFX_OP_REQUIRES(
        ctx,
        transforms.dims() == 2 &&
            (transforms.dim_size(0) == batch || transforms.dim_size(0) == 1) &&
            transforms.dim_size(1) == 8,
        absl::InvalidArgumentError(
            "Input transform should be num_images x 8 or 1 x 8"));
    DFX_OP_REQUIRES(ctx, shape.dims() == 1,
                    absl::InvalidArgumentError(
                        absl::StrCat("output shape must be 1-dimensional",
                                     shape.shape().DebugString())));
    DFX_OP_REQUIRES(ctx, shape.NumElements() == 2,
                    absl::InvalidArgumentError(
                        absl::StrCat("output shape must have two elements",
                                     shape.shape().DebugString())));
    const int64_t out_h = shape.data<int32_t>()[0];
    const int64_t out_w = shape.data<int32_t>()[1];
    DFX_OP_REQUIRES(
        ctx, out_h > 0 && out_w > 0,
        absl::InvalidArgumentError("output dimensions must be positive"));
    T fill(0);
    if (ctx->num_inputs() > 3) {
      const Tensor& fill_t = ctx->input(3);
      DFX_OP_REQUIRES(ctx, fill_t.dims() == 0,
                      absl::InvalidArgumentError(
                          absl::StrCat("fill_value must be a scalar",
                                       fill_t.shape().DebugString())));
      fill = static_cast<T>(fill_t.data<float>()[0]);
    }
    const int64_t in_h = images.dim_size(1);
    const int64_t in_w = images.dim_size(2);
    const int64_t depth = images.dim_size(3);
    Tensor* out = nullptr;
    DFX_OP_REQUIRES_OK(
        ctx, AllocateImageOutput(ctx, 0, {batch, out_h, out_w, depth}, &out));
    if (out->NumElements() == 0) return;

    const T* in = images.data<T>();
    const float* all_transforms = transforms.data<float>();
    const bool one_transform = transforms.dim_size(0) == 1;
    T* o = out->data<T>();
    const FillMode mode = mode_;
    const bool bilinear = bilinear_;
    // One unit: an output row of one image.
    const int64_t row_work = out_w * depth;
    ImageParallelFor(
        *ctx->device(), batch * out_h,
        Eigen::TensorOpCost(8 * row_work, sizeof(T) * row_work,
                            30 * row_work),
        [&](int64_t first, int64_t last) {
          for (int64_t unit = first; unit < last; ++unit) {
            const int64_t n = unit / out_h;
            const int64_t y = unit % out_h;
            const T* img = in + n * in_h * in_w * depth;
            const float* t = all_transforms + (one_transform ? 0 : 8 * n);
            // A pixel of the input, or the fill value outside it.
            auto read = [&](int64_t py, int64_t px, int64_t d) {
              return (0 <= py && py < in_h && 0 <= px && px < in_w)
                         ? img[(py * in_w + px) * depth + d]
                         : fill;
            };
            T* row = o + unit * row_work;
            for (int64_t x = 0; x < out_w; ++x) {
              T* px = row + x * depth;
              const float fx = static_cast<float>(x);
              const float fy = static_cast<float>(y);
              const float k = t[6] * fx + t[7] * fy + 1.f;
              if (k == 0) {  // a point at infinity, outside the input
                std::fill(px, px + depth, fill);
                continue;
              }
              const float src_x = MapCoordinate(
                  mode, (t[0] * fx + t[1] * fy + t[2]) / k, in_w);
              const float src_y = MapCoordinate(
                  mode, (t[3] * fx + t[4] * fy + t[5]) / k, in_h);
              if (!bilinear) {
                const int64_t ny = ToIndex(std::round(src_y));
                const int64_t nx = ToIndex(std::round(src_x));
                for (int64_t d = 0; d < depth; ++d) px[d] = read(ny, nx, d);
                continue;
              }
              const float y0 = std::floor(src_y);
              const float x0 = std::floor(src_x);
              const float y1 = y0 + 1;
              const float x1 = x0 + 1;
              const int64_t iy0 = ToIndex(y0);
              const int64_t ix0 = ToIndex(x0);
              const int64_t iy1 = ToIndex(y1);
              const int64_t ix1 = ToIndex(x1);
              for (int64_t d = 0; d < depth; ++d) {
                const float top =
                    (x1 - src_x) * static_cast<float>(read(iy0, ix0, d)) +
                    (src_x - x0) * static_cast<float>(read(iy0, ix1, d));
                const float bottom =
                    (x1 - src_x) * static_cast<float>(read(iy1, ix0, d)) +
                    (src_x - x0) * static_cast<float>(read(iy1, ix1, d));
                px[d] = static_cast<T>((y1 - src_y) * top +
                                       (src_y - y0) * bottom);
              }
            }
          }
        });
  }

 private:
  bool bilinear_ = false;
  FillMode mode_ = FillMode::kConstant;
};

template <typename... Ts>
void RegisterProjectiveTransform(KernelRegistry* registry) {
  for (const char* name :
       {"ImageProjectiveTransformV2", "ImageProjectiveTransformV3"}) {
    (RegisterKernel<ProjectiveTransformOp<Ts>>(
         registry, KernelDefBuilder(name).TypeConstraint<Ts>("dtype")),
     ...);
  }
}

}  // namespace

void RegisterProjectiveTransformKernels(KernelRegistry* registry) {
  RegisterProjectiveTransform<uint8_t, int32_t, int64_t, half, bfloat16,
                              float, double>(registry);
}

}  // namespace dfx
