// LocalSession: the "local" (or "") session target: a master session over
// one in-process worker that owns this process's CPU devices.
#ifndef DFX_MASTER_LOCAL_SESSION_H_
#define DFX_MASTER_LOCAL_SESSION_H_

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "graph/op_registry.h"
#include "master/master_session.h"
#include "worker/worker_cache.h"
#include "rendezvous/rendezvous_mgr.h"
#include "runtime/device.h"
#include "runtime/op_kernel.h"
#include "runtime/session.h"
#include "runtime/thread_pool.h"
#include "worker/local_worker.h"
#include "worker/worker.h"

namespace dfx {

// Thread-safe: Run, Extend, ListDevices and Close may be called from many
// threads at once. The session has config.device_count["CPU"] devices
// (default 1) named /job:localhost/replica:0/task:0/device:CPU:<i>; nodes
// go where their `device` fields say (unconstrained ones to CPU:0), and
// feeds and fetches travel through the step's rendezvous without a copy.
// Steps run on an inter-op pool of config.inter_op_parallelism_threads
// threads (default: the number of cores).
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
  LocalSession() = default;

  // Declared in construction order; the destructor takes them down in a
  // fixed order of its own.
  std::unique_ptr<DeviceMgr> devices_;
  std::unique_ptr<RendezvousMgr> rendezvous_mgr_;
  std::unique_ptr<ThreadPool> compute_pool_;
  std::unique_ptr<Worker> worker_;
  std::unique_ptr<LocalWorker> local_worker_;
  std::unique_ptr<StaticWorkerCache> worker_cache_;
  std::unique_ptr<MasterSession> master_;
};

}  // namespace dfx

#endif  // DFX_MASTER_LOCAL_SESSION_H_
