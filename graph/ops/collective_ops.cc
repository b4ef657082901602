// The collective ops of TensorFlow 2.21 that dfx runs (signatures equal to
// TensorFlow's, checked by tests/kernels/collective_ops_test.cc):
// CollectiveReduceV2, CollectiveReduceScatterV2, CollectiveGatherV2,
// CollectiveAllToAllV2, CollectiveBcastSendV2 and CollectiveBcastRecvV2;
// the v1 forms whose keys are attrs (CollectiveReduce, CollectiveGather,
// CollectiveBcastSend, CollectiveBcastRecv), CollectiveAssignGroupV2,
// CollectiveInitializeCommunicator and the V3 ops that take its
// communicator, CollectiveReduceV3 and CollectiveAllToAllV3
// (tests/kernels/collective2_test.cc).
// Their kernels are in kernels/collective/.
#include "base/status_macros.h"
#include "graph/node_def_util.h"
#include "graph/ops/ops.h"

namespace dfx {
namespace {

// OpDefBuilder has no setter for is_distributed_communication (adding one
// would mean editing graph/op_registry.h, which everything includes): the
// finished signature gets the flag here.
absl::Status RegisterCollective(OpRegistry* registry,
                                const OpDefBuilder& builder) {
  DFX_ASSIGN_OR_RETURN(OpRegistrationData data, builder.Finalize());
  data.op_def.set_is_distributed_communication(true);
  return registry->Register(std::move(data));
}

// The output has the input's shape (reduce, broadcast send).
absl::Status SameAsInput(InferenceContext* c) {
  c->set_output(0, c->input(0));
  return absl::OkStatus();
}

// Gather concatenates the members' inputs along dim 0: the rank is the
// input's, dim 0 unknown (group_size is an input, not an attr).
absl::Status GatherShape(InferenceContext* c) {
  const PartialShape& in = c->input(0);
  if (!in.RankKnown()) {
    c->set_output(0, PartialShape::Unknown());
    return absl::OkStatus();
  }
  if (in.rank() == 0) {
    return c->Error("the input of a gather must have rank >= 1, got a scalar");
  }
  PartialShape out = in;
  out.dims[0] = -1;
  c->set_output(0, out);
  return absl::OkStatus();
}

// Reduce-scatter keeps the input's rank and divides dim 0 by the group
// size, an input, so dim 0 is unknown.
absl::Status ReduceScatterShape(InferenceContext* c) {
  const PartialShape& in = c->input(0);
  if (!in.RankKnown()) {
    c->set_output(0, PartialShape::Unknown());
    return absl::OkStatus();
  }
  if (in.rank() == 0) {
    return c->Error(
        "the input of a reduce-scatter must have rank >= 1, got a scalar");
  }
  PartialShape out = in;
  out.dims[0] = -1;
  c->set_output(0, out);
  return absl::OkStatus();
}

// BcastRecv's output shape is its `shape` input's value when it is a Const.
absl::Status BcastRecvShape(InferenceContext* c) {
  std::vector<int64_t> dims;
  if (ConstantInts(c->input_tensor(3), &dims)) {
    c->set_output(0, PartialShape::Known(std::move(dims)));
  } else {
    c->set_output(0, PartialShape::Unknown());
  }
  return absl::OkStatus();
}

// TensorFlow's ExplicitShape: output 0 is the `shape` attr (v1 broadcast).
absl::Status ShapeAttr(InferenceContext* c) {
  TensorShapeProto proto;
  DFX_RETURN_IF_ERROR(GetNodeAttr(c->node_def(), "shape", &proto));
  c->set_output(0, PartialShape::FromProto(proto));
  return absl::OkStatus();
}

// The v1 gather: the input's shape with dim 0 times the group_size attr.
absl::Status GatherV1Shape(InferenceContext* c) {
  const PartialShape& in = c->input(0);
  if (!in.RankKnown()) {
    c->set_output(0, PartialShape::Unknown());
    return absl::OkStatus();
  }
  if (in.rank() == 0) {
    return c->Error("Shape must be at least rank 1 but is rank 0");
  }
  int64_t group_size = 0;
  DFX_RETURN_IF_ERROR(GetNodeAttr(c->node_def(), "group_size", &group_size));
  PartialShape out = in;
  if (out.dims[0] >= 0) out.dims[0] *= group_size;
  c->set_output(0, out);
  return absl::OkStatus();
}

// CollectiveAssignGroupV2: two scalars.
absl::Status TwoScalars(InferenceContext* c) {
  c->set_output(0, PartialShape::Scalar());
  c->set_output(1, PartialShape::Scalar());
  return absl::OkStatus();
}

}  // namespace

absl::Status RegisterCollectiveOps(OpRegistry* registry) {
  DFX_RETURN_IF_ERROR(RegisterCollective(
      registry,
      OpDefBuilder("CollectiveReduceV2")
          .Input("input: T")
          .Input("group_size: int32")
          .Input("group_key: int32")
          .Input("instance_key: int32")
          .Input("ordering_token: Nordering_token * resource")
          .Output("data: T")
          .Attr("T: {bfloat16, float, half, double, int32, int64}")
          .Attr("merge_op: {'Min', 'Max', 'Mul', 'Add'}")
          .Attr("final_op: {'Id', 'Div'}")
          .Attr("communication_hint: string = 'auto'")
          .Attr("timeout_seconds: float = 0")
          .Attr("is_stateless: bool = false")
          .Attr("Nordering_token: int >= 0 = 0")
          .Attr("max_subdivs_per_device: int = -1")
          .SetIsStateful()
          .SetShapeFn(SameAsInput)));
  DFX_RETURN_IF_ERROR(RegisterCollective(
      registry,
      OpDefBuilder("CollectiveReduceScatterV2")
          .Input("input: T")
          .Input("group_size: int32")
          .Input("group_key: int32")
          .Input("instance_key: int32")
          .Input("ordering_token: Nordering_token * resource")
          .Output("data: T")
          .Attr("T: {bfloat16, float, half, double, int32, int64}")
          .Attr("merge_op: {'Min', 'Max', 'Mul', 'Add'}")
          .Attr("final_op: {'Id', 'Div'}")
          .Attr("communication_hint: string = 'auto'")
          .Attr("timeout_seconds: float = 0")
          .Attr("is_stateless: bool = false")
          .Attr("Nordering_token: int >= 0 = 0")
          .Attr("max_subdivs_per_device: int = -1")
          .SetIsStateful()
          .SetShapeFn(ReduceScatterShape)));
  DFX_RETURN_IF_ERROR(RegisterCollective(
      registry,
      OpDefBuilder("CollectiveAllToAllV2")
          .Input("input: T")
          .Input("group_size: int32")
          .Input("group_key: int32")
          .Input("instance_key: int32")
          .Input("ordering_token: Nordering_token * resource")
          .Output("data: T")
          .Attr("T: {bfloat16, float, half, double, int32, int64}")
          .Attr("communication_hint: string = 'auto'")
          .Attr("timeout_seconds: float = 0")
          .Attr("is_stateless: bool = false")
          .Attr("Nordering_token: int >= 0 = 0")
          .SetIsStateful()
          .SetShapeFn(SameAsInput)));
  DFX_RETURN_IF_ERROR(RegisterCollective(
      registry,
      OpDefBuilder("CollectiveGatherV2")
          .Input("input: T")
          .Input("group_size: int32")
          .Input("group_key: int32")
          .Input("instance_key: int32")
          .Input("ordering_token: Nordering_token * resource")
          .Output("data: T")
          .Attr("T: {float, half, double, int32, int64}")
          .Attr("communication_hint: string = 'auto'")
          .Attr("timeout_seconds: float = 0")
          .Attr("is_stateless: bool = false")
          .Attr("Nordering_token: int >= 0 = 0")
          .SetIsStateful()
          .SetShapeFn(GatherShape)));
  DFX_RETURN_IF_ERROR(RegisterCollective(
      registry,
      OpDefBuilder("CollectiveBcastSendV2")
          .Input("input: T")
          .Input("group_size: int32")
          .Input("group_key: int32")
          .Input("instance_key: int32")
          .Output("data: T")
          .Attr("T: {bool, float, half, double, int32, int64}")
          .Attr("communication_hint: string = 'auto'")
          .Attr("timeout_seconds: float = 0")
          .SetIsStateful()
          .SetShapeFn(SameAsInput)));
  DFX_RETURN_IF_ERROR(RegisterCollective(
      registry,
      OpDefBuilder("CollectiveBcastRecvV2")
          .Input("group_size: int32")
          .Input("group_key: int32")
          .Input("instance_key: int32")
          .Input("shape: Tshape")
          .Output("data: T")
          .Attr("T: {bool, float, half, double, int32, int64}")
          .Attr("Tshape: {int32, int64} = DT_INT32")
          .Attr("communication_hint: string = 'auto'")
          .Attr("timeout_seconds: float = 0")
          .SetIsStateful()
          .SetShapeFn(BcastRecvShape)));
  DFX_RETURN_IF_ERROR(RegisterCollective(
      registry, OpDefBuilder("CollectiveReduce")
                    .Input("input: T")
                    .Output("data: T")
                    .Attr("T: {bfloat16, float, half, double, int32, int64}")
                    .Attr("group_size: int")
                    .Attr("group_key: int")
                    .Attr("instance_key: int")
                    .Attr("merge_op: {'Min', 'Max', 'Mul', 'Add'}")
                    .Attr("final_op: {'Id', 'Div'}")
                    .Attr("subdiv_offsets: list(int)")
                    .Attr("wait_for: list(int) = []")
                    .Attr("communication_hint: string = 'auto'")
                    .Attr("timeout_seconds: float = 0")
                    .SetIsStateful()
                    .SetShapeFn(SameAsInput)));
  DFX_RETURN_IF_ERROR(RegisterCollective(
      registry, OpDefBuilder("CollectiveGather")
                    .Input("input: T")
                    .Output("data: T")
                    .Attr("T: {float, half, double, int32, int64}")
                    .Attr("group_size: int")
                    .Attr("group_key: int")
                    .Attr("instance_key: int")
                    .Attr("shape: shape")
                    .Attr("communication_hint: string = 'auto'")
                    .Attr("timeout_seconds: float = 0")
                    .SetIsStateful()
                    .SetShapeFn(GatherV1Shape)));
  DFX_RETURN_IF_ERROR(RegisterCollective(
      registry, OpDefBuilder("CollectiveBcastSend")
                    .Input("input: T")
                    .Output("data: T")
                    .Attr("T: {bool, float, half, double, int32, int64}")
                    .Attr("group_size: int")
                    .Attr("group_key: int")
                    .Attr("instance_key: int")
                    .Attr("shape: shape")
                    .Attr("communication_hint: string = 'auto'")
                    .Attr("timeout_seconds: float = 0")
                    .SetIsStateful()
                    .SetShapeFn(ShapeAttr)));
  DFX_RETURN_IF_ERROR(RegisterCollective(
      registry, OpDefBuilder("CollectiveBcastRecv")
                    .Output("data: T")
                    .Attr("T: {bool, float, half, double, int32, int64}")
                    .Attr("group_size: int")
                    .Attr("group_key: int")
                    .Attr("instance_key: int")
                    .Attr("shape: shape")
                    .Attr("communication_hint: string = 'auto'")
                    .Attr("timeout_seconds: float = 0")
                    .SetIsStateful()
                    .SetShapeFn(ShapeAttr)));
  DFX_RETURN_IF_ERROR(
      RegisterCollective(registry, OpDefBuilder("CollectiveAssignGroupV2")
                                       .Input("group_assignment: int32")
                                       .Input("device_index: int32")
                                       .Input("base_key: int32")
                                       .Output("group_size: int32")
                                       .Output("group_key: int32")
                                       .SetIsStateful()
                                       .SetShapeFn(TwoScalars)));
  DFX_RETURN_IF_ERROR(RegisterCollective(
      registry, OpDefBuilder("CollectiveInitializeCommunicator")
                    .Input("group_key: int32")
                    .Input("rank: int32")
                    .Input("group_size: int32")
                    .Output("communicator: resource")
                    .Attr("communication_hint: string = 'auto'")
                    .Attr("timeout_seconds: float = 0")
                    .SetIsStateful()
                    .SetShapeFn(shape_fn::Scalar)));
  DFX_RETURN_IF_ERROR(RegisterCollective(
      registry,
      OpDefBuilder("CollectiveReduceV3")
          .Input("input: T")
          .Input("communicator: resource")
          .Input("group_assignment: int32")
          .Output("data: T")
          .Attr("T: {bfloat16, float, half, double, int32, int64}")
          .Attr("reduction: {'Min', 'Max', 'Mul', 'Add'}")
          .Attr("timeout_seconds: float = 0")
          .SetIsStateful()
          .SetShapeFn(SameAsInput)));
  DFX_RETURN_IF_ERROR(RegisterCollective(
      registry,
      OpDefBuilder("CollectiveAllToAllV3")
          .Input("input: T")
          .Input("communicator: resource")
          .Input("group_assignment: int32")
          .Output("data: T")
          .Attr("T: {bfloat16, float, half, double, int32, int64}")
          .Attr("timeout_seconds: float = 0")
          .SetIsStateful()
          .SetShapeFn(SameAsInput)));
  return absl::OkStatus();
}

}  // namespace dfx
