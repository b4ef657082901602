#include "runtime/thread_pool.h"

#define EIGEN_USE_THREADS
#include "unsupported/Eigen/CXX11/ThreadPool"

#include "base/logging.h"

namespace dfx {

class ThreadPool::Impl : public Eigen::ThreadPool {
 public:
  explicit Impl(int num_threads) : Eigen::ThreadPool(num_threads) {}
};

ThreadPool::ThreadPool(std::string name, int num_threads)
    : name_(std::move(name)) {
  DFX_CHECK(num_threads >= 1);
  impl_ = std::make_unique<Impl>(num_threads);
}

ThreadPool::~ThreadPool() = default;

void ThreadPool::Schedule(std::function<void()> fn) {
  impl_->Schedule(std::move(fn));
}

int ThreadPool::NumThreads() const { return impl_->NumThreads(); }

int ThreadPool::CurrentThreadId() const { return impl_->CurrentThreadId(); }

Eigen::ThreadPoolInterface* ThreadPool::AsEigenThreadPool() {
  return impl_.get();
}

}  // namespace dfx
