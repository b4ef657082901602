// The parts of the state2 family's kernels; RegisterState2Kernels
// (kernels/kernels.h, defined in state2_kernels.cc) calls both.
#ifndef DFX_KERNELS_STATE_STATE2_KERNELS_H_
#define DFX_KERNELS_STATE_STATE2_KERNELS_H_

#include "absl/status/status.h"
#include "runtime/op_kernel.h"

namespace dfx::state2_internal {

// StridedSliceAssign, ResourceStridedSliceAssign, TensorStridedSliceUpdate,
// ScatterNd{Update,Add,Sub,Max,Min} and their Resource* forms,
// ScatterNdNonAliasingAdd and ResourceGatherNd (state2_assign_kernels.cc).
void RegisterAssignKernels(KernelRegistry* registry);


}  // namespace dfx::state2_internal

#endif  // DFX_KERNELS_STATE_STATE2_KERNELS_H_
