#include "base/status_macros.h"
#include "graph/ops/ops.h"

namespace dfx {

absl::Status RegisterSendRecvOps(OpRegistry* registry) {
  // _Send/_Recv join a tensor across a partition cut (or to the client when
  // client_terminated); _HostSend/_HostRecv are the same for host memory.
  for (const char* name : {"_Send", "_HostSend"}) {
    DFX_RETURN_IF_ERROR(registry->Register(
        OpDefBuilder(name)
            .Input("tensor: T")
            .Attr("T: type")
            .Attr("tensor_name: string")
            .Attr("send_device: string")
            .Attr("send_device_incarnation: int")
            .Attr("recv_device: string")
            .Attr("client_terminated: bool = false")
            .SetIsStateful()
            .SetShapeFn(shape_fn::Unknown)));
  }
  for (const char* name : {"_Recv", "_HostRecv"}) {
    DFX_RETURN_IF_ERROR(registry->Register(
        OpDefBuilder(name)
            .Output("tensor: tensor_type")
            .Attr("tensor_type: type")
            .Attr("tensor_name: string")
            .Attr("send_device: string")
            .Attr("send_device_incarnation: int")
            .Attr("recv_device: string")
            .Attr("client_terminated: bool = false")
            .SetIsStateful()
            .SetShapeFn(shape_fn::Unknown)));
  }
  return absl::OkStatus();
}

}  // namespace dfx
