// MaxPoolWithArgmax and MaxPoolGradWithArgmax: hand-checked indices with and
// without the batch, ties, the gradient's sums, and bad argmax input.
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

NodeDef ArgmaxNode(const std::string& op, DataType dtype, int64_t k,
                   int64_t s, const char* padding, bool batch_index,
                   DataType targmax = DT_INT64) {
  return TestNodeBuilder("pool", op, op == "MaxPoolWithArgmax" ? 1 : 3)
      .Attr("T", dtype)
      .Attr("Targmax", targmax)
      .Attr("ksize", std::vector<int64_t>{1, k, k, 1})
      .Attr("strides", std::vector<int64_t>{1, s, s, 1})
      .Attr("padding", padding)
      .Attr("include_batch_in_index", batch_index)
      .Build();
}

template <typename T>
std::vector<double> Doubles(const Tensor& t) {
  std::vector<double> v;
  for (const T& x : t.span<T>()) v.push_back(static_cast<double>(x));
  return v;
}

TEST_CASE("MaxPoolWithArgmax gives flat indices with and without the batch") {
  // Two 4x4x2 images; channel 1 is channel 0 negated, so its maxima sit
  // elsewhere.
  std::vector<float> x;
  for (int b = 0; b < 2; ++b) {
    for (int i = 0; i < 16; ++i) {
      const float v = static_cast<float>((i * 7 + b * 3) % 16);
      x.push_back(v);
      x.push_back(-v);
    }
  }
  const Tensor in = Tensor::FromVector<float>(x, TensorShape({2, 4, 4, 2}));
  for (bool batch_index : {false, true}) {
    INFO("include_batch_in_index " << batch_index);
    auto out = RunKernel(ArgmaxNode("MaxPoolWithArgmax", DT_FLOAT, 2, 2,
                                    "VALID", batch_index),
                         {in});
    REQUIRE_OK(out);
    const Tensor& y = (*out)[0];
    const Tensor& arg = (*out)[1];
    REQUIRE(y.shape() == TensorShape({2, 2, 2, 2}));
    REQUIRE(arg.dtype() == DT_INT64);
    for (int64_t i = 0; i < y.NumElements(); ++i) {
      const int64_t b = i / 8;
      const int64_t index = arg.data<int64_t>()[i];
      const int64_t flat = batch_index ? index : index + b * 32;
      INFO("output " << i << " index " << index);
      // The index names the maximum of its own window and channel.
      REQUIRE(flat / 32 == b);
      REQUIRE(flat % 2 == i % 2);
      REQUIRE(x[flat] == y.data<float>()[i]);
      const int64_t oh = (i / 4) % 2, ow = (i / 2) % 2;
      const int64_t h = (flat % 32) / 2 / 4, w = (flat % 32) / 2 % 4;
      REQUIRE(h / 2 == oh);
      REQUIRE(w / 2 == ow);
    }
  }
}

TEST_CASE("MaxPoolWithArgmax takes the first of equal maxima") {
  const Tensor in = Tensor::FromVector<float>(std::vector<float>(9, 1.0f),
                                              TensorShape({1, 3, 3, 1}));
  auto out = RunKernel(
      ArgmaxNode("MaxPoolWithArgmax", DT_FLOAT, 2, 1, "VALID", false), {in});
  REQUIRE_OK(out);
  const Tensor& arg = (*out)[1];
  REQUIRE(std::vector<int64_t>(arg.span<int64_t>().begin(),
                               arg.span<int64_t>().end()) ==
          std::vector<int64_t>{0, 1, 3, 4});
}

TEST_CASE("MaxPoolGradWithArgmax adds gradients at their argmax") {
  const Tensor in = Tensor::FromVector<Eigen::half>(
      std::vector<Eigen::half>(2 * 9, Eigen::half(0)),
      TensorShape({2, 3, 3, 1}));
  const Tensor grad = Tensor::FromVector<Eigen::half>(
      {Eigen::half(1), Eigen::half(2), Eigen::half(3), Eigen::half(4),
       Eigen::half(5), Eigen::half(6), Eigen::half(7), Eigen::half(8)},
      TensorShape({2, 2, 2, 1}));
  // Every window of image 0 picks element 4; image 1's pick 0, 1, 1, 8.
  const Tensor arg = Tensor::FromVector<int64_t>(
      {4, 4, 4, 4, 0, 1, 1, 8}, TensorShape({2, 2, 2, 1}));
  auto dx = RunKernel(ArgmaxNode("MaxPoolGradWithArgmax", DT_HALF, 2, 1,
                                 "VALID", false),
                      {in, grad, arg});
  REQUIRE_OK(dx);
  REQUIRE(Doubles<Eigen::half>((*dx)[0]) ==
          std::vector<double>{0, 0, 0, 0, 10, 0, 0, 0, 0,  //
                              5, 13, 0, 0, 0, 0, 0, 0, 8});
  // The same with the batch in the index.
  const Tensor arg_b = Tensor::FromVector<int64_t>(
      {4, 4, 4, 4, 9, 10, 10, 17}, TensorShape({2, 2, 2, 1}));
  auto dx_b = RunKernel(ArgmaxNode("MaxPoolGradWithArgmax", DT_HALF, 2, 1,
                                   "VALID", true),
                        {in, grad, arg_b});
  REQUIRE_OK(dx_b);
  REQUIRE(Doubles<Eigen::half>((*dx_b)[0]) ==
          Doubles<Eigen::half>((*dx)[0]));
}

TEST_CASE("MaxPoolGradWithArgmax rejects indices outside their image") {
  const Tensor in = Tensor::FromVector<float>(std::vector<float>(2 * 16, 0),
                                              TensorShape({2, 4, 4, 1}));
  const Tensor grad = Tensor::FromVector<float>(std::vector<float>(8, 1),
                                                TensorShape({2, 2, 2, 1}));
  const NodeDef node =
      ArgmaxNode("MaxPoolGradWithArgmax", DT_FLOAT, 2, 2, "VALID", false);
  const NodeDef node_b =
      ArgmaxNode("MaxPoolGradWithArgmax", DT_FLOAT, 2, 2, "VALID", true);
  for (int64_t bad : {int64_t{-1}, int64_t{16}, int64_t{1} << 40}) {
    INFO("index " << bad);
    const Tensor arg = Tensor::FromVector<int64_t>(
        {0, 1, 2, 3, 4, 5, 6, bad}, TensorShape({2, 2, 2, 1}));
    REQUIRE_THAT(RunKernel(node, {in, grad, arg}).status(),
                 StatusIs(absl::StatusCode::kInvalidArgument,
                          "Invalid output gradient index"));
  }
  // With the batch in the index, image 0 may not name image 1's elements.
  const Tensor cross = Tensor::FromVector<int64_t>(
      {16, 1, 2, 3, 20, 21, 22, 23}, TensorShape({2, 2, 2, 1}));
  REQUIRE_THAT(RunKernel(node_b, {in, grad, cross}).status(),
               StatusIs(absl::StatusCode::kInvalidArgument,
                        "Invalid output gradient index"));
  // Shapes that do not match the pooled shape.
  const Tensor arg3 = Tensor::FromVector<int64_t>(std::vector<int64_t>(3, 0),
                                                  TensorShape({1, 3, 1, 1}));
  REQUIRE_THAT(RunKernel(node, {in, grad, arg3}).status(),
               StatusIs(absl::StatusCode::kInvalidArgument,
                        "Expected argmax shape"));
  REQUIRE_THAT(RunKernel(node, {in, arg3, arg3}).status(),
               StatusIs(absl::StatusCode::kInvalidArgument));
}

}  // namespace
}  // namespace dfx
