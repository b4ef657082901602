// graph/debug_watches.h: the tfdbg watch nodes a partition gets for a run's
// RunOptions.debug_options, named and wired as TensorFlow's
// DebugNodeInserter does (tests/interop/tf_debug_dumps.py runs them through
// a TF client on a dfx cluster).
#include "graph/debug_watches.h"

#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "catch2/catch.hpp"
#include "google/protobuf/text_format.h"
#include "graph/graph_def_import.h"
#include "graph/ops/ops.h"
#include "tests/testing/status_matchers.h"

namespace dfx {

absl::Status RegisterDebugOps(OpRegistry* registry);  // graph/ops/debug_ops.cc

namespace {

using ::dfx::testing::StatusIs;

constexpr char kDevice[] = "/job:worker/replica:0/task:1/device:CPU:0";

const OpRegistry* Ops() {
  static OpRegistry* ops = [] {
    auto* r = new OpRegistry;
    DFX_CHECK_OK(RegisterDebugOps(r));
    DFX_CHECK_OK(
        r->Register(OpDefBuilder("Two").Output("a: float").Output("b: int32")));
    DFX_CHECK_OK(r->Register(OpDefBuilder("Bin")
                                 .Input("x: float")
                                 .Input("y: float")
                                 .Output("z: float")));
    DFX_CHECK_OK(r->Register(OpDefBuilder("RefSrc").Output("r: Ref(float)")));
    DFX_CHECK_OK(r->Register(
        OpDefBuilder("Update").Input("r: Ref(float)").Output("o: Ref(float)")));
    return r;
  }();
  return ops;
}

GraphDef TestGraph() {
  GraphDef def;
  const std::string text = absl::StrCat(
      "node { name: 'src' op: 'Two' device: '", kDevice,
      "' }\n"
      "node { name: 'bin' op: 'Bin' input: 'src' input: 'src:0' device: '",
      kDevice,
      "' }\n"
      "node { name: 'var' op: 'RefSrc' device: '",
      kDevice,
      "' }\n"
      "node { name: 'upd' op: 'Update' input: 'var' device: '",
      kDevice, "' }\n");
  DFX_CHECK(google::protobuf::TextFormat::ParseFromString(text, &def));
  return def;
}

DebugOptions Watch(const std::string& node, int slot,
                   const std::vector<std::string>& ops, bool tolerate = false) {
  DebugOptions options;
  DebugTensorWatch* w = options.add_debug_tensor_watch_opts();
  w->set_node_name(node);
  w->set_output_slot(slot);
  for (const std::string& op : ops) w->add_debug_ops(op);
  w->add_debug_urls("file:///dump");
  w->set_tolerate_debug_op_creation_failures(tolerate);
  return options;
}

const NodeDef* Find(const GraphDef& def, const std::string& name) {
  for (const NodeDef& n : def.node()) {
    if (n.name() == name) return &n;
  }
  return nullptr;
}

std::vector<std::string> Inputs(const NodeDef& n) {
  return {n.input().begin(), n.input().end()};
}

TEST_CASE(
    "A watched tensor gets TensorFlow's Copy and debug nodes, and its "
    "consumers read the copy after the debug nodes ran") {
  GraphDef def = TestGraph();
  REQUIRE(InsertDebugWatches(
              Watch("src", 0, {"DebugIdentity", "DebugNanCount"}), *Ops(), &def)
              .ok());
  const NodeDef* copy = Find(def, "__copy_src_0");
  REQUIRE(copy != nullptr);
  CHECK(copy->op() == "Copy");
  CHECK(copy->device() == kDevice);
  CHECK(Inputs(*copy) == std::vector<std::string>{"src:0"});
  CHECK(copy->attr().at("T").type() == DT_FLOAT);
  const auto& spec = copy->attr().at("debug_ops_spec").list().s();
  CHECK(std::vector<std::string>(spec.begin(), spec.end()) ==
        std::vector<std::string>{"DebugIdentity;file:///dump;0",
                                 "DebugNanCount;file:///dump;0"});
  const NodeDef* nan = Find(def, "__dbg_src:0_1_DebugNanCount");
  REQUIRE(nan != nullptr);
  CHECK(Inputs(*nan) == std::vector<std::string>{"__copy_src_0"});
  CHECK(nan->attr().at("tensor_name").s() == "src:0");
  CHECK(nan->attr().at("device_name").s() == kDevice);
  CHECK(nan->attr().at("debug_urls").list().s(0) == "file:///dump");
  CHECK(nan->attr().at("gated_grpc").b() == false);
  CHECK(Inputs(*Find(def, "bin")) ==
        std::vector<std::string>{"__copy_src_0", "__copy_src_0",
                                 "^__dbg_src:0_0_DebugIdentity",
                                 "^__dbg_src:0_1_DebugNanCount"});
  // The rewritten partition imports (the ':' of the debug nodes' names is
  // allowed there).
  ImportOptions options;
  options.allow_internal_names = true;
  CHECK(ImportGraphDef(def, Ops(), options).ok());
}

TEST_CASE(
    "A watched reference keeps its consumers and orders them after the "
    "debug nodes") {
  GraphDef def = TestGraph();
  REQUIRE(InsertDebugWatches(Watch("var", 0, {"DebugIdentity"}), *Ops(), &def)
              .ok());
  CHECK(Find(def, "__copy_var_0")->attr().at("T").type() == DT_FLOAT);
  CHECK(Inputs(*Find(def, "upd")) ==
        std::vector<std::string>{"var", "^__dbg_var:0_0_DebugIdentity"});
}

TEST_CASE(
    "Debug op attributes in parentheses are set by their type, and gated_grpc "
    "goes into the Copy node's spec") {
  GraphDef def = TestGraph();
  REQUIRE(InsertDebugWatches(Watch("src", 0,
                                   {"DebugNumericSummary(mute_if_healthy=true; "
                                    "lower_bound=-1.5; gated_grpc=t)"}),
                             *Ops(), &def)
              .ok());
  const NodeDef* s = Find(def, "__dbg_src:0_0_DebugNumericSummary");
  REQUIRE(s != nullptr);
  CHECK(s->attr().at("mute_if_healthy").b());
  CHECK(s->attr().at("lower_bound").f() == -1.5f);
  CHECK(s->attr().at("gated_grpc").b());
  CHECK(Find(def, "__copy_src_0")->attr().at("debug_ops_spec").list().s(0) ==
        "DebugNumericSummary;file:///dump;1");
}

TEST_CASE(
    "A debug op that cannot be made fails naming the tensor unless the "
    "watch tolerates it") {
  GraphDef def = TestGraph();
  CHECK_THAT(
      InsertDebugWatches(Watch("src", 1, {"NoSuchDebugOp"}), *Ops(), &def),
      StatusIs(absl::StatusCode::kFailedPrecondition,
               "Failed to create debug node NoSuchDebugOp for tensor src:1"));
  CHECK_THAT(InsertDebugWatches(
                 Watch("src", 0, {"DebugIdentity(mute_if_healthy=true)"}),
                 *Ops(), &def),
             StatusIs(absl::StatusCode::kFailedPrecondition,
                      "Unfulfilled attribute mute_if_healthy"));
  CHECK_THAT(
      InsertDebugWatches(Watch("src", 0, {"DebugIdentity(x"}), *Ops(), &def),
      StatusIs(absl::StatusCode::kFailedPrecondition,
               "Malformed debug op name"));
  GraphDef tolerated = TestGraph();
  REQUIRE(InsertDebugWatches(
              Watch("src", 1, {"NoSuchDebugOp", "DebugIdentity"}, true), *Ops(),
              &tolerated)
              .ok());
  CHECK(Find(tolerated, "__dbg_src:1_1_DebugIdentity") != nullptr);
  CHECK(Find(tolerated, "__copy_src_1")->attr().at("T").type() == DT_INT32);
}

TEST_CASE("Watches of other nodes, missing slots or no debug ops add nothing") {
  GraphDef def = TestGraph();
  const std::string before = def.SerializeAsString();
  DebugOptions options = Watch("elsewhere", 0, {"DebugIdentity"});
  options.MergeFrom(Watch("src", 2, {"DebugIdentity"}));
  options.MergeFrom(Watch("src", -1, {"DebugIdentity"}));
  options.MergeFrom(Watch("bin", 0, {}));
  REQUIRE(InsertDebugWatches(options, *Ops(), &def).ok());
  CHECK(def.SerializeAsString() == before);
}

}  // namespace
}  // namespace dfx
