// TensorList ops: the list a DT_VARIANT scalar holds (runtime/tensor_list.h),
// built, read and updated by value — every op that changes a list returns a
// new handle. Signatures follow TensorFlow 2.21's list_ops.cc. Shape
// functions give list handles as scalars and leave element shapes unknown:
// they live in the list value, which graph-time inference cannot see.
#include "base/status_macros.h"
#include "graph/ops/ops.h"

namespace dfx {
namespace {

constexpr char kShapeType[] = "shape_type: {int32, int64}";

// PopBack: the handle is output 0, the element output 1.
absl::Status PopBackShape(InferenceContext* c) {
  c->set_output(0, PartialShape::Scalar());
  c->set_output(1, PartialShape::Unknown());
  return absl::OkStatus();
}

// Concat: the tensor (rank unknown) and the lengths vector.
absl::Status ConcatShape(InferenceContext* c) {
  c->set_output(0, PartialShape::Unknown());
  c->set_output(1, PartialShape::Known({-1}));
  return absl::OkStatus();
}

}  // namespace

absl::Status RegisterListOps(OpRegistry* r) {
  DFX_RETURN_IF_ERROR(r->Register(OpDefBuilder("EmptyTensorList")
                                      .Input("element_shape: shape_type")
                                      .Input("max_num_elements: int32")
                                      .Output("handle: variant")
                                      .Attr("element_dtype: type")
                                      .Attr(kShapeType)
                                      .SetShapeFn(shape_fn::Scalar)));
  DFX_RETURN_IF_ERROR(r->Register(OpDefBuilder("TensorListReserve")
                                      .Input("element_shape: shape_type")
                                      .Input("num_elements: int32")
                                      .Output("handle: variant")
                                      .Attr("element_dtype: type")
                                      .Attr(kShapeType)
                                      .SetShapeFn(shape_fn::Scalar)));
  DFX_RETURN_IF_ERROR(r->Register(OpDefBuilder("TensorListPushBack")
                                      .Input("input_handle: variant")
                                      .Input("tensor: element_dtype")
                                      .Output("output_handle: variant")
                                      .Attr("element_dtype: type")
                                      .SetShapeFn(shape_fn::Scalar)));
  DFX_RETURN_IF_ERROR(r->Register(OpDefBuilder("TensorListPopBack")
                                      .Input("input_handle: variant")
                                      .Input("element_shape: int32")
                                      .Output("output_handle: variant")
                                      .Output("tensor: element_dtype")
                                      .Attr("element_dtype: type")
                                      .SetShapeFn(PopBackShape)));
  DFX_RETURN_IF_ERROR(r->Register(OpDefBuilder("TensorListLength")
                                      .Input("input_handle: variant")
                                      .Output("length: int32")
                                      .SetShapeFn(shape_fn::Scalar)));
  DFX_RETURN_IF_ERROR(r->Register(
      OpDefBuilder("TensorListElementShape")
          .Input("input_handle: variant")
          .Output("element_shape: shape_type")
          .Attr(kShapeType)
          .SetShapeFn(shape_fn::Unknown)));
  DFX_RETURN_IF_ERROR(r->Register(
      OpDefBuilder("TensorListGetItem")
          .Input("input_handle: variant")
          .Input("index: int32")
          .Input("element_shape: Tshape")
          .Output("item: element_dtype")
          .Attr("element_dtype: type")
          .Attr("Tshape: {int32, int64} = DT_INT32")
          .SetShapeFn(shape_fn::Unknown)));
  DFX_RETURN_IF_ERROR(r->Register(
      OpDefBuilder("TensorListSetItem")
          .Input("input_handle: variant")
          .Input("index: int32")
          .Input("item: element_dtype")
          .Output("output_handle: variant")
          .Attr("element_dtype: type")
          .Attr("resize_if_index_out_of_bounds: bool = false")
          .SetShapeFn(shape_fn::Scalar)));
  DFX_RETURN_IF_ERROR(r->Register(OpDefBuilder("TensorListStack")
                                      .Input("input_handle: variant")
                                      .Input("element_shape: int32")
                                      .Output("tensor: element_dtype")
                                      .Attr("element_dtype: type")
                                      .Attr("num_elements: int = -1")
                                      .SetShapeFn(shape_fn::Unknown)));
  DFX_RETURN_IF_ERROR(r->Register(OpDefBuilder("TensorListFromTensor")
                                      .Input("tensor: element_dtype")
                                      .Input("element_shape: shape_type")
                                      .Output("output_handle: variant")
                                      .Attr("element_dtype: type")
                                      .Attr(kShapeType)
                                      .SetShapeFn(shape_fn::Scalar)));
  DFX_RETURN_IF_ERROR(r->Register(OpDefBuilder("TensorListGather")
                                      .Input("input_handle: variant")
                                      .Input("indices: int32")
                                      .Input("element_shape: int32")
                                      .Output("values: element_dtype")
                                      .Attr("element_dtype: type")
                                      .SetShapeFn(shape_fn::Unknown)));
  DFX_RETURN_IF_ERROR(
      r->Register(OpDefBuilder("TensorListScatterIntoExistingList")
                      .Input("input_handle: variant")
                      .Input("tensor: element_dtype")
                      .Input("indices: int32")
                      .Output("output_handle: variant")
                      .Attr("element_dtype: type")
                      .SetShapeFn(shape_fn::Scalar)));
  DFX_RETURN_IF_ERROR(r->Register(OpDefBuilder("TensorListScatter")
                                      .Input("tensor: element_dtype")
                                      .Input("indices: int32")
                                      .Input("element_shape: shape_type")
                                      .Output("output_handle: variant")
                                      .Attr("element_dtype: type")
                                      .Attr(kShapeType)
                                      .SetShapeFn(shape_fn::Scalar)));
  DFX_RETURN_IF_ERROR(r->Register(OpDefBuilder("TensorListScatterV2")
                                      .Input("tensor: element_dtype")
                                      .Input("indices: int32")
                                      .Input("element_shape: shape_type")
                                      .Input("num_elements: int32")
                                      .Output("output_handle: variant")
                                      .Attr("element_dtype: type")
                                      .Attr(kShapeType)
                                      .SetShapeFn(shape_fn::Scalar)));
  DFX_RETURN_IF_ERROR(r->Register(
      OpDefBuilder("TensorListConcat")
          .Input("input_handle: variant")
          .Output("tensor: element_dtype")
          .Output("lengths: int64")
          .Attr("element_dtype: type")
          .Attr("element_shape: shape = { unknown_rank: true }")
          .SetShapeFn(ConcatShape)));
  DFX_RETURN_IF_ERROR(r->Register(OpDefBuilder("TensorListConcatV2")
                                      .Input("input_handle: variant")
                                      .Input("element_shape: shape_type")
                                      .Input("leading_dims: int64")
                                      .Output("tensor: element_dtype")
                                      .Output("lengths: int64")
                                      .Attr("element_dtype: type")
                                      .Attr(kShapeType)
                                      .SetShapeFn(ConcatShape)));
  DFX_RETURN_IF_ERROR(r->Register(OpDefBuilder("TensorListSplit")
                                      .Input("tensor: element_dtype")
                                      .Input("element_shape: shape_type")
                                      .Input("lengths: int64")
                                      .Output("output_handle: variant")
                                      .Attr("element_dtype: type")
                                      .Attr(kShapeType)
                                      .SetShapeFn(shape_fn::Scalar)));
  DFX_RETURN_IF_ERROR(r->Register(OpDefBuilder("TensorListResize")
                                      .Input("input_handle: variant")
                                      .Input("size: int32")
                                      .Output("output_handle: variant")
                                      .SetShapeFn(shape_fn::Scalar)));
  DFX_RETURN_IF_ERROR(r->Register(OpDefBuilder("TensorListConcatLists")
                                      .Input("input_a: variant")
                                      .Input("input_b: variant")
                                      .Output("output: variant")
                                      .Attr("element_dtype: type")
                                      .SetShapeFn(shape_fn::UnchangedShape)));
  return absl::OkStatus();
}

}  // namespace dfx
