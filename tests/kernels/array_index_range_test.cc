// Range and LinSpace kernels.
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "catch2/catch.hpp"
#include "tests/kernels/array_index_test_util.h"
#include "tests/kernels/kernel_test_util.h"
#include "tests/testing/status_matchers.h"

namespace dfx {
namespace {

using testing::RunKernel;
using testing::StatusIs;
using testing::TestNodeBuilder;
using testing::Values;

template <typename T>
absl::StatusOr<std::vector<Tensor>> Range(T start, T limit, T delta) {
  return RunKernel(TestNodeBuilder("range", "Range", 3)
                       .Attr("Tidx", DataTypeToEnum<T>::value)
                       .Build(),
                   {Tensor::Scalar<T>(start), Tensor::Scalar<T>(limit),
                    Tensor::Scalar<T>(delta)});
}

TEST_CASE("Range counts up and down in every supported type") {
  auto i32 = Range<int32_t>(3, 18, 5);
  REQUIRE_OK(i32);
  REQUIRE(Values<int32_t>((*i32)[0]) == std::vector<int32_t>{3, 8, 13});
  auto i64 = Range<int64_t>(5, -4, -3);
  REQUIRE_OK(i64);
  REQUIRE(Values<int64_t>((*i64)[0]) == std::vector<int64_t>{5, 2, -1});
  auto f = Range<float>(0.5f, 2.f, 0.5f);
  REQUIRE_OK(f);
  REQUIRE(Values<float>((*f)[0]) == std::vector<float>{0.5f, 1.f, 1.5f});
  auto d = Range<double>(1.0, 0.0, -0.3);
  REQUIRE_OK(d);
  REQUIRE((*d)[0].NumElements() == 4);
  REQUIRE(Values<double>((*d)[0])[3] == 1.0 + 3 * -0.3);
  auto h =
      Range<Eigen::half>(Eigen::half(0), Eigen::half(1), Eigen::half(0.25));
  REQUIRE_OK(h);
  REQUIRE((*h)[0].NumElements() == 4);
  auto empty = Range<int32_t>(4, 4, 1);
  REQUIRE_OK(empty);
  REQUIRE((*empty)[0].NumElements() == 0);
}

TEST_CASE("Range computes start + i * delta, without overflow on the way") {
  // i * delta overflows int32 although every element fits.
  auto out = Range<int32_t>(std::numeric_limits<int32_t>::min(),
                            std::numeric_limits<int32_t>::max(), 1 << 30);
  REQUIRE_OK(out);
  REQUIRE(Values<int32_t>((*out)[0]) ==
          std::vector<int32_t>{std::numeric_limits<int32_t>::min(), -(1 << 30),
                               0, 1 << 30});
  // Floats are not accumulated: element i is start + i * delta exactly as
  // float arithmetic rounds it.
  auto f = Range<float>(0.3f, 100.f, 0.1f);
  REQUIRE_OK(f);
  const std::vector<float> v = Values<float>((*f)[0]);
  for (size_t i = 0; i < v.size(); ++i) {
    REQUIRE(v[i] == 0.3f + static_cast<float>(i) * 0.1f);
  }
  // A large range fills in parallel.
  auto big = Range<int64_t>(0, 1000000, 3);
  REQUIRE_OK(big);
  const std::vector<int64_t> b = Values<int64_t>((*big)[0]);
  REQUIRE(b.size() == 333334u);
  for (size_t i = 0; i < b.size(); ++i)
    REQUIRE(b[i] == 3 * static_cast<int64_t>(i));
}

TEST_CASE("Range rejects a zero delta and the wrong direction") {
  const auto kInvalid = absl::StatusCode::kInvalidArgument;
  REQUIRE_THAT(Range<int32_t>(0, 5, 0).status(),
               StatusIs(kInvalid, "Requires delta != 0: 0"));
  REQUIRE_THAT(
      Range<int32_t>(5, 0, 1).status(),
      StatusIs(kInvalid, "Requires start <= limit when delta > 0: 5/0"));
  REQUIRE_THAT(Range<float>(0.f, 5.f, -1.f).status(),
               StatusIs(kInvalid, "Requires start >= limit when delta < 0"));
  REQUIRE_THAT(Range<float>(0.f, INFINITY, 1.f).status(),
               StatusIs(kInvalid, "Requires ((limit - start) / delta) <="));
  REQUIRE_THAT(Range<float>(0.f, NAN, 1.f).status(), StatusIs(kInvalid));
  auto matrix = RunKernel(
      TestNodeBuilder("range", "Range", 3).Attr("Tidx", DT_INT32).Build(),
      {Tensor::FromVector<int32_t>({0}, TensorShape({1, 1})),
       Tensor::Scalar<int32_t>(3), Tensor::Scalar<int32_t>(1)});
  REQUIRE_THAT(matrix.status(),
               StatusIs(kInvalid, "start must be a scalar, not shape [1,1]"));
  // TensorFlow's legacy: a vector of one element counts as a scalar.
  auto vec = RunKernel(
      TestNodeBuilder("range", "Range", 3).Attr("Tidx", DT_INT32).Build(),
      {Tensor::FromVector<int32_t>({1}), Tensor::Scalar<int32_t>(3),
       Tensor::Scalar<int32_t>(1)});
  REQUIRE_OK(vec);
  REQUIRE((*vec)[0].NumElements() == 2);
}

template <typename T, typename N>
absl::StatusOr<std::vector<Tensor>> LinSpace(T start, T stop, N num) {
  return RunKernel(TestNodeBuilder("lin", "LinSpace", 3)
                       .Attr("T", DataTypeToEnum<T>::value)
                       .Attr("Tidx", DataTypeToEnum<N>::value)
                       .Build(),
                   {Tensor::Scalar<T>(start), Tensor::Scalar<T>(stop),
                    Tensor::Scalar<N>(num)});
}

TEST_CASE("LinSpace ends exactly at stop") {
  auto f = LinSpace<float, int32_t>(0.f, 1.f, 7);
  REQUIRE_OK(f);
  const std::vector<float> v = Values<float>((*f)[0]);
  REQUIRE(v.size() == 7u);
  const float step = 1.f / 6.f;
  for (int i = 0; i < 6; ++i)
    REQUIRE(v[i] == 0.f + step * static_cast<float>(i));
  REQUIRE(v[6] == 1.f);
  auto d = LinSpace<double, int64_t>(1.0, -1.0, 4);
  REQUIRE_OK(d);
  REQUIRE(Values<double>((*d)[0]).back() == -1.0);
  auto one = LinSpace<float, int32_t>(3.f, 9.f, 1);
  REQUIRE_OK(one);
  REQUIRE(Values<float>((*one)[0]) == std::vector<float>{3.f});
  auto big = LinSpace<double, int64_t>(0.0, 1.0, 100001);
  REQUIRE_OK(big);
  REQUIRE(Values<double>((*big)[0])[50000] == 0.0 + 1e-5 * 50000);
  REQUIRE_THAT(
      (LinSpace<float, int32_t>(0.f, 1.f, 0).status()),
      StatusIs(absl::StatusCode::kInvalidArgument, "Requires num > 0: 0"));
}

}  // namespace
}  // namespace dfx
