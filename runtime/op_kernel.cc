#include "runtime/op_kernel.h"

#include <algorithm>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "base/logging.h"
#include "base/status_macros.h"
#include "graph/graph.h"

namespace dfx {

OpKernel::OpKernel(OpKernelConstruction* ctx)
    : def_(ctx->shared_def() != nullptr
               ? ctx->shared_def()
               : std::make_shared<const NodeDef>(ctx->def())),
      input_types_(ctx->input_types()),
      output_types_(ctx->output_types()) {
  // On a device the host cannot read, the default memory types (the
  // registry refines them: KernelRegistry::SetMemoryTypes).
  if (ctx->device() != nullptr && !ctx->device()->HostReadable()) {
    runs_on_host_ = false;
    for (DataType t : input_types_) {
      input_on_host_.push_back(AlwaysInHostMemory(t));
    }
    for (DataType t : output_types_) {
      output_on_host_.push_back(AlwaysInHostMemory(t));
    }
  }
}

OpKernel::~OpKernel() = default;

void AsyncOpKernel::Compute(OpKernelContext* ctx) {
  DFX_CHECK_MSG(false, "AsyncOpKernel::Compute called; use ComputeAsync");
}

OpKernelContext::OpKernelContext(Params* params) : params_(params) {
  outputs_.resize(params_->op_kernel->num_outputs());
}

OpKernelContext::~OpKernelContext() = default;

absl::Status OpKernelContext::forward_input_or_allocate_output(
    std::initializer_list<int> inputs, int output, const TensorShape& shape,
    Tensor** out) {
  DFX_CHECK(output >= 0 && output < num_outputs());
  const OpKernel& kernel = *params_->op_kernel;
  const DataType dtype = BaseType(kernel.output_type(output));
  if (params_->device->HostReadable() && DataTypeCanMemcpy(dtype)) {
    for (int i : inputs) {
      const Tensor& in = input(i);
      if (IsRefType(kernel.input_type(i)) || in.dtype() != dtype ||
          in.shape() != shape || !in.CanWriteInPlace() || input_aliased(i)) {
        continue;
      }
      outputs_[output] = in;
      *out = &outputs_[output];
      return absl::OkStatus();
    }
  }
  return allocate_output(output, shape, out);
}

absl::Status OpKernelContext::allocate_output(int i, const TensorShape& shape,
                                              Tensor** out) {
  DFX_CHECK(i >= 0 && i < num_outputs());
  const OpKernel& kernel = *params_->op_kernel;
  auto t = Tensor::Allocate(kernel.output_on_host(i)
                                ? params_->device->GetHostAllocator()
                                : params_->device->GetAllocator(),
                            BaseType(kernel.output_type(i)), shape);
  if (!t.ok()) {
    SetStatus(t.status());
    return t.status();
  }
  outputs_[i] = std::move(t).value();
  *out = &outputs_[i];
  return absl::OkStatus();
}

void OpKernelContext::set_output(int i, Tensor value) {
  DFX_CHECK(i >= 0 && i < num_outputs());
  const DataType want = BaseType(params_->op_kernel->output_type(i));
  if (value.dtype() != want) {
    SetStatus(absl::InternalError(absl::StrCat(
        "kernel set output ", i, " to a ", DataTypeString(value.dtype()),
        " tensor, but the op declares ", DataTypeString(want))));
    return;
  }
  outputs_[i] = std::move(value);
}

TensorRef OpKernelContext::input_ref(int i) const {
  DFX_CHECK(i >= 0 && i < num_inputs());
  DFX_CHECK(IsRefType(params_->op_kernel->input_type(i)));
  DFX_CHECK(!params_->input_refs.empty());
  return params_->input_refs[i];
}

void OpKernelContext::set_output_ref(int i, TensorRef ref) {
  DFX_CHECK(i >= 0 && i < num_outputs());
  DFX_CHECK(IsRefType(params_->op_kernel->output_type(i)));
  if (output_refs_.empty()) output_refs_.resize(outputs_.size());
  output_refs_[i] = ref;
}

ResourceMgr* OpKernelContext::resource_manager() const {
  return params_->device->resource_manager();
}

absl::Status OpKernelContext::allocate_temp(DataType dtype,
                                            const TensorShape& shape,
                                            Tensor* out) {
  auto t = Tensor::Allocate(AlwaysInHostMemory(dtype)
                                ? params_->device->GetHostAllocator()
                                : allocator(),
                            dtype, shape);
  if (!t.ok()) return t.status();
  *out = std::move(t).value();
  return absl::OkStatus();
}

void OpKernelContext::SetStatus(absl::Status s) {
  if (status_.ok() && !s.ok()) status_ = std::move(s);
}

bool AlwaysInHostMemory(DataType dtype) {
  const DataType base = BaseType(dtype);
  return base == DT_INT32 || base == DT_STRING || base == DT_RESOURCE ||
         base == DT_VARIANT;
}

void KernelRegistry::Register(const KernelDefBuilder& def,
                              KernelFactory factory) {
  absl::MutexLock lock(&mu_);
  kernels_[absl::StrCat(def.op(), ":", def.device_type())].push_back(
      Registration{def, std::move(factory)});
}

void KernelRegistry::RegisterCpuKernelOn(const KernelDefBuilder& def) {
  Register(def, [this](OpKernelConstruction* ctx)
                    -> std::unique_ptr<OpKernel> {
    const Registration* cpu = Find(ctx->def(), "CPU");
    if (cpu == nullptr) {
      ctx->SetStatus(absl::NotFoundError(absl::StrCat(
          "no CPU kernel to run on the host for op ", ctx->def().op())));
      return nullptr;
    }
    return cpu->factory(ctx);
  });
}

namespace {

// Marks in `on_host` the tensors of the op's args named in `names`.
absl::Status MarkHostArgs(
    const NodeDef& node,
    const google::protobuf::RepeatedPtrField<OpDef::ArgDef>& args,
    const std::vector<std::string>& names, std::vector<bool>* on_host) {
  size_t start = 0;
  for (const OpDef::ArgDef& arg : args) {
    int count = 0;
    DFX_RETURN_IF_ERROR(NumTensorsForArg(node, arg, &count));
    if (std::find(names.begin(), names.end(), arg.name()) != names.end()) {
      for (int k = 0; k < count && start + k < on_host->size(); ++k) {
        (*on_host)[start + k] = true;
      }
    }
    start += count;
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status KernelRegistry::SetMemoryTypes(const KernelDefBuilder& def,
                                            const OpDef& op_def,
                                            OpKernel* kernel) {
  // The constructor set the defaults (AlwaysInHostMemory).
  if (def.all_host_memory()) {
    kernel->runs_on_host_ = true;
    kernel->input_on_host_.assign(kernel->num_inputs(), true);
    kernel->output_on_host_.assign(kernel->num_outputs(), true);
    return absl::OkStatus();
  }
  if (def.host_memory_args().empty()) return absl::OkStatus();
  DFX_RETURN_IF_ERROR(MarkHostArgs(kernel->def(), op_def.input_arg(),
                                   def.host_memory_args(),
                                   &kernel->input_on_host_));
  return MarkHostArgs(kernel->def(), op_def.output_arg(),
                      def.host_memory_args(), &kernel->output_on_host_);
}

const KernelRegistry::Registration* KernelRegistry::Find(
    const NodeDef& node, absl::string_view device_type) const {
  absl::ReaderMutexLock lock(&mu_);
  auto it = kernels_.find(absl::StrCat(node.op(), ":", device_type));
  if (it == kernels_.end()) return nullptr;
  for (const Registration& r : it->second) {
    bool match = true;
    for (const auto& c : r.def.constraints()) {
      DataType t;
      if (!GetNodeAttr(node, c.attr, &t).ok() ||
          std::find(c.allowed.begin(), c.allowed.end(), t) ==
              c.allowed.end()) {
        match = false;
        break;
      }
    }
    if (match) return &r;
  }
  return nullptr;
}

bool KernelRegistry::HasKernel(const NodeDef& node,
                               absl::string_view device_type) const {
  return Find(node, device_type) != nullptr;
}

absl::StatusOr<std::unique_ptr<OpKernel>> KernelRegistry::CreateKernel(
    const NodeDef& node, const OpDef& op_def, Device* device,
    const FunctionDefLibrary* library) const {
  DataTypeVector inputs, outputs;
  DFX_RETURN_IF_ERROR(InOutTypesForNode(node, op_def, &inputs, &outputs));
  return Create(node, nullptr, op_def, inputs, outputs, device, library);
}

absl::StatusOr<std::unique_ptr<OpKernel>> KernelRegistry::CreateKernel(
    const Node& node, Device* device,
    const FunctionDefLibrary* library) const {
  return Create(node.def(), node.shared_def(), node.op_def(),
                node.input_types(), node.output_types(), device, library);
}

absl::StatusOr<std::unique_ptr<OpKernel>> KernelRegistry::Create(
    const NodeDef& node, std::shared_ptr<const NodeDef> shared,
    const OpDef& op_def, const DataTypeVector& inputs,
    const DataTypeVector& outputs, Device* device,
    const FunctionDefLibrary* library) const {
  const Registration* r = Find(node, device->device_type());
  if (r == nullptr) {
    std::vector<std::string> attrs;
    for (const auto& [name, value] : node.attr()) {
      if (value.value_case() == AttrValue::kType) {
        attrs.push_back(absl::StrCat(name, "=", DataTypeString(value.type())));
      }
    }
    std::sort(attrs.begin(), attrs.end());
    return absl::NotFoundError(absl::StrCat(
        "no ", device->device_type(), " kernel for node '", node.name(),
        "' (op ", node.op(), attrs.empty() ? "" : ", ",
        absl::StrJoin(attrs, ", "), ")"));
  }
  OpKernelConstruction ctx(node, op_def, inputs, outputs, device, library);
  ctx.set_shared_def(std::move(shared));
  std::unique_ptr<OpKernel> kernel = r->factory(&ctx);
  if (!ctx.status().ok()) {
    return absl::Status(ctx.status().code(),
                        absl::StrCat("node '", node.name(), "' (op ",
                                     node.op(), "): ", ctx.status().message()));
  }
  if (!device->HostReadable()) {
    DFX_RETURN_IF_ERROR(SetMemoryTypes(r->def, op_def, kernel.get()));
  }
  return kernel;
}

std::vector<std::string> KernelRegistry::ListKernels() const {
  absl::ReaderMutexLock lock(&mu_);
  std::vector<std::string> out;
  for (const auto& [key, regs] : kernels_) {
    for (const Registration& r : regs) {
      std::string line = absl::StrCat(r.def.op(), " on ", r.def.device_type());
      for (const auto& c : r.def.constraints()) {
        absl::StrAppend(&line, " for ", c.attr, " in ",
                        DataTypeVectorString(c.allowed));
      }
      out.push_back(std::move(line));
    }
  }
  std::sort(out.begin(), out.end());
  return out;
}

std::vector<KernelDefBuilder> KernelRegistry::KernelDefsOf(
    absl::string_view op) const {
  absl::ReaderMutexLock lock(&mu_);
  std::vector<KernelDefBuilder> out;
  const std::string prefix = absl::StrCat(op, ":");
  for (const auto& [key, regs] : kernels_) {
    if (!absl::StartsWith(key, prefix)) continue;
    for (const Registration& r : regs) out.push_back(r.def);
  }
  std::stable_sort(out.begin(), out.end(),
                   [](const KernelDefBuilder& a, const KernelDefBuilder& b) {
                     return a.device_type() < b.device_type();
                   });
  return out;
}

}  // namespace dfx
