// Collectives, the part the kernels see: a resolved group (its members in
// TensorFlow's order), the CollectiveResolver that resolves groups and
// instances, and the process-wide table that gives a device its resolver.
#ifndef DFX_RUNTIME_COLLECTIVE_H_
#define DFX_RUNTIME_COLLECTIVE_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "proto/collective.pb.h"
#include "proto/device_attributes.pb.h"

namespace dfx {

class CancellationManager;
class CollectiveLeader;
class Device;

// TensorFlow's CollectiveType values (CompleteGroupRequest.collective_type,
// CompleteInstanceRequest.type).
enum CollectiveType : int32_t {
  kReductionCollective = 0,
  kBroadcastCollective = 1,
  kGatherCollective = 2,
  // 3 is TensorFlow's PERMUTE_COLLECTIVE (not run by dfx).
  kAllToAllCollective = 4,
  kReduceScatterCollective = 5,
};

// A complete group. Immutable once made.
struct CollectiveGroup {
  int32_t group_key = 0;
  int32_t group_size = 0;
  std::string device_type;
  // group_size devices, sorted by task (job, replica, task index as
  // numbers) and then by device name, as TensorFlow orders them; a
  // member's rank is its index here.
  std::vector<DeviceAttributes> members;
  int num_tasks = 0;

  // The rank of `device` (a full name), or -1.
  int RankOf(absl::string_view device) const;
};

// Sorts `members` into the group's order (see CollectiveGroup::members).
void SortGroupMembers(std::vector<DeviceAttributes>* members);
// The number of distinct tasks among `members`.
int CountTasks(const std::vector<DeviceAttributes>& members);

// Resolves groups and instances for the kernels of one process. Thread-safe;
// every call returns at once and runs `done` exactly once, on any thread
// (possibly the caller's, before returning). A `cancellation` (may be null)
// that is cancelled ends a pending call with Cancelled.
class CollectiveResolver {
 public:
  using GroupDone =
      std::function<void(absl::StatusOr<std::shared_ptr<const CollectiveGroup>>)>;
  using InstanceDone =
      std::function<void(absl::StatusOr<CompleteInstanceResponse>)>;

  virtual ~CollectiveResolver() = default;

  // Adds request.device_attributes to group request.group_key and answers
  // when the group has group_size members. InvalidArgument naming the group
  // when a member disagrees on group_size or device_type, or the group is
  // full without this device.
  virtual void CompleteGroupAsync(const CompleteGroupRequest& request,
                                  CancellationManager* cancellation,
                                  GroupDone done) = 0;

  // Waits until every member of the group reported this (step_id,
  // instance_key); InvalidArgument naming the instance key and the tasks
  // when their dtypes or shapes differ (or, for a broadcast, when not
  // exactly one member is the source). REQUIRES: the group is complete.
  virtual void CompleteInstanceAsync(const CompleteInstanceRequest& request,
                                     CancellationManager* cancellation,
                                     InstanceDone done) = 0;
};

// The process-wide table of resolvers by device. A server registers its
// resolver for each of its devices and unregisters them before the
// resolver goes away. Thread-safe.
void RegisterCollectiveResolver(const Device* device,
                                CollectiveResolver* resolver);
void UnregisterCollectiveResolver(const Device* device);
// The resolver registered for `device`; else the process's in-process
// resolver, for which every member of a group is a device of this process
// (a local session with several devices). Never null.
CollectiveResolver* CollectiveResolverFor(const Device* device);

// The process-wide table of group-leader tables by the worker they serve
// beside (an opaque key: the server's Worker): the worker service answers
// CompleteGroup/CompleteInstance from the tables registered for its
// worker. A server registers them before its worker service starts and
// unregisters them after it stopped. Thread-safe.
void RegisterCollectiveLeader(const void* worker, CollectiveLeader* leader);
void UnregisterCollectiveLeader(const void* worker);
// Null when none is registered (this task is not the leader).
CollectiveLeader* CollectiveLeaderFor(const void* worker);

}  // namespace dfx

#endif  // DFX_RUNTIME_COLLECTIVE_H_
