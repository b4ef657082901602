// Tests the gradient functions added for the rest of TensorFlow's ops that
// dfx runs (graph/builder/grad/*.cc): trigonometric and special functions,
// scans and products, Einsum, TopKV2, depthwise and transposed convolution,
// MirrorPad, the segment ops, GatherNd and the scatters, ReverseV2,
// DynamicStitch, and gradients of gradient ops -- each against central
// differences in a local session.
//
// Ops dfx runs that have a gradient in TensorFlow but none here yet (an
// AddSymbolicGradients through them fails with NotFound naming the op):
//   - the functional If/StatelessIf, Case/StatelessCase, While/
//     StatelessWhile (the gradient builder does not follow functions), and
//     loops nested in loops. Switch and Merge of conditionals have
//     gradients (grad/control_flow_grad.cc, tested in control_flow_test.cc),
//     and so do while loops (gradients.cc builds a loop's backprop loop as
//     a whole; tested in while_grad_test.cc);
//   - TensorList ops other than GetItem/SetItem/Stack/FromTensor (which,
//     with the TensorArray*V3 element ops, have gradients in
//     grad/data_flow_grad.cc, tested in data_flow_grad_test.cc),
//     OptionalFromValue/OptionalGetValue (variant-valued state);
//   - ReadVariableOp and ResourceGather: their input is a resource handle,
//     which carries no gradient in this builder; train::Optimizer
//     differentiates with respect to a variable's value instead and applies
//     sparse updates for variables read through a gather (train.h);
//   - gradients of FusedBatchNormGrad* (MaxPoolGrad, MaxPoolGradV2 and
//     MaxPoolGradGrad have theirs, checked against tf.gradients in
//     op_golden_test.cc).
// Einsum's gradient covers one or two operands without repeated labels
// within an operand (see EinsumGrad in math_grad.cc for the exact limits).
#include <cmath>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "catch2/catch.hpp"
#include "graph/builder/gradients.h"
#include "graph/builder/ops.h"
#include "tests/builder/grad_test_util.h"

namespace dfx {
namespace {

using testing::MakeTensor;
using testing::Ph;
using testing::Rand;
using testing::RequireGradient;

using UnaryFn = std::function<Output(const Scope&, const Output&)>;
using BinaryFn =
    std::function<Output(const Scope&, const Output&, const Output&)>;

// A node of an op the builder has no wrapper for, with type attrs `types`
// and int attrs `ints`; defaults fill in the rest.
Output RawNode(const Scope& scope, const std::string& op,
               const std::vector<Output>& inputs,
               const std::vector<std::pair<std::string, DataType>>& types,
               const std::vector<std::pair<std::string, int64_t>>& ints = {},
               DataType out = DT_DOUBLE) {
  NodeDef def;
  def.set_name(scope.GetUniqueNameForOp(op));
  def.set_op(op);
  for (const Output& in : inputs) def.add_input(in.ToString());
  for (const auto& [name, type] : types) {
    (*def.mutable_attr())[name].set_type(type);
  }
  for (const auto& [name, value] : ints) {
    (*def.mutable_attr())[name].set_i(value);
  }
  REQUIRE_OK(scope.AddNode(def));
  return Output(def.name(), 0, out);
}

TEST_CASE("gradient: trigonometric, hyperbolic and special functions") {
  struct Case {
    const char* name;
    UnaryFn fn;
    double lo, hi;
  };
  const Case cases[] = {
      {"Sin", ops::Sin, -3, 3},        {"Cos", ops::Cos, -3, 3},
      {"Tan", ops::Tan, -1.2, 1.2},    {"Asin", ops::Asin, -0.9, 0.9},
      {"Acos", ops::Acos, -0.9, 0.9},  {"Atan", ops::Atan, -3, 3},
      {"Sinh", ops::Sinh, -2, 2},      {"Cosh", ops::Cosh, -2, 2},
      {"Erf", ops::Erf, -2, 2},        {"Erfc", ops::Erfc, -2, 2},
      {"Expm1", ops::Expm1, -2, 2},    {"Inv", ops::Inv, 0.5, 2},
      {"Softsign", ops::Softsign, -3, 3},
  };
  for (const Case& c : cases) {
    for (DataType dtype : {DT_DOUBLE, DT_FLOAT}) {
      SECTION(std::string(c.name) + " " + DataTypeString(dtype)) {
        Scope root = Scope::NewRootScope();
        const Output x = Ph(root, "x", dtype);
        RequireGradient(root, {x}, {Rand(dtype, {2, 3}, 7, c.lo, c.hi)},
                        {c.fn(root, x)});
      }
    }
  }
}

TEST_CASE("gradient: Atan2, Xlogy, Xdivy, Xlog1py, DivNoNan, MulNoNan") {
  struct Case {
    const char* name;
    BinaryFn fn;
    double lo, hi, ylo, yhi;
  };
  const Case cases[] = {
      {"Atan2", ops::Atan2, -2, 2, 0.5, 2},
      {"Atan2 negative x", ops::Atan2, -2, 2, -2, -0.5},
      {"Xlogy", ops::Xlogy, -1, 1, 0.5, 2},
      {"Xdivy", ops::Xdivy, -1, 1, 0.5, 2},
      {"Xlog1py", ops::Xlog1py, -1, 1, -0.5, 2},
      {"DivNoNan", ops::DivNoNan, -1, 1, 0.5, 2},
      {"MulNoNan", ops::MulNoNan, -1, 1, -1, 1},
  };
  struct Shapes {
    const char* name;
    TensorShape x, y;
  };
  const Shapes shapes[] = {{"same shape", {2, 3}, {2, 3}},
                           {"y a row", {2, 3}, {3}},
                           {"x a column", {2, 1}, {2, 3}}};
  for (const Case& c : cases) {
    for (const Shapes& s : shapes) {
      SECTION(std::string(c.name) + ", " + s.name) {
        Scope root = Scope::NewRootScope();
        const Output x = Ph(root, "x", DT_DOUBLE);
        const Output y = Ph(root, "y", DT_DOUBLE);
        RequireGradient(root, {x, y},
                        {Rand(DT_DOUBLE, s.x, 1, c.lo, c.hi),
                         Rand(DT_DOUBLE, s.y, 2, c.ylo, c.yhi)},
                        {c.fn(root, x, y)});
      }
    }
  }
}

TEST_CASE("gradient: Xlogy gives x = 0 no gradient, DivNoNan y = 0 none") {
  Scope root = Scope::NewRootScope();
  const Output x = ops::Const(root, {0.0, 2.0});
  const Output y = ops::Const(root, {0.0, 0.0});
  std::vector<Output> grads;
  REQUIRE_OK(AddSymbolicGradients(
      root, {ops::AddV2(root, ops::Xlogy(root, x, ops::Const(root, {0.0, 3.0})),
                        ops::DivNoNan(root, x, y))},
      {x, y}, &grads));
  auto out = testing::RunScope(root, {}, grads);
  REQUIRE_OK(out);
  // d/dx xlogy(x, y) = log(y) where x != 0, else 0; DivNoNan adds nothing.
  CHECK(testing::GetAsDouble((*out)[0], 0) == 0.0);
  CHECK(testing::GetAsDouble((*out)[0], 1) == Approx(std::log(3.0)));
  CHECK(testing::GetAsDouble((*out)[1], 0) == 0.0);
  CHECK(testing::GetAsDouble((*out)[1], 1) == 0.0);
}

TEST_CASE("gradient: ClipByValue sends the gradient to the clipping bound") {
  Scope root = Scope::NewRootScope();
  const Output t = Ph(root, "t", DT_DOUBLE);
  const Output lo = Ph(root, "lo", DT_DOUBLE);
  const Output hi = Ph(root, "hi", DT_DOUBLE);
  // Every element at least 0.1 from a bound.
  const Tensor tv =
      MakeTensor(DT_DOUBLE, {2, 3}, {-1.0, 0.0, 1.0, 0.3, -0.8, 2.0});
  SECTION("scalar bounds") {
    RequireGradient(root, {t, lo, hi},
                    {tv, MakeTensor(DT_DOUBLE, {}, {-0.5}),
                     MakeTensor(DT_DOUBLE, {}, {0.6})},
                    {ops::ClipByValue(root, t, lo, hi)});
  }
  SECTION("bounds of t's shape") {
    RequireGradient(
        root, {t, lo, hi},
        {tv, MakeTensor(DT_DOUBLE, {2, 3}, {-0.5, -0.5, -0.5, 0.5, -0.5, 0.1}),
         MakeTensor(DT_DOUBLE, {2, 3}, {0.5, 0.5, 0.5, 0.9, 0.5, 1.5})},
        {ops::ClipByValue(root, t, lo, hi)});
  }
}

TEST_CASE("gradient: Cumsum and Cumprod in every direction") {
  for (bool exclusive : {false, true}) {
    for (bool reverse : {false, true}) {
      for (int axis : {0, 1, -1}) {
        const std::string name = std::string(exclusive ? "exclusive" : "") +
                                 (reverse ? " reverse" : "") + " axis " +
                                 std::to_string(axis);
        SECTION("Cumsum " + name) {
          Scope root = Scope::NewRootScope();
          const Output x = Ph(root, "x", DT_DOUBLE);
          RequireGradient(root, {x}, {Rand(DT_DOUBLE, {3, 4}, 3)},
                          {ops::Cumsum(root, x, ops::Const(root, axis),
                                       {exclusive, reverse})});
        }
        SECTION("Cumprod " + name) {
          Scope root = Scope::NewRootScope();
          const Output x = Ph(root, "x", DT_DOUBLE);
          RequireGradient(root, {x}, {Rand(DT_DOUBLE, {3, 4}, 3, 0.5, 1.5)},
                          {ops::Cumprod(root, x, ops::Const(root, axis),
                                        {exclusive, reverse})});
        }
      }
    }
  }
}

using ReduceFn =
    std::function<Output(const Scope&, const Output&, const Output&, bool)>;

TEST_CASE("gradient: Prod and EuclideanNorm") {
  struct Case {
    const char* name;
    ReduceFn fn;
  };
  const Case cases[] = {{"Prod", ops::Prod},
                        {"EuclideanNorm", ops::EuclideanNorm}};
  struct Axes {
    const char* name;
    std::vector<int32_t> axes;
  };
  const Axes axes[] = {{"axis 1", {1}},       {"axes 0 and 2", {0, 2}},
                       {"axis -1", {-1}},     {"axes 2 and 0", {2, 0}},
                       {"all axes", {0, 1, 2}}, {"no axes", {}}};
  for (const Case& c : cases) {
    for (const Axes& a : axes) {
      for (bool keep : {false, true}) {
        SECTION(std::string(c.name) + " " + a.name + (keep ? " keep" : "")) {
          Scope root = Scope::NewRootScope();
          const Output x = Ph(root, "x", DT_DOUBLE);
          RequireGradient(root, {x}, {Rand(DT_DOUBLE, {2, 3, 2}, 4, 0.5, 1.5)},
                          {c.fn(root, x, ops::Const(root, a.axes), keep)});
        }
      }
    }
  }
  SECTION("Prod with zeros: one and two in a slice") {
    Scope root = Scope::NewRootScope();
    const Output x = Ph(root, "x", DT_DOUBLE);
    const Tensor v = MakeTensor(DT_DOUBLE, {3, 3},
                                {0.0, 2.0, 3.0, 0.0, 0.0, 1.5, -1.0, 0.5, 2.0});
    RequireGradient(root, {x}, {v}, {ops::Prod(root, x, ops::Const(root, 1))});
  }
  SECTION("Prod float32 scalar axis") {
    Scope root = Scope::NewRootScope();
    const Output x = Ph(root, "x", DT_FLOAT);
    RequireGradient(root, {x}, {Rand(DT_FLOAT, {3, 4}, 4, 0.5, 1.5)},
                    {ops::Prod(root, x, ops::Const(root, 0))}, 5e-3);
  }
}

TEST_CASE("gradient: Einsum") {
  struct Case {
    const char* equation;
    std::vector<TensorShape> shapes;
  };
  const Case cases[] = {
      {"ij,jk->ik", {{2, 3}, {3, 4}}},
      {"bij,bjk->bik", {{2, 2, 3}, {2, 3, 2}}},
      {"ij,ij->", {{2, 3}, {2, 3}}},
      {"ij,kj->ikj", {{2, 3}, {4, 3}}},
      {"ij,jk->i", {{2, 3}, {3, 4}}},
      {"ij->ji", {{2, 3}}},
      {"ij->i", {{2, 3}}},
      {"...ij,...jk->...ik", {{2, 1, 2, 3}, {3, 3, 2}}},
      {"i,j->ij", {{3}, {2}}},
  };
  for (const Case& c : cases) {
    SECTION(c.equation) {
      Scope root = Scope::NewRootScope();
      std::vector<Output> xs;
      std::vector<Tensor> values;
      for (size_t i = 0; i < c.shapes.size(); ++i) {
        xs.push_back(Ph(root, "x" + std::to_string(i), DT_DOUBLE));
        values.push_back(Rand(DT_DOUBLE, c.shapes[i], 1 + i));
      }
      RequireGradient(root, xs, values, {ops::Einsum(root, xs, c.equation)});
    }
  }
  SECTION("a repeated label is Unimplemented, naming the equation") {
    Scope root = Scope::NewRootScope();
    const Output x = Ph(root, "x", DT_DOUBLE);
    std::vector<Output> grads;
    CHECK_THAT(AddSymbolicGradients(root, {ops::Einsum(root, {x}, "ii->i")},
                                    {x}, &grads),
               testing::StatusIs(absl::StatusCode::kUnimplemented,
                                 "gradient of Einsum 'ii->i'"));
  }
}

TEST_CASE("gradient: TopKV2") {
  struct Case {
    const char* name;
    TensorShape shape;
    int k;
  };
  const Case cases[] = {{"vector", {5}, 2},
                        {"matrix", {3, 5}, 3},
                        {"rank 3", {2, 2, 4}, 1},
                        {"k = n", {2, 3}, 3}};
  for (const Case& c : cases) {
    SECTION(c.name) {
      Scope root = Scope::NewRootScope();
      const Output x = Ph(root, "x", DT_DOUBLE);
      // Distinct values (a random draw): the top k are unambiguous.
      RequireGradient(root, {x}, {Rand(DT_DOUBLE, c.shape, 9)},
                      {ops::TopKV2(root, x, ops::Const(root, c.k)).values});
    }
  }
}

TEST_CASE("gradient: DepthwiseConv2dNative") {
  struct Case {
    const char* name;
    std::string padding;
    std::vector<int64_t> strides;
  };
  const Case cases[] = {{"VALID", "VALID", {1, 1, 1, 1}},
                        {"SAME stride 2", "SAME", {1, 2, 2, 1}}};
  for (const Case& c : cases) {
    SECTION(c.name) {
      Scope root = Scope::NewRootScope();
      const Output x = Ph(root, "x", DT_DOUBLE);
      const Output f = Ph(root, "f", DT_DOUBLE);
      ops::Conv2DAttrs attrs;
      attrs.padding = c.padding;
      attrs.strides = c.strides;
      RequireGradient(
          root, {x, f},
          {Rand(DT_DOUBLE, {1, 5, 5, 2}, 1), Rand(DT_DOUBLE, {3, 3, 2, 2}, 2)},
          {ops::DepthwiseConv2dNative(root, x, f, attrs)});
    }
  }
}

TEST_CASE("gradient: Conv2DBackpropInput and Conv2DBackpropFilter") {
  ops::Conv2DAttrs attrs;
  attrs.padding = "SAME";
  attrs.strides = {1, 2, 2, 1};
  SECTION("Conv2DBackpropInput (a transposed convolution)") {
    Scope root = Scope::NewRootScope();
    const Output f = Ph(root, "f", DT_DOUBLE);
    const Output dy = Ph(root, "dy", DT_DOUBLE);
    const Output y = ops::Conv2DBackpropInput(
        root, ops::Const(root, {1, 5, 5, 2}), f, dy, attrs);
    RequireGradient(
        root, {f, dy},
        {Rand(DT_DOUBLE, {3, 3, 2, 3}, 1), Rand(DT_DOUBLE, {1, 3, 3, 3}, 2)},
        {y});
  }
  SECTION("Conv2DBackpropFilter") {
    Scope root = Scope::NewRootScope();
    const Output x = Ph(root, "x", DT_DOUBLE);
    const Output dy = Ph(root, "dy", DT_DOUBLE);
    const Output y = ops::Conv2DBackpropFilter(
        root, x, ops::Const(root, {3, 3, 2, 3}), dy, attrs);
    RequireGradient(
        root, {x, dy},
        {Rand(DT_DOUBLE, {1, 5, 5, 2}, 1), Rand(DT_DOUBLE, {1, 3, 3, 3}, 2)},
        {y});
  }
}

TEST_CASE("gradient: MirrorPad, MirrorPadGrad and PadV2") {
  for (const char* mode : {"REFLECT", "SYMMETRIC"}) {
    SECTION(std::string("MirrorPad ") + mode) {
      Scope root = Scope::NewRootScope();
      const Output x = Ph(root, "x", DT_DOUBLE);
      RequireGradient(
          root, {x}, {Rand(DT_DOUBLE, {3, 4}, 1)},
          {ops::MirrorPad(root, x, ops::Const(root, {{1, 2}, {2, 1}}), mode)});
    }
    SECTION(std::string("MirrorPadGrad ") + mode) {
      Scope root = Scope::NewRootScope();
      const Output x = Ph(root, "x", DT_DOUBLE);
      RequireGradient(root, {x}, {Rand(DT_DOUBLE, {6, 7}, 1)},
                      {ops::MirrorPadGrad(
                          root, x, ops::Const(root, {{1, 2}, {2, 1}}), mode)});
    }
  }
  SECTION("PadV2 with a constant") {
    Scope root = Scope::NewRootScope();
    const Output x = Ph(root, "x", DT_DOUBLE);
    RequireGradient(root, {x}, {Rand(DT_DOUBLE, {2, 3}, 1)},
                    {ops::PadV2(root, x, ops::Const(root, {{1, 0}, {0, 2}}),
                                ops::Const(root, 3.0))});
  }
}

TEST_CASE("gradient: segment reductions") {
  Scope root = Scope::NewRootScope();
  const Output x = Ph(root, "x", DT_DOUBLE);
  // Segment 2 is empty.
  const Output sorted = ops::Const(root, {0, 0, 1, 3, 3});
  const Output unsorted = ops::Const(root, {2, 0, -1, 2, 0});
  const Output num = ops::Const(root, 4);
  const Tensor value = Rand(DT_DOUBLE, {5, 3}, 2, 0.5, 1.5);
  SECTION("SegmentSum") {
    RequireGradient(root, {x}, {value}, {ops::SegmentSum(root, x, sorted)});
  }
  SECTION("SegmentMean") {
    RequireGradient(root, {x}, {value}, {ops::SegmentMean(root, x, sorted)});
  }
  SECTION("UnsortedSegmentSum drops negative ids") {
    RequireGradient(root, {x}, {value},
                    {ops::UnsortedSegmentSum(root, x, unsorted, num)});
  }
  SECTION("UnsortedSegmentSum of a matrix of ids") {
    RequireGradient(root, {x}, {Rand(DT_DOUBLE, {2, 3, 2}, 2)},
                    {ops::UnsortedSegmentSum(
                        root, x, ops::Const(root, {{0, 1, 0}, {-1, 2, 2}}),
                        num)});
  }
  SECTION("UnsortedSegmentMax") {
    RequireGradient(root, {x}, {value},
                    {ops::UnsortedSegmentMax(root, x, unsorted, num)});
  }
  SECTION("UnsortedSegmentMin") {
    RequireGradient(root, {x}, {value},
                    {ops::UnsortedSegmentMin(root, x, unsorted, num)});
  }
  SECTION("UnsortedSegmentProd") {
    RequireGradient(root, {x}, {value},
                    {ops::UnsortedSegmentProd(root, x, unsorted, num)});
  }
  SECTION("UnsortedSegmentProd with zeros: one and two in a segment") {
    const Tensor zeros = MakeTensor(
        DT_DOUBLE, {5, 1}, {0.0, 2.0, 5.0, 1.5, 0.0});
    RequireGradient(root, {x}, {zeros},
                    {ops::UnsortedSegmentProd(
                        root, x, ops::Const(root, {0, 1, 1, 0, 1}),
                        ops::Const(root, 2))});
    RequireGradient(root, {x}, {zeros},
                    {ops::UnsortedSegmentProd(
                        root, x, ops::Const(root, {0, 1, 1, 1, 0}),
                        ops::Const(root, 2))});
  }
}

TEST_CASE("gradient: UnsortedSegmentMax shares the gradient among ties") {
  Scope root = Scope::NewRootScope();
  const Output x = ops::Const(root, {3.0, 3.0, 1.0, 2.0});
  std::vector<Output> grads;
  REQUIRE_OK(AddSymbolicGradients(
      root,
      {ops::UnsortedSegmentMax(root, x, ops::Const(root, {0, 0, 0, 1}),
                               ops::Const(root, 2))},
      {x}, &grads));
  auto out = testing::RunScope(root, {}, grads);
  REQUIRE_OK(out);
  const std::vector<double> want = {0.5, 0.5, 0.0, 1.0};
  for (int i = 0; i < 4; ++i) {
    CHECK(testing::GetAsDouble((*out)[0], i) == Approx(want[i]));
  }
}

TEST_CASE("gradient: GatherNd, ScatterNd, TensorScatterAdd/Update") {
  Scope root = Scope::NewRootScope();
  const Output x = Ph(root, "x", DT_DOUBLE);
  const Output u = Ph(root, "u", DT_DOUBLE);
  SECTION("GatherNd of elements, one twice") {
    RequireGradient(
        root, {x}, {Rand(DT_DOUBLE, {3, 4}, 1)},
        {ops::GatherNd(root, x, ops::Const(root, {{0, 1}, {2, 3}, {0, 1}}))});
  }
  SECTION("GatherNd of rows") {
    RequireGradient(root, {x}, {Rand(DT_DOUBLE, {3, 4}, 1)},
                    {ops::GatherNd(root, x, ops::Const(root, {{2}, {0}}))});
  }
  SECTION("ScatterNd") {
    RequireGradient(root, {u}, {Rand(DT_DOUBLE, {3}, 2)},
                    {ops::ScatterNd(root, ops::Const(root, {{1}, {3}, {1}}), u,
                                    ops::Const(root, {5}))});
  }
  const Output indices = ops::Const(root, {{0, 1}, {2, 0}});
  SECTION("TensorScatterAdd") {
    RequireGradient(
        root, {x, u}, {Rand(DT_DOUBLE, {3, 2}, 1), Rand(DT_DOUBLE, {2}, 2)},
        {ops::TensorScatterAdd(root, x, indices, u)});
  }
  SECTION("TensorScatterUpdate") {
    RequireGradient(
        root, {x, u}, {Rand(DT_DOUBLE, {3, 2}, 1), Rand(DT_DOUBLE, {2}, 2)},
        {ops::TensorScatterUpdate(root, x, indices, u)});
  }
}

TEST_CASE("gradient: ReverseV2 and DynamicStitch") {
  Scope root = Scope::NewRootScope();
  const Output x = Ph(root, "x", DT_DOUBLE);
  const Output y = Ph(root, "y", DT_DOUBLE);
  SECTION("ReverseV2 one axis") {
    RequireGradient(root, {x}, {Rand(DT_DOUBLE, {2, 3}, 1)},
                    {ops::Mul(root, ops::ReverseV2(root, x, ops::Const(root, {1})),
                              ops::Const(root, {1.0, 2.0, 3.0}))});
  }
  SECTION("ReverseV2 two axes") {
    RequireGradient(
        root, {x}, {Rand(DT_DOUBLE, {2, 3, 2}, 1)},
        {ops::Square(root, ops::ReverseV2(root, x, ops::Const(root, {0, -1})))});
  }
  SECTION("DynamicStitch") {
    RequireGradient(
        root, {x, y}, {Rand(DT_DOUBLE, {2, 3}, 1), Rand(DT_DOUBLE, {2, 3}, 2)},
        {ops::Square(root, ops::DynamicStitch(root,
                                              {ops::Const(root, {0, 2}),
                                               ops::Const(root, {1, 3})},
                                              {x, y}))});
  }
  SECTION("ParallelDynamicStitch") {
    const Output s = RawNode(
        root, "ParallelDynamicStitch",
        {ops::Const(root, {3, 0}), ops::Const(root, {1, 2}), x, y},
        {{"T", DT_DOUBLE}}, {{"N", 2}});
    RequireGradient(root, {x, y},
                    {Rand(DT_DOUBLE, {2, 3}, 1), Rand(DT_DOUBLE, {2, 3}, 2)},
                    {ops::Square(root, s)});
  }
}

TEST_CASE("gradient: BatchMatMul, BatchMatMulV3, IdentityN, CheckNumerics") {
  Scope root = Scope::NewRootScope();
  const Output x = Ph(root, "x", DT_DOUBLE);
  const Output y = Ph(root, "y", DT_DOUBLE);
  const std::vector<Tensor> values = {Rand(DT_DOUBLE, {2, 2, 3}, 1),
                                      Rand(DT_DOUBLE, {2, 3, 4}, 2)};
  SECTION("BatchMatMul") {
    RequireGradient(root, {x, y}, values,
                    {RawNode(root, "BatchMatMul", {x, y}, {{"T", DT_DOUBLE}})});
  }
  SECTION("BatchMatMulV3") {
    RequireGradient(root, {x, y}, values,
                    {RawNode(root, "BatchMatMulV3", {x, y},
                             {{"Ta", DT_DOUBLE},
                              {"Tb", DT_DOUBLE},
                              {"Tout", DT_DOUBLE}})});
  }
  SECTION("IdentityN and CheckNumerics pass the gradient through") {
    NodeDef def;
    def.set_name("idn");
    def.set_op("IdentityN");
    def.add_input(x.ToString());
    def.add_input(y.ToString());
    auto* types = (*def.mutable_attr())["T"].mutable_list();
    types->add_type(DT_DOUBLE);
    types->add_type(DT_DOUBLE);
    REQUIRE_OK(root.AddNode(def));
    NodeDef check;
    check.set_name("check");
    check.set_op("CheckNumerics");
    check.add_input("idn:1");
    (*check.mutable_attr())["T"].set_type(DT_DOUBLE);
    (*check.mutable_attr())["message"].set_s("y");
    REQUIRE_OK(root.AddNode(check));
    const Output checked("check", 0, DT_DOUBLE);
    RequireGradient(root, {x, y}, values,
                    {ops::Square(root, Output("idn", 0, DT_DOUBLE)),
                     ops::Square(root, checked)});
  }
}

TEST_CASE("gradient: gradients of gradient ops") {
  Scope root = Scope::NewRootScope();
  const Output a = Ph(root, "a", DT_DOUBLE);
  const Output b = Ph(root, "b", DT_DOUBLE);
  // Features away from the kinks at 0 and 6.
  const Tensor features =
      MakeTensor(DT_DOUBLE, {2, 3}, {-1.0, 0.5, 2.0, 7.0, -0.3, 5.5});
  const Tensor grads = Rand(DT_DOUBLE, {2, 3}, 4);
  SECTION("ReluGrad") {
    RequireGradient(root, {a, b}, {grads, features},
                    {ops::ReluGrad(root, a, b)});
  }
  SECTION("Relu6Grad") {
    RequireGradient(root, {a, b}, {grads, features},
                    {ops::Relu6Grad(root, a, b)});
  }
  SECTION("LeakyReluGrad") {
    RequireGradient(root, {a, b}, {grads, features},
                    {ops::LeakyReluGrad(root, a, b, 0.3f)});
  }
  SECTION("TanhGrad") {
    RequireGradient(root, {a, b}, {Rand(DT_DOUBLE, {2, 3}, 5), grads},
                    {ops::TanhGrad(root, a, b)});
  }
  SECTION("SigmoidGrad") {
    RequireGradient(root, {a, b}, {Rand(DT_DOUBLE, {2, 3}, 5, 0, 1), grads},
                    {ops::SigmoidGrad(root, a, b)});
  }
  SECTION("BiasAddGrad NHWC") {
    RequireGradient(root, {a}, {Rand(DT_DOUBLE, {2, 2, 3}, 5)},
                    {ops::BiasAddGrad(root, a, "NHWC")});
  }
  SECTION("BiasAddGrad NCHW") {
    RequireGradient(root, {a}, {Rand(DT_DOUBLE, {2, 3, 2, 2}, 5)},
                    {ops::BiasAddGrad(root, a, "NCHW")});
  }
  SECTION("AvgPoolGrad") {
    ops::PoolAttrs attrs;
    attrs.ksize = {1, 2, 2, 1};
    attrs.strides = {1, 2, 2, 1};
    attrs.padding = "SAME";
    RequireGradient(root, {a}, {Rand(DT_DOUBLE, {1, 2, 2, 2}, 5)},
                    {ops::AvgPoolGrad(root, ops::Const(root, {1, 3, 3, 2}), a,
                                      attrs)});
  }
  SECTION("StridedSliceGrad") {
    RequireGradient(root, {a}, {Rand(DT_DOUBLE, {2, 2}, 5)},
                    {ops::StridedSliceGrad(
                        root, ops::Const(root, {4, 3}), ops::Const(root, {0, 1}),
                        ops::Const(root, {4, 3}), ops::Const(root, {2, 1}), a)});
  }
}

TEST_CASE("gradient: more gradients of gradient ops") {
  Scope root = Scope::NewRootScope();
  const Output a = Ph(root, "a", DT_DOUBLE);
  const Output b = Ph(root, "b", DT_DOUBLE);
  const Tensor positive = Rand(DT_DOUBLE, {2, 3}, 5, 0.5, 2);
  const Tensor grads = Rand(DT_DOUBLE, {2, 3}, 4);
  // Elu/Selu outputs, away from the kink at 0.
  const Tensor outputs =
      MakeTensor(DT_DOUBLE, {2, 3}, {-0.8, -0.3, 0.4, 1.5, -0.05, 2.0});
  SECTION("SqrtGrad") {
    RequireGradient(root, {a, b}, {positive, grads},
                    {ops::SqrtGrad(root, a, b)});
  }
  SECTION("RsqrtGrad") {
    RequireGradient(root, {a, b}, {positive, grads},
                    {ops::RsqrtGrad(root, a, b)});
  }
  SECTION("ReciprocalGrad") {
    RequireGradient(root, {a, b}, {positive, grads},
                    {ops::ReciprocalGrad(root, a, b)});
  }
  SECTION("InvGrad") {
    RequireGradient(root, {a, b}, {positive, grads},
                    {ops::InvGrad(root, a, b)});
  }
  SECTION("EluGrad") {
    RequireGradient(root, {a, b}, {grads, outputs},
                    {ops::EluGrad(root, a, b)});
  }
  SECTION("SeluGrad") {
    RequireGradient(root, {a, b}, {grads, outputs},
                    {ops::SeluGrad(root, a, b)});
  }
  SECTION("SoftplusGrad") {
    RequireGradient(root, {a, b}, {grads, Rand(DT_DOUBLE, {2, 3}, 6, -2, 2)},
                    {ops::SoftplusGrad(root, a, b)});
  }
}

TEST_CASE("gradient: LRN, MaxPoolV2, DynamicPartition") {
  SECTION("LRN") {
    Scope root = Scope::NewRootScope();
    const Output x = Ph(root, "x", DT_FLOAT);
    ops::LrnAttrs attrs;
    attrs.depth_radius = 2;
    attrs.alpha = 0.5f;
    attrs.beta = 0.75f;
    RequireGradient(root, {x}, {Rand(DT_FLOAT, {1, 2, 2, 6}, 3)},
                    {ops::LRN(root, x, attrs)}, 2e-3);
  }
  SECTION("MaxPoolV2") {
    Scope root = Scope::NewRootScope();
    const Output x = Ph(root, "x", DT_FLOAT);
    ops::PoolAttrs attrs;
    attrs.padding = "VALID";
    // Distinct values: every window has one maximum.
    RequireGradient(root, {x}, {Rand(DT_FLOAT, {1, 4, 4, 2}, 3)},
                    {ops::MaxPoolV2(root, x, ops::Const(root, {1, 2, 2, 1}),
                                    ops::Const(root, {1, 2, 2, 1}), attrs)});
  }
  SECTION("DynamicPartition, one piece unused") {
    Scope root = Scope::NewRootScope();
    const Output x = Ph(root, "x", DT_DOUBLE);
    std::vector<Output> pieces = ops::DynamicPartition(
        root, x, ops::Const(root, {0, 2, 1, 0, 2}), 3);
    REQUIRE(pieces.size() == 3);
    RequireGradient(root, {x}, {Rand(DT_DOUBLE, {5, 2}, 3)},
                    {ops::Square(root, pieces[0]),
                     ops::Mul(root, pieces[2], ops::Const(root, 3.0))});
  }
}

TEST_CASE("gradient: depthwise backprops") {
  ops::Conv2DAttrs attrs;
  attrs.padding = "SAME";
  attrs.strides = {1, 2, 2, 1};
  SECTION("DepthwiseConv2dNativeBackpropInput") {
    Scope root = Scope::NewRootScope();
    const Output f = Ph(root, "f", DT_DOUBLE);
    const Output dy = Ph(root, "dy", DT_DOUBLE);
    RequireGradient(
        root, {f, dy},
        {Rand(DT_DOUBLE, {3, 3, 2, 2}, 1), Rand(DT_DOUBLE, {1, 3, 3, 4}, 2)},
        {ops::DepthwiseConv2dNativeBackpropInput(
            root, ops::Const(root, {1, 5, 5, 2}), f, dy, attrs)});
  }
  SECTION("DepthwiseConv2dNativeBackpropFilter") {
    Scope root = Scope::NewRootScope();
    const Output x = Ph(root, "x", DT_DOUBLE);
    const Output dy = Ph(root, "dy", DT_DOUBLE);
    RequireGradient(
        root, {x, dy},
        {Rand(DT_DOUBLE, {1, 5, 5, 2}, 1), Rand(DT_DOUBLE, {1, 3, 3, 4}, 2)},
        {ops::DepthwiseConv2dNativeBackpropFilter(
            root, x, ops::Const(root, {3, 3, 2, 2}), dy, attrs)});
  }
}

TEST_CASE("gradient: FusedBatchNorm and FusedBatchNormV2") {
  for (const char* op : {"FusedBatchNorm", "FusedBatchNormV2"}) {
    for (bool training : {true, false}) {
      SECTION(std::string(op) + (training ? " training" : " inference")) {
        Scope root = Scope::NewRootScope();
        const Output x = Ph(root, "x", DT_FLOAT);
        const Output scale = Ph(root, "scale", DT_FLOAT);
        const Output offset = Ph(root, "offset", DT_FLOAT);
        const Output mean =
            training ? ops::Const(root, std::vector<float>{})
                     : ops::Const(root, {0.1f, -0.2f, 0.3f});
        const Output variance =
            training ? ops::Const(root, std::vector<float>{})
                     : ops::Const(root, {1.5f, 0.5f, 2.0f});
        NodeDef def;
        def.set_name("bn");
        def.set_op(op);
        for (const Output& in : {x, scale, offset, mean, variance}) {
          def.add_input(in.ToString());
        }
        (*def.mutable_attr())["T"].set_type(DT_FLOAT);
        if (std::string(op) == "FusedBatchNormV2") {
          (*def.mutable_attr())["U"].set_type(DT_FLOAT);
        }
        (*def.mutable_attr())["epsilon"].set_f(0.001f);
        (*def.mutable_attr())["is_training"].set_b(training);
        REQUIRE_OK(root.AddNode(def));
        RequireGradient(
            root, {x, scale, offset},
            {Rand(DT_FLOAT, {2, 2, 2, 3}, 1, -2, 2),
             Rand(DT_FLOAT, {3}, 2, 0.5, 1.5), Rand(DT_FLOAT, {3}, 3)},
            {Output("bn", 0, DT_FLOAT)}, 1e-3);
      }
    }
  }
}

}  // namespace
}  // namespace dfx
