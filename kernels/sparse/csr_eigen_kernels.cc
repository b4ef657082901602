// The CSR sparse matrix kernels built on Eigen's sparse module, which
// TensorFlow's own CPU kernels use and whose results (the sparse product's
// pattern, the AMD permutation, the Cholesky factor's fill) only the same
// code reproduces bit for bit: SparseMatrixSparseMatMul,
// SparseMatrixOrderingAMD and SparseMatrixSparseCholesky. Eigen's sparse
// templates are slow to compile, so they live in this one file and are
// instantiated for exactly the four dtypes TensorFlow serves.
#include <complex>
#include <cstdint>
#include <utility>
#include <vector>

#include "Eigen/OrderingMethods"
#include "Eigen/SparseCholesky"
#include "Eigen/SparseCore"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "base/status_macros.h"
#include "graph/types.h"
#include "kernels/sparse/csr_matrix.h"

namespace dfx {
namespace {

// One CSR matrix per batch, as Eigen compressed matrices (row-major, or
// column-major read as row-major: the transpose's storage), gathered into
// one CsrSparseMatrix of dense shape `dims`.
template <typename T, typename SpMat>
absl::StatusOr<CsrSparseMatrix> Gather(std::vector<SpMat>& parts,
                                       std::vector<int64_t> dims) {
  const int64_t batch = static_cast<int64_t>(parts.size());
  const int64_t rows = dims[dims.size() - 2];
  Tensor batch_ptr(DT_INT32, TensorShape({batch + 1}));
  int32_t* bp = batch_ptr.data<int32_t>();
  bp[0] = 0;
  int64_t total = 0;
  for (int64_t b = 0; b < batch; ++b) {
    parts[b].makeCompressed();
    total += parts[b].nonZeros();
    if (total > INT32_MAX) {
      return absl::InvalidArgumentError(
          absl::StrCat("the result has more than ", INT32_MAX, " entries"));
    }
    bp[b + 1] = static_cast<int32_t>(total);
  }
  Tensor row_ptr(DT_INT32, TensorShape({batch * (rows + 1)}));
  Tensor col_ind(DT_INT32, TensorShape({total}));
  Tensor values(DataTypeToEnum<T>::value, TensorShape({total}));
  for (int64_t b = 0; b < batch; ++b) {
    const SpMat& p = parts[b];
    const int64_t nnz = p.nonZeros();
    std::copy(p.outerIndexPtr(), p.outerIndexPtr() + rows + 1,
              row_ptr.data<int32_t>() + b * (rows + 1));
    std::copy(p.innerIndexPtr(), p.innerIndexPtr() + nnz,
              col_ind.data<int32_t>() + bp[b]);
    std::copy(p.valuePtr(), p.valuePtr() + nnz, values.data<T>() + bp[b]);
  }
  return CsrSparseMatrix::Create(DataTypeToEnum<T>::value, CsrDenseShape(dims),
                                 std::move(batch_ptr), std::move(row_ptr),
                                 std::move(col_ind), std::move(values));
}

absl::Status TypeIs(const CsrSparseMatrix& m, DataType want, const char* arg) {
  if (m.dtype() == want) return absl::OkStatus();
  return absl::InvalidArgumentError(absl::StrCat(
      "dtype of ", arg, " is not equal to 'type': ", DataTypeString(m.dtype()),
      " vs. ", DataTypeString(want)));
}

template <typename T>
class SparseMatMulOp : public OpKernel {
  using SpMat = Eigen::SparseMatrix<T, Eigen::RowMajor, int>;

 public:
  explicit SparseMatMulOp(OpKernelConstruction* c) : OpKernel(c) {
    for (const auto& [name, flag] :
         {std::pair<const char*, bool*>{"transpose_a", &transpose_a_},
          {"transpose_b", &transpose_b_},
          {"adjoint_a", &adjoint_a_},
          {"adjoint_b", &adjoint_b_}}) {
      absl::Status s = c->GetAttr(name, flag);
      if (!s.ok()) {
        c->SetStatus(s);
        return;
      }
    }
    if (adjoint_a_ && transpose_a_) {
      c->SetStatus(absl::InvalidArgumentError(
          "Only one of adjoint_a and transpose_a may be true."));
    } else if (adjoint_b_ && transpose_b_) {
      c->SetStatus(absl::InvalidArgumentError(
          "Only one of adjoint_b and transpose_b may be true."));
    }
  }

  void Compute(OpKernelContext* ctx) override {
    absl::StatusOr<CsrInput> a_in = GetCsrInput(ctx, 0);
    DFX_OP_REQUIRES_OK(ctx, a_in.status());
    absl::StatusOr<CsrInput> b_in = GetCsrInput(ctx, 1);
    DFX_OP_REQUIRES_OK(ctx, b_in.status());
    const CsrSparseMatrix& a = *a_in->matrix;
    const CsrSparseMatrix& b = *b_in->matrix;
    const DataType type = DataTypeToEnum<T>::value;
    DFX_OP_REQUIRES_OK(ctx, TypeIs(a, type, "a"));
    DFX_OP_REQUIRES_OK(ctx, TypeIs(b, type, "b"));
    DFX_OP_REQUIRES(ctx, a.batch_size() == b.batch_size(),
                    absl::InvalidArgumentError(absl::StrCat(
                        "Batch sizes of A and B do not agree.  Batch sizes "
                        "are: ",
                        a.batch_size(), " vs. ", b.batch_size())));
    const int rank = a.rank();
    DFX_OP_REQUIRES(
        ctx, rank == b.rank(),
        absl::InvalidArgumentError(absl::StrCat(
            "Ranks of A and B do not agree: ", rank, " vs. ", b.rank())));
    const bool ta = transpose_a_ || adjoint_a_;
    const bool tb = transpose_b_ || adjoint_b_;
    const int64_t a_rows = ta ? a.cols() : a.rows();
    const int64_t a_cols = ta ? a.rows() : a.cols();
    const int64_t b_rows = tb ? b.cols() : b.rows();
    const int64_t b_cols = tb ? b.rows() : b.cols();
    DFX_OP_REQUIRES(
        ctx, a_cols == b_rows,
        absl::InvalidArgumentError(absl::StrCat(
            "Inner product dimensions of A and B do not agree.  Shapes are: ",
            Shape(a, ta), " vs. ", Shape(b, tb))));
    const int64_t batch = a.batch_size();
    DFX_OP_REQUIRES(
        ctx,
        a_rows < INT32_MAX && a_cols < INT32_MAX && b_cols < INT32_MAX &&
            (a_rows + 1) * batch <= INT32_MAX,
        absl::InvalidArgumentError(absl::StrCat(
            "the product of dense shape [", a_rows, ", ", b_cols, "] in ",
            batch, " batches is too large for int32 indices")));
    std::vector<SpMat> parts(batch);
    for (int64_t i = 0; i < batch; ++i) {
      // Like TensorFlow: a transposed or adjoint operand is evaluated into a
      // row-major temporary, then Eigen's conservative product keeps
      // numerical zeros.
      parts[i] = Operand(a, i, transpose_a_, adjoint_a_) *
                 Operand(b, i, transpose_b_, adjoint_b_);
    }
    std::vector<int64_t> dims;
    if (rank == 3) dims.push_back(batch);
    dims.push_back(a_rows);
    dims.push_back(b_cols);
    absl::StatusOr<CsrSparseMatrix> c = Gather<T>(parts, std::move(dims));
    DFX_OP_REQUIRES_OK(ctx, c.status());
    DFX_OP_REQUIRES_OK(ctx, SetCsrOutput(ctx, 0, *std::move(c)));
  }

 private:
  static std::string Shape(const CsrSparseMatrix& m, bool transposed) {
    std::vector<int64_t> d(m.dense_shape().span<int64_t>().begin(),
                           m.dense_shape().span<int64_t>().end());
    if (transposed) std::swap(d[d.size() - 2], d[d.size() - 1]);
    return absl::StrCat("[", absl::StrJoin(d, ","), "]");
  }

  static SpMat Operand(const CsrSparseMatrix& m, int64_t b, bool transpose,
                       bool adjoint) {
    Eigen::Map<const SpMat> map(m.rows(), m.cols(), m.Nnz(b), m.RowPtr(b),
                                m.ColInd(b), m.Values<T>(b));
    if (transpose) return SpMat(map.transpose());
    if (adjoint) return SpMat(map.adjoint());
    return SpMat(map);
  }

  bool transpose_a_ = false, transpose_b_ = false;
  bool adjoint_a_ = false, adjoint_b_ = false;
};

absl::Status CheckSquare(const CsrSparseMatrix& m) {
  if (m.rows() == m.cols()) return absl::OkStatus();
  return absl::InvalidArgumentError(absl::StrCat(
      "sparse matrix must be square; got: ", m.rows(), " != ", m.cols()));
}

// The AMD ordering of each matrix's pattern (its lower triangle read as a
// symmetric matrix), as Eigen's AMDOrdering computes it.
class OrderingAmdOp : public OpKernel {
  using Pattern = Eigen::SparseMatrix<int, Eigen::RowMajor, int>;

 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    absl::StatusOr<CsrInput> in = GetCsrInput(ctx, 0);
    DFX_OP_REQUIRES_OK(ctx, in.status());
    const CsrSparseMatrix& m = *in->matrix;
    DFX_OP_REQUIRES_OK(ctx, CheckSquare(m));
    const int64_t n = m.rows();
    const int64_t batch = m.batch_size();
    Tensor* out = nullptr;
    DFX_OP_REQUIRES_OK(
        ctx, ctx->allocate_output(
                 0, m.rank() == 2 ? TensorShape({n}) : TensorShape({batch, n}),
                 &out));
    for (int64_t b = 0; b < batch; ++b) {
      // The values do not matter; the column indices stand in for them.
      Eigen::Map<const Pattern> pattern(n, n, m.Nnz(b), m.RowPtr(b),
                                        m.ColInd(b), m.ColInd(b));
      Eigen::PermutationMatrix<Eigen::Dynamic, Eigen::Dynamic, int> perm;
      Eigen::AMDOrdering<int> amd;
      amd(pattern.selfadjointView<Eigen::Lower>(), perm);
      std::copy(perm.indices().data(), perm.indices().data() + n,
                out->data<int32_t>() + b * n);
    }
  }
};

// The lower-triangular Cholesky factor of each matrix (its lower triangle
// read as a symmetric or Hermitian matrix), permuted by `permutation`:
// TensorFlow reads the CSR arrays as the column-major upper triangle and
// factors with SimplicialLLT, whose column-major upper factor read back as
// CSR is the lower one.
template <typename T>
class SparseCholeskyOp : public OpKernel {
  using SpMat = Eigen::SparseMatrix<T, Eigen::ColMajor, int>;

 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    absl::StatusOr<CsrInput> in = GetCsrInput(ctx, 0);
    DFX_OP_REQUIRES_OK(ctx, in.status());
    const CsrSparseMatrix& m = *in->matrix;
    const Tensor& perm_t = ctx->input(1);
    DFX_OP_REQUIRES_OK(ctx, CheckCsrType(m, DataTypeToEnum<T>::value));
    DFX_OP_REQUIRES_OK(ctx, CheckSquare(m));
    const int rank = m.rank();
    const int64_t n = m.rows();
    DFX_OP_REQUIRES(
        ctx, perm_t.dims() + 1 == rank,
        absl::InvalidArgumentError(absl::StrCat(
            "sparse matrix must have the same rank as permutation; got: ", rank,
            " != ", perm_t.dims(), " + 1.")));
    DFX_OP_REQUIRES(
        ctx, perm_t.dim_size(rank - 2) == n,
        absl::InvalidArgumentError(absl::StrCat(
            "permutation must have the same number of elements in each batch "
            "as the number of rows in sparse matrix; got: ",
            perm_t.dim_size(rank - 2), " != ", n)));
    const int64_t batch = m.batch_size();
    DFX_OP_REQUIRES(
        ctx, batch <= 1 || perm_t.dim_size(0) == batch,
        absl::InvalidArgumentError(absl::StrCat(
            "permutation must have the same batch size as sparse matrix; "
            "got: ",
            perm_t.dim_size(0), " != ", batch)));
    std::vector<SpMat> factors(batch);
    std::vector<char> seen(n);
    for (int64_t b = 0; b < batch; ++b) {
      const int32_t* perm = perm_t.data<int32_t>() + b * n;
      // TensorFlow trusts the permutation (and reads out of bounds when it
      // is not one); dfx checks it.
      std::fill(seen.begin(), seen.end(), 0);
      for (int64_t i = 0; i < n; ++i) {
        DFX_OP_REQUIRES(
            ctx, perm[i] >= 0 && perm[i] < n && !seen[perm[i]],
            absl::InvalidArgumentError(absl::StrCat(
                "permutation of batch ", b, " is not a permutation of [0, ", n,
                "): element ", i, " is ", perm[i])));
        seen[perm[i]] = 1;
      }
      Eigen::Map<const SpMat> a(n, n, m.Nnz(b), m.RowPtr(b), m.ColInd(b),
                                m.Values<T>(b));
      Eigen::PermutationMatrix<Eigen::Dynamic, Eigen::Dynamic, int> p(n);
      std::copy(perm, perm + n, p.indices().data());
      SpMat permuted;
      permuted.template selfadjointView<Eigen::Upper>() =
          a.template selfadjointView<Eigen::Upper>().twistedBy(p.inverse());
      Eigen::SimplicialLLT<SpMat, Eigen::Upper, Eigen::NaturalOrdering<int>>
          solver;
      solver.compute(permuted);
      DFX_OP_REQUIRES(
          ctx, solver.info() == Eigen::Success,
          absl::InvalidArgumentError(absl::StrCat(
              "Sparse Cholesky factorization failed for batch index ", b,
              ". The input might not be valid.")));
      factors[b] = solver.matrixU();
    }
    absl::StatusOr<CsrSparseMatrix> out = Gather<T>(
        factors, std::vector<int64_t>(m.dense_shape().span<int64_t>().begin(),
                                      m.dense_shape().span<int64_t>().end()));
    DFX_OP_REQUIRES_OK(ctx, out.status());
    DFX_OP_REQUIRES_OK(ctx, SetCsrOutput(ctx, 0, *std::move(out)));
  }
};

template <typename T>
void RegisterTyped(KernelRegistry* r) {
  RegisterKernel<SparseMatMulOp<T>>(
      r,
      KernelDefBuilder("SparseMatrixSparseMatMul").TypeConstraint<T>("type"));
  RegisterKernel<SparseCholeskyOp<T>>(
      r,
      KernelDefBuilder("SparseMatrixSparseCholesky").TypeConstraint<T>("type"));
}

}  // namespace

void RegisterCsrEigenKernels(KernelRegistry* registry) {
  RegisterTyped<float>(registry);
  RegisterTyped<double>(registry);
  RegisterTyped<std::complex<float>>(registry);
  RegisterTyped<std::complex<double>>(registry);
  RegisterKernel<OrderingAmdOp>(registry,
                                KernelDefBuilder("SparseMatrixOrderingAMD"));
}

}  // namespace dfx
