#include "kernels/data_flow/data_flow_util.h"

#include <algorithm>
#include <cstring>

#include "absl/strings/str_join.h"
#include "base/logging.h"
#include "base/status_macros.h"
#include "kernels/kernels.h"
#include "runtime/variant.h"

namespace dfx {
namespace data_flow {

absl::StatusOr<ScopedStepContainer*> StepContainer(OpKernelContext* ctx) {
  if (ctx->step_container() == nullptr) {
    return absl::InternalError(
        "no per-step container: stacks and TensorArrays live one step, and "
        "this kernel runs outside of one");
  }
  return ctx->step_container();
}

absl::StatusOr<Tensor> MakeStepHandle(OpKernelContext* ctx,
                                      const std::string& name,
                                      const std::string& type_name) {
  DFX_ASSIGN_OR_RETURN(ScopedStepContainer * step, StepContainer(ctx));
  Tensor handle(DT_RESOURCE, TensorShape());
  ResourceHandle& h = handle.scalar<ResourceHandle>();
  h.set_device(ctx->device()->name());
  h.set_container(step->name());
  h.set_name(name);
  h.set_maybe_type_name(type_name);
  return handle;
}

PartialShape ToPartial(const TensorShape& shape) {
  return PartialShape::Known(
      std::vector<int64_t>(shape.dim_sizes().begin(), shape.dim_sizes().end()));
}

bool IsCompatible(const PartialShape& partial, const TensorShape& shape) {
  if (!partial.RankKnown()) return true;
  if (partial.rank() != shape.dims()) return false;
  for (int i = 0; i < shape.dims(); ++i) {
    if (partial.dims[i] >= 0 && partial.dims[i] != shape.dim_size(i)) {
      return false;
    }
  }
  return true;
}

absl::StatusOr<PartialShape> MergeShapes(const PartialShape& a,
                                         const PartialShape& b) {
  if (!a.RankKnown()) return b;
  if (!b.RankKnown()) return a;
  if (a.rank() != b.rank()) {
    return absl::InvalidArgumentError(
        absl::StrCat("Incompatible ranks during merge: ", a.rank(), " vs. ",
                     b.rank()));
  }
  PartialShape out = a;
  for (int i = 0; i < a.rank(); ++i) {
    if (a.dims[i] >= 0 && b.dims[i] >= 0 && a.dims[i] != b.dims[i]) {
      return absl::InvalidArgumentError(
          absl::StrCat("Incompatible shapes during merge: ", a.DebugString(),
                       " vs. ", b.DebugString()));
    }
    if (out.dims[i] < 0) out.dims[i] = b.dims[i];
  }
  return out;
}

TensorShape ToTensorShape(const PartialShape& partial) {
  TensorShape shape;
  for (int64_t d : partial.dims) {
    DFX_CHECK_OK(shape.AddDim(d));
  }
  return shape;
}

bool CanMove(DataType dtype) {
  return DataTypeCanMemcpy(dtype) || dtype == DT_STRING ||
         dtype == DT_RESOURCE;
}

void CopyElements(const Tensor& src, int64_t src_offset, Tensor* dst,
                  int64_t dst_offset, int64_t n) {
  if (n <= 0) return;
  switch (src.dtype()) {
    case DT_STRING: {
      const std::string* from = src.data<std::string>() + src_offset;
      std::copy(from, from + n, dst->data<std::string>() + dst_offset);
      return;
    }
    case DT_RESOURCE: {
      const ResourceHandle* from = src.data<ResourceHandle>() + src_offset;
      std::copy(from, from + n, dst->data<ResourceHandle>() + dst_offset);
      return;
    }
    case DT_VARIANT: {  // shares the values, which are immutable
      const Variant* from = src.data<Variant>() + src_offset;
      std::copy(from, from + n, dst->data<Variant>() + dst_offset);
      return;
    }
    default: {
      const size_t elem = DataTypeSize(src.dtype());
      std::memcpy(static_cast<char*>(dst->raw_data()) + dst_offset * elem,
                  static_cast<const char*>(src.raw_data()) + src_offset * elem,
                  static_cast<size_t>(n) * elem);
    }
  }
}

Tensor SharedResourceHandle(const Device& device, bool ref,
                            const std::string& container,
                            const std::string& name,
                            const std::string& type_name) {
  if (ref) {
    Tensor handle(DT_STRING, TensorShape({2}));
    handle.data<std::string>()[0] = container;
    handle.data<std::string>()[1] = name;
    return handle;
  }
  Tensor handle(DT_RESOURCE, TensorShape());
  ResourceHandle& h = handle.scalar<ResourceHandle>();
  h.set_device(device.name());
  h.set_container(container);
  h.set_name(name);
  h.set_maybe_type_name(type_name);
  return handle;
}

namespace {

absl::Status StringHandleName(const Tensor& h, int index,
                              std::string* container, std::string* name) {
  if (h.dtype() != DT_STRING || h.NumElements() != 2) {
    return absl::InvalidArgumentError(absl::StrCat(
        "input ", index, " must be a handle of 2 strings (container, name), "
        "got a ", DataTypeString(h.dtype()), " tensor of shape ",
        h.shape().DebugString()));
  }
  *container = h.data<std::string>()[0];
  *name = h.data<std::string>()[1];
  return absl::OkStatus();
}

// The referenced [2] string handle of a v1 TensorArray or Stack: the
// reference output's tensor, kept in the step's container until the step
// ends (the consumers of the reference run within the step).
class StringHandleRef : public ResourceBase {
 public:
  static constexpr const char* kTypeName = "StringHandleRef";
  explicit StringHandleRef(Tensor handle) : handle_(std::move(handle)) {}
  std::string TypeName() const override { return kTypeName; }
  std::string DebugString() const override {
    return absl::StrCat("StringHandleRef[", handle_.data<std::string>()[1],
                        "]");
  }
  TensorRef ref() { return TensorRef{&handle_, &mu_}; }

 private:
  absl::Mutex mu_;
  Tensor handle_;  // written before the resource is shared, never after
};

}  // namespace

absl::Status SetStepHandleOutput(OpKernelContext* ctx,
                                 const std::string& prefix,
                                 const std::string& name,
                                 const std::string& type_name) {
  const DataType out = ctx->op_kernel().output_type(0);
  const std::string key = absl::StrCat(prefix, name);
  if (out == DT_RESOURCE) {
    DFX_ASSIGN_OR_RETURN(Tensor handle, MakeStepHandle(ctx, key, type_name));
    ctx->set_output(0, std::move(handle));
    return absl::OkStatus();
  }
  Tensor handle(DT_STRING, TensorShape({2}));
  handle.data<std::string>()[0] = prefix;
  handle.data<std::string>()[1] = name;
  if (!IsRefType(out)) {
    ctx->set_output(0, std::move(handle));
    return absl::OkStatus();
  }
  DFX_ASSIGN_OR_RETURN(ScopedStepContainer * step, StepContainer(ctx));
  // A gradient array's kernel runs once per gradient op of one array: the
  // first makes the tensor, the later ones refer to it too.
  DFX_ASSIGN_OR_RETURN(
      std::shared_ptr<StringHandleRef> holder,
      ctx->resource_manager()->LookupOrCreate<StringHandleRef>(
          step->name(), absl::StrCat(key, "/ref_handle"),
          [&handle]() -> std::shared_ptr<StringHandleRef> {
            return std::make_shared<StringHandleRef>(handle);
          }));
  ctx->set_output_ref(0, holder->ref());
  return absl::OkStatus();
}

absl::Status HandleNameFromInput(OpKernelContext* ctx, int index,
                                 std::string* container, std::string* name) {
  const DataType type = ctx->op_kernel().input_type(index);
  if (IsRefType(type)) {
    const TensorRef ref = ctx->input_ref(index);
    absl::ReaderMutexLock lock(ref.mu);
    return StringHandleName(*ref.tensor, index, container, name);
  }
  if (type == DT_STRING) {
    return StringHandleName(ctx->input(index), index, container, name);
  }
  absl::StatusOr<const ResourceHandle*> h = HandleFromInput(ctx, index);
  if (!h.ok()) return h.status();
  *container = (*h)->container();
  *name = (*h)->name();
  return absl::OkStatus();
}

std::string TypesString(const DataTypeVector& types) {
  std::vector<std::string> names;
  for (DataType t : types) names.push_back(DataTypeString(t));
  return absl::StrCat("[", absl::StrJoin(names, ", "), "]");
}

int64_t TupleBytes(const std::vector<Tensor>& tuple) {
  int64_t bytes = 0;
  for (const Tensor& t : tuple) bytes += static_cast<int64_t>(t.TotalBytes());
  return bytes;
}

}  // namespace data_flow

void RegisterDataFlowKernels(KernelRegistry* registry) {
  data_flow::RegisterStackKernels(registry);
  data_flow::RegisterTensorArrayKernels(registry);
  data_flow::RegisterQueueKernels(registry);
  data_flow::RegisterAccumulatorKernels(registry);
  data_flow::RegisterStagingKernels(registry);
  data_flow::RegisterBarrierKernels(registry);
}

}  // namespace dfx
