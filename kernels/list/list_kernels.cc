// TensorList kernels (CPU, every element dtype a tensor holds): building a
// list (EmptyTensorList, Reserve, FromTensor, Scatter, Split), reading it
// (Length, ElementShape, GetItem, Stack, Gather, Concat) and deriving a new
// list from one (PushBack, PopBack, SetItem, ScatterIntoExistingList,
// Resize, ConcatLists). Semantics and error codes are TensorFlow 2.21's,
// checked against it by tests/golden/gen_list.py; where TensorFlow reads
// out of bounds or builds a list whose elements do not fit its element
// shape (a negative scatter index, a split piece against a fixed first
// dim), dfx returns InvalidArgument instead.
//
// A list value is never changed once a variant holds it: an op that derives
// a list builds a new value, taking the input's over when nothing else can
// see it (TakeOrCopyList), so a loop that pushes n times copies no element
// and does O(n) work in all.
#include <algorithm>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "kernels/kernels.h"
#include "kernels/list/list_util.h"

namespace dfx::list_internal {
namespace {

// Base of the kernels with an element_dtype attr.
class ListOpKernel : public OpKernel {
 public:
  explicit ListOpKernel(OpKernelConstruction* ctx) : OpKernel(ctx) {
    ctx->SetStatus(ctx->GetAttr("element_dtype", &element_dtype_));
  }

 protected:
  DataType element_dtype_ = DT_INVALID;
};

// Sets output `index` to the tensor stacking `elements` (nullptr for an
// unset one, read as zeros) along a new first dim, each of `element_shape`.
absl::Status StackElements(OpKernelContext* ctx, int index,
                           const std::vector<const Tensor*>& elements,
                           const TensorShape& element_shape) {
  DFX_ASSIGN_OR_RETURN(
      TensorShape shape,
      PrependDim(static_cast<int64_t>(elements.size()), element_shape));
  Tensor* out = nullptr;
  DFX_RETURN_IF_ERROR(ctx->allocate_output(index, shape, &out));
  const int64_t n = element_shape.num_elements();
  for (size_t i = 0; i < elements.size(); ++i) {
    const Tensor* t = elements[i];
    if (t == nullptr) {
      ZeroElements(out, static_cast<int64_t>(i) * n, n);
      continue;
    }
    if (t->shape() != element_shape) {
      return absl::InvalidArgumentError(absl::StrCat(
          "list element ", i, " has shape ", t->shape().DebugString(),
          ", expected ", element_shape.DebugString()));
    }
    CopyElements(*t, 0, out, static_cast<int64_t>(i) * n, n);
  }
  return absl::OkStatus();
}

// `shape` merged with the shape of every set element among `indices` of
// `list` (all of them when `indices` is null), unless the list's own
// element shape is fully defined (then every element has it).
absl::StatusOr<PartialShape> MergeWithElements(
    const TensorList& list, PartialShape shape,
    const std::vector<int32_t>* indices) {
  if (list.element_shape.FullyDefined()) return shape;
  auto merge = [&](const Tensor& t) -> absl::Status {
    if (!TensorList::IsSet(t)) return absl::OkStatus();
    DFX_ASSIGN_OR_RETURN(shape, MergeShapes(shape, ToPartialShape(t.shape())));
    return absl::OkStatus();
  };
  if (indices == nullptr) {
    for (const Tensor& t : list.tensors) DFX_RETURN_IF_ERROR(merge(t));
  } else {
    for (int32_t i : *indices) DFX_RETURN_IF_ERROR(merge(list.tensors[i]));
  }
  return shape;
}

// t.shape[1:] as a partial shape. REQUIRES: t.dims() >= 1.
PartialShape ShapeWithoutFirstDim(const TensorShape& shape) {
  std::vector<int64_t> dims(shape.dim_sizes().begin() + 1,
                            shape.dim_sizes().end());
  return PartialShape::Known(std::move(dims));
}

// shape[1:], unknown when the rank is. REQUIRES: rank unknown or >= 1.
PartialShape DropFirstDim(const PartialShape& shape) {
  if (shape.unknown_rank) return shape;
  return PartialShape::Known(
      std::vector<int64_t>(shape.dims.begin() + 1, shape.dims.end()));
}

// True when shape[1:] is `rest`. REQUIRES: shape.dims() >= 1.
bool SameRowShape(const TensorShape& shape, const TensorShape& rest) {
  if (shape.dims() != rest.dims() + 1) return false;
  for (int i = 0; i < rest.dims(); ++i) {
    if (shape.dim_size(i + 1) != rest.dim_size(i)) return false;
  }
  return true;
}

absl::Status RequireVectorOrHigher(const Tensor& t) {
  if (t.dims() >= 1) return absl::OkStatus();
  return absl::InvalidArgumentError(
      absl::StrCat("Tensor must be at least a vector, but saw shape: ",
                   t.shape().DebugString()));
}

// The int32 values of `indices`.
std::vector<int32_t> ReadIndices(const Tensor& indices) {
  return std::vector<int32_t>(indices.data<int32_t>(),
                              indices.data<int32_t>() + indices.NumElements());
}

// Sets list elements indices[k] to rows k of `value`.
absl::Status ScatterRows(OpKernelContext* ctx, const Tensor& value,
                         const std::vector<int32_t>& indices,
                         TensorList* list) {
  for (size_t k = 0; k < indices.size(); ++k) {
    DFX_ASSIGN_OR_RETURN(
        list->tensors[indices[k]],
        CopyRows(ctx, value, static_cast<int64_t>(k), 1, /*drop_dim=*/true));
  }
  return absl::OkStatus();
}

class EmptyTensorListOp : public ListOpKernel {
 public:
  explicit EmptyTensorListOp(OpKernelConstruction* ctx) : ListOpKernel(ctx) {
    set_expensive(false);
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& max_t = ctx->input(1);
    DFX_OP_REQUIRES(
        ctx, max_t.dims() == 0,
        absl::InvalidArgumentError(absl::StrCat(
            "max_num_elements expected to be a scalar but got shape: ",
            max_t.shape().DebugString())));
    absl::StatusOr<PartialShape> shape = PartialShapeFromTensor(ctx->input(0));
    DFX_OP_REQUIRES_OK(ctx, shape.status());
    DFX_OP_REQUIRES_OK(
        ctx, SetOutputList(ctx, 0,
                           TensorList(element_dtype_, *std::move(shape),
                                      max_t.scalar<int32_t>())));
  }
};

class TensorListReserveOp : public ListOpKernel {
 public:
  explicit TensorListReserveOp(OpKernelConstruction* ctx)
      : ListOpKernel(ctx) {}

  void Compute(OpKernelContext* ctx) override {
    absl::StatusOr<PartialShape> shape = PartialShapeFromTensor(ctx->input(0));
    DFX_OP_REQUIRES_OK(ctx, shape.status());
    absl::StatusOr<int32_t> n = ReadInt32Scalar(ctx->input(1), "num_elements");
    DFX_OP_REQUIRES_OK(ctx, n.status());
    DFX_OP_REQUIRES(
        ctx, *n >= 0,
        absl::InvalidArgumentError(absl::StrCat(
            "The num_elements to reserve must be a non negative number, but "
            "got ",
            *n)));
    DFX_OP_REQUIRES_OK(ctx, CheckListLength(*n));
    TensorList list(element_dtype_, *std::move(shape));
    list.tensors.resize(static_cast<size_t>(*n));
    DFX_OP_REQUIRES_OK(ctx, SetOutputList(ctx, 0, std::move(list)));
  }
};

class TensorListPushBackOp : public ListOpKernel {
 public:
  explicit TensorListPushBackOp(OpKernelConstruction* ctx)
      : ListOpKernel(ctx) {
    set_expensive(false);
  }

  void Compute(OpKernelContext* ctx) override {
    absl::StatusOr<const TensorList*> l = GetInputList(ctx, 0);
    DFX_OP_REQUIRES_OK(ctx, l.status());
    const TensorList& list = **l;
    const Tensor& item = ctx->input(1);
    DFX_OP_REQUIRES_OK(ctx, CheckListDtype(element_dtype_, list));
    DFX_OP_REQUIRES(
        ctx, ShapesCompatible(list.element_shape, item.shape()),
        absl::InvalidArgumentError(absl::StrCat(
            "Tried to append a tensor with incompatible shape to a list. Op "
            "element shape: ",
            item.shape().DebugString(),
            " list shape: ", list.element_shape.DebugString())));
    if (list.max_num_elements != -1) {
      DFX_OP_REQUIRES(
          ctx,
          static_cast<int64_t>(list.tensors.size()) < list.max_num_elements,
          absl::InvalidArgumentError(absl::StrCat(
              "Tried to push item into a full list list size: ",
              list.tensors.size(),
              " max_num_elements: ", list.max_num_elements)));
    }
    DFX_OP_REQUIRES_OK(
        ctx, CheckListLength(static_cast<int64_t>(list.tensors.size()) + 1));
    TensorList out = TakeOrCopyList(ctx, 0, list);
    out.tensors.push_back(item);
    DFX_OP_REQUIRES_OK(ctx, SetOutputList(ctx, 0, std::move(out)));
  }
};

class TensorListPopBackOp : public ListOpKernel {
 public:
  explicit TensorListPopBackOp(OpKernelConstruction* ctx)
      : ListOpKernel(ctx) {
    set_expensive(false);
  }

  void Compute(OpKernelContext* ctx) override {
    absl::StatusOr<const TensorList*> l = GetInputList(ctx, 0);
    DFX_OP_REQUIRES_OK(ctx, l.status());
    const TensorList& list = **l;
    DFX_OP_REQUIRES_OK(ctx, CheckListDtype(element_dtype_, list));
    DFX_OP_REQUIRES(
        ctx, !list.tensors.empty(),
        absl::InvalidArgumentError("Trying to pop from an empty list."));
    Tensor item = list.tensors.back();
    if (!TensorList::IsSet(item)) {
      absl::StatusOr<PartialShape> shape =
          ElementShapeFromInput(ctx, list, 1);
      DFX_OP_REQUIRES_OK(ctx, shape.status());
      TensorShape element_shape;
      DFX_OP_REQUIRES(
          ctx, ToTensorShape(*shape, &element_shape),
          absl::InvalidArgumentError(absl::StrCat(
              "Trying to read an uninitialized tensor but element_shape is "
              "not fully defined: ",
              shape->DebugString())));
      absl::StatusOr<Tensor> zeros =
          ZerosTensor(ctx, element_dtype_, element_shape);
      DFX_OP_REQUIRES_OK(ctx, zeros.status());
      item = *std::move(zeros);
    }
    TensorList out = TakeOrCopyList(ctx, 0, list);
    out.tensors.pop_back();
    DFX_OP_REQUIRES_OK(ctx, SetOutputList(ctx, 0, std::move(out)));
    ctx->set_output(1, std::move(item));
  }
};

class TensorListLengthOp : public OpKernel {
 public:
  explicit TensorListLengthOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    set_expensive(false);
  }

  void Compute(OpKernelContext* ctx) override {
    absl::StatusOr<const TensorList*> l = GetInputList(ctx, 0);
    DFX_OP_REQUIRES_OK(ctx, l.status());
    Tensor* out = nullptr;
    DFX_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, TensorShape(), &out));
    out->scalar<int32_t>() = static_cast<int32_t>((*l)->tensors.size());
  }
};

class TensorListElementShapeOp : public OpKernel {
 public:
  explicit TensorListElementShapeOp(OpKernelConstruction* ctx)
      : OpKernel(ctx) {
    set_expensive(false);
  }

  void Compute(OpKernelContext* ctx) override {
    absl::StatusOr<const TensorList*> l = GetInputList(ctx, 0);
    DFX_OP_REQUIRES_OK(ctx, l.status());
    const PartialShape& shape = (*l)->element_shape;
    std::vector<int64_t> values;
    TensorShape out_shape;
    if (shape.unknown_rank) {
      values.push_back(-1);
    } else {
      values = shape.dims;
      out_shape = TensorShape({static_cast<int64_t>(values.size())});
    }
    Tensor* out = nullptr;
    DFX_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, out_shape, &out));
    for (size_t i = 0; i < values.size(); ++i) {
      if (out->dtype() == DT_INT32) {
        out->data<int32_t>()[i] = static_cast<int32_t>(values[i]);
      } else {
        out->data<int64_t>()[i] = values[i];
      }
    }
  }
};

class TensorListGetItemOp : public ListOpKernel {
 public:
  explicit TensorListGetItemOp(OpKernelConstruction* ctx)
      : ListOpKernel(ctx) {
    set_expensive(false);
  }

  void Compute(OpKernelContext* ctx) override {
    absl::StatusOr<const TensorList*> l = GetInputList(ctx, 0);
    DFX_OP_REQUIRES_OK(ctx, l.status());
    const TensorList& list = **l;
    DFX_OP_REQUIRES_OK(ctx, CheckListDtype(element_dtype_, list));
    absl::StatusOr<int32_t> index = ReadInt32Scalar(ctx->input(1), "index");
    DFX_OP_REQUIRES_OK(ctx, index.status());
    DFX_OP_REQUIRES(
        ctx,
        *index >= 0 && static_cast<size_t>(*index) < list.tensors.size(),
        absl::InvalidArgumentError(absl::StrCat(
            "Trying to access element ", *index, " in a list with ",
            list.tensors.size(), " elements.")));
    const Tensor& item = list.tensors[*index];
    if (TensorList::IsSet(item)) {
      ctx->set_output(0, item);
      return;
    }
    absl::StatusOr<PartialShape> shape = ElementShapeFromInput(ctx, list, 2);
    DFX_OP_REQUIRES_OK(ctx, shape.status());
    if (!shape->FullyDefined()) {
      shape = MergeWithElements(list, *std::move(shape), nullptr);
      DFX_OP_REQUIRES_OK(ctx, shape.status());
    }
    TensorShape element_shape;
    DFX_OP_REQUIRES(
        ctx, ToTensorShape(*shape, &element_shape),
        absl::InvalidArgumentError(absl::StrCat(
            "Trying to read an uninitialized tensor but element_shape is not "
            "fully defined: ",
            shape->DebugString(), " and no list element is set.")));
    Tensor* out = nullptr;
    DFX_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, element_shape, &out));
    ZeroElements(out, 0, out->NumElements());
  }
};

class TensorListSetItemOp : public ListOpKernel {
 public:
  explicit TensorListSetItemOp(OpKernelConstruction* ctx) : ListOpKernel(ctx) {
    set_expensive(false);
    bool resize = false;
    if (ctx->GetAttr("resize_if_index_out_of_bounds", &resize).ok()) {
      resize_ = resize;
    }
  }

  void Compute(OpKernelContext* ctx) override {
    absl::StatusOr<const TensorList*> l = GetInputList(ctx, 0);
    DFX_OP_REQUIRES_OK(ctx, l.status());
    const TensorList& list = **l;
    DFX_OP_REQUIRES_OK(ctx, CheckListDtype(element_dtype_, list));
    absl::StatusOr<int32_t> index = ReadInt32Scalar(ctx->input(1), "index");
    DFX_OP_REQUIRES_OK(ctx, index.status());
    const Tensor& item = ctx->input(2);
    int64_t size = static_cast<int64_t>(list.tensors.size());
    if (resize_ && *index >= size) {
      size = static_cast<int64_t>(*index) + 1;
      DFX_OP_REQUIRES_OK(ctx, CheckListLength(size));
    }
    DFX_OP_REQUIRES(
        ctx, *index >= 0 && *index < size,
        absl::InvalidArgumentError(absl::StrCat(
            "Trying to modify element ", *index, " in a list with ",
            list.tensors.size(), " elements.")));
    DFX_OP_REQUIRES(
        ctx, ShapesCompatible(list.element_shape, item.shape()),
        absl::InvalidArgumentError(absl::StrCat(
            "Tried to set a tensor with incompatible shape at a list index. "
            "Item element shape: ",
            item.shape().DebugString(),
            " list shape: ", list.element_shape.DebugString())));
    TensorList out = TakeOrCopyList(ctx, 0, list);
    out.tensors.resize(static_cast<size_t>(size));
    out.tensors[*index] = item;
    DFX_OP_REQUIRES_OK(ctx, SetOutputList(ctx, 0, std::move(out)));
  }

 private:
  bool resize_ = false;
};

class TensorListStackOp : public ListOpKernel {
 public:
  explicit TensorListStackOp(OpKernelConstruction* ctx) : ListOpKernel(ctx) {
    int64_t n = -1;
    ctx->SetStatus(ctx->GetAttr("num_elements", &n));
    num_elements_ = n;
  }

  void Compute(OpKernelContext* ctx) override {
    absl::StatusOr<const TensorList*> l = GetInputList(ctx, 0);
    DFX_OP_REQUIRES_OK(ctx, l.status());
    const TensorList& list = **l;
    DFX_OP_REQUIRES_OK(ctx, CheckListDtype(element_dtype_, list));
    if (num_elements_ != -1) {
      DFX_OP_REQUIRES(
          ctx, static_cast<int64_t>(list.tensors.size()) == num_elements_,
          absl::InvalidArgumentError(absl::StrCat(
              "Operation expected a list with ", num_elements_,
              " elements but got a list with ", list.tensors.size(),
              " elements.")));
    }
    absl::StatusOr<PartialShape> shape = ElementShapeFromInput(ctx, list, 1);
    DFX_OP_REQUIRES_OK(ctx, shape.status());
    DFX_OP_REQUIRES(
        ctx, shape->FullyDefined() || !list.tensors.empty(),
        absl::InvalidArgumentError(absl::StrCat(
            "Tried to stack elements of an empty list with non-fully-defined "
            "element_shape: ",
            shape->DebugString())));
    shape = MergeWithElements(list, *std::move(shape), nullptr);
    DFX_OP_REQUIRES_OK(ctx, shape.status());
    TensorShape element_shape;
    DFX_OP_REQUIRES(
        ctx, ToTensorShape(*shape, &element_shape),
        absl::InvalidArgumentError(absl::StrCat(
            "Tried to stack list which only contains uninitialized tensors "
            "and has a non-fully-defined element_shape: ",
            shape->DebugString())));
    std::vector<const Tensor*> elements;
    elements.reserve(list.tensors.size());
    for (const Tensor& t : list.tensors) {
      elements.push_back(TensorList::IsSet(t) ? &t : nullptr);
    }
    DFX_OP_REQUIRES_OK(ctx, StackElements(ctx, 0, elements, element_shape));
  }

 private:
  int64_t num_elements_ = -1;
};

class TensorListGatherOp : public ListOpKernel {
 public:
  explicit TensorListGatherOp(OpKernelConstruction* ctx)
      : ListOpKernel(ctx) {}

  void Compute(OpKernelContext* ctx) override {
    absl::StatusOr<const TensorList*> l = GetInputList(ctx, 0);
    DFX_OP_REQUIRES_OK(ctx, l.status());
    const TensorList& list = **l;
    DFX_OP_REQUIRES_OK(ctx, CheckListDtype(element_dtype_, list));
    const std::vector<int32_t> indices = ReadIndices(ctx->input(1));
    absl::StatusOr<PartialShape> shape = ElementShapeFromInput(ctx, list, 2);
    DFX_OP_REQUIRES_OK(ctx, shape.status());
    DFX_OP_REQUIRES(
        ctx, shape->FullyDefined() || !indices.empty(),
        absl::InvalidArgumentError(absl::StrCat(
            "Tried to gather 0-elements from a list with non-fully-defined "
            "shape: ",
            shape->DebugString())));
    for (int32_t i : indices) {
      DFX_OP_REQUIRES(
          ctx, i >= 0 && static_cast<size_t>(i) < list.tensors.size(),
          absl::InvalidArgumentError(absl::StrCat(
              "Index ", i, " out of range; list only has ",
              list.tensors.size(), " elements.")));
    }
    shape = MergeWithElements(list, *std::move(shape), &indices);
    DFX_OP_REQUIRES_OK(ctx, shape.status());
    TensorShape element_shape;
    DFX_OP_REQUIRES(
        ctx, ToTensorShape(*shape, &element_shape),
        absl::InvalidArgumentError(absl::StrCat(
            "Tried to gather uninitialized tensors from a list with "
            "non-fully-defined element_shape: ",
            shape->DebugString())));
    std::vector<const Tensor*> elements;
    elements.reserve(indices.size());
    for (int32_t i : indices) {
      const Tensor& t = list.tensors[i];
      elements.push_back(TensorList::IsSet(t) ? &t : nullptr);
    }
    DFX_OP_REQUIRES_OK(ctx, StackElements(ctx, 0, elements, element_shape));
  }
};

class TensorListFromTensorOp : public OpKernel {
 public:
  explicit TensorListFromTensorOp(OpKernelConstruction* ctx) : OpKernel(ctx) {}

  void Compute(OpKernelContext* ctx) override {
    const Tensor& t = ctx->input(0);
    absl::StatusOr<PartialShape> shape = PartialShapeFromTensor(ctx->input(1));
    DFX_OP_REQUIRES_OK(ctx, shape.status());
    DFX_OP_REQUIRES_OK(ctx, RequireVectorOrHigher(t));
    const PartialShape rows_shape = ShapeWithoutFirstDim(t.shape());
    DFX_OP_REQUIRES(
        ctx, ShapesCompatible(*shape, rows_shape),
        absl::InvalidArgumentError(absl::StrCat(
            "Specified a list with shape ", shape->DebugString(),
            " from a tensor with shape ", rows_shape.DebugString())));
    DFX_OP_REQUIRES_OK(ctx, CheckListLength(t.dim_size(0)));
    TensorList list(t.dtype(), *std::move(shape));
    list.tensors.reserve(static_cast<size_t>(t.dim_size(0)));
    for (int64_t i = 0; i < t.dim_size(0); ++i) {
      absl::StatusOr<Tensor> row = CopyRows(ctx, t, i, 1, /*drop_dim=*/true);
      DFX_OP_REQUIRES_OK(ctx, row.status());
      list.tensors.push_back(*std::move(row));
    }
    DFX_OP_REQUIRES_OK(ctx, SetOutputList(ctx, 0, std::move(list)));
  }
};

class TensorListScatterIntoExistingListOp : public ListOpKernel {
 public:
  explicit TensorListScatterIntoExistingListOp(OpKernelConstruction* ctx)
      : ListOpKernel(ctx) {}

  void Compute(OpKernelContext* ctx) override {
    absl::StatusOr<const TensorList*> l = GetInputList(ctx, 0);
    DFX_OP_REQUIRES_OK(ctx, l.status());
    const TensorList& list = **l;
    const Tensor& value = ctx->input(1);
    const Tensor& indices_t = ctx->input(2);
    DFX_OP_REQUIRES(
        ctx, value.dtype() == list.element_dtype,
        absl::InvalidArgumentError(absl::StrCat(
            "Invalid data types; input tensor type: ",
            DataTypeString(value.dtype()),
            " list element_type: ", DataTypeString(list.element_dtype))));
    DFX_OP_REQUIRES_OK(ctx, RequireVectorOrHigher(value));
    DFX_OP_REQUIRES(
        ctx, indices_t.dims() == 1,
        absl::InvalidArgumentError(absl::StrCat(
            "Expected indices to be a vector, but received shape: ",
            indices_t.shape().DebugString())));
    DFX_OP_REQUIRES(
        ctx, indices_t.NumElements() == value.dim_size(0),
        absl::InvalidArgumentError(absl::StrCat(
            "Expected len(indices) == tensor.shape[0], but saw: ",
            indices_t.NumElements(), " vs. ", value.dim_size(0))));
    const PartialShape rows_shape = ShapeWithoutFirstDim(value.shape());
    DFX_OP_REQUIRES(
        ctx, ShapesCompatible(list.element_shape, rows_shape),
        absl::InvalidArgumentError(absl::StrCat(
            "Tried to scatter rows of shape ", rows_shape.DebugString(),
            " into a list with element shape ",
            list.element_shape.DebugString())));
    const std::vector<int32_t> indices = ReadIndices(indices_t);
    int64_t size = static_cast<int64_t>(list.tensors.size());
    for (int32_t i : indices) {
      DFX_OP_REQUIRES(
          ctx, i >= 0,
          absl::InvalidArgumentError(absl::StrCat(
              "Indices in TensorListScatterIntoExistingList must all be "
              "non-negative, got ",
              i)));
      size = std::max<int64_t>(size, static_cast<int64_t>(i) + 1);
    }
    DFX_OP_REQUIRES_OK(ctx, CheckListLength(size));
    TensorList out = TakeOrCopyList(ctx, 0, list);
    out.tensors.resize(static_cast<size_t>(size));
    DFX_OP_REQUIRES_OK(ctx, ScatterRows(ctx, value, indices, &out));
    DFX_OP_REQUIRES_OK(ctx, SetOutputList(ctx, 0, std::move(out)));
  }
};

// TensorListScatter and TensorListScatterV2 (which adds num_elements).
class TensorListScatterOp : public OpKernel {
 public:
  explicit TensorListScatterOp(OpKernelConstruction* ctx) : OpKernel(ctx) {}

  void Compute(OpKernelContext* ctx) override {
    const Tensor& value = ctx->input(0);
    const Tensor& indices_t = ctx->input(1);
    absl::StatusOr<PartialShape> shape = PartialShapeFromTensor(ctx->input(2));
    DFX_OP_REQUIRES_OK(ctx, shape.status());
    int64_t num_elements = -1;
    if (ctx->num_inputs() >= 4) {
      absl::StatusOr<int32_t> n =
          ReadInt32Scalar(ctx->input(3), "num_elements");
      DFX_OP_REQUIRES_OK(ctx, n.status());
      num_elements = *n;
    }
    DFX_OP_REQUIRES(
        ctx, num_elements >= -1,
        absl::InvalidArgumentError(absl::StrCat(
            "TensorListScatter expects num_elements >= -1, found: ",
            num_elements)));
    DFX_OP_REQUIRES_OK(ctx, RequireVectorOrHigher(value));
    const PartialShape rows_shape = ShapeWithoutFirstDim(value.shape());
    DFX_OP_REQUIRES(
        ctx, ShapesCompatible(*shape, rows_shape),
        absl::InvalidArgumentError(absl::StrCat(
            "Specified a list with shape ", shape->DebugString(),
            " from a tensor with shape ", rows_shape.DebugString())));
    DFX_OP_REQUIRES(
        ctx, indices_t.NumElements() == value.dim_size(0),
        absl::InvalidArgumentError(absl::StrCat(
            "Invalid number of rows in input tensor. Expected: ",
            indices_t.NumElements(), " Actual: ", value.dim_size(0))));
    const std::vector<int32_t> indices = ReadIndices(indices_t);
    int64_t size = num_elements;
    for (int32_t i : indices) {
      DFX_OP_REQUIRES(
          ctx, i >= 0,
          absl::InvalidArgumentError(
              "Indices in TensorListScatter must all be non-negative."));
      DFX_OP_REQUIRES(
          ctx, num_elements == -1 || i < num_elements,
          absl::InvalidArgumentError(absl::StrCat(
              "TensorListScatter: Trying to scatter at index ", i,
              " in list with size ", num_elements)));
      size = std::max<int64_t>(size, static_cast<int64_t>(i) + 1);
    }
    size = std::max<int64_t>(size, 0);
    DFX_OP_REQUIRES_OK(ctx, CheckListLength(size));
    TensorList list(value.dtype(), *std::move(shape));
    list.tensors.resize(static_cast<size_t>(size));
    DFX_OP_REQUIRES_OK(ctx, ScatterRows(ctx, value, indices, &list));
    DFX_OP_REQUIRES_OK(ctx, SetOutputList(ctx, 0, std::move(list)));
  }
};

// TensorListConcat (element_shape attr) and TensorListConcatV2
// (element_shape and leading_dims inputs).
class TensorListConcatOp : public ListOpKernel {
 public:
  explicit TensorListConcatOp(OpKernelConstruction* ctx) : ListOpKernel(ctx) {
    v2_ = ctx->num_inputs() > 1;
    if (!v2_) {
      TensorShapeProto proto;
      ctx->SetStatus(ctx->GetAttr("element_shape", &proto));
      attr_shape_ = PartialShape::FromProto(proto);
    }
  }

  void Compute(OpKernelContext* ctx) override {
    absl::StatusOr<const TensorList*> l = GetInputList(ctx, 0);
    DFX_OP_REQUIRES_OK(ctx, l.status());
    const TensorList& list = **l;
    DFX_OP_REQUIRES_OK(ctx, CheckListDtype(element_dtype_, list));
    absl::StatusOr<PartialShape> element_shape =
        v2_ ? ElementShapeFromInput(ctx, list, 1)
            : MergeShapes(attr_shape_, list.element_shape);
    DFX_OP_REQUIRES_OK(ctx, element_shape.status());
    DFX_OP_REQUIRES(
        ctx, element_shape->unknown_rank || element_shape->rank() >= 1,
        absl::InvalidArgumentError("Concat requires elements to be at least "
                                   "vectors, found scalars instead."));
    const Tensor* leading_dims = v2_ ? &ctx->input(2) : nullptr;
    if (leading_dims != nullptr) {
      DFX_OP_REQUIRES(
          ctx, leading_dims->dims() == 1,
          absl::InvalidArgumentError(absl::StrCat(
              "leading_dims must be a vector, got shape ",
              leading_dims->shape().DebugString())));
    }
    int64_t first_dim =
        element_shape->unknown_rank ? -1 : element_shape->dims[0];
    PartialShape rest = DropFirstDim(*element_shape);
    DFX_OP_REQUIRES(
        ctx, !list.tensors.empty() || rest.FullyDefined(),
        absl::InvalidArgumentError(absl::StrCat(
            "All except the first dimension must be fully defined when "
            "concating an empty tensor list. element_shape: ",
            rest.DebugString())));
    // Merge the set elements' shapes into `rest`; infer the first dim of
    // unset elements when every set element has the same one.
    bool infer = first_dim == -1;
    int64_t inferred = first_dim;
    for (size_t i = 0; i < list.tensors.size(); ++i) {
      const Tensor& t = list.tensors[i];
      if (!TensorList::IsSet(t)) continue;
      DFX_OP_REQUIRES(
          ctx, t.dims() >= 1,
          absl::InvalidArgumentError(absl::StrCat(
              "Concat saw a scalar shape at index ", i,
              " but requires at least vectors.")));
      absl::StatusOr<PartialShape> merged =
          MergeShapes(rest, ShapeWithoutFirstDim(t.shape()));
      DFX_OP_REQUIRES_OK(ctx, merged.status());
      rest = *std::move(merged);
      DFX_OP_REQUIRES(
          ctx, first_dim == -1 || first_dim == t.dim_size(0),
          absl::InvalidArgumentError(absl::StrCat(
              "First entry of element_shape input does not match the first "
              "dim of list element at index: ",
              i, " Expected: ", first_dim, " Actual: ", t.dim_size(0))));
      if (infer) {
        if (inferred == -1) {
          inferred = t.dim_size(0);
        } else if (inferred != t.dim_size(0)) {
          inferred = -1;
          infer = false;
        }
      }
    }
    first_dim = inferred;
    TensorShape rest_shape;
    DFX_OP_REQUIRES(
        ctx, ToTensorShape(rest, &rest_shape),
        absl::InvalidArgumentError(absl::StrCat(
            "Trying to concat list with only uninitialized tensors but "
            "element_shape_except_first_dim is not fully defined: ",
            rest.DebugString())));

    const int64_t n = static_cast<int64_t>(list.tensors.size());
    Tensor* lengths = nullptr;
    DFX_OP_REQUIRES_OK(ctx, ctx->allocate_output(1, TensorShape({n}), &lengths));
    int64_t total = 0;
    for (int64_t i = 0; i < n; ++i) {
      const Tensor& t = list.tensors[i];
      int64_t dim = 0;
      if (TensorList::IsSet(t)) {
        dim = t.dim_size(0);
      } else if ((leading_dims == nullptr ||
                  i >= leading_dims->NumElements()) &&
                 first_dim != -1) {
        dim = first_dim;
      } else {
        DFX_OP_REQUIRES(
            ctx, leading_dims != nullptr,
            absl::InvalidArgumentError(
                "Concating lists with uninitialized tensors is not supported "
                "in this version of TensorListConcat. Consider updating your "
                "GraphDef to run the newer version."));
        DFX_OP_REQUIRES(
            ctx, i < leading_dims->NumElements(),
            absl::InvalidArgumentError(absl::StrCat(
                "List contains uninitialized tensor at index ", i,
                " but leading_dims has only ", leading_dims->NumElements(),
                " elements.")));
        dim = leading_dims->data<int64_t>()[i];
        DFX_OP_REQUIRES(
            ctx, dim >= 0 && dim <= TensorShape::kMaxElements,
            absl::InvalidArgumentError(absl::StrCat(
                "leading_dims[", i, "] is ", dim, ", not a dimension")));
      }
      DFX_OP_REQUIRES(ctx, total <= TensorShape::kMaxElements - dim,
                      absl::InvalidArgumentError(
                          "the concatenated tensor would be too large"));
      total += dim;
      lengths->data<int64_t>()[i] = dim;
    }
    absl::StatusOr<TensorShape> out_shape = PrependDim(total, rest_shape);
    DFX_OP_REQUIRES_OK(ctx, out_shape.status());
    Tensor* out = nullptr;
    DFX_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, *out_shape, &out));
    const int64_t row = rest_shape.num_elements();
    int64_t offset = 0;
    for (int64_t i = 0; i < n; ++i) {
      const Tensor& t = list.tensors[i];
      const int64_t count = lengths->data<int64_t>()[i] * row;
      if (TensorList::IsSet(t)) {
        DFX_OP_REQUIRES(
            ctx, SameRowShape(t.shape(), rest_shape),
            absl::InvalidArgumentError(absl::StrCat(
                "list element ", i, " has shape ", t.shape().DebugString(),
                ", which does not concatenate with ",
                rest_shape.DebugString())));
        CopyElements(t, 0, out, offset, count);
      } else {
        ZeroElements(out, offset, count);
      }
      offset += count;
    }
  }

 private:
  bool v2_ = true;
  PartialShape attr_shape_;
};

class TensorListSplitOp : public OpKernel {
 public:
  explicit TensorListSplitOp(OpKernelConstruction* ctx) : OpKernel(ctx) {}

  void Compute(OpKernelContext* ctx) override {
    const Tensor& t = ctx->input(0);
    absl::StatusOr<PartialShape> shape = PartialShapeFromTensor(ctx->input(1));
    DFX_OP_REQUIRES_OK(ctx, shape.status());
    DFX_OP_REQUIRES(
        ctx, shape->unknown_rank || shape->rank() >= 1,
        absl::InvalidArgumentError(absl::StrCat(
            "TensorListSplit requires element_shape to be at least of rank "
            "1, but saw: ",
            shape->DebugString())));
    DFX_OP_REQUIRES_OK(ctx, RequireVectorOrHigher(t));
    DFX_OP_REQUIRES(
        ctx, ShapesCompatible(DropFirstDim(*shape),
                              ShapeWithoutFirstDim(t.shape())),
        absl::InvalidArgumentError(absl::StrCat(
            "tensor shape ", t.shape().DebugString(),
            " is not compatible with element_shape ", shape->DebugString())));
    const Tensor& lengths = ctx->input(2);
    DFX_OP_REQUIRES(
        ctx, lengths.dims() == 1,
        absl::InvalidArgumentError(absl::StrCat(
            "Expected lengths to be a vector, received shape: ",
            lengths.shape().DebugString())));
    DFX_OP_REQUIRES_OK(ctx, CheckListLength(lengths.NumElements()));
    const int64_t first = shape->unknown_rank ? -1 : shape->dims[0];
    TensorList list(t.dtype(), *shape);
    list.tensors.reserve(static_cast<size_t>(lengths.NumElements()));
    const int64_t rows = t.dim_size(0);
    int64_t start = 0;
    for (int64_t i = 0; i < lengths.NumElements(); ++i) {
      const int64_t length = lengths.data<int64_t>()[i];
      DFX_OP_REQUIRES(ctx, length >= 0,
                      absl::InvalidArgumentError(absl::StrCat(
                          "Invalid value in lengths: ", length)));
      DFX_OP_REQUIRES(
          ctx, length <= rows - start,
          absl::InvalidArgumentError(absl::StrCat(
              "Attempting to slice [", start, ", ", start + length,
              "] from tensor with length ", rows)));
      DFX_OP_REQUIRES(
          ctx, first == -1 || first == length,
          absl::InvalidArgumentError(absl::StrCat(
              "lengths[", i, "] is ", length,
              ", which does not fit element_shape ", shape->DebugString())));
      absl::StatusOr<Tensor> piece =
          CopyRows(ctx, t, start, length, /*drop_dim=*/false);
      DFX_OP_REQUIRES_OK(ctx, piece.status());
      list.tensors.push_back(*std::move(piece));
      start += length;
    }
    DFX_OP_REQUIRES(
        ctx, start == rows,
        absl::InvalidArgumentError(absl::StrCat(
            "Unused values in tensor. Length of tensor: ", rows,
            " Values used: ", start)));
    DFX_OP_REQUIRES_OK(ctx, SetOutputList(ctx, 0, std::move(list)));
  }
};

class TensorListResizeOp : public OpKernel {
 public:
  explicit TensorListResizeOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    set_expensive(false);
  }

  void Compute(OpKernelContext* ctx) override {
    absl::StatusOr<const TensorList*> l = GetInputList(ctx, 0);
    DFX_OP_REQUIRES_OK(ctx, l.status());
    absl::StatusOr<int32_t> size = ReadInt32Scalar(ctx->input(1), "size");
    DFX_OP_REQUIRES_OK(ctx, size.status());
    DFX_OP_REQUIRES(
        ctx, *size >= 0,
        absl::InvalidArgumentError(absl::StrCat(
            "TensorListSlice expects size to be non-negative. Got: ", *size)));
    DFX_OP_REQUIRES_OK(ctx, CheckListLength(*size));
    TensorList out = TakeOrCopyList(ctx, 0, **l);
    out.tensors.resize(static_cast<size_t>(*size));
    DFX_OP_REQUIRES_OK(ctx, SetOutputList(ctx, 0, std::move(out)));
  }
};

class TensorListConcatListsOp : public ListOpKernel {
 public:
  explicit TensorListConcatListsOp(OpKernelConstruction* ctx)
      : ListOpKernel(ctx) {}

  void Compute(OpKernelContext* ctx) override {
    const Tensor& a = ctx->input(0);
    const Tensor& b = ctx->input(1);
    DFX_OP_REQUIRES(
        ctx, a.shape() == b.shape(),
        absl::InvalidArgumentError(absl::StrCat(
            "Incompatible input TensorList tensor shapes: ",
            a.shape().DebugString(), " vs. ", b.shape().DebugString())));
    Tensor* out = nullptr;
    DFX_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, a.shape(), &out));
    for (int64_t i = 0; i < a.NumElements(); ++i) {
      const TensorList* la = a.data<Variant>()[i].get<TensorList>();
      const TensorList* lb = b.data<Variant>()[i].get<TensorList>();
      DFX_OP_REQUIRES(ctx, la != nullptr && lb != nullptr,
                      absl::InvalidArgumentError(absl::StrCat(
                          "input_a or input_b is not a TensorList at index ",
                          i)));
      for (const TensorList* l : {la, lb}) {
        DFX_OP_REQUIRES_OK(ctx, CheckListDtype(element_dtype_, *l));
      }
      DFX_OP_REQUIRES(
          ctx,
          la->element_shape.unknown_rank == lb->element_shape.unknown_rank &&
              la->element_shape.dims == lb->element_shape.dims,
          absl::InvalidArgumentError(absl::StrCat(
              "input_a and input_b TensorList element shapes are not "
              "identical at index ",
              i, ".  Saw ", la->element_shape.DebugString(), " vs. ",
              lb->element_shape.DebugString())));
      const int64_t length =
          static_cast<int64_t>(la->tensors.size() + lb->tensors.size());
      DFX_OP_REQUIRES_OK(ctx, CheckListLength(length));
      TensorList joined = *la;
      joined.tensors.insert(joined.tensors.end(), lb->tensors.begin(),
                            lb->tensors.end());
      out->data<Variant>()[i] = Variant::Make<TensorList>(std::move(joined));
    }
  }
};

}  // namespace

}  // namespace dfx::list_internal

namespace dfx {

void RegisterListKernels(KernelRegistry* registry) {
  using namespace list_internal;  // NOLINT
  RegisterKernel<EmptyTensorListOp>(registry,
                                    KernelDefBuilder("EmptyTensorList"));
  RegisterKernel<TensorListReserveOp>(registry,
                                      KernelDefBuilder("TensorListReserve"));
  RegisterKernel<TensorListPushBackOp>(registry,
                                       KernelDefBuilder("TensorListPushBack"));
  RegisterKernel<TensorListPopBackOp>(registry,
                                      KernelDefBuilder("TensorListPopBack"));
  RegisterKernel<TensorListLengthOp>(registry,
                                     KernelDefBuilder("TensorListLength"));
  RegisterKernel<TensorListElementShapeOp>(
      registry, KernelDefBuilder("TensorListElementShape"));
  RegisterKernel<TensorListGetItemOp>(registry,
                                      KernelDefBuilder("TensorListGetItem"));
  RegisterKernel<TensorListSetItemOp>(registry,
                                      KernelDefBuilder("TensorListSetItem"));
  RegisterKernel<TensorListStackOp>(registry,
                                    KernelDefBuilder("TensorListStack"));
  RegisterKernel<TensorListGatherOp>(registry,
                                     KernelDefBuilder("TensorListGather"));
  RegisterKernel<TensorListFromTensorOp>(
      registry, KernelDefBuilder("TensorListFromTensor"));
  RegisterKernel<TensorListScatterIntoExistingListOp>(
      registry, KernelDefBuilder("TensorListScatterIntoExistingList"));
  RegisterKernel<TensorListScatterOp>(registry,
                                      KernelDefBuilder("TensorListScatter"));
  RegisterKernel<TensorListScatterOp>(registry,
                                      KernelDefBuilder("TensorListScatterV2"));
  RegisterKernel<TensorListConcatOp>(registry,
                                     KernelDefBuilder("TensorListConcat"));
  RegisterKernel<TensorListConcatOp>(registry,
                                     KernelDefBuilder("TensorListConcatV2"));
  RegisterKernel<TensorListSplitOp>(registry,
                                    KernelDefBuilder("TensorListSplit"));
  RegisterKernel<TensorListResizeOp>(registry,
                                     KernelDefBuilder("TensorListResize"));
  RegisterKernel<TensorListConcatListsOp>(
      registry, KernelDefBuilder("TensorListConcatLists"));
  RegisterListVariantKernels(registry);
}

}  // namespace dfx
