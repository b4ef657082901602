// The summarydb family: CreateSummaryDbWriter, which makes a SummaryWriter
// handle's resource a writer into a TensorBoard SQLite database (signature
// as TensorFlow 2.21's core/ops/summary_ops.cc). Kernel:
// kernels/summary/summary_db_writer.cc.
#include "base/status_macros.h"
#include "graph/ops/ops.h"

namespace dfx {

absl::Status RegisterSummarydbOps(OpRegistry* r) {
  return r->Register(OpDefBuilder("CreateSummaryDbWriter")
                         .Input("writer: resource")
                         .Input("db_uri: string")
                         .Input("experiment_name: string")
                         .Input("run_name: string")
                         .Input("user_name: string")
                         .SetIsStateful()
                         .SetShapeFn(shape_fn::Unknown));
}

}  // namespace dfx
