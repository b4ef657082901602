// Elements of integer tensors read as int64 and written from it, for the
// kernels whose index, size or key inputs take several integer dtypes.
#ifndef DFX_KERNELS_INT_ELEMENTS_H_
#define DFX_KERNELS_INT_ELEMENTS_H_

#include <cstdint>

#include "base/logging.h"
#include "runtime/tensor.h"

namespace dfx {

// Element i of `t`, widened to int64. REQUIRES: t is an integer tensor
// (int8/16/32/64 or uint8/16/32/64; uint64 values past INT64_MAX wrap).
inline int64_t IntAt(const Tensor& t, int64_t i) {
  switch (t.dtype()) {
    case DT_INT8:
      return t.data<int8_t>()[i];
    case DT_UINT8:
      return t.data<uint8_t>()[i];
    case DT_INT16:
      return t.data<int16_t>()[i];
    case DT_UINT16:
      return t.data<uint16_t>()[i];
    case DT_INT32:
      return t.data<int32_t>()[i];
    case DT_UINT32:
      return t.data<uint32_t>()[i];
    case DT_INT64:
      return t.data<int64_t>()[i];
    case DT_UINT64:
      return static_cast<int64_t>(t.data<uint64_t>()[i]);
    default:
      DFX_CHECK_MSG(false, "IntAt on a tensor that is not of integers");
      return 0;
  }
}

// Sets element i of `t` to v, converted to t's dtype as static_cast does.
// REQUIRES: t is an integer tensor, as for IntAt.
inline void SetIntAt(Tensor* t, int64_t i, int64_t v) {
  switch (t->dtype()) {
    case DT_INT8:
      t->data<int8_t>()[i] = static_cast<int8_t>(v);
      return;
    case DT_UINT8:
      t->data<uint8_t>()[i] = static_cast<uint8_t>(v);
      return;
    case DT_INT16:
      t->data<int16_t>()[i] = static_cast<int16_t>(v);
      return;
    case DT_UINT16:
      t->data<uint16_t>()[i] = static_cast<uint16_t>(v);
      return;
    case DT_INT32:
      t->data<int32_t>()[i] = static_cast<int32_t>(v);
      return;
    case DT_UINT32:
      t->data<uint32_t>()[i] = static_cast<uint32_t>(v);
      return;
    case DT_INT64:
      t->data<int64_t>()[i] = v;
      return;
    case DT_UINT64:
      t->data<uint64_t>()[i] = static_cast<uint64_t>(v);
      return;
    default:
      DFX_CHECK_MSG(false, "SetIntAt on a tensor that is not of integers");
  }
}

}  // namespace dfx

#endif  // DFX_KERNELS_INT_ELEMENTS_H_
