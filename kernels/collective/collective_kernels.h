// Registration of the collective kernels (CollectiveReduceV2,
// CollectiveGatherV2, CollectiveBcastSendV2, CollectiveBcastRecvV2, the v1
// CollectiveReduce/Gather/BcastSend/BcastRecv, CollectiveAssignGroupV2,
// CollectiveInitializeCommunicator, CollectiveReduceV3/AllToAllV3).
// Declared here rather than in kernels/kernels.h, which everything
// includes.
#ifndef DFX_KERNELS_COLLECTIVE_COLLECTIVE_KERNELS_H_
#define DFX_KERNELS_COLLECTIVE_COLLECTIVE_KERNELS_H_

#include "runtime/op_kernel.h"

namespace dfx {

void RegisterCollectiveKernels(KernelRegistry* registry);

}  // namespace dfx

#endif  // DFX_KERNELS_COLLECTIVE_COLLECTIVE_KERNELS_H_
