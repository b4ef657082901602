#include "runtime/thread_pool.h"

#define EIGEN_USE_THREADS
#include "unsupported/Eigen/CXX11/ThreadPool"

#include "base/logging.h"
#include "runtime/denormal.h"

namespace dfx {

namespace {

// Eigen's thread environment, with denormals flushed on every pool thread
// (kernels' intra-op shards run there), as TensorFlow's pools do.
struct FlushDenormalEnvironment : Eigen::StlThreadEnvironment {
  EnvThread* CreateThread(std::function<void()> f) {
    return Eigen::StlThreadEnvironment::CreateThread([f = std::move(f)] {
      FlushDenormalsOnThisThread();
      f();
    });
  }
};

}  // namespace

class ThreadPool::Impl
    : public Eigen::ThreadPoolTempl<FlushDenormalEnvironment> {
 public:
  explicit Impl(int num_threads)
      : Eigen::ThreadPoolTempl<FlushDenormalEnvironment>(num_threads) {}
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
