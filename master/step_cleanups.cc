#include "master/step_cleanups.h"

#include <utility>

#include "base/logging.h"

namespace dfx {

std::shared_ptr<StepCleanups> StepCleanups::Create(Timer* timer,
                                                   absl::Duration delay,
                                                   Send send) {
  DFX_CHECK(timer != nullptr);
  return std::shared_ptr<StepCleanups>(
      new StepCleanups(timer, delay, std::move(send)));
}

StepCleanups::StepCleanups(Timer* timer, absl::Duration delay, Send send)
    : timer_(timer), delay_(delay), send_(std::move(send)) {}

void StepCleanups::Hold(WorkerInterface* worker, int64_t step_id) {
  absl::MutexLock lock(&mu_);
  if (closed_) {
    send_(worker, step_id);
    return;
  }
  std::vector<int64_t>& held = held_[worker];
  if (held.size() >= kMaxHeldPerWorker) {
    send_(worker, step_id);
    return;
  }
  held.push_back(step_id);
  ++num_held_;
  if (!flush_scheduled_) {
    flush_scheduled_ = true;
    // The timer may run the callback after this object is gone.
    timer_->Schedule(delay_, [weak = weak_from_this()] {
      if (std::shared_ptr<StepCleanups> self = weak.lock()) self->Flush();
    });
  }
}

std::vector<int64_t> StepCleanups::Take(WorkerInterface* worker) {
  absl::MutexLock lock(&mu_);
  auto it = held_.find(worker);
  if (it == held_.end()) return {};
  std::vector<int64_t> taken = std::move(it->second);
  held_.erase(it);
  num_held_ -= taken.size();
  return taken;
}

void StepCleanups::Close() {
  absl::MutexLock lock(&mu_);
  closed_ = true;
  SendAllLocked();
}

size_t StepCleanups::NumHeld() const {
  absl::MutexLock lock(&mu_);
  return num_held_;
}

void StepCleanups::Flush() {
  absl::MutexLock lock(&mu_);
  flush_scheduled_ = false;
  SendAllLocked();
}

void StepCleanups::SendAllLocked() {
  for (const auto& [worker, steps] : held_) {
    for (int64_t step_id : steps) send_(worker, step_id);
  }
  held_.clear();
  num_held_ = 0;
}

}  // namespace dfx
