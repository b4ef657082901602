// CropAndResize: bilinear and nearest samples worked by hand, one-pixel
// crops, extrapolation outside the image, and TensorFlow's errors.
#include <cstdint>
#include <string>
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
using testing::TypedNode;
using testing::Values;

NodeDef Crop(DataType t, const char* method = "bilinear",
             float extrapolation = 0) {
  return TypedNode("c", "CropAndResize", t, 4)
      .Attr("method", method)
      .Attr("extrapolation_value", extrapolation)
      .Build();
}

const Tensor kImage =
    MakeTensor<float>({0, 1, 2, 3}, TensorShape({1, 2, 2, 1}));

Tensor Boxes(std::vector<float> v) {
  const int64_t n = static_cast<int64_t>(v.size()) / 4;
  return Tensor::FromVector<float>(v, TensorShape({n, 4}));
}

TEST_CASE("CropAndResize samples boxes bilinearly or by nearest pixel",
          "[image]") {
  const Tensor whole = Boxes({0, 0, 1, 1});
  const Tensor ind = MakeVector<int32_t>({0});
  const Tensor crop33 = MakeVector<int32_t>({3, 3});
  Tensor out = RunOne(Crop(DT_FLOAT), {kImage, whole, ind, crop33});
  REQUIRE(out.shape() == TensorShape({1, 3, 3, 1}));
  REQUIRE(Values<float>(out) ==
          std::vector<float>{0, 0.5f, 1, 1, 1.5f, 2, 2, 2.5f, 3});
  // roundf(0.5) is 1.
  out = RunOne(Crop(DT_FLOAT, "nearest"), {kImage, whole, ind, crop33});
  REQUIRE(Values<float>(out) == std::vector<float>{0, 1, 1, 2, 3, 3, 2, 3, 3});
  // A one-sample crop takes the box's center.
  out =
      RunOne(Crop(DT_FLOAT), {kImage, whole, ind, MakeVector<int32_t>({1, 1})});
  REQUIRE(Values<float>(out) == std::vector<float>{1.5f});
  // Rows outside the image take extrapolation_value; integer images give
  // float crops.
  const Tensor u8 =
      MakeTensor<uint8_t>({0, 10, 20, 30}, TensorShape({1, 2, 2, 1}));
  out = RunOne(Crop(DT_UINT8, "bilinear", 9),
               {u8, Boxes({-1, 0, 1, 1}), ind, MakeVector<int32_t>({2, 1})});
  REQUIRE(out.dtype() == DT_FLOAT);
  REQUIRE(Values<float>(out) == std::vector<float>{9, 25});
  // No boxes: an empty output.
  out = RunOne(Crop(DT_FLOAT), {kImage, Tensor(DT_FLOAT, TensorShape({0, 4})),
                                Tensor(DT_INT32, TensorShape({0})), crop33});
  REQUIRE(out.shape() == TensorShape({0, 3, 3, 1}));
}

TEST_CASE("CropAndResize rejects what TensorFlow's rejects", "[image]") {
  const Tensor box = Boxes({0, 0, 1, 1});
  const Tensor crop = MakeVector<int32_t>({2, 2});
  REQUIRE_THAT(
      RunError(Crop(DT_FLOAT), {kImage, box, MakeVector<int32_t>({1}), crop}),
      StatusIs(absl::StatusCode::kOutOfRange,
               "box_index has values outside [0, batch_size)"));
  REQUIRE_THAT(RunError(Crop(DT_FLOAT), {kImage, box, MakeVector<int32_t>({0}),
                                         MakeVector<int32_t>({0, 2})}),
               StatusIs(absl::StatusCode::kInvalidArgument,
                        "crop dimensions must be positive"));
  REQUIRE_THAT(RunError(Crop(DT_FLOAT), {kImage, box, MakeVector<int32_t>({0}),
                                         MakeVector<int32_t>({2})}),
               StatusIs(absl::StatusCode::kInvalidArgument,
                        "crop_size must have two elements[1]"));
  REQUIRE_THAT(
      RunError(Crop(DT_FLOAT), {kImage, Tensor(DT_FLOAT, TensorShape({1, 3})),
                                MakeVector<int32_t>({0}), crop}),
      StatusIs(absl::StatusCode::kInvalidArgument,
               "boxes must have 4 columns"));
  REQUIRE_THAT(RunError(Crop(DT_FLOAT),
                        {kImage, box, MakeVector<int32_t>({0, 0}), crop}),
               StatusIs(absl::StatusCode::kInvalidArgument,
                        "box_index has incompatible shape"));
  REQUIRE_THAT(
      RunError(Crop(DT_FLOAT), {Tensor(DT_FLOAT, TensorShape({1, 0, 2, 1})),
                                box, MakeVector<int32_t>({0}), crop}),
      StatusIs(absl::StatusCode::kInvalidArgument,
               "image dimensions must be positive"));
  REQUIRE_THAT(
      RunError(Crop(DT_FLOAT), {Tensor(DT_FLOAT, TensorShape({2, 2, 1})), box,
                                MakeVector<int32_t>({0}), crop}),
      StatusIs(absl::StatusCode::kInvalidArgument,
               "input image must be 4-D[2,2,1]"));
  // Too many elements to hold: an error, not a crash.
  REQUIRE_THAT(
      RunError(Crop(DT_FLOAT), {Tensor(DT_FLOAT, TensorShape({1, 1, 1, 4})),
                                box, MakeVector<int32_t>({0}),
                                MakeVector<int32_t>({2147483647, 2147483647})}),
      StatusIs(absl::StatusCode::kInvalidArgument));
}

}  // namespace
}  // namespace dfx
