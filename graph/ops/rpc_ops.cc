// The rpc family: TensorFlow's RPC ops (tf.distribute.experimental.rpc's
// Server and Client): RpcServer, RpcServerRegister, RpcServerStart,
// RpcClient, RpcCall, RpcCheckStatus, RpcGetValue and
// DeleteRpcFutureResource. Signatures follow TensorFlow 2.21's
// distribute/experimental/rpc/kernels/rpc_ops.cc, which gives every op but
// DeleteRpcFutureResource no shape function (unknown shapes); all are
// stateful.
#include "base/status_macros.h"
#include "graph/ops/ops.h"

namespace dfx {

absl::Status RegisterRpcOps(OpRegistry* r) {
  DFX_RETURN_IF_ERROR(r->Register(OpDefBuilder("RpcServer")
                                      .Input("server_address: string")
                                      .Output("server: resource")
                                      .SetIsStateful()
                                      .SetShapeFn(shape_fn::Unknown)));
  DFX_RETURN_IF_ERROR(
      r->Register(OpDefBuilder("RpcClient")
                      .Attr("shared_name: string = ''")
                      .Input("server_address: string")
                      .Attr("list_registered_methods: bool = false")
                      .Input("timeout_in_ms: int64")
                      .Output("client: resource")
                      .Output("method_specs: string")
                      .SetIsStateful()
                      .SetShapeFn(shape_fn::Unknown)));
  DFX_RETURN_IF_ERROR(r->Register(OpDefBuilder("RpcServerStart")
                                      .Input("server: resource")
                                      .SetIsStateful()
                                      .SetShapeFn(shape_fn::Unknown)));
  DFX_RETURN_IF_ERROR(r->Register(OpDefBuilder("RpcServerRegister")
                                      .Input("server: resource")
                                      .Input("method_name: string")
                                      .Input("captured_inputs: Tin")
                                      .Attr("Tin: list(type) >= 0 = []")
                                      .Attr("f: func")
                                      .Attr("input_specs: string = ''")
                                      .Attr("output_specs: string")
                                      .SetIsStateful()
                                      .SetShapeFn(shape_fn::Unknown)));
  DFX_RETURN_IF_ERROR(r->Register(OpDefBuilder("DeleteRpcFutureResource")
                                      .Input("handle: resource")
                                      .Input("deleter: variant")
                                      .SetIsStateful()
                                      .SetShapeFn(shape_fn::Unknown)));
  DFX_RETURN_IF_ERROR(r->Register(OpDefBuilder("RpcCall")
                                      .Input("client: resource")
                                      .Input("method_name: string")
                                      .Input("args: Tin")
                                      .Input("timeout_in_ms: int64")
                                      .Attr("Tin: list(type) >= 0")
                                      .Output("future: resource")
                                      .Output("deleter: variant")
                                      .SetIsStateful()
                                      .SetShapeFn(shape_fn::Unknown)));
  DFX_RETURN_IF_ERROR(r->Register(OpDefBuilder("RpcCheckStatus")
                                      .Input("status_or: resource")
                                      .Output("error_code: int64")
                                      .Output("error: string")
                                      .SetIsStateful()
                                      .SetShapeFn(shape_fn::Unknown)));
  DFX_RETURN_IF_ERROR(r->Register(OpDefBuilder("RpcGetValue")
                                      .Input("status_or: resource")
                                      .Attr("Tout: list(type) >= 0")
                                      .Output("output: Tout")
                                      .SetIsStateful()
                                      .SetShapeFn(shape_fn::Unknown)));
  return absl::OkStatus();
}

}  // namespace dfx
