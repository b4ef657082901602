// DeviceMgr::NewCpu with devices of another type (runtime/more_devices.h):
// the way GPU devices join a process's devices, checked here with fake
// "GPU" devices over the CPU allocator so it runs on every machine.
#include "runtime/more_devices.h"

#include "absl/strings/str_cat.h"
#include "catch2/catch.hpp"
#include "runtime/device.h"
#include "tests/testing/status_matchers.h"

namespace dfx {
namespace {

using testing::StatusIs;

MoreDevicesFactory FakeGpus(int n, std::string* seen_task) {
  return [n, seen_task](const std::string& task, ThreadPool* pool)
             -> absl::StatusOr<std::vector<std::unique_ptr<Device>>> {
    *seen_task = task;
    std::vector<std::unique_ptr<Device>> devices;
    for (int i = 0; i < n; ++i) {
      DeviceAttributes attrs;
      attrs.set_name(absl::StrCat(task, "/device:GPU:", i));
      attrs.set_device_type("GPU");
      attrs.set_incarnation(NewIncarnation());
      devices.push_back(
          std::make_unique<Device>(std::move(attrs), CpuAllocator(), pool));
    }
    return devices;
  };
}

TEST_CASE("more devices: NewCpu adds them after the CPUs, found by full, "
          "local and legacy name, only while the scope lives") {
  CpuDeviceOptions options;
  options.task_name = "/job:worker/replica:0/task:2";
  options.num_devices = 2;
  options.intra_op_threads = 1;
  std::string seen_task;
  {
    ScopedMoreDevices gpus(FakeGpus(2, &seen_task));
    auto mgr = DeviceMgr::NewCpu(options);
    REQUIRE_OK(mgr);
    CHECK(seen_task == "/job:worker/replica:0/task:2");
    const auto& devices = (*mgr)->ListDevices();
    REQUIRE(devices.size() == 4);
    CHECK(devices[1]->name() == "/job:worker/replica:0/task:2/device:CPU:1");
    CHECK(devices[2]->name() == "/job:worker/replica:0/task:2/device:GPU:0");
    CHECK(devices[3]->device_type() == "GPU");
    for (const char* name : {"/job:worker/replica:0/task:2/device:GPU:1",
                             "/device:GPU:1", "/gpu:1"}) {
      INFO(name);
      auto d = (*mgr)->LookupDevice(name);
      REQUIRE_OK(d);
      CHECK(*d == devices[3]);
    }
    REQUIRE_THAT((*mgr)->LookupDevice("/device:GPU:2").status(),
                 StatusIs(absl::StatusCode::kNotFound, "device:GPU:1"));
    {
      // The innermost scope wins, the outer one comes back after it.
      ScopedMoreDevices none(FakeGpus(0, &seen_task));
      auto cpus = DeviceMgr::NewCpu(options);
      REQUIRE_OK(cpus);
      CHECK((*cpus)->ListDevices().size() == 2);
    }
    auto again = DeviceMgr::NewCpu(options);
    REQUIRE_OK(again);
    CHECK((*again)->ListDevices().size() == 4);
  }
  auto plain = DeviceMgr::NewCpu(options);
  REQUIRE_OK(plain);
  CHECK((*plain)->ListDevices().size() == 2);
}

TEST_CASE("more devices: the factory's error fails NewCpu") {
  ScopedMoreDevices broken(
      [](const std::string&, ThreadPool*)
          -> absl::StatusOr<std::vector<std::unique_ptr<Device>>> {
        return absl::InvalidArgumentError(
            "gpu_options.visible_device_list '3' names GPU 3");
      });
  REQUIRE_THAT(DeviceMgr::NewCpu(CpuDeviceOptions()).status(),
               StatusIs(absl::StatusCode::kInvalidArgument,
                        "visible_device_list '3'"));
}

}  // namespace
}  // namespace dfx
