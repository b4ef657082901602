// The seqex family: TF1 input-pipeline ops of exported graphs.
// tf.train.SequenceExample parsing (ParseSingleSequenceExample,
// ParseSequenceExample, ParseSequenceExampleV2) and the sparse-tensors map
// of tf.compat.v1.train.batch on SparseTensors (AddSparseToTensorsMap,
// AddManySparseToTensorsMap, TakeManySparseFromTensorsMap) with
// DeserializeManySparse. Signatures follow TensorFlow 2.21's parsing_ops.cc
// and sparse_ops.cc.
#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "graph/ops/ops.h"

namespace dfx {
namespace {

constexpr char kFeatureTypes[] = "list({float,int64,string}) >= 0";
constexpr char kSplitTypes[] = "list({int32,int64}) >= 0";

}  // namespace

absl::Status RegisterSeqexOps(OpRegistry* r) {
  DFX_RETURN_IF_ERROR(r->Register(
      OpDefBuilder("ParseSingleSequenceExample")
          .Input("serialized: string")
          .Input("feature_list_dense_missing_assumed_empty: string")
          .Input("context_sparse_keys: Ncontext_sparse * string")
          .Input("context_dense_keys: Ncontext_dense * string")
          .Input("feature_list_sparse_keys: Nfeature_list_sparse * string")
          .Input("feature_list_dense_keys: Nfeature_list_dense * string")
          .Input("context_dense_defaults: Tcontext_dense")
          .Input("debug_name: string")
          .Output("context_sparse_indices: Ncontext_sparse * int64")
          .Output("context_sparse_values: context_sparse_types")
          .Output("context_sparse_shapes: Ncontext_sparse * int64")
          .Output("context_dense_values: Tcontext_dense")
          .Output("feature_list_sparse_indices: Nfeature_list_sparse * int64")
          .Output("feature_list_sparse_values: feature_list_sparse_types")
          .Output("feature_list_sparse_shapes: Nfeature_list_sparse * int64")
          .Output("feature_list_dense_values: feature_list_dense_types")
          .Attr("Ncontext_sparse: int >= 0 = 0")
          .Attr("Ncontext_dense: int >= 0 = 0")
          .Attr("Nfeature_list_sparse: int >= 0 = 0")
          .Attr("Nfeature_list_dense: int >= 0 = 0")
          .Attr(absl::StrCat("context_sparse_types: ", kFeatureTypes, " = []"))
          .Attr(absl::StrCat("Tcontext_dense: ", kFeatureTypes, " = []"))
          .Attr(absl::StrCat("feature_list_dense_types: ", kFeatureTypes,
                             " = []"))
          .Attr("context_dense_shapes: list(shape) >= 0 = []")
          .Attr(absl::StrCat("feature_list_sparse_types: ", kFeatureTypes,
                             " = []"))
          .Attr("feature_list_dense_shapes: list(shape) >= 0 = []")
          .SetShapeFn(shape_fn::Unknown)));
  DFX_RETURN_IF_ERROR(r->Register(
      OpDefBuilder("ParseSequenceExample")
          .Input("serialized: string")
          .Input("debug_name: string")
          .Input("context_dense_defaults: Tcontext_dense")
          .Output("context_sparse_indices: Ncontext_sparse * int64")
          .Output("context_sparse_values: context_sparse_types")
          .Output("context_sparse_shapes: Ncontext_sparse * int64")
          .Output("context_dense_values: Tcontext_dense")
          .Output("feature_list_sparse_indices: Nfeature_list_sparse * int64")
          .Output("feature_list_sparse_values: feature_list_sparse_types")
          .Output("feature_list_sparse_shapes: Nfeature_list_sparse * int64")
          .Output("feature_list_dense_values: feature_list_dense_types")
          .Output("feature_list_dense_lengths: Nfeature_list_dense * int64")
          .Attr("feature_list_dense_missing_assumed_empty: list(string) >= 0")
          .Attr("context_sparse_keys: list(string) >= 0")
          .Attr("context_dense_keys: list(string) >= 0")
          .Attr("feature_list_sparse_keys: list(string) >= 0")
          .Attr("feature_list_dense_keys: list(string) >= 0")
          .Attr("Ncontext_sparse: int >= 0 = 0")
          .Attr("Ncontext_dense: int >= 0 = 0")
          .Attr("Nfeature_list_sparse: int >= 0 = 0")
          .Attr("Nfeature_list_dense: int >= 0 = 0")
          .Attr(absl::StrCat("context_sparse_types: ", kFeatureTypes, " = []"))
          .Attr(absl::StrCat("Tcontext_dense: ", kFeatureTypes, " = []"))
          .Attr(absl::StrCat("feature_list_dense_types: ", kFeatureTypes,
                             " = []"))
          .Attr("context_dense_shapes: list(shape) >= 0 = []")
          .Attr(absl::StrCat("feature_list_sparse_types: ", kFeatureTypes,
                             " = []"))
          .Attr("feature_list_dense_shapes: list(shape) >= 0 = []")
          .SetShapeFn(shape_fn::Unknown)));
  DFX_RETURN_IF_ERROR(r->Register(
      OpDefBuilder("ParseSequenceExampleV2")
          .Input("serialized: string")
          .Input("debug_name: string")
          .Input("context_sparse_keys: string")
          .Input("context_dense_keys: string")
          .Input("context_ragged_keys: string")
          .Input("feature_list_sparse_keys: string")
          .Input("feature_list_dense_keys: string")
          .Input("feature_list_ragged_keys: string")
          .Input("feature_list_dense_missing_assumed_empty: bool")
          .Input("context_dense_defaults: Tcontext_dense")
          .Output("context_sparse_indices: Ncontext_sparse * int64")
          .Output("context_sparse_values: context_sparse_types")
          .Output("context_sparse_shapes: Ncontext_sparse * int64")
          .Output("context_dense_values: Tcontext_dense")
          .Output("context_ragged_values: context_ragged_value_types")
          .Output("context_ragged_row_splits: context_ragged_split_types")
          .Output("feature_list_sparse_indices: Nfeature_list_sparse * int64")
          .Output("feature_list_sparse_values: feature_list_sparse_types")
          .Output("feature_list_sparse_shapes: Nfeature_list_sparse * int64")
          .Output("feature_list_dense_values: feature_list_dense_types")
          .Output("feature_list_dense_lengths: Nfeature_list_dense * int64")
          .Output("feature_list_ragged_values: feature_list_ragged_value_types")
          .Output("feature_list_ragged_outer_splits: "
                  "feature_list_ragged_split_types")
          .Output("feature_list_ragged_inner_splits: "
                  "feature_list_ragged_split_types")
          .Attr("Ncontext_sparse: int >= 0 = 0")
          .Attr(absl::StrCat("Tcontext_dense: ", kFeatureTypes, " = []"))
          .Attr(absl::StrCat("context_sparse_types: ", kFeatureTypes, " = []"))
          .Attr(absl::StrCat("context_ragged_value_types: ", kFeatureTypes,
                             " = []"))
          .Attr(absl::StrCat("context_ragged_split_types: ", kSplitTypes,
                             " = []"))
          .Attr("context_dense_shapes: list(shape) >= 0 = []")
          .Attr("Nfeature_list_sparse: int >= 0 = 0")
          .Attr("Nfeature_list_dense: int >= 0 = 0")
          .Attr(absl::StrCat("feature_list_dense_types: ", kFeatureTypes,
                             " = []"))
          .Attr(absl::StrCat("feature_list_sparse_types: ", kFeatureTypes,
                             " = []"))
          .Attr(absl::StrCat("feature_list_ragged_value_types: ", kFeatureTypes,
                             " = []"))
          .Attr(absl::StrCat("feature_list_ragged_split_types: ", kSplitTypes,
                             " = []"))
          .Attr("feature_list_dense_shapes: list(shape) >= 0 = []")
          .SetShapeFn(shape_fn::Unknown)));
  DFX_RETURN_IF_ERROR(r->Register(OpDefBuilder("AddSparseToTensorsMap")
                                      .Input("sparse_indices: int64")
                                      .Input("sparse_values: T")
                                      .Input("sparse_shape: int64")
                                      .Output("sparse_handle: int64")
                                      .Attr("T: type")
                                      .Attr("container: string = ''")
                                      .Attr("shared_name: string = ''")
                                      .SetIsStateful()
                                      .SetShapeFn(shape_fn::Unknown)));
  DFX_RETURN_IF_ERROR(r->Register(OpDefBuilder("AddManySparseToTensorsMap")
                                      .Input("sparse_indices: int64")
                                      .Input("sparse_values: T")
                                      .Input("sparse_shape: int64")
                                      .Output("sparse_handles: int64")
                                      .Attr("T: type")
                                      .Attr("container: string = ''")
                                      .Attr("shared_name: string = ''")
                                      .SetIsStateful()
                                      .SetShapeFn(shape_fn::Unknown)));
  DFX_RETURN_IF_ERROR(r->Register(OpDefBuilder("TakeManySparseFromTensorsMap")
                                      .Input("sparse_handles: int64")
                                      .Output("sparse_indices: int64")
                                      .Output("sparse_values: dtype")
                                      .Output("sparse_shape: int64")
                                      .Attr("dtype: type")
                                      .Attr("container: string = ''")
                                      .Attr("shared_name: string = ''")
                                      .SetIsStateful()
                                      .SetShapeFn(shape_fn::Unknown)));
  DFX_RETURN_IF_ERROR(r->Register(OpDefBuilder("DeserializeManySparse")
                                      .Input("serialized_sparse: string")
                                      .Output("sparse_indices: int64")
                                      .Output("sparse_values: dtype")
                                      .Output("sparse_shape: int64")
                                      .Attr("dtype: type")
                                      .SetShapeFn(shape_fn::Unknown)));
  return absl::OkStatus();
}

}  // namespace dfx
