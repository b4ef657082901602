// LocalSession: the "local" (or "") session target, which runs every step in
// this process.
#ifndef DFX_MASTER_LOCAL_SESSION_H_
#define DFX_MASTER_LOCAL_SESSION_H_

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "graph/graph.h"
#include "graph/op_registry.h"
#include "runtime/cancellation.h"
#include "runtime/device.h"
#include "runtime/executor.h"
#include "runtime/op_kernel.h"
#include "runtime/session.h"
#include "runtime/thread_pool.h"

namespace dfx {

// Thread-safe: Run, Extend, ListDevices and Close may be called from many
// threads at once. Steps run on an inter-op pool of
// config.inter_op_parallelism_threads threads (default: the number of
// cores); every node runs on CPU:0.
class LocalSession : public Session {
 public:
  // InvalidArgument for a bad config (device_count["CPU"] < 1, negative
  // thread counts or timeout).
  static absl::StatusOr<std::unique_ptr<LocalSession>> Create(
      const SessionOptions& options);
  // With other registries than OpRegistry::Global() and
  // StandardKernelRegistry() (tests add their own ops); both must outlive
  // the session.
  static absl::StatusOr<std::unique_ptr<LocalSession>> Create(
      const SessionOptions& options, const OpRegistry* ops,
      const KernelRegistry* kernels);

  // Closes the session and waits for running steps to end.
  ~LocalSession() override;

  absl::Status Extend(const GraphDef& graph) override;
  absl::Status Run(const RunOptions& run_options,
                   const std::vector<std::pair<std::string, Tensor>>& feeds,
                   const std::vector<std::string>& fetches,
                   const std::vector<std::string>& targets,
                   std::vector<Tensor>* outputs,
                   RunMetadata* run_metadata) override;
  using Session::Run;
  absl::StatusOr<std::vector<DeviceAttributes>> ListDevices() override;
  absl::Status Close() override;

 private:
  // The session's graph as the client sent it, and imported.
  struct GraphState {
    GraphDef def;
    std::unique_ptr<Graph> graph;
  };
  // What a (feeds, fetches, targets) signature runs.
  struct PreparedStep {
    std::unique_ptr<Executor> executor;
  };

  LocalSession(const SessionOptions& options,
               std::unique_ptr<DeviceMgr> devices, int inter_op_threads,
               const OpRegistry* ops, const KernelRegistry* kernels);

  absl::StatusOr<std::shared_ptr<const PreparedStep>> GetOrCreatePrepared(
      const GraphState& graph, const std::vector<std::string>& sorted_feeds,
      const std::vector<std::string>& fetches,
      const std::vector<std::string>& sorted_targets);

  const SessionOptions options_;
  const std::unique_ptr<DeviceMgr> devices_;
  Device* const device_;  // CPU:0
  const OpRegistry* const ops_;
  const KernelRegistry* const kernels_;
  std::unique_ptr<ThreadPool> inter_op_pool_;
  std::atomic<int64_t> next_step_id_{1};

  // Serializes Extend calls (held while the new graph is validated).
  absl::Mutex extend_mu_ ABSL_ACQUIRED_BEFORE(mu_);
  absl::Mutex mu_;
  std::shared_ptr<const GraphState> graph_ ABSL_GUARDED_BY(mu_);
  absl::flat_hash_map<std::string, std::shared_ptr<const PreparedStep>>
      prepared_ ABSL_GUARDED_BY(mu_);
  bool closed_ ABSL_GUARDED_BY(mu_) = false;
  // Cancellation managers of the running steps.
  absl::flat_hash_set<CancellationManager*> running_ ABSL_GUARDED_BY(mu_);
};

}  // namespace dfx

#endif  // DFX_MASTER_LOCAL_SESSION_H_
