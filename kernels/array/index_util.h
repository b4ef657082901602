// Shared machinery of the slicing, tiling, padding and splitting kernels:
// reading index vectors, a strided copy that moves the elements of any dtype
// (runs of contiguous elements with memcpy, in parallel for large copies),
// and the registration functions of each index_*.cc file.
#ifndef DFX_KERNELS_ARRAY_INDEX_UTIL_H_
#define DFX_KERNELS_ARRAY_INDEX_UTIL_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "base/logging.h"
#include "graph/ops/strided_slice_spec.h"
#include "kernels/eigen_util.h"
#include "kernels/type_visitors.h"
#include "runtime/device.h"
#include "runtime/op_kernel.h"
#include "runtime/tensor.h"

namespace dfx::array_internal {

// The elements of an int8, int16, int32 or int64 tensor, widened to int64.
// InvalidArgument for any other dtype.
absl::StatusOr<std::vector<int64_t>> ReadIndexVector(const Tensor& t);

// StridedSlice's index arithmetic on tensors (index_slice_kernels.cc),
// shared with the slice-assignment kernels (kernels/state/):
//
// Reads the five mask attrs that the node has (the others stay 0).
absl::Status ReadStridedSliceMasks(OpKernelConstruction* ctx,
                                   StridedSliceMasks* masks);
// The strided slice of a tensor of `shape` that begin_t, end_t, strides_t
// and `masks` select: its dense spec and the output's shape.
// InvalidArgument (TensorFlow's wording) unless begin, end and strides are
// vectors of one length below 32, or for what ComputeStridedSliceSpec
// rejects.
absl::Status StridedSliceSpecOf(const TensorShape& shape,
                                const Tensor& begin_t, const Tensor& end_t,
                                const Tensor& strides_t,
                                const StridedSliceMasks& masks,
                                StridedSliceSpec* spec,
                                TensorShape* out_shape);
// The walk over the elements a slice selects from a tensor of `shape`, one
// entry per input (processing) dimension: strides in elements, and the
// offset of the first element.
void SliceWalk(const StridedSliceSpec& spec, const TensorShape& shape,
               std::vector<int64_t>* strides, int64_t* offset);

// Row-major element strides of `shape` (the last is 1).
std::vector<int64_t> RowMajorStrides(const TensorShape& shape);

// A copy between two strided views of tensor memory: for every multi-index
// i of `dims`,
//   dst[dst_offset + sum_d i_d * dst_strides[d]] =
//       src[src_offset + sum_d i_d * src_strides[d]]
// with offsets and strides counted in elements. Source strides may be zero
// (broadcast) or negative (reverse); the destination positions must be
// distinct.
struct StridedCopySpec {
  std::vector<int64_t> dims;
  std::vector<int64_t> src_strides;
  std::vector<int64_t> dst_strides;
  int64_t src_offset = 0;
  int64_t dst_offset = 0;
};

// Runs `spec` from `src` into `dst`. Adjacent dimensions that walk memory
// contiguously in both views are merged first, so a slice of whole rows is
// a few memcpy calls. Large copies run on the device's intra-op pool.
// REQUIRES: same dtype, a dtype of MovableTypes(), every position inside
// both tensors.
void StridedCopy(const Device& device, const Tensor& src, Tensor* dst,
                 StridedCopySpec spec);

// The same copy with size-1 dimensions dropped and neighbours that walk
// memory contiguously in both views merged (at least one dimension
// remains); what StridedCopy runs, for a device's own copy kernel.
StridedCopySpec SimplifiedStridedCopy(const StridedCopySpec& spec);

// What Tile, Slice, StridedSlice and StridedSliceGrad produce for their
// inputs, checked (errors and messages) as their CPU kernels check them,
// so a device's kernel of these ops validates exactly as the CPU's does
// and then only moves elements. `source` is the op's data input (dy for
// StridedSliceGrad).
struct IndexPlan {
  enum class Kind {
    kForward,  // the output is `source` under `shape`
    kRows,     // rows [row_begin, row_begin + rows) of source's dim 0,
               // under `shape`, sharing its buffer
    kCopy,     // a fresh tensor of `shape`, zeroed first when zero_first,
               // then `copy` from source into it
  };
  Kind kind = Kind::kCopy;
  TensorShape shape;
  int64_t row_begin = 0;
  int64_t rows = 0;
  bool zero_first = false;
  StridedCopySpec copy;
};
absl::Status PlanTile(const Tensor& input, const Tensor& multiples,
                      IndexPlan* plan);
absl::Status PlanSlice(const Tensor& input, const Tensor& begin,
                       const Tensor& size, IndexPlan* plan);
absl::Status PlanStridedSlice(const Tensor& input, const Tensor& begin,
                              const Tensor& end, const Tensor& strides,
                              const StridedSliceMasks& masks, IndexPlan* plan);
absl::Status PlanStridedSliceGrad(const Tensor& shape, const Tensor& begin,
                                  const Tensor& end, const Tensor& strides,
                                  const Tensor& dy,
                                  const StridedSliceMasks& masks,
                                  IndexPlan* plan);

// Sets output 0 of a CPU kernel as `plan` says, from `source`.
void RunIndexPlan(OpKernelContext* ctx, const Tensor& source, IndexPlan plan);

// Calls fn.template operator()<E>() with the element type the byte-moving
// kernels use for `dtype` (VisitMoveType, kernels/type_visitors.h).
// REQUIRES: a dtype of MovableTypes().
template <typename Fn>
void VisitMovableType(DataType dtype, Fn&& fn);

// Sets every element of `t` to zero (false, empty string).
void SetZero(const Device& device, Tensor* t);

// Runs fn(first, last) over disjoint ranges covering [0, n) units, on the
// device's intra-op pool when the whole job moves at least ~256 KiB
// (`bytes_per_unit` each), else inline. Returns when all ranges are done.
template <typename Fn>
void ParallelForUnits(const Device& device, int64_t n, int64_t bytes_per_unit,
                      Fn&& fn);

// One per kernel file; RegisterArrayIndexKernels calls them all.
void RegisterSliceKernels(KernelRegistry* registry);
void RegisterPadKernels(KernelRegistry* registry);
void RegisterTileKernels(KernelRegistry* registry);
void RegisterSplitKernels(KernelRegistry* registry);
void RegisterRangeKernels(KernelRegistry* registry);

// ---------------------------------------------------------------------------
// Implementation details.

inline constexpr int64_t kParallelCopyBytes = 256 * 1024;

template <typename Fn>
void VisitMovableType(DataType dtype, Fn&& fn) {
  DFX_CHECK_MSG(VisitMoveType(dtype, fn), "no element type to move dtype " +
                                              DataTypeString(dtype) + " with");
}

template <typename Fn>
void ParallelForUnits(const Device& device, int64_t n, int64_t bytes_per_unit,
                      Fn&& fn) {
  if (n <= 0) return;
  const ThreadPool* pool = device.intra_op_pool();
  const int64_t unit_bytes = bytes_per_unit < 1 ? 1 : bytes_per_unit;
  if (n == 1 || n < kParallelCopyBytes / unit_bytes || pool == nullptr ||
      pool->NumThreads() <= 1 || pool->CurrentThreadId() >= 0) {
    fn(int64_t{0}, n);
    return;
  }
  device.eigen_cpu_device().parallelFor(
      n,
      Eigen::TensorOpCost(static_cast<double>(unit_bytes),
                          static_cast<double>(unit_bytes), 1.0),
      [&fn](Eigen::Index first, Eigen::Index last) {
        fn(static_cast<int64_t>(first), static_cast<int64_t>(last));
      });
}

}  // namespace dfx::array_internal

#endif  // DFX_KERNELS_ARRAY_INDEX_UTIL_H_
