// FakeQuantWithMinMaxArgs/Vars/VarsPerChannel with gradients and
// QuantizeAndDequantizeV2/V3/V4 with V4Grad: TensorFlow 2.21's values (the
// nudged ranges, a 16-bit zero point, both round modes at exact ties, the
// per-axis ranges), its errors for bad attrs and inputs, and its OpDefs.
#include <cstdint>
#include <string>
#include <vector>

#include "catch2/catch.hpp"
#include "google/protobuf/text_format.h"
#include "google/protobuf/util/message_differencer.h"
#include "graph/op_registry.h"
#include "tests/kernels/math_test_util.h"

namespace dfx {
namespace {

using absl::StatusCode;
using testing::MakeTensor;
using testing::MakeVector;
using testing::RunError;
using testing::RunKernel;
using testing::RunOne;
using testing::StatusIs;
using testing::TestNodeBuilder;
using testing::TypedNode;
using testing::Values;

Tensor Scalar(float v) { return MakeTensor<float>({v}, TensorShape({})); }

// Fake quantization is exact: outputs must equal TensorFlow's bitwise.
TEST_CASE("FakeQuantWithMinMaxArgs nudges the range as TensorFlow does",
          "[quantization]") {
  const Tensor x = MakeVector<float>({-1.0f, 0.0f, 0.5f, 0.001f});
  // 8 bits, min -100: the zero point 252.48 rounds to 252, the range nudges
  // to [-99.81, 1.19] in steps of 0.396, and 0.001 rounds to 0.
  NodeDef n8 = TestNodeBuilder("fq", "FakeQuantWithMinMaxArgs", 1)
                   .Attr("min", -100.0f)
                   .Attr("max", 1.0f)
                   .Build();
  CHECK(Values<float>(RunOne(n8, {x})) ==
        std::vector<float>({-1.1882353f, 0.0f, 0.39607844f, 0.0f}));
  // 16 bits: a zero point of 64886, past what 8 bits hold.
  NodeDef n16 = TestNodeBuilder("fq", "FakeQuantWithMinMaxArgs", 1)
                    .Attr("min", -100.0f)
                    .Attr("max", 1.0f)
                    .Attr("num_bits", 16)
                    .Build();
  CHECK(Values<float>(RunOne(n16, {x})) ==
        std::vector<float>({-1.0002136f, 0.0f, 0.49933624f, 0.0015411612f}));
}

TEST_CASE("FakeQuant gradients pass inside the nudged range only",
          "[quantization]") {
  const Tensor g = MakeVector<float>({1.0f, 2.0f, 3.0f, 4.0f, 5.0f});
  const Tensor x = MakeVector<float>({-7.0f, -6.0f, 0.0f, 6.0f, 7.0f});
  NodeDef args = TestNodeBuilder("g", "FakeQuantWithMinMaxArgsGradient", 2)
                     .Build();
  // The default range [-6, 6] nudges to [-6.0235295, 5.9764705].
  CHECK(Values<float>(RunOne(args, {g, x})) ==
        std::vector<float>({0.0f, 2.0f, 3.0f, 0.0f, 0.0f}));
  NodeDef vars = TestNodeBuilder("g", "FakeQuantWithMinMaxVarsGradient", 4)
                     .Build();
  auto out = RunKernel(vars, {g, x, Scalar(-6.0f), Scalar(6.0f)});
  REQUIRE_OK(out);
  CHECK(Values<float>((*out)[0]) ==
        std::vector<float>({0.0f, 2.0f, 3.0f, 0.0f, 0.0f}));
  CHECK((*out)[1].dims() == 0);
  CHECK(Values<float>((*out)[1]) == std::vector<float>({1.0f}));
  CHECK(Values<float>((*out)[2]) == std::vector<float>({9.0f}));
}

TEST_CASE("FakeQuantWithMinMaxVarsPerChannel quantizes the last dim",
          "[quantization]") {
  const Tensor x = MakeTensor<float>({-1.0f, 0.3f, 0.7f, 2.0f},
                                     TensorShape({2, 2}));
  const Tensor lo = MakeVector<float>({-1.0f, 0.0f});
  const Tensor hi = MakeVector<float>({1.0f, 0.5f});
  NodeDef n = TestNodeBuilder("fq", "FakeQuantWithMinMaxVarsPerChannel", 3)
                  .Attr("num_bits", 2)
                  .Build();
  // Channel 0: [-1, 1] has steps of 2/3 and nudges to [-1.3333, 0.6667];
  // channel 1: [0, 0.5] in steps of 1/6.
  Tensor out = RunOne(n, {x, lo, hi});
  CHECK(out.shape() == TensorShape({2, 2}));
  const std::vector<float> v = Values<float>(out);
  CHECK(v[0] == Approx(-2.0f / 3.0f).epsilon(1e-6));
  CHECK(v[1] == Approx(2.0f / 6.0f).epsilon(1e-6));
  CHECK(v[2] == Approx(2.0f / 3.0f).epsilon(1e-6));
  CHECK(v[3] == Approx(0.5f).epsilon(1e-6));
}

TEST_CASE("FakeQuant ops refuse bad attrs and inputs", "[quantization]") {
  const Tensor x = MakeVector<float>({1.0f, 2.0f, 3.0f});
  CHECK_THAT(RunError(TestNodeBuilder("fq", "FakeQuantWithMinMaxArgs", 1)
                          .Attr("num_bits", 17)
                          .Build(),
                      {x}),
             StatusIs(StatusCode::kInvalidArgument,
                      "num_bits must be between 2 and 16, inclusive"));
  CHECK_THAT(RunError(TestNodeBuilder("fq", "FakeQuantWithMinMaxVars", 3)
                          .Attr("num_bits", 1)
                          .Build(),
                      {x, Scalar(-1), Scalar(1)}),
             StatusIs(StatusCode::kInvalidArgument, "num_bits must be"));
  CHECK_THAT(RunError(TestNodeBuilder("fq", "FakeQuantWithMinMaxArgs", 1)
                          .Attr("min", 1.0f)
                          .Attr("max", -2.0f)
                          .Build(),
                      {x}),
             StatusIs(StatusCode::kInvalidArgument,
                      "min has to be smaller than max, was: 1 >= -2"));
  CHECK_THAT(
      RunError(TestNodeBuilder("fq", "FakeQuantWithMinMaxVars", 3).Build(),
               {x, MakeVector<float>({-1.0f, 0.0f}), Scalar(1)}),
      StatusIs(StatusCode::kInvalidArgument,
               "`min` must be rank 0 but is rank 1"));
  CHECK_THAT(
      RunError(TestNodeBuilder("fq", "FakeQuantWithMinMaxVarsPerChannel", 3)
                   .Build(),
               {x, Scalar(-1), Scalar(1)}),
      StatusIs(StatusCode::kInvalidArgument,
               "`min` must be rank 1 but is rank 0"));
  CHECK_THAT(
      RunError(TestNodeBuilder("fq", "FakeQuantWithMinMaxVarsPerChannel", 3)
                   .Build(),
               {x, MakeVector<float>({-1.0f, -1.0f, -1.0f}),
                MakeVector<float>({1.0f, 1.0f})}),
      StatusIs(StatusCode::kInvalidArgument,
               "max has incorrect size, expected 3 was 2"));
  CHECK_THAT(
      RunError(TestNodeBuilder("fq", "FakeQuantWithMinMaxVarsPerChannel", 3)
                   .Build(),
               {Scalar(1), MakeVector<float>({-1.0f}),
                MakeVector<float>({1.0f})}),
      StatusIs(StatusCode::kInvalidArgument, "at least rank 1"));
  CHECK_THAT(
      RunError(TestNodeBuilder("g", "FakeQuantWithMinMaxArgsGradient", 2)
                   .Build(),
               {x, MakeVector<float>({1.0f})}),
      StatusIs(StatusCode::kInvalidArgument,
               "gradient and input must be the same size"));
}

NodeDef Qdq(const char* op, bool range_given, const char* round_mode = "",
            int axis = -1) {
  int inputs = std::string(op) == "QuantizeAndDequantizeV3" ? 4 : 3;
  TestNodeBuilder b = TypedNode("q", op, DT_FLOAT, inputs);
  b.Attr("range_given", range_given).Attr("axis", axis);
  if (round_mode[0] != '\0') b.Attr("round_mode", round_mode);
  return b.Build();
}

TEST_CASE("QuantizeAndDequantize rounds ties as TensorFlow does",
          "[quantization]") {
  // Range [-128, 127] in 8 signed bits: scale 1, so the op rounds x.
  const Tensor x = MakeVector<float>({0.49999997f, 1.5f, 2.5f, -0.5f, -1.5f,
                                      -0.49999997f, 0.5000001f, 3.4999998f});
  const std::vector<Tensor> in = {x, Scalar(-128), Scalar(127)};
  CHECK(Values<float>(RunOne(Qdq("QuantizeAndDequantizeV2", true), in)) ==
        std::vector<float>({0, 2, 2, -0.0f, -2, -0.0f, 1, 3}));
  // HALF_UP is floor(x + 0.5) in float: 0.49999997 + 0.5 rounds to 1.
  CHECK(Values<float>(RunOne(
            Qdq("QuantizeAndDequantizeV4", true, "HALF_UP"), in)) ==
        std::vector<float>({1, 2, 3, 0, -1, 0, 1, 3}));
  std::vector<Tensor> in3 = in;
  in3.push_back(MakeTensor<int32_t>({8}, TensorShape({})));
  CHECK(Values<float>(RunOne(Qdq("QuantizeAndDequantizeV3", true), in3)) ==
        std::vector<float>({0, 2, 2, -0.0f, -2, -0.0f, 1, 3}));
}

TEST_CASE("QuantizeAndDequantize finds a range per axis", "[quantization]") {
  std::vector<float> xs;
  for (int i = 0; i < 24; ++i) xs.push_back(static_cast<float>(i) / 5 - 2);
  const Tensor x = Tensor::FromVector<float>(xs, TensorShape({2, 3, 4}));
  Tensor out = RunOne(Qdq("QuantizeAndDequantizeV2", false, "", 1),
                      {x, Scalar(-1), Scalar(1)});
  const std::vector<float> v = Values<float>(out);
  // TensorFlow 2.21's first six values.
  const std::vector<float> want = {-2.0f,        -1.796875f,  -1.59375f,
                                   -1.40625f,    -1.2047244f, -1.0062993f};
  CHECK(std::vector<float>(v.begin(), v.begin() + 6) == want);
}

TEST_CASE("QuantizeAndDequantize refuses bad ranges and attrs",
          "[quantization]") {
  const Tensor x = MakeTensor<float>({1, 2, 3, 4, 5, 6}, TensorShape({2, 3}));
  const Tensor vec3 = MakeVector<float>({-1.0f, -1.0f, -1.0f});
  CHECK_THAT(RunError(Qdq("QuantizeAndDequantizeV2", true),
                      {x, Scalar(1), Scalar(-1)}),
             StatusIs(StatusCode::kInvalidArgument,
                      "Invalid range: input_min 1 > input_max -1"));
  // TensorFlow 2.21 takes no given range with an axis in V2/V4.
  CHECK_THAT(RunError(Qdq("QuantizeAndDequantizeV4", true, "", 1),
                      {x, vec3, vec3}),
             StatusIs(StatusCode::kInvalidArgument,
                      "input_min must be a scalar."));
  CHECK_THAT(RunError(Qdq("QuantizeAndDequantizeV4", true, "", 1),
                      {x, Scalar(-1), Scalar(1)}),
             StatusIs(StatusCode::kInvalidArgument,
                      "Shape must be rank 1 for input_min_tensor"));
  CHECK_THAT(RunError(Qdq("QuantizeAndDequantizeV2", false, "", 2),
                      {x, Scalar(-1), Scalar(1)}),
             StatusIs(StatusCode::kInvalidArgument,
                      "Shape must be at least rank 3 but is rank 2"));
  CHECK_THAT(RunError(Qdq("QuantizeAndDequantizeV2", false, "", -2),
                      {x, Scalar(-1), Scalar(1)}),
             StatusIs(StatusCode::kInvalidArgument,
                      "Axis must be at least -1. Found -2"));
  CHECK_THAT(RunError(TypedNode("q", "QuantizeAndDequantizeV2", DT_FLOAT, 3)
                          .Attr("num_bits", 62)
                          .Build(),
                      {x, Scalar(-1), Scalar(1)}),
             StatusIs(StatusCode::kInvalidArgument,
                      "num_bits is out of range: 62"));
  // V3: a per-axis range of the wrong size, a non-scalar num_bits, an
  // out-of-range num_bits, a scalar input.
  CHECK_THAT(RunError(Qdq("QuantizeAndDequantizeV3", true, "", 1),
                      {x, MakeVector<float>({-1.0f, -1.0f}), vec3,
                       MakeTensor<int32_t>({8}, TensorShape({}))}),
             StatusIs(StatusCode::kInvalidArgument,
                      "input_min_tensor has incorrect size, was 2 expected "
                      "3 to match dim 1"));
  CHECK_THAT(RunError(Qdq("QuantizeAndDequantizeV3", true),
                      {x, Scalar(-1), Scalar(1), MakeVector<int32_t>({8})}),
             StatusIs(StatusCode::kInvalidArgument,
                      "The `num_bits` tensor should be a scalar"));
  CHECK_THAT(RunError(Qdq("QuantizeAndDequantizeV3", true),
                      {x, Scalar(-1), Scalar(1),
                       MakeTensor<int32_t>({0}, TensorShape({}))}),
             StatusIs(StatusCode::kInvalidArgument,
                      "num_bits is out of range: 0"));
  CHECK_THAT(RunError(Qdq("QuantizeAndDequantizeV3", true),
                      {Scalar(0.5f), Scalar(-1), Scalar(1),
                       MakeTensor<int32_t>({8}, TensorShape({}))}),
             StatusIs(StatusCode::kInvalidArgument,
                      "Axis requested is larger than input dimensions"));
  CHECK_THAT(RunError(Qdq("QuantizeAndDequantizeV3", true),
                      {x, vec3, Scalar(1),
                       MakeTensor<int32_t>({8}, TensorShape({}))}),
             StatusIs(StatusCode::kInvalidArgument, "must be scalars"));
}

TEST_CASE("QuantizeAndDequantizeV4Grad passes inside each channel's range",
          "[quantization]") {
  const Tensor g = MakeTensor<double>({1, 2, 3, 4, 5, 6}, TensorShape({3, 2}));
  const Tensor x =
      MakeTensor<double>({-2, 0, 0.5, 1, 3, -1}, TensorShape({3, 2}));
  NodeDef n = TypedNode("q", "QuantizeAndDequantizeV4Grad", DT_DOUBLE, 4)
                  .Attr("axis", 0)
                  .Build();
  auto out = RunKernel(n, {g, x, MakeVector<double>({-1, 0, -1}),
                           MakeVector<double>({1, 0.5, 2})});
  REQUIRE_OK(out);
  CHECK(Values<double>((*out)[0]) == std::vector<double>({0, 2, 3, 0, 0, 6}));
  CHECK(Values<double>((*out)[1]) == std::vector<double>({0, 0, 0}));
  CHECK(Values<double>((*out)[2]) == std::vector<double>({0, 0, 0}));
  NodeDef flat =
      TypedNode("q", "QuantizeAndDequantizeV4Grad", DT_DOUBLE, 4).Build();
  CHECK_THAT(RunError(flat, {g, x, MakeVector<double>({-1}),
                             MakeTensor<double>({1}, TensorShape({}))}),
             StatusIs(StatusCode::kInvalidArgument,
                      "input_min must be a scalar if axis is unspecified"));
  CHECK_THAT(RunError(n, {g, x, MakeVector<double>({-1, 0}),
                          MakeVector<double>({1, 0.5, 2})}),
             StatusIs(StatusCode::kInvalidArgument,
                      "min has incorrect size, expected 3 was 2"));
  CHECK_THAT(RunError(TypedNode("q", "QuantizeAndDequantizeV4Grad", DT_DOUBLE,
                                4)
                          .Attr("axis", 2)
                          .Build(),
                      {g, x, MakeVector<double>({-1}),
                       MakeVector<double>({1})}),
             StatusIs(StatusCode::kInvalidArgument,
                      "Axis should be -1 or 0 or a positive value less than"));
}

// TensorFlow 2.21's OpDefs, printed from its op registry.
const char* const kTfOpDefs[] = {
    "name: 'FakeQuantWithMinMaxArgs' input_arg { name: 'inputs' type: "
    "DT_FLOAT } output_arg { name: 'outputs' type: DT_FLOAT } attr { name: "
    "'min' type: 'float' default_value { f: -6.0 } } attr { name: 'max' "
    "type: 'float' default_value { f: 6.0 } } attr { name: 'num_bits' type:"
    " 'int' default_value { i: 8 } } attr { name: 'narrow_range' type: "
    "'bool' default_value { b: false } }",
    "name: 'FakeQuantWithMinMaxArgsGradient' input_arg { name: 'gradients' "
    "type: DT_FLOAT } input_arg { name: 'inputs' type: DT_FLOAT } "
    "output_arg { name: 'backprops' type: DT_FLOAT } attr { name: 'min' "
    "type: 'float' default_value { f: -6.0 } } attr { name: 'max' type: "
    "'float' default_value { f: 6.0 } } attr { name: 'num_bits' type: 'int'"
    " default_value { i: 8 } } attr { name: 'narrow_range' type: 'bool' "
    "default_value { b: false } }",
    "name: 'FakeQuantWithMinMaxVars' input_arg { name: 'inputs' type: "
    "DT_FLOAT } input_arg { name: 'min' type: DT_FLOAT } input_arg { name: "
    "'max' type: DT_FLOAT } output_arg { name: 'outputs' type: DT_FLOAT } "
    "attr { name: 'num_bits' type: 'int' default_value { i: 8 } } attr { "
    "name: 'narrow_range' type: 'bool' default_value { b: false } }",
    "name: 'FakeQuantWithMinMaxVarsGradient' input_arg { name: 'gradients' "
    "type: DT_FLOAT } input_arg { name: 'inputs' type: DT_FLOAT } input_arg"
    " { name: 'min' type: DT_FLOAT } input_arg { name: 'max' type: DT_FLOAT"
    " } output_arg { name: 'backprops_wrt_input' type: DT_FLOAT } "
    "output_arg { name: 'backprop_wrt_min' type: DT_FLOAT } output_arg { "
    "name: 'backprop_wrt_max' type: DT_FLOAT } attr { name: 'num_bits' "
    "type: 'int' default_value { i: 8 } } attr { name: 'narrow_range' type:"
    " 'bool' default_value { b: false } }",
    "name: 'FakeQuantWithMinMaxVarsPerChannel' input_arg { name: 'inputs' "
    "type: DT_FLOAT } input_arg { name: 'min' type: DT_FLOAT } input_arg { "
    "name: 'max' type: DT_FLOAT } output_arg { name: 'outputs' type: "
    "DT_FLOAT } attr { name: 'num_bits' type: 'int' default_value { i: 8 } "
    "} attr { name: 'narrow_range' type: 'bool' default_value { b: false } "
    "}",
    "name: 'FakeQuantWithMinMaxVarsPerChannelGradient' input_arg { name: "
    "'gradients' type: DT_FLOAT } input_arg { name: 'inputs' type: DT_FLOAT"
    " } input_arg { name: 'min' type: DT_FLOAT } input_arg { name: 'max' "
    "type: DT_FLOAT } output_arg { name: 'backprops_wrt_input' type: "
    "DT_FLOAT } output_arg { name: 'backprop_wrt_min' type: DT_FLOAT } "
    "output_arg { name: 'backprop_wrt_max' type: DT_FLOAT } attr { name: "
    "'num_bits' type: 'int' default_value { i: 8 } } attr { name: "
    "'narrow_range' type: 'bool' default_value { b: false } }",
    "name: 'QuantizeAndDequantizeV2' input_arg { name: 'input' type_attr: "
    "'T' } input_arg { name: 'input_min' type_attr: 'T' } input_arg { name:"
    " 'input_max' type_attr: 'T' } output_arg { name: 'output' type_attr: "
    "'T' } attr { name: 'signed_input' type: 'bool' default_value { b: true"
    " } } attr { name: 'num_bits' type: 'int' default_value { i: 8 } } attr"
    " { name: 'range_given' type: 'bool' default_value { b: false } } attr "
    "{ name: 'T' type: 'type' allowed_values { list { type: DT_BFLOAT16 "
    "type: DT_HALF type: DT_FLOAT type: DT_DOUBLE } } } attr { name: "
    "'round_mode' type: 'string' default_value { s: 'HALF_TO_EVEN' } "
    "allowed_values { list { s: 'HALF_TO_EVEN' s: 'HALF_UP' } } } attr { "
    "name: 'narrow_range' type: 'bool' default_value { b: false } } attr { "
    "name: 'axis' type: 'int' default_value { i: -1 } }",
    "name: 'QuantizeAndDequantizeV3' input_arg { name: 'input' type_attr: "
    "'T' } input_arg { name: 'input_min' type_attr: 'T' } input_arg { name:"
    " 'input_max' type_attr: 'T' } input_arg { name: 'num_bits' type: "
    "DT_INT32 } output_arg { name: 'output' type_attr: 'T' } attr { name: "
    "'signed_input' type: 'bool' default_value { b: true } } attr { name: "
    "'range_given' type: 'bool' default_value { b: true } } attr { name: "
    "'T' type: 'type' allowed_values { list { type: DT_BFLOAT16 type: "
    "DT_HALF type: DT_FLOAT type: DT_DOUBLE } } } attr { name: "
    "'narrow_range' type: 'bool' default_value { b: false } } attr { name: "
    "'axis' type: 'int' default_value { i: -1 } }",
    "name: 'QuantizeAndDequantizeV4' input_arg { name: 'input' type_attr: "
    "'T' } input_arg { name: 'input_min' type_attr: 'T' } input_arg { name:"
    " 'input_max' type_attr: 'T' } output_arg { name: 'output' type_attr: "
    "'T' } attr { name: 'signed_input' type: 'bool' default_value { b: true"
    " } } attr { name: 'num_bits' type: 'int' default_value { i: 8 } } attr"
    " { name: 'range_given' type: 'bool' default_value { b: false } } attr "
    "{ name: 'T' type: 'type' allowed_values { list { type: DT_BFLOAT16 "
    "type: DT_HALF type: DT_FLOAT type: DT_DOUBLE } } } attr { name: "
    "'round_mode' type: 'string' default_value { s: 'HALF_TO_EVEN' } "
    "allowed_values { list { s: 'HALF_TO_EVEN' s: 'HALF_UP' } } } attr { "
    "name: 'narrow_range' type: 'bool' default_value { b: false } } attr { "
    "name: 'axis' type: 'int' default_value { i: -1 } }",
    "name: 'QuantizeAndDequantizeV4Grad' input_arg { name: 'gradients' "
    "type_attr: 'T' } input_arg { name: 'input' type_attr: 'T' } input_arg "
    "{ name: 'input_min' type_attr: 'T' } input_arg { name: 'input_max' "
    "type_attr: 'T' } output_arg { name: 'input_backprop' type_attr: 'T' } "
    "output_arg { name: 'input_min_backprop' type_attr: 'T' } output_arg { "
    "name: 'input_max_backprop' type_attr: 'T' } attr { name: 'T' type: "
    "'type' allowed_values { list { type: DT_BFLOAT16 type: DT_HALF type: "
    "DT_FLOAT type: DT_DOUBLE } } } attr { name: 'axis' type: 'int' "
    "default_value { i: -1 } }",
};

TEST_CASE("Quantization ops have TensorFlow 2.21's signatures",
          "[quantization]") {
  for (const char* text : kTfOpDefs) {
    OpDef want;
    REQUIRE(google::protobuf::TextFormat::ParseFromString(text, &want));
    INFO(want.name());
    const OpRegistrationData* op = OpRegistry::Global()->LookUp(want.name());
    REQUIRE(op != nullptr);
    std::string diff;
    google::protobuf::util::MessageDifferencer differ;
    differ.ReportDifferencesToString(&diff);
    differ.Compare(want, op->op_def);
    INFO(diff);
    CHECK(diff.empty());
  }
}

}  // namespace
}  // namespace dfx
