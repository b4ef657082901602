// The loss kernels (L2Loss, SoftmaxCrossEntropyWithLogits,
// SparseSoftmaxCrossEntropyWithLogits) and LRN / LRNGrad, with their shape
// functions.
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "catch2/catch.hpp"
#include "graph/node_def_util.h"
#include "graph/op_registry.h"
#include "runtime/tensor.h"
#include "tests/kernels/kernel_test_util.h"
#include "tests/kernels/math_test_util.h"
#include "tests/testing/status_matchers.h"

namespace dfx {
namespace {

using testing::MakeTensor;
using testing::MakeVector;
using testing::RunError;
using testing::RunKernel;
using testing::RunOne;
using testing::StatusIs;
using testing::TestNodeBuilder;
using testing::TypedNode;
using testing::Values;

template <typename T>
std::vector<double> AsDoubles(const Tensor& t) {
  std::vector<double> out;
  for (const T& v : t.span<T>()) out.push_back(static_cast<double>(v));
  return out;
}

template <typename T>
Tensor FromDoubles(const std::vector<double>& values, const TensorShape& shape) {
  std::vector<T> v;
  for (double d : values) v.push_back(static_cast<T>(d));
  return Tensor::FromVector<T>(v, shape);
}

TEST_CASE("L2Loss is half the sum of squares") {
  REQUIRE(RunOne(TypedNode("l2", "L2Loss", DT_FLOAT, 1).Build(),
                 {MakeTensor<float>({1, 2, 3, 4, 5, 6}, TensorShape({2, 3}))})
              .scalar<float>() == 45.5f);
  REQUIRE(RunOne(TypedNode("l2", "L2Loss", DT_DOUBLE, 1).Build(),
                 {Tensor::Scalar<double>(3)})
              .scalar<double>() == 4.5);
  const Tensor empty = RunOne(TypedNode("l2", "L2Loss", DT_FLOAT, 1).Build(),
                              {Tensor(DT_FLOAT, TensorShape({0, 2}))});
  REQUIRE(empty.dims() == 0);
  REQUIRE(empty.scalar<float>() == 0);
  // 100000 elements run on the pool; half sums in float, so 1000 * 4.5
  // would not drift.
  std::vector<float> x(100000, 0.5f);
  REQUIRE(RunOne(TypedNode("l2", "L2Loss", DT_FLOAT, 1).Build(),
                 {Tensor::FromVector<float>(x)})
              .scalar<float>() == Approx(12500));
  std::vector<Eigen::half> h(1000, Eigen::half(3));
  REQUIRE(static_cast<float>(
              RunOne(TypedNode("l2", "L2Loss", DT_HALF, 1).Build(),
                     {Tensor::FromVector<Eigen::half>(h)})
                  .scalar<Eigen::half>()) == 4500);
  std::vector<Eigen::bfloat16> b(1000, Eigen::bfloat16(3));
  REQUIRE(static_cast<float>(
              RunOne(TypedNode("l2", "L2Loss", DT_BFLOAT16, 1).Build(),
                     {Tensor::FromVector<Eigen::bfloat16>(b)})
                  .scalar<Eigen::bfloat16>()) == Approx(4500).epsilon(4e-3));
}

// Reference softmax cross entropy of one row, in double.
void XentRow(const std::vector<double>& logits,
             const std::vector<double>& labels, double* loss,
             std::vector<double>* backprop) {
  double max = -INFINITY;
  for (double v : logits) max = std::max(max, v);
  double sum = 0;
  for (double v : logits) sum += std::exp(v - max);
  *loss = 0;
  backprop->clear();
  for (size_t j = 0; j < logits.size(); ++j) {
    const double log_p = logits[j] - max - std::log(sum);
    *loss -= labels[j] * log_p;
    backprop->push_back(std::exp(log_p) - labels[j]);
  }
}

NodeDef XentNode(DataType dtype) {
  return TypedNode("xent", "SoftmaxCrossEntropyWithLogits", dtype, 2).Build();
}

TEST_CASE("SoftmaxCrossEntropyWithLogits matches a per-row computation") {
  const std::vector<double> logits = {1, 2, 3, 4, 5, 6, -1, 0, 1000};
  const std::vector<double> labels = {0, 1, 0, 0.5, 0.5, 0, 0.2, 0.3, 0.5};
  for (DataType dtype : {DT_FLOAT, DT_DOUBLE, DT_HALF, DT_BFLOAT16}) {
    INFO(DataTypeString(dtype));
    std::vector<double> loss, backprop;
    if (dtype == DT_FLOAT) {
      auto out = RunKernel(XentNode(dtype),
                           {FromDoubles<float>(logits, TensorShape({3, 3})),
                            FromDoubles<float>(labels, TensorShape({3, 3}))});
      REQUIRE_OK(out);
      loss = AsDoubles<float>((*out)[0]);
      backprop = AsDoubles<float>((*out)[1]);
    } else if (dtype == DT_DOUBLE) {
      auto out = RunKernel(XentNode(dtype),
                           {FromDoubles<double>(logits, TensorShape({3, 3})),
                            FromDoubles<double>(labels, TensorShape({3, 3}))});
      REQUIRE_OK(out);
      loss = AsDoubles<double>((*out)[0]);
      backprop = AsDoubles<double>((*out)[1]);
    } else if (dtype == DT_HALF) {
      auto out =
          RunKernel(XentNode(dtype),
                    {FromDoubles<Eigen::half>(logits, TensorShape({3, 3})),
                     FromDoubles<Eigen::half>(labels, TensorShape({3, 3}))});
      REQUIRE_OK(out);
      loss = AsDoubles<Eigen::half>((*out)[0]);
      backprop = AsDoubles<Eigen::half>((*out)[1]);
    } else {
      auto out =
          RunKernel(XentNode(dtype),
                    {FromDoubles<Eigen::bfloat16>(logits, TensorShape({3, 3})),
                     FromDoubles<Eigen::bfloat16>(labels, TensorShape({3, 3}))});
      REQUIRE_OK(out);
      loss = AsDoubles<Eigen::bfloat16>((*out)[0]);
      backprop = AsDoubles<Eigen::bfloat16>((*out)[1]);
    }
    const double tol = dtype == DT_BFLOAT16 ? 2e-2 : dtype == DT_HALF ? 2e-3
                                                                      : 1e-6;
    for (int r = 0; r < 3; ++r) {
      // Round the inputs as the dtype does (1000 and 0.3 are not exact in
      // bfloat16).
      std::vector<double> lg, lb;
      for (int j = 0; j < 3; ++j) {
        double l = logits[r * 3 + j], y = labels[r * 3 + j];
        if (dtype == DT_BFLOAT16) {
          l = static_cast<double>(Eigen::bfloat16(l));
          y = static_cast<double>(Eigen::bfloat16(y));
        } else if (dtype == DT_HALF) {
          l = static_cast<double>(Eigen::half(l));
          y = static_cast<double>(Eigen::half(y));
        }
        lg.push_back(l);
        lb.push_back(y);
      }
      double want_loss;
      std::vector<double> want_bp;
      XentRow(lg, lb, &want_loss, &want_bp);
      REQUIRE(loss[r] == Approx(want_loss).epsilon(tol).margin(tol));
      for (int j = 0; j < 3; ++j) {
        REQUIRE(backprop[r * 3 + j] == Approx(want_bp[j]).epsilon(tol).margin(tol));
      }
    }
  }
}

TEST_CASE("SoftmaxCrossEntropyWithLogits broadcasts labels and logits") {
  const Tensor logits =
      MakeTensor<float>({1, 2, 3, 4, 5, 7}, TensorShape({2, 3}));
  const Tensor full =
      MakeTensor<float>({0, 1, 0, 0, 1, 0}, TensorShape({2, 3}));
  auto want = RunKernel(XentNode(DT_FLOAT), {logits, full});
  REQUIRE_OK(want);
  for (const Tensor& labels :
       {MakeVector<float>({0, 1, 0}),
        MakeTensor<float>({0, 1, 0}, TensorShape({1, 3}))}) {
    INFO(labels.shape().DebugString());
    auto got = RunKernel(XentNode(DT_FLOAT), {logits, labels});
    REQUIRE_OK(got);
    REQUIRE((*got)[0].shape() == TensorShape({2}));
    REQUIRE((*got)[1].shape() == TensorShape({2, 3}));
    REQUIRE(Values<float>((*got)[0]) == Values<float>((*want)[0]));
    REQUIRE(Values<float>((*got)[1]) == Values<float>((*want)[1]));
  }
  // Logits [1,3] against labels [2,3]: the one row of logits serves both.
  auto both = RunKernel(XentNode(DT_DOUBLE),
                        {MakeTensor<double>({1, 2, 3}, TensorShape({1, 3})),
                         MakeTensor<double>({1, 0, 0, 0, 0, 1},
                                            TensorShape({2, 3}))});
  REQUIRE_OK(both);
  const double lse = std::log(std::exp(1.0) + std::exp(2.0) + std::exp(3.0));
  REQUIRE(Values<double>((*both)[0])[0] == Approx(lse - 1));
  REQUIRE(Values<double>((*both)[0])[1] == Approx(lse - 3));
  // A scalar label broadcasts too.
  REQUIRE_OK(RunKernel(XentNode(DT_FLOAT), {logits, Tensor::Scalar(0.5f)}));
}

TEST_CASE("SoftmaxCrossEntropyWithLogits rejects what TensorFlow rejects") {
  const Tensor logits = Tensor(DT_FLOAT, TensorShape({2, 3}));
  REQUIRE_THAT(RunKernel(XentNode(DT_FLOAT),
                         {logits, Tensor(DT_FLOAT, TensorShape({1, 2}))})
                   .status(),
               StatusIs(absl::StatusCode::kInvalidArgument,
                        "logits and labels must be broadcastable: "
                        "logits_size=[2,3] labels_size=[1,2]"));
  const Tensor cube = Tensor(DT_FLOAT, TensorShape({1, 2, 3}));
  REQUIRE_THAT(RunKernel(XentNode(DT_FLOAT), {cube, cube}).status(),
               StatusIs(absl::StatusCode::kInvalidArgument,
                        "logits and labels must be either 2-dimensional, or "
                        "broadcasted to be 2-dimensional"));
  const Tensor vec = MakeVector<float>({1, 2});
  REQUIRE_THAT(RunKernel(XentNode(DT_FLOAT), {vec, vec}).status(),
               StatusIs(absl::StatusCode::kInvalidArgument, "2-dimensional"));
}

TEST_CASE("SoftmaxCrossEntropyWithLogits handles empty batches and classes") {
  auto batch0 = RunKernel(XentNode(DT_FLOAT),
                          {Tensor(DT_FLOAT, TensorShape({0, 3})),
                           MakeTensor<float>({0, 1, 0}, TensorShape({1, 3}))});
  REQUIRE_OK(batch0);
  REQUIRE((*batch0)[0].shape() == TensorShape({0}));
  REQUIRE((*batch0)[1].shape() == TensorShape({0, 3}));
  auto class0 = RunKernel(XentNode(DT_HALF),
                          {Tensor(DT_HALF, TensorShape({2, 0})),
                           Tensor(DT_HALF, TensorShape({2, 0}))});
  REQUIRE_OK(class0);
  REQUIRE(AsDoubles<Eigen::half>((*class0)[0]) == std::vector<double>{0, 0});
  REQUIRE((*class0)[1].shape() == TensorShape({2, 0}));
}

TEST_CASE("SoftmaxCrossEntropyWithLogits is stable for large logits") {
  // Labels that ignore the huge logit: loss 1000, as TensorFlow.
  auto out = RunKernel(XentNode(DT_FLOAT),
                       {MakeTensor<float>({1000, 0}, TensorShape({1, 2})),
                        MakeTensor<float>({0, 1}, TensorShape({1, 2}))});
  REQUIRE_OK(out);
  REQUIRE(Values<float>((*out)[0]) == std::vector<float>{1000});
  REQUIRE(Values<float>((*out)[1]) == std::vector<float>{1, -1});
  // Large rows spread over threads agree with a per-row computation.
  std::mt19937 rng(2);
  std::uniform_real_distribution<double> dist(-30, 30);
  const int64_t rows = 64, classes = 1000;
  std::vector<double> logits(rows * classes), labels(rows * classes, 0);
  for (double& v : logits) v = dist(rng);
  for (int64_t r = 0; r < rows; ++r) labels[r * classes + (r * 7) % classes] = 1;
  auto big = RunKernel(
      XentNode(DT_DOUBLE),
      {FromDoubles<double>(logits, TensorShape({rows, classes})),
       FromDoubles<double>(labels, TensorShape({rows, classes}))});
  REQUIRE_OK(big);
  for (int64_t r = 0; r < rows; ++r) {
    std::vector<double> lg(logits.begin() + r * classes,
                           logits.begin() + (r + 1) * classes);
    std::vector<double> lb(labels.begin() + r * classes,
                           labels.begin() + (r + 1) * classes);
    double loss;
    std::vector<double> bp;
    XentRow(lg, lb, &loss, &bp);
    REQUIRE((*big)[0].data<double>()[r] == Approx(loss).epsilon(1e-12));
    for (int64_t j = 0; j < classes; ++j) {
      REQUIRE((*big)[1].data<double>()[r * classes + j] ==
              Approx(bp[j]).epsilon(1e-10).margin(1e-15));
    }
  }
}

NodeDef SparseNode(DataType dtype, DataType label_type) {
  return TypedNode("sxent", "SparseSoftmaxCrossEntropyWithLogits", dtype, 2)
      .Attr("Tlabels", label_type)
      .Build();
}

TEST_CASE("SparseSoftmaxCrossEntropyWithLogits matches the dense form") {
  const Tensor logits =
      MakeTensor<float>({1, 2, 3, 4, 5, 6, -1, 0, 1000}, TensorShape({3, 3}));
  auto dense = RunKernel(
      XentNode(DT_FLOAT),
      {logits, MakeTensor<float>({0, 0, 1, 1, 0, 0, 0, 1, 0},
                                 TensorShape({3, 3}))});
  REQUIRE_OK(dense);
  auto sparse32 =
      RunKernel(SparseNode(DT_FLOAT, DT_INT32),
                {logits, MakeVector<int32_t>({2, 0, 1})});
  auto sparse64 =
      RunKernel(SparseNode(DT_FLOAT, DT_INT64),
                {logits, MakeVector<int64_t>({2, 0, 1})});
  REQUIRE_OK(sparse32);
  REQUIRE_OK(sparse64);
  for (const auto* s : {&*sparse32, &*sparse64}) {
    for (int i = 0; i < 3; ++i) {
      REQUIRE((*s)[0].data<float>()[i] ==
              Approx((*dense)[0].data<float>()[i]).epsilon(1e-6));
    }
    for (int i = 0; i < 9; ++i) {
      REQUIRE((*s)[1].data<float>()[i] ==
              Approx((*dense)[1].data<float>()[i]).margin(1e-6));
    }
  }
  REQUIRE((*sparse32)[0].data<float>()[2] == 1000);
  // Tlabels defaults to int64.
  REQUIRE_OK(RunKernel(TypedNode("s", "SparseSoftmaxCrossEntropyWithLogits",
                                 DT_HALF, 2)
                           .Build(),
                       {MakeTensor<Eigen::half>({Eigen::half(1), Eigen::half(2)},
                                                TensorShape({1, 2})),
                        MakeVector<int64_t>({1})}));
  // An empty batch.
  auto empty = RunKernel(SparseNode(DT_BFLOAT16, DT_INT32),
                         {Tensor(DT_BFLOAT16, TensorShape({0, 4})),
                          Tensor(DT_INT32, TensorShape({0}))});
  REQUIRE_OK(empty);
  REQUIRE((*empty)[0].shape() == TensorShape({0}));
  REQUIRE((*empty)[1].shape() == TensorShape({0, 4}));
}

TEST_CASE("SparseSoftmaxCrossEntropyWithLogits rejects bad labels and shapes") {
  const Tensor logits = Tensor(DT_FLOAT, TensorShape({2, 3}));
  REQUIRE_THAT(RunKernel(SparseNode(DT_FLOAT, DT_INT32),
                         {logits, MakeVector<int32_t>({0, 3})})
                   .status(),
               StatusIs(absl::StatusCode::kInvalidArgument,
                        "Received a label value of 3 which is outside the "
                        "valid range of [0, 3).  Label values: 0 3"));
  REQUIRE_THAT(RunKernel(SparseNode(DT_FLOAT, DT_INT64),
                         {logits, MakeVector<int64_t>({-1, 0})})
                   .status(),
               StatusIs(absl::StatusCode::kInvalidArgument,
                        "Received a label value of -1"));
  REQUIRE_THAT(RunKernel(SparseNode(DT_FLOAT, DT_INT32),
                         {logits, MakeVector<int32_t>({0, 1, 1})})
                   .status(),
               StatusIs(absl::StatusCode::kInvalidArgument,
                        "logits and labels must have the same first "
                        "dimension, got logits shape [2,3] and labels shape "
                        "[3]"));
  REQUIRE_THAT(RunKernel(SparseNode(DT_FLOAT, DT_INT32),
                         {logits, MakeTensor<int32_t>({0, 1}, TensorShape({2, 1}))})
                   .status(),
               StatusIs(absl::StatusCode::kInvalidArgument,
                        "labels must be 1-D, but got shape [2,1]"));
  REQUIRE_THAT(RunKernel(SparseNode(DT_FLOAT, DT_INT32),
                         {MakeVector<float>({1, 2}), Tensor::Scalar<int32_t>(0)})
                   .status(),
               StatusIs(absl::StatusCode::kInvalidArgument,
                        "logits must be 2-D, but got shape [2]"));
  REQUIRE_THAT(RunKernel(SparseNode(DT_FLOAT, DT_INT32),
                         {Tensor(DT_FLOAT, TensorShape({2, 0})),
                          MakeVector<int32_t>({0, 0})})
                   .status(),
               StatusIs(absl::StatusCode::kInvalidArgument,
                        "Must have at least one class, but got logits shape "
                        "[2,0]"));
}

// Reference LRN of one depth row.
std::vector<double> LrnRow(const std::vector<double>& x, int r, double bias,
                           double alpha, double beta) {
  const int d = static_cast<int>(x.size());
  std::vector<double> out(d);
  for (int i = 0; i < d; ++i) {
    double s = 0;
    for (int k = std::max(0, i - r); k < std::min(d, i + r + 1); ++k) {
      s += x[k] * x[k];
    }
    out[i] = x[i] * std::pow(bias + alpha * s, -beta);
  }
  return out;
}

NodeDef LrnNode(const char* op, DataType dtype, int64_t radius, float bias,
                float alpha, float beta) {
  return TypedNode("lrn", op, dtype, std::string(op) == "LRN" ? 1 : 3)
      .Attr("depth_radius", radius)
      .Attr("bias", bias)
      .Attr("alpha", alpha)
      .Attr("beta", beta)
      .Build();
}

TEST_CASE("LRN normalises across depth") {
  std::mt19937 rng(4);
  std::uniform_real_distribution<double> dist(-2, 2);
  const int depth = 7;
  std::vector<double> x(2 * 2 * 3 * depth);
  for (double& v : x) v = dist(rng);
  struct Attrs {
    int64_t r;
    float bias, alpha, beta;
  };
  for (const Attrs& a : {Attrs{5, 1, 1, 0.5f}, Attrs{1, 2, 0.1f, 0.75f},
                         Attrs{0, 1, 1, 1}, Attrs{100, 0.5f, 0.3f, 0.25f}}) {
    INFO("radius " << a.r << " beta " << a.beta);
    const Tensor out = RunOne(LrnNode("LRN", DT_FLOAT, a.r, a.bias, a.alpha, a.beta),
                              {FromDoubles<float>(x, TensorShape({2, 2, 3, depth}))});
    for (size_t row = 0; row < x.size() / depth; ++row) {
      const std::vector<double> want = LrnRow(
          std::vector<double>(x.begin() + row * depth,
                              x.begin() + (row + 1) * depth),
          static_cast<int>(a.r), a.bias, a.alpha, a.beta);
      for (int i = 0; i < depth; ++i) {
        REQUIRE(out.data<float>()[row * depth + i] ==
                Approx(want[i]).epsilon(1e-5).margin(1e-6));
      }
    }
  }
  // The defaults: radius 5, bias 1, alpha 1, beta 0.5; half too.
  const Tensor h = RunOne(
      TypedNode("lrn", "LRN", DT_HALF, 1).Build(),
      {FromDoubles<Eigen::half>({1, 2, 3}, TensorShape({1, 1, 1, 3}))});
  const std::vector<double> want = LrnRow({1, 2, 3}, 5, 1, 1, 0.5);
  for (int i = 0; i < 3; ++i) {
    REQUIRE(static_cast<double>(h.data<Eigen::half>()[i]) ==
            Approx(want[i]).epsilon(1e-3));
  }
  REQUIRE_THAT(RunError(TypedNode("lrn", "LRN", DT_FLOAT, 1).Build(),
                        {Tensor(DT_FLOAT, TensorShape({1, 2, 3}))}),
               StatusIs(absl::StatusCode::kInvalidArgument,
                        "in must be 4-dimensional"));
  REQUIRE_THAT(RunKernel(LrnNode("LRN", DT_FLOAT, -1, 1, 1, 0.5f),
                         {Tensor(DT_FLOAT, TensorShape({1, 1, 1, 3}))})
                   .status(),
               StatusIs(absl::StatusCode::kInvalidArgument,
                        "depth_radius = -1"));
}

TEST_CASE("LRNGrad matches finite differences of LRN") {
  std::mt19937 rng(8);
  std::uniform_real_distribution<double> dist(-1.5, 1.5);
  const int depth = 6;
  const int64_t r = 2;
  const float bias = 1.5f, alpha = 0.4f, beta = 0.75f;
  std::vector<double> x(2 * depth), g(2 * depth);
  for (double& v : x) v = dist(rng);
  for (double& v : g) v = dist(rng);
  const TensorShape shape({1, 1, 2, depth});
  std::vector<double> y;
  for (int row = 0; row < 2; ++row) {
    const std::vector<double> yr =
        LrnRow(std::vector<double>(x.begin() + row * depth,
                                   x.begin() + (row + 1) * depth),
               r, bias, alpha, beta);
    y.insert(y.end(), yr.begin(), yr.end());
  }
  const Tensor grad = RunOne(
      LrnNode("LRNGrad", DT_FLOAT, r, bias, alpha, beta),
      {FromDoubles<float>(g, shape), FromDoubles<float>(x, shape),
       FromDoubles<float>(y, shape)});
  // d(sum(g * LRN(x)))/dx by central differences, in double.
  const double h = 1e-6;
  for (int row = 0; row < 2; ++row) {
    for (int k = 0; k < depth; ++k) {
      std::vector<double> xp(x.begin() + row * depth,
                             x.begin() + (row + 1) * depth);
      std::vector<double> xm = xp;
      xp[k] += h;
      xm[k] -= h;
      const std::vector<double> yp = LrnRow(xp, r, bias, alpha, beta);
      const std::vector<double> ym = LrnRow(xm, r, bias, alpha, beta);
      double want = 0;
      for (int d = 0; d < depth; ++d) {
        want += g[row * depth + d] * (yp[d] - ym[d]) / (2 * h);
      }
      REQUIRE(grad.data<float>()[row * depth + k] ==
              Approx(want).epsilon(1e-4).margin(1e-5));
    }
  }
  REQUIRE_THAT(
      RunError(LrnNode("LRNGrad", DT_FLOAT, r, bias, alpha, beta),
               {FromDoubles<float>(g, shape), FromDoubles<float>(x, shape),
                Tensor(DT_FLOAT, TensorShape({1, 1, 1, depth}))}),
      StatusIs(absl::StatusCode::kInvalidArgument,
               "input_grads, input_image, and out_image should have the same "
               "shape"));
}

absl::Status Infer(NodeDef node, std::vector<PartialShape> inputs,
                   std::vector<PartialShape>* out) {
  const OpRegistrationData* op = OpRegistry::Global()->LookUp(node.op());
  REQUIRE(op != nullptr);
  AddDefaultAttrs(op->op_def, &node);
  const size_t num_inputs = inputs.size();
  InferenceContext c(node, op->op_def, std::move(inputs),
                     std::vector<const TensorProto*>(num_inputs, nullptr),
                     op->op_def.output_arg_size());
  absl::Status s = op->shape_fn(&c);
  out->clear();
  for (int i = 0; i < c.num_outputs(); ++i) out->push_back(c.output(i));
  return s;
}

std::string Shapes(const std::vector<PartialShape>& shapes) {
  std::string s;
  for (const PartialShape& p : shapes) s += p.DebugString();
  return s;
}

TEST_CASE("Loss shape functions follow TensorFlow") {
  std::vector<PartialShape> out;
  REQUIRE_OK(Infer(XentNode(DT_FLOAT),
                   {PartialShape::Known({-1, 3}), PartialShape::Known({2, -1})},
                   &out));
  REQUIRE(Shapes(out) == "[2][2,3]");
  REQUIRE_OK(Infer(XentNode(DT_FLOAT),
                   {PartialShape::Known({1, 3}), PartialShape::Known({4, 3})},
                   &out));
  REQUIRE(Shapes(out) == "[4][4,3]");
  REQUIRE_OK(Infer(XentNode(DT_FLOAT),
                   {PartialShape::Known({2, 3}), PartialShape::Known({3})},
                   &out));
  REQUIRE(Shapes(out) == "[2][2,3]");
  REQUIRE_OK(Infer(XentNode(DT_FLOAT),
                   {PartialShape::Unknown(), PartialShape::Unknown()}, &out));
  REQUIRE(Shapes(out) == "[?][?,?]");
  REQUIRE_THAT(Infer(XentNode(DT_FLOAT),
                     {PartialShape::Known({2, 3, 4}),
                      PartialShape::Known({2, 3, 4})},
                     &out),
               StatusIs(absl::StatusCode::kInvalidArgument,
                        "broadcasted with rank 2, but is rank 3"));
  REQUIRE_THAT(Infer(XentNode(DT_FLOAT),
                     {PartialShape::Known({2, 3}), PartialShape::Known({2, 4})},
                     &out),
               StatusIs(absl::StatusCode::kInvalidArgument));
  REQUIRE_OK(Infer(SparseNode(DT_FLOAT, DT_INT32),
                   {PartialShape::Known({-1, 3}), PartialShape::Known({5})},
                   &out));
  REQUIRE(Shapes(out) == "[5][5,3]");
  REQUIRE_THAT(Infer(SparseNode(DT_FLOAT, DT_INT32),
                     {PartialShape::Known({4, 3}), PartialShape::Known({5})},
                     &out),
               StatusIs(absl::StatusCode::kInvalidArgument));
  REQUIRE_THAT(Infer(SparseNode(DT_FLOAT, DT_INT32),
                     {PartialShape::Known({4, 3}), PartialShape::Known({4, 1})},
                     &out),
               StatusIs(absl::StatusCode::kInvalidArgument));
  REQUIRE_OK(Infer(TypedNode("l", "L2Loss", DT_FLOAT, 1).Build(),
                   {PartialShape::Known({2, 3})}, &out));
  REQUIRE(Shapes(out) == "[]");
  REQUIRE_OK(Infer(TypedNode("l", "LRN", DT_FLOAT, 1).Build(),
                   {PartialShape::Known({2, 3, 4, -1})}, &out));
  REQUIRE(Shapes(out) == "[2,3,4,?]");
  REQUIRE_THAT(Infer(TypedNode("l", "LRN", DT_FLOAT, 1).Build(),
                     {PartialShape::Known({2, 3, 4})}, &out),
               StatusIs(absl::StatusCode::kInvalidArgument));
  REQUIRE_OK(Infer(TypedNode("l", "LRNGrad", DT_FLOAT, 3).Build(),
                   {PartialShape::Known({2, -1, 4, 5}),
                    PartialShape::Known({-1, 3, 4, 5}), PartialShape::Unknown()},
                   &out));
  REQUIRE(Shapes(out) == "[2,3,4,5]");
}

}  // namespace
}  // namespace dfx
