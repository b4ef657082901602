// Tests graph/builder/scope.h: names, sub-scopes, devices, control
// dependencies and the sticky status.
#include "graph/builder/scope.h"

#include <string>

#include "catch2/catch.hpp"
#include "graph/builder/ops.h"
#include "tests/testing/status_matchers.h"

namespace dfx {
namespace {

using testing::IsOk;
using testing::StatusIs;
constexpr auto kInvalid = absl::StatusCode::kInvalidArgument;

GraphDef Build(const Scope& scope) {
  GraphDef def;
  REQUIRE_OK(scope.ToGraphDef(&def));
  return def;
}

const NodeDef* Find(const GraphDef& def, const std::string& name) {
  for (const NodeDef& n : def.node()) {
    if (n.name() == name) return &n;
  }
  return nullptr;
}

TEST_CASE("Scope makes names unique as TensorFlow does") {
  Scope root = Scope::NewRootScope();
  REQUIRE(ops::Const(root, 1.f).node_name() == "Const");
  REQUIRE(ops::Const(root, 2.f).node_name() == "Const_1");
  REQUIRE(ops::Const(root, 3.f).node_name() == "Const_2");
  REQUIRE(ops::Const(root.WithOpName("x"), 1.f).node_name() == "x");
  REQUIRE(ops::Const(root.WithOpName("x"), 1.f).node_name() == "x_1");
  // A name taken explicitly is skipped by the counter.
  Scope other = Scope::NewRootScope();
  REQUIRE(ops::Const(other.WithOpName("Const_1"), 1.f).node_name() == "Const_1");
  REQUIRE(ops::Const(other, 1.f).node_name() == "Const");
  REQUIRE(ops::Const(other, 1.f).node_name() == "Const_2");
  REQUIRE(Build(other).node_size() == 3);
}

TEST_CASE("Sub-scopes prefix names, and a repeated sub-scope gets a suffix") {
  Scope root = Scope::NewRootScope();
  Scope layer = root.NewSubScope("layer1");
  Output a = ops::Const(layer, 1.f);
  Output b = ops::Const(layer.WithOpName("w"), 1.f);
  Output c = ops::Const(layer.NewSubScope("inner"), 1.f);
  Output d = ops::Const(root.NewSubScope("layer1"), 1.f);
  Output e = ops::Const(root, 1.f);
  REQUIRE(a.node_name() == "layer1/Const");
  REQUIRE(b.node_name() == "layer1/w");
  REQUIRE(c.node_name() == "layer1/inner/Const");
  REQUIRE(d.node_name() == "layer1_1/Const");
  REQUIRE(e.node_name() == "Const");
  REQUIRE(layer.name_prefix() == "layer1");
  REQUIRE(root.NewSubScope("").name_prefix().empty());
  REQUIRE(Build(root).node_size() == 5);
}

TEST_CASE("WithDevice sets the device of the nodes built in it") {
  Scope root = Scope::NewRootScope();
  Output a = ops::Const(root.WithDevice("/device:CPU:1"), 1.f);
  Output b = ops::Identity(root, a);
  const GraphDef def = Build(root);
  REQUIRE(Find(def, a.node_name())->device() == "/device:CPU:1");
  REQUIRE(Find(def, b.node_name())->device().empty());
  // The device survives WithOpName and sub-scopes.
  Scope gpu = root.WithDevice("/job:worker/task:1/device:GPU:0");
  Output c = ops::Identity(gpu.NewSubScope("s").WithOpName("id"), a);
  REQUIRE(Find(Build(root), "s/id")->device() ==
          "/job:worker/task:1/device:GPU:0");
  REQUIRE(c.valid());
}

TEST_CASE("WithControlDependencies adds control inputs after data inputs") {
  Scope root = Scope::NewRootScope();
  Operation init = ops::NoOp(root.WithOpName("init"));
  Output x = ops::Const(root.WithOpName("x"), 1.f);
  Scope deps = root.WithControlDependencies({init, x});
  Output y = ops::Identity(deps.WithOpName("y"), x);
  Output z = ops::Identity(deps.NewSubScope("sub").WithOpName("z"), y);
  Output w = ops::Identity(deps.WithNoControlDependencies().WithOpName("w"), y);
  const GraphDef def = Build(root);
  const NodeDef* yn = Find(def, "y");
  REQUIRE(yn->input_size() == 3);
  REQUIRE(yn->input(0) == "x");
  REQUIRE(yn->input(1) == "^init");
  REQUIRE(yn->input(2) == "^x");
  REQUIRE(Find(def, "sub/z")->input_size() == 3);
  REQUIRE(Find(def, "w")->input_size() == 1);
  REQUIRE(w.valid());
  REQUIRE(z.valid());
}

TEST_CASE("The first error sticks and later ops add nothing") {
  Scope root = Scope::NewRootScope();
  Output f = ops::Const(root.WithOpName("f"), 1.f);
  Output i = ops::Const(root.WithOpName("i"), 1);
  Output mm = ops::MatMul(root.WithOpName("mm"), f, i);
  REQUIRE(!mm.valid());
  REQUIRE_THAT(root.status(),
               StatusIs(kInvalid, "node 'mm' (op MatMul): input b is int32 "
                                  "but input a is float"));
  // A later, different error does not replace it, and nothing more is added.
  Output r = ops::Relu(root, mm);
  REQUIRE(!r.valid());
  Output c = ops::Const(root, 2.f);
  REQUIRE(!c.valid());
  GraphDef def;
  REQUIRE_THAT(root.ToGraphDef(&def), StatusIs(kInvalid, "node 'mm'"));
  REQUIRE(def.node_size() == 0);  // untouched on error
}

TEST_CASE("An invalid Output as input is an error naming the node") {
  Scope root = Scope::NewRootScope();
  ops::Relu(root.WithOpName("r"), Output());
  REQUIRE_THAT(root.status(), StatusIs(kInvalid, "node 'r' (op Relu): input "
                                                 "features is not a valid"));
}

TEST_CASE("An Output of another graph is rejected") {
  Scope a = Scope::NewRootScope();
  Scope b = Scope::NewRootScope();
  Output x = ops::Const(a.WithOpName("x"), 1.f);
  ops::Identity(b.WithOpName("id"), x);
  REQUIRE_THAT(b.status(), StatusIs(kInvalid, "node 'id' (op Identity): input "
                                              "'x' is not a node of this "
                                              "scope's graph"));
  REQUIRE_THAT(a.status(), IsOk());
}

TEST_CASE("An op name TensorFlow disallows is rejected") {
  Scope root = Scope::NewRootScope();
  ops::Const(root.WithOpName("bad name"), 1.f);
  REQUIRE_THAT(root.status(),
               StatusIs(kInvalid, "node 'bad name' (op Const): node name is "
                                  "not valid"));
}

TEST_CASE("SetNodeInputs rewires a node and checks the new inputs") {
  Scope root = Scope::NewRootScope();
  Output a = ops::Const(root.WithOpName("a"), 1.f);
  Output b = ops::Const(root.WithOpName("b"), 2.f);
  Output c = ops::Identity(root.WithOpName("c"), a);
  REQUIRE(root.num_nodes() == 3);
  REQUIRE(root.node(2).name() == "c");
  REQUIRE_THAT(root.SetNodeInputs(2, {"b", "^a"}), IsOk());
  const GraphDef def = Build(root);
  const NodeDef* node = Find(def, "c");
  REQUIRE(node != nullptr);
  CHECK(node->input(0) == "b");
  CHECK(node->input(1) == "^a");
  CHECK_THAT(root.SetNodeInputs(2, {"missing"}),
             StatusIs(kInvalid, "node 'c' (op Identity): input 'missing' is "
                                "not a node of this scope's graph"));
  CHECK_THAT(root.status(), StatusIs(kInvalid, "'missing'"));
}

}  // namespace
}  // namespace dfx
