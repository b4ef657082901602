// Helpers for kernels that read or update variables, in both forms: a
// reference input (VariableV2's `float_ref`) or a resource handle
// (VarHandleOp's DT_RESOURCE scalar) naming a Var in this device's
// ResourceMgr. The optimizer kernels (kernels/training/) build on them.
//
// Locking follows TensorFlow: readers hold a variable's mutex shared while
// they take their snapshot; writers that replace the tensor object hold it
// exclusively; in-place element updates hold it exclusively when the op's
// `use_locking` is true and not at all otherwise (TensorFlow's racy,
// "Hogwild" updates, which many PS setups choose for speed).
//
// A resource variable's buffer is copied before an in-place update when a
// reader still shares it, so a ReadVariableOp's value never changes under
// its consumers, except, as in TensorFlow, when an optimizer updates
// without use_locking and the read starts while it writes. A reference
// variable is updated in place, as in TensorFlow.
#ifndef DFX_KERNELS_STATE_VARIABLE_UTIL_H_
#define DFX_KERNELS_STATE_VARIABLE_UTIL_H_

#include <memory>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "absl/types/span.h"
#include "runtime/op_kernel.h"
#include "runtime/resource_mgr.h"

namespace dfx {

// The handle at input `index`: a scalar DT_RESOURCE tensor naming a resource
// on this device. InvalidArgument otherwise (naming the device when the
// handle is for another one).
absl::StatusOr<const ResourceHandle*> HandleFromInput(OpKernelContext* ctx,
                                                      int index);

// The Var named by the handle at input `index`. NotFound when it does not
// exist (never assigned, destroyed, or its container was reset), as
// TensorFlow's LookupResource answers every op but ReadVariableOp.
absl::StatusOr<std::shared_ptr<Var>> LookupVariable(OpKernelContext* ctx,
                                                    int index);

// LookupVariable for ReadVariableOp: FailedPrecondition "Could not find
// variable <name>..." instead of NotFound, as TensorFlow's ReadVariableOp
// says it.
absl::StatusOr<std::shared_ptr<Var>> LookupVariableToRead(
    OpKernelContext* ctx, int index);

// A snapshot of the resource variable at input `index` (its tensor shares
// the variable's buffer; an update copies the buffer first, so the
// snapshot never changes). FailedPrecondition "Attempting to use
// uninitialized value <input>" for an uninitialized variable,
// InvalidArgument when it does not hold `dtype`, LookupVariable's errors.
absl::StatusOr<Tensor> ReadVariableSnapshot(OpKernelContext* ctx, int index,
                                            DataType dtype);

// The Var the handle names, created (uninitialized, of `dtype`) if absent.
// InvalidArgument when one of another dtype exists.
absl::StatusOr<std::shared_ptr<Var>> LookupOrCreateVariable(
    OpKernelContext* ctx, int index, DataType dtype);

// A copy of `src` in a new buffer of the same memory: the kernel's
// allocator (strings element by element), or the device's own copy for a
// tensor in a GPU's memory. ResourceExhausted when the allocation fails.
absl::StatusOr<Tensor> CopyTensor(OpKernelContext* ctx, const Tensor& src);

// Makes `*tensor` the only owner of its buffer, copying it when a reader
// shares it. REQUIRES: the variable's mutex held exclusively.
absl::Status EnsureUnshared(OpKernelContext* ctx, Tensor* tensor);

// The variables an update kernel writes: each of `ids` is a reference input
// or a resource handle input. Init locks their mutexes (exclusive, in
// address order so two kernels can never deadlock, each mutex once) when
// `use_locking` and keeps them until destruction; it checks that each is
// initialized (FailedPrecondition "Attempting to use uninitialized value
// <input>") and, for resource variables, un-shares their buffers.
class VariableInputs {
 public:
  VariableInputs() = default;
  VariableInputs(const VariableInputs&) = delete;
  VariableInputs& operator=(const VariableInputs&) = delete;
  ~VariableInputs();

  absl::Status Init(OpKernelContext* ctx, absl::Span<const int> ids,
                    bool use_locking);
  // The tensor of the k-th id (in the order given to Init).
  Tensor* tensor(int k) const { return tensors_[k]; }
  // For kernels with a reference output: forwards the k-th id's reference.
  TensorRef ref(int k) const { return refs_[k]; }
  // Whether the update may run under readers, as TensorFlow allows: a
  // reference variable among them (readers alias its buffer), or no
  // use_locking (a read may start while the unlocked update writes). Its
  // writes go under ScopedTsanIgnoreAccesses (base/tsan.h).
  bool hogwild() const { return hogwild_; }

 private:
  std::vector<std::shared_ptr<Var>> vars_;  // keeps resource vars alive
  std::vector<Tensor*> tensors_;
  std::vector<TensorRef> refs_;
  std::vector<absl::Mutex*> locked_;
  bool hogwild_ = false;
};

}  // namespace dfx

#endif  // DFX_KERNELS_STATE_VARIABLE_UTIL_H_
