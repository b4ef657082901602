#include "kernels/kernels.h"
#include "kernels/nn/nn2_kernels.h"

namespace dfx {

void RegisterNn2Kernels(KernelRegistry* registry) {
  nn2_internal::RegisterQuantizeV2Kernels(registry);
  nn2_internal::RegisterParameterizedTruncatedNormalKernels(registry);
  nn2_internal::RegisterFractionalPoolKernels(registry);
  nn2_internal::RegisterCtcBeamSearchKernels(registry);
  nn2_internal::RegisterRandomShuffleQueueKernels(registry);
}

}  // namespace dfx
