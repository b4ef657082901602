// Helpers of the string kernels (kernels/strings/): UTF-8 walking as
// TensorFlow's string_util.h does it, and the registration function of each
// kernel file, all called by RegisterStringKernels.
#ifndef DFX_KERNELS_STRINGS_STRING_UTIL_H_
#define DFX_KERNELS_STRINGS_STRING_UTIL_H_

#include <cstdint>

#include "absl/strings/string_view.h"
#include "runtime/op_kernel.h"

namespace dfx::strings {

// A UTF-8 continuation byte (10xxxxxx).
inline bool IsTrailByte(char c) { return static_cast<signed char>(c) < -0x40; }

// Characters of `s` as TensorFlow counts them: bytes that are not
// continuation bytes (so a malformed sequence counts its lead bytes).
inline int64_t Utf8Length(absl::string_view s) {
  int64_t n = 0;
  for (char c : s) n += IsTrailByte(c) ? 0 : 1;
  return n;
}

// Case mapping, lengths, Substr, StringStrip, Equal/NotEqual on strings.
void RegisterBasicStringKernels(KernelRegistry* registry);
// StringToNumber, AsString.
void RegisterStringConvertKernels(KernelRegistry* registry);
// ReduceJoin, StringSplitV2.
void RegisterStringJoinSplitKernels(KernelRegistry* registry);
// StaticRegexReplace, RegexReplace, EncodeBase64, DecodeBase64.
void RegisterStringRegexBase64Kernels(KernelRegistry* registry);
// StringToHashBucketFast, StringToHashBucketStrong.
void RegisterStringHashKernels(KernelRegistry* registry);

}  // namespace dfx::strings

#endif  // DFX_KERNELS_STRINGS_STRING_UTIL_H_
