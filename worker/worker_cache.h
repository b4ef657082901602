// WorkerCache: how a master reaches the worker of each task of the cluster
// (task name "/job:x/replica:0/task:n" -> WorkerInterface).
#ifndef DFX_WORKER_WORKER_CACHE_H_
#define DFX_WORKER_WORKER_CACHE_H_

#include <map>
#include <string>
#include <vector>

#include "absl/strings/string_view.h"
#include "worker/worker_interface.h"

namespace dfx {

// Implementations are thread-safe once built.
class WorkerCacheInterface {
 public:
  virtual ~WorkerCacheInterface() = default;

  // The worker of `task` (DeviceName::TaskName() spelling), borrowed: it
  // outlives the cache. Null when the cluster has no such task.
  virtual WorkerInterface* GetWorker(absl::string_view task) const = 0;

  // Every task the cache knows, sorted.
  virtual std::vector<std::string> ListTasks() const = 0;
};

// A fixed table, filled before use. Borrows the workers.
class StaticWorkerCache : public WorkerCacheInterface {
 public:
  StaticWorkerCache() = default;
  // REQUIRES: not yet shared with other threads.
  void AddWorker(std::string task, WorkerInterface* worker) {
    workers_[std::move(task)] = worker;
  }

  WorkerInterface* GetWorker(absl::string_view task) const override {
    auto it = workers_.find(std::string(task));
    return it == workers_.end() ? nullptr : it->second;
  }
  std::vector<std::string> ListTasks() const override {
    std::vector<std::string> tasks;
    tasks.reserve(workers_.size());
    for (const auto& [task, worker] : workers_) tasks.push_back(task);
    return tasks;
  }

 private:
  std::map<std::string, WorkerInterface*> workers_;
};

}  // namespace dfx

#endif  // DFX_WORKER_WORKER_CACHE_H_
