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

#include <memory>
#include <optional>

#include "absl/base/const_init.h"
#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "base/status_macros.h"
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

// What a kernel holds while it enqueues: its GPU, made current, and the
// GPU's compute stream. status() is the first error (not a GPU, or
// cudaSetDevice failed).
class GpuLaunch {
 public:
  explicit GpuLaunch(const OpKernelContext& ctx) {
    absl::StatusOr<GpuDevice*> device = GpuDeviceOf(ctx);
    if (!device.ok()) {
      status_ = device.status();
      return;
    }
    device_ = *device;
    stream_ = device_->compute_stream()->get();
    activate_.emplace(device_->cuda_ordinal());
    status_ = activate_->status();
  }
  const absl::Status& status() const { return status_; }
  GpuDevice* device() const { return device_; }
  cudaStream_t stream() const { return stream_; }

 private:
  absl::Status status_;
  GpuDevice* device_ = nullptr;
  cudaStream_t stream_ = nullptr;
  std::optional<ScopedActivateDevice> activate_;
};

// Registers `Kernel`, built as Kernel(ctx, args...), for `def`: one class
// serving several ops (Softmax and LogSoftmax, say).
template <typename Kernel, typename... Args>
void RegisterWith(KernelRegistry* registry, const KernelDefBuilder& def,
                  Args... args) {
  registry->Register(def, [args...](OpKernelConstruction* ctx) {
    return std::unique_ptr<OpKernel>(new Kernel(ctx, args...));
  });
}

// One library handle of type H (cublasHandle_t, cudnnHandle_t) per GPU,
// made at first use with the GPU current and kept for the process (as the
// GPU's allocator is). A call runs under the handle's lock.
template <typename H>
class LockedHandle {
 public:
  // `make(&handle)` creates a handle; its error is returned.
  template <typename Make>
  static absl::StatusOr<LockedHandle*> For(const GpuDevice& device,
                                           Make make) {
    static absl::Mutex mu(absl::kConstInit);
    static auto* table =
        new absl::flat_hash_map<int, std::unique_ptr<LockedHandle>>;
    absl::MutexLock lock(&mu);
    auto& entry = (*table)[device.cuda_ordinal()];
    if (entry == nullptr) {
      ScopedActivateDevice activate(device.cuda_ordinal());
      DFX_RETURN_IF_ERROR(activate.status());
      H handle{};
      DFX_RETURN_IF_ERROR(make(&handle));
      entry.reset(new LockedHandle(handle, device.cuda_ordinal()));
    }
    return entry.get();
  }

  // fn(handle) with the handle's GPU current.
  template <typename Fn>
  absl::Status Run(Fn fn) {
    absl::MutexLock lock(&mu_);
    ScopedActivateDevice activate(ordinal_);
    DFX_RETURN_IF_ERROR(activate.status());
    return fn(handle_);
  }

 private:
  LockedHandle(H handle, int ordinal) : handle_(handle), ordinal_(ordinal) {}

  absl::Mutex mu_;
  H const handle_;
  const int ordinal_;
};

}  // namespace dfx::gpu

#endif  // DFX_GPU_KERNELS_GPU_KERNEL_UTIL_H_
