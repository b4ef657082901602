#include "gpu/gpu_device.h"

#include <mutex>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "base/log.h"
#include "base/status_macros.h"
#include "gpu/cuda_status.h"

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

 private:
  const int ordinal_;
};

std::unique_ptr<SubAllocator> NewCudaSubAllocator(int ordinal) {
  return std::make_unique<CudaSubAllocator>(ordinal);
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

GpuDevice::GpuDevice(DeviceAttributes attributes, BfcAllocator* bfc,
                     ThreadPool* intra_op_pool, int ordinal)
    : Device(std::move(attributes), bfc, intra_op_pool),
      ordinal_(ordinal),
      bfc_(bfc) {}

GpuDevice::~GpuDevice() = default;

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
  return device;
}

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
