// Two in-process workers ("tasks") whose step rendezvous are
// RemoteRendezvous fetching through a WorkerCacheFetcher: tensors cross
// from one task to the other by RecvTensor, as between processes.
#include "worker/worker_cache_fetcher.h"

#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "absl/synchronization/notification.h"
#include "rendezvous/remote_rendezvous.h"
#include "tests/worker/worker_test_util.h"
#include "worker/worker_cache.h"

namespace dfx {
namespace {

using testing::StatusIs;
using worker_testing::kWait;
using worker_testing::Pending;

constexpr char kTask0[] = "/job:worker/replica:0/task:0";
constexpr char kTask1[] = "/job:worker/replica:0/task:1";

// One RecvAsync result, awaited with a timeout.
struct Received {
  absl::Notification done;
  absl::Status status;
  Tensor value;
  bool is_dead = false;
  Rendezvous::DoneCallback Callback() {
    return [this](const absl::Status& s, const Tensor& v, bool dead) {
      status = s;
      value = v;
      is_dead = dead;
      done.Notify();
    };
  }
  bool Wait() { return done.WaitForNotificationWithTimeout(kWait); }
};

// A LocalWorker that records each RecvTensor it serves and how it ended.
class SpyWorker : public LocalWorker {
 public:
  using LocalWorker::LocalWorker;

  void RecvTensorAsync(CallOptions* opts, const RecvTensorRequest* request,
                       RecvTensorResult* response,
                       StatusCallback done) override {
    {
      absl::MutexLock lock(&mu_);
      requests_.push_back(*request);
    }
    LocalWorker::RecvTensorAsync(
        opts, request, response,
        [this, done = std::move(done)](const absl::Status& s) {
          {
            absl::MutexLock lock(&mu_);
            results_.push_back(s);
          }
          done(s);
        });
  }

  std::vector<RecvTensorRequest> requests() {
    absl::MutexLock lock(&mu_);
    return requests_;
  }
  // Waits until `n` RecvTensor calls have come; fails the test after kWait.
  void WaitRequests(size_t n) {
    absl::MutexLock lock(&mu_);
    auto arrived = [this, n]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
      return requests_.size() >= n;
    };
    REQUIRE(mu_.AwaitWithTimeout(absl::Condition(&arrived), kWait));
  }
  // The status of the i-th RecvTensor to finish; fails the test after kWait.
  absl::Status WaitResult(size_t i) {
    absl::MutexLock lock(&mu_);
    auto finished = [this, i]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
      return results_.size() > i;
    };
    REQUIRE(mu_.AwaitWithTimeout(absl::Condition(&finished), kWait));
    return results_[i];
  }
  size_t NumResults() {
    absl::MutexLock lock(&mu_);
    return results_.size();
  }

 private:
  absl::Mutex mu_;
  std::vector<RecvTensorRequest> requests_ ABSL_GUARDED_BY(mu_);
  std::vector<absl::Status> results_ ABSL_GUARDED_BY(mu_);
};

// A task whose connection is gone: RecvTensor fails as a dead peer's would.
class DeadWorker : public LocalWorker {
 public:
  using LocalWorker::LocalWorker;
  void RecvTensorAsync(CallOptions*, const RecvTensorRequest*,
                       RecvTensorResult*, StatusCallback done) override {
    done(absl::UnavailableError("connection refused"));
  }
};

// One task: a worker on one CPU device whose step rendezvous fetch remote
// tensors through `fetcher`, reached through a SpyWorker.
class Task : public worker_testing::TestWorker {
 public:
  Task(const std::string& name, RemoteTensorFetcher* fetcher)
      : TestWorker(1, name, RemoteRendezvousFactory(name, fetcher)),
        name_(name),
        spy_(std::make_unique<SpyWorker>(worker())) {}

  // Hides TestWorker::wi: calls from other tasks go through the spy.
  SpyWorker* wi() { return spy_.get(); }
  std::shared_ptr<Rendezvous> Step(int64_t step_id) {
    return rendezvous_mgr()->Find(step_id);
  }
  std::string Cpu0() const { return absl::StrCat(name_, "/device:CPU:0"); }
  uint64_t Incarnation() const { return TestWorker::Incarnation(Cpu0()); }

 private:
  const std::string name_;
  std::unique_ptr<SpyWorker> spy_;
};

// Task 0 and task 1, each reaching the other through the worker cache.
struct Cluster {
  StaticWorkerCache cache;
  WorkerCacheFetcher fetcher{&cache};
  Task t0{kTask0, &fetcher};
  Task t1{kTask1, &fetcher};

  Cluster() {
    cache.AddWorker(kTask0, t0.wi());
    cache.AddWorker(kTask1, t1.wi());
  }
  ~Cluster() {
    // Ends every wait (fetches in both directions) before anything goes.
    t0.rendezvous_mgr()->CleanupAll();
    t1.rendezvous_mgr()->CleanupAll();
  }

  // A key for a tensor produced on task 1's CPU:0 and consumed on task 0's.
  Rendezvous::ParsedKey Key1To0(const std::string& name,
                                uint64_t incarnation_xor = 0) {
    return Rendezvous::ParsedKey::Parse(
               Rendezvous::CreateKey(t1.Cpu0(),
                                     t1.Incarnation() ^ incarnation_xor,
                                     t0.Cpu0(), name))
        .value();
  }
};

TEST_CASE("A tensor sent in task 1 is received in task 0 by RecvTensor") {
  Cluster c;
  const int64_t step = 100;
  auto key = c.Key1To0("edge_1_x");
  Tensor t = Tensor::FromVector<float>({1.5f, 2.5f});
  Received got;

  SECTION("receive first") {
    c.t0.Step(step)->RecvAsync(key, {}, got.Callback());
    CHECK_FALSE(got.done.HasBeenNotified());
    REQUIRE_OK(c.t1.Step(step)->Send(key, {}, t, false));
  }
  SECTION("send first") {
    REQUIRE_OK(c.t1.Step(step)->Send(key, {}, t, false));
    c.t0.Step(step)->RecvAsync(key, {}, got.Callback());
  }
  REQUIRE(got.Wait());
  REQUIRE_OK(got.status);
  CHECK(got.value.SharesBufferWith(t));  // in-process: no copy
  CHECK_FALSE(got.is_dead);

  // Task 0 asked task 1 exactly once, for this step and key.
  std::vector<RecvTensorRequest> requests = c.t1.wi()->requests();
  REQUIRE(requests.size() == 1);
  CHECK(requests[0].step_id() == step);
  CHECK(requests[0].rendezvous_key() == key.FullKey());
  CHECK(requests[0].request_id() > 0);
  CHECK(c.t0.wi()->requests().empty());
}

TEST_CASE("Each fetch carries its own request id") {
  Cluster c;
  auto a = c.Key1To0("a");
  auto b = c.Key1To0("b");
  REQUIRE_OK(c.t1.Step(5)->Send(a, {}, Tensor::Scalar<int32_t>(1), false));
  REQUIRE_OK(c.t1.Step(5)->Send(b, {}, Tensor::Scalar<int32_t>(2), false));
  Received got_a, got_b;
  c.t0.Step(5)->RecvAsync(a, {}, got_a.Callback());
  c.t0.Step(5)->RecvAsync(b, {}, got_b.Callback());
  REQUIRE(got_a.Wait());
  REQUIRE(got_b.Wait());
  REQUIRE_OK(got_a.status);
  REQUIRE_OK(got_b.status);
  CHECK(got_a.value.scalar<int32_t>() == 1);
  CHECK(got_b.value.scalar<int32_t>() == 2);
  std::vector<RecvTensorRequest> requests = c.t1.wi()->requests();
  REQUIRE(requests.size() == 2);
  CHECK(requests[0].request_id() != requests[1].request_id());
}

TEST_CASE("A fetch with a stale incarnation fails with Aborted") {
  Cluster c;
  Received got;
  c.t0.Step(7)->RecvAsync(c.Key1To0("edge_2_y", 1), {}, got.Callback());
  REQUIRE(got.Wait());
  CHECK_THAT(got.status,
             StatusIs(absl::StatusCode::kAborted,
                      absl::StrCat("RecvTensor from task ", kTask1, ": ")));
  CHECK_THAT(got.status, StatusIs(absl::StatusCode::kAborted,
                                  "expects a different device incarnation"));
}

TEST_CASE("Ending the step in task 0 cancels its pending fetch") {
  Cluster c;
  const int64_t step = 200;
  auto key = c.Key1To0("never_sent");
  Received got;
  c.t0.Step(step)->RecvAsync(key, {}, got.Callback());
  // The fetch waits in task 1 for a _Send that never comes.
  REQUIRE(c.t1.wi()->requests().size() == 1);
  CHECK(c.t1.wi()->NumResults() == 0);
  CHECK_FALSE(got.done.HasBeenNotified());
  size_t remote_calls = 1;

  SECTION("CleanupGraph") {
    REQUIRE_OK(c.t0.CleanupGraph(step));
    REQUIRE(got.Wait());
    CHECK_THAT(got.status,
               StatusIs(absl::StatusCode::kCancelled, "step 200 cleaned up"));
  }
  SECTION("StartAbort") {
    c.t0.Step(step)->StartAbort(absl::AbortedError("task 0 failed"));
    REQUIRE(got.Wait());
    CHECK_THAT(got.status,
               StatusIs(absl::StatusCode::kAborted, "task 0 failed"));
  }
  SECTION("the receive's cancellation manager") {
    // A second receive, cancelled on its own; the first keeps waiting.
    CancellationManager cm;
    Rendezvous::Args args;
    args.cancellation_manager = &cm;
    Received cancelled;
    c.t0.Step(step)->RecvAsync(c.Key1To0("also_never"), args,
                               cancelled.Callback());
    REQUIRE(c.t1.wi()->requests().size() == 2);
    remote_calls = 2;
    cm.StartCancel();
    REQUIRE(cancelled.Wait());
    CHECK_THAT(cancelled.status, StatusIs(absl::StatusCode::kCancelled));
    CHECK_THAT(c.t1.wi()->WaitResult(0),
               StatusIs(absl::StatusCode::kCancelled));
    CHECK_FALSE(got.done.HasBeenNotified());
    REQUIRE_OK(c.t0.CleanupGraph(step));
    REQUIRE(got.Wait());
    CHECK_THAT(got.status, StatusIs(absl::StatusCode::kCancelled));
  }
  // Task 1's RecvTensor was cancelled too: it does not wait for its step's
  // end or a deadline.
  CHECK_THAT(c.t1.wi()->WaitResult(remote_calls - 1),
             StatusIs(absl::StatusCode::kCancelled));
}

TEST_CASE("A fetch from a task missing from the worker cache fails") {
  Cluster c;
  const std::string task7 = "/job:worker/replica:0/task:7";
  auto key = Rendezvous::ParsedKey::Parse(
                 Rendezvous::CreateKey(absl::StrCat(task7, "/device:CPU:0"), 1,
                                       c.t0.Cpu0(), "edge_3_z"))
                 .value();
  Received got;
  c.t0.Step(9)->RecvAsync(key, {}, got.Callback());
  REQUIRE(got.Wait());
  CHECK_THAT(got.status, StatusIs(absl::StatusCode::kNotFound, task7));
  CHECK_THAT(got.status, StatusIs(absl::StatusCode::kNotFound, "worker cache"));
}

TEST_CASE("A dead task's fetch fails with Unavailable naming the task") {
  Cluster c;
  const std::string task2 = "/job:worker/replica:0/task:2";
  // Reuses task 1's worker only as the object behind the dead connection.
  DeadWorker dead(c.t1.wi()->worker());
  StaticWorkerCache cache;
  cache.AddWorker(task2, &dead);
  WorkerCacheFetcher fetcher(&cache);
  RemoteRendezvous r(3, kTask0, &fetcher);
  auto key = Rendezvous::ParsedKey::Parse(
                 Rendezvous::CreateKey(absl::StrCat(task2, "/device:CPU:0"), 1,
                                       c.t0.Cpu0(), "edge_4_w"))
                 .value();
  Received got;
  r.RecvAsync(key, {}, got.Callback());
  REQUIRE(got.Wait());
  CHECK_THAT(got.status, StatusIs(absl::StatusCode::kUnavailable,
                                  absl::StrCat("RecvTensor from task ", task2,
                                               ": connection refused")));
}

TEST_CASE("Task 0 rejects sending a tensor that lives in task 1") {
  Cluster c;
  auto key = c.Key1To0("wrong_side");
  CHECK_THAT(c.t0.Step(1)->Send(key, {}, Tensor::Scalar<float>(1), false),
             StatusIs(absl::StatusCode::kInvalidArgument, key.FullKey()));
}

// Task 1: c = Const 3.5, sent to task 0 as edge_5_c.
std::string SenderPartition(const Cluster& c) {
  return absl::StrCat(R"pb(
    node {
      name: "c" op: "Const" device: ")pb", c.t1.Cpu0(), R"pb("
      attr { key: "dtype" value { type: DT_FLOAT } }
      attr { key: "value" value { tensor {
        dtype: DT_FLOAT tensor_shape {} float_val: 3.5 } } }
    }
    node {
      name: "s" op: "_Send" input: "c" device: ")pb", c.t1.Cpu0(), R"pb("
      attr { key: "T" value { type: DT_FLOAT } }
      attr { key: "tensor_name" value { s: "edge_5_c" } }
      attr { key: "send_device" value { s: ")pb", c.t1.Cpu0(), R"pb(" } }
      attr { key: "send_device_incarnation" value { i: )pb",
                      static_cast<int64_t>(c.t1.Incarnation()), R"pb( } }
      attr { key: "recv_device" value { s: ")pb", c.t0.Cpu0(), R"pb(" } }
    }
  )pb");
}

// Task 0: r = _Recv edge_5_c from task 1, y = r + r, fetched as "y:0" by a
// client-terminated _Send.
std::string ReceiverPartition(const Cluster& c) {
  return absl::StrCat(R"pb(
    node {
      name: "r" op: "_Recv" device: ")pb", c.t0.Cpu0(), R"pb("
      attr { key: "tensor_type" value { type: DT_FLOAT } }
      attr { key: "tensor_name" value { s: "edge_5_c" } }
      attr { key: "send_device" value { s: ")pb", c.t1.Cpu0(), R"pb(" } }
      attr { key: "send_device_incarnation" value { i: )pb",
                      static_cast<int64_t>(c.t1.Incarnation()), R"pb( } }
      attr { key: "recv_device" value { s: ")pb", c.t0.Cpu0(), R"pb(" } }
    }
    node {
      name: "y" op: "Add" input: "r" input: "r" device: ")pb", c.t0.Cpu0(),
                      R"pb("
      attr { key: "T" value { type: DT_FLOAT } }
    }
    node {
      name: "_send_y_0" op: "_Send" input: "y" device: ")pb", c.t0.Cpu0(),
                      R"pb("
      attr { key: "T" value { type: DT_FLOAT } }
      attr { key: "tensor_name" value { s: "y:0" } }
      attr { key: "send_device" value { s: ")pb", c.t0.Cpu0(), R"pb(" } }
      attr { key: "send_device_incarnation" value { i: )pb",
                      static_cast<int64_t>(c.t0.Incarnation()), R"pb( } }
      attr { key: "recv_device" value { s: ")pb", c.t0.Cpu0(), R"pb(" } }
      attr { key: "client_terminated" value { b: true } }
    }
  )pb");
}

GraphDef Parse(const std::string& text) {
  GraphDef def;
  INFO(text);
  REQUIRE(google::protobuf::TextFormat::ParseFromString(text, &def));
  return def;
}

TEST_CASE("A step over two tasks moves a tensor by RecvTensor") {
  Cluster c;
  auto sender = c.t1.Register(Parse(SenderPartition(c)));
  REQUIRE_OK(sender);
  auto receiver = c.t0.Register(Parse(ReceiverPartition(c)));
  REQUIRE_OK(receiver);

  const int64_t step = 300;
  const std::string fetch_key =
      Rendezvous::CreateKey(c.t0.Cpu0(), c.t0.Incarnation(), c.t0.Cpu0(),
                            "y:0");
  auto recv_call = worker_testing::TestWorker::MakeCall(*receiver, step, {},
                                                        {fetch_key});
  auto send_call = worker_testing::TestWorker::MakeCall(*sender, step, {}, {});
  Pending recv_ran, send_ran;
  // The receiving partition starts first: its _Recv's fetch waits in task 1.
  c.t0.wi()->RunGraphAsync(nullptr, recv_call.get(), recv_ran.Callback());
  c.t1.wi()->RunGraphAsync(nullptr, send_call.get(), send_ran.Callback());
  REQUIRE_OK(send_ran.Wait());
  REQUIRE_OK(recv_ran.Wait());
  REQUIRE(recv_call->recv.size() == 1);
  CHECK(recv_call->recv[0].first == fetch_key);
  CHECK(recv_call->recv[0].second.scalar<float>() == 7.0f);
  CHECK(c.t1.wi()->requests().size() == 1);
  REQUIRE_OK(c.t0.CleanupGraph(step));
  REQUIRE_OK(c.t1.CleanupGraph(step));
}

TEST_CASE("Cleaning up a step ends a partition waiting on another task") {
  Cluster c;
  auto receiver = c.t0.Register(Parse(ReceiverPartition(c)));
  REQUIRE_OK(receiver);
  const int64_t step = 301;
  auto call = worker_testing::TestWorker::MakeCall(*receiver, step, {}, {});
  Pending ran;
  c.t0.wi()->RunGraphAsync(nullptr, call.get(), ran.Callback());
  // Task 1 never runs its partition; the master gives up on the step once
  // task 0's _Recv is waiting on task 1.
  c.t1.wi()->WaitRequests(1);
  CHECK_FALSE(ran.Done());
  REQUIRE_OK(c.t0.CleanupGraph(step));
  CHECK_THAT(ran.Wait(), StatusIs(absl::StatusCode::kCancelled));
  CHECK_THAT(c.t1.wi()->WaitResult(0),
             StatusIs(absl::StatusCode::kCancelled));
}

}  // namespace
}  // namespace dfx

namespace dfx {
namespace {

TEST_CASE("RecvTensor serves only this task's rendezvous, whatever task the "
          "key names") {
  // A key that names task 0 but carries task 1's device and incarnation,
  // as a peer that knows task 1 by another name would send it: task 1
  // waits for it locally and never forwards the request to task 0.
  Cluster c;
  RecvTensorRequest request;
  request.set_step_id(21);
  request.set_rendezvous_key(Rendezvous::CreateKey(
      c.t0.Cpu0(), c.t1.Incarnation(), c.t0.Cpu0(), "edge_9_z"));
  RecvTensorResult result;
  CallOptions opts;
  opts.SetTimeout(absl::Milliseconds(200));
  Pending pending;
  c.t1.wi()->RecvTensorAsync(&opts, &request, &result, pending.Callback());
  CHECK_THAT(pending.Wait(), StatusIs(absl::StatusCode::kDeadlineExceeded));
  CHECK(c.t0.wi()->requests().empty());
}

}  // namespace
}  // namespace dfx
