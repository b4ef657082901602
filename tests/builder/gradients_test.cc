// Tests graph/builder/gradients.h: how AddSymbolicGradients walks a graph
// (paths summed, unreachable inputs, stops, errors) and names what it adds.
#include "graph/builder/gradients.h"

#include <string>
#include <vector>

#include "catch2/catch.hpp"
#include "graph/builder/ops.h"
#include "tests/builder/grad_test_util.h"

namespace dfx {
namespace {

using testing::GetAsDouble;
using testing::MakeTensor;
using testing::RunScope;
using testing::StatusIs;

std::vector<double> Values(const Tensor& t) {
  std::vector<double> v;
  for (int64_t i = 0; i < t.NumElements(); ++i) v.push_back(GetAsDouble(t, i));
  return v;
}

// Runs `fetches` with x fed `x_value`.
std::vector<Tensor> Run(const Scope& root, const Output& x,
                        const Tensor& x_value,
                        const std::vector<Output>& fetches) {
  auto out = RunScope(root, {{x, x_value}}, fetches);
  REQUIRE_OK(out);
  return *std::move(out);
}

bool HasNode(const Scope& root, const std::string& name) {
  GraphDef def;
  REQUIRE_OK(root.ToGraphDef(&def));
  for (const NodeDef& n : def.node()) {
    if (n.name() == name) return true;
  }
  return false;
}

TEST_CASE("gradients of two paths to one input are summed") {
  Scope root = Scope::NewRootScope();
  const Output x = testing::Ph(root, "x", DT_DOUBLE);
  // y = x*x + 3x: dy/dx = 2x + 3, through three edges from x.
  const Output y = ops::AddV2(root, ops::Mul(root, x, x),
                              ops::Mul(root, ops::Const(root, 3.0), x));
  std::vector<Output> grads;
  REQUIRE_OK(AddSymbolicGradients(root, {y}, {x}, &grads));
  REQUIRE(grads.size() == 1);
  CHECK(grads[0].dtype() == DT_DOUBLE);
  const auto out = Run(root, x, MakeTensor(DT_DOUBLE, {2}, {1, -2}), grads);
  CHECK(Values(out[0]) == std::vector<double>{5, -1});
  CHECK(HasNode(root, "gradients/AddN"));
}

TEST_CASE("gradients of several outputs add up") {
  Scope root = Scope::NewRootScope();
  const Output x = testing::Ph(root, "x", DT_DOUBLE);
  const Output a = ops::Square(root, x);
  const Output b = ops::Mul(root, a, ops::Const(root, 2.0));
  std::vector<Output> grads;
  // d(a + b)/dx with a also upstream of b: 2x + 4x.
  REQUIRE_OK(AddSymbolicGradients(root, {a, b}, {x}, &grads));
  const auto out = Run(root, x, MakeTensor(DT_DOUBLE, {2}, {1, 3}), grads);
  CHECK(Values(out[0]) == std::vector<double>{6, 18});
}

TEST_CASE("grad_inputs seed the outputs' gradients") {
  Scope root = Scope::NewRootScope();
  const Output x = testing::Ph(root, "x", DT_DOUBLE);
  const Output y = ops::Mul(root, x, ops::Const(root, 3.0));
  const Output dy = ops::Const(root, {1.0, 10.0});
  std::vector<Output> grads;
  REQUIRE_OK(AddSymbolicGradients(root, {y}, {x}, {dy}, &grads));
  const auto out = Run(root, x, MakeTensor(DT_DOUBLE, {2}, {1, 3}), grads);
  CHECK(Values(out[0]) == std::vector<double>{3, 30});
}

TEST_CASE("an input on the path and one upstream of it both get gradients") {
  Scope root = Scope::NewRootScope();
  const Output x = testing::Ph(root, "x", DT_DOUBLE);
  const Output h = ops::Square(root, x);
  const Output y = ops::Mul(root, h, x);  // x^3
  std::vector<Output> grads;
  REQUIRE_OK(AddSymbolicGradients(root, {y}, {h, x}, &grads));
  const auto out = Run(root, x, MakeTensor(DT_DOUBLE, {1}, {2}), grads);
  CHECK(Values(out[0]) == std::vector<double>{2});   // dy/dh = x
  CHECK(Values(out[1]) == std::vector<double>{12});  // dy/dx = 3x^2
}

TEST_CASE("an input the outputs do not depend on gets zeros") {
  Scope root = Scope::NewRootScope();
  const Output x = testing::Ph(root, "x", DT_DOUBLE);
  const Output unused = ops::Const(root, {{1.f, 2.f}, {3.f, 4.f}});
  const Output y = ops::Square(root, x);
  std::vector<Output> grads;
  REQUIRE_OK(AddSymbolicGradients(root, {y}, {x, unused}, &grads));
  REQUIRE(grads.size() == 2);
  CHECK(grads[1].dtype() == DT_FLOAT);
  const auto out = Run(root, x, MakeTensor(DT_DOUBLE, {1}, {2}), grads);
  CHECK(Values(out[0]) == std::vector<double>{4});
  CHECK(out[1].shape() == TensorShape({2, 2}));
  CHECK(Values(out[1]) == std::vector<double>{0, 0, 0, 0});
}

TEST_CASE("StopGradient blocks its path") {
  Scope root = Scope::NewRootScope();
  const Output x = testing::Ph(root, "x", DT_DOUBLE);
  // y = x * stop(x): only the first factor's path counts.
  const Output y = ops::Mul(root, x, ops::StopGradient(root, x));
  std::vector<Output> grads;
  REQUIRE_OK(AddSymbolicGradients(root, {y}, {x}, &grads));
  const auto out = Run(root, x, MakeTensor(DT_DOUBLE, {2}, {3, -1}), grads);
  CHECK(Values(out[0]) == std::vector<double>{3, -1});

  SECTION("and an input reached only through it gets zeros") {
    const Output z = ops::Exp(root, ops::StopGradient(root, x));
    std::vector<Output> g;
    REQUIRE_OK(AddSymbolicGradients(root, {z}, {x}, &g));
    const auto o = Run(root, x, MakeTensor(DT_DOUBLE, {2}, {3, -1}), g);
    CHECK(Values(o[0]) == std::vector<double>{0, 0});
  }
}

TEST_CASE("PreventGradient on the path fails with its message") {
  Scope root = Scope::NewRootScope();
  const Output x = testing::Ph(root, "x", DT_DOUBLE);
  const Output y = ops::Square(
      root, ops::PreventGradient(root.WithOpName("guard"), x, "not here"));
  std::vector<Output> grads;
  CHECK_THAT(AddSymbolicGradients(root, {y}, {x}, &grads),
             StatusIs(absl::StatusCode::kInvalidArgument,
                      "node 'guard' (op PreventGradient): Gradient explicitly "
                      "disabled. Reason: not here"));
}

TEST_CASE("an op without a gradient function fails naming op and node") {
  Scope root = Scope::NewRootScope();
  const Output x = testing::Ph(root, "x", DT_FLOAT);
  // FusedBatchNormGrad has a kernel (and a gradient in TensorFlow) but no
  // gradient function here.
  NodeDef def;
  def.set_name("running");
  def.set_op("FusedBatchNormGrad");
  for (int i = 0; i < 5; ++i) def.add_input(x.node_name());
  AttrValue t;
  t.set_type(DT_FLOAT);
  (*def.mutable_attr())["T"] = t;
  REQUIRE_OK(root.AddNode(def));
  const Output y = ops::Square(root, Output("running", 0, DT_FLOAT));
  std::vector<Output> grads;
  CHECK_THAT(
      AddSymbolicGradients(root, {y}, {x}, &grads),
      StatusIs(absl::StatusCode::kNotFound,
               "No gradient defined for op: FusedBatchNormGrad (node "
               "'running')"));
  // The scope itself stays usable.
  CHECK(root.ok());
}

TEST_CASE("integer edges carry no gradient") {
  Scope root = Scope::NewRootScope();
  const Output x = testing::Ph(root, "x", DT_DOUBLE);
  const Output i = ops::Placeholder(root.WithOpName("i"), DT_INT32);
  // y = x * cast(i) + cast(shape(x)): only x gets a gradient.
  const Output y =
      ops::AddV2(root, ops::Mul(root, x, ops::Cast(root, i, DT_DOUBLE)),
                 ops::Cast(root, ops::Shape(root, x), DT_DOUBLE));
  std::vector<Output> grads;
  REQUIRE_OK(AddSymbolicGradients(root, {y}, {x, i}, &grads));
  REQUIRE(grads.size() == 2);
  CHECK(grads[1].dtype() == DT_INT32);
  auto out = RunScope(root,
                      {{x, MakeTensor(DT_DOUBLE, {2}, {1, 2})},
                       {i, Tensor::FromVector<int32_t>({5, 7})}},
                      grads);
  REQUIRE_OK(out);
  CHECK(Values((*out)[0]) == std::vector<double>{5, 7});
  CHECK((*out)[1].data<int32_t>()[0] == 0);
  CHECK((*out)[1].data<int32_t>()[1] == 0);
}

TEST_CASE("gradient nodes are named under gradients/<node>_grad") {
  Scope root = Scope::NewRootScope();
  const Scope layer = root.NewSubScope("dense");
  const Output x = testing::Ph(root, "x", DT_FLOAT);
  const Output w = ops::Const(root.WithOpName("w"), {{1.f}, {2.f}});
  const Output y = ops::MatMul(layer, x, w);
  std::vector<Output> grads;
  REQUIRE_OK(AddSymbolicGradients(root, {y}, {w}, &grads));
  CHECK(HasNode(root, "gradients/OnesLike"));
  CHECK(HasNode(root, "gradients/dense/MatMul_grad/MatMul_1"));
  CHECK(grads[0].node_name() == "gradients/dense/MatMul_grad/MatMul_1");
  // A second call gets a scope of its own.
  REQUIRE_OK(AddSymbolicGradients(root, {y}, {x}, &grads));
  CHECK(grads[0].node_name() == "gradients_1/dense/MatMul_grad/MatMul");
  // In a sub-scope, under its prefix.
  REQUIRE_OK(AddSymbolicGradients(root.NewSubScope("train"), {y}, {x}, &grads));
  CHECK(grads[0].node_name() == "train/gradients/dense/MatMul_grad/MatMul");
}

TEST_CASE("the gradient graph imports and carries TensorFlow's attrs") {
  Scope root = Scope::NewRootScope();
  const Output x = testing::Ph(root, "x", DT_FLOAT);
  const Output w = ops::Const(root.WithOpName("w"), {{1.f}, {2.f}});
  std::vector<Output> grads;
  REQUIRE_OK(
      AddSymbolicGradients(root, {ops::MatMul(root, x, w)}, {w}, &grads));
  GraphDef def;
  REQUIRE_OK(root.ToGraphDef(&def));
  for (const NodeDef& n : def.node()) {
    if (n.name() != grads[0].node_name()) continue;
    CHECK(n.attr().at("transpose_a").b());
    CHECK(!n.attr().at("transpose_b").b());
    CHECK(n.attr().at("grad_b").b());
    CHECK(!n.attr().at("grad_a").b());
  }
}

TEST_CASE("bad arguments are InvalidArgument") {
  Scope root = Scope::NewRootScope();
  const Output x = testing::Ph(root, "x", DT_FLOAT);
  const Output y = ops::Square(root, x);
  std::vector<Output> grads;
  constexpr auto kInvalid = absl::StatusCode::kInvalidArgument;
  SECTION("an invalid output") {
    CHECK_THAT(AddSymbolicGradients(root, {Output()}, {x}, &grads),
               StatusIs(kInvalid, "outputs[0] is not a valid Output"));
  }
  SECTION("an Output of another graph") {
    Scope other = Scope::NewRootScope();
    const Output z = ops::Const(other.WithOpName("z"), 1.f);
    CHECK_THAT(
        AddSymbolicGradients(root, {y}, {z}, {ops::OnesLike(root, y)}, &grads),
        StatusIs(kInvalid, "inputs[0] 'z' is not a node of this"));
  }
  SECTION("an output index out of range") {
    CHECK_THAT(AddSymbolicGradients(root, {Output(y.node_name(), 3, DT_FLOAT)},
                                    {x}, {y}, &grads),
               StatusIs(kInvalid, "has 1 output(s)"));
  }
  SECTION("grad_inputs of another count") {
    CHECK_THAT(AddSymbolicGradients(root, {y}, {x}, {}, &grads),
               StatusIs(kInvalid, "1 output(s) but 0 gradient input(s)"));
  }
  SECTION("grad_inputs of another dtype") {
    CHECK_THAT(
        AddSymbolicGradients(root, {y}, {x}, {ops::Const(root, 1.0)}, &grads),
        StatusIs(kInvalid,
                 "grad_inputs[0] is double but outputs[0] "
                 "is float"));
  }
  SECTION("a failed scope gives its error") {
    ops::MatMul(root, x, ops::Const(root, 1));  // float x int32
    CHECK_THAT(AddSymbolicGradients(root, {y}, {x}, &grads),
               StatusIs(kInvalid, "same type"));
  }
}

TEST_CASE("a gradient into a complex tensor is Unimplemented") {
  Scope root = Scope::NewRootScope();
  const Output x = testing::Ph(root, "x", DT_COMPLEX64);
  std::vector<Output> grads;
  CHECK_THAT(AddSymbolicGradients(root, {ops::Square(root, x)}, {x}, &grads),
             StatusIs(absl::StatusCode::kUnimplemented,
                      "gradients of complex tensors are not supported"));
}

TEST_CASE("a GradientRegistry registers each op once") {
  GradientRegistry registry;
  CHECK_THAT(
      registry.Lookup("Foo").status(),
      StatusIs(absl::StatusCode::kNotFound, "No gradient defined for op: Foo"));
  REQUIRE_OK(registry.RegisterNoGradient("Foo"));
  auto fn = registry.Lookup("Foo");
  REQUIRE_OK(fn);
  CHECK(*fn == nullptr);
  CHECK_THAT(
      registry.Register(
          "Foo", [](const Scope&, const GradOp&, absl::Span<const Output>,
                    std::vector<Output>*) { return absl::OkStatus(); }),
      StatusIs(absl::StatusCode::kAlreadyExists, "op 'Foo'"));
  CHECK_THAT(registry.Register("Bar", nullptr),
             StatusIs(absl::StatusCode::kInvalidArgument, "null function"));
  // The global registry holds the standard gradients.
  REQUIRE_OK(GradientRegistry::Global()->Lookup("MatMul"));
  CHECK(*GradientRegistry::Global()->Lookup("MatMul") != nullptr);
  CHECK(*GradientRegistry::Global()->Lookup("StopGradient") == nullptr);
}

}  // namespace
}  // namespace dfx
