// Helpers of the worker tests: a worker on several CPU devices, graphs
// written with devices and cut into partitions the way a master cuts them,
// and waits that never hang.
#ifndef DFX_TESTS_WORKER_WORKER_TEST_UTIL_H_
#define DFX_TESTS_WORKER_WORKER_TEST_UTIL_H_

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "absl/synchronization/notification.h"
#include "absl/time/time.h"
#include "catch2/catch.hpp"
#include "google/protobuf/text_format.h"
#include "graph/client_graph.h"
#include "graph/graph_def_import.h"
#include "graph/partition.h"
#include "rendezvous/rendezvous_mgr.h"
#include "runtime/device.h"
#include "runtime/thread_pool.h"
#include "tests/testing/status_matchers.h"
#include "worker/local_worker.h"
#include "worker/worker.h"

namespace dfx::worker_testing {

inline constexpr char kTask[] = "/job:localhost/replica:0/task:0";
// A device of another process: keys from or to it cross this worker's edge.
inline constexpr char kRemote[] = "/job:other/replica:0/task:0/device:CPU:0";
// Generous: only a broken worker ever waits this long.
inline const absl::Duration kWait = absl::Seconds(60);

inline std::string Dev(int i) { return absl::StrCat(kTask, "/device:CPU:", i); }

// Text GraphDef with DEV0, DEV1, ... standing for this worker's devices.
inline GraphDef ParseGraph(const std::string& text) {
  std::string expanded = text;
  for (int i = 0; i < 4; ++i) {
    expanded = absl::StrReplaceAll(
        expanded, {{absl::StrCat("DEV", i), absl::StrCat("\"", Dev(i), "\"")}});
  }
  GraphDef def;
  INFO(expanded);
  REQUIRE(google::protobuf::TextFormat::ParseFromString(expanded, &def));
  return def;
}

// The result of an asynchronous call, awaited with a timeout.
struct Pending {
  absl::Notification notification;
  absl::Status status;

  StatusCallback Callback() {
    return [this](const absl::Status& s) {
      status = s;
      notification.Notify();
    };
  }
  bool Done() const { return notification.HasBeenNotified(); }
  // Fails the test when the call has not finished within kWait.
  absl::Status Wait() {
    REQUIRE(notification.WaitForNotificationWithTimeout(kWait));
    return status;
  }
};

// The client's view of one step over a graph: the partitions by device, the
// whole rewritten step graph, and the feed and fetch rendezvous keys.
struct StepGraph {
  std::map<std::string, GraphDef> partitions;
  GraphDef whole;
  std::vector<std::string> feed_keys;
  std::vector<std::string> fetch_keys;
};

// A worker on `num_devices` CPU devices of `task`, used through its
// LocalWorker. `rendezvous` makes each step's rendezvous (null: local ones).
class TestWorker {
 public:
  explicit TestWorker(int num_devices = 3, const std::string& task = kTask,
                      RendezvousMgr::Factory rendezvous = nullptr,
                      absl::Duration session_gc_idle = absl::ZeroDuration())
      : rendezvous_mgr_(rendezvous ? RendezvousMgr(std::move(rendezvous))
                                   : RendezvousMgr()) {
    CpuDeviceOptions options;
    options.task_name = task;
    options.num_devices = num_devices;
    options.intra_op_threads = 2;
    auto devices = DeviceMgr::NewCpu(options);
    REQUIRE_OK(devices);
    devices_ = std::move(devices).value();
    pool_ = std::make_unique<ThreadPool>("worker_test", 4);
    WorkerEnv env;
    env.device_mgr = devices_.get();
    env.rendezvous_mgr = &rendezvous_mgr_;
    env.compute_pool = pool_.get();
    env.session_gc_idle = session_gc_idle;
    worker_ = std::make_unique<Worker>(env);
    local_ = std::make_unique<LocalWorker>(worker_.get());
  }

  WorkerInterface* wi() { return local_.get(); }
  Worker* worker() { return worker_.get(); }
  RendezvousMgr* rendezvous_mgr() { return &rendezvous_mgr_; }
  const DeviceMgr* devices() const { return devices_.get(); }
  ThreadPool* pool() { return pool_.get(); }

  uint64_t Incarnation(const std::string& device) const {
    auto d = devices_->LookupDevice(device);
    REQUIRE_OK(d);
    return (*d)->incarnation();
  }

  // Rewrites `def` for a step (client device: CPU:0) and partitions it by
  // device, as a master does.
  StepGraph Prepare(const GraphDef& def, std::vector<std::string> feeds,
                    std::vector<std::string> fetches) const {
    auto graph = ImportGraphDef(def, OpRegistry::Global());
    REQUIRE_OK(graph);
    ClientGraphOptions options;
    options.feeds = std::move(feeds);
    options.fetches = std::move(fetches);
    options.client_device = Dev(0);
    options.client_device_incarnation = Incarnation(Dev(0));
    auto step = RewriteForStep(**graph, options);
    REQUIRE_OK(step);
    for (Node* n : (*step)->nodes()) {
      if (n->assigned_device_name().empty()) {
        n->set_assigned_device_name(n->requested_device());
      }
    }
    StepGraph out;
    out.whole = ToGraphDef(**step);
    PartitionOptions popts;
    popts.get_incarnation = [this](const std::string& d) {
      return Incarnation(d);
    };
    auto partitions = Partition(**step, popts);
    REQUIRE_OK(partitions);
    out.partitions = std::move(partitions).value();
    auto keys = ClientStepRendezvousKeys(options);
    REQUIRE_OK(keys);
    out.feed_keys = keys->feed_keys;
    out.fetch_keys = keys->fetch_keys;
    return out;
  }

  // RegisterGraph in the legacy session (or `session`).
  absl::StatusOr<std::string> Register(const GraphDef& def,
                                       const std::string& session = "") {
    RegisterGraphRequest request;
    request.set_session_handle(session);
    request.set_create_worker_session_called(!session.empty());
    *request.mutable_graph_def() = def;
    RegisterGraphResponse response;
    Pending pending;
    wi()->RegisterGraphAsync(&request, &response, pending.Callback());
    absl::Status s = pending.Wait();
    if (!s.ok()) return s;
    return response.graph_handle();
  }

  // A RunGraph call, ready to start.
  static std::unique_ptr<RunGraphCall> MakeCall(
      const std::string& handle, int64_t step_id,
      std::vector<std::pair<std::string, Tensor>> feeds,
      const std::vector<std::string>& fetch_keys,
      const std::string& session = "") {
    auto call = std::make_unique<RunGraphCall>();
    call->request.set_graph_handle(handle);
    call->request.set_step_id(step_id);
    call->request.set_session_handle(session);
    call->request.set_create_worker_session_called(!session.empty());
    for (const std::string& key : fetch_keys) call->request.add_recv_key(key);
    call->send = std::move(feeds);
    return call;
  }

  absl::Status CreateSession(const std::string& handle,
                             const std::string& master_task = "",
                             int64_t master_incarnation = 0) {
    CreateWorkerSessionRequest request;
    request.set_session_handle(handle);
    request.set_master_task(master_task);
    request.set_master_incarnation(master_incarnation);
    CreateWorkerSessionResponse response;
    Pending pending;
    wi()->CreateWorkerSessionAsync(&request, &response, pending.Callback());
    return pending.Wait();
  }

  absl::Status DeleteSession(const std::string& handle) {
    DeleteWorkerSessionRequest request;
    request.set_session_handle(handle);
    DeleteWorkerSessionResponse response;
    Pending pending;
    wi()->DeleteWorkerSessionAsync(&request, &response, pending.Callback());
    return pending.Wait();
  }

  absl::Status CleanupGraph(int64_t step_id) {
    CleanupGraphRequest request;
    request.set_step_id(step_id);
    CleanupGraphResponse response;
    Pending pending;
    wi()->CleanupGraphAsync(&request, &response, pending.Callback());
    return pending.Wait();
  }

 private:
  // Destroyed in reverse: the worker before the pool its steps run on.
  std::unique_ptr<DeviceMgr> devices_;
  RendezvousMgr rendezvous_mgr_;
  std::unique_ptr<ThreadPool> pool_;
  std::unique_ptr<Worker> worker_;
  std::unique_ptr<LocalWorker> local_;
};

}  // namespace dfx::worker_testing

#endif  // DFX_TESTS_WORKER_WORKER_TEST_UTIL_H_
