// Dispatch on the element types the dfx command reads and prints, and the
// shortest round-trip text of a floating-point value.
#ifndef DFX_TOOLS_CLI_INTERNAL_ELEMENTS_H_
#define DFX_TOOLS_CLI_INTERNAL_ELEMENTS_H_

#include <charconv>
#include <cstdint>
#include <string>

#include "runtime/types.h"

namespace dfx::cli::internal {

// Calls `fn.template operator()<T>()` with the C++ type of `dtype` for float,
// double, int8..int64, uint8..uint64, bool and string; false for any other.
template <typename Fn>
bool VisitElementType(DataType dtype, Fn&& fn) {
  switch (dtype) {
    case DT_FLOAT: fn.template operator()<float>(); return true;
    case DT_DOUBLE: fn.template operator()<double>(); return true;
    case DT_INT8: fn.template operator()<int8_t>(); return true;
    case DT_INT16: fn.template operator()<int16_t>(); return true;
    case DT_INT32: fn.template operator()<int32_t>(); return true;
    case DT_INT64: fn.template operator()<int64_t>(); return true;
    case DT_UINT8: fn.template operator()<uint8_t>(); return true;
    case DT_UINT16: fn.template operator()<uint16_t>(); return true;
    case DT_UINT32: fn.template operator()<uint32_t>(); return true;
    case DT_UINT64: fn.template operator()<uint64_t>(); return true;
    case DT_BOOL: fn.template operator()<bool>(); return true;
    case DT_STRING: fn.template operator()<std::string>(); return true;
    default: return false;
  }
}

// The shortest decimal text that reads back as `value` ("0.1", "1e+20",
// "3"). REQUIRES: finite.
template <typename F>
std::string ShortestFloat(F value) {
  char buf[64];
  auto result = std::to_chars(buf, buf + sizeof(buf), value);
  return std::string(buf, result.ptr);
}

}  // namespace dfx::cli::internal

#endif  // DFX_TOOLS_CLI_INTERNAL_ELEMENTS_H_
