#include "kernels/batching/batcher.h"

#include <algorithm>
#include <thread>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/time/time.h"
#include "base/status_macros.h"
#include "graph/types.h"
#include "kernels/list/list_util.h"
#include "runtime/allocator.h"
#include "runtime/thread_pool.h"
#include "runtime/timer.h"

namespace dfx::batching {
namespace {

// The threads batches run on, for the process. A batcher's
// num_batch_threads limits how many of its batches run at once; the
// threads themselves are shared, so a batcher that goes away joins none.
ThreadPool& BatchThreads() {
  static ThreadPool* pool = new ThreadPool(
      "batch", static_cast<int>(std::max(
                   4u, std::min(16u, std::thread::hardware_concurrency()))));
  return *pool;
}

// The timer of batch_timeout_micros, for the process.
Timer& BatchTimer() {
  static Timer* timer = new Timer();
  return *timer;
}

}  // namespace

void RunOnBatchThread(std::function<void()> fn) {
  BatchThreads().Schedule(std::move(fn));
}

absl::Status BatchOptions::Read(OpKernelConstruction* c) {
  DFX_RETURN_IF_ERROR(c->GetAttr("num_batch_threads", &num_batch_threads));
  DFX_RETURN_IF_ERROR(c->GetAttr("max_batch_size", &max_batch_size));
  DFX_RETURN_IF_ERROR(
      c->GetAttr("batch_timeout_micros", &batch_timeout_micros));
  DFX_RETURN_IF_ERROR(
      c->GetAttr("max_enqueued_batches", &max_enqueued_batches));
  DFX_RETURN_IF_ERROR(c->GetAttr("allowed_batch_sizes", &allowed_batch_sizes));
  if (FindNodeAttr(c->def(), "enable_large_batch_splitting") != nullptr) {
    DFX_RETURN_IF_ERROR(c->GetAttr("enable_large_batch_splitting",
                                   &enable_large_batch_splitting));
  }
  // TensorFlow's checks (BatchFunctionKernel::ValidateAllowedBatchSizes and
  // the batch scheduler's options).
  if (max_batch_size <= 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("max_batch_size must be positive; was ", max_batch_size));
  }
  if (batch_timeout_micros < 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("batch_timeout_micros must be non-negative; was ",
                     batch_timeout_micros));
  }
  int64_t last = 0;
  for (size_t i = 0; i < allowed_batch_sizes.size(); ++i) {
    const int64_t size = allowed_batch_sizes[i];
    if (i > 0 && size <= last) {
      return absl::InvalidArgumentError(
          "allowed_batch_sizes entries must be monotonically increasing");
    }
    if (!enable_large_batch_splitting && i + 1 == allowed_batch_sizes.size() &&
        size != max_batch_size) {
      return absl::InvalidArgumentError(
          "final entry in allowed_batch_sizes must equal max_batch_size when "
          "enable_large_batch_splitting is False");
    }
    last = size;
  }
  if (enable_large_batch_splitting && !allowed_batch_sizes.empty() &&
      allowed_batch_sizes.back() > max_batch_size) {
    return absl::InvalidArgumentError(
        absl::StrCat("the last allowed batch size ", allowed_batch_sizes.back(),
                     " must not exceed max_batch_size ", max_batch_size));
  }
  return absl::OkStatus();
}

Tensor RowsOf(const Tensor& t, int64_t start, int64_t rows) {
  if (DataTypeCanMemcpy(t.dtype())) return t.Slice(start, start + rows);
  TensorShape shape = t.shape();
  shape.set_dim(0, rows);
  Tensor out(t.dtype(), shape);
  const int64_t row_elements =
      t.shape().dim_size(0) == 0 ? 0 : t.NumElements() / t.shape().dim_size(0);
  list_internal::CopyElements(t, start * row_elements, &out, 0,
                              rows * row_elements);
  return out;
}

absl::StatusOr<Tensor> ConcatRows(const std::vector<Tensor>& parts,
                                  int64_t pad) {
  const Tensor& first = parts.front();
  int64_t rows = pad;
  for (const Tensor& p : parts) {
    bool same = p.dims() == first.dims() && p.dims() >= 1;
    for (int d = 1; same && d < p.dims(); ++d) {
      same = p.shape().dim_size(d) == first.shape().dim_size(d);
    }
    if (!same) {
      return absl::InvalidArgumentError(absl::StrCat(
          "Batched tensors must have equal shapes but for dimension 0; got ",
          first.shape().DebugString(), " and ", p.shape().DebugString()));
    }
    rows += p.shape().dim_size(0);
  }
  if (pad > 0 && first.shape().dim_size(0) == 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        "Cannot use an empty tensor with zero rows as padding when batching. "
        "(Input got shape ",
        first.shape().DebugString(), ".)"));
  }
  if (parts.size() == 1 && pad == 0) return first;
  TensorShape shape = first.shape();
  shape.set_dim(0, rows);
  DFX_ASSIGN_OR_RETURN(Tensor out,
                       Tensor::Allocate(CpuAllocator(), first.dtype(), shape));
  const int64_t row_elements = rows == 0 ? 0 : out.NumElements() / rows;
  int64_t at = 0;
  for (const Tensor& p : parts) {
    list_internal::CopyElements(p, 0, &out, at, p.NumElements());
    at += p.NumElements();
  }
  for (int64_t i = 0; i < pad; ++i) {
    list_internal::CopyElements(first, 0, &out, at, row_elements);
    at += row_elements;
  }
  return out;
}

void FinishPart(const std::shared_ptr<Request>& request, int part,
                absl::Status status, std::vector<Tensor> outputs) {
  absl::Status final_status;
  std::vector<std::vector<Tensor>> parts;
  {
    absl::MutexLock lock(&request->mu);
    if (!status.ok()) {
      if (request->status.ok()) request->status = std::move(status);
    } else if (static_cast<size_t>(part) < request->part_outputs.size()) {
      request->part_outputs[part] = std::move(outputs);
    }
    if (--request->remaining > 0) return;
    final_status = request->status;
    parts = std::move(request->part_outputs);
  }
  if (request->cm != nullptr && request->token >= 0) {
    request->cm->DeregisterCallback(request->token);
  }
  OpKernelContext* ctx = request->ctx;
  if (final_status.ok() && parts.size() == 1) {
    for (size_t i = 0; i < parts[0].size(); ++i) {
      ctx->set_output(static_cast<int>(i), std::move(parts[0][i]));
    }
  } else if (final_status.ok() && !parts.empty() && !parts[0].empty()) {
    for (size_t i = 0; i < parts[0].size(); ++i) {
      std::vector<Tensor> pieces;
      for (std::vector<Tensor>& p : parts) pieces.push_back(std::move(p[i]));
      absl::StatusOr<Tensor> whole = ConcatRows(pieces, 0);
      if (!whole.ok()) {
        final_status = whole.status();
        break;
      }
      ctx->set_output(static_cast<int>(i), *std::move(whole));
    }
  }
  if (!final_status.ok()) ctx->SetStatus(std::move(final_status));
  request->done();
}

Batcher::~Batcher() {
  // Nothing waits for a batcher that is gone: its waiting requests end,
  // on a batch thread (the resource manager may hold its lock here).
  std::vector<Task> waiting;
  for (auto& [name, q] : queues_) {
    if (q.timer != 0) BatchTimer().Cancel(q.timer);
    for (Task& t : q.open.tasks) waiting.push_back(std::move(t));
    for (Batch& b : q.ready) {
      for (Task& t : b.tasks) waiting.push_back(std::move(t));
    }
  }
  if (waiting.empty()) return;
  BatchThreads().Schedule([waiting = std::move(waiting)] {
    for (const Task& t : waiting) {
      FinishPart(t.request, t.part,
                 absl::CancelledError(
                     "the batcher resource was deleted while the request "
                     "waited for its batch"),
                 {});
    }
  });
}

void Batcher::Submit(const std::string& queue,
                     std::shared_ptr<Request> request) {
  const int64_t rows = request->rows;
  if (rows > options_.max_batch_size) {
    request->ctx->SetStatus(absl::InvalidArgumentError(absl::StrCat(
        "Task size ", rows, " is larger than maximum input batch size ",
        options_.max_batch_size)));
    request->done();
    return;
  }
  std::vector<Batch> start;
  // Not read from the request's context once the lock is let go: a batch
  // may have ended the request (and its step) by then.
  bool refused = false;
  {
    absl::MutexLock lock(&mu_);
    Queue& q = queues_[queue];
    const int64_t capacity = options_.max_execution_batch_size();
    // The parts: the whole request, or, when splitting, what fits in the
    // open batch, then full batches.
    std::vector<int64_t> sizes;
    int64_t new_batches = 0;
    if (options_.enable_large_batch_splitting) {
      int64_t left = rows;
      const int64_t room = capacity - q.open.rows;
      if (room > 0 && (left > 0 || q.open.rows == 0)) {
        sizes.push_back(std::min(room, left));
        left -= sizes.back();
      }
      while (left > 0) {
        sizes.push_back(std::min(capacity, left));
        left -= sizes.back();
        ++new_batches;
      }
      if (sizes.empty()) sizes.push_back(0);
    } else {
      sizes.push_back(rows);
      if (q.open.rows + rows > capacity && !q.open.tasks.empty()) {
        new_batches = 1;
      }
    }
    const int64_t enqueued =
        static_cast<int64_t>(q.ready.size()) + (q.open.tasks.empty() ? 0 : 1);
    // max_enqueued_batches <= 0 limits nothing: TensorFlow runs such
    // batchers too.
    if (new_batches > 0 && options_.max_enqueued_batches > 0 &&
        enqueued + new_batches > options_.max_enqueued_batches) {
      request->ctx->SetStatus(absl::UnavailableError(
          "The batch scheduling queue to which this task was submitted is "
          "full"));
    } else if (request->cm != nullptr) {
      std::weak_ptr<Batcher> weak = weak_from_this();
      std::weak_ptr<Request> weak_request = request;
      request->token = request->cm->get_cancellation_token();
      if (!request->cm->RegisterCallback(request->token, [weak, weak_request] {
            std::shared_ptr<Batcher> self = weak.lock();
            std::shared_ptr<Request> r = weak_request.lock();
            if (self != nullptr && r != nullptr) self->Cancel(r);
          })) {
        request->token = -1;
        request->ctx->SetStatus(absl::CancelledError(
            "the step was cancelled before its request was batched"));
      }
    }
    refused = !request->ctx->status().ok();
    if (!refused) {
      {
        absl::MutexLock request_lock(&request->mu);
        request->remaining = static_cast<int>(sizes.size());
        request->part_outputs.resize(sizes.size());
      }
      int64_t at = 0;
      for (size_t i = 0; i < sizes.size(); ++i) {
        Task task;
        task.request = request;
        task.part = static_cast<int>(i);
        task.start = at;
        task.rows = sizes[i];
        if (sizes.size() == 1) {
          task.inputs = request->inputs;
        } else {
          for (const Tensor& t : request->inputs) {
            task.inputs.push_back(RowsOf(t, at, sizes[i]));
          }
        }
        at += sizes[i];
        if (q.open.rows + task.rows > capacity && !q.open.tasks.empty()) {
          CloseOpenLocked(&q);
        }
        const bool first = q.open.tasks.empty();
        q.open.rows += task.rows;
        q.open.tasks.push_back(std::move(task));
        if (q.open.rows >= capacity || options_.batch_timeout_micros == 0) {
          CloseOpenLocked(&q);
        } else if (first) {
          q.open_id = next_batch_id_++;
          std::weak_ptr<Batcher> weak = weak_from_this();
          const uint64_t id = q.open_id;
          q.timer = BatchTimer().Schedule(
              absl::Microseconds(options_.batch_timeout_micros),
              [weak, queue, id] {
                // The timer's thread only hands the batch on.
                if (std::shared_ptr<Batcher> self = weak.lock()) {
                  self->OnTimeout(queue, id);
                }
              });
        }
      }
      TakeStartableLocked(&q, &start);
    }
  }
  if (refused) {
    request->done();
    return;
  }
  StartBatches(queue, std::move(start));
}

void Batcher::CloseOpenLocked(Queue* q) {
  if (q->timer != 0) BatchTimer().Cancel(q->timer);
  q->timer = 0;
  q->open_id = 0;
  if (q->open.tasks.empty()) return;
  q->ready.push_back(std::move(q->open));
  q->open = Batch();
}

void Batcher::TakeStartableLocked(Queue* q, std::vector<Batch>* start) {
  const int64_t threads = std::max<int64_t>(1, options_.num_batch_threads);
  while (!q->ready.empty() && q->running < threads) {
    start->push_back(std::move(q->ready.front()));
    q->ready.pop_front();
    ++q->running;
  }
}

void Batcher::StartBatches(const std::string& queue,
                           std::vector<Batch> batches) {
  for (Batch& b : batches) {
    std::shared_ptr<Batcher> self = shared_from_this();
    BatchThreads().Schedule([self, queue, b = std::move(b)]() mutable {
      self->runner_(std::move(b));
      std::vector<Batch> next;
      {
        absl::MutexLock lock(&self->mu_);
        Queue& q = self->queues_[queue];
        --q.running;
        self->TakeStartableLocked(&q, &next);
      }
      self->StartBatches(queue, std::move(next));
    });
  }
}

void Batcher::OnTimeout(const std::string& queue, uint64_t open_id) {
  std::vector<Batch> start;
  {
    absl::MutexLock lock(&mu_);
    Queue& q = queues_[queue];
    if (q.open_id != open_id || q.open.tasks.empty()) return;
    q.timer = 0;  // this callback is the timer's; nothing to cancel
    CloseOpenLocked(&q);
    TakeStartableLocked(&q, &start);
  }
  // Batches run on the batch threads, not the timer's.
  StartBatches(queue, std::move(start));
}

void Batcher::Cancel(const std::shared_ptr<Request>& request) {
  std::vector<Task> removed;
  {
    absl::MutexLock lock(&mu_);
    auto take = [&](Batch* b) {
      auto it = std::stable_partition(
          b->tasks.begin(), b->tasks.end(),
          [&](const Task& t) { return t.request != request; });
      for (auto r = it; r != b->tasks.end(); ++r) {
        b->rows -= r->rows;
        removed.push_back(std::move(*r));
      }
      b->tasks.erase(it, b->tasks.end());
    };
    for (auto& [name, q] : queues_) {
      take(&q.open);
      if (q.open.tasks.empty()) CloseOpenLocked(&q);
      for (Batch& b : q.ready) take(&b);
      q.ready.erase(
          std::remove_if(q.ready.begin(), q.ready.end(),
                         [](const Batch& b) { return b.tasks.empty(); }),
          q.ready.end());
    }
  }
  for (const Task& t : removed) {
    FinishPart(t.request, t.part,
               absl::CancelledError(
                   "the step was cancelled while its request waited for a "
                   "batch"),
               {});
  }
}

}  // namespace dfx::batching
