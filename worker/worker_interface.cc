#include "worker/worker_interface.h"

namespace dfx {

void CallOptions::SetCancelCallback(std::function<void()> cancel) {
  bool run_now = false;
  {
    absl::MutexLock lock(&mu_);
    if (cancelled_) {
      run_now = true;
    } else {
      cancel_ = std::move(cancel);
    }
  }
  if (run_now && cancel) cancel();
}

void CallOptions::ClearCancelCallback() {
  absl::MutexLock lock(&mu_);
  cancel_ = nullptr;
}

void CallOptions::StartCancel() {
  std::function<void()> cancel;
  {
    absl::MutexLock lock(&mu_);
    if (cancelled_) return;
    cancelled_ = true;
    cancel = std::move(cancel_);
    cancel_ = nullptr;
  }
  if (cancel) cancel();
}

}  // namespace dfx
