#include "worker/local_worker.h"

#include <utility>

namespace dfx {

void LocalWorker::GetStatusAsync(const GetStatusRequest* request,
                                 GetStatusResponse* response,
                                 StatusCallback done) {
  worker_->GetStatusAsync(request, response, std::move(done));
}

void LocalWorker::CreateWorkerSessionAsync(
    const CreateWorkerSessionRequest* request,
    CreateWorkerSessionResponse* response, StatusCallback done) {
  worker_->CreateWorkerSessionAsync(request, response, std::move(done));
}

void LocalWorker::DeleteWorkerSessionAsync(
    const DeleteWorkerSessionRequest* request,
    DeleteWorkerSessionResponse* response, StatusCallback done) {
  worker_->DeleteWorkerSessionAsync(request, response, std::move(done));
}

void LocalWorker::RegisterGraphAsync(const RegisterGraphRequest* request,
                                     RegisterGraphResponse* response,
                                     StatusCallback done) {
  worker_->RegisterGraphAsync(request, response, std::move(done));
}

void LocalWorker::TakeAndRegisterGraphAsync(RegisterGraphRequest* request,
                                            RegisterGraphResponse* response,
                                            StatusCallback done) {
  worker_->TakeAndRegisterGraphAsync(request, response, std::move(done));
}

void LocalWorker::DeregisterGraphAsync(const DeregisterGraphRequest* request,
                                       DeregisterGraphResponse* response,
                                       StatusCallback done) {
  worker_->DeregisterGraphAsync(request, response, std::move(done));
}

void LocalWorker::RunGraphAsync(CallOptions* opts, RunGraphCall* call,
                                StatusCallback done) {
  worker_->RunGraphAsync(opts, call, std::move(done));
}

void LocalWorker::CleanupGraphAsync(const CleanupGraphRequest* request,
                                    CleanupGraphResponse* response,
                                    StatusCallback done) {
  worker_->CleanupGraphAsync(request, response, std::move(done));
}

void LocalWorker::CleanupAllAsync(const CleanupAllRequest* request,
                                  CleanupAllResponse* response,
                                  StatusCallback done) {
  worker_->CleanupAllAsync(request, response, std::move(done));
}

void LocalWorker::RecvTensorAsync(CallOptions* opts,
                                  const RecvTensorRequest* request,
                                  RecvTensorResult* response,
                                  StatusCallback done) {
  worker_->RecvTensorAsync(opts, request, response, std::move(done));
}

}  // namespace dfx
