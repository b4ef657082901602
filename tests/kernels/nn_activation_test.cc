// BiasAdd, Relu, Relu6, Softmax and LogSoftmax CPU kernels.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "catch2/catch.hpp"
#include "graph/node_def_util.h"
#include "graph/op_registry.h"
#include "runtime/tensor.h"
#include "tests/kernels/kernel_test_util.h"
#include "tests/testing/status_matchers.h"

namespace dfx {
namespace {

using testing::RunKernel;
using testing::StatusIs;
using testing::TestNodeBuilder;

template <typename T>
std::vector<T> Values(const Tensor& t) {
  return std::vector<T>(t.span<T>().begin(), t.span<T>().end());
}

NodeDef BiasAddNode(DataType dtype, const char* format) {
  return TestNodeBuilder("bias", "BiasAdd", 2)
      .Attr("T", dtype)
      .Attr("data_format", format)
      .Build();
}

TEST_CASE("BiasAdd adds the bias along the last dim in NHWC") {
  const Tensor value =
      Tensor::FromVector<float>({1, 2, 3, 4, 5, 6}, TensorShape({2, 3}));
  const Tensor bias = Tensor::FromVector<float>({10, 20, 30});
  auto out = RunKernel(BiasAddNode(DT_FLOAT, "NHWC"), {value, bias});
  REQUIRE_OK(out);
  REQUIRE((*out)[0].shape() == TensorShape({2, 3}));
  REQUIRE(Values<float>((*out)[0]) ==
          std::vector<float>{11, 22, 33, 14, 25, 36});

  // NHWC is the default; rank 4.
  const Tensor v4 = Tensor::FromVector<int32_t>({1, 2, 3, 4, 5, 6, 7, 8},
                                                TensorShape({1, 2, 2, 2}));
  const Tensor b2 = Tensor::FromVector<int32_t>({100, 200});
  auto out4 = RunKernel(
      TestNodeBuilder("bias", "BiasAdd", 2).Attr("T", DT_INT32).Build(),
      {v4, b2});
  REQUIRE_OK(out4);
  REQUIRE(Values<int32_t>((*out4)[0]) ==
          std::vector<int32_t>{101, 202, 103, 204, 105, 206, 107, 208});
}

TEST_CASE("BiasAdd adds the bias along dim 1 in NCHW") {
  // N=2, C=3, W=2.
  const Tensor value = Tensor::FromVector<double>(
      {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12}, TensorShape({2, 3, 2}));
  const Tensor bias = Tensor::FromVector<double>({10, 20, 30});
  auto out = RunKernel(BiasAddNode(DT_DOUBLE, "NCHW"), {value, bias});
  REQUIRE_OK(out);
  REQUIRE(Values<double>((*out)[0]) ==
          std::vector<double>{11, 12, 23, 24, 35, 36, 17, 18, 29, 30, 41, 42});

  // Rank 4, N=1, C=2, H=W=2.
  const Tensor v4 = Tensor::FromVector<int64_t>({1, 2, 3, 4, 5, 6, 7, 8},
                                                TensorShape({1, 2, 2, 2}));
  const Tensor b2 = Tensor::FromVector<int64_t>({100, 200});
  auto out4 = RunKernel(BiasAddNode(DT_INT64, "NCHW"), {v4, b2});
  REQUIRE_OK(out4);
  REQUIRE(Values<int64_t>((*out4)[0]) ==
          std::vector<int64_t>{101, 102, 103, 104, 205, 206, 207, 208});
}

TEST_CASE("BiasAdd on large inputs matches a loop in both formats") {
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> dist(-1, 1);
  for (const char* format : {"NHWC", "NCHW"}) {
    INFO(format);
    const bool nchw = std::string(format) == "NCHW";
    const int64_t n = 3, c = 17, s = 1001;  // 51051 elements
    const TensorShape shape = nchw ? TensorShape({n, c, s})
                                   : TensorShape({n, s, c});
    std::vector<float> v(shape.num_elements());
    for (float& x : v) x = dist(rng);
    std::vector<float> b(c);
    for (float& x : b) x = dist(rng);
    auto out = RunKernel(BiasAddNode(DT_FLOAT, format),
                         {Tensor::FromVector<float>(v, shape),
                          Tensor::FromVector<float>(b)});
    REQUIRE_OK(out);
    const float* got = (*out)[0].data<float>();
    for (int64_t i = 0; i < shape.num_elements(); ++i) {
      const int64_t channel = nchw ? (i / s) % c : i % c;
      REQUIRE(got[i] == v[i] + b[channel]);
    }
  }
}

TEST_CASE("BiasAdd rejects bad shapes naming the node") {
  const Tensor v1 = Tensor::FromVector<float>({1, 2, 3});
  const Tensor b3 = Tensor::FromVector<float>({1, 2, 3});
  REQUIRE_THAT(RunKernel(BiasAddNode(DT_FLOAT, "NHWC"), {v1, b3}).status(),
               StatusIs(absl::StatusCode::kInvalidArgument,
                        "node 'bias' (op BiasAdd): Input tensor must be at "
                        "least 2D: [3]"));
  const Tensor v23 = Tensor(DT_FLOAT, TensorShape({2, 3}));
  const Tensor b_matrix = Tensor(DT_FLOAT, TensorShape({1, 3}));
  REQUIRE_THAT(
      RunKernel(BiasAddNode(DT_FLOAT, "NHWC"), {v23, b_matrix}).status(),
      StatusIs(absl::StatusCode::kInvalidArgument, "Biases must be 1D: [1,3]"));
  // NHWC wants 3 biases for [2,3]; NCHW wants 3 for dim 1 of [2,3] as well,
  // but 2 are given.
  const Tensor b2 = Tensor::FromVector<float>({1, 2});
  REQUIRE_THAT(RunKernel(BiasAddNode(DT_FLOAT, "NHWC"), {v23, b2}).status(),
               StatusIs(absl::StatusCode::kInvalidArgument,
                        "Must provide as many biases as the channel dimension "
                        "of the input tensor: [2] vs. [2,3]"));
  const Tensor v234 = Tensor(DT_FLOAT, TensorShape({2, 3, 4}));
  const Tensor b4 = Tensor::FromVector<float>({1, 2, 3, 4});
  REQUIRE_OK(RunKernel(BiasAddNode(DT_FLOAT, "NHWC"), {v234, b4}));
  REQUIRE_THAT(RunKernel(BiasAddNode(DT_FLOAT, "NCHW"), {v234, b4}).status(),
               StatusIs(absl::StatusCode::kInvalidArgument,
                        "node 'bias' (op BiasAdd): Must provide"));
}

TEST_CASE("Relu and Relu6 clamp") {
  const Tensor f = Tensor::FromVector<float>({-2.5f, -0.0f, 0.5f, 5.f, 7.f});
  auto relu = RunKernel(
      TestNodeBuilder("r", "Relu", 1).Attr("T", DT_FLOAT).Build(), {f});
  REQUIRE_OK(relu);
  REQUIRE(Values<float>((*relu)[0]) ==
          std::vector<float>{0, 0, 0.5f, 5, 7});
  auto relu6 = RunKernel(
      TestNodeBuilder("r", "Relu6", 1).Attr("T", DT_FLOAT).Build(), {f});
  REQUIRE_OK(relu6);
  REQUIRE(Values<float>((*relu6)[0]) ==
          std::vector<float>{0, 0, 0.5f, 5, 6});
  const Tensor i = Tensor::FromVector<int64_t>({-3, 2, 9}, TensorShape({3, 1}));
  auto relu_i = RunKernel(
      TestNodeBuilder("r", "Relu", 1).Attr("T", DT_INT64).Build(), {i});
  REQUIRE_OK(relu_i);
  REQUIRE((*relu_i)[0].shape() == TensorShape({3, 1}));
  REQUIRE(Values<int64_t>((*relu_i)[0]) == std::vector<int64_t>{0, 2, 9});
  auto relu6_i = RunKernel(
      TestNodeBuilder("r", "Relu6", 1).Attr("T", DT_INT32).Build(),
      {Tensor::FromVector<int32_t>({-3, 2, 9})});
  REQUIRE_OK(relu6_i);
  REQUIRE(Values<int32_t>((*relu6_i)[0]) == std::vector<int32_t>{0, 2, 6});
}

NodeDef SoftmaxNode(const char* op, DataType dtype) {
  return TestNodeBuilder("sm", op, 1).Attr("T", dtype).Build();
}

TEST_CASE("Softmax matches a hand computation and rows sum to one") {
  const Tensor logits = Tensor::FromVector<float>({1, 2, 3, -1, 0, 1000},
                                                  TensorShape({2, 3}));
  auto out = RunKernel(SoftmaxNode("Softmax", DT_FLOAT), {logits});
  REQUIRE_OK(out);
  const std::vector<float> got = Values<float>((*out)[0]);
  const double e1 = std::exp(1.0), e2 = std::exp(2.0), e3 = std::exp(3.0);
  const double s = e1 + e2 + e3;
  REQUIRE(got[0] == Approx(e1 / s));
  REQUIRE(got[1] == Approx(e2 / s));
  REQUIRE(got[2] == Approx(e3 / s));
  REQUIRE(got[3] == Approx(0).margin(1e-30));
  REQUIRE(got[4] == Approx(0).margin(1e-30));
  REQUIRE(got[5] == Approx(1));
}

TEST_CASE("Softmax and LogSoftmax are stable for large logits") {
  const Tensor logits = Tensor::FromVector<float>({1000, 1001});
  auto sm = RunKernel(SoftmaxNode("Softmax", DT_FLOAT), {logits});
  REQUIRE_OK(sm);
  const std::vector<float> p = Values<float>((*sm)[0]);
  const double e = std::exp(1.0);
  REQUIRE(p[0] == Approx(1 / (1 + e)));
  REQUIRE(p[1] == Approx(e / (1 + e)));
  auto lsm = RunKernel(SoftmaxNode("LogSoftmax", DT_FLOAT), {logits});
  REQUIRE_OK(lsm);
  const std::vector<float> lp = Values<float>((*lsm)[0]);
  REQUIRE(lp[0] == Approx(-std::log(1 + e)));
  REQUIRE(lp[1] == Approx(1 - std::log(1 + e)));
  // Very negative logits too.
  auto neg = RunKernel(SoftmaxNode("Softmax", DT_DOUBLE),
                       {Tensor::FromVector<double>({-1000, -1000})});
  REQUIRE_OK(neg);
  REQUIRE(Values<double>((*neg)[0]) == std::vector<double>{0.5, 0.5});
}

TEST_CASE("Softmax and LogSoftmax match a per-row computation") {
  std::mt19937 rng(11);
  std::uniform_real_distribution<double> dist(-20, 20);
  // The last one is large enough to run on the intra-op pool.
  for (const TensorShape& shape :
       {TensorShape({5}), TensorShape({4, 1}), TensorShape({3, 4, 7}),
        TensorShape({0, 3}), TensorShape({3, 0}), TensorShape({300, 200})}) {
    INFO(shape.DebugString());
    std::vector<double> x(shape.num_elements());
    for (double& v : x) v = dist(rng);
    const Tensor in = Tensor::FromVector<double>(x, shape);
    auto sm = RunKernel(SoftmaxNode("Softmax", DT_DOUBLE), {in});
    auto lsm = RunKernel(SoftmaxNode("LogSoftmax", DT_DOUBLE), {in});
    REQUIRE_OK(sm);
    REQUIRE_OK(lsm);
    REQUIRE((*sm)[0].shape() == shape);
    REQUIRE((*lsm)[0].shape() == shape);
    const int64_t classes = shape.dim_size(shape.dims() - 1);
    if (classes == 0) continue;
    const int64_t rows = shape.num_elements() / classes;
    for (int64_t r = 0; r < rows; ++r) {
      double sum = 0;
      for (int64_t j = 0; j < classes; ++j) sum += std::exp(x[r * classes + j]);
      double row_total = 0;
      for (int64_t j = 0; j < classes; ++j) {
        const int64_t i = r * classes + j;
        const double p = (*sm)[0].data<double>()[i];
        row_total += p;
        REQUIRE(p == Approx(std::exp(x[i]) / sum).epsilon(1e-9));
        REQUIRE((*lsm)[0].data<double>()[i] ==
                Approx(x[i] - std::log(sum)).epsilon(1e-9).margin(1e-10));
      }
      REQUIRE(row_total == Approx(1.0).epsilon(1e-12));
    }
  }
}

TEST_CASE("Softmax rejects a scalar") {
  REQUIRE_THAT(
      RunKernel(SoftmaxNode("Softmax", DT_FLOAT), {Tensor::Scalar(1.0f)})
          .status(),
      StatusIs(absl::StatusCode::kInvalidArgument,
               "node 'sm' (op Softmax): logits must have >= 1 dimension"));
}

// Runs `node`'s shape function on `inputs`.
absl::Status Infer(NodeDef node, std::vector<PartialShape> inputs,
                   PartialShape* out) {
  const OpRegistrationData* op = OpRegistry::Global()->LookUp(node.op());
  REQUIRE(op != nullptr);
  AddDefaultAttrs(op->op_def, &node);
  InferenceContext c(node, op->op_def, std::move(inputs), {}, 1);
  absl::Status s = op->shape_fn(&c);
  *out = c.output(0);
  return s;
}

TEST_CASE("BiasAdd's and Softmax's shape functions check known shapes") {
  PartialShape out;
  REQUIRE_OK(Infer(BiasAddNode(DT_FLOAT, "NHWC"),
                   {PartialShape::Known({2, -1}), PartialShape::Known({3})},
                   &out));
  REQUIRE(out.DebugString() == "[2,3]");
  REQUIRE_OK(Infer(BiasAddNode(DT_FLOAT, "NCHW"),
                   {PartialShape::Known({2, 3, 4, 5}),
                    PartialShape::Known({3})},
                   &out));
  REQUIRE(out.DebugString() == "[2,3,4,5]");
  REQUIRE_THAT(Infer(BiasAddNode(DT_FLOAT, "NHWC"),
                     {PartialShape::Known({2, 3, 4, 5}),
                      PartialShape::Known({3})},
                     &out),
               StatusIs(absl::StatusCode::kInvalidArgument,
                        "node 'bias' (op BiasAdd): Must provide as many "
                        "biases"));
  REQUIRE_THAT(Infer(BiasAddNode(DT_FLOAT, "NHWC"),
                     {PartialShape::Known({3}), PartialShape::Known({3})},
                     &out),
               StatusIs(absl::StatusCode::kInvalidArgument, "at least rank 2"));
  REQUIRE_OK(Infer(SoftmaxNode("Softmax", DT_FLOAT),
                   {PartialShape::Known({-1, 10})}, &out));
  REQUIRE(out.DebugString() == "[?,10]");
  REQUIRE_THAT(Infer(SoftmaxNode("LogSoftmax", DT_FLOAT),
                     {PartialShape::Scalar()}, &out),
               StatusIs(absl::StatusCode::kInvalidArgument,
                        "node 'sm' (op LogSoftmax)"));
}

}  // namespace
}  // namespace dfx
