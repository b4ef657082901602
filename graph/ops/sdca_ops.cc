// The sdca family: SdcaOptimizer and SdcaOptimizerV2, the stochastic dual
// coordinate ascent step of TF1 estimators' linear models (the SDCA
// optimizer). They differ only in the name of the adaptive-sampling attr
// ("adaptative" and "adaptive"). Signatures follow TensorFlow 2.21's
// sdca_ops.cc; the kernel is kernels/training/sdca_kernels.cc.
#include <string>

#include "base/status_macros.h"
#include "graph/node_def_util.h"
#include "graph/ops/ops.h"

namespace dfx {
namespace {

// Inputs: sparse_example_indices[S], sparse_feature_indices[S],
// sparse_feature_values[V], dense_features[D], example_weights,
// example_labels, sparse_indices[S], sparse_weights[S], dense_weights[D],
// example_state_data. Outputs: out_example_state_data, S sparse deltas
// shaped as sparse_weights, D dense deltas shaped as dense_weights.
absl::Status SdcaOptimizerShape(InferenceContext* c) {
  int64_t s = 0, v = 0, d = 0;
  DFX_RETURN_IF_ERROR(GetNodeAttr(c->node_def(), "num_sparse_features", &s));
  DFX_RETURN_IF_ERROR(
      GetNodeAttr(c->node_def(), "num_sparse_features_with_values", &v));
  DFX_RETURN_IF_ERROR(GetNodeAttr(c->node_def(), "num_dense_features", &d));
  const int64_t sparse_weights = 3 * s + v + d + 2;
  const int64_t dense_weights = sparse_weights + s;
  if (dense_weights + d + 1 != c->num_inputs() ||
      1 + s + d != c->num_outputs()) {
    return c->Error("input or output count does not match the attrs");
  }
  for (int64_t i = 0; i < s; ++i) {
    c->set_output(static_cast<int>(1 + i),
                  c->input(static_cast<int>(sparse_weights + i)));
  }
  for (int64_t i = 0; i < d; ++i) {
    c->set_output(static_cast<int>(1 + s + i),
                  c->input(static_cast<int>(dense_weights + i)));
  }
  c->set_output(0, PartialShape::Known({-1, 4}));
  return absl::OkStatus();
}

OpDefBuilder SdcaOptimizerDef(const std::string& name,
                              const std::string& adaptive_attr) {
  return OpDefBuilder(name)
      .Input("sparse_example_indices: num_sparse_features * int64")
      .Input("sparse_feature_indices: num_sparse_features * int64")
      .Input("sparse_feature_values: num_sparse_features_with_values * float")
      .Input("dense_features: num_dense_features * float")
      .Input("example_weights: float")
      .Input("example_labels: float")
      .Input("sparse_indices: num_sparse_features * int64")
      .Input("sparse_weights: num_sparse_features * float")
      .Input("dense_weights: num_dense_features * float")
      .Input("example_state_data: float")
      .Output("out_example_state_data: float")
      .Output("out_delta_sparse_weights: num_sparse_features * float")
      .Output("out_delta_dense_weights: num_dense_features * float")
      .Attr(
          "loss_type: {'logistic_loss', 'squared_loss', 'hinge_loss', "
          "'smooth_hinge_loss', 'poisson_loss'}")
      .Attr(adaptive_attr + ": bool = false")
      .Attr("num_sparse_features: int >= 0")
      .Attr("num_sparse_features_with_values: int >= 0")
      .Attr("num_dense_features: int >= 0")
      .Attr("l1: float")
      .Attr("l2: float")
      .Attr("num_loss_partitions: int >= 1")
      .Attr("num_inner_iterations: int >= 1")
      .SetShapeFn(SdcaOptimizerShape);
}

}  // namespace

absl::Status RegisterSdcaOps(OpRegistry* r) {
  DFX_RETURN_IF_ERROR(
      r->Register(SdcaOptimizerDef("SdcaOptimizer", "adaptative")));
  DFX_RETURN_IF_ERROR(
      r->Register(SdcaOptimizerDef("SdcaOptimizerV2", "adaptive")));
  return absl::OkStatus();
}

}  // namespace dfx
