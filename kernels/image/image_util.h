// Parallel loops for the image kernels, whose units (an output row, an
// image, a box) are few but large.
#ifndef DFX_KERNELS_IMAGE_IMAGE_UTIL_H_
#define DFX_KERNELS_IMAGE_IMAGE_UTIL_H_

#include <cstdint>
#include <initializer_list>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "kernels/eigen_util.h"
#include "runtime/device.h"
#include "runtime/op_kernel.h"

namespace dfx {

// Like ParallelFor, but the threshold is the total cost (n units of
// `cost_per_unit` bytes and cycles) rather than n: ParallelFor runs fewer
// than 32K units inline, which would keep a 512-row image on one thread.
template <typename Fn>
void ImageParallelFor(const Device& device, int64_t n,
                      const Eigen::TensorOpCost& cost_per_unit, Fn&& fn) {
  if (n <= 0) return;
  const double unit = cost_per_unit.bytes_loaded() +
                      cost_per_unit.bytes_stored() +
                      cost_per_unit.compute_cycles();
  const ThreadPool* pool = device.intra_op_pool();
  if (n == 1 || static_cast<double>(n) * unit < 256 * 1024 || pool == nullptr ||
      pool->NumThreads() <= 1 || pool->CurrentThreadId() >= 0) {
    fn(int64_t{0}, n);
    return;
  }
  device.eigen_cpu_device().parallelFor(
      n, cost_per_unit, [&fn](Eigen::Index first, Eigen::Index last) {
        fn(static_cast<int64_t>(first), static_cast<int64_t>(last));
      });
}

// Allocates output `index` of shape `dims`, which come from inputs or
// attrs: InvalidArgument (not a crash) when a dim is negative or the
// element count is too large.
inline absl::Status AllocateImageOutput(OpKernelContext* ctx, int index,
                                        std::initializer_list<int64_t> dims,
                                        Tensor** out) {
  DFX_ASSIGN_OR_RETURN(
      TensorShape shape,
      TensorShape::Build(absl::Span<const int64_t>(dims.begin(), dims.size())));
  return ctx->allocate_output(index, shape, out);
}

// a * b for sizes from inputs or attrs (both >= 0); InvalidArgument when
// the product overflows int64.
inline absl::Status CheckedMul(int64_t a, int64_t b, int64_t* product) {
  if (__builtin_mul_overflow(a, b, product)) {
    return absl::InvalidArgumentError(
        absl::StrCat("size ", a, " * ", b, " overflows int64"));
  }
  return absl::OkStatus();
}

}  // namespace dfx

#endif  // DFX_KERNELS_IMAGE_IMAGE_UTIL_H_
