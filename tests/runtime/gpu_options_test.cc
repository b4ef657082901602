// ConfigProto.gpu_options as the GPU devices read it (runtime/gpu_options.h):
// the visible list, the memory fraction and its default, device_count.
#include "runtime/gpu_options.h"

#include <cmath>
#include <limits>

#include "absl/strings/str_cat.h"
#include "catch2/catch.hpp"
#include "tests/testing/status_matchers.h"

namespace dfx {
namespace {

using testing::StatusIs;

constexpr int64_t kGiB = int64_t{1} << 30;
constexpr int64_t kMiB = int64_t{1} << 20;

absl::StatusOr<GpuDeviceOptions> FromList(const std::string& list) {
  ConfigProto config;
  config.mutable_gpu_options()->set_visible_device_list(list);
  return GpuDeviceOptionsFromConfig(config, "/job:w/replica:0/task:1");
}

TEST_CASE("gpu options: visible_device_list picks and orders GPUs") {
  auto all = FromList("");
  REQUIRE_OK(all);
  CHECK(all->task_name == "/job:w/replica:0/task:1");
  CHECK(all->all_visible);
  auto ids = ResolveVisibleDevices(*all, 3);
  REQUIRE_OK(ids);
  CHECK(*ids == std::vector<int>{0, 1, 2});
  // None seen: no devices, not an error.
  ids = ResolveVisibleDevices(*all, 0);
  REQUIRE_OK(ids);
  CHECK(ids->empty());

  auto some = FromList(" 2, 0 ");
  REQUIRE_OK(some);
  CHECK_FALSE(some->all_visible);
  ids = ResolveVisibleDevices(*some, 3);
  REQUIRE_OK(ids);
  CHECK(*ids == std::vector<int>{2, 0});  // GPU:0 is ordinal 2
}

TEST_CASE("gpu options: a bad visible_device_list is InvalidArgument naming "
          "it") {
  for (const char* bad : {"a", "0,,1", "-1", "1,", "+1", "0x1", "1.5"}) {
    INFO(bad);
    REQUIRE_THAT(FromList(bad).status(),
                 StatusIs(absl::StatusCode::kInvalidArgument,
                          absl::StrCat("visible_device_list '", bad, "'")));
  }
  REQUIRE_THAT(FromList("1,0,1").status(),
               StatusIs(absl::StatusCode::kInvalidArgument, "GPU 1 twice"));
  // Well-formed, but more than the machine has: found when resolving.
  auto opts = FromList("0,3");
  REQUIRE_OK(opts);
  REQUIRE_THAT(ResolveVisibleDevices(*opts, 2).status(),
               StatusIs(absl::StatusCode::kInvalidArgument,
                        "visible_device_list '0,3' names GPU 3 but this "
                        "process sees 2 GPUs"));
  REQUIRE_THAT(ResolveVisibleDevices(*opts, 0).status(),
               StatusIs(absl::StatusCode::kInvalidArgument, "sees 0 GPUs"));
}

TEST_CASE("gpu options: device_count['GPU'] caps the devices") {
  ConfigProto config;
  (*config.mutable_device_count())["GPU"] = 1;
  auto opts = GpuDeviceOptionsFromConfig(config, "/job:localhost/replica:0/task:0");
  REQUIRE_OK(opts);
  auto ids = ResolveVisibleDevices(*opts, 4);
  REQUIRE_OK(ids);
  CHECK(*ids == std::vector<int>{0});
  (*config.mutable_device_count())["GPU"] = 0;
  opts = GpuDeviceOptionsFromConfig(config, "/job:localhost/replica:0/task:0");
  REQUIRE_OK(opts);
  CHECK(opts->max_devices == 0);
  ids = ResolveVisibleDevices(*opts, 4);
  REQUIRE_OK(ids);
  CHECK(ids->empty());
  (*config.mutable_device_count())["GPU"] = -2;
  REQUIRE_THAT(GpuDeviceOptionsFromConfig(config, "t").status(),
               StatusIs(absl::StatusCode::kInvalidArgument,
                        "device_count['GPU']"));
}

TEST_CASE("gpu options: per_process_gpu_memory_fraction and allow_growth set "
          "the allocator's limit") {
  ConfigProto config;
  config.mutable_gpu_options()->set_per_process_gpu_memory_fraction(0.5);
  config.mutable_gpu_options()->set_allow_growth(true);
  auto opts = GpuDeviceOptionsFromConfig(config, "t");
  REQUIRE_OK(opts);
  CHECK(opts->allow_growth);
  // Half of the total, whatever is free (an H200: about 140 GB).
  auto limit = GpuMemoryLimit(*opts, 140 * kGiB, 100 * kGiB, "GPU:0");
  REQUIRE_OK(limit);
  CHECK(*limit == 70 * kGiB);

  // The default: free memory less max(256 MiB, 5% of the total).
  GpuDeviceOptions defaults;
  limit = GpuMemoryLimit(defaults, 80 * kGiB, 80 * kGiB, "GPU:0");
  REQUIRE_OK(limit);
  CHECK(*limit == 76 * kGiB);
  limit = GpuMemoryLimit(defaults, 2 * kGiB, 1 * kGiB, "GPU:0");
  REQUIRE_OK(limit);
  CHECK(*limit == 768 * kMiB);
  REQUIRE_THAT(GpuMemoryLimit(defaults, 2 * kGiB, 100 * kMiB, "GPU:1").status(),
               StatusIs(absl::StatusCode::kInvalidArgument,
                        "GPU:1: no memory for tensors"));

  for (double bad : {-0.1, 1.5, std::numeric_limits<double>::quiet_NaN()}) {
    INFO(bad);
    config.mutable_gpu_options()->set_per_process_gpu_memory_fraction(bad);
    REQUIRE_THAT(GpuDeviceOptionsFromConfig(config, "t").status(),
                 StatusIs(absl::StatusCode::kInvalidArgument,
                          "per_process_gpu_memory_fraction"));
  }
}

}  // namespace
}  // namespace dfx
