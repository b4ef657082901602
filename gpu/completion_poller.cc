#include "gpu/completion_poller.h"

#include <algorithm>
#include <memory>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"

namespace dfx::gpu {

CompletionPoller::CompletionPoller(std::string name, ThreadPool* callbacks,
                                   absl::Duration timeout)
    : name_(std::move(name)), callbacks_(callbacks), timeout_(timeout) {
  thread_ = std::thread([this] { Loop(); });
}

CompletionPoller::~CompletionPoller() {
  {
    absl::MutexLock lock(&mu_);
    stop_ = true;
  }
  thread_.join();
}

void CompletionPoller::Watch(Query query, std::string what, Callback done) {
  Watched w{std::move(query), std::move(what), std::move(done),
            absl::Now() + timeout_};
  absl::MutexLock lock(&mu_);
  incoming_.push_back(std::move(w));
}

void CompletionPoller::Finish(Watched w, absl::Status status) {
  // The query (and what it owns) goes here, on the poller's thread.
  w.query = nullptr;
  // ThreadPool takes copyable closures.
  auto done = std::make_shared<Callback>(std::move(w.done));
  callbacks_->Schedule([done, status = std::move(status)]() mutable {
    (*done)(std::move(status));
  });
}

void CompletionPoller::Loop() {
  // Only this thread touches `active`.
  std::vector<Watched> active;
  absl::Time last_progress = absl::Now();
  absl::Duration pause = absl::Microseconds(10);
  while (true) {
    {
      absl::MutexLock lock(&mu_);
      if (active.empty()) {
        // Nothing in flight: sleep until there is, or the end.
        mu_.Await(absl::Condition(
            +[](CompletionPoller* p) ABSL_EXCLUSIVE_LOCKS_REQUIRED(p->mu_) {
              return p->stop_ || !p->incoming_.empty();
            },
            this));
        last_progress = absl::Now();
      }
      for (Watched& w : incoming_) active.push_back(std::move(w));
      incoming_.clear();
      if (active.empty() && stop_) return;
    }
    const absl::Time now = absl::Now();
    bool progress = false;
    for (size_t i = 0; i < active.size();) {
      absl::StatusOr<bool> done = active[i].query();
      absl::Status status;
      if (!done.ok()) {
        status = done.status();
      } else if (!*done) {
        if (now < active[i].deadline) {
          ++i;
          continue;
        }
        status = absl::DeadlineExceededError(absl::StrCat(
            name_, ": ", active[i].what, " did not finish its work within ",
            absl::FormatDuration(timeout_)));
      }
      Finish(std::move(active[i]), std::move(status));
      if (i + 1 != active.size()) active[i] = std::move(active.back());
      active.pop_back();
      progress = true;
    }
    if (active.empty()) continue;
    if (progress) {
      last_progress = now;
      pause = absl::Microseconds(10);
    }
    if (now - last_progress < kSpinFor) {
      std::this_thread::yield();
      continue;
    }
    // A new watch ends the pause early.
    absl::MutexLock lock(&mu_);
    mu_.AwaitWithTimeout(
        absl::Condition(
            +[](CompletionPoller* p) ABSL_EXCLUSIVE_LOCKS_REQUIRED(p->mu_) {
              return !p->incoming_.empty();
            },
            this),
        pause);
    pause = std::min(pause * 2, absl::Microseconds(100));
  }
}

}  // namespace dfx::gpu
