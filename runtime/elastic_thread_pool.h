// ElasticThreadPool: threads for closures that may block (an RPC handler
// waiting on a step, building a new graph, a remote function), started when
// work arrives and every thread is busy, ended when idle.
//
// A server's service pools used to be fixed pools of 64 threads each, made
// at start: an idle server held 128 threads doing nothing. Threads here
// start on demand up to `max_threads` and end after `idle_timeout` with
// nothing to run, so an idle server holds none of them and a busy one as
// many as its concurrent blocking calls need. For kernels' short, CPU-bound
// work use ThreadPool (work stealing, a thread per core).
#ifndef DFX_RUNTIME_ELASTIC_THREAD_POOL_H_
#define DFX_RUNTIME_ELASTIC_THREAD_POOL_H_

#include <deque>
#include <functional>
#include <string>
#include <thread>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"

namespace dfx {

// Thread-safe. Closures run in the order they were scheduled when more
// wait than there are threads. The destructor runs every closure already
// scheduled, then joins the threads.
class ElasticThreadPool {
 public:
  // REQUIRES: max_threads >= 1.
  ElasticThreadPool(std::string name, int max_threads,
                    absl::Duration idle_timeout = absl::Seconds(30));
  ~ElasticThreadPool();
  ElasticThreadPool(const ElasticThreadPool&) = delete;
  ElasticThreadPool& operator=(const ElasticThreadPool&) = delete;

  // Runs `fn` on one of the pool's threads, later: an idle one, else a new
  // one while fewer than max_threads run, else the first to come free.
  void Schedule(std::function<void()> fn);

  int MaxThreads() const { return max_threads_; }
  // Threads running now (busy or waiting for work).
  int LiveThreads() const;
  const std::string& name() const { return name_; }

 private:
  struct Worker {
    std::thread thread;
    bool done = false;  // its loop has returned; join it
  };
  void Run(Worker* self);
  // Takes the workers whose loops have returned, to join outside the lock.
  std::vector<std::thread> TakeFinishedLocked()
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  const std::string name_;
  const int max_threads_;
  const absl::Duration idle_timeout_;

  mutable absl::Mutex mu_;
  std::deque<std::function<void()>> queue_ ABSL_GUARDED_BY(mu_);
  // Every thread started and not yet joined; owned here.
  std::vector<Worker*> workers_ ABSL_GUARDED_BY(mu_);
  int live_ ABSL_GUARDED_BY(mu_) = 0;
  int idle_ ABSL_GUARDED_BY(mu_) = 0;
  bool stopping_ ABSL_GUARDED_BY(mu_) = false;
  absl::CondVar work_;
};

}  // namespace dfx

#endif  // DFX_RUNTIME_ELASTIC_THREAD_POOL_H_
