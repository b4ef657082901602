#include "kernels/state/variable_util.h"

#include <algorithm>
#include <cstring>

#include "absl/strings/str_cat.h"
#include "base/status_macros.h"

namespace dfx {

absl::StatusOr<const ResourceHandle*> HandleFromInput(OpKernelContext* ctx,
                                                      int index) {
  const Tensor& t = ctx->input(index);
  if (t.dtype() != DT_RESOURCE || t.NumElements() != 1) {
    return absl::InvalidArgumentError(absl::StrCat(
        "input ", index, " must be a scalar resource handle, got a ",
        DataTypeString(t.dtype()), " tensor of shape ",
        t.shape().DebugString()));
  }
  const ResourceHandle* h = &t.scalar<ResourceHandle>();
  if (!h->device().empty() && h->device() != ctx->device()->name()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "resource ", h->container(), "/", h->name(), " lives on ",
        h->device(), ", but this kernel runs on ", ctx->device()->name(),
        "; a resource is used on the device that holds it"));
  }
  return h;
}

absl::StatusOr<std::shared_ptr<Var>> LookupVariable(OpKernelContext* ctx,
                                                    int index) {
  DFX_ASSIGN_OR_RETURN(const ResourceHandle* h, HandleFromInput(ctx, index));
  return ctx->resource_manager()->Lookup<Var>(h->container(), h->name());
}

absl::StatusOr<std::shared_ptr<Var>> LookupVariableToRead(
    OpKernelContext* ctx, int index) {
  absl::StatusOr<std::shared_ptr<Var>> var = LookupVariable(ctx, index);
  if (!absl::IsNotFound(var.status())) return var;
  const ResourceHandle& h = ctx->input(index).scalar<ResourceHandle>();
  return absl::FailedPreconditionError(absl::StrCat(
      "Could not find variable ", h.name(),
      ". This could mean that the variable has been deleted. In TF1, it "
      "can also mean the variable is uninitialized. Debug info: "
      "container=",
      h.container().empty() ? ctx->resource_manager()->default_container()
                            : h.container(),
      ", status error message=", var.status().message()));
}

absl::StatusOr<Tensor> ReadVariableSnapshot(OpKernelContext* ctx, int index,
                                            DataType dtype) {
  DFX_ASSIGN_OR_RETURN(std::shared_ptr<Var> var, LookupVariable(ctx, index));
  Tensor value;
  {
    absl::ReaderMutexLock lock(var->mu());
    if (!var->is_initialized()) {
      return absl::FailedPreconditionError(
          absl::StrCat("Attempting to use uninitialized value ",
                       ctx->op_kernel().def().input(index)));
    }
    value = *var->tensor();
  }
  if (value.dtype() != dtype) {
    return absl::InvalidArgumentError(absl::StrCat(
        "Trying to read variable with wrong dtype. Expected ",
        DataTypeString(value.dtype()), " got ", DataTypeString(dtype)));
  }
  return value;
}

absl::StatusOr<std::shared_ptr<Var>> LookupOrCreateVariable(
    OpKernelContext* ctx, int index, DataType dtype) {
  DFX_ASSIGN_OR_RETURN(const ResourceHandle* h, HandleFromInput(ctx, index));
  DFX_ASSIGN_OR_RETURN(
      std::shared_ptr<Var> var,
      ctx->resource_manager()->LookupOrCreate<Var>(
          h->container(), h->name(),
          [dtype] { return std::make_shared<Var>(dtype); }));
  if (var->dtype() != dtype) {
    return absl::InvalidArgumentError(absl::StrCat(
        "Trying to assign variable with wrong dtype. Expected ",
        DataTypeString(var->dtype()), " got ", DataTypeString(dtype)));
  }
  return var;
}

absl::StatusOr<Tensor> CopyTensor(OpKernelContext* ctx, const Tensor& src) {
  // A GPU's tensor is copied within its memory, a host tensor on a GPU
  // (int32) within host memory.
  Device* device = ctx->device();
  if (!src.OnHost()) return device->CopyOnDevice(src);
  DFX_ASSIGN_OR_RETURN(
      Tensor copy,
      Tensor::Allocate(device->HostReadable() ? ctx->allocator()
                                              : device->GetHostAllocator(),
                       src.dtype(), src.shape()));
  if (src.dtype() == DT_STRING) {
    const std::string* from = src.data<std::string>();
    std::copy(from, from + src.NumElements(), copy.data<std::string>());
  } else if (src.TotalBytes() > 0) {
    std::memcpy(copy.raw_data(), src.raw_data(), src.TotalBytes());
  }
  return copy;
}

absl::Status EnsureUnshared(OpKernelContext* ctx, Tensor* tensor) {
  if (tensor->BufferRefCount() == 0 || tensor->BufferUnshared()) {
    return absl::OkStatus();
  }
  DFX_ASSIGN_OR_RETURN(Tensor copy, CopyTensor(ctx, *tensor));
  *tensor = std::move(copy);
  return absl::OkStatus();
}

VariableInputs::~VariableInputs() {
  for (absl::Mutex* mu : locked_) mu->Unlock();
}

absl::Status VariableInputs::Init(OpKernelContext* ctx,
                                  absl::Span<const int> ids,
                                  bool use_locking) {
  const OpKernel& kernel = ctx->op_kernel();
  std::vector<absl::Mutex*> mutexes;
  std::vector<bool> is_resource;
  for (int id : ids) {
    if (IsRefType(kernel.input_type(id))) {
      TensorRef ref = ctx->input_ref(id);
      vars_.push_back(nullptr);
      tensors_.push_back(ref.tensor);
      refs_.push_back(ref);
      mutexes.push_back(ref.mu);
      is_resource.push_back(false);
    } else {
      DFX_ASSIGN_OR_RETURN(std::shared_ptr<Var> var, LookupVariable(ctx, id));
      tensors_.push_back(var->tensor());
      refs_.push_back(TensorRef{var->tensor(), var->mu()});
      mutexes.push_back(var->mu());
      vars_.push_back(std::move(var));
      is_resource.push_back(true);
    }
  }
  // Every resource variable is locked while its buffer is un-shared (the
  // tensor object is replaced then); with use_locking all stay locked.
  std::vector<absl::Mutex*> order;
  for (size_t k = 0; k < ids.size(); ++k) {
    if (use_locking || is_resource[k]) order.push_back(mutexes[k]);
  }
  hogwild_ = !use_locking ||
             std::find(is_resource.begin(), is_resource.end(), false) !=
                 is_resource.end();
  std::sort(order.begin(), order.end());
  order.erase(std::unique(order.begin(), order.end()), order.end());
  for (absl::Mutex* mu : order) mu->Lock();
  absl::Status status;
  for (size_t k = 0; k < ids.size() && status.ok(); ++k) {
    const bool initialized =
        is_resource[k] ? vars_[k]->is_initialized()
                       : tensors_[k]->IsInitialized();
    if (!initialized) {
      status = absl::FailedPreconditionError(absl::StrCat(
          "Attempting to use uninitialized value ",
          kernel.def().input(ids[k])));
      break;
    }
    if (is_resource[k]) status = EnsureUnshared(ctx, tensors_[k]);
  }
  if (use_locking) {
    locked_ = std::move(order);
  } else {
    for (absl::Mutex* mu : order) mu->Unlock();
  }
  return status;
}

}  // namespace dfx
