// SampleDistortedBoundingBox, SampleDistortedBoundingBoxV2 and
// StatelessSampleDistortedBoundingBox, drawn as TensorFlow 2.21's CPU
// kernel draws them (sample_distorted_bounding_box_op.cc): up to
// max_attempts tries of an aspect ratio (one uniform float), a height
// (exactly uniform between the bounds the area range allows, rounded with
// lrintf) and a position, until the crop covers enough of one bounding box;
// else the whole image. The stateful ops reserve 4 * max_attempts words of
// their (seed, seed2) generator per run; the stateless one reads its seed.
// The arithmetic is float and int as there. RandomCrop (v1), the other
// image op with a generator, is here too.
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <vector>

#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "graph/node_def_util.h"
#include "kernels/int_elements.h"
#include "kernels/random/random_util.h"
#include "kernels/random/rng2_kernels.h"
#include "kernels/random/simple_philox.h"

namespace dfx::random {
namespace {

struct Rect {
  int min_x = 0;
  int min_y = 0;
  int max_x = 0;
  int max_y = 0;

  float Area() const {
    return static_cast<float>((max_x - min_x) * (max_y - min_y));
  }
  Rect Intersect(const Rect& r) const {
    const Rect p{std::max(min_x, r.min_x), std::max(min_y, r.min_y),
                 std::min(max_x, r.max_x), std::min(max_y, r.max_y)};
    if (p.min_x > p.max_x || p.min_y > p.max_y) return Rect();
    return p;
  }
};

// Whether `crop` (of at least one pixel) covers at least `min_covered` of
// some box of at least one pixel.
bool CoversEnough(const Rect& crop, float min_covered,
                  const std::vector<Rect>& boxes) {
  constexpr float kMinArea = 1.0f;
  if (crop.Area() < kMinArea) return false;
  for (const Rect& box : boxes) {
    const float area = box.Area();
    if (area < kMinArea) continue;
    if (crop.Intersect(box).Area() / area >= min_covered) return true;
  }
  return false;
}

// One try at a crop of the given aspect ratio whose area lies in
// [min_rel, max_rel] of the image's; false when none fits.
bool RandomCrop(int width, int height, float min_rel, float max_rel,
                float aspect, SimplePhilox* rnd, Rect* crop) {
  if (max_rel <= 0.0 || aspect <= 0.0 || width <= 0 || height <= 0 ||
      min_rel > max_rel) {
    return false;
  }
  const float min_area = min_rel * width * height;
  const float max_area = max_rel * width * height;
  int h = static_cast<int>(lrintf(std::sqrt(min_area / aspect)));
  int max_h = static_cast<int>(lrintf(std::sqrt(max_area / aspect)));
  if (lrintf(max_h * aspect) > width) {
    // The largest max_h with round(max_h * aspect) <= width.
    const float kEps = 0.0000001;
    max_h = static_cast<int>((width + 0.5 - kEps) / aspect);
    if (lrintf(max_h * aspect) > width) max_h -= 1;
  }
  if (max_h > height) max_h = height;
  if (h >= max_h) h = max_h;
  if (h < max_h) h += rnd->Uniform(max_h - h + 1);
  int w = static_cast<int>(lrintf(h * aspect));
  // Rounding may leave the area just outside the range: one step bigger,
  // then one smaller.
  float area = static_cast<float>(w * h);
  if (area < min_area) {
    h += 1;
    w = static_cast<int>(lrintf(h * aspect));
    area = w * h;
  }
  if (area > max_area) {
    h -= 1;
    w = static_cast<int>(lrintf(h * aspect));
    area = w * h;
  }
  if (area < min_area || area > max_area || w > width || h > height ||
      w <= 0 || h <= 0) {
    return false;
  }
  int y = 0;
  if (h < height) y = rnd->Uniform(height - h);
  int x = 0;
  if (w < width) x = rnd->Uniform(width - w);
  *crop = Rect{x, y, x + w, y + h};
  return true;
}

std::vector<float> FloatList(const OpKernelConstruction& ctx,
                             const char* name) {
  std::vector<float> v;
  if (const AttrValue* a = FindNodeAttr(ctx.def(), name)) {
    v.assign(a->list().f().begin(), a->list().f().end());
  }
  return v;
}

// (image_size, bounding_boxes[, min_object_covered[, seed]]) -> (begin,
// size, bboxes).
class SampleBoxBase : public OpKernel {
 public:
  explicit SampleBoxBase(OpKernelConstruction* ctx) : OpKernel(ctx) {
    ctx->SetStatus(Init(ctx));
  }

 protected:
  void DoCompute(OpKernelContext* ctx, const Philox& gen) {
    const Tensor& image_size = ctx->input(0);
    DFX_OP_REQUIRES(ctx, image_size.dims() == 1,
                    absl::InvalidArgumentError(
                        absl::StrCat("image_size must be 1-dimensional",
                                     image_size.shape().DebugString())));
    DFX_OP_REQUIRES(ctx, image_size.dim_size(0) == 3,
                    absl::InvalidArgumentError(
                        absl::StrCat("image_size must contain 3 elements",
                                     image_size.shape().DebugString())));
    const uint64_t height_raw = static_cast<uint64_t>(IntAt(image_size, 0));
    const uint64_t width_raw = static_cast<uint64_t>(IntAt(image_size, 1));
    constexpr uint64_t kInt32Max = std::numeric_limits<int32_t>::max();
    DFX_OP_REQUIRES(
        ctx, height_raw < kInt32Max,
        absl::InvalidArgumentError("image height cannot be >= int32 max"));
    DFX_OP_REQUIRES(
        ctx, width_raw < kInt32Max,
        absl::InvalidArgumentError("image width cannot be >= int32 max"));
    const int height = static_cast<int>(height_raw);
    const int width = static_cast<int>(width_raw);

    const Tensor& boxes = ctx->input(1);
    DFX_OP_REQUIRES(ctx, boxes.dims() == 3,
                    absl::InvalidArgumentError(absl::StrCat(
                        "input boxes must be 3-dimensional [batch, num_boxes, "
                        "coords]: ",
                        boxes.shape().DebugString())));
    DFX_OP_REQUIRES(ctx, boxes.dim_size(2) == 4,
                    absl::InvalidArgumentError(absl::StrCat(
                        "bounding boxes must have shape [4] or [*, 4], got ",
                        boxes.shape().DebugString())));
    float min_covered = min_object_covered_;
    if (ctx->num_inputs() >= 3) {
      const Tensor& m = ctx->input(2);
      DFX_OP_REQUIRES(ctx, m.dims() == 0,
                      absl::InvalidArgumentError(absl::StrCat(
                          "min_object_covered must be 0-D, got shape ",
                          m.shape().DebugString())));
      min_covered = m.data<float>()[0];
      DFX_OP_REQUIRES(ctx, min_covered >= 0,
                      absl::InvalidArgumentError(absl::StrCat(
                          "Min object covered must be non-negative: ",
                          min_covered)));
    }
    std::vector<Rect> rects;
    const float* b = boxes.data<float>();
    for (int64_t i = 0; i < boxes.NumElements() / 4; ++i) {
      for (int k = 0; k < 4; ++k) {
        const float v = b[4 * i + k];
        DFX_OP_REQUIRES(ctx, v >= 0.0 && v <= 1.0,
                        absl::InvalidArgumentError(absl::StrCat(
                            "All bounding box coordinates must be in "
                            "[0.0, 1.0]: ",
                            v)));
      }
      rects.push_back(Rect{static_cast<int32_t>(b[4 * i + 1] * width),
                           static_cast<int32_t>(b[4 * i] * height),
                           static_cast<int32_t>(b[4 * i + 3] * width),
                           static_cast<int32_t>(b[4 * i + 2] * height)});
    }
    const Rect image{0, 0, width, height};
    if (rects.empty()) {
      DFX_OP_REQUIRES(
          ctx, use_image_,
          absl::InvalidArgumentError(
              "No bounding boxes provided as input. One must enable "
              "use_image_if_no_bounding_boxes if you wish to not provide "
              "any bounding boxes."));
      rects.push_back(image);
    }

    Philox local = gen;
    SimplePhilox rnd(&local);
    Rect crop;
    bool found = false;
    for (int i = 0; i < max_attempts_ && !found; ++i) {
      const float aspect =
          rnd.RandFloat() * (aspect_range_[1] - aspect_range_[0]) +
          aspect_range_[0];
      found = RandomCrop(width, height, area_range_[0], area_range_[1],
                         aspect, &rnd, &crop) &&
              CoversEnough(crop, min_covered, rects);
    }
    if (!found) crop = image;

    Tensor* begin = nullptr;
    Tensor* size = nullptr;
    Tensor* bbox = nullptr;
    DFX_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, TensorShape({3}), &begin));
    DFX_OP_REQUIRES_OK(ctx, ctx->allocate_output(1, TensorShape({3}), &size));
    DFX_OP_REQUIRES_OK(ctx,
                       ctx->allocate_output(2, TensorShape({1, 1, 4}), &bbox));
    SetIntAt(begin, 0, crop.min_y);
    SetIntAt(begin, 1, crop.min_x);
    SetIntAt(begin, 2, 0);
    SetIntAt(size, 0, crop.max_y - crop.min_y);
    SetIntAt(size, 1, crop.max_x - crop.min_x);
    SetIntAt(size, 2, -1);
    float* o = bbox->data<float>();
    o[0] = static_cast<float>(crop.min_y) / static_cast<float>(height);
    o[1] = static_cast<float>(crop.min_x) / static_cast<float>(width);
    o[2] = static_cast<float>(crop.max_y) / static_cast<float>(height);
    o[3] = static_cast<float>(crop.max_x) / static_cast<float>(width);
  }

  int max_attempts() const { return max_attempts_; }

 private:
  absl::Status Init(OpKernelConstruction* ctx) {
    if (ctx->num_inputs() == 2) {
      DFX_RETURN_IF_ERROR(
          ctx->GetAttr("min_object_covered", &min_object_covered_));
      if (!(min_object_covered_ >= 0)) {
        return absl::InvalidArgumentError(
            absl::StrCat("Min object covered must be non-negative: ",
                         min_object_covered_));
      }
    }
    DFX_RETURN_IF_ERROR(
        ctx->GetAttr("use_image_if_no_bounding_boxes", &use_image_));
    aspect_range_ = FloatList(*ctx, "aspect_ratio_range");
    if (aspect_range_.size() != 2) {
      return absl::InvalidArgumentError(
          "Aspect ratio range field must specify 2 dimensions");
    }
    if (!(aspect_range_[0] > 0 && aspect_range_[1] > 0)) {
      return absl::InvalidArgumentError(
          absl::StrCat("Aspect ratio range must be non-negative: [",
                       aspect_range_[0], ", ", aspect_range_[1], "]"));
    }
    area_range_ = FloatList(*ctx, "area_range");
    if (area_range_.size() != 2) {
      return absl::InvalidArgumentError(
          "Area range field must specify 2 dimensions");
    }
    if (!(area_range_[0] > 0 && area_range_[1] > 0)) {
      return absl::InvalidArgumentError(
          absl::StrCat("Area range must be non-negative: [", area_range_[0],
                       ", ", area_range_[1], "]"));
    }
    if (!(area_range_[0] <= 1 && area_range_[1] <= 1)) {
      return absl::InvalidArgumentError(
          absl::StrCat("Area range must be less then or equal to 1.0: [",
                       area_range_[0], ", ", area_range_[1], "]"));
    }
    int64_t attempts = 0;
    DFX_RETURN_IF_ERROR(ctx->GetAttr("max_attempts", &attempts));
    max_attempts_ = static_cast<int32_t>(attempts);
    if (max_attempts_ <= 0) {
      return absl::InvalidArgumentError(absl::StrCat(
          "Max attempts must be non-negative: ", max_attempts_));
    }
    return absl::OkStatus();
  }

  int32_t max_attempts_ = 0;
  std::vector<float> area_range_;
  std::vector<float> aspect_range_;
  float min_object_covered_ = 0;
  bool use_image_ = false;
};

class StatefulSampleBoxOp : public SampleBoxBase {
 public:
  explicit StatefulSampleBoxOp(OpKernelConstruction* ctx)
      : SampleBoxBase(ctx) {
    ctx->SetStatus(generator_.Init(*ctx));
  }

  void Compute(OpKernelContext* ctx) override {
    DoCompute(ctx, generator_.ReserveWords(4 * int64_t{max_attempts()}));
  }

 private:
  GuardedPhilox generator_;
};

class StatelessSampleBoxOp : public SampleBoxBase {
 public:
  using SampleBoxBase::SampleBoxBase;

  void Compute(OpKernelContext* ctx) override {
    const Tensor& seed = ctx->input(3);
    DFX_OP_REQUIRES(ctx, seed.dims() == 1 && seed.dim_size(0) == 2,
                    absl::InvalidArgumentError(
                        absl::StrCat("seed must have shape [2], not ",
                                     seed.shape().DebugString())));
    absl::StatusOr<Philox> gen = PhiloxFromSeedTensor(seed);
    DFX_OP_REQUIRES_OK(ctx, gen.status());
    DoCompute(ctx, *gen);
  }
};

// RandomCrop (v1, deprecated at GraphDef version 8): a [height, width]
// window of an [H, W, C] image at a random offset: two words of the
// (seed, seed2) generator, w % (W - width + 1) then h % (H - height + 1),
// each drawn only when that dim is cropped.
class RandomCropOp : public OpKernel {
 public:
  explicit RandomCropOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    ctx->SetStatus(generator_.Init(*ctx));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& input = ctx->input(0);
    DFX_OP_REQUIRES(ctx, input.dims() == 3,
                    absl::InvalidArgumentError(
                        absl::StrCat("input must be 3-dimensional",
                                     input.shape().DebugString())));
    const Tensor& size = ctx->input(1);
    DFX_OP_REQUIRES(ctx, size.dims() == 1,
                    absl::InvalidArgumentError(
                        absl::StrCat("shape_t must be 1-dimensional",
                                     size.shape().DebugString())));
    DFX_OP_REQUIRES(ctx, size.NumElements() == 2,
                    absl::InvalidArgumentError(
                        absl::StrCat("shape_t must have two elements",
                                     size.shape().DebugString())));
    const int32_t target_height = static_cast<int32_t>(size.data<int64_t>()[0]);
    const int32_t target_width = static_cast<int32_t>(size.data<int64_t>()[1]);
    const int32_t height = static_cast<int32_t>(input.dim_size(0));
    const int32_t width = static_cast<int32_t>(input.dim_size(1));
    const int64_t channels = input.dim_size(2);
    Tensor* out = nullptr;
    DFX_OP_REQUIRES_OK(
        ctx, ctx->allocate_output(
                 0, TensorShape({target_height, target_width, channels}),
                 &out));
    DFX_OP_REQUIRES(ctx, width >= target_width,
                    absl::FailedPreconditionError(absl::StrCat(
                        "width must be >= target_width: width = ", width,
                        ", target_width = ", target_width)));
    DFX_OP_REQUIRES(ctx, height >= target_height,
                    absl::FailedPreconditionError(absl::StrCat(
                        "height must be >= target_height: height = ", height,
                        ", target_height = ", target_height)));
    Philox gen = generator_.ReserveWords(2);
    SimplePhilox rnd(&gen);
    int32_t offset_width = 0;
    int32_t offset_height = 0;
    if (width > target_width) {
      offset_width = static_cast<int32_t>(
          rnd.Rand32() % static_cast<uint32_t>(width - target_width + 1));
    }
    if (height > target_height) {
      offset_height = static_cast<int32_t>(
          rnd.Rand32() % static_cast<uint32_t>(height - target_height + 1));
    }
    const int64_t elem = DataTypeSize(input.dtype());
    const int64_t row_bytes = target_width * channels * elem;
    const char* in = static_cast<const char*>(input.raw_data());
    char* o = static_cast<char*>(out->raw_data());
    for (int64_t y = 0; y < target_height; ++y) {
      std::memcpy(o + y * row_bytes,
                  in + ((y + offset_height) * width + offset_width) *
                           channels * elem,
                  row_bytes);
    }
  }

 private:
  GuardedPhilox generator_;
};

}  // namespace

void RegisterSampleDistortedBoundingBoxKernels(KernelRegistry* registry) {
  const DataTypeVector types = {DT_UINT8, DT_INT8, DT_INT16, DT_INT32,
                                DT_INT64};
  RegisterKernel<StatefulSampleBoxOp>(
      registry,
      KernelDefBuilder("SampleDistortedBoundingBox").TypeConstraint("T", types));
  RegisterKernel<StatefulSampleBoxOp>(
      registry, KernelDefBuilder("SampleDistortedBoundingBoxV2")
                    .TypeConstraint("T", types));
  RegisterKernel<StatelessSampleBoxOp>(
      registry, KernelDefBuilder("StatelessSampleDistortedBoundingBox")
                    .TypeConstraint("T", types));
  RegisterKernel<RandomCropOp>(
      registry, KernelDefBuilder("RandomCrop")
                    .TypeConstraint("T", {DT_UINT8, DT_INT8, DT_INT16,
                                          DT_INT32, DT_INT64, DT_FLOAT,
                                          DT_DOUBLE}));
}

}  // namespace dfx::random
