// The legacy family's ops (tests/golden/gen_legacy.py): TensorFlow 2.21's
// signatures and CPU kernel types, the shape functions, and the kernel
// errors (with their codes) that golden cases show only as codes.
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "catch2/catch.hpp"
#include "kernels/math/special_integrals.h"
#include "tests/kernels/kernel_test_util.h"
#include "tests/kernels/math_test_util.h"
#include "tests/kernels/shape_fn_test_util.h"
#include "tests/testing/status_matchers.h"

namespace dfx {
namespace {

using testing::InferShapes;
using testing::MakeVector;
using testing::RunKernel;
using testing::ShapesString;
using testing::StatusIs;
using testing::TestNodeBuilder;
using testing::Values;

TEST_CASE("Every legacy op has TensorFlow 2.21's signature and CPU types",
          "[legacy]") {
  testing::CheckSignaturesWithTensorFlow("legacy", 40);
}

TEST_CASE("Diag and DiagPart shape functions double and halve the dims",
          "[legacy]") {
  const NodeDef diag =
      TestNodeBuilder("d", "Diag", 1).Attr("T", DT_FLOAT).Build();
  CHECK(ShapesString(InferShapes(diag, {PartialShape::Known({2, -1})})) ==
        "[2,?,2,?]");
  CHECK(ShapesString(InferShapes(diag, {PartialShape::Unknown()})) == "<unknown>");
  CHECK_THAT(InferShapes(diag, {PartialShape::Scalar()}).status(),
             StatusIs(absl::StatusCode::kInvalidArgument));
  const NodeDef part =
      TestNodeBuilder("p", "DiagPart", 1).Attr("T", DT_FLOAT).Build();
  CHECK(ShapesString(InferShapes(part, {PartialShape::Known({2, -1, -1, 3})})) ==
        "[2,3]");
  CHECK_THAT(InferShapes(part, {PartialShape::Known({2, 3})}).status(),
             StatusIs(absl::StatusCode::kInvalidArgument));
  CHECK_THAT(InferShapes(part, {PartialShape::Known({2, 2, 2})}).status(),
             StatusIs(absl::StatusCode::kInvalidArgument, "even and non-zero"));
  CHECK_THAT(InferShapes(part, {PartialShape::Scalar()}).status(),
             StatusIs(absl::StatusCode::kInvalidArgument));
}

TEST_CASE("The deprecated Batch* ops infer no shapes, as TensorFlow's",
          "[legacy]") {
  const NodeDef svd =
      TestNodeBuilder("s", "BatchSvd", 1).Attr("T", DT_FLOAT).Build();
  CHECK(ShapesString(InferShapes(svd, {PartialShape::Known({2, 3, 3})})) ==
        "<unknown><unknown><unknown>");
  // The v1 Conv3D backprops take the shape of the input or the filter.
  const NodeDef in = TestNodeBuilder("i", "Conv3DBackpropInput", 3)
                         .Attr("T", DT_FLOAT)
                         .Attr("strides", std::vector<int64_t>{1, 1, 1, 1, 1})
                         .Attr("padding", "VALID")
                         .Build();
  const std::vector<PartialShape> shapes = {
      PartialShape::Known({1, 4, 4, 4, 2}), PartialShape::Known({2, 2, 2, 2, 3}),
      PartialShape::Known({1, 3, 3, 3, 3})};
  CHECK(ShapesString(InferShapes(in, shapes)) == "[1,4,4,4,2]");
  NodeDef filter = in;
  filter.set_op("Conv3DBackpropFilter");
  CHECK(ShapesString(InferShapes(filter, shapes)) == "[2,2,2,2,3]");
  CHECK_THAT(InferShapes(filter, {shapes[0], PartialShape::Known({2, 2}),
                                  shapes[2]})
                 .status(),
             StatusIs(absl::StatusCode::kInvalidArgument));
}

TEST_CASE("ToBool refuses the scalar types TensorFlow's kernel refuses",
          "[legacy]") {
  const NodeDef half =
      TestNodeBuilder("b", "ToBool", 1).Attr("T", DT_HALF).Build();
  CHECK_THAT(RunKernel(half, {Tensor(DT_HALF, TensorShape())}).status(),
             StatusIs(absl::StatusCode::kInvalidArgument,
                      "half cannot be converted to a boolean"));
  // Any non-scalar is true when it has elements.
  auto out = RunKernel(half, {Tensor(DT_HALF, TensorShape({2}))});
  REQUIRE(out.ok());
  CHECK((*out)[0].scalar<bool>());
}

TEST_CASE("DataFormat ops check their formats when the kernel is made",
          "[legacy]") {
  const NodeDef bad = TestNodeBuilder("m", "DataFormatDimMap", 1)
                          .Attr("T", DT_INT32)
                          .Attr("src_format", "NHWC")
                          .Attr("dst_format", "NHCC")
                          .Build();
  CHECK_THAT(RunKernel(bad, {MakeVector<int32_t>({1})}).status(),
             StatusIs(absl::StatusCode::kInvalidArgument,
                      "must determine a permutation"));
  const NodeDef vec = TestNodeBuilder("v", "DataFormatVecPermute", 1)
                          .Attr("T", DT_INT64)
                          .Attr("src_format", "NDHWC")
                          .Attr("dst_format", "NCDHW")
                          .Build();
  auto out = RunKernel(vec, {MakeVector<int64_t>({10, 20, 30, 40, 50})});
  REQUIRE(out.ok());
  CHECK(Values<int64_t>((*out)[0]) ==
        std::vector<int64_t>{10, 50, 20, 30, 40});
  CHECK_THAT(RunKernel(vec, {MakeVector<int64_t>({1, 2})}).status(),
             StatusIs(absl::StatusCode::kInvalidArgument, "of size 3 or 5"));
}

TEST_CASE("DeepCopy's output does not share the input's buffer",
          "[legacy]") {
  const NodeDef copy =
      TestNodeBuilder("c", "DeepCopy", 1).Attr("T", DT_FLOAT).Build();
  const Tensor x = MakeVector<float>({1, 2, 3});
  auto out = RunKernel(copy, {x});
  REQUIRE(out.ok());
  CHECK_FALSE((*out)[0].SharesBufferWith(x));
  CHECK(Values<float>((*out)[0]) == Values<float>(x));
}

TEST_CASE("BatchNormWithGlobalNormalization refuses vectors that are not "
          "the input's depth",
          "[legacy]") {
  const NodeDef bn =
      TestNodeBuilder("bn", "BatchNormWithGlobalNormalization", 5)
          .Attr("T", DT_FLOAT)
          .Attr("variance_epsilon", 0.001f)
          .Attr("scale_after_normalization", true)
          .Build();
  const Tensor t(DT_FLOAT, TensorShape({1, 1, 1, 4}));
  const Tensor v4 = MakeVector<float>({1, 1, 1, 1});
  const Tensor v3 = MakeVector<float>({1, 1, 1});
  // TensorFlow's kernel reads past a short vector; dfx refuses it.
  CHECK_THAT(RunKernel(bn, {t, v4, v3, v4, v4}).status(),
             StatusIs(absl::StatusCode::kInvalidArgument,
                      "var must have the same number of elements"));
  CHECK(RunKernel(bn, {t, v4, v4, v4, v4}).ok());
}

// Where TensorFlow's Cephes approximations give artefacts (its Expint(inf)
// is NaN, its Expint overflows with exp before Ei does, its Fresnel
// integrals past 36974 are exactly 0.5 and lose the phase before that),
// dfx's values are the integrals' own (mpmath at 50 digits).
TEST_CASE("Dawsn, Expint and the Fresnel integrals hold double precision "
          "where TensorFlow's approximations stop",
          "[legacy]") {
  using Catch::Matchers::WithinRel;
  CHECK_THAT(special::ExpIntegralEi(716.0),
             WithinRel(1.2605029106040893e308, 1e-14));
  CHECK(special::ExpIntegralEi(717.0) == HUGE_VAL);
  CHECK(special::ExpIntegralEi(HUGE_VAL) == HUGE_VAL);
  CHECK(std::isnan(special::ExpIntegralEi(-1.0)));
  CHECK(special::ExpIntegralEi(-0.0) == -HUGE_VAL);
  CHECK_THAT(special::Fresnel(30000.0).c,
             WithinRel(0.4999999999999962, 1e-15));
  CHECK_THAT(special::Fresnel(30000.0).s,
             WithinRel(0.4999893896704605, 1e-15));
  CHECK_THAT(special::Fresnel(-1e9 - 0.5).c,
             WithinRel(-0.5000000001218119, 1e-15));
  CHECK_THAT(special::Fresnel(1e9 + 0.5).s,
             WithinRel(0.49999999970592, 1e-13));
  CHECK_THAT(special::Dawson(2.5), WithinRel(0.2230837221674355, 1e-15));
  CHECK_THAT(special::Dawson(-1e300), WithinRel(-5e-301, 1e-15));

  // Float runs through the kernel: Ei(90) is 1.37e37, finite in float,
  // where TensorFlow's float exp(90) overflows.
  const NodeDef ei =
      TestNodeBuilder("ei", "Expint", 1).Attr("T", DT_FLOAT).Build();
  auto out = RunKernel(ei, {MakeVector<float>({90.0f, 0.0f})});
  REQUIRE(out.ok());
  CHECK_THAT(Values<float>((*out)[0])[0],
             Catch::Matchers::WithinRel(1.371416869507252e37f, 1e-6f));
  CHECK(Values<float>((*out)[0])[1] == -HUGE_VALF);
}

}  // namespace
}  // namespace dfx
