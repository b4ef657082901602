// Batcher: the shared resource behind BatchFunction and Batch, gathering
// the requests of concurrent steps into batches and running each batch once
// on a thread of its own.
//
// A request (one call of a batching kernel) enters one of the batcher's
// queues (attr batching_queue) as one task, or as several when it is split
// across batches (enable_large_batch_splitting). A queue's open batch closes
// when it is full (max_batch_size rows, or the last allowed batch size when
// splitting), when a task does not fit in what is left of it, or
// batch_timeout_micros after its first task came. Closed batches run on the
// process's batch threads, at most num_batch_threads of one batcher at once;
// a batch's runner gets the tasks and the request they belong to, and each
// request ends (its kernel's done callback runs) when all its tasks are
// over. No thread waits while a batch fills.
//
// A request whose step is cancelled leaves the batches that have not
// started, and ends Cancelled; the others still run. When the batcher goes
// (its resource manager drops it), the requests still waiting end Cancelled.
// Callbacks run on the thread that closed or ran the batch, the timer's
// thread hands them to the batch threads, or the cancelling thread.
#ifndef DFX_KERNELS_BATCHING_BATCHER_H_
#define DFX_KERNELS_BATCHING_BATCHER_H_

#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/synchronization/mutex.h"
#include "runtime/cancellation.h"
#include "runtime/op_kernel.h"
#include "runtime/resource_mgr.h"
#include "runtime/tensor.h"

namespace dfx::data {
class DatasetFunction;
}

namespace dfx::batching {

// The attrs that shape batches.
struct BatchOptions {
  int64_t num_batch_threads = 1;
  int64_t max_batch_size = 1;
  int64_t batch_timeout_micros = 0;
  int64_t max_enqueued_batches = 10;
  std::vector<int64_t> allowed_batch_sizes;
  bool enable_large_batch_splitting = false;

  // Reads the attrs; InvalidArgument for values TensorFlow refuses.
  absl::Status Read(OpKernelConstruction* c);
  // How many rows a batch holds when it runs.
  int64_t max_execution_batch_size() const {
    return enable_large_batch_splitting && !allowed_batch_sizes.empty()
               ? allowed_batch_sizes.back()
               : max_batch_size;
  }
};

// One call of a batching kernel. Its kernel context stays valid until
// `done` runs.
struct Request {
  OpKernelContext* ctx = nullptr;
  AsyncOpKernel::DoneCallback done;
  // The request's own inputs, whole (before any split), and the captured
  // tensors a BatchFunction passes unbatched.
  std::vector<Tensor> inputs;
  std::vector<Tensor> captured;
  int64_t rows = 0;
  // Batch's id output for this request.
  int64_t id = 0;
  // BatchFunction's function, of the request's own kernel, and its device.
  std::shared_ptr<const data::DatasetFunction> f;
  Device* device = nullptr;
  CancellationManager* cm = nullptr;
  CancellationToken token = -1;

  absl::Mutex mu;
  int remaining ABSL_GUARDED_BY(mu) = 0;
  absl::Status status ABSL_GUARDED_BY(mu);
  // Per part, the part's outputs (BatchFunction's results for its rows).
  std::vector<std::vector<Tensor>> part_outputs ABSL_GUARDED_BY(mu);
};

// A request's rows [start, start + rows) in one batch.
struct Task {
  std::shared_ptr<Request> request;
  int part = 0;
  int64_t start = 0;
  int64_t rows = 0;
  // The inputs' rows of this part.
  std::vector<Tensor> inputs;
};

struct Batch {
  std::vector<Task> tasks;
  int64_t rows = 0;
};

// Ends part `part` of a request with `status` and, when OK, the part's
// outputs; the last part to end finishes the request: its outputs (the
// parts' concatenated along dim 0 when there are several, unless the
// request set them itself), its status, then its done callback.
void FinishPart(const std::shared_ptr<Request>& request, int part,
                absl::Status status, std::vector<Tensor> outputs);

// Thread-safe.
class Batcher : public ResourceBase,
                public std::enable_shared_from_this<Batcher> {
 public:
  static constexpr const char* kTypeName = "BatchResource";
  // Runs a closed batch on a batch thread; must end every task of it
  // through FinishPart.
  using Runner = std::function<void(Batch)>;

  Batcher(BatchOptions options, Runner runner)
      : options_(std::move(options)), runner_(std::move(runner)) {}
  ~Batcher() override;

  std::string TypeName() const override { return kTypeName; }
  std::string DebugString() const override { return "Batcher"; }
  const BatchOptions& options() const { return options_; }

  // Queues `request` (its inputs, rows, ctx and done set) in queue `queue`.
  // Ends it at once (through its done) with InvalidArgument when it has
  // more rows than max_batch_size, Unavailable when the queue holds
  // max_enqueued_batches batches already, Cancelled when its step is.
  void Submit(const std::string& queue, std::shared_ptr<Request> request);

 private:
  struct Queue {
    Batch open;
    uint64_t open_id = 0;
    uint64_t timer = 0;
    std::deque<Batch> ready;
    int running = 0;
  };

  void CloseOpenLocked(Queue* q) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Moves the batches that may start now to `start`.
  void TakeStartableLocked(Queue* q, std::vector<Batch>* start)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  void StartBatches(const std::string& queue, std::vector<Batch> batches);
  void OnTimeout(const std::string& queue, uint64_t open_id);
  void Cancel(const std::shared_ptr<Request>& request);

  const BatchOptions options_;
  const Runner runner_;
  absl::Mutex mu_;
  std::map<std::string, Queue> queues_ ABSL_GUARDED_BY(mu_);
  uint64_t next_batch_id_ ABSL_GUARDED_BY(mu_) = 1;
};

// Runs `fn` on one of the process's batch threads, later: for callbacks
// that must not run where a resource goes away (under its manager's lock).
void RunOnBatchThread(std::function<void()> fn);

// Rows [start, start + rows) of `t` (dims() >= 1): shares t's buffer for
// fixed-size types, a copy for the others.
Tensor RowsOf(const Tensor& t, int64_t start, int64_t rows);

// `parts` concatenated along dim 0 (each of rank >= 1, equal in the other
// dims), followed by `pad` copies of the first part's first row.
// InvalidArgument when the shapes do not match.
absl::StatusOr<Tensor> ConcatRows(const std::vector<Tensor>& parts,
                                  int64_t pad);

}  // namespace dfx::batching

#endif  // DFX_KERNELS_BATCHING_BATCHER_H_
