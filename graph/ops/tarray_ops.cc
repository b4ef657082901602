// The tarray family: TensorFlow's TensorArray ops before V3 (the v1 ops,
// whose handle is a reference to a [2] string tensor, and the V2 ops, which
// pass that tensor by value) and its stacks before V2 (Stack, StackPush,
// StackPop, StackClose), which old TF1 GraphDefs (dynamic_rnn, while_loop
// gradients of TensorFlow 1.0 to 1.4) hold. The kernels are the V3 and
// StackV2 ones (kernels/data_flow). Signatures, deprecation versions
// included, follow TensorFlow 2.21's data_flow_ops.cc: a GraphDef produced
// at or after an op's deprecation version may not use it.
//
// Shape functions follow TensorFlow's: none (unknown outputs) for the v1
// TensorArray ops, the [2] handle checked by the V2 ones and the stacks'.
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "graph/ops/ops.h"

namespace dfx {
namespace {

// A [2] string handle at input i.
absl::Status CheckStringHandle(InferenceContext* c, int i) {
  DFX_RETURN_IF_ERROR(c->WithRank(c->input(i), 1));
  const PartialShape& h = c->input(i);
  if (h.RankKnown() && h.dims[0] >= 0 && h.dims[0] != 2) {
    return c->Error(absl::StrCat("Dimension must be 2 but is ", h.dims[0]));
  }
  return absl::OkStatus();
}

// Stack: the [2] handle.
absl::Status HandleShape(InferenceContext* c) {
  for (int i = 0; i < c->num_outputs(); ++i) {
    c->set_output(i, PartialShape::Unknown());
  }
  if (c->num_outputs() > 0) c->set_output(0, PartialShape::Known({2}));
  return absl::OkStatus();
}

// One op: its arg and attr specs, the GraphDef version that deprecated it
// (0 when none) and TensorFlow's explanation.
struct Op {
  const char* name;
  std::vector<const char*> inputs;
  std::vector<const char*> outputs;
  std::vector<const char*> attrs;
  bool stateful;
  int deprecated;
  const char* explanation;
  absl::Status (*shape)(InferenceContext*);
};

absl::Status Unknown(InferenceContext* c) { return shape_fn::Unknown(c); }

// The V2 ops' checks: the [2] handle, inputs kScalar1 and kScalar2 scalars
// and kVector a vector (0: none); output 0 a scalar when kScalarOut, every
// other output unknown.
template <int kScalar1, int kScalar2, int kVector, bool kScalarOut>
absl::Status V2(InferenceContext* c) {
  DFX_RETURN_IF_ERROR(CheckStringHandle(c, 0));
  for (int i : {kScalar1, kScalar2}) {
    if (i > 0) DFX_RETURN_IF_ERROR(c->WithRank(c->input(i), 0));
  }
  if (kVector > 0) DFX_RETURN_IF_ERROR(c->WithRank(c->input(kVector), 1));
  for (int i = 0; i < c->num_outputs(); ++i) {
    c->set_output(i, PartialShape::Unknown());
  }
  if (kScalarOut) c->set_output(0, PartialShape::Scalar());
  return absl::OkStatus();
}

absl::Status TensorArrayV2Shape(InferenceContext* c) {
  DFX_RETURN_IF_ERROR(c->WithRank(c->input(0), 0));
  c->set_output(0, PartialShape::Known({2}));
  return absl::OkStatus();
}

absl::Status GradV2Shape(InferenceContext* c) {
  DFX_RETURN_IF_ERROR(CheckStringHandle(c, 0));
  c->set_output(0, PartialShape::Known({2}));
  return absl::OkStatus();
}

absl::Status ConcatV2Shape(InferenceContext* c) {
  DFX_RETURN_IF_ERROR(CheckStringHandle(c, 0));
  DFX_RETURN_IF_ERROR(c->WithRank(c->input(1), 0));
  c->set_output(0, PartialShape::Unknown());
  c->set_output(1, PartialShape::Known({-1}));
  return absl::OkStatus();
}

absl::Status StackCloseShape(InferenceContext* c) {
  return CheckStringHandle(c, 0);
}

constexpr char kShape[] = "element_shape: shape = { unknown_rank: true }";
constexpr char kShapeExcept0[] =
    "element_shape_except0: shape = { unknown_rank: true }";
constexpr char kRef[] = "handle: Ref(string)";
constexpr char kHandle[] = "handle: string";

}  // namespace

absl::Status RegisterTarrayOps(OpRegistry* r) {
  const Op ops[] = {
      // The v1 TensorArray ops.
      {"TensorArray",
       {"size: int32"},
       {kRef},
       {"dtype: type", "dynamic_size: bool = false",
        "clear_after_read: bool = true", "tensor_array_name: string = ''",
        kShape},
       true,
       16,
       "Use TensorArrayV3",
       Unknown},
      {"TensorArrayGrad",
       {kHandle, "flow_in: float"},
       {"grad_handle: Ref(string)"},
       {"source: string"},
       true,
       16,
       "Use TensorArrayGradV3",
       Unknown},
      {"TensorArrayWrite",
       {kRef, "index: int32", "value: T", "flow_in: float"},
       {"flow_out: float"},
       {"T: type"},
       false,
       16,
       "Use TensorArrayWriteV3",
       Unknown},
      {"TensorArrayRead",
       {kRef, "index: int32", "flow_in: float"},
       {"value: dtype"},
       {"dtype: type"},
       false,
       16,
       "Use TensorArrayReadV3",
       Unknown},
      {"TensorArrayPack",
       {kRef, "flow_in: float"},
       {"value: dtype"},
       {"dtype: type", kShape},
       false,
       16,
       "Use TensorArrayGatherV3 with RangeOp",
       Unknown},
      {"TensorArrayUnpack",
       {kRef, "value: T", "flow_in: float"},
       {"flow_out: float"},
       {"T: type"},
       false,
       20,
       "Use TensorArrayScatterV3 with RangeOp",
       Unknown},
      {"TensorArrayGather",
       {kRef, "indices: int32", "flow_in: float"},
       {"value: dtype"},
       {"dtype: type", kShape},
       false,
       16,
       "Use TensorArrayGatherV3",
       Unknown},
      // TensorFlow's explanations of Scatter and Concat name GradV3.
      {"TensorArrayScatter",
       {kRef, "indices: int32", "value: T", "flow_in: float"},
       {"flow_out: float"},
       {"T: type"},
       false,
       19,
       "Use TensorArrayGradV3",
       Unknown},
      {"TensorArrayConcat",
       {kRef, "flow_in: float"},
       {"value: dtype", "lengths: int64"},
       {"dtype: type", kShapeExcept0},
       false,
       16,
       "Use TensorArrayGradV3",
       Unknown},
      {"TensorArraySplit",
       {kRef, "value: T", "lengths: int64", "flow_in: float"},
       {"flow_out: float"},
       {"T: type"},
       false,
       16,
       "Use TensorArraySplitV3",
       Unknown},
      {"TensorArraySize",
       {kRef, "flow_in: float"},
       {"size: int32"},
       {},
       false,
       16,
       "Use TensorArraySizeV3",
       Unknown},
      {"TensorArrayClose",
       {kRef},
       {},
       {},
       false,
       16,
       "Use TensorArrayCloseV3",
       Unknown},
      // The V2 TensorArray ops.
      {"TensorArrayV2",
       {"size: int32"},
       {kHandle},
       {"dtype: type", kShape, "dynamic_size: bool = false",
        "clear_after_read: bool = true", "tensor_array_name: string = ''"},
       true,
       26,
       "Use TensorArrayV3",
       TensorArrayV2Shape},
      {"TensorArrayGradV2",
       {kHandle, "flow_in: float"},
       {"grad_handle: string"},
       {"source: string"},
       true,
       26,
       "Use TensorArrayGradV3",
       GradV2Shape},
      {"TensorArrayWriteV2",
       {kHandle, "index: int32", "value: T", "flow_in: float"},
       {"flow_out: float"},
       {"T: type"},
       false,
       26,
       "Use TensorArrayWriteV3",
       V2<1, 3, 0, true>},
      {"TensorArrayReadV2",
       {kHandle, "index: int32", "flow_in: float"},
       {"value: dtype"},
       {"dtype: type"},
       false,
       26,
       "Use TensorArrayReadV3",
       V2<1, 2, 0, false>},
      {"TensorArrayGatherV2",
       {kHandle, "indices: int32", "flow_in: float"},
       {"value: dtype"},
       {"dtype: type", kShape},
       false,
       26,
       "Use TensorArrayGatherV3",
       V2<2, 0, 1, false>},
      {"TensorArrayScatterV2",
       {kHandle, "indices: int32", "value: T", "flow_in: float"},
       {"flow_out: float"},
       {"T: type"},
       false,
       26,
       "Use TensorArrayScatterV3",
       V2<3, 0, 1, true>},
      // Not deprecated in TensorFlow 2.21, unlike the other V2 ops.
      {"TensorArrayConcatV2",
       {kHandle, "flow_in: float"},
       {"value: dtype", "lengths: int64"},
       {"dtype: type", kShapeExcept0},
       false,
       0,
       "",
       ConcatV2Shape},
      {"TensorArraySplitV2",
       {kHandle, "value: T", "lengths: int64", "flow_in: float"},
       {"flow_out: float"},
       {"T: type"},
       false,
       26,
       "Use TensorArraySplitV3",
       V2<3, 0, 2, true>},
      {"TensorArraySizeV2",
       {kHandle, "flow_in: float"},
       {"size: int32"},
       {},
       false,
       26,
       "Use TensorArraySizeV3",
       V2<1, 0, 0, true>},
      {"TensorArrayCloseV2",
       {kHandle},
       {},
       {},
       false,
       26,
       "Use TensorArrayCloseV3",
       V2<0, 0, 0, false>},
      // The v1 stacks.
      {"Stack",
       {},
       {kRef},
       {"elem_type: type", "stack_name: string = ''"},
       true,
       0,
       "",
       HandleShape},
      {"StackPush",
       {kRef, "elem: T"},
       {"output: T"},
       {"T: type", "swap_memory: bool = false"},
       false,
       0,
       "",
       Unknown},
      {"StackPop",
       {kRef},
       {"elem: elem_type"},
       {"elem_type: type"},
       false,
       0,
       "",
       Unknown},
      {"StackClose", {kRef}, {}, {}, false, 0, "", StackCloseShape},
  };
  for (const Op& op : ops) {
    OpDefBuilder b(op.name);
    for (const char* in : op.inputs) b.Input(in);
    for (const char* out : op.outputs) b.Output(out);
    for (const char* attr : op.attrs) b.Attr(attr);
    if (op.stateful) b.SetIsStateful();
    DFX_ASSIGN_OR_RETURN(OpRegistrationData data,
                         b.SetShapeFn(op.shape).Finalize());
    if (op.deprecated > 0) {
      data.op_def.mutable_deprecation()->set_version(op.deprecated);
      data.op_def.mutable_deprecation()->set_explanation(op.explanation);
    }
    DFX_RETURN_IF_ERROR(r->Register(std::move(data)));
  }
  return absl::OkStatus();
}

}  // namespace dfx
