// The stats family's kernels (graph/ops/stats_ops.cc), as TensorFlow
// 2.21's stats_aggregator_ops.cc, set_stats_aggregator_dataset_op.cc,
// stats_dataset_ops.cc and compute_batch_size_op.cc:
//
// - StatsAggregatorHandle (and its Experimental name) and
//   StatsAggregatorHandleV2 make (or find) the aggregator named by
//   container and shared_name; without a shared_name the aggregator is the
//   kernel's own. StatsAggregatorSummary encodes a V1 aggregator as a
//   serialized Summary; StatsAggregatorSetSummaryWriter points a V2 one at
//   a summary writer (kernels/summary/event_writer.h).
// - SetStatsAggregatorDataset passes its input's elements through, and
//   gives the input's calls an IteratorContext whose stats_aggregator tags
//   each name "<tag>::<name>" (just "<name>" for an empty tag) and counters
//   "<counter_prefix>/<tagged name>" ("/tensorflow/<tagged name>" without a
//   prefix).
// - LatencyStatsDataset records each element's GetNext time in
//   microseconds, BytesProducedStatsDataset each element's bytes (as
//   TensorFlow's Tensor::TotalBytes counts them: a string is 24 bytes plus
//   its length), each into the histogram `tag` of the context's
//   aggregator, when there is one. The step is the number of elements the
//   stats iterator produced before (TensorFlow's model node's count with
//   autotune on; without autotune TensorFlow records step 0).
// - ComputeBatchSize walks the nodes that made the dataset as TensorFlow
//   walks the dataset's serialized graph.
//
// Filter and prefetch record statistics of their own into the context's
// aggregator (transform_kernels.cc, prefetch_kernels.cc); TensorFlow's
// parallel datasets record their thread utilization, dfx's (which run
// calls in order) do not.
#include <atomic>
#include <chrono>
#include <cstdint>
#include <initializer_list>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "kernels/data/dataset.h"
#include "kernels/data/stats_aggregator_resource.h"
#include "kernels/data_flow/data_flow_util.h"
#include "runtime/op_kernel.h"
#include "runtime/resource_mgr.h"

namespace dfx::data {

// --- StatsAggregatorResource.

std::string StatsAggregatorResource::DebugString() const {
  return v2_ ? "StatsAggregatorV2" : "StatsAggregator";
}

void StatsAggregatorResource::AddToHistogram(const std::string& name,
                                             double value, int64_t step) {
  absl::MutexLock lock(&mu_);
  summary::Histogram& h = histograms_[name];
  h.Add(value);
  if (!v2_ || writer_ == nullptr) return;
  auto e = std::make_unique<Event>();
  e->set_step(step);
  e->set_wall_time(summary::WallTime());
  Summary::Value* v = e->mutable_summary()->add_value();
  v->set_tag(name);
  h.Encode(v->mutable_histo());
  WriteEventLocked(std::move(e));
}

void StatsAggregatorResource::AddScalar(const std::string& name, float value,
                                        int64_t step) {
  absl::MutexLock lock(&mu_);
  if (!v2_) {
    scalars_[name] = value;
    return;
  }
  if (writer_ == nullptr) return;
  auto e = std::make_unique<Event>();
  e->set_step(step);
  e->set_wall_time(summary::WallTime());
  Summary::Value* v = e->mutable_summary()->add_value();
  v->set_tag(name);
  v->set_simple_value(value);
  WriteEventLocked(std::move(e));
}

void StatsAggregatorResource::IncrementCounter(const std::string& name,
                                               const std::string& label,
                                               int64_t delta) {
  absl::MutexLock lock(&mu_);
  counters_[{name, label}] += delta;
}

int64_t StatsAggregatorResource::Counter(const std::string& name,
                                         const std::string& label) const {
  absl::MutexLock lock(&mu_);
  auto it = counters_.find({name, label});
  return it == counters_.end() ? 0 : it->second;
}

Summary StatsAggregatorResource::Encode() const {
  Summary s;
  if (v2_) return s;  // V2 pushes events; TensorFlow's V2 encodes nothing
  absl::MutexLock lock(&mu_);
  // TensorFlow's order is its hash maps' (histograms, then scalars); dfx's
  // is by name within each.
  for (const auto& [name, h] : histograms_) {
    Summary::Value* v = s.add_value();
    v->set_tag(name);
    h.Encode(v->mutable_histo());
  }
  for (const auto& [name, value] : scalars_) {
    Summary::Value* v = s.add_value();
    v->set_tag(name);
    v->set_simple_value(value);
  }
  return s;
}

void StatsAggregatorResource::SetSummaryWriter(
    std::shared_ptr<summary::SummaryFileWriter> writer) {
  if (!v2_) return;  // TensorFlow's V1 ignores the writer
  absl::MutexLock lock(&mu_);
  writer_ = std::move(writer);
}

void StatsAggregatorResource::WriteEventLocked(std::unique_ptr<Event> e) {
  // The writer queues the event; a failed flush (a full disk) shows on the
  // writer's next FlushSummaryWriter. TensorFlow aborts the process here.
  writer_->WriteEvent(std::move(e)).IgnoreError();
}

namespace {

std::atomic<int64_t> next_aggregator_id{0};

// A scalar string input; InvalidArgument "<name> must be a scalar" (as
// TensorFlow's ParseScalarArgument) otherwise.
absl::StatusOr<std::string> ScalarString(OpKernelContext* ctx, int index,
                                         const char* name) {
  const Tensor& t = ctx->input(index);
  if (t.dtype() != DT_STRING || t.dims() != 0) {
    return absl::InvalidArgumentError(absl::StrCat(name, " must be a scalar"));
  }
  return t.scalar<std::string>();
}

absl::StatusOr<std::shared_ptr<StatsAggregatorResource>> LookupAggregator(
    OpKernelContext* ctx, int index) {
  if (ctx->input(index).dims() != 0) {
    return absl::InvalidArgumentError("resource_handle must be a scalar");
  }
  return data_flow::LookupHandle<StatsAggregatorResource>(ctx, index);
}

class StatsAggregatorHandleOp final : public OpKernel {
 public:
  explicit StatsAggregatorHandleOp(OpKernelConstruction* c) : OpKernel(c) {
    set_expensive(false);
    v2_ = c->def().op() == "StatsAggregatorHandleV2";
    c->SetStatus(c->GetAttr("container", &container_));
    c->SetStatus(c->GetAttr("shared_name", &name_));
    if (!c->status().ok()) return;
    // Without a shared_name the aggregator is the kernel's own (one per
    // node and session), as TensorFlow's ResourceOpKernel names it.
    if (name_.empty()) {
      name_ = absl::StrCat("_", next_aggregator_id.fetch_add(1), "_",
                           c->def().name());
    }
    ResourceMgr* rm = c->device()->resource_manager();
    if (container_.empty()) container_ = rm->default_container();
    handle_ =
        data_flow::SharedResourceHandle(*c->device(), false, container_, name_,
                                        StatsAggregatorResource::kTypeName);
  }

  void Compute(OpKernelContext* ctx) override {
    // Looked up every step, so a reset container gives a fresh aggregator.
    const bool v2 = v2_;
    DFX_OP_REQUIRES_OK(
        ctx,
        ctx->resource_manager()
            ->LookupOrCreate<StatsAggregatorResource>(
                container_, name_,
                [v2] { return std::make_shared<StatsAggregatorResource>(v2); })
            .status());
    ctx->set_output(0, handle_);
  }

 private:
  bool v2_ = false;
  std::string container_;
  std::string name_;
  Tensor handle_{DT_RESOURCE, TensorShape()};
};

class StatsAggregatorSummaryOp final : public OpKernel {
 public:
  explicit StatsAggregatorSummaryOp(OpKernelConstruction* c) : OpKernel(c) {
    set_expensive(false);
  }
  void Compute(OpKernelContext* ctx) override {
    auto aggregator = LookupAggregator(ctx, 0);
    DFX_OP_REQUIRES_OK(ctx, aggregator.status());
    ctx->set_output(0, Tensor::Scalar<std::string>(
                           (*aggregator)->Encode().SerializeAsString()));
  }
};

class StatsAggregatorSetSummaryWriterOp final : public OpKernel {
 public:
  explicit StatsAggregatorSetSummaryWriterOp(OpKernelConstruction* c)
      : OpKernel(c) {
    set_expensive(false);
  }
  void Compute(OpKernelContext* ctx) override {
    auto aggregator = LookupAggregator(ctx, 0);
    DFX_OP_REQUIRES_OK(ctx, aggregator.status());
    DFX_OP_REQUIRES(
        ctx, ctx->input(1).dims() == 0,
        absl::InvalidArgumentError("resource_handle must be a scalar"));
    auto writer = data_flow::LookupHandle<summary::SummaryFileWriter>(ctx, 1);
    DFX_OP_REQUIRES_OK(ctx, writer.status());
    (*aggregator)->SetSummaryWriter(*std::move(writer));
  }
};

// The aggregator a SetStatsAggregatorDataset gives its input: names tagged
// and counters prefixed as TensorFlow's StatsAggregatorWithTagAndPrefix.
class TaggedAggregator final : public StatsAggregator {
 public:
  TaggedAggregator(std::shared_ptr<StatsAggregatorResource> wrapped,
                   const std::string& tag, const std::string& prefix)
      : wrapped_(std::move(wrapped)), tag_(tag), prefix_(prefix) {}

  void AddToHistogram(const std::string& name, double value,
                      int64_t step) override {
    wrapped_->AddToHistogram(Tagged(name), value, step);
  }
  void AddScalar(const std::string& name, float value, int64_t step) override {
    wrapped_->AddScalar(Tagged(name), value, step);
  }
  void IncrementCounter(const std::string& name, const std::string& label,
                        int64_t delta) override {
    wrapped_->IncrementCounter(
        absl::StrCat(prefix_.empty() ? "/tensorflow" : prefix_, "/",
                     Tagged(name)),
        label, delta);
  }

 private:
  std::string Tagged(const std::string& name) const {
    return tag_.empty() ? name : absl::StrCat(tag_, "::", name);
  }

  const std::shared_ptr<StatsAggregatorResource> wrapped_;
  const std::string tag_;
  const std::string prefix_;
};

class SetStatsAggregatorDataset final : public UnaryDataset {
 public:
  SetStatsAggregatorDataset(DatasetPtr input,
                            std::shared_ptr<StatsAggregator> aggregator)
      : UnaryDataset(input, input->output_dtypes()),
        aggregator_(std::move(aggregator)) {}

  int64_t Cardinality() const override { return input()->Cardinality(); }
  std::string DebugString() const override {
    return "SetStatsAggregatorDatasetOp::Dataset";
  }
  absl::StatusOr<std::unique_ptr<IteratorBase>> MakeIterator(
      IteratorContext* ctx) const override {
    DFX_ASSIGN_OR_RETURN(std::unique_ptr<IteratorBase> in,
                         input()->MakeIterator(ctx));
    return std::unique_ptr<IteratorBase>(
        new Iterator(Self<SetStatsAggregatorDataset>(), std::move(in)));
  }

 private:
  // Saving is left to the default (Unimplemented), as TensorFlow's
  // iterator "does not support checkpointing".
  class Iterator final : public IteratorBase {
   public:
    Iterator(std::shared_ptr<const SetStatsAggregatorDataset> d,
             std::unique_ptr<IteratorBase> in)
        : d_(std::move(d)), in_(std::move(in)) {}
    absl::Status GetNext(IteratorContext* ctx, std::vector<Tensor>* out,
                         bool* end) override {
      IteratorContext inner = *ctx;
      inner.stats_aggregator = d_->aggregator_;
      return in_->GetNext(&inner, out, end);
    }

   private:
    const std::shared_ptr<const SetStatsAggregatorDataset> d_;
    const std::unique_ptr<IteratorBase> in_;
  };

  const std::shared_ptr<StatsAggregator> aggregator_;
};

class SetStatsAggregatorDatasetOp final : public DatasetOpKernel {
 public:
  using DatasetOpKernel::DatasetOpKernel;

 private:
  absl::StatusOr<DatasetPtr> MakeDataset(OpKernelContext* ctx) override {
    DFX_ASSIGN_OR_RETURN(DatasetPtr input, DatasetFromInput(ctx, 0));
    DFX_ASSIGN_OR_RETURN(std::shared_ptr<StatsAggregatorResource> resource,
                         LookupAggregator(ctx, 1));
    DFX_ASSIGN_OR_RETURN(std::string tag, ScalarString(ctx, 2, "tag"));
    DFX_ASSIGN_OR_RETURN(std::string prefix,
                         ScalarString(ctx, 3, "counter_prefix"));
    return std::make_shared<SetStatsAggregatorDataset>(
        std::move(input),
        std::make_shared<TaggedAggregator>(std::move(resource), tag, prefix));
  }
};

// Bytes of an element's tensor as TensorFlow's Tensor::TotalBytes counts
// them: a string is a 24-byte tstring plus its characters.
int64_t TfTotalBytes(const Tensor& t) {
  if (t.dtype() != DT_STRING) return static_cast<int64_t>(t.TotalBytes());
  int64_t total = 24 * t.NumElements();
  const std::string* s = t.data<std::string>();
  for (int64_t i = 0; i < t.NumElements(); ++i) total += s[i].size();
  return total;
}

// LatencyStatsDataset and BytesProducedStatsDataset: the input's elements,
// each one's latency or bytes recorded in the context's aggregator.
class StatsDataset final : public UnaryDataset {
 public:
  StatsDataset(DatasetPtr input, bool latency, std::string tag)
      : UnaryDataset(input, input->output_dtypes()),
        latency_(latency),
        tag_(std::move(tag)) {}

  int64_t Cardinality() const override { return input()->Cardinality(); }
  std::string DebugString() const override {
    return latency_ ? "LatencyStatsDatasetOp::Dataset"
                    : "BytesProducedStatsDatasetOp::Dataset";
  }
  absl::StatusOr<std::unique_ptr<IteratorBase>> MakeIterator(
      IteratorContext* ctx) const override {
    DFX_ASSIGN_OR_RETURN(std::unique_ptr<IteratorBase> in,
                         input()->MakeIterator(ctx));
    return std::unique_ptr<IteratorBase>(
        new Iterator(Self<StatsDataset>(), std::move(in)));
  }

 private:
  class Iterator final : public IteratorBase {
   public:
    Iterator(std::shared_ptr<const StatsDataset> d,
             std::unique_ptr<IteratorBase> in)
        : d_(std::move(d)), in_(std::move(in)) {}

    absl::Status GetNext(IteratorContext* ctx, std::vector<Tensor>* out,
                         bool* end) override {
      StatsAggregator* aggregator = ctx->stats_aggregator.get();
      if (d_->latency_) {
        const auto start = std::chrono::steady_clock::now();
        absl::Status s = in_->GetNext(ctx, out, end);
        const auto stop = std::chrono::steady_clock::now();
        // As TensorFlow: a failed call's time counts too.
        if (aggregator != nullptr && !*end) {
          const auto micros =
              std::chrono::duration_cast<std::chrono::microseconds>(stop -
                                                                    start);
          aggregator->AddToHistogram(
              d_->tag_, static_cast<double>(micros.count()), produced_);
        }
        if (s.ok() && !*end) ++produced_;
        return s;
      }
      DFX_RETURN_IF_ERROR(in_->GetNext(ctx, out, end));
      if (*end) return absl::OkStatus();
      if (aggregator != nullptr) {
        int64_t bytes = 0;
        for (const Tensor& t : *out) bytes += TfTotalBytes(t);
        aggregator->AddToHistogram(d_->tag_, static_cast<double>(bytes),
                                   produced_);
      }
      ++produced_;
      return absl::OkStatus();
    }

    // The input's position under this iterator's prefix: saved states
    // read the same as when these datasets passed their input through.
    absl::Status Save(const std::string& prefix,
                      IteratorState* state) override {
      return SaveIterator(*d_->input(), *in_, prefix, state);
    }
    absl::Status Restore(IteratorContext* ctx, const std::string& prefix,
                         const IteratorState& state) override {
      return RestoreIterator(*d_->input(), *in_, ctx, prefix, state);
    }

   private:
    const std::shared_ptr<const StatsDataset> d_;
    const std::unique_ptr<IteratorBase> in_;
    int64_t produced_ = 0;
  };

  const bool latency_;
  const std::string tag_;
};

class StatsDatasetOp final : public DatasetOpKernel {
 public:
  explicit StatsDatasetOp(OpKernelConstruction* ctx)
      : DatasetOpKernel(ctx),
        latency_(absl::StrContains(ctx->def().op(), "Latency")) {}

 private:
  absl::StatusOr<DatasetPtr> MakeDataset(OpKernelContext* ctx) override {
    DFX_ASSIGN_OR_RETURN(DatasetPtr input, DatasetFromInput(ctx, 0));
    DFX_ASSIGN_OR_RETURN(std::string tag, ScalarString(ctx, 1, "tag"));
    return std::make_shared<StatsDataset>(std::move(input), latency_,
                                          std::move(tag));
  }

  const bool latency_;
};

// --- ComputeBatchSize.

// TensorFlow's MatchesAnyVersion: `op` is `name` or `name` followed by
// "V<digits>".
bool IsVersionOf(absl::string_view name, absl::string_view op) {
  if (!absl::StartsWith(op, name)) return false;
  absl::string_view rest = op.substr(name.size());
  if (rest.empty()) return true;
  if (rest.size() < 2 || rest[0] != 'V') return false;
  for (char c : rest.substr(1)) {
    if (!absl::ascii_isdigit(c)) return false;
  }
  return true;
}

bool IsAnyOf(absl::string_view op, std::initializer_list<const char*> names) {
  for (const char* n : names) {
    if (IsVersionOf(n, op)) return true;
  }
  return false;
}

// The static batch size of `d`'s elements, or -1, walking the nodes that
// made it as TensorFlow's ComputeBatchSizeOp walks the dataset's graph: a
// batching dataset's batch_size, the common size of a zip's or a
// concatenation's inputs, the input's through the datasets that keep the
// 0th dimension; -1 at anything else (and at a dataset made without a
// node: a function's).
int64_t BatchSizeOf(const DatasetBase& d) {
  std::shared_ptr<const DatasetBase::Node> node = d.node();
  if (node == nullptr || node->def == nullptr) return -1;
  const std::string& op = node->def->op();
  const int num_inputs = static_cast<int>(node->dataset_input.size());
  const bool map_and_batch =
      op == "MapAndBatchDataset" || op == "ExperimentalMapAndBatchDataset";
  if (map_and_batch || IsAnyOf(op, {"BatchDataset", "PaddedBatchDataset"})) {
    const int index = map_and_batch ? num_inputs - 3 : 1;
    if (index < 0 || index >= num_inputs || node->dataset_input[index]) {
      return -1;
    }
    int arg = 0;
    for (int i = 0; i < index; ++i) arg += node->dataset_input[i] ? 0 : 1;
    if (arg >= static_cast<int>(node->args.size())) return -1;
    const Tensor& t = node->args[arg];
    if (t.dtype() != DT_INT64 || t.dims() != 0) return -1;
    return t.scalar<int64_t>();
  }
  if (IsAnyOf(op, {"ConcatenateDataset", "ZipDataset"})) {
    if (node->inputs.empty()) return -1;
    const int64_t first = BatchSizeOf(*node->inputs[0]);
    for (size_t i = 1; i < node->inputs.size(); ++i) {
      if (BatchSizeOf(*node->inputs[i]) != first) return -1;
    }
    return first;
  }
  // OptionsDataset: TensorFlow leaves it out of the graph it walks.
  if (IsAnyOf(op, {"AssertCardinalityDataset", "CacheDataset", "FilterDataset",
                   "ModelDataset", "OptimizeDataset", "ParseExampleDataset",
                   "PrefetchDataset", "RepeatDataset", "ShardDataset",
                   "ShuffleAndRepeatDataset", "ShuffleDataset", "SkipDataset",
                   "TakeDataset", "OptionsDataset"})) {
    if (node->inputs.empty()) return -1;
    return BatchSizeOf(*node->inputs[0]);
  }
  return -1;
}

class ComputeBatchSizeOp final : public OpKernel {
 public:
  explicit ComputeBatchSizeOp(OpKernelConstruction* c) : OpKernel(c) {
    set_expensive(false);
  }
  void Compute(OpKernelContext* ctx) override {
    absl::StatusOr<DatasetPtr> d = DatasetFromInput(ctx, 0);
    DFX_OP_REQUIRES_OK(ctx, d.status());
    ctx->set_output(0, Tensor::Scalar<int64_t>(BatchSizeOf(**d)));
  }
};

}  // namespace

void RegisterStatsKernels(KernelRegistry* registry) {
  for (const char* op :
       {"StatsAggregatorHandle", "ExperimentalStatsAggregatorHandle",
        "StatsAggregatorHandleV2"}) {
    RegisterKernel<StatsAggregatorHandleOp>(registry, KernelDefBuilder(op));
  }
  for (const char* op :
       {"StatsAggregatorSummary", "ExperimentalStatsAggregatorSummary"}) {
    RegisterKernel<StatsAggregatorSummaryOp>(registry, KernelDefBuilder(op));
  }
  RegisterKernel<StatsAggregatorSetSummaryWriterOp>(
      registry, KernelDefBuilder("StatsAggregatorSetSummaryWriter"));
  for (const char* op :
       {"SetStatsAggregatorDataset", "ExperimentalSetStatsAggregatorDataset"}) {
    RegisterKernel<SetStatsAggregatorDatasetOp>(registry, KernelDefBuilder(op));
  }
  for (const char* op :
       {"LatencyStatsDataset", "ExperimentalLatencyStatsDataset",
        "BytesProducedStatsDataset", "ExperimentalBytesProducedStatsDataset"}) {
    RegisterKernel<StatsDatasetOp>(registry, KernelDefBuilder(op));
  }
  RegisterKernel<ComputeBatchSizeOp>(registry,
                                     KernelDefBuilder("ComputeBatchSize"));
}

}  // namespace dfx::data
