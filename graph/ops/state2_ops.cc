// The state2 family: ops that update a variable or a tensor in place or
// slice by slice. Strided-slice assignment (StridedSliceAssign,
// ResourceStridedSliceAssign, TensorStridedSliceUpdate), N-d scatter into
// variables (ScatterNd{Update,Add,Sub,Max,Min}, their Resource* forms,
// ScatterNdNonAliasingAdd) and ResourceGatherNd, InplaceAdd/Sub/Update,
// CountUpTo and ResourceCountUpTo, Empty, TemporaryVariable and
// DestroyTemporaryVariable. Signatures follow TensorFlow 2.21's
// array_ops.cc, state_ops.cc and resource_variable_ops.cc.
#include <string>

#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "graph/node_def_util.h"
#include "graph/ops/ops.h"
#include "graph/ops/scatter_shape.h"

namespace dfx {
namespace {

constexpr char kIndices[] = "Tindices: {int32, int64}";
constexpr char kPolicy[] = "bad_indices_policy: string = ''";

absl::Status NoOutputs(InferenceContext*) { return absl::OkStatus(); }

// ScatterNd* into a reference or a tensor: output 0 is input 0, whose shape
// the updates must fit.
absl::Status ScatterNdUpdateShape(InferenceContext* c) {
  DFX_RETURN_IF_ERROR(
      CheckScatterShapes(c, c->input(1), c->input(2), c->input(0)));
  if (c->num_outputs() > 0) c->set_output(0, c->input(0));
  return absl::OkStatus();
}

// CountUpTo: the variable is a scalar, and so is the output.
absl::Status CountUpToShape(InferenceContext* c) {
  DFX_RETURN_IF_ERROR(c->WithRank(c->input(0), 0));
  c->set_output(0, PartialShape::Known({}));
  return absl::OkStatus();
}

// Empty: the shape tensor's value when it is a constant.
absl::Status EmptyShape(InferenceContext* c) {
  DFX_RETURN_IF_ERROR(c->WithRank(c->input(0), 1));
  std::vector<int64_t> dims;
  if (ConstantInts(c->input_tensor(0), &dims)) {
    for (int64_t d : dims) {
      if (d < 0) {
        return c->Error(absl::StrCat("Dimension ", d, " must be >= 0"));
      }
    }
    c->set_output(0, PartialShape::Known(std::move(dims)));
  } else if (c->input(0).RankKnown() && c->input(0).dims[0] >= 0) {
    c->set_output(0, UnknownDims(static_cast<int>(c->input(0).dims[0])));
  } else {
    c->set_output(0, PartialShape::Unknown());
  }
  return absl::OkStatus();
}

absl::Status ShapeFromAttr(InferenceContext* c) {
  TensorShapeProto shape;
  DFX_RETURN_IF_ERROR(GetNodeAttr(c->node_def(), "shape", &shape));
  c->set_output(0, PartialShape::FromProto(shape));
  return absl::OkStatus();
}

// The attrs StridedSliceAssign and its two siblings share.
OpDefBuilder StridedSliceAttrs(OpDefBuilder b) {
  b.Attr("T: type")
      .Attr("Index: {int32, int64}")
      .Attr("begin_mask: int = 0")
      .Attr("end_mask: int = 0")
      .Attr("ellipsis_mask: int = 0")
      .Attr("new_axis_mask: int = 0")
      .Attr("shrink_axis_mask: int = 0");
  return b;
}

}  // namespace

absl::Status RegisterState2Ops(OpRegistry* r) {
  // --- Strided-slice assignment.
  DFX_RETURN_IF_ERROR(
      r->Register(StridedSliceAttrs(OpDefBuilder("StridedSliceAssign")
                                        .Input("ref: Ref(T)")
                                        .Input("begin: Index")
                                        .Input("end: Index")
                                        .Input("strides: Index")
                                        .Input("value: T")
                                        .Output("output_ref: Ref(T)"))
                      .SetShapeFn(shape_fn::UnchangedShape)));
  DFX_RETURN_IF_ERROR(
      r->Register(StridedSliceAttrs(OpDefBuilder("ResourceStridedSliceAssign")
                                        .Input("ref: resource")
                                        .Input("begin: Index")
                                        .Input("end: Index")
                                        .Input("strides: Index")
                                        .Input("value: T"))
                      .SetIsStateful()
                      .SetShapeFn(NoOutputs)));
  DFX_RETURN_IF_ERROR(
      r->Register(StridedSliceAttrs(OpDefBuilder("TensorStridedSliceUpdate")
                                        .Input("input: T")
                                        .Input("begin: Index")
                                        .Input("end: Index")
                                        .Input("strides: Index")
                                        .Input("value: T")
                                        .Output("output: T"))
                      .SetShapeFn(shape_fn::UnchangedShape)));

  // --- N-d scatter into variables, and ResourceGatherNd.
  for (const char* op : {"ScatterNdUpdate", "ScatterNdAdd", "ScatterNdSub",
                         "ScatterNdMax", "ScatterNdMin"}) {
    const bool update = std::string(op) == "ScatterNdUpdate";
    DFX_RETURN_IF_ERROR(
        r->Register(OpDefBuilder(op)
                        .Input("ref: Ref(T)")
                        .Input("indices: Tindices")
                        .Input("updates: T")
                        .Output("output_ref: Ref(T)")
                        .Attr(update ? "T: type" : "T: numbertype")
                        .Attr(kIndices)
                        .Attr(update ? "use_locking: bool = true"
                                     : "use_locking: bool = false")
                        .Attr(kPolicy)
                        .SetShapeFn(ScatterNdUpdateShape)));
  }
  for (const char* op : {"ResourceScatterNdUpdate", "ResourceScatterNdAdd",
                         "ResourceScatterNdSub", "ResourceScatterNdMax",
                         "ResourceScatterNdMin"}) {
    DFX_RETURN_IF_ERROR(r->Register(OpDefBuilder(op)
                                        .Input("ref: resource")
                                        .Input("indices: Tindices")
                                        .Input("updates: T")
                                        .Attr("T: type")
                                        .Attr(kIndices)
                                        .Attr("use_locking: bool = true")
                                        .Attr(kPolicy)
                                        .SetIsStateful()
                                        .SetShapeFn(NoOutputs)));
  }
  DFX_RETURN_IF_ERROR(r->Register(
      OpDefBuilder("ScatterNdNonAliasingAdd")
          .Input("input: T")
          .Input("indices: Tindices")
          .Input("updates: T")
          .Output("output: T")
          .Attr("T: {float, double, int32, uint8, int16, int8, complex64, "
                "int64, qint8, quint8, qint32, bfloat16, qint16, quint16, "
                "uint16, complex128, half, uint32, uint64, bool}")
          .Attr(kIndices)
          .Attr(kPolicy)
          .SetShapeFn(ScatterNdUpdateShape)));
  DFX_RETURN_IF_ERROR(r->Register(OpDefBuilder("ResourceGatherNd")
                                      .Input("resource: resource")
                                      .Input("indices: Tindices")
                                      .Output("output: dtype")
                                      .Attr("dtype: type")
                                      .Attr(kIndices)
                                      .SetIsStateful()
                                      .SetShapeFn(shape_fn::Unknown)));

  // --- Rows updated in place, counters, uninitialized tensors.
  for (const char* op : {"InplaceUpdate", "InplaceAdd", "InplaceSub"}) {
    DFX_RETURN_IF_ERROR(r->Register(OpDefBuilder(op)
                                        .Input("x: T")
                                        .Input("i: int32")
                                        .Input("v: T")
                                        .Output("y: T")
                                        .Attr("T: type")
                                        .SetShapeFn(shape_fn::UnchangedShape)));
  }
  DFX_RETURN_IF_ERROR(r->Register(OpDefBuilder("CountUpTo")
                                      .Input("ref: Ref(T)")
                                      .Output("output: T")
                                      .Attr("limit: int")
                                      .Attr("T: {int32, int64}")
                                      .SetShapeFn(CountUpToShape)));
  DFX_RETURN_IF_ERROR(r->Register(OpDefBuilder("ResourceCountUpTo")
                                      .Input("resource: resource")
                                      .Output("output: T")
                                      .Attr("limit: int")
                                      .Attr("T: {int32, int64}")
                                      .SetIsStateful()
                                      .SetShapeFn(shape_fn::Scalar)));
  DFX_RETURN_IF_ERROR(r->Register(OpDefBuilder("Empty")
                                      .Input("shape: int32")
                                      .Output("output: dtype")
                                      .Attr("dtype: type")
                                      .Attr("init: bool = false")
                                      .SetIsStateful()
                                      .SetShapeFn(EmptyShape)));
  DFX_RETURN_IF_ERROR(r->Register(OpDefBuilder("TemporaryVariable")
                                      .Output("ref: Ref(dtype)")
                                      .Attr("shape: shape")
                                      .Attr("dtype: type")
                                      .Attr("var_name: string = ''")
                                      .SetIsStateful()
                                      .SetShapeFn(ShapeFromAttr)));
  DFX_RETURN_IF_ERROR(r->Register(OpDefBuilder("DestroyTemporaryVariable")
                                      .Input("ref: Ref(T)")
                                      .Output("value: T")
                                      .Attr("T: type")
                                      .Attr("var_name: string")
                                      .SetShapeFn(shape_fn::UnchangedShape)));
  return absl::OkStatus();
}

}  // namespace dfx
