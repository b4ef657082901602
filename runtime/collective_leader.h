// The group leader's tables (CollectiveLeader) and the resolver of a
// process (LeaderCollectiveResolver), which asks its leader — itself, or
// another task through a CollectiveLeaderClient — to complete groups and
// instances, as TensorFlow's CollectiveParamResolverDistributed does.
#ifndef DFX_RUNTIME_COLLECTIVE_LEADER_H_
#define DFX_RUNTIME_COLLECTIVE_LEADER_H_

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/synchronization/mutex.h"
#include "runtime/collective.h"

namespace dfx {

// What the leader keeps: groups (for the process's life) and the instances
// of running steps (until every member reported). Thread-safe. The join
// calls return a token at once; `done` runs exactly once: when the group
// (instance) completes, on the thread of the join that completed it, or
// at once on an error, or from Cancel.
class CollectiveLeader {
 public:
  using Token = uint64_t;
  using GroupDone = std::function<void(absl::StatusOr<CompleteGroupResponse>)>;
  using InstanceDone =
      std::function<void(absl::StatusOr<CompleteInstanceResponse>)>;

  CollectiveLeader() = default;
  CollectiveLeader(const CollectiveLeader&) = delete;
  CollectiveLeader& operator=(const CollectiveLeader&) = delete;

  // Errors (InvalidArgument naming the group): group_size < 1, a missing
  // device name, group_size or device_type unlike the group's, a full
  // group without this device. A device that joins again (its next step)
  // is answered at once once the group is complete; a device that joins
  // with a new incarnation (its process restarted) replaces the old entry.
  Token JoinGroup(const CompleteGroupRequest& request, GroupDone done);

  // Errors (InvalidArgument naming the instance key): the group unknown or
  // incomplete, the device not a member, members disagreeing on dtype,
  // shape, or (broadcasts) the source. A second report of one device for
  // one (step, instance) is InvalidArgument too.
  Token JoinInstance(const CompleteInstanceRequest& request,
                     InstanceDone done);

  // Ends the join of `token` with `status` if it still waits.
  void Cancel(Token token, const absl::Status& status);

  // The number of instances with members still waiting (for tests).
  size_t PendingInstances() const;

 private:
  struct Group {
    int32_t group_size = 0;
    std::string device_type;
    std::vector<DeviceAttributes> members;  // in join order until complete
    bool complete = false;
    CompleteGroupResponse response;  // once complete
    std::map<Token, GroupDone> waiters;
  };
  struct Instance {
    int32_t group_key = 0;
    int32_t group_size = 0;
    // The first report, the one every later one must match.
    CompleteInstanceRequest first;
    std::vector<std::string> reported;  // devices
    int source_rank = -1;
    int sources = 0;
    std::map<Token, InstanceDone> waiters;
  };
  using InstanceKey = std::pair<int64_t, int32_t>;  // (step_id, instance_key)

  absl::Status CheckAgainstGroupLocked(const Group& group,
                                       const CompleteGroupRequest& request)
      const ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  mutable absl::Mutex mu_;
  Token next_token_ ABSL_GUARDED_BY(mu_) = 1;
  absl::flat_hash_map<int32_t, Group> groups_ ABSL_GUARDED_BY(mu_);
  std::map<InstanceKey, Instance> instances_ ABSL_GUARDED_BY(mu_);
  // Which table a waiting token is in.
  absl::flat_hash_map<Token, int32_t> group_tokens_ ABSL_GUARDED_BY(mu_);
  absl::flat_hash_map<Token, InstanceKey> instance_tokens_
      ABSL_GUARDED_BY(mu_);
};

// How a member reaches a leader in another task (implemented over the
// worker service in worker/). Calls return at once; `done` runs exactly
// once. A cancelled `cancellation` (may be null) ends the call.
class CollectiveLeaderClient {
 public:
  using Done = std::function<void(const absl::Status&)>;
  virtual ~CollectiveLeaderClient() = default;
  virtual void CompleteGroupAsync(const CompleteGroupRequest* request,
                                  CompleteGroupResponse* response,
                                  CancellationManager* cancellation,
                                  Done done) = 0;
  virtual void CompleteInstanceAsync(const CompleteInstanceRequest* request,
                                     CompleteInstanceResponse* response,
                                     CancellationManager* cancellation,
                                     Done done) = 0;
};

// The resolver of one process. When this process is the group leader,
// `leader` (borrowed) holds the tables and requests go there; otherwise
// they go to `remote_leader` (borrowed), and its answers are checked (the
// group has group_size members, this device among them). Exactly one of
// the two is non-null; both must outlive the resolver. Completed groups are
// cached, so a step after the first asks the leader only for its
// instances. Thread-safe.
class LeaderCollectiveResolver : public CollectiveResolver {
 public:
  // `leader_task` names the leader in errors.
  LeaderCollectiveResolver(CollectiveLeader* leader,
                           CollectiveLeaderClient* remote_leader,
                           std::string leader_task);

  void CompleteGroupAsync(const CompleteGroupRequest& request,
                          CancellationManager* cancellation,
                          GroupDone done) override;
  void CompleteInstanceAsync(const CompleteInstanceRequest& request,
                             CancellationManager* cancellation,
                             InstanceDone done) override;


 private:
  void FinishGroup(const CompleteGroupRequest& request,
                   absl::StatusOr<CompleteGroupResponse> response,
                   const GroupDone& done);

  CollectiveLeader* const leader_;
  CollectiveLeaderClient* const remote_leader_;
  const std::string leader_task_;
  absl::Mutex mu_;
  // Complete groups, by key.
  absl::flat_hash_map<int32_t, std::shared_ptr<const CollectiveGroup>> groups_
      ABSL_GUARDED_BY(mu_);
};

}  // namespace dfx

#endif  // DFX_RUNTIME_COLLECTIVE_LEADER_H_
