#include "master/master.h"

#include <algorithm>
#include <optional>
#include <set>
#include <utility>

#include "absl/cleanup/cleanup.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/time/clock.h"
#include "base/log.h"
#include "base/logging.h"
#include "base/metrics.h"
#include "base/status_macros.h"
#include "kernels/kernels.h"

namespace dfx {
namespace {

// How many handles closed for idleness are remembered for their error.
constexpr size_t kMaxGcClosed = 1000;

// Device discovery asks a task that answered Unavailable again every
// interval for a window longer than gRPC's reconnect backoff (1 s).
constexpr absl::Duration kDiscoveryRetryWindow = absl::Milliseconds(1500);
constexpr absl::Duration kDiscoveryRetryInterval = absl::Milliseconds(100);

// A protobuf message is at most 2 GiB; leave room for the names.
constexpr int64_t kMaxRunStepResponseBytes =
    (int64_t{2} << 30) - (int64_t{64} << 20);

// A traced step's slowest nodes: the longest of each node's runs over all
// devices, the longest first.
std::vector<std::pair<std::string, absl::Duration>> SlowestNodes(
    const StepStats& stats) {
  std::vector<std::pair<std::string, absl::Duration>> nodes;
  for (const DeviceStepStats& dev : stats.dev_stats()) {
    for (const NodeExecStats& node : dev.node_stats()) {
      nodes.emplace_back(node.node_name(),
                         absl::Microseconds(node.all_end_rel_micros()));
    }
  }
  const size_t n =
      std::min(nodes.size(), static_cast<size_t>(StepSummary::kSlowestNodes));
  std::partial_sort(nodes.begin(), nodes.begin() + n, nodes.end(),
                    [](const auto& a, const auto& b) {
                      return a.second > b.second;
                    });
  nodes.resize(n);
  return nodes;
}

// One call to each of several workers, awaited together. Shared with the
// callbacks: a worker that answers after the caller gave up writes into a
// round that is still alive.
template <typename Request, typename Response>
class Round {
 public:
  explicit Round(size_t n)
      : requests_(n), responses_(n), statuses_(n), answered_(n, false),
        pending_(n) {}

  Request* request(size_t i) { return &requests_[i]; }
  // Where worker i writes its answer.
  Response* response_slot(size_t i) { return &responses_[i]; }
  // REQUIRES: answered(i) after Wait.
  const Response& response(size_t i) const { return responses_[i]; }

  // The `done` of worker i's call.

  static StatusCallback Callback(std::shared_ptr<Round> round, size_t i) {
    return [round = std::move(round), i](const absl::Status& s) {
      absl::MutexLock lock(&round->mu_);
      round->statuses_[i] = s;
      round->answered_[i] = true;
      --round->pending_;
    };
  }
  // Waits until every worker answered, or the control's deadline passed,
  // or it was cancelled (then false).
  bool Wait(const CallControl& control) {
    CancellationManager* cm = control.cancellation;
    CancellationToken token = 0;
    if (cm != nullptr) {
      token = cm->get_cancellation_token();
      if (!cm->RegisterCallback(token, [this] {
            absl::MutexLock lock(&mu_);
            cancelled_ = true;
          })) {
        return false;
      }
    }
    bool cancelled;
    {
      absl::MutexLock lock(&mu_);
      mu_.AwaitWithDeadline(absl::Condition(this, &Round::Ready),
                            control.deadline);
      cancelled = cancelled_;
    }
    if (cm != nullptr) cm->DeregisterCallback(token);
    return !cancelled;
  }
  bool answered(size_t i) const {
    absl::MutexLock lock(&mu_);
    return answered_[i];
  }
  absl::Status status(size_t i) const {
    absl::MutexLock lock(&mu_);
    return statuses_[i];
  }

 private:
  std::vector<Request> requests_;
  // Written by the workers before their callback; read only for tasks that
  // answered.
  std::vector<Response> responses_;
  mutable absl::Mutex mu_;
  std::vector<absl::Status> statuses_ ABSL_GUARDED_BY(mu_);
  std::vector<bool> answered_ ABSL_GUARDED_BY(mu_);
  size_t pending_ ABSL_GUARDED_BY(mu_);
  bool cancelled_ ABSL_GUARDED_BY(mu_) = false;

  bool Ready() const ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    return pending_ == 0 || cancelled_;
  }
};

// The task spec of a cache's task name; InvalidArgument unless it names a
// job, replica and task.
absl::StatusOr<DeviceName> ParseTask(const std::string& task) {
  DFX_ASSIGN_OR_RETURN(DeviceName name, DeviceName::Parse(task));
  if (!name.has_job || !name.has_replica || !name.has_task || name.has_type ||
      name.has_id) {
    return absl::InvalidArgumentError(absl::StrCat(
        "task name '", task, "' is not of the form /job:J/replica:R/task:T"));
  }
  return name;
}

// The status for the tasks of a round that failed or did not answer by the
// deadline; OK when every task answered OK.
absl::Status RoundError(absl::string_view rpc,
                        const std::vector<std::string>& tasks,
                        const std::vector<bool>& answered,
                        const std::vector<absl::Status>& statuses,
                        absl::Duration waited, absl::StatusCode timeout_code) {
  std::vector<std::string> silent;
  std::vector<std::string> failed;
  absl::StatusCode code = absl::StatusCode::kOk;
  for (size_t i = 0; i < tasks.size(); ++i) {
    if (!answered[i]) {
      silent.push_back(tasks[i]);
    } else if (!statuses[i].ok()) {
      if (code == absl::StatusCode::kOk) code = statuses[i].code();
      failed.push_back(absl::StrCat("task ", tasks[i], ": ",
                                    statuses[i].message()));
    }
  }
  if (silent.empty() && failed.empty()) return absl::OkStatus();
  std::vector<std::string> parts;
  if (!silent.empty()) {
    code = timeout_code;
    parts.push_back(absl::StrCat(
        rpc, ": no answer within ",
        absl::FormatDuration(absl::Ceil(waited, absl::Milliseconds(1))),
        " from task(s) ", absl::StrJoin(silent, ", ")));
  }
  if (!failed.empty()) {
    parts.push_back(absl::StrCat(rpc, " failed on ",
                                 absl::StrJoin(failed, "; ")));
  }
  return absl::Status(code, absl::StrJoin(parts, "; "));
}

// Sends one call per task — `start(worker, request, response, done)` with
// the round's slots — and waits until every task answered or `deadline`.
// Then RoundError over the answers.
template <typename Request, typename Response, typename Start>
absl::Status CallEveryTask(const WorkerCacheInterface& cache,
                           absl::string_view rpc,
                           const std::vector<std::string>& tasks,
                           const CallControl& control,
                           absl::StatusCode timeout_code,
                           const std::shared_ptr<Round<Request, Response>>& round,
                           Start start) {
  using R = Round<Request, Response>;
  const absl::Time begin = absl::Now();
  for (size_t i = 0; i < tasks.size(); ++i) {
    WorkerInterface* worker = cache.GetWorker(tasks[i]);
    if (worker == nullptr) {
      R::Callback(round, i)(absl::InternalError(
          "the worker cache lists the task but has no worker for it"));
      continue;
    }
    start(worker, round->request(i), round->response_slot(i),
          R::Callback(round, i));
  }
  if (!round->Wait(control)) {
    return absl::CancelledError(
        absl::StrCat(rpc, ": the caller cancelled the call"));
  }
  std::vector<bool> answered(tasks.size());
  std::vector<absl::Status> statuses(tasks.size());
  for (size_t i = 0; i < tasks.size(); ++i) {
    answered[i] = round->answered(i);
    statuses[i] = round->status(i);
  }
  return RoundError(rpc, tasks, answered, statuses, control.deadline - begin,
                    timeout_code);
}

// The CallControl of one master call: the deadline of `opts` and a
// cancellation that StartCancel on `opts` raises. Unhooks itself from
// `opts` when it goes.
class ControlScope {
 public:
  explicit ControlScope(CallOptions* opts) : opts_(opts) {
    if (opts_ == nullptr) return;
    if (opts_->timeout() > absl::ZeroDuration()) {
      control_.deadline = absl::Now() + opts_->timeout();
    }
    control_.cancellation = cm_.get();
    // Shared: a StartCancel already under way may outlive this scope.
    opts_->SetCancelCallback([cm = cm_] { cm->StartCancel(); });
  }
  ~ControlScope() {
    if (opts_ != nullptr) opts_->ClearCancelCallback();
  }
  ControlScope(const ControlScope&) = delete;
  ControlScope& operator=(const ControlScope&) = delete;

  const CallControl& control() const { return control_; }
  // The control with its deadline moved to `deadline` when that is sooner.
  CallControl Within(absl::Time deadline) const {
    CallControl c = control_;
    c.deadline = std::min(c.deadline, deadline);
    return c;
  }

 private:
  CallOptions* const opts_;
  const std::shared_ptr<CancellationManager> cm_ =
      std::make_shared<CancellationManager>();
  CallControl control_;
};

// True when `device` (a full name) matches one of `filters`.
bool MatchesAny(const DeviceName& device,
                const std::vector<DeviceName>& filters) {
  for (const DeviceName& f : filters) {
    if (device.Matches(f)) return true;
  }
  return false;
}

}  // namespace

struct Master::Entry {
  explicit Entry(std::unique_ptr<MasterSession> s)
      : session(std::move(s)), handle(session->handle()) {}

  const std::unique_ptr<MasterSession> session;
  const std::string handle;
  // Serializes ExtendSession: the version check and the Extend it guards.
  absl::Mutex extend_mu;
  int64_t graph_version ABSL_GUARDED_BY(extend_mu) = 0;
};

// Counts a call inside the master for the destructor; refuses calls after
// Shutdown.
class Master::CallScope {
 public:
  explicit CallScope(Master* master) : master_(master) {
    absl::MutexLock lock(&master_->mu_);
    if (master_->shutdown_) {
      status_ = absl::UnavailableError("master is shutting down");
    } else {
      ++master_->active_calls_;
    }
  }
  ~CallScope() {
    if (!status_.ok()) return;
    absl::MutexLock lock(&master_->mu_);
    --master_->active_calls_;
  }
  CallScope(const CallScope&) = delete;
  CallScope& operator=(const CallScope&) = delete;

  const absl::Status& status() const { return status_; }

 private:
  Master* const master_;
  absl::Status status_;
};

Master::Master(MasterEnv env) : env_([&] {
  if (env.ops == nullptr) env.ops = OpRegistry::Global();
  if (env.kernels == nullptr) env.kernels = StandardKernelRegistry();
  return std::move(env);
}()), incarnation_(NewRequestId()) {
  DFX_CHECK(env_.worker_cache != nullptr);
  DFX_CHECK_OK(ParseTask(env_.local_task).status());
  if (env_.session_gc_idle > absl::ZeroDuration()) {
    gc_thread_ = std::make_unique<std::thread>([this] { GcLoop(); });
  }
  if (env_.heartbeat_interval > absl::ZeroDuration()) {
    heartbeat_thread_ =
        std::make_unique<std::thread>([this] { HeartbeatLoop(); });
  }
}

Master::~Master() {
  Shutdown();
  if (gc_thread_ != nullptr) gc_thread_->join();
  if (heartbeat_thread_ != nullptr) heartbeat_thread_->join();
  // Calls still inside return soon: their sessions are closed. The last of
  // them to drop an entry destroys its session, which waits for the
  // session's calls on the workers.
  absl::MutexLock lock(&mu_);
  mu_.Await(absl::Condition(
      +[](int64_t* calls) { return *calls == 0; }, &active_calls_));
}

absl::StatusOr<std::vector<std::string>> Master::FilteredTasks(
    const google::protobuf::RepeatedPtrField<std::string>& filter_specs,
    std::vector<DeviceName>* filters) const {
  filters->clear();
  for (const std::string& spec : filter_specs) {
    auto parsed = DeviceName::Parse(spec);
    if (!parsed.ok()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "device filter '", spec, "': ", parsed.status().message()));
    }
    filters->push_back(*std::move(parsed));
  }
  DFX_ASSIGN_OR_RETURN(const DeviceName local, ParseTask(env_.local_task));
  std::vector<std::string> tasks;
  bool has_local = false;
  for (const std::string& task : env_.worker_cache->ListTasks()) {
    DFX_ASSIGN_OR_RETURN(const DeviceName name, ParseTask(task));
    const bool is_local = name.IsSameTask(local);
    bool keep = filters->empty() || is_local;
    for (const DeviceName& f : *filters) {
      // A task is asked when a filter could match one of its devices.
      DeviceName task_part = f;
      task_part.has_type = false;
      task_part.has_id = false;
      if (name.Matches(task_part)) keep = true;
    }
    if (!keep) continue;
    if (is_local) {
      // This task's devices come first: the client device is among them.
      tasks.insert(tasks.begin(), task);
      has_local = true;
    } else {
      tasks.push_back(task);
    }
  }
  if (!has_local) {
    return absl::FailedPreconditionError(absl::StrCat(
        "the worker cache has no worker for this server's task ",
        env_.local_task));
  }
  return tasks;
}

absl::StatusOr<std::vector<DeviceAttributes>> Master::DiscoverDevices(
    const std::vector<std::string>& tasks,
    const std::vector<DeviceName>& filters, const CallControl& control,
    absl::StatusCode timeout_code) const {
  // A task that was down a moment ago (restarted, or probed by the
  // heartbeat or the status page while it was down) leaves gRPC's channel
  // to it in reconnect backoff, where calls fail at once with Unavailable
  // for up to the channel's longest backoff (1 s, rpc/grpc_util.cc).
  // TensorFlow's master waits for such workers (its discovery calls are
  // not fail-fast); ours asks again for a bounded window instead, so that
  // a task that is really down still fails the call within seconds.
  const absl::Time retry_until = absl::Now() + kDiscoveryRetryWindow;
  std::shared_ptr<Round<GetStatusRequest, GetStatusResponse>> round;
  for (;;) {
    round = std::make_shared<Round<GetStatusRequest, GetStatusResponse>>(
        tasks.size());
    const absl::Status s = CallEveryTask(
        *env_.worker_cache, "GetStatus", tasks, control, timeout_code, round,
        [](WorkerInterface* worker, GetStatusRequest* request,
           GetStatusResponse* response, StatusCallback done) {
          worker->GetStatusAsync(request, response, std::move(done));
        });
    if (s.ok()) break;
    const absl::Time next = absl::Now() + kDiscoveryRetryInterval;
    const bool cancelled = control.cancellation != nullptr &&
                           control.cancellation->IsCancelled();
    if (!absl::IsUnavailable(s) || cancelled || next > retry_until ||
        next >= control.deadline) {
      return s;
    }
    absl::SleepFor(kDiscoveryRetryInterval);
  }

  const DeviceName local = *ParseTask(env_.local_task);
  std::vector<DeviceAttributes> devices;
  for (size_t i = 0; i < tasks.size(); ++i) {
    DFX_ASSIGN_OR_RETURN(const DeviceName task, ParseTask(tasks[i]));
    const bool is_local = task.IsSameTask(local);
    for (DeviceAttributes d : round->response(i).device_attributes()) {
      auto name = DeviceName::Parse(d.name());
      if (!name.ok() || !name->IsFullySpecified()) {
        return absl::InvalidArgumentError(absl::StrCat(
            "task ", tasks[i], " answered GetStatus with device '", d.name(),
            "', which is not a full device name"));
      }
      if (!name->IsSameTask(task)) {
        // A worker that does not know its place in the cluster (say, one
        // started as /job:localhost) is named by where the cache has it.
        name->job = task.job;
        name->replica = task.replica;
        name->task = task.task;
        d.set_name(FullDeviceName(task.job, task.replica, task.task,
                                  name->type, name->id));
      }
      if (!is_local && !filters.empty() && !MatchesAny(*name, filters)) {
        continue;
      }
      devices.push_back(std::move(d));
    }
  }
  return devices;
}

absl::Status Master::CreateSession(CreateSessionRequest request,
                                   CreateSessionResponse* response,
                                   CallOptions* opts) {
  CallScope call(this);
  DFX_RETURN_IF_ERROR(call.status());
  ControlScope scope(opts);
  const ConfigProto& config = request.config();
  if (config.operation_timeout_in_ms() < 0) {
    return absl::InvalidArgumentError(
        "operation_timeout_in_ms must not be negative");
  }
  std::vector<DeviceName> filters;
  DFX_ASSIGN_OR_RETURN(std::vector<std::string> tasks,
                       FilteredTasks(config.device_filters(), &filters));
  // Tasks that do not answer within the discovery timeout are Unavailable;
  // a shorter operation timeout or caller's deadline is DeadlineExceeded.
  const absl::Time now = absl::Now();
  absl::Time discovery_deadline = now + env_.discovery_timeout;
  absl::StatusCode timeout_code = absl::StatusCode::kUnavailable;
  absl::Time deadline = scope.control().deadline;
  if (config.operation_timeout_in_ms() > 0) {
    deadline = std::min(
        deadline, now + absl::Milliseconds(config.operation_timeout_in_ms()));
  }
  if (deadline < discovery_deadline) {
    discovery_deadline = deadline;
    timeout_code = absl::StatusCode::kDeadlineExceeded;
  }
  DFX_ASSIGN_OR_RETURN(
      std::vector<DeviceAttributes> devices,
      DiscoverDevices(tasks, filters, scope.Within(discovery_deadline),
                      timeout_code));

  MasterSession::Params params;
  params.options.config = config;
  if (!env_.optimize_graphs) {
    params.options.config.mutable_graph_options()
        ->mutable_rewrite_options()
        ->set_disable_meta_optimizer(true);
  }
  params.devices = std::move(devices);
  params.worker_cache = env_.worker_cache;
  params.client_device =
      absl::StrCat(ParseTask(env_.local_task)->TaskName(), "/device:CPU:0");
  params.ops = env_.ops;
  params.kernels = env_.kernels;
  params.master_incarnation = incarnation_;
  params.timer = &timer_;
  DFX_ASSIGN_OR_RETURN(std::unique_ptr<MasterSession> session,
                       MasterSession::Create(std::move(params)));
  if (absl::Status s =
          session->Extend(std::move(*request.mutable_graph_def()));
      !s.ok()) {
    session->Close().IgnoreError();
    return s;
  }
  auto entry = std::make_shared<Entry>(std::move(session));
  absl::Status refused;
  {
    absl::MutexLock lock(&mu_);
    if (shutdown_) {
      refused = absl::UnavailableError("master is shutting down");
    } else if (sessions_.contains(entry->handle)) {
      refused = absl::InternalError(
          absl::StrCat("session handle ", entry->handle, " is taken"));
    } else {
      Slot& slot = sessions_[entry->handle];
      slot.entry = entry;
      slot.last_active = absl::Now();
    }
  }
  if (!refused.ok()) {
    entry->session->Close().IgnoreError();
    return refused;
  }
  response->set_session_handle(entry->handle);
  response->set_graph_version(0);
  return absl::OkStatus();
}

absl::StatusOr<std::shared_ptr<Master::Entry>> Master::Find(
    const std::string& handle, bool list_devices) {
  const absl::StatusCode code = list_devices
                                    ? absl::StatusCode::kInvalidArgument
                                    : absl::StatusCode::kAborted;
  absl::MutexLock lock(&mu_);
  if (shutdown_) return absl::UnavailableError("master is shutting down");
  auto it = sessions_.find(handle);
  if (it == sessions_.end()) {
    auto gc = gc_closed_.find(handle);
    if (gc != gc_closed_.end()) {
      return absl::Status(
          code, absl::StrFormat(
                    "Session %s was closed after being idle for %g s", handle,
                    absl::ToDoubleSeconds(gc->second)));
    }
    return absl::Status(
        code, absl::StrCat("Session ", handle,
                           " is not found. Possibly, this master has "
                           "restarted or the session was closed."));
  }
  ++it->second.running;
  it->second.last_active = absl::Now();
  return it->second.entry;
}

void Master::ReleaseAsync(std::shared_ptr<Entry> entry,
                          const MasterSession::Offload& offload) {
  {
    absl::MutexLock lock(&mu_);
    auto it = sessions_.find(entry->handle);
    if (it != sessions_.end() && it->second.entry == entry) {
      --it->second.running;
      it->second.last_active = absl::Now();
      // The table holds the session too: this is not the last hold.
      entry.reset();
      return;
    }
  }
  // Closed meanwhile: this may be the last hold, and the session's
  // destructor waits for its calls on the workers, which the thread that
  // ended the step (gRPC's, or one inside the session's own callbacks)
  // must not do.
  offload([entry = std::move(entry)] {});
}

void Master::Release(const std::shared_ptr<Entry>& entry) {
  absl::MutexLock lock(&mu_);
  auto it = sessions_.find(entry->handle);
  // Closed meanwhile: nothing to account.
  if (it == sessions_.end() || it->second.entry != entry) return;
  --it->second.running;
  it->second.last_active = absl::Now();
}

absl::Status Master::ExtendSession(ExtendSessionRequest request,
                                   ExtendSessionResponse* response,
                                   CallOptions* opts) {
  CallScope call(this);
  DFX_RETURN_IF_ERROR(call.status());
  ControlScope scope(opts);
  DFX_ASSIGN_OR_RETURN(std::shared_ptr<Entry> entry,
                       Find(request.session_handle(), false));
  absl::Cleanup release = [this, &entry] { Release(entry); };
  absl::MutexLock lock(&entry->extend_mu);
  if (request.current_graph_version() != entry->graph_version) {
    return absl::AbortedError(absl::StrCat(
        "Session ", entry->handle, ": current graph version is ",
        entry->graph_version, " but the caller expected ",
        request.current_graph_version()));
  }
  if (scope.control().cancellation != nullptr &&
      scope.control().cancellation->IsCancelled()) {
    return absl::CancelledError("ExtendSession: the caller cancelled it");
  }
  if (absl::Now() >= scope.control().deadline) {
    return absl::DeadlineExceededError(
        "ExtendSession: the caller's deadline passed before the graph was "
        "extended");
  }
  DFX_RETURN_IF_ERROR(
      entry->session->Extend(std::move(*request.mutable_graph_def())));
  ++entry->graph_version;
  response->set_new_graph_version(entry->graph_version);
  return absl::OkStatus();
}

// One RunStepAsync call from its start to `done`.
struct Master::RunStepCall {
  RunStepCall(Master* master, const RunStepRequest& request,
              RunStepResponse* response, CallOptions* opts,
              std::function<void(absl::Status)> done)
      : request(request), response(response), done(std::move(done)) {
    call.emplace(master);
    scope.emplace(opts);
  }

  // Both go before `done` is called: the caller may free `opts` then, and
  // the master may go.
  std::optional<CallScope> call;
  std::optional<ControlScope> scope;
  const RunStepRequest& request;
  RunStepResponse* const response;
  std::function<void(absl::Status)> done;
  MasterSession::Offload offload;
  std::shared_ptr<Entry> entry;
  StepSummary summary;
  std::vector<std::pair<std::string, Tensor>> feeds;
  std::vector<std::string> fetches;
  std::vector<std::string> targets;
  bool want_metadata = false;
  RunMetadata metadata;
};

absl::Status Master::RunStep(const RunStepRequest& request,
                             RunStepResponse* response, CallOptions* opts) {
  CallerRunsOffload waiter;
  absl::Status status;
  RunStepAsync(request, response, opts, waiter.offload(),
               [&](absl::Status s) {
                 status = std::move(s);
                 waiter.Finish();
               });
  waiter.Wait();
  return status;
}

void Master::RunStepAsync(const RunStepRequest& request,
                          RunStepResponse* response, CallOptions* opts,
                          MasterSession::Offload offload,
                          std::function<void(absl::Status)> done) {
  auto call = std::make_shared<RunStepCall>(this, request, response, opts,
                                            std::move(done));
  call->offload = std::move(offload);
  call->summary.session = request.session_handle();
  call->summary.start = absl::Now();
  // The step may end, and its summary move, before this returns.
  const std::string session = request.session_handle();
  LogStepScope log_scope(session, &call->summary.step_id);
  if (absl::Status s = StartRunStep(call); !s.ok()) {
    FinishRunStep(*call, std::move(s), {});
  }
}

absl::Status Master::StartRunStep(const std::shared_ptr<RunStepCall>& call) {
  DFX_RETURN_IF_ERROR(call->call->status());
  const RunStepRequest& request = call->request;
  DFX_ASSIGN_OR_RETURN(call->entry, Find(request.session_handle(), false));
  if (!request.partial_run_handle().empty()) {
    return absl::UnimplementedError("partial runs are not supported");
  }
  DFX_RETURN_IF_ERROR(
      recent_run_steps_.TrackUnique(request.request_id(), "RunStep"));
  call->feeds.reserve(request.feed_size());
  for (const NamedTensorProto& feed : request.feed()) {
    auto tensor = Tensor::FromProto(feed.tensor());
    if (!tensor.ok()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "feed '", feed.name(), "': ", tensor.status().message()));
    }
    call->feeds.emplace_back(feed.name(), *std::move(tensor));
  }
  call->fetches.assign(request.fetch().begin(), request.fetch().end());
  call->targets.assign(request.target().begin(), request.target().end());
  const RunOptions& options = request.options();
  call->want_metadata = options.trace_level() != RunOptions::NO_TRACE ||
                        options.output_partition_graphs();
  CallControl control = call->scope->control();
  control.step_id = &call->summary.step_id;
  call->entry->session->RunAsync(
      options, call->feeds, call->fetches, call->targets,
      call->want_metadata ? &call->metadata : nullptr, control,
      call->offload,
      [this, call](absl::Status s, std::vector<Tensor> outputs) {
        FinishRunStep(*call, std::move(s), std::move(outputs));
      });
  return absl::OkStatus();
}

void Master::FinishRunStep(RunStepCall& call, absl::Status status,
                           std::vector<Tensor> outputs) {
  static const StepMetrics& metrics = *new StepMetrics("master");
  RunStepResponse* response = call.response;
  if (status.ok()) {
    // A protobuf message holds less than 2 GiB: say so before copying.
    int64_t total_bytes = 0;
    for (size_t j = 0; j < call.fetches.size(); ++j) {
      const int64_t bytes = static_cast<int64_t>(outputs[j].TotalBytes());
      total_bytes += bytes;
      if (total_bytes > kMaxRunStepResponseBytes) {
        status = absl::ResourceExhaustedError(absl::StrCat(
            "the fetches of the step add up to more than ",
            kMaxRunStepResponseBytes, " bytes, the most one RunStep response "
            "holds (fetch '", call.fetches[j], "' is ", bytes, " bytes): "
            "fetch less, or reduce it on the cluster"));
        break;
      }
    }
  }
  if (status.ok()) {
    response->clear_tensor();
    for (size_t j = 0; j < call.fetches.size(); ++j) {
      NamedTensorProto* out = response->add_tensor();
      out->set_name(call.fetches[j]);
      outputs[j].AsProtoTensorContent(out->mutable_tensor());
    }
    if (call.want_metadata) {
      *response->mutable_metadata() = std::move(call.metadata);
    }
  }
  if (call.entry != nullptr) ReleaseAsync(std::move(call.entry), call.offload);
  StepSummary step = std::move(call.summary);
  step.duration = absl::Now() - step.start;
  metrics.Record(status, step.duration);
  if (status.ok() && response->has_metadata()) {
    step.slowest_nodes = SlowestNodes(response->metadata().step_stats());
  }
  step.status = status;
  {
    absl::MutexLock lock(&steps_mu_);
    recent_steps_.push_back(std::move(step));
    if (recent_steps_.size() > kRecentSteps) recent_steps_.pop_front();
  }
  std::function<void(absl::Status)> done = std::move(call.done);
  call.scope.reset();
  call.call.reset();
  done(std::move(status));
}

std::vector<StepSummary> Master::RecentSteps() const {
  absl::MutexLock lock(&steps_mu_);
  return std::vector<StepSummary>(recent_steps_.rbegin(),
                                  recent_steps_.rend());
}

absl::Status Master::CloseSession(const CloseSessionRequest& request,
                                  CloseSessionResponse* response,
                                  CallOptions* /*opts*/) {
  // Close does not wait for the workers: nothing for a deadline to bound.
  CallScope call(this);
  DFX_RETURN_IF_ERROR(call.status());
  std::shared_ptr<Entry> entry;
  {
    // Find's error for an unknown handle; the slot it marks busy goes.
    DFX_ASSIGN_OR_RETURN(entry, Find(request.session_handle(), false));
    absl::MutexLock lock(&mu_);
    sessions_.erase(entry->handle);
  }
  return entry->session->Close();
}

absl::Status Master::ListDevices(const ListDevicesRequest& request,
                                 ListDevicesResponse* response,
                                 CallOptions* opts) {
  CallScope call(this);
  DFX_RETURN_IF_ERROR(call.status());
  ControlScope scope(opts);
  std::vector<DeviceAttributes> devices;
  if (!request.session_handle().empty()) {
    DFX_ASSIGN_OR_RETURN(std::shared_ptr<Entry> entry,
                         Find(request.session_handle(), true));
    absl::Cleanup release = [this, &entry] { Release(entry); };
    DFX_ASSIGN_OR_RETURN(devices, entry->session->ListDevices());
  } else {
    std::vector<DeviceName> filters;
    DFX_ASSIGN_OR_RETURN(
        std::vector<std::string> tasks,
        FilteredTasks(google::protobuf::RepeatedPtrField<std::string>(),
                      &filters));
    const absl::Time discovery = absl::Now() + env_.discovery_timeout;
    DFX_ASSIGN_OR_RETURN(
        devices,
        DiscoverDevices(tasks, filters, scope.Within(discovery),
                        scope.control().deadline < discovery
                            ? absl::StatusCode::kDeadlineExceeded
                            : absl::StatusCode::kUnavailable));
  }
  const DeviceName local = *ParseTask(env_.local_task);
  for (DeviceAttributes& d : devices) {
    auto name = DeviceName::Parse(d.name());
    const bool is_local = name.ok() && name->IsSameTask(local);
    *(is_local ? response->add_local_device()
               : response->add_remote_device()) = std::move(d);
  }
  return absl::OkStatus();
}

std::vector<std::shared_ptr<Master::Entry>> Master::TakeAllLocked() {
  std::vector<std::shared_ptr<Entry>> entries;
  entries.reserve(sessions_.size());
  for (auto& [handle, slot] : sessions_) entries.push_back(slot.entry);
  sessions_.clear();
  return entries;
}

absl::Status Master::Reset(const ResetRequest& request,
                           ResetResponse* response, CallOptions* opts) {
  CallScope call(this);
  DFX_RETURN_IF_ERROR(call.status());
  ControlScope scope(opts);
  std::vector<DeviceName> filters;
  DFX_ASSIGN_OR_RETURN(std::vector<std::string> tasks,
                       FilteredTasks(request.device_filters(), &filters));
  std::vector<std::shared_ptr<Entry>> entries;
  {
    absl::MutexLock lock(&mu_);
    entries = TakeAllLocked();
  }
  for (const std::shared_ptr<Entry>& entry : entries) {
    entry->session->Close().IgnoreError();
  }
  entries.clear();

  auto round =
      std::make_shared<Round<CleanupAllRequest, CleanupAllResponse>>(
          tasks.size());
  const absl::Time discovery = absl::Now() + env_.discovery_timeout;
  return CallEveryTask(
      *env_.worker_cache, "CleanupAll", tasks, scope.Within(discovery),
      scope.control().deadline < discovery
          ? absl::StatusCode::kDeadlineExceeded
          : absl::StatusCode::kUnavailable,
      round,
      [&request](WorkerInterface* worker, CleanupAllRequest* cleanup,
                 CleanupAllResponse* answer, StatusCallback done) {
        *cleanup->mutable_container() = request.container();
        worker->CleanupAllAsync(cleanup, answer, std::move(done));
      });
}

void Master::Shutdown() {
  std::vector<std::shared_ptr<Entry>> entries;
  {
    absl::MutexLock lock(&mu_);
    if (shutdown_) return;
    shutdown_ = true;
    entries = TakeAllLocked();
  }
  stop_gc_.Notify();
  heartbeat_cancel_.StartCancel();
  for (const std::shared_ptr<Entry>& entry : entries) {
    entry->session->Close().IgnoreError();
  }
}

size_t Master::NumSessions() const {
  absl::MutexLock lock(&mu_);
  return sessions_.size();
}

std::vector<MasterSessionSummary> Master::ListSessions() const {
  std::vector<MasterSessionSummary> out;
  absl::MutexLock lock(&mu_);
  out.reserve(sessions_.size());
  for (const auto& [handle, slot] : sessions_) {
    out.push_back({handle, slot.running, slot.last_active});
  }
  std::sort(out.begin(), out.end(),
            [](const MasterSessionSummary& a, const MasterSessionSummary& b) {
              return a.handle < b.handle;
            });
  return out;
}

void Master::GcLoop() {
  const absl::Duration idle = env_.session_gc_idle;
  const absl::Duration period =
      std::clamp(idle / 4, absl::Milliseconds(10), absl::Seconds(1));
  while (!stop_gc_.WaitForNotificationWithTimeout(period)) {
    std::vector<std::pair<std::shared_ptr<Entry>, absl::Duration>> closing;
    {
      absl::MutexLock lock(&mu_);
      const absl::Time now = absl::Now();
      for (auto it = sessions_.begin(); it != sessions_.end();) {
        const Slot& slot = it->second;
        const absl::Duration idle_for = now - slot.last_active;
        if (slot.running > 0 || idle_for < idle) {
          ++it;
          continue;
        }
        closing.emplace_back(slot.entry, idle_for);
        if (gc_closed_.emplace(it->first, idle_for).second) {
          gc_closed_order_.push_back(it->first);
        }
        while (gc_closed_order_.size() > kMaxGcClosed) {
          gc_closed_.erase(gc_closed_order_.front());
          gc_closed_order_.pop_front();
        }
        sessions_.erase(it++);
      }
    }
    for (const auto& [entry, idle_for] : closing) {
      spdlog::info("closing session {}: idle for {}", entry->handle,
                   absl::FormatDuration(idle_for));
      entry->session->Close().IgnoreError();
    }
  }
}

void Master::HeartbeatLoop() {
  while (!stop_gc_.WaitForNotificationWithTimeout(env_.heartbeat_interval)) {
    Heartbeat();
  }
}

void Master::Heartbeat() {
  std::vector<std::shared_ptr<Entry>> entries;
  {
    absl::MutexLock lock(&mu_);
    if (shutdown_) return;
    for (const auto& [handle, slot] : sessions_) entries.push_back(slot.entry);
  }
  if (entries.empty()) return;
  // Each task once, however many sessions use it.
  std::set<std::string> task_set;
  for (const auto& entry : entries) {
    for (std::string& task : entry->session->Tasks()) {
      task_set.insert(std::move(task));
    }
  }
  const std::vector<std::string> tasks(task_set.begin(), task_set.end());
  auto round =
      std::make_shared<Round<GetStatusRequest, GetStatusResponse>>(
          tasks.size());
  CallControl control;
  control.deadline =
      absl::Now() + std::min(env_.heartbeat_interval, absl::Seconds(5));
  control.cancellation = &heartbeat_cancel_;
  // A task that does not answer is not a restart: the step that needs it
  // finds out. Only the answers count.
  CallEveryTask(*env_.worker_cache, "GetStatus", tasks, control,
                absl::StatusCode::kUnavailable, round,
                [](WorkerInterface* worker, GetStatusRequest* request,
                   GetStatusResponse* response, StatusCallback done) {
                  worker->GetStatusAsync(request, response, std::move(done));
                })
      .IgnoreError();
  absl::flat_hash_map<std::string, std::vector<DeviceAttributes>> answers;
  for (size_t i = 0; i < tasks.size(); ++i) {
    if (!round->answered(i) || !round->status(i).ok()) continue;
    const auto& devices = round->response(i).device_attributes();
    answers[tasks[i]].assign(devices.begin(), devices.end());
  }
  for (const auto& entry : entries) entry->session->ApplyTaskStatus(answers);
}

}  // namespace dfx
