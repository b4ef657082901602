// CropAndResize on CPU: bilinear or nearest samples of normalized boxes
// (y1, x1, y2, x2, flipped boxes allowed) cropped to [crop_h, crop_w], with
// extrapolation_value outside the image. The sample positions follow
// TensorFlow's float (and, for one-pixel crops, double) arithmetic.
#include <cmath>
#include <cstdint>
#include <string>

#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "kernels/eigen_util.h"
#include "kernels/image/image_kernels.h"
#include "kernels/image/crop_sampling.h"
#include "kernels/image/image_util.h"
#include "runtime/op_kernel.h"

namespace dfx {
namespace {

using Eigen::half;

template <typename T>
class CropAndResizeOp : public OpKernel {
 public:
  explicit CropAndResizeOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    std::string method;
    ctx->SetStatus(ctx->GetAttr("method", &method));
    ctx->SetStatus(ctx->GetAttr("extrapolation_value", &extrapolation_));
    if (method != "bilinear" && method != "nearest") {
      ctx->SetStatus(
          absl::InvalidArgumentError("method must be 'bilinear' or 'nearest'"));
    }
    nearest_ = method == "nearest";
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& image = ctx->input(0);
    const Tensor& boxes = ctx->input(1);
    const Tensor& box_index = ctx->input(2);
    const Tensor& crop_size = ctx->input(3);
    DFX_OP_REQUIRES(
        ctx, image.dims() == 4,
        absl::InvalidArgumentError(absl::StrCat("input image must be 4-D",
                                                image.shape().DebugString())));
    const int64_t batch = image.dim_size(0);
    const int64_t height = image.dim_size(1);
    const int64_t width = image.dim_size(2);
    const int64_t depth = image.dim_size(3);
    DFX_OP_REQUIRES(
        ctx, height > 0 && width > 0,
        absl::InvalidArgumentError("image dimensions must be positive"));
    DFX_OP_REQUIRES(ctx, boxes.dims() == 2,
                    absl::InvalidArgumentError(absl::StrCat(
                        "boxes must be 2-D", boxes.shape().DebugString())));
    DFX_OP_REQUIRES(ctx, box_index.dims() == 1,
                    absl::InvalidArgumentError(
                        absl::StrCat("box_indices must be rank 1 but is shape ",
                                     box_index.shape().DebugString())));
    int64_t num_boxes = 0;
    if (boxes.NumElements() != 0 || box_index.NumElements() != 0) {
      num_boxes = boxes.dim_size(0);
      DFX_OP_REQUIRES(ctx, boxes.dim_size(1) == 4,
                      absl::InvalidArgumentError("boxes must have 4 columns"));
      DFX_OP_REQUIRES(
          ctx, box_index.dim_size(0) == num_boxes,
          absl::InvalidArgumentError("box_index has incompatible shape"));
    }
    DFX_OP_REQUIRES(
        ctx, crop_size.dims() == 1,
        absl::InvalidArgumentError(absl::StrCat(
            "crop_size must be 1-D", crop_size.shape().DebugString())));
    DFX_OP_REQUIRES(ctx, crop_size.dim_size(0) == 2,
                    absl::InvalidArgumentError(
                        absl::StrCat("crop_size must have two elements",
                                     crop_size.shape().DebugString())));
    const int64_t crop_h = crop_size.data<int32_t>()[0];
    const int64_t crop_w = crop_size.data<int32_t>()[1];
    DFX_OP_REQUIRES(
        ctx, crop_h > 0 && crop_w > 0,
        absl::InvalidArgumentError("crop dimensions must be positive"));
    Tensor* out = nullptr;
    DFX_OP_REQUIRES_OK(
        ctx,
        AllocateImageOutput(ctx, 0, {num_boxes, crop_h, crop_w, depth}, &out));
    const int32_t* bi = box_index.data<int32_t>();
    for (int64_t b = 0; b < num_boxes; ++b) {
      DFX_OP_REQUIRES(ctx, bi[b] >= 0 && bi[b] < batch,
                      absl::OutOfRangeError(
                          "box_index has values outside [0, batch_size)"));
    }
    if (out->NumElements() == 0) return;
    const T* in = image.data<T>();
    const float* bx = boxes.data<float>();
    float* o = out->data<float>();
    const float extrapolation = extrapolation_;
    const bool nearest = nearest_;
    const int64_t box_work = crop_h * crop_w * depth;
    ImageParallelFor(
        *ctx->device(), num_boxes,
        Eigen::TensorOpCost(16 * box_work, 4 * box_work, 10 * box_work),
        [&](int64_t first, int64_t last) {
          for (int64_t b = first; b < last; ++b) {
            const float y1 = bx[4 * b];
            const float x1 = bx[4 * b + 1];
            const float y2 = bx[4 * b + 2];
            const float x2 = bx[4 * b + 3];
            const T* img = in + bi[b] * height * width * depth;
            const float h_scale = CropScale(y1, y2, height, crop_h);
            const float w_scale = CropScale(x1, x2, width, crop_w);
            float* ob = o + b * box_work;
            for (int64_t y = 0; y < crop_h; ++y) {
              float* row = ob + y * crop_w * depth;
              const float in_y =
                  CropSamplePosition(y1, y2, y, h_scale, height, crop_h);
              if (!CropInside(in_y, height)) {
                std::fill(row, row + crop_w * depth, extrapolation);
                continue;
              }
              const int64_t top = static_cast<int64_t>(std::floor(in_y));
              const int64_t bottom = static_cast<int64_t>(std::ceil(in_y));
              const float y_lerp = in_y - static_cast<float>(top);
              const int64_t near_y = static_cast<int64_t>(std::roundf(in_y));
              for (int64_t x = 0; x < crop_w; ++x) {
                float* px = row + x * depth;
                const float in_x =
                    CropSamplePosition(x1, x2, x, w_scale, width, crop_w);
                if (!CropInside(in_x, width)) {
                  std::fill(px, px + depth, extrapolation);
                  continue;
                }
                if (nearest) {
                  const int64_t near_x =
                      static_cast<int64_t>(std::roundf(in_x));
                  const T* src = img + (near_y * width + near_x) * depth;
                  for (int64_t d = 0; d < depth; ++d) {
                    px[d] = static_cast<float>(src[d]);
                  }
                  continue;
                }
                const int64_t left = static_cast<int64_t>(std::floor(in_x));
                const int64_t right = static_cast<int64_t>(std::ceil(in_x));
                const float x_lerp = in_x - static_cast<float>(left);
                const T* tl = img + (top * width + left) * depth;
                const T* tr = img + (top * width + right) * depth;
                const T* bl = img + (bottom * width + left) * depth;
                const T* br = img + (bottom * width + right) * depth;
                for (int64_t d = 0; d < depth; ++d) {
                  const float t =
                      static_cast<float>(tl[d]) +
                      (static_cast<float>(tr[d]) - static_cast<float>(tl[d])) *
                          x_lerp;
                  const float bo =
                      static_cast<float>(bl[d]) +
                      (static_cast<float>(br[d]) - static_cast<float>(bl[d])) *
                          x_lerp;
                  px[d] = t + (bo - t) * y_lerp;
                }
              }
            }
          }
        });
  }

 private:
  float extrapolation_ = 0;
  bool nearest_ = false;
};

template <typename... Ts>
void RegisterCropAndResize(KernelRegistry* registry) {
  (RegisterKernel<CropAndResizeOp<Ts>>(
       registry, KernelDefBuilder("CropAndResize").TypeConstraint<Ts>("T")),
   ...);
}

}  // namespace

void RegisterCropAndResizeKernels(KernelRegistry* registry) {
  RegisterCropAndResize<uint8_t, uint16_t, int8_t, int16_t, int32_t, int64_t,
                        half, float, double>(registry);
}

}  // namespace dfx
