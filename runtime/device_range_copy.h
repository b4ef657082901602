// DeviceRangeCopier: copies of byte ranges of a device tensor into host
// memory, started and waited for apart, so that the copy of one range runs
// while the caller uses the last one (RecvTensor serving a GPU tensor to
// another task, rpc/held_tensors.h). A Device whose memory the host cannot
// read may implement it beside Device (gpu/gpu_device.h); a consumer finds
// it with dynamic_cast and, on a device without it, copies the whole
// tensor (Device::CopyToHost).
//
// A mixin rather than a virtual of Device because runtime/device.h is in
// the kernels' precompiled header: changing it rebuilds most of the tree.
#ifndef DFX_RUNTIME_DEVICE_RANGE_COPY_H_
#define DFX_RUNTIME_DEVICE_RANGE_COPY_H_

#include <cstddef>
#include <memory>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "runtime/tensor.h"

namespace dfx {

class DeviceRangeCopier {
 public:
  // One copy on its way. Destroying it before Wait returned waits for the
  // copy first (its error dropped), so that its destination may go.
  class Pending {
   public:
    virtual ~Pending() = default;
    // Blocks until the bytes have landed (a device's own deadline bounds
    // the wait); the device's error, naming it, otherwise. Call once.
    virtual absl::Status Wait() = 0;
  };

  virtual ~DeviceRangeCopier() = default;

  // Starts copying bytes [offset, offset + length) of `t`, a tensor in
  // this device's memory, to `dst`, host memory of at least `length` bytes
  // (pinned memory from the device's GetHostAllocator lets a GPU copy by
  // DMA, without staging of its own). `t`'s buffer and `dst` must stay
  // until the copy's Wait returned or it was destroyed. The copy follows
  // the work the device had enqueued when it starts (a GPU: its D2H stream
  // waits for its compute stream), as Device::CopyToHost does, so the
  // tensor's sender need not wait for its producer. Copies started by
  // one thread land in the order started. The device's error, naming it,
  // when the copy cannot start. Thread-safe.
  virtual absl::StatusOr<std::unique_ptr<Pending>> StartCopyRangeToHost(
      const Tensor& t, size_t offset, size_t length, void* dst) = 0;
};

}  // namespace dfx

#endif  // DFX_RUNTIME_DEVICE_RANGE_COPY_H_
