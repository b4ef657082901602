// MasterSession: one client session on the master, which places the
// session's graph over the cluster's devices, registers each step
// signature's partitions with the workers owning their devices, and runs
// steps by calling RunGraph on every partition's worker.
#ifndef DFX_MASTER_MASTER_SESSION_H_
#define DFX_MASTER_MASTER_SESSION_H_

#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/random/random.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "absl/synchronization/notification.h"
#include "absl/time/time.h"
#include "graph/graph.h"
#include "graph/op_registry.h"
#include "master/step_cleanups.h"
#include "master/step_planner.h"
#include "worker/worker_cache.h"
#include "proto/config.pb.h"
#include "proto/device_attributes.pb.h"
#include "runtime/cancellation.h"
#include "runtime/op_kernel.h"
#include "runtime/session.h"
#include "runtime/tensor.h"
#include "runtime/timer.h"

namespace dfx {

// The caller's hold on one master call: when it must end at the latest, and
// a cancellation that ends it early with Cancelled (a client that went away
// or cancelled its RPC). Both optional.
struct CallControl {
  absl::Time deadline = absl::InfiniteFuture();
  // Borrowed for the call; null: the call cannot be cancelled.
  CancellationManager* cancellation = nullptr;
  // Optional, borrowed: MasterSession::Run writes the step's id here once
  // the step has one (for the caller's step records and logs).
  int64_t* step_id = nullptr;
};

// Thread-safe: Extend, Run, ListDevices and Close may be called from many
// threads at once; steps run concurrently.
//
// The workers, the worker cache and the registries are borrowed and must
// outlive the session. The destructor closes the session and waits until
// every call it made on a worker has called back.
class MasterSession {
 public:
  struct Params {
    SessionOptions options;
    // Every device of the cluster (each worker's GetStatus), in preference
    // order; names are full names.
    std::vector<DeviceAttributes> devices;
    // Maps each device's task (DeviceName::TaskName()) to its worker.
    const WorkerCacheInterface* worker_cache = nullptr;
    // Full name of the master task's CPU:0: where feeds come from and
    // fetches go, and where unconstrained nodes are placed.
    std::string client_device;
    const OpRegistry* ops = nullptr;
    const KernelRegistry* kernels = nullptr;
    // The master process's incarnation (random, non-zero; 0: none), sent
    // with CreateWorkerSession so that workers collect the sessions of a
    // master that restarted.
    int64_t master_incarnation = 0;
    // Optional, borrowed, must outlive the session: with a timer, a
    // finished step's CleanupGraph to another process's dfx worker rides
    // with that worker's next RunGraph, or goes on its own after
    // `cleanup_delay` (StepCleanups); without one, it goes at once.
    Timer* timer = nullptr;
    absl::Duration cleanup_delay = absl::Milliseconds(100);
  };

  // InvalidArgument when the client device is not one of `devices`, a
  // device name is not a full name, a device's task has no worker in the
  // cache, or operation_timeout_in_ms is negative.
  static absl::StatusOr<std::unique_ptr<MasterSession>> Create(Params params);

  ~MasterSession();
  MasterSession(const MasterSession&) = delete;
  MasterSession& operator=(const MasterSession&) = delete;

  // 16 lowercase hex digits, random; the workers know the session by it.
  const std::string& handle() const { return handle_; }

  // Adds nodes to the session's graph and places the whole graph over the
  // devices (honouring `device` fields, colocation and
  // config.allow_soft_placement). InvalidArgument naming the node for a
  // name the graph has already, or anything ImportGraphDef or the placer
  // rejects; the graph is unchanged then. Cancelled after Close.
  absl::Status Extend(GraphDef graph);

  // Runs one step (Session::Run's contract). Errors from a worker are
  // prefixed "task <task name>: ". The step's deadline is
  // run_options.timeout_in_ms, else config.operation_timeout_in_ms (0:
  // none), or control.deadline when that is sooner; past it the calls are
  // cancelled and the step returns DeadlineExceeded. Cancelling `control`
  // cancels the step on every worker (Cancelled). The first error of any
  // partition cancels the others and is what the step returns. Cancelled
  // once Close has been called (also for steps running then).
  //
  // A task that restarted (its devices have new incarnations) rejoins the
  // session: the step that finds it gone fails with Unavailable naming the
  // task, and the next step creates the worker session again and registers
  // the graphs anew (state that lived on the old process, such as
  // variables, is gone).
  absl::Status Run(const RunOptions& run_options,
                   const std::vector<std::pair<std::string, Tensor>>& feeds,
                   const std::vector<std::string>& fetches,
                   const std::vector<std::string>& targets,
                   std::vector<Tensor>* outputs, RunMetadata* run_metadata,
                   const CallControl& control = CallControl());

  // Takes a closure that may block (wait for other tasks' answers) and runs
  // it on a thread that may: a pool's, or a caller's that waits anyway.
  using Offload = std::function<void(std::function<void()>)>;
  // The outcome of RunAsync: the step's status and, when OK, one tensor
  // per fetch.
  using RunDone = std::function<void(absl::Status, std::vector<Tensor>)>;

  // Run without waiting for the step (the master's RPC front end calls it
  // on gRPC's own threads): `done` is called once, on whichever thread
  // ends the step (this one, a RunGraph callback, the deadline or the
  // cancellation), with `run_metadata` filled in before. `run_options`,
  // `feeds`, `fetches`, `targets`, `run_metadata` and control's step_id
  // must stay valid until then. The calling thread validates the feeds,
  // sends the RunGraph calls and runs the cheap first nodes of this
  // process's partition; whatever may block — rechecking suspect tasks,
  // building and registering the graph of a new signature, naming the
  // unavailable tasks after an error — goes to `offload`.
  void RunAsync(const RunOptions& run_options,
                const std::vector<std::pair<std::string, Tensor>>& feeds,
                const std::vector<std::string>& fetches,
                const std::vector<std::string>& targets,
                RunMetadata* run_metadata, const CallControl& control,
                Offload offload, RunDone done);

  // The cluster's devices. Cancelled after Close.
  absl::StatusOr<std::vector<DeviceAttributes>> ListDevices() const;

  // The tasks this session's devices are on.
  std::vector<std::string> Tasks() const;

  // What the master's heartbeat heard from tasks (GetStatus, by task name;
  // tasks that did not answer are left out): a task whose devices have new
  // incarnations rejoins the session as RecheckSuspects has it, before a
  // step finds it restarted, so an idle session's next step runs at once.
  void ApplyTaskStatus(
      const absl::flat_hash_map<std::string, std::vector<DeviceAttributes>>&
          answers);

  // Cancels the running steps, deletes the session on every worker that
  // has it (without waiting for the answers), and makes later calls fail
  // with Cancelled. Idempotent.
  absl::Status Close();

 private:
  struct ClientGraph;
  struct GraphState;
  struct StepState;
  struct RunCall;
  class OpTracker;

  explicit MasterSession(Params params);

  struct WorkerSessionSlot;

  // The key of a signature's client graph in GraphState::cache.
  static std::string SignatureKey(const StepSignature& signature);
  // The cached client graph of a signature; null when there is none yet.
  static std::shared_ptr<const ClientGraph> CachedClientGraph(
      GraphState* state, const std::string& key);
  // The cached client graph of a signature, built and registered on a miss.
  absl::StatusOr<std::shared_ptr<const ClientGraph>> GetOrCreateClientGraph(
      GraphState* state, const StepSignature& signature,
      const CallControl& control);
  // RunAsync's parts: the feeds checked against the graph and the step's
  // signature (no waiting); the step started on its client graph; the
  // answer put together once the step finished or failed.
  absl::Status PrepareRun(RunCall* call);
  void LaunchStep(const std::shared_ptr<RunCall>& call);
  void FinishRun(const std::shared_ptr<RunCall>& call, absl::Status status,
                 bool all_done);
  absl::StatusOr<std::shared_ptr<ClientGraph>> BuildClientGraph(
      const GraphState& state, const PlacementConfig& placement,
      const StepSignature& signature, const CallControl& control);
  // Creates this session on the worker of `task` unless done already. One
  // caller sends CreateWorkerSession; others for the same task wait for its
  // answer. No lock is held while waiting.
  absl::Status EnsureWorkerSession(const std::string& task,
                                   WorkerInterface* worker,
                                   const CallControl& control);
  // Asks the tasks a failed step suspected (GetStatus) whether they
  // restarted; a task with new incarnations, or one that said it lost this
  // session, rejoins: its worker session is forgotten, the placement takes
  // the new incarnations, and every cached client graph is dropped (their
  // rendezvous keys name the old ones). Tasks that do not answer stay
  // suspects.
  void RecheckSuspects(const CallControl& control);
  // GetStatus sent to each of `tasks` (one call each, in order), counted
  // by the tracker; wait on each with its deadline.
  struct StatusCall;
  std::vector<std::shared_ptr<StatusCall>> SendGetStatus(
      const std::vector<std::string>& tasks);
  // The rejoin of RecheckSuspects and ApplyTaskStatus: `answers` holds the
  // devices each answering task has now; those with new incarnations, and
  // those in `lost`, rejoin. Answering tasks are suspects no more.
  void Rejoin(
      const absl::flat_hash_map<std::string, std::vector<DeviceAttributes>>&
          answers,
      const absl::flat_hash_set<std::string>& lost)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(recheck_mu_);
  // After a step failed with Unavailable or Aborted: asks each task of the
  // step for its status (GetStatus, at most kRecheckTimeout, or what is left
  // of the step's deadline but at least 1 s); those that do
  // not answer, or answer with other device incarnations than the
  // session's (a restart), are named in `status` (payload
  // base/task_status.h, and the message) and become suspects. Which
  // partition reported first says little: a ps whose RecvTensor from a
  // killed worker failed reports Unavailable too.
  void NameUnavailableTasks(const ClientGraph& graph,
                            const CallControl& control, absl::Status* status);
  // Marks `task` for RecheckSuspects when `s` says it may have restarted.
  void MaybeSuspect(const std::string& task, const absl::Status& s);
  // Sends DeregisterGraph for every partition of `graph`; answers ignored.
  void DeregisterAsync(const ClientGraph& graph);
  // Cleans up a step on each worker of `graph` after its last RunGraph
  // answered: held for the worker's next RunGraph (cleanups_) when the
  // step succeeded and the worker takes that, else CleanupGraph at once.
  void CleanupStep(const ClientGraph& graph, int64_t step_id,
                   bool succeeded);
  // Sends CleanupGraph(step_id) to `worker`; the answer is only logged.
  void SendCleanupGraph(WorkerInterface* worker, int64_t step_id);
  int64_t NewStepId();

  const SessionOptions options_;
  const WorkerCacheInterface* const worker_cache_;
  const OpRegistry* const ops_;
  const KernelRegistry* const kernels_;
  const std::string handle_;
  const int64_t master_incarnation_;
  // Counts the calls on workers that have not called back.
  const std::shared_ptr<OpTracker> tracker_;
  // Finished steps' cleanups waiting for a RunGraph; null without a timer.
  const std::shared_ptr<StepCleanups> cleanups_;
  // The steps' deadlines: params.timer, else one of the session's own.
  std::unique_ptr<Timer> own_timer_;
  Timer* const timer_;

  // Serializes Extend calls (held while the new graph is validated).
  absl::Mutex extend_mu_ ABSL_ACQUIRED_BEFORE(mu_);
  mutable absl::Mutex mu_;
  std::shared_ptr<GraphState> graph_ ABSL_GUARDED_BY(mu_);
  bool closed_ ABSL_GUARDED_BY(mu_) = false;
  absl::flat_hash_set<std::shared_ptr<StepState>> running_
      ABSL_GUARDED_BY(mu_);
  absl::BitGen bitgen_ ABSL_GUARDED_BY(mu_);
  // The devices with their current incarnations; replaced as a whole when a
  // task rejoins.
  std::shared_ptr<const PlacementConfig> placement_ ABSL_GUARDED_BY(mu_);
  // Tasks a step saw fail in a way a restart explains; true when the task
  // said it does not know this session (it must get it again even if it
  // did not restart: its worker collected it).
  absl::flat_hash_map<std::string, bool> suspects_ ABSL_GUARDED_BY(mu_);
  // Serializes RecheckSuspects.
  absl::Mutex recheck_mu_ ABSL_ACQUIRED_BEFORE(mu_);

  // The worker session of each task: being created, or created.
  absl::Mutex worker_sessions_mu_ ABSL_ACQUIRED_AFTER(mu_);
  std::map<std::string, std::shared_ptr<WorkerSessionSlot>> worker_sessions_
      ABSL_GUARDED_BY(worker_sessions_mu_);
  bool worker_sessions_closed_ ABSL_GUARDED_BY(worker_sessions_mu_) = false;
};

// The Offload of a caller that waits for an async call anyway (the
// blocking forms of RunAsync and of Master::RunStepAsync): what the call
// hands off runs on the waiting thread.
class CallerRunsOffload {
 public:
  CallerRunsOffload() = default;
  CallerRunsOffload(const CallerRunsOffload&) = delete;
  CallerRunsOffload& operator=(const CallerRunsOffload&) = delete;

  // Valid until Wait has returned.
  MasterSession::Offload offload();
  // From the call's `done`, as its last use of this object.
  void Finish();
  // Runs what is handed off until Finish.
  void Wait();

 private:
  absl::Mutex mu_;
  std::deque<std::function<void()>> work_ ABSL_GUARDED_BY(mu_);
  bool finished_ ABSL_GUARDED_BY(mu_) = false;
  // Wait returns only once Finish no longer touches mu_.
  absl::Notification finish_returned_;
};

}  // namespace dfx

#endif  // DFX_MASTER_MASTER_SESSION_H_
