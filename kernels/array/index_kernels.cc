// CPU kernels of the slicing, tiling, padding and splitting ops. Each
// index_*.cc file registers its own; this registers them all.
#include "kernels/array/index_util.h"
#include "kernels/kernels.h"

namespace dfx {

void RegisterArrayIndexKernels(KernelRegistry* registry) {
  array_internal::RegisterSliceKernels(registry);
  array_internal::RegisterPadKernels(registry);
  array_internal::RegisterTileKernels(registry);
  array_internal::RegisterSplitKernels(registry);
  array_internal::RegisterRangeKernels(registry);
}

}  // namespace dfx
