// Master: the master service's logic with no RPC types. It keeps the client
// sessions of one server: CreateSession discovers the devices of every task
// of the cluster (GetStatus, with a deadline), makes a MasterSession over
// them and hands back its handle; RunStep, ExtendSession, ListDevices and
// CloseSession find the session by handle; Reset closes them all. Sessions
// idle longer than a configured time are closed.
#ifndef DFX_MASTER_MASTER_H_
#define DFX_MASTER_MASTER_H_

#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "absl/synchronization/notification.h"
#include "absl/time/time.h"
#include "graph/device_name.h"
#include "graph/op_registry.h"
#include "master/master_session.h"
#include "proto/master.pb.h"
#include "runtime/cancellation.h"
#include "runtime/recent_request_ids.h"
#include "runtime/timer.h"
#include "runtime/op_kernel.h"
#include "worker/worker_cache.h"
#include "worker/worker_interface.h"

namespace dfx {

struct MasterEnv {
  // Every task of the cluster, this one included; borrowed, and so are its
  // workers: they must outlive the master.
  const WorkerCacheInterface* worker_cache = nullptr;
  // This server's task, "/job:worker/replica:0/task:0": its CPU:0 is the
  // client device of every session.
  std::string local_task;
  // Null: OpRegistry::Global() and StandardKernelRegistry().
  const OpRegistry* ops = nullptr;
  const KernelRegistry* kernels = nullptr;
  // How long CreateSession (and ListDevices without a session, and Reset's
  // CleanupAll round) waits for every task (unless the session's
  // operation_timeout_in_ms is shorter).
  absl::Duration discovery_timeout = absl::Seconds(30);
  // Sessions with no call for this long are closed; zero: never.
  absl::Duration session_gc_idle = absl::Hours(1);
  // How often the master asks every task of its live sessions (GetStatus,
  // once per task however many sessions use it) whether it restarted; a
  // restarted task rejoins its sessions then, not at their next step.
  // Zero: never (a restart is then found by the step that fails on it).
  absl::Duration heartbeat_interval = absl::Seconds(10);
  // False: every session runs its steps unoptimized, whatever its
  // ConfigProto asks (as if graph_options.rewrite_options.
  // disable_meta_optimizer were set; `dfx server --no-optimize`).
  bool optimize_graphs = true;
};

// One RunStep as the status page lists it.
struct StepSummary {
  // 0 when the step failed before it had an id (e.g. an unknown session).
  int64_t step_id = 0;
  std::string session;
  absl::Time start;
  absl::Duration duration;
  absl::Status status;
  // When the step was traced: its slowest nodes (name and time on its
  // device), the slowest first; at most kSlowestNodes. Empty otherwise.
  static constexpr int kSlowestNodes = 3;
  std::vector<std::pair<std::string, absl::Duration>> slowest_nodes;
};

// A session of the master as the status page lists it.
struct MasterSessionSummary {
  std::string handle;
  // Calls inside the session now, and when the last began or ended.
  int running_calls = 0;
  absl::Time last_active;
};

// Thread-safe. Every method but RunStepAsync blocks until its answer is
// ready (RunStep for the whole step), so an RPC front end calls them from a
// pool of its own; RunStepAsync it calls on its I/O thread.
// Each takes the caller's CallOptions (may be null): its timeout bounds the
// call (session creation and device discovery included), and StartCancel
// on it — a client that cancelled or went away — ends the call, and the
// step it runs on every worker, with Cancelled.
// Errors about a session name its handle; unknown handles are Aborted
// ("Session <h> is not found", or "Session <h> was closed after being idle
// for <n> s"), as TensorFlow's master answers (ListDevices:
// InvalidArgument). After Shutdown every call fails with Unavailable.
class Master {
 public:
  // REQUIRES: env.worker_cache set, env.local_task a task name.
  explicit Master(MasterEnv env);
  // Shutdown(), then waits for the calls still inside the master and for
  // every session's calls on the workers.
  ~Master();
  Master(const Master&) = delete;
  Master& operator=(const Master&) = delete;

  // GetStatus to every task (those matching config.device_filters, and
  // always this one), in parallel, with the deadline above: Unavailable
  // (DeadlineExceeded when operation_timeout_in_ms set the deadline) naming
  // each task that did not answer, or the error of a task that failed,
  // naming it. Then a MasterSession over the devices (rewritten to full
  // names of their task; with filters, only the devices matching one, and
  // every device of this task), extended with request.graph_def (which may
  // be empty); its errors are returned and no session is kept.
  // graph_version 0 in the response.
  // (The request is taken by value: its graph moves into the session.)
  absl::Status CreateSession(CreateSessionRequest request,
                             CreateSessionResponse* response,
      CallOptions* opts = nullptr);
  // Aborted when request.current_graph_version is not the session's;
  // new_graph_version = old + 1. MasterSession::Extend's errors otherwise
  // (the version does not change then).
  absl::Status ExtendSession(ExtendSessionRequest request,
                             ExtendSessionResponse* response,
      CallOptions* opts = nullptr);
  // Decodes the feeds (InvalidArgument naming the feed for a tensor that
  // does not decode), runs the step, and answers one NamedTensorProto per
  // fetch, named as requested. Errors are returned; the RPC front end puts
  // them in the body when request.store_errors_in_response_body. Step
  // statistics go to response.metadata when options.trace_level asks.
  // partial_run_handle set: Unimplemented. A request_id seen in the last
  // 100000 RunStep calls is Aborted and runs nothing (0: no id).
  absl::Status RunStep(const RunStepRequest& request,
                       RunStepResponse* response,
      CallOptions* opts = nullptr);
  // RunStep without waiting for the step (MasterSession::RunAsync): `done`
  // gets its status once `response` is filled, on whichever thread ended
  // the step; `request`, `response` and `opts` must stay valid until then.
  // What may block goes to `offload`, so an RPC front end calls this on
  // its own I/O threads.
  void RunStepAsync(const RunStepRequest& request, RunStepResponse* response,
                    CallOptions* opts, MasterSession::Offload offload,
                    std::function<void(absl::Status)> done);
  // Closes the session (its running steps end with Cancelled) and forgets
  // the handle.
  absl::Status CloseSession(const CloseSessionRequest& request,
                            CloseSessionResponse* response,
      CallOptions* opts = nullptr);
  // With a session handle: that session's devices. Without: every task's
  // devices (a GetStatus round like CreateSession's). This task's devices
  // go to local_device, the others to remote_device.
  absl::Status ListDevices(const ListDevicesRequest& request,
                           ListDevicesResponse* response,
      CallOptions* opts = nullptr);
  // Closes every session, then CleanupAll(containers) on every task
  // (matching request.device_filters, and always this one); the first
  // error names its task.
  absl::Status Reset(const ResetRequest& request, ResetResponse* response,
      CallOptions* opts = nullptr);

  // Closes every session (running steps end with Cancelled) and makes every
  // later call fail with Unavailable "master is shutting down". Idempotent.
  void Shutdown();

  // Sessions open now.
  size_t NumSessions() const;
  std::vector<MasterSessionSummary> ListSessions() const;
  // The last kRecentSteps RunStep calls, the newest first.
  static constexpr size_t kRecentSteps = 50;
  std::vector<StepSummary> RecentSteps() const;

 private:
  struct Entry;
  // A session of the table with what the idle GC needs.
  struct Slot {
    std::shared_ptr<Entry> entry;
    // Calls inside the session now.
    int running = 0;
    // When the last call started or finished.
    absl::Time last_active;
  };
  class CallScope;

  // The session of `handle`, marked busy until Release. Aborted (or, for
  // ListDevices, InvalidArgument) when there is none.
  absl::StatusOr<std::shared_ptr<Entry>> Find(const std::string& handle,
                                              bool list_devices);
  void Release(const std::shared_ptr<Entry>& entry);
  // Release for a call that ends on another thread than it began: drops
  // the hold on `entry` here while the table holds it too, else where
  // `offload` runs things (the hold may be the session's last).
  void ReleaseAsync(std::shared_ptr<Entry> entry,
                    const MasterSession::Offload& offload);

  // The tasks to talk to for `filters` (all without filters), this task
  // always included; InvalidArgument for a filter that does not parse.
  absl::StatusOr<std::vector<std::string>> FilteredTasks(
      const google::protobuf::RepeatedPtrField<std::string>& filter_specs,
      std::vector<DeviceName>* filters) const;
  // GetStatus to each of `tasks` at once; the devices (renamed to their
  // task, this task's first, filtered) by `deadline`. `timeout_code` is the
  // code for tasks that did not answer in time.
  absl::StatusOr<std::vector<DeviceAttributes>> DiscoverDevices(
      const std::vector<std::string>& tasks,
      const std::vector<DeviceName>& filters, const CallControl& control,
      absl::StatusCode timeout_code) const;

  // RunStepAsync's parts: up to the step's start (an error ends the call
  // there), and the response, step record and metrics once it ended.
  struct RunStepCall;
  absl::Status StartRunStep(const std::shared_ptr<RunStepCall>& call);
  void FinishRunStep(RunStepCall& call, absl::Status status,
                     std::vector<Tensor> outputs);

  // Takes every session out of the table; the caller closes them.
  std::vector<std::shared_ptr<Entry>> TakeAllLocked()
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  void GcLoop();
  void HeartbeatLoop();
  // One heartbeat round over the tasks of the live sessions.
  void Heartbeat();

  const MasterEnv env_;
  // This master's incarnation (random, non-zero) for its sessions.
  const int64_t incarnation_;
  // The sessions' (cleanups held for the next RunGraph); declared before
  // the sessions so that it outlives them.
  Timer timer_;
  mutable absl::Mutex mu_;
  bool shutdown_ ABSL_GUARDED_BY(mu_) = false;
  // Calls inside the master (the destructor waits for zero).
  int64_t active_calls_ ABSL_GUARDED_BY(mu_) = 0;
  absl::flat_hash_map<std::string, Slot> sessions_ ABSL_GUARDED_BY(mu_);
  // Handles closed for idleness with how long they were idle, for a
  // precise error; at most kMaxGcClosed, the oldest forgotten first.
  absl::flat_hash_map<std::string, absl::Duration> gc_closed_
      ABSL_GUARDED_BY(mu_);
  std::deque<std::string> gc_closed_order_ ABSL_GUARDED_BY(mu_);
  mutable absl::Mutex steps_mu_;
  // The newest at the back.
  std::deque<StepSummary> recent_steps_ ABSL_GUARDED_BY(steps_mu_);
  // RunStep request ids seen lately: a replayed RunStep does not run.
  RecentRequestIds recent_run_steps_;
  absl::Notification stop_gc_;  // stops the GC and heartbeat threads
  std::unique_ptr<std::thread> gc_thread_;
  std::unique_ptr<std::thread> heartbeat_thread_;
  // Cancelled at Shutdown: ends a heartbeat round waiting for a task.
  CancellationManager heartbeat_cancel_;
};

}  // namespace dfx

#endif  // DFX_MASTER_MASTER_H_
