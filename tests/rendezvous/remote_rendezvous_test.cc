#include "rendezvous/remote_rendezvous.h"
#include "rendezvous/rendezvous_mgr.h"
#include "runtime/cancellation.h"

#include <atomic>
#include <deque>
#include <functional>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
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
    Tensor destination;
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
                    const Tensor& destination, FetchDone done) override {
    auto fetch = std::make_shared<Fetch>();
    fetch->step_id = step_id;
    fetch->key = key.FullKey();
    fetch->destination = destination;
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
                    const Tensor&, FetchDone done) override {
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

TEST_CASE("RemoteRendezvous hands the receiver's buffer to the fetch, and "
          "holds it while the fetch runs") {
  FakeFetcher fetcher;
  RemoteRendezvous r(kStep, kLocalTask, &fetcher);
  RecvResult got;
  {
    Tensor destination = Tensor::FromVector<float>({0, 0});
    Rendezvous::Args args;
    args.destination = &destination;
    r.RecvAsync(RemoteKey("w"), args, got.Callback());
    // `destination` goes away with the call; the fetch keeps the buffer.
  }
  auto fetch = fetcher.WaitFetch(0);
  REQUIRE(fetch->destination.IsInitialized());
  REQUIRE(fetch->destination.NumElements() == 2);
  fetch->destination.data<float>()[1] = 7;
  fetch->Complete(absl::OkStatus(), fetch->destination, false);
  REQUIRE(got.Wait());
  REQUIRE_OK(got.status);
  CHECK(got.value.data<float>()[1] == 7);
  // Without a buffer the fetch gets none.
  RecvResult plain;
  r.RecvAsync(RemoteKey("v"), {}, plain.Callback());
  CHECK_FALSE(fetcher.WaitFetch(1)->destination.IsInitialized());
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

// ---------------------------------------------------------------------------
// The push path: DeliverPushed on the receiving side, Push on the sending
// side.

namespace push {

// Records pushes; answers with `outcome`.
class FakePusher : public RemoteTensorPusher {
 public:
  struct Pushed {
    int64_t step_id;
    std::string key;
    Tensor value;
    bool is_dead;
  };
  Outcome outcome = Outcome::kPushed;

  Outcome Push(int64_t step_id, const Rendezvous::ParsedKey& key,
               const Tensor& value, bool is_dead) override {
    absl::MutexLock lock(&mu_);
    pushed_.push_back({step_id, key.FullKey(), value, is_dead});
    return outcome;
  }
  std::vector<Pushed> pushed() {
    absl::MutexLock lock(&mu_);
    return pushed_;
  }

 private:
  absl::Mutex mu_;
  std::vector<Pushed> pushed_ ABSL_GUARDED_BY(mu_);
};

// A key whose tensor this task (kLocalTask) sends to kRemoteTask.
Rendezvous::ParsedKey OutgoingKey(const std::string& name) {
  return Rendezvous::ParsedKey::Parse(
             Rendezvous::CreateKey(std::string(kLocalTask) + "/device:CPU:0",
                                   1, std::string(kRemoteTask) +
                                          "/device:CPU:0",
                                   name))
      .value();
}

// What the _Send and _Recv of a graph edge between tasks pass.
Rendezvous::Args EdgeArgs() {
  Rendezvous::Args args;
  args.client_terminated = false;
  return args;
}

TEST_CASE("Push path: a tensor pushed before its receive is taken without a "
          "fetch") {
  FakeFetcher fetcher;
  FakePusher pusher;
  RemoteRendezvous r(kStep, kLocalTask, &fetcher, &pusher);
  auto key = RemoteKey("p1");
  Tensor t = Tensor::FromVector<float>({1, 2, 3});
  r.DeliverPushed(kRemoteTask, key.FullKey(), t, false, /*pull=*/false);
  CHECK(r.NumHeldPushes() == 1);
  RecvResult got;
  r.RecvAsync(key, EdgeArgs(), got.Callback());
  REQUIRE(got.done.HasBeenNotified());
  REQUIRE_OK(got.status);
  CHECK(got.value.SharesBufferWith(t));
  CHECK(fetcher.NumFetches() == 0);
  CHECK(r.NumHeldPushes() == 0);
}

TEST_CASE("Push path: once a task pushed in the step, a receive from it "
          "waits for its push and fetches nothing") {
  FakeFetcher fetcher;
  FakePusher pusher;
  RemoteRendezvous r(kStep, kLocalTask, &fetcher, &pusher);
  r.DeliverPushed(kRemoteTask, RemoteKey("first").FullKey(),
                  Tensor::Scalar<float>(1), false, false);
  RecvResult got;
  r.RecvAsync(RemoteKey("second"), EdgeArgs(), got.Callback());
  CHECK_FALSE(got.done.HasBeenNotified());
  CHECK(fetcher.NumFetches() == 0);
  r.DeliverPushed(kRemoteTask, RemoteKey("second").FullKey(),
                  Tensor::Scalar<float>(2), false, false);
  REQUIRE(got.Wait());
  REQUIRE_OK(got.status);
  CHECK(got.value.scalar<float>() == 2.0f);
  CHECK(fetcher.NumFetches() == 0);
  // A dead tensor pushed travels as dead.
  RecvResult dead;
  r.RecvAsync(RemoteKey("dead"), EdgeArgs(), dead.Callback());
  r.DeliverPushed(kRemoteTask, RemoteKey("dead").FullKey(), Tensor(), true,
                  false);
  REQUIRE(dead.Wait());
  REQUIRE_OK(dead.status);
  CHECK(dead.is_dead);
}

TEST_CASE("Push path: a receive before the task's first push also fetches, and "
          "the push wins and cancels the fetch") {
  FakeFetcher fetcher;
  FakePusher pusher;
  RemoteRendezvous r(kStep, kLocalTask, &fetcher, &pusher);
  CountingRecv got;
  r.RecvAsync(RemoteKey("race"), EdgeArgs(), got.Callback());
  auto fetch = fetcher.WaitFetch(0);
  CHECK(got.Calls() == 0);
  r.DeliverPushed(kRemoteTask, RemoteKey("race").FullKey(),
                  Tensor::Scalar<float>(5), false, false);
  REQUIRE(got.Calls() == 1);
  REQUIRE_OK(got.Status());
  CHECK(fetch->cancels.load() == 1);
  // The fetch's late answer is dropped.
  fetch->Complete(absl::OkStatus(), Tensor::Scalar<float>(6));
  CHECK(got.Calls() == 1);
  absl::MutexLock lock(&got.mu);
  CHECK(got.value.scalar<float>() == 5.0f);
}

TEST_CASE("Push path: when the fetch wins the race, nothing stays waiting") {
  FakeFetcher fetcher;
  FakePusher pusher;
  RemoteRendezvous r(kStep, kLocalTask, &fetcher, &pusher);
  RecvResult got;
  r.RecvAsync(RemoteKey("pulled"), EdgeArgs(), got.Callback());
  fetcher.WaitFetch(0)->Complete(absl::OkStatus(), Tensor::Scalar<float>(8));
  REQUIRE(got.Wait());
  REQUIRE_OK(got.status);
  CHECK(got.value.scalar<float>() == 8.0f);
  // A second receive of the same key is a new one (not "received twice").
  r.DeliverPushed(kRemoteTask, RemoteKey("other").FullKey(),
                  Tensor::Scalar<float>(9), false, false);
  CHECK(r.NumHeldPushes() == 1);
}

TEST_CASE("Push path: an announced key is fetched, before or after its "
          "receive") {
  FakeFetcher fetcher;
  FakePusher pusher;
  RemoteRendezvous r(kStep, kLocalTask, &fetcher, &pusher);
  // Announced first.
  r.DeliverPushed(kRemoteTask, RemoteKey("big1").FullKey(), Tensor(), false,
                  /*pull=*/true);
  RecvResult first;
  r.RecvAsync(RemoteKey("big1"), EdgeArgs(), first.Callback());
  auto fetch1 = fetcher.WaitFetch(0);
  CHECK(fetch1->key == RemoteKey("big1").FullKey());
  fetch1->Complete(absl::OkStatus(), Tensor::Scalar<float>(1));
  REQUIRE(first.Wait());
  REQUIRE_OK(first.status);
  // Receive first (the task pushes in this step: no fetch until announced).
  RecvResult second;
  r.RecvAsync(RemoteKey("big2"), EdgeArgs(), second.Callback());
  CHECK(fetcher.NumFetches() == 1);
  r.DeliverPushed(kRemoteTask, RemoteKey("big2").FullKey(), Tensor(), false,
                  /*pull=*/true);
  auto fetch2 = fetcher.WaitFetch(1);
  CHECK(fetch2->key == RemoteKey("big2").FullKey());
  fetch2->Complete(absl::OkStatus(), Tensor::Scalar<float>(2));
  REQUIRE(second.Wait());
  REQUIRE_OK(second.status);
  CHECK(second.value.scalar<float>() == 2.0f);
}

TEST_CASE("Push path: abort drops held pushes, fails waiting receives and "
          "drops later pushes") {
  FakeFetcher fetcher;
  FakePusher pusher;
  RemoteRendezvous r(kStep, kLocalTask, &fetcher, &pusher);
  r.DeliverPushed(kRemoteTask, RemoteKey("held").FullKey(),
                  Tensor::Scalar<float>(1), false, false);
  RecvResult waiting;
  r.RecvAsync(RemoteKey("waiting"), EdgeArgs(), waiting.Callback());
  CHECK(r.NumHeldPushes() == 1);
  r.StartAbort(absl::AbortedError("step failed"));
  REQUIRE(waiting.Wait());
  CHECK_THAT(waiting.status, StatusIs(absl::StatusCode::kAborted, "step failed"));
  CHECK(r.NumHeldPushes() == 0);
  r.DeliverPushed(kRemoteTask, RemoteKey("late").FullKey(),
                  Tensor::Scalar<float>(2), false, false);
  CHECK(r.NumHeldPushes() == 0);
  RecvResult after;
  r.RecvAsync(RemoteKey("late"), EdgeArgs(), after.Callback());
  REQUIRE(after.Wait());
  CHECK_THAT(after.status, StatusIs(absl::StatusCode::kAborted));
}

TEST_CASE("Push path: cancelling a receive that waits for a push ends it "
          "alone") {
  FakeFetcher fetcher;
  FakePusher pusher;
  RemoteRendezvous r(kStep, kLocalTask, &fetcher, &pusher);
  r.DeliverPushed(kRemoteTask, RemoteKey("x").FullKey(),
                  Tensor::Scalar<float>(1), false, false);
  CancellationManager cm;
  Rendezvous::Args args = EdgeArgs();
  args.cancellation_manager = &cm;
  CountingRecv cancelled;
  r.RecvAsync(RemoteKey("y"), args, cancelled.Callback());
  cm.StartCancel();
  REQUIRE(cancelled.Calls() == 1);
  CHECK_THAT(cancelled.Status(), StatusIs(absl::StatusCode::kCancelled));
  // Its push, when it comes, is held, not handed to the cancelled receive.
  r.DeliverPushed(kRemoteTask, RemoteKey("y").FullKey(),
                  Tensor::Scalar<float>(2), false, false);
  CHECK(cancelled.Calls() == 1);
  CHECK(r.NumHeldPushes() == 2);
}

TEST_CASE("Push path: when a task's push stream ends, the receives that "
          "wait for its pushes fetch, and so do later ones") {
  FakeFetcher fetcher;
  FakePusher pusher;
  RemoteRendezvous pushed_in(kStep, kLocalTask, &fetcher, &pusher);
  RemoteRendezvous not_pushed_in(kStep + 1, kLocalTask, &fetcher, &pusher);
  pushed_in.DeliverPushed(kRemoteTask, RemoteKey("a").FullKey(),
                          Tensor::Scalar<float>(1), false, false);
  RecvResult waiting;
  pushed_in.RecvAsync(RemoteKey("b"), EdgeArgs(), waiting.Callback());
  CHECK(fetcher.NumFetches() == 0);  // it waits for b's push
  pushed_in.PushStreamLost("/job:worker/replica:0/task:7");
  CHECK(fetcher.NumFetches() == 0);  // another task's stream
  pushed_in.PushStreamLost(kRemoteTask);
  not_pushed_in.PushStreamLost(kRemoteTask);
  auto fetch_b = fetcher.WaitFetch(0);
  CHECK(fetch_b->key == RemoteKey("b").FullKey());
  fetch_b->Complete(absl::OkStatus(), Tensor::Scalar<float>(2));
  REQUIRE(waiting.Wait());
  REQUIRE_OK(waiting.status);
  CHECK(waiting.value.scalar<float>() == 2.0f);
  // What came before the end is still taken without a fetch.
  RecvResult held;
  pushed_in.RecvAsync(RemoteKey("a"), EdgeArgs(), held.Callback());
  REQUIRE(held.Wait());
  CHECK(held.value.scalar<float>() == 1.0f);
  CHECK(fetcher.NumFetches() == 1);
  // A push on a new stream does not make the step wait for pushes again:
  // a later receive fetches at once.
  pushed_in.DeliverPushed(kRemoteTask, RemoteKey("c").FullKey(),
                          Tensor::Scalar<float>(3), false, false);
  RecvResult later;
  pushed_in.RecvAsync(RemoteKey("d"), EdgeArgs(), later.Callback());
  auto fetch_d = fetcher.WaitFetch(1);
  CHECK(fetch_d->key == RemoteKey("d").FullKey());
  fetch_d->Complete(absl::OkStatus(), Tensor::Scalar<float>(4));
  REQUIRE(later.Wait());
  CHECK(later.value.scalar<float>() == 4.0f);
  // The other step still works.
  REQUIRE_OK(not_pushed_in.Send(ConformanceKey("local"), {},
                                Tensor::Scalar<float>(3), false));
}

TEST_CASE("Push path: Send pushes a tensor for another task and keeps it "
          "only when it was just announced") {
  FakeFetcher fetcher;
  FakePusher pusher;
  RemoteRendezvous r(kStep, kLocalTask, &fetcher, &pusher);
  // Pushed, and kept for a RecvTensor all the same (the push may be lost).
  REQUIRE_OK(r.Send(OutgoingKey("small"), EdgeArgs(),
                    Tensor::Scalar<float>(1), false));
  REQUIRE(pusher.pushed().size() == 1);
  CHECK(pusher.pushed()[0].step_id == kStep);
  CHECK(pusher.pushed()[0].key == OutgoingKey("small").FullKey());
  RecvResult served;
  r.RecvLocalAsync(OutgoingKey("small"), {}, served.Callback());
  REQUIRE(served.done.HasBeenNotified());
  CHECK(served.value.scalar<float>() == 1.0f);
  // Announced: kept for the receiver's fetch.
  pusher.outcome = RemoteTensorPusher::Outcome::kAnnounced;
  REQUIRE_OK(r.Send(OutgoingKey("big"), EdgeArgs(),
                    Tensor::Scalar<float>(2), false));
  RecvResult big;
  r.RecvLocalAsync(OutgoingKey("big"), {}, big.Callback());
  REQUIRE(big.done.HasBeenNotified());
  CHECK(big.value.scalar<float>() == 2.0f);
  // Client-terminated (a fetch this task hands its client): never pushed.
  pusher.outcome = RemoteTensorPusher::Outcome::kPushed;
  REQUIRE_OK(r.Send(OutgoingKey("fetch"), {}, Tensor::Scalar<float>(3),
                    false));
  CHECK(pusher.pushed().size() == 2);
  RecvResult fetch;
  r.RecvLocalAsync(OutgoingKey("fetch"), {}, fetch.Callback());
  REQUIRE(fetch.done.HasBeenNotified());
  // The stream to the task ends in the middle of a step that pushes there:
  // the tensor stays here (the stream's end tells the receiver to fetch).
  pusher.outcome = RemoteTensorPusher::Outcome::kNotPushed;
  REQUIRE_OK(r.Send(OutgoingKey("broken"), EdgeArgs(),
                    Tensor::Scalar<float>(4), false));
  RecvResult broken;
  r.RecvLocalAsync(OutgoingKey("broken"), {}, broken.Callback());
  REQUIRE(broken.done.HasBeenNotified());
  CHECK(broken.value.scalar<float>() == 4.0f);
  // Once told that the stream which took its pushes ended, the step
  // pushes no more to that task, even when a stream is up again.
  pusher.outcome = RemoteTensorPusher::Outcome::kPushed;
  r.PushesLost(kRemoteTask);
  const size_t before = pusher.pushed().size();
  REQUIRE_OK(r.Send(OutgoingKey("after_loss"), EdgeArgs(),
                    Tensor::Scalar<float>(7), false));
  CHECK(pusher.pushed().size() == before);
  RecvResult after_loss;
  r.RecvLocalAsync(OutgoingKey("after_loss"), {}, after_loss.Callback());
  REQUIRE(after_loss.done.HasBeenNotified());
  r.StartAbort(absl::CancelledError("test over"));
  pusher.outcome = RemoteTensorPusher::Outcome::kNotPushed;

  // A step whose first send to the task found no stream (a TensorFlow
  // peer, or a stream still opening) keeps every tensor for it here, even
  // once the stream is up.
  RemoteRendezvous next(kStep + 1, kLocalTask, &fetcher, &pusher);
  REQUIRE_OK(next.Send(OutgoingKey("first"), EdgeArgs(),
                       Tensor::Scalar<float>(5), false));
  pusher.outcome = RemoteTensorPusher::Outcome::kPushed;
  REQUIRE_OK(next.Send(OutgoingKey("second"), EdgeArgs(),
                       Tensor::Scalar<float>(6), false));
  CHECK(pusher.pushed().size() == 4);  // small, big, broken, first
  for (const char* name : {"first", "second"}) {
    RecvResult kept;
    next.RecvLocalAsync(OutgoingKey(name), {}, kept.Callback());
    REQUIRE(kept.done.HasBeenNotified());
    REQUIRE_OK(kept.status);
  }
}

TEST_CASE("Push path: a step keeps at most kMaxKeptPushBytes of what it "
          "pushed, and aborts when a stream that took more ends") {
  FakeFetcher fetcher;
  FakePusher pusher;
  RemoteRendezvous r(kStep, kLocalTask, &fetcher, &pusher);
  const Tensor big(DT_FLOAT, TensorShape({16 * 1024}));  // 64 KiB
  const int n = RemoteRendezvous::kMaxKeptPushBytes / (64 * 1024) + 8;
  for (int i = 0; i < n; ++i) {
    REQUIRE_OK(r.Send(OutgoingKey(absl::StrCat("t", i)), EdgeArgs(), big,
                      false));
  }
  CHECK(pusher.pushed().size() == static_cast<size_t>(n));
  // The first ones are kept; the last one is not.
  RecvResult first;
  r.RecvLocalAsync(OutgoingKey("t0"), {}, first.Callback());
  CHECK(first.done.HasBeenNotified());
  RecvResult last;
  r.RecvLocalAsync(OutgoingKey(absl::StrCat("t", n - 1)), {},
                   last.Callback());
  CHECK_FALSE(last.done.HasBeenNotified());
  r.PushesLost(kRemoteTask);
  REQUIRE(last.Wait());
  CHECK_THAT(last.status,
             StatusIs(absl::StatusCode::kUnavailable, "kept no copy"));
  CHECK_THAT(last.status, StatusIs(absl::StatusCode::kUnavailable,
                                   kRemoteTask));
}

TEST_CASE("Push path: a receive that is not a graph edge's (a collective's) "
          "is fetched even from a task that pushes") {
  FakeFetcher fetcher;
  FakePusher pusher;
  RemoteRendezvous r(kStep, kLocalTask, &fetcher, &pusher);
  r.DeliverPushed(kRemoteTask, RemoteKey("edge").FullKey(),
                  Tensor::Scalar<float>(1), false, false);
  RecvResult got;
  r.RecvAsync(RemoteKey("ring"), {}, got.Callback());
  auto fetch = fetcher.WaitFetch(0);
  CHECK(fetch->key == RemoteKey("ring").FullKey());
  fetch->Complete(absl::OkStatus(), Tensor::Scalar<float>(2));
  REQUIRE(got.Wait());
  REQUIRE_OK(got.status);
  CHECK(got.value.scalar<float>() == 2.0f);
}

TEST_CASE("Push path: a task that pushes nothing itself (--no-push) still "
          "takes what its peer pushed, and a fetch answers when none comes") {
  // Once, a receiver that did not push (or could not reach the sender
  // while it started) only fetched, and waited for ever for a tensor its
  // peer had pushed.
  FakeFetcher fetcher;
  RemoteRendezvous r(kStep, kLocalTask, &fetcher, /*pusher=*/nullptr);
  CountingRecv pushed;
  r.RecvAsync(RemoteKey("pushed"), EdgeArgs(), pushed.Callback());
  auto fetch = fetcher.WaitFetch(0);
  r.DeliverPushed(kRemoteTask, RemoteKey("pushed").FullKey(),
                  Tensor::Scalar<float>(3), false, false);
  REQUIRE(pushed.Calls() == 1);
  REQUIRE_OK(pushed.Status());
  CHECK(fetch->cancels.load() == 1);
  {
    absl::MutexLock lock(&pushed.mu);
    CHECK(pushed.value.scalar<float>() == 3.0f);
  }
  // A TensorFlow worker pushes nothing: the fetch answers.
  RemoteRendezvous tf(kStep + 1, kLocalTask, &fetcher, nullptr);
  RecvResult got;
  tf.RecvAsync(RemoteKey("tf"), EdgeArgs(), got.Callback());
  fetcher.WaitFetch(1)->Complete(absl::OkStatus(), Tensor::Scalar<float>(1));
  REQUIRE(got.Wait());
  REQUIRE_OK(got.status);
  CHECK(got.value.scalar<float>() == 1.0f);
  CHECK(tf.NumHeldPushes() == 0);
}

TEST_CASE("Push path: cleanup drops a step's pushes, and pushes that come "
          "after it make no new step") {
  FakeFetcher fetcher;
  FakePusher pusher;
  RendezvousMgr mgr([&](int64_t step_id) {
    return std::make_shared<RemoteRendezvous>(step_id, kLocalTask, &fetcher,
                                              &pusher);
  });
  // A push for a step that has not started here makes it, and waits there.
  std::shared_ptr<Rendezvous> early = mgr.FindForPush(kStep);
  REQUIRE(early != nullptr);
  auto* remote = dynamic_cast<RemoteRendezvous*>(early.get());
  REQUIRE(remote != nullptr);
  remote->DeliverPushed(kRemoteTask, RemoteKey("early").FullKey(),
                        Tensor::Scalar<float>(1), false, false);
  CHECK(mgr.Find(kStep) == early);
  CHECK(remote->NumHeldPushes() == 1);
  mgr.Cleanup(kStep);
  CHECK(remote->NumHeldPushes() == 0);
  CHECK(mgr.NumSteps() == 0);
  CHECK(mgr.FindForPush(kStep) == nullptr);
  CHECK(mgr.FindIfLive(kStep) == nullptr);
  CHECK(mgr.NumSteps() == 0);
  // Other steps are unaffected.
  CHECK(mgr.FindForPush(kStep + 1) != nullptr);
  CHECK(mgr.NumSteps() == 1);
}

}  // namespace push

}  // namespace
}  // namespace dfx
