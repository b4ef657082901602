#include "worker/worker_cache_fetcher.h"

#include <algorithm>
#include <limits>
#include <memory>
#include <utility>

#include "absl/strings/str_cat.h"
#include "graph/device_name.h"
#include "graph/types.h"
#include "runtime/step_stats_collector.h"

namespace dfx {

int64_t WorkerCacheFetcher::NewRequestId() {
  absl::MutexLock lock(&mu_);
  return absl::Uniform<int64_t>(absl::IntervalClosed, bitgen_, 1,
                                std::numeric_limits<int64_t>::max());
}

namespace {

// Saves the transfer of `request`'s key, asked for at `start_nanos` and
// answered now, under its destination device. As TensorFlow does, the
// transfer starts when the sender says it began to send (its clock, so
// kept between the request and the answer), or at the request when it
// does not say.
template <typename Call>
void RecordTransfer(const Call& call, int64_t start_nanos,
                    StepStatsCollector* trace) {
  const int64_t end_nanos = NowNanos();
  absl::StatusOr<Rendezvous::ParsedKey> key =
      Rendezvous::ParsedKey::Parse(call.request.rendezvous_key());
  if (!key.ok()) return;
  int64_t start = start_nanos;
  if (call.result.send_start_micros > 0) {
    start = std::clamp(call.result.send_start_micros * 1000, start_nanos,
                       std::max(start_nanos, end_nanos - 1000));
  }
  const int64_t bytes =
      call.result.is_dead || !call.result.tensor.IsInitialized()
          ? 0
          : static_cast<int64_t>(call.result.tensor.TotalBytes());
  trace->Save(key->dst_device(),
              RecvTensorStats(start, end_nanos, key->edge_name(),
                              key->src_device(), key->dst_device(), bytes));
}

}  // namespace

RemoteTensorFetcher::Cancel WorkerCacheFetcher::FetchAsync(
    int64_t step_id, const Rendezvous::ParsedKey& key,
    const Tensor& destination, FetchDone done) {
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
  call->result.destination = destination;
  // A traced step records the transfer (TensorFlow's WorkerCacheLogger);
  // an untraced one pays this one branch.
  std::shared_ptr<StepStatsCollector> trace;
  int64_t start_nanos = 0;
  if (TracedSteps::Active()) {
    trace = TracedSteps::Find(step_id, key.dst().TaskName());
    if (trace != nullptr) start_nanos = NowNanos();
  }
  worker->RecvTensorAsync(
      &call->opts, &call->request, &call->result,
      [call, task = std::move(task), trace = std::move(trace), start_nanos,
       done = std::move(done)](const absl::Status& status) {
        if (!status.ok()) {
          done(absl::Status(status.code(),
                            absl::StrCat("RecvTensor from task ", task, ": ",
                                         status.message())),
               Tensor(), false);
          return;
        }
        if (trace != nullptr) RecordTransfer(*call, start_nanos, trace.get());
        done(absl::OkStatus(), call->result.tensor, call->result.is_dead);
      });
  return [call] { call->opts.StartCancel(); };
}

RemoteTensorPusher::Outcome WorkerCacheFetcher::Push(
    int64_t step_id, const Rendezvous::ParsedKey& key, const Tensor& value,
    bool is_dead) {
  if (!push_lost_) return Outcome::kNotPushed;
  // A traced step's transfers go by RecvTensor, which the trace records
  // (as TensorFlow's does); its receiver then takes them from the fetch.
  if (TracedSteps::Active() &&
      TracedSteps::Find(step_id, key.src().TaskName()) != nullptr) {
    return Outcome::kNotPushed;
  }
  WorkerInterface* worker = cache_->GetWorker(key.dst().TaskName());
  if (worker == nullptr || worker->IsLocal()) return Outcome::kNotPushed;
  // A device tensor (a GPU's over kMaxPushBytes, kernels/sendrecv/) is
  // only announced: the receiver's RecvTensor copies it out by range.
  const bool with_bytes =
      is_dead || (value.IsInitialized() && value.OnHost() &&
                  DataTypeCanMemcpy(value.dtype()) &&
                  static_cast<int64_t>(value.TotalBytes()) <= kMaxPushBytes);
  if (!worker->PushTensor(step_id, key.FullKey(), value, is_dead,
                          /*pull=*/!with_bytes, &push_lost_)) {
    return Outcome::kNotPushed;
  }
  return with_bytes ? Outcome::kPushed : Outcome::kAnnounced;
}

RendezvousMgr::Factory RemoteRendezvousFactory(std::string local_task,
                                               RemoteTensorFetcher* fetcher,
                                               RemoteTensorPusher* pusher) {
  return [local_task = std::move(local_task), fetcher,
          pusher](int64_t step_id) -> std::shared_ptr<Rendezvous> {
    return std::make_shared<RemoteRendezvous>(step_id, local_task, fetcher,
                                              pusher);
  };
}

}  // namespace dfx
