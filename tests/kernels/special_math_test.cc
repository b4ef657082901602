// Lgamma, Digamma, Erfinv, Ndtri, Igamma, Igammac, Zeta, Polygamma and
// Betainc: TensorFlow 2.21's float64 answers (poles, NaN outside the domain,
// broadcasting), the half kernels, Betainc's shape errors and the OpDefs.
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "catch2/catch.hpp"
#include "google/protobuf/text_format.h"
#include "google/protobuf/util/message_differencer.h"
#include "graph/op_registry.h"
#include "tests/kernels/math_test_util.h"

namespace dfx {
namespace {

using testing::MakeVector;
using testing::RunError;
using testing::RunOne;
using testing::StatusIs;
using testing::TestNodeBuilder;
using testing::TypedNode;
using testing::Values;

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kNan = std::numeric_limits<double>::quiet_NaN();

// Equal within 1e-14 relative; inf and NaN must match exactly.
void CheckValues(const std::vector<double>& got,
                 const std::vector<double>& want) {
  REQUIRE(got.size() == want.size());
  for (size_t i = 0; i < got.size(); ++i) {
    INFO("element " << i << ": " << got[i] << " vs " << want[i]);
    if (std::isnan(want[i])) {
      CHECK(std::isnan(got[i]));
    } else if (std::isinf(want[i])) {
      CHECK(got[i] == want[i]);
    } else {
      CHECK(got[i] == Approx(want[i]).epsilon(1e-14).margin(1e-15));
    }
  }
}

std::vector<double> Unary(const char* op, std::vector<double> x) {
  Tensor in = Tensor::FromVector<double>(x);
  return Values<double>(RunOne(TypedNode("u", op, DT_DOUBLE, 1).Build(), {in}));
}

std::vector<double> Binary(const char* op, std::vector<double> a,
                           std::vector<double> b) {
  return Values<double>(
      RunOne(TypedNode("b", op, DT_DOUBLE, 2).Build(),
             {Tensor::FromVector<double>(a), Tensor::FromVector<double>(b)}));
}

TEST_CASE("Unary special functions equal TensorFlow", "[special_math]") {
  CheckValues(
      Unary("Lgamma", {0.5, 3.0, -2.5, 0.0}),
      {0.5723649429247001, 0.6931471805599453, -0.05624371649767407, kInf});
  CheckValues(Unary("Digamma", {1.0, 0.5}),
              {-0.5772156649015323, -1.9635100260214227});
  CheckValues(Unary("Erfinv", {0.0, 0.5, 1.0, -1.0, 2.0}),
              {0.0, 0.4769362762044699, kInf, -kInf, kNan});
  CheckValues(Unary("Ndtri", {0.5, 0.975, 0.0, 1.0, -0.5, 1.5}),
              {0.0, 1.959963984540054, -kInf, kInf, kNan, kNan});
  Tensor h = RunOne(TypedNode("u", "Lgamma", DT_HALF, 1).Build(),
                    {MakeVector<Eigen::half>({Eigen::half(3.0f)})});
  CHECK(static_cast<float>(Values<Eigen::half>(h)[0]) ==
        Approx(0.693147f).epsilon(1e-3));
}

TEST_CASE("Binary special functions broadcast", "[special_math]") {
  CheckValues(Binary("Igamma", {1.0, 2.0}, {1.0}),
              {0.6321205588285578, 0.2642411176571153});
  CheckValues(Binary("Igammac", {1.0, 2.0}, {1.0}),
              {0.36787944117144233, 0.7357588823428847});
  CheckValues(Binary("Zeta", {2.0, 0.5}, {1.0, 1.0}),
              {1.6449340668482266, kNan});
  CheckValues(Binary("Polygamma", {0.0, 1.0, 1.5}, {1.0, 1.0, 1.0}),
              {-0.5772156649015323, 1.6449340668482266, kNan});
}

NodeDef BetaincNode() {
  return TypedNode("bi", "Betainc", DT_DOUBLE, 3).Build();
}

TEST_CASE("Betainc broadcasts scalars only", "[special_math]") {
  Tensor out = RunOne(BetaincNode(), {MakeVector<double>({1.0, 2.0}),
                                      Tensor::Scalar<double>(2.0),
                                      Tensor::Scalar<double>(0.5)});
  CheckValues(Values<double>(out), {0.75, 0.5});
  CHECK_THAT(RunError(BetaincNode(), {MakeVector<double>({1.0, 2.0}),
                                      MakeVector<double>({1.0, 2.0, 3.0}),
                                      Tensor::Scalar<double>(0.5)}),
             StatusIs(absl::StatusCode::kInvalidArgument,
                      "Shapes of a and b are inconsistent: [2] vs. [3]"));
  CHECK_THAT(RunError(BetaincNode(), {Tensor::Scalar<double>(1.0),
                                      MakeVector<double>({1.0, 2.0}),
                                      MakeVector<double>({0.5})}),
             StatusIs(absl::StatusCode::kInvalidArgument,
                      "Shapes of b and x are inconsistent"));
}

// text_format.MessageToString(op_def_registry.get(name), as_one_line=True)
// of TensorFlow 2.21, double quotes swapped for single ones.
const char* const kTfOpDefs[] = {
    "name: 'Lgamma' input_arg { name: 'x' type_attr: 'T' } output_arg {"
    " name: 'y' type_attr: 'T' } attr { name: 'T' type: 'type' "
    "allowed_values { list { type: DT_BFLOAT16 type: DT_HALF type: "
    "DT_FLOAT type: DT_DOUBLE } } }",
    "name: 'Digamma' input_arg { name: 'x' type_attr: 'T' } output_arg "
    "{ name: 'y' type_attr: 'T' } attr { name: 'T' type: 'type' "
    "allowed_values { list { type: DT_BFLOAT16 type: DT_HALF type: "
    "DT_FLOAT type: DT_DOUBLE } } }",
    "name: 'Igamma' input_arg { name: 'a' type_attr: 'T' } input_arg { "
    "name: 'x' type_attr: 'T' } output_arg { name: 'z' type_attr: 'T' }"
    " attr { name: 'T' type: 'type' allowed_values { list { type: "
    "DT_BFLOAT16 type: DT_HALF type: DT_FLOAT type: DT_DOUBLE } } }",
    "name: 'Igammac' input_arg { name: 'a' type_attr: 'T' } input_arg {"
    " name: 'x' type_attr: 'T' } output_arg { name: 'z' type_attr: 'T' "
    "} attr { name: 'T' type: 'type' allowed_values { list { type: "
    "DT_BFLOAT16 type: DT_HALF type: DT_FLOAT type: DT_DOUBLE } } }",
    "name: 'Betainc' input_arg { name: 'a' type_attr: 'T' } input_arg {"
    " name: 'b' type_attr: 'T' } input_arg { name: 'x' type_attr: 'T' }"
    " output_arg { name: 'z' type_attr: 'T' } attr { name: 'T' type: "
    "'type' allowed_values { list { type: DT_FLOAT type: DT_DOUBLE } } "
    "}",
    "name: 'Zeta' input_arg { name: 'x' type_attr: 'T' } input_arg { "
    "name: 'q' type_attr: 'T' } output_arg { name: 'z' type_attr: 'T' }"
    " attr { name: 'T' type: 'type' allowed_values { list { type: "
    "DT_FLOAT type: DT_DOUBLE } } }",
    "name: 'Polygamma' input_arg { name: 'a' type_attr: 'T' } input_arg"
    " { name: 'x' type_attr: 'T' } output_arg { name: 'z' type_attr: "
    "'T' } attr { name: 'T' type: 'type' allowed_values { list { type: "
    "DT_FLOAT type: DT_DOUBLE } } }",
    "name: 'Erfinv' input_arg { name: 'x' type_attr: 'T' } output_arg {"
    " name: 'y' type_attr: 'T' } attr { name: 'T' type: 'type' "
    "allowed_values { list { type: DT_BFLOAT16 type: DT_HALF type: "
    "DT_FLOAT type: DT_DOUBLE } } }",
    "name: 'Ndtri' input_arg { name: 'x' type_attr: 'T' } output_arg { "
    "name: 'y' type_attr: 'T' } attr { name: 'T' type: 'type' "
    "allowed_values { list { type: DT_BFLOAT16 type: DT_HALF type: "
    "DT_FLOAT type: DT_DOUBLE } } }",
    "name: 'IgammaGradA' input_arg { name: 'a' type_attr: 'T' } "
    "input_arg { name: 'x' type_attr: 'T' } output_arg { name: 'z' "
    "type_attr: 'T' } attr { name: 'T' type: 'type' allowed_values { "
    "list { type: DT_FLOAT type: DT_DOUBLE } } }",
    "name: 'RandomGammaGrad' input_arg { name: 'alpha' type_attr: 'T' } "
    "input_arg { name: 'sample' type_attr: 'T' } output_arg { name: "
    "'output' type_attr: 'T' } attr { name: 'T' type: 'type' "
    "allowed_values { list { type: DT_FLOAT type: DT_DOUBLE } } }",
};

TEST_CASE("Special functions have TensorFlow 2.21's signatures",
          "[special_math]") {
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
