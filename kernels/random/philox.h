// Philox4x32-10 as TensorFlow runs it (its counter/key layout and skip-ahead),
// and the conversions from its 32-bit words to TensorFlow's distributions:
// uniform floats from mantissa bits, Box-Muller normals, truncated normals by
// rejection, integers by modulo of 32- or 64-bit words. Every function here
// gives TensorFlow 2.21's CPU values bit for bit; change nothing without
// checking the golden cases (tests/golden/gen_random.py).
//
// Header-only and free of dfx types so other kernel families (dropout,
// initializers) can draw from the same streams. Everything is a value type;
// a Philox object is not thread-safe, copies are independent.
#ifndef DFX_KERNELS_RANDOM_PHILOX_H_
#define DFX_KERNELS_RANDOM_PHILOX_H_

#include <array>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <type_traits>

#include "Eigen/Core"

namespace dfx::random {

// One 128-bit Philox output (or counter): four 32-bit words, low word first.
using PhiloxBlock = std::array<uint32_t, 4>;
// The 64-bit Philox key, low word first.
using PhiloxKey = std::array<uint32_t, 2>;

class Philox {
 public:
  // Words per call of Next().
  static constexpr int kWords = 4;

  // Counter and key all zero.
  Philox() = default;
  // TensorFlow's seeding from the (seed, seed2) attrs of a stateful op: the
  // key is `seed`, the high 64 bits of the counter are `seed2`.
  Philox(uint64_t seed, uint64_t seed2) {
    key_[0] = static_cast<uint32_t>(seed);
    key_[1] = static_cast<uint32_t>(seed >> 32);
    counter_[2] = static_cast<uint32_t>(seed2);
    counter_[3] = static_cast<uint32_t>(seed2 >> 32);
  }
  Philox(const PhiloxBlock& counter, const PhiloxKey& key)
      : counter_(counter), key_(key) {}

  // The layout of the V2 stateless ops' uint64 key and counter tensors.
  static Philox FromKeyCounter(uint64_t key, uint64_t counter_lo,
                               uint64_t counter_hi) {
    return Philox(PhiloxBlock{static_cast<uint32_t>(counter_lo),
                              static_cast<uint32_t>(counter_lo >> 32),
                              static_cast<uint32_t>(counter_hi),
                              static_cast<uint32_t>(counter_hi >> 32)},
                  PhiloxKey{static_cast<uint32_t>(key),
                            static_cast<uint32_t>(key >> 32)});
  }

  const PhiloxBlock& counter() const { return counter_; }
  const PhiloxKey& key() const { return key_; }
  uint64_t key64() const { return key_[0] | (uint64_t{key_[1]} << 32); }
  uint64_t counter_lo64() const {
    return counter_[0] | (uint64_t{counter_[1]} << 32);
  }
  uint64_t counter_hi64() const {
    return counter_[2] | (uint64_t{counter_[3]} << 32);
  }

  // Advances the counter by `blocks` 128-bit outputs. The carry rule is
  // TensorFlow's (a 64-bit add into the low half, carrying into the high
  // half), so skipped streams line up with TensorFlow's.
  void Skip(uint64_t blocks) {
    const uint32_t lo = static_cast<uint32_t>(blocks);
    uint32_t hi = static_cast<uint32_t>(blocks >> 32);
    counter_[0] += lo;
    if (counter_[0] < lo) ++hi;
    counter_[1] += hi;
    if (counter_[1] < hi) {
      if (++counter_[2] == 0) ++counter_[3];
    }
  }

  // The output at the current counter; then advances the counter by one.
  PhiloxBlock Next() {
    // Ten rounds, the key raised between them; written out because the
    // compiler does not unroll the loop at -O2 and this is the hot path.
    PhiloxKey k = key_;
    PhiloxBlock c = Round(counter_, k);
    c = Round(c, Raise(&k));
    c = Round(c, Raise(&k));
    c = Round(c, Raise(&k));
    c = Round(c, Raise(&k));
    c = Round(c, Raise(&k));
    c = Round(c, Raise(&k));
    c = Round(c, Raise(&k));
    c = Round(c, Raise(&k));
    c = Round(c, Raise(&k));
    if (++counter_[0] == 0 && ++counter_[1] == 0 && ++counter_[2] == 0) {
      ++counter_[3];
    }
    return c;
  }

 private:
  static constexpr uint32_t kWeylA = 0x9E3779B9;
  static constexpr uint32_t kWeylB = 0xBB67AE85;
  static constexpr uint32_t kMulA = 0xD2511F53;
  static constexpr uint32_t kMulB = 0xCD9E8D57;

  static const PhiloxKey& Raise(PhiloxKey* k) {
    (*k)[0] += kWeylA;
    (*k)[1] += kWeylB;
    return *k;
  }

  static PhiloxBlock Round(const PhiloxBlock& c, const PhiloxKey& k) {
    const uint64_t p0 = uint64_t{kMulA} * c[0];
    const uint64_t p1 = uint64_t{kMulB} * c[2];
    return PhiloxBlock{static_cast<uint32_t>(p1 >> 32) ^ c[1] ^ k[0],
                       static_cast<uint32_t>(p1),
                       static_cast<uint32_t>(p0 >> 32) ^ c[3] ^ k[1],
                       static_cast<uint32_t>(p0)};
  }

  PhiloxBlock counter_{};
  PhiloxKey key_{};
};

// The words of a Philox stream one at a time (TensorFlow's
// SingleSampleAdapter): a block is drawn when the previous one is used up.
// Borrows the generator, which must outlive it.
class PhiloxWords {
 public:
  explicit PhiloxWords(Philox* gen) : gen_(gen) {}

  uint32_t operator()() {
    if (used_ == Philox::kWords) {
      block_ = gen_->Next();
      used_ = 0;
    }
    return block_[used_++];
  }

  // Drops the next `words` words.
  void Skip(uint64_t words) {
    const uint64_t left = Philox::kWords - used_;
    if (words <= left) {
      used_ += static_cast<int>(words);
      return;
    }
    words -= left;
    used_ = Philox::kWords;
    gen_->Skip(words / Philox::kWords);
    const int rest = static_cast<int>(words % Philox::kWords);
    if (rest > 0) {
      block_ = gen_->Next();
      used_ = rest;
    }
  }

 private:
  Philox* const gen_;
  PhiloxBlock block_{};
  int used_ = Philox::kWords;
};

// ---- Conversions -----------------------------------------------------------
// The mantissa tricks below build a number in [1, 2) and subtract 1, so every
// result is exact and lies in [0, 1).

// 23 random mantissa bits -> float in [0, 1).
inline float Uint32ToFloat(uint32_t x) {
  const uint32_t bits = (uint32_t{127} << 23) | (x & 0x7fffffu);
  float f;
  std::memcpy(&f, &bits, sizeof(f));
  return f - 1.0f;
}

// 52 mantissa bits (20 from x0, 32 from x1) -> double in [0, 1).
inline double Uint64ToDouble(uint32_t x0, uint32_t x1) {
  const uint64_t bits =
      (uint64_t{1023} << 52) | (uint64_t{x0 & 0xfffffu} << 32) | uint64_t{x1};
  double d;
  std::memcpy(&d, &bits, sizeof(d));
  return d - 1.0;
}

// 10 mantissa bits -> half in [0, 1).
inline Eigen::half Uint16ToHalf(uint16_t x) {
  const uint16_t bits = static_cast<uint16_t>((15u << 10) | (x & 0x3ffu));
  const Eigen::half h = Eigen::numext::bit_cast<Eigen::half>(bits);
  return h - Eigen::half(1.0f);
}

// 7 mantissa bits -> bfloat16 in [0, 1).
inline Eigen::bfloat16 Uint16ToBfloat16(uint16_t x) {
  const uint16_t bits = static_cast<uint16_t>((127u << 7) | (x & 0x7fu));
  const Eigen::bfloat16 b = Eigen::numext::bit_cast<Eigen::bfloat16>(bits);
  return b - Eigen::bfloat16(1.0f);
}

// Box-Muller on two words -> two standard normal floats. TensorFlow works in
// float with the C library's logf and sincosf (and the angle in double, as
// its `2.0f * M_PI * u` promotes); the same calls give the same bits here.
inline void BoxMullerFloat(uint32_t x0, uint32_t x1, float* f0, float* f1) {
  float u1 = Uint32ToFloat(x0);
  if (u1 < 1.0e-7f) u1 = 1.0e-7f;
  const double two_pi = 2.0 * 3.14159265358979323846;
  const float angle =
      static_cast<float>(two_pi * static_cast<double>(Uint32ToFloat(x1)));
  const float radius = std::sqrt(-2.0f * std::log(u1));
  float s;
  float c;
  ::sincosf(angle, &s, &c);
  *f0 = s * radius;
  *f1 = c * radius;
}

// Box-Muller on four words -> two standard normal doubles.
inline void BoxMullerDouble(uint32_t x0, uint32_t x1, uint32_t x2, uint32_t x3,
                            double* d0, double* d1) {
  double u1 = Uint64ToDouble(x0, x1);
  if (u1 < 1.0e-7) u1 = 1.0e-7;
  const double angle = 2.0 * 3.14159265358979323846 * Uint64ToDouble(x2, x3);
  const double radius = std::sqrt(-2.0 * std::log(u1));
  double s;
  double c;
  ::sincos(angle, &s, &c);
  *d0 = s * radius;
  *d1 = c * radius;
}

// ---- Distributions ---------------------------------------------------------
// Each fills one group of kGroupSize values. A fixed-cost distribution
// (kVariable false) turns exactly one Philox block into one group; a variable
// one (truncated normal) reads words until it has a group. T is the element
// type; kCost is a rough cycle count per element for work splitting.

template <typename T>
struct UniformDist {
  static_assert(std::is_same_v<T, float> || std::is_same_v<T, double> ||
                std::is_same_v<T, Eigen::half> ||
                std::is_same_v<T, Eigen::bfloat16>);
  using Type = T;
  static constexpr bool kVariable = false;
  static constexpr int kGroupSize = std::is_same_v<T, double> ? 2 : 4;
  static constexpr int kCost = 3;

  void operator()(Philox* gen, T* out) const {
    const PhiloxBlock w = gen->Next();
    if constexpr (std::is_same_v<T, double>) {
      out[0] = Uint64ToDouble(w[0], w[1]);
      out[1] = Uint64ToDouble(w[2], w[3]);
    } else {
      for (int i = 0; i < 4; ++i) {
        if constexpr (std::is_same_v<T, float>) {
          out[i] = Uint32ToFloat(w[i]);
        } else if constexpr (std::is_same_v<T, Eigen::half>) {
          out[i] = Uint16ToHalf(static_cast<uint16_t>(w[i]));
        } else {
          out[i] = Uint16ToBfloat16(static_cast<uint16_t>(w[i]));
        }
      }
    }
  }
};

template <typename T>
struct NormalDist {
  using Type = T;
  static constexpr bool kVariable = false;
  static constexpr int kGroupSize = std::is_same_v<T, double> ? 2 : 4;
  static constexpr int kCost = 70;

  void operator()(Philox* gen, T* out) const {
    const PhiloxBlock w = gen->Next();
    if constexpr (std::is_same_v<T, double>) {
      BoxMullerDouble(w[0], w[1], w[2], w[3], &out[0], &out[1]);
    } else {
      // half and bfloat16 are the float values rounded.
      for (int i = 0; i < 4; i += 2) {
        float f0;
        float f1;
        BoxMullerFloat(w[i], w[i + 1], &f0, &f1);
        out[i] = static_cast<T>(f0);
        out[i + 1] = static_cast<T>(f1);
      }
    }
  }
};

// Standard normal values with |x| < 2: Box-Muller pairs are drawn and those
// outside are rejected until the group is full.
template <typename T>
struct TruncatedNormalDist {
  using Type = T;
  static constexpr bool kVariable = true;
  static constexpr int kGroupSize = std::is_same_v<T, double> ? 2 : 4;
  static constexpr int kCost = 90;

  void operator()(PhiloxWords* words, T* out) const {
    int n = 0;
    while (true) {
      if constexpr (std::is_same_v<T, double>) {
        const uint32_t x0 = (*words)();
        const uint32_t x1 = (*words)();
        const uint32_t x2 = (*words)();
        const uint32_t x3 = (*words)();
        double d[2];
        BoxMullerDouble(x0, x1, x2, x3, &d[0], &d[1]);
        for (double v : d) {
          if (std::fabs(v) < 2.0) {
            out[n++] = v;
            if (n == kGroupSize) return;
          }
        }
      } else {
        const uint32_t x0 = (*words)();
        const uint32_t x1 = (*words)();
        float f[2];
        BoxMullerFloat(x0, x1, &f[0], &f[1]);
        for (float v : f) {
          if (std::fabs(v) < 2.0f) {
            out[n++] = static_cast<T>(v);
            if (n == kGroupSize) return;
          }
        }
      }
    }
  }
};

// lo + (bits % range) for int32 (one word each) and int64 (two words each,
// low word first). REQUIRES: lo < hi.
template <typename T>
struct UniformIntDist {
  static_assert(std::is_same_v<T, int32_t> || std::is_same_v<T, int64_t>);
  using Type = T;
  using Unsigned = std::make_unsigned_t<T>;
  static constexpr bool kVariable = false;
  static constexpr int kGroupSize = sizeof(T) == 8 ? 2 : 4;
  static constexpr int kCost = 3;

  UniformIntDist(T lo, T hi)
      : lo(lo), range(static_cast<Unsigned>(hi) - static_cast<Unsigned>(lo)) {}

  // lo + r where r < 2^bits may not fit T: added in two halves that do.
  T Add(Unsigned r) const {
    const Unsigned half = r >> 1;
    return static_cast<T>(lo + static_cast<T>(half) + static_cast<T>(r - half));
  }

  void operator()(Philox* gen, T* out) const {
    const PhiloxBlock w = gen->Next();
    if constexpr (sizeof(T) == 8) {
      for (int i = 0; i < 2; ++i) {
        const uint64_t bits = w[2 * i] | (uint64_t{w[2 * i + 1]} << 32);
        out[i] = Add(bits % range);
      }
    } else {
      for (int i = 0; i < 4; ++i) out[i] = Add(w[i] % range);
    }
  }

  T lo;
  Unsigned range;
};

// Raw bits over the whole range of T: one word per 32-bit value, two (low
// word first) per 64-bit value.
template <typename T>
struct FullIntDist {
  static_assert(std::is_integral_v<T> && (sizeof(T) == 4 || sizeof(T) == 8));
  using Type = T;
  static constexpr bool kVariable = false;
  static constexpr int kGroupSize = sizeof(T) == 8 ? 2 : 4;
  static constexpr int kCost = 1;

  void operator()(Philox* gen, T* out) const {
    const PhiloxBlock w = gen->Next();
    if constexpr (sizeof(T) == 8) {
      out[0] = static_cast<T>(w[0] | (uint64_t{w[1]} << 32));
      out[1] = static_cast<T>(w[2] | (uint64_t{w[3]} << 32));
    } else {
      for (int i = 0; i < 4; ++i) out[i] = static_cast<T>(w[i]);
    }
  }
};

// Blocks between the starts of two groups of a variable distribution:
// TensorFlow reserves 256 words per output value.
template <class Dist>
constexpr uint64_t VariableGroupStride() {
  return uint64_t{Dist::kGroupSize} * 256 / Philox::kWords;
}

// Fills groups [first_group, last_group) of an output of `size` values
// (the last group may be partial) from the stream that starts at `base`.
// Group g always reads the same words whatever range it is filled in, which
// is what makes the result independent of how the work is split.
template <class Dist>
void FillGroups(const Philox& base, const Dist& dist, int64_t first_group,
                int64_t last_group, int64_t size, typename Dist::Type* data) {
  using T = typename Dist::Type;
  constexpr int kG = Dist::kGroupSize;
  const int64_t full_groups = size / kG;
  T tail[kG];
  if constexpr (!Dist::kVariable) {
    Philox gen = base;
    gen.Skip(static_cast<uint64_t>(first_group));
    for (int64_t g = first_group; g < last_group; ++g) {
      if (g < full_groups) {
        dist(&gen, data + g * kG);
      } else {
        dist(&gen, tail);
        for (int64_t i = g * kG; i < size; ++i) data[i] = tail[i - g * kG];
      }
    }
  } else {
    for (int64_t g = first_group; g < last_group; ++g) {
      Philox gen = base;
      gen.Skip(static_cast<uint64_t>(g) * VariableGroupStride<Dist>());
      PhiloxWords words(&gen);
      if (g < full_groups) {
        dist(&words, data + g * kG);
      } else {
        dist(&words, tail);
        for (int64_t i = g * kG; i < size; ++i) data[i] = tail[i - g * kG];
      }
    }
  }
}

}  // namespace dfx::random

#endif  // DFX_KERNELS_RANDOM_PHILOX_H_
