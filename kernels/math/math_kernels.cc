#include "kernels/kernels.h"
#include "kernels/math/cwise_complex_ops.h"
#include "kernels/math/cwise_ops.h"
#include "kernels/math/cwise_unsigned_ops.h"

namespace dfx {

void RegisterMathKernels(KernelRegistry* registry) {
  RegisterCwiseBinaryKernels(registry);
  RegisterCwiseDivModPowKernels(registry);
  RegisterCwiseNoNanKernels(registry);
  RegisterCwiseComparisonKernels(registry);
  RegisterCwiseUnsignedKernels(registry);
  RegisterCwiseUnaryKernels(registry);
  RegisterCwiseUnaryFloatKernels(registry);
  RegisterCwiseGradKernels(registry);
  RegisterCwiseComplexKernels(registry);
  RegisterClipKernels(registry);
  RegisterSelectKernels(registry);
  RegisterCastKernels(registry);
  RegisterAddNKernels(registry);
}

}  // namespace dfx
