#include "kernels/kernels.h"

namespace dfx {

void RegisterStandardKernels(KernelRegistry* registry) {
  RegisterArrayKernels(registry);
  RegisterMathKernels(registry);
  RegisterNnKernels(registry);
  RegisterFunctionKernels(registry);
  RegisterSendRecvKernels(registry);
}

const KernelRegistry* StandardKernelRegistry() {
  static const KernelRegistry* registry = [] {
    auto* r = new KernelRegistry;
    RegisterStandardKernels(r);
    return r;
  }();
  return registry;
}

}  // namespace dfx
