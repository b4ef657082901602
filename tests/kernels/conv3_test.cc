// The conv3 family's ops (tests/golden/gen_conv3.py): TensorFlow 2.21's
// signatures and CPU kernel types, the shape functions (including what
// TensorFlow's refuse at graph construction, which goldens cannot show),
// and kernel errors (the executor adds the node to their messages; the
// golden cases run them through sessions).
#include <algorithm>
#include <cstdint>
#include <initializer_list>
#include <string>
#include <vector>

#include "catch2/catch.hpp"
#include "graph/node_def_util.h"
#include "tests/kernels/kernel_test_util.h"
#include "tests/kernels/shape_fn_test_util.h"
#include "tests/testing/status_matchers.h"

namespace dfx {
namespace {

using testing::InferShape;
using testing::RunKernel;
using testing::StatusIs;
using testing::TestNodeBuilder;

std::string Str(const absl::StatusOr<PartialShape>& s) {
  return s.ok() ? s->DebugString() : s.status().ToString();
}

PartialShape K(std::vector<int64_t> d) { return PartialShape::Known(d); }

NodeDef ConvNode(std::vector<int64_t> strides, const char* padding,
                 int64_t batch_dims = 1, const char* format = "CHANNELS_LAST",
                 std::vector<int64_t> dilations = {},
                 std::vector<int64_t> explicit_paddings = {}) {
  return TestNodeBuilder("conv", "Conv", 2)
      .Attr("T", DT_FLOAT)
      .Attr("strides", strides)
      .Attr("padding", padding)
      .Attr("batch_dims", batch_dims)
      .Attr("data_format", format)
      .Attr("dilations", dilations)
      .Attr("explicit_paddings", explicit_paddings)
      .Build();
}

TEST_CASE("Every conv3 op has TensorFlow 2.21's signature and CPU types",
          "[conv3]") {
  testing::CheckSignaturesWithTensorFlow("conv3", 8);
}

TEST_CASE(
    "Conv's shape function gives 2-D and 3-D outputs with extra batch "
    "dims and refuses what TensorFlow's refuses",
    "[conv3]") {
  CHECK(Str(InferShape(ConvNode({1, 1, 1, 1}, "VALID"),
                       {K({2, 5, 6, 3}), K({2, 3, 3, 4})})) == "[2,4,4,4]");
  CHECK(Str(InferShape(ConvNode({1, 2, 3, 1}, "SAME"),
                       {K({1, 7, 6, 2}), K({3, 3, 2, 3})})) == "[1,4,2,3]");
  CHECK(Str(InferShape(ConvNode({1, 1, 1, 1}, "SAME", 2),
                       {K({2, 3, 5, 5, 2}), K({3, 3, 2, 2})})) ==
        "[2,3,5,5,2]");
  CHECK(Str(InferShape(ConvNode({1, 1, 1, 1}, "VALID", 0),
                       {K({5, 6, 3}), K({2, 2, 3, 2})})) == "[4,5,2]");
  CHECK(Str(InferShape(ConvNode({1, 1, 2, 1, 1}, "VALID"),
                       {K({1, 4, 5, 4, 2}), K({2, 3, 2, 2, 3})})) ==
        "[1,3,2,3,3]");
  CHECK(Str(InferShape(ConvNode({1, 1, 1, 1}, "SAME", 1, "CHANNELS_FIRST"),
                       {K({1, 2, 4, 4}), K({2, 2, 2, 3})})) == "[1,3,4,4]");
  CHECK(Str(InferShape(ConvNode({1, 1, 1, 1}, "EXPLICIT", 1, "CHANNELS_LAST",
                                {}, {0, 0, 1, 2, 0, 1, 0, 0}),
                       {K({1, 4, 4, 2}), K({2, 2, 2, 3})})) == "[1,6,4,3]");
  CHECK(Str(InferShape(ConvNode({1, 1, 1, 1}, "VALID"),
                       {PartialShape::Unknown(), K({2, 2, 2, 3})})) ==
        "<unknown>");
  // Refused at graph construction, as TensorFlow's shape function does.
  CHECK_THAT(
      InferShape(ConvNode({1, 1, 1}, "VALID"), {K({1, 4, 2}), K({2, 2, 3})})
          .status(),
      StatusIs(absl::StatusCode::kInvalidArgument,
               "Input tensor must be rank 4 or 5"));
  CHECK_THAT(InferShape(ConvNode({1, 1, 1, 1, 1}, "VALID", 2),
                        {K({2, 1, 4, 4, 2}), K({2, 2, 2, 3})})
                 .status(),
             StatusIs(absl::StatusCode::kInvalidArgument,
                      "Stride attribute should contain 4 values"));
  CHECK_THAT(
      InferShape(ConvNode({1, 1, 1, 1, 1}, "EXPLICIT", 1, "CHANNELS_LAST", {},
                          {0, 0, 1, 1, 1, 1, 1, 1, 0, 0}),
                 {K({1, 3, 4, 4, 2}), K({2, 2, 2, 2, 3})})
          .status(),
      StatusIs(absl::StatusCode::kInvalidArgument,
               "Explicit padding not supported for 3D Convolution"));
  CHECK_THAT(InferShape(ConvNode({1, 1, 1, 1}, "VALID"),
                        {K({1, 4, 4, 4}), K({2, 2, 3, 3})})
                 .status(),
             StatusIs(absl::StatusCode::kInvalidArgument, "node 'conv'"));
}

TEST_CASE(
    "The fused convolutions' and ApproxTopK's shape functions check "
    "ranks as TensorFlow's do",
    "[conv3]") {
  const NodeDef pad = TestNodeBuilder("pad", "FusedPadConv2D", 3)
                          .Attr("T", DT_FLOAT)
                          .Attr("mode", "REFLECT")
                          .Attr("strides", std::vector<int64_t>{1, 1, 1, 1})
                          .Attr("padding", "VALID")
                          .Build();
  CHECK(Str(InferShape(pad, {K({2, 4, 4, 3}), K({4, 2}), K({2, 2, 3, 5})})) ==
        "[2,?,?,5]");
  CHECK_THAT(
      InferShape(pad, {K({2, 4, 4}), K({4, 2}), K({2, 2, 3, 5})}).status(),
      StatusIs(absl::StatusCode::kInvalidArgument, "node 'pad'"));
  const NodeDef topk = TestNodeBuilder("topk", "ApproxTopK", 1)
                           .Attr("T", DT_FLOAT)
                           .Attr("k", 2)
                           .Build();
  auto shapes = testing::InferShapes(topk, {K({3, 5})});
  REQUIRE(shapes.ok());
  CHECK(testing::ShapesString(shapes) == "[3,2][3,2]");
  CHECK_THAT(InferShape(TestNodeBuilder("topk", "ApproxTopK", 1)
                            .Attr("T", DT_FLOAT)
                            .Attr("k", 2)
                            .Attr("reduction_dimension", 2)
                            .Build(),
                        {K({3, 5})})
                 .status(),
             StatusIs(absl::StatusCode::kInvalidArgument,
                      "Invalid reduction dimension: 2"));
  CHECK_THAT(InferShape(topk, {K({3, 1})}).status(),
             StatusIs(absl::StatusCode::kInvalidArgument,
                      "input must have last dimension >= k = 2 but was 1"));
}

TEST_CASE(
    "Conv and the fused convolutions run and fail as TensorFlow's "
    "kernels do",
    "[conv3]") {
  Tensor input(DT_FLOAT, TensorShape({1, 3, 3, 1}));
  for (float& v : input.span<float>()) v = 1;
  Tensor filter(DT_FLOAT, TensorShape({2, 2, 1, 1}));
  for (float& v : filter.span<float>()) v = 1;
  const NodeDef grouped = TestNodeBuilder("grouped", "Conv", 2)
                              .Attr("T", DT_FLOAT)
                              .Attr("strides", std::vector<int64_t>{1, 1, 1, 1})
                              .Attr("padding", "VALID")
                              .Attr("groups", 2)
                              .Build();
  CHECK_THAT(RunKernel(grouped, {input, filter}).status(),
             StatusIs(absl::StatusCode::kUnimplemented,
                      "Grouped/Depthwise Convolutions are not supported"));
  // A 5-D input (three spatial dims) with a 4-D filter: TensorFlow's
  // kernel would read the filter's dims at shifted positions.
  Tensor volume(DT_FLOAT, TensorShape({1, 3, 3, 3, 1}));
  CHECK_THAT(
      RunKernel(ConvNode({1, 1, 1, 1, 1}, "VALID"), {volume, filter}).status(),
      StatusIs(absl::StatusCode::kInvalidArgument,
               "The filter must be rank 5"));
  auto ok = RunKernel(ConvNode({1, 1, 1, 1}, "VALID"), {input, filter});
  REQUIRE(ok.ok());
  CHECK((*ok)[0].shape() == TensorShape({1, 2, 2, 1}));
  CHECK((*ok)[0].data<float>()[0] == 4.0f);

  const NodeDef pad = TestNodeBuilder("fused", "FusedPadConv2D", 3)
                          .Attr("T", DT_FLOAT)
                          .Attr("mode", "REFLECT")
                          .Attr("strides", std::vector<int64_t>{1, 1, 1, 1})
                          .Attr("padding", "VALID")
                          .Build();
  Tensor pads(DT_INT32, TensorShape({4, 2}));
  for (int32_t& v : pads.span<int32_t>()) v = 0;
  pads.data<int32_t>()[2] = 3;  // top padding == the rows: not < 3
  CHECK_THAT(RunKernel(pad, {input, pads, filter}).status(),
             StatusIs(absl::StatusCode::kInvalidArgument,
                      "paddings must be less than the dimension size"));
  pads.data<int32_t>()[2] = 1;
  auto padded = RunKernel(pad, {input, pads, filter});
  REQUIRE(padded.ok());
  CHECK((*padded)[0].shape() == TensorShape({1, 3, 2, 1}));
}

TEST_CASE("RefSelect and ApproxTopK refuse what TensorFlow's kernels do",
          "[conv3]") {
  const NodeDef topk = TestNodeBuilder("topk", "ApproxTopK", 1)
                           .Attr("T", DT_FLOAT)
                           .Attr("k", 1)
                           .Attr("is_max_k", false)
                           .Build();
  CHECK_THAT(RunKernel(topk, {Tensor::FromVector<float>({1, 2})}).status(),
             StatusIs(absl::StatusCode::kInvalidArgument, "is_max_k=false"));
  const NodeDef fact =
      TestNodeBuilder("fact", "Fact", 0).Attr("_kernel", "nobody").Build();
  CHECK_THAT(RunKernel(fact, {}).status(),
             StatusIs(absl::StatusCode::kInvalidArgument, "label 'nobody'"));
  auto plain = RunKernel(TestNodeBuilder("f", "Fact", 0).Build(), {});
  REQUIRE(plain.ok());
  CHECK((*plain)[0].data<std::string>()[0] == "0! == 1");
}

TEST_CASE(
    "The quantized conv3 ops' shape functions, and an input "
    "TensorFlow's QuantizedInstanceNorm would abort on",
    "[conv3]") {
  const NodeDef norm = TestNodeBuilder("norm", "QuantizedInstanceNorm", 3)
                           .Attr("T", DT_QUINT8)
                           .Build();
  auto shapes = testing::InferShapes(
      norm, {K({2, 3, 4, 5}), PartialShape::Scalar(), PartialShape::Scalar()});
  CHECK(testing::ShapesString(shapes) == "[2,3,4,5][][]");
  CHECK_THAT(InferShape(norm, {K({3, 4, 5}), PartialShape::Scalar(),
                               PartialShape::Scalar()})
                 .status(),
             StatusIs(absl::StatusCode::kInvalidArgument, "node 'norm'"));
  // TensorFlow's kernel reads x as 4-D without a check (a failed CHECK).
  Tensor x(DT_QUINT8, TensorShape({2, 2}));
  CHECK_THAT(
      RunKernel(norm, {x, Tensor::Scalar<float>(0), Tensor::Scalar<float>(1)})
          .status(),
      StatusIs(absl::StatusCode::kInvalidArgument, "x must be 4-dimensional"));
  const NodeDef resize = TestNodeBuilder("resize", "QuantizedResizeBilinear", 4)
                             .Attr("T", DT_QUINT8)
                             .Build();
  shapes = testing::InferShapes(
      resize, {K({2, 3, 4, 5}), K({2}), PartialShape::Scalar(),
               PartialShape::Scalar()});
  CHECK(testing::ShapesString(shapes) == "[2,?,?,5][][]");
  CHECK_THAT(InferShape(resize, {K({2, 3, 4, 5}), K({2}), K({1}),
                                 PartialShape::Scalar()})
                 .status(),
             StatusIs(absl::StatusCode::kInvalidArgument, "node 'resize'"));
}

// Values that differ between images, so that an image computed from
// another's rows shows.
Tensor Ramp(std::initializer_list<int64_t> dims, float start) {
  Tensor t(DT_FLOAT, TensorShape(dims));
  for (int64_t i = 0; i < t.NumElements(); ++i) {
    t.data<float>()[i] = start + 0.25f * static_cast<float>(i % 37);
  }
  return t;
}

TEST_CASE(
    "The fused pad and resize convolutions compute every image of a batch "
    "from its own rows (TensorFlow's reuse the first image's)",
    "[conv3]") {
  for (bool resize : {false, true}) {
    INFO((resize ? "FusedResizeAndPadConv2D" : "FusedPadConv2D"));
    TestNodeBuilder b("fused",
                      resize ? "FusedResizeAndPadConv2D" : "FusedPadConv2D",
                      resize ? 4 : 3);
    b.Attr("T", DT_FLOAT)
        .Attr("mode", "REFLECT")
        .Attr("strides", std::vector<int64_t>{1, 1, 1, 1})
        .Attr("padding", "VALID");
    const NodeDef node = b.Build();
    Tensor paddings(DT_INT32, TensorShape({4, 2}));
    const int32_t pads[] = {0, 0, 1, 1, 2, 1, 0, 0};
    std::copy(pads, pads + 8, paddings.data<int32_t>());
    const Tensor filter = Ramp({2, 3, 2, 3}, -1.0f);
    auto run = [&](const Tensor& images) {
      std::vector<Tensor> in = {images};
      if (resize) in.push_back(Tensor::FromVector<int32_t>({6, 7}));
      in.push_back(paddings);
      in.push_back(filter);
      absl::StatusOr<std::vector<Tensor>> out = RunKernel(node, in);
      REQUIRE(out.ok());
      return (*out)[0];
    };
    const Tensor both = Ramp({2, 4, 5, 2}, 0.5f);
    const Tensor second = both.Slice(1, 2);
    const Tensor together = run(both);
    const Tensor alone = run(second);
    const int64_t n = alone.NumElements();
    REQUIRE(together.NumElements() == 2 * n);
    int64_t differ = 0;
    for (int64_t i = 0; i < n; ++i) {
      differ += together.data<float>()[n + i] != alone.data<float>()[i];
    }
    CHECK(differ == 0);
  }
}

}  // namespace
}  // namespace dfx
