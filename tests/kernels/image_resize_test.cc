// ResizeBilinear, ResizeNearestNeighbor, ResizeBicubic, ResizeArea and the
// resize gradients: TensorFlow's coordinate math in each mode, worked by
// hand on small images, and its errors.
#include <cmath>
#include <cstdint>
#include <string>
#include <utility>
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

NodeDef Resize(const std::string& op, DataType t, bool align = false,
               bool half = false) {
  testing::TestNodeBuilder b = TypedNode("r", op, t, 2);
  b.Attr("align_corners", align);
  if (op != "ResizeArea") b.Attr("half_pixel_centers", half);
  return b.Build();
}

Tensor Size(int32_t h, int32_t w) { return MakeVector<int32_t>({h, w}); }

void ExpectNear(const Tensor& t, const TensorShape& shape,
                const std::vector<float>& want) {
  REQUIRE(t.shape() == shape);
  const std::vector<float> got = Values<float>(t);
  REQUIRE(got.size() == want.size());
  for (size_t i = 0; i < want.size(); ++i) {
    INFO("element " << i);
    CHECK(got[i] == Approx(want[i]).margin(1e-6));
  }
}

TEST_CASE("ResizeBilinear maps pixels by each of TensorFlow's three modes",
          "[image]") {
  const Tensor x = MakeTensor<float>({0, 1}, TensorShape({1, 1, 2, 1}));
  const TensorShape out({1, 1, 4, 1});
  // Legacy: source x * 2/4, the last two clamp to the last pixel.
  ExpectNear(RunOne(Resize("ResizeBilinear", DT_FLOAT), {x, Size(1, 4)}), out,
             {0, 0.5f, 1, 1});
  // align_corners: scale (2-1)/(4-1).
  ExpectNear(RunOne(Resize("ResizeBilinear", DT_FLOAT, true), {x, Size(1, 4)}),
             out, {0, 1.0f / 3, 2.0f / 3, 1});
  // half_pixel_centers: (x + 0.5) * 0.5 - 0.5, clamped at both edges.
  ExpectNear(
      RunOne(Resize("ResizeBilinear", DT_FLOAT, false, true), {x, Size(1, 4)}),
      out, {0, 0.25f, 0.75f, 1});
  // Integer images give float outputs.
  const Tensor u = MakeTensor<uint8_t>({0, 200}, TensorShape({1, 1, 2, 1}));
  ExpectNear(RunOne(Resize("ResizeBilinear", DT_UINT8), {u, Size(1, 4)}), out,
             {0, 100, 200, 200});
  // Rows and columns at once, two channels, two images.
  const Tensor img = MakeTensor<float>({0, 10, 2, 20, 4, 40, 6, 60},
                                       TensorShape({2, 2, 1, 2}));
  ExpectNear(RunOne(Resize("ResizeBilinear", DT_FLOAT), {img, Size(4, 1)}),
             TensorShape({2, 4, 1, 2}),
             {0, 10, 1, 15, 2, 20, 2, 20, 4, 40, 5, 50, 6, 60, 6, 60});
}

TEST_CASE("ResizeNearestNeighbor rounds or floors as TensorFlow does",
          "[image]") {
  const Tensor x = MakeTensor<int32_t>({10, 20, 30}, TensorShape({1, 1, 3, 1}));
  // Legacy: floor(x * 1.5).
  REQUIRE(Values<int32_t>(RunOne(Resize("ResizeNearestNeighbor", DT_INT32),
                                 {x, Size(1, 2)})) ==
          std::vector<int32_t>{10, 20});
  // align_corners rounds x * 2.
  REQUIRE(
      Values<int32_t>(RunOne(Resize("ResizeNearestNeighbor", DT_INT32, true),
                             {x, Size(1, 2)})) == std::vector<int32_t>{10, 30});
  // half_pixel_centers: floor((x + 0.5) * 1.5).
  REQUIRE(Values<int32_t>(
              RunOne(Resize("ResizeNearestNeighbor", DT_INT32, false, true),
                     {x, Size(1, 2)})) == std::vector<int32_t>{10, 30});
  const Tensor h = MakeTensor<Eigen::half>(
      {Eigen::half(1.5f), Eigen::half(-2.0f)}, TensorShape({1, 2, 1, 1}));
  const Tensor up =
      RunOne(Resize("ResizeNearestNeighbor", DT_HALF), {h, Size(4, 1)});
  REQUIRE(up.dtype() == DT_HALF);
  REQUIRE(up.shape() == TensorShape({1, 4, 1, 1}));
  std::vector<float> got;
  for (Eigen::half v : Values<Eigen::half>(up)) got.push_back(float(v));
  REQUIRE(got == std::vector<float>{1.5f, 1.5f, -2.0f, -2.0f});
}

TEST_CASE("ResizeBicubic keeps constants and, with half pixels, the image",
          "[image]") {
  const Tensor c =
      MakeTensor<float>({5, 5, 5, 5, 5, 5}, TensorShape({1, 2, 3, 1}));
  ExpectNear(RunOne(Resize("ResizeBicubic", DT_FLOAT), {c, Size(3, 5)}),
             TensorShape({1, 3, 5, 1}), std::vector<float>(15, 5.0f));
  const Tensor x =
      MakeTensor<float>({1, -2, 3, 0.5f, 7, -1}, TensorShape({1, 2, 3, 1}));
  ExpectNear(
      RunOne(Resize("ResizeBicubic", DT_FLOAT, false, true), {x, Size(2, 3)}),
      TensorShape({1, 2, 3, 1}), {1, -2, 3, 0.5f, 7, -1});
  // Between two pixels (legacy, x * 0.5): the cubic's weights at 1/2 with
  // a = -0.75 are -0.09375, 0.59375, 0.59375, -0.09375, the outer taps
  // clamped to the edge pixels.
  const Tensor row = MakeTensor<float>({0, 1}, TensorShape({1, 1, 2, 1}));
  const Tensor r = RunOne(Resize("ResizeBicubic", DT_FLOAT), {row, Size(1, 4)});
  REQUIRE(Values<float>(r)[1] ==
          Approx(0 * -0.09375 + 0 * 0.59375 + 1 * 0.59375 + 1 * -0.09375));
}

TEST_CASE("ResizeArea averages the covered cells weighted by overlap",
          "[image]") {
  const Tensor x = MakeTensor<float>({1, 2, 3, 4}, TensorShape({1, 1, 4, 1}));
  ExpectNear(RunOne(Resize("ResizeArea", DT_FLOAT), {x, Size(1, 2)}),
             TensorShape({1, 1, 2, 1}), {1.5f, 3.5f});
  // Cells of 4/3 pixels: (1 * 1 + 2 * 1/3) * 3/4, ...
  ExpectNear(RunOne(Resize("ResizeArea", DT_FLOAT), {x, Size(1, 3)}),
             TensorShape({1, 1, 3, 1}), {1.25f, 2.5f, 3.75f});
  const Tensor i = MakeTensor<int64_t>({2, 4}, TensorShape({1, 2, 1, 1}));
  ExpectNear(RunOne(Resize("ResizeArea", DT_INT64), {i, Size(1, 1)}),
             TensorShape({1, 1, 1, 1}), {3});
}

TEST_CASE("Resize ops reject what TensorFlow's rejects", "[image]") {
  const Tensor x = MakeTensor<float>({0, 1}, TensorShape({1, 1, 2, 1}));
  for (const char* op : {"ResizeBilinear", "ResizeNearestNeighbor",
                         "ResizeBicubic", "ResizeArea"}) {
    INFO(op);
    const NodeDef n = Resize(op, DT_FLOAT);
    REQUIRE_THAT(RunError(n, {x, Size(0, 3)}),
                 StatusIs(absl::StatusCode::kInvalidArgument,
                          "output dimensions must be positive"));
    REQUIRE_THAT(RunError(n, {x, MakeVector<int32_t>({3})}),
                 StatusIs(absl::StatusCode::kInvalidArgument,
                          "shape_t must have two elements[1]"));
    REQUIRE_THAT(
        RunError(n, {x, MakeTensor<int32_t>({3, 3}, TensorShape({1, 2}))}),
        StatusIs(absl::StatusCode::kInvalidArgument,
                 "shape_t must be 1-dimensional[1,2]"));
    REQUIRE_THAT(RunError(n, {MakeTensor<float>({0, 1}, TensorShape({1, 2, 1})),
                              Size(2, 2)}),
                 StatusIs(absl::StatusCode::kInvalidArgument,
                          "input must be 4-dimensional[1,2,1]"));
    REQUIRE_THAT(
        RunError(n, {Tensor(DT_FLOAT, TensorShape({1, 0, 2, 1})), Size(2, 2)}),
        StatusIs(absl::StatusCode::kInvalidArgument,
                 "input image must be of non-zero size"));
    REQUIRE_THAT(
        RunError(n, {Tensor(DT_FLOAT, TensorShape({1, 2, 2, 0})), Size(2, 2)}),
        StatusIs(absl::StatusCode::kInvalidArgument,
                 "image must have at least one channel"));
    // An empty batch is not an error.
    REQUIRE(RunOne(n, {Tensor(DT_FLOAT, TensorShape({0, 2, 2, 1})), Size(3, 3)})
                .shape() == TensorShape({0, 3, 3, 1}));
    if (std::string(op) != "ResizeArea") {
      REQUIRE_THAT(RunError(Resize(op, DT_FLOAT, true, true), {x, Size(2, 2)}),
                   StatusIs(absl::StatusCode::kInvalidArgument,
                            "If half_pixel_centers is True, align_corners "
                            "must be False."));
    }
  }
}

TEST_CASE("ResizeNearestNeighborGrad sums gradients into their sources",
          "[image]") {
  const Tensor g = MakeTensor<float>({1, 2, 3, 4}, TensorShape({1, 1, 4, 1}));
  const NodeDef n = Resize("ResizeNearestNeighborGrad", DT_FLOAT);
  ExpectNear(RunOne(n, {g, Size(1, 2)}), TensorShape({1, 1, 2, 1}), {3, 7});
  // align_corners: the 4 gradient pixels round onto sources 0, 0, 1, 1
  // (x * 1/3).
  ExpectNear(RunOne(Resize("ResizeNearestNeighborGrad", DT_FLOAT, true),
                    {g, Size(1, 2)}),
             TensorShape({1, 1, 2, 1}), {3, 7});
  const Tensor gi =
      MakeTensor<int32_t>({1, 2, 3, 4}, TensorShape({1, 1, 4, 1}));
  REQUIRE(Values<int32_t>(RunOne(Resize("ResizeNearestNeighborGrad", DT_INT32),
                                 {gi, Size(1, 3)})) ==  // floor(x * 3/4)
          std::vector<int32_t>{3, 3, 4});
  REQUIRE_THAT(RunError(n, {g, Size(0, 2)}),
               StatusIs(absl::StatusCode::kInvalidArgument,
                        "shape_t's elements must be positive"));
  REQUIRE_THAT(RunError(n, {MakeVector<float>({1}), Size(1, 2)}),
               StatusIs(absl::StatusCode::kInvalidArgument,
                        "input must be 4-dimensional[1]"));
}

TEST_CASE("ResizeBilinearGrad spreads each gradient over four sources",
          "[image]") {
  const Tensor g = MakeTensor<float>({1, 1, 1, 1}, TensorShape({1, 1, 4, 1}));
  const Tensor orig(DT_FLOAT, TensorShape({1, 1, 2, 1}));
  ExpectNear(RunOne(Resize("ResizeBilinearGrad", DT_FLOAT), {g, orig}),
             TensorShape({1, 1, 2, 1}), {1.5f, 2.5f});
  // align_corners: sources at 0, 1/3, 2/3, 1 split the total evenly.
  ExpectNear(RunOne(Resize("ResizeBilinearGrad", DT_FLOAT, true), {g, orig}),
             TensorShape({1, 1, 2, 1}), {2, 2});
  const Tensor origd(DT_DOUBLE, TensorShape({1, 1, 2, 1}));
  const Tensor d =
      RunOne(Resize("ResizeBilinearGrad", DT_DOUBLE, false, true), {g, origd});
  REQUIRE(Values<double>(d) == std::vector<double>{2, 2});
  const NodeDef n = Resize("ResizeBilinearGrad", DT_FLOAT);
  REQUIRE_THAT(RunError(n, {Tensor(DT_FLOAT, TensorShape({1, 0, 4, 1})), orig}),
               StatusIs(absl::StatusCode::kInvalidArgument,
                        "resized dimensions must be positive"));
  REQUIRE_THAT(RunError(n, {g, Tensor(DT_FLOAT, TensorShape({1, 2, 0, 1}))}),
               StatusIs(absl::StatusCode::kInvalidArgument,
                        "original dimensions must be positive"));
  REQUIRE_THAT(RunError(n, {g, Tensor(DT_FLOAT, TensorShape({2, 1}))}),
               StatusIs(absl::StatusCode::kInvalidArgument,
                        "original_image must be 4-dimensional[2,1]"));
  REQUIRE_THAT(
      RunError(Resize("ResizeBilinearGrad", DT_FLOAT, true, true), {g, orig}),
      StatusIs(absl::StatusCode::kInvalidArgument,
               "If half_pixel_centers is True"));
}

TEST_CASE("ResizeBicubicGrad is the adjoint of ResizeBicubic", "[image]") {
  // <ResizeBicubic(x), g> == <x, ResizeBicubicGrad(g)> in every mode.
  std::vector<float> xv(3 * 4 * 2), gv(5 * 7 * 2);
  for (size_t i = 0; i < xv.size(); ++i) xv[i] = std::sin(1.0f + i);
  for (size_t i = 0; i < gv.size(); ++i) gv[i] = std::cos(2.0f * i);
  const Tensor x = Tensor::FromVector<float>(xv, TensorShape({1, 3, 4, 2}));
  const Tensor g = Tensor::FromVector<float>(gv, TensorShape({1, 5, 7, 2}));
  const Tensor orig(DT_DOUBLE, TensorShape({1, 3, 4, 2}));
  for (auto [align, half] : {std::pair{false, false}, std::pair{true, false},
                             std::pair{false, true}}) {
    INFO("align " << align << " half " << half);
    const std::vector<float> y = Values<float>(RunOne(
        Resize("ResizeBicubic", DT_FLOAT, align, half), {x, Size(5, 7)}));
    const Tensor dx =
        RunOne(Resize("ResizeBicubicGrad", DT_DOUBLE, align, half), {g, orig});
    REQUIRE(dx.shape() == orig.shape());
    const std::vector<double> d = Values<double>(dx);
    double lhs = 0, rhs = 0;
    for (size_t i = 0; i < y.size(); ++i) lhs += double(y[i]) * gv[i];
    for (size_t i = 0; i < d.size(); ++i) rhs += d[i] * xv[i];
    CHECK(lhs == Approx(rhs).epsilon(1e-5));
  }
  REQUIRE_THAT(RunError(Resize("ResizeBicubicGrad", DT_FLOAT),
                        {g, Tensor(DT_FLOAT, TensorShape({1, 0, 4, 2}))}),
               StatusIs(absl::StatusCode::kInvalidArgument,
                        "original dimensions must be positive"));
}

TEST_CASE("Resize sizes too large to hold fail without crashing", "[image]") {
  const Tensor x(DT_FLOAT, TensorShape({1, 1, 1, 2}));
  const int32_t big = 2147483647;
  for (const char* op : {"ResizeBilinear", "ResizeNearestNeighbor",
                         "ResizeBicubic", "ResizeArea"}) {
    INFO(op);
    REQUIRE_THAT(RunError(Resize(op, DT_FLOAT), {x, Size(big, big)}),
                 StatusIs(absl::StatusCode::kInvalidArgument));
  }
  REQUIRE_THAT(RunError(Resize("ResizeNearestNeighborGrad", DT_FLOAT),
                        {x, Size(big, big)}),
               StatusIs(absl::StatusCode::kInvalidArgument));
}

}  // namespace
}  // namespace dfx
