// Const, Placeholder, PlaceholderWithDefault, Identity, IdentityN and NoOp:
// kernels that produce or forward a tensor without touching its elements.
#include <string>

#include "absl/strings/str_cat.h"
#include "graph/shape_inference.h"
#include "kernels/array/array_util.h"

namespace dfx::array_internal {
namespace {

// Decodes `value` once; every step outputs that same buffer.
class ConstOp : public OpKernel {
 public:
  explicit ConstOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    set_expensive(false);
    TensorProto proto;
    absl::Status s = ctx->GetAttr("value", &proto);
    if (!s.ok()) {
      ctx->SetStatus(std::move(s));
      return;
    }
    absl::StatusOr<Tensor> value =
        Tensor::FromProto(proto, ctx->device()->GetAllocator());
    if (!value.ok()) {
      ctx->SetStatus(absl::InvalidArgumentError(absl::StrCat(
          "cannot parse attr 'value': ", value.status().message())));
      return;
    }
    if (value->dtype() != ctx->output_type(0)) {
      ctx->SetStatus(absl::InvalidArgumentError(absl::StrCat(
          "type mismatch between value (", DataTypeString(value->dtype()),
          ") and dtype (", DataTypeString(ctx->output_type(0)), ")")));
      return;
    }
    value_ = *std::move(value);
  }

  void Compute(OpKernelContext* ctx) override { ctx->set_output(0, value_); }

 private:
  Tensor value_;
};

// Runs only when the session did not feed it: always an error.
class PlaceholderOp : public OpKernel {
 public:
  explicit PlaceholderOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    set_expensive(false);
    DataType dtype = ctx->output_type(0);
    message_ = absl::StrCat("You must feed a value for placeholder tensor '",
                            ctx->def().name(), "' with dtype ",
                            DataTypeString(dtype));
    TensorShapeProto shape;
    if (ctx->GetAttr("shape", &shape).ok() && !shape.unknown_rank()) {
      absl::StrAppend(&message_, " and shape ",
                      PartialShape::FromProto(shape).DebugString());
    }
  }

  void Compute(OpKernelContext* ctx) override {
    ctx->SetStatus(absl::InvalidArgumentError(message_));
  }

 private:
  std::string message_;
};

// Outputs its inputs, sharing their buffers (Identity, IdentityN,
// PlaceholderWithDefault).
class ForwardInputsOp : public OpKernel {
 public:
  explicit ForwardInputsOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    set_expensive(false);
  }
  void Compute(OpKernelContext* ctx) override {
    for (int i = 0; i < ctx->num_inputs() && i < ctx->num_outputs(); ++i) {
      ctx->set_output(i, ctx->input(i));
    }
  }
};

class NoOp : public OpKernel {
 public:
  explicit NoOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    set_expensive(false);
  }
  void Compute(OpKernelContext*) override {}
};

}  // namespace

void RegisterIdentityKernels(KernelRegistry* registry) {
  RegisterKernel<ConstOp>(registry, KernelDefBuilder("Const"));
  RegisterKernel<PlaceholderOp>(registry, KernelDefBuilder("Placeholder"));
  RegisterKernel<ForwardInputsOp>(registry,
                                  KernelDefBuilder("PlaceholderWithDefault"));
  RegisterKernel<ForwardInputsOp>(registry, KernelDefBuilder("Identity"));
  RegisterKernel<ForwardInputsOp>(registry, KernelDefBuilder("IdentityN"));
  RegisterKernel<NoOp>(registry, KernelDefBuilder("NoOp"));
}

}  // namespace dfx::array_internal
