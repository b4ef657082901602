// LightMutex: a small mutex for short critical sections taken very often by
// one thread at a time (the executor's per-frame state). Private to
// runtime/.
#ifndef DFX_RUNTIME_INTERNAL_LIGHT_MUTEX_H_
#define DFX_RUNTIME_INTERNAL_LIGHT_MUTEX_H_

#include <atomic>
#include <cstdint>

#include "absl/base/thread_annotations.h"

namespace dfx {
namespace runtime_internal {

// An uncontended Lock and Unlock are one atomic exchange each (absl::Mutex,
// as Debian builds it, costs about three times as much: it is the lock of a
// loop frame, taken once per node of every iteration). A contended Lock
// spins briefly, then sleeps in the kernel until an Unlock wakes it
// (a futex, through std::atomic::wait). No fairness, no reader mode, no
// condition variables, no deadlock detection. Not recursive.
class ABSL_LOCKABLE LightMutex {
 public:
  LightMutex() = default;
  LightMutex(const LightMutex&) = delete;
  LightMutex& operator=(const LightMutex&) = delete;

  void Lock() ABSL_EXCLUSIVE_LOCK_FUNCTION() {
    uint32_t expected = kFree;
    if (!state_.compare_exchange_strong(expected, kLocked,
                                        std::memory_order_acquire,
                                        std::memory_order_relaxed)) {
      LockSlow();
    }
  }
  void Unlock() ABSL_UNLOCK_FUNCTION() {
    if (state_.exchange(kFree, std::memory_order_release) == kContended) {
      state_.notify_one();
    }
  }

 private:
  static constexpr uint32_t kFree = 0;
  static constexpr uint32_t kLocked = 1;
  // Locked, and some thread may be sleeping on it.
  static constexpr uint32_t kContended = 2;

  void LockSlow();

  std::atomic<uint32_t> state_{kFree};
};

// Holds a LightMutex for its scope.
class ABSL_SCOPED_LOCKABLE LightMutexLock {
 public:
  explicit LightMutexLock(LightMutex* mu) ABSL_EXCLUSIVE_LOCK_FUNCTION(mu)
      : mu_(mu) {
    mu_->Lock();
  }
  ~LightMutexLock() ABSL_UNLOCK_FUNCTION() { mu_->Unlock(); }
  LightMutexLock(const LightMutexLock&) = delete;
  LightMutexLock& operator=(const LightMutexLock&) = delete;

 private:
  LightMutex* const mu_;
};

}  // namespace runtime_internal
}  // namespace dfx

#endif  // DFX_RUNTIME_INTERNAL_LIGHT_MUTEX_H_
