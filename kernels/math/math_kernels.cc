#include "kernels/kernels.h"
#include "kernels/math/cwise_ops.h"

namespace dfx {

void RegisterMathKernels(KernelRegistry* registry) {
  RegisterCwiseBinaryKernels(registry);
  RegisterCwiseComparisonKernels(registry);
  RegisterCwiseUnaryKernels(registry);
  RegisterSelectKernels(registry);
  RegisterCastKernels(registry);
  RegisterAddNKernels(registry);
}

}  // namespace dfx
