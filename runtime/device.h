// Device and DeviceMgr: the compute devices of one process, each with its
// full name, allocator, intra-op thread pool and incarnation.
#ifndef DFX_RUNTIME_DEVICE_H_
#define DFX_RUNTIME_DEVICE_H_

#include <cstdint>
#include <memory>
#include <string>
#include "absl/strings/string_view.h"
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "proto/device_attributes.pb.h"
#include "runtime/allocator.h"
#include "runtime/resource_mgr.h"
#include "runtime/tensor.h"
#include "runtime/thread_pool.h"

namespace Eigen {
struct ThreadPoolDevice;
}

namespace dfx {

// Thread-safe after construction.
class Device {
 public:
  // `attributes.incarnation` must be non-zero. `allocator` and `intra_op`
  // must outlive the device.
  Device(DeviceAttributes attributes, Allocator* allocator,
         ThreadPool* intra_op_pool);
  virtual ~Device();

  const std::string& name() const { return attributes_.name(); }
  const std::string& device_type() const { return attributes_.device_type(); }
  uint64_t incarnation() const { return attributes_.incarnation(); }
  const DeviceAttributes& attributes() const { return attributes_; }

  Allocator* GetAllocator() const { return allocator_; }
  // Host memory for a kernel's host-memory outputs and scratch: the
  // allocator itself on a device the host can read; else the CPU
  // allocator, unless the device has better (a GPU: pinned memory, which
  // copies reach by DMA).
  virtual Allocator* GetHostAllocator() const {
    return HostReadable() ? allocator_ : CpuAllocator();
  }
  ThreadPool* intra_op_pool() const { return intra_op_pool_; }
  // For Eigen expressions in CPU kernels; runs on the intra-op pool.
  const Eigen::ThreadPoolDevice& eigen_cpu_device() const {
    return *eigen_device_;
  }
  // The device's state (variables) across steps and sessions.
  ResourceMgr* resource_manager() const { return resource_mgr_.get(); }

  // Tensors crossing between this device's memory and the host's: _Send
  // and _Recv on a device whose memory the host cannot read (a GPU) copy
  // through these, so every tensor in a rendezvous is in host memory. A
  // CPU device's memory is the host's: both return `t` itself.
  //
  // True when the host can read this device's tensors.
  virtual bool HostReadable() const { return true; }
  // `t`, a tensor in this device's memory, copied into host memory; the
  // copy has landed when this returns. The device's error (naming it)
  // otherwise.
  virtual absl::StatusOr<Tensor> CopyToHost(const Tensor& t) { return t; }
  // `t`, a host tensor (or, on a GPU, another GPU's tensor of this
  // process, whose device has been synchronized), copied into this
  // device's memory: InvalidArgument for a dtype the device cannot hold,
  // ResourceExhausted when its memory is full.
  virtual absl::StatusOr<Tensor> CopyFromHost(const Tensor& t) { return t; }
  // Blocks until the work enqueued on this device so far is done (a GPU's
  // compute stream), so that another device may read what it wrote; the
  // device's error otherwise. Nothing to wait for on a CPU.
  virtual absl::Status Synchronize() { return absl::OkStatus(); }
  // A copy of `t`, a tensor in this device's memory, in a new buffer of the
  // same memory (a variable's copy-on-write). ResourceExhausted when the
  // memory is full. On a host-readable device, a memcpy (strings element
  // by element).
  virtual absl::StatusOr<Tensor> CopyOnDevice(const Tensor& t);

 private:
  const DeviceAttributes attributes_;
  Allocator* const allocator_;
  ThreadPool* const intra_op_pool_;
  std::unique_ptr<Eigen::ThreadPoolDevice> eigen_device_;
  const std::unique_ptr<ResourceMgr> resource_mgr_;
};

struct CpuDeviceOptions {
  // "/job:localhost/replica:0/task:0"; devices are named
  // "<task>/device:CPU:<i>".
  std::string task_name = "/job:localhost/replica:0/task:0";
  int num_devices = 1;
  // Threads of the intra-op pool the CPU devices share; 0 picks the number
  // of cores.
  int intra_op_threads = 0;
};

// Owns the devices of one process.
class DeviceMgr {
 public:
  // InvalidArgument for num_devices < 1 or a negative thread count.
  static absl::StatusOr<std::unique_ptr<DeviceMgr>> NewCpu(
      const CpuDeviceOptions& options);

  ~DeviceMgr();

  // In creation order.
  const std::vector<Device*>& ListDevices() const { return device_ptrs_; }
  // Looks up a full name, or the local part "/device:CPU:0" (also the legacy
  // "/cpu:0"). NotFound naming the device and the known ones.
  absl::StatusOr<Device*> LookupDevice(absl::string_view name) const;
  // Clears `containers` in every device's resource manager; an empty list
  // clears each device's default container (TensorFlow's CleanupAll).
  void ClearContainers(absl::Span<const std::string> containers) const;

 private:
  DeviceMgr() = default;

  std::unique_ptr<ThreadPool> intra_op_pool_;
  std::vector<std::unique_ptr<Device>> devices_;
  std::vector<Device*> device_ptrs_;
  absl::flat_hash_map<std::string, Device*> by_name_;
};

// A fresh random non-zero incarnation.
uint64_t NewIncarnation();

}  // namespace dfx

#endif  // DFX_RUNTIME_DEVICE_H_
