// The image2 family (graph/ops/image2_ops.cc, kernels/image/nms2_ops.cc,
// crop_and_resize_grad_ops.cc, draw_bounding_boxes_ops.cc): TensorFlow
// 2.21's OpDefs and CPU kernel types; the shape functions; error codes the
// golden cases cannot show; the NMS core shared with V3.
#include <cstdint>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "catch2/catch.hpp"
#include "graph/node_def_util.h"
#include "runtime/tensor.h"
#include "tests/kernels/kernel_test_util.h"
#include "tests/kernels/shape_fn_test_util.h"
#include "tests/testing/status_matchers.h"

namespace dfx {
namespace {

using testing::RunKernel;
using testing::StatusIs;
using testing::TestNodeBuilder;

TEST_CASE("Every image2 op has TensorFlow 2.21's signature and CPU types",
          "[image2]") {
  testing::CheckSignaturesWithTensorFlow("image2", 11);
}

PartialShape S(std::vector<int64_t> dims) {
  return PartialShape::Known(std::move(dims));
}

std::string Shapes(const NodeDef& node, std::vector<PartialShape> inputs,
                   const std::vector<Tensor>& consts = {}) {
  return testing::ShapesString(
      testing::InferShapes(node, std::move(inputs), consts));
}

Tensor Floats(const std::vector<float>& v, TensorShape shape) {
  return Tensor::FromVector<float>(absl::MakeConstSpan(v), shape);
}

TEST_CASE("image2 NMS shape functions", "[image2]") {
  const NodeDef v1 = TestNodeBuilder("n", "NonMaxSuppression", 3).Build();
  CHECK(Shapes(v1, {S({5, 4}), S({5}), S({})}) == "[?]");
  CHECK(Shapes(v1, {PartialShape::Unknown(), PartialShape::Unknown(),
                    PartialShape::Unknown()}) == "[?]");
  CHECK_THAT(testing::InferShapes(v1, {S({5, 4}), S({6}), S({})}).status(),
             StatusIs(absl::StatusCode::kInvalidArgument));
  CHECK_THAT(testing::InferShapes(v1, {S({5, 3}), S({5}), S({})}).status(),
             StatusIs(absl::StatusCode::kInvalidArgument));
  CHECK_THAT(testing::InferShapes(v1, {S({5, 4}), S({5}), S({1})}).status(),
             StatusIs(absl::StatusCode::kInvalidArgument));
  const NodeDef ov =
      TestNodeBuilder("n", "NonMaxSuppressionWithOverlaps", 5).Build();
  CHECK(Shapes(ov, {S({3, 3}), S({3}), S({}), S({}), S({})}) == "[?]");
  CHECK_THAT(testing::InferShapes(ov, {S({3, 4}), S({3}), S({}), S({}), S({})})
                 .status(),
             StatusIs(absl::StatusCode::kInvalidArgument));

  const NodeDef c =
      TestNodeBuilder("c", "CombinedNonMaxSuppression", 6).Build();
  const std::vector<PartialShape> in = {S({2, 6, 1, 4}), S({2, 6, 3}), S({}),
                                        S({}),           S({}),        S({})};
  const std::vector<Tensor> consts = {Tensor(), Tensor(),
                                      Tensor::Scalar<int32_t>(2),
                                      Tensor::Scalar<int32_t>(10)};
  CHECK(Shapes(c, in, consts) == "[2,10,4][2,10][2,10][2]");
  CHECK(Shapes(c, in) == "[2,?,4][2,?][2,?][2]");
  const NodeDef cp = TestNodeBuilder("c", "CombinedNonMaxSuppression", 6)
                         .Attr("pad_per_class", true)
                         .Build();
  CHECK(Shapes(cp, in, consts) == "[2,6,4][2,6][2,6][2]");
  CHECK_THAT(
      testing::InferShapes(
          c, in, {Tensor(), Tensor(), Tensor(), Tensor::Scalar<int32_t>(0)})
          .status(),
      StatusIs(absl::StatusCode::kInvalidArgument));
  CHECK_THAT(
      testing::InferShapes(cp, in,
                           {Tensor(), Tensor(), Tensor::Scalar<int32_t>(0),
                            Tensor::Scalar<int32_t>(3)})
          .status(),
      StatusIs(absl::StatusCode::kInvalidArgument));
  CHECK_THAT(testing::InferShapes(
                 c, {S({2, 6, 2, 4}), S({2, 6, 3}), S({}), S({}), S({}), S({})})
                 .status(),
             StatusIs(absl::StatusCode::kInvalidArgument));
  CHECK_THAT(testing::InferShapes(
                 c, {S({2, 6, 1, 4}), S({3, 6, 3}), S({}), S({}), S({}), S({})})
                 .status(),
             StatusIs(absl::StatusCode::kInvalidArgument));
}

TEST_CASE("image2 crop-gradient and drawing shape functions", "[image2]") {
  const NodeDef gi = TestNodeBuilder("g", "CropAndResizeGradImage", 4)
                         .Attr("T", DT_FLOAT)
                         .Build();
  CHECK(Shapes(gi, {S({3, 2, 2, 1}), S({3, 4}), S({3}), S({4})},
               {Tensor(), Tensor(), Tensor(),
                Tensor::FromVector<int32_t>({2, 5, 6, 1})}) == "[2,5,6,1]");
  CHECK(Shapes(gi, {S({3, 2, 2, 1}), S({3, 4}), S({3}), S({4})}) ==
        "[?,?,?,?]");
  CHECK_THAT(
      testing::InferShapes(gi, {S({3, 2, 2, 1}), S({3, 4}), S({3}), S({3})})
          .status(),
      StatusIs(absl::StatusCode::kInvalidArgument));
  const NodeDef gb = TestNodeBuilder("g", "CropAndResizeGradBoxes", 4)
                         .Attr("T", DT_UINT8)
                         .Build();
  CHECK(Shapes(gb, {S({3, 2, 2, 1}), S({2, 5, 6, 1}), S({3, 4}), S({3})}) ==
        "[3,4]");

  const NodeDef d = TestNodeBuilder("d", "DrawBoundingBoxes", 2).Build();
  CHECK(Shapes(d, {S({2, 5, 6, 3}), S({2, 7, 4})}) == "[2,5,6,3]");
  CHECK_THAT(testing::InferShapes(d, {S({2, 5, 6, 2}), S({2, 7, 4})}).status(),
             StatusIs(absl::StatusCode::kInvalidArgument));
  CHECK_THAT(testing::InferShapes(d, {S({2, 5, 6, 3}), S({2, 7, 5})}).status(),
             StatusIs(absl::StatusCode::kInvalidArgument));
  const NodeDef d2 = TestNodeBuilder("d", "DrawBoundingBoxesV2", 3).Build();
  CHECK(Shapes(d2, {S({5, 6, 3}), S({2, 7, 4}), S({2, 3})}) == "[5,6,3]");
  CHECK_THAT(
      testing::InferShapes(d2, {S({5, 6}), S({2, 7, 4}), S({2, 3})}).status(),
      StatusIs(absl::StatusCode::kInvalidArgument));
}

TEST_CASE(
    "NonMaxSuppression v1 and V2 select as V3 without a score "
    "threshold",
    "[image2]") {
  const Tensor boxes =
      Floats({0, 0,  1, 1,  0, 0.1f,  1, 1.1f,  0, -0.1f, 1, 0.9f,
              0, 10, 1, 11, 0, 10.1f, 1, 11.1f, 0, 100,   1, 101},
             TensorShape({6, 4}));
  const Tensor scores =
      Floats({0.9f, 0.75f, 0.6f, 0.95f, 0.5f, 0.3f}, TensorShape({6}));
  const Tensor max_size = Tensor::Scalar<int32_t>(3);
  auto v1 = RunKernel(TestNodeBuilder("n", "NonMaxSuppression", 3).Build(),
                      {boxes, scores, max_size});
  auto v2 = RunKernel(TestNodeBuilder("n", "NonMaxSuppressionV2", 4).Build(),
                      {boxes, scores, max_size, Tensor::Scalar<float>(0.5f)});
  auto v3 = RunKernel(
      TestNodeBuilder("n", "NonMaxSuppressionV3", 5).Build(),
      {boxes, scores, max_size, Tensor::Scalar<float>(0.5f),
       Tensor::Scalar<float>(-std::numeric_limits<float>::infinity())});
  REQUIRE(v1.ok());
  REQUIRE(v2.ok());
  REQUIRE(v3.ok());
  const std::vector<int32_t> want = {3, 0, 5};
  for (const auto* r : {&v1, &v2, &v3}) {
    const Tensor& t = (**r)[0];
    REQUIRE(t.NumElements() == 3);
    CHECK(std::vector<int32_t>(t.data<int32_t>(), t.data<int32_t>() + 3) ==
          want);
  }
}

TEST_CASE("image2 kernels reject bad inputs with TensorFlow's codes",
          "[image2]") {
  const NodeDef c =
      TestNodeBuilder("c", "CombinedNonMaxSuppression", 6).Build();
  const Tensor boxes(DT_FLOAT, TensorShape({1, 2, 1, 4}));
  const Tensor scores(DT_FLOAT, TensorShape({1, 2, 2}));
  CHECK_THAT(
      RunKernel(c, {boxes, scores, Tensor::Scalar<int32_t>(1),
                    Tensor::Scalar<int32_t>(-1), Tensor::Scalar<float>(0.5f),
                    Tensor::Scalar<float>(0.0f)})
          .status(),
      StatusIs(absl::StatusCode::kInvalidArgument,
               "max_total_size must be > 0"));
  CHECK_THAT(
      RunKernel(c, {boxes, Tensor(DT_FLOAT, TensorShape({2, 2, 2})),
                    Tensor::Scalar<int32_t>(1), Tensor::Scalar<int32_t>(1),
                    Tensor::Scalar<float>(0.5f), Tensor::Scalar<float>(0.0f)})
          .status(),
      StatusIs(absl::StatusCode::kInvalidArgument,
               "boxes and scores must have same batch size"));

  const NodeDef gi = TestNodeBuilder("g", "CropAndResizeGradImage", 4)
                         .Attr("T", DT_HALF)
                         .Build();
  const Tensor grads(DT_FLOAT, TensorShape({1, 2, 2, 1}));
  CHECK_THAT(RunKernel(gi, {grads, Floats({0, 0, 1, 1}, TensorShape({1, 4})),
                            Tensor::FromVector<int32_t>({1}),
                            Tensor::FromVector<int32_t>({1, 3, 3, 1})})
                 .status(),
             StatusIs(absl::StatusCode::kOutOfRange,
                      "box_index has values outside [0, batch_size)"));
  CHECK_THAT(RunKernel(gi, {grads, Floats({0, 0, 1, 1}, TensorShape({1, 4})),
                            Tensor::FromVector<int32_t>({0}),
                            Tensor::FromVector<int32_t>({-1, 3, 3, 1})})
                 .status(),
             StatusIs(absl::StatusCode::kInvalidArgument));

  const NodeDef d2 = TestNodeBuilder("d", "DrawBoundingBoxesV2", 3).Build();
  CHECK_THAT(RunKernel(d2, {Tensor(DT_FLOAT, TensorShape({1, 3, 3, 3})),
                            Tensor(DT_FLOAT, TensorShape({1, 1, 4})),
                            Tensor(DT_FLOAT, TensorShape({2, 2}))})
                 .status(),
             StatusIs(absl::StatusCode::kInvalidArgument,
                      "colors must have equal or more channels"));
}

TEST_CASE("image2 glimpse and contrast shape functions", "[image2]") {
  const NodeDef g = TestNodeBuilder("g", "ExtractGlimpseV2", 3).Build();
  CHECK(Shapes(g, {S({2, 7, 8, 3}), S({2}), S({2, 2})},
               {Tensor(), Tensor::FromVector<int32_t>({3, 4})}) == "[2,3,4,3]");
  CHECK(Shapes(g, {S({2, 7, 8, 3}), S({2}), S({-1, 2})}) == "[2,?,?,3]");
  CHECK_THAT(
      testing::InferShapes(g, {S({2, 7, 8, 3}), S({2}), S({3, 2})}).status(),
      StatusIs(absl::StatusCode::kInvalidArgument));
  CHECK_THAT(
      testing::InferShapes(g, {S({2, 7, 8, 3}), S({3}), S({2, 2})}).status(),
      StatusIs(absl::StatusCode::kInvalidArgument));
  const NodeDef both = TestNodeBuilder("g", "ExtractGlimpse", 3)
                           .Attr("uniform_noise", true)
                           .Attr("noise", "gaussian")
                           .Build();
  CHECK_THAT(
      testing::InferShapes(both, {S({2, 7, 8, 3}), S({2}), S({2, 2})}).status(),
      StatusIs(absl::StatusCode::kInvalidArgument, "at the same time"));
  const NodeDef a =
      TestNodeBuilder("a", "AdjustContrast", 4).Attr("T", DT_UINT8).Build();
  CHECK(Shapes(a, {S({4, 5, 3}), S({}), S({}), S({})}) == "[4,5,3]");
  CHECK_THAT(testing::InferShapes(a, {S({4, 5}), S({}), S({}), S({})}).status(),
             StatusIs(absl::StatusCode::kInvalidArgument));
  CHECK_THAT(
      testing::InferShapes(a, {S({4, 5, 3}), S({}), S({1}), S({})}).status(),
      StatusIs(absl::StatusCode::kInvalidArgument));
}

// The noise outside the image is random; golden cases compare the covered
// part only. Here: uniform noise lies in the image's [min, max], Gaussian
// noise in each channel's.
TEST_CASE("ExtractGlimpse noise stays in the image's range", "[image2]") {
  std::vector<float> px(2 * 3 * 2);
  for (size_t i = 0; i < px.size(); ++i) {
    px[i] = (i % 2 == 0) ? 1.0f + 0.1f * i : -5.0f - 0.2f * i;
  }
  const Tensor image = Floats(px, TensorShape({1, 2, 3, 2}));
  const Tensor size = Tensor::FromVector<int32_t>({4, 5});
  const Tensor offsets = Floats({-1, -1}, TensorShape({1, 2}));
  for (const char* noise : {"uniform", "gaussian"}) {
    const NodeDef g = TestNodeBuilder("g", "ExtractGlimpseV2", 3)
                          .Attr("normalized", false)
                          .Attr("centered", false)
                          .Attr("uniform_noise", false)
                          .Attr("noise", noise)
                          .Build();
    auto out = RunKernel(g, {image, size, offsets});
    REQUIRE(out.ok());
    const Tensor& t = (*out)[0];
    REQUIRE(t.shape() == TensorShape({1, 4, 5, 2}));
    const float* v = t.data<float>();
    for (int64_t r = 0; r < 4; ++r) {
      for (int64_t c = 0; c < 5; ++c) {
        for (int64_t d = 0; d < 2; ++d) {
          const float x = v[(r * 5 + c) * 2 + d];
          const bool covered = r >= 1 && r < 3 && c >= 1 && c < 4;
          if (covered) {
            CHECK(x == px[((r - 1) * 3 + (c - 1)) * 2 + d]);
          } else if (std::string(noise) == "uniform") {
            CHECK(x >= -7.2f);
            CHECK(x <= 2.0f);
          } else {
            CHECK(x >= (d == 0 ? 1.0f : -7.2f));
            CHECK(x <= (d == 0 ? 2.0f : -5.2f));
          }
        }
      }
    }
  }
}

}  // namespace
}  // namespace dfx
