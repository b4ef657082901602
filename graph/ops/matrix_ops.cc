// Matrix band and diagonal ops (MatrixBandPart, MatrixDiag*, MatrixDiagPart*,
// MatrixSetDiag*) and the dense decompositions and solvers (Cholesky,
// MatrixInverse, MatrixDeterminant, LogMatrixDeterminant, MatrixSolve,
// MatrixTriangularSolve, Qr, SelfAdjointEigV2, Svd), Eig, MatrixExponential
// and MatrixLogarithm, CholeskyGrad, MatrixSolveLs, BandedTriangularSolve,
// SelfAdjointEig (v1) and the deprecated Batch* names of some of them.
// Signatures follow TensorFlow 2.21's array_ops.cc and linalg_ops.cc.
#include <algorithm>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "graph/node_def_util.h"
#include "graph/ops/ops.h"

namespace dfx {
namespace {

constexpr char kAlignAttr[] =
    "align: {'LEFT_RIGHT', 'RIGHT_LEFT', 'LEFT_LEFT', 'RIGHT_RIGHT'} = "
    "'RIGHT_LEFT'";

// InvalidArgument when the rank of `s` is known and below `rank`.
absl::Status WithRankAtLeast(InferenceContext* c, const PartialShape& s,
                             int rank, absl::string_view what) {
  if (s.RankKnown() && s.rank() < rank) {
    return c->Error(absl::StrCat(what, " must be at least rank ", rank,
                                 " but is rank ", s.rank()));
  }
  return absl::OkStatus();
}

absl::Status MatrixBandPartShape(InferenceContext* c) {
  DFX_RETURN_IF_ERROR(WithRankAtLeast(c, c->input(0), 2, "input"));
  DFX_RETURN_IF_ERROR(c->WithRank(c->input(1), 0));
  DFX_RETURN_IF_ERROR(c->WithRank(c->input(2), 0));
  c->set_output(0, c->input(0));
  return absl::OkStatus();
}

// MatrixDiag: [..., n] -> [..., n, n].
absl::Status MatrixDiagV1Shape(InferenceContext* c) {
  const PartialShape& in = c->input(0);
  DFX_RETURN_IF_ERROR(WithRankAtLeast(c, in, 1, "diagonal"));
  if (!in.RankKnown()) {
    c->set_output(0, PartialShape::Unknown());
    return absl::OkStatus();
  }
  PartialShape out = in;
  out.dims.push_back(in.dims.back());
  c->set_output(0, std::move(out));
  return absl::OkStatus();
}

// MatrixDiagPart: [..., m, n] -> [..., min(m, n)].
absl::Status MatrixDiagPartV1Shape(InferenceContext* c) {
  const PartialShape& in = c->input(0);
  DFX_RETURN_IF_ERROR(WithRankAtLeast(c, in, 2, "input"));
  if (!in.RankKnown()) {
    c->set_output(0, PartialShape::Unknown());
    return absl::OkStatus();
  }
  PartialShape out = in;
  const int64_t m = out.dims[out.rank() - 2];
  const int64_t n = out.dims[out.rank() - 1];
  out.dims.pop_back();
  out.dims.back() = (m >= 0 && n >= 0) ? std::min(m, n) : -1;
  c->set_output(0, std::move(out));
  return absl::OkStatus();
}

// The V2/V3 output shapes depend on the values of k (and num_rows,
// num_cols); the kernels check them, so the shape functions only check
// ranks.
absl::Status MatrixDiagV2Shape(InferenceContext* c) {
  DFX_RETURN_IF_ERROR(WithRankAtLeast(c, c->input(0), 1, "diagonal"));
  for (int i = 2; i < 5; ++i) DFX_RETURN_IF_ERROR(c->WithRank(c->input(i), 0));
  c->set_output(0, PartialShape::Unknown());
  return absl::OkStatus();
}

absl::Status MatrixDiagPartV2Shape(InferenceContext* c) {
  DFX_RETURN_IF_ERROR(WithRankAtLeast(c, c->input(0), 2, "input"));
  DFX_RETURN_IF_ERROR(c->WithRank(c->input(2), 0));
  c->set_output(0, PartialShape::Unknown());
  return absl::OkStatus();
}

absl::Status MatrixSetDiagShape(InferenceContext* c) {
  DFX_RETURN_IF_ERROR(WithRankAtLeast(c, c->input(0), 2, "input"));
  DFX_RETURN_IF_ERROR(WithRankAtLeast(c, c->input(1), 1, "diagonal"));
  c->set_output(0, c->input(0));
  return absl::OkStatus();
}

// For an input of batches of square matrices [..., n, n]: its batch dims
// and n (-1 unknown); *known is false when the rank is unknown.
absl::Status SquareBatch(InferenceContext* c, const PartialShape& in,
                         std::vector<int64_t>* batch, int64_t* n, bool* known) {
  DFX_RETURN_IF_ERROR(WithRankAtLeast(c, in, 2, "input"));
  *known = in.RankKnown();
  if (!*known) return absl::OkStatus();
  const int r = in.rank();
  DFX_RETURN_IF_ERROR(c->MergeDim(in.dims[r - 2], in.dims[r - 1], n));
  batch->assign(in.dims.begin(), in.dims.end() - 2);
  return absl::OkStatus();
}

// PartialShape of `batch` followed by `inner`.
PartialShape WithInner(std::vector<int64_t> batch,
                       std::initializer_list<int64_t> inner) {
  batch.insert(batch.end(), inner.begin(), inner.end());
  return PartialShape::Known(std::move(batch));
}

// Cholesky, MatrixInverse: [..., n, n] -> the same.
absl::Status SquareMatrixShape(InferenceContext* c) {
  std::vector<int64_t> batch;
  int64_t n = -1;
  bool known = false;
  DFX_RETURN_IF_ERROR(SquareBatch(c, c->input(0), &batch, &n, &known));
  c->set_output(0, known ? WithInner(batch, {n, n}) : PartialShape::Unknown());
  return absl::OkStatus();
}

// MatrixDeterminant, LogMatrixDeterminant: [..., n, n] -> [...].
absl::Status DeterminantShape(InferenceContext* c) {
  std::vector<int64_t> batch;
  int64_t n = -1;
  bool known = false;
  DFX_RETURN_IF_ERROR(SquareBatch(c, c->input(0), &batch, &n, &known));
  for (int i = 0; i < c->num_outputs(); ++i) {
    c->set_output(i, known ? WithInner(batch, {}) : PartialShape::Unknown());
  }
  return absl::OkStatus();
}

// MatrixSolve: [..., n, n] and [..., n, k] -> [..., n, k].
absl::Status MatrixSolveShape(InferenceContext* c) {
  std::vector<int64_t> batch;
  int64_t n = -1;
  bool known = false;
  DFX_RETURN_IF_ERROR(SquareBatch(c, c->input(0), &batch, &n, &known));
  const PartialShape& rhs = c->input(1);
  DFX_RETURN_IF_ERROR(WithRankAtLeast(c, rhs, 2, "rhs"));
  if (!known || !rhs.RankKnown()) {
    c->set_output(0, PartialShape::Unknown());
    return absl::OkStatus();
  }
  PartialShape rhs_batch = PartialShape::Known(
      std::vector<int64_t>(rhs.dims.begin(), rhs.dims.end() - 2));
  PartialShape merged;
  DFX_RETURN_IF_ERROR(c->Merge(PartialShape::Known(batch), rhs_batch, &merged));
  int64_t rows = -1;
  DFX_RETURN_IF_ERROR(c->MergeDim(n, rhs.dims[rhs.rank() - 2], &rows));
  c->set_output(0, WithInner(merged.dims, {rows, rhs.dims.back()}));
  return absl::OkStatus();
}

// MatrixTriangularSolve: broadcast batch dims, then [n, k].
absl::Status MatrixTriangularSolveShape(InferenceContext* c) {
  std::vector<int64_t> batch;
  int64_t n = -1;
  bool known = false;
  DFX_RETURN_IF_ERROR(SquareBatch(c, c->input(0), &batch, &n, &known));
  const PartialShape& rhs = c->input(1);
  DFX_RETURN_IF_ERROR(WithRankAtLeast(c, rhs, 2, "rhs"));
  if (!known || !rhs.RankKnown()) {
    c->set_output(0, PartialShape::Unknown());
    return absl::OkStatus();
  }
  PartialShape out;
  DFX_RETURN_IF_ERROR(
      c->BroadcastBinary(PartialShape::Known(batch),
                         PartialShape::Known(std::vector<int64_t>(
                             rhs.dims.begin(), rhs.dims.end() - 2)),
                         &out));
  int64_t rows = -1;
  DFX_RETURN_IF_ERROR(c->MergeDim(n, rhs.dims[rhs.rank() - 2], &rows));
  c->set_output(0, WithInner(out.dims, {rows, rhs.dims.back()}));
  return absl::OkStatus();
}

int64_t MinDim(int64_t a, int64_t b) {
  if (a >= 0 && b >= 0) return std::min(a, b);
  if (a == 0 || b == 0) return 0;
  return -1;
}

absl::Status QrShape(InferenceContext* c) {
  const PartialShape& in = c->input(0);
  DFX_RETURN_IF_ERROR(WithRankAtLeast(c, in, 2, "input"));
  bool full = false;
  DFX_RETURN_IF_ERROR(GetNodeAttr(c->node_def(), "full_matrices", &full));
  if (!in.RankKnown()) {
    c->set_output(0, PartialShape::Unknown());
    c->set_output(1, PartialShape::Unknown());
    return absl::OkStatus();
  }
  std::vector<int64_t> batch(in.dims.begin(), in.dims.end() - 2);
  const int64_t m = in.dims[in.rank() - 2];
  const int64_t n = in.dims[in.rank() - 1];
  const int64_t q_cols = full ? m : MinDim(m, n);
  c->set_output(0, WithInner(batch, {m, q_cols}));
  c->set_output(1, WithInner(batch, {q_cols, n}));
  return absl::OkStatus();
}

// SelfAdjointEigV2 and Eig: e [..., n]; v [..., n, n], or the batch shape
// without vectors.
absl::Status SelfAdjointEigV2Shape(InferenceContext* c) {
  std::vector<int64_t> batch;
  int64_t n = -1;
  bool known = false;
  DFX_RETURN_IF_ERROR(SquareBatch(c, c->input(0), &batch, &n, &known));
  bool compute_v = true;
  DFX_RETURN_IF_ERROR(GetNodeAttr(c->node_def(), "compute_v", &compute_v));
  if (!known) {
    c->set_output(0, PartialShape::Unknown());
    c->set_output(1, PartialShape::Unknown());
    return absl::OkStatus();
  }
  c->set_output(0, WithInner(batch, {n}));
  c->set_output(1, compute_v ? WithInner(batch, {n, n}) : WithInner(batch, {}));
  return absl::OkStatus();
}

absl::Status SvdShape(InferenceContext* c) {
  const PartialShape& in = c->input(0);
  DFX_RETURN_IF_ERROR(WithRankAtLeast(c, in, 2, "input"));
  bool compute_uv = true;
  bool full = false;
  DFX_RETURN_IF_ERROR(GetNodeAttr(c->node_def(), "compute_uv", &compute_uv));
  DFX_RETURN_IF_ERROR(GetNodeAttr(c->node_def(), "full_matrices", &full));
  if (!in.RankKnown()) {
    for (int i = 0; i < 3; ++i) c->set_output(i, PartialShape::Unknown());
    return absl::OkStatus();
  }
  std::vector<int64_t> batch(in.dims.begin(), in.dims.end() - 2);
  const int64_t m = in.dims[in.rank() - 2];
  const int64_t n = in.dims[in.rank() - 1];
  const int64_t p = MinDim(m, n);
  c->set_output(0, WithInner(batch, {p}));
  if (compute_uv) {
    c->set_output(1, WithInner(batch, {m, full ? m : p}));
    c->set_output(2, WithInner(batch, {n, full ? n : p}));
  } else {
    c->set_output(1, WithInner(batch, {}));
    c->set_output(2, WithInner(batch, {}));
  }
  return absl::OkStatus();
}

constexpr char kSolverTypes[] =
    "T: {double, float, half, complex64, complex128}";

// MatrixSolveLs: matrix [..., m, n], rhs [..., m, k], a scalar
// l2_regularizer -> [..., n, k].
absl::Status MatrixSolveLsShape(InferenceContext* c) {
  DFX_RETURN_IF_ERROR(c->WithRank(c->input(2), 0));
  const PartialShape& a = c->input(0);
  const PartialShape& rhs = c->input(1);
  DFX_RETURN_IF_ERROR(WithRankAtLeast(c, a, 2, "matrix"));
  DFX_RETURN_IF_ERROR(WithRankAtLeast(c, rhs, 2, "rhs"));
  if (!a.RankKnown() || !rhs.RankKnown()) {
    c->set_output(0, PartialShape::Unknown());
    return absl::OkStatus();
  }
  PartialShape batch;
  DFX_RETURN_IF_ERROR(
      c->Merge(PartialShape::Known(std::vector<int64_t>(a.dims.begin(),
                                                        a.dims.end() - 2)),
               PartialShape::Known(std::vector<int64_t>(rhs.dims.begin(),
                                                        rhs.dims.end() - 2)),
               &batch));
  int64_t m = -1;
  DFX_RETURN_IF_ERROR(
      c->MergeDim(a.dims[a.rank() - 2], rhs.dims[rhs.rank() - 2], &m));
  c->set_output(0, WithInner(batch.dims, {a.dims.back(), rhs.dims.back()}));
  return absl::OkStatus();
}

// BandedTriangularSolve: bands [..., b, n], rhs [..., n, k], batch dims
// broadcast -> [..., n, k].
absl::Status BandedTriangularSolveShape(InferenceContext* c) {
  const PartialShape& a = c->input(0);
  const PartialShape& rhs = c->input(1);
  DFX_RETURN_IF_ERROR(WithRankAtLeast(c, a, 2, "bands"));
  DFX_RETURN_IF_ERROR(WithRankAtLeast(c, rhs, 2, "rhs"));
  if (!a.RankKnown() || !rhs.RankKnown()) {
    c->set_output(0, PartialShape::Unknown());
    return absl::OkStatus();
  }
  PartialShape out;
  DFX_RETURN_IF_ERROR(c->BroadcastBinary(
      PartialShape::Known(
          std::vector<int64_t>(a.dims.begin(), a.dims.end() - 2)),
      PartialShape::Known(
          std::vector<int64_t>(rhs.dims.begin(), rhs.dims.end() - 2)),
      &out));
  int64_t n = -1;
  DFX_RETURN_IF_ERROR(
      c->MergeDim(a.dims.back(), rhs.dims[rhs.rank() - 2], &n));
  c->set_output(0, WithInner(out.dims, {n, rhs.dims.back()}));
  return absl::OkStatus();
}

// SelfAdjointEig (v1): [..., n, n] -> [..., n + 1, n].
absl::Status SelfAdjointEigV1Shape(InferenceContext* c) {
  std::vector<int64_t> batch;
  int64_t n = -1;
  bool known = false;
  DFX_RETURN_IF_ERROR(SquareBatch(c, c->input(0), &batch, &n, &known));
  c->set_output(0, known ? WithInner(batch, {n < 0 ? -1 : n + 1, n})
                         : PartialShape::Unknown());
  return absl::OkStatus();
}

// One deprecated op: its arg and attr specs, the GraphDef version that
// deprecated it and TensorFlow's explanation.
struct DeprecatedOp {
  const char* name;
  std::vector<const char*> inputs;
  std::vector<const char*> outputs;
  std::vector<const char*> attrs;
  int version;
  const char* explanation;
};

// TensorFlow 2.21's OpDefs of the Batch* ops (array_ops.cc, linalg_ops.cc):
// the old names of MatrixBandPart, MatrixDiag*, MatrixSetDiag (deprecated at
// version 14) and of the decompositions and solvers (version 13, 11 for
// BatchSelfAdjointEig). The kernels are the current ops'
// (kernels/linalg/).
absl::Status RegisterBatchMatrixOps(OpRegistry* r) {
  const char* kIn = "input: T";
  const char* kOut = "output: T";
  const char* kReal = "T: {double, float}";
  const DeprecatedOp ops[] = {
      {"BatchMatrixBandPart",
       {kIn, "num_lower: int64", "num_upper: int64"},
       {"band: T"},
       {"T: type"},
       14,
       "Use MatrixBandPart"},
      {"BatchMatrixDiag", {"diagonal: T"}, {kOut}, {"T: type"}, 14,
       "Use MatrixDiag"},
      {"BatchMatrixSetDiag", {kIn, "diagonal: T"}, {kOut}, {"T: type"}, 14,
       "Use MatrixSetDiag"},
      {"BatchMatrixDiagPart", {kIn}, {"diagonal: T"}, {"T: type"}, 14,
       "Use MatrixDiagPart"},
      {"BatchMatrixDeterminant", {kIn}, {kOut},
       {"T: {float, double, complex64, complex128}"}, 13,
       "Use MatrixDeterminant instead."},
      {"BatchMatrixInverse", {kIn}, {kOut}, {"adjoint: bool = false", kReal},
       13, "Use MatrixInverse instead."},
      {"BatchCholesky", {kIn}, {kOut}, {kReal}, 13, "Use Cholesky instead."},
      {"BatchCholeskyGrad", {"l: T", "grad: T"}, {kOut},
       {"T: {float, double}"}, 13, "Use CholeskyGrad instead."},
      {"BatchSelfAdjointEig", {kIn}, {kOut}, {kReal}, 11,
       "Use SelfAdjointEigV2 instead."},
      {"BatchSelfAdjointEigV2", {kIn}, {"e: T", "v: T"},
       {"compute_v: bool = true", kReal}, 13,
       "Use SelfAdjointEigV2 instead."},
      {"BatchMatrixSolve", {"matrix: T", "rhs: T"}, {kOut},
       {"adjoint: bool = false", kReal}, 13, "Use MatrixSolve instead."},
      {"BatchMatrixTriangularSolve", {"matrix: T", "rhs: T"}, {kOut},
       {"lower: bool = true", "adjoint: bool = false", kReal}, 13,
       "Use MatrixTriangularSolve instead."},
      {"BatchMatrixSolveLs", {"matrix: T", "rhs: T", "l2_regularizer: double"},
       {kOut}, {kReal, "fast: bool = true"}, 13,
       "Use MatrixSolveLs instead."},
      {"BatchSvd", {kIn}, {"s: T", "u: T", "v: T"},
       {"compute_uv: bool = true", "full_matrices: bool = false",
        "T: {double, float, complex64, complex128}"},
       13, "Use Svd instead."},
  };
  for (const DeprecatedOp& op : ops) {
    OpDefBuilder b(op.name);
    for (const char* in : op.inputs) b.Input(in);
    for (const char* out : op.outputs) b.Output(out);
    for (const char* attr : op.attrs) b.Attr(attr);
    // TensorFlow gives them no shape function: every output unknown.
    DFX_ASSIGN_OR_RETURN(OpRegistrationData data,
                         b.SetShapeFn(shape_fn::Unknown).Finalize());
    data.op_def.mutable_deprecation()->set_version(op.version);
    data.op_def.mutable_deprecation()->set_explanation(op.explanation);
    DFX_RETURN_IF_ERROR(r->Register(std::move(data)));
  }
  // SelfAdjointEig (v1) keeps a shape function.
  DFX_ASSIGN_OR_RETURN(OpRegistrationData eig_v1,
                       OpDefBuilder("SelfAdjointEig")
                           .Input("input: T")
                           .Output("output: T")
                           .Attr("T: {double, float, half}")
                           .SetShapeFn(SelfAdjointEigV1Shape)
                           .Finalize());
  eig_v1.op_def.mutable_deprecation()->set_version(11);
  eig_v1.op_def.mutable_deprecation()->set_explanation(
      "Use SelfAdjointEigV2 instead.");
  return r->Register(std::move(eig_v1));
}

}  // namespace

absl::Status RegisterMatrixOps(OpRegistry* r) {
  DFX_RETURN_IF_ERROR(r->Register(OpDefBuilder("MatrixBandPart")
                                      .Input("input: T")
                                      .Input("num_lower: Tindex")
                                      .Input("num_upper: Tindex")
                                      .Output("band: T")
                                      .Attr("T: type")
                                      .Attr("Tindex: {int32, int64} = DT_INT64")
                                      .SetShapeFn(MatrixBandPartShape)));
  DFX_RETURN_IF_ERROR(r->Register(OpDefBuilder("MatrixDiag")
                                      .Input("diagonal: T")
                                      .Output("output: T")
                                      .Attr("T: type")
                                      .SetShapeFn(MatrixDiagV1Shape)));
  for (const char* name : {"MatrixDiagV2", "MatrixDiagV3"}) {
    OpDefBuilder b(name);
    b.Input("diagonal: T")
        .Input("k: int32")
        .Input("num_rows: int32")
        .Input("num_cols: int32")
        .Input("padding_value: T")
        .Output("output: T")
        .Attr("T: type")
        .SetShapeFn(MatrixDiagV2Shape);
    if (std::string(name) == "MatrixDiagV3") b.Attr(kAlignAttr);
    DFX_RETURN_IF_ERROR(r->Register(b));
  }
  DFX_RETURN_IF_ERROR(r->Register(OpDefBuilder("MatrixDiagPart")
                                      .Input("input: T")
                                      .Output("diagonal: T")
                                      .Attr("T: type")
                                      .SetShapeFn(MatrixDiagPartV1Shape)));
  for (const char* name : {"MatrixDiagPartV2", "MatrixDiagPartV3"}) {
    OpDefBuilder b(name);
    b.Input("input: T")
        .Input("k: int32")
        .Input("padding_value: T")
        .Output("diagonal: T")
        .Attr("T: type")
        .SetShapeFn(MatrixDiagPartV2Shape);
    if (std::string(name) == "MatrixDiagPartV3") b.Attr(kAlignAttr);
    DFX_RETURN_IF_ERROR(r->Register(b));
  }
  DFX_RETURN_IF_ERROR(r->Register(OpDefBuilder("MatrixSetDiag")
                                      .Input("input: T")
                                      .Input("diagonal: T")
                                      .Output("output: T")
                                      .Attr("T: type")
                                      .SetShapeFn(MatrixSetDiagShape)));
  for (const char* name : {"MatrixSetDiagV2", "MatrixSetDiagV3"}) {
    OpDefBuilder b(name);
    b.Input("input: T")
        .Input("diagonal: T")
        .Input("k: int32")
        .Output("output: T")
        .Attr("T: type")
        .SetShapeFn(MatrixSetDiagShape);
    if (std::string(name) == "MatrixSetDiagV3") b.Attr(kAlignAttr);
    DFX_RETURN_IF_ERROR(r->Register(b));
  }
  for (const char* name : {"Cholesky", "MatrixInverse"}) {
    OpDefBuilder b(name);
    b.Input("input: T").Output("output: T");
    if (std::string(name) == "MatrixInverse") b.Attr("adjoint: bool = false");
    b.Attr(kSolverTypes).SetShapeFn(SquareMatrixShape);
    DFX_RETURN_IF_ERROR(r->Register(b));
  }
  DFX_RETURN_IF_ERROR(
      r->Register(OpDefBuilder("MatrixDeterminant")
                      .Input("input: T")
                      .Output("output: T")
                      .Attr("T: {half, float, double, complex64, complex128}")
                      .SetShapeFn(DeterminantShape)));
  DFX_RETURN_IF_ERROR(
      r->Register(OpDefBuilder("LogMatrixDeterminant")
                      .Input("input: T")
                      .Output("sign: T")
                      .Output("log_abs_determinant: T")
                      .Attr("T: {half, float, double, complex64, complex128}")
                      .SetShapeFn(DeterminantShape)));
  DFX_RETURN_IF_ERROR(r->Register(OpDefBuilder("MatrixSolve")
                                      .Input("matrix: T")
                                      .Input("rhs: T")
                                      .Output("output: T")
                                      .Attr("adjoint: bool = false")
                                      .Attr(kSolverTypes)
                                      .SetShapeFn(MatrixSolveShape)));
  DFX_RETURN_IF_ERROR(
      r->Register(OpDefBuilder("MatrixTriangularSolve")
                      .Input("matrix: T")
                      .Input("rhs: T")
                      .Output("output: T")
                      .Attr("lower: bool = true")
                      .Attr("adjoint: bool = false")
                      .Attr("T: {bfloat16, double, float, half, complex64, "
                            "complex128}")
                      .SetShapeFn(MatrixTriangularSolveShape)));
  DFX_RETURN_IF_ERROR(r->Register(OpDefBuilder("Qr")
                                      .Input("input: T")
                                      .Output("q: T")
                                      .Output("r: T")
                                      .Attr("full_matrices: bool = false")
                                      .Attr(kSolverTypes)
                                      .SetShapeFn(QrShape)));
  DFX_RETURN_IF_ERROR(r->Register(OpDefBuilder("SelfAdjointEigV2")
                                      .Input("input: T")
                                      .Output("e: T")
                                      .Output("v: T")
                                      .Attr("compute_v: bool = true")
                                      .Attr(kSolverTypes)
                                      .SetShapeFn(SelfAdjointEigV2Shape)));
  DFX_RETURN_IF_ERROR(
      r->Register(OpDefBuilder("Eig")
                      .Input("input: T")
                      .Output("e: Tout")
                      .Output("v: Tout")
                      .Attr("compute_v: bool = true")
                      .Attr("T: {float, double, complex64, complex128}")
                      .Attr("Tout: {complex64, complex128}")
                      .SetShapeFn(SelfAdjointEigV2Shape)));
  // Deprecated at GraphDef version 27 (tf.linalg.expm replaced it), a
  // field OpDefBuilder has no setter for.
  DFX_ASSIGN_OR_RETURN(OpRegistrationData expm,
                       OpDefBuilder("MatrixExponential")
                           .Input("input: T")
                           .Output("output: T")
                           .Attr(kSolverTypes)
                           .SetShapeFn(SquareMatrixShape)
                           .Finalize());
  expm.op_def.mutable_deprecation()->set_version(27);
  expm.op_def.mutable_deprecation()->set_explanation(
      "Use Python implementation tf.linalg.matrix_exponential instead.");
  DFX_RETURN_IF_ERROR(r->Register(std::move(expm)));
  DFX_RETURN_IF_ERROR(r->Register(OpDefBuilder("MatrixLogarithm")
                                      .Input("input: T")
                                      .Output("output: T")
                                      .Attr("T: {complex64, complex128}")
                                      .SetShapeFn(SquareMatrixShape)));
  DFX_RETURN_IF_ERROR(r->Register(OpDefBuilder("Svd")
                                      .Input("input: T")
                                      .Output("s: T")
                                      .Output("u: T")
                                      .Output("v: T")
                                      .Attr("compute_uv: bool = true")
                                      .Attr("full_matrices: bool = false")
                                      .Attr(kSolverTypes)
                                      .SetShapeFn(SvdShape)));
  DFX_RETURN_IF_ERROR(r->Register(OpDefBuilder("CholeskyGrad")
                                      .Input("l: T")
                                      .Input("grad: T")
                                      .Output("output: T")
                                      .Attr("T: {half, float, double}")
                                      .SetShapeFn(SquareMatrixShape)));
  DFX_RETURN_IF_ERROR(
      r->Register(OpDefBuilder("MatrixSolveLs")
                      .Input("matrix: T")
                      .Input("rhs: T")
                      .Input("l2_regularizer: double")
                      .Output("output: T")
                      .Attr("T: {double, float, half, complex64, complex128}")
                      .Attr("fast: bool = true")
                      .SetShapeFn(MatrixSolveLsShape)));
  DFX_RETURN_IF_ERROR(r->Register(OpDefBuilder("BandedTriangularSolve")
                                      .Input("matrix: T")
                                      .Input("rhs: T")
                                      .Output("output: T")
                                      .Attr("lower: bool = true")
                                      .Attr("adjoint: bool = false")
                                      .Attr(kSolverTypes)
                                      .SetShapeFn(BandedTriangularSolveShape)));
  return RegisterBatchMatrixOps(r);
}

}  // namespace dfx
