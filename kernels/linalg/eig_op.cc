// Eig: the eigenvalues (and eigenvectors) of each square matrix, real or
// complex, as complex numbers, computed as TensorFlow 2.21's CPU kernel
// computes them, with Eigen's solvers: a complex input with
// ComplexEigenSolver (complex Schur form; eigenvalues sorted by increasing
// magnitude), a real one with EigenSolver (real Schur form, eigenvalues in
// the order it leaves them, a conjugate pair with the positive imaginary
// part first). Each eigenvector (a column of v) has unit norm. float and
// complex64 give complex64, double and complex128 give complex128; any
// other Tout fails as in TensorFlow.
//
// The decompositions live in eig_real_decompose.cc and
// eig_complex_decompose.cc: their Eigen instantiations are slow to compile,
// and apart they build in parallel.
#include <algorithm>
#include <complex>
#include <cstdint>

#include "absl/strings/str_cat.h"
#include "graph/node_def_util.h"
#include "kernels/linalg/eig_decompose.h"
#include "kernels/linalg/matrix_batch.h"

namespace dfx::linalg {
namespace {

template <typename In, typename Out>
class EigOp : public OpKernel {
 public:
  explicit EigOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    ctx->SetStatus(GetNodeAttr(ctx->def(), "compute_v", &compute_v_));
    DataType tout = DT_INVALID;
    if (ctx->status().ok()) {
      ctx->SetStatus(GetNodeAttr(ctx->def(), "Tout", &tout));
    }
    // TensorFlow registers one kernel per T, whose output type is fixed;
    // another Tout fails when the kernel checks its output types.
    if (ctx->status().ok() && tout != DataTypeToEnum<Out>::value) {
      ctx->SetStatus(absl::InvalidArgumentError(
          absl::StrCat("Invalid output dtype ", static_cast<int>(tout), " vs ",
                       static_cast<int>(DataTypeToEnum<Out>::value))));
    }
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& in = ctx->input(0);
    DFX_OP_REQUIRES_OK(ctx, CheckSquare(in, 0));
    const int64_t n = in.dim_size(in.dims() - 1);
    absl::StatusOr<TensorShape> e_shape = BatchShape(in, {n});
    DFX_OP_REQUIRES_OK(ctx, e_shape.status());
    // Without vectors TensorFlow's v is one unwritten element per matrix
    // (as SelfAdjointEigV2's); dfx writes zeros there.
    absl::StatusOr<TensorShape> v_shape =
        compute_v_ ? BatchShape(in, {n, n}) : BatchShape(in, {});
    DFX_OP_REQUIRES_OK(ctx, v_shape.status());
    Tensor* e_out = nullptr;
    Tensor* v_out = nullptr;
    DFX_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, *e_shape, &e_out));
    DFX_OP_REQUIRES_OK(ctx, ctx->allocate_output(1, *v_shape, &v_out));
    if (!compute_v_) {
      std::fill_n(v_out->data<Out>(), v_out->NumElements(), Out(0));
    }
    if (n == 0) return;
    const In* src = in.data<In>();
    Out* e = e_out->data<Out>();
    Out* v = v_out->data<Out>();
    DFX_OP_REQUIRES_OK(
        ctx,
        ForEachMatrix(
            *ctx->device(), NumMatrices(in), 25.0 * n * n * n,
            [&](int64_t b) {
              const Eigen::Map<const RowMatrix<In>> a(src + b * n * n, n,
                                                       n);
              if (!EigDecompose<In, Out>(a, e + b * n,
                                      compute_v_ ? v + b * n * n : nullptr)) {
                return absl::InvalidArgumentError(
                    "Eigen decomposition was not successful. The input "
                    "might not be valid.");
              }
              return absl::OkStatus();
            }));
  }

 private:
  bool compute_v_ = true;
};

template <typename In, typename Out>
void RegisterEig(KernelRegistry* registry) {
  RegisterKernel<EigOp<In, Out>>(
      registry, KernelDefBuilder("Eig").TypeConstraint<In>("T"));
}

}  // namespace

void RegisterEigKernels(KernelRegistry* registry) {
  RegisterEig<float, std::complex<float>>(registry);
  RegisterEig<double, std::complex<double>>(registry);
  RegisterEig<std::complex<float>, std::complex<float>>(registry);
  RegisterEig<std::complex<double>, std::complex<double>>(registry);
}

}  // namespace dfx::linalg
