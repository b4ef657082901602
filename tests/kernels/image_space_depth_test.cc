// DepthToSpace, SpaceToDepth, SpaceToBatchND and BatchToSpaceND: element
// order worked by hand, round trips, and TensorFlow's errors.
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

NodeDef Block(const std::string& op, DataType t, int64_t block,
              const char* format = "NHWC") {
  return TypedNode("s", op, t, 1)
      .Attr("block_size", block)
      .Attr("data_format", format)
      .Build();
}

NodeDef BatchSpace(const std::string& op, DataType t,
                   DataType index = DT_INT32) {
  return TypedNode("b", op, t, 3)
      .Attr("Tblock_shape", index)
      .Attr(op == "SpaceToBatchND" ? "Tpaddings" : "Tcrops", index)
      .Build();
}

std::vector<float> Iota(int n) {
  std::vector<float> v(n);
  for (int i = 0; i < n; ++i) v[i] = static_cast<float>(i);
  return v;
}

TEST_CASE("DepthToSpace and SpaceToDepth move depth blocks to pixels",
          "[image]") {
  const std::vector<float> in = Iota(16);
  const Tensor x = Tensor::FromVector<float>(in, TensorShape({1, 1, 2, 8}));
  const Tensor y = RunOne(Block("DepthToSpace", DT_FLOAT, 2), {x});
  REQUIRE(y.shape() == TensorShape({1, 2, 4, 2}));
  // Output (y, x) holds input pixel x / 2's depths from
  // ((y % 2) * 2 + x % 2) * 2.
  REQUIRE(Values<float>(y) == std::vector<float>{0, 1, 2, 3, 8, 9, 10, 11, 4, 5,
                                                 6, 7, 12, 13, 14, 15});
  const Tensor back = RunOne(Block("SpaceToDepth", DT_FLOAT, 2), {y});
  REQUIRE(back.shape() == x.shape());
  REQUIRE(Values<float>(back) == in);
  // Block 3, strings, two images.
  std::vector<std::string> s;
  for (int i = 0; i < 2 * 9; ++i) s.push_back(std::to_string(i));
  const Tensor st =
      Tensor::FromVector<std::string>(s, TensorShape({2, 1, 1, 9}));
  const Tensor sp = RunOne(Block("DepthToSpace", DT_STRING, 3), {st});
  REQUIRE(sp.shape() == TensorShape({2, 3, 3, 1}));
  REQUIRE(Values<std::string>(sp) == s);
  REQUIRE(Values<std::string>(
              RunOne(Block("SpaceToDepth", DT_STRING, 3), {sp})) == s);
  REQUIRE(RunOne(Block("DepthToSpace", DT_FLOAT, 2),
                 {Tensor(DT_FLOAT, TensorShape({0, 2, 2, 8}))})
              .shape() == TensorShape({0, 4, 4, 2}));
}

TEST_CASE("DepthToSpace and SpaceToDepth reject what TensorFlow's rejects",
          "[image]") {
  REQUIRE_THAT(RunError(Block("DepthToSpace", DT_FLOAT, 2),
                        {Tensor(DT_FLOAT, TensorShape({1, 2, 2, 6}))}),
               StatusIs(absl::StatusCode::kInvalidArgument,
                        "Input depth dimension 6 should be divisible by: 4"));
  REQUIRE_THAT(RunError(Block("DepthToSpace", DT_FLOAT, 2),
                        {Tensor(DT_FLOAT, TensorShape({2, 2, 8}))}),
               StatusIs(absl::StatusCode::kInvalidArgument,
                        "Input rank should be: 4 instead of: 3"));
  REQUIRE_THAT(
      RunError(Block("SpaceToDepth", DT_FLOAT, 2),
               {Tensor(DT_FLOAT, TensorShape({1, 4, 5, 2}))}),
      StatusIs(
          absl::StatusCode::kInvalidArgument,
          "Image width 5 and height 4 should be divisible by block_size: 2"));
  REQUIRE_THAT(RunError(Block("SpaceToDepth", DT_FLOAT, 2),
                        {Tensor(DT_FLOAT, TensorShape({4, 4, 2}))}),
               StatusIs(absl::StatusCode::kInvalidArgument,
                        "Input rank should be 4 instead of 3"));
  // TensorFlow has no CPU kernel for the other layouts.
  REQUIRE_THAT(RunError(Block("DepthToSpace", DT_FLOAT, 2, "NCHW"),
                        {Tensor(DT_FLOAT, TensorShape({1, 8, 2, 2}))}),
               StatusIs(absl::StatusCode::kNotFound, "data_format NCHW"));
  REQUIRE_THAT(RunError(Block("SpaceToDepth", DT_FLOAT, 2, "NCHW_VECT_C"),
                        {Tensor(DT_FLOAT, TensorShape({1, 1, 4, 4, 4}))}),
               StatusIs(absl::StatusCode::kNotFound, "NCHW_VECT_C"));
}

TEST_CASE("SpaceToBatchND pads and interleaves, BatchToSpaceND undoes it",
          "[image]") {
  const Tensor x = MakeTensor<float>({1, 2, 3, 4}, TensorShape({1, 2, 2, 1}));
  const Tensor pads0 = MakeTensor<int32_t>({0, 0, 0, 0}, TensorShape({2, 2}));
  const Tensor b = RunOne(BatchSpace("SpaceToBatchND", DT_FLOAT),
                          {x, MakeVector<int32_t>({2, 2}), pads0});
  REQUIRE(b.shape() == TensorShape({4, 1, 1, 1}));
  REQUIRE(Values<float>(b) == std::vector<float>{1, 2, 3, 4});
  // One block dim padded by 1 each side: [0 1 2 0] split by offset.
  const Tensor v = MakeTensor<int64_t>({1, 2}, TensorShape({1, 2, 1}));
  const Tensor padded =
      RunOne(BatchSpace("SpaceToBatchND", DT_INT64, DT_INT64),
             {v, MakeVector<int64_t>({2}),
              MakeTensor<int64_t>({1, 1}, TensorShape({1, 2}))});
  REQUIRE(padded.shape() == TensorShape({2, 2, 1}));
  REQUIRE(Values<int64_t>(padded) == std::vector<int64_t>{0, 2, 1, 0});
  const Tensor back =
      RunOne(BatchSpace("BatchToSpaceND", DT_INT64, DT_INT64),
             {padded, MakeVector<int64_t>({2}),
              MakeTensor<int64_t>({1, 1}, TensorShape({1, 2}))});
  REQUIRE(back.shape() == TensorShape({1, 2, 1}));
  REQUIRE(Values<int64_t>(back) == std::vector<int64_t>{1, 2});
  // A round trip over two block dims with a trailing dim and two images.
  const std::vector<float> in = Iota(2 * 3 * 4 * 2);
  const Tensor img = Tensor::FromVector<float>(in, TensorShape({2, 3, 4, 2}));
  const Tensor pads = MakeTensor<int32_t>({1, 2, 0, 2}, TensorShape({2, 2}));
  const Tensor s = RunOne(BatchSpace("SpaceToBatchND", DT_FLOAT),
                          {img, MakeVector<int32_t>({3, 2}), pads});
  REQUIRE(s.shape() == TensorShape({12, 2, 3, 2}));
  const Tensor r = RunOne(BatchSpace("BatchToSpaceND", DT_FLOAT),
                          {s, MakeVector<int32_t>({3, 2}), pads});
  REQUIRE(r.shape() == img.shape());
  REQUIRE(Values<float>(r) == in);
  // No block dims: the input unchanged.
  const Tensor none = RunOne(BatchSpace("SpaceToBatchND", DT_FLOAT),
                             {x, Tensor(DT_INT32, TensorShape({0})),
                              Tensor(DT_INT32, TensorShape({0, 2}))});
  REQUIRE(Values<float>(none) == std::vector<float>{1, 2, 3, 4});
}

TEST_CASE("SpaceToBatchND and BatchToSpaceND reject what TensorFlow's rejects",
          "[image]") {
  const Tensor x(DT_FLOAT, TensorShape({1, 4, 4, 1}));
  const Tensor zero_pads =
      MakeTensor<int32_t>({0, 0, 0, 0}, TensorShape({2, 2}));
  const NodeDef s2b = BatchSpace("SpaceToBatchND", DT_FLOAT);
  const NodeDef b2s = BatchSpace("BatchToSpaceND", DT_FLOAT);
  REQUIRE_THAT(RunError(s2b, {x, MakeVector<int32_t>({2, 3}), zero_pads}),
               StatusIs(absl::StatusCode::kInvalidArgument,
                        "padded_shape[1]=4 is not divisible by "
                        "block_shape[1]=3"));
  REQUIRE_THAT(RunError(s2b, {x, MakeVector<int32_t>({2, 0}), zero_pads}),
               StatusIs(absl::StatusCode::kInvalidArgument,
                        "All values in block_shape must be positive, got "
                        "value, 0 at index 1."));
  REQUIRE_THAT(
      RunError(s2b, {x, MakeVector<int32_t>({2, 2}),
                     MakeTensor<int32_t>({0, -1, 0, 1}, TensorShape({2, 2}))}),
      StatusIs(absl::StatusCode::kInvalidArgument,
               "Paddings must be non-negative"));
  REQUIRE_THAT(
      RunError(s2b, {x, MakeVector<int32_t>({2, 2}),
                     MakeTensor<int32_t>({0, 0}, TensorShape({1, 2}))}),
      StatusIs(absl::StatusCode::kInvalidArgument,
               "paddings should have shape [2, 2] instead of [1,2]"));
  REQUIRE_THAT(
      RunError(s2b, {x, MakeTensor<int32_t>({2, 2}, TensorShape({1, 2})),
                     zero_pads}),
      StatusIs(absl::StatusCode::kInvalidArgument,
               "block_shape rank should be 1 instead of 2"));
  REQUIRE_THAT(RunError(s2b, {Tensor(DT_FLOAT, TensorShape({2})),
                              MakeVector<int32_t>({2, 2}), zero_pads}),
               StatusIs(absl::StatusCode::kInvalidArgument,
                        "input rank should be >= 3 instead of 1"));
  REQUIRE_THAT(RunError(b2s, {x, MakeVector<int32_t>({2, 2}), zero_pads}),
               StatusIs(absl::StatusCode::kInvalidArgument,
                        "Input batch dimension (1) is not divisible by "
                        "product of block sizes (4)"));
  const Tensor x4(DT_FLOAT, TensorShape({4, 2, 2, 1}));
  REQUIRE_THAT(
      RunError(b2s, {x4, MakeVector<int32_t>({2, 2}),
                     MakeTensor<int32_t>({0, -1, 0, 0}, TensorShape({2, 2}))}),
      StatusIs(absl::StatusCode::kInvalidArgument,
               "Crops must be non-negative"));
  REQUIRE_THAT(
      RunError(b2s, {x4, MakeVector<int32_t>({2, 2}),
                     MakeTensor<int32_t>({3, 2, 0, 0}, TensorShape({2, 2}))}),
      StatusIs(absl::StatusCode::kInvalidArgument,
               "cropped_shape[0]=-1 must be non-negative"));
  REQUIRE_THAT(RunError(b2s, {x4, MakeVector<int32_t>({2, 0}), zero_pads}),
               StatusIs(absl::StatusCode::kInvalidArgument,
                        "Product of block sizes must be positive, got 0"));
  // Negative block sizes with a positive product fail on the cropped size.
  REQUIRE_THAT(RunError(b2s, {x4, MakeVector<int32_t>({-2, -2}), zero_pads}),
               StatusIs(absl::StatusCode::kInvalidArgument,
                        "cropped_shape[0]=-4 must be non-negative"));
}

TEST_CASE("Space and depth sizes that overflow fail without crashing",
          "[image]") {
  const Tensor x(DT_FLOAT, TensorShape({1, 2, 2, 4}));
  REQUIRE_THAT(RunError(Block("DepthToSpace", DT_FLOAT, int64_t{1} << 40), {x}),
               StatusIs(absl::StatusCode::kInvalidArgument, "overflows"));
  REQUIRE_THAT(RunError(Block("SpaceToDepth", DT_FLOAT, int64_t{1} << 40), {x}),
               StatusIs(absl::StatusCode::kInvalidArgument));
  const int64_t huge = int64_t{1} << 62;
  REQUIRE_THAT(
      RunError(BatchSpace("SpaceToBatchND", DT_FLOAT, DT_INT64),
               {x, MakeVector<int64_t>({2, 2}),
                MakeTensor<int64_t>({huge, huge, 0, 0}, TensorShape({2, 2}))}),
      StatusIs(absl::StatusCode::kInvalidArgument, "overflows"));
  REQUIRE_THAT(
      RunError(BatchSpace("SpaceToBatchND", DT_FLOAT, DT_INT64),
               {x, MakeVector<int64_t>({huge, huge}),
                MakeTensor<int64_t>({0, 0, 0, 0}, TensorShape({2, 2}))}),
      StatusIs(absl::StatusCode::kInvalidArgument, "overflows"));
  REQUIRE_THAT(
      RunError(BatchSpace("BatchToSpaceND", DT_FLOAT, DT_INT64),
               {x, MakeVector<int64_t>({huge, huge}),
                MakeTensor<int64_t>({0, 0, 0, 0}, TensorShape({2, 2}))}),
      StatusIs(absl::StatusCode::kInvalidArgument, "overflows"));
}

}  // namespace
}  // namespace dfx
