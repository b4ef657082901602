// RegisterSparseKernels: the kernels of kernels/sparse/.
#include "kernels/kernels.h"
#include "kernels/sparse/sparse_util.h"

namespace dfx {

void RegisterSparseKernels(KernelRegistry* registry) {
  sparse_internal::RegisterSparseSegmentKernels(registry);
  sparse_internal::RegisterSparseTensorKernels(registry);
  sparse_internal::RegisterParseExampleKernels(registry);
  sparse_internal::RegisterParseSequenceExampleKernels(registry);
  sparse_internal::RegisterRaggedKernels(registry);
  sparse_internal::RegisterSparseCrossKernels(registry);
}

}  // namespace dfx
