#include "runtime/collective.h"

#include <algorithm>
#include <set>
#include <tuple>

#include "absl/container/flat_hash_map.h"
#include "absl/synchronization/mutex.h"
#include "graph/device_name.h"
#include "runtime/collective_leader.h"

namespace dfx {
namespace {

// (job, replica, task, device type, device id, name): names that do not
// parse sort by name after those that do.
auto OrderKey(const DeviceAttributes& d) {
  absl::StatusOr<DeviceName> n = DeviceName::Parse(d.name());
  if (!n.ok()) {
    return std::make_tuple(1, std::string(), 0, 0, std::string(), 0, d.name());
  }
  return std::make_tuple(0, n->job, n->replica, n->task, n->type, n->id,
                         d.name());
}

struct ResolverTable {
  absl::Mutex mu;
  absl::flat_hash_map<const Device*, CollectiveResolver*> by_device
      ABSL_GUARDED_BY(mu);
  absl::flat_hash_map<const void*, CollectiveLeader*> leaders
      ABSL_GUARDED_BY(mu);
};

ResolverTable& Table() {
  static ResolverTable* table = new ResolverTable;
  return *table;
}

}  // namespace

int CollectiveGroup::RankOf(absl::string_view device) const {
  for (size_t i = 0; i < members.size(); ++i) {
    if (members[i].name() == device) return static_cast<int>(i);
  }
  return -1;
}

void SortGroupMembers(std::vector<DeviceAttributes>* members) {
  std::sort(members->begin(), members->end(),
            [](const DeviceAttributes& a, const DeviceAttributes& b) {
              return OrderKey(a) < OrderKey(b);
            });
}

int CountTasks(const std::vector<DeviceAttributes>& members) {
  std::set<std::string> tasks;
  for (const DeviceAttributes& d : members) {
    absl::StatusOr<DeviceName> n = DeviceName::Parse(d.name());
    tasks.insert(n.ok() ? n->TaskName() : d.name());
  }
  return static_cast<int>(tasks.size());
}

void RegisterCollectiveResolver(const Device* device,
                                CollectiveResolver* resolver) {
  ResolverTable& table = Table();
  absl::MutexLock lock(&table.mu);
  table.by_device[device] = resolver;
}

void UnregisterCollectiveResolver(const Device* device) {
  ResolverTable& table = Table();
  absl::MutexLock lock(&table.mu);
  table.by_device.erase(device);
}

CollectiveResolver* CollectiveResolverFor(const Device* device) {
  ResolverTable& table = Table();
  {
    absl::MutexLock lock(&table.mu);
    auto it = table.by_device.find(device);
    if (it != table.by_device.end()) return it->second;
  }
  // Every member in this process: the process is its own leader.
  static LeaderCollectiveResolver* in_process = new LeaderCollectiveResolver(
      new CollectiveLeader, nullptr, "this process");
  return in_process;
}

void RegisterCollectiveLeader(const void* worker, CollectiveLeader* leader) {
  ResolverTable& table = Table();
  absl::MutexLock lock(&table.mu);
  table.leaders[worker] = leader;
}

void UnregisterCollectiveLeader(const void* worker) {
  ResolverTable& table = Table();
  absl::MutexLock lock(&table.mu);
  table.leaders.erase(worker);
}

CollectiveLeader* CollectiveLeaderFor(const void* worker) {
  ResolverTable& table = Table();
  absl::MutexLock lock(&table.mu);
  auto it = table.leaders.find(worker);
  return it == table.leaders.end() ? nullptr : it->second;
}

}  // namespace dfx
