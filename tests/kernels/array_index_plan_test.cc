// The planning the slicing and tiling kernels share with their GPU twins
// (kernels/array/index_util.h): what a plan says for Tile, Slice,
// StridedSlice and StridedSliceGrad, and SimplifiedStridedCopy, which a
// device's copy kernel runs in place of the plan's copy.
#include <cstdint>
#include <random>
#include <vector>

#include "catch2/catch.hpp"
#include "kernels/array/index_util.h"
#include "tests/testing/status_matchers.h"

namespace dfx {
namespace {

using array_internal::IndexPlan;
using array_internal::StridedCopySpec;
using testing::StatusIs;

// Runs `spec` element by element: dst[...] = src[...] (the copy's
// definition, as a device kernel reads it).
std::vector<int> Apply(const StridedCopySpec& spec, const std::vector<int>& src,
                       size_t dst_size) {
  std::vector<int> dst(dst_size, -1);
  int64_t total = 1;
  for (int64_t d : spec.dims) total *= d;
  for (int64_t i = 0; i < total; ++i) {
    int64_t rest = i, s = spec.src_offset, t = spec.dst_offset;
    for (int k = static_cast<int>(spec.dims.size()) - 1; k >= 0; --k) {
      const int64_t idx = rest % spec.dims[k];
      rest /= spec.dims[k];
      s += idx * spec.src_strides[k];
      t += idx * spec.dst_strides[k];
    }
    dst[t] = src[s];
  }
  return dst;
}

std::vector<int> Iota(size_t n) {
  std::vector<int> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = static_cast<int>(i);
  return v;
}

TEST_CASE(
    "SimplifiedStridedCopy merges dims and copies what the plan "
    "copies, for tiles and strided slices") {
  std::mt19937 gen(7);
  for (int round = 0; round < 200; ++round) {
    // A tensor of 1..4 dims of sizes 1..4, tiled or strided-sliced.
    const int rank = 1 + static_cast<int>(gen() % 4);
    std::vector<int64_t> dims;
    for (int d = 0; d < rank; ++d) dims.push_back(1 + gen() % 4);
    Tensor input(DT_FLOAT, *TensorShape::Build(dims));
    IndexPlan plan;
    if (round % 2 == 0) {
      std::vector<int32_t> m;
      for (int d = 0; d < rank; ++d)
        m.push_back(static_cast<int32_t>(gen() % 3));
      REQUIRE_OK(array_internal::PlanTile(input, Tensor::FromVector<int32_t>(m),
                                          &plan));
    } else {
      std::vector<int32_t> begin, end, strides;
      for (int d = 0; d < rank; ++d) {
        const int32_t n = static_cast<int32_t>(dims[d]);
        const bool reverse = gen() % 2 == 0;
        begin.push_back(reverse ? n - 1 : 0);
        end.push_back(reverse ? -n - 1 : n);
        strides.push_back(reverse ? -1 - static_cast<int32_t>(gen() % 2)
                                  : 1 + static_cast<int32_t>(gen() % 2));
      }
      REQUIRE_OK(array_internal::PlanStridedSlice(
          input, Tensor::FromVector<int32_t>(begin),
          Tensor::FromVector<int32_t>(end),
          Tensor::FromVector<int32_t>(strides), StridedSliceMasks{}, &plan));
    }
    if (plan.kind != IndexPlan::Kind::kCopy) continue;
    const StridedCopySpec simple =
        array_internal::SimplifiedStridedCopy(plan.copy);
    INFO("round " << round);
    REQUIRE(simple.dims.size() == simple.src_strides.size());
    REQUIRE(simple.dims.size() == simple.dst_strides.size());
    CHECK(simple.dims.size() >= 1);
    CHECK(simple.dims.size() <= plan.copy.dims.size() + 1);
    const std::vector<int> src = Iota(input.NumElements());
    const size_t out = static_cast<size_t>(plan.shape.num_elements());
    CHECK(Apply(simple, src, out) == Apply(plan.copy, src, out));
  }
  // Nothing to copy: one empty dim.
  StridedCopySpec empty;
  empty.dims = {3, 0, 2};
  empty.src_strides = {2, 1, 1};
  empty.dst_strides = {0, 2, 1};
  const StridedCopySpec simple = array_internal::SimplifiedStridedCopy(empty);
  CHECK(simple.dims == std::vector<int64_t>{0});
  CHECK(simple.src_strides.size() == 1);
  CHECK(simple.dst_strides.size() == 1);
}

TEST_CASE(
    "Index plans forward, view rows or copy, and fail with the "
    "kernels' errors") {
  const Tensor x(DT_FLOAT, TensorShape({4, 5, 6}));
  IndexPlan plan;
  REQUIRE_OK(array_internal::PlanTile(x, Tensor::FromVector<int32_t>({1, 1, 1}),
                                      &plan));
  CHECK(plan.kind == IndexPlan::Kind::kForward);
  REQUIRE_OK(array_internal::PlanSlice(
      x, Tensor::FromVector<int64_t>({1, 0, 0}),
      Tensor::FromVector<int64_t>({2, -1, -1}), &plan));
  CHECK(plan.kind == IndexPlan::Kind::kRows);
  CHECK(plan.row_begin == 1);
  CHECK(plan.rows == 2);
  CHECK(plan.shape == TensorShape({2, 5, 6}));
  IndexPlan grad;
  REQUIRE_OK(array_internal::PlanStridedSliceGrad(
      Tensor::FromVector<int32_t>({4, 5, 6}), Tensor::FromVector<int32_t>({1}),
      Tensor::FromVector<int32_t>({3}), Tensor::FromVector<int32_t>({1}),
      Tensor(DT_FLOAT, TensorShape({2, 5, 6})), StridedSliceMasks{}, &grad));
  CHECK(grad.kind == IndexPlan::Kind::kCopy);
  CHECK(grad.zero_first);
  CHECK(grad.shape == TensorShape({4, 5, 6}));
  CHECK_THAT(array_internal::PlanTile(
                 x, Tensor::FromVector<int32_t>({1, -2, 1}), &plan),
             StatusIs(absl::StatusCode::kInvalidArgument,
                      "Expected multiples[1] >= 0, but got -2"));
  CHECK_THAT(
      array_internal::PlanSlice(x, Tensor::FromVector<int32_t>({0, 6, 0}),
                                Tensor::FromVector<int32_t>({1, 1, 1}), &plan),
      StatusIs(absl::StatusCode::kInvalidArgument,
               "Expected begin[1] in [0, 5], but got 6"));
  CHECK_THAT(
      array_internal::PlanStridedSliceGrad(
          Tensor::FromVector<int32_t>({4, 5, 6}),
          Tensor::FromVector<int32_t>({0}), Tensor::FromVector<int32_t>({2}),
          Tensor::FromVector<int32_t>({1}),
          Tensor(DT_FLOAT, TensorShape({3, 5, 6})), StridedSliceMasks{}, &grad),
      StatusIs(absl::StatusCode::kInvalidArgument, "shape of dy was"));
}

}  // namespace
}  // namespace dfx
