#include "gpu/gpu_device.h"

#include <algorithm>
#include <atomic>
#include <cstring>
#include <mutex>

#include "absl/base/const_init.h"
#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_map.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "base/log.h"
#include "base/status_macros.h"
#include "gpu/completion_poller.h"
#include "gpu/cuda_status.h"
#include "graph/types.h"

namespace dfx::gpu {
namespace {

}  // namespace

// Regions of device memory from cudaMalloc on one GPU.
class CudaSubAllocator final : public SubAllocator {
 public:
  explicit CudaSubAllocator(int ordinal) : ordinal_(ordinal) {}
  std::string Name() const override {
    return absl::StrCat("cudaMalloc on GPU ordinal ", ordinal_);
  }
  void* Alloc(size_t num_bytes) override {
    ScopedActivateDevice activate(ordinal_);
    if (!activate.status().ok()) return nullptr;
    void* p = nullptr;
    const cudaError_t e = cudaMalloc(&p, num_bytes);
    if (e != cudaSuccess) {
      // The BFC asks again for less; the message is its to give.
      spdlog::debug("{}", CudaStatus(e, absl::StrCat("cudaMalloc(", num_bytes,
                                                     ") on GPU ordinal ",
                                                     ordinal_)));
      cudaGetLastError();  // clear it, so later calls do not report it
      return nullptr;
    }
    return p;  // cudaMalloc aligns to at least 256 bytes
  }
  void Free(void* ptr, size_t) override {
    ScopedActivateDevice activate(ordinal_);
    cudaFree(ptr);
  }
  bool IsHostMemory() const override { return false; }

 private:
  const int ordinal_;
};

std::unique_ptr<SubAllocator> NewCudaSubAllocator(int ordinal) {
  return std::make_unique<CudaSubAllocator>(ordinal);
}

namespace {

// Page-locked host memory every GPU can reach by DMA (cudaHostAlloc,
// portable).
class CudaHostSubAllocator final : public SubAllocator {
 public:
  std::string Name() const override { return "cudaHostAlloc (pinned host)"; }
  void* Alloc(size_t num_bytes) override {
    void* p = nullptr;
    const cudaError_t e = cudaHostAlloc(&p, num_bytes, cudaHostAllocPortable);
    if (e != cudaSuccess) {
      spdlog::debug("{}", CudaStatus(e, absl::StrCat("cudaHostAlloc(",
                                                     num_bytes, ")")));
      cudaGetLastError();
      return nullptr;
    }
    return p;
  }
  void Free(void* ptr, size_t) override { cudaFreeHost(ptr); }
};

}  // namespace

BfcAllocator* PinnedHostAllocator() {
  // Never destroyed, as the GPUs' allocators: host tensors copied from a
  // GPU live in it and may outlive every device.
  static BfcAllocator* const pinned = []() -> BfcAllocator* {
    BfcAllocatorOptions options;
    options.name = "gpu_host_bfc";
    options.memory_limit = kPinnedHostLimit;
    options.allow_growth = true;
    auto made = BfcAllocator::Create(std::make_unique<CudaHostSubAllocator>(),
                                     options);
    if (!made.ok()) {
      spdlog::warn("no pinned host memory for GPU copies ({}); copies go "
                   "through pageable memory", made.status().ToString());
      return nullptr;
    }
    return made->release();
  }();
  return pinned;
}

namespace {

struct AllocatorTable {
  absl::Mutex mu;
  absl::flat_hash_map<int, std::unique_ptr<BfcAllocator>> by_ordinal
      ABSL_GUARDED_BY(mu);
};

AllocatorTable& Allocators() {
  // Never destroyed: tensors may outlive every device and session.
  static AllocatorTable* table = new AllocatorTable;
  return *table;
}

std::string Describe(int ordinal, const cudaDeviceProp& prop) {
  char bus_id[32] = "unknown";
  cudaDeviceGetPCIBusId(bus_id, sizeof(bus_id), ordinal);
  // TensorFlow's physical_device_desc format.
  return absl::StrCat("device: ", ordinal, ", name: ", prop.name,
                      ", pci bus id: ", bus_id, ", compute capability: ",
                      prop.major, ".", prop.minor);
}

}  // namespace

namespace {

// `unexpected`: no GPU for a reason other than "no device, no driver".
int CountGpus(std::string* why_none, bool* unexpected) {
  int count = 0;
  const cudaError_t e = cudaGetDeviceCount(&count);
  *unexpected = false;
  if (e != cudaSuccess) {
    cudaGetLastError();
    *unexpected = !IsNoGpuError(e);
    if (why_none != nullptr) {
      *why_none = CudaStatus(e, "cudaGetDeviceCount").ToString();
    }
    return 0;
  }
  if (count == 0 && why_none != nullptr) {
    *why_none = "the CUDA runtime sees zero devices";
  }
  return count;
}

}  // namespace

int VisibleGpuCount(std::string* why_none) {
  bool unexpected = false;
  return CountGpus(why_none, &unexpected);
}

absl::StatusOr<BfcAllocator*> GpuAllocator(int ordinal,
                                           const GpuDeviceOptions& options) {
  AllocatorTable& table = Allocators();
  absl::MutexLock lock(&table.mu);
  auto it = table.by_ordinal.find(ordinal);
  if (it != table.by_ordinal.end()) return it->second.get();
  ScopedActivateDevice activate(ordinal);
  DFX_RETURN_IF_ERROR(activate.status());
  size_t free_bytes = 0, total_bytes = 0;
  DFX_CUDA_RETURN_IF_ERROR(
      cudaMemGetInfo(&free_bytes, &total_bytes),
      absl::StrCat("reading the memory of GPU ordinal ", ordinal));
  DFX_ASSIGN_OR_RETURN(
      const int64_t limit,
      GpuMemoryLimit(options, static_cast<int64_t>(total_bytes),
                     static_cast<int64_t>(free_bytes),
                     absl::StrCat("GPU ordinal ", ordinal)));
  BfcAllocatorOptions bfc;
  bfc.name = absl::StrCat("GPU_", ordinal, "_bfc");
  bfc.memory_limit = limit;
  bfc.allow_growth = options.allow_growth;
  DFX_ASSIGN_OR_RETURN(
      std::unique_ptr<BfcAllocator> allocator,
      BfcAllocator::Create(std::make_unique<CudaSubAllocator>(ordinal), bfc));
  spdlog::info("GPU ordinal {}: allocator limit {} bytes of {} ({} free), {}",
               ordinal, limit, total_bytes, free_bytes,
               options.allow_growth ? "growing as needed"
                                    : "reserved at the first allocation");
  BfcAllocator* raw = allocator.get();
  table.by_ordinal[ordinal] = std::move(allocator);
  return raw;
}

namespace {

// The process's live GpuDevices by incarnation (unique per device object,
// also between sessions that name their devices alike), so that a GPU
// receiving another's tensor (CopySource) can order its copy after the
// source's compute stream. Entries go before their device does.
struct DeviceTable {
  absl::Mutex mu;
  absl::flat_hash_map<uint64_t, GpuDevice*> by_incarnation ABSL_GUARDED_BY(mu);
};

DeviceTable& LiveDevices() {
  static DeviceTable* table = new DeviceTable;
  return *table;
}

}  // namespace

GpuDevice::GpuDevice(DeviceAttributes attributes, BfcAllocator* bfc,
                     ThreadPool* intra_op_pool, int ordinal)
    : Device(std::move(attributes), bfc, intra_op_pool),
      ordinal_(ordinal),
      bfc_(bfc) {}

GpuDevice::~GpuDevice() {
  DeviceTable& table = LiveDevices();
  absl::MutexLock lock(&table.mu);
  auto it = table.by_incarnation.find(incarnation());
  if (it != table.by_incarnation.end() && it->second == this) {
    table.by_incarnation.erase(it);
  }
}

namespace {

// memcpy of `n` bytes in up to `ways` parts, run by `pool`'s threads and
// by the caller, which takes parts too and so never waits on a part no
// thread has started (no deadlock when the pool is busy or is the
// caller's own).
void ParallelMemcpy(ThreadPool* pool, char* dst, const char* src, size_t n,
                    int ways) {
  struct State {
    std::atomic<int> next{0};
    int parts = 0;
    absl::Mutex mu;
    int done ABSL_GUARDED_BY(mu) = 0;
  };
  if (pool == nullptr || ways <= 1) {
    std::memcpy(dst, src, n);
    return;
  }
  auto state = std::make_shared<State>();
  state->parts = ways;
  const size_t part = (n + ways - 1) / ways;
  auto work = [state, dst, src, n, part, ways] {
    int copied = 0;
    for (int i; (i = state->next.fetch_add(1)) < ways; ++copied) {
      const size_t offset = static_cast<size_t>(i) * part;
      if (offset < n) {
        std::memcpy(dst + offset, src + offset, std::min(part, n - offset));
      }
    }
    absl::MutexLock lock(&state->mu);
    state->done += copied;
  };
  for (int i = 1; i < ways; ++i) pool->Schedule(work);
  work();
  absl::MutexLock lock(&state->mu);
  state->mu.Await(absl::Condition(
      +[](State* s) ABSL_EXCLUSIVE_LOCKS_REQUIRED(s->mu) {
        return s->done == s->parts;
      },
      state.get()));
}

bool IsPinned(const void* p) {
  cudaPointerAttributes attributes;
  if (cudaPointerGetAttributes(&attributes, p) != cudaSuccess) {
    cudaGetLastError();  // plain pageable memory on older runtimes
    return false;
  }
  return attributes.type == cudaMemoryTypeHost;
}

}  // namespace

absl::StatusOr<std::unique_ptr<GpuEvent>> GpuDevice::EnqueueFromHost(
    const Tensor& t, const CopySource& source, Tensor* out, bool* staged) {
  *staged = false;
  if (DataTypeSize(t.dtype()) <= 0) {
    return absl::InvalidArgumentError(
        absl::StrCat(name(), ": a ", DataTypeString(t.dtype()),
                     " tensor cannot be held in GPU memory"));
  }
  DFX_ASSIGN_OR_RETURN(*out, Tensor::Allocate(bfc_, t.dtype(), t.shape()));
  const size_t bytes = t.TotalBytes();
  if (bytes == 0) return nullptr;
  ScopedActivateDevice activate(ordinal_);
  DFX_RETURN_IF_ERROR(activate.status());
  auto* dst = static_cast<char*>(out->raw_data());
  const auto* src = static_cast<const char*>(t.raw_data());
  // `out`'s memory may have been a tensor that kernels enqueued on the
  // compute stream still read: the copy waits for them.
  DFX_ASSIGN_OR_RETURN(std::unique_ptr<GpuEvent> computed,
                       GpuEvent::Create(ordinal_));
  DFX_RETURN_IF_ERROR(computed->Record(*compute_));
  DFX_ASSIGN_OR_RETURN(std::unique_ptr<GpuEvent> copied,
                       GpuEvent::Create(ordinal_));
  if (!t.OnHost()) {
    // Another GPU's tensor: one copy on the D2D stream, peer to peer
    // where the GPUs have access to each other (CreateGpuDevices enables
    // it), else staged by the driver. Unified addressing tells it where
    // the source is. With a source device, the copy also waits for what
    // that GPU had enqueued so far (the tensor's producer among it): an
    // event on its compute stream, recorded under the table's lock so the
    // device cannot go meanwhile. Without one, the sender synchronized.
    DFX_RETURN_IF_ERROR(d2d_->WaitFor(*computed));
    if (source.device_incarnation != 0) {
      DeviceTable& table = LiveDevices();
      absl::MutexLock lock(&table.mu);
      auto it = table.by_incarnation.find(source.device_incarnation);
      if (it == table.by_incarnation.end()) {
        return absl::FailedPreconditionError(absl::StrCat(
            name(), ": the GPU tensor's source device (incarnation ",
            absl::Hex(source.device_incarnation),
            ") is not a GPU of this process any more"));
      }
      GpuDevice* from = it->second;
      DFX_ASSIGN_OR_RETURN(std::unique_ptr<GpuEvent> written,
                           GpuEvent::Create(from->ordinal_));
      {
        // Recorded with the source GPU current (event and stream are
        // its); the wait may name another device's event.
        ScopedActivateDevice on_source(from->ordinal_);
        DFX_RETURN_IF_ERROR(on_source.status());
        DFX_RETURN_IF_ERROR(written->Record(*from->compute_));
      }
      DFX_RETURN_IF_ERROR(d2d_->WaitFor(*written));
      // Destroying a recorded event that a stream waits for is allowed:
      // the wait uses its state as of the record.
    }
    DFX_CUDA_RETURN_IF_ERROR(
        cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDefault, d2d_->get()),
        absl::StrCat(name(), ": copying ", bytes,
                     " bytes from another GPU"));
    DFX_RETURN_IF_ERROR(copied->Record(*d2d_));
    return copied;
  }
  BfcAllocator* pinned = PinnedHostAllocator();
  if (bytes >= kStagingChunk && pinned != nullptr && !IsPinned(src)) {
    // Large and pageable: StagedFromHost, which waits for `computed` too
    // (it is on the H2D stream, after the wait enqueued here).
    DFX_RETURN_IF_ERROR(h2d_->WaitFor(*computed));
    *staged = true;
    return nullptr;
  }
  // Small copies (the driver stages them itself), and pinned sources.
  DFX_RETURN_IF_ERROR(h2d_->WaitFor(*computed));
  DFX_CUDA_RETURN_IF_ERROR(
      cudaMemcpyAsync(dst, src, bytes, cudaMemcpyHostToDevice, h2d_->get()),
      absl::StrCat(name(), ": copying ", bytes, " bytes to the GPU"));
  DFX_RETURN_IF_ERROR(copied->Record(*h2d_));
  return copied;
}

absl::Status GpuDevice::StagedFromHost(const Tensor& t, Tensor out) {
  const size_t bytes = t.TotalBytes();
  ScopedActivateDevice activate(ordinal_);
  DFX_RETURN_IF_ERROR(activate.status());
  const std::string what =
      absl::StrCat(name(), ": copying ", bytes, " bytes to the GPU");
  auto* dst = static_cast<char*>(out.raw_data());
  const auto* src = static_cast<const char*>(t.raw_data());
  BfcAllocator* pinned = PinnedHostAllocator();
  // Chunks through two pinned buffers, the host filling one while the
  // copy engine drains the other.
  DFX_ASSIGN_OR_RETURN(Tensor staging,
                       Tensor::Allocate(pinned, DT_INT8,
                                        TensorShape({2 * kStagingChunk})));
  std::unique_ptr<GpuEvent> drained[2];
  for (auto& event : drained) {
    DFX_ASSIGN_OR_RETURN(event, GpuEvent::Create(ordinal_));
  }
  auto* buffers = static_cast<char*>(staging.raw_data());
  // One thread fills a buffer at ~10 GB/s, a fifth of the DMA's speed.
  ThreadPool* pool = intra_op_pool();
  const int ways =
      pool == nullptr ? 1 : std::min(kStagingThreads, pool->NumThreads());
  for (size_t offset = 0, i = 0; offset < bytes; offset += kStagingChunk, ++i) {
    const size_t n = std::min<size_t>(kStagingChunk, bytes - offset);
    char* buffer = buffers + (i % 2) * kStagingChunk;
    DFX_RETURN_IF_ERROR(
        drained[i % 2]->BlockHostUntilDone(kHostWaitTimeout, what));
    ParallelMemcpy(pool, buffer, src + offset, n, ways);
    DFX_CUDA_RETURN_IF_ERROR(cudaMemcpyAsync(dst + offset, buffer, n,
                                             cudaMemcpyHostToDevice,
                                             h2d_->get()),
                             what);
    DFX_RETURN_IF_ERROR(drained[i % 2]->Record(*h2d_));
  }
  // `staging` goes back to the allocator only after its last DMA (the
  // H2D stream's other copies may be waited for too: they are as short).
  return h2d_->BlockHostUntilDone(kHostWaitTimeout);
}

absl::StatusOr<Tensor> GpuDevice::CopyFromHost(const Tensor& t) {
  Tensor out;
  bool staged = false;
  DFX_ASSIGN_OR_RETURN(std::unique_ptr<GpuEvent> copied,
                       EnqueueFromHost(t, CopySource{}, &out, &staged));
  if (staged) {
    DFX_RETURN_IF_ERROR(StagedFromHost(t, out));
  } else if (copied != nullptr) {
    DFX_RETURN_IF_ERROR(copied->BlockHostUntilDone(
        kHostWaitTimeout, absl::StrCat(name(), ": copying ", t.TotalBytes(),
                                       " bytes to the GPU")));
  }
  return out;
}

namespace {

// `s`, its message starting with `device` (most already do).
absl::Status Named(const std::string& device, const absl::Status& s) {
  if (absl::StartsWith(s.message(), device)) return s;
  return absl::Status(s.code(), absl::StrCat(device, ": ", s.message()));
}

}  // namespace

void GpuDevice::CopyFromHostAsync(const Tensor& t, const CopySource& source,
                                  CopyDoneCallback done) {
  Tensor out;
  bool staged = false;
  absl::StatusOr<std::unique_ptr<GpuEvent>> copied =
      EnqueueFromHost(t, source, &out, &staged);
  if (!copied.ok()) {
    std::move(done)(Named(name(), copied.status()));
    return;
  }
  if (staged) {
    // Blocks a callback thread, not the caller's. ThreadPool takes
    // copyable closures.
    auto task = std::make_shared<CopyDoneCallback>(std::move(done));
    callback_pool_->Schedule([this, task, t, out = std::move(out)]() mutable {
      absl::Status s = StagedFromHost(t, out);
      if (s.ok()) {
        (*task)(std::move(out));
      } else {
        (*task)(Named(name(), s));
      }
    });
    return;
  }
  if (*copied == nullptr) {
    std::move(done)(std::move(out));
    return;
  }
  WatchCopy(*std::move(copied),
            absl::StrCat("copying ", t.TotalBytes(), " bytes to the GPU"), t,
            std::move(out), std::move(done));
}

void GpuDevice::WatchCopy(std::unique_ptr<GpuEvent> copied, std::string what,
                          Tensor source, Tensor out, CopyDoneCallback done) {
  auto event = std::shared_ptr<GpuEvent>(std::move(copied));
  poller_->Watch(
      [event] { return event->Done(); }, what,
      [name = name(), what, source = std::move(source), out = std::move(out),
       done = std::move(done)](absl::Status s) mutable {
        { Tensor landed = std::move(source); }  // the DMA is over
        if (s.ok()) {
          std::move(done)(std::move(out));
        } else if (absl::StartsWith(s.message(), name)) {
          std::move(done)(std::move(s));  // the poller's deadline
        } else {
          std::move(done)(absl::Status(
              s.code(), absl::StrCat(name, ": ", what, ": ", s.message())));
        }
      });
}

absl::Status GpuDevice::Synchronize() {
  ScopedActivateDevice activate(ordinal_);
  DFX_RETURN_IF_ERROR(activate.status());
  return compute_->BlockHostUntilDone(kHostWaitTimeout);
}

absl::StatusOr<Tensor> GpuDevice::CopyOnDevice(const Tensor& t) {
  DFX_ASSIGN_OR_RETURN(Tensor out,
                       Tensor::Allocate(bfc_, t.dtype(), t.shape()));
  const size_t bytes = t.TotalBytes();
  if (bytes == 0) return out;
  ScopedActivateDevice activate(ordinal_);
  DFX_RETURN_IF_ERROR(activate.status());
  DFX_CUDA_RETURN_IF_ERROR(
      cudaMemcpyAsync(out.raw_data(), t.raw_data(), bytes,
                      cudaMemcpyDeviceToDevice, compute_->get()),
      absl::StrCat(name(), ": copying ", bytes, " bytes within the GPU"));
  return out;
}

Allocator* GpuDevice::GetHostAllocator() const {
  BfcAllocator* pinned = PinnedHostAllocator();
  return pinned != nullptr ? static_cast<Allocator*>(pinned) : CpuAllocator();
}

absl::Status GpuDevice::D2hFollowsCompute() {
  // The tensor's producer ran on the compute stream.
  DFX_ASSIGN_OR_RETURN(std::unique_ptr<GpuEvent> written,
                       GpuEvent::Create(ordinal_));
  DFX_RETURN_IF_ERROR(written->Record(*compute_));
  return d2h_->WaitFor(*written);
}

absl::StatusOr<std::unique_ptr<GpuEvent>> GpuDevice::EnqueueToHost(
    const Tensor& t, Tensor* out) {
  // Into pinned memory, which the copy engine writes at full speed (and
  // which the tensor keeps, so a later copy back to a GPU is direct too).
  // Without pinned memory the copy into pageable memory may block the
  // caller (the driver's choice).
  BfcAllocator* pinned = PinnedHostAllocator();
  absl::StatusOr<Tensor> made =
      pinned != nullptr ? Tensor::Allocate(pinned, t.dtype(), t.shape())
                        : absl::ResourceExhaustedError("no pinned memory");
  if (!made.ok()) {
    DFX_ASSIGN_OR_RETURN(made, Tensor::Allocate(CpuAllocator(), t.dtype(),
                                                t.shape()));
  }
  *out = *std::move(made);
  const size_t bytes = t.TotalBytes();
  if (bytes == 0) return nullptr;
  ScopedActivateDevice activate(ordinal_);
  DFX_RETURN_IF_ERROR(activate.status());
  DFX_RETURN_IF_ERROR(D2hFollowsCompute());
  DFX_CUDA_RETURN_IF_ERROR(
      cudaMemcpyAsync(out->raw_data(), t.raw_data(), bytes,
                      cudaMemcpyDeviceToHost, d2h_->get()),
      absl::StrCat(name(), ": copying ", bytes, " bytes from the GPU"));
  DFX_ASSIGN_OR_RETURN(std::unique_ptr<GpuEvent> copied,
                       GpuEvent::Create(ordinal_));
  DFX_RETURN_IF_ERROR(copied->Record(*d2h_));
  return copied;
}

absl::StatusOr<Tensor> GpuDevice::CopyToHost(const Tensor& t) {
  Tensor out;
  DFX_ASSIGN_OR_RETURN(std::unique_ptr<GpuEvent> copied,
                       EnqueueToHost(t, &out));
  if (copied != nullptr) {
    DFX_RETURN_IF_ERROR(copied->BlockHostUntilDone(
        kHostWaitTimeout, absl::StrCat(name(), ": copying ", t.TotalBytes(),
                                       " bytes from the GPU")));
  }
  return out;
}

void GpuDevice::CopyToHostAsync(const Tensor& t, CopyDoneCallback done) {
  Tensor out;
  absl::StatusOr<std::unique_ptr<GpuEvent>> copied = EnqueueToHost(t, &out);
  if (!copied.ok()) {
    std::move(done)(Named(name(), copied.status()));
  } else if (*copied == nullptr) {
    std::move(done)(std::move(out));
  } else {
    WatchCopy(*std::move(copied),
              absl::StrCat("copying ", t.TotalBytes(), " bytes from the GPU"),
              t, std::move(out), std::move(done));
  }
}

namespace {

// A range copy on its way: the event recorded after it on the
// device-to-host stream.
class GpuRangeCopy final : public DeviceRangeCopier::Pending {
 public:
  GpuRangeCopy(std::unique_ptr<GpuEvent> landed, std::string what)
      : landed_(std::move(landed)), what_(std::move(what)) {}
  ~GpuRangeCopy() override {
    // Its destination may go once this returns.
    if (!waited_) Wait().IgnoreError();
  }
  absl::Status Wait() override {
    waited_ = true;
    return landed_->BlockHostUntilDone(GpuDevice::kHostWaitTimeout, what_);
  }

 private:
  const std::unique_ptr<GpuEvent> landed_;
  const std::string what_;
  bool waited_ = false;
};

}  // namespace

absl::StatusOr<std::unique_ptr<DeviceRangeCopier::Pending>>
GpuDevice::StartCopyRangeToHost(const Tensor& t, size_t offset, size_t length,
                                void* dst) {
  const size_t total = t.TotalBytes();
  if (offset > total || length > total - offset) {
    return absl::InvalidArgumentError(
        absl::StrCat(name(), ": bytes [", offset, ", ", offset + length,
                     ") are not inside the tensor's ", total));
  }
  ScopedActivateDevice activate(ordinal_);
  DFX_RETURN_IF_ERROR(activate.status());
  std::string what = absl::StrCat(name(), ": copying bytes [", offset, ", ",
                                  offset + length, ") from the GPU");
  DFX_ASSIGN_OR_RETURN(std::unique_ptr<GpuEvent> landed,
                       GpuEvent::Create(ordinal_));
  if (length > 0) {
    // After the tensor's producer (its _Send did not wait for it).
    DFX_RETURN_IF_ERROR(D2hFollowsCompute());
    DFX_CUDA_RETURN_IF_ERROR(
        cudaMemcpyAsync(dst, static_cast<const char*>(t.raw_data()) + offset,
                        length, cudaMemcpyDeviceToHost, d2h_->get()),
        what);
  }
  DFX_RETURN_IF_ERROR(landed->Record(*d2h_));
  return std::make_unique<GpuRangeCopy>(std::move(landed), std::move(what));
}

absl::StatusOr<std::unique_ptr<GpuDevice>> GpuDevice::Create(
    const GpuDeviceOptions& options, int index, int ordinal,
    ThreadPool* intra_op_pool) {
  const std::string name =
      absl::StrCat(options.task_name, "/device:GPU:", index);
  cudaDeviceProp prop;
  DFX_CUDA_RETURN_IF_ERROR(
      cudaGetDeviceProperties(&prop, ordinal),
      absl::StrCat(name, ": reading the properties of GPU ordinal ", ordinal));
  DFX_ASSIGN_OR_RETURN(BfcAllocator * bfc, GpuAllocator(ordinal, options));
  DeviceAttributes attrs;
  attrs.set_name(name);
  attrs.set_device_type("GPU");
  attrs.set_incarnation(NewIncarnation());
  attrs.set_memory_limit(bfc->GetBfcStats().bytes_limit);
  attrs.set_physical_device_desc(Describe(ordinal, prop));
  attrs.set_xla_global_id(-1);
  std::unique_ptr<GpuDevice> device(
      new GpuDevice(std::move(attrs), bfc, intra_op_pool, ordinal));
  DFX_ASSIGN_OR_RETURN(device->compute_, GpuStream::Create(ordinal, "compute"));
  DFX_ASSIGN_OR_RETURN(device->h2d_, GpuStream::Create(ordinal, "h2d"));
  DFX_ASSIGN_OR_RETURN(device->d2h_, GpuStream::Create(ordinal, "d2h"));
  DFX_ASSIGN_OR_RETURN(device->d2d_, GpuStream::Create(ordinal, "d2d"));
  device->callback_pool_ = std::make_unique<ThreadPool>(
      absl::StrCat("gpu", index, "_copies"), kCallbackThreads);
  device->poller_ = std::make_unique<CompletionPoller>(
      name, device->callback_pool_.get(), kHostWaitTimeout);
  {
    DeviceTable& table = LiveDevices();
    absl::MutexLock lock(&table.mu);
    table.by_incarnation[device->incarnation()] = device.get();
  }
  return device;
}

namespace {

// Lets every pair of `ordinals` that can reach each other's memory do so
// (once per pair and process), so copies between them go peer to peer.
void EnablePeerAccess(const std::vector<int>& ordinals) {
  static absl::Mutex mu(absl::kConstInit);
  static auto* done = new absl::flat_hash_map<int64_t, bool>;
  absl::MutexLock lock(&mu);
  for (int from : ordinals) {
    for (int to : ordinals) {
      if (from == to || done->contains(int64_t{from} << 32 | to)) continue;
      (*done)[int64_t{from} << 32 | to] = true;
      int can = 0;
      if (cudaDeviceCanAccessPeer(&can, from, to) != cudaSuccess || !can) {
        cudaGetLastError();
        continue;
      }
      ScopedActivateDevice activate(from);
      const cudaError_t e = cudaDeviceEnablePeerAccess(to, 0);
      if (e != cudaSuccess && e != cudaErrorPeerAccessAlreadyEnabled) {
        spdlog::warn("{}", CudaStatus(e, absl::StrCat(
                                             "enabling peer access from GPU ",
                                             from, " to GPU ", to)));
      }
      cudaGetLastError();
    }
  }
}

}  // namespace

absl::StatusOr<std::vector<std::unique_ptr<Device>>> CreateGpuDevices(
    const GpuDeviceOptions& options, ThreadPool* intra_op_pool) {
  std::vector<std::unique_ptr<Device>> devices;
  if (options.max_devices == 0) return devices;
  std::string why_none;
  bool unexpected = false;
  const int count = CountGpus(&why_none, &unexpected);
  if (count == 0) {
    // Once per process: every session and server start would repeat it.
    // A machine without a GPU or driver is normal (debug: programs'
    // output stays as in a CPU-only build); any other CUDA error is not.
    static std::once_flag logged;
    std::call_once(logged, [&] {
      if (unexpected) {
        spdlog::warn("no GPU devices: {}; running on CPUs only", why_none);
      } else {
        spdlog::debug("no GPU devices: {}; running on CPUs only", why_none);
      }
    });
    // As TensorFlow: a machine without GPUs ignores visible_device_list,
    // so one config serves GPU and CPU machines alike.
    return devices;
  }
  DFX_ASSIGN_OR_RETURN(std::vector<int> ordinals,
                       ResolveVisibleDevices(options, count));
  EnablePeerAccess(ordinals);
  for (size_t i = 0; i < ordinals.size(); ++i) {
    DFX_ASSIGN_OR_RETURN(std::unique_ptr<GpuDevice> device,
                         GpuDevice::Create(options, static_cast<int>(i),
                                           ordinals[i], intra_op_pool));
    spdlog::info("{}: {}", device->name(),
                 device->attributes().physical_device_desc());
    devices.push_back(std::move(device));
  }
  return devices;
}

MoreDevicesFactory GpuDeviceFactory(GpuDeviceOptions options) {
  return [options = std::move(options)](const std::string& task_name,
                                        ThreadPool* intra_op_pool) {
    GpuDeviceOptions named = options;
    named.task_name = task_name;
    return CreateGpuDevices(named, intra_op_pool);
  };
}

}  // namespace dfx::gpu
