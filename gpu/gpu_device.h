// GpuDevice: one visible NVIDIA GPU as a dfx Device
// ("/job:J/replica:0/task:T/device:GPU:N"), with a compute stream, separate
// host-to-device, device-to-host and device-to-device copy streams, and the
// GPU's BFC arena over cudaMalloc; and discovery, which makes one per GPU
// that ConfigProto.gpu_options lets this process see.
//
// Its copies are asynchronous (runtime/device_copy.h): an event per copy,
// watched by one poller thread per GPU (docs/architecture.md, "GPU
// devices").
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
#include "runtime/device_copy.h"
#include "runtime/device_range_copy.h"
#include "runtime/gpu_options.h"
#include "runtime/tensor.h"

namespace dfx::gpu {

class CompletionPoller;

// Thread-safe after construction.
class GpuDevice final : public Device,
                        public AsyncCopyDevice,
                        public DeviceRangeCopier {
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

  // Device: the host cannot read a GPU's memory. Every copy first makes
  // its copy stream wait (an event) for the work enqueued so far on the
  // compute stream (CopyToHost reads what it wrote; CopyFromHost may write
  // memory that queued kernels still read), and is done when it has
  // landed, so kernels enqueued afterwards see it. CopyFromHost of another
  // GPU's tensor (a _Send between two GPUs of a task) is one copy on the
  // D2D stream, peer to peer when enabled, which with a CopySource also
  // waits (an event) for the source GPU's compute stream. CopyToHost's
  // tensor is in pinned memory (PinnedHostAllocator) when there is some.
  // CopyFromHost copies a pinned or small tensor directly and a large
  // pageable one in kStagingChunk pieces through two pinned buffers, so
  // that filling one overlaps the DMA of the other.
  //
  // The synchronous forms block the caller until the copy lands (up to
  // kHostWaitTimeout). The asynchronous ones (AsyncCopyDevice) return once
  // the copy is enqueued; the device's poller thread watches its event and
  // `done` runs on the device's callback pool (kCallbackThreads) when it
  // lands. A large pageable source's staged copy runs on that pool too
  // (synchronously there). Errors name the device.
  bool HostReadable() const override { return false; }
  Allocator* GetHostAllocator() const override;
  absl::StatusOr<Tensor> CopyToHost(const Tensor& t) override;
  absl::StatusOr<Tensor> CopyFromHost(const Tensor& t) override;
  void CopyToHostAsync(const Tensor& t, CopyDoneCallback done) override;
  void CopyFromHostAsync(const Tensor& t, const CopySource& source,
                         CopyDoneCallback done) override;
  static constexpr int kCallbackThreads = 4;
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

  // The copies' parts: each allocates the destination into `*out` and
  // enqueues the copy, returning the event recorded after it (null when
  // there was nothing to copy). `t` is kept by the caller until the event
  // has completed.
  absl::StatusOr<std::unique_ptr<GpuEvent>> EnqueueToHost(const Tensor& t,
                                                          Tensor* out);
  // Makes the D2H stream wait (an event) for the work enqueued on the
  // compute stream so far: a copy to the host enqueued next follows the
  // tensor's producer. REQUIRES: this GPU is current.
  absl::Status D2hFollowsCompute();
  // A pinned, small or device source, or `staged` set (nothing enqueued)
  // for a large pageable one, which StagedFromHost copies.
  absl::StatusOr<std::unique_ptr<GpuEvent>> EnqueueFromHost(
      const Tensor& t, const CopySource& source, Tensor* out, bool* staged);
  // Copies pageable `t` into `out` through pinned buffers; blocks until
  // it has landed.
  absl::Status StagedFromHost(const Tensor& t, Tensor out);
  // Hands `done` to the poller: `out` once `copied` has completed, or the
  // error naming this device; keeps `source` until then.
  void WatchCopy(std::unique_ptr<GpuEvent> copied, std::string what,
                 Tensor source, Tensor out, CopyDoneCallback done);

  const int ordinal_;
  BfcAllocator* const bfc_;
  std::unique_ptr<GpuStream> compute_, h2d_, d2h_, d2d_;
  // Destroyed first (members go in reverse): the poller once every copy
  // it watches has landed, then the pool once the callbacks and staged
  // copies it was given have run, then the streams.
  std::unique_ptr<ThreadPool> callback_pool_;
  std::unique_ptr<CompletionPoller> poller_;
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
