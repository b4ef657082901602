#include "runtime/timer.h"

#include "absl/time/clock.h"

namespace dfx {

Timer::~Timer() { Stop(); }

void Timer::Stop() {
  std::thread thread;
  // Destroyed after the lock is released: a callback's captures may reach
  // back into the timer (Cancel) as they go.
  std::map<std::pair<absl::Time, Id>, std::function<void()>> dropped;
  {
    absl::MutexLock lock(&mu_);
    stop_ = true;
    cv_.Signal();
    thread = std::move(thread_);
    dropped.swap(queue_);
    deadlines_.clear();
  }
  if (thread.joinable()) thread.join();
}

Timer::Id Timer::Schedule(absl::Duration delay, std::function<void()> fn) {
  absl::MutexLock lock(&mu_);
  // Stopped: no thread may start again (it would outlive the timer).
  if (stop_) return 0;
  if (!thread_.joinable()) thread_ = std::thread([this] { Loop(); });
  const Id id = ++next_id_;
  const absl::Time when = absl::Now() + delay;
  queue_.emplace(std::make_pair(when, id), std::move(fn));
  deadlines_.emplace(id, when);
  // Wake the thread only when it would sleep past this deadline: a step
  // schedules (and cancels) one timer per RunGraph, nearly always later
  // than the one the thread waits for, and a wake-up per step cost a
  // null step with a deadline about a quarter of its server CPU.
  if (when < wake_at_) cv_.Signal();
  return id;
}

void Timer::Cancel(Id id) {
  absl::MutexLock lock(&mu_);
  auto it = deadlines_.find(id);
  if (it == deadlines_.end()) return;
  queue_.erase(std::make_pair(it->second, id));
  deadlines_.erase(it);
}

void Timer::Loop() {
  absl::MutexLock lock(&mu_);
  while (!stop_) {
    if (queue_.empty()) {
      wake_at_ = absl::InfiniteFuture();
      cv_.Wait(&mu_);
      wake_at_ = absl::InfinitePast();
      continue;
    }
    auto first = queue_.begin();
    if (absl::Now() < first->first.first) {
      // A cancelled first deadline still wakes the thread then; it finds
      // the next one and sleeps again.
      wake_at_ = first->first.first;
      cv_.WaitWithDeadline(&mu_, wake_at_);
      wake_at_ = absl::InfinitePast();
      continue;
    }
    std::function<void()> fn = std::move(first->second);
    deadlines_.erase(first->first.second);
    queue_.erase(first);
    mu_.Unlock();
    fn();
    mu_.Lock();
  }
}

}  // namespace dfx
