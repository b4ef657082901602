// CompletionPoller (gpu/completion_poller.h) with fake queries: it needs
// no GPU, so these run on every machine with CUDA built in.
#include "gpu/completion_poller.h"

#include <atomic>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "absl/synchronization/notification.h"
#include "catch2/catch.hpp"
#include "runtime/thread_pool.h"
#include "tests/testing/status_matchers.h"

namespace dfx::gpu {
namespace {

constexpr absl::Duration kWait = absl::Seconds(30);

// Work the test finishes: the poller's query reads `finished` / `error`.
struct FakeWork {
  std::atomic<bool> finished{false};
  absl::Status error;  // set before `finished`
  std::atomic<int> queries{0};
};

CompletionPoller::Query QueryOf(std::shared_ptr<FakeWork> work) {
  return [work]() -> absl::StatusOr<bool> {
    ++work->queries;
    if (!work->finished.load()) return false;
    if (!work->error.ok()) return work->error;
    return true;
  };
}

// What one callback saw.
struct Seen {
  absl::Notification called;
  absl::Status status;
  std::thread::id thread;
  std::atomic<int> calls{0};
};

CompletionPoller::Callback Record(Seen* seen) {
  return [seen](absl::Status s) {
    seen->status = std::move(s);
    seen->thread = std::this_thread::get_id();
    ++seen->calls;
    seen->called.Notify();
  };
}

TEST_CASE(
    "completion poller: a callback runs on the pool once its work is "
    "done, not before, and never on the caller's thread") {
  ThreadPool pool("callbacks", 2);
  CompletionPoller poller("fake GPU", &pool, kWait);
  auto work = std::make_shared<FakeWork>();
  Seen seen;
  poller.Watch(QueryOf(work), "a copy", Record(&seen));
  // Polled, but not done: no callback.
  while (work->queries.load() < 3) std::this_thread::yield();
  CHECK_FALSE(seen.called.HasBeenNotified());
  work->finished = true;
  REQUIRE(seen.called.WaitForNotificationWithTimeout(kWait));
  CHECK_THAT(seen.status, testing::IsOk());
  CHECK(seen.thread != std::this_thread::get_id());
  CHECK(pool.CurrentThreadId() == -1);  // the test's thread is not the pool's
}

TEST_CASE(
    "completion poller: many watches finish in any order, each "
    "callback once, and an error reaches only its own callback") {
  ThreadPool pool("callbacks", 2);
  CompletionPoller poller("fake GPU", &pool, kWait);
  constexpr int kWatches = 50;
  std::vector<std::shared_ptr<FakeWork>> works;
  std::vector<std::unique_ptr<Seen>> seen;
  for (int i = 0; i < kWatches; ++i) {
    works.push_back(std::make_shared<FakeWork>());
    seen.push_back(std::make_unique<Seen>());
    poller.Watch(QueryOf(works.back()), "copy " + std::to_string(i),
                 Record(seen.back().get()));
  }
  // Last first; copy 7 fails.
  works[7]->error = absl::InternalError("GPU ordinal 0: an illegal address");
  for (int i = kWatches - 1; i >= 0; --i) works[i]->finished = true;
  for (int i = 0; i < kWatches; ++i) {
    INFO("watch " << i);
    REQUIRE(seen[i]->called.WaitForNotificationWithTimeout(kWait));
    if (i == 7) {
      CHECK_THAT(seen[i]->status, testing::StatusIs(absl::StatusCode::kInternal,
                                                    "an illegal address"));
    } else {
      CHECK_THAT(seen[i]->status, testing::IsOk());
    }
  }
  for (int i = 0; i < kWatches; ++i) CHECK(seen[i]->calls.load() == 1);
}

TEST_CASE(
    "completion poller: work that never finishes ends with "
    "DeadlineExceeded naming it after the timeout") {
  ThreadPool pool("callbacks", 1);
  CompletionPoller poller("GPU:0", &pool, absl::Milliseconds(20));
  auto work = std::make_shared<FakeWork>();
  Seen seen;
  poller.Watch(QueryOf(work), "copying 4 bytes to the GPU", Record(&seen));
  REQUIRE(seen.called.WaitForNotificationWithTimeout(kWait));
  CHECK_THAT(seen.status,
             testing::StatusIs(absl::StatusCode::kDeadlineExceeded,
                               "GPU:0: copying 4 bytes to the GPU did not "
                               "finish"));
}

TEST_CASE(
    "completion poller: destroying it waits for the work it watches "
    "and hands every callback to the pool") {
  ThreadPool pool("callbacks", 1);
  auto work = std::make_shared<FakeWork>();
  Seen seen;
  std::weak_ptr<FakeWork> query_owns = work;
  {
    auto poller = std::make_unique<CompletionPoller>("fake GPU", &pool, kWait);
    poller->Watch(QueryOf(work), "a copy", Record(&seen));
    std::thread finisher([work] {
      while (work->queries.load() < 10) std::this_thread::yield();
      work->finished = true;
    });
    poller.reset();  // returns only once the work is done
    CHECK(work->finished.load());
    finisher.join();
  }
  REQUIRE(seen.called.WaitForNotificationWithTimeout(kWait));
  CHECK_THAT(seen.status, testing::IsOk());
  // The query (and what it kept alive) is gone with the watch.
  work.reset();
  CHECK(query_owns.expired());
}

}  // namespace
}  // namespace dfx::gpu
