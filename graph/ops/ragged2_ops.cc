// The ragged2 family's ops: counting on sparse and ragged input as Keras
// preprocessing layers and tf.sparse.bincount emit it (SparseBincount,
// RaggedBincount, DenseCountSparseOutput, SparseCountSparseOutput,
// RaggedCountSparseOutput) and feature crosses as Keras's HashedCrossing
// and tf.sparse.cross / tf.ragged.cross emit them (SparseCrossV2,
// SparseCrossHashed, RaggedCross).
// Signatures follow TensorFlow 2.21's math_ops.cc, count_ops.cc and
// sparse_ops.cc.
#include <cstdint>
#include <vector>

#include "base/status_macros.h"
#include "graph/ops/ops.h"
#include "graph/ops/ragged2_ops.h"

namespace dfx {
namespace {

// SparseBincount and RaggedBincount: TensorFlow leaves the output unknown.
absl::Status BincountShape(InferenceContext* c) {
  c->set_output(0, PartialShape::Unknown());
  return absl::OkStatus();
}

// The outputs of a SparseTensor of `rank` dims (-1 unknown) and an unknown
// number of values.
void SetSparseOutputs(InferenceContext* c, int64_t rank) {
  c->set_output(0, PartialShape::Known({-1, rank}));
  c->set_output(1, PartialShape::Known({-1}));
  c->set_output(2, PartialShape::Known({rank}));
}

absl::Status DenseCountShape(InferenceContext* c) {
  const PartialShape& values = c->input(0);
  const PartialShape& weights = c->input(1);
  PartialShape merged = values;
  bool no_weights = false;
  if (weights.RankKnown()) {
    int64_t n = 1;
    for (int64_t d : weights.dims) n = (n < 0 || d < 0) ? -1 : n * d;
    no_weights = n == 0;
  }
  if (!no_weights) DFX_RETURN_IF_ERROR(c->Merge(weights, values, &merged));
  SetSparseOutputs(c, merged.RankKnown() ? merged.rank() : -1);
  return absl::OkStatus();
}

absl::Status SparseCountShape(InferenceContext* c) {
  const PartialShape& indices = c->input(0);
  SetSparseOutputs(
      c, indices.RankKnown() && indices.rank() >= 2 ? indices.dims[1] : -1);
  return absl::OkStatus();
}

absl::Status RaggedCountShape(InferenceContext* c) {
  const PartialShape& values = c->input(1);
  int64_t rank = -1;
  if (values.RankKnown()) rank = values.rank() > 0 ? values.rank() + 1 : 0;
  SetSparseOutputs(c, rank);
  return absl::OkStatus();
}

void CountAttrs(OpDefBuilder& b) {
  b.Attr("T: {int32, int64}")
      .Attr("minlength: int >= -1 = -1")
      .Attr("maxlength: int >= -1 = -1")
      .Attr("binary_output: bool")
      .Attr("output_type: {int32, int64, float, double}");
}

// A cross's SparseTensor: [?, 2] indices, [?] values, [2] shape.
absl::Status CrossShape(InferenceContext* c) {
  SetSparseOutputs(c, 2);
  return absl::OkStatus();
}

// RaggedFillEmptyRows: value_rowids and values vectors, nrows and
// default_value scalars; the filled count is known only at run time.
absl::Status RaggedFillEmptyRowsShape(InferenceContext* c) {
  DFX_RETURN_IF_ERROR(c->WithRank(c->input(0), 1));
  DFX_RETURN_IF_ERROR(c->WithRank(c->input(1), 1));
  DFX_RETURN_IF_ERROR(c->WithRank(c->input(2), 0));
  DFX_RETURN_IF_ERROR(c->WithRank(c->input(3), 0));
  int64_t n = -1;
  DFX_RETURN_IF_ERROR(
      c->MergeDim(c->input(0).RankKnown() ? c->input(0).dims[0] : -1,
                  c->input(1).RankKnown() ? c->input(1).dims[0] : -1, &n));
  c->set_output(0, PartialShape::Known({-1}));
  c->set_output(1, PartialShape::Known({-1}));
  c->set_output(2, PartialShape::Known({-1}));
  c->set_output(3, PartialShape::Known({n}));
  return absl::OkStatus();
}

absl::Status RaggedFillEmptyRowsGradShape(InferenceContext* c) {
  DFX_RETURN_IF_ERROR(c->WithRank(c->input(0), 1));
  DFX_RETURN_IF_ERROR(c->WithRank(c->input(1), 1));
  c->set_output(0, c->input(0));
  c->set_output(1, PartialShape::Scalar());
  return absl::OkStatus();
}

}  // namespace

absl::Status RegisterRagged2Ops(OpRegistry* r) {
  DFX_RETURN_IF_ERROR(
      r->Register(OpDefBuilder("SparseBincount")
                      .Input("indices: int64")
                      .Input("values: Tidx")
                      .Input("dense_shape: int64")
                      .Input("size: Tidx")
                      .Input("weights: T")
                      .Output("output: T")
                      .Attr("Tidx: {int32, int64}")
                      .Attr("T: {int32, int64, float32, float64}")
                      .Attr("binary_output: bool = false")
                      .SetShapeFn(BincountShape)));
  DFX_RETURN_IF_ERROR(
      r->Register(OpDefBuilder("RaggedBincount")
                      .Input("splits: int64")
                      .Input("values: Tidx")
                      .Input("size: Tidx")
                      .Input("weights: T")
                      .Output("output: T")
                      .Attr("Tidx: {int32, int64}")
                      .Attr("T: {int32, int64, float32, float64}")
                      .Attr("binary_output: bool = false")
                      .SetShapeFn(BincountShape)));
  {
    OpDefBuilder b("DenseCountSparseOutput");
    b.Input("values: T").Input("weights: output_type");
    b.Output("output_indices: int64")
        .Output("output_values: output_type")
        .Output("output_dense_shape: int64");
    CountAttrs(b);
    DFX_RETURN_IF_ERROR(r->Register(b.SetShapeFn(DenseCountShape)));
  }
  {
    OpDefBuilder b("SparseCountSparseOutput");
    b.Input("indices: int64")
        .Input("values: T")
        .Input("dense_shape: int64")
        .Input("weights: output_type");
    b.Output("output_indices: int64")
        .Output("output_values: output_type")
        .Output("output_dense_shape: int64");
    CountAttrs(b);
    DFX_RETURN_IF_ERROR(r->Register(b.SetShapeFn(SparseCountShape)));
  }
  {
    OpDefBuilder b("RaggedCountSparseOutput");
    b.Input("splits: int64").Input("values: T").Input("weights: output_type");
    b.Output("output_indices: int64")
        .Output("output_values: output_type")
        .Output("output_dense_shape: int64");
    CountAttrs(b);
    DFX_RETURN_IF_ERROR(r->Register(b.SetShapeFn(RaggedCountShape)));
  }
  DFX_RETURN_IF_ERROR(
      r->Register(OpDefBuilder("SparseCrossHashed")
                      .Input("indices: N * int64")
                      .Input("values: sparse_types")
                      .Input("shapes: N * int64")
                      .Input("dense_inputs: dense_types")
                      .Input("num_buckets: int64")
                      .Input("strong_hash: bool")
                      .Input("salt: int64")
                      .Output("output_indices: int64")
                      .Output("output_values: int64")
                      .Output("output_shape: int64")
                      .Attr("N: int >= 0")
                      .Attr("sparse_types: list({int64, string}) >= 0")
                      .Attr("dense_types: list({int64, string}) >= 0")
                      .SetShapeFn(CrossShape)));
  DFX_RETURN_IF_ERROR(
      r->Register(OpDefBuilder("SparseCrossV2")
                      .Input("indices: N * int64")
                      .Input("values: sparse_types")
                      .Input("shapes: N * int64")
                      .Input("dense_inputs: dense_types")
                      .Input("sep: string")
                      .Output("output_indices: int64")
                      .Output("output_values: string")
                      .Output("output_shape: int64")
                      .Attr("N: int >= 0")
                      .Attr("sparse_types: list({int64, string}) >= 0")
                      .Attr("dense_types: list({int64, string}) >= 0")
                      .SetShapeFn(CrossShape)));
  DFX_RETURN_IF_ERROR(
      r->Register(OpDefBuilder("RaggedCross")
                      .Input("ragged_values: ragged_values_types")
                      .Input("ragged_row_splits: ragged_splits_types")
                      .Input("sparse_indices: Nsparse * int64")
                      .Input("sparse_values: sparse_values_types")
                      .Input("sparse_shape: Nsparse * int64")
                      .Input("dense_inputs: dense_types")
                      .Output("output_values: out_values_type")
                      .Output("output_row_splits: out_row_splits_type")
                      .Attr("Nsparse: int >= 0")
                      .Attr("input_order: string")
                      .Attr("hashed_output: bool")
                      .Attr("num_buckets: int >= 0")
                      .Attr("hash_key: int")
                      .Attr("ragged_values_types: list({int64, string}) >= 0")
                      .Attr("ragged_splits_types: list({int32, int64}) >= 0")
                      .Attr("sparse_values_types: list({int64, string}) >= 0")
                      .Attr("dense_types: list({int64, string}) >= 0")
                      .Attr("out_values_type: {int64, string}")
                      .Attr("out_row_splits_type: {int32, int64}")
                      .SetShapeFn([](InferenceContext* c) {
                        c->set_output(0, PartialShape::Known({-1}));
                        c->set_output(1, PartialShape::Known({-1}));
                        return absl::OkStatus();
                      })));
  DFX_RETURN_IF_ERROR(r->Register(OpDefBuilder("RaggedFillEmptyRows")
                                      .Input("value_rowids: int64")
                                      .Input("values: T")
                                      .Input("nrows: int64")
                                      .Input("default_value: T")
                                      .Output("output_value_rowids: int64")
                                      .Output("output_values: T")
                                      .Output("empty_row_indicator: bool")
                                      .Output("reverse_index_map: int64")
                                      .Attr("T: type")
                                      .SetShapeFn(RaggedFillEmptyRowsShape)));
  DFX_RETURN_IF_ERROR(
      r->Register(OpDefBuilder("RaggedFillEmptyRowsGrad")
                      .Input("reverse_index_map: int64")
                      .Input("grad_values: T")
                      .Output("d_values: T")
                      .Output("d_default_value: T")
                      .Attr("T: type")
                      .SetShapeFn(RaggedFillEmptyRowsGradShape)));
  return absl::OkStatus();
}

}  // namespace dfx
