// State ops: resource variables (VarHandleOp, ReadVariableOp, Assign*
// VariableOp, ResourceGather, ResourceScatter*), reference variables
// (VariableV2, Assign, AssignAdd/Sub, Scatter*, IsVariableInitialized) and
// DestroyResourceOp. Signatures follow TensorFlow 2.21's
// resource_variable_ops.cc and state_ops.cc.
#include <string>

#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "graph/node_def_util.h"
#include "graph/ops/ops.h"

namespace dfx {
namespace {

// TensorFlow's type set of the arithmetic scatter and assign ops.
constexpr char kNumberT[] = "T: numbertype";
constexpr char kNumberDtype[] = "dtype: numbertype";
constexpr char kIndices[] = "Tindices: {int32, int64}";

// Output 0 (a reference) has the shape of input 0 merged with input 1.
absl::Status MergeRefAndValue(InferenceContext* c) {
  PartialShape out;
  DFX_RETURN_IF_ERROR(c->Merge(c->input(0), c->input(1), &out));
  c->set_output(0, std::move(out));
  return absl::OkStatus();
}

// Assign: with validate_shape the value must fit the variable; without it
// the variable takes the value's shape.
absl::Status AssignShape(InferenceContext* c) {
  bool validate = true;
  DFX_RETURN_IF_ERROR(GetNodeAttr(c->node_def(), "validate_shape", &validate));
  if (validate) return MergeRefAndValue(c);
  c->set_output(0, c->input(1));
  return absl::OkStatus();
}

// Scatter into a reference: updates must be indices.shape + ref.shape[1:].
absl::Status ScatterRefShape(InferenceContext* c) {
  const PartialShape& ref = c->input(0);
  const PartialShape& indices = c->input(1);
  const PartialShape& updates = c->input(2);
  if (ref.RankKnown() && indices.RankKnown() && updates.RankKnown()) {
    if (ref.rank() == 0) {
      return c->Error("the variable to scatter into must have rank >= 1");
    }
    std::vector<int64_t> want = indices.dims;
    want.insert(want.end(), ref.dims.begin() + 1, ref.dims.end());
    PartialShape merged;
    absl::Status s = c->Merge(updates, PartialShape::Known(want), &merged);
    if (!s.ok()) {
      return c->Error(absl::StrCat(
          "updates must have shape indices.shape + ref.shape[1:] = ",
          PartialShape::Known(want).DebugString(), ", got ",
          updates.DebugString()));
    }
  }
  if (c->num_outputs() > 0) c->set_output(0, ref);
  return absl::OkStatus();
}

absl::Status VariableV2Shape(InferenceContext* c) {
  TensorShapeProto shape;
  DFX_RETURN_IF_ERROR(GetNodeAttr(c->node_def(), "shape", &shape));
  c->set_output(0, PartialShape::FromProto(shape));
  return absl::OkStatus();
}

absl::Status NoOutputs(InferenceContext*) { return absl::OkStatus(); }

}  // namespace

absl::Status RegisterStateOps(OpRegistry* r) {
  // --- Resource variables.
  DFX_RETURN_IF_ERROR(r->Register(
      OpDefBuilder("VarHandleOp")
          .Output("resource: resource")
          .Attr("container: string = ''")
          .Attr("shared_name: string = ''")
          .Attr("debug_name: string = ''")
          .Attr("dtype: type")
          .Attr("shape: shape")
          .Attr("allowed_devices: list(string) = []")
          .SetIsStateful()
          .SetShapeFn(shape_fn::Scalar)));
  DFX_RETURN_IF_ERROR(r->Register(OpDefBuilder("ReadVariableOp")
                                      .Input("resource: resource")
                                      .Output("value: dtype")
                                      .Attr("dtype: type")
                                      .SetIsStateful()
                                      .SetShapeFn(shape_fn::Unknown)));
  DFX_RETURN_IF_ERROR(r->Register(OpDefBuilder("AssignVariableOp")
                                      .Input("resource: resource")
                                      .Input("value: dtype")
                                      .Attr("dtype: type")
                                      .Attr("validate_shape: bool = false")
                                      .SetIsStateful()
                                      .SetShapeFn(NoOutputs)));
  for (const char* op : {"AssignAddVariableOp", "AssignSubVariableOp"}) {
    DFX_RETURN_IF_ERROR(r->Register(OpDefBuilder(op)
                                        .Input("resource: resource")
                                        .Input("value: dtype")
                                        .Attr("dtype: type")
                                        .SetIsStateful()
                                        .SetShapeFn(NoOutputs)));
  }
  DFX_RETURN_IF_ERROR(r->Register(OpDefBuilder("VarIsInitializedOp")
                                      .Input("resource: resource")
                                      .Output("is_initialized: bool")
                                      .SetIsStateful()
                                      .SetShapeFn(shape_fn::Scalar)));
  DFX_RETURN_IF_ERROR(r->Register(
      OpDefBuilder("VariableShape")
          .Input("input: resource")
          .Output("output: out_type")
          .Attr("out_type: {int32, int64} = DT_INT32")
          .SetIsStateful()
          .SetShapeFn([](InferenceContext* c) {
            c->set_output(0, UnknownDims(1));
            return absl::OkStatus();
          })));
  DFX_RETURN_IF_ERROR(r->Register(OpDefBuilder("DestroyResourceOp")
                                      .Input("resource: resource")
                                      .Attr("ignore_lookup_error: bool = true")
                                      .SetIsStateful()
                                      .SetShapeFn(NoOutputs)));
  DFX_RETURN_IF_ERROR(r->Register(OpDefBuilder("ResourceGather")
                                      .Input("resource: resource")
                                      .Input("indices: Tindices")
                                      .Output("output: dtype")
                                      .Attr("batch_dims: int = 0")
                                      .Attr("validate_indices: bool = true")
                                      .Attr("dtype: type")
                                      .Attr(kIndices)
                                      .SetIsStateful()
                                      .SetShapeFn(shape_fn::Unknown)));
  for (const char* op :
       {"ResourceScatterAdd", "ResourceScatterSub", "ResourceScatterMul",
        "ResourceScatterDiv", "ResourceScatterMin", "ResourceScatterMax",
        "ResourceScatterUpdate"}) {
    const bool any_type = std::string(op) == "ResourceScatterUpdate";
    DFX_RETURN_IF_ERROR(r->Register(
        OpDefBuilder(op)
            .Input("resource: resource")
            .Input("indices: Tindices")
            .Input("updates: dtype")
            .Attr(any_type ? "dtype: type" : kNumberDtype)
            .Attr(kIndices)
            .SetIsStateful()
            .SetShapeFn(NoOutputs)));
  }

  // --- Reference variables. "Variable" is the old name, still in
  // TensorFlow's registry with the same signature and kernel.
  for (const char* name : {"VariableV2", "Variable"}) {
    DFX_RETURN_IF_ERROR(r->Register(OpDefBuilder(name)
                                        .Output("ref: Ref(dtype)")
                                        .Attr("shape: shape")
                                        .Attr("dtype: type")
                                        .Attr("container: string = ''")
                                        .Attr("shared_name: string = ''")
                                        .SetIsStateful()
                                        .SetShapeFn(VariableV2Shape)));
  }
  DFX_RETURN_IF_ERROR(r->Register(OpDefBuilder("Assign")
                                      .Input("ref: Ref(T)")
                                      .Input("value: T")
                                      .Output("output_ref: Ref(T)")
                                      .Attr("T: type")
                                      .Attr("validate_shape: bool = true")
                                      .Attr("use_locking: bool = true")
                                      .SetAllowsUninitializedInput()
                                      .SetShapeFn(AssignShape)));
  for (const char* op : {"AssignAdd", "AssignSub"}) {
    DFX_RETURN_IF_ERROR(r->Register(OpDefBuilder(op)
                                        .Input("ref: Ref(T)")
                                        .Input("value: T")
                                        .Output("output_ref: Ref(T)")
                                        .Attr(kNumberT)
                                        .Attr("use_locking: bool = false")
                                        .SetShapeFn(MergeRefAndValue)));
  }
  DFX_RETURN_IF_ERROR(r->Register(OpDefBuilder("IsVariableInitialized")
                                      .Input("ref: Ref(dtype)")
                                      .Output("is_initialized: bool")
                                      .Attr("dtype: type")
                                      .SetAllowsUninitializedInput()
                                      .SetShapeFn(shape_fn::Scalar)));
  DFX_RETURN_IF_ERROR(r->Register(OpDefBuilder("RefIdentity")
                                      .Input("input: Ref(T)")
                                      .Output("output: Ref(T)")
                                      .Attr("T: type")
                                      .SetAllowsUninitializedInput()
                                      .SetShapeFn(shape_fn::UnchangedShape)));
  struct ScatterSpec {
    const char* op;
    const char* type;
    const char* locking;
  };
  for (const ScatterSpec& spec : {
           ScatterSpec{"ScatterAdd", kNumberT, "use_locking: bool = false"},
           ScatterSpec{"ScatterSub", kNumberT, "use_locking: bool = false"},
           ScatterSpec{"ScatterMul", kNumberT, "use_locking: bool = false"},
           ScatterSpec{"ScatterDiv", kNumberT, "use_locking: bool = false"},
           ScatterSpec{"ScatterMin",
                       "T: {half, bfloat16, float, double, int32, int64}",
                       "use_locking: bool = false"},
           ScatterSpec{"ScatterMax",
                       "T: {half, bfloat16, float, double, int32, int64}",
                       "use_locking: bool = false"},
           ScatterSpec{"ScatterUpdate", "T: type", "use_locking: bool = true"},
       }) {
    DFX_RETURN_IF_ERROR(r->Register(OpDefBuilder(spec.op)
                                        .Input("ref: Ref(T)")
                                        .Input("indices: Tindices")
                                        .Input("updates: T")
                                        .Output("output_ref: Ref(T)")
                                        .Attr(spec.type)
                                        .Attr(kIndices)
                                        .Attr(spec.locking)
                                        .SetShapeFn(ScatterRefShape)));
  }
  return absl::OkStatus();
}

}  // namespace dfx
