// Datasets of datasets and reshaping batches: flat_map, interleave (and its
// parallel form, run in its deterministic order), unbatch, padded_batch.
#include <algorithm>
#include <deque>
#include <thread>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "kernels/data/dataset.h"
#include "kernels/data/element_util.h"
#include "kernels/data/state_util.h"
#include "kernels/data_flow/data_flow_util.h"

namespace dfx::data {
namespace {

// `f` applied to one input element: the dataset it returns.
absl::StatusOr<DatasetPtr> DatasetOfElement(IteratorContext* ctx,
                                            const DatasetFunction& f,
                                            std::vector<Tensor> element,
                                            const std::vector<Tensor>& captured,
                                            const DataTypeVector& dtypes) {
  element.insert(element.end(), captured.begin(), captured.end());
  DFX_ASSIGN_OR_RETURN(std::vector<Tensor> out, f.Run(ctx, std::move(element)));
  if (out.size() != 1) {
    return absl::InvalidArgumentError(absl::StrCat(
        "function '", f.name(), "' must return one dataset, returned ",
        out.size(), " values"));
  }
  DFX_ASSIGN_OR_RETURN(
      DatasetPtr d,
      DatasetFromTensor(out[0], absl::StrCat("what '", f.name(),
                                             "' returned")));
  if (d->output_dtypes() != dtypes) {
    return absl::InvalidArgumentError(absl::StrCat(
        "the dataset '", f.name(),
        "' returned does not have the op's output_types"));
  }
  return d;
}

// Interleave: `cycle_length` input elements open at once, `block_length`
// elements from each in turn (TensorFlow's deterministic order); flat_map
// is the case cycle_length = 1, block_length = 1.
class InterleaveDataset final : public DatasetBase {
 public:
  InterleaveDataset(DatasetPtr input, DataTypeVector dtypes,
                    std::shared_ptr<const DatasetFunction> f,
                    std::vector<Tensor> captured, int64_t cycle_length,
                    int64_t block_length, bool flat_map,
                    int64_t legacy_prefetch = -1)
      : DatasetBase(std::move(dtypes)),
        input_(std::move(input)),
        f_(std::move(f)),
        captured_(std::move(captured)),
        cycle_length_(cycle_length),
        block_length_(block_length),
        flat_map_(flat_map),
        legacy_prefetch_(legacy_prefetch) {
    set_options(input_->options());
  }

  std::string DebugString() const override {
    return flat_map_ ? absl::StrCat("FlatMapDataset(", f_->name(), ")")
                     : absl::StrCat("InterleaveDataset(", f_->name(), ", ",
                                    cycle_length_, ", ", block_length_, ")");
  }
  absl::StatusOr<std::unique_ptr<IteratorBase>> MakeIterator(
      IteratorContext* ctx) const override {
    DFX_ASSIGN_OR_RETURN(auto in, input_->MakeIterator(ctx));
    if (legacy_prefetch_ >= 0) {
      return std::unique_ptr<IteratorBase>(
          new LegacyIterator(Self<InterleaveDataset>(), std::move(in)));
    }
    return std::unique_ptr<IteratorBase>(
        new Iterator(Self<InterleaveDataset>(), std::move(in)));
  }

 private:
  // The legacy parallel interleave's deterministic order (TF 1.x's
  // ParallelInterleaveDataset, LegacyParallelInterleaveDatasetV2): the
  // first cycle_length + prefetch_input_elements input elements open at
  // once, those past the cycle staged. An exhausted element's slot takes
  // the oldest staged one and the turn passes to the next slot; with none
  // staged the slot empties and the turn goes on without ending the block
  // (as TensorFlow's block count, not reset there). The cycle is as long
  // as the number of elements first opened.
  class LegacyIterator final : public IteratorBase {
   public:
    LegacyIterator(std::shared_ptr<const InterleaveDataset> d,
                   std::unique_ptr<IteratorBase> in)
        : d_(std::move(d)), in_(std::move(in)) {}

    absl::Status GetNext(IteratorContext* ctx, std::vector<Tensor>* out,
                         bool* end) override {
      if (!started_) {
        started_ = true;
        const int64_t workers = d_->cycle_length_ + d_->legacy_prefetch_;
        for (int64_t i = 0; i < workers && in_ != nullptr; ++i) {
          DFX_ASSIGN_OR_RETURN(int slot, OpenNext(ctx));
          if (slot < 0) break;
          if (i < d_->cycle_length_) {
            cycle_.push_back(slot);
          } else {
            staged_.push_back(slot);
          }
        }
      }
      bool restart = true;
      while (restart) {
        restart = false;
        const size_t n = cycle_.size();
        for (size_t i = 0; i < n; ++i) {
          const size_t index = (next_ + i) % n;
          const int w = cycle_[index];
          if (w < 0) continue;
          bool element_end = false;
          DFX_RETURN_IF_ERROR(
              workers_[w]->GetNext(ctx, out, &element_end));
          if (!element_end) {
            next_ = index;
            if (++block_count_ == d_->block_length_) {
              next_ = (index + 1) % n;
              block_count_ = 0;
            }
            *end = false;
            return absl::OkStatus();
          }
          workers_[w].reset();
          cycle_[index] = -1;
          if (in_ != nullptr) {
            DFX_ASSIGN_OR_RETURN(int slot, OpenNext(ctx));
            if (slot >= 0) staged_.push_back(slot);
          }
          if (!staged_.empty()) {
            cycle_[index] = staged_.front();
            staged_.pop_front();
            next_ = (index + 1) % n;
            block_count_ = 0;
            restart = true;
            break;
          }
        }
      }
      *end = true;
      return absl::OkStatus();
    }

    // The input's position, the cycle's and the staged worker slots, and
    // per open worker the input element it was opened from (f runs again
    // on restore) and its iterator's position.
    absl::Status Save(const std::string& prefix,
                      IteratorState* state) override {
      DFX_RETURN_IF_ERROR(
          SaveInput(*d_->input_, in_.get(), prefix + "/input", state));
      state->WriteInt(prefix, "started", started_ ? 1 : 0);
      state->WriteInt(prefix, "next", static_cast<int64_t>(next_));
      state->WriteInt(prefix, "block_count", block_count_);
      std::vector<int64_t> cycle(cycle_.begin(), cycle_.end());
      std::vector<int64_t> staged(staged_.begin(), staged_.end());
      state->WriteTensor(prefix, "cycle", Tensor::FromVector<int64_t>(cycle));
      state->WriteTensor(prefix, "staged", Tensor::FromVector<int64_t>(staged));
      state->WriteInt(prefix, "workers", static_cast<int64_t>(workers_.size()));
      for (size_t w = 0; w < workers_.size(); ++w) {
        if (workers_[w] == nullptr) continue;
        const std::string at = absl::StrCat(prefix, "/worker[", w, "]");
        state->WriteElement(at, "args", worker_args_[w]);
        DFX_RETURN_IF_ERROR(
            SaveIterator(*worker_datasets_[w], *workers_[w], at, state));
      }
      return absl::OkStatus();
    }

    absl::Status Restore(IteratorContext* ctx, const std::string& prefix,
                         const IteratorState& state) override {
      DFX_RETURN_IF_ERROR(
          RestoreInput(ctx, *d_->input_, &in_, prefix + "/input", state));
      DFX_ASSIGN_OR_RETURN(int64_t started,
                           ReadIntInRange(state, prefix, "started", 0, 1));
      DFX_ASSIGN_OR_RETURN(
          int64_t block_count,
          ReadIntInRange(state, prefix, "block_count", 0, d_->block_length_));
      DFX_ASSIGN_OR_RETURN(
          int64_t workers,
          ReadIntInRange(state, prefix, "workers", 0,
                         static_cast<int64_t>(state.entries().size())));
      DFX_ASSIGN_OR_RETURN(Tensor cycle, state.ReadTensor(prefix, "cycle"));
      DFX_ASSIGN_OR_RETURN(Tensor staged, state.ReadTensor(prefix, "staged"));
      if (cycle.dtype() != DT_INT64 || cycle.dims() != 1 ||
          cycle.NumElements() > d_->cycle_length_ ||
          staged.dtype() != DT_INT64 || staged.dims() != 1) {
        return absl::InvalidArgumentError(absl::StrCat(
            "the iterator state's entries ", prefix, "/cycle and ", prefix,
            "/staged are not int64 vectors of worker slots"));
      }
      DFX_ASSIGN_OR_RETURN(
          int64_t next,
          ReadIntInRange(state, prefix, "next", 0,
                         std::max<int64_t>(cycle.NumElements() - 1, 0)));
      started_ = started != 0;
      block_count_ = block_count;
      next_ = static_cast<size_t>(next);
      workers_.clear();
      worker_args_.clear();
      worker_datasets_.clear();
      workers_.resize(workers);
      worker_args_.resize(workers);
      worker_datasets_.resize(workers);
      for (int64_t w = 0; w < workers; ++w) {
        const std::string at = absl::StrCat(prefix, "/worker[", w, "]");
        if (!state.Contains(at, "args/size")) continue;
        DFX_ASSIGN_OR_RETURN(std::vector<Tensor> args,
                             state.ReadElement(at, "args"));
        DFX_RETURN_IF_ERROR(OpenWorker(ctx, w, std::move(args)));
        DFX_RETURN_IF_ERROR(RestoreIterator(*worker_datasets_[w], *workers_[w],
                                            ctx, at, state));
      }
      // Every slot the cycle or the stage names is an open worker.
      cycle_.clear();
      staged_.clear();
      for (int64_t i = 0; i < cycle.NumElements() + staged.NumElements(); ++i) {
        const bool in_cycle = i < cycle.NumElements();
        const int64_t w = in_cycle
                              ? cycle.data<int64_t>()[i]
                              : staged.data<int64_t>()[i - cycle.NumElements()];
        if ((w < 0 && !in_cycle) || w >= workers ||
            (w >= 0 && workers_[w] == nullptr)) {
          cycle_.clear();
          staged_.clear();
          workers_.clear();
          return absl::InvalidArgumentError(
              absl::StrCat("the iterator state's entry ", prefix,
                           in_cycle ? "/cycle" : "/staged", " names worker ", w,
                           ", which is not open"));
        }
        if (in_cycle) {
          cycle_.push_back(static_cast<int>(w));
        } else {
          staged_.push_back(static_cast<int>(w));
        }
      }
      return absl::OkStatus();
    }

   private:
    // Opens the input's next element in a free worker slot; -1 at the
    // input's end (the input is then dropped).
    absl::StatusOr<int> OpenNext(IteratorContext* ctx) {
      std::vector<Tensor> element;
      bool input_end = false;
      DFX_RETURN_IF_ERROR(in_->GetNext(ctx, &element, &input_end));
      if (input_end) {
        in_.reset();
        return -1;
      }
      for (size_t w = 0; w < workers_.size(); ++w) {
        if (workers_[w] == nullptr && !InUse(static_cast<int>(w))) {
          DFX_RETURN_IF_ERROR(OpenWorker(ctx, w, std::move(element)));
          return static_cast<int>(w);
        }
      }
      workers_.emplace_back();
      worker_args_.emplace_back();
      worker_datasets_.emplace_back();
      DFX_RETURN_IF_ERROR(
          OpenWorker(ctx, workers_.size() - 1, std::move(element)));
      return static_cast<int>(workers_.size() - 1);
    }

    // Opens worker slot `w` on the dataset f makes of `element`.
    absl::Status OpenWorker(IteratorContext* ctx, size_t w,
                            std::vector<Tensor> element) {
      worker_args_[w] = element;
      DFX_ASSIGN_OR_RETURN(
          worker_datasets_[w],
          DatasetOfElement(ctx, *d_->f_, std::move(element), d_->captured_,
                           d_->output_dtypes()));
      DFX_ASSIGN_OR_RETURN(workers_[w], worker_datasets_[w]->MakeIterator(ctx));
      return absl::OkStatus();
    }
    bool InUse(int w) const {
      for (int c : cycle_) {
        if (c == w) return true;
      }
      for (int s : staged_) {
        if (s == w) return true;
      }
      return false;
    }

    const std::shared_ptr<const InterleaveDataset> d_;
    std::unique_ptr<IteratorBase> in_;  // Null after the input's end.
    std::vector<std::unique_ptr<IteratorBase>> workers_;
    // Per worker: the input element it was opened from, and its dataset.
    std::vector<std::vector<Tensor>> worker_args_;
    std::vector<DatasetPtr> worker_datasets_;
    std::vector<int> cycle_;   // Worker per slot; -1: empty.
    std::deque<int> staged_;   // Opened, waiting for a slot.
    size_t next_ = 0;
    int64_t block_count_ = 0;
    bool started_ = false;
  };

  class Iterator final : public IteratorBase {
   public:
    Iterator(std::shared_ptr<const InterleaveDataset> d,
             std::unique_ptr<IteratorBase> in)
        : d_(std::move(d)),
          in_(std::move(in)),
          open_(d_->cycle_length_),
          opened_from_(d_->cycle_length_),
          open_datasets_(d_->cycle_length_) {}

    absl::Status GetNext(IteratorContext* ctx, std::vector<Tensor>* out,
                         bool* end) override {
      while (!input_end_ || num_open_ > 0) {
        std::unique_ptr<IteratorBase>& current = open_[cycle_index_];
        if (current != nullptr) {
          bool element_end = false;
          DFX_RETURN_IF_ERROR(current->GetNext(ctx, out, &element_end));
          if (!element_end) {
            if (++block_index_ == d_->block_length_) Advance();
            *end = false;
            return absl::OkStatus();
          }
          current.reset();
          --num_open_;
          Advance();
        } else if (!input_end_) {
          std::vector<Tensor> element;
          DFX_RETURN_IF_ERROR(in_->GetNext(ctx, &element, &input_end_));
          if (input_end_) continue;
          DFX_RETURN_IF_ERROR(Open(ctx, cycle_index_, std::move(element)));
        } else {
          Advance();
        }
      }
      *end = true;
      return absl::OkStatus();
    }

    // As TensorFlow: the input's position, and per open slot the input
    // element it was opened from (f runs again on restore) and its
    // iterator's position.
    absl::Status Save(const std::string& prefix,
                      IteratorState* state) override {
      state->WriteInt(prefix, "cycle_index", cycle_index_);
      state->WriteInt(prefix, "block_index", block_index_);
      state->WriteInt(prefix, "input_end", input_end_);
      DFX_RETURN_IF_ERROR(
          SaveIterator(*d_->input_, *in_, prefix + "/input", state));
      for (size_t i = 0; i < open_.size(); ++i) {
        if (open_[i] == nullptr) continue;
        const std::string slot = absl::StrCat(prefix, "/slot[", i, "]");
        state->WriteElement(slot, "args", opened_from_[i]);
        DFX_RETURN_IF_ERROR(
            SaveIterator(*open_datasets_[i], *open_[i], slot, state));
      }
      return absl::OkStatus();
    }

    absl::Status Restore(IteratorContext* ctx, const std::string& prefix,
                         const IteratorState& state) override {
      DFX_ASSIGN_OR_RETURN(cycle_index_, state.ReadInt(prefix, "cycle_index"));
      DFX_ASSIGN_OR_RETURN(block_index_, state.ReadInt(prefix, "block_index"));
      DFX_ASSIGN_OR_RETURN(int64_t input_end,
                           state.ReadInt(prefix, "input_end"));
      if (cycle_index_ < 0 || cycle_index_ >= d_->cycle_length_ ||
          block_index_ < 0) {
        return absl::InvalidArgumentError(
            "the interleave iterator's saved state is malformed");
      }
      input_end_ = input_end != 0;
      DFX_RETURN_IF_ERROR(
          RestoreIterator(*d_->input_, *in_, ctx, prefix + "/input", state));
      num_open_ = 0;
      for (size_t i = 0; i < open_.size(); ++i) {
        const std::string slot = absl::StrCat(prefix, "/slot[", i, "]");
        open_[i].reset();
        if (!state.Contains(slot, "args/size")) continue;
        DFX_ASSIGN_OR_RETURN(std::vector<Tensor> args,
                             state.ReadElement(slot, "args"));
        DFX_RETURN_IF_ERROR(Open(ctx, i, std::move(args)));
        DFX_RETURN_IF_ERROR(
            RestoreIterator(*open_datasets_[i], *open_[i], ctx, slot, state));
      }
      return absl::OkStatus();
    }

   private:
    void Advance() {
      block_index_ = 0;
      cycle_index_ = (cycle_index_ + 1) % d_->cycle_length_;
    }

    // Opens slot `i` on the dataset `f` makes of `element`.
    absl::Status Open(IteratorContext* ctx, size_t i,
                      std::vector<Tensor> element) {
      opened_from_[i] = element;
      DFX_ASSIGN_OR_RETURN(
          open_datasets_[i],
          DatasetOfElement(ctx, *d_->f_, std::move(element), d_->captured_,
                           d_->output_dtypes()));
      DFX_ASSIGN_OR_RETURN(open_[i], open_datasets_[i]->MakeIterator(ctx));
      ++num_open_;
      return absl::OkStatus();
    }

    const std::shared_ptr<const InterleaveDataset> d_;
    const std::unique_ptr<IteratorBase> in_;
    std::vector<std::unique_ptr<IteratorBase>> open_;
    std::vector<std::vector<Tensor>> opened_from_;  // per slot
    std::vector<DatasetPtr> open_datasets_;         // per slot
    int64_t cycle_index_ = 0;
    int64_t block_index_ = 0;
    int64_t num_open_ = 0;
    bool input_end_ = false;
  };

  const DatasetPtr input_;
  const std::shared_ptr<const DatasetFunction> f_;
  const std::vector<Tensor> captured_;
  const int64_t cycle_length_, block_length_;
  const bool flat_map_;
  const int64_t legacy_prefetch_;  // -1: not the legacy order.
};

// FlatMapDataset, InterleaveDataset, the parallel interleaves (their
// elements in the deterministic order; calls run one at a time).
class InterleaveDatasetOp final : public DatasetOpKernel {
 public:
  explicit InterleaveDatasetOp(OpKernelConstruction* ctx)
      : DatasetOpKernel(ctx),
        flat_map_(ctx->def().op() == "FlatMapDataset"),
        fn_(ReadDatasetOpFunction(ctx, "f")) {
    // Where the inputs after block_length are, by op: the parallel
    // interleaves' num_parallel_calls and the legacy ones' buffer sizes.
    const std::string& op = ctx->def().op();
    if (op == "ParallelInterleaveDatasetV2" ||
        op == "ParallelInterleaveDatasetV3") {
      parallel_calls_at_ = 2;
    } else if (op == "ParallelInterleaveDatasetV4") {
      parallel_calls_at_ = 4;
    } else if (op == "LegacyParallelInterleaveDatasetV2") {
      buffer_output_at_ = 2;
    } else if (op == "ParallelInterleaveDataset" ||
               op == "ExperimentalParallelInterleaveDataset") {
      buffer_output_at_ = 3;  // After the `sloppy` input.
    }
  }

 private:
  absl::StatusOr<DatasetPtr> MakeDataset(OpKernelContext* ctx) override {
    DFX_ASSIGN_OR_RETURN(DatasetPtr input, DatasetFromInput(ctx, 0));
    int64_t cycle_length = 1, block_length = 1, legacy_prefetch = -1;
    if (!flat_map_) {
      const int at = 1 + fn_.num_captured;
      DFX_ASSIGN_OR_RETURN(cycle_length,
                           ScalarInt64Input(ctx, at, "cycle_length"));
      DFX_ASSIGN_OR_RETURN(block_length,
                           ScalarInt64Input(ctx, at + 1, "block_length"));
      DFX_RETURN_IF_ERROR(
          CheckParallelInputs(ctx, at, cycle_length, &legacy_prefetch));
      // AUTOTUNE: as many as the machine has cores, as TensorFlow does.
      if (cycle_length == -1) {
        cycle_length = std::max(1u, std::thread::hardware_concurrency());
      }
      if (cycle_length <= 0) {
        return absl::InvalidArgumentError(
            "cycle_length must be greater than zero.");
      }
      if (block_length <= 0) {
        return absl::InvalidArgumentError(
            "block_length must be greater than zero.");
      }
    }
    return std::make_shared<InterleaveDataset>(
        std::move(input), output_types(), fn_.f,
        CapturedInputs(ctx, fn_.num_captured), cycle_length, block_length,
        flat_map_, legacy_prefetch);
  }

  // TensorFlow's checks of the inputs past block_length (inputs from `at`,
  // cycle_length's index, on): num_parallel_calls no more than a fixed
  // cycle_length; the legacy forms' buffer_output_elements above zero and
  // prefetch_input_elements not below.
  // Sets `*legacy_prefetch` to prefetch_input_elements for the legacy forms.
  absl::Status CheckParallelInputs(OpKernelContext* ctx, int at,
                                   int64_t cycle_length,
                                   int64_t* legacy_prefetch) const {
    constexpr int64_t kAutotune = -1;
    if (parallel_calls_at_ > 0) {
      DFX_ASSIGN_OR_RETURN(
          int64_t calls,
          ScalarInt64Input(ctx, at + parallel_calls_at_, "num_parallel_calls"));
      if (calls <= 0 && calls != kAutotune) {
        return absl::InvalidArgumentError(
            "num_parallel_calls must be greater than zero.");
      }
      if (cycle_length != kAutotune && calls != kAutotune &&
          calls > cycle_length) {
        return absl::InvalidArgumentError(absl::StrCat(
            "If `cycle_length` is set to a fixed value, `num_parallel_calls` "
            "must be either `tf.data.AUTOTUNE` or a value less than or equal "
            "to `cycle_length`. However, `num_parallel_calls` is ",
            calls, " and `cycle_length` is ", cycle_length));
      }
    }
    if (buffer_output_at_ > 0) {
      DFX_ASSIGN_OR_RETURN(int64_t buffer,
                           ScalarInt64Input(ctx, at + buffer_output_at_,
                                            "buffer_output_elements"));
      if (buffer <= 0) {
        return absl::InvalidArgumentError(
            "`buffer_output_elements` must be > 0");
      }
      DFX_ASSIGN_OR_RETURN(int64_t prefetch,
                           ScalarInt64Input(ctx, at + buffer_output_at_ + 1,
                                            "prefetch_input_elements"));
      if (prefetch < 0) {
        return absl::InvalidArgumentError(
            "`prefetch_input_elements` must be >= 0");
      }
      *legacy_prefetch = prefetch;
    }
    return absl::OkStatus();
  }

  const bool flat_map_;
  const DatasetOpFunction fn_;
  // Offsets from cycle_length's input; 0: the op has no such input.
  int parallel_calls_at_ = 0;
  int buffer_output_at_ = 0;
};

// ---------------------------------------------------------------------------
// Unbatch: the rows of each element.

// The leading dimension every component of `input`'s elements has by its
// node's output_shapes, as TensorFlow's unbatch reads it from the input's
// static shapes; -1 when it is not one known size above 0 (TensorFlow
// counts an unbatch of empty batches as of unknown cardinality).
int64_t StaticBatchSize(const DatasetBase& input) {
  std::shared_ptr<const DatasetBase::Node> node = input.node();
  if (node == nullptr) return -1;
  auto it = node->def->attr().find("output_shapes");
  if (it == node->def->attr().end() || it->second.list().shape_size() == 0) {
    return -1;
  }
  int64_t size = -1;
  for (const auto& shape : it->second.list().shape()) {
    if (shape.unknown_rank() || shape.dim_size() == 0 ||
        shape.dim(0).size() <= 0 ||
        (size >= 0 && shape.dim(0).size() != size)) {
      return -1;
    }
    size = shape.dim(0).size();
  }
  return size;
}

// With a static batch size (StaticBatchSize), its cardinality is the
// input's times that size and element i is row i % size of the input's
// element i / size, as TensorFlow's; otherwise the cardinality is unknown.
class UnbatchDataset final : public DatasetBase {
 public:
  UnbatchDataset(DatasetPtr input, int64_t batch_size)
      : DatasetBase(input->output_dtypes()),
        input_(std::move(input)),
        batch_size_(batch_size) {
    set_options(input_->options());
  }
  int64_t Cardinality() const override {
    const int64_t n = input_->Cardinality();
    if (batch_size_ < 0 || n == kUnknownCardinality) {
      return kUnknownCardinality;
    }
    if (n == kInfiniteCardinality) return n;
    return n * batch_size_;
  }
  std::string DebugString() const override { return "UnbatchDataset"; }
  absl::Status Get(IteratorContext* ctx, int64_t index,
                   std::vector<Tensor>* out) const override {
    DFX_RETURN_IF_ERROR(CheckRandomAccessCompatible(index));
    std::vector<Tensor> batch;
    DFX_RETURN_IF_ERROR(input_->Get(ctx, index / batch_size_, &batch));
    out->clear();
    for (const Tensor& t : batch) {
      if (t.dims() == 0 || t.dim_size(0) != batch_size_) {
        return absl::InvalidArgumentError(absl::StrCat(
            "Input element must have ", batch_size_,
            " rows in each component (its static batch size)"));
      }
      DFX_ASSIGN_OR_RETURN(Tensor row, RowOf(t, index % batch_size_));
      out->push_back(std::move(row));
    }
    return absl::OkStatus();
  }
  absl::StatusOr<std::unique_ptr<IteratorBase>> MakeIterator(
      IteratorContext* ctx) const override {
    DFX_ASSIGN_OR_RETURN(auto in, input_->MakeIterator(ctx));
    return std::unique_ptr<IteratorBase>(
        new Iterator(Self<UnbatchDataset>(), std::move(in)));
  }

 private:
  class Iterator final : public IteratorBase {
   public:
    Iterator(std::shared_ptr<const UnbatchDataset> d,
             std::unique_ptr<IteratorBase> in)
        : d_(std::move(d)), in_(std::move(in)) {}
    absl::Status GetNext(IteratorContext* ctx, std::vector<Tensor>* out,
                         bool* end) override {
      while (row_ >= rows_) {
        DFX_RETURN_IF_ERROR(in_->GetNext(ctx, &batch_, end));
        if (*end) return absl::OkStatus();
        rows_ = -1;
        for (size_t c = 0; c < batch_.size(); ++c) {
          const Tensor& t = batch_[c];
          if (t.dims() == 0) {
            return absl::InvalidArgumentError(
                "Input element must have a non-scalar value in each "
                "component.");
          }
          DFX_RETURN_IF_ERROR(CheckSliceable(t.dtype(), static_cast<int>(c)));
          if (rows_ >= 0 && t.dim_size(0) != rows_) {
            return absl::InvalidArgumentError(
                "Input element must have the same batch size in each "
                "component.");
          }
          rows_ = t.dim_size(0);
        }
        row_ = 0;
      }
      out->clear();
      for (const Tensor& t : batch_) {
        DFX_ASSIGN_OR_RETURN(Tensor r, RowOf(t, row_));
        out->push_back(std::move(r));
      }
      ++row_;
      *end = false;
      return absl::OkStatus();
    }

    // The input's position and the batch being cut, with its next row.
    absl::Status Save(const std::string& prefix,
                      IteratorState* state) override {
      DFX_RETURN_IF_ERROR(
          SaveIterator(*d_->input_, *in_, prefix + "/input", state));
      state->WriteInt(prefix, "row", row_);
      state->WriteInt(prefix, "rows", rows_);
      if (row_ < rows_) state->WriteElement(prefix, "batch", batch_);
      return absl::OkStatus();
    }
    absl::Status Restore(IteratorContext* ctx, const std::string& prefix,
                         const IteratorState& state) override {
      DFX_RETURN_IF_ERROR(
          RestoreIterator(*d_->input_, *in_, ctx, prefix + "/input", state));
      DFX_ASSIGN_OR_RETURN(row_, state.ReadInt(prefix, "row"));
      DFX_ASSIGN_OR_RETURN(rows_, state.ReadInt(prefix, "rows"));
      batch_.clear();
      if (row_ < 0 || rows_ < -1) {
        return absl::InvalidArgumentError(
            absl::StrCat("the iterator state's entries ", prefix, "/row and ",
                         prefix, "/rows are ", row_, " and ", rows_));
      }
      if (row_ < rows_) {
        DFX_ASSIGN_OR_RETURN(batch_, state.ReadElement(prefix, "batch"));
        for (const Tensor& t : batch_) {
          if (t.dims() == 0 || t.dim_size(0) != rows_) {
            return absl::InvalidArgumentError(absl::StrCat(
                "the iterator state's entry ", prefix, "/batch does not have ",
                rows_, " rows in each component"));
          }
        }
      }
      return absl::OkStatus();
    }

   private:
    const std::shared_ptr<const UnbatchDataset> d_;
    const std::unique_ptr<IteratorBase> in_;
    std::vector<Tensor> batch_;
    int64_t rows_ = 0, row_ = 0;
  };

  const DatasetPtr input_;
  const int64_t batch_size_;
};

class UnbatchDatasetOp final : public DatasetOpKernel {
 public:
  using DatasetOpKernel::DatasetOpKernel;

 private:
  absl::StatusOr<DatasetPtr> MakeDataset(OpKernelContext* ctx) override {
    DFX_ASSIGN_OR_RETURN(DatasetPtr input, DatasetFromInput(ctx, 0));
    const int64_t batch_size = StaticBatchSize(*input);
    return std::make_shared<UnbatchDataset>(std::move(input), batch_size);
  }
};

// ---------------------------------------------------------------------------
// PaddedBatch: elements stacked after padding each component to the
// declared shape (-1: the largest in the batch) with its padding value.

// Copies `src` into the leading corner of `dst` (same rank, every dim of
// dst at least src's), whose first element is at flat offset `base`.
void CopyIntoCorner(const Tensor& src, Tensor* dst, int64_t base,
                    const TensorShape& dst_shape) {
  const int rank = src.dims();
  if (src.NumElements() == 0) return;
  if (rank == 0) {
    data_flow::CopyElements(src, 0, dst, base, 1);
    return;
  }
  // Strides of the padded layout.
  std::vector<int64_t> strides(rank, 1);
  for (int d = rank - 2; d >= 0; --d) {
    strides[d] = strides[d + 1] * dst_shape.dim_size(d + 1);
  }
  const int64_t row = src.dim_size(rank - 1);
  const int64_t rows = src.NumElements() / row;
  std::vector<int64_t> index(rank, 0);
  for (int64_t r = 0; r < rows; ++r) {
    int64_t offset = base;
    for (int d = 0; d < rank - 1; ++d) offset += index[d] * strides[d];
    data_flow::CopyElements(src, r * row, dst, offset, row);
    for (int d = rank - 2; d >= 0; --d) {
      if (++index[d] < src.dim_size(d)) break;
      index[d] = 0;
    }
  }
}

class PaddedBatchDataset final : public DatasetBase {
 public:
  PaddedBatchDataset(DatasetPtr input, int64_t batch_size,
                     std::vector<std::vector<int64_t>> padded_shapes,
                     std::vector<Tensor> padding_values, bool drop_remainder)
      : DatasetBase(input->output_dtypes()),
        input_(std::move(input)),
        batch_size_(batch_size),
        padded_shapes_(std::move(padded_shapes)),
        padding_values_(std::move(padding_values)),
        drop_remainder_(drop_remainder) {
    set_options(input_->options());
  }

  int64_t Cardinality() const override {
    const int64_t n = input_->Cardinality();
    if (n < 0) return n;
    return drop_remainder_ ? n / batch_size_
                           : (n + batch_size_ - 1) / batch_size_;
  }
  std::string DebugString() const override {
    return absl::StrCat("PaddedBatchDataset(", batch_size_, ")");
  }
  absl::StatusOr<std::unique_ptr<IteratorBase>> MakeIterator(
      IteratorContext* ctx) const override {
    DFX_ASSIGN_OR_RETURN(auto in, input_->MakeIterator(ctx));
    return std::unique_ptr<IteratorBase>(
        new Iterator(Self<PaddedBatchDataset>(), std::move(in)));
  }

 private:
  absl::StatusOr<Tensor> Pad(IteratorContext* ctx,
                             const std::vector<std::vector<Tensor>>& elements,
                             size_t c) const {
    const std::vector<int64_t>& declared = padded_shapes_[c];
    const int rank = static_cast<int>(declared.size());
    std::vector<int64_t> dims = declared;
    for (const std::vector<Tensor>& e : elements) {
      const Tensor& t = e[c];
      if (t.dims() != rank) {
        return absl::InvalidArgumentError(absl::StrCat(
            "component ", c, " has rank ", t.dims(),
            ", its padded shape has rank ", rank));
      }
      for (int d = 0; d < rank; ++d) {
        if (declared[d] < 0) {
          dims[d] = std::max(dims[d], t.dim_size(d));
        } else if (t.dim_size(d) > declared[d]) {
          // DataLoss, as TensorFlow says it.
          return absl::DataLossError(
              "Attempted to pad to a smaller size than the input element.");
        }
      }
    }
    TensorShape padded;
    for (int d = 0; d < rank; ++d) {
      DFX_RETURN_IF_ERROR(padded.AddDim(std::max<int64_t>(dims[d], 0)));
    }
    TensorShape batched({static_cast<int64_t>(elements.size())});
    for (int d = 0; d < rank; ++d) {
      DFX_RETURN_IF_ERROR(batched.AddDim(padded.dim_size(d)));
    }
    const Tensor& fill = padding_values_[c];
    DFX_RETURN_IF_ERROR(CheckSliceable(fill.dtype(), static_cast<int>(c)));
    DFX_ASSIGN_OR_RETURN(
        Tensor out,
        Tensor::Allocate(ctx->device->GetAllocator(), fill.dtype(), batched));
    for (int64_t i = 0; i < out.NumElements(); ++i) {
      data_flow::CopyElements(fill, 0, &out, i, 1);
    }
    const int64_t per = padded.num_elements();
    for (size_t e = 0; e < elements.size(); ++e) {
      CopyIntoCorner(elements[e][c], &out, static_cast<int64_t>(e) * per,
                     padded);
    }
    return out;
  }

  class Iterator final : public IteratorBase {
   public:
    Iterator(std::shared_ptr<const PaddedBatchDataset> d,
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
      for (size_t c = 0; c < elements.front().size(); ++c) {
        DFX_ASSIGN_OR_RETURN(Tensor t, d_->Pad(ctx, elements, c));
        out->push_back(std::move(t));
      }
      return absl::OkStatus();
    }

    absl::Status Save(const std::string& prefix,
                      IteratorState* state) override {
      return SaveInput(*d_->input_, in_.get(), prefix + "/input", state);
    }
    absl::Status Restore(IteratorContext* ctx, const std::string& prefix,
                         const IteratorState& state) override {
      return RestoreInput(ctx, *d_->input_, &in_, prefix + "/input", state);
    }

   private:
    const std::shared_ptr<const PaddedBatchDataset> d_;
    std::unique_ptr<IteratorBase> in_;
  };

  const DatasetPtr input_;
  const int64_t batch_size_;
  const std::vector<std::vector<int64_t>> padded_shapes_;
  const std::vector<Tensor> padding_values_;
  const bool drop_remainder_;
};

class PaddedBatchDatasetOp final : public DatasetOpKernel {
 public:
  explicit PaddedBatchDatasetOp(OpKernelConstruction* ctx)
      : DatasetOpKernel(ctx) {
    ctx->SetStatus(ctx->GetAttr("N", &n_));
  }

 private:
  absl::StatusOr<DatasetPtr> MakeDataset(OpKernelContext* ctx) override {
    DFX_ASSIGN_OR_RETURN(DatasetPtr input, DatasetFromInput(ctx, 0));
    DFX_ASSIGN_OR_RETURN(int64_t batch_size,
                         ScalarInt64Input(ctx, 1, "batch_size"));
    if (batch_size <= 0) {
      return absl::InvalidArgumentError(
          "Batch size must be greater than zero.");
    }
    const int n = static_cast<int>(n_);
    if (n != static_cast<int>(input->output_dtypes().size())) {
      return absl::InvalidArgumentError(absl::StrCat(
          "padded_batch has ", n, " padded shapes for ",
          input->output_dtypes().size(), " components"));
    }
    std::vector<std::vector<int64_t>> shapes;
    std::vector<Tensor> values;
    for (int c = 0; c < n; ++c) {
      const Tensor& s = ctx->input(2 + c);
      if (s.dtype() != DT_INT64 || s.dims() != 1) {
        return absl::InvalidArgumentError(absl::StrCat(
            "padded_shapes[", c, "] must be a vector of int64"));
      }
      auto span = s.span<int64_t>();
      shapes.emplace_back(span.begin(), span.end());
      const Tensor& v = ctx->input(2 + n + c);
      if (v.NumElements() != 1 || v.dims() != 0 ||
          v.dtype() != input->output_dtypes()[c]) {
        return absl::InvalidArgumentError(absl::StrCat(
            "padding_values[", c, "] must be a scalar of the component's "
            "type"));
      }
      values.push_back(v);
    }
    // PaddedBatchDataset (v1) has no drop_remainder input.
    bool drop_remainder = false;
    if (ctx->num_inputs() > 2 + 2 * n) {
      DFX_ASSIGN_OR_RETURN(drop_remainder, ScalarBoolInput(ctx, 2 + 2 * n,
                                                           "drop_remainder"));
    }
    return std::make_shared<PaddedBatchDataset>(
        std::move(input), batch_size, std::move(shapes), std::move(values),
        drop_remainder);
  }

  int64_t n_ = 0;
};

}  // namespace

void RegisterNestedDatasetKernels(KernelRegistry* registry) {
  // The older parallel interleaves (and ExperimentalParallelInterleave's
  // sloppy input) read cycle_length and block_length at the same place;
  // dfx interleaves deterministically, an order each of them may give.
  for (const char* op :
       {"FlatMapDataset", "InterleaveDataset", "ParallelInterleaveDatasetV4",
        "ParallelInterleaveDatasetV3", "ParallelInterleaveDatasetV2",
        "LegacyParallelInterleaveDatasetV2", "ParallelInterleaveDataset",
        "ExperimentalParallelInterleaveDataset"}) {
    RegisterKernel<InterleaveDatasetOp>(registry, KernelDefBuilder(op));
  }
  RegisterKernel<UnbatchDatasetOp>(registry, KernelDefBuilder("UnbatchDataset"));
  RegisterKernel<UnbatchDatasetOp>(registry,
                                   KernelDefBuilder("ExperimentalUnbatchDataset"));
  RegisterKernel<PaddedBatchDatasetOp>(registry,
                                       KernelDefBuilder("PaddedBatchDatasetV2"));
  RegisterKernel<PaddedBatchDatasetOp>(registry,
                                       KernelDefBuilder("PaddedBatchDataset"));
}

}  // namespace dfx::data
