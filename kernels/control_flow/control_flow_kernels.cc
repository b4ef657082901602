// Kernels of the control-flow primitives. They only move values: which
// outputs are dead, which frame and iteration a value lands in, and when a
// Merge fires are the executor's business (runtime/executor.cc).
#include "absl/strings/str_cat.h"
#include "kernels/kernels.h"

namespace dfx {
namespace {

bool IsRefOp(const OpKernel& k) { return IsRefType(k.input_type(0)); }

// Switch and RefSwitch: input 0 goes to output 1 when the predicate holds,
// to output 0 otherwise; the output left unset is dead.
class SwitchOp : public OpKernel {
 public:
  explicit SwitchOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    set_expensive(false);
  }
  void Compute(OpKernelContext* ctx) override {
    const Tensor& pred = ctx->input(1);
    DFX_OP_REQUIRES(ctx, pred.NumElements() == 1 && pred.dims() == 0,
                    absl::InvalidArgumentError(absl::StrCat(
                        "The second input must be a scalar, but it has shape ",
                        pred.shape().DebugString())));
    const int out = pred.data<bool>()[0] ? 1 : 0;
    if (IsRefOp(*this)) {
      ctx->forward_ref_input_to_ref_output(0, out);
    } else {
      ctx->set_output(out, ctx->input(0));
    }
  }
};

// _SwitchN: input 0 goes to output `output_index` (the last output when the
// index is out of range, as TensorFlow's Case does for its default branch).
class SwitchNOp : public OpKernel {
 public:
  explicit SwitchNOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    set_expensive(false);
  }
  void Compute(OpKernelContext* ctx) override {
    const Tensor& index = ctx->input(1);
    DFX_OP_REQUIRES(ctx, index.NumElements() == 1 && index.dims() == 0,
                    absl::InvalidArgumentError(absl::StrCat(
                        "output_index must be a scalar, but it has shape ",
                        index.shape().DebugString())));
    int32_t out = index.data<int32_t>()[0];
    if (out < 0 || out >= ctx->num_outputs()) out = ctx->num_outputs() - 1;
    ctx->set_output(out, ctx->input(0));
  }
};

// Merge and RefMerge: the executor runs a Merge once one input is alive (the
// others are empty); it forwards that input and its index.
class MergeOp : public OpKernel {
 public:
  explicit MergeOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    set_expensive(false);
    // The value_index outputs, made once and shared (as a Const's value
    // is): a loop's Merge runs every iteration.
    for (int i = 0; i < ctx->num_inputs(); ++i) {
      indices_.push_back(Tensor::Scalar<int32_t>(i));
    }
  }
  void Compute(OpKernelContext* ctx) override {
    const bool ref = IsRefOp(*this);
    for (int i = 0; i < ctx->num_inputs(); ++i) {
      const bool live =
          ref ? ctx->input_ref(i).valid() : ctx->input(i).IsInitialized();
      if (!live) continue;
      if (ref) {
        ctx->forward_ref_input_to_ref_output(i, 0);
      } else {
        ctx->set_output(0, ctx->input(i));
      }
      ctx->set_output(1, indices_[i]);
      return;
    }
    ctx->SetStatus(absl::InternalError("Merge ran with no live input"));
  }

 private:
  std::vector<Tensor> indices_;
};

// Enter, Exit, NextIteration, LoopCond and their Ref forms: input 0 is
// output 0; the executor moves it between frames and iterations.
class ForwardOp : public OpKernel {
 public:
  explicit ForwardOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    set_expensive(false);
  }
  void Compute(OpKernelContext* ctx) override {
    if (IsRefOp(*this)) {
      ctx->forward_ref_input_to_ref_output(0, 0);
    } else {
      ctx->set_output(0, ctx->input(0));
    }
  }
};

class ControlTriggerOp : public OpKernel {
 public:
  explicit ControlTriggerOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    set_expensive(false);
  }
  void Compute(OpKernelContext*) override {}
};

class AssertOp : public OpKernel {
 public:
  explicit AssertOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    set_expensive(false);
    ctx->SetStatus(ctx->GetAttr("summarize", &summarize_));
  }
  void Compute(OpKernelContext* ctx) override {
    const Tensor& cond = ctx->input(0);
    DFX_OP_REQUIRES(ctx, cond.dims() == 0,
                    absl::InvalidArgumentError(absl::StrCat(
                        "In[0] should be a scalar: ",
                        cond.shape().DebugString())));
    if (cond.data<bool>()[0]) return;
    std::string message = "assertion failed: ";
    for (int i = 1; i < ctx->num_inputs(); ++i) {
      absl::StrAppend(&message, i > 1 ? " " : "", "[",
                      ctx->input(i).SummarizeValue(summarize_), "]");
    }
    ctx->SetStatus(absl::InvalidArgumentError(message));
  }

 private:
  int64_t summarize_ = 3;
};

}  // namespace

void RegisterControlFlowKernels(KernelRegistry* r) {
  for (const char* name : {"Switch", "RefSwitch"}) {
    RegisterKernel<SwitchOp>(r, KernelDefBuilder(name));
  }
  RegisterKernel<SwitchNOp>(r, KernelDefBuilder("_SwitchN"));
  for (const char* name : {"Merge", "RefMerge"}) {
    RegisterKernel<MergeOp>(r, KernelDefBuilder(name));
  }
  for (const char* name :
       {"Enter", "RefEnter", "Exit", "RefExit", "NextIteration",
        "RefNextIteration", "LoopCond"}) {
    RegisterKernel<ForwardOp>(r, KernelDefBuilder(name));
  }
  RegisterKernel<ControlTriggerOp>(r, KernelDefBuilder("ControlTrigger"));
  RegisterKernel<AssertOp>(r, KernelDefBuilder("Assert"));
}

}  // namespace dfx
