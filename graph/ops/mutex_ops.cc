// The mutex family's first group: the mutex behind tf.CriticalSection
// (MutexV2, MutexLock, ConsumeMutexLock). Signatures follow TensorFlow
// 2.21's resource_variable_ops.cc. The family's small ops are in
// small_ops.cc.
#include "base/status_macros.h"
#include "graph/ops/ops.h"

namespace dfx {
namespace {

absl::Status NoOutputs(InferenceContext*) { return absl::OkStatus(); }

}  // namespace

absl::Status RegisterMutexOps(OpRegistry* r) {
  DFX_RETURN_IF_ERROR(r->Register(OpDefBuilder("MutexV2")
                                      .Output("resource: resource")
                                      .Attr("container: string = ''")
                                      .Attr("shared_name: string = ''")
                                      .SetIsStateful()
                                      .SetShapeFn(shape_fn::Scalar)));
  DFX_RETURN_IF_ERROR(r->Register(OpDefBuilder("MutexLock")
                                      .Input("mutex: resource")
                                      .Output("mutex_lock: variant")
                                      .SetIsStateful()
                                      .SetShapeFn(shape_fn::Scalar)));
  DFX_RETURN_IF_ERROR(r->Register(OpDefBuilder("ConsumeMutexLock")
                                      .Input("mutex_lock: variant")
                                      .SetIsStateful()
                                      .SetShapeFn(NoOutputs)));
  return absl::OkStatus();
}

}  // namespace dfx
