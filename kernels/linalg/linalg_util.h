// Helpers shared by the linalg kernels (kernels/linalg/ only) and their
// per-family registration functions.
#ifndef DFX_KERNELS_LINALG_LINALG_UTIL_H_
#define DFX_KERNELS_LINALG_LINALG_UTIL_H_

#include "kernels/eigen_util.h"  // first: defines EIGEN_USE_THREADS

#include <cstdint>

#include "runtime/op_kernel.h"

namespace dfx::linalg {

// dst[i] = static_cast<To>(src[i]) for i in [0, n), on the intra-op pool
// when n is large.
template <typename From, typename To>
void ConvertElements(const Device& device, const From* src, int64_t n,
                     To* dst) {
  ParallelFor(device, n, Eigen::TensorOpCost(sizeof(From), sizeof(To), 1),
              [&](int64_t first, int64_t last) {
                for (int64_t i = first; i < last; ++i) {
                  dst[i] = static_cast<To>(static_cast<float>(src[i]));
                }
              });
}

void RegisterBatchMatMulKernels(KernelRegistry* registry);
void RegisterEinsumKernels(KernelRegistry* registry);

}  // namespace dfx::linalg

#endif  // DFX_KERNELS_LINALG_LINALG_UTIL_H_
