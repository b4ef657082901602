// kernels/broadcast.h: output shapes, reduced dims, and ForEachRun over
// arbitrary sub-ranges (as ParallelFor splits them).
#include "kernels/broadcast.h"

#include <cstdint>
#include <vector>

#include "catch2/catch.hpp"
#include "tests/testing/status_matchers.h"

namespace dfx {
namespace {

using testing::StatusIs;

TEST_CASE("Broadcast output shapes and reduction") {
  auto b = Broadcast::Make(TensorShape({2, 3, 4}), TensorShape({4}));
  REQUIRE_OK(b);
  CHECK(b->output_shape() == TensorShape({2, 3, 4}));
  // The two leading dims merge: x is full in both, y broadcast in both.
  CHECK(b->reduced_dims() == Broadcast::Dims{6, 4});
  CHECK(b->reduced_strides(0) == Broadcast::Dims{4, 1});
  CHECK(b->reduced_strides(1) == Broadcast::Dims{0, 1});
  CHECK(b->IsIdentity(0));
  CHECK_FALSE(b->IsIdentity(1));
  CHECK(b->ReducedReshape(1) == Broadcast::Dims{1, 4});
  CHECK(b->ReducedBroadcastFactors(1) == Broadcast::Dims{6, 1});

  auto same = Broadcast::Make(TensorShape({5, 1, 7}), TensorShape({5, 1, 7}));
  REQUIRE_OK(same);
  CHECK(same->reduced_dims() == Broadcast::Dims{35});

  auto scalars = Broadcast::Make(TensorShape(), TensorShape({1, 1}));
  REQUIRE_OK(scalars);
  CHECK(scalars->output_shape() == TensorShape({1, 1}));
  CHECK(scalars->reduced_dims() == Broadcast::Dims{1});

  auto zero = Broadcast::Make(TensorShape({0, 1}), TensorShape({3}));
  REQUIRE_OK(zero);
  CHECK(zero->output_shape() == TensorShape({0, 3}));
  CHECK(zero->num_elements() == 0);
}

TEST_CASE("Broadcast errors list every shape") {
  CHECK_THAT(Broadcast::Make(TensorShape({2, 3}), TensorShape({4})).status(),
             StatusIs(absl::StatusCode::kInvalidArgument,
                      "Incompatible shapes: [2,3] vs. [4]"));
  const TensorShape three[] = {TensorShape({2}), TensorShape({}),
                               TensorShape({3})};
  CHECK_THAT(Broadcast::Make(three).status(),
             StatusIs(absl::StatusCode::kInvalidArgument,
                      "Incompatible shapes: [2] vs. [] vs. [3]"));
  CHECK_THAT(BroadcastShapes(TensorShape({1, 5}), TensorShape({2, 1})).status(),
             testing::IsOk());
}

// Per output element, the input offsets ForEachRun reports, walked over
// [begin, end).
std::vector<std::vector<int64_t>> Walk(const Broadcast& b, int64_t begin,
                                       int64_t end) {
  std::vector<std::vector<int64_t>> seen(b.num_elements());
  b.ForEachRun(begin, end, [&](int64_t off, int64_t len, const int64_t* in,
                               const int64_t* step) {
    for (int64_t i = 0; i < len; ++i) {
      for (int k = 0; k < b.num_inputs(); ++k) {
        seen[off + i].push_back(in[k] + i * step[k]);
      }
    }
  });
  return seen;
}

TEST_CASE("ForEachRun covers any split of the output identically") {
  const TensorShape shapes[] = {TensorShape({3, 1, 4}), TensorShape({2, 1}),
                                TensorShape({1})};
  auto b = Broadcast::Make(shapes);
  REQUIRE_OK(b);
  REQUIRE(b->output_shape() == TensorShape({3, 2, 4}));
  const auto whole = Walk(*b, 0, b->num_elements());
  // Independently: output (i, j, l) reads x[i, 0, l], y[j, 0], z[0].
  for (int i = 0; i < 3; ++i) {
    for (int j = 0; j < 2; ++j) {
      for (int l = 0; l < 4; ++l) {
        const auto& offs = whole[(i * 2 + j) * 4 + l];
        REQUIRE(offs.size() == 3);
        CHECK(offs[0] == i * 4 + l);
        CHECK(offs[1] == j);
        CHECK(offs[2] == 0);
      }
    }
  }
  for (int64_t split = 0; split <= b->num_elements(); ++split) {
    auto left = Walk(*b, 0, split);
    auto right = Walk(*b, split, b->num_elements());
    for (int64_t i = 0; i < b->num_elements(); ++i) {
      const auto& got = i < split ? left[i] : right[i];
      REQUIRE(got == whole[i]);
    }
  }
}

}  // namespace
}  // namespace dfx
