// Fingerprint64 (FarmHash's 64-bit fingerprint, farmhashna::Hash64),
// FingerprintCat64, SipHash24 and TfHash64: TensorFlow's string, combining,
// keyed and own hashes, which StringToHashBucketFast/Strong and the SparseCross
// ops use, so that hash buckets and crossed feature ids equal TensorFlow's on
// every machine. Written from FarmHash's published algorithm; results are
// checked against TensorFlow's tf.fingerprint in
// tests/kernels/sparse_cross_test.cc and its StringToHashBucketFast in the
// "strings" golden family.
#ifndef DFX_KERNELS_FINGERPRINT_H_
#define DFX_KERNELS_FINGERPRINT_H_

#include <cstdint>
#include <cstring>
#include <utility>

#include "absl/strings/string_view.h"

namespace dfx {
namespace fingerprint_internal {

constexpr uint64_t kK0 = 0xc3a5c85c97cb3127ULL;
constexpr uint64_t kK1 = 0xb492b66fbe98f273ULL;
constexpr uint64_t kK2 = 0x9ae16a3b2f90404fULL;

// Little-endian loads (x86-64: plain loads).
inline uint64_t Fetch64(const char* p) {
  uint64_t v;
  std::memcpy(&v, p, sizeof(v));
  return v;
}
inline uint32_t Fetch32(const char* p) {
  uint32_t v;
  std::memcpy(&v, p, sizeof(v));
  return v;
}
inline uint64_t Rotate(uint64_t v, int shift) {
  return shift == 0 ? v : (v >> shift) | (v << (64 - shift));
}
inline uint64_t ShiftMix(uint64_t v) { return v ^ (v >> 47); }

inline uint64_t HashLen16(uint64_t u, uint64_t v, uint64_t mul) {
  uint64_t a = (u ^ v) * mul;
  a ^= (a >> 47);
  uint64_t b = (v ^ a) * mul;
  b ^= (b >> 47);
  return b * mul;
}

inline uint64_t HashLen0to16(const char* s, size_t len) {
  if (len >= 8) {
    const uint64_t mul = kK2 + len * 2;
    const uint64_t a = Fetch64(s) + kK2;
    const uint64_t b = Fetch64(s + len - 8);
    const uint64_t c = Rotate(b, 37) * mul + a;
    const uint64_t d = (Rotate(a, 25) + b) * mul;
    return HashLen16(c, d, mul);
  }
  if (len >= 4) {
    const uint64_t mul = kK2 + len * 2;
    const uint64_t a = Fetch32(s);
    return HashLen16(len + (a << 3), Fetch32(s + len - 4), mul);
  }
  if (len > 0) {
    const uint8_t a = static_cast<uint8_t>(s[0]);
    const uint8_t b = static_cast<uint8_t>(s[len >> 1]);
    const uint8_t c = static_cast<uint8_t>(s[len - 1]);
    const uint32_t y =
        static_cast<uint32_t>(a) + (static_cast<uint32_t>(b) << 8);
    const uint32_t z =
        static_cast<uint32_t>(len) + (static_cast<uint32_t>(c) << 2);
    return ShiftMix(y * kK2 ^ z * kK0) * kK2;
  }
  return kK2;
}

inline uint64_t HashLen17to32(const char* s, size_t len) {
  const uint64_t mul = kK2 + len * 2;
  const uint64_t a = Fetch64(s) * kK1;
  const uint64_t b = Fetch64(s + 8);
  const uint64_t c = Fetch64(s + len - 8) * mul;
  const uint64_t d = Fetch64(s + len - 16) * kK2;
  return HashLen16(Rotate(a + b, 43) + Rotate(c, 30) + d,
                   a + Rotate(b + kK2, 18) + c, mul);
}

inline uint64_t HashLen33to64(const char* s, size_t len) {
  const uint64_t mul = kK2 + len * 2;
  const uint64_t a = Fetch64(s) * kK2;
  const uint64_t b = Fetch64(s + 8);
  const uint64_t c = Fetch64(s + len - 8) * mul;
  const uint64_t d = Fetch64(s + len - 16) * kK2;
  const uint64_t y = Rotate(a + b, 43) + Rotate(c, 30) + d;
  const uint64_t z = HashLen16(y, a + Rotate(b + kK2, 18) + c, mul);
  const uint64_t e = Fetch64(s + 16) * mul;
  const uint64_t f = Fetch64(s + 24);
  const uint64_t g = (y + Fetch64(s + len - 32)) * mul;
  const uint64_t h = (z + Fetch64(s + len - 24)) * mul;
  return HashLen16(Rotate(e + f, 43) + Rotate(g, 30) + h,
                   e + Rotate(f + a, 18) + g, mul);
}

inline std::pair<uint64_t, uint64_t> WeakHashLen32WithSeeds(
    uint64_t w, uint64_t x, uint64_t y, uint64_t z, uint64_t a, uint64_t b) {
  a += w;
  b = Rotate(b + a + z, 21);
  const uint64_t c = a;
  a += x;
  a += y;
  b += Rotate(a, 44);
  return {a + z, b + c};
}
inline std::pair<uint64_t, uint64_t> WeakHashLen32WithSeeds(const char* s,
                                                            uint64_t a,
                                                            uint64_t b) {
  return WeakHashLen32WithSeeds(Fetch64(s), Fetch64(s + 8), Fetch64(s + 16),
                                Fetch64(s + 24), a, b);
}

}  // namespace fingerprint_internal

// FarmHash's Fingerprint64 of `str`: stable across platforms and versions.
inline uint64_t Fingerprint64(absl::string_view str) {
  using namespace fingerprint_internal;  // NOLINT: the algorithm's helpers
  const char* s = str.data();
  const size_t len = str.size();
  if (len <= 16) return HashLen0to16(s, len);
  if (len <= 32) return HashLen17to32(s, len);
  if (len <= 64) return HashLen33to64(s, len);
  const uint64_t seed = 81;
  uint64_t x = seed;
  uint64_t y = seed * kK1 + 113;
  uint64_t z = ShiftMix(y * kK2 + 113) * kK2;
  std::pair<uint64_t, uint64_t> v = {0, 0};
  std::pair<uint64_t, uint64_t> w = {0, 0};
  x = x * kK2 + Fetch64(s);
  const char* end = s + ((len - 1) / 64) * 64;
  const char* last64 = end + ((len - 1) & 63) - 63;
  do {
    x = Rotate(x + y + v.first + Fetch64(s + 8), 37) * kK1;
    y = Rotate(y + v.second + Fetch64(s + 48), 42) * kK1;
    x ^= w.second;
    y += v.first + Fetch64(s + 40);
    z = Rotate(z + w.first, 33) * kK1;
    v = WeakHashLen32WithSeeds(s, v.second * kK1, x + w.first);
    w = WeakHashLen32WithSeeds(s + 32, z + w.second, y + Fetch64(s + 16));
    std::swap(z, x);
    s += 64;
  } while (s != end);
  const uint64_t mul = kK1 + ((z & 0xff) << 1);
  s = last64;
  w.first += ((len - 1) & 63);
  v.first += w.first;
  w.first += v.first;
  x = Rotate(x + y + v.first + Fetch64(s + 8), 37) * mul;
  y = Rotate(y + v.second + Fetch64(s + 48), 42) * mul;
  x ^= w.second * 9;
  y += v.first * 9 + Fetch64(s + 40);
  z = Rotate(z + w.first, 33) * mul;
  v = WeakHashLen32WithSeeds(s, v.second * mul, x + w.first);
  w = WeakHashLen32WithSeeds(s + 32, z + w.second, y + Fetch64(s + 16));
  std::swap(z, x);
  return HashLen16(HashLen16(v.first, w.first, mul) + ShiftMix(y) * kK0 + z,
                   HashLen16(v.second, w.second, mul) + x, mul);
}

// TensorFlow's FingerprintCat64: combines two fingerprints, order-dependent.
inline uint64_t FingerprintCat64(uint64_t fp1, uint64_t fp2) {
  constexpr uint64_t kMul = 0xc6a4a7935bd1e995ULL;
  uint64_t result = fp1 ^ kMul;
  result ^= fingerprint_internal::ShiftMix(fp2 * kMul) * kMul;
  result *= kMul;
  result = fingerprint_internal::ShiftMix(result) * kMul;
  result = fingerprint_internal::ShiftMix(result);
  return result;
}

// SipHash-2-4 with the 128-bit key (k0, k1): TensorFlow's StrongKeyedHash,
// which StringToHashBucketStrong and SparseCrossHashed's strong_hash use.
inline uint64_t SipHash24(uint64_t k0, uint64_t k1, absl::string_view str) {
  using fingerprint_internal::Fetch64;
  using fingerprint_internal::Rotate;
  const char* s = str.data();
  const size_t n = str.size();
  uint64_t v0 = k0 ^ 0x736f6d6570736575ULL;
  uint64_t v1 = k1 ^ 0x646f72616e646f6dULL;
  uint64_t v2 = k0 ^ 0x6c7967656e657261ULL;
  uint64_t v3 = k1 ^ 0x7465646279746573ULL;
  auto round = [&] {
    v0 += v1;
    v1 = Rotate(v1, 64 - 13);
    v1 ^= v0;
    v0 = Rotate(v0, 64 - 32);
    v2 += v3;
    v3 = Rotate(v3, 64 - 16);
    v3 ^= v2;
    v0 += v3;
    v3 = Rotate(v3, 64 - 21);
    v3 ^= v0;
    v2 += v1;
    v1 = Rotate(v1, 64 - 17);
    v1 ^= v2;
    v2 = Rotate(v2, 64 - 32);
  };
  size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    const uint64_t m = Fetch64(s + i);
    v3 ^= m;
    round();
    round();
    v0 ^= m;
  }
  uint64_t last = static_cast<uint64_t>(n & 0xff) << 56;
  for (size_t k = 0; i + k < n; ++k) {
    last |= static_cast<uint64_t>(static_cast<unsigned char>(s[i + k]))
            << (8 * k);
  }
  v3 ^= last;
  round();
  round();
  v0 ^= last;
  v2 ^= 0xff;
  for (int r = 0; r < 4; ++r) round();
  return v0 ^ v1 ^ v2 ^ v3;
}

// TensorFlow's own Hash64 (a MurmurHash2-64A variant, seed 0xDECAFCAFFE):
// StringToHashBucket's hash and the string-key hash of
// MutableDenseHashTable, whose bucket order LookupTableExport shows.
inline uint64_t TfHash64(absl::string_view str) {
  constexpr uint64_t kMul = 0xc6a4a7935bd1e995ULL;
  constexpr int kShift = 47;
  const char* s = str.data();
  size_t n = str.size();
  uint64_t h = 0xDECAFCAFFEULL ^ (n * kMul);
  while (n >= 8) {
    uint64_t k = fingerprint_internal::Fetch64(s);
    s += 8;
    n -= 8;
    k *= kMul;
    k ^= k >> kShift;
    k *= kMul;
    h ^= k;
    h *= kMul;
  }
  if (n > 0) {
    for (size_t i = n; i-- > 0;) {
      h ^= static_cast<uint64_t>(static_cast<unsigned char>(s[i])) << (8 * i);
    }
    h *= kMul;
  }
  h ^= h >> kShift;
  h *= kMul;
  h ^= h >> kShift;
  return h;
}

}  // namespace dfx

#endif  // DFX_KERNELS_FINGERPRINT_H_
