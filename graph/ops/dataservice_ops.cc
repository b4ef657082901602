// The tf.data service client ops: RegisterDataset(V2), which registers a
// dataset's graph with a TensorFlow dispatcher, and DataServiceDataset
// (V1 to V4), which reads a registered dataset's elements from the
// dispatcher's workers, and DistributedSave, which asks the dispatcher to
// write a distributed snapshot. Every OpDef is TensorFlow 2.21's
// (tests/kernels/dataservice_test.cc compares them with
// tests/golden/data/dataservice/tf_op_defs.pbtxt, written by
// gen_dataservice.py); the kernels are in
// kernels/data/service/data_service_kernels.cc.
#include "base/status_macros.h"
#include "graph/ops/ops.h"

namespace dfx {

absl::Status RegisterDataserviceOps(OpRegistry* r) {
  for (const bool v2 : {false, true}) {
    OpDefBuilder b(v2 ? "RegisterDatasetV2" : "RegisterDataset");
    b.Input("dataset: variant")
        .Input("address: string")
        .Input("protocol: string")
        .Output(v2 ? "dataset_id: string" : "dataset_id: int64")
        .Attr("external_state_policy: int")
        .Attr("element_spec: string = ''");
    if (v2) b.Attr("requested_dataset_id: string = ''");
    b.Attr("metadata: string = ''").SetShapeFn(shape_fn::Scalar);
    DFX_RETURN_IF_ERROR(r->Register(b));
  }
  for (int version = 1; version <= 4; ++version) {
    OpDefBuilder b(version == 1
                       ? std::string("DataServiceDataset")
                       : "DataServiceDatasetV" + std::to_string(version));
    b.Input(version == 4 ? "dataset_id: string" : "dataset_id: int64")
        .Input("processing_mode: string")
        .Input("address: string")
        .Input("protocol: string")
        .Input("job_name: string");
    if (version >= 2) {
      b.Input("consumer_index: int64").Input("num_consumers: int64");
    }
    b.Input("max_outstanding_requests: int64")
        .Input("iteration_counter: resource")
        .Output("handle: variant")
        .Attr("task_refresh_interval_hint_ms: int = -1")
        .Attr("output_types: list(type) >= 1")
        .Attr("output_shapes: list(shape) >= 1")
        .Attr("data_transfer_protocol: string = ''")
        .Attr("target_workers: string = 'AUTO'");
    if (version >= 3) {
      b.Attr("uncompress: bool = false").Attr("uncompress_fn: func");
    }
    b.Attr("cross_trainer_cache_options: string = ''")
        .SetIsStateful()
        .SetShapeFn(shape_fn::Scalar);
    DFX_RETURN_IF_ERROR(r->Register(b));
  }
  DFX_RETURN_IF_ERROR(r->Register(OpDefBuilder("DistributedSave")
                                      .Input("dataset: variant")
                                      .Input("directory: string")
                                      .Input("address: string")
                                      .Attr("metadata: string = ''")
                                      .SetIsStateful()
                                      .SetShapeFn(shape_fn::Unknown)));
  return absl::OkStatus();
}

}  // namespace dfx
