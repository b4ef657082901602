#include "worker/local_worker.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "runtime/device.h"
#include "runtime/rendezvous.h"

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
  // A _Send for another task leaves a device tensor in its rendezvous, for
  // the worker service to serve by range (kernels/sendrecv/); a receiver
  // in this process gets it copied into host memory, as every rendezvous
  // tensor from another task is.
  worker_->RecvTensorAsync(
      opts, request, response,
      [worker = worker_, request, response,
       done = std::move(done)](const absl::Status& s) {
        const Tensor& value = response->tensor;
        if (!s.ok() || !value.IsInitialized() || value.OnHost()) {
          done(s);
          return;
        }
        absl::StatusOr<Rendezvous::ParsedKey> key =
            Rendezvous::ParsedKey::Parse(request->rendezvous_key());
        absl::StatusOr<Device*> device =
            key.ok()
                ? worker->env().device_mgr->LookupDevice(key->src().LocalName())
                : key.status();
        absl::StatusOr<Tensor> host =
            device.ok() ? (*device)->CopyToHost(value) : device.status();
        if (!host.ok()) {
          done(absl::Status(
              host.status().code(),
              absl::StrCat(
                  "RecvTensor of '", request->rendezvous_key(),
                  "': copying it to the host: ", host.status().message())));
          return;
        }
        response->tensor = *std::move(host);
        done(absl::OkStatus());
      });
}

}  // namespace dfx
