// Image ops with their shape functions: resizing (bilinear, nearest
// neighbor, bicubic, area) and the resize gradients, ScaleAndTranslate and
// its gradient, DepthToSpace, SpaceToDepth, SpaceToBatchND,
// BatchToSpaceND, SpaceToBatch, BatchToSpace, NonMaxSuppressionV3/V4/V5, CropAndResize,
// ImageProjectiveTransformV2/V3, RGBToHSV, HSVToRGB, AdjustContrastv2,
// AdjustSaturation and AdjustHue. Signatures
// follow TensorFlow 2.21's image_ops.cc and array_ops.cc; the shape
// functions reject at import only what TensorFlow's reject.
#include <algorithm>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "graph/node_def_util.h"
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

// DepthToSpace and SpaceToDepth: NHWC dims rearranged when known; other
// layouts (no CPU kernel) leave the output of rank 4 unknown.
absl::Status SpaceDepthShapeImpl(InferenceContext* c, bool to_space) {
  // A NodeDef may leave data_format to its default.
  std::string format = "NHWC";
  if (FindNodeAttr(c->node_def(), "data_format") != nullptr) {
    DFX_RETURN_IF_ERROR(GetNodeAttr(c->node_def(), "data_format", &format));
  }
  int64_t block = 2;
  DFX_RETURN_IF_ERROR(GetNodeAttr(c->node_def(), "block_size", &block));
  const PartialShape& in = c->input(0);
  DFX_RETURN_IF_ERROR(c->WithRank(in, format == "NCHW_VECT_C" ? 5 : 4));
  if (format != "NHWC" || !in.RankKnown() || block < 2) {
    c->set_output(0, UnknownDims(format == "NCHW_VECT_C" ? 5 : 4));
    return absl::OkStatus();
  }
  auto divide = [&](int64_t d, int64_t by, int64_t* out) -> absl::Status {
    if (d < 0) {
      *out = -1;
      return absl::OkStatus();
    }
    if (d % by != 0) {
      return c->Error(absl::StrCat(
          "Dimension size must be evenly divisible by ", by, " but is ", d));
    }
    *out = d / by;
    return absl::OkStatus();
  };
  auto times = [](int64_t d, int64_t by) { return d < 0 ? d : d * by; };
  std::vector<int64_t> out = in.dims;
  if (to_space) {
    out[1] = times(in.dims[1], block);
    out[2] = times(in.dims[2], block);
    DFX_RETURN_IF_ERROR(divide(in.dims[3], block * block, &out[3]));
  } else {
    DFX_RETURN_IF_ERROR(divide(in.dims[1], block, &out[1]));
    DFX_RETURN_IF_ERROR(divide(in.dims[2], block, &out[2]));
    out[3] = times(in.dims[3], block * block);
  }
  c->set_output(0, PartialShape::Known(std::move(out)));
  return absl::OkStatus();
}

absl::Status DepthToSpaceShapeFn(InferenceContext* c) {
  return SpaceDepthShapeImpl(c, true);
}
absl::Status SpaceToDepthShapeFn(InferenceContext* c) {
  return SpaceDepthShapeImpl(c, false);
}

// SpaceToBatchND (to_batch) and BatchToSpaceND: ranks checked; the output
// computed when block_shape and paddings/crops are constants, else the
// rank of the input with the dims after the block dims kept.
// SpaceToBatch and BatchToSpace (v1): 4-D input, a square block_size
// attr, paddings or crops [2, 2]; spatial dims computed when those are
// constants.
absl::Status BatchSpaceV1ShapeFn(InferenceContext* c) {
  const bool to_batch = c->node_def().op() == "SpaceToBatch";
  DFX_RETURN_IF_ERROR(c->WithRank(c->input(0), 4));
  DFX_RETURN_IF_ERROR(c->WithRank(c->input(1), 2));
  int64_t block = 0;
  DFX_RETURN_IF_ERROR(GetNodeAttr(c->node_def(), "block_size", &block));
  const PartialShape& in = c->input(0);
  PartialShape out = PartialShape::Known({-1, -1, -1, -1});
  if (!in.RankKnown()) {
    c->set_output(0, std::move(out));
    return absl::OkStatus();
  }
  const int64_t area = block * block;
  const int64_t n = in.dims[0];
  if (n >= 0) out.dims[0] = to_batch ? n * area : (n % area == 0 ? n / area : -1);
  out.dims[3] = in.dims[3];
  std::vector<int64_t> pads;
  if (ConstantInts(c->input_tensor(1), &pads) && pads.size() == 4) {
    for (int i = 0; i < 2; ++i) {
      const int64_t size = in.dims[1 + i];
      if (size < 0) continue;
      out.dims[1 + i] = to_batch ? (size + pads[2 * i] + pads[2 * i + 1]) / block
                                 : size * block - pads[2 * i] - pads[2 * i + 1];
    }
  }
  c->set_output(0, std::move(out));
  return absl::OkStatus();
}

absl::Status BatchSpaceShapeImpl(InferenceContext* c, bool to_batch) {
  const PartialShape& in = c->input(0);
  DFX_RETURN_IF_ERROR(c->WithRank(c->input(1), 1));
  DFX_RETURN_IF_ERROR(c->WithRank(c->input(2), 2));
  const PartialShape& block_shape = c->input(1);
  int64_t m = -1;
  if (block_shape.RankKnown()) m = block_shape.dims[0];
  if (m >= 0 && in.RankKnown() && in.rank() < 1 + m) {
    return c->Error(absl::StrCat("Shape must be at least rank ", 1 + m,
                                 " but is rank ", in.rank()));
  }
  if (!in.RankKnown()) {
    c->set_output(0, PartialShape::Unknown());
    return absl::OkStatus();
  }
  std::vector<int64_t> block, pads;
  if (m < 0 || !ConstantInts(c->input_tensor(1), &block) ||
      !ConstantInts(c->input_tensor(2), &pads) ||
      static_cast<int64_t>(block.size()) != m ||
      static_cast<int64_t>(pads.size()) != 2 * m) {
    std::vector<int64_t> out = in.dims;
    for (int64_t i = 0; i <= std::max<int64_t>(m, 0) && i < in.rank(); ++i) {
      out[i] = -1;
    }
    if (m < 0) out = std::vector<int64_t>(in.rank(), -1);
    c->set_output(0, PartialShape::Known(std::move(out)));
    return absl::OkStatus();
  }
  int64_t product = 1;
  for (int64_t b : block) product *= b;
  std::vector<int64_t> out = in.dims;
  if (product <= 0) {
    c->set_output(0, UnknownDims(in.rank()));
    return absl::OkStatus();
  }
  if (to_batch) {
    out[0] = in.dims[0] < 0 ? -1 : in.dims[0] * product;
  } else if (in.dims[0] >= 0) {
    if (in.dims[0] % product != 0) {
      return c->Error(
          absl::StrCat("Dimension size must be evenly divisible by ", product,
                       " but is ", in.dims[0]));
    }
    out[0] = in.dims[0] / product;
  }
  for (int64_t i = 0; i < m; ++i) {
    const int64_t d = in.dims[i + 1];
    const int64_t lo = pads[2 * i];
    const int64_t hi = pads[2 * i + 1];
    if (lo < 0 || hi < 0 || block[i] < 1) {
      return c->Error(to_batch ? "Paddings must be non-negative"
                               : "Crops must be non-negative");
    }
    if (d < 0) {
      out[i + 1] = -1;
    } else if (to_batch) {
      if ((d + lo + hi) % block[i] != 0) {
        return c->Error(
            absl::StrCat("Dimension size must be evenly divisible by ",
                         block[i], " but is ", d + lo + hi));
      }
      out[i + 1] = (d + lo + hi) / block[i];
    } else {
      out[i + 1] = d * block[i] - lo - hi;
      if (out[i + 1] < 0) {
        return c->Error(
            absl::StrCat("Negative dimension size caused by "
                         "subtracting ",
                         lo + hi, " from ", d * block[i]));
      }
    }
  }
  c->set_output(0, PartialShape::Known(std::move(out)));
  return absl::OkStatus();
}

absl::Status SpaceToBatchNdShapeFn(InferenceContext* c) {
  return BatchSpaceShapeImpl(c, true);
}
absl::Status BatchToSpaceNdShapeFn(InferenceContext* c) {
  return BatchSpaceShapeImpl(c, false);
}

// NonMaxSuppressionV3/V4/V5: boxes [n, 4], scores [n], scalar max size and
// thresholds; selected indices (and V5's scores) of [max_output_size] when
// padded and the size is a constant, else of unknown length.
absl::Status NmsShapeFn(InferenceContext* c) {
  DFX_RETURN_IF_ERROR(c->WithRank(c->input(0), 2));
  DFX_RETURN_IF_ERROR(c->WithRank(c->input(1), 1));
  for (int i = 2; i < c->num_inputs(); ++i) {
    DFX_RETURN_IF_ERROR(c->WithRank(c->input(i), 0));
  }
  const PartialShape& boxes = c->input(0);
  const PartialShape& scores = c->input(1);
  if (boxes.RankKnown()) {
    int64_t four = 0;
    DFX_RETURN_IF_ERROR(c->MergeDim(boxes.dims[1], 4, &four));
    if (scores.RankKnown()) {
      int64_t n = 0;
      DFX_RETURN_IF_ERROR(c->MergeDim(boxes.dims[0], scores.dims[0], &n));
    }
  }
  bool pad = false;
  if (const AttrValue* v =
          FindNodeAttr(c->node_def(), "pad_to_max_output_size")) {
    pad = v->b();
  }
  int64_t length = -1;
  std::vector<int64_t> max_size;
  if (pad && ConstantInts(c->input_tensor(2), &max_size) &&
      max_size.size() == 1 && max_size[0] >= 0) {
    length = max_size[0];
  }
  for (int i = 0; i < c->num_outputs(); ++i) {
    const bool valid_count = c->num_outputs() > 1 && i == c->num_outputs() - 1;
    c->set_output(i, valid_count ? PartialShape::Scalar()
                                 : PartialShape::Known({length}));
  }
  return absl::OkStatus();
}

// CropAndResize: [num_boxes, crop_size[0], crop_size[1], depth].
absl::Status CropAndResizeShapeFn(InferenceContext* c) {
  DFX_RETURN_IF_ERROR(c->WithRank(c->input(1), 2));
  DFX_RETURN_IF_ERROR(c->WithRank(c->input(2), 1));
  int64_t num_boxes = -1;
  if (c->input(1).RankKnown()) num_boxes = c->input(1).dims[0];
  if (c->input(2).RankKnown()) {
    DFX_RETURN_IF_ERROR(
        c->MergeDim(num_boxes, c->input(2).dims[0], &num_boxes));
  }
  DFX_RETURN_IF_ERROR(ResizeShapeImpl(c, 3));
  PartialShape out = c->output(0);
  out.dims[0] = num_boxes;
  c->set_output(0, std::move(out));
  return absl::OkStatus();
}

// RGBToHSV and HSVToRGB: rank >= 1 with 3 channels; the input's shape.
absl::Status ColorShapeFn(InferenceContext* c) {
  const PartialShape& in = c->input(0);
  if (in.RankKnown()) {
    if (in.rank() < 1) {
      return c->Error(absl::StrCat("Shape must be at least rank 1 but is rank ",
                                   in.rank()));
    }
    if (in.dims.back() >= 0 && in.dims.back() != 3) {
      return c->Error(
          absl::StrCat("Dimension must be 3 but is ", in.dims.back()));
    }
  }
  c->set_output(0, in);
  return absl::OkStatus();
}

// AdjustContrastv2, AdjustSaturation, AdjustHue: rank >= 3 images and a
// scalar; the images' shape.
absl::Status AdjustShapeFn(InferenceContext* c) {
  const PartialShape& in = c->input(0);
  if (in.RankKnown() && in.rank() < 3) {
    return c->Error(
        absl::StrCat("Shape must be at least rank 3 but is rank ", in.rank()));
  }
  DFX_RETURN_IF_ERROR(c->WithRank(c->input(1), 0));
  c->set_output(0, in);
  return absl::OkStatus();
}

constexpr char kSpaceDepthFormat[] =
    "data_format: {'NHWC', 'NCHW', 'NCHW_VECT_C'} = 'NHWC'";
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
  DFX_RETURN_IF_ERROR(r->Register(OpDefBuilder("ResizeBicubicGrad")
                                      .Input("grads: float")
                                      .Input("original_image: T")
                                      .Output("output: T")
                                      .Attr("T: {float, double}")
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
  DFX_RETURN_IF_ERROR(r->Register(OpDefBuilder("DepthToSpace")
                                      .Input("input: T")
                                      .Output("output: T")
                                      .Attr("T: type")
                                      .Attr("block_size: int >= 2")
                                      .Attr(kSpaceDepthFormat)
                                      .SetShapeFn(DepthToSpaceShapeFn)));
  DFX_RETURN_IF_ERROR(r->Register(OpDefBuilder("SpaceToDepth")
                                      .Input("input: T")
                                      .Output("output: T")
                                      .Attr("T: type")
                                      .Attr("block_size: int >= 2")
                                      .Attr(kSpaceDepthFormat)
                                      .SetShapeFn(SpaceToDepthShapeFn)));
  DFX_RETURN_IF_ERROR(
      r->Register(OpDefBuilder("SpaceToBatchND")
                      .Input("input: T")
                      .Input("block_shape: Tblock_shape")
                      .Input("paddings: Tpaddings")
                      .Output("output: T")
                      .Attr("T: type")
                      .Attr("Tblock_shape: {int32, int64} = DT_INT32")
                      .Attr("Tpaddings: {int32, int64} = DT_INT32")
                      .SetShapeFn(SpaceToBatchNdShapeFn)));
  DFX_RETURN_IF_ERROR(
      r->Register(OpDefBuilder("BatchToSpaceND")
                      .Input("input: T")
                      .Input("block_shape: Tblock_shape")
                      .Input("crops: Tcrops")
                      .Output("output: T")
                      .Attr("T: type")
                      .Attr("Tblock_shape: {int32, int64} = DT_INT32")
                      .Attr("Tcrops: {int32, int64} = DT_INT32")
                      .SetShapeFn(BatchToSpaceNdShapeFn)));
  DFX_RETURN_IF_ERROR(
      r->Register(OpDefBuilder("SpaceToBatch")
                      .Input("input: T")
                      .Input("paddings: Tpaddings")
                      .Output("output: T")
                      .Attr("T: type")
                      .Attr("Tpaddings: {int32, int64} = DT_INT32")
                      .Attr("block_size: int >= 2")
                      .SetShapeFn(BatchSpaceV1ShapeFn)));
  DFX_RETURN_IF_ERROR(
      r->Register(OpDefBuilder("BatchToSpace")
                      .Input("input: T")
                      .Input("crops: Tidx")
                      .Output("output: T")
                      .Attr("T: type")
                      .Attr("block_size: int >= 2")
                      .Attr("Tidx: {int32, int64} = DT_INT32")
                      .SetShapeFn(BatchSpaceV1ShapeFn)));
  DFX_RETURN_IF_ERROR(
      r->Register(OpDefBuilder("NonMaxSuppressionV3")
                      .Input("boxes: T")
                      .Input("scores: T")
                      .Input("max_output_size: int32")
                      .Input("iou_threshold: T_threshold")
                      .Input("score_threshold: T_threshold")
                      .Output("selected_indices: int32")
                      .Attr("T: {half, float} = DT_FLOAT")
                      .Attr("T_threshold: {half, float} = DT_FLOAT")
                      .SetShapeFn(NmsShapeFn)));
  DFX_RETURN_IF_ERROR(
      r->Register(OpDefBuilder("NonMaxSuppressionV4")
                      .Input("boxes: T")
                      .Input("scores: T")
                      .Input("max_output_size: int32")
                      .Input("iou_threshold: T_threshold")
                      .Input("score_threshold: T_threshold")
                      .Output("selected_indices: int32")
                      .Output("valid_outputs: int32")
                      .Attr("T: {half, float} = DT_FLOAT")
                      .Attr("T_threshold: {half, float} = DT_FLOAT")
                      .Attr("pad_to_max_output_size: bool = false")
                      .SetShapeFn(NmsShapeFn)));
  DFX_RETURN_IF_ERROR(
      r->Register(OpDefBuilder("NonMaxSuppressionV5")
                      .Input("boxes: T")
                      .Input("scores: T")
                      .Input("max_output_size: int32")
                      .Input("iou_threshold: T")
                      .Input("score_threshold: T")
                      .Input("soft_nms_sigma: T")
                      .Output("selected_indices: int32")
                      .Output("selected_scores: T")
                      .Output("valid_outputs: int32")
                      .Attr("T: {half, float} = DT_FLOAT")
                      .Attr("pad_to_max_output_size: bool = false")
                      .SetShapeFn(NmsShapeFn)));
  DFX_RETURN_IF_ERROR(r->Register(
      OpDefBuilder("CropAndResize")
          .Input("image: T")
          .Input("boxes: float")
          .Input("box_ind: int32")
          .Input("crop_size: int32")
          .Output("crops: float")
          .Attr("T: {uint8, uint16, int8, int16, int32, int64, half, float, "
                "double}")
          .Attr("method: {'bilinear', 'nearest'} = 'bilinear'")
          .Attr("extrapolation_value: float = 0")
          .SetShapeFn(CropAndResizeShapeFn)));
  // Output [batch, output_shape[0], output_shape[1], channels].
  for (const bool v3 : {false, true}) {
    OpDefBuilder b(v3 ? "ImageProjectiveTransformV3"
                      : "ImageProjectiveTransformV2");
    b.Input("images: dtype")
        .Input("transforms: float")
        .Input("output_shape: int32");
    if (v3) b.Input("fill_value: float");
    DFX_RETURN_IF_ERROR(r->Register(
        b.Output("transformed_images: dtype")
            .Attr("dtype: {uint8, int32, int64, half, bfloat16, float, "
                  "double}")
            .Attr("interpolation: string")
            .Attr("fill_mode: string = 'CONSTANT'")
            .SetShapeFn(
                [](InferenceContext* c) { return ResizeShapeImpl(c, 2); })));
  }
  for (const char* name : {"RGBToHSV", "HSVToRGB"}) {
    DFX_RETURN_IF_ERROR(
        r->Register(OpDefBuilder(name)
                        .Input("images: T")
                        .Output("output: T")
                        .Attr("T: {half, bfloat16, float, double} = DT_FLOAT")
                        .SetShapeFn(ColorShapeFn)));
  }
  for (const auto& [name, arg] :
       {std::pair{"AdjustContrastv2", "contrast_factor: float"},
        std::pair{"AdjustSaturation", "scale: float"},
        std::pair{"AdjustHue", "delta: float"}}) {
    DFX_RETURN_IF_ERROR(r->Register(OpDefBuilder(name)
                                        .Input("images: T")
                                        .Input(arg)
                                        .Output("output: T")
                                        .Attr("T: {half, float} = DT_FLOAT")
                                        .SetShapeFn(AdjustShapeFn)));
  }
  DFX_RETURN_IF_ERROR(r->Register(
      OpDefBuilder("ScaleAndTranslate")
          .Input("images: T")
          .Input("size: int32")
          .Input("scale: float")
          .Input("translation: float")
          .Output("resized_images: float")
          .Attr("T: {int8, uint8, int16, uint16, int32, int64, bfloat16, "
                "half, float, double}")
          .Attr("kernel_type: string = 'lanczos3'")
          .Attr("antialias: bool = true")
          .SetShapeFn(ResizeShapeFn)));
  DFX_RETURN_IF_ERROR(r->Register(OpDefBuilder("ScaleAndTranslateGrad")
                                      .Input("grads: T")
                                      .Input("original_image: T")
                                      .Input("scale: float")
                                      .Input("translation: float")
                                      .Output("output: T")
                                      .Attr("T: {float}")
                                      .Attr("kernel_type: string = 'lanczos3'")
                                      .Attr("antialias: bool = true")
                                      .SetShapeFn(ResizeGradShapeFn)));
  return absl::OkStatus();
}

}  // namespace dfx
