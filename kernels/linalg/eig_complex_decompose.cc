// EigDecompose for complex matrices (eig_decompose.h): Eigen's
// ComplexEigenSolver.
#include "kernels/linalg/eig_decompose.h"

#include <complex>
#include <cstdint>

#include "Eigen/Eigenvalues"

namespace dfx::linalg {

// complex64 matrices are solved in complex128 (WideScalar) and the result
// rounded, as Svd does: one instantiation of Eigen's ComplexEigenSolver
// instead of two (this file compiled in 19.7 s of CPU with both).
template <typename In, typename Out>
bool EigDecompose(const Eigen::Map<const RowMatrix<In>>& a, Out* e, Out* v) {
  using W = WideScalar<Out>;
  const int64_t n = a.rows();
  Eigen::ComplexEigenSolver<RowMatrix<W>> solver(a.template cast<W>(),
                                                 v != nullptr);
  if (solver.info() != Eigen::Success) return false;
  Eigen::Map<Eigen::Matrix<Out, Eigen::Dynamic, 1>>(e, n) =
      solver.eigenvalues().template cast<Out>();
  if (v != nullptr) {
    Eigen::Map<RowMatrix<Out>>(v, n, n) =
        solver.eigenvectors().template cast<Out>();
  }
  return true;
}

template bool EigDecompose<std::complex<float>, std::complex<float>>(
    const Eigen::Map<const RowMatrix<std::complex<float>>>&,
    std::complex<float>*, std::complex<float>*);
template bool EigDecompose<std::complex<double>, std::complex<double>>(
    const Eigen::Map<const RowMatrix<std::complex<double>>>&,
    std::complex<double>*, std::complex<double>*);

}  // namespace dfx::linalg
