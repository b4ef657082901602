// Master over in-process workers of several tasks (and fakes that never
// answer): device discovery, the session table (handles, graph versions,
// close, reset, idle GC), device filters and shutdown.
#include "master/master.h"

#include <atomic>
#include <chrono>
#include <future>
#include <map>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "catch2/catch.hpp"
#include "google/protobuf/text_format.h"
#include "rendezvous/rendezvous_mgr.h"
#include "runtime/device.h"
#include "runtime/thread_pool.h"
#include "tests/master/session_test_util.h"
#include "tests/testing/status_matchers.h"
#include "worker/local_worker.h"
#include "worker/worker.h"
#include "worker/worker_cache.h"

namespace dfx {
namespace {

using ::dfx::testing::BlockUntilCancelledOp;
using ::dfx::testing::Registries;
using ::dfx::testing::StatusIs;

constexpr char kWorker0[] = "/job:worker/replica:0/task:0";
constexpr char kWorker1[] = "/job:worker/replica:0/task:1";
constexpr char kPs[] = "/job:ps/replica:0/task:0";
const absl::Duration kWait = absl::Seconds(60);

std::string Cpu(const char* task, int i = 0) {
  return absl::StrCat(task, "/device:CPU:", i);
}

// Forwards to a worker and counts the calls the master makes per kind.
class CountingWorker : public WorkerInterface {
 public:
  explicit CountingWorker(WorkerInterface* base) : base_(base) {}

  int get_status() const { return get_status_.load(); }
  int cleanup_all() const { return cleanup_all_.load(); }

  // The next `n` GetStatus calls fail with Unavailable, as calls on a gRPC
  // channel in reconnect backoff do.
  void FailNextGetStatus(int n) { get_status_failures_.store(n); }

  void GetStatusAsync(const GetStatusRequest* request,
                      GetStatusResponse* response,
                      StatusCallback done) override {
    get_status_.fetch_add(1);
    if (get_status_failures_.fetch_sub(1) > 0) {
      done(absl::UnavailableError("connections to the task are backing off"));
      return;
    }
    base_->GetStatusAsync(request, response, std::move(done));
  }
  void CreateWorkerSessionAsync(const CreateWorkerSessionRequest* request,
                                CreateWorkerSessionResponse* response,
                                StatusCallback done) override {
    base_->CreateWorkerSessionAsync(request, response, std::move(done));
  }
  void DeleteWorkerSessionAsync(const DeleteWorkerSessionRequest* request,
                                DeleteWorkerSessionResponse* response,
                                StatusCallback done) override {
    base_->DeleteWorkerSessionAsync(request, response, std::move(done));
  }
  void RegisterGraphAsync(const RegisterGraphRequest* request,
                          RegisterGraphResponse* response,
                          StatusCallback done) override {
    base_->RegisterGraphAsync(request, response, std::move(done));
  }
  void DeregisterGraphAsync(const DeregisterGraphRequest* request,
                            DeregisterGraphResponse* response,
                            StatusCallback done) override {
    base_->DeregisterGraphAsync(request, response, std::move(done));
  }
  void RunGraphAsync(CallOptions* opts, RunGraphCall* call,
                     StatusCallback done) override {
    base_->RunGraphAsync(opts, call, std::move(done));
  }
  void CleanupGraphAsync(const CleanupGraphRequest* request,
                         CleanupGraphResponse* response,
                         StatusCallback done) override {
    base_->CleanupGraphAsync(request, response, std::move(done));
  }
  void CleanupAllAsync(const CleanupAllRequest* request,
                       CleanupAllResponse* response,
                       StatusCallback done) override {
    cleanup_all_.fetch_add(1);
    base_->CleanupAllAsync(request, response, std::move(done));
  }
  void RecvTensorAsync(CallOptions* opts, const RecvTensorRequest* request,
                       RecvTensorResult* response,
                       StatusCallback done) override {
    base_->RecvTensorAsync(opts, request, response, std::move(done));
  }

 private:
  WorkerInterface* const base_;
  std::atomic<int> get_status_{0};
  std::atomic<int> cleanup_all_{0};
  std::atomic<int> get_status_failures_{0};
};

// A worker that never answers GetStatus until Release() (or its
// destruction, which answers Cancelled); every other call is Unimplemented.
class SilentWorker : public WorkerInterface {
 public:
  ~SilentWorker() override { Release(); }

  void Release() {
    std::vector<StatusCallback> pending;
    {
      absl::MutexLock lock(&mu_);
      pending.swap(pending_);
    }
    for (StatusCallback& done : pending) {
      done(absl::CancelledError("silent worker released"));
    }
  }

  void GetStatusAsync(const GetStatusRequest*, GetStatusResponse*,
                      StatusCallback done) override {
    absl::MutexLock lock(&mu_);
    pending_.push_back(std::move(done));
  }
  void CreateWorkerSessionAsync(const CreateWorkerSessionRequest*,
                                CreateWorkerSessionResponse*,
                                StatusCallback done) override {
    done(absl::UnimplementedError("silent"));
  }
  void DeleteWorkerSessionAsync(const DeleteWorkerSessionRequest*,
                                DeleteWorkerSessionResponse*,
                                StatusCallback done) override {
    done(absl::UnimplementedError("silent"));
  }
  void RegisterGraphAsync(const RegisterGraphRequest*, RegisterGraphResponse*,
                          StatusCallback done) override {
    done(absl::UnimplementedError("silent"));
  }
  void DeregisterGraphAsync(const DeregisterGraphRequest*,
                            DeregisterGraphResponse*,
                            StatusCallback done) override {
    done(absl::UnimplementedError("silent"));
  }
  void RunGraphAsync(CallOptions*, RunGraphCall*,
                     StatusCallback done) override {
    done(absl::UnimplementedError("silent"));
  }
  void CleanupGraphAsync(const CleanupGraphRequest*, CleanupGraphResponse*,
                         StatusCallback done) override {
    done(absl::UnimplementedError("silent"));
  }
  void CleanupAllAsync(const CleanupAllRequest*, CleanupAllResponse*,
                       StatusCallback done) override {
    done(absl::UnimplementedError("silent"));
  }
  void RecvTensorAsync(CallOptions*, const RecvTensorRequest*,
                       RecvTensorResult*, StatusCallback done) override {
    done(absl::UnimplementedError("silent"));
  }

 private:
  absl::Mutex mu_;
  std::vector<StatusCallback> pending_ ABSL_GUARDED_BY(mu_);
};

// One task: its CPU devices, a Worker and its LocalWorker (counted).
class TestTask {
 public:
  // `device_task`: the task the devices call themselves (default `task`).
  TestTask(const std::string& task, RendezvousMgr* rendezvous_mgr,
           int num_devices, const std::string& device_task) {
    CpuDeviceOptions options;
    options.task_name = device_task.empty() ? task : device_task;
    options.num_devices = num_devices;
    options.intra_op_threads = 1;
    auto devices = DeviceMgr::NewCpu(options);
    REQUIRE_OK(devices);
    devices_ = std::move(devices).value();
    pool_ = std::make_unique<ThreadPool>("master_test", 2);
    WorkerEnv env;
    env.device_mgr = devices_.get();
    env.rendezvous_mgr = rendezvous_mgr;
    env.compute_pool = pool_.get();
    env.ops = &Registries()->ops;
    env.kernels = &Registries()->kernels;
    worker_ = std::make_unique<Worker>(env);
    local_ = std::make_unique<LocalWorker>(worker_.get());
    counting_ = std::make_unique<CountingWorker>(local_.get());
  }
  ~TestTask() {
    // Closures still unwinding on the pool finish before the worker goes.
    pool_.reset();
    counting_.reset();
    local_.reset();
    worker_.reset();
    devices_.reset();
  }

  CountingWorker* wi() { return counting_.get(); }

 private:
  std::unique_ptr<DeviceMgr> devices_;
  std::unique_ptr<ThreadPool> pool_;
  std::unique_ptr<Worker> worker_;
  std::unique_ptr<LocalWorker> local_;
  std::unique_ptr<CountingWorker> counting_;
};

// A cluster of in-process tasks and a master on kWorker0. The tasks share
// one RendezvousMgr: a step's partitions on different tasks meet in one
// rendezvous, as if the tasks were one process.
class TestCluster {
 public:
  TestCluster& AddTask(const std::string& task, int num_devices = 1,
                       const std::string& device_task = "") {
    tasks_[task] = std::make_unique<TestTask>(task, &rendezvous_mgr_,
                                              num_devices, device_task);
    cache_.AddWorker(task, tasks_[task]->wi());
    return *this;
  }
  TestCluster& AddSilentTask(const std::string& task) {
    cache_.AddWorker(task, &silent_);
    return *this;
  }
  Master* Start(absl::Duration discovery_timeout = absl::Seconds(30),
                absl::Duration gc_idle = absl::Hours(1),
                bool optimize_graphs = true) {
    MasterEnv env;
    env.optimize_graphs = optimize_graphs;
    env.worker_cache = &cache_;
    env.local_task = kWorker0;
    env.ops = &Registries()->ops;
    env.kernels = &Registries()->kernels;
    env.discovery_timeout = discovery_timeout;
    env.session_gc_idle = gc_idle;
    master_ = std::make_unique<Master>(env);
    return master_.get();
  }
  ~TestCluster() {
    master_.reset();
    silent_.Release();
    tasks_.clear();
  }

  CountingWorker* task(const std::string& name) { return tasks_[name]->wi(); }
  Master* master() { return master_.get(); }

 private:
  RendezvousMgr rendezvous_mgr_;
  SilentWorker silent_;
  std::map<std::string, std::unique_ptr<TestTask>> tasks_;
  StaticWorkerCache cache_;
  std::unique_ptr<Master> master_;
};

GraphDef Parse(const std::string& text) {
  GraphDef def;
  DFX_CHECK(google::protobuf::TextFormat::ParseFromString(text, &def));
  return def;
}

// Runs `f` on another thread and waits for it, bounded.
template <typename F>
auto Bounded(F&& f) {
  auto future = std::async(std::launch::async, std::forward<F>(f));
  REQUIRE(future.wait_for(std::chrono::seconds(60)) ==
          std::future_status::ready);
  return future.get();
}

absl::StatusOr<std::string> Create(Master* master, const GraphDef& graph,
                                   const ConfigProto& config = {}) {
  CreateSessionRequest request;
  *request.mutable_graph_def() = graph;
  *request.mutable_config() = config;
  CreateSessionResponse response;
  absl::Status s = master->CreateSession(request, &response);
  if (!s.ok()) return s;
  REQUIRE(response.graph_version() == 0);
  return response.session_handle();
}

absl::Status Extend(Master* master, const std::string& handle,
                    const GraphDef& graph, int64_t version,
                    int64_t* new_version = nullptr) {
  ExtendSessionRequest request;
  request.set_session_handle(handle);
  *request.mutable_graph_def() = graph;
  request.set_current_graph_version(version);
  ExtendSessionResponse response;
  absl::Status s = master->ExtendSession(request, &response);
  if (new_version != nullptr) *new_version = response.new_graph_version();
  return s;
}

RunStepRequest StepRequest(
    const std::string& handle,
    const std::vector<std::pair<std::string, Tensor>>& feeds,
    const std::vector<std::string>& fetches,
    const std::vector<std::string>& targets = {}) {
  RunStepRequest request;
  request.set_session_handle(handle);
  for (const auto& [name, value] : feeds) {
    NamedTensorProto* feed = request.add_feed();
    feed->set_name(name);
    value.AsProtoTensorContent(feed->mutable_tensor());
  }
  for (const std::string& f : fetches) request.add_fetch(f);
  for (const std::string& t : targets) request.add_target(t);
  return request;
}

// Waits (bounded) until a BlockUntilCancelled kernel has started since the
// counter read `started`: the step is in flight.
void WaitUntilBlocked(int started) {
  const absl::Time give_up = absl::Now() + kWait;
  while (BlockUntilCancelledOp::started.load() == started &&
         absl::Now() < give_up) {
    absl::SleepFor(absl::Milliseconds(5));
  }
  REQUIRE(BlockUntilCancelledOp::started.load() > started);
}

absl::Status RunStep(Master* master, const RunStepRequest& request,
                     RunStepResponse* response) {
  return master->RunStep(request, response);
}

std::vector<float> Floats(const NamedTensorProto& t) {
  auto value = Tensor::FromProto(t.tensor());
  REQUIRE_OK(value);
  REQUIRE(value->dtype() == DT_FLOAT);
  auto span = value->span<float>();
  return std::vector<float>(span.begin(), span.end());
}

std::vector<std::string> Names(
    const google::protobuf::RepeatedPtrField<DeviceAttributes>& devices) {
  std::vector<std::string> names;
  for (const DeviceAttributes& d : devices) names.push_back(d.name());
  return names;
}

ListDevicesResponse ListDevices(Master* master, const std::string& handle) {
  ListDevicesRequest request;
  request.set_session_handle(handle);
  ListDevicesResponse response;
  REQUIRE_OK(master->ListDevices(request, &response));
  return response;
}

// y = x + c on the ps task, z = y * y on worker 1: a step over three tasks
// (the client device is worker 0's CPU:0).
const char* kThreeTaskGraph = R"pb(
  node {
    name: "x"
    op: "Placeholder"
    attr { key: "dtype" value { type: DT_FLOAT } }
  }
  node {
    name: "c"
    op: "Const"
    device: "/job:ps/replica:0/task:0/device:CPU:0"
    attr { key: "dtype" value { type: DT_FLOAT } }
    attr {
      key: "value"
      value {
        tensor {
          dtype: DT_FLOAT
          tensor_shape { dim { size: 2 } }
          float_val: 10
          float_val: 20
        }
      }
    }
  }
  node {
    name: "y"
    op: "Add"
    input: "x"
    input: "c"
    device: "/job:ps/replica:0/task:0/device:CPU:0"
    attr { key: "T" value { type: DT_FLOAT } }
  }
  node {
    name: "z"
    op: "Mul"
    input: "y"
    input: "y"
    device: "/job:worker/replica:0/task:1/device:CPU:0"
    attr { key: "T" value { type: DT_FLOAT } }
  }
)pb";

GraphDef OneConst(const std::string& name, float value) {
  return Parse(absl::StrCat(R"pb(
    node {
      name: ")pb", name, R"pb("
      op: "Const"
      attr { key: "dtype" value { type: DT_FLOAT } }
      attr {
        key: "value"
        value { tensor { dtype: DT_FLOAT tensor_shape {} float_val: )pb",
                            value, R"pb( } }
      }
    })pb"));
}

const char* kBlockingGraph = R"pb(
  node {
    name: "x"
    op: "Placeholder"
    attr { key: "dtype" value { type: DT_FLOAT } }
  }
  node {
    name: "b"
    op: "BlockUntilCancelled"
    input: "x"
  }
)pb";

TEST_CASE("CreateSession discovers the devices of every task") {
  TestCluster cluster;
  cluster.AddTask(kWorker0, 2).AddTask(kPs);
  Master* master = cluster.Start();
  auto handle = Create(master, GraphDef());
  REQUIRE_OK(handle);
  CHECK(handle->size() == 16);
  CHECK(master->NumSessions() == 1);
  CHECK(cluster.task(kWorker0)->get_status() == 1);
  CHECK(cluster.task(kPs)->get_status() == 1);

  ListDevicesResponse devices = ListDevices(master, *handle);
  CHECK(Names(devices.local_device()) ==
        std::vector<std::string>{Cpu(kWorker0, 0), Cpu(kWorker0, 1)});
  CHECK(Names(devices.remote_device()) ==
        std::vector<std::string>{Cpu(kPs)});

  // Without a session: a GetStatus round of its own.
  ListDevicesResponse all = ListDevices(master, "");
  CHECK(Names(all.local_device()) == Names(devices.local_device()));
  CHECK(Names(all.remote_device()) == Names(devices.remote_device()));
  CHECK(cluster.task(kPs)->get_status() == 2);
}

TEST_CASE("devices are renamed to the task the worker cache has them as") {
  TestCluster cluster;
  cluster.AddTask(kWorker0).AddTask(kPs, 1, "/job:localhost/replica:0/task:0");
  Master* master = cluster.Start();
  auto handle = Create(master, GraphDef());
  REQUIRE_OK(handle);
  CHECK(Names(ListDevices(master, *handle).remote_device()) ==
        std::vector<std::string>{Cpu(kPs)});
}

TEST_CASE("RunStep runs a step over three tasks and names fetches as asked") {
  TestCluster cluster;
  cluster.AddTask(kWorker0).AddTask(kWorker1).AddTask(kPs);
  Master* master = cluster.Start();
  auto handle = Create(master, Parse(kThreeTaskGraph));
  REQUIRE_OK(handle);

  for (float base : {1.f, 2.f}) {
    RunStepResponse response;
    REQUIRE_OK(RunStep(
        master,
        StepRequest(*handle, {{"x", Tensor::FromVector<float>({base, 3})}},
                    {"z:0", "y", "z:0"}),
        &response));
    REQUIRE(response.tensor_size() == 3);
    CHECK(response.tensor(0).name() == "z:0");
    CHECK(response.tensor(1).name() == "y");
    CHECK(response.tensor(2).name() == "z:0");
    const float y0 = base + 10;
    CHECK(Floats(response.tensor(0)) == std::vector<float>{y0 * y0, 529});
    CHECK(Floats(response.tensor(1)) == std::vector<float>{y0, 23});
    CHECK(Floats(response.tensor(2)) == Floats(response.tensor(0)));
    CHECK(response.status_code() == error::OK);
  }

  SECTION("step statistics come back when the step is traced") {
    RunStepRequest request =
        StepRequest(*handle, {{"x", Tensor::FromVector<float>({0, 0})}},
                    {"z"});
    request.mutable_options()->set_trace_level(RunOptions::FULL_TRACE);
    RunStepResponse response;
    REQUIRE_OK(RunStep(master, request, &response));
    std::vector<std::string> devices;
    for (const auto& d : response.metadata().step_stats().dev_stats()) {
      devices.push_back(d.device());
    }
    CHECK(std::find(devices.begin(), devices.end(), Cpu(kPs)) !=
          devices.end());
  }
  SECTION("steps run from several threads at once") {
    std::vector<std::future<absl::Status>> runs;
    for (int t = 0; t < 4; ++t) {
      runs.push_back(std::async(std::launch::async, [&, t] {
        for (int i = 0; i < 10; ++i) {
          const float v = static_cast<float>(t * 100 + i);
          RunStepResponse response;
          absl::Status s = RunStep(
              master,
              StepRequest(*handle, {{"x", Tensor::FromVector<float>({v, v})}},
                          {"y"}),
              &response);
          if (!s.ok()) return s;
          // No Catch2 assertion on this thread (Catch is not thread-safe).
          absl::StatusOr<Tensor> got =
              Tensor::FromProto(response.tensor(0).tensor());
          if (!got.ok()) return got.status();
          const std::vector<float> want = {v + 10, v + 20};
          if (got->dtype() != DT_FLOAT ||
              std::vector<float>(got->span<float>().begin(),
                                 got->span<float>().end()) != want) {
            return absl::InternalError(absl::StrCat("wrong value for ", v));
          }
        }
        return absl::OkStatus();
      }));
    }
    for (auto& run : runs) {
      REQUIRE(run.wait_for(std::chrono::seconds(60)) ==
              std::future_status::ready);
      REQUIRE_OK(run.get());
    }
  }
}

TEST_CASE("RunStep rejects a feed that does not decode, naming it") {
  TestCluster cluster;
  cluster.AddTask(kWorker0);
  Master* master = cluster.Start();
  auto handle = Create(master, Parse(R"pb(
    node {
      name: "x"
      op: "Placeholder"
      attr { key: "dtype" value { type: DT_FLOAT } }
    })pb"));
  REQUIRE_OK(handle);
  RunStepRequest request = StepRequest(*handle, {}, {"x"});
  NamedTensorProto* feed = request.add_feed();
  feed->set_name("x");
  feed->mutable_tensor()->set_dtype(DT_FLOAT);
  feed->mutable_tensor()->mutable_tensor_shape()->add_dim()->set_size(4);
  feed->mutable_tensor()->set_tensor_content("abc");
  RunStepResponse response;
  CHECK_THAT(RunStep(master, request, &response),
             StatusIs(absl::StatusCode::kInvalidArgument, "feed 'x'"));

  SECTION("and partial runs") {
    RunStepRequest partial = StepRequest(*handle, {}, {});
    partial.set_partial_run_handle("p1");
    CHECK_THAT(RunStep(master, partial, &response),
               StatusIs(absl::StatusCode::kUnimplemented));
  }
  SECTION("and errors of the step itself") {
    CHECK_THAT(RunStep(master, StepRequest(*handle, {}, {"nope:0"}),
                       &response),
               StatusIs(absl::StatusCode::kInvalidArgument, "nope"));
  }
}

TEST_CASE("ExtendSession checks the graph version") {
  TestCluster cluster;
  cluster.AddTask(kWorker0);
  Master* master = cluster.Start();
  auto handle = Create(master, OneConst("a", 1));
  REQUIRE_OK(handle);

  int64_t version = -1;
  REQUIRE_OK(Extend(master, *handle, OneConst("b", 2), 0, &version));
  CHECK(version == 1);
  // A stale version: Aborted, and the graph does not change.
  CHECK_THAT(Extend(master, *handle, OneConst("c", 3), 0),
             StatusIs(absl::StatusCode::kAborted, "version"));
  RunStepResponse response;
  CHECK_THAT(RunStep(master, StepRequest(*handle, {}, {"c"}), &response),
             StatusIs(absl::StatusCode::kInvalidArgument, "'c'"));
  // A graph the session rejects leaves the version as it was.
  CHECK_THAT(Extend(master, *handle, OneConst("a", 5), 1),
             StatusIs(absl::StatusCode::kInvalidArgument, "'a'"));
  REQUIRE_OK(Extend(master, *handle, OneConst("c", 3), 1, &version));
  CHECK(version == 2);

  REQUIRE_OK(RunStep(master, StepRequest(*handle, {}, {"a", "b", "c"}),
                     &response));
  CHECK(Floats(response.tensor(0)) == std::vector<float>{1});
  CHECK(Floats(response.tensor(1)) == std::vector<float>{2});
  CHECK(Floats(response.tensor(2)) == std::vector<float>{3});
}

TEST_CASE("a master with optimize_graphs off runs every session unoptimized") {
  GraphDef def = OneConst("a", 1.5f);
  def.MergeFrom(OneConst("b", 4));
  def.MergeFrom(Parse(R"pb(
    node {
      name: "sum"
      op: "AddV2"
      input: "a"
      input: "b"
      attr { key: "T" value { type: DT_FLOAT } }
    })pb"));
  for (bool optimize : {true, false}) {
    INFO("optimize_graphs " << optimize);
    TestCluster cluster;
    cluster.AddTask(kWorker0);
    Master* master =
        cluster.Start(absl::Seconds(30), absl::Hours(1), optimize);
    // The session's config asks for the optimizer (TensorFlow's default).
    auto handle = Create(master, def);
    REQUIRE_OK(handle);
    RunStepRequest request = StepRequest(*handle, {}, {"sum"});
    request.mutable_options()->set_trace_level(RunOptions::FULL_TRACE);
    RunStepResponse response;
    REQUIRE_OK(RunStep(master, request, &response));
    CHECK(Floats(response.tensor(0)) == std::vector<float>{5.5f});
    // What "sum" ran as: a folded Const, or the AddV2 itself.
    std::string sum_op;
    for (const auto& dev : response.metadata().step_stats().dev_stats()) {
      for (const auto& n : dev.node_stats()) {
        if (n.node_name() == "sum") sum_op = n.timeline_label();
      }
    }
    CHECK(absl::StrContains(sum_op, optimize ? "= Const(" : "= AddV2("));
  }
}

TEST_CASE("unknown session handles") {
  TestCluster cluster;
  cluster.AddTask(kWorker0);
  Master* master = cluster.Start();
  RunStepResponse run;
  CHECK_THAT(RunStep(master, StepRequest("nope", {}, {}), &run),
             StatusIs(absl::StatusCode::kAborted,
                      "Session nope is not found"));
  CHECK_THAT(Extend(master, "nope", GraphDef(), 0),
             StatusIs(absl::StatusCode::kAborted,
                      "Session nope is not found"));
  CloseSessionRequest close;
  close.set_session_handle("nope");
  CloseSessionResponse closed;
  CHECK_THAT(master->CloseSession(close, &closed),
             StatusIs(absl::StatusCode::kAborted,
                      "Session nope is not found"));
  ListDevicesRequest list;
  list.set_session_handle("nope");
  ListDevicesResponse devices;
  CHECK_THAT(master->ListDevices(list, &devices),
             StatusIs(absl::StatusCode::kInvalidArgument,
                      "Session nope is not found"));
}

TEST_CASE("CloseSession closes the session and forgets its handle") {
  TestCluster cluster;
  cluster.AddTask(kWorker0);
  Master* master = cluster.Start();
  auto handle = Create(master, OneConst("a", 1));
  REQUIRE_OK(handle);
  auto other = Create(master, OneConst("a", 2));
  REQUIRE_OK(other);
  CHECK(*handle != *other);
  CHECK(master->NumSessions() == 2);

  CloseSessionRequest close;
  close.set_session_handle(*handle);
  CloseSessionResponse closed;
  REQUIRE_OK(master->CloseSession(close, &closed));
  CHECK(master->NumSessions() == 1);
  RunStepResponse response;
  CHECK_THAT(RunStep(master, StepRequest(*handle, {}, {"a"}), &response),
             StatusIs(absl::StatusCode::kAborted, "is not found"));
  CHECK_THAT(master->CloseSession(close, &closed),
             StatusIs(absl::StatusCode::kAborted));
  // The other session is untouched.
  REQUIRE_OK(RunStep(master, StepRequest(*other, {}, {"a"}), &response));
  CHECK(Floats(response.tensor(0)) == std::vector<float>{2});
}

TEST_CASE("a bad graph in CreateSession keeps no session") {
  TestCluster cluster;
  cluster.AddTask(kWorker0);
  Master* master = cluster.Start();
  const GraphDef bad = Parse(R"pb(node { name: "n" op: "NoSuchOp" })pb");
  CHECK_THAT(Create(master, bad).status(),
             StatusIs(absl::StatusCode::kInvalidArgument, "NoSuchOp"));
  CHECK(master->NumSessions() == 0);
  ConfigProto config;
  config.set_operation_timeout_in_ms(-1);
  CHECK_THAT(Create(master, GraphDef(), config).status(),
             StatusIs(absl::StatusCode::kInvalidArgument));
}

TEST_CASE("Reset closes every session and cleans every task up") {
  TestCluster cluster;
  cluster.AddTask(kWorker0).AddTask(kWorker1).AddTask(kPs);
  Master* master = cluster.Start();
  auto a = Create(master, OneConst("a", 1));
  REQUIRE_OK(a);
  auto b = Create(master, OneConst("a", 2));
  REQUIRE_OK(b);

  SECTION("all tasks") {
    ResetRequest reset;
    reset.add_container("c1");
    ResetResponse response;
    REQUIRE_OK(master->Reset(reset, &response));
    CHECK(cluster.task(kWorker0)->cleanup_all() == 1);
    CHECK(cluster.task(kWorker1)->cleanup_all() == 1);
    CHECK(cluster.task(kPs)->cleanup_all() == 1);
  }
  SECTION("filtered") {
    ResetRequest reset;
    reset.add_device_filters("/job:ps");
    ResetResponse response;
    REQUIRE_OK(master->Reset(reset, &response));
    CHECK(cluster.task(kWorker0)->cleanup_all() == 1);
    CHECK(cluster.task(kWorker1)->cleanup_all() == 0);
    CHECK(cluster.task(kPs)->cleanup_all() == 1);
  }
  CHECK(master->NumSessions() == 0);
  RunStepResponse run;
  CHECK_THAT(RunStep(master, StepRequest(*a, {}, {"a"}), &run),
             StatusIs(absl::StatusCode::kAborted, "is not found"));
  CHECK_THAT(RunStep(master, StepRequest(*b, {}, {"a"}), &run),
             StatusIs(absl::StatusCode::kAborted, "is not found"));
  // The master goes on serving.
  REQUIRE_OK(Create(master, GraphDef()));
}

TEST_CASE("device_filters limit the tasks asked and the devices used") {
  TestCluster cluster;
  cluster.AddTask(kWorker0).AddTask(kWorker1, 2).AddTask(kPs);
  Master* master = cluster.Start();

  SECTION("by job") {
    ConfigProto config;
    config.add_device_filters("/job:ps");
    auto handle = Create(master, GraphDef(), config);
    REQUIRE_OK(handle);
    CHECK(cluster.task(kWorker0)->get_status() == 1);  // always asked
    CHECK(cluster.task(kWorker1)->get_status() == 0);
    CHECK(cluster.task(kPs)->get_status() == 1);
    ListDevicesResponse devices = ListDevices(master, *handle);
    CHECK(Names(devices.local_device()) ==
          std::vector<std::string>{Cpu(kWorker0)});
    CHECK(Names(devices.remote_device()) ==
          std::vector<std::string>{Cpu(kPs)});

    // A node on a filtered-out task cannot be placed.
    CHECK_THAT(Extend(master, *handle, Parse(R"pb(node {
                 name: "n"
                 op: "NoOp"
                 device: "/job:worker/replica:0/task:1"
               })pb"),
                      0),
               StatusIs(absl::StatusCode::kInvalidArgument, "'n'"));
  }
  SECTION("by device") {
    ConfigProto config;
    config.add_device_filters("/job:worker/replica:0/task:1/device:CPU:1");
    auto handle = Create(master, GraphDef(), config);
    REQUIRE_OK(handle);
    CHECK(cluster.task(kPs)->get_status() == 0);
    CHECK(Names(ListDevices(master, *handle).remote_device()) ==
          std::vector<std::string>{Cpu(kWorker1, 1)});
  }
  SECTION("a filter that does not parse") {
    ConfigProto config;
    config.add_device_filters("/job:ps/bogus:1");
    CHECK_THAT(Create(master, GraphDef(), config).status(),
               StatusIs(absl::StatusCode::kInvalidArgument, "bogus"));
  }
}

TEST_CASE("a task that never answers GetStatus fails CreateSession in time") {
  TestCluster cluster;
  cluster.AddTask(kWorker0).AddSilentTask(kPs);

  SECTION("past the discovery timeout: Unavailable naming the task") {
    Master* master = cluster.Start(absl::Milliseconds(200));
    absl::Status s =
        Bounded([&] { return Create(master, GraphDef()).status(); });
    CHECK_THAT(s, StatusIs(absl::StatusCode::kUnavailable, kPs));
    CHECK_FALSE(absl::StrContains(s.message(), kWorker0));
    CHECK(master->NumSessions() == 0);
  }
  SECTION("past operation_timeout_in_ms: DeadlineExceeded") {
    Master* master = cluster.Start(absl::Seconds(60));
    ConfigProto config;
    config.set_operation_timeout_in_ms(200);
    CHECK_THAT(
        Bounded([&] { return Create(master, GraphDef(), config).status(); }),
        StatusIs(absl::StatusCode::kDeadlineExceeded, kPs));
  }
  SECTION("a filter that leaves the task out does not wait for it") {
    Master* master = cluster.Start(absl::Seconds(60));
    ConfigProto config;
    config.add_device_filters("/job:worker");
    REQUIRE_OK(
        Bounded([&] { return Create(master, GraphDef(), config).status(); }));
  }
}

TEST_CASE("device discovery asks again a task whose channel is backing off") {
  TestCluster cluster;
  cluster.AddTask(kWorker0).AddTask(kPs);
  Master* master = cluster.Start();

  SECTION("Unavailable for a moment: the session is created") {
    cluster.task(kPs)->FailNextGetStatus(3);
    REQUIRE_OK(Bounded([&] { return Create(master, GraphDef()).status(); }));
    CHECK(cluster.task(kPs)->get_status() == 4);
  }
  SECTION("Unavailable for good: Unavailable naming the task, in bounded time") {
    cluster.task(kPs)->FailNextGetStatus(1 << 30);
    absl::Status s =
        Bounded([&] { return Create(master, GraphDef()).status(); });
    CHECK_THAT(s, StatusIs(absl::StatusCode::kUnavailable, kPs));
    CHECK(cluster.task(kPs)->get_status() > 1);
    CHECK(master->NumSessions() == 0);
  }
}

TEST_CASE("idle sessions are closed and say so") {
  TestCluster cluster;
  cluster.AddTask(kWorker0);
  Master* master = cluster.Start(absl::Seconds(30), absl::Milliseconds(200));
  auto handle = Create(master, OneConst("a", 1));
  REQUIRE_OK(handle);
  const absl::Time give_up = absl::Now() + kWait;
  while (master->NumSessions() > 0 && absl::Now() < give_up) {
    absl::SleepFor(absl::Milliseconds(20));
  }
  REQUIRE(master->NumSessions() == 0);
  RunStepResponse response;
  CHECK_THAT(RunStep(master, StepRequest(*handle, {}, {"a"}), &response),
             StatusIs(absl::StatusCode::kAborted,
                      absl::StrCat("Session ", *handle,
                                   " was closed after being idle for")));
}

TEST_CASE("a running step keeps its session from the idle GC") {
  TestCluster cluster;
  cluster.AddTask(kWorker0);
  Master* master = cluster.Start(absl::Seconds(30), absl::Milliseconds(500));
  auto handle = Create(master, Parse(kBlockingGraph));
  REQUIRE_OK(handle);
  RunStepRequest request =
      StepRequest(*handle, {{"x", Tensor::Scalar<float>(1)}}, {"b"});
  request.mutable_options()->set_timeout_in_ms(2000);
  RunStepResponse response;
  // The step outlives several idle periods and ends by its own deadline,
  // not by the GC closing the session (which would be Cancelled).
  CHECK_THAT(Bounded([&] { return RunStep(master, request, &response); }),
             StatusIs(absl::StatusCode::kDeadlineExceeded));
}

TEST_CASE("Shutdown cancels running steps and refuses later calls") {
  TestCluster cluster;
  cluster.AddTask(kWorker0);
  Master* master = cluster.Start();
  auto handle = Create(master, Parse(kBlockingGraph));
  REQUIRE_OK(handle);
  const int started = BlockUntilCancelledOp::started.load();
  auto run = std::async(std::launch::async, [&] {
    RunStepResponse response;
    return RunStep(master,
                   StepRequest(*handle, {{"x", Tensor::Scalar<float>(1)}},
                               {"b"}),
                   &response);
  });
  WaitUntilBlocked(started);
  master->Shutdown();
  REQUIRE(run.wait_for(std::chrono::seconds(60)) == std::future_status::ready);
  CHECK_THAT(run.get(), StatusIs(absl::StatusCode::kCancelled));
  CHECK(master->NumSessions() == 0);
  CHECK_THAT(Create(master, GraphDef()).status(),
             StatusIs(absl::StatusCode::kUnavailable, "shutting down"));
  master->Shutdown();  // idempotent
}

}  // namespace
}  // namespace dfx

namespace dfx {
namespace {

TEST_CASE("the caller's cancellation ends a running step on the workers") {
  TestCluster cluster;
  cluster.AddTask(kWorker0);
  Master* master = cluster.Start();
  auto handle = Create(master, Parse(kBlockingGraph));
  REQUIRE_OK(handle);
  const int started = BlockUntilCancelledOp::started.load();
  CallOptions opts;
  auto run = std::async(std::launch::async, [&] {
    RunStepResponse response;
    return master->RunStep(
        StepRequest(*handle, {{"x", Tensor::Scalar<float>(1)}}, {"b"}),
        &response, &opts);
  });
  WaitUntilBlocked(started);
  opts.StartCancel();
  REQUIRE(run.wait_for(std::chrono::seconds(60)) == std::future_status::ready);
  CHECK_THAT(run.get(), StatusIs(absl::StatusCode::kCancelled,
                                 "the caller cancelled the step"));
  // The session serves on.
  RunStepResponse response;
  REQUIRE_OK(master->RunStep(
      StepRequest(*handle, {{"x", Tensor::Scalar<float>(2)}}, {"x"}),
      &response));
  CHECK(Floats(response.tensor(0)) == std::vector<float>{2});
}

TEST_CASE("RunStepAsync hands off only a new signature's set-up") {
  // What the gRPC front end counts on: a step run before costs no hand-off
  // to a pool, and what may block (building and registering a new
  // signature's graph) goes to the offload.
  TestCluster cluster;
  cluster.AddTask(kWorker0);
  Master* master = cluster.Start();
  auto handle = Create(master, OneConst("a", 7));
  REQUIRE_OK(handle);
  std::atomic<int> offloaded{0};
  ThreadPool pool("offload", 1);
  auto offload = [&offloaded, &pool](std::function<void()> fn) {
    ++offloaded;
    pool.Schedule(std::move(fn));
  };
  for (int step = 0; step < 3; ++step) {
    INFO("step " << step);
    const RunStepRequest request = StepRequest(*handle, {}, {"a"});
    RunStepResponse response;
    std::promise<absl::Status> answered;
    std::future<absl::Status> answer = answered.get_future();
    master->RunStepAsync(
        request, &response, nullptr, offload,
        [&](absl::Status s) { answered.set_value(std::move(s)); });
    REQUIRE(answer.wait_for(std::chrono::seconds(60)) ==
            std::future_status::ready);
    REQUIRE_OK(answer.get());
    CHECK(Floats(response.tensor(0)) == std::vector<float>{7});
    CHECK(offloaded.load() == 1);
  }
}

TEST_CASE("RunStepAsync's session closed under a running step goes on the "
          "offload, and the step ends Cancelled") {
  // The step's end may be the last hold on a closed session, whose
  // destructor waits for its calls: never on the thread that ended it.
  TestCluster cluster;
  cluster.AddTask(kWorker0);
  Master* master = cluster.Start();
  auto handle = Create(master, Parse(kBlockingGraph));
  REQUIRE_OK(handle);
  const int started = BlockUntilCancelledOp::started.load();
  ThreadPool pool("offload", 1);
  const RunStepRequest request =
      StepRequest(*handle, {{"x", Tensor::Scalar<float>(1)}}, {"b"});
  RunStepResponse response;
  std::promise<absl::Status> answered;
  std::future<absl::Status> answer = answered.get_future();
  master->RunStepAsync(
      request, &response, nullptr,
      [&pool](std::function<void()> fn) { pool.Schedule(std::move(fn)); },
      [&](absl::Status s) { answered.set_value(std::move(s)); });
  WaitUntilBlocked(started);
  CloseSessionRequest close;
  close.set_session_handle(*handle);
  CloseSessionResponse closed;
  REQUIRE_OK(master->CloseSession(close, &closed));
  REQUIRE(answer.wait_for(std::chrono::seconds(60)) ==
          std::future_status::ready);
  CHECK_THAT(answer.get(), StatusIs(absl::StatusCode::kCancelled));
}

TEST_CASE("the caller's deadline bounds a step that has none of its own") {
  TestCluster cluster;
  cluster.AddTask(kWorker0);
  Master* master = cluster.Start();
  auto handle = Create(master, Parse(kBlockingGraph));
  REQUIRE_OK(handle);
  CallOptions opts;
  opts.SetTimeout(absl::Milliseconds(300));
  RunStepResponse response;
  CHECK_THAT(Bounded([&] {
               return master->RunStep(
                   StepRequest(*handle, {{"x", Tensor::Scalar<float>(1)}},
                               {"b"}),
                   &response, &opts);
             }),
             StatusIs(absl::StatusCode::kDeadlineExceeded,
                      "before the caller's deadline"));
}

TEST_CASE("the caller's deadline bounds CreateSession's device discovery") {
  TestCluster cluster;
  cluster.AddTask(kWorker0).AddSilentTask(kPs);
  Master* master = cluster.Start(absl::Seconds(60));
  CallOptions opts;
  opts.SetTimeout(absl::Milliseconds(300));
  CreateSessionRequest request;
  CreateSessionResponse response;
  const absl::Time start = absl::Now();
  CHECK_THAT(
      Bounded([&] { return master->CreateSession(request, &response, &opts); }),
      StatusIs(absl::StatusCode::kDeadlineExceeded, kPs));
  CHECK(absl::Now() - start < absl::Seconds(30));
}

TEST_CASE("a RunStep request sent twice with the same request_id runs once") {
  TestCluster cluster;
  cluster.AddTask(kWorker0);
  Master* master = cluster.Start();
  auto handle = Create(master, OneConst("a", 1));
  REQUIRE_OK(handle);
  RunStepRequest request = StepRequest(*handle, {}, {"a"});
  request.set_request_id(4242);
  RunStepResponse response;
  REQUIRE_OK(RunStep(master, request, &response));
  CHECK_THAT(RunStep(master, request, &response),
             StatusIs(absl::StatusCode::kAborted, "request_id 4242"));
  request.set_request_id(4243);
  REQUIRE_OK(RunStep(master, request, &response));
}

}  // namespace
}  // namespace dfx
