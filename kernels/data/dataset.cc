#include "kernels/data/dataset.h"

#include <atomic>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "base/status_macros.h"
#include "graph/graph_def_import.h"
#include "graph/lower_functional_ops.h"
#include "kernels/data/element_util.h"
#include "kernels/kernels.h"
#include "kernels/state/variable_util.h"
#include "runtime/cancellation.h"
#include "runtime/resource_mgr.h"

namespace dfx::data {

std::string DatasetVariant::DebugString() const {
  return absl::StrCat("<", dataset_ ? dataset_->DebugString() : "no dataset",
                      ">");
}

absl::StatusOr<DatasetPtr> DatasetFromTensor(const Tensor& t,
                                             absl::string_view what) {
  if (t.dtype() != DT_VARIANT || t.NumElements() != 1 || t.dims() != 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        what, " must be a scalar variant holding a dataset, got a ",
        DataTypeString(t.dtype()), " tensor of shape ",
        t.shape().DebugString()));
  }
  const DatasetVariant* v = t.data<Variant>()[0].get<DatasetVariant>();
  if (v == nullptr || v->dataset() == nullptr) {
    return absl::InvalidArgumentError(absl::StrCat(
        what, " holds ", t.data<Variant>()[0].DebugString(),
        ", not a dataset (a dataset cannot be sent between tasks: build it "
        "on the device that iterates it)"));
  }
  return v->dataset();
}

absl::StatusOr<DatasetPtr> DatasetFromInput(OpKernelContext* ctx, int index) {
  const std::string input_name =
      ctx->op_kernel().def().input_size() > index
          ? ctx->op_kernel().def().input(index)
          : absl::StrCat("input ", index);
  return DatasetFromTensor(ctx->input(index),
                           absl::StrCat("input ", index, " ('", input_name,
                                        "')"));
}

void SetDatasetOutput(OpKernelContext* ctx, int index, DatasetPtr dataset) {
  Tensor out(DT_VARIANT, TensorShape({}));
  out.data<Variant>()[0] = Variant::Make<DatasetVariant>(std::move(dataset));
  ctx->set_output(index, std::move(out));
}

IteratorContext IteratorContextOf(OpKernelContext* ctx) {
  IteratorContext it;
  it.device = ctx->device();
  it.cancellation_manager = ctx->cancellation_manager();
  return it;
}

absl::Status ReadBatch(IteratorContext* ctx, std::unique_ptr<IteratorBase>* in,
                       int64_t batch_size, bool drop_remainder,
                       const std::string& what,
                       std::vector<std::vector<Tensor>>* elements, bool* end) {
  elements->clear();
  int64_t held = 0;
  bool input_end = *in == nullptr;
  while (!input_end && static_cast<int64_t>(elements->size()) < batch_size) {
    std::vector<Tensor> e;
    DFX_RETURN_IF_ERROR((*in)->GetNext(ctx, &e, &input_end));
    if (input_end) break;
    held += ElementBytes(e);
    DFX_RETURN_IF_ERROR(CheckHeldElements(held, what));
    elements->push_back(std::move(e));
  }
  if (input_end) in->reset();
  *end = elements->empty() ||
         (drop_remainder &&
          static_cast<int64_t>(elements->size()) < batch_size);
  return absl::OkStatus();
}

std::vector<Tensor> CapturedInputs(OpKernelContext* ctx, int count) {
  std::vector<Tensor> out;
  for (int i = 1; i <= count && i < ctx->num_inputs(); ++i) {
    out.push_back(ctx->input(i));
  }
  return out;
}

absl::Status SetElementOutputs(OpKernelContext* ctx,
                               std::vector<Tensor> element, bool end) {
  if (end) return absl::OutOfRangeError("End of sequence");
  if (static_cast<int>(element.size()) != ctx->num_outputs()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "the iterator produced ", element.size(), " components, the op has ",
        ctx->num_outputs(), " outputs"));
  }
  for (int i = 0; i < ctx->num_outputs(); ++i) {
    ctx->set_output(i, std::move(element[i]));
  }
  return absl::OkStatus();
}

absl::Status DeleteResourceOfInput(OpKernelContext* ctx,
                                   absl::string_view type_name) {
  DFX_ASSIGN_OR_RETURN(const ResourceHandle* h, HandleFromInput(ctx, 0));
  return ctx->resource_manager()->Delete(h->container(), h->name(),
                                         type_name);
}

namespace {

absl::StatusOr<const Tensor*> ScalarInput(OpKernelContext* ctx, int index,
                                          absl::string_view name,
                                          DataType dtype) {
  const Tensor& t = ctx->input(index);
  if (t.dtype() != dtype || t.dims() != 0) {
    return absl::InvalidArgumentError(
        absl::StrCat(name, " must be a scalar ", DataTypeString(dtype),
                     ", got a ", DataTypeString(t.dtype()),
                     " tensor of shape ", t.shape().DebugString()));
  }
  return &t;
}

}  // namespace

absl::StatusOr<int64_t> ScalarInt64Input(OpKernelContext* ctx, int index,
                                         absl::string_view name) {
  DFX_ASSIGN_OR_RETURN(const Tensor* t,
                       ScalarInput(ctx, index, name, DT_INT64));
  return t->scalar<int64_t>();
}

absl::StatusOr<bool> ScalarBoolInput(OpKernelContext* ctx, int index,
                                     absl::string_view name) {
  DFX_ASSIGN_OR_RETURN(const Tensor* t, ScalarInput(ctx, index, name, DT_BOOL));
  return t->scalar<bool>();
}

absl::Status CheckOutputTypes(const DataTypeVector& declared,
                              const DataTypeVector& actual,
                              absl::string_view op) {
  if (declared == actual) return absl::OkStatus();
  auto names = [](const DataTypeVector& v) {
    std::vector<std::string> out;
    for (DataType t : v) out.push_back(DataTypeString(t));
    return absl::StrCat("[", absl::StrJoin(out, ", "), "]");
  };
  return absl::InvalidArgumentError(
      absl::StrCat(op, " produces elements of types ", names(actual),
                   ", but its output_types attr says ", names(declared)));
}

DatasetOpKernel::DatasetOpKernel(OpKernelConstruction* ctx) : OpKernel(ctx) {
  set_expensive(false);
  const char* attr = FindNodeAttr(ctx->def(), "output_types") != nullptr
                         ? "output_types"
                         : "Toutput_types";
  ctx->SetStatus(ctx->GetAttr(attr, &output_types_));
  def_ = ctx->shared_def() != nullptr ? ctx->shared_def()
                                      : std::make_shared<NodeDef>(ctx->def());
}

void DatasetOpKernel::Compute(OpKernelContext* ctx) {
  absl::StatusOr<DatasetPtr> dataset = MakeDataset(ctx);
  DFX_OP_REQUIRES_OK(ctx, dataset.status());
  DFX_OP_REQUIRES_OK(ctx, CheckOutputTypes(output_types_,
                                           (*dataset)->output_dtypes(),
                                           type_string()));
  auto node = std::make_shared<DatasetBase::Node>();
  node->def = def_;
  for (int i = 0; i < ctx->num_inputs(); ++i) {
    const Tensor& t = ctx->input(i);
    const DatasetVariant* v =
        t.dtype() == DT_VARIANT && t.NumElements() == 1
            ? t.data<Variant>()[0].get<DatasetVariant>()
            : nullptr;
    if (v == nullptr || v->dataset() == nullptr) {
      node->args.push_back(t);
      node->dataset_input.push_back(false);
    } else if (v->dataset() != *dataset) {
      // (A kernel that passes its input through gives it no node.)
      node->inputs.push_back(v->dataset());
      node->dataset_input.push_back(true);
    }
  }
  (*dataset)->SetNodeOnce(std::move(node));
  SetDatasetOutput(ctx, 0, *std::move(dataset));
}

std::shared_ptr<const DatasetBase::Node> DatasetBase::node() const {
  absl::MutexLock lock(&node_mu_);
  return node_;
}

void DatasetBase::SetNodeOnce(std::shared_ptr<const Node> node) const {
  absl::MutexLock lock(&node_mu_);
  if (node_ == nullptr) node_ = std::move(node);
}

// ---------------------------------------------------------------------------
// DatasetFunction

absl::StatusOr<std::shared_ptr<const DatasetFunction>> DatasetFunction::Create(
    OpKernelConstruction* ctx, absl::string_view attr) {
  const AttrValue* value = FindNodeAttr(ctx->def(), attr);
  if (value == nullptr || !value->has_func()) {
    return absl::InvalidArgumentError(
        absl::StrCat("attr '", attr, "' must name a function"));
  }
  const NameAttrList& func = value->func();
  if (ctx->function_library() == nullptr) {
    return absl::InvalidArgumentError(
        absl::StrCat("function '", func.name(), "' (attr '", attr,
                     "'): the graph comes with no function library"));
  }
  // Only what this function reaches is validated and instantiated.
  GraphDef call;
  call.add_node()->set_op(func.name());
  *call.mutable_library() = *ctx->function_library();
  absl::StatusOr<std::unique_ptr<FunctionLibrary>> created =
      FunctionLibrary::Create(ReachableFunctions(call), OpRegistry::Global());
  if (!created.ok()) return created.status();
  std::shared_ptr<const FunctionLibrary> library = *std::move(created);
  if (!library->Contains(func.name())) {
    return absl::InvalidArgumentError(
        absl::StrCat("function '", func.name(), "' (attr '", attr,
                     "') is not in the graph's library"));
  }
  DFX_ASSIGN_OR_RETURN(FunctionBody body,
                       library->Instantiate(func.name(), func.attr()));

  GraphDef def;
  for (NodeDef& node : body.nodes) {
    node.set_device(ctx->device()->name());
    *def.add_node() = std::move(node);
  }
  // Nested dataset ops in the body find their functions too.
  *def.mutable_library() = *ctx->function_library();
  ImportOptions import;
  import.allow_internal_names = true;
  import.validate_shapes = false;
  DFX_ASSIGN_OR_RETURN(std::unique_ptr<Graph> graph,
                       ImportGraphDef(def, library->op_registry(), import));
  DFX_RETURN_IF_ERROR(LowerFunctionalOps(*library, graph.get()));
  ExecutorParams params;
  params.device = ctx->device();
  params.kernel_registry = StandardKernelRegistry();

  std::shared_ptr<DatasetFunction> f(new DatasetFunction());
  f->name_ = func.name();
  f->arg_types_ = body.arg_types;
  f->ret_types_ = body.ret_types;
  f->library_ = std::move(library);
  absl::StatusOr<std::unique_ptr<Executor>> executor =
      NewExecutor(params, std::move(graph));
  if (!executor.ok()) {
    return absl::Status(executor.status().code(),
                        absl::StrCat("function '", f->name_,
                                     "': ", executor.status().message()));
  }
  f->executor_ = *std::move(executor);
  return std::shared_ptr<const DatasetFunction>(std::move(f));
}

DatasetOpFunction ReadDatasetOpFunction(OpKernelConstruction* ctx,
                                        absl::string_view attr) {
  DatasetOpFunction out;
  DataTypeVector captured;
  ctx->SetStatus(ctx->GetAttr("Targuments", &captured));
  out.num_captured = static_cast<int>(captured.size());
  if (!ctx->status().ok()) return out;
  absl::StatusOr<std::shared_ptr<const DatasetFunction>> f =
      DatasetFunction::Create(ctx, attr);
  if (!f.ok()) {
    ctx->SetStatus(f.status());
    return out;
  }
  out.f = *std::move(f);
  return out;
}

absl::StatusOr<std::vector<Tensor>> DatasetFunction::Run(
    IteratorContext* ctx, std::vector<Tensor> args) const {
  // Trailing arguments beyond the signature are dropped, as TensorFlow
  // does: tf.distribute's per-device generators pass their iterator's
  // resource after the function's own captures, only to keep it alive.
  if (args.size() > arg_types_.size()) args.resize(arg_types_.size());
  if (args.size() != arg_types_.size()) {
    return absl::InvalidArgumentError(
        absl::StrCat("function '", name_, "' takes ", arg_types_.size(),
                     " arguments, got ", args.size()));
  }
  for (size_t i = 0; i < args.size(); ++i) {
    if (args[i].dtype() != arg_types_[i]) {
      return absl::InvalidArgumentError(absl::StrCat(
          "function '", name_, "' argument ", i, " must be ",
          DataTypeString(arg_types_[i]), ", got ",
          DataTypeString(args[i].dtype())));
    }
  }
  // Each call is a step of its own (its own step container), numbered
  // apart from the steps masters hand out.
  static std::atomic<int64_t> next_step{0};
  SimpleCallFrame frame(std::move(args), ret_types_.size());
  Executor::Args run;
  run.step_id = (int64_t{1} << 62) | next_step.fetch_add(1);
  run.call_frame = &frame;
  CancellationManager cancel;
  CancellationManager* outer = ctx->cancellation_manager;
  CancellationToken token = 0;
  bool registered = false;
  if (outer != nullptr) {
    token = outer->get_cancellation_token();
    registered =
        outer->RegisterCallback(token, [&cancel] { cancel.StartCancel(); });
    if (!registered) cancel.StartCancel();
  }
  run.cancellation_manager = &cancel;
  absl::Status s = executor_->Run(run);
  if (registered) outer->DeregisterCallback(token);
  if (!s.ok()) {
    return absl::Status(s.code(),
                        absl::StrCat("in function '", name_, "': ",
                                     s.message()));
  }
  return frame.ConsumeRetvals();
}

void RegisterDatasetKernels(KernelRegistry* registry) {
  RegisterDatasetSourceKernels(registry);
  RegisterDatasetTransformKernels(registry);
  RegisterShuffleKernels(registry);
  RegisterIteratorKernels(registry);
  RegisterMultiDeviceKernels(registry);
  RegisterPrefetchKernels(registry);
  RegisterNestedDatasetKernels(registry);
  RegisterFileDatasetKernels(registry);
  RegisterSparseSerializeKernels(registry);
  RegisterScanKernels(registry);
  RegisterWindowKernels(registry);
}

}  // namespace dfx::data
