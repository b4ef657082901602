// _Send and _Recv: put a tensor into the step's rendezvous, and take it out.
#include <optional>

#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "kernels/kernels.h"
#include "runtime/rendezvous.h"

namespace dfx {
namespace {

// Builds the node's rendezvous key (frame 0:0) from its attrs, once.
absl::StatusOr<Rendezvous::ParsedKey> KeyFromAttrs(
    const OpKernelConstruction& ctx) {
  std::string tensor_name, send_device, recv_device;
  int64_t incarnation = 0;
  DFX_RETURN_IF_ERROR(ctx.GetAttr("tensor_name", &tensor_name));
  DFX_RETURN_IF_ERROR(ctx.GetAttr("send_device", &send_device));
  DFX_RETURN_IF_ERROR(ctx.GetAttr("recv_device", &recv_device));
  DFX_RETURN_IF_ERROR(ctx.GetAttr("send_device_incarnation", &incarnation));
  return Rendezvous::ParsedKey::Parse(
      Rendezvous::CreateKey(send_device, static_cast<uint64_t>(incarnation),
                            recv_device, tensor_name));
}

class SendOp : public OpKernel {
 public:
  explicit SendOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    set_expensive(false);
    auto key = KeyFromAttrs(*ctx);
    if (!key.ok()) {
      ctx->SetStatus(key.status());
      return;
    }
    key_.emplace(*std::move(key));
  }

  void Compute(OpKernelContext* ctx) override {
    DFX_OP_REQUIRES(ctx, ctx->rendezvous() != nullptr,
                    absl::FailedPreconditionError(
                        "_Send runs only in a step with a rendezvous"));
    Rendezvous::Args args;
    args.cancellation_manager = ctx->cancellation_manager();
    DFX_OP_REQUIRES_OK(ctx, ctx->rendezvous()->Send(*key_, args, ctx->input(0),
                                                    ctx->is_input_dead()));
  }

 private:
  std::optional<Rendezvous::ParsedKey> key_;
};

class RecvOp : public AsyncOpKernel {
 public:
  explicit RecvOp(OpKernelConstruction* ctx) : AsyncOpKernel(ctx) {
    set_expensive(false);
    auto key = KeyFromAttrs(*ctx);
    if (!key.ok()) {
      ctx->SetStatus(key.status());
      return;
    }
    key_.emplace(*std::move(key));
  }

  void ComputeAsync(OpKernelContext* ctx, DoneCallback done) override {
    DFX_OP_REQUIRES_ASYNC(ctx, ctx->rendezvous() != nullptr,
                          absl::FailedPreconditionError(
                              "_Recv runs only in a step with a rendezvous"),
                          done);
    Rendezvous::Args args;
    args.cancellation_manager = ctx->cancellation_manager();
    ctx->rendezvous()->RecvAsync(
        *key_, args,
        [ctx, done = std::move(done), want = output_type(0)](
            const absl::Status& s, const Tensor& value, bool is_dead) {
          if (!s.ok()) {
            ctx->SetStatus(s);
          } else if (is_dead) {
            ctx->set_is_output_dead(true);
          } else if (value.dtype() != want) {
            ctx->SetStatus(absl::InvalidArgumentError(absl::StrCat(
                "received a ", DataTypeString(value.dtype()),
                " tensor, expected ", DataTypeString(want))));
          } else {
            ctx->set_output(0, value);
          }
          done();
        });
  }

 private:
  std::optional<Rendezvous::ParsedKey> key_;
};

}  // namespace

void RegisterSendRecvKernels(KernelRegistry* registry) {
  for (const char* device : {"CPU", "GPU"}) {
    RegisterKernel<SendOp>(registry, KernelDefBuilder("_Send").Device(device));
    RegisterKernel<SendOp>(registry,
                           KernelDefBuilder("_HostSend").Device(device));
    RegisterKernel<RecvOp>(registry, KernelDefBuilder("_Recv").Device(device));
    RegisterKernel<RecvOp>(registry,
                           KernelDefBuilder("_HostRecv").Device(device));
  }
}

}  // namespace dfx
