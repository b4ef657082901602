#include "graph/function_library.h"

#include <string>

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

FunctionDefLibrary Lib(const std::string& text) {
  FunctionDefLibrary lib;
  DFX_CHECK(google::protobuf::TextFormat::ParseFromString(text, &lib));
  return lib;
}

GraphDef ParseGraph(const std::string& text) {
  GraphDef g;
  DFX_CHECK(google::protobuf::TextFormat::ParseFromString(text, &g));
  return g;
}

absl::Status Validate(const std::string& text) {
  return FunctionLibrary::Create(Lib(text), OpRegistry::Global()).status();
}

// y = x + 1 (float), with a Const in the body.
constexpr char kAddOne[] = R"pb(
  function {
    signature {
      name: "AddOne"
      input_arg { name: "x" type: DT_FLOAT }
      output_arg { name: "y" type: DT_FLOAT }
    }
    node_def {
      name: "one"
      op: "Const"
      attr { key: "dtype" value { type: DT_FLOAT } }
      attr {
        key: "value"
        value { tensor { dtype: DT_FLOAT tensor_shape {} float_val: 1 } }
      }
    }
    node_def {
      name: "add"
      op: "AddV2"
      input: "x"
      input: "one:output:0"
      attr { key: "T" value { type: DT_FLOAT } }
    }
    ret { key: "y" value: "add:z:0" }
  })pb";

// A body that calls `callee` through `op` (with the func attr `attr`).
std::string Caller(const std::string& name, const std::string& node_text) {
  return R"pb(
    function {
      signature {
        name: ")pb" + name + R"pb("
        input_arg { name: "x" type: DT_FLOAT }
        output_arg { name: "y" type: DT_FLOAT }
      }
      )pb" + node_text + R"pb(
      ret { key: "y" value: "x" }
    })pb";
}

TEST_CASE("a valid library registers each function as an op") {
  absl::StatusOr<std::unique_ptr<FunctionLibrary>> lib =
      FunctionLibrary::Create(Lib(kAddOne), OpRegistry::Global());
  REQUIRE_OK(lib);
  REQUIRE((*lib)->Contains("AddOne"));
  REQUIRE((*lib)->ListFunctions() == std::vector<std::string>{"AddOne"});
  const OpRegistrationData* op = (*lib)->op_registry()->LookUp("AddOne");
  REQUIRE(op != nullptr);
  CHECK(op->op_def.input_arg(0).name() == "x");
  // The standard ops stay visible through the library's registry.
  CHECK((*lib)->op_registry()->LookUp("AddV2") != nullptr);
  CHECK(OpRegistry::Global()->LookUp("AddOne") == nullptr);
}

TEST_CASE("a graph that calls a function by name imports with the library's ops") {
  GraphDef g = ParseGraph(R"pb(
    node {
      name: "x"
      op: "Placeholder"
      attr { key: "dtype" value { type: DT_FLOAT } }
    }
    node { name: "call" op: "AddOne" input: "x" })pb");
  *g.mutable_library() = Lib(kAddOne);
  CHECK_THAT(ImportGraphDef(g, OpRegistry::Global()).status(),
             StatusIs(kInvalid, "'AddOne' (node 'call')"));
  auto lib = FunctionLibrary::Create(g.library(), OpRegistry::Global());
  REQUIRE_OK(lib);
  auto graph = ImportGraphDef(g, (*lib)->op_registry());
  REQUIRE_OK(graph);
  const Node* call = (*graph)->FindNode("call");
  REQUIRE(call != nullptr);
  CHECK(call->num_inputs() == 1);
  CHECK(call->output_type(0) == DT_FLOAT);
}

TEST_CASE("an op in a body that is neither registered nor a function is rejected") {
  CHECK_THAT(Validate(Caller("F", R"pb(node_def { name: "n" op: "NoSuchOp" })pb")),
             StatusIs(kInvalid, "function 'F', node 'n' (op NoSuchOp)"));
}

TEST_CASE("direct recursion is rejected") {
  CHECK_THAT(
      Validate(Caller("F", R"pb(node_def { name: "again" op: "F" input: "x" })pb")),
      StatusIs(kInvalid, "function 'F' is recursive: F -> F (node 'again'"));
}

TEST_CASE("recursion through a While body and a PartitionedCall is rejected") {
  const std::string f = Caller("F", R"pb(
    node_def {
      name: "loop"
      op: "StatelessWhile"
      input: "x"
      attr { key: "T" value { list { type: DT_FLOAT } } }
      attr { key: "cond" value { func { name: "Cond" } } }
      attr { key: "body" value { func { name: "G" } } }
    })pb");
  const std::string g = Caller("G", R"pb(
    node_def {
      name: "call"
      op: "PartitionedCall"
      input: "x"
      attr { key: "Tin" value { list { type: DT_FLOAT } } }
      attr { key: "Tout" value { list { type: DT_FLOAT } } }
      attr { key: "f" value { func { name: "F" } } }
    })pb");
  const std::string cond = R"pb(
    function {
      signature {
        name: "Cond"
        input_arg { name: "x" type: DT_FLOAT }
        output_arg { name: "b" type: DT_BOOL }
      }
      node_def {
        name: "t"
        op: "Const"
        attr { key: "dtype" value { type: DT_BOOL } }
        attr { key: "value" value { tensor { dtype: DT_BOOL tensor_shape {} bool_val: false } } }
      }
      ret { key: "b" value: "t:output:0" }
    })pb";
  CHECK_THAT(Validate(f + g + cond),
             StatusIs(kInvalid, "is recursive: F -> G -> F"));
  // Without the cycle the same functions are fine.
  CHECK_THAT(Validate(f + cond + Caller("G", "")), IsOk());
}

TEST_CASE("recursion through an If branch is rejected") {
  const std::string f = Caller("F", R"pb(
    node_def {
      name: "p"
      op: "Const"
      attr { key: "dtype" value { type: DT_BOOL } }
      attr { key: "value" value { tensor { dtype: DT_BOOL tensor_shape {} bool_val: true } } }
    }
    node_def {
      name: "branch"
      op: "If"
      input: "p:output:0"
      input: "x"
      attr { key: "Tcond" value { type: DT_BOOL } }
      attr { key: "Tin" value { list { type: DT_FLOAT } } }
      attr { key: "Tout" value { list { type: DT_FLOAT } } }
      attr { key: "then_branch" value { func { name: "AddOne" } } }
      attr { key: "else_branch" value { func { name: "F" } } }
    })pb");
  CHECK_THAT(Validate(f + kAddOne),
             StatusIs(kInvalid, "function 'F' is recursive: F -> F (node 'branch'"));
}

TEST_CASE("malformed signatures are rejected") {
  CHECK_THAT(Validate(R"pb(
               function {
                 signature {
                   name: "F"
                   input_arg { name: "x" type: DT_FLOAT }
                   input_arg { name: "x" type: DT_FLOAT }
                 }
               })pb"),
             StatusIs(kInvalid, "function 'F': input arg name 'x' is not unique"));
  CHECK_THAT(Validate(R"pb(
               function {
                 signature {
                   name: "F"
                   input_arg { name: "x" type_attr: "T" }
                 }
               })pb"),
             StatusIs(kInvalid, "names attr 'T', which the signature does not declare"));
  CHECK_THAT(Validate(R"pb(
               function {
                 signature {
                   name: "F"
                   input_arg { name: "x" }
                 }
               })pb"),
             StatusIs(kInvalid, "input arg 'x' must have exactly one of type"));
  CHECK_THAT(Validate(R"pb(
               function {
                 signature {
                   name: "F"
                   attr { name: "T" type: "int" }
                   input_arg { name: "x" type_attr: "T" }
                 }
               })pb"),
             StatusIs(kInvalid, "names attr 'T' of kind int, which should be type"));
  CHECK_THAT(Validate(R"pb(function { signature { name: "Add" } })pb"),
             StatusIs(kInvalid, "function 'Add': has the name of a registered op"));
}

TEST_CASE("references in a body must resolve") {
  CHECK_THAT(
      Validate(Caller("F", R"pb(node_def { name: "n" op: "Identity" input: "nope:output:0"
                                attr { key: "T" value { type: DT_FLOAT } } })pb")),
      StatusIs(kInvalid, "names node 'nope', which is not in the function"));
  CHECK_THAT(
      Validate(Caller("F", R"pb(node_def { name: "n" op: "Identity" input: "x:output:0"
                                attr { key: "T" value { type: DT_FLOAT } } })pb")),
      StatusIs(kInvalid, "function 'F', node 'n' (op Identity): input 'x:output:0'"));
  CHECK_THAT(
      Validate(Caller("F", R"pb(node_def { name: "a" op: "Identity" input: "x"
                                attr { key: "T" value { type: DT_FLOAT } } }
                                node_def { name: "b" op: "Identity" input: "a:bogus:0"
                                attr { key: "T" value { type: DT_FLOAT } } })pb")),
      StatusIs(kInvalid, "names output 'bogus', which op Identity does not have"));
  CHECK_THAT(
      Validate(Caller("F", R"pb(node_def { name: "a" op: "Identity" input: "x"
                                attr { key: "T" value { type: DT_FLOAT } } }
                                node_def { name: "b" op: "Identity" input: "a:output:1"
                                attr { key: "T" value { type: DT_FLOAT } } })pb")),
      StatusIs(kInvalid, "names index 1 of output 'output', which has 1 tensor(s)"));
  CHECK_THAT(
      Validate(Caller("F", R"pb(node_def { name: "a" op: "NoOp" input: "^ghost" })pb")),
      StatusIs(kInvalid, "control input '^ghost' names 'ghost'"));
  CHECK_THAT(Validate(R"pb(
               function {
                 signature { name: "F" output_arg { name: "y" type: DT_FLOAT } }
               })pb"),
             StatusIs(kInvalid, "function 'F': output 'y' has no ret entry"));
  CHECK_THAT(Validate(R"pb(
               function {
                 signature { name: "F" control_output: "side" }
                 control_ret { key: "side" value: "missing" }
               })pb"),
             StatusIs(kInvalid, "control_ret 'side' names node 'missing'"));
}

TEST_CASE("func attrs and gradient defs must name functions of the library") {
  CHECK_THAT(Validate(Caller("F", R"pb(
               node_def {
                 name: "call"
                 op: "PartitionedCall"
                 input: "x"
                 attr { key: "Tin" value { list { type: DT_FLOAT } } }
                 attr { key: "Tout" value { list { type: DT_FLOAT } } }
                 attr { key: "f" value { func { name: "Missing" } } }
               })pb")),
             StatusIs(kInvalid, "attr 'f' names function 'Missing', which is not in the library"));
  CHECK_THAT(Validate(std::string(kAddOne) +
                      R"pb(gradient { function_name: "AddOne" gradient_func: "AddOneGrad" })pb"),
             StatusIs(kInvalid, "gradient function 'AddOneGrad', which is not in the library"));
  CHECK_THAT(Validate(std::string(kAddOne) +
                      R"pb(gradient { function_name: "Nope" gradient_func: "AddOne" })pb"),
             StatusIs(kInvalid, "gradient def names function 'Nope'"));
}

TEST_CASE("a function defined twice must be defined the same way") {
  CHECK_THAT(Validate(std::string(kAddOne) + kAddOne), IsOk());
  std::string other = kAddOne;
  other.replace(other.find("float_val: 1"), 12, "float_val: 2");
  CHECK_THAT(Validate(std::string(kAddOne) + other),
             StatusIs(kInvalid, "function 'AddOne': is defined twice"));
}

// y = x + x for any T; xs: N * T summed with AddN.
constexpr char kPolymorphic[] = R"pb(
  function {
    signature {
      name: "Double"
      attr { name: "T" type: "type" }
      input_arg { name: "x" type_attr: "T" }
      output_arg { name: "y" type_attr: "T" }
    }
    node_def {
      name: "id"
      op: "Identity"
      input: "x"
      attr { key: "T" value { placeholder: "T" } }
    }
    node_def {
      name: "sum"
      op: "AddV2"
      input: "id:output:0"
      input: "id:output:0"
      input: "^x"
      attr { key: "T" value { placeholder: "T" } }
    }
    ret { key: "y" value: "sum:z:0" }
  }
  function {
    signature {
      name: "SumAll"
      attr { name: "T" type: "type" }
      attr { name: "N" type: "int" has_minimum: true minimum: 1 }
      input_arg { name: "xs" type_attr: "T" number_attr: "N" }
      output_arg { name: "y" type_attr: "T" }
      output_arg { name: "all" type_attr: "T" number_attr: "N" }
    }
    node_def {
      name: "add"
      op: "AddN"
      input: "xs"
      attr { key: "T" value { placeholder: "T" } }
      attr { key: "N" value { placeholder: "N" } }
    }
    ret { key: "y" value: "add:sum:0" }
    ret { key: "all" value: "xs" }
  })pb";

const NodeDef* FindNodeDef(const FunctionBody& body, const std::string& name) {
  for (const NodeDef& n : body.nodes) {
    if (n.name() == name) return &n;
  }
  return nullptr;
}

TEST_CASE("instantiation substitutes the signature's attrs and flattens names") {
  auto lib = FunctionLibrary::Create(Lib(kPolymorphic), OpRegistry::Global());
  REQUIRE_OK(lib);
  FunctionAttrs attrs;
  attrs["T"].set_type(DT_INT32);
  absl::StatusOr<FunctionBody> body = (*lib)->Instantiate("Double", attrs);
  REQUIRE_OK(body);
  CHECK(body->arg_types == DataTypeVector{DT_INT32});
  CHECK(body->ret_types == DataTypeVector{DT_INT32});
  REQUIRE(body->arg_nodes == std::vector<std::string>{"x"});
  REQUIRE(body->ret_nodes == std::vector<std::string>{"y_RetVal"});
  const NodeDef* arg = FindNodeDef(*body, "x");
  REQUIRE(arg != nullptr);
  CHECK(arg->op() == "_Arg");
  CHECK(FindNodeAttr(*arg, "T")->type() == DT_INT32);
  const NodeDef* sum = FindNodeDef(*body, "sum");
  REQUIRE(sum != nullptr);
  CHECK(FindNodeAttr(*sum, "T")->type() == DT_INT32);
  CHECK(std::vector<std::string>(sum->input().begin(), sum->input().end()) ==
        std::vector<std::string>{"id", "id", "^x"});
  const NodeDef* ret = FindNodeDef(*body, "y_RetVal");
  REQUIRE(ret != nullptr);
  CHECK(ret->input(0) == "sum");

  attrs["T"].set_type(DT_DOUBLE);
  body = (*lib)->Instantiate("Double", attrs);
  REQUIRE_OK(body);
  CHECK(FindNodeAttr(*FindNodeDef(*body, "id"), "T")->type() == DT_DOUBLE);
}

TEST_CASE("instantiation expands list arguments and results") {
  auto lib = FunctionLibrary::Create(Lib(kPolymorphic), OpRegistry::Global());
  REQUIRE_OK(lib);
  FunctionAttrs attrs;
  attrs["T"].set_type(DT_FLOAT);
  attrs["N"].set_i(3);
  absl::StatusOr<FunctionBody> body = (*lib)->Instantiate("SumAll", attrs);
  REQUIRE_OK(body);
  CHECK(body->arg_nodes == std::vector<std::string>{"xs_0", "xs_1", "xs_2"});
  CHECK(body->ret_types.size() == 4);
  const NodeDef* add = FindNodeDef(*body, "add");
  REQUIRE(add != nullptr);
  CHECK(std::vector<std::string>(add->input().begin(), add->input().end()) ==
        std::vector<std::string>{"xs_0", "xs_1", "xs_2"});
  CHECK(FindNodeAttr(*add, "N")->i() == 3);
  CHECK(FindNodeDef(*body, "all_2_RetVal")->input(0) == "xs_2");
}

TEST_CASE("instantiation errors name the function") {
  auto lib = FunctionLibrary::Create(Lib(kPolymorphic), OpRegistry::Global());
  REQUIRE_OK(lib);
  CHECK_THAT((*lib)->Instantiate("Double", {}).status(),
             StatusIs(kInvalid, "function 'Double': instantiation needs attr 'T'"));
  FunctionAttrs wrong;
  wrong["T"].set_i(3);
  CHECK_THAT((*lib)->Instantiate("Double", wrong).status(),
             StatusIs(kInvalid, "attr 'T' should be type but is int"));
  CHECK_THAT((*lib)->Instantiate("Nope", {}).status(),
             StatusIs(absl::StatusCode::kNotFound, "function 'Nope'"));
}

TEST_CASE("ReachableFunctions keeps what the graph calls, directly or nested") {
  GraphDef g = ParseGraph(R"pb(
    node {
      name: "x"
      op: "Placeholder"
      attr { key: "dtype" value { type: DT_FLOAT } }
    }
    node {
      name: "call"
      op: "PartitionedCall"
      input: "x"
      attr { key: "Tin" value { list { type: DT_FLOAT } } }
      attr { key: "Tout" value { list { type: DT_FLOAT } } }
      attr { key: "f" value { func { name: "Outer" } } }
    })pb");
  *g.mutable_library() =
      Lib(Caller("Outer", R"pb(node_def { name: "n" op: "AddOne" input: "x" })pb") +
          kAddOne + Caller("Unused", R"pb(node_def { name: "n" op: "NoSuchOp" })pb"));
  FunctionDefLibrary reached = ReachableFunctions(g);
  REQUIRE(reached.function_size() == 2);
  CHECK(reached.function(0).signature().name() == "Outer");
  CHECK(reached.function(1).signature().name() == "AddOne");
  CHECK_THAT(FunctionLibrary::Create(reached, OpRegistry::Global()).status(), IsOk());
  CHECK_THAT(FunctionLibrary::Create(g.library(), OpRegistry::Global()).status(),
             StatusIs(kInvalid, "function 'Unused', node 'n' (op NoSuchOp)"));
}

TEST_CASE("GraphDefToFunctionDef turns a partition with _Arg and _Retval "
          "nodes into a function that instantiates to the same graph") {
  // ret0 = Split(arg1 ...)[1] * arg0, with a control input on arg0.
  GraphDef g = ParseGraph(R"pb(
    node { name: "a" op: "_Arg"
           attr { key: "T" value { type: DT_FLOAT } }
           attr { key: "index" value { i: 0 } } }
    node { name: "b" op: "_Arg"
           attr { key: "T" value { type: DT_FLOAT } }
           attr { key: "index" value { i: 1 } } }
    node { name: "dim" op: "Const"
           input: "^a"
           attr { key: "dtype" value { type: DT_INT32 } }
           attr { key: "value" value { tensor {
             dtype: DT_INT32 tensor_shape {} int_val: 0 } } } }
    node { name: "split" op: "Split" input: "dim" input: "b"
           attr { key: "T" value { type: DT_FLOAT } }
           attr { key: "num_split" value { i: 2 } } }
    node { name: "mul" op: "Mul" input: "split:1" input: "a"
           attr { key: "T" value { type: DT_FLOAT } } }
    node { name: "r" op: "_Retval" input: "mul"
           attr { key: "T" value { type: DT_FLOAT } }
           attr { key: "index" value { i: 0 } } }
  )pb");
  absl::StatusOr<FunctionDef> f =
      GraphDefToFunctionDef(g, "Part", *OpRegistry::Global());
  REQUIRE_THAT(f.status(), IsOk());
  CHECK(f->signature().input_arg_size() == 2);
  CHECK(f->signature().output_arg_size() == 1);
  CHECK(f->ret().at("ret0") == "mul:z:0");
  FunctionDefLibrary lib;
  *lib.add_function() = *f;
  auto created = FunctionLibrary::Create(lib, OpRegistry::Global());
  REQUIRE_THAT(created.status(), IsOk());
  absl::StatusOr<FunctionBody> body = (*created)->Instantiate("Part", {});
  REQUIRE_THAT(body.status(), IsOk());
  CHECK(body->arg_types == DataTypeVector{DT_FLOAT, DT_FLOAT});
  CHECK(body->ret_types == DataTypeVector{DT_FLOAT});
  for (const NodeDef& n : body->nodes) {
    if (n.name() == "mul") {
      REQUIRE(n.input_size() == 2);
      CHECK(n.input(0) == "split:1");
      CHECK(n.input(1) == "arg0");
    }
    if (n.name() == "dim") CHECK(n.input(0) == "^arg0");
  }

  GraphDef gap = g;
  (*gap.mutable_node(1)->mutable_attr())["index"].set_i(2);
  CHECK_THAT(GraphDefToFunctionDef(gap, "Part", *OpRegistry::Global()).status(),
             StatusIs(kInvalid, "node 'b' (_Arg): index 2 leaves a gap"));
  GraphDef bad = g;
  bad.mutable_node(4)->set_input(0, "nowhere:0");
  CHECK_THAT(GraphDefToFunctionDef(bad, "Part", *OpRegistry::Global()).status(),
             StatusIs(kInvalid, "input 'nowhere:0' names no node"));
}

}  // namespace
}  // namespace dfx
