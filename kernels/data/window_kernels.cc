// Datasets that regroup their input's elements: Dataset.window
// (WindowDataset: a dataset of datasets), group_by_window and
// bucket_by_sequence_length (GroupByWindowDataset), and rebatching for
// distribution (RebatchDatasetV2, RebatchDataset). TensorFlow 2.21's order
// and messages.
#include <algorithm>
#include <deque>
#include <map>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "graph/node_def_util.h"
#include "kernels/data/dataset.h"
#include "kernels/data/element_util.h"
#include "kernels/data/elements_dataset.h"
#include "kernels/data/state_util.h"
#include "kernels/data_flow/data_flow_util.h"
#include "runtime/cancellation.h"

namespace dfx::data {
namespace {

// Cancelled once the asking kernel's call is: the loops below that may read
// input without end (a long shift, groups that never fill) check it per
// element.
absl::Status CheckCancelled(const IteratorContext* ctx) {
  if (ctx->cancellation_manager != nullptr &&
      ctx->cancellation_manager->IsCancelled()) {
    return absl::CancelledError("Iterator was cancelled");
  }
  return absl::OkStatus();
}

Tensor DatasetTensor(DatasetPtr d) {
  Tensor out(DT_VARIANT, TensorShape({}));
  out.data<Variant>()[0] = Variant::Make<DatasetVariant>(std::move(d));
  return out;
}

// ---------------------------------------------------------------------------
// Window: each element is one dataset per input component, holding up to
// `size` input elements `stride` apart; consecutive windows start `shift`
// elements apart. The last windows may be short unless drop_remainder.

class WindowDataset final : public UnaryDataset {
 public:
  WindowDataset(DatasetPtr input, int64_t size, int64_t shift, int64_t stride,
                bool drop_remainder)
      : UnaryDataset(input, DataTypeVector(input->output_dtypes().size(),
                                           DT_VARIANT)),
        size_(size),
        shift_(shift),
        stride_(stride),
        drop_remainder_(drop_remainder) {}

  int64_t Cardinality() const override {
    const int64_t n = input()->Cardinality();
    if (n < 0) return n;
    if (drop_remainder_) {
      const int64_t rest = n - ((size_ - 1) * stride_ + 1);
      return rest < 0 ? 0 : rest / shift_ + 1;
    }
    return n / shift_ + (n % shift_ == 0 ? 0 : 1);
  }
  std::string DebugString() const override {
    return absl::StrCat("WindowDataset(size=", size_, ", shift=", shift_,
                        ", stride=", stride_, ")");
  }
  absl::StatusOr<std::unique_ptr<IteratorBase>> MakeIterator(
      IteratorContext* ctx) const override {
    DFX_ASSIGN_OR_RETURN(auto in, input()->MakeIterator(ctx));
    return std::unique_ptr<IteratorBase>(
        new Iterator(Self<WindowDataset>(), std::move(in)));
  }

 private:
  class Iterator final : public IteratorBase {
   public:
    Iterator(std::shared_ptr<const WindowDataset> d,
             std::unique_ptr<IteratorBase> in)
        : d_(std::move(d)), in_(std::move(in)) {}

    absl::Status GetNext(IteratorContext* ctx, std::vector<Tensor>* out,
                         bool* end) override {
      const WindowDataset& d = *d_;
      // The input elements a full window spans.
      const int64_t target = (d.size_ - 1) * d.stride_ + 1;
      // As TensorFlow, an input error is kept with its element and raised
      // only when that element lands in a window (an element skipped by
      // the stride or the shift never raises); a cancellation is raised
      // at once.
      while (in_ != nullptr && static_cast<int64_t>(buffer_.size()) < target) {
        Buffered b;
        bool input_end = false;
        b.status = in_->GetNext(ctx, &b.element, &input_end);
        if (absl::IsCancelled(b.status)) return b.status;
        if (b.status.ok() && input_end) {
          in_.reset();
          break;
        }
        held_ += ElementBytes(b.element);
        buffer_.push_back(std::move(b));
        DFX_RETURN_IF_ERROR(CheckHeldElements(held_, d.DebugString()));
      }
      const int64_t n = static_cast<int64_t>(buffer_.size());
      if (n == 0 || (d.drop_remainder_ && n < target)) {
        *end = true;
        return absl::OkStatus();
      }
      std::vector<std::vector<Tensor>> window;
      absl::Status status;
      for (int64_t i = 0; i * d.stride_ < n; ++i) {
        const Buffered& b = buffer_[i * d.stride_];
        if (!b.status.ok()) {
          status = b.status;
          break;
        }
        window.push_back(b.element);
      }
      // Shift: drop what the next window does not start with, reading
      // (and discarding) input beyond the buffer when the shift is longer.
      if (d.shift_ >= n) {
        for (int64_t i = n; in_ != nullptr && i < d.shift_; ++i) {
          DFX_RETURN_IF_ERROR(CheckCancelled(ctx));
          std::vector<Tensor> skipped;
          bool input_end = false;
          absl::Status s = in_->GetNext(ctx, &skipped, &input_end);
          if (absl::IsCancelled(s)) return s;
          if (s.ok() && input_end) in_.reset();
        }
        buffer_.clear();
        held_ = 0;
      } else {
        for (int64_t i = 0; i < d.shift_; ++i) {
          held_ -= ElementBytes(buffer_.front().element);
          buffer_.pop_front();
        }
      }
      DFX_RETURN_IF_ERROR(status);
      *end = false;
      const size_t components = d.output_dtypes().size();
      for (size_t c = 0; c < components; ++c) {
        std::vector<std::vector<Tensor>> elements;
        elements.reserve(window.size());
        for (const std::vector<Tensor>& e : window) {
          if (c >= e.size()) {
            return absl::InvalidArgumentError(absl::StrCat(
                d.DebugString(), ": an input element has ", e.size(),
                " components, the dataset ", components));
          }
          elements.push_back({e[c]});
        }
        out->push_back(DatasetTensor(std::make_shared<ElementsDataset>(
            "WindowDataset::Window",
            DataTypeVector{d.input()->output_dtypes()[c]},
            std::move(elements))));
      }
      return absl::OkStatus();
    }

    // The input's position and the buffered elements (with the input
    // error each one holds, raised when it lands in a window).
    absl::Status Save(const std::string& prefix,
                      IteratorState* state) override {
      DFX_RETURN_IF_ERROR(
          SaveInput(*d_->input(), in_.get(), prefix + "/input", state));
      state->WriteInt(prefix, "buffer/count",
                      static_cast<int64_t>(buffer_.size()));
      for (size_t i = 0; i < buffer_.size(); ++i) {
        const std::string at = absl::StrCat(prefix, "/buffer[", i, "]");
        state->WriteElement(at, "element", buffer_[i].element);
        WriteStatus(state, at, "status", buffer_[i].status);
      }
      return absl::OkStatus();
    }
    absl::Status Restore(IteratorContext* ctx, const std::string& prefix,
                         const IteratorState& state) override {
      DFX_RETURN_IF_ERROR(
          RestoreInput(ctx, *d_->input(), &in_, prefix + "/input", state));
      const int64_t target = (d_->size_ - 1) * d_->stride_ + 1;
      DFX_ASSIGN_OR_RETURN(
          int64_t count,
          ReadIntInRange(state, prefix, "buffer/count", 0, target));
      buffer_.clear();
      held_ = 0;
      for (int64_t i = 0; i < count; ++i) {
        const std::string at = absl::StrCat(prefix, "/buffer[", i, "]");
        Buffered b;
        DFX_ASSIGN_OR_RETURN(b.element, state.ReadElement(at, "element"));
        DFX_RETURN_IF_ERROR(ReadStatus(state, at, "status", &b.status));
        held_ += ElementBytes(b.element);
        buffer_.push_back(std::move(b));
      }
      return absl::OkStatus();
    }

   private:
    struct Buffered {
      std::vector<Tensor> element;
      absl::Status status;
    };

    const std::shared_ptr<const WindowDataset> d_;
    std::unique_ptr<IteratorBase> in_;
    std::deque<Buffered> buffer_;
    int64_t held_ = 0;  // ElementBytes of the buffer's elements
  };

  const int64_t size_, shift_, stride_;
  const bool drop_remainder_;
};

class WindowDatasetOp final : public DatasetOpKernel {
 public:
  using DatasetOpKernel::DatasetOpKernel;

 private:
  absl::StatusOr<DatasetPtr> MakeDataset(OpKernelContext* ctx) override {
    DFX_ASSIGN_OR_RETURN(DatasetPtr input, DatasetFromInput(ctx, 0));
    DFX_ASSIGN_OR_RETURN(int64_t size, ScalarInt64Input(ctx, 1, "size"));
    if (size <= 0) {
      return absl::InvalidArgumentError(absl::StrCat(
          "Window size must be greater than zero, but got ", size, "."));
    }
    DFX_ASSIGN_OR_RETURN(int64_t shift, ScalarInt64Input(ctx, 2, "shift"));
    if (shift <= 0) {
      return absl::InvalidArgumentError(absl::StrCat(
          "Window shift must be greater than zero, but got ", shift, "."));
    }
    DFX_ASSIGN_OR_RETURN(int64_t stride, ScalarInt64Input(ctx, 3, "stride"));
    if (stride <= 0) {
      return absl::InvalidArgumentError(absl::StrCat(
          "Window stride must be greater than zero, but got ", stride, "."));
    }
    DFX_ASSIGN_OR_RETURN(bool drop_remainder,
                         ScalarBoolInput(ctx, 4, "drop_remainder"));
    return std::make_shared<WindowDataset>(std::move(input), size, shift,
                                           stride, drop_remainder);
  }
};

// ---------------------------------------------------------------------------
// GroupByWindow: key_func(element) picks each element's group (an int64);
// window_size_func(key), asked once per key, says how many elements fill
// it. A full group goes to reduce_func(key, group as a dataset), whose
// dataset's elements are produced before more input is read; at the input's
// end the groups left are flushed smallest key first.

class GroupByWindowDataset final : public UnaryDataset {
 public:
  GroupByWindowDataset(DatasetPtr input, DataTypeVector dtypes,
                       CapturedFunction key_func, CapturedFunction reduce_func,
                       CapturedFunction window_size_func)
      : UnaryDataset(std::move(input), std::move(dtypes)),
        key_func_(std::move(key_func)),
        reduce_func_(std::move(reduce_func)),
        window_size_func_(std::move(window_size_func)) {}

  int64_t Cardinality() const override {
    return input()->Cardinality() == kInfiniteCardinality
               ? kInfiniteCardinality
               : kUnknownCardinality;
  }
  std::string DebugString() const override {
    return absl::StrCat("GroupByWindowDataset(", reduce_func_.f->name(), ")");
  }
  absl::StatusOr<std::unique_ptr<IteratorBase>> MakeIterator(
      IteratorContext* ctx) const override {
    DFX_ASSIGN_OR_RETURN(auto in, input()->MakeIterator(ctx));
    return std::unique_ptr<IteratorBase>(
        new Iterator(Self<GroupByWindowDataset>(), std::move(in)));
  }

 private:
  class Iterator final : public IteratorBase {
   public:
    Iterator(std::shared_ptr<const GroupByWindowDataset> d,
             std::unique_ptr<IteratorBase> in)
        : d_(std::move(d)), in_(std::move(in)) {}

    absl::Status GetNext(IteratorContext* ctx, std::vector<Tensor>* out,
                         bool* end) override {
      do {
        if (group_ != nullptr) {
          bool group_end = false;
          DFX_RETURN_IF_ERROR(group_->GetNext(ctx, out, &group_end));
          if (!group_end) {
            *end = false;
            return absl::OkStatus();
          }
          group_.reset();
        }
        while (in_ != nullptr) {
          DFX_RETURN_IF_ERROR(CheckCancelled(ctx));
          std::vector<Tensor> element;
          bool input_end = false;
          DFX_RETURN_IF_ERROR(in_->GetNext(ctx, &element, &input_end));
          if (input_end) {
            in_.reset();
            break;
          }
          DFX_ASSIGN_OR_RETURN(std::vector<Tensor> key_out,
                               d_->key_func_.Run(ctx, element));
          if (key_out.size() != 1 || key_out[0].dtype() != DT_INT64 ||
              key_out[0].NumElements() != 1) {
            return absl::InvalidArgumentError(
                "`key_func` must return a scalar int64.");
          }
          const int64_t key = key_out[0].data<int64_t>()[0];
          auto size = window_sizes_.find(key);
          if (size == window_sizes_.end()) {
            DFX_ASSIGN_OR_RETURN(
                std::vector<Tensor> size_out,
                d_->window_size_func_.Run(ctx, {std::move(key_out[0])}));
            if (size_out.size() != 1 || size_out[0].dtype() != DT_INT64 ||
                size_out[0].NumElements() != 1) {
              return absl::InvalidArgumentError(
                  "`window_size_func` must return a scalar int64.");
            }
            const int64_t window_size = size_out[0].data<int64_t>()[0];
            if (window_size <= 0) {
              return absl::InvalidArgumentError(
                  absl::StrCat("Window size must be greater than zero, but "
                               "got ",
                               window_size, "."));
            }
            size = window_sizes_.emplace(key, window_size).first;
          }
          held_ += ElementBytes(element);
          DFX_RETURN_IF_ERROR(CheckHeldElements(held_, d_->DebugString()));
          std::vector<std::vector<Tensor>>& group = groups_[key];
          group.push_back(std::move(element));
          if (static_cast<int64_t>(group.size()) == size->second) {
            DFX_RETURN_IF_ERROR(StartGroup(ctx, key));
            break;
          }
        }
        if (in_ == nullptr && group_ == nullptr && !groups_.empty()) {
          DFX_RETURN_IF_ERROR(StartGroup(ctx, groups_.begin()->first));
        }
      } while (group_ != nullptr || in_ != nullptr);
      *end = true;
      return absl::OkStatus();
    }

    // The input's position, the groups being filled, the window sizes
    // asked so far, and the group being produced: its elements (reduce_func
    // runs again on restore) and its iterator's position.
    absl::Status Save(const std::string& prefix,
                      IteratorState* state) override {
      DFX_RETURN_IF_ERROR(
          SaveInput(*d_->input(), in_.get(), prefix + "/input", state));
      state->WriteInt(prefix, "groups/count",
                      static_cast<int64_t>(groups_.size()));
      int64_t i = 0;
      for (const auto& [key, elements] : groups_) {
        const std::string at = absl::StrCat(prefix, "/groups[", i++, "]");
        state->WriteInt(at, "key", key);
        WriteElements(state, at, "elements", elements);
      }
      std::vector<int64_t> keys, sizes;
      for (const auto& [key, size] : window_sizes_) {
        keys.push_back(key);
        sizes.push_back(size);
      }
      state->WriteTensor(prefix, "window_sizes/keys",
                         Tensor::FromVector<int64_t>(keys));
      state->WriteTensor(prefix, "window_sizes/sizes",
                         Tensor::FromVector<int64_t>(sizes));
      if (group_ != nullptr) {
        const std::string at = prefix + "/group";
        state->WriteInt(at, "key", group_key_);
        WriteElements(state, at, "elements", group_window_->elements());
        DFX_RETURN_IF_ERROR(
            SaveIterator(*group_dataset_, *group_, at + "/iterator", state));
      }
      return absl::OkStatus();
    }
    absl::Status Restore(IteratorContext* ctx, const std::string& prefix,
                         const IteratorState& state) override {
      DFX_RETURN_IF_ERROR(
          RestoreInput(ctx, *d_->input(), &in_, prefix + "/input", state));
      groups_.clear();
      window_sizes_.clear();
      held_ = 0;
      group_.reset();
      DFX_ASSIGN_OR_RETURN(
          int64_t count,
          ReadIntInRange(state, prefix, "groups/count", 0,
                         static_cast<int64_t>(state.entries().size())));
      for (int64_t i = 0; i < count; ++i) {
        const std::string at = absl::StrCat(prefix, "/groups[", i, "]");
        DFX_ASSIGN_OR_RETURN(int64_t key, state.ReadInt(at, "key"));
        DFX_ASSIGN_OR_RETURN(auto elements,
                             ReadElements(state, at, "elements"));
        for (const std::vector<Tensor>& e : elements) held_ += ElementBytes(e);
        groups_[key] = std::move(elements);
      }
      DFX_ASSIGN_OR_RETURN(Tensor keys,
                           state.ReadTensor(prefix, "window_sizes/keys"));
      DFX_ASSIGN_OR_RETURN(Tensor sizes,
                           state.ReadTensor(prefix, "window_sizes/sizes"));
      if (keys.dtype() != DT_INT64 || sizes.dtype() != DT_INT64 ||
          keys.dims() != 1 || sizes.shape() != keys.shape()) {
        return absl::InvalidArgumentError(absl::StrCat(
            "the iterator state's entries ", prefix,
            "/window_sizes/keys and sizes are not int64 vectors of one "
            "length"));
      }
      for (int64_t i = 0; i < keys.NumElements(); ++i) {
        window_sizes_[keys.data<int64_t>()[i]] = sizes.data<int64_t>()[i];
      }
      const std::string at = prefix + "/group";
      if (state.Contains(at, "key")) {
        DFX_ASSIGN_OR_RETURN(int64_t key, state.ReadInt(at, "key"));
        DFX_ASSIGN_OR_RETURN(auto elements,
                             ReadElements(state, at, "elements"));
        DFX_RETURN_IF_ERROR(ReduceGroup(ctx, key, std::move(elements)));
        DFX_RETURN_IF_ERROR(RestoreIterator(*group_dataset_, *group_, ctx,
                                            at + "/iterator", state));
      }
      return absl::OkStatus();
    }

   private:
    // Hands group `key` to reduce_func and starts iterating what it
    // returns.
    absl::Status StartGroup(IteratorContext* ctx, int64_t key) {
      auto it = groups_.find(key);
      for (const std::vector<Tensor>& e : it->second) held_ -= ElementBytes(e);
      std::vector<std::vector<Tensor>> elements = std::move(it->second);
      groups_.erase(it);
      return ReduceGroup(ctx, key, std::move(elements));
    }

    // Runs reduce_func on group `key` of `elements` and starts iterating
    // what it returns.
    absl::Status ReduceGroup(IteratorContext* ctx, int64_t key,
                             std::vector<std::vector<Tensor>> elements) {
      auto window = std::make_shared<ElementsDataset>(
          "GroupByWindowDataset::Group", d_->input()->output_dtypes(),
          std::move(elements));
      group_key_ = key;
      group_window_ = window;
      DFX_ASSIGN_OR_RETURN(
          std::vector<Tensor> reduced,
          d_->reduce_func_.Run(ctx, {Tensor::Scalar<int64_t>(key),
                                     DatasetTensor(std::move(window))}));
      if (reduced.size() != 1 || reduced[0].dtype() != DT_VARIANT ||
          reduced[0].dims() != 0) {
        return absl::InvalidArgumentError(
            "`reduce_func` must return a single scalar of dtype DT_VARIANT.");
      }
      DFX_ASSIGN_OR_RETURN(
          DatasetPtr returned,
          DatasetFromTensor(reduced[0], "what `reduce_func` returned"));
      if (returned->output_dtypes() != d_->output_dtypes()) {
        return CheckOutputTypes(d_->output_dtypes(),
                                returned->output_dtypes(),
                                "the dataset `reduce_func` returned");
      }
      group_dataset_ = returned;
      DFX_ASSIGN_OR_RETURN(group_, returned->MakeIterator(ctx));
      return absl::OkStatus();
    }

    const std::shared_ptr<const GroupByWindowDataset> d_;
    std::unique_ptr<IteratorBase> in_;
    std::unique_ptr<IteratorBase> group_;  // the group being produced
    // While group_ is set: its key, the group reduce_func got (run again on
    // restore) and the dataset it returned.
    int64_t group_key_ = 0;
    std::shared_ptr<const ElementsDataset> group_window_;
    DatasetPtr group_dataset_;
    std::map<int64_t, std::vector<std::vector<Tensor>>> groups_;
    std::map<int64_t, int64_t> window_sizes_;
    int64_t held_ = 0;  // ElementBytes of the groups' elements
  };

  const CapturedFunction key_func_, reduce_func_, window_size_func_;
};

class GroupByWindowDatasetOp final : public DatasetOpKernel {
 public:
  explicit GroupByWindowDatasetOp(OpKernelConstruction* ctx)
      : DatasetOpKernel(ctx) {
    const char* attrs[3][2] = {
        {"key_func", "Tkey_func_other_arguments"},
        {"reduce_func", "Treduce_func_other_arguments"},
        {"window_size_func", "Twindow_size_func_other_arguments"}};
    for (int i = 0; i < 3 && ctx->status().ok(); ++i) {
      DataTypeVector captured;
      ctx->SetStatus(ctx->GetAttr(attrs[i][1], &captured));
      num_captured_[i] = static_cast<int>(captured.size());
      if (!ctx->status().ok()) return;
      absl::StatusOr<std::shared_ptr<const DatasetFunction>> f =
          DatasetFunction::Create(ctx, attrs[i][0]);
      if (!f.ok()) {
        ctx->SetStatus(f.status());
        return;
      }
      f_[i] = *std::move(f);
    }
  }

 private:
  absl::StatusOr<DatasetPtr> MakeDataset(OpKernelContext* ctx) override {
    DFX_ASSIGN_OR_RETURN(DatasetPtr input, DatasetFromInput(ctx, 0));
    CapturedFunction funcs[3];
    int next = 1;
    for (int i = 0; i < 3; ++i) {
      funcs[i].f = f_[i];
      for (int k = 0; k < num_captured_[i] && next < ctx->num_inputs(); ++k) {
        funcs[i].captured.push_back(ctx->input(next++));
      }
    }
    return std::make_shared<GroupByWindowDataset>(
        std::move(input), output_types(), std::move(funcs[0]),
        std::move(funcs[1]), std::move(funcs[2]));
  }

  std::shared_ptr<const DatasetFunction> f_[3];
  int num_captured_[3] = {0, 0, 0};
};

// ---------------------------------------------------------------------------
// Rebatching: tf.distribute's split of a global batch into per-replica
// batches.

// Rows [start, end) of `t` (dims() >= 1) as a tensor of its own shape.
Tensor RowsOf(const Tensor& t, int64_t start, int64_t end) {
  if (DataTypeCanMemcpy(t.dtype())) return t.Slice(start, end);
  TensorShape shape = t.shape();
  shape.set_dim(0, end - start);
  Tensor out(t.dtype(), shape);
  const int64_t row = t.dim_size(0) == 0 ? 0 : t.NumElements() / t.dim_size(0);
  data_flow::CopyElements(t, start * row, &out, 0, (end - start) * row);
  return out;
}

// RebatchDatasetV2: batches of batch_sizes[0], batch_sizes[1], ... (then
// around again), cut from the input's batches and joined across them.
class RebatchDatasetV2 final : public UnaryDataset {
 public:
  RebatchDatasetV2(DatasetPtr input, std::vector<int64_t> batch_sizes,
                   bool drop_remainder,
                   std::vector<std::vector<int64_t>> shapes)
      : UnaryDataset(input, input->output_dtypes()),
        batch_sizes_(std::move(batch_sizes)),
        drop_remainder_(drop_remainder),
        shapes_(std::move(shapes)) {}

  int64_t Cardinality() const override {
    return input()->Cardinality() == kInfiniteCardinality
               ? kInfiniteCardinality
               : kUnknownCardinality;
  }
  std::string DebugString() const override {
    return absl::StrCat("RebatchDatasetV2(", batch_sizes_.size(), " sizes)");
  }
  absl::StatusOr<std::unique_ptr<IteratorBase>> MakeIterator(
      IteratorContext* ctx) const override {
    DFX_ASSIGN_OR_RETURN(auto in, input()->MakeIterator(ctx));
    return std::unique_ptr<IteratorBase>(
        new Iterator(Self<RebatchDatasetV2>(), std::move(in)));
  }

 private:
  class Iterator final : public IteratorBase {
   public:
    Iterator(std::shared_ptr<const RebatchDatasetV2> d,
             std::unique_ptr<IteratorBase> in)
        : d_(std::move(d)), in_(std::move(in)) {}

    absl::Status GetNext(IteratorContext* ctx, std::vector<Tensor>* out,
                         bool* end) override {
      if (in_ == nullptr) {
        *end = true;
        return absl::OkStatus();
      }
      const int64_t want = d_->batch_sizes_[next_size_];
      int64_t have = 0;
      std::vector<std::vector<Tensor>> pieces;
      while (have < want) {
        if (offset_ < 0) {
          current_.clear();
          bool input_end = false;
          DFX_RETURN_IF_ERROR(in_->GetNext(ctx, &current_, &input_end));
          if (input_end) {
            in_.reset();
            break;
          }
          DFX_RETURN_IF_ERROR(Validate());
          offset_ = 0;
        }
        const int64_t rows = current_[0].dim_size(0);
        const int64_t stop = std::min(offset_ + want - have, rows);
        std::vector<Tensor> piece;
        for (const Tensor& t : current_) piece.push_back(RowsOf(t, offset_, stop));
        pieces.push_back(std::move(piece));
        have += stop - offset_;
        offset_ = stop == rows ? -1 : stop;
      }
      next_size_ = (next_size_ + 1) % d_->batch_sizes_.size();
      if ((have == 0 && want > 0) || (d_->drop_remainder_ && have < want)) {
        in_.reset();
        *end = true;
        return absl::OkStatus();
      }
      *end = false;
      const size_t components = d_->output_dtypes().size();
      if (want == 0) {
        // An empty batch (a replica that gets none): each component's
        // declared shape with 0 for the batch and any unknown dimension.
        for (size_t c = 0; c < components; ++c) {
          std::vector<int64_t> dims = d_->shapes_[c];
          if (dims.empty()) dims.push_back(0);
          dims[0] = 0;
          for (int64_t& n : dims) n = std::max<int64_t>(n, 0);
          DFX_ASSIGN_OR_RETURN(TensorShape shape, TensorShape::Build(dims));
          out->push_back(Tensor(d_->output_dtypes()[c], shape));
        }
        return absl::OkStatus();
      }
      if (pieces.size() == 1) {
        *out = std::move(pieces[0]);
        return absl::OkStatus();
      }
      for (size_t c = 0; c < components; ++c) {
        TensorShape shape = pieces[0][c].shape();
        shape.set_dim(0, have);
        Tensor joined(d_->output_dtypes()[c], shape);
        int64_t at = 0;
        for (const std::vector<Tensor>& p : pieces) {
          const Tensor& t = p[c];
          TensorShape want_shape = shape;
          want_shape.set_dim(0, t.dim_size(0));
          if (t.shape() != want_shape) {
            return absl::InvalidArgumentError(absl::StrCat(
                "Cannot rebatch: the batches of component ", c,
                " have different shapes: ", pieces[0][c].shape().DebugString(),
                " and ", t.shape().DebugString()));
          }
          data_flow::CopyElements(t, 0, &joined, at, t.NumElements());
          at += t.NumElements();
        }
        out->push_back(std::move(joined));
      }
      return absl::OkStatus();
    }

    absl::Status Save(const std::string& prefix,
                      IteratorState* state) override {
      DFX_RETURN_IF_ERROR(
          SaveInput(*d_->input(), in_.get(), prefix + "/input", state));
      state->WriteInt(prefix, "next_size", static_cast<int64_t>(next_size_));
      state->WriteInt(prefix, "offset", offset_);
      if (offset_ >= 0) state->WriteElement(prefix, "current", current_);
      return absl::OkStatus();
    }
    absl::Status Restore(IteratorContext* ctx, const std::string& prefix,
                         const IteratorState& state) override {
      DFX_RETURN_IF_ERROR(
          RestoreInput(ctx, *d_->input(), &in_, prefix + "/input", state));
      DFX_ASSIGN_OR_RETURN(
          int64_t next_size,
          ReadIntInRange(state, prefix, "next_size", 0,
                         static_cast<int64_t>(d_->batch_sizes_.size()) - 1));
      next_size_ = static_cast<size_t>(next_size);
      current_.clear();
      DFX_ASSIGN_OR_RETURN(offset_, state.ReadInt(prefix, "offset"));
      if (offset_ < -1) {
        return absl::InvalidArgumentError(absl::StrCat(
            "the iterator state's entry ", prefix, "/offset is ", offset_));
      }
      if (offset_ >= 0) {
        DFX_ASSIGN_OR_RETURN(current_, state.ReadElement(prefix, "current"));
        if (current_.empty() || current_.size() != d_->output_dtypes().size() ||
            !Validate().ok() || offset_ >= current_[0].dim_size(0)) {
          return absl::InvalidArgumentError(
              absl::StrCat("the iterator state's entry ", prefix,
                           "/current is not a batch that holds row ", offset_));
        }
      }
      return absl::OkStatus();
    }

   private:
    absl::Status Validate() const {
      for (size_t i = 0; i < current_.size(); ++i) {
        if (current_[i].dims() == 0) {
          return absl::InvalidArgumentError(
              "Input element must have a non-scalar value in each "
              "component.");
        }
        if (current_[i].dim_size(0) != current_[0].dim_size(0)) {
          return absl::InvalidArgumentError(absl::StrCat(
              "Input element must have the same batch size in each "
              "component. Component 0 had size ",
              current_[0].dim_size(0), " but component ", i, " had size, ",
              current_[i].dim_size(0), "."));
        }
      }
      return absl::OkStatus();
    }

    const std::shared_ptr<const RebatchDatasetV2> d_;
    std::unique_ptr<IteratorBase> in_;
    std::vector<Tensor> current_;  // the input batch being cut
    int64_t offset_ = -1;          // its next row; -1: read another
    size_t next_size_ = 0;         // index into batch_sizes_
  };

  const std::vector<int64_t> batch_sizes_;
  const bool drop_remainder_;
  // Each component's declared shape (-1: unknown), for empty batches.
  const std::vector<std::vector<int64_t>> shapes_;
};

// The output_shapes attr as dims (-1 unknown; an unknown rank as no dims).
std::vector<std::vector<int64_t>> DeclaredShapes(const NodeDef& def) {
  std::vector<std::vector<int64_t>> out;
  const AttrValue* shapes = FindNodeAttr(def, "output_shapes");
  if (shapes == nullptr) return out;
  for (const TensorShapeProto& s : shapes->list().shape()) {
    std::vector<int64_t> dims;
    if (!s.unknown_rank()) {
      for (const auto& d : s.dim()) dims.push_back(d.size());
    }
    out.push_back(std::move(dims));
  }
  return out;
}

class RebatchDatasetV2Op final : public DatasetOpKernel {
 public:
  explicit RebatchDatasetV2Op(OpKernelConstruction* ctx)
      : DatasetOpKernel(ctx), shapes_(DeclaredShapes(ctx->def())) {}

 private:
  absl::StatusOr<DatasetPtr> MakeDataset(OpKernelContext* ctx) override {
    DFX_ASSIGN_OR_RETURN(DatasetPtr input, DatasetFromInput(ctx, 0));
    const Tensor& sizes = ctx->input(1);
    if (sizes.dims() > 1) {
      return absl::InvalidArgumentError(
          "`batch_sizes` must be a scalar or a vector.");
    }
    if (sizes.dtype() != DT_INT64 || sizes.NumElements() == 0) {
      return absl::InvalidArgumentError(
          "`batch_sizes` must hold at least one int64.");
    }
    std::vector<int64_t> batch_sizes(sizes.data<int64_t>(),
                                     sizes.data<int64_t>() +
                                         sizes.NumElements());
    DFX_ASSIGN_OR_RETURN(bool drop_remainder,
                         ScalarBoolInput(ctx, 2, "drop_remainder"));
    std::vector<std::vector<int64_t>> shapes = shapes_;
    shapes.resize(input->output_dtypes().size());
    return std::make_shared<RebatchDatasetV2>(std::move(input),
                                              std::move(batch_sizes),
                                              drop_remainder,
                                              std::move(shapes));
  }

  const std::vector<std::vector<int64_t>> shapes_;
};

// RebatchDataset (the first form): each input batch split into
// num_replicas pieces of ceil(batch / num_replicas) rows, each component
// on its own; the pieces past a small batch's end are empty.
class RebatchDatasetV1 final : public UnaryDataset {
 public:
  RebatchDatasetV1(DatasetPtr input, int64_t num_replicas)
      : UnaryDataset(input, input->output_dtypes()),
        num_replicas_(num_replicas) {}

  int64_t Cardinality() const override {
    const int64_t n = input()->Cardinality();
    return n < 0 ? n : n * num_replicas_;
  }
  std::string DebugString() const override {
    return absl::StrCat("RebatchDataset(", num_replicas_, ")");
  }
  absl::StatusOr<std::unique_ptr<IteratorBase>> MakeIterator(
      IteratorContext* ctx) const override {
    DFX_ASSIGN_OR_RETURN(auto in, input()->MakeIterator(ctx));
    return std::unique_ptr<IteratorBase>(
        new Iterator(Self<RebatchDatasetV1>(), std::move(in)));
  }

 private:
  class Iterator final : public IteratorBase {
   public:
    Iterator(std::shared_ptr<const RebatchDatasetV1> d,
             std::unique_ptr<IteratorBase> in)
        : d_(std::move(d)), in_(std::move(in)) {}

    absl::Status GetNext(IteratorContext* ctx, std::vector<Tensor>* out,
                         bool* end) override {
      if (slice_ == 0) {
        current_.clear();
        DFX_RETURN_IF_ERROR(in_->GetNext(ctx, &current_, end));
        if (*end) return absl::OkStatus();
        for (size_t i = 0; i < current_.size(); ++i) {
          if (current_[i].dims() == 0) {
            return absl::InvalidArgumentError(absl::StrCat(
                "Cannot rebatch dataset: All components must have at least "
                "one dimension. Perhaps your input dataset is not batched? "
                "Component ",
                i, " is scalar."));
          }
        }
      }
      *end = false;
      for (const Tensor& t : current_) {
        const int64_t rows = t.dim_size(0);
        const int64_t interval =
            (rows + d_->num_replicas_ - 1) / d_->num_replicas_;
        const int64_t stop = std::min(interval * (slice_ + 1), rows);
        const int64_t start = std::min(interval * slice_, stop);
        out->push_back(RowsOf(t, start, stop));
      }
      slice_ = (slice_ + 1) % d_->num_replicas_;
      return absl::OkStatus();
    }

    absl::Status Save(const std::string& prefix,
                      IteratorState* state) override {
      DFX_RETURN_IF_ERROR(
          SaveIterator(*d_->input(), *in_, prefix + "/input", state));
      state->WriteInt(prefix, "slice", slice_);
      if (slice_ > 0) state->WriteElement(prefix, "current", current_);
      return absl::OkStatus();
    }
    absl::Status Restore(IteratorContext* ctx, const std::string& prefix,
                         const IteratorState& state) override {
      DFX_RETURN_IF_ERROR(
          RestoreIterator(*d_->input(), *in_, ctx, prefix + "/input", state));
      DFX_ASSIGN_OR_RETURN(slice_, ReadIntInRange(state, prefix, "slice", 0,
                                                  d_->num_replicas_ - 1));
      current_.clear();
      if (slice_ > 0) {
        DFX_ASSIGN_OR_RETURN(current_, state.ReadElement(prefix, "current"));
        for (const Tensor& t : current_) {
          if (t.dims() == 0) {
            return absl::InvalidArgumentError(
                absl::StrCat("the iterator state's entry ", prefix,
                             "/current has a scalar component"));
          }
        }
      }
      return absl::OkStatus();
    }

   private:
    const std::shared_ptr<const RebatchDatasetV1> d_;
    std::unique_ptr<IteratorBase> in_;
    std::vector<Tensor> current_;
    int64_t slice_ = 0;  // the piece of current_ to produce next
  };

  const int64_t num_replicas_;
};

class RebatchDatasetOp final : public DatasetOpKernel {
 public:
  using DatasetOpKernel::DatasetOpKernel;

 private:
  absl::StatusOr<DatasetPtr> MakeDataset(OpKernelContext* ctx) override {
    DFX_ASSIGN_OR_RETURN(DatasetPtr input, DatasetFromInput(ctx, 0));
    DFX_ASSIGN_OR_RETURN(int64_t num_replicas,
                         ScalarInt64Input(ctx, 1, "num_replicas"));
    if (num_replicas <= 0) {
      return absl::InvalidArgumentError(
          "num_replicas must be greater than zero.");
    }
    return std::make_shared<RebatchDatasetV1>(std::move(input), num_replicas);
  }
};

}  // namespace

void RegisterWindowKernels(KernelRegistry* registry) {
  RegisterKernel<WindowDatasetOp>(registry, KernelDefBuilder("WindowDataset"));
  for (const char* op :
       {"GroupByWindowDataset", "ExperimentalGroupByWindowDataset"}) {
    RegisterKernel<GroupByWindowDatasetOp>(registry, KernelDefBuilder(op));
  }
  RegisterKernel<RebatchDatasetV2Op>(registry,
                                     KernelDefBuilder("RebatchDatasetV2"));
  for (const char* op : {"RebatchDataset", "ExperimentalRebatchDataset"}) {
    RegisterKernel<RebatchDatasetOp>(registry, KernelDefBuilder(op));
  }
}

}  // namespace dfx::data
