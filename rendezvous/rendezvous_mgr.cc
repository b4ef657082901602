#include "rendezvous/rendezvous_mgr.h"

#include <vector>

#include "absl/strings/str_cat.h"
#include "rendezvous/local_rendezvous.h"

namespace dfx {

RendezvousMgr::RendezvousMgr()
    : RendezvousMgr([](int64_t) { return std::make_shared<LocalRendezvous>(); }) {}

RendezvousMgr::RendezvousMgr(Factory factory) : factory_(std::move(factory)) {}

RendezvousMgr::~RendezvousMgr() { CleanupAll(); }

std::shared_ptr<Rendezvous> RendezvousMgr::Find(int64_t step_id) {
  absl::MutexLock lock(&mu_);
  std::shared_ptr<Rendezvous>& r = table_[step_id];
  if (r == nullptr) r = factory_(step_id);
  return r;
}

void RendezvousMgr::Cleanup(int64_t step_id) {
  std::shared_ptr<Rendezvous> r;
  {
    absl::MutexLock lock(&mu_);
    auto it = table_.find(step_id);
    if (it == table_.end()) return;
    r = std::move(it->second);
    table_.erase(it);
  }
  r->StartAbort(
      absl::CancelledError(absl::StrCat("step ", step_id, " cleaned up")));
}

void RendezvousMgr::CleanupAll() {
  absl::flat_hash_map<int64_t, std::shared_ptr<Rendezvous>> table;
  {
    absl::MutexLock lock(&mu_);
    table.swap(table_);
  }
  for (auto& [step_id, r] : table) {
    r->StartAbort(
        absl::CancelledError(absl::StrCat("step ", step_id, " cleaned up")));
  }
}

size_t RendezvousMgr::NumSteps() const {
  absl::MutexLock lock(&mu_);
  return table_.size();
}

}  // namespace dfx
