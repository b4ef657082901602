// SleepUnlessCancelled: a wait of a fixed length that a step's
// cancellation cuts short (a backoff between retries, a poll interval),
// for the kernels that wait on the calling thread as TensorFlow's do.
#ifndef DFX_RUNTIME_CANCELLABLE_SLEEP_H_
#define DFX_RUNTIME_CANCELLABLE_SLEEP_H_

#include "absl/synchronization/notification.h"
#include "absl/time/time.h"
#include "runtime/cancellation.h"

namespace dfx {

// Waits `d`, or less when `cm` is cancelled (a null `cm`: the whole of
// `d`). False when `cm` is cancelled, before or during the wait.
inline bool SleepUnlessCancelled(CancellationManager* cm, absl::Duration d) {
  if (cm == nullptr) {
    absl::SleepFor(d);
    return true;
  }
  absl::Notification woken;
  const CancellationToken token = cm->get_cancellation_token();
  if (!cm->RegisterCallback(token, [&woken] { woken.Notify(); })) return false;
  woken.WaitForNotificationWithTimeout(d);
  cm->DeregisterCallback(token);
  return !cm->IsCancelled();
}

}  // namespace dfx

#endif  // DFX_RUNTIME_CANCELLABLE_SLEEP_H_
