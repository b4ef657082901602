// The sess family: tensors a session keeps between steps by handle.
// GetSessionHandle and GetSessionHandleV2 store a tensor and return its
// handle, GetSessionTensor reads a stored tensor back, DeleteSessionTensor
// frees it. Signatures follow TensorFlow 2.21's data_flow_ops.cc.
#include "base/status_macros.h"
#include "graph/ops/ops.h"

namespace dfx {
namespace {

// A scalar handle input; the value's shape is unknown until it is read.
absl::Status ScalarHandleInput(InferenceContext* c) {
  DFX_RETURN_IF_ERROR(c->WithRank(c->input(0), 0));
  if (c->num_outputs() > 0) c->set_output(0, PartialShape::Unknown());
  return absl::OkStatus();
}

}  // namespace

absl::Status RegisterSessOps(OpRegistry* r) {
  DFX_RETURN_IF_ERROR(r->Register(OpDefBuilder("GetSessionHandle")
                                      .Input("value: T")
                                      .Output("handle: string")
                                      .Attr("T: type")
                                      .SetIsStateful()
                                      .SetShapeFn(shape_fn::Scalar)));
  DFX_RETURN_IF_ERROR(r->Register(OpDefBuilder("GetSessionHandleV2")
                                      .Input("value: T")
                                      .Output("handle: resource")
                                      .Attr("T: type")
                                      .SetIsStateful()
                                      .SetShapeFn(shape_fn::Scalar)));
  DFX_RETURN_IF_ERROR(r->Register(OpDefBuilder("GetSessionTensor")
                                      .Input("handle: string")
                                      .Output("value: dtype")
                                      .Attr("dtype: type")
                                      .SetIsStateful()
                                      .SetShapeFn(ScalarHandleInput)));
  DFX_RETURN_IF_ERROR(r->Register(OpDefBuilder("DeleteSessionTensor")
                                      .Input("handle: string")
                                      .SetIsStateful()
                                      .SetShapeFn(ScalarHandleInput)));
  return absl::OkStatus();
}

}  // namespace dfx
