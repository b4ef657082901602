#include "rendezvous/remote_rendezvous.h"

#include <atomic>
#include <deque>
#include <functional>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "tests/rendezvous/rendezvous_conformance.h"

namespace dfx {
namespace {

using testing::ConformanceKey;
using testing::RecvResult;
using testing::StatusIs;

constexpr char kLocalTask[] = "/job:localhost/replica:0/task:0";
constexpr char kRemoteTask[] = "/job:worker/replica:0/task:1";
constexpr int64_t kStep = 17;
const absl::Duration kWait = absl::Seconds(30);

// A key whose tensor lives in kRemoteTask.
Rendezvous::ParsedKey RemoteKey(const std::string& name) {
  return ConformanceKey(name, kRemoteTask, 5);
}

// A fetcher whose fetches wait until the test completes them. Every fetch
// is recorded with whether (and how often) it was cancelled.
class FakeFetcher : public RemoteTensorFetcher {
 public:
  struct Fetch {
    int64_t step_id = 0;
    std::string key;
    FetchDone done;
    std::atomic<int> cancels{0};

    void Complete(const absl::Status& s, const Tensor& t = Tensor(),
                  bool is_dead = false) {
      done(s, t, is_dead);
    }
  };

  // Runs inside FetchAsync, before it returns (may complete the fetch).
  std::function<void(Fetch&)> on_fetch;

  Cancel FetchAsync(int64_t step_id, const Rendezvous::ParsedKey& key,
                    FetchDone done) override {
    auto fetch = std::make_shared<Fetch>();
    fetch->step_id = step_id;
    fetch->key = key.FullKey();
    fetch->done = std::move(done);
    {
      absl::MutexLock lock(&mu_);
      fetches_.push_back(fetch);
      queue_.push_back(fetch);
    }
    if (on_fetch) on_fetch(*fetch);
    return [fetch] { fetch->cancels.fetch_add(1); };
  }

  size_t NumFetches() {
    absl::MutexLock lock(&mu_);
    return fetches_.size();
  }

  // The i-th fetch started; fails the test after kWait.
  std::shared_ptr<Fetch> WaitFetch(size_t i) {
    absl::MutexLock lock(&mu_);
    auto started = [this, i]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
      return fetches_.size() > i;
    };
    REQUIRE(mu_.AwaitWithTimeout(absl::Condition(&started), kWait));
    return fetches_[i];
  }

  // The oldest fetch not yet taken, or null once Stop() was called and none
  // is left. Waits at most kWait for one.
  std::shared_ptr<Fetch> TakeNext() {
    absl::MutexLock lock(&mu_);
    auto ready = [this]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
      return !queue_.empty() || stopped_;
    };
    mu_.AwaitWithTimeout(absl::Condition(&ready), kWait);
    if (queue_.empty()) return nullptr;
    std::shared_ptr<Fetch> f = queue_.front();
    queue_.pop_front();
    return f;
  }
  // Ends TakeNext's waits.
  void Stop() {
    absl::MutexLock lock(&mu_);
    stopped_ = true;
  }

 private:
  absl::Mutex mu_;
  std::vector<std::shared_ptr<Fetch>> fetches_ ABSL_GUARDED_BY(mu_);
  std::deque<std::shared_ptr<Fetch>> queue_ ABSL_GUARDED_BY(mu_);
  bool stopped_ ABSL_GUARDED_BY(mu_) = false;
};

// Fails every fetch: the conformance suite uses local keys only.
class NoFetcher : public RemoteTensorFetcher {
 public:
  Cancel FetchAsync(int64_t, const Rendezvous::ParsedKey& key,
                    FetchDone done) override {
    done(absl::InternalError("unexpected fetch of " + key.FullKey()), Tensor(),
         false);
    return [] {};
  }
};

std::shared_ptr<Rendezvous> NewRemote() {
  static NoFetcher* fetcher = new NoFetcher;
  return std::make_shared<RemoteRendezvous>(kStep, kLocalTask, fetcher);
}

DFX_RENDEZVOUS_CONFORMANCE_TESTS("RemoteRendezvous", NewRemote)

// Counts the calls of a receive's callback, which must be exactly one.
struct CountingRecv {
  absl::Mutex mu;
  int calls ABSL_GUARDED_BY(mu) = 0;
  absl::Status status ABSL_GUARDED_BY(mu);
  Tensor value ABSL_GUARDED_BY(mu);

  Rendezvous::DoneCallback Callback() {
    return [this](const absl::Status& s, const Tensor& v, bool) {
      absl::MutexLock lock(&mu);
      ++calls;
      status = s;
      value = v;
    };
  }
  bool WaitCalled() {
    absl::MutexLock lock(&mu);
    auto called = [this]()
                      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu) { return calls > 0; };
    return mu.AwaitWithTimeout(absl::Condition(&called), kWait);
  }
  int Calls() {
    absl::MutexLock lock(&mu);
    return calls;
  }
  absl::Status Status() {
    absl::MutexLock lock(&mu);
    return status;
  }
};

TEST_CASE("RemoteRendezvous fetches a tensor whose source is another task") {
  FakeFetcher fetcher;
  RemoteRendezvous r(kStep, kLocalTask, &fetcher);
  auto key = RemoteKey("w");
  RecvResult got;
  r.RecvAsync(key, {}, got.Callback());
  auto fetch = fetcher.WaitFetch(0);
  CHECK(fetch->step_id == kStep);
  CHECK(fetch->key == key.FullKey());
  CHECK_FALSE(got.done.HasBeenNotified());
  Tensor t = Tensor::FromVector<float>({4, 5});
  fetch->Complete(absl::OkStatus(), t, false);
  REQUIRE(got.Wait());
  REQUIRE_OK(got.status);
  CHECK(got.value.SharesBufferWith(t));
  CHECK_FALSE(got.is_dead);
  CHECK(fetch->cancels.load() == 0);
}

TEST_CASE("RemoteRendezvous passes the dead flag of a fetched tensor") {
  FakeFetcher fetcher;
  RemoteRendezvous r(kStep, kLocalTask, &fetcher);
  RecvResult got;
  r.RecvAsync(RemoteKey("dead"), {}, got.Callback());
  fetcher.WaitFetch(0)->Complete(absl::OkStatus(), Tensor(), true);
  REQUIRE(got.Wait());
  REQUIRE_OK(got.status);
  CHECK(got.is_dead);
}

TEST_CASE("RemoteRendezvous serves local keys without fetching") {
  FakeFetcher fetcher;
  // A legacy spelling of the task with a device part: still this task.
  RemoteRendezvous r(kStep, "/job:worker/replica:0/task:1/cpu:0", &fetcher);
  auto key = RemoteKey("mine");
  REQUIRE_OK(r.Send(key, {}, Tensor::Scalar<int32_t>(9), false));
  RecvResult got;
  r.RecvAsync(key, {}, got.Callback());
  REQUIRE(got.Wait());
  REQUIRE_OK(got.status);
  CHECK(got.value.scalar<int32_t>() == 9);
  CHECK(fetcher.NumFetches() == 0);
}

TEST_CASE("RemoteRendezvous passes a fetch error to the receiver") {
  FakeFetcher fetcher;
  RemoteRendezvous r(kStep, kLocalTask, &fetcher);
  RecvResult got;
  r.RecvAsync(RemoteKey("e"), {}, got.Callback());
  fetcher.WaitFetch(0)->Complete(
      absl::UnavailableError("RecvTensor from task /job:worker/replica:0/"
                             "task:1: connection refused"));
  REQUIRE(got.Wait());
  CHECK_THAT(got.status, StatusIs(absl::StatusCode::kUnavailable,
                                  "task:1: connection refused"));
}

TEST_CASE("RemoteRendezvous rejects a Send whose source is another task") {
  FakeFetcher fetcher;
  RemoteRendezvous r(kStep, kLocalTask, &fetcher);
  auto key = RemoteKey("not_mine");
  CHECK_THAT(r.Send(key, {}, Tensor::Scalar<float>(1), false),
             StatusIs(absl::StatusCode::kInvalidArgument, key.FullKey()));
  CHECK_THAT(r.Send(key, {}, Tensor::Scalar<float>(1), false),
             StatusIs(absl::StatusCode::kInvalidArgument, kRemoteTask));
}

TEST_CASE("RemoteRendezvous StartAbort cancels the fetch in flight") {
  FakeFetcher fetcher;
  RemoteRendezvous r(kStep, kLocalTask, &fetcher);
  CountingRecv remote;
  RecvResult local;
  r.RecvAsync(RemoteKey("x"), {}, remote.Callback());
  r.RecvAsync(ConformanceKey("y"), {}, local.Callback());
  auto fetch = fetcher.WaitFetch(0);
  CHECK(remote.Calls() == 0);

  r.StartAbort(absl::AbortedError("worker 2 failed"));
  REQUIRE(remote.WaitCalled());
  CHECK_THAT(remote.Status(),
             StatusIs(absl::StatusCode::kAborted, "worker 2 failed"));
  CHECK(fetch->cancels.load() == 1);
  REQUIRE(local.Wait());
  CHECK_THAT(local.status,
             StatusIs(absl::StatusCode::kAborted, "worker 2 failed"));

  // The fetch's own answer comes too late and is dropped.
  fetch->Complete(absl::OkStatus(), Tensor::Scalar<float>(1));
  fetch->Complete(absl::CancelledError("cancelled"));
  CHECK(remote.Calls() == 1);
  CHECK_THAT(remote.Status(), StatusIs(absl::StatusCode::kAborted));

  // Later remote receives fail at once, without a fetch.
  RecvResult later;
  r.RecvAsync(RemoteKey("z"), {}, later.Callback());
  REQUIRE(later.done.HasBeenNotified());
  CHECK_THAT(later.status,
             StatusIs(absl::StatusCode::kAborted, "worker 2 failed"));
  CHECK(fetcher.NumFetches() == 1);
  CHECK_THAT(r.Send(ConformanceKey("s"), {}, Tensor(), false),
             StatusIs(absl::StatusCode::kAborted, "worker 2 failed"));
}

TEST_CASE("RemoteRendezvous abort during FetchAsync still cancels the fetch") {
  FakeFetcher fetcher;
  RemoteRendezvous r(kStep, kLocalTask, &fetcher);
  // The abort lands after the fetch started but before FetchAsync returned
  // its Cancel.
  fetcher.on_fetch = [&r](FakeFetcher::Fetch&) {
    r.StartAbort(absl::AbortedError("raced"));
  };
  CountingRecv got;
  r.RecvAsync(RemoteKey("race"), {}, got.Callback());
  REQUIRE(got.WaitCalled());
  CHECK_THAT(got.Status(), StatusIs(absl::StatusCode::kAborted, "raced"));
  auto fetch = fetcher.WaitFetch(0);
  CHECK(fetch->cancels.load() == 1);
  fetch->Complete(absl::OkStatus(), Tensor::Scalar<float>(1));
  CHECK(got.Calls() == 1);
}

TEST_CASE("RemoteRendezvous takes a fetch completed inside FetchAsync") {
  FakeFetcher fetcher;
  RemoteRendezvous r(kStep, kLocalTask, &fetcher);
  fetcher.on_fetch = [](FakeFetcher::Fetch& f) {
    f.Complete(absl::OkStatus(), Tensor::Scalar<int64_t>(3));
  };
  CountingRecv got;
  r.RecvAsync(RemoteKey("sync"), {}, got.Callback());
  REQUIRE(got.Calls() == 1);  // before RecvAsync returned
  REQUIRE_OK(got.Status());
  // Aborting afterwards touches neither the finished receive nor its fetch.
  r.StartAbort(absl::AbortedError("late"));
  CHECK(got.Calls() == 1);
  CHECK(fetcher.WaitFetch(0)->cancels.load() == 0);
}

TEST_CASE("RemoteRendezvous cancellation ends one fetch") {
  FakeFetcher fetcher;
  RemoteRendezvous r(kStep, kLocalTask, &fetcher);
  CancellationManager cm;
  Rendezvous::Args args;
  args.cancellation_manager = &cm;
  CountingRecv cancelled;
  RecvResult other;
  r.RecvAsync(RemoteKey("c"), args, cancelled.Callback());
  r.RecvAsync(RemoteKey("d"), {}, other.Callback());
  auto fetch_c = fetcher.WaitFetch(0);
  auto fetch_d = fetcher.WaitFetch(1);

  cm.StartCancel();
  REQUIRE(cancelled.WaitCalled());
  CHECK_THAT(cancelled.Status(),
             StatusIs(absl::StatusCode::kCancelled, RemoteKey("c").FullKey()));
  CHECK(fetch_c->cancels.load() == 1);
  CHECK(fetch_d->cancels.load() == 0);
  fetch_c->Complete(absl::OkStatus(), Tensor::Scalar<float>(1));
  CHECK(cancelled.Calls() == 1);

  // The other receive is untouched.
  CHECK_FALSE(other.done.HasBeenNotified());
  fetch_d->Complete(absl::OkStatus(), Tensor::Scalar<float>(2));
  REQUIRE(other.Wait());
  REQUIRE_OK(other.status);
  CHECK(other.value.scalar<float>() == 2.0f);

  // A receive with a manager already cancelled fails without fetching.
  RecvResult after;
  r.RecvAsync(RemoteKey("e"), args, after.Callback());
  REQUIRE(after.done.HasBeenNotified());
  CHECK_THAT(after.status, StatusIs(absl::StatusCode::kCancelled));
  CHECK(fetcher.NumFetches() == 2);
}

TEST_CASE("RemoteRendezvous ignores a cancellation after the receive") {
  FakeFetcher fetcher;
  RemoteRendezvous r(kStep, kLocalTask, &fetcher);
  CancellationManager cm;
  Rendezvous::Args args;
  args.cancellation_manager = &cm;
  CountingRecv got;
  r.RecvAsync(RemoteKey("f"), args, got.Callback());
  auto fetch = fetcher.WaitFetch(0);
  fetch->Complete(absl::OkStatus(), Tensor::Scalar<float>(7));
  REQUIRE(got.Calls() == 1);
  REQUIRE_OK(got.Status());
  // A cancellation after the receive finished neither calls back again nor
  // cancels the finished fetch.
  cm.StartCancel();
  CHECK(got.Calls() == 1);
  REQUIRE_OK(got.Status());
  CHECK(fetch->cancels.load() == 0);
}

TEST_CASE("Destroying a RemoteRendezvous cancels its fetches") {
  FakeFetcher fetcher;
  CountingRecv got;
  CancellationManager cm;
  Rendezvous::Args args;
  args.cancellation_manager = &cm;
  {
    RemoteRendezvous r(kStep, kLocalTask, &fetcher);
    r.RecvAsync(RemoteKey("g"), args, got.Callback());
    fetcher.WaitFetch(0);
  }
  REQUIRE(got.Calls() == 1);
  CHECK_THAT(got.Status(), StatusIs(absl::StatusCode::kCancelled, "step 17"));
  auto fetch = fetcher.WaitFetch(0);
  CHECK(fetch->cancels.load() == 1);
  // The fetch and the manager outlive the rendezvous; neither reaches it.
  fetch->Complete(absl::OkStatus(), Tensor::Scalar<float>(1));
  cm.StartCancel();
  CHECK(got.Calls() == 1);
}

// Receives, completions on other threads, cancellations and (optionally) an
// abort all racing: each receive must be answered exactly once.
void RunConcurrentFetches(bool abort_midway) {
  constexpr int kRecvs = 3000;
  constexpr int kCompleters = 4;
  FakeFetcher fetcher;
  auto r = std::make_shared<RemoteRendezvous>(kStep, kLocalTask, &fetcher);
  std::vector<std::unique_ptr<CancellationManager>> cms(kRecvs);
  for (int i = 0; i < kRecvs; i += 3) {
    cms[i] = std::make_unique<CancellationManager>();
  }
  std::vector<CountingRecv> got(kRecvs);

  std::vector<std::thread> completers;
  for (int t = 0; t < kCompleters; ++t) {
    completers.emplace_back([&] {
      while (auto fetch = fetcher.TakeNext()) {
        // Catch2 assertions are for the test's own thread: no REQUIRE here.
        auto key = Rendezvous::ParsedKey::Parse(fetch->key).value();
        const int i = std::stoi(std::string(key.edge_name()).substr(1));
        fetch->Complete(absl::OkStatus(), Tensor::Scalar<int32_t>(i));
      }
    });
  }
  std::thread canceller([&] {
    for (int i = 0; i < kRecvs; i += 3) cms[i]->StartCancel();
  });
  std::thread receiver([&] {
    for (int i = 1; i < kRecvs; i += 2) {
      Rendezvous::Args args;
      args.cancellation_manager = cms[i].get();
      r->RecvAsync(RemoteKey("k" + std::to_string(i)), args, got[i].Callback());
    }
  });
  for (int i = 0; i < kRecvs; i += 2) {
    Rendezvous::Args args;
    args.cancellation_manager = cms[i].get();
    r->RecvAsync(RemoteKey("k" + std::to_string(i)), args, got[i].Callback());
    if (abort_midway && i == kRecvs / 2) {
      r->StartAbort(absl::AbortedError("midway"));
    }
  }
  receiver.join();
  canceller.join();
  for (int i = 0; i < kRecvs; ++i) {
    INFO("receive " << i);
    REQUIRE(got[i].WaitCalled());
  }
  fetcher.Stop();
  for (std::thread& t : completers) t.join();
  r.reset();  // nothing left to answer

  for (int i = 0; i < kRecvs; ++i) {
    INFO("receive " << i);
    REQUIRE(got[i].Calls() == 1);
    absl::Status s = got[i].Status();
    // Receives with no manager and no abort always get their tensor.
    if (cms[i] == nullptr && !abort_midway) REQUIRE_OK(s);
    if (s.ok()) {
      absl::MutexLock lock(&got[i].mu);
      CHECK(got[i].value.scalar<int32_t>() == i);
    } else if (absl::IsCancelled(s)) {
      CHECK(cms[i] != nullptr);
    } else {
      CHECK(abort_midway);
      CHECK_THAT(s, StatusIs(absl::StatusCode::kAborted, "midway"));
    }
  }
}

TEST_CASE("RemoteRendezvous answers concurrent fetches exactly once") {
  SECTION("completions and cancellations race") { RunConcurrentFetches(false); }
  SECTION("an abort races with them too") { RunConcurrentFetches(true); }
}

}  // namespace
}  // namespace dfx
