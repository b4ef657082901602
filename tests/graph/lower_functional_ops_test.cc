#include "graph/lower_functional_ops.h"

#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "base/logging.h"
#include "catch2/catch.hpp"
#include "google/protobuf/text_format.h"
#include "graph/graph_def_import.h"
#include "graph/node_def_util.h"
#include "tests/testing/status_matchers.h"

namespace dfx {
namespace {

using testing::IsOk;
using testing::StatusIs;
constexpr auto kInvalid = absl::StatusCode::kInvalidArgument;

// A graph imported with its library's ops; the library outlives the graph.
struct Lowered {
  std::unique_ptr<FunctionLibrary> library;
  std::unique_ptr<Graph> graph;
  absl::Status status;  // of LowerFunctionalOps
};

Lowered Lower(const std::string& text) {
  GraphDef def;
  DFX_CHECK(google::protobuf::TextFormat::ParseFromString(text, &def));
  Lowered out;
  auto lib = FunctionLibrary::Create(def.library(), OpRegistry::Global());
  DFX_CHECK_OK(lib.status());
  out.library = *std::move(lib);
  auto graph = ImportGraphDef(def, out.library->op_registry());
  DFX_CHECK_OK(graph.status());
  out.graph = *std::move(graph);
  out.status = LowerFunctionalOps(*out.library, out.graph.get());
  return out;
}

const Node* Get(const Graph& g, const std::string& name) {
  const Node* n = g.FindNode(name);
  INFO("node " << name);
  REQUIRE(n != nullptr);
  return n;
}

// "src:slot" of data input `i`, "" when none.
std::string InputOf(const Node* n, int i) {
  const Edge* e = n->input_edge(i);
  if (e == nullptr) return "";
  return e->src->name() + ":" + std::to_string(e->src_output);
}

bool HasControlEdge(const Node* src, const Node* dst) {
  for (const Edge* e : dst->in_edges()) {
    if (e->IsControlEdge() && e->src == src) return true;
  }
  return false;
}

int CountOps(const Graph& g, const std::string& op) {
  int n = 0;
  for (const Node* node : g.nodes()) n += node->type_string() == op;
  return n;
}

// The lowered graph as a GraphDef imports with the standard ops alone (what a
// worker does with a partition): every edge type-checks, the only cycles are
// loop back edges.
void RequireReimports(const Graph& g) {
  const GraphDef def = ToGraphDef(g);
  ImportOptions options;
  options.allow_internal_names = true;
  REQUIRE_THAT(ImportGraphDef(def, OpRegistry::Global(), options).status(),
               IsOk());
}

constexpr char kFunctions[] = R"pb(
  library {
    function {
      signature {
        name: "AddOne"
        input_arg { name: "x" type: DT_FLOAT }
        output_arg { name: "y" type: DT_FLOAT }
        control_output: "side"
      }
      node_def {
        name: "one"
        op: "Const"
        attr { key: "dtype" value { type: DT_FLOAT } }
        attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape {} float_val: 1 } } }
      }
      node_def {
        name: "add"
        op: "AddV2"
        input: "x"
        input: "one:output:0"
        attr { key: "T" value { type: DT_FLOAT } }
      }
      node_def { name: "side" op: "NoOp" input: "^add" }
      ret { key: "y" value: "add:z:0" }
      control_ret { key: "side" value: "side" }
    }
    function {
      signature {
        name: "Negate"
        input_arg { name: "x" type: DT_FLOAT }
        output_arg { name: "y" type: DT_FLOAT }
      }
      node_def {
        name: "neg"
        op: "Neg"
        input: "x"
        attr { key: "T" value { type: DT_FLOAT } }
      }
      ret { key: "y" value: "neg:y:0" }
    }
    function {
      signature {
        name: "Outer"
        input_arg { name: "x" type: DT_FLOAT }
        output_arg { name: "y" type: DT_FLOAT }
      }
      node_def { name: "inner" op: "AddOne" input: "x" device: "/device:CPU:1" }
      ret { key: "y" value: "inner:y:0" }
    }
    function {
      signature {
        name: "Less3"
        input_arg { name: "i" type: DT_INT32 }
        input_arg { name: "x" type: DT_FLOAT }
        input_arg { name: "v" type: DT_RESOURCE }
        output_arg { name: "b" type: DT_BOOL }
      }
      node_def {
        name: "three"
        op: "Const"
        attr { key: "dtype" value { type: DT_INT32 } }
        attr { key: "value" value { tensor { dtype: DT_INT32 tensor_shape {} int_val: 3 } } }
      }
      node_def {
        name: "less"
        op: "Less"
        input: "i"
        input: "three:output:0"
        attr { key: "T" value { type: DT_INT32 } }
      }
      ret { key: "b" value: "less:z:0" }
    }
    function {
      signature {
        name: "Step"
        input_arg { name: "i" type: DT_INT32 }
        input_arg { name: "x" type: DT_FLOAT }
        input_arg { name: "v" type: DT_RESOURCE }
        output_arg { name: "i2" type: DT_INT32 }
        output_arg { name: "x2" type: DT_FLOAT }
        output_arg { name: "v2" type: DT_RESOURCE }
      }
      node_def {
        name: "one"
        op: "Const"
        attr { key: "dtype" value { type: DT_INT32 } }
        attr { key: "value" value { tensor { dtype: DT_INT32 tensor_shape {} int_val: 1 } } }
      }
      node_def {
        name: "inc"
        op: "AddV2"
        input: "i"
        input: "one:output:0"
        attr { key: "T" value { type: DT_INT32 } }
      }
      node_def {
        name: "twice"
        op: "AddV2"
        input: "x"
        input: "x"
        attr { key: "T" value { type: DT_FLOAT } }
      }
      ret { key: "i2" value: "inc:z:0" }
      ret { key: "x2" value: "twice:z:0" }
      ret { key: "v2" value: "v" }
    }
  })pb";

constexpr char kInputs[] = R"pb(
  node {
    name: "x"
    op: "Placeholder"
    attr { key: "dtype" value { type: DT_FLOAT } }
  }
  node { name: "ctrl" op: "NoOp" })pb";

TEST_CASE("a StatefulPartitionedCall is inlined under the call's name") {
  Lowered l = Lower(std::string(kInputs) + R"pb(
    node {
      name: "call"
      op: "StatefulPartitionedCall"
      input: "x"
      input: "^ctrl"
      device: "/device:CPU:0"
      attr { key: "Tin" value { list { type: DT_FLOAT } } }
      attr { key: "Tout" value { list { type: DT_FLOAT } } }
      attr { key: "f" value { func { name: "AddOne" } } }
      attr { key: "_read_only_resource_inputs" value { list {} } }
    }
    node {
      name: "use"
      op: "Identity"
      input: "call"
      input: "^call"
      attr { key: "T" value { type: DT_FLOAT } }
    })pb" + kFunctions);
  REQUIRE_OK(l.status);
  const Graph& g = *l.graph;
  CHECK(CountOps(g, "StatefulPartitionedCall") == 0);
  const Node* add = Get(g, "call/add");
  CHECK(add->requested_device() == "/device:CPU:0");
  const Node* in = Get(g, "call/input/_0");
  CHECK(InputOf(in, 0) == "x:0");
  CHECK(InputOf(add, 0) == "call/input/_0:0");
  CHECK(InputOf(add, 1) == "call/one:0");
  // The call's control input gates the body: its inputs and its sources.
  const Node* gate = Get(g, "call/input_control_node");
  CHECK(HasControlEdge(Get(g, "ctrl"), gate));
  CHECK(HasControlEdge(gate, in));
  CHECK(HasControlEdge(gate, Get(g, "call/one")));
  // Consumers read the result; the name stays fetchable and a target.
  CHECK(HasControlEdge(Get(g, "call/side"), Get(g, "call/output/_0")));
  CHECK(HasControlEdge(Get(g, "call/side"),
                       Get(g, "call/output_control_node")));
  const Node* use = Get(g, "use");
  CHECK(InputOf(use, 0) == "call/output/_0:0");
  const Node* named = Get(g, "call");
  CHECK(named->type_string() == "IdentityN");
  CHECK(InputOf(named, 0) == "call/output/_0:0");
  CHECK(HasControlEdge(named, use));
  RequireReimports(g);
}

TEST_CASE("nested calls by function name are lowered until none is left") {
  Lowered l = Lower(std::string(kInputs) + R"pb(
    node {
      name: "call"
      op: "PartitionedCall"
      input: "x"
      attr { key: "Tin" value { list { type: DT_FLOAT } } }
      attr { key: "Tout" value { list { type: DT_FLOAT } } }
      attr { key: "f" value { func { name: "Outer" } } }
    }
    node { name: "direct" op: "Negate" input: "call" })pb" + kFunctions);
  REQUIRE_OK(l.status);
  const Graph& g = *l.graph;
  for (const Node* n : g.nodes()) {
    INFO(n->name() << " " << n->type_string());
    CHECK_FALSE(IsFunctionalNode(*l.library, *n));
  }
  // The inner call kept its own device; its body took it.
  CHECK(Get(g, "call/inner/add")->requested_device() == "/device:CPU:1");
  CHECK(Get(g, "direct/neg")->type_string() == "Neg");
  CHECK(InputOf(Get(g, "direct/input/_0"), 0) == "call/output/_0:0");
  RequireReimports(g);
}

TEST_CASE("an If becomes Switch, the inlined branches and Merge") {
  Lowered l = Lower(std::string(kInputs) + R"pb(
    node {
      name: "p"
      op: "Placeholder"
      attr { key: "dtype" value { type: DT_BOOL } }
    }
    node {
      name: "cond"
      op: "StatelessIf"
      input: "p"
      input: "x"
      input: "^ctrl"
      attr { key: "Tcond" value { type: DT_BOOL } }
      attr { key: "Tin" value { list { type: DT_FLOAT } } }
      attr { key: "Tout" value { list { type: DT_FLOAT } } }
      attr { key: "then_branch" value { func { name: "AddOne" } } }
      attr { key: "else_branch" value { func { name: "Negate" } } }
      attr { key: "_lower_using_switch_merge" value { b: true } }
      attr { key: "output_shapes" value { list { shape {} } } }
    }
    node {
      name: "use"
      op: "Identity"
      input: "cond"
      attr { key: "T" value { type: DT_FLOAT } }
    }
    node { name: "after" op: "NoOp" input: "^cond" })pb" + kFunctions);
  REQUIRE_OK(l.status);
  const Graph& g = *l.graph;
  const Node* sp = Get(g, "cond/switch_pred");
  CHECK(sp->type_string() == "Switch");
  CHECK(InputOf(sp, 0) == "p:0");
  CHECK(InputOf(sp, 1) == "p:0");
  CHECK(HasControlEdge(Get(g, "ctrl"), sp));
  CHECK(InputOf(Get(g, "cond/pivot_f"), 0) == "cond/switch_pred:0");
  CHECK(InputOf(Get(g, "cond/pivot_t"), 0) == "cond/switch_pred:1");
  const Node* sw = Get(g, "cond/input_0");
  CHECK(sw->type_string() == "Switch");
  CHECK(InputOf(sw, 0) == "x:0");
  CHECK(InputOf(sw, 1) == "p:0");
  // then reads the true output, else the false one; the then branch's Const
  // waits for the true pivot, so it is dead when the predicate is false.
  CHECK(InputOf(Get(g, "cond/then/input/_0"), 0) == "cond/input_0:1");
  CHECK(InputOf(Get(g, "cond/else/input/_0"), 0) == "cond/input_0:0");
  CHECK(HasControlEdge(Get(g, "cond/pivot_t"), Get(g, "cond/then/one")));
  CHECK(Get(g, "cond/else/neg")->type_string() == "Neg");
  const Node* merge = Get(g, "cond/output_0");
  CHECK(merge->type_string() == "Merge");
  CHECK(InputOf(merge, 0) == "cond/else/output/_0:0");
  CHECK(InputOf(merge, 1) == "cond/then/output/_0:0");
  CHECK(InputOf(Get(g, "use"), 0) == "cond/output_0:0");
  const Node* executed = Get(g, "cond/branch_executed");
  CHECK(HasControlEdge(executed, Get(g, "after")));
  CHECK(HasControlEdge(Get(g, "cond/then/output_control_node"), executed));
  CHECK(HasControlEdge(Get(g, "cond/else/output_control_node"), executed));
  CHECK(Get(g, "cond")->type_string() == "IdentityN");
  RequireReimports(g);
}

TEST_CASE("a Case becomes _SwitchN on the index, the branches and Merge") {
  Lowered l = Lower(std::string(kInputs) + R"pb(
    node {
      name: "i"
      op: "Placeholder"
      attr { key: "dtype" value { type: DT_INT32 } }
    }
    node {
      name: "case"
      op: "Case"
      input: "i"
      input: "x"
      attr { key: "Tin" value { list { type: DT_FLOAT } } }
      attr { key: "Tout" value { list { type: DT_FLOAT } } }
      attr {
        key: "branches"
        value { list { func { name: "AddOne" } func { name: "Negate" } func { name: "Outer" } } }
      }
    }
    node {
      name: "use"
      op: "Identity"
      input: "case"
      attr { key: "T" value { type: DT_FLOAT } }
    })pb" + kFunctions);
  REQUIRE_OK(l.status);
  const Graph& g = *l.graph;
  const Node* index = Get(g, "case/branch_index");
  CHECK(index->type_string() == "_SwitchN");
  CHECK(FindNodeAttr(index->def(), "num_outs")->i() == 3);
  const Node* sw = Get(g, "case/input_0");
  CHECK(sw->type_string() == "_SwitchN");
  CHECK(sw->num_outputs() == 3);
  for (int k = 0; k < 3; ++k) {
    const std::string b = "case/branch_" + std::to_string(k);
    CHECK(InputOf(Get(g, b + "/input/_0"), 0) == "case/input_0:" + std::to_string(k));
    CHECK(InputOf(Get(g, "case/pivot_" + std::to_string(k)), 0) ==
          "case/branch_index:" + std::to_string(k));
  }
  CHECK(Get(g, "case/branch_1/neg")->type_string() == "Neg");
  // Branch 2 calls a function by name, lowered in the next round.
  CHECK(Get(g, "case/branch_2/inner/add")->type_string() == "AddV2");
  const Node* merge = Get(g, "case/output_0");
  CHECK(merge->num_inputs() == 3);
  CHECK(InputOf(Get(g, "use"), 0) == "case/output_0:0");
  RequireReimports(g);
}

TEST_CASE("a While becomes a loop frame of Enter, Merge, Switch, NextIteration and Exit") {
  Lowered l = Lower(std::string(kInputs) + R"pb(
    node {
      name: "i0"
      op: "Const"
      attr { key: "dtype" value { type: DT_INT32 } }
      attr { key: "value" value { tensor { dtype: DT_INT32 tensor_shape {} int_val: 0 } } }
    }
    node {
      name: "v"
      op: "VarHandleOp"
      attr { key: "dtype" value { type: DT_FLOAT } }
      attr { key: "shape" value { shape {} } }
    }
    node {
      name: "loop"
      op: "While"
      input: "i0"
      input: "x"
      input: "v"
      input: "^ctrl"
      attr { key: "T" value { list { type: DT_INT32 type: DT_FLOAT type: DT_RESOURCE } } }
      attr { key: "cond" value { func { name: "Less3" } } }
      attr { key: "body" value { func { name: "Step" } } }
      attr { key: "parallel_iterations" value { i: 4 } }
      attr { key: "_num_original_outputs" value { i: 3 } }
    }
    node {
      name: "use"
      op: "Identity"
      input: "loop:1"
      attr { key: "T" value { type: DT_FLOAT } }
    }
    node {
      name: "handle"
      op: "Identity"
      input: "loop:2"
      attr { key: "T" value { type: DT_RESOURCE } }
    })pb" + kFunctions);
  REQUIRE_OK(l.status);
  const Graph& g = *l.graph;
  for (int i = 0; i < 3; ++i) {
    const Node* enter = Get(g, "loop/enter_" + std::to_string(i));
    CHECK(FindNodeAttr(enter->def(), "frame_name")->s() == "loop");
    CHECK(FindNodeAttr(enter->def(), "parallel_iterations")->i() == 4);
    CHECK(FindNodeAttr(enter->def(), "is_constant")->b() == (i == 2));
    CHECK(HasControlEdge(Get(g, "loop/LoopControlInputs"), enter));
  }
  CHECK(InputOf(Get(g, "loop/enter_1"), 0) == "x:0");
  // The resource enters as a constant: no Merge, Switch, Exit for it.
  CHECK(g.FindNode("loop/merge_2") == nullptr);
  CHECK(g.FindNode("loop/exit_2") == nullptr);
  const Node* merge = Get(g, "loop/merge_1");
  CHECK(InputOf(merge, 0) == "loop/enter_1:0");
  CHECK(InputOf(merge, 1) == "loop/next_iteration_1:0");
  // cond reads the Merges (the resource from its Enter); its Const is in the
  // frame through the first Merge.
  CHECK(InputOf(Get(g, "loop/cond/input/_0"), 0) == "loop/merge_0:0");
  CHECK(InputOf(Get(g, "loop/cond/input/_2"), 0) == "loop/enter_2:0");
  CHECK(HasControlEdge(Get(g, "loop/merge_0"), Get(g, "loop/cond/three")));
  CHECK(InputOf(Get(g, "loop/LoopCond"), 0) == "loop/cond/output/_0:0");
  const Node* sw = Get(g, "loop/switch_1");
  CHECK(InputOf(sw, 0) == "loop/merge_1:0");
  CHECK(InputOf(sw, 1) == "loop/LoopCond:0");
  CHECK(InputOf(Get(g, "loop/body/input/_1"), 0) == "loop/switch_1:1");
  CHECK(HasControlEdge(Get(g, "loop/loop_body_control"), Get(g, "loop/body/one")));
  const Node* next = Get(g, "loop/next_iteration_1");
  CHECK(InputOf(next, 0) == "loop/body/output/_1:0");
  CHECK(HasControlEdge(Get(g, "loop/body/output_control_node"), next));
  CHECK(InputOf(Get(g, "loop/exit_1"), 0) == "loop/switch_1:0");
  CHECK(InputOf(Get(g, "use"), 0) == "loop/exit_1:0");
  // The handle after the loop is the one that went in.
  CHECK(InputOf(Get(g, "handle"), 0) == "v:0");
  CHECK(Get(g, "loop")->type_string() == "IdentityN");
  RequireReimports(g);
}

constexpr char kForRange[] = R"pb(
  node {
    name: "range"
    op: "Const"
    attr { key: "dtype" value { type: DT_INT32 } }
    attr { key: "value" value { tensor { dtype: DT_INT32 tensor_shape {} int_val: 2 } } }
  })pb";

TEST_CASE("a For becomes a loop over the iteration and its inputs") {
  Lowered l = Lower(std::string(kInputs) + kForRange + R"pb(
    node {
      name: "loop"
      op: "For"
      input: "range"
      input: "range"
      input: "range"
      input: "x"
      input: "^ctrl"
      attr { key: "T" value { list { type: DT_FLOAT } } }
      attr { key: "body" value { func { name: "NegateAt" } } }
    }
    node {
      name: "use"
      op: "Identity"
      input: "loop"
      attr { key: "T" value { type: DT_FLOAT } }
    }
    library {
      function {
        signature {
          name: "NegateAt"
          input_arg { name: "i" type: DT_INT32 }
          input_arg { name: "x" type: DT_FLOAT }
          output_arg { name: "y" type: DT_FLOAT }
        }
        node_def {
          name: "neg"
          op: "Neg"
          input: "x"
          attr { key: "T" value { type: DT_FLOAT } }
        }
        ret { key: "y" value: "neg:y:0" }
      }
    })pb");
  REQUIRE_OK(l.status);
  const Graph& g = *l.graph;
  // _ForLoopStart checks the range and waits for every input.
  const Node* start = Get(g, "loop/start");
  CHECK(start->type_string() == "_ForLoopStart");
  CHECK(InputOf(start, 0) == "range:0");
  CHECK(InputOf(start, 3) == "x:0");
  CHECK(HasControlEdge(Get(g, "loop/LoopControlInputs"), start));
  CHECK(InputOf(Get(g, "loop/enter_0"), 0) == "loop/start:0");
  CHECK(InputOf(Get(g, "loop/enter_1"), 0) == "x:0");
  for (const char* name : {"loop/enter_0", "loop/enter_limit"}) {
    const Node* enter = Get(g, name);
    CHECK(FindNodeAttr(enter->def(), "frame_name")->s() == "loop");
    CHECK(FindNodeAttr(enter->def(), "parallel_iterations")->i() == 1);
    CHECK(FindNodeAttr(enter->def(), "is_constant")->b() ==
          (std::string(name) == "loop/enter_limit"));
  }
  const Node* cond = Get(g, "loop/cond");
  CHECK(cond->type_string() == "_ForLoopCond");
  CHECK(InputOf(cond, 0) == "loop/merge_0:0");
  CHECK(InputOf(cond, 1) == "loop/enter_limit:0");
  CHECK(InputOf(cond, 2) == "loop/enter_delta:0");
  CHECK(InputOf(Get(g, "loop/body/input/_0"), 0) == "loop/switch_0:1");
  CHECK(InputOf(Get(g, "loop/body/input/_1"), 0) == "loop/switch_1:1");
  const Node* next_iter = Get(g, "loop/next_iter");
  CHECK(InputOf(next_iter, 0) == "loop/switch_0:1");
  CHECK(InputOf(next_iter, 1) == "loop/enter_delta:0");
  CHECK(InputOf(Get(g, "loop/next_iteration_0"), 0) == "loop/next_iter:0");
  CHECK(InputOf(Get(g, "loop/next_iteration_1"), 0) ==
        "loop/body/output/_0:0");
  // The iteration counter is no output.
  CHECK(InputOf(Get(g, "use"), 0) == "loop/exit_1:0");
  CHECK(Get(g, "loop")->type_string() == "IdentityN");
  CHECK(Get(g, "loop")->num_outputs() == 1);
  RequireReimports(g);
}

TEST_CASE("a For whose body returns too much fails as TensorFlow's") {
  // Step returns (int32, float, resource) for two loop variables.
  Lowered l = Lower(std::string(kInputs) + kForRange + R"pb(
    node {
      name: "v"
      op: "VarHandleOp"
      attr { key: "dtype" value { type: DT_FLOAT } }
      attr { key: "shape" value { shape {} } }
    }
    node {
      name: "loop"
      op: "For"
      input: "range"
      input: "range"
      input: "range"
      input: "x"
      input: "v"
      attr { key: "T" value { list { type: DT_FLOAT type: DT_RESOURCE } } }
      attr { key: "body" value { func { name: "Step" } } }
    })pb" + kFunctions);
  CHECK_THAT(l.status,
             StatusIs(kInvalid, "node 'loop' (op For): For loop body "
                                "returned 3 arguments. Expected: 2"));
}

TEST_CASE("lowering errors name the functional node") {
  const std::string if_node = R"pb(
    node {
      name: "p"
      op: "Placeholder"
      attr { key: "dtype" value { type: DT_BOOL } }
    }
    node {
      name: "branchy"
      op: "If"
      input: "p"
      input: "x"
      attr { key: "Tcond" value { type: DT_BOOL } }
      attr { key: "Tin" value { list { type: DT_FLOAT } } }
      attr { key: "Tout" value { list { type: DT_FLOAT } } }
      attr { key: "then_branch" value { func { name: "AddOne" } } }
      attr { key: "else_branch" value { func { name: "ELSE" } } }
    })pb";
  auto with_else = [&](const std::string& name) {
    std::string s = if_node;
    s.replace(s.find("ELSE"), 4, name);
    return std::string(kInputs) + s + kFunctions;
  };
  CHECK_THAT(Lower(with_else("Missing")).status,
             StatusIs(kInvalid, "node 'branchy' (op If): else_branch names function 'Missing', which is not in the library"));
  CHECK_THAT(Lower(with_else("Less3")).status,
             StatusIs(kInvalid, "node 'branchy' (op If): else_branch: the arguments of function 'Less3'"));

  const std::string loop = std::string(kInputs) + R"pb(
    node {
      name: "loop"
      op: "StatelessWhile"
      input: "x"
      attr { key: "T" value { list { type: DT_FLOAT } } }
      attr { key: "cond" value { func { name: "AddOne" } } }
      attr { key: "body" value { func { name: "Negate" } } }
    })pb" + kFunctions;
  CHECK_THAT(Lower(loop).status,
             StatusIs(kInvalid, "node 'loop' (op StatelessWhile): cond function 'AddOne' returns [float] instead of one bool"));
}

TEST_CASE("inlining that multiplies the graph stops at the node limit") {
  // F0 calls F1 twice, F1 calls F2 twice, ... : 2^12 copies of F12.
  GraphDef def;
  DFX_CHECK(google::protobuf::TextFormat::ParseFromString(kInputs, &def));
  constexpr int kLevels = 12;
  for (int i = 0; i <= kLevels; ++i) {
    FunctionDef* f = def.mutable_library()->add_function();
    OpDef* sig = f->mutable_signature();
    sig->set_name("F" + std::to_string(i));
    OpDef::ArgDef* in = sig->add_input_arg();
    in->set_name("x");
    in->set_type(DT_FLOAT);
    OpDef::ArgDef* out = sig->add_output_arg();
    out->set_name("y");
    out->set_type(DT_FLOAT);
    if (i == kLevels) {
      (*f->mutable_ret())["y"] = "x";
      continue;
    }
    const std::string callee = "F" + std::to_string(i + 1);
    for (const char* name : {"a", "b"}) {
      NodeDef* call = f->add_node_def();
      call->set_name(name);
      call->set_op(callee);
      call->add_input("x");
    }
    NodeDef* add = f->add_node_def();
    add->set_name("sum");
    add->set_op("AddV2");
    add->add_input("a:y:0");
    add->add_input("b:y:0");
    (*add->mutable_attr())["T"].set_type(DT_FLOAT);
    (*f->mutable_ret())["y"] = "sum:z:0";
  }
  NodeDef* call = def.add_node();
  call->set_name("top");
  call->set_op("F0");
  call->add_input("x");
  auto lib = FunctionLibrary::Create(def.library(), OpRegistry::Global());
  REQUIRE_OK(lib);
  auto graph = ImportGraphDef(def, (*lib)->op_registry());
  REQUIRE_OK(graph);
  LowerOptions options;
  options.max_nodes = 5000;
  CHECK_THAT(LowerFunctionalOps(**lib, graph->get(), options),
             StatusIs(kInvalid, "grows the graph beyond 5000 nodes"));
  // With room enough it lowers completely: 2^12 leaves.
  graph = ImportGraphDef(def, (*lib)->op_registry());
  REQUIRE_OK(graph);
  REQUIRE_OK(LowerFunctionalOps(**lib, graph->get()));
  int adds = 0;
  for (const Node* n : (*graph)->nodes()) adds += n->type_string() == "AddV2";
  CHECK(adds == (1 << kLevels) - 1);
}

// The graphs TensorFlow 2.21 exports for tf.function (gen_functions.py):
// each lowers completely and the result is a GraphDef a worker imports.
TEST_CASE("TensorFlow's tf.function exports lower to plain graphs") {
  const std::filesystem::path root =
      std::filesystem::path(DFX_TEST_DATA_DIR) / ".." / "graph" / "data" /
      "functions";
  int lowered = 0;
  for (const auto& entry : std::filesystem::directory_iterator(root)) {
    const std::string name = entry.path().filename().string();
    INFO("case " << name);
    absl::StatusOr<GraphDef> def =
        ReadGraphDefFile((entry.path() / "graph.pb").string());
    REQUIRE_OK(def);
    auto lib = FunctionLibrary::Create(ReachableFunctions(*def),
                                       OpRegistry::Global());
    REQUIRE_OK(lib);
    auto graph = ImportGraphDef(*def, (*lib)->op_registry());
    REQUIRE_OK(graph);
    REQUIRE_OK(LowerFunctionalOps(**lib, graph->get()));
    int functional = 0;
    for (const Node* n : (*graph)->nodes()) {
      functional += IsFunctionalNode(**lib, *n);
    }
    CHECK(functional == 0);
    RequireReimports(**graph);
    ++lowered;
  }
  CHECK(lowered >= 12);
}

}  // namespace
}  // namespace dfx
