// CropAndResizeGradImage (bilinear and nearest; T = half, float, double)
// and CropAndResizeGradBoxes (bilinear; any real image type) on CPU: the
// gradients of CropAndResize (crop_and_resize_ops.cc) with respect to the
// image and the boxes. The sample positions are the forward op's
// (crop_sampling.h; NaN positions are skipped rather than read);
// gradient image elements accumulate in T box after box, as TensorFlow's
// single-threaded order does.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>

#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "kernels/eigen_util.h"
#include "kernels/image/crop_sampling.h"
#include "kernels/image/image2_kernels.h"
#include "kernels/image/image_util.h"
#include "runtime/op_kernel.h"

namespace dfx {
namespace {

using Eigen::half;

// TensorFlow's checks of boxes [num_boxes, 4] and box_ind [num_boxes]
// (both may be empty of any shape); the box count.
absl::Status CheckBoxes(const Tensor& boxes, const Tensor& box_index,
                        int64_t* num_boxes) {
  *num_boxes = 0;
  if (boxes.NumElements() == 0 && box_index.NumElements() == 0) {
    return absl::OkStatus();
  }
  if (boxes.dims() != 2) {
    return absl::InvalidArgumentError(
        absl::StrCat("boxes must be 2-D", boxes.shape().DebugString()));
  }
  *num_boxes = boxes.dim_size(0);
  if (boxes.dim_size(1) != 4) {
    return absl::InvalidArgumentError("boxes must have 4 columns");
  }
  if (box_index.dims() != 1) {
    return absl::InvalidArgumentError(
        absl::StrCat("box_index must be 1-D", box_index.shape().DebugString()));
  }
  if (box_index.dim_size(0) != *num_boxes) {
    return absl::InvalidArgumentError("box_index has incompatible shape");
  }
  return absl::OkStatus();
}

absl::Status CheckBoxIndex(const Tensor& box_index, int64_t num_boxes,
                           int64_t batch) {
  const int32_t* bi = box_index.data<int32_t>();
  for (int64_t b = 0; b < num_boxes; ++b) {
    if (bi[b] < 0 || bi[b] >= batch) {
      return absl::OutOfRangeError(
          "box_index has values outside [0, batch_size)");
    }
  }
  return absl::OkStatus();
}

absl::Status CheckGrads(const Tensor& grads) {
  if (grads.dims() != 4) {
    return absl::InvalidArgumentError(
        absl::StrCat("grads image must be 4-D", grads.shape().DebugString()));
  }
  if (grads.dim_size(1) <= 0 || grads.dim_size(2) <= 0) {
    return absl::InvalidArgumentError("grads dimensions must be positive");
  }
  return absl::OkStatus();
}

class CropAndResizeGradImageOp : public OpKernel {
 public:
  explicit CropAndResizeGradImageOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    std::string method;
    ctx->SetStatus(ctx->GetAttr("method", &method));
    if (method != "bilinear" && method != "nearest") {
      ctx->SetStatus(absl::InvalidArgumentError(
          absl::StrCat("method must be 'bilinear' or 'nearest'", method)));
    }
    nearest_ = method == "nearest";
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& grads = ctx->input(0);
    const Tensor& boxes = ctx->input(1);
    const Tensor& box_index = ctx->input(2);
    const Tensor& image_size = ctx->input(3);
    DFX_OP_REQUIRES_OK(ctx, CheckGrads(grads));
    int64_t num_boxes = 0;
    DFX_OP_REQUIRES_OK(ctx, CheckBoxes(boxes, box_index, &num_boxes));
    DFX_OP_REQUIRES(
        ctx, grads.dim_size(0) == num_boxes,
        absl::InvalidArgumentError("boxes and grads have incompatible shape"));
    DFX_OP_REQUIRES(
        ctx, image_size.dims() == 1,
        absl::InvalidArgumentError(absl::StrCat(
            "image_size must be 1-D", image_size.shape().DebugString())));
    DFX_OP_REQUIRES(ctx, image_size.dim_size(0) == 4,
                    absl::InvalidArgumentError(
                        absl::StrCat("image_size must have 4 elements",
                                     image_size.shape().DebugString())));
    const int32_t* size = image_size.data<int32_t>();
    const int64_t batch = size[0], height = size[1], width = size[2],
                  depth = size[3];
    DFX_OP_REQUIRES(
        ctx, height > 0 && width > 0,
        absl::InvalidArgumentError("image dimensions must be positive"));
    DFX_OP_REQUIRES(
        ctx, grads.dim_size(3) == depth,
        absl::InvalidArgumentError("image_size and grads are incompatible"));
    Tensor* out = nullptr;
    DFX_OP_REQUIRES_OK(
        ctx, AllocateImageOutput(ctx, 0, {batch, height, width, depth}, &out));
    DFX_OP_REQUIRES_OK(ctx, CheckBoxIndex(box_index, num_boxes, batch));
    switch (out->dtype()) {
      case DT_HALF:
        Run<half>(grads, boxes, box_index, out);
        break;
      case DT_DOUBLE:
        Run<double>(grads, boxes, box_index, out);
        break;
      default:
        Run<float>(grads, boxes, box_index, out);
        break;
    }
  }

 private:
  template <typename T>
  void Run(const Tensor& grads, const Tensor& boxes, const Tensor& box_index,
           Tensor* out) const {
    const int64_t height = out->dim_size(1);
    const int64_t width = out->dim_size(2);
    const int64_t depth = out->dim_size(3);
    const int64_t crop_h = grads.dim_size(1);
    const int64_t crop_w = grads.dim_size(2);
    T* o = out->data<T>();
    std::fill(o, o + out->NumElements(), T(0));
    const float* g = grads.data<float>();
    const float* bx = boxes.data<float>();
    const int32_t* bi = box_index.data<int32_t>();
    for (int64_t b = 0; b < grads.dim_size(0); ++b) {
      const float y1 = bx[4 * b], x1 = bx[4 * b + 1];
      const float y2 = bx[4 * b + 2], x2 = bx[4 * b + 3];
      const float h_scale = CropScale(y1, y2, height, crop_h);
      const float w_scale = CropScale(x1, x2, width, crop_w);
      T* img = o + bi[b] * height * width * depth;
      for (int64_t y = 0; y < crop_h; ++y) {
        const float in_y =
            CropSamplePosition(y1, y2, y, h_scale, height, crop_h);
        if (!CropInside(in_y, height)) continue;
        const CropLerp ly = CropLerpAt(in_y);
        const int64_t top = ly.lo, bottom = ly.hi;
        const float y_lerp = ly.t;
        for (int64_t x = 0; x < crop_w; ++x) {
          const float in_x =
              CropSamplePosition(x1, x2, x, w_scale, width, crop_w);
          if (!CropInside(in_x, width)) continue;
          const float* gp = g + ((b * crop_h + y) * crop_w + x) * depth;
          if (nearest_) {
            const int64_t ny = static_cast<int64_t>(std::roundf(in_y));
            const int64_t nx = static_cast<int64_t>(std::roundf(in_x));
            T* dst = img + (ny * width + nx) * depth;
            for (int64_t d = 0; d < depth; ++d) dst[d] += static_cast<T>(gp[d]);
            continue;
          }
          const CropLerp lx = CropLerpAt(in_x);
          const int64_t left = lx.lo, right = lx.hi;
          const float x_lerp = lx.t;
          T* tl = img + (top * width + left) * depth;
          T* tr = img + (top * width + right) * depth;
          T* bl = img + (bottom * width + left) * depth;
          T* br = img + (bottom * width + right) * depth;
          for (int64_t d = 0; d < depth; ++d) {
            const float dtop = (1 - y_lerp) * gp[d];
            tl[d] += static_cast<T>((1 - x_lerp) * dtop);
            tr[d] += static_cast<T>(x_lerp * dtop);
            const float dbottom = y_lerp * gp[d];
            bl[d] += static_cast<T>((1 - x_lerp) * dbottom);
            br[d] += static_cast<T>(x_lerp * dbottom);
          }
        }
      }
    }
  }

  bool nearest_ = false;
};

// Adds the gradient `grad` at crop row (column) i to the box's two edges
// along that axis, in TensorFlow's arithmetic (a double sum for one-sample
// crops).
void AddEdgeGradients(float grad, int64_t i, float ratio, int64_t size,
                      int64_t crop, float* lo, float* hi) {
  if (crop > 1) {
    *lo +=
        grad * (static_cast<float>(size - 1) - static_cast<float>(i) * ratio);
    *hi += grad * (static_cast<float>(i) * ratio);
    return;
  }
  const double half = grad * 0.5 * static_cast<double>(size - 1);
  *lo = static_cast<float>(*lo + half);
  *hi = static_cast<float>(*hi + half);
}

template <typename T>
class CropAndResizeGradBoxesOp : public OpKernel {
 public:
  explicit CropAndResizeGradBoxesOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    std::string method;
    ctx->SetStatus(ctx->GetAttr("method", &method));
    if (method != "bilinear") {
      ctx->SetStatus(absl::InvalidArgumentError(
          absl::StrCat("method must be 'bilinear'", method)));
    }
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& grads = ctx->input(0);
    const Tensor& image = ctx->input(1);
    const Tensor& boxes = ctx->input(2);
    const Tensor& box_index = ctx->input(3);
    DFX_OP_REQUIRES_OK(ctx, CheckGrads(grads));
    DFX_OP_REQUIRES(
        ctx, image.dims() == 4,
        absl::InvalidArgumentError(absl::StrCat("input image must be 4-D",
                                                image.shape().DebugString())));
    const int64_t batch = image.dim_size(0);
    const int64_t height = image.dim_size(1);
    const int64_t width = image.dim_size(2);
    const int64_t depth = grads.dim_size(3);
    DFX_OP_REQUIRES(
        ctx, height > 0 && width > 0,
        absl::InvalidArgumentError("image dimensions must be positive"));
    DFX_OP_REQUIRES(ctx, image.dim_size(3) == depth,
                    absl::InvalidArgumentError("image, grads depth differ"));
    int64_t num_boxes = 0;
    DFX_OP_REQUIRES_OK(ctx, CheckBoxes(boxes, box_index, &num_boxes));
    DFX_OP_REQUIRES(
        ctx, grads.dim_size(0) == num_boxes,
        absl::InvalidArgumentError("boxes and grads have incompatible shape"));
    Tensor* out = nullptr;
    DFX_OP_REQUIRES_OK(
        ctx, ctx->allocate_output(0, TensorShape({num_boxes, 4}), &out));
    DFX_OP_REQUIRES_OK(ctx, CheckBoxIndex(box_index, num_boxes, batch));
    float* o = out->data<float>();
    std::fill(o, o + out->NumElements(), 0.0f);
    const int64_t crop_h = grads.dim_size(1);
    const int64_t crop_w = grads.dim_size(2);
    const float* g = grads.data<float>();
    const float* bx = boxes.data<float>();
    const int32_t* bi = box_index.data<int32_t>();
    const float h_ratio = crop_h > 1 ? static_cast<float>(height - 1) /
                                           static_cast<float>(crop_h - 1)
                                     : 0.0f;
    const float w_ratio = crop_w > 1 ? static_cast<float>(width - 1) /
                                           static_cast<float>(crop_w - 1)
                                     : 0.0f;
    for (int64_t b = 0; b < num_boxes; ++b) {
      const float y1 = bx[4 * b], x1 = bx[4 * b + 1];
      const float y2 = bx[4 * b + 2], x2 = bx[4 * b + 3];
      const float h_scale = crop_h > 1 ? (y2 - y1) * h_ratio : 0.0f;
      const float w_scale = crop_w > 1 ? (x2 - x1) * w_ratio : 0.0f;
      const T* img = image.data<T>() + bi[b] * height * width * depth;
      float* ob = o + 4 * b;
      for (int64_t y = 0; y < crop_h; ++y) {
        const float in_y =
            CropSamplePosition(y1, y2, y, h_scale, height, crop_h);
        if (!CropInside(in_y, height)) continue;
        const CropLerp ly = CropLerpAt(in_y);
        const int64_t top = ly.lo, bottom = ly.hi;
        const float y_lerp = ly.t;
        for (int64_t x = 0; x < crop_w; ++x) {
          const float in_x =
              CropSamplePosition(x1, x2, x, w_scale, width, crop_w);
          if (!CropInside(in_x, width)) continue;
          const CropLerp lx = CropLerpAt(in_x);
          const int64_t left = lx.lo, right = lx.hi;
          const float x_lerp = lx.t;
          const float* gp = g + ((b * crop_h + y) * crop_w + x) * depth;
          for (int64_t d = 0; d < depth; ++d) {
            const float tl =
                static_cast<float>(img[(top * width + left) * depth + d]);
            const float tr =
                static_cast<float>(img[(top * width + right) * depth + d]);
            const float bl =
                static_cast<float>(img[(bottom * width + left) * depth + d]);
            const float br =
                static_cast<float>(img[(bottom * width + right) * depth + d]);
            float grad_y = (1 - x_lerp) * (bl - tl) + x_lerp * (br - tr);
            float grad_x = (1 - y_lerp) * (tr - tl) + y_lerp * (br - bl);
            grad_y *= gp[d];
            grad_x *= gp[d];
            AddEdgeGradients(grad_y, y, h_ratio, height, crop_h, &ob[0],
                             &ob[2]);
            AddEdgeGradients(grad_x, x, w_ratio, width, crop_w, &ob[1], &ob[3]);
          }
        }
      }
    }
  }
};

template <typename... Ts>
void RegisterGradBoxes(KernelRegistry* registry) {
  (RegisterKernel<CropAndResizeGradBoxesOp<Ts>>(
       registry,
       KernelDefBuilder("CropAndResizeGradBoxes").TypeConstraint<Ts>("T")),
   ...);
}

}  // namespace

void RegisterCropAndResizeGradKernels(KernelRegistry* registry) {
  RegisterKernel<CropAndResizeGradImageOp>(
      registry, KernelDefBuilder("CropAndResizeGradImage")
                    .TypeConstraint("T", {DT_HALF, DT_FLOAT, DT_DOUBLE}));
  RegisterGradBoxes<uint8_t, uint16_t, int8_t, int16_t, int32_t, int64_t, half,
                    float, double>(registry);
}

}  // namespace dfx
