// The CSR sparse matrix ops of tf.linalg.experimental.sparse: conversions
// between dense tensors, SparseTensors and a DT_VARIANT scalar holding a
// (batched) CSRSparseMatrix (kernels/sparse/csr_matrix.h), its components,
// transpose, sparse-dense and sparse-sparse products, the AMD ordering and
// the sparse Cholesky factor. Signatures follow TensorFlow 2.21's
// sparse_csr_matrix_ops.cc; TensorFlow's shape functions read the matrix's
// shape from handle data, which dfx does not keep, so the shapes here are
// what the inputs alone say.
#include <string>

#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "graph/node_def_util.h"
#include "graph/ops/ops.h"

namespace dfx {
namespace {

constexpr char kCsrTypes[] = "{float, double, complex64, complex128}";

absl::Status RankTwoOrThree(InferenceContext* c, const PartialShape& s,
                            const char* what) {
  if (s.RankKnown() && (s.rank() < 2 || s.rank() > 3)) {
    return c->Error(
        absl::StrCat(what, " must have rank 2 or 3, but is rank ", s.rank()));
  }
  return absl::OkStatus();
}

absl::Status DenseToCsrShape(InferenceContext* c) {
  DFX_RETURN_IF_ERROR(RankTwoOrThree(c, c->input(0), "dense_input"));
  DFX_RETURN_IF_ERROR(c->WithRank(c->input(1), 2));
  const PartialShape& dense = c->input(0);
  const PartialShape& indices = c->input(1);
  if (dense.RankKnown() && indices.RankKnown() && indices.dims[1] >= 0 &&
      indices.dims[1] != dense.rank()) {
    return c->Error(absl::StrCat(
        "indices.shape[1] must match rank of dense; saw: ", indices.dims[1],
        " vs. ", dense.rank()));
  }
  c->set_output(0, PartialShape::Scalar());
  return absl::OkStatus();
}

absl::Status SparseTensorToCsrShape(InferenceContext* c) {
  DFX_RETURN_IF_ERROR(c->WithRank(c->input(0), 2));
  DFX_RETURN_IF_ERROR(c->WithRank(c->input(1), 1));
  DFX_RETURN_IF_ERROR(c->WithRank(c->input(2), 1));
  const PartialShape& shape = c->input(2);
  if (shape.RankKnown() && shape.dims[0] >= 0 &&
      (shape.dims[0] < 2 || shape.dims[0] > 3)) {
    return c->Error(absl::StrCat(
        "Invalid rank: dense_shape must have 2 or 3 elements, but has ",
        shape.dims[0]));
  }
  c->set_output(0, PartialShape::Scalar());
  return absl::OkStatus();
}

// Ops whose inputs are all CSR matrices (scalars) and whose output is one.
absl::Status CsrToCsrShape(InferenceContext* c) {
  for (int i = 0; i < c->num_inputs(); ++i) {
    DFX_RETURN_IF_ERROR(c->WithRank(c->input(i), 0));
  }
  c->set_output(0, PartialShape::Scalar());
  return absl::OkStatus();
}

absl::Status CsrInputUnknownShape(InferenceContext* c) {
  DFX_RETURN_IF_ERROR(c->WithRank(c->input(0), 0));
  for (int i = 0; i < c->num_outputs(); ++i) {
    c->set_output(i, PartialShape::Unknown());
  }
  return absl::OkStatus();
}

absl::Status ToSparseTensorShape(InferenceContext* c) {
  DFX_RETURN_IF_ERROR(c->WithRank(c->input(0), 0));
  c->set_output(0, PartialShape::Known({-1, -1}));
  c->set_output(1, PartialShape::Known({-1}));
  c->set_output(2, PartialShape::Known({-1}));
  return absl::OkStatus();
}

absl::Status ComponentsShape(InferenceContext* c) {
  DFX_RETURN_IF_ERROR(c->WithRank(c->input(0), 0));
  DFX_RETURN_IF_ERROR(c->WithRank(c->input(1), 0));
  for (int i = 0; i < 3; ++i) c->set_output(i, PartialShape::Known({-1}));
  return absl::OkStatus();
}

// TensorFlow's shape functions reject both a transpose and an adjoint of
// one operand.
absl::Status CheckTransposeAttrs(InferenceContext* c) {
  for (const char* x : {"a", "b"}) {
    bool transpose = false, adjoint = false;
    DFX_RETURN_IF_ERROR(
        GetNodeAttr(c->node_def(), absl::StrCat("transpose_", x), &transpose));
    DFX_RETURN_IF_ERROR(
        GetNodeAttr(c->node_def(), absl::StrCat("adjoint_", x), &adjoint));
    if (transpose && adjoint) {
      return c->Error(absl::StrCat("Only one of adjoint_", x, " and transpose_",
                                   x, " may be true."));
    }
  }
  return absl::OkStatus();
}

absl::Status SparseMatMulShape(InferenceContext* c) {
  DFX_RETURN_IF_ERROR(CheckTransposeAttrs(c));
  return CsrToCsrShape(c);
}

absl::Status MatMulShape(InferenceContext* c) {
  DFX_RETURN_IF_ERROR(CheckTransposeAttrs(c));
  DFX_RETURN_IF_ERROR(c->WithRank(c->input(0), 0));
  DFX_RETURN_IF_ERROR(RankTwoOrThree(c, c->input(1), "b"));
  c->set_output(0, c->input(1).RankKnown() ? UnknownDims(c->input(1).rank())
                                           : PartialShape::Unknown());
  return absl::OkStatus();
}

absl::Status CholeskyShape(InferenceContext* c) {
  DFX_RETURN_IF_ERROR(c->WithRank(c->input(0), 0));
  const PartialShape& perm = c->input(1);
  if (perm.RankKnown() && (perm.rank() < 1 || perm.rank() > 2)) {
    return c->Error(absl::StrCat(
        "permutation must have rank 1 or 2, but is rank ", perm.rank()));
  }
  c->set_output(0, PartialShape::Scalar());
  return absl::OkStatus();
}

}  // namespace

absl::Status RegisterCsrOps(OpRegistry* r) {
  const std::string type_attr = absl::StrCat("type: ", kCsrTypes);
  const std::string t_attr = absl::StrCat("T: ", kCsrTypes);
  DFX_RETURN_IF_ERROR(r->Register(OpDefBuilder("DenseToCSRSparseMatrix")
                                      .Input("dense_input: T")
                                      .Input("indices: int64")
                                      .Output("sparse_output: variant")
                                      .Attr(t_attr)
                                      .SetShapeFn(DenseToCsrShape)));
  DFX_RETURN_IF_ERROR(r->Register(OpDefBuilder("SparseTensorToCSRSparseMatrix")
                                      .Input("indices: int64")
                                      .Input("values: T")
                                      .Input("dense_shape: int64")
                                      .Output("sparse_matrix: variant")
                                      .Attr(t_attr)
                                      .SetShapeFn(SparseTensorToCsrShape)));
  DFX_RETURN_IF_ERROR(r->Register(OpDefBuilder("CSRSparseMatrixToDense")
                                      .Input("sparse_input: variant")
                                      .Output("dense_output: type")
                                      .Attr(type_attr)
                                      .SetShapeFn(CsrInputUnknownShape)));
  DFX_RETURN_IF_ERROR(r->Register(OpDefBuilder("CSRSparseMatrixToSparseTensor")
                                      .Input("sparse_matrix: variant")
                                      .Output("indices: int64")
                                      .Output("values: type")
                                      .Output("dense_shape: int64")
                                      .Attr(type_attr)
                                      .SetShapeFn(ToSparseTensorShape)));
  DFX_RETURN_IF_ERROR(r->Register(OpDefBuilder("CSRSparseMatrixComponents")
                                      .Input("csr_sparse_matrix: variant")
                                      .Input("index: int32")
                                      .Output("row_ptrs: int32")
                                      .Output("col_inds: int32")
                                      .Output("values: type")
                                      .Attr(type_attr)
                                      .SetShapeFn(ComponentsShape)));
  DFX_RETURN_IF_ERROR(r->Register(OpDefBuilder("SparseMatrixNNZ")
                                      .Input("sparse_matrix: variant")
                                      .Output("nnz: int32")
                                      .SetShapeFn(CsrInputUnknownShape)));
  DFX_RETURN_IF_ERROR(r->Register(OpDefBuilder("SparseMatrixTranspose")
                                      .Input("input: variant")
                                      .Output("output: variant")
                                      .Attr("conjugate: bool = false")
                                      .Attr(type_attr)
                                      .SetShapeFn(CsrToCsrShape)));
  DFX_RETURN_IF_ERROR(r->Register(OpDefBuilder("SparseMatrixMatMul")
                                      .Input("a: variant")
                                      .Input("b: T")
                                      .Output("output: T")
                                      .Attr("T: type")
                                      .Attr("transpose_a: bool = false")
                                      .Attr("transpose_b: bool = false")
                                      .Attr("adjoint_a: bool = false")
                                      .Attr("adjoint_b: bool = false")
                                      .Attr("transpose_output: bool = false")
                                      .Attr("conjugate_output: bool = false")
                                      .SetShapeFn(MatMulShape)));
  DFX_RETURN_IF_ERROR(r->Register(OpDefBuilder("SparseMatrixSparseMatMul")
                                      .Input("a: variant")
                                      .Input("b: variant")
                                      .Output("c: variant")
                                      .Attr(type_attr)
                                      .Attr("transpose_a: bool = false")
                                      .Attr("transpose_b: bool = false")
                                      .Attr("adjoint_a: bool = false")
                                      .Attr("adjoint_b: bool = false")
                                      .SetShapeFn(SparseMatMulShape)));
  DFX_RETURN_IF_ERROR(r->Register(OpDefBuilder("SparseMatrixOrderingAMD")
                                      .Input("input: variant")
                                      .Output("output: int32")
                                      .SetShapeFn(CsrInputUnknownShape)));
  DFX_RETURN_IF_ERROR(r->Register(OpDefBuilder("SparseMatrixSparseCholesky")
                                      .Input("input: variant")
                                      .Input("permutation: int32")
                                      .Output("output: variant")
                                      .Attr(type_attr)
                                      .SetShapeFn(CholeskyShape)));
  return absl::OkStatus();
}

}  // namespace dfx
