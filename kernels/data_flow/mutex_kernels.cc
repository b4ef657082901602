// Kernels of tf.CriticalSection's ops: MutexV2 (a handle), MutexLock (waits
// for the mutex without holding a thread; its output holds it) and
// ConsumeMutexLock (checks that its input is the lock's only holder).
#include <memory>
#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "kernels/data_flow/mutex.h"
#include "kernels/kernels.h"
#include "kernels/state/variable_util.h"
#include "runtime/device.h"
#include "runtime/resource_mgr.h"

namespace dfx {
namespace {

using data_flow::Mutex;
using data_flow::MutexLockValue;

// TensorFlow's ResourceHandleOp<Mutex>: the handle names shared_name as it
// is, so every MutexV2 of an empty shared_name in a container is one mutex
// (tf.CriticalSection always names its own).
class MutexV2Op : public OpKernel {
 public:
  explicit MutexV2Op(OpKernelConstruction* c) : OpKernel(c) {
    set_expensive(false);
    std::string container, shared_name;
    c->SetStatus(c->GetAttr("container", &container));
    c->SetStatus(c->GetAttr("shared_name", &shared_name));
    if (!c->status().ok()) return;
    ResourceHandle& h = handle_.scalar<ResourceHandle>();
    h.set_device(c->device()->name());
    h.set_container(container.empty()
                        ? c->device()->resource_manager()->default_container()
                        : container);
    h.set_name(shared_name);
    h.set_maybe_type_name(Mutex::kTypeName);
  }

  void Compute(OpKernelContext* ctx) override { ctx->set_output(0, handle_); }

 private:
  Tensor handle_{DT_RESOURCE, TensorShape()};
};

class MutexLockOp : public AsyncOpKernel {
 public:
  explicit MutexLockOp(OpKernelConstruction* c) : AsyncOpKernel(c) {}

  void ComputeAsync(OpKernelContext* ctx, DoneCallback done) override {
    absl::StatusOr<const ResourceHandle*> h = HandleFromInput(ctx, 0);
    DFX_OP_REQUIRES_OK_ASYNC(ctx, h.status(), done);
    // TensorFlow checks the handle's type: a variable's handle does not
    // name a mutex.
    const std::string& type = (*h)->maybe_type_name();
    DFX_OP_REQUIRES_ASYNC(
        ctx, type.empty() || type == Mutex::kTypeName,
        absl::InvalidArgumentError(absl::StrCat(
            "Trying to access a handle's resource using the wrong type. The "
            "handle points to a resource (name '",
            (*h)->name(), "') of type '", type,
            "' but you are trying to access the resource as type 'Mutex'")),
        done);
    ThreadPool* pool = ctx->device()->intra_op_pool();
    const std::string name = (*h)->name();
    absl::StatusOr<std::shared_ptr<Mutex>> mutex =
        ctx->resource_manager()->LookupOrCreate<Mutex>(
            (*h)->container(), name,
            [&name, pool] { return std::make_shared<Mutex>(name, pool); });
    DFX_OP_REQUIRES_OK_ASYNC(ctx, mutex.status(), done);
    (*mutex)->Lock(
        ctx->cancellation_manager(),
        [ctx, done = std::move(done)](absl::Status status, Variant lock) {
          if (!status.ok()) {
            ctx->SetStatus(std::move(status));
          } else {
            Tensor out(DT_VARIANT, TensorShape());
            out.scalar<Variant>() = std::move(lock);
            ctx->set_output(0, std::move(out));
          }
          done();
        });
  }
};

class ConsumeMutexLockOp : public OpKernel {
 public:
  explicit ConsumeMutexLockOp(OpKernelConstruction* c) : OpKernel(c) {
    set_expensive(false);
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& lock = ctx->input(0);
    DFX_OP_REQUIRES(ctx, lock.dims() == 0,
                    absl::InvalidArgumentError(
                        absl::StrCat("Expected input to be a scalar, saw "
                                     "shape: ",
                                     lock.shape().DebugString())));
    DFX_OP_REQUIRES(ctx, lock.dtype() == DT_VARIANT,
                    absl::InvalidArgumentError(absl::StrCat(
                        "Expected input to be a variant, saw type: ",
                        DataTypeString(lock.dtype()))));
    const Variant& v = lock.scalar<Variant>();
    DFX_OP_REQUIRES(
        ctx, v.get<MutexLockValue>() != nullptr,
        absl::InvalidArgumentError(absl::StrCat(
            "Expected input to contain a SharedLockReleaser object, but saw "
            "variant: '",
            v.DebugString(), "'")));
    // The lock is released when its last holder goes: one that another
    // tensor still shares would outlive the critical section.
    const long use_count = v.use_count();
    DFX_OP_REQUIRES(
        ctx, use_count == 1,
        absl::InvalidArgumentError(absl::StrCat(
            "Expected use count of lock to be 1, but saw: ", use_count)));
  }
};

}  // namespace

void RegisterMutexKernels(KernelRegistry* registry) {
  RegisterKernel<MutexV2Op>(registry, KernelDefBuilder("MutexV2"));
  RegisterKernel<MutexLockOp>(registry, KernelDefBuilder("MutexLock"));
  RegisterKernel<ConsumeMutexLockOp>(registry,
                                     KernelDefBuilder("ConsumeMutexLock"));
}

}  // namespace dfx
