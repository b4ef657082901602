#include "rendezvous/remote_rendezvous.h"

#include <atomic>
#include <memory>
#include <utility>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
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

// One receive of a key from another task, served by a fetch or a push.
// Whoever first takes `done` (the fetch's completion, the push, the
// cancellation callback, StartAbort) decides the outcome; the others find
// it taken and do nothing.
struct RemoteRendezvous::Pending {
  Pending(int64_t id, const ParsedKey& key, std::string task,
          DoneCallback done)
      : id(id), parsed(key), task(std::move(task)), done(std::move(done)) {}

  const std::string& key() const { return parsed.FullKey(); }

  const int64_t id;
  const ParsedKey parsed;
  const std::string task;  // where the tensor comes from
  // Args::destination, if any. Set before the Pending is shared.
  Tensor destination;
  // Set before the Pending is shared with any other thread.
  CancellationManager* cm = nullptr;
  CancellationToken token = -1;

  absl::Mutex mu;
  bool finished ABSL_GUARDED_BY(mu) = false;
  DoneCallback done ABSL_GUARDED_BY(mu);
  // The fetch's Cancel once FetchAsync has returned it.
  RemoteTensorFetcher::Cancel cancel ABSL_GUARDED_BY(mu);
  // Finished by abort, cancellation or a push: a Cancel that arrives later
  // must still be called.
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
      // A receive that waited in the inbox and was answered otherwise.
      if (!inbox.empty()) {
        auto it = inbox.find(p->key());
        if (it != inbox.end() && it->second.waiter == p) inbox.erase(it);
      }
    }
    // Never waits: this may run inside the manager's own callback. The
    // manager is still alive: its owner keeps it until `done` has run.
    if (p->cm != nullptr) p->cm->TryDeregisterCallback(p->token);
    // The fetcher may complete the fetch from inside Cancel; that result
    // finds the receive finished and is dropped.
    if (cancel_fetch && cancel) cancel();
    done(status, value, is_dead);
  }

  // A key of the inbox holds a pushed tensor, a pushed key whose tensor
  // must be fetched, or the receive waiting for its push.
  struct InboxEntry {
    enum class Kind { kValue, kPull, kWaiter };
    Kind kind = Kind::kValue;
    Tensor value;
    bool is_dead = false;
    std::shared_ptr<Pending> waiter;
    // kWaiter: its fetch is started (the race with a push, or a kPull).
    bool fetching = false;
  };

  std::atomic<int64_t> next_id{0};
  absl::Mutex mu;
  absl::Status abort_status ABSL_GUARDED_BY(mu);
  // Every receive from another task not finished yet.
  absl::flat_hash_map<int64_t, std::shared_ptr<Pending>> in_flight
      ABSL_GUARDED_BY(mu);
  absl::flat_hash_map<std::string, InboxEntry> inbox ABSL_GUARDED_BY(mu);
  // Tasks that pushed in this step.
  absl::flat_hash_set<std::string> pushing_tasks ABSL_GUARDED_BY(mu);
  // Tasks whose push stream ended in this step: their tensors are fetched.
  absl::flat_hash_set<std::string> lost_tasks ABSL_GUARDED_BY(mu);
};

RemoteRendezvous::RemoteRendezvous(int64_t step_id, std::string local_task,
                                   RemoteTensorFetcher* fetcher,
                                   RemoteTensorPusher* pusher)
    : step_id_(step_id),
      local_task_(CanonicalTask(std::move(local_task))),
      fetcher_(fetcher),
      pusher_(pusher),
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
  if (pusher_ != nullptr && !args.client_terminated) {
    std::string dst_task = key.dst().TaskName();
    if (dst_task != local_task_) {
      // Whether this step pushes to `dst_task` is decided by its first
      // send there and holds for the step (a stream that comes up in the
      // middle of a step serves the next one), until PushesLost: a
      // receiver that got one push of the step waits for every later
      // tensor from here in its inbox, unless told that the stream ended.
      bool push;
      {
        absl::MutexLock lock(&push_mu_);
        auto [it, first] = push_to_.try_emplace(dst_task);
        if (first) {
          // Under the lock, so that every other send sees the decision.
          const RemoteTensorPusher::Outcome outcome =
              pusher_->Push(step_id_, key, value, is_dead);
          it->second.push = outcome != RemoteTensorPusher::Outcome::kNotPushed;
          if (outcome != RemoteTensorPusher::Outcome::kPushed ||
              KeepPushedLocked(key, value, &it->second)) {
            return local_.Send(key, args, value, is_dead);
          }
          return absl::OkStatus();
        }
        push = it->second.push;
      }
      // Not pushed in a step that pushes there means the stream broke: its
      // end reaches the receiver, which then fetches this from here.
      if (push && pusher_->Push(step_id_, key, value, is_dead) ==
                      RemoteTensorPusher::Outcome::kPushed) {
        absl::MutexLock lock(&push_mu_);
        PushTo& to = push_to_[dst_task];
        // A stream that ended since (PushesLost) leaves nothing to drop.
        if (to.push && !KeepPushedLocked(key, value, &to)) {
          return absl::OkStatus();
        }
      }
    }
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
      fetches->next_id.fetch_add(1, std::memory_order_relaxed), key,
      key.src().TaskName(), std::move(done));
  // Only the _Recv of a graph edge between tasks: its _Send is the one
  // that pushes. Any sender may push (see the class comment).
  const bool may_push = !args.client_terminated;
  if (args.destination != nullptr) pending->destination = *args.destination;

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
                              "receive of '", pending->key(), "' from task ",
                              pending->task, " cancelled")),
                          Tensor(), false, /*cancel_fetch=*/true);
        });
    if (!registered) {
      pending->cm = nullptr;
      fetches->Finish(pending,
                      absl::CancelledError(absl::StrCat(
                          "receive of '", pending->key(), "' from task ",
                          pending->task, " cancelled before it started")),
                      Tensor(), false, /*cancel_fetch=*/false);
      return;
    }
  }

  enum class Next { kFetch, kWait, kHave, kFail };
  Next next = Next::kFetch;
  absl::Status failed;
  Tensor value;
  bool is_dead = false;
  {
    absl::MutexLock lock(&fetches->mu);
    if (!fetches->abort_status.ok()) {
      failed = fetches->abort_status;
      next = Next::kFail;
    } else {
      absl::MutexLock pending_lock(&pending->mu);
      // Already cancelled by the manager: start nothing.
      if (pending->finished) return;
      using Kind = Fetches::InboxEntry::Kind;
      auto it = may_push ? fetches->inbox.find(pending->key())
                         : fetches->inbox.end();
      if (it == fetches->inbox.end()) {
        fetches->in_flight.emplace(pending->id, pending);
        if (may_push) {
          Fetches::InboxEntry& entry = fetches->inbox[pending->key()];
          entry.kind = Kind::kWaiter;
          entry.waiter = pending;
          // A task that pushed in this step pushes (or announces) every
          // tensor it sends here; otherwise fetch too, and take whichever
          // answer comes first.
          if (fetches->pushing_tasks.contains(pending->task)) {
            next = Next::kWait;
          } else {
            entry.fetching = true;
          }
        }
      } else if (it->second.kind == Kind::kValue) {
        value = std::move(it->second.value);
        is_dead = it->second.is_dead;
        fetches->inbox.erase(it);
        next = Next::kHave;
      } else if (it->second.kind == Kind::kPull) {
        fetches->inbox.erase(it);
        fetches->in_flight.emplace(pending->id, pending);
      } else {
        failed = absl::InvalidArgumentError(
            absl::StrCat("tensor '", pending->key(), "' of step ", step_id_,
                         " is received twice"));
        next = Next::kFail;
      }
    }
  }
  switch (next) {
    case Next::kFail:
      fetches->Finish(pending, failed, Tensor(), false,
                      /*cancel_fetch=*/false);
      return;
    case Next::kHave:
      fetches->Finish(pending, absl::OkStatus(), value, is_dead,
                      /*cancel_fetch=*/false);
      return;
    case Next::kWait:
      return;
    case Next::kFetch:
      StartFetch(pending);
      return;
  }
}

void RemoteRendezvous::StartFetch(const std::shared_ptr<Pending>& pending) {
  std::shared_ptr<Fetches> fetches = fetches_;
  RemoteTensorFetcher::Cancel cancel = fetcher_->FetchAsync(
      step_id_, pending->parsed, pending->destination,
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
  // Aborted, cancelled or pushed while FetchAsync was starting the fetch.
  if (cancel) cancel();
}

void RemoteRendezvous::DeliverPushed(const std::string& src_task,
                                     const std::string& key,
                                     const Tensor& value, bool is_dead,
                                     bool pull) {
  using Kind = Fetches::InboxEntry::Kind;
  std::shared_ptr<Pending> waiter;
  bool fetch = false;
  {
    absl::MutexLock lock(&fetches_->mu);
    if (!fetches_->abort_status.ok()) return;  // dropped with the step
    if (!fetches_->lost_tasks.contains(src_task)) {
      fetches_->pushing_tasks.insert(src_task);
    }
    auto [it, inserted] = fetches_->inbox.try_emplace(key);
    Fetches::InboxEntry& entry = it->second;
    if (inserted) {
      entry.kind = pull ? Kind::kPull : Kind::kValue;
      entry.value = value;
      entry.is_dead = is_dead;
      return;
    }
    if (entry.kind != Kind::kWaiter) return;  // a second push of one key
    waiter = entry.waiter;
    if (pull) {
      // Its fetch is already on its way (a receive that raced).
      if (entry.fetching) return;
      entry.fetching = true;
      fetch = true;
    } else {
      fetches_->inbox.erase(it);
    }
  }
  if (fetch) {
    StartFetch(waiter);
    return;
  }
  fetches_->Finish(waiter, absl::OkStatus(), value, is_dead,
                   /*cancel_fetch=*/true);
}

void RemoteRendezvous::PushStreamLost(const std::string& src_task) {
  std::vector<std::shared_ptr<Pending>> to_fetch;
  {
    absl::MutexLock lock(&fetches_->mu);
    if (!fetches_->abort_status.ok()) return;
    fetches_->lost_tasks.insert(src_task);
    if (!fetches_->pushing_tasks.erase(src_task)) return;
    for (auto& [key, entry] : fetches_->inbox) {
      if (entry.kind != Fetches::InboxEntry::Kind::kWaiter ||
          entry.fetching || entry.waiter->task != src_task) {
        continue;
      }
      entry.fetching = true;
      to_fetch.push_back(entry.waiter);
    }
  }
  for (const std::shared_ptr<Pending>& pending : to_fetch) {
    StartFetch(pending);
  }
}

bool RemoteRendezvous::KeepPushedLocked(const ParsedKey& key,
                                        const Tensor& value, PushTo* to) {
  const int64_t bytes = static_cast<int64_t>(key.FullKey().size()) +
                        (value.IsInitialized() ? value.TotalBytes() : 0);
  if (kept_push_bytes_ + bytes > kMaxKeptPushBytes) {
    to->dropped = true;
    return false;
  }
  kept_push_bytes_ += bytes;
  return true;
}

void RemoteRendezvous::PushesLost(const std::string& task) {
  const std::string canonical = CanonicalTask(task);
  {
    absl::MutexLock lock(&push_mu_);
    auto it = push_to_.find(canonical);
    if (it == push_to_.end()) return;
    it->second.push = false;
    if (!it->second.dropped) return;
  }
  StartAbort(absl::UnavailableError(absl::StrCat(
      "the stream pushing tensors of step ", step_id_, " to task ", canonical,
      " ended, and the step kept no copy of some of them (it had pushed more "
      "than ", kMaxKeptPushBytes, " bytes)")));
}

size_t RemoteRendezvous::NumHeldPushes() const {
  absl::MutexLock lock(&fetches_->mu);
  size_t n = 0;
  for (const auto& [key, entry] : fetches_->inbox) {
    if (entry.kind != Fetches::InboxEntry::Kind::kWaiter) ++n;
  }
  return n;
}

void RemoteRendezvous::StartAbort(const absl::Status& status) {
  absl::Status abort_status =
      status.ok() ? absl::InternalError("rendezvous aborted with OK status")
                  : status;
  absl::flat_hash_map<int64_t, std::shared_ptr<Pending>> in_flight;
  absl::flat_hash_map<std::string, Fetches::InboxEntry> inbox;
  {
    absl::MutexLock lock(&fetches_->mu);
    if (!fetches_->abort_status.ok()) return;  // the first abort sticks
    fetches_->abort_status = abort_status;
    in_flight.swap(fetches_->in_flight);
    // Pushed tensors go; the receives waiting there are in in_flight.
    inbox.swap(fetches_->inbox);
  }
  inbox.clear();
  local_.StartAbort(abort_status);
  for (auto& [id, pending] : in_flight) {
    fetches_->Finish(pending, abort_status, Tensor(), false,
                     /*cancel_fetch=*/true);
  }
}

}  // namespace dfx
