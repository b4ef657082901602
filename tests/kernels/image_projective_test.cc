// ImageProjectiveTransformV2/V3 on transforms worked by hand, and the
// attrs and inputs it refuses (TensorFlow's golden cases cover the rest:
// tests/golden/gen_image.py).
#include <cmath>
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
using testing::Values;

NodeDef Transform(const char* interpolation, const char* fill_mode,
                  bool v3 = true) {
  return TestNodeBuilder("t",
                         v3 ? "ImageProjectiveTransformV3"
                            : "ImageProjectiveTransformV2",
                         v3 ? 4 : 3)
      .Attr("dtype", DT_FLOAT)
      .Attr("interpolation", interpolation)
      .Attr("fill_mode", fill_mode)
      .Build();
}

// One 1 x 4 x 1 image: 1 2 3 4.
Tensor Row() {
  return MakeTensor<float>({1, 2, 3, 4}, TensorShape({1, 1, 4, 1}));
}

// A shift: output x samples input x + dx.
Tensor Shift(float dx) {
  return MakeTensor<float>({1, 0, dx, 0, 1, 0, 0, 0}, TensorShape({1, 8}));
}

TEST_CASE("ImageProjectiveTransform shifts sample between pixels and map "
          "the edges by fill_mode", "[image]") {
  const Tensor size = MakeVector<int32_t>({1, 4});
  const Tensor fill = Tensor::Scalar<float>(9);
  // Half a pixel right: bilinear blends neighbours; past the right edge
  // CONSTANT blends in the fill value, NEAREST repeats the last pixel.
  CHECK(Values<float>(RunOne(Transform("BILINEAR", "CONSTANT"),
                             {Row(), Shift(0.5f), size, fill})) ==
        std::vector<float>{1.5f, 2.5f, 3.5f, 6.5f});
  CHECK(Values<float>(RunOne(Transform("BILINEAR", "NEAREST"),
                             {Row(), Shift(0.5f), size, fill})) ==
        std::vector<float>{1.5f, 2.5f, 3.5f, 4});
  // Two pixels left: REFLECT mirrors [1 2 3 4] to ... 2 1 | 1 2 ...,
  // WRAP repeats it, CONSTANT fills.
  CHECK(Values<float>(RunOne(Transform("NEAREST", "REFLECT"),
                             {Row(), Shift(-2), size, fill})) ==
        std::vector<float>{2, 1, 1, 2});
  CHECK(Values<float>(RunOne(Transform("NEAREST", "WRAP"),
                             {Row(), Shift(-2), size, fill})) ==
        std::vector<float>{3, 4, 1, 2});
  CHECK(Values<float>(RunOne(Transform("NEAREST", "CONSTANT"),
                             {Row(), Shift(-2), size, fill})) ==
        std::vector<float>{9, 9, 1, 2});
  // V2 has no fill_value input: it fills with 0.
  CHECK(Values<float>(RunOne(Transform("NEAREST", "CONSTANT", false),
                             {Row(), Shift(-2), size})) ==
        std::vector<float>{0, 0, 1, 2});
}

TEST_CASE("ImageProjectiveTransform refuses unknown attrs and bad inputs",
          "[image]") {
  const Tensor size = MakeVector<int32_t>({1, 4});
  const Tensor fill = Tensor::Scalar<float>(0);
  // TensorFlow only logs these and runs with an unset mode.
  CHECK_THAT(RunError(Transform("BICUBIC", "CONSTANT"),
                      {Row(), Shift(0), size, fill}),
             StatusIs(absl::StatusCode::kInvalidArgument,
                      "Invalid interpolation BICUBIC. Supported types: "
                      "NEAREST, BILINEAR"));
  CHECK_THAT(RunError(Transform("NEAREST", "MIRROR"),
                      {Row(), Shift(0), size, fill}),
             StatusIs(absl::StatusCode::kInvalidArgument,
                      "Invalid mode MIRROR. Supported types: REFLECT, WRAP, "
                      "CONSTANT, NEAREST"));
  CHECK_THAT(RunError(Transform("NEAREST", "CONSTANT"),
                      {Row(), MakeTensor<float>({1, 0, 0, 0, 1, 0, 0},
                                                TensorShape({1, 7})),
                       size, fill}),
             StatusIs(absl::StatusCode::kInvalidArgument,
                      "Input transform should be num_images x 8 or 1 x 8"));
  CHECK_THAT(RunError(Transform("NEAREST", "CONSTANT"),
                      {Row(), Shift(0), MakeVector<int32_t>({1, -4}), fill}),
             StatusIs(absl::StatusCode::kInvalidArgument,
                      "output dimensions must be positive"));
  CHECK_THAT(RunError(Transform("NEAREST", "CONSTANT"),
                      {Row(), Shift(0), size, MakeVector<float>({0, 1})}),
             StatusIs(absl::StatusCode::kInvalidArgument,
                      "fill_value must be a scalar[2]"));
  // A huge or NaN coordinate reads the fill value, without undefined
  // float-to-integer conversions.
  for (float dx : {1e30f, -1e30f, std::nanf("")}) {
    INFO("dx " << dx);
    CHECK(Values<float>(RunOne(Transform("NEAREST", "CONSTANT"),
                               {Row(), Shift(dx), size,
                                Tensor::Scalar<float>(7)})) ==
          std::vector<float>{7, 7, 7, 7});
  }
}

}  // namespace
}  // namespace dfx
