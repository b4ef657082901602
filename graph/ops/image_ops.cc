// Image ops: resizing (bilinear, nearest neighbor, bicubic, area) and the
// resize gradients, with their shape functions. Signatures follow
// TensorFlow 2.21's image_ops.cc; the shape functions reject at import only
// what TensorFlow's reject.
#include <cstdint>
#include <vector>

#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "graph/ops/ops.h"

namespace dfx {
namespace {

// Rank-4 images and a 2-element `size` (input `size_input`): output
// [batch, size[0], size[1], channels], dims unknown where not known.
absl::Status ResizeShapeImpl(InferenceContext* c, int size_input) {
  const PartialShape& images = c->input(0);
  DFX_RETURN_IF_ERROR(c->WithRank(images, 4));
  const PartialShape& size = c->input(size_input);
  DFX_RETURN_IF_ERROR(c->WithRank(size, 1));
  if (size.RankKnown() && size.dims[0] >= 0 && size.dims[0] != 2) {
    return c->Error(absl::StrCat("Dimension must be 2 but is ", size.dims[0]));
  }
  std::vector<int64_t> out = {-1, -1, -1, -1};
  if (images.RankKnown()) {
    out[0] = images.dims[0];
    out[3] = images.dims[3];
  }
  std::vector<int64_t> hw;
  if (ConstantInts(c->input_tensor(size_input), &hw) && hw.size() == 2) {
    for (int i = 0; i < 2; ++i) {
      if (hw[i] < 0) {
        return c->Error(absl::StrCat(
            "Dimension ", i, " of size must be non-negative, got ", hw[i]));
      }
      out[1 + i] = hw[i];
    }
  }
  c->set_output(0, PartialShape::Known(std::move(out)));
  return absl::OkStatus();
}

absl::Status ResizeShapeFn(InferenceContext* c) {
  return ResizeShapeImpl(c, 1);
}

// ResizeBilinearGrad and ResizeBicubicGrad: the original image's shape.
absl::Status ResizeGradShapeFn(InferenceContext* c) {
  DFX_RETURN_IF_ERROR(c->WithRank(c->input(1), 4));
  c->set_output(0, c->input(1));
  return absl::OkStatus();
}

constexpr char kAlignCorners[] = "align_corners: bool = false";
constexpr char kHalfPixelCenters[] = "half_pixel_centers: bool = false";

}  // namespace

absl::Status RegisterImageOps(OpRegistry* r) {
  DFX_RETURN_IF_ERROR(r->Register(
      OpDefBuilder("ResizeBilinear")
          .Input("images: T")
          .Input("size: int32")
          .Output("resized_images: float")
          .Attr("T: {int8, uint8, int16, uint16, int32, int64, bfloat16, "
                "half, float, double, bfloat16}")
          .Attr(kAlignCorners)
          .Attr(kHalfPixelCenters)
          .SetShapeFn(ResizeShapeFn)));
  DFX_RETURN_IF_ERROR(r->Register(
      OpDefBuilder("ResizeNearestNeighbor")
          .Input("images: T")
          .Input("size: int32")
          .Output("resized_images: T")
          .Attr("T: {int8, uint8, int16, uint16, int32, int64, half, float, "
                "double, bfloat16}")
          .Attr(kAlignCorners)
          .Attr(kHalfPixelCenters)
          .SetShapeFn(ResizeShapeFn)));
  DFX_RETURN_IF_ERROR(r->Register(
      OpDefBuilder("ResizeBicubic")
          .Input("images: T")
          .Input("size: int32")
          .Output("resized_images: float")
          .Attr("T: {int8, uint8, int16, uint16, int32, int64, half, float, "
                "double, bfloat16}")
          .Attr(kAlignCorners)
          .Attr(kHalfPixelCenters)
          .SetShapeFn(ResizeShapeFn)));
  DFX_RETURN_IF_ERROR(r->Register(
      OpDefBuilder("ResizeArea")
          .Input("images: T")
          .Input("size: int32")
          .Output("resized_images: float")
          .Attr("T: {int8, uint8, int16, uint16, int32, int64, half, float, "
                "double, bfloat16}")
          .Attr(kAlignCorners)
          .SetShapeFn(ResizeShapeFn)));
  DFX_RETURN_IF_ERROR(
      r->Register(OpDefBuilder("ResizeBilinearGrad")
                      .Input("grads: float")
                      .Input("original_image: T")
                      .Output("output: T")
                      .Attr("T: {float, bfloat16, half, double}")
                      .Attr(kAlignCorners)
                      .Attr(kHalfPixelCenters)
                      .SetShapeFn(ResizeGradShapeFn)));
  DFX_RETURN_IF_ERROR(r->Register(
      OpDefBuilder("ResizeNearestNeighborGrad")
          .Input("grads: T")
          .Input("size: int32")
          .Output("output: T")
          .Attr("T: {uint8, int8, int32, half, float, double, bfloat16}")
          .Attr(kAlignCorners)
          .Attr(kHalfPixelCenters)
          .SetShapeFn(ResizeShapeFn)));
  return absl::OkStatus();
}

}  // namespace dfx
