// CRC32C (Castagnoli), the checksum of LevelDB tables and TensorFlow tensor
// bundles, with their masking of stored checksums.
#ifndef DFX_CHECKPOINT_CRC32C_H_
#define DFX_CHECKPOINT_CRC32C_H_

#include <cstddef>
#include <cstdint>

namespace dfx::crc32c {

// The CRC32C of data[0, n) appended to a stream whose CRC32C is `crc`
// (0 for an empty stream): Extend(Value(a), b) == Value(a + b). Uses the
// SSE4.2 crc32 instruction when the CPU has it. Thread-safe.
uint32_t Extend(uint32_t crc, const void* data, size_t n);

inline uint32_t Value(const void* data, size_t n) { return Extend(0, data, n); }

// As Extend, always with the portable table implementation (for tests).
uint32_t ExtendPortable(uint32_t crc, const void* data, size_t n);

// True when Extend uses the crc32 instruction.
bool IsHardwareAccelerated();

// A stored CRC is masked, because a CRC computed over bytes that contain
// embedded CRCs is weak: rotate right by 15 bits and add a constant.
inline constexpr uint32_t kMaskDelta = 0xa282ead8u;

inline uint32_t Mask(uint32_t crc) {
  return ((crc >> 15) | (crc << 17)) + kMaskDelta;
}

// The inverse of Mask.
inline uint32_t Unmask(uint32_t masked) {
  const uint32_t rot = masked - kMaskDelta;
  return (rot >> 17) | (rot << 15);
}

}  // namespace dfx::crc32c

#endif  // DFX_CHECKPOINT_CRC32C_H_
