// FusedBatchNorm (V1-V3) and FusedBatchNormGrad (V1-V3): training and
// inference against direct formulas, layouts, dtypes, and errors.
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "catch2/catch.hpp"
#include "runtime/tensor.h"
#include "tests/kernels/kernel_test_util.h"
#include "tests/kernels/shape_fn_test_util.h"
#include "tests/testing/status_matchers.h"

namespace dfx {
namespace {

using testing::RunKernel;
using testing::StatusIs;
using testing::TestNodeBuilder;

NodeDef BnNode(const std::string& op, DataType t, bool is_training,
               const char* format = "NHWC", float epsilon = 0.001f,
               float factor = 1.0f) {
  TestNodeBuilder b("bn", op, op.find("Grad") != std::string::npos
                                  ? (op == "FusedBatchNormGradV3" ? 6 : 5)
                                  : 5);
  b.Attr("T", t)
      .Attr("is_training", is_training)
      .Attr("data_format", format)
      .Attr("epsilon", epsilon);
  if (op != "FusedBatchNorm" && op != "FusedBatchNormGrad") {
    b.Attr("U", DT_FLOAT);
  }
  if (op.find("Grad") == std::string::npos) {
    b.Attr("exponential_avg_factor", factor);
  }
  return b.Build();
}

std::vector<float> Floats(const Tensor& t) {
  std::vector<float> v;
  if (t.dtype() == DT_FLOAT) {
    for (float x : t.span<float>()) v.push_back(x);
  } else if (t.dtype() == DT_HALF) {
    for (Eigen::half x : t.span<Eigen::half>()) v.push_back(static_cast<float>(x));
  } else {
    for (Eigen::bfloat16 x : t.span<Eigen::bfloat16>()) {
      v.push_back(static_cast<float>(x));
    }
  }
  return v;
}

std::vector<float> RandomFloats(std::mt19937* rng, int64_t n, float lo,
                                float hi) {
  std::uniform_real_distribution<float> d(lo, hi);
  std::vector<float> v(static_cast<size_t>(n));
  for (float& x : v) x = d(*rng);
  return v;
}

Tensor Vec(const std::vector<float>& v) { return Tensor::FromVector<float>(v); }

// Per-channel mean and biased variance of NHWC data [rest, c].
void Moments(const std::vector<float>& x, int64_t c, std::vector<double>* mean,
             std::vector<double>* var) {
  const int64_t rest = static_cast<int64_t>(x.size()) / c;
  mean->assign(c, 0.0);
  var->assign(c, 0.0);
  for (int64_t i = 0; i < rest; ++i)
    for (int64_t j = 0; j < c; ++j) (*mean)[j] += x[i * c + j];
  for (double& m : *mean) m /= static_cast<double>(rest);
  for (int64_t i = 0; i < rest; ++i)
    for (int64_t j = 0; j < c; ++j) {
      const double d = x[i * c + j] - (*mean)[j];
      (*var)[j] += d * d;
    }
  for (double& v : *var) v /= static_cast<double>(rest);
}

TEST_CASE("FusedBatchNormGrad's shape function wants x of rank 4 too, also "
          "beside a y_backprop of unknown rank") {
  const NodeDef node = BnNode("FusedBatchNormGradV3", DT_FLOAT, true);
  const PartialShape v = PartialShape::Known({3});
  CHECK_THAT(testing::InferShapes(node, {PartialShape::Unknown(),
                                         PartialShape::Scalar(), v, v, v, v})
                 .status(),
             StatusIs(absl::StatusCode::kInvalidArgument));
  absl::StatusOr<std::vector<PartialShape>> ok =
      testing::InferShapes(node, {PartialShape::Unknown(),
                                  PartialShape::Known({2, 5, 5, -1}), v, v, v,
                                  v});
  REQUIRE(ok.ok());
  CHECK((*ok)[0].DebugString() == "[2,5,5,3]");
}

TEST_CASE("FusedBatchNormV3 in training normalises with the batch moments") {
  std::mt19937 rng(1);
  const int64_t c = 5;
  const TensorShape shape({3, 7, 6, c});
  const auto x = RandomFloats(&rng, shape.num_elements(), -2, 5);
  const auto scale = RandomFloats(&rng, c, 0.5, 1.5);
  const auto offset = RandomFloats(&rng, c, -1, 1);
  std::vector<double> mean, var;
  Moments(x, c, &mean, &var);
  auto out = RunKernel(BnNode("FusedBatchNormV3", DT_FLOAT, true),
                       {Tensor::FromVector<float>(x, shape), Vec(scale),
                        Vec(offset), Vec({}), Vec({})});
  REQUIRE_OK(out);
  REQUIRE(out->size() == 6);
  const auto y = Floats((*out)[0]);
  for (size_t i = 0; i < y.size(); ++i) {
    const int64_t j = static_cast<int64_t>(i) % c;
    const double want =
        (x[i] - mean[j]) / std::sqrt(var[j] + 0.001) * scale[j] + offset[j];
    REQUIRE(y[i] == Approx(want).margin(1e-5));
  }
  const double n = static_cast<double>(shape.num_elements() / c);
  for (int64_t j = 0; j < c; ++j) {
    REQUIRE(Floats((*out)[1])[j] == Approx(mean[j]).margin(1e-6));
    // The running variance is unbiased (Bessel), the saved one biased.
    REQUIRE(Floats((*out)[2])[j] ==
            Approx(var[j] * n / (n - 1)).epsilon(1e-5));
    REQUIRE(Floats((*out)[3])[j] == Approx(mean[j]).margin(1e-6));
    REQUIRE(Floats((*out)[4])[j] == Approx(var[j]).epsilon(1e-5));
  }
  REQUIRE((*out)[5].shape() == TensorShape({1}));
}

TEST_CASE("FusedBatchNorm mixes running statistics by the average factor") {
  std::mt19937 rng(2);
  const int64_t c = 3;
  const TensorShape shape({2, 4, 4, c});
  const auto x = RandomFloats(&rng, shape.num_elements(), -1, 1);
  const std::vector<float> old_mean = {1, 2, 3}, old_var = {4, 5, 6};
  std::vector<double> mean, var;
  Moments(x, c, &mean, &var);
  auto out = RunKernel(
      BnNode("FusedBatchNormV2", DT_FLOAT, true, "NHWC", 0.001f, 0.25f),
      {Tensor::FromVector<float>(x, shape), Vec({1, 1, 1}), Vec({0, 0, 0}),
       Vec(old_mean), Vec(old_var)});
  REQUIRE_OK(out);
  const double n = 32;
  for (int64_t j = 0; j < c; ++j) {
    REQUIRE(Floats((*out)[1])[j] ==
            Approx(0.75 * old_mean[j] + 0.25 * mean[j]).epsilon(1e-5));
    REQUIRE(Floats((*out)[2])[j] ==
            Approx(0.75 * old_var[j] + 0.25 * var[j] * n / (n - 1))
                .epsilon(1e-5));
  }
  // With a factor other than 1 the running statistics must be given.
  REQUIRE_THAT(
      RunKernel(
          BnNode("FusedBatchNormV2", DT_FLOAT, true, "NHWC", 0.001f, 0.25f),
          {Tensor::FromVector<float>(x, shape), Vec({1, 1, 1}),
           Vec({0, 0, 0}), Vec({}), Vec({})})
          .status(),
      StatusIs(absl::StatusCode::kInvalidArgument,
               "When exponential_avg_factor != 1"));
}

TEST_CASE("FusedBatchNorm inference uses the given statistics") {
  const Tensor x =
      Tensor::FromVector<float>({1, 2, 3, 4, 5, 6}, TensorShape({1, 1, 3, 2}));
  auto out = RunKernel(BnNode("FusedBatchNorm", DT_FLOAT, false, "NHWC", 0.0f),
                       {x, Vec({2, 1}), Vec({1, 0}), Vec({3, 4}), Vec({4, 1})});
  REQUIRE_OK(out);
  // Channel 0: (x - 3) / 2 * 2 + 1 = x - 2; channel 1: (x - 4) / 1 * 1.
  REQUIRE(Floats((*out)[0]) == std::vector<float>{-1, -2, 1, 0, 3, 2});
  REQUIRE(Floats((*out)[1]) == std::vector<float>{3, 4});
  REQUIRE(Floats((*out)[2]) == std::vector<float>{4, 1});
}

TEST_CASE("FusedBatchNorm in NCHW equals NHWC on the transposed data") {
  std::mt19937 rng(3);
  const int64_t n = 2, c = 3, h = 4, w = 5;
  const auto nchw = RandomFloats(&rng, n * c * h * w, -3, 3);
  std::vector<float> nhwc(nchw.size());
  for (int64_t b = 0; b < n; ++b)
    for (int64_t j = 0; j < c; ++j)
      for (int64_t s = 0; s < h * w; ++s)
        nhwc[(b * h * w + s) * c + j] = nchw[(b * c + j) * h * w + s];
  for (bool training : {true, false}) {
    auto a = RunKernel(
        BnNode("FusedBatchNormV3", DT_FLOAT, training, "NCHW"),
        {Tensor::FromVector<float>(nchw, TensorShape({n, c, h, w})),
         Vec({1, 2, 3}), Vec({0, 1, 0}), Vec({0.5, 0, 1}), Vec({1, 2, 3})});
    auto b = RunKernel(
        BnNode("FusedBatchNormV3", DT_FLOAT, training, "NHWC"),
        {Tensor::FromVector<float>(nhwc, TensorShape({n, h, w, c})),
         Vec({1, 2, 3}), Vec({0, 1, 0}), Vec({0.5, 0, 1}), Vec({1, 2, 3})});
    REQUIRE_OK(a);
    REQUIRE_OK(b);
    const auto ya = Floats((*a)[0]), yb = Floats((*b)[0]);
    for (int64_t bb = 0; bb < n; ++bb)
      for (int64_t j = 0; j < c; ++j)
        for (int64_t s = 0; s < h * w; ++s) {
          REQUIRE(ya[(bb * c + j) * h * w + s] ==
                  Approx(yb[(bb * h * w + s) * c + j]).margin(1e-5));
        }
    for (int k = 1; k <= 4; ++k) {
      const auto sa = Floats((*a)[k]), sb = Floats((*b)[k]);
      for (int64_t j = 0; j < c; ++j) REQUIRE(sa[j] == Approx(sb[j]));
    }
  }
}

TEST_CASE("FusedBatchNormV3 with half and bfloat16 x keeps float statistics") {
  std::mt19937 rng(4);
  const TensorShape shape({2, 3, 3, 4});
  const auto x = RandomFloats(&rng, shape.num_elements(), -2, 2);
  Tensor xh(DT_HALF, shape), xb(DT_BFLOAT16, shape);
  std::vector<float> xr;
  for (size_t i = 0; i < x.size(); ++i) {
    xh.data<Eigen::half>()[i] = Eigen::half(x[i]);
    xb.data<Eigen::bfloat16>()[i] = Eigen::bfloat16(x[i]);
  }
  auto ref = RunKernel(BnNode("FusedBatchNormV3", DT_FLOAT, true),
                       {Tensor::FromVector<float>(x, shape), Vec({1, 1, 1, 1}),
                        Vec({0, 0, 0, 0}), Vec({}), Vec({})});
  REQUIRE_OK(ref);
  for (const Tensor& xt : {xh, xb}) {
    auto out = RunKernel(BnNode("FusedBatchNormV3", xt.dtype(), true),
                         {xt, Vec({1, 1, 1, 1}), Vec({0, 0, 0, 0}), Vec({}),
                          Vec({})});
    REQUIRE_OK(out);
    REQUIRE((*out)[0].dtype() == xt.dtype());
    REQUIRE((*out)[1].dtype() == DT_FLOAT);
    const auto y = Floats((*out)[0]), want = Floats((*ref)[0]);
    const double tol = xt.dtype() == DT_HALF ? 5e-3 : 3e-2;
    for (size_t i = 0; i < y.size(); ++i) {
      REQUIRE(y[i] == Approx(want[i]).margin(tol * 4));
    }
  }
}

TEST_CASE("FusedBatchNorm of an empty x gives NaN statistics") {
  auto out = RunKernel(BnNode("FusedBatchNormV3", DT_FLOAT, true),
                       {Tensor(DT_FLOAT, TensorShape({0, 2, 2, 2})),
                        Vec({1, 1}), Vec({0, 0}), Vec({}), Vec({})});
  REQUIRE_OK(out);
  REQUIRE((*out)[0].shape() == TensorShape({0, 2, 2, 2}));
  REQUIRE(std::isnan(Floats((*out)[1])[0]));
  REQUIRE(std::isnan(Floats((*out)[2])[1]));
}

// Gradient of sum(y * dy) by central differences in double-checked floats
// is too noisy; compare with the closed form computed in double instead.
TEST_CASE("FusedBatchNormGradV3 matches the closed-form gradient") {
  std::mt19937 rng(5);
  const int64_t c = 3;
  const TensorShape shape({2, 3, 4, c});
  const auto x = RandomFloats(&rng, shape.num_elements(), -2, 3);
  const auto dy = RandomFloats(&rng, shape.num_elements(), -1, 1);
  const std::vector<float> scale = {0.5, 1.0, 2.0};
  std::vector<double> mean, var;
  Moments(x, c, &mean, &var);
  const double eps = 0.001;
  const int64_t rest = shape.num_elements() / c;
  std::vector<float> meanf(mean.begin(), mean.end()),
      varf(var.begin(), var.end());
  auto out = RunKernel(BnNode("FusedBatchNormGradV3", DT_FLOAT, true),
                       {Tensor::FromVector<float>(dy, shape),
                        Tensor::FromVector<float>(x, shape), Vec(scale),
                        Vec(meanf), Vec(varf), Vec({})});
  REQUIRE_OK(out);
  REQUIRE((*out)[3].shape() == TensorShape({0}));
  REQUIRE((*out)[4].shape() == TensorShape({0}));
  std::vector<double> sdy(c, 0), sdyx(c, 0);
  for (int64_t i = 0; i < rest; ++i)
    for (int64_t j = 0; j < c; ++j) {
      sdy[j] += dy[i * c + j];
      sdyx[j] += dy[i * c + j] * (x[i * c + j] - mean[j]);
    }
  const auto dx = Floats((*out)[0]);
  for (int64_t i = 0; i < rest; ++i)
    for (int64_t j = 0; j < c; ++j) {
      const double r = 1 / std::sqrt(var[j] + eps);
      const double want =
          scale[j] * r *
          (dy[i * c + j] - sdy[j] / rest -
           (x[i * c + j] - mean[j]) * r * r * sdyx[j] / rest);
      REQUIRE(dx[i * c + j] == Approx(want).margin(1e-5));
    }
  for (int64_t j = 0; j < c; ++j) {
    REQUIRE(Floats((*out)[1])[j] ==
            Approx(sdyx[j] / std::sqrt(var[j] + eps)).epsilon(1e-5));
    REQUIRE(Floats((*out)[2])[j] == Approx(sdy[j]).epsilon(1e-5));
  }
  // Inference: the statistics are constants.
  auto inf = RunKernel(BnNode("FusedBatchNormGrad", DT_FLOAT, false),
                       {Tensor::FromVector<float>(dy, shape),
                        Tensor::FromVector<float>(x, shape), Vec(scale),
                        Vec(meanf), Vec(varf)});
  REQUIRE_OK(inf);
  const auto dxi = Floats((*inf)[0]);
  for (int64_t i = 0; i < rest; ++i)
    for (int64_t j = 0; j < c; ++j) {
      REQUIRE(dxi[i * c + j] ==
              Approx(dy[i * c + j] * scale[j] / std::sqrt(var[j] + eps))
                  .margin(1e-5));
    }
}

TEST_CASE("FusedBatchNorm kernels reject mismatched arguments") {
  const Tensor x(DT_FLOAT, TensorShape({1, 2, 2, 3}));
  REQUIRE_THAT(RunKernel(BnNode("FusedBatchNormV3", DT_FLOAT, true),
                         {x, Vec({1, 1}), Vec({0, 0, 0}), Vec({}), Vec({})})
                   .status(),
               StatusIs(absl::StatusCode::kInvalidArgument,
                        "scale must have the same number of elements"));
  REQUIRE_THAT(RunKernel(BnNode("FusedBatchNormV3", DT_FLOAT, false),
                         {x, Vec({1, 1, 1}), Vec({0, 0, 0}), Vec({0, 0}),
                          Vec({1, 1, 1})})
                   .status(),
               StatusIs(absl::StatusCode::kInvalidArgument,
                        "When is_training=false, mean"));
  REQUIRE_THAT(RunKernel(BnNode("FusedBatchNormV3", DT_FLOAT, true),
                         {Tensor(DT_FLOAT, TensorShape({2, 3})),
                          Vec({1, 1, 1}), Vec({0, 0, 0}), Vec({}), Vec({})})
                   .status(),
               StatusIs(absl::StatusCode::kInvalidArgument,
                        "4 or 5-dimensional"));
  REQUIRE_THAT(
      RunKernel(BnNode("FusedBatchNormGradV3", DT_FLOAT, false, "NCHW"),
                {x, x, Vec({1, 1}), Vec({0, 0}), Vec({1, 1}), Vec({})})
          .status(),
      StatusIs(absl::StatusCode::kInvalidArgument));
  REQUIRE_THAT(
      RunKernel(BnNode("FusedBatchNormGradV3", DT_FLOAT, true),
                {x, Tensor(DT_FLOAT, TensorShape({1, 2, 3, 3})),
                 Vec({1, 1, 1}), Vec({0, 0, 0}), Vec({1, 1, 1}), Vec({})})
          .status(),
      StatusIs(absl::StatusCode::kInvalidArgument, "same shape"));
}

}  // namespace
}  // namespace dfx
