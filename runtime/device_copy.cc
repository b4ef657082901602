#include "runtime/device_copy.h"

#include <atomic>
#include <memory>
#include <utility>

#include "absl/status/status.h"
#include "runtime/cancellation.h"
#include "runtime/device.h"

namespace dfx {
namespace {

// Whichever of the copy and the cancellation comes first calls `done`;
// the other does nothing. The copy's callback may outlive the step (and
// its cancellation manager): it touches the manager only when it won.
struct RacingDone {
  std::atomic<bool> finished{false};
  CopyDoneCallback done;
  CancellationManager* cancellation = nullptr;
  CancellationToken token = -1;
};

// Starts `start` with a callback that races `cancellation`.
template <typename Start>
void StartCancellable(CancellationManager* cancellation, CopyDoneCallback done,
                      Start&& start) {
  if (cancellation == nullptr) {
    start(std::move(done));
    return;
  }
  auto race = std::make_shared<RacingDone>();
  race->done = std::move(done);
  race->cancellation = cancellation;
  race->token = cancellation->get_cancellation_token();
  const bool registered = cancellation->RegisterCallback(race->token, [race] {
    if (race->finished.exchange(true, std::memory_order_acq_rel)) return;
    std::move(race->done)(
        absl::CancelledError("step was cancelled during a copy"));
  });
  if (!registered) {
    std::move(race->done)(
        absl::CancelledError("step was cancelled before a copy"));
    return;
  }
  start([race](absl::StatusOr<Tensor> result) {
    if (race->finished.exchange(true, std::memory_order_acq_rel)) return;
    // Never waits: the cancellation callback, should it be running now,
    // finds `finished` set and returns.
    race->cancellation->TryDeregisterCallback(race->token);
    std::move(race->done)(std::move(result));
  });
}

}  // namespace

AsyncCopyDevice* AsAsyncCopyDevice(Device* device) {
  return dynamic_cast<AsyncCopyDevice*>(device);
}

void CopyToHostAsync(Device* device, const Tensor& t,
                     CancellationManager* cancellation, CopyDoneCallback done) {
  StartCancellable(cancellation, std::move(done),
                   [device, &t](CopyDoneCallback copied) {
                     if (AsyncCopyDevice* async = AsAsyncCopyDevice(device)) {
                       async->CopyToHostAsync(t, std::move(copied));
                     } else {
                       copied(device->CopyToHost(t));
                     }
                   });
}

void CopyFromHostAsync(Device* device, const Tensor& t,
                       const CopySource& source,
                       CancellationManager* cancellation,
                       CopyDoneCallback done) {
  StartCancellable(cancellation, std::move(done),
                   [device, &t, &source](CopyDoneCallback copied) {
                     if (AsyncCopyDevice* async = AsAsyncCopyDevice(device)) {
                       async->CopyFromHostAsync(t, source, std::move(copied));
                     } else {
                       copied(device->CopyFromHost(t));
                     }
                   });
}

}  // namespace dfx
