#include "runtime/gpu_options.h"

#include <algorithm>
#include <cmath>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"

namespace dfx {
namespace {

constexpr int64_t kMiB = int64_t{1} << 20;

}  // namespace

absl::StatusOr<std::vector<int>> ParseVisibleDeviceList(
    absl::string_view list) {
  std::vector<int> ids;
  if (absl::StripAsciiWhitespace(list).empty()) return ids;
  absl::flat_hash_set<int> seen;
  for (absl::string_view entry : absl::StrSplit(list, ',')) {
    entry = absl::StripAsciiWhitespace(entry);
    int id = -1;
    // SimpleAtoi takes "+1"; only plain digits are an ordinal.
    if (entry.empty() || !absl::ascii_isdigit(entry.front()) ||
        !absl::SimpleAtoi(entry, &id) || id < 0) {
      return absl::InvalidArgumentError(absl::StrCat(
          "gpu_options.visible_device_list '", list, "': '", entry,
          "' is not a GPU number (want e.g. \"0\" or \"1,0\")"));
    }
    if (!seen.insert(id).second) {
      return absl::InvalidArgumentError(
          absl::StrCat("gpu_options.visible_device_list '", list,
                       "' names GPU ", id, " twice"));
    }
    ids.push_back(id);
  }
  return ids;
}

absl::StatusOr<GpuDeviceOptions> GpuDeviceOptionsFromConfig(
    const ConfigProto& config, absl::string_view task_name) {
  const GPUOptions& gpu = config.gpu_options();
  GpuDeviceOptions options;
  options.task_name = std::string(task_name);
  auto ids = ParseVisibleDeviceList(gpu.visible_device_list());
  if (!ids.ok()) return ids.status();
  options.visible_devices = *std::move(ids);
  options.visible_device_list = gpu.visible_device_list();
  options.all_visible =
      absl::StripAsciiWhitespace(gpu.visible_device_list()).empty();
  const double fraction = gpu.per_process_gpu_memory_fraction();
  if (std::isnan(fraction) || fraction < 0 || fraction > 1) {
    return absl::InvalidArgumentError(absl::StrCat(
        "gpu_options.per_process_gpu_memory_fraction must be in [0, 1] (0: "
        "the default; dfx has no unified memory for more), got ",
        fraction));
  }
  options.memory_fraction = fraction;
  options.allow_growth = gpu.allow_growth();
  auto count = config.device_count().find("GPU");
  if (count != config.device_count().end()) {
    if (count->second < 0) {
      return absl::InvalidArgumentError(absl::StrCat(
          "device_count['GPU'] must not be negative, got ", count->second));
    }
    options.max_devices = count->second;
  }
  return options;
}

absl::StatusOr<std::vector<int>> ResolveVisibleDevices(
    const GpuDeviceOptions& options, int num_physical) {
  std::vector<int> ids;
  if (options.all_visible) {
    for (int i = 0; i < num_physical; ++i) ids.push_back(i);
  } else {
    for (int id : options.visible_devices) {
      if (id >= num_physical) {
        return absl::InvalidArgumentError(absl::StrCat(
            "gpu_options.visible_device_list '", options.visible_device_list,
            "' names GPU ", id,
            " but this process sees ", num_physical, " GPU",
            num_physical == 1 ? "" : "s"));
      }
      ids.push_back(id);
    }
  }
  if (options.max_devices >= 0 &&
      ids.size() > static_cast<size_t>(options.max_devices)) {
    ids.resize(options.max_devices);
  }
  return ids;
}

absl::StatusOr<int64_t> GpuMemoryLimit(const GpuDeviceOptions& options,
                                       int64_t total_bytes, int64_t free_bytes,
                                       absl::string_view gpu_name) {
  int64_t limit = 0;
  if (options.memory_fraction > 0) {
    limit = static_cast<int64_t>(static_cast<double>(total_bytes) *
                                 options.memory_fraction);
  } else {
    const int64_t reserve =
        std::max<int64_t>(256 * kMiB, total_bytes / 20);
    limit = std::min(free_bytes, total_bytes) - reserve;
  }
  limit = limit / kMiB * kMiB;
  if (limit <= 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        gpu_name, ": no memory for tensors: ", free_bytes, " of ",
        total_bytes, " bytes free",
        options.memory_fraction > 0
            ? absl::StrCat(", per_process_gpu_memory_fraction ",
                           options.memory_fraction)
            : std::string(" (less than the reserve for CUDA itself)")));
  }
  return limit;
}

}  // namespace dfx
