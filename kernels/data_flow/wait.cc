#include "kernels/data_flow/wait.h"

#include <set>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/time/time.h"
#include "runtime/timer.h"

namespace dfx::data_flow {
namespace {

// The timer of the waits' timeout_ms, for the process (its thread starts
// with the first timeout).
Timer& Timeouts() {
  static Timer* timer = new Timer();
  return *timer;
}

}  // namespace

absl::Status ArmWait(CancellationManager* cm, int64_t timeout_ms,
                     const std::string& what,
                     std::function<void(absl::Status)> abort, WaitEnds* ends) {
  ends->cm = cm;
  if (cm != nullptr) {
    const absl::Status cancelled =
        absl::CancelledError(absl::StrCat(what, " was cancelled"));
    ends->token = cm->get_cancellation_token();
    if (!cm->RegisterCallback(ends->token,
                              [abort, cancelled] { abort(cancelled); })) {
      ends->token = -1;
      return cancelled;
    }
  }
  if (timeout_ms >= 0) {
    const absl::Status expired = absl::DeadlineExceededError(
        absl::StrCat(what, " timed out after ", timeout_ms, " ms"));
    ends->timer = Timeouts().Schedule(
        absl::Milliseconds(timeout_ms),
        [abort = std::move(abort), expired] { abort(expired); });
  }
  return absl::OkStatus();
}

void DisarmWait(WaitEnds* ends) {
  if (ends->cm != nullptr && ends->token >= 0) {
    ends->cm->DeregisterCallback(ends->token);
  }
  ends->token = -1;
  // A long timeout_ms keeps nothing once the operation is over.
  if (ends->timer != 0) Timeouts().Cancel(ends->timer);
  ends->timer = 0;
}

void WaitList::StartLocked(int lane, TryFn try_fn, DoneFn done,
                           CancellationManager* cm, int64_t timeout_ms,
                           const std::string& what, const AbortFn& abort,
                           FinishedList* finished) {
  const int64_t id = next_id_++;
  waiting_.push_back(Waiter{id, lane, std::move(try_fn), std::move(done), {}});
  Waiter* added = &waiting_.back();
  FlushLocked(finished);
  for (const Waiter& w : waiting_) {
    if (w.id != id) continue;
    // Still waiting: the step's cancellation and the timeout end it too.
    absl::Status armed = ArmWait(
        cm, timeout_ms, what,
        [abort, id](absl::Status status) { abort(id, std::move(status)); },
        &added->ends);
    if (!armed.ok()) AbortLocked(id, std::move(armed), finished);
    return;
  }
}

void WaitList::FlushLocked(FinishedList* finished) {
  for (bool progress = true; progress;) {
    progress = false;
    std::set<int> blocked;  // lanes with an earlier operation waiting
    for (auto it = waiting_.begin(); it != waiting_.end();) {
      if (it->lane >= 0 && blocked.count(it->lane) > 0) {
        ++it;
        continue;
      }
      absl::Status status;
      if (!it->try_fn(&status)) {
        if (it->lane >= 0) blocked.insert(it->lane);
        ++it;
        continue;
      }
      finished->push_back(
          Finished{std::move(it->done), std::move(status), it->ends});
      it = waiting_.erase(it);
      progress = true;
    }
  }
}

void WaitList::AbortLocked(int64_t id, absl::Status status,
                           FinishedList* finished) {
  for (auto it = waiting_.begin(); it != waiting_.end(); ++it) {
    if (it->id != id) continue;
    finished->push_back(
        Finished{std::move(it->done), std::move(status), it->ends});
    waiting_.erase(it);
    // One behind it in its lane may go on now.
    FlushLocked(finished);
    return;
  }
}

void WaitList::AbortLaneLocked(int lane, const absl::Status& status,
                               FinishedList* finished) {
  for (auto it = waiting_.begin(); it != waiting_.end();) {
    if (it->lane != lane) {
      ++it;
      continue;
    }
    finished->push_back(Finished{std::move(it->done), status, it->ends});
    it = waiting_.erase(it);
  }
}

void WaitList::Finish(FinishedList finished) {
  for (Finished& f : finished) {
    DisarmWait(&f.ends);
    f.done(std::move(f.status));
  }
}

void WaitingResource::StartWait(int lane, WaitList::TryFn try_fn,
                                WaitList::DoneFn done, CancellationManager* cm,
                                int64_t timeout_ms, const std::string& what) {
  std::weak_ptr<WaitingResource> weak = weak_from_this();
  WaitList::FinishedList finished;
  {
    absl::MutexLock lock(&mu_);
    waits_.StartLocked(
        lane, std::move(try_fn), std::move(done), cm, timeout_ms, what,
        [weak](int64_t id, absl::Status status) {
          if (auto r = weak.lock()) r->Abort(id, std::move(status));
        },
        &finished);
  }
  WaitList::Finish(std::move(finished));
}

void WaitingResource::Abort(int64_t id, absl::Status status) {
  WaitList::FinishedList finished;
  {
    absl::MutexLock lock(&mu_);
    waits_.AbortLocked(id, std::move(status), &finished);
  }
  WaitList::Finish(std::move(finished));
}

}  // namespace dfx::data_flow
