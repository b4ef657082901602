// Tests graph/builder/grad/math_grad.cc: every gradient function against
// central differences, run in a local session.
#include <functional>
#include <string>
#include <vector>

#include "catch2/catch.hpp"
#include "graph/builder/gradients.h"
#include "graph/builder/ops.h"
#include "tests/builder/grad_test_util.h"

namespace dfx {
namespace {

using testing::Ph;
using testing::Rand;
using testing::RequireGradient;

using UnaryFn = std::function<Output(const Scope&, const Output&)>;

// y = f(x) for x of shape [2, 3] with values in [lo, hi).
void CheckUnary(const UnaryFn& f, DataType dtype, double lo, double hi) {
  Scope root = Scope::NewRootScope();
  const Output x = Ph(root, "x", dtype);
  RequireGradient(root, {x}, {Rand(dtype, {2, 3}, 7, lo, hi)}, {f(root, x)});
}

TEST_CASE("gradient: unary math ops in float64") {
  struct Case {
    const char* name;
    UnaryFn fn;
    double lo, hi;
  };
  const Case cases[] = {
      {"Neg", ops::Neg, -2, 2},
      {"Square", ops::Square, -2, 2},
      {"Sqrt", ops::Sqrt, 0.5, 3},
      {"Rsqrt", ops::Rsqrt, 0.5, 3},
      {"Exp", ops::Exp, -1, 1},
      {"Log", ops::Log, 0.5, 3},
      {"Log1p", ops::Log1p, -0.5, 2},
      {"Abs (away from 0)", ops::Abs, 0.2, 2},
      {"Abs (negative)", ops::Abs, -2, -0.2},
      {"Reciprocal", ops::Reciprocal, 0.5, 2},
      {"Tanh", ops::Tanh, -2, 2},
      {"Sigmoid", ops::Sigmoid, -3, 3},
      {"Identity", ops::Identity, -1, 1},
  };
  for (const Case& c : cases) {
    SECTION(c.name) { CheckUnary(c.fn, DT_DOUBLE, c.lo, c.hi); }
  }
}

TEST_CASE("gradient: unary math ops in float32") {
  SECTION("Tanh") { CheckUnary(ops::Tanh, DT_FLOAT, -2, 2); }
  SECTION("Sigmoid") { CheckUnary(ops::Sigmoid, DT_FLOAT, -2, 2); }
  SECTION("Sqrt") { CheckUnary(ops::Sqrt, DT_FLOAT, 0.5, 2); }
  SECTION("Square") { CheckUnary(ops::Square, DT_FLOAT, -2, 2); }
}

using BinaryFn =
    std::function<Output(const Scope&, const Output&, const Output&)>;

// z = f(x, y) for the given shapes (broadcasting when they differ).
void CheckBinary(const BinaryFn& f, DataType dtype, const TensorShape& sx,
                 const TensorShape& sy, double lo, double hi, double ylo,
                 double yhi) {
  Scope root = Scope::NewRootScope();
  const Output x = Ph(root, "x", dtype);
  const Output y = Ph(root, "y", dtype);
  RequireGradient(root, {x, y},
                  {Rand(dtype, sx, 1, lo, hi), Rand(dtype, sy, 2, ylo, yhi)},
                  {f(root, x, y)});
}

TEST_CASE("gradient: binary math ops with broadcasting") {
  struct Case {
    const char* name;
    BinaryFn fn;
    double lo, hi, ylo, yhi;
  };
  const Case cases[] = {
      {"AddV2", ops::AddV2, -1, 1, -1, 1},
      {"Add", ops::Add, -1, 1, -1, 1},
      {"Sub", ops::Sub, -1, 1, -1, 1},
      {"Mul", ops::Mul, -1, 1, -1, 1},
      {"RealDiv", ops::RealDiv, -1, 1, 0.5, 2},
      {"Div", ops::Div, -1, 1, 0.5, 2},
      {"Pow", ops::Pow, 0.5, 2, -1.5, 1.5},
      // x and y drawn from disjoint ranges in both orders so that no
      // element sits at the kink.
      {"Maximum (x larger)", ops::Maximum, 1, 2, -1, 0},
      {"Maximum (y larger)", ops::Maximum, -1, 0, 1, 2},
      {"Minimum (x smaller)", ops::Minimum, -1, 0, 1, 2},
      {"Minimum (y smaller)", ops::Minimum, 1, 2, -1, 0},
      {"SquaredDifference", ops::SquaredDifference, -1, 1, -1, 1},
      {"FloorMod", ops::FloorMod, 0.1, 0.9, 1.5, 2.5},
  };
  struct Shapes {
    const char* name;
    TensorShape x, y;
  };
  const Shapes shapes[] = {
      {"same shape", {2, 3}, {2, 3}}, {"y a row", {2, 3}, {3}},
      {"x a column", {2, 1}, {2, 3}}, {"both broadcast", {2, 1, 3}, {4, 1}},
      {"y a scalar", {2, 3}, {}},
  };
  for (const Case& c : cases) {
    for (const Shapes& s : shapes) {
      SECTION(std::string(c.name) + ", " + s.name) {
        CheckBinary(c.fn, DT_DOUBLE, s.x, s.y, c.lo, c.hi, c.ylo, c.yhi);
      }
    }
  }
}

TEST_CASE("gradient: binary math ops in float32") {
  SECTION("Mul") { CheckBinary(ops::Mul, DT_FLOAT, {2, 3}, {3}, -1, 1, -1, 1); }
  SECTION("AddV2") {
    CheckBinary(ops::AddV2, DT_FLOAT, {2, 1}, {1, 3}, -1, 1, -1, 1);
  }
  SECTION("RealDiv") {
    CheckBinary(ops::RealDiv, DT_FLOAT, {2, 3}, {2, 3}, -1, 1, 0.5, 2);
  }
}

TEST_CASE("gradient: Pow at x <= 0 gives y no gradient, as TensorFlow") {
  Scope root = Scope::NewRootScope();
  const Output x = ops::Const(root, {-2.0, 0.0, 3.0});
  const Output y = ops::Const(root, {2.0, 2.0, 2.0});
  std::vector<Output> grads;
  REQUIRE_OK(
      AddSymbolicGradients(root, {ops::Pow(root, x, y)}, {x, y}, &grads));
  auto out = testing::RunScope(root, {}, grads);
  REQUIRE_OK(out);
  // d/dx x^2 = 2x; d/dy = x^2 log x where x > 0, else 0.
  CHECK(testing::GetAsDouble((*out)[0], 0) == -4.0);
  CHECK(testing::GetAsDouble((*out)[0], 1) == 0.0);
  CHECK(testing::GetAsDouble((*out)[0], 2) == 6.0);
  CHECK(testing::GetAsDouble((*out)[1], 0) == 0.0);
  CHECK(testing::GetAsDouble((*out)[1], 1) == 0.0);
  CHECK(testing::GetAsDouble((*out)[1], 2) == Approx(9 * std::log(3.0)));
}

TEST_CASE("gradient: Maximum sends a tie to x, as TensorFlow") {
  Scope root = Scope::NewRootScope();
  const Output x = ops::Const(root, {1.0, 2.0});
  const Output y = ops::Const(root, {1.0, 3.0});
  std::vector<Output> grads;
  REQUIRE_OK(
      AddSymbolicGradients(root, {ops::Maximum(root, x, y)}, {x, y}, &grads));
  auto out = testing::RunScope(root, {}, grads);
  REQUIRE_OK(out);
  CHECK(testing::GetAsDouble((*out)[0], 0) == 1.0);
  CHECK(testing::GetAsDouble((*out)[1], 0) == 0.0);
  CHECK(testing::GetAsDouble((*out)[0], 1) == 0.0);
  CHECK(testing::GetAsDouble((*out)[1], 1) == 1.0);
}

TEST_CASE("gradient: AddN") {
  Scope root = Scope::NewRootScope();
  const Output a = Ph(root, "a", DT_DOUBLE);
  const Output b = Ph(root, "b", DT_DOUBLE);
  const Output c = Ph(root, "c", DT_DOUBLE);
  const Output y = ops::AddN(root, {a, ops::Mul(root, b, c), a});
  RequireGradient(root, {a, b, c},
                  {Rand(DT_DOUBLE, {2, 2}, 1), Rand(DT_DOUBLE, {2, 2}, 2),
                   Rand(DT_DOUBLE, {2, 2}, 3)},
                  {y});
}

// A reduction over `axes` (int32 Const) of x with shape `shape`.
using ReduceFn =
    std::function<Output(const Scope&, const Output&, const Output&, bool)>;

void CheckReduction(const ReduceFn& f, DataType dtype, const TensorShape& shape,
                    const std::vector<int32_t>& axes, bool keep_dims,
                    bool scalar_axis = false) {
  Scope root = Scope::NewRootScope();
  const Output x = Ph(root, "x", dtype);
  const Output axis =
      scalar_axis ? ops::Const(root, axes.at(0)) : ops::Const(root, axes);
  // Distinct values: Max and Min have a unique choice per slice.
  RequireGradient(root, {x}, {Rand(dtype, shape, 11)},
                  {f(root, x, axis, keep_dims)});
}

TEST_CASE("gradient: Sum, Mean, Max and Min") {
  struct Case {
    const char* name;
    ReduceFn fn;
  };
  const Case cases[] = {{"Sum", ops::Sum},
                        {"Mean", ops::Mean},
                        {"Max", ops::Max},
                        {"Min", ops::Min}};
  for (const Case& c : cases) {
    for (bool keep : {false, true}) {
      const std::string kd = keep ? " keep_dims" : "";
      SECTION(std::string(c.name) + " axis 1" + kd) {
        CheckReduction(c.fn, DT_DOUBLE, {2, 3, 2}, {1}, keep);
      }
      SECTION(std::string(c.name) + " axes 0 and -1" + kd) {
        CheckReduction(c.fn, DT_DOUBLE, {2, 3, 2}, {0, -1}, keep);
      }
      SECTION(std::string(c.name) + " scalar axis -2" + kd) {
        CheckReduction(c.fn, DT_DOUBLE, {3, 4}, {-2}, keep, true);
      }
      SECTION(std::string(c.name) + " all axes" + kd) {
        CheckReduction(c.fn, DT_DOUBLE, {2, 3}, {0, 1}, keep);
      }
      SECTION(std::string(c.name) + " no axes" + kd) {
        CheckReduction(c.fn, DT_DOUBLE, {2, 3}, {}, keep);
      }
    }
  }
  SECTION("Sum float32") {
    CheckReduction(ops::Sum, DT_FLOAT, {3, 4}, {1}, false);
  }
  SECTION("Mean float32") {
    CheckReduction(ops::Mean, DT_FLOAT, {3, 4}, {0}, true);
  }
}

TEST_CASE("gradient: Sum with int64 axes") {
  Scope root = Scope::NewRootScope();
  const Output x = Ph(root, "x", DT_DOUBLE);
  const Output y =
      ops::Sum(root, x, ops::Const(root, std::vector<int64_t>{-1}));
  RequireGradient(root, {x}, {Rand(DT_DOUBLE, {2, 3}, 3)}, {y});
}

TEST_CASE("gradient: Max shares the gradient among ties") {
  Scope root = Scope::NewRootScope();
  const Output x = ops::Const(root, {{1.0, 3.0, 3.0}, {2.0, 2.0, 2.0}});
  const Output y = ops::Max(root, x, ops::Const(root, 1));
  std::vector<Output> grads;
  REQUIRE_OK(AddSymbolicGradients(root, {y}, {x}, &grads));
  auto out = testing::RunScope(root, {}, grads);
  REQUIRE_OK(out);
  const std::vector<double> want = {0, 0.5, 0.5, 1.0 / 3, 1.0 / 3, 1.0 / 3};
  for (int i = 0; i < 6; ++i) {
    CHECK(testing::GetAsDouble((*out)[0], i) == Approx(want[i]));
  }
}

TEST_CASE("gradient: MatMul with every transpose") {
  for (bool ta : {false, true}) {
    for (bool tb : {false, true}) {
      SECTION(std::string("transpose_a ") + (ta ? "1" : "0") + " transpose_b " +
              (tb ? "1" : "0")) {
        Scope root = Scope::NewRootScope();
        const Output a = Ph(root, "a", DT_DOUBLE);
        const Output b = Ph(root, "b", DT_DOUBLE);
        const Output y =
            ops::MatMul(root, a, b, {.transpose_a = ta, .transpose_b = tb});
        const TensorShape sa = ta ? TensorShape{3, 2} : TensorShape{2, 3};
        const TensorShape sb = tb ? TensorShape{4, 3} : TensorShape{3, 4};
        RequireGradient(root, {a, b},
                        {Rand(DT_DOUBLE, sa, 1), Rand(DT_DOUBLE, sb, 2)}, {y});
      }
    }
  }
  SECTION("float32") {
    Scope root = Scope::NewRootScope();
    const Output a = Ph(root, "a", DT_FLOAT);
    const Output b = Ph(root, "b", DT_FLOAT);
    RequireGradient(root, {a, b},
                    {Rand(DT_FLOAT, {2, 3}, 1), Rand(DT_FLOAT, {3, 2}, 2)},
                    {ops::MatMul(root, a, b)});
  }
}

TEST_CASE("gradient: BatchMatMulV2 with adjoints and broadcast batches") {
  struct Case {
    const char* name;
    TensorShape x, y;
    bool adj_x, adj_y;
  };
  const Case cases[] = {
      {"same batch", {2, 2, 3}, {2, 3, 4}, false, false},
      {"adj_x", {2, 3, 2}, {2, 3, 4}, true, false},
      {"adj_y", {2, 2, 3}, {2, 4, 3}, false, true},
      {"adj_x adj_y", {2, 3, 2}, {2, 4, 3}, true, true},
      {"x broadcast batch", {1, 2, 3}, {3, 3, 2}, false, false},
      {"y rank 2", {2, 2, 2, 3}, {3, 2}, false, false},
      {"both broadcast", {2, 1, 2, 3}, {1, 3, 2, 3}, false, true},
  };
  for (const Case& c : cases) {
    SECTION(c.name) {
      Scope root = Scope::NewRootScope();
      const Output x = Ph(root, "x", DT_DOUBLE);
      const Output y = Ph(root, "y", DT_DOUBLE);
      const Output z =
          ops::BatchMatMulV2(root, x, y, {.adj_x = c.adj_x, .adj_y = c.adj_y});
      RequireGradient(root, {x, y},
                      {Rand(DT_DOUBLE, c.x, 1), Rand(DT_DOUBLE, c.y, 2)}, {z});
    }
  }
}

TEST_CASE("gradient: Cast between floating-point types") {
  Scope root = Scope::NewRootScope();
  const Output x = Ph(root, "x", DT_FLOAT);
  const Output y = ops::Square(root, ops::Cast(root, x, DT_DOUBLE));
  RequireGradient(root, {x}, {Rand(DT_FLOAT, {2, 3}, 5)}, {y});
}

TEST_CASE("gradient: Cast to an integer type carries no gradient") {
  Scope root = Scope::NewRootScope();
  const Output x = ops::Const(root, {1.5, 2.5});
  const Output y = ops::Cast(root, ops::Cast(root, x, DT_INT32), DT_DOUBLE);
  std::vector<Output> grads;
  REQUIRE_OK(AddSymbolicGradients(root, {ops::AddV2(root, y, x)}, {x}, &grads));
  auto out = testing::RunScope(root, {}, grads);
  REQUIRE_OK(out);
  // Only the direct path contributes.
  CHECK(testing::GetAsDouble((*out)[0], 0) == 1.0);
  CHECK(testing::GetAsDouble((*out)[0], 1) == 1.0);
}

}  // namespace
}  // namespace dfx
