// Kernels of the Optional ops: a DT_VARIANT scalar holding an OptionalValue
// (zero or more tensors).
#include <vector>

#include "absl/strings/str_cat.h"
#include "kernels/kernels.h"
#include "kernels/list/optional_value.h"
#include "runtime/variant.h"

namespace dfx {
namespace {

void SetOptional(OpKernelContext* ctx, Variant v) {
  Tensor out(DT_VARIANT, TensorShape({}));
  out.data<Variant>()[0] = std::move(v);
  ctx->set_output(0, std::move(out));
}

absl::StatusOr<const OptionalValue*> ReadOptional(OpKernelContext* ctx) {
  const Tensor& in = ctx->input(0);
  if (in.dtype() != DT_VARIANT || in.NumElements() != 1) {
    return absl::InvalidArgumentError(absl::StrCat(
        "Input tensor must be a scalar variant, got shape ",
        in.shape().DebugString()));
  }
  const OptionalValue* opt = in.data<Variant>()[0].get<OptionalValue>();
  if (opt == nullptr) {
    return absl::InvalidArgumentError(absl::StrCat(
        "Input tensor must be an Optional, got ",
        in.data<Variant>()[0].DebugString()));
  }
  return opt;
}

class OptionalFromValueOp : public OpKernel {
 public:
  explicit OptionalFromValueOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    set_expensive(false);
  }
  void Compute(OpKernelContext* ctx) override {
    std::vector<Tensor> values;
    for (int i = 0; i < ctx->num_inputs(); ++i) values.push_back(ctx->input(i));
    SetOptional(ctx, Variant::Make<OptionalValue>(std::move(values)));
  }
};

class OptionalNoneOp : public OpKernel {
 public:
  explicit OptionalNoneOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    set_expensive(false);
  }
  void Compute(OpKernelContext* ctx) override {
    SetOptional(ctx, Variant::Make<OptionalValue>());
  }
};

class OptionalHasValueOp : public OpKernel {
 public:
  explicit OptionalHasValueOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    set_expensive(false);
  }
  void Compute(OpKernelContext* ctx) override {
    absl::StatusOr<const OptionalValue*> opt = ReadOptional(ctx);
    DFX_OP_REQUIRES_OK(ctx, opt.status());
    ctx->set_output(0, Tensor::Scalar<bool>((*opt)->has_value()));
  }
};

class OptionalGetValueOp : public OpKernel {
 public:
  explicit OptionalGetValueOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    set_expensive(false);
  }
  void Compute(OpKernelContext* ctx) override {
    absl::StatusOr<const OptionalValue*> opt = ReadOptional(ctx);
    DFX_OP_REQUIRES_OK(ctx, opt.status());
    DFX_OP_REQUIRES(ctx, (*opt)->has_value(),
                    absl::InvalidArgumentError(
                        "The optional variant does not have a value."));
    const std::vector<Tensor>& values = (*opt)->values();
    DFX_OP_REQUIRES(
        ctx, static_cast<int>(values.size()) == ctx->num_outputs(),
        absl::InvalidArgumentError(absl::StrCat(
            "The optional holds ", values.size(), " values; ",
            ctx->num_outputs(), " were expected")));
    for (int i = 0; i < ctx->num_outputs(); ++i) {
      DFX_OP_REQUIRES(
          ctx, values[i].dtype() == BaseType(output_type(i)),
          absl::InvalidArgumentError(absl::StrCat(
              "Value ", i, " of the optional is ",
              DataTypeString(values[i].dtype()), ", expected ",
              DataTypeString(BaseType(output_type(i))))));
      ctx->set_output(i, values[i]);
    }
  }
};

}  // namespace

void RegisterOptionalKernels(KernelRegistry* r) {
  RegisterKernel<OptionalFromValueOp>(r, KernelDefBuilder("OptionalFromValue"));
  RegisterKernel<OptionalNoneOp>(r, KernelDefBuilder("OptionalNone"));
  RegisterKernel<OptionalHasValueOp>(r, KernelDefBuilder("OptionalHasValue"));
  RegisterKernel<OptionalGetValueOp>(r, KernelDefBuilder("OptionalGetValue"));
}

}  // namespace dfx
