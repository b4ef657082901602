// Reading tf.data distributed snapshots (what Dataset.load builds for a
// directory tf.data.experimental.distributed_save wrote):
// ListSnapshotChunksDataset and SnapshotChunkDataset. Every OpDef is
// TensorFlow 2.21's (tests/kernels/distsnap_test.cc compares them with
// tests/golden/data/distsnap/tf_op_defs.pbtxt, written by gen_distsnap.py);
// the kernels are in kernels/data/distsnap_kernels.cc.
#include "base/status_macros.h"
#include "graph/ops/ops.h"

namespace dfx {

absl::Status RegisterDistsnapOps(OpRegistry* r) {
  // Both take a scalar path and make a scalar dataset handle.
  auto scalar_path = [](InferenceContext* c) {
    DFX_RETURN_IF_ERROR(c->WithRank(c->input(0), 0));
    return shape_fn::Scalar(c);
  };
  DFX_RETURN_IF_ERROR(r->Register(OpDefBuilder("ListSnapshotChunksDataset")
                                      .Input("snapshot_path: string")
                                      .Output("handle: variant")
                                      .Attr("output_types: list(type) >= 1")
                                      .Attr("output_shapes: list(shape) >= 1")
                                      .SetIsStateful()
                                      .SetShapeFn(scalar_path)));
  return r->Register(OpDefBuilder("SnapshotChunkDataset")
                         .Input("chunk_file: string")
                         .Output("handle: variant")
                         .Attr("output_types: list(type) >= 1")
                         .Attr("output_shapes: list(shape) >= 1")
                         .Attr("compression: string = ''")
                         .SetShapeFn(scalar_path));
}

}  // namespace dfx
