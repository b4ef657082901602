#include "runtime/cancellation.h"

#include <atomic>
#include <thread>
#include <vector>

#include "catch2/catch.hpp"

namespace dfx {
namespace {

TEST_CASE("StartCancel runs every registered callback once") {
  CancellationManager cm;
  int a = 0, b = 0;
  REQUIRE(cm.RegisterCallback(cm.get_cancellation_token(), [&] { ++a; }));
  REQUIRE(cm.RegisterCallback(cm.get_cancellation_token(), [&] { ++b; }));
  CHECK_FALSE(cm.IsCancelled());
  cm.StartCancel();
  cm.StartCancel();
  CHECK(cm.IsCancelled());
  CHECK(a == 1);
  CHECK(b == 1);
}

TEST_CASE("RegisterCallback after cancellation returns false") {
  CancellationManager cm;
  cm.StartCancel();
  bool ran = false;
  CHECK_FALSE(cm.RegisterCallback(cm.get_cancellation_token(),
                                  [&] { ran = true; }));
  CHECK_FALSE(ran);
}

TEST_CASE("a deregistered callback never runs") {
  CancellationManager cm;
  bool ran = false;
  const CancellationToken t = cm.get_cancellation_token();
  REQUIRE(cm.RegisterCallback(t, [&] { ran = true; }));
  CHECK(cm.DeregisterCallback(t));
  CHECK_FALSE(cm.DeregisterCallback(t));
  cm.StartCancel();
  CHECK_FALSE(ran);
}

TEST_CASE("a callback may deregister others and itself without deadlock") {
  CancellationManager cm;
  const CancellationToken first = cm.get_cancellation_token();
  const CancellationToken second = cm.get_cancellation_token();
  bool second_ran = false;
  bool deregistered_second = false;
  bool deregistered_self = true;
  REQUIRE(cm.RegisterCallback(first, [&] {
    deregistered_second = cm.DeregisterCallback(second);
    deregistered_self = cm.DeregisterCallback(first);
    // Registering during cancellation is refused.
    CHECK_FALSE(cm.RegisterCallback(cm.get_cancellation_token(), [] {}));
  }));
  REQUIRE(cm.RegisterCallback(second, [&] { second_ran = true; }));
  cm.StartCancel();
  CHECK(deregistered_second);
  CHECK_FALSE(deregistered_self);
  CHECK_FALSE(second_ran);
}

TEST_CASE("concurrent StartCancel and registration: each callback runs at "
          "most once, and exactly once when registered") {
  for (int round = 0; round < 20; ++round) {
    CancellationManager cm;
    constexpr int kCallbacks = 200;
    std::vector<std::atomic<int>> runs(kCallbacks);
    std::vector<bool> registered(kCallbacks, false);
    std::thread registerer([&] {
      for (int i = 0; i < kCallbacks; ++i) {
        registered[i] = cm.RegisterCallback(cm.get_cancellation_token(),
                                            [&runs, i] { ++runs[i]; });
      }
    });
    std::thread c1([&] { cm.StartCancel(); });
    std::thread c2([&] { cm.StartCancel(); });
    registerer.join();
    c1.join();
    c2.join();
    for (int i = 0; i < kCallbacks; ++i) {
      INFO(i);
      CHECK(runs[i].load() == (registered[i] ? 1 : 0));
    }
  }
}

TEST_CASE("DeregisterCallback from another thread waits for a running "
          "callback") {
  CancellationManager cm;
  std::atomic<bool> in_callback{false};
  std::atomic<bool> release{false};
  std::atomic<bool> callback_finished{false};
  const CancellationToken t = cm.get_cancellation_token();
  REQUIRE(cm.RegisterCallback(t, [&] {
    in_callback = true;
    while (!release.load()) std::this_thread::yield();
    callback_finished = true;
  }));
  std::thread canceller([&] { cm.StartCancel(); });
  while (!in_callback.load()) std::this_thread::yield();
  std::thread releaser([&] { release = true; });
  CHECK_FALSE(cm.DeregisterCallback(t));
  // Deregister returned, so the callback must have finished.
  CHECK(callback_finished.load());
  canceller.join();
  releaser.join();
}

}  // namespace
}  // namespace dfx
