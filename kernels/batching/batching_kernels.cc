// Kernels of the batching family (graph/ops/batching_ops.cc).
//
// BatchFunction and Batch find (or make) their Batcher (batcher.h) in the
// device's resource manager under container and shared_name (a batcher of
// the kernel's own when shared_name is empty; see BatcherRef), so the calls
// of concurrent steps meet there, and queue one request each. A BatchFunction batch concatenates its requests'
// inputs, pads them with the first row up to the next allowed batch size,
// runs `f` once with the last request's captured tensors, and hands each
// request its rows of every output. A Batch batch goes out whole through
// the last request of the batch (with batch_index saying whose rows are
// where); the others get empty tensors, and each its id, which Unbatch and
// UnbatchGrad meet by in their own resources.
//
// Ignored attrs: the low_priority_* attrs, mixed_priority_policy and
// batch_padding_policy (every request is of one priority and pads up), and
// Batch's grad_timeout_micros, which TensorFlow's kernel ignores as well.
#include <map>
#include <random>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "base/status_macros.h"
#include "graph/node_def_util.h"
#include "kernels/batching/batcher.h"
#include "kernels/data/dataset.h"
#include "kernels/data_flow/wait.h"
#include "kernels/kernels.h"
#include "kernels/list/list_util.h"
#include "runtime/resource_mgr.h"

namespace dfx::batching {
namespace {

// container and shared_name, the node's name when empty (Unbatch and
// UnbatchGrad, as TensorFlow's).
absl::Status ReadResourceName(OpKernelConstruction* c, std::string* container,
                              std::string* name) {
  DFX_RETURN_IF_ERROR(c->GetAttr("container", container));
  DFX_RETURN_IF_ERROR(c->GetAttr("shared_name", name));
  if (name->empty()) *name = c->def().name();
  return absl::OkStatus();
}

// The batcher of a BatchFunction or Batch node. With a shared_name, the one
// of that name in the device's resource manager, which every node naming
// it shares, made with the attrs of the first to come. Without one, the
// node's own, made with its kernel and gone with it: TensorFlow names it
// after the node in the resource manager, where the node of another graph
// of the same name (every golden case's "BatchFunction" on one cluster)
// would find it, with that graph's attrs.
class BatcherRef {
 public:
  absl::Status Init(OpKernelConstruction* c, const BatchOptions& options,
                    Batcher::Runner runner) {
    DFX_RETURN_IF_ERROR(c->GetAttr("container", &container_));
    DFX_RETURN_IF_ERROR(c->GetAttr("shared_name", &name_));
    DFX_RETURN_IF_ERROR(c->GetAttr("batching_queue", &queue_));
    options_ = options;
    runner_ = std::move(runner);
    if (name_.empty()) own_ = std::make_shared<Batcher>(options_, runner_);
    return absl::OkStatus();
  }

  absl::StatusOr<std::shared_ptr<Batcher>> Get(OpKernelContext* ctx) const {
    if (own_ != nullptr) return own_;
    return ctx->resource_manager()->LookupOrCreate<Batcher>(
        container_, name_,
        [this] { return std::make_shared<Batcher>(options_, runner_); });
  }

  const std::string& queue() const { return queue_; }

 private:
  std::string container_;
  std::string name_;
  std::string queue_;
  BatchOptions options_;
  Batcher::Runner runner_;
  std::shared_ptr<Batcher> own_;
};

// Queues `request` in its node's batcher; ends it on failure.
void Submit(const BatcherRef& ref, OpKernelContext* ctx,
            std::shared_ptr<Request> request) {
  absl::StatusOr<std::shared_ptr<Batcher>> batcher = ref.Get(ctx);
  if (!batcher.ok()) {
    ctx->SetStatus(batcher.status());
    request->done();
    return;
  }
  (*batcher)->Submit(ref.queue(), std::move(request));
}

// Batch's ids: random, as TensorFlow's, so that ids of batches from
// different processes, or fed to Unbatch by hand, do not meet.
int64_t NewBatchId() {
  static absl::Mutex mu(absl::kConstInit);
  static std::mt19937_64* gen = nullptr;
  absl::MutexLock lock(&mu);
  if (gen == nullptr) gen = new std::mt19937_64(std::random_device()());
  return static_cast<int64_t>((*gen)() >> 1);
}

// The batched inputs of one request: rank >= 1, one dim 0 for all.
absl::Status CheckBatchedInputs(const std::vector<Tensor>& inputs) {
  for (const Tensor& t : inputs) {
    if (t.dims() < 1) {
      return absl::InvalidArgumentError(
          "Batching input tensors must have at least one dimension");
    }
    if (t.shape().dim_size(0) != inputs[0].shape().dim_size(0)) {
      return absl::InvalidArgumentError(
          "Batching input tensors supplied in a given op invocation must "
          "have equal 0th-dimension size");
    }
  }
  return absl::OkStatus();
}

// The smallest allowed batch size that holds `rows`; `rows` when none.
int64_t PaddedSize(const BatchOptions& options, int64_t rows) {
  for (int64_t size : options.allowed_batch_sizes) {
    if (size >= rows) return size;
  }
  return rows;
}

// The batch's inputs, input by input, padded to an allowed batch size.
absl::StatusOr<std::vector<Tensor>> ConcatBatch(const BatchOptions& options,
                                                const Batch& batch,
                                                int64_t* padded) {
  *padded = PaddedSize(options, batch.rows);
  std::vector<Tensor> out;
  const size_t n = batch.tasks.front().inputs.size();
  for (size_t i = 0; i < n; ++i) {
    std::vector<Tensor> pieces;
    for (const Task& t : batch.tasks) pieces.push_back(t.inputs[i]);
    DFX_ASSIGN_OR_RETURN(Tensor whole,
                         ConcatRows(pieces, *padded - batch.rows));
    out.push_back(std::move(whole));
  }
  return out;
}

void FailBatch(const Batch& batch, const absl::Status& status) {
  for (const Task& t : batch.tasks) FinishPart(t.request, t.part, status, {});
}

// Runs one BatchFunction batch (on a batch thread).
void RunFunctionBatch(const BatchOptions& options, Batch batch) {
  int64_t padded = 0;
  absl::StatusOr<std::vector<Tensor>> args =
      ConcatBatch(options, batch, &padded);
  if (!args.ok()) return FailBatch(batch, args.status());
  // The last request's function and captured tensors, as TensorFlow's.
  const Request& last = *batch.tasks.back().request;
  args->insert(args->end(), last.captured.begin(), last.captured.end());
  data::IteratorContext ictx;
  ictx.device = last.device;
  absl::StatusOr<std::vector<Tensor>> results =
      last.f->Run(&ictx, *std::move(args));
  if (!results.ok()) return FailBatch(batch, results.status());
  for (const Tensor& r : *results) {
    if (r.dims() < 1) {
      return FailBatch(batch, absl::FailedPreconditionError(
                                  "Batched output tensor has 0 dimensions"));
    }
    if (r.shape().dim_size(0) != padded) {
      return FailBatch(
          batch,
          absl::FailedPreconditionError(absl::StrCat(
              "Batched output tensor's 0th dimension does not equal the sum "
              "of the 0th dimension sizes of the input tensors. 0th "
              "dimension size: ",
              r.shape().dim_size(0), "; batch size: ", padded)));
    }
  }
  int64_t at = 0;
  for (const Task& t : batch.tasks) {
    std::vector<Tensor> mine;
    for (const Tensor& r : *results) mine.push_back(RowsOf(r, at, t.rows));
    at += t.rows;
    FinishPart(t.request, t.part, absl::OkStatus(), std::move(mine));
  }
}

class BatchFunctionOp : public AsyncOpKernel {
 public:
  explicit BatchFunctionOp(OpKernelConstruction* c) : AsyncOpKernel(c) {
    DataTypeVector tin;
    c->SetStatus(c->GetAttr("Tin", &tin));
    c->SetStatus(c->GetAttr("Tout", &tout_));
    BatchOptions options;
    c->SetStatus(options.Read(c));
    num_batched_ = static_cast<int>(tin.size());
    if (!c->status().ok()) return;
    absl::StatusOr<std::shared_ptr<const data::DatasetFunction>> f =
        data::DatasetFunction::Create(c, "f");
    if (!f.ok()) {
      c->SetStatus(f.status());
      return;
    }
    f_ = *std::move(f);
    c->SetStatus(batcher_.Init(c, options, [options](Batch batch) {
      RunFunctionBatch(options, std::move(batch));
    }));
  }

  void ComputeAsync(OpKernelContext* ctx, DoneCallback done) override {
    auto request = std::make_shared<Request>();
    for (int i = 0; i < num_batched_; ++i) {
      request->inputs.push_back(ctx->input(i));
    }
    for (int i = num_batched_; i < ctx->num_inputs(); ++i) {
      request->captured.push_back(ctx->input(i));
    }
    DFX_OP_REQUIRES_OK_ASYNC(ctx, CheckBatchedInputs(request->inputs), done);
    request->rows = request->inputs[0].shape().dim_size(0);
    if (request->rows == 0) {
      // As TensorFlow: no rows, no batch; every output is empty, [0].
      for (int i = 0; i < ctx->num_outputs(); ++i) {
        ctx->set_output(i, Tensor(tout_[i], TensorShape({0})));
      }
      done();
      return;
    }
    request->ctx = ctx;
    request->done = std::move(done);
    request->cm = ctx->cancellation_manager();
    request->f = f_;
    request->device = ctx->device();
    Submit(batcher_, ctx, std::move(request));
  }

 private:
  int num_batched_ = 0;
  DataTypeVector tout_;
  std::shared_ptr<const data::DatasetFunction> f_;
  BatcherRef batcher_;
};

// Runs one Batch batch: the whole batch to the last request, empty
// tensors to the others.
void RunPlainBatch(const BatchOptions& options, Batch batch) {
  int64_t padded = 0;
  absl::StatusOr<std::vector<Tensor>> whole =
      ConcatBatch(options, batch, &padded);
  if (!whole.ok()) return FailBatch(batch, whole.status());
  const int64_t n = static_cast<int64_t>(batch.tasks.size());
  Tensor index(DT_INT64, TensorShape({n, 3}));
  int64_t* rows = index.data<int64_t>();
  int64_t at = 0;
  for (int64_t i = 0; i < n; ++i) {
    rows[3 * i] = batch.tasks[i].request->id;
    rows[3 * i + 1] = at;
    rows[3 * i + 2] = at + batch.tasks[i].rows;
    at += batch.tasks[i].rows;
  }
  for (int64_t i = 0; i < n; ++i) {
    const Task& t = batch.tasks[i];
    std::vector<Tensor> outputs;
    if (i + 1 == n) {
      outputs = *whole;
      outputs.push_back(index);
    } else {
      for (const Tensor& w : *whole) {
        TensorShape empty = w.shape();
        empty.set_dim(0, 0);
        outputs.emplace_back(w.dtype(), empty);
      }
      outputs.emplace_back(DT_INT64, TensorShape({0, 3}));
    }
    outputs.push_back(Tensor::Scalar<int64_t>(t.request->id));
    FinishPart(t.request, t.part, absl::OkStatus(), std::move(outputs));
  }
}

class BatchOp : public AsyncOpKernel {
 public:
  explicit BatchOp(OpKernelConstruction* c) : AsyncOpKernel(c) {
    BatchOptions options;
    c->SetStatus(options.Read(c));
    if (!c->status().ok()) return;
    c->SetStatus(batcher_.Init(c, options, [options](Batch b) {
      RunPlainBatch(options, std::move(b));
    }));
  }

  void ComputeAsync(OpKernelContext* ctx, DoneCallback done) override {
    auto request = std::make_shared<Request>();
    for (int i = 0; i < ctx->num_inputs(); ++i) {
      request->inputs.push_back(ctx->input(i));
    }
    DFX_OP_REQUIRES_OK_ASYNC(ctx, CheckBatchedInputs(request->inputs), done);
    request->rows = request->inputs[0].shape().dim_size(0);
    request->id = NewBatchId();
    request->ctx = ctx;
    request->done = std::move(done);
    request->cm = ctx->cancellation_manager();
    Submit(batcher_, ctx, std::move(request));
  }

 private:
  BatcherRef batcher_;
};

// ---------------------------------------------------------------------------
// Unbatch and UnbatchGrad: tensors and waiting calls keyed by request id.

// A call waiting in an id-keyed resource.
struct IdWaiter {
  OpKernelContext* ctx = nullptr;
  AsyncOpKernel::DoneCallback done;
  data_flow::WaitEnds ends;
  uint64_t serial = 0;
};

// A finished waiter: its output (when OK), status and callback, run
// without the resource's lock.
struct Finished {
  IdWaiter waiter;
  absl::Status status;
  Tensor output;
};

void RunFinished(std::vector<Finished> finished) {
  for (Finished& f : finished) {
    data_flow::DisarmWait(&f.waiter.ends);
    if (f.status.ok()) {
      f.waiter.ctx->set_output(0, std::move(f.output));
    } else {
      f.waiter.ctx->SetStatus(std::move(f.status));
    }
    f.waiter.done();
  }
}

// Checks a [N, 3] batch_index against a batched tensor of `rows` rows. As
// in TensorFlow, only each row's length (end - start) counts: the requests'
// rows follow one another from row 0 in batch_index's order.
absl::Status CheckBatchIndex(const Tensor& index, int64_t rows) {
  if (index.dims() != 2 || index.shape().dim_size(1) != 3) {
    return absl::InvalidArgumentError(
        absl::StrCat("batch_index must be a matrix with 3 columns; got shape ",
                     index.shape().DebugString()));
  }
  const int64_t* v = index.data<int64_t>();
  int64_t sum = 0;
  for (int64_t i = 0; i < index.shape().dim_size(0); ++i) {
    // TensorFlow's split aborts the process on a negative length.
    if (v[3 * i + 1] > v[3 * i + 2]) {
      return absl::InvalidArgumentError(
          absl::StrCat("batch_index row ", i, " ends (", v[3 * i + 2],
                       ") before it starts (", v[3 * i + 1], ")"));
    }
    sum += v[3 * i + 2] - v[3 * i + 1];
  }
  if (sum > rows) {
    return absl::InvalidArgumentError(
        "Sum of split sizes must not exceed dim0-size of input tensor");
  }
  return absl::OkStatus();
}

absl::StatusOr<int64_t> ReadId(const Tensor& id) {
  if (id.NumElements() != 1) {
    return absl::InvalidArgumentError(absl::StrCat(
        "id must hold one element; got shape ", id.shape().DebugString()));
  }
  return id.data<int64_t>()[0];
}

// Unbatch's resource: rows of batches that arrived for ids whose calls
// have not come yet, and calls waiting for their rows.
class UnbatchResource : public ResourceBase,
                        public std::enable_shared_from_this<UnbatchResource> {
 public:
  static constexpr const char* kTypeName = "UnbatchResource";
  std::string TypeName() const override { return kTypeName; }
  std::string DebugString() const override { return "UnbatchResource"; }

  ~UnbatchResource() override {
    std::vector<Finished> finished;
    for (auto& [id, w] : waiting_) {
      finished.push_back({std::move(w),
                          absl::CancelledError("the Unbatch resource was "
                                               "deleted while a call waited"),
                          Tensor()});
    }
    // Not here: the resource manager may hold its lock.
    if (finished.empty()) return;
    auto shared = std::make_shared<std::vector<Finished>>(std::move(finished));
    RunOnBatchThread([shared] { RunFinished(std::move(*shared)); });
  }

  void Compute(OpKernelContext* ctx, AsyncOpKernel::DoneCallback done,
               int64_t timeout_micros) {
    const Tensor& batched = ctx->input(0);
    const Tensor& index = ctx->input(1);
    absl::StatusOr<int64_t> id = ReadId(ctx->input(2));
    absl::Status s = id.status();
    if (s.ok() && batched.dims() < 1) {
      s = absl::InvalidArgumentError(
          "batched_tensor must have at least one dimension");
    }
    if (s.ok()) s = CheckBatchIndex(index, batched.shape().dim_size(0));
    if (!s.ok()) {
      ctx->SetStatus(std::move(s));
      done();
      return;
    }
    std::vector<Finished> finished;
    Tensor mine;
    bool found = false;
    const absl::Time now = absl::Now();
    {
      absl::MutexLock lock(&mu_);
      // Rows nobody came for within their call's timeout are dropped, as
      // TensorFlow drops them.
      for (auto a = arrived_.begin(); a != arrived_.end();) {
        a = a->second.expires < now ? arrived_.erase(a) : std::next(a);
      }
      const int64_t* v = index.data<int64_t>();
      int64_t at = 0;
      for (int64_t i = 0; i < index.shape().dim_size(0); ++i) {
        const int64_t length = v[3 * i + 2] - v[3 * i + 1];
        Tensor rows = RowsOf(batched, at, length);
        at += length;
        if (v[3 * i] == *id) {
          mine = std::move(rows);
          found = true;
        } else if (auto w = waiting_.find(v[3 * i]); w != waiting_.end()) {
          finished.push_back(
              {std::move(w->second), absl::OkStatus(), std::move(rows)});
          waiting_.erase(w);
        } else {
          arrived_[v[3 * i]] = {std::move(rows),
                                now + absl::Microseconds(timeout_micros)};
        }
      }
      if (!found) {
        if (auto a = arrived_.find(*id); a != arrived_.end()) {
          mine = std::move(a->second.rows);
          arrived_.erase(a);
          found = true;
        }
      }
      if (!found && waiting_.count(*id) > 0) {
        ctx->SetStatus(absl::InvalidArgumentError(absl::StrCat(
            "Multiple session runs with the same batch key ", *id)));
        found = true;
      } else if (!found) {
        IdWaiter& w = waiting_[*id];
        w.ctx = ctx;
        w.done = std::move(done);
        w.serial = next_serial_++;
        std::weak_ptr<UnbatchResource> weak = weak_from_this();
        const int64_t key = *id;
        const uint64_t serial = w.serial;
        const int64_t timeout_ms =
            timeout_micros < 0 ? -1 : (timeout_micros + 999) / 1000;
        absl::Status armed = data_flow::ArmWait(
            ctx->cancellation_manager(), timeout_ms, "Unbatch",
            [weak, key, serial](absl::Status status) {
              if (auto self = weak.lock()) self->Abort(key, serial, status);
            },
            &w.ends);
        if (!armed.ok()) {
          finished.push_back({std::move(w), std::move(armed), Tensor()});
          waiting_.erase(key);
        }
      }
    }
    RunFinished(std::move(finished));
    if (found) {
      if (ctx->status().ok()) ctx->set_output(0, std::move(mine));
      done();
    }
  }

 private:
  void Abort(int64_t id, uint64_t serial, absl::Status status) {
    std::vector<Finished> finished;
    {
      absl::MutexLock lock(&mu_);
      auto w = waiting_.find(id);
      if (w == waiting_.end() || w->second.serial != serial) return;
      if (absl::IsDeadlineExceeded(status)) {
        status = absl::DeadlineExceededError(
            "Batched data did not arrive within timeout window.");
      }
      finished.push_back({std::move(w->second), std::move(status), Tensor()});
      waiting_.erase(w);
    }
    RunFinished(std::move(finished));
  }

  struct Arrived {
    Tensor rows;
    absl::Time expires;
  };

  absl::Mutex mu_;
  std::map<int64_t, Arrived> arrived_ ABSL_GUARDED_BY(mu_);
  std::map<int64_t, IdWaiter> waiting_ ABSL_GUARDED_BY(mu_);
  uint64_t next_serial_ ABSL_GUARDED_BY(mu_) = 1;
};

class UnbatchOp : public AsyncOpKernel {
 public:
  explicit UnbatchOp(OpKernelConstruction* c) : AsyncOpKernel(c) {
    c->SetStatus(c->GetAttr("timeout_micros", &timeout_micros_));
    c->SetStatus(ReadResourceName(c, &container_, &name_));
  }

  void ComputeAsync(OpKernelContext* ctx, DoneCallback done) override {
    absl::StatusOr<std::shared_ptr<UnbatchResource>> r =
        ctx->resource_manager()->LookupOrCreate<UnbatchResource>(
            container_, name_,
            [] { return std::make_shared<UnbatchResource>(); });
    DFX_OP_REQUIRES_OK_ASYNC(ctx, r.status(), done);
    (*r)->Compute(ctx, std::move(done), timeout_micros_);
  }

 private:
  int64_t timeout_micros_ = 0;
  std::string container_;
  std::string name_;
};

// UnbatchGrad's resource: the gradients of requests by id, and the calls
// that carry a batch_index, each waiting until every request of its batch
// has given its gradient.
class UnbatchGradResource
    : public ResourceBase,
      public std::enable_shared_from_this<UnbatchGradResource> {
 public:
  static constexpr const char* kTypeName = "UnbatchGradResource";
  std::string TypeName() const override { return kTypeName; }
  std::string DebugString() const override { return "UnbatchGradResource"; }

  ~UnbatchGradResource() override {
    std::vector<Finished> finished;
    for (auto& [serial, b] : batches_) {
      finished.push_back({std::move(b.waiter),
                          absl::CancelledError("the UnbatchGrad resource was "
                                               "deleted while a call waited"),
                          Tensor()});
    }
    // Not here: the resource manager may hold its lock.
    if (finished.empty()) return;
    auto shared = std::make_shared<std::vector<Finished>>(std::move(finished));
    RunOnBatchThread([shared] { RunFinished(std::move(*shared)); });
  }

  void Compute(OpKernelContext* ctx, AsyncOpKernel::DoneCallback done) {
    const Tensor& original = ctx->input(0);
    const Tensor& index = ctx->input(1);
    const Tensor& grad = ctx->input(2);
    absl::StatusOr<int64_t> id = ReadId(ctx->input(3));
    absl::Status s = id.status();
    if (s.ok() && (original.dims() < 1 || grad.dims() < 1)) {
      s = absl::InvalidArgumentError(
          "original_input and grad must have at least one dimension");
    }
    if (s.ok()) s = CheckBatchIndex(index, original.shape().dim_size(0));
    if (!s.ok()) {
      ctx->SetStatus(std::move(s));
      done();
      return;
    }
    std::vector<Finished> finished;
    bool over = false;
    {
      absl::MutexLock lock(&mu_);
      grads_[*id] = grad;
      if (index.shape().dim_size(0) == 0) {
        // Not the batch's owner: its gradient waits for the owner.
        ctx->set_output(0, Tensor(grad.dtype(), TensorShape({0})));
        over = true;
      } else {
        const uint64_t serial = next_serial_++;
        PendingBatch& b = batches_[serial];
        b.original = original;
        b.index = index;
        b.waiter.ctx = ctx;
        b.waiter.done = std::move(done);
        std::weak_ptr<UnbatchGradResource> weak = weak_from_this();
        absl::Status armed = data_flow::ArmWait(
            ctx->cancellation_manager(), -1, "UnbatchGrad",
            [weak, serial](absl::Status status) {
              if (auto self = weak.lock()) self->Abort(serial, status);
            },
            &b.waiter.ends);
        if (!armed.ok()) {
          finished.push_back({std::move(b.waiter), std::move(armed), Tensor()});
          batches_.erase(serial);
        }
      }
      FlushLocked(&finished);
    }
    RunFinished(std::move(finished));
    if (over) done();
  }

 private:
  struct PendingBatch {
    Tensor original;
    Tensor index;
    IdWaiter waiter;
  };

  // Ends every batch whose gradients have all come.
  void FlushLocked(std::vector<Finished>* finished)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    for (auto it = batches_.begin(); it != batches_.end();) {
      const Tensor& index = it->second.index;
      const int64_t n = index.shape().dim_size(0);
      const int64_t* v = index.data<int64_t>();
      bool ready = true;
      for (int64_t i = 0; ready && i < n; ++i) {
        ready = grads_.count(v[3 * i]) > 0;
      }
      if (!ready) {
        ++it;
        continue;
      }
      std::vector<Tensor> pieces;
      absl::Status s;
      for (int64_t i = 0; i < n; ++i) {
        Tensor g = grads_[v[3 * i]];
        if (g.dims() < 1 ||
            g.shape().dim_size(0) != v[3 * i + 2] - v[3 * i + 1]) {
          s = absl::InvalidArgumentError(absl::StrCat(
              "the gradient of batch key ", v[3 * i], " has shape ",
              g.shape().DebugString(), " but its batch_index row spans ",
              v[3 * i + 2] - v[3 * i + 1], " rows"));
        }
        pieces.push_back(std::move(g));
      }
      for (int64_t i = 0; i < n; ++i) grads_.erase(v[3 * i]);
      Tensor out;
      if (s.ok()) {
        // As TensorFlow: the requests' gradients alone, without rows for
        // the batch's padding.
        absl::StatusOr<Tensor> whole = ConcatRows(pieces, 0);
        if (whole.ok()) {
          out = *std::move(whole);
        } else {
          s = whole.status();
        }
      }
      finished->push_back({std::move(it->second.waiter), s, std::move(out)});
      it = batches_.erase(it);
    }
  }

  void Abort(uint64_t serial, absl::Status status) {
    std::vector<Finished> finished;
    {
      absl::MutexLock lock(&mu_);
      auto b = batches_.find(serial);
      if (b == batches_.end()) return;
      finished.push_back(
          {std::move(b->second.waiter), std::move(status), Tensor()});
      batches_.erase(b);
    }
    RunFinished(std::move(finished));
  }

  absl::Mutex mu_;
  std::map<int64_t, Tensor> grads_ ABSL_GUARDED_BY(mu_);
  std::map<uint64_t, PendingBatch> batches_ ABSL_GUARDED_BY(mu_);
  uint64_t next_serial_ ABSL_GUARDED_BY(mu_) = 1;
};

class UnbatchGradOp : public AsyncOpKernel {
 public:
  explicit UnbatchGradOp(OpKernelConstruction* c) : AsyncOpKernel(c) {
    c->SetStatus(ReadResourceName(c, &container_, &name_));
  }

  void ComputeAsync(OpKernelContext* ctx, DoneCallback done) override {
    absl::StatusOr<std::shared_ptr<UnbatchGradResource>> r =
        ctx->resource_manager()->LookupOrCreate<UnbatchGradResource>(
            container_, name_,
            [] { return std::make_shared<UnbatchGradResource>(); });
    DFX_OP_REQUIRES_OK_ASYNC(ctx, r.status(), done);
    (*r)->Compute(ctx, std::move(done));
  }

 private:
  std::string container_;
  std::string name_;
};

}  // namespace

void RegisterBatchingKernels(KernelRegistry* r) {
  RegisterKernel<BatchFunctionOp>(r, KernelDefBuilder("BatchFunction"));
  RegisterKernel<BatchOp>(r, KernelDefBuilder("Batch"));
  RegisterKernel<UnbatchOp>(r, KernelDefBuilder("Unbatch"));
  RegisterKernel<UnbatchGradOp>(r, KernelDefBuilder("UnbatchGrad"));
}

}  // namespace dfx::batching
