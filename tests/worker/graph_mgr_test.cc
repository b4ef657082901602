// Tests of worker/graph_mgr.h used directly: handles, kernel errors,
// deregistration under a running step, and the caller's cancellation.
#include "worker/graph_mgr.h"

#include <memory>
#include <string>

#include "absl/strings/ascii.h"
#include "catch2/catch.hpp"
#include "kernels/kernels.h"
#include "tests/testing/status_matchers.h"
#include "tests/worker/worker_test_util.h"

namespace dfx {
namespace {

using ::dfx::testing::StatusIs;
using namespace ::dfx::worker_testing;  // NOLINT

constexpr char kConstGraph[] = R"pb(
  node {
    name: "c" op: "Const" device: DEV0
    attr { key: "dtype" value { type: DT_FLOAT } }
    attr { key: "value" value { tensor {
      dtype: DT_FLOAT tensor_shape {} float_val: 1 } } }
  }
)pb";

// _Recv r of edge_1_a from another process, then y = Identity(r) fetched by
// a client-terminated _Send on CPU:0.
std::string RecvGraph(uint64_t incarnation0) {
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
    node {
      name: "_send_y_0" op: "_Send" input: "y" device: DEV0
      attr { key: "T" value { type: DT_FLOAT } }
      attr { key: "tensor_name" value { s: "y:0" } }
      attr { key: "send_device" value { s: ")pb",
                      Dev(0), R"pb(" } }
      attr { key: "send_device_incarnation" value { i: )pb",
                      static_cast<int64_t>(incarnation0), R"pb( } }
      attr { key: "recv_device" value { s: ")pb",
                      Dev(0), R"pb(" } }
      attr { key: "client_terminated" value { b: true } }
    }
  )pb");
}

struct Fixture {
  Fixture() : mgr(MakeEnv()) {}

  GraphMgr::Env MakeEnv(const KernelRegistry* kernels = nullptr) {
    GraphMgr::Env env;
    env.device_mgr = w.devices();
    env.rendezvous_mgr = w.rendezvous_mgr();
    ThreadPool* pool = w.pool();
    env.runner = [pool](std::function<void()> fn) {
      pool->Schedule(std::move(fn));
    };
    env.ops = OpRegistry::Global();
    env.kernels = kernels != nullptr ? kernels : StandardKernelRegistry();
    return env;
  }

  TestWorker w{2};
  GraphMgr mgr;
};

TEST_CASE("GraphMgr handles are unique and deregister once") {
  Fixture f;
  auto a = f.mgr.Register(ParseGraph(kConstGraph));
  auto b = f.mgr.Register(ParseGraph(kConstGraph));
  REQUIRE_OK(a);
  REQUIRE_OK(b);
  CHECK(*a != *b);
  CHECK(a->size() == 16);
  for (char c : *a) CHECK(absl::ascii_isxdigit(c));
  CHECK(f.mgr.NumGraphs() == 2);

  // Another manager (another session, a restarted worker) does not share
  // them.
  GraphMgr other(f.MakeEnv());
  auto c = other.Register(ParseGraph(kConstGraph));
  REQUIRE_OK(c);
  CHECK(*c != *a);
  CHECK(*c != *b);

  REQUIRE_OK(f.mgr.Deregister(*a));
  CHECK(f.mgr.NumGraphs() == 1);
  CHECK_THAT(f.mgr.Deregister(*a),
             StatusIs(absl::StatusCode::kAborted,
                      "Graph handle is not found: " + *a));
  f.mgr.DeregisterAll();
  CHECK(f.mgr.NumGraphs() == 0);
}

TEST_CASE("GraphMgr returns kernel construction errors naming the node") {
  Fixture f;
  KernelRegistry empty;
  GraphMgr mgr(f.MakeEnv(&empty));
  auto h = mgr.Register(ParseGraph(kConstGraph));
  CHECK_THAT(h.status(), StatusIs(absl::StatusCode::kNotFound, "'c'"));
  CHECK(mgr.NumGraphs() == 0);
}

TEST_CASE("GraphMgr: a step outlives the deregistration of its graph") {
  Fixture f;
  const uint64_t inc0 = f.w.Incarnation(Dev(0));
  auto h = f.mgr.Register(ParseGraph(RecvGraph(inc0)));
  REQUIRE_OK(h);
  const std::string fetch = Rendezvous::CreateKey(Dev(0), inc0, Dev(0), "y:0");
  RunGraphCall call;
  call.request.add_recv_key(fetch);
  Pending p;
  f.mgr.ExecuteAsync(*h, 5, &call, nullptr, nullptr, p.Callback());
  CHECK_FALSE(p.Done());  // r waits
  REQUIRE_OK(f.mgr.Deregister(*h));

  // The other process's tensor arrives.
  auto key = Rendezvous::ParsedKey::Parse(
      Rendezvous::CreateKey(kRemote, 1, Dev(0), "edge_1_a"));
  REQUIRE_OK(key);
  REQUIRE_OK(f.w.rendezvous_mgr()->Find(5)->Send(
      *key, {}, Tensor::Scalar<float>(2.5f), false));
  REQUIRE_OK(p.Wait());
  REQUIRE(call.recv.size() == 1);
  CHECK(call.recv[0].first == fetch);
  CHECK(call.recv[0].second.scalar<float>() == 2.5f);
  f.w.rendezvous_mgr()->Cleanup(5);
}

TEST_CASE("GraphMgr: the caller's cancellation manager cancels the step") {
  Fixture f;
  const uint64_t inc0 = f.w.Incarnation(Dev(0));
  auto h = f.mgr.Register(ParseGraph(RecvGraph(inc0)));
  REQUIRE_OK(h);
  RunGraphCall call;
  call.request.add_recv_key(
      Rendezvous::CreateKey(Dev(0), inc0, Dev(0), "y:0"));

  SECTION("while it runs") {
    CancellationManager cm;
    Pending p;
    f.mgr.ExecuteAsync(*h, 6, &call, &cm, nullptr, p.Callback());
    CHECK_FALSE(p.Done());
    cm.StartCancel();
    CHECK_THAT(p.Wait(), StatusIs(absl::StatusCode::kCancelled));
    CHECK(call.recv.empty());
    // The step's rendezvous is aborted with it: a later receive fails.
    auto key = Rendezvous::ParsedKey::Parse(
        Rendezvous::CreateKey(kRemote, 1, Dev(0), "other"));
    REQUIRE_OK(key);
    CHECK_THAT(f.w.rendezvous_mgr()->Find(6)->Send(
                   *key, {}, Tensor::Scalar<float>(1), false),
               StatusIs(absl::StatusCode::kCancelled));
    f.w.rendezvous_mgr()->Cleanup(6);
  }
  SECTION("before it starts") {
    CancellationManager cm;
    cm.StartCancel();
    Pending p;
    f.mgr.ExecuteAsync(*h, 7, &call, &cm, nullptr, p.Callback());
    CHECK_THAT(p.Wait(), StatusIs(absl::StatusCode::kCancelled));
    f.w.rendezvous_mgr()->Cleanup(7);
  }
}

TEST_CASE("GraphMgr: a dead fetched tensor is an error naming its key") {
  Fixture f;
  const uint64_t inc0 = f.w.Incarnation(Dev(0));
  auto h = f.mgr.Register(ParseGraph(RecvGraph(inc0)));
  REQUIRE_OK(h);
  const std::string fetch = Rendezvous::CreateKey(Dev(0), inc0, Dev(0), "y:0");
  RunGraphCall call;
  call.request.add_recv_key(fetch);
  Pending p;
  f.mgr.ExecuteAsync(*h, 8, &call, nullptr, nullptr, p.Callback());
  auto key = Rendezvous::ParsedKey::Parse(
      Rendezvous::CreateKey(kRemote, 1, Dev(0), "edge_1_a"));
  REQUIRE_OK(key);
  REQUIRE_OK(f.w.rendezvous_mgr()->Find(8)->Send(*key, {}, Tensor(), true));
  CHECK_THAT(p.Wait(), StatusIs(absl::StatusCode::kInvalidArgument, fetch));
  f.w.rendezvous_mgr()->Cleanup(8);
}

// Session handles: a graph that stores x (fed) by handle on DEV1, one that
// reads a fed handle back on DEV1, and one that deletes it.
constexpr char kSessionGraph[] = R"pb(
  node {
    name: "x" op: "Placeholder" device: DEV1
    attr { key: "dtype" value { type: DT_FLOAT } }
  }
  node {
    name: "h" op: "GetSessionHandle" input: "x" device: DEV1
    attr { key: "T" value { type: DT_FLOAT } }
  }
  node {
    name: "unfetched" op: "GetSessionHandle" input: "x" device: DEV1
    attr { key: "T" value { type: DT_FLOAT } }
  }
  node {
    name: "p" op: "Placeholder" device: DEV1
    attr { key: "dtype" value { type: DT_STRING } }
  }
  node {
    name: "v" op: "GetSessionTensor" input: "p" device: DEV1
    attr { key: "dtype" value { type: DT_FLOAT } }
  }
  node { name: "d" op: "DeleteSessionTensor" input: "p" device: DEV1 }
)pb";

// One step of `def` on `mgr` with `feeds`, fetching `fetches` and running
// `targets`: the fetched tensors, or the step's error.
absl::StatusOr<std::vector<Tensor>> RunStep(
    Fixture& f, GraphMgr& mgr, const GraphDef& def,
    const std::vector<std::pair<std::string, Tensor>>& feeds,
    const std::vector<std::string>& fetches,
    const std::vector<std::string>& targets, int64_t step_id) {
  auto graph = ImportGraphDef(def, OpRegistry::Global());
  REQUIRE_OK(graph);
  ClientGraphOptions options;
  for (const auto& [name, value] : feeds) options.feeds.push_back(name);
  options.fetches = fetches;
  options.targets = targets;
  options.client_device = Dev(0);
  options.client_device_incarnation = f.w.Incarnation(Dev(0));
  auto step = RewriteForStep(**graph, options);
  REQUIRE_OK(step);
  auto keys = ClientStepRendezvousKeys(options);
  REQUIRE_OK(keys);
  auto h = mgr.Register(ToGraphDef(**step));
  if (!h.ok()) return h.status();
  RunGraphCall call;
  for (size_t i = 0; i < feeds.size(); ++i) {
    call.send.emplace_back(keys->feed_keys[i], feeds[i].second);
  }
  for (const std::string& key : keys->fetch_keys) {
    call.request.add_recv_key(key);
  }
  Pending p;
  mgr.ExecuteAsync(*h, step_id, &call, nullptr, nullptr, p.Callback());
  absl::Status s = p.Wait();
  f.w.rendezvous_mgr()->Cleanup(step_id);
  REQUIRE_OK(mgr.Deregister(*h));
  if (!s.ok()) return s;
  std::vector<Tensor> out;
  for (auto& [key, value] : call.recv) out.push_back(value);
  return out;
}

Tensor StringScalar(const std::string& s) {
  Tensor t(DT_STRING, TensorShape());
  t.scalar<std::string>() = s;
  return t;
}

Tensor FloatScalar(float v) {
  Tensor t(DT_FLOAT, TensorShape());
  t.scalar<float>() = v;
  return t;
}

TEST_CASE(
    "GraphMgr keeps a fetched session handle's tensor until it is deleted "
    "and frees the rest with the session") {
  Fixture f;
  const GraphDef def = ParseGraph(kSessionGraph);
  auto stored = RunStep(f, f.mgr, def, {{"x", FloatScalar(2.5f)}},
                        {"h:0"}, {"unfetched"}, 11);
  REQUIRE_OK(stored);
  const std::string handle = (*stored)[0].scalar<std::string>();
  // Node name, the session's first id, the device: TensorFlow's spelling.
  // The unfetched handle took id 0 or 1 and was not kept.
  CHECK((handle == absl::StrCat("h;0;", Dev(1)) ||
         handle == absl::StrCat("h;1;", Dev(1))));
  CHECK(f.mgr.session_state()->size() == 1);

  auto read = RunStep(f, f.mgr, def, {{"p", StringScalar(handle)}}, {"v:0"},
                      {}, 12);
  REQUIRE_OK(read);
  CHECK((*read)[0].scalar<float>() == 2.5f);

  // Another session (another manager on the same devices) never sees it.
  GraphMgr other(f.MakeEnv());
  CHECK_THAT(RunStep(f, other, def, {{"p", StringScalar(handle)}}, {"v:0"},
                     {}, 13)
                 .status(),
             StatusIs(absl::StatusCode::kInvalidArgument,
                      absl::StrCat("The tensor with handle '", handle,
                                   "' is not in the session store.")));

  REQUIRE_OK(
      RunStep(f, f.mgr, def, {{"p", StringScalar(handle)}}, {}, {"d"}, 14));
  CHECK(f.mgr.session_state()->size() == 0);
  CHECK_THAT(RunStep(f, f.mgr, def, {{"p", StringScalar(handle)}}, {"v:0"},
                     {}, 15)
                 .status(),
             StatusIs(absl::StatusCode::kInvalidArgument,
                      absl::StrCat("node 'v' (op GetSessionTensor)")));
  CHECK_THAT(
      RunStep(f, f.mgr, def, {{"p", StringScalar(handle)}}, {}, {"d"}, 16)
          .status(),
      StatusIs(absl::StatusCode::kInvalidArgument,
               absl::StrCat("Failed to delete a tensor with handle '", handle,
                            "' in the session store.")));

  // A handle of another task says where its tensor lives.
  const std::string remote = absl::StrCat("h;0;", kRemote);
  CHECK_THAT(RunStep(f, f.mgr, def, {{"p", StringScalar(remote)}}, {"v:0"},
                     {}, 17)
                 .status(),
             StatusIs(absl::StatusCode::kInvalidArgument,
                      absl::StrCat("It was stored on ", kRemote)));

  // A failed step keeps nothing; DeregisterAll (the session's deletion)
  // frees what is kept. No step leaves its state in a device.
  REQUIRE_OK(RunStep(f, f.mgr, def, {{"x", FloatScalar(1)}}, {"h:0"}, {}, 18));
  CHECK(f.mgr.session_state()->size() == 1);
  f.mgr.DeregisterAll();
  CHECK(f.mgr.session_state()->size() == 0);
  auto d1 = f.w.devices()->LookupDevice(Dev(1));
  REQUIRE_OK(d1);
  for (int64_t step = 11; step <= 18; ++step) {
    CHECK_THAT((*d1)
                   ->resource_manager()
                   ->Lookup<SessionStepResource>(SessionStepContainer(step),
                                                 kSessionStepName)
                   .status(),
               StatusIs(absl::StatusCode::kNotFound));
  }
}

}  // namespace
}  // namespace dfx
