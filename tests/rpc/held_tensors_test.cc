// HeldTensors: the one table of tensors held for peers (chunks and bulk).
#include "rpc/held_tensors.h"

#include <cstring>

#include "catch2/catch.hpp"
#include "tests/testing/status_matchers.h"

namespace dfx {
namespace {

using ::dfx::testing::StatusIs;

Tensor Floats(int64_t n) {
  Tensor t(DT_FLOAT, TensorShape({n}));
  for (int64_t i = 0; i < n; ++i) t.data<float>()[i] = static_cast<float>(i);
  return t;
}

TEST_CASE("a held tensor is served by range and let go once every byte was "
          "served, each range counted once") {
  HeldTensors held;
  int served_calls = 0;
  const Tensor t = Floats(4);  // 16 bytes
  const uint64_t h =
      held.Hold(7, "k", t, /*served_prefix=*/0, [&] { ++served_calls; });
  CHECK(h != 0);
  CHECK(h < (uint64_t{1} << 63));
  auto got = held.Lookup(h, 0, 8);
  REQUIRE_OK(got.status());
  // Shares the buffer.
  CHECK(got->raw_data() == t.raw_data());
  held.MarkServed(h, 0, 8);
  held.MarkServed(h, 0, 8);  // the same range again counts once
  CHECK(held.size() == 1);
  CHECK(served_calls == 0);
  held.MarkServed(h, 8, 8);
  CHECK(held.size() == 0);
  CHECK(served_calls == 1);
  CHECK_THAT(held.Lookup(h, 0, 8).status(),
             StatusIs(absl::StatusCode::kNotFound, "every byte was served"));
}

TEST_CASE("bytes already sent inline count as served") {
  HeldTensors held;
  const uint64_t h = held.Hold(1, "k", Floats(4), /*served_prefix=*/12);
  held.MarkServed(h, 12, 4);
  CHECK(held.size() == 0);
}

TEST_CASE("a held tensor is found only for its own step and range") {
  HeldTensors held;
  const uint64_t h = held.Hold(3, "edge;0:0", Floats(4));
  CHECK_THAT(held.Lookup(h, 0, 4, /*step_id=*/4).status(),
             StatusIs(absl::StatusCode::kNotFound, "for step 4"));
  REQUIRE_OK(held.Lookup(h, 0, 4, /*step_id=*/3).status());
  CHECK_THAT(held.Lookup(h, 12, 8).status(),
             StatusIs(absl::StatusCode::kOutOfRange, "'edge;0:0'"));
  CHECK_THAT(held.Lookup(h, ~uint64_t{0}, 1).status(),
             StatusIs(absl::StatusCode::kOutOfRange));
}

TEST_CASE("held tensors go with their step, all at once, or one by one") {
  HeldTensors held;
  const uint64_t a = held.Hold(1, "a", Floats(2));
  held.Hold(1, "b", Floats(2));
  const uint64_t c = held.Hold(2, "c", Floats(2));
  held.ReleaseStep(1);
  CHECK(held.size() == 1);
  CHECK_FALSE(held.Lookup(a, 0, 1).ok());
  held.Release(c);
  CHECK(held.size() == 0);
  held.Hold(5, "d", Floats(2));
  held.ReleaseAll();
  CHECK(held.size() == 0);
}

TEST_CASE("a held tensor nobody asks for within its time to live goes") {
  HeldTensors held(HeldTensors::Options{absl::ZeroDuration()});
  const uint64_t h = held.Hold(1, "k", Floats(2));
  CHECK_THAT(held.Lookup(h, 0, 4).status(),
             StatusIs(absl::StatusCode::kNotFound, "not asked for within"));
  CHECK(held.size() == 0);
}

}  // namespace
}  // namespace dfx
