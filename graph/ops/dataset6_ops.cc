// A dataset as a serialized GraphDef and back: DatasetToGraph,
// DatasetToGraphV2 and DatasetFromGraph (what tf.distribute and the
// tf.data service send between tasks); a dataset's element by its index,
// GetElementAtIndex (tf.data.experimental.at); GlobalShuffleDataset
// (Dataset.shuffle's global form, TensorFlow's index shuffle);
// IndexFlatMapDataset and WeightedFlatMapDataset. Every OpDef is
// TensorFlow 2.21's (tests/kernels/dataset6_test.cc compares them with
// tests/golden/data/dataset6/tf_op_defs.pbtxt, written by gen_dataset6.py);
// the kernels are in kernels/data/dataset6_kernels.cc.
#include "base/status_macros.h"
#include "graph/ops/ops.h"

namespace dfx {

absl::Status RegisterDataset6Ops(OpRegistry* r) {
  DFX_RETURN_IF_ERROR(
      r->Register(OpDefBuilder("DatasetToGraph")
                      .Input("input_dataset: variant")
                      .Output("graph: string")
                      .Attr("stateful_whitelist: list(string) >= 0 = []")
                      .Attr("allow_stateful: bool = false")
                      .Attr("strip_device_assignment: bool = false")
                      .SetShapeFn(shape_fn::Scalar)));
  DFX_RETURN_IF_ERROR(
      r->Register(OpDefBuilder("DatasetToGraphV2")
                      .Input("input_dataset: variant")
                      .Output("graph: string")
                      .Attr("external_state_policy: int = 0")
                      .Attr("strip_device_assignment: bool = false")
                      .SetShapeFn(shape_fn::Scalar)));
  DFX_RETURN_IF_ERROR(r->Register(OpDefBuilder("DatasetFromGraph")
                                      .Input("graph_def: string")
                                      .Output("handle: variant")
                                      .SetShapeFn(shape_fn::Scalar)));
  DFX_RETURN_IF_ERROR(r->Register(OpDefBuilder("GetElementAtIndex")
                                      .Input("dataset: variant")
                                      .Input("index: int64")
                                      .Output("components: output_types")
                                      .Attr("output_types: list(type) >= 1")
                                      .Attr("output_shapes: list(shape) >= 1")
                                      .SetShapeFn(shape_fn::Unknown)));
  DFX_RETURN_IF_ERROR(
      r->Register(OpDefBuilder("GlobalShuffleDataset")
                      .Input("input_dataset: variant")
                      .Input("seed: int64")
                      .Input("seed2: int64")
                      .Input("seed_generator: resource")
                      .Output("handle: variant")
                      .Attr("reshuffle_each_iteration: bool = true")
                      .Attr("output_types: list(type) >= 1")
                      .Attr("output_shapes: list(shape) >= 1")
                      .Attr("metadata: string = ''")
                      .SetIsStateful()
                      .SetShapeFn(shape_fn::Scalar)));
  DFX_RETURN_IF_ERROR(
      r->Register(OpDefBuilder("IndexFlatMapDataset")
                      .Input("input_dataset: variant")
                      .Input("map_func_other_args: Tmap_func_args")
                      .Input("index_map_func_other_args: Tindex_map_func_args")
                      .Input("output_cardinality: int64")
                      .Output("handle: variant")
                      .Attr("map_func: func")
                      .Attr("index_map_func: func")
                      .Attr("Tmap_func_args: list(type) >= 0")
                      .Attr("Tindex_map_func_args: list(type) >= 0")
                      .Attr("output_types: list(type) >= 1")
                      .Attr("output_shapes: list(shape) >= 1")
                      .Attr("metadata: string = ''")
                      .SetShapeFn(shape_fn::Scalar)));
  DFX_RETURN_IF_ERROR(r->Register(OpDefBuilder("WeightedFlatMapDataset")
                                      .Input("input_datasets: N * variant")
                                      .Input("weights: M * double")
                                      .Output("handle: variant")
                                      .Attr("N: int >= 2")
                                      .Attr("M: int >= 2")
                                      .Attr("output_types: list(type) >= 1")
                                      .Attr("output_shapes: list(shape) >= 1")
                                      .Attr("metadata: string = ''")
                                      .SetShapeFn(shape_fn::Scalar)));
  return absl::OkStatus();
}

}  // namespace dfx
