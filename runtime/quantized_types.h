// C++ element types of the quantized dtypes (TensorFlow's qint8, quint8,
// qint16, quint16, qint32): DataTypeToEnum<qint8>::value is DT_QINT8 and
// back. Kept apart from runtime/types.h so that only what reads quantized
// elements includes it.
#ifndef DFX_RUNTIME_QUANTIZED_TYPES_H_
#define DFX_RUNTIME_QUANTIZED_TYPES_H_

#include <cstdint>

#include "runtime/types.h"

namespace dfx {

// A quantized element: integer storage under a type of its own, so that a
// tensor's elements are read as its dtype says. The value is the stored
// integer; what it means in real numbers is the concern of the ops that
// make and read it (QuantizeV2, Dequantize).
template <typename Storage, DataType kDtype>
struct QuantizedInt {
  using StorageType = Storage;
  constexpr QuantizedInt() = default;
  // From an integer, converted to Storage (as static_cast would).
  template <typename Int>
  explicit constexpr QuantizedInt(Int v) : value(static_cast<Storage>(v)) {}
  Storage value = 0;
};
using qint8 = QuantizedInt<int8_t, DT_QINT8>;
using quint8 = QuantizedInt<uint8_t, DT_QUINT8>;
using qint16 = QuantizedInt<int16_t, DT_QINT16>;
using quint16 = QuantizedInt<uint16_t, DT_QUINT16>;
using qint32 = QuantizedInt<int32_t, DT_QINT32>;

#define DFX_MATCH_QUANTIZED_TYPE(TYPE, ENUM) \
  template <>                                 \
  struct DataTypeToEnum<TYPE> {               \
    static constexpr DataType value = ENUM;   \
  };                                          \
  template <>                                 \
  struct EnumToDataType<ENUM> {               \
    using Type = TYPE;                        \
  }

DFX_MATCH_QUANTIZED_TYPE(qint8, DT_QINT8);
DFX_MATCH_QUANTIZED_TYPE(quint8, DT_QUINT8);
DFX_MATCH_QUANTIZED_TYPE(qint16, DT_QINT16);
DFX_MATCH_QUANTIZED_TYPE(quint16, DT_QUINT16);
DFX_MATCH_QUANTIZED_TYPE(qint32, DT_QINT32);

#undef DFX_MATCH_QUANTIZED_TYPE

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

#endif  // DFX_RUNTIME_QUANTIZED_TYPES_H_
