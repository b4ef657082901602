// Helpers shared by the gather-family kernels (kernels/array/gather_*.cc
// only): the type sets and visitors they dispatch on, reading index
// scalars, TensorFlow-style element positions for errors, element movers for
// any fixed-size dtype, and the registration function of each file.
#ifndef DFX_KERNELS_ARRAY_GATHER_UTIL_H_
#define DFX_KERNELS_ARRAY_GATHER_UTIL_H_

#include "kernels/eigen_util.h"  // first: defines EIGEN_USE_THREADS

#include <complex>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <type_traits>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "kernels/int_elements.h"
#include "kernels/type_visitors.h"
#include "runtime/op_kernel.h"
#include "runtime/tensor.h"
#include "runtime/types.h"

namespace dfx::gather_internal {

// One per kernel file; RegisterGatherKernels calls them all.
void RegisterGatherOpKernels(KernelRegistry* registry);   // GatherV2, Gather, GatherNd
void RegisterScatterKernels(KernelRegistry* registry);    // ScatterNd, TensorScatter*
void RegisterSegmentKernels(KernelRegistry* registry);    // (Unsorted)Segment*
void RegisterStitchKernels(KernelRegistry* registry);     // DynamicStitch/Partition
void RegisterSelectKernels(KernelRegistry* registry);     // OneHot, Where, TopKV2, ArgMax/Min
void RegisterScanKernels(KernelRegistry* registry);       // Cumsum, Cumprod
void RegisterIndexKernels(KernelRegistry* registry);      // Unique, InvertPermutation,
                                                          // BroadcastGradientArgs

// TensorFlow's real number types: float, double, half, bfloat16, int8..64,
// uint8..64.
const DataTypeVector& RealTypes();
// RealTypes and complex64, complex128.
const DataTypeVector& NumberTypes();

// The dtype visitors (kernels/type_visitors.h).
using ::dfx::VisitNumberType;
using ::dfx::VisitRealType;

// As VisitRealType, for the index types of the ops here: int16, uint16,
// int32, int64.
template <typename Fn>
bool VisitIndexType(DataType dtype, Fn&& fn) {
  switch (dtype) {
    case DT_INT16: fn.template operator()<int16_t>(); return true;
    case DT_UINT16: fn.template operator()<uint16_t>(); return true;
    case DT_INT32: fn.template operator()<int32_t>(); return true;
    case DT_INT64: fn.template operator()<int64_t>(); return true;
    default: return false;
  }
}

using ::dfx::Bytes16;
using ::dfx::VisitMoveType;

// The elements of `t` as E (see VisitMoveType). REQUIRES: E matches the
// dtype's size (or is std::string for a string tensor).
template <typename E>
const E* MoveData(const Tensor& t) {
  if constexpr (std::is_same_v<E, std::string>) {
    return t.data<std::string>();
  } else {
    return static_cast<const E*>(t.raw_data());
  }
}
template <typename E>
E* MoveData(Tensor* t) {
  if constexpr (std::is_same_v<E, std::string>) {
    return t->data<std::string>();
  } else {
    return static_cast<E*>(t->raw_data());
  }
}

// Copies n elements; memcpy for fixed-size elements.
template <typename E>
inline void MoveElements(const E* src, E* dst, int64_t n) {
  if constexpr (std::is_same_v<E, std::string>) {
    for (int64_t i = 0; i < n; ++i) dst[i] = src[i];
  } else {
    std::memcpy(dst, src, static_cast<size_t>(n) * sizeof(E));
  }
}

// Sets every element of `t` to zero (empty strings). REQUIRES: a dtype of
// array_internal::MovableTypes().
void SetZero(Tensor* t);

// The one element of a scalar index tensor; InvalidArgument "<what> must be a
// scalar, got shape [..]" otherwise.
absl::StatusOr<int64_t> ScalarIndex(const Tensor& t, absl::string_view what);

// TensorFlow's position of flat element i in `shape`: "[1,2]" ("" for a
// scalar).
std::string IndexPosition(const TensorShape& shape, int64_t flat);

// The element offset of the slice each index tuple of `indices` (shape
// [..., k], int16/int32/int64) names in a tensor of `shape`, whose slices are
// `slice` elements (the product of shape[k:]). A tuple outside `shape` is -1
// when `ignore_bad`, else the first such is an InvalidArgument:
//   gather style: "indices[1,0] = [0, 3] does not index into param shape [2,2]"
//   scatter style: "indices[1] = [7] does not index into shape [4]"
// REQUIRES: indices.dims() >= 1, k <= shape.dims().
absl::StatusOr<std::vector<int64_t>> SliceOffsets(const Tensor& indices,
                                                  const TensorShape& shape,
                                                  bool ignore_bad,
                                                  bool gather_style);

// The accumulation type of T: float for half and bfloat16, T otherwise.
template <typename T>
struct AccumType {
  using type = T;
};
template <>
struct AccumType<Eigen::half> {
  using type = float;
};
template <>
struct AccumType<Eigen::bfloat16> {
  using type = float;
};

// The product of dims [begin, end) of `shape`.
int64_t DimProduct(const TensorShape& shape, int begin, int end);

// Like ParallelFor, but the threshold is the total work (n * bytes per unit)
// rather than n, so a few large units (rows of many elements) are split
// across the pool too.
template <typename Fn>
void ParallelForWork(const Device& device, int64_t n, int64_t bytes_per_unit,
                     Fn&& fn) {
  if (n <= 0) return;
  const ThreadPool* pool = device.intra_op_pool();
  const double bytes = static_cast<double>(bytes_per_unit);
  if (n == 1 || static_cast<double>(n) * bytes < 256 * 1024 ||
      pool == nullptr || pool->NumThreads() <= 1 ||
      pool->CurrentThreadId() >= 0) {
    fn(int64_t{0}, n);
    return;
  }
  device.eigen_cpu_device().parallelFor(
      n, Eigen::TensorOpCost(bytes, bytes, bytes / 8 + 1),
      [&fn](Eigen::Index first, Eigen::Index last) {
        fn(static_cast<int64_t>(first), static_cast<int64_t>(last));
      });
}

// The segment reductions (SegmentSum/Prod/Max/Min, their unsorted and V2
// forms): the identity a segment starts from, and acc (op)= v with
// TensorFlow's NaN behaviour for max and min (std::max(v, acc) /
// std::min(v, acc): a NaN replaces the accumulator only when it comes
// first).
enum class Reduce { kSum, kProd, kMax, kMin };

template <typename T, Reduce R>
T Identity() {
  if constexpr (R == Reduce::kSum) {
    return T(0);
  } else if constexpr (R == Reduce::kProd) {
    return T(1);
  } else if constexpr (R == Reduce::kMax) {
    return std::numeric_limits<T>::lowest();
  } else {
    return std::numeric_limits<T>::max();
  }
}

template <typename T, Reduce R>
inline void Combine(T& acc, const T& v) {
  if constexpr (R == Reduce::kSum) {
    acc += v;
  } else if constexpr (R == Reduce::kProd) {
    acc *= v;
  } else if constexpr (R == Reduce::kMax) {
    acc = (v < acc) ? acc : v;
  } else {
    acc = (acc < v) ? acc : v;
  }
}

}  // namespace dfx::gather_internal

#endif  // DFX_KERNELS_ARRAY_GATHER_UTIL_H_
