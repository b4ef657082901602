// MaxPool, AvgPool, MaxPoolGrad and AvgPoolGrad on a GPU (float, double;
// NHWC, as the CPU kernels), with the CPU kernels' attrs, geometry and
// messages (kernels/conv/pool_util.h) and direct CUDA kernels
// (gpu/kernels/pool_gpu.cu). A window across the depth dimension runs on
// the CPU only.
#include <vector>

#include "absl/strings/str_cat.h"
#include "gpu/cuda_status.h"
#include "gpu/kernels/gpu_kernel_util.h"
#include "gpu/kernels/gpu_kernels.h"
#include "gpu/kernels/pool_gpu.h"
#include "graph/types.h"
#include "kernels/conv/pool_util.h"

namespace dfx::gpu {
namespace {

using conv_internal::PoolAttrs;
using conv_internal::PoolGeom;

PoolShape ShapeOf(const PoolGeom& g) {
  PoolShape s;
  s.batch = g.batch;
  s.in_rows = g.in_rows;
  s.in_cols = g.in_cols;
  s.depth = g.depth;
  s.out_rows = g.out_rows;
  s.out_cols = g.out_cols;
  s.window_rows = g.window_rows;
  s.window_cols = g.window_cols;
  s.stride_rows = g.stride_rows;
  s.stride_cols = g.stride_cols;
  s.pad_top = g.pad_top;
  s.pad_left = g.pad_left;
  return s;
}

absl::Status Launched(cudaError_t e) {
  return CudaStatus(e, "launching the pooling kernel");
}

// MaxPool or AvgPool.
class PoolGpuOp : public OpKernel {
 public:
  PoolGpuOp(OpKernelConstruction* ctx, bool max) : OpKernel(ctx), max_(max) {
    ctx->SetStatus(conv_internal::ReadPoolAttrs(
        *ctx, max ? "MaxPoolingOp" : "AvgPoolingOp", true, &attrs_));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& input = ctx->input(0);
    PoolGeom g;
    DFX_OP_REQUIRES_OK(ctx, conv_internal::MakePoolGeom(input.shape(), attrs_,
                                                        false, &g));
    absl::StatusOr<TensorShape> shape = g.OutputShape();
    DFX_OP_REQUIRES_OK(ctx, shape.status());
    Tensor* output = nullptr;
    DFX_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, *shape, &output));
    if (output->NumElements() == 0) return;
    GpuLaunch launch(*ctx);
    DFX_OP_REQUIRES_OK(ctx, launch.status());
    const PoolShape s = ShapeOf(g);
    DFX_OP_REQUIRES_OK(
        ctx, Launched(input.dtype() == DT_FLOAT
                          ? LaunchPool(launch.stream(), s, max_,
                                       input.data<float>(),
                                       output->data<float>())
                          : LaunchPool(launch.stream(), s, max_,
                                       input.data<double>(),
                                       output->data<double>())));
  }

 private:
  const bool max_;
  PoolAttrs attrs_;
};

// MaxPoolGrad(orig_input, orig_output, grad) or AvgPoolGrad(orig_input_shape
// (host memory), grad).
class PoolGradGpuOp : public OpKernel {
 public:
  PoolGradGpuOp(OpKernelConstruction* ctx, bool max)
      : OpKernel(ctx), max_(max) {
    ctx->SetStatus(conv_internal::ReadPoolAttrs(
        *ctx, max ? "MaxPoolingGradOp" : "AvgPoolingGradOp", true, &attrs_));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& grad = ctx->input(max_ ? 2 : 1);
    DFX_OP_REQUIRES(
        ctx, grad.dims() == 4,
        absl::InvalidArgumentError("out_backprop must be 4-dimensional"));
    TensorShape in_shape;
    if (max_) {
      DFX_OP_REQUIRES(ctx, ctx->input(0).dims() == 4,
                      absl::InvalidArgumentError(
                          "tensor_in must be 4-dimensional"));
      DFX_OP_REQUIRES(ctx, ctx->input(1).dims() == 4,
                      absl::InvalidArgumentError(
                          "tensor_out must be 4-dimensional"));
      in_shape = ctx->input(0).shape();
    } else {
      const Tensor& sizes = ctx->input(0);
      DFX_OP_REQUIRES(
          ctx, sizes.dims() == 1 && sizes.NumElements() == 4,
          absl::InvalidArgumentError(
              "out_backprop must be 1-dimensional and 4 elements"));
      std::vector<int64_t> dims(sizes.span<int32_t>().begin(),
                                sizes.span<int32_t>().end());
      absl::StatusOr<TensorShape> shape = TensorShape::Build(dims);
      DFX_OP_REQUIRES_OK(ctx, shape.status());
      in_shape = *shape;
    }
    DFX_OP_REQUIRES(ctx, attrs_.ksize[3] == 1 && attrs_.strides[3] == 1,
                    absl::UnimplementedError(
                        "MaxPoolingGrad is not yet supported on the depth "
                        "dimension."));
    PoolGeom g;
    DFX_OP_REQUIRES_OK(ctx, conv_internal::MakePoolGeom(in_shape, attrs_,
                                                        false, &g));
    absl::StatusOr<TensorShape> expected = g.OutputShape();
    DFX_OP_REQUIRES_OK(ctx, expected.status());
    if (max_) {
      DFX_OP_REQUIRES(
          ctx, ctx->input(1).shape() == *expected,
          absl::InvalidArgumentError(absl::StrCat(
              "Expected orig_output shape to be ", expected->DebugString(),
              ", but got ", ctx->input(1).shape().DebugString())));
    }
    DFX_OP_REQUIRES(
        ctx, grad.shape() == *expected,
        absl::InvalidArgumentError(absl::StrCat(
            "Expected grad shape to be ", expected->DebugString(),
            ", but got ", grad.shape().DebugString())));
    Tensor* output = nullptr;
    DFX_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, in_shape, &output));
    if (output->NumElements() == 0) return;
    GpuLaunch launch(*ctx);
    DFX_OP_REQUIRES_OK(ctx, launch.status());
    const PoolShape s = ShapeOf(g);
    const void* in = max_ ? ctx->input(0).raw_data() : nullptr;
    DFX_OP_REQUIRES_OK(
        ctx, Launched(grad.dtype() == DT_FLOAT
                          ? LaunchPoolGrad(launch.stream(), s, max_,
                                           static_cast<const float*>(in),
                                           grad.data<float>(),
                                           output->data<float>())
                          : LaunchPoolGrad(launch.stream(), s, max_,
                                           static_cast<const double*>(in),
                                           grad.data<double>(),
                                           output->data<double>())));
  }

 private:
  const bool max_;
  PoolAttrs attrs_;
};

}  // namespace

void RegisterGpuPoolKernels(KernelRegistry* registry) {
  const DataTypeVector types = {DT_FLOAT, DT_DOUBLE};
  for (bool max : {true, false}) {
    RegisterWith<PoolGpuOp>(registry,
                            KernelDefBuilder(max ? "MaxPool" : "AvgPool")
                                .Device("GPU")
                                .TypeConstraint("T", types),
                            max);
  }
  RegisterWith<PoolGradGpuOp>(
      registry,
      KernelDefBuilder("MaxPoolGrad").Device("GPU").TypeConstraint("T", types),
      true);
  RegisterWith<PoolGradGpuOp>(registry,
                              KernelDefBuilder("AvgPoolGrad")
                                  .Device("GPU")
                                  .TypeConstraint("T", types)
                                  .HostMemory("orig_input_shape"),
                              false);
}

}  // namespace dfx::gpu
