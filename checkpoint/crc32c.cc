#include "checkpoint/crc32c.h"

#include <array>
#include <bit>
#include <cstring>

#if defined(__x86_64__) || defined(__i386__)
#include <nmmintrin.h>
#define DFX_CRC32C_X86 1
#endif

namespace dfx::crc32c {
namespace {

// The reflected Castagnoli polynomial.
constexpr uint32_t kPolynomial = 0x82f63b78u;

// Slicing-by-8 tables: kTables[k][b] is the CRC of byte b followed by k
// zero bytes, so eight table lookups fold eight input bytes at once.
using Tables = std::array<std::array<uint32_t, 256>, 8>;

constexpr Tables MakeTables() {
  Tables t{};
  for (uint32_t i = 0; i < 256; ++i) {
    uint32_t crc = i;
    for (int bit = 0; bit < 8; ++bit) {
      crc = (crc >> 1) ^ ((crc & 1) ? kPolynomial : 0);
    }
    t[0][i] = crc;
  }
  for (uint32_t i = 0; i < 256; ++i) {
    for (int k = 1; k < 8; ++k) {
      t[k][i] = (t[k - 1][i] >> 8) ^ t[0][t[k - 1][i] & 0xff];
    }
  }
  return t;
}

constexpr Tables kTables = MakeTables();

// Without the pre- and post-inversion, CRC32C is linear over GF(2):
// crc(s, A || B) == Shift(crc(s, A), |B|) ^ crc(0, B), where Shift appends
// |B| zero bytes. ZeroShift applies that operator for a fixed number of
// bytes with four 256-entry tables (one per byte of the state), which lets
// three independent crc32 chains run side by side and be joined.
class ZeroShift {
 public:
  explicit ZeroShift(size_t bytes) {
    uint32_t column[32];
    for (int bit = 0; bit < 32; ++bit) {
      uint32_t state = uint32_t{1} << bit;
      for (size_t i = 0; i < bytes; ++i) {
        state = kTables[0][state & 0xff] ^ (state >> 8);
      }
      column[bit] = state;
    }
    for (int k = 0; k < 4; ++k) {
      for (uint32_t b = 0; b < 256; ++b) {
        uint32_t v = 0;
        for (int j = 0; j < 8; ++j) {
          if (b & (1u << j)) v ^= column[8 * k + j];
        }
        table_[k][b] = v;
      }
    }
  }
  uint32_t operator()(uint32_t state) const {
    return table_[0][state & 0xff] ^ table_[1][(state >> 8) & 0xff] ^
           table_[2][(state >> 16) & 0xff] ^ table_[3][state >> 24];
  }

 private:
  uint32_t table_[4][256];
};

#if defined(DFX_CRC32C_X86)
// Bytes per chain in the three-way interleaved loop.
constexpr size_t kStripe = 4096;

// One crc32 instruction per 8 bytes; long inputs run three chains at once
// (the instruction's latency is three times its throughput). Compiled for
// SSE4.2 whatever the build's target, and only called when the CPU reports
// SSE4.2.
__attribute__((target("sse4.2"))) uint32_t ExtendSse42(uint32_t crc,
                                                       const void* data,
                                                       size_t n) {
  const auto* p = static_cast<const uint8_t*>(data);
  uint32_t l = crc ^ 0xffffffffu;
  while (n > 0 && (reinterpret_cast<uintptr_t>(p) & 7) != 0) {
    l = _mm_crc32_u8(l, *p++);
    --n;
  }
#if defined(__x86_64__)
  uint64_t l64 = l;
  if (n >= 3 * kStripe) {
    static const ZeroShift* const shift = new ZeroShift(kStripe);
    while (n >= 3 * kStripe) {
      uint64_t a = l64, b = 0, c = 0;
      const uint8_t* pa = p;
      const uint8_t* pb = p + kStripe;
      const uint8_t* pc = p + 2 * kStripe;
      for (size_t i = 0; i < kStripe; i += 8) {
        uint64_t wa, wb, wc;
        std::memcpy(&wa, pa + i, 8);
        std::memcpy(&wb, pb + i, 8);
        std::memcpy(&wc, pc + i, 8);
        a = _mm_crc32_u64(a, wa);
        b = _mm_crc32_u64(b, wb);
        c = _mm_crc32_u64(c, wc);
      }
      const uint32_t ab =
          (*shift)(static_cast<uint32_t>(a)) ^ static_cast<uint32_t>(b);
      l64 = (*shift)(ab) ^ static_cast<uint32_t>(c);
      p += 3 * kStripe;
      n -= 3 * kStripe;
    }
  }
  while (n >= 32) {
    uint64_t w[4];
    std::memcpy(w, p, sizeof(w));
    l64 = _mm_crc32_u64(l64, w[0]);
    l64 = _mm_crc32_u64(l64, w[1]);
    l64 = _mm_crc32_u64(l64, w[2]);
    l64 = _mm_crc32_u64(l64, w[3]);
    p += 32;
    n -= 32;
  }
  while (n >= 8) {
    uint64_t w;
    std::memcpy(&w, p, sizeof(w));
    l64 = _mm_crc32_u64(l64, w);
    p += 8;
    n -= 8;
  }
  l = static_cast<uint32_t>(l64);
#endif
  while (n >= 4) {
    uint32_t w;
    std::memcpy(&w, p, sizeof(w));
    l = _mm_crc32_u32(l, w);
    p += 4;
    n -= 4;
  }
  while (n > 0) {
    l = _mm_crc32_u8(l, *p++);
    --n;
  }
  return l ^ 0xffffffffu;
}
#endif

using ExtendFn = uint32_t (*)(uint32_t, const void*, size_t);

ExtendFn ChooseExtend() {
#if defined(DFX_CRC32C_X86)
  if (__builtin_cpu_supports("sse4.2")) return ExtendSse42;
#endif
  return ExtendPortable;
}

ExtendFn TheExtend() {
  static const ExtendFn fn = ChooseExtend();
  return fn;
}

}  // namespace

uint32_t ExtendPortable(uint32_t crc, const void* data, size_t n) {
  const auto* p = static_cast<const uint8_t*>(data);
  uint32_t l = crc ^ 0xffffffffu;
  if constexpr (std::endian::native == std::endian::little) {
    while (n >= 8) {
      uint32_t lo;
      uint32_t hi;
      std::memcpy(&lo, p, 4);
      std::memcpy(&hi, p + 4, 4);
      lo ^= l;
      l = kTables[7][lo & 0xff] ^ kTables[6][(lo >> 8) & 0xff] ^
          kTables[5][(lo >> 16) & 0xff] ^ kTables[4][lo >> 24] ^
          kTables[3][hi & 0xff] ^ kTables[2][(hi >> 8) & 0xff] ^
          kTables[1][(hi >> 16) & 0xff] ^ kTables[0][hi >> 24];
      p += 8;
      n -= 8;
    }
  }
  while (n > 0) {
    l = kTables[0][(l ^ *p++) & 0xff] ^ (l >> 8);
    --n;
  }
  return l ^ 0xffffffffu;
}

uint32_t Extend(uint32_t crc, const void* data, size_t n) {
  return TheExtend()(crc, data, n);
}

bool IsHardwareAccelerated() { return TheExtend() != ExtendPortable; }

}  // namespace dfx::crc32c
