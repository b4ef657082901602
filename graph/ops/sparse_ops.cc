// Sparse-tensor ops: the sparse segment reductions (SparseSegmentSum, Mean,
// SqrtN, their WithNumSegments forms and gradients), SparseToDense,
// SparseTensorDenseMatMul, SparseReshape, SparseFillEmptyRows (and its
// gradient), SparseReorder, SparseSlice, SparseConcat, SparseSplit,
// SparseAdd, SparseTensorDenseAdd, SparseDenseCwise{Add,Mul,Div},
// SparseReduceSum/Max (and *Sparse), SparseSoftmax, SparseSparseMaximum,
// SparseSparseMinimum, SparseCross, the gradients SparseAddGrad and
// SparseSliceGrad; the tf.Example parsers ParseExample and
// ParseSingleExample; and the ragged RaggedTensorToTensor, RaggedRange and
// RaggedTensorToSparse; with their shape functions. Signatures follow
// TensorFlow 2.21; shape functions reject at import only what TensorFlow's
// reject, and leave unknown what depends on values not known then.
#include <cstdint>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "graph/node_def_util.h"
#include "graph/ops/ops.h"

namespace dfx {
namespace {

// TensorFlow's type sets, spelled as its OpDefs list them.
constexpr char kRealTypes[] =
    "{float, double, int32, uint8, int16, int8, int64, bfloat16, uint16, half, "
    "uint32, uint64}";
constexpr char kFloatTypes[] = "{bfloat16, half, float, double}";
constexpr char kNumberTypes[] =
    "{float, double, int32, uint8, int16, int8, complex64, int64, qint8, "
    "quint8, qint32, bfloat16, qint16, quint16, uint16, complex128, half, "
    "uint32, uint64}";

// InvalidArgument when the rank of `shape` is known and below `rank`.
absl::Status WithRankAtLeast(InferenceContext* c, const PartialShape& shape,
                             int rank) {
  if (shape.RankKnown() && shape.rank() < rank) {
    return c->Error(absl::StrCat("Shape must be at least rank ", rank,
                                 " but is rank ", shape.rank()));
  }
  return absl::OkStatus();
}

// Dim 0 of a vector shape, -1 when unknown.
int64_t VectorLength(const PartialShape& s) {
  return s.RankKnown() && s.rank() >= 1 ? s.dims[0] : -1;
}

// The value of a scalar constant integer input, or -1 when not known.
int64_t ConstantScalarOr(InferenceContext* c, int input) {
  std::vector<int64_t> v;
  if (!ConstantInts(c->input_tensor(input), &v) || v.size() != 1) return -1;
  return v[0];
}

// [dim0] + data.shape[1:], unknown when data's rank is.
PartialShape WithDim0(const PartialShape& data, int64_t dim0) {
  if (!data.RankKnown()) return PartialShape::Unknown();
  PartialShape out = data;
  out.dims[0] = dim0;
  return out;
}

// SparseSegment{Sum,Mean,SqrtN}[WithNumSegments]: data [N, ...], indices and
// segment_ids vectors of one length, num_segments a scalar when present.
absl::Status SparseSegmentShapeFn(InferenceContext* c, bool has_num_segments) {
  const PartialShape& data = c->input(0);
  DFX_RETURN_IF_ERROR(WithRankAtLeast(c, data, 1));
  DFX_RETURN_IF_ERROR(c->WithRank(c->input(1), 1));
  DFX_RETURN_IF_ERROR(c->WithRank(c->input(2), 1));
  int64_t merged = 0;
  DFX_RETURN_IF_ERROR(c->MergeDim(VectorLength(c->input(1)),
                                  VectorLength(c->input(2)), &merged));
  int64_t dim0 = -1;
  if (has_num_segments) {
    DFX_RETURN_IF_ERROR(c->WithRank(c->input(3), 0));
    dim0 = ConstantScalarOr(c, 3);
  }
  c->set_output(0, WithDim0(data, dim0));
  return absl::OkStatus();
}

// SparseSegment{Sum,Mean,SqrtN}Grad: grad [S, ...] gives [output_dim0, ...].
absl::Status SparseSegmentGradShapeFn(InferenceContext* c) {
  const PartialShape& grad = c->input(0);
  DFX_RETURN_IF_ERROR(WithRankAtLeast(c, grad, 1));
  DFX_RETURN_IF_ERROR(c->WithRank(c->input(1), 1));
  DFX_RETURN_IF_ERROR(c->WithRank(c->input(2), 1));
  int64_t merged = 0;
  DFX_RETURN_IF_ERROR(c->MergeDim(VectorLength(c->input(1)),
                                  VectorLength(c->input(2)), &merged));
  DFX_RETURN_IF_ERROR(c->WithRank(c->input(3), 0));
  c->set_output(0, WithDim0(grad, ConstantScalarOr(c, 3)));
  return absl::OkStatus();
}

// SparseSegment{Sum,Mean,SqrtN}GradV2: one row per distinct index.
absl::Status SparseSegmentGradV2ShapeFn(InferenceContext* c) {
  const PartialShape& grad = c->input(0);
  DFX_RETURN_IF_ERROR(WithRankAtLeast(c, grad, 1));
  DFX_RETURN_IF_ERROR(c->WithRank(c->input(1), 1));
  DFX_RETURN_IF_ERROR(c->WithRank(c->input(2), 1));
  int64_t merged = 0;
  DFX_RETURN_IF_ERROR(c->MergeDim(VectorLength(c->input(1)),
                                  VectorLength(c->input(2)), &merged));
  DFX_RETURN_IF_ERROR(c->WithRank(c->input(3), 0));
  c->set_output(0, WithDim0(grad, -1));
  c->set_output(1, PartialShape::Known({-1}));
  return absl::OkStatus();
}

absl::Status RegisterSparseSegmentOps(OpRegistry* r) {
  struct Reduction {
    const char* name;
    const char* types;
  };
  for (const Reduction& op : {Reduction{"SparseSegmentSum", kRealTypes},
                              Reduction{"SparseSegmentMean", kFloatTypes},
                              Reduction{"SparseSegmentSqrtN", kFloatTypes}}) {
    DFX_RETURN_IF_ERROR(r->Register(
        OpDefBuilder(op.name)
            .Input("data: T")
            .Input("indices: Tidx")
            .Input("segment_ids: Tsegmentids")
            .Output("output: T")
            .Attr(absl::StrCat("T: ", op.types))
            .Attr("Tidx: {int32, int64} = DT_INT32")
            .Attr("Tsegmentids: {int32, int64} = DT_INT32")
            .Attr("sparse_gradient: bool = false")
            .SetShapeFn([](InferenceContext* c) {
              return SparseSegmentShapeFn(c, /*has_num_segments=*/false);
            })));
    DFX_RETURN_IF_ERROR(r->Register(
        OpDefBuilder(absl::StrCat(op.name, "WithNumSegments"))
            .Input("data: T")
            .Input("indices: Tidx")
            .Input("segment_ids: Tsegmentids")
            .Input("num_segments: Tnumsegments")
            .Output("output: T")
            .Attr(absl::StrCat("T: ", op.types))
            .Attr("Tidx: {int32, int64} = DT_INT32")
            .Attr("Tnumsegments: {int32, int64} = DT_INT32")
            .Attr("Tsegmentids: {int32, int64} = DT_INT32")
            .Attr("sparse_gradient: bool = false")
            .SetShapeFn([](InferenceContext* c) {
              return SparseSegmentShapeFn(c, /*has_num_segments=*/true);
            })));
  }
  for (const char* name : {"SparseSegmentSumGrad", "SparseSegmentMeanGrad",
                           "SparseSegmentSqrtNGrad"}) {
    DFX_RETURN_IF_ERROR(
        r->Register(OpDefBuilder(name)
                        .Input("grad: T")
                        .Input("indices: Tidx")
                        .Input("segment_ids: Tsegmentids")
                        .Input("output_dim0: int32")
                        .Output("output: T")
                        .Attr(absl::StrCat("T: ", kFloatTypes))
                        .Attr("Tidx: {int32, int64} = DT_INT32")
                        .Attr("Tsegmentids: {int32, int64} = DT_INT32")
                        .SetShapeFn(SparseSegmentGradShapeFn)));
  }
  for (const char* name : {"SparseSegmentSumGradV2", "SparseSegmentMeanGradV2",
                           "SparseSegmentSqrtNGradV2"}) {
    DFX_RETURN_IF_ERROR(
        r->Register(OpDefBuilder(name)
                        .Input("grad: T")
                        .Input("indices: Tidx")
                        .Input("segment_ids: Tsegmentids")
                        .Input("dense_output_dim0: int32")
                        .Output("output: T")
                        .Output("sorted_unique_indices: Tidx")
                        .Attr(absl::StrCat("T: ", kFloatTypes))
                        .Attr("Tidx: {int32, int64} = DT_INT32")
                        .Attr("Tsegmentids: {int32, int64} = DT_INT32")
                        .SetShapeFn(SparseSegmentGradV2ShapeFn)));
  }
  return absl::OkStatus();
}

// The values of a constant integer vector input, or false.
bool ConstantVector(InferenceContext* c, int input, std::vector<int64_t>* v) {
  return ConstantInts(c->input_tensor(input), v);
}

absl::Status SparseToDenseShapeFn(InferenceContext* c) {
  std::vector<int64_t> dims;
  if (ConstantVector(c, 1, &dims) && c->input(1).RankKnown() &&
      c->input(1).rank() == 1) {
    c->set_output(0, PartialShape::Known(dims));
    return absl::OkStatus();
  }
  const int64_t rank = VectorLength(c->input(1));
  c->set_output(0, rank >= 0 ? UnknownDims(static_cast<int>(rank))
                             : PartialShape::Unknown());
  return absl::OkStatus();
}

absl::Status SparseTensorDenseMatMulShapeFn(InferenceContext* c) {
  DFX_RETURN_IF_ERROR(c->WithRank(c->input(0), 2));
  DFX_RETURN_IF_ERROR(c->WithRank(c->input(1), 1));
  DFX_RETURN_IF_ERROR(c->WithRank(c->input(2), 1));
  const PartialShape& b = c->input(3);
  DFX_RETURN_IF_ERROR(c->WithRank(b, 2));
  const AttrValue* adj_a = FindNodeAttr(c->node_def(), "adjoint_a");
  const AttrValue* adj_b = FindNodeAttr(c->node_def(), "adjoint_b");
  const bool adjoint_a = adj_a != nullptr && adj_a->b();
  const bool adjoint_b = adj_b != nullptr && adj_b->b();
  int64_t rows = -1;
  std::vector<int64_t> a_shape;
  if (ConstantVector(c, 2, &a_shape) && a_shape.size() == 2) {
    rows = a_shape[adjoint_a ? 1 : 0];
    const int64_t inner = a_shape[adjoint_a ? 0 : 1];
    const int64_t b_inner = b.RankKnown() ? b.dims[adjoint_b ? 1 : 0] : -1;
    int64_t merged = 0;
    DFX_RETURN_IF_ERROR(c->MergeDim(inner, b_inner, &merged));
  }
  const int64_t cols = b.RankKnown() ? b.dims[adjoint_b ? 0 : 1] : -1;
  c->set_output(0, PartialShape::Known({rows, cols}));
  return absl::OkStatus();
}

absl::Status SparseReshapeShapeFn(InferenceContext* c) {
  DFX_RETURN_IF_ERROR(c->WithRank(c->input(0), 2));
  DFX_RETURN_IF_ERROR(c->WithRank(c->input(1), 1));
  DFX_RETURN_IF_ERROR(c->WithRank(c->input(2), 1));
  const int64_t nnz = c->input(0).RankKnown() ? c->input(0).dims[0] : -1;
  const int64_t rank = VectorLength(c->input(2));
  c->set_output(0, PartialShape::Known({nnz, rank}));
  c->set_output(1, PartialShape::Known({rank}));
  return absl::OkStatus();
}

absl::Status SparseFillEmptyRowsShapeFn(InferenceContext* c) {
  DFX_RETURN_IF_ERROR(c->WithRank(c->input(0), 2));
  DFX_RETURN_IF_ERROR(c->WithRank(c->input(1), 1));
  DFX_RETURN_IF_ERROR(c->WithRank(c->input(2), 1));
  DFX_RETURN_IF_ERROR(c->WithRank(c->input(3), 0));
  const PartialShape& indices = c->input(0);
  const int64_t nnz = indices.RankKnown() ? indices.dims[0] : -1;
  const int64_t rank = indices.RankKnown() ? indices.dims[1] : -1;
  int64_t merged = 0;
  DFX_RETURN_IF_ERROR(c->MergeDim(nnz, VectorLength(c->input(1)), &merged));
  DFX_RETURN_IF_ERROR(c->MergeDim(rank, VectorLength(c->input(2)), &merged));
  std::vector<int64_t> dense;
  int64_t rows = -1;
  if (ConstantVector(c, 2, &dense) && !dense.empty()) rows = dense[0];
  c->set_output(0, PartialShape::Known({-1, rank}));
  c->set_output(1, PartialShape::Known({-1}));
  c->set_output(2, PartialShape::Known({rows}));
  c->set_output(3, PartialShape::Known({nnz}));
  return absl::OkStatus();
}

absl::Status SparseFillEmptyRowsGradShapeFn(InferenceContext* c) {
  DFX_RETURN_IF_ERROR(c->WithRank(c->input(0), 1));
  DFX_RETURN_IF_ERROR(c->WithRank(c->input(1), 1));
  c->set_output(0, PartialShape::Known({VectorLength(c->input(0))}));
  c->set_output(1, PartialShape::Known({}));
  return absl::OkStatus();
}

absl::Status RegisterSparseTensorOps(OpRegistry* r) {
  DFX_RETURN_IF_ERROR(
      r->Register(OpDefBuilder("SparseToDense")
                      .Input("sparse_indices: Tindices")
                      .Input("output_shape: Tindices")
                      .Input("sparse_values: T")
                      .Input("default_value: T")
                      .Output("dense: T")
                      .Attr("validate_indices: bool = true")
                      .Attr("T: type")
                      .Attr("Tindices: {int32, int64}")
                      .SetShapeFn(SparseToDenseShapeFn)));
  DFX_RETURN_IF_ERROR(
      r->Register(OpDefBuilder("SparseTensorDenseMatMul")
                      .Input("a_indices: Tindices")
                      .Input("a_values: T")
                      .Input("a_shape: int64")
                      .Input("b: T")
                      .Output("product: T")
                      .Attr("T: type")
                      .Attr("Tindices: {int32, int64} = DT_INT64")
                      .Attr("adjoint_a: bool = false")
                      .Attr("adjoint_b: bool = false")
                      .SetShapeFn(SparseTensorDenseMatMulShapeFn)));
  DFX_RETURN_IF_ERROR(
      r->Register(OpDefBuilder("SparseReshape")
                      .Input("input_indices: int64")
                      .Input("input_shape: int64")
                      .Input("new_shape: int64")
                      .Output("output_indices: int64")
                      .Output("output_shape: int64")
                      .SetShapeFn(SparseReshapeShapeFn)));
  DFX_RETURN_IF_ERROR(
      r->Register(OpDefBuilder("SparseFillEmptyRows")
                      .Input("indices: int64")
                      .Input("values: T")
                      .Input("dense_shape: int64")
                      .Input("default_value: T")
                      .Output("output_indices: int64")
                      .Output("output_values: T")
                      .Output("empty_row_indicator: bool")
                      .Output("reverse_index_map: int64")
                      .Attr("T: type")
                      .SetShapeFn(SparseFillEmptyRowsShapeFn)));
  DFX_RETURN_IF_ERROR(
      r->Register(OpDefBuilder("SparseCross")
                      .Input("indices: N * int64")
                      .Input("values: sparse_types")
                      .Input("shapes: N * int64")
                      .Input("dense_inputs: dense_types")
                      .Output("output_indices: int64")
                      .Output("output_values: out_type")
                      .Output("output_shape: int64")
                      .Attr("N: int >= 0")
                      .Attr("hashed_output: bool")
                      .Attr("num_buckets: int >= 0")
                      .Attr("hash_key: int")
                      .Attr("sparse_types: list({int64, string}) >= 0")
                      .Attr("dense_types: list({int64, string}) >= 0")
                      .Attr("out_type: {int64, string}")
                      .Attr("internal_type: {int64, string}")
                      .SetShapeFn([](InferenceContext* c) {
                        c->set_output(0, PartialShape::Known({-1, 2}));
                        c->set_output(1, PartialShape::Known({-1}));
                        c->set_output(2, PartialShape::Known({2}));
                        return absl::OkStatus();
                      })));
  DFX_RETURN_IF_ERROR(
      r->Register(OpDefBuilder("SparseSlice")
                      .Input("indices: int64")
                      .Input("values: T")
                      .Input("shape: int64")
                      .Input("start: int64")
                      .Input("size: int64")
                      .Output("output_indices: int64")
                      .Output("output_values: T")
                      .Output("output_shape: int64")
                      .Attr("T: type")
                      .SetShapeFn([](InferenceContext* c) {
                        const int64_t rank = VectorLength(c->input(2));
                        c->set_output(0, PartialShape::Known({-1, rank}));
                        c->set_output(1, PartialShape::Known({-1}));
                        c->set_output(2, PartialShape::Known({rank}));
                        return absl::OkStatus();
                      })));
  DFX_RETURN_IF_ERROR(
      r->Register(OpDefBuilder("SparseConcat")
                      .Input("indices: N * int64")
                      .Input("values: N * T")
                      .Input("shapes: N * int64")
                      .Output("output_indices: int64")
                      .Output("output_values: T")
                      .Output("output_shape: int64")
                      .Attr("concat_dim: int")
                      .Attr("N: int >= 2")
                      .Attr("T: type")
                      .SetShapeFn([](InferenceContext* c) {
                        const int64_t rank =
                            VectorLength(c->input(c->num_inputs() - 1));
                        c->set_output(0, PartialShape::Known({-1, rank}));
                        c->set_output(1, PartialShape::Known({-1}));
                        c->set_output(2, PartialShape::Known({rank}));
                        return absl::OkStatus();
                      })));
  DFX_RETURN_IF_ERROR(
      r->Register(OpDefBuilder("SparseSplit")
                      .Input("split_dim: int64")
                      .Input("indices: int64")
                      .Input("values: T")
                      .Input("shape: int64")
                      .Output("output_indices: num_split * int64")
                      .Output("output_values: num_split * T")
                      .Output("output_shape: num_split * int64")
                      .Attr("num_split: int >= 1")
                      .Attr("T: type")
                      .SetShapeFn([](InferenceContext* c) {
                        const int n = c->num_outputs() / 3;
                        const int64_t rank = VectorLength(c->input(3));
                        for (int p = 0; p < n; ++p) {
                          c->set_output(p, PartialShape::Known({-1, rank}));
                          c->set_output(n + p, PartialShape::Known({-1}));
                          c->set_output(2 * n + p, PartialShape::Known({rank}));
                        }
                        return absl::OkStatus();
                      })));
  DFX_RETURN_IF_ERROR(
      r->Register(OpDefBuilder("SparseTensorDenseAdd")
                      .Input("a_indices: Tindices")
                      .Input("a_values: T")
                      .Input("a_shape: Tindices")
                      .Input("b: T")
                      .Output("output: T")
                      .Attr(absl::StrCat("T: ", kNumberTypes))
                      .Attr("Tindices: {int32, int64}")
                      .SetShapeFn([](InferenceContext* c) {
                        c->set_output(0, c->input(3));
                        return absl::OkStatus();
                      })));
  for (const char* name : {"SparseDenseCwiseAdd", "SparseDenseCwiseMul",
                           "SparseDenseCwiseDiv"}) {
    DFX_RETURN_IF_ERROR(
        r->Register(OpDefBuilder(name)
                        .Input("sp_indices: int64")
                        .Input("sp_values: T")
                        .Input("sp_shape: int64")
                        .Input("dense: T")
                        .Output("output: T")
                        .Attr(absl::StrCat("T: ", kNumberTypes))
                        .SetShapeFn([](InferenceContext* c) {
                          c->set_output(
                              0, PartialShape::Known({VectorLength(c->input(1))}));
                          return absl::OkStatus();
                        })));
  }
  struct Reduce {
    const char* name;
    const char* types;
  };
  for (const Reduce& op : {Reduce{"SparseReduceSum", kNumberTypes},
                           Reduce{"SparseReduceMax", kRealTypes}}) {
    DFX_RETURN_IF_ERROR(
        r->Register(OpDefBuilder(op.name)
                        .Input("input_indices: int64")
                        .Input("input_values: T")
                        .Input("input_shape: int64")
                        .Input("reduction_axes: int32")
                        .Output("output: T")
                        .Attr("keep_dims: bool = false")
                        .Attr(absl::StrCat("T: ", op.types))
                        .SetShapeFn(shape_fn::Unknown)));
  }
  for (const Reduce& op : {Reduce{"SparseReduceSumSparse", kNumberTypes},
                           Reduce{"SparseReduceMaxSparse", kRealTypes}}) {
    DFX_RETURN_IF_ERROR(
        r->Register(OpDefBuilder(op.name)
                        .Input("input_indices: int64")
                        .Input("input_values: T")
                        .Input("input_shape: int64")
                        .Input("reduction_axes: int32")
                        .Output("output_indices: int64")
                        .Output("output_values: T")
                        .Output("output_shape: int64")
                        .Attr("keep_dims: bool = false")
                        .Attr(absl::StrCat("T: ", op.types))
                        .SetShapeFn(shape_fn::Unknown)));
  }
  DFX_RETURN_IF_ERROR(
      r->Register(OpDefBuilder("SparseSoftmax")
                      .Input("sp_indices: int64")
                      .Input("sp_values: T")
                      .Input("sp_shape: int64")
                      .Output("output: T")
                      .Attr("T: {half, float, double}")
                      .SetShapeFn([](InferenceContext* c) {
                        c->set_output(
                            0, PartialShape::Known({VectorLength(c->input(1))}));
                        return absl::OkStatus();
                      })));
  for (const char* name : {"SparseSparseMaximum", "SparseSparseMinimum"}) {
    DFX_RETURN_IF_ERROR(
        r->Register(OpDefBuilder(name)
                        .Input("a_indices: int64")
                        .Input("a_values: T")
                        .Input("a_shape: int64")
                        .Input("b_indices: int64")
                        .Input("b_values: T")
                        .Input("b_shape: int64")
                        .Output("output_indices: int64")
                        .Output("output_values: T")
                        .Attr(absl::StrCat("T: ", kRealTypes))
                        .SetShapeFn([](InferenceContext* c) {
                          const int64_t rank = VectorLength(c->input(2));
                          c->set_output(0, PartialShape::Known({-1, rank}));
                          c->set_output(1, PartialShape::Known({-1}));
                          return absl::OkStatus();
                        })));
  }
  DFX_RETURN_IF_ERROR(
      r->Register(OpDefBuilder("SparseAddGrad")
                      .Input("backprop_val_grad: T")
                      .Input("a_indices: int64")
                      .Input("b_indices: int64")
                      .Input("sum_indices: int64")
                      .Output("a_val_grad: T")
                      .Output("b_val_grad: T")
                      .Attr(absl::StrCat("T: ", kNumberTypes))
                      .SetShapeFn([](InferenceContext* c) {
                        auto rows = [&](int i) {
                          const PartialShape& s = c->input(i);
                          return s.RankKnown() && s.rank() >= 1 ? s.dims[0] : -1;
                        };
                        c->set_output(0, PartialShape::Known({rows(1)}));
                        c->set_output(1, PartialShape::Known({rows(2)}));
                        return absl::OkStatus();
                      })));
  DFX_RETURN_IF_ERROR(
      r->Register(OpDefBuilder("SparseSliceGrad")
                      .Input("backprop_val_grad: T")
                      .Input("input_indices: int64")
                      .Input("input_start: int64")
                      .Input("output_indices: int64")
                      .Output("val_grad: T")
                      .Attr(absl::StrCat("T: ", kNumberTypes))
                      .SetShapeFn([](InferenceContext* c) {
                        const PartialShape& s = c->input(1);
                        c->set_output(0, PartialShape::Known(
                                             {s.RankKnown() && s.rank() >= 1
                                                  ? s.dims[0]
                                                  : -1}));
                        return absl::OkStatus();
                      })));
  DFX_RETURN_IF_ERROR(
      r->Register(OpDefBuilder("SparseReorder")
                      .Input("input_indices: int64")
                      .Input("input_values: T")
                      .Input("input_shape: int64")
                      .Output("output_indices: int64")
                      .Output("output_values: T")
                      .Attr("T: type")
                      .SetShapeFn([](InferenceContext* c) {
                        DFX_RETURN_IF_ERROR(c->WithRank(c->input(0), 2));
                        DFX_RETURN_IF_ERROR(c->WithRank(c->input(1), 1));
                        DFX_RETURN_IF_ERROR(c->WithRank(c->input(2), 1));
                        c->set_output(0, c->input(0));
                        c->set_output(1, c->input(1));
                        return absl::OkStatus();
                      })));
  DFX_RETURN_IF_ERROR(
      r->Register(OpDefBuilder("SparseAdd")
                      .Input("a_indices: int64")
                      .Input("a_values: T")
                      .Input("a_shape: int64")
                      .Input("b_indices: int64")
                      .Input("b_values: T")
                      .Input("b_shape: int64")
                      .Input("thresh: Treal")
                      .Output("sum_indices: int64")
                      .Output("sum_values: T")
                      .Output("sum_shape: int64")
                      .Attr(absl::StrCat("T: ", kNumberTypes))
                      .Attr(absl::StrCat("Treal: ", kRealTypes))
                      .SetShapeFn([](InferenceContext* c) {
                        const PartialShape& a = c->input(0);
                        DFX_RETURN_IF_ERROR(c->WithRank(a, 2));
                        const int64_t rank = a.RankKnown() ? a.dims[1] : -1;
                        c->set_output(0, PartialShape::Known({-1, rank}));
                        c->set_output(1, PartialShape::Known({-1}));
                        c->set_output(2, c->input(2));
                        return absl::OkStatus();
                      })));
  DFX_RETURN_IF_ERROR(
      r->Register(OpDefBuilder("SparseFillEmptyRowsGrad")
                      .Input("reverse_index_map: int64")
                      .Input("grad_values: T")
                      .Output("d_values: T")
                      .Output("d_default_value: T")
                      .Attr("T: type")
                      .SetShapeFn(SparseFillEmptyRowsGradShapeFn)));
  return absl::OkStatus();
}

// ParseExample / ParseSingleExample: outputs sparse indices [?, rank],
// values [?], shapes [rank] per sparse key, then each dense value of
// [batch] + dense_shape (rank is 2 batched, 1 single).
absl::Status ParseExampleShapeFn(InferenceContext* c, bool single) {
  const AttrValue* types = FindNodeAttr(c->node_def(), "sparse_types");
  const AttrValue* shapes = FindNodeAttr(c->node_def(), "dense_shapes");
  const int ns = types == nullptr ? 0 : types->list().type_size();
  const int nd = shapes == nullptr ? 0 : shapes->list().shape_size();
  const PartialShape& serialized = c->input(0);
  if (single) DFX_RETURN_IF_ERROR(c->WithRank(serialized, 0));
  const int64_t batch =
      single || !serialized.RankKnown() || serialized.rank() != 1
          ? -1
          : serialized.dims[0];
  const int64_t rank = single ? 1 : 2;
  if (c->num_outputs() != 3 * ns + nd) return shape_fn::Unknown(c);
  for (int k = 0; k < ns; ++k) {
    c->set_output(k, PartialShape::Known({-1, rank}));
    c->set_output(ns + k, PartialShape::Known({-1}));
    c->set_output(2 * ns + k, PartialShape::Known({rank}));
  }
  for (int k = 0; k < nd; ++k) {
    const TensorShapeProto& p = shapes->list().shape(k);
    if (p.unknown_rank()) {
      c->set_output(3 * ns + k, PartialShape::Unknown());
      continue;
    }
    std::vector<int64_t> dims;
    if (!single) dims.push_back(batch);
    for (const auto& d : p.dim()) dims.push_back(d.size());
    c->set_output(3 * ns + k, PartialShape::Known(dims));
  }
  return absl::OkStatus();
}

absl::Status RegisterParseExampleOps(OpRegistry* r) {
  DFX_RETURN_IF_ERROR(r->Register(
      OpDefBuilder("ParseExample")
          .Input("serialized: string")
          .Input("names: string")
          .Input("sparse_keys: Nsparse * string")
          .Input("dense_keys: Ndense * string")
          .Input("dense_defaults: Tdense")
          .Output("sparse_indices: Nsparse * int64")
          .Output("sparse_values: sparse_types")
          .Output("sparse_shapes: Nsparse * int64")
          .Output("dense_values: Tdense")
          .Attr("Nsparse: int >= 0")
          .Attr("Ndense: int >= 0")
          .Attr("sparse_types: list({float,int64,string}) >= 0")
          .Attr("Tdense: list({float,int64,string}) >= 0")
          .Attr("dense_shapes: list(shape) >= 0")
          .SetShapeFn([](InferenceContext* c) {
            return ParseExampleShapeFn(c, /*single=*/false);
          })));
  DFX_RETURN_IF_ERROR(r->Register(
      OpDefBuilder("ParseSingleExample")
          .Input("serialized: string")
          .Input("dense_defaults: Tdense")
          .Output("sparse_indices: num_sparse * int64")
          .Output("sparse_values: sparse_types")
          .Output("sparse_shapes: num_sparse * int64")
          .Output("dense_values: Tdense")
          .Attr("num_sparse: int >= 0")
          .Attr("sparse_keys: list(string) >= 0")
          .Attr("dense_keys: list(string) >= 0")
          .Attr("sparse_types: list({float,int64,string}) >= 0")
          .Attr("Tdense: list({float,int64,string}) >= 0")
          .Attr("dense_shapes: list(shape) >= 0")
          .SetShapeFn([](InferenceContext* c) {
            return ParseExampleShapeFn(c, /*single=*/true);
          })));
  return absl::OkStatus();
}

// RaggedTensorToTensor: the requested shape where constant (-1 unknown),
// else ragged_rank + rank(values) unknown dims.
absl::Status RaggedTensorToTensorShapeFn(InferenceContext* c) {
  const AttrValue* types = FindNodeAttr(c->node_def(), "row_partition_types");
  int ragged_rank = types == nullptr ? 0 : types->list().s_size();
  if (ragged_rank > 0 && types->list().s(0) == "FIRST_DIM_SIZE") --ragged_rank;
  std::vector<int64_t> dims;
  if (ConstantVector(c, 0, &dims) && c->input(0).RankKnown() &&
      c->input(0).rank() == 1) {
    for (int64_t& d : dims) d = d < 0 ? -1 : d;
    c->set_output(0, PartialShape::Known(dims));
    return absl::OkStatus();
  }
  const PartialShape& values = c->input(1);
  c->set_output(0, values.RankKnown()
                       ? UnknownDims(ragged_rank + values.rank())
                       : PartialShape::Unknown());
  return absl::OkStatus();
}

absl::Status RaggedRangeShapeFn(InferenceContext* c) {
  for (int i = 0; i < 3; ++i) {
    if (c->input(i).RankKnown() && c->input(i).rank() > 1) {
      return c->Error("starts, limits and deltas must be scalars or vectors");
    }
  }
  c->set_output(0, PartialShape::Known({-1}));
  c->set_output(1, PartialShape::Known({-1}));
  return absl::OkStatus();
}

absl::Status RaggedTensorToSparseShapeFn(InferenceContext* c) {
  const int levels = c->num_inputs() - 1;
  const PartialShape& values = c->input(levels);
  const int64_t rank = values.RankKnown() ? levels + values.rank() : -1;
  c->set_output(0, PartialShape::Known({-1, rank}));
  c->set_output(1, PartialShape::Known({-1}));
  c->set_output(2, PartialShape::Known({rank}));
  return absl::OkStatus();
}

absl::Status RegisterRaggedOps(OpRegistry* r) {
  DFX_RETURN_IF_ERROR(r->Register(
      OpDefBuilder("RaggedTensorToTensor")
          .Input("shape: Tshape")
          .Input("values: T")
          .Input("default_value: T")
          .Input("row_partition_tensors: num_row_partition_tensors * Tindex")
          .Output("result: T")
          .Attr("T: type")
          .Attr("Tindex: {int64, int32}")
          .Attr("Tshape: {int64, int32}")
          .Attr("num_row_partition_tensors: int >= 1")
          .Attr("row_partition_types: list(string)")
          .SetShapeFn(RaggedTensorToTensorShapeFn)));
  DFX_RETURN_IF_ERROR(r->Register(
      OpDefBuilder("RaggedRange")
          .Input("starts: T")
          .Input("limits: T")
          .Input("deltas: T")
          .Output("rt_nested_splits: Tsplits")
          .Output("rt_dense_values: T")
          .Attr("T: {bfloat16, float, double, int32, int64} = DT_INT32")
          .Attr("Tsplits: {int32, int64} = DT_INT64")
          .SetShapeFn(RaggedRangeShapeFn)));
  DFX_RETURN_IF_ERROR(r->Register(
      OpDefBuilder("RaggedTensorToSparse")
          .Input("rt_nested_splits: RAGGED_RANK * Tsplits")
          .Input("rt_dense_values: T")
          .Output("sparse_indices: int64")
          .Output("sparse_values: T")
          .Output("sparse_dense_shape: int64")
          .Attr("RAGGED_RANK: int >= 1")
          .Attr("T: type")
          .Attr("Tsplits: {int32, int64} = DT_INT64")
          .SetShapeFn(RaggedTensorToSparseShapeFn)));
  return absl::OkStatus();
}

}  // namespace

absl::Status RegisterSparseOps(OpRegistry* r) {
  DFX_RETURN_IF_ERROR(RegisterSparseSegmentOps(r));
  DFX_RETURN_IF_ERROR(RegisterSparseTensorOps(r));
  DFX_RETURN_IF_ERROR(RegisterParseExampleOps(r));
  DFX_RETURN_IF_ERROR(RegisterRaggedOps(r));
  return absl::OkStatus();
}

}  // namespace dfx
