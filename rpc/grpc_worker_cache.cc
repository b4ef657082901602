#include "rpc/grpc_worker_cache.h"

#include <map>
#include <set>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "base/log.h"
#include "rpc/bulk_transport.h"
#include "graph/device_name.h"
#include "rpc/grpc_remote_worker.h"
#include "rpc/grpc_util.h"

namespace dfx {
namespace {

// Every channel and remote worker is made at construction; GetWorker only
// looks up. Thread-safe: nothing changes after construction.
class GrpcWorkerCache : public WorkerCacheInterface {
 public:
  GrpcWorkerCache(
      std::string local_task, WorkerInterface* local_worker,
      std::map<std::string, std::unique_ptr<WorkerInterface>> remote)
      : local_task_(std::move(local_task)),
        local_worker_(local_worker),
        remote_(std::move(remote)) {}

  WorkerInterface* GetWorker(absl::string_view task) const override {
    if (!local_task_.empty() && task == local_task_) return local_worker_;
    auto it = remote_.find(std::string(task));
    return it == remote_.end() ? nullptr : it->second.get();
  }

  std::vector<std::string> ListTasks() const override {
    std::set<std::string> tasks;
    for (const auto& [task, worker] : remote_) tasks.insert(task);
    if (!local_task_.empty()) tasks.insert(local_task_);
    return std::vector<std::string>(tasks.begin(), tasks.end());
  }

 private:
  const std::string local_task_;
  WorkerInterface* const local_worker_;
  const std::map<std::string, std::unique_ptr<WorkerInterface>> remote_;
};

absl::Status CheckJobName(absl::string_view name) {
  absl::StatusOr<DeviceName> parsed =
      DeviceName::Parse(absl::StrCat("/job:", name));
  if (name.empty() || name == "*" || !parsed.ok() || !parsed->has_job ||
      parsed->job != name) {
    return absl::InvalidArgumentError(
        absl::StrCat("cluster: bad job name '", name,
                     "' (letters, digits and '_', starting with a letter)"));
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<std::unique_ptr<WorkerCacheInterface>> NewGrpcWorkerCache(
    const ClusterDef& cluster, absl::string_view local_task,
    WorkerInterface* local_worker, int64_t max_chunk_bytes,
    const ChannelSecurity& security, bool push) {
  if (!local_task.empty() && local_worker == nullptr) {
    return absl::InvalidArgumentError(absl::StrCat(
        "worker cache: local task ", local_task, " has no local worker"));
  }
  // Addresses by task, in a first pass, so every problem is found before a
  // channel is made.
  std::map<std::string, std::string> addresses;
  std::map<std::string, std::string> task_of_address;
  std::set<std::string> jobs;
  for (const JobDef& job : cluster.job()) {
    if (absl::Status s = CheckJobName(job.name()); !s.ok()) return s;
    if (!jobs.insert(job.name()).second) {
      return absl::InvalidArgumentError(
          absl::StrCat("cluster: job '", job.name(), "' is listed twice"));
    }
    if (job.tasks().empty()) {
      return absl::InvalidArgumentError(
          absl::StrCat("cluster: job '", job.name(), "' has no tasks"));
    }
    for (const auto& [index, address] : job.tasks()) {
      const std::string task =
          absl::StrCat("/job:", job.name(), "/replica:0/task:", index);
      if (index < 0) {
        return absl::InvalidArgumentError(
            absl::StrCat("cluster: job '", job.name(),
                         "' has a negative task index ", index));
      }
      if (address.empty()) {
        return absl::InvalidArgumentError(
            absl::StrCat("cluster: task ", task, " has an empty address"));
      }
      absl::StatusOr<std::string> target = ParseGrpcTarget(address);
      if (!target.ok()) {
        return absl::InvalidArgumentError(absl::StrCat(
            "cluster: task ", task, ": ", target.status().message()));
      }
      auto [it, inserted] = task_of_address.emplace(*target, task);
      if (!inserted) {
        return absl::InvalidArgumentError(
            absl::StrCat("cluster: tasks ", it->second, " and ", task,
                         " have the same address ", *target));
      }
      addresses[task] = *std::move(target);
    }
  }
  if (!local_task.empty() && !addresses.contains(std::string(local_task))) {
    return absl::InvalidArgumentError(
        absl::StrCat("worker cache: the local task ", local_task,
                     " is not a task of the cluster"));
  }

  GrpcRemoteWorkerOptions options;
  options.max_chunk_bytes = max_chunk_bytes;
  options.bulk_auth_token = security.auth_token;
  if (push) options.push_from_task = std::string(local_task);
  if (security.tls) {
    BulkTls::Config tls;
    tls.ca_pem = security.tls_ca_pem;
    tls.cert_pem = security.tls_cert_pem;
    tls.key_pem = security.tls_key_pem;
    absl::StatusOr<std::shared_ptr<const BulkTls>> bulk_tls =
        BulkTls::NewClient(tls);
    if (bulk_tls.ok()) {
      options.bulk_tls = *std::move(bulk_tls);
    } else {
      // Never in clear text: tensors go over gRPC (TLS) alone.
      spdlog::warn("worker cache: no bulk fetches: {}", bulk_tls.status());
      options.allow_bulk = false;
    }
  }
  std::map<std::string, std::unique_ptr<WorkerInterface>> remote;
  for (const auto& [task, address] : addresses) {
    if (task == local_task) continue;
    options.bulk_tls_host = address.substr(0, address.rfind(':'));
    // Errors name the task and where it was looked for.
    remote[task] = NewGrpcRemoteWorker(NewChannel(address, security),
                                       absl::StrCat(task, " at ", address),
                                       options);
  }
  return std::unique_ptr<WorkerCacheInterface>(
      std::make_unique<GrpcWorkerCache>(std::string(local_task), local_worker,
                                        std::move(remote)));
}

}  // namespace dfx
