#include "graph/client_graph.h"

#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "catch2/catch.hpp"
#include "google/protobuf/text_format.h"
#include "graph/graph_def_import.h"
#include "graph/node_def_util.h"
#include "graph/ops/ops.h"
#include "graph/partition.h"
#include "tests/testing/status_matchers.h"

namespace dfx {
namespace {

using ::dfx::testing::StatusIs;

const char kClient[] = "/job:localhost/replica:0/task:0/device:CPU:0";
const char kWorker[] = "/job:worker/replica:0/task:0/device:CPU:0";
constexpr uint64_t kIncarnation = 0xfedcba9876543210ull;

// x, w: sources; two = IdentityN(x, w); m = x + w; p = two:0 + two:1;
// i = Identity(m); ctl waits for w; s waits for i and ctl.
const char* kGraph = R"pb(
  node {
    name: "x" op: "Placeholder"
    device: "/job:worker/replica:0/task:0/device:CPU:0"
    attr { key: "dtype" value { type: DT_FLOAT } }
  }
  node {
    name: "w" op: "Const"
    attr { key: "dtype" value { type: DT_FLOAT } }
    attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape {} float_val: 2 } } }
  }
  node {
    name: "two" op: "IdentityN" input: "x" input: "w"
    attr { key: "T" value { list { type: DT_FLOAT type: DT_FLOAT } } }
  }
  node {
    name: "m" op: "AddV2" input: "x" input: "w"
    attr { key: "T" value { type: DT_FLOAT } }
  }
  node {
    name: "p" op: "AddV2" input: "two:0" input: "two:1"
    attr { key: "T" value { type: DT_FLOAT } }
  }
  node {
    name: "i" op: "Identity" input: "m"
    attr { key: "T" value { type: DT_FLOAT } }
  }
  node { name: "ctl" op: "NoOp" input: "^w" }
  node { name: "s" op: "NoOp" input: "^i" input: "^ctl" }
  versions { producer: 27 }
)pb";

std::unique_ptr<Graph> Import(const std::string& text,
                              const OpRegistry* ops = OpRegistry::Global()) {
  GraphDef def;
  DFX_CHECK(google::protobuf::TextFormat::ParseFromString(text, &def));
  ImportOptions options;
  options.allow_internal_names = true;
  auto g = ImportGraphDef(def, ops, options);
  REQUIRE_OK(g);
  for (Node* n : (*g)->nodes()) {
    n->set_assigned_device_name(kWorker);
  }
  return std::move(g).value();
}

ClientGraphOptions Step(std::vector<std::string> feeds,
                        std::vector<std::string> fetches,
                        std::vector<std::string> targets = {}) {
  ClientGraphOptions o;
  o.feeds = std::move(feeds);
  o.fetches = std::move(fetches);
  o.targets = std::move(targets);
  o.client_device = kClient;
  o.client_device_incarnation = kIncarnation;
  return o;
}

std::vector<std::string> Names(const GraphDef& def) {
  std::vector<std::string> names;
  for (const NodeDef& n : def.node()) names.push_back(n.name());
  return names;
}

const NodeDef& Find(const GraphDef& def, const std::string& name) {
  for (const NodeDef& n : def.node()) {
    if (n.name() == name) return n;
  }
  FAIL("no node " << name);
  return def.node(0);
}

std::vector<std::string> Inputs(const NodeDef& n) {
  return {n.input().begin(), n.input().end()};
}

// Runs RewriteForStep, checks the result imports as it is, and returns it
// as a GraphDef.
GraphDef Rewrite(const Graph& g, const ClientGraphOptions& o) {
  auto out = RewriteForStep(g, o);
  REQUIRE_OK(out);
  GraphDef def = ToGraphDef(**out);
  ImportOptions options;
  options.allow_internal_names = true;
  REQUIRE_OK(ImportGraphDef(def, OpRegistry::Global(), options));
  return def;
}

std::string Key(const std::string& tensor) {
  return absl::StrCat(kClient, ";fedcba9876543210;", kClient, ";", tensor,
                      ";0:0");
}

void CheckClientEndpoint(const NodeDef& n, const std::string& op,
                         const std::string& tensor_name) {
  INFO(n.DebugString());
  CHECK(n.op() == op);
  CHECK(n.device() == kClient);
  CHECK(n.attr().at(op == "_Send" ? "T" : "tensor_type").type() == DT_FLOAT);
  CHECK(n.attr().at("tensor_name").s() == tensor_name);
  CHECK(n.attr().at("send_device").s() == kClient);
  CHECK(n.attr().at("recv_device").s() == kClient);
  CHECK(n.attr().at("send_device_incarnation").i() ==
        static_cast<int64_t>(kIncarnation));
  CHECK(n.attr().at("client_terminated").b());
  auto key = SendRecvRendezvousKey(n);
  REQUIRE_OK(key);
  CHECK(*key == Key(tensor_name));
}

TEST_CASE("a feed becomes a client _Recv and a fetch a client _Send") {
  auto g = Import(kGraph);
  auto out = RewriteForStep(*g, Step({"m"}, {"i:0"}));
  REQUIRE_OK(out);
  // x and w only fed m, which is fed: they are cut off.
  const GraphDef def = ToGraphDef(**out);
  CHECK(Names(def) ==
        std::vector<std::string>{"_recv_m_0", "i", "_send_i_0"});
  CheckClientEndpoint(Find(def, "_recv_m_0"), "_Recv", "m:0");
  CheckClientEndpoint(Find(def, "_send_i_0"), "_Send", "i:0");
  CHECK(Inputs(Find(def, "i")) == std::vector<std::string>{"_recv_m_0"});
  CHECK(Inputs(Find(def, "_send_i_0")) == std::vector<std::string>{"i"});
  // Placement: endpoints on the client, kept nodes where they were.
  CHECK((*out)->FindNode("_recv_m_0")->assigned_device_name() == kClient);
  CHECK((*out)->FindNode("_send_i_0")->assigned_device_name() == kClient);
  CHECK((*out)->FindNode("i")->assigned_device_name() == kWorker);
  CHECK((*out)->versions().producer() == 27);
  // The input graph is unchanged.
  CHECK(g->num_nodes() == 8);
}

TEST_CASE("a fed tensor replaces every use and cuts its producer off") {
  auto g = Import(kGraph);
  const GraphDef def = Rewrite(*g, Step({"x"}, {"p"}));
  CHECK(Names(def) == std::vector<std::string>{"_recv_x_0", "w", "two", "p",
                                               "_send_p_0"});
  CHECK(Inputs(Find(def, "two")) ==
        std::vector<std::string>{"_recv_x_0", "w"});
  CHECK(Inputs(Find(def, "p")) == std::vector<std::string>{"two", "two:1"});
  CHECK(Find(def, "w").device().empty());  // requested device kept as is
}

TEST_CASE("a producer still needed through another output stays") {
  auto g = Import(kGraph);
  const GraphDef def = Rewrite(*g, Step({"two:0"}, {"p"}));
  CHECK(Names(def) == std::vector<std::string>{"_recv_two_0", "x", "w", "two",
                                               "p", "_send_p_0"});
  CHECK(Inputs(Find(def, "p")) ==
        std::vector<std::string>{"_recv_two_0", "two:1"});
}

TEST_CASE("a producer still needed through a control edge stays") {
  auto g = Import(kGraph);
  const GraphDef def = Rewrite(*g, Step({"w"}, {"i"}, {"s"}));
  CHECK(Names(def) == std::vector<std::string>{"_recv_w_0", "x", "w", "m",
                                               "i", "ctl", "s", "_send_i_0"});
  CHECK(Inputs(Find(def, "m")) == std::vector<std::string>{"x", "_recv_w_0"});
  CHECK(Inputs(Find(def, "ctl")) == std::vector<std::string>{"^w"});
  CHECK(Inputs(Find(def, "s")) == std::vector<std::string>{"^i", "^ctl"});
}

TEST_CASE("targets alone keep what they wait for") {
  auto g = Import(kGraph);
  const GraphDef def = Rewrite(*g, Step({}, {}, {"ctl"}));
  CHECK(Names(def) == std::vector<std::string>{"w", "ctl"});
}

TEST_CASE("fetching a fed tensor returns the feed, unused feeds go") {
  auto g = Import(kGraph);
  GraphDef def = Rewrite(*g, Step({"w", "x"}, {"x:0"}));
  CHECK(Names(def) == std::vector<std::string>{"_recv_x_0", "_send_x_0"});
  CHECK(Inputs(Find(def, "_send_x_0")) ==
        std::vector<std::string>{"_recv_x_0"});

  // The same tensor fetched twice has one _Send.
  def = Rewrite(*g, Step({}, {"i", "i:0"}));
  CHECK(Names(def) ==
        std::vector<std::string>{"x", "w", "m", "i", "_send_i_0"});
}

TEST_CASE("inserted names avoid names the graph holds") {
  auto g = Import(std::string(kGraph) + R"pb(
    node { name: "_recv_x_0" op: "NoOp" }
    node { name: "_send_m_0" op: "NoOp" }
  )pb");
  const GraphDef def = Rewrite(*g, Step({"x"}, {"m"}));
  CHECK(Names(def) == std::vector<std::string>{"_recv_x_0_1", "w", "m",
                                               "_send_m_0_1"});
  CheckClientEndpoint(Find(def, "_recv_x_0_1"), "_Recv", "x:0");
}

TEST_CASE("RewriteForStep: bad feeds, fetches and targets are InvalidArgument") {
  auto g = Import(kGraph);
  auto err = [&](ClientGraphOptions o) { return RewriteForStep(*g, o).status(); };
  const auto kInvalid = absl::StatusCode::kInvalidArgument;
  CHECK_THAT(err(Step({}, {"nope"})), StatusIs(kInvalid, "'nope'"));
  CHECK_THAT(err(Step({}, {"i:1"})), StatusIs(kInvalid, "'i:1'"));
  CHECK_THAT(err(Step({}, {"s"})), StatusIs(kInvalid, "'s'"));  // no outputs
  CHECK_THAT(err(Step({}, {"i:x"})), StatusIs(kInvalid, "i:x"));
  CHECK_THAT(err(Step({"zz:0"}, {"i"})), StatusIs(kInvalid, "'zz:0'"));
  CHECK_THAT(err(Step({"two:2"}, {"i"})), StatusIs(kInvalid, "'two:2'"));
  CHECK_THAT(err(Step({"m", "m:0"}, {"i"})),
             StatusIs(kInvalid, "'m:0' is fed more than once"));
  CHECK_THAT(err(Step({}, {}, {"i:0"})), StatusIs(kInvalid, "'i:0'"));
  CHECK_THAT(err(Step({}, {}, {"missing"})), StatusIs(kInvalid, "'missing'"));
  ClientGraphOptions partial = Step({}, {"i"});
  partial.client_device = "/job:localhost";
  CHECK_THAT(err(partial), StatusIs(kInvalid, "'/job:localhost'"));
}

TEST_CASE("a tensor taken as a reference cannot be fed") {
  static OpRegistry* ops = [] {
    auto* r = new OpRegistry;
    DFX_CHECK_OK(RegisterStandardOps(r));
    DFX_CHECK_OK(r->Register(OpDefBuilder("RefSrc").Output("ref: Ref(float)")));
    DFX_CHECK_OK(r->Register(OpDefBuilder("RefSink").Input("ref: Ref(float)")));
    return r;
  }();
  auto g = Import(R"pb(
    node { name: "v" op: "RefSrc" }
    node { name: "use" op: "RefSink" input: "v" }
    node {
      name: "read" op: "Identity" input: "v"
      attr { key: "T" value { type: DT_FLOAT } }
    }
  )pb",
                  ops);
  CHECK_THAT(RewriteForStep(*g, Step({"v"}, {}, {"use"})).status(),
             StatusIs(absl::StatusCode::kInvalidArgument, "node 'use'"));
  // Read by value it can be fed, and fetched by value.
  auto out = RewriteForStep(*g, Step({"v"}, {"read", "v"}));
  REQUIRE_OK(out);
  const GraphDef def = ToGraphDef(**out);
  CHECK(Find(def, "_recv_v_0").attr().at("tensor_type").type() == DT_FLOAT);
  out = RewriteForStep(*g, Step({}, {"v"}));
  REQUIRE_OK(out);
  CHECK(Find(ToGraphDef(**out), "_send_v_0").attr().at("T").type() ==
        DT_FLOAT);
}

TEST_CASE("client rendezvous keys match the endpoints' keys") {
  auto g = Import(kGraph);
  const ClientGraphOptions o = Step({"x", "two:1"}, {"p", "m:0"});
  auto keys = ClientStepRendezvousKeys(o);
  REQUIRE_OK(keys);
  CHECK(keys->feed_keys ==
        std::vector<std::string>{Key("x:0"), Key("two:1")});
  CHECK(keys->fetch_keys == std::vector<std::string>{Key("p:0"), Key("m:0")});
  CHECK(Key("x:0") ==
        "/job:localhost/replica:0/task:0/device:CPU:0;fedcba9876543210;"
        "/job:localhost/replica:0/task:0/device:CPU:0;x:0;0:0");

  const GraphDef def = Rewrite(*g, o);
  CHECK(*SendRecvRendezvousKey(Find(def, "_recv_x_0")) == keys->feed_keys[0]);
  CHECK(*SendRecvRendezvousKey(Find(def, "_recv_two_1")) ==
        keys->feed_keys[1]);
  CHECK(*SendRecvRendezvousKey(Find(def, "_send_p_0")) == keys->fetch_keys[0]);
  CHECK(*SendRecvRendezvousKey(Find(def, "_send_m_0")) == keys->fetch_keys[1]);

  CHECK_THAT(ClientStepRendezvousKeys(Step({"^x"}, {})).status(),
             StatusIs(absl::StatusCode::kInvalidArgument, "'^x'"));
}

TEST_CASE("RewriteForStep is deterministic") {
  auto g = Import(kGraph);
  const ClientGraphOptions o = Step({"w", "two:0"}, {"p", "i"}, {"s"});
  CHECK(Rewrite(*g, o).DebugString() == Rewrite(*g, o).DebugString());
}

}  // namespace
}  // namespace dfx
