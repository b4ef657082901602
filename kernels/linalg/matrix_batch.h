// Batches of matrices for the one-matrix-at-a-time linalg kernels (the
// decompositions and solvers, Eig, MatrixExponential, MatrixLogarithm):
// TensorFlow's LinearAlgebraOp input checks, output shapes, a parallel loop
// over the matrices, and the kernel of a matrix function. Private to
// kernels/linalg/.
#ifndef DFX_KERNELS_LINALG_MATRIX_BATCH_H_
#define DFX_KERNELS_LINALG_MATRIX_BATCH_H_

#include "kernels/eigen_util.h"  // first: defines EIGEN_USE_THREADS

#include <complex>
#include <cstdint>
#include <initializer_list>
#include <type_traits>
#include <utility>

#include "Eigen/Core"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "runtime/op_kernel.h"

namespace dfx::linalg {

template <typename T>
using RowMatrix =
    Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
template <typename T>
using ConstRowMap = Eigen::Map<const RowMatrix<T>>;
template <typename T>
using RowMap = Eigen::Map<RowMatrix<T>>;
// The real type of T's magnitude (T itself, or the complex's part).
template <typename T>
using RealOf = typename Eigen::NumTraits<T>::Real;
// The double-precision type of T: double for float, complex128 for
// complex64, T itself otherwise. Kernels built on Eigen's heaviest
// templates (BDCSVD, MatrixFunctions) compute float and complex64 matrices
// in it and round the result: one instantiation per real and complex type
// instead of two (each is 20 to 50 s of compile), and a result as accurate
// as TensorFlow's single-precision one or more.
template <typename T>
using WideScalar = std::conditional_t<
    std::is_same_v<T, float>, double,
    std::conditional_t<std::is_same_v<T, std::complex<float>>,
                       std::complex<double>, T>>;

// OK when `in` (input `index` of the op) has rank >= 2, else
// InvalidArgument with TensorFlow's LinearAlgebraOp message.
absl::Status CheckRank(const Tensor& in, int index);
// OK when `in` (input `index` of the op) is a batch of square matrices,
// else InvalidArgument with TensorFlow's LinearAlgebraOp message.
absl::Status CheckSquare(const Tensor& in, int index);

// The batch dims of `in` (all but the last two) followed by `inner`.
absl::StatusOr<TensorShape> BatchShape(const Tensor& in,
                                       std::initializer_list<int64_t> inner);

// The number of matrices in `in` (the product of its batch dims).
int64_t NumMatrices(const Tensor& in);

// Runs fn(b) -> absl::Status for b in [0, count), each a problem of about
// `flops` operations, on the device's intra-op pool when worth splitting.
// Returns the error of the lowest failing b (independent of the thread
// schedule), OK when every call succeeded.
template <typename Fn>
absl::Status ForEachMatrix(const Device& device, int64_t count, double flops,
                           Fn&& fn) {
  absl::Mutex mu;
  int64_t lowest_failed = count;
  absl::Status first_error;
  auto run_range = [&](int64_t begin, int64_t end) {
    for (int64_t b = begin; b < end; ++b) {
      absl::Status s = fn(b);
      if (s.ok()) continue;
      absl::MutexLock lock(&mu);
      if (b < lowest_failed) {
        lowest_failed = b;
        first_error = std::move(s);
      }
      return;
    }
  };
  if (count <= 1 || count * flops < 1e5) {
    run_range(0, count);
  } else {
    device.eigen_cpu_device().parallelFor(
        count, Eigen::TensorOpCost(flops, flops, flops),
        [&run_range](Eigen::Index begin, Eigen::Index end) {
          run_range(begin, end);
        });
  }
  return first_error;
}

// y = F()(x) for each square matrix x of the input: TensorFlow's kernels of
// MatrixExponential and MatrixLogarithm. F maps a RowMatrix<W> to one (an
// Eigen MatrixFunctions expression), W = WideScalar<T>; kFlopsPerCube * n^3
// estimates its cost.
template <typename T, typename F, int kFlopsPerCube>
class MatrixFunctionOp : public OpKernel {
 public:
  using OpKernel::OpKernel;

  void Compute(OpKernelContext* ctx) override {
    const Tensor& in = ctx->input(0);
    DFX_OP_REQUIRES_OK(ctx, CheckSquare(in, 0));
    Tensor* out = nullptr;
    DFX_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, in.shape(), &out));
    const int64_t n = in.dim_size(in.dims() - 1);
    if (n == 0) return;
    const T* src = in.data<T>();
    T* dst = out->data<T>();
    DFX_OP_REQUIRES_OK(
        ctx, ForEachMatrix(*ctx->device(), NumMatrices(in),
                           double{kFlopsPerCube} * n * n * n, [&](int64_t b) {
                             using W = WideScalar<T>;
                             const RowMatrix<W> x =
                                 ConstRowMap<T>(src + b * n * n, n, n)
                                     .template cast<W>();
                             RowMap<T>(dst + b * n * n, n, n) =
                                 F()(x).template cast<T>();
                             return absl::OkStatus();
                           }));
  }
};

// Registration of Eig (eig_op.cc), MatrixExponential
// (matrix_exponential_op.cc) and MatrixLogarithm (matrix_logarithm_op.cc);
// RegisterMatrixKernels calls them. (Declared here rather than in
// matrix_kernels.h, which matrix_decomposition_ops.cc includes: touching
// that header costs minutes of recompiling.)
void RegisterEigKernels(KernelRegistry* registry);
void RegisterMatrixExponentialKernels(KernelRegistry* registry);
void RegisterMatrixLogarithmKernels(KernelRegistry* registry);

}  // namespace dfx::linalg

#endif  // DFX_KERNELS_LINALG_MATRIX_BATCH_H_
