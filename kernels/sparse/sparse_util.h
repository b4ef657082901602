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

// Calls fn.template operator()<T>() with the C++ type of `dtype` when it is
// bfloat16, half, float or double; false otherwise.
template <typename Fn>
bool VisitFloatType(DataType dtype, Fn&& fn) {
  switch (dtype) {
    case DT_FLOAT: fn.template operator()<float>(); return true;
    case DT_DOUBLE: fn.template operator()<double>(); return true;
    case DT_HALF: fn.template operator()<Eigen::half>(); return true;
    case DT_BFLOAT16: fn.template operator()<Eigen::bfloat16>(); return true;
    default: return false;
  }
}

// As VisitFloatType, for TensorFlow's real number types (floats and the
// 8- to 64-bit signed and unsigned integers).
template <typename Fn>
bool VisitRealType(DataType dtype, Fn&& fn) {
  switch (dtype) {
    case DT_INT8: fn.template operator()<int8_t>(); return true;
    case DT_INT16: fn.template operator()<int16_t>(); return true;
    case DT_INT32: fn.template operator()<int32_t>(); return true;
    case DT_INT64: fn.template operator()<int64_t>(); return true;
    case DT_UINT8: fn.template operator()<uint8_t>(); return true;
    case DT_UINT16: fn.template operator()<uint16_t>(); return true;
    case DT_UINT32: fn.template operator()<uint32_t>(); return true;
    case DT_UINT64: fn.template operator()<uint64_t>(); return true;
    default: return VisitFloatType(dtype, fn);
  }
}

// As VisitRealType, plus complex64 and complex128.
template <typename Fn>
bool VisitNumberType(DataType dtype, Fn&& fn) {
  switch (dtype) {
    case DT_COMPLEX64: fn.template operator()<std::complex<float>>(); return true;
    case DT_COMPLEX128: fn.template operator()<std::complex<double>>(); return true;
    default: return VisitRealType(dtype, fn);
  }
}

// Element i of an int32 or int64 tensor, widened. REQUIRES: one of those.
inline int64_t IndexAt(const Tensor& t, int64_t i) {
  return t.dtype() == DT_INT32 ? int64_t{t.data<int32_t>()[i]}
                               : t.data<int64_t>()[i];
}

// The accumulation type of T (gather_util.h): float for half and bfloat16,
// as TensorFlow's CPU kernels sum them; T otherwise.
using gather_internal::AccumType;

// Element copies by value for any dtype (gather_util.h): VisitCopyType(dtype,
// fn) calls fn.template operator()<E>() with std::string for strings, else
// an unsigned integer (or Bytes16) of the element's size; Elements<E>(t)
// views the tensor's elements as E.
using gather_internal::Bytes16;
template <typename Fn>
bool VisitCopyType(DataType dtype, Fn&& fn) {
  return gather_internal::VisitMoveType(dtype, std::forward<Fn>(fn));
}
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
