#include <cstdint>

#include "absl/strings/str_cat.h"
#include "kernels/kernels.h"

namespace dfx {
namespace {

// _Arg: output 0 is argument `index` of the step's call frame.
class ArgOp : public OpKernel {
 public:
  explicit ArgOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    set_expensive(false);
    int64_t index = 0;
    ctx->SetStatus(ctx->GetAttr("index", &index));
    index_ = static_cast<int>(index);
  }

  void Compute(OpKernelContext* ctx) override {
    CallFrameInterface* frame = ctx->call_frame();
    DFX_OP_REQUIRES(ctx, frame != nullptr,
                    absl::InternalError("no call frame to read _Arg from"));
    Tensor value;
    DFX_OP_REQUIRES_OK(ctx, frame->GetArg(index_, &value));
    const DataType want = BaseType(output_type(0));
    DFX_OP_REQUIRES(
        ctx, value.dtype() == want,
        absl::InvalidArgumentError(absl::StrCat(
            "argument ", index_, " is a ", DataTypeString(value.dtype()),
            " tensor, expected ", DataTypeString(want))));
    ctx->set_output(0, std::move(value));
  }

 private:
  int index_ = 0;
};

// _Retval: input 0 becomes return value `index` of the step's call frame.
class RetvalOp : public OpKernel {
 public:
  explicit RetvalOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    set_expensive(false);
    int64_t index = 0;
    ctx->SetStatus(ctx->GetAttr("index", &index));
    index_ = static_cast<int>(index);
  }

  void Compute(OpKernelContext* ctx) override {
    CallFrameInterface* frame = ctx->call_frame();
    DFX_OP_REQUIRES(ctx, frame != nullptr,
                    absl::InternalError("no call frame to write _Retval to"));
    DFX_OP_REQUIRES_OK(ctx, frame->SetRetval(index_, ctx->input(0)));
  }

 private:
  int index_ = 0;
};

}  // namespace

void RegisterFunctionKernels(KernelRegistry* registry) {
  RegisterKernel<ArgOp>(registry, KernelDefBuilder("_Arg"));
  RegisterKernel<RetvalOp>(registry, KernelDefBuilder("_Retval"));
}

}  // namespace dfx
