// TensorFlow's SimplePhilox: an imperative interface to a Philox stream
// that hands out 32-bit words one at a time (the candidate samplers and
// SampleDistortedBoundingBox draw from it), with TensorFlow's exactly
// uniform integers. Borrows the generator, which must outlive it; not
// thread-safe.
#ifndef DFX_KERNELS_RANDOM_SIMPLE_PHILOX_H_
#define DFX_KERNELS_RANDOM_SIMPLE_PHILOX_H_

#include <cstdint>
#include <limits>

#include "kernels/random/philox.h"

namespace dfx::random {

class SimplePhilox {
 public:
  explicit SimplePhilox(Philox* gen) : words_(gen) {}

  uint32_t Rand32() { return words_(); }
  // Low word first.
  uint64_t Rand64() {
    const uint32_t lo = words_();
    const uint32_t hi = words_();
    return lo | (uint64_t{hi} << 32);
  }
  float RandFloat() { return Uint32ToFloat(words_()); }
  double RandDouble() {
    const uint32_t x0 = words_();
    const uint32_t x1 = words_();
    return Uint64ToDouble(x0, x1);
  }
  // Exactly uniform in [0, n): a power of two by mask; otherwise words
  // below (max % n) + 1, which would bias the modulo, are drawn again.
  // n == 0 consumes a word and returns 0.
  uint32_t Uniform(uint32_t n) {
    return ExactUniform<uint32_t>(n, [this] { return Rand32(); });
  }
  uint64_t Uniform64(uint64_t n) {
    return ExactUniform<uint64_t>(n, [this] { return Rand64(); });
  }

 private:
  template <typename U, typename Bits>
  static U ExactUniform(U n, Bits bits) {
    if (n == 0) return bits() * n;
    if ((n & (n - 1)) == 0) return bits() & (n - 1);
    const U rem = (std::numeric_limits<U>::max() % n) + 1;
    U r;
    do {
      r = bits();
    } while (r < rem);
    return r % n;
  }

  PhiloxWords words_;
};

}  // namespace dfx::random

#endif  // DFX_KERNELS_RANDOM_SIMPLE_PHILOX_H_
