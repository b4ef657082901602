// MaxPool, MaxPoolV2, AvgPool and their gradients: hand-checked windows
// with SAME padding on odd sizes, dtypes, tie breaking, and errors.
#include <cstdint>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#include "catch2/catch.hpp"
#include "runtime/tensor.h"
#include "tests/kernels/kernel_test_util.h"
#include "tests/testing/status_matchers.h"

namespace dfx {
namespace {

using testing::RunKernel;
using testing::StatusIs;
using testing::TestNodeBuilder;

NodeDef PoolNode(const std::string& op, DataType dtype,
                 std::vector<int64_t> ksize, std::vector<int64_t> strides,
                 const char* padding, int num_inputs = 1,
                 const char* format = "NHWC") {
  return TestNodeBuilder("pool", op, num_inputs)
      .Attr("T", dtype)
      .Attr("ksize", ksize)
      .Attr("strides", strides)
      .Attr("padding", padding)
      .Attr("data_format", format)
      .Build();
}

template <typename T>
std::vector<double> Doubles(const Tensor& t) {
  std::vector<double> v;
  for (const T& x : t.span<T>()) v.push_back(static_cast<double>(x));
  return v;
}

// 1x5x5x1 holding 0..24 row-major.
template <typename T>
Tensor Ramp5x5() {
  std::vector<T> v;
  for (int i = 0; i < 25; ++i) v.push_back(static_cast<T>(i));
  return Tensor::FromVector<T>(v, TensorShape({1, 5, 5, 1}));
}

TEST_CASE("MaxPool with SAME padding on an odd size ignores the padding") {
  // 3x3 windows, stride 2, on 5x5: output 3x3, windows centred on even
  // positions, padding 1 on every side.
  auto out = RunKernel(
      PoolNode("MaxPool", DT_FLOAT, {1, 3, 3, 1}, {1, 2, 2, 1}, "SAME"),
      {Ramp5x5<float>()});
  REQUIRE_OK(out);
  REQUIRE((*out)[0].shape() == TensorShape({1, 3, 3, 1}));
  REQUIRE(Doubles<float>((*out)[0]) ==
          std::vector<double>{6, 8, 9, 16, 18, 19, 21, 23, 24});
  // Negative inputs: a padded zero must never win.
  std::vector<float> neg(25);
  for (int i = 0; i < 25; ++i) neg[i] = -1.0f - static_cast<float>(i);
  auto out_neg = RunKernel(
      PoolNode("MaxPool", DT_FLOAT, {1, 3, 3, 1}, {1, 2, 2, 1}, "SAME"),
      {Tensor::FromVector<float>(neg, TensorShape({1, 5, 5, 1}))});
  REQUIRE_OK(out_neg);
  REQUIRE(Doubles<float>((*out_neg)[0]) ==
          std::vector<double>{-1, -2, -4, -6, -7, -9, -16, -17, -19});
}

TEST_CASE("MaxPool for integer and 16-bit dtypes") {
  const std::vector<double> want = {6, 8, 9, 16, 18, 19, 21, 23, 24};
  NodeDef node = PoolNode("MaxPool", DT_INT32, {1, 3, 3, 1}, {1, 2, 2, 1},
                          "SAME");
  auto i32 = RunKernel(node, {Ramp5x5<int32_t>()});
  REQUIRE_OK(i32);
  REQUIRE(Doubles<int32_t>((*i32)[0]) == want);
  (*node.mutable_attr())["T"].set_type(DT_UINT8);
  auto u8 = RunKernel(node, {Ramp5x5<uint8_t>()});
  REQUIRE_OK(u8);
  REQUIRE(Doubles<uint8_t>((*u8)[0]) == want);
  (*node.mutable_attr())["T"].set_type(DT_HALF);
  auto half = RunKernel(node, {Ramp5x5<Eigen::half>()});
  REQUIRE_OK(half);
  REQUIRE(Doubles<Eigen::half>((*half)[0]) == want);
  (*node.mutable_attr())["T"].set_type(DT_BFLOAT16);
  auto bf = RunKernel(node, {Ramp5x5<Eigen::bfloat16>()});
  REQUIRE_OK(bf);
  REQUIRE(Doubles<Eigen::bfloat16>((*bf)[0]) == want);
}

TEST_CASE("AvgPool divides by the elements inside the input only") {
  auto out = RunKernel(
      PoolNode("AvgPool", DT_FLOAT, {1, 3, 3, 1}, {1, 2, 2, 1}, "SAME"),
      {Ramp5x5<float>()});
  REQUIRE_OK(out);
  REQUIRE((*out)[0].shape() == TensorShape({1, 3, 3, 1}));
  // Corner window {0,1,5,6}: 3; edge window {1,2,3,6,7,8}: 4.5; centre 12.
  const std::vector<double> got = Doubles<float>((*out)[0]);
  const std::vector<double> want = {3, 4.5, 6, 10.5, 12, 13.5, 18, 19.5, 21};
  for (size_t i = 0; i < want.size(); ++i) REQUIRE(got[i] == Approx(want[i]));
  auto f64 = RunKernel(
      PoolNode("AvgPool", DT_DOUBLE, {1, 2, 2, 1}, {1, 2, 2, 1}, "VALID"),
      {Ramp5x5<double>()});
  REQUIRE_OK(f64);
  REQUIRE(Doubles<double>((*f64)[0]) == std::vector<double>{3, 5, 13, 15});
}

TEST_CASE("MaxPool over depth takes the max of each channel group") {
  const Tensor in = Tensor::FromVector<float>({1, 5, 2, 7, 3, 0},
                                              TensorShape({1, 1, 1, 6}));
  auto out = RunKernel(
      PoolNode("MaxPool", DT_FLOAT, {1, 1, 1, 3}, {1, 1, 1, 3}, "VALID"),
      {in});
  REQUIRE_OK(out);
  REQUIRE((*out)[0].shape() == TensorShape({1, 1, 1, 2}));
  REQUIRE(Doubles<float>((*out)[0]) == std::vector<double>{5, 7});
}

TEST_CASE("MaxPoolV2 reads ksize and strides from its inputs") {
  auto out = RunKernel(
      TestNodeBuilder("pool", "MaxPoolV2", 3)
          .Attr("T", DT_FLOAT)
          .Attr("padding", "SAME")
          .Build(),
      {Ramp5x5<float>(), Tensor::FromVector<int32_t>({1, 3, 3, 1}),
       Tensor::FromVector<int32_t>({1, 2, 2, 1})});
  REQUIRE_OK(out);
  REQUIRE(Doubles<float>((*out)[0]) ==
          std::vector<double>{6, 8, 9, 16, 18, 19, 21, 23, 24});
  REQUIRE_THAT(
      RunKernel(TestNodeBuilder("pool", "MaxPoolV2", 3)
                    .Attr("T", DT_FLOAT)
                    .Attr("padding", "SAME")
                    .Build(),
                {Ramp5x5<float>(), Tensor::FromVector<int32_t>({1, 3, 3}),
                 Tensor::FromVector<int32_t>({1, 2, 2, 1})})
          .status(),
      StatusIs(absl::StatusCode::kInvalidArgument, "ksize"));
}

TEST_CASE("MaxPoolGrad sends each gradient to the first maximum") {
  // All inputs equal: every window's first element (row-major) wins.
  const Tensor in = Tensor::FromVector<float>(std::vector<float>(16, 1.0f),
                                              TensorShape({1, 4, 4, 1}));
  const Tensor out = Tensor::FromVector<float>(std::vector<float>(4, 1.0f),
                                               TensorShape({1, 2, 2, 1}));
  const Tensor grad =
      Tensor::FromVector<float>({1, 2, 3, 4}, TensorShape({1, 2, 2, 1}));
  auto dx = RunKernel(PoolNode("MaxPoolGrad", DT_FLOAT, {1, 2, 2, 1},
                               {1, 2, 2, 1}, "VALID", 3),
                      {in, out, grad});
  REQUIRE_OK(dx);
  REQUIRE(Doubles<float>((*dx)[0]) ==
          std::vector<double>{1, 0, 2, 0, 0, 0, 0, 0, 3, 0, 4, 0, 0, 0, 0, 0});
  // Overlapping windows add up at a shared maximum: on the 5x5 ramp with
  // 3x3/1 SAME windows, input 24 is the max of four windows, 6 of one.
  const Tensor g25 = Tensor::FromVector<float>(std::vector<float>(25, 1.0f),
                                               TensorShape({1, 5, 5, 1}));
  auto dx2 = RunKernel(PoolNode("MaxPoolGrad", DT_FLOAT, {1, 3, 3, 1},
                                {1, 1, 1, 1}, "SAME", 3),
                       {Ramp5x5<float>(), g25, g25});
  REQUIRE_OK(dx2);
  const auto d = Doubles<float>((*dx2)[0]);
  REQUIRE(std::accumulate(d.begin(), d.end(), 0.0) == 25.0);
  REQUIRE(d[24] == 4.0);
  REQUIRE(d[6] == 1.0);
  REQUIRE(d[0] == 0.0);
}

TEST_CASE("AvgPoolGrad spreads each gradient over its window") {
  std::mt19937 rng(3);
  std::uniform_real_distribution<double> u(-1, 1);
  std::vector<double> g(2 * 4 * 3 * 3);
  for (double& v : g) v = u(rng);
  Tensor grad(DT_DOUBLE, TensorShape({2, 4, 3, 3}));
  for (size_t i = 0; i < g.size(); ++i) grad.data<double>()[i] = g[i];
  auto dx = RunKernel(PoolNode("AvgPoolGrad", DT_DOUBLE, {1, 3, 3, 1},
                               {1, 2, 2, 1}, "SAME", 2),
                      {Tensor::FromVector<int32_t>({2, 7, 6, 3}), grad});
  REQUIRE_OK(dx);
  REQUIRE((*dx)[0].shape() == TensorShape({2, 7, 6, 3}));
  // The gradient is conserved: each window hands out exactly its gradient.
  const auto d = Doubles<double>((*dx)[0]);
  REQUIRE(std::accumulate(d.begin(), d.end(), 0.0) ==
          Approx(std::accumulate(g.begin(), g.end(), 0.0)));
  REQUIRE_THAT(
      RunKernel(PoolNode("AvgPoolGrad", DT_DOUBLE, {1, 3, 3, 1},
                         {1, 2, 2, 1}, "SAME", 2),
                {Tensor::FromVector<int32_t>({2, 9, 6, 3}), grad})
          .status(),
      StatusIs(absl::StatusCode::kInvalidArgument, "grad shape"));
}

TEST_CASE("Pooling kernels reject what TensorFlow's CPU kernels reject") {
  const Tensor in = Ramp5x5<float>();
  REQUIRE_THAT(RunKernel(PoolNode("MaxPool", DT_FLOAT, {1, 2, 2, 1},
                                  {1, 2, 2, 1}, "VALID", 1, "NCHW"),
                         {in})
                   .status(),
               StatusIs(absl::StatusCode::kInvalidArgument, "NHWC"));
  REQUIRE_THAT(RunKernel(PoolNode("AvgPool", DT_FLOAT, {2, 2, 2, 1},
                                  {1, 2, 2, 1}, "VALID"),
                         {in})
                   .status(),
               StatusIs(absl::StatusCode::kUnimplemented, "batch"));
  REQUIRE_THAT(RunKernel(PoolNode("MaxPool", DT_FLOAT, {1, 7, 2, 1},
                                  {1, 1, 1, 1}, "VALID"),
                         {in})
                   .status(),
               StatusIs(absl::StatusCode::kInvalidArgument,
                        "Computed output size would be negative"));
  REQUIRE_THAT(RunKernel(PoolNode("MaxPool", DT_FLOAT, {1, 2, 2, 1},
                                  {1, 2, 2, 1}, "VALID"),
                         {Tensor(DT_FLOAT, TensorShape({5, 5, 1}))})
                   .status(),
               StatusIs(absl::StatusCode::kInvalidArgument, "4-dimensional"));
  REQUIRE_THAT(RunKernel(PoolNode("MaxPool", DT_FLOAT, {1, 2, 2, 2},
                                  {1, 2, 2, 2}, "VALID"),
                         {in})
                   .status(),
               StatusIs(absl::StatusCode::kUnimplemented, "exactly one"));
  // MaxPoolGrad: orig_output must have the forward output's shape.
  REQUIRE_THAT(RunKernel(PoolNode("MaxPoolGrad", DT_FLOAT, {1, 2, 2, 1},
                                  {1, 2, 2, 1}, "VALID", 3),
                         {in, Tensor(DT_FLOAT, TensorShape({1, 3, 3, 1})),
                          Tensor(DT_FLOAT, TensorShape({1, 2, 2, 1}))})
                   .status(),
               StatusIs(absl::StatusCode::kInvalidArgument, "orig_output"));
}

}  // namespace
}  // namespace dfx
