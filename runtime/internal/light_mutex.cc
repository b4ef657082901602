#include "runtime/internal/light_mutex.h"

namespace dfx {
namespace runtime_internal {
namespace {

inline void CpuRelax() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#elif defined(__aarch64__)
  asm volatile("yield" ::: "memory");
#endif
}

// The holder of a frame's lock runs a few hundred instructions: spinning
// this long covers that on another core; a holder that was preempted is
// waited for asleep.
constexpr int kSpins = 100;

}  // namespace

void LightMutex::LockSlow() {
  for (int i = 0; i < kSpins; ++i) {
    CpuRelax();
    uint32_t expected = state_.load(std::memory_order_relaxed);
    if (expected == kFree &&
        state_.compare_exchange_weak(expected, kLocked,
                                     std::memory_order_acquire,
                                     std::memory_order_relaxed)) {
      return;
    }
  }
  // Marks the lock contended (so the holder's Unlock wakes a sleeper) and
  // takes it if it was free; otherwise sleeps until it may be.
  while (state_.exchange(kContended, std::memory_order_acquire) != kFree) {
    state_.wait(kContended, std::memory_order_relaxed);
  }
}

}  // namespace runtime_internal
}  // namespace dfx
