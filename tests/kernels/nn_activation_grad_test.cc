// The activation gradient kernels (ReluGrad, Relu6Grad, EluGrad, SeluGrad,
// SoftplusGrad, SoftsignGrad, LeakyReluGrad) and BiasAddGrad, with their
// shape functions.
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "catch2/catch.hpp"
#include "graph/node_def_util.h"
#include "graph/op_registry.h"
#include "runtime/tensor.h"
#include "tests/kernels/kernel_test_util.h"
#include "tests/kernels/math_test_util.h"
#include "tests/testing/status_matchers.h"

namespace dfx {
namespace {

using testing::MakeTensor;
using testing::MakeVector;
using testing::RunError;
using testing::RunOne;
using testing::StatusIs;
using testing::TestNodeBuilder;
using testing::TypedNode;
using testing::Values;

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

template <typename T>
std::vector<double> AsDoubles(const Tensor& t) {
  std::vector<double> out;
  for (const T& v : t.span<T>()) out.push_back(static_cast<double>(v));
  return out;
}

template <typename T>
Tensor FromDoubles(const std::vector<double>& values) {
  std::vector<T> v;
  for (double d : values) v.push_back(static_cast<T>(d));
  return Tensor::FromVector<T>(v);
}

// Runs gradient op `op` on (g, x) in T and checks each output against
// want(g, x), both rounded to T first, within `tol` relative (with the same
// absolute floor). NaN must match NaN.
template <typename T, typename Fn>
void CheckGrad(const NodeDef& node, const std::vector<double>& g,
               const std::vector<double>& x, Fn want, double tol) {
  INFO(node.op() << " " << DataTypeString(DataTypeToEnum<T>::value));
  const Tensor gt = FromDoubles<T>(g);
  const Tensor xt = FromDoubles<T>(x);
  const std::vector<double> got = AsDoubles<T>(RunOne(node, {gt, xt}));
  const std::vector<double> gr = AsDoubles<T>(gt);
  const std::vector<double> xr = AsDoubles<T>(xt);
  for (size_t i = 0; i < g.size(); ++i) {
    const double w = want(gr[i], xr[i]);
    INFO("g = " << gr[i] << " x = " << xr[i] << " got " << got[i] << " want "
                << w);
    if (std::isnan(w)) {
      REQUIRE(std::isnan(got[i]));
    } else {
      REQUIRE(std::abs(got[i] - w) <= tol * (1 + std::abs(w)));
    }
  }
}

template <typename Fn>
void CheckGradAllFloats(const std::string& op, const std::vector<double>& g,
                        const std::vector<double>& x, Fn want) {
  CheckGrad<float>(TypedNode("g", op, DT_FLOAT, 2).Build(), g, x, want, 2e-6);
  CheckGrad<double>(TypedNode("g", op, DT_DOUBLE, 2).Build(), g, x, want,
                    1e-13);
  CheckGrad<Eigen::half>(TypedNode("g", op, DT_HALF, 2).Build(), g, x, want,
                         3e-3);
  CheckGrad<Eigen::bfloat16>(TypedNode("g", op, DT_BFLOAT16, 2).Build(), g, x,
                             want, 2e-2);
}

const std::vector<double> kX = {-kInf, -20, -6, -1, -0.25, 0, 0.5,
                                2,     5.5, 6,  7,  40,    kInf};
const std::vector<double> kG = {1.5, -2, 0.5, 3,  -1, 2,  1,
                                -4,  2,  1,   -1, 3,  0.25};

TEST_CASE("ReluGrad and Relu6Grad pass the gradient inside the open range") {
  CheckGradAllFloats("ReluGrad", kG, kX,
                     [](double g, double x) { return x > 0 ? g : 0.0; });
  CheckGradAllFloats("Relu6Grad", kG, kX, [](double g, double x) {
    return x > 0 && x < 6 ? g : 0.0;
  });
  // A NaN gradient stays NaN even where the mask is 0 (a product, as TF).
  const Tensor out = RunOne(TypedNode("g", "ReluGrad", DT_FLOAT, 2).Build(),
                            {MakeVector<float>({NAN, NAN}),
                             MakeVector<float>({-1, 1})});
  REQUIRE(std::isnan(out.data<float>()[0]));
  REQUIRE(std::isnan(out.data<float>()[1]));
  // Integers.
  REQUIRE(Values<int32_t>(RunOne(
              TypedNode("g", "ReluGrad", DT_INT32, 2).Build(),
              {MakeVector<int32_t>({5, 6, 7}), MakeVector<int32_t>({-1, 0, 2})})) ==
          std::vector<int32_t>{0, 0, 7});
  REQUIRE(Values<int64_t>(RunOne(
              TypedNode("g", "Relu6Grad", DT_INT64, 2).Build(),
              {MakeVector<int64_t>({5, 6, 7}), MakeVector<int64_t>({3, 6, 2})})) ==
          std::vector<int64_t>{5, 0, 7});
}

TEST_CASE("EluGrad and SeluGrad work from the activation's output") {
  // The output of Elu lies in (-1, inf).
  const std::vector<double> y = {-0.999, -0.5, -0.01, 0, 0.5, 3, 100};
  const std::vector<double> g = {2, -1, 3, 1.5, -2, 0.5, 1};
  CheckGradAllFloats("EluGrad", g, y, [](double g, double y) {
    return y < 0 ? g * (y + 1) : g;
  });
  const double scale = 1.0507009873554804934193349852946;
  const double scale_alpha = 1.7580993408473768599402175208123;
  const std::vector<double> ys = {-1.75, -1, -0.01, 0, 0.5, 3, 100};
  CheckGradAllFloats("SeluGrad", g, ys, [&](double g, double y) {
    return y < 0 ? g * (y + scale_alpha) : g * scale;
  });
}

TEST_CASE("SoftplusGrad and SoftsignGrad match their derivatives") {
  CheckGradAllFloats("SoftplusGrad", kG, kX, [](double g, double x) {
    return g / (std::exp(-x) + 1);
  });
  CheckGradAllFloats("SoftsignGrad", kG, kX, [](double g, double x) {
    const double d = std::abs(x) + 1;
    return g / (d * d);
  });
}

TEST_CASE("LeakyReluGrad scales the gradient by alpha below zero") {
  for (float alpha : {0.2f, 3.0f, -0.5f}) {
    INFO("alpha " << alpha);
    const NodeDef node = TypedNode("g", "LeakyReluGrad", DT_FLOAT, 2)
                             .Attr("alpha", alpha)
                             .Build();
    CheckGrad<float>(node, kG, kX,
                     [alpha](double g, double x) {
                       return x > 0 ? g : g * static_cast<double>(alpha);
                     },
                     1e-6);
  }
  const NodeDef half = TypedNode("g", "LeakyReluGrad", DT_HALF, 2).Build();
  CheckGrad<Eigen::half>(half, kG, kX,
                         [](double g, double x) { return x > 0 ? g : g * 0.2; },
                         2e-3);
}

TEST_CASE("Packet gradients are right at every length and across threads") {
  // The packet loops (8 floats, 4 doubles) finish a length that is not a
  // multiple of the packet through a padded packet; 100003 runs on the pool.
  std::mt19937 rng(17);
  std::uniform_real_distribution<double> dist(-3, 3);
  for (int64_t n : {1, 2, 3, 5, 7, 8, 9, 15, 16, 17, 31, 100003}) {
    INFO("n = " << n);
    std::vector<double> g(n), x(n);
    for (int64_t i = 0; i < n; ++i) {
      g[i] = dist(rng);
      x[i] = dist(rng);
    }
    auto relu = [](double g, double x) { return x > 0 ? g : 0.0; };
    auto elu = [](double g, double y) { return y < 0 ? g * (y + 1) : g; };
    CheckGrad<float>(TypedNode("g", "ReluGrad", DT_FLOAT, 2).Build(), g, x,
                     relu, 0);
    CheckGrad<double>(TypedNode("g", "ReluGrad", DT_DOUBLE, 2).Build(), g, x,
                      relu, 0);
    CheckGrad<Eigen::half>(TypedNode("g", "ReluGrad", DT_HALF, 2).Build(), g,
                           x, relu, 0);
    CheckGrad<float>(TypedNode("g", "Relu6Grad", DT_FLOAT, 2).Build(), g, x,
                     [](double g, double x) {
                       return x > 0 && x < 6 ? g : 0.0;
                     },
                     0);
    CheckGrad<float>(TypedNode("g", "EluGrad", DT_FLOAT, 2).Build(), g, x,
                     elu, 2e-7);
    CheckGrad<double>(TypedNode("g", "EluGrad", DT_DOUBLE, 2).Build(), g, x,
                      elu, 1e-15);
    CheckGrad<Eigen::bfloat16>(
        TypedNode("g", "EluGrad", DT_BFLOAT16, 2).Build(), g, x, elu, 8e-3);
  }
}

TEST_CASE("Gradient ops reject inputs of different shapes as TensorFlow") {
  const Tensor g = Tensor(DT_FLOAT, TensorShape({2, 3}));
  const Tensor x = Tensor(DT_FLOAT, TensorShape({3, 2}));
  for (const char* op : {"ReluGrad", "Relu6Grad", "EluGrad", "SeluGrad",
                         "SoftplusGrad", "SoftsignGrad", "LeakyReluGrad"}) {
    INFO(op);
    REQUIRE_THAT(
        RunError(TypedNode("grad", op, DT_FLOAT, 2).Build(), {g, x}),
        StatusIs(absl::StatusCode::kInvalidArgument,
                 std::string("Inputs to operation grad of type ") + op +
                     " must have the same size and shape.  Input 0: [2,3] "
                     "!= input 1: [3,2]"));
  }
  // Empty inputs of equal shape are fine.
  const Tensor e = Tensor(DT_FLOAT, TensorShape({0, 4}));
  REQUIRE(RunOne(TypedNode("g", "EluGrad", DT_FLOAT, 2).Build(), {e, e})
              .shape() == TensorShape({0, 4}));
}

NodeDef BiasAddGradNode(DataType dtype, const char* format) {
  return TypedNode("bg", "BiasAddGrad", dtype, 1)
      .Attr("data_format", format)
      .Build();
}

TEST_CASE("BiasAddGrad sums all but the channel dim") {
  const Tensor x = MakeTensor<float>({1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12},
                                     TensorShape({2, 3, 2}));
  // NHWC: channels are the last dim (2).
  REQUIRE(Values<float>(RunOne(BiasAddGradNode(DT_FLOAT, "NHWC"), {x})) ==
          std::vector<float>{36, 42});
  // NCHW: channels are dim 1 (3).
  REQUIRE(Values<float>(RunOne(BiasAddGradNode(DT_FLOAT, "NCHW"), {x})) ==
          std::vector<float>{1 + 2 + 7 + 8, 3 + 4 + 9 + 10, 5 + 6 + 11 + 12});
  // The default format is NHWC; integers sum in their own type.
  const Tensor xi = MakeTensor<int32_t>({1, 2, 3, 4}, TensorShape({2, 2}));
  REQUIRE(Values<int32_t>(RunOne(
              TypedNode("bg", "BiasAddGrad", DT_INT32, 1).Build(), {xi})) ==
          std::vector<int32_t>{4, 6});
  // No rows: zeros.
  REQUIRE(Values<double>(RunOne(BiasAddGradNode(DT_DOUBLE, "NHWC"),
                                {Tensor(DT_DOUBLE, TensorShape({0, 3}))})) ==
          std::vector<double>{0, 0, 0});
  REQUIRE(RunOne(BiasAddGradNode(DT_DOUBLE, "NCHW"),
                 {Tensor(DT_DOUBLE, TensorShape({2, 0, 3}))})
              .NumElements() == 0);
  REQUIRE_THAT(RunError(BiasAddGradNode(DT_FLOAT, "NHWC"),
                        {MakeVector<float>({1, 2})}),
               StatusIs(absl::StatusCode::kInvalidArgument,
                        "Input tensor must be at least 2D: [2]"));
}

TEST_CASE("BiasAddGrad on large inputs matches a loop in both formats") {
  std::mt19937 rng(9);
  std::uniform_int_distribution<int> dist(-50, 50);
  for (const char* format : {"NHWC", "NCHW"}) {
    INFO(format);
    const bool nchw = std::string(format) == "NCHW";
    const int64_t n = 5, c = 13, s = 3001;  // 195065 elements
    const TensorShape shape =
        nchw ? TensorShape({n, c, s}) : TensorShape({n, s, c});
    // Small integers: every partial sum is exact in float.
    std::vector<float> x(shape.num_elements());
    for (float& v : x) v = static_cast<float>(dist(rng));
    const Tensor out = RunOne(BiasAddGradNode(DT_FLOAT, format),
                              {Tensor::FromVector<float>(x, shape)});
    std::vector<double> want(c, 0);
    for (int64_t i = 0; i < shape.num_elements(); ++i) {
      want[nchw ? (i / s) % c : i % c] += x[i];
    }
    for (int64_t j = 0; j < c; ++j) REQUIRE(out.data<float>()[j] == want[j]);
  }
}

TEST_CASE("BiasAddGrad sums half and bfloat16 in float") {
  // 4096 rows of 1.0: a half running sum would stop at 2048.
  const std::vector<double> ones(4096 * 2, 1.0);
  std::vector<Eigen::half> h(ones.size(), Eigen::half(1));
  const Tensor x = Tensor::FromVector<Eigen::half>(h, TensorShape({4096, 2}));
  REQUIRE(AsDoubles<Eigen::half>(RunOne(BiasAddGradNode(DT_HALF, "NHWC"), {x})) ==
          std::vector<double>{4096, 4096});
  std::vector<Eigen::bfloat16> b(ones.size(), Eigen::bfloat16(1));
  const Tensor xb =
      Tensor::FromVector<Eigen::bfloat16>(b, TensorShape({2, 2, 2048}));
  REQUIRE(AsDoubles<Eigen::bfloat16>(
              RunOne(BiasAddGradNode(DT_BFLOAT16, "NCHW"), {xb})) ==
          std::vector<double>{4096, 4096});
}

absl::Status Infer(NodeDef node, std::vector<PartialShape> inputs,
                   PartialShape* out) {
  const OpRegistrationData* op = OpRegistry::Global()->LookUp(node.op());
  REQUIRE(op != nullptr);
  AddDefaultAttrs(op->op_def, &node);
  InferenceContext c(node, op->op_def, std::move(inputs), {}, 1);
  absl::Status s = op->shape_fn(&c);
  *out = c.output(0);
  return s;
}

TEST_CASE("Gradient shape functions merge inputs and find the channels") {
  PartialShape out;
  REQUIRE_OK(Infer(TypedNode("g", "ReluGrad", DT_FLOAT, 2).Build(),
                   {PartialShape::Known({-1, 3}), PartialShape::Known({2, -1})},
                   &out));
  REQUIRE(out.DebugString() == "[2,3]");
  REQUIRE_THAT(Infer(TypedNode("g", "SeluGrad", DT_FLOAT, 2).Build(),
                     {PartialShape::Known({2, 3}), PartialShape::Known({3, 2})},
                     &out),
               StatusIs(absl::StatusCode::kInvalidArgument, "node 'g'"));
  REQUIRE_OK(Infer(BiasAddGradNode(DT_FLOAT, "NHWC"),
                   {PartialShape::Known({2, 3, 4, 5})}, &out));
  REQUIRE(out.DebugString() == "[5]");
  REQUIRE_OK(Infer(BiasAddGradNode(DT_FLOAT, "NCHW"),
                   {PartialShape::Known({2, 3, 4, 5})}, &out));
  REQUIRE(out.DebugString() == "[3]");
  REQUIRE_OK(
      Infer(BiasAddGradNode(DT_FLOAT, "NHWC"), {PartialShape::Unknown()}, &out));
  REQUIRE(out.DebugString() == "[?]");
  REQUIRE_THAT(Infer(BiasAddGradNode(DT_FLOAT, "NCHW"),
                     {PartialShape::Known({2, 3})}, &out),
               StatusIs(absl::StatusCode::kInvalidArgument, "at least rank 3"));
}

}  // namespace
}  // namespace dfx
