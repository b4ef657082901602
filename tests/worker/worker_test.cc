// Tests of worker/worker.h through worker/local_worker.h: sessions, graph
// registration, steps across partitions and devices, failure and
// cancellation, CleanupGraph and RecvTensor.
#include "worker/worker.h"

#include <algorithm>
#include <atomic>
#include <map>
#include <thread>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "catch2/catch.hpp"
#include "runtime/rendezvous.h"
#include "tests/testing/status_matchers.h"
#include "tests/worker/worker_test_util.h"
#include "worker/local_worker.h"

namespace dfx {
namespace {

using ::dfx::testing::StatusIs;
using namespace ::dfx::worker_testing;  // NOLINT

// z = Identity(AddV2(x, w)) with x fed on CPU:0, w and the sum on CPU:1, z
// on CPU:2; and m = MatMul(xm, wm) on CPU:2 with xm fed.
constexpr char kAddGraph[] = R"pb(
  node {
    name: "x" op: "Placeholder" device: DEV0
    attr { key: "dtype" value { type: DT_FLOAT } }
    attr { key: "shape" value { shape { dim { size: 2 } } } }
  }
  node {
    name: "w" op: "Const" device: DEV1
    attr { key: "dtype" value { type: DT_FLOAT } }
    attr { key: "value" value { tensor {
      dtype: DT_FLOAT tensor_shape { dim { size: 2 } }
      float_val: 10 float_val: 20 } } }
  }
  node {
    name: "y" op: "AddV2" input: "x" input: "w" device: DEV1
    attr { key: "T" value { type: DT_FLOAT } }
  }
  node {
    name: "z" op: "Identity" input: "y" device: DEV2
    attr { key: "T" value { type: DT_FLOAT } }
  }
  node {
    name: "xm" op: "Placeholder" device: DEV0
    attr { key: "dtype" value { type: DT_FLOAT } }
    attr { key: "shape" value { shape { dim { size: 2 } dim { size: 2 } } } }
  }
  node {
    name: "wm" op: "Const" device: DEV1
    attr { key: "dtype" value { type: DT_FLOAT } }
    attr { key: "value" value { tensor {
      dtype: DT_FLOAT tensor_shape { dim { size: 2 } dim { size: 2 } }
      float_val: 1 float_val: 2 float_val: 3 float_val: 4 } } }
  }
  node {
    name: "m" op: "MatMul" input: "xm" input: "wm" device: DEV2
    attr { key: "T" value { type: DT_FLOAT } }
  }
)pb";

// d = Div(7, z) on CPU:0 (z fed, int32), e = Identity(d) on CPU:1.
constexpr char kDivGraph[] = R"pb(
  node {
    name: "z" op: "Placeholder" device: DEV0
    attr { key: "dtype" value { type: DT_INT32 } }
    attr { key: "shape" value { shape {} } }
  }
  node {
    name: "c" op: "Const" device: DEV0
    attr { key: "dtype" value { type: DT_INT32 } }
    attr { key: "value" value { tensor {
      dtype: DT_INT32 tensor_shape {} int_val: 7 } } }
  }
  node {
    name: "d" op: "Div" input: "c" input: "z" device: DEV0
    attr { key: "T" value { type: DT_INT32 } }
  }
  node {
    name: "e" op: "Identity" input: "d" device: DEV1
    attr { key: "T" value { type: DT_INT32 } }
  }
)pb";

// One partition on CPU:0 whose _Recv waits for a tensor from another
// process that never sends it.
std::string BlockedGraph() {
  return absl::StrCat(R"pb(
    node {
      name: "r" op: "_Recv" device: DEV0
      attr { key: "tensor_type" value { type: DT_FLOAT } }
      attr { key: "tensor_name" value { s: "edge_1_a" } }
      attr { key: "send_device" value { s: ")pb",
                      kRemote, R"pb(" } }
      attr { key: "send_device_incarnation" value { i: 1 } }
      attr { key: "recv_device" value { s: ")pb",
                      Dev(0), R"pb(" } }
    }
    node {
      name: "y" op: "Identity" input: "r" device: DEV0
      attr { key: "T" value { type: DT_FLOAT } }
    }
  )pb");
}

// A partition on CPU:1 sending Const 3.5 to another process's CPU:0 under
// the key edge_5_c.
std::string SenderGraph(uint64_t incarnation1) {
  return absl::StrCat(R"pb(
    node {
      name: "c" op: "Const" device: DEV1
      attr { key: "dtype" value { type: DT_FLOAT } }
      attr { key: "value" value { tensor {
        dtype: DT_FLOAT tensor_shape {} float_val: 3.5 } } }
    }
    node {
      name: "s" op: "_Send" input: "c" device: DEV1
      attr { key: "T" value { type: DT_FLOAT } }
      attr { key: "tensor_name" value { s: "edge_5_c" } }
      attr { key: "send_device" value { s: ")pb",
                      Dev(1), R"pb(" } }
      attr { key: "send_device_incarnation" value { i: )pb",
                      static_cast<int64_t>(incarnation1), R"pb( } }
      attr { key: "recv_device" value { s: ")pb",
                      kRemote, R"pb(" } }
    }
  )pb");
}

std::vector<float> Floats(const Tensor& t) {
  REQUIRE(t.dtype() == DT_FLOAT);
  auto span = t.span<float>();
  return std::vector<float>(span.begin(), span.end());
}

TEST_CASE("GetStatus lists every device with its incarnation") {
  TestWorker w(3);
  GetStatusRequest request;
  GetStatusResponse response;
  Pending pending;
  w.wi()->GetStatusAsync(&request, &response, pending.Callback());
  REQUIRE_OK(pending.Wait());
  REQUIRE(response.device_attributes_size() == 3);
  for (int i = 0; i < 3; ++i) {
    const DeviceAttributes& a = response.device_attributes(i);
    CHECK(a.name() == Dev(i));
    CHECK(a.device_type() == "CPU");
    CHECK(a.incarnation() != 0);
    CHECK(a.incarnation() == w.Incarnation(Dev(i)));
  }
}

TEST_CASE("A step over three partitions on three devices returns fetches") {
  TestWorker w(3);
  StepGraph step = w.Prepare(ParseGraph(kAddGraph), {"x:0", "xm:0"},
                             {"z:0", "m:0"});
  REQUIRE(step.partitions.size() == 3);
  // The master's view: one graph per device, fed and fetched on CPU:0.
  std::map<std::string, std::string> handles;
  for (const auto& [device, def] : step.partitions) {
    auto handle = w.Register(def);
    REQUIRE_OK(handle);
    handles[device] = *handle;
  }
  CHECK(handles.size() == 3);

  const int64_t step_id = 77;
  std::vector<std::unique_ptr<RunGraphCall>> calls;
  std::vector<std::unique_ptr<Pending>> pendings;
  // Start the consumers first: their _Recvs wait for the producers.
  for (const std::string& device : {Dev(2), Dev(1), Dev(0)}) {
    std::vector<std::pair<std::string, Tensor>> feeds;
    std::vector<std::string> fetches;
    if (device == Dev(0)) {
      feeds = {{step.feed_keys[0], Tensor::FromVector<float>({1, 2})},
               {step.feed_keys[1],
                Tensor::FromVector<float>({1, 0, 0, 2}, TensorShape({2, 2}))}};
      fetches = step.fetch_keys;
    }
    calls.push_back(
        TestWorker::MakeCall(handles[device], step_id, feeds, fetches));
    pendings.push_back(std::make_unique<Pending>());
    w.wi()->RunGraphAsync(nullptr, calls.back().get(),
                          pendings.back()->Callback());
  }
  for (auto& p : pendings) REQUIRE_OK(p->Wait());
  const RunGraphCall& client = *calls.back();
  REQUIRE(client.recv.size() == 2);
  CHECK(client.recv[0].first == step.fetch_keys[0]);
  CHECK(Floats(client.recv[0].second) == std::vector<float>{11, 22});
  CHECK(client.recv[1].first == step.fetch_keys[1]);
  // [[1,0],[0,2]] x [[1,2],[3,4]] = [[1,2],[6,8]]
  CHECK(client.recv[1].second.shape() == TensorShape({2, 2}));
  CHECK(Floats(client.recv[1].second) == std::vector<float>{1, 2, 6, 8});
  // The others fetch nothing.
  CHECK(calls[0]->recv.empty());
  CHECK(calls[1]->recv.empty());
  REQUIRE_OK(w.CleanupGraph(step_id));
}

TEST_CASE("A fed tensor reaches the fetch without a copy of its buffer") {
  TestWorker w(1);
  StepGraph step = w.Prepare(ParseGraph(R"pb(
    node {
      name: "x" op: "Placeholder" device: DEV0
      attr { key: "dtype" value { type: DT_FLOAT } }
    }
    node {
      name: "y" op: "Identity" input: "x" device: DEV0
      attr { key: "T" value { type: DT_FLOAT } }
    }
  )pb"), {"x:0"}, {"y:0"});
  auto handle = w.Register(step.whole);
  REQUIRE_OK(handle);
  Tensor fed = Tensor::FromVector<float>({4, 5, 6});
  auto call =
      TestWorker::MakeCall(*handle, 5, {{step.feed_keys[0], fed}},
                           step.fetch_keys);
  Pending pending;
  w.wi()->RunGraphAsync(nullptr, call.get(), pending.Callback());
  REQUIRE_OK(pending.Wait());
  REQUIRE(call->recv.size() == 1);
  CHECK(Floats(call->recv[0].second) == std::vector<float>{4, 5, 6});
  CHECK(call->recv[0].second.data<float>() == fed.data<float>());
  REQUIRE_OK(w.CleanupGraph(5));
}

TEST_CASE("A failing node ends its step with its error and wakes the "
          "partition waiting on it") {
  TestWorker w(2);
  StepGraph step = w.Prepare(ParseGraph(kDivGraph), {"z:0"}, {"e:0"});
  REQUIRE(step.partitions.size() == 2);
  auto h0 = w.Register(step.partitions.at(Dev(0)));
  auto h1 = w.Register(step.partitions.at(Dev(1)));
  REQUIRE_OK(h0);
  REQUIRE_OK(h1);

  SECTION("the partition divides by zero") {
    const int64_t step_id = 901;
    // CPU:1's partition waits for d.
    auto waiting = TestWorker::MakeCall(*h1, step_id, {}, {});
    Pending waiting_done;
    w.wi()->RunGraphAsync(nullptr, waiting.get(), waiting_done.Callback());
    CHECK_FALSE(waiting_done.Done());

    auto failing = TestWorker::MakeCall(
        *h0, step_id, {{step.feed_keys[0], Tensor::Scalar<int32_t>(0)}},
        step.fetch_keys);
    Pending failing_done;
    w.wi()->RunGraphAsync(nullptr, failing.get(), failing_done.Callback());
    // The root cause, not the Cancelled of its own waiting _Recv.
    REQUIRE_THAT(failing_done.Wait(),
                 StatusIs(absl::StatusCode::kInvalidArgument,
                          "Integer division by zero"));
    CHECK_THAT(failing_done.status,
               StatusIs(absl::StatusCode::kInvalidArgument, "node 'd'"));
    CHECK(failing->recv.empty());
    // The waiting partition's _Recv returns with the same error.
    REQUIRE_THAT(waiting_done.Wait(),
                 StatusIs(absl::StatusCode::kInvalidArgument,
                          "Integer division by zero"));
    REQUIRE_OK(w.CleanupGraph(step_id));
  }

  SECTION("a good divisor runs both partitions") {
    const int64_t step_id = 902;
    auto other = TestWorker::MakeCall(*h1, step_id, {}, {});
    Pending other_done;
    w.wi()->RunGraphAsync(nullptr, other.get(), other_done.Callback());
    auto client = TestWorker::MakeCall(
        *h0, step_id, {{step.feed_keys[0], Tensor::Scalar<int32_t>(2)}},
        step.fetch_keys);
    Pending client_done;
    w.wi()->RunGraphAsync(nullptr, client.get(), client_done.Callback());
    REQUIRE_OK(client_done.Wait());
    REQUIRE_OK(other_done.Wait());
    REQUIRE(client->recv.size() == 1);
    CHECK(client->recv[0].second.scalar<int32_t>() == 3);
    REQUIRE_OK(w.CleanupGraph(step_id));
  }
}

TEST_CASE("Session handles live in their worker session: CleanupAll frees "
          "the legacy session's, DeleteWorkerSession a session's") {
  TestWorker w(1);
  const GraphDef def = ParseGraph(R"pb(
    node {
      name: "x" op: "Placeholder" device: DEV0
      attr { key: "dtype" value { type: DT_FLOAT } }
    }
    node {
      name: "h" op: "GetSessionHandle" input: "x" device: DEV0
      attr { key: "T" value { type: DT_FLOAT } }
    }
    node {
      name: "p" op: "Placeholder" device: DEV0
      attr { key: "dtype" value { type: DT_STRING } }
    }
    node {
      name: "v" op: "GetSessionTensor" input: "p" device: DEV0
      attr { key: "dtype" value { type: DT_FLOAT } }
    }
  )pb");
  StepGraph store = w.Prepare(def, {"x:0"}, {"h:0"});
  StepGraph read = w.Prepare(def, {"p:0"}, {"v:0"});
  int64_t step_id = 40;
  // Stores 1.5 in `session`; returns the handle.
  auto stored = [&](const std::string& session) {
    auto handle = w.Register(store.whole, session);
    REQUIRE_OK(handle);
    auto call = TestWorker::MakeCall(
        *handle, ++step_id,
        {{store.feed_keys[0], Tensor::FromVector<float>({1.5f})}},
        store.fetch_keys, session);
    Pending pending;
    w.wi()->RunGraphAsync(nullptr, call.get(), pending.Callback());
    REQUIRE_OK(pending.Wait());
    REQUIRE_OK(w.CleanupGraph(step_id));
    return call->recv[0].second.scalar<std::string>();
  };
  auto reads = [&](const std::string& session, const std::string& h) {
    auto handle = w.Register(read.whole, session);
    REQUIRE_OK(handle);
    Tensor fed(DT_STRING, TensorShape());
    fed.scalar<std::string>() = h;
    auto call = TestWorker::MakeCall(*handle, ++step_id,
                                     {{read.feed_keys[0], fed}},
                                     read.fetch_keys, session);
    Pending pending;
    w.wi()->RunGraphAsync(nullptr, call.get(), pending.Callback());
    absl::Status s = pending.Wait();
    REQUIRE_OK(w.CleanupGraph(step_id));
    return s;
  };

  const std::string legacy = stored("");
  REQUIRE_OK(reads("", legacy));
  REQUIRE_OK(w.CreateSession("s1"));
  CHECK_THAT(reads("s1", legacy),
             StatusIs(absl::StatusCode::kInvalidArgument, legacy));
  CleanupAllRequest cleanup;
  CleanupAllResponse cleanup_response;
  Pending cleaned;
  w.wi()->CleanupAllAsync(&cleanup, &cleanup_response, cleaned.Callback());
  REQUIRE_OK(cleaned.Wait());
  CHECK_THAT(reads("", legacy),
             StatusIs(absl::StatusCode::kInvalidArgument, legacy));

  const std::string kept = stored("s1");
  REQUIRE_OK(reads("s1", kept));
  REQUIRE_OK(w.DeleteSession("s1"));
  REQUIRE_OK(w.CreateSession("s1"));
  CHECK_THAT(reads("s1", kept),
             StatusIs(absl::StatusCode::kInvalidArgument, kept));
}

TEST_CASE("One registered graph spanning devices keeps the root cause") {
  TestWorker w(2);
  StepGraph step = w.Prepare(ParseGraph(kDivGraph), {"z:0"}, {"e:0"});
  auto handle = w.Register(step.whole);
  REQUIRE_OK(handle);
  // The failure cancels CPU:1's executor, whose Cancelled may come back
  // before the failing executor's own error; every step must still report
  // the division. Many steps, so that both orders occur.
  for (int64_t step_id = 300; step_id < 340; ++step_id) {
    auto call = TestWorker::MakeCall(
        *handle, step_id, {{step.feed_keys[0], Tensor::Scalar<int32_t>(0)}},
        step.fetch_keys);
    Pending pending;
    w.wi()->RunGraphAsync(nullptr, call.get(), pending.Callback());
    REQUIRE_THAT(pending.Wait(),
                 StatusIs(absl::StatusCode::kInvalidArgument,
                          "Integer division by zero"));
    REQUIRE_OK(w.CleanupGraph(step_id));
  }
}

TEST_CASE("CleanupGraph removes the step's rendezvous and fails its waiters") {
  TestWorker w(2);
  auto handle = w.Register(ParseGraph(R"pb(
    node {
      name: "c" op: "Const" device: DEV0
      attr { key: "dtype" value { type: DT_FLOAT } }
      attr { key: "value" value { tensor {
        dtype: DT_FLOAT tensor_shape {} float_val: 1 } } }
    }
  )pb"));
  REQUIRE_OK(handle);
  auto call = TestWorker::MakeCall(*handle, 41, {}, {});
  Pending ran;
  w.wi()->RunGraphAsync(nullptr, call.get(), ran.Callback());
  REQUIRE_OK(ran.Wait());
  CHECK(w.rendezvous_mgr()->NumSteps() == 1);

  // A RecvTensor of step 42 waits in that step's rendezvous...
  RecvTensorRequest request;
  request.set_step_id(42);
  request.set_rendezvous_key(Rendezvous::CreateKey(
      Dev(1), w.Incarnation(Dev(1)), kRemote, "never_sent"));
  RecvTensorResult result;
  Pending recv;
  w.wi()->RecvTensorAsync(nullptr, &request, &result, recv.Callback());
  CHECK(w.rendezvous_mgr()->NumSteps() == 2);
  CHECK_FALSE(recv.Done());

  // ... until the step is cleaned up.
  REQUIRE_OK(w.CleanupGraph(42));
  CHECK_THAT(recv.Wait(), StatusIs(absl::StatusCode::kCancelled));
  CHECK(w.rendezvous_mgr()->NumSteps() == 1);
  REQUIRE_OK(w.CleanupGraph(41));
  CHECK(w.rendezvous_mgr()->NumSteps() == 0);
  // Unknown steps are fine.
  REQUIRE_OK(w.CleanupGraph(12345));
}

TEST_CASE("A RunGraph cleans up the finished steps it names first, not "
          "its own") {
  TestWorker w(1);
  const GraphDef def = ParseGraph(R"pb(
    node {
      name: "c" op: "Const" device: DEV0
      attr { key: "dtype" value { type: DT_FLOAT } }
      attr { key: "value" value { tensor {
        dtype: DT_FLOAT tensor_shape {} float_val: 1 } } }
    }
  )pb");
  // What the master asks before it holds cleanups for a RunGraph.
  RegisterGraphRequest register_request;
  *register_request.mutable_graph_def() = def;
  RegisterGraphResponse register_response;
  Pending registered;
  w.wi()->RegisterGraphAsync(&register_request, &register_response,
                             registered.Callback());
  REQUIRE_OK(registered.Wait());
  CHECK(register_response.cleanup_in_run_graph());

  for (int64_t step : {61, 62}) {
    auto call =
        TestWorker::MakeCall(register_response.graph_handle(), step, {}, {});
    Pending ran;
    w.wi()->RunGraphAsync(nullptr, call.get(), ran.Callback());
    REQUIRE_OK(ran.Wait());
  }
  REQUIRE(w.rendezvous_mgr()->NumSteps() == 2);
  // A waiter of step 62 is woken by the cleanup that step 63 carries.
  RecvTensorRequest request;
  request.set_step_id(62);
  request.set_rendezvous_key(Rendezvous::CreateKey(
      Dev(0), w.Incarnation(Dev(0)), kRemote, "never_sent"));
  RecvTensorResult result;
  Pending recv;
  w.wi()->RecvTensorAsync(nullptr, &request, &result, recv.Callback());

  auto call =
      TestWorker::MakeCall(register_response.graph_handle(), 63, {}, {});
  // Its own id among them is ignored; unknown ones are fine.
  for (int64_t step : {61, 62, 63, 12345}) {
    call->request.add_cleanup_step_id(step);
  }
  Pending ran;
  w.wi()->RunGraphAsync(nullptr, call.get(), ran.Callback());
  REQUIRE_OK(ran.Wait());
  CHECK_THAT(recv.Wait(), StatusIs(absl::StatusCode::kCancelled));
  CHECK(w.rendezvous_mgr()->NumSteps() == 1);
  CHECK(w.rendezvous_mgr()->FindIfLive(63) != nullptr);
  REQUIRE_OK(w.CleanupGraph(63));

  // Too many is refused, naming the count, and cleans nothing up.
  auto flood =
      TestWorker::MakeCall(register_response.graph_handle(), 64, {}, {});
  for (int64_t i = 0; i <= Worker::kMaxCleanupsPerRunGraph; ++i) {
    flood->request.add_cleanup_step_id(1000 + i);
  }
  Pending refused;
  w.wi()->RunGraphAsync(nullptr, flood.get(), refused.Callback());
  CHECK_THAT(refused.Wait(),
             StatusIs(absl::StatusCode::kInvalidArgument,
                      "RunGraph of step 64 names 4097 finished steps to "
                      "clean up; at most 4096"));
}

TEST_CASE("RecvTensor checks the key's device and incarnation") {
  TestWorker w(2);
  RecvTensorRequest request;
  request.set_step_id(7);
  RecvTensorResult result;

  SECTION("malformed key") {
    request.set_rendezvous_key("not;a;key");
    Pending p;
    w.wi()->RecvTensorAsync(nullptr, &request, &result, p.Callback());
    CHECK_THAT(p.Wait(),
               StatusIs(absl::StatusCode::kInvalidArgument, "not;a;key"));
  }
  SECTION("a device this worker does not have") {
    const std::string dev9 = absl::StrCat(kTask, "/device:CPU:9");
    request.set_rendezvous_key(
        Rendezvous::CreateKey(dev9, 1, kRemote, "edge_1_a"));
    Pending p;
    w.wi()->RecvTensorAsync(nullptr, &request, &result, p.Callback());
    CHECK_THAT(p.Wait(), StatusIs(absl::StatusCode::kNotFound, dev9));
  }
  SECTION("a stale incarnation") {
    request.set_rendezvous_key(Rendezvous::CreateKey(
        Dev(1), w.Incarnation(Dev(1)) ^ 1, kRemote, "edge_1_a"));
    Pending p;
    w.wi()->RecvTensorAsync(nullptr, &request, &result, p.Callback());
    CHECK_THAT(p.Wait(),
               StatusIs(absl::StatusCode::kAborted,
                        "RecvTensor expects a different device incarnation"));
    CHECK_THAT(p.status, StatusIs(absl::StatusCode::kAborted, "restarted"));
  }
  // Nothing was left waiting.
  CHECK(w.rendezvous_mgr()->NumSteps() == 0);
}

TEST_CASE("RecvTensor waits for the step's _Send") {
  TestWorker w(2);
  const uint64_t inc1 = w.Incarnation(Dev(1));
  auto handle = w.Register(ParseGraph(SenderGraph(inc1)));
  REQUIRE_OK(handle);

  const int64_t step_id = 1234;
  RecvTensorRequest request;
  request.set_step_id(step_id);
  request.set_rendezvous_key(
      Rendezvous::CreateKey(Dev(1), inc1, kRemote, "edge_5_c"));
  RecvTensorResult result;
  Pending recv;
  w.wi()->RecvTensorAsync(nullptr, &request, &result, recv.Callback());
  CHECK_FALSE(recv.Done());  // nothing sent yet

  auto call = TestWorker::MakeCall(*handle, step_id, {}, {});
  Pending ran;
  w.wi()->RunGraphAsync(nullptr, call.get(), ran.Callback());
  REQUIRE_OK(ran.Wait());
  REQUIRE_OK(recv.Wait());
  CHECK_FALSE(result.is_dead);
  CHECK(result.tensor.dtype() == DT_FLOAT);
  CHECK(result.tensor.scalar<float>() == 3.5f);

  SECTION("a key whose task names this worker differently still resolves") {
    // The sender may know this task under another name; only the device's
    // local part and incarnation must match. Run a second step.
    const std::string other_name = "/job:worker/replica:0/task:3/device:CPU:1";
    RecvTensorRequest renamed;
    renamed.set_step_id(step_id + 1);
    renamed.set_rendezvous_key(
        Rendezvous::CreateKey(other_name, inc1, kRemote, "edge_5_c"));
    RecvTensorResult renamed_result;
    CallOptions opts;
    Pending p;
    w.wi()->RecvTensorAsync(&opts, &renamed, &renamed_result, p.Callback());
    CHECK_FALSE(p.Done());  // accepted: it waits
    opts.StartCancel();
    CHECK_THAT(p.Wait(), StatusIs(absl::StatusCode::kCancelled));
    REQUIRE_OK(w.CleanupGraph(step_id + 1));
  }
  REQUIRE_OK(w.CleanupGraph(step_id));
}

TEST_CASE("RecvTensor ends with DeadlineExceeded after its timeout") {
  TestWorker w(1);
  RecvTensorRequest request;
  request.set_step_id(3);
  request.set_rendezvous_key(Rendezvous::CreateKey(
      Dev(0), w.Incarnation(Dev(0)), kRemote, "never"));
  RecvTensorResult result;
  CallOptions opts;
  opts.SetTimeout(absl::Milliseconds(20));
  Pending p;
  w.wi()->RecvTensorAsync(&opts, &request, &result, p.Callback());
  CHECK_THAT(p.Wait(), StatusIs(absl::StatusCode::kDeadlineExceeded, "never"));
  REQUIRE_OK(w.CleanupGraph(3));
}

TEST_CASE("CallOptions end a blocked step") {
  TestWorker w(1);
  auto handle = w.Register(ParseGraph(BlockedGraph()));
  REQUIRE_OK(handle);

  SECTION("StartCancel: Cancelled") {
    auto call = TestWorker::MakeCall(*handle, 10, {}, {});
    CallOptions opts;
    Pending p;
    w.wi()->RunGraphAsync(&opts, call.get(), p.Callback());
    CHECK_FALSE(p.Done());
    opts.StartCancel();
    CHECK_THAT(p.Wait(), StatusIs(absl::StatusCode::kCancelled));
    REQUIRE_OK(w.CleanupGraph(10));
  }
  SECTION("cancelled before the call: Cancelled") {
    auto call = TestWorker::MakeCall(*handle, 11, {}, {});
    CallOptions opts;
    opts.StartCancel();
    Pending p;
    w.wi()->RunGraphAsync(&opts, call.get(), p.Callback());
    CHECK_THAT(p.Wait(), StatusIs(absl::StatusCode::kCancelled));
    REQUIRE_OK(w.CleanupGraph(11));
  }
  SECTION("timeout: DeadlineExceeded") {
    auto call = TestWorker::MakeCall(*handle, 12, {}, {});
    CallOptions opts;
    opts.SetTimeout(absl::Milliseconds(20));
    Pending p;
    w.wi()->RunGraphAsync(&opts, call.get(), p.Callback());
    CHECK_THAT(p.Wait(),
               StatusIs(absl::StatusCode::kDeadlineExceeded, "step 12"));
    REQUIRE_OK(w.CleanupGraph(12));
  }
  SECTION("CleanupGraph of the running step") {
    auto call = TestWorker::MakeCall(*handle, 13, {}, {});
    Pending p;
    w.wi()->RunGraphAsync(nullptr, call.get(), p.Callback());
    CHECK_FALSE(p.Done());
    REQUIRE_OK(w.CleanupGraph(13));
    CHECK_THAT(p.Wait(), StatusIs(absl::StatusCode::kCancelled, "step 13"));
  }
}

TEST_CASE("A timeout that does not fire leaves a step alone") {
  TestWorker w(2);
  StepGraph step = w.Prepare(ParseGraph(kDivGraph), {"z:0"}, {"e:0"});
  auto handle = w.Register(step.whole);
  REQUIRE_OK(handle);
  CallOptions opts;
  opts.SetTimeout(absl::Hours(1));
  auto call = TestWorker::MakeCall(
      *handle, 8, {{step.feed_keys[0], Tensor::Scalar<int32_t>(7)}},
      step.fetch_keys);
  Pending p;
  w.wi()->RunGraphAsync(&opts, call.get(), p.Callback());
  REQUIRE_OK(p.Wait());
  CHECK(call->recv[0].second.scalar<int32_t>() == 1);
  REQUIRE_OK(w.CleanupGraph(8));
}

TEST_CASE("Sessions: create, use, delete, unknown handles are errors") {
  TestWorker w(2);
  StepGraph step = w.Prepare(ParseGraph(kDivGraph), {"z:0"}, {"e:0"});

  REQUIRE_OK(w.CreateSession("sess_a"));
  CHECK_THAT(w.CreateSession("sess_a"),
             StatusIs(absl::StatusCode::kAlreadyExists, "sess_a"));
  CHECK_THAT(w.CreateSession(""),
             StatusIs(absl::StatusCode::kInvalidArgument));

  auto handle = w.Register(step.whole, "sess_a");
  REQUIRE_OK(handle);

  auto run = [&](const std::string& graph, const std::string& session) {
    auto call = TestWorker::MakeCall(
        graph, 21, {{step.feed_keys[0], Tensor::Scalar<int32_t>(1)}},
        step.fetch_keys, session);
    Pending p;
    w.wi()->RunGraphAsync(nullptr, call.get(), p.Callback());
    absl::Status s = p.Wait();
    REQUIRE_OK(w.CleanupGraph(21));
    if (s.ok()) {
      REQUIRE(call->recv.size() == 1);
      CHECK(call->recv[0].second.scalar<int32_t>() == 7);
    }
    return s;
  };
  REQUIRE_OK(run(*handle, "sess_a"));

  // The graph belongs to its session only.
  CHECK_THAT(run(*handle, ""), StatusIs(absl::StatusCode::kAborted,
                                        "Graph handle is not found"));
  CHECK_THAT(run("nonesuch", "sess_a"),
             StatusIs(absl::StatusCode::kAborted,
                      "Graph handle is not found: nonesuch"));
  CHECK_THAT(w.Register(step.whole, "sess_b").status(),
             StatusIs(absl::StatusCode::kAborted, "Session sess_b is not found"));
  CHECK_THAT(run(*handle, "sess_b"),
             StatusIs(absl::StatusCode::kAborted, "sess_b"));

  // DeregisterGraph.
  DeregisterGraphRequest dereg;
  dereg.set_session_handle("sess_a");
  dereg.set_create_worker_session_called(true);
  dereg.set_graph_handle("nonesuch");
  DeregisterGraphResponse dereg_response;
  {
    Pending p;
    w.wi()->DeregisterGraphAsync(&dereg, &dereg_response, p.Callback());
    CHECK_THAT(p.Wait(), StatusIs(absl::StatusCode::kAborted, "nonesuch"));
  }
  auto second = w.Register(step.whole, "sess_a");
  REQUIRE_OK(second);
  CHECK(*second != *handle);
  dereg.set_graph_handle(*second);
  {
    Pending p;
    w.wi()->DeregisterGraphAsync(&dereg, &dereg_response, p.Callback());
    REQUIRE_OK(p.Wait());
  }
  CHECK_THAT(run(*second, "sess_a"),
             StatusIs(absl::StatusCode::kAborted, *second));
  REQUIRE_OK(run(*handle, "sess_a"));

  // Deleting the session forgets it and its graphs.
  REQUIRE_OK(w.DeleteSession("sess_a"));
  CHECK_THAT(run(*handle, "sess_a"),
             StatusIs(absl::StatusCode::kAborted, "Session sess_a is not found"));
  REQUIRE_OK(w.DeleteSession("sess_a"));  // twice is fine

  // A legacy master (create_worker_session_called false) uses the legacy
  // session whatever handle it sends.
  RegisterGraphRequest legacy;
  legacy.set_session_handle("from_an_old_master");
  *legacy.mutable_graph_def() = step.whole;
  RegisterGraphResponse legacy_response;
  Pending p;
  w.wi()->RegisterGraphAsync(&legacy, &legacy_response, p.Callback());
  REQUIRE_OK(p.Wait());
  REQUIRE_OK(run(legacy_response.graph_handle(), ""));
}

TEST_CASE("RegisterGraph rejects nodes off this worker's devices") {
  TestWorker w(2);
  SECTION("unknown device") {
    auto h = w.Register(ParseGraph(R"pb(
      node {
        name: "c" op: "Const" device: "/job:localhost/replica:0/task:0/device:CPU:5"
        attr { key: "dtype" value { type: DT_FLOAT } }
        attr { key: "value" value { tensor {
          dtype: DT_FLOAT tensor_shape {} float_val: 1 } } }
      }
    )pb"));
    CHECK_THAT(h.status(), StatusIs(absl::StatusCode::kInvalidArgument, "node 'c'"));
    CHECK_THAT(h.status(), StatusIs(absl::StatusCode::kInvalidArgument, "CPU:5"));
  }
  SECTION("no device") {
    auto h = w.Register(ParseGraph(R"pb(
      node {
        name: "c" op: "Const"
        attr { key: "dtype" value { type: DT_FLOAT } }
        attr { key: "value" value { tensor {
          dtype: DT_FLOAT tensor_shape {} float_val: 1 } } }
      }
    )pb"));
    CHECK_THAT(h.status(), StatusIs(absl::StatusCode::kInvalidArgument, "node 'c'"));
  }
  SECTION("an invalid graph") {
    auto h = w.Register(ParseGraph(R"pb(
      node {
        name: "y" op: "Identity" input: "missing" device: DEV0
        attr { key: "T" value { type: DT_FLOAT } }
      }
    )pb"));
    CHECK_THAT(h.status(), StatusIs(absl::StatusCode::kInvalidArgument, "missing"));
  }
}

TEST_CASE("RunGraph checks feed and fetch keys against the graph") {
  TestWorker w(2);
  StepGraph step = w.Prepare(ParseGraph(kDivGraph), {"z:0"}, {"e:0"});
  auto handle = w.Register(step.whole);
  REQUIRE_OK(handle);
  auto expect = [&](std::vector<std::pair<std::string, Tensor>> feeds,
                    std::vector<std::string> fetches,
                    const std::string& substring) {
    auto call = TestWorker::MakeCall(*handle, 50, feeds, fetches);
    Pending p;
    w.wi()->RunGraphAsync(nullptr, call.get(), p.Callback());
    CHECK_THAT(p.Wait(),
               StatusIs(absl::StatusCode::kInvalidArgument, substring));
  };
  const Tensor one = Tensor::Scalar<int32_t>(1);
  expect({{"bad;key", one}}, step.fetch_keys, "bad;key");
  expect({{step.feed_keys[0], one}}, {"worse;key"}, "worse;key");
  expect({}, step.fetch_keys, "_recv_z_0");  // the feed is missing
  const std::string stranger =
      Rendezvous::CreateKey(Dev(0), 1, Dev(0), "q:0");
  expect({{step.feed_keys[0], one}, {stranger, one}}, step.fetch_keys,
         "q:0");
  expect({{step.feed_keys[0], one}}, {stranger}, "q:0");
  expect({{step.feed_keys[0], one}, {step.feed_keys[0], one}},
         step.fetch_keys, "twice");
  REQUIRE_OK(w.CleanupGraph(50));

  SECTION("an unpadded incarnation names the same key") {
    auto parsed = Rendezvous::ParsedKey::Parse(step.feed_keys[0]);
    REQUIRE_OK(parsed);
    const std::string unpadded = absl::StrCat(
        parsed->src_device(), ";", absl::Hex(parsed->src_incarnation()), ";",
        parsed->dst_device(), ";", parsed->edge_name(), ";0:0");
    auto call = TestWorker::MakeCall(*handle, 51, {{unpadded, one}},
                                     step.fetch_keys);
    Pending p;
    w.wi()->RunGraphAsync(nullptr, call.get(), p.Callback());
    REQUIRE_OK(p.Wait());
    CHECK(call->recv[0].second.scalar<int32_t>() == 7);
    REQUIRE_OK(w.CleanupGraph(51));
  }
}

TEST_CASE("RunGraph records step stats when asked") {
  TestWorker w(2);
  StepGraph step = w.Prepare(ParseGraph(kDivGraph), {"z:0"}, {"e:0"});
  auto handle = w.Register(step.whole);
  REQUIRE_OK(handle);
  for (bool record : {false, true}) {
    auto call = TestWorker::MakeCall(
        *handle, 60, {{step.feed_keys[0], Tensor::Scalar<int32_t>(1)}},
        step.fetch_keys);
    call->request.mutable_exec_opts()->set_record_timeline(record);
    Pending p;
    w.wi()->RunGraphAsync(nullptr, call.get(), p.Callback());
    REQUIRE_OK(p.Wait());
    REQUIRE_OK(w.CleanupGraph(60));
    if (!record) {
      CHECK(call->step_stats.dev_stats_size() == 0);
      continue;
    }
    // Both devices ran nodes; d ran on CPU:0 and e on CPU:1.
    REQUIRE(call->step_stats.dev_stats_size() == 2);
    std::map<std::string, std::vector<std::string>> nodes;
    for (const auto& dev : call->step_stats.dev_stats()) {
      for (const auto& n : dev.node_stats()) {
        nodes[dev.device()].push_back(n.node_name());
      }
    }
    auto has = [&](const std::string& device, const std::string& node) {
      const auto& v = nodes[device];
      return std::find(v.begin(), v.end(), node) != v.end();
    };
    CHECK(has(Dev(0), "d"));
    CHECK(has(Dev(1), "e"));
  }
}

TEST_CASE("100 concurrent steps of one graph give each its own result") {
  TestWorker w(3);
  StepGraph step = w.Prepare(ParseGraph(kAddGraph), {"x:0", "xm:0"},
                             {"z:0", "m:0"});
  auto handle = w.Register(step.whole);
  REQUIRE_OK(handle);

  constexpr int kSteps = 100;
  std::vector<std::unique_ptr<RunGraphCall>> calls;
  std::vector<std::unique_ptr<Pending>> pendings;
  for (int i = 0; i < kSteps; ++i) {
    const float f = static_cast<float>(i);
    calls.push_back(TestWorker::MakeCall(
        *handle, 1000 + i,
        {{step.feed_keys[0], Tensor::FromVector<float>({f, 2 * f})},
         {step.feed_keys[1],
          Tensor::FromVector<float>({f, 0, 0, 1}, TensorShape({2, 2}))}},
        step.fetch_keys));
    pendings.push_back(std::make_unique<Pending>());
  }
  // Start them from several threads at once.
  std::vector<std::thread> starters;
  for (int t = 0; t < 4; ++t) {
    starters.emplace_back([&, t] {
      for (int i = t; i < kSteps; i += 4) {
        w.wi()->RunGraphAsync(nullptr, calls[i].get(),
                              pendings[i]->Callback());
      }
    });
  }
  for (auto& t : starters) t.join();
  for (int i = 0; i < kSteps; ++i) {
    INFO("step " << i);
    REQUIRE_OK(pendings[i]->Wait());
    const float f = static_cast<float>(i);
    REQUIRE(calls[i]->recv.size() == 2);
    CHECK(Floats(calls[i]->recv[0].second) ==
          std::vector<float>{f + 10, 2 * f + 20});
    // [[f,0],[0,1]] x [[1,2],[3,4]] = [[f,2f],[3,4]]
    CHECK(Floats(calls[i]->recv[1].second) ==
          std::vector<float>{f, 2 * f, 3, 4});
    REQUIRE_OK(w.CleanupGraph(1000 + i));
  }
  CHECK(w.rendezvous_mgr()->NumSteps() == 0);
}

}  // namespace
}  // namespace dfx
