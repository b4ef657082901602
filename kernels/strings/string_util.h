// Helpers of the string kernels (kernels/strings/): UTF-8 walking as
// TensorFlow's string_util.h does it, and the registration function of each
// kernel file, all called by RegisterStringKernels.
#ifndef DFX_KERNELS_STRINGS_STRING_UTIL_H_
#define DFX_KERNELS_STRINGS_STRING_UTIL_H_

#include <cstdint>
#include <string>
#include <vector>

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

// Appends code point `cp` (a Unicode scalar value) to `out` as UTF-8.
inline void AppendUtf8(char32_t cp, std::string* out) {
  if (cp < 0x80) {
    out->push_back(static_cast<char>(cp));
  } else if (cp < 0x800) {
    out->push_back(static_cast<char>(0xC0 | (cp >> 6)));
    out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else if (cp < 0x10000) {
    out->push_back(static_cast<char>(0xE0 | (cp >> 12)));
    out->push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else {
    out->push_back(static_cast<char>(0xF0 | (cp >> 18)));
    out->push_back(static_cast<char>(0x80 | ((cp >> 12) & 0x3F)));
    out->push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  }
}

// Writes the sparse result of splitting n strings into `pieces[i]`:
// outputs 0..2 are indices [total, 2] (string, piece), the pieces, and the
// dense shape [n, most pieces], as StringSplit and StringSplitV2 give them.
void OutputSplitPieces(
    OpKernelContext* ctx,
    const std::vector<std::vector<absl::string_view>>& pieces);

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
