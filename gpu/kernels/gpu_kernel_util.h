// What every GPU OpKernel does around its launch: find its GpuDevice, and
// wait for its compute stream before returning (GPU kernels are
// synchronous for now; docs/architecture.md, "GPU devices").
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

// The work enqueued on `device`'s compute stream has run.
inline absl::Status FinishCompute(GpuDevice* device) {
  return device->compute_stream()->BlockHostUntilDone(
      GpuDevice::kHostWaitTimeout);
}

}  // namespace dfx::gpu

#endif  // DFX_GPU_KERNELS_GPU_KERNEL_UTIL_H_
