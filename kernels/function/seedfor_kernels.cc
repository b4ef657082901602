// The seedfor family's CPU kernels: For (which only fails: the op is
// lowered) and the two ops its lowering uses, FakeParam, FakeQueue,
// FileSystemSetConfiguration, SleepOp and SleepIdentityOp. The seed
// generators are in kernels/data/shuffle_kernels.cc.
#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "kernels/array/index_util.h"
#include "kernels/data_flow/data_flow_util.h"
#include "kernels/data_flow/wait.h"
#include "kernels/kernels.h"
#include "kernels/state/variable_util.h"

namespace dfx {
namespace {

// For is lowered into TF1 control flow before any step runs
// (graph/lower_functional_ops.h); this kernel only stands for TensorFlow's
// CPU registration and fails if a graph ever reaches it unlowered.
class ForOp final : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    ctx->SetStatus(absl::InternalError(
        "For reached a kernel: it is lowered before graphs run"));
  }
};

// start, limit and delta of a lowered For, as TensorFlow's ForOp reads
// them: int32 scalars.
absl::Status ForScalars(OpKernelContext* ctx, int32_t* v) {
  static const char* const kNames[] = {"start", "limit", "delta"};
  for (int i = 0; i < 3; ++i) {
    const Tensor& t = ctx->input(i);
    if (t.dims() != 0) {
      return absl::InvalidArgumentError(absl::StrCat(
          kNames[i], " must be a scalar, but ", t.shape().DebugString()));
    }
    v[i] = t.scalar<int32_t>();
  }
  return absl::OkStatus();
}

// _ForLoopStart: `start` once start/limit/delta make a loop TensorFlow's
// ForOp runs (a zero delta only when start == limit, which runs nothing).
class ForLoopStartOp final : public OpKernel {
 public:
  explicit ForLoopStartOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    set_expensive(false);
  }
  void Compute(OpKernelContext* ctx) override {
    int32_t v[3];
    DFX_OP_REQUIRES_OK(ctx, ForScalars(ctx, v));
    const int32_t start = v[0], limit = v[1], delta = v[2];
    const bool valid = (delta > 0 && start <= limit) ||
                       (delta < 0 && start >= limit) ||
                       (delta == 0 && start == limit);
    DFX_OP_REQUIRES(
        ctx, valid,
        absl::InvalidArgumentError(absl::StrCat(
            "Invalid start/limit/delta: ", start, " ", limit, " ", delta)));
    ctx->set_output(0, ctx->input(0));
  }
};

// _ForLoopCond: whether the loop runs the body for `iter`.
class ForLoopCondOp final : public OpKernel {
 public:
  explicit ForLoopCondOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    set_expensive(false);
  }
  void Compute(OpKernelContext* ctx) override {
    int32_t v[3];
    DFX_OP_REQUIRES_OK(ctx, ForScalars(ctx, v));
    const int32_t iter = v[0], limit = v[1], delta = v[2];
    const bool done = delta > 0 ? iter >= limit : iter <= limit;
    ctx->set_output(0, Tensor::Scalar<bool>(!done));
  }
};

// FakeParam: a tensor of the attr's shape, unknown dimensions 0 and an
// unknown rank a scalar, as TensorFlow's kernel makes it. TensorFlow leaves
// the memory uninitialized; dfx's holds zeros.
class FakeParamOp final : public OpKernel {
 public:
  explicit FakeParamOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    set_expensive(false);
    TensorShapeProto proto;
    absl::Status s = ctx->GetAttr("shape", &proto);
    if (!s.ok()) {
      ctx->SetStatus(std::move(s));
      return;
    }
    if (proto.unknown_rank()) return;
    for (const auto& d : proto.dim()) {
      s = shape_.AddDim(d.size() == -1 ? 0 : d.size());
      if (!s.ok()) {
        ctx->SetStatus(std::move(s));
        return;
      }
    }
  }
  void Compute(OpKernelContext* ctx) override {
    Tensor* out = nullptr;
    DFX_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, shape_, &out));
    array_internal::SetZero(*ctx->device(), out);
  }

 private:
  TensorShape shape_;
};

// FakeQueue: the [container, name] reference handle of the queue a
// resource handle names, set by the first call (TensorFlow's kernel keeps
// the first handle it sees).
class FakeQueueOp final : public OpKernel {
 public:
  explicit FakeQueueOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    set_expensive(false);
  }
  void Compute(OpKernelContext* ctx) override {
    absl::StatusOr<const ResourceHandle*> h = HandleFromInput(ctx, 0);
    DFX_OP_REQUIRES_OK(ctx, h.status());
    {
      absl::MutexLock lock(&mu_);
      if (!handle_.IsInitialized()) {
        handle_ = data_flow::SharedResourceHandle(
            *ctx->device(), /*ref=*/true, (*h)->container(), (*h)->name(),
            (*h)->maybe_type_name());
      }
    }
    ctx->set_output_ref(0, TensorRef{&handle_, &mu_});
  }

 private:
  absl::Mutex mu_;
  Tensor handle_;  // the reference's tensor, guarded by mu_ through it
};

// FileSystemSetConfiguration: none of the file systems TensorFlow 2.21
// registers ("", "file", "ram", "gs") takes a configuration
// (Unimplemented "SetOption"); another scheme is not found.
class FileSystemSetConfigurationOp final : public OpKernel {
 public:
  explicit FileSystemSetConfigurationOp(OpKernelConstruction* ctx)
      : OpKernel(ctx) {
    set_expensive(false);
  }
  void Compute(OpKernelContext* ctx) override {
    static const char* const kNames[] = {"scheme", "key", "value"};
    for (int i = 0; i < 3; ++i) {
      // TensorFlow's message for `value` shows the scheme's shape.
      DFX_OP_REQUIRES(ctx, ctx->input(i).dims() == 0,
                      absl::InvalidArgumentError(absl::StrCat(
                          kNames[i], " must be scalar, got shape ",
                          ctx->input(i == 2 ? 0 : i).shape().DebugString())));
    }
    const std::string& scheme = ctx->input(0).scalar<std::string>();
    const bool known =
        scheme.empty() || scheme == "file" || scheme == "ram" || scheme == "gs";
    DFX_OP_REQUIRES(ctx, known,
                    absl::UnimplementedError(
                        absl::StrCat("File system scheme '", scheme,
                                     "' not found to set configuration")));
    ctx->SetStatus(absl::UnimplementedError("SetOption"));
  }
};

// SleepOp and SleepIdentityOp: wait sleep_seconds (none when <= 0) holding
// no thread, then (SleepIdentityOp) output `input`. A cancelled step ends
// the wait at once with Cancelled.
class SleepOp final : public AsyncOpKernel {
 public:
  explicit SleepOp(OpKernelConstruction* ctx)
      : AsyncOpKernel(ctx), identity_(ctx->def().op() == "SleepIdentityOp") {}

  void ComputeAsync(OpKernelContext* ctx, DoneCallback done) override {
    const Tensor& seconds_t = ctx->input(0);
    // TensorFlow's kernel reads a scalar without checking (and aborts).
    DFX_OP_REQUIRES_ASYNC(ctx, seconds_t.dims() == 0,
                          absl::InvalidArgumentError(absl::StrCat(
                              "sleep_seconds must be a scalar, got shape ",
                              seconds_t.shape().DebugString())),
                          done);
    if (identity_) ctx->set_output(0, ctx->input(1));
    const int32_t seconds = seconds_t.scalar<int32_t>();
    if (seconds <= 0) {
      done();
      return;
    }
    // Ended once, by the timeout (the sleep is over) or the cancellation.
    struct Sleep {
      std::atomic<bool> over{false};
      data_flow::WaitEnds ends;
      absl::Mutex mu;  // held while ArmWait fills `ends`
    };
    auto sleep = std::make_shared<Sleep>();
    auto finish = [sleep, ctx, done](absl::Status status) {
      if (sleep->over.exchange(true)) return;
      {
        absl::MutexLock lock(&sleep->mu);
        data_flow::DisarmWait(&sleep->ends);
      }
      if (!absl::IsDeadlineExceeded(status)) ctx->SetStatus(std::move(status));
      done();
    };
    absl::Status armed;
    {
      absl::MutexLock lock(&sleep->mu);
      armed = data_flow::ArmWait(
          ctx->cancellation_manager(), int64_t{seconds} * 1000,
          absl::StrCat("node '", ctx->op_kernel().name(), "' (op ",
                       ctx->op_kernel().type_string(), ")"),
          finish, &sleep->ends);
    }
    if (!armed.ok()) finish(std::move(armed));
  }

 private:
  const bool identity_;
};

}  // namespace

void RegisterSeedforKernels(KernelRegistry* registry) {
  RegisterKernel<ForOp>(registry, KernelDefBuilder("For"));
  RegisterKernel<ForLoopStartOp>(registry, KernelDefBuilder("_ForLoopStart"));
  RegisterKernel<ForLoopCondOp>(registry, KernelDefBuilder("_ForLoopCond"));
  RegisterKernel<FakeParamOp>(registry, KernelDefBuilder("FakeParam"));
  RegisterKernel<FakeQueueOp>(registry, KernelDefBuilder("FakeQueue"));
  RegisterKernel<FileSystemSetConfigurationOp>(
      registry, KernelDefBuilder("FileSystemSetConfiguration"));
  RegisterKernel<SleepOp>(registry, KernelDefBuilder("SleepOp"));
  RegisterKernel<SleepOp>(registry, KernelDefBuilder("SleepIdentityOp"));
}

}  // namespace dfx
