#include "rendezvous/local_rendezvous.h"

#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "runtime/cancellation.h"

namespace dfx {

LocalRendezvous::~LocalRendezvous() {
  StartAbort(absl::CancelledError("rendezvous destroyed"));
}

absl::Status LocalRendezvous::status() const {
  absl::MutexLock lock(&status_mu_);
  return abort_status_;
}

absl::Status LocalRendezvous::Send(const ParsedKey& key, const Args& args,
                                   const Tensor& value, bool is_dead) {
  Shard& shard = ShardFor(key);
  DoneCallback waiter;
  CancellationManager* cm = nullptr;
  CancellationToken token = -1;
  {
    absl::MutexLock lock(&shard.mu);
    if (aborted_.load(std::memory_order_acquire)) return status();
    auto it = shard.items.find(key.FullKey());
    if (it == shard.items.end()) {
      Item& item = shard.items[key.FullKey()];
      item.has_value = true;
      item.value = value;
      item.is_dead = is_dead;
      return absl::OkStatus();
    }
    if (it->second.has_value) {
      return absl::InvalidArgumentError(absl::StrCat(
          "tensor '", key.FullKey(), "' was sent twice in one step"));
    }
    waiter = std::move(it->second.waiter);
    cm = it->second.cancellation_manager;
    token = it->second.cancellation_token;
    shard.items.erase(it);
  }
  if (cm != nullptr) cm->TryDeregisterCallback(token);
  waiter(absl::OkStatus(), value, is_dead);
  return absl::OkStatus();
}

void LocalRendezvous::RecvAsync(const ParsedKey& key, const Args& args,
                                DoneCallback done) {
  Shard& shard = ShardFor(key);
  Tensor value;
  bool is_dead = false;
  absl::Status error;
  {
    absl::MutexLock lock(&shard.mu);
    if (aborted_.load(std::memory_order_acquire)) {
      error = status();
    } else {
      auto it = shard.items.find(key.FullKey());
      if (it != shard.items.end() && it->second.has_value) {
        value = std::move(it->second.value);
        is_dead = it->second.is_dead;
        shard.items.erase(it);
      } else if (it != shard.items.end()) {
        error = absl::InvalidArgumentError(absl::StrCat(
            "tensor '", key.FullKey(), "' has two pending receives"));
      } else {
        CancellationManager* cm = args.cancellation_manager;
        CancellationToken token = -1;
        if (cm != nullptr) {
          token = cm->get_cancellation_token();
          // Registering under the shard lock is safe: StartCancel runs
          // callbacks without the manager's lock, and CancelWaiter takes
          // only this shard's lock.
          if (!cm->RegisterCallback(token, [this, key, token] {
                CancelWaiter(key, token);
              })) {
            error = absl::CancelledError(absl::StrCat(
                "receive of '", key.FullKey(), "' cancelled"));
          }
        }
        if (error.ok()) {
          Item& item = shard.items[key.FullKey()];
          item.waiter = std::move(done);
          item.cancellation_manager = cm;
          item.cancellation_token = token;
          return;
        }
      }
    }
  }
  done(error, value, is_dead);
}

void LocalRendezvous::CancelWaiter(const ParsedKey& key,
                                   CancellationToken token) {
  Shard& shard = ShardFor(key);
  DoneCallback waiter;
  {
    absl::MutexLock lock(&shard.mu);
    auto it = shard.items.find(key.FullKey());
    if (it == shard.items.end() || it->second.has_value ||
        it->second.cancellation_token != token) {
      return;  // already matched or aborted
    }
    waiter = std::move(it->second.waiter);
    shard.items.erase(it);
  }
  waiter(absl::CancelledError(
             absl::StrCat("receive of '", key.FullKey(), "' cancelled")),
         Tensor(), false);
}

void LocalRendezvous::StartAbort(const absl::Status& status) {
  absl::Status abort_status =
      status.ok() ? absl::InternalError("rendezvous aborted with OK status")
                  : status;
  {
    absl::MutexLock lock(&status_mu_);
    if (!abort_status_.ok()) return;  // the first abort sticks
    abort_status_ = abort_status;
  }
  aborted_.store(true, std::memory_order_release);
  struct Pending {
    DoneCallback waiter;
    CancellationManager* cm;
    CancellationToken token;
  };
  std::vector<Pending> pending;
  for (Shard& shard : shards_) {
    absl::MutexLock lock(&shard.mu);
    for (auto& [key, item] : shard.items) {
      if (!item.has_value) {
        pending.push_back({std::move(item.waiter), item.cancellation_manager,
                           item.cancellation_token});
      }
    }
    shard.items.clear();
  }
  for (Pending& p : pending) {
    if (p.cm != nullptr) p.cm->TryDeregisterCallback(p.token);
    p.waiter(abort_status, Tensor(), false);
  }
}

}  // namespace dfx
