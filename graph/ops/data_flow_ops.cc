// Data-flow ops: TF1 stacks (StackV2, StackPushV2, StackPopV2, StackCloseV2),
// which tf.gradients uses to keep forward values of a while_loop for its
// backward loop, and the TensorArrayV3 family, which dynamic_rnn and
// tf.TensorArray (control flow v1) use. Signatures follow TensorFlow 2.21's
// data_flow_ops.cc; every one is stateful, as TensorFlow 2.21 marks them.
//
// Shape functions follow TensorFlow's, with one difference: TensorFlow still
// types a TensorArray or stack handle as a vector of two strings in its
// shape functions (the V1 handle); dfx's handles are scalars at run time, so
// a handle input may be a scalar or a 2-vector. Outputs say [2], as
// TensorFlow's do, so inferred shapes equal TensorFlow's. dfx does not
// propagate handle shapes, so a read's shape is unknown until it runs.
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "graph/node_def_util.h"
#include "graph/ops/ops.h"

namespace dfx {
namespace {

// A TensorArray or stack handle: a scalar (dfx) or TensorFlow's [2].
absl::Status CheckHandle(InferenceContext* c, int i) {
  const PartialShape& h = c->input(i);
  if (!h.RankKnown() || h.rank() == 0) return absl::OkStatus();
  if (h.rank() == 1 && (h.dims[0] < 0 || h.dims[0] == 2)) {
    return absl::OkStatus();
  }
  return c->Error(absl::StrCat("input ", i,
                               " must be a handle (a scalar or TensorFlow's "
                               "2-vector), but has shape ",
                               h.DebugString()));
}

PartialShape HandleShape() { return PartialShape::Known({2}); }

// The attr `name` (a shape) as a PartialShape.
absl::Status ShapeAttr(InferenceContext* c, const char* name,
                       PartialShape* out) {
  TensorShapeProto proto;
  DFX_RETURN_IF_ERROR(GetNodeAttr(c->node_def(), name, &proto));
  *out = PartialShape::FromProto(proto);
  return absl::OkStatus();
}

absl::Status StackV2Shape(InferenceContext* c) {
  c->set_output(0, HandleShape());
  return absl::OkStatus();
}

absl::Status StackPushV2Shape(InferenceContext* c) {
  DFX_RETURN_IF_ERROR(CheckHandle(c, 0));
  c->set_output(0, c->input(1));
  return absl::OkStatus();
}

absl::Status HandleOnly(InferenceContext* c) {
  DFX_RETURN_IF_ERROR(CheckHandle(c, 0));
  for (int i = 0; i < c->num_outputs(); ++i) {
    c->set_output(i, PartialShape::Unknown());
  }
  return absl::OkStatus();
}

absl::Status TensorArrayV3Shape(InferenceContext* c) {
  DFX_RETURN_IF_ERROR(c->WithRank(c->input(0), 0));
  c->set_output(0, HandleShape());
  c->set_output(1, PartialShape::Scalar());
  return absl::OkStatus();
}

absl::Status TensorArrayGradShape(InferenceContext* c) {
  DFX_RETURN_IF_ERROR(CheckHandle(c, 0));
  DFX_RETURN_IF_ERROR(c->WithRank(c->input(1), 0));
  if (c->num_inputs() > 2) DFX_RETURN_IF_ERROR(c->WithRank(c->input(2), 1));
  c->set_output(0, HandleShape());
  c->set_output(1, PartialShape::Scalar());
  return absl::OkStatus();
}

absl::Status TensorArrayWriteShape(InferenceContext* c) {
  DFX_RETURN_IF_ERROR(CheckHandle(c, 0));
  DFX_RETURN_IF_ERROR(c->WithRank(c->input(1), 0));
  DFX_RETURN_IF_ERROR(c->WithRank(c->input(3), 0));
  c->set_output(0, PartialShape::Scalar());
  return absl::OkStatus();
}

absl::Status TensorArrayReadShape(InferenceContext* c) {
  DFX_RETURN_IF_ERROR(CheckHandle(c, 0));
  DFX_RETURN_IF_ERROR(c->WithRank(c->input(1), 0));
  DFX_RETURN_IF_ERROR(c->WithRank(c->input(2), 0));
  c->set_output(0, PartialShape::Unknown());
  return absl::OkStatus();
}

// [len(indices)] + element_shape.
absl::Status TensorArrayGatherShape(InferenceContext* c) {
  DFX_RETURN_IF_ERROR(CheckHandle(c, 0));
  DFX_RETURN_IF_ERROR(c->WithRank(c->input(1), 1));
  DFX_RETURN_IF_ERROR(c->WithRank(c->input(2), 0));
  PartialShape element;
  DFX_RETURN_IF_ERROR(ShapeAttr(c, "element_shape", &element));
  if (!element.RankKnown()) {
    c->set_output(0, PartialShape::Unknown());
    return absl::OkStatus();
  }
  const int64_t n = c->input(1).RankKnown() ? c->input(1).dims[0] : -1;
  PartialShape out = PartialShape::Known({n});
  out.dims.insert(out.dims.end(), element.dims.begin(), element.dims.end());
  c->set_output(0, std::move(out));
  return absl::OkStatus();
}

// value.shape[0] must equal len(indices).
absl::Status TensorArrayScatterShape(InferenceContext* c) {
  DFX_RETURN_IF_ERROR(CheckHandle(c, 0));
  DFX_RETURN_IF_ERROR(c->WithRank(c->input(1), 1));
  DFX_RETURN_IF_ERROR(c->WithRank(c->input(3), 0));
  const PartialShape& indices = c->input(1);
  const PartialShape& value = c->input(2);
  if (value.RankKnown()) {
    if (value.rank() == 0) {
      return c->Error("value must be at least a vector, but is a scalar");
    }
    if (indices.RankKnown()) {
      int64_t unused = 0;
      DFX_RETURN_IF_ERROR(c->MergeDim(value.dims[0], indices.dims[0], &unused));
    }
  }
  c->set_output(0, PartialShape::Scalar());
  return absl::OkStatus();
}

absl::Status TensorArrayConcatShape(InferenceContext* c) {
  DFX_RETURN_IF_ERROR(CheckHandle(c, 0));
  DFX_RETURN_IF_ERROR(c->WithRank(c->input(1), 0));
  c->set_output(0, PartialShape::Unknown());
  c->set_output(1, UnknownDims(1));
  return absl::OkStatus();
}

absl::Status TensorArraySplitShape(InferenceContext* c) {
  DFX_RETURN_IF_ERROR(CheckHandle(c, 0));
  DFX_RETURN_IF_ERROR(c->WithRank(c->input(2), 1));
  DFX_RETURN_IF_ERROR(c->WithRank(c->input(3), 0));
  c->set_output(0, PartialShape::Scalar());
  return absl::OkStatus();
}

absl::Status TensorArraySizeShape(InferenceContext* c) {
  DFX_RETURN_IF_ERROR(CheckHandle(c, 0));
  DFX_RETURN_IF_ERROR(c->WithRank(c->input(1), 0));
  c->set_output(0, PartialShape::Scalar());
  return absl::OkStatus();
}

}  // namespace

absl::Status RegisterDataFlowOps(OpRegistry* r) {
  // --- Stacks.
  DFX_RETURN_IF_ERROR(r->Register(OpDefBuilder("StackV2")
                                      .Input("max_size: int32")
                                      .Output("handle: resource")
                                      .Attr("elem_type: type")
                                      .Attr("stack_name: string = ''")
                                      .SetIsStateful()
                                      .SetShapeFn(StackV2Shape)));
  DFX_RETURN_IF_ERROR(r->Register(OpDefBuilder("StackPushV2")
                                      .Input("handle: resource")
                                      .Input("elem: T")
                                      .Output("output: T")
                                      .Attr("T: type")
                                      .Attr("swap_memory: bool = false")
                                      .SetIsStateful()
                                      .SetShapeFn(StackPushV2Shape)));
  DFX_RETURN_IF_ERROR(r->Register(OpDefBuilder("StackPopV2")
                                      .Input("handle: resource")
                                      .Output("elem: elem_type")
                                      .Attr("elem_type: type")
                                      .SetIsStateful()
                                      .SetShapeFn(HandleOnly)));
  DFX_RETURN_IF_ERROR(r->Register(OpDefBuilder("StackCloseV2")
                                      .Input("handle: resource")
                                      .SetIsStateful()
                                      .SetShapeFn(HandleOnly)));

  // --- TensorArrays.
  DFX_RETURN_IF_ERROR(r->Register(
      OpDefBuilder("TensorArrayV3")
          .Input("size: int32")
          .Output("handle: resource")
          .Output("flow: float")
          .Attr("dtype: type")
          .Attr("element_shape: shape = { unknown_rank: true }")
          .Attr("dynamic_size: bool = false")
          .Attr("clear_after_read: bool = true")
          .Attr("identical_element_shapes: bool = false")
          .Attr("tensor_array_name: string = ''")
          .SetIsStateful()
          .SetShapeFn(TensorArrayV3Shape)));
  DFX_RETURN_IF_ERROR(r->Register(OpDefBuilder("TensorArrayGradV3")
                                      .Input("handle: resource")
                                      .Input("flow_in: float")
                                      .Output("grad_handle: resource")
                                      .Output("flow_out: float")
                                      .Attr("source: string")
                                      .SetIsStateful()
                                      .SetShapeFn(TensorArrayGradShape)));
  DFX_RETURN_IF_ERROR(r->Register(OpDefBuilder("TensorArrayGradWithShape")
                                      .Input("handle: resource")
                                      .Input("flow_in: float")
                                      .Input("shape_to_prepend: int32")
                                      .Output("grad_handle: resource")
                                      .Output("flow_out: float")
                                      .Attr("source: string")
                                      .SetIsStateful()
                                      .SetShapeFn(TensorArrayGradShape)));
  DFX_RETURN_IF_ERROR(r->Register(OpDefBuilder("TensorArrayWriteV3")
                                      .Input("handle: resource")
                                      .Input("index: int32")
                                      .Input("value: T")
                                      .Input("flow_in: float")
                                      .Output("flow_out: float")
                                      .Attr("T: type")
                                      .SetIsStateful()
                                      .SetShapeFn(TensorArrayWriteShape)));
  DFX_RETURN_IF_ERROR(r->Register(OpDefBuilder("TensorArrayReadV3")
                                      .Input("handle: resource")
                                      .Input("index: int32")
                                      .Input("flow_in: float")
                                      .Output("value: dtype")
                                      .Attr("dtype: type")
                                      .SetIsStateful()
                                      .SetShapeFn(TensorArrayReadShape)));
  DFX_RETURN_IF_ERROR(r->Register(
      OpDefBuilder("TensorArrayGatherV3")
          .Input("handle: resource")
          .Input("indices: int32")
          .Input("flow_in: float")
          .Output("value: dtype")
          .Attr("dtype: type")
          .Attr("element_shape: shape = { unknown_rank: true }")
          .SetIsStateful()
          .SetShapeFn(TensorArrayGatherShape)));
  DFX_RETURN_IF_ERROR(r->Register(OpDefBuilder("TensorArrayScatterV3")
                                      .Input("handle: resource")
                                      .Input("indices: int32")
                                      .Input("value: T")
                                      .Input("flow_in: float")
                                      .Output("flow_out: float")
                                      .Attr("T: type")
                                      .SetIsStateful()
                                      .SetShapeFn(TensorArrayScatterShape)));
  DFX_RETURN_IF_ERROR(r->Register(
      OpDefBuilder("TensorArrayConcatV3")
          .Input("handle: resource")
          .Input("flow_in: float")
          .Output("value: dtype")
          .Output("lengths: int64")
          .Attr("dtype: type")
          .Attr("element_shape_except0: shape = { unknown_rank: true }")
          .SetIsStateful()
          .SetShapeFn(TensorArrayConcatShape)));
  DFX_RETURN_IF_ERROR(r->Register(OpDefBuilder("TensorArraySplitV3")
                                      .Input("handle: resource")
                                      .Input("value: T")
                                      .Input("lengths: int64")
                                      .Input("flow_in: float")
                                      .Output("flow_out: float")
                                      .Attr("T: type")
                                      .SetIsStateful()
                                      .SetShapeFn(TensorArraySplitShape)));
  DFX_RETURN_IF_ERROR(r->Register(OpDefBuilder("TensorArraySizeV3")
                                      .Input("handle: resource")
                                      .Input("flow_in: float")
                                      .Output("size: int32")
                                      .SetIsStateful()
                                      .SetShapeFn(TensorArraySizeShape)));
  DFX_RETURN_IF_ERROR(r->Register(OpDefBuilder("TensorArrayCloseV3")
                                      .Input("handle: resource")
                                      .SetIsStateful()
                                      .SetShapeFn(HandleOnly)));
  return absl::OkStatus();
}

}  // namespace dfx
