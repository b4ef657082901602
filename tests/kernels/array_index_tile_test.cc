// Tile, BroadcastTo and ReverseV2 kernels, against explicit loops.
#include <complex>
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

NodeDef TileNode(DataType t, DataType tm = DT_INT32) {
  return TestNodeBuilder("tile", "Tile", 2)
      .Attr("T", t)
      .Attr("Tmultiples", tm)
      .Build();
}

TEST_CASE("Tile matches an explicit loop") {
  std::mt19937 rng(21);
  for (int trial = 0; trial < 500; ++trial) {
    const int rank = static_cast<int>(rng() % 5);
    std::vector<int64_t> dims(rank), mult(rank), out_dims(rank);
    for (int d = 0; d < rank; ++d) {
      dims[d] = rng() % 4;
      mult[d] = rng() % 4;
      out_dims[d] = dims[d] * mult[d];
    }
    const DataType tm = trial % 2 ? DT_INT64 : DT_INT32;
    auto out = RunKernel(
        TileNode(DT_INT32, tm),
        {Iota<int32_t>(dims), tm == DT_INT64 ? I64(mult) : I32(mult)});
    INFO("trial " << trial);
    REQUIRE_OK(out);
    REQUIRE(Dims((*out)[0]) == out_dims);
    const std::vector<int32_t> got = Values<int32_t>((*out)[0]);
    for (size_t k = 0; k < got.size(); ++k) {
      std::vector<int64_t> idx = Unravel(static_cast<int64_t>(k), out_dims);
      for (int d = 0; d < rank; ++d) idx[d] %= dims[d];
      REQUIRE(got[k] == testing::Ravel(idx, dims));
    }
  }
}

TEST_CASE("Tile of a large tensor and of strings") {
  auto big =
      RunKernel(TileNode(DT_FLOAT), {Iota<float>({3, 7}), I32({2000, 3})});
  REQUIRE_OK(big);
  const std::vector<float> v = Values<float>((*big)[0]);
  REQUIRE(v.size() == 6000u * 21u);
  for (size_t k = 0; k < v.size(); ++k) {
    const int64_t row = static_cast<int64_t>(k) / 21 % 3;
    const int64_t col = static_cast<int64_t>(k) % 21 % 7;
    REQUIRE(v[k] == static_cast<float>(row * 7 + col));
  }
  auto s =
      RunKernel(TileNode(DT_STRING), {testing::IotaStrings({2}), I32({2})});
  REQUIRE_OK(s);
  REQUIRE(Values<std::string>((*s)[0]) ==
          std::vector<std::string>{"s0", "s1", "s0", "s1"});
}

TEST_CASE("Tile by ones returns its input, bad multiples are rejected") {
  const auto kInvalid = absl::StatusCode::kInvalidArgument;
  const Tensor x = Iota<float>({2, 3});
  auto same = RunKernel(TileNode(DT_FLOAT), {x, I32({1, 1})});
  REQUIRE_OK(same);
  REQUIRE((*same)[0].SharesBufferWith(x));
  REQUIRE_THAT(RunKernel(TileNode(DT_FLOAT), {x, I32({1, -1})}).status(),
               StatusIs(kInvalid, "Expected multiples[1] >= 0, but got -1"));
  REQUIRE_THAT(RunKernel(TileNode(DT_FLOAT), {x, I32({1})}).status(),
               StatusIs(kInvalid, "vector of length 2 but got length 1"));
  REQUIRE_THAT(
      RunKernel(TileNode(DT_FLOAT), {x, I64({int64_t{1} << 40, 1 << 30})})
          .status(),
      StatusIs(kInvalid));
}

NodeDef BroadcastNode(DataType t, DataType tidx = DT_INT32) {
  return TestNodeBuilder("b", "BroadcastTo", 2)
      .Attr("T", t)
      .Attr("Tidx", tidx)
      .Build();
}

TEST_CASE("BroadcastTo matches an explicit loop") {
  std::mt19937 rng(23);
  for (int trial = 0; trial < 500; ++trial) {
    const int out_rank = static_cast<int>(rng() % 5);
    const int in_rank =
        out_rank == 0 ? 0 : static_cast<int>(rng() % (out_rank + 1));
    std::vector<int64_t> out_dims(out_rank), in_dims(in_rank);
    for (auto& d : out_dims) d = rng() % 4;
    for (int i = 0; i < in_rank; ++i) {
      in_dims[i] = rng() % 2 ? out_dims[out_rank - in_rank + i] : 1;
    }
    auto out = RunKernel(BroadcastNode(DT_DOUBLE),
                         {Iota<double>(in_dims), I32(out_dims)});
    INFO("trial " << trial);
    REQUIRE_OK(out);
    REQUIRE(Dims((*out)[0]) == out_dims);
    const std::vector<double> got = Values<double>((*out)[0]);
    for (size_t k = 0; k < got.size(); ++k) {
      const std::vector<int64_t> o = Unravel(static_cast<int64_t>(k), out_dims);
      std::vector<int64_t> idx(in_rank);
      for (int i = 0; i < in_rank; ++i) {
        idx[i] = in_dims[i] == 1 ? 0 : o[out_rank - in_rank + i];
      }
      REQUIRE(got[k] == static_cast<double>(testing::Ravel(idx, in_dims)));
    }
  }
}

TEST_CASE("BroadcastTo rejects shapes that do not broadcast") {
  const auto kInvalid = absl::StatusCode::kInvalidArgument;
  const Tensor x = Iota<float>({2, 3});
  REQUIRE_THAT(RunKernel(BroadcastNode(DT_FLOAT), {x, I32({2, 2})}).status(),
               StatusIs(kInvalid, "Incompatible shapes: [2,3] vs. [2,2]"));
  REQUIRE_THAT(RunKernel(BroadcastNode(DT_FLOAT), {x, I32({3})}).status(),
               StatusIs(kInvalid,
                        "Rank of input (2) must be no greater than "
                        "rank of output shape (1)"));
  REQUIRE_THAT(RunKernel(BroadcastNode(DT_FLOAT), {x, I32({-1, 3})}).status(),
               StatusIs(kInvalid));
  auto same = RunKernel(BroadcastNode(DT_FLOAT, DT_INT64), {x, I64({2, 3})});
  REQUIRE_OK(same);
  REQUIRE((*same)[0].SharesBufferWith(x));
}

NodeDef ReverseNode(DataType t, DataType tidx = DT_INT32) {
  return TestNodeBuilder("r", "ReverseV2", 2)
      .Attr("T", t)
      .Attr("Tidx", tidx)
      .Build();
}

TEST_CASE("ReverseV2 matches an explicit loop") {
  std::mt19937 rng(29);
  for (int trial = 0; trial < 500; ++trial) {
    const int rank = 1 + static_cast<int>(rng() % 4);
    std::vector<int64_t> dims(rank), axes;
    std::vector<bool> rev(rank, false);
    for (int d = 0; d < rank; ++d) {
      dims[d] = 1 + rng() % 4;
      if (rng() % 2) {
        rev[d] = true;
        axes.push_back(rng() % 2 ? d : d - rank);
      }
    }
    auto out =
        RunKernel(ReverseNode(DT_UINT8), {Iota<uint8_t>(dims), I32(axes)});
    INFO("trial " << trial);
    REQUIRE_OK(out);
    const std::vector<uint8_t> got = Values<uint8_t>((*out)[0]);
    for (size_t k = 0; k < got.size(); ++k) {
      std::vector<int64_t> idx = Unravel(static_cast<int64_t>(k), dims);
      for (int d = 0; d < rank; ++d) {
        if (rev[d]) idx[d] = dims[d] - 1 - idx[d];
      }
      REQUIRE(got[k] == static_cast<uint8_t>(testing::Ravel(idx, dims)));
    }
  }
}

TEST_CASE("ReverseV2 of strings, complex and large tensors") {
  auto s =
      RunKernel(ReverseNode(DT_STRING), {testing::IotaStrings({3}), I32({0})});
  REQUIRE_OK(s);
  REQUIRE(Values<std::string>((*s)[0]) ==
          std::vector<std::string>{"s2", "s1", "s0"});
  auto c = RunKernel(ReverseNode(DT_COMPLEX64, DT_INT64),
                     {Iota<std::complex<float>>({2, 2}), I64({-1})});
  REQUIRE_OK(c);
  REQUIRE(Values<std::complex<float>>((*c)[0]) ==
          std::vector<std::complex<float>>{1, 0, 3, 2});
  auto big = RunKernel(ReverseNode(DT_INT64),
                       {Iota<int64_t>({500, 200}), I32({0, 1})});
  REQUIRE_OK(big);
  const std::vector<int64_t> v = Values<int64_t>((*big)[0]);
  for (size_t k = 0; k < v.size(); ++k) {
    REQUIRE(v[k] == static_cast<int64_t>(v.size() - 1 - k));
  }
}

TEST_CASE("ReverseV2 rejects bad axes and passes scalars through") {
  const auto kInvalid = absl::StatusCode::kInvalidArgument;
  const Tensor x = Iota<float>({2, 3});
  REQUIRE_THAT(RunKernel(ReverseNode(DT_FLOAT), {x, I32({1, -1})}).status(),
               StatusIs(kInvalid, "axis 1 specified more than once"));
  REQUIRE_THAT(RunKernel(ReverseNode(DT_FLOAT), {x, I32({2})}).status(),
               StatusIs(kInvalid, "'axis'[0] = 2 is out of valid range"));
  auto scalar =
      RunKernel(ReverseNode(DT_FLOAT), {Tensor::Scalar<float>(1.f), I32({5})});
  REQUIRE_OK(scalar);
}

}  // namespace
}  // namespace dfx
