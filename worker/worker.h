// Worker: the worker service's logic (sessions, graph registration, steps,
// RecvTensor) over a process's devices, with no RPC types; the in-process
// (worker/local_worker.h) and gRPC front ends call it.
#ifndef DFX_WORKER_WORKER_H_
#define DFX_WORKER_WORKER_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/synchronization/mutex.h"
#include "graph/op_registry.h"
#include "rendezvous/rendezvous_mgr.h"
#include "runtime/recent_request_ids.h"
#include "runtime/device.h"
#include "runtime/op_kernel.h"
#include "runtime/thread_pool.h"
#include "worker/worker_interface.h"
#include "worker/worker_session.h"

namespace dfx {

class Timer;  // runtime/timer.h

// What a worker borrows. Everything must outlive the worker and every call
// it has not finished.
struct WorkerEnv {
  const DeviceMgr* device_mgr = nullptr;
  // One rendezvous per step id, shared by every session of the worker.
  RendezvousMgr* rendezvous_mgr = nullptr;
  // Runs the executors' nodes (the inter-op pool).
  ThreadPool* compute_pool = nullptr;
  // Null: OpRegistry::Global() and StandardKernelRegistry().
  const OpRegistry* ops = nullptr;
  const KernelRegistry* kernels = nullptr;
  // Worker sessions with no call and no running step for this long are
  // deleted: their master died or forgot them; so are the rendezvous of
  // steps nothing has used for as long (RendezvousMgr::CleanupIdle). Zero:
  // never.
  absl::Duration session_gc_idle = absl::ZeroDuration();
  // Called (on the calling thread) with each step that CleanupGraph or a
  // RunGraph's cleanup_step_id cleans up, so that what is kept for the
  // step beside the worker goes with it (the tensors the worker service
  // holds for peers, a GPU's among them). May be empty.
  std::function<void(int64_t step_id)> on_step_cleanup;
};

// A worker session as the status page lists it.
struct WorkerSessionSummary {
  // Empty for the legacy session.
  std::string handle;
  std::string master_task;
  absl::Time last_active;
  int running_steps = 0;
  // Graphs registered in the session now.
  size_t graphs = 0;
};

// Thread-safe. Every method returns at once and calls `done` exactly once,
// on any thread (the caller's, before returning, for errors found up front
// and for calls that do not wait); request and response objects are
// borrowed until then. Destroy the worker only after every call's `done` has
// run.
//
// Sessions: a request with an empty session_handle uses the legacy session,
// which always exists. A non-empty handle names a session made by
// CreateWorkerSession; when none has that handle the call fails with
// Aborted "Session <h> is not found..." if the request says
// create_worker_session_called, and (as TensorFlow's workers do for masters
// that never create worker sessions) uses the legacy session otherwise.
class Worker {
 public:
  explicit Worker(WorkerEnv env);
  ~Worker();
  Worker(const Worker&) = delete;
  Worker& operator=(const Worker&) = delete;

  // Every device's attributes (name, type, memory, incarnation), in the
  // device manager's order.
  void GetStatusAsync(const GetStatusRequest* request,
                      GetStatusResponse* response, StatusCallback done);
  // InvalidArgument for an empty handle; AlreadyExists naming the handle
  // when a session has it. A request naming its master (master_task and a
  // non-zero master_incarnation) whose incarnation is new for that task
  // deletes the sessions of that task's earlier incarnations: a master that
  // restarted never comes back for them.
  void CreateWorkerSessionAsync(const CreateWorkerSessionRequest* request,
                                CreateWorkerSessionResponse* response,
                                StatusCallback done);
  // Forgets the session and its graphs (steps running keep them until they
  // end). An unknown or empty handle is not an error.
  void DeleteWorkerSessionAsync(const DeleteWorkerSessionRequest* request,
                                DeleteWorkerSessionResponse* response,
                                StatusCallback done);
  // See GraphMgr::Register for the errors.
  void RegisterGraphAsync(const RegisterGraphRequest* request,
                          RegisterGraphResponse* response,
                          StatusCallback done);
  // The same, moving the graph's nodes out of `request`.
  void TakeAndRegisterGraphAsync(RegisterGraphRequest* request,
                                 RegisterGraphResponse* response,
                                 StatusCallback done);
  // Aborted "Graph handle is not found: <h>..." for an unknown handle.
  void DeregisterGraphAsync(const DeregisterGraphRequest* request,
                            DeregisterGraphResponse* response,
                            StatusCallback done);
  // Runs one step of a registered graph (GraphMgr::ExecuteAsync): feeds
  // from call->send, fetches into call->recv. A request_id seen in the
  // last 100000 RunGraph calls is Aborted and runs nothing (0: no id).
  // `opts` (optional, borrowed
  // until `done`): StartCancel ends the step with Cancelled; a timeout ends
  // it with DeadlineExceeded. With request.exec_opts.record_timeline or
  // record_costs, the step's node statistics go to call->step_stats.
  void RunGraphAsync(CallOptions* opts, RunGraphCall* call,
                     StatusCallback done);
  // The most finished steps one RunGraph may name in cleanup_step_id
  // (cleaned up first, as CleanupGraph would); more is InvalidArgument.
  static constexpr int kMaxCleanupsPerRunGraph = 4096;
  // Aborts (with Cancelled) and forgets the step's rendezvous.
  void CleanupGraphAsync(const CleanupGraphRequest* request,
                         CleanupGraphResponse* response, StatusCallback done);
  // Clears the named resource containers of every device (each device's
  // default container when none is named) and the tensors the legacy
  // session keeps by handle (GetSessionHandle).
  void CleanupAllAsync(const CleanupAllRequest* request,
                       CleanupAllResponse* response, StatusCallback done);
  // Waits for the tensor of request.rendezvous_key in the step's rendezvous
  // and returns it (sharing its buffer): in the memory of the key's source
  // device when a _Send for another task left it there (a GPU's; the
  // caller copies it out, LocalWorker whole, the worker service by
  // range). Errors: InvalidArgument naming the
  // key when it does not parse; NotFound when its source device (by its
  // local part, "/device:CPU:0") is not a device of this worker; Aborted
  // "RecvTensor expects a different device incarnation..." when the key's
  // incarnation is not that device's; the rendezvous's abort status;
  // Cancelled after StartCancel on `opts`; DeadlineExceeded after its
  // timeout. The wait holds no thread.
  void RecvTensorAsync(CallOptions* opts, const RecvTensorRequest* request,
                       RecvTensorResult* response, StatusCallback done);

  const WorkerEnv& env() const { return env_; }

  // The sessions made by CreateWorkerSession, by handle, then the legacy
  // session when it has graphs.
  std::vector<WorkerSessionSummary> ListSessions() const;

 private:
  // Both RegisterGraph calls: the nodes are moved out of `movable` (the
  // request's graph) when it is not null, else copied.
  void RegisterGraph(const RegisterGraphRequest* request, GraphDef* movable,
                     RegisterGraphResponse* response, StatusCallback done);

  struct SessionSlot {
    std::shared_ptr<WorkerSession> session;
    std::string master_task;
    int64_t master_incarnation = 0;
    // When a call last found the session, and its steps running now.
    absl::Time last_active;
    int running_steps = 0;
  };

  // The session a request names (see the class comment); marks it active.
  absl::StatusOr<std::shared_ptr<WorkerSession>> FindSession(
      const std::string& handle, bool create_worker_session_called);
  GraphMgr::Env GraphMgrEnv() const;
  // Counts a step of session `handle` running, or no longer.
  void StepStarted(const std::string& handle);
  void StepEnded(const std::string& handle);
  // Deletes the sessions idle for longer than env_.session_gc_idle, then
  // schedules itself again.
  void CollectIdleSessions();
  // Forgets the sessions and drops their graphs (running steps keep
  // theirs).
  static void DropSessions(std::vector<std::shared_ptr<WorkerSession>> drop);

  const WorkerEnv env_;
  // Reset first in the destructor: its callbacks use the members below.
  std::unique_ptr<Timer> timer_;
  const std::shared_ptr<WorkerSession> legacy_session_;
  // RunGraph request ids seen lately: a replayed RunGraph does not run.
  RecentRequestIds recent_run_graphs_;
  mutable absl::Mutex mu_;
  absl::flat_hash_map<std::string, SessionSlot> sessions_ ABSL_GUARDED_BY(mu_);
  // The incarnation of each master task that created sessions here.
  absl::flat_hash_map<std::string, int64_t> master_incarnations_
      ABSL_GUARDED_BY(mu_);
};

}  // namespace dfx

#endif  // DFX_WORKER_WORKER_H_
