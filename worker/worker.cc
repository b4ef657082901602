#include "worker/worker.h"

#include <algorithm>
#include <atomic>
#include <map>
#include <set>
#include <thread>
#include <utility>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/time/clock.h"
#include "base/log.h"
#include "base/logging.h"
#include "base/metrics.h"
#include "base/status_macros.h"
#include "graph/debug_watches.h"
#include "graph/device_name.h"
#include "kernels/debug/debug_dump.h"
#include "kernels/kernels.h"
#include "runtime/cancellation.h"
#include "runtime/rendezvous.h"
#include "runtime/step_stats_collector.h"
#include "runtime/timer.h"

namespace dfx {

namespace {

// "/job:w/replica:0/task:1", the task of the worker's devices (empty when
// it has none or their names do not parse).
std::string TaskOfDevices(const DeviceMgr& devices) {
  if (devices.ListDevices().empty()) return std::string();
  absl::StatusOr<DeviceName> name =
      DeviceName::Parse(devices.ListDevices().front()->name());
  return name.ok() ? name->TaskName() : std::string();
}

WorkerEnv WithDefaults(WorkerEnv env) {
  DFX_CHECK(env.device_mgr != nullptr);
  DFX_CHECK(env.rendezvous_mgr != nullptr);
  DFX_CHECK(env.compute_pool != nullptr);
  if (env.ops == nullptr) env.ops = OpRegistry::Global();
  if (env.kernels == nullptr) env.kernels = StandardKernelRegistry();
  return env;
}

// What a call that waits shares with its cancel callback and its timer.
// The cancel callbacks hold it, and it holds the rendezvous a RecvTensor
// waits on: a cancellation runs the rendezvous's own callback, which must
// not outlive it.
struct WaitState {
  std::shared_ptr<CancellationManager> cm =
      std::make_shared<CancellationManager>();
  std::shared_ptr<Rendezvous> rendezvous;
  std::atomic<bool> timed_out{false};
  bool has_timer = false;
  uint64_t timer_id = 0;
};

}  // namespace

Worker::Worker(WorkerEnv env)
    : env_(WithDefaults(std::move(env))),
      timer_(std::make_unique<Timer>()),
      legacy_session_(std::make_shared<WorkerSession>("", GraphMgrEnv())) {
  if (env_.session_gc_idle > absl::ZeroDuration()) {
    timer_->Schedule(std::clamp(env_.session_gc_idle / 4,
                                absl::Milliseconds(10), absl::Minutes(1)),
                     [this] { CollectIdleSessions(); });
  }
}

Worker::~Worker() {
  // Its thread runs callbacks on this worker, which reschedule through
  // timer_: it stops first, the pointer still good (resetting it nulled
  // timer_ while a running collection was about to use it).
  timer_->Stop();
}

void Worker::CollectIdleSessions() {
  std::vector<std::shared_ptr<WorkerSession>> drop;
  {
    absl::MutexLock lock(&mu_);
    const absl::Time now = absl::Now();
    for (auto it = sessions_.begin(); it != sessions_.end();) {
      const SessionSlot& slot = it->second;
      if (slot.running_steps > 0 ||
          now - slot.last_active < env_.session_gc_idle) {
        ++it;
        continue;
      }
      spdlog::info("worker session {} of master {}: no call for {}; deleted "
                   "(its master is gone?)",
                   it->first, slot.master_task,
                   absl::FormatDuration(now - slot.last_active));
      drop.push_back(slot.session);
      sessions_.erase(it++);
    }
  }
  DropSessions(std::move(drop));
  // Steps whose CleanupGraph never came (their master died mid-step).
  if (const size_t n = env_.rendezvous_mgr->CleanupIdle(env_.session_gc_idle);
      n > 0) {
    spdlog::info("cleaned up {} step(s) nothing used for {}", n,
                 absl::FormatDuration(env_.session_gc_idle));
  }
  timer_->Schedule(std::clamp(env_.session_gc_idle / 4,
                              absl::Milliseconds(10), absl::Minutes(1)),
                   [this] { CollectIdleSessions(); });
}

void Worker::DropSessions(std::vector<std::shared_ptr<WorkerSession>> drop) {
  for (const auto& session : drop) session->graph_mgr()->DeregisterAll();
}

void Worker::StepStarted(const std::string& handle) {
  absl::MutexLock lock(&mu_);
  auto it = sessions_.find(handle);
  if (it != sessions_.end()) ++it->second.running_steps;
}

void Worker::StepEnded(const std::string& handle) {
  absl::MutexLock lock(&mu_);
  auto it = sessions_.find(handle);
  if (it == sessions_.end()) return;
  --it->second.running_steps;
  it->second.last_active = absl::Now();
}

GraphMgr::Env Worker::GraphMgrEnv() const {
  GraphMgr::Env env;
  env.device_mgr = env_.device_mgr;
  env.rendezvous_mgr = env_.rendezvous_mgr;
  ThreadPool* pool = env_.compute_pool;
  env.runner = [pool](std::function<void()> fn) {
    pool->Schedule(std::move(fn));
  };
  env.ops = env_.ops;
  env.kernels = env_.kernels;
  return env;
}

absl::StatusOr<std::shared_ptr<WorkerSession>> Worker::FindSession(
    const std::string& handle, bool create_worker_session_called) {
  if (handle.empty()) return legacy_session_;
  {
    absl::MutexLock lock(&mu_);
    auto it = sessions_.find(handle);
    if (it != sessions_.end()) {
      it->second.last_active = absl::Now();
      return it->second.session;
    }
  }
  if (!create_worker_session_called) return legacy_session_;
  return absl::AbortedError(absl::StrCat(
      "Session ", handle,
      " is not found. Possibly, this worker just restarted."));
}

void Worker::GetStatusAsync(const GetStatusRequest* request,
                            GetStatusResponse* response, StatusCallback done) {
  response->clear_device_attributes();
  for (const Device* device : env_.device_mgr->ListDevices()) {
    *response->add_device_attributes() = device->attributes();
  }
  done(absl::OkStatus());
}

void Worker::CreateWorkerSessionAsync(
    const CreateWorkerSessionRequest* request,
    CreateWorkerSessionResponse* response, StatusCallback done) {
  const std::string& handle = request->session_handle();
  if (handle.empty()) {
    done(absl::InvalidArgumentError(
        "CreateWorkerSession needs a non-empty session_handle"));
    return;
  }
  SessionSlot slot;
  slot.session = std::make_shared<WorkerSession>(handle, GraphMgrEnv());
  slot.master_task = request->master_task();
  slot.master_incarnation = request->master_incarnation();
  slot.last_active = absl::Now();
  std::vector<std::shared_ptr<WorkerSession>> orphans;
  {
    absl::MutexLock lock(&mu_);
    if (sessions_.contains(handle)) {
      done(absl::AlreadyExistsError(
          absl::StrCat("worker session ", handle, " already exists")));
      return;
    }
    if (!slot.master_task.empty() && slot.master_incarnation != 0) {
      int64_t& known = master_incarnations_[slot.master_task];
      if (known != slot.master_incarnation) {
        // A new master process on that task: the old one's sessions are
        // orphans.
        for (auto it = sessions_.begin(); it != sessions_.end();) {
          if (it->second.master_task == slot.master_task &&
              it->second.master_incarnation != slot.master_incarnation) {
            spdlog::info("worker session {}: its master {} restarted; "
                         "deleted", it->first, slot.master_task);
            orphans.push_back(it->second.session);
            sessions_.erase(it++);
          } else {
            ++it;
          }
        }
        known = slot.master_incarnation;
      }
    }
    sessions_.emplace(handle, std::move(slot));
  }
  DropSessions(std::move(orphans));
  done(absl::OkStatus());
}

void Worker::DeleteWorkerSessionAsync(
    const DeleteWorkerSessionRequest* request,
    DeleteWorkerSessionResponse* response, StatusCallback done) {
  std::shared_ptr<WorkerSession> session;
  {
    absl::MutexLock lock(&mu_);
    auto it = sessions_.find(request->session_handle());
    if (it != sessions_.end()) {
      session = std::move(it->second.session);
      sessions_.erase(it);
    }
  }
  // Running steps hold their graphs; the rest go now.
  if (session != nullptr) session->graph_mgr()->DeregisterAll();
  done(absl::OkStatus());
}

void Worker::RegisterGraphAsync(const RegisterGraphRequest* request,
                                RegisterGraphResponse* response,
                                StatusCallback done) {
  RegisterGraph(request, nullptr, response, std::move(done));
}

void Worker::TakeAndRegisterGraphAsync(RegisterGraphRequest* request,
                                       RegisterGraphResponse* response,
                                       StatusCallback done) {
  RegisterGraph(request, request->mutable_graph_def(), response,
                std::move(done));
}

namespace {

// tfdbg's graph files: each device's nodes of `def`, written to every
// file:// URL the watches name (TensorFlow's GraphMgr publishes each
// device's partition so), for DebugDumpDir.
absl::Status PublishDebugGraphs(const DebugOptions& options,
                                const GraphDef& def) {
  std::set<std::string> roots;
  for (const DebugTensorWatch& w : options.debug_tensor_watch_opts()) {
    for (const std::string& url : w.debug_urls()) {
      if (absl::StartsWith(url, "file://")) roots.insert(url.substr(7));
    }
  }
  if (roots.empty()) return absl::OkStatus();
  std::map<std::string, GraphDef> by_device;
  for (const NodeDef& node : def.node()) {
    GraphDef& g = by_device[node.device()];
    if (g.node_size() == 0) {
      *g.mutable_versions() = def.versions();
      *g.mutable_library() = def.library();
    }
    *g.add_node() = node;
  }
  const auto now_us = static_cast<uint64_t>(absl::ToUnixMicros(absl::Now()));
  for (const std::string& root : roots) {
    for (const auto& [device, graph] : by_device) {
      DFX_RETURN_IF_ERROR(debug::DumpGraphToDir(device, graph, now_us, root));
    }
  }
  return absl::OkStatus();
}

}  // namespace

void Worker::RegisterGraph(const RegisterGraphRequest* request,
                           GraphDef* movable, RegisterGraphResponse* response,
                           StatusCallback done) {
  absl::StatusOr<std::shared_ptr<WorkerSession>> session = FindSession(
      request->session_handle(), request->create_worker_session_called());
  if (!session.ok()) {
    done(session.status());
    return;
  }
  GraphMgr* graphs = (*session)->graph_mgr();
  // A run's RunOptions.debug_options: tfdbg's watch ops go into the
  // partition before it is imported, as TensorFlow's GraphMgr adds them.
  GraphDef watched;
  if (request->debug_options().debug_tensor_watch_opts_size() > 0) {
    if (movable != nullptr) {
      watched.Swap(movable);
    } else {
      watched = request->graph_def();
    }
    if (absl::Status s = InsertDebugWatches(request->debug_options(),
                                            *env_.ops, &watched);
        !s.ok()) {
      done(std::move(s));
      return;
    }
    if (absl::Status s = PublishDebugGraphs(request->debug_options(), watched);
        !s.ok()) {
      done(std::move(s));
      return;
    }
    movable = &watched;
  }
  absl::StatusOr<std::string> handle =
      movable != nullptr
          ? graphs->Register(std::move(*movable), request->graph_options())
          : graphs->Register(request->graph_def(), request->graph_options());
  if (!handle.ok()) {
    done(handle.status());
    return;
  }
  response->set_graph_handle(*std::move(handle));
  response->set_cleanup_in_run_graph(true);
  done(absl::OkStatus());
}

void Worker::DeregisterGraphAsync(const DeregisterGraphRequest* request,
                                  DeregisterGraphResponse* response,
                                  StatusCallback done) {
  absl::StatusOr<std::shared_ptr<WorkerSession>> session = FindSession(
      request->session_handle(), request->create_worker_session_called());
  if (!session.ok()) {
    done(session.status());
    return;
  }
  done((*session)->graph_mgr()->Deregister(request->graph_handle()));
}

void Worker::RunGraphAsync(CallOptions* opts, RunGraphCall* call,
                           StatusCallback done) {
  static const StepMetrics& metrics = *new StepMetrics("worker");
  done = [start = absl::Now(), done = std::move(done)](const absl::Status& s) {
    metrics.Record(s, absl::Now() - start);
    done(s);
  };
  // Lines logged while the step starts name it.
  const int64_t log_step_id = call->request.step_id();
  LogStepScope log_scope(call->request.session_handle(), &log_step_id);
  const RunGraphRequest& request = call->request;
  // Earlier steps' CleanupGraph, riding with this call (whatever becomes
  // of it: the master sends them again should the call fail). A dfx master
  // sends at most StepCleanups::kMaxHeldPerWorker (256).
  if (request.cleanup_step_id_size() > kMaxCleanupsPerRunGraph) {
    done(absl::InvalidArgumentError(absl::StrCat(
        "RunGraph of step ", request.step_id(), " names ",
        request.cleanup_step_id_size(), " finished steps to clean up; at most ",
        kMaxCleanupsPerRunGraph)));
    return;
  }
  for (int64_t done_step : request.cleanup_step_id()) {
    if (done_step != request.step_id()) {
      env_.rendezvous_mgr->Cleanup(done_step);
      if (env_.on_step_cleanup) env_.on_step_cleanup(done_step);
    }
  }
  absl::StatusOr<std::shared_ptr<WorkerSession>> session = FindSession(
      request.session_handle(), request.create_worker_session_called());
  if (!session.ok()) {
    done(session.status());
    return;
  }
  if (absl::Status s =
          recent_run_graphs_.TrackUnique(request.request_id(), "RunGraph");
      !s.ok()) {
    done(s);
    return;
  }
  call->recv.clear();
  call->step_stats.Clear();

  auto state = std::make_shared<WaitState>();
  std::shared_ptr<StepStatsCollector> stats;
  if (request.exec_opts().record_timeline() ||
      request.exec_opts().record_costs()) {
    stats = std::make_shared<StepStatsCollector>();
  }
  const int64_t step_id = request.step_id();
  const absl::Duration timeout =
      opts != nullptr ? opts->timeout() : absl::ZeroDuration();
  if (opts != nullptr) {
    // Runs at once when the call was cancelled already.
    opts->SetCancelCallback([cm = state->cm] { cm->StartCancel(); });
  }
  if (timeout > absl::ZeroDuration()) {
    ThreadPool* pool = env_.compute_pool;
    state->has_timer = true;
    state->timer_id = timer_->Schedule(timeout, [state, pool] {
      // Cancelling may run the call's completion; not on the timer thread.
      pool->Schedule([state] {
        state->timed_out.store(true, std::memory_order_release);
        state->cm->StartCancel();
      });
    });
  }
  StepStatsCollector* stats_ptr = stats.get();
  if (stats != nullptr) {
    // RecvTensor fetches of this step record their transfers here.
    TracedSteps::Register(step_id, TaskOfDevices(*env_.device_mgr), stats);
  }
  Timer* timer = timer_.get();
  // A session with a step running is not idle (CollectIdleSessions).
  StepStarted(request.session_handle());
  (*session)->graph_mgr()->ExecuteAsync(
      request.graph_handle(), step_id, call, state->cm.get(), stats_ptr,
      [this, state, stats, session = *session, opts, call,
       timer, timeout, step_id,
       done = std::move(done)](const absl::Status& s) {
        StepEnded(call->request.session_handle());
        if (opts != nullptr) opts->ClearCancelCallback();
        if (state->has_timer) timer->Cancel(state->timer_id);
        absl::Status status = s;
        if (absl::IsCancelled(status) &&
            state->timed_out.load(std::memory_order_acquire)) {
          status = absl::DeadlineExceededError(absl::StrCat(
              "RunGraph of step ", step_id, " on graph ",
              call->request.graph_handle(), " timed out after ",
              absl::FormatDuration(timeout), ": ", s.message()));
        }
        if (stats != nullptr) {
          TracedSteps::Unregister(step_id, stats.get());
          stats->Finalize(&call->step_stats);
        }
        done(status);
      });
}

std::vector<WorkerSessionSummary> Worker::ListSessions() const {
  std::vector<WorkerSessionSummary> out;
  {
    absl::MutexLock lock(&mu_);
    for (const auto& [handle, slot] : sessions_) {
      out.push_back({handle, slot.master_task, slot.last_active,
                     slot.running_steps,
                     slot.session->graph_mgr()->NumGraphs()});
    }
  }
  std::sort(out.begin(), out.end(),
            [](const WorkerSessionSummary& a, const WorkerSessionSummary& b) {
              return a.handle < b.handle;
            });
  if (const size_t n = legacy_session_->graph_mgr()->NumGraphs(); n > 0) {
    out.push_back({"", "", absl::InfinitePast(), 0, n});
  }
  return out;
}

void Worker::CleanupGraphAsync(const CleanupGraphRequest* request,
                               CleanupGraphResponse* response,
                               StatusCallback done) {
  env_.rendezvous_mgr->Cleanup(request->step_id());
  if (env_.on_step_cleanup) env_.on_step_cleanup(request->step_id());
  done(absl::OkStatus());
}

void Worker::CleanupAllAsync(const CleanupAllRequest* request,
                             CleanupAllResponse* response,
                             StatusCallback done) {
  // Resources (variables) in the named containers go; every session's
  // registered graphs stay, as in TensorFlow.
  std::vector<std::string> containers(request->container().begin(),
                                      request->container().end());
  env_.device_mgr->ClearContainers(containers);
  // Tensors kept by handle in the legacy session (a master's own sessions
  // free theirs when the Reset closes them).
  legacy_session_->graph_mgr()->session_state()->Clear();
  done(absl::OkStatus());
}

void Worker::RecvTensorAsync(CallOptions* opts,
                             const RecvTensorRequest* request,
                             RecvTensorResult* response, StatusCallback done) {
  absl::StatusOr<Rendezvous::ParsedKey> key =
      Rendezvous::ParsedKey::Parse(request->rendezvous_key());
  if (!key.ok()) {
    done(absl::InvalidArgumentError(
        absl::StrCat("RecvTensor: ", key.status().message())));
    return;
  }
  // The key's source device, by its local part: the sender may name this
  // task differently than the worker names itself.
  absl::StatusOr<Device*> device =
      env_.device_mgr->LookupDevice(key->src().LocalName());
  if (!device.ok()) {
    done(absl::NotFoundError(absl::StrCat(
        "RecvTensor: the source device ", key->src_device(), " of key '",
        key->FullKey(), "' is not a device of this worker: ",
        device.status().message())));
    return;
  }
  if ((*device)->incarnation() != key->src_incarnation()) {
    done(absl::AbortedError(absl::StrFormat(
        "RecvTensor expects a different device incarnation: %016x vs. %016x "
        "for %s (key '%s'). The worker may have restarted since the key was "
        "made.",
        key->src_incarnation(), (*device)->incarnation(), (*device)->name(),
        key->FullKey())));
    return;
  }

  auto state = std::make_shared<WaitState>();
  state->rendezvous = env_.rendezvous_mgr->Find(request->step_id());
  const absl::Duration timeout =
      opts != nullptr ? opts->timeout() : absl::ZeroDuration();
  if (opts != nullptr) {
    opts->SetCancelCallback([state] { state->cm->StartCancel(); });
  }
  if (timeout > absl::ZeroDuration()) {
    ThreadPool* pool = env_.compute_pool;
    state->has_timer = true;
    state->timer_id = timer_->Schedule(timeout, [state, pool] {
      // Cancelling may run the call's completion; not on the timer thread.
      pool->Schedule([state] {
        state->timed_out.store(true, std::memory_order_release);
        state->cm->StartCancel();
      });
    });
  }
  Rendezvous::Args args;
  args.cancellation_manager = state->cm.get();
  Timer* timer = timer_.get();
  // The callback's `state` keeps the rendezvous alive while it waits; the
  // rendezvous drops the callback (and the cycle) once it has run it.
  Rendezvous* rendezvous = state->rendezvous.get();
  // The key's device is one of this worker's (checked above): wait here,
  // even if the key names this task differently than the rendezvous does.
  rendezvous->RecvLocalAsync(
      *key, args,
      [state, opts, response, timer, timeout, key = key->FullKey(),
       done = std::move(done)](const absl::Status& s, const Tensor& value,
                               bool is_dead) {
        if (opts != nullptr) opts->ClearCancelCallback();
        if (state->has_timer) timer->Cancel(state->timer_id);
        absl::Status status = s;
        if (status.ok()) {
          response->tensor = value;
          // As TensorFlow's workers do: the receiver's trace shows the
          // transfer from here, not from when it asked.
          response->send_start_micros = NowNanos() / 1000;
          response->is_dead = is_dead;
        } else if (absl::IsCancelled(status) &&
                   state->timed_out.load(std::memory_order_acquire)) {
          status = absl::DeadlineExceededError(
              absl::StrCat("RecvTensor of '", key, "' timed out after ",
                           absl::FormatDuration(timeout)));
        }
        done(status);
      });
}

}  // namespace dfx
