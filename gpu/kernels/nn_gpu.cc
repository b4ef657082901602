// Softmax, LogSoftmax, the two softmax cross-entropies and the resource
// forms of the GradientDescent, Momentum, KerasMomentum and Adam updates
// on a GPU (float, double; the softmax family also float16 and bfloat16,
// computed in float); the CUDA code is gpu/kernels/nn_gpu.cu. Checks
// the host can make (shapes, labels) are made before anything is enqueued,
// with the CPU kernels' messages.
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gpu/cuda_status.h"
#include "gpu/kernels/dtype_dispatch.h"
#include "gpu/kernels/gpu_kernel_util.h"
#include "gpu/kernels/gpu_kernels.h"
#include "gpu/kernels/nn_gpu.h"
#include "graph/types.h"
#include "kernels/nn/sparse_xent_checks.h"
#include "kernels/state/variable_util.h"

namespace dfx::gpu {
namespace {

const DataTypeVector kTypes = {DT_FLOAT, DT_DOUBLE};
const DataTypeVector kSoftmaxTypes = {DT_FLOAT, DT_DOUBLE, DT_HALF,
                                      DT_BFLOAT16};

// Softmax or LogSoftmax over the last dim.
class SoftmaxGpuOp : public OpKernel {
 public:
  SoftmaxGpuOp(OpKernelConstruction* ctx, bool log)
      : OpKernel(ctx), log_(log) {}

  void Compute(OpKernelContext* ctx) override {
    const Tensor& logits = ctx->input(0);
    DFX_OP_REQUIRES(ctx, logits.dims() >= 1,
                    absl::InvalidArgumentError(absl::StrCat(
                        "logits must have >= 1 dimension, got ",
                        logits.shape().DebugString())));
    Tensor* out = nullptr;
    DFX_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, logits.shape(), &out));
    const int64_t classes = logits.dim_size(logits.dims() - 1);
    if (logits.NumElements() == 0) return;
    const int64_t rows = logits.NumElements() / classes;
    GpuLaunch launch(*ctx);
    DFX_OP_REQUIRES_OK(ctx, launch.status());
    const cudaError_t e = ByFloatType(logits.dtype(), [&](auto t) {
      using T = decltype(t);
      return LaunchSoftmax(
          launch.stream(), static_cast<const T*>(logits.raw_data()),
          static_cast<T*>(out->raw_data()), rows, classes, log_);
    });
    DFX_OP_REQUIRES_OK(ctx, CudaStatus(e, "launching the kernel"));
  }

 private:
  const bool log_;
};

// SoftmaxCrossEntropyWithLogits with logits and labels of one [batch,
// classes] shape (the broadcasting forms run on the CPU).
class SoftmaxXentGpuOp : public OpKernel {
 public:
  using OpKernel::OpKernel;

  void Compute(OpKernelContext* ctx) override {
    const Tensor& logits = ctx->input(0);
    const Tensor& labels = ctx->input(1);
    DFX_OP_REQUIRES(
        ctx, logits.dims() == 2 && logits.shape() == labels.shape(),
        absl::InvalidArgumentError(absl::StrCat(
            "logits and labels must be 2-D and of one shape on a GPU, got "
            "logits shape ",
            logits.shape().DebugString(), " and labels shape ",
            labels.shape().DebugString())));
    const int64_t rows = logits.dim_size(0), classes = logits.dim_size(1);
    Tensor* loss = nullptr;
    Tensor* backprop = nullptr;
    DFX_OP_REQUIRES_OK(ctx,
                       ctx->allocate_output(0, TensorShape({rows}), &loss));
    DFX_OP_REQUIRES_OK(ctx,
                       ctx->allocate_output(1, logits.shape(), &backprop));
    GpuLaunch launch(*ctx);
    DFX_OP_REQUIRES_OK(ctx, launch.status());
    const cudaError_t e = ByFloatType(logits.dtype(), [&](auto t) {
      using T = decltype(t);
      return LaunchSoftmaxXent(
          launch.stream(), static_cast<const T*>(logits.raw_data()),
          static_cast<const T*>(labels.raw_data()),
          static_cast<T*>(loss->raw_data()),
          static_cast<T*>(backprop->raw_data()), rows, classes);
    });
    DFX_OP_REQUIRES_OK(ctx, CudaStatus(e, "launching the kernel"));
  }
};

// SparseSoftmaxCrossEntropyWithLogits: the labels are read on the host
// (host memory), checked, and copied to the GPU.
template <typename Index>
class SparseSoftmaxXentGpuOp : public OpKernel {
 public:
  using OpKernel::OpKernel;

  void Compute(OpKernelContext* ctx) override {
    const Tensor& logits = ctx->input(0);
    const Tensor& labels = ctx->input(1);
    DFX_OP_REQUIRES_OK(ctx, CheckSparseXentShapes(logits, labels));
    const int64_t rows = logits.dim_size(0), classes = logits.dim_size(1);
    DFX_OP_REQUIRES_OK(ctx, CheckSparseLabels<Index>(labels, classes));
    Tensor* loss = nullptr;
    Tensor* backprop = nullptr;
    DFX_OP_REQUIRES_OK(ctx,
                       ctx->allocate_output(0, TensorShape({rows}), &loss));
    DFX_OP_REQUIRES_OK(ctx,
                       ctx->allocate_output(1, logits.shape(), &backprop));
    if (rows == 0) return;
    absl::StatusOr<Tensor> on_device = ctx->device()->CopyFromHost(labels);
    DFX_OP_REQUIRES_OK(ctx, on_device.status());
    GpuLaunch launch(*ctx);
    DFX_OP_REQUIRES_OK(ctx, launch.status());
    const Index* device_labels = on_device->data<Index>();
    const cudaError_t e = ByFloatType(logits.dtype(), [&](auto t) {
      using T = decltype(t);
      return LaunchSparseSoftmaxXent(
          launch.stream(), static_cast<const T*>(logits.raw_data()),
          device_labels, static_cast<T*>(loss->raw_data()),
          static_cast<T*>(backprop->raw_data()), rows, classes);
    });
    // `on_device` goes back to the arena now; only work enqueued after
    // this kernel's can reuse it (one stream).
    DFX_OP_REQUIRES_OK(ctx, CudaStatus(e, "launching the kernel"));
  }
};

enum class Update { kGradientDescent, kMomentum, kKerasMomentum, kAdam };

int NumVars(Update u) {
  switch (u) {
    case Update::kGradientDescent: return 1;
    case Update::kMomentum:
    case Update::kKerasMomentum: return 2;
    case Update::kAdam: return 3;
  }
  return 1;
}

// ResourceApply{GradientDescent, Momentum, KerasMomentum, Adam}: the
// variables (resource handles, inputs 0..) live on this GPU; the scalar
// hyper-parameters are read by the CUDA kernel from device memory.
template <typename T>
class ApplyGpuOp : public OpKernel {
 public:
  ApplyGpuOp(OpKernelConstruction* ctx, Update update)
      : OpKernel(ctx), update_(update) {
    ctx->SetStatus(ctx->GetAttr("use_locking", &use_locking_));
    for (const auto& attr : ctx->op_def().attr()) {
      if (attr.name() == "use_nesterov") {
        ctx->SetStatus(ctx->GetAttr("use_nesterov", &nesterov_));
      }
    }
    for (const auto& arg : ctx->op_def().input_arg()) {
      names_.push_back(arg.name());
    }
  }

  void Compute(OpKernelContext* ctx) override {
    static constexpr int kIds[] = {0, 1, 2};
    const int num_vars = NumVars(update_);
    // TensorFlow's GPU updates lock as the op says; the GPU serializes the
    // updates of one device on its stream either way.
    VariableInputs vars;
    DFX_OP_REQUIRES_OK(
        ctx, vars.Init(ctx, absl::MakeConstSpan(kIds, num_vars), use_locking_));
    const DataType dtype = DataTypeToEnum<T>::value;
    T* p[3] = {};
    for (int j = 0; j < num_vars; ++j) {
      Tensor* t = vars.tensor(j);
      DFX_OP_REQUIRES(
          ctx, t->dtype() == dtype && t->shape() == vars.tensor(0)->shape(),
          absl::InvalidArgumentError(absl::StrCat(
              names_[j], " is a ", DataTypeString(t->dtype()), " of shape ",
              t->shape().DebugString(), "; the update needs a ",
              DataTypeString(dtype), " of var's shape ",
              vars.tensor(0)->shape().DebugString())));
      DFX_OP_REQUIRES(ctx, !t->OnHost() || t->NumElements() == 0,
                      absl::InvalidArgumentError(absl::StrCat(
                          names_[j], " is not in this GPU's memory")));
      p[j] = t->data<T>();
    }
    // Inputs after the variables: the scalars, and the gradient last.
    std::vector<const T*> scalars;
    const T* grad = nullptr;
    for (int i = num_vars; i < num_inputs(); ++i) {
      const Tensor& in = ctx->input(i);
      if (names_[i] == "grad" || names_[i] == "delta") {
        DFX_OP_REQUIRES(
            ctx, in.shape() == vars.tensor(0)->shape(),
            absl::InvalidArgumentError(absl::StrCat(
                "var and ", names_[i], " do not have the same shape",
                vars.tensor(0)->shape().DebugString(), " ",
                in.shape().DebugString())));
        grad = in.data<T>();
      } else {
        DFX_OP_REQUIRES(ctx, in.dims() == 0,
                        absl::InvalidArgumentError(absl::StrCat(
                            names_[i], " is not a scalar: ",
                            in.shape().DebugString())));
        scalars.push_back(in.data<T>());
      }
    }
    const int64_t n = vars.tensor(0)->NumElements();
    if (n == 0) return;
    GpuLaunch launch(*ctx);
    DFX_OP_REQUIRES_OK(ctx, launch.status());
    cudaError_t e = cudaSuccess;
    switch (update_) {
      case Update::kGradientDescent:  // alpha
        e = LaunchApplyGradientDescent(launch.stream(), p[0], scalars[0],
                                       grad, n);
        break;
      case Update::kMomentum:  // lr, (grad), momentum
        e = LaunchApplyMomentum(launch.stream(), p[0], p[1], scalars[0], grad,
                                scalars[1], nesterov_, n);
        break;
      case Update::kKerasMomentum:
        e = LaunchApplyKerasMomentum(launch.stream(), p[0], p[1], scalars[0],
                                     grad, scalars[1], nesterov_, n);
        break;
      case Update::kAdam:  // beta1_power, beta2_power, lr, beta1, beta2, eps
        e = LaunchApplyAdam(launch.stream(), p[0], p[1], p[2], scalars[0],
                            scalars[1], scalars[2], scalars[3], scalars[4],
                            scalars[5], grad, nesterov_, n);
        break;
    }
    DFX_OP_REQUIRES_OK(ctx, CudaStatus(e, "launching the update"));
  }

 private:
  const Update update_;
  bool use_locking_ = false;
  bool nesterov_ = false;
  std::vector<std::string> names_;
};

template <typename T>
void RegisterUpdates(KernelRegistry* registry) {
  const struct {
    const char* op;
    Update update;
  } kUpdates[] = {
      {"ResourceApplyGradientDescent", Update::kGradientDescent},
      {"ResourceApplyMomentum", Update::kMomentum},
      {"ResourceApplyKerasMomentum", Update::kKerasMomentum},
      {"ResourceApplyAdam", Update::kAdam},
  };
  for (const auto& [op, update] : kUpdates) {
    RegisterWith<ApplyGpuOp<T>>(
        registry,
        KernelDefBuilder(op).Device("GPU").TypeConstraint<T>("T"), update);
  }
}

}  // namespace

void RegisterGpuNnKernels(KernelRegistry* registry) {
  RegisterWith<SoftmaxGpuOp>(
      registry,
      KernelDefBuilder("Softmax").Device("GPU").TypeConstraint("T",
                                                               kSoftmaxTypes),
      false);
  RegisterWith<SoftmaxGpuOp>(registry,
                             KernelDefBuilder("LogSoftmax")
                                 .Device("GPU")
                                 .TypeConstraint("T", kSoftmaxTypes),
                             true);
  RegisterKernel<SoftmaxXentGpuOp>(
      registry, KernelDefBuilder("SoftmaxCrossEntropyWithLogits")
                    .Device("GPU")
                    .TypeConstraint("T", kSoftmaxTypes));
  RegisterKernel<SparseSoftmaxXentGpuOp<int32_t>>(
      registry, KernelDefBuilder("SparseSoftmaxCrossEntropyWithLogits")
                    .Device("GPU")
                    .TypeConstraint("T", kSoftmaxTypes)
                    .TypeConstraint<int32_t>("Tlabels")
                    .HostMemory("labels"));
  RegisterKernel<SparseSoftmaxXentGpuOp<int64_t>>(
      registry, KernelDefBuilder("SparseSoftmaxCrossEntropyWithLogits")
                    .Device("GPU")
                    .TypeConstraint("T", kSoftmaxTypes)
                    .TypeConstraint<int64_t>("Tlabels")
                    .HostMemory("labels"));
  RegisterUpdates<float>(registry);
  RegisterUpdates<double>(registry);
}

}  // namespace dfx::gpu
