// FakeGpu: a device whose memory the host must not read (host memory
// underneath, allocated through an allocator that says it is not host
// memory), with range copies to the host (DeviceRangeCopier) that are
// counted, logged in order, optionally slowed (each on a thread of its
// own, as a GPU's DMA runs beside the host) and optionally failing; and
// its host allocator counting the bytes it has out (the staging buffers).
// For the tests of a device tensor served to another task
// (rpc/held_tensors.h) on machines without a GPU.
#ifndef DFX_TESTS_RPC_FAKE_GPU_H_
#define DFX_TESTS_RPC_FAKE_GPU_H_

#include <atomic>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "runtime/device.h"
#include "runtime/device_range_copy.h"
#include "runtime/more_devices.h"
#include "runtime/thread_pool.h"

namespace dfx::testing {

// The fake devices' memory: the host's, but not host memory to dfx.
class FakeGpuMemory final : public Allocator {
 public:
  static FakeGpuMemory* Get() {
    static FakeGpuMemory* memory = new FakeGpuMemory;
    return memory;
  }
  std::string Name() const override { return "fake_gpu_memory"; }
  void* AllocateRaw(size_t alignment, size_t n) override {
    return CpuAllocator()->AllocateRaw(alignment, n);
  }
  void DeallocateRaw(void* p, size_t n) override {
    CpuAllocator()->DeallocateRaw(p, n);
  }
  AllocatorStats GetStats() const override { return {}; }
  bool IsHostMemory() const override { return false; }
};

// Host memory that counts the bytes it has out.
class CountingHostMemory final : public Allocator {
 public:
  std::string Name() const override { return "fake_gpu_host_memory"; }
  void* AllocateRaw(size_t alignment, size_t n) override {
    live_ += static_cast<int64_t>(n);
    ++allocations_;
    return CpuAllocator()->AllocateRaw(alignment, n);
  }
  void DeallocateRaw(void* p, size_t n) override {
    live_ -= static_cast<int64_t>(n);
    CpuAllocator()->DeallocateRaw(p, n);
  }
  AllocatorStats GetStats() const override { return {}; }
  int64_t live_bytes() const { return live_.load(); }
  int64_t allocations() const { return allocations_.load(); }

 private:
  std::atomic<int64_t> live_{0};
  std::atomic<int64_t> allocations_{0};
};

class FakeGpu final : public Device, public DeviceRangeCopier {
 public:
  // One range copy as the device saw it: the order (a sequence number
  // shared by all events) in which it started and its Wait returned.
  struct RangeCopy {
    uint64_t offset = 0;
    uint64_t length = 0;
    int64_t started = -1;
    int64_t waited = -1;
  };

  FakeGpu(const std::string& name, ThreadPool* pool)
      : Device(Attributes(name), FakeGpuMemory::Get(), pool) {}

  // Each range copy takes at least this long.
  void set_copy_delay(absl::Duration delay) {
    absl::MutexLock lock(&mu_);
    delay_ = delay;
  }
  // Range copies reaching past `offset` fail (-1: none do).
  void set_fail_from(int64_t offset) { fail_from_ = offset; }

  bool HostReadable() const override { return false; }
  Allocator* GetHostAllocator() const override { return &host_; }
  absl::StatusOr<Tensor> CopyToHost(const Tensor& t) override {
    ++whole_copies_;
    Tensor out(t.dtype(), t.shape());
    if (t.TotalBytes() > 0) {
      std::memcpy(out.raw_data(), t.raw_data(), t.TotalBytes());
    }
    return out;
  }
  absl::StatusOr<Tensor> CopyFromHost(const Tensor& t) override {
    absl::StatusOr<Tensor> out =
        Tensor::Allocate(FakeGpuMemory::Get(), t.dtype(), t.shape());
    if (out.ok() && t.TotalBytes() > 0) {
      std::memcpy(out->raw_data(), t.raw_data(), t.TotalBytes());
    }
    return out;
  }

  absl::StatusOr<std::unique_ptr<Pending>> StartCopyRangeToHost(
      const Tensor& t, size_t offset, size_t length, void* dst) override {
    if (t.OnHost() || offset + length > t.TotalBytes()) {
      return absl::InternalError(absl::StrCat(
          name(), ": a range copy of a host tensor or past its end"));
    }
    absl::Duration delay;
    int index = 0;
    {
      absl::MutexLock lock(&mu_);
      delay = delay_;
      index = static_cast<int>(copies_.size());
      copies_.push_back({offset, length, sequence_++, -1});
    }
    auto copy = std::make_unique<Copy>(this, index);
    const int64_t fail_from = fail_from_.load();
    if (fail_from >= 0 && static_cast<int64_t>(offset + length) > fail_from) {
      copy->status = absl::InternalError(
          absl::StrCat(name(), ": the fake copy engine failed"));
      return copy;
    }
    const char* src = static_cast<const char*>(t.raw_data()) + offset;
    copy->thread = std::thread([src, dst, length, delay] {
      absl::SleepFor(delay);
      std::memcpy(dst, src, length);
    });
    return copy;
  }

  int whole_copies() const { return whole_copies_.load(); }
  std::vector<RangeCopy> range_copies() const {
    absl::MutexLock lock(&mu_);
    return copies_;
  }
  const CountingHostMemory& host_memory() const { return host_; }

  // A factory for ScopedMoreDevices: one FakeGpu, GPU:0 of the task,
  // stored in `*made`.
  static MoreDevicesFactory Factory(FakeGpu** made) {
    return [made](const std::string& task, ThreadPool* pool)
               -> absl::StatusOr<std::vector<std::unique_ptr<Device>>> {
      auto gpu =
          std::make_unique<FakeGpu>(absl::StrCat(task, "/device:GPU:0"), pool);
      *made = gpu.get();
      std::vector<std::unique_ptr<Device>> devices;
      devices.push_back(std::move(gpu));
      return devices;
    };
  }

 private:
  struct Copy final : Pending {
    Copy(FakeGpu* gpu, int index) : gpu(gpu), index(index) {}
    ~Copy() override {
      if (thread.joinable()) thread.join();
    }
    absl::Status Wait() override {
      if (thread.joinable()) thread.join();
      absl::MutexLock lock(&gpu->mu_);
      gpu->copies_[index].waited = gpu->sequence_++;
      return status;
    }
    FakeGpu* const gpu;
    const int index;
    std::thread thread;
    absl::Status status;
  };

  static DeviceAttributes Attributes(const std::string& name) {
    DeviceAttributes attrs;
    attrs.set_name(name);
    attrs.set_device_type("GPU");
    attrs.set_incarnation(NewIncarnation());
    return attrs;
  }

  mutable CountingHostMemory host_;
  std::atomic<int> whole_copies_{0};
  std::atomic<int64_t> fail_from_{-1};
  mutable absl::Mutex mu_;
  absl::Duration delay_ ABSL_GUARDED_BY(mu_);
  int64_t sequence_ ABSL_GUARDED_BY(mu_) = 0;
  std::vector<RangeCopy> copies_ ABSL_GUARDED_BY(mu_);
};

}  // namespace dfx::testing

#endif  // DFX_TESTS_RPC_FAKE_GPU_H_
