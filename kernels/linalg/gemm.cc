// Why the product is built this way (numbers in docs/architecture.md):
//
// * oneDNN's dnnl_sgemm, measured on AVX2 hardware, is within noise of
//   OpenBLAS and well ahead of BLIS and of Eigen, and 2-3x ahead of Eigen as
//   dfx compiles it (no -m flags: SSE2 only). oneDNN picks its kernels at run
//   time, so the binary still runs on any x86-64, and dfx already links it
//   for the convolutions.
// * Debian's oneDNN threads with OpenMP. Letting it start a team per calling
//   thread would ignore intra_op_parallelism_threads and oversubscribe the
//   cores (a team per executor thread, spinning between regions). Instead
//   each shard calls sgemm with one OpenMP thread, and the shards run on the
//   intra-op pool; the caller's OpenMP setting is restored afterwards so
//   oneDNN primitives of other kernels on the same thread are unaffected.
// * Shards split the batch when it has enough matrices, else the rows (or
//   columns, whichever is longer) of each product; every shard carries at
//   least kMinShardWork multiply-adds, so small products run inline.
#include "kernels/linalg/gemm.h"

#include <omp.h>

#include <algorithm>
#include <complex>
#include <cstring>
#include <type_traits>
#include <vector>

#include "Eigen/Core"
#include "absl/synchronization/blocking_counter.h"
#include "oneapi/dnnl/dnnl.h"
#include "runtime/thread_pool.h"

namespace dfx::linalg {
namespace {

// Multiply-adds below which splitting a product costs more than it saves.
// Alone on a quiet pool a 160x160 product gains from two shards
// (`dfx_bench kernels`: 192x192 at 398 GFLOP/s split, 228 not), but in a
// server, where the step's other threads and gRPC's share the cores, the
// hand-off to the intra-op pool dominates: a TensorFlow client's chain of
// 160x160 MatMuls ran 1.77x TensorFlow's step time split at 1 M
// multiply-adds and 1.03x unsplit (tools/bench/matmul_chain_vs_tf.py).
constexpr int64_t kMinShardWork = 1 << 23;

template <typename T>
using RowMajorMatrix =
    Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
template <typename T>
using RowMajorMap = Eigen::Map<RowMajorMatrix<T>, 0, Eigen::OuterStride<>>;
template <typename T>
using ConstRowMajorMap =
    Eigen::Map<const RowMajorMatrix<T>, 0, Eigen::OuterStride<>>;

// Writes the transpose of the rows x cols matrix at src (row stride ld) to
// dst (cols x rows, contiguous), in tiles so that both sides stay in cache.
template <typename T>
void TransposeInto(const T* src, int64_t rows, int64_t cols, int64_t ld,
                   T* dst) {
  constexpr int64_t kTile = 32;
  for (int64_t r0 = 0; r0 < rows; r0 += kTile) {
    const int64_t r1 = std::min(rows, r0 + kTile);
    for (int64_t c0 = 0; c0 < cols; c0 += kTile) {
      const int64_t c1 = std::min(cols, c0 + kTile);
      for (int64_t r = r0; r < r1; ++r) {
        for (int64_t c = c0; c < c1; ++c) dst[c * rows + r] = src[r * ld + c];
      }
    }
  }
}

// Whether EigenGemm multiplies transposed T operands as they are stored.
// Only double does: its four operand layouts are four instantiations of
// Eigen's product (about half a second of compile each per type), which the
// integer and complex types and float's rare fallback do without (a
// transposed operand is copied first; BatchedGemm copies those once, before
// splitting the work). Copying costs double's MatMul 10 to 20% at 64 to 512.
template <typename T>
constexpr bool kTransposesInPlace = std::is_same_v<T, double>;

// C = op(A) * op(B) with Eigen, single-threaded. REQUIRES: m, n, k > 0.
template <typename T>
void EigenGemm(int64_t m, int64_t n, int64_t k, const T* a, int64_t lda,
               bool ta, const T* b, int64_t ldb, bool tb, T* c, int64_t ldc) {
  if constexpr (kTransposesInPlace<T>) {
    const ConstRowMajorMap<T> am(a, ta ? k : m, ta ? m : k,
                                 Eigen::OuterStride<>(lda));
    const ConstRowMajorMap<T> bm(b, tb ? n : k, tb ? k : n,
                                 Eigen::OuterStride<>(ldb));
    RowMajorMap<T> cm(c, m, n, Eigen::OuterStride<>(ldc));
    if (ta && tb) {
      cm.noalias() = am.transpose() * bm.transpose();
    } else if (ta) {
      cm.noalias() = am.transpose() * bm;
    } else if (tb) {
      cm.noalias() = am * bm.transpose();
    } else {
      cm.noalias() = am * bm;
    }
  } else {
    std::vector<T> a_copy, b_copy;
    if (ta) {
      a_copy.resize(static_cast<size_t>(m * k));
      TransposeInto(a, k, m, lda, a_copy.data());
      a = a_copy.data();
      lda = k;
    }
    if (tb) {
      b_copy.resize(static_cast<size_t>(k * n));
      TransposeInto(b, n, k, ldb, b_copy.data());
      b = b_copy.data();
      ldb = n;
    }
    const ConstRowMajorMap<T> am(a, m, k, Eigen::OuterStride<>(lda));
    const ConstRowMajorMap<T> bm(b, k, n, Eigen::OuterStride<>(ldb));
    RowMajorMap<T> cm(c, m, n, Eigen::OuterStride<>(ldc));
    cm.noalias() = am * bm;
  }
}

// float through oneDNN with one OpenMP thread (see the top of this file).
void FloatGemm(int64_t m, int64_t n, int64_t k, const float* a, int64_t lda,
               bool ta, const float* b, int64_t ldb, bool tb, float* c,
               int64_t ldc) {
  const int saved_threads = omp_get_max_threads();
  if (saved_threads != 1) omp_set_num_threads(1);
  const dnnl_status_t status =
      dnnl_sgemm(ta ? 'T' : 'N', tb ? 'T' : 'N', m, n, k, 1.0f, a, lda, b, ldb,
                 0.0f, c, ldc);
  if (saved_threads != 1) omp_set_num_threads(saved_threads);
  // oneDNN only fails for arguments it rejects or when out of memory; Eigen
  // gives the same product then.
  if (status != dnnl_success) {
    EigenGemm<float>(m, n, k, a, lda, ta, b, ldb, tb, c, ldc);
  }
}

// Copies a rows x cols block (row stride ld) of half/bfloat16 to float.
template <typename T>
void ToFloat(const T* src, int64_t rows, int64_t cols, int64_t ld,
             float* dst) {
  for (int64_t r = 0; r < rows; ++r) {
    const T* s = src + r * ld;
    float* d = dst + r * cols;
    for (int64_t j = 0; j < cols; ++j) d[j] = static_cast<float>(s[j]);
  }
}

template <typename T>
using AccumulatorType =
    std::conditional_t<std::is_same_v<T, Eigen::half> ||
                           std::is_same_v<T, Eigen::bfloat16>,
                       float, T>;

// Products with at most this many multiply-adds (Einsum's element-wise
// cases, tiny batched matrices) skip the libraries' per-call setup.
constexpr int64_t kNaiveWork = 512;

template <typename T>
void NaiveGemm(int64_t m, int64_t n, int64_t k, const T* a, int64_t lda,
               bool ta, const T* b, int64_t ldb, bool tb, T* c, int64_t ldc) {
  using Acc = AccumulatorType<T>;
  for (int64_t i = 0; i < m; ++i) {
    for (int64_t j = 0; j < n; ++j) {
      Acc sum = Acc(0);
      for (int64_t l = 0; l < k; ++l) {
        const T x = ta ? a[l * lda + i] : a[i * lda + l];
        const T y = tb ? b[j * ldb + l] : b[l * ldb + j];
        sum += static_cast<Acc>(x) * static_cast<Acc>(y);
      }
      c[i * ldc + j] = static_cast<T>(sum);
    }
  }
}

// One single-threaded product. REQUIRES: m, n, k > 0.
template <typename T>
void SingleGemm(int64_t m, int64_t n, int64_t k, const T* a, int64_t lda,
                bool ta, const T* b, int64_t ldb, bool tb, T* c, int64_t ldc) {
  if (m * n * k <= kNaiveWork) {
    NaiveGemm<T>(m, n, k, a, lda, ta, b, ldb, tb, c, ldc);
  } else if constexpr (std::is_same_v<T, float>) {
    FloatGemm(m, n, k, a, lda, ta, b, ldb, tb, c, ldc);
  } else if constexpr (std::is_same_v<T, Eigen::half> ||
                       std::is_same_v<T, Eigen::bfloat16>) {
    // Float operands, float accumulation, one rounding at the end.
    const int64_t a_rows = ta ? k : m, a_cols = ta ? m : k;
    const int64_t b_rows = tb ? n : k, b_cols = tb ? k : n;
    std::vector<float> af(a_rows * a_cols), bf(b_rows * b_cols), cf(m * n);
    ToFloat(a, a_rows, a_cols, lda, af.data());
    ToFloat(b, b_rows, b_cols, ldb, bf.data());
    FloatGemm(m, n, k, af.data(), a_cols, ta, bf.data(), b_cols, tb,
              cf.data(), n);
    for (int64_t r = 0; r < m; ++r) {
      for (int64_t j = 0; j < n; ++j) c[r * ldc + j] = T(cf[r * n + j]);
    }
  } else {
    EigenGemm<T>(m, n, k, a, lda, ta, b, ldb, tb, c, ldc);
  }
}

// Rows [first, last) of the product C = op(A) * op(B).
template <typename T>
void RowBlock(int64_t first, int64_t last, int64_t n, int64_t k, const T* a,
              int64_t lda, bool ta, const T* b, int64_t ldb, bool tb, T* c,
              int64_t ldc) {
  if (first >= last) return;
  SingleGemm<T>(last - first, n, k, ta ? a + first : a + first * lda, lda, ta,
                b, ldb, tb, c + first * ldc, ldc);
}

// Columns [first, last) of the product.
template <typename T>
void ColBlock(int64_t first, int64_t last, int64_t m, int64_t k, const T* a,
              int64_t lda, bool ta, const T* b, int64_t ldb, bool tb, T* c,
              int64_t ldc) {
  if (first >= last) return;
  SingleGemm<T>(m, last - first, k, a, lda, ta,
                tb ? b + first * ldb : b + first, ldb, tb, c + first, ldc);
}

template <typename T>
void ZeroFill(int64_t batch, int64_t m, int64_t n, const MatrixBatch<T>& c) {
  for (int64_t i = 0; i < batch; ++i) {
    T* ci = c.At(i);
    for (int64_t r = 0; r < m; ++r) std::fill_n(ci + r * c.ld, n, T(0));
  }
}

}  // namespace

std::vector<int64_t> BroadcastBatchIndex(const std::vector<int64_t>& out,
                                         const std::vector<int64_t>& in) {
  if (out == in) return {};
  int64_t total = 1;
  for (int64_t d : out) total *= d;
  std::vector<int64_t> index(total);
  const int rank = static_cast<int>(out.size());
  // in_stride[d]: the operand's flat stride of dim d, 0 when broadcast.
  std::vector<int64_t> in_stride(rank, 0);
  int64_t stride = 1;
  for (int d = rank - 1; d >= 0; --d) {
    in_stride[d] = in[d] == 1 ? 0 : stride;
    stride *= in[d];
  }
  for (int64_t i = 0; i < total; ++i) {
    int64_t rest = i;
    int64_t at = 0;
    for (int d = rank - 1; d >= 0; --d) {
      at += (rest % out[d]) * in_stride[d];
      rest /= out[d];
    }
    index[i] = at;
  }
  return index;
}

void RunShards(const Device& device, int64_t num_shards,
               const std::function<void(int64_t)>& fn) {
  ThreadPool* pool = device.intra_op_pool();
  if (num_shards <= 1 || pool == nullptr || pool->CurrentThreadId() >= 0) {
    for (int64_t s = 0; s < num_shards; ++s) fn(s);
    return;
  }
  absl::BlockingCounter pending(static_cast<int>(num_shards - 1));
  for (int64_t s = 1; s < num_shards; ++s) {
    pool->Schedule([&fn, &pending, s] {
      fn(s);
      pending.DecrementCount();
    });
  }
  fn(0);
  pending.Wait();
}

template <typename T>
void BatchedGemm(const Device& device, int64_t batch, int64_t m, int64_t n,
                 int64_t k, const MatrixBatch<const T>& a, bool transpose_a,
                 const MatrixBatch<const T>& b, bool transpose_b,
                 const MatrixBatch<T>& c) {
  if (batch <= 0 || m <= 0 || n <= 0) return;
  if (k <= 0) {
    ZeroFill(batch, m, n, c);
    return;
  }
  if constexpr (!kTransposesInPlace<T> && !std::is_same_v<T, float> &&
                !std::is_same_v<T, Eigen::half> &&
                !std::is_same_v<T, Eigen::bfloat16>) {
    // These products run in Eigen (EigenGemm) on untransposed operands:
    // transpose each stored operand matrix once here.
    if ((transpose_a || transpose_b) && m * n * k > kNaiveWork) {
      auto untransposed = [&](const MatrixBatch<const T>& x, int64_t rows,
                              int64_t cols, std::vector<T>* copy) {
        // The stored matrices: batch_index may name each more than once.
        int64_t count = batch;
        if (x.batch_index != nullptr) {
          count = 0;
          for (int64_t i : *x.batch_index) count = std::max(count, i + 1);
        }
        copy->resize(static_cast<size_t>(count * rows * cols));
        for (int64_t i = 0; i < count; ++i) {
          TransposeInto(x.data + i * x.batch_stride, rows, cols, x.ld,
                        copy->data() + i * rows * cols);
        }
        return MatrixBatch<const T>{copy->data(), rows, rows * cols,
                                    x.batch_index};
      };
      std::vector<T> a_copy, b_copy;
      const MatrixBatch<const T> a2 =
          transpose_a ? untransposed(a, k, m, &a_copy) : a;
      const MatrixBatch<const T> b2 =
          transpose_b ? untransposed(b, n, k, &b_copy) : b;
      BatchedGemm<T>(device, batch, m, n, k, a2, false, b2, false, c);
      return;
    }
  }
  // How many shards the work pays for, at most one per intra-op thread.
  const ThreadPool* pool = device.intra_op_pool();
  const int64_t threads =
      pool == nullptr || pool->CurrentThreadId() >= 0 ? 1 : pool->NumThreads();
  // m*n*k*batch may overflow for absurd shapes: cap each factor's effect.
  const double work = static_cast<double>(batch) * static_cast<double>(m) *
                      static_cast<double>(n) * static_cast<double>(k);
  const int64_t shards = static_cast<int64_t>(std::clamp(
      work / kMinShardWork, 1.0, static_cast<double>(threads)));
  if (shards >= 2 && batch >= shards) {
    // Whole products per shard, the batch split evenly.
    RunShards(device, shards, [&](int64_t s) {
      const int64_t first = batch * s / shards;
      const int64_t last = batch * (s + 1) / shards;
      for (int64_t i = first; i < last; ++i) {
        SingleGemm<T>(m, n, k, a.At(i), a.ld, transpose_a, b.At(i), b.ld,
                      transpose_b, c.At(i), c.ld);
      }
    });
    return;
  }
  // Fewer products than shards: split each product's longer output side
  // into parts, whole multiples of 16 so kernels keep full vectors.
  const int64_t parts = (shards + batch - 1) / batch;
  const bool by_rows = m >= n;
  const int64_t side = by_rows ? m : n;
  int64_t chunk = (side + parts - 1) / parts;
  if (side >= 16 * parts) chunk = (chunk + 15) / 16 * 16;
  const int64_t items = batch * parts;
  RunShards(device, std::min(shards, items), [&](int64_t s) {
    const int64_t num = std::min(shards, items);
    const int64_t first_item = items * s / num;
    const int64_t last_item = items * (s + 1) / num;
    for (int64_t item = first_item; item < last_item; ++item) {
      const int64_t i = item / parts;
      const int64_t p = item % parts;
      const int64_t lo = std::min(side, p * chunk);
      const int64_t hi = std::min(side, lo + chunk);
      if (by_rows) {
        RowBlock<T>(lo, hi, n, k, a.At(i), a.ld, transpose_a, b.At(i), b.ld,
                    transpose_b, c.At(i), c.ld);
      } else {
        ColBlock<T>(lo, hi, m, k, a.At(i), a.ld, transpose_a, b.At(i), b.ld,
                    transpose_b, c.At(i), c.ld);
      }
    }
  });
}

#define DFX_INSTANTIATE_GEMM(T)                                             \
  template void BatchedGemm<T>(const Device&, int64_t, int64_t, int64_t,    \
                               int64_t, const MatrixBatch<const T>&, bool,  \
                               const MatrixBatch<const T>&, bool,           \
                               const MatrixBatch<T>&);
DFX_INSTANTIATE_GEMM(float)
DFX_INSTANTIATE_GEMM(double)
DFX_INSTANTIATE_GEMM(Eigen::half)
DFX_INSTANTIATE_GEMM(Eigen::bfloat16)
DFX_INSTANTIATE_GEMM(int16_t)
DFX_INSTANTIATE_GEMM(int32_t)
DFX_INSTANTIATE_GEMM(int64_t)
DFX_INSTANTIATE_GEMM(std::complex<float>)
DFX_INSTANTIATE_GEMM(std::complex<double>)
#undef DFX_INSTANTIATE_GEMM

}  // namespace dfx::linalg
