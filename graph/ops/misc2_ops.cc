// The misc2 family: small ops TensorFlow graphs carry that fit no other
// family. TensorListPushBackBatch; the device and runtime queries
// DeviceIndex, DevicePlacementOp, IsTensorFloat32Enabled, GraphDefVersion
// and CheckPinned;
// the resource-handle ops DisableCopyOnRead, IsResourceHandleRefCounting
// and MakeWeakResourceHandle; ImmutableConst (a tensor read from a file);
// the user-level Send and Recv; IteratorGetDevice and its Experimental
// twin; DecodeWebP; Abort. Signatures follow TensorFlow 2.21's list_ops.cc,
// array_ops.cc, math_ops.cc, resource_variable_ops.cc, sendrecv_ops.cc,
// dataset_ops.cc, image_ops.cc and control_flow_ops.cc. Kernels: kernels/misc2/
// and kernels/sendrecv/.
#include "base/status_macros.h"
#include "graph/node_def_util.h"
#include "graph/ops/ops.h"

namespace dfx {
namespace {

absl::Status NoOutputs(InferenceContext*) { return absl::OkStatus(); }

// TensorListPushBackBatch: a vector of lists and a tensor whose rows go one
// to each list; the output is the vector of lists.
absl::Status PushBackBatchShape(InferenceContext* c) {
  DFX_RETURN_IF_ERROR(c->WithRank(c->input(0), 1));
  const PartialShape& tensor = c->input(1);
  if (tensor.RankKnown() && tensor.rank() < 1) {
    return c->Error("Shape must be at least rank 1 but is rank 0");
  }
  PartialShape out = c->input(0);
  if (!out.RankKnown()) out = UnknownDims(1);
  if (tensor.RankKnown()) {
    DFX_RETURN_IF_ERROR(c->MergeDim(out.dims[0], tensor.dims[0], &out.dims[0]));
  }
  c->set_output(0, std::move(out));
  return absl::OkStatus();
}

// DecodeWebP: [frames, height, width, channels] (channels from the attr
// when set).
absl::Status DecodeWebPShape(InferenceContext* c) {
  DFX_RETURN_IF_ERROR(c->WithRank(c->input(0), 0));
  int64_t channels = 0;
  DFX_RETURN_IF_ERROR(GetNodeAttr(c->node_def(), "channels", &channels));
  c->set_output(
      0, PartialShape::Known({-1, -1, -1, channels == 0 ? -1 : channels}));
  return absl::OkStatus();
}

absl::Status ShapeFromAttr(InferenceContext* c) {
  TensorShapeProto shape;
  DFX_RETURN_IF_ERROR(GetNodeAttr(c->node_def(), "shape", &shape));
  c->set_output(0, PartialShape::FromProto(shape));
  return absl::OkStatus();
}

absl::Status ScalarOutputOnly(OpRegistry* r, const char* op,
                              const char* output) {
  return r->Register(OpDefBuilder(op).Output(output).SetIsStateful().SetShapeFn(
      shape_fn::Scalar));
}

}  // namespace

absl::Status RegisterMisc2Ops(OpRegistry* r) {
  DFX_RETURN_IF_ERROR(r->Register(OpDefBuilder("TensorListPushBackBatch")
                                      .Input("input_handles: variant")
                                      .Input("tensor: element_dtype")
                                      .Output("output_handles: variant")
                                      .Attr("element_dtype: type")
                                      .SetShapeFn(PushBackBatchShape)));
  DFX_RETURN_IF_ERROR(r->Register(OpDefBuilder("DeviceIndex")
                                      .Output("index: int32")
                                      .Attr("device_names: list(string)")
                                      .SetIsStateful()
                                      .SetShapeFn(shape_fn::Scalar)));
  DFX_RETURN_IF_ERROR(
      ScalarOutputOnly(r, "DevicePlacementOp", "device: string"));
  DFX_RETURN_IF_ERROR(
      ScalarOutputOnly(r, "IsTensorFloat32Enabled", "enabled: bool"));
  DFX_RETURN_IF_ERROR(ScalarOutputOnly(r, "GraphDefVersion", "version: int32"));
  DFX_RETURN_IF_ERROR(r->Register(OpDefBuilder("CheckPinned")
                                      .Input("tensor: T")
                                      .Output("output: T")
                                      .Attr("T: type")
                                      .SetShapeFn(shape_fn::UnchangedShape)));
  DFX_RETURN_IF_ERROR(r->Register(OpDefBuilder("DisableCopyOnRead")
                                      .Input("resource: resource")
                                      .SetIsStateful()
                                      .SetShapeFn(NoOutputs)));
  DFX_RETURN_IF_ERROR(r->Register(OpDefBuilder("IsResourceHandleRefCounting")
                                      .Input("handle: resource")
                                      .Output("result: bool")
                                      .SetIsStateful()
                                      .SetShapeFn(shape_fn::Scalar)));
  DFX_RETURN_IF_ERROR(r->Register(OpDefBuilder("MakeWeakResourceHandle")
                                      .Input("handle: resource")
                                      .Output("dup: resource")
                                      .SetIsStateful()
                                      .SetShapeFn(shape_fn::UnchangedShape)));
  DFX_RETURN_IF_ERROR(r->Register(OpDefBuilder("ImmutableConst")
                                      .Output("tensor: dtype")
                                      .Attr("dtype: type")
                                      .Attr("shape: shape")
                                      .Attr("memory_region_name: string")
                                      .SetShapeFn(ShapeFromAttr)));
  DFX_RETURN_IF_ERROR(r->Register(OpDefBuilder("Send")
                                      .Input("tensor: T")
                                      .Attr("T: type")
                                      .Attr("tensor_name: string")
                                      .Attr("send_device: string")
                                      .Attr("send_device_incarnation: int")
                                      .Attr("recv_device: string")
                                      .Attr("client_terminated: bool = false")
                                      .SetIsStateful()
                                      .SetShapeFn(NoOutputs)));
  {
    // OpDefBuilder has no setter for is_distributed_communication (see
    // collective_ops.cc): the finished signature gets the flag here.
    DFX_ASSIGN_OR_RETURN(OpRegistrationData recv,
                         OpDefBuilder("Recv")
                             .Output("tensor: tensor_type")
                             .Attr("tensor_type: type")
                             .Attr("tensor_name: string")
                             .Attr("send_device: string")
                             .Attr("send_device_incarnation: int")
                             .Attr("recv_device: string")
                             .Attr("client_terminated: bool = false")
                             .SetIsStateful()
                             .SetShapeFn(shape_fn::Unknown)
                             .Finalize());
    recv.op_def.set_is_distributed_communication(true);
    DFX_RETURN_IF_ERROR(r->Register(std::move(recv)));
  }
  for (const char* op :
       {"IteratorGetDevice", "ExperimentalIteratorGetDevice"}) {
    DFX_RETURN_IF_ERROR(r->Register(OpDefBuilder(op)
                                        .Input("resource: resource")
                                        .Output("device: string")
                                        .SetIsStateful()
                                        .SetShapeFn(shape_fn::Scalar)));
  }
  // Its kernel is the codec family's decode kernel (kernels/codec/).
  DFX_RETURN_IF_ERROR(r->Register(OpDefBuilder("DecodeWebP")
                                      .Input("contents: string")
                                      .Output("image: dtype")
                                      .Attr("channels: int = 0")
                                      .Attr("dtype: {uint8} = DT_UINT8")
                                      .SetShapeFn(DecodeWebPShape)));
  DFX_RETURN_IF_ERROR(r->Register(OpDefBuilder("Abort")
                                      .Attr("error_msg: string = ''")
                                      .Attr("exit_without_error: bool = false")
                                      .SetShapeFn(NoOutputs)));
  return absl::OkStatus();
}

}  // namespace dfx
