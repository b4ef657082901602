#include "kernels/list/list_util.h"

#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "base/status_macros.h"

namespace dfx::list_internal {

absl::StatusOr<const TensorList*> GetInputList(OpKernelContext* ctx,
                                               int index) {
  const Tensor& t = ctx->input(index);
  if (t.dtype() != DT_VARIANT || t.dims() != 0 || !t.IsInitialized()) {
    return absl::InvalidArgumentError(
        absl::StrCat("Input list must be a scalar variant, saw a ",
                     DataTypeString(t.dtype()), " tensor of shape ",
                     t.shape().DebugString()));
  }
  const Variant& v = t.scalar<Variant>();
  const TensorList* list = v.get<TensorList>();
  if (list == nullptr) {
    return absl::InvalidArgumentError(absl::StrCat(
        "Input handle is not a list. Saw: '", v.DebugString(), "'"));
  }
  return list;
}

TensorList TakeOrCopyList(OpKernelContext* ctx, int index,
                          const TensorList& list) {
  const Tensor& t = ctx->input(index);
  // The executor's input slot is then the only holder of the buffer, and
  // the buffer's Variant the only holder of the list: nobody else can see
  // the list, and the executor drops the slot when this kernel returns. The
  // list was built non-const (Variant::Make), so moving out of it is sound.
  // Both checks order what another consumer that let go a moment ago (on
  // another thread) did with the list before the move (SharedRef::Unique).
  // And no other input of the kernel is that tensor (PushBack(l, l) of a
  // list of lists would push the emptied list).
  if (!ctx->input_aliased(index) && t.BufferUnshared() &&
      t.scalar<Variant>().Unique()) {
    return std::move(const_cast<TensorList&>(list));
  }
  return list;
}

absl::Status SetOutputList(OpKernelContext* ctx, int index, TensorList list) {
  Tensor* out = nullptr;
  DFX_RETURN_IF_ERROR(ctx->allocate_output(index, TensorShape(), &out));
  out->scalar<Variant>() = Variant::Make<TensorList>(std::move(list));
  return absl::OkStatus();
}

absl::StatusOr<PartialShape> PartialShapeFromTensor(const Tensor& t) {
  if (t.dtype() != DT_INT32 && t.dtype() != DT_INT64) {
    return absl::InvalidArgumentError(
        absl::StrCat("Expected an int32 or int64 shape tensor; found ",
                     DataTypeString(t.dtype())));
  }
  auto value = [&](int64_t i) -> int64_t {
    return t.dtype() == DT_INT32 ? t.data<int32_t>()[i] : t.data<int64_t>()[i];
  };
  if (t.dims() == 0) {
    if (value(0) == -1) return PartialShape::Unknown();
    return absl::InvalidArgumentError(
        "The only valid scalar shape tensor is the fully unknown shape "
        "specified as -1.");
  }
  if (t.dims() > 1) {
    return absl::InvalidArgumentError(absl::StrCat(
        "Shape must be at most rank 1 but is rank ", t.dims()));
  }
  std::vector<int64_t> dims(static_cast<size_t>(t.NumElements()));
  for (int64_t i = 0; i < t.NumElements(); ++i) {
    dims[i] = value(i);
    if (dims[i] < -1) {
      return absl::InvalidArgumentError(
          absl::StrCat("Dimension ", dims[i], " must be >= -1"));
    }
  }
  if (dims.size() > static_cast<size_t>(TensorShape::kMaxRank)) {
    return absl::InvalidArgumentError(
        absl::StrCat("Shape has rank ", dims.size(), ", more than ",
                     TensorShape::kMaxRank));
  }
  return PartialShape::Known(std::move(dims));
}

absl::StatusOr<PartialShape> ElementShapeFromInput(OpKernelContext* ctx,
                                                   const TensorList& list,
                                                   int index) {
  DFX_ASSIGN_OR_RETURN(PartialShape shape,
                       PartialShapeFromTensor(ctx->input(index)));
  return MergeShapes(shape, list.element_shape);
}

absl::Status CheckListLength(int64_t length) {
  if (length <= kMaxListLength) return absl::OkStatus();
  return absl::ResourceExhaustedError(
      absl::StrCat("a TensorList of ", length, " elements is more than the ",
                   kMaxListLength, " dfx builds"));
}

absl::StatusOr<TensorShape> PrependDim(int64_t n, const TensorShape& shape) {
  std::vector<int64_t> dims;
  dims.reserve(shape.dims() + 1);
  dims.push_back(n);
  for (int64_t d : shape.dim_sizes()) dims.push_back(d);
  return TensorShape::Build(dims);
}

absl::Status CheckListDtype(DataType op_dtype, const TensorList& list) {
  if (op_dtype == list.element_dtype) return absl::OkStatus();
  return absl::InvalidArgumentError(absl::StrCat(
      "Invalid data types; op elements ", DataTypeString(op_dtype),
      " but list elements ", DataTypeString(list.element_dtype)));
}

absl::StatusOr<int32_t> ReadInt32Scalar(const Tensor& t, const char* what) {
  if (t.dtype() != DT_INT32 || t.NumElements() != 1) {
    return absl::InvalidArgumentError(
        absl::StrCat(what, " must be an int32 scalar, got a ",
                     DataTypeString(t.dtype()), " tensor of shape ",
                     t.shape().DebugString()));
  }
  return t.data<int32_t>()[0];
}

namespace {

template <typename T>
void CopyObjects(const Tensor& src, int64_t src_start, Tensor* dst,
                 int64_t dst_start, int64_t count) {
  const T* from = src.data<T>() + src_start;
  T* to = dst->data<T>() + dst_start;
  for (int64_t i = 0; i < count; ++i) to[i] = from[i];
}

template <typename T>
void ResetObjects(Tensor* t, int64_t start, int64_t count) {
  T* p = t->data<T>() + start;
  for (int64_t i = 0; i < count; ++i) p[i] = T();
}

}  // namespace

void CopyElements(const Tensor& src, int64_t src_start, Tensor* dst,
                  int64_t dst_start, int64_t count) {
  DFX_CHECK(src.dtype() == dst->dtype());
  if (count == 0) return;
  switch (src.dtype()) {
    case DT_STRING:
      CopyObjects<std::string>(src, src_start, dst, dst_start, count);
      return;
    case DT_RESOURCE:
      CopyObjects<ResourceHandle>(src, src_start, dst, dst_start, count);
      return;
    case DT_VARIANT:
      CopyObjects<Variant>(src, src_start, dst, dst_start, count);
      return;
    default: {
      const size_t elem = static_cast<size_t>(DataTypeSize(src.dtype()));
      DFX_CHECK(elem > 0);
      std::memcpy(static_cast<char*>(dst->raw_data()) + dst_start * elem,
                  static_cast<const char*>(src.raw_data()) + src_start * elem,
                  static_cast<size_t>(count) * elem);
    }
  }
}

void ZeroElements(Tensor* t, int64_t start, int64_t count) {
  if (count == 0) return;
  switch (t->dtype()) {
    case DT_STRING:
      ResetObjects<std::string>(t, start, count);
      return;
    case DT_RESOURCE:
      ResetObjects<ResourceHandle>(t, start, count);
      return;
    case DT_VARIANT:
      ResetObjects<Variant>(t, start, count);
      return;
    default: {
      // All-zero bytes are zero in every numeric type (and false).
      const size_t elem = static_cast<size_t>(DataTypeSize(t->dtype()));
      DFX_CHECK(elem > 0);
      std::memset(static_cast<char*>(t->raw_data()) + start * elem, 0,
                  static_cast<size_t>(count) * elem);
    }
  }
}

absl::StatusOr<Tensor> ZerosTensor(OpKernelContext* ctx, DataType dtype,
                                   const TensorShape& shape) {
  DFX_ASSIGN_OR_RETURN(Tensor t, Tensor::Allocate(ctx->allocator(), dtype,
                                                  shape));
  ZeroElements(&t, 0, t.NumElements());
  return t;
}

absl::StatusOr<Tensor> CopyRows(OpKernelContext* ctx, const Tensor& t,
                                int64_t start, int64_t rows, bool drop_dim) {
  TensorShape shape = t.shape();
  shape.set_dim(0, rows);
  if (drop_dim) shape.RemoveDim(0);
  DFX_ASSIGN_OR_RETURN(Tensor out,
                       Tensor::Allocate(ctx->allocator(), t.dtype(), shape));
  const int64_t row = t.dim_size(0) == 0 ? 0 : t.NumElements() / t.dim_size(0);
  CopyElements(t, start * row, &out, 0, rows * row);
  return out;
}

}  // namespace dfx::list_internal
