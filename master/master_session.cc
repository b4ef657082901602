#include "master/master_session.h"

#include <algorithm>
#include <numeric>
#include <optional>
#include <set>

#include "absl/container/inlined_vector.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/time/clock.h"
#include "base/log.h"
#include "base/logging.h"
#include "base/status_macros.h"
#include "base/task_status.h"
#include "graph/device_name.h"
#include "graph/function_library.h"
#include "graph/graph_def_import.h"
#include "graph/lower_functional_ops.h"
#include "graph/node_def_util.h"
#include "graph/partition.h"
#include "graph/shape_inference.h"
#include "graph/subgraph.h"
#include "runtime/recent_request_ids.h"
#include "runtime/step_stats_collector.h"

namespace dfx {
namespace {

// How long a call that sets a step up (CreateWorkerSession, RegisterGraph)
// may take when the step itself has no deadline.
constexpr absl::Duration kControlCallTimeout = absl::Seconds(60);

bool IsPlaceholder(const std::string& op) {
  return op == "Placeholder" || op == "PlaceholderV2" ||
         op == "PlaceholderWithDefault";
}

bool ShapeCompatible(const PartialShape& declared, const TensorShape& actual) {
  if (!declared.RankKnown()) return true;
  if (declared.rank() != actual.dims()) return false;
  for (int i = 0; i < declared.rank(); ++i) {
    if (declared.dims[i] >= 0 && declared.dims[i] != actual.dim_size(i)) {
      return false;
    }
  }
  return true;
}

absl::Status FromTask(const std::string& task, const absl::Status& s) {
  if (s.ok()) return s;
  return absl::Status(s.code(), absl::StrCat("task ", task, ": ", s.message()));
}

// A control call whose request and response outlive the caller's wait: the
// callback may come after the caller gave up.
template <typename Request, typename Response>
struct PendingCall {
  Request request;
  Response response;

  void Finish(const absl::Status& s) {
    absl::MutexLock lock(&mu);
    status = s;
    done = true;
  }
  // The call's status once it answered. DeadlineExceeded naming `what`
  // when no answer came by `deadline`; Cancelled when `control` is
  // cancelled first. Several callers may wait on one call, each with its
  // own control.
  absl::Status Wait(absl::Time deadline, const CallControl& control,
                    absl::string_view what) {
    struct Waiter {
      PendingCall* call;
      bool cancelled = false;  // under call->mu
    };
    Waiter waiter{this};
    CancellationManager* cm = control.cancellation;
    CancellationToken token = 0;
    if (cm != nullptr) {
      token = cm->get_cancellation_token();
      if (!cm->RegisterCallback(token, [&waiter] {
            absl::MutexLock lock(&waiter.call->mu);
            waiter.cancelled = true;
          })) {
        return absl::CancelledError(
            absl::StrCat(what, ": the caller cancelled the call"));
      }
    }
    absl::Status result;
    {
      absl::MutexLock lock(&mu);
      mu.AwaitWithDeadline(
          absl::Condition(
              +[](Waiter* w) ABSL_NO_THREAD_SAFETY_ANALYSIS {
                return w->call->done || w->cancelled;
              },
              &waiter),
          std::min(deadline, control.deadline));
      if (done) {
        result = status;
      } else if (waiter.cancelled) {
        result = absl::CancelledError(
            absl::StrCat(what, ": the caller cancelled the call"));
      } else {
        result = absl::DeadlineExceededError(
            absl::StrCat(what, " did not answer in time"));
      }
    }
    // Waits for a callback running now: `waiter` goes when this returns.
    if (cm != nullptr) cm->DeregisterCallback(token);
    return result;
  }

  absl::Mutex mu;
  bool done ABSL_GUARDED_BY(mu) = false;
  absl::Status status ABSL_GUARDED_BY(mu);
};

// True when `s`, from a worker, says the worker does not know this session
// or graph: the worker process is not the one that had them (it restarted),
// or it collected them. TensorFlow's workers word these errors the same.
bool LostSession(const absl::Status& s) {
  return absl::IsAborted(s) &&
         (absl::StrContains(s.message(), "is not found") ||
          absl::StrContains(s.message(), "different device incarnation"));
}

// FromTask, but a task that lost this session is Unavailable: the session
// rejoins it at the next step (MasterSession::RecheckSuspects).
absl::Status TaskError(const std::string& task, const absl::Status& s) {
  if (!LostSession(s)) return FromTask(task, s);
  return absl::UnavailableError(absl::StrCat(
      "task ", task, " lost this session (it restarted?); it rejoins at the "
      "next step: ", s.message()));
}

// TaskError for a control call to `task` itself (CreateWorkerSession,
// RegisterGraph): Unavailable there means the task is, and the status
// names it (base/task_status.h).
absl::Status UnavailableTaskError(const std::string& task,
                                  const absl::Status& s) {
  absl::Status result = TaskError(task, s);
  if (absl::IsUnavailable(result)) SetUnavailableTasks(&result, {task});
  return result;
}

// How long RecheckSuspects waits for a suspected task's GetStatus.
constexpr absl::Duration kRecheckTimeout = absl::Seconds(5);

absl::Time ControlDeadline(absl::Time step_deadline) {
  return std::min(step_deadline, absl::Now() + kControlCallTimeout);
}

bool BoolAttr(const NodeDef& node, absl::string_view name) {
  const AttrValue* v = FindNodeAttr(node, name);
  return v != nullptr && v->b();
}

const std::string* StringAttr(const NodeDef& node, absl::string_view name) {
  const AttrValue* v = FindNodeAttr(node, name);
  return v == nullptr ? nullptr : &v->s();
}

// Merges the statistics of every call into `into`, each task's times moved
// onto this process's clock (MergeTracedCalls, from the calls' send and
// answer times). RecvTensor transfers only `with_transfers` (FULL_TRACE, as
// TensorFlow's master collects RPC logs only then).
void MergeTraces(const std::vector<RunGraphCall>& calls,
                 const std::vector<std::string>& tasks,
                 const std::vector<int64_t>& sent,
                 const std::vector<int64_t>& answered, bool with_transfers,
                 StepStats* into) {
  std::vector<TracedCall> traced(calls.size());
  for (size_t i = 0; i < calls.size(); ++i) {
    traced[i] = {tasks[i], sent[i], answered[i], &calls[i].step_stats};
  }
  MergeTracedCalls(traced, with_transfers, into);
}

}  // namespace

// Counts calls on workers that have not called back; the session's
// destructor waits for zero. Shared with the callbacks, so the last one can
// still unlock it while the session goes.
class MasterSession::OpTracker {
 public:
  void Add(int n = 1) {
    absl::MutexLock lock(&mu_);
    count_ += n;
  }
  void Done() {
    absl::MutexLock lock(&mu_);
    --count_;
  }
  void WaitForAll() {
    absl::MutexLock lock(&mu_);
    const absl::Condition idle(
        +[](int64_t* count) { return *count == 0; }, &count_);
    while (!mu_.AwaitWithTimeout(idle, absl::Seconds(10))) {
      spdlog::warn("master session still waiting for {} worker call(s)",
                   count_);
    }
  }

 private:
  absl::Mutex mu_;
  int64_t count_ ABSL_GUARDED_BY(mu_) = 0;
};

// One partition of a client graph (a task's), registered with its worker.
struct MasterSession::ClientGraph {
  struct Part {
    std::string task;
    WorkerInterface* worker = nullptr;
    std::string graph_handle;
    // The feeds whose client _Recv lives here: an index into the
    // signature's (sorted) feeds and the _Recv's rendezvous key (a small
    // feed read on other tasks has a _Recv on each, ForwardSmallFeeds).
    std::vector<std::pair<int, std::string>> feeds;
    // Distinct fetch keys whose client _Send lives here.
    std::vector<std::string> fetch_keys;
    // The worker is another process's and said it takes finished steps'
    // cleanups with RunGraph (RegisterGraphResponse.cleanup_in_run_graph).
    bool cleanup_in_run_graph = false;
  };
  std::vector<Part> parts;
  // Per signature fetch (in order).
  std::vector<std::string> fetch_keys;
  // Distinct workers of the parts, each with whether a finished step's
  // cleanup can wait for its next RunGraph (every part of the worker's has
  // cleanup_in_run_graph).
  struct CleanupTarget {
    WorkerInterface* worker;
    bool hold;
  };
  std::vector<CleanupTarget> cleanup_targets;
};

// The session's graph as the client sent it, placed, with the client graphs
// of the signatures run on it. Replaced as a whole by Extend.
struct MasterSession::GraphState {
  // The client's graph so far, as merged by Extend, when `graph` is not
  // the same graph (functions were inlined into it). Otherwise empty and
  // `graph` is it (ToGraphDef): a 100,000-node graph is not kept twice.
  std::optional<GraphDef> def;
  // The graph's functions; `graph` uses its op registry, so it is declared
  // first and outlives the graph.
  std::shared_ptr<const FunctionLibrary> library;
  std::unique_ptr<Graph> graph;
  absl::Mutex mu;
  absl::flat_hash_map<std::string, std::shared_ptr<const ClientGraph>> cache
      ABSL_GUARDED_BY(mu);
};

// One running step, shared with the RunGraph callbacks.
struct MasterSession::StepState {
  // What RunAsync does once the step finished or failed, with the step's
  // status and whether every call answered.
  using OnSettled = std::function<void(const absl::Status&, bool all_done)>;
  struct Settled {
    OnSettled fn;
    absl::Status status;
    bool all_done = false;
    void Run() {
      if (fn) fn(status, all_done);
    }
  };

  explicit StepState(std::shared_ptr<const ClientGraph> g)
      : graph(std::move(g)),
        calls(graph->parts.size()),
        opts(new CallOptions[graph->parts.size()]),
        pending(static_cast<int>(graph->parts.size())) {}

  // Records `s` unless an error was recorded already, then cancels every
  // call.
  void Abort(const absl::Status& s) {
    {
      absl::MutexLock lock(&mu);
      if (status.ok()) status = s;
    }
    CancelAll();
    Settle();
  }
  void CancelAll() {
    for (size_t i = 0; i < graph->parts.size(); ++i) opts[i].StartCancel();
  }
  bool FinishedOrFailed() const ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu) {
    return pending == 0 || !status.ok();
  }
  // on_settled, taken (it runs once), when the step finished or failed;
  // run it with `mu` released.
  Settled TakeSettledLocked() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu) {
    Settled settled;
    if (on_settled && FinishedOrFailed()) {
      settled.fn = std::move(on_settled);
      on_settled = nullptr;
      settled.status = status;
      settled.all_done = pending == 0;
    }
    return settled;
  }
  void Settle() {
    Settled settled;
    {
      absl::MutexLock lock(&mu);
      settled = TakeSettledLocked();
    }
    settled.Run();
  }

  const std::shared_ptr<const ClientGraph> graph;
  // Set by LaunchStep before the first call goes out.
  int64_t step_id = 0;
  std::vector<RunGraphCall> calls;
  const std::unique_ptr<CallOptions[]> opts;
  // Traced steps: when each call was sent and answered (NowNanos), for
  // the clock alignment of their statistics.
  std::vector<int64_t> sent_nanos;
  std::vector<int64_t> answered_nanos;

  absl::Mutex mu;
  int pending ABSL_GUARDED_BY(mu);
  // The first error (the root cause).
  absl::Status status ABSL_GUARDED_BY(mu);
  OnSettled on_settled ABSL_GUARDED_BY(mu);
};

absl::StatusOr<std::unique_ptr<MasterSession>> MasterSession::Create(
    Params params) {
  if (params.worker_cache == nullptr || params.ops == nullptr ||
      params.kernels == nullptr) {
    return absl::InvalidArgumentError(
        "MasterSession needs a worker cache, an op registry and a kernel "
        "registry");
  }
  if (params.options.config.operation_timeout_in_ms() < 0) {
    return absl::InvalidArgumentError(
        "operation_timeout_in_ms must not be negative");
  }
  bool has_client = false;
  for (const DeviceAttributes& d : params.devices) {
    DFX_ASSIGN_OR_RETURN(DeviceName name, DeviceName::Parse(d.name()));
    if (!name.IsFullySpecified()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "device '", d.name(), "' of the cluster is not a full device name"));
    }
    if (params.worker_cache->GetWorker(name.TaskName()) == nullptr) {
      return absl::InvalidArgumentError(
          absl::StrCat("no worker for task ", name.TaskName(), " of device '",
                       d.name(), "'"));
    }
    if (d.name() == params.client_device) has_client = true;
  }
  if (!has_client) {
    return absl::InvalidArgumentError(
        absl::StrCat("client device '", params.client_device,
                     "' is not a device of the cluster"));
  }
  return std::unique_ptr<MasterSession>(new MasterSession(std::move(params)));
}

MasterSession::MasterSession(Params params)
    : options_(std::move(params.options)),
      worker_cache_(params.worker_cache),
      ops_(params.ops),
      kernels_(params.kernels),
      handle_([] {
        absl::BitGen gen;
        return absl::StrFormat("%016x", absl::Uniform<uint64_t>(gen));
      }()),
      master_incarnation_(params.master_incarnation),
      tracker_(std::make_shared<OpTracker>()),
      cleanups_(params.timer == nullptr
                    ? nullptr
                    : StepCleanups::Create(
                          params.timer, params.cleanup_delay,
                          [this](WorkerInterface* worker, int64_t step_id) {
                            SendCleanupGraph(worker, step_id);
                          })),
      own_timer_(params.timer == nullptr ? std::make_unique<Timer>()
                                         : nullptr),
      timer_(params.timer != nullptr ? params.timer : own_timer_.get()) {
  auto empty = std::make_shared<GraphState>();
  empty->graph = std::make_unique<Graph>(ops_);
  absl::MutexLock lock(&mu_);
  graph_ = std::move(empty);
  placement_ = std::make_shared<const PlacementConfig>(
      PlacementConfig{std::move(params.devices), params.client_device,
                      kernels_,
                      options_.config.allow_soft_placement(),
                      GraphOptimizerOptionsFromConfig(options_.config)});
}

MasterSession::~MasterSession() {
  Close().IgnoreError();
  {
    // Runs still inside Run (a client bug, but do not crash under them).
    absl::MutexLock lock(&mu_);
    mu_.Await(absl::Condition(
        +[](absl::flat_hash_set<std::shared_ptr<StepState>>* running) {
          return running->empty();
        },
        &running_));
  }
  tracker_->WaitForAll();
}

absl::Status MasterSession::Extend(GraphDef graph) {
  absl::MutexLock extend_lock(&extend_mu_);
  std::shared_ptr<GraphState> old;
  {
    absl::MutexLock lock(&mu_);
    if (closed_) return absl::CancelledError("session is closed");
    old = graph_;
  }
  GraphDef merged = old->def.has_value() ? *old->def : ToGraphDef(*old->graph);
  {
    absl::flat_hash_set<absl::string_view> existing;
    for (const NodeDef& n : merged.node()) existing.insert(n.name());
    for (const NodeDef& n : graph.node()) {
      if (existing.contains(n.name())) {
        return absl::InvalidArgumentError(absl::StrCat(
            "node '", n.name(), "' already exists in the session's graph"));
      }
    }
  }
  // Moved, not copied: a 100,000-node graph's nodes cost as much to copy
  // as to import.
  merged.mutable_node()->Reserve(merged.node_size() + graph.node_size());
  for (NodeDef& n : *graph.mutable_node()) *merged.add_node() = std::move(n);
  if (graph.has_versions()) {
    merged.mutable_versions()->Swap(graph.mutable_versions());
  }
  for (FunctionDef& f : *graph.mutable_library()->mutable_function()) {
    *merged.mutable_library()->add_function() = std::move(f);
  }
  for (GradientDef& g : *graph.mutable_library()->mutable_gradient()) {
    *merged.mutable_library()->add_gradient() = std::move(g);
  }
  // Functions the graph calls (by name, or through PartitionedCall, If,
  // While, ...) are validated, then every call is lowered before placement,
  // so the inlined nodes are placed like any other (graph/function_library.h).
  DFX_ASSIGN_OR_RETURN(
      std::shared_ptr<const FunctionLibrary> library,
      FunctionLibrary::Create(ReachableFunctions(merged), ops_));
  // With no function to inline, the imported graph is the merged one (up
  // to default attrs) and takes its nodes; otherwise both are kept.
  const bool inlines = library->num_functions() > 0;
  DFX_ASSIGN_OR_RETURN(
      std::unique_ptr<Graph> imported,
      inlines ? ImportGraphDef(merged, library->op_registry())
              : ImportGraphDef(std::move(merged), library->op_registry()));
  DFX_RETURN_IF_ERROR(LowerFunctionalOps(*library, imported.get()));
  std::shared_ptr<const PlacementConfig> placement;
  {
    absl::MutexLock lock(&mu_);
    placement = placement_;
  }
  DFX_RETURN_IF_ERROR(PlaceSessionGraph(*placement, imported.get()));
  auto state = std::make_shared<GraphState>();
  if (inlines) state->def = std::move(merged);
  state->library = std::move(library);
  state->graph = std::move(imported);
  absl::MutexLock lock(&mu_);
  if (closed_) return absl::CancelledError("session is closed");
  // The old state's client graphs stay registered until the session ends:
  // steps that started on them may still be on their way to the workers.
  graph_ = std::move(state);
  return absl::OkStatus();
}

// A task's worker session: the CreateWorkerSession call that makes it,
// shared by every step that needs the session while the call is out.
struct MasterSession::WorkerSessionSlot {
  using Call =
      PendingCall<CreateWorkerSessionRequest, CreateWorkerSessionResponse>;
  WorkerInterface* worker = nullptr;
  std::shared_ptr<Call> call = std::make_shared<Call>();
};

absl::Status MasterSession::EnsureWorkerSession(const std::string& task,
                                                WorkerInterface* worker,
                                                const CallControl& control) {
  std::shared_ptr<WorkerSessionSlot> slot;
  bool send = false;
  {
    absl::MutexLock lock(&worker_sessions_mu_);
    if (worker_sessions_closed_) {
      return absl::CancelledError("session is closed");
    }
    std::shared_ptr<WorkerSessionSlot>& entry = worker_sessions_[task];
    if (entry == nullptr) {
      entry = std::make_shared<WorkerSessionSlot>();
      entry->worker = worker;
      send = true;
    }
    slot = entry;
  }
  const std::shared_ptr<WorkerSessionSlot::Call>& call = slot->call;
  if (send) {
    call->request.set_session_handle(handle_);
    call->request.set_isolate_session_state(
        options_.config.isolate_session_state());
    std::shared_ptr<const PlacementConfig> placement;
    {
      absl::MutexLock lock(&mu_);
      placement = placement_;
    }
    if (auto client = DeviceName::Parse(placement->default_device);
        client.ok()) {
      call->request.set_master_task(client->TaskName());
      call->request.set_master_incarnation(master_incarnation_);
    }
    tracker_->Add();
    worker->CreateWorkerSessionAsync(
        &call->request, &call->response,
        [call, tracker = tracker_](const absl::Status& s) {
          // A session the worker has already: an earlier try that answered
          // after its caller gave up made it.
          call->Finish(absl::IsAlreadyExists(s) ? absl::OkStatus() : s);
          tracker->Done();
        });
  }
  absl::Status s = call->Wait(ControlDeadline(control.deadline), control,
                              "CreateWorkerSession");
  if (s.ok()) return s;
  if (!absl::IsCancelled(s)) {
    // Forget the failed try so that a later step tries again.
    absl::MutexLock lock(&worker_sessions_mu_);
    auto it = worker_sessions_.find(task);
    if (it != worker_sessions_.end() && it->second == slot) {
      worker_sessions_.erase(it);
    }
  }
  MaybeSuspect(task, s);
  return UnavailableTaskError(task, s);
}

void MasterSession::MaybeSuspect(const std::string& task,
                                 const absl::Status& s) {
  const bool lost = LostSession(s);
  if (!absl::IsUnavailable(s) && !lost) return;
  absl::MutexLock lock(&mu_);
  suspects_[task] |= lost;
}

struct MasterSession::StatusCall
    : PendingCall<GetStatusRequest, GetStatusResponse> {};

std::vector<std::shared_ptr<MasterSession::StatusCall>>
MasterSession::SendGetStatus(const std::vector<std::string>& tasks) {
  std::vector<std::shared_ptr<StatusCall>> calls;
  for (const std::string& task : tasks) {
    auto call = std::make_shared<StatusCall>();
    calls.push_back(call);
    WorkerInterface* worker = worker_cache_->GetWorker(task);
    if (worker == nullptr) {
      call->Finish(absl::InternalError("no worker for the task"));
      continue;
    }
    tracker_->Add();
    worker->GetStatusAsync(&call->request, &call->response,
                           [call, tracker = tracker_](const absl::Status& s) {
                             call->Finish(s);
                             tracker->Done();
                           });
  }
  return calls;
}

void MasterSession::RecheckSuspects(const CallControl& control) {
  absl::MutexLock recheck(&recheck_mu_);
  std::vector<std::string> tasks;
  absl::flat_hash_set<std::string> lost;
  {
    absl::MutexLock lock(&mu_);
    for (const auto& [task, lost_session] : suspects_) {
      tasks.push_back(task);
      if (lost_session) lost.insert(task);
    }
  }
  if (tasks.empty()) return;
  std::vector<std::shared_ptr<StatusCall>> calls = SendGetStatus(tasks);
  const absl::Time deadline = absl::Now() + kRecheckTimeout;
  absl::flat_hash_map<std::string, std::vector<DeviceAttributes>> answers;
  for (size_t i = 0; i < tasks.size(); ++i) {
    if (!calls[i]->Wait(deadline, control, "GetStatus").ok()) continue;
    const auto& devices = calls[i]->response.device_attributes();
    answers[tasks[i]].assign(devices.begin(), devices.end());
  }
  Rejoin(answers, lost);
}

void MasterSession::NameUnavailableTasks(const ClientGraph& graph,
                                         const CallControl& control,
                                         absl::Status* status) {
  if (!absl::IsUnavailable(*status) && !absl::IsAborted(*status)) return;
  std::vector<std::string> tasks;
  for (const ClientGraph::Part& part : graph.parts) {
    if (std::find(tasks.begin(), tasks.end(), part.task) == tasks.end()) {
      tasks.push_back(part.task);
    }
  }
  std::shared_ptr<const PlacementConfig> placement;
  {
    absl::MutexLock lock(&mu_);
    placement = placement_;
  }
  std::vector<std::shared_ptr<StatusCall>> calls = SendGetStatus(tasks);
  // The step's own deadline may have passed: the probe has its own, at
  // most kRecheckTimeout, at least 1 s, else within the step's deadline
  // (the client stops waiting soon after it).
  CallControl probe;
  probe.cancellation = control.cancellation;
  const absl::Time now = absl::Now();
  const absl::Time deadline =
      std::min(now + kRecheckTimeout,
               std::max(control.deadline, now + absl::Seconds(1)));
  std::vector<std::string> unavailable;
  for (size_t i = 0; i < tasks.size(); ++i) {
    absl::Status s = calls[i]->Wait(deadline, probe, "GetStatus");
    if (absl::IsCancelled(s)) return;  // the caller went away
    bool restarted = false;
    if (s.ok()) {
      absl::flat_hash_map<std::string, uint64_t> now;
      for (const DeviceAttributes& d : calls[i]->response.device_attributes()) {
        auto name = DeviceName::Parse(d.name());
        if (name.ok()) now[name->LocalName()] = d.incarnation();
      }
      for (const DeviceAttributes& d : placement->devices) {
        auto name = DeviceName::Parse(d.name());
        if (!name.ok() || name->TaskName() != tasks[i]) continue;
        auto it = now.find(name->LocalName());
        if (it != now.end() && it->second != d.incarnation()) restarted = true;
      }
    }
    if (s.ok() && !restarted) continue;
    unavailable.push_back(tasks[i]);
    MaybeSuspect(tasks[i], absl::UnavailableError("no answer"));
  }
  if (unavailable.empty()) return;
  absl::Status named(
      status->code(),
      absl::StrCat(status->message(), " [unavailable: ",
                   absl::StrJoin(unavailable, ", "), "]"));
  status->ForEachPayload([&named](absl::string_view url,
                                  const absl::Cord& value) {
    named.SetPayload(url, value);
  });
  SetUnavailableTasks(&named, unavailable);
  *status = std::move(named);
}

std::vector<std::string> MasterSession::Tasks() const {
  std::shared_ptr<const PlacementConfig> placement;
  {
    absl::MutexLock lock(&mu_);
    placement = placement_;
  }
  std::set<std::string> tasks;
  for (const DeviceAttributes& d : placement->devices) {
    auto name = DeviceName::Parse(d.name());
    if (name.ok()) tasks.insert(name->TaskName());
  }
  return std::vector<std::string>(tasks.begin(), tasks.end());
}

void MasterSession::ApplyTaskStatus(
    const absl::flat_hash_map<std::string, std::vector<DeviceAttributes>>&
        answers) {
  absl::MutexLock recheck(&recheck_mu_);
  Rejoin(answers, /*lost=*/{});
}

void MasterSession::Rejoin(
    const absl::flat_hash_map<std::string, std::vector<DeviceAttributes>>&
        answers,
    const absl::flat_hash_set<std::string>& lost) {
  std::shared_ptr<const PlacementConfig> placement;
  {
    absl::MutexLock lock(&mu_);
    if (closed_) return;
    placement = placement_;
  }
  auto updated = std::make_shared<PlacementConfig>(*placement);
  std::vector<std::string> restarted;
  for (const auto& [task, devices] : answers) {
    // The task's devices by their local part ("/device:CPU:0"): a worker
    // may not know its own job and task.
    absl::flat_hash_map<std::string, uint64_t> now;
    for (const DeviceAttributes& d : devices) {
      auto name = DeviceName::Parse(d.name());
      if (name.ok()) now[name->LocalName()] = d.incarnation();
    }
    bool changed = false;
    for (DeviceAttributes& d : updated->devices) {
      auto name = DeviceName::Parse(d.name());
      if (!name.ok() || name->TaskName() != task) continue;
      auto it = now.find(name->LocalName());
      if (it == now.end() || it->second == d.incarnation()) continue;
      spdlog::info("session {}: device {} restarted (incarnation {:x} -> "
                   "{:x}); the task rejoins the session",
                   handle_, d.name(), d.incarnation(), it->second);
      d.set_incarnation(it->second);
      changed = true;
    }
    if (changed || lost.contains(task)) restarted.push_back(task);
  }
  std::vector<std::shared_ptr<const ClientGraph>> dropped;
  {
    absl::MutexLock lock(&mu_);
    for (const auto& [task, devices] : answers) suspects_.erase(task);
    if (!restarted.empty() && graph_ != nullptr) {
      // A new placement also when no incarnation changed: client graphs
      // being built now must not be cached.
      placement_ = std::move(updated);
      absl::MutexLock graph_lock(&graph_->mu);
      for (auto& [key, graph] : graph_->cache) dropped.push_back(graph);
      graph_->cache.clear();
    }
  }
  if (restarted.empty()) return;
  {
    absl::MutexLock lock(&worker_sessions_mu_);
    for (const std::string& task : restarted) worker_sessions_.erase(task);
  }
  // The graphs on the tasks that did not restart go; the restarted tasks
  // answer that they never had theirs.
  for (const auto& graph : dropped) DeregisterAsync(*graph);
}

absl::StatusOr<std::shared_ptr<MasterSession::ClientGraph>>
MasterSession::BuildClientGraph(const GraphState& state,
                                const PlacementConfig& placement,
                                const StepSignature& signature,
                                const CallControl& control) {
  DFX_ASSIGN_OR_RETURN(StepPlan plan,
                       PlanStep(*state.graph, placement, signature));
  auto graph = std::make_shared<ClientGraph>();
  graph->fetch_keys = std::move(plan.fetch_keys);

  // Which client endpoint lives where: by the tensor_name of the
  // client-terminated _Recv (feeds) and _Send (fetches) nodes.
  absl::flat_hash_map<std::string, int> feed_index;
  for (size_t i = 0; i < signature.feeds.size(); ++i) {
    feed_index[signature.feeds[i]] = static_cast<int>(i);
  }
  absl::flat_hash_map<std::string, std::string> fetch_key_of;
  for (size_t j = 0; j < signature.fetches.size(); ++j) {
    DFX_ASSIGN_OR_RETURN(TensorId id, ParseTensorName(signature.fetches[j]));
    fetch_key_of[id.ToString()] = graph->fetch_keys[j];
  }
  absl::flat_hash_set<std::string> fetch_keys_found;

  // One partition per task (PlanStep): one RegisterGraph and one RunGraph
  // per task, which splits it by device. The GraphDefs go into the
  // RegisterGraph requests (moved: a 100,000-node partition is not copied
  // again, nor kept with the cached client graph).
  std::vector<GraphDef> defs;
  defs.reserve(plan.partitions.size());
  for (auto& [task, def] : plan.partitions) {
    ClientGraph::Part part;
    DFX_ASSIGN_OR_RETURN(DeviceName name, DeviceName::Parse(task));
    part.task = name.TaskName();
    part.worker = worker_cache_->GetWorker(part.task);
    if (part.worker == nullptr) {
      return absl::InternalError(
          absl::StrCat("no worker for task ", part.task));
    }
    for (const NodeDef& n : def.node()) {
      if (!BoolAttr(n, "client_terminated")) continue;
      const std::string* tensor = StringAttr(n, "tensor_name");
      if (tensor == nullptr) continue;
      if (n.op() == "_Recv") {
        auto it = feed_index.find(*tensor);
        if (it != feed_index.end()) {
          DFX_ASSIGN_OR_RETURN(std::string key, SendRecvRendezvousKey(n));
          part.feeds.emplace_back(it->second, std::move(key));
        }
      } else if (n.op() == "_Send") {
        auto it = fetch_key_of.find(*tensor);
        if (it != fetch_key_of.end() &&
            fetch_keys_found.insert(it->second).second) {
          part.fetch_keys.push_back(it->second);
        }
      }
    }
    defs.push_back(std::move(def));
    graph->parts.push_back(std::move(part));
  }
  for (size_t j = 0; j < signature.fetches.size(); ++j) {
    if (!fetch_keys_found.contains(graph->fetch_keys[j])) {
      return absl::InternalError(absl::StrCat(
          "fetch '", signature.fetches[j],
          "' has no client _Send in any partition of the step"));
    }
  }

  const absl::Time control_deadline = ControlDeadline(control.deadline);
  for (const ClientGraph::Part& part : graph->parts) {
    DFX_RETURN_IF_ERROR(EnsureWorkerSession(part.task, part.worker, control));
  }

  // Every partition registers at once.
  using Call = PendingCall<RegisterGraphRequest, RegisterGraphResponse>;
  std::vector<std::shared_ptr<Call>> calls;
  for (GraphDef& def : defs) {
    auto call = std::make_shared<Call>();
    call->request.set_session_handle(handle_);
    call->request.set_create_worker_session_called(true);
    call->request.mutable_graph_def()->Swap(&def);
    *call->request.mutable_graph_options() = options_.config.graph_options();
    *call->request.mutable_debug_options() = signature.debug_options;
    calls.push_back(call);
  }
  tracker_->Add(static_cast<int>(calls.size()));
  for (size_t i = 0; i < calls.size(); ++i) {
    std::shared_ptr<Call> call = calls[i];
    graph->parts[i].worker->TakeAndRegisterGraphAsync(
        &call->request, &call->response,
        [call, tracker = tracker_](const absl::Status& s) {
          call->Finish(s);
          tracker->Done();
        });
  }
  absl::Status first_error;
  for (size_t i = 0; i < calls.size(); ++i) {
    absl::Status s =
        calls[i]->Wait(control_deadline, control, "RegisterGraph");
    if (s.ok()) {
      ClientGraph::Part& part = graph->parts[i];
      part.graph_handle = calls[i]->response.graph_handle();
      part.cleanup_in_run_graph = cleanups_ != nullptr &&
                                  !part.worker->IsLocal() &&
                                  calls[i]->response.cleanup_in_run_graph();
      continue;
    }
    MaybeSuspect(graph->parts[i].task, s);
    if (first_error.ok()) {
      first_error = UnavailableTaskError(graph->parts[i].task, s);
    }
  }
  if (!first_error.ok()) {
    DeregisterAsync(*graph);
    return first_error;
  }
  for (const ClientGraph::Part& part : graph->parts) {
    auto it = std::find_if(
        graph->cleanup_targets.begin(), graph->cleanup_targets.end(),
        [&](const ClientGraph::CleanupTarget& t) {
          return t.worker == part.worker;
        });
    if (it == graph->cleanup_targets.end()) {
      graph->cleanup_targets.push_back({part.worker, true});
      it = graph->cleanup_targets.end() - 1;
    }
    it->hold = it->hold && part.cleanup_in_run_graph;
  }
  return graph;
}

std::string MasterSession::SignatureKey(const StepSignature& signature) {
  std::string key = absl::StrCat(absl::StrJoin(signature.feeds, ","), "\n",
                                 absl::StrJoin(signature.fetches, ","), "\n",
                                 absl::StrJoin(signature.targets, ","));
  // Runs with other tfdbg watches run other partitions.
  if (signature.debug_options.debug_tensor_watch_opts_size() > 0) {
    // (No map fields: the bytes are deterministic.)
    absl::StrAppend(&key, "\n", signature.debug_options.SerializeAsString());
  }
  return key;
}

std::shared_ptr<const MasterSession::ClientGraph>
MasterSession::CachedClientGraph(GraphState* state, const std::string& key) {
  absl::MutexLock lock(&state->mu);
  auto it = state->cache.find(key);
  return it == state->cache.end() ? nullptr : it->second;
}

absl::StatusOr<std::shared_ptr<const MasterSession::ClientGraph>>
MasterSession::GetOrCreateClientGraph(GraphState* state,
                                      const StepSignature& signature,
                                      const CallControl& control) {
  const std::string key = SignatureKey(signature);
  if (auto cached = CachedClientGraph(state, key)) return cached;
  // Built outside the lock so other steps keep running. Two threads may
  // build one signature at once; the first to insert wins and the other's
  // partitions are deregistered.
  std::shared_ptr<const PlacementConfig> placement;
  {
    absl::MutexLock lock(&mu_);
    placement = placement_;
  }
  DFX_ASSIGN_OR_RETURN(
      std::shared_ptr<ClientGraph> built,
      BuildClientGraph(*state, *placement, signature, control));
  std::shared_ptr<const ClientGraph> result;
  bool stale = false;
  {
    absl::MutexLock lock(&mu_);
    absl::MutexLock graph_lock(&state->mu);
    // A task rejoined meanwhile: the graph names its old incarnations.
    stale = placement_ != placement;
    if (!stale) {
      auto [it, inserted] = state->cache.try_emplace(key, built);
      result = it->second;
    }
  }
  if (result != built) DeregisterAsync(*built);
  if (stale) {
    return absl::UnavailableError(
        "a task of the step restarted while the step was being set up; "
        "run the step again");
  }
  return result;
}

void MasterSession::DeregisterAsync(const ClientGraph& graph) {
  using Call = PendingCall<DeregisterGraphRequest, DeregisterGraphResponse>;
  for (const ClientGraph::Part& part : graph.parts) {
    if (part.graph_handle.empty()) continue;
    auto call = std::make_shared<Call>();
    call->request.set_session_handle(handle_);
    call->request.set_create_worker_session_called(true);
    call->request.set_graph_handle(part.graph_handle);
    tracker_->Add();
    part.worker->DeregisterGraphAsync(
        &call->request, &call->response,
        [call, tracker = tracker_](const absl::Status&) { tracker->Done(); });
  }
}

void MasterSession::CleanupStep(const ClientGraph& graph, int64_t step_id,
                                bool succeeded) {
  for (const ClientGraph::CleanupTarget& target : graph.cleanup_targets) {
    // A failed step's state goes at once: its partitions may still be
    // waiting on each other.
    if (succeeded && target.hold) {
      cleanups_->Hold(target.worker, step_id);
    } else {
      SendCleanupGraph(target.worker, step_id);
    }
  }
}

void MasterSession::SendCleanupGraph(WorkerInterface* worker,
                                     int64_t step_id) {
  using Call = PendingCall<CleanupGraphRequest, CleanupGraphResponse>;
  auto call = std::make_shared<Call>();
  call->request.set_step_id(step_id);
  tracker_->Add();
  worker->CleanupGraphAsync(
      &call->request, &call->response,
      [this, call, tracker = tracker_](const absl::Status& s) {
        if (!s.ok()) {
          // The session outlives its calls (tracker_).
          const int64_t step = call->request.step_id();
          LogStepScope log_step(handle_, &step);
          spdlog::warn("CleanupGraph failed: {}", s);
        }
        tracker->Done();
      });
}

int64_t MasterSession::NewStepId() {
  // 63 random bits: non-negative.
  return static_cast<int64_t>(absl::Uniform<uint64_t>(bitgen_) >> 1);
}

// One RunAsync call from its start to `done`.
struct MasterSession::RunCall {
  RunCall(const RunOptions& run_options,
          const std::vector<std::pair<std::string, Tensor>>& feeds,
          const std::vector<std::string>& fetches,
          const std::vector<std::string>& targets, RunMetadata* run_metadata,
          const CallControl& control, Offload offload, RunDone done)
      : run_options(run_options),
        feeds(feeds),
        fetches(fetches),
        targets(targets),
        run_metadata(run_metadata),
        control(control),
        offload(std::move(offload)),
        done(std::move(done)) {}

  const RunOptions& run_options;
  const std::vector<std::pair<std::string, Tensor>>& feeds;
  const std::vector<std::string>& fetches;
  const std::vector<std::string>& targets;
  RunMetadata* const run_metadata;
  // The caller's, its deadline moved to the step's.
  CallControl control;
  std::string deadline_error;
  const Offload offload;
  RunDone done;

  // PrepareRun's: the graph the step runs on, whether suspects must be
  // rechecked first, the signature and the fed values in its order.
  std::shared_ptr<GraphState> graph;
  bool recheck = false;
  StepSignature signature;
  std::vector<const Tensor*> values;

  // LaunchStep's.
  std::shared_ptr<StepState> step;
  CancellationToken cancel_token = 0;
  Timer::Id deadline_timer = 0;
};

absl::Status MasterSession::Run(
    const RunOptions& run_options,
    const std::vector<std::pair<std::string, Tensor>>& feeds,
    const std::vector<std::string>& fetches,
    const std::vector<std::string>& targets, std::vector<Tensor>* outputs,
    RunMetadata* run_metadata, const CallControl& control) {
  CallerRunsOffload waiter;
  absl::Status status;
  RunAsync(run_options, feeds, fetches, targets, run_metadata, control,
           waiter.offload(),
           [&](absl::Status s, std::vector<Tensor> out) {
             status = std::move(s);
             if (status.ok()) *outputs = std::move(out);
             waiter.Finish();
           });
  waiter.Wait();
  return status;
}

void MasterSession::RunAsync(
    const RunOptions& run_options,
    const std::vector<std::pair<std::string, Tensor>>& feeds,
    const std::vector<std::string>& fetches,
    const std::vector<std::string>& targets, RunMetadata* run_metadata,
    const CallControl& control, Offload offload, RunDone done) {
  auto call = std::make_shared<RunCall>(run_options, feeds, fetches, targets,
                                        run_metadata, control,
                                        std::move(offload), std::move(done));
  if (absl::Status s = PrepareRun(call.get()); !s.ok()) {
    call->done(std::move(s), {});
    return;
  }
  // A signature run before, with no suspect task to ask first, starts on
  // this thread; a new one is built and registered where waiting is fine.
  std::shared_ptr<const ClientGraph> cached;
  const std::string key = SignatureKey(call->signature);
  if (!call->recheck) cached = CachedClientGraph(call->graph.get(), key);
  if (cached != nullptr) {
    call->step = std::make_shared<StepState>(std::move(cached));
    LaunchStep(call);
    return;
  }
  const Offload& slow = call->offload;
  slow([this, call = std::move(call)] {
    if (call->recheck) RecheckSuspects(call->control);
    auto client_graph = GetOrCreateClientGraph(
        call->graph.get(), call->signature, call->control);
    if (!client_graph.ok()) {
      call->done(client_graph.status(), {});
      return;
    }
    call->step = std::make_shared<StepState>(*std::move(client_graph));
    LaunchStep(call);
  });
}

absl::Status MasterSession::PrepareRun(RunCall* call) {
  const int64_t timeout_ms = call->run_options.timeout_in_ms() > 0
                                 ? call->run_options.timeout_in_ms()
                                 : options_.config.operation_timeout_in_ms();
  absl::Time deadline = timeout_ms > 0
                            ? absl::Now() + absl::Milliseconds(timeout_ms)
                            : absl::InfiniteFuture();
  call->deadline_error = absl::StrCat(
      "step did not finish within the deadline of ", timeout_ms, " ms");
  if (call->control.deadline < deadline) {
    deadline = call->control.deadline;
    call->deadline_error = "step did not finish before the caller's deadline";
  }
  call->control.deadline = deadline;
  if (call->control.cancellation != nullptr &&
      call->control.cancellation->IsCancelled()) {
    return absl::CancelledError("the caller cancelled the step");
  }
  {
    absl::MutexLock lock(&mu_);
    if (closed_) return absl::CancelledError("session is closed");
    call->graph = graph_;
    call->recheck = !suspects_.empty();
  }
  const Graph& graph = *call->graph->graph;

  // Feeds: validated against the graph, then sorted by tensor name (the
  // order of the signature and of the client graph's feed keys).
  const auto& feeds = call->feeds;
  std::vector<std::string> canonical(feeds.size());
  for (size_t i = 0; i < feeds.size(); ++i) {
    const std::string& name = feeds[i].first;
    const Tensor& value = feeds[i].second;
    auto id = ParseTensorName(name);
    if (!id.ok()) {
      return absl::InvalidArgumentError(
          absl::StrCat("feed '", name, "': ", id.status().message()));
    }
    const Node* node = graph.FindNode(id->node);
    if (node == nullptr) {
      return absl::InvalidArgumentError(
          absl::StrCat("feed tensor '", name, "' not found: the graph has no "
                       "node '", id->node, "'"));
    }
    if (id->index >= node->num_outputs()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "feed tensor '", name, "' not found: node '", id->node, "' has ",
          node->num_outputs(), " output(s)"));
    }
    canonical[i] = id->ToString();
    const DataType want = BaseType(node->output_type(id->index));
    if (value.dtype() != want) {
      return absl::InvalidArgumentError(absl::StrCat(
          "feed '", name, "' is a ", DataTypeString(value.dtype()),
          " tensor but tensor '", canonical[i], "' has dtype ",
          DataTypeString(want)));
    }
    if (id->index == 0 && IsPlaceholder(node->type_string())) {
      const AttrValue* shape = FindNodeAttr(node->def(), "shape");
      if (shape != nullptr && shape->has_shape()) {
        const PartialShape declared = PartialShape::FromProto(shape->shape());
        if (!ShapeCompatible(declared, value.shape())) {
          return absl::InvalidArgumentError(absl::StrCat(
              "Cannot feed value of shape ", value.shape().DebugString(),
              " for tensor '", canonical[i], "', which has shape ",
              declared.DebugString()));
        }
      }
    }
  }
  std::vector<size_t> order(feeds.size());
  std::iota(order.begin(), order.end(), 0);
  std::sort(order.begin(), order.end(),
            [&](size_t a, size_t b) { return canonical[a] < canonical[b]; });
  StepSignature& signature = call->signature;
  signature.feeds.reserve(feeds.size());
  call->values.reserve(feeds.size());
  for (size_t i : order) {
    if (!signature.feeds.empty() && signature.feeds.back() == canonical[i]) {
      return absl::InvalidArgumentError(
          absl::StrCat("tensor '", canonical[i], "' is fed more than once"));
    }
    signature.feeds.push_back(canonical[i]);
    call->values.push_back(&feeds[i].second);
  }
  signature.fetches = call->fetches;
  signature.targets = call->targets;
  *signature.debug_options.mutable_debug_tensor_watch_opts() =
      call->run_options.debug_options().debug_tensor_watch_opts();
  std::sort(signature.targets.begin(), signature.targets.end());
  signature.targets.erase(
      std::unique(signature.targets.begin(), signature.targets.end()),
      signature.targets.end());
  return absl::OkStatus();
}

void MasterSession::LaunchStep(const std::shared_ptr<RunCall>& call) {
  // RunAsync made the step with its client graph; here it gets its id.
  std::shared_ptr<StepState>& step = call->step;
  const std::shared_ptr<const ClientGraph>& client_graph = step->graph;
  {
    absl::MutexLock lock(&mu_);
    if (closed_) {
      call->done(absl::CancelledError("session is closed"), {});
      return;
    }
    step->step_id = NewStepId();
    running_.insert(step);
  }
  // Until `done` has been called the session stays (its destructor waits
  // for the tracker).
  tracker_->Add();
  const CallControl& control = call->control;
  if (control.step_id != nullptr) *control.step_id = step->step_id;
  const absl::Time deadline = control.deadline;
  const RunOptions& run_options = call->run_options;
  const bool trace = run_options.trace_level() != RunOptions::NO_TRACE &&
                     call->run_metadata != nullptr;
  const size_t num_parts = client_graph->parts.size();
  for (size_t i = 0; i < num_parts; ++i) {
    const ClientGraph::Part& part = client_graph->parts[i];
    RunGraphCall& graph_call = step->calls[i];
    RunGraphRequest& request = graph_call.request;
    request.set_session_handle(handle_);
    request.set_create_worker_session_called(true);
    request.set_graph_handle(part.graph_handle);
    request.set_step_id(step->step_id);
    request.set_request_id(NewRequestId());
    request.mutable_exec_opts()->set_record_timeline(trace);
    if (call->run_metadata != nullptr &&
        run_options.output_partition_graphs()) {
      request.mutable_exec_opts()->set_record_partition_graphs(true);
    }
    request.set_store_errors_in_response_body(true);
    for (const auto& [f, key] : part.feeds) {
      // Shares the buffer: a Tensor copy is a reference.
      graph_call.send.emplace_back(key, *call->values[f]);
    }
    for (const std::string& key : part.fetch_keys) request.add_recv_key(key);
    if (part.cleanup_in_run_graph) {
      for (int64_t done_step : cleanups_->Take(part.worker)) {
        request.add_cleanup_step_id(done_step);
      }
    }
    if (deadline != absl::InfiniteFuture()) {
      step->opts[i].SetTimeout(
          std::max(deadline - absl::Now(), absl::Milliseconds(1)));
    }
  }

  // The caller's cancellation (a client that went away) ends the step on
  // every worker; so does its deadline. Both are set up before the answer
  // can be put together (below), which reads what they leave in `call`.
  if (CancellationManager* cm = control.cancellation; cm != nullptr) {
    call->cancel_token = cm->get_cancellation_token();
    if (!cm->RegisterCallback(call->cancel_token, [step] {
          step->Abort(absl::CancelledError("the caller cancelled the step"));
        })) {
      call->cancel_token = 0;
      step->Abort(absl::CancelledError("the caller cancelled the step"));
    }
  }
  if (deadline != absl::InfiniteFuture()) {
    call->deadline_timer = timer_->Schedule(
        std::max(deadline - absl::Now(), absl::ZeroDuration()),
        [step, error = call->deadline_error] {
          step->Abort(absl::DeadlineExceededError(error));
        });
  }
  // The step counts as one tracked call until its last RunGraph answers and
  // the CleanupGraph calls are out.
  tracker_->Add();
  if (trace) {
    step->sent_nanos.assign(num_parts, 0);
    step->answered_nanos.assign(num_parts, 0);
  }
  // The answer is put together once the step finished or failed: at once
  // on the thread that saw it finish, or, for an error (which may ask the
  // tasks for their status), where waiting is fine. A step aborted already
  // (a cancelled caller, a deadline passed) settles here.
  {
    absl::MutexLock lock(&step->mu);
    step->on_settled = [this, call](const absl::Status& s, bool all_done) {
      if (s.ok()) {
        FinishRun(call, s, all_done);
      } else {
        call->offload([this, call, s, all_done] {
          FinishRun(call, s, all_done);
        });
      }
    };
  }
  step->Settle();
  const auto on_done = [this, step, deadline,
                        deadline_error = call->deadline_error,
                        trace](size_t i, const absl::Status& s) {
    if (trace) step->answered_nanos[i] = NowNanos();
    bool first_error = false;
    bool last = false;
    bool succeeded = false;
    const ClientGraph::Part& part = step->graph->parts[i];
    const std::string& task = part.task;
    MaybeSuspect(task, s);
    if (!s.ok()) {
      // The cleanups this call carried may not have arrived.
      for (int64_t done_step : step->calls[i].request.cleanup_step_id()) {
        SendCleanupGraph(part.worker, done_step);
      }
    }
    StepState::Settled settled;
    {
      absl::MutexLock lock(&step->mu);
      // Later errors are what the first one caused (Cancelled, Aborted, or
      // the root cause again through the step's rendezvous).
      if (!s.ok() && step->status.ok()) {
        if ((absl::IsCancelled(s) || absl::IsAborted(s) ||
             absl::IsDeadlineExceeded(s)) &&
            absl::Now() >= deadline) {
          // A worker's own timer (the call's timeout) cancelled a
          // partition, and another one reports what that caused.
          step->status = absl::DeadlineExceededError(deadline_error);
        } else {
          step->status = TaskError(task, s);
        }
        first_error = true;
      }
      last = --step->pending == 0;
      succeeded = step->status.ok();
      settled = step->TakeSettledLocked();
    }
    if (first_error) step->CancelAll();
    settled.Run();
    if (last) {
      CleanupStep(*step->graph, step->step_id, succeeded);
      tracker_->Done();
    }
  };
  // Calls to other tasks go out first; the last call to this process's
  // own worker then runs its first nodes on this thread, which would
  // otherwise only wait for the step (a null step costs two thread
  // hand-offs less).
  absl::InlinedVector<size_t, 4> dispatch;
  dispatch.reserve(num_parts);
  for (size_t i = 0; i < num_parts; ++i) {
    if (!client_graph->parts[i].worker->IsLocal()) dispatch.push_back(i);
  }
  for (size_t i = 0; i < num_parts; ++i) {
    if (client_graph->parts[i].worker->IsLocal()) dispatch.push_back(i);
  }
  if (!dispatch.empty() &&
      client_graph->parts[dispatch.back()].worker->IsLocal()) {
    step->calls[dispatch.back()].caller_runs_inline = true;
  }
  for (size_t i : dispatch) {
    if (trace) step->sent_nanos[i] = NowNanos();
    client_graph->parts[i].worker->RunGraphAsync(
        &step->opts[i], &step->calls[i],
        [on_done, i](const absl::Status& s) { on_done(i, s); });
  }
  if (num_parts == 0) {
    // Nothing to run (no fetch, no target): settled above already.
    tracker_->Done();
  }
}

void MasterSession::FinishRun(const std::shared_ptr<RunCall>& call,
                              absl::Status status, bool all_done) {
  const std::shared_ptr<StepState>& step = call->step;
  const ClientGraph& client_graph = *step->graph;
  if (call->deadline_timer != 0) timer_->Cancel(call->deadline_timer);
  if (call->cancel_token != 0) {
    // Never waits: this may run inside the cancellation's own callback.
    call->control.cancellation->TryDeregisterCallback(call->cancel_token);
  }
  {
    absl::MutexLock lock(&mu_);
    running_.erase(step);
  }
  const RunOptions& run_options = call->run_options;
  const bool trace = run_options.trace_level() != RunOptions::NO_TRACE &&
                     call->run_metadata != nullptr;
  if (call->run_metadata != nullptr) {
    if (trace && all_done) {
      std::vector<std::string> tasks;
      for (const ClientGraph::Part& part : client_graph.parts) {
        tasks.push_back(part.task);
      }
      MergeTraces(step->calls, tasks, step->sent_nanos, step->answered_nanos,
                  run_options.trace_level() == RunOptions::FULL_TRACE,
                  call->run_metadata->mutable_step_stats());
    }
    if (run_options.output_partition_graphs() && all_done) {
      // Each device's graph, as its worker cut the task's partition (as
      // TensorFlow's master reports them).
      for (RunGraphCall& graph_call : step->calls) {
        for (GraphDef& g : graph_call.partition_graphs) {
          call->run_metadata->add_partition_graphs()->Swap(&g);
        }
      }
    }
  }
  std::vector<Tensor> result;
  if (!status.ok()) {
    NameUnavailableTasks(client_graph, call->control, &status);
  } else {
    // Every call answered OK: collect the fetches by key.
    absl::flat_hash_map<absl::string_view, const Tensor*> received;
    for (const RunGraphCall& graph_call : step->calls) {
      for (const auto& [key, tensor] : graph_call.recv) {
        received[key] = &tensor;
      }
    }
    result.reserve(call->fetches.size());
    for (size_t j = 0; j < call->fetches.size(); ++j) {
      auto it = received.find(client_graph.fetch_keys[j]);
      if (it == received.end()) {
        status = absl::InternalError(absl::StrCat(
            "no worker returned fetch '", call->fetches[j], "' (key '",
            client_graph.fetch_keys[j], "')"));
        result.clear();
        break;
      }
      result.push_back(*it->second);
    }
  }
  RunDone done = std::move(call->done);
  std::shared_ptr<OpTracker> tracker = tracker_;
  done(std::move(status), std::move(result));
  tracker->Done();
}

absl::StatusOr<std::vector<DeviceAttributes>> MasterSession::ListDevices()
    const {
  absl::MutexLock lock(&mu_);
  if (closed_) return absl::CancelledError("session is closed");
  return placement_->devices;
}

absl::Status MasterSession::Close() {
  std::vector<std::shared_ptr<StepState>> steps;
  std::shared_ptr<GraphState> dropped;
  {
    absl::MutexLock lock(&mu_);
    if (closed_) return absl::OkStatus();
    closed_ = true;
    steps.assign(running_.begin(), running_.end());
    dropped = std::move(graph_);
  }
  for (const std::shared_ptr<StepState>& step : steps) {
    step->Abort(absl::CancelledError("session is closed"));
  }
  // Finished steps' cleanups go before the worker sessions; the steps
  // still running send theirs at once.
  if (cleanups_ != nullptr) cleanups_->Close();
  std::map<std::string, std::shared_ptr<WorkerSessionSlot>> sessions;
  {
    absl::MutexLock lock(&worker_sessions_mu_);
    worker_sessions_closed_ = true;
    sessions.swap(worker_sessions_);
  }
  // The workers drop the session's graphs (steps still running keep theirs
  // until they end).
  using Call =
      PendingCall<DeleteWorkerSessionRequest, DeleteWorkerSessionResponse>;
  for (const auto& [task, slot] : sessions) {
    auto call = std::make_shared<Call>();
    call->request.set_session_handle(handle_);
    tracker_->Add();
    slot->worker->DeleteWorkerSessionAsync(
        &call->request, &call->response,
        [call, tracker = tracker_, task = task](const absl::Status& s) {
          if (!s.ok()) {
            spdlog::warn("DeleteWorkerSession on task {} failed: {}", task, s);
          }
          tracker->Done();
        });
  }
  return absl::OkStatus();
}

MasterSession::Offload CallerRunsOffload::offload() {
  return [this](std::function<void()> fn) {
    absl::MutexLock lock(&mu_);
    work_.push_back(std::move(fn));
  };
}

void CallerRunsOffload::Finish() {
  {
    absl::MutexLock lock(&mu_);
    finished_ = true;
  }
  finish_returned_.Notify();
}

void CallerRunsOffload::Wait() {
  for (;;) {
    std::function<void()> fn;
    {
      absl::MutexLock lock(&mu_);
      mu_.Await(absl::Condition(
          +[](CallerRunsOffload* self) ABSL_NO_THREAD_SAFETY_ANALYSIS {
            return self->finished_ || !self->work_.empty();
          },
          this));
      if (work_.empty()) break;
      fn = std::move(work_.front());
      work_.pop_front();
    }
    fn();
  }
  finish_returned_.WaitForNotification();
}

}  // namespace dfx
