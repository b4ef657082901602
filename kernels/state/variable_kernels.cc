// Kernels of the state ops: resource variables (VarHandleOp, ReadVariableOp,
// AssignVariableOp, AssignAdd/SubVariableOp, VarIsInitializedOp,
// VariableShape, DestroyResourceOp, ResourceGather, ResourceScatter*) and
// reference variables (VariableV2, Assign, AssignAdd/Sub, Scatter*,
// IsVariableInitialized, RefIdentity).
#include <atomic>
#include <cstring>
#include <memory>
#include <string>

#include "absl/strings/str_cat.h"
#include "base/tsan.h"
#include "kernels/kernels.h"
#include "kernels/state/update_functors.h"
#include "kernels/state/variable_util.h"
#include "runtime/resource_mgr.h"

namespace dfx {
namespace {

// ---------------------------------------------------------------------------
// Resource variables

// The shared_name TensorFlow 2's eager variables ask for
// (context.anonymous_name()): every run of such a VarHandleOp makes a
// variable of its own, named "_AnonymousVar<n>" as TensorFlow's resource
// manager names them, or every eager variable of one dtype and shape would
// be the same one.
constexpr char kAnonymousName[] = "cd2c89b7-88b7-44c8-ad83-06c2a9158347";
std::atomic<int64_t> next_anonymous_var{0};

class VarHandleOp : public OpKernel {
 public:
  explicit VarHandleOp(OpKernelConstruction* c) : OpKernel(c) {
    set_expensive(false);
    std::string container, shared_name;
    DataType dtype = DT_INVALID;
    TensorShapeProto shape;
    c->SetStatus(c->GetAttr("container", &container));
    c->SetStatus(c->GetAttr("shared_name", &shared_name));
    c->SetStatus(c->GetAttr("dtype", &dtype));
    c->SetStatus(c->GetAttr("shape", &shape));
    if (!c->status().ok()) return;
    ResourceHandle& h = handle_.scalar<ResourceHandle>();
    h.set_device(c->device()->name());
    h.set_container(container.empty()
                        ? c->device()->resource_manager()->default_container()
                        : container);
    // TensorFlow's clients always name the variable; a handle without a
    // shared_name is the node's own, as for reference variables.
    h.set_name(shared_name.empty() ? c->def().name() : shared_name);
    h.set_maybe_type_name(Var::kTypeName);
    h.set_dtypes_and_shapes({{dtype, shape}});
    anonymous_ = shared_name == kAnonymousName;
  }

  void Compute(OpKernelContext* ctx) override {
    if (!anonymous_) {
      ctx->set_output(0, handle_);
      return;
    }
    Tensor fresh(DT_RESOURCE, TensorShape());
    ResourceHandle& h = fresh.scalar<ResourceHandle>();
    h = handle_.scalar<ResourceHandle>();
    h.set_name(absl::StrCat("_AnonymousVar", next_anonymous_var.fetch_add(1)));
    ctx->set_output(0, std::move(fresh));
  }

 private:
  Tensor handle_{DT_RESOURCE, TensorShape()};
  bool anonymous_ = false;
};

class ReadVariableOp : public OpKernel {
 public:
  explicit ReadVariableOp(OpKernelConstruction* c) : OpKernel(c) {
    set_expensive(false);
    c->SetStatus(c->GetAttr("dtype", &dtype_));
  }

  void Compute(OpKernelContext* ctx) override {
    absl::StatusOr<std::shared_ptr<Var>> var = LookupVariableToRead(ctx, 0);
    DFX_OP_REQUIRES_OK(ctx, var.status());
    DFX_OP_REQUIRES(
        ctx, (*var)->dtype() == dtype_,
        absl::InvalidArgumentError(absl::StrCat(
            "Trying to read variable with wrong dtype. Expected ",
            DataTypeString((*var)->dtype()), " got ",
            DataTypeString(dtype_))));
    Tensor value;
    bool initialized = false;
    {
      absl::ReaderMutexLock lock((*var)->mu());
      initialized = (*var)->is_initialized();
      if (initialized) value = *(*var)->tensor();
    }
    if (!initialized) {
      const ResourceHandle& h = ctx->input(0).scalar<ResourceHandle>();
      ctx->SetStatus(absl::FailedPreconditionError(absl::StrCat(
          "Error while reading resource variable ", h.name(),
          " from Container: ", h.container(),
          ". This could mean that the variable was uninitialized.")));
      return;
    }
    ctx->set_output(0, std::move(value));
  }

 private:
  DataType dtype_ = DT_INVALID;
};

class AssignVariableOp : public OpKernel {
 public:
  explicit AssignVariableOp(OpKernelConstruction* c) : OpKernel(c) {
    c->SetStatus(c->GetAttr("dtype", &dtype_));
    c->SetStatus(c->GetAttr("validate_shape", &validate_shape_));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& value = ctx->input(1);
    absl::StatusOr<std::shared_ptr<Var>> var =
        LookupOrCreateVariable(ctx, 0, dtype_);
    DFX_OP_REQUIRES_OK(ctx, var.status());
    absl::MutexLock lock((*var)->mu());
    Tensor* t = (*var)->tensor();
    if (validate_shape_ && (*var)->is_initialized()) {
      DFX_OP_REQUIRES(
          ctx, t->shape() == value.shape(),
          absl::InvalidArgumentError(absl::StrCat(
              "Trying to assign to variable with tensor with wrong shape. "
              "Expected ",
              t->shape().DebugString(), " got ",
              value.shape().DebugString())));
    }
    // The variable shares the value's buffer; an in-place update copies it
    // first if anyone else still holds it (EnsureUnshared).
    *t = value;
    (*var)->set_initialized();
  }

 private:
  DataType dtype_ = DT_INVALID;
  bool validate_shape_ = false;
};

template <UpdateOp kOp>
class AssignUpdateVariableOp : public OpKernel {
 public:
  explicit AssignUpdateVariableOp(OpKernelConstruction* c) : OpKernel(c) {}

  void Compute(OpKernelContext* ctx) override {
    // TensorFlow always locks these.
    VariableInputs vars;
    DFX_OP_REQUIRES_OK(ctx, vars.Init(ctx, {0}, /*use_locking=*/true));
    DFX_OP_REQUIRES(
        ctx, vars.tensor(0)->dtype() == ctx->input(1).dtype(),
        absl::InvalidArgumentError(absl::StrCat(
            "the variable is ", DataTypeString(vars.tensor(0)->dtype()),
            ", the value ", DataTypeString(ctx->input(1).dtype()))));
    DFX_OP_REQUIRES_OK(
        ctx, DenseUpdate(*ctx->device(), kOp, ctx->input(1), vars.tensor(0)));
  }
};

class VarIsInitializedOp : public OpKernel {
 public:
  explicit VarIsInitializedOp(OpKernelConstruction* c) : OpKernel(c) {
    set_expensive(false);
  }

  void Compute(OpKernelContext* ctx) override {
    absl::StatusOr<const ResourceHandle*> h = HandleFromInput(ctx, 0);
    DFX_OP_REQUIRES_OK(ctx, h.status());
    absl::StatusOr<std::shared_ptr<Var>> var =
        ctx->resource_manager()->Lookup<Var>((*h)->container(),
                                             (*h)->name());
    bool initialized = false;
    if (var.ok()) {
      absl::ReaderMutexLock lock((*var)->mu());
      initialized = (*var)->is_initialized();
    }
    ctx->set_output(0, Tensor::Scalar<bool>(initialized));
  }
};

class VariableShapeOp : public OpKernel {
 public:
  explicit VariableShapeOp(OpKernelConstruction* c) : OpKernel(c) {
    set_expensive(false);
  }

  void Compute(OpKernelContext* ctx) override {
    absl::StatusOr<std::shared_ptr<Var>> var = LookupVariable(ctx, 0);
    DFX_OP_REQUIRES_OK(ctx, var.status());
    TensorShape shape;
    {
      absl::ReaderMutexLock lock((*var)->mu());
      shape = (*var)->tensor()->shape();
    }
    Tensor* out = nullptr;
    DFX_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, TensorShape({shape.dims()}),
                                                 &out));
    for (int d = 0; d < shape.dims(); ++d) {
      if (out->dtype() == DT_INT32) {
        out->data<int32_t>()[d] = static_cast<int32_t>(shape.dim_size(d));
      } else {
        out->data<int64_t>()[d] = shape.dim_size(d);
      }
    }
  }
};

class DestroyResourceOp : public OpKernel {
 public:
  explicit DestroyResourceOp(OpKernelConstruction* c) : OpKernel(c) {
    c->SetStatus(c->GetAttr("ignore_lookup_error", &ignore_lookup_error_));
  }

  void Compute(OpKernelContext* ctx) override {
    absl::StatusOr<const ResourceHandle*> h = HandleFromInput(ctx, 0);
    DFX_OP_REQUIRES_OK(ctx, h.status());
    const std::string type = (*h)->maybe_type_name().empty()
                                 ? std::string(Var::kTypeName)
                                 : (*h)->maybe_type_name();
    absl::Status s = ctx->resource_manager()->Delete((*h)->container(),
                                                     (*h)->name(), type);
    if (!s.ok() && !(ignore_lookup_error_ && absl::IsNotFound(s))) {
      ctx->SetStatus(s);
    }
  }

 private:
  bool ignore_lookup_error_ = true;
};

// Rows of `params` at `indices`: output shape indices.shape +
// params.shape[1:].
template <typename Index>
absl::Status GatherRows(const Tensor& params, const Tensor& indices,
                        Tensor* out) {
  const int64_t rows = params.dim_size(0);
  const int64_t row = rows == 0 ? 0 : params.NumElements() / rows;
  const Index* idx = indices.data<Index>();
  const int64_t n = indices.NumElements();
  for (int64_t i = 0; i < n; ++i) {
    if (idx[i] < 0 || idx[i] >= rows) {
      return absl::InvalidArgumentError(absl::StrCat(
          "indices[", i, "] = ", idx[i], " is not in [0, ", rows, ")"));
    }
  }
  if (params.dtype() == DT_STRING) {
    const std::string* src = params.data<std::string>();
    std::string* dst = out->data<std::string>();
    for (int64_t i = 0; i < n; ++i) {
      std::copy(src + idx[i] * row, src + (idx[i] + 1) * row, dst + i * row);
    }
    return absl::OkStatus();
  }
  const size_t bytes = static_cast<size_t>(row) * DataTypeSize(params.dtype());
  const char* src = static_cast<const char*>(params.raw_data());
  char* dst = static_cast<char*>(out->raw_data());
  for (int64_t i = 0; i < n; ++i) {
    std::memcpy(dst + i * bytes, src + idx[i] * bytes, bytes);
  }
  return absl::OkStatus();
}

class ResourceGatherOp : public OpKernel {
 public:
  explicit ResourceGatherOp(OpKernelConstruction* c) : OpKernel(c) {
    c->SetStatus(c->GetAttr("batch_dims", &batch_dims_));
    c->SetStatus(c->GetAttr("dtype", &dtype_));
    if (c->status().ok() && batch_dims_ != 0) {
      c->SetStatus(absl::UnimplementedError(absl::StrCat(
          "ResourceGather with batch_dims = ", batch_dims_,
          " is not supported; only batch_dims = 0")));
    }
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& indices = ctx->input(1);
    absl::StatusOr<Tensor> snapshot = ReadVariableSnapshot(ctx, 0, dtype_);
    DFX_OP_REQUIRES_OK(ctx, snapshot.status());
    const Tensor& params = *snapshot;
    DFX_OP_REQUIRES(ctx, params.dims() >= 1,
                    absl::InvalidArgumentError(absl::StrCat(
                        "params must be at least 1 dimensional, got shape ",
                        params.shape().DebugString())));
    TensorShape out_shape = indices.shape();
    for (int d = 1; d < params.dims(); ++d) {
      DFX_OP_REQUIRES_OK(ctx, out_shape.AddDim(params.dim_size(d)));
    }
    Tensor* out = nullptr;
    DFX_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, out_shape, &out));
    if (indices.dtype() == DT_INT32) {
      DFX_OP_REQUIRES_OK(ctx, GatherRows<int32_t>(params, indices, out));
    } else {
      DFX_OP_REQUIRES_OK(ctx, GatherRows<int64_t>(params, indices, out));
    }
  }

 private:
  int64_t batch_dims_ = 0;
  DataType dtype_ = DT_INVALID;
};

template <UpdateOp kOp>
class ResourceScatterOp : public OpKernel {
 public:
  explicit ResourceScatterOp(OpKernelConstruction* c) : OpKernel(c) {}

  void Compute(OpKernelContext* ctx) override {
    VariableInputs vars;
    DFX_OP_REQUIRES_OK(ctx, vars.Init(ctx, {0}, /*use_locking=*/true));
    DFX_OP_REQUIRES_OK(
        ctx, ScatterUpdate(kOp, ctx->input(1), ctx->input(2),
                           /*allow_scalar_updates=*/true, vars.tensor(0)));
  }
};

// ---------------------------------------------------------------------------
// Reference variables

class VariableV2Op : public OpKernel {
 public:
  explicit VariableV2Op(OpKernelConstruction* c) : OpKernel(c) {
    set_expensive(false);
    c->SetStatus(c->GetAttr("container", &container_));
    c->SetStatus(c->GetAttr("shared_name", &name_));
    c->SetStatus(c->GetAttr("dtype", &dtype_));
    if (name_.empty()) name_ = c->def().name();
  }

  void Compute(OpKernelContext* ctx) override {
    const DataType dtype = dtype_;
    // Looked up every step, so a reset container gives a fresh variable.
    absl::StatusOr<std::shared_ptr<LegacyVar>> var =
        ctx->resource_manager()->LookupOrCreate<LegacyVar>(
            container_, name_,
            [dtype] { return std::make_shared<LegacyVar>(dtype); });
    DFX_OP_REQUIRES_OK(ctx, var.status());
    DFX_OP_REQUIRES(ctx, (*var)->dtype() == dtype_,
                    absl::InvalidArgumentError(absl::StrCat(
                        "variable ", name_, " exists with dtype ",
                        DataTypeString((*var)->dtype()), ", not ",
                        DataTypeString(dtype_))));
    // The Var stays alive in the resource manager while the reference is
    // used: a container reset during a step is the caller's race, as in
    // TensorFlow.
    ctx->set_output_ref(0, TensorRef{(*var)->tensor(), (*var)->mu()});
  }

 private:
  std::string container_;
  std::string name_;
  DataType dtype_ = DT_INVALID;
};

class AssignOp : public OpKernel {
 public:
  // use_locking is accepted and not needed: Assign always holds the
  // variable's mutex, since it may replace the tensor object.
  explicit AssignOp(OpKernelConstruction* c) : OpKernel(c) {
    c->SetStatus(c->GetAttr("validate_shape", &validate_shape_));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& value = ctx->input(1);
    const TensorRef ref = ctx->input_ref(0);
    absl::MutexLock lock(ref.mu);
    Tensor* t = ref.tensor;
    const bool initialized = t->IsInitialized();
    if (validate_shape_ && initialized) {
      DFX_OP_REQUIRES(
          ctx, t->shape() == value.shape(),
          absl::InvalidArgumentError(absl::StrCat(
              "Assign requires shapes of both tensors to match. lhs shape= ",
              t->shape().DebugString(),
              " rhs shape= ", value.shape().DebugString())));
    }
    if (initialized && t->shape() == value.shape() &&
        t->dtype() == value.dtype() && DataTypeCanMemcpy(value.dtype())) {
      // In place: readers of the reference see the new value.
      if (value.TotalBytes() > 0 && !value.SharesBufferWith(*t)) {
        ScopedTsanIgnoreAccesses hogwild;
        std::memcpy(t->raw_data(), value.raw_data(), value.TotalBytes());
      }
    } else {
      absl::StatusOr<Tensor> copy = CopyTensor(ctx, value);
      DFX_OP_REQUIRES_OK(ctx, copy.status());
      *t = *std::move(copy);
    }
    ctx->forward_ref_input_to_ref_output(0, 0);
  }

 private:
  bool validate_shape_ = true;
};

template <UpdateOp kOp>
class AssignUpdateRefOp : public OpKernel {
 public:
  explicit AssignUpdateRefOp(OpKernelConstruction* c) : OpKernel(c) {
    c->SetStatus(c->GetAttr("use_locking", &use_locking_));
  }

  void Compute(OpKernelContext* ctx) override {
    VariableInputs vars;
    DFX_OP_REQUIRES_OK(ctx, vars.Init(ctx, {0}, use_locking_));
    DFX_OP_REQUIRES_OK(ctx, DenseUpdate(*ctx->device(), kOp, ctx->input(1),
                                        vars.tensor(0), vars.hogwild()));
    ctx->forward_ref_input_to_ref_output(0, 0);
  }

 private:
  bool use_locking_ = false;
};

template <UpdateOp kOp>
class ScatterRefOp : public OpKernel {
 public:
  explicit ScatterRefOp(OpKernelConstruction* c) : OpKernel(c) {
    c->SetStatus(c->GetAttr("use_locking", &use_locking_));
  }

  void Compute(OpKernelContext* ctx) override {
    VariableInputs vars;
    DFX_OP_REQUIRES_OK(ctx, vars.Init(ctx, {0}, use_locking_));
    absl::Status status;
    {
      ScopedTsanIgnoreAccesses ignore(vars.hogwild());
      status = ScatterUpdate(kOp, ctx->input(1), ctx->input(2),
                             /*allow_scalar_updates=*/false, vars.tensor(0));
    }
    DFX_OP_REQUIRES_OK(ctx, status);
    ctx->forward_ref_input_to_ref_output(0, 0);
  }

 private:
  bool use_locking_ = false;
};

class IsVariableInitializedOp : public OpKernel {
 public:
  explicit IsVariableInitializedOp(OpKernelConstruction* c) : OpKernel(c) {
    set_expensive(false);
  }

  void Compute(OpKernelContext* ctx) override {
    const TensorRef ref = ctx->input_ref(0);
    bool initialized = false;
    {
      absl::ReaderMutexLock lock(ref.mu);
      initialized = ref.tensor->IsInitialized();
    }
    ctx->set_output(0, Tensor::Scalar<bool>(initialized));
  }
};

class RefIdentityOp : public OpKernel {
 public:
  explicit RefIdentityOp(OpKernelConstruction* c) : OpKernel(c) {
    set_expensive(false);
  }
  void Compute(OpKernelContext* ctx) override {
    ctx->forward_ref_input_to_ref_output(0, 0);
  }
};

}  // namespace

void RegisterStateKernels(KernelRegistry* r) {
  RegisterKernel<VarHandleOp>(r, KernelDefBuilder("VarHandleOp"));
  RegisterKernel<ReadVariableOp>(r, KernelDefBuilder("ReadVariableOp"));
  RegisterKernel<AssignVariableOp>(r, KernelDefBuilder("AssignVariableOp"));
  RegisterKernel<AssignUpdateVariableOp<UpdateOp::kAdd>>(
      r, KernelDefBuilder("AssignAddVariableOp"));
  RegisterKernel<AssignUpdateVariableOp<UpdateOp::kSub>>(
      r, KernelDefBuilder("AssignSubVariableOp"));
  RegisterKernel<VarIsInitializedOp>(r, KernelDefBuilder("VarIsInitializedOp"));
  RegisterKernel<VariableShapeOp>(r, KernelDefBuilder("VariableShape"));
  RegisterKernel<DestroyResourceOp>(r, KernelDefBuilder("DestroyResourceOp"));
  RegisterKernel<ResourceGatherOp>(r, KernelDefBuilder("ResourceGather"));
  RegisterKernel<ResourceScatterOp<UpdateOp::kAdd>>(
      r, KernelDefBuilder("ResourceScatterAdd"));
  RegisterKernel<ResourceScatterOp<UpdateOp::kSub>>(
      r, KernelDefBuilder("ResourceScatterSub"));
  RegisterKernel<ResourceScatterOp<UpdateOp::kMul>>(
      r, KernelDefBuilder("ResourceScatterMul"));
  RegisterKernel<ResourceScatterOp<UpdateOp::kDiv>>(
      r, KernelDefBuilder("ResourceScatterDiv"));
  RegisterKernel<ResourceScatterOp<UpdateOp::kMin>>(
      r, KernelDefBuilder("ResourceScatterMin"));
  RegisterKernel<ResourceScatterOp<UpdateOp::kMax>>(
      r, KernelDefBuilder("ResourceScatterMax"));
  RegisterKernel<ResourceScatterOp<UpdateOp::kAssign>>(
      r, KernelDefBuilder("ResourceScatterUpdate"));

  RegisterKernel<VariableV2Op>(r, KernelDefBuilder("VariableV2"));
  RegisterKernel<VariableV2Op>(r, KernelDefBuilder("Variable"));
  RegisterKernel<AssignOp>(r, KernelDefBuilder("Assign"));
  RegisterKernel<AssignUpdateRefOp<UpdateOp::kAdd>>(
      r, KernelDefBuilder("AssignAdd"));
  RegisterKernel<AssignUpdateRefOp<UpdateOp::kSub>>(
      r, KernelDefBuilder("AssignSub"));
  RegisterKernel<IsVariableInitializedOp>(
      r, KernelDefBuilder("IsVariableInitialized"));
  RegisterKernel<RefIdentityOp>(r, KernelDefBuilder("RefIdentity"));
  RegisterKernel<ScatterRefOp<UpdateOp::kAdd>>(r,
                                               KernelDefBuilder("ScatterAdd"));
  RegisterKernel<ScatterRefOp<UpdateOp::kSub>>(r,
                                               KernelDefBuilder("ScatterSub"));
  RegisterKernel<ScatterRefOp<UpdateOp::kMul>>(r,
                                               KernelDefBuilder("ScatterMul"));
  RegisterKernel<ScatterRefOp<UpdateOp::kDiv>>(r,
                                               KernelDefBuilder("ScatterDiv"));
  RegisterKernel<ScatterRefOp<UpdateOp::kMin>>(r,
                                               KernelDefBuilder("ScatterMin"));
  RegisterKernel<ScatterRefOp<UpdateOp::kMax>>(r,
                                               KernelDefBuilder("ScatterMax"));
  RegisterKernel<ScatterRefOp<UpdateOp::kAssign>>(
      r, KernelDefBuilder("ScatterUpdate"));
}

}  // namespace dfx
