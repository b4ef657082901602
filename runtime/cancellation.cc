#include "runtime/cancellation.h"

#include <utility>

namespace dfx {

CancellationManager::~CancellationManager() = default;

void CancellationManager::StartCancel() {
  absl::MutexLock lock(&mu_);
  if (cancelled_) return;
  cancelled_ = true;
  cancelling_thread_ = std::this_thread::get_id();
  // One callback at a time, taken out of the map under the lock: a callback
  // deregistered (by another callback) before its turn never runs.
  while (!callbacks_.empty()) {
    auto it = callbacks_.begin();
    CancelCallback callback = std::move(it->second);
    callbacks_.erase(it);
    mu_.Unlock();
    callback();
    callback = nullptr;  // its captures die outside the lock too
    mu_.Lock();
  }
  cancel_done_ = true;
}

bool CancellationManager::IsCancelled() const {
  absl::MutexLock lock(&mu_);
  return cancelled_;
}

CancellationToken CancellationManager::get_cancellation_token() {
  absl::MutexLock lock(&mu_);
  return next_token_++;
}

bool CancellationManager::RegisterCallback(CancellationToken token,
                                           CancelCallback callback) {
  absl::MutexLock lock(&mu_);
  if (cancelled_) return false;
  callbacks_.emplace(token, std::move(callback));
  return true;
}

bool CancellationManager::DeregisterCallback(CancellationToken token) {
  CancelCallback removed;  // destroyed after the lock is released
  absl::MutexLock lock(&mu_);
  auto it = callbacks_.find(token);
  if (it != callbacks_.end()) {
    removed = std::move(it->second);
    callbacks_.erase(it);
    return true;
  }
  if (cancelled_ && !cancel_done_ &&
      cancelling_thread_ != std::this_thread::get_id()) {
    mu_.Await(absl::Condition(&cancel_done_));
  }
  return false;
}

bool CancellationManager::TryDeregisterCallback(CancellationToken token) {
  CancelCallback removed;
  absl::MutexLock lock(&mu_);
  auto it = callbacks_.find(token);
  if (it == callbacks_.end()) return false;
  removed = std::move(it->second);
  callbacks_.erase(it);
  return true;
}

}  // namespace dfx
