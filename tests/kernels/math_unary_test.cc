// Unary math kernels: Neg, Abs, Square, Reciprocal, Exp, Log, Sqrt, Rsqrt,
// Tanh, Sigmoid.
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "catch2/catch.hpp"
#include "tests/kernels/math_test_util.h"

namespace dfx {
namespace {

using testing::MakeTensor;
using testing::MakeVector;
using testing::RunOne;
using testing::TypedNode;
using testing::Values;

Tensor RunUnary(const std::string& op, DataType dtype, const Tensor& x) {
  return RunOne(TypedNode("u", op, dtype, 1).Build(), {x});
}

TEST_CASE("Neg, Abs and Square on integers and floats") {
  Tensor i32 = MakeTensor<int32_t>({-3, 0, 4, -1}, TensorShape({2, 2}));
  Tensor neg = RunUnary("Neg", DT_INT32, i32);
  CHECK(neg.shape() == TensorShape({2, 2}));
  CHECK(Values<int32_t>(neg) == std::vector<int32_t>{3, 0, -4, 1});
  CHECK(Values<int32_t>(RunUnary("Abs", DT_INT32, i32)) ==
        std::vector<int32_t>{3, 0, 4, 1});
  CHECK(Values<int32_t>(RunUnary("Square", DT_INT32, i32)) ==
        std::vector<int32_t>{9, 0, 16, 1});

  const int64_t big = int64_t{3} << 32;
  Tensor i64 = MakeVector<int64_t>({-big, 5});
  CHECK(Values<int64_t>(RunUnary("Abs", DT_INT64, i64)) ==
        std::vector<int64_t>{big, 5});
  CHECK(Values<int64_t>(RunUnary("Neg", DT_INT64, i64)) ==
        std::vector<int64_t>{big, -5});

  Tensor f = MakeVector<float>({-1.5f, 2.0f, -0.0f});
  CHECK(Values<float>(RunUnary("Neg", DT_FLOAT, f)) ==
        std::vector<float>{1.5f, -2.0f, 0.0f});
  CHECK(Values<float>(RunUnary("Abs", DT_FLOAT, f)) ==
        std::vector<float>{1.5f, 2.0f, 0.0f});
  CHECK(Values<float>(RunUnary("Square", DT_FLOAT, f)) ==
        std::vector<float>{2.25f, 4.0f, 0.0f});
  Tensor d = MakeVector<double>({-0.25});
  CHECK(Values<double>(RunUnary("Square", DT_DOUBLE, d)) ==
        std::vector<double>{0.0625});
}

// As TensorFlow's: -INT_MIN and |INT_MIN| are INT_MIN, squares wrap; no
// undefined overflow on the way (the sanitized build checks).
TEST_CASE("Neg, Abs and Square wrap around on integer overflow") {
  const int64_t min64 = std::numeric_limits<int64_t>::min();
  Tensor i64 = MakeVector<int64_t>({min64, int64_t{1} << 32});
  CHECK(Values<int64_t>(RunUnary("Neg", DT_INT64, i64)) ==
        std::vector<int64_t>{min64, -(int64_t{1} << 32)});
  CHECK(Values<int64_t>(RunUnary("Abs", DT_INT64, i64)) ==
        std::vector<int64_t>{min64, int64_t{1} << 32});
  // 2^64 is 0 modulo 2^64.
  CHECK(Values<int64_t>(RunUnary("Square", DT_INT64, i64)) ==
        std::vector<int64_t>{0, 0});
  const int32_t min32 = std::numeric_limits<int32_t>::min();
  CHECK(Values<int32_t>(RunUnary("Abs", DT_INT32,
                                 MakeVector<int32_t>({min32}))) ==
        std::vector<int32_t>{min32});
}

TEST_CASE("Transcendental functions match the C library") {
  const std::vector<double> xs = {0.01, 0.5, 1.0, 2.0, 7.5};
  struct Case {
    const char* op;
    double (*ref)(double);
  };
  const Case cases[] = {
      {"Exp", [](double x) { return std::exp(x); }},
      {"Log", [](double x) { return std::log(x); }},
      {"Sqrt", [](double x) { return std::sqrt(x); }},
      {"Rsqrt", [](double x) { return 1.0 / std::sqrt(x); }},
      {"Tanh", [](double x) { return std::tanh(x); }},
      {"Sigmoid", [](double x) { return 1.0 / (1.0 + std::exp(-x)); }},
      {"Reciprocal", [](double x) { return 1.0 / x; }},
  };
  for (const Case& c : cases) {
    INFO(c.op);
    Tensor fin(DT_FLOAT, TensorShape({static_cast<int64_t>(xs.size())}));
    Tensor din(DT_DOUBLE, fin.shape());
    for (size_t i = 0; i < xs.size(); ++i) {
      fin.data<float>()[i] = static_cast<float>(xs[i]);
      din.data<double>()[i] = xs[i];
    }
    Tensor fout = RunUnary(c.op, DT_FLOAT, fin);
    Tensor dout = RunUnary(c.op, DT_DOUBLE, din);
    for (size_t i = 0; i < xs.size(); ++i) {
      const double want = c.ref(xs[i]);
      CHECK(fout.data<float>()[i] == Approx(want).epsilon(1e-5));
      CHECK(dout.data<double>()[i] == Approx(want).epsilon(1e-12));
    }
  }
}

TEST_CASE("Unary edge values follow IEEE") {
  const float inf = std::numeric_limits<float>::infinity();
  Tensor x = MakeVector<float>({0.0f, -1.0f});
  std::vector<float> log = Values<float>(RunUnary("Log", DT_FLOAT, x));
  CHECK(log[0] == -inf);
  CHECK(std::isnan(log[1]));
  std::vector<float> sqrt = Values<float>(RunUnary("Sqrt", DT_FLOAT, x));
  CHECK(sqrt[0] == 0.0f);
  CHECK(std::isnan(sqrt[1]));
  Tensor big = MakeVector<float>({-100.0f, 100.0f});
  std::vector<float> sig = Values<float>(RunUnary("Sigmoid", DT_FLOAT, big));
  CHECK(sig[0] >= 0.0f);
  CHECK(sig[0] < 1e-30f);
  CHECK(sig[1] == 1.0f);
  std::vector<float> tanh = Values<float>(RunUnary("Tanh", DT_FLOAT, big));
  CHECK(tanh[0] == -1.0f);
  CHECK(tanh[1] == 1.0f);
}

TEST_CASE("Unary ops on half, and on a large tensor") {
  Tensor h = MakeVector<Eigen::half>({Eigen::half(4.0f), Eigen::half(0.25f)});
  Tensor s = RunUnary("Sqrt", DT_HALF, h);
  CHECK(static_cast<float>(s.data<Eigen::half>()[0]) == 2.0f);
  CHECK(static_cast<float>(s.data<Eigen::half>()[1]) == 0.5f);

  Tensor big(DT_FLOAT, TensorShape({300, 301}));
  for (int64_t i = 0; i < big.NumElements(); ++i) {
    big.data<float>()[i] = static_cast<float>(i % 1000) - 500.0f;
  }
  Tensor out = RunUnary("Abs", DT_FLOAT, big);
  int mismatches = 0;
  for (int64_t i = 0; i < big.NumElements(); ++i) {
    if (out.data<float>()[i] != std::fabs(big.data<float>()[i])) ++mismatches;
  }
  CHECK(mismatches == 0);
}

TEST_CASE("Transcendental ops have no integer kernel") {
  auto out = testing::RunKernel(TypedNode("e", "Exp", DT_INT32, 1).Build(),
                                {MakeVector<int32_t>({1})});
  CHECK_FALSE(out.ok());
}

}  // namespace
}  // namespace dfx
