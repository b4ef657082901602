// Split, SplitV, Unpack, Size and Rank kernels.
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "catch2/catch.hpp"
#include "tests/kernels/array_index_test_util.h"
#include "tests/kernels/kernel_test_util.h"
#include "tests/testing/status_matchers.h"

namespace dfx {
namespace {

using testing::Dims;
using testing::I32;
using testing::I64;
using testing::Iota;
using testing::RunKernel;
using testing::StatusIs;
using testing::TestNodeBuilder;
using testing::Unravel;
using testing::Values;

// Checks that `pieces` are `x` (an iota of `dims`) cut along `axis` into
// pieces of `sizes`, with the axis removed when `squeeze`.
void CheckPieces(const std::vector<Tensor>& pieces,
                 const std::vector<int64_t>& dims, int axis,
                 const std::vector<int64_t>& sizes, bool squeeze = false) {
  REQUIRE(pieces.size() == sizes.size());
  int64_t start = 0;
  for (size_t i = 0; i < pieces.size(); ++i) {
    INFO("piece " << i);
    std::vector<int64_t> want_dims = dims;
    want_dims[axis] = sizes[i];
    std::vector<int64_t> shown = want_dims;
    if (squeeze) shown.erase(shown.begin() + axis);
    REQUIRE(Dims(pieces[i]) == shown);
    const std::vector<float> got = Values<float>(pieces[i]);
    for (size_t k = 0; k < got.size(); ++k) {
      std::vector<int64_t> idx = Unravel(static_cast<int64_t>(k), want_dims);
      idx[axis] += start;
      REQUIRE(got[k] == static_cast<float>(testing::Ravel(idx, dims)));
    }
    start += sizes[i];
  }
}

NodeDef SplitNode(int n, DataType t = DT_FLOAT) {
  return TestNodeBuilder("split", "Split", 2)
      .Attr("T", t)
      .Attr("num_split", n)
      .Build();
}

NodeDef SplitVNode(int n, DataType tlen = DT_INT64, DataType t = DT_FLOAT) {
  return TestNodeBuilder("splitv", "SplitV", 3)
      .Attr("T", t)
      .Attr("Tlen", tlen)
      .Attr("num_split", n)
      .Build();
}

TEST_CASE("Split cuts evenly along any axis, negative ones too") {
  std::mt19937 rng(31);
  for (int trial = 0; trial < 300; ++trial) {
    const int rank = 1 + static_cast<int>(rng() % 4);
    const int axis = static_cast<int>(rng() % rank);
    const int n = 1 + static_cast<int>(rng() % 3);
    std::vector<int64_t> dims(rank);
    for (auto& d : dims) d = rng() % 4;
    dims[axis] = n * (rng() % 3);
    const int32_t axis_arg = trial % 2 ? axis - rank : axis;
    auto out = RunKernel(
        SplitNode(n), {Tensor::Scalar<int32_t>(axis_arg), Iota<float>(dims)});
    INFO("trial " << trial);
    REQUIRE_OK(out);
    CheckPieces(*out, dims, axis, std::vector<int64_t>(n, dims[axis] / n));
  }
}

TEST_CASE("Split along the first axis outputs views") {
  const Tensor x = Iota<float>({1, 6, 2});
  auto out = RunKernel(SplitNode(3), {Tensor::Scalar<int32_t>(1), x});
  REQUIRE_OK(out);
  for (const Tensor& t : *out) REQUIRE(t.SharesBufferWith(x));
  CheckPieces(*out, {1, 6, 2}, 1, {2, 2, 2});
}

TEST_CASE("Split rejects bad axes and uneven splits") {
  const auto kInvalid = absl::StatusCode::kInvalidArgument;
  const Tensor x = Iota<float>({2, 3});
  REQUIRE_THAT(
      RunKernel(SplitNode(2), {Tensor::Scalar<int32_t>(1), x}).status(),
      StatusIs(kInvalid, "should evenly divide the split dimension"));
  REQUIRE_THAT(
      RunKernel(SplitNode(2), {Tensor::Scalar<int32_t>(-3), x}).status(),
      StatusIs(kInvalid,
               "-input rank(-2) <= split_dim < input rank (2), but "
               "got -3"));
  REQUIRE_THAT(RunKernel(SplitNode(1), {Tensor::Scalar<int32_t>(0),
                                        Tensor::Scalar<float>(1.f)})
                   .status(),
               StatusIs(kInvalid, "but got 0"));
  REQUIRE_THAT(RunKernel(SplitNode(2), {I32({1}), x}).status(),
               StatusIs(kInvalid, "split_dim must be a scalar"));
}

TEST_CASE("SplitV cuts pieces of given sizes, one of them -1") {
  std::mt19937 rng(37);
  for (int trial = 0; trial < 300; ++trial) {
    const int rank = 1 + static_cast<int>(rng() % 3);
    const int axis = static_cast<int>(rng() % rank);
    const int n = 1 + static_cast<int>(rng() % 4);
    std::vector<int64_t> dims(rank), sizes(n);
    for (auto& d : dims) d = rng() % 4;
    int64_t total = 0;
    for (auto& s : sizes) total += (s = rng() % 3);
    dims[axis] = total;
    std::vector<int64_t> arg = sizes;
    if (n > 1 && rng() % 2) arg[rng() % n] = -1;
    const DataType tlen = trial % 3 == 0   ? DT_INT8
                          : trial % 3 == 1 ? DT_INT32
                                           : DT_INT64;
    const Tensor sizes_t = tlen == DT_INT8    ? testing::Ints<int8_t>(arg)
                           : tlen == DT_INT32 ? I32(arg)
                                              : I64(arg);
    auto out = RunKernel(SplitVNode(n, tlen),
                         {Iota<float>(dims), sizes_t,
                          Tensor::Scalar<int32_t>(axis - (trial % 2) * rank)});
    INFO("trial " << trial);
    REQUIRE_OK(out);
    CheckPieces(*out, dims, axis, sizes);
  }
}

TEST_CASE("SplitV rejects sizes that do not add up") {
  const auto kInvalid = absl::StatusCode::kInvalidArgument;
  const Tensor x = Iota<float>({2, 3});
  auto run = [&](int n, std::vector<int64_t> sizes) {
    return RunKernel(SplitVNode(n), {x, I64(sizes), Tensor::Scalar<int32_t>(1)})
        .status();
  };
  REQUIRE_THAT(run(2, {-1, -1}),
               StatusIs(kInvalid, "There can only be one -1 in the input."));
  REQUIRE_THAT(run(2, {-1, 5}), StatusIs(kInvalid, "Determined shape must"));
  REQUIRE_THAT(run(2, {1, 1}), StatusIs(kInvalid, "Determined shape must"));
  REQUIRE_THAT(
      run(2, {-2, 5}),
      StatusIs(kInvalid, "Split size at index 0 must be >= 0. Got: -2"));
  REQUIRE_THAT(run(1, {-1}),
               StatusIs(kInvalid,
                        "If there is only one output, it must have "
                        "the same size as the input"));
  REQUIRE_THAT(run(2, {1, 1, 1}),
               StatusIs(kInvalid, "size of the split_tensor must be 1-D"));
  REQUIRE_OK(run(1, {3}));
}

TEST_CASE("SplitV mixes wide and narrow pieces of large tensors") {
  // Wide pieces are copied one at a time, narrow ones from cached tiles of
  // rows, on several threads for inputs this large.
  const std::vector<int64_t> dims = {40, 3000};
  auto out = RunKernel(SplitVNode(4), {Iota<float>(dims), I64({2000, 3, -1, 1}),
                                       Tensor::Scalar<int32_t>(1)});
  REQUIRE_OK(out);
  CheckPieces(*out, dims, 1, {2000, 3, 996, 1});
  const std::vector<int64_t> tall = {100000, 3};
  auto split =
      RunKernel(SplitNode(3), {Tensor::Scalar<int32_t>(-1), Iota<float>(tall)});
  REQUIRE_OK(split);
  CheckPieces(*split, tall, 1, {1, 1, 1});
}

NodeDef UnpackNode(int num, int axis, DataType t = DT_FLOAT) {
  return TestNodeBuilder("unpack", "Unpack", 1)
      .Attr("T", t)
      .Attr("num", num)
      .Attr("axis", axis)
      .Build();
}

TEST_CASE("Unpack removes the axis") {
  const std::vector<int64_t> dims = {2, 3, 4};
  for (int axis = -3; axis < 3; ++axis) {
    const int a = axis < 0 ? axis + 3 : axis;
    auto out = RunKernel(UnpackNode(static_cast<int>(dims[a]), axis),
                         {Iota<float>(dims)});
    INFO("axis " << axis);
    REQUIRE_OK(out);
    CheckPieces(*out, dims, a, std::vector<int64_t>(dims[a], 1),
                /*squeeze=*/true);
  }
  auto strings =
      RunKernel(UnpackNode(2, 1, DT_STRING), {testing::IotaStrings({2, 2})});
  REQUIRE_OK(strings);
  REQUIRE(Values<std::string>((*strings)[1]) ==
          std::vector<std::string>{"s1", "s3"});
}

TEST_CASE("Unpack rejects a wrong count or axis") {
  const auto kInvalid = absl::StatusCode::kInvalidArgument;
  const Tensor x = Iota<float>({2, 3});
  REQUIRE_THAT(RunKernel(UnpackNode(3, 0), {x}).status(),
               StatusIs(kInvalid, "Input shape axis 0 must equal 3"));
  REQUIRE_THAT(RunKernel(UnpackNode(3, 2), {x}).status(),
               StatusIs(kInvalid, "axis = 2 not in [-2, 2)"));
  REQUIRE_THAT(
      RunKernel(UnpackNode(1, 0), {Tensor::Scalar<float>(1.f)}).status(),
      StatusIs(kInvalid, "axis = 0 not in [0, 0)"));
}

TEST_CASE("Size and Rank read the shape") {
  const Tensor x = Iota<float>({2, 3, 4});
  auto size = RunKernel(TestNodeBuilder("s", "Size", 1)
                            .Attr("T", DT_FLOAT)
                            .Attr("out_type", DT_INT64)
                            .Build(),
                        {x});
  REQUIRE_OK(size);
  REQUIRE((*size)[0].scalar<int64_t>() == 24);
  auto size32 =
      RunKernel(TestNodeBuilder("s", "Size", 1).Attr("T", DT_STRING).Build(),
                {testing::IotaStrings({0, 5})});
  REQUIRE_OK(size32);
  REQUIRE((*size32)[0].scalar<int32_t>() == 0);
  auto rank = RunKernel(
      TestNodeBuilder("r", "Rank", 1).Attr("T", DT_FLOAT).Build(), {x});
  REQUIRE_OK(rank);
  REQUIRE((*rank)[0].scalar<int32_t>() == 3);
}

}  // namespace
}  // namespace dfx
