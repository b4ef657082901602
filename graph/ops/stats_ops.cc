// The stats family: tf.data statistics aggregators (StatsAggregatorHandle
// and its Experimental and V2 forms, StatsAggregatorSummary,
// StatsAggregatorSetSummaryWriter), the dataset that attaches one to a
// pipeline (SetStatsAggregatorDataset and its Experimental name), and two
// pieces of dataset introspection: IteratorGetModelProto and
// ComputeBatchSize. Signatures follow TensorFlow 2.21's
// experimental_dataset_ops.cc and dataset_ops.cc; kernels are in
// kernels/data/stats_kernels.cc.
#include "base/status_macros.h"
#include "graph/ops/ops.h"

namespace dfx {
namespace {

absl::Status NoOutputs(InferenceContext*) { return absl::OkStatus(); }

}  // namespace

absl::Status RegisterStatsOps(OpRegistry* r) {
  for (const char* name :
       {"StatsAggregatorHandle", "ExperimentalStatsAggregatorHandle",
        "StatsAggregatorHandleV2"}) {
    DFX_RETURN_IF_ERROR(r->Register(OpDefBuilder(name)
                                        .Output("handle: resource")
                                        .Attr("container: string = ''")
                                        .Attr("shared_name: string = ''")
                                        .SetIsStateful()
                                        .SetShapeFn(shape_fn::Scalar)));
  }
  for (const char* name :
       {"StatsAggregatorSummary", "ExperimentalStatsAggregatorSummary"}) {
    DFX_RETURN_IF_ERROR(r->Register(OpDefBuilder(name)
                                        .Input("iterator: resource")
                                        .Output("summary: string")
                                        .SetIsStateful()
                                        .SetShapeFn(shape_fn::Scalar)));
  }
  for (const char* name :
       {"SetStatsAggregatorDataset", "ExperimentalSetStatsAggregatorDataset"}) {
    DFX_RETURN_IF_ERROR(r->Register(OpDefBuilder(name)
                                        .Input("input_dataset: variant")
                                        .Input("stats_aggregator: resource")
                                        .Input("tag: string")
                                        .Input("counter_prefix: string")
                                        .Output("handle: variant")
                                        .Attr("output_types: list(type) >= 1")
                                        .Attr("output_shapes: list(shape) >= 1")
                                        .SetIsStateful()
                                        .SetShapeFn(shape_fn::Scalar)));
  }
  DFX_RETURN_IF_ERROR(
      r->Register(OpDefBuilder("StatsAggregatorSetSummaryWriter")
                      .Input("stats_aggregator: resource")
                      .Input("summary: resource")
                      .SetIsStateful()
                      .SetShapeFn(NoOutputs)));
  DFX_RETURN_IF_ERROR(r->Register(OpDefBuilder("IteratorGetModelProto")
                                      .Input("iterator: resource")
                                      .Output("model_proto: string")
                                      .SetIsStateful()
                                      .SetShapeFn(shape_fn::Scalar)));
  DFX_RETURN_IF_ERROR(r->Register(OpDefBuilder("ComputeBatchSize")
                                      .Input("input_dataset: variant")
                                      .Output("batch_size: int64")
                                      .SetShapeFn(shape_fn::Scalar)));
  return absl::OkStatus();
}

}  // namespace dfx
