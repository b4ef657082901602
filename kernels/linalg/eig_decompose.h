// The eigen decomposition of one square matrix for the Eig kernel
// (eig_op.cc): EigDecompose<In, Out>, instantiated for real In in
// eig_real_decompose.cc and for complex In in eig_complex_decompose.cc, so
// that the two slow-to-compile Eigen solvers build in parallel. Private to
// kernels/linalg/.
#ifndef DFX_KERNELS_LINALG_EIG_DECOMPOSE_H_
#define DFX_KERNELS_LINALG_EIG_DECOMPOSE_H_

#include "kernels/linalg/matrix_batch.h"

namespace dfx::linalg {

// Writes the eigenvalues of the n x n matrix `a` to e[0..n) and, when v is
// not null, the unit eigenvectors as the columns of v (n x n, row-major);
// returns false when the solver did not converge. A complex In is solved
// with Eigen's ComplexEigenSolver (eigenvalues by increasing magnitude), a
// real one with EigenSolver (the real Schur form's order, a conjugate pair
// with the positive imaginary part first), as TensorFlow's kernel does.
// (In, Out): (float, complex64), (double, complex128), (complex64,
// complex64), (complex128, complex128).
template <typename In, typename Out>
bool EigDecompose(const Eigen::Map<const RowMatrix<In>>& a, Out* e, Out* v);

}  // namespace dfx::linalg

#endif  // DFX_KERNELS_LINALG_EIG_DECOMPOSE_H_
