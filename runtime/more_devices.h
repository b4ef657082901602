// ScopedMoreDevices: devices of other types (the GPUs, gpu/gpu_device.h)
// that DeviceMgr::NewCpu adds after the CPUs, for the NewCpu calls made on
// the creating thread while one lives.
//
// A scoped hook rather than a field of CpuDeviceOptions only because
// runtime/device.h is included by nearly every file, and changing it
// rebuilds the whole tree; the next change that touches device.h anyway
// should fold this into CpuDeviceOptions (docs/architecture.md, "GPU
// devices").
#ifndef DFX_RUNTIME_MORE_DEVICES_H_
#define DFX_RUNTIME_MORE_DEVICES_H_

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"

namespace dfx {

class Device;
class ThreadPool;

// Makes the devices named under `task_name`; they may borrow the intra-op
// pool of the DeviceMgr, which outlives them. An error fails NewCpu.
using MoreDevicesFactory =
    std::function<absl::StatusOr<std::vector<std::unique_ptr<Device>>>(
        const std::string& task_name, ThreadPool* intra_op_pool)>;

// Not copyable; nests (the innermost wins, the outer one comes back when it
// ends). Affects only the thread that made it.
class ScopedMoreDevices {
 public:
  explicit ScopedMoreDevices(MoreDevicesFactory factory);
  ~ScopedMoreDevices();
  ScopedMoreDevices(const ScopedMoreDevices&) = delete;
  ScopedMoreDevices& operator=(const ScopedMoreDevices&) = delete;

  // The innermost live factory of this thread, or null.
  static const MoreDevicesFactory* Current();

 private:
  MoreDevicesFactory factory_;
  const ScopedMoreDevices* previous_;
};

}  // namespace dfx

#endif  // DFX_RUNTIME_MORE_DEVICES_H_
