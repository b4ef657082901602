// PrefetchDataset: a thread per iterator produces up to buffer_size
// elements ahead of the consumer, so an input pipeline runs while the step
// that reads it computes (TensorFlow's prefetch). Elements, errors and the
// end of input reach the consumer in the input's order.
#include <deque>
#include <thread>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "base/status_macros.h"
#include "kernels/data/dataset.h"
#include "kernels/data/stats_aggregator.h"
#include "runtime/cancellation.h"

namespace dfx::data {
namespace {

// TensorFlow's AUTOTUNE (-1): dfx does not tune, it keeps this many.
constexpr int64_t kAutotuneBufferSize = 2;

class PrefetchDataset final : public DatasetBase {
 public:
  PrefetchDataset(DatasetPtr input, int64_t buffer_size)
      : DatasetBase(input->output_dtypes()),
        input_(std::move(input)),
        buffer_size_(buffer_size) {
    set_options(input_->options());
  }

  int64_t Cardinality() const override { return input_->Cardinality(); }
  std::string DebugString() const override {
    return absl::StrCat("PrefetchDataset(", buffer_size_, ")");
  }
  absl::Status Get(IteratorContext* ctx, int64_t index,
                   std::vector<Tensor>* out) const override {
    return input_->Get(ctx, index, out);
  }
  absl::Status RandomAccessCompatible() const override {
    return input_->RandomAccessCompatible();
  }
  absl::StatusOr<std::unique_ptr<IteratorBase>> MakeIterator(
      IteratorContext* ctx) const override {
    DFX_ASSIGN_OR_RETURN(auto in, input_->MakeIterator(ctx));
    if (buffer_size_ == 0) return in;  // prefetch(0): no thread
    return std::unique_ptr<IteratorBase>(
        new Iterator(Self<PrefetchDataset>(), std::move(in)));
  }

 private:
  // One produced item: an element, an error, or the end of input.
  struct Item {
    absl::Status status;
    std::vector<Tensor> element;
    bool end = false;
  };

  class Iterator final : public IteratorBase {
   public:
    Iterator(std::shared_ptr<const PrefetchDataset> d,
             std::unique_ptr<IteratorBase> in)
        : d_(std::move(d)), in_(std::move(in)) {}

    ~Iterator() override {
      {
        absl::MutexLock lock(&mu_);
        stopping_ = true;
        space_.SignalAll();
      }
      producer_cancel_.StartCancel();  // a running map function stops
      if (producer_.joinable()) producer_.join();
    }

    absl::Status GetNext(IteratorContext* ctx, std::vector<Tensor>* out,
                         bool* end) override {
      {
        absl::MutexLock lock(&mu_);
        if (!producer_.joinable()) {
          device_ = ctx->device;
          stats_aggregator_ = ctx->stats_aggregator;
          producing_ = true;
          producer_ = std::thread([this] { Produce(); });
        }
      }
      // The consumer's cancellation (its step ended) wakes the wait.
      bool cancelled = false;
      CancellationManager* cm = ctx->cancellation_manager;
      CancellationToken token = 0;
      if (cm != nullptr) {
        token = cm->get_cancellation_token();
        if (!cm->RegisterCallback(token, [this, &cancelled] {
              absl::MutexLock lock(&mu_);
              cancelled = true;
              ready_.SignalAll();
            })) {
          return absl::CancelledError("the step reading the prefetch ended");
        }
      }
      Item item;
      bool got = false;
      int64_t buffered = 0;  // elements in the buffer, the one taken too
      {
        absl::MutexLock lock(&mu_);
        while (buffer_.empty() && !cancelled) ready_.Wait(&mu_);
        if (!buffer_.empty()) {
          got = true;
          if (buffer_.front().end) {
            item.end = true;  // the end stays in the buffer
          } else {
            buffered = static_cast<int64_t>(buffer_.size()) -
                       (buffer_.back().end ? 1 : 0);
            item = std::move(buffer_.front());
            buffer_.pop_front();
            space_.Signal();
          }
        }
      }
      if (cm != nullptr) cm->DeregisterCallback(token);
      if (!got) {
        return absl::CancelledError("the step reading the prefetch ended");
      }
      *end = item.end;
      if (item.end) return absl::OkStatus();
      if (ctx->stats_aggregator != nullptr) RecordBuffer(ctx, buffered);
      ++consumed_;
      if (!item.status.ok()) return item.status;
      *out = std::move(item.element);
      return absl::OkStatus();
    }

    // As TensorFlow's prefetch under a stats aggregator, for each element
    // taken: the buffer's fill (the element taken counted) over its
    // capacity into the histogram "<node>::buffer_utilization", the fill
    // and the capacity as scalars "<node>::buffer_size" and
    // "<node>::buffer_capacity" (the name of the node that made the
    // dataset).
    void RecordBuffer(IteratorContext* ctx, int64_t buffered) {
      std::shared_ptr<const Node> node = d_->node();
      const std::string name = node != nullptr && node->def != nullptr
                                   ? node->def->name()
                                   : std::string("PrefetchDataset");
      const float capacity = static_cast<float>(Capacity());
      if (capacity <= 0) return;  // prefetch(0): no buffer to describe
      StatsAggregator& stats = *ctx->stats_aggregator;
      stats.AddToHistogram(absl::StrCat(name, "::buffer_utilization"),
                           static_cast<float>(buffered) / capacity, consumed_);
      stats.AddScalar(absl::StrCat(name, "::buffer_size"),
                      static_cast<float>(buffered), consumed_);
      stats.AddScalar(absl::StrCat(name, "::buffer_capacity"), capacity,
                      consumed_);
    }

    // Stops the producer once the element it is making is in the buffer;
    // the next GetNext starts it again. Then saves the buffer and the input.
    // The producer may be blocked in its input (a slow source): the saving
    // step's cancellation ends the wait, and the producer goes on.
    absl::Status Save(const std::string& prefix,
                      IteratorState* state) override {
      bool cancelled = false;
      CancellationManager* cm = state->cancellation_manager();
      CancellationToken token = 0;
      if (cm != nullptr) {
        token = cm->get_cancellation_token();
        if (!cm->RegisterCallback(token, [this, &cancelled] {
              absl::MutexLock lock(&mu_);
              cancelled = true;
              paused_.SignalAll();
            })) {
          return absl::CancelledError(
              "the step saving the prefetch iterator ended");
        }
      }
      bool stopped = false;
      {
        absl::MutexLock lock(&mu_);
        pausing_ = true;
        space_.SignalAll();
        while (producing_ && !cancelled) paused_.Wait(&mu_);
        stopped = !producing_;
        if (!stopped) pausing_ = false;  // cancelled: the producer goes on
      }
      if (cm != nullptr) cm->DeregisterCallback(token);
      if (!stopped) {
        return absl::CancelledError(
            "the step saving the prefetch iterator ended while its producer "
            "was still reading its input");
      }
      if (producer_.joinable()) producer_.join();  // it has returned
      absl::MutexLock lock(&mu_);
      pausing_ = false;
      producer_ = std::thread();
      state->WriteInt(prefix, "buffer_size",
                      static_cast<int64_t>(buffer_.size()));
      for (size_t i = 0; i < buffer_.size(); ++i) {
        const Item& item = buffer_[i];
        const std::string key = absl::StrCat(prefix, "/buffer[", i, "]");
        state->WriteInt(key, "end", item.end);
        state->WriteInt(key, "code", static_cast<int64_t>(item.status.code()));
        state->WriteString(key, "message", std::string(item.status.message()));
        state->WriteElement(key, "element", item.element);
      }
      return SaveIterator(*d_->input_, *in_, prefix + "/input", state);
    }

    absl::Status Restore(IteratorContext* ctx, const std::string& prefix,
                         const IteratorState& state) override {
      DFX_ASSIGN_OR_RETURN(int64_t n, state.ReadInt(prefix, "buffer_size"));
      std::deque<Item> items;
      for (int64_t i = 0; i < n; ++i) {
        const std::string key = absl::StrCat(prefix, "/buffer[", i, "]");
        Item item;
        DFX_ASSIGN_OR_RETURN(int64_t end, state.ReadInt(key, "end"));
        DFX_ASSIGN_OR_RETURN(int64_t code, state.ReadInt(key, "code"));
        DFX_ASSIGN_OR_RETURN(std::string message,
                             state.ReadString(key, "message"));
        DFX_ASSIGN_OR_RETURN(item.element, state.ReadElement(key, "element"));
        item.end = end != 0;
        if (code < 0 || code > 16) {
          return absl::InvalidArgumentError(
              "the prefetch iterator's saved state is malformed");
        }
        item.status =
            absl::Status(static_cast<absl::StatusCode>(code), message);
        items.push_back(std::move(item));
      }
      DFX_RETURN_IF_ERROR(
          RestoreIterator(*d_->input_, *in_, ctx, prefix + "/input", state));
      absl::MutexLock lock(&mu_);
      buffer_ = std::move(items);
      return absl::OkStatus();
    }

   private:
    int64_t Capacity() const {
      return d_->buffer_size_ < 0 ? kAutotuneBufferSize : d_->buffer_size_;
    }

    void Produce() {
      ProduceLoop();
      absl::MutexLock lock(&mu_);
      producing_ = false;
      paused_.SignalAll();
    }

    void ProduceLoop() {
      IteratorContext ctx;
      {
        absl::MutexLock lock(&mu_);
        ctx.device = device_;
        ctx.stats_aggregator = stats_aggregator_;
      }
      ctx.cancellation_manager = &producer_cancel_;
      while (true) {
        {
          absl::MutexLock lock(&mu_);
          while (!stopping_ && !pausing_ &&
                 static_cast<int64_t>(buffer_.size()) >= Capacity()) {
            space_.Wait(&mu_);
          }
          if (stopping_ || pausing_) return;
        }
        Item item;
        item.status = in_->GetNext(&ctx, &item.element, &item.end);
        absl::MutexLock lock(&mu_);
        if (stopping_) return;
        const bool last = item.end;
        buffer_.push_back(std::move(item));
        ready_.SignalAll();
        if (last) return;
      }
    }

    const std::shared_ptr<const PrefetchDataset> d_;
    const std::unique_ptr<IteratorBase> in_;  // used by the producer only
    CancellationManager producer_cancel_;
    std::thread producer_;
    absl::Mutex mu_;
    absl::CondVar ready_;  // an item was added (or the consumer cancelled)
    absl::CondVar space_;  // an item was taken (or stopping)
    absl::CondVar paused_;  // the producer returned (or Save cancelled)
    Device* device_ ABSL_GUARDED_BY(mu_) = nullptr;
    // The first GetNext's (TensorFlow's background thread keeps the
    // context it started with).
    std::shared_ptr<StatsAggregator> stats_aggregator_ ABSL_GUARDED_BY(mu_);
    std::deque<Item> buffer_ ABSL_GUARDED_BY(mu_);
    int64_t consumed_ = 0;  // elements taken (the consumer's; for stats)
    bool stopping_ ABSL_GUARDED_BY(mu_) = false;
    bool pausing_ ABSL_GUARDED_BY(mu_) = false;  // Save stops the producer
    bool producing_ ABSL_GUARDED_BY(mu_) = false;  // Produce has not returned
  };

  const DatasetPtr input_;
  const int64_t buffer_size_;
};

class PrefetchDatasetOp final : public DatasetOpKernel {
 public:
  using DatasetOpKernel::DatasetOpKernel;

 private:
  absl::StatusOr<DatasetPtr> MakeDataset(OpKernelContext* ctx) override {
    DFX_ASSIGN_OR_RETURN(DatasetPtr input, DatasetFromInput(ctx, 0));
    DFX_ASSIGN_OR_RETURN(int64_t buffer_size,
                         ScalarInt64Input(ctx, 1, "buffer_size"));
    if (buffer_size < -1) {
      return absl::InvalidArgumentError(
          "buffer_size must be >= 0 or set buffer_size to be AUTOTUNE.");
    }
    return std::make_shared<PrefetchDataset>(std::move(input), buffer_size);
  }
};

}  // namespace

void RegisterPrefetchKernels(KernelRegistry* registry) {
  RegisterKernel<PrefetchDatasetOp>(registry,
                                    KernelDefBuilder("PrefetchDataset"));
}

}  // namespace dfx::data
