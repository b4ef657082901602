// ConfigProto.gpu_options checked and turned into what the GPU devices of
// a process are made from: which physical GPUs become GPU:0, GPU:1, ...,
// how much memory each one's allocator may take and whether it grows.
// Pure C++ (no CUDA), so that it builds and is tested on every machine.
#ifndef DFX_RUNTIME_GPU_OPTIONS_H_
#define DFX_RUNTIME_GPU_OPTIONS_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "proto/config.pb.h"

namespace dfx {

struct GpuDeviceOptions {
  // "/job:J/replica:0/task:T"; devices are "<task>/device:GPU:<i>".
  std::string task_name = "/job:localhost/replica:0/task:0";
  // visible_device_list parsed: the CUDA ordinals, in the order they become
  // GPU:0, GPU:1, ... Empty with `all_visible`: every GPU the runtime sees.
  std::vector<int> visible_devices;
  bool all_visible = true;
  std::string visible_device_list;  // as written, for messages
  // ConfigProto.device_count["GPU"]: the most GPU devices (-1: no cap; 0:
  // none, CUDA is not even asked).
  int max_devices = -1;
  bool allow_growth = false;
  // per_process_gpu_memory_fraction: (0, 1]; 0 picks the default (see
  // GpuMemoryLimit).
  double memory_fraction = 0;
};

// The comma-separated CUDA ordinals of visible_device_list ("0", "1,0",
// spaces allowed around entries); empty for "". InvalidArgument naming
// visible_device_list and the list for an entry that is not a
// non-negative number, or a duplicate.
absl::StatusOr<std::vector<int>> ParseVisibleDeviceList(
    absl::string_view list);

// Checks `config.gpu_options` (and device_count["GPU"]) and fills the
// options for `task_name`. InvalidArgument naming the field:
// visible_device_list as above, per_process_gpu_memory_fraction negative,
// NaN or above 1 (dfx has no unified memory), device_count["GPU"] negative.
absl::StatusOr<GpuDeviceOptions> GpuDeviceOptionsFromConfig(
    const ConfigProto& config, absl::string_view task_name);

// The CUDA ordinals to make devices for, out of `num_physical` the runtime
// sees: the visible list (each below `num_physical`, else InvalidArgument
// naming visible_device_list, the ordinal and the count) or all of them,
// then capped by max_devices.
absl::StatusOr<std::vector<int>> ResolveVisibleDevices(
    const GpuDeviceOptions& options, int num_physical);

// The byte limit of one GPU's allocator with `total_bytes` of device
// memory of which `free_bytes` are free now: total * fraction when a
// fraction is set; otherwise the free memory less a reserve for the CUDA
// context, cuBLAS/cuDNN workspaces and other processes (the larger of
// 256 MiB and 5% of the total). Rounded down to 1 MiB; InvalidArgument
// when that leaves nothing, naming the GPU.
absl::StatusOr<int64_t> GpuMemoryLimit(const GpuDeviceOptions& options,
                                       int64_t total_bytes, int64_t free_bytes,
                                       absl::string_view gpu_name);

}  // namespace dfx

#endif  // DFX_RUNTIME_GPU_OPTIONS_H_
