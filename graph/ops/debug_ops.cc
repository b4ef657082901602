// The debug family: the ops TensorFlow's debugger (tfdbg) inserts on
// watched tensors. Copy and CopyHost, DebugIdentity, DebugNanCount,
// DebugNumericSummary (tfdbg v1), DebugIdentityV2 and DebugNumericSummaryV2
// (tfdbg v2), DebugGradientIdentity and DebugGradientRefIdentity.
// Signatures follow TensorFlow 2.21's debug_ops.cc and array_ops.cc.
#include "base/status_macros.h"
#include "graph/ops/ops.h"

namespace dfx {

absl::Status RegisterDebugOps(OpRegistry* r) {
  for (const char* op : {"Copy", "CopyHost"}) {
    DFX_RETURN_IF_ERROR(
        r->Register(OpDefBuilder(op)
                        .Input("input: T")
                        .Output("output: T")
                        .Attr("T: type")
                        .Attr("tensor_name: string = ''")
                        .Attr("debug_ops_spec: list(string) = []")
                        .SetAllowsUninitializedInput()
                        .SetShapeFn(shape_fn::UnchangedShape)));
  }
  DFX_RETURN_IF_ERROR(r->Register(OpDefBuilder("DebugIdentity")
                                      .Input("input: T")
                                      .Output("output: T")
                                      .Attr("T: type")
                                      .Attr("device_name: string = ''")
                                      .Attr("tensor_name: string = ''")
                                      .Attr("debug_urls: list(string) = []")
                                      .Attr("gated_grpc: bool = false")
                                      .SetAllowsUninitializedInput()
                                      .SetShapeFn(shape_fn::UnchangedShape)));
  DFX_RETURN_IF_ERROR(r->Register(OpDefBuilder("DebugNanCount")
                                      .Input("input: T")
                                      .Output("output: int64")
                                      .Attr("T: type")
                                      .Attr("device_name: string = ''")
                                      .Attr("tensor_name: string = ''")
                                      .Attr("debug_urls: list(string) = []")
                                      .Attr("gated_grpc: bool = false")
                                      .SetAllowsUninitializedInput()
                                      .SetShapeFn(shape_fn::Unknown)));
  DFX_RETURN_IF_ERROR(r->Register(OpDefBuilder("DebugNumericSummary")
                                      .Input("input: T")
                                      .Output("output: double")
                                      .Attr("T: type")
                                      .Attr("device_name: string = ''")
                                      .Attr("tensor_name: string = ''")
                                      .Attr("debug_urls: list(string) = []")
                                      .Attr("lower_bound: float = -inf")
                                      .Attr("upper_bound: float = inf")
                                      .Attr("mute_if_healthy: bool = false")
                                      .Attr("gated_grpc: bool = false")
                                      .SetAllowsUninitializedInput()
                                      .SetShapeFn(shape_fn::Unknown)));
  DFX_RETURN_IF_ERROR(r->Register(OpDefBuilder("DebugIdentityV2")
                                      .Input("input: T")
                                      .Output("output: T")
                                      .Attr("T: type")
                                      .Attr("tfdbg_context_id: string = ''")
                                      .Attr("op_name: string = ''")
                                      .Attr("output_slot: int = -1")
                                      .Attr("tensor_debug_mode: int = -1")
                                      .Attr("debug_urls: list(string) = []")
                                      .Attr("circular_buffer_size: int = 1000")
                                      .Attr("tfdbg_run_id: string = ''")
                                      .SetIsStateful()
                                      .SetShapeFn(shape_fn::UnchangedShape)));
  DFX_RETURN_IF_ERROR(
      r->Register(OpDefBuilder("DebugNumericSummaryV2")
                      .Input("input: T")
                      .Output("output: output_dtype")
                      .Attr("output_dtype: {float32, float64} = DT_FLOAT")
                      .Attr("T: type")
                      .Attr("tensor_debug_mode: int = -1")
                      .Attr("tensor_id: int = -1")
                      .SetShapeFn(shape_fn::Unknown)));
  DFX_RETURN_IF_ERROR(r->Register(OpDefBuilder("DebugGradientIdentity")
                                      .Input("input: T")
                                      .Output("output: T")
                                      .Attr("T: type")
                                      .SetAllowsUninitializedInput()
                                      .SetShapeFn(shape_fn::UnchangedShape)));
  DFX_RETURN_IF_ERROR(r->Register(OpDefBuilder("DebugGradientRefIdentity")
                                      .Input("input: Ref(T)")
                                      .Output("output: Ref(T)")
                                      .Attr("T: type")
                                      .SetAllowsUninitializedInput()
                                      .SetShapeFn(shape_fn::UnchangedShape)));
  return absl::OkStatus();
}

}  // namespace dfx
