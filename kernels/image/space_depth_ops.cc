// DepthToSpace and SpaceToDepth (NHWC, as TensorFlow's CPU kernels), and
// SpaceToBatchND and BatchToSpaceND on CPU.
//
// All four only move elements. SpaceToBatchND and BatchToSpaceND treat the
// dims after the block dims as one contiguous run copied whole; output
// batch ob holds input batch ob % batch at the block offset ob / batch
// (row-major over the block dims), as TensorFlow orders them.
#include <algorithm>
#include <complex>
#include <cstdint>
#include <string>
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

template <typename T>
Eigen::TensorOpCost CopyCost(int64_t n) {
  return Eigen::TensorOpCost(n * sizeof(T), n * sizeof(T), n);
}

// block_size and data_format; TensorFlow registers only NHWC on CPU, so a
// graph asking for another layout finds no CPU kernel, as there.
absl::Status ReadBlockAttrs(OpKernelConstruction* ctx, const char* op,
                            int64_t* block_size) {
  std::string format;
  DFX_RETURN_IF_ERROR(ctx->GetAttr("block_size", block_size));
  DFX_RETURN_IF_ERROR(ctx->GetAttr("data_format", &format));
  if (*block_size <= 1) {
    return absl::InvalidArgumentError(
        absl::StrCat("Block size should be > 1, but was: ", *block_size));
  }
  if (format != "NHWC") {
    return absl::NotFoundError(
        absl::StrCat("No CPU kernel for ", op, " with data_format ", format,
                     ": TensorFlow's CPU kernel takes NHWC only"));
  }
  return absl::OkStatus();
}

template <typename T>
class DepthToSpaceOp : public OpKernel {
 public:
  explicit DepthToSpaceOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    ctx->SetStatus(ReadBlockAttrs(ctx, "DepthToSpace", &block_));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& input = ctx->input(0);
    DFX_OP_REQUIRES(ctx, input.dims() == 4,
                    absl::InvalidArgumentError(absl::StrCat(
                        "Input rank should be: 4 instead of: ", input.dims())));
    const int64_t batch = input.dim_size(0);
    const int64_t in_h = input.dim_size(1);
    const int64_t in_w = input.dim_size(2);
    const int64_t in_d = input.dim_size(3);
    int64_t block_sq = 0;
    DFX_OP_REQUIRES_OK(ctx, CheckedMul(block_, block_, &block_sq));
    DFX_OP_REQUIRES(ctx, in_d % block_sq == 0,
                    absl::InvalidArgumentError(
                        absl::StrCat("Input depth dimension ", in_d,
                                     " should be divisible by: ", block_sq)));
    const int64_t out_d = in_d / block_sq;
    int64_t out_h = 0;
    int64_t out_w = 0;
    DFX_OP_REQUIRES_OK(ctx, CheckedMul(in_h, block_, &out_h));
    DFX_OP_REQUIRES_OK(ctx, CheckedMul(in_w, block_, &out_w));
    Tensor* out = nullptr;
    DFX_OP_REQUIRES_OK(
        ctx, AllocateImageOutput(ctx, 0, {batch, out_h, out_w, out_d}, &out));
    if (out->NumElements() == 0) return;
    const T* in = input.data<T>();
    T* o = out->data<T>();
    // One output row (b, y) takes, for each x, out_d contiguous depths of
    // input pixel (y / block, x / block) at depth offset
    // ((y % block) * block + x % block) * out_d.
    ImageParallelFor(
        *ctx->device(), batch * out_h, CopyCost<T>(out_w * out_d),
        [&](int64_t first, int64_t last) {
          for (int64_t r = first; r < last; ++r) {
            const int64_t b = r / out_h;
            const int64_t y = r % out_h;
            const T* src = in + ((b * in_h + y / block_) * in_w) * in_d +
                           (y % block_) * block_ * out_d;
            T* dst = o + r * out_w * out_d;
            for (int64_t x = 0; x < out_w; ++x) {
              const T* s = src + (x / block_) * in_d + (x % block_) * out_d;
              std::copy(s, s + out_d, dst + x * out_d);
            }
          }
        });
  }

 private:
  int64_t block_ = 2;
};

template <typename T>
class SpaceToDepthOp : public OpKernel {
 public:
  explicit SpaceToDepthOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    ctx->SetStatus(ReadBlockAttrs(ctx, "SpaceToDepth", &block_));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& input = ctx->input(0);
    DFX_OP_REQUIRES(ctx, input.dims() == 4,
                    absl::InvalidArgumentError(absl::StrCat(
                        "Input rank should be 4 instead of ", input.dims())));
    const int64_t batch = input.dim_size(0);
    const int64_t in_h = input.dim_size(1);
    const int64_t in_w = input.dim_size(2);
    const int64_t in_d = input.dim_size(3);
    DFX_OP_REQUIRES(ctx, in_w % block_ == 0 && in_h % block_ == 0,
                    absl::InvalidArgumentError(absl::StrCat(
                        "Image width ", in_w, " and height ", in_h,
                        " should be divisible by block_size: ", block_)));
    const int64_t out_h = in_h / block_;
    const int64_t out_w = in_w / block_;
    int64_t block_sq = 0;
    int64_t out_d = 0;
    DFX_OP_REQUIRES_OK(ctx, CheckedMul(block_, block_, &block_sq));
    DFX_OP_REQUIRES_OK(ctx, CheckedMul(in_d, block_sq, &out_d));
    Tensor* out = nullptr;
    DFX_OP_REQUIRES_OK(
        ctx, AllocateImageOutput(ctx, 0, {batch, out_h, out_w, out_d}, &out));
    if (out->NumElements() == 0) return;
    const T* in = input.data<T>();
    T* o = out->data<T>();
    // Input row (b, y) scatters pixel x's in_d depths to output pixel
    // (y / block, x / block) at depth ((y % block) * block + x % block) * in_d.
    ImageParallelFor(
        *ctx->device(), batch * in_h, CopyCost<T>(in_w * in_d),
        [&](int64_t first, int64_t last) {
          for (int64_t r = first; r < last; ++r) {
            const int64_t b = r / in_h;
            const int64_t y = r % in_h;
            const T* src = in + r * in_w * in_d;
            T* dst = o + ((b * out_h + y / block_) * out_w) * out_d +
                     (y % block_) * block_ * in_d;
            for (int64_t x = 0; x < in_w; ++x) {
              std::copy(src + x * in_d, src + (x + 1) * in_d,
                        dst + (x / block_) * out_d + (x % block_) * in_d);
            }
          }
        });
  }

 private:
  int64_t block_ = 2;
};

// The values of an int32 or int64 tensor.
std::vector<int64_t> IntValues(const Tensor& t) {
  std::vector<int64_t> v(t.NumElements());
  for (int64_t i = 0; i < t.NumElements(); ++i) {
    v[i] = t.dtype() == DT_INT32 ? t.data<int32_t>()[i] : t.data<int64_t>()[i];
  }
  return v;
}

// What SpaceToBatchND and BatchToSpaceND share once validated: the block
// shape, per block dim the padding (or crop) at its start, the spatial
// sizes of the space-side tensor and of the batch-side tensor, the space
// side's batch and the length of the copied run after the block dims.
struct BatchSpaceGeom {
  std::vector<int64_t> block;
  std::vector<int64_t> start;
  std::vector<int64_t> space;       // spatial dims of the space-side tensor
  std::vector<int64_t> batch_side;  // spatial dims of the batch-side tensor
  int64_t space_batch = 0;
  int64_t run = 1;
};

absl::Status CheckBlockArgs(const Tensor& input, const Tensor& block_shape,
                            const Tensor& pads, const char* pads_name) {
  if (block_shape.dims() != 1) {
    return absl::InvalidArgumentError(absl::StrCat(
        "block_shape rank should be 1 instead of ", block_shape.dims()));
  }
  const int64_t m = block_shape.dim_size(0);
  if (input.dims() < 1 + m) {
    return absl::InvalidArgumentError(absl::StrCat(
        "input rank should be >= ", 1 + m, " instead of ", input.dims()));
  }
  if (pads.dims() != 2 || pads.dim_size(0) != m || pads.dim_size(1) != 2) {
    return absl::InvalidArgumentError(
        absl::StrCat(pads_name, " should have shape [", m, ", 2] instead of ",
                     pads.shape().DebugString()));
  }
  return absl::OkStatus();
}

// Runs fn(row, space_index) over every run of the space-side tensor in
// batch-side order: `row` counts runs of the batch-side tensor
// [block product * space batch, batch_side..., run]; space_index is the
// flat run index in the space-side tensor [space batch, space..., run], or
// -1 where the batch-side run lies in the padding.
template <typename Fn>
void ForEachBatchRun(const Device& device, const BatchSpaceGeom& g,
                     int64_t cost_bytes, Fn&& fn) {
  const size_t m = g.block.size();
  int64_t rows_per_batch = 1;
  for (int64_t d : g.batch_side) rows_per_batch *= d;
  int64_t block_product = 1;
  for (int64_t b : g.block) block_product *= b;
  const int64_t rows = block_product * g.space_batch * rows_per_batch;
  ImageParallelFor(
      device, rows, Eigen::TensorOpCost(cost_bytes, cost_bytes, g.run),
      [&](int64_t first, int64_t last) {
        std::vector<int64_t> pos(m);
        for (int64_t row = first; row < last; ++row) {
          int64_t rest = row % rows_per_batch;
          const int64_t ob = row / rows_per_batch;
          for (size_t i = m; i-- > 0;) {
            pos[i] = rest % g.batch_side[i];
            rest /= g.batch_side[i];
          }
          const int64_t b = ob % g.space_batch;
          int64_t offset = ob / g.space_batch;
          int64_t index = 0;
          int64_t stride = 1;
          bool inside = true;
          for (size_t i = m; i-- > 0;) {
            const int64_t off = offset % g.block[i];
            offset /= g.block[i];
            const int64_t s = pos[i] * g.block[i] + off - g.start[i];
            if (s < 0 || s >= g.space[i]) inside = false;
            index += s * stride;
            stride *= g.space[i];
          }
          fn(row, inside ? b * stride + index : int64_t{-1});
        }
      });
}

// SpaceToBatch and BatchToSpace (v1) are the ND ops on 4-D input with a
// square block: block_size (an attr) for them, 0 for the ND ops.
int64_t V1BlockSize(OpKernelConstruction* ctx) {
  int64_t b = 0;
  const std::string& op = ctx->def().op();
  if (op == "SpaceToBatch" || op == "BatchToSpace") {
    ctx->SetStatus(ctx->GetAttr("block_size", &b));
  }
  return b;
}

// The block_shape and paddings (or crops) tensors: the ND ops' inputs 1 and
// 2, or v1's [block_size, block_size] and input 1.
absl::Status BlockInputs(OpKernelContext* ctx, int64_t v1_block, Tensor* block,
                         Tensor* pads) {
  if (v1_block == 0) {
    *block = ctx->input(1);
    *pads = ctx->input(2);
    return absl::OkStatus();
  }
  if (ctx->input(0).dims() != 4) {
    return absl::InvalidArgumentError(absl::StrCat(
        "Input rank should be: 4 instead of: ", ctx->input(0).dims()));
  }
  *block = Tensor::FromVector<int64_t>({v1_block, v1_block});
  *pads = ctx->input(1);
  return absl::OkStatus();
}

template <typename T>
class SpaceToBatchNdOp : public OpKernel {
 public:
  explicit SpaceToBatchNdOp(OpKernelConstruction* ctx)
      : OpKernel(ctx), v1_block_(V1BlockSize(ctx)) {}

  void Compute(OpKernelContext* ctx) override {
    const Tensor& input = ctx->input(0);
    Tensor block_t, paddings_t;
    DFX_OP_REQUIRES_OK(ctx, BlockInputs(ctx, v1_block_, &block_t, &paddings_t));
    DFX_OP_REQUIRES_OK(ctx, CheckBlockArgs(input, block_t, paddings_t, "paddings"));
    const std::vector<int64_t> block = IntValues(block_t);
    const std::vector<int64_t> pads = IntValues(paddings_t);
    const int m = static_cast<int>(block.size());
    int64_t product = 1;
    for (int i = 0; i < m; ++i) {
      DFX_OP_REQUIRES(ctx, block[i] >= 1,
                      absl::InvalidArgumentError(absl::StrCat(
                          "All values in block_shape must be positive, got "
                          "value, ",
                          block[i], " at index ", i, ".")));
      DFX_OP_REQUIRES_OK(ctx, CheckedMul(product, block[i], &product));
    }
    BatchSpaceGeom g;
    g.block = block;
    g.space_batch = input.dim_size(0);
    TensorShape out_shape;
    int64_t out_batch = 0;
    DFX_OP_REQUIRES_OK(ctx, CheckedMul(g.space_batch, product, &out_batch));
    DFX_OP_REQUIRES_OK(ctx, out_shape.AddDim(out_batch));
    for (int i = 0; i < m; ++i) {
      const int64_t pad_start = pads[2 * i];
      const int64_t pad_end = pads[2 * i + 1];
      DFX_OP_REQUIRES(
          ctx, pad_start >= 0 && pad_end >= 0,
          absl::InvalidArgumentError("Paddings must be non-negative"));
      const int64_t size = input.dim_size(i + 1);
      int64_t padded = 0;
      DFX_OP_REQUIRES(
          ctx,
          !__builtin_add_overflow(size, pad_start, &padded) &&
              !__builtin_add_overflow(padded, pad_end, &padded),
          absl::InvalidArgumentError("Padded size overflows int64"));
      DFX_OP_REQUIRES(
          ctx, padded % block[i] == 0,
          absl::InvalidArgumentError(absl::StrCat(
              "padded_shape[", i, "]=", padded,
              " is not divisible by block_shape[", i, "]=", block[i])));
      g.start.push_back(pad_start);
      g.space.push_back(size);
      g.batch_side.push_back(padded / block[i]);
      DFX_OP_REQUIRES_OK(ctx, out_shape.AddDim(padded / block[i]));
    }
    for (int i = 1 + m; i < input.dims(); ++i) {
      g.run *= input.dim_size(i);
      DFX_OP_REQUIRES_OK(ctx, out_shape.AddDim(input.dim_size(i)));
    }
    Tensor* out = nullptr;
    DFX_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, out_shape, &out));
    if (out->NumElements() == 0) return;
    const T* in = input.data<T>();
    T* o = out->data<T>();
    const int64_t run = g.run;
    ForEachBatchRun(*ctx->device(), g, run * sizeof(T),
                    [&](int64_t row, int64_t src) {
                      T* dst = o + row * run;
                      if (src < 0) {
                        std::fill(dst, dst + run, T());
                      } else {
                        std::copy(in + src * run, in + (src + 1) * run, dst);
                      }
                    });
  }

 private:
  const int64_t v1_block_;  // 0 for the ND op
};

template <typename T>
class BatchToSpaceNdOp : public OpKernel {
 public:
  explicit BatchToSpaceNdOp(OpKernelConstruction* ctx)
      : OpKernel(ctx), v1_block_(V1BlockSize(ctx)) {}

  void Compute(OpKernelContext* ctx) override {
    const Tensor& input = ctx->input(0);
    Tensor block_t, crops_t;
    DFX_OP_REQUIRES_OK(ctx, BlockInputs(ctx, v1_block_, &block_t, &crops_t));
    DFX_OP_REQUIRES_OK(ctx, CheckBlockArgs(input, block_t, crops_t, "crops"));
    const std::vector<int64_t> block = IntValues(block_t);
    const std::vector<int64_t> crops = IntValues(crops_t);
    const int m = static_cast<int>(block.size());
    int64_t product = 1;
    for (int i = 0; i < m; ++i) {
      // Block sizes of either sign: only an overflowing product is refused
      // here.
      DFX_OP_REQUIRES(
          ctx, !__builtin_mul_overflow(product, block[i], &product),
          absl::InvalidArgumentError("Product of block sizes overflows int64"));
    }
    DFX_OP_REQUIRES(
        ctx, product > 0,
        absl::InvalidArgumentError(absl::StrCat(
            "Product of block sizes must be positive, got ", product)));
    const int64_t in_batch = input.dim_size(0);
    DFX_OP_REQUIRES(
        ctx, in_batch % product == 0,
        absl::InvalidArgumentError(absl::StrCat(
            "Input batch dimension (", in_batch,
            ") is not divisible by product of block sizes (", product, ")")));
    BatchSpaceGeom g;
    g.block = block;
    g.space_batch = in_batch / product;
    TensorShape out_shape;
    DFX_OP_REQUIRES_OK(ctx, out_shape.AddDim(g.space_batch));
    for (int i = 0; i < m; ++i) {
      const int64_t crop_start = crops[2 * i];
      const int64_t crop_end = crops[2 * i + 1];
      DFX_OP_REQUIRES(ctx, crop_start >= 0 && crop_end >= 0,
                      absl::InvalidArgumentError("Crops must be non-negative"));
      const int64_t size = input.dim_size(i + 1);
      int64_t cropped = 0;
      DFX_OP_REQUIRES(
          ctx,
          !__builtin_mul_overflow(size, block[i], &cropped) &&
              !__builtin_sub_overflow(cropped, crop_start, &cropped) &&
              !__builtin_sub_overflow(cropped, crop_end, &cropped),
          absl::InvalidArgumentError("Uncropped size overflows int64"));
      DFX_OP_REQUIRES(
          ctx, cropped >= 0,
          absl::InvalidArgumentError(absl::StrCat(
              "cropped_shape[", i, "]=", cropped, " must be non-negative")));
      // A negative block size whose product is positive leaves a negative
      // cropped size above unless the dim is empty; an empty dim makes the
      // output empty, so no index below divides by it.
      g.start.push_back(crop_start);
      g.space.push_back(cropped);
      g.batch_side.push_back(size);
      DFX_OP_REQUIRES_OK(ctx, out_shape.AddDim(cropped));
    }
    for (int i = 1 + m; i < input.dims(); ++i) {
      g.run *= input.dim_size(i);
      DFX_OP_REQUIRES_OK(ctx, out_shape.AddDim(input.dim_size(i)));
    }
    Tensor* out = nullptr;
    DFX_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, out_shape, &out));
    if (out->NumElements() == 0) return;
    for (int64_t b : block) {
      // Unreachable with a non-empty output (see above); kept so a bad
      // block size can never index out of bounds.
      DFX_OP_REQUIRES(ctx, b >= 1,
                      absl::InvalidArgumentError(
                          "All values in block_shape must be positive"));
    }
    const T* in = input.data<T>();
    T* o = out->data<T>();
    const int64_t run = g.run;
    // The batch-side runs that land inside the crop window are the output.
    ForEachBatchRun(
        *ctx->device(), g, run * sizeof(T), [&](int64_t row, int64_t dst) {
          if (dst < 0) return;
          std::copy(in + row * run, in + (row + 1) * run, o + dst * run);
        });
  }

 private:
  const int64_t v1_block_;  // 0 for the ND op
};

template <template <typename> class Op, typename... Ts>
void RegisterTyped(KernelRegistry* registry, const char* name) {
  (RegisterKernel<Op<Ts>>(registry,
                          KernelDefBuilder(name).TypeConstraint<Ts>("T")),
   ...);
}

}  // namespace

void RegisterSpaceDepthKernels(KernelRegistry* registry) {
  RegisterTyped<DepthToSpaceOp, float, double, half, bfloat16, int8_t, uint8_t,
                int16_t, uint16_t, int32_t, int64_t, uint32_t, uint64_t, bool,
                std::complex<float>, std::complex<double>, std::string>(
      registry, "DepthToSpace");
  RegisterTyped<SpaceToDepthOp, float, double, half, bfloat16, int8_t, uint8_t,
                int16_t, uint16_t, int32_t, int64_t, uint32_t, uint64_t, bool,
                std::complex<float>, std::complex<double>, std::string>(
      registry, "SpaceToDepth");
  RegisterTyped<SpaceToBatchNdOp, float, double, half, bfloat16, int8_t,
                uint8_t, int16_t, uint16_t, int32_t, int64_t, uint32_t,
                uint64_t>(registry, "SpaceToBatchND");
  RegisterTyped<BatchToSpaceNdOp, float, double, half, bfloat16, int8_t,
                uint8_t, int16_t, uint16_t, int32_t, int64_t, uint32_t,
                uint64_t>(registry, "BatchToSpaceND");
  RegisterTyped<SpaceToBatchNdOp, float, double, half, bfloat16, int8_t,
                uint8_t, int16_t, uint16_t, int32_t, int64_t, uint32_t,
                uint64_t>(registry, "SpaceToBatch");
  RegisterTyped<BatchToSpaceNdOp, float, double, half, bfloat16, int8_t,
                uint8_t, int16_t, uint16_t, int32_t, int64_t, uint32_t,
                uint64_t>(registry, "BatchToSpace");
}

}  // namespace dfx
