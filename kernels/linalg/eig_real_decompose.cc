// EigDecompose for real matrices (eig_decompose.h): Eigen's EigenSolver.
#include "kernels/linalg/eig_decompose.h"

#include <complex>
#include <cstdint>

#include "Eigen/Eigenvalues"

namespace dfx::linalg {

template <typename In, typename Out>
bool EigDecompose(const Eigen::Map<const RowMatrix<In>>& a, Out* e, Out* v) {
  const int64_t n = a.rows();
  Eigen::EigenSolver<RowMatrix<In>> solver(a, v != nullptr);
  if (solver.info() != Eigen::Success) return false;
  Eigen::Map<Eigen::Matrix<Out, Eigen::Dynamic, 1>>(e, n) =
      solver.eigenvalues().template cast<Out>();
  if (v != nullptr) {
    Eigen::Map<RowMatrix<Out>>(v, n, n) =
        solver.eigenvectors().template cast<Out>();
  }
  return true;
}

template bool EigDecompose<float, std::complex<float>>(
    const Eigen::Map<const RowMatrix<float>>&, std::complex<float>*,
    std::complex<float>*);
template bool EigDecompose<double, std::complex<double>>(
    const Eigen::Map<const RowMatrix<double>>&, std::complex<double>*,
    std::complex<double>*);

}  // namespace dfx::linalg
