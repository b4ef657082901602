// The Philox generator and the distributions of kernels/random/philox.h.
#include <cmath>
#include <cstdint>
#include <vector>

#include "catch2/catch.hpp"
#include "kernels/random/philox.h"

namespace dfx::random {
namespace {

TEST_CASE("Philox4x32-10 gives the known-answer vectors of Random123") {
  Philox zero(PhiloxBlock{0, 0, 0, 0}, PhiloxKey{0, 0});
  CHECK(zero.Next() ==
        PhiloxBlock{0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8});
  Philox ones(PhiloxBlock{0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff},
              PhiloxKey{0xffffffff, 0xffffffff});
  CHECK(ones.Next() ==
        PhiloxBlock{0x408f276d, 0x41c83b0e, 0xa20bc7c6, 0x6d5451fd});
  Philox pi(PhiloxBlock{0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344},
            PhiloxKey{0xa4093822, 0x299f31d0});
  CHECK(pi.Next() ==
        PhiloxBlock{0xd16cfe09, 0x94fdcceb, 0x5001e420, 0x24126ea1});
}

TEST_CASE("Philox seeds put seed in the key and seed2 in the counter") {
  const Philox p(0x1122334455667788ull, 0x99aabbccddeeff00ull);
  CHECK(p.key() == PhiloxKey{0x55667788, 0x11223344});
  CHECK(p.counter() == PhiloxBlock{0, 0, 0xddeeff00, 0x99aabbcc});
  const Philox q = Philox::FromKeyCounter(7, 0x0000000100000002ull, 3);
  CHECK(q.key64() == 7);
  CHECK(q.counter() == PhiloxBlock{2, 1, 3, 0});
  CHECK(q.counter_lo64() == 0x0000000100000002ull);
  CHECK(q.counter_hi64() == 3);
}

TEST_CASE("Philox Skip(n) lands where n calls of Next() do") {
  Philox a(42, 7);
  Philox b = a;
  for (int i = 0; i < 37; ++i) a.Next();
  b.Skip(37);
  CHECK(a.counter() == b.counter());
  CHECK(a.Next() == b.Next());
}

TEST_CASE("Philox counters carry from the low words into the high ones") {
  Philox a(PhiloxBlock{0xffffffff, 0xffffffff, 5, 0}, PhiloxKey{1, 2});
  a.Next();
  CHECK(a.counter() == PhiloxBlock{0, 0, 6, 0});
  Philox b(PhiloxBlock{0xfffffffe, 0xffffffff, 0xffffffff, 0}, PhiloxKey{1, 2});
  b.Skip(3);
  CHECK(b.counter() == PhiloxBlock{1, 0, 0, 1});
  Philox c(PhiloxBlock{0xffffffff, 0, 0, 0}, PhiloxKey{0, 0});
  c.Skip(0x100000001ull);
  CHECK(c.counter() == PhiloxBlock{0, 2, 0, 0});
}

TEST_CASE("PhiloxWords reads words in order and skips like reading") {
  Philox base(3, 4);
  Philox g1 = base;
  const PhiloxBlock b0 = g1.Next();
  const PhiloxBlock b1 = g1.Next();
  const PhiloxBlock b2 = g1.Next();
  std::vector<uint32_t> all(b0.begin(), b0.end());
  all.insert(all.end(), b1.begin(), b1.end());
  all.insert(all.end(), b2.begin(), b2.end());
  for (uint64_t skip : {0, 1, 3, 4, 5, 8, 9}) {
    INFO("skip " << skip);
    Philox g = base;
    PhiloxWords words(&g);
    words.Skip(skip);
    for (uint64_t i = skip; i < all.size(); ++i) CHECK(words() == all[i]);
  }
  // A skip after a partial read.
  Philox g = base;
  PhiloxWords words(&g);
  CHECK(words() == all[0]);
  words.Skip(6);
  CHECK(words() == all[7]);
}

TEST_CASE("Word conversions give values from 0 up to (not including) 1 from mantissa bits") {
  CHECK(Uint32ToFloat(0) == 0.0f);
  CHECK(Uint32ToFloat(0xffffffffu) == 1.0f - std::ldexp(1.0f, -23));
  CHECK(Uint32ToFloat(0x00400000u) == 0.5f);
  CHECK(Uint64ToDouble(0, 0) == 0.0);
  CHECK(Uint64ToDouble(0xffffffffu, 0xffffffffu) == 1.0 - std::ldexp(1.0, -52));
  CHECK(Uint64ToDouble(0x80000u, 0) == 0.5);
  CHECK(static_cast<float>(Uint16ToHalf(0x200)) == 0.5f);
  CHECK(static_cast<float>(Uint16ToHalf(0xffff)) ==
        1.0f - std::ldexp(1.0f, -10));
  CHECK(static_cast<float>(Uint16ToBfloat16(0x40)) == 0.5f);
  CHECK(static_cast<float>(Uint16ToBfloat16(0xff)) ==
        1.0f - std::ldexp(1.0f, -7));
}

TEST_CASE("Box-Muller clamps a zero uniform instead of taking log(0)") {
  float f0;
  float f1;
  BoxMullerFloat(0, 0, &f0, &f1);
  CHECK(std::isfinite(f0));
  CHECK(f1 == std::sqrt(-2.0f * std::log(1.0e-7f)));
  double d0;
  double d1;
  BoxMullerDouble(0, 0, 0, 0, &d0, &d1);
  CHECK(d1 == std::sqrt(-2.0 * std::log(1.0e-7)));
}

TEST_CASE("Uniform ints cover the whole range without overflow") {
  UniformIntDist<int32_t> wide(INT32_MIN, INT32_MAX);
  CHECK(wide.range == 0xffffffffu);
  CHECK(wide.Add(0) == INT32_MIN);
  CHECK(wide.Add(0xfffffffeu) == INT32_MAX - 1);
  UniformIntDist<int64_t> wide64(INT64_MIN, INT64_MAX);
  CHECK(wide64.Add(0xfffffffffffffffeull) == INT64_MAX - 1);
  Philox gen(1, 1);
  UniformIntDist<int32_t> small(-3, 4);
  for (int i = 0; i < 100; ++i) {
    int32_t out[4];
    small(&gen, out);
    for (int32_t v : out) {
      CHECK(v >= -3);
      CHECK(v < 4);
    }
  }
}

TEST_CASE("Truncated normals stay inside (-2, 2)") {
  Philox gen(5, 6);
  PhiloxWords words(&gen);
  TruncatedNormalDist<float> dist;
  for (int i = 0; i < 1000; ++i) {
    float out[4];
    dist(&words, out);
    for (float v : out) CHECK(std::fabs(v) < 2.0f);
  }
}

TEST_CASE("FillGroups gives the same values whatever the split") {
  const int64_t n = 1003;
  const Philox base(11, 12);
  for (int split : {1, 2, 5, 97}) {
    INFO("split " << split);
    std::vector<float> whole(n);
    std::vector<float> parts(n);
    const int64_t groups = (n + 3) / 4;
    FillGroups(base, TruncatedNormalDist<float>(), 0, groups, n, whole.data());
    for (int64_t g = 0; g < groups; g += split) {
      FillGroups(base, TruncatedNormalDist<float>(), g,
                 std::min(groups, g + split), n, parts.data());
    }
    CHECK(whole == parts);
    std::vector<double> w2(n);
    std::vector<double> p2(n);
    const int64_t g2 = (n + 1) / 2;
    FillGroups(base, NormalDist<double>(), 0, g2, n, w2.data());
    for (int64_t g = 0; g < g2; g += split) {
      FillGroups(base, NormalDist<double>(), g, std::min(g2, g + split), n,
                 p2.data());
    }
    CHECK(w2 == p2);
  }
}

}  // namespace
}  // namespace dfx::random
