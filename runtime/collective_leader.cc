#include "runtime/collective_leader.h"

#include <algorithm>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "graph/device_name.h"
#include "graph/types.h"
#include "runtime/cancellation.h"
#include "runtime/tensor_shape.h"

namespace dfx {
namespace {

std::string TaskOf(absl::string_view device) {
  absl::StatusOr<DeviceName> n = DeviceName::Parse(device);
  return n.ok() ? n->TaskName() : std::string(device);
}

std::string ShapeString(const TensorShapeProto& proto) {
  absl::StatusOr<TensorShape> shape = TensorShape::FromProto(proto);
  return shape.ok() ? shape->DebugString() : std::string("<bad shape>");
}

const char* TypeName(int32_t type) {
  switch (type) {
    case kReductionCollective: return "reduction";
    case kBroadcastCollective: return "broadcast";
    case kGatherCollective: return "gather";
    case kAllToAllCollective: return "all-to-all";
    case kReduceScatterCollective: return "reduce-scatter";
    default: return "collective";
  }
}

void SetMembers(const std::vector<DeviceAttributes>& members,
                CompleteGroupResponse* response) {
  response->clear_device_attributes();
  for (const DeviceAttributes& d : members) {
    *response->add_device_attributes() = d;
  }
}

// Links `cancellation` (may be null) to `cancel` until `Finish` runs.
// Register comes after the call started, and the call may finish (and its
// step end, destroying `cancellation`) on this very thread before
// Register is reached: so Register does nothing once Finish has run, and
// Finish waits for a Register in progress. Finish runs before the call's
// continuation, so `cancellation` is alive whenever either touches it.
class CancelLink {
 public:
  explicit CancelLink(CancellationManager* cm) : cm_(cm) {
    if (cm_ != nullptr) token_ = cm_->get_cancellation_token();
  }
  // False when `cm` was already cancelled (`cancel` has not run then).
  bool Register(std::function<void()> cancel) {
    if (cm_ == nullptr) return true;
    absl::MutexLock lock(&mu_);
    if (finished_) return true;
    registered_ = true;
    return cm_->RegisterCallback(token_, std::move(cancel));
  }
  void Finish() {
    if (cm_ == nullptr) return;
    absl::MutexLock lock(&mu_);
    finished_ = true;
    if (registered_) cm_->TryDeregisterCallback(token_);
  }

 private:
  CancellationManager* const cm_;
  CancellationToken token_{};
  absl::Mutex mu_;
  bool finished_ ABSL_GUARDED_BY(mu_) = false;
  bool registered_ ABSL_GUARDED_BY(mu_) = false;
};

}  // namespace

// ---------------------------------------------------------------------------
// CollectiveLeader

absl::Status CollectiveLeader::CheckAgainstGroupLocked(
    const Group& group, const CompleteGroupRequest& request) const {
  if (group.group_size != request.group_size()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "collective group ", request.group_key(), ": device ",
        request.device_attributes().name(), " asks for group_size ",
        request.group_size(), " but the group was formed with group_size ",
        group.group_size));
  }
  if (group.device_type != request.device_type()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "collective group ", request.group_key(), ": device ",
        request.device_attributes().name(), " has device type '",
        request.device_type(), "' but the group's is '", group.device_type,
        "'"));
  }
  return absl::OkStatus();
}

CollectiveLeader::Token CollectiveLeader::JoinGroup(
    const CompleteGroupRequest& request, GroupDone done) {
  const DeviceAttributes& device = request.device_attributes();
  if (request.group_size() < 1 || device.name().empty()) {
    done(absl::InvalidArgumentError(absl::StrCat(
        "collective group ", request.group_key(),
        ": a member needs group_size >= 1 (got ", request.group_size(),
        ") and a device name (got '", device.name(), "')")));
    return 0;
  }
  std::vector<GroupDone> to_call;
  absl::StatusOr<CompleteGroupResponse> answer = CompleteGroupResponse();
  bool wait = false;
  Token token = 0;
  {
    absl::MutexLock lock(&mu_);
    token = next_token_++;
    auto [it, inserted] = groups_.try_emplace(request.group_key());
    Group& group = it->second;
    if (inserted) {
      group.group_size = request.group_size();
      group.device_type = request.device_type();
    }
    if (absl::Status s = CheckAgainstGroupLocked(group, request); !s.ok()) {
      answer = s;
    } else {
      auto same = std::find_if(
          group.members.begin(), group.members.end(),
          [&](const DeviceAttributes& d) { return d.name() == device.name(); });
      if (same != group.members.end()) {
        // The same device again: a later step, or its process restarted
        // (a new incarnation replaces the old one).
        if (same->incarnation() != device.incarnation()) {
          *same = device;
          if (group.complete) {
            SortGroupMembers(&group.members);
            SetMembers(group.members, &group.response);
          }
        }
      } else if (static_cast<int>(group.members.size()) >= group.group_size) {
        std::vector<std::string> names;
        for (const DeviceAttributes& d : group.members) {
          names.push_back(d.name());
        }
        answer = absl::InvalidArgumentError(absl::StrCat(
            "collective group ", request.group_key(), " already has its ",
            group.group_size, " members (", absl::StrJoin(names, ", "),
            "); device ", device.name(), " cannot join it"));
      } else {
        group.members.push_back(device);
      }
      if (answer.ok() && !group.complete &&
          static_cast<int>(group.members.size()) == group.group_size) {
        group.complete = true;
        SortGroupMembers(&group.members);
        CompleteGroupResponse& r = group.response;
        r.set_group_key(request.group_key());
        r.set_group_size(group.group_size);
        r.set_device_type(group.device_type);
        r.set_num_tasks(CountTasks(group.members));
        SetMembers(group.members, &r);
        for (auto& [t, waiter] : group.waiters) {
          group_tokens_.erase(t);
          to_call.push_back(std::move(waiter));
        }
        group.waiters.clear();
      }
      if (answer.ok()) {
        if (group.complete) {
          answer = group.response;
        } else {
          group.waiters.emplace(token, std::move(done));
          group_tokens_[token] = request.group_key();
          wait = true;
        }
      }
    }
  }
  for (GroupDone& waiter : to_call) waiter(answer);
  if (!wait) done(std::move(answer));
  return token;
}

CollectiveLeader::Token CollectiveLeader::JoinInstance(
    const CompleteInstanceRequest& request, InstanceDone done) {
  const std::string what =
      absl::StrCat("collective instance ", request.instance_key(), " (",
                   TypeName(request.type()), ", group ", request.group_key(),
                   ", step ", request.step_id(), ")");
  std::vector<InstanceDone> to_call;
  absl::StatusOr<CompleteInstanceResponse> answer = CompleteInstanceResponse();
  bool wait = false;
  Token token = 0;
  {
    absl::MutexLock lock(&mu_);
    token = next_token_++;
    auto group_it = groups_.find(request.group_key());
    if (group_it == groups_.end() || !group_it->second.complete) {
      // The leader restarted since the members cached the group: each
      // member drops its copy on this code and joins again next step.
      answer = absl::FailedPreconditionError(absl::StrCat(
          what, ": the group is not complete at its leader (it restarted?); "
                "the members join it again in the next step"));
    } else {
      const Group& group = group_it->second;
      int rank = -1;
      for (size_t i = 0; i < group.members.size(); ++i) {
        if (group.members[i].name() == request.device()) rank = i;
      }
      const InstanceKey key{request.step_id(), request.instance_key()};
      auto [it, inserted] = instances_.try_emplace(key);
      Instance& inst = it->second;
      if (inserted) {
        inst.group_key = request.group_key();
        inst.group_size = group.group_size;
        inst.first = request;
      }
      const CompleteInstanceRequest& first = inst.first;
      absl::Status error;
      if (rank < 0) {
        error = absl::InvalidArgumentError(absl::StrCat(
            what, ": device ", request.device(), " of task ",
            TaskOf(request.device()), " is not a member of the group"));
      } else if (std::find(inst.reported.begin(), inst.reported.end(),
                           request.device()) != inst.reported.end()) {
        error = absl::InvalidArgumentError(absl::StrCat(
            what, ": device ", request.device(),
            " ran it twice in one step (one instance key per collective op "
            "and step)"));
      } else if (first.group_key() != request.group_key() ||
                 first.type() != request.type()) {
        error = absl::InvalidArgumentError(absl::StrCat(
            what, ": task ", TaskOf(request.device()), " runs it as a ",
            TypeName(request.type()), " in group ", request.group_key(),
            " but task ", TaskOf(first.device()), " as a ",
            TypeName(first.type()), " in group ", first.group_key()));
      } else if (first.data_type() != request.data_type()) {
        error = absl::InvalidArgumentError(absl::StrCat(
            what, ": task ", TaskOf(request.device()), " (device ",
            request.device(), ") has dtype ",
            DataTypeString(request.data_type()), " but task ",
            TaskOf(first.device()), " (device ", first.device(),
            ") has dtype ", DataTypeString(first.data_type())));
      } else if (ShapeString(first.shape()) != ShapeString(request.shape())) {
        error = absl::InvalidArgumentError(absl::StrCat(
            what, ": task ", TaskOf(request.device()), " (device ",
            request.device(), ") has shape ", ShapeString(request.shape()),
            " but task ", TaskOf(first.device()), " (device ", first.device(),
            ") has shape ", ShapeString(first.shape()),
            "; every member must bring the same shape"));
      }
      if (!error.ok()) {
        // Every member learns of it: those waiting now, and (the entry
        // being gone) each later one finds its own mismatch or waits for
        // its step's abort.
        for (auto& [t, waiter] : inst.waiters) {
          instance_tokens_.erase(t);
          to_call.push_back(std::move(waiter));
        }
        instances_.erase(it);
        answer = error;
      } else {
        inst.reported.push_back(request.device());
        if (request.is_source()) {
          ++inst.sources;
          inst.source_rank = rank;
        }
        if (static_cast<int>(inst.reported.size()) < inst.group_size) {
          inst.waiters.emplace(token, std::move(done));
          instance_tokens_[token] = key;
          wait = true;
        } else {
          if (request.type() == kBroadcastCollective && inst.sources != 1) {
            answer = absl::InvalidArgumentError(absl::StrCat(
                what, ": ", inst.sources,
                " members are the broadcast's source; exactly one must be"));
          } else {
            CompleteInstanceResponse r;
            r.set_instance_key(request.instance_key());
            r.set_source_rank(request.type() == kBroadcastCollective
                                  ? inst.source_rank
                                  : -1);
            for (const DeviceAttributes& d : group.members) {
              r.add_member_incarnation(d.incarnation());
            }
            answer = r;
          }
          for (auto& [t, waiter] : inst.waiters) {
            instance_tokens_.erase(t);
            to_call.push_back(std::move(waiter));
          }
          instances_.erase(it);
        }
      }
    }
  }
  for (InstanceDone& waiter : to_call) waiter(answer);
  if (!wait) done(std::move(answer));
  return token;
}

void CollectiveLeader::Cancel(Token token, const absl::Status& status) {
  GroupDone group_done;
  InstanceDone instance_done;
  {
    absl::MutexLock lock(&mu_);
    if (auto g = group_tokens_.find(token); g != group_tokens_.end()) {
      auto it = groups_.find(g->second);
      if (it != groups_.end()) {
        auto w = it->second.waiters.find(token);
        if (w != it->second.waiters.end()) {
          group_done = std::move(w->second);
          it->second.waiters.erase(w);
        }
      }
      group_tokens_.erase(g);
    } else if (auto i = instance_tokens_.find(token);
               i != instance_tokens_.end()) {
      auto it = instances_.find(i->second);
      if (it != instances_.end()) {
        auto w = it->second.waiters.find(token);
        if (w != it->second.waiters.end()) {
          instance_done = std::move(w->second);
          it->second.waiters.erase(w);
        }
        // The step is over for this member: nobody completes the entry.
        if (it->second.waiters.empty()) instances_.erase(it);
      }
      instance_tokens_.erase(i);
    }
  }
  if (group_done) group_done(status);
  if (instance_done) instance_done(status);
}

size_t CollectiveLeader::PendingInstances() const {
  absl::MutexLock lock(&mu_);
  return instances_.size();
}

// ---------------------------------------------------------------------------
// LeaderCollectiveResolver

LeaderCollectiveResolver::LeaderCollectiveResolver(
    CollectiveLeader* leader, CollectiveLeaderClient* remote_leader,
    std::string leader_task)
    : leader_(leader),
      remote_leader_(remote_leader),
      leader_task_(std::move(leader_task)) {}

void LeaderCollectiveResolver::FinishGroup(
    const CompleteGroupRequest& request,
    absl::StatusOr<CompleteGroupResponse> response, const GroupDone& done) {
  if (!response.ok()) {
    done(response.status());
    return;
  }
  auto group = std::make_shared<CollectiveGroup>();
  group->group_key = request.group_key();
  group->group_size = response->group_size();
  group->device_type = response->device_type();
  group->members.assign(response->device_attributes().begin(),
                        response->device_attributes().end());
  group->num_tasks = CountTasks(group->members);
  if (group->group_size != request.group_size() ||
      static_cast<int>(group->members.size()) != request.group_size() ||
      group->RankOf(request.device_attributes().name()) < 0) {
    done(absl::InternalError(absl::StrCat(
        "collective group ", request.group_key(), ": the leader (",
        leader_task_, ") answered with ", group->members.size(),
        " members of group_size ", group->group_size, ", without device ",
        request.device_attributes().name(), "; asked for group_size ",
        request.group_size())));
    return;
  }
  {
    absl::MutexLock lock(&mu_);
    groups_[request.group_key()] = group;
  }
  done(std::shared_ptr<const CollectiveGroup>(std::move(group)));
}

void LeaderCollectiveResolver::CompleteGroupAsync(
    const CompleteGroupRequest& request, CancellationManager* cancellation,
    GroupDone done) {
  std::shared_ptr<const CollectiveGroup> cached;
  {
    absl::MutexLock lock(&mu_);
    auto it = groups_.find(request.group_key());
    if (it != groups_.end()) cached = it->second;
  }
  if (cached != nullptr) {
    const int rank = cached->RankOf(request.device_attributes().name());
    if (rank >= 0 && cached->group_size == request.group_size() &&
        cached->members[rank].incarnation() ==
            request.device_attributes().incarnation()) {
      done(std::move(cached));
      return;
    }
  }
  auto link = std::make_shared<CancelLink>(cancellation);
  if (leader_ != nullptr) {
    CollectiveLeader::Token token = leader_->JoinGroup(
        request, [this, request, link,
                  done](absl::StatusOr<CompleteGroupResponse> r) {
          link->Finish();
          FinishGroup(request, std::move(r), done);
        });
    if (!link->Register([this, token, request] {
          leader_->Cancel(token, absl::CancelledError(absl::StrCat(
                                    "collective group ", request.group_key(),
                                    ": cancelled while waiting for members")));
        })) {
      leader_->Cancel(token, absl::CancelledError(absl::StrCat(
                                "collective group ", request.group_key(),
                                ": cancelled")));
    }
    return;
  }
  struct Call {
    CompleteGroupRequest request;
    CompleteGroupResponse response;
  };
  auto call = std::make_shared<Call>();
  call->request = request;
  remote_leader_->CompleteGroupAsync(
      &call->request, &call->response, cancellation,
      [this, call, done](const absl::Status& s) {
        if (!s.ok()) {
          done(absl::Status(s.code(),
                            absl::StrCat("CompleteGroup for collective group ",
                                         call->request.group_key(),
                                         " at the group leader ", leader_task_,
                                         ": ", s.message())));
          return;
        }
        FinishGroup(call->request, std::move(call->response), done);
      });
}

void LeaderCollectiveResolver::CompleteInstanceAsync(
    const CompleteInstanceRequest& request, CancellationManager* cancellation,
    InstanceDone done_in) {
  // A leader that no longer knows the group: forget the cached copy, so
  // that the next step joins the group again.
  InstanceDone done = [this, group_key = request.group_key(),
                       done = std::move(done_in)](
                          absl::StatusOr<CompleteInstanceResponse> r) {
    if (r.status().code() == absl::StatusCode::kFailedPrecondition) {
      absl::MutexLock lock(&mu_);
      groups_.erase(group_key);
    }
    done(std::move(r));
  };
  if (leader_ != nullptr) {
    auto link = std::make_shared<CancelLink>(cancellation);
    CollectiveLeader::Token token = leader_->JoinInstance(
        request,
        [link, done](absl::StatusOr<CompleteInstanceResponse> r) {
          link->Finish();
          done(std::move(r));
        });
    if (!link->Register([this, token, request] {
          leader_->Cancel(token,
                         absl::CancelledError(absl::StrCat(
                             "collective instance ", request.instance_key(),
                             ": cancelled while waiting for members")));
        })) {
      leader_->Cancel(token, absl::CancelledError(absl::StrCat(
                                "collective instance ",
                                request.instance_key(), ": cancelled")));
    }
    return;
  }
  struct Call {
    CompleteInstanceRequest request;
    CompleteInstanceResponse response;
  };
  auto call = std::make_shared<Call>();
  call->request = request;
  remote_leader_->CompleteInstanceAsync(
      &call->request, &call->response, cancellation,
      [this, call, done](const absl::Status& s) {
        if (!s.ok()) {
          // The leader's InvalidArgument already names the instance.
          done(absl::Status(s.code(), absl::StrCat("CompleteInstance at the "
                                                   "group leader ",
                                                   leader_task_, ": ",
                                                   s.message())));
          return;
        }
        done(std::move(call->response));
      });
}

}  // namespace dfx
