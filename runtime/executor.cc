#include "runtime/executor.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdlib>
#include <future>
#include <memory>
#include <new>
#include <optional>
#include <tuple>
#include <type_traits>
#include <utility>

#include "absl/container/flat_hash_map.h"
#include "absl/container/inlined_vector.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "base/logging.h"
#include "base/status_macros.h"
#include "graph/control_flow.h"
#include "graph/node_def_util.h"
#include "runtime/cancellation.h"
#include "runtime/denormal.h"
#include "runtime/device_copy.h"
#include "runtime/internal/light_mutex.h"
#include "runtime/resource_mgr.h"
#include "runtime/step_stats_collector.h"

namespace dfx {
namespace {

using runtime_internal::LightMutex;
using runtime_internal::LightMutexLock;

// Abseil as Debian builds it checks every Mutex acquisition for lock-order
// cycles (a debugging aid that costs about 15% of a loop iteration and of a
// cross-device transfer). dfx turns it off in every process that runs graphs,
// unless DFX_MUTEX_DEADLOCK_DETECTION is set (to hunt a lock-order bug).
const bool kMutexDetectionSet = [] {
  if (std::getenv("DFX_MUTEX_DEADLOCK_DETECTION") == nullptr) {
    absl::SetMutexDeadlockDetectionMode(absl::OnDeadlockCycle::kIgnore);
  }
  return true;
}();

// The design follows TensorFlow's executor. An immutable flat view of the
// graph is built once. A graph without control-flow primitives runs as a
// SimpleStep (TensorFlow's "simple propagator"): one block per step with an
// atomic pending count per node and one tensor slot per node input. A slot
// is written once by its producer before the producer's release-decrement of
// the consumer's pending count, and read and cleared by the consumer after
// the acquire-decrement that made it ready, so slots need no lock.
//
// A graph with Switch/Merge/Enter/Exit/NextIteration runs as a LoopStep: its
// nodes are grouped statically into frames (the root frame, and one per loop
// named by its Enters' frame_name); at run time each loop execution is a
// FrameState (one per parent frame instance and parent iteration) holding
// its live iterations, each an IterState with the frame's own pending
// counts, dead counts and input slots. A frame's state changes under the
// frame's mutex. Deadness travels with values: a node with a dead input is
// dead and is skipped (its outputs are dead) unless it is a Merge, which
// fires on its first live input or once all of its inputs are dead, or a
// ControlTrigger, which always runs. The rules follow "Implementation of
// Control Flow in TensorFlow" (Yu et al., EuroSys 2018).

// One edge out of a node, in the flat per-executor edge array.
struct OutEdge {
  int32_t dst;         // dense node index
  int32_t dst_slot;    // input slot of dst in its frame; -1 for control
  int32_t src_output;  // -1 for a control edge
  // How much a graph without control flow (SimpleStep) takes off dst's
  // pending count here: edges to the same dst in a row take it off at the
  // last of them in one atomic operation (an AddN fed 10,000 times by one
  // Const, as the optimizer writes a chain of adds, costs one decrement
  // instead of 10,000 on one contended counter); 0 on the others.
  uint32_t pending_dec : 31;
  uint32_t last_use : 1;  // last data edge of src_output: the tensor is moved
};

// The immutable per-node view.
struct NodeItem {
  OpKernel* kernel = nullptr;
  const Node* node = nullptr;
  int32_t input_start = 0;  // first input slot, within the node's frame
  int32_t num_inputs = 0;
  int32_t num_outputs = 0;
  int32_t out_start = 0;  // first OutEdge
  int32_t num_out = 0;
  bool is_async = false;
  // The kernel says it may be expensive (the default); the executor learns
  // which of these are cheap in practice (ExecutorImpl::IsExpensive).
  bool expensive = false;
  // Some input of a plain type is fed by a reference output: the executor
  // reads the referenced tensor when the node runs.
  bool derefs_input = false;
  // The op may read a reference input whose variable is not initialized
  // yet (Assign, IsVariableInitialized, the tfdbg watches): it gets an
  // uninitialized tensor rather than the step failing.
  bool allows_uninitialized_input = false;
  // Some input is of a reference type: the kernel gets the references.
  bool takes_ref_input = false;
  // The device's memory is not the host's: inputs in the other memory than
  // the kernel reads them from are copied first (PlaceInputs).
  bool places_inputs = false;
  // Some output is of a reference type.
  bool has_ref_output = false;
  // Transfer nodes run even when an input is dead (they ship the bit).
  bool runs_when_dead = false;

  // Control flow.
  bool is_merge = false;
  bool is_enter = false;
  bool is_constant_enter = false;
  bool is_exit = false;
  bool is_next_iteration = false;
  bool is_control_trigger = false;
  // The kernel may leave outputs unset; those are dead (Switch, _SwitchN).
  bool may_skip_outputs = false;
  int32_t frame = 0;        // the node's static frame
  int32_t pending_id = 0;   // the node's index within its frame
  int32_t child_frame = -1;  // Enter: the frame it enters

  // Control-flow primitives (and Identity) that a LoopStep runs itself,
  // without their kernels, when no stats are collected: the node's value
  // moves from its input slot to its consumers (ForwardNode).
  enum class Forward : uint8_t {
    kNone,
    kInput0,  // Identity, LoopCond, Enter, Exit, NextIteration
    kSwitch,  // input 0 to output 1 if the predicate is true, else 0
    kMerge,   // the live input to output 0, its index to output 1
  };
  Forward forward = Forward::kNone;
  // The declared type of the forwarded value (the op's T).
  DataType forward_type = DT_INVALID;
  // Merge: its value_index outputs, made once (index into merge_indices_).
  int32_t merge_indices_start = 0;

  // Inputs fed by one output share one slot (graphs without control flow,
  // SimpleStep): OpKernelContext::Params::input_map, num_inputs entries,
  // and the distinct slots the node's inputs use, to clear. Null when each
  // input has its own slot. Point into ExecutorImpl's arrays.
  const int32_t* input_map = nullptr;
  const int32_t* own_slots = nullptr;
  int32_t num_own_slots = 0;
};

// A loop's static description (index 0: the root frame).
struct FrameInfo {
  std::string name;
  int32_t parent = -1;
  int32_t parallel_iterations = 1;
  // Enter nodes into this frame: iteration 0 is not done before they ran.
  int32_t num_enters = 0;
  int32_t num_slots = 0;
  std::vector<int32_t> nodes;            // dense ids, by pending_id
  std::vector<int32_t> initial_pending;  // by pending_id
  uint64_t name_hash = 0;
};

bool IsTransferOp(const std::string& op) {
  return op == "_Send" || op == "_Recv" || op == "_HostSend" ||
         op == "_HostRecv";
}

// What the executor needs to know of an op type, found once per type (a
// 100,000-node graph has a handful) instead of by string compares per node.
struct OpClass {
  bool transfer = false;
  bool merge = false;
  bool enter = false;
  bool exit = false;
  bool next_iteration = false;
  bool control_trigger = false;
  bool switch_like = false;  // Switch, RefSwitch, _SwitchN
  bool control_flow = false;
  // Identity, LoopCond, Enter, Exit, NextIteration.
  bool forwards_input0 = false;
};

OpClass ClassifyOp(const Node& node) {
  const std::string& op = node.type_string();
  OpClass c;
  c.transfer = IsTransferOp(op);
  c.merge = op == "Merge" || op == "RefMerge";
  c.enter = op == "Enter" || op == "RefEnter";
  c.exit = op == "Exit" || op == "RefExit";
  c.next_iteration = op == "NextIteration" || op == "RefNextIteration";
  c.control_trigger = op == "ControlTrigger";
  c.switch_like = op == "Switch" || op == "RefSwitch" || op == "_SwitchN";
  c.control_flow = IsControlFlowNode(node);
  c.forwards_input0 = op == "Identity" || op == "LoopCond" || op == "Enter" ||
                      op == "Exit" || op == "NextIteration";
  return c;
}

size_t AlignUp(size_t n, size_t align) {
  return (n + align - 1) / align * align;
}

// FNV-1a: frame ids must be the same in every process (partitions of one
// loop on different tasks name the same rendezvous keys).
uint64_t StableHash(absl::string_view s) {
  uint64_t h = 0xcbf29ce484222325ULL;
  for (char c : s) {
    h ^= static_cast<uint8_t>(c);
    h *= 0x100000001b3ULL;
  }
  return h;
}

uint64_t MixHash(uint64_t a, uint64_t b) {
  // splitmix64's finalizer over a combination of the two.
  uint64_t x = a ^ (b + 0x9e3779b97f4a7c15ULL + (a << 6) + (a >> 2));
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

absl::Status PrefixWithNode(const NodeItem& item, const absl::Status& s) {
  const std::string& name = item.node->name();
  const std::string prefix = absl::StrCat("node '", name, "'");
  if (absl::StartsWith(s.message(), prefix)) return s;
  return absl::Status(
      s.code(), absl::StrCat(prefix, " (op ", item.node->type_string(),
                             "): ", s.message()));
}

std::string NodeString(const NodeItem& item) {
  return absl::StrCat("'", item.node->name(), "' (op ",
                      item.node->type_string(), ")");
}

// Checks a kernel's outputs: every output set (unless the kernel may leave
// some unset: those are dead), with the declared type.
absl::Status CheckOutputs(const NodeItem& item, OpKernelContext* ctx) {
  if (!ctx->status().ok()) return PrefixWithNode(item, ctx->status());
  if (ctx->is_output_dead()) return absl::OkStatus();
  const absl::InlinedVector<Tensor, 4>& outputs = *ctx->mutable_outputs();
  for (int32_t i = 0; i < item.num_outputs; ++i) {
    if (item.has_ref_output && IsRefType(item.kernel->output_type(i))) {
      if (ctx->output_refs().empty() || !ctx->output_refs()[i].valid()) {
        if (item.may_skip_outputs) continue;
        return PrefixWithNode(item, absl::InternalError(absl::StrCat(
                                        "kernel did not produce reference "
                                        "output ",
                                        i)));
      }
      continue;
    }
    const Tensor& t = outputs[i];
    const DataType want = BaseType(item.kernel->output_type(i));
    if (!t.IsInitialized()) {
      // A switch leaves an output dead; an op that may read an
      // uninitialized variable (a tfdbg watch) may pass it on, and its
      // consumers see the output dead.
      if (item.may_skip_outputs || item.allows_uninitialized_input) continue;
      return PrefixWithNode(item, absl::InternalError(absl::StrCat(
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
  return absl::OkStatus();
}

// Reads the referenced tensors of `item`'s plain inputs fed by reference
// outputs into their slots.
absl::Status DerefInputs(const NodeItem& item, Tensor* tensors,
                         const TensorRef* refs) {
  for (int32_t i = 0; i < item.num_inputs; ++i) {
    const TensorRef& ref = refs[i];
    if (!ref.valid() || IsRefType(item.kernel->input_type(i))) continue;
    Tensor value;
    {
      absl::ReaderMutexLock lock(ref.mu);
      value = *ref.tensor;
    }
    if (!value.IsInitialized() && !item.allows_uninitialized_input) {
      std::string source = "?";
      for (const Edge* e : item.node->in_edges()) {
        if (e->dst_input == i) source = e->src->name();
      }
      return absl::FailedPreconditionError(absl::StrCat(
          "Attempting to use uninitialized value ", source));
    }
    tensors[i] = std::move(value);
  }
  return absl::OkStatus();
}

// On a device the host cannot read (a GPU): whether input `i` of `item`
// (its tensor `t`) is in the other memory than its kernel reads it from,
// and must be moved before the kernel runs (StepBase::PlaceInputs): a
// device tensor into host memory for a host-memory input (a shape, an
// axis), a host tensor into the device for a device-memory one (an int32
// computed on the host feeding a kernel that reads it on the device does
// not happen: int32 is host memory throughout).
bool NeedsMove(const NodeItem& item, int32_t i, const Tensor& t) {
  const OpKernel& kernel = *item.kernel;
  return t.IsInitialized() && t.NumElements() != 0 &&
         !IsRefType(kernel.input_type(i)) &&
         t.OnHost() != kernel.input_on_host(i);
}

// The moves of one node's inputs in flight (StepBase::PlaceInputs).
struct PendingMoves {
  // Moves not yet done, plus one while they are being started.
  std::atomic<int32_t> left{0};
  absl::Mutex mu;
  absl::Status status ABSL_GUARDED_BY(mu);
};

// Empties a tensor slot. Cheaper than `*slot = Tensor()`: a move assignment
// from a temporary builds the temporary and swaps the shape's inline
// storage through the stack (a store-forwarding stall on every input of
// every node).
inline void ResetSlot(Tensor* slot) {
  std::destroy_at(slot);
  std::construct_at(slot);
}

// Puts `value` into `slot` (which normally holds no value: consumers clear
// their slots when they run; one still there is released).
inline void MoveToSlot(Tensor* slot, Tensor&& value) {
  std::destroy_at(slot);
  std::construct_at(slot, std::move(value));
}
inline void CopyToSlot(Tensor* slot, const Tensor& value) {
  std::destroy_at(slot);
  std::construct_at(slot, value);
}

void ClearInputs(const NodeItem& item, Tensor* tensors, TensorRef* refs) {
  if (item.own_slots != nullptr) {
    // The shared slots' others are empty (nodes with references, whose
    // refs would need clearing, share none).
    for (int32_t i = 0; i < item.num_own_slots; ++i) {
      ResetSlot(&tensors[item.own_slots[i]]);
    }
    return;
  }
  for (int32_t i = 0; i < item.num_inputs; ++i) ResetSlot(&tensors[i]);
  if (item.derefs_input || item.takes_ref_input) {
    std::fill(refs, refs + item.num_inputs, TensorRef());
  }
}

// Where a step's root nodes run.
enum class Roots {
  kRunner,     // all through the runner
  kCheapHere,  // the cheap ones (and what they make ready) here, and a
               // last expensive one known to run short
  kHere,       // here, but for all expensive ones except the last
};

// Nodes ready to run on the current thread, in FIFO order. Reused for every
// node a thread processes in one go.
template <typename T>
class ReadyQueue {
 public:
  // `cheap_only`: the queue of a thread that must not be held up long (an
  // RPC thread running a step's first nodes): an expensive node joins it
  // only as the last thing left and when known to run short.
  explicit ReadyQueue(bool cheap_only = false) : cheap_only_(cheap_only) {}
  bool cheap_only() const { return cheap_only_; }
  void Push(const T& t) { items_.push_back(t); }
  bool Empty() const { return head_ == items_.size(); }
  T Pop() {
    T t = items_[head_++];
    if (head_ == items_.size()) {
      items_.clear();
      head_ = 0;
    }
    return t;
  }

 private:
  absl::InlinedVector<T, 16> items_;
  size_t head_ = 0;
  bool cheap_only_;
};

template <typename T>
using ReadyList = absl::InlinedVector<T, 16>;

class ExecutorImpl : public Executor {
 public:
  ExecutorImpl(const ExecutorParams& params, std::unique_ptr<const Graph> g)
      : params_(params), graph_(std::move(g)) {}

  absl::Status Initialize();

  void RunAsync(const Args& args, DoneCallback done) override;
  const Graph& graph() const override { return *graph_; }
  absl::Status Run(const Args& args) override;

  const ExecutorParams& params() const { return params_; }
  const std::vector<NodeItem>& items() const { return items_; }
  const std::vector<OutEdge>& out_edges() const { return out_edges_; }
  const std::vector<FrameInfo>& frames() const { return frames_; }
  const std::vector<int32_t>& roots() const { return roots_; }
  int32_t num_slots() const { return frames_[0].num_slots; }
  // Merge nodes' value_index outputs (NodeItem::merge_indices_start).
  const Tensor& merge_index(const NodeItem& item, int i) const {
    return merge_indices_[item.merge_indices_start + i];
  }

  // Whether node `id` is worth a runner thread of its own when it becomes
  // ready while other work is queued. A kernel that says it may be
  // expensive is timed until it has run kCheapRunsToLearn times in a row
  // in under kCheapNanos (a scalar add, a comparison), and is then treated
  // as cheap: it runs inline, as TensorFlow's executor learns from its
  // kernels' measured cost. Thread-safe.
  bool IsExpensive(int32_t id) const {
    return items_[id].expensive &&
           cheap_runs_[id].load(std::memory_order_relaxed) < kCheapRunsToLearn;
  }
  // Whether node `id` may run on a thread that must not be held up long
  // (an RPC thread's cheap-only queue) when nothing else is left for it:
  // cheap, or its last kCheapRunsToLearn runs all took under kShortNanos.
  bool RunsShort(int32_t id) const {
    return !IsExpensive(id) ||
           short_runs_[id].load(std::memory_order_relaxed) >=
               kCheapRunsToLearn;
  }
  // Records one synchronous run of node `id` that took `nanos`.
  void RecordRun(int32_t id, int64_t nanos) const {
    Count(&cheap_runs_[id], nanos < kCheapNanos);
    Count(&short_runs_[id], nanos < kShortNanos);
  }
  static constexpr int32_t kCheapRunsToLearn = 16;
  static constexpr int64_t kCheapNanos = 2000;
  static constexpr int64_t kShortNanos = 100'000;

  // Byte offsets of a SimpleStep's arrays inside its block.
  size_t pending_offset_ = 0;
  size_t tensors_offset_ = 0;
  size_t refs_offset_ = 0;
  size_t dead_offset_ = 0;
  size_t block_size_ = 0;

  // The block of a SimpleStep that ended with every input slot empty, its
  // tensors left constructed for the next step (TakeSpareBlock), or null.
  // One is kept: a graph stepped serially (the common case) allocates and
  // constructs its slots once; steps running at once allocate the others.
  // A graph with 10,000 input slots spent 13% of a step constructing them.
  // The price: a step's state (about 100 bytes per input slot) stays
  // allocated for the executor's life.
  char* TakeSpareBlock() const {
    return spare_block_.exchange(nullptr, std::memory_order_acquire);
  }
  // False when a block is kept already: the caller frees `block`.
  bool KeepSpareBlock(char* block) const {
    char* none = nullptr;
    return spare_block_.compare_exchange_strong(none, block,
                                                std::memory_order_release,
                                                std::memory_order_relaxed);
  }
  ~ExecutorImpl() override;

 private:
  // Sets each node's frame; the frames' names, parents and iterations.
  absl::Status BuildFrames(std::vector<int32_t>* frame_of);
  // Of node `src`'s data edges (its out edges from out_start on, data edges
  // first), keeps one per (consumer, output) for a consumer that can share
  // input slots: the others go, their inputs read the kept edge's slot
  // ((*shared)[consumer], filled in), and (*weight)[k] counts the edges
  // the k-th kept edge stands for. A graph without control flow only.
  void ShareInputSlots(int32_t src, std::vector<std::vector<int32_t>>* shared,
                       std::vector<uint32_t>* weight);
  void Start(const Args& args, DoneCallback done, Roots roots);

  const ExecutorParams params_;
  const std::unique_ptr<const Graph> graph_;
  mutable std::atomic<char*> spare_block_{nullptr};
  std::vector<std::shared_ptr<OpKernel>> kernels_;
  std::vector<NodeItem> items_;
  std::vector<OutEdge> out_edges_;
  std::vector<FrameInfo> frames_;
  std::vector<int32_t> roots_;
  std::vector<int32_t> dense_;  // node id -> index in items_
  std::vector<Tensor> merge_indices_;
  // NodeItem::input_map and own_slots point into these.
  std::vector<int32_t> input_maps_;
  std::vector<int32_t> own_slots_;
  bool has_control_flow_ = false;
  // Adds one to `*runs` when `under`, else starts it again.
  static void Count(std::atomic<int32_t>* runs, bool under) {
    if (under) {
      runs->fetch_add(1, std::memory_order_relaxed);
    } else {
      runs->store(0, std::memory_order_relaxed);
    }
  }

  // By node: consecutive runs under kCheapNanos, and under kShortNanos, up
  // to kCheapRunsToLearn (more runs may race past it; it is only compared
  // with it).
  std::unique_ptr<std::atomic<int32_t>[]> cheap_runs_;
  std::unique_ptr<std::atomic<int32_t>[]> short_runs_;
};

// ---------------------------------------------------------------------------
// StepBase: what both kinds of step share — scheduling, async kernels,
// errors, cancellation and the end of the step. `Derived` provides
// ProcessNode(tagged, queue, ready), Destroy() and FinalStatus(); `Tagged`
// is what names a node instance in a ready queue.

template <typename Derived, typename Tagged>
class StepBase {
 public:
  // Starts the root nodes: on the calling thread or through the runner
  // (Roots).
  void Start(ReadyList<Tagged> roots, Roots where) {
    if (cancellation_manager_ != nullptr) {
      cancel_token_ = cancellation_manager_->get_cancellation_token();
      cancel_registered_ = cancellation_manager_->RegisterCallback(
          cancel_token_, [this] { Cancel(); });
      if (!cancel_registered_) {
        Executor::DoneCallback done = std::move(done_);
        derived()->Destroy();
        done(absl::CancelledError("step cancelled before it started"));
        return;
      }
    }
    if (roots.empty()) {
      outstanding_.store(1, std::memory_order_relaxed);
      Finish();
      return;
    }
    outstanding_.store(static_cast<int64_t>(roots.size()),
                       std::memory_order_relaxed);
    if (where != Roots::kRunner) {
      ReadyQueue<Tagged> queue(where == Roots::kCheapHere);
      ScheduleReady(roots, &queue);
      RunLoop(&queue);
    } else {
      ScheduleReady(roots, nullptr);
    }
  }

 protected:
  struct AsyncState {
    AsyncState(Derived* step, const Tagged& tagged,
               const OpKernelContext::Params& p,
               std::optional<NodeExecStatsRecorder> stats)
        : step(step), tagged(tagged), params(p), ctx(&params),
          stats(std::move(stats)) {}
    Derived* step;
    Tagged tagged;
    OpKernelContext::Params params;
    OpKernelContext ctx;
    std::optional<NodeExecStatsRecorder> stats;
  };

  StepBase(const ExecutorImpl* impl, const Executor::Args& args,
           Executor::DoneCallback done)
      : impl_(impl),
        step_id_(args.step_id),
        call_frame_(args.call_frame),
        rendezvous_(args.rendezvous),
        cancellation_manager_(args.cancellation_manager),
        stats_collector_(args.stats_collector),
        runner_(args.runner),
        done_(std::move(done)),
        step_container_(args.step_id,
                        impl->params().device->resource_manager()) {
    base_params_.step_id = step_id_;
    base_params_.device = impl_->params().device;
    base_params_.rendezvous = rendezvous_;
    base_params_.cancellation_manager = cancellation_manager_;
    base_params_.call_frame = call_frame_;
    base_params_.step_container = &step_container_;
  }

  Derived* derived() { return static_cast<Derived*>(this); }
  const std::vector<NodeItem>& items() const { return impl_->items(); }

  bool aborted() const { return aborted_.load(std::memory_order_acquire); }

  // Fills the kernel parameters of `item` into `params`, a copy of
  // base_params_ (the fields every node of the step shares: copying them
  // costs less than building Params from its defaults and setting them).
  void FillParams(const NodeItem& item, Tensor* inputs, const TensorRef* refs,
                  bool dead, FrameAndIter frame_iter,
                  OpKernelContext::Params* params) {
    params->op_kernel = item.kernel;
    params->inputs = absl::Span<const Tensor>(inputs, item.num_inputs);
    params->input_map = item.input_map;
    if (item.takes_ref_input) {
      params->input_refs = absl::Span<const TensorRef>(refs, item.num_inputs);
    }
    params->is_input_dead = dead;
    params->frame_iter = frame_iter;
  }

  // Runs `item`'s kernel for `tagged`. A synchronous kernel's context is
  // handed to `done(ctx, stats)` before returning; an async kernel's later,
  // on its own thread, through Derived::AsyncDone.
  template <typename DoneFn>
  void RunKernel(const NodeItem& item, const Tagged& tagged,
                 OpKernelContext::Params* params, DoneFn&& done) {
    if (stats_collector_ == nullptr && !item.is_async) {
      // The common case, without a recorder to build.
      OpKernelContext ctx(params);
      ComputeSync(item, tagged, &ctx);
      done(&ctx);
      return;
    }
    std::optional<NodeExecStatsRecorder> stats;
    if (stats_collector_ != nullptr) stats.emplace(*item.node);
    if (item.is_async) {
      // The inputs stay in their slots until the kernel is done.
      auto* state =
          new AsyncState(derived(), tagged, *params, std::move(stats));
      if (state->stats) state->stats->RecordComputeStarted();
      item.kernel->AsAsync()->ComputeAsync(
          &state->ctx, [state] { state->step->AsyncDone(state); });
      return;
    }
    OpKernelContext ctx(params);
    if (stats) stats->RecordComputeStarted();
    ComputeSync(item, tagged, &ctx);
    if (stats) {
      stats->RecordComputeEnded();
      stats->RecordOutputs(&ctx);
    }
    done(&ctx);
    if (stats) stats->Done(stats_collector_, impl_->params().device->name());
  }

  // Runs a synchronous kernel, timing it while it may be expensive.
  void ComputeSync(const NodeItem& item, const Tagged& tagged,
                   OpKernelContext* ctx) {
    const int32_t id = Derived::IdOf(tagged);
    if (impl_->IsExpensive(id)) {
      using Clock = std::chrono::steady_clock;
      const Clock::time_point start = Clock::now();
      item.kernel->Compute(ctx);
      impl_->RecordRun(id, std::chrono::nanoseconds(Clock::now() - start)
                               .count());
    } else {
      item.kernel->Compute(ctx);
    }
  }

  // Runs `item` for `tagged`, whose inputs are in `inputs`/`refs` (alive, or
  // `dead` for a transfer node): reads referenced inputs, then runs the
  // kernel; Derived::KernelDone hands its outputs on.
  void RunNode(const NodeItem& item, const Tagged& tagged, Tensor* inputs,
               TensorRef* refs, bool dead, FrameAndIter frame_iter,
               ReadyQueue<Tagged>* queue, ReadyList<Tagged>* ready) {
    if (item.derefs_input) {
      absl::Status s = DerefInputs(item, inputs, refs);
      if (!s.ok()) {
        ClearInputs(item, inputs, refs);
        RecordError(PrefixWithNode(item, s));
        NodeDone(ready, queue);
        return;
      }
    }
    if (item.places_inputs && !dead &&
        PlaceInputs(item, tagged, inputs, refs, frame_iter)) {
      return;  // the node runs once its inputs are in place
    }
    RunPlacedNode(item, tagged, inputs, refs, dead, frame_iter, queue, ready);
  }

  // RunNode's second half: runs the kernel of `item`, whose inputs are in
  // the memory it reads them from.
  void RunPlacedNode(const NodeItem& item, const Tagged& tagged, Tensor* inputs,
                     TensorRef* refs, bool dead, FrameAndIter frame_iter,
                     ReadyQueue<Tagged>* queue, ReadyList<Tagged>* ready) {
    OpKernelContext::Params params(base_params_);
    FillParams(item, inputs, refs, dead, frame_iter, &params);
    // An asynchronous kernel may finish the step before ComputeAsync
    // returns, and the step's end may free the executor and `item` with it
    // (a worker's graph deregistered while it ran): nothing of either is
    // read after RunKernel then.
    const bool is_async = item.is_async;
    RunKernel(item, tagged, &params, [&](OpKernelContext* ctx) {
      derived()->KernelDone(tagged, ctx, ready);
    });
    if (!is_async) NodeDone(ready, queue);
  }

  // Starts moving the inputs of `item` that are in the other memory than
  // its kernel reads them from (NeedsMove), asynchronously (the device's
  // AsyncCopyDevice: no thread waits for a DMA), and returns true; the
  // node is then still outstanding, and the thread that finishes the last
  // move runs its kernel (InputsPlaced), as an async kernel's completion
  // does. False, having started nothing, when no input needs moving.
  // The inputs stay in their slots meanwhile, as an async kernel's do.
  bool PlaceInputs(const NodeItem& item, const Tagged& tagged, Tensor* inputs,
                   TensorRef* refs, FrameAndIter frame_iter) {
    int32_t moves = 0;
    for (int32_t i = 0; i < item.num_inputs; ++i) {
      if (NeedsMove(item, i, inputs[i])) ++moves;
    }
    if (moves == 0) return false;
    auto pending = std::make_shared<PendingMoves>();
    pending->left.store(moves + 1, std::memory_order_relaxed);
    auto one_done = [this, pending, &item, tagged, inputs, refs, frame_iter] {
      if (pending->left.fetch_sub(1, std::memory_order_acq_rel) != 1) return;
      absl::Status status;
      {
        absl::MutexLock lock(&pending->mu);
        status = pending->status;
      }
      InputsPlaced(item, tagged, inputs, refs, frame_iter, status);
    };
    Device* device = base_params_.device;
    for (int32_t i = 0; i < item.num_inputs; ++i) {
      if (!NeedsMove(item, i, inputs[i])) continue;
      const bool want_host = item.kernel->input_on_host(i);
      // Its own reference: the callback may replace the slot's tensor
      // before the call returns.
      const Tensor source = inputs[i];
      auto moved = [pending, one_done, slot = &inputs[i], i,
                    want_host](absl::StatusOr<Tensor> copy) {
        if (copy.ok()) {
          *slot = *std::move(copy);
        } else {
          absl::MutexLock lock(&pending->mu);
          if (pending->status.ok()) {
            pending->status = absl::Status(
                copy.status().code(),
                absl::StrCat("copying input ", i, " to ",
                             want_host ? "host" : "device",
                             " memory: ", copy.status().message()));
          }
        }
        one_done();
      };
      if (want_host) {
        CopyToHostAsync(device, source, cancellation_manager_,
                        std::move(moved));
      } else {
        CopyFromHostAsync(device, source, CopySource{}, cancellation_manager_,
                          std::move(moved));
      }
    }
    one_done();
    return true;
  }

  // After PlaceInputs' last move, on whatever thread finished it: runs the
  // node's kernel (or fails the node with `status`), then the cheap nodes
  // it makes ready, as ContinueAfterAsync does.
  void InputsPlaced(const NodeItem& item, const Tagged& tagged, Tensor* inputs,
                    TensorRef* refs, FrameAndIter frame_iter,
                    const absl::Status& status) {
    ScopedFlushDenormal flush;
    ReadyList<Tagged> ready;
    ReadyQueue<Tagged> queue(/*cheap_only=*/true);
    if (!status.ok() || aborted()) {
      ClearInputs(item, inputs, refs);
      if (!status.ok()) RecordError(PrefixWithNode(item, status));
      NodeDone(&ready, &queue);
    } else {
      RunPlacedNode(item, tagged, inputs, refs, /*dead=*/false, frame_iter,
                    &queue, &ready);
    }
    RunLoop(&queue);
  }

  void FinishAsyncStats(AsyncState* state) {
    if (state->stats) {
      state->stats->Done(stats_collector_, impl_->params().device->name());
    }
  }

  void RunLoop(ReadyQueue<Tagged>* queue) {
    // Whatever thread runs the nodes (a pool's, an RPC handler's, the
    // caller's), kernels see TensorFlow's floating-point mode.
    ScopedFlushDenormal flush;
    ReadyList<Tagged> ready;
    // Only the local queue is read between nodes: once it is empty the step
    // may already be finished and freed by another thread.
    while (!queue->Empty()) {
      derived()->ProcessNode(queue->Pop(), queue, &ready);
    }
  }

  // After an async kernel finished, on whatever thread finished it (an
  // RPC's, a timer's, another step's): the cheap nodes it made ready (and a
  // last expensive one known to run short) run here, as a cheap-only queue
  // takes them, rather than waking a runner thread; the rest go to the
  // runner.
  void ContinueAfterAsync(ReadyList<Tagged>* ready) {
    ReadyQueue<Tagged> queue(/*cheap_only=*/true);
    NodeDone(ready, &queue);
    RunLoop(&queue);
  }

  void Process(const Tagged& tagged) {
    ReadyQueue<Tagged> queue;
    queue.Push(tagged);
    RunLoop(&queue);
  }

  // Accounts for one finished node that made `ready` ready; with `queue`
  // null everything ready goes to the runner. The caller must not touch the
  // step afterwards unless its own queue is non-empty.
  void NodeDone(ReadyList<Tagged>* ready, ReadyQueue<Tagged>* queue) {
    if (aborted()) ready->clear();
    const int64_t k = static_cast<int64_t>(ready->size());
    if (k == 0) {
      if (outstanding_.fetch_sub(1, std::memory_order_acq_rel) == 1) Finish();
      return;
    }
    if (k > 1) outstanding_.fetch_add(k - 1, std::memory_order_relaxed);
    ScheduleReady(*ready, queue);
  }

  void ScheduleReady(const ReadyList<Tagged>& ready,
                     ReadyQueue<Tagged>* queue) {
    // While dispatching, a guard count keeps the step alive: a dispatched
    // node could otherwise finish the step before this loop ends.
    bool guard = false;
    auto dispatch = [&](const Tagged& t) {
      if (!guard) {
        outstanding_.fetch_add(1, std::memory_order_relaxed);
        guard = true;
      }
      Dispatch(t);
    };
    if (queue == nullptr) {
      // Expensive nodes go to the runner one by one, the cheap ones in one
      // closure that runs them in order (as TensorFlow batches inexpensive
      // ready nodes): a step whose roots are thousands of Consts (a
      // TensorFlow-built chain has one per add) hands the pool one closure,
      // not thousands.
      ReadyList<Tagged> cheap;
      for (const Tagged& t : ready) {
        if (impl_->IsExpensive(Derived::IdOf(t))) {
          dispatch(t);
        } else {
          cheap.push_back(t);
        }
      }
      if (cheap.size() == 1) {
        dispatch(cheap[0]);
      } else if (!cheap.empty()) {
        if (!guard) {
          outstanding_.fetch_add(1, std::memory_order_relaxed);
          guard = true;
        }
        DispatchBatch(std::move(cheap));
      }
    } else {
      // Cheap nodes run inline; of the expensive ones all but the last go
      // to the runner, and the last runs inline when nothing else does
      // (on a cheap-only queue, only when it is known to run short).
      const Tagged* tail = nullptr;
      for (const Tagged& t : ready) {
        if (!impl_->IsExpensive(Derived::IdOf(t))) {
          queue->Push(t);
        } else {
          if (tail != nullptr) dispatch(*tail);
          tail = &t;
        }
      }
      if (tail != nullptr) {
        if (queue->Empty() &&
            (!queue->cheap_only() || impl_->RunsShort(Derived::IdOf(*tail)))) {
          queue->Push(*tail);
        } else {
          dispatch(*tail);
        }
      }
    }
    if (guard && outstanding_.fetch_sub(1, std::memory_order_acq_rel) == 1) {
      Finish();
    }
  }

  void Dispatch(const Tagged& t) {
    if (runner_) {
      runner_([this, t] { Process(t); });
    } else {
      Process(t);
    }
  }

  // Runs `batch` in order on one runner thread (or here, without a runner).
  void DispatchBatch(ReadyList<Tagged> batch) {
    if (runner_) {
      runner_([this, batch = std::move(batch)] { ProcessAll(batch); });
    } else {
      ProcessAll(batch);
    }
  }

  void ProcessAll(const ReadyList<Tagged>& batch) {
    ReadyQueue<Tagged> queue;
    for (const Tagged& t : batch) queue.Push(t);
    RunLoop(&queue);
  }

  void RecordError(const absl::Status& s) {
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

  void Cancel() {
    {
      absl::MutexLock lock(&mu_);
      if (status_.ok()) status_ = absl::CancelledError("step was cancelled");
    }
    aborted_.store(true, std::memory_order_release);
  }

  void Finish() {
    if (cancel_registered_) {
      // Waits while our callback may be running on another thread.
      cancellation_manager_->DeregisterCallback(cancel_token_);
    }
    absl::Status status;
    {
      absl::MutexLock lock(&mu_);
      status = status_;
    }
    if (status.ok()) status = derived()->FinalStatus();
    Executor::DoneCallback done = std::move(done_);
    derived()->Destroy();
    done(std::move(status));
  }

  const ExecutorImpl* const impl_;
  const int64_t step_id_;
  CallFrameInterface* const call_frame_;
  Rendezvous* const rendezvous_;
  CancellationManager* const cancellation_manager_;
  StepStatsCollector* const stats_collector_;
  const Executor::Runner runner_;
  Executor::DoneCallback done_;
  ScopedStepContainer step_container_;
  // What every node's kernel parameters start from (FillParams).
  OpKernelContext::Params base_params_;

  // Nodes queued or running, plus guards held while dispatching.
  std::atomic<int64_t> outstanding_{0};
  std::atomic<bool> aborted_{false};
  absl::Mutex mu_;
  absl::Status status_ ABSL_GUARDED_BY(mu_);
  CancellationToken cancel_token_ = -1;
  bool cancel_registered_ = false;
};

// ---------------------------------------------------------------------------
// SimpleStep: a step of a graph without control flow. Allocated with its
// arrays in one block (New) and destroyed when the step finishes.

class SimpleStep : public StepBase<SimpleStep, int32_t> {
  friend class StepBase<SimpleStep, int32_t>;

 public:
  static SimpleStep* New(const ExecutorImpl* impl, const Executor::Args& args,
                         Executor::DoneCallback done) {
    static_assert(alignof(SimpleStep) <= __STDCPP_DEFAULT_NEW_ALIGNMENT__);
    char* block = impl->TakeSpareBlock();
    const bool fresh = block == nullptr;
    if (fresh) block = static_cast<char*>(::operator new(impl->block_size_));
    return new (block) SimpleStep(impl, args, std::move(done), block, fresh);
  }

  // The input slots of a block (constructed).
  static Tensor* Slots(const ExecutorImpl* impl, char* block) {
    return reinterpret_cast<Tensor*>(block + impl->tensors_offset_);
  }
  // Destroys the slots of a block and frees it (one from New, or the
  // executor's spare).
  static void FreeBlock(const ExecutorImpl* impl, char* block) {
    Tensor* slots = Slots(impl, block);
    for (int32_t i = 0; i < impl->num_slots(); ++i) slots[i].~Tensor();
    ::operator delete(static_cast<void*>(block));
  }

  static int32_t IdOf(int32_t id) { return id; }

  void ProcessNode(int32_t id, ReadyQueue<int32_t>* queue,
                   ReadyList<int32_t>* ready);
  void AsyncDone(AsyncState* state);
  // Ends the step; its block becomes the executor's spare when every input
  // slot is empty (consumers empty their slots when they run, so a step
  // that ran every node leaves none behind) and none is kept yet.
  void Destroy() {
    const ExecutorImpl* impl = impl_;
    char* block = reinterpret_cast<char*>(this);
    bool empty = true;
    for (int32_t i = 0; i < impl->num_slots() && empty; ++i) {
      empty = !tensors_[i].IsInitialized();
    }
    this->~SimpleStep();
    if (!empty || !impl->KeepSpareBlock(block)) FreeBlock(impl, block);
  }
  absl::Status FinalStatus() { return absl::OkStatus(); }

 private:
  // `fresh`: the block is new, its slots not constructed yet; else they
  // are, and empty (the executor's spare).
  SimpleStep(const ExecutorImpl* impl, const Executor::Args& args,
             Executor::DoneCallback done, char* block, bool fresh);
  // Leaves the slots to Destroy.
  ~SimpleStep() = default;

  // Hands the kernel's outputs (or deadness, with ctx null) to the
  // consumers; those whose pending count reaches zero go to `ready`.
  void PropagateOutputs(const NodeItem& item, OpKernelContext* ctx,
                        bool node_dead, ReadyList<int32_t>* ready);
  // Finishes a node whose kernel ran.
  void KernelDone(int32_t id, OpKernelContext* ctx,
                  ReadyList<int32_t>* ready);

  std::atomic<int32_t>* pending_;  // per node
  Tensor* tensors_;                // per input slot
  TensorRef* refs_;                // per input slot
  std::atomic<uint8_t>* dead_;     // per node: some input is dead
};

SimpleStep::SimpleStep(const ExecutorImpl* impl, const Executor::Args& args,
                       Executor::DoneCallback done, char* block, bool fresh)
    : StepBase(impl, args, std::move(done)) {
  const std::vector<NodeItem>& nodes = impl_->items();
  const std::vector<int32_t>& initial = impl_->frames()[0].initial_pending;
  const size_t n = nodes.size();
  pending_ =
      reinterpret_cast<std::atomic<int32_t>*>(block + impl_->pending_offset_);
  for (size_t i = 0; i < n; ++i) {
    new (&pending_[i]) std::atomic<int32_t>(initial[i]);
  }
  const int32_t slots = impl_->num_slots();
  tensors_ = Slots(impl_, block);
  if (fresh) {
    for (int32_t i = 0; i < slots; ++i) new (&tensors_[i]) Tensor();
  }
  refs_ = reinterpret_cast<TensorRef*>(block + impl_->refs_offset_);
  static_assert(std::is_trivially_destructible_v<TensorRef>);
  std::fill(refs_, refs_ + slots, TensorRef());
  dead_ = reinterpret_cast<std::atomic<uint8_t>*>(block + impl_->dead_offset_);
  for (size_t i = 0; i < n; ++i) new (&dead_[i]) std::atomic<uint8_t>(0);
}

static_assert(std::is_trivially_destructible_v<std::atomic<int32_t>>);
static_assert(std::is_trivially_destructible_v<std::atomic<uint8_t>>);

ExecutorImpl::~ExecutorImpl() {
  if (char* block = TakeSpareBlock()) SimpleStep::FreeBlock(this, block);
}

void SimpleStep::ProcessNode(int32_t id, ReadyQueue<int32_t>* queue,
                             ReadyList<int32_t>* ready) {
  const NodeItem& item = items()[id];
  ready->clear();
  if (aborted()) {
    NodeDone(ready, queue);
    return;
  }
  Tensor* inputs = tensors_ + item.input_start;
  TensorRef* refs = refs_ + item.input_start;
  const bool dead = dead_[id].load(std::memory_order_relaxed) != 0;
  if (dead && !item.runs_when_dead) {
    PropagateOutputs(item, nullptr, /*node_dead=*/true, ready);
    ClearInputs(item, inputs, refs);
    NodeDone(ready, queue);
    return;
  }
  RunNode(item, id, inputs, refs, dead, FrameAndIter{}, queue, ready);
}

void SimpleStep::KernelDone(int32_t id, OpKernelContext* ctx,
                            ReadyList<int32_t>* ready) {
  const NodeItem& item = items()[id];
  absl::Status s = CheckOutputs(item, ctx);
  if (s.ok()) {
    // A transfer node that ran dead passes its deadness on.
    PropagateOutputs(item, ctx, ctx->is_input_dead(), ready);
  } else {
    RecordError(s);
  }
  ClearInputs(item, tensors_ + item.input_start, refs_ + item.input_start);
}

void SimpleStep::AsyncDone(AsyncState* state) {
  if (state->stats) {
    state->stats->RecordComputeEnded();
    state->stats->RecordOutputs(&state->ctx);
  }
  ReadyList<int32_t> ready;
  KernelDone(state->tagged, &state->ctx, &ready);
  FinishAsyncStats(state);
  delete state;
  ContinueAfterAsync(&ready);
}

void SimpleStep::PropagateOutputs(const NodeItem& item, OpKernelContext* ctx,
                                  bool node_dead, ReadyList<int32_t>* ready) {
  const bool dead = node_dead || ctx == nullptr || ctx->is_output_dead();
  absl::InlinedVector<Tensor, 4>* outputs =
      dead ? nullptr : ctx->mutable_outputs();
  const OutEdge* e = impl_->out_edges().data() + item.out_start;
  const OutEdge* end = e + item.num_out;
  for (; e != end; ++e) {
    if (dead) {
      // A dead input, data or control, makes the consumer dead.
      dead_[e->dst].store(1, std::memory_order_relaxed);
    } else if (e->dst_slot >= 0) {
      if (item.has_ref_output &&
          IsRefType(item.kernel->output_type(e->src_output))) {
        refs_[e->dst_slot] = ctx->output_refs()[e->src_output];
      } else if (e->last_use) {
        MoveToSlot(&tensors_[e->dst_slot],
                   std::move((*outputs)[e->src_output]));
      } else {
        CopyToSlot(&tensors_[e->dst_slot], (*outputs)[e->src_output]);
      }
    }
    if (e->pending_dec != 0) {
      const auto dec = static_cast<int32_t>(e->pending_dec);
      if (pending_[e->dst].fetch_sub(dec, std::memory_order_acq_rel) == dec) {
        ready->push_back(e->dst);
      }
    }
  }
}

// ---------------------------------------------------------------------------
// LoopStep: a step of a graph with control flow.

// One output of a node on its way to the consumers.
struct Entry {
  Tensor tensor;
  TensorRef ref;
  bool dead = false;
};
using Entries = absl::InlinedVector<Entry, 4>;

// One iteration of one frame instance, allocated with its arrays in one
// block (New / Delete), and reused for a later iteration of the same frame
// instance (Reset).
struct IterState {
  static IterState* New(const FrameInfo& info, int64_t n) {
    const size_t nodes = info.initial_pending.size();
    const size_t slots = static_cast<size_t>(info.num_slots);
    const size_t counts_at = AlignUp(sizeof(IterState), alignof(int32_t));
    const size_t tensors_at =
        AlignUp(counts_at + 2 * nodes * sizeof(int32_t), alignof(Tensor));
    const size_t refs_at =
        AlignUp(tensors_at + slots * sizeof(Tensor), alignof(TensorRef));
    static_assert(alignof(IterState) <= __STDCPP_DEFAULT_NEW_ALIGNMENT__);
    char* block = static_cast<char*>(
        ::operator new(refs_at + slots * sizeof(TensorRef)));
    auto* it = new (block) IterState(n, static_cast<int32_t>(slots));
    it->pending = reinterpret_cast<int32_t*>(block + counts_at);
    it->dead_count = it->pending + nodes;
    std::copy(info.initial_pending.begin(), info.initial_pending.end(),
              it->pending);
    std::fill(it->dead_count, it->dead_count + nodes, 0);
    it->tensors = reinterpret_cast<Tensor*>(block + tensors_at);
    for (size_t i = 0; i < slots; ++i) new (&it->tensors[i]) Tensor();
    it->refs = reinterpret_cast<TensorRef*>(block + refs_at);
    std::fill(it->refs, it->refs + slots, TensorRef());
    return it;
  }
  // Makes a done iteration of `info`'s frame (from New(info, ...)) iteration
  // `n`, as New would.
  static IterState* Reset(IterState* it, const FrameInfo& info, int64_t n) {
    const size_t nodes = info.initial_pending.size();
    it->iter_num = n;
    it->outstanding_ops = 0;
    it->outstanding_frames = 0;
    std::copy(info.initial_pending.begin(), info.initial_pending.end(),
              it->pending);
    std::fill(it->dead_count, it->dead_count + nodes, 0);
    // Consumers cleared their input slots when they ran; a slot of a node
    // that never ran (malformed control flow) may still hold a value.
    for (int32_t i = 0; i < it->num_slots; ++i) {
      if (it->tensors[i].IsInitialized()) ResetSlot(&it->tensors[i]);
    }
    std::fill(it->refs, it->refs + it->num_slots, TensorRef());
    return it;
  }
  static void Delete(IterState* it) {
    if (it == nullptr) return;
    for (int32_t i = 0; i < it->num_slots; ++i) it->tensors[i].~Tensor();
    it->~IterState();
    ::operator delete(static_cast<void*>(it));
  }

  int64_t iter_num;
  const int32_t num_slots;
  // Nodes ready or running in this iteration.
  int64_t outstanding_ops = 0;
  // Child frames started in this iteration and not yet done.
  int32_t outstanding_frames = 0;
  // By pending_id. A Merge's count is 2 per pending control input, plus 1
  // until a live data input has arrived.
  int32_t* pending = nullptr;
  int32_t* dead_count = nullptr;
  // By input slot.
  Tensor* tensors = nullptr;
  TensorRef* refs = nullptr;

 private:
  IterState(int64_t n, int32_t slots) : iter_num(n), num_slots(slots) {}
  ~IterState() = default;
};

// One execution of a loop: a frame entered in one iteration of its parent.
struct FrameState {
  FrameState(const FrameInfo* info, uint64_t id, FrameState* parent,
             IterState* parent_iter)
      : info(info),
        id(id),
        parent(parent),
        parent_iter(parent_iter),
        max_parallel(std::max<int32_t>(1, info->parallel_iterations)),
        ring(max_parallel + 1, nullptr),
        num_pending_inputs(info->num_enters) {
    ring[0] = IterState::New(*info, 0);
  }
  ~FrameState() {
    for (IterState* it : ring) IterState::Delete(it);
    IterState::Delete(spare);
  }

  // Iteration `i`, or null when it does not exist (yet or any more).
  IterState* Iteration(int64_t i) const ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu) {
    IterState* s = ring[i % static_cast<int64_t>(ring.size())];
    return s != nullptr && s->iter_num == i ? s : nullptr;
  }

  const FrameInfo* const info;
  const uint64_t id;  // in rendezvous keys; 0 for the root frame
  FrameState* const parent;
  IterState* const parent_iter;
  const int32_t max_parallel;

  LightMutex mu;
  // Live iterations; iteration i at i % ring.size().
  std::vector<IterState*> ring ABSL_GUARDED_BY(mu);
  int64_t iteration_count ABSL_GUARDED_BY(mu) = 0;
  int32_t num_outstanding_iterations ABSL_GUARDED_BY(mu) = 1;
  // Enters into this frame that have not run yet.
  int32_t num_pending_inputs ABSL_GUARDED_BY(mu);
  // NextIteration outputs held back while max_parallel iterations run.
  std::vector<std::pair<int32_t, Entry>> next_iter_roots ABSL_GUARDED_BY(mu);
  // Values of constant Enters, given to every iteration.
  std::vector<std::pair<int32_t, Entry>> inv_values ABSL_GUARDED_BY(mu);
  // Exits that were dead in the newest iteration: their deadness reaches
  // the parent frame when this frame is done.
  std::vector<int32_t> dead_exits ABSL_GUARDED_BY(mu);
  // The last done iteration's block, kept for the next iteration: a loop
  // that runs one iteration at a time allocates two blocks in all.
  IterState* spare ABSL_GUARDED_BY(mu) = nullptr;
};

// A node's outputs as ActivateNodes reads them: entries (values moved
// between frames and iterations, or dead), or straight from the kernel.
struct EntryOutputs {
  Entries* entries;
  bool dead(int i) const { return (*entries)[i].dead; }
  void StoreTo(int i, bool last_use, Tensor* tensor, TensorRef* ref) const {
    Entry& out = (*entries)[i];
    if (out.ref.valid()) {
      *ref = out.ref;
    } else if (last_use) {
      MoveToSlot(tensor, std::move(out.tensor));
    } else {
      CopyToSlot(tensor, out.tensor);
    }
  }
};

struct KernelOutputs {
  const NodeItem* item;
  OpKernelContext* ctx;
  bool all_dead;
  bool is_ref(int i) const {
    return item->has_ref_output && IsRefType(item->kernel->output_type(i));
  }
  bool dead(int i) const {
    if (all_dead) return true;
    if (is_ref(i)) {
      return ctx->output_refs().empty() || !ctx->output_refs()[i].valid();
    }
    return !(*ctx->mutable_outputs())[i].IsInitialized();
  }
  void StoreTo(int i, bool last_use, Tensor* tensor, TensorRef* ref) const {
    if (is_ref(i)) {
      *ref = ctx->output_refs()[i];
    } else if (last_use) {
      MoveToSlot(tensor, std::move((*ctx->mutable_outputs())[i]));
    } else {
      CopyToSlot(tensor, (*ctx->mutable_outputs())[i]);
    }
  }
};

// The outputs of a node the executor forwards itself (ForwardNode): one
// value, on output `live` (the others are dead), and a Merge's value_index.
struct ForwardedOutputs {
  Tensor* value;
  int32_t live;
  const Tensor* index;  // Merge: output 1; null otherwise
  bool dead(int i) const { return i != live && (index == nullptr || i != 1); }
  void StoreTo(int i, bool last_use, Tensor* tensor, TensorRef*) const {
    if (i != live) {
      CopyToSlot(tensor, *index);
    } else if (last_use) {
      MoveToSlot(tensor, std::move(*value));
    } else {
      CopyToSlot(tensor, *value);
    }
  }
};

struct TaggedNode {
  TaggedNode(int32_t id, FrameState* frame, IterState* iter, bool dead)
      : id(id), frame(frame), iter(iter), dead(dead) {}
  int32_t id;
  FrameState* frame;
  IterState* iter;
  bool dead;
};

class LoopStep : public StepBase<LoopStep, TaggedNode> {
  friend class StepBase<LoopStep, TaggedNode>;

 public:
  LoopStep(const ExecutorImpl* impl, const Executor::Args& args,
           Executor::DoneCallback done)
      : StepBase(impl, args, std::move(done)),
        root_(&impl->frames()[0], 0, nullptr, nullptr) {
    LightMutexLock lock(&root_.mu);
    // The root's only iteration lives as long as the step.
    root_.Iteration(0)->outstanding_ops = 1;
  }

  ReadyList<TaggedNode> Roots() {
    ReadyList<TaggedNode> roots;
    LightMutexLock lock(&root_.mu);
    for (int32_t id : impl_->roots()) {
      roots.emplace_back(id, &root_, root_.Iteration(0), false);
    }
    return roots;
  }

  static int32_t IdOf(const TaggedNode& t) { return t.id; }

  void ProcessNode(const TaggedNode& t, ReadyQueue<TaggedNode>* queue,
                   ReadyList<TaggedNode>* ready);
  void AsyncDone(AsyncState* state);
  void Destroy() { delete this; }
  absl::Status FinalStatus();

 private:
  ~LoopStep() {
    for (auto& [key, frame] : frames_) delete frame;
  }

  void KernelDone(const TaggedNode& t, OpKernelContext* ctx,
                  ReadyList<TaggedNode>* ready);
  // Runs a node of NodeItem::Forward kind without its kernel: its value
  // moves from its input slot to its consumers. False, with nothing done,
  // when the kernel must run instead (to report bad inputs).
  bool ForwardNode(const TaggedNode& t, const NodeItem& item, Tensor* inputs,
                   TensorRef* refs, ReadyList<TaggedNode>* ready);
  // Which input a forwarded node passes on (`in`) and to which output
  // (`live`); false when its kernel must run instead.
  bool PlanForward(const NodeItem& item, const Tensor* inputs, int32_t* in,
                   int32_t* live) const;
  // ForwardNode's work for a node in its own frame and iteration (not an
  // Enter, Exit or NextIteration), planned by PlanForward: hands the value
  // on (what becomes ready is appended to `ready`) and retires the node.
  void ForwardLocked(TaggedNode t, const NodeItem& item, int32_t in,
                     int32_t live, ReadyList<TaggedNode>* ready)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(t.frame->mu);
  // Hands a live NextIteration's value to the next iteration of its frame
  // (starting it, or holding the value back while parallel_iterations
  // iterations run). The caller retires the node.
  void NextIterationLocked(const TaggedNode& t, Tensor* value,
                           ReadyList<TaggedNode>* ready)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(t.frame->mu);
  // Runs the nodes of `frame` in ready[from...] that need no kernel, while
  // the frame's lock is held: forwarded nodes (NextIteration included) and
  // dead Exits, and in turn those they make ready. Each is spared its own
  // trip through the ready queue and the lock. The caller then cleans up
  // from its own iteration on (later iterations cannot finish first).
  void RunReadyLocked(FrameState* frame, size_t from,
                      ReadyList<TaggedNode>* ready)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(frame->mu);
  // Hands the outputs of a node that is not an Enter, Exit or NextIteration
  // to its consumers in its own frame and iteration, and retires the node.
  template <typename Outs>
  void ActivateAndRetire(const TaggedNode& t, bool node_dead, Outs outs,
                         ReadyList<TaggedNode>* ready);
  // Hands a finished node's outputs on, moving them between frames and
  // iterations for Enter, Exit and NextIteration.
  void Propagate(const TaggedNode& t, bool node_dead, Entries* outs,
                 ReadyList<TaggedNode>* ready);
  // Delivers `outs` of `item` along its out edges into iteration `it` of
  // `frame`; returns how many consumers became ready.
  // `Outs` is EntryOutputs or KernelOutputs.
  template <typename Outs>
  int ActivateNodes(const NodeItem& item, bool node_dead, FrameState* frame,
                    IterState* it, Outs outs, ReadyList<TaggedNode>* ready)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(frame->mu);
  int ActivateNodes(const NodeItem& item, bool node_dead, FrameState* frame,
                    IterState* it, Entries* outs, ReadyList<TaggedNode>* ready)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(frame->mu) {
    return ActivateNodes(item, node_dead, frame, it, EntryOutputs{outs},
                         ready);
  }
  IterState* IncrementIteration(FrameState* frame,
                                ReadyList<TaggedNode>* ready)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(frame->mu);
  void AddLoopInvariant(FrameState* frame, int32_t id, const Entry& value,
                        ReadyList<TaggedNode>* ready)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(frame->mu);
  bool IsIterationDone(FrameState* frame, IterState* it)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(frame->mu);
  // Deletes the done iterations from `it` on; true when the frame is done.
  bool CleanupIterations(FrameState* frame, IterState* it,
                         ReadyList<TaggedNode>* ready)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(frame->mu);
  FrameState* FindOrCreateChildFrame(FrameState* frame, IterState* it,
                                     const NodeItem& enter);
  // Passes the frame's dead exits to its parent, deletes it, and cleans up
  // the parent (which may be done in turn).
  void DeleteFrame(FrameState* frame, ReadyList<TaggedNode>* ready);

  FrameState root_;
  absl::Mutex frames_mu_;
  // Child frame instances by (parent, parent iteration, static frame).
  using FrameKey = std::tuple<const FrameState*, int64_t, int32_t>;
  absl::flat_hash_map<FrameKey, FrameState*> frames_
      ABSL_GUARDED_BY(frames_mu_);
};

void LoopStep::ProcessNode(const TaggedNode& t, ReadyQueue<TaggedNode>* queue,
                           ReadyList<TaggedNode>* ready) {
  const NodeItem& item = items()[t.id];
  ready->clear();
  if (aborted()) {
    NodeDone(ready, queue);
    return;
  }
  Tensor* inputs = t.iter->tensors + item.input_start;
  TensorRef* refs = t.iter->refs + item.input_start;
  if (t.dead && !item.runs_when_dead) {
    ClearInputs(item, inputs, refs);
    Entries outs(item.num_outputs);
    for (Entry& e : outs) e.dead = true;
    Propagate(t, /*node_dead=*/true, &outs, ready);
    NodeDone(ready, queue);
    return;
  }
  if (item.forward != NodeItem::Forward::kNone &&
      stats_collector_ == nullptr && ForwardNode(t, item, inputs, refs, ready)) {
    NodeDone(ready, queue);
    return;
  }
  RunNode(item, t, inputs, refs, t.dead,
          FrameAndIter{t.frame->id, t.iter->iter_num}, queue, ready);
}

bool LoopStep::PlanForward(const NodeItem& item, const Tensor* inputs,
                           int32_t* in, int32_t* live) const {
  using Forward = NodeItem::Forward;
  *in = 0;
  *live = 0;
  switch (item.forward) {
    case Forward::kNone:
      return false;
    case Forward::kInput0:
      break;
    case Forward::kSwitch: {
      const Tensor& pred = inputs[1];
      if (pred.dtype() != DT_BOOL || pred.dims() != 0 ||
          !pred.IsInitialized()) {
        return false;
      }
      *live = pred.data<bool>()[0] ? 1 : 0;
      break;
    }
    case Forward::kMerge:
      // Only the first live input was stored (ActivateNodes).
      while (*in < item.num_inputs && !inputs[*in].IsInitialized()) ++*in;
      if (*in == item.num_inputs) return false;
      break;
  }
  return inputs[*in].IsInitialized() &&
         inputs[*in].dtype() == item.forward_type;
}

bool LoopStep::ForwardNode(const TaggedNode& t, const NodeItem& item,
                           Tensor* inputs, TensorRef* refs,
                           ReadyList<TaggedNode>* ready) {
  int32_t in = 0;
  int32_t live = 0;
  if (!PlanForward(item, inputs, &in, &live)) return false;
  if (item.is_enter || item.is_exit || item.is_next_iteration) {
    Entries outs(1);
    outs[0].tensor = std::move(inputs[in]);
    // Inputs go first, as in KernelDone.
    ClearInputs(item, inputs, refs);
    Propagate(t, /*node_dead=*/false, &outs, ready);
    return true;
  }
  bool frame_done = false;
  {
    LightMutexLock lock(&t.frame->mu);
    const size_t from = ready->size();
    ForwardLocked(t, item, in, live, ready);
    RunReadyLocked(t.frame, from, ready);
    frame_done = CleanupIterations(t.frame, t.iter, ready);
  }
  if (frame_done) DeleteFrame(t.frame, ready);
  return true;
}

void LoopStep::ForwardLocked(TaggedNode t, const NodeItem& item, int32_t in,
                             int32_t live, ReadyList<TaggedNode>* ready) {
  Tensor* inputs = t.iter->tensors + item.input_start;
  Tensor value(std::move(inputs[in]));
  ClearInputs(item, inputs, t.iter->refs + item.input_start);
  const Tensor* index = item.forward == NodeItem::Forward::kMerge
                            ? &impl_->merge_index(item, in)
                            : nullptr;
  t.iter->outstanding_ops +=
      ActivateNodes(item, /*node_dead=*/false, t.frame, t.iter,
                    ForwardedOutputs{&value, live, index}, ready) -
      1;
}

void LoopStep::RunReadyLocked(FrameState* frame, size_t from,
                              ReadyList<TaggedNode>* ready) {
  // Iterative: what a node run here makes ready is appended to `ready` and
  // looked at by this same loop (a chain of a million Identities must not
  // recurse).
  for (size_t i = from; i < ready->size();) {
    if (aborted()) return;  // NodeDone drops everything ready
    const TaggedNode t = (*ready)[i];
    const NodeItem& item = items()[t.id];
    if (t.frame != frame) {
      ++i;
      continue;
    }
    if (t.dead && item.is_exit) {
      // A dead Exit (every loop variable's, in every iteration but the
      // last) only tells the frame; its input slot holds nothing.
      ready->erase(ready->begin() + i);
      ClearInputs(item, t.iter->tensors + item.input_start,
                  t.iter->refs + item.input_start);
      if (t.iter->iter_num == frame->iteration_count) {
        frame->dead_exits.push_back(t.id);
      }
      --t.iter->outstanding_ops;
      continue;
    }
    int32_t in = 0;
    int32_t live = 0;
    if (t.dead || item.is_enter || item.is_exit ||
        stats_collector_ != nullptr ||
        !PlanForward(item, t.iter->tensors + item.input_start, &in, &live)) {
      ++i;
      continue;
    }
    ready->erase(ready->begin() + i);
    if (item.is_next_iteration) {
      Tensor* inputs = t.iter->tensors + item.input_start;
      Tensor value(std::move(inputs[in]));
      ClearInputs(item, inputs, t.iter->refs + item.input_start);
      NextIterationLocked(t, &value, ready);
      --t.iter->outstanding_ops;
    } else {
      ForwardLocked(t, item, in, live, ready);
    }
  }
}

void LoopStep::NextIterationLocked(const TaggedNode& t, Tensor* value,
                                   ReadyList<TaggedNode>* ready) {
  FrameState* const frame = t.frame;
  IterState* next = nullptr;
  if (t.iter->iter_num < frame->iteration_count) {
    next = frame->Iteration(t.iter->iter_num + 1);
  } else if (frame->num_outstanding_iterations < frame->max_parallel) {
    next = IncrementIteration(frame, ready);
  } else {
    Entry held;
    held.tensor = std::move(*value);
    frame->next_iter_roots.emplace_back(t.id, std::move(held));
    return;
  }
  next->outstanding_ops +=
      ActivateNodes(items()[t.id], /*node_dead=*/false, frame, next,
                    ForwardedOutputs{value, 0, nullptr}, ready);
}

template <typename Outs>
void LoopStep::ActivateAndRetire(const TaggedNode& t, bool node_dead,
                                 Outs outs, ReadyList<TaggedNode>* ready) {
  const NodeItem& item = items()[t.id];
  bool frame_done = false;
  {
    LightMutexLock lock(&t.frame->mu);
    const size_t from = ready->size();
    t.iter->outstanding_ops +=
        ActivateNodes(item, node_dead, t.frame, t.iter, outs, ready) - 1;
    RunReadyLocked(t.frame, from, ready);
    frame_done = CleanupIterations(t.frame, t.iter, ready);
  }
  if (frame_done) DeleteFrame(t.frame, ready);
}

void LoopStep::AsyncDone(AsyncState* state) {
  if (state->stats) {
    state->stats->RecordComputeEnded();
    state->stats->RecordOutputs(&state->ctx);
  }
  ReadyList<TaggedNode> ready;
  KernelDone(state->tagged, &state->ctx, &ready);
  FinishAsyncStats(state);
  delete state;
  ContinueAfterAsync(&ready);
}

void LoopStep::KernelDone(const TaggedNode& t, OpKernelContext* ctx,
                          ReadyList<TaggedNode>* ready) {
  const NodeItem& item = items()[t.id];
  Tensor* inputs = t.iter->tensors + item.input_start;
  TensorRef* refs = t.iter->refs + item.input_start;
  absl::Status s = CheckOutputs(item, ctx);
  if (!s.ok()) {
    ClearInputs(item, inputs, refs);
    RecordError(s);
    return;
  }
  const bool all_dead = ctx->is_input_dead() || ctx->is_output_dead();
  // Inputs go first: once this node is accounted for, its iteration may be
  // deleted by another thread.
  ClearInputs(item, inputs, refs);
  if (!item.is_enter && !item.is_exit && !item.is_next_iteration) {
    // The common case: outputs go straight from the kernel to the
    // consumers in the same frame and iteration.
    ActivateAndRetire(t, all_dead, KernelOutputs{&item, ctx, all_dead},
                      ready);
    return;
  }
  Entries outs(item.num_outputs);
  absl::InlinedVector<Tensor, 4>& values = *ctx->mutable_outputs();
  for (int32_t i = 0; i < item.num_outputs; ++i) {
    Entry& e = outs[i];
    if (all_dead) {
      e.dead = true;
    } else if (item.has_ref_output && IsRefType(item.kernel->output_type(i))) {
      if (!ctx->output_refs().empty()) e.ref = ctx->output_refs()[i];
      e.dead = !e.ref.valid();
    } else {
      e.dead = !values[i].IsInitialized();
      e.tensor = std::move(values[i]);
    }
  }
  Propagate(t, all_dead, &outs, ready);
}

template <typename Outs>
int LoopStep::ActivateNodes(const NodeItem& item, bool node_dead,
                            FrameState* frame, IterState* it, Outs outs,
                            ReadyList<TaggedNode>* ready) {
  const std::vector<NodeItem>& nodes = items();
  const OutEdge* e = impl_->out_edges().data() + item.out_start;
  const OutEdge* end = e + item.num_out;
  int activated = 0;
  for (; e != end; ++e) {
    const NodeItem& dst = nodes[e->dst];
    int32_t& pending = it->pending[dst.pending_id];
    int32_t& dead = it->dead_count[dst.pending_id];
    bool dst_ready = false;
    bool dst_dead = false;
    if (e->dst_slot >= 0) {
      const bool out_dead = outs.dead(e->src_output);
      auto store = [&] {
        outs.StoreTo(e->src_output, e->last_use, &it->tensors[e->dst_slot],
                     &it->refs[e->dst_slot]);
      };
      if (dst.is_merge) {
        if (!out_dead) {
          // Only the first live input is used; the low bit of the count
          // says none has arrived yet.
          if ((pending & 1) != 0) {
            store();
            pending &= ~1;
            dst_ready = pending == 0;
          }
        } else {
          ++dead;
          // A dead Enter kills the Merge of its loop at once: the loop sits
          // on the untaken branch of a conditional.
          dst_dead = dead == dst.num_inputs || item.is_enter;
          dst_ready = pending == 1 && dst_dead;
        }
      } else {
        if (out_dead) {
          ++dead;
        } else {
          store();
        }
        dst_ready = --pending == 0;
        dst_dead = dead > 0;
      }
    } else if (dst.is_merge) {
      pending -= 2;
      dst_dead = dead == dst.num_inputs;
      dst_ready = pending == 0 || (pending == 1 && dst_dead);
    } else {
      if (node_dead) ++dead;
      dst_ready = --pending == 0;
      dst_dead = dead > 0;
    }
    if (dst_ready) {
      if (dst.is_control_trigger) dst_dead = false;
      ready->emplace_back(e->dst, frame, it, dst_dead);
      ++activated;
    }
  }
  return activated;
}

void LoopStep::Propagate(const TaggedNode& t, bool node_dead, Entries* outs,
                         ReadyList<TaggedNode>* ready) {
  const NodeItem& item = items()[t.id];
  FrameState* const frame = t.frame;
  IterState* const it = t.iter;
  bool frame_done = false;
  if (item.is_enter) {
    FrameState* child = FindOrCreateChildFrame(frame, it, item);
    bool child_done = false;
    {
      LightMutexLock lock(&child->mu);
      // Iteration 0 lives until every Enter into the frame has run.
      IterState* first = child->Iteration(0);
      if (item.is_constant_enter) {
        AddLoopInvariant(child, t.id, (*outs)[0], ready);
      } else {
        first->outstanding_ops +=
            ActivateNodes(item, node_dead, child, first, outs, ready);
      }
      --child->num_pending_inputs;
      child_done = CleanupIterations(child, first, ready);
    }
    if (child_done) DeleteFrame(child, ready);
    LightMutexLock lock(&frame->mu);
    --it->outstanding_ops;
    frame_done = CleanupIterations(frame, it, ready);
  } else if (item.is_exit) {
    if (!node_dead) {
      FrameState* parent = frame->parent;
      LightMutexLock lock(&parent->mu);
      frame->parent_iter->outstanding_ops += ActivateNodes(
          item, false, parent, frame->parent_iter, outs, ready);
    }
    LightMutexLock lock(&frame->mu);
    if (node_dead && it->iter_num == frame->iteration_count) {
      frame->dead_exits.push_back(t.id);
    }
    --it->outstanding_ops;
    frame_done = CleanupIterations(frame, it, ready);
  } else if (item.is_next_iteration) {
    LightMutexLock lock(&frame->mu);
    // A dead NextIteration ends the loop: deadness stops here.
    if (!node_dead) {
      IterState* next = nullptr;
      if (it->iter_num < frame->iteration_count) {
        next = frame->Iteration(it->iter_num + 1);
      } else if (frame->num_outstanding_iterations < frame->max_parallel) {
        next = IncrementIteration(frame, ready);
      } else {
        frame->next_iter_roots.emplace_back(t.id, std::move((*outs)[0]));
      }
      if (next != nullptr) {
        const size_t from = ready->size();
        next->outstanding_ops +=
            ActivateNodes(item, false, frame, next, outs, ready);
        RunReadyLocked(frame, from, ready);
      }
    }
    --it->outstanding_ops;
    frame_done = CleanupIterations(frame, it, ready);
  } else {
    LightMutexLock lock(&frame->mu);
    it->outstanding_ops +=
        ActivateNodes(item, node_dead, frame, it, outs, ready) - 1;
    frame_done = CleanupIterations(frame, it, ready);
  }
  if (frame_done) DeleteFrame(frame, ready);
}

IterState* LoopStep::IncrementIteration(FrameState* frame,
                                        ReadyList<TaggedNode>* ready) {
  const int64_t n = ++frame->iteration_count;
  IterState*& slot = frame->ring[n % static_cast<int64_t>(frame->ring.size())];
  DFX_CHECK(slot == nullptr);
  if (frame->spare != nullptr) {
    slot = IterState::Reset(frame->spare, *frame->info, n);
    frame->spare = nullptr;
  } else {
    slot = IterState::New(*frame->info, n);
  }
  IterState* next = slot;
  ++frame->num_outstanding_iterations;
  frame->dead_exits.clear();
  int activated = 0;
  for (auto& [id, value] : frame->next_iter_roots) {
    Entries outs(1);
    outs[0] = std::move(value);
    activated += ActivateNodes(items()[id], false, frame, next, &outs, ready);
  }
  frame->next_iter_roots.clear();
  for (const auto& [id, value] : frame->inv_values) {
    Entries outs(1, value);
    activated +=
        ActivateNodes(items()[id], value.dead, frame, next, &outs, ready);
  }
  next->outstanding_ops += activated;
  return next;
}

void LoopStep::AddLoopInvariant(FrameState* frame, int32_t id,
                                const Entry& value,
                                ReadyList<TaggedNode>* ready) {
  frame->inv_values.emplace_back(id, value);
  // Every iteration is alive: iteration 0 waits for this Enter, and later
  // ones for the iteration before them.
  for (int64_t i = 0; i <= frame->iteration_count; ++i) {
    IterState* it = frame->Iteration(i);
    DFX_CHECK(it != nullptr);
    Entries outs(1, value);
    it->outstanding_ops +=
        ActivateNodes(items()[id], value.dead, frame, it, &outs, ready);
  }
}

bool LoopStep::IsIterationDone(FrameState* frame, IterState* it) {
  if (it->outstanding_ops != 0 || it->outstanding_frames != 0) return false;
  if (it->iter_num == 0) return frame->num_pending_inputs == 0;
  return frame->Iteration(it->iter_num - 1) == nullptr;
}

bool LoopStep::CleanupIterations(FrameState* frame, IterState* it,
                                 ReadyList<TaggedNode>* ready) {
  // The root frame's iteration lives as long as the step.
  if (frame == &root_) return false;
  int64_t n = it->iter_num;
  while (it != nullptr && IsIterationDone(frame, it)) {
    frame->ring[n % static_cast<int64_t>(frame->ring.size())] = nullptr;
    if (frame->spare == nullptr) {
      frame->spare = it;
    } else {
      IterState::Delete(it);
    }
    --frame->num_outstanding_iterations;
    ++n;
    // A finished iteration makes room for one held back.
    if (!frame->next_iter_roots.empty()) IncrementIteration(frame, ready);
    it = n <= frame->iteration_count ? frame->Iteration(n) : nullptr;
  }
  return frame->num_pending_inputs == 0 &&
         frame->num_outstanding_iterations == 0;
}

FrameState* LoopStep::FindOrCreateChildFrame(FrameState* frame, IterState* it,
                                             const NodeItem& enter) {
  const FrameInfo& info = impl_->frames()[enter.child_frame];
  absl::MutexLock lock(&frames_mu_);
  auto [slot, inserted] = frames_.try_emplace(
      FrameKey(frame, it->iter_num, enter.child_frame), nullptr);
  if (inserted) {
    const uint64_t id =
        MixHash(MixHash(frame->id, static_cast<uint64_t>(it->iter_num)),
                info.name_hash);
    slot->second = new FrameState(&info, id, frame, it);
    LightMutexLock frame_lock(&frame->mu);
    ++it->outstanding_frames;
  }
  return slot->second;
}

void LoopStep::DeleteFrame(FrameState* frame, ReadyList<TaggedNode>* ready) {
  FrameState* parent = frame->parent;
  IterState* parent_iter = frame->parent_iter;
  {
    LightMutexLock parent_lock(&parent->mu);
    std::vector<int32_t> dead_exits;
    {
      LightMutexLock lock(&frame->mu);
      dead_exits.swap(frame->dead_exits);
    }
    int activated = 0;
    for (int32_t id : dead_exits) {
      const NodeItem& exit = items()[id];
      Entries outs(exit.num_outputs);
      for (Entry& e : outs) e.dead = true;
      activated += ActivateNodes(exit, true, parent, parent_iter, &outs, ready);
    }
    parent_iter->outstanding_ops += activated;
  }
  {
    absl::MutexLock lock(&frames_mu_);
    frames_.erase(FrameKey(parent, parent_iter->iter_num,
                           static_cast<int32_t>(frame->info -
                                                impl_->frames().data())));
  }
  delete frame;
  bool parent_done = false;
  {
    LightMutexLock lock(&parent->mu);
    --parent_iter->outstanding_frames;
    parent_done = CleanupIterations(parent, parent_iter, ready);
  }
  if (parent_done) DeleteFrame(parent, ready);
}

absl::Status LoopStep::FinalStatus() {
  // Every node of the root frame runs, alive or dead, in a well-formed
  // graph; one that never did waits for an input that cannot come.
  std::vector<std::string> stuck;
  {
    absl::MutexLock lock(&frames_mu_);
    for (const auto& [key, frame] : frames_) {
      LightMutexLock frame_lock(&frame->mu);
      stuck.push_back(absl::StrCat("loop frame '", frame->info->name,
                                   "' (iteration ", frame->iteration_count,
                                   ") never finished"));
      if (stuck.size() >= 3) break;
    }
  }
  {
    LightMutexLock lock(&root_.mu);
    const IterState* it = root_.Iteration(0);
    const FrameInfo& info = *root_.info;
    for (size_t p = 0; p < info.nodes.size() && stuck.size() < 3; ++p) {
      const NodeItem& item = items()[info.nodes[p]];
      const int32_t pending = it->pending[p];
      const bool ran =
          item.is_merge
              ? pending == 0 ||
                    (pending == 1 && it->dead_count[p] == item.num_inputs)
              : pending == 0;
      if (!ran) stuck.push_back(absl::StrCat("node ", NodeString(item),
                                             " never ran"));
    }
  }
  if (stuck.empty()) return absl::OkStatus();
  return absl::InvalidArgumentError(absl::StrCat(
      "the step ended with nodes that can never run (malformed control "
      "flow): ",
      absl::StrJoin(stuck, "; ")));
}

// ---------------------------------------------------------------------------
// ExecutorImpl

absl::Status ExecutorImpl::BuildFrames(std::vector<int32_t>* frame_of) {
  frames_.clear();
  frames_.emplace_back();  // the root frame
  frame_of->assign(items_.size(), 0);
  if (!has_control_flow_) return absl::OkStatus();
  DFX_ASSIGN_OR_RETURN(GraphFrames g, BuildGraphFrames(*graph_));
  absl::flat_hash_map<std::string, int32_t> by_name;
  frames_.resize(g.frames.size());
  for (size_t f = 1; f < g.frames.size(); ++f) {
    FrameInfo& info = frames_[f];
    info.name = g.frames[f].name;
    info.parent = g.frames[f].parent;
    info.parallel_iterations = g.frames[f].parallel_iterations;
    info.name_hash = StableHash(info.name);
    by_name[info.name] = static_cast<int32_t>(f);
  }
  for (size_t i = 0; i < items_.size(); ++i) {
    NodeItem& item = items_[i];
    (*frame_of)[i] = g.frame_of[item.node->id()];
    if (!item.is_enter) continue;
    std::string name;
    DFX_RETURN_IF_ERROR(PrefixWithNode(
        item, GetNodeAttr(item.node->def(), "frame_name", &name)));
    item.child_frame = by_name.at(name);
    ++frames_[item.child_frame].num_enters;
  }
  return absl::OkStatus();
}

absl::Status ExecutorImpl::Initialize() {
  if (params_.device == nullptr || params_.kernel_registry == nullptr) {
    return absl::InvalidArgumentError(
        "executor needs a device and a kernel registry");
  }
  const std::vector<Node*> nodes = graph_->nodes();
  dense_.assign(graph_->num_node_ids(), -1);
  for (size_t i = 0; i < nodes.size(); ++i) {
    dense_[nodes[i]->id()] = static_cast<int32_t>(i);
  }
  items_.resize(nodes.size());
  cheap_runs_ = std::make_unique<std::atomic<int32_t>[]>(nodes.size());
  short_runs_ = std::make_unique<std::atomic<int32_t>[]>(nodes.size());
  for (size_t i = 0; i < nodes.size(); ++i) {
    cheap_runs_[i].store(0);
    short_runs_[i].store(0);
  }
  kernels_.reserve(nodes.size());
  absl::flat_hash_map<const OpDef*, OpClass> classes;
  for (size_t i = 0; i < nodes.size(); ++i) {
    const Node* node = nodes[i];
    auto [class_it, new_class] = classes.try_emplace(&node->op_def());
    if (new_class) class_it->second = ClassifyOp(*node);
    const OpClass& op_class = class_it->second;
    std::shared_ptr<OpKernel> kernel;
    if (params_.create_kernel) {
      DFX_ASSIGN_OR_RETURN(kernel, params_.create_kernel(*node));
    } else {
      DFX_ASSIGN_OR_RETURN(
          kernel, params_.kernel_registry->CreateKernel(
                      *node, params_.device, &graph_->library()));
    }
    NodeItem& item = items_[i];
    item.kernel = kernel.get();
    item.node = node;
    item.num_inputs = node->num_inputs();
    item.num_outputs = node->num_outputs();
    item.is_async = kernel->AsAsync() != nullptr;
    item.expensive = kernel->IsExpensive();
    item.allows_uninitialized_input =
        node->op_def().allows_uninitialized_input();
    const std::string& op = node->type_string();
    // _Send takes its input from either memory (it copies a device tensor
    // out itself), so a host tensor is not moved in only to be moved out.
    item.places_inputs = !params_.device->HostReadable() &&
                         item.num_inputs > 0 && !op_class.transfer;
    item.runs_when_dead = op_class.transfer;
    item.is_merge = op_class.merge;
    item.is_enter = op_class.enter;
    item.is_exit = op_class.exit;
    item.is_next_iteration = op_class.next_iteration;
    item.is_control_trigger = op_class.control_trigger;
    item.may_skip_outputs = op_class.switch_like;
    if (item.is_enter) {
      bool constant = false;
      if (node->def().attr().contains("is_constant")) {
        DFX_RETURN_IF_ERROR(PrefixWithNode(
            item, GetNodeAttr(node->def(), "is_constant", &constant)));
      }
      item.is_constant_enter = constant;
    }
    has_control_flow_ |= op_class.control_flow;
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
    if (!item.is_async && !item.takes_ref_input && !item.has_ref_output &&
        !item.derefs_input && item.num_inputs >= 1 &&
        item.num_outputs >= 1) {
      using Forward = NodeItem::Forward;
      if (op_class.forwards_input0) {
        item.forward = item.num_inputs == 1 ? Forward::kInput0 : Forward::kNone;
      } else if (op == "Switch") {
        item.forward = item.num_inputs == 2 && item.num_outputs == 2
                           ? Forward::kSwitch
                           : Forward::kNone;
      } else if (op == "Merge") {
        item.forward =
            item.num_outputs == 2 ? Forward::kMerge : Forward::kNone;
      }
      item.forward_type = kernel->output_type(0);
      if (item.forward == Forward::kMerge) {
        item.merge_indices_start = static_cast<int32_t>(merge_indices_.size());
        for (int k = 0; k < item.num_inputs; ++k) {
          merge_indices_.push_back(Tensor::Scalar<int32_t>(k));
        }
      }
    }
    kernels_.push_back(std::move(kernel));

    std::vector<bool> connected(item.num_inputs, false);
    for (const Edge* e : node->in_edges()) {
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
    if (node->in_edges().empty()) roots_.push_back(static_cast<int32_t>(i));
  }

  // Frames, then each node's pending count and input slots in its frame.
  std::vector<int32_t> frame_of;
  DFX_RETURN_IF_ERROR(BuildFrames(&frame_of));
  for (size_t i = 0; i < nodes.size(); ++i) {
    NodeItem& item = items_[i];
    FrameInfo& frame = frames_[frame_of[i]];
    item.frame = frame_of[i];
    item.pending_id = static_cast<int32_t>(frame.nodes.size());
    frame.nodes.push_back(static_cast<int32_t>(i));
    item.input_start = frame.num_slots;
    frame.num_slots += item.num_inputs;
    int32_t controls = 0;
    for (const Edge* e : nodes[i]->in_edges()) controls += e->IsControlEdge();
    const int32_t edges = static_cast<int32_t>(nodes[i]->in_edges().size());
    frame.initial_pending.push_back(item.is_merge ? (controls << 1) | 1
                                                  : edges);
  }

  // Per node, when some of its inputs share a slot: the slot (relative to
  // its first) each input reads.
  std::vector<std::vector<int32_t>> shared(nodes.size());
  for (size_t i = 0; i < nodes.size(); ++i) {
    NodeItem& item = items_[i];
    item.out_start = static_cast<int32_t>(out_edges_.size());
    const auto& outs = nodes[i]->out_edges();
    for (const Edge* e : outs) {
      const int32_t dst = dense_[e->dst->id()];
      if (e->IsControlEdge()) {
        out_edges_.push_back({dst, -1, -1, 0, false});
      } else {
        out_edges_.push_back({dst, items_[dst].input_start + e->dst_input,
                              e->src_output, 0, false});
      }
    }
    item.num_out = static_cast<int32_t>(out_edges_.size()) - item.out_start;
    // Data edges first (stable), then mark the last use of each output.
    auto begin = out_edges_.begin() + item.out_start;
    std::stable_partition(begin, out_edges_.end(),
                          [](const OutEdge& e) { return e.dst_slot >= 0; });
    // How many of the node's edges each edge stands for.
    std::vector<uint32_t> weight(item.num_out, 1);
    if (!has_control_flow_) {
      ShareInputSlots(static_cast<int32_t>(i), &shared, &weight);
      begin = out_edges_.begin() + item.out_start;
    }
    std::vector<bool> seen(item.num_outputs, false);
    for (auto it = out_edges_.end(); it != begin;) {
      --it;
      if (it->dst_slot < 0 || seen[it->src_output]) continue;
      seen[it->src_output] = true;
      it->last_use = true;
    }
    // Runs of edges to one dst: the last of each takes the run's length.
    uint32_t run = 0;
    for (auto it = begin; it != out_edges_.end(); ++it) {
      run += weight[it - begin];
      if (it + 1 == out_edges_.end() || (it + 1)->dst != it->dst) {
        it->pending_dec = run;
        run = 0;
      }
    }
  }

  // The shared slots' maps, pointed to once the arrays are whole.
  std::vector<std::pair<size_t, size_t>> at(nodes.size());  // map, own
  for (size_t i = 0; i < nodes.size(); ++i) {
    if (shared[i].empty()) continue;
    at[i] = {input_maps_.size(), own_slots_.size()};
    input_maps_.insert(input_maps_.end(), shared[i].begin(), shared[i].end());
    for (int32_t k = 0; k < items_[i].num_inputs; ++k) {
      if (shared[i][k] == k) own_slots_.push_back(k);
    }
    items_[i].num_own_slots =
        static_cast<int32_t>(own_slots_.size() - at[i].second);
  }
  for (size_t i = 0; i < nodes.size(); ++i) {
    if (shared[i].empty()) continue;
    items_[i].input_map = input_maps_.data() + at[i].first;
    items_[i].own_slots = own_slots_.data() + at[i].second;
  }

  const size_t n = items_.size();
  const size_t slots = static_cast<size_t>(num_slots());
  pending_offset_ = AlignUp(sizeof(SimpleStep), alignof(std::atomic<int32_t>));
  tensors_offset_ = AlignUp(pending_offset_ + n * sizeof(std::atomic<int32_t>),
                            alignof(Tensor));
  refs_offset_ =
      AlignUp(tensors_offset_ + slots * sizeof(Tensor), alignof(TensorRef));
  dead_offset_ = AlignUp(refs_offset_ + slots * sizeof(TensorRef),
                         alignof(std::atomic<uint8_t>));
  block_size_ = dead_offset_ + n * sizeof(std::atomic<uint8_t>);
  return absl::OkStatus();
}

void ExecutorImpl::ShareInputSlots(int32_t src,
                                   std::vector<std::vector<int32_t>>* shared,
                                   std::vector<uint32_t>* weight) {
  NodeItem& item = items_[src];
  if (item.num_out < 2) return;  // nothing to share (most nodes)
  const auto first = out_edges_.begin() + item.out_start;
  std::vector<OutEdge> kept;
  std::vector<uint32_t> kept_weight;
  // (consumer, output) -> its kept edge, an index into `kept`.
  absl::flat_hash_map<std::pair<int32_t, int32_t>, size_t> kept_at;
  for (int32_t k = 0; k < item.num_out; ++k) {
    const OutEdge& e = first[k];
    const NodeItem& dst = items_[e.dst];
    // Nodes whose slots the executor reads itself (references, inputs
    // placed in device memory) keep a slot per input.
    const bool can_share = e.dst_slot >= 0 && dst.num_inputs >= 2 &&
                           !dst.places_inputs && !dst.takes_ref_input &&
                           !dst.derefs_input && !dst.is_merge &&
                           !IsRefType(item.kernel->output_type(e.src_output));
    if (can_share) {
      auto [it, inserted] =
          kept_at.try_emplace({e.dst, e.src_output}, kept.size());
      if (!inserted) {
        ++kept_weight[it->second];
        std::vector<int32_t>& map = (*shared)[e.dst];
        if (map.empty()) {
          map.resize(dst.num_inputs);
          for (int32_t j = 0; j < dst.num_inputs; ++j) map[j] = j;
        }
        map[e.dst_slot - dst.input_start] =
            kept[it->second].dst_slot - dst.input_start;
        continue;
      }
    }
    kept.push_back(e);
    kept_weight.push_back(1);
  }
  *weight = std::move(kept_weight);
  if (static_cast<int32_t>(kept.size()) == item.num_out) return;
  std::copy(kept.begin(), kept.end(), first);
  out_edges_.erase(first + static_cast<ptrdiff_t>(kept.size()),
                   out_edges_.end());
  item.num_out = static_cast<int32_t>(kept.size());
}

void ExecutorImpl::Start(const Args& args, DoneCallback done, Roots roots) {
  if (has_control_flow_) {
    auto* step = new LoopStep(this, args, std::move(done));
    step->Start(step->Roots(), roots);
  } else {
    SimpleStep::New(this, args, std::move(done))
        ->Start(ReadyList<int32_t>(roots_.begin(), roots_.end()), roots);
  }
}

void ExecutorImpl::RunAsync(const Args& args, DoneCallback done) {
  Start(args, std::move(done),
        args.run_roots_inline ? Roots::kCheapHere : Roots::kRunner);
}

absl::Status ExecutorImpl::Run(const Args& args) {
  auto promise = std::make_shared<std::promise<absl::Status>>();
  std::future<absl::Status> result = promise->get_future();
  Start(args,
        [promise](absl::Status s) { promise->set_value(std::move(s)); },
        Roots::kHere);
  return result.get();
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
