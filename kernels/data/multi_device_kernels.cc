// What tf.distribute's input pipelines run on a worker
// (strategy.distribute_datasets_from_function, OwnedMultiDeviceIterator):
// the multi-device iterator (one pass over a dataset whose elements go to
// the worker's devices in turn), GeneratorDataset (a dataset driven by
// init/next/finalize functions, here the per-device side of that
// iterator), and RemoteCall (a function call on a named device; dfx runs it
// when the device is on the calling task).
#include <atomic>
#include <deque>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "base/status_macros.h"
#include "graph/device_name.h"
#include "kernels/data/dataset.h"
#include "kernels/data/element_util.h"
#include "kernels/state/variable_util.h"
#include "runtime/resource_mgr.h"

namespace dfx::data {
namespace {


std::atomic<int64_t> next_multi_device_iterator{0};

// One pass over a dataset, shared by `devices` shards: element i of the
// pass goes to shard i % devices. Re-initializing starts a new pass under a
// new incarnation id; readers holding the old id get an error.
class MultiDeviceIteratorResource final : public ResourceBase {
 public:
  static constexpr char kTypeName[] = "MultiDeviceIterator";

  MultiDeviceIteratorResource(std::vector<std::string> devices,
                              DataTypeVector output_types)
      : devices_(std::move(devices)), output_types_(std::move(output_types)) {}

  std::string TypeName() const override { return kTypeName; }
  std::string DebugString() const override {
    return absl::StrCat("MultiDeviceIterator(", devices_.size(), " devices)");
  }

  absl::StatusOr<int64_t> Init(IteratorContext* ctx, const DatasetPtr& d) {
    if (d->output_dtypes() != output_types_) {
      return absl::InvalidArgumentError(
          "the dataset's element types do not match the multi-device "
          "iterator's output_types");
    }
    DFX_ASSIGN_OR_RETURN(std::unique_ptr<IteratorBase> it,
                         d->MakeIterator(ctx));
    absl::MutexLock lock(&mu_);
    iterator_ = std::move(it);
    dataset_ = d;
    shards_.assign(devices_.size(), {});
    next_shard_ = 0;
    ended_ = false;
    return ++incarnation_;
  }

  absl::Status GetNextFromShard(IteratorContext* ctx, int shard,
                                int64_t incarnation, std::vector<Tensor>* out,
                                bool* end) {
    absl::MutexLock lock(&mu_);
    if (incarnation != incarnation_) {
      return absl::InvalidArgumentError(
          absl::StrCat("Invalid incarnation id. Provided: ", incarnation,
                       "; Expected: ", incarnation_));
    }
    if (shard < 0 || shard >= static_cast<int>(shards_.size())) {
      return absl::InvalidArgumentError(
          absl::StrCat("shard_num ", shard, " is not in [0, ",
                       shards_.size(), ")"));
    }
    std::deque<std::vector<Tensor>>& queue = shards_[shard];
    while (queue.empty() && !ended_) {
      std::vector<Tensor> element;
      bool input_end = false;
      DFX_RETURN_IF_ERROR(iterator_->GetNext(ctx, &element, &input_end));
      if (input_end) {
        ended_ = true;
        break;
      }
      shards_[next_shard_].push_back(std::move(element));
      next_shard_ = (next_shard_ + 1) % static_cast<int>(shards_.size());
    }
    *end = queue.empty();
    if (!*end) {
      *out = std::move(queue.front());
      queue.pop_front();
    }
    return absl::OkStatus();
  }

 private:
  const std::vector<std::string> devices_;
  const DataTypeVector output_types_;
  absl::Mutex mu_;
  DatasetPtr dataset_ ABSL_GUARDED_BY(mu_);
  std::unique_ptr<IteratorBase> iterator_ ABSL_GUARDED_BY(mu_);
  std::vector<std::deque<std::vector<Tensor>>> shards_ ABSL_GUARDED_BY(mu_);
  int next_shard_ ABSL_GUARDED_BY(mu_) = 0;
  bool ended_ ABSL_GUARDED_BY(mu_) = false;
  int64_t incarnation_ ABSL_GUARDED_BY(mu_) = 0;
};

Tensor HandleTensor(const ResourceHandle& h) {
  Tensor out(DT_RESOURCE, TensorShape({}));
  out.scalar<ResourceHandle>() = h;
  return out;
}

absl::StatusOr<std::shared_ptr<MultiDeviceIteratorResource>> LookupMdi(
    OpKernelContext* ctx, int index) {
  DFX_ASSIGN_OR_RETURN(const ResourceHandle* h, HandleFromInput(ctx, index));
  return ctx->resource_manager()->Lookup<MultiDeviceIteratorResource>(
      h->container(), h->name());
}

// AnonymousMultiDeviceIteratorV3, AnonymousMultiDeviceIterator (with a
// deleter) and MultiDeviceIterator (named by shared_name).
class MultiDeviceIteratorOp final : public OpKernel {
 public:
  explicit MultiDeviceIteratorOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    set_expensive(false);
    ctx->SetStatus(ctx->GetAttr("devices", &devices_));
    ctx->SetStatus(ctx->GetAttr("output_types", &output_types_));
    if (FindNodeAttr(ctx->def(), "shared_name") != nullptr) {
      ctx->SetStatus(ctx->GetAttr("shared_name", &shared_name_));
      // Without a shared_name, the kernel's own (never shared by another
      // graph's node of the same name).
      if (shared_name_.empty()) {
        shared_name_ = absl::StrCat("_multi_device_iterator_",
                                    next_multi_device_iterator.fetch_add(1));
      }
    }
  }
  void Compute(OpKernelContext* ctx) override {
    const std::string name =
        !shared_name_.empty()
            ? shared_name_
            : absl::StrCat("_AnonymousMultiDeviceIterator",
                           next_multi_device_iterator.fetch_add(1));
    ResourceMgr* rm = ctx->resource_manager();
    absl::StatusOr<std::shared_ptr<MultiDeviceIteratorResource>> r =
        rm->LookupOrCreate<MultiDeviceIteratorResource>(
            rm->default_container(), name, [this] {
              return std::make_shared<MultiDeviceIteratorResource>(
                  devices_, output_types_);
            });
    DFX_OP_REQUIRES_OK(ctx, r.status());
    ResourceHandle h;
    h.set_device(ctx->device()->name());
    h.set_container(rm->default_container());
    h.set_name(name);
    h.set_maybe_type_name(MultiDeviceIteratorResource::kTypeName);
    ctx->set_output(0, HandleTensor(h));
    if (num_outputs() > 1) {
      ctx->set_output(1, Tensor(DT_VARIANT, TensorShape({})));
    }
  }

 private:
  std::vector<std::string> devices_;
  DataTypeVector output_types_;
  std::string shared_name_;
};

class MultiDeviceIteratorInitOp final : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    absl::StatusOr<DatasetPtr> d = DatasetFromInput(ctx, 0);
    DFX_OP_REQUIRES_OK(ctx, d.status());
    absl::StatusOr<std::shared_ptr<MultiDeviceIteratorResource>> r =
        LookupMdi(ctx, 1);
    DFX_OP_REQUIRES_OK(ctx, r.status());
    IteratorContext ictx = IteratorContextOf(ctx);
    absl::StatusOr<int64_t> incarnation = (*r)->Init(&ictx, *d);
    DFX_OP_REQUIRES_OK(ctx, incarnation.status());
    ctx->set_output(0, Tensor::Scalar<int64_t>(*incarnation));
  }
};

// The next element of one shard; OutOfRange "End of sequence" at the end.
class MultiDeviceIteratorGetNextFromShardOp final : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    absl::StatusOr<std::shared_ptr<MultiDeviceIteratorResource>> r =
        LookupMdi(ctx, 0);
    DFX_OP_REQUIRES_OK(ctx, r.status());
    const Tensor& shard = ctx->input(1);
    const Tensor& incarnation = ctx->input(2);
    DFX_OP_REQUIRES(ctx,
                    shard.dtype() == DT_INT32 && shard.NumElements() == 1 &&
                        incarnation.dtype() == DT_INT64 &&
                        incarnation.NumElements() == 1,
                    absl::InvalidArgumentError(
                        "shard_num and incarnation_id must be scalars"));
    IteratorContext ictx = IteratorContextOf(ctx);
    std::vector<Tensor> element;
    bool end = false;
    DFX_OP_REQUIRES_OK(ctx, (*r)->GetNextFromShard(
                                &ictx, shard.data<int32_t>()[0],
                                incarnation.data<int64_t>()[0], &element,
                                &end));
    DFX_OP_REQUIRES_OK(ctx,
                       SetElementOutputs(ctx, std::move(element), end));
  }
};

class MultiDeviceIteratorFromStringHandleOp final : public OpKernel {
 public:
  explicit MultiDeviceIteratorFromStringHandleOp(OpKernelConstruction* ctx)
      : OpKernel(ctx) {
    set_expensive(false);
  }
  void Compute(OpKernelContext* ctx) override {
    const Tensor& s = ctx->input(0);
    DFX_OP_REQUIRES(
        ctx, s.dtype() == DT_STRING && s.NumElements() == 1,
        absl::InvalidArgumentError("string_handle must be a scalar string"));
    ResourceHandleProto proto;
    DFX_OP_REQUIRES(ctx, proto.ParseFromString(s.data<std::string>()[0]),
                    absl::InvalidArgumentError(
                        "string_handle is not a serialized resource handle"));
    ResourceHandle h;
    h.FromProto(proto);
    DFX_OP_REQUIRES(
        ctx, h.maybe_type_name() == MultiDeviceIteratorResource::kTypeName,
        absl::InvalidArgumentError(absl::StrCat(
            "string_handle names a ", h.maybe_type_name(),
            ", not a multi-device iterator")));
    ctx->set_output(0, HandleTensor(h));
  }
};

class DeleteMultiDeviceIteratorOp final : public OpKernel {
 public:
  explicit DeleteMultiDeviceIteratorOp(OpKernelConstruction* ctx)
      : OpKernel(ctx) {
    set_expensive(false);
  }
  void Compute(OpKernelContext* ctx) override {
    DFX_OP_REQUIRES_OK(ctx, DeleteResourceOfInput(
                                ctx, MultiDeviceIteratorResource::kTypeName));
  }
};

// ---------------------------------------------------------------------------
// GeneratorDataset: state = init_func(init args); each element is
// next_func(state, next args) until it fails with OutOfRange; then
// finalize_func(state, finalize args) runs once.

class GeneratorDataset final : public DatasetBase {
 public:
  struct Call {
    std::shared_ptr<const DatasetFunction> f;
    std::vector<Tensor> args;
  };
  GeneratorDataset(DataTypeVector dtypes, Call init, Call next, Call finalize)
      : DatasetBase(std::move(dtypes)),
        init_(std::move(init)),
        next_(std::move(next)),
        finalize_(std::move(finalize)) {}

  std::string DebugString() const override {
    return absl::StrCat("GeneratorDataset(", next_.f->name(), ")");
  }
  absl::StatusOr<std::unique_ptr<IteratorBase>> MakeIterator(
      IteratorContext*) const override {
    return std::unique_ptr<IteratorBase>(
        new Iterator(Self<GeneratorDataset>()));
  }

 private:
  static absl::StatusOr<std::vector<Tensor>> Run(IteratorContext* ctx,
                                                 const Call& call,
                                                 std::vector<Tensor> state) {
    state.insert(state.end(), call.args.begin(), call.args.end());
    return call.f->Run(ctx, std::move(state));
  }

  class Iterator final : public IteratorBase {
   public:
    explicit Iterator(std::shared_ptr<const GeneratorDataset> d)
        : d_(std::move(d)) {}
    absl::Status GetNext(IteratorContext* ctx, std::vector<Tensor>* out,
                         bool* end) override {
      if (finished_) {
        *end = true;
        return absl::OkStatus();
      }
      if (!initialized_) {
        DFX_ASSIGN_OR_RETURN(state_, Run(ctx, d_->init_, {}));
        initialized_ = true;
      }
      absl::StatusOr<std::vector<Tensor>> element =
          Run(ctx, d_->next_, state_);
      if (element.ok()) {
        *end = false;
        *out = *std::move(element);
        return absl::OkStatus();
      }
      if (!absl::IsOutOfRange(element.status())) return element.status();
      finished_ = true;
      *end = true;
      return Run(ctx, d_->finalize_, state_).status();
    }

   private:
    const std::shared_ptr<const GeneratorDataset> d_;
    std::vector<Tensor> state_;
    bool initialized_ = false;
    bool finished_ = false;
  };

  const Call init_, next_, finalize_;
};

class GeneratorDatasetOp final : public DatasetOpKernel {
 public:
  explicit GeneratorDatasetOp(OpKernelConstruction* ctx)
      : DatasetOpKernel(ctx) {
    const char* kFuncs[3] = {"init_func", "next_func", "finalize_func"};
    const char* kArgs[3] = {"Tinit_func_args", "Tnext_func_args",
                            "Tfinalize_func_args"};
    for (int i = 0; i < 3 && ctx->status().ok(); ++i) {
      DataTypeVector types;
      ctx->SetStatus(ctx->GetAttr(kArgs[i], &types));
      counts_[i] = static_cast<int>(types.size());
      if (!ctx->status().ok()) return;
      absl::StatusOr<std::shared_ptr<const DatasetFunction>> f =
          DatasetFunction::Create(ctx, kFuncs[i]);
      if (!f.ok()) {
        ctx->SetStatus(f.status());
        return;
      }
      funcs_[i] = *std::move(f);
    }
  }

 private:
  absl::StatusOr<DatasetPtr> MakeDataset(OpKernelContext* ctx) override {
    GeneratorDataset::Call calls[3];
    int input = 0;
    for (int i = 0; i < 3; ++i) {
      calls[i].f = funcs_[i];
      for (int k = 0; k < counts_[i]; ++k) {
        calls[i].args.push_back(ctx->input(input++));
      }
    }
    return std::make_shared<GeneratorDataset>(output_types(),
                                              std::move(calls[0]),
                                              std::move(calls[1]),
                                              std::move(calls[2]));
  }

  std::shared_ptr<const DatasetFunction> funcs_[3];
  int counts_[3] = {0, 0, 0};
};

// RemoteCall: runs `f` on the device `target` names. dfx runs it when that
// device is on this task (what tf.distribute's per-device generators ask
// for: their own worker); another task is Unimplemented.
class RemoteCallOp final : public OpKernel {
 public:
  explicit RemoteCallOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    absl::StatusOr<std::shared_ptr<const DatasetFunction>> f =
        DatasetFunction::Create(ctx, "f");
    if (!f.ok()) {
      ctx->SetStatus(f.status());
      return;
    }
    f_ = *std::move(f);
    absl::StatusOr<DeviceName> here = DeviceName::Parse(ctx->device()->name());
    if (here.ok()) task_ = here->TaskName();
  }
  void Compute(OpKernelContext* ctx) override {
    const Tensor& target = ctx->input(0);
    DFX_OP_REQUIRES(
        ctx, target.dtype() == DT_STRING && target.NumElements() == 1,
        absl::InvalidArgumentError("target must be a scalar string"));
    const std::string& name = target.data<std::string>()[0];
    absl::StatusOr<DeviceName> there = DeviceName::Parse(name);
    DFX_OP_REQUIRES(ctx, there.ok() && there->TaskName() == task_,
                    absl::UnimplementedError(absl::StrCat(
                        "RemoteCall of '", f_->name(), "' to '", name,
                        "': dfx runs remote calls only on the calling task (",
                        task_, ")")));
    std::vector<Tensor> args;
    for (int i = 1; i < ctx->num_inputs(); ++i) args.push_back(ctx->input(i));
    IteratorContext ictx = IteratorContextOf(ctx);
    absl::StatusOr<std::vector<Tensor>> results =
        f_->Run(&ictx, std::move(args));
    DFX_OP_REQUIRES_OK(ctx, results.status());
    DFX_OP_REQUIRES(
        ctx, static_cast<int>(results->size()) == num_outputs(),
        absl::InvalidArgumentError(absl::StrCat(
            "function '", f_->name(), "' returned ", results->size(),
            " values, RemoteCall has ", num_outputs(), " outputs")));
    for (int i = 0; i < num_outputs(); ++i) {
      ctx->set_output(i, std::move((*results)[i]));
    }
  }

 private:
  std::shared_ptr<const DatasetFunction> f_;
  std::string task_;
};

}  // namespace

void RegisterMultiDeviceKernels(KernelRegistry* registry) {
  for (const char* op : {"AnonymousMultiDeviceIteratorV3",
                         "AnonymousMultiDeviceIterator",
                         "MultiDeviceIterator"}) {
    RegisterKernel<MultiDeviceIteratorOp>(registry, KernelDefBuilder(op));
  }
  RegisterKernel<MultiDeviceIteratorInitOp>(
      registry, KernelDefBuilder("MultiDeviceIteratorInit"));
  RegisterKernel<MultiDeviceIteratorGetNextFromShardOp>(
      registry, KernelDefBuilder("MultiDeviceIteratorGetNextFromShard"));
  RegisterKernel<MultiDeviceIteratorFromStringHandleOp>(
      registry, KernelDefBuilder("MultiDeviceIteratorFromStringHandle"));
  RegisterKernel<DeleteMultiDeviceIteratorOp>(
      registry, KernelDefBuilder("DeleteMultiDeviceIterator"));
  RegisterKernel<GeneratorDatasetOp>(registry,
                                     KernelDefBuilder("GeneratorDataset"));
  RegisterKernel<RemoteCallOp>(registry, KernelDefBuilder("RemoteCall"));
}

}  // namespace dfx::data
