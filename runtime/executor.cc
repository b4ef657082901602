#include "runtime/executor.h"

#include <algorithm>
#include <atomic>
#include <future>
#include <new>
#include <optional>
#include <type_traits>
#include <utility>

#include "absl/container/inlined_vector.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "base/logging.h"
#include "base/status_macros.h"
#include "runtime/cancellation.h"
#include "runtime/step_stats_collector.h"

namespace dfx {
namespace {

// The design follows TensorFlow's executor with its "simple propagator" (no
// v1 control flow): an immutable flat view of the graph built once, and per
// step one block holding an atomic pending count per node and one tensor
// slot per node input. A slot is written once by its producer before the
// producer's release-decrement of the consumer's pending count, and read and
// cleared by the consumer after the acquire-decrement that made it ready, so
// slots need no lock.

// One edge out of a node, in the flat per-executor edge array.
struct OutEdge {
  int32_t dst;         // dense node index
  int32_t dst_slot;    // global input slot of dst; -1 for a control edge
  int32_t src_output;  // -1 for a control edge
  bool last_use;       // last data edge of src_output: the tensor is moved
};

// The immutable per-node view.
struct NodeItem {
  OpKernel* kernel = nullptr;
  const Node* node = nullptr;
  int32_t input_start = 0;  // first global input slot
  int32_t num_inputs = 0;
  int32_t num_outputs = 0;
  int32_t out_start = 0;  // first OutEdge
  int32_t num_out = 0;
  int32_t initial_pending = 0;
  bool is_async = false;
  bool expensive = false;
  // Some input of a plain type is fed by a reference output: the executor
  // reads the referenced tensor when the node runs.
  bool derefs_input = false;
  // Some input is of a reference type: the kernel gets the references.
  bool takes_ref_input = false;
  // Some output is of a reference type.
  bool has_ref_output = false;
  // Transfer nodes run even when an input is dead (they ship the bit).
  bool runs_when_dead = false;
};

bool IsTransferOp(const std::string& op) {
  return op == "_Send" || op == "_Recv" || op == "_HostSend" ||
         op == "_HostRecv";
}

absl::Status PrefixWithNode(const NodeItem& item, const absl::Status& s) {
  const std::string& name = item.node->name();
  const std::string prefix = absl::StrCat("node '", name, "'");
  if (absl::StartsWith(s.message(), prefix)) return s;
  return absl::Status(
      s.code(), absl::StrCat(prefix, " (op ", item.node->type_string(),
                             "): ", s.message()));
}

class ExecutorImpl;

// Nodes ready to run on the current thread, in FIFO order. Reused for every
// node a thread processes in one go.
class ReadyQueue {
 public:
  void Push(int32_t id) { ids_.push_back(id); }
  bool Empty() const { return head_ == ids_.size(); }
  int32_t Pop() {
    int32_t id = ids_[head_++];
    if (head_ == ids_.size()) {
      ids_.clear();
      head_ = 0;
    }
    return id;
  }

 private:
  absl::InlinedVector<int32_t, 16> ids_;
  size_t head_ = 0;
};

using ReadyList = absl::InlinedVector<int32_t, 16>;

// The state of one step. Allocated with its arrays in one block (New) and
// destroyed when the step finishes.
class Step {
 public:
  static Step* New(const ExecutorImpl* impl, const Executor::Args& args,
                   Executor::DoneCallback done);

  // Starts the root nodes: on the calling thread when `inline_roots`,
  // through the runner otherwise.
  void Start(bool inline_roots);

 private:
  struct AsyncState {
    AsyncState(Step* step, int32_t id, const OpKernelContext::Params& p,
               std::optional<NodeExecStatsRecorder> stats)
        : step(step), id(id), params(p), ctx(&params),
          stats(std::move(stats)) {}
    Step* step;
    int32_t id;
    OpKernelContext::Params params;
    OpKernelContext ctx;
    std::optional<NodeExecStatsRecorder> stats;
  };

  Step(const ExecutorImpl* impl, const Executor::Args& args,
       Executor::DoneCallback done, char* arrays);
  ~Step();
  static void Delete(Step* step);

  // Runs `id` and everything it makes ready inline.
  void Process(int32_t id);
  void RunLoop(ReadyQueue* queue);
  void ProcessNode(int32_t id, ReadyQueue* queue, ReadyList* ready);
  void AsyncDone(AsyncState* state);
  // Checks the kernel's outputs and hands them to the consumers; the
  // consumers whose pending count reaches zero go to `ready`.
  absl::Status PropagateOutputs(const NodeItem& item, OpKernelContext* ctx,
                                bool node_dead, ReadyList* ready);
  void ClearInputs(const NodeItem& item);
  // Accounts for one finished node that made `ready` ready; with `queue`
  // null everything ready goes to the runner. The caller must not touch the
  // step afterwards unless its own queue is non-empty.
  void NodeDone(ReadyList* ready, ReadyQueue* queue);
  void ScheduleReady(const ReadyList& ready, ReadyQueue* queue);
  void Dispatch(int32_t id);
  void RecordError(const absl::Status& s);
  void Cancel();
  void Finish();

  const ExecutorImpl* const impl_;
  const int64_t step_id_;
  CallFrameInterface* const call_frame_;
  Rendezvous* const rendezvous_;
  CancellationManager* const cancellation_manager_;
  StepStatsCollector* const stats_collector_;
  const Executor::Runner runner_;
  Executor::DoneCallback done_;

  // Nodes queued or running, plus guards held while dispatching.
  std::atomic<int64_t> outstanding_{0};
  std::atomic<bool> aborted_{false};
  absl::Mutex mu_;
  absl::Status status_ ABSL_GUARDED_BY(mu_);
  CancellationToken cancel_token_ = -1;
  bool cancel_registered_ = false;

  // Reads the referenced tensors of `item`'s plain inputs fed by reference
  // outputs into their slots.
  absl::Status DerefInputs(const NodeItem& item);

  std::atomic<int32_t>* pending_;  // per node
  Tensor* tensors_;                // per input slot
  TensorRef* refs_;                // per input slot
  uint8_t* dead_;                  // per input slot
};

class ExecutorImpl : public Executor {
 public:
  ExecutorImpl(const ExecutorParams& params, std::unique_ptr<const Graph> g)
      : params_(params), graph_(std::move(g)) {}

  absl::Status Initialize();

  void RunAsync(const Args& args, DoneCallback done) override {
    Step::New(this, args, std::move(done))->Start(/*inline_roots=*/false);
  }

  absl::Status Run(const Args& args) override {
    auto promise = std::make_shared<std::promise<absl::Status>>();
    std::future<absl::Status> result = promise->get_future();
    Step::New(this, args,
              [promise](absl::Status s) { promise->set_value(std::move(s)); })
        ->Start(/*inline_roots=*/true);
    return result.get();
  }

 private:
  friend class Step;

  const ExecutorParams params_;
  const std::unique_ptr<const Graph> graph_;
  std::vector<std::shared_ptr<OpKernel>> kernels_;
  std::vector<NodeItem> items_;
  std::vector<OutEdge> out_edges_;
  std::vector<int32_t> roots_;
  int32_t num_slots_ = 0;
  // Byte offsets of the arrays inside a step's block.
  size_t pending_offset_ = 0;
  size_t tensors_offset_ = 0;
  size_t refs_offset_ = 0;
  size_t dead_offset_ = 0;
  size_t block_size_ = 0;
};

size_t AlignUp(size_t n, size_t align) { return (n + align - 1) / align * align; }

absl::Status ExecutorImpl::Initialize() {
  if (params_.device == nullptr || params_.kernel_registry == nullptr) {
    return absl::InvalidArgumentError(
        "executor needs a device and a kernel registry");
  }
  const std::vector<Node*> nodes = graph_->nodes();
  std::vector<int32_t> dense(graph_->num_node_ids(), -1);
  for (size_t i = 0; i < nodes.size(); ++i) {
    dense[nodes[i]->id()] = static_cast<int32_t>(i);
  }
  items_.resize(nodes.size());
  kernels_.reserve(nodes.size());
  int32_t slot = 0;
  for (size_t i = 0; i < nodes.size(); ++i) {
    const Node* node = nodes[i];
    std::shared_ptr<OpKernel> kernel;
    if (params_.create_kernel) {
      DFX_ASSIGN_OR_RETURN(kernel, params_.create_kernel(*node));
    } else {
      DFX_ASSIGN_OR_RETURN(
          kernel, params_.kernel_registry->CreateKernel(
                      node->def(), node->op_def(), params_.device));
    }
    NodeItem& item = items_[i];
    item.kernel = kernel.get();
    item.node = node;
    item.input_start = slot;
    item.num_inputs = node->num_inputs();
    item.num_outputs = node->num_outputs();
    item.is_async = kernel->AsAsync() != nullptr;
    item.expensive = kernel->IsExpensive();
    item.runs_when_dead = IsTransferOp(node->type_string());
    for (int k = 0; k < item.num_inputs; ++k) {
      item.takes_ref_input |= IsRefType(kernel->input_type(k));
    }
    for (int k = 0; k < item.num_outputs; ++k) {
      item.has_ref_output |= IsRefType(kernel->output_type(k));
    }
    for (const Edge* e : node->in_edges()) {
      if (!e->IsControlEdge() &&
          IsRefType(e->src->output_type(e->src_output)) &&
          !IsRefType(kernel->input_type(e->dst_input))) {
        item.derefs_input = true;
      }
    }
    slot += item.num_inputs;
    kernels_.push_back(std::move(kernel));

    std::vector<bool> connected(item.num_inputs, false);
    for (const Edge* e : node->in_edges()) {
      ++item.initial_pending;
      if (!e->IsControlEdge()) connected[e->dst_input] = true;
    }
    for (int k = 0; k < item.num_inputs; ++k) {
      if (!connected[k]) {
        return absl::InvalidArgumentError(
            absl::StrCat("node '", node->name(), "' (op ",
                         node->type_string(), "): input ", k,
                         " is not connected"));
      }
    }
    if (item.initial_pending == 0) roots_.push_back(static_cast<int32_t>(i));
  }
  num_slots_ = slot;

  for (size_t i = 0; i < nodes.size(); ++i) {
    NodeItem& item = items_[i];
    item.out_start = static_cast<int32_t>(out_edges_.size());
    const auto& outs = nodes[i]->out_edges();
    for (const Edge* e : outs) {
      const int32_t dst = dense[e->dst->id()];
      if (e->IsControlEdge()) {
        out_edges_.push_back({dst, -1, -1, false});
      } else {
        out_edges_.push_back({dst, items_[dst].input_start + e->dst_input,
                              e->src_output, false});
      }
    }
    item.num_out = static_cast<int32_t>(out_edges_.size()) - item.out_start;
    // Data edges first (stable), then mark the last use of each output.
    auto begin = out_edges_.begin() + item.out_start;
    std::stable_partition(begin, out_edges_.end(),
                          [](const OutEdge& e) { return e.dst_slot >= 0; });
    std::vector<bool> seen(item.num_outputs, false);
    for (auto it = out_edges_.end(); it != begin;) {
      --it;
      if (it->dst_slot < 0 || seen[it->src_output]) continue;
      seen[it->src_output] = true;
      it->last_use = true;
    }
  }

  pending_offset_ = AlignUp(sizeof(Step), alignof(std::atomic<int32_t>));
  tensors_offset_ = AlignUp(
      pending_offset_ + items_.size() * sizeof(std::atomic<int32_t>),
      alignof(Tensor));
  refs_offset_ = AlignUp(tensors_offset_ + num_slots_ * sizeof(Tensor),
                        alignof(TensorRef));
  dead_offset_ = refs_offset_ + num_slots_ * sizeof(TensorRef);
  block_size_ = dead_offset_ + num_slots_;
  return absl::OkStatus();
}

// ---------------------------------------------------------------------------
// Step

Step* Step::New(const ExecutorImpl* impl, const Executor::Args& args,
                Executor::DoneCallback done) {
  static_assert(alignof(Step) <= __STDCPP_DEFAULT_NEW_ALIGNMENT__);
  char* block = static_cast<char*>(::operator new(impl->block_size_));
  return new (block) Step(impl, args, std::move(done), block);
}

void Step::Delete(Step* step) {
  step->~Step();
  ::operator delete(static_cast<void*>(step));
}

Step::Step(const ExecutorImpl* impl, const Executor::Args& args,
           Executor::DoneCallback done, char* block)
    : impl_(impl),
      step_id_(args.step_id),
      call_frame_(args.call_frame),
      rendezvous_(args.rendezvous),
      cancellation_manager_(args.cancellation_manager),
      stats_collector_(args.stats_collector),
      runner_(args.runner),
      done_(std::move(done)) {
  const size_t n = impl_->items_.size();
  pending_ =
      reinterpret_cast<std::atomic<int32_t>*>(block + impl_->pending_offset_);
  for (size_t i = 0; i < n; ++i) {
    new (&pending_[i]) std::atomic<int32_t>(impl_->items_[i].initial_pending);
  }
  tensors_ = reinterpret_cast<Tensor*>(block + impl_->tensors_offset_);
  for (int32_t i = 0; i < impl_->num_slots_; ++i) new (&tensors_[i]) Tensor();
  refs_ = reinterpret_cast<TensorRef*>(block + impl_->refs_offset_);
  static_assert(std::is_trivially_destructible_v<TensorRef>);
  std::fill(refs_, refs_ + impl_->num_slots_, TensorRef());
  dead_ = reinterpret_cast<uint8_t*>(block + impl_->dead_offset_);
  std::fill(dead_, dead_ + impl_->num_slots_, 0);
}

Step::~Step() {
  for (int32_t i = 0; i < impl_->num_slots_; ++i) tensors_[i].~Tensor();
  static_assert(std::is_trivially_destructible_v<std::atomic<int32_t>>);
}

void Step::Start(bool inline_roots) {
  if (cancellation_manager_ != nullptr) {
    cancel_token_ = cancellation_manager_->get_cancellation_token();
    cancel_registered_ = cancellation_manager_->RegisterCallback(
        cancel_token_, [this] { Cancel(); });
    if (!cancel_registered_) {
      Executor::DoneCallback done = std::move(done_);
      Delete(this);
      done(absl::CancelledError("step cancelled before it started"));
      return;
    }
  }
  const std::vector<int32_t>& roots = impl_->roots_;
  if (roots.empty()) {
    outstanding_.store(1, std::memory_order_relaxed);
    Finish();
    return;
  }
  outstanding_.store(static_cast<int64_t>(roots.size()),
                     std::memory_order_relaxed);
  ReadyList ready(roots.begin(), roots.end());
  if (inline_roots) {
    ReadyQueue queue;
    ScheduleReady(ready, &queue);
    RunLoop(&queue);
  } else {
    ScheduleReady(ready, nullptr);
  }
}

void Step::Process(int32_t id) {
  ReadyQueue queue;
  queue.Push(id);
  RunLoop(&queue);
}

void Step::RunLoop(ReadyQueue* queue) {
  ReadyList ready;
  // Only the local queue is read between nodes: once it is empty the step
  // may already be finished and freed by another thread.
  while (!queue->Empty()) {
    ProcessNode(queue->Pop(), queue, &ready);
  }
}

void Step::ProcessNode(int32_t id, ReadyQueue* queue, ReadyList* ready) {
  const NodeItem& item = impl_->items_[id];
  ready->clear();
  if (aborted_.load(std::memory_order_acquire)) {
    NodeDone(ready, queue);
    return;
  }
  bool dead = false;
  for (int32_t i = 0; i < item.num_inputs; ++i) {
    dead |= dead_[item.input_start + i] != 0;
  }
  if (dead && !item.runs_when_dead) {
    absl::Status s = PropagateOutputs(item, nullptr, /*node_dead=*/true, ready);
    ClearInputs(item);
    if (!s.ok()) RecordError(s);
    NodeDone(ready, queue);
    return;
  }

  if (item.derefs_input) {
    absl::Status s = DerefInputs(item);
    if (!s.ok()) {
      ClearInputs(item);
      RecordError(PrefixWithNode(item, s));
      NodeDone(ready, queue);
      return;
    }
  }

  std::optional<NodeExecStatsRecorder> stats;
  if (stats_collector_ != nullptr) stats.emplace(*item.node);

  OpKernelContext::Params params;
  params.step_id = step_id_;
  params.op_kernel = item.kernel;
  params.device = impl_->params_.device;
  params.inputs = absl::Span<const Tensor>(tensors_ + item.input_start,
                                           item.num_inputs);
  if (item.takes_ref_input) {
    params.input_refs = absl::Span<const TensorRef>(refs_ + item.input_start,
                                                    item.num_inputs);
  }
  params.rendezvous = rendezvous_;
  params.cancellation_manager = cancellation_manager_;
  params.call_frame = call_frame_;
  params.is_input_dead = dead;

  if (item.is_async) {
    // The inputs stay in their slots until the kernel is done.
    auto* state = new AsyncState(this, id, params, std::move(stats));
    if (state->stats) state->stats->RecordComputeStarted();
    item.kernel->AsAsync()->ComputeAsync(
        &state->ctx, [state] { state->step->AsyncDone(state); });
    return;
  }

  OpKernelContext ctx(&params);
  if (stats) stats->RecordComputeStarted();
  item.kernel->Compute(&ctx);
  if (stats) stats->RecordComputeEnded();
  absl::Status s = PropagateOutputs(item, &ctx, /*node_dead=*/false, ready);
  ClearInputs(item);
  if (stats) stats->Done(stats_collector_, impl_->params_.device->name());
  if (!s.ok()) RecordError(s);
  NodeDone(ready, queue);
}

void Step::AsyncDone(AsyncState* state) {
  const NodeItem& item = impl_->items_[state->id];
  if (state->stats) state->stats->RecordComputeEnded();
  ReadyList ready;
  absl::Status s =
      PropagateOutputs(item, &state->ctx, /*node_dead=*/false, &ready);
  ClearInputs(item);
  if (state->stats) {
    state->stats->Done(stats_collector_, impl_->params_.device->name());
  }
  delete state;
  if (!s.ok()) RecordError(s);
  // Async completions run on whatever thread finished the kernel (an RPC or
  // timer thread): everything ready moves to the runner.
  NodeDone(&ready, nullptr);
}

absl::Status Step::PropagateOutputs(const NodeItem& item, OpKernelContext* ctx,
                                    bool node_dead, ReadyList* ready) {
  bool dead = node_dead;
  absl::InlinedVector<Tensor, 4>* outputs = nullptr;
  if (!dead) {
    if (!ctx->status().ok()) return PrefixWithNode(item, ctx->status());
    dead = ctx->is_output_dead();
    outputs = ctx->mutable_outputs();
    if (!dead) {
      for (int32_t i = 0; i < item.num_outputs; ++i) {
        if (item.has_ref_output && IsRefType(item.kernel->output_type(i))) {
          if (ctx->output_refs().empty() || !ctx->output_refs()[i].valid()) {
            return PrefixWithNode(
                item, absl::InternalError(absl::StrCat(
                          "kernel did not produce reference output ", i)));
          }
          continue;
        }
        const Tensor& t = (*outputs)[i];
        const DataType want = BaseType(item.kernel->output_type(i));
        if (!t.IsInitialized()) {
          return PrefixWithNode(
              item, absl::InternalError(absl::StrCat(
                        "kernel did not produce output ", i)));
        }
        if (t.dtype() != want) {
          return PrefixWithNode(
              item, absl::InternalError(absl::StrCat(
                        "kernel produced a ", DataTypeString(t.dtype()),
                        " tensor for output ", i, ", which the op declares ",
                        DataTypeString(want))));
        }
      }
    }
  }
  const OutEdge* e = impl_->out_edges_.data() + item.out_start;
  const OutEdge* end = e + item.num_out;
  for (; e != end; ++e) {
    if (e->dst_slot >= 0) {
      if (dead) {
        dead_[e->dst_slot] = 1;
      } else if (item.has_ref_output &&
                 IsRefType(item.kernel->output_type(e->src_output))) {
        refs_[e->dst_slot] = ctx->output_refs()[e->src_output];
      } else if (e->last_use) {
        tensors_[e->dst_slot] = std::move((*outputs)[e->src_output]);
      } else {
        tensors_[e->dst_slot] = (*outputs)[e->src_output];
      }
    }
    if (pending_[e->dst].fetch_sub(1, std::memory_order_acq_rel) == 1) {
      ready->push_back(e->dst);
    }
  }
  return absl::OkStatus();
}

void Step::ClearInputs(const NodeItem& item) {
  Tensor* t = tensors_ + item.input_start;
  for (int32_t i = 0; i < item.num_inputs; ++i) t[i] = Tensor();
  if (item.derefs_input || item.takes_ref_input) {
    std::fill(refs_ + item.input_start,
              refs_ + item.input_start + item.num_inputs, TensorRef());
  }
}

absl::Status Step::DerefInputs(const NodeItem& item) {
  for (int32_t i = 0; i < item.num_inputs; ++i) {
    const TensorRef& ref = refs_[item.input_start + i];
    if (!ref.valid() || IsRefType(item.kernel->input_type(i))) continue;
    Tensor value;
    {
      absl::ReaderMutexLock lock(ref.mu);
      value = *ref.tensor;
    }
    if (!value.IsInitialized()) {
      std::string source = "?";
      for (const Edge* e : item.node->in_edges()) {
        if (e->dst_input == i) source = e->src->name();
      }
      return absl::FailedPreconditionError(absl::StrCat(
          "Attempting to use uninitialized value ", source));
    }
    tensors_[item.input_start + i] = std::move(value);
  }
  return absl::OkStatus();
}

void Step::NodeDone(ReadyList* ready, ReadyQueue* queue) {
  if (aborted_.load(std::memory_order_acquire)) ready->clear();
  const int64_t k = static_cast<int64_t>(ready->size());
  if (k == 0) {
    if (outstanding_.fetch_sub(1, std::memory_order_acq_rel) == 1) Finish();
    return;
  }
  if (k > 1) outstanding_.fetch_add(k - 1, std::memory_order_relaxed);
  ScheduleReady(*ready, queue);
}

void Step::ScheduleReady(const ReadyList& ready, ReadyQueue* queue) {
  // While dispatching, a guard count keeps the step alive: a dispatched node
  // could otherwise finish the step before this loop ends.
  bool guard = false;
  auto dispatch = [&](int32_t id) {
    if (!guard) {
      outstanding_.fetch_add(1, std::memory_order_relaxed);
      guard = true;
    }
    Dispatch(id);
  };
  if (queue == nullptr) {
    for (int32_t id : ready) dispatch(id);
  } else {
    // Cheap nodes run inline; of the expensive ones all but the last go to
    // the runner, and the last runs inline when nothing else does.
    int32_t tail = -1;
    for (int32_t id : ready) {
      if (!impl_->items_[id].expensive) {
        queue->Push(id);
      } else {
        if (tail >= 0) dispatch(tail);
        tail = id;
      }
    }
    if (tail >= 0) {
      if (queue->Empty()) {
        queue->Push(tail);
      } else {
        dispatch(tail);
      }
    }
  }
  if (guard && outstanding_.fetch_sub(1, std::memory_order_acq_rel) == 1) {
    Finish();
  }
}

void Step::Dispatch(int32_t id) {
  if (runner_) {
    runner_([this, id] { Process(id); });
  } else {
    Process(id);
  }
}

void Step::RecordError(const absl::Status& s) {
  bool first = false;
  {
    absl::MutexLock lock(&mu_);
    if (status_.ok()) {
      status_ = s;
      first = true;
    }
  }
  aborted_.store(true, std::memory_order_release);
  // Wakes async kernels of other branches (a _Recv waiting for ever).
  if (first && cancellation_manager_ != nullptr) {
    cancellation_manager_->StartCancel();
  }
}

void Step::Cancel() {
  {
    absl::MutexLock lock(&mu_);
    if (status_.ok()) status_ = absl::CancelledError("step was cancelled");
  }
  aborted_.store(true, std::memory_order_release);
}

void Step::Finish() {
  if (cancel_registered_) {
    // Waits while our callback may be running on another thread.
    cancellation_manager_->DeregisterCallback(cancel_token_);
  }
  absl::Status status;
  {
    absl::MutexLock lock(&mu_);
    status = status_;
  }
  Executor::DoneCallback done = std::move(done_);
  Delete(this);
  done(std::move(status));
}

}  // namespace

absl::StatusOr<std::unique_ptr<Executor>> NewExecutor(
    const ExecutorParams& params, std::unique_ptr<const Graph> graph) {
  if (graph == nullptr) {
    return absl::InvalidArgumentError("executor needs a graph");
  }
  auto impl = std::make_unique<ExecutorImpl>(params, std::move(graph));
  DFX_RETURN_IF_ERROR(impl->Initialize());
  return std::unique_ptr<Executor>(std::move(impl));
}

// ---------------------------------------------------------------------------
// SimpleCallFrame

SimpleCallFrame::SimpleCallFrame(std::vector<Tensor> args, size_t num_retvals)
    : args_(std::move(args)),
      retvals_(num_retvals),
      retval_set_(num_retvals, false) {}

absl::Status SimpleCallFrame::GetArg(int index, Tensor* value) const {
  if (index < 0 || static_cast<size_t>(index) >= args_.size()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "argument index ", index, " out of range [0, ", args_.size(), ")"));
  }
  *value = args_[index];
  return absl::OkStatus();
}

absl::Status SimpleCallFrame::SetRetval(int index, const Tensor& value) {
  absl::MutexLock lock(&mu_);
  if (index < 0 || static_cast<size_t>(index) >= retvals_.size()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "return value index ", index, " out of range [0, ", retvals_.size(),
        ")"));
  }
  if (retval_set_[index]) {
    return absl::InternalError(
        absl::StrCat("return value ", index, " set twice"));
  }
  retvals_[index] = value;
  retval_set_[index] = true;
  return absl::OkStatus();
}

absl::StatusOr<std::vector<Tensor>> SimpleCallFrame::ConsumeRetvals() {
  absl::MutexLock lock(&mu_);
  for (size_t i = 0; i < retvals_.size(); ++i) {
    if (!retval_set_[i]) {
      return absl::InternalError(
          absl::StrCat("return value ", i, " was never set"));
    }
  }
  std::fill(retval_set_.begin(), retval_set_.end(), false);
  return std::move(retvals_);
}

}  // namespace dfx
