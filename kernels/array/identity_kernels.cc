// Const, Placeholder, PlaceholderWithDefault, Identity and its aliases
// (IdentityN, StopGradient, PreventGradient, Snapshot, GuaranteeConst),
// EnsureShape, CheckNumerics and NoOp: kernels that produce, check or
// forward a tensor without changing its elements.
#include <cmath>
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
    // Decoded in host memory; a GPU's copy is made once, here.
    Device* device = ctx->device();
    absl::StatusOr<Tensor> value =
        Tensor::FromProto(proto, device->GetHostAllocator());
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
    if (!device->HostReadable() && !AlwaysInHostMemory(value->dtype())) {
      value = device->CopyFromHost(*value);
      if (!value.ok()) {
        ctx->SetStatus(value.status());
        return;
      }
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

// Forwards its input when its shape matches the `shape` attr (unknown dims
// match anything); InvalidArgument otherwise, as TensorFlow's EnsureShape.
class EnsureShapeOp : public OpKernel {
 public:
  explicit EnsureShapeOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    set_expensive(false);
    TensorShapeProto proto;
    ctx->SetStatus(ctx->GetAttr("shape", &proto));
    shape_ = PartialShape::FromProto(proto);
  }
  void Compute(OpKernelContext* ctx) override {
    const Tensor& in = ctx->input(0);
    bool ok = !shape_.RankKnown() || shape_.rank() == in.dims();
    for (int i = 0; ok && shape_.RankKnown() && i < in.dims(); ++i) {
      ok = shape_.dims[i] < 0 || shape_.dims[i] == in.dim_size(i);
    }
    DFX_OP_REQUIRES(ctx, ok,
                    absl::InvalidArgumentError(absl::StrCat(
                        "Shape of tensor ", def().input(0), " ",
                        in.shape().DebugString(),
                        " is not compatible with expected shape ",
                        shape_.DebugString(), ".")));
    ctx->set_output(0, in);
  }

 private:
  PartialShape shape_;
};

// Forwards a floating-point tensor that holds no NaN or Inf; otherwise
// InvalidArgument "<message> : Tensor had NaN values" (or Inf), as
// TensorFlow's CheckNumerics.
template <typename T>
class CheckNumericsOp : public OpKernel {
 public:
  explicit CheckNumericsOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    ctx->SetStatus(ctx->GetAttr("message", &message_));
  }
  void Compute(OpKernelContext* ctx) override {
    const Tensor& in = ctx->input(0);
    bool nan = false;
    bool inf = false;
    for (const T& v : in.span<T>()) {
      const float f = static_cast<float>(v);
      nan |= std::isnan(f);
      inf |= std::isinf(f);
    }
    DFX_OP_REQUIRES(
        ctx, !nan && !inf,
        absl::InvalidArgumentError(absl::StrCat(
            message_, " : Tensor had ",
            nan && inf ? "Inf and NaN" : (nan ? "NaN" : "Inf"), " values")));
    ctx->set_output(0, in);
  }

 private:
  std::string message_;
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
  for (const char* device : {"CPU", "GPU"}) {
    RegisterKernel<ConstOp>(registry, KernelDefBuilder("Const").Device(device));
    RegisterKernel<NoOp>(registry, KernelDefBuilder("NoOp").Device(device));
  }
  RegisterKernel<PlaceholderOp>(registry, KernelDefBuilder("Placeholder"));
  RegisterKernel<PlaceholderOp>(registry, KernelDefBuilder("PlaceholderV2"));
  RegisterKernel<ConstOp>(registry, KernelDefBuilder("HostConst"));
  RegisterKernel<ForwardInputsOp>(registry,
                                  KernelDefBuilder("PlaceholderWithDefault"));
  RegisterKernel<ForwardInputsOp>(registry, KernelDefBuilder("Identity"));
  RegisterKernel<ForwardInputsOp>(registry, KernelDefBuilder("IdentityN"));
  for (const char* name :
       {"StopGradient", "PreventGradient", "Snapshot", "GuaranteeConst"}) {
    RegisterKernel<ForwardInputsOp>(registry, KernelDefBuilder(name));
  }
  RegisterKernel<EnsureShapeOp>(registry, KernelDefBuilder("EnsureShape"));
  for (const char* name : {"CheckNumerics", "CheckNumericsV2"}) {
    RegisterKernel<CheckNumericsOp<float>>(
        registry, KernelDefBuilder(name).TypeConstraint<float>("T"));
    RegisterKernel<CheckNumericsOp<double>>(
        registry, KernelDefBuilder(name).TypeConstraint<double>("T"));
    RegisterKernel<CheckNumericsOp<Eigen::half>>(
        registry, KernelDefBuilder(name).TypeConstraint<Eigen::half>("T"));
    RegisterKernel<CheckNumericsOp<Eigen::bfloat16>>(
        registry, KernelDefBuilder(name).TypeConstraint<Eigen::bfloat16>("T"));
  }
}

}  // namespace dfx::array_internal
