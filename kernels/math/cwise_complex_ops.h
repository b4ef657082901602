// Registration of the complex64/complex128 kernels of Expm1, Log1p, Sin ...
// Atanh, Sigmoid, Sign, Pow, SquaredDifference, Xdivy, Xlogy, Xlog1py and
// the unary gradients (cwise_complex_ops.cc). Private to kernels/math/.
#ifndef DFX_KERNELS_MATH_CWISE_COMPLEX_OPS_H_
#define DFX_KERNELS_MATH_CWISE_COMPLEX_OPS_H_

#include "runtime/op_kernel.h"

namespace dfx {

void RegisterCwiseComplexKernels(KernelRegistry* registry);

}  // namespace dfx

#endif  // DFX_KERNELS_MATH_CWISE_COMPLEX_OPS_H_
