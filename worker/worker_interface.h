// WorkerInterface: the asynchronous calls a master makes on a worker, with an
// in-process implementation (worker/local_worker.h) and, later, a gRPC one.
// RunGraph carries tensors as Tensors (RunGraphCall), so an in-process call
// copies nothing; the gRPC adapter converts to and from the protos.
#ifndef DFX_WORKER_WORKER_INTERFACE_H_
#define DFX_WORKER_WORKER_INTERFACE_H_

#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "proto/worker.pb.h"
#include "runtime/tensor.h"

namespace dfx {

using StatusCallback = std::function<void(const absl::Status&)>;

// Per-call options: a deadline and a way to cancel the call in flight.
// The cancellation methods are thread-safe; the timeout is not guarded:
// set it before the options go to a call, which reads it as it starts.
class CallOptions {
 public:
  // Zero means no deadline of the call's own.
  void SetTimeout(absl::Duration timeout) { timeout_ = timeout; }
  absl::Duration timeout() const { return timeout_; }

  // The implementation installs what cancels the call; StartCancel runs it
  // (at most once; later StartCancel calls do nothing).
  void SetCancelCallback(std::function<void()> cancel);
  void ClearCancelCallback();
  void StartCancel();

 private:
  absl::Duration timeout_ = absl::ZeroDuration();
  absl::Mutex mu_;
  std::function<void()> cancel_ ABSL_GUARDED_BY(mu_);
  bool cancelled_ ABSL_GUARDED_BY(mu_) = false;
};

// One RunGraph call in memory. `request` carries everything but the feeds
// (its `send` field stays empty); feeds and fetches are Tensors keyed by
// rendezvous key.
struct RunGraphCall {
  RunGraphRequest request;
  std::vector<std::pair<std::string, Tensor>> send;
  // Filled by the worker: one entry per request.recv_key, in that order.
  std::vector<std::pair<std::string, Tensor>> recv;
  StepStats step_stats;
  // Filled by the worker when request.exec_opts().record_partition_graphs:
  // the graph each device of the task runs (the registered graph cut by
  // device), as TensorFlow's RunGraphResponse.partition_graph.
  std::vector<GraphDef> partition_graphs;
  // Set by a caller whose thread may run the step's cheap first nodes
  // before RunGraphAsync returns (the master's, once every other call of
  // the step is out; the worker service's gRPC thread): saves a hand-off to
  // the compute pool and the wake-up back. Expensive nodes still go to the
  // pool (Executor::Args::run_roots_inline). Not part of the request.
  bool caller_runs_inline = false;
};

// A received tensor.
struct RecvTensorResult {
  // In, optional: the receiver's buffer for the tensor. A call that copies
  // the bytes anyway (from another process) may write them there when the
  // tensor has its dtype and element count; `tensor` then shares it.
  Tensor destination;
  Tensor tensor;
  bool is_dead = false;
  int64_t send_start_micros = 0;
};

// Every call returns at once; `done` runs exactly once, on any thread, after
// the response is filled. Request and response objects are borrowed until
// `done`. Implementations are thread-safe.
class WorkerInterface {
 public:
  virtual ~WorkerInterface() = default;

  // True for a worker in this process (LocalWorker): its calls run on the
  // caller's thread until they go asynchronous.
  virtual bool IsLocal() const { return false; }

  virtual void GetStatusAsync(const GetStatusRequest* request,
                              GetStatusResponse* response,
                              StatusCallback done) = 0;
  virtual void CreateWorkerSessionAsync(
      const CreateWorkerSessionRequest* request,
      CreateWorkerSessionResponse* response, StatusCallback done) = 0;
  virtual void DeleteWorkerSessionAsync(
      const DeleteWorkerSessionRequest* request,
      DeleteWorkerSessionResponse* response, StatusCallback done) = 0;
  virtual void RegisterGraphAsync(const RegisterGraphRequest* request,
                                  RegisterGraphResponse* response,
                                  StatusCallback done) = 0;
  // The same for a caller that is done with the request's graph: a worker
  // in this process moves the nodes out of `request` instead of copying
  // them (a 100,000-node partition). By default, RegisterGraphAsync.
  virtual void TakeAndRegisterGraphAsync(RegisterGraphRequest* request,
                                         RegisterGraphResponse* response,
                                         StatusCallback done) {
    RegisterGraphAsync(request, response, std::move(done));
  }
  virtual void DeregisterGraphAsync(const DeregisterGraphRequest* request,
                                    DeregisterGraphResponse* response,
                                    StatusCallback done) = 0;
  // `opts` may be null. StartCancel on `opts` ends the step with Cancelled.
  virtual void RunGraphAsync(CallOptions* opts, RunGraphCall* call,
                             StatusCallback done) = 0;
  virtual void CleanupGraphAsync(const CleanupGraphRequest* request,
                                 CleanupGraphResponse* response,
                                 StatusCallback done) = 0;
  virtual void CleanupAllAsync(const CleanupAllRequest* request,
                               CleanupAllResponse* response,
                               StatusCallback done) = 0;
  // `opts` may be null. Waits for the tensor's _Send in the step.
  virtual void RecvTensorAsync(CallOptions* opts,
                               const RecvTensorRequest* request,
                               RecvTensorResult* response,
                               StatusCallback done) = 0;

  // The push path (rendezvous/remote_rendezvous.h). Called for each step
  // of this process whose pushes to task `task` may be lost: the push
  // stream that carried them ended. Nothing is lost for good (the sender
  // keeps every tensor it pushes for RecvTensor until the step ends), but
  // the step must push no more to that task. Any thread.
  using PushLost = std::function<void(
      int64_t step_id, const std::string& task, const absl::Status& why)>;
  // Queues `value` of rendezvous key `key` in step `step_id` (or, with
  // `pull`, the key alone) for this worker's rendezvous, one-way, and
  // returns true; returns false and sends nothing when this worker takes no
  // pushes now (not a dfx worker, or the stream to it is not up yet: the
  // first call starts setting it up). When the stream that took it ends
  // before the worker read it, `lost` (borrowed; it must outlive this
  // worker) runs for its step. Never blocks.
  virtual bool PushTensor(int64_t step_id, const std::string& key,
                          const Tensor& value, bool is_dead, bool pull,
                          const PushLost* lost) {
    return false;
  }

  // Ends the calls without CallOptions that are in flight (their `done`
  // gets Cancelled) and fails later ones at once: a process shutting down
  // calls it so that a peer which stopped answering cannot hold it.
  // In-process workers have nothing to cancel.
  virtual void CancelAllCalls() {}
};

}  // namespace dfx

#endif  // DFX_WORKER_WORKER_INTERFACE_H_
