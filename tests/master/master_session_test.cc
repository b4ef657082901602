// MasterSession against fake workers of two tasks: what it registers, what
// each RunGraph call carries, how the first error ends the step, and the
// clean-up calls. The fakes complete RunGraph only when the test says so.
#include "master/master_session.h"

#include <chrono>
#include <future>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "catch2/catch.hpp"
#include "google/protobuf/text_format.h"
#include "graph/ops/ops.h"
#include "kernels/kernels.h"
#include "runtime/timer.h"
#include "worker/worker_cache.h"
#include "tests/testing/status_matchers.h"

namespace dfx {
namespace {

using ::dfx::testing::StatusIs;

constexpr char kTask0[] = "/job:w/replica:0/task:0";
constexpr char kTask1[] = "/job:w/replica:0/task:1";
const absl::Duration kWait = absl::Seconds(60);

std::string Cpu0(const char* task) {
  return absl::StrCat(task, "/device:CPU:0");
}

// A worker that records every call. Control calls succeed at once;
// RunGraph waits for ReplyRunGraph, or for its cancellation (then it
// answers Cancelled, as a real worker does).
class FakeWorker : public WorkerInterface {
 public:
  struct RunGraphEntry {
    CallOptions* opts;
    RunGraphCall* call;  // valid until answered
    StatusCallback done;
    RunGraphCall seen;  // the request and feeds as they arrived
    bool answered = false;
    bool cancelled = false;
  };

  explicit FakeWorker(std::string task, uint64_t incarnation)
      : task_(std::move(task)) {
    device_.set_name(Cpu0(task_.c_str()));
    device_.set_device_type("CPU");
    device_.set_incarnation(incarnation);
  }

  const DeviceAttributes& device() const { return device_; }

  void GetStatusAsync(const GetStatusRequest*, GetStatusResponse* response,
                      StatusCallback done) override {
    *response->add_device_attributes() = device_;
    done(absl::OkStatus());
  }
  void CreateWorkerSessionAsync(const CreateWorkerSessionRequest* request,
                                CreateWorkerSessionResponse*,
                                StatusCallback done) override {
    {
      absl::MutexLock lock(&mu_);
      created_sessions_.push_back(request->session_handle());
    }
    done(absl::OkStatus());
  }
  void DeleteWorkerSessionAsync(const DeleteWorkerSessionRequest* request,
                                DeleteWorkerSessionResponse*,
                                StatusCallback done) override {
    {
      absl::MutexLock lock(&mu_);
      deleted_sessions_.push_back(request->session_handle());
    }
    done(absl::OkStatus());
  }
  void RegisterGraphAsync(const RegisterGraphRequest* request,
                          RegisterGraphResponse* response,
                          StatusCallback done) override {
    {
      absl::MutexLock lock(&mu_);
      registered_.push_back(request->graph_def());
      register_sessions_.push_back(request->session_handle());
      response->set_graph_handle(
          absl::StrCat(task_, "#g", registered_.size()));
      response->set_cleanup_in_run_graph(cleanup_in_run_graph_);
    }
    done(absl::OkStatus());
  }
  void DeregisterGraphAsync(const DeregisterGraphRequest*,
                            DeregisterGraphResponse*,
                            StatusCallback done) override {
    done(absl::OkStatus());
  }
  void RunGraphAsync(CallOptions* opts, RunGraphCall* call,
                     StatusCallback done) override {
    size_t index;
    {
      absl::MutexLock lock(&mu_);
      index = runs_.size();
      RunGraphCall seen;
      seen.request = call->request;
      seen.send = call->send;
      runs_.push_back({opts, call, std::move(done), std::move(seen)});
    }
    if (opts != nullptr) {
      opts->SetCancelCallback([this, index] {
        Answer(index, absl::CancelledError("RunGraph cancelled"), true);
      });
    }
  }
  void CleanupGraphAsync(const CleanupGraphRequest* request,
                         CleanupGraphResponse*,
                         StatusCallback done) override {
    {
      absl::MutexLock lock(&mu_);
      cleaned_steps_.push_back(request->step_id());
    }
    done(absl::OkStatus());
  }
  void CleanupAllAsync(const CleanupAllRequest*, CleanupAllResponse*,
                       StatusCallback done) override {
    done(absl::UnimplementedError("CleanupAll"));
  }
  void RecvTensorAsync(CallOptions*, const RecvTensorRequest*,
                       RecvTensorResult*, StatusCallback done) override {
    done(absl::UnimplementedError("RecvTensor"));
  }

  // Waits (bounded) until `n` RunGraph calls have arrived.
  bool WaitForRuns(size_t n) {
    absl::MutexLock lock(&mu_);
    return AwaitSize(&runs_, n);
  }
  // Fills the fetches of run `index` (each recv key gets `value`) and
  // answers it with `s`.
  void ReplyRunGraph(size_t index, const absl::Status& s,
                     const Tensor& value = Tensor()) {
    if (s.ok()) {
      RunGraphCall* call;
      {
        absl::MutexLock lock(&mu_);
        call = runs_[index].call;
      }
      for (const std::string& key : call->request.recv_key()) {
        call->recv.emplace_back(key, value);
      }
    }
    Answer(index, s, false);
  }

  // What run `index` carried when it arrived.
  RunGraphCall Run(size_t index) {
    absl::MutexLock lock(&mu_);
    return runs_[index].seen;
  }
  // Whether run `index` was cancelled, waiting (bounded) for it: the
  // master may answer its caller as soon as the first call was cancelled,
  // before its other calls' cancellations have run.
  bool Cancelled(size_t index) {
    absl::MutexLock lock(&mu_);
    const auto cancelled = [this, index]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(
                               mu_) { return runs_[index].cancelled; };
    return mu_.AwaitWithTimeout(absl::Condition(&cancelled), kWait);
  }
  size_t NumRuns() {
    absl::MutexLock lock(&mu_);
    return runs_.size();
  }
  std::vector<GraphDef> Registered() {
    absl::MutexLock lock(&mu_);
    return registered_;
  }
  std::vector<std::string> RegisterSessions() {
    absl::MutexLock lock(&mu_);
    return register_sessions_;
  }
  std::vector<std::string> CreatedSessions() {
    absl::MutexLock lock(&mu_);
    return created_sessions_;
  }
  std::vector<std::string> DeletedSessions() {
    absl::MutexLock lock(&mu_);
    return deleted_sessions_;
  }
  std::vector<int64_t> CleanedSteps() {
    absl::MutexLock lock(&mu_);
    return cleaned_steps_;
  }
  // Waits (bounded) until CleanupGraph has come for `n` steps.
  bool WaitForCleanups(size_t n) {
    absl::MutexLock lock(&mu_);
    return AwaitSize(&cleaned_steps_, n);
  }
  // Says in RegisterGraphResponse that it takes cleanups with RunGraph.
  void set_cleanup_in_run_graph(bool b) {
    absl::MutexLock lock(&mu_);
    cleanup_in_run_graph_ = b;
  }

 private:
  // Waits (bounded) until `*v`, guarded by mu_, holds `n` entries.
  template <typename V>
  bool AwaitSize(const V* v, size_t n) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    struct Arg {
      const V* v;
      size_t n;
    } arg{v, n};
    return mu_.AwaitWithTimeout(
        absl::Condition(+[](Arg* a) { return a->v->size() >= a->n; }, &arg),
        kWait);
  }

  void Answer(size_t index, const absl::Status& s, bool cancelled) {
    StatusCallback done;
    {
      absl::MutexLock lock(&mu_);
      RunGraphEntry& e = runs_[index];
      if (e.answered) return;
      e.answered = true;
      e.cancelled = cancelled;
      done = std::move(e.done);
    }
    done(s);
  }

  const std::string task_;
  DeviceAttributes device_;
  absl::Mutex mu_;
  std::vector<RunGraphEntry> runs_ ABSL_GUARDED_BY(mu_);
  std::vector<GraphDef> registered_ ABSL_GUARDED_BY(mu_);
  std::vector<std::string> register_sessions_ ABSL_GUARDED_BY(mu_);
  std::vector<std::string> created_sessions_ ABSL_GUARDED_BY(mu_);
  std::vector<std::string> deleted_sessions_ ABSL_GUARDED_BY(mu_);
  std::vector<int64_t> cleaned_steps_ ABSL_GUARDED_BY(mu_);
  bool cleanup_in_run_graph_ ABSL_GUARDED_BY(mu_) = false;
};

// x (fed) and y = Neg(x) on task 1; z = Identity(y) and k on task 0 (the
// client's task).
const char* kTwoTaskGraph = R"pb(
  node {
    name: "x"
    op: "Placeholder"
    device: "/job:w/replica:0/task:1"
    attr { key: "dtype" value { type: DT_FLOAT } }
  }
  node {
    name: "y"
    op: "Neg"
    input: "x"
    device: "/job:w/replica:0/task:1"
    attr { key: "T" value { type: DT_FLOAT } }
  }
  node {
    name: "z"
    op: "Identity"
    input: "y"
    device: "/job:w/replica:0/task:0"
    attr { key: "T" value { type: DT_FLOAT } }
  }
)pb";

struct Cluster {
  FakeWorker w0{kTask0, 0x1111};
  FakeWorker w1{kTask1, 0x2222};
  StaticWorkerCache cache;
  Timer timer;
  std::unique_ptr<MasterSession> session;

  // With `cleanup_delay`, the session holds finished steps' cleanups for
  // workers that take them with RunGraph (both fakes then say they do).
  explicit Cluster(const SessionOptions& options = {},
                   const char* graph = kTwoTaskGraph,
                   std::optional<absl::Duration> cleanup_delay = {}) {
    cache.AddWorker(kTask0, &w0);
    cache.AddWorker(kTask1, &w1);
    MasterSession::Params params;
    if (cleanup_delay.has_value()) {
      params.timer = &timer;
      params.cleanup_delay = *cleanup_delay;
      w0.set_cleanup_in_run_graph(true);
      w1.set_cleanup_in_run_graph(true);
    }
    params.options = options;
    params.devices = {w0.device(), w1.device()};
    params.worker_cache = &cache;
    params.client_device = Cpu0(kTask0);
    params.ops = OpRegistry::Global();
    params.kernels = StandardKernelRegistry();
    auto s = MasterSession::Create(std::move(params));
    DFX_CHECK_OK(s.status());
    session = std::move(s).value();
    GraphDef def;
    DFX_CHECK(google::protobuf::TextFormat::ParseFromString(graph, &def));
    DFX_CHECK_OK(session->Extend(def));
  }
  ~Cluster() { session.reset(); }  // before the workers
};

// Runs z with x fed, asynchronously.
std::future<absl::Status> RunZ(MasterSession* session,
                               std::vector<Tensor>* out,
                               const RunOptions& options = {}) {
  return std::async(std::launch::async, [=] {
    return session->Run(options, {{"x", Tensor::FromVector<float>({3})}},
                        {"z"}, {}, out, nullptr);
  });
}

absl::Status Await(std::future<absl::Status>& f) {
  REQUIRE(f.wait_for(std::chrono::seconds(60)) == std::future_status::ready);
  return f.get();
}

const NodeDef* FindNodeDef(const GraphDef& def, absl::string_view name) {
  for (const NodeDef& n : def.node()) {
    if (n.name() == name) return &n;
  }
  return nullptr;
}

bool HasNode(const GraphDef& def, absl::string_view name) {
  return FindNodeDef(def, name) != nullptr;
}

TEST_CASE("MasterSession rejects a client device outside the cluster") {
  FakeWorker w0(kTask0, 1);
  StaticWorkerCache cache;
  cache.AddWorker(kTask0, &w0);
  MasterSession::Params params;
  params.devices = {w0.device()};
  params.worker_cache = &cache;
  params.client_device = "/job:w/replica:0/task:0/device:CPU:7";
  params.ops = OpRegistry::Global();
  params.kernels = StandardKernelRegistry();
  CHECK_THAT(MasterSession::Create(params).status(),
             StatusIs(absl::StatusCode::kInvalidArgument, "CPU:7"));
  params.client_device = Cpu0(kTask0);
  params.devices.push_back(FakeWorker(kTask1, 2).device());
  CHECK_THAT(MasterSession::Create(params).status(),
             StatusIs(absl::StatusCode::kInvalidArgument, kTask1));
}

TEST_CASE("a step registers each partition once and feeds only the "
          "partition holding the feed's _Recv") {
  Cluster c;
  const std::string handle = c.session->handle();
  CHECK(handle.size() == 16);
  CHECK(handle.find_first_not_of("0123456789abcdef") == std::string::npos);

  std::vector<Tensor> out;
  auto run = RunZ(c.session.get(), &out);
  REQUIRE(c.w0.WaitForRuns(1));
  REQUIRE(c.w1.WaitForRuns(1));
  // One worker session each, under the session's handle.
  CHECK(c.w0.CreatedSessions() == std::vector<std::string>{handle});
  CHECK(c.w1.CreatedSessions() == std::vector<std::string>{handle});
  // Task 1 holds x's consumer y; the client endpoints are on task 0.
  REQUIRE(c.w0.Registered().size() == 1);
  REQUIRE(c.w1.Registered().size() == 1);
  CHECK(HasNode(c.w0.Registered()[0], "_recv_x_0"));
  CHECK(HasNode(c.w0.Registered()[0], "_send_z_0"));
  CHECK(HasNode(c.w1.Registered()[0], "y"));
  CHECK_FALSE(HasNode(c.w1.Registered()[0], "_recv_x_0"));

  const RunGraphCall r0 = c.w0.Run(0);
  const RunGraphCall r1 = c.w1.Run(0);
  CHECK(r0.request.session_handle() == handle);
  CHECK(r0.request.create_worker_session_called());
  CHECK(r0.request.step_id() >= 0);
  CHECK(r0.request.step_id() == r1.request.step_id());
  REQUIRE(r0.send.size() == 1);
  CHECK(absl::StrContains(r0.send[0].first, ";x:0;0:0"));
  CHECK(r0.send[0].second.span<float>()[0] == 3.0f);
  REQUIRE(r0.request.recv_key_size() == 1);
  CHECK(absl::StrContains(r0.request.recv_key(0), ";z:0;0:0"));
  CHECK(r1.send.empty());
  CHECK(r1.request.recv_key_size() == 0);

  c.w1.ReplyRunGraph(0, absl::OkStatus());
  c.w0.ReplyRunGraph(0, absl::OkStatus(), Tensor::FromVector<float>({-3}));
  REQUIRE_OK(Await(run));
  REQUIRE(out.size() == 1);
  CHECK(out[0].span<float>()[0] == -3.0f);
  // Both workers were told to clean the step up.
  CHECK(c.w0.CleanedSteps() == std::vector<int64_t>{r0.request.step_id()});
  CHECK(c.w1.CleanedSteps() == std::vector<int64_t>{r0.request.step_id()});

  // The same signature again: no new registration, a new step id.
  auto again = RunZ(c.session.get(), &out);
  REQUIRE(c.w0.WaitForRuns(2));
  REQUIRE(c.w1.WaitForRuns(2));
  CHECK(c.w0.Registered().size() == 1);
  CHECK(c.w1.Registered().size() == 1);
  CHECK(c.w0.Run(1).request.step_id() != r0.request.step_id());
  CHECK(c.w0.Run(1).request.graph_handle() == r0.request.graph_handle());
  c.w0.ReplyRunGraph(1, absl::OkStatus(), Tensor::FromVector<float>({-3}));
  c.w1.ReplyRunGraph(1, absl::OkStatus());
  REQUIRE_OK(Await(again));

  REQUIRE_OK(c.session->Close());
  CHECK(c.w0.DeletedSessions() == std::vector<std::string>{handle});
  CHECK(c.w1.DeletedSessions() == std::vector<std::string>{handle});
}

TEST_CASE("the first error cancels the other partitions and is returned "
          "with its task") {
  Cluster c;
  std::vector<Tensor> out;
  auto run = RunZ(c.session.get(), &out);
  REQUIRE(c.w0.WaitForRuns(1));
  REQUIRE(c.w1.WaitForRuns(1));
  c.w1.ReplyRunGraph(0, absl::InvalidArgumentError("node 'y' (op Neg): boom"));
  // Task 0's call was cancelled by the master (the fake answers Cancelled,
  // which must not replace the root cause).
  CHECK_THAT(Await(run),
             StatusIs(absl::StatusCode::kInvalidArgument,
                      "task /job:w/replica:0/task:1: node 'y' (op Neg): boom"));
  CHECK(c.w0.Cancelled(0));
  const int64_t step = c.w0.Run(0).request.step_id();
  CHECK(c.w0.CleanedSteps() == std::vector<int64_t>{step});
  CHECK(c.w1.CleanedSteps() == std::vector<int64_t>{step});
}

TEST_CASE("a step past its deadline cancels every partition") {
  Cluster c;
  std::vector<Tensor> out;
  RunOptions options;
  options.set_timeout_in_ms(30);
  auto run = RunZ(c.session.get(), &out, options);
  REQUIRE(c.w0.WaitForRuns(1));
  REQUIRE(c.w1.WaitForRuns(1));
  // Nobody answers: the deadline cancels both calls.
  CHECK_THAT(Await(run), StatusIs(absl::StatusCode::kDeadlineExceeded));
  CHECK(c.w0.Cancelled(0));
  CHECK(c.w1.Cancelled(0));
}

TEST_CASE("Close cancels a running step and later calls are Cancelled") {
  Cluster c;
  std::vector<Tensor> out;
  auto run = RunZ(c.session.get(), &out);
  REQUIRE(c.w0.WaitForRuns(1));
  REQUIRE(c.w1.WaitForRuns(1));
  REQUIRE_OK(c.session->Close());
  CHECK_THAT(Await(run), StatusIs(absl::StatusCode::kCancelled));
  CHECK(c.w0.Cancelled(0));
  CHECK(c.w1.Cancelled(0));
  CHECK_THAT(c.session->Run(RunOptions(), {}, {"z"}, {}, &out, nullptr),
             StatusIs(absl::StatusCode::kCancelled));
  CHECK_THAT(c.session->Extend(GraphDef()),
             StatusIs(absl::StatusCode::kCancelled));
  CHECK_THAT(c.session->ListDevices().status(),
             StatusIs(absl::StatusCode::kCancelled));
}

// Runs a step of z (kTwoTaskGraph): answers task 1's RunGraph call (its
// `index`th) with `s1`, then task 0's with success unless `s1` is an error
// (which cancels task 0's call, answered by the fake then); returns the
// step's status and its id.
std::pair<absl::Status, int64_t> StepZ(Cluster& c, size_t index,
                                       const absl::Status& s1) {
  std::vector<Tensor> out;
  auto run = RunZ(c.session.get(), &out);
  REQUIRE(c.w0.WaitForRuns(index + 1));
  REQUIRE(c.w1.WaitForRuns(index + 1));
  c.w1.ReplyRunGraph(index, s1);
  if (s1.ok()) {
    c.w0.ReplyRunGraph(index, absl::OkStatus(),
                       Tensor::FromVector<float>({-3}));
  }
  absl::Status s = Await(run);
  return {s, c.w0.Run(index).request.step_id()};
}

TEST_CASE("a finished step's CleanupGraph rides with the worker's next "
          "RunGraph") {
  // Never sent alone within the test.
  Cluster c({}, kTwoTaskGraph, absl::Hours(1));
  auto [s1, step1] = StepZ(c, 0, absl::OkStatus());
  REQUIRE_OK(s1);
  CHECK(c.w0.CleanedSteps().empty());
  CHECK(c.w1.CleanedSteps().empty());
  CHECK(c.w0.Run(0).request.cleanup_step_id_size() == 0);

  auto [s2, step2] = StepZ(c, 1, absl::OkStatus());
  REQUIRE_OK(s2);
  for (FakeWorker* w : {&c.w0, &c.w1}) {
    const RunGraphRequest& r = w->Run(1).request;
    CHECK(std::vector<int64_t>(r.cleanup_step_id().begin(),
                               r.cleanup_step_id().end()) ==
          std::vector<int64_t>{step1});
    CHECK(w->CleanedSteps().empty());
  }

  SECTION("a failed step is cleaned up at once, and so is what its failed "
          "calls carried") {
    auto [s3, step3] = StepZ(c, 2, absl::InternalError("boom"));
    CHECK_THAT(s3, StatusIs(absl::StatusCode::kInternal));
    // Both calls carried step 2's cleanup and failed (task 0's was
    // cancelled by task 1's error): sent again, then step 3's.
    CHECK(c.w1.CleanedSteps() == std::vector<int64_t>{step2, step3});
    CHECK(c.w0.CleanedSteps() == std::vector<int64_t>{step2, step3});
  }
  SECTION("Close sends what is held") {
    REQUIRE_OK(c.session->Close());
    CHECK(c.w0.CleanedSteps() == std::vector<int64_t>{step2});
    CHECK(c.w1.CleanedSteps() == std::vector<int64_t>{step2});
  }
}

TEST_CASE("a held CleanupGraph goes alone when no RunGraph takes it in "
          "time") {
  Cluster c({}, kTwoTaskGraph, absl::Milliseconds(20));
  auto [s1, step1] = StepZ(c, 0, absl::OkStatus());
  REQUIRE_OK(s1);
  REQUIRE(c.w0.WaitForCleanups(1));
  REQUIRE(c.w1.WaitForCleanups(1));
  CHECK(c.w0.CleanedSteps() == std::vector<int64_t>{step1});
  CHECK(c.w1.CleanedSteps() == std::vector<int64_t>{step1});
}

TEST_CASE("StepCleanups sends at once past its cap per worker, and after "
          "Close") {
  Timer timer;
  FakeWorker w(kTask1, 1);
  std::vector<int64_t> sent;
  auto cleanups = StepCleanups::Create(
      &timer, absl::Hours(1),
      [&](WorkerInterface* worker, int64_t step) {
        CHECK(worker == &w);
        sent.push_back(step);
      });
  const int64_t cap = StepCleanups::kMaxHeldPerWorker;
  for (int64_t step = 0; step <= cap; ++step) cleanups->Hold(&w, step);
  CHECK(sent == std::vector<int64_t>{cap});
  CHECK(cleanups->NumHeld() == static_cast<size_t>(cap));
  const std::vector<int64_t> taken = cleanups->Take(&w);
  REQUIRE(taken.size() == static_cast<size_t>(cap));
  CHECK(taken.front() == 0);
  CHECK(taken.back() == cap - 1);
  CHECK(cleanups->Take(&w).empty());
  CHECK(cleanups->NumHeld() == 0);
  cleanups->Hold(&w, 1000);
  cleanups->Close();
  cleanups->Hold(&w, 1001);
  CHECK(sent == std::vector<int64_t>{cap, 1000, 1001});
  CHECK(cleanups->NumHeld() == 0);
}

// x: a fed scalar Placeholder (shape []) on task 0, read by y = Neg(x) on
// task 1; big: a fed [20000] float Placeholder (80,000 bytes) read by
// Neg on task 1 too; z = Identity(y) on task 0, after neg_big.
const char* kSmallAndBigFeedGraph = R"pb(
  node {
    name: "x"
    op: "Placeholder"
    device: "/job:w/replica:0/task:0"
    attr { key: "dtype" value { type: DT_FLOAT } }
    attr { key: "shape" value { shape {} } }
  }
  node {
    name: "big"
    op: "Placeholder"
    device: "/job:w/replica:0/task:0"
    attr { key: "dtype" value { type: DT_FLOAT } }
    attr { key: "shape" value { shape { dim { size: 20000 } } } }
  }
  node {
    name: "y"
    op: "Neg"
    input: "x"
    device: "/job:w/replica:0/task:1"
    attr { key: "T" value { type: DT_FLOAT } }
  }
  node {
    name: "neg_big"
    op: "Neg"
    input: "big"
    device: "/job:w/replica:0/task:1"
    attr { key: "T" value { type: DT_FLOAT } }
  }
  node {
    name: "z"
    op: "Identity"
    input: "y"
    input: "^neg_big"
    device: "/job:w/replica:0/task:0"
    attr { key: "T" value { type: DT_FLOAT } }
  }
)pb";

TEST_CASE("a small fed tensor read on another task goes with that task's "
          "RunGraph") {
  Cluster c({}, kSmallAndBigFeedGraph);
  std::vector<Tensor> out;
  auto run = std::async(std::launch::async, [&] {
    return c.session->Run(
        RunOptions(),
        {{"x", Tensor::Scalar<float>(3)},
         {"big", Tensor::FromVector<float>(std::vector<float>(20000, 1))}},
        {"z"}, {}, &out, nullptr);
  });
  REQUIRE(c.w0.WaitForRuns(1));
  REQUIRE(c.w1.WaitForRuns(1));
  REQUIRE(c.w0.Registered().size() == 1);
  REQUIRE(c.w1.Registered().size() == 1);
  const GraphDef g0 = c.w0.Registered()[0];
  const GraphDef g1 = c.w1.Registered()[0];
  // x's readers are all on task 1: its client _Recv moved there, with
  // task 1's device as both ends.
  CHECK_FALSE(HasNode(g0, "_recv_x_0"));
  const NodeDef* fwd = FindNodeDef(g1, "_recv_x_0/w_0_1_CPU_0");
  REQUIRE(fwd != nullptr);
  CHECK(fwd->attr().at("client_terminated").b());
  CHECK(fwd->attr().at("send_device").s() == Cpu0(kTask1));
  CHECK(fwd->attr().at("recv_device").s() == Cpu0(kTask1));
  CHECK(fwd->attr().at("send_device_incarnation").i() == 0x2222);
  // big (80,000 bytes) still comes from the client's task.
  CHECK(HasNode(g0, "_recv_big_0"));
  CHECK_FALSE(HasNode(g1, "_recv_big_0"));

  const RunGraphCall r0 = c.w0.Run(0);
  const RunGraphCall r1 = c.w1.Run(0);
  REQUIRE(r1.send.size() == 1);
  CHECK(r1.send[0].first ==
        absl::StrCat(Cpu0(kTask1), ";0000000000002222;", Cpu0(kTask1),
                     ";x:0;0:0"));
  CHECK(r1.send[0].second.span<float>()[0] == 3.0f);
  REQUIRE(r0.send.size() == 1);
  CHECK(absl::StrContains(r0.send[0].first, ";big:0;0:0"));

  c.w1.ReplyRunGraph(0, absl::OkStatus());
  c.w0.ReplyRunGraph(0, absl::OkStatus(), Tensor::FromVector<float>({-3}));
  REQUIRE_OK(Await(run));
}

}  // namespace
}  // namespace dfx
