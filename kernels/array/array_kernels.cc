#include "kernels/kernels.h"

namespace dfx {

void RegisterArrayKernels(KernelRegistry* registry) {}

}  // namespace dfx
