// BiasAdd, BiasAddV1 and the activation CPU kernels (Relu, Relu6, Elu, Selu,
// Softplus, Softsign, LeakyRelu, Softmax, LogSoftmax), with their shape
// functions.
#include <algorithm>
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

using testing::RunKernel;
using testing::StatusIs;
using testing::TestNodeBuilder;

using testing::MakeTensor;
using testing::MakeVector;
using testing::RunError;
using testing::RunOne;
using testing::TypedNode;
using testing::Values;

constexpr float kInf = std::numeric_limits<float>::infinity();
constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();

// The elements of a float-like tensor as doubles.
template <typename T>
std::vector<double> AsDoubles(const Tensor& t) {
  std::vector<double> out;
  for (const T& v : t.span<T>()) out.push_back(static_cast<double>(v));
  return out;
}

// A tensor of T from doubles.
template <typename T>
Tensor FromDoubles(const std::vector<double>& values, const TensorShape& shape) {
  std::vector<T> v;
  for (double d : values) v.push_back(static_cast<T>(d));
  return Tensor::FromVector<T>(v, shape);
}

// Runs the one-input activation `op` on `x` and checks each output against
// `want(x)` within `tol` (relative, with the same absolute floor); NaN must
// match NaN.
template <typename T, typename Fn>
void CheckActivation(const std::string& op, const std::vector<double>& x,
                     Fn want, double tol) {
  INFO(op << " " << DataTypeString(DataTypeToEnum<T>::value));
  const Tensor in = FromDoubles<T>(x, TensorShape({static_cast<int64_t>(x.size())}));
  const Tensor out =
      RunOne(TypedNode("act", op, DataTypeToEnum<T>::value, 1).Build(), {in});
  const std::vector<double> got = AsDoubles<T>(out);
  const std::vector<double> rounded = AsDoubles<T>(in);
  for (size_t i = 0; i < x.size(); ++i) {
    const double w = want(rounded[i]);
    INFO("x = " << rounded[i] << " got " << got[i] << " want " << w);
    if (std::isnan(w)) {
      REQUIRE(std::isnan(got[i]));
    } else if (std::isinf(w)) {
      REQUIRE(got[i] == w);
    } else {
      REQUIRE(std::abs(got[i] - w) <= tol * (1 + std::abs(w)));
    }
  }
}

NodeDef BiasAddNode(DataType dtype, const char* format) {
  return TestNodeBuilder("bias", "BiasAdd", 2)
      .Attr("T", dtype)
      .Attr("data_format", format)
      .Build();
}

TEST_CASE("BiasAdd adds the bias along the last dim in NHWC") {
  const Tensor value =
      Tensor::FromVector<float>({1, 2, 3, 4, 5, 6}, TensorShape({2, 3}));
  const Tensor bias = Tensor::FromVector<float>({10, 20, 30});
  auto out = RunKernel(BiasAddNode(DT_FLOAT, "NHWC"), {value, bias});
  REQUIRE_OK(out);
  REQUIRE((*out)[0].shape() == TensorShape({2, 3}));
  REQUIRE(Values<float>((*out)[0]) ==
          std::vector<float>{11, 22, 33, 14, 25, 36});

  // NHWC is the default; rank 4.
  const Tensor v4 = Tensor::FromVector<int32_t>({1, 2, 3, 4, 5, 6, 7, 8},
                                                TensorShape({1, 2, 2, 2}));
  const Tensor b2 = Tensor::FromVector<int32_t>({100, 200});
  auto out4 = RunKernel(
      TestNodeBuilder("bias", "BiasAdd", 2).Attr("T", DT_INT32).Build(),
      {v4, b2});
  REQUIRE_OK(out4);
  REQUIRE(Values<int32_t>((*out4)[0]) ==
          std::vector<int32_t>{101, 202, 103, 204, 105, 206, 107, 208});
}

TEST_CASE("BiasAdd adds the bias along dim 1 in NCHW") {
  // N=2, C=3, W=2.
  const Tensor value = Tensor::FromVector<double>(
      {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12}, TensorShape({2, 3, 2}));
  const Tensor bias = Tensor::FromVector<double>({10, 20, 30});
  auto out = RunKernel(BiasAddNode(DT_DOUBLE, "NCHW"), {value, bias});
  REQUIRE_OK(out);
  REQUIRE(Values<double>((*out)[0]) ==
          std::vector<double>{11, 12, 23, 24, 35, 36, 17, 18, 29, 30, 41, 42});

  // Rank 4, N=1, C=2, H=W=2.
  const Tensor v4 = Tensor::FromVector<int64_t>({1, 2, 3, 4, 5, 6, 7, 8},
                                                TensorShape({1, 2, 2, 2}));
  const Tensor b2 = Tensor::FromVector<int64_t>({100, 200});
  auto out4 = RunKernel(BiasAddNode(DT_INT64, "NCHW"), {v4, b2});
  REQUIRE_OK(out4);
  REQUIRE(Values<int64_t>((*out4)[0]) ==
          std::vector<int64_t>{101, 102, 103, 104, 205, 206, 207, 208});
}

TEST_CASE("BiasAdd on large inputs matches a loop in both formats") {
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> dist(-1, 1);
  for (const char* format : {"NHWC", "NCHW"}) {
    INFO(format);
    const bool nchw = std::string(format) == "NCHW";
    const int64_t n = 3, c = 17, s = 1001;  // 51051 elements
    const TensorShape shape = nchw ? TensorShape({n, c, s})
                                   : TensorShape({n, s, c});
    std::vector<float> v(shape.num_elements());
    for (float& x : v) x = dist(rng);
    std::vector<float> b(c);
    for (float& x : b) x = dist(rng);
    auto out = RunKernel(BiasAddNode(DT_FLOAT, format),
                         {Tensor::FromVector<float>(v, shape),
                          Tensor::FromVector<float>(b)});
    REQUIRE_OK(out);
    const float* got = (*out)[0].data<float>();
    for (int64_t i = 0; i < shape.num_elements(); ++i) {
      const int64_t channel = nchw ? (i / s) % c : i % c;
      REQUIRE(got[i] == v[i] + b[channel]);
    }
  }
}

TEST_CASE("BiasAdd rejects bad shapes") {
  const Tensor v1 = Tensor::FromVector<float>({1, 2, 3});
  const Tensor b3 = Tensor::FromVector<float>({1, 2, 3});
  REQUIRE_THAT(RunKernel(BiasAddNode(DT_FLOAT, "NHWC"), {v1, b3}).status(),
               StatusIs(absl::StatusCode::kInvalidArgument,
                        "Input tensor must be at least 2D: [3]"));
  const Tensor v23 = Tensor(DT_FLOAT, TensorShape({2, 3}));
  const Tensor b_matrix = Tensor(DT_FLOAT, TensorShape({1, 3}));
  REQUIRE_THAT(
      RunKernel(BiasAddNode(DT_FLOAT, "NHWC"), {v23, b_matrix}).status(),
      StatusIs(absl::StatusCode::kInvalidArgument, "Biases must be 1D: [1,3]"));
  // NHWC wants 3 biases for [2,3]; NCHW wants 3 for dim 1 of [2,3] as well,
  // but 2 are given.
  const Tensor b2 = Tensor::FromVector<float>({1, 2});
  REQUIRE_THAT(RunKernel(BiasAddNode(DT_FLOAT, "NHWC"), {v23, b2}).status(),
               StatusIs(absl::StatusCode::kInvalidArgument,
                        "Must provide as many biases as the last dimension "
                        "of the input tensor: [2] vs. [2,3]"));
  const Tensor v234 = Tensor(DT_FLOAT, TensorShape({2, 3, 4}));
  const Tensor b4 = Tensor::FromVector<float>({1, 2, 3, 4});
  REQUIRE_OK(RunKernel(BiasAddNode(DT_FLOAT, "NHWC"), {v234, b4}));
  REQUIRE_THAT(RunKernel(BiasAddNode(DT_FLOAT, "NCHW"), {v234, b4}).status(),
               StatusIs(absl::StatusCode::kInvalidArgument,
                        "Must provide as many biases"));
}

TEST_CASE("Relu and Relu6 clamp") {
  const Tensor f = Tensor::FromVector<float>({-2.5f, -0.0f, 0.5f, 5.f, 7.f});
  auto relu = RunKernel(
      TestNodeBuilder("r", "Relu", 1).Attr("T", DT_FLOAT).Build(), {f});
  REQUIRE_OK(relu);
  REQUIRE(Values<float>((*relu)[0]) ==
          std::vector<float>{0, 0, 0.5f, 5, 7});
  auto relu6 = RunKernel(
      TestNodeBuilder("r", "Relu6", 1).Attr("T", DT_FLOAT).Build(), {f});
  REQUIRE_OK(relu6);
  REQUIRE(Values<float>((*relu6)[0]) ==
          std::vector<float>{0, 0, 0.5f, 5, 6});
  const Tensor i = Tensor::FromVector<int64_t>({-3, 2, 9}, TensorShape({3, 1}));
  auto relu_i = RunKernel(
      TestNodeBuilder("r", "Relu", 1).Attr("T", DT_INT64).Build(), {i});
  REQUIRE_OK(relu_i);
  REQUIRE((*relu_i)[0].shape() == TensorShape({3, 1}));
  REQUIRE(Values<int64_t>((*relu_i)[0]) == std::vector<int64_t>{0, 2, 9});
  auto relu6_i = RunKernel(
      TestNodeBuilder("r", "Relu6", 1).Attr("T", DT_INT32).Build(),
      {Tensor::FromVector<int32_t>({-3, 2, 9})});
  REQUIRE_OK(relu6_i);
  REQUIRE(Values<int32_t>((*relu6_i)[0]) == std::vector<int32_t>{0, 2, 6});
}

TEST_CASE("BiasAdd and BiasAddV1 cover half, bfloat16 and small ints") {
  const Tensor hv = MakeTensor<Eigen::half>(
      {Eigen::half(1), Eigen::half(2), Eigen::half(3), Eigen::half(4)},
      TensorShape({2, 2}));
  const Tensor hb = MakeVector<Eigen::half>({Eigen::half(0.5), Eigen::half(-1)});
  REQUIRE(AsDoubles<Eigen::half>(
              RunOne(BiasAddNode(DT_HALF, "NHWC"), {hv, hb})) ==
          std::vector<double>{1.5, 1, 3.5, 3});
  const Tensor bv = MakeTensor<Eigen::bfloat16>(
      {Eigen::bfloat16(1), Eigen::bfloat16(2), Eigen::bfloat16(3),
       Eigen::bfloat16(4)},
      TensorShape({1, 2, 2}));
  const Tensor bb =
      MakeVector<Eigen::bfloat16>({Eigen::bfloat16(10), Eigen::bfloat16(20)});
  REQUIRE(AsDoubles<Eigen::bfloat16>(
              RunOne(BiasAddNode(DT_BFLOAT16, "NCHW"), {bv, bb})) ==
          std::vector<double>{11, 12, 23, 24});
  // BiasAddV1 has no data_format: the bias goes along the last dim.
  const Tensor v8 = MakeTensor<uint8_t>({1, 2, 3, 4, 5, 6}, TensorShape({3, 2}));
  const Tensor b8 = MakeVector<uint8_t>({10, 250});
  REQUIRE(Values<uint8_t>(RunOne(
              TypedNode("b", "BiasAddV1", DT_UINT8, 2).Build(), {v8, b8})) ==
          std::vector<uint8_t>{11, 252, 13, 254, 15, 0});  // wraps as TF
  REQUIRE_THAT(RunError(TypedNode("b", "BiasAddV1", DT_UINT8, 2).Build(),
                        {v8, MakeVector<uint8_t>({1, 2, 3})}),
               StatusIs(absl::StatusCode::kInvalidArgument,
                        "Must provide as many biases as the last dimension "
                        "of the input tensor: [3] vs. [3,2]"));
}

TEST_CASE("Relu and Relu6 propagate NaN and cover half and bfloat16") {
  const std::vector<double> x = {-kInf, -3, -0.5, 0, 0.25, 5.5, 6, 7, kInf,
                                 kNaN};
  const auto relu = [](double v) { return std::isnan(v) ? v : std::max(v, 0.0); };
  const auto relu6 = [](double v) {
    return std::isnan(v) ? v : std::min(std::max(v, 0.0), 6.0);
  };
  CheckActivation<float>("Relu", x, relu, 0);
  CheckActivation<double>("Relu", x, relu, 0);
  CheckActivation<Eigen::half>("Relu", x, relu, 0);
  CheckActivation<Eigen::bfloat16>("Relu", x, relu, 0);
  CheckActivation<float>("Relu6", x, relu6, 0);
  CheckActivation<Eigen::half>("Relu6", x, relu6, 0);
  CheckActivation<Eigen::bfloat16>("Relu6", x, relu6, 0);
  REQUIRE(Values<int8_t>(RunOne(TypedNode("r", "Relu6", DT_INT8, 1).Build(),
                                {MakeVector<int8_t>({-128, 3, 7, 127})})) ==
          std::vector<int8_t>{0, 3, 6, 6});
}

double Elu(double x) { return x < 0 ? std::expm1(x) : x; }
double Selu(double x) {
  const double scale = 1.0507009873554804934193349852946;
  const double alpha = 1.6732632423543772848170429916717;
  return x < 0 ? scale * alpha * std::expm1(x) : scale * x;
}
double Softplus(double x) {
  return x > 0 ? x + std::log1p(std::exp(-x)) : std::log1p(std::exp(x));
}
double Softsign(double x) { return x / (std::abs(x) + 1); }

TEST_CASE("Elu, Selu, Softplus and Softsign match their formulas") {
  const std::vector<double> x = {-30, -5, -1, -0.1, -1e-3, 0,  1e-3,
                                 0.1, 1,  5,  30,   -kInf, kNaN};
  for (const auto& [op, fn] :
       std::vector<std::pair<std::string, double (*)(double)>>{
           {"Elu", Elu}, {"Selu", Selu}, {"Softplus", Softplus}}) {
    CheckActivation<float>(op, x, fn, 2e-6);
    CheckActivation<double>(op, x, fn, 1e-13);
    CheckActivation<Eigen::half>(op, x, fn, 2e-3);
    CheckActivation<Eigen::bfloat16>(op, x, fn, 1.6e-2);
  }
  // Softsign(-inf) is NaN in TensorFlow (inf / inf), so leave it out.
  const std::vector<double> xs = {-30, -1, -0.1, 0, 0.5, 3, 1e6, kNaN};
  CheckActivation<float>("Softsign", xs, Softsign, 2e-7);
  CheckActivation<double>("Softsign", xs, Softsign, 1e-15);
  CheckActivation<Eigen::half>("Softsign", xs, Softsign, 2e-3);
  CheckActivation<Eigen::bfloat16>("Softsign", xs, Softsign, 1.6e-2);
  CheckActivation<float>("Softsign", {kInf}, [](double) { return kNaN; }, 0);
}

TEST_CASE("Softplus neither overflows nor loses small values") {
  // Large inputs return x itself, very negative ones exp(x), not 0 - log1p.
  const std::vector<double> x = {88, 100, 1e4, 3e38, kInf, -20, -50, -87};
  CheckActivation<float>("Softplus", x, Softplus, 2e-6);
  const std::vector<double> xd = {700, 1e300, -700, -30, 40};
  CheckActivation<double>("Softplus", xd, Softplus, 1e-13);
  CheckActivation<Eigen::half>("Softplus", {60000, 20, -15, -9},
                               Softplus, 2e-3);
  const Tensor out =
      RunOne(TypedNode("sp", "Softplus", DT_FLOAT, 1).Build(),
             {MakeVector<float>({-60})});
  REQUIRE(out.data<float>()[0] > 0);
  REQUIRE(out.data<float>()[0] == Approx(std::exp(-60.0)).epsilon(1e-5));
}

TEST_CASE("LeakyRelu honours alpha, including above one and negative") {
  const std::vector<double> x = {-kInf, -2, -0.5, 0, 0.5, 3, kInf, kNaN};
  for (float alpha : {0.2f, 0.01f, 2.0f, -0.5f}) {
    INFO("alpha " << alpha);
    const auto want = [alpha](double v) {
      return v > 0 ? v : v * static_cast<double>(alpha);
    };
    for (DataType dtype : {DT_FLOAT, DT_DOUBLE, DT_HALF, DT_BFLOAT16}) {
      const NodeDef node =
          TypedNode("lr", "LeakyRelu", dtype, 1).Attr("alpha", alpha).Build();
      std::vector<double> got;
      if (dtype == DT_FLOAT) {
        got = AsDoubles<float>(RunOne(node, {FromDoubles<float>(x, TensorShape({8}))}));
      } else if (dtype == DT_DOUBLE) {
        got = AsDoubles<double>(RunOne(node, {FromDoubles<double>(x, TensorShape({8}))}));
      } else if (dtype == DT_HALF) {
        got = AsDoubles<Eigen::half>(
            RunOne(node, {FromDoubles<Eigen::half>(x, TensorShape({8}))}));
      } else {
        got = AsDoubles<Eigen::bfloat16>(
            RunOne(node, {FromDoubles<Eigen::bfloat16>(x, TensorShape({8}))}));
      }
      for (size_t i = 0; i < x.size(); ++i) {
        const double w = want(x[i]);
        if (std::isnan(w)) {
          REQUIRE(std::isnan(got[i]));
        } else {
          REQUIRE(got[i] == Approx(w).epsilon(1e-2));
        }
      }
    }
  }
  // The default alpha is 0.2.
  const Tensor out = RunOne(TestNodeBuilder("lr", "LeakyRelu", 1).Build(),
                            {MakeVector<float>({-1, 1})});
  REQUIRE(Values<float>(out) == std::vector<float>{-0.2f, 1});
}

TEST_CASE("Element-wise activations split large inputs across threads") {
  std::mt19937 rng(3);
  std::uniform_real_distribution<float> dist(-8, 8);
  std::vector<float> x(100003);
  for (float& v : x) v = dist(rng);
  const Tensor in = Tensor::FromVector<float>(x);
  for (const auto& [op, fn] :
       std::vector<std::pair<std::string, double (*)(double)>>{
           {"Elu", Elu}, {"Selu", Selu}, {"Softplus", Softplus},
           {"Softsign", Softsign}}) {
    INFO(op);
    const Tensor out = RunOne(TypedNode("a", op, DT_FLOAT, 1).Build(), {in});
    for (size_t i = 0; i < x.size(); ++i) {
      REQUIRE(out.data<float>()[i] == Approx(fn(x[i])).epsilon(1e-5).margin(1e-6));
    }
  }
}

TEST_CASE("Packet activations are right at every length") {
  // The packet loops finish a length that is not a multiple of the packet
  // (8 floats, 4 doubles) through a zero-padded packet.
  for (int n = 1; n <= 19; ++n) {
    INFO("n = " << n);
    std::vector<double> x;
    for (int i = 0; i < n; ++i) x.push_back((i % 2 ? -1.0 : 1.0) * (i + 1) / 3);
    for (const auto& [op, fn] :
         std::vector<std::pair<std::string, double (*)(double)>>{
             {"Elu", Elu}, {"Selu", Selu}, {"Softplus", Softplus}}) {
      CheckActivation<float>(op, x, fn, 2e-6);
      CheckActivation<double>(op, x, fn, 1e-13);
      CheckActivation<Eigen::half>(op, x, fn, 2e-3);
    }
  }
}

NodeDef SoftmaxNode(const char* op, DataType dtype) {
  return TestNodeBuilder("sm", op, 1).Attr("T", dtype).Build();
}

TEST_CASE("Softmax matches a hand computation and rows sum to one") {
  const Tensor logits = Tensor::FromVector<float>({1, 2, 3, -1, 0, 1000},
                                                  TensorShape({2, 3}));
  auto out = RunKernel(SoftmaxNode("Softmax", DT_FLOAT), {logits});
  REQUIRE_OK(out);
  const std::vector<float> got = Values<float>((*out)[0]);
  const double e1 = std::exp(1.0), e2 = std::exp(2.0), e3 = std::exp(3.0);
  const double s = e1 + e2 + e3;
  REQUIRE(got[0] == Approx(e1 / s));
  REQUIRE(got[1] == Approx(e2 / s));
  REQUIRE(got[2] == Approx(e3 / s));
  REQUIRE(got[3] == Approx(0).margin(1e-30));
  REQUIRE(got[4] == Approx(0).margin(1e-30));
  REQUIRE(got[5] == Approx(1));
}

TEST_CASE("Softmax and LogSoftmax are stable for large logits") {
  const Tensor logits = Tensor::FromVector<float>({1000, 1001});
  auto sm = RunKernel(SoftmaxNode("Softmax", DT_FLOAT), {logits});
  REQUIRE_OK(sm);
  const std::vector<float> p = Values<float>((*sm)[0]);
  const double e = std::exp(1.0);
  REQUIRE(p[0] == Approx(1 / (1 + e)));
  REQUIRE(p[1] == Approx(e / (1 + e)));
  auto lsm = RunKernel(SoftmaxNode("LogSoftmax", DT_FLOAT), {logits});
  REQUIRE_OK(lsm);
  const std::vector<float> lp = Values<float>((*lsm)[0]);
  REQUIRE(lp[0] == Approx(-std::log(1 + e)));
  REQUIRE(lp[1] == Approx(1 - std::log(1 + e)));
  // Very negative logits too.
  auto neg = RunKernel(SoftmaxNode("Softmax", DT_DOUBLE),
                       {Tensor::FromVector<double>({-1000, -1000})});
  REQUIRE_OK(neg);
  REQUIRE(Values<double>((*neg)[0]) == std::vector<double>{0.5, 0.5});
}

TEST_CASE("Softmax and LogSoftmax match a per-row computation") {
  std::mt19937 rng(11);
  std::uniform_real_distribution<double> dist(-20, 20);
  // The last one is large enough to run on the intra-op pool.
  for (const TensorShape& shape :
       {TensorShape({5}), TensorShape({4, 1}), TensorShape({3, 4, 7}),
        TensorShape({0, 3}), TensorShape({3, 0}), TensorShape({300, 200})}) {
    INFO(shape.DebugString());
    std::vector<double> x(shape.num_elements());
    for (double& v : x) v = dist(rng);
    const Tensor in = Tensor::FromVector<double>(x, shape);
    auto sm = RunKernel(SoftmaxNode("Softmax", DT_DOUBLE), {in});
    auto lsm = RunKernel(SoftmaxNode("LogSoftmax", DT_DOUBLE), {in});
    REQUIRE_OK(sm);
    REQUIRE_OK(lsm);
    REQUIRE((*sm)[0].shape() == shape);
    REQUIRE((*lsm)[0].shape() == shape);
    const int64_t classes = shape.dim_size(shape.dims() - 1);
    if (classes == 0) continue;
    const int64_t rows = shape.num_elements() / classes;
    for (int64_t r = 0; r < rows; ++r) {
      double sum = 0;
      for (int64_t j = 0; j < classes; ++j) sum += std::exp(x[r * classes + j]);
      double row_total = 0;
      for (int64_t j = 0; j < classes; ++j) {
        const int64_t i = r * classes + j;
        const double p = (*sm)[0].data<double>()[i];
        row_total += p;
        REQUIRE(p == Approx(std::exp(x[i]) / sum).epsilon(1e-9));
        REQUIRE((*lsm)[0].data<double>()[i] ==
                Approx(x[i] - std::log(sum)).epsilon(1e-9).margin(1e-10));
      }
      REQUIRE(row_total == Approx(1.0).epsilon(1e-12));
    }
  }
}

TEST_CASE("Softmax and LogSoftmax in half and bfloat16 sum in float") {
  // 2000 classes: a half-precision running sum would drift visibly.
  std::mt19937 rng(5);
  std::uniform_real_distribution<double> dist(-3, 3);
  std::vector<double> x(2 * 2000);
  for (double& v : x) v = dist(rng);
  for (DataType dtype : {DT_HALF, DT_BFLOAT16}) {
    INFO(DataTypeString(dtype));
    const bool is_half = dtype == DT_HALF;
    const Tensor in = is_half ? FromDoubles<Eigen::half>(x, TensorShape({2, 2000}))
                              : FromDoubles<Eigen::bfloat16>(x, TensorShape({2, 2000}));
    const std::vector<double> xr =
        is_half ? AsDoubles<Eigen::half>(in) : AsDoubles<Eigen::bfloat16>(in);
    const Tensor sm = RunOne(SoftmaxNode("Softmax", dtype), {in});
    const Tensor lsm = RunOne(SoftmaxNode("LogSoftmax", dtype), {in});
    const std::vector<double> p =
        is_half ? AsDoubles<Eigen::half>(sm) : AsDoubles<Eigen::bfloat16>(sm);
    const std::vector<double> lp =
        is_half ? AsDoubles<Eigen::half>(lsm) : AsDoubles<Eigen::bfloat16>(lsm);
    const double tol = is_half ? 1e-3 : 8e-3;
    for (int r = 0; r < 2; ++r) {
      double sum = 0;
      for (int j = 0; j < 2000; ++j) sum += std::exp(xr[r * 2000 + j]);
      for (int j = 0; j < 2000; ++j) {
        const int i = r * 2000 + j;
        // Half's subnormals (below 6e-5) are spaced 6e-8 apart.
        REQUIRE(p[i] == Approx(std::exp(xr[i]) / sum).epsilon(tol).margin(1e-7));
        REQUIRE(lp[i] == Approx(xr[i] - std::log(sum)).epsilon(tol));
      }
    }
  }
  // Large logits in half: 60000 is close to half's maximum.
  const Tensor big = MakeVector<Eigen::half>(
      {Eigen::half(60000), Eigen::half(60000), Eigen::half(100)});
  REQUIRE(AsDoubles<Eigen::half>(RunOne(SoftmaxNode("Softmax", DT_HALF), {big})) ==
          std::vector<double>{0.5, 0.5, 0});
}

TEST_CASE("Softmax of infinities and NaN follows TensorFlow") {
  const Tensor x = MakeTensor<float>(
      {-kInf, 1, 2, kInf, 1, 0, kNaN, 1, 2, -kInf, -kInf, -kInf},
      TensorShape({4, 3}));
  const std::vector<float> p = Values<float>(RunOne(SoftmaxNode("Softmax", DT_FLOAT), {x}));
  REQUIRE(p[0] == 0);
  REQUIRE(p[1] == Approx(1 / (1 + std::exp(1.0))));
  for (int i = 3; i < 12; ++i) REQUIRE(std::isnan(p[i]));  // inf - inf
  const std::vector<float> lp =
      Values<float>(RunOne(SoftmaxNode("LogSoftmax", DT_FLOAT), {x}));
  REQUIRE(lp[0] == -kInf);
  REQUIRE(lp[2] == Approx(-std::log1p(std::exp(-1.0))));
}

TEST_CASE("Softmax rejects a scalar") {
  REQUIRE_THAT(
      RunKernel(SoftmaxNode("Softmax", DT_FLOAT), {Tensor::Scalar(1.0f)})
          .status(),
      StatusIs(absl::StatusCode::kInvalidArgument,
               "logits must have >= 1 dimension, got []"));
}

// Runs `node`'s shape function on `inputs`.
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

TEST_CASE("BiasAdd with NCHW wants rank 3 at graph time, BiasAddV1 none") {
  PartialShape out;
  REQUIRE_THAT(Infer(BiasAddNode(DT_FLOAT, "NCHW"),
                     {PartialShape::Known({2, 3}), PartialShape::Known({3})},
                     &out),
               StatusIs(absl::StatusCode::kInvalidArgument, "at least rank 3"));
  REQUIRE_OK(Infer(TypedNode("b", "BiasAddV1", DT_FLOAT, 2).Build(),
                   {PartialShape::Known({2, -1}), PartialShape::Known({4})},
                   &out));
  REQUIRE(out.DebugString() == "[2,4]");
  REQUIRE_OK(Infer(TypedNode("e", "LeakyRelu", DT_HALF, 1).Build(),
                   {PartialShape::Known({-1, 7})}, &out));
  REQUIRE(out.DebugString() == "[?,7]");
}

TEST_CASE("The activation ops carry TensorFlow's signatures") {
  const OpRegistrationData* leaky = OpRegistry::Global()->LookUp("LeakyRelu");
  REQUIRE(leaky != nullptr);
  NodeDef node = TestNodeBuilder("l", "LeakyRelu", 1).Build();
  AddDefaultAttrs(leaky->op_def, &node);
  float alpha = 0;
  DataType t = DT_INVALID;
  REQUIRE_OK(GetNodeAttr(node, "alpha", &alpha));
  REQUIRE_OK(GetNodeAttr(node, "T", &t));
  REQUIRE(alpha == 0.2f);
  REQUIRE(t == DT_FLOAT);
  for (const char* op : {"Elu", "Selu", "Softplus", "Softsign", "Softmax",
                         "LogSoftmax"}) {
    INFO(op);
    const OpRegistrationData* data = OpRegistry::Global()->LookUp(op);
    REQUIRE(data != nullptr);
    REQUIRE(data->op_def.attr(0).allowed_values().list().type_size() == 4);
  }
  const OpRegistrationData* bias = OpRegistry::Global()->LookUp("BiasAdd");
  REQUIRE(bias != nullptr);
  REQUIRE(bias->op_def.attr(0).allowed_values().list().type_size() == 19);
}

TEST_CASE("BiasAdd's and Softmax's shape functions check known shapes") {
  PartialShape out;
  REQUIRE_OK(Infer(BiasAddNode(DT_FLOAT, "NHWC"),
                   {PartialShape::Known({2, -1}), PartialShape::Known({3})},
                   &out));
  REQUIRE(out.DebugString() == "[2,3]");
  REQUIRE_OK(Infer(BiasAddNode(DT_FLOAT, "NCHW"),
                   {PartialShape::Known({2, 3, 4, 5}),
                    PartialShape::Known({3})},
                   &out));
  REQUIRE(out.DebugString() == "[2,3,4,5]");
  REQUIRE_THAT(Infer(BiasAddNode(DT_FLOAT, "NHWC"),
                     {PartialShape::Known({2, 3, 4, 5}),
                      PartialShape::Known({3})},
                     &out),
               StatusIs(absl::StatusCode::kInvalidArgument,
                        "node 'bias' (op BiasAdd): Must provide as many "
                        "biases"));
  REQUIRE_THAT(Infer(BiasAddNode(DT_FLOAT, "NHWC"),
                     {PartialShape::Known({3}), PartialShape::Known({3})},
                     &out),
               StatusIs(absl::StatusCode::kInvalidArgument, "at least rank 2"));
  REQUIRE_OK(Infer(SoftmaxNode("Softmax", DT_FLOAT),
                   {PartialShape::Known({-1, 10})}, &out));
  REQUIRE(out.DebugString() == "[?,10]");
  REQUIRE_THAT(Infer(SoftmaxNode("LogSoftmax", DT_FLOAT),
                     {PartialShape::Scalar()}, &out),
               StatusIs(absl::StatusCode::kInvalidArgument,
                        "node 'sm' (op LogSoftmax)"));
}


// 1000 floats from `from` in steps of `step`, shaped `shape`.
Tensor Ramp(float from, float step, const TensorShape& shape = {1000}) {
  std::vector<float> v(1000);
  for (int i = 0; i < 1000; ++i) v[i] = from + step * static_cast<float>(i);
  return Tensor::FromVector<float>(v, shape);
}

// Runs `node` on `in` with input `written` copied into a buffer nothing
// else holds (the list's own tensors live until the caller's statement
// ends), and checks that the output is that buffer and that each output
// element is `want` of the inputs' elements read before the run (within
// 1e-6).
void CheckWrittenOver(const NodeDef& node, std::vector<Tensor> in, int written,
                      const std::vector<float>& want) {
  INFO(node.op());
  in[written] = in[written].DeepCopy();
  const void* buffer = in[written].raw_data();
  Tensor out = RunOne(node, in);
  CHECK(out.raw_data() == buffer);
  REQUIRE(out.NumElements() == static_cast<int64_t>(want.size()));
  for (size_t i = 0; i < want.size(); ++i) {
    CHECK(out.data<float>()[i] ==
          Approx(want[i]).epsilon(1e-6).margin(1e-6));
  }
}

TEST_CASE("Activations, BiasAdd, Softmax and activation gradients write "
          "over an input nothing else holds") {
  const std::vector<float> x = Values<float>(Ramp(-2.0f, 0.004f));
  const std::vector<float> g = Values<float>(Ramp(1.0f, 0.001f));
  std::vector<float> relu, elu, relu_grad, softsign_grad;
  for (int i = 0; i < 1000; ++i) {
    relu.push_back(std::max(x[i], 0.0f));
    elu.push_back(x[i] < 0 ? std::exp(x[i]) - 1.0f : x[i]);
    relu_grad.push_back(x[i] > 0 ? g[i] : 0.0f);
    const float d = 1.0f + std::abs(x[i]);
    softsign_grad.push_back(g[i] / (d * d));
  }
  CheckWrittenOver(TypedNode("r", "Relu", DT_FLOAT, 1).Build(),
                   {Ramp(-2.0f, 0.004f)}, 0, relu);
  CheckWrittenOver(TypedNode("e", "Elu", DT_FLOAT, 1).Build(),
                   {Ramp(-2.0f, 0.004f)}, 0, elu);
  // Gradients: over the gradient, or over x when the gradient is held.
  CheckWrittenOver(TypedNode("rg", "ReluGrad", DT_FLOAT, 2).Build(),
                   {Ramp(1.0f, 0.001f), Ramp(-2.0f, 0.004f)}, 0, relu_grad);
  const Tensor held = Ramp(1.0f, 0.001f);
  CheckWrittenOver(TypedNode("rg", "ReluGrad", DT_FLOAT, 2).Build(),
                   {held, Ramp(-2.0f, 0.004f)}, 1, relu_grad);
  CHECK(Values<float>(held) == g);
  CheckWrittenOver(TypedNode("sg", "SoftsignGrad", DT_FLOAT, 2).Build(),
                   {Ramp(1.0f, 0.001f), Ramp(-2.0f, 0.004f)}, 0,
                   softsign_grad);

  // BiasAdd over [10, 100] with a bias of 100.
  std::vector<float> bias(100), biased(1000);
  for (int c = 0; c < 100; ++c) bias[c] = 0.5f * static_cast<float>(c);
  for (int i = 0; i < 1000; ++i) biased[i] = x[i] + bias[i % 100];
  CheckWrittenOver(TypedNode("b", "BiasAdd", DT_FLOAT, 2).Build(),
                   {Ramp(-2.0f, 0.004f, TensorShape({10, 100})),
                    Tensor::FromVector<float>(bias)},
                   0, biased);

  // Softmax over rows of 100.
  std::vector<float> softmax(1000);
  for (int r = 0; r < 10; ++r) {
    double sum = 0;
    for (int c = 0; c < 100; ++c) sum += std::exp(x[r * 100 + c]);
    for (int c = 0; c < 100; ++c) {
      softmax[r * 100 + c] =
          static_cast<float>(std::exp(x[r * 100 + c]) / sum);
    }
  }
  CheckWrittenOver(TypedNode("s", "Softmax", DT_FLOAT, 1).Build(),
                   {Ramp(-2.0f, 0.004f, TensorShape({10, 100}))}, 0, softmax);

  SECTION("an input held elsewhere is left alone") {
    std::vector<Tensor> in = {Ramp(-2.0f, 0.004f)};
    const Tensor kept = in[0];
    Tensor out = RunOne(TypedNode("r", "Relu", DT_FLOAT, 1).Build(), in);
    CHECK(out.raw_data() != kept.raw_data());
    CHECK(Values<float>(kept) == x);
    CHECK(Values<float>(out) == relu);
  }
}

}  // namespace
}  // namespace dfx
