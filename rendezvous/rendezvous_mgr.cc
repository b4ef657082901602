#include "rendezvous/rendezvous_mgr.h"

#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "rendezvous/local_rendezvous.h"

namespace dfx {

RendezvousMgr::RendezvousMgr()
    : RendezvousMgr([](int64_t) { return std::make_shared<LocalRendezvous>(); }) {}

RendezvousMgr::RendezvousMgr(Factory factory) : factory_(std::move(factory)) {}

RendezvousMgr::~RendezvousMgr() { CleanupAll(); }

std::shared_ptr<Rendezvous> RendezvousMgr::Find(int64_t step_id) {
  absl::MutexLock lock(&mu_);
  Slot& slot = table_[step_id];
  if (slot.rendezvous == nullptr) slot.rendezvous = factory_(step_id);
  slot.last_found = absl::Now();
  return slot.rendezvous;
}

std::shared_ptr<Rendezvous> RendezvousMgr::FindForPush(int64_t step_id) {
  absl::MutexLock lock(&mu_);
  if (cleaned_.contains(step_id)) return nullptr;
  Slot& slot = table_[step_id];
  if (slot.rendezvous == nullptr) slot.rendezvous = factory_(step_id);
  slot.last_found = absl::Now();
  return slot.rendezvous;
}

std::shared_ptr<Rendezvous> RendezvousMgr::FindIfLive(int64_t step_id) const {
  absl::MutexLock lock(&mu_);
  auto it = table_.find(step_id);
  if (it == table_.end()) return nullptr;
  return it->second.rendezvous;
}

void RendezvousMgr::RememberCleanupLocked(int64_t step_id) {
  if (!cleaned_.insert(step_id).second) return;
  cleaned_order_.push_back(step_id);
  if (cleaned_order_.size() > kRememberedCleanups) {
    cleaned_.erase(cleaned_order_.front());
    cleaned_order_.pop_front();
  }
}

void RendezvousMgr::Cleanup(int64_t step_id) {
  std::shared_ptr<Rendezvous> r;
  {
    absl::MutexLock lock(&mu_);
    RememberCleanupLocked(step_id);
    auto it = table_.find(step_id);
    if (it == table_.end()) return;
    r = std::move(it->second.rendezvous);
    table_.erase(it);
  }
  r->StartAbort(
      absl::CancelledError(absl::StrCat("step ", step_id, " cleaned up")));
}

void RendezvousMgr::CleanupAll() {
  absl::flat_hash_map<int64_t, Slot> table;
  {
    absl::MutexLock lock(&mu_);
    table.swap(table_);
  }
  for (auto& [step_id, slot] : table) {
    slot.rendezvous->StartAbort(
        absl::CancelledError(absl::StrCat("step ", step_id, " cleaned up")));
  }
}

size_t RendezvousMgr::CleanupIdle(absl::Duration idle) {
  std::vector<std::pair<int64_t, std::shared_ptr<Rendezvous>>> stale;
  {
    absl::MutexLock lock(&mu_);
    const absl::Time now = absl::Now();
    for (auto it = table_.begin(); it != table_.end();) {
      Slot& slot = it->second;
      if (slot.rendezvous.use_count() > 1 || now - slot.last_found < idle) {
        ++it;
        continue;
      }
      RememberCleanupLocked(it->first);
      stale.emplace_back(it->first, std::move(slot.rendezvous));
      table_.erase(it++);
    }
  }
  for (auto& [step_id, r] : stale) {
    r->StartAbort(absl::CancelledError(absl::StrCat(
        "step ", step_id, " cleaned up: nothing used it for ",
        absl::FormatDuration(idle))));
  }
  return stale.size();
}

size_t RendezvousMgr::NumSteps() const {
  absl::MutexLock lock(&mu_);
  return table_.size();
}

}  // namespace dfx
