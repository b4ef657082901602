// ClusterCoordinator: TensorFlow's ParameterServerStrategy V2 coordinator
// (tf.distribute.experimental.coordinator.ClusterCoordinator) for C++
// clients. The client schedules closures (one training step each); a
// thread per `/job:worker` task takes them in order and runs each as steps
// on that worker through one session on the master. A closure whose worker
// died is put back and run by another worker (at least once, as in
// TensorFlow); the dead worker is probed with a backoff and, when it
// serves again (a new process), its per-worker values are made again and
// it takes closures again. A failure of any other kind (a ps that died, a
// closure's own error) ends that closure with the error, cancels the
// closures still queued, and is what Join returns.
//
// What a failure was is read from typed data: the master names the tasks
// that were unavailable when a step failed in a payload of the step's
// status (base/task_status.h), which crosses gRPC in the status details.
//
// The graph is the client's: typically one copy of the step subgraph per
// worker (placed on "/job:worker/task:i", variables on the ps tasks, see
// examples/coordinator_train.cc), so a closure for worker i runs worker
// i's fetches. The master should be a task that is not a worker (e.g. a
// `chief` task): the coordinator survives the loss of workers, not of
// its master.
#ifndef DFX_COORDINATOR_CLUSTER_COORDINATOR_H_
#define DFX_COORDINATOR_CLUSTER_COORDINATOR_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "proto/cluster.pb.h"
#include "proto/graph.pb.h"
#include "runtime/session.h"
#include "runtime/tensor.h"

namespace dfx::coordinator {

struct CoordinatorOptions {
  // The master: "grpc://host:port".
  std::string master;
  // The session's options (operation_timeout_in_ms, ...).
  SessionOptions session_options;
  // Each step a closure runs (ClosureContext::Run) ends by this deadline
  // (DeadlineExceeded), unless the closure's RunOptions set a shorter one.
  absl::Duration step_timeout = absl::Seconds(60);
  // A worker that died is probed (GetStatus) first after probe_initial,
  // then at doubling intervals up to probe_max; after worker_give_up
  // without an answer it is given up (no closure goes to it again). When
  // every worker is given up, the queued closures fail with Unavailable.
  absl::Duration probe_initial = absl::Milliseconds(100);
  absl::Duration probe_max = absl::Seconds(2);
  absl::Duration worker_give_up = absl::Minutes(5);
  // A step that fails Unavailable without naming a task (e.g. the master
  // rebuilding a step while a task rejoined) is retried, at most this many
  // times for one closure; Unavailable naming the closure's worker is
  // always retried.
  int max_transient_retries = 5;
};

// What a closure gets: its worker, and a way to run steps there.
class ClosureContext {
 public:
  virtual ~ClosureContext() = default;
  // The worker's index in the cluster's `worker` job.
  virtual int worker_index() const = 0;
  // "/job:worker/replica:0/task:<index>".
  virtual const std::string& worker_task() const = 0;
  // Runs one step in the coordinator's session (deadline: step_timeout).
  virtual absl::StatusOr<std::vector<Tensor>> Run(
      const std::vector<std::pair<std::string, Tensor>>& feeds,
      const std::vector<std::string>& fetches,
      const std::vector<std::string>& targets) = 0;
  // This worker's value of a CreatePerWorkerValue (what its fn returned on
  // this worker, for the worker's current process). InvalidArgument for an
  // unknown id.
  virtual absl::StatusOr<std::vector<Tensor>> PerWorkerValue(int id) const = 0;
};

// A closure: runs on one worker, returns its result (or its error).
using Closure =
    std::function<absl::StatusOr<std::vector<Tensor>>(ClosureContext&)>;

// The future of a scheduled closure. Thread-safe; copies share the state.
class RemoteValue {
 public:
  // Waits at most `timeout` for the closure: its result or error;
  // DeadlineExceeded when it is not done by then.
  absl::StatusOr<std::vector<Tensor>> Fetch(absl::Duration timeout) const;
  bool IsReady() const;
  // The worker that ran the closure to its end (-1 before, or when it
  // ended without running: cancelled).
  int worker_index() const;
  // How many times the closure was started (more than 1 after retries).
  int attempts() const;

  struct State;
  explicit RemoteValue(std::shared_ptr<State> state)
      : state_(std::move(state)) {}

 private:
  std::shared_ptr<State> state_;
};

// Counters, for logs and tests.
struct CoordinatorStats {
  int64_t scheduled = 0;
  int64_t succeeded = 0;
  int64_t failed = 0;     // ended with an error (including cancelled)
  int64_t retried = 0;    // put back after their worker was unavailable
  int64_t worker_losses = 0;     // a worker marked down
  int64_t worker_recoveries = 0;  // a worker back (per-worker values rebuilt)
  std::vector<int64_t> closures_per_worker;  // succeeded, by worker index
  std::vector<bool> worker_up;
};

class ClusterCoordinator {
 public:
  // Opens a session on options.master and extends it with `graph`, then
  // starts one thread per task of the `worker` job. InvalidArgument for a
  // cluster without workers or a bad option; the session's errors.
  static absl::StatusOr<std::unique_ptr<ClusterCoordinator>> Create(
      const ClusterDef& cluster, const GraphDef& graph,
      CoordinatorOptions options);

  // Cancels the queued closures (Cancelled), waits for the running ones
  // (bounded by step_timeout), closes the session.
  ~ClusterCoordinator();

  ClusterCoordinator(const ClusterCoordinator&) = delete;
  ClusterCoordinator& operator=(const ClusterCoordinator&) = delete;

  // Runs `fn` on every worker now (in parallel, each result kept for that
  // worker) and again on a worker when it comes back after a failure,
  // before it takes closures. Returns the value's id for
  // ClosureContext::PerWorkerValue. A worker that is down gets its value
  // when it comes back; an error on a live worker is returned (naming the
  // worker). `timeout` bounds the wait.
  absl::StatusOr<int> CreatePerWorkerValue(Closure fn,
                                           absl::Duration timeout);

  // Queues `closure` for the next free worker.
  RemoteValue Schedule(Closure closure);

  // Waits until every scheduled closure has ended. The first error of a
  // closure since the last Join (a failure that was not its worker's
  // loss), with the closures that were then still queued cancelled; OK
  // when all succeeded. DeadlineExceeded after `timeout` (the closures go
  // on). The error is reported once: a later Join waits anew.
  absl::Status Join(absl::Duration timeout);

  // True when every scheduled closure has ended.
  bool Done() const;

  CoordinatorStats Stats() const;

  // The session the closures run in (for steps outside closures, e.g. an
  // evaluation on the master's own devices). Owned by the coordinator.
  Session* session() const;

  class Impl;

 private:
  explicit ClusterCoordinator(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace dfx::coordinator

#endif  // DFX_COORDINATOR_CLUSTER_COORDINATOR_H_
