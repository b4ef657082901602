// The estimator family: the ops of TF1 estimators' k-means clustering
// (KmeansPlusPlusInitialization, KMC2ChainInitialization, NearestNeighbors),
// warm-starting (GenerateVocabRemapping, LoadAndRemapMatrix), word2vec's
// Skipgram and NegTrain and the SDCA
// linear optimizer's helpers (SdcaFprint, SdcaShrinkL1). Signatures follow
// TensorFlow 2.21's clustering_ops.cc, checkpoint_ops.cc and sdca_ops.cc.
#include <vector>

#include "base/status_macros.h"
#include "graph/node_def_util.h"
#include "graph/ops/ops.h"

namespace dfx {
namespace {

absl::Status Scalars(InferenceContext* c, std::initializer_list<int> ids) {
  for (int i : ids) DFX_RETURN_IF_ERROR(c->WithRank(c->input(i), 0));
  return absl::OkStatus();
}

int64_t DimOf(const PartialShape& s, int i) {
  return s.RankKnown() && i < s.rank() ? s.dims[i] : -1;
}

absl::Status KmeansPlusPlusShape(InferenceContext* c) {
  DFX_RETURN_IF_ERROR(c->WithRank(c->input(0), 2));
  DFX_RETURN_IF_ERROR(Scalars(c, {1, 2, 3}));
  c->set_output(0, PartialShape::Known({-1, DimOf(c->input(0), 1)}));
  return absl::OkStatus();
}

absl::Status Kmc2Shape(InferenceContext* c) {
  DFX_RETURN_IF_ERROR(c->WithRank(c->input(0), 1));
  DFX_RETURN_IF_ERROR(Scalars(c, {1}));
  c->set_output(0, PartialShape::Scalar());
  return absl::OkStatus();
}

absl::Status NearestNeighborsShape(InferenceContext* c) {
  DFX_RETURN_IF_ERROR(c->WithRank(c->input(0), 2));
  DFX_RETURN_IF_ERROR(c->WithRank(c->input(1), 2));
  DFX_RETURN_IF_ERROR(Scalars(c, {2}));
  const int64_t n = DimOf(c->input(0), 0);
  c->set_output(0, PartialShape::Known({n, -1}));
  c->set_output(1, PartialShape::Known({n, -1}));
  return absl::OkStatus();
}

absl::Status VocabRemappingShape(InferenceContext* c) {
  DFX_RETURN_IF_ERROR(Scalars(c, {0, 1}));
  int64_t num_new_vocab = 0;
  DFX_RETURN_IF_ERROR(
      GetNodeAttr(c->node_def(), "num_new_vocab", &num_new_vocab));
  c->set_output(0, PartialShape::Known({num_new_vocab}));
  c->set_output(1, PartialShape::Scalar());
  return absl::OkStatus();
}

absl::Status LoadAndRemapShape(InferenceContext* c) {
  DFX_RETURN_IF_ERROR(Scalars(c, {0, 1}));
  DFX_RETURN_IF_ERROR(c->WithRank(c->input(2), 1));
  DFX_RETURN_IF_ERROR(c->WithRank(c->input(3), 1));
  int64_t num_rows = 0, num_cols = 0;
  DFX_RETURN_IF_ERROR(GetNodeAttr(c->node_def(), "num_rows", &num_rows));
  DFX_RETURN_IF_ERROR(GetNodeAttr(c->node_def(), "num_cols", &num_cols));
  c->set_output(0, PartialShape::Known({num_rows, num_cols}));
  return absl::OkStatus();
}

absl::Status FprintShape(InferenceContext* c) {
  DFX_RETURN_IF_ERROR(c->WithRank(c->input(0), 1));
  c->set_output(0, PartialShape::Known({DimOf(c->input(0), 0), 2}));
  return absl::OkStatus();
}

absl::Status NoOutputs(InferenceContext*) { return absl::OkStatus(); }

}  // namespace

absl::Status RegisterEstimatorOps(OpRegistry* r) {
  // --- Clustering.
  DFX_RETURN_IF_ERROR(r->Register(OpDefBuilder("KmeansPlusPlusInitialization")
                                      .Input("points: float32")
                                      .Input("num_to_sample: int64")
                                      .Input("seed: int64")
                                      .Input("num_retries_per_sample: int64")
                                      .Output("samples: float32")
                                      .SetShapeFn(KmeansPlusPlusShape)));
  DFX_RETURN_IF_ERROR(r->Register(OpDefBuilder("KMC2ChainInitialization")
                                      .Input("distances: float32")
                                      .Input("seed: int64")
                                      .Output("index: int64")
                                      .SetShapeFn(Kmc2Shape)));
  DFX_RETURN_IF_ERROR(
      r->Register(OpDefBuilder("NearestNeighbors")
                      .Input("points: float32")
                      .Input("centers: float32")
                      .Input("k: int64")
                      .Output("nearest_center_indices: int64")
                      .Output("nearest_center_distances: float32")
                      .SetShapeFn(NearestNeighborsShape)));

  // --- Warm-starting.
  DFX_RETURN_IF_ERROR(r->Register(OpDefBuilder("GenerateVocabRemapping")
                                      .Input("new_vocab_file: string")
                                      .Input("old_vocab_file: string")
                                      .Output("remapping: int64")
                                      .Output("num_present: int32")
                                      .Attr("new_vocab_offset: int >= 0")
                                      .Attr("num_new_vocab: int >= 0")
                                      .Attr("old_vocab_size: int >= -1 = -1")
                                      .SetShapeFn(VocabRemappingShape)));

  DFX_RETURN_IF_ERROR(r->Register(OpDefBuilder("LoadAndRemapMatrix")
                                      .Input("ckpt_path: string")
                                      .Input("old_tensor_name: string")
                                      .Input("row_remapping: int64")
                                      .Input("col_remapping: int64")
                                      .Input("initializing_values: float")
                                      .Output("output_matrix: float")
                                      .Attr("num_rows: int >= 0")
                                      .Attr("num_cols: int >= 1")
                                      .Attr("max_rows_in_memory: int = -1")
                                      .SetIsStateful()
                                      .SetShapeFn(LoadAndRemapShape)));

  // --- word2vec, deprecated at GraphDef version 19.
  constexpr char kWord2vec[] =
      "Moving word2vec into tensorflow_models/tutorials and deprecating its "
      "ops here as a result";
  DFX_ASSIGN_OR_RETURN(OpRegistrationData skipgram,
                       OpDefBuilder("Skipgram")
                           .Output("vocab_word: string")
                           .Output("vocab_freq: int32")
                           .Output("words_per_epoch: int64")
                           .Output("current_epoch: int32")
                           .Output("total_words_processed: int64")
                           .Output("examples: int32")
                           .Output("labels: int32")
                           .Attr("filename: string")
                           .Attr("batch_size: int")
                           .Attr("window_size: int = 5")
                           .Attr("min_count: int = 5")
                           .Attr("subsample: float = 0.001")
                           .SetIsStateful()
                           .SetShapeFn(shape_fn::Unknown)
                           .Finalize());
  skipgram.op_def.mutable_deprecation()->set_version(19);
  skipgram.op_def.mutable_deprecation()->set_explanation(kWord2vec);
  DFX_RETURN_IF_ERROR(r->Register(std::move(skipgram)));
  DFX_ASSIGN_OR_RETURN(OpRegistrationData neg_train,
                       OpDefBuilder("NegTrain")
                           .Input("w_in: Ref(float)")
                           .Input("w_out: Ref(float)")
                           .Input("examples: int32")
                           .Input("labels: int32")
                           .Input("lr: float")
                           .Attr("vocab_count: list(int)")
                           .Attr("num_negative_samples: int")
                           .SetIsStateful()
                           .SetShapeFn(NoOutputs)
                           .Finalize());
  neg_train.op_def.mutable_deprecation()->set_version(19);
  neg_train.op_def.mutable_deprecation()->set_explanation(kWord2vec);
  DFX_RETURN_IF_ERROR(r->Register(std::move(neg_train)));

  // --- SDCA helpers.
  DFX_RETURN_IF_ERROR(r->Register(OpDefBuilder("SdcaFprint")
                                      .Input("input: string")
                                      .Output("output: int64")
                                      .SetShapeFn(FprintShape)));
  DFX_RETURN_IF_ERROR(
      r->Register(OpDefBuilder("SdcaShrinkL1")
                      .Input("weights: Ref(num_features * float)")
                      .Attr("num_features: int >= 0")
                      .Attr("l1: float")
                      .Attr("l2: float")
                      .SetShapeFn(NoOutputs)));
  return absl::OkStatus();
}

}  // namespace dfx
