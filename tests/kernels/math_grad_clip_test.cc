// TanhGrad, SigmoidGrad, RsqrtGrad, SqrtGrad, ReciprocalGrad, InvGrad,
// ClipByValue and ApproximateEqual.
#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>
#include <string>
#include <vector>

#include "catch2/catch.hpp"
#include "tests/kernels/math_test_util.h"

namespace dfx {
namespace {

using testing::MakeTensor;
using testing::MakeVector;
using testing::RunError;
using testing::RunOne;
using testing::StatusIs;
using testing::TypedNode;
using testing::Values;

TEST_CASE("Gradients of unary functions follow their formulas") {
  const std::vector<
      std::pair<const char*, std::function<double(double, double)>>>
      grads = {
          {"TanhGrad", [](double y, double dy) { return dy * (1 - y * y); }},
          {"SigmoidGrad", [](double y, double dy) { return dy * y * (1 - y); }},
          {"RsqrtGrad",
           [](double y, double dy) { return -0.5 * dy * y * y * y; }},
          {"SqrtGrad", [](double y, double dy) { return 0.5 * dy / y; }},
          {"ReciprocalGrad", [](double y, double dy) { return -dy * y * y; }},
          {"InvGrad", [](double y, double dy) { return -dy * y * y; }},
      };
  // 70000 elements: split across the pool, vectorised, with a scalar tail.
  const int64_t n = 70001;
  std::vector<double> y(n), dy(n);
  for (int64_t i = 0; i < n; ++i) {
    y[i] = 0.1 + 0.8 * static_cast<double>(i % 97) / 97;
    dy[i] = -2.0 + static_cast<double>(i % 13) / 3;
  }
  for (const auto& [op, fn] : grads) {
    INFO(op);
    const std::vector<double> z = Values<double>(RunOne(
        TypedNode("g", op, DT_DOUBLE, 2).Build(),
        {Tensor::FromVector<double>(y), Tensor::FromVector<double>(dy)}));
    int bad = 0;
    for (int64_t i = 0; i < n; ++i) {
      if (std::fabs(z[i] - fn(y[i], dy[i])) > 1e-12) ++bad;
    }
    CHECK(bad == 0);
    // half: within half's precision of the exact value.
    const Tensor h = RunOne(
        TypedNode("g", op, DT_HALF, 2).Build(),
        {MakeVector<Eigen::half>({Eigen::half(0.5f), Eigen::half(0.25f)}),
         MakeVector<Eigen::half>({Eigen::half(2.0f), Eigen::half(-1.0f)})});
    CHECK(static_cast<double>(h.data<Eigen::half>()[0]) ==
          Approx(fn(0.5, 2.0)).epsilon(1e-3));
    CHECK(static_cast<double>(h.data<Eigen::half>()[1]) ==
          Approx(fn(0.25, -1.0)).epsilon(1e-3));
  }
}

TEST_CASE("Gradient ops need as many elements in y and dy, not one shape") {
  const Tensor y = MakeVector<float>({0.5f, 0.25f});
  const Tensor dy = MakeTensor<float>({1.0f, 2.0f}, TensorShape({2, 1}));
  const Tensor z =
      RunOne(TypedNode("g", "TanhGrad", DT_FLOAT, 2).Build(), {y, dy});
  CHECK(z.shape() == TensorShape({2}));
  CHECK(Values<float>(z) == std::vector<float>{0.75f, 2.0f * (1 - 0.0625f)});
  CHECK_THAT(RunError(TypedNode("g", "SqrtGrad", DT_FLOAT, 2).Build(),
                      {y, MakeVector<float>({1, 2, 3})}),
             StatusIs(absl::StatusCode::kInvalidArgument,
                      "The two arguments to a cwise op must have same number "
                      "of elements, got 2 and 3"));
}

Tensor Clip(DataType dtype, const Tensor& t, const Tensor& lo,
            const Tensor& hi) {
  return RunOne(TypedNode("c", "ClipByValue", dtype, 3).Build(), {t, lo, hi});
}

TEST_CASE("ClipByValue: scalar or same-shape bounds, NaN kept") {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const Tensor t =
      MakeTensor<float>({1, nan, 5, -5, 0.5f, 3}, TensorShape({2, 3}));
  const std::vector<float> s = Values<float>(
      Clip(DT_FLOAT, t, Tensor::Scalar(0.0f), Tensor::Scalar(2.0f)));
  CHECK(s[0] == 1);
  CHECK(std::isnan(s[1]));
  CHECK(s[2] == 2);
  CHECK(s[3] == 0);
  const Tensor lo = MakeTensor<float>({0, 0, 0, 1, 1, 4}, TensorShape({2, 3}));
  const Tensor hi = MakeTensor<float>({2, 2, 2, 3, 3, 5}, TensorShape({2, 3}));
  const std::vector<float> v = Values<float>(Clip(DT_FLOAT, t, lo, hi));
  CHECK(v[3] == 1);
  CHECK(v[4] == 1);
  CHECK(v[5] == 4);
  CHECK(Values<float>(Clip(DT_FLOAT, t, lo, Tensor::Scalar(2.5f)))[5] == 4);
  // lo > hi gives lo; a NaN bound is ignored.
  CHECK(Values<float>(Clip(DT_FLOAT, MakeVector<float>({1, 3}),
                           Tensor::Scalar(2.0f), Tensor::Scalar(0.0f))) ==
        std::vector<float>{2, 2});
  CHECK(Values<float>(Clip(DT_FLOAT, MakeVector<float>({1, 3}),
                           Tensor::Scalar(nan), Tensor::Scalar(2.0f))) ==
        std::vector<float>{1, 2});
  // Integers, and bfloat16 through float.
  CHECK(Values<int8_t>(Clip(DT_INT8, MakeVector<int8_t>({-128, 5, 127}),
                            Tensor::Scalar<int8_t>(-3),
                            Tensor::Scalar<int8_t>(100))) ==
        std::vector<int8_t>{-3, 5, 100});
  const Tensor b = Clip(DT_BFLOAT16,
                        MakeVector<Eigen::bfloat16>(
                            {Eigen::bfloat16(-7.0f), Eigen::bfloat16(0.5f)}),
                        Tensor::Scalar(Eigen::bfloat16(-1.0f)),
                        Tensor::Scalar(Eigen::bfloat16(1.0f)));
  CHECK(static_cast<float>(b.data<Eigen::bfloat16>()[0]) == -1.0f);
  CHECK(static_cast<float>(b.data<Eigen::bfloat16>()[1]) == 0.5f);
}

TEST_CASE("ClipByValue on a large tensor with tensor bounds") {
  const int64_t n = 100003;
  std::vector<double> t(n), lo(n);
  for (int64_t i = 0; i < n; ++i) {
    t[i] = static_cast<double>(i % 200) - 100;
    lo[i] = static_cast<double>(i % 7) - 50;
  }
  const std::vector<double> out = Values<double>(
      Clip(DT_DOUBLE, Tensor::FromVector<double>(t),
           Tensor::FromVector<double>(lo), Tensor::Scalar(60.0)));
  int bad = 0;
  for (int64_t i = 0; i < n; ++i) {
    if (out[i] != std::max(std::min(t[i], 60.0), lo[i])) ++bad;
  }
  CHECK(bad == 0);
}

TEST_CASE("ClipByValue writes over t when nothing else holds it, never "
          "over a bound") {
  const int64_t n = 10007;
  std::vector<float> t(n), lo(n);
  for (int64_t i = 0; i < n; ++i) {
    t[i] = static_cast<float>(i % 200) - 100;
    lo[i] = static_cast<float>(i % 7) - 50;
  }
  std::vector<Tensor> in = {Tensor::FromVector<float>(t),
                            Tensor::FromVector<float>(lo),
                            Tensor::Scalar(60.0f)};
  const void* t_buffer = in[0].raw_data();
  Tensor out = RunOne(TypedNode("c", "ClipByValue", DT_FLOAT, 3).Build(), in);
  CHECK(out.raw_data() == t_buffer);
  CHECK(Values<float>(in[1]) == lo);
  int bad = 0;
  for (int64_t i = 0; i < n; ++i) {
    if (out.data<float>()[i] != std::max(std::min(t[i], 60.0f), lo[i])) ++bad;
  }
  CHECK(bad == 0);
  // t held elsewhere: a new buffer, t unchanged.
  const Tensor kept = Tensor::FromVector<float>(t);
  Tensor fresh =
      RunOne(TypedNode("c", "ClipByValue", DT_FLOAT, 3).Build(),
             {kept, Tensor::FromVector<float>(lo), Tensor::Scalar(60.0f)});
  CHECK(fresh.raw_data() != kept.raw_data());
  CHECK(Values<float>(kept) == t);
  CHECK(Values<float>(fresh) == Values<float>(out));
}

TEST_CASE("ClipByValue rejects bounds that are neither scalar nor t's shape") {
  CHECK_THAT(RunError(TypedNode("c", "ClipByValue", DT_FLOAT, 3).Build(),
                      {MakeVector<float>({1, 2, 3}), MakeVector<float>({0, 0}),
                       Tensor::Scalar(2.0f)}),
             StatusIs(absl::StatusCode::kInvalidArgument,
                      "clip_value_min and clip_value_max must be either of "
                      "the same shape as input, or a scalar"));
  // A one-element vector is not a scalar.
  CHECK_THAT(RunError(TypedNode("c", "ClipByValue", DT_FLOAT, 3).Build(),
                      {MakeVector<float>({1, 2}), MakeVector<float>({0}),
                       Tensor::Scalar(2.0f)}),
             StatusIs(absl::StatusCode::kInvalidArgument));
}

TEST_CASE("ApproximateEqual compares |x - y| with the tolerance attr") {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const Tensor x = MakeVector<float>({1.0f, 1.0f, nan, 2.0f});
  const Tensor y = MakeVector<float>({1.000001f, 1.1f, nan, 2.0f});
  CHECK(Values<bool>(RunOne(
            TypedNode("a", "ApproximateEqual", DT_FLOAT, 2).Build(), {x, y})) ==
        std::vector<bool>{true, false, false, true});
  CHECK(Values<bool>(RunOne(TypedNode("a", "ApproximateEqual", DT_FLOAT, 2)
                                .Attr("tolerance", 0.5f)
                                .Build(),
                            {x, y})) ==
        std::vector<bool>{true, true, false, true});
  CHECK_THAT(RunError(TypedNode("a", "ApproximateEqual", DT_FLOAT, 2).Build(),
                      {x, Tensor::Scalar(1.0f)}),
             StatusIs(absl::StatusCode::kInvalidArgument,
                      "x and y must be of the same shape. x shape: [4]. y "
                      "shape: []"));
}

}  // namespace
}  // namespace dfx
