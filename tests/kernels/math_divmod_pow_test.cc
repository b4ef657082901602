// FloorDiv, FloorMod, Mod, TruncateDiv, TruncateMod, Pow and Atan2: the
// identities that tie quotient and remainder together on every integer
// type, floating-point special values, and TensorFlow's errors.
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <string>
#include <type_traits>
#include <vector>

#include "catch2/catch.hpp"
#include "tests/kernels/math_test_util.h"

namespace dfx {
namespace {

using testing::MakeVector;
using testing::RunError;
using testing::RunOne;
using testing::StatusIs;
using testing::TypedNode;
using testing::Values;

template <typename T>
std::vector<T> Binary(const std::string& op, const std::vector<T>& x,
                      const std::vector<T>& y) {
  const NodeDef node = TypedNode("n", op, DataTypeToEnum<T>::value, 2).Build();
  return Values<T>(
      RunOne(node, {Tensor::FromVector<T>(x), Tensor::FromVector<T>(y)}));
}

// Checks a == q * b + r (wrapping) with the remainder's sign rule, against
// int64 arithmetic, over random operands and the extreme values.
template <typename T>
void CheckDivModIdentities(const std::string& div_op, const std::string& mod_op,
                           bool floor) {
  std::mt19937 rng(7);
  std::vector<T> x, y;
  const int64_t lo = std::numeric_limits<T>::min();
  const int64_t hi = std::numeric_limits<T>::max();
  for (int i = 0; i < 2000; ++i) {
    int64_t a = std::uniform_int_distribution<int64_t>(lo, hi)(rng);
    int64_t b = 0;
    while (b == 0) {
      b = i % 3 == 0 ? std::uniform_int_distribution<int64_t>(-9, 9)(rng)
                     : std::uniform_int_distribution<int64_t>(lo, hi)(rng);
      if (std::is_unsigned_v<T> && b < 0) b = -b;
    }
    x.push_back(static_cast<T>(a));
    y.push_back(static_cast<T>(b));
  }
  for (T a : {std::numeric_limits<T>::min(), std::numeric_limits<T>::max(),
              T(0), T(1)}) {
    for (T b : {T(1), std::numeric_limits<T>::max(), T(3)}) {
      x.push_back(a);
      y.push_back(b);
    }
    if constexpr (std::is_signed_v<T>) {
      x.push_back(a);
      y.push_back(T(-1));
    }
  }
  const std::vector<T> q = Binary<T>(div_op, x, y);
  const std::vector<T> r = Binary<T>(mod_op, x, y);
  for (size_t i = 0; i < x.size(); ++i) {
    INFO(+x[i] << " " << div_op << "/" << mod_op << " " << +y[i] << " = "
               << +q[i] << ", " << +r[i]);
    using U = std::make_unsigned_t<T>;
    const U back = static_cast<U>(static_cast<U>(q[i]) * static_cast<U>(y[i]) +
                                  static_cast<U>(r[i]));
    CHECK(back == static_cast<U>(x[i]));
    if (r[i] != 0) {
      // Floor: the remainder has the divisor's sign; truncate: the
      // dividend's.
      const bool want_negative = floor ? y[i] < 0 : x[i] < 0;
      CHECK((r[i] < 0) == want_negative);
    }
    if constexpr (std::is_signed_v<T>) {
      if (y[i] == T(-1)) CHECK(r[i] == 0);  // MIN % -1 does not trap
    }
    // |r| < |b|.
    auto abs = [](T v) {
      return v < 0 ? uint64_t{0} - static_cast<uint64_t>(v)
                   : static_cast<uint64_t>(v);
    };
    CHECK(abs(r[i]) < abs(y[i]));
  }
}

TEMPLATE_TEST_CASE("FloorDiv and FloorMod agree on every integer type",
                   "[math]", int8_t, int16_t, int32_t, int64_t, uint8_t) {
  CheckDivModIdentities<TestType>("FloorDiv", "FloorMod", /*floor=*/true);
}

TEST_CASE("Mod and TruncateMod truncate, FloorMod floors (int32, int64)") {
  CheckDivModIdentities<int32_t>("TruncateDiv", "TruncateMod", false);
  CheckDivModIdentities<int64_t>("TruncateDiv", "Mod", false);
  CHECK(Binary<int32_t>("FloorMod", {7, -7, 7, -7}, {2, 2, -2, -2}) ==
        std::vector<int32_t>{1, 1, -1, -1});
  CHECK(Binary<int32_t>("Mod", {7, -7, 7, -7}, {2, 2, -2, -2}) ==
        std::vector<int32_t>{1, -1, 1, -1});
  CHECK(Binary<int32_t>("TruncateDiv", {7, -7, 7, -7}, {2, 2, -2, -2}) ==
        std::vector<int32_t>{3, -3, -3, 3});
}

TEST_CASE("Floating-point modulo and division keep TensorFlow's signs") {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const float inf = std::numeric_limits<float>::infinity();
  const std::vector<float> x = {7.5f, -7.5f, 7.5f, -7.5f, 5.0f, -0.0f, 3.0f};
  const std::vector<float> y = {2.0f, 2.0f, -2.0f, -2.0f, 0.0f, 3.0f, inf};
  const std::vector<float> floor_mod = Binary<float>("FloorMod", x, y);
  CHECK(floor_mod[0] == 1.5f);
  CHECK(floor_mod[1] == 0.5f);
  CHECK(floor_mod[2] == -0.5f);
  CHECK(floor_mod[3] == -1.5f);
  CHECK(std::isnan(floor_mod[4]));
  CHECK((floor_mod[5] == 0.0f && std::signbit(floor_mod[5])));
  CHECK(floor_mod[6] == 3.0f);
  const std::vector<float> mod = Binary<float>("Mod", x, y);
  CHECK(mod[1] == -1.5f);
  CHECK(mod[2] == 1.5f);
  const std::vector<float> tdiv = Binary<float>("TruncateDiv", x, y);
  CHECK(tdiv[0] == 3.0f);
  CHECK(tdiv[1] == -3.0f);
  CHECK(tdiv[4] == inf);
  CHECK(std::signbit(tdiv[5]));
  // half computes in float.
  const Tensor h =
      RunOne(TypedNode("n", "FloorMod", DT_HALF, 2).Build(),
             {MakeVector<Eigen::half>({Eigen::half(-7.5f), Eigen::half(nan)}),
              MakeVector<Eigen::half>({Eigen::half(2.0f), Eigen::half(1.0f)})});
  CHECK(static_cast<float>(h.data<Eigen::half>()[0]) == 0.5f);
  CHECK(Eigen::numext::isnan(h.data<Eigen::half>()[1]));
}

TEST_CASE("Integer division and modulo by zero fail as in TensorFlow") {
  for (const char* op :
       {"FloorMod", "Mod", "TruncateDiv", "TruncateMod", "FloorDiv", "Div"}) {
    INFO(op);
    CHECK_THAT(
        RunError(TypedNode("n", op, DT_INT32, 2).Build(),
                 {MakeVector<int32_t>({4, 5}), MakeVector<int32_t>({1, 0})}),
        StatusIs(absl::StatusCode::kInvalidArgument,
                 "Integer division by zero"));
  }
  CHECK_THAT(
      RunError(TypedNode("n", "FloorMod", DT_UINT8, 2).Build(),
               {MakeVector<uint8_t>({4}), Tensor::Scalar<uint8_t>(0)}),
      StatusIs(absl::StatusCode::kInvalidArgument, "Integer division by zero"));
  // Nothing is divided when the output is empty.
  const Tensor empty(DT_INT32, TensorShape({0}));
  const Tensor out = RunOne(TypedNode("n", "FloorMod", DT_INT32, 2).Build(),
                            {empty, Tensor::Scalar<int32_t>(0)});
  CHECK(out.NumElements() == 0);
}

// a ** b with wrapping multiplication, the reference for integer Pow.
template <typename T>
T WrappingPow(T a, T b) {
  using U = std::make_unsigned_t<T>;
  U result = 1;
  for (T i = 0; i < b; ++i) result = static_cast<U>(result * static_cast<U>(a));
  return static_cast<T>(result);
}

TEMPLATE_TEST_CASE("Integer Pow wraps like repeated multiplication", "[math]",
                   int8_t, int16_t, int32_t, int64_t) {
  std::vector<TestType> x, y;
  for (int a = -5; a <= 12; ++a) {
    for (int b = 0; b <= 40; b += 3) {
      x.push_back(static_cast<TestType>(a));
      y.push_back(static_cast<TestType>(b));
    }
  }
  const std::vector<TestType> z = Binary<TestType>("Pow", x, y);
  for (size_t i = 0; i < x.size(); ++i) {
    INFO(+x[i] << " ** " << +y[i]);
    CHECK(z[i] == WrappingPow(x[i], y[i]));
  }
}

TEST_CASE("Integer Pow with a negative exponent is TensorFlow's error") {
  CHECK_THAT(
      RunError(TypedNode("n", "Pow", DT_INT64, 2).Build(),
               {MakeVector<int64_t>({2, 2}), MakeVector<int64_t>({1, -1})}),
      StatusIs(absl::StatusCode::kInvalidArgument,
               "Integers to negative integer powers are not allowed"));
}

TEST_CASE("Float Pow and Atan2 follow the C library") {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const std::vector<float> x = {2.0f, -8.0f, 0.0f, nan, 1.0f, 9.0f};
  const std::vector<float> y = {10.0f, 1.0f / 3, -1.0f, 0.0f, nan, 0.5f};
  const std::vector<float> z = Binary<float>("Pow", x, y);
  CHECK(z[0] == 1024.0f);
  CHECK(std::isnan(z[1]));
  CHECK(z[2] == std::numeric_limits<float>::infinity());
  CHECK(z[3] == 1.0f);
  CHECK(z[4] == 1.0f);
  CHECK(z[5] == Approx(3.0f));
  // Atan2(y, x): the quadrant from both signs.
  const std::vector<double> a =
      Binary<double>("Atan2", {1.0, 1.0, -1.0, -1.0, 0.0, -0.0},
                     {1.0, -1.0, 1.0, -1.0, -1.0, -1.0});
  for (size_t i = 0; i < a.size(); ++i) {
    const double ys[] = {1.0, 1.0, -1.0, -1.0, 0.0, -0.0};
    const double xs[] = {1.0, -1.0, 1.0, -1.0, -1.0, -1.0};
    CHECK(a[i] == std::atan2(ys[i], xs[i]));
  }
}

}  // namespace
}  // namespace dfx
