// LightMutex (runtime/internal/light_mutex.h), the lock of the executor's
// loop frames: mutual exclusion under contention, including the path where
// waiters sleep.
#include <cstdint>
#include <thread>
#include <vector>

#include "catch2/catch.hpp"
#include "runtime/internal/light_mutex.h"

namespace dfx {
namespace {

using runtime_internal::LightMutex;
using runtime_internal::LightMutexLock;

TEST_CASE("LightMutex: no increment is lost among many contending threads") {
  // More threads than cores: holders get preempted inside the critical
  // section, so waiters go past their spinning and sleep.
  constexpr int kThreads = 8;
  constexpr int kRounds = 50000;
  LightMutex mu;
  // Plain (non-atomic) counters: only the lock keeps their updates whole.
  int64_t count = 0;
  int64_t check = 0;
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&] {
      for (int i = 0; i < kRounds; ++i) {
        LightMutexLock lock(&mu);
        const int64_t c = count;
        // Two fields updated under one lock: a reader under the lock never
        // sees them apart.
        check = check + 1;
        count = c + 1;
      }
    });
  }
  for (std::thread& t : threads) t.join();
  CHECK(count == int64_t{kThreads} * kRounds);
  CHECK(check == count);
}

}  // namespace
}  // namespace dfx
