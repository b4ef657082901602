// The collective ops of TensorFlow 2.21 that dfx runs (signatures equal to
// TensorFlow's, checked by tests/kernels/collective_ops_test.cc):
// CollectiveReduceV2, CollectiveReduceScatterV2, CollectiveGatherV2,
// CollectiveAllToAllV2, CollectiveBcastSendV2 and CollectiveBcastRecvV2.
// Their kernels are in kernels/collective/.
#include "base/status_macros.h"
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
  return absl::OkStatus();
}

}  // namespace dfx
