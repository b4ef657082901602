// LRN (local response normalization across the depth dim of NHWC input) and
// its gradient LRNGrad on CPU, for float and half (TensorFlow's CPU types),
// computed in float one pixel's depth row at a time.
//
//   sqr_sum[d] = sum of in[k]^2 for k in [d - r, d + r] within the row
//   out[d] = in[d] * (bias + alpha * sqr_sum[d])^-beta
#include "kernels/nn/nn_util.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "absl/strings/str_cat.h"
#include "base/status_macros.h"

namespace dfx::nn_internal {
namespace {

using Eigen::half;

// The attrs both ops share, read and checked once.
struct LrnParams {
  int64_t depth_radius = 5;
  float bias = 1;
  float alpha = 1;
  float beta = 0.5f;

  absl::Status Read(const OpKernelConstruction& ctx) {
    DFX_RETURN_IF_ERROR(ctx.GetAttr("depth_radius", &depth_radius));
    DFX_RETURN_IF_ERROR(ctx.GetAttr("bias", &bias));
    DFX_RETURN_IF_ERROR(ctx.GetAttr("alpha", &alpha));
    DFX_RETURN_IF_ERROR(ctx.GetAttr("beta", &beta));
    if (depth_radius < 0 ||
        depth_radius > std::numeric_limits<int32_t>::max()) {
      // TensorFlow's wording, for negative radii too.
      return absl::InvalidArgumentError(absl::StrCat(
          "depth_radius = ", depth_radius, " larger than int max"));
    }
    return absl::OkStatus();
  }

  // n^-beta, exact for the common betas.
  float PowNeg(float n) const {
    if (beta == 0.5f) return 1.0f / std::sqrt(n);
    if (beta == 1.0f) return 1.0f / n;
    return std::pow(n, -beta);
  }

  // bias + alpha * (sum of squares of row[k] for k in d's window).
  template <typename T>
  float Norm(const T* row, int64_t depth, int64_t d) const {
    const int64_t lo = std::max<int64_t>(0, d - depth_radius);
    const int64_t hi = std::min<int64_t>(depth, d + depth_radius + 1);
    float sum = 0;
    for (int64_t k = lo; k < hi; ++k) {
      const float v = static_cast<float>(row[k]);
      sum += v * v;
    }
    return bias + alpha * sum;
  }
};

// The cost of one depth row for ParallelForBlocks.
Eigen::TensorOpCost RowCost(int64_t depth, int64_t radius, size_t bytes) {
  const double window =
      static_cast<double>(std::min<int64_t>(depth, 2 * radius + 1));
  return Eigen::TensorOpCost(static_cast<double>(depth * bytes),
                             static_cast<double>(depth * bytes),
                             static_cast<double>(depth) * (2 * window + 20));
}

template <typename T>
class LrnOp : public OpKernel {
 public:
  explicit LrnOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    ctx->SetStatus(params_.Read(*ctx));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& in = ctx->input(0);
    DFX_OP_REQUIRES(ctx, in.dims() == 4,
                    absl::InvalidArgumentError("in must be 4-dimensional"));
    DFX_OP_REQUIRES(ctx,
                    in.NumElements() <= std::numeric_limits<int32_t>::max(),
                    absl::InvalidArgumentError("argument to LRN too large"));
    Tensor* out = nullptr;
    DFX_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, in.shape(), &out));
    const int64_t depth = in.dim_size(3);
    if (in.NumElements() == 0) return;
    const int64_t rows = in.NumElements() / depth;
    const T* x = in.data<T>();
    T* y = out->data<T>();
    const LrnParams& p = params_;
    ParallelForBlocks(
        *ctx->device(), rows, RowCost(depth, p.depth_radius, sizeof(T)),
        [&](int64_t first, int64_t last) {
          for (int64_t r = first; r < last; ++r) {
            const T* row = x + r * depth;
            T* out_row = y + r * depth;
            for (int64_t d = 0; d < depth; ++d) {
              out_row[d] = static_cast<T>(static_cast<float>(row[d]) *
                                          p.PowNeg(p.Norm(row, depth, d)));
            }
          }
        });
  }

 private:
  LrnParams params_;
};

// d(loss)/d(in) from input_grads (d(loss)/d(out)), input_image (LRN's input)
// and output_image (LRN's output): for each d and each k in d's window,
//   grad_in[k] += grads[d] * ([k == d] * norm_d^-beta
//                             - 2 * alpha * beta * in[k] * out[d] / norm_d).
template <typename T>
class LrnGradOp : public OpKernel {
 public:
  explicit LrnGradOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    ctx->SetStatus(params_.Read(*ctx));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& grads = ctx->input(0);
    const Tensor& in = ctx->input(1);
    const Tensor& out_image = ctx->input(2);
    DFX_OP_REQUIRES(
        ctx, grads.dims() == 4 && in.dims() == 4,
        absl::InvalidArgumentError("inputs must be 4-dimensional"));
    DFX_OP_REQUIRES(
        ctx, in.shape() == grads.shape() && out_image.shape() == grads.shape(),
        absl::InvalidArgumentError(
            "input_grads, input_image, and out_image should have the same "
            "shape"));
    Tensor* out = nullptr;
    DFX_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, grads.shape(), &out));
    const int64_t depth = grads.dim_size(3);
    if (grads.NumElements() == 0) return;
    const int64_t rows = grads.NumElements() / depth;
    const T* g = grads.data<T>();
    const T* x = in.data<T>();
    const T* act = out_image.data<T>();
    T* result = out->data<T>();
    const LrnParams& p = params_;
    ParallelForBlocks(
        *ctx->device(), rows, RowCost(depth, p.depth_radius, 3 * sizeof(T)),
        [&](int64_t first, int64_t last) {
          std::vector<float> acc(depth);
          for (int64_t r = first; r < last; ++r) {
            const T* g_row = g + r * depth;
            const T* x_row = x + r * depth;
            const T* a_row = act + r * depth;
            std::fill(acc.begin(), acc.end(), 0.0f);
            for (int64_t d = 0; d < depth; ++d) {
              const float norm = p.Norm(x_row, depth, d);
              const float pow_neg = p.PowNeg(norm);
              const float gd = static_cast<float>(g_row[d]);
              const float common = -2.0f * p.alpha * p.beta *
                                   static_cast<float>(a_row[d]) / norm;
              const int64_t lo = std::max<int64_t>(0, d - p.depth_radius);
              const int64_t hi =
                  std::min<int64_t>(depth, d + p.depth_radius + 1);
              for (int64_t k = lo; k < hi; ++k) {
                acc[k] += gd * common * static_cast<float>(x_row[k]);
              }
              acc[d] += gd * pow_neg;
            }
            T* out_row = result + r * depth;
            for (int64_t d = 0; d < depth; ++d) {
              out_row[d] = static_cast<T>(acc[d]);
            }
          }
        });
  }

 private:
  LrnParams params_;
};

}  // namespace

void RegisterLrnKernels(KernelRegistry* registry) {
  RegisterKernel<LrnOp<float>>(
      registry, KernelDefBuilder("LRN").TypeConstraint<float>("T"));
  RegisterKernel<LrnOp<half>>(
      registry, KernelDefBuilder("LRN").TypeConstraint<half>("T"));
  RegisterKernel<LrnGradOp<float>>(
      registry, KernelDefBuilder("LRNGrad").TypeConstraint<float>("T"));
  RegisterKernel<LrnGradOp<half>>(
      registry, KernelDefBuilder("LRNGrad").TypeConstraint<half>("T"));
}

}  // namespace dfx::nn_internal
