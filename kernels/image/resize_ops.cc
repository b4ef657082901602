// ResizeBilinear, ResizeNearestNeighbor, ResizeBicubic, ResizeArea and the
// gradients ResizeBilinearGrad, ResizeNearestNeighborGrad and
// ResizeBicubicGrad on CPU, NHWC.
//
// The coordinate math is TensorFlow's, in float as TensorFlow computes it
// (image_resizer_state.h): scale = in / out, or (in - 1) / (out - 1) with
// align_corners; an output pixel x maps to x * scale (legacy), or with
// half_pixel_centers to (x + 0.5) * scale - 0.5 (bilinear, bicubic) and
// (x + 0.5) * scale (nearest neighbor). Results must match TensorFlow's to
// the last bit where the arithmetic allows, so the order of the float
// operations follows TensorFlow's kernels.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "kernels/eigen_util.h"
#include "kernels/image/image_kernels.h"
#include "kernels/image/image_util.h"
#include "kernels/kernels.h"
#include "runtime/op_kernel.h"

namespace dfx {
namespace {

using Eigen::bfloat16;
using Eigen::half;

float ResizeScale(int64_t in_size, int64_t out_size, bool align_corners) {
  return (align_corners && out_size > 1)
             ? static_cast<float>(in_size - 1) /
                   static_cast<float>(out_size - 1)
             : static_cast<float>(in_size) / static_cast<float>(out_size);
}

float LegacyScale(int64_t x, float scale) {
  return static_cast<float>(x) * scale;
}
float HalfPixelScale(int64_t x, float scale) {
  return (static_cast<float>(x) + 0.5f) * scale - 0.5f;
}

// Nearest-neighbor source index of output (or gradient) index x.
int64_t NearestIndex(int64_t x, float scale, int64_t in_size,
                     bool align_corners, bool half_pixel_centers) {
  const float in = half_pixel_centers ? (static_cast<float>(x) + 0.5f) * scale
                                      : static_cast<float>(x) * scale;
  int64_t i = align_corners ? static_cast<int64_t>(std::roundf(in))
                            : static_cast<int64_t>(std::floor(in));
  i = std::min(i, in_size - 1);
  if (half_pixel_centers) i = std::max<int64_t>(i, 0);
  return i;
}

// The geometry of one forward resize: NHWC input [batch, in_h, in_w,
// channels] to [batch, out_h, out_w, channels].
struct ResizeGeom {
  int64_t batch = 0;
  int64_t in_h = 0;
  int64_t in_w = 0;
  int64_t channels = 0;
  int64_t out_h = 0;
  int64_t out_w = 0;
  float h_scale = 0;
  float w_scale = 0;
};

// TensorFlow's ImageResizerState::ValidateAndCalculateOutputSize: its
// checks in its order, with its messages.
absl::Status ValidateResize(const Tensor& images, const Tensor& size,
                            bool align_corners, bool half_pixel_centers,
                            ResizeGeom* g) {
  if (half_pixel_centers && align_corners) {
    return absl::InvalidArgumentError(
        "If half_pixel_centers is True, align_corners must be False.");
  }
  if (images.dims() != 4) {
    return absl::InvalidArgumentError(absl::StrCat(
        "input must be 4-dimensional", images.shape().DebugString()));
  }
  g->batch = images.dim_size(0);
  g->in_h = images.dim_size(1);
  g->in_w = images.dim_size(2);
  g->channels = images.dim_size(3);
  if (g->channels <= 0) {
    return absl::InvalidArgumentError("image must have at least one channel");
  }
  if (g->in_h <= 0 || g->in_w <= 0) {
    return absl::InvalidArgumentError("input image must be of non-zero size");
  }
  constexpr int64_t kInt32Max = std::numeric_limits<int32_t>::max();
  if (g->in_h >= kInt32Max || g->in_w >= kInt32Max) {
    return absl::InvalidArgumentError(
        "input sizes must be between 0 and max int32");
  }
  if (size.dims() != 1) {
    return absl::InvalidArgumentError(absl::StrCat(
        "shape_t must be 1-dimensional", size.shape().DebugString()));
  }
  if (size.NumElements() != 2) {
    return absl::InvalidArgumentError(absl::StrCat(
        "shape_t must have two elements", size.shape().DebugString()));
  }
  g->out_h = size.data<int32_t>()[0];
  g->out_w = size.data<int32_t>()[1];
  if (g->out_h <= 0 || g->out_w <= 0) {
    return absl::InvalidArgumentError("output dimensions must be positive");
  }
  g->h_scale = ResizeScale(g->in_h, g->out_h, align_corners);
  g->w_scale = ResizeScale(g->in_w, g->out_w, align_corners);
  return absl::OkStatus();
}

absl::StatusOr<Tensor*> AllocateResized(OpKernelContext* ctx,
                                        const ResizeGeom& g) {
  Tensor* out = nullptr;
  DFX_RETURN_IF_ERROR(AllocateImageOutput(
      ctx, 0, {g.batch, g.out_h, g.out_w, g.channels}, &out));
  return out;
}

// Reads the two resize attrs; InvalidArgument (from GetAttr) when missing.
void ReadResizeAttrs(OpKernelConstruction* ctx, bool half_pixel_attr,
                     bool* align_corners, bool* half_pixel_centers) {
  ctx->SetStatus(ctx->GetAttr("align_corners", align_corners));
  *half_pixel_centers = false;
  if (half_pixel_attr) {
    ctx->SetStatus(ctx->GetAttr("half_pixel_centers", half_pixel_centers));
  }
}

// Runs fn(b, y) for every output row of every image, in parallel.
template <typename Fn>
void ForEachRow(OpKernelContext* ctx, int64_t batch, int64_t rows,
                int64_t row_elements, Fn&& fn) {
  ImageParallelFor(*ctx->device(), batch * rows,
                   Eigen::TensorOpCost(16 * row_elements, 4 * row_elements,
                                       8 * row_elements),
                   [&](int64_t first, int64_t last) {
                     for (int64_t r = first; r < last; ++r)
                       fn(r / rows, r % rows);
                   });
}

// ---------------------------------------------------------------- bilinear

// One output coordinate's two source indices and the weight of the upper.
struct Interp {
  int64_t lower = 0;
  int64_t upper = 0;
  float lerp = 0;
};

std::vector<Interp> BilinearInterps(int64_t out_size, int64_t in_size,
                                    float scale, bool half_pixel_centers) {
  std::vector<Interp> v(out_size);
  for (int64_t i = 0; i < out_size; ++i) {
    const float in =
        half_pixel_centers ? HalfPixelScale(i, scale) : LegacyScale(i, scale);
    const float in_f = std::floor(in);
    v[i].lower = std::max(static_cast<int64_t>(in_f), int64_t{0});
    v[i].upper = std::min(static_cast<int64_t>(std::ceil(in)), in_size - 1);
    v[i].lerp = in - in_f;
  }
  return v;
}

template <typename T>
class ResizeBilinearOp : public OpKernel {
 public:
  explicit ResizeBilinearOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    ReadResizeAttrs(ctx, true, &align_corners_, &half_pixel_centers_);
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& images = ctx->input(0);
    ResizeGeom g;
    DFX_OP_REQUIRES_OK(ctx,
                       ValidateResize(images, ctx->input(1), align_corners_,
                                      half_pixel_centers_, &g));
    absl::StatusOr<Tensor*> out = AllocateResized(ctx, g);
    DFX_OP_REQUIRES_OK(ctx, out.status());
    if ((*out)->NumElements() == 0) return;
    const std::vector<Interp> ys =
        BilinearInterps(g.out_h, g.in_h, g.h_scale, half_pixel_centers_);
    const std::vector<Interp> xs =
        BilinearInterps(g.out_w, g.in_w, g.w_scale, half_pixel_centers_);
    const T* in = images.data<T>();
    float* o = (*out)->data<float>();
    const int64_t c_n = g.channels;
    ForEachRow(ctx, g.batch, g.out_h, g.out_w * c_n, [&](int64_t b, int64_t y) {
      const T* top = in + ((b * g.in_h) + ys[y].lower) * g.in_w * c_n;
      const T* bottom = in + ((b * g.in_h) + ys[y].upper) * g.in_w * c_n;
      const float y_lerp = ys[y].lerp;
      float* row = o + ((b * g.out_h) + y) * g.out_w * c_n;
      for (int64_t x = 0; x < g.out_w; ++x) {
        const int64_t l = xs[x].lower * c_n;
        const int64_t r = xs[x].upper * c_n;
        const float x_lerp = xs[x].lerp;
        for (int64_t c = 0; c < c_n; ++c) {
          const float tl = static_cast<float>(top[l + c]);
          const float tr = static_cast<float>(top[r + c]);
          const float bl = static_cast<float>(bottom[l + c]);
          const float br = static_cast<float>(bottom[r + c]);
          const float t = tl + (tr - tl) * x_lerp;
          const float bo = bl + (br - bl) * x_lerp;
          row[x * c_n + c] = t + (bo - t) * y_lerp;
        }
      }
    });
  }

 private:
  bool align_corners_ = false;
  bool half_pixel_centers_ = false;
};

// The geometry of a resize gradient: grads [batch, resized_h, resized_w,
// channels] back to the original image's [orig_h, orig_w].
struct GradGeom {
  int64_t batch = 0;
  int64_t channels = 0;
  int64_t resized_h = 0;
  int64_t resized_w = 0;
  int64_t orig_h = 0;
  int64_t orig_w = 0;
};

// TensorFlow's ImageResizerGradientState::ValidateAndCreateOutput checks,
// in its order, with its messages.
absl::Status ValidateResizeGrad(const Tensor& grads, const Tensor& original,
                                bool align_corners, bool half_pixel_centers,
                                GradGeom* g) {
  if (half_pixel_centers && align_corners) {
    return absl::InvalidArgumentError(
        "If half_pixel_centers is True, align_corners must be False.");
  }
  if (grads.dims() != 4) {
    return absl::InvalidArgumentError(absl::StrCat(
        "input_grad must be 4-dimensional", grads.shape().DebugString()));
  }
  if (original.dims() != 4) {
    return absl::InvalidArgumentError(
        absl::StrCat("original_image must be 4-dimensional",
                     original.shape().DebugString()));
  }
  g->batch = grads.dim_size(0);
  g->channels = grads.dim_size(3);
  g->resized_h = grads.dim_size(1);
  g->resized_w = grads.dim_size(2);
  g->orig_h = original.dim_size(1);
  g->orig_w = original.dim_size(2);
  if (g->resized_h <= 0 || g->resized_w <= 0) {
    return absl::InvalidArgumentError("resized dimensions must be positive");
  }
  if (g->orig_h <= 0 || g->orig_w <= 0) {
    return absl::InvalidArgumentError("original dimensions must be positive");
  }
  constexpr int64_t kInt32Max = std::numeric_limits<int32_t>::max();
  if (g->orig_h >= kInt32Max || g->orig_w >= kInt32Max) {
    return absl::InvalidArgumentError(
        "original sizes must be between 0 and max int32");
  }
  return absl::OkStatus();
}

template <typename T>
class ResizeBilinearGradOp : public OpKernel {
 public:
  explicit ResizeBilinearGradOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    ReadResizeAttrs(ctx, true, &align_corners_, &half_pixel_centers_);
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& grads = ctx->input(0);
    const Tensor& original = ctx->input(1);
    GradGeom g;
    DFX_OP_REQUIRES_OK(ctx, ValidateResizeGrad(grads, original, align_corners_,
                                               half_pixel_centers_, &g));
    const int64_t batch = g.batch;
    const int64_t channels = g.channels;
    const int64_t resized_h = g.resized_h;
    const int64_t resized_w = g.resized_w;
    const int64_t orig_h = g.orig_h;
    const int64_t orig_w = g.orig_w;
    Tensor* out = nullptr;
    DFX_OP_REQUIRES_OK(
        ctx,
        AllocateImageOutput(ctx, 0, {batch, orig_h, orig_w, channels}, &out));
    T* o = out->data<T>();
    std::fill(o, o + out->NumElements(), T(0));
    if (out->NumElements() == 0 || grads.NumElements() == 0) return;
    const float h_scale = ResizeScale(orig_h, resized_h, align_corners_);
    const float w_scale = ResizeScale(orig_w, resized_w, align_corners_);
    const std::vector<Interp> ys =
        BilinearInterps(resized_h, orig_h, h_scale, half_pixel_centers_);
    const std::vector<Interp> xs =
        BilinearInterps(resized_w, orig_w, w_scale, half_pixel_centers_);
    const float* in = grads.data<float>();
    // Each image scatters into its own output image: parallel over batch.
    const int64_t image_work = resized_h * resized_w * channels;
    ImageParallelFor(
        *ctx->device(), batch,
        Eigen::TensorOpCost(4 * image_work, 16 * image_work, 12 * image_work),
        [&](int64_t first, int64_t last) {
          for (int64_t b = first; b < last; ++b) {
            T* ob = o + b * orig_h * orig_w * channels;
            const float* ib = in + b * image_work;
            for (int64_t y = 0; y < resized_h; ++y) {
              const float y_lerp = ys[y].lerp;
              const float inv_y_lerp = 1.0f - y_lerp;
              T* top = ob + ys[y].lower * orig_w * channels;
              T* bottom = ob + ys[y].upper * orig_w * channels;
              for (int64_t x = 0; x < resized_w; ++x) {
                const float x_lerp = xs[x].lerp;
                const float inv_x_lerp = 1.0f - x_lerp;
                const int64_t l = xs[x].lower * channels;
                const int64_t r = xs[x].upper * channels;
                const float* g = ib + (y * resized_w + x) * channels;
                for (int64_t c = 0; c < channels; ++c) {
                  const float dtop = inv_y_lerp * g[c];
                  top[l + c] += static_cast<T>(dtop * inv_x_lerp);
                  top[r + c] += static_cast<T>(dtop * x_lerp);
                  const float dbottom = y_lerp * g[c];
                  bottom[l + c] += static_cast<T>(dbottom * inv_x_lerp);
                  bottom[r + c] += static_cast<T>(dbottom * x_lerp);
                }
              }
            }
          }
        });
  }

 private:
  bool align_corners_ = false;
  bool half_pixel_centers_ = false;
};

// ---------------------------------------------------------- nearest neighbor

template <typename T>
class ResizeNearestNeighborOp : public OpKernel {
 public:
  explicit ResizeNearestNeighborOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    ReadResizeAttrs(ctx, true, &align_corners_, &half_pixel_centers_);
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& images = ctx->input(0);
    ResizeGeom g;
    DFX_OP_REQUIRES_OK(ctx,
                       ValidateResize(images, ctx->input(1), align_corners_,
                                      half_pixel_centers_, &g));
    absl::StatusOr<Tensor*> out = AllocateResized(ctx, g);
    DFX_OP_REQUIRES_OK(ctx, out.status());
    if ((*out)->NumElements() == 0) return;
    std::vector<int64_t> xs(g.out_w);
    for (int64_t x = 0; x < g.out_w; ++x) {
      xs[x] = NearestIndex(x, g.w_scale, g.in_w, align_corners_,
                           half_pixel_centers_) *
              g.channels;
    }
    const T* in = images.data<T>();
    T* o = (*out)->data<T>();
    const int64_t c_n = g.channels;
    ForEachRow(ctx, g.batch, g.out_h, g.out_w * c_n, [&](int64_t b, int64_t y) {
      const int64_t in_y = NearestIndex(y, g.h_scale, g.in_h, align_corners_,
                                        half_pixel_centers_);
      const T* src = in + (b * g.in_h + in_y) * g.in_w * c_n;
      T* row = o + (b * g.out_h + y) * g.out_w * c_n;
      for (int64_t x = 0; x < g.out_w; ++x) {
        std::copy(src + xs[x], src + xs[x] + c_n, row + x * c_n);
      }
    });
  }

 private:
  bool align_corners_ = false;
  bool half_pixel_centers_ = false;
};

template <typename T>
class ResizeNearestNeighborGradOp : public OpKernel {
 public:
  explicit ResizeNearestNeighborGradOp(OpKernelConstruction* ctx)
      : OpKernel(ctx) {
    ReadResizeAttrs(ctx, true, &align_corners_, &half_pixel_centers_);
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& grads = ctx->input(0);
    const Tensor& size = ctx->input(1);
    // TensorFlow's gradient does not reject align_corners together with
    // half_pixel_centers; neither does this.
    DFX_OP_REQUIRES(
        ctx, grads.dims() == 4,
        absl::InvalidArgumentError(absl::StrCat("input must be 4-dimensional",
                                                grads.shape().DebugString())));
    DFX_OP_REQUIRES(
        ctx, size.dims() == 1,
        absl::InvalidArgumentError(absl::StrCat("shape_t must be 1-dimensional",
                                                size.shape().DebugString())));
    DFX_OP_REQUIRES(
        ctx, size.NumElements() == 2,
        absl::InvalidArgumentError(absl::StrCat(
            "shape_t must have two elements", size.shape().DebugString())));
    const int64_t out_h = size.data<int32_t>()[0];
    const int64_t out_w = size.data<int32_t>()[1];
    DFX_OP_REQUIRES(
        ctx, out_h > 0 && out_w > 0,
        absl::InvalidArgumentError("shape_t's elements must be positive"));
    const int64_t batch = grads.dim_size(0);
    const int64_t in_h = grads.dim_size(1);
    const int64_t in_w = grads.dim_size(2);
    const int64_t channels = grads.dim_size(3);
    Tensor* out = nullptr;
    DFX_OP_REQUIRES_OK(ctx, AllocateImageOutput(
                                ctx, 0, {batch, out_h, out_w, channels}, &out));
    T* o = out->data<T>();
    std::fill(o, o + out->NumElements(), T(0));
    if (out->NumElements() == 0) return;
    const float h_scale = ResizeScale(out_h, in_h, align_corners_);
    const float w_scale = ResizeScale(out_w, in_w, align_corners_);
    std::vector<int64_t> xs(in_w);
    for (int64_t x = 0; x < in_w; ++x) {
      xs[x] =
          NearestIndex(x, w_scale, out_w, align_corners_, half_pixel_centers_) *
          channels;
    }
    const T* in = grads.data<T>();
    const int64_t image_work = in_h * in_w * channels;
    ImageParallelFor(
        *ctx->device(), batch,
        Eigen::TensorOpCost(2 * image_work, 2 * image_work, image_work),
        [&](int64_t first, int64_t last) {
          for (int64_t b = first; b < last; ++b) {
            for (int64_t y = 0; y < in_h; ++y) {
              const int64_t out_y = NearestIndex(
                  y, h_scale, out_h, align_corners_, half_pixel_centers_);
              T* dst = o + (b * out_h + out_y) * out_w * channels;
              const T* src = in + (b * in_h + y) * in_w * channels;
              for (int64_t x = 0; x < in_w; ++x) {
                for (int64_t c = 0; c < channels; ++c) {
                  dst[xs[x] + c] += src[x * channels + c];
                }
              }
            }
          }
        });
  }

 private:
  bool align_corners_ = false;
  bool half_pixel_centers_ = false;
};

// ------------------------------------------------------------------ bicubic

constexpr int64_t kTableSize = 1024;

// The cubic convolution kernel's weights at kTableSize + 1 points of [0, 1]
// (entry 2i) and [1, 2] (entry 2i + 1), in float as TensorFlow tabulates
// them. a = -0.5 (Keys) with half_pixel_centers, else -0.75.
const float* CubicTable(bool keys) {
  static const std::vector<float>* tables = [] {
    auto* t = new std::vector<float>[2];
    for (int k = 0; k < 2; ++k) {
      const float a = k == 1 ? -0.5f : -0.75f;
      t[k].resize((kTableSize + 1) * 2);
      for (int64_t i = 0; i <= kTableSize; ++i) {
        float x = static_cast<float>(i * 1.0 / kTableSize);
        t[k][i * 2] = ((a + 2) * x - (a + 3)) * x * x + 1;
        x += 1.0;
        t[k][i * 2 + 1] = ((a * x - 5 * a) * x + 8 * a) * x - 4 * a;
      }
    }
    return t;
  }();
  return tables[keys ? 1 : 0].data();
}

struct CubicTap {
  float weight[4];
  int64_t index[4];
};

int64_t Bound(int64_t v, int64_t limit) {
  return std::min(limit - 1, std::max<int64_t>(0, v));
}

CubicTap CubicWeights(int64_t out_loc, float scale, int64_t limit,
                      bool half_pixel_centers) {
  const float in = half_pixel_centers ? HalfPixelScale(out_loc, scale)
                                      : LegacyScale(out_loc, scale);
  const float in_f = std::floor(in);
  const int64_t in_loc = static_cast<int64_t>(in_f);
  const int64_t offset = std::lrintf((in - in_f) * kTableSize);
  const float* table = CubicTable(half_pixel_centers);
  const float raw[4] = {table[offset * 2 + 1], table[offset * 2],
                        table[(kTableSize - offset) * 2],
                        table[(kTableSize - offset) * 2 + 1]};
  CubicTap t;
  for (int i = 0; i < 4; ++i) {
    t.index[i] = Bound(in_loc - 1 + i, limit);
    t.weight[i] = raw[i];
  }
  if (half_pixel_centers) {
    // Keys' kernel drops the taps that fall outside the image and
    // renormalizes the rest.
    for (int i = 0; i < 4; ++i) {
      if (t.index[i] != in_loc - 1 + i) t.weight[i] = 0.0f;
    }
    const float sum = t.weight[0] + t.weight[1] + t.weight[2] + t.weight[3];
    if (std::abs(sum) >= 1000.0f * std::numeric_limits<float>::min()) {
      const float inv = 1.0f / sum;
      for (float& w : t.weight) w *= inv;
    }
  }
  return t;
}

template <typename T>
float Cubic1D(const float* w, T v0, T v1, T v2, T v3) {
  return static_cast<float>(v0) * w[0] + static_cast<float>(v1) * w[1] +
         static_cast<float>(v2) * w[2] + static_cast<float>(v3) * w[3];
}

template <typename T>
class ResizeBicubicOp : public OpKernel {
 public:
  explicit ResizeBicubicOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    ReadResizeAttrs(ctx, true, &align_corners_, &half_pixel_centers_);
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& images = ctx->input(0);
    ResizeGeom g;
    DFX_OP_REQUIRES_OK(ctx,
                       ValidateResize(images, ctx->input(1), align_corners_,
                                      half_pixel_centers_, &g));
    absl::StatusOr<Tensor*> out = AllocateResized(ctx, g);
    DFX_OP_REQUIRES_OK(ctx, out.status());
    if ((*out)->NumElements() == 0) return;
    std::vector<CubicTap> xs(g.out_w);
    for (int64_t x = 0; x < g.out_w; ++x) {
      xs[x] = CubicWeights(x, g.w_scale, g.in_w, half_pixel_centers_);
    }
    const T* in = images.data<T>();
    float* o = (*out)->data<float>();
    const int64_t c_n = g.channels;
    ForEachRow(ctx, g.batch, g.out_h, 4 * g.out_w * c_n,
               [&](int64_t b, int64_t y) {
                 const CubicTap ty =
                     CubicWeights(y, g.h_scale, g.in_h, half_pixel_centers_);
                 const T* rows[4];
                 for (int i = 0; i < 4; ++i) {
                   rows[i] = in + (b * g.in_h + ty.index[i]) * g.in_w * c_n;
                 }
                 float* row = o + (b * g.out_h + y) * g.out_w * c_n;
                 for (int64_t x = 0; x < g.out_w; ++x) {
                   const CubicTap& tx = xs[x];
                   for (int64_t c = 0; c < c_n; ++c) {
                     // Down the four source columns first, then across, as
                     // TensorFlow.
                     float col[4];
                     for (int i = 0; i < 4; ++i) {
                       const int64_t k = tx.index[i] * c_n + c;
                       col[i] = Cubic1D(ty.weight, rows[0][k], rows[1][k],
                                        rows[2][k], rows[3][k]);
                     }
                     row[x * c_n + c] =
                         Cubic1D(tx.weight, col[0], col[1], col[2], col[3]);
                   }
                 }
               });
  }

 private:
  bool align_corners_ = false;
  bool half_pixel_centers_ = false;
};

// Each resized pixel was a weighted sum of 4 x 4 source pixels: the
// gradient flows back to each with the same weight, in TensorFlow's order
// (source rows, then columns) and in T.
template <typename T>
class ResizeBicubicGradOp : public OpKernel {
 public:
  explicit ResizeBicubicGradOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    ReadResizeAttrs(ctx, true, &align_corners_, &half_pixel_centers_);
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& grads = ctx->input(0);
    GradGeom g;
    DFX_OP_REQUIRES_OK(ctx,
                       ValidateResizeGrad(grads, ctx->input(1), align_corners_,
                                          half_pixel_centers_, &g));
    Tensor* out = nullptr;
    DFX_OP_REQUIRES_OK(
        ctx, AllocateImageOutput(
                 ctx, 0, {g.batch, g.orig_h, g.orig_w, g.channels}, &out));
    T* o = out->data<T>();
    std::fill(o, o + out->NumElements(), T(0));
    if (out->NumElements() == 0 || grads.NumElements() == 0) return;
    const float h_scale = ResizeScale(g.orig_h, g.resized_h, align_corners_);
    const float w_scale = ResizeScale(g.orig_w, g.resized_w, align_corners_);
    std::vector<CubicTap> xs(g.resized_w);
    for (int64_t x = 0; x < g.resized_w; ++x) {
      xs[x] = CubicWeights(x, w_scale, g.orig_w, half_pixel_centers_);
    }
    const float* in = grads.data<float>();
    const int64_t c_n = g.channels;
    const int64_t image_work = g.resized_h * g.resized_w * c_n;
    ImageParallelFor(
        *ctx->device(), g.batch,
        Eigen::TensorOpCost(4 * image_work, 64 * image_work, 48 * image_work),
        [&](int64_t first, int64_t last) {
          for (int64_t b = first; b < last; ++b) {
            T* ob = o + b * g.orig_h * g.orig_w * c_n;
            for (int64_t y = 0; y < g.resized_h; ++y) {
              const CubicTap ty =
                  CubicWeights(y, h_scale, g.orig_h, half_pixel_centers_);
              for (int64_t x = 0; x < g.resized_w; ++x) {
                const CubicTap& tx = xs[x];
                const float* gp =
                    in + ((b * g.resized_h + y) * g.resized_w + x) * c_n;
                for (int64_t c = 0; c < c_n; ++c) {
                  const T grad = static_cast<T>(gp[c]);
                  for (int i = 0; i < 4; ++i) {
                    T* row = ob + ty.index[i] * g.orig_w * c_n;
                    for (int j = 0; j < 4; ++j) {
                      row[tx.index[j] * c_n + c] +=
                          static_cast<T>(grad * ty.weight[i] * tx.weight[j]);
                    }
                  }
                }
              }
            }
          }
        });
  }

 private:
  bool align_corners_ = false;
  bool half_pixel_centers_ = false;
};

// --------------------------------------------------------------------- area

// The source cells one output cell covers along one axis, with the length
// of each inside the cell.
struct AreaSpan {
  std::vector<int64_t> index;
  std::vector<float> weight;
};

AreaSpan AreaCells(int64_t out, float scale, int64_t in_size) {
  AreaSpan s;
  const float start = static_cast<float>(out) * scale;
  const float end = static_cast<float>(out + 1) * scale;
  const int64_t first = static_cast<int64_t>(std::floor(start));
  const int64_t last = static_cast<int64_t>(std::ceil(end));
  for (int64_t i = first; i < last; ++i) {
    float w;
    if (static_cast<float>(i) < start) {
      w = static_cast<float>(i + 1) > end ? scale
                                          : static_cast<float>(i + 1) - start;
    } else {
      w = static_cast<float>(i + 1) > end ? end - static_cast<float>(i) : 1.0f;
    }
    s.index.push_back(Bound(i, in_size));
    s.weight.push_back(w);
  }
  return s;
}

template <typename T>
class ResizeAreaOp : public OpKernel {
 public:
  explicit ResizeAreaOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    ReadResizeAttrs(ctx, false, &align_corners_, &half_pixel_centers_);
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& images = ctx->input(0);
    ResizeGeom g;
    DFX_OP_REQUIRES_OK(
        ctx, ValidateResize(images, ctx->input(1), align_corners_, false, &g));
    absl::StatusOr<Tensor*> out = AllocateResized(ctx, g);
    DFX_OP_REQUIRES_OK(ctx, out.status());
    if ((*out)->NumElements() == 0) return;
    std::vector<AreaSpan> xs(g.out_w);
    for (int64_t x = 0; x < g.out_w; ++x) {
      xs[x] = AreaCells(x, g.w_scale, g.in_w);
    }
    const float scale = 1.0f / (g.h_scale * g.w_scale);
    const T* in = images.data<T>();
    float* o = (*out)->data<float>();
    const int64_t c_n = g.channels;
    ForEachRow(
        ctx, g.batch, g.out_h, 4 * g.out_w * c_n, [&](int64_t b, int64_t y) {
          const AreaSpan ys = AreaCells(y, g.h_scale, g.in_h);
          float* row = o + (b * g.out_h + y) * g.out_w * c_n;
          for (int64_t x = 0; x < g.out_w; ++x) {
            const AreaSpan& sx = xs[x];
            for (int64_t c = 0; c < c_n; ++c) {
              float sum_y = 0;
              for (size_t i = 0; i < ys.index.size(); ++i) {
                const T* src = in + (b * g.in_h + ys.index[i]) * g.in_w * c_n;
                float sum_x = 0;
                for (size_t j = 0; j < sx.index.size(); ++j) {
                  sum_x += static_cast<float>(src[sx.index[j] * c_n + c]) *
                           sx.weight[j];
                }
                sum_y += sum_x * ys.weight[i];
              }
              row[x * c_n + c] = sum_y * scale;
            }
          }
        });
  }

 private:
  bool align_corners_ = false;
  bool half_pixel_centers_ = false;
};

template <template <typename> class Op, typename... Ts>
void RegisterAll(KernelRegistry* registry, const char* name) {
  (RegisterKernel<Op<Ts>>(registry,
                          KernelDefBuilder(name).TypeConstraint<Ts>("T")),
   ...);
}

}  // namespace

void RegisterResizeKernels(KernelRegistry* registry) {
  RegisterAll<ResizeBilinearOp, int8_t, uint8_t, int16_t, uint16_t, int32_t,
              int64_t, half, float, double, bfloat16>(registry,
                                                      "ResizeBilinear");
  RegisterAll<ResizeNearestNeighborOp, int8_t, uint8_t, int16_t, uint16_t,
              int32_t, int64_t, half, float, double, bfloat16>(
      registry, "ResizeNearestNeighbor");
  RegisterAll<ResizeBicubicOp, int8_t, uint8_t, int16_t, uint16_t, int32_t,
              int64_t, half, float, double, bfloat16>(registry,
                                                      "ResizeBicubic");
  RegisterAll<ResizeAreaOp, int8_t, uint8_t, int16_t, uint16_t, int32_t,
              int64_t, half, float, double, bfloat16>(registry, "ResizeArea");
  RegisterAll<ResizeBicubicGradOp, float, double>(registry,
                                                  "ResizeBicubicGrad");
  RegisterAll<ResizeBilinearGradOp, float, bfloat16, half, double>(
      registry, "ResizeBilinearGrad");
  RegisterAll<ResizeNearestNeighborGradOp, uint8_t, int8_t, int32_t, half,
              float, double, bfloat16>(registry, "ResizeNearestNeighborGrad");
}

}  // namespace dfx
