// StringToHashBucketFast (FarmHash's Fingerprint64, which TensorFlow's
// Fingerprint64 is, modulo num_buckets), StringToHashBucket (TensorFlow's
// Hash64) and StringToHashBucketStrong (SipHash-2-4 keyed by `key`,
// TensorFlow's StrongKeyedHash). The hashes are fixed by their algorithms: a
// bucket must equal TensorFlow's for the same string on every machine, which is
// what trained embeddings index by.
#include <cstdint>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "kernels/eigen_util.h"
#include "kernels/strings/string_util.h"

namespace dfx::strings {
namespace {

// --- FarmHash Fingerprint64 (farmhashna::Hash64).

constexpr uint64_t kK0 = 0xc3a5c85c97cb3127ULL;
constexpr uint64_t kK1 = 0xb492b66fbe98f273ULL;
constexpr uint64_t kK2 = 0x9ae16a3b2f90404fULL;

uint64_t Load64(const char* p) {
  uint64_t v;
  std::memcpy(&v, p, 8);
  return v;  // little-endian hosts only (x86-64, aarch64)
}
uint32_t Load32(const char* p) {
  uint32_t v;
  std::memcpy(&v, p, 4);
  return v;
}
uint64_t Rot(uint64_t v, int s) {
  return s == 0 ? v : (v >> s) | (v << (64 - s));
}
uint64_t Mix47(uint64_t v) { return v ^ (v >> 47); }

uint64_t Combine16(uint64_t u, uint64_t v, uint64_t mul) {
  uint64_t a = (u ^ v) * mul;
  a ^= a >> 47;
  uint64_t b = (v ^ a) * mul;
  b ^= b >> 47;
  return b * mul;
}

uint64_t Short0To16(const char* s, size_t n) {
  if (n >= 8) {
    const uint64_t mul = kK2 + n * 2;
    const uint64_t a = Load64(s) + kK2;
    const uint64_t b = Load64(s + n - 8);
    const uint64_t c = Rot(b, 37) * mul + a;
    const uint64_t d = (Rot(a, 25) + b) * mul;
    return Combine16(c, d, mul);
  }
  if (n >= 4) {
    const uint64_t mul = kK2 + n * 2;
    const uint64_t a = Load32(s);
    return Combine16(n + (a << 3), Load32(s + n - 4), mul);
  }
  if (n > 0) {
    const uint8_t a = static_cast<uint8_t>(s[0]);
    const uint8_t b = static_cast<uint8_t>(s[n >> 1]);
    const uint8_t c = static_cast<uint8_t>(s[n - 1]);
    const uint32_t y =
        static_cast<uint32_t>(a) + (static_cast<uint32_t>(b) << 8);
    const uint32_t z =
        static_cast<uint32_t>(n) + (static_cast<uint32_t>(c) << 2);
    return Mix47(y * kK2 ^ z * kK0) * kK2;
  }
  return kK2;
}

uint64_t Short17To32(const char* s, size_t n) {
  const uint64_t mul = kK2 + n * 2;
  const uint64_t a = Load64(s) * kK1;
  const uint64_t b = Load64(s + 8);
  const uint64_t c = Load64(s + n - 8) * mul;
  const uint64_t d = Load64(s + n - 16) * kK2;
  return Combine16(Rot(a + b, 43) + Rot(c, 30) + d, a + Rot(b + kK2, 18) + c,
                   mul);
}

uint64_t Short33To64(const char* s, size_t n) {
  const uint64_t mul = kK2 + n * 2;
  const uint64_t a = Load64(s) * kK2;
  const uint64_t b = Load64(s + 8);
  const uint64_t c = Load64(s + n - 8) * mul;
  const uint64_t d = Load64(s + n - 16) * kK2;
  const uint64_t y = Rot(a + b, 43) + Rot(c, 30) + d;
  const uint64_t z = Combine16(y, a + Rot(b + kK2, 18) + c, mul);
  const uint64_t e = Load64(s + 16) * mul;
  const uint64_t f = Load64(s + 24);
  const uint64_t g = (y + Load64(s + n - 32)) * mul;
  const uint64_t h = (z + Load64(s + n - 24)) * mul;
  return Combine16(Rot(e + f, 43) + Rot(g, 30) + h, e + Rot(f + a, 18) + g,
                   mul);
}

// Two 64-bit lanes from 32 bytes and two seeds.
std::pair<uint64_t, uint64_t> Lanes32(const char* s, uint64_t a, uint64_t b) {
  const uint64_t w = Load64(s), x = Load64(s + 8), y = Load64(s + 16),
                 z = Load64(s + 24);
  a += w;
  b = Rot(b + a + z, 21);
  const uint64_t c = a;
  a += x;
  a += y;
  b += Rot(a, 44);
  return {a + z, b + c};
}

uint64_t Fingerprint64(const char* s, size_t n) {
  if (n <= 16) return Short0To16(s, n);
  if (n <= 32) return Short17To32(s, n);
  if (n <= 64) return Short33To64(s, n);
  constexpr uint64_t kSeed = 81;
  uint64_t x = kSeed;
  uint64_t y = kSeed * kK1 + 113;
  uint64_t z = Mix47(y * kK2 + 113) * kK2;
  std::pair<uint64_t, uint64_t> v = {0, 0}, w = {0, 0};
  x = x * kK2 + Load64(s);
  const char* end = s + ((n - 1) / 64) * 64;
  const char* last64 = end + ((n - 1) & 63) - 63;
  do {
    x = Rot(x + y + v.first + Load64(s + 8), 37) * kK1;
    y = Rot(y + v.second + Load64(s + 48), 42) * kK1;
    x ^= w.second;
    y += v.first + Load64(s + 40);
    z = Rot(z + w.first, 33) * kK1;
    v = Lanes32(s, v.second * kK1, x + w.first);
    w = Lanes32(s + 32, z + w.second, y + Load64(s + 16));
    std::swap(z, x);
    s += 64;
  } while (s != end);
  const uint64_t mul = kK1 + ((z & 0xff) << 1);
  s = last64;
  w.first += ((n - 1) & 63);
  v.first += w.first;
  w.first += v.first;
  x = Rot(x + y + v.first + Load64(s + 8), 37) * mul;
  y = Rot(y + v.second + Load64(s + 48), 42) * mul;
  x ^= w.second * 9;
  y += v.first * 9 + Load64(s + 40);
  z = Rot(z + w.first, 33) * mul;
  v = Lanes32(s, v.second * mul, x + w.first);
  w = Lanes32(s + 32, z + w.second, y + Load64(s + 16));
  std::swap(z, x);
  return Combine16(Combine16(v.first, w.first, mul) + Mix47(y) * kK0 + z,
                   Combine16(v.second, w.second, mul) + x, mul);
}

// --- TensorFlow's own Hash64 (a MurmurHash2-64A variant, seed
// 0xDECAFCAFFE), which the deprecated StringToHashBucket uses.

uint64_t TfHash64(const char* s, size_t n) {
  constexpr uint64_t kMul = 0xc6a4a7935bd1e995ULL;
  constexpr int kShift = 47;
  uint64_t h = 0xDECAFCAFFEULL ^ (n * kMul);
  while (n >= 8) {
    uint64_t k = Load64(s);
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

// --- SipHash-2-4 with a 128-bit key (k0, k1).

uint64_t SipHash24(uint64_t k0, uint64_t k1, const char* s, size_t n) {
  uint64_t v0 = k0 ^ 0x736f6d6570736575ULL;
  uint64_t v1 = k1 ^ 0x646f72616e646f6dULL;
  uint64_t v2 = k0 ^ 0x6c7967656e657261ULL;
  uint64_t v3 = k1 ^ 0x7465646279746573ULL;
  auto round = [&] {
    v0 += v1;
    v1 = Rot(v1, 64 - 13);
    v1 ^= v0;
    v0 = Rot(v0, 64 - 32);
    v2 += v3;
    v3 = Rot(v3, 64 - 16);
    v3 ^= v2;
    v0 += v3;
    v3 = Rot(v3, 64 - 21);
    v3 ^= v0;
    v2 += v1;
    v1 = Rot(v1, 64 - 17);
    v1 ^= v2;
    v2 = Rot(v2, 64 - 32);
  };
  size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    const uint64_t m = Load64(s + i);
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

// Per string: its bytes read, 8 written, a few cycles a byte.
const Eigen::TensorOpCost kHashCost(32, 8, 64);

// StringToHashBucketFast (Fingerprint64) and StringToHashBucket (Hash64).
template <uint64_t (*kHash)(const char*, size_t)>
class HashBucketFastOp : public OpKernel {
 public:
  explicit HashBucketFastOp(OpKernelConstruction* c) : OpKernel(c) {
    c->SetStatus(c->GetAttr("num_buckets", &num_buckets_));
  }
  void Compute(OpKernelContext* ctx) override {
    const Tensor& in = ctx->input(0);
    Tensor* out = nullptr;
    DFX_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, in.shape(), &out));
    const std::string* s = in.data<std::string>();
    int64_t* o = out->data<int64_t>();
    ParallelFor(
        *ctx->device(), in.NumElements(), kHashCost,
        [&](int64_t first, int64_t last) {
          for (int64_t i = first; i < last; ++i) {
            o[i] = static_cast<int64_t>(kHash(s[i].data(), s[i].size()) %
                                        static_cast<uint64_t>(num_buckets_));
          }
        });
  }

 private:
  int64_t num_buckets_ = 1;
};

class HashBucketStrongOp : public OpKernel {
 public:
  explicit HashBucketStrongOp(OpKernelConstruction* c) : OpKernel(c) {
    std::vector<int64_t> key;
    c->SetStatus(c->GetAttr("num_buckets", &num_buckets_));
    c->SetStatus(c->GetAttr("key", &key));
    if (!c->status().ok()) return;
    if (key.size() != 2) {
      c->SetStatus(absl::InvalidArgumentError(
          absl::StrCat("Key must have 2 elements, got ", key.size())));
      return;
    }
    k0_ = static_cast<uint64_t>(key[0]);
    k1_ = static_cast<uint64_t>(key[1]);
  }
  void Compute(OpKernelContext* ctx) override {
    const Tensor& in = ctx->input(0);
    Tensor* out = nullptr;
    DFX_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, in.shape(), &out));
    const std::string* s = in.data<std::string>();
    int64_t* o = out->data<int64_t>();
    ParallelFor(*ctx->device(), in.NumElements(), kHashCost,
                [&](int64_t first, int64_t last) {
                  for (int64_t i = first; i < last; ++i) {
                    o[i] = static_cast<int64_t>(
                        SipHash24(k0_, k1_, s[i].data(), s[i].size()) %
                        static_cast<uint64_t>(num_buckets_));
                  }
                });
  }

 private:
  int64_t num_buckets_ = 1;
  uint64_t k0_ = 0, k1_ = 0;
};

}  // namespace

void RegisterStringHashKernels(KernelRegistry* registry) {
  RegisterKernel<HashBucketFastOp<Fingerprint64>>(
      registry, KernelDefBuilder("StringToHashBucketFast"));
  RegisterKernel<HashBucketFastOp<TfHash64>>(
      registry, KernelDefBuilder("StringToHashBucket"));
  RegisterKernel<HashBucketStrongOp>(
      registry, KernelDefBuilder("StringToHashBucketStrong"));
}

}  // namespace dfx::strings
