// Slice-wise updates of variables and tensors: strided-slice assignment
// (StridedSliceAssign on a reference, ResourceStridedSliceAssign,
// TensorStridedSliceUpdate on a copy) and N-d scatter (ScatterNd* into a
// reference, ResourceScatterNd*, ScatterNdNonAliasingAdd on a copy), and
// ResourceGatherNd.
//
// The slice arithmetic is StridedSlice's (kernels/array/index_util.h): the
// value, broadcast to the slice's shape as TensorFlow allows (NumPy rules,
// plus leading 1s beyond the slice's rank), is one strided copy into the
// variable, with stride 0 along broadcast dims. The scatter is
// ScatterNdInPlace (kernels/array/nd_index.h), shared with TensorScatter*.
#include <cstdint>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "base/tsan.h"
#include "kernels/array/array_util.h"
#include "kernels/array/index_util.h"
#include "kernels/array/nd_index.h"
#include "kernels/kernels.h"
#include "kernels/state/state2_kernels.h"
#include "kernels/state/variable_util.h"

namespace dfx::state2_internal {
namespace {

using array_internal::RowMajorStrides;

// Writes `value`, broadcast to the slice's shape `final_shape`, into the
// slice `spec` of `lhs`. Nothing is checked or written when the slice is
// empty, as in TensorFlow.
absl::Status AssignSlice(OpKernelContext* ctx, const StridedSliceSpec& spec,
                         const TensorShape& final_shape, const Tensor& value,
                         Tensor* lhs) {
  int64_t n = 1;
  for (int64_t d : spec.processing_dims) n *= d;
  if (n == 0) return absl::OkStatus();
  if (value.dtype() != lhs->dtype()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "l-value dtype ", DataTypeString(lhs->dtype()),
        " does not match r-value dtype ", DataTypeString(value.dtype())));
  }
  // Right-aligned broadcast; value dims beyond the slice's rank must be 1.
  const int vr = value.dims();
  const int fr = final_shape.dims();
  bool valid = true;
  for (int i = 0; i < vr && valid; ++i) {
    const int f = i - (vr - fr);
    const int64_t d = value.dim_size(i);
    valid = d == 1 || (f >= 0 && d == final_shape.dim_size(f));
  }
  if (!valid) {
    return absl::InvalidArgumentError(absl::StrCat(
        "Cannot broadcast input shape ", value.shape().DebugString(),
        " into final shape ", final_shape.DebugString()));
  }
  const std::vector<int64_t> value_strides = RowMajorStrides(value.shape());
  array_internal::StridedCopySpec copy;
  copy.dims = spec.processing_dims;
  copy.src_strides.assign(copy.dims.size(), 0);
  for (int f = 0; f < fr; ++f) {
    const int i = f + (vr - fr);
    const int64_t p = spec.final_to_processing[f];
    if (i >= 0 && p >= 0 && value.dim_size(i) != 1) {
      copy.src_strides[p] = value_strides[i];
    }
  }
  array_internal::SliceWalk(spec, lhs->shape(), &copy.dst_strides,
                            &copy.dst_offset);
  array_internal::StridedCopy(*ctx->device(), value, lhs, std::move(copy));
  return absl::OkStatus();
}

// The slice inputs 1..3 select from a tensor of `shape`, and its assignment
// of input 4 into `lhs`.
absl::Status AssignStridedSlice(OpKernelContext* ctx,
                                const StridedSliceMasks& masks, Tensor* lhs) {
  StridedSliceSpec spec;
  TensorShape final_shape;
  DFX_RETURN_IF_ERROR(array_internal::StridedSliceSpecOf(
      lhs->shape(), ctx->input(1), ctx->input(2), ctx->input(3), masks, &spec,
      &final_shape));
  return AssignSlice(ctx, spec, final_shape, ctx->input(4), lhs);
}

// StridedSliceAssign (a reference) and ResourceStridedSliceAssign.
class StridedSliceAssignOp : public OpKernel {
 public:
  explicit StridedSliceAssignOp(OpKernelConstruction* c) : OpKernel(c) {
    c->SetStatus(array_internal::ReadStridedSliceMasks(c, &masks_));
  }

  void Compute(OpKernelContext* ctx) override {
    VariableInputs vars;
    DFX_OP_REQUIRES_OK(ctx, vars.Init(ctx, {0}, /*use_locking=*/true));
    DFX_OP_REQUIRES_OK(ctx, AssignStridedSlice(ctx, masks_, vars.tensor(0)));
    if (num_outputs() > 0) ctx->forward_ref_input_to_ref_output(0, 0);
  }

 private:
  StridedSliceMasks masks_;
};

class TensorStridedSliceUpdateOp : public OpKernel {
 public:
  explicit TensorStridedSliceUpdateOp(OpKernelConstruction* c) : OpKernel(c) {
    c->SetStatus(array_internal::ReadStridedSliceMasks(c, &masks_));
  }

  void Compute(OpKernelContext* ctx) override {
    absl::StatusOr<Tensor> out = CopyTensor(ctx, ctx->input(0));
    DFX_OP_REQUIRES_OK(ctx, out.status());
    DFX_OP_REQUIRES_OK(ctx, AssignStridedSlice(ctx, masks_, &*out));
    ctx->set_output(0, *std::move(out));
  }

 private:
  StridedSliceMasks masks_;
};

// TensorFlow's checks of a ScatterNd* update of a tensor of `shape`
// (scatter_nd_op.cc's PrepareAndValidateInputs): indices [N] are N indices
// of one dimension, indices [..., K] index tuples of K.
absl::Status CheckScatterNd(const TensorShape& shape, const Tensor& indices,
                            const Tensor& updates) {
  if (shape.dims() < 1) {
    return absl::InvalidArgumentError(absl::StrCat(
        "Output must be at least 1-D, got shape: ", shape.DebugString()));
  }
  const int64_t num_indices = indices.NumElements();
  const int64_t num_updates = updates.NumElements();
  if (!((num_indices == 0 && num_updates == 0) ||
        (shape.num_elements() > 0 && num_indices > 0 && num_updates > 0))) {
    return absl::InvalidArgumentError(absl::StrCat(
        "Indices and updates specified for empty output.  indices shape: ",
        indices.shape().DebugString()));
  }
  if (indices.dims() < 1 || updates.dims() < 1 ||
      updates.dim_size(0) != indices.dim_size(0)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "The outermost dimension of updates and indices must match. Got "
        "indices.shape ",
        indices.shape().DebugString(), ", updates.shape ",
        updates.shape().DebugString()));
  }
  const int64_t slice_dim =
      indices.dims() > 1 ? indices.dim_size(indices.dims() - 1) : 1;
  const int batch_dim = indices.dims() > 1 ? indices.dims() - 1 : 1;
  bool ok = updates.dims() >= batch_dim &&
            shape.dims() >= slice_dim + (updates.dims() - batch_dim) &&
            updates.dims() == batch_dim + shape.dims() - slice_dim;
  for (int d = 0; ok && d < batch_dim; ++d) {
    ok = updates.dim_size(d) == indices.dim_size(d);
  }
  for (int d = 0; ok && d < updates.dims() - batch_dim; ++d) {
    ok = updates.dim_size(d + batch_dim) ==
         shape.dim_size(static_cast<int>(d + slice_dim));
  }
  if (!ok) {
    return absl::InvalidArgumentError(absl::StrCat(
        "Must have updates.shape = indices.shape[:batch_dim] + "
        "params_shape[slice_dim:], got updates.shape: ",
        updates.shape().DebugString(), ", indices.shape: ",
        indices.shape().DebugString(), ", params_shape: ", shape.DebugString(),
        ", slice_dim: ", slice_dim, ", and batch_dim: ", batch_dim));
  }
  return absl::OkStatus();
}

// Checks, then applies the scatter to `target`. Indices of rank 1 are
// single-dimension indices, one per update row.
absl::Status ScatterNdInto(OpKernelContext* ctx, ScatterNdMode op,
                           bool ignore_bad, Tensor* target) {
  const Tensor& indices = ctx->input(1);
  const Tensor& updates = ctx->input(2);
  if (updates.dtype() != target->dtype()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "updates are ", DataTypeString(updates.dtype()),
        ", but the variable is ", DataTypeString(target->dtype())));
  }
  DFX_RETURN_IF_ERROR(CheckScatterNd(target->shape(), indices, updates));
  if (indices.NumElements() == 0) return absl::OkStatus();
  if (indices.dims() == 1) {
    DFX_ASSIGN_OR_RETURN(
        Tensor column, indices.Reshaped(TensorShape({indices.dim_size(0), 1})));
    return ScatterNdInPlace(ctx, op, column, updates, ignore_bad, target);
  }
  return ScatterNdInPlace(ctx, op, indices, updates, ignore_bad, target);
}

// ScatterNd* into a reference or a resource variable.
template <ScatterNdMode kOp>
class ScatterNdVariableOp : public OpKernel {
 public:
  explicit ScatterNdVariableOp(OpKernelConstruction* c)
      : OpKernel(c), ignore_bad_(IgnoreBadIndices(c)) {
    c->SetStatus(c->GetAttr("use_locking", &use_locking_));
    // A resource variable is always updated under its lock, as in
    // TensorFlow.
    if (!IsRefType(c->input_type(0))) use_locking_ = true;
  }

  void Compute(OpKernelContext* ctx) override {
    VariableInputs vars;
    DFX_OP_REQUIRES_OK(ctx, vars.Init(ctx, {0}, use_locking_));
    absl::Status status;
    {
      ScopedTsanIgnoreAccesses ignore(vars.hogwild());
      status = ScatterNdInto(ctx, kOp, ignore_bad_, vars.tensor(0));
    }
    DFX_OP_REQUIRES_OK(ctx, status);
    if (num_outputs() > 0) ctx->forward_ref_input_to_ref_output(0, 0);
  }

 private:
  const bool ignore_bad_;
  bool use_locking_ = true;
};

class ScatterNdNonAliasingAddOp : public OpKernel {
 public:
  explicit ScatterNdNonAliasingAddOp(OpKernelConstruction* c)
      : OpKernel(c), ignore_bad_(IgnoreBadIndices(c)) {}

  void Compute(OpKernelContext* ctx) override {
    absl::StatusOr<Tensor> out = CopyTensor(ctx, ctx->input(0));
    DFX_OP_REQUIRES_OK(ctx, out.status());
    DFX_OP_REQUIRES_OK(
        ctx, ScatterNdInto(ctx, ScatterNdMode::kAdd, ignore_bad_, &*out));
    ctx->set_output(0, *std::move(out));
  }

 private:
  const bool ignore_bad_;
};

class ResourceGatherNdOp : public OpKernel {
 public:
  explicit ResourceGatherNdOp(OpKernelConstruction* c) : OpKernel(c) {
    c->SetStatus(c->GetAttr("dtype", &dtype_));
  }

  void Compute(OpKernelContext* ctx) override {
    absl::StatusOr<Tensor> params = ReadVariableSnapshot(ctx, 0, dtype_);
    DFX_OP_REQUIRES_OK(ctx, params.status());
    DFX_OP_REQUIRES_OK(ctx, GatherNdToOutput(ctx, *params, ctx->input(1),
                                             /*ignore_bad=*/false));
  }

 private:
  DataType dtype_ = DT_INVALID;
};

DataTypeVector Concat(DataTypeVector a, const DataTypeVector& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

}  // namespace

void RegisterAssignKernels(KernelRegistry* r) {
  const DataTypeVector& movable = array_internal::MovableTypes();
  const DataTypeVector real = {DT_FLOAT, DT_DOUBLE, DT_HALF,   DT_BFLOAT16,
                               DT_INT8,  DT_INT16,  DT_INT32,  DT_INT64,
                               DT_UINT8, DT_UINT16, DT_UINT32, DT_UINT64};
  const DataTypeVector number = Concat(real, {DT_COMPLEX64, DT_COMPLEX128});
  const DataTypeVector number_bool = Concat(number, {DT_BOOL});
  const DataTypeVector indices = {DT_INT32, DT_INT64};

  for (const char* op : {"StridedSliceAssign", "ResourceStridedSliceAssign"}) {
    RegisterKernel<StridedSliceAssignOp>(
        r, KernelDefBuilder(op).TypeConstraint("T", movable));
  }
  RegisterKernel<TensorStridedSliceUpdateOp>(
      r, KernelDefBuilder("TensorStridedSliceUpdate")
             .TypeConstraint("T", movable));

  struct Scatter {
    const char* op;
    ScatterNdMode kind;
    const DataTypeVector* types;
  };
  // The ref forms' OpDefs allow numbertype only, so their bool kernels
  // never match; the Resource* forms serve bool too, as TensorFlow's do.
  const Scatter scatters[] = {
      {"ScatterNdUpdate", ScatterNdMode::kAssign, &movable},
      {"ResourceScatterNdUpdate", ScatterNdMode::kAssign, &movable},
      {"ScatterNdAdd", ScatterNdMode::kAdd, &number},
      {"ResourceScatterNdAdd", ScatterNdMode::kAdd, &number_bool},
      {"ScatterNdSub", ScatterNdMode::kSub, &number},
      {"ResourceScatterNdSub", ScatterNdMode::kSub, &number_bool},
      {"ScatterNdMax", ScatterNdMode::kMax, &real},
      {"ResourceScatterNdMax", ScatterNdMode::kMax, &real},
      {"ScatterNdMin", ScatterNdMode::kMin, &real},
      {"ResourceScatterNdMin", ScatterNdMode::kMin, &real},
  };
  for (const Scatter& s : scatters) {
    KernelDefBuilder def = KernelDefBuilder(s.op)
                               .TypeConstraint("T", *s.types)
                               .TypeConstraint("Tindices", indices);
    switch (s.kind) {
      case ScatterNdMode::kAssign:
        RegisterKernel<ScatterNdVariableOp<ScatterNdMode::kAssign>>(r, def);
        break;
      case ScatterNdMode::kAdd:
        RegisterKernel<ScatterNdVariableOp<ScatterNdMode::kAdd>>(r, def);
        break;
      case ScatterNdMode::kSub:
        RegisterKernel<ScatterNdVariableOp<ScatterNdMode::kSub>>(r, def);
        break;
      case ScatterNdMode::kMax:
        RegisterKernel<ScatterNdVariableOp<ScatterNdMode::kMax>>(r, def);
        break;
      case ScatterNdMode::kMin:
        RegisterKernel<ScatterNdVariableOp<ScatterNdMode::kMin>>(r, def);
        break;
    }
  }
  RegisterKernel<ScatterNdNonAliasingAddOp>(
      r, KernelDefBuilder("ScatterNdNonAliasingAdd")
             .TypeConstraint("T", number_bool)
             .TypeConstraint("Tindices", indices));
  RegisterKernel<ResourceGatherNdOp>(r,
                                     KernelDefBuilder("ResourceGatherNd")
                                         .TypeConstraint("dtype", movable)
                                         .TypeConstraint("Tindices", indices));
}

}  // namespace dfx::state2_internal
