// The itckpt family: saving and restoring a tf.data iterator's position
// (SerializeIterator, DeserializeIterator). Signatures follow TensorFlow
// 2.21's dataset_ops.cc.
#include "base/status_macros.h"
#include "graph/ops/ops.h"

namespace dfx {

absl::Status RegisterItckptOps(OpRegistry* r) {
  DFX_RETURN_IF_ERROR(r->Register(OpDefBuilder("SerializeIterator")
                                      .Input("resource_handle: resource")
                                      .Output("serialized: variant")
                                      .Attr("external_state_policy: int = 0")
                                      .SetIsStateful()
                                      .SetShapeFn([](InferenceContext* c) {
                                        c->set_output(0, UnknownDims(1));
                                        return absl::OkStatus();
                                      })));
  DFX_RETURN_IF_ERROR(r->Register(
      OpDefBuilder("DeserializeIterator")
          .Input("resource_handle: resource")
          .Input("serialized: variant")
          .SetIsStateful()
          .SetShapeFn([](InferenceContext*) { return absl::OkStatus(); })));
  return absl::OkStatus();
}

}  // namespace dfx
