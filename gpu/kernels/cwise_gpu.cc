// Element-wise ops on a GPU (float, double, float16, bfloat16; the 16-bit
// types computed in float): the unary functions, the binary ops with NumPy
// broadcasting (kernels/broadcast.h reduces the iteration;
// gpu/kernels/cwise_gpu.cu runs it), BiasAdd as a broadcast add, ReluGrad,
// BiasAddGrad, AddN; and Identity, StopGradient and PreventGradient, which
// only forward.
#include <utility>

#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "gpu/cuda_status.h"
#include "gpu/kernels/cwise_gpu.h"
#include "gpu/kernels/dtype_dispatch.h"
#include "gpu/kernels/gpu_kernel_util.h"
#include "gpu/kernels/gpu_kernels.h"
#include "graph/types.h"
#include "kernels/broadcast.h"
#include "kernels/nn/bias_add_shape.h"

namespace dfx::gpu {
namespace {

const DataTypeVector kTypes = {DT_FLOAT, DT_DOUBLE, DT_HALF, DT_BFLOAT16};

class UnaryGpuOp : public OpKernel {
 public:
  UnaryGpuOp(OpKernelConstruction* ctx, UnaryOp op) : OpKernel(ctx), op_(op) {}

  void Compute(OpKernelContext* ctx) override {
    absl::StatusOr<GpuDevice*> device = GpuDeviceOf(*ctx);
    DFX_OP_REQUIRES_OK(ctx, device.status());
    const Tensor& in = ctx->input(0);
    Tensor* out = nullptr;
    DFX_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, in.shape(), &out));
    cudaStream_t stream = (*device)->compute_stream()->get();
    ScopedActivateDevice activate((*device)->cuda_ordinal());
    DFX_OP_REQUIRES_OK(ctx, activate.status());
    const cudaError_t e = ByFloatType(in.dtype(), [&](auto zero) {
      using T = decltype(zero);
      return LaunchUnary(stream, op_, static_cast<const T*>(in.raw_data()),
                         static_cast<T*>(out->raw_data()), in.NumElements());
    });
    DFX_OP_REQUIRES_OK(ctx, CudaStatus(e, "launching the kernel"));
  }

 private:
  const UnaryOp op_;
};

// `a` op `b` into `out` (the broadcast shape), on `device`.
absl::Status RunBinary(GpuDevice* device, BinaryOp op, const Broadcast& bcast,
                       const Tensor& a, const Tensor& b, Tensor* out) {
  BroadcastIteration it;
  it.same_shape = bcast.IsIdentity(0) && bcast.IsIdentity(1);
  const auto& dims = bcast.reduced_dims();
  if (static_cast<int>(dims.size()) > kMaxCwiseDims) {
    return absl::UnimplementedError(absl::StrCat(
        "broadcasting ", a.shape().DebugString(), " with ",
        b.shape().DebugString(), " needs ", dims.size(),
        " dims on a GPU, which takes ", kMaxCwiseDims));
  }
  it.rank = static_cast<int>(dims.size());
  for (int d = 0; d < it.rank; ++d) {
    it.dims[d] = dims[d];
    it.a_strides[d] = bcast.reduced_strides(0)[d];
    it.b_strides[d] = bcast.reduced_strides(1)[d];
  }
  ScopedActivateDevice activate(device->cuda_ordinal());
  DFX_RETURN_IF_ERROR(activate.status());
  cudaStream_t stream = device->compute_stream()->get();
  const int64_t n = bcast.num_elements();
  const cudaError_t e = ByFloatType(a.dtype(), [&](auto zero) {
    using T = decltype(zero);
    return LaunchBinary(stream, op, it, static_cast<const T*>(a.raw_data()),
                        static_cast<const T*>(b.raw_data()),
                        static_cast<T*>(out->raw_data()), n);
  });
  return CudaStatus(e, "launching the kernel");
}

class BinaryGpuOp : public OpKernel {
 public:
  BinaryGpuOp(OpKernelConstruction* ctx, BinaryOp op)
      : OpKernel(ctx), op_(op) {}

  void Compute(OpKernelContext* ctx) override {
    absl::StatusOr<GpuDevice*> device = GpuDeviceOf(*ctx);
    DFX_OP_REQUIRES_OK(ctx, device.status());
    const Tensor& a = ctx->input(0);
    const Tensor& b = ctx->input(1);
    if (op_ == BinaryOp::kReluGrad) {  // no broadcasting
      DFX_OP_REQUIRES(ctx, a.shape() == b.shape(),
                      absl::InvalidArgumentError(absl::StrCat(
                          "gradients and features must have the same shape: ",
                          a.shape().DebugString(), " vs. ",
                          b.shape().DebugString())));
    }
    absl::StatusOr<Broadcast> bcast = Broadcast::Make(a.shape(), b.shape());
    DFX_OP_REQUIRES_OK(ctx, bcast.status());
    Tensor* out = nullptr;
    DFX_OP_REQUIRES_OK(ctx,
                       ctx->allocate_output(0, bcast->output_shape(), &out));
    DFX_OP_REQUIRES_OK(ctx, RunBinary(*device, op_, *bcast, a, b, out));
  }

 private:
  const BinaryOp op_;
};

// BiasAdd (NHWC or NCHW) and BiasAddV1: value + bias broadcast along the
// channel dim.
class BiasAddGpuOp : public OpKernel {
 public:
  explicit BiasAddGpuOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    ctx->SetStatus(ParseBiasAddFormat(ctx->def(), &nchw_));
  }

  void Compute(OpKernelContext* ctx) override {
    absl::StatusOr<GpuDevice*> device = GpuDeviceOf(*ctx);
    DFX_OP_REQUIRES_OK(ctx, device.status());
    const Tensor& value = ctx->input(0);
    const Tensor& bias = ctx->input(1);
    DFX_OP_REQUIRES_OK(
        ctx, CheckBiasAddShapes(value.shape(), bias.shape(), nchw_));
    // NCHW: the bias as [C, 1, ..., 1] against [N, C, H, W, ...].
    TensorShape bias_shape({bias.dim_size(0)});
    for (int d = 2; nchw_ && d < value.dims(); ++d) {
      DFX_OP_REQUIRES_OK(ctx, bias_shape.AddDim(1));
    }
    absl::StatusOr<Broadcast> bcast = Broadcast::Make(value.shape(), bias_shape);
    DFX_OP_REQUIRES_OK(ctx, bcast.status());
    Tensor* out = nullptr;
    DFX_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, value.shape(), &out));
    DFX_OP_REQUIRES_OK(
        ctx, RunBinary(*device, BinaryOp::kAdd, *bcast, value, bias, out));
  }

 private:
  bool nchw_ = false;
};

// BiasAddGrad (NHWC or NCHW): the sum of the gradient over every dim but
// the channel dim.
class BiasAddGradGpuOp : public OpKernel {
 public:
  explicit BiasAddGradGpuOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    ctx->SetStatus(ParseBiasAddFormat(ctx->def(), &nchw_));
  }

  void Compute(OpKernelContext* ctx) override {
    absl::StatusOr<GpuDevice*> device = GpuDeviceOf(*ctx);
    DFX_OP_REQUIRES_OK(ctx, device.status());
    const Tensor& grad = ctx->input(0);
    DFX_OP_REQUIRES(ctx, grad.dims() >= 2,
                    absl::InvalidArgumentError(absl::StrCat(
                        "Input tensor must be at least 2D: ",
                        grad.shape().DebugString())));
    const int channel_dim = nchw_ ? 1 : grad.dims() - 1;
    const int64_t channels = grad.dim_size(channel_dim);
    int64_t outer = 1, inner = 1;
    for (int d = 0; d < channel_dim; ++d) outer *= grad.dim_size(d);
    for (int d = channel_dim + 1; d < grad.dims(); ++d) inner *= grad.dim_size(d);
    Tensor* out = nullptr;
    DFX_OP_REQUIRES_OK(ctx,
                       ctx->allocate_output(0, TensorShape({channels}), &out));
    if (channels == 0) return;
    ScopedActivateDevice activate((*device)->cuda_ordinal());
    DFX_OP_REQUIRES_OK(ctx, activate.status());
    cudaStream_t stream = (*device)->compute_stream()->get();
    const cudaError_t e = ByFloatType(grad.dtype(), [&](auto zero) {
      using T = decltype(zero);
      return LaunchChannelSum(stream, static_cast<const T*>(grad.raw_data()),
                              static_cast<T*>(out->raw_data()), outer,
                              channels, inner);
    });
    DFX_OP_REQUIRES_OK(ctx, CudaStatus(e, "launching the kernel"));
  }

 private:
  bool nchw_ = false;
};

// AddN: the inputs (one shape) added pairwise into the output, in order.
class AddNGpuOp : public OpKernel {
 public:
  using OpKernel::OpKernel;

  void Compute(OpKernelContext* ctx) override {
    absl::StatusOr<GpuDevice*> device = GpuDeviceOf(*ctx);
    DFX_OP_REQUIRES_OK(ctx, device.status());
    const Tensor& first = ctx->input(0);
    for (int i = 1; i < ctx->num_inputs(); ++i) {
      DFX_OP_REQUIRES(ctx, ctx->input(i).shape() == first.shape(),
                      absl::InvalidArgumentError(absl::StrCat(
                          "Inputs to operation AddN must have the same size "
                          "and shape.  Input 0: ",
                          first.shape().DebugString(), " != input ", i, ": ",
                          ctx->input(i).shape().DebugString())));
    }
    if (ctx->num_inputs() == 1) {
      ctx->set_output(0, first);
      return;
    }
    Tensor* out = nullptr;
    DFX_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, first.shape(), &out));
    absl::StatusOr<Broadcast> same =
        Broadcast::Make(first.shape(), first.shape());
    DFX_OP_REQUIRES_OK(ctx, same.status());
    // out = in0 + in1, then out += in_i (elements are read before they are
    // written, one thread each).
    for (int i = 1; i < ctx->num_inputs(); ++i) {
      DFX_OP_REQUIRES_OK(
          ctx, RunBinary(*device, BinaryOp::kAdd, *same,
                         i == 1 ? first : *out, ctx->input(i), out));
    }
  }
};

// Identity and its kin hand their input on: the tensor stays where it is.
class ForwardGpuOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    ctx->set_output(0, ctx->input(0));
  }
};

}  // namespace

void RegisterGpuCwiseKernels(KernelRegistry* registry) {
  for (const auto& [name, op] :
       {std::pair{"Relu", UnaryOp::kRelu}, std::pair{"Neg", UnaryOp::kNeg},
        std::pair{"Square", UnaryOp::kSquare}, std::pair{"Exp", UnaryOp::kExp},
        std::pair{"Log", UnaryOp::kLog}, std::pair{"Tanh", UnaryOp::kTanh},
        std::pair{"Sigmoid", UnaryOp::kSigmoid},
        std::pair{"Sqrt", UnaryOp::kSqrt}, std::pair{"Rsqrt", UnaryOp::kRsqrt},
        std::pair{"Abs", UnaryOp::kAbs}, std::pair{"Relu6", UnaryOp::kRelu6}}) {
    RegisterWith<UnaryGpuOp>(
        registry,
        KernelDefBuilder(name).Device("GPU").TypeConstraint("T", kTypes), op);
  }
  for (const auto& [name, op] :
       {std::pair{"AddV2", BinaryOp::kAdd}, std::pair{"Add", BinaryOp::kAdd},
        std::pair{"Sub", BinaryOp::kSub}, std::pair{"Mul", BinaryOp::kMul},
        std::pair{"RealDiv", BinaryOp::kDiv},
        std::pair{"Maximum", BinaryOp::kMaximum},
        std::pair{"Minimum", BinaryOp::kMinimum},
        std::pair{"SquaredDifference", BinaryOp::kSquaredDifference},
        std::pair{"ReluGrad", BinaryOp::kReluGrad},
        std::pair{"Relu6Grad", BinaryOp::kRelu6Grad}}) {
    RegisterWith<BinaryGpuOp>(
        registry,
        KernelDefBuilder(name).Device("GPU").TypeConstraint("T", kTypes), op);
  }
  for (const char* name : {"BiasAdd", "BiasAddV1"}) {
    RegisterKernel<BiasAddGpuOp>(
        registry, KernelDefBuilder(name).Device("GPU").TypeConstraint("T", kTypes));
  }
  RegisterKernel<AddNGpuOp>(
      registry, KernelDefBuilder("AddN").Device("GPU").TypeConstraint("T", kTypes));
  RegisterKernel<BiasAddGradGpuOp>(
      registry,
      KernelDefBuilder("BiasAddGrad").Device("GPU").TypeConstraint("T", kTypes));
  // Every dtype: the tensor stays in whichever memory it is in (int32,
  // the shapes and indices, in host memory). Not Snapshot: it must copy,
  // so that a later in-place update of its input cannot show through.
  for (const char* name : {"Identity", "StopGradient", "PreventGradient"}) {
    RegisterKernel<ForwardGpuOp>(registry,
                                 KernelDefBuilder(name).Device("GPU"));
  }
}

}  // namespace dfx::gpu
