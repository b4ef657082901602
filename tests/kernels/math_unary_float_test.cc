// Sign, Round, Rint, Floor, Ceil, IsNan, IsInf, IsFinite, Inv and the
// transcendental unary ops on every floating-point type: half and bfloat16
// compute in float and round once.
#include <cmath>
#include <cstdint>
#include <cstring>
#include <functional>
#include <limits>
#include <string>
#include <vector>

#include "catch2/catch.hpp"
#include "tests/kernels/math_test_util.h"

namespace dfx {
namespace {

using testing::MakeVector;
using testing::RunOne;
using testing::TypedNode;
using testing::Values;

constexpr float kNan = std::numeric_limits<float>::quiet_NaN();
constexpr float kInf = std::numeric_limits<float>::infinity();

template <typename T>
Tensor RunUnary(const std::string& op, const std::vector<float>& x) {
  std::vector<T> v;
  for (float f : x) v.push_back(static_cast<T>(f));
  return RunOne(TypedNode("u", op, DataTypeToEnum<T>::value, 1).Build(),
                {Tensor::FromVector<T>(v)});
}

template <typename T>
std::vector<float> AsFloats(const Tensor& t) {
  std::vector<float> out;
  for (T v : Values<T>(t)) out.push_back(static_cast<float>(v));
  return out;
}

TEST_CASE("Sign keeps NaN and gives +0 for -0") {
  const std::vector<float> s = AsFloats<float>(
      RunUnary<float>("Sign", {kNan, -0.0f, 0.0f, -2.5f, 2.5f, kInf, -kInf}));
  CHECK(std::isnan(s[0]));
  CHECK((s[1] == 0.0f && !std::signbit(s[1])));
  CHECK(s[2] == 0.0f);
  CHECK(s[3] == -1.0f);
  CHECK(s[4] == 1.0f);
  CHECK(s[5] == 1.0f);
  CHECK(s[6] == -1.0f);
  CHECK(Values<int8_t>(RunOne(TypedNode("u", "Sign", DT_INT8, 1).Build(),
                              {MakeVector<int8_t>({-128, 0, 5})})) ==
        std::vector<int8_t>{-1, 0, 1});
}

TEMPLATE_TEST_CASE("Round and Rint take ties to even", "[math]", float, double,
                   Eigen::half, Eigen::bfloat16) {
  const std::vector<float> ties = {0.5f, 1.5f, 2.5f, -0.5f, -1.5f, -2.5f, 3.7f};
  const std::vector<float> want = {0.0f, 2.0f, 2.0f, -0.0f, -2.0f, -2.0f, 4.0f};
  const std::vector<float> got =
      AsFloats<TestType>(RunUnary<TestType>("Round", ties));
  for (size_t i = 0; i < ties.size(); ++i) {
    INFO(ties[i]);
    CHECK(got[i] == want[i]);
    CHECK(std::signbit(got[i]) == std::signbit(want[i]));
  }
  if constexpr (std::is_floating_point_v<TestType>) {
    CHECK(AsFloats<TestType>(RunUnary<TestType>("Rint", ties)) == want);
    // The largest float below 0.5 rounds to 0, not 1.
    CHECK(AsFloats<TestType>(RunUnary<TestType>("Round", {0.49999997f}))[0] ==
          0);
  }
}

TEMPLATE_TEST_CASE("Floor, Ceil and the classifications", "[math]", float,
                   double, Eigen::half, Eigen::bfloat16) {
  const std::vector<float> x = {kNan, kInf, -kInf, -0.0f, 2.5f, -2.5f};
  const std::vector<float> floor =
      AsFloats<TestType>(RunUnary<TestType>("Floor", x));
  CHECK(std::isnan(floor[0]));
  CHECK(floor[1] == kInf);
  CHECK(std::signbit(floor[3]));
  CHECK(floor[4] == 2.0f);
  CHECK(floor[5] == -3.0f);
  const std::vector<float> ceil =
      AsFloats<TestType>(RunUnary<TestType>("Ceil", x));
  CHECK(ceil[4] == 3.0f);
  CHECK(ceil[5] == -2.0f);
  CHECK(Values<bool>(RunUnary<TestType>("IsNan", x)) ==
        std::vector<bool>{true, false, false, false, false, false});
  CHECK(Values<bool>(RunUnary<TestType>("IsInf", x)) ==
        std::vector<bool>{false, true, true, false, false, false});
  CHECK(Values<bool>(RunUnary<TestType>("IsFinite", x)) ==
        std::vector<bool>{false, false, false, true, true, true});
}

TEMPLATE_TEST_CASE("Sqrt of +inf is +inf on the vectorised path too", "[math]",
                   float, double, Eigen::half, Eigen::bfloat16) {
  std::vector<float> x(37, kInf);
  x[3] = 4.0f;
  x[20] = -1.0f;
  const std::vector<float> got =
      AsFloats<TestType>(RunUnary<TestType>("Sqrt", x));
  for (size_t i = 0; i < x.size(); ++i) {
    INFO(i);
    if (i == 3) {
      CHECK(got[i] == 2.0f);
    } else if (i == 20) {
      CHECK(std::isnan(got[i]));
    } else {
      CHECK(got[i] == kInf);
    }
  }
}

// Float Sqrt is correctly rounded, as TensorFlow's is, on the vector path
// too: Eigen 3.4's fast packet sqrt (an rsqrtps estimate and one Newton
// step) is a bit or two off, flushes denormals and differs between Intel
// and AMD CPUs.
TEST_CASE("float Sqrt equals std::sqrt exactly on every element", "[math]") {
  std::vector<float> x;
  uint32_t state = 12345;
  for (int i = 0; i < 4096; ++i) {
    state = state * 1664525u + 1013904223u;
    // Positive floats of every exponent, denormals included.
    const uint32_t bits = state & 0x7fffffffu;
    float f;
    std::memcpy(&f, &bits, sizeof(f));
    x.push_back(std::isfinite(f) ? f : 1.0f);
  }
  for (int i = 1; i <= 64; ++i) x.push_back(static_cast<float>(i * i));
  const std::vector<float> got = Values<float>(RunUnary<float>("Sqrt", x));
  int wrong = 0;
  for (size_t i = 0; i < x.size(); ++i) {
    if (got[i] != std::sqrt(x[i]) && ++wrong <= 5) {
      INFO("sqrt(" << x[i] << ") gave " << got[i] << ", std::sqrt "
                   << std::sqrt(x[i]));
      CHECK(false);
    }
  }
  CHECK(wrong == 0);
}

// Each op on half and bfloat16 equals the float function of the widened
// value, rounded once (up to the float function's own last-bit error).
TEST_CASE("float Erfc is within 3e-7 relative of erfc from -10 to 10.5, "
          "tails and specials included", "[math]") {
  // (A vectorised kernel replaced the C library's erfcf, six times slower
  // than TensorFlow's; this pins its accuracy.)
  std::vector<float> x;
  for (int i = 0; i <= 41000; ++i) x.push_back(-10.0f + i * 5e-4f);
  const std::vector<float> specials = {0.0f, -0.0f, 1e-30f, -1e-30f, 9.9f,
                                       10.05f, 12.0f, 100.0f, -100.0f,
                                       kInf, -kInf, kNan};
  x.insert(x.end(), specials.begin(), specials.end());
  const std::vector<float> got = AsFloats<float>(RunUnary<float>("Erfc", x));
  REQUIRE(got.size() == x.size());
  for (size_t i = 0; i < x.size(); ++i) {
    INFO("Erfc(" << x[i] << ") = " << got[i]);
    const double want = std::erfc(static_cast<double>(x[i]));
    if (std::isnan(x[i])) {
      CHECK(std::isnan(got[i]));
    } else if (want < std::numeric_limits<float>::min()) {
      // Subnormal: zero where the thread flushes denormals (dfx's pool
      // threads do, as TensorFlow's), else within the subnormal spacing.
      CHECK((got[i] == 0.0f || std::abs(got[i] - want) <= 1.5e-45));
    } else {
      CHECK(std::abs(got[i] - want) <= 3e-7 * want);
    }
  }
  CHECK(got[got.size() - 3] == 0.0f);  // +inf
  CHECK(got[got.size() - 2] == 2.0f);  // -inf
}

TEST_CASE("Half and bfloat16 unary ops compute in float") {
  struct Op {
    const char* name;
    std::function<float(float)> fn;
    float lo, hi;
  };
  const std::vector<Op> ops = {
      {"Sin", [](float v) { return std::sin(v); }, -20, 20},
      {"Cos", [](float v) { return std::cos(v); }, -20, 20},
      {"Tan", [](float v) { return std::tan(v); }, -1.4f, 1.4f},
      {"Asin", [](float v) { return std::asin(v); }, -1, 1},
      {"Acos", [](float v) { return std::acos(v); }, -1, 1},
      {"Atan", [](float v) { return std::atan(v); }, -20, 20},
      {"Sinh", [](float v) { return std::sinh(v); }, -5, 5},
      {"Cosh", [](float v) { return std::cosh(v); }, -5, 5},
      {"Erf", [](float v) { return std::erf(v); }, -3, 3},
      {"Erfc", [](float v) { return std::erfc(v); }, -3, 3},
      {"Log1p", [](float v) { return std::log1p(v); }, -0.9f, 20},
      {"Expm1", [](float v) { return std::expm1(v); }, -5, 5},
      {"Exp", [](float v) { return std::exp(v); }, -5, 5},
      {"Inv", [](float v) { return 1.0f / v; }, 0.5f, 9},
  };
  for (const Op& op : ops) {
    std::vector<float> x;
    for (int i = 0; i < 1500; ++i) {  // over the widening chunk size
      x.push_back(op.lo + (op.hi - op.lo) * static_cast<float>(i) / 1499);
    }
    const std::vector<float> f = AsFloats<float>(RunUnary<float>(op.name, x));
    const std::vector<float> h =
        AsFloats<Eigen::half>(RunUnary<Eigen::half>(op.name, x));
    const std::vector<float> b =
        AsFloats<Eigen::bfloat16>(RunUnary<Eigen::bfloat16>(op.name, x));
    for (size_t i = 0; i < x.size(); ++i) {
      const float hx = static_cast<float>(Eigen::half(x[i]));
      const float bx = static_cast<float>(Eigen::bfloat16(x[i]));
      INFO(op.name << "(" << x[i] << ")");
      CHECK(f[i] == Approx(op.fn(x[i])).epsilon(1e-5).margin(1e-6));
      CHECK(h[i] == Approx(static_cast<float>(Eigen::half(op.fn(hx))))
                        .epsilon(1e-3)
                        .margin(1e-4));
      CHECK(b[i] == Approx(static_cast<float>(Eigen::bfloat16(op.fn(bx))))
                        .epsilon(8e-3)
                        .margin(1e-3));
    }
  }
}

}  // namespace
}  // namespace dfx
