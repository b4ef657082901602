// DrawBoundingBoxes and DrawBoundingBoxesV2 (colors input) on CPU, for
// float and half images of depth 1, 3 or 4: each box's outline in the
// image, box k in color k modulo the table (TensorFlow's ten default colors
// when none are given). Edges sit at trunc(coordinate * (size - 1)) in
// float, as TensorFlow's; inverted boxes and boxes wholly outside the image
// are skipped, and edges outside it are left out.
#include <algorithm>
#include <cstdint>
#include <vector>

#include "absl/strings/str_cat.h"
#include "kernels/eigen_util.h"
#include "kernels/image/image2_kernels.h"
#include "runtime/op_kernel.h"

namespace dfx {
namespace {

using Eigen::half;

std::vector<std::vector<float>> DefaultColors(int64_t depth) {
  std::vector<std::vector<float>> table = {
      {1, 1, 0, 1},     {0, 0, 1, 1},     {1, 0, 0, 1},   {0, 1, 0, 1},
      {0.5, 0, 0.5, 1}, {0.5, 0.5, 0, 1}, {0.5, 0, 0, 1}, {0, 0, 0.5, 1},
      {0, 1, 1, 1},     {1, 0, 1, 1}};
  if (depth == 1) {
    for (auto& c : table) c[0] = 1;
  }
  return table;
}

class DrawBoundingBoxesOp : public OpKernel {
 public:
  using OpKernel::OpKernel;

  void Compute(OpKernelContext* ctx) override {
    const Tensor& images = ctx->input(0);
    const Tensor& boxes = ctx->input(1);
    DFX_OP_REQUIRES(
        ctx, images.dims() == 4,
        absl::InvalidArgumentError("The rank of the images should be 4"));
    DFX_OP_REQUIRES(
        ctx, boxes.dims() == 3,
        absl::InvalidArgumentError("The rank of the boxes tensor should be 3"));
    DFX_OP_REQUIRES(
        ctx, images.dim_size(0) == boxes.dim_size(0),
        absl::InvalidArgumentError("The batch sizes should be the same"));
    const int64_t depth = images.dim_size(3);
    DFX_OP_REQUIRES(ctx, depth == 4 || depth == 1 || depth == 3,
                    absl::InvalidArgumentError(
                        "Channel depth should be either 1 (GRY), 3 (RGB), or "
                        "4 (RGBA)"));
    DFX_OP_REQUIRES(
        ctx, boxes.dim_size(2) == 4,
        absl::InvalidArgumentError(absl::StrCat(
            "The size of the third dimension of the box must be 4. Received: ",
            boxes.dim_size(2))));
    std::vector<std::vector<float>> table;
    if (ctx->num_inputs() == 3) {
      const Tensor& colors = ctx->input(2);
      DFX_OP_REQUIRES(
          ctx, colors.dims() == 2,
          absl::InvalidArgumentError(absl::StrCat(
              "colors must be a 2-D matrix", colors.shape().DebugString())));
      DFX_OP_REQUIRES(
          ctx, colors.dim_size(1) >= depth,
          absl::InvalidArgumentError(absl::StrCat(
              "colors must have equal or more channels than the image "
              "provided: ",
              colors.shape().DebugString())));
      const float* cv = colors.data<float>();
      if (colors.NumElements() != 0) {
        for (int64_t i = 0; i < colors.dim_size(0); ++i) {
          const float* row = cv + i * colors.dim_size(1);
          table.emplace_back(row, row + depth);
        }
      }
    }
    if (table.empty()) table = DefaultColors(depth);
    Tensor* out = nullptr;
    DFX_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, images.shape(), &out));
    if (images.dtype() == DT_HALF) {
      Draw<half>(images, boxes, table, out);
    } else {
      Draw<float>(images, boxes, table, out);
    }
  }

 private:
  template <typename T>
  static void Draw(const Tensor& images, const Tensor& boxes,
                   const std::vector<std::vector<float>>& table, Tensor* out) {
    const int64_t batch = images.dim_size(0);
    const int64_t height = images.dim_size(1);
    const int64_t width = images.dim_size(2);
    const int64_t depth = images.dim_size(3);
    const T* in = images.data<T>();
    T* o = out->data<T>();
    std::copy(in, in + images.NumElements(), o);
    const int64_t num_boxes = boxes.dim_size(1);
    const float* bx = boxes.data<float>();
    // Truncates coordinate * (size - 1), computed in float, to an integer.
    auto edge = [](float v, int64_t size) {
      return static_cast<int64_t>(v * static_cast<float>(size - 1));
    };
    for (int64_t b = 0; b < batch; ++b) {
      T* canvas = o + b * height * width * depth;
      for (int64_t k = 0; k < num_boxes; ++k) {
        const float* box = bx + (b * num_boxes + k) * 4;
        const std::vector<float>& color = table[k % table.size()];
        const int64_t min_row = edge(box[0], height);
        const int64_t max_row = edge(box[2], height);
        const int64_t min_col = edge(box[1], width);
        const int64_t max_col = edge(box[3], width);
        if (min_row > max_row || min_col > max_col) continue;
        if (min_row >= height || max_row < 0 || min_col >= width ||
            max_col < 0) {
          continue;
        }
        const int64_t row_lo = std::max<int64_t>(min_row, 0);
        const int64_t row_hi = std::min<int64_t>(max_row, height - 1);
        const int64_t col_lo = std::max<int64_t>(min_col, 0);
        const int64_t col_hi = std::min<int64_t>(max_col, width - 1);
        auto paint = [&](int64_t r, int64_t c) {
          T* px = canvas + (r * width + c) * depth;
          for (int64_t d = 0; d < depth; ++d) px[d] = static_cast<T>(color[d]);
        };
        if (min_row >= 0) {
          for (int64_t c = col_lo; c <= col_hi; ++c) paint(min_row, c);
        }
        if (max_row < height) {
          for (int64_t c = col_lo; c <= col_hi; ++c) paint(max_row, c);
        }
        if (min_col >= 0) {
          for (int64_t r = row_lo; r <= row_hi; ++r) paint(r, min_col);
        }
        if (max_col < width) {
          for (int64_t r = row_lo; r <= row_hi; ++r) paint(r, max_col);
        }
      }
    }
  }
};

}  // namespace

void RegisterDrawBoundingBoxesKernels(KernelRegistry* registry) {
  for (const char* op : {"DrawBoundingBoxes", "DrawBoundingBoxesV2"}) {
    RegisterKernel<DrawBoundingBoxesOp>(
        registry,
        KernelDefBuilder(op).TypeConstraint("T", {DT_HALF, DT_FLOAT}));
  }
}

}  // namespace dfx
