// Tests of runtime/elastic_thread_pool.h: threads start only when work
// needs them, never past the maximum, end when idle, and the destructor
// runs what was scheduled.
#include "runtime/elastic_thread_pool.h"

#include <atomic>
#include <memory>
#include <thread>
#include <vector>

#include "absl/synchronization/blocking_counter.h"
#include "absl/synchronization/mutex.h"
#include "absl/synchronization/notification.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "catch2/catch.hpp"

namespace dfx {
namespace {

constexpr absl::Duration kWait = absl::Seconds(30);

// Polls `pool.LiveThreads()` until it is `n` or `limit` passes.
bool LiveThreadsReach(const ElasticThreadPool& pool, int n,
                      absl::Duration limit = kWait) {
  const absl::Time deadline = absl::Now() + limit;
  while (pool.LiveThreads() != n) {
    if (absl::Now() > deadline) return false;
    absl::SleepFor(absl::Milliseconds(5));
  }
  return true;
}

TEST_CASE("ElasticThreadPool starts no thread before work and one per "
          "blocked closure up to its maximum") {
  ElasticThreadPool pool("test_pool", 4);
  CHECK(pool.LiveThreads() == 0);
  // Catch2's assertions are for the test's thread: closures count.
  absl::Notification release;
  absl::BlockingCounter started(4);
  absl::BlockingCounter finished(4);
  std::atomic<int> released{0};
  for (int i = 0; i < 4; ++i) {
    pool.Schedule([&] {
      started.DecrementCount();
      if (release.WaitForNotificationWithTimeout(kWait)) ++released;
      finished.DecrementCount();
    });
  }
  // Four blocked closures run side by side: four threads.
  started.Wait();
  CHECK(pool.LiveThreads() == 4);
  // A fifth waits for a free thread rather than starting one.
  absl::Notification fifth;
  pool.Schedule([&] { fifth.Notify(); });
  CHECK(pool.LiveThreads() == 4);
  CHECK_FALSE(fifth.WaitForNotificationWithTimeout(absl::Milliseconds(100)));
  release.Notify();
  CHECK(fifth.WaitForNotificationWithTimeout(kWait));
  finished.Wait();
  CHECK(released.load() == 4);
  CHECK(pool.LiveThreads() <= 4);
}

TEST_CASE("ElasticThreadPool reuses an idle thread and ends threads idle "
          "past the timeout") {
  ElasticThreadPool pool("test_pool", 8, absl::Milliseconds(200));
  for (int i = 0; i < 20; ++i) {
    absl::Notification done;
    pool.Schedule([&] { done.Notify(); });
    REQUIRE(done.WaitForNotificationWithTimeout(kWait));
    // Time for the thread to go back to its wait: a closure scheduled
    // while every thread is between a closure and its wait starts a new
    // one (on a loaded machine that happened now and then).
    absl::SleepFor(absl::Milliseconds(10));
  }
  // One closure at a time: the threads were reused, not one per closure up
  // to the maximum.
  CHECK(pool.LiveThreads() <= 4);
  CHECK(LiveThreadsReach(pool, 0));
  // And work after that starts a thread again.
  absl::Notification again;
  pool.Schedule([&] { again.Notify(); });
  CHECK(again.WaitForNotificationWithTimeout(kWait));
}

TEST_CASE("ElasticThreadPool's destructor runs every scheduled closure, "
          "those scheduled by closures included") {
  std::atomic<int> ran{0};
  {
    absl::Notification release;  // outlives the pool, which waits on it
    ElasticThreadPool pool("test_pool", 2);
    for (int i = 0; i < 50; ++i) {
      pool.Schedule([&, i] {
        if (i == 0 && !release.WaitForNotificationWithTimeout(kWait)) return;
        ++ran;
        if (i % 10 == 0) pool.Schedule([&] { ++ran; });
      });
    }
    release.Notify();
  }
  CHECK(ran.load() == 55);
}

TEST_CASE("ElasticThreadPool runs closures scheduled from many threads "
          "at once") {
  ElasticThreadPool pool("test_pool", 16, absl::Milliseconds(50));
  std::atomic<int> ran{0};
  absl::BlockingCounter done(8 * 500);
  std::vector<std::thread> clients;
  for (int c = 0; c < 8; ++c) {
    clients.emplace_back([&] {
      for (int i = 0; i < 500; ++i) {
        pool.Schedule([&] {
          ++ran;
          done.DecrementCount();
        });
        // Now and then long enough for threads to go idle and end.
        if (i % 100 == 99) absl::SleepFor(absl::Milliseconds(60));
      }
    });
  }
  for (std::thread& t : clients) t.join();
  done.Wait();
  CHECK(ran.load() == 8 * 500);
  CHECK(pool.LiveThreads() <= 16);
}

}  // namespace
}  // namespace dfx
