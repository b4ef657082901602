#include "kernels/kernels.h"
#include "kernels/nn/nn_util.h"

namespace dfx {

void RegisterNnKernels(KernelRegistry* registry) {
  nn_internal::RegisterMatMulKernels(registry);
  nn_internal::RegisterActivationKernels(registry);
  nn_internal::RegisterSoftmaxKernels(registry);
  nn_internal::RegisterActivationGradKernels(registry);
  nn_internal::RegisterLossKernels(registry);
  nn_internal::RegisterLrnKernels(registry);
  nn_internal::RegisterReductionKernels(registry);
}

}  // namespace dfx
