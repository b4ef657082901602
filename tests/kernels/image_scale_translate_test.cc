// ScaleAndTranslate and ScaleAndTranslateGrad: a triangle-kernel upscale
// worked by hand, the gradient as the forward's adjoint, and errors.
#include <cmath>
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

NodeDef Sat(const std::string& op, const char* kernel, bool antialias) {
  return TypedNode("s", op, DT_FLOAT, 4)
      .Attr("kernel_type", kernel)
      .Attr("antialias", antialias)
      .Build();
}

TEST_CASE("ScaleAndTranslate with a triangle kernel interpolates linearly",
          "[image]") {
  const Tensor x = MakeTensor<float>({0, 1}, TensorShape({1, 1, 2, 1}));
  // Samples at (x + 0.5) / 2: 0.25, 0.75, 1.25, 1.75 in pixel units.
  const Tensor y =
      RunOne(Sat("ScaleAndTranslate", "triangle", false),
             {x, MakeVector<int32_t>({1, 4}), MakeVector<float>({1, 2}),
              MakeVector<float>({0, 0})});
  REQUIRE(y.shape() == TensorShape({1, 1, 4, 1}));
  const std::vector<float> got = Values<float>(y);
  const std::vector<float> want = {0, 0.25f, 0.75f, 1};
  for (size_t i = 0; i < want.size(); ++i) {
    CHECK(got[i] == Approx(want[i]).margin(1e-6));
  }
  // A box kernel at scale 1 copies the image.
  const Tensor z =
      RunOne(Sat("ScaleAndTranslate", "box", true),
             {x, MakeVector<int32_t>({1, 2}), MakeVector<float>({1, 1}),
              MakeVector<float>({0, 0})});
  REQUIRE(Values<float>(z) == std::vector<float>{0, 1});
}

TEST_CASE("ScaleAndTranslateGrad is the adjoint of ScaleAndTranslate",
          "[image]") {
  std::vector<float> xv(5 * 6 * 2), gv(3 * 9 * 2);
  for (size_t i = 0; i < xv.size(); ++i) xv[i] = std::sin(0.7f * i);
  for (size_t i = 0; i < gv.size(); ++i) gv[i] = std::cos(1.3f * i);
  const Tensor x = Tensor::FromVector<float>(xv, TensorShape({1, 5, 6, 2}));
  const Tensor g = Tensor::FromVector<float>(gv, TensorShape({1, 3, 9, 2}));
  const Tensor scale = MakeVector<float>({0.6f, 1.5f});
  const Tensor shift = MakeVector<float>({0.2f, -0.4f});
  for (const char* kernel : {"lanczos3", "gaussian", "mitchellcubic"}) {
    for (bool antialias : {true, false}) {
      INFO(kernel << " antialias " << antialias);
      const std::vector<float> y =
          Values<float>(RunOne(Sat("ScaleAndTranslate", kernel, antialias),
                               {x, MakeVector<int32_t>({3, 9}), scale, shift}));
      const std::vector<float> dx = Values<float>(RunOne(
          Sat("ScaleAndTranslateGrad", kernel, antialias),
          {g, Tensor(DT_FLOAT, TensorShape({1, 5, 6, 2})), scale, shift}));
      double lhs = 0, rhs = 0;
      for (size_t i = 0; i < y.size(); ++i) lhs += double(y[i]) * gv[i];
      for (size_t i = 0; i < dx.size(); ++i) rhs += double(dx[i]) * xv[i];
      CHECK(lhs == Approx(rhs).epsilon(1e-4));
    }
  }
}

TEST_CASE("ScaleAndTranslate rejects what TensorFlow's rejects", "[image]") {
  const Tensor x(DT_FLOAT, TensorShape({1, 2, 2, 1}));
  const Tensor size = MakeVector<int32_t>({3, 3});
  const Tensor zero = MakeVector<float>({0, 0});
  REQUIRE_THAT(RunError(Sat("ScaleAndTranslate", "lanczos3", true),
                        {x, size, MakeVector<float>({0, 1}), zero}),
               StatusIs(absl::StatusCode::kInvalidArgument,
                        "Scale must be greater than zero."));
  REQUIRE_THAT(RunError(Sat("ScaleAndTranslate", "bogus", true),
                        {x, size, MakeVector<float>({1, 1}), zero}),
               StatusIs(absl::StatusCode::kInvalidArgument,
                        "Unrecognized kernel type: bogus"));
  REQUIRE_THAT(RunError(Sat("ScaleAndTranslate", "lanczos3", true),
                        {x, size, MakeVector<float>({1}), zero}),
               StatusIs(absl::StatusCode::kInvalidArgument,
                        "t must have two elements[1]"));
  REQUIRE_THAT(RunError(Sat("ScaleAndTranslate", "lanczos3", true),
                        {x, MakeVector<int32_t>({0, 3}),
                         MakeVector<float>({1, 1}), zero}),
               StatusIs(absl::StatusCode::kInvalidArgument,
                        "output dimensions must be positive"));
}

}  // namespace
}  // namespace dfx
