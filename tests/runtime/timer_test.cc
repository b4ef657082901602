// Tests of runtime/timer.h: deadlines in order, cancellation, and a timer
// stopped while a callback that reschedules itself runs (what a worker's
// session collection does when its server shuts down).
#include "runtime/timer.h"

#include <atomic>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "absl/synchronization/notification.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "catch2/catch.hpp"

namespace dfx {
namespace {

constexpr absl::Duration kWait = absl::Seconds(30);

TEST_CASE("Timer runs callbacks at their deadlines, in order, and not the "
          "cancelled") {
  Timer timer;
  std::mutex mu;
  std::vector<int> ran;
  absl::Notification last;
  auto record = [&](int i) {
    return [&, i] {
      std::lock_guard<std::mutex> lock(mu);
      ran.push_back(i);
    };
  };
  // Deadlines far enough apart that a slow (sanitized, loaded) machine
  // still cancels before the cancelled one is due.
  const Timer::Id cancelled =
      timer.Schedule(absl::Milliseconds(300), record(2));
  timer.Cancel(cancelled);
  timer.Schedule(absl::Milliseconds(450), record(3));
  timer.Schedule(absl::Milliseconds(150), record(1));
  timer.Schedule(absl::Milliseconds(600), [&] { last.Notify(); });
  REQUIRE(last.WaitForNotificationWithTimeout(kWait));
  std::lock_guard<std::mutex> lock(mu);
  CHECK(ran == std::vector<int>{1, 3});
}

TEST_CASE("Timer stopped while a callback reschedules itself ends there") {
  auto timer = std::make_unique<Timer>();
  std::atomic<int> runs{0};
  absl::Notification running;
  absl::Notification release;
  std::function<void()> tick;
  tick = [&] {
    if (runs.fetch_add(1) == 0) {
      running.Notify();
      // Held until Stop has begun.
      release.WaitForNotificationWithTimeout(kWait);
    }
    timer->Schedule(absl::Milliseconds(1), tick);
  };
  timer->Schedule(absl::ZeroDuration(), tick);
  REQUIRE(running.WaitForNotificationWithTimeout(kWait));
  absl::Notification stopped;
  std::thread stopper([&] {
    timer->Stop();
    stopped.Notify();
  });
  // Stop waits for the running callback; let it go once Stop is waiting.
  absl::SleepFor(absl::Milliseconds(50));
  CHECK_FALSE(stopped.HasBeenNotified());
  release.Notify();
  REQUIRE(stopped.WaitForNotificationWithTimeout(kWait));
  stopper.join();
  // Its reschedule did nothing: no thread started again, nothing ran.
  CHECK(runs.load() == 1);
  CHECK(timer->Schedule(absl::ZeroDuration(), [&] { runs.fetch_add(1); }) ==
        0);
  absl::SleepFor(absl::Milliseconds(50));
  CHECK(runs.load() == 1);
  timer.reset();  // nothing of it left running
}

}  // namespace
}  // namespace dfx
