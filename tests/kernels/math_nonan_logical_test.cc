// DivNoNan, MulNoNan, Xdivy, Xlogy, Xlog1py (0 wherever TensorFlow says so,
// whatever the other operand) and LogicalAnd, LogicalOr, LogicalNot.
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "catch2/catch.hpp"
#include "tests/kernels/math_test_util.h"

namespace dfx {
namespace {

using testing::MakeTensor;
using testing::MakeVector;
using testing::RunOne;
using testing::TestNodeBuilder;
using testing::TypedNode;
using testing::Values;

constexpr double kNan = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();

// The op on x and y, repeated `copies` times so that most elements take
// the vectorised path and the rest the scalar tail.
template <typename T>
std::vector<T> RunRepeated(const std::string& op, const std::vector<double>& x,
                           const std::vector<double>& y, int copies) {
  std::vector<T> xs, ys;
  for (int c = 0; c < copies; ++c) {
    for (size_t i = 0; i < x.size(); ++i) {
      xs.push_back(static_cast<T>(x[i]));
      ys.push_back(static_cast<T>(y[i]));
    }
  }
  return Values<T>(
      RunOne(TypedNode("n", op, DataTypeToEnum<T>::value, 2).Build(),
             {Tensor::FromVector<T>(xs), Tensor::FromVector<T>(ys)}));
}

// Checks op(x, y) against `want` (NaN matches NaN) on float, double, half.
void CheckOp(const std::string& op, const std::vector<double>& x,
             const std::vector<double>& y, const std::vector<double>& want) {
  auto check = [&](const auto& got, double tolerance) {
    REQUIRE(got.size() % want.size() == 0);
    for (size_t i = 0; i < got.size(); ++i) {
      const double g = static_cast<double>(got[i]);
      const double w = want[i % want.size()];
      INFO(op << "(" << x[i % x.size()] << ", " << y[i % y.size()]
              << ") = " << g << ", want " << w);
      if (std::isnan(w)) {
        CHECK(std::isnan(g));
      } else if (std::isinf(w)) {
        CHECK(g == w);
      } else {
        CHECK(g == Approx(w).epsilon(tolerance).margin(tolerance));
      }
    }
  };
  check(RunRepeated<float>(op, x, y, 7), 1e-6);
  check(RunRepeated<double>(op, x, y, 7), 1e-12);
  check(RunRepeated<Eigen::half>(op, x, y, 3), 2e-3);
  check(RunRepeated<Eigen::bfloat16>(op, x, y, 3), 1e-2);
}

TEST_CASE("DivNoNan and MulNoNan give 0 where y is 0") {
  CheckOp("DivNoNan", {1.0, kNan, kInf, 0.0, 1.0, 3.0, -6.0},
          {0.0, 0.0, 0.0, 0.0, -0.0, 2.0, 4.0},
          {0.0, 0.0, 0.0, 0.0, 0.0, 1.5, -1.5});
  CheckOp("MulNoNan", {kInf, kNan, 2.0, kInf, -3.0}, {0.0, 0.0, 3.0, kNan, 0.5},
          {0.0, 0.0, 6.0, kNan, -1.5});
}

TEST_CASE("Xdivy, Xlogy and Xlog1py give 0 where x is 0") {
  CheckOp("Xdivy", {0.0, 0.0, 1.0, 0.0, 3.0}, {0.0, kNan, 0.0, kInf, 2.0},
          {0.0, 0.0, kInf, 0.0, 1.5});
  CheckOp("Xlogy", {0.0, 0.0, 1.0, 0.0, 2.0, 2.0},
          {0.0, kNan, 0.0, kInf, -1.0, 4.0},
          {0.0, 0.0, -kInf, 0.0, kNan, 2.0 * std::log(4.0)});
  CheckOp("Xlog1py", {0.0, 0.0, 1.0, 3.0}, {-1.0, kNan, -1.0, 0.5},
          {0.0, 0.0, -kInf, 3.0 * std::log1p(0.5)});
}

TEST_CASE("Logical ops broadcast on bool") {
  const Tensor col = MakeTensor<bool>({true, false}, TensorShape({2, 1}));
  const Tensor row = MakeVector<bool>({true, false, true});
  const NodeDef and_node = TestNodeBuilder("a", "LogicalAnd", 2).Build();
  const NodeDef or_node = TestNodeBuilder("o", "LogicalOr", 2).Build();
  const Tensor a = RunOne(and_node, {col, row});
  REQUIRE(a.shape() == TensorShape({2, 3}));
  CHECK(Values<bool>(a) ==
        std::vector<bool>{true, false, true, false, false, false});
  CHECK(Values<bool>(RunOne(or_node, {col, row})) ==
        std::vector<bool>{true, true, true, true, false, true});
  CHECK(Values<bool>(RunOne(TestNodeBuilder("n", "LogicalNot", 1).Build(),
                            {row})) == std::vector<bool>{false, true, false});
}

}  // namespace
}  // namespace dfx
