// tf.data's pipeline assertions and fingerprint: AssertNextDataset (and
// ExperimentalAssertNextDataset), AssertPrevDataset and DatasetFingerprint.
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
  DFX_RETURN_IF_ERROR(r->Register(OpDefBuilder("DatasetFingerprint")
                                      .Input("input_dataset: variant")
                                      .Output("fingerprint: uint64")
                                      .SetShapeFn(shape_fn::Scalar)));
  return absl::OkStatus();
}

}  // namespace dfx
