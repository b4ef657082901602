// MaxPool, MaxPoolV2, AvgPool, MaxPoolGrad, MaxPoolGradV2 and AvgPoolGrad
// on a GPU (float, double, float16, bfloat16; NHWC and NCHW, as
// TensorFlow's GPU kernels), with the CPU kernels' attrs, geometry and
// messages (kernels/conv/pool_util.h) and direct CUDA kernels
// (gpu/kernels/pool_gpu.cu). A window across the depth dimension runs on
// the CPU only.
#include <vector>

#include "absl/strings/str_cat.h"
#include "gpu/cuda_status.h"
#include "gpu/kernels/dtype_dispatch.h"
#include "gpu/kernels/gpu_kernel_util.h"
#include "gpu/kernels/gpu_kernels.h"
#include "gpu/kernels/pool_gpu.h"
#include "graph/types.h"
#include "kernels/conv/pool_util.h"

namespace dfx::gpu {
namespace {

using conv_internal::PoolAttrs;
using conv_internal::PoolGeom;

PoolShape ShapeOf(const PoolGeom& g, bool nchw) {
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
  s.nchw = nchw;
  return s;
}

// A 4-D shape in NHWC order (the geometry's), from the tensor's layout.
TensorShape AsNhwc(const TensorShape& shape, bool nchw) {
  if (!nchw || shape.dims() != 4) return shape;
  return TensorShape({shape.dim_size(0), shape.dim_size(2), shape.dim_size(3),
                      shape.dim_size(1)});
}
// The output's shape in the tensors' layout.
absl::StatusOr<TensorShape> OutputShape(const PoolGeom& g, bool nchw) {
  if (!nchw) return g.OutputShape();
  return TensorShape::Build({g.batch, g.out_depth, g.out_rows, g.out_cols});
}

absl::Status Launched(cudaError_t e) {
  return CudaStatus(e, "launching the pooling kernel");
}

// V2's ksize and strides (host memory inputs) into `attrs`, in NHWC order.
absl::Status WindowOf(const Tensor& ksize, const Tensor& strides, bool nchw,
                      PoolAttrs* attrs) {
  DFX_RETURN_IF_ERROR(conv_internal::WindowFromInputs(ksize, strides, attrs));
  if (nchw) {
    attrs->ksize = conv_internal::NchwToNhwc(attrs->ksize);
    attrs->strides = conv_internal::NchwToNhwc(attrs->strides);
  }
  return absl::OkStatus();
}

// MaxPool, MaxPoolV2 (ksize and strides as inputs 1 and 2) or AvgPool.
class PoolGpuOp : public OpKernel {
 public:
  PoolGpuOp(OpKernelConstruction* ctx, bool max, bool v2)
      : OpKernel(ctx), max_(max), v2_(v2) {
    ctx->SetStatus(conv_internal::ReadPoolAttrsAnyFormat(
        *ctx, max ? "MaxPoolingOp" : "AvgPoolingOp", !v2, &attrs_, &nchw_));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& input = ctx->input(0);
    PoolAttrs attrs = attrs_;
    if (v2_) {
      DFX_OP_REQUIRES_OK(ctx,
                         WindowOf(ctx->input(1), ctx->input(2), nchw_, &attrs));
    }
    PoolGeom g;
    DFX_OP_REQUIRES_OK(
        ctx, conv_internal::MakePoolGeom(AsNhwc(input.shape(), nchw_), attrs,
                                         /*allow_depth=*/false, &g));
    absl::StatusOr<TensorShape> shape = OutputShape(g, nchw_);
    DFX_OP_REQUIRES_OK(ctx, shape.status());
    Tensor* output = nullptr;
    DFX_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, *shape, &output));
    if (output->NumElements() == 0) return;
    GpuLaunch launch(*ctx);
    DFX_OP_REQUIRES_OK(ctx, launch.status());
    const PoolShape s = ShapeOf(g, nchw_);
    DFX_OP_REQUIRES_OK(ctx, Launched(ByFloatType(input.dtype(), [&](auto t) {
                         using T = decltype(t);
                         return LaunchPool(
                             launch.stream(), s, max_,
                             static_cast<const T*>(input.raw_data()),
                             static_cast<T*>(output->raw_data()));
                       })));
  }

 private:
  const bool max_;
  const bool v2_;
  PoolAttrs attrs_;
  bool nchw_ = false;
};

// MaxPoolGrad(orig_input, orig_output, grad), MaxPoolGradV2 (the same and
// ksize, strides) or AvgPoolGrad(orig_input_shape (host memory), grad).
class PoolGradGpuOp : public OpKernel {
 public:
  PoolGradGpuOp(OpKernelConstruction* ctx, bool max, bool v2)
      : OpKernel(ctx), max_(max), v2_(v2) {
    ctx->SetStatus(conv_internal::ReadPoolAttrsAnyFormat(
        *ctx, max ? "MaxPoolingGradOp" : "AvgPoolingGradOp", !v2, &attrs_,
        &nchw_));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& grad = ctx->input(max_ ? 2 : 1);
    DFX_OP_REQUIRES(
        ctx, grad.dims() == 4,
        absl::InvalidArgumentError("out_backprop must be 4-dimensional"));
    TensorShape in_shape;  // in the tensors' layout
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
    PoolAttrs attrs = attrs_;
    if (v2_) {
      DFX_OP_REQUIRES_OK(ctx,
                         WindowOf(ctx->input(3), ctx->input(4), nchw_, &attrs));
    }
    DFX_OP_REQUIRES(ctx, attrs.ksize[3] == 1 && attrs.strides[3] == 1,
                    absl::UnimplementedError(
                        "MaxPoolingGrad is not yet supported on the depth "
                        "dimension."));
    PoolGeom g;
    DFX_OP_REQUIRES_OK(
        ctx, conv_internal::MakePoolGeom(AsNhwc(in_shape, nchw_), attrs,
                                         /*allow_depth=*/false, &g));
    absl::StatusOr<TensorShape> expected = OutputShape(g, nchw_);
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
    const PoolShape s = ShapeOf(g, nchw_);
    const void* in = max_ ? ctx->input(0).raw_data() : nullptr;
    DFX_OP_REQUIRES_OK(ctx, Launched(ByFloatType(grad.dtype(), [&](auto t) {
                         using T = decltype(t);
                         return LaunchPoolGrad(
                             launch.stream(), s, max_,
                             static_cast<const T*>(in),
                             static_cast<const T*>(grad.raw_data()),
                             static_cast<T*>(output->raw_data()));
                       })));
  }

 private:
  const bool max_;
  const bool v2_;
  PoolAttrs attrs_;
  bool nchw_ = false;
};

}  // namespace

void RegisterGpuPoolKernels(KernelRegistry* registry) {
  const DataTypeVector types = {DT_FLOAT, DT_DOUBLE, DT_HALF, DT_BFLOAT16};
  for (bool max : {true, false}) {
    RegisterWith<PoolGpuOp>(registry,
                            KernelDefBuilder(max ? "MaxPool" : "AvgPool")
                                .Device("GPU")
                                .TypeConstraint("T", types),
                            max, false);
  }
  RegisterWith<PoolGpuOp>(registry,
                          KernelDefBuilder("MaxPoolV2")
                              .Device("GPU")
                              .TypeConstraint("T", types)
                              .HostMemory("ksize")
                              .HostMemory("strides"),
                          true, true);
  RegisterWith<PoolGradGpuOp>(
      registry,
      KernelDefBuilder("MaxPoolGrad").Device("GPU").TypeConstraint("T", types),
      true, false);
  RegisterWith<PoolGradGpuOp>(registry,
                              KernelDefBuilder("MaxPoolGradV2")
                                  .Device("GPU")
                                  .TypeConstraint("T", types)
                                  .HostMemory("ksize")
                                  .HostMemory("strides"),
                              true, true);
  RegisterWith<PoolGradGpuOp>(registry,
                              KernelDefBuilder("AvgPoolGrad")
                                  .Device("GPU")
                                  .TypeConstraint("T", types)
                                  .HostMemory("orig_input_shape"),
                              false, false);
}

}  // namespace dfx::gpu
