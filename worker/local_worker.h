// LocalWorker: the WorkerInterface of a Worker in the same process; calls go
// straight to the Worker, tensors travel as Tensors (no serialization, no
// copy of a buffer).
#ifndef DFX_WORKER_LOCAL_WORKER_H_
#define DFX_WORKER_LOCAL_WORKER_H_

#include "worker/worker.h"
#include "worker/worker_interface.h"

namespace dfx {

// Thread-safe. Borrows `worker`, which must outlive it. Every `done` runs
// as the Worker runs it (see worker/worker.h), possibly on the calling
// thread before the call returns.
class LocalWorker : public WorkerInterface {
 public:
  explicit LocalWorker(Worker* worker) : worker_(worker) {}

  Worker* worker() const { return worker_; }

  bool IsLocal() const override { return true; }

  void GetStatusAsync(const GetStatusRequest* request,
                      GetStatusResponse* response,
                      StatusCallback done) override;
  void CreateWorkerSessionAsync(const CreateWorkerSessionRequest* request,
                                CreateWorkerSessionResponse* response,
                                StatusCallback done) override;
  void DeleteWorkerSessionAsync(const DeleteWorkerSessionRequest* request,
                                DeleteWorkerSessionResponse* response,
                                StatusCallback done) override;
  void RegisterGraphAsync(const RegisterGraphRequest* request,
                          RegisterGraphResponse* response,
                          StatusCallback done) override;
  void TakeAndRegisterGraphAsync(RegisterGraphRequest* request,
                                 RegisterGraphResponse* response,
                                 StatusCallback done) override;
  void DeregisterGraphAsync(const DeregisterGraphRequest* request,
                            DeregisterGraphResponse* response,
                            StatusCallback done) override;
  void RunGraphAsync(CallOptions* opts, RunGraphCall* call,
                     StatusCallback done) override;
  void CleanupGraphAsync(const CleanupGraphRequest* request,
                         CleanupGraphResponse* response,
                         StatusCallback done) override;
  void CleanupAllAsync(const CleanupAllRequest* request,
                       CleanupAllResponse* response,
                       StatusCallback done) override;
  void RecvTensorAsync(CallOptions* opts, const RecvTensorRequest* request,
                       RecvTensorResult* response,
                       StatusCallback done) override;

 private:
  Worker* const worker_;
};

}  // namespace dfx

#endif  // DFX_WORKER_LOCAL_WORKER_H_
