#include "rpc/tensor_push.h"

#include <deque>
#include <utility>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "base/log.h"
#include "grpcpp/client_context.h"
#include "grpcpp/support/client_callback.h"

namespace dfx {
namespace {

// A receiver that refused the stream (a TensorFlow worker) is asked again
// after this long; one whose stream broke, after kRetryBroken.
constexpr absl::Duration kRetryRefused = absl::Minutes(1);
constexpr absl::Duration kRetryBroken = absl::Seconds(1);
// How many of the last steps a stream carried are reported lost.
constexpr size_t kRememberedSteps = 256;

}  // namespace

// One PushTensors call. A hold keeps it open between writes; the hold goes
// (and with it, once the last write is done, the call) when the stream
// closes: the receiver refused it, a write failed, or Shutdown.
//
// Writes: one in flight (sending_); tensors pushed meanwhile wait in
// queued_ and go together in the next. The hold is released only while no
// write is in flight or about to start, so that no StartWrite can follow
// the call's end.
class TensorPushClient::Stream
    : public grpc::ClientWriteReactor<PushTensorsRequest> {
 public:
  explicit Stream(TensorPushClient* owner) : owner_(owner) {}

  void Start(WorkerService::Stub* stub, const std::string& local_task) {
    context_.AddMetadata(kPushTaskMetadata, local_task);
    bool skip = false;
    {
      absl::MutexLock lock(&mu_);
      if (closed_) {
        skip = true;
      } else {
        stub->async()->PushTensors(&context_, &response_, this);
        AddHold();
      }
    }
    if (skip) {  // shut down before it started
      owner_->StreamDone(this);
      return;
    }
    StartCall();
    bool release = false;
    {
      absl::MutexLock lock(&mu_);
      started_ = true;
      release = ReleaseHoldLocked();
    }
    if (release) RemoveHold();
  }

  // False (nothing queued) once the stream is closed.
  bool Enqueue(int64_t step_id, const std::string& key, const Tensor& value,
               bool is_dead, bool pull, const WorkerInterface::PushLost* lost) {
    bool start = false;
    {
      absl::MutexLock lock(&mu_);
      if (closed_) return false;
      PushedTensor* t = queued_.add_tensors();
      t->set_step_id(step_id);
      t->set_rendezvous_key(key);
      if (is_dead) {
        t->set_is_dead(true);
      } else if (pull) {
        t->set_pull(true);
      } else {
        value.AsProtoTensorContent(t->mutable_tensor());
      }
      NoteStepLocked(step_id, lost);
      if (!writing_) {
        writing_ = true;
        sending_.Swap(&queued_);
        start = true;
      }
    }
    if (start) StartWrite(&sending_);
    return true;
  }

  // `quiet`: a shutdown, nothing to report lost.
  void Close(bool cancel, bool quiet) {
    bool release = false;
    {
      absl::MutexLock lock(&mu_);
      closed_ = true;
      if (quiet) quiet_ = true;
      release = ReleaseHoldLocked();
    }
    if (cancel) context_.TryCancel();
    if (release) RemoveHold();
  }

  void OnReadInitialMetadataDone(bool ok) override {
    if (!ok) {
      // The call failed before the receiver answered (it was not listening
      // yet, the connection broke): not a refusal, or a peer that was
      // still starting would get no push for a minute. OnDone reports the
      // stream done; the next push opens another after kRetryBroken.
      Close(/*cancel=*/true, /*quiet=*/false);
      return;
    }
    const bool ready =
        context_.GetServerInitialMetadata().count(kPushReadyMetadata) > 0;
    if (ready) {
      absl::MutexLock lock(&mu_);
      ever_ready_ = true;
    }
    owner_->StreamReady(this, ready);
    if (!ready) Close(/*cancel=*/true, /*quiet=*/false);
  }

  void OnWriteDone(bool ok) override {
    bool start = false;
    bool release = false;
    {
      absl::MutexLock lock(&mu_);
      sending_.Clear();
      if (!ok) closed_ = true;
      if (!closed_ && queued_.tensors_size() > 0) {
        sending_.Swap(&queued_);
        start = true;
      } else {
        writing_ = false;
        release = ReleaseHoldLocked();
      }
    }
    if (start) StartWrite(&sending_);
    if (release) RemoveHold();
  }

  void OnDone(const grpc::Status& status) override {
    std::vector<int64_t> steps;
    const WorkerInterface::PushLost* lost = nullptr;
    {
      absl::MutexLock lock(&mu_);
      closed_ = true;
      if (ever_ready_ && !quiet_ && lost_ != nullptr) {
        steps.assign(steps_order_.begin(), steps_order_.end());
        lost = lost_;
      }
    }
    if (!steps.empty()) {
      const absl::Status why = absl::UnavailableError(absl::StrCat(
          "the stream pushing tensors to task ", owner_->task_, " ended: ",
          status.error_message(), " (code ",
          static_cast<int>(status.error_code()), ")"));
      spdlog::info("{}; the {} last step(s) it carried push no more there, "
                   "and the task fetches what it lacks",
                   why.message(), steps.size());
      for (int64_t step : steps) (*lost)(step, owner_->task_, why);
    }
    bool refused = false;
    {
      absl::MutexLock lock(&mu_);
      refused = !ever_ready_ &&
                status.error_code() == grpc::StatusCode::UNIMPLEMENTED;
    }
    // A TensorFlow worker has no PushTensors: asked again after a minute.
    if (refused) owner_->StreamReady(this, false);
    // The last touch of this object: the owner destroys it later, on
    // another thread.
    owner_->StreamDone(this);
  }

  // Owner-side flag, guarded by the owner's mutex.
  bool done = false;

 private:
  bool ReleaseHoldLocked() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    if (!closed_ || !started_ || writing_ || hold_released_) return false;
    hold_released_ = true;
    return true;
  }

  void NoteStepLocked(int64_t step_id, const WorkerInterface::PushLost* lost)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    lost_ = lost;
    if (step_id == last_step_) return;
    last_step_ = step_id;
    if (!steps_.insert(step_id).second) return;
    steps_order_.push_back(step_id);
    if (steps_order_.size() > kRememberedSteps) {
      steps_.erase(steps_order_.front());
      steps_order_.pop_front();
    }
  }

  TensorPushClient* const owner_;
  grpc::ClientContext context_;
  PushTensorsResponse response_;
  // Only the reactions and Enqueue touch it, while writing_ says so.
  PushTensorsRequest sending_;

  absl::Mutex mu_;
  PushTensorsRequest queued_ ABSL_GUARDED_BY(mu_);
  bool writing_ ABSL_GUARDED_BY(mu_) = false;
  bool closed_ ABSL_GUARDED_BY(mu_) = false;
  bool started_ ABSL_GUARDED_BY(mu_) = false;
  bool hold_released_ ABSL_GUARDED_BY(mu_) = false;
  bool ever_ready_ ABSL_GUARDED_BY(mu_) = false;
  bool quiet_ ABSL_GUARDED_BY(mu_) = false;
  const WorkerInterface::PushLost* lost_ ABSL_GUARDED_BY(mu_) = nullptr;
  int64_t last_step_ ABSL_GUARDED_BY(mu_) = 0;
  absl::flat_hash_set<int64_t> steps_ ABSL_GUARDED_BY(mu_);
  std::deque<int64_t> steps_order_ ABSL_GUARDED_BY(mu_);
};

TensorPushClient::TensorPushClient(std::shared_ptr<grpc::Channel> channel,
                                   std::string local_task, std::string task)
    : stub_(WorkerService::NewStub(channel)),
      local_task_(std::move(local_task)),
      task_(std::move(task)) {}

TensorPushClient::~TensorPushClient() {
  Shutdown();
  absl::MutexLock lock(&mu_);
  mu_.Await(absl::Condition(
      +[](std::vector<std::shared_ptr<Stream>>* streams) {
        for (const auto& s : *streams) {
          if (!s->done) return false;
        }
        return true;
      },
      &streams_));
  streams_.clear();
}

std::shared_ptr<TensorPushClient::Stream>
TensorPushClient::MaybeOpenLocked() {
  for (auto it = streams_.begin(); it != streams_.end();) {
    if ((*it)->done) {
      it = streams_.erase(it);
    } else {
      ++it;
    }
  }
  if (shutdown_ || current_ != nullptr || absl::Now() < retry_at_) {
    return nullptr;
  }
  streams_.push_back(std::make_shared<Stream>(this));
  current_ = streams_.back();
  current_ready_ = false;
  return current_;
}

bool TensorPushClient::Push(int64_t step_id, const std::string& key,
                            const Tensor& value, bool is_dead, bool pull,
                            const WorkerInterface::PushLost* lost) {
  std::shared_ptr<Stream> ready;
  std::shared_ptr<Stream> to_start;
  {
    absl::MutexLock lock(&mu_);
    if (current_ != nullptr && current_ready_) {
      ready = current_;
    } else {
      to_start = MaybeOpenLocked();
    }
  }
  if (to_start != nullptr) to_start->Start(stub_.get(), local_task_);
  // A stream that closed meanwhile takes nothing: Enqueue says false.
  if (ready == nullptr) return false;
  return ready->Enqueue(step_id, key, value, is_dead, pull, lost);
}

void TensorPushClient::Shutdown() {
  std::vector<std::shared_ptr<Stream>> open;
  {
    absl::MutexLock lock(&mu_);
    shutdown_ = true;
    current_ = nullptr;
    current_ready_ = false;
    for (const auto& s : streams_) {
      if (!s->done) open.push_back(s);
    }
  }
  for (const auto& s : open) s->Close(/*cancel=*/true, /*quiet=*/true);
}

void TensorPushClient::StreamReady(Stream* stream, bool ready) {
  absl::MutexLock lock(&mu_);
  if (stream != current_.get()) return;
  if (ready) {
    current_ready_ = true;
    refused_ = false;
    return;
  }
  refused_ = true;
  retry_at_ = absl::Now() + kRetryRefused;
  current_ = nullptr;
  spdlog::debug("task {} takes no pushed tensors; RecvTensor only", task_);
}

void TensorPushClient::StreamDone(Stream* stream) {
  absl::MutexLock lock(&mu_);
  stream->done = true;
  if (stream != current_.get()) return;
  current_ = nullptr;
  current_ready_ = false;
  retry_at_ = absl::Now() + kRetryBroken;
}

}  // namespace dfx
