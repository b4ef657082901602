// CPU kernels of the random ops, on TensorFlow's Philox streams: the
// stateful ops in stateful_random_kernels.cc, the stateless ones in
// stateless_random_kernels.cc, the generator and distributions in philox.h.
#include "kernels/kernels.h"
#include "kernels/random/random_util.h"

namespace dfx {

void RegisterRandomKernels(KernelRegistry* registry) {
  random::RegisterStatefulRandomKernels(registry);
  random::RegisterStatelessRandomKernels(registry);
}

}  // namespace dfx
