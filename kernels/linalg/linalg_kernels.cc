// CPU kernels of BatchMatMul and Einsum.
#include "kernels/kernels.h"
#include "kernels/linalg/linalg_util.h"

namespace dfx {

void RegisterLinalgKernels(KernelRegistry* registry) {
  linalg::RegisterBatchMatMulKernels(registry);
  linalg::RegisterEinsumKernels(registry);
}

}  // namespace dfx
