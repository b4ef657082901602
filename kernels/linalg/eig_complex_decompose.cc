// EigDecompose for complex matrices (eig_decompose.h): Eigen's
// ComplexEigenSolver.
#include "kernels/linalg/eig_decompose.h"

#include <complex>
#include <cstdint>

#include "Eigen/Eigenvalues"

namespace dfx::linalg {

template <typename In, typename Out>
bool EigDecompose(const Eigen::Map<const RowMatrix<In>>& a, Out* e, Out* v) {
  const int64_t n = a.rows();
  Eigen::ComplexEigenSolver<RowMatrix<Out>> solver(a, v != nullptr);
  if (solver.info() != Eigen::Success) return false;
  Eigen::Map<Eigen::Matrix<Out, Eigen::Dynamic, 1>>(e, n) =
      solver.eigenvalues();
  if (v != nullptr) Eigen::Map<RowMatrix<Out>>(v, n, n) = solver.eigenvectors();
  return true;
}

template bool EigDecompose<std::complex<float>, std::complex<float>>(
    const Eigen::Map<const RowMatrix<std::complex<float>>>&,
    std::complex<float>*, std::complex<float>*);
template bool EigDecompose<std::complex<double>, std::complex<double>>(
    const Eigen::Map<const RowMatrix<std::complex<double>>>&,
    std::complex<double>*, std::complex<double>*);

}  // namespace dfx::linalg
