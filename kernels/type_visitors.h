// Dtype dispatch for kernels: each Visit*Type(dtype, fn) calls
// fn.template operator()<T>() with the C++ type that serves `dtype` and
// returns true, or returns false when `dtype` is not in its set. (The
// runtime's VisitComputeType and VisitNumericType are in runtime/types.h.)
#ifndef DFX_KERNELS_TYPE_VISITORS_H_
#define DFX_KERNELS_TYPE_VISITORS_H_

#include <complex>
#include <cstdint>
#include <string>

#include "runtime/types.h"

namespace dfx {

// half, bfloat16, float, double.
template <typename Fn>
bool VisitFloatType(DataType dtype, Fn&& fn) {
  switch (dtype) {
    case DT_FLOAT:
      fn.template operator()<float>();
      return true;
    case DT_DOUBLE:
      fn.template operator()<double>();
      return true;
    case DT_HALF:
      fn.template operator()<Eigen::half>();
      return true;
    case DT_BFLOAT16:
      fn.template operator()<Eigen::bfloat16>();
      return true;
    default:
      return false;
  }
}

// TensorFlow's real number types: the floats and the 8- to 64-bit signed
// and unsigned integers.
template <typename Fn>
bool VisitRealType(DataType dtype, Fn&& fn) {
  switch (dtype) {
    case DT_INT8:
      fn.template operator()<int8_t>();
      return true;
    case DT_INT16:
      fn.template operator()<int16_t>();
      return true;
    case DT_INT32:
      fn.template operator()<int32_t>();
      return true;
    case DT_INT64:
      fn.template operator()<int64_t>();
      return true;
    case DT_UINT8:
      fn.template operator()<uint8_t>();
      return true;
    case DT_UINT16:
      fn.template operator()<uint16_t>();
      return true;
    case DT_UINT32:
      fn.template operator()<uint32_t>();
      return true;
    case DT_UINT64:
      fn.template operator()<uint64_t>();
      return true;
    default:
      return VisitFloatType(dtype, fn);
  }
}

// The real types, complex64 and complex128.
template <typename Fn>
bool VisitNumberType(DataType dtype, Fn&& fn) {
  switch (dtype) {
    case DT_COMPLEX64:
      fn.template operator()<std::complex<float>>();
      return true;
    case DT_COMPLEX128:
      fn.template operator()<std::complex<double>>();
      return true;
    default:
      return VisitRealType(dtype, fn);
  }
}

// 16 bytes moved as one element (complex128).
struct Bytes16 {
  uint64_t lo;
  uint64_t hi;
};

// A type E that moves elements of `dtype` by value without looking at
// them: std::string for strings, else an unsigned integer (or Bytes16) of
// the element's size, so one instantiation serves every dtype of a size.
// False for dtypes with no such type (resource, variant: no fixed size).
template <typename Fn>
bool VisitMoveType(DataType dtype, Fn&& fn) {
  if (dtype == DT_STRING) {
    fn.template operator()<std::string>();
    return true;
  }
  switch (DataTypeSize(dtype)) {
    case 1:
      fn.template operator()<uint8_t>();
      return true;
    case 2:
      fn.template operator()<uint16_t>();
      return true;
    case 4:
      fn.template operator()<uint32_t>();
      return true;
    case 8:
      fn.template operator()<uint64_t>();
      return true;
    case 16:
      fn.template operator()<Bytes16>();
      return true;
    default:
      return false;
  }
}

}  // namespace dfx

#endif  // DFX_KERNELS_TYPE_VISITORS_H_
