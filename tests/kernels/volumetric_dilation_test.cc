// Dilation2D, Dilation2DBackpropInput and Dilation2DBackpropFilter:
// hand-checked windows with rates and SAME padding, the first maximum taking
// the gradient, integer dtypes, empty tensors and errors.
#include <cstdint>
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

NodeDef DilationNode(const std::string& op, DataType dtype,
                     std::vector<int64_t> strides, std::vector<int64_t> rates,
                     const char* padding, int num_inputs) {
  return TestNodeBuilder("dil", op, num_inputs)
      .Attr("T", dtype)
      .Attr("strides", strides)
      .Attr("rates", rates)
      .Attr("padding", padding)
      .Build();
}

template <typename T>
std::vector<T> Vals(const Tensor& t) {
  auto s = t.span<T>();
  return std::vector<T>(s.begin(), s.end());
}

TEST_CASE("Dilation2D takes the max of input plus filter over the window",
          "[volumetric]") {
  // A 1x1x4 row [1, 5, 2, 0] and a 1x2 filter [10, 0]: VALID windows give
  // max(1+10, 5+0), max(5+10, 2), max(2+10, 0) = 11, 15, 12.
  const Tensor in = Tensor::FromVector<int32_t>({1, 5, 2, 0},
                                                TensorShape({1, 1, 4, 1}));
  const Tensor f = Tensor::FromVector<int32_t>({10, 0}, TensorShape({1, 2, 1}));
  const std::vector<int64_t> one = {1, 1, 1, 1};
  auto out = RunKernel(
      DilationNode("Dilation2D", DT_INT32, one, one, "VALID", 2), {in, f});
  REQUIRE_OK(out);
  REQUIRE((*out)[0].shape() == TensorShape({1, 1, 3, 1}));
  REQUIRE(Vals<int32_t>((*out)[0]) == std::vector<int32_t>{11, 15, 12});
  // Rate 2: taps two apart: max(1+10, 2+0), max(5+10, 0+0).
  auto rated = RunKernel(
      DilationNode("Dilation2D", DT_INT32, one, {1, 1, 2, 1}, "VALID", 2),
      {in, f});
  REQUIRE_OK(rated);
  REQUIRE(Vals<int32_t>((*rated)[0]) == std::vector<int32_t>{11, 15});
  // SAME with an even window pads after only: the last window holds one
  // position, the filter's first tap.
  auto same = RunKernel(
      DilationNode("Dilation2D", DT_INT32, one, one, "SAME", 2), {in, f});
  REQUIRE_OK(same);
  REQUIRE(Vals<int32_t>((*same)[0]) == std::vector<int32_t>{11, 15, 12, 10});
}

TEST_CASE("Dilation2D gradients go to the first maximum", "[volumetric]") {
  // [3, 3, 0] with a zero 1x2 filter: window 0 ties at positions 0 and 1
  // (position 0 takes it), window 1 is won by position 1.
  const Tensor in = Tensor::FromVector<float>({3, 3, 0}, TensorShape({1, 1, 3, 1}));
  const Tensor f = Tensor::FromVector<float>({0, 0}, TensorShape({1, 2, 1}));
  const Tensor dy = Tensor::FromVector<float>({1, 10}, TensorShape({1, 1, 2, 1}));
  const std::vector<int64_t> one = {1, 1, 1, 1};
  auto dx = RunKernel(
      DilationNode("Dilation2DBackpropInput", DT_FLOAT, one, one, "VALID", 3),
      {in, f, dy});
  REQUIRE_OK(dx);
  REQUIRE(Vals<float>((*dx)[0]) == std::vector<float>{1, 10, 0});
  auto df = RunKernel(
      DilationNode("Dilation2DBackpropFilter", DT_FLOAT, one, one, "VALID", 3),
      {in, f, dy});
  REQUIRE_OK(df);
  // Window 0's max is at tap 0, window 1's at tap 0 too (3 + 0 > 0 + 0).
  REQUIRE(Vals<float>((*df)[0]) == std::vector<float>{11, 0});
}

TEST_CASE("Dilation2D for 8-bit and 64-bit integers", "[volumetric]") {
  const std::vector<int64_t> one = {1, 1, 1, 1};
  auto u8 = RunKernel(
      DilationNode("Dilation2D", DT_UINT8, one, one, "VALID", 2),
      {Tensor::FromVector<uint8_t>({1, 200, 3}, TensorShape({1, 1, 3, 1})),
       Tensor::FromVector<uint8_t>({0, 5}, TensorShape({1, 2, 1}))});
  REQUIRE_OK(u8);
  REQUIRE(Vals<uint8_t>((*u8)[0]) == std::vector<uint8_t>{205, 200});
  auto i64 = RunKernel(
      DilationNode("Dilation2D", DT_INT64, one, one, "VALID", 2),
      {Tensor::FromVector<int64_t>({-7, -9}, TensorShape({1, 1, 2, 1})),
       Tensor::FromVector<int64_t>({-1}, TensorShape({1, 1, 1}))});
  REQUIRE_OK(i64);
  REQUIRE(Vals<int64_t>((*i64)[0]) == std::vector<int64_t>{-8, -10});
}

TEST_CASE("Dilation2D on empty tensors and bad input", "[volumetric]") {
  const std::vector<int64_t> one = {1, 1, 1, 1};
  const NodeDef fwd = DilationNode("Dilation2D", DT_FLOAT, one, one, "VALID", 2);
  auto empty = RunKernel(
      fwd, {Tensor::FromVector<float>({}, TensorShape({0, 3, 3, 2})),
            Tensor::FromVector<float>(std::vector<float>(8, 0.0f),
                                      TensorShape({2, 2, 2}))});
  REQUIRE_OK(empty);
  REQUIRE((*empty)[0].shape() == TensorShape({0, 2, 2, 2}));
  const Tensor in = Tensor::FromVector<float>(std::vector<float>(18, 0.0f),
                                              TensorShape({1, 3, 3, 2}));
  REQUIRE_THAT(
      RunKernel(fwd, {in, Tensor::FromVector<float>(std::vector<float>(12, 0.0f),
                                                    TensorShape({2, 2, 3}))})
          .status(),
      StatusIs(absl::StatusCode::kInvalidArgument, "same depth"));
  REQUIRE_THAT(
      RunKernel(fwd, {in, Tensor::FromVector<float>(std::vector<float>(8, 0.0f),
                                                    TensorShape({2, 2, 2, 1}))})
          .status(),
      StatusIs(absl::StatusCode::kInvalidArgument, "3-dimensional"));
  REQUIRE_THAT(
      RunKernel(DilationNode("Dilation2D", DT_FLOAT, {2, 1, 1, 1}, one,
                             "VALID", 2),
                {in, Tensor::FromVector<float>(std::vector<float>(8, 0.0f),
                                               TensorShape({2, 2, 2}))})
          .status(),
      StatusIs(absl::StatusCode::kUnimplemented, "batch"));
  REQUIRE_THAT(
      RunKernel(DilationNode("Dilation2D", DT_FLOAT, one, {1, 1, 1}, "VALID",
                             2),
                {in, Tensor::FromVector<float>(std::vector<float>(8, 0.0f),
                                               TensorShape({2, 2, 2}))})
          .status(),
      StatusIs(absl::StatusCode::kInvalidArgument, "4 dimensions"));
  const Tensor f = Tensor::FromVector<float>(std::vector<float>(8, 0.0f),
                                             TensorShape({2, 2, 2}));
  REQUIRE_THAT(
      RunKernel(DilationNode("Dilation2DBackpropInput", DT_FLOAT, one, one,
                             "VALID", 3),
                {in, f,
                 Tensor::FromVector<float>(std::vector<float>(18, 0.0f),
                                           TensorShape({1, 3, 3, 2}))})
          .status(),
      StatusIs(absl::StatusCode::kInvalidArgument, "out_backprop"));
  REQUIRE_THAT(
      RunKernel(DilationNode("Dilation2DBackpropFilter", DT_FLOAT, one, one,
                             "VALID", 3),
                {in, f,
                 Tensor::FromVector<float>(std::vector<float>(4, 0.0f),
                                           TensorShape({1, 2, 2, 1}))})
          .status(),
      StatusIs(absl::StatusCode::kInvalidArgument, "out_backprop"));
}

}  // namespace
}  // namespace dfx
