// Dataset transformations: map (and its parallel form, run in order),
// filter (and ParallelFilterDataset, run in order), batch (and its parallel
// form), repeat, take, skip, shard, zip, concatenate, and the ops that only
// carry options or tuning (prefetch, options, model, optimize, thread pools,
// finalize), which pass elements through unchanged.
#include <algorithm>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "base/status_macros.h"
#include "kernels/data/dataset.h"
#include "kernels/data/element_util.h"
#include "kernels/data/stats_aggregator.h"

namespace dfx::data {
namespace {

// The kernel of a dataset op whose input 0 is its input dataset.
class UnaryDatasetOp : public DatasetOpKernel {
 public:
  using DatasetOpKernel::DatasetOpKernel;

 protected:
  virtual absl::StatusOr<DatasetPtr> MakeFrom(OpKernelContext* ctx,
                                              DatasetPtr input) = 0;

 private:
  absl::StatusOr<DatasetPtr> MakeDataset(OpKernelContext* ctx) final {
    DFX_ASSIGN_OR_RETURN(DatasetPtr input, DatasetFromInput(ctx, 0));
    return MakeFrom(ctx, std::move(input));
  }
};

// ---------------------------------------------------------------------------
// Pass-through: elements unchanged (tuning ops; dfx does not tune).

class PassThroughOp final : public UnaryDatasetOp {
 public:
  using UnaryDatasetOp::UnaryDatasetOp;

 private:
  absl::StatusOr<DatasetPtr> MakeFrom(OpKernelContext*,
                                      DatasetPtr input) override {
    return input;
  }
};

// OptionsDataset: the input's elements, with options added.
class OptionsDataset final : public UnaryDataset {
 public:
  OptionsDataset(DatasetPtr input, const std::string& serialized)
      : UnaryDataset(input, input->output_dtypes()) {
    set_options(input->options() + serialized);
  }
  int64_t Cardinality() const override { return input()->Cardinality(); }
  std::string DebugString() const override { return "OptionsDataset"; }
  absl::Status Get(IteratorContext* ctx, int64_t index,
                   std::vector<Tensor>* out) const override {
    return input()->Get(ctx, index, out);
  }
  absl::Status RandomAccessCompatible() const override {
    return input()->RandomAccessCompatible();
  }
  absl::StatusOr<std::unique_ptr<IteratorBase>> MakeIterator(
      IteratorContext* ctx) const override {
    return input()->MakeIterator(ctx);
  }
};

class OptionsDatasetOp final : public UnaryDatasetOp {
 public:
  explicit OptionsDatasetOp(OpKernelConstruction* ctx) : UnaryDatasetOp(ctx) {
    ctx->SetStatus(ctx->GetAttr("serialized_options", &serialized_));
  }

 private:
  absl::StatusOr<DatasetPtr> MakeFrom(OpKernelContext*,
                                      DatasetPtr input) override {
    return std::make_shared<OptionsDataset>(std::move(input), serialized_);
  }
  std::string serialized_;
};

// GetOptions: the dataset's options, serialized.
class GetOptionsOp final : public OpKernel {
 public:
  explicit GetOptionsOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    set_expensive(false);
  }
  void Compute(OpKernelContext* ctx) override {
    absl::StatusOr<DatasetPtr> d = DatasetFromInput(ctx, 0);
    DFX_OP_REQUIRES_OK(ctx, d.status());
    ctx->set_output(0, Tensor::Scalar<std::string>((*d)->options()));
  }
};

// RewriteDataset: TensorFlow applies the named tf.data rewrite. The only
// one its Python API names, "replicate_on_split" (choose_from_datasets and
// Dataset.range emit it), changes how the tf.data service splits work, not
// the elements: dfx passes them through.
class RewriteDatasetOp final : public UnaryDatasetOp {
 public:
  using UnaryDatasetOp::UnaryDatasetOp;

 private:
  absl::StatusOr<DatasetPtr> MakeFrom(OpKernelContext* ctx,
                                      DatasetPtr input) override {
    const Tensor& name = ctx->input(1);
    if (name.dtype() != DT_STRING || name.dims() != 0) {
      return absl::InvalidArgumentError("rewrite_name must be a scalar string");
    }
    if (name.scalar<std::string>() != "replicate_on_split") {
      return absl::UnimplementedError(
          absl::StrCat("RewriteDataset: the rewrite '",
                       name.scalar<std::string>(),
                       "' is not one dfx knows (it applies "
                       "replicate_on_split only)"));
    }
    return input;
  }
};

// ---------------------------------------------------------------------------
// Map and filter.

class MapDataset final : public UnaryDataset {
 public:
  MapDataset(DatasetPtr input, DataTypeVector dtypes,
             std::shared_ptr<const DatasetFunction> f,
             std::vector<Tensor> captured, bool preserve_cardinality)
      : UnaryDataset(std::move(input), std::move(dtypes)),
        f_(std::move(f)),
        captured_(std::move(captured)),
        preserve_cardinality_(preserve_cardinality) {}

  int64_t Cardinality() const override {
    return preserve_cardinality_ ? input()->Cardinality()
                                 : kUnknownCardinality;
  }
  std::string DebugString() const override {
    return absl::StrCat("MapDataset(", f_->name(), ")");
  }
  absl::Status Get(IteratorContext* ctx, int64_t index,
                   std::vector<Tensor>* out) const override {
    DFX_RETURN_IF_ERROR(CheckRandomAccessCompatible(index));
    std::vector<Tensor> args;
    DFX_RETURN_IF_ERROR(input()->Get(ctx, index, &args));
    args.insert(args.end(), captured_.begin(), captured_.end());
    DFX_ASSIGN_OR_RETURN(*out, f_->Run(ctx, std::move(args)));
    return CheckOutputTypes(output_dtypes(), DtypesOf(*out), "map function");
  }
  absl::Status RandomAccessCompatible() const override {
    return input()->RandomAccessCompatible();
  }
  absl::StatusOr<std::unique_ptr<IteratorBase>> MakeIterator(
      IteratorContext* ctx) const override {
    DFX_ASSIGN_OR_RETURN(auto in, input()->MakeIterator(ctx));
    return std::unique_ptr<IteratorBase>(
        new Iterator(Self<MapDataset>(), std::move(in)));
  }

 private:
  class Iterator final : public IteratorBase {
   public:
    Iterator(std::shared_ptr<const MapDataset> d,
             std::unique_ptr<IteratorBase> in)
        : d_(std::move(d)), in_(std::move(in)) {}
    absl::Status GetNext(IteratorContext* ctx, std::vector<Tensor>* out,
                         bool* end) override {
      std::vector<Tensor> args;
      DFX_RETURN_IF_ERROR(in_->GetNext(ctx, &args, end));
      if (*end) return absl::OkStatus();
      args.insert(args.end(), d_->captured_.begin(), d_->captured_.end());
      absl::StatusOr<std::vector<Tensor>> results =
          d_->f_->Run(ctx, std::move(args));
      if (!results.ok()) {
        // TensorFlow: an OutOfRange from the function ends the input when
        // cardinality need not be kept, and is an error otherwise.
        if (absl::IsOutOfRange(results.status())) {
          if (!d_->preserve_cardinality_) {
            *end = true;
            return absl::OkStatus();
          }
          return absl::InvalidArgumentError(absl::StrCat(
              "Function invocation produced OutOfRangeError: ",
              results.status().message()));
        }
        return results.status();
      }
      DFX_RETURN_IF_ERROR(CheckOutputTypes(d_->output_dtypes(),
                                           DtypesOf(*results), "map function"));
      *out = *std::move(results);
      return absl::OkStatus();
    }

    absl::Status Save(const std::string& prefix,
                      IteratorState* state) override {
      return SaveInput(*d_->input(), in_.get(), prefix + "/input", state);
    }
    absl::Status Restore(IteratorContext* ctx, const std::string& prefix,
                         const IteratorState& state) override {
      return RestoreInput(ctx, *d_->input(), &in_, prefix + "/input", state);
    }

   private:
    const std::shared_ptr<const MapDataset> d_;
    std::unique_ptr<IteratorBase> in_;
  };

  const std::shared_ptr<const DatasetFunction> f_;
  const std::vector<Tensor> captured_;
  const bool preserve_cardinality_;
};

// MapDataset and ParallelMapDatasetV2. The parallel form runs its calls
// one at a time, in order: its elements are the same, in the order a
// deterministic TensorFlow pipeline gives them.
class MapDatasetOp final : public UnaryDatasetOp {
 public:
  explicit MapDatasetOp(OpKernelConstruction* ctx)
      : UnaryDatasetOp(ctx), fn_(ReadDatasetOpFunction(ctx, "f")) {
    if (FindNodeAttr(ctx->def(), "preserve_cardinality") != nullptr) {
      ctx->SetStatus(
          ctx->GetAttr("preserve_cardinality", &preserve_cardinality_));
    }
  }

 private:
  absl::StatusOr<DatasetPtr> MakeFrom(OpKernelContext* ctx,
                                      DatasetPtr input) override {
    return std::make_shared<MapDataset>(
        std::move(input), output_types(), fn_.f,
        CapturedInputs(ctx, fn_.num_captured), preserve_cardinality_);
  }

  const DatasetOpFunction fn_;
  bool preserve_cardinality_ = false;
};

class FilterDataset final : public UnaryDataset {
 public:
  FilterDataset(DatasetPtr input, std::shared_ptr<const DatasetFunction> f,
                std::vector<Tensor> captured)
      : UnaryDataset(input, input->output_dtypes()),
        f_(std::move(f)),
        captured_(std::move(captured)) {}

  std::string DebugString() const override {
    return absl::StrCat("FilterDataset(", f_->name(), ")");
  }
  absl::StatusOr<std::unique_ptr<IteratorBase>> MakeIterator(
      IteratorContext* ctx) const override {
    DFX_ASSIGN_OR_RETURN(auto in, input()->MakeIterator(ctx));
    return std::unique_ptr<IteratorBase>(
        new Iterator(Self<FilterDataset>(), std::move(in)));
  }

 private:
  class Iterator final : public IteratorBase {
   public:
    Iterator(std::shared_ptr<const FilterDataset> d,
             std::unique_ptr<IteratorBase> in)
        : d_(std::move(d)), in_(std::move(in)) {}
    absl::Status GetNext(IteratorContext* ctx, std::vector<Tensor>* out,
                         bool* end) override {
      while (true) {
        std::vector<Tensor> element;
        DFX_RETURN_IF_ERROR(in_->GetNext(ctx, &element, end));
        if (*end) return absl::OkStatus();
        std::vector<Tensor> args = element;
        args.insert(args.end(), d_->captured_.begin(), d_->captured_.end());
        DFX_ASSIGN_OR_RETURN(std::vector<Tensor> keep,
                             d_->f_->Run(ctx, std::move(args)));
        if (keep.size() != 1 || keep[0].dtype() != DT_BOOL ||
            keep[0].NumElements() != 1 || keep[0].dims() != 0) {
          return absl::InvalidArgumentError(
              "Filter predicate `f` must return a scalar bool.");
        }
        StatsAggregator* stats = ctx->stats_aggregator.get();
        if (keep[0].scalar<bool>()) {
          ++filtered_;
          if (stats != nullptr) {
            Record(*stats, "filtered_elements", filtered_, filtered_ - 1);
          }
          *out = std::move(element);
          return absl::OkStatus();
        }
        ++dropped_;
        if (stats != nullptr) {
          Record(*stats, "dropped_elements", dropped_, filtered_);
        }
      }
    }

    absl::Status Save(const std::string& prefix,
                      IteratorState* state) override {
      return SaveInput(*d_->input(), in_.get(), prefix + "/input", state);
    }
    absl::Status Restore(IteratorContext* ctx, const std::string& prefix,
                         const IteratorState& state) override {
      return RestoreInput(ctx, *d_->input(), &in_, prefix + "/input", state);
    }

   private:
    // As TensorFlow's filter: the count as scalar "<node>::<what>" (the
    // name of the node that made the dataset), a counter "<node>" labelled
    // `what`; the step is the number of elements kept before.
    void Record(StatsAggregator& stats, const char* what, int64_t count,
                int64_t step) {
      std::shared_ptr<const Node> node = d_->node();
      const std::string name = node != nullptr && node->def != nullptr
                                   ? node->def->name()
                                   : std::string("FilterDataset");
      stats.AddScalar(absl::StrCat(name, "::", what),
                      static_cast<float>(count), step);
      stats.IncrementCounter(name, what, 1);
    }

    const std::shared_ptr<const FilterDataset> d_;
    std::unique_ptr<IteratorBase> in_;
    int64_t filtered_ = 0;  // elements kept
    int64_t dropped_ = 0;
  };

  const std::shared_ptr<const DatasetFunction> f_;
  const std::vector<Tensor> captured_;
};

class FilterDatasetOp final : public UnaryDatasetOp {
 public:
  explicit FilterDatasetOp(OpKernelConstruction* ctx)
      : UnaryDatasetOp(ctx), fn_(ReadDatasetOpFunction(ctx, "predicate")) {}

 private:
  absl::StatusOr<DatasetPtr> MakeFrom(OpKernelContext* ctx,
                                      DatasetPtr input) override {
    if (parallel_) {
      // ParallelFilterDataset: calls run one at a time, in order, as
      // parallel map's do in dfx; num_parallel_calls is a hint (TensorFlow
      // 2.21 checks no value of it when the dataset is made).
      DFX_RETURN_IF_ERROR(
          ScalarInt64Input(ctx, 1 + fn_.num_captured, "num_parallel_calls")
              .status());
    }
    return std::make_shared<FilterDataset>(
        std::move(input), fn_.f, CapturedInputs(ctx, fn_.num_captured));
  }

  const DatasetOpFunction fn_;
  const bool parallel_ = def().op() == "ParallelFilterDataset";
};

// ---------------------------------------------------------------------------
// Batch.

class BatchDataset final : public UnaryDataset {
 public:
  BatchDataset(DatasetPtr input, int64_t batch_size, bool drop_remainder)
      : UnaryDataset(input, input->output_dtypes()),
        batch_size_(batch_size),
        drop_remainder_(drop_remainder) {}

  int64_t Cardinality() const override {
    const int64_t n = input()->Cardinality();
    if (n < 0) return n;
    return drop_remainder_ ? n / batch_size_
                           : (n + batch_size_ - 1) / batch_size_;
  }
  std::string DebugString() const override {
    return absl::StrCat("BatchDataset(", batch_size_, ")");
  }
  // As TensorFlow's: the index against the cardinality, whatever it is.
  absl::Status Get(IteratorContext* ctx, int64_t index,
                   std::vector<Tensor>* out) const override {
    const int64_t n = Cardinality();
    if (index < 0 || index >= n) {
      return absl::OutOfRangeError(
          absl::StrCat("Index out of range [0, ", n, "):", index));
    }
    const int64_t in_n = input()->Cardinality();
    std::vector<std::vector<Tensor>> elements;
    int64_t held = 0;
    for (int64_t i = index * batch_size_;
         i < (index + 1) * batch_size_ && i < in_n; ++i) {
      DFX_RETURN_IF_ERROR(input()->Get(ctx, i, &elements.emplace_back()));
      held += ElementBytes(elements.back());
      DFX_RETURN_IF_ERROR(CheckHeldElements(held, DebugString()));
    }
    out->clear();
    for (size_t c = 0; c < output_dtypes().size(); ++c) {
      DFX_ASSIGN_OR_RETURN(Tensor t,
                           StackComponent(ctx->device->GetAllocator(),
                                          elements, static_cast<int>(c)));
      out->push_back(std::move(t));
    }
    return absl::OkStatus();
  }
  absl::Status RandomAccessCompatible() const override {
    if (!drop_remainder_) {
      return absl::FailedPreconditionError(
          "BatchDatasetV2 does not support global shuffling with "
          "`drop_remainder=False`.");
    }
    return input()->RandomAccessCompatible();
  }
  absl::StatusOr<std::unique_ptr<IteratorBase>> MakeIterator(
      IteratorContext* ctx) const override {
    DFX_ASSIGN_OR_RETURN(auto in, input()->MakeIterator(ctx));
    return std::unique_ptr<IteratorBase>(
        new Iterator(Self<BatchDataset>(), std::move(in)));
  }

 private:
  class Iterator final : public IteratorBase {
   public:
    Iterator(std::shared_ptr<const BatchDataset> d,
             std::unique_ptr<IteratorBase> in)
        : d_(std::move(d)), in_(std::move(in)) {}
    absl::Status GetNext(IteratorContext* ctx, std::vector<Tensor>* out,
                         bool* end) override {
      std::vector<std::vector<Tensor>> elements;
      DFX_RETURN_IF_ERROR(ReadBatch(ctx, &in_, d_->batch_size_,
                                    d_->drop_remainder_, d_->DebugString(),
                                    &elements, end));
      if (*end) return absl::OkStatus();
      *end = false;
      out->clear();
      Allocator* allocator = ctx->device->GetAllocator();
      for (size_t c = 0; c < elements.front().size(); ++c) {
        DFX_ASSIGN_OR_RETURN(
            Tensor t,
            StackComponent(allocator, elements, static_cast<int>(c)));
        out->push_back(std::move(t));
      }
      return absl::OkStatus();
    }

    absl::Status Save(const std::string& prefix,
                      IteratorState* state) override {
      return SaveInput(*d_->input(), in_.get(), prefix + "/input", state);
    }
    absl::Status Restore(IteratorContext* ctx, const std::string& prefix,
                         const IteratorState& state) override {
      return RestoreInput(ctx, *d_->input(), &in_, prefix + "/input", state);
    }

   private:
    const std::shared_ptr<const BatchDataset> d_;
    std::unique_ptr<IteratorBase> in_;
  };

  const int64_t batch_size_;
  const bool drop_remainder_;
};

// BatchDatasetV2, and ParallelBatchDataset, whose drop_remainder comes
// after num_parallel_calls (dfx stacks a batch on the thread that asks, in
// order, which is every `deterministic` setting's order).
class BatchDatasetOp final : public UnaryDatasetOp {
 public:
  explicit BatchDatasetOp(OpKernelConstruction* ctx)
      : UnaryDatasetOp(ctx),
        drop_remainder_input_(ctx->def().op() == "ParallelBatchDataset" ? 3
                                                                        : 2) {}

 private:
  absl::StatusOr<DatasetPtr> MakeFrom(OpKernelContext* ctx,
                                      DatasetPtr input) override {
    DFX_ASSIGN_OR_RETURN(int64_t batch_size,
                         ScalarInt64Input(ctx, 1, "batch_size"));
    if (batch_size <= 0) {
      return absl::InvalidArgumentError(
          "Batch size must be greater than zero.");
    }
    bool drop_remainder = false;
    if (ctx->num_inputs() > drop_remainder_input_) {
      DFX_ASSIGN_OR_RETURN(
          drop_remainder,
          ScalarBoolInput(ctx, drop_remainder_input_, "drop_remainder"));
    }
    return std::make_shared<BatchDataset>(std::move(input), batch_size,
                                          drop_remainder);
  }

  const int drop_remainder_input_;
};

// MapAndBatchDataset (tf.data.experimental.map_and_batch): a map, then a
// batch of its elements; the calls run one at a time, in order, whatever
// num_parallel_calls says.
class MapAndBatchDatasetOp final : public UnaryDatasetOp {
 public:
  explicit MapAndBatchDatasetOp(OpKernelConstruction* ctx)
      : UnaryDatasetOp(ctx), fn_(ReadDatasetOpFunction(ctx, "f")) {
    ctx->SetStatus(
        ctx->GetAttr("preserve_cardinality", &preserve_cardinality_));
  }

 private:
  absl::StatusOr<DatasetPtr> MakeFrom(OpKernelContext* ctx,
                                      DatasetPtr input) override {
    const int n = fn_.num_captured;
    DFX_ASSIGN_OR_RETURN(int64_t batch_size,
                         ScalarInt64Input(ctx, 1 + n, "batch_size"));
    if (batch_size <= 0) {
      return absl::InvalidArgumentError(
          "batch_size must be greater than zero.");
    }
    DFX_ASSIGN_OR_RETURN(int64_t parallel,
                         ScalarInt64Input(ctx, 2 + n, "num_parallel_calls"));
    if (parallel <= 0 && parallel != -1) {  // -1: AUTOTUNE
      return absl::InvalidArgumentError(
          "num_parallel_calls must be greater than zero.");
    }
    DFX_ASSIGN_OR_RETURN(bool drop_remainder,
                         ScalarBoolInput(ctx, 3 + n, "drop_remainder"));
    auto mapped = std::make_shared<MapDataset>(
        std::move(input), output_types(), fn_.f, CapturedInputs(ctx, n),
        preserve_cardinality_);
    return std::make_shared<BatchDataset>(std::move(mapped), batch_size,
                                          drop_remainder);
  }

  const DatasetOpFunction fn_;
  bool preserve_cardinality_ = false;
};

// ---------------------------------------------------------------------------
// Repeat, take, skip, shard.

class RepeatDataset final : public UnaryDataset {
 public:
  RepeatDataset(DatasetPtr input, int64_t count)
      : UnaryDataset(input, input->output_dtypes()), count_(count) {}

  int64_t Cardinality() const override {
    const int64_t n = input()->Cardinality();
    if (count_ == 0 || n == 0) return 0;
    if (count_ < 0 || n == kInfiniteCardinality) return kInfiniteCardinality;
    if (n == kUnknownCardinality) return kUnknownCardinality;
    return n * count_;
  }
  std::string DebugString() const override {
    return absl::StrCat("RepeatDataset(", count_, ")");
  }
  absl::Status Get(IteratorContext* ctx, int64_t index,
                   std::vector<Tensor>* out) const override {
    DFX_RETURN_IF_ERROR(CheckRandomAccessCompatible(index));
    return input()->Get(ctx, index % input()->Cardinality(), out);
  }
  absl::Status RandomAccessCompatible() const override {
    if (count_ < 0) {
      return absl::FailedPreconditionError(
          "`repeat(-1)` does not support random access of tf.data "
          "datasets.");
    }
    return input()->RandomAccessCompatible();
  }
  absl::StatusOr<std::unique_ptr<IteratorBase>> MakeIterator(
      IteratorContext*) const override {
    return std::unique_ptr<IteratorBase>(new Iterator(Self<RepeatDataset>()));
  }

 private:
  class Iterator final : public IteratorBase {
   public:
    explicit Iterator(std::shared_ptr<const RepeatDataset> d)
        : d_(std::move(d)) {}
    absl::Status GetNext(IteratorContext* ctx, std::vector<Tensor>* out,
                         bool* end) override {
      while (d_->count_ < 0 || epoch_ < d_->count_) {
        if (in_ == nullptr) {
          DFX_ASSIGN_OR_RETURN(in_, d_->input()->MakeIterator(ctx));
          produced_this_epoch_ = false;
        }
        DFX_RETURN_IF_ERROR(in_->GetNext(ctx, out, end));
        if (!*end) {
          produced_this_epoch_ = true;
          return absl::OkStatus();
        }
        in_.reset();
        ++epoch_;
        // An empty input repeated for ever would never produce anything.
        if (!produced_this_epoch_) break;
      }
      *end = true;
      if (d_->count_ >= 0) epoch_ = d_->count_;  // stays at its end
      return absl::OkStatus();
    }

    absl::Status Save(const std::string& prefix,
                      IteratorState* state) override {
      state->WriteInt(prefix, "epoch", epoch_);
      state->WriteInt(prefix, "produced", produced_this_epoch_);
      return SaveInput(*d_->input(), in_.get(), prefix + "/input", state);
    }
    absl::Status Restore(IteratorContext* ctx, const std::string& prefix,
                         const IteratorState& state) override {
      DFX_ASSIGN_OR_RETURN(epoch_, state.ReadInt(prefix, "epoch"));
      DFX_ASSIGN_OR_RETURN(int64_t produced, state.ReadInt(prefix, "produced"));
      produced_this_epoch_ = produced != 0;
      return RestoreInput(ctx, *d_->input(), &in_, prefix + "/input", state);
    }

   private:
    const std::shared_ptr<const RepeatDataset> d_;
    std::unique_ptr<IteratorBase> in_;
    int64_t epoch_ = 0;
    bool produced_this_epoch_ = false;
  };

  const int64_t count_;
};

// Take (keep `count` elements; all when negative) and skip (drop `count`;
// all when negative).
class TakeSkipDataset final : public UnaryDataset {
 public:
  TakeSkipDataset(DatasetPtr input, int64_t count, bool take)
      : UnaryDataset(input, input->output_dtypes()),
        count_(count),
        take_(take) {}

  int64_t Cardinality() const override {
    const int64_t n = input()->Cardinality();
    if (take_) {
      if (count_ < 0) return n;
      if (n == kUnknownCardinality) return n;
      return n == kInfiniteCardinality ? count_ : std::min(n, count_);
    }
    if (count_ < 0) return 0;
    if (n < 0) return n;
    return std::max<int64_t>(0, n - count_);
  }
  std::string DebugString() const override {
    return absl::StrCat(take_ ? "TakeDataset(" : "SkipDataset(", count_, ")");
  }
  absl::Status Get(IteratorContext* ctx, int64_t index,
                   std::vector<Tensor>* out) const override {
    DFX_RETURN_IF_ERROR(CheckRandomAccessCompatible(index));
    return input()->Get(ctx, take_ ? index : index + count_, out);
  }
  absl::Status RandomAccessCompatible() const override {
    return input()->RandomAccessCompatible();
  }
  absl::StatusOr<std::unique_ptr<IteratorBase>> MakeIterator(
      IteratorContext* ctx) const override {
    DFX_ASSIGN_OR_RETURN(auto in, input()->MakeIterator(ctx));
    return std::unique_ptr<IteratorBase>(
        new Iterator(Self<TakeSkipDataset>(), std::move(in)));
  }

 private:
  class Iterator final : public IteratorBase {
   public:
    Iterator(std::shared_ptr<const TakeSkipDataset> d,
             std::unique_ptr<IteratorBase> in)
        : d_(std::move(d)), in_(std::move(in)) {}
    absl::Status GetNext(IteratorContext* ctx, std::vector<Tensor>* out,
                         bool* end) override {
      if (in_ == nullptr) {
        *end = true;
        return absl::OkStatus();
      }
      if (d_->take_) {
        if (d_->count_ >= 0 && seen_ >= d_->count_) {
          in_.reset();
          *end = true;
          return absl::OkStatus();
        }
        DFX_RETURN_IF_ERROR(in_->GetNext(ctx, out, end));
        ++seen_;
      } else {
        while (d_->count_ < 0 || seen_ < d_->count_) {
          std::vector<Tensor> dropped;
          DFX_RETURN_IF_ERROR(in_->GetNext(ctx, &dropped, end));
          if (*end) break;
          ++seen_;
        }
        if (!*end) DFX_RETURN_IF_ERROR(in_->GetNext(ctx, out, end));
      }
      if (*end) in_.reset();
      return absl::OkStatus();
    }

    absl::Status Save(const std::string& prefix,
                      IteratorState* state) override {
      state->WriteInt(prefix, "seen", seen_);
      return SaveInput(*d_->input(), in_.get(), prefix + "/input", state);
    }
    absl::Status Restore(IteratorContext* ctx, const std::string& prefix,
                         const IteratorState& state) override {
      DFX_ASSIGN_OR_RETURN(seen_, state.ReadInt(prefix, "seen"));
      return RestoreInput(ctx, *d_->input(), &in_, prefix + "/input", state);
    }

   private:
    const std::shared_ptr<const TakeSkipDataset> d_;
    std::unique_ptr<IteratorBase> in_;
    int64_t seen_ = 0;
  };

  const int64_t count_;
  const bool take_;
};

class TakeSkipDatasetOp final : public UnaryDatasetOp {
 public:
  explicit TakeSkipDatasetOp(OpKernelConstruction* ctx)
      : UnaryDatasetOp(ctx), take_(ctx->def().op() == "TakeDataset") {}

 private:
  absl::StatusOr<DatasetPtr> MakeFrom(OpKernelContext* ctx,
                                      DatasetPtr input) override {
    DFX_ASSIGN_OR_RETURN(int64_t count, ScalarInt64Input(ctx, 1, "count"));
    return std::make_shared<TakeSkipDataset>(std::move(input), count, take_);
  }
  const bool take_;
};

class RepeatDatasetOp final : public UnaryDatasetOp {
 public:
  using UnaryDatasetOp::UnaryDatasetOp;

 private:
  absl::StatusOr<DatasetPtr> MakeFrom(OpKernelContext* ctx,
                                      DatasetPtr input) override {
    DFX_ASSIGN_OR_RETURN(int64_t count, ScalarInt64Input(ctx, 1, "count"));
    return std::make_shared<RepeatDataset>(std::move(input), count);
  }
};

class ShardDataset final : public UnaryDataset {
 public:
  ShardDataset(DatasetPtr input, int64_t num_shards, int64_t index)
      : UnaryDataset(input, input->output_dtypes()),
        num_shards_(num_shards),
        index_(index) {}

  int64_t Cardinality() const override {
    const int64_t n = input()->Cardinality();
    if (n < 0) return n;
    return n / num_shards_ + (index_ < n % num_shards_ ? 1 : 0);
  }
  std::string DebugString() const override {
    return absl::StrCat("ShardDataset(", num_shards_, ", ", index_, ")");
  }
  absl::Status Get(IteratorContext* ctx, int64_t index,
                   std::vector<Tensor>* out) const override {
    DFX_RETURN_IF_ERROR(CheckRandomAccessCompatible(index));
    return input()->Get(ctx, index * num_shards_ + index_, out);
  }
  absl::Status RandomAccessCompatible() const override {
    return input()->RandomAccessCompatible();
  }
  absl::StatusOr<std::unique_ptr<IteratorBase>> MakeIterator(
      IteratorContext* ctx) const override {
    DFX_ASSIGN_OR_RETURN(auto in, input()->MakeIterator(ctx));
    return std::unique_ptr<IteratorBase>(
        new Iterator(Self<ShardDataset>(), std::move(in)));
  }

 private:
  class Iterator final : public IteratorBase {
   public:
    Iterator(std::shared_ptr<const ShardDataset> d,
             std::unique_ptr<IteratorBase> in)
        : d_(std::move(d)), in_(std::move(in)) {}
    absl::Status GetNext(IteratorContext* ctx, std::vector<Tensor>* out,
                         bool* end) override {
      while (true) {
        DFX_RETURN_IF_ERROR(in_->GetNext(ctx, out, end));
        if (*end) return absl::OkStatus();
        if (next_++ % d_->num_shards_ == d_->index_) return absl::OkStatus();
      }
    }

    absl::Status Save(const std::string& prefix,
                      IteratorState* state) override {
      state->WriteInt(prefix, "next", next_);
      return SaveIterator(*d_->input(), *in_, prefix + "/input", state);
    }
    absl::Status Restore(IteratorContext* ctx, const std::string& prefix,
                         const IteratorState& state) override {
      DFX_ASSIGN_OR_RETURN(next_, state.ReadInt(prefix, "next"));
      if (next_ < 0) {
        return absl::InvalidArgumentError(
            "the shard iterator's saved position is negative");
      }
      return RestoreIterator(*d_->input(), *in_, ctx, prefix + "/input",
                             state);
    }

   private:
    const std::shared_ptr<const ShardDataset> d_;
    const std::unique_ptr<IteratorBase> in_;
    int64_t next_ = 0;
  };

  const int64_t num_shards_, index_;
};

class ShardDatasetOp final : public UnaryDatasetOp {
 public:
  using UnaryDatasetOp::UnaryDatasetOp;

 private:
  absl::StatusOr<DatasetPtr> MakeFrom(OpKernelContext* ctx,
                                      DatasetPtr input) override {
    DFX_ASSIGN_OR_RETURN(int64_t num_shards,
                         ScalarInt64Input(ctx, 1, "num_shards"));
    DFX_ASSIGN_OR_RETURN(int64_t index, ScalarInt64Input(ctx, 2, "index"));
    if (num_shards <= 0) {
      return absl::InvalidArgumentError(absl::StrCat(
          "Number of shards must be greater than zero (currently num_shards "
          "= ", num_shards, ")."));
    }
    if (index < 0 || index >= num_shards) {
      return absl::InvalidArgumentError(absl::StrCat(
          "Index must be between 0 and ", num_shards - 1,
          " (currently index = ", index, ")."));
    }
    return std::make_shared<ShardDataset>(std::move(input), num_shards, index);
  }
};

// ---------------------------------------------------------------------------
// Zip and concatenate.

class ZipDataset final : public DatasetBase {
 public:
  ZipDataset(std::vector<DatasetPtr> inputs, DataTypeVector dtypes)
      : DatasetBase(std::move(dtypes)), inputs_(std::move(inputs)) {
    set_options(inputs_.front()->options());
  }

  int64_t Cardinality() const override {
    int64_t n = kInfiniteCardinality;
    for (const DatasetPtr& d : inputs_) {
      const int64_t c = d->Cardinality();
      if (c == kUnknownCardinality) return c;
      if (c >= 0) n = n < 0 ? c : std::min(n, c);
    }
    return n;
  }
  std::string DebugString() const override {
    return absl::StrCat("ZipDataset(", inputs_.size(), " inputs)");
  }
  absl::Status Get(IteratorContext* ctx, int64_t index,
                   std::vector<Tensor>* out) const override {
    DFX_RETURN_IF_ERROR(CheckRandomAccessCompatible(index));
    out->clear();
    for (const DatasetPtr& d : inputs_) {
      std::vector<Tensor> part;
      DFX_RETURN_IF_ERROR(d->Get(ctx, index, &part));
      out->insert(out->end(), part.begin(), part.end());
    }
    return absl::OkStatus();
  }
  absl::Status RandomAccessCompatible() const override {
    for (const DatasetPtr& d : inputs_) {
      DFX_RETURN_IF_ERROR(d->RandomAccessCompatible());
    }
    return absl::OkStatus();
  }
  absl::StatusOr<std::unique_ptr<IteratorBase>> MakeIterator(
      IteratorContext* ctx) const override {
    auto it = std::make_unique<Iterator>(Self<ZipDataset>());
    for (const DatasetPtr& d : inputs_) {
      DFX_ASSIGN_OR_RETURN(auto in, d->MakeIterator(ctx));
      it->inputs.push_back(std::move(in));
    }
    return std::unique_ptr<IteratorBase>(std::move(it));
  }

 private:
  struct Iterator final : public IteratorBase {
    explicit Iterator(std::shared_ptr<const ZipDataset> d) : d(std::move(d)) {}
    absl::Status GetNext(IteratorContext* ctx, std::vector<Tensor>* out,
                         bool* end) override {
      *end = inputs.empty();
      std::vector<Tensor> all;
      for (auto& in : inputs) {
        std::vector<Tensor> part;
        DFX_RETURN_IF_ERROR(in->GetNext(ctx, &part, end));
        if (*end) {
          inputs.clear();
          return absl::OkStatus();
        }
        all.insert(all.end(), part.begin(), part.end());
      }
      *out = std::move(all);
      return absl::OkStatus();
    }
    absl::Status Save(const std::string& prefix,
                      IteratorState* state) override {
      state->WriteInt(prefix, "exhausted", inputs.empty());
      for (size_t i = 0; i < inputs.size(); ++i) {
        DFX_RETURN_IF_ERROR(
            SaveIterator(*d->inputs_[i], *inputs[i],
                         absl::StrCat(prefix, "/input[", i, "]"), state));
      }
      return absl::OkStatus();
    }
    absl::Status Restore(IteratorContext* ctx, const std::string& prefix,
                         const IteratorState& state) override {
      DFX_ASSIGN_OR_RETURN(int64_t exhausted,
                           state.ReadInt(prefix, "exhausted"));
      if (exhausted != 0) {
        inputs.clear();
        return absl::OkStatus();
      }
      for (size_t i = 0; i < inputs.size(); ++i) {
        DFX_RETURN_IF_ERROR(
            RestoreIterator(*d->inputs_[i], *inputs[i], ctx,
                            absl::StrCat(prefix, "/input[", i, "]"), state));
      }
      return absl::OkStatus();
    }
    const std::shared_ptr<const ZipDataset> d;
    std::vector<std::unique_ptr<IteratorBase>> inputs;
  };

  const std::vector<DatasetPtr> inputs_;
};

class ZipDatasetOp final : public DatasetOpKernel {
 public:
  using DatasetOpKernel::DatasetOpKernel;

 private:
  absl::StatusOr<DatasetPtr> MakeDataset(OpKernelContext* ctx) override {
    std::vector<DatasetPtr> inputs;
    DataTypeVector dtypes;
    for (int i = 0; i < ctx->num_inputs(); ++i) {
      DFX_ASSIGN_OR_RETURN(DatasetPtr d, DatasetFromInput(ctx, i));
      dtypes.insert(dtypes.end(), d->output_dtypes().begin(),
                    d->output_dtypes().end());
      inputs.push_back(std::move(d));
    }
    return std::make_shared<ZipDataset>(std::move(inputs), std::move(dtypes));
  }
};

class ConcatenateDataset final : public DatasetBase {
 public:
  ConcatenateDataset(DatasetPtr first, DatasetPtr second)
      : DatasetBase(first->output_dtypes()),
        first_(std::move(first)),
        second_(std::move(second)) {
    set_options(first_->options());
  }

  int64_t Cardinality() const override {
    const int64_t a = first_->Cardinality(), b = second_->Cardinality();
    if (a == kInfiniteCardinality || b == kInfiniteCardinality) {
      return kInfiniteCardinality;
    }
    if (a < 0 || b < 0) return kUnknownCardinality;
    return a + b;
  }
  std::string DebugString() const override { return "ConcatenateDataset"; }
  absl::Status Get(IteratorContext* ctx, int64_t index,
                   std::vector<Tensor>* out) const override {
    DFX_RETURN_IF_ERROR(CheckRandomAccessCompatible(index));
    const int64_t a = first_->Cardinality();
    return index < a ? first_->Get(ctx, index, out)
                     : second_->Get(ctx, index - a, out);
  }
  absl::Status RandomAccessCompatible() const override {
    DFX_RETURN_IF_ERROR(first_->RandomAccessCompatible());
    return second_->RandomAccessCompatible();
  }
  absl::StatusOr<std::unique_ptr<IteratorBase>> MakeIterator(
      IteratorContext* ctx) const override {
    DFX_ASSIGN_OR_RETURN(auto in, first_->MakeIterator(ctx));
    return std::unique_ptr<IteratorBase>(
        new Iterator(Self<ConcatenateDataset>(), std::move(in)));
  }

 private:
  class Iterator final : public IteratorBase {
   public:
    Iterator(std::shared_ptr<const ConcatenateDataset> d,
             std::unique_ptr<IteratorBase> in)
        : d_(std::move(d)), in_(std::move(in)) {}
    absl::Status GetNext(IteratorContext* ctx, std::vector<Tensor>* out,
                         bool* end) override {
      while (in_ != nullptr) {
        DFX_RETURN_IF_ERROR(in_->GetNext(ctx, out, end));
        if (!*end) return absl::OkStatus();
        in_.reset();
        if (!on_second_) {
          on_second_ = true;
          DFX_ASSIGN_OR_RETURN(in_, d_->second_->MakeIterator(ctx));
        }
      }
      *end = true;
      return absl::OkStatus();
    }

    absl::Status Save(const std::string& prefix,
                      IteratorState* state) override {
      state->WriteInt(prefix, "on_second", on_second_);
      return SaveInput(on_second_ ? *d_->second_ : *d_->first_, in_.get(),
                       prefix + "/input", state);
    }
    absl::Status Restore(IteratorContext* ctx, const std::string& prefix,
                         const IteratorState& state) override {
      DFX_ASSIGN_OR_RETURN(int64_t second, state.ReadInt(prefix, "on_second"));
      on_second_ = second != 0;
      return RestoreInput(ctx, on_second_ ? *d_->second_ : *d_->first_, &in_,
                          prefix + "/input", state);
    }

   private:
    const std::shared_ptr<const ConcatenateDataset> d_;
    std::unique_ptr<IteratorBase> in_;
    bool on_second_ = false;
  };

  const DatasetPtr first_, second_;
};

class ConcatenateDatasetOp final : public UnaryDatasetOp {
 public:
  using UnaryDatasetOp::UnaryDatasetOp;

 private:
  absl::StatusOr<DatasetPtr> MakeFrom(OpKernelContext* ctx,
                                      DatasetPtr input) override {
    DFX_ASSIGN_OR_RETURN(DatasetPtr other, DatasetFromInput(ctx, 1));
    if (other->output_dtypes() != input->output_dtypes()) {
      return absl::InvalidArgumentError(
          "input dataset and dataset to be concatenated have different "
          "types");
    }
    return std::make_shared<ConcatenateDataset>(std::move(input),
                                                std::move(other));
  }
};

// ---------------------------------------------------------------------------
// Cache in memory: the first pass that reads the whole input keeps its
// elements; later iterators read those (TensorFlow's memory cache). A pass
// left unfinished keeps nothing.

class CacheDataset final : public UnaryDataset {
 public:
  using Elements = std::vector<std::vector<Tensor>>;
  explicit CacheDataset(DatasetPtr input)
      : UnaryDataset(input, input->output_dtypes()) {}

  int64_t Cardinality() const override { return input()->Cardinality(); }
  std::string DebugString() const override { return "CacheDataset"; }
  absl::Status Get(IteratorContext* ctx, int64_t index,
                   std::vector<Tensor>* out) const override {
    return input()->Get(ctx, index, out);
  }
  absl::Status RandomAccessCompatible() const override {
    return input()->RandomAccessCompatible();
  }
  absl::StatusOr<std::unique_ptr<IteratorBase>> MakeIterator(
      IteratorContext* ctx) const override {
    std::shared_ptr<const Elements> cached;
    {
      absl::MutexLock lock(&mu_);
      cached = cached_;
    }
    if (cached != nullptr) {
      return std::unique_ptr<IteratorBase>(
          new Reader(Self<CacheDataset>(), std::move(cached)));
    }
    DFX_ASSIGN_OR_RETURN(auto in, input()->MakeIterator(ctx));
    return std::unique_ptr<IteratorBase>(
        new Writer(Self<CacheDataset>(), std::move(in)));
  }

 private:
  class Reader final : public IteratorBase {
   public:
    Reader(std::shared_ptr<const CacheDataset> d,
           std::shared_ptr<const Elements> elements)
        : d_(std::move(d)), elements_(std::move(elements)) {}
    absl::Status GetNext(IteratorContext*, std::vector<Tensor>* out,
                         bool* end) override {
      *end = next_ >= elements_->size();
      if (!*end) *out = (*elements_)[next_++];
      return absl::OkStatus();
    }
    // Either kind of cache iterator restores the other's state: the
    // position is the number of elements read.
    absl::Status Save(const std::string& prefix,
                      IteratorState* state) override {
      state->WriteInt(prefix, "writing", 0);
      state->WriteInt(prefix, "count", static_cast<int64_t>(next_));
      return absl::OkStatus();
    }
    absl::Status Restore(IteratorContext*, const std::string& prefix,
                         const IteratorState& state) override {
      DFX_ASSIGN_OR_RETURN(int64_t count, state.ReadInt(prefix, "count"));
      if (count < 0 || count > static_cast<int64_t>(elements_->size())) {
        return absl::InvalidArgumentError(
            "the cache iterator's saved position is past the cached elements");
      }
      next_ = static_cast<size_t>(count);
      return absl::OkStatus();
    }

   private:
    const std::shared_ptr<const CacheDataset> d_;
    const std::shared_ptr<const Elements> elements_;
    size_t next_ = 0;
  };

  class Writer final : public IteratorBase {
   public:
    Writer(std::shared_ptr<const CacheDataset> d,
           std::unique_ptr<IteratorBase> in)
        : d_(std::move(d)), in_(std::move(in)) {}
    absl::Status GetNext(IteratorContext* ctx, std::vector<Tensor>* out,
                         bool* end) override {
      if (in_ == nullptr) {
        *end = true;
        return absl::OkStatus();
      }
      DFX_RETURN_IF_ERROR(in_->GetNext(ctx, out, end));
      if (*end) {
        in_.reset();
        absl::MutexLock lock(&d_->mu_);
        if (d_->cached_ == nullptr) {
          d_->cached_ = std::make_shared<const Elements>(std::move(kept_));
        }
        return absl::OkStatus();
      }
      held_ += ElementBytes(*out);
      DFX_RETURN_IF_ERROR(CheckHeldElements(held_, d_->DebugString()));
      kept_.push_back(*out);
      return absl::OkStatus();
    }
    absl::Status Save(const std::string& prefix,
                      IteratorState* state) override {
      state->WriteInt(prefix, "writing", 1);
      state->WriteInt(prefix, "count", static_cast<int64_t>(kept_.size()));
      for (size_t i = 0; i < kept_.size(); ++i) {
        state->WriteElement(prefix, absl::StrCat("kept[", i, "]"), kept_[i]);
      }
      return SaveInput(*d_->input(), in_.get(), prefix + "/input", state);
    }
    // A writer's state: its elements and input. A reader's (the cache was
    // filled where it was saved, not here): its elements read again.
    absl::Status Restore(IteratorContext* ctx, const std::string& prefix,
                         const IteratorState& state) override {
      DFX_ASSIGN_OR_RETURN(int64_t writing, state.ReadInt(prefix, "writing"));
      DFX_ASSIGN_OR_RETURN(int64_t count, state.ReadInt(prefix, "count"));
      kept_.clear();
      held_ = 0;
      if (writing == 0) {
        std::vector<Tensor> element;
        for (int64_t i = 0; i < count; ++i) {
          bool end = false;
          DFX_RETURN_IF_ERROR(GetNext(ctx, &element, &end));
          if (end) break;
        }
        return absl::OkStatus();
      }
      for (int64_t i = 0; i < count; ++i) {
        DFX_ASSIGN_OR_RETURN(
            std::vector<Tensor> e,
            state.ReadElement(prefix, absl::StrCat("kept[", i, "]")));
        held_ += ElementBytes(e);
        kept_.push_back(std::move(e));
      }
      return RestoreInput(ctx, *d_->input(), &in_, prefix + "/input", state);
    }

   private:
    const std::shared_ptr<const CacheDataset> d_;
    std::unique_ptr<IteratorBase> in_;
    Elements kept_;
    int64_t held_ = 0;
  };

  mutable absl::Mutex mu_;
  // Set once, by the first pass that reached the end.
  mutable std::shared_ptr<const Elements> cached_ ABSL_GUARDED_BY(mu_);
};

// CacheDataset and CacheDatasetV2 (whose cache resource, a
// DummyMemoryCache or AnonymousMemoryCache handle, dfx does not need: the
// cache lives in the dataset).
class CacheDatasetOp final : public UnaryDatasetOp {
 public:
  using UnaryDatasetOp::UnaryDatasetOp;

 private:
  absl::StatusOr<DatasetPtr> MakeFrom(OpKernelContext* ctx,
                                      DatasetPtr input) override {
    const Tensor& filename = ctx->input(1);
    if (filename.dtype() != DT_STRING || filename.NumElements() != 1) {
      return absl::InvalidArgumentError("filename must be a scalar string");
    }
    if (!filename.data<std::string>()[0].empty()) {
      return absl::UnimplementedError(absl::StrCat(
          "cache('", filename.data<std::string>()[0],
          "'): dfx caches in memory only; call cache() without a filename"));
    }
    return std::make_shared<CacheDataset>(std::move(input));
  }
};

// DummyMemoryCache and AnonymousMemoryCache: a handle to nothing (and a
// deleter); the cache is the dataset's own.
class MemoryCacheHandleOp final : public OpKernel {
 public:
  explicit MemoryCacheHandleOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    set_expensive(false);
  }
  void Compute(OpKernelContext* ctx) override {
    Tensor out(DT_RESOURCE, TensorShape({}));
    ResourceHandle& h = out.scalar<ResourceHandle>();
    h.set_device(ctx->device()->name());
    // DeleteMemoryCache tells the two apart (dataset4_kernels.cc).
    h.set_name(num_outputs() > 1 ? "_AnonymousMemoryCache" : "_MemoryCache");
    ctx->set_output(0, std::move(out));
    if (num_outputs() > 1) {
      ctx->set_output(1, Tensor(DT_VARIANT, TensorShape({})));
    }
  }
};

class DatasetCardinalityOp final : public OpKernel {
 public:
  explicit DatasetCardinalityOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    set_expensive(false);
  }
  void Compute(OpKernelContext* ctx) override {
    absl::StatusOr<DatasetPtr> d = DatasetFromInput(ctx, 0);
    DFX_OP_REQUIRES_OK(ctx, d.status());
    ctx->set_output(0, Tensor::Scalar<int64_t>((*d)->Cardinality()));
  }
};

}  // namespace

void RegisterDatasetTransformKernels(KernelRegistry* registry) {
  for (const char* op :
       {"ModelDataset", "OptimizeDatasetV2", "MaxIntraOpParallelismDataset",
        "ExperimentalMaxIntraOpParallelismDataset", "PrivateThreadPoolDataset",
        "ExperimentalPrivateThreadPoolDataset", "FinalizeDataset"}) {
    // (The statistics datasets are in stats_kernels.cc.)
    RegisterKernel<PassThroughOp>(registry, KernelDefBuilder(op));
  }
  RegisterKernel<RewriteDatasetOp>(registry, KernelDefBuilder("RewriteDataset"));
  RegisterKernel<OptionsDatasetOp>(registry, KernelDefBuilder("OptionsDataset"));
  RegisterKernel<GetOptionsOp>(registry, KernelDefBuilder("GetOptions"));
  // (TensorFlow 2.21 has no CPU kernel for ExperimentalMapDataset.)
  for (const char* op :
       {"MapDataset", "ParallelMapDataset", "ParallelMapDatasetV2"}) {
    RegisterKernel<MapDatasetOp>(registry, KernelDefBuilder(op));
  }
  RegisterKernel<FilterDatasetOp>(registry, KernelDefBuilder("FilterDataset"));
  RegisterKernel<FilterDatasetOp>(registry,
                                  KernelDefBuilder("ParallelFilterDataset"));
  // BatchDataset (v1): no drop_remainder input, so never dropped.
  for (const char* op : {"BatchDataset", "BatchDatasetV2"}) {
    RegisterKernel<BatchDatasetOp>(registry, KernelDefBuilder(op));
  }
  for (const char* op :
       {"MapAndBatchDataset", "ExperimentalMapAndBatchDataset"}) {
    RegisterKernel<MapAndBatchDatasetOp>(registry, KernelDefBuilder(op));
  }
  RegisterKernel<BatchDatasetOp>(registry,
                                 KernelDefBuilder("ParallelBatchDataset"));
  RegisterKernel<RepeatDatasetOp>(registry, KernelDefBuilder("RepeatDataset"));
  RegisterKernel<TakeSkipDatasetOp>(registry, KernelDefBuilder("TakeDataset"));
  RegisterKernel<TakeSkipDatasetOp>(registry, KernelDefBuilder("SkipDataset"));
  RegisterKernel<ShardDatasetOp>(registry, KernelDefBuilder("ShardDataset"));
  RegisterKernel<ZipDatasetOp>(registry, KernelDefBuilder("ZipDataset"));
  RegisterKernel<ConcatenateDatasetOp>(registry,
                                       KernelDefBuilder("ConcatenateDataset"));
  RegisterKernel<CacheDatasetOp>(registry, KernelDefBuilder("CacheDataset"));
  RegisterKernel<CacheDatasetOp>(registry, KernelDefBuilder("CacheDatasetV2"));
  RegisterKernel<MemoryCacheHandleOp>(registry,
                                      KernelDefBuilder("DummyMemoryCache"));
  RegisterKernel<MemoryCacheHandleOp>(
      registry, KernelDefBuilder("AnonymousMemoryCache"));
  for (const char* op :
       {"DatasetCardinality", "ExperimentalDatasetCardinality"}) {
    RegisterKernel<DatasetCardinalityOp>(registry, KernelDefBuilder(op));
  }
}

}  // namespace dfx::data
