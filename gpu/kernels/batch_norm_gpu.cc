// FusedBatchNorm (V1, V2, V3) and FusedBatchNormGrad (V1, V2, V3) on a GPU
// for float x (V2 and V3 also float16 and bfloat16 x; U float), in NHWC,
// NCHW, NDHWC or NCDHW, with the CPU kernels' checks, messages and numbers
// (gpu/kernels/batch_norm_gpu.cu).
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <type_traits>

#include "absl/strings/str_cat.h"
#include "gpu/cuda_status.h"
#include "gpu/kernels/array_gpu.h"
#include "gpu/kernels/batch_norm_gpu.h"
#include "gpu/kernels/dtype_dispatch.h"
#include "gpu/kernels/gpu_kernel_util.h"
#include "gpu/kernels/gpu_kernels.h"
#include "graph/types.h"
#include "kernels/conv/batch_norm_checks.h"

namespace dfx::gpu {
namespace {

using conv_internal::BnLayout;

BnShape ShapeOf(const BnLayout& l) {
  BnShape s;
  s.outer = l.outer;
  s.channels = l.channels;
  s.inner = l.inner;
  return s;
}

absl::Status Fill(cudaStream_t stream, Tensor* t, float value) {
  uint32_t bits;
  std::memcpy(&bits, &value, 4);
  return CudaStatus(
      LaunchFillValue(stream, t->raw_data(), t->NumElements(), 4, bits),
      "filling");
}

class BatchNormGpuOp : public OpKernel {
 public:
  explicit BatchNormGpuOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    ctx->SetStatus(ctx->GetAttr("epsilon", &epsilon_));
    ctx->SetStatus(ctx->GetAttr("is_training", &is_training_));
    ctx->SetStatus(conv_internal::ReadBnFormat(*ctx, &channel_first_));
    if (FindNodeAttr(ctx->def(), "exponential_avg_factor") != nullptr) {
      ctx->SetStatus(ctx->GetAttr("exponential_avg_factor", &factor_));
    }
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& x = ctx->input(0);
    const Tensor& scale = ctx->input(1);
    const Tensor& offset = ctx->input(2);
    const Tensor& est_mean = ctx->input(3);
    const Tensor& est_var = ctx->input(4);
    BnLayout layout;
    DFX_OP_REQUIRES_OK(ctx, conv_internal::CheckBatchNormInputs(
                                *ctx, channel_first_, is_training_, factor_,
                                &layout));
    const BnShape s = ShapeOf(layout);
    const bool uses_running = !is_training_ || factor_ != 1.0f;
    Tensor* y = nullptr;
    Tensor* stats[4] = {};
    DFX_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, x.shape(), &y));
    for (int i = 0; i < 4; ++i) {
      DFX_OP_REQUIRES_OK(ctx,
                         ctx->allocate_output(i + 1, scale.shape(), &stats[i]));
    }
    GpuLaunch launch(*ctx);
    DFX_OP_REQUIRES_OK(ctx, launch.status());
    if (num_outputs() == 6) {  // V3's reserve_space_3: one zero, as the CPU
      Tensor* reserve = nullptr;
      DFX_OP_REQUIRES_OK(ctx,
                         ctx->allocate_output(5, TensorShape({1}), &reserve));
      DFX_OP_REQUIRES_OK(ctx, Fill(launch.stream(), reserve, 0));
    }
    if (x.NumElements() == 0) {
      // As TensorFlow: the statistics of nothing are NaN.
      for (Tensor* t : stats) {
        DFX_OP_REQUIRES_OK(
            ctx, Fill(launch.stream(), t,
                      std::numeric_limits<float>::quiet_NaN()));
      }
      return;
    }
    Tensor sums;
    DFX_OP_REQUIRES_OK(ctx, ctx->allocate_temp(
                                DT_DOUBLE, TensorShape({2 * s.channels}),
                                &sums));
    const cudaError_t e = ByFloatType(x.dtype(), [&](auto t) {
      using T = decltype(t);
      if constexpr (std::is_same_v<T, double>) {
        return cudaErrorInvalidValue;  // not registered
      } else {
        return LaunchBatchNorm(
            launch.stream(), s, static_cast<const T*>(x.raw_data()),
            scale.data<float>(), offset.data<float>(),
            uses_running ? est_mean.data<float>() : nullptr,
            uses_running ? est_var.data<float>() : nullptr, epsilon_, factor_,
            is_training_, static_cast<T*>(y->raw_data()),
            stats[0]->data<float>(), stats[1]->data<float>(),
            stats[2]->data<float>(), stats[3]->data<float>(),
            sums.data<double>());
      }
    });
    DFX_OP_REQUIRES_OK(ctx, CudaStatus(e, "launching the batch normalization"));
  }

 private:
  float epsilon_ = 1e-4f;
  float factor_ = 1.0f;
  bool is_training_ = true;
  bool channel_first_ = false;
};

class BatchNormGradGpuOp : public OpKernel {
 public:
  explicit BatchNormGradGpuOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    ctx->SetStatus(ctx->GetAttr("epsilon", &epsilon_));
    ctx->SetStatus(ctx->GetAttr("is_training", &is_training_));
    ctx->SetStatus(conv_internal::ReadBnFormat(*ctx, &channel_first_));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& dy = ctx->input(0);
    const Tensor& x = ctx->input(1);
    const Tensor& scale = ctx->input(2);
    const Tensor& mean = ctx->input(3);
    const Tensor& var = ctx->input(4);
    BnLayout layout;
    DFX_OP_REQUIRES_OK(ctx, conv_internal::CheckBatchNormGradInputs(
                                *ctx, channel_first_, &layout));
    const BnShape s = ShapeOf(layout);
    Tensor* dx = nullptr;
    Tensor* dscale = nullptr;
    Tensor* doffset = nullptr;
    Tensor* placeholder = nullptr;
    DFX_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, x.shape(), &dx));
    DFX_OP_REQUIRES_OK(ctx, ctx->allocate_output(1, scale.shape(), &dscale));
    DFX_OP_REQUIRES_OK(ctx, ctx->allocate_output(2, scale.shape(), &doffset));
    DFX_OP_REQUIRES_OK(ctx,
                       ctx->allocate_output(3, TensorShape({0}), &placeholder));
    DFX_OP_REQUIRES_OK(ctx,
                       ctx->allocate_output(4, TensorShape({0}), &placeholder));
    GpuLaunch launch(*ctx);
    DFX_OP_REQUIRES_OK(ctx, launch.status());
    if (x.NumElements() == 0) {
      DFX_OP_REQUIRES_OK(ctx, Fill(launch.stream(), dscale, 0));
      DFX_OP_REQUIRES_OK(ctx, Fill(launch.stream(), doffset, 0));
      return;
    }
    Tensor sums;
    DFX_OP_REQUIRES_OK(ctx, ctx->allocate_temp(
                                DT_DOUBLE, TensorShape({2 * s.channels}),
                                &sums));
    const cudaError_t e = ByFloatType(x.dtype(), [&](auto t) {
      using T = decltype(t);
      if constexpr (std::is_same_v<T, double>) {
        return cudaErrorInvalidValue;  // not registered
      } else {
        return LaunchBatchNormGrad(
            launch.stream(), s, static_cast<const T*>(dy.raw_data()),
            static_cast<const T*>(x.raw_data()), scale.data<float>(),
            mean.data<float>(), var.data<float>(), epsilon_, is_training_,
            static_cast<T*>(dx->raw_data()), dscale->data<float>(),
            doffset->data<float>(), sums.data<double>());
      }
    });
    DFX_OP_REQUIRES_OK(
        ctx, CudaStatus(e, "launching the batch normalization gradient"));
  }

 private:
  float epsilon_ = 1e-4f;
  bool is_training_ = true;
  bool channel_first_ = false;
};

}  // namespace

void RegisterGpuBatchNormKernels(KernelRegistry* registry) {
  const DataTypeVector f32 = {DT_FLOAT};
  const DataTypeVector mixed = {DT_FLOAT, DT_HALF, DT_BFLOAT16};
  RegisterKernel<BatchNormGpuOp>(
      registry,
      KernelDefBuilder("FusedBatchNorm").Device("GPU").TypeConstraint("T", f32));
  RegisterKernel<BatchNormGradGpuOp>(
      registry, KernelDefBuilder("FusedBatchNormGrad")
                    .Device("GPU")
                    .TypeConstraint("T", f32));
  for (const char* op : {"FusedBatchNormV2", "FusedBatchNormV3"}) {
    RegisterKernel<BatchNormGpuOp>(registry, KernelDefBuilder(op)
                                                 .Device("GPU")
                                                 .TypeConstraint("T", mixed)
                                                 .TypeConstraint("U", f32));
  }
  for (const char* op : {"FusedBatchNormGradV2", "FusedBatchNormGradV3"}) {
    RegisterKernel<BatchNormGradGpuOp>(registry, KernelDefBuilder(op)
                                                     .Device("GPU")
                                                     .TypeConstraint("T", mixed)
                                                     .TypeConstraint("U", f32));
  }
}

}  // namespace dfx::gpu
