// Iterators: the resource that holds one pass over a dataset (IteratorV2,
// AnonymousIteratorV2/V3 and the v1 Iterator and AnonymousIterator),
// MakeIterator, IteratorGetNext (and its Sync and AsOptional forms),
// DeleteIterator, IteratorToStringHandle and IteratorFromStringHandle(V2);
// SerializeIterator and DeserializeIterator, which save and restore an
// iterator's position.
#include <atomic>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/synchronization/mutex.h"
#include "base/status_macros.h"
#include "kernels/data/dataset.h"
#include "kernels/data/element_util.h"
#include "kernels/list/optional_value.h"
#include "kernels/state/variable_util.h"
#include "runtime/resource_mgr.h"

namespace dfx::data {
namespace {

std::string TypesString(const DataTypeVector& types) {
  std::vector<std::string> names;
  for (DataType t : types) names.push_back(DataTypeString(t));
  return absl::StrCat("[", absl::StrJoin(names, ", "), "]");
}

// One iterator resource: the pass made by the last MakeIterator. Calls on
// it are serialized.
class IteratorResource final : public ResourceBase {
 public:
  static constexpr char kTypeName[] = "IteratorResource";

  explicit IteratorResource(DataTypeVector output_types)
      : output_types_(std::move(output_types)) {}

  std::string TypeName() const override { return kTypeName; }
  std::string DebugString() const override {
    absl::MutexLock lock(&mu_);
    return absl::StrCat("Iterator(", TypesString(output_types_), ", ",
                        dataset_ ? dataset_->DebugString() : "not made", ")");
  }
  const DataTypeVector& output_types() const { return output_types_; }

  absl::Status MakeIterator(IteratorContext* ctx, DatasetPtr dataset) {
    if (dataset->output_dtypes() != output_types_) {
      return absl::InvalidArgumentError(absl::StrCat(
          "The iterator's output types ", TypesString(output_types_),
          " do not match the dataset's ",
          TypesString(dataset->output_dtypes())));
    }
    ctx->root = dataset.get();
    DFX_ASSIGN_OR_RETURN(std::unique_ptr<IteratorBase> it,
                         dataset->MakeIterator(ctx));
    absl::MutexLock lock(&mu_);
    dataset_ = std::move(dataset);
    iterator_ = std::move(it);
    return absl::OkStatus();
  }

  bool has_iterator() const {
    absl::MutexLock lock(&mu_);
    return iterator_ != nullptr;
  }

  absl::Status GetNext(IteratorContext* ctx, std::vector<Tensor>* out,
                       bool* end) {
    absl::MutexLock lock(&mu_);
    if (iterator_ == nullptr) {
      return absl::FailedPreconditionError(
          "GetNext() failed because the iterator has not been initialized. "
          "Ensure that you have run the initializer operation for this "
          "iterator before getting the next element.");
    }
    out->clear();
    ctx->root = dataset_.get();
    DFX_RETURN_IF_ERROR(iterator_->GetNext(ctx, out, end));
    if (!*end) {
      DFX_RETURN_IF_ERROR(
          CheckOutputTypes(output_types_, DtypesOf(*out), "the iterator"));
    }
    return absl::OkStatus();
  }

  // The position of the current pass, under the prefix "Iterator".
  absl::Status Save(IteratorState* state) {
    absl::MutexLock lock(&mu_);
    if (iterator_ == nullptr) {
      return absl::FailedPreconditionError(
          "Save() failed because the iterator has not been initialized. "
          "Ensure that you have run the initializer operation for this "
          "iterator before saving it.");
    }
    return SaveIterator(*dataset_, *iterator_, kStatePrefix, state);
  }

  // A fresh pass over the current dataset, set to the saved position; the
  // current pass is kept when that fails.
  absl::Status Restore(IteratorContext* ctx, const IteratorState& state) {
    DatasetPtr dataset;
    {
      absl::MutexLock lock(&mu_);
      dataset = dataset_;
    }
    if (dataset == nullptr) {
      return absl::FailedPreconditionError(
          "Restore() failed because the iterator has not been initialized. "
          "Ensure that you have run the initializer operation for this "
          "iterator before restoring it.");
    }
    ctx->root = dataset.get();
    DFX_ASSIGN_OR_RETURN(std::unique_ptr<IteratorBase> it,
                         dataset->MakeIterator(ctx));
    DFX_RETURN_IF_ERROR(
        RestoreIterator(*dataset, *it, ctx, kStatePrefix, state));
    absl::MutexLock lock(&mu_);
    dataset_ = std::move(dataset);
    iterator_ = std::move(it);
    return absl::OkStatus();
  }

 private:
  static constexpr char kStatePrefix[] = "Iterator";

  const DataTypeVector output_types_;
  mutable absl::Mutex mu_;
  DatasetPtr dataset_ ABSL_GUARDED_BY(mu_);
  std::unique_ptr<IteratorBase> iterator_ ABSL_GUARDED_BY(mu_);
};

Tensor IteratorHandle(OpKernelContext* ctx, const std::string& container,
                      const std::string& name) {
  Tensor out(DT_RESOURCE, TensorShape({}));
  ResourceHandle& h = out.scalar<ResourceHandle>();
  h.set_device(ctx->device()->name());
  h.set_container(container);
  h.set_name(name);
  h.set_maybe_type_name(IteratorResource::kTypeName);
  return out;
}


absl::StatusOr<std::shared_ptr<IteratorResource>> LookupIterator(
    OpKernelContext* ctx, int index) {
  DFX_ASSIGN_OR_RETURN(const ResourceHandle* h, HandleFromInput(ctx, index));
  return ctx->resource_manager()->Lookup<IteratorResource>(h->container(),
                                                           h->name());
}

std::atomic<int64_t> next_private_iterator{0};

// IteratorV2: the iterator named by container and shared_name, made on
// first use and shared by later runs. Without a shared_name the iterator is
// the kernel's own (TensorFlow's ContainerInfo: a private name, deleted
// with the kernel), so two graphs with a node of the same name never share
// one.
class IteratorV2Op final : public OpKernel {
 public:
  explicit IteratorV2Op(OpKernelConstruction* ctx)
      : OpKernel(ctx), resources_(ctx->device()->resource_manager()) {
    set_expensive(false);
    ctx->SetStatus(ctx->GetAttr("output_types", &output_types_));
    ctx->SetStatus(ctx->GetAttr("container", &container_));
    ctx->SetStatus(ctx->GetAttr("shared_name", &name_));
    if (name_.empty()) {
      private_ = true;
      name_ = absl::StrCat("_iterator_", next_private_iterator.fetch_add(1),
                           "_", ctx->def().name());
    }
    if (container_.empty()) container_ = resources_->default_container();
  }
  ~IteratorV2Op() override {
    if (private_) {
      // NotFound: never run, or its container was reset.
      resources_->Delete(container_, name_, IteratorResource::kTypeName)
          .IgnoreError();
    }
  }
  void Compute(OpKernelContext* ctx) override {
    const std::string& container = container_;
    absl::StatusOr<std::shared_ptr<IteratorResource>> r =
        ctx->resource_manager()->LookupOrCreate<IteratorResource>(
            container, name_, [this] {
              return std::make_shared<IteratorResource>(output_types_);
            });
    DFX_OP_REQUIRES_OK(ctx, r.status());
    DFX_OP_REQUIRES(
        ctx, (*r)->output_types() == output_types_,
        absl::InvalidArgumentError(absl::StrCat(
            "iterator '", name_, "' exists with output types ",
            TypesString((*r)->output_types()), ", not ",
            TypesString(output_types_))));
    ctx->set_output(0, IteratorHandle(ctx, container, name_));
  }

 private:
  ResourceMgr* const resources_;
  DataTypeVector output_types_;
  std::string container_, name_;
  bool private_ = false;
};

// OneShotIterator (TF1's make_one_shot_iterator): an iterator over the
// dataset its `dataset_factory` function returns, made on the first run;
// later runs (and later steps) continue it.
class OneShotIteratorOp final : public OpKernel {
 public:
  explicit OneShotIteratorOp(OpKernelConstruction* ctx)
      : OpKernel(ctx), resources_(ctx->device()->resource_manager()) {
    ctx->SetStatus(ctx->GetAttr("output_types", &output_types_));
    ctx->SetStatus(ctx->GetAttr("container", &container_));
    ctx->SetStatus(ctx->GetAttr("shared_name", &name_));
    if (!ctx->status().ok()) return;
    if (name_.empty()) {
      private_ = true;
      name_ = absl::StrCat("_one_shot_iterator_",
                           next_private_iterator.fetch_add(1), "_",
                           ctx->def().name());
    }
    if (container_.empty()) container_ = resources_->default_container();
    absl::StatusOr<std::shared_ptr<const DatasetFunction>> f =
        DatasetFunction::Create(ctx, "dataset_factory");
    if (!f.ok()) {
      ctx->SetStatus(f.status());
      return;
    }
    factory_ = *std::move(f);
  }
  ~OneShotIteratorOp() override {
    if (private_) {
      resources_->Delete(container_, name_, IteratorResource::kTypeName)
          .IgnoreError();
    }
  }

  void Compute(OpKernelContext* ctx) override {
    absl::StatusOr<std::shared_ptr<IteratorResource>> r =
        ctx->resource_manager()->LookupOrCreate<IteratorResource>(
            container_, name_, [this] {
              return std::make_shared<IteratorResource>(output_types_);
            });
    DFX_OP_REQUIRES_OK(ctx, r.status());
    {
      absl::MutexLock lock(&mu_);
      if (!(*r)->has_iterator()) {
        IteratorContext ictx = IteratorContextOf(ctx);
        absl::StatusOr<std::vector<Tensor>> made = factory_->Run(&ictx, {});
        DFX_OP_REQUIRES_OK(ctx, made.status());
        DFX_OP_REQUIRES(ctx, made->size() == 1,
                        absl::InvalidArgumentError(
                            "dataset_factory must return one dataset"));
        absl::StatusOr<DatasetPtr> dataset =
            DatasetFromTensor((*made)[0], "what dataset_factory returned");
        DFX_OP_REQUIRES_OK(ctx, dataset.status());
        DFX_OP_REQUIRES_OK(ctx,
                           (*r)->MakeIterator(&ictx, *std::move(dataset)));
      }
    }
    ctx->set_output(0, IteratorHandle(ctx, container_, name_));
  }

 private:
  ResourceMgr* const resources_;
  DataTypeVector output_types_;
  std::string container_, name_;
  bool private_ = false;
  std::shared_ptr<const DatasetFunction> factory_;
  absl::Mutex mu_;  // one factory run at a time
};

std::atomic<int64_t> next_anonymous_iterator{0};

// AnonymousIteratorV2 (handle and deleter) and V3 (handle): a new iterator
// on every run. Eager contexts delete theirs when they close.
class AnonymousIteratorOp final : public OpKernel {
 public:
  explicit AnonymousIteratorOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    set_expensive(false);
    ctx->SetStatus(ctx->GetAttr("output_types", &output_types_));
  }
  void Compute(OpKernelContext* ctx) override {
    const std::string& container =
        ctx->resource_manager()->default_container();
    const std::string name = absl::StrCat(
        "_AnonymousIterator", next_anonymous_iterator.fetch_add(1));
    DFX_OP_REQUIRES_OK(ctx, ctx->resource_manager()->Create(
                                container, name,
                                std::make_shared<IteratorResource>(
                                    output_types_)));
    ctx->set_output(0, IteratorHandle(ctx, container, name));
    if (num_outputs() > 1) {
      ctx->set_output(1, Tensor(DT_VARIANT, TensorShape({})));
    }
  }

 private:
  DataTypeVector output_types_;
};

class DeleteIteratorOp final : public OpKernel {
 public:
  explicit DeleteIteratorOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    set_expensive(false);
  }
  void Compute(OpKernelContext* ctx) override {
    DFX_OP_REQUIRES_OK(
        ctx, DeleteResourceOfInput(ctx, IteratorResource::kTypeName));
  }
};

// IteratorToStringHandle and MultiDeviceIteratorToStringHandle: the handle
// as a string (a serialized ResourceHandleProto; TF1's
// make_initializable_iterator adds one to every graph).
class IteratorToStringHandleOp final : public OpKernel {
 public:
  explicit IteratorToStringHandleOp(OpKernelConstruction* ctx)
      : OpKernel(ctx) {
    set_expensive(false);
  }
  void Compute(OpKernelContext* ctx) override {
    absl::StatusOr<const ResourceHandle*> h = HandleFromInput(ctx, 0);
    DFX_OP_REQUIRES_OK(ctx, h.status());
    ResourceHandleProto proto;
    (*h)->AsProto(&proto);
    ctx->set_output(0, Tensor::Scalar<std::string>(proto.SerializeAsString()));
  }
};

// IteratorFromStringHandle(V2): the iterator a string handle names (from
// IteratorToStringHandle), checked as TensorFlow checks it: a scalar that
// parses, an iterator on this device that exists, and, when output_types
// is set, the iterator's types.
class IteratorFromStringHandleOp final : public OpKernel {
 public:
  explicit IteratorFromStringHandleOp(OpKernelConstruction* ctx)
      : OpKernel(ctx) {
    set_expensive(false);
    ctx->SetStatus(ctx->GetAttr("output_types", &output_types_));
  }
  void Compute(OpKernelContext* ctx) override {
    const Tensor& s = ctx->input(0);
    DFX_OP_REQUIRES(ctx, s.dtype() == DT_STRING && s.dims() == 0,
                    absl::InvalidArgumentError(absl::StrCat(
                        "string_handle must be a scalar, but got shape ",
                        s.shape().DebugString())));
    ResourceHandleProto proto;
    DFX_OP_REQUIRES(
        ctx, proto.ParseFromString(s.scalar<std::string>()),
        absl::InvalidArgumentError(
            "Could not parse string_handle as a valid ResourceHandle"));
    ResourceHandle h;
    h.FromProto(proto);
    DFX_OP_REQUIRES(
        ctx, h.device() == ctx->device()->name(),
        absl::InvalidArgumentError(absl::StrCat(
            "Attempted create an iterator on device \"",
            ctx->device()->name(), "\" from handle defined on device \"",
            h.device(), "\"")));
    absl::StatusOr<std::shared_ptr<IteratorResource>> r =
        ctx->resource_manager()->Lookup<IteratorResource>(h.container(),
                                                          h.name());
    DFX_OP_REQUIRES_OK(ctx, r.status());
    if (!output_types_.empty()) {
      const DataTypeVector& have = (*r)->output_types();
      DFX_OP_REQUIRES(
          ctx, have.size() == output_types_.size(),
          absl::InvalidArgumentError(absl::StrCat(
              "Number of components does not match: expected ",
              output_types_.size(), " types but got ", have.size(), ".")));
      for (size_t i = 0; i < have.size(); ++i) {
        DFX_OP_REQUIRES(
            ctx, have[i] == output_types_[i],
            absl::InvalidArgumentError(absl::StrCat(
                "Data type mismatch at component ", i, ": expected ",
                DataTypeString(output_types_[i]), " but got ",
                DataTypeString(have[i]), ".")));
      }
    }
    Tensor out(DT_RESOURCE, TensorShape({}));
    out.scalar<ResourceHandle>() = h;
    ctx->set_output(0, std::move(out));
  }

 private:
  DataTypeVector output_types_;
};

// IteratorGetModelProto: TensorFlow answers its autotune model of the
// pipeline (a data.model.ModelProto). dfx does not model pipelines, so it
// gives TensorFlow's answer for an iterator without one (autotune off):
// NotFound; FailedPrecondition before the iterator is made, as TensorFlow.
class IteratorGetModelProtoOp final : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    absl::StatusOr<std::shared_ptr<IteratorResource>> it =
        LookupIterator(ctx, 0);
    DFX_OP_REQUIRES_OK(ctx, it.status());
    DFX_OP_REQUIRES(
        ctx, (*it)->has_iterator(),
        absl::FailedPreconditionError(
            "GetModelProto() failed because the iterator has not been "
            "initialized. Ensure that you have run the initializer operation "
            "for this iterator before getting the next element."));
    ctx->SetStatus(absl::NotFoundError(
        "Cannot find this iterator's analytical model. Did you disable "
        "autotune for the dataset used to create this iterator? See more "
        "information at "
        "https://www.tensorflow.org/api_docs/python/tf/data/experimental/"
        "AutotuneOptions ."));
  }
};

class MakeIteratorOp final : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    absl::StatusOr<DatasetPtr> dataset = DatasetFromInput(ctx, 0);
    DFX_OP_REQUIRES_OK(ctx, dataset.status());
    absl::StatusOr<std::shared_ptr<IteratorResource>> it =
        LookupIterator(ctx, 1);
    DFX_OP_REQUIRES_OK(ctx, it.status());
    IteratorContext ictx = IteratorContextOf(ctx);
    DFX_OP_REQUIRES_OK(ctx, (*it)->MakeIterator(&ictx, *std::move(dataset)));
  }
};

// The next element of the iterator at input 0; `*end` at its end.
absl::Status NextOfInput(OpKernelContext* ctx, std::vector<Tensor>* element,
                         bool* end) {
  DFX_ASSIGN_OR_RETURN(std::shared_ptr<IteratorResource> it,
                       LookupIterator(ctx, 0));
  IteratorContext ictx = IteratorContextOf(ctx);
  return it->GetNext(&ictx, element, end);
}

// IteratorGetNext and IteratorGetNextSync: the next element, or OutOfRange
// "End of sequence" at the end of the input, as TensorFlow's.
class IteratorGetNextOp final : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    std::vector<Tensor> element;
    bool end = false;
    DFX_OP_REQUIRES_OK(ctx, NextOfInput(ctx, &element, &end));
    DFX_OP_REQUIRES_OK(ctx,
                       SetElementOutputs(ctx, std::move(element), end));
  }
};

class IteratorGetNextAsOptionalOp final : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    std::vector<Tensor> element;
    bool end = false;
    DFX_OP_REQUIRES_OK(ctx, NextOfInput(ctx, &element, &end));
    Tensor out(DT_VARIANT, TensorShape({}));
    out.data<Variant>()[0] =
        end ? Variant::Make<OptionalValue>()
            : Variant::Make<OptionalValue>(std::move(element));
    ctx->set_output(0, std::move(out));
  }
};

// The variant an iterator's state travels in (through SaveV2/RestoreV2 in
// a checkpoint): TensorFlow's type name; as tensors a string vector of the
// state's keys, then one tensor per key.
constexpr char kIteratorStateTypeName[] = "tensorflow::Iterator";

// A state that holds a dataset (an input element of flat_map over windows,
// the interleave of LoadDataset's reader_func) cannot be encoded: a dataset
// does not travel. Unimplemented then, rather than a state that fails to
// restore.
absl::Status CheckEncodable(const IteratorState& state) {
  for (const auto& [key, value] : state.entries()) {
    if (value.dtype() != DT_VARIANT) continue;
    for (int64_t i = 0; i < value.NumElements(); ++i) {
      if (value.data<Variant>()[i].get<DatasetVariant>() != nullptr) {
        return absl::UnimplementedError(absl::StrCat(
            "Saving iterators whose state holds a dataset is not supported "
            "(the state's entry ",
            key, "): dfx encodes the state, and a dataset does not encode"));
      }
    }
  }
  return absl::OkStatus();
}

// SerializeIterator: the iterator's state as a one-element variant vector.
// external_state_policy is accepted and has no effect: dfx datasets hold
// no external state that the policy would warn about or ignore.
class SerializeIteratorOp final : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    absl::StatusOr<std::shared_ptr<IteratorResource>> it =
        LookupIterator(ctx, 0);
    DFX_OP_REQUIRES_OK(ctx, it.status());
    IteratorState state;
    state.set_cancellation_manager(ctx->cancellation_manager());
    DFX_OP_REQUIRES_OK(ctx, (*it)->Save(&state));
    DFX_OP_REQUIRES_OK(ctx, CheckEncodable(state));
    VariantTensorDataProto proto;
    proto.set_type_name(kIteratorStateTypeName);
    std::vector<std::string> keys;
    for (const auto& [key, value] : state.entries()) keys.push_back(key);
    Tensor::FromVector<std::string>(absl::MakeConstSpan(keys))
        .AsProtoTensorContent(proto.add_tensors());
    for (const auto& [key, value] : state.entries()) {
      value.AsProtoTensorContent(proto.add_tensors());
    }
    Tensor out(DT_VARIANT, TensorShape({1}));
    out.data<Variant>()[0] = Variant::Make<OpaqueVariant>(std::move(proto));
    ctx->set_output(0, std::move(out));
  }
};

// The state SerializeIterator wrote into `t`.
absl::StatusOr<IteratorState> StateFromTensor(const Tensor& t) {
  const auto malformed = [](absl::string_view what) {
    return absl::InvalidArgumentError(
        absl::StrCat("serialized is not an iterator state: ", what));
  };
  if (t.dtype() != DT_VARIANT || t.dims() != 1 || t.NumElements() != 1) {
    return malformed(
        absl::StrCat("expected a variant vector of one element, "
                     "got shape ",
                     t.shape().DebugString()));
  }
  const OpaqueVariant* value = t.data<Variant>()[0].get<OpaqueVariant>();
  if (value == nullptr ||
      value->proto().type_name() != kIteratorStateTypeName) {
    return malformed(
        absl::StrCat("it holds ", t.data<Variant>()[0].DebugString()));
  }
  const VariantTensorDataProto& proto = value->proto();
  if (proto.tensors_size() < 1) return malformed("no keys");
  DFX_ASSIGN_OR_RETURN(Tensor keys, Tensor::FromProto(proto.tensors(0)));
  if (keys.dtype() != DT_STRING || keys.dims() != 1 ||
      keys.NumElements() != proto.tensors_size() - 1) {
    return malformed("its keys do not match its values");
  }
  IteratorState state;
  for (int64_t i = 0; i < keys.NumElements(); ++i) {
    DFX_ASSIGN_OR_RETURN(Tensor value, Tensor::FromProto(proto.tensors(i + 1)));
    state.mutable_entries()[keys.data<std::string>()[i]] = std::move(value);
  }
  return state;
}

class DeserializeIteratorOp final : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    absl::StatusOr<std::shared_ptr<IteratorResource>> it =
        LookupIterator(ctx, 0);
    DFX_OP_REQUIRES_OK(ctx, it.status());
    absl::StatusOr<IteratorState> state = StateFromTensor(ctx->input(1));
    DFX_OP_REQUIRES_OK(ctx, state.status());
    IteratorContext ictx = IteratorContextOf(ctx);
    DFX_OP_REQUIRES_OK(ctx, (*it)->Restore(&ictx, *state));
  }
};

}  // namespace

void RegisterIteratorKernels(KernelRegistry* registry) {
  for (const char* op : {"IteratorV2", "Iterator"}) {
    RegisterKernel<IteratorV2Op>(registry, KernelDefBuilder(op));
  }
  for (const char* op :
       {"IteratorFromStringHandle", "IteratorFromStringHandleV2"}) {
    RegisterKernel<IteratorFromStringHandleOp>(registry, KernelDefBuilder(op));
  }
  RegisterKernel<OneShotIteratorOp>(registry,
                                    KernelDefBuilder("OneShotIterator"));
  for (const char* op : {"AnonymousIterator", "AnonymousIteratorV2"}) {
    RegisterKernel<AnonymousIteratorOp>(registry, KernelDefBuilder(op));
  }
  RegisterKernel<AnonymousIteratorOp>(registry,
                                      KernelDefBuilder("AnonymousIteratorV3"));
  RegisterKernel<DeleteIteratorOp>(registry, KernelDefBuilder("DeleteIterator"));
  RegisterKernel<MakeIteratorOp>(registry, KernelDefBuilder("MakeIterator"));
  RegisterKernel<IteratorGetModelProtoOp>(
      registry, KernelDefBuilder("IteratorGetModelProto"));
  RegisterKernel<IteratorToStringHandleOp>(
      registry, KernelDefBuilder("IteratorToStringHandle"));
  RegisterKernel<IteratorToStringHandleOp>(
      registry, KernelDefBuilder("MultiDeviceIteratorToStringHandle"));
  RegisterKernel<IteratorGetNextOp>(registry,
                                    KernelDefBuilder("IteratorGetNext"));
  RegisterKernel<IteratorGetNextOp>(registry,
                                    KernelDefBuilder("IteratorGetNextSync"));
  RegisterKernel<IteratorGetNextAsOptionalOp>(
      registry, KernelDefBuilder("IteratorGetNextAsOptional"));
  RegisterKernel<SerializeIteratorOp>(registry,
                                      KernelDefBuilder("SerializeIterator"));
  RegisterKernel<DeserializeIteratorOp>(
      registry, KernelDefBuilder("DeserializeIterator"));
}

}  // namespace dfx::data
