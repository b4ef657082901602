// C++ types of tensor elements: DataTypeToEnum<T>::value and back.
#ifndef DFX_RUNTIME_TYPES_H_
#define DFX_RUNTIME_TYPES_H_

#include <complex>
#include <cstdint>
#include <string>

#include "Eigen/Core"
#include "graph/types.h"
#include "runtime/resource_handle.h"

namespace dfx {

template <typename T>
struct DataTypeToEnum;

template <DataType D>
struct EnumToDataType;

#define DFX_MATCH_TYPE_AND_ENUM(TYPE, ENUM)           \
  template <>                                         \
  struct DataTypeToEnum<TYPE> {                       \
    static constexpr DataType value = ENUM;           \
  };                                                  \
  template <>                                         \
  struct EnumToDataType<ENUM> {                       \
    using Type = TYPE;                                \
  }

DFX_MATCH_TYPE_AND_ENUM(float, DT_FLOAT);
DFX_MATCH_TYPE_AND_ENUM(double, DT_DOUBLE);
DFX_MATCH_TYPE_AND_ENUM(int32_t, DT_INT32);
DFX_MATCH_TYPE_AND_ENUM(uint32_t, DT_UINT32);
DFX_MATCH_TYPE_AND_ENUM(uint16_t, DT_UINT16);
DFX_MATCH_TYPE_AND_ENUM(uint8_t, DT_UINT8);
DFX_MATCH_TYPE_AND_ENUM(int16_t, DT_INT16);
DFX_MATCH_TYPE_AND_ENUM(int8_t, DT_INT8);
DFX_MATCH_TYPE_AND_ENUM(std::string, DT_STRING);
DFX_MATCH_TYPE_AND_ENUM(std::complex<float>, DT_COMPLEX64);
DFX_MATCH_TYPE_AND_ENUM(std::complex<double>, DT_COMPLEX128);
DFX_MATCH_TYPE_AND_ENUM(int64_t, DT_INT64);
DFX_MATCH_TYPE_AND_ENUM(uint64_t, DT_UINT64);
DFX_MATCH_TYPE_AND_ENUM(bool, DT_BOOL);
DFX_MATCH_TYPE_AND_ENUM(Eigen::half, DT_HALF);
DFX_MATCH_TYPE_AND_ENUM(Eigen::bfloat16, DT_BFLOAT16);
DFX_MATCH_TYPE_AND_ENUM(ResourceHandle, DT_RESOURCE);

#undef DFX_MATCH_TYPE_AND_ENUM

// Calls `fn.template operator()<T>()` with the C++ type of `dtype` for the
// types kernels compute on (float, double, int32, int64, bool); returns false
// for any other type.
template <typename Fn>
bool VisitComputeType(DataType dtype, Fn&& fn) {
  switch (dtype) {
    case DT_FLOAT: fn.template operator()<float>(); return true;
    case DT_DOUBLE: fn.template operator()<double>(); return true;
    case DT_INT32: fn.template operator()<int32_t>(); return true;
    case DT_INT64: fn.template operator()<int64_t>(); return true;
    case DT_BOOL: fn.template operator()<bool>(); return true;
    default: return false;
  }
}

// Like VisitComputeType, for every real numeric type and bool: float,
// double, half, bfloat16, int8/16/32/64, uint8/16/32/64, bool. Returns false
// for any other type (string, complex, resource, ...).
template <typename Fn>
bool VisitNumericType(DataType dtype, Fn&& fn) {
  switch (dtype) {
    case DT_FLOAT: fn.template operator()<float>(); return true;
    case DT_DOUBLE: fn.template operator()<double>(); return true;
    case DT_HALF: fn.template operator()<Eigen::half>(); return true;
    case DT_BFLOAT16: fn.template operator()<Eigen::bfloat16>(); return true;
    case DT_INT8: fn.template operator()<int8_t>(); return true;
    case DT_INT16: fn.template operator()<int16_t>(); return true;
    case DT_INT32: fn.template operator()<int32_t>(); return true;
    case DT_INT64: fn.template operator()<int64_t>(); return true;
    case DT_UINT8: fn.template operator()<uint8_t>(); return true;
    case DT_UINT16: fn.template operator()<uint16_t>(); return true;
    case DT_UINT32: fn.template operator()<uint32_t>(); return true;
    case DT_UINT64: fn.template operator()<uint64_t>(); return true;
    case DT_BOOL: fn.template operator()<bool>(); return true;
    default: return false;
  }
}

}  // namespace dfx

#endif  // DFX_RUNTIME_TYPES_H_
