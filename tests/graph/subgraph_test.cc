#include "graph/subgraph.h"

#include <string>
#include <vector>

#include "catch2/catch.hpp"
#include "google/protobuf/text_format.h"
#include "google/protobuf/util/message_differencer.h"
#include "graph/graph_def_import.h"
#include "graph/ops/ops.h"
#include "tests/testing/status_matchers.h"

namespace dfx {
namespace {

using ::dfx::testing::StatusIs;

const OpRegistry* Ops() {
  static OpRegistry* ops = [] {
    auto* r = new OpRegistry;
    DFX_CHECK_OK(RegisterFunctionOps(r));
    DFX_CHECK_OK(r->Register(OpDefBuilder("Src").Output("y: float")));
    DFX_CHECK_OK(r->Register(OpDefBuilder("IntSrc").Output("y: int32")));
    DFX_CHECK_OK(r->Register(
        OpDefBuilder("Two").Output("a: float").Output("b: int32")));
    DFX_CHECK_OK(r->Register(
        OpDefBuilder("Bin").Input("x: float").Input("y: float").Output(
            "z: float")));
    DFX_CHECK_OK(r->Register(OpDefBuilder("Sink").Input("x: float")));
    return r;
  }();
  return ops;
}

GraphDef Parse(const std::string& text) {
  GraphDef def;
  DFX_CHECK(google::protobuf::TextFormat::ParseFromString(text, &def));
  return def;
}

// a, b: sources; two: two outputs; c = Bin(a, b); d = Bin(c, two);
// unused = Bin(a, a); s = Sink(d) with a control input from unused' sibling.
const char* kGraph = R"pb(
  node { name: "a" op: "Src" device: "/device:CPU:0" }
  node { name: "b" op: "Src" }
  node { name: "two" op: "Two" }
  node { name: "c" op: "Bin" input: "a" input: "b" device: "/cpu:0" }
  node { name: "d" op: "Bin" input: "c" input: "two:0" }
  node { name: "unused" op: "Bin" input: "a" input: "a" }
  node { name: "ctl" op: "Src" }
  node { name: "s" op: "Sink" input: "d" input: "^ctl" }
)pb";

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

TEST_CASE("fetches get _Retvals and the graph is pruned to what they need") {
  auto out = RewriteForCallFrame(Parse(kGraph), {}, {"c", "two:1"}, {}, Ops());
  REQUIRE_OK(out);
  CHECK(Names(*out) == std::vector<std::string>{"a", "b", "two", "c",
                                                "retval_c_0_0",
                                                "retval_two_1_1"});
  const NodeDef& r0 = Find(*out, "retval_c_0_0");
  CHECK(r0.op() == "_Retval");
  CHECK(Inputs(r0) == std::vector<std::string>{"c"});
  CHECK(r0.attr().at("index").i() == 0);
  CHECK(r0.attr().at("T").type() == DT_FLOAT);
  const NodeDef& r1 = Find(*out, "retval_two_1_1");
  CHECK(Inputs(r1) == std::vector<std::string>{"two:1"});
  CHECK(r1.attr().at("index").i() == 1);
  CHECK(r1.attr().at("T").type() == DT_INT32);
  for (const NodeDef& n : out->node()) CHECK(n.device().empty());
  // The result is a valid graph.
  REQUIRE_OK(ImportGraphDef(*out, Ops()));
}

TEST_CASE("a fed tensor is replaced by an _Arg and cuts its producer off") {
  auto out = RewriteForCallFrame(Parse(kGraph), {"c:0"}, {"d"}, {}, Ops());
  REQUIRE_OK(out);
  CHECK(Names(*out) ==
        std::vector<std::string>{"arg_c_0_0", "two", "d", "retval_d_0_0"});
  const NodeDef& arg = Find(*out, "arg_c_0_0");
  CHECK(arg.op() == "_Arg");
  CHECK(arg.attr().at("index").i() == 0);
  CHECK(arg.attr().at("T").type() == DT_FLOAT);
  CHECK(Inputs(Find(*out, "d")) ==
        std::vector<std::string>{"arg_c_0_0", "two:0"});
  REQUIRE_OK(ImportGraphDef(*out, Ops()));
}

TEST_CASE("a producer still needed for another output stays") {
  // Feeding two:0 while two:1 is fetched keeps `two`.
  auto out =
      RewriteForCallFrame(Parse(kGraph), {"two:0"}, {"d", "two:1"}, {}, Ops());
  REQUIRE_OK(out);
  CHECK(Names(*out) ==
        std::vector<std::string>{"arg_two_0_0", "a", "b", "two", "c", "d",
                                 "retval_d_0_0", "retval_two_1_1"});
  CHECK(Inputs(Find(*out, "d")) ==
        std::vector<std::string>{"c", "arg_two_0_0"});
}

TEST_CASE("a fetch that is also fed returns the feed") {
  auto out = RewriteForCallFrame(Parse(kGraph), {"b", "a"}, {"a:0"}, {}, Ops());
  REQUIRE_OK(out);
  // Only the _Arg of a is used; a itself is not needed.
  CHECK(Names(*out) ==
        std::vector<std::string>{"arg_a_0_1", "retval_a_0_0"});
  CHECK(Inputs(Find(*out, "retval_a_0_0")) ==
        std::vector<std::string>{"arg_a_0_1"});
  CHECK(Find(*out, "arg_a_0_1").attr().at("index").i() == 1);
}

TEST_CASE("targets keep their node and follow control inputs") {
  auto out = RewriteForCallFrame(Parse(kGraph), {}, {}, {"s"}, Ops());
  REQUIRE_OK(out);
  CHECK(Names(*out) ==
        std::vector<std::string>{"a", "b", "two", "c", "d", "ctl", "s"});
}

TEST_CASE("bad feeds, fetches and targets are InvalidArgument naming them") {
  const GraphDef g = Parse(kGraph);
  CHECK_THAT(RewriteForCallFrame(g, {"nope:0"}, {"c"}, {}, Ops()).status(),
             StatusIs(absl::StatusCode::kInvalidArgument, "'nope:0'"));
  CHECK_THAT(RewriteForCallFrame(g, {}, {"c:1"}, {}, Ops()).status(),
             StatusIs(absl::StatusCode::kInvalidArgument, "'c:1'"));
  CHECK_THAT(RewriteForCallFrame(g, {}, {"missing"}, {}, Ops()).status(),
             StatusIs(absl::StatusCode::kInvalidArgument, "'missing'"));
  CHECK_THAT(RewriteForCallFrame(g, {"a", "a:0"}, {"c"}, {}, Ops()).status(),
             StatusIs(absl::StatusCode::kInvalidArgument,
                      "'a:0' is fed more than once"));
  CHECK_THAT(RewriteForCallFrame(g, {}, {}, {"c:0"}, Ops()).status(),
             StatusIs(absl::StatusCode::kInvalidArgument, "'c:0'"));
  CHECK_THAT(RewriteForCallFrame(g, {}, {}, {"zzz"}, Ops()).status(),
             StatusIs(absl::StatusCode::kInvalidArgument, "'zzz'"));
  CHECK_THAT(RewriteForCallFrame(g, {}, {"c:x"}, {}, Ops()).status(),
             StatusIs(absl::StatusCode::kInvalidArgument, "c:x"));
}

TEST_CASE("generated names avoid existing nodes") {
  GraphDef g = Parse(kGraph);
  NodeDef* clash = g.add_node();
  clash->set_name("retval_c_0_0");
  clash->set_op("Src");
  auto out = RewriteForCallFrame(g, {}, {"c"}, {}, Ops());
  REQUIRE_OK(out);
  CHECK(Names(*out).back() == "retval_c_0_0_1");
}

TEST_CASE("the rewrite is deterministic") {
  const GraphDef g = Parse(kGraph);
  auto a = RewriteForCallFrame(g, {"c", "b"}, {"d", "two:1"}, {"s"}, Ops());
  auto b = RewriteForCallFrame(g, {"c", "b"}, {"d", "two:1"}, {"s"}, Ops());
  REQUIRE_OK(a);
  REQUIRE_OK(b);
  CHECK(Names(*a) == Names(*b));
  CHECK(google::protobuf::util::MessageDifferencer::Equals(*a, *b));
}

}  // namespace
}  // namespace dfx
