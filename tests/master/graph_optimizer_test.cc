// The step-graph optimizer: what each pass removes and what it must leave,
// and random graphs that run to bit-identical results with and without it.
#include "master/graph_optimizer.h"

#include <array>
#include <cmath>
#include <cstring>
#include <limits>
#include <map>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "catch2/catch.hpp"
#include "google/protobuf/text_format.h"
#include "graph/graph_def_import.h"
#include "master/local_session.h"
#include "tests/master/optimizer_test_util.h"
#include "tests/master/session_test_util.h"
#include "tests/testing/status_matchers.h"

namespace dfx {
namespace {

using ::dfx::testing::Optimize;
using ::dfx::testing::Registries;
using ::dfx::testing::StatusIs;

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

// A Placeholder of static shape `dims`.
NodeDef* AddShapedPlaceholder(GraphDef* def, const std::string& name,
                              std::vector<int64_t> dims,
                              DataType dtype = DT_FLOAT) {
  NodeDef* n = AddPlaceholder(def, name);
  (*n->mutable_attr())["dtype"].set_type(dtype);
  TensorShapeProto* shape = (*n->mutable_attr())["shape"].mutable_shape();
  for (int64_t d : dims) shape->add_dim()->set_size(d);
  return n;
}

// A Const of `dtype` and shape `dims` (empty: a scalar) from `values`.
NodeDef* AddTypedConst(GraphDef* def, const std::string& name,
                       DataType dtype, std::vector<double> values,
                       std::vector<int64_t> dims,
                       const char* device = kCpu0) {
  NodeDef* n = AddNode(def, name, "Const", {}, device);
  (*n->mutable_attr())["dtype"].set_type(dtype);
  TensorProto* t = (*n->mutable_attr())["value"].mutable_tensor();
  t->set_dtype(dtype);
  for (int64_t d : dims) t->mutable_tensor_shape()->add_dim()->set_size(d);
  for (double v : values) {
    switch (dtype) {
      case DT_FLOAT:
        t->add_float_val(static_cast<float>(v));
        break;
      case DT_INT32:
        t->add_int_val(static_cast<int32_t>(v));
        break;
      case DT_INT64:
        t->add_int64_val(static_cast<int64_t>(v));
        break;
      case DT_BOOL:
        t->add_bool_val(v != 0);
        break;
      default:
        FAIL("no such Const in this test");
    }
  }
  return n;
}

NodeDef* AddScalar(GraphDef* def, const std::string& name, float value,
                   const char* device = kCpu0) {
  return AddTypedConst(def, name, DT_FLOAT, {value}, {}, device);
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

// ---------------------------------------------------------------------------
// Arithmetic simplification.

TEST_CASE("a chain of AddV2 of one static shape becomes one AddN") {
  GraphDef def;
  for (const char* p : {"x", "y", "z", "w"}) AddShapedPlaceholder(&def, p, {2});
  AddNode(&def, "a", "AddV2", {"x", "y"});
  AddNode(&def, "b", "AddV2", {"a", "z"});
  SECTION("left-deep") {
    AddNode(&def, "c", "AddV2", {"b", "w"});
    GraphOptimizerStats stats;
    auto g = Optimize(def, {"c"}, &stats);
    CHECK(Describe(*g, "c") == "AddN(x,y,z,w,)");
    CHECK(Describe(*g, "a") == "<removed>");
    CHECK(Describe(*g, "b") == "<removed>");
    CHECK(stats.add_chains == 1);
    CHECK(stats.adds_absorbed == 2);
  }
  SECTION("the inner sum on either side, in the order the Adds add") {
    AddNode(&def, "c", "AddV2", {"w", "b"});
    GraphOptimizerStats stats;
    auto g = Optimize(def, {"c"}, &stats);
    CHECK(Describe(*g, "c") == "AddN(x,y,z,w,)");
  }
  SECTION("a fetched intermediate ends the chain and keeps its name") {
    AddNode(&def, "c", "AddV2", {"b", "w"});
    GraphOptimizerStats stats;
    auto g = Optimize(def, {"c", "b"}, &stats);
    CHECK(Describe(*g, "c") == "AddV2(b,w,)");
    CHECK(Describe(*g, "b") == "AddN(x,y,z,)");
  }
  SECTION("an intermediate read elsewhere is a leaf") {
    AddNode(&def, "c", "AddV2", {"b", "w"});
    AddNode(&def, "other", "Neg", {"a"});
    GraphOptimizerStats stats;
    auto g = Optimize(def, {"c", "other"}, &stats);
    CHECK(Describe(*g, "c") == "AddN(a,z,w,)");
    CHECK(Describe(*g, "a") == "AddV2(x,y,)");
  }
  SECTION("control inputs of absorbed Adds move to the AddN") {
    def.mutable_node(5)->add_input("^w");  // b
    AddNode(&def, "c", "AddV2", {"b", "w"});
    GraphOptimizerStats stats;
    auto g = Optimize(def, {"c"}, &stats);
    CHECK(Describe(*g, "c") == "AddN(x,y,z,w,^w,)");
  }
  SECTION("an Add on another device is not absorbed") {
    def.mutable_node(5)->set_device(kCpu1);  // b
    AddNode(&def, "c", "AddV2", {"b", "w"});
    GraphOptimizerStats stats;
    auto g = Optimize(def, {"c"}, &stats);
    CHECK(Describe(*g, "c") == "AddV2(b,w,)");
    CHECK(stats.add_chains == 0);
  }
}

TEST_CASE("Add chains are not rewritten where AddN would differ") {
  GraphDef def;
  SECTION("broadcasting") {
    AddShapedPlaceholder(&def, "x", {2});
    AddShapedPlaceholder(&def, "s", {});
    AddShapedPlaceholder(&def, "y", {2});
    AddNode(&def, "a", "AddV2", {"x", "s"});
    AddNode(&def, "b", "AddV2", {"a", "y"});
    GraphOptimizerStats stats;
    auto g = Optimize(def, {"b"}, &stats);
    CHECK(Describe(*g, "b") == "AddV2(a,y,)");
    CHECK(stats.add_chains == 0);
  }
  SECTION("unknown shapes") {
    AddPlaceholder(&def, "x");
    AddPlaceholder(&def, "y");
    AddPlaceholder(&def, "z");
    AddNode(&def, "a", "AddV2", {"x", "y"});
    AddNode(&def, "b", "AddV2", {"a", "z"});
    GraphOptimizerStats stats;
    auto g = Optimize(def, {"b"}, &stats);
    CHECK(Describe(*g, "b") == "AddV2(a,z,)");
  }
  SECTION("a float tree absorbs one side only, an int tree both") {
    for (DataType type : {DT_FLOAT, DT_INT32}) {
      INFO("type " << DataTypeString(type));
      GraphDef tree;
      for (const char* p : {"p", "q", "r", "t"}) {
        AddShapedPlaceholder(&tree, p, {3}, type);
      }
      const std::vector<std::array<const char*, 3>> adds = {
          {"pq", "p", "q"}, {"rt", "r", "t"}, {"sum", "pq", "rt"}};
      for (const auto& [name, a, b] : adds) {
        (*AddNode(&tree, name, "AddV2", {a, b})->mutable_attr())["T"]
            .set_type(type);
      }
      GraphOptimizerStats stats;
      auto g = Optimize(tree, {"sum"}, &stats);
      if (type == DT_FLOAT) {
        CHECK(Describe(*g, "sum") == "AddN(p,q,rt,)");
        CHECK(Describe(*g, "rt") == "AddV2(r,t,)");
      } else {
        CHECK(Describe(*g, "sum") == "AddN(p,q,r,t,)");
      }
    }
  }
}

TEST_CASE("x*1, x+(-0.0) and x-(+0.0) read x, other zeros and x*0 do not") {
  GraphDef def;
  AddShapedPlaceholder(&def, "x", {2});
  AddPlaceholder(&def, "u");  // unknown shape
  AddScalar(&def, "one", 1);
  AddScalar(&def, "pos0", 0.0f);
  AddScalar(&def, "neg0", -0.0f);
  AddScalar(&def, "zero_mul", 0.0f);
  AddTypedConst(&def, "ones2", DT_FLOAT, {1, 1}, {2});
  AddTypedConst(&def, "ones3", DT_FLOAT, {1, 1, 1}, {3, 1});
  AddNode(&def, "mul1", "Mul", {"one", "x"});
  AddNode(&def, "mul_vec", "Mul", {"x", "ones2"});
  AddNode(&def, "mul_unknown", "Mul", {"u", "ones2"});  // may broadcast
  AddNode(&def, "mul_bcast", "Mul", {"x", "ones3"});    // [3,2]
  AddNode(&def, "mul0", "Mul", {"x", "zero_mul"});      // NaN*0 is NaN
  AddNode(&def, "add_neg0", "AddV2", {"neg0", "x"});
  AddNode(&def, "add_pos0", "AddV2", {"x", "pos0"});    // -0.0+0.0 is +0.0
  AddNode(&def, "sub_pos0", "Sub", {"x", "pos0"});
  AddNode(&def, "sub_neg0", "Sub", {"x", "neg0"});
  AddNode(&def, "zero_sub", "Sub", {"pos0", "x"});
  std::vector<std::string> uses;
  for (const char* n : {"mul1", "mul_vec", "mul_unknown", "mul_bcast", "mul0",
                        "add_neg0", "add_pos0", "sub_pos0", "sub_neg0",
                        "zero_sub"}) {
    AddNode(&def, absl::StrCat("use_", n), "Neg", {n});
    uses.push_back(absl::StrCat("use_", n));
  }
  GraphOptimizerOptions options;
  options.constant_folding = false;
  GraphOptimizerStats stats;
  auto g = Optimize(def, uses, &stats, options);
  CHECK(Describe(*g, "use_mul1") == "Neg(x,)");
  CHECK(Describe(*g, "use_mul_vec") == "Neg(x,)");
  CHECK(Describe(*g, "use_add_neg0") == "Neg(x,)");
  CHECK(Describe(*g, "use_sub_pos0") == "Neg(x,)");
  CHECK(Describe(*g, "mul1") == "<removed>");
  CHECK(Describe(*g, "one") == "<removed>");
  CHECK(Describe(*g, "use_mul_unknown") == "Neg(mul_unknown,)");
  CHECK(Describe(*g, "use_mul_bcast") == "Neg(mul_bcast,)");
  CHECK(Describe(*g, "use_mul0") == "Neg(mul0,)");
  CHECK(Describe(*g, "use_add_pos0") == "Neg(add_pos0,)");
  CHECK(Describe(*g, "use_sub_neg0") == "Neg(sub_neg0,)");
  CHECK(Describe(*g, "use_zero_sub") == "Neg(zero_sub,)");
  CHECK(stats.nodes_bypassed == 4);
}

TEST_CASE("a bypassed node keeps fetches, control inputs and devices") {
  GraphDef def;
  AddShapedPlaceholder(&def, "x", {2});
  AddScalar(&def, "one", 1);
  AddScalar(&def, "one1", 1, kCpu1);
  AddNode(&def, "gate", "Neg", {"x"});
  AddNode(&def, "fetched", "Mul", {"x", "one"});
  AddNode(&def, "gated", "Mul", {"x", "one", "^gate"});
  AddNode(&def, "other_device", "Mul", {"x", "one1"}, kCpu1);
  AddNode(&def, "use", "Neg", {"gated"});
  AddNode(&def, "use1", "Neg", {"other_device"}, kCpu1);
  GraphOptimizerStats stats;
  auto g = Optimize(def, {"fetched", "use", "use1"}, &stats);
  CHECK(Describe(*g, "fetched") == "Mul(x,one,)");
  CHECK(Describe(*g, "use") == "Neg(x,^gate,)");
  CHECK(Describe(*g, "other_device") == "Mul(x,one1,)");
  CHECK(stats.nodes_bypassed == 1);
}

TEST_CASE("integer x+0 and x*1 read x") {
  GraphDef def;
  AddShapedPlaceholder(&def, "i", {3}, DT_INT32);
  AddTypedConst(&def, "zero", DT_INT32, {0}, {});
  AddTypedConst(&def, "one", DT_INT32, {1, 1, 1}, {3});
  NodeDef* add = AddNode(&def, "add", "AddV2", {"i", "zero"});
  NodeDef* mul = AddNode(&def, "mul", "Mul", {"one", "add"});
  NodeDef* use = AddNode(&def, "use", "Neg", {"mul"});
  for (NodeDef* n : {add, mul, use}) {
    (*n->mutable_attr())["T"].set_type(DT_INT32);
  }
  GraphOptimizerOptions options;
  options.constant_folding = false;
  GraphOptimizerStats stats;
  auto g = Optimize(def, {"use"}, &stats, options);
  CHECK(Describe(*g, "use") == "Neg(i,)");
  CHECK(stats.nodes_bypassed == 2);
}

TEST_CASE("Neg(Neg(x)), inverse Transposes and Cast to the same type") {
  GraphDef def;
  AddShapedPlaceholder(&def, "x", {2, 3, 4});
  AddPlaceholder(&def, "u");  // rank unknown
  AddNode(&def, "n1", "Neg", {"x"});
  AddNode(&def, "n2", "Neg", {"n1"});
  AddTypedConst(&def, "p1", DT_INT32, {1, 2, 0}, {3});
  AddTypedConst(&def, "p2", DT_INT32, {2, 0, 1}, {3});  // inverse of p1
  AddTypedConst(&def, "p3", DT_INT32, {0, 2, 1}, {3});  // not p1's inverse
  AddTypedConst(&def, "id", DT_INT32, {0, 1, 2}, {3});
  AddNode(&def, "t1", "Transpose", {"x", "p1"});
  AddNode(&def, "t2", "Transpose", {"t1", "p2"});
  AddNode(&def, "t3", "Transpose", {"t1", "p3"});
  AddNode(&def, "t_id", "Transpose", {"x", "id"});
  AddNode(&def, "u1", "Transpose", {"u", "p1"});
  AddNode(&def, "u2", "Transpose", {"u1", "p2"});  // u may not be rank 3
  NodeDef* cast = AddNode(&def, "cast", "Cast", {"x"});
  cast->mutable_attr()->erase("T");
  (*cast->mutable_attr())["SrcT"].set_type(DT_FLOAT);
  (*cast->mutable_attr())["DstT"].set_type(DT_FLOAT);
  NodeDef* widen = AddNode(&def, "widen", "Cast", {"x"});
  widen->mutable_attr()->erase("T");
  (*widen->mutable_attr())["SrcT"].set_type(DT_FLOAT);
  (*widen->mutable_attr())["DstT"].set_type(DT_DOUBLE);
  std::vector<std::string> uses;
  for (const char* n : {"n2", "t2", "t3", "t_id", "u2", "cast"}) {
    AddNode(&def, absl::StrCat("use_", n), "Sqrt", {n});
    uses.push_back(absl::StrCat("use_", n));
  }
  uses.push_back("widen");
  GraphOptimizerStats stats;
  auto g = Optimize(def, uses, &stats);
  CHECK(Describe(*g, "use_n2") == "Sqrt(x,)");
  CHECK(Describe(*g, "n1") == "<removed>");
  CHECK(Describe(*g, "use_t2") == "Sqrt(x,)");
  CHECK(Describe(*g, "use_t3") == "Sqrt(t3,)");
  CHECK(Describe(*g, "t1") == "Transpose(x,p1,)");  // t3 still reads it
  CHECK(Describe(*g, "use_t_id") == "Sqrt(x,)");
  CHECK(Describe(*g, "use_u2") == "Sqrt(u2,)");
  CHECK(Describe(*g, "use_cast") == "Sqrt(x,)");
  CHECK(Describe(*g, "widen") == "Cast(x,)");
}

TEST_CASE("no-op Reshape, Squeeze and ExpandDims, and Reshape of Reshape") {
  GraphDef def;
  AddShapedPlaceholder(&def, "x", {2, 3});
  AddPlaceholder(&def, "u");
  AddTypedConst(&def, "s23", DT_INT32, {2, -1}, {2});
  AddTypedConst(&def, "s6", DT_INT32, {6}, {1});
  AddTypedConst(&def, "s32", DT_INT32, {3, 2}, {2});
  AddTypedConst(&def, "axis", DT_INT32, {1}, {});
  AddNode(&def, "same", "Reshape", {"x", "s23"});
  AddNode(&def, "flat", "Reshape", {"x", "s6"});
  AddNode(&def, "back", "Reshape", {"flat", "s23"});  // x's shape again
  AddNode(&def, "r32", "Reshape", {"flat", "s32"});   // reads x
  AddNode(&def, "u_same", "Reshape", {"u", "s23"});   // u unknown
  AddNode(&def, "squeeze", "Squeeze", {"x"});         // no dim of size 1
  AddNode(&def, "expand", "ExpandDims", {"x", "axis"});
  NodeDef* unexpand = AddNode(&def, "unexpand", "Squeeze", {"expand"});
  (*unexpand->mutable_attr())["squeeze_dims"].mutable_list()->add_i(1);
  std::vector<std::string> uses;
  for (const char* n : {"same", "back", "r32", "u_same", "squeeze",
                        "unexpand", "flat"}) {
    AddNode(&def, absl::StrCat("use_", n), "Neg", {n});
    uses.push_back(absl::StrCat("use_", n));
  }
  GraphOptimizerStats stats;
  auto g = Optimize(def, uses, &stats);
  CHECK(Describe(*g, "use_same") == "Neg(x,)");
  CHECK(Describe(*g, "use_back") == "Neg(x,)");
  CHECK(Describe(*g, "r32") == "Reshape(x,s32,)");
  CHECK(Describe(*g, "use_u_same") == "Neg(u_same,)");
  CHECK(Describe(*g, "use_squeeze") == "Neg(x,)");
  CHECK(Describe(*g, "use_unexpand") == "Neg(x,)");
  CHECK(Describe(*g, "expand") == "<removed>");
  CHECK(Describe(*g, "use_flat") == "Neg(flat,)");
}

TEST_CASE("arithmetic_optimization OFF leaves arithmetic alone") {
  ConfigProto config;
  config.mutable_graph_options()
      ->mutable_rewrite_options()
      ->set_arithmetic_optimization(RewriterConfig::OFF);
  GraphOptimizerOptions options = GraphOptimizerOptionsFromConfig(config);
  CHECK_FALSE(options.arithmetic_simplification);
  CHECK(options.constant_folding);
  CHECK(options.dead_branch_pruning);
  GraphDef def;
  AddShapedPlaceholder(&def, "x", {2});
  AddScalar(&def, "one", 1);
  AddNode(&def, "mul", "Mul", {"x", "one"});
  AddNode(&def, "use", "Neg", {"mul"});
  GraphOptimizerStats stats;
  auto g = Optimize(def, {"use"}, &stats, options);
  CHECK(Describe(*g, "use") == "Neg(mul,)");
  CHECK(stats.nodes_bypassed == 0);
}

// ---------------------------------------------------------------------------
// Dead-branch pruning.

// x -> Switch(x, pred) -> then: Neg(s:1), else: Sqrt(s:0) -> Merge(else,
// then) -> out = Identity(merge).
GraphDef CondGraph(bool pred) {
  GraphDef def;
  AddShapedPlaceholder(&def, "x", {2});
  AddTypedConst(&def, "pred", DT_BOOL, {pred ? 1.0 : 0.0}, {});
  AddNode(&def, "s", "Switch", {"x", "pred"});
  AddNode(&def, "then", "Neg", {"s:1"});
  AddNode(&def, "else", "Sqrt", {"s"});
  (*AddNode(&def, "m", "Merge", {"else", "then"})->mutable_attr())["N"]
      .set_i(2);
  AddNode(&def, "out", "Mul", {"m", "x"});
  return def;
}

TEST_CASE("a Switch on a constant predicate loses its untaken side") {
  for (bool pred : {true, false}) {
    INFO("pred " << pred);
    GraphOptimizerStats stats;
    auto g = Optimize(CondGraph(pred), {"out"}, &stats);
    CHECK(stats.dead_switches == 1);
    CHECK(stats.dead_nodes_removed == 1);
    CHECK(Describe(*g, pred ? "else" : "then") == "<removed>");
    // The Merge became an Identity of the live side, the Switch one of x;
    // Identity removal then took both out.
    CHECK(Describe(*g, "out") ==
          (pred ? "Mul(then,x,)" : "Mul(else,x,)"));
    CHECK(Describe(*g, pred ? "then" : "else") ==
          (pred ? "Neg(x,)" : "Sqrt(x,)"));
    CHECK(Describe(*g, "pred") == "<removed>");
  }
}

TEST_CASE("dead-branch pruning leaves a Switch whole when it must") {
  GraphDef def = CondGraph(true);
  std::vector<std::string> kept = {"out"};
  SECTION("a fetched node on the dead side") { kept.push_back("else"); }
  SECTION("the Merge's value_index is read") {
    NodeDef* index = AddNode(&def, "index", "Identity", {"m:1"});
    (*index->mutable_attr())["T"].set_type(DT_INT32);
    kept.push_back("index");
  }
  SECTION("the dead side is on another device") {
    for (NodeDef& n : *def.mutable_node()) {
      if (n.name() == "else") n.set_device(kCpu1);
    }
  }
  SECTION("the predicate is not a Const") {
    for (NodeDef& n : *def.mutable_node()) {
      if (n.name() == "pred") {
        n.set_op("Placeholder");
        n.mutable_attr()->erase("value");
      }
    }
  }
  GraphOptimizerStats stats;
  auto g = Optimize(def, kept, &stats);
  CHECK(stats.dead_switches == 0);
  CHECK(Describe(*g, "else") != "<removed>");
  CHECK(Describe(*g, "then") != "<removed>");
  CHECK(Describe(*g, "m") == "Merge(else,then,)");
}

// ---------------------------------------------------------------------------
// Shape materialization.

TEST_CASE("Shape, Size and Rank of a static shape become Consts") {
  GraphDef def;
  AddShapedPlaceholder(&def, "x", {2, 3});
  AddNode(&def, "partial_p", "Placeholder", {});
  def.mutable_node(1)->mutable_attr()->erase("T");
  (*def.mutable_node(1)->mutable_attr())["dtype"].set_type(DT_FLOAT);
  TensorShapeProto* partial =
      (*def.mutable_node(1)->mutable_attr())["shape"].mutable_shape();
  partial->add_dim()->set_size(-1);
  partial->add_dim()->set_size(3);
  AddNode(&def, "shape", "Shape", {"x"});
  NodeDef* shape64 = AddNode(&def, "shape64", "Shape", {"x"});
  (*shape64->mutable_attr())["out_type"].set_type(DT_INT64);
  AddNode(&def, "size", "Size", {"x", "^partial_p"});
  AddNode(&def, "rank", "Rank", {"partial_p"});
  AddNode(&def, "partial_size", "Size", {"partial_p"});
  AddNode(&def, "x1", "Identity", {"x"}, kCpu1);
  AddNode(&def, "other_device", "Shape", {"x1"});
  GraphOptimizerOptions options;
  options.remove_identities = false;
  GraphOptimizerStats stats;
  auto g = Optimize(def, {"shape", "shape64", "size", "rank", "partial_size",
                          "other_device"},
                    &stats, options);
  CHECK(stats.shapes_materialized == 4);
  // Each Const still waits for (and fails with) its input.
  CHECK(Describe(*g, "shape") == "Const(^x,)");
  CHECK(Describe(*g, "size") == "Const(^partial_p,^x,)");
  CHECK(Describe(*g, "rank") == "Const(^partial_p,)");
  auto value = [&](const std::string& name) {
    auto t = Tensor::FromProto(
        g->FindNode(name)->def().attr().at("value").tensor());
    REQUIRE(t.ok());
    std::vector<int64_t> out;
    if (t->dtype() == DT_INT32) {
      for (int32_t v : t->span<int32_t>()) out.push_back(v);
    } else {
      for (int64_t v : t->span<int64_t>()) out.push_back(v);
    }
    return std::make_pair(t->dtype(), out);
  };
  CHECK(value("shape") == std::make_pair(DT_INT32, std::vector<int64_t>{2, 3}));
  CHECK(value("shape64") ==
        std::make_pair(DT_INT64, std::vector<int64_t>{2, 3}));
  CHECK(value("size") == std::make_pair(DT_INT32, std::vector<int64_t>{6}));
  CHECK(value("rank") == std::make_pair(DT_INT32, std::vector<int64_t>{2}));
  CHECK(Describe(*g, "partial_size") == "Size(partial_p,)");
  CHECK(Describe(*g, "other_device") == "Shape(x1,)");
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

// Runs `def` in a one-CPU session, optimized or not, with a full trace.
struct TracedRun {
  absl::Status status;
  std::vector<Tensor> out;
  std::map<std::string, std::string> ops;  // TracedOps
};
TracedRun RunTraced(const GraphDef& def, bool optimize,
                    const std::vector<std::pair<std::string, Tensor>>& feeds,
                    const std::vector<std::string>& fetches) {
  SessionOptions options;
  options.config.mutable_graph_options()
      ->mutable_rewrite_options()
      ->set_disable_meta_optimizer(!optimize);
  auto s = LocalSession::Create(options, &Registries()->ops,
                                &Registries()->kernels);
  DFX_CHECK_OK(s.status());
  DFX_CHECK_OK((*s)->Extend(def));
  RunOptions run_options;
  run_options.set_trace_level(RunOptions::FULL_TRACE);
  RunMetadata metadata;
  TracedRun run;
  run.status = (*s)->Run(run_options, feeds, fetches, {}, &run.out, &metadata);
  run.ops = TracedOps(metadata);
  return run;
}

std::vector<uint32_t> Bits(const Tensor& t) {
  std::vector<uint32_t> bits(t.NumElements());
  std::memcpy(bits.data(), t.span<float>().data(), bits.size() * 4);
  return bits;
}

TEST_CASE("a session turns a fed chain into AddN with the same bits") {
  GraphDef def;
  AddShapedPlaceholder(&def, "x", {3});
  AddConst(&def, "a", {0.1f, 1e30f, -0.0f});
  AddConst(&def, "b", {0.2f, -1e30f, -0.0f});
  AddNode(&def, "s1", "AddV2", {"x", "a"});
  AddNode(&def, "s2", "AddV2", {"s1", "b"});
  AddNode(&def, "s3", "AddV2", {"x", "s2"});
  const Tensor x = Tensor::FromVector<float>({0.3f, 1.0f, -0.0f});
  TracedRun plain = RunTraced(def, false, {{"x", x}}, {"s3"});
  TracedRun optimized = RunTraced(def, true, {{"x", x}}, {"s3"});
  REQUIRE_OK(plain.status);
  REQUIRE_OK(optimized.status);
  CHECK(plain.ops.at("s3") == "AddV2");
  CHECK(optimized.ops.at("s3") == "AddN");
  CHECK_FALSE(optimized.ops.contains("s1"));
  CHECK(Bits(optimized.out.at(0)) == Bits(plain.out.at(0)));
  // ((0.3+0.1)+0.2)+0.3 in float, 1+1e30-1e30+1 = 1, -0.0 stays -0.0.
  CHECK(Bits(optimized.out.at(0))[2] == 0x80000000u);
}

TEST_CASE("x+0.0 is not bypassed: -0.0 comes out as +0.0 as in TensorFlow") {
  GraphDef def;
  AddShapedPlaceholder(&def, "x", {2});
  AddScalar(&def, "zero", 0.0f);
  AddScalar(&def, "one", 1.0f);
  AddNode(&def, "plus0", "AddV2", {"x", "zero"});
  AddNode(&def, "y", "Neg", {"plus0"});
  AddNode(&def, "times1", "Mul", {"x", "one"});
  AddNode(&def, "z", "Neg", {"times1"});
  const Tensor x = Tensor::FromVector<float>(
      {-0.0f, std::numeric_limits<float>::quiet_NaN()});
  for (bool optimize : {false, true}) {
    INFO("optimize " << optimize);
    TracedRun run = RunTraced(def, optimize, {{"x", x}}, {"y", "z"});
    REQUIRE_OK(run.status);
    // Neg(-0.0 + 0.0) = Neg(+0.0) = -0.0; Neg(-0.0 * 1) = +0.0.
    CHECK(Bits(run.out.at(0))[0] == 0x80000000u);
    CHECK(std::isnan(run.out.at(0).span<float>()[1]));
    CHECK(Bits(run.out.at(1))[0] == 0u);
    CHECK(std::isnan(run.out.at(1).span<float>()[1]));
    CHECK(run.ops.contains("plus0"));
    CHECK(run.ops.contains("times1") == !optimize);
  }
}

TEST_CASE("a session folds Size of a fed Placeholder's declared shape") {
  GraphDef def;
  AddShapedPlaceholder(&def, "x", {2, 3});
  AddShapedPlaceholder(&def, "unfed", {4});
  NodeDef* size = AddNode(&def, "size", "Size", {"x"});
  (*size->mutable_attr())["out_type"].set_type(DT_INT64);
  AddNode(&def, "unfed_shape", "Shape", {"unfed"});
  const Tensor x = Tensor::FromVector<float>({1, 2, 3, 4, 5, 6},
                                             TensorShape({2, 3}));
  for (bool optimize : {false, true}) {
    INFO("optimize " << optimize);
    TracedRun run = RunTraced(def, optimize, {{"x", x}}, {"size"});
    REQUIRE_OK(run.status);
    CHECK(run.out.at(0).scalar<int64_t>() == 6);
    CHECK(run.ops.at("size") == (optimize ? "Const" : "Size"));
    // The Shape of a Placeholder nobody feeds still fails as it did.
    TracedRun unfed = RunTraced(def, optimize, {{"x", x}}, {"unfed_shape"});
    CHECK_THAT(unfed.status,
               StatusIs(absl::StatusCode::kInvalidArgument, "unfed"));
  }
}

constexpr char kConstantIf[] = R"pb(
  node {
    name: "x"
    op: "Placeholder"
    attr { key: "dtype" value { type: DT_FLOAT } }
    attr { key: "shape" value { shape { dim { size: 2 } } } }
  }
  node {
    name: "p"
    op: "Const"
    attr { key: "dtype" value { type: DT_BOOL } }
    attr { key: "value" value { tensor { dtype: DT_BOOL tensor_shape {} bool_val: PRED } } }
  }
  node {
    name: "cond"
    op: "StatelessIf"
    input: "p"
    input: "x"
    attr { key: "Tcond" value { type: DT_BOOL } }
    attr { key: "Tin" value { list { type: DT_FLOAT } } }
    attr { key: "Tout" value { list { type: DT_FLOAT } } }
    attr { key: "then_branch" value { func { name: "AddOne" } } }
    attr { key: "else_branch" value { func { name: "Negate" } } }
  }
  node {
    name: "use"
    op: "Identity"
    input: "cond"
    attr { key: "T" value { type: DT_FLOAT } }
  }
  library {
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
        attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape {} float_val: 1 } } }
      }
      node_def {
        name: "add"
        op: "AddV2"
        input: "x"
        input: "one:output:0"
        attr { key: "T" value { type: DT_FLOAT } }
      }
      ret { key: "y" value: "add:z:0" }
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
  }
)pb";

TEST_CASE("a StatelessIf on a constant runs only its taken branch") {
  for (bool pred : {true, false}) {
    std::string text = kConstantIf;
    text.replace(text.find("PRED"), 4, pred ? "true" : "false");
    GraphDef def;
    REQUIRE(google::protobuf::TextFormat::ParseFromString(text, &def));
    const Tensor x = Tensor::FromVector<float>({1.5f, -2});
    const std::vector<float> want =
        pred ? std::vector<float>{2.5f, -1} : std::vector<float>{-1.5f, 2};
    for (bool optimize : {false, true}) {
      INFO("pred " << pred << " optimize " << optimize);
      TracedRun run = RunTraced(def, optimize, {{"x", x}}, {"use"});
      REQUIRE_OK(run.status);
      auto v = run.out.at(0).span<float>();
      CHECK(std::vector<float>(v.begin(), v.end()) == want);
      int switches = 0;
      for (const auto& [name, op] : run.ops) {
        switches += op == "Switch" || op == "Merge";
      }
      // Unoptimized, the lowered If routes x through Switch and Merge;
      // optimized, no control-flow node is left to run.
      if (optimize) {
        CHECK(switches == 0);
      } else {
        CHECK(switches > 0);
      }
    }
  }
}

// A random DAG over a fed placeholder of shape [2] and Consts of shape [2]:
// AddV2, Mul, Sub, Neg, Identity and NoOp nodes on CPU:0 or CPU:1, with
// random control edges to earlier nodes; and the patterns the arithmetic
// and dead-branch passes look for: chains of AddV2, x*1, x+(-0.0),
// x-(+0.0), x+(+0.0) (which must stay), Neg(Neg(x)), and a Switch on a
// constant predicate joined by a Merge. Only nodes named "n<i>" (and x) are
// values every run has; the helpers of a pattern are "n<i>_...".
GraphDef RandomGraph(std::mt19937* rng, int num_nodes) {
  auto uniform = [rng](int lo, int hi) {
    return std::uniform_int_distribution<int>(lo, hi)(*rng);
  };
  GraphDef def;
  AddShapedPlaceholder(&def, "x", {2});
  std::vector<std::string> producers = {"x"};
  for (int i = 0; i < num_nodes; ++i) {
    const std::string name = absl::StrCat("n", i);
    const char* device = uniform(0, 1) == 0 ? kCpu0 : kCpu1;
    auto pick = [&] { return producers[uniform(0, producers.size() - 1)]; };
    auto helper = [&](absl::string_view what) {
      return absl::StrCat(name, "_", what);
    };
    NodeDef* n = nullptr;
    switch (uniform(0, 11)) {
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
      case 7: {
        // A chain of 2 to 5 AddV2, sometimes with the sum on the right.
        std::string sum = pick();
        const int length = uniform(2, 5);
        for (int j = 0; j < length; ++j) {
          const std::string step =
              j + 1 == length ? name : helper(absl::StrCat("add", j));
          std::vector<std::string> in = {sum, pick()};
          if (uniform(0, 1) == 0) std::swap(in[0], in[1]);
          n = AddNode(&def, step, "AddV2", in, device);
          sum = step;
        }
        break;
      }
      case 8: {
        // x*1, 1*x, x+(-0.0), x-(+0.0) or x+(+0.0), the Const scalar or
        // [2], on this device or the other.
        const int kind = uniform(0, 3);
        const float value = kind == 0 ? 1.0f : kind == 1 ? -0.0f : 0.0f;
        const char* op = kind == 0 ? "Mul" : kind == 2 ? "Sub" : "AddV2";
        const char* const_device =
            uniform(0, 3) == 0 ? (device == kCpu0 ? kCpu1 : kCpu0) : device;
        if (uniform(0, 1) == 0) {
          AddScalar(&def, helper("c"), value, const_device);
        } else {
          AddConst(&def, helper("c"), {value, value}, const_device);
        }
        std::vector<std::string> in = {pick(), helper("c")};
        if (kind != 2 && uniform(0, 1) == 0) std::swap(in[0], in[1]);
        n = AddNode(&def, name, op, in, device);
        break;
      }
      case 9:
        AddNode(&def, helper("neg"), "Neg", {pick()}, device);
        n = AddNode(&def, name, "Neg", {helper("neg")}, device);
        break;
      case 10: {
        // A cond on a constant predicate.
        const bool pred = uniform(0, 1) == 1;
        const char* pred_device =
            uniform(0, 3) == 0 ? (device == kCpu0 ? kCpu1 : kCpu0) : device;
        AddTypedConst(&def, helper("pred"), DT_BOOL, {pred ? 1.0 : 0.0}, {},
                      pred_device);
        AddNode(&def, helper("s"), "Switch", {pick(), helper("pred")},
                device);
        AddNode(&def, helper("then"), "Neg", {helper("s:1")}, device);
        AddNode(&def, helper("else"), "Mul", {helper("s"), helper("s")},
                device);
        n = AddNode(&def, name, "Merge", {helper("else"), helper("then")},
                    device);
        (*n->mutable_attr())["N"].set_i(2);
        break;
      }
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
  int chains = 0;
  int bypassed = 0;
  int pruned = 0;
  for (int round = 0; round < 40; ++round) {
    const int num_nodes = std::uniform_int_distribution<int>(5, 60)(rng);
    const GraphDef def = RandomGraph(&rng, num_nodes);
    std::vector<std::string> fetches;
    std::vector<std::string> targets;
    for (const NodeDef& n : def.node()) {
      const int roll = std::uniform_int_distribution<int>(0, 5)(rng);
      // A pattern's helpers may be dead (a Switch's untaken side).
      if (absl::StrContains(n.name(), '_')) continue;
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
    chains += stats.add_chains;
    bypassed += stats.nodes_bypassed;
    pruned += stats.dead_switches;

    Tensor x = Tensor::FromVector<float>({-0.0f, -3.5f});
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
  CHECK(chains > 0);
  CHECK(bypassed > 0);
  CHECK(pruned > 0);
}

}  // namespace
}  // namespace dfx
