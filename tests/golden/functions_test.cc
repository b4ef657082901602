// TF2 functions end to end: graphs of tf.function concrete functions as
// TensorFlow 2.21 exports them (PartitionedCall, StatelessIf, StatelessWhile,
// StatelessCase and their function library; tests/graph/gen_functions.py)
// run through a dfx local session, which lowers them, and must give
// TensorFlow's answers. A case recorded with "needs" (ops dfx lacks) must
// either run correctly or fail at Extend with an error that names what it
// needs; no case needs anything today.
#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "catch2/catch.hpp"
#include "google/protobuf/text_format.h"
#include "graph/graph_def_import.h"
#include "runtime/session.h"
#include "tests/golden/golden_util.h"
#include "tools/cli/npy.h"

namespace dfx {
namespace {

namespace fs = std::filesystem;

const fs::path kFunctionsDir =
    fs::path(DFX_TEST_DATA_DIR) / ".." / "graph" / "data" / "functions";

bool IsFunctionalOp(const std::string& op) {
  for (const char* f : {"PartitionedCall", "StatefulPartitionedCall", "If",
                        "StatelessIf", "Case", "StatelessCase", "While",
                        "StatelessWhile"}) {
    if (op == f) return true;
  }
  return false;
}

// What went wrong with one case, or empty. With `functional_device`, the
// session has two CPU devices and the graph's functional nodes ask for
// that one (their inputs stay on the default device), so lowered loops and
// branches are split across devices.
std::string RunCase(const fs::path& dir,
                    const std::string& functional_device = "") {
  absl::StatusOr<nlohmann::json> spec = golden::ReadJson(dir / "case.json");
  if (!spec.ok()) return spec.status().ToString();
  absl::StatusOr<GraphDef> graph =
      ReadGraphDefFile((dir / "graph.pb").string());
  if (!graph.ok()) return graph.status().ToString();
  if (!functional_device.empty()) {
    for (NodeDef& n : *graph->mutable_node()) {
      if (IsFunctionalOp(n.op())) n.set_device(functional_device);
    }
  }
  std::vector<std::pair<std::string, Tensor>> feeds;
  for (const auto& feed : (*spec)["feeds"]) {
    absl::StatusOr<Tensor> value =
        cli::ReadNpyFile((dir / feed["file"].get<std::string>()).string());
    if (!value.ok()) return value.status().ToString();
    feeds.emplace_back(feed["name"].get<std::string>(), *std::move(value));
  }
  const std::vector<std::string> fetches = (*spec)["fetches"];

  SessionOptions options;
  options.config.set_intra_op_parallelism_threads(2);
  options.config.set_operation_timeout_in_ms(60000);
  if (!functional_device.empty()) {
    (*options.config.mutable_device_count())["CPU"] = 2;
  }
  auto session = Session::Create("local", options);
  if (!session.ok()) return session.status().ToString();
  std::vector<Tensor> outputs;
  absl::Status extended = (*session)->Extend(*graph);
  absl::Status s = extended;
  if (s.ok()) s = (*session)->Run(feeds, fetches, {}, &outputs);
  (void)(*session)->Close();

  if (spec->contains("needs") && !extended.ok()) {
    for (const auto& need : (*spec)["needs"]) {
      if (!absl::StrContains(extended.message(), need.get<std::string>())) {
        return absl::StrCat("Extend failed without naming ",
                            need.get<std::string>(), ": ",
                            extended.ToString());
      }
    }
    return "";
  }
  if (!s.ok()) return s.ToString();
  std::vector<std::string> problems;
  const auto& specs = (*spec)["outputs"];
  if (outputs.size() != specs.size()) {
    return absl::StrCat(outputs.size(), " outputs, want ", specs.size());
  }
  for (size_t i = 0; i < specs.size(); ++i) {
    absl::StatusOr<Tensor> want =
        cli::ReadNpyFile((dir / specs[i]["file"].get<std::string>()).string());
    if (!want.ok()) return want.status().ToString();
    const std::string diff = golden::Compare(
        outputs[i], *want, specs[i]["dtype"].get<std::string>(),
        specs[i]["rtol"].get<double>(), specs[i]["atol"].get<double>());
    if (!diff.empty()) problems.push_back(absl::StrCat(fetches[i], ": ", diff));
  }
  return absl::StrJoin(problems, "; ");
}

void RunCases(const std::vector<std::string>& names,
              const std::string& functional_device = "") {
  for (const std::string& name : names) {
    const fs::path dir = kFunctionsDir / name;
    INFO("case " << name);
    REQUIRE(fs::exists(dir / "case.json"));
    const std::string problem = RunCase(dir, functional_device);
    INFO(problem);
    CHECK(problem.empty());
  }
}

TEST_CASE("functions: nested tf.function calls equal TensorFlow") {
  RunCases({"nested_calls"});
}

TEST_CASE("functions: tf.cond in a tf.function equals TensorFlow on both branches") {
  RunCases({"cond_in_function", "cond_in_function_false", "cond_false_branch"});
}

TEST_CASE("functions: tf.while_loop in a tf.function equals TensorFlow") {
  RunCases({"while_in_function", "while_zero_iterations", "nested_while"});
}

TEST_CASE("functions: tf.switch_case equals TensorFlow, out of range too") {
  RunCases({"switch_case", "switch_case_out_of_range"});
}

TEST_CASE("functions: tf.cond inside a tf.while_loop equals TensorFlow") {
  RunCases({"cond_in_while"});
}

TEST_CASE("functions: a variable updated in a While and an If equals TensorFlow") {
  // The handle is a loop variable (entering once, as a constant); the
  // updates are reached only through the functions' control outputs.
  RunCases({"resource_in_loop_and_cond"});
}

TEST_CASE("functions: lowered nodes on another device than their inputs equal TensorFlow") {
  RunCases({"nested_calls", "cond_in_function", "cond_in_function_false",
            "while_in_function", "while_zero_iterations", "nested_while",
            "switch_case", "switch_case_out_of_range", "cond_in_while",
            "resource_in_loop_and_cond"},
           "/device:CPU:1");
}

TEST_CASE("functions: a loop gradient with TensorList accumulators equals TensorFlow") {
  RunCases({"while_gradient"});
}

TEST_CASE("functions: Extend rejects a called function with an unknown op, naming it") {
  absl::StatusOr<GraphDef> graph =
      ReadGraphDefFile((kFunctionsDir / "nested_calls" / "graph.pb").string());
  REQUIRE(graph.ok());
  // Every function the graph reaches is checked: break the innermost one.
  FunctionDef* victim = nullptr;
  for (FunctionDef& f : *graph->mutable_library()->mutable_function()) {
    if (absl::StrContains(f.signature().name(), "scale")) victim = &f;
  }
  REQUIRE(victim != nullptr);
  victim->mutable_node_def(0)->set_op("NoSuchOp");
  const std::string node = victim->node_def(0).name();
  auto session = Session::Create("local", SessionOptions());
  REQUIRE(session.ok());
  const absl::Status s = (*session)->Extend(*graph);
  CHECK(s.code() == absl::StatusCode::kInvalidArgument);
  CHECK(absl::StrContains(s.message(), victim->signature().name()));
  CHECK(absl::StrContains(s.message(), "node '" + node + "' (op NoSuchOp)"));
  (void)(*session)->Close();
}

TEST_CASE("functions: a function nobody calls does not need its ops") {
  absl::StatusOr<GraphDef> graph =
      ReadGraphDefFile((kFunctionsDir / "nested_calls" / "graph.pb").string());
  REQUIRE(graph.ok());
  FunctionDef* unused = graph->mutable_library()->add_function();
  unused->mutable_signature()->set_name("never_called");
  NodeDef* n = unused->add_node_def();
  n->set_name("n");
  n->set_op("NoSuchOp");
  auto session = Session::Create("local", SessionOptions());
  REQUIRE(session.ok());
  CHECK((*session)->Extend(*graph).ok());
  (void)(*session)->Close();
}

// A TF1 Defun-style graph: the node's op is the function's name, and the
// function is polymorphic ($T).
constexpr char kDirectCall[] = R"pb(
  node {
    name: "x"
    op: "Placeholder"
    attr { key: "dtype" value { type: DT_FLOAT } }
  }
  node {
    name: "y"
    op: "Twice"
    input: "x"
    attr { key: "T" value { type: DT_FLOAT } }
  }
  library {
    function {
      signature {
        name: "Twice"
        attr { name: "T" type: "type" }
        input_arg { name: "a" type_attr: "T" }
        output_arg { name: "b" type_attr: "T" }
      }
      node_def {
        name: "sum"
        op: "AddV2"
        input: "a"
        input: "a"
        attr { key: "T" value { placeholder: "T" } }
      }
      ret { key: "b" value: "sum:z:0" }
    }
  })pb";

TEST_CASE("functions: a node whose op is a function name runs, its attrs instantiating it") {
  GraphDef graph;
  REQUIRE(google::protobuf::TextFormat::ParseFromString(kDirectCall, &graph));
  auto session = Session::Create("local", SessionOptions());
  REQUIRE(session.ok());
  REQUIRE((*session)->Extend(graph).ok());
  Tensor x(DT_FLOAT, TensorShape({2}));
  x.data<float>()[0] = 1.5f;
  x.data<float>()[1] = -4.0f;
  std::vector<Tensor> out;
  const absl::Status s = (*session)->Run({{"x", x}}, {"y"}, {}, &out);
  INFO(s.ToString());
  REQUIRE(s.ok());
  REQUIRE(out.size() == 1);
  CHECK(out[0].data<float>()[0] == 3.0f);
  CHECK(out[0].data<float>()[1] == -8.0f);
  (void)(*session)->Close();
}

// The session keeps the client's merged graph only while functions are
// inlined into its imported graph; otherwise a later Extend rebuilds it from
// the imported graph. Either way a later Extend sees every earlier node and
// function.
TEST_CASE("functions: Extend adds to the graph so far, with and without a function called") {
  GraphDef whole;
  REQUIRE(google::protobuf::TextFormat::ParseFromString(kDirectCall, &whole));
  const NodeDef& x_def = whole.node(0);
  const NodeDef& y_def = whole.node(1);
  REQUIRE(y_def.name() == "y");
  Tensor x(DT_FLOAT, TensorShape({2}));
  x.data<float>()[0] = 1.5f;
  x.data<float>()[1] = -4.0f;
  auto run = [&](Session* session, const std::string& fetch) {
    std::vector<Tensor> out;
    const absl::Status s = session->Run({{"x", x}}, {fetch}, {}, &out);
    INFO(s.ToString());
    REQUIRE(s.ok());
    REQUIRE(out.size() == 1);
    return std::vector<float>(out[0].data<float>(),
                              out[0].data<float>() + 2);
  };

  // First no call (the function rides along uncalled), then the call.
  {
    GraphDef first;
    *first.add_node() = x_def;
    *first.mutable_library() = whole.library();
    GraphDef second;
    *second.add_node() = y_def;
    auto session = Session::Create("local", SessionOptions());
    REQUIRE(session.ok());
    REQUIRE((*session)->Extend(first).ok());
    REQUIRE((*session)->Extend(second).ok());
    CHECK(run(session->get(), "y") == std::vector<float>{3.0f, -8.0f});
    // A node named like an earlier one is still refused.
    CHECK((*session)->Extend(first).code() ==
          absl::StatusCode::kInvalidArgument);
    (void)(*session)->Close();
  }
  // First the call, then a node reading its result.
  {
    GraphDef second;
    NodeDef* z = second.add_node();
    z->set_name("z");
    z->set_op("AddV2");
    z->add_input("y");
    z->add_input("x");
    (*z->mutable_attr())["T"].set_type(DT_FLOAT);
    auto session = Session::Create("local", SessionOptions());
    REQUIRE(session.ok());
    REQUIRE((*session)->Extend(whole).ok());
    REQUIRE((*session)->Extend(second).ok());
    CHECK(run(session->get(), "z") == std::vector<float>{4.5f, -12.0f});
    (void)(*session)->Close();
  }
}

// A function whose side effect is only a control output: its result does
// not depend on the update.
constexpr char kSideEffect[] = R"pb(
  node {
    name: "v"
    op: "VarHandleOp"
    attr { key: "dtype" value { type: DT_FLOAT } }
    attr { key: "shape" value { shape {} } }
  }
  node {
    name: "zero"
    op: "Const"
    attr { key: "dtype" value { type: DT_FLOAT } }
    attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape {} float_val: 0 } } }
  }
  node {
    name: "init"
    op: "AssignVariableOp"
    input: "v"
    input: "zero"
    attr { key: "dtype" value { type: DT_FLOAT } }
  }
  node {
    name: "call"
    op: "StatefulPartitionedCall"
    input: "v"
    attr { key: "Tin" value { list { type: DT_RESOURCE } } }
    attr { key: "Tout" value { list { type: DT_FLOAT } } }
    attr { key: "f" value { func { name: "Bump" } } }
  }
  node {
    name: "out"
    op: "Identity"
    input: "call"
    attr { key: "T" value { type: DT_FLOAT } }
  }
  node {
    name: "read"
    op: "ReadVariableOp"
    input: "v"
    attr { key: "dtype" value { type: DT_FLOAT } }
  }
  library {
    function {
      signature {
        name: "Bump"
        input_arg { name: "h" type: DT_RESOURCE }
        output_arg { name: "y" type: DT_FLOAT }
        is_stateful: true
        control_output: "bump"
      }
      node_def {
        name: "one"
        op: "Const"
        attr { key: "dtype" value { type: DT_FLOAT } }
        attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape {} float_val: 1 } } }
      }
      node_def {
        name: "add"
        op: "AssignAddVariableOp"
        input: "h"
        input: "one:output:0"
        attr { key: "dtype" value { type: DT_FLOAT } }
      }
      node_def {
        name: "seven"
        op: "Const"
        attr { key: "dtype" value { type: DT_FLOAT } }
        attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape {} float_val: 7 } } }
      }
      ret { key: "y" value: "seven:output:0" }
      control_ret { key: "bump" value: "add" }
    }
  })pb";

TEST_CASE("functions: fetching a call's result runs the function's side effects") {
  GraphDef graph;
  REQUIRE(google::protobuf::TextFormat::ParseFromString(kSideEffect, &graph));
  auto session = Session::Create("local", SessionOptions());
  REQUIRE(session.ok());
  REQUIRE((*session)->Extend(graph).ok());
  std::vector<Tensor> out;
  REQUIRE((*session)->Run({}, {}, {"init"}, &out).ok());
  for (int i = 0; i < 2; ++i) {
    REQUIRE((*session)->Run({}, {"out"}, {}, &out).ok());
    CHECK(out[0].data<float>()[0] == 7.0f);
  }
  REQUIRE((*session)->Run({}, {"read"}, {}, &out).ok());
  CHECK(out[0].data<float>()[0] == 2.0f);
  (void)(*session)->Close();
}

TEST_CASE("functions: every generated case is run by a test") {
  const std::vector<std::string> known = {
      "nested_calls",      "cond_in_function",      "cond_in_function_false",
      "cond_false_branch", "while_in_function",     "while_zero_iterations",
      "nested_while",      "switch_case",           "switch_case_out_of_range",
      "cond_in_while",     "while_gradient",        "resource_in_loop_and_cond"};
  for (const auto& entry : fs::directory_iterator(kFunctionsDir)) {
    const std::string name = entry.path().filename().string();
    INFO("case folder " << name);
    CHECK(std::find(known.begin(), known.end(), name) != known.end());
  }
}

}  // namespace
}  // namespace dfx
