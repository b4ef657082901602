// The step-graph optimizer: what each pass removes and what it must leave,
// and random graphs that run to bit-identical results with and without it.
#include "master/graph_optimizer.h"

#include <cstring>
#include <map>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "catch2/catch.hpp"
#include "graph/graph_def_import.h"
#include "master/local_session.h"
#include "tests/master/session_test_util.h"
#include "tests/testing/status_matchers.h"

namespace dfx {
namespace {

using ::dfx::testing::Registries;

constexpr char kCpu0[] = "/job:localhost/replica:0/task:0/device:CPU:0";
constexpr char kCpu1[] = "/job:localhost/replica:0/task:0/device:CPU:1";
constexpr char kGpu0[] = "/job:localhost/replica:0/task:0/device:GPU:0";

NodeDef* AddNode(GraphDef* def, const std::string& name,
                 const std::string& op, std::vector<std::string> inputs,
                 const char* device = kCpu0) {
  NodeDef* n = def->add_node();
  n->set_name(name);
  n->set_op(op);
  n->set_device(device);
  for (std::string& in : inputs) n->add_input(std::move(in));
  if (op != "NoOp" && op != "Const" && op != "RandomUniform") {
    (*n->mutable_attr())["T"].set_type(DT_FLOAT);
  }
  return n;
}

NodeDef* AddConst(GraphDef* def, const std::string& name,
                  std::vector<float> values, const char* device = kCpu0) {
  NodeDef* n = AddNode(def, name, "Const", {}, device);
  (*n->mutable_attr())["dtype"].set_type(DT_FLOAT);
  TensorProto* t = (*n->mutable_attr())["value"].mutable_tensor();
  t->set_dtype(DT_FLOAT);
  t->mutable_tensor_shape()->add_dim()->set_size(
      static_cast<int64_t>(values.size()));
  for (float v : values) t->add_float_val(v);
  return n;
}

NodeDef* AddPlaceholder(GraphDef* def, const std::string& name) {
  NodeDef* n = AddNode(def, name, "Placeholder", {});
  (*n->mutable_attr())["dtype"].set_type(DT_FLOAT);
  n->mutable_attr()->erase("T");
  return n;
}

// Imports `def` with every node on the device its NodeDef names (as the
// placer would leave it) and optimizes it.
std::unique_ptr<Graph> Optimize(const GraphDef& def,
                                const std::vector<std::string>& kept,
                                GraphOptimizerStats* stats,
                                GraphOptimizerOptions options = {}) {
  auto graph = ImportGraphDef(def, &Registries()->ops);
  DFX_CHECK_OK(graph.status());
  for (Node* n : (*graph)->nodes()) {
    n->set_assigned_device_name(n->requested_device());
  }
  DFX_CHECK_OK(OptimizeStepGraph(options, kept, &Registries()->kernels,
                                 graph->get(), stats));
  return std::move(graph).value();
}

// "op(input, input, ^control)" of a node, inputs by name.
std::string Describe(const Graph& graph, const std::string& name) {
  const Node* n = graph.FindNode(name);
  if (n == nullptr) return "<removed>";
  std::vector<std::string> data(n->num_inputs());
  std::set<std::string> control;
  for (const Edge* e : n->in_edges()) {
    if (e->IsControlEdge()) {
      control.insert("^" + e->src->name());
    } else {
      data[e->dst_input] = e->src_output == 0
                               ? e->src->name()
                               : absl::StrCat(e->src->name(), ":",
                                              e->src_output);
    }
  }
  std::string out = n->type_string() + "(";
  for (const std::string& s : data) absl::StrAppend(&out, s, ",");
  for (const std::string& s : control) absl::StrAppend(&out, s, ",");
  return out + ")";
}

std::vector<float> ConstValues(const Graph& graph, const std::string& name) {
  const Node* n = graph.FindNode(name);
  REQUIRE(n != nullptr);
  REQUIRE(n->type_string() == "Const");
  auto t = Tensor::FromProto(n->def().attr().at("value").tensor());
  REQUIRE(t.ok());
  auto s = t->span<float>();
  return {s.begin(), s.end()};
}

TEST_CASE("constant folding replaces a const subgraph by a Const in place") {
  GraphDef def;
  AddConst(&def, "a", {1.5f, 2});
  AddConst(&def, "b", {4, -1});
  AddNode(&def, "sum", "AddV2", {"a", "b"});
  AddNode(&def, "neg", "Neg", {"sum"});
  AddPlaceholder(&def, "x");
  AddNode(&def, "out", "Mul", {"neg", "x"});
  GraphOptimizerStats stats;
  auto g = Optimize(def, {"out:0"}, &stats);
  CHECK(stats.constants_folded == 2);
  CHECK(ConstValues(*g, "neg") == std::vector<float>{-5.5f, -1});
  // The inputs that only fed folded nodes are gone, the Mul reads the Const.
  CHECK(Describe(*g, "a") == "<removed>");
  CHECK(Describe(*g, "sum") == "<removed>");
  CHECK(Describe(*g, "out") == "Mul(neg,x,)");
  CHECK(g->FindNode("neg")->assigned_device_name() == kCpu0);
}

TEST_CASE("constant folding keeps fetched names, caps sizes and skips GPUs") {
  GraphDef def;
  AddConst(&def, "a", {1, 2});
  AddConst(&def, "b", {3, 4});
  AddNode(&def, "fetched", "AddV2", {"a", "b"});
  AddNode(&def, "on_gpu", "Sub", {"a", "b"}, kGpu0);
  AddNode(&def, "with_control", "Mul", {"a", "b", "^fetched"});
  SECTION("default cap") {
    GraphOptimizerStats stats;
    auto g = Optimize(def, {"fetched"}, &stats);
    CHECK(ConstValues(*g, "fetched") == std::vector<float>{4, 6});
    CHECK(Describe(*g, "on_gpu") == "Sub(a,b,)");
    CHECK(Describe(*g, "with_control") == "Mul(a,b,^fetched,)");
    CHECK(stats.constants_folded == 1);
  }
  SECTION("a cap below the result's 8 bytes folds nothing") {
    GraphOptimizerOptions options;
    options.max_folded_constant_in_bytes = 7;
    GraphOptimizerStats stats;
    auto g = Optimize(def, {"fetched"}, &stats, options);
    CHECK(stats.constants_folded == 0);
    CHECK(Describe(*g, "fetched") == "AddV2(a,b,)");
  }
}

TEST_CASE("CSE merges equal stateless nodes and never random or stateful") {
  GraphDef def;
  AddPlaceholder(&def, "x");
  AddPlaceholder(&def, "y");
  AddNode(&def, "s1", "AddV2", {"x", "y"});
  AddNode(&def, "s2", "AddV2", {"y", "x"});  // commutative
  AddNode(&def, "d1", "Sub", {"x", "y"});
  AddNode(&def, "d2", "Sub", {"y", "x"});  // not commutative
  AddNode(&def, "d3", "Sub", {"x", "y"}, kCpu1);  // other device
  AddNode(&def, "use", "Mul", {"s2", "d1"});
  NodeDef* shape = AddConst(&def, "shape", {});
  shape->mutable_attr()->at("dtype").set_type(DT_INT32);
  TensorProto* t = shape->mutable_attr()->at("value").mutable_tensor();
  t->set_dtype(DT_INT32);
  t->add_int_val(2);
  t->mutable_tensor_shape()->mutable_dim(0)->set_size(1);
  for (const char* r : {"r1", "r2"}) {
    NodeDef* n = AddNode(&def, r, "RandomUniform", {"shape"});
    (*n->mutable_attr())["T"].set_type(DT_INT32);
    (*n->mutable_attr())["dtype"].set_type(DT_FLOAT);
  }
  GraphOptimizerOptions options;
  options.constant_folding = false;
  GraphOptimizerStats stats;
  auto g = Optimize(def, {"use", "r1", "r2", "d2", "d3"}, &stats, options);
  CHECK(stats.nodes_merged == 1);
  CHECK(Describe(*g, "s2") == "<removed>");
  CHECK(Describe(*g, "use") == "Mul(s1,d1,)");
  CHECK(Describe(*g, "d2") == "Sub(y,x,)");
  CHECK(Describe(*g, "d3") == "Sub(x,y,)");
  CHECK(Describe(*g, "r1") == "RandomUniform(shape,)");
  CHECK(Describe(*g, "r2") == "RandomUniform(shape,)");
}

TEST_CASE("CSE keeps the fetched one of two equal nodes") {
  GraphDef def;
  AddPlaceholder(&def, "x");
  AddNode(&def, "n1", "Neg", {"x"});
  AddNode(&def, "n2", "Neg", {"x"});
  AddNode(&def, "use", "Mul", {"n1", "n1"});
  GraphOptimizerStats stats;
  auto g = Optimize(def, {"n2", "use"}, &stats);
  CHECK(Describe(*g, "n1") == "<removed>");
  CHECK(Describe(*g, "use") == "Mul(n2,n2,)");
}

TEST_CASE("Identity removal keeps fetches, control inputs and devices") {
  GraphDef def;
  AddPlaceholder(&def, "x");
  AddNode(&def, "gate", "Neg", {"x"});
  AddNode(&def, "other", "NoOp", {});
  AddNode(&def, "id", "Identity", {"x", "^gate"});
  AddNode(&def, "fetched_id", "Identity", {"x"});
  AddNode(&def, "cross", "Identity", {"x"}, kCpu1);
  AddNode(&def, "use", "Neg", {"id"});
  AddNode(&def, "use_cross", "Neg", {"cross"}, kCpu1);
  GraphOptimizerStats stats;
  auto g = Optimize(def, {"use", "fetched_id", "use_cross", "other"}, &stats);
  CHECK(stats.identities_removed == 1);
  CHECK(Describe(*g, "id") == "<removed>");
  // The removed Identity's control input moved to its consumer.
  CHECK(Describe(*g, "use") == "Neg(x,^gate,)");
  CHECK(Describe(*g, "fetched_id") == "Identity(x,)");
  CHECK(Describe(*g, "cross") == "Identity(x,)");
  // A targeted NoOp stays.
  CHECK(Describe(*g, "other") == "NoOp()");
  CHECK(stats.noops_removed == 0);
}

TEST_CASE("reads of a ref variable are neither removed nor merged") {
  GraphDef def;
  NodeDef* v = AddNode(&def, "v", "VariableV2", {});
  v->mutable_attr()->erase("T");
  (*v->mutable_attr())["dtype"].set_type(DT_FLOAT);
  (*v->mutable_attr())["shape"].mutable_shape()->add_dim()->set_size(2);
  AddNode(&def, "read1", "Identity", {"v"});
  AddNode(&def, "read2", "Identity", {"v"});
  AddNode(&def, "use", "AddV2", {"read1", "read2"});
  GraphOptimizerStats stats;
  auto g = Optimize(def, {"use"}, &stats);
  CHECK(stats.nodes_merged == 0);
  CHECK(stats.identities_removed == 0);
  CHECK(Describe(*g, "use") == "AddV2(read1,read2,)");
}

TEST_CASE("a NoOp between control edges is bypassed, a targeted one stays") {
  GraphDef def;
  AddPlaceholder(&def, "x");
  AddNode(&def, "a", "Neg", {"x"});
  AddNode(&def, "group", "NoOp", {"^a"});
  AddNode(&def, "after", "Neg", {"x", "^group"});
  AddNode(&def, "target", "NoOp", {"^a"});
  GraphOptimizerStats stats;
  auto g = Optimize(def, {"after", "target"}, &stats);
  CHECK(Describe(*g, "group") == "<removed>");
  CHECK(Describe(*g, "after") == "Neg(x,^a,)");
  CHECK(Describe(*g, "target") == "NoOp(^a,)");
}

TEST_CASE("the ConfigProto switches the optimizer as TensorFlow does") {
  ConfigProto config;
  CHECK(GraphOptimizerOptionsFromConfig(config).constant_folding);
  CHECK(GraphOptimizerOptionsFromConfig(config).max_folded_constant_in_bytes ==
        10 << 20);
  config.mutable_graph_options()
      ->mutable_optimizer_options()
      ->set_max_folded_constant_in_bytes(1024);
  CHECK(GraphOptimizerOptionsFromConfig(config).max_folded_constant_in_bytes ==
        1024);
  config.mutable_graph_options()->mutable_optimizer_options()->set_opt_level(
      OptimizerOptions::L0);
  CHECK_FALSE(GraphOptimizerOptionsFromConfig(config).AnyEnabled());
  config.mutable_graph_options()
      ->mutable_optimizer_options()
      ->set_do_constant_folding(true);
  GraphOptimizerOptions folding = GraphOptimizerOptionsFromConfig(config);
  CHECK(folding.constant_folding);
  CHECK_FALSE(folding.common_subexpression_elimination);
  CHECK_FALSE(folding.remove_identities);
  config.mutable_graph_options()
      ->mutable_rewrite_options()
      ->set_disable_meta_optimizer(true);
  CHECK_FALSE(GraphOptimizerOptionsFromConfig(config).AnyEnabled());
}

// The op each traced node ran as, by node name.
std::map<std::string, std::string> TracedOps(const RunMetadata& metadata) {
  std::map<std::string, std::string> ops;
  for (const auto& dev : metadata.step_stats().dev_stats()) {
    for (const auto& n : dev.node_stats()) {
      const std::string& label = n.timeline_label();
      const size_t eq = label.find(" = ");
      const size_t paren = label.find('(');
      if (eq == std::string::npos || paren == std::string::npos) continue;
      ops[n.node_name()] = label.substr(eq + 3, paren - eq - 3);
    }
  }
  return ops;
}

TEST_CASE("sessions fold by default and not with disable_meta_optimizer") {
  GraphDef def;
  AddConst(&def, "a", {1.5f, 2});
  AddConst(&def, "b", {4, -1});
  AddNode(&def, "sum", "AddV2", {"a", "b"});
  for (bool optimize : {true, false}) {
    INFO("optimize " << optimize);
    SessionOptions options;
    options.config.mutable_graph_options()
        ->mutable_rewrite_options()
        ->set_disable_meta_optimizer(!optimize);
    auto s = LocalSession::Create(options, &Registries()->ops,
                                  &Registries()->kernels);
    REQUIRE_OK(s.status());
    REQUIRE_OK((*s)->Extend(def));
    RunOptions run_options;
    run_options.set_trace_level(RunOptions::FULL_TRACE);
    RunMetadata metadata;
    std::vector<Tensor> out;
    REQUIRE_OK((*s)->Run(run_options, {}, {"sum"}, {}, &out, &metadata));
    auto v = out.at(0).span<float>();
    CHECK(std::vector<float>(v.begin(), v.end()) ==
          std::vector<float>{5.5f, 1});
    const std::map<std::string, std::string> ops = TracedOps(metadata);
    REQUIRE(ops.contains("sum"));
    CHECK(ops.at("sum") == (optimize ? "Const" : "AddV2"));
    CHECK(ops.contains("a") == !optimize);
  }
}

// A random DAG over a fed placeholder and Consts of shape [2]: AddV2, Mul,
// Sub, Neg, Identity and NoOp nodes on CPU:0 or CPU:1, with random control
// edges to earlier nodes.
GraphDef RandomGraph(std::mt19937* rng, int num_nodes) {
  auto uniform = [rng](int lo, int hi) {
    return std::uniform_int_distribution<int>(lo, hi)(*rng);
  };
  GraphDef def;
  AddPlaceholder(&def, "x");
  std::vector<std::string> producers = {"x"};
  for (int i = 0; i < num_nodes; ++i) {
    const std::string name = absl::StrCat("n", i);
    const char* device = uniform(0, 1) == 0 ? kCpu0 : kCpu1;
    auto pick = [&] { return producers[uniform(0, producers.size() - 1)]; };
    NodeDef* n = nullptr;
    switch (uniform(0, 7)) {
      case 0:
      case 1:
        n = AddConst(&def, name,
                     {static_cast<float>(uniform(-8, 8)) / 3,
                      static_cast<float>(uniform(-8, 8)) / 7},
                     device);
        break;
      case 2:
        n = AddNode(&def, name, "AddV2", {pick(), pick()}, device);
        break;
      case 3:
        n = AddNode(&def, name, "Mul", {pick(), pick()}, device);
        break;
      case 4:
        n = AddNode(&def, name, "Sub", {pick(), pick()}, device);
        break;
      case 5:
        n = AddNode(&def, name, "Neg", {pick()}, device);
        break;
      case 6:
        n = AddNode(&def, name, "Identity", {pick()}, device);
        break;
      default:
        n = AddNode(&def, name, "NoOp", {}, device);
    }
    if (i > 0 && uniform(0, 3) == 0) {
      n->add_input(absl::StrCat("^n", uniform(0, i - 1)));
    }
    if (n->op() != "NoOp") producers.push_back(name);
  }
  return def;
}

std::unique_ptr<LocalSession> TwoCpuSession(bool optimize) {
  SessionOptions options;
  (*options.config.mutable_device_count())["CPU"] = 2;
  options.config.mutable_graph_options()
      ->mutable_rewrite_options()
      ->set_disable_meta_optimizer(!optimize);
  auto s = LocalSession::Create(options, &Registries()->ops,
                                &Registries()->kernels);
  DFX_CHECK_OK(s.status());
  return std::move(s).value();
}

TEST_CASE("random graphs give bit-identical fetches optimized and not") {
  std::mt19937 rng(20261203);
  int folded = 0;
  int merged = 0;
  int removed = 0;
  for (int round = 0; round < 40; ++round) {
    const int num_nodes = std::uniform_int_distribution<int>(5, 60)(rng);
    const GraphDef def = RandomGraph(&rng, num_nodes);
    std::vector<std::string> fetches;
    std::vector<std::string> targets;
    for (const NodeDef& n : def.node()) {
      const int roll = std::uniform_int_distribution<int>(0, 5)(rng);
      if (n.op() == "NoOp") {
        if (roll == 0) targets.push_back(n.name());
      } else if (roll <= 1 || &n == &def.node(def.node_size() - 1)) {
        fetches.push_back(n.name());
      }
    }
    if (fetches.empty()) fetches.push_back("x");
    GraphOptimizerStats stats;
    std::vector<std::string> kept = fetches;
    kept.insert(kept.end(), targets.begin(), targets.end());
    kept.push_back("x");
    Optimize(def, kept, &stats);
    folded += stats.constants_folded;
    merged += stats.nodes_merged;
    removed += stats.identities_removed + stats.noops_removed;

    Tensor x = Tensor::FromVector<float>({0.25f, -3.5f});
    std::vector<std::vector<Tensor>> results;
    for (bool optimize : {false, true}) {
      auto session = TwoCpuSession(optimize);
      REQUIRE_OK(session->Extend(def));
      std::vector<Tensor> out;
      INFO("round " << round << " optimize " << optimize << "\n"
                    << def.DebugString());
      REQUIRE_OK(session->Run({{"x", x}}, fetches, targets, &out));
      results.push_back(std::move(out));
    }
    REQUIRE(results[0].size() == fetches.size());
    REQUIRE(results[1].size() == fetches.size());
    for (size_t i = 0; i < fetches.size(); ++i) {
      INFO("round " << round << " fetch " << fetches[i]);
      const Tensor& a = results[0][i];
      const Tensor& b = results[1][i];
      REQUIRE(a.dtype() == b.dtype());
      REQUIRE(a.shape() == b.shape());
      CHECK(std::memcmp(a.span<float>().data(), b.span<float>().data(),
                        a.TotalBytes()) == 0);
    }
  }
  // The rounds exercised every pass.
  CHECK(folded > 0);
  CHECK(merged > 0);
  CHECK(removed > 0);
}

}  // namespace
}  // namespace dfx
