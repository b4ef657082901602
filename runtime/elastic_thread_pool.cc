#include "runtime/elastic_thread_pool.h"

#include <pthread.h>

#include <utility>

#include "base/logging.h"
#include "runtime/denormal.h"

namespace dfx {

ElasticThreadPool::ElasticThreadPool(std::string name, int max_threads,
                                     absl::Duration idle_timeout)
    : name_(std::move(name)),
      max_threads_(max_threads),
      idle_timeout_(idle_timeout) {
  DFX_CHECK(max_threads >= 1);
}

ElasticThreadPool::~ElasticThreadPool() {
  {
    absl::MutexLock lock(&mu_);
    stopping_ = true;
    work_.SignalAll();
  }
  // The threads drain the queue before they return; a closure may still
  // schedule another and so start a thread, which the next round joins.
  for (;;) {
    std::vector<Worker*> workers;
    {
      absl::MutexLock lock(&mu_);
      if (workers_.empty()) break;
      workers.swap(workers_);
    }
    for (Worker* w : workers) {
      w->thread.join();
      delete w;
    }
  }
}

void ElasticThreadPool::Schedule(std::function<void()> fn) {
  std::vector<std::thread> finished;
  {
    absl::MutexLock lock(&mu_);
    queue_.push_back(std::move(fn));
    finished = TakeFinishedLocked();
    // Each idle thread takes one closure; a new thread starts for those
    // left over while the pool may grow.
    if (static_cast<int>(queue_.size()) <= idle_) {
      work_.Signal();
    } else if (live_ < max_threads_) {
      auto* w = new Worker;
      workers_.push_back(w);
      ++live_;
      // It waits for mu_ before it looks at anything.
      w->thread = std::thread([this, w] { Run(w); });
    }
  }
  for (std::thread& t : finished) t.join();
}

int ElasticThreadPool::LiveThreads() const {
  absl::MutexLock lock(&mu_);
  return live_;
}

std::vector<std::thread> ElasticThreadPool::TakeFinishedLocked() {
  std::vector<std::thread> finished;
  for (size_t i = 0; i < workers_.size();) {
    if (workers_[i]->done) {
      finished.push_back(std::move(workers_[i]->thread));
      delete workers_[i];
      workers_[i] = workers_.back();
      workers_.pop_back();
    } else {
      ++i;
    }
  }
  return finished;
}

void ElasticThreadPool::Run(Worker* self) {
  // Linux keeps 15 characters of a thread's name.
  pthread_setname_np(pthread_self(), name_.substr(0, 15).c_str());
  // Kernels run on these threads too (an eager operation, a remote
  // function), with denormals flushed as on every other pool's.
  FlushDenormalsOnThisThread();
  absl::MutexLock lock(&mu_);
  for (;;) {
    while (queue_.empty() && !stopping_) {
      ++idle_;
      const bool timed_out = work_.WaitWithTimeout(&mu_, idle_timeout_);
      --idle_;
      if (timed_out && queue_.empty() && !stopping_) {
        // Idle for idle_timeout_: this thread ends; the next Schedule
        // (or the destructor) joins it.
        --live_;
        self->done = true;
        return;
      }
    }
    if (queue_.empty()) break;  // stopping, and nothing left to run
    std::function<void()> fn = std::move(queue_.front());
    queue_.pop_front();
    mu_.Unlock();
    fn();
    fn = nullptr;  // what the closure held goes outside the lock
    mu_.Lock();
  }
  --live_;
  self->done = true;
}

}  // namespace dfx
