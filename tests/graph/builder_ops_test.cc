// Tests graph/builder/ops.h: every wrapper writes TensorFlow's NodeDef form,
// and graphs built with them import against the standard op registry.
#include "graph/builder/ops.h"

#include <functional>
#include <string>
#include <tuple>
#include <vector>

#include "catch2/catch.hpp"
#include "google/protobuf/text_format.h"
#include "google/protobuf/util/message_differencer.h"
#include "graph/graph_def_import.h"
#include "tests/testing/status_matchers.h"

namespace dfx {
namespace {

using testing::IsOk;
using testing::StatusIs;
constexpr auto kInvalid = absl::StatusCode::kInvalidArgument;

const NodeDef& Find(const GraphDef& def, const std::string& name) {
  for (const NodeDef& n : def.node()) {
    if (n.name() == name) return n;
  }
  FAIL("no node " << name);
  return def.node(0);
}

// The node `name` of the scope's graph equals `text`, a NodeDef in
// TensorFlow's text format written by hand from what TensorFlow emits.
void RequireNode(const Scope& scope, const std::string& name,
                 const std::string& text) {
  GraphDef def;
  REQUIRE_OK(scope.ToGraphDef(&def));
  NodeDef want;
  REQUIRE(google::protobuf::TextFormat::ParseFromString(text, &want));
  std::string diff;
  google::protobuf::util::MessageDifferencer differ;
  differ.ReportDifferencesToString(&diff);
  const NodeDef& got = Find(def, name);
  INFO(got.DebugString());
  INFO(diff);
  REQUIRE(differ.Compare(want, got));
}

TEST_CASE("Placeholder writes dtype and shape") {
  Scope root = Scope::NewRootScope();
  ops::Placeholder(root.WithOpName("x"), DT_FLOAT,
                   PartialShape::Known({-1, 3}));
  ops::Placeholder(root.WithOpName("y"), DT_INT64);
  RequireNode(root, "x", R"(
    name: "x" op: "Placeholder"
    attr { key: "dtype" value { type: DT_FLOAT } }
    attr { key: "shape" value { shape { dim { size: -1 } dim { size: 3 } } } })");
  RequireNode(root, "y", R"(
    name: "y" op: "Placeholder"
    attr { key: "dtype" value { type: DT_INT64 } }
    attr { key: "shape" value { shape { unknown_rank: true } } })");
}

TEST_CASE("Const writes one element in the typed field") {
  Scope root = Scope::NewRootScope();
  REQUIRE(ops::Const(root.WithOpName("f"), 1.5f).dtype() == DT_FLOAT);
  REQUIRE(ops::Const(root.WithOpName("d"), 2.5).dtype() == DT_DOUBLE);
  REQUIRE(ops::Const(root.WithOpName("i"), 7).dtype() == DT_INT32);
  REQUIRE(ops::Const(root.WithOpName("l"), int64_t{1} << 40).dtype() ==
          DT_INT64);
  REQUIRE(ops::Const(root.WithOpName("b"), true).dtype() == DT_BOOL);
  REQUIRE(ops::Const(root.WithOpName("s"), "hi").dtype() == DT_STRING);
  REQUIRE(ops::Const(root.WithOpName("one"), {4.f}).dtype() == DT_FLOAT);
  RequireNode(root, "f", R"(
    name: "f" op: "Const"
    attr { key: "dtype" value { type: DT_FLOAT } }
    attr { key: "value" value { tensor {
      dtype: DT_FLOAT tensor_shape { } float_val: 1.5 } } })");
  RequireNode(root, "d", R"(
    name: "d" op: "Const"
    attr { key: "dtype" value { type: DT_DOUBLE } }
    attr { key: "value" value { tensor {
      dtype: DT_DOUBLE tensor_shape { } double_val: 2.5 } } })");
  RequireNode(root, "i", R"(
    name: "i" op: "Const"
    attr { key: "dtype" value { type: DT_INT32 } }
    attr { key: "value" value { tensor {
      dtype: DT_INT32 tensor_shape { } int_val: 7 } } })");
  RequireNode(root, "l", R"(
    name: "l" op: "Const"
    attr { key: "dtype" value { type: DT_INT64 } }
    attr { key: "value" value { tensor {
      dtype: DT_INT64 tensor_shape { } int64_val: 1099511627776 } } })");
  RequireNode(root, "b", R"(
    name: "b" op: "Const"
    attr { key: "dtype" value { type: DT_BOOL } }
    attr { key: "value" value { tensor {
      dtype: DT_BOOL tensor_shape { } bool_val: true } } })");
  RequireNode(root, "s", R"(
    name: "s" op: "Const"
    attr { key: "dtype" value { type: DT_STRING } }
    attr { key: "value" value { tensor {
      dtype: DT_STRING tensor_shape { } string_val: "hi" } } })");
  RequireNode(root, "one", R"(
    name: "one" op: "Const"
    attr { key: "dtype" value { type: DT_FLOAT } }
    attr { key: "value" value { tensor {
      dtype: DT_FLOAT tensor_shape { dim { size: 1 } } float_val: 4 } } })");
}

TEST_CASE("Const writes several elements into tensor_content") {
  Scope root = Scope::NewRootScope();
  // 1.0f is 0x3f800000, little-endian 00 00 80 3f; 2.0f is 00 00 00 40.
  ops::Const(root.WithOpName("m"), {{1.f, 2.f}, {2.f, 1.f}});
  ops::Const(root.WithOpName("v"), {1, 2, 3, 4, 5, 6}, {2, 3});
  ops::Const(root.WithOpName("s"), {"a", "bc"});
  ops::Const(root.WithOpName("b"), std::vector<bool>{true, false, true});
  RequireNode(root, "m", R"(
    name: "m" op: "Const"
    attr { key: "dtype" value { type: DT_FLOAT } }
    attr { key: "value" value { tensor {
      dtype: DT_FLOAT tensor_shape { dim { size: 2 } dim { size: 2 } }
      tensor_content: "\000\000\200?\000\000\000@\000\000\000@\000\000\200?"
    } } })");
  RequireNode(root, "v", R"(
    name: "v" op: "Const"
    attr { key: "dtype" value { type: DT_INT32 } }
    attr { key: "value" value { tensor {
      dtype: DT_INT32 tensor_shape { dim { size: 2 } dim { size: 3 } }
      tensor_content: "\001\000\000\000\002\000\000\000\003\000\000\000\004\000\000\000\005\000\000\000\006\000\000\000"
    } } })");
  // Strings: every length as a varint, then the bytes.
  RequireNode(root, "s", R"(
    name: "s" op: "Const"
    attr { key: "dtype" value { type: DT_STRING } }
    attr { key: "value" value { tensor {
      dtype: DT_STRING tensor_shape { dim { size: 2 } }
      tensor_content: "\001\002abc" } } })");
  RequireNode(root, "b", R"(
    name: "b" op: "Const"
    attr { key: "dtype" value { type: DT_BOOL } }
    attr { key: "value" value { tensor {
      dtype: DT_BOOL tensor_shape { dim { size: 3 } }
      tensor_content: "\001\000\001" } } })");
}

TEST_CASE("Const rejects values that do not fit the shape") {
  Scope root = Scope::NewRootScope();
  REQUIRE(!ops::Const(root, {1.f, 2.f, 3.f}, {2, 2}).valid());
  REQUIRE_THAT(root.status(),
               StatusIs(kInvalid, "Const: 3 value(s) for a shape of 4"));
  Scope ragged = Scope::NewRootScope();
  REQUIRE(!ops::Const(ragged, {{1.f, 2.f}, {3.f}}).valid());
  REQUIRE_THAT(ragged.status(), StatusIs(kInvalid, "different lengths"));
}

// Stands in for dfx::Tensor, which graph/ cannot see.
struct FakeTensor {
  int64_t n;
  int64_t NumElements() const { return n; }
  void AsProtoTensorContent(TensorProto* p) const {
    p->set_dtype(DT_FLOAT);
    p->mutable_tensor_shape()->add_dim()->set_size(n);
    p->set_tensor_content(std::string(4 * n, '\0'));
  }
  void AsProtoField(TensorProto* p) const {
    p->set_dtype(DT_FLOAT);
    p->mutable_tensor_shape()->add_dim()->set_size(n);
    for (int64_t i = 0; i < n; ++i) p->add_float_val(0);
  }
};

TEST_CASE("Const from a tensor uses tensor_content for several elements") {
  Scope root = Scope::NewRootScope();
  ops::Const(root.WithOpName("big"), FakeTensor{3});
  ops::Const(root.WithOpName("small"), FakeTensor{1});
  GraphDef def;
  REQUIRE_OK(root.ToGraphDef(&def));
  REQUIRE(Find(def, "big").attr().at("value").tensor().tensor_content().size() ==
          12);
  REQUIRE(Find(def, "small").attr().at("value").tensor().float_val_size() == 1);
}

TEST_CASE("Wrappers write TensorFlow's attrs and input strings") {
  Scope root = Scope::NewRootScope();
  Output x = ops::Placeholder(root.WithOpName("x"), DT_FLOAT);
  Output w = ops::Placeholder(root.WithOpName("w"), DT_FLOAT);
  Output b = ops::Placeholder(root.WithOpName("b"), DT_FLOAT);
  Output i64 = ops::Placeholder(root.WithOpName("i64"), DT_INT64);
  Output i32 = ops::Placeholder(root.WithOpName("i32"), DT_INT32);
  Output cond = ops::Placeholder(root.WithOpName("cond"), DT_BOOL);

  ops::MatMul(root.WithOpName("mm"), x, w, {.transpose_b = true});
  RequireNode(root, "mm", R"(
    name: "mm" op: "MatMul" input: "x" input: "w"
    attr { key: "T" value { type: DT_FLOAT } }
    attr { key: "transpose_a" value { b: false } }
    attr { key: "transpose_b" value { b: true } }
    attr { key: "grad_a" value { b: false } }
    attr { key: "grad_b" value { b: false } })");

  ops::BiasAdd(root.WithOpName("ba"), x, b);
  RequireNode(root, "ba", R"(
    name: "ba" op: "BiasAdd" input: "x" input: "b"
    attr { key: "T" value { type: DT_FLOAT } }
    attr { key: "data_format" value { s: "NHWC" } })");

  for (auto [fn, op] :
       std::initializer_list<std::pair<Output (*)(const Scope&, const Output&),
                                       const char*>>{
           {ops::Relu, "Relu"}, {ops::Softmax, "Softmax"}, {ops::Neg, "Neg"},
           {ops::Exp, "Exp"}, {ops::Log, "Log"}, {ops::Sqrt, "Sqrt"},
           {ops::Square, "Square"}, {ops::Tanh, "Tanh"},
           {ops::Sigmoid, "Sigmoid"}, {ops::ZerosLike, "ZerosLike"},
           {ops::OnesLike, "OnesLike"}, {ops::Identity, "Identity"}}) {
    INFO(op);
    const std::string name = std::string("u_") + op;
    Output y = fn(root.WithOpName(name), x);
    REQUIRE(y.dtype() == DT_FLOAT);
    RequireNode(root, name, "name: '" + name + "' op: '" + op +
                                "' input: 'x' attr { key: 'T' value { type: "
                                "DT_FLOAT } }");
  }

  for (auto [fn, op, out] :
       std::initializer_list<std::tuple<
           Output (*)(const Scope&, const Output&, const Output&), const char*,
           DataType>>{{ops::AddV2, "AddV2", DT_FLOAT},
                      {ops::Add, "Add", DT_FLOAT},
                      {ops::Sub, "Sub", DT_FLOAT},
                      {ops::Mul, "Mul", DT_FLOAT},
                      {ops::RealDiv, "RealDiv", DT_FLOAT},
                      {ops::Maximum, "Maximum", DT_FLOAT},
                      {ops::Minimum, "Minimum", DT_FLOAT},
                      {ops::Less, "Less", DT_BOOL},
                      {ops::Greater, "Greater", DT_BOOL}}) {
    INFO(op);
    const std::string name = std::string("bin_") + op;
    Output y = fn(root.WithOpName(name), x, w);
    REQUIRE(y.dtype() == out);
    RequireNode(root, name, "name: '" + name + "' op: '" + op +
                                "' input: 'x' input: 'w' attr { key: 'T' "
                                "value { type: DT_FLOAT } }");
  }
  REQUIRE(ops::Equal(root.WithOpName("eq"), x, w).dtype() == DT_BOOL);
  RequireNode(root, "eq", R"(
    name: "eq" op: "Equal" input: "x" input: "w"
    attr { key: "T" value { type: DT_FLOAT } }
    attr { key: "incompatible_shape_error" value { b: true } })");

  for (auto [fn, op] : std::initializer_list<std::pair<
           Output (*)(const Scope&, const Output&, const Output&, bool),
           const char*>>{{ops::Sum, "Sum"},
                         {ops::Mean, "Mean"},
                         {ops::Max, "Max"},
                         {ops::Min, "Min"}}) {
    INFO(op);
    const std::string name = std::string("red_") + op;
    fn(root.WithOpName(name), x, i64, true);
    RequireNode(root, name, "name: '" + name + "' op: '" + op +
                                "' input: 'x' input: 'i64' "
                                "attr { key: 'T' value { type: DT_FLOAT } } "
                                "attr { key: 'Tidx' value { type: DT_INT64 } } "
                                "attr { key: 'keep_dims' value { b: true } }");
  }

  ops::Reshape(root.WithOpName("rs"), x, i32);
  RequireNode(root, "rs", R"(
    name: "rs" op: "Reshape" input: "x" input: "i32"
    attr { key: "T" value { type: DT_FLOAT } }
    attr { key: "Tshape" value { type: DT_INT32 } })");

  REQUIRE(ops::Shape(root.WithOpName("sh"), x, DT_INT64).dtype() == DT_INT64);
  RequireNode(root, "sh", R"(
    name: "sh" op: "Shape" input: "x"
    attr { key: "T" value { type: DT_FLOAT } }
    attr { key: "out_type" value { type: DT_INT64 } })");

  ops::ExpandDims(root.WithOpName("ed"), x, i32);
  RequireNode(root, "ed", R"(
    name: "ed" op: "ExpandDims" input: "x" input: "i32"
    attr { key: "T" value { type: DT_FLOAT } }
    attr { key: "Tdim" value { type: DT_INT32 } })");

  ops::Squeeze(root.WithOpName("sq"), x, {0, 2});
  ops::Squeeze(root.WithOpName("sq_all"), x);
  RequireNode(root, "sq", R"(
    name: "sq" op: "Squeeze" input: "x"
    attr { key: "T" value { type: DT_FLOAT } }
    attr { key: "squeeze_dims" value { list { i: 0 i: 2 } } })");
  RequireNode(root, "sq_all", R"(
    name: "sq_all" op: "Squeeze" input: "x"
    attr { key: "T" value { type: DT_FLOAT } }
    attr { key: "squeeze_dims" value { list { } } })");

  ops::Transpose(root.WithOpName("tr"), x, i32);
  RequireNode(root, "tr", R"(
    name: "tr" op: "Transpose" input: "x" input: "i32"
    attr { key: "T" value { type: DT_FLOAT } }
    attr { key: "Tperm" value { type: DT_INT32 } })");

  ops::ConcatV2(root.WithOpName("cc"), {x, w, b}, i32);
  RequireNode(root, "cc", R"(
    name: "cc" op: "ConcatV2" input: "x" input: "w" input: "b" input: "i32"
    attr { key: "N" value { i: 3 } }
    attr { key: "T" value { type: DT_FLOAT } }
    attr { key: "Tidx" value { type: DT_INT32 } })");

  ops::Pack(root.WithOpName("pk"), {x, w}, 1);
  RequireNode(root, "pk", R"(
    name: "pk" op: "Pack" input: "x" input: "w"
    attr { key: "N" value { i: 2 } }
    attr { key: "T" value { type: DT_FLOAT } }
    attr { key: "axis" value { i: 1 } })");

  ops::Fill(root.WithOpName("fill"), i64, x);
  RequireNode(root, "fill", R"(
    name: "fill" op: "Fill" input: "i64" input: "x"
    attr { key: "T" value { type: DT_FLOAT } }
    attr { key: "index_type" value { type: DT_INT64 } })");

  REQUIRE(ops::Cast(root.WithOpName("cast"), x, DT_INT32).dtype() == DT_INT32);
  RequireNode(root, "cast", R"(
    name: "cast" op: "Cast" input: "x"
    attr { key: "SrcT" value { type: DT_FLOAT } }
    attr { key: "DstT" value { type: DT_INT32 } }
    attr { key: "Truncate" value { b: false } })");

  ops::Select(root.WithOpName("sel"), cond, x, w);
  RequireNode(root, "sel", R"(
    name: "sel" op: "Select" input: "cond" input: "x" input: "w"
    attr { key: "T" value { type: DT_FLOAT } })");

  ops::NoOp(root.WithOpName("noop"));
  RequireNode(root, "noop", R"(name: "noop" op: "NoOp")");
}

TEST_CASE("Wrappers reject inputs of the wrong dtype") {
  struct Case {
    const char* what;
    std::function<void(const Scope&, Output, Output, Output)> build;
    const char* message;
  };
  const std::vector<Case> cases = {
      {"binary", [](const Scope& s, Output f, Output i, Output) {
         ops::AddV2(s.WithOpName("n"), f, i);
       }, "node 'n' (op AddV2): input y is int32 but input x is float"},
      {"axis", [](const Scope& s, Output f, Output, Output) {
         ops::Sum(s.WithOpName("n"), f, f);
       }, "node 'n' (op Sum): input reduction_indices must be int32 or int64"},
      {"select", [](const Scope& s, Output f, Output, Output) {
         ops::Select(s.WithOpName("n"), f, f, f);
       }, "node 'n' (op Select): input condition must be bool, not float"},
      {"concat", [](const Scope& s, Output f, Output i, Output) {
         ops::ConcatV2(s.WithOpName("n"), {f, i}, i);
       }, "node 'n' (op ConcatV2): input values[1] is int32"},
      {"empty pack", [](const Scope& s, Output, Output, Output) {
         ops::Pack(s.WithOpName("n"), {});
       }, "node 'n' (op Pack): needs at least one value"},
  };
  for (const Case& c : cases) {
    INFO(c.what);
    Scope root = Scope::NewRootScope();
    Output f = ops::Const(root, 1.f);
    Output i = ops::Const(root, 1);
    c.build(root, f, i, Output());
    REQUIRE_THAT(root.status(), StatusIs(kInvalid, c.message));
  }
}

TEST_CASE("A ref-typed input sets T to its base type") {
  Scope root = Scope::NewRootScope();
  Output v = ops::Placeholder(root.WithOpName("v"), DT_FLOAT);
  Output ref(v.node_name(), 0, DT_FLOAT_REF);
  Output id = ops::Identity(root.WithOpName("id"), ref);
  REQUIRE(id.dtype() == DT_FLOAT);
  REQUIRE_THAT(root.status(), IsOk());
}

// The graphs below use the standard op library (graph/ops/), imported with
// shape validation.
TEST_CASE("A builder MLP imports against the standard ops", "[standard-ops]") {
  Scope root = Scope::NewRootScope();
  Scope layer = root.NewSubScope("dense");
  Output x = ops::Placeholder(root.WithOpName("x"), DT_FLOAT,
                              PartialShape::Known({-1, 3}));
  Output w = ops::Const(layer.WithOpName("w"),
                        {{0.5f, -1.f}, {2.f, 0.25f}, {1.5f, -0.5f}});
  Output b = ops::Const(layer.WithOpName("b"), {0.1f, -0.2f});
  Output logits = ops::BiasAdd(layer, ops::MatMul(layer, x, w), b);
  Output probs = ops::Softmax(root.WithOpName("probs"), ops::Relu(layer, logits));
  Output id = ops::Identity(root.WithControlDependencies({ops::NoOp(root)}),
                            probs);
  GraphDef def;
  REQUIRE_OK(root.ToGraphDef(&def));
  auto graph = ImportGraphDef(def, OpRegistry::Global());
  REQUIRE_OK(graph);
  REQUIRE((*graph)->num_nodes() == 9);
  REQUIRE((*graph)->FindNode("dense/MatMul") != nullptr);
  REQUIRE(id.valid());

  // A mis-shaped weight fails shape validation at the MatMul.
  Scope bad = Scope::NewRootScope();
  Output bx = ops::Placeholder(bad.WithOpName("x"), DT_FLOAT,
                               PartialShape::Known({-1, 3}));
  ops::MatMul(bad.WithOpName("mm"), bx, ops::Const(bad, {{1.f, 2.f}}));
  REQUIRE_OK(bad.ToGraphDef(&def));
  REQUIRE_THAT(ImportGraphDef(def, OpRegistry::Global()).status(),
               StatusIs(kInvalid, "node 'mm'"));
}

TEST_CASE("Every wrapper's node imports against the standard ops",
          "[standard-ops]") {
  Scope root = Scope::NewRootScope();
  Output x = ops::Placeholder(root.WithOpName("x"), DT_FLOAT,
                              PartialShape::Known({4, 2}));
  Output y = ops::Placeholder(root.WithOpName("y"), DT_FLOAT,
                              PartialShape::Known({4, 2}));
  Output one = ops::Const(root, 1);
  Output zero = ops::Const(root, 0);
  std::vector<Output> outs = {
      ops::Identity(root, x),    ops::Relu(root, x),
      ops::Softmax(root, x),     ops::Neg(root, x),
      ops::Exp(root, x),         ops::Log(root, x),
      ops::Sqrt(root, x),        ops::Square(root, x),
      ops::Tanh(root, x),        ops::Sigmoid(root, x),
      ops::ZerosLike(root, x),   ops::OnesLike(root, x),
      ops::AddV2(root, x, y),    ops::Add(root, x, y),
      ops::Sub(root, x, y),      ops::Mul(root, x, y),
      ops::RealDiv(root, x, y),  ops::Maximum(root, x, y),
      ops::Minimum(root, x, y),  ops::Equal(root, x, y),
      ops::Less(root, x, y),     ops::Greater(root, x, y),
      ops::Sum(root, x, one),    ops::Mean(root, x, one, true),
      ops::Max(root, x, zero),   ops::Min(root, x, zero),
      ops::Shape(root, x),       ops::Reshape(root, x, ops::Const(root, {8})),
      ops::ExpandDims(root, x, zero),
      ops::Squeeze(root, ops::ExpandDims(root, x, zero), {0}),
      ops::Transpose(root, x, ops::Const(root, {1, 0})),
      ops::ConcatV2(root, {x, y}, zero),
      ops::Pack(root, {x, y}),
      ops::Fill(root, ops::Const(root, {2, 2}), ops::Const(root, 0.5f)),
      ops::Cast(root, x, DT_INT32),
      ops::Select(root, ops::Less(root, x, y), x, y),
      ops::BiasAdd(root, x, ops::Const(root, {1.f, 2.f})),
      ops::MatMul(root, x, y, {.transpose_b = true}),
  };
  ops::NoOp(root.WithControlDependencies(
      std::vector<Operation>(outs.begin(), outs.end())));
  for (const Output& o : outs) REQUIRE(o.valid());
  GraphDef def;
  REQUIRE_OK(root.ToGraphDef(&def));
  auto graph = ImportGraphDef(def, OpRegistry::Global());
  REQUIRE_OK(graph);
  // Import then export gives the builder's GraphDef back, defaults aside
  // (the builder writes every attr TensorFlow writes).
  const GraphDef out = ToGraphDef(**graph);
  REQUIRE(out.node_size() == def.node_size());
  for (int i = 0; i < def.node_size(); ++i) {
    INFO(def.node(i).DebugString());
    REQUIRE(out.node(i).input_size() == def.node(i).input_size());
    for (int k = 0; k < def.node(i).input_size(); ++k) {
      REQUIRE(out.node(i).input(k) == def.node(i).input(k));
    }
  }
}

TEST_CASE("Multi-output wrappers name each output") {
  Scope root = Scope::NewRootScope();
  Output x = ops::Placeholder(root.WithOpName("x"), DT_FLOAT);
  Output s = ops::Shape(root.WithOpName("s"), x);
  ops::BroadcastGradientArgsOutputs r =
      ops::BroadcastGradientArgs(root.WithOpName("bga"), s, s);
  REQUIRE(r.r0.ToString() == "bga");
  REQUIRE(r.r1.ToString() == "bga:1");
  REQUIRE(r.r1.dtype() == DT_INT32);
  std::vector<Output> pieces = ops::Unpack(root.WithOpName("u"), x, 3, -1);
  REQUIRE(pieces.size() == 3);
  REQUIRE(pieces[2].ToString() == "u:2");
  RequireNode(root, "u", R"(
    name: "u" op: "Unpack" input: "x"
    attr { key: "T" value { type: DT_FLOAT } }
    attr { key: "num" value { i: 3 } }
    attr { key: "axis" value { i: -1 } })");
  auto xent = ops::SoftmaxCrossEntropyWithLogits(root.WithOpName("xent"), x, x);
  REQUIRE(xent.loss.ToString() == "xent");
  REQUIRE(xent.backprop.ToString() == "xent:1");
  Output c = ops::Const(root, {1.f});
  auto bn = ops::FusedBatchNormV3(root.WithOpName("bn"), x, c, c, c, c,
                                  {.is_training = false});
  REQUIRE(bn.reserve_space_3.ToString() == "bn:5");
  RequireNode(root, "bn", R"(
    name: "bn" op: "FusedBatchNormV3"
    input: "x" input: "Const" input: "Const" input: "Const" input: "Const"
    attr { key: "T" value { type: DT_FLOAT } }
    attr { key: "U" value { type: DT_FLOAT } }
    attr { key: "epsilon" value { f: 0.0001 } }
    attr { key: "exponential_avg_factor" value { f: 1 } }
    attr { key: "data_format" value { s: "NHWC" } }
    attr { key: "is_training" value { b: false } })");
}

TEST_CASE("Conv2D, pooling and LeakyRelu write TensorFlow's attrs") {
  Scope root = Scope::NewRootScope();
  Output x = ops::Placeholder(root.WithOpName("x"), DT_FLOAT);
  Output f = ops::Placeholder(root.WithOpName("f"), DT_FLOAT);
  ops::Conv2D(root.WithOpName("conv"), x, f,
              {.strides = {1, 2, 2, 1}, .padding = "SAME"});
  RequireNode(root, "conv", R"(
    name: "conv" op: "Conv2D" input: "x" input: "f"
    attr { key: "T" value { type: DT_FLOAT } }
    attr { key: "strides" value { list { i: 1 i: 2 i: 2 i: 1 } } }
    attr { key: "use_cudnn_on_gpu" value { b: true } }
    attr { key: "padding" value { s: "SAME" } }
    attr { key: "explicit_paddings" value { list { } } }
    attr { key: "data_format" value { s: "NHWC" } }
    attr { key: "dilations" value { list { i: 1 i: 1 i: 1 i: 1 } } })");
  ops::AvgPool(root.WithOpName("avg"), x,
               {.ksize = {1, 2, 2, 1}, .strides = {1, 2, 2, 1}});
  RequireNode(root, "avg", R"(
    name: "avg" op: "AvgPool" input: "x"
    attr { key: "T" value { type: DT_FLOAT } }
    attr { key: "ksize" value { list { i: 1 i: 2 i: 2 i: 1 } } }
    attr { key: "strides" value { list { i: 1 i: 2 i: 2 i: 1 } } }
    attr { key: "padding" value { s: "VALID" } }
    attr { key: "data_format" value { s: "NHWC" } })");
  ops::LeakyRelu(root.WithOpName("lrelu"), x, 0.5f);
  RequireNode(root, "lrelu", R"(
    name: "lrelu" op: "LeakyRelu" input: "x"
    attr { key: "T" value { type: DT_FLOAT } }
    attr { key: "alpha" value { f: 0.5 } })");
  // AvgPool has no explicit_paddings attr.
  ops::AvgPool(root, x, {.explicit_paddings = {0, 0, 1, 1, 1, 1, 0, 0}});
  REQUIRE_THAT(root.status(), StatusIs(kInvalid, "no explicit_paddings attr"));
}

TEST_CASE("Wrappers check their index and condition types") {
  Scope root = Scope::NewRootScope();
  Output x = ops::Placeholder(root.WithOpName("x"), DT_FLOAT);
  SECTION("SelectV2 condition") {
    ops::SelectV2(root.WithOpName("sel"), x, x, x);
    REQUIRE_THAT(root.status(),
                 StatusIs(kInvalid, "node 'sel' (op SelectV2): input "
                                    "condition must be bool, not float"));
  }
  SECTION("GatherV2 indices") {
    ops::GatherV2(root.WithOpName("g"), x, x, ops::Const(root, 0));
    REQUIRE_THAT(root.status(),
                 StatusIs(kInvalid, "input indices must be int32 or int64"));
  }
  SECTION("Slice begin and size of one type") {
    ops::Slice(root.WithOpName("sl"), x, ops::Const(root, {0}),
               ops::Const(root, std::vector<int64_t>{1}));
    REQUIRE_THAT(root.status(), StatusIs(kInvalid, "same type"));
  }
  SECTION("AddN of nothing") {
    REQUIRE(!ops::AddN(root.WithOpName("n"), {}).valid());
    REQUIRE_THAT(root.status(), StatusIs(kInvalid, "at least one value"));
  }
  SECTION("Unpack on a failed scope gives no outputs") {
    ops::AddN(root, {});
    REQUIRE(ops::Unpack(root, x, 2).empty());
  }
}

TEST_CASE("The gradient wrappers import with every attr TensorFlow writes",
          "[standard-ops]") {
  Scope root = Scope::NewRootScope();
  auto ph = [&](const char* name, std::vector<int64_t> shape,
                DataType t = DT_FLOAT) {
    return ops::Placeholder(root.WithOpName(name), t,
                            PartialShape::Known(std::move(shape)));
  };
  Output x = ph("x", {4, 2});
  Output y = ph("y", {4, 2});
  Output b3 = ph("b3", {2, 4, 2});
  Output img = ph("img", {1, 4, 4, 2});
  Output filt = ph("filt", {2, 2, 2, 3});
  Output zero = ops::Const(root, 0);
  Output one = ops::Const(root, 1);
  Output sx = ops::Shape(root, x);
  auto bga = ops::BroadcastGradientArgs(root, sx, ops::Shape(root, y));
  Output ss = ops::StridedSlice(root, x, ops::Const(root, {0}),
                                ops::Const(root, {2}), ops::Const(root, {1}));
  const ops::Conv2DAttrs same{.padding = "SAME"};
  Output conv = ops::Conv2D(root, img, filt, same);
  const ops::PoolAttrs pool{.ksize = {1, 2, 2, 1}, .strides = {1, 2, 2, 1}};
  Output mp = ops::MaxPool(root, img, pool);
  Output ap = ops::AvgPool(root, img, pool);
  Output scale = ops::Const(root, {1.f, 2.f});
  Output empty = ops::Const(root, std::vector<float>{});
  auto bn = ops::FusedBatchNormV3(root, img, scale, scale, empty, empty);
  auto bng =
      ops::FusedBatchNormGradV3(root, img, img, scale, bn.reserve_space_1,
                                bn.reserve_space_2, bn.reserve_space_3);
  auto xent = ops::SoftmaxCrossEntropyWithLogits(root, x, y);
  auto sparse = ops::SparseSoftmaxCrossEntropyWithLogits(
      root, x, ops::Const(root, {0, 1, 1, 0}));
  std::vector<Output> outs = {
      ops::Rsqrt(root, x), ops::Log1p(root, x), ops::Abs(root, x),
      ops::Sign(root, x), ops::Reciprocal(root, x), ops::Div(root, x, y),
      ops::FloorDiv(root, x, y), ops::FloorMod(root, x, y),
      ops::Pow(root, x, y), ops::SquaredDifference(root, x, y),
      ops::GreaterEqual(root, x, y), ops::LessEqual(root, x, y),
      ops::AddN(root, {x, y}), ops::TanhGrad(root, x, y),
      ops::SigmoidGrad(root, x, y), ops::SqrtGrad(root, x, y),
      ops::RsqrtGrad(root, x, y),
      ops::BatchMatMulV2(root, b3, b3, {.adj_y = true}), bga.r0, bga.r1,
      ops::Range(root, zero, ops::Const(root, 5), one), ops::Rank(root, x),
      ops::Size(root, x, DT_INT64),
      ops::InvertPermutation(root, ops::Const(root, {1, 0})),
      ops::BroadcastTo(root, ops::Const(root, 1.f), ops::Const(root, {2, 3})),
      ops::StopGradient(root, x), ops::PreventGradient(root, x, "why"),
      ops::Slice(root, x, ops::Const(root, {0, 0}), ops::Const(root, {2, -1})),
      ss,
      ops::StridedSliceGrad(root, sx, ops::Const(root, {0}),
                            ops::Const(root, {2}), ops::Const(root, {1}), ss),
      ops::Tile(root, x, ops::Const(root, {2, 1})),
      ops::Pad(root, x, ops::Const(root, {{1, 1}, {0, 0}})),
      ops::GatherV2(root, x, ops::Const(root, {0, 3}), zero),
      ops::DynamicStitch(root, {ops::Const(root, {1, 0})},
                         {ops::Const(root, {1.f, 2.f})}),
      ops::UnsortedSegmentSum(root, x, ops::Const(root, {0, 1, 0, 1}),
                              ops::Const(root, 2)),
      ops::SelectV2(root, ops::GreaterEqual(root, x, y), x, y),
      ops::Relu6(root, x), ops::Elu(root, x), ops::Selu(root, x),
      ops::Softplus(root, x), ops::LeakyRelu(root, x, 0.1f),
      ops::LogSoftmax(root, x), ops::L2Loss(root, x),
      ops::ReluGrad(root, x, y), ops::Relu6Grad(root, x, y),
      ops::EluGrad(root, x, y), ops::SeluGrad(root, x, y),
      ops::SoftplusGrad(root, x, y), ops::LeakyReluGrad(root, x, y, 0.1f),
      ops::BiasAddGrad(root, x), xent.loss, xent.backprop, sparse.loss,
      conv,
      ops::Conv2DBackpropInput(root, ops::Const(root, {1, 4, 4, 2}), filt,
                               conv, same),
      ops::Conv2DBackpropFilter(root, img, ops::Const(root, {2, 2, 2, 3}),
                                conv, same),
      mp, ops::MaxPoolGrad(root, img, mp, mp, pool), ap,
      ops::AvgPoolGrad(root, ops::Const(root, {1, 4, 4, 2}), ap, pool),
      bn.y, bng.x_backprop, bng.offset_backprop};
  for (const Output& o : ops::Unpack(root, x, 4)) outs.push_back(o);
  for (const Output& o :
       ops::SplitV(root, x, ops::Const(root, {1, 1}), one, 2)) {
    outs.push_back(o);
  }
  REQUIRE_THAT(root.status(), IsOk());
  for (const Output& o : outs) REQUIRE(o.valid());
  GraphDef def;
  REQUIRE_OK(root.ToGraphDef(&def));
  auto graph = ImportGraphDef(def, OpRegistry::Global());
  REQUIRE_OK(graph);
  // Import fills in no default: the builder wrote every attr.
  const GraphDef out = ToGraphDef(**graph);
  REQUIRE(out.node_size() == def.node_size());
  for (int i = 0; i < def.node_size(); ++i) {
    INFO(def.node(i).DebugString());
    CHECK(out.node(i).attr_size() == def.node(i).attr_size());
  }
}

}  // namespace
}  // namespace dfx
