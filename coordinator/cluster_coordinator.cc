#include "coordinator/cluster_coordinator.h"

#include <algorithm>
#include <deque>
#include <optional>
#include <thread>

#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/clock.h"
#include "base/task_status.h"
#include "rpc/cluster_spec.h"
#include "rpc/grpc_session.h"
#include "rpc/grpc_util.h"
#include "spdlog/spdlog.h"

namespace dfx::coordinator {

struct RemoteValue::State {
  mutable absl::Mutex mu;
  bool done ABSL_GUARDED_BY(mu) = false;
  absl::StatusOr<std::vector<Tensor>> result ABSL_GUARDED_BY(mu) =
      absl::UnknownError("not run");
  int worker ABSL_GUARDED_BY(mu) = -1;
  int attempts ABSL_GUARDED_BY(mu) = 0;
};

absl::StatusOr<std::vector<Tensor>> RemoteValue::Fetch(
    absl::Duration timeout) const {
  absl::MutexLock lock(&state_->mu);
  if (!state_->mu.AwaitWithTimeout(absl::Condition(&state_->done),
                                   timeout)) {
    return absl::DeadlineExceededError(absl::StrCat(
        "the closure did not end within ", absl::FormatDuration(timeout)));
  }
  return state_->result;
}

bool RemoteValue::IsReady() const {
  absl::MutexLock lock(&state_->mu);
  return state_->done;
}

int RemoteValue::worker_index() const {
  absl::MutexLock lock(&state_->mu);
  return state_->worker;
}

int RemoteValue::attempts() const {
  absl::MutexLock lock(&state_->mu);
  return state_->attempts;
}

namespace {

struct Item {
  Closure fn;
  std::shared_ptr<RemoteValue::State> state;
  int transient_retries = 0;
};

// kRecovering: answering again, its per-worker values being made.
enum class WorkerHealth { kUp, kDown, kRecovering, kGivenUp };

struct Worker {
  int index = 0;
  std::string task;     // "/job:worker/replica:0/task:i"
  std::string address;  // host:port
  WorkerHealth health = WorkerHealth::kUp;
  absl::Time down_since;
  // By per-worker value id; nullopt: not made for this process yet.
  std::vector<std::optional<std::vector<Tensor>>> values;
};

void Finish(RemoteValue::State* state, absl::StatusOr<std::vector<Tensor>> r,
            int worker) {
  absl::MutexLock lock(&state->mu);
  state->result = std::move(r);
  state->worker = worker;
  state->done = true;
}

}  // namespace

class ClusterCoordinator::Impl {
 public:
  Impl(CoordinatorOptions options, std::unique_ptr<Session> session,
       std::vector<Worker> workers)
      : options_(std::move(options)),
        session_(std::move(session)),
        workers_(std::move(workers)) {
    closures_per_worker_.assign(workers_.size(), 0);
    for (size_t i = 0; i < workers_.size(); ++i) {
      make_mu_.push_back(std::make_unique<absl::Mutex>());
    }
  }

  void Start() {
    for (size_t i = 0; i < workers_.size(); ++i) {
      threads_.emplace_back([this, i] { WorkerLoop(static_cast<int>(i)); });
    }
  }

  ~Impl() {
    std::deque<std::shared_ptr<Item>> queued;
    {
      absl::MutexLock lock(&mu_);
      stop_ = true;
      queued.swap(queue_);
      pending_ -= static_cast<int64_t>(queued.size());
      failed_ += static_cast<int64_t>(queued.size());
    }
    for (const auto& item : queued) {
      Finish(item->state.get(),
             absl::CancelledError("the coordinator was destroyed"), -1);
    }
    for (std::thread& t : threads_) t.join();
    session_->Close().IgnoreError();
  }

  // A closure's view of its worker.
  class Context : public ClosureContext {
   public:
    Context(Impl* impl, int worker, absl::Time deadline)
        : impl_(impl), worker_(worker), deadline_(deadline) {}
    int worker_index() const override { return worker_; }
    const std::string& worker_task() const override {
      return impl_->workers_[worker_].task;
    }
    absl::StatusOr<std::vector<Tensor>> Run(
        const std::vector<std::pair<std::string, Tensor>>& feeds,
        const std::vector<std::string>& fetches,
        const std::vector<std::string>& targets) override {
      absl::Duration timeout = impl_->options_.step_timeout;
      if (deadline_ != absl::InfiniteFuture()) {
        timeout = std::min(timeout, deadline_ - absl::Now());
        if (timeout <= absl::ZeroDuration()) {
          return absl::DeadlineExceededError(absl::StrCat(
              "no time left for a step on ", worker_task()));
        }
      }
      RunOptions run_options;
      run_options.set_timeout_in_ms(
          std::max<int64_t>(1, absl::ToInt64Milliseconds(timeout)));
      std::vector<Tensor> out;
      absl::Status s = impl_->session_->Run(run_options, feeds, fetches,
                                            targets, &out, nullptr);
      if (!s.ok()) return s;
      return out;
    }
    absl::StatusOr<std::vector<Tensor>> PerWorkerValue(int id) const override {
      absl::MutexLock lock(&impl_->mu_);
      const Worker& w = impl_->workers_[worker_];
      if (id < 0 || id >= static_cast<int>(w.values.size())) {
        return absl::InvalidArgumentError(
            absl::StrCat("no per-worker value ", id));
      }
      if (!w.values[id].has_value()) {
        return absl::FailedPreconditionError(absl::StrCat(
            "per-worker value ", id, " is not made on ", w.task, " yet"));
      }
      return *w.values[id];
    }

   private:
    Impl* impl_;
    int worker_;
    absl::Time deadline_;
  };

  absl::StatusOr<int> CreatePerWorkerValue(Closure fn,
                                           absl::Duration timeout) {
    int id;
    std::vector<int> live;
    {
      absl::MutexLock lock(&mu_);
      id = static_cast<int>(value_fns_.size());
      value_fns_.push_back(fn);
      for (Worker& w : workers_) {
        w.values.emplace_back();
        if (w.health == WorkerHealth::kUp) live.push_back(w.index);
      }
    }
    const absl::Time deadline = absl::Now() + timeout;
    std::vector<absl::Status> errors(live.size());
    std::vector<std::thread> threads;
    for (size_t k = 0; k < live.size(); ++k) {
      threads.emplace_back([this, &errors, &live, k, id, deadline] {
        errors[k] = MakeValue(live[k], id, deadline);
      });
    }
    for (std::thread& t : threads) t.join();
    for (size_t k = 0; k < live.size(); ++k) {
      if (!errors[k].ok()) return errors[k];
    }
    return id;
  }

  RemoteValue Schedule(Closure closure) {
    auto item = std::make_shared<Item>();
    item->fn = std::move(closure);
    item->state = std::make_shared<RemoteValue::State>();
    RemoteValue value(item->state);
    bool refuse = false;
    {
      absl::MutexLock lock(&mu_);
      ++scheduled_;
      refuse = stop_ || AllGivenUp();
      if (!refuse) {
        ++pending_;
        queue_.push_back(item);
      } else {
        ++failed_;
      }
    }
    if (refuse) {
      Finish(item->state.get(),
             absl::UnavailableError("every worker was given up"), -1);
    }
    return value;
  }

  absl::Status Join(absl::Duration timeout) {
    absl::MutexLock lock(&mu_);
    auto idle = [this]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
      return pending_ == 0;
    };
    if (!mu_.AwaitWithTimeout(absl::Condition(&idle), timeout)) {
      return absl::DeadlineExceededError(absl::StrCat(
          pending_, " closure(s) had not ended within ",
          absl::FormatDuration(timeout)));
    }
    absl::Status s = first_error_;
    first_error_ = absl::OkStatus();
    return s;
  }

  bool Done() const {
    absl::MutexLock lock(&mu_);
    return pending_ == 0;
  }

  CoordinatorStats Stats() const {
    absl::MutexLock lock(&mu_);
    CoordinatorStats s;
    s.scheduled = scheduled_;
    s.succeeded = succeeded_;
    s.failed = failed_;
    s.retried = retried_;
    s.worker_losses = worker_losses_;
    s.worker_recoveries = worker_recoveries_;
    s.closures_per_worker = closures_per_worker_;
    for (const Worker& w : workers_) {
      s.worker_up.push_back(w.health == WorkerHealth::kUp);
    }
    return s;
  }

  Session* session() const { return session_.get(); }

 private:
  bool AllGivenUp() const ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    return std::all_of(workers_.begin(), workers_.end(), [](const Worker& w) {
      return w.health == WorkerHealth::kGivenUp;
    });
  }

  bool IsWorkerTask(const std::string& task, int* index) const {
    for (const Worker& w : workers_) {
      if (w.task == task) {
        *index = w.index;
        return true;
      }
    }
    return false;
  }

  enum class Kind { kWorkerLost, kTransient, kFatal };

  // What a closure's (or a per-worker fn's) error on worker `i` means.
  // Marks the workers it names down.
  Kind Classify(int i, const absl::Status& s, int transient_retries) {
    if (!absl::IsUnavailable(s)) return Kind::kFatal;
    const std::vector<std::string> tasks = UnavailableTasks(s);
    if (tasks.empty()) {
      return transient_retries < options_.max_transient_retries
                 ? Kind::kTransient
                 : Kind::kFatal;
    }
    std::vector<int> lost;
    for (const std::string& task : tasks) {
      int index;
      if (!IsWorkerTask(task, &index)) return Kind::kFatal;  // a ps, ...
      lost.push_back(index);
    }
    for (int index : lost) MarkDown(index);
    return Kind::kWorkerLost;
  }

  void MarkDown(int i) {
    absl::MutexLock lock(&mu_);
    Worker& w = workers_[i];
    if (w.health == WorkerHealth::kRecovering) {
      // Lost again while coming back: still the same loss.
      w.health = WorkerHealth::kDown;
      for (auto& v : w.values) v.reset();
      return;
    }
    if (w.health != WorkerHealth::kUp) return;
    w.health = WorkerHealth::kDown;
    w.down_since = absl::Now();
    for (auto& v : w.values) v.reset();
    ++worker_losses_;
    spdlog::warn("coordinator: worker {} is unavailable; its closures go to "
                 "other workers while it is probed",
                 w.task);
  }

  // Runs per-worker fn `id` on worker `i` and keeps its value; nothing when
  // the worker has it already (CreatePerWorkerValue and the worker's
  // thread may both ask).
  absl::Status MakeValue(int i, int id, absl::Time deadline) {
    absl::MutexLock make_lock(make_mu_[i].get());
    Closure fn;
    {
      absl::MutexLock lock(&mu_);
      if (workers_[i].values[id].has_value()) return absl::OkStatus();
      fn = value_fns_[id];
    }
    Context context(this, i, deadline);
    absl::StatusOr<std::vector<Tensor>> value = fn(context);
    for (int retries = 0; !value.ok(); ++retries) {
      const Kind kind = Classify(i, value.status(), retries);
      if (kind == Kind::kWorkerLost) {
        return absl::OkStatus();  // made again when the worker is back
      }
      if (kind == Kind::kTransient) {
        value = fn(context);
        continue;
      }
      return absl::Status(
          value.status().code(),
          absl::StrCat("per-worker value ", id, " on ", workers_[i].task,
                       ": ", value.status().message()));
    }
    absl::MutexLock lock(&mu_);
    const WorkerHealth health = workers_[i].health;
    if (health == WorkerHealth::kUp || health == WorkerHealth::kRecovering) {
      workers_[i].values[id] = *std::move(value);
    }
    return absl::OkStatus();
  }

  // Makes the per-worker values worker `i` lacks. False when the worker
  // went down meanwhile or a fn failed (logged; the worker is then
  // treated as down).
  bool EnsureValues(int i) {
    std::vector<int> missing;
    {
      absl::MutexLock lock(&mu_);
      const Worker& w = workers_[i];
      for (size_t id = 0; id < w.values.size(); ++id) {
        if (!w.values[id].has_value()) missing.push_back(id);
      }
    }
    for (int id : missing) {
      absl::Status s =
          MakeValue(i, id, absl::Now() + options_.step_timeout);
      if (!s.ok()) {
        spdlog::warn("coordinator: {}", s.ToString());
        MarkDown(i);
        return false;
      }
      absl::MutexLock lock(&mu_);
      const WorkerHealth health = workers_[i].health;
      if (health != WorkerHealth::kUp && health != WorkerHealth::kRecovering) {
        return false;
      }
    }
    return true;
  }

  // Probes a down worker with a backoff until it serves (then makes its
  // per-worker values again: true), the coordinator stops or the worker
  // is given up (false).
  bool Recover(int i) {
    absl::Duration delay = options_.probe_initial;
    absl::Time give_up;
    std::string address, task;
    {
      absl::MutexLock lock(&mu_);
      give_up = workers_[i].down_since + options_.worker_give_up;
      address = workers_[i].address;
      task = workers_[i].task;
    }
    const ChannelSecurity security = DefaultGrpcSessionOptions().security;
    while (true) {
      {
        absl::MutexLock lock(&mu_);
        mu_.AwaitWithTimeout(absl::Condition(&stop_), delay);
        if (stop_) return false;
        if (absl::Now() >= give_up) {
          workers_[i].health = WorkerHealth::kGivenUp;
          spdlog::error("coordinator: gave up on worker {}", task);
          return false;
        }
      }
      delay = std::min(delay * 2, options_.probe_max);
      absl::Status s = WaitForWorkerReady(
          address, absl::Now() + absl::Seconds(1),
          [this] {
            absl::MutexLock lock(&mu_);
            return !stop_;
          },
          security, task);
      if (!s.ok()) continue;
      {
        absl::MutexLock lock(&mu_);
        workers_[i].health = WorkerHealth::kRecovering;
      }
      if (!EnsureValues(i)) {
        absl::MutexLock lock(&mu_);
        workers_[i].health = WorkerHealth::kDown;  // probe again
        for (auto& v : workers_[i].values) v.reset();
        continue;
      }
      absl::MutexLock lock(&mu_);
      workers_[i].health = WorkerHealth::kUp;
      ++worker_recoveries_;
      spdlog::info("coordinator: worker {} is back and takes closures again",
                   task);
      return true;
    }
  }

  // Fails every queued closure (after a fatal error), then counts them
  // and `also_ended` more closures as ended.
  void CancelQueued(const absl::Status& cause, int also_ended = 0) {
    std::deque<std::shared_ptr<Item>> queued;
    {
      absl::MutexLock lock(&mu_);
      queued.swap(queue_);
    }
    for (const auto& item : queued) {
      Finish(item->state.get(),
             absl::CancelledError(absl::StrCat(
                 "cancelled: an earlier closure failed: ", cause.message())),
             -1);
    }
    absl::MutexLock lock(&mu_);
    pending_ -= static_cast<int64_t>(queued.size()) + also_ended;
    failed_ += static_cast<int64_t>(queued.size()) + also_ended;
  }

  void WorkerLoop(int i) {
    while (true) {
      WorkerHealth health;
      std::shared_ptr<Item> item;
      {
        absl::MutexLock lock(&mu_);
        auto ready = [this, i]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
          return stop_ || workers_[i].health != WorkerHealth::kUp ||
                 !queue_.empty();
        };
        mu_.Await(absl::Condition(&ready));  // stop_ ends the wait
        if (stop_) return;
        health = workers_[i].health;
        if (health == WorkerHealth::kUp) {
          item = queue_.front();
          queue_.pop_front();
        }
      }
      if (health == WorkerHealth::kGivenUp) {
        FailAllIfNoWorkers();
        return;
      }
      if (health == WorkerHealth::kDown) {
        if (!Recover(i)) {
          FailAllIfNoWorkers();
          absl::MutexLock lock(&mu_);
          if (stop_ || workers_[i].health == WorkerHealth::kGivenUp) return;
        }
        continue;
      }
      if (!EnsureValues(i)) {
        Requeue(item);
        continue;
      }
      RunItem(i, item);
    }
  }

  void FailAllIfNoWorkers() {
    {
      absl::MutexLock lock(&mu_);
      if (!AllGivenUp()) return;
    }
    const absl::Status s = absl::UnavailableError(
        "every worker was given up: no worker answered within the "
        "coordinator's worker_give_up");
    {
      absl::MutexLock lock(&mu_);
      if (first_error_.ok()) first_error_ = s;
    }
    CancelQueued(s);
  }

  void Requeue(const std::shared_ptr<Item>& item) {
    absl::MutexLock lock(&mu_);
    queue_.push_front(item);
  }

  void RunItem(int i, const std::shared_ptr<Item>& item) {
    {
      absl::MutexLock lock(&item->state->mu);
      ++item->state->attempts;
    }
    Context context(this, i, absl::InfiniteFuture());
    absl::StatusOr<std::vector<Tensor>> result = item->fn(context);
    if (result.ok()) {
      Finish(item->state.get(), std::move(result), i);
      absl::MutexLock lock(&mu_);
      ++succeeded_;
      ++closures_per_worker_[i];
      --pending_;
      return;
    }
    const absl::Status s = result.status();
    switch (Classify(i, s, item->transient_retries)) {
      case Kind::kWorkerLost: {
        absl::MutexLock lock(&mu_);
        ++retried_;
        queue_.push_front(item);
        return;
      }
      case Kind::kTransient: {
        ++item->transient_retries;
        absl::MutexLock lock(&mu_);
        ++retried_;
        queue_.push_front(item);
        return;
      }
      case Kind::kFatal:
        break;
    }
    Finish(item->state.get(), s, i);
    {
      absl::MutexLock lock(&mu_);
      if (first_error_.ok()) first_error_ = s;
    }
    // The closure counts as pending until the queue it cancels is
    // cancelled: a Join that returns has seen both.
    CancelQueued(s, /*also_ended=*/1);
  }

  const CoordinatorOptions options_;
  const std::unique_ptr<Session> session_;
  mutable absl::Mutex mu_;
  std::vector<Worker> workers_ ABSL_GUARDED_BY(mu_);
  std::vector<Closure> value_fns_ ABSL_GUARDED_BY(mu_);
  std::deque<std::shared_ptr<Item>> queue_ ABSL_GUARDED_BY(mu_);
  bool stop_ ABSL_GUARDED_BY(mu_) = false;
  int64_t pending_ ABSL_GUARDED_BY(mu_) = 0;
  absl::Status first_error_ ABSL_GUARDED_BY(mu_);
  int64_t scheduled_ ABSL_GUARDED_BY(mu_) = 0;
  int64_t succeeded_ ABSL_GUARDED_BY(mu_) = 0;
  int64_t failed_ ABSL_GUARDED_BY(mu_) = 0;
  int64_t retried_ ABSL_GUARDED_BY(mu_) = 0;
  int64_t worker_losses_ ABSL_GUARDED_BY(mu_) = 0;
  int64_t worker_recoveries_ ABSL_GUARDED_BY(mu_) = 0;
  std::vector<int64_t> closures_per_worker_ ABSL_GUARDED_BY(mu_);
  // One per worker: serializes making its per-worker values.
  std::vector<std::unique_ptr<absl::Mutex>> make_mu_;
  std::vector<std::thread> threads_;
};

absl::StatusOr<std::unique_ptr<ClusterCoordinator>> ClusterCoordinator::Create(
    const ClusterDef& cluster, const GraphDef& graph,
    CoordinatorOptions options) {
  if (options.step_timeout <= absl::ZeroDuration() ||
      options.probe_initial <= absl::ZeroDuration() ||
      options.probe_max < options.probe_initial ||
      options.worker_give_up <= absl::ZeroDuration() ||
      options.max_transient_retries < 0) {
    return absl::InvalidArgumentError(
        "coordinator options: step_timeout, probe_initial and worker_give_up "
        "must be positive, probe_max at least probe_initial, "
        "max_transient_retries not negative");
  }
  std::vector<Worker> workers;
  for (int t = 0;; ++t) {
    absl::StatusOr<std::string> address = TaskAddress(cluster, "worker", t);
    if (!address.ok()) break;
    Worker w;
    w.index = t;
    w.task = TaskName("worker", t);
    w.address = *address;
    workers.push_back(std::move(w));
  }
  if (workers.empty()) {
    return absl::InvalidArgumentError(
        "the cluster has no task 0 of a `worker` job for the coordinator");
  }
  absl::StatusOr<std::unique_ptr<Session>> session =
      Session::Create(options.master, options.session_options);
  if (!session.ok()) return session.status();
  absl::Status s = (*session)->Extend(graph);
  if (!s.ok()) return s;
  auto impl = std::make_unique<Impl>(std::move(options), *std::move(session),
                                     std::move(workers));
  impl->Start();
  return std::unique_ptr<ClusterCoordinator>(
      new ClusterCoordinator(std::move(impl)));
}

ClusterCoordinator::ClusterCoordinator(std::unique_ptr<Impl> impl)
    : impl_(std::move(impl)) {}
ClusterCoordinator::~ClusterCoordinator() = default;

absl::StatusOr<int> ClusterCoordinator::CreatePerWorkerValue(
    Closure fn, absl::Duration timeout) {
  return impl_->CreatePerWorkerValue(std::move(fn), timeout);
}
RemoteValue ClusterCoordinator::Schedule(Closure closure) {
  return impl_->Schedule(std::move(closure));
}
absl::Status ClusterCoordinator::Join(absl::Duration timeout) {
  return impl_->Join(timeout);
}
bool ClusterCoordinator::Done() const { return impl_->Done(); }
CoordinatorStats ClusterCoordinator::Stats() const { return impl_->Stats(); }
Session* ClusterCoordinator::session() const { return impl_->session(); }

}  // namespace dfx::coordinator
