// RegisterLegacyKernels: the legacy family's CPU kernels (legacy_kernels.cc
// and linalg/legacy_linalg_ops.cc). Declared here rather than in
// kernels/kernels.h, which some eighty kernel files include.
#ifndef DFX_KERNELS_ARRAY_LEGACY_KERNELS_H_
#define DFX_KERNELS_ARRAY_LEGACY_KERNELS_H_

#include "runtime/op_kernel.h"

namespace dfx {

void RegisterLegacyKernels(KernelRegistry* registry);

// Dawsn, Expint, FresnelCos and FresnelSin (kernels/math/special_integrals.cc),
// called by RegisterLegacyKernels.
void RegisterSpecialIntegralKernels(KernelRegistry* registry);

}  // namespace dfx

#endif  // DFX_KERNELS_ARRAY_LEGACY_KERNELS_H_
