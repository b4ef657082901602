// Registration of the uint16/uint32/uint64 element-wise math kernels
// (cwise_unsigned_ops.cc). Private to kernels/math/.
#ifndef DFX_KERNELS_MATH_CWISE_UNSIGNED_OPS_H_
#define DFX_KERNELS_MATH_CWISE_UNSIGNED_OPS_H_

#include "runtime/op_kernel.h"

namespace dfx {

void RegisterCwiseUnsignedKernels(KernelRegistry* registry);

}  // namespace dfx

#endif  // DFX_KERNELS_MATH_CWISE_UNSIGNED_OPS_H_
