// StridedCopy: the data movement of Einsum (transposes, diagonals, sums over
// dropped labels) as one loop over arbitrary strides, on the intra-op pool.
#ifndef DFX_KERNELS_LINALG_STRIDED_COPY_H_
#define DFX_KERNELS_LINALG_STRIDED_COPY_H_

#include "kernels/eigen_util.h"  // first: defines EIGEN_USE_THREADS

#include <algorithm>
#include <cstdint>
#include <type_traits>
#include <vector>

#include "runtime/thread_pool.h"

namespace dfx::linalg {

// For every index tuple i over `dims`:
//   dst[sum_d i_d * dst_strides[d]] =
//       sum over tuples j of red_dims of
//           src[sum_d i_d * src_strides[d] + sum_e j_e * red_strides[e]]
// (a plain strided copy when red_dims is empty; zero when a red dim is 0).
// Strides are in elements and may be 0 (broadcast) or repeat (diagonals).
struct StridedLoop {
  std::vector<int64_t> dims;
  std::vector<int64_t> src_strides;
  std::vector<int64_t> dst_strides;
  std::vector<int64_t> red_dims;
  std::vector<int64_t> red_strides;
};

// half and bfloat16 sum in float.
template <typename T>
void StridedCopy(const Device& device, const StridedLoop& loop, const T* src,
                 T* dst) {
  using Acc = std::conditional_t<std::is_same_v<T, Eigen::half> ||
                                     std::is_same_v<T, Eigen::bfloat16>,
                                 float, T>;
  const int rank = static_cast<int>(loop.dims.size());
  const int64_t inner = rank == 0 ? 1 : loop.dims[rank - 1];
  const int64_t src_inner = rank == 0 ? 0 : loop.src_strides[rank - 1];
  const int64_t dst_inner = rank == 0 ? 0 : loop.dst_strides[rank - 1];
  int64_t rows = 1;
  for (int d = 0; d + 1 < rank; ++d) rows *= loop.dims[d];
  int64_t red_total = 1;
  for (int64_t r : loop.red_dims) red_total *= r;
  if (rows == 0 || inner == 0) return;
  const int red_rank = static_cast<int>(loop.red_dims.size());

  auto run_rows = [&](int64_t first, int64_t last) {
    std::vector<int64_t> red_index(red_rank);
    for (int64_t row = first; row < last; ++row) {
      int64_t rest = row;
      int64_t s = 0;
      int64_t t = 0;
      for (int d = rank - 2; d >= 0; --d) {
        const int64_t i = rest % loop.dims[d];
        rest /= loop.dims[d];
        s += i * loop.src_strides[d];
        t += i * loop.dst_strides[d];
      }
      const T* in = src + s;
      T* out = dst + t;
      if (red_rank == 0) {
        if (src_inner == 1 && dst_inner == 1) {
          std::copy_n(in, inner, out);
        } else {
          for (int64_t j = 0; j < inner; ++j) {
            out[j * dst_inner] = in[j * src_inner];
          }
        }
        continue;
      }
      for (int64_t j = 0; j < inner; ++j) {
        Acc sum = Acc(0);
        if (red_total > 0) {
          std::fill(red_index.begin(), red_index.end(), 0);
          int64_t off = j * src_inner;
          while (true) {
            // Innermost reduced dim as a plain loop.
            const int64_t n = loop.red_dims[red_rank - 1];
            const int64_t st = loop.red_strides[red_rank - 1];
            for (int64_t r = 0; r < n; ++r) {
              sum += static_cast<Acc>(in[off + r * st]);
            }
            int e = red_rank - 2;
            for (; e >= 0; --e) {
              off += loop.red_strides[e];
              if (++red_index[e] < loop.red_dims[e]) break;
              off -= red_index[e] * loop.red_strides[e];
              red_index[e] = 0;
            }
            if (e < 0) break;
          }
        }
        out[j * dst_inner] = static_cast<T>(sum);
      }
    }
  };
  const int64_t work = rows * inner * red_total;
  if (work < kParallelEvalThreshold) {
    run_rows(0, rows);
    return;
  }
  // Few long rows are split too (ParallelFor alone would keep them inline).
  const ThreadPool* pool = device.intra_op_pool();
  if (rows < 2 || pool == nullptr || pool->NumThreads() <= 1 ||
      pool->CurrentThreadId() >= 0) {
    run_rows(0, rows);
    return;
  }
  const double per_row = static_cast<double>(inner * red_total);
  device.eigen_cpu_device().parallelFor(
      rows,
      Eigen::TensorOpCost(per_row * sizeof(T), inner * sizeof(T), per_row),
      [&run_rows](Eigen::Index first, Eigen::Index last) {
        run_rows(first, last);
      });
}

}  // namespace dfx::linalg

#endif  // DFX_KERNELS_LINALG_STRIDED_COPY_H_
