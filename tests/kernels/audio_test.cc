// The audio family (graph/ops/audio_ops.cc, kernels/audio/): TensorFlow
// 2.21's OpDef and CPU kernel types of AudioMicrofrontend, its shape
// function, and the attrs on which TensorFlow's kernel crashes (dfx fails
// with InvalidArgument), which the golden cases cannot show.
#include <cstdint>
#include <string>
#include <vector>

#include "catch2/catch.hpp"
#include "runtime/tensor.h"
#include "tests/kernels/kernel_test_util.h"
#include "tests/kernels/shape_fn_test_util.h"
#include "tests/testing/status_matchers.h"

namespace dfx {
namespace {

using testing::RunKernel;
using testing::StatusIs;
using testing::TestNodeBuilder;

TEST_CASE("AudioMicrofrontend has TensorFlow 2.21's signature and CPU types",
          "[audio]") {
  testing::CheckSignaturesWithTensorFlow("audio", 1);
}

TestNodeBuilder Frontend() {
  return TestNodeBuilder("mf", "AudioMicrofrontend", 1);
}

std::string Shape(const NodeDef& node, PartialShape audio) {
  return testing::ShapesString(testing::InferShapes(node, {std::move(audio)}));
}

Tensor Noise(int64_t n) {
  Tensor t(DT_INT16, TensorShape({n}));
  uint32_t x = 12345;
  for (int64_t i = 0; i < n; ++i) {
    x = x * 1664525u + 1013904223u;
    t.data<int16_t>()[i] = static_cast<int16_t>(x >> 16);
  }
  return t;
}

TEST_CASE(
    "AudioMicrofrontend's shape: frames that fit a window, stacked "
    "channels",
    "[audio]") {
  // 25 ms windows every 10 ms at 16 kHz: (16000 - 400) / 160 + 1 frames.
  CHECK(Shape(Frontend().Build(), PartialShape::Known({16000})) == "[98,32]");
  CHECK(Shape(Frontend().Build(), PartialShape::Known({399})) == "[0,32]");
  CHECK(Shape(Frontend().Build(), PartialShape::Known({-1})) == "[?,32]");
  const NodeDef stacked = Frontend()
                              .Attr("left_context", 1)
                              .Attr("right_context", 2)
                              .Attr("frame_stride", 3)
                              .Attr("num_channels", 20)
                              .Build();
  CHECK(Shape(stacked, PartialShape::Known({16000})) == "[33,80]");
  CHECK_THAT(
      testing::InferShapes(Frontend().Build(), {PartialShape::Known({2, 400})})
          .status(),
      StatusIs(absl::StatusCode::kInvalidArgument));
}

TEST_CASE("AudioMicrofrontend's output matches its shape function", "[audio]") {
  const NodeDef node = Frontend()
                           .Attr("left_context", 1)
                           .Attr("right_context", 2)
                           .Attr("frame_stride", 3)
                           .Attr("num_channels", 20)
                           .Attr("out_type", DT_FLOAT)
                           .Build();
  absl::StatusOr<std::vector<Tensor>> out = RunKernel(node, {Noise(16000)});
  REQUIRE_OK(out.status());
  REQUIRE(out->size() == 1);
  CHECK((*out)[0].dtype() == DT_FLOAT);
  CHECK((*out)[0].shape() == TensorShape({33, 80}));
}

TEST_CASE(
    "AudioMicrofrontend fails with InvalidArgument where TensorFlow's "
    "kernel crashes",
    "[audio]") {
  const Tensor audio = Noise(2000);
  // A division by zero computing the number of frames.
  CHECK_THAT(
      RunKernel(Frontend().Attr("window_step", 0).Build(), {audio}).status(),
      StatusIs(absl::StatusCode::kInvalidArgument, "window_step"));
  CHECK_THAT(
      RunKernel(Frontend().Attr("frame_stride", 0).Build(), {audio}).status(),
      StatusIs(absl::StatusCode::kInvalidArgument, "frame_stride"));
  // Integer division of the uint16 features by zero.
  CHECK_THAT(
      RunKernel(Frontend().Attr("out_scale", 0).Build(), {audio}).status(),
      StatusIs(absl::StatusCode::kInvalidArgument, "out_scale"));
  // A step beyond the window: TensorFlow's window buffer moves a negative
  // length.
  CHECK_THAT(
      RunKernel(Frontend().Attr("window_step", 30).Build(), {audio}).status(),
      StatusIs(absl::StatusCode::kInvalidArgument, "window_step"));
  // A negative output dimension: TensorFlow's TensorShape CHECK-fails.
  CHECK_THAT(
      RunKernel(Frontend().Attr("left_context", -3).Build(), {audio}).status(),
      StatusIs(absl::StatusCode::kInvalidArgument, "left_context"));
  CHECK_THAT(
      RunKernel(Frontend().Attr("num_channels", -1).Build(), {audio}).status(),
      StatusIs(absl::StatusCode::kInvalidArgument, "num_channels"));
  // Shifts by more than 31 bits (undefined in TensorFlow's C).
  CHECK_THAT(RunKernel(Frontend().Attr("smoothing_bits", 40).Build(), {audio})
                 .status(),
             StatusIs(absl::StatusCode::kInvalidArgument, "smoothing_bits"));
  CHECK_THAT(
      RunKernel(
          Frontend().Attr("enable_pcan", true).Attr("gain_bits", 40).Build(),
          {audio})
          .status(),
      StatusIs(absl::StatusCode::kInvalidArgument, "gain_bits"));
  CHECK_THAT(
      RunKernel(Frontend().Attr("scale_shift", -1).Build(), {audio}).status(),
      StatusIs(absl::StatusCode::kInvalidArgument, "scale_shift"));
  CHECK_THAT(
      RunKernel(Frontend().Attr("even_smoothing", -0.5f).Build(), {audio})
          .status(),
      StatusIs(absl::StatusCode::kInvalidArgument, "even_smoothing"));
  // With no frame to compute, a zero step or stride divides nothing, as in
  // TensorFlow: an empty output.
  absl::StatusOr<std::vector<Tensor>> empty = RunKernel(
      Frontend().Attr("window_step", 0).Attr("frame_stride", 0).Build(),
      {Noise(100)});
  REQUIRE_OK(empty.status());
  CHECK((*empty)[0].shape() == TensorShape({0, 32}));
}

}  // namespace
}  // namespace dfx
