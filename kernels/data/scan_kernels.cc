// Transformations that carry something from element to element, and the
// ops that consume a whole dataset: scan (a state through a function),
// take_while, unique, ignore_errors, assert_cardinality, the directed
// interleave of choose_from_datasets, and Dataset.reduce and
// get_single_element (ReduceDataset, DatasetToSingleElement). TensorFlow
// 2.21's semantics and messages.
#include <algorithm>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "base/log.h"
#include "base/status_macros.h"
#include "kernels/data/dataset.h"
#include "kernels/data/state_util.h"
#include "kernels/data/element_util.h"

namespace dfx::data {
namespace {

// The dtypes of list attr `attr`; sets the construction's status when
// missing.
DataTypeVector TypeListAttr(OpKernelConstruction* ctx, const char* attr) {
  DataTypeVector types;
  ctx->SetStatus(ctx->GetAttr(attr, &types));
  return types;
}

// Inputs [first, first + count) of the kernel.
std::vector<Tensor> InputRange(OpKernelContext* ctx, int first, int count) {
  std::vector<Tensor> out;
  for (int i = first; i < first + count && i < ctx->num_inputs(); ++i) {
    out.push_back(ctx->input(i));
  }
  return out;
}

// The new state a scan or reduce function returned: its first
// `state_types.size()` results, checked against the state's dtypes.
absl::Status CheckState(const std::vector<Tensor>& results,
                        const DataTypeVector& state_types) {
  for (size_t i = 0; i < state_types.size(); ++i) {
    if (results[i].dtype() != state_types[i]) {
      return absl::InvalidArgumentError(absl::StrCat(
          "Data type mismatch at component ", i, ": expected ",
          DataTypeString(state_types[i]), " but got ",
          DataTypeString(results[i].dtype()), "."));
    }
  }
  return absl::OkStatus();
}

// ---------------------------------------------------------------------------
// Scan: f(state..., element..., captured...) -> (new state..., output...).

class ScanDataset final : public UnaryDataset {
 public:
  ScanDataset(DatasetPtr input, DataTypeVector output_types,
              std::shared_ptr<const DatasetFunction> f,
              std::vector<Tensor> initial_state, DataTypeVector state_types,
              std::vector<Tensor> captured, bool preserve_cardinality)
      : UnaryDataset(std::move(input), std::move(output_types)),
        f_(std::move(f)),
        initial_state_(std::move(initial_state)),
        state_types_(std::move(state_types)),
        captured_(std::move(captured)),
        preserve_cardinality_(preserve_cardinality) {}

  int64_t Cardinality() const override {
    return preserve_cardinality_ ? input()->Cardinality()
                                 : kUnknownCardinality;
  }
  std::string DebugString() const override {
    return absl::StrCat("ScanDataset(", f_->name(), ")");
  }
  absl::StatusOr<std::unique_ptr<IteratorBase>> MakeIterator(
      IteratorContext* ctx) const override {
    DFX_ASSIGN_OR_RETURN(auto in, input()->MakeIterator(ctx));
    return std::unique_ptr<IteratorBase>(
        new Iterator(Self<ScanDataset>(), std::move(in)));
  }

 private:
  class Iterator final : public IteratorBase {
   public:
    Iterator(std::shared_ptr<const ScanDataset> d,
             std::unique_ptr<IteratorBase> in)
        : d_(std::move(d)), in_(std::move(in)), state_(d_->initial_state_) {}
    absl::Status GetNext(IteratorContext* ctx, std::vector<Tensor>* out,
                         bool* end) override {
      std::vector<Tensor> element;
      DFX_RETURN_IF_ERROR(in_->GetNext(ctx, &element, end));
      if (*end) return absl::OkStatus();
      std::vector<Tensor> args = state_;
      args.insert(args.end(), std::make_move_iterator(element.begin()),
                  std::make_move_iterator(element.end()));
      args.insert(args.end(), d_->captured_.begin(), d_->captured_.end());
      DFX_ASSIGN_OR_RETURN(std::vector<Tensor> results,
                           d_->f_->Run(ctx, std::move(args)));
      const size_t want =
          d_->state_types_.size() + d_->output_dtypes().size();
      if (results.size() != want) {
        return absl::InvalidArgumentError(absl::StrCat(
            "Scan function ", d_->f_->name(), " returned ", results.size(),
            " values; expected ", want, " (", d_->state_types_.size(),
            " of state, ", d_->output_dtypes().size(), " of output)"));
      }
      DFX_RETURN_IF_ERROR(CheckState(results, d_->state_types_));
      const auto split = results.begin() + d_->state_types_.size();
      state_.assign(std::make_move_iterator(results.begin()),
                    std::make_move_iterator(split));
      out->assign(std::make_move_iterator(split),
                  std::make_move_iterator(results.end()));
      return absl::OkStatus();
    }

    absl::Status Save(const std::string& prefix,
                      IteratorState* state) override {
      DFX_RETURN_IF_ERROR(
          SaveIterator(*d_->input(), *in_, prefix + "/input", state));
      state->WriteElement(prefix, "state", state_);
      return absl::OkStatus();
    }
    absl::Status Restore(IteratorContext* ctx, const std::string& prefix,
                         const IteratorState& state) override {
      DFX_RETURN_IF_ERROR(
          RestoreIterator(*d_->input(), *in_, ctx, prefix + "/input", state));
      DFX_ASSIGN_OR_RETURN(std::vector<Tensor> saved,
                           state.ReadElement(prefix, "state"));
      if (saved.size() != d_->state_types_.size() ||
          !CheckState(saved, d_->state_types_).ok()) {
        return absl::InvalidArgumentError(
            absl::StrCat("the iterator state's entry ", prefix,
                         "/state does not match the scan's state types"));
      }
      state_ = std::move(saved);
      return absl::OkStatus();
    }

   private:
    const std::shared_ptr<const ScanDataset> d_;
    const std::unique_ptr<IteratorBase> in_;
    std::vector<Tensor> state_;
  };

  const std::shared_ptr<const DatasetFunction> f_;
  const std::vector<Tensor> initial_state_;
  const DataTypeVector state_types_;
  const std::vector<Tensor> captured_;
  const bool preserve_cardinality_;
};

class ScanDatasetOp final : public DatasetOpKernel {
 public:
  explicit ScanDatasetOp(OpKernelConstruction* ctx)
      : DatasetOpKernel(ctx),
        fn_(ReadDatasetOpFunction(ctx, "f")),
        state_types_(TypeListAttr(ctx, "Tstate")) {
    ctx->SetStatus(ctx->GetAttr("preserve_cardinality", &preserve_));
  }

 private:
  absl::StatusOr<DatasetPtr> MakeDataset(OpKernelContext* ctx) override {
    DFX_ASSIGN_OR_RETURN(DatasetPtr input, DatasetFromInput(ctx, 0));
    const int n = static_cast<int>(state_types_.size());
    return std::make_shared<ScanDataset>(
        std::move(input), output_types(), fn_.f, InputRange(ctx, 1, n),
        state_types_, InputRange(ctx, 1 + n, fn_.num_captured), preserve_);
  }

  const DatasetOpFunction fn_;
  const DataTypeVector state_types_;
  bool preserve_ = false;
};

// ---------------------------------------------------------------------------
// TakeWhile: elements up to the first for which the predicate is false.

class TakeWhileDataset final : public UnaryDataset {
 public:
  TakeWhileDataset(DatasetPtr input, std::shared_ptr<const DatasetFunction> f,
                   std::vector<Tensor> captured)
      : UnaryDataset(input, input->output_dtypes()),
        f_(std::move(f)),
        captured_(std::move(captured)) {}

  std::string DebugString() const override {
    return absl::StrCat("TakeWhileDataset(", f_->name(), ")");
  }
  absl::StatusOr<std::unique_ptr<IteratorBase>> MakeIterator(
      IteratorContext* ctx) const override {
    DFX_ASSIGN_OR_RETURN(auto in, input()->MakeIterator(ctx));
    return std::unique_ptr<IteratorBase>(
        new Iterator(Self<TakeWhileDataset>(), std::move(in)));
  }

 private:
  class Iterator final : public IteratorBase {
   public:
    Iterator(std::shared_ptr<const TakeWhileDataset> d,
             std::unique_ptr<IteratorBase> in)
        : d_(std::move(d)), in_(std::move(in)) {}
    absl::Status GetNext(IteratorContext* ctx, std::vector<Tensor>* out,
                         bool* end) override {
      if (in_ == nullptr) {
        *end = true;
        return absl::OkStatus();
      }
      std::vector<Tensor> element;
      DFX_RETURN_IF_ERROR(in_->GetNext(ctx, &element, end));
      if (*end) {
        in_.reset();
        return absl::OkStatus();
      }
      std::vector<Tensor> args = element;
      args.insert(args.end(), d_->captured_.begin(), d_->captured_.end());
      DFX_ASSIGN_OR_RETURN(std::vector<Tensor> keep,
                           d_->f_->Run(ctx, std::move(args)));
      if (keep.size() != 1 || keep[0].dtype() != DT_BOOL ||
          keep[0].dims() != 0) {
        return absl::InvalidArgumentError(
            "`predicate` must returns a scalar bool tensor.");
      }
      if (!keep[0].scalar<bool>()) {
        in_.reset();
        *end = true;
        return absl::OkStatus();
      }
      *out = std::move(element);
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
    const std::shared_ptr<const TakeWhileDataset> d_;
    std::unique_ptr<IteratorBase> in_;
  };

  const std::shared_ptr<const DatasetFunction> f_;
  const std::vector<Tensor> captured_;
};

class TakeWhileDatasetOp final : public DatasetOpKernel {
 public:
  explicit TakeWhileDatasetOp(OpKernelConstruction* ctx)
      : DatasetOpKernel(ctx), fn_(ReadDatasetOpFunction(ctx, "predicate")) {}

 private:
  absl::StatusOr<DatasetPtr> MakeDataset(OpKernelContext* ctx) override {
    DFX_ASSIGN_OR_RETURN(DatasetPtr input, DatasetFromInput(ctx, 0));
    return std::make_shared<TakeWhileDataset>(
        std::move(input), fn_.f, CapturedInputs(ctx, fn_.num_captured));
  }

  const DatasetOpFunction fn_;
};

// ---------------------------------------------------------------------------
// Unique: scalar or vector elements of one int32, int64 or string
// component, each value once, in the order first seen.

class UniqueDataset final : public UnaryDataset {
 public:
  explicit UniqueDataset(DatasetPtr input)
      : UnaryDataset(input, input->output_dtypes()) {}

  std::string DebugString() const override { return "UniqueDataset"; }
  absl::StatusOr<std::unique_ptr<IteratorBase>> MakeIterator(
      IteratorContext* ctx) const override {
    DFX_ASSIGN_OR_RETURN(auto in, input()->MakeIterator(ctx));
    return std::unique_ptr<IteratorBase>(new Iterator(input(), std::move(in)));
  }

 private:
  class Iterator final : public IteratorBase {
   public:
    Iterator(DatasetPtr input, std::unique_ptr<IteratorBase> in)
        : input_(std::move(input)), in_(std::move(in)) {}
    absl::Status GetNext(IteratorContext* ctx, std::vector<Tensor>* out,
                         bool* end) override {
      for (;;) {
        std::vector<Tensor> element;
        DFX_RETURN_IF_ERROR(in_->GetNext(ctx, &element, end));
        if (*end) return absl::OkStatus();
        // A key that tells values (and their shapes) apart: the shape,
        // then each value.
        const Tensor& t = element[0];
        std::string key = t.shape().DebugString();
        if (t.dtype() == DT_STRING) {
          for (int64_t i = 0; i < t.NumElements(); ++i) {
            const std::string& s = t.data<std::string>()[i];
            absl::StrAppend(&key, "|", s.size(), ":", s);
          }
        } else {
          key.append(static_cast<const char*>(t.raw_data()), t.TotalBytes());
        }
        const int64_t bytes = static_cast<int64_t>(key.size()) + 64;
        if (seen_.insert(std::move(key)).second) {
          // What the set of seen values holds, kept under the memory limit.
          held_ += bytes;
          DFX_RETURN_IF_ERROR(CheckHeldElements(held_, "UniqueDataset"));
          *out = std::move(element);
          return absl::OkStatus();
        }
      }
    }

    // The input's position and the values seen (as their keys).
    absl::Status Save(const std::string& prefix,
                      IteratorState* state) override {
      DFX_RETURN_IF_ERROR(
          SaveIterator(*input_, *in_, prefix + "/input", state));
      std::vector<std::string> seen(seen_.begin(), seen_.end());
      state->WriteTensor(prefix, "seen", Tensor::FromVector<std::string>(seen));
      return absl::OkStatus();
    }
    absl::Status Restore(IteratorContext* ctx, const std::string& prefix,
                         const IteratorState& state) override {
      DFX_RETURN_IF_ERROR(
          RestoreIterator(*input_, *in_, ctx, prefix + "/input", state));
      DFX_ASSIGN_OR_RETURN(Tensor seen, state.ReadTensor(prefix, "seen"));
      if (seen.dtype() != DT_STRING || seen.dims() != 1) {
        return absl::InvalidArgumentError(
            absl::StrCat("the iterator state's entry ", prefix,
                         "/seen is not a string vector"));
      }
      seen_.clear();
      held_ = 0;
      for (int64_t i = 0; i < seen.NumElements(); ++i) {
        const std::string& key = seen.data<std::string>()[i];
        held_ += static_cast<int64_t>(key.size()) + 64;
        seen_.insert(key);
      }
      return absl::OkStatus();
    }

   private:
    const DatasetPtr input_;
    const std::unique_ptr<IteratorBase> in_;
    absl::flat_hash_set<std::string> seen_;
    int64_t held_ = 0;
  };
};

class UniqueDatasetOp final : public DatasetOpKernel {
 public:
  using DatasetOpKernel::DatasetOpKernel;

 private:
  absl::StatusOr<DatasetPtr> MakeDataset(OpKernelContext* ctx) override {
    DFX_ASSIGN_OR_RETURN(DatasetPtr input, DatasetFromInput(ctx, 0));
    if (input->output_dtypes().size() != 1) {
      return absl::InvalidArgumentError(
          "UniqueDataset only supports inputs with a single component.");
    }
    const DataType dtype = input->output_dtypes()[0];
    if (dtype != DT_INT32 && dtype != DT_INT64 && dtype != DT_STRING) {
      return absl::InvalidArgumentError(absl::StrCat(
          "UniqueDataset only supports inputs with a single `tf.int32`, "
          "`tf.int64`, or `tf.string` component, got ",
          DataTypeString(dtype), "."));
    }
    return std::make_shared<UniqueDataset>(std::move(input));
  }
};

// ---------------------------------------------------------------------------
// IgnoreErrors: an element whose production fails is dropped (a cancelled
// call still fails).

class IgnoreErrorsDataset final : public UnaryDataset {
 public:
  IgnoreErrorsDataset(DatasetPtr input, bool log_warning)
      : UnaryDataset(input, input->output_dtypes()),
        log_warning_(log_warning) {}

  std::string DebugString() const override { return "IgnoreErrorsDataset"; }
  absl::StatusOr<std::unique_ptr<IteratorBase>> MakeIterator(
      IteratorContext* ctx) const override {
    DFX_ASSIGN_OR_RETURN(auto in, input()->MakeIterator(ctx));
    return std::unique_ptr<IteratorBase>(
        new Iterator(Self<IgnoreErrorsDataset>(), std::move(in)));
  }

 private:
  class Iterator final : public IteratorBase {
   public:
    Iterator(std::shared_ptr<const IgnoreErrorsDataset> d,
             std::unique_ptr<IteratorBase> in)
        : d_(std::move(d)), in_(std::move(in)) {}
    absl::Status GetNext(IteratorContext* ctx, std::vector<Tensor>* out,
                         bool* end) override {
      if (in_ == nullptr) {
        *end = true;
        return absl::OkStatus();
      }
      absl::Status s = in_->GetNext(ctx, out, end);
      while (!s.ok() && !absl::IsCancelled(s)) {
        if (d_->log_warning_) {
          spdlog::warn("IgnoreErrorsDataset dropped an element: {}", s);
        }
        out->clear();
        s = in_->GetNext(ctx, out, end);
      }
      if (s.ok() && *end) in_.reset();
      return s;
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
    const std::shared_ptr<const IgnoreErrorsDataset> d_;
    std::unique_ptr<IteratorBase> in_;
  };

  const bool log_warning_;
};

class IgnoreErrorsDatasetOp final : public DatasetOpKernel {
 public:
  explicit IgnoreErrorsDatasetOp(OpKernelConstruction* ctx)
      : DatasetOpKernel(ctx) {
    ctx->SetStatus(ctx->GetAttr("log_warning", &log_warning_));
  }

 private:
  absl::StatusOr<DatasetPtr> MakeDataset(OpKernelContext* ctx) override {
    DFX_ASSIGN_OR_RETURN(DatasetPtr input, DatasetFromInput(ctx, 0));
    return std::make_shared<IgnoreErrorsDataset>(std::move(input),
                                                 log_warning_);
  }

  bool log_warning_ = false;
};

// ---------------------------------------------------------------------------
// AssertCardinality: FailedPrecondition as soon as the input turns out to
// hold another number of elements than asserted.

std::string ElementCount(int64_t n) {
  if (n == kInfiniteCardinality) return "an infinite number of elements";
  return absl::StrCat(n, n == 1 ? " element" : " elements");
}

class AssertCardinalityDataset final : public UnaryDataset {
 public:
  AssertCardinalityDataset(DatasetPtr input, int64_t cardinality)
      : UnaryDataset(input, input->output_dtypes()),
        cardinality_(cardinality) {}

  int64_t Cardinality() const override { return cardinality_; }
  std::string DebugString() const override {
    return absl::StrCat("AssertCardinalityDataset(", cardinality_, ")");
  }
  // As TensorFlow's: an index the input lacks fails the assertion.
  absl::Status Get(IteratorContext* ctx, int64_t index,
                   std::vector<Tensor>* out) const override {
    DFX_RETURN_IF_ERROR(CheckRandomAccessCompatible(index));
    absl::Status s = input()->Get(ctx, index, out);
    if (absl::IsOutOfRange(s)) {
      return absl::FailedPreconditionError(absl::StrCat(
          "Input dataset was expected to contain ",
          ElementCount(cardinality_), " but index ", index,
          " could not be retrieved: ", s.message()));
    }
    return s;
  }
  absl::Status RandomAccessCompatible() const override {
    return input()->RandomAccessCompatible();
  }
  absl::StatusOr<std::unique_ptr<IteratorBase>> MakeIterator(
      IteratorContext* ctx) const override {
    DFX_ASSIGN_OR_RETURN(auto in, input()->MakeIterator(ctx));
    return std::unique_ptr<IteratorBase>(
        new Iterator(cardinality_, input(), std::move(in)));
  }

 private:
  class Iterator final : public IteratorBase {
   public:
    Iterator(int64_t cardinality, DatasetPtr input,
             std::unique_ptr<IteratorBase> in)
        : cardinality_(cardinality),
          input_(std::move(input)),
          in_(std::move(in)) {}
    absl::Status GetNext(IteratorContext* ctx, std::vector<Tensor>* out,
                         bool* end) override {
      DFX_RETURN_IF_ERROR(in_->GetNext(ctx, out, end));
      if (!*end) ++seen_;
      if (*end && seen_ != cardinality_) {
        return absl::FailedPreconditionError(absl::StrCat(
            "Input dataset was expected to contain ",
            ElementCount(cardinality_), " but contained only ",
            ElementCount(seen_), "."));
      }
      if (cardinality_ != kInfiniteCardinality && seen_ > cardinality_) {
        return absl::FailedPreconditionError(absl::StrCat(
            "Input dataset was expected to contain ",
            ElementCount(cardinality_), " but contained at least ",
            ElementCount(seen_), "."));
      }
      return absl::OkStatus();
    }

    absl::Status Save(const std::string& prefix,
                      IteratorState* state) override {
      DFX_RETURN_IF_ERROR(
          SaveIterator(*input_, *in_, prefix + "/input", state));
      state->WriteInt(prefix, "seen", seen_);
      return absl::OkStatus();
    }
    absl::Status Restore(IteratorContext* ctx, const std::string& prefix,
                         const IteratorState& state) override {
      DFX_RETURN_IF_ERROR(
          RestoreIterator(*input_, *in_, ctx, prefix + "/input", state));
      DFX_ASSIGN_OR_RETURN(seen_,
                           ReadIntInRange(state, prefix, "seen", 0,
                                          std::numeric_limits<int64_t>::max()));
      return absl::OkStatus();
    }

   private:
    const int64_t cardinality_;
    const DatasetPtr input_;
    const std::unique_ptr<IteratorBase> in_;
    int64_t seen_ = 0;
  };

  const int64_t cardinality_;
};

class AssertCardinalityDatasetOp final : public DatasetOpKernel {
 public:
  using DatasetOpKernel::DatasetOpKernel;

 private:
  absl::StatusOr<DatasetPtr> MakeDataset(OpKernelContext* ctx) override {
    DFX_ASSIGN_OR_RETURN(DatasetPtr input, DatasetFromInput(ctx, 0));
    DFX_ASSIGN_OR_RETURN(int64_t cardinality,
                         ScalarInt64Input(ctx, 1, "cardinality"));
    return std::make_shared<AssertCardinalityDataset>(std::move(input),
                                                      cardinality);
  }
};

// ---------------------------------------------------------------------------
// DirectedInterleave (choose_from_datasets, sample_from_datasets): each
// int64 of the selector names the data input that gives the next element.
// An exhausted input is skipped, or ends everything under
// stop_on_empty_dataset; the end comes with the selector's or when every
// input is exhausted.

class DirectedInterleaveDataset final : public DatasetBase {
 public:
  DirectedInterleaveDataset(DataTypeVector dtypes, DatasetPtr selector,
                            std::vector<DatasetPtr> inputs, bool stop_on_empty)
      : DatasetBase(std::move(dtypes)),
        selector_(std::move(selector)),
        inputs_(std::move(inputs)),
        stop_on_empty_(stop_on_empty) {}

  std::string DebugString() const override {
    return absl::StrCat("DirectedInterleaveDataset(", inputs_.size(), ")");
  }
  absl::StatusOr<std::unique_ptr<IteratorBase>> MakeIterator(
      IteratorContext* ctx) const override {
    DFX_ASSIGN_OR_RETURN(auto selector, selector_->MakeIterator(ctx));
    std::vector<std::unique_ptr<IteratorBase>> inputs;
    for (const DatasetPtr& d : inputs_) {
      DFX_ASSIGN_OR_RETURN(auto in, d->MakeIterator(ctx));
      inputs.push_back(std::move(in));
    }
    return std::unique_ptr<IteratorBase>(
        new Iterator(Self<DirectedInterleaveDataset>(), std::move(selector),
                     std::move(inputs)));
  }

 private:
  class Iterator final : public IteratorBase {
   public:
    Iterator(std::shared_ptr<const DirectedInterleaveDataset> d,
             std::unique_ptr<IteratorBase> selector,
             std::vector<std::unique_ptr<IteratorBase>> inputs)
        : d_(std::move(d)),
          stop_on_empty_(d_->stop_on_empty_),
          selector_(std::move(selector)),
          inputs_(std::move(inputs)),
          active_(static_cast<int64_t>(inputs_.size())) {}
    absl::Status GetNext(IteratorContext* ctx, std::vector<Tensor>* out,
                         bool* end) override {
      for (;;) {
        if (selector_ == nullptr) {
          *end = true;
          return absl::OkStatus();
        }
        std::vector<Tensor> pick;
        DFX_RETURN_IF_ERROR(selector_->GetNext(ctx, &pick, end));
        if (*end) {
          Finish();
          return absl::OkStatus();
        }
        if (pick.size() != 1 || pick[0].dtype() != DT_INT64 ||
            pick[0].NumElements() != 1) {
          return absl::InvalidArgumentError(
              "The selector dataset must produce scalar int64 elements.");
        }
        const int64_t i = pick[0].data<int64_t>()[0];
        if (i < 0 || i >= static_cast<int64_t>(inputs_.size())) {
          return absl::InvalidArgumentError(absl::StrCat(
              "Selector index out of range: ", i, " >= ", inputs_.size()));
        }
        if (inputs_[i] == nullptr) continue;  // exhausted earlier
        bool input_end = false;
        DFX_RETURN_IF_ERROR(inputs_[i]->GetNext(ctx, out, &input_end));
        if (!input_end) return absl::OkStatus();
        if (stop_on_empty_ || --active_ == 0) {
          Finish();
          *end = true;
          return absl::OkStatus();
        }
        inputs_[i].reset();
      }
    }

    // The selector's and each input's position (an exhausted one marked
    // absent).
    absl::Status Save(const std::string& prefix,
                      IteratorState* state) override {
      DFX_RETURN_IF_ERROR(SaveInput(*d_->selector_, selector_.get(),
                                    prefix + "/selector", state));
      for (size_t i = 0; i < inputs_.size(); ++i) {
        DFX_RETURN_IF_ERROR(SaveInput(*d_->inputs_[i], inputs_[i].get(),
                                      absl::StrCat(prefix, "/input[", i, "]"),
                                      state));
      }
      return absl::OkStatus();
    }
    absl::Status Restore(IteratorContext* ctx, const std::string& prefix,
                         const IteratorState& state) override {
      DFX_RETURN_IF_ERROR(RestoreInput(ctx, *d_->selector_, &selector_,
                                       prefix + "/selector", state));
      active_ = 0;
      for (size_t i = 0; i < inputs_.size(); ++i) {
        DFX_RETURN_IF_ERROR(
            RestoreInput(ctx, *d_->inputs_[i], &inputs_[i],
                         absl::StrCat(prefix, "/input[", i, "]"), state));
        if (inputs_[i] != nullptr) ++active_;
      }
      if (selector_ != nullptr && active_ == 0) {
        return absl::InvalidArgumentError(
            absl::StrCat("the iterator state under ", prefix,
                         " has a selector and no input left"));
      }
      return absl::OkStatus();
    }

   private:
    void Finish() {
      selector_.reset();
      for (auto& in : inputs_) in.reset();
    }

    const std::shared_ptr<const DirectedInterleaveDataset> d_;
    const bool stop_on_empty_;
    std::unique_ptr<IteratorBase> selector_;
    std::vector<std::unique_ptr<IteratorBase>> inputs_;
    int64_t active_;
  };

  const DatasetPtr selector_;
  const std::vector<DatasetPtr> inputs_;
  const bool stop_on_empty_;
};

class DirectedInterleaveDatasetOp final : public DatasetOpKernel {
 public:
  explicit DirectedInterleaveDatasetOp(OpKernelConstruction* ctx)
      : DatasetOpKernel(ctx) {
    // ExperimentalDirectedInterleaveDataset has no such attr: false.
    if (FindNodeAttr(ctx->def(), "stop_on_empty_dataset") != nullptr) {
      ctx->SetStatus(ctx->GetAttr("stop_on_empty_dataset", &stop_on_empty_));
    }
  }

 private:
  absl::StatusOr<DatasetPtr> MakeDataset(OpKernelContext* ctx) override {
    DFX_ASSIGN_OR_RETURN(DatasetPtr selector, DatasetFromInput(ctx, 0));
    if (selector->output_dtypes() != DataTypeVector{DT_INT64}) {
      return absl::InvalidArgumentError(
          "The selector input must be a dataset of scalar int64 elements.");
    }
    std::vector<DatasetPtr> inputs;
    for (int i = 1; i < ctx->num_inputs(); ++i) {
      DFX_ASSIGN_OR_RETURN(DatasetPtr in, DatasetFromInput(ctx, i));
      if (!inputs.empty() &&
          in->output_dtypes() != inputs.front()->output_dtypes()) {
        return absl::InvalidArgumentError(
            "All inputs must have the same output_dtypes.");
      }
      inputs.push_back(std::move(in));
    }
    DataTypeVector dtypes = inputs.front()->output_dtypes();
    return std::make_shared<DirectedInterleaveDataset>(
        std::move(dtypes), std::move(selector), std::move(inputs),
        stop_on_empty_);
  }

  bool stop_on_empty_ = false;
};

// ---------------------------------------------------------------------------
// The ops that run a whole dataset in one call.

// ReduceDataset: f(state..., element..., captured...) -> new state, over
// every element; outputs the final state.
class ReduceDatasetOp final : public OpKernel {
 public:
  explicit ReduceDatasetOp(OpKernelConstruction* ctx)
      : OpKernel(ctx),
        fn_(ReadDatasetOpFunction(ctx, "f")),
        state_types_(TypeListAttr(ctx, "Tstate")) {}

  void Compute(OpKernelContext* ctx) override {
    absl::StatusOr<DatasetPtr> dataset = DatasetFromInput(ctx, 0);
    DFX_OP_REQUIRES_OK(ctx, dataset.status());
    const int n = static_cast<int>(state_types_.size());
    std::vector<Tensor> state = InputRange(ctx, 1, n);
    const std::vector<Tensor> captured =
        InputRange(ctx, 1 + n, fn_.num_captured);
    IteratorContext it_ctx = IteratorContextOf(ctx);
    absl::StatusOr<std::unique_ptr<IteratorBase>> it =
        (*dataset)->MakeIterator(&it_ctx);
    DFX_OP_REQUIRES_OK(ctx, it.status());
    for (;;) {
      std::vector<Tensor> element;
      bool end = false;
      DFX_OP_REQUIRES_OK(ctx, (*it)->GetNext(&it_ctx, &element, &end));
      if (end) break;
      std::vector<Tensor> args = std::move(state);
      args.insert(args.end(), std::make_move_iterator(element.begin()),
                  std::make_move_iterator(element.end()));
      args.insert(args.end(), captured.begin(), captured.end());
      absl::StatusOr<std::vector<Tensor>> results =
          fn_.f->Run(&it_ctx, std::move(args));
      DFX_OP_REQUIRES_OK(ctx, results.status());
      DFX_OP_REQUIRES(
          ctx, static_cast<int>(results->size()) == n,
          absl::InvalidArgumentError(absl::StrCat(
              "The number of components of the initial state and the "
              "reduction function output does not match. (initial_state=",
              n, ", output=", results->size(), ").")));
      DFX_OP_REQUIRES_OK(ctx, CheckState(*results, state_types_));
      state = std::move(*results);
    }
    DFX_OP_REQUIRES(
        ctx, static_cast<int>(state.size()) == ctx->num_outputs(),
        absl::InvalidArgumentError(absl::StrCat(
            "ReduceDataset: a state of ", state.size(),
            " components for ", ctx->num_outputs(), " outputs")));
    for (int i = 0; i < ctx->num_outputs(); ++i) {
      ctx->set_output(i, std::move(state[i]));
    }
  }

 private:
  const DatasetOpFunction fn_;
  const DataTypeVector state_types_;
};

// DatasetToSingleElement: the one element of a dataset.
class DatasetToSingleElementOp final : public OpKernel {
 public:
  using OpKernel::OpKernel;

  void Compute(OpKernelContext* ctx) override {
    absl::StatusOr<DatasetPtr> dataset = DatasetFromInput(ctx, 0);
    DFX_OP_REQUIRES_OK(ctx, dataset.status());
    IteratorContext it_ctx = IteratorContextOf(ctx);
    absl::StatusOr<std::unique_ptr<IteratorBase>> it =
        (*dataset)->MakeIterator(&it_ctx);
    DFX_OP_REQUIRES_OK(ctx, it.status());
    std::vector<Tensor> element;
    bool end = false;
    DFX_OP_REQUIRES_OK(ctx, (*it)->GetNext(&it_ctx, &element, &end));
    DFX_OP_REQUIRES(ctx, !end,
                    absl::InvalidArgumentError("Dataset was empty."));
    std::vector<Tensor> next;
    bool next_end = false;
    DFX_OP_REQUIRES_OK(ctx, (*it)->GetNext(&it_ctx, &next, &next_end));
    DFX_OP_REQUIRES(
        ctx, next_end,
        absl::InvalidArgumentError("Dataset had more than one element."));
    DFX_OP_REQUIRES_OK(ctx, SetElementOutputs(ctx, std::move(element), false));
  }
};

}  // namespace

void RegisterScanKernels(KernelRegistry* registry) {
  // Each also under its TF 1.x name, Experimental<Name>.
  for (const char* op : {"ScanDataset", "ExperimentalScanDataset"}) {
    RegisterKernel<ScanDatasetOp>(registry, KernelDefBuilder(op));
  }
  for (const char* op : {"TakeWhileDataset", "ExperimentalTakeWhileDataset"}) {
    RegisterKernel<TakeWhileDatasetOp>(registry, KernelDefBuilder(op));
  }
  for (const char* op : {"UniqueDataset", "ExperimentalUniqueDataset"}) {
    RegisterKernel<UniqueDatasetOp>(registry, KernelDefBuilder(op));
  }
  for (const char* op :
       {"IgnoreErrorsDataset", "ExperimentalIgnoreErrorsDataset"}) {
    RegisterKernel<IgnoreErrorsDatasetOp>(registry, KernelDefBuilder(op));
  }
  RegisterKernel<AssertCardinalityDatasetOp>(
      registry, KernelDefBuilder("AssertCardinalityDataset"));
  for (const char* op :
       {"DirectedInterleaveDataset", "ExperimentalDirectedInterleaveDataset"}) {
    RegisterKernel<DirectedInterleaveDatasetOp>(registry, KernelDefBuilder(op));
  }
  RegisterKernel<ReduceDatasetOp>(registry, KernelDefBuilder("ReduceDataset"));
  RegisterKernel<DatasetToSingleElementOp>(
      registry, KernelDefBuilder("DatasetToSingleElement"));
}

}  // namespace dfx::data
