// Batched, strided matrix products on CPU (C[i] = op(A[i]) * op(B[i])) for
// the MatMul, BatchMatMul and Einsum kernels, on the device's intra-op pool.
//
// float runs oneDNN's sgemm (runtime ISA dispatch: SSE4.1 to AVX-512, so the
// binary needs no -m flags), one single-threaded call per shard of the work,
// the shards spread over the intra-op pool: the product uses exactly the
// threads that ConfigProto.intra_op_parallelism_threads grants, and no OpenMP
// team is started. half and bfloat16 are converted to float, multiplied with
// float accumulation and rounded once. double and the integer types run
// Eigen's matrix product per shard, as do complex64 and complex128 (Eigen's
// complex GEMM, the product TensorFlow's CPU kernels compute with).
// docs/architecture.md gives the measured reasons.
#ifndef DFX_KERNELS_LINALG_GEMM_H_
#define DFX_KERNELS_LINALG_GEMM_H_

#include <cstdint>
#include <functional>
#include <vector>

#include "runtime/device.h"

namespace dfx::linalg {

// One operand (or the result) of a batched product: matrix i of the batch
// starts at data + index(i) * batch_stride, where index(i) is i, or
// batch_index[i] when batch_index is non-empty (broadcast batch dims); its
// rows are `ld` elements apart (row-major). Borrowed pointers.
template <typename T>
struct MatrixBatch {
  T* data = nullptr;
  int64_t ld = 0;
  int64_t batch_stride = 0;
  const std::vector<int64_t>* batch_index = nullptr;  // null: identity

  T* At(int64_t i) const {
    return data + (batch_index == nullptr ? i : (*batch_index)[i]) *
                      batch_stride;
  }
};

// C[i] (m x n) = op(A[i]) * op(B[i]) for i in [0, batch), where op(A[i]) is
// A[i] (m x k) or, with transpose_a, the transpose of A[i] (stored k x m);
// likewise B (k x n, or n x k stored with transpose_b). C is overwritten;
// with k == 0 it is set to zeros. Runs on device.intra_op_pool() (at most
// its NumThreads() threads, the caller's included) when the work is large
// enough, inline otherwise or when called from an intra-op thread.
// T: float, double, Eigen::half, Eigen::bfloat16, int16_t, int32_t, int64_t,
// std::complex<float>, std::complex<double>. No operand is conjugated: a
// caller wanting an adjoint conjugates a copy (BatchMatMul's adj_x/adj_y).
// REQUIRES: batch, m, n, k >= 0; the leading dimensions fit the stored
// shapes; C does not overlap A or B.
template <typename T>
void BatchedGemm(const Device& device, int64_t batch, int64_t m, int64_t n,
                 int64_t k, const MatrixBatch<const T>& a, bool transpose_a,
                 const MatrixBatch<const T>& b, bool transpose_b,
                 const MatrixBatch<T>& c);

// A single product: C (m x n, ldc) = op(A) * op(B), as above.
template <typename T>
void Gemm(const Device& device, int64_t m, int64_t n, int64_t k, const T* a,
          int64_t lda, bool transpose_a, const T* b, int64_t ldb,
          bool transpose_b, T* c, int64_t ldc) {
  BatchedGemm<T>(device, 1, m, n, k, {a, lda, 0, nullptr}, transpose_a,
                 {b, ldb, 0, nullptr}, transpose_b, {c, ldc, 0, nullptr});
}

// For a broadcast batch: `out` is the output's batch dims and `in` an
// operand's, of the same rank, each dim equal to out's or 1. Returns the
// operand's flat batch index for every flat output batch index, or an empty
// vector when they coincide (no dim broadcast).
std::vector<int64_t> BroadcastBatchIndex(const std::vector<int64_t>& out,
                                         const std::vector<int64_t>& in);

// Runs fn(shard) for shard in [0, num_shards), spread over the device's
// intra-op pool with the calling thread running shard 0; returns when all
// are done. Inline and in order when there is no pool, one shard, or the
// caller is itself an intra-op thread (no nested waits).
void RunShards(const Device& device, int64_t num_shards,
               const std::function<void(int64_t)>& fn);

}  // namespace dfx::linalg

#endif  // DFX_KERNELS_LINALG_GEMM_H_
