// What every GPU OpKernel does around its launch: find its GpuDevice.
//
// GPU kernels are asynchronous: they enqueue their work on the device's
// compute stream and return. Every GPU kernel of a device uses that one
// stream, so a consumer's work runs after its producer's, and memory a
// freed tensor gives back to the arena is rewritten only by work enqueued
// later on the same stream; GpuDevice's copies order themselves against
// the compute stream with events (docs/architecture.md, "GPU devices").
// An error inside a kernel's execution (not its launch) surfaces at the
// next copy to the host, which waits for the stream.
#ifndef DFX_GPU_KERNELS_GPU_KERNEL_UTIL_H_
#define DFX_GPU_KERNELS_GPU_KERNEL_UTIL_H_

#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "gpu/gpu_device.h"
#include "runtime/op_kernel.h"

namespace dfx::gpu {

// The GPU `ctx`'s kernel runs on; Internal (a registration bug) if the
// device is not a GPU.
inline absl::StatusOr<GpuDevice*> GpuDeviceOf(const OpKernelContext& ctx) {
  auto* device = dynamic_cast<GpuDevice*>(ctx.device());
  if (device == nullptr) {
    return absl::InternalError(absl::StrCat("a GPU kernel of ",
                                            ctx.op_kernel().type_string(),
                                            " runs on ", ctx.device()->name(),
                                            ", which is not a GPU"));
  }
  return device;
}

}  // namespace dfx::gpu

#endif  // DFX_GPU_KERNELS_GPU_KERNEL_UTIL_H_
