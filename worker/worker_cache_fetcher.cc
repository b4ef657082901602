#include "worker/worker_cache_fetcher.h"

#include <limits>
#include <memory>
#include <utility>

#include "absl/strings/str_cat.h"
#include "graph/device_name.h"

namespace dfx {

int64_t WorkerCacheFetcher::NewRequestId() {
  absl::MutexLock lock(&mu_);
  return absl::Uniform<int64_t>(absl::IntervalClosed, bitgen_, 1,
                                std::numeric_limits<int64_t>::max());
}

RemoteTensorFetcher::Cancel WorkerCacheFetcher::FetchAsync(
    int64_t step_id, const Rendezvous::ParsedKey& key, FetchDone done) {
  std::string task = key.src().TaskName();
  WorkerInterface* worker = cache_->GetWorker(task);
  if (worker == nullptr) {
    done(absl::NotFoundError(absl::StrCat(
             "RecvTensor from task ", task, ": the worker cache has no task ",
             task, " (key '", key.FullKey(), "')")),
         Tensor(), false);
    return [] {};
  }

  // Borrowed by the worker until its `done`; the Cancel shares it so that
  // cancelling after completion touches live CallOptions.
  struct Call {
    CallOptions opts;
    RecvTensorRequest request;
    RecvTensorResult result;
  };
  auto call = std::make_shared<Call>();
  call->request.set_step_id(step_id);
  call->request.set_rendezvous_key(key.FullKey());
  call->request.set_request_id(NewRequestId());
  worker->RecvTensorAsync(
      &call->opts, &call->request, &call->result,
      [call, task = std::move(task),
       done = std::move(done)](const absl::Status& status) {
        if (!status.ok()) {
          done(absl::Status(status.code(),
                            absl::StrCat("RecvTensor from task ", task, ": ",
                                         status.message())),
               Tensor(), false);
          return;
        }
        done(absl::OkStatus(), call->result.tensor, call->result.is_dead);
      });
  return [call] { call->opts.StartCancel(); };
}

RendezvousMgr::Factory RemoteRendezvousFactory(std::string local_task,
                                               RemoteTensorFetcher* fetcher) {
  return [local_task = std::move(local_task),
          fetcher](int64_t step_id) -> std::shared_ptr<Rendezvous> {
    return std::make_shared<RemoteRendezvous>(step_id, local_task, fetcher);
  };
}

}  // namespace dfx
