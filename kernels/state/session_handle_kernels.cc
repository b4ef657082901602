// The sess family's kernels: GetSessionHandle(V2), GetSessionTensor and
// DeleteSessionTensor over the session state a worker session gives each
// step (runtime/session_state.h).
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "runtime/op_kernel.h"
#include "runtime/resource_handle.h"
#include "runtime/resource_mgr.h"
#include "runtime/session_state.h"

namespace dfx {
namespace {

absl::StatusOr<std::shared_ptr<SessionStepResource>> StepState(
    OpKernelContext* ctx, absl::string_view op) {
  return LookupSessionStep(*ctx->resource_manager(), ctx->step_id(), op);
}

// The handle input: a string scalar.
absl::StatusOr<std::string> HandleInput(OpKernelContext* ctx) {
  const Tensor& handle = ctx->input(0);
  if (handle.dims() != 0) {
    return absl::InvalidArgumentError("handle must be scalar");
  }
  return handle.scalar<std::string>();
}

// Stores input 0 in the step's tensor store under the node's name and
// returns its handle "<node>;<id>;<device>": the device names the task, so
// a client places the reading GetSessionTensor there (TensorFlow's Python
// client does). The store saves it into the session when the step ends
// well and the client fetched the handle.
class GetSessionHandleOp : public OpKernel {
 public:
  explicit GetSessionHandleOp(OpKernelConstruction* c)
      : OpKernel(c), v2_(c->def().op() == "GetSessionHandleV2") {}

  void Compute(OpKernelContext* ctx) override {
    absl::StatusOr<std::shared_ptr<SessionStepResource>> step =
        StepState(ctx, "GetSessionHandle");
    DFX_OP_REQUIRES_OK(ctx, step.status());
    const int64_t id = (*step)->state()->GetNewId();
    const std::string& device = ctx->device()->name();
    DFX_OP_REQUIRES_OK(
        ctx, (*step)->store()->AddTensor(name(), ctx->input(0), id, device));
    const std::string handle = TensorStore::MakeHandle(name(), id, device);
    Tensor* out = nullptr;
    DFX_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, TensorShape(), &out));
    if (v2_) {
      ResourceHandle& h = out->scalar<ResourceHandle>();
      h.set_device(device);
      h.set_container(ctx->resource_manager()->default_container());
      h.set_name(handle);
      h.set_maybe_type_name("TensorHandle");
    } else {
      out->scalar<std::string>() = handle;
    }
  }

 private:
  const bool v2_;
};

class GetSessionTensorOp : public OpKernel {
 public:
  explicit GetSessionTensorOp(OpKernelConstruction* c) : OpKernel(c) {
    c->SetStatus(c->GetAttr("dtype", &dtype_));
  }

  void Compute(OpKernelContext* ctx) override {
    absl::StatusOr<std::string> handle = HandleInput(ctx);
    DFX_OP_REQUIRES_OK(ctx, handle.status());
    absl::StatusOr<std::shared_ptr<SessionStepResource>> step =
        StepState(ctx, "GetSessionTensor");
    DFX_OP_REQUIRES_OK(ctx, step.status());
    absl::StatusOr<Tensor> value = (*step)->state()->GetTensor(*handle);
    if (!value.ok()) {
      // A handle of another task: say where it lives (the tensor is only
      // ever read on the device its handle names).
      const size_t at = handle->rfind(';');
      const absl::string_view device =
          at == std::string::npos ? absl::string_view()
                                  : absl::string_view(*handle).substr(at + 1);
      if (!device.empty() && device != ctx->device()->name()) {
        value = absl::InvalidArgumentError(absl::StrCat(
            value.status().message(), " It was stored on ", device,
            "; read it with a GetSessionTensor placed there (this one runs "
            "on ",
            ctx->device()->name(), ")."));
      }
    }
    DFX_OP_REQUIRES_OK(ctx, value.status());
    if (value->dtype() != dtype_) {
      // TensorFlow's executor rejects the output the same way.
      ctx->SetStatus(absl::InternalError(absl::StrCat(
          "Output 0 of type ", DataTypeString(value->dtype()),
          " does not match declared output type ", DataTypeString(dtype_),
          " for node ", name(), " (handle '", *handle, "')")));
      return;
    }
    ctx->set_output(0, *std::move(value));
  }

 private:
  DataType dtype_ = DT_INVALID;
};

class DeleteSessionTensorOp : public OpKernel {
 public:
  using OpKernel::OpKernel;

  void Compute(OpKernelContext* ctx) override {
    absl::StatusOr<std::string> handle = HandleInput(ctx);
    DFX_OP_REQUIRES_OK(ctx, handle.status());
    absl::StatusOr<std::shared_ptr<SessionStepResource>> step =
        StepState(ctx, "DeleteSessionTensor");
    DFX_OP_REQUIRES_OK(ctx, step.status());
    DFX_OP_REQUIRES_OK(ctx, (*step)->state()->DeleteTensor(*handle));
  }
};

}  // namespace

void RegisterSessKernels(KernelRegistry* r) {
  // Every dtype, as TensorFlow's CPU kernels (no type constraint).
  RegisterKernel<GetSessionHandleOp>(r, KernelDefBuilder("GetSessionHandle"));
  RegisterKernel<GetSessionHandleOp>(r, KernelDefBuilder("GetSessionHandleV2"));
  RegisterKernel<GetSessionTensorOp>(r, KernelDefBuilder("GetSessionTensor"));
  RegisterKernel<DeleteSessionTensorOp>(
      r, KernelDefBuilder("DeleteSessionTensor"));
}

}  // namespace dfx
