// GpuDevice: one visible NVIDIA GPU as a dfx Device
// ("/job:J/replica:0/task:T/device:GPU:N"), with a compute stream, separate
// host-to-device, device-to-host and device-to-device copy streams, and the
// GPU's BFC arena over cudaMalloc; and discovery, which makes one per GPU
// that ConfigProto.gpu_options lets this process see.
//
// What exists: devices, streams, events, memory. What does not yet: GPU
// kernels, copies between GPU and host in the rendezvous, placement onto
// GPUs (docs/architecture.md, "GPU devices").
#ifndef DFX_GPU_GPU_DEVICE_H_
#define DFX_GPU_GPU_DEVICE_H_

#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "gpu/gpu_device_factory.h"  // VisibleGpuCount, GpuDeviceFactory
#include "gpu/gpu_stream.h"
#include "runtime/bfc_allocator.h"
#include "runtime/device.h"
#include "runtime/device_range_copy.h"
#include "runtime/gpu_options.h"
#include "runtime/tensor.h"

namespace dfx::gpu {

// Thread-safe after construction.
class GpuDevice final : public Device, public DeviceRangeCopier {
 public:
  // The device named `<options.task_name>/device:GPU:<index>` for CUDA
  // device `ordinal`, its allocator that of GpuAllocator(ordinal, ...).
  // The CUDA error (naming the GPU) when a stream cannot be made.
  static absl::StatusOr<std::unique_ptr<GpuDevice>> Create(
      const GpuDeviceOptions& options, int index, int ordinal,
      ThreadPool* intra_op_pool);
  ~GpuDevice() override;

  int cuda_ordinal() const { return ordinal_; }
  BfcAllocator* bfc_allocator() const { return bfc_; }
  GpuStream* compute_stream() const { return compute_.get(); }
  GpuStream* host_to_device_stream() const { return h2d_.get(); }
  GpuStream* device_to_host_stream() const { return d2h_.get(); }
  GpuStream* device_to_device_stream() const { return d2d_.get(); }

  // Device: the host cannot read a GPU's memory. Both copies first make
  // their copy stream wait for the work enqueued so far on the compute
  // stream (CopyToHost reads what it wrote; CopyFromHost may write memory
  // that queued kernels still read), and both wait for their copy to land
  // (up to kHostWaitTimeout), so kernels enqueued afterwards see it.
  // CopyFromHost of another GPU's tensor (a _Send between two GPUs of a
  // task) is one copy on the D2D stream, peer to peer when enabled.
  // CopyToHost's tensor is in pinned memory (PinnedHostAllocator) when
  // there is some. CopyFromHost copies a pinned or small tensor directly
  // and a large pageable one in kStagingChunk pieces through two pinned
  // buffers, so that filling one overlaps the DMA of the other.
  bool HostReadable() const override { return false; }
  Allocator* GetHostAllocator() const override;
  absl::StatusOr<Tensor> CopyToHost(const Tensor& t) override;
  absl::StatusOr<Tensor> CopyFromHost(const Tensor& t) override;
  // Enqueued on the compute stream (ordered after the tensor's writers and
  // before later kernels); returns without waiting.
  absl::StatusOr<Tensor> CopyOnDevice(const Tensor& t) override;
  // Waits (up to kHostWaitTimeout) for the compute stream.
  absl::Status Synchronize() override;
  // DeviceRangeCopier: one cudaMemcpyAsync on the device-to-host stream
  // and an event after it, which Wait polls (up to kHostWaitTimeout).
  // Not ordered after the compute stream: the tensor's _Send waited for
  // it. InvalidArgument for a range outside the tensor.
  absl::StatusOr<std::unique_ptr<Pending>> StartCopyRangeToHost(
      const Tensor& t, size_t offset, size_t length, void* dst) override;
  static constexpr absl::Duration kHostWaitTimeout = absl::Minutes(5);
  static constexpr size_t kStagingChunk = size_t{4} << 20;
  // Threads (of the intra-op pool, the caller among them) filling a
  // staging buffer.
  static constexpr int kStagingThreads = 4;

 private:
  GpuDevice(DeviceAttributes attributes, BfcAllocator* bfc,
            ThreadPool* intra_op_pool, int ordinal);

  const int ordinal_;
  BfcAllocator* const bfc_;
  std::unique_ptr<GpuStream> compute_, h2d_, d2h_, d2d_;
};

// The process's BFC arena of CUDA device `ordinal`, made at the first call
// (limit from GpuMemoryLimit with the GPU's memory then, growth per
// `options`) and kept for the life of the process, as every session and
// every tensor of the process shares the GPU's memory; later calls return
// it whatever their options. The CUDA or option error naming the GPU.
absl::StatusOr<BfcAllocator*> GpuAllocator(int ordinal,
                                           const GpuDeviceOptions& options);

// The process's pinned (page-locked) host memory, for copies between GPUs
// and the host: a growing BFC arena over cudaHostAlloc, up to
// kPinnedHostLimit, made at the first call and kept for the process. Null
// when it cannot be made (copies then use pageable memory).
inline constexpr int64_t kPinnedHostLimit = int64_t{64} << 30;
BfcAllocator* PinnedHostAllocator();

// Regions of device memory from cudaMalloc on CUDA device `ordinal`, for a
// BfcAllocator.
std::unique_ptr<SubAllocator> NewCudaSubAllocator(int ordinal);

// One GpuDevice per GPU `options` selects (ResolveVisibleDevices), GPU:0
// first; none (and one log line per process) when the machine has no GPU
// (whatever visible_device_list says, as in TensorFlow) or
// options.max_devices is 0. InvalidArgument for a visible_device_list
// naming GPUs a machine with GPUs does not have.
absl::StatusOr<std::vector<std::unique_ptr<Device>>> CreateGpuDevices(
    const GpuDeviceOptions& options, ThreadPool* intra_op_pool);

}  // namespace dfx::gpu

#endif  // DFX_GPU_GPU_DEVICE_H_
