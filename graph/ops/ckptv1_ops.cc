// The ckptv1 family: TensorFlow's V1 checkpoint ops, which
// tf.compat.v1.train.Saver(write_version=V1) graphs and every TF1 model
// before 1.0 contain: Save, SaveSlices, Restore, RestoreSlice. Signatures
// follow TensorFlow 2.21's io_ops.cc.
#include <cstdint>

#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "graph/ops/ops.h"

namespace dfx {
namespace {

// InvalidArgument when `shape` is a vector of known length other than `n`.
absl::Status VectorOfLength(InferenceContext* c, const PartialShape& shape,
                            int64_t n) {
  DFX_RETURN_IF_ERROR(c->WithRank(shape, 1));
  if (shape.RankKnown() && shape.dims[0] >= 0 && shape.dims[0] != n) {
    return c->Error(
        absl::StrCat("Dimension must be ", n, " but is ", shape.dims[0]));
  }
  return absl::OkStatus();
}

// Save: a scalar file name and one name per tensor.
absl::Status SaveShapeFn(InferenceContext* c) {
  DFX_RETURN_IF_ERROR(c->WithRank(c->input(0), 0));
  return VectorOfLength(c, c->input(1), c->num_inputs() - 2);
}

// SaveSlices: as Save, and one shape-and-slice spec per tensor.
absl::Status SaveSlicesShapeFn(InferenceContext* c) {
  DFX_RETURN_IF_ERROR(c->WithRank(c->input(0), 0));
  DFX_RETURN_IF_ERROR(VectorOfLength(c, c->input(1), c->num_inputs() - 3));
  return VectorOfLength(c, c->input(2), c->num_inputs() - 3);
}

// Restore and RestoreSlice: scalar inputs; the shape comes from the file
// (TensorFlow also parses a constant slice spec here; dfx checks the spec
// when the step runs).
absl::Status RestoreShapeFn(InferenceContext* c) {
  for (int i = 0; i < c->num_inputs(); ++i) {
    DFX_RETURN_IF_ERROR(c->WithRank(c->input(i), 0));
  }
  c->set_output(0, PartialShape::Unknown());
  return absl::OkStatus();
}

}  // namespace

absl::Status RegisterCkptV1Ops(OpRegistry* r) {
  DFX_RETURN_IF_ERROR(r->Register(OpDefBuilder("Save")
                                      .Input("filename: string")
                                      .Input("tensor_names: string")
                                      .Input("data: T")
                                      .Attr("T: list(type) >= 1")
                                      .SetIsStateful()
                                      .SetShapeFn(SaveShapeFn)));
  DFX_RETURN_IF_ERROR(r->Register(OpDefBuilder("SaveSlices")
                                      .Input("filename: string")
                                      .Input("tensor_names: string")
                                      .Input("shapes_and_slices: string")
                                      .Input("data: T")
                                      .Attr("T: list(type) >= 1")
                                      .SetIsStateful()
                                      .SetShapeFn(SaveSlicesShapeFn)));
  DFX_RETURN_IF_ERROR(r->Register(OpDefBuilder("Restore")
                                      .Input("file_pattern: string")
                                      .Input("tensor_name: string")
                                      .Output("tensor: dt")
                                      .Attr("dt: type")
                                      .Attr("preferred_shard: int = -1")
                                      .SetIsStateful()
                                      .SetShapeFn(RestoreShapeFn)));
  return r->Register(OpDefBuilder("RestoreSlice")
                         .Input("file_pattern: string")
                         .Input("tensor_name: string")
                         .Input("shape_and_slice: string")
                         .Output("tensor: dt")
                         .Attr("dt: type")
                         .Attr("preferred_shard: int = -1")
                         .SetIsStateful()
                         .SetShapeFn(RestoreShapeFn));
}

}  // namespace dfx
