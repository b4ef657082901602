// Registration of the ragged2 family's CPU kernels
// (kernels/array/ragged2_count_kernels.cc): SparseBincount, RaggedBincount
// and the *CountSparseOutput ops.
#ifndef DFX_KERNELS_ARRAY_RAGGED2_KERNELS_H_
#define DFX_KERNELS_ARRAY_RAGGED2_KERNELS_H_

#include "runtime/op_kernel.h"

namespace dfx {

void RegisterRagged2Kernels(KernelRegistry* registry);

}  // namespace dfx

#endif  // DFX_KERNELS_ARRAY_RAGGED2_KERNELS_H_
