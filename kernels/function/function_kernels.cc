#include "kernels/kernels.h"

namespace dfx {

void RegisterFunctionKernels(KernelRegistry* registry) {}

}  // namespace dfx
