// Eigen TensorMap views over dfx::Tensor (flat, vec, matrix, tensor<T, N>,
// scalar) for CPU kernels, with EIGEN_USE_THREADS so expressions can run on
// Device::eigen_cpu_device().
//
// Include this header before any other Eigen Tensor include in a kernel .cc
// file. Views share the tensor's buffer and do not keep it alive: the Tensor
// must outlive the view. Every view REQUIRES DataTypeToEnum<T>::value ==
// t.dtype() (DFX_DCHECKed by Tensor::data<T>()); the shaped views DFX_CHECK
// the rank, since a wrong rank is a bug in the kernel, not bad input.
#ifndef DFX_KERNELS_EIGEN_UTIL_H_
#define DFX_KERNELS_EIGEN_UTIL_H_

#ifndef EIGEN_USE_THREADS
#define EIGEN_USE_THREADS
#endif

#include <cstdint>

#include "absl/types/span.h"
#include "base/logging.h"
#include "runtime/device.h"
#include "runtime/tensor.h"
#include "runtime/tensor_shape.h"
#include "unsupported/Eigen/CXX11/Tensor"

namespace dfx {

// Eigen tensor types with dfx's conventions: row-major, DenseIndex (int64)
// indices, unaligned (a Tensor may be a Slice starting anywhere inside its
// buffer; unaligned loads cost nothing measurable on current CPUs).
template <typename T, int NDIMS = 1>
struct EigenTypes {
  using Tensor = Eigen::TensorMap<
      Eigen::Tensor<T, NDIMS, Eigen::RowMajor, Eigen::DenseIndex>>;
  using ConstTensor = Eigen::TensorMap<
      Eigen::Tensor<const T, NDIMS, Eigen::RowMajor, Eigen::DenseIndex>>;
  // The same types under the names of the first version of this header.
  using UnalignedTensor = Tensor;
  using UnalignedConstTensor = ConstTensor;
  using Flat = Eigen::TensorMap<
      Eigen::Tensor<T, 1, Eigen::RowMajor, Eigen::DenseIndex>>;
  using ConstFlat = Eigen::TensorMap<
      Eigen::Tensor<const T, 1, Eigen::RowMajor, Eigen::DenseIndex>>;
  using Vec = Flat;
  using ConstVec = ConstFlat;
  using Matrix = Eigen::TensorMap<
      Eigen::Tensor<T, 2, Eigen::RowMajor, Eigen::DenseIndex>>;
  using ConstMatrix = Eigen::TensorMap<
      Eigen::Tensor<const T, 2, Eigen::RowMajor, Eigen::DenseIndex>>;
  using Scalar = Eigen::TensorMap<
      Eigen::TensorFixedSize<T, Eigen::Sizes<>, Eigen::RowMajor,
                             Eigen::DenseIndex>>;
  using ConstScalar = Eigen::TensorMap<
      Eigen::TensorFixedSize<const T, Eigen::Sizes<>, Eigen::RowMajor,
                             Eigen::DenseIndex>>;
};

// All elements as a rank-1 view of NumElements().
template <typename T>
typename EigenTypes<T>::Flat flat(Tensor& t) {
  return typename EigenTypes<T>::Flat(t.data<T>(), t.NumElements());
}
template <typename T>
typename EigenTypes<T>::ConstFlat flat(const Tensor& t) {
  return typename EigenTypes<T>::ConstFlat(t.data<T>(), t.NumElements());
}

// REQUIRES: t.dims() == 1.
template <typename T>
typename EigenTypes<T>::Vec vec(Tensor& t) {
  DFX_CHECK(t.dims() == 1);
  return typename EigenTypes<T>::Vec(t.data<T>(), t.dim_size(0));
}
template <typename T>
typename EigenTypes<T>::ConstVec vec(const Tensor& t) {
  DFX_CHECK(t.dims() == 1);
  return typename EigenTypes<T>::ConstVec(t.data<T>(), t.dim_size(0));
}

// REQUIRES: t.dims() == 2.
template <typename T>
typename EigenTypes<T>::Matrix matrix(Tensor& t) {
  DFX_CHECK(t.dims() == 2);
  return typename EigenTypes<T>::Matrix(t.data<T>(), t.dim_size(0),
                                        t.dim_size(1));
}
template <typename T>
typename EigenTypes<T>::ConstMatrix matrix(const Tensor& t) {
  DFX_CHECK(t.dims() == 2);
  return typename EigenTypes<T>::ConstMatrix(t.data<T>(), t.dim_size(0),
                                             t.dim_size(1));
}

// REQUIRES: t.NumElements() == 1 (any rank).
template <typename T>
typename EigenTypes<T>::Scalar scalar(Tensor& t) {
  DFX_CHECK(t.NumElements() == 1);
  return typename EigenTypes<T>::Scalar(t.data<T>());
}
template <typename T>
typename EigenTypes<T>::ConstScalar scalar(const Tensor& t) {
  DFX_CHECK(t.NumElements() == 1);
  return typename EigenTypes<T>::ConstScalar(t.data<T>());
}

// Eigen dimensions of `shape`. REQUIRES: shape.dims() == NDIMS.
template <int NDIMS>
Eigen::DSizes<Eigen::DenseIndex, NDIMS> EigenDims(const TensorShape& shape) {
  DFX_CHECK(shape.dims() == NDIMS);
  Eigen::DSizes<Eigen::DenseIndex, NDIMS> dims;
  for (int i = 0; i < NDIMS; ++i) dims[i] = shape.dim_size(i);
  return dims;
}

// Eigen dimensions of `shape` padded with leading 1s (or, when its rank is
// above NDIMS, with the leading dims collapsed into the first) to rank NDIMS.
// REQUIRES: NDIMS >= 1.
template <int NDIMS>
Eigen::DSizes<Eigen::DenseIndex, NDIMS> EigenDimsPadded(
    const TensorShape& shape) {
  static_assert(NDIMS >= 1);
  Eigen::DSizes<Eigen::DenseIndex, NDIMS> dims;
  for (int i = 0; i < NDIMS; ++i) dims[i] = 1;
  const int rank = shape.dims();
  for (int i = 0; i < rank; ++i) {
    const int out = NDIMS - rank + i;
    if (out >= 0) {
      dims[out] = shape.dim_size(i);
    } else {
      dims[0] *= shape.dim_size(i);
    }
  }
  return dims;
}

// A rank-NDIMS view. REQUIRES: t.dims() == NDIMS.
template <typename T, int NDIMS>
typename EigenTypes<T, NDIMS>::Tensor tensor(Tensor& t) {
  return typename EigenTypes<T, NDIMS>::Tensor(
      t.data<T>(), EigenDims<NDIMS>(t.shape()));
}
template <typename T, int NDIMS>
typename EigenTypes<T, NDIMS>::ConstTensor tensor(const Tensor& t) {
  return typename EigenTypes<T, NDIMS>::ConstTensor(
      t.data<T>(), EigenDims<NDIMS>(t.shape()));
}

// A rank-NDIMS view of any tensor: leading 1s are added, or leading dims
// collapsed into the first (TensorFlow's flat_inner_dims generalised).
template <typename T, int NDIMS>
typename EigenTypes<T, NDIMS>::Tensor shaped_padded(Tensor& t) {
  return typename EigenTypes<T, NDIMS>::Tensor(
      t.data<T>(), EigenDimsPadded<NDIMS>(t.shape()));
}
template <typename T, int NDIMS>
typename EigenTypes<T, NDIMS>::ConstTensor shaped_padded(
    const Tensor& t) {
  return typename EigenTypes<T, NDIMS>::ConstTensor(
      t.data<T>(), EigenDimsPadded<NDIMS>(t.shape()));
}

// A view of t's elements with `dims`. REQUIRES: the product of `dims` equals
// t.NumElements().
template <typename T, int NDIMS>
typename EigenTypes<T, NDIMS>::Tensor shaped(
    Tensor& t, const Eigen::DSizes<Eigen::DenseIndex, NDIMS>& dims) {
  DFX_CHECK(dims.TotalSize() == t.NumElements());
  return typename EigenTypes<T, NDIMS>::Tensor(t.data<T>(), dims);
}
template <typename T, int NDIMS>
typename EigenTypes<T, NDIMS>::ConstTensor shaped(
    const Tensor& t, const Eigen::DSizes<Eigen::DenseIndex, NDIMS>& dims) {
  DFX_CHECK(dims.TotalSize() == t.NumElements());
  return typename EigenTypes<T, NDIMS>::ConstTensor(t.data<T>(),
                                                             dims);
}

// Element counts at or above this are worth evaluating on the intra-op pool
// (Device::eigen_cpu_device()); below it, evaluate inline (DefaultDevice) to
// skip the scheduling cost.
inline constexpr int64_t kParallelEvalThreshold = 32 * 1024;

// Runs fn(first, last) over disjoint ranges covering [0, n), in parallel on
// the device's intra-op pool when n is at least kParallelEvalThreshold, else
// inline as fn(0, n). `cost_per_unit` (bytes loaded, stored, compute cycles
// per unit of work) sizes the blocks. Returns when every range is done. When
// called from a thread of the intra-op pool itself it runs inline, so nested
// use cannot deadlock the pool.
template <typename Fn>
void ParallelFor(const Device& device, int64_t n,
                 const Eigen::TensorOpCost& cost_per_unit, Fn&& fn) {
  if (n <= 0) return;
  const ThreadPool* pool = device.intra_op_pool();
  if (n < kParallelEvalThreshold || pool == nullptr ||
      pool->NumThreads() <= 1 || pool->CurrentThreadId() >= 0) {
    fn(int64_t{0}, n);
    return;
  }
  device.eigen_cpu_device().parallelFor(
      n, cost_per_unit, [&fn](Eigen::Index first, Eigen::Index last) {
        fn(static_cast<int64_t>(first), static_cast<int64_t>(last));
      });
}

}  // namespace dfx

#endif  // DFX_KERNELS_EIGEN_UTIL_H_
