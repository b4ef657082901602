// Asynchronous copies between a device's memory and the host's (and
// between two devices of one process), for _Send, _Recv and the executor's
// moves of inputs: the caller's thread never waits for a DMA.
//
// A device whose copies can complete without blocking (a GPU) implements
// AsyncCopyDevice beside Device; for any other device the free functions
// below call Device's synchronous CopyToHost / CopyFromHost and `done`
// inline, so CPUs (whose memory is the host's) and every other device
// behave as before. (An interface of its own rather than new virtuals on
// Device: runtime/device.h is in nearly every file's includes.)
#ifndef DFX_RUNTIME_DEVICE_COPY_H_
#define DFX_RUNTIME_DEVICE_COPY_H_

#include <cstdint>

#include "absl/functional/any_invocable.h"
#include "absl/status/statusor.h"
#include "runtime/tensor.h"

namespace dfx {

class CancellationManager;
class Device;

// Called exactly once: with the copy (the tensor in its new memory, the
// DMA landed, so that work the device enqueues afterwards sees it) or
// with the error.
using CopyDoneCallback = absl::AnyInvocable<void(absl::StatusOr<Tensor>)>;

// Where the tensor handed to CopyFromHostAsync lives.
struct CopySource {
  // 0: in host memory. Otherwise the incarnation of the device of this
  // process whose memory holds it: a _Send from one GPU to another of its
  // task hands its device tensor over as soon as the producing kernel is
  // enqueued (not run), and the receiving device orders its copy after
  // the work the source device had enqueued when the copy is issued (a
  // GPU: an event recorded on the source's compute stream that its copy
  // stream waits for), never by a host wait.
  uint64_t device_incarnation = 0;
};

// Implemented by a Device (through multiple inheritance) whose copies run
// asynchronously. Thread-safe.
//
// Contract of both calls, which return at once:
// - `done` runs exactly once, on a thread of the device's own (never the
//   caller's, except for what fails or finishes before any work is
//   enqueued: a bad dtype, an empty tensor, a full arena, a CUDA launch
//   error, where it may run inline before the call returns);
// - the device keeps `t` (its buffer, by reference) and the destination
//   alive until the DMA has landed: the caller may drop `t` when the call
//   returns;
// - errors are the device's, naming it (and, for a wait that took longer
//   than the device allows, DeadlineExceeded): a copy never hangs, and a
//   device being destroyed resolves its pending copies first.
class AsyncCopyDevice {
 public:
  // `t`, a tensor in this device's memory, copied into host memory (as
  // Device::CopyToHost), after the work that wrote it.
  virtual void CopyToHostAsync(const Tensor& t, CopyDoneCallback done) = 0;
  // `t`, from `source`, copied into this device's memory (as
  // Device::CopyFromHost): InvalidArgument for a dtype the device cannot
  // hold, ResourceExhausted when its memory is full, FailedPrecondition
  // when `source` names a device this process does not have (any more).
  virtual void CopyFromHostAsync(const Tensor& t, const CopySource& source,
                                 CopyDoneCallback done) = 0;

 protected:
  ~AsyncCopyDevice() = default;
};

// `device` as an AsyncCopyDevice, or null.
AsyncCopyDevice* AsAsyncCopyDevice(Device* device);

// `device`'s asynchronous copies, or its synchronous ones with `done`
// called inline. With `cancellation` (optional; it must outlive the copy
// or its cancellation, whichever ends it), `done` gets Cancelled as soon
// as the step is cancelled (on the cancelling thread), or at once when it
// already is; the copy still lands into memory the device keeps until
// then, and its result is dropped. A device tensor (`source` non-zero)
// handed to a device that is not an AsyncCopyDevice must have been
// synchronized by its sender (Device::Synchronize), as before.
void CopyToHostAsync(Device* device, const Tensor& t,
                     CancellationManager* cancellation, CopyDoneCallback done);
void CopyFromHostAsync(Device* device, const Tensor& t,
                       const CopySource& source,
                       CancellationManager* cancellation,
                       CopyDoneCallback done);

}  // namespace dfx

#endif  // DFX_RUNTIME_DEVICE_COPY_H_
