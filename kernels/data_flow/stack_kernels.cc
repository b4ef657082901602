// Kernels of TF1's stacks: StackV2, StackPushV2, StackPopV2, StackCloseV2.
// tf.gradients of a while_loop pushes each iteration's forward values in the
// forward loop and pops them in the backward loop. A stack lives in the
// step's container and goes away with the step, as in TensorFlow.
//
// The same kernels serve the v1 ops (Stack, StackPush, StackPop,
// StackClose), whose handle is a reference to a [2] string tensor
// ("_stacks", name) and whose Stack has no max_size input (no bound).
//
// TensorFlow's swap_memory (moving pushed GPU tensors to host memory) has
// no effect here: dfx's stacks hold tensors where they are.
#include <atomic>
#include <cstdint>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "kernels/data_flow/data_flow_util.h"
#include "kernels/kernels.h"

namespace dfx::data_flow {
namespace {

// A LIFO of tensors of one dtype with an optional bound. Thread-safe.
class Stack : public ResourceBase {
 public:
  static constexpr const char* kTypeName = "Stack";

  Stack(DataType elem_type, std::string name, int64_t max_size)
      : elem_type_(elem_type), name_(std::move(name)), max_size_(max_size) {}

  std::string TypeName() const override { return kTypeName; }
  std::string DebugString() const override {
    absl::MutexLock lock(&mu_);
    return absl::StrCat("Stack[", name_, "] of ", stack_.size(), " ",
                        DataTypeString(elem_type_), " tensors",
                        closed_ ? ", closed" : "");
  }
  int64_t MemoryUsed() const override {
    absl::MutexLock lock(&mu_);
    int64_t bytes = 0;
    for (const Tensor& t : stack_) bytes += static_cast<int64_t>(t.TotalBytes());
    return bytes;
  }

  DataType elem_type() const { return elem_type_; }
  const std::string& name() const { return name_; }

  absl::Status Push(const Tensor& value) {
    absl::MutexLock lock(&mu_);
    if (closed_) return ClosedError();
    if (static_cast<int64_t>(stack_.size()) >= max_size_) {
      return absl::InvalidArgumentError(absl::StrCat(
          "Stack[", name_, "] overflowed its max_size (", max_size_, ")"));
    }
    stack_.push_back(value);
    return absl::OkStatus();
  }

  absl::StatusOr<Tensor> Pop() {
    absl::MutexLock lock(&mu_);
    if (closed_) return ClosedError();
    if (stack_.empty()) {
      return absl::InvalidArgumentError(
          absl::StrCat("Stack[", name_, "] is empty when calling Pop()."));
    }
    Tensor value = std::move(stack_.back());
    stack_.pop_back();
    return value;
  }

  // Drops the tensors; later pushes and pops fail.
  void Close() {
    absl::MutexLock lock(&mu_);
    stack_.clear();
    closed_ = true;
  }

 private:
  absl::Status ClosedError() const {
    return absl::InvalidArgumentError(
        absl::StrCat("Stack[", name_, "] has already been closed."));
  }

  const DataType elem_type_;
  const std::string name_;
  const int64_t max_size_;
  mutable absl::Mutex mu_;
  std::vector<Tensor> stack_ ABSL_GUARDED_BY(mu_);
  bool closed_ ABSL_GUARDED_BY(mu_) = false;
};

// Makes every stack's name unique in the process, as TensorFlow does, so
// two runs of one StackV2 node in a step (a loop) get two stacks.
std::atomic<int64_t> stack_counter{0};

constexpr char kStackPrefix[] = "_stacks";

class StackV2Op : public OpKernel {
 public:
  explicit StackV2Op(OpKernelConstruction* c) : OpKernel(c) {
    set_expensive(false);
    c->SetStatus(c->GetAttr("elem_type", &elem_type_));
    c->SetStatus(c->GetAttr("stack_name", &stack_name_));
    if (stack_name_.empty()) stack_name_ = c->def().name();
  }

  void Compute(OpKernelContext* ctx) override {
    // A negative max_size means no bound; the v1 Stack has none.
    int64_t max_size = std::numeric_limits<int64_t>::max();
    if (num_inputs() > 0) {
      const Tensor& size = ctx->input(0);
      DFX_OP_REQUIRES(ctx, size.dims() == 0,
                      absl::InvalidArgumentError(absl::StrCat(
                          "Stack size must be a scalar, but had shape: ",
                          size.shape().DebugString())));
      const int32_t value = size.scalar<int32_t>();
      if (value >= 0) max_size = value;
    }
    const std::string name =
        absl::StrCat(stack_name_, "_", stack_counter.fetch_add(1));
    const std::string key = absl::StrCat(kStackPrefix, name);
    absl::StatusOr<ScopedStepContainer*> step = StepContainer(ctx);
    DFX_OP_REQUIRES_OK(ctx, step.status());
    DFX_OP_REQUIRES_OK(
        ctx, ctx->resource_manager()->Create(
                 (*step)->name(), key,
                 std::make_shared<Stack>(elem_type_, name, max_size)));
    DFX_OP_REQUIRES_OK(
        ctx, SetStepHandleOutput(ctx, kStackPrefix, name, Stack::kTypeName));
  }

 private:
  DataType elem_type_ = DT_INVALID;
  std::string stack_name_;
};

class StackPushV2Op : public OpKernel {
 public:
  explicit StackPushV2Op(OpKernelConstruction* c) : OpKernel(c) {
    set_expensive(false);
  }

  void Compute(OpKernelContext* ctx) override {
    absl::StatusOr<std::shared_ptr<Stack>> stack =
        LookupStepResource<Stack>(ctx, 0);
    DFX_OP_REQUIRES_OK(ctx, stack.status());
    const Tensor& value = ctx->input(1);
    DFX_OP_REQUIRES(
        ctx, value.dtype() == (*stack)->elem_type(),
        absl::InvalidArgumentError(absl::StrCat(
            "Stack[", (*stack)->name(), "] holds ",
            DataTypeString((*stack)->elem_type()), " tensors, cannot push a ",
            DataTypeString(value.dtype()), " tensor")));
    DFX_OP_REQUIRES_OK(ctx, (*stack)->Push(value));
    ctx->set_output(0, value);
  }
};

class StackPopV2Op : public OpKernel {
 public:
  explicit StackPopV2Op(OpKernelConstruction* c) : OpKernel(c) {
    set_expensive(false);
    c->SetStatus(c->GetAttr("elem_type", &elem_type_));
  }

  void Compute(OpKernelContext* ctx) override {
    absl::StatusOr<std::shared_ptr<Stack>> stack =
        LookupStepResource<Stack>(ctx, 0);
    DFX_OP_REQUIRES_OK(ctx, stack.status());
    // TensorFlow fails this in the executor's output type check, with
    // Internal; so does dfx, with a message that says what happened.
    DFX_OP_REQUIRES(
        ctx, elem_type_ == (*stack)->elem_type(),
        absl::InternalError(absl::StrCat(
            "Stack[", (*stack)->name(), "] holds ",
            DataTypeString((*stack)->elem_type()),
            " tensors, but this ", type_string(), " declares elem_type ",
            DataTypeString(elem_type_))));
    absl::StatusOr<Tensor> value = (*stack)->Pop();
    DFX_OP_REQUIRES_OK(ctx, value.status());
    ctx->set_output(0, *std::move(value));
  }

 private:
  DataType elem_type_ = DT_INVALID;
};

class StackCloseV2Op : public OpKernel {
 public:
  explicit StackCloseV2Op(OpKernelConstruction* c) : OpKernel(c) {
    set_expensive(false);
  }

  void Compute(OpKernelContext* ctx) override {
    absl::StatusOr<std::shared_ptr<Stack>> stack =
        LookupStepResource<Stack>(ctx, 0);
    DFX_OP_REQUIRES_OK(ctx, stack.status());
    (*stack)->Close();
  }
};

}  // namespace

void RegisterStackKernels(KernelRegistry* registry) {
  RegisterKernel<StackV2Op>(registry, KernelDefBuilder("StackV2"));
  RegisterKernel<StackPushV2Op>(registry, KernelDefBuilder("StackPushV2"));
  RegisterKernel<StackPopV2Op>(registry, KernelDefBuilder("StackPopV2"));
  RegisterKernel<StackCloseV2Op>(registry, KernelDefBuilder("StackCloseV2"));
  RegisterKernel<StackV2Op>(registry, KernelDefBuilder("Stack"));
  RegisterKernel<StackPushV2Op>(registry, KernelDefBuilder("StackPush"));
  RegisterKernel<StackPopV2Op>(registry, KernelDefBuilder("StackPop"));
  RegisterKernel<StackCloseV2Op>(registry, KernelDefBuilder("StackClose"));
}

}  // namespace dfx::data_flow
