// The image2 family: the detection ops of object-detection graphs
// (NonMaxSuppression v1 and V2, NonMaxSuppressionWithOverlaps,
// CombinedNonMaxSuppression), the gradients of CropAndResize
// (CropAndResizeGradImage, CropAndResizeGradBoxes) and DrawBoundingBoxes /
// DrawBoundingBoxesV2, ExtractGlimpse / ExtractGlimpseV2 and AdjustContrast
// (v1). Signatures and shape functions follow TensorFlow 2.21's
// image_ops.cc and attention_ops.cc.
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

int64_t Dim(const PartialShape& s, int i) {
  return s.RankKnown() ? s.dims[i] : -1;
}

// The value of scalar input `i` when it is a constant, else -1.
int64_t ScalarInput(InferenceContext* c, int i) {
  std::vector<int64_t> v;
  if (ConstantInts(c->input_tensor(i), &v) && v.size() == 1) return v[0];
  return -1;
}

// NonMaxSuppression, V2 and WithOverlaps: boxes [n, 4] (or overlaps
// [n, n]), scores [n], scalars; selected indices of unknown length.
absl::Status Nms2ShapeFn(InferenceContext* c, bool overlaps) {
  DFX_RETURN_IF_ERROR(c->WithRank(c->input(0), 2));
  DFX_RETURN_IF_ERROR(c->WithRank(c->input(1), 1));
  for (int i = 2; i < c->num_inputs(); ++i) {
    DFX_RETURN_IF_ERROR(c->WithRank(c->input(i), 0));
  }
  const PartialShape& boxes = c->input(0);
  int64_t n = 0;
  DFX_RETURN_IF_ERROR(c->MergeDim(Dim(boxes, 0), Dim(c->input(1), 0), &n));
  DFX_RETURN_IF_ERROR(
      c->MergeDim(overlaps ? Dim(boxes, 0) : 4, Dim(boxes, 1), &n));
  c->set_output(0, PartialShape::Known({-1}));
  return absl::OkStatus();
}

absl::Status CombinedNmsShapeFn(InferenceContext* c) {
  DFX_RETURN_IF_ERROR(c->WithRank(c->input(0), 4));
  DFX_RETURN_IF_ERROR(c->WithRank(c->input(1), 3));
  for (int i = 2; i < 6; ++i) {
    DFX_RETURN_IF_ERROR(c->WithRank(c->input(i), 0));
  }
  const PartialShape& boxes = c->input(0);
  const PartialShape& scores = c->input(1);
  int64_t unused = 0;
  DFX_RETURN_IF_ERROR(c->MergeDim(Dim(boxes, 0), Dim(scores, 0), &unused));
  DFX_RETURN_IF_ERROR(c->MergeDim(Dim(boxes, 1), Dim(scores, 1), &unused));
  DFX_RETURN_IF_ERROR(c->MergeDim(Dim(boxes, 3), 4, &unused));
  const int64_t q = Dim(boxes, 2);
  const int64_t classes = Dim(scores, 2);
  if (q >= 0 && classes >= 0 && q != 1 && q != classes) {
    return c->Error(
        "third dimension of boxes must be either 1 or equal to the third "
        "dimension of scores");
  }
  const int64_t total = ScalarInput(c, 3);
  if (c->input_tensor(3) != nullptr && total != -1 && total <= 0) {
    return c->Error("max_total_size should be > 0 ");
  }
  const int64_t per_class = ScalarInput(c, 2);
  bool pad = false;
  if (const AttrValue* v = FindNodeAttr(c->node_def(), "pad_per_class")) {
    pad = v->b();
  }
  int64_t size = -1;
  if (!pad) {
    size = total;
  } else {
    if (c->input_tensor(2) != nullptr && per_class != -1 && per_class <= 0) {
      return c->Error(
          "max_output_size_per_class must be > 0 if pad_per_class is set to "
          "true ");
    }
    if (per_class >= 0 && classes >= 0) {
      size = total < 0 ? -1 : std::min(total, per_class * classes);
    }
  }
  const int64_t batch = Dim(boxes, 0) >= 0 ? Dim(boxes, 0) : Dim(scores, 0);
  c->set_output(0, PartialShape::Known({batch, size, 4}));
  c->set_output(1, PartialShape::Known({batch, size}));
  c->set_output(2, PartialShape::Known({batch, size}));
  c->set_output(3, PartialShape::Known({batch}));
  return absl::OkStatus();
}

// CropAndResizeGradImage: the 4-D shape in image_size.
absl::Status CropAndResizeGradImageShapeFn(InferenceContext* c) {
  DFX_RETURN_IF_ERROR(c->WithRank(c->input(3), 1));
  const PartialShape& size = c->input(3);
  if (size.RankKnown() && size.dims[0] >= 0 && size.dims[0] != 4) {
    return c->Error(
        absl::StrCat("Shape must be rank 4 but is rank ", size.dims[0]));
  }
  std::vector<int64_t> dims;
  if (ConstantInts(c->input_tensor(3), &dims) && dims.size() == 4) {
    for (int64_t& d : dims) {
      if (d < -1) {
        return c->Error(absl::StrCat("Dimension ", d, " must be >= -1"));
      }
    }
    c->set_output(0, PartialShape::Known(std::move(dims)));
  } else {
    c->set_output(0, UnknownDims(4));
  }
  return absl::OkStatus();
}

absl::Status DrawBoundingBoxesShapeFn(InferenceContext* c) {
  DFX_RETURN_IF_ERROR(c->WithRank(c->input(0), 4));
  const int64_t depth = Dim(c->input(0), 3);
  if (depth >= 0 && depth != 1 && depth != 3 && depth != 4) {
    return c->Error(
        "Channel depth should be either 1 (GRY), 3 (RGB), or 4 "
        "(RGBA)");
  }
  DFX_RETURN_IF_ERROR(c->WithRank(c->input(1), 3));
  int64_t unused = 0;
  DFX_RETURN_IF_ERROR(c->MergeDim(Dim(c->input(1), 2), 4, &unused));
  c->set_output(0, c->input(0));
  return absl::OkStatus();
}

absl::Status DrawBoundingBoxesV2ShapeFn(InferenceContext* c) {
  const PartialShape& in = c->input(0);
  if (in.RankKnown() && in.rank() < 3) {
    return c->Error(
        absl::StrCat("Shape must be at least rank 3 but is rank ", in.rank()));
  }
  c->set_output(0, in);
  return absl::OkStatus();
}

// ExtractGlimpse and V2: input [batch, h, w, depth], offsets [batch, 2];
// [batch, size[0], size[1], depth].
absl::Status ExtractGlimpseShapeFn(InferenceContext* c) {
  DFX_RETURN_IF_ERROR(c->WithRank(c->input(0), 4));
  DFX_RETURN_IF_ERROR(c->WithRank(c->input(2), 2));
  int64_t batch = -1;
  DFX_RETURN_IF_ERROR(
      c->MergeDim(Dim(c->input(0), 0), Dim(c->input(2), 0), &batch));
  int64_t unused = 0;
  DFX_RETURN_IF_ERROR(c->MergeDim(Dim(c->input(2), 1), 2, &unused));
  bool uniform = false;
  std::string noise;
  if (const AttrValue* v = FindNodeAttr(c->node_def(), "uniform_noise")) {
    uniform = v->b();
  }
  if (const AttrValue* v = FindNodeAttr(c->node_def(), "noise")) {
    noise = v->s();
  }
  if (uniform && !noise.empty() && noise != "uniform") {
    return c->Error(
        "The uniform_noise and noise should not be specified at the same "
        "time");
  }
  DFX_RETURN_IF_ERROR(c->WithRank(c->input(1), 1));
  const int64_t n = Dim(c->input(1), 0);
  if (n >= 0 && n != 2) {
    return c->Error(absl::StrCat("Dimension must be 2 but is ", n));
  }
  std::vector<int64_t> hw;
  int64_t h = -1;
  int64_t w = -1;
  if (ConstantInts(c->input_tensor(1), &hw) && hw.size() == 2) {
    h = hw[0];
    w = hw[1];
    if (h < -1 || w < -1) {
      return c->Error(
          absl::StrCat("Dimension ", h < -1 ? h : w, " must be >= -1"));
    }
  }
  c->set_output(0, PartialShape::Known({batch, h, w, Dim(c->input(0), 3)}));
  return absl::OkStatus();
}

// AdjustContrast: rank >= 3 images, scalar factor and bounds.
absl::Status AdjustContrastShapeFn(InferenceContext* c) {
  for (int i = 1; i < 4; ++i) {
    DFX_RETURN_IF_ERROR(c->WithRank(c->input(i), 0));
  }
  const PartialShape& in = c->input(0);
  if (in.RankKnown() && in.rank() < 3) {
    return c->Error(
        absl::StrCat("Shape must be at least rank 3 but is rank ", in.rank()));
  }
  c->set_output(0, in);
  return absl::OkStatus();
}

}  // namespace

absl::Status RegisterImage2Ops(OpRegistry* r) {
  DFX_RETURN_IF_ERROR(r->Register(OpDefBuilder("NonMaxSuppression")
                                      .Input("boxes: float")
                                      .Input("scores: float")
                                      .Input("max_output_size: int32")
                                      .Output("selected_indices: int32")
                                      .Attr("iou_threshold: float = 0.5")
                                      .SetShapeFn([](InferenceContext* c) {
                                        return Nms2ShapeFn(c, false);
                                      })));
  DFX_RETURN_IF_ERROR(
      r->Register(OpDefBuilder("NonMaxSuppressionV2")
                      .Input("boxes: T")
                      .Input("scores: T")
                      .Input("max_output_size: int32")
                      .Input("iou_threshold: T_threshold")
                      .Output("selected_indices: int32")
                      .Attr("T: {half, float} = DT_FLOAT")
                      .Attr("T_threshold: {half, float} = DT_FLOAT")
                      .SetShapeFn([](InferenceContext* c) {
                        return Nms2ShapeFn(c, false);
                      })));
  DFX_RETURN_IF_ERROR(r->Register(OpDefBuilder("NonMaxSuppressionWithOverlaps")
                                      .Input("overlaps: float")
                                      .Input("scores: float")
                                      .Input("max_output_size: int32")
                                      .Input("overlap_threshold: float")
                                      .Input("score_threshold: float")
                                      .Output("selected_indices: int32")
                                      .SetShapeFn([](InferenceContext* c) {
                                        return Nms2ShapeFn(c, true);
                                      })));
  DFX_RETURN_IF_ERROR(r->Register(OpDefBuilder("CombinedNonMaxSuppression")
                                      .Input("boxes: float")
                                      .Input("scores: float")
                                      .Input("max_output_size_per_class: int32")
                                      .Input("max_total_size: int32")
                                      .Input("iou_threshold: float")
                                      .Input("score_threshold: float")
                                      .Output("nmsed_boxes: float")
                                      .Output("nmsed_scores: float")
                                      .Output("nmsed_classes: float")
                                      .Output("valid_detections: int32")
                                      .Attr("pad_per_class: bool = false")
                                      .Attr("clip_boxes: bool = true")
                                      .SetShapeFn(CombinedNmsShapeFn)));
  DFX_RETURN_IF_ERROR(
      r->Register(OpDefBuilder("CropAndResizeGradImage")
                      .Input("grads: float")
                      .Input("boxes: float")
                      .Input("box_ind: int32")
                      .Input("image_size: int32")
                      .Output("output: T")
                      .Attr("T: {float, half, double}")
                      .Attr("method: {'bilinear', 'nearest'} = 'bilinear'")
                      .SetShapeFn(CropAndResizeGradImageShapeFn)));
  DFX_RETURN_IF_ERROR(r->Register(
      OpDefBuilder("CropAndResizeGradBoxes")
          .Input("grads: float")
          .Input("image: T")
          .Input("boxes: float")
          .Input("box_ind: int32")
          .Output("output: float")
          .Attr("T: {uint8, uint16, int8, int16, int32, int64, half, float, "
                "double}")
          .Attr("method: {'bilinear'} = 'bilinear'")
          .SetShapeFn([](InferenceContext* c) {
            c->set_output(0, c->input(2));
            return absl::OkStatus();
          })));
  DFX_RETURN_IF_ERROR(r->Register(OpDefBuilder("DrawBoundingBoxes")
                                      .Input("images: T")
                                      .Input("boxes: float")
                                      .Output("output: T")
                                      .Attr("T: {float, half} = DT_FLOAT")
                                      .SetShapeFn(DrawBoundingBoxesShapeFn)));
  DFX_RETURN_IF_ERROR(r->Register(OpDefBuilder("DrawBoundingBoxesV2")
                                      .Input("images: T")
                                      .Input("boxes: float")
                                      .Input("colors: float")
                                      .Output("output: T")
                                      .Attr("T: {float, half} = DT_FLOAT")
                                      .SetShapeFn(DrawBoundingBoxesV2ShapeFn)));
  for (const char* name : {"ExtractGlimpse", "ExtractGlimpseV2"}) {
    DFX_RETURN_IF_ERROR(r->Register(OpDefBuilder(name)
                                        .Input("input: float")
                                        .Input("size: int32")
                                        .Input("offsets: float")
                                        .Output("glimpse: float")
                                        .Attr("centered: bool = true")
                                        .Attr("normalized: bool = true")
                                        .Attr("uniform_noise: bool = true")
                                        .Attr("noise: string = 'uniform'")
                                        .SetShapeFn(ExtractGlimpseShapeFn)));
  }
  // Deprecated at GraphDef version 2 (AdjustContrastv2 replaced it).
  DFX_ASSIGN_OR_RETURN(
      OpRegistrationData contrast,
      OpDefBuilder("AdjustContrast")
          .Input("images: T")
          .Input("contrast_factor: float")
          .Input("min_value: float")
          .Input("max_value: float")
          .Output("output: float")
          .Attr("T: {uint8, int8, int16, int32, int64, float, double}")
          .SetShapeFn(AdjustContrastShapeFn)
          .Finalize());
  contrast.op_def.mutable_deprecation()->set_version(2);
  contrast.op_def.mutable_deprecation()->set_explanation(
      "Use AdjustContrastv2 instead");
  DFX_RETURN_IF_ERROR(r->Register(std::move(contrast)));
  return absl::OkStatus();
}

}  // namespace dfx
