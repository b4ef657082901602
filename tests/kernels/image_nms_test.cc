// NonMaxSuppressionV3, V4 and V5: greedy selection, padding, soft-NMS
// rescoring, worked by hand, and TensorFlow's errors.
#include <cmath>
#include <cstdint>
#include <vector>

#include "catch2/catch.hpp"
#include "tests/kernels/math_test_util.h"

namespace dfx {
namespace {

using testing::MakeTensor;
using testing::MakeVector;
using testing::RunKernel;
using testing::StatusIs;
using testing::TestNodeBuilder;
using testing::Values;

NodeDef Nms(int version, bool pad = false) {
  TestNodeBuilder b("n", "NonMaxSuppressionV" + std::to_string(version),
                    version == 5 ? 6 : 5);
  b.Attr("T", DT_FLOAT);
  if (version < 5) b.Attr("T_threshold", DT_FLOAT);
  if (version > 3) b.Attr("pad_to_max_output_size", pad);
  return b.Build();
}

// Box 1 overlaps box 0 by IoU 0.9 / 1.1; boxes 2 and 3 overlap nothing.
const Tensor kBoxes = MakeTensor<float>(
    {0, 0, 1, 1, 0, 0.1f, 1, 1.1f, 0, 10, 1, 11, 0, 100, 1, 101},
    TensorShape({4, 4}));
const Tensor kScores = MakeVector<float>({0.9f, 0.75f, 0.95f, 0.3f});

// V3 and V4 take no sigma.
constexpr float kNoSigma = -1000;

std::vector<Tensor> Inputs(int32_t max_size, float iou, float score,
                           float sigma = kNoSigma) {
  std::vector<Tensor> in = {kBoxes, kScores, Tensor::Scalar<int32_t>(max_size),
                            Tensor::Scalar<float>(iou),
                            Tensor::Scalar<float>(score)};
  if (sigma != kNoSigma) in.push_back(Tensor::Scalar<float>(sigma));
  return in;
}

TEST_CASE("NonMaxSuppression selects greedily by score", "[image]") {
  auto run = [](const NodeDef& n, const std::vector<Tensor>& in) {
    absl::StatusOr<std::vector<Tensor>> out = RunKernel(n, in);
    REQUIRE_OK(out);
    return *out;
  };
  REQUIRE(Values<int32_t>(run(Nms(3), Inputs(10, 0.5f, -INFINITY))[0]) ==
          std::vector<int32_t>{2, 0, 3});
  REQUIRE(Values<int32_t>(run(Nms(3), Inputs(2, 0.5f, -INFINITY))[0]) ==
          std::vector<int32_t>{2, 0});
  REQUIRE(Values<int32_t>(run(Nms(3), Inputs(10, 0.5f, 0.5f))[0]) ==
          std::vector<int32_t>{2, 0});
  // An IoU threshold of 0.9 keeps box 1.
  REQUIRE(Values<int32_t>(run(Nms(3), Inputs(10, 0.9f, -INFINITY))[0]) ==
          std::vector<int32_t>{2, 0, 1, 3});
  const std::vector<Tensor> padded = run(Nms(4, true), Inputs(5, 0.5f, 0));
  REQUIRE(Values<int32_t>(padded[0]) == std::vector<int32_t>{2, 0, 3, 0, 0});
  REQUIRE(padded[1].scalar<int32_t>() == 3);
  const std::vector<Tensor> unpadded = run(Nms(4), Inputs(5, 0.5f, 0));
  REQUIRE(Values<int32_t>(unpadded[0]) == std::vector<int32_t>{2, 0, 3});
  REQUIRE(unpadded[1].scalar<int32_t>() == 3);
}

TEST_CASE("NonMaxSuppressionV5 rescores overlapping boxes with soft-NMS",
          "[image]") {
  absl::StatusOr<std::vector<Tensor>> out =
      RunKernel(Nms(5), Inputs(10, 0.5f, 0, 0.5f));
  REQUIRE_OK(out);
  // Box 1's score decays by exp(-0.5 * iou^2 / sigma) after box 0 is
  // selected, which still ranks it above box 3.
  REQUIRE(Values<int32_t>((*out)[0]) == std::vector<int32_t>{2, 0, 1, 3});
  const float iou = 0.9f / 1.1f;
  const std::vector<float> scores = Values<float>((*out)[1]);
  REQUIRE(scores.size() == 4);
  CHECK(scores[0] == 0.95f);
  CHECK(scores[1] == 0.9f);
  CHECK(scores[2] == Approx(0.75f * std::exp(-iou * iou)).epsilon(1e-5));
  CHECK(scores[3] == 0.3f);
  REQUIRE((*out)[2].scalar<int32_t>() == 4);
  // sigma 0 is hard NMS; selected scores are the inputs.
  out = RunKernel(Nms(5, true), Inputs(5, 0.5f, 0, 0));
  REQUIRE_OK(out);
  REQUIRE(Values<int32_t>((*out)[0]) == std::vector<int32_t>{2, 0, 3, 0, 0});
  REQUIRE(Values<float>((*out)[1]) ==
          std::vector<float>{0.95f, 0.9f, 0.3f, 0, 0});
}

TEST_CASE("NonMaxSuppression rejects what TensorFlow's rejects", "[image]") {
  auto error = [](const NodeDef& n, const std::vector<Tensor>& in) {
    absl::StatusOr<std::vector<Tensor>> out = RunKernel(n, in);
    REQUIRE_FALSE(out.ok());
    return out.status();
  };
  using absl::StatusCode::kInvalidArgument;
  REQUIRE_THAT(error(Nms(3), Inputs(10, 1.5f, 0)),
               StatusIs(kInvalidArgument, "iou_threshold must be in [0, 1]"));
  REQUIRE_THAT(error(Nms(4), Inputs(-1, 0.5f, 0)),
               StatusIs(kInvalidArgument, "output size must be non-negative"));
  REQUIRE_THAT(error(Nms(5), Inputs(3, 0.5f, 0, -1)),
               StatusIs(kInvalidArgument, "soft_nms_sigma_val must be >= 0"));
  std::vector<Tensor> in = Inputs(3, 0.5f, 0);
  in[2] = MakeVector<int32_t>({3});
  REQUIRE_THAT(
      error(Nms(3), in),
      StatusIs(kInvalidArgument, "max_output_size must be 0-D, got shape [1]"));
  in = Inputs(3, 0.5f, 0);
  in[0] = Tensor(DT_FLOAT, TensorShape({4, 3}));
  REQUIRE_THAT(error(Nms(3), in),
               StatusIs(kInvalidArgument, "boxes must have 4 columns"));
  in[0] = Tensor(DT_FLOAT, TensorShape({4}));
  REQUIRE_THAT(error(Nms(3), in),
               StatusIs(kInvalidArgument, "boxes must be 2-D[4]"));
  in = Inputs(3, 0.5f, 0);
  in[1] = MakeVector<float>({1, 2});
  REQUIRE_THAT(error(Nms(3), in),
               StatusIs(kInvalidArgument,
                        "scores has incompatible shape (Dimensions must be "
                        "equal, but are 4 and 2)"));
}

}  // namespace
}  // namespace dfx
