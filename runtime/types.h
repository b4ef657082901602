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

// A quantized element (TensorFlow's qint8, quint8, qint16, quint16, qint32):
// integer storage under a type of its own, so that a tensor's elements are
// read as its dtype says. The value is the stored integer; what it means in
// real numbers is the concern of the ops that make and read it (QuantizeV2,
// Dequantize).
template <typename Storage, DataType kDtype>
struct QuantizedInt {
  using StorageType = Storage;
  Storage value;
};
using qint8 = QuantizedInt<int8_t, DT_QINT8>;
using quint8 = QuantizedInt<uint8_t, DT_QUINT8>;
using qint16 = QuantizedInt<int16_t, DT_QINT16>;
using quint16 = QuantizedInt<uint16_t, DT_QUINT16>;
using qint32 = QuantizedInt<int32_t, DT_QINT32>;

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
DFX_MATCH_TYPE_AND_ENUM(qint8, DT_QINT8);
DFX_MATCH_TYPE_AND_ENUM(quint8, DT_QUINT8);
DFX_MATCH_TYPE_AND_ENUM(qint16, DT_QINT16);
DFX_MATCH_TYPE_AND_ENUM(quint16, DT_QUINT16);
DFX_MATCH_TYPE_AND_ENUM(qint32, DT_QINT32);

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

// Calls `fn.template operator()<Q>()` with the QuantizedInt type of a
// quantized dtype; returns false for any other type.
template <typename Fn>
bool VisitQuantizedType(DataType dtype, Fn&& fn) {
  switch (dtype) {
    case DT_QINT8: fn.template operator()<qint8>(); return true;
    case DT_QUINT8: fn.template operator()<quint8>(); return true;
    case DT_QINT16: fn.template operator()<qint16>(); return true;
    case DT_QUINT16: fn.template operator()<quint16>(); return true;
    case DT_QINT32: fn.template operator()<qint32>(); return true;
    default: return false;
  }
}

}  // namespace dfx

#endif  // DFX_RUNTIME_TYPES_H_
