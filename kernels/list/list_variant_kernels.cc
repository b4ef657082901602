// ZerosLike and AddN on DT_VARIANT tensors holding TensorLists: what the
// gradients of TF2 loops emit to start and to sum the gradients of list
// accumulators. ZerosLike keeps a list's length, dtype and shape with every
// set element replaced by zeros; AddN adds lists element by element (an
// unset element counts as zeros), as TensorFlow's TensorListZerosLike and
// TensorListBinaryAdd do.
#include <cstdint>
#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "kernels/list/list_util.h"
#include "kernels/map/tensor_map.h"

namespace dfx::list_internal {
namespace {

absl::StatusOr<Variant> ZerosLikeVariant(OpKernelContext* ctx,
                                         const Variant& v);

// Zeros of `t`'s dtype and shape; variant elements recursively.
absl::StatusOr<Tensor> ZerosLikeTensor(OpKernelContext* ctx, const Tensor& t) {
  if (t.dtype() != DT_VARIANT) return ZerosTensor(ctx, t.dtype(), t.shape());
  DFX_ASSIGN_OR_RETURN(Tensor out, Tensor::Allocate(ctx->allocator(),
                                                    DT_VARIANT, t.shape()));
  for (int64_t i = 0; i < t.NumElements(); ++i) {
    DFX_ASSIGN_OR_RETURN(out.data<Variant>()[i],
                         ZerosLikeVariant(ctx, t.data<Variant>()[i]));
  }
  return out;
}

absl::StatusOr<Variant> ZerosLikeVariant(OpKernelContext* ctx,
                                         const Variant& v) {
  if (v.is_empty()) return Variant();
  if (const auto* rt = v.get<RaggedTensorVariant>()) {
    DFX_ASSIGN_OR_RETURN(Tensor zeros, ZerosLikeTensor(ctx, rt->values));
    return Variant::Make<RaggedTensorVariant>(rt->nested_splits,
                                              std::move(zeros));
  }
  if (v.get<TensorMap>() != nullptr) return Variant::Make<TensorMap>();
  const TensorList* list = v.get<TensorList>();
  if (list == nullptr) {
    return absl::InvalidArgumentError(absl::StrCat(
        "ZerosLike of a variant of type '", v.TypeName(),
        "' is not supported; only TensorLists, ragged tensors and TensorMaps "
        "are"));
  }
  TensorList zeros(list->element_dtype, list->element_shape,
                   list->max_num_elements);
  zeros.tensors.reserve(list->tensors.size());
  for (const Tensor& t : list->tensors) {
    if (!TensorList::IsSet(t)) {
      zeros.tensors.emplace_back();
      continue;
    }
    DFX_ASSIGN_OR_RETURN(Tensor z, ZerosLikeTensor(ctx, t));
    zeros.tensors.push_back(std::move(z));
  }
  return Variant::Make<TensorList>(std::move(zeros));
}

template <typename T>
void AddInto(const Tensor& a, const Tensor& b, Tensor* out) {
  const T* x = a.data<T>();
  const T* y = b.data<T>();
  T* z = out->data<T>();
  for (int64_t i = 0; i < out->NumElements(); ++i) {
    z[i] = static_cast<T>(x[i] + y[i]);
  }
}

absl::StatusOr<Variant> AddVariants(OpKernelContext* ctx, const Variant& a,
                                    const Variant& b);

// a + b for two list elements of one dtype and shape.
absl::StatusOr<Tensor> AddTensors(OpKernelContext* ctx, const Tensor& a,
                                  const Tensor& b) {
  if (a.dtype() != b.dtype() || a.shape() != b.shape()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "Trying to add two tensors of different types or shapes: ",
        DataTypeString(a.dtype()), a.shape().DebugString(), " and ",
        DataTypeString(b.dtype()), b.shape().DebugString()));
  }
  DFX_ASSIGN_OR_RETURN(Tensor out, Tensor::Allocate(ctx->allocator(),
                                                    a.dtype(), a.shape()));
  if (a.dtype() == DT_VARIANT) {
    for (int64_t i = 0; i < a.NumElements(); ++i) {
      DFX_ASSIGN_OR_RETURN(
          out.data<Variant>()[i],
          AddVariants(ctx, a.data<Variant>()[i], b.data<Variant>()[i]));
    }
    return out;
  }
  bool supported = a.dtype() != DT_BOOL;
  if (supported) {
    supported = VisitNumericType(
        a.dtype(), [&]<typename T>() { AddInto<T>(a, b, &out); });
  }
  if (!supported) {
    return absl::InvalidArgumentError(
        absl::StrCat("cannot add list elements of type ",
                     DataTypeString(a.dtype())));
  }
  return out;
}

absl::StatusOr<Variant> AddVariants(OpKernelContext* ctx, const Variant& a,
                                    const Variant& b) {
  if (a.is_empty()) return b;
  if (b.is_empty()) return a;
  const auto* ra = a.get<RaggedTensorVariant>();
  const auto* rb = b.get<RaggedTensorVariant>();
  if (ra != nullptr && rb != nullptr) {
    if (ra->ragged_rank() != rb->ragged_rank()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "Trying to add two RaggedTensors of different ragged ranks: ",
          ra->ragged_rank(), " and ", rb->ragged_rank()));
    }
    DFX_ASSIGN_OR_RETURN(Tensor sum, AddTensors(ctx, ra->values, rb->values));
    return Variant::Make<RaggedTensorVariant>(ra->nested_splits,
                                              std::move(sum));
  }
  const auto* ma = a.get<TensorMap>();
  const auto* mb = b.get<TensorMap>();
  if (ma != nullptr && mb != nullptr) {
    TensorMap sum = *ma;
    for (const auto& [key, value] : mb->tensors) {
      auto it = sum.tensors.find(key);
      if (it == sum.tensors.end()) {
        sum.tensors.emplace(key, value);
        continue;
      }
      DFX_ASSIGN_OR_RETURN(it->second, AddTensors(ctx, it->second, value));
    }
    return Variant::Make<TensorMap>(std::move(sum));
  }
  const TensorList* la = a.get<TensorList>();
  const TensorList* lb = b.get<TensorList>();
  if (la == nullptr || lb == nullptr) {
    return absl::InvalidArgumentError(absl::StrCat(
        "AddN of variants of types '", a.TypeName(), "' and '", b.TypeName(),
        "' is not supported; only TensorLists, ragged tensors and TensorMaps "
        "are"));
  }
  if (la->element_dtype != lb->element_dtype) {
    return absl::InvalidArgumentError(absl::StrCat(
        "Trying to add two lists of tensors of different dtypes. One is ",
        DataTypeString(la->element_dtype), " and the other is ",
        DataTypeString(lb->element_dtype)));
  }
  absl::StatusOr<PartialShape> shape =
      MergeShapes(la->element_shape, lb->element_shape);
  if (!shape.ok()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "Trying to add two lists of tensors with incompatible element "
        "shapes. One is ",
        la->element_shape.DebugString(), " and the other is ",
        lb->element_shape.DebugString()));
  }
  if (la->tensors.size() != lb->tensors.size()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "Trying to add two lists of tensors with different lengths. One is ",
        la->tensors.size(), " and the other is ", lb->tensors.size()));
  }
  TensorList sum(la->element_dtype, *std::move(shape), la->max_num_elements);
  sum.tensors.reserve(la->tensors.size());
  for (size_t i = 0; i < la->tensors.size(); ++i) {
    const Tensor& x = la->tensors[i];
    const Tensor& y = lb->tensors[i];
    if (!TensorList::IsSet(x)) {
      sum.tensors.push_back(y);
    } else if (!TensorList::IsSet(y)) {
      sum.tensors.push_back(x);
    } else {
      DFX_ASSIGN_OR_RETURN(Tensor z, AddTensors(ctx, x, y));
      sum.tensors.push_back(std::move(z));
    }
  }
  return Variant::Make<TensorList>(std::move(sum));
}

class VariantZerosLikeOp : public OpKernel {
 public:
  explicit VariantZerosLikeOp(OpKernelConstruction* ctx) : OpKernel(ctx) {}

  void Compute(OpKernelContext* ctx) override {
    absl::StatusOr<Tensor> out = ZerosLikeTensor(ctx, ctx->input(0));
    DFX_OP_REQUIRES_OK(ctx, out.status());
    ctx->set_output(0, *std::move(out));
  }
};

class VariantAddNOp : public OpKernel {
 public:
  explicit VariantAddNOp(OpKernelConstruction* ctx) : OpKernel(ctx) {}

  void Compute(OpKernelContext* ctx) override {
    const Tensor& first = ctx->input(0);
    for (int k = 1; k < ctx->num_inputs(); ++k) {
      DFX_OP_REQUIRES(
          ctx, ctx->input(k).shape() == first.shape(),
          absl::InvalidArgumentError(absl::StrCat(
              "AddN of variants needs inputs of one shape: input 0 has ",
              first.shape().DebugString(), ", input ", k, " has ",
              ctx->input(k).shape().DebugString())));
    }
    Tensor* out = nullptr;
    DFX_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, first.shape(), &out));
    for (int64_t i = 0; i < first.NumElements(); ++i) {
      Variant sum = first.data<Variant>()[i];
      for (int k = 1; k < ctx->num_inputs(); ++k) {
        absl::StatusOr<Variant> next =
            AddVariants(ctx, sum, ctx->input(k).data<Variant>()[i]);
        DFX_OP_REQUIRES_OK(ctx, next.status());
        sum = *std::move(next);
      }
      out->data<Variant>()[i] = std::move(sum);
    }
  }
};

}  // namespace

void RegisterListVariantKernels(KernelRegistry* registry) {
  RegisterKernel<VariantZerosLikeOp>(
      registry, KernelDefBuilder("ZerosLike").TypeConstraint("T", {DT_VARIANT}));
  RegisterKernel<VariantAddNOp>(
      registry, KernelDefBuilder("AddN").TypeConstraint("T", {DT_VARIANT}));
}

}  // namespace dfx::list_internal
