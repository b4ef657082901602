// ThreadPool: a fixed set of threads running closures (Eigen's non-blocking
// work-stealing pool underneath).
#ifndef DFX_RUNTIME_THREAD_POOL_H_
#define DFX_RUNTIME_THREAD_POOL_H_

#include <functional>
#include <memory>
#include <string>

namespace Eigen {
class ThreadPoolInterface;
}

namespace dfx {

// Thread-safe. The destructor waits for every scheduled closure to finish.
class ThreadPool {
 public:
  // REQUIRES: num_threads >= 1.
  ThreadPool(std::string name, int num_threads);
  ~ThreadPool();
  ThreadPool(const ThreadPool&) = delete;
  ThreadPool& operator=(const ThreadPool&) = delete;

  // Runs `fn` on one of the pool's threads, later.
  void Schedule(std::function<void()> fn);

  int NumThreads() const;
  // The index of the calling thread in this pool, or -1 when the caller is
  // not one of its threads.
  int CurrentThreadId() const;
  const std::string& name() const { return name_; }

  // For Eigen's ThreadPoolDevice (intra-op parallelism in kernels).
  Eigen::ThreadPoolInterface* AsEigenThreadPool();

 private:
  class Impl;
  const std::string name_;
  std::unique_ptr<Impl> impl_;
};

}  // namespace dfx

#endif  // DFX_RUNTIME_THREAD_POOL_H_
