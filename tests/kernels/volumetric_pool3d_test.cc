// MaxPool3D, AvgPool3D, MaxPool3DGrad, AvgPool3DGrad and MaxPool3DGradGrad:
// hand-checked windows (SAME padding excluded from max and mean), ties,
// NCDHW, bfloat16, empty tensors and errors.
#include <cmath>
#include <cstdint>
#include <limits>
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

NodeDef Pool3DNode(const std::string& op, DataType dtype,
                   std::vector<int64_t> ksize, std::vector<int64_t> strides,
                   const char* padding, int num_inputs = 1,
                   const char* format = "NDHWC") {
  TestNodeBuilder b("pool", op, num_inputs);
  b.Attr("T", dtype)
      .Attr("ksize", ksize)
      .Attr("strides", strides)
      .Attr("padding", padding)
      .Attr("data_format", format);
  if (op == "MaxPool3DGrad") b.Attr("TInput", dtype);
  return b.Build();
}

std::vector<double> Floats(const Tensor& t) {
  std::vector<double> v;
  for (float x : t.span<float>()) v.push_back(x);
  return v;
}

// 1x3x3x3x1 holding 0..26 row-major.
Tensor Ramp27() {
  std::vector<float> v;
  for (int i = 0; i < 27; ++i) v.push_back(static_cast<float>(i));
  return Tensor::FromVector<float>(v, TensorShape({1, 3, 3, 3, 1}));
}

TEST_CASE("MaxPool3D and AvgPool3D leave SAME padding out of the window",
          "[volumetric]") {
  // 2x2x2 windows, stride 2, on 3x3x3: output 2x2x2, the last window in each
  // dim clipped to one plane.
  auto mx = RunKernel(
      Pool3DNode("MaxPool3D", DT_FLOAT, {1, 2, 2, 2, 1}, {1, 2, 2, 2, 1},
                 "SAME"),
      {Ramp27()});
  REQUIRE_OK(mx);
  REQUIRE((*mx)[0].shape() == TensorShape({1, 2, 2, 2, 1}));
  REQUIRE(Floats((*mx)[0]) ==
          std::vector<double>{13, 14, 16, 17, 22, 23, 25, 26});
  auto av = RunKernel(
      Pool3DNode("AvgPool3D", DT_FLOAT, {1, 2, 2, 2, 1}, {1, 2, 2, 2, 1},
                 "SAME"),
      {Ramp27()});
  REQUIRE_OK(av);
  // Window (0,0,1) holds columns 2 only: 2, 5, 11, 14 -> 8. The last holds
  // element 26 alone.
  REQUIRE(Floats((*av)[0]) ==
          std::vector<double>{6.5, 8, 11, 12.5, 20, 21.5, 24.5, 26});
  // Negative values: a padded zero never wins the max.
  std::vector<float> neg(27);
  for (int i = 0; i < 27; ++i) neg[i] = -1.0f - static_cast<float>(i);
  auto mn = RunKernel(
      Pool3DNode("MaxPool3D", DT_FLOAT, {1, 2, 2, 2, 1}, {1, 2, 2, 2, 1},
                 "SAME"),
      {Tensor::FromVector<float>(neg, TensorShape({1, 3, 3, 3, 1}))});
  REQUIRE_OK(mn);
  REQUIRE(Floats((*mn)[0]) ==
          std::vector<double>{-1, -3, -7, -9, -19, -21, -25, -27});
}

TEST_CASE("MaxPool3D skips NaN and AvgPool3D propagates it", "[volumetric]") {
  // TensorFlow's CPU kernels: a NaN never wins a max, but poisons a mean.
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const Tensor in = Tensor::FromVector<float>({1, nan, 3, 2, 0, 1, 1, 1},
                                              TensorShape({1, 2, 2, 2, 1}));
  auto mx = RunKernel(Pool3DNode("MaxPool3D", DT_FLOAT, {1, 2, 2, 2, 1},
                                 {1, 1, 1, 1, 1}, "VALID"),
                      {in});
  REQUIRE_OK(mx);
  REQUIRE(Floats((*mx)[0]) == std::vector<double>{3});
  auto av = RunKernel(Pool3DNode("AvgPool3D", DT_FLOAT, {1, 2, 2, 2, 1},
                                 {1, 1, 1, 1, 1}, "VALID"),
                      {in});
  REQUIRE_OK(av);
  REQUIRE(std::isnan((*av)[0].span<float>()[0]));
}

TEST_CASE("AvgPool3DGrad divides by the clipped window size",
          "[volumetric]") {
  auto out = RunKernel(
      Pool3DNode("AvgPool3DGrad", DT_FLOAT, {1, 2, 2, 2, 1}, {1, 2, 2, 2, 1},
                 "SAME", 2),
      {Tensor::FromVector<int32_t>({1, 3, 3, 3, 1}),
       Tensor::FromVector<float>(std::vector<float>(8, 1.0f),
                                 TensorShape({1, 2, 2, 2, 1}))});
  REQUIRE_OK(out);
  const std::vector<double> got = Floats((*out)[0]);
  // Per dim the window size is 2 for index 0, 1 and 1 for index 2.
  for (int d = 0; d < 3; ++d)
    for (int h = 0; h < 3; ++h)
      for (int w = 0; w < 3; ++w) {
        const double want =
            1.0 / ((d == 2 ? 1 : 2) * (h == 2 ? 1 : 2) * (w == 2 ? 1 : 2));
        REQUIRE(got[(d * 3 + h) * 3 + w] == want);
      }
}

TEST_CASE("MaxPool3DGrad gives the first tied max the gradient",
          "[volumetric]") {
  // One 2x2x2 window holding 3 twice: the first receives the gradient.
  const Tensor in = Tensor::FromVector<float>({1, 3, 3, 2, 0, 1, 1, 1},
                                              TensorShape({1, 2, 2, 2, 1}));
  const Tensor out = Tensor::FromVector<float>({3}, TensorShape({1, 1, 1, 1, 1}));
  const Tensor grad = Tensor::FromVector<float>({5}, TensorShape({1, 1, 1, 1, 1}));
  auto r = RunKernel(Pool3DNode("MaxPool3DGrad", DT_FLOAT, {1, 2, 2, 2, 1},
                                {1, 1, 1, 1, 1}, "VALID", 3),
                     {in, out, grad});
  REQUIRE_OK(r);
  REQUIRE(Floats((*r)[0]) == std::vector<double>{0, 5, 0, 0, 0, 0, 0, 0});
  // orig_output is what is matched, within 1e-5: 2.000001 picks the 2; a
  // value matching nothing drops the gradient.
  auto near = RunKernel(
      Pool3DNode("MaxPool3DGrad", DT_FLOAT, {1, 2, 2, 2, 1}, {1, 1, 1, 1, 1},
                 "VALID", 3),
      {in, Tensor::FromVector<float>({2.000001f}, TensorShape({1, 1, 1, 1, 1})),
       grad});
  REQUIRE_OK(near);
  REQUIRE(Floats((*near)[0]) == std::vector<double>{0, 0, 0, 5, 0, 0, 0, 0});
  auto none = RunKernel(
      Pool3DNode("MaxPool3DGrad", DT_FLOAT, {1, 2, 2, 2, 1}, {1, 1, 1, 1, 1},
                 "VALID", 3),
      {in, Tensor::FromVector<float>({10}, TensorShape({1, 1, 1, 1, 1})),
       grad});
  REQUIRE_OK(none);
  REQUIRE(Floats((*none)[0]) == std::vector<double>(8, 0.0));
  // MaxPool3DGradGrad reads the first of them.
  const Tensor gg = Tensor::FromVector<float>({0, 1, 2, 3, 4, 5, 6, 7},
                                              TensorShape({1, 2, 2, 2, 1}));
  auto r2 = RunKernel(Pool3DNode("MaxPool3DGradGrad", DT_FLOAT,
                                 {1, 2, 2, 2, 1}, {1, 1, 1, 1, 1}, "VALID", 3),
                      {in, out, gg});
  REQUIRE_OK(r2);
  REQUIRE(Floats((*r2)[0]) == std::vector<double>{1});
}

TEST_CASE("MaxPool3DGrad sums overlapping windows", "[volumetric]") {
  // 1-D in effect: a 1x1x4 row [0, 5, 1, 2], windows of 2 with stride 1:
  // maxima 5, 5, 2, so element 1 gets grads 0 and 1, element 3 grad 2.
  const Tensor in = Tensor::FromVector<float>({0, 5, 1, 2},
                                              TensorShape({1, 1, 1, 4, 1}));
  const NodeDef fwd = Pool3DNode("MaxPool3D", DT_FLOAT, {1, 1, 1, 2, 1},
                                 {1, 1, 1, 1, 1}, "VALID");
  auto y = RunKernel(fwd, {in});
  REQUIRE_OK(y);
  REQUIRE(Floats((*y)[0]) == std::vector<double>{5, 5, 2});
  auto g = RunKernel(Pool3DNode("MaxPool3DGrad", DT_FLOAT, {1, 1, 1, 2, 1},
                                {1, 1, 1, 1, 1}, "VALID", 3),
                     {in, (*y)[0],
                      Tensor::FromVector<float>({1, 10, 100},
                                                TensorShape({1, 1, 1, 3, 1}))});
  REQUIRE_OK(g);
  REQUIRE(Floats((*g)[0]) == std::vector<double>{0, 11, 0, 100});
}

TEST_CASE("3-D pooling in NCDHW and bfloat16", "[volumetric]") {
  // Two channels in NCDHW: channel 1 is channel 0 plus 100.
  std::vector<float> v;
  for (int c = 0; c < 2; ++c)
    for (int i = 0; i < 27; ++i) v.push_back(static_cast<float>(i + 100 * c));
  auto mx = RunKernel(Pool3DNode("MaxPool3D", DT_FLOAT, {1, 1, 2, 2, 2},
                                 {1, 1, 2, 2, 2}, "SAME", 1, "NCDHW"),
                      {Tensor::FromVector<float>(v, TensorShape({1, 2, 3, 3, 3}))});
  REQUIRE_OK(mx);
  REQUIRE((*mx)[0].shape() == TensorShape({1, 2, 2, 2, 2}));
  REQUIRE(Floats((*mx)[0]) ==
          std::vector<double>{13, 14, 16, 17, 22, 23, 25, 26, 113, 114, 116,
                              117, 122, 123, 125, 126});
  std::vector<Eigen::bfloat16> b;
  for (int i = 0; i < 27; ++i) b.push_back(static_cast<Eigen::bfloat16>(i));
  auto av = RunKernel(Pool3DNode("AvgPool3D", DT_BFLOAT16, {1, 2, 2, 2, 1},
                                 {1, 2, 2, 2, 1}, "SAME"),
                      {Tensor::FromVector<Eigen::bfloat16>(
                          b, TensorShape({1, 3, 3, 3, 1}))});
  REQUIRE_OK(av);
  std::vector<double> got;
  for (Eigen::bfloat16 x : (*av)[0].span<Eigen::bfloat16>()) {
    got.push_back(static_cast<float>(x));
  }
  REQUIRE(got == std::vector<double>{6.5, 8, 11, 12.5, 20, 21.5, 24.5, 26});
}

TEST_CASE("3-D pooling on empty tensors", "[volumetric]") {
  const Tensor empty = Tensor::FromVector<float>({}, TensorShape({0, 4, 4, 4, 1}));
  auto mx = RunKernel(Pool3DNode("MaxPool3D", DT_FLOAT, {1, 2, 2, 2, 1},
                                 {1, 2, 2, 2, 1}, "VALID"),
                      {empty});
  REQUIRE_OK(mx);
  REQUIRE((*mx)[0].shape() == TensorShape({0, 2, 2, 2, 1}));
  auto g = RunKernel(Pool3DNode("MaxPool3DGrad", DT_FLOAT, {1, 2, 2, 2, 1},
                                {1, 2, 2, 2, 1}, "VALID", 3),
                     {empty, (*mx)[0], (*mx)[0]});
  REQUIRE_OK(g);
  REQUIRE((*g)[0].shape() == TensorShape({0, 4, 4, 4, 1}));
}

TEST_CASE("3-D pooling kernels reject what TensorFlow rejects",
          "[volumetric]") {
  const Tensor in = Ramp27();
  REQUIRE_THAT(RunKernel(Pool3DNode("MaxPool3D", DT_FLOAT, {1, 2, 2, 2, 2},
                                    {1, 1, 1, 1, 1}, "VALID"),
                         {in})
                   .status(),
               StatusIs(absl::StatusCode::kUnimplemented, "depth"));
  REQUIRE_THAT(RunKernel(Pool3DNode("AvgPool3D", DT_FLOAT, {2, 2, 2, 2, 1},
                                    {1, 1, 1, 1, 1}, "VALID"),
                         {in})
                   .status(),
               StatusIs(absl::StatusCode::kUnimplemented, "batch"));
  REQUIRE_THAT(RunKernel(Pool3DNode("AvgPool3D", DT_FLOAT, {1, 0, 2, 2, 1},
                                    {1, 1, 1, 1, 1}, "VALID"),
                         {in})
                   .status(),
               StatusIs(absl::StatusCode::kInvalidArgument, "ksize"));
  REQUIRE_THAT(RunKernel(Pool3DNode("AvgPool3D", DT_FLOAT, {1, 2, 2, 1},
                                    {1, 1, 1, 1, 1}, "VALID"),
                         {in})
                   .status(),
               StatusIs(absl::StatusCode::kInvalidArgument, "5 dimensions"));
  auto empty = RunKernel(Pool3DNode("MaxPool3D", DT_FLOAT, {1, 4, 2, 2, 1},
                                    {1, 1, 1, 1, 1}, "VALID"),
                         {in});
  REQUIRE_OK(empty);
  REQUIRE((*empty)[0].shape() == TensorShape({1, 0, 2, 2, 1}));
  REQUIRE_THAT(RunKernel(Pool3DNode("MaxPool3D", DT_FLOAT, {1, 5, 2, 2, 1},
                                    {1, 1, 1, 1, 1}, "VALID"),
                         {in})
                   .status(),
               StatusIs(absl::StatusCode::kInvalidArgument, "negative"));
  REQUIRE_THAT(
      RunKernel(Pool3DNode("MaxPool3D", DT_FLOAT, {1, 2, 2, 2, 1},
                           {1, 1, 1, 1, 1}, "VALID"),
                {Tensor::FromVector<float>(std::vector<float>(27, 0.0f),
                                           TensorShape({3, 3, 3}))})
          .status(),
      StatusIs(absl::StatusCode::kInvalidArgument, "5-dimensional"));
  const Tensor out8 = Tensor::FromVector<float>(std::vector<float>(8, 1.0f),
                                                TensorShape({1, 2, 2, 2, 1}));
  const Tensor out9 = Tensor::FromVector<float>(std::vector<float>(9, 1.0f),
                                                TensorShape({1, 3, 3, 1, 1}));
  const NodeDef grad = Pool3DNode("MaxPool3DGrad", DT_FLOAT, {1, 2, 2, 2, 1},
                                  {1, 1, 1, 1, 1}, "VALID", 3);
  REQUIRE_THAT(RunKernel(grad, {in, out9, out8}).status(),
               StatusIs(absl::StatusCode::kInvalidArgument,
                        "orig_output shape"));
  REQUIRE_THAT(RunKernel(grad, {in, out8, out9}).status(),
               StatusIs(absl::StatusCode::kInvalidArgument, "grad shape"));
  const NodeDef avg_grad = Pool3DNode("AvgPool3DGrad", DT_FLOAT,
                                      {1, 2, 2, 2, 1}, {1, 1, 1, 1, 1},
                                      "VALID", 2);
  REQUIRE_THAT(
      RunKernel(avg_grad, {Tensor::FromVector<int32_t>({1, 3, 3, 3}), out8})
          .status(),
      StatusIs(absl::StatusCode::kInvalidArgument, "orig_input_shape"));
  REQUIRE_THAT(
      RunKernel(avg_grad, {Tensor::FromVector<int32_t>({1, 3, 3, 3, 1}), out9})
          .status(),
      StatusIs(absl::StatusCode::kInvalidArgument, "grad shape"));
  const NodeDef gg = Pool3DNode("MaxPool3DGradGrad", DT_FLOAT,
                                {1, 1, 2, 2, 2}, {1, 1, 1, 1, 1}, "VALID", 3,
                                "NCDHW");
  REQUIRE_THAT(RunKernel(gg, {in, out8, in}).status(),
               StatusIs(absl::StatusCode::kInvalidArgument, "NDHWC"));
}

}  // namespace
}  // namespace dfx
