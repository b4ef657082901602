// Tests graph/builder/grad/nn_grad.cc: every gradient function against
// central differences, run in a local session.
#include <cmath>
#include <functional>
#include <string>
#include <vector>

#include "catch2/catch.hpp"
#include "graph/builder/gradients.h"
#include "graph/builder/ops.h"
#include "tests/builder/grad_test_util.h"

namespace dfx {
namespace {

using testing::Ph;
using testing::Rand;
using testing::RequireGradient;

using UnaryFn = std::function<Output(const Scope&, const Output&)>;

// Values in [-2, 2) kept at least 0.1 away from the kinks at 0 and 6.
Tensor AwayFromKinks(DataType dtype, const TensorShape& shape) {
  Tensor t = Rand(dtype, shape, 3, -2.0, 2.0);
  std::vector<double> v;
  for (int64_t i = 0; i < t.NumElements(); ++i) {
    double e = testing::GetAsDouble(t, i);
    if (std::fabs(e) < 0.1) e = e < 0 ? -0.1 - e : 0.1 + e;
    v.push_back(e);
  }
  return testing::MakeTensor(dtype, shape, v);
}

TEST_CASE("gradient: activations") {
  struct Case {
    const char* name;
    UnaryFn fn;
  };
  const Case cases[] = {
      {"Relu", ops::Relu},
      {"Relu6", ops::Relu6},
      {"Elu", ops::Elu},
      {"Selu", ops::Selu},
      {"Softplus", ops::Softplus},
      {"LeakyRelu alpha 0.2",
       [](const Scope& s, const Output& x) { return ops::LeakyRelu(s, x); }},
      {"LeakyRelu alpha 0.5",
       [](const Scope& s, const Output& x) {
         return ops::LeakyRelu(s, x, 0.5f);
       }},
  };
  for (const Case& c : cases) {
    for (DataType dtype : {DT_DOUBLE, DT_FLOAT}) {
      SECTION(std::string(c.name) + " " + DataTypeString(dtype)) {
        Scope root = Scope::NewRootScope();
        const Output x = Ph(root, "x", dtype);
        RequireGradient(root, {x}, {AwayFromKinks(dtype, {3, 4})},
                        {c.fn(root, x)});
      }
    }
  }
  SECTION("Relu6 above 6") {
    Scope root = Scope::NewRootScope();
    const Output x = Ph(root, "x", DT_DOUBLE);
    RequireGradient(root, {x}, {Rand(DT_DOUBLE, {2, 3}, 4, 5.0, 7.0)},
                    {ops::Relu6(root, x)});
  }
}

TEST_CASE("gradient: Softmax and LogSoftmax") {
  for (DataType dtype : {DT_DOUBLE, DT_FLOAT}) {
    SECTION(std::string("Softmax ") + DataTypeString(dtype)) {
      Scope root = Scope::NewRootScope();
      const Output x = Ph(root, "x", dtype);
      RequireGradient(root, {x}, {Rand(dtype, {3, 4}, 1, -2, 2)},
                      {ops::Softmax(root, x)});
    }
    SECTION(std::string("LogSoftmax ") + DataTypeString(dtype)) {
      Scope root = Scope::NewRootScope();
      const Output x = Ph(root, "x", dtype);
      RequireGradient(root, {x}, {Rand(dtype, {3, 4}, 1, -2, 2)},
                      {ops::LogSoftmax(root, x)});
    }
  }
  SECTION("Softmax rank 3") {
    Scope root = Scope::NewRootScope();
    const Output x = Ph(root, "x", DT_DOUBLE);
    RequireGradient(root, {x}, {Rand(DT_DOUBLE, {2, 2, 3}, 1, -2, 2)},
                    {ops::Softmax(root, x)});
  }
}

// Rows of non-negative labels summing to 1.
Tensor Distribution(DataType dtype, int rows, int cols, uint32_t seed) {
  Tensor t = Rand(dtype, {rows, cols}, seed, 0.1, 1.0);
  std::vector<double> v;
  for (int r = 0; r < rows; ++r) {
    double sum = 0;
    for (int c = 0; c < cols; ++c) sum += testing::GetAsDouble(t, r * cols + c);
    for (int c = 0; c < cols; ++c) {
      v.push_back(testing::GetAsDouble(t, r * cols + c) / sum);
    }
  }
  return testing::MakeTensor(dtype, {rows, cols}, v);
}

TEST_CASE("gradient: SoftmaxCrossEntropyWithLogits") {
  SECTION("loss with respect to logits and labels") {
    Scope root = Scope::NewRootScope();
    const Output logits = Ph(root, "logits", DT_DOUBLE);
    const Output labels = Ph(root, "labels", DT_DOUBLE);
    const auto xent = ops::SoftmaxCrossEntropyWithLogits(root, logits, labels);
    RequireGradient(
        root, {logits, labels},
        {Rand(DT_DOUBLE, {3, 4}, 1, -2, 2), Distribution(DT_DOUBLE, 3, 4, 2)},
        {xent.loss});
  }
  SECTION("labels broadcast against logits") {
    Scope root = Scope::NewRootScope();
    const Output logits = Ph(root, "logits", DT_DOUBLE);
    const Output labels = Ph(root, "labels", DT_DOUBLE);
    const auto xent = ops::SoftmaxCrossEntropyWithLogits(root, logits, labels);
    RequireGradient(
        root, {logits, labels},
        {Rand(DT_DOUBLE, {3, 4}, 1, -2, 2), Distribution(DT_DOUBLE, 1, 4, 2)},
        {xent.loss});
  }
  SECTION("logits broadcast against labels") {
    Scope root = Scope::NewRootScope();
    const Output logits = Ph(root, "logits", DT_DOUBLE);
    const Output labels = Ph(root, "labels", DT_DOUBLE);
    const auto xent = ops::SoftmaxCrossEntropyWithLogits(root, logits, labels);
    RequireGradient(
        root, {logits, labels},
        {Rand(DT_DOUBLE, {1, 4}, 1, -2, 2), Distribution(DT_DOUBLE, 3, 4, 2)},
        {xent.loss, xent.backprop});
  }
  SECTION("float32") {
    Scope root = Scope::NewRootScope();
    const Output logits = Ph(root, "logits", DT_FLOAT);
    const Output labels = ops::Const(root, Distribution(DT_FLOAT, 3, 4, 2));
    const auto xent = ops::SoftmaxCrossEntropyWithLogits(root, logits, labels);
    RequireGradient(root, {logits}, {Rand(DT_FLOAT, {3, 4}, 1, -2, 2)},
                    {xent.loss});
  }
  SECTION("through the backprop output too (second order)") {
    Scope root = Scope::NewRootScope();
    const Output logits = Ph(root, "logits", DT_DOUBLE);
    const Output labels = ops::Const(root, Distribution(DT_DOUBLE, 3, 4, 2));
    const auto xent = ops::SoftmaxCrossEntropyWithLogits(root, logits, labels);
    RequireGradient(root, {logits}, {Rand(DT_DOUBLE, {3, 4}, 1, -2, 2)},
                    {xent.loss, xent.backprop});
  }
  SECTION("only the backprop output") {
    Scope root = Scope::NewRootScope();
    const Output logits = Ph(root, "logits", DT_DOUBLE);
    const Output labels = ops::Const(root, Distribution(DT_DOUBLE, 3, 4, 2));
    const auto xent = ops::SoftmaxCrossEntropyWithLogits(root, logits, labels);
    RequireGradient(root, {logits}, {Rand(DT_DOUBLE, {3, 4}, 1, -2, 2)},
                    {xent.backprop});
  }
}

TEST_CASE("gradient: SparseSoftmaxCrossEntropyWithLogits") {
  // dfx's kernel serves float32 with int32 labels.
  Scope root = Scope::NewRootScope();
  const Output logits = Ph(root, "logits", DT_FLOAT);
  const Output labels = ops::Const(root, {2, 0, 3});
  const auto xent =
      ops::SparseSoftmaxCrossEntropyWithLogits(root, logits, labels);
  SECTION("loss") {
    RequireGradient(root, {logits}, {Rand(DT_FLOAT, {3, 4}, 1, -2, 2)},
                    {xent.loss});
  }
  SECTION("loss and backprop") {
    RequireGradient(root, {logits}, {Rand(DT_FLOAT, {3, 4}, 1, -2, 2)},
                    {xent.loss, xent.backprop});
  }
}

TEST_CASE("gradient: L2Loss") {
  Scope root = Scope::NewRootScope();
  const Output x = Ph(root, "x", DT_DOUBLE);
  RequireGradient(root, {x}, {Rand(DT_DOUBLE, {2, 3}, 1)},
                  {ops::L2Loss(root, x)});
}

TEST_CASE("gradient: BiasAdd") {
  for (const char* format : {"NHWC", "NCHW"}) {
    SECTION(format) {
      Scope root = Scope::NewRootScope();
      const Output x = Ph(root, "x", DT_DOUBLE);
      const Output b = Ph(root, "b", DT_DOUBLE);
      const TensorShape shape = std::string(format) == "NHWC"
                                    ? TensorShape{2, 2, 2, 3}
                                    : TensorShape{2, 3, 2, 2};
      RequireGradient(root, {x, b},
                      {Rand(DT_DOUBLE, shape, 1), Rand(DT_DOUBLE, {3}, 2)},
                      {ops::BiasAdd(root, x, b, format)});
    }
  }
  SECTION("matrix, float32") {
    Scope root = Scope::NewRootScope();
    const Output x = Ph(root, "x", DT_FLOAT);
    const Output b = Ph(root, "b", DT_FLOAT);
    RequireGradient(root, {x, b},
                    {Rand(DT_FLOAT, {3, 4}, 1), Rand(DT_FLOAT, {4}, 2)},
                    {ops::BiasAdd(root, x, b)});
  }
}

TEST_CASE("gradient: Conv2D") {
  struct Case {
    const char* name;
    TensorShape input, filter;
    ops::Conv2DAttrs attrs;
  };
  const Case cases[] = {
      {"VALID", {1, 4, 4, 2}, {2, 2, 2, 3}, {.padding = "VALID"}},
      {"SAME stride 2",
       {2, 5, 5, 1},
       {3, 3, 1, 2},
       {.strides = {1, 2, 2, 1}, .padding = "SAME"}},
      {"EXPLICIT",
       {1, 3, 3, 2},
       {2, 2, 2, 1},
       {.padding = "EXPLICIT", .explicit_paddings = {0, 0, 1, 0, 0, 1, 0, 0}}},
  };
  for (const Case& c : cases) {
    SECTION(c.name) {
      Scope root = Scope::NewRootScope();
      const Output input = Ph(root, "input", DT_DOUBLE);
      const Output filter = Ph(root, "filter", DT_DOUBLE);
      RequireGradient(
          root, {input, filter},
          {Rand(DT_DOUBLE, c.input, 1), Rand(DT_DOUBLE, c.filter, 2)},
          {ops::Conv2D(root, input, filter, c.attrs)});
    }
  }
  SECTION(
      "dilated: the CPU input gradient fails at run time, as TensorFlow's") {
    Scope root = Scope::NewRootScope();
    const Output input = Ph(root, "input", DT_DOUBLE);
    const Output filter = ops::Const(root, Rand(DT_DOUBLE, {2, 2, 1, 2}, 2));
    const Output y = ops::Conv2D(
        root, input, filter, {.padding = "VALID", .dilations = {1, 2, 2, 1}});
    auto error = testing::ComputeGradientError(
        root, {input}, {Rand(DT_DOUBLE, {1, 5, 5, 1}, 1)}, {y});
    CHECK_THAT(error.status(),
               testing::StatusIs(absl::StatusCode::kInvalidArgument,
                                 "do not yet support dilation rates"));
  }
  SECTION("float32") {
    Scope root = Scope::NewRootScope();
    const Output input = Ph(root, "input", DT_FLOAT);
    const Output filter = Ph(root, "filter", DT_FLOAT);
    RequireGradient(
        root, {input, filter},
        {Rand(DT_FLOAT, {1, 4, 4, 1}, 1), Rand(DT_FLOAT, {2, 2, 1, 2}, 2)},
        {ops::Conv2D(root, input, filter, {.padding = "SAME"})});
  }
}

// Distinct values, well apart, so that every window has a clear maximum.
Tensor Distinct(DataType dtype, const TensorShape& shape) {
  std::vector<double> v;
  const int64_t n = shape.num_elements();
  for (int64_t i = 0; i < n; ++i) v.push_back(((i * 7) % n) * 0.1 - 0.3);
  return testing::MakeTensor(dtype, shape, v);
}

TEST_CASE("gradient: MaxPool and AvgPool") {
  struct Case {
    const char* name;
    TensorShape shape;
    ops::PoolAttrs attrs;
  };
  const Case cases[] = {
      {"2x2 stride 2 VALID",
       {1, 4, 4, 2},
       {.ksize = {1, 2, 2, 1}, .strides = {1, 2, 2, 1}, .padding = "VALID"}},
      {"3x3 stride 1 SAME",
       {2, 3, 3, 1},
       {.ksize = {1, 3, 3, 1}, .strides = {1, 1, 1, 1}, .padding = "SAME"}},
      {"2x2 stride 2 SAME odd",
       {1, 5, 5, 1},
       {.ksize = {1, 2, 2, 1}, .strides = {1, 2, 2, 1}, .padding = "SAME"}},
  };
  for (const Case& c : cases) {
    SECTION(std::string("MaxPool ") + c.name) {
      Scope root = Scope::NewRootScope();
      const Output x = Ph(root, "x", DT_DOUBLE);
      RequireGradient(root, {x}, {Distinct(DT_DOUBLE, c.shape)},
                      {ops::MaxPool(root, x, c.attrs)});
    }
    SECTION(std::string("AvgPool ") + c.name) {
      Scope root = Scope::NewRootScope();
      const Output x = Ph(root, "x", DT_DOUBLE);
      RequireGradient(root, {x}, {Rand(DT_DOUBLE, c.shape, 1)},
                      {ops::AvgPool(root, x, c.attrs)});
    }
  }
  SECTION("MaxPool float32") {
    Scope root = Scope::NewRootScope();
    const Output x = Ph(root, "x", DT_FLOAT);
    RequireGradient(
        root, {x}, {Distinct(DT_FLOAT, {1, 4, 4, 1})},
        {ops::MaxPool(root, x,
                      {.ksize = {1, 2, 2, 1}, .strides = {1, 2, 2, 1}})});
  }
}

TEST_CASE("gradient: FusedBatchNormV3") {
  // dfx's FusedBatchNormGradV3 kernel serves float32: float32 thresholds.
  for (bool training : {true, false}) {
    for (const char* format : {"NHWC", "NCHW"}) {
      SECTION(std::string(training ? "training " : "inference ") + format) {
        Scope root = Scope::NewRootScope();
        const Output x = Ph(root, "x", DT_FLOAT);
        const Output scale = Ph(root, "scale", DT_FLOAT);
        const Output offset = Ph(root, "offset", DT_FLOAT);
        const bool nhwc = std::string(format) == "NHWC";
        const TensorShape shape =
            nhwc ? TensorShape{2, 2, 2, 3} : TensorShape{2, 3, 2, 2};
        const Output mean = ops::Const(root, {0.1f, -0.2f, 0.3f});
        const Output variance = ops::Const(root, {1.5f, 0.5f, 2.0f});
        const auto bn = ops::FusedBatchNormV3(
            root, x, scale, offset,
            training ? ops::Const(root, std::vector<float>{}) : mean,
            training ? ops::Const(root, std::vector<float>{}) : variance,
            {.epsilon = 0.001f,
             .data_format = format,
             .is_training = training});
        RequireGradient(
            root, {x, scale, offset},
            {Rand(DT_FLOAT, shape, 1, -2, 2), Rand(DT_FLOAT, {3}, 2, 0.5, 1.5),
             Rand(DT_FLOAT, {3}, 3)},
            {bn.y}, 1e-3);
      }
    }
  }
}

}  // namespace
}  // namespace dfx
