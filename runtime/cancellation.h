// CancellationManager: a step's cancellation flag and the callbacks that run
// once when it is raised.
#ifndef DFX_RUNTIME_CANCELLATION_H_
#define DFX_RUNTIME_CANCELLATION_H_

#include <cstdint>
#include <functional>
#include <map>
#include <thread>

#include "absl/synchronization/mutex.h"

namespace dfx {

using CancellationToken = int64_t;
using CancelCallback = std::function<void()>;

// Thread-safe. Typical use by something that waits:
//   token = cm->get_cancellation_token();
//   if (!cm->RegisterCallback(token, [..] { wake up, fail with Cancelled })) {
//     already cancelled: fail now
//   }
//   ... on completion: cm->DeregisterCallback(token);
class CancellationManager {
 public:
  CancellationManager() = default;
  CancellationManager(const CancellationManager&) = delete;
  CancellationManager& operator=(const CancellationManager&) = delete;
  // REQUIRES: no StartCancel in progress on another thread.
  ~CancellationManager();

  // Marks the manager cancelled and runs every registered callback once, on
  // the calling thread, in registration order, without holding a lock (a
  // callback may register, deregister or call StartCancel again). Only the
  // first call does anything; later calls return at once.
  void StartCancel();

  // True once StartCancel has been called (its callbacks may still be
  // running).
  bool IsCancelled() const;

  // A fresh token for RegisterCallback.
  CancellationToken get_cancellation_token();

  // Registers `callback` to run on StartCancel. Returns false, without
  // registering, when the manager is already cancelled.
  bool RegisterCallback(CancellationToken token, CancelCallback callback);

  // Removes the callback of `token`. Returns true when it was removed before
  // running: it will never run. Returns false when it has already run, is
  // running, or was never registered; when it may be running on another
  // thread this call first waits until StartCancel has finished running
  // callbacks, so that afterwards no callback of this manager is running
  // (except on the calling thread's own stack, when called from inside a
  // callback, in which case it returns at once).
  bool DeregisterCallback(CancellationToken token);

  // Like DeregisterCallback but never waits.
  bool TryDeregisterCallback(CancellationToken token);

 private:
  mutable absl::Mutex mu_;
  bool cancelled_ ABSL_GUARDED_BY(mu_) = false;
  bool cancel_done_ ABSL_GUARDED_BY(mu_) = false;
  std::thread::id cancelling_thread_ ABSL_GUARDED_BY(mu_);
  CancellationToken next_token_ ABSL_GUARDED_BY(mu_) = 0;
  std::map<CancellationToken, CancelCallback> callbacks_ ABSL_GUARDED_BY(mu_);
};

}  // namespace dfx

#endif  // DFX_RUNTIME_CANCELLATION_H_
