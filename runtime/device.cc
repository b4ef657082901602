#include "runtime/device.h"

#include <algorithm>
#include <cstring>
#include <thread>

#define EIGEN_USE_THREADS
#include "unsupported/Eigen/CXX11/Tensor"

#include "absl/random/random.h"
#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "base/logging.h"
#include "base/status_macros.h"
#include "runtime/more_devices.h"

namespace dfx {

namespace {
thread_local const ScopedMoreDevices* t_more_devices = nullptr;
}  // namespace

ScopedMoreDevices::ScopedMoreDevices(MoreDevicesFactory factory)
    : factory_(std::move(factory)), previous_(t_more_devices) {
  t_more_devices = this;
}

ScopedMoreDevices::~ScopedMoreDevices() { t_more_devices = previous_; }

const MoreDevicesFactory* ScopedMoreDevices::Current() {
  return t_more_devices == nullptr || !t_more_devices->factory_
             ? nullptr
             : &t_more_devices->factory_;
}

uint64_t NewIncarnation() {
  static absl::Mutex mu(absl::kConstInit);
  static absl::BitGen* gen = new absl::BitGen;
  absl::MutexLock lock(&mu);
  uint64_t v = 0;
  while (v == 0) v = absl::Uniform<uint64_t>(*gen);
  return v;
}

absl::StatusOr<Tensor> Device::CopyOnDevice(const Tensor& t) {
  DFX_ASSIGN_OR_RETURN(Tensor copy,
                       Tensor::Allocate(allocator_, t.dtype(), t.shape()));
  if (t.dtype() == DT_STRING) {
    const std::string* from = t.data<std::string>();
    std::copy(from, from + t.NumElements(), copy.data<std::string>());
  } else if (t.TotalBytes() > 0) {
    std::memcpy(copy.raw_data(), t.raw_data(), t.TotalBytes());
  }
  return copy;
}

Device::Device(DeviceAttributes attributes, Allocator* allocator,
               ThreadPool* intra_op_pool)
    : attributes_(std::move(attributes)),
      allocator_(allocator),
      intra_op_pool_(intra_op_pool),
      resource_mgr_(std::make_unique<ResourceMgr>()) {
  DFX_CHECK(attributes_.incarnation() != 0);
  eigen_device_ = std::make_unique<Eigen::ThreadPoolDevice>(
      intra_op_pool_->AsEigenThreadPool(), intra_op_pool_->NumThreads());
}

Device::~Device() = default;

void DeviceMgr::ClearContainers(
    absl::Span<const std::string> containers) const {
  for (Device* d : device_ptrs_) {
    if (containers.empty()) {
      d->resource_manager()->Cleanup("");
    }
    for (const std::string& c : containers) d->resource_manager()->Cleanup(c);
  }
}

DeviceMgr::~DeviceMgr() {
  devices_.clear();
  intra_op_pool_.reset();
}

absl::StatusOr<std::unique_ptr<DeviceMgr>> DeviceMgr::NewCpu(
    const CpuDeviceOptions& options) {
  if (options.num_devices < 1) {
    return absl::InvalidArgumentError(absl::StrCat(
        "need at least one CPU device, got ", options.num_devices));
  }
  if (options.intra_op_threads < 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        "intra_op_threads must be >= 0, got ", options.intra_op_threads));
  }
  const int threads =
      options.intra_op_threads > 0
          ? options.intra_op_threads
          : std::max(1, static_cast<int>(std::thread::hardware_concurrency()));
  auto mgr = std::unique_ptr<DeviceMgr>(new DeviceMgr);
  mgr->intra_op_pool_ = std::make_unique<ThreadPool>("intra_op", threads);
  for (int i = 0; i < options.num_devices; ++i) {
    DeviceAttributes attrs;
    attrs.set_name(absl::StrCat(options.task_name, "/device:CPU:", i));
    attrs.set_device_type("CPU");
    attrs.set_incarnation(NewIncarnation());
    attrs.set_physical_device_desc("host CPU");
    attrs.set_xla_global_id(-1);
    auto device = std::make_unique<Device>(std::move(attrs), CpuAllocator(),
                                           mgr->intra_op_pool_.get());
    Device* raw = device.get();
    mgr->by_name_[raw->name()] = raw;
    mgr->by_name_[absl::StrCat("/device:CPU:", i)] = raw;
    mgr->by_name_[absl::StrCat("/cpu:", i)] = raw;
    mgr->device_ptrs_.push_back(raw);
    mgr->devices_.push_back(std::move(device));
  }
  if (const MoreDevicesFactory* factory = ScopedMoreDevices::Current()) {
    DFX_ASSIGN_OR_RETURN(
        std::vector<std::unique_ptr<Device>> more,
        (*factory)(options.task_name, mgr->intra_op_pool_.get()));
    for (std::unique_ptr<Device>& device : more) {
      Device* raw = device.get();
      const std::string& name = raw->name();
      if (mgr->by_name_.contains(name)) {
        return absl::InternalError(
            absl::StrCat("two devices named ", name));
      }
      mgr->by_name_[name] = raw;
      // "/device:GPU:0" and the legacy "/gpu:0".
      const size_t local = name.rfind("/device:");
      if (local != std::string::npos) {
        const std::string local_name = name.substr(local);
        mgr->by_name_[local_name] = raw;
        mgr->by_name_[absl::AsciiStrToLower(
            absl::StrCat("/", local_name.substr(8)))] = raw;
      }
      mgr->device_ptrs_.push_back(raw);
      mgr->devices_.push_back(std::move(device));
    }
  }
  return mgr;
}

absl::StatusOr<Device*> DeviceMgr::LookupDevice(absl::string_view name) const {
  auto it = by_name_.find(name);
  if (it != by_name_.end()) return it->second;
  std::vector<std::string> known;
  for (const Device* d : device_ptrs_) known.push_back(d->name());
  return absl::NotFoundError(absl::StrCat("unknown device '", name,
                                          "'; known devices: ",
                                          absl::StrJoin(known, ", ")));
}

}  // namespace dfx
