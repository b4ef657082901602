#include "runtime/thread_pool.h"

#define EIGEN_USE_THREADS
#include "unsupported/Eigen/CXX11/ThreadPool"

#include <pthread.h>

#include <string>

#include "base/logging.h"
#include "runtime/denormal.h"

namespace dfx {

namespace {

// Eigen's thread environment, with denormals flushed on every pool thread
// (kernels' intra-op shards run there), as TensorFlow's pools do, and the
// threads named after the pool (as `top -H`, perf and gdb show them).
struct FlushDenormalEnvironment : Eigen::StlThreadEnvironment {
  FlushDenormalEnvironment() = default;
  explicit FlushDenormalEnvironment(std::string name)
      : thread_name(std::move(name)) {}

  EnvThread* CreateThread(std::function<void()> f) {
    return Eigen::StlThreadEnvironment::CreateThread(
        [f = std::move(f), name = thread_name] {
          // Linux keeps 15 characters.
          if (!name.empty()) {
            pthread_setname_np(pthread_self(), name.substr(0, 15).c_str());
          }
          FlushDenormalsOnThisThread();
          f();
        });
  }

  std::string thread_name;
};

}  // namespace

class ThreadPool::Impl
    : public Eigen::ThreadPoolTempl<FlushDenormalEnvironment> {
 public:
  Impl(int num_threads, const std::string& name)
      : Eigen::ThreadPoolTempl<FlushDenormalEnvironment>(
            num_threads, /*allow_spinning=*/true,
            FlushDenormalEnvironment(name)) {}
};

ThreadPool::ThreadPool(std::string name, int num_threads)
    : name_(std::move(name)) {
  DFX_CHECK(num_threads >= 1);
  impl_ = std::make_unique<Impl>(num_threads, name_);
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
