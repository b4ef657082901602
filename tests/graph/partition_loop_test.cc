// The partitioner's handling of loops that span devices: a control loop in
// each partition that receives values inside the frame, _Recvs that wait for
// it, and Enter / NextIteration values that never cross a cut.
#include <map>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "catch2/catch.hpp"
#include "google/protobuf/text_format.h"
#include "graph/graph_def_import.h"
#include "graph/node_def_util.h"
#include "graph/partition.h"
#include "tests/testing/status_matchers.h"

namespace dfx {
namespace {

const char kDev0[] = "/job:worker/replica:0/task:0/device:CPU:0";
const char kDev1[] = "/job:worker/replica:0/task:1/device:CPU:0";

// i = 0; while (i < 10) i += 1 — the condition on task 0, the add (and the
// constant it adds) and the NextIteration on task 1. `n_device` places the
// limit's constant Enter.
std::string CounterLoop(const std::string& n_device) {
  auto node = [](const std::string& name, const std::string& op,
                 std::vector<std::string> inputs, const std::string& device,
                 const std::string& attrs) {
    std::string s = absl::StrCat("node { name: '", name, "' op: '", op,
                                 "' device: '", device, "'");
    for (const std::string& in : inputs) absl::StrAppend(&s, " input: '", in, "'");
    return absl::StrCat(s, " ", attrs, " }\n");
  };
  const std::string t = "attr { key: 'T' value { type: DT_INT32 } }";
  auto int_const = [&](const std::string& name, int v,
                       std::vector<std::string> inputs,
                       const std::string& device) {
    return node(name, "Const", inputs, device,
                absl::StrCat("attr { key: 'dtype' value { type: DT_INT32 } } "
                             "attr { key: 'value' value { tensor { dtype: "
                             "DT_INT32 tensor_shape {} int_val: ",
                             v, " } } }"));
  };
  auto enter = [&](const std::string& name, const std::string& in,
                   bool constant, const std::string& device) {
    return node(name, "Enter", {in}, device,
                absl::StrCat(t, " attr { key: 'frame_name' value { s: "
                                "'while' } } attr { key: 'is_constant' "
                                "value { b: ",
                             constant ? "true" : "false",
                             " } } attr { key: 'parallel_iterations' value "
                             "{ i: 4 } }"));
  };
  return int_const("zero", 0, {}, kDev0) + int_const("n", 10, {}, kDev0) +
         enter("enter_i", "zero", false, kDev0) +
         enter("enter_n", "n", true, n_device) +
         node("merge", "Merge", {"enter_i", "next"}, kDev0,
              t + " attr { key: 'N' value { i: 2 } }") +
         node("less", "Less", {"merge", "enter_n"}, kDev0, t) +
         node("cond", "LoopCond", {"less"}, kDev0, "") +
         node("switch", "Switch", {"merge", "cond"}, kDev0, t) +
         node("exit", "Exit", {"switch:0"}, kDev0, t) +
         node("body", "Identity", {"switch:1"}, kDev0, t) +
         int_const("one", 1, {"^body"}, kDev1) +
         node("add", "AddV2", {"body", "one"}, kDev1, t) +
         node("next", "NextIteration", {"add"}, kDev1, t);
}

absl::StatusOr<std::map<std::string, GraphDef>> PartitionText(
    const std::string& text) {
  GraphDef def;
  REQUIRE(google::protobuf::TextFormat::ParseFromString(text, &def));
  auto g = ImportGraphDef(def, OpRegistry::Global());
  REQUIRE_OK(g.status());
  for (Node* n : (*g)->nodes()) {
    n->set_assigned_device_name(n->requested_device());
  }
  PartitionOptions opts;
  opts.get_incarnation = [](const std::string&) { return uint64_t{7}; };
  return Partition(**g, opts);
}

std::vector<const NodeDef*> OfOp(const GraphDef& g, const std::string& op) {
  std::vector<const NodeDef*> out;
  for (const NodeDef& n : g.node()) {
    if (n.op() == op) out.push_back(&n);
  }
  return out;
}

const NodeDef* Named(const GraphDef& g, const std::string& name) {
  for (const NodeDef& n : g.node()) {
    if (n.name() == name) return &n;
  }
  return nullptr;
}

// The Merge of `part`'s control loop for frame "while".
const NodeDef* ControlMerge(const GraphDef& part) {
  for (const NodeDef* m : OfOp(part, "Merge")) {
    if (absl::StartsWith(m->name(), "_cloop/while")) return m;
  }
  return nullptr;
}

TEST_CASE("a partition holding part of a loop gets a control loop driven by "
          "the LoopCond") {
  auto parts = PartitionText(CounterLoop(kDev0));
  REQUIRE_OK(parts.status());
  const GraphDef& p1 = parts->at(kDev1);

  const NodeDef* merge = ControlMerge(p1);
  REQUIRE(merge != nullptr);
  // Enter(dummy Const) -> Merge <- NextIteration <- Switch(Merge, LoopCond):1
  const NodeDef* enter = Named(p1, merge->input(0));
  REQUIRE(enter != nullptr);
  CHECK(enter->op() == "Enter");
  std::string frame;
  REQUIRE_OK(GetNodeAttr(*enter, "frame_name", &frame));
  CHECK(frame == "while");
  int64_t parallel = 0;
  REQUIRE_OK(GetNodeAttr(*enter, "parallel_iterations", &parallel));
  CHECK(parallel == 4);
  CHECK(Named(p1, enter->input(0))->op() == "Const");
  const NodeDef* next = Named(p1, merge->input(1));
  REQUIRE(next != nullptr);
  CHECK(next->op() == "NextIteration");
  const NodeDef* sw = Named(p1, next->input(0).substr(0, next->input(0).find(':')));
  REQUIRE(sw != nullptr);
  CHECK(sw->op() == "Switch");
  CHECK(next->input(0) == sw->name() + ":1");
  CHECK(sw->input(0) == merge->name());
  // The predicate comes from task 0's LoopCond.
  const NodeDef* pred = Named(p1, sw->input(1));
  REQUIRE(pred != nullptr);
  CHECK(pred->op() == "_Recv");
  CHECK(absl::StrContains(pred->attr().at("tensor_name").s(), "cond"));

  // Every _Recv of the frame on task 1 waits for the control Merge.
  const std::string wait = absl::StrCat("^", merge->name());
  int in_frame = 0;
  for (const NodeDef* recv : OfOp(p1, "_Recv")) {
    bool waits = false;
    for (const std::string& in : recv->input()) waits |= in == wait;
    CHECK(waits);
    ++in_frame;
  }
  CHECK(in_frame == 3);  // body's value, body's control edge, the predicate
}

TEST_CASE("a NextIteration's value crosses before it: the consumer's "
          "partition gets a copy") {
  auto parts = PartitionText(CounterLoop(kDev0));
  REQUIRE_OK(parts.status());
  const GraphDef& p0 = parts->at(kDev0);
  const NodeDef* merge = Named(p0, "merge");
  REQUIRE(merge != nullptr);
  const NodeDef* copy = Named(p0, merge->input(1));
  REQUIRE(copy != nullptr);
  CHECK(copy->op() == "NextIteration");
  CHECK(copy->name() != "next");
  // Its input is add's value, received inside the frame on task 0, where a
  // control loop (with the local LoopCond) gates it.
  const NodeDef* recv = Named(p0, copy->input(0));
  REQUIRE(recv != nullptr);
  CHECK(recv->op() == "_Recv");
  const NodeDef* control = ControlMerge(p0);
  REQUIRE(control != nullptr);
  CHECK(recv->input(0) == absl::StrCat("^", control->name()));
  // The original NextIteration stays on task 1, feeding nothing there.
  CHECK(Named(parts->at(kDev1), "next") != nullptr);
}

TEST_CASE("an Enter's value crosses before it: the consumer's partition gets "
          "a copy entering the same frame") {
  // The limit's constant Enter on task 1, its consumer (less) on task 0.
  auto parts = PartitionText(CounterLoop(kDev1));
  REQUIRE_OK(parts.status());
  const GraphDef& p0 = parts->at(kDev0);
  const NodeDef* less = Named(p0, "less");
  REQUIRE(less != nullptr);
  const NodeDef* copy = Named(p0, less->input(1));
  REQUIRE(copy != nullptr);
  CHECK(copy->op() == "Enter");
  bool constant = false;
  REQUIRE_OK(GetNodeAttr(*copy, "is_constant", &constant));
  CHECK(constant);
  // The Enter's input, n, is on task 0 already: no transfer at all.
  CHECK(copy->input(0) == "n");
}

TEST_CASE("a loop spanning devices without a LoopCond is an error") {
  std::string text = CounterLoop(kDev0);
  // Compare straight into the Switch: no LoopCond in the frame.
  const std::string cond = "input: 'cond'";
  text.replace(text.find(cond), cond.size(), "input: 'less'");
  const size_t start = text.find("node { name: 'cond'");
  text.erase(start, text.find("}\n", start) + 2 - start);
  auto parts = PartitionText(text);
  REQUIRE_FALSE(parts.ok());
  CHECK(parts.status().code() == absl::StatusCode::kInvalidArgument);
  CHECK_THAT(std::string(parts.status().message()),
             Catch::Contains("loop frame 'while' spans devices but has no "
                             "LoopCond"));
}

}  // namespace
}  // namespace dfx
