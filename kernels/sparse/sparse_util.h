// Helpers shared by the sparse-tensor kernels (kernels/sparse/*.cc only):
// dtype visitors, reading integer elements, and each file's registration
// function.
#ifndef DFX_KERNELS_SPARSE_SPARSE_UTIL_H_
#define DFX_KERNELS_SPARSE_SPARSE_UTIL_H_

#include "kernels/eigen_util.h"  // first: defines EIGEN_USE_THREADS

#include <complex>
#include <cstdint>
#include <string>
#include <type_traits>
#include <utility>

#include "kernels/array/gather_util.h"
#include "kernels/type_visitors.h"
#include "runtime/op_kernel.h"
#include "runtime/tensor.h"
#include "runtime/types.h"

namespace dfx::sparse_internal {

// TensorFlow's SparseTensor::Create checks of one (indices, values, shape):
// ranks and matching sizes, with its messages; not the index bounds.
// (sparse_tensor_ops.cc; the ragged2 counting kernels use it too.)
absl::Status CheckSparseTensor(const Tensor& indices, const Tensor& values,
                               const Tensor& shape);

// One per kernel file; RegisterSparseKernels calls them all.
void RegisterSparseSegmentKernels(KernelRegistry* registry);
void RegisterSparseTensorKernels(KernelRegistry* registry);
void RegisterParseExampleKernels(KernelRegistry* registry);
void RegisterParseSequenceExampleKernels(KernelRegistry* registry);
void RegisterRaggedKernels(KernelRegistry* registry);
void RegisterSparseCrossKernels(KernelRegistry* registry);

// The dtype visitors (kernels/type_visitors.h).
using ::dfx::VisitFloatType;
using ::dfx::VisitNumberType;
using ::dfx::VisitRealType;

// Element i of an int32 or int64 tensor, widened. REQUIRES: one of those.
inline int64_t IndexAt(const Tensor& t, int64_t i) {
  return t.dtype() == DT_INT32 ? int64_t{t.data<int32_t>()[i]}
                               : t.data<int64_t>()[i];
}

// The accumulation type of T (gather_util.h): float for half and bfloat16,
// as TensorFlow's CPU kernels sum them; T otherwise.
using gather_internal::AccumType;

// Element copies by value for any dtype: VisitMoveType (kernels/
// type_visitors.h) picks the element type E; Elements<E>(t) views the
// tensor's elements as E.
using ::dfx::Bytes16;
using ::dfx::VisitMoveType;
template <typename E>
const E* Elements(const Tensor& t) {
  return gather_internal::MoveData<E>(t);
}
template <typename E>
E* Elements(Tensor* t) {
  return gather_internal::MoveData<E>(t);
}

}  // namespace dfx::sparse_internal

#endif  // DFX_KERNELS_SPARSE_SPARSE_UTIL_H_
