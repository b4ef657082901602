// tf.data's pipeline assertions, auto-sharding and fingerprint:
// AssertNextDataset (and ExperimentalAssertNextDataset), AssertPrevDataset,
// AutoShardDataset (and ExperimentalAutoShardDataset), SnapshotDatasetV2,
// SnapshotDataset and DatasetFingerprint.
// Every OpDef is TensorFlow 2.21's (tests/kernels/dataset5_test.cc compares
// them with tests/golden/data/dataset5/tf_op_defs.pbtxt, written by
// gen_dataset5.py); the kernels are in kernels/data/dataset5_kernels.cc.
#include "base/status_macros.h"
#include "graph/ops/ops.h"

namespace dfx {

absl::Status RegisterDataset5Ops(OpRegistry* r) {
  for (const char* name : {"AssertNextDataset", "ExperimentalAssertNextDataset",
                           "AssertPrevDataset"}) {
    DFX_RETURN_IF_ERROR(r->Register(OpDefBuilder(name)
                                        .Input("input_dataset: variant")
                                        .Input("transformations: string")
                                        .Output("handle: variant")
                                        .Attr("output_types: list(type) >= 1")
                                        .Attr("output_shapes: list(shape) >= 1")
                                        .SetShapeFn([](InferenceContext* c) {
                                          // transformations is a vector.
                                          DFX_RETURN_IF_ERROR(
                                              c->WithRank(c->input(1), 1));
                                          return shape_fn::Scalar(c);
                                        })));
  }
  for (const bool experimental : {false, true}) {
    OpDefBuilder b(experimental ? "ExperimentalAutoShardDataset"
                                : "AutoShardDataset");
    b.Input("input_dataset: variant")
        .Input("num_workers: int64")
        .Input("index: int64")
        .Output("handle: variant")
        .Attr("auto_shard_policy: int = 0")
        .Attr("output_types: list(type) >= 1")
        .Attr("output_shapes: list(shape) >= 1");
    if (!experimental) b.Attr("num_replicas: int = 0");
    DFX_RETURN_IF_ERROR(r->Register(b.SetShapeFn(shape_fn::Scalar)));
  }
  DFX_RETURN_IF_ERROR(
      r->Register(OpDefBuilder("SnapshotDatasetV2")
                      .Input("input_dataset: variant")
                      .Input("path: string")
                      .Input("reader_func_other_args: Treader_func_args")
                      .Input("shard_func_other_args: Tshard_func_args")
                      .Output("handle: variant")
                      .Attr("output_types: list(type) >= 1")
                      .Attr("output_shapes: list(shape) >= 1")
                      .Attr("compression: string = ''")
                      .Attr("reader_prefix: string = ''")
                      .Attr("writer_prefix: string = ''")
                      .Attr("hash_valid: bool = false")
                      .Attr("hash: int = 0")
                      .Attr("reader_func: func")
                      .Attr("shard_func: func")
                      .Attr("Treader_func_args: list(type) >= 0")
                      .Attr("Tshard_func_args: list(type) >= 0")
                      .Attr("metadata: string = ''")
                      .SetShapeFn([](InferenceContext* c) {
                        // path is a scalar.
                        DFX_RETURN_IF_ERROR(c->WithRank(c->input(1), 0));
                        return shape_fn::Scalar(c);
                      })));
  DFX_RETURN_IF_ERROR(
      r->Register(OpDefBuilder("SnapshotDataset")
                      .Input("input_dataset: variant")
                      .Input("path: string")
                      .Output("handle: variant")
                      .Attr("output_types: list(type) >= 1")
                      .Attr("output_shapes: list(shape) >= 1")
                      .Attr("compression: string = ''")
                      .Attr("reader_path_prefix: string = ''")
                      .Attr("writer_path_prefix: string = ''")
                      .Attr("shard_size_bytes: int = 10737418240")
                      .Attr("pending_snapshot_expiry_seconds: int = 86400")
                      .Attr("num_reader_threads: int = 1")
                      .Attr("reader_buffer_size: int = 1")
                      .Attr("num_writer_threads: int = 1")
                      .Attr("writer_buffer_size: int = 1")
                      .Attr("shuffle_on_read: bool = false")
                      .Attr("seed: int = 0")
                      .Attr("seed2: int = 0")
                      .Attr("mode: string = 'auto'")
                      .Attr("snapshot_name: string = ''")
                      .SetShapeFn([](InferenceContext* c) {
                        // path is a scalar.
                        DFX_RETURN_IF_ERROR(c->WithRank(c->input(1), 0));
                        return shape_fn::Scalar(c);
                      })));
  DFX_RETURN_IF_ERROR(r->Register(OpDefBuilder("DatasetFingerprint")
                                      .Input("input_dataset: variant")
                                      .Output("fingerprint: uint64")
                                      .SetShapeFn(shape_fn::Scalar)));
  return absl::OkStatus();
}

}  // namespace dfx
