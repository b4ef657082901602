// Device names in TensorFlow's syntax: full and partial specs
// ("/job:worker/replica:0/task:1/device:CPU:0", "/job:ps", "/device:CPU:*",
// legacy "/cpu:0"), parsed, printed, merged and matched.
#ifndef DFX_GRAPH_DEVICE_NAME_H_
#define DFX_GRAPH_DEVICE_NAME_H_

#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace dfx {

// A device spec. Each field is either set (has_*) or open; an open field
// matches anything. "*" in a name leaves the field open.
struct DeviceName {
  bool has_job = false;
  std::string job;
  bool has_replica = false;
  int replica = 0;
  bool has_task = false;
  int task = 0;
  bool has_type = false;
  std::string type;  // "CPU", "GPU", ... (legacy lower-case forms upper-cased)
  bool has_id = false;
  int id = 0;

  // Parses a full or partial name; "" is the fully open spec.
  // InvalidArgument naming the string and the bad part otherwise.
  static absl::StatusOr<DeviceName> Parse(absl::string_view name);

  // "/job:worker/replica:0/task:1/device:CPU:0"; open fields are omitted
  // ("/job:ps", "/device:CPU:*" when only the type is set).
  std::string ToString() const;

  // Every field set.
  bool IsFullySpecified() const {
    return has_job && has_replica && has_task && has_type && has_id;
  }

  // True when every field set in `spec` equals this name's field (so the
  // fully open spec matches everything). Use on a full device name.
  bool Matches(const DeviceName& spec) const;

  // True when no field is set differently in the two specs.
  bool IsCompatibleWith(const DeviceName& other) const;

  // Sets every field open here and set in `other`. InvalidArgument naming
  // both specs when a field is set differently in the two.
  absl::Status MergeFrom(const DeviceName& other);

  // "/job:worker/replica:0/task:1" (the fields that are set), and
  // "/device:CPU:0".
  std::string TaskName() const;
  std::string LocalName() const;

  // The same job, replica and task.
  bool IsSameTask(const DeviceName& other) const;

  bool operator==(const DeviceName& other) const;
  bool operator!=(const DeviceName& other) const { return !(*this == other); }
};

// A full name from its parts.
std::string FullDeviceName(absl::string_view job, int replica, int task,
                           absl::string_view type, int id);

}  // namespace dfx

#endif  // DFX_GRAPH_DEVICE_NAME_H_
