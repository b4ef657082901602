// The GPU devices as the rest of dfx asks for them, without CUDA headers:
// sessions and servers (master/, rpc/) include this and compile unchanged
// (same flags) whether or not dfx::gpu is linked in.
#ifndef DFX_GPU_GPU_DEVICE_FACTORY_H_
#define DFX_GPU_GPU_DEVICE_FACTORY_H_

#include <string>

#include "runtime/gpu_options.h"
#include "runtime/more_devices.h"

namespace dfx::gpu {

// The number of GPUs the CUDA runtime sees. No device, no driver, or a
// driver too old (cudaErrorNoDevice, cudaErrorInsufficientDriver, ...) are
// zero GPUs, not errors: `why_none` (if not null) gets the reason.
int VisibleGpuCount(std::string* why_none);

// CreateGpuDevices (gpu/gpu_device.h) for DeviceMgr::NewCpu
// (runtime/more_devices.h), with the task name NewCpu passes:
//   ScopedMoreDevices gpus(gpu::GpuDeviceFactory(options));
//   auto devices = DeviceMgr::NewCpu(cpu_options);  // CPUs, then GPUs
MoreDevicesFactory GpuDeviceFactory(GpuDeviceOptions options);

}  // namespace dfx::gpu

#endif  // DFX_GPU_GPU_DEVICE_FACTORY_H_
