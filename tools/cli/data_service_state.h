// DispatcherState: what dfx's tf.data service dispatcher knows (datasets,
// jobs, iterations and their clients, workers and their tasks) and how each
// of TensorFlow's dispatcher calls changes it. No gRPC and no clock of its
// own: every call that ages something takes `now`, so tests drive time.
//
// Supported: processing mode OFF (each worker a task that reads a whole
// epoch; a worker that joins later gets a task of every unfinished
// iteration); DYNAMIC (distributed_epoch) as one task per iteration on one
// worker, which reads the epoch once (dfx's datasets have no split
// providers to share it out; a lost task ends the iteration rather than
// read elements twice); shared jobs by job name. Not supported: other
// sharding policies (FILE, DATA, ...: Unimplemented), round-robin reads
// (num_consumers: Unimplemented), journaling (a restarted dispatcher knows
// nothing).
#ifndef DFX_TOOLS_CLI_DATA_SERVICE_STATE_H_
#define DFX_TOOLS_CLI_DATA_SERVICE_STATE_H_

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "proto/tf_data_service.pb.h"

namespace dfx::cli {

// TensorFlow's dispatcher version (GetVersion): its clients refuse another.
inline constexpr int64_t kDataServiceVersion = 9;

// Thread-safe. Errors carry TensorFlow's codes: NotFound for an unknown
// dataset, job, iteration client or task; InvalidArgument for a request
// that contradicts what is known (a job name reused for another dataset or
// mode); Unimplemented for what dfx does not serve.
class DispatcherState {
 public:
  // A worker whose last heartbeat is older than `worker_timeout` loses its
  // tasks; a client older than `client_timeout` is released.
  DispatcherState(absl::Duration worker_timeout, absl::Duration client_timeout)
      : worker_timeout_(worker_timeout), client_timeout_(client_timeout) {}

  // The id of the dataset: the requested one, or the one registered
  // earlier with the same graph (fingerprint of its serialization), or a
  // new one.
  absl::StatusOr<std::string> GetOrRegisterDataset(
      const tfdata::GetOrRegisterDatasetRequest& request);
  absl::StatusOr<tfdata::DataServiceMetadata> GetMetadata(
      const std::string& dataset_id);
  absl::StatusOr<int64_t> GetOrCreateJob(
      const tfdata::GetOrCreateJobRequest& request);
  // A new iteration client of the job's iteration `repetition` (made with
  // one task per live worker when it does not exist yet).
  absl::StatusOr<int64_t> GetOrCreateIteration(int64_t job_id,
                                               int64_t repetition,
                                               absl::Time now);
  absl::Status ReleaseIterationClient(int64_t client_id);
  // The client's tasks, and whether its iteration has finished (every
  // task of it has reached its end).
  absl::StatusOr<tfdata::ClientHeartbeatResponse> ClientHeartbeat(
      const tfdata::ClientHeartbeatRequest& request, absl::Time now);

  // Registers the worker (or refreshes it): the tasks it should start
  // (those of `current_tasks` it already runs are not sent again) and
  // those it should drop (unknown, or of a released iteration).
  absl::StatusOr<tfdata::WorkerHeartbeatResponse> WorkerHeartbeat(
      const tfdata::WorkerHeartbeatRequest& request, absl::Time now);
  absl::Status WorkerUpdate(const tfdata::WorkerUpdateRequest& request);
  std::vector<std::string> Workers();

  // Drops workers and clients that stopped heartbeating: a worker's
  // unfinished tasks go with it (its iterations' clients stop seeing
  // them), a client's iteration goes when no client is left.
  void Expire(absl::Time now);

 private:
  struct Dataset {
    std::string fingerprint;
    tfdata::DatasetDef def;
    tfdata::DataServiceMetadata metadata;
  };
  struct Job {
    std::string dataset_id;
    tfdata::ProcessingModeDef mode;
    std::string name;
    std::map<int64_t, int64_t> iterations;  // repetition -> iteration id
  };
  struct Task {
    int64_t iteration_id = 0;
    std::string worker;
    bool finished = false;
  };
  struct Iteration {
    int64_t job_id = 0;
    // DYNAMIC: one task reads the epoch (dfx has no split providers), and
    // it is not started again elsewhere once lost.
    bool single_task = false;
    bool lost = false;
    std::set<int64_t> tasks;
    std::set<int64_t> clients;
  };
  struct Worker {
    absl::Time last_heartbeat;
    std::set<int64_t> tasks;
  };

  void AddTaskLocked(int64_t iteration_id, const std::string& worker)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  void ReleaseClientLocked(int64_t client_id)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Every task of it has ended (or its DYNAMIC task was lost).
  bool FinishedLocked(const Iteration& iteration)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  const absl::Duration worker_timeout_;
  const absl::Duration client_timeout_;
  absl::Mutex mu_;
  int64_t next_id_ ABSL_GUARDED_BY(mu_) = 1000;
  std::map<std::string, Dataset> datasets_ ABSL_GUARDED_BY(mu_);
  std::map<int64_t, Job> jobs_ ABSL_GUARDED_BY(mu_);
  std::map<std::string, int64_t> jobs_by_name_ ABSL_GUARDED_BY(mu_);
  std::map<int64_t, Iteration> iterations_ ABSL_GUARDED_BY(mu_);
  // iteration client id -> (iteration id, last heartbeat)
  std::map<int64_t, std::pair<int64_t, absl::Time>> clients_
      ABSL_GUARDED_BY(mu_);
  std::map<int64_t, Task> tasks_ ABSL_GUARDED_BY(mu_);
  std::map<std::string, Worker> workers_ ABSL_GUARDED_BY(mu_);
};

}  // namespace dfx::cli

#endif  // DFX_TOOLS_CLI_DATA_SERVICE_STATE_H_
