#include "rendezvous/remote_rendezvous.h"

#include <atomic>
#include <memory>
#include <utility>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "graph/device_name.h"
#include "runtime/cancellation.h"

namespace dfx {
namespace {

// "/job:w/replica:0/task:1" however the caller spelled it (legacy forms,
// a trailing device part); an unparsable name is kept as given, so that it
// simply matches no key.
std::string CanonicalTask(std::string task) {
  absl::StatusOr<DeviceName> name = DeviceName::Parse(task);
  if (!name.ok()) return task;
  return name->TaskName();
}

}  // namespace

// One receive served by a fetch. Whoever first takes `done` (the fetch's
// completion, the cancellation callback, StartAbort) decides the outcome;
// the others find it taken and do nothing.
struct RemoteRendezvous::Pending {
  Pending(int64_t id, std::string key, std::string task, DoneCallback done)
      : id(id),
        key(std::move(key)),
        task(std::move(task)),
        done(std::move(done)) {}

  const int64_t id;
  const std::string key;
  const std::string task;  // where the tensor is fetched from
  // Set before the Pending is shared with any other thread.
  CancellationManager* cm = nullptr;
  CancellationToken token = -1;

  absl::Mutex mu;
  bool finished ABSL_GUARDED_BY(mu) = false;
  DoneCallback done ABSL_GUARDED_BY(mu);
  // The fetch's Cancel once FetchAsync has returned it.
  RemoteTensorFetcher::Cancel cancel ABSL_GUARDED_BY(mu);
  // Finished by abort or cancellation: a Cancel that arrives later must
  // still be called.
  bool cancel_wanted ABSL_GUARDED_BY(mu) = false;
};

struct RemoteRendezvous::Fetches {
  // Completes `p` once (see Pending). With `cancel_fetch`, also cancels the
  // fetch in flight. Runs the callbacks without any lock held.
  void Finish(const std::shared_ptr<Pending>& p, const absl::Status& status,
              const Tensor& value, bool is_dead, bool cancel_fetch) {
    DoneCallback done;
    RemoteTensorFetcher::Cancel cancel;
    {
      absl::MutexLock lock(&p->mu);
      if (p->finished) return;
      p->finished = true;
      done = std::move(p->done);
      p->done = nullptr;
      cancel = std::move(p->cancel);
      p->cancel = nullptr;
      p->cancel_wanted = cancel_fetch;
    }
    {
      absl::MutexLock lock(&mu);
      in_flight.erase(p->id);
    }
    // Never waits: this may run inside the manager's own callback. The
    // manager is still alive: its owner keeps it until `done` has run.
    if (p->cm != nullptr) p->cm->TryDeregisterCallback(p->token);
    // The fetcher may complete the fetch from inside Cancel; that result
    // finds the receive finished and is dropped.
    if (cancel_fetch && cancel) cancel();
    done(status, value, is_dead);
  }

  std::atomic<int64_t> next_id{0};
  absl::Mutex mu;
  absl::Status abort_status ABSL_GUARDED_BY(mu);
  absl::flat_hash_map<int64_t, std::shared_ptr<Pending>> in_flight
      ABSL_GUARDED_BY(mu);
};

RemoteRendezvous::RemoteRendezvous(int64_t step_id, std::string local_task,
                                   RemoteTensorFetcher* fetcher)
    : step_id_(step_id),
      local_task_(CanonicalTask(std::move(local_task))),
      fetcher_(fetcher),
      fetches_(std::make_shared<Fetches>()) {}

RemoteRendezvous::~RemoteRendezvous() {
  StartAbort(absl::CancelledError(
      absl::StrCat("rendezvous of step ", step_id_, " destroyed")));
}

absl::Status RemoteRendezvous::Send(const ParsedKey& key, const Args& args,
                                    const Tensor& value, bool is_dead) {
  {
    absl::MutexLock lock(&fetches_->mu);
    if (!fetches_->abort_status.ok()) return fetches_->abort_status;
  }
  const std::string src_task = key.src().TaskName();
  if (src_task != local_task_) {
    return absl::InvalidArgumentError(absl::StrCat(
        "cannot send tensor '", key.FullKey(), "' in task ", local_task_,
        ": its source device ", key.src_device(), " is in task ", src_task));
  }
  return local_.Send(key, args, value, is_dead);
}

void RemoteRendezvous::RecvAsync(const ParsedKey& key, const Args& args,
                                 DoneCallback done) {
  if (key.src().TaskName() == local_task_) {
    local_.RecvAsync(key, args, std::move(done));
    return;
  }
  FetchRemote(key, args, std::move(done));
}

void RemoteRendezvous::RecvLocalAsync(const ParsedKey& key, const Args& args,
                                      DoneCallback done) {
  local_.RecvAsync(key, args, std::move(done));
}

void RemoteRendezvous::FetchRemote(const ParsedKey& key, const Args& args,
                                   DoneCallback done) {
  std::shared_ptr<Fetches> fetches = fetches_;
  auto pending = std::make_shared<Pending>(
      fetches->next_id.fetch_add(1, std::memory_order_relaxed), key.FullKey(),
      key.src().TaskName(), std::move(done));

  // Registered before the fetch starts, so that a cancellation can never
  // fall between the two and be missed.
  CancellationManager* cm = args.cancellation_manager;
  if (cm != nullptr) {
    pending->cm = cm;
    pending->token = cm->get_cancellation_token();
    const bool registered =
        cm->RegisterCallback(pending->token, [fetches, pending] {
          fetches->Finish(pending,
                          absl::CancelledError(absl::StrCat(
                              "receive of '", pending->key, "' from task ",
                              pending->task, " cancelled")),
                          Tensor(), false, /*cancel_fetch=*/true);
        });
    if (!registered) {
      pending->cm = nullptr;
      fetches->Finish(pending,
                      absl::CancelledError(absl::StrCat(
                          "receive of '", pending->key, "' from task ",
                          pending->task, " cancelled before it started")),
                      Tensor(), false, /*cancel_fetch=*/false);
      return;
    }
  }

  absl::Status aborted;
  {
    absl::MutexLock lock(&fetches->mu);
    if (!fetches->abort_status.ok()) {
      aborted = fetches->abort_status;
    } else {
      absl::MutexLock pending_lock(&pending->mu);
      // Already cancelled by the manager: start nothing.
      if (pending->finished) return;
      fetches->in_flight.emplace(pending->id, pending);
    }
  }
  if (!aborted.ok()) {
    fetches->Finish(pending, aborted, Tensor(), false, /*cancel_fetch=*/false);
    return;
  }

  RemoteTensorFetcher::Cancel cancel = fetcher_->FetchAsync(
      step_id_, key,
      [fetches, pending](const absl::Status& status, const Tensor& value,
                         bool is_dead) {
        fetches->Finish(pending, status, value, is_dead,
                        /*cancel_fetch=*/false);
      });
  {
    absl::MutexLock lock(&pending->mu);
    if (!pending->finished) {
      pending->cancel = std::move(cancel);
      return;
    }
    if (!pending->cancel_wanted) return;  // the fetch itself finished
  }
  // Aborted or cancelled while FetchAsync was starting the fetch.
  if (cancel) cancel();
}

void RemoteRendezvous::StartAbort(const absl::Status& status) {
  absl::Status abort_status =
      status.ok() ? absl::InternalError("rendezvous aborted with OK status")
                  : status;
  absl::flat_hash_map<int64_t, std::shared_ptr<Pending>> in_flight;
  {
    absl::MutexLock lock(&fetches_->mu);
    if (!fetches_->abort_status.ok()) return;  // the first abort sticks
    fetches_->abort_status = abort_status;
    in_flight.swap(fetches_->in_flight);
  }
  local_.StartAbort(abort_status);
  for (auto& [id, pending] : in_flight) {
    fetches_->Finish(pending, abort_status, Tensor(), false,
                     /*cancel_fetch=*/true);
  }
}

}  // namespace dfx
