// The remapper (master/optimizer/remapper.h): which Conv2D and MatMul
// patterns become _FusedConv2D / _FusedMatMul and which stay, names and
// control inputs kept, the fused graph's numbers equal to the unfused
// graph's within float rounding, and the RewriterConfig toggle.
#include <cmath>
#include <map>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "catch2/catch.hpp"
#include "graph/graph_def_import.h"
#include "master/graph_optimizer.h"
#include "master/local_session.h"
#include "tests/master/optimizer_test_util.h"
#include "tests/master/session_test_util.h"
#include "tests/testing/status_matchers.h"

namespace dfx {
namespace {

using ::dfx::testing::Optimize;
using ::dfx::testing::Registries;

constexpr char kCpu0[] = "/job:localhost/replica:0/task:0/device:CPU:0";
constexpr char kGpu0[] = "/job:localhost/replica:0/task:0/device:GPU:0";

NodeDef* Add(GraphDef* def, const std::string& name, const std::string& op,
             std::vector<std::string> inputs, const char* device = kCpu0) {
  NodeDef* n = def->add_node();
  n->set_name(name);
  n->set_op(op);
  n->set_device(device);
  for (std::string& in : inputs) n->add_input(std::move(in));
  (*n->mutable_attr())["T"].set_type(DT_FLOAT);
  return n;
}

// A float Const of shape `dims` with values from a fixed generator.
NodeDef* AddConst(GraphDef* def, const std::string& name,
                  std::vector<int64_t> dims, unsigned seed, float lo = -1.0f,
                  float hi = 1.0f) {
  NodeDef* n = Add(def, name, "Const", {});
  n->mutable_attr()->erase("T");
  (*n->mutable_attr())["dtype"].set_type(DT_FLOAT);
  TensorProto* t = (*n->mutable_attr())["value"].mutable_tensor();
  t->set_dtype(DT_FLOAT);
  int64_t count = 1;
  for (int64_t d : dims) {
    t->mutable_tensor_shape()->add_dim()->set_size(d);
    count *= d;
  }
  std::mt19937 gen(seed);
  std::uniform_real_distribution<float> dist(lo, hi);
  for (int64_t i = 0; i < count; ++i) t->add_float_val(dist(gen));
  return n;
}

NodeDef* AddInput(GraphDef* def, const std::string& name,
                  std::vector<int64_t> dims) {
  NodeDef* n = Add(def, name, "Placeholder", {});
  n->mutable_attr()->erase("T");
  (*n->mutable_attr())["dtype"].set_type(DT_FLOAT);
  TensorShapeProto* shape = (*n->mutable_attr())["shape"].mutable_shape();
  if (dims.empty()) {
    shape->set_unknown_rank(true);
  }
  for (int64_t d : dims) shape->add_dim()->set_size(d);
  return n;
}

NodeDef* AddConv(GraphDef* def, const std::string& name,
                 std::vector<std::string> inputs, const char* device = kCpu0) {
  NodeDef* n = Add(def, name, "Conv2D", std::move(inputs), device);
  auto* strides = (*n->mutable_attr())["strides"].mutable_list();
  for (int i = 0; i < 4; ++i) strides->add_i(1);
  (*n->mutable_attr())["padding"].set_s("SAME");
  return n;
}

NodeDef* AddBatchNorm(GraphDef* def, const std::string& name,
                      const std::string& x, int depth, unsigned seed,
                      bool training = false) {
  AddConst(def, name + "/scale", {depth}, seed);
  AddConst(def, name + "/offset", {depth}, seed + 1);
  AddConst(def, name + "/mean", {depth}, seed + 2);
  AddConst(def, name + "/var", {depth}, seed + 3, 0.1f, 2.0f);
  NodeDef* n = Add(
      def, name, "FusedBatchNormV3",
      {x, name + "/scale", name + "/offset", name + "/mean", name + "/var"});
  (*n->mutable_attr())["U"].set_type(DT_FLOAT);
  (*n->mutable_attr())["is_training"].set_b(training);
  (*n->mutable_attr())["epsilon"].set_f(0.001f);
  return n;
}

// x [2,6,6,3] -> conv (3x3x3x4) -> bias -> relu, with names the sections
// change.
GraphDef ConvBiasRelu() {
  GraphDef def;
  AddInput(&def, "x", {2, 6, 6, 3});
  AddConst(&def, "filter", {3, 3, 3, 4}, 1);
  AddConst(&def, "bias", {4}, 2);
  AddConv(&def, "conv", {"x", "filter"});
  Add(&def, "bias_add", "BiasAdd", {"conv", "bias"});
  Add(&def, "relu", "Relu", {"bias_add"});
  return def;
}

// x [3,5] -> MatMul (5x4) -> bias -> act.
GraphDef MatMulBias(const std::string& act) {
  GraphDef def;
  AddInput(&def, "x", {3, 5});
  AddConst(&def, "w", {5, 4}, 3);
  AddConst(&def, "bias", {4}, 4);
  Add(&def, "mm", "MatMul", {"x", "w"});
  Add(&def, "bias_add", "BiasAdd", {"mm", "bias"});
  Add(&def, "out", act, {"bias_add"});
  return def;
}

// The frozen Keras pattern: conv -> BiasAdd -> FusedBatchNormV3 -> Relu.
GraphDef KerasConvBlock() {
  GraphDef def;
  AddInput(&def, "x", {1, 5, 5, 2});
  AddConst(&def, "filter", {3, 3, 2, 3}, 5);
  AddConst(&def, "bias", {3}, 6);
  AddConv(&def, "conv", {"x", "filter"});
  Add(&def, "bias_add", "BiasAdd", {"conv", "bias"});
  AddBatchNorm(&def, "bn", "bias_add", 3, 7);
  Add(&def, "relu", "Relu", {"bn"});
  return def;
}

// The inference batch norm as Keras 3 freezes it: conv [-> BiasAdd] ->
// Mul by a Const -> AddV2 of a Const -> act; `swapped` puts the Consts
// first.
GraphDef Keras3ConvBlock(bool with_bias, bool swapped, const char* act) {
  GraphDef def;
  AddInput(&def, "x", {2, 5, 5, 3});
  AddConst(&def, "filter", {3, 3, 3, 4}, 8);
  AddConst(&def, "bias", {4}, 9);
  // Swapped, the Consts have Keras 3's broadcast shape [1, 1, 1, depth].
  const std::vector<int64_t> dims =
      swapped ? std::vector<int64_t>{1, 1, 1, 4} : std::vector<int64_t>{4};
  AddConst(&def, "bn/mul", dims, 10);
  AddConst(&def, "bn/sub", dims, 11);
  AddConv(&def, "conv", {"x", "filter"});
  std::string x = "conv";
  if (with_bias) {
    Add(&def, "bias_add", "BiasAdd", {"conv", "bias"});
    x = "bias_add";
  }
  Add(&def, "bn/mul_1", "Mul",
      swapped ? std::vector<std::string>{"bn/mul", x}
              : std::vector<std::string>{x, "bn/mul"});
  Add(&def, "bn/add_1", "AddV2",
      swapped ? std::vector<std::string>{"bn/sub", "bn/mul_1"}
              : std::vector<std::string>{"bn/mul_1", "bn/sub"});
  Add(&def, "out", act, {"bn/add_1"});
  return def;
}

// "op[fused_ops](inputs, ^control)" of a node, or "<removed>".
std::string Describe(const Graph& graph, const std::string& name) {
  const Node* n = graph.FindNode(name);
  if (n == nullptr) return "<removed>";
  std::vector<std::string> data(n->num_inputs());
  std::set<std::string> control;
  for (const Edge* e : n->in_edges()) {
    if (e->IsControlEdge()) {
      control.insert("^" + e->src->name());
    } else {
      data[e->dst_input] = e->src->name();
    }
  }
  std::string out = n->type_string();
  if (const auto it = n->def().attr().find("fused_ops");
      it != n->def().attr().end()) {
    std::vector<std::string> ops(it->second.list().s().begin(),
                                 it->second.list().s().end());
    absl::StrAppend(&out, "[", absl::StrJoin(ops, ","), "]");
  }
  data.insert(data.end(), control.begin(), control.end());
  return absl::StrCat(out, "(", absl::StrJoin(data, ","), ")");
}

TEST_CASE("the remapper fuses Conv2D, BiasAdd and Relu under Relu's name") {
  GraphOptimizerStats stats;
  auto g = Optimize(ConvBiasRelu(), {"relu:0"}, &stats);
  CHECK(Describe(*g, "relu") == "_FusedConv2D[BiasAdd,Relu](x,filter,bias)");
  CHECK(Describe(*g, "conv") == "<removed>");
  CHECK(Describe(*g, "bias_add") == "<removed>");
  CHECK(g->FindNode("relu")->assigned_device_name() == kCpu0);
  CHECK(stats.conv_fusions == 1);
  CHECK(stats.nodes_fused == 3);
}

TEST_CASE("the remapper fuses a convolution that reads a fused one") {
  GraphDef def = ConvBiasRelu();
  AddConst(&def, "filter2", {3, 3, 4, 2}, 12);
  AddConst(&def, "bias2", {2}, 13);
  AddConv(&def, "conv2", {"relu", "filter2"});
  Add(&def, "bias_add2", "BiasAdd", {"conv2", "bias2"});
  Add(&def, "relu2", "Relu", {"bias_add2"});
  GraphOptimizerStats stats;
  auto g = Optimize(def, {"relu2:0"}, &stats);
  CHECK(Describe(*g, "relu2") ==
        "_FusedConv2D[BiasAdd,Relu](relu,filter2,bias2)");
  CHECK(stats.conv_fusions == 2);
}

TEST_CASE("the remapper leaves a pattern whose intermediate is needed") {
  GraphDef def = ConvBiasRelu();
  GraphOptimizerStats stats;
  SECTION("a fetched BiasAdd: Conv2D and BiasAdd fuse under its name") {
    auto g = Optimize(def, {"relu:0", "bias_add:0"}, &stats);
    CHECK(Describe(*g, "bias_add") == "_FusedConv2D[BiasAdd](x,filter,bias)");
    CHECK(Describe(*g, "relu") == "Relu(bias_add)");
  }
  SECTION("a fetched Conv2D") {
    auto g = Optimize(def, {"relu:0", "conv:0"}, &stats);
    CHECK(Describe(*g, "relu") == "Relu(bias_add)");
    CHECK(stats.conv_fusions == 0);
  }
  SECTION("a second consumer of the Conv2D") {
    Add(&def, "other", "Neg", {"conv"});
    auto g = Optimize(def, {"relu:0", "other:0"}, &stats);
    CHECK(Describe(*g, "relu") == "Relu(bias_add)");
    CHECK(stats.conv_fusions == 0);
  }
  SECTION("a node waiting for the Conv2D (control edge)") {
    Add(&def, "after", "NoOp", {"^conv"})->mutable_attr()->erase("T");
    auto g = Optimize(def, {"relu:0", "after"}, &stats);
    CHECK(Describe(*g, "conv") == "Conv2D(x,filter)");
    CHECK(stats.conv_fusions == 0);
  }
  SECTION("a GPU device") {
    for (NodeDef& n : *def.mutable_node()) n.set_device(kGpu0);
    auto g = Optimize(def, {"relu:0"}, &stats);
    CHECK(Describe(*g, "relu") == "Relu(bias_add)");
  }
  SECTION("NCHW") {
    (*def.mutable_node(3)->mutable_attr())["data_format"].set_s("NCHW");
    (*def.mutable_node(4)->mutable_attr())["data_format"].set_s("NCHW");
    TensorShapeProto* x_shape =
        def.mutable_node(0)->mutable_attr()->at("shape").mutable_shape();
    x_shape->mutable_dim(1)->set_size(3);
    x_shape->mutable_dim(3)->set_size(6);
    auto g = Optimize(def, {"relu:0"}, &stats);
    CHECK(Describe(*g, "conv") == "Conv2D(x,filter)");
  }
  SECTION("an input of unknown depth (the convolution might be grouped)") {
    (*def.mutable_node(0)->mutable_attr())["shape"]
        .mutable_shape()
        ->set_unknown_rank(true);
    def.mutable_node(0)
        ->mutable_attr()
        ->at("shape")
        .mutable_shape()
        ->clear_dim();
    auto g = Optimize(def, {"relu:0"}, &stats);
    CHECK(Describe(*g, "conv") == "Conv2D(x,filter)");
  }
  SECTION("a bias of unknown size (BiasAdd's check must stay)") {
    def.mutable_node(2)->CopyFrom(*AddInput(&def, "bias", {}));
    def.mutable_node()->RemoveLast();
    auto g = Optimize(def, {"relu:0"}, &stats);
    CHECK(Describe(*g, "conv") == "Conv2D(x,filter)");
  }
  CHECK(stats.matmul_fusions == 0);
}

TEST_CASE("the remapper moves the intermediates' control inputs") {
  GraphDef def = ConvBiasRelu();
  Add(&def, "gate", "Neg", {"x"});
  def.mutable_node(4)->add_input("^gate");  // bias_add waits for gate
  GraphOptimizerStats stats;
  auto g = Optimize(def, {"relu:0"}, &stats);
  CHECK(Describe(*g, "relu") ==
        "_FusedConv2D[BiasAdd,Relu](x,filter,bias,^gate)");
}

TEST_CASE("the remapper fuses an inference batch norm, not a training one") {
  GraphDef def;
  AddInput(&def, "x", {1, 4, 4, 2});
  AddConst(&def, "filter", {2, 2, 2, 3}, 1);
  AddConv(&def, "conv", {"x", "filter"});
  SECTION("inference, with Relu6") {
    AddBatchNorm(&def, "bn", "conv", 3, 2);
    Add(&def, "act", "Relu6", {"bn"});
    GraphOptimizerStats stats;
    auto g = Optimize(def, {"act:0"}, &stats);
    CHECK(Describe(*g, "act") ==
          "_FusedConv2D[FusedBatchNorm,Relu6](x,filter,bn/scale,bn/offset,"
          "bn/mean,bn/var)");
    CHECK(g->FindNode("act")->def().attr().at("epsilon").f() == 0.001f);
  }
  SECTION("training") {
    AddBatchNorm(&def, "bn", "conv", 3, 2, /*training=*/true);
    GraphOptimizerStats stats;
    auto g = Optimize(def, {"bn:0"}, &stats);
    CHECK(Describe(*g, "conv") == "Conv2D(x,filter)");
    CHECK(stats.conv_fusions == 0);
  }
  SECTION("the batch mean read") {
    AddBatchNorm(&def, "bn", "conv", 3, 2);
    GraphOptimizerStats stats;
    auto g = Optimize(def, {"bn:0", "bn:1"}, &stats);
    CHECK(Describe(*g, "conv") == "Conv2D(x,filter)");
  }
}

TEST_CASE("the remapper leaves a Keras block's batch norm after Conv2D + "
          "BiasAdd") {
  // Folding the bias into the batch norm's mean would round differently:
  // only Conv2D + BiasAdd fuse, as in TensorFlow.
  GraphOptimizerStats stats;
  auto g = Optimize(KerasConvBlock(), {"relu:0"}, &stats);
  CHECK(Describe(*g, "bias_add") == "_FusedConv2D[BiasAdd](x,filter,bias)");
  CHECK(Describe(*g, "relu") == "Relu(bn)");
  CHECK(stats.biases_folded == 0);
  CHECK(stats.conv_fusions == 1);
}

TEST_CASE("the remapper fuses Keras 3's scale and shift as a batch norm") {
  GraphOptimizerStats stats;
  auto g = Optimize(Keras3ConvBlock(true, false, "Relu"), {"out:0"}, &stats);
  CHECK(Describe(*g, "out") ==
        "_FusedConv2D[FusedBatchNorm,Relu](x,filter,bn/mul,bn/sub,"
        "bn/add_1/fused_mean,bn/add_1/fused_variance)");
  CHECK(g->FindNode("out")->def().attr().at("epsilon").f() == 0.0f);
  CHECK(stats.scale_shifts_fused == 1);
  CHECK(stats.biases_folded == 1);
  CHECK(Describe(*g, "bias") == "<removed>");
  // Without a bias, the Consts first, no activation the kernel serves.
  GraphOptimizerStats stats2;
  auto h = Optimize(Keras3ConvBlock(false, true, "Square"), {"out:0"}, &stats2);
  CHECK(Describe(*h, "bn/add_1") ==
        "_FusedConv2D[FusedBatchNorm](x,filter,bn/mul/vector,bn/sub/vector,"
        "bn/add_1/fused_mean,bn/add_1/fused_variance)");
  CHECK(Describe(*h, "out") == "Square(bn/add_1)");
  CHECK(Describe(*h, "bn/mul") == "<removed>");
  CHECK(stats2.biases_folded == 0);
}

TEST_CASE("the remapper fuses MatMul, BiasAdd and each activation") {
  for (const char* act :
       {"Relu", "Relu6", "Elu", "LeakyRelu", "Sigmoid", "Tanh"}) {
    INFO(act);
    GraphOptimizerStats stats;
    auto g = Optimize(MatMulBias(act), {"out:0"}, &stats);
    CHECK(Describe(*g, "out") ==
          absl::StrCat("_FusedMatMul[BiasAdd,", act, "](x,w,bias)"));
    CHECK(stats.matmul_fusions == 1);
  }
  // Square is no activation the kernel serves: MatMul and BiasAdd fuse.
  GraphOptimizerStats stats;
  auto g = Optimize(MatMulBias("Square"), {"out:0"}, &stats);
  CHECK(Describe(*g, "bias_add") == "_FusedMatMul[BiasAdd](x,w,bias)");
  CHECK(Describe(*g, "out") == "Square(bias_add)");
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

struct Ran {
  std::vector<float> out;
  std::map<std::string, std::string> ops;
};

Ran RunSession(const GraphDef& def, const ConfigProto& config, const Tensor& x,
               const std::string& fetch) {
  SessionOptions options;
  options.config = config;
  auto s =
      LocalSession::Create(options, &Registries()->ops, &Registries()->kernels);
  DFX_CHECK_OK(s.status());
  DFX_CHECK_OK((*s)->Extend(def));
  RunOptions run_options;
  run_options.set_trace_level(RunOptions::FULL_TRACE);
  RunMetadata metadata;
  std::vector<Tensor> out;
  DFX_CHECK_OK(
      (*s)->Run(run_options, {{"x", x}}, {fetch}, {}, &out, &metadata));
  Ran ran;
  auto v = out.at(0).span<float>();
  ran.out.assign(v.begin(), v.end());
  ran.ops = TracedOps(metadata);
  return ran;
}

Tensor RandomInput(std::vector<int64_t> dims) {
  Tensor t(DT_FLOAT, *TensorShape::Build(dims));
  std::mt19937 gen(11);
  std::uniform_real_distribution<float> dist(-2, 2);
  for (float& v : t.span<float>()) v = dist(gen);
  return t;
}

TEST_CASE("fused graphs give the unfused graphs' numbers") {
  ConfigProto off;
  off.mutable_graph_options()->mutable_rewrite_options()->set_remapping(
      RewriterConfig::OFF);
  struct Case {
    const char* name;
    GraphDef def;
    std::vector<int64_t> x;
    const char* fetch;
    const char* fused_op;
    bool exact;  // the same bits (the activation's code is shared)
  };
  GraphDef bn_only;
  AddInput(&bn_only, "x", {2, 5, 5, 4});
  AddConst(&bn_only, "filter", {1, 1, 4, 6}, 1);
  AddConv(&bn_only, "conv", {"x", "filter"});
  AddBatchNorm(&bn_only, "bn", "conv", 6, 3);
  Add(&bn_only, "act", "Elu", {"bn"});
  GraphDef bn_relu6 = bn_only;
  bn_relu6.mutable_node(bn_relu6.node_size() - 1)->set_op("Relu6");
  const Case cases[] = {
      {"conv bias relu", ConvBiasRelu(), {2, 6, 6, 3}, "relu", "_FusedConv2D",
       true},
      {"conv bn elu", bn_only, {2, 5, 5, 4}, "act", "_FusedConv2D", false},
      {"conv bn relu6", bn_relu6, {2, 5, 5, 4}, "act", "_FusedConv2D", true},
      {"keras block", KerasConvBlock(), {1, 5, 5, 2}, "bias_add",
       "_FusedConv2D", true},
      {"keras 3 block",
       Keras3ConvBlock(true, false, "Relu"),
       {2, 5, 5, 3},
       "out",
       "_FusedConv2D",
       true},
      {"keras 3 block, no bias",
       Keras3ConvBlock(false, true, "Relu6"),
       {2, 5, 5, 3},
       "out",
       "_FusedConv2D",
       true},
      {"matmul tanh", MatMulBias("Tanh"), {3, 5}, "out", "_FusedMatMul",
       false},
      {"matmul relu", MatMulBias("Relu"), {3, 5}, "out", "_FusedMatMul",
       true},
      {"matmul leakyrelu",
       MatMulBias("LeakyRelu"),
       {3, 5},
       "out",
       "_FusedMatMul",
       false},
  };
  for (const Case& c : cases) {
    INFO(c.name);
    const Tensor x = RandomInput(c.x);
    Ran plain = RunSession(c.def, off, x, c.fetch);
    Ran fused = RunSession(c.def, ConfigProto(), x, c.fetch);
    CHECK(plain.ops.at(c.fetch) != c.fused_op);
    CHECK(fused.ops.at(c.fetch) == c.fused_op);
    REQUIRE(plain.out.size() == fused.out.size());
    if (c.exact) {
      // The same float operations in the same order: the same bits.
      CHECK(plain.out == fused.out);
    }
    for (size_t i = 0; i < plain.out.size(); ++i) {
      INFO("element " << i);
      CHECK(std::fabs(plain.out[i] - fused.out[i]) <=
            1e-5f + 1e-5f * std::fabs(plain.out[i]));
    }
  }
}

TEST_CASE("remapping OFF, L0 and disable_meta_optimizer turn the pass off") {
  ConfigProto config;
  CHECK(GraphOptimizerOptionsFromConfig(config).remapping);
  config.mutable_graph_options()->mutable_rewrite_options()->set_remapping(
      RewriterConfig::OFF);
  GraphOptimizerOptions off = GraphOptimizerOptionsFromConfig(config);
  CHECK_FALSE(off.remapping);
  CHECK(off.constant_folding);
  ConfigProto l0;
  l0.mutable_graph_options()->mutable_optimizer_options()->set_opt_level(
      OptimizerOptions::L0);
  CHECK_FALSE(GraphOptimizerOptionsFromConfig(l0).remapping);
  ConfigProto meta;
  meta.mutable_graph_options()
      ->mutable_rewrite_options()
      ->set_disable_meta_optimizer(true);
  CHECK_FALSE(GraphOptimizerOptionsFromConfig(meta).remapping);
  GraphOptimizerOptions only_remapping = GraphOptimizerOptions::Off();
  only_remapping.remapping = true;
  CHECK(only_remapping.AnyEnabled());
  GraphOptimizerStats stats;
  auto g = Optimize(ConvBiasRelu(), {"relu:0"}, &stats, only_remapping);
  CHECK(stats.conv_fusions == 1);
  auto h = Optimize(ConvBiasRelu(), {"relu:0"}, &stats, off);
  CHECK(Describe(*h, "relu") == "Relu(bias_add)");
}

}  // namespace
}  // namespace dfx
