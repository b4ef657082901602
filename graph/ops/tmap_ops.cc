// The TensorMap ops (a DT_VARIANT scalar holding a map from key tensors to
// value tensors, kernels/map/tensor_map.h) and the ragged ops that gather
// rows of a ragged tensor or carry one inside a variant (RaggedGather,
// RaggedTensorToVariant, RaggedTensorFromVariant and the gradient of
// RaggedTensorToVariant). Signatures follow TensorFlow 2.21's map_ops.cc,
// ragged_array_ops.cc and ragged_conversion_ops.cc; the shape functions
// reject at import what TensorFlow's reject.
#include <cstdint>
#include <vector>

#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "graph/node_def_util.h"
#include "graph/ops/ops.h"

namespace dfx {
namespace {

absl::Status WithRankAtLeast(InferenceContext* c, const PartialShape& shape,
                             int rank) {
  if (shape.RankKnown() && shape.rank() < rank) {
    return c->Error(absl::StrCat("Shape must be at least rank ", rank,
                                 " but is rank ", shape.rank()));
  }
  return absl::OkStatus();
}

// Lookup and StackKeys: the value's shape lives in the map.
absl::Status MapUnknownShape(InferenceContext* c) {
  DFX_RETURN_IF_ERROR(c->WithRank(c->input(0), 0));
  c->set_output(0, PartialShape::Unknown());
  return absl::OkStatus();
}

absl::Status MapScalarShape(InferenceContext* c) {
  if (c->num_inputs() > 0) DFX_RETURN_IF_ERROR(c->WithRank(c->input(0), 0));
  c->set_output(0, PartialShape::Scalar());
  return absl::OkStatus();
}

absl::Status RaggedGatherShape(InferenceContext* c) {
  int64_t params_rank = 0, output_rank = 0;
  DFX_RETURN_IF_ERROR(
      GetNodeAttr(c->node_def(), "PARAMS_RAGGED_RANK", &params_rank));
  DFX_RETURN_IF_ERROR(
      GetNodeAttr(c->node_def(), "OUTPUT_RAGGED_RANK", &output_rank));
  const int p = static_cast<int>(params_rank);
  DFX_RETURN_IF_ERROR(c->WithRank(
      c->input(p + 1), static_cast<int>(output_rank - params_rank + 1)));
  for (int i = 0; i < p; ++i) DFX_RETURN_IF_ERROR(c->WithRank(c->input(i), 1));
  const PartialShape& values = c->input(p);
  DFX_RETURN_IF_ERROR(WithRankAtLeast(c, values, 1));
  for (int i = 0; i < output_rank; ++i) {
    c->set_output(i, PartialShape::Known({-1}));
  }
  PartialShape out = values;
  if (out.RankKnown()) out.dims[0] = -1;
  c->set_output(static_cast<int>(output_rank), out);
  return absl::OkStatus();
}

absl::Status ToVariantShape(InferenceContext* c) {
  int64_t ragged_rank = 0;
  bool batched = false;
  DFX_RETURN_IF_ERROR(GetNodeAttr(c->node_def(), "RAGGED_RANK", &ragged_rank));
  DFX_RETURN_IF_ERROR(GetNodeAttr(c->node_def(), "batched_input", &batched));
  const int r = static_cast<int>(ragged_rank);
  if (r > 0) DFX_RETURN_IF_ERROR(WithRankAtLeast(c, c->input(r), 1));
  for (int i = 0; i < r; ++i) DFX_RETURN_IF_ERROR(c->WithRank(c->input(i), 1));
  if (!batched) {
    c->set_output(0, PartialShape::Scalar());
    return absl::OkStatus();
  }
  // One element per row: the first splits' length less one, or the
  // values' first dim when there are no splits.
  const PartialShape& outer = c->input(0);
  int64_t rows = -1;
  if (r > 0 && outer.RankKnown() && outer.dims[0] >= 0) {
    rows = outer.dims[0] - 1;
  } else if (r == 0 && outer.RankKnown() && outer.rank() >= 1) {
    rows = outer.dims[0];
  }
  c->set_output(0, PartialShape::Known({rows}));
  return absl::OkStatus();
}

absl::Status FromVariantShape(InferenceContext* c) {
  int64_t input_rank = 0, output_rank = 0;
  DFX_RETURN_IF_ERROR(
      GetNodeAttr(c->node_def(), "input_ragged_rank", &input_rank));
  DFX_RETURN_IF_ERROR(
      GetNodeAttr(c->node_def(), "output_ragged_rank", &output_rank));
  if (input_rank >= 0) {
    DFX_RETURN_IF_ERROR(
        c->WithRank(c->input(0), static_cast<int>(output_rank - input_rank)));
  }
  for (int i = 0; i < output_rank; ++i) {
    c->set_output(i, PartialShape::Known({-1}));
  }
  c->set_output(static_cast<int>(output_rank), PartialShape::Unknown());
  return absl::OkStatus();
}

absl::Status ToVariantGradientShape(InferenceContext* c) {
  std::vector<int64_t> dims;
  if (ConstantInts(c->input_tensor(2), &dims) && c->input(2).rank() == 1) {
    c->set_output(0, PartialShape::Known(std::move(dims)));
  } else {
    c->set_output(0, PartialShape::Unknown());
  }
  return absl::OkStatus();
}

constexpr char kSplitsAttr[] = "Tsplits: {int32, int64} = DT_INT64";

}  // namespace

absl::Status RegisterTmapOps(OpRegistry* r) {
  DFX_RETURN_IF_ERROR(r->Register(OpDefBuilder("EmptyTensorMap")
                                      .Output("handle: variant")
                                      .SetShapeFn(MapScalarShape)));
  DFX_RETURN_IF_ERROR(r->Register(OpDefBuilder("TensorMapSize")
                                      .Input("input_handle: variant")
                                      .Output("size: int32")
                                      .SetShapeFn(MapScalarShape)));
  DFX_RETURN_IF_ERROR(r->Register(OpDefBuilder("TensorMapLookup")
                                      .Input("input_handle: variant")
                                      .Input("key: key_dtype")
                                      .Output("value: value_dtype")
                                      .Attr("key_dtype: type")
                                      .Attr("value_dtype: type")
                                      .SetShapeFn(MapUnknownShape)));
  DFX_RETURN_IF_ERROR(r->Register(OpDefBuilder("TensorMapInsert")
                                      .Input("input_handle: variant")
                                      .Input("key: key_dtype")
                                      .Input("value: value_dtype")
                                      .Output("output_handle: variant")
                                      .Attr("key_dtype: type")
                                      .Attr("value_dtype: type")
                                      .SetShapeFn(MapScalarShape)));
  DFX_RETURN_IF_ERROR(r->Register(OpDefBuilder("TensorMapErase")
                                      .Input("input_handle: variant")
                                      .Input("key: key_dtype")
                                      .Output("output_handle: variant")
                                      .Attr("key_dtype: type")
                                      .Attr("value_dtype: type")
                                      .SetShapeFn(MapScalarShape)));
  DFX_RETURN_IF_ERROR(r->Register(OpDefBuilder("TensorMapHasKey")
                                      .Input("input_handle: variant")
                                      .Input("key: key_dtype")
                                      .Output("has_key: bool")
                                      .Attr("key_dtype: type")
                                      .SetShapeFn(MapScalarShape)));
  DFX_RETURN_IF_ERROR(r->Register(OpDefBuilder("TensorMapStackKeys")
                                      .Input("input_handle: variant")
                                      .Output("keys: key_dtype")
                                      .Attr("key_dtype: type")
                                      .SetShapeFn(MapUnknownShape)));
  DFX_RETURN_IF_ERROR(r->Register(
      OpDefBuilder("RaggedGather")
          .Input("params_nested_splits: PARAMS_RAGGED_RANK * Tsplits")
          .Input("params_dense_values: Tvalues")
          .Input("indices: Tindices")
          .Output("output_nested_splits: OUTPUT_RAGGED_RANK * Tsplits")
          .Output("output_dense_values: Tvalues")
          .Attr("Tvalues: type")
          .Attr("Tindices: {int32, int64}")
          .Attr(kSplitsAttr)
          .Attr("PARAMS_RAGGED_RANK: int >= 1")
          .Attr("OUTPUT_RAGGED_RANK: int >= 0")
          .SetShapeFn(RaggedGatherShape)));
  DFX_RETURN_IF_ERROR(
      r->Register(OpDefBuilder("RaggedTensorToVariant")
                      .Input("rt_nested_splits: RAGGED_RANK * Tsplits")
                      .Input("rt_dense_values: Tvalues")
                      .Output("encoded_ragged: variant")
                      .Attr("RAGGED_RANK: int >= 0")
                      .Attr("Tvalues: type")
                      .Attr(kSplitsAttr)
                      .Attr("batched_input: bool")
                      .SetShapeFn(ToVariantShape)));
  DFX_RETURN_IF_ERROR(r->Register(
      OpDefBuilder("RaggedTensorFromVariant")
          .Input("encoded_ragged: variant")
          .Output("output_nested_splits: output_ragged_rank * Tsplits")
          .Output("output_dense_values: Tvalues")
          .Attr("input_ragged_rank: int >= -1")
          .Attr("output_ragged_rank: int >= 0")
          .Attr("Tvalues: type")
          .Attr(kSplitsAttr)
          .SetShapeFn(FromVariantShape)));
  DFX_RETURN_IF_ERROR(r->Register(OpDefBuilder("RaggedTensorToVariantGradient")
                                      .Input("encoded_ragged_grad: variant")
                                      .Input("row_splits: Tsplits")
                                      .Input("dense_values_shape: int32")
                                      .Output("dense_values_grad: Tvalues")
                                      .Attr("Tvalues: type")
                                      .Attr(kSplitsAttr)
                                      .SetShapeFn(ToVariantGradientShape)));
  return absl::OkStatus();
}

}  // namespace dfx
