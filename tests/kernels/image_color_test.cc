// RGBToHSV, HSVToRGB, AdjustContrastv2, AdjustSaturation and AdjustHue on
// colors worked by hand, and TensorFlow's errors.
#include <cstdint>
#include <vector>

#include "catch2/catch.hpp"
#include "tests/kernels/math_test_util.h"

namespace dfx {
namespace {

using testing::MakeTensor;
using testing::MakeVector;
using testing::RunError;
using testing::RunOne;
using testing::StatusIs;
using testing::TestNodeBuilder;
using testing::TypedNode;
using testing::Values;

void ExpectNear(const Tensor& t, const std::vector<float>& want) {
  const std::vector<float> got = Values<float>(t);
  REQUIRE(got.size() == want.size());
  for (size_t i = 0; i < want.size(); ++i) {
    INFO("element " << i);
    CHECK(got[i] == Approx(want[i]).margin(1e-6));
  }
}

// Red, green, blue, gray, black, magenta.
const std::vector<float> kRgb = {1,    0,    0,    0, 1, 0, 0, 0, 1,
                                 0.5f, 0.5f, 0.5f, 0, 0, 0, 1, 0, 1};
const std::vector<float> kHsv = {0, 1, 1,    1.0f / 3, 1, 1, 2.0f / 3, 1, 1,
                                 0, 0, 0.5f, 0,        0, 0, 5.0f / 6, 1, 1};

TEST_CASE("RGBToHSV and HSVToRGB convert primaries, grays and magenta",
          "[image]") {
  const Tensor rgb = Tensor::FromVector<float>(kRgb, TensorShape({2, 3, 3}));
  const Tensor hsv =
      RunOne(TypedNode("h", "RGBToHSV", DT_FLOAT, 1).Build(), {rgb});
  REQUIRE(hsv.shape() == rgb.shape());
  ExpectNear(hsv, kHsv);
  const Tensor back =
      RunOne(TypedNode("r", "HSVToRGB", DT_FLOAT, 1).Build(),
             {Tensor::FromVector<float>(kHsv, TensorShape({6, 3}))});
  ExpectNear(back, kRgb);
  REQUIRE_THAT(RunError(TypedNode("h", "RGBToHSV", DT_FLOAT, 1).Build(),
                        {Tensor(DT_FLOAT, TensorShape({2, 4}))}),
               StatusIs(absl::StatusCode::kFailedPrecondition,
                        "input must have 3 channels but input only has 4 "
                        "channels."));
  REQUIRE_THAT(RunError(TypedNode("h", "HSVToRGB", DT_FLOAT, 1).Build(),
                        {Tensor::Scalar<float>(1)}),
               StatusIs(absl::StatusCode::kInvalidArgument,
                        "input must be at least 1D"));
}

NodeDef Adjust(const char* op) {
  return TypedNode("a", op, DT_FLOAT, 2).Build();
}

TEST_CASE("AdjustContrastv2 scales each channel about its image mean",
          "[image]") {
  // Two images of 1 x 3 pixels, 2 channels; means (2, 20) and (5, 50).
  const Tensor x = MakeTensor<float>({1, 10, 2, 20, 3, 30, 4, 40, 5, 50, 6, 60},
                                     TensorShape({2, 1, 3, 2}));
  ExpectNear(RunOne(Adjust("AdjustContrastv2"), {x, Tensor::Scalar<float>(2)}),
             {0, 0, 2, 20, 4, 40, 3, 30, 5, 50, 7, 70});
  REQUIRE_THAT(RunError(Adjust("AdjustContrastv2"),
                        {Tensor(DT_FLOAT, TensorShape({3, 2})),
                         Tensor::Scalar<float>(2)}),
               StatusIs(absl::StatusCode::kInvalidArgument,
                        "input must be at least 3-D, got shape[3,2]"));
  REQUIRE_THAT(
      RunError(Adjust("AdjustContrastv2"), {x, MakeVector<float>({2})}),
      StatusIs(absl::StatusCode::kInvalidArgument,
               "contrast_factor must be scalar: [1]"));
}

TEST_CASE("AdjustSaturation and AdjustHue move colors in HSV", "[image]") {
  const Tensor red =
      MakeTensor<float>({1, 0, 0, 0.5f, 0.25f, 0.25f}, TensorShape({1, 2, 3}));
  // Saturation 0 leaves the value as gray; 0.5 halves the chroma.
  ExpectNear(
      RunOne(Adjust("AdjustSaturation"), {red, Tensor::Scalar<float>(0)}),
      {1, 1, 1, 0.5f, 0.5f, 0.5f});
  ExpectNear(
      RunOne(Adjust("AdjustSaturation"), {red, Tensor::Scalar<float>(0.5f)}),
      {1, 0.5f, 0.5f, 0.5f, 0.375f, 0.375f});
  // A third of a turn takes red to green, two thirds to blue; -1 is a whole
  // turn.
  ExpectNear(
      RunOne(Adjust("AdjustHue"), {red, Tensor::Scalar<float>(1.0f / 3)}),
      {0, 1, 0, 0.25f, 0.5f, 0.25f});
  ExpectNear(
      RunOne(Adjust("AdjustHue"), {red, Tensor::Scalar<float>(-1.0f / 3)}),
      {0, 0, 1, 0.25f, 0.25f, 0.5f});
  ExpectNear(RunOne(Adjust("AdjustHue"), {red, Tensor::Scalar<float>(-1)}),
             {1, 0, 0, 0.5f, 0.25f, 0.25f});
  REQUIRE_THAT(
      RunError(Adjust("AdjustHue"), {Tensor(DT_FLOAT, TensorShape({1, 2, 4})),
                                     Tensor::Scalar<float>(0.1f)}),
      StatusIs(absl::StatusCode::kInvalidArgument,
               "input must have 3 channels but instead has 4 "
               "channels."));
  REQUIRE_THAT(RunError(Adjust("AdjustHue"), {red, MakeVector<float>({1})}),
               StatusIs(absl::StatusCode::kInvalidArgument,
                        "delta must be scalar: [1]"));
  REQUIRE_THAT(
      RunError(Adjust("AdjustSaturation"), {red, MakeVector<float>({1})}),
      StatusIs(absl::StatusCode::kInvalidArgument,
               "scale must be scalar: [1]"));
}

}  // namespace
}  // namespace dfx
