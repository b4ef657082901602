// ExtractImagePatches and ExtractVolumePatches: hand-checked patches with
// rates and SAME padding, complex dtypes, empty tensors and errors.
#include <complex>
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

NodeDef ImageNode(DataType dtype, std::vector<int64_t> ksizes,
                  std::vector<int64_t> strides, std::vector<int64_t> rates,
                  const char* padding) {
  return TestNodeBuilder("patches", "ExtractImagePatches", 1)
      .Attr("T", dtype)
      .Attr("ksizes", ksizes)
      .Attr("strides", strides)
      .Attr("rates", rates)
      .Attr("padding", padding)
      .Build();
}

NodeDef VolumeNode(DataType dtype, std::vector<int64_t> ksizes,
                   std::vector<int64_t> strides, const char* padding) {
  return TestNodeBuilder("patches", "ExtractVolumePatches", 1)
      .Attr("T", dtype)
      .Attr("ksizes", ksizes)
      .Attr("strides", strides)
      .Attr("padding", padding)
      .Build();
}

// 1x4x4x1 holding 1..16 row-major.
Tensor Ramp16() {
  std::vector<int32_t> v;
  for (int i = 1; i <= 16; ++i) v.push_back(i);
  return Tensor::FromVector<int32_t>(v, TensorShape({1, 4, 4, 1}));
}

std::vector<int32_t> Ints(const Tensor& t) {
  auto s = t.span<int32_t>();
  return std::vector<int32_t>(s.begin(), s.end());
}

TEST_CASE("ExtractImagePatches lays windows out in row, col, depth order",
          "[volumetric]") {
  auto out = RunKernel(
      ImageNode(DT_INT32, {1, 2, 2, 1}, {1, 2, 2, 1}, {1, 1, 1, 1}, "VALID"),
      {Ramp16()});
  REQUIRE_OK(out);
  REQUIRE((*out)[0].shape() == TensorShape({1, 2, 2, 4}));
  REQUIRE(Ints((*out)[0]) == std::vector<int32_t>{1, 2, 5, 6, 3, 4, 7, 8, 9,
                                                  10, 13, 14, 11, 12, 15, 16});
  // Rate 2 in rows: a 2x1 window spans rows r and r + 2.
  auto rated = RunKernel(
      ImageNode(DT_INT32, {1, 2, 1, 1}, {1, 1, 3, 1}, {1, 2, 1, 1}, "VALID"),
      {Ramp16()});
  REQUIRE_OK(rated);
  REQUIRE((*rated)[0].shape() == TensorShape({1, 2, 2, 2}));
  REQUIRE(Ints((*rated)[0]) ==
          std::vector<int32_t>{1, 9, 4, 12, 5, 13, 8, 16});
  // SAME with a 3x3 window, stride 3: out 2x2, pad 1 before; positions in the
  // padding read zero.
  auto same = RunKernel(
      ImageNode(DT_INT32, {1, 3, 3, 1}, {1, 3, 3, 1}, {1, 1, 1, 1}, "SAME"),
      {Ramp16()});
  REQUIRE_OK(same);
  REQUIRE((*same)[0].shape() == TensorShape({1, 2, 2, 9}));
  const std::vector<int32_t> got = Ints((*same)[0]);
  REQUIRE(std::vector<int32_t>(got.begin(), got.begin() + 9) ==
          std::vector<int32_t>{0, 0, 0, 0, 1, 2, 0, 5, 6});
}

TEST_CASE("ExtractImagePatches copies complex and 16-bit elements whole",
          "[volumetric]") {
  std::vector<std::complex<double>> v;
  for (int i = 0; i < 4; ++i) v.emplace_back(i, -i);
  auto out = RunKernel(
      ImageNode(DT_COMPLEX128, {1, 1, 2, 1}, {1, 1, 1, 1}, {1, 1, 1, 1},
                "SAME"),
      {Tensor::FromVector<std::complex<double>>(v, TensorShape({1, 2, 2, 1}))});
  REQUIRE_OK(out);
  auto s = (*out)[0].span<std::complex<double>>();
  const std::vector<std::complex<double>> want = {
      {0, 0}, {1, -1}, {1, -1}, {0, 0}, {2, -2}, {3, -3}, {3, -3}, {0, 0}};
  REQUIRE(std::vector<std::complex<double>>(s.begin(), s.end()) == want);
  std::vector<Eigen::half> h = {Eigen::half(1.5f), Eigen::half(-2.0f)};
  auto half = RunKernel(
      ImageNode(DT_HALF, {1, 1, 2, 1}, {1, 1, 1, 1}, {1, 1, 1, 1}, "VALID"),
      {Tensor::FromVector<Eigen::half>(h, TensorShape({1, 1, 2, 1}))});
  REQUIRE_OK(half);
  REQUIRE(static_cast<float>((*half)[0].span<Eigen::half>()[1]) == -2.0f);
}

TEST_CASE("ExtractVolumePatches lays windows out in plane, row, col order",
          "[volumetric]") {
  std::vector<int32_t> v;
  for (int i = 1; i <= 8; ++i) v.push_back(i);
  auto out = RunKernel(
      VolumeNode(DT_INT32, {1, 2, 1, 2, 1}, {1, 1, 1, 1, 1}, "VALID"),
      {Tensor::FromVector<int32_t>(v, TensorShape({1, 2, 2, 2, 1}))});
  REQUIRE_OK(out);
  REQUIRE((*out)[0].shape() == TensorShape({1, 1, 2, 1, 4}));
  REQUIRE(Ints((*out)[0]) == std::vector<int32_t>{1, 2, 5, 6, 3, 4, 7, 8});
}

TEST_CASE("Patch extraction on empty tensors", "[volumetric]") {
  auto out = RunKernel(
      ImageNode(DT_FLOAT, {1, 2, 2, 1}, {1, 1, 1, 1}, {1, 1, 1, 1}, "VALID"),
      {Tensor::FromVector<float>({}, TensorShape({0, 4, 4, 3}))});
  REQUIRE_OK(out);
  REQUIRE((*out)[0].shape() == TensorShape({0, 3, 3, 12}));
  auto vol = RunKernel(
      VolumeNode(DT_FLOAT, {1, 2, 2, 2, 1}, {1, 1, 1, 1, 1}, "VALID"),
      {Tensor::FromVector<float>({}, TensorShape({1, 3, 3, 3, 0}))});
  REQUIRE_OK(vol);
  REQUIRE((*vol)[0].shape() == TensorShape({1, 2, 2, 2, 0}));
}

TEST_CASE("Patch extraction rejects what TensorFlow rejects", "[volumetric]") {
  const Tensor in = Ramp16();
  REQUIRE_THAT(RunKernel(ImageNode(DT_INT32, {1, 2, 2, 2}, {1, 1, 1, 1},
                                   {1, 1, 1, 1}, "VALID"),
                         {in})
                   .status(),
               StatusIs(absl::StatusCode::kUnimplemented,
                        "Only support ksizes across space."));
  REQUIRE_THAT(RunKernel(ImageNode(DT_INT32, {1, 2, 2, 1}, {1, 1, 1, 1},
                                   {2, 1, 1, 1}, "VALID"),
                         {in})
                   .status(),
               StatusIs(absl::StatusCode::kUnimplemented,
                        "Only support rates across space."));
  REQUIRE_THAT(RunKernel(ImageNode(DT_INT32, {1, 2, 2, 1}, {1, 0, 1, 1},
                                   {1, 1, 1, 1}, "VALID"),
                         {in})
                   .status(),
               StatusIs(absl::StatusCode::kOutOfRange,
                        "strides is out of range."));
  REQUIRE_THAT(RunKernel(ImageNode(DT_INT32, {1, 2, 2, 1}, {1, 1, 1},
                                   {1, 1, 1, 1}, "VALID"),
                         {in})
                   .status(),
               StatusIs(absl::StatusCode::kInvalidArgument, "4 values"));
  REQUIRE_THAT(RunKernel(ImageNode(DT_INT32, {1, 2, 2, 1}, {1, 1, 1, 1},
                                   {1, 1, 1, 1}, "VALID"),
                         {Tensor::FromVector<int32_t>({1, 2, 3, 4},
                                                      TensorShape({2, 2}))})
                   .status(),
               StatusIs(absl::StatusCode::kInvalidArgument,
                        "input must be 4-dimensional"));
  REQUIRE_THAT(RunKernel(ImageNode(DT_INT32, {1, 6, 2, 1}, {1, 1, 1, 1},
                                   {1, 1, 1, 1}, "VALID"),
                         {in})
                   .status(),
               StatusIs(absl::StatusCode::kInvalidArgument, "negative"));
  // TensorFlow's OpDef admits bool, but it has no CPU kernel for it.
  REQUIRE_FALSE(RunKernel(ImageNode(DT_BOOL, {1, 1, 1, 1}, {1, 1, 1, 1},
                                    {1, 1, 1, 1}, "VALID"),
                          {Tensor::FromVector<bool>({true},
                                                    TensorShape({1, 1, 1, 1}))})
                    .ok());
  REQUIRE_THAT(RunKernel(VolumeNode(DT_INT32, {1, 2, 2, 2, 1},
                                    {1, 1, 1, 1, 2}, "VALID"),
                         {in})
                   .status(),
               StatusIs(absl::StatusCode::kUnimplemented,
                        "Only support strides across space."));
  REQUIRE_THAT(RunKernel(VolumeNode(DT_INT32, {1, 0, 2, 2, 1},
                                    {1, 1, 1, 1, 1}, "VALID"),
                         {Tensor::FromVector<int32_t>(
                             std::vector<int32_t>(8, 1),
                             TensorShape({1, 2, 2, 2, 1}))})
                   .status(),
               StatusIs(absl::StatusCode::kOutOfRange,
                        "ksizes is out of range."));
  REQUIRE_THAT(RunKernel(VolumeNode(DT_INT32, {1, 2, 2, 2, 1},
                                    {1, 1, 1, 1, 1}, "VALID"),
                         {in})
                   .status(),
               StatusIs(absl::StatusCode::kInvalidArgument,
                        "input must be 5-dimensional"));
}

}  // namespace
}  // namespace dfx
