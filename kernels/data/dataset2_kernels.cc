// tf.data transformations added beside the older ones: SleepDataset and
// SlidingWindowDataset (with their Experimental* names).
#include <cstdint>
#include <deque>
#include <memory>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "base/status_macros.h"
#include "kernels/data/dataset.h"
#include "kernels/data/element_util.h"

namespace dfx::data {
namespace {

// ---------------------------------------------------------------------------
// SleepDataset: the input's elements, each after a pause (testing aid in
// TensorFlow).

class SleepDataset final : public UnaryDataset {
 public:
  SleepDataset(DatasetPtr input, int64_t micros)
      : UnaryDataset(input, input->output_dtypes()), micros_(micros) {}

  int64_t Cardinality() const override { return input()->Cardinality(); }
  std::string DebugString() const override {
    return absl::StrCat("SleepDataset(", micros_, ")");
  }
  absl::StatusOr<std::unique_ptr<IteratorBase>> MakeIterator(
      IteratorContext* ctx) const override {
    DFX_ASSIGN_OR_RETURN(auto in, input()->MakeIterator(ctx));
    return std::unique_ptr<IteratorBase>(
        new Iterator(micros_, input(), std::move(in)));
  }

 private:
  class Iterator final : public IteratorBase {
   public:
    Iterator(int64_t micros, DatasetPtr input, std::unique_ptr<IteratorBase> in)
        : micros_(micros), input_(std::move(input)), in_(std::move(in)) {}
    absl::Status GetNext(IteratorContext* ctx, std::vector<Tensor>* out,
                         bool* end) override {
      absl::SleepFor(absl::Microseconds(micros_));
      return in_->GetNext(ctx, out, end);
    }
    absl::Status Save(const std::string& prefix,
                      IteratorState* state) override {
      return SaveIterator(*input_, *in_, prefix + "/input", state);
    }
    absl::Status Restore(IteratorContext* ctx, const std::string& prefix,
                         const IteratorState& state) override {
      return RestoreIterator(*input_, *in_, ctx, prefix + "/input", state);
    }

   private:
    const int64_t micros_;
    const DatasetPtr input_;
    std::unique_ptr<IteratorBase> in_;
  };

  const int64_t micros_;
};

class SleepDatasetOp final : public DatasetOpKernel {
 public:
  using DatasetOpKernel::DatasetOpKernel;

 private:
  absl::StatusOr<DatasetPtr> MakeDataset(OpKernelContext* ctx) override {
    DFX_ASSIGN_OR_RETURN(DatasetPtr input, DatasetFromInput(ctx, 0));
    DFX_ASSIGN_OR_RETURN(int64_t micros,
                         ScalarInt64Input(ctx, 1, "sleep_microseconds"));
    if (micros < 0) {
      return absl::InvalidArgumentError("`sleep_microseconds` must be >= 0");
    }
    return std::make_shared<SleepDataset>(std::move(input), micros);
  }
};

// ---------------------------------------------------------------------------
// SlidingWindowDataset: each element stacks window_size input elements,
// window_stride apart; the next window starts window_shift elements later.
// At the end, without drop_remainder, the shorter windows that remain
// (TensorFlow's rule: a window is emitted while its buffer is non-empty).

class SlidingWindowDataset final : public UnaryDataset {
 public:
  SlidingWindowDataset(DatasetPtr input, int64_t size, int64_t shift,
                       int64_t stride, bool drop_remainder)
      : UnaryDataset(input, input->output_dtypes()),
        size_(size),
        shift_(shift),
        stride_(stride),
        drop_remainder_(drop_remainder) {}

  int64_t Cardinality() const override {
    const int64_t n = input()->Cardinality();
    if (n < 0) return n;
    // TensorFlow's count, which ignores the window's span: with
    // drop_remainder it can exceed the windows the iterator gives.
    return drop_remainder_ ? n / shift_ : (n + shift_ - 1) / shift_;
  }
  std::string DebugString() const override {
    return absl::StrCat("SlidingWindowDataset(", size_, ", ", shift_, ", ",
                        stride_, ")");
  }
  absl::StatusOr<std::unique_ptr<IteratorBase>> MakeIterator(
      IteratorContext* ctx) const override {
    DFX_ASSIGN_OR_RETURN(auto in, input()->MakeIterator(ctx));
    return std::unique_ptr<IteratorBase>(
        new Iterator(Self<SlidingWindowDataset>(), std::move(in)));
  }

 private:
  class Iterator final : public IteratorBase {
   public:
    Iterator(std::shared_ptr<const SlidingWindowDataset> d,
             std::unique_ptr<IteratorBase> in)
        : d_(std::move(d)), in_(std::move(in)) {}

    absl::Status GetNext(IteratorContext* ctx, std::vector<Tensor>* out,
                         bool* end) override {
      *end = false;
      const size_t span =
          static_cast<size_t>((d_->size_ - 1) * d_->stride_ + 1);
      // Fill the buffer to one window's span, or to the input's end.
      while (in_ != nullptr && buffer_.size() < span) {
        std::vector<Tensor> element;
        bool in_end = false;
        DFX_RETURN_IF_ERROR(in_->GetNext(ctx, &element, &in_end));
        if (in_end) {
          in_.reset();
        } else {
          buffer_.push_back(std::move(element));
        }
      }
      if (buffer_.empty() || (d_->drop_remainder_ && buffer_.size() < span)) {
        *end = true;
        return absl::OkStatus();
      }
      std::vector<std::vector<Tensor>> window;
      for (size_t i = 0; i < buffer_.size(); i += d_->stride_) {
        window.push_back(buffer_[i]);
      }
      // Move to the next window's start, reading past the buffer when the
      // shift is longer than it.
      const size_t shift = static_cast<size_t>(d_->shift_);
      if (shift >= buffer_.size()) {
        for (size_t i = buffer_.size(); in_ != nullptr && i < shift; ++i) {
          std::vector<Tensor> skipped;
          bool in_end = false;
          DFX_RETURN_IF_ERROR(in_->GetNext(ctx, &skipped, &in_end));
          if (in_end) in_.reset();
        }
        buffer_.clear();
      } else {
        buffer_.erase(buffer_.begin(), buffer_.begin() + shift);
      }
      out->clear();
      Allocator* allocator = ctx->device->GetAllocator();
      for (size_t c = 0; c < window.front().size(); ++c) {
        DFX_ASSIGN_OR_RETURN(Tensor t, StackComponent(allocator, window,
                                                      static_cast<int>(c)));
        out->push_back(std::move(t));
      }
      return absl::OkStatus();
    }

    // TensorFlow 2.21 cannot save this iterator (its save fails with
    // InvalidArgument "Key: buffer_size was not generated using
    // full_name."): dfx refuses with the same code.
    absl::Status Save(const std::string&, IteratorState*) override {
      return absl::InvalidArgumentError(
          "Saving iterators of SlidingWindowDataset is not supported: "
          "TensorFlow 2.21 cannot save them either");
    }

   private:
    const std::shared_ptr<const SlidingWindowDataset> d_;
    std::unique_ptr<IteratorBase> in_;  // Null after the input's end.
    std::deque<std::vector<Tensor>> buffer_;
  };

  const int64_t size_, shift_, stride_;
  const bool drop_remainder_;
};

class SlidingWindowDatasetOp final : public DatasetOpKernel {
 public:
  explicit SlidingWindowDatasetOp(OpKernelConstruction* ctx)
      : DatasetOpKernel(ctx) {
    // ExperimentalSlidingWindowDataset has no drop_remainder: true.
    if (FindNodeAttr(ctx->def(), "drop_remainder") != nullptr) {
      ctx->SetStatus(ctx->GetAttr("drop_remainder", &drop_remainder_));
    }
  }

 private:
  absl::StatusOr<DatasetPtr> MakeDataset(OpKernelContext* ctx) override {
    DFX_ASSIGN_OR_RETURN(DatasetPtr input, DatasetFromInput(ctx, 0));
    DFX_ASSIGN_OR_RETURN(int64_t size, ScalarInt64Input(ctx, 1, "window_size"));
    DFX_ASSIGN_OR_RETURN(int64_t shift,
                         ScalarInt64Input(ctx, 2, "window_shift"));
    DFX_ASSIGN_OR_RETURN(int64_t stride,
                         ScalarInt64Input(ctx, 3, "window_stride"));
    if (size <= 0) {
      return absl::InvalidArgumentError(
          "Window size must be greater than zero.");
    }
    if (shift <= 0) {
      return absl::InvalidArgumentError(
          "Window shift must be greater than zero.");
    }
    if (stride <= 0) {
      // (TensorFlow's text, in its spelling.)
      return absl::InvalidArgumentError(
          "window_stride must be greater than zero.");
    }
    return std::make_shared<SlidingWindowDataset>(std::move(input), size,
                                                  shift, stride,
                                                  drop_remainder_);
  }

  bool drop_remainder_ = true;
};

}  // namespace
}  // namespace dfx::data

namespace dfx {

void RegisterDataset2Kernels(KernelRegistry* registry) {
  using data::SleepDatasetOp;
  using data::SlidingWindowDatasetOp;
  for (const char* op : {"SleepDataset", "ExperimentalSleepDataset"}) {
    RegisterKernel<SleepDatasetOp>(registry, KernelDefBuilder(op));
  }
  for (const char* op :
       {"SlidingWindowDataset", "ExperimentalSlidingWindowDataset"}) {
    RegisterKernel<SlidingWindowDatasetOp>(registry, KernelDefBuilder(op));
  }
}

}  // namespace dfx
