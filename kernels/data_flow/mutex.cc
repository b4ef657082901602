#include "kernels/data_flow/mutex.h"

#include <utility>

#include "absl/strings/str_cat.h"

namespace dfx::data_flow {

std::string Mutex::DebugString() const {
  absl::MutexLock lock(&mu_);
  return absl::StrCat("Mutex ", name_, locked_ ? " (locked, " : " (free, ",
                      waits_.size(), " waiting)");
}

bool Mutex::IsLocked() const {
  absl::MutexLock lock(&mu_);
  return locked_;
}

void Mutex::Lock(CancellationManager* cm,
                 std::function<void(absl::Status, Variant)> done) {
  std::shared_ptr<Mutex> self =
      std::static_pointer_cast<Mutex>(shared_from_this());
  // One lane: requests get the mutex in arrival order. The try runs under
  // mu_ (WaitList's contract).
  StartWait(
      /*lane=*/0,
      [this](absl::Status* status) ABSL_NO_THREAD_SAFETY_ANALYSIS {
        if (locked_) return false;
        locked_ = true;
        *status = absl::OkStatus();
        return true;
      },
      [self = std::move(self), done = std::move(done)](absl::Status status) {
        if (!status.ok()) {
          done(std::move(status), Variant());
          return;
        }
        done(absl::OkStatus(), Variant::Make<MutexLockValue>(self));
      },
      cm, /*timeout_ms=*/-1, "Lock acquisition");
}

void Mutex::Unlock() {
  auto finished = std::make_shared<WaitList::FinishedList>();
  {
    absl::MutexLock lock(&mu_);
    locked_ = false;
    waits_.FlushLocked(finished.get());
  }
  if (finished->empty()) return;
  // The release runs wherever the last tensor holding the lock is dropped,
  // perhaps inside an executor's bookkeeping; the next holder's kernel
  // finishes elsewhere.
  if (pool_ == nullptr) {
    WaitList::Finish(std::move(*finished));
    return;
  }
  pool_->Schedule([finished] { WaitList::Finish(std::move(*finished)); });
}

std::string MutexLockValue::DebugString() const {
  return absl::StrCat("SharedPtrVariant(lock of ", mutex_->name_, ")");
}

}  // namespace dfx::data_flow
