#include "kernels/kernels.h"

namespace dfx {

void RegisterNnKernels(KernelRegistry* registry) {}

}  // namespace dfx
