// _Send and _Recv (and the user-level Send and Recv): put a tensor into the
// step's rendezvous, and take it out.
#include <optional>
#include <string_view>

#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "kernels/kernels.h"
#include "runtime/device.h"
#include "runtime/device_copy.h"
#include "runtime/rendezvous.h"

namespace dfx {
namespace {

// A device tensor for another task up to this size is copied to the host
// at its _Send, as before, so that the push path (which carries tensors up
// to the same 64 KiB, worker/worker_cache_fetcher.h) still takes it to its
// receiver without a RecvTensor round trip; a bigger one is left on the
// device for RecvTensor to copy out by range.
constexpr size_t kCopiedAtSendBytes = size_t{64} << 10;

// The rendezvous key of a _Send or _Recv: built from its attrs once for the
// top level (frame 0:0), and per frame and iteration inside loops.
class KeyMaker {
 public:
  absl::Status Init(const OpKernelConstruction& ctx) {
    DFX_RETURN_IF_ERROR(ctx.GetAttr("tensor_name", &tensor_name_));
    DFX_RETURN_IF_ERROR(ctx.GetAttr("send_device", &send_device_));
    DFX_RETURN_IF_ERROR(ctx.GetAttr("recv_device", &recv_device_));
    DFX_RETURN_IF_ERROR(
        ctx.GetAttr("send_device_incarnation", &incarnation_));
    DFX_ASSIGN_OR_RETURN(Rendezvous::ParsedKey key, Make(FrameAndIter{}));
    top_.emplace(std::move(key));
    return absl::OkStatus();
  }

  // The key of this call: the top-level one, or one built in `scratch`.
  const Rendezvous::ParsedKey& For(
      const OpKernelContext& ctx,
      std::optional<Rendezvous::ParsedKey>* scratch) const {
    const FrameAndIter f = ctx.frame_iter();
    if (f.frame_id == 0 && f.iter_id == 0) return *top_;
    scratch->emplace(top_->WithFrameIter(f));
    return **scratch;
  }

 private:
  absl::StatusOr<Rendezvous::ParsedKey> Make(FrameAndIter f) const {
    return Rendezvous::ParsedKey::Parse(Rendezvous::CreateKey(
        send_device_, static_cast<uint64_t>(incarnation_), recv_device_,
        tensor_name_, f));
  }

  std::string tensor_name_, send_device_, recv_device_;
  int64_t incarnation_ = 0;
  std::optional<Rendezvous::ParsedKey> top_;
};

class SendOp : public OpKernel {
 public:
  explicit SendOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    set_expensive(false);
    absl::Status s = keys_.Init(*ctx);
    if (!s.ok()) ctx->SetStatus(std::move(s));
    // A fetch the worker itself receives (RunGraph's recv_key); never
    // pushed to its recv_device's task.
    bool client_terminated = false;
    if (ctx->GetAttr("client_terminated", &client_terminated).ok()) {
      client_terminated_ = client_terminated;
    }
  }

  void Compute(OpKernelContext* ctx) override {
    DFX_OP_REQUIRES(ctx, ctx->rendezvous() != nullptr,
                    absl::FailedPreconditionError(
                        "_Send runs only in a step with a rendezvous"));
    std::optional<Rendezvous::ParsedKey> scratch;
    const Rendezvous::ParsedKey& key = keys_.For(*ctx, &scratch);
    Rendezvous::Args args;
    args.cancellation_manager = ctx->cancellation_manager();
    args.client_terminated = client_terminated_;
    // A CPU's tensors are host tensors (on a device the host cannot read,
    // _Send is DeviceSendOp, and _HostSend's input is moved to the host
    // before it runs).
    DFX_OP_REQUIRES_OK(ctx, ctx->rendezvous()->Send(key, args, ctx->input(0),
                                                    ctx->is_input_dead()));
  }

 private:
  KeyMaker keys_;
  bool client_terminated_ = true;
};

// _Send on a device whose memory the host cannot read (a GPU): a host
// tensor (_HostSend's, an int32, a dead one) goes into the rendezvous at
// once, as SendOp's; a device tensor is copied to the host first,
// asynchronously (runtime/device_copy.h), and sent from the copy's
// callback, so no thread waits for the DMA. A rendezvous holds host
// tensors but for two exceptions (see ComputeAsync): a tensor from one GPU
// to another of the same task stays in GPU memory and is sent as soon as
// its producer is enqueued (the receiving GPU orders its copy after the
// sender's work, CopySource, with no host wait; a sender that is not an
// AsyncCopyDevice synchronizes its device first); and one of more than
// kCopiedAtSendBytes for another task, also sent at once, which RecvTensor
// copies out by range after the device's work (DeviceRangeCopier).
class DeviceSendOp : public AsyncOpKernel {
 public:
  explicit DeviceSendOp(OpKernelConstruction* ctx) : AsyncOpKernel(ctx) {
    set_expensive(false);
    absl::Status s = keys_.Init(*ctx);
    if (!s.ok()) ctx->SetStatus(std::move(s));
    bool client_terminated = false;
    if (ctx->GetAttr("client_terminated", &client_terminated).ok()) {
      client_terminated_ = client_terminated;
    }
  }

  void ComputeAsync(OpKernelContext* ctx, DoneCallback done) override {
    DFX_OP_REQUIRES_ASYNC(ctx, ctx->rendezvous() != nullptr,
                          absl::FailedPreconditionError(
                              "_Send runs only in a step with a rendezvous"),
                          done);
    std::optional<Rendezvous::ParsedKey> scratch;
    const Rendezvous::ParsedKey& key = keys_.For(*ctx, &scratch);
    Rendezvous::Args args;
    args.cancellation_manager = ctx->cancellation_manager();
    args.client_terminated = client_terminated_;
    if (ctx->is_input_dead() || ctx->input(0).OnHost()) {
      ctx->SetStatus(ctx->rendezvous()->Send(key, args, ctx->input(0),
                                             ctx->is_input_dead()));
      done();
      return;
    }
    Device* device = ctx->device();
    // A rendezvous holds host tensors, but for two exceptions, each in its
    // device's memory: a tensor from one GPU to another of the same task,
    // which the receiving GPU copies directly (peer to peer where it can),
    // ordered after this device's work by an event; and a tensor of more
    // than kCopiedAtSendBytes for another task, which RecvTensor copies
    // out by range while it sends (rpc/held_tensors.h; the key's source
    // device is where it is), each range's copy ordered after the
    // device's work as Device::CopyToHost's is: no host wait here.
    const bool same_task = key.src().IsSameTask(key.dst());
    if (key.dst().type == "GPU" && same_task) {
      if (AsAsyncCopyDevice(device) == nullptr) {
        DFX_OP_REQUIRES_OK_ASYNC(ctx, device->Synchronize(), done);
      }
      ctx->SetStatus(ctx->rendezvous()->Send(key, args, ctx->input(0),
                                             /*is_dead=*/false));
      done();
      return;
    }
    if (!same_task && !client_terminated_ &&
        ctx->input(0).TotalBytes() > kCopiedAtSendBytes) {
      ctx->SetStatus(ctx->rendezvous()->Send(key, args, ctx->input(0),
                                             /*is_dead=*/false));
      done();
      return;
    }
    // The key may live in `scratch`: the callback keeps its own.
    CopyToHostAsync(
        device, ctx->input(0), ctx->cancellation_manager(),
        [ctx, done = std::move(done), key = Rendezvous::ParsedKey(key),
         args](absl::StatusOr<Tensor> host) {
          if (host.ok()) {
            ctx->SetStatus(ctx->rendezvous()->Send(key, args, *host,
                                                   /*is_dead=*/false));
          } else {
            ctx->SetStatus(host.status());
          }
          done();
        });
  }

 private:
  KeyMaker keys_;
  bool client_terminated_ = true;
};

class RecvOp : public AsyncOpKernel {
 public:
  explicit RecvOp(OpKernelConstruction* ctx) : AsyncOpKernel(ctx) {
    set_expensive(false);
    absl::Status s = keys_.Init(*ctx);
    if (!s.ok()) ctx->SetStatus(std::move(s));
    // The receiving end of a graph edge between tasks: its _Send may push.
    bool client_terminated = false;
    if (ctx->GetAttr("client_terminated", &client_terminated).ok()) {
      client_terminated_ = client_terminated;
    }
  }

  void ComputeAsync(OpKernelContext* ctx, DoneCallback done) override {
    DFX_OP_REQUIRES_ASYNC(ctx, ctx->rendezvous() != nullptr,
                          absl::FailedPreconditionError(
                              "_Recv runs only in a step with a rendezvous"),
                          done);
    std::optional<Rendezvous::ParsedKey> scratch;
    const Rendezvous::ParsedKey& key = keys_.For(*ctx, &scratch);
    Rendezvous::Args args;
    args.cancellation_manager = ctx->cancellation_manager();
    args.client_terminated = client_terminated_;
    ctx->rendezvous()->RecvAsync(
        key, args,
        [ctx, done = std::move(done), want = output_type(0),
         feed = client_terminated_, src_incarnation = key.src_incarnation(),
         // A device the host cannot read gets its own copy of the value,
         // unless the output is in host memory (_HostRecv, int32).
         device = output_on_host(0) ? nullptr : ctx->device()](
            const absl::Status& s, const Tensor& value, bool is_dead) {
          if (!s.ok()) {
            ctx->SetStatus(s);
          } else if (is_dead) {
            ctx->set_is_output_dead(true);
          } else if (value.dtype() != want && feed) {
            // The client's input: its error.
            ctx->SetStatus(absl::InvalidArgumentError(absl::StrCat(
                "received a ", DataTypeString(value.dtype()),
                " tensor, expected ", DataTypeString(want))));
          } else if (value.dtype() != want) {
            // Internal, as TensorFlow's executor reports an output of
            // another type than the kernel declares.
            ctx->SetStatus(absl::InternalError(absl::StrCat(
                "Output 0 of type ", DataTypeString(value.dtype()),
                " does not match declared output type ",
                DataTypeString(want))));
          } else if (device == nullptr && !value.OnHost()) {
            ctx->SetStatus(absl::InternalError(
                "received a tensor in another device's memory where host "
                "memory is needed"));
          } else if (device != nullptr) {
            // A host tensor, or another GPU's of this task (DeviceSendOp),
            // whose incarnation is the key's: copied asynchronously, and
            // `done` runs when it has landed (or the step is cancelled).
            CopySource source;
            if (!value.OnHost()) source.device_incarnation = src_incarnation;
            CopyFromHostAsync(
                device, value, source, ctx->cancellation_manager(),
                [ctx, done = std::move(done)](absl::StatusOr<Tensor> copy) {
                  if (copy.ok()) {
                    ctx->set_output(0, *std::move(copy));
                  } else {
                    ctx->SetStatus(copy.status());
                  }
                  done();
                });
            return;
          } else {
            ctx->set_output(0, value);
          }
          done();
        });
  }

 private:
  KeyMaker keys_;
  bool client_terminated_ = true;
};

}  // namespace

void RegisterSendRecvKernels(KernelRegistry* registry) {
  for (const char* device : {"CPU", "GPU"}) {
    const bool cpu = std::string_view(device) == "CPU";
    if (cpu) {
      RegisterKernel<SendOp>(registry,
                             KernelDefBuilder("_Send").Device(device));
      RegisterKernel<SendOp>(registry, KernelDefBuilder("Send").Device(device));
    } else {
      RegisterKernel<DeviceSendOp>(registry,
                                   KernelDefBuilder("_Send").Device(device));
      RegisterKernel<DeviceSendOp>(registry,
                                   KernelDefBuilder("Send").Device(device));
    }
    // _HostSend/_HostRecv: the tensor is in host memory (on a GPU, the
    // executor copies _HostSend's input out first).
    RegisterKernel<SendOp>(
        registry, KernelDefBuilder("_HostSend").Device(device).HostMemory(
                      "tensor"));
    RegisterKernel<RecvOp>(registry, KernelDefBuilder("_Recv").Device(device));
    // The user-level Send and Recv (tf.raw_ops; the misc2 family's ops in
    // graph/ops/misc2_ops.cc) have _Send's and _Recv's attrs and meaning.
    RegisterKernel<RecvOp>(registry, KernelDefBuilder("Recv").Device(device));
    RegisterKernel<RecvOp>(
        registry, KernelDefBuilder("_HostRecv").Device(device).HostMemory(
                      "tensor"));
  }
}

}  // namespace dfx
