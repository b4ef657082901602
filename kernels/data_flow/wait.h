// Waits of the data-flow resources (queues, staging areas, barriers): an
// operation that cannot go on yet holds no thread; it is stored with its
// completion callback and ends when a change to the resource lets it go
// on, when its step is cancelled (Cancelled) or after its timeout
// (DeadlineExceeded).
//
// ArmWait and DisarmWait arm and disarm the last two for one waiting
// operation; WaitList keeps a resource's waiting operations and retries
// them when the resource changes. Callbacks run without the resource's
// lock held: on the thread that changed the resource, the cancelling
// thread, or the process-wide timer's thread.
#ifndef DFX_KERNELS_DATA_FLOW_WAIT_H_
#define DFX_KERNELS_DATA_FLOW_WAIT_H_

#include <cstdint>
#include <functional>
#include <list>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/synchronization/mutex.h"
#include "runtime/cancellation.h"
#include "runtime/resource_mgr.h"

namespace dfx::data_flow {

// What ends a waiting operation besides the change it waits for.
struct WaitEnds {
  CancellationManager* cm = nullptr;
  CancellationToken token = -1;
  // A Timer::Id of the process-wide timer of timeouts; 0 when none.
  uint64_t timer = 0;
};

// Arms `ends` for an operation that waits: `abort` runs with Cancelled
// ("<what> was cancelled") when `cm` (may be null) is cancelled, and with
// DeadlineExceeded ("<what> timed out after <timeout_ms> ms") once
// timeout_ms has passed (timeout_ms < 0: never). `abort` must do nothing
// for an operation that is over already. Returns that Cancelled status,
// arming nothing, when `cm` is cancelled already; else OK. May be called
// with the resource's lock held (abort runs later, on another call).
absl::Status ArmWait(CancellationManager* cm, int64_t timeout_ms,
                     const std::string& what,
                     std::function<void(absl::Status)> abort, WaitEnds* ends);

// Disarms what ArmWait armed. Call once the operation is over, before its
// callback runs (after that its step and cancellation manager may be gone),
// without the resource's lock held.
void DisarmWait(WaitEnds* ends);

// The waiting operations of one resource, each with the function that
// tries it. Not thread-safe: every call but Finish runs under the
// resource's lock.
class WaitList {
 public:
  // Tries the operation under the resource's lock: true when it is over,
  // with its result in *status; false (having changed nothing) while it
  // must wait.
  using TryFn = std::function<bool(absl::Status*)>;
  // The operation's callback, run with its result.
  using DoneFn = std::function<void(absl::Status)>;
  // Ends waiting operation `id` with a status; the resource passes one that
  // takes its lock and calls AbortLocked, through a weak reference.
  using AbortFn = std::function<void(int64_t id, absl::Status)>;

  // Operations that are over, whose callbacks Finish runs.
  struct Finished {
    DoneFn done;
    absl::Status status;
    WaitEnds ends;
  };
  using FinishedList = std::vector<Finished>;

  // Adds an operation behind those waiting and tries the waiting ones.
  // Operations of the same `lane` (>= 0) go on in arrival order: one waits
  // while an earlier one of its lane waits; lane -1 waits for nobody. If
  // the new operation must wait, its step's cancellation and timeout_ms
  // end it (ArmWait; `what` names it in their messages).
  void StartLocked(int lane, TryFn try_fn, DoneFn done, CancellationManager* cm,
                   int64_t timeout_ms, const std::string& what,
                   const AbortFn& abort, FinishedList* finished);
  // Tries the waiting operations in order, again while any is over.
  void FlushLocked(FinishedList* finished);
  // Ends waiting operation `id` with `status`, then flushes; nothing when
  // it is over already.
  void AbortLocked(int64_t id, absl::Status status, FinishedList* finished);
  // Ends every waiting operation of `lane` with `status`.
  void AbortLaneLocked(int lane, const absl::Status& status,
                       FinishedList* finished);
  int64_t size() const { return static_cast<int64_t>(waiting_.size()); }

  // Disarms each finished operation and runs its callback. Call without
  // the resource's lock held.
  static void Finish(FinishedList finished);

 private:
  struct Waiter {
    int64_t id = 0;
    int lane = -1;
    TryFn try_fn;
    DoneFn done;
    WaitEnds ends;
  };

  int64_t next_id_ = 0;
  std::list<Waiter> waiting_;
};

// A resource whose operations wait in a WaitList under its mutex (staging
// areas and maps, barriers). REQUIRES: owned by a std::shared_ptr (the
// resource manager's), which a waiting operation's cancellation and timeout
// reach it through, weakly.
class WaitingResource : public ResourceBase,
                        public std::enable_shared_from_this<WaitingResource> {
 protected:
  // Starts an operation (WaitList::StartLocked) under mu_, then runs the
  // callbacks of the operations that are over.
  void StartWait(int lane, WaitList::TryFn try_fn, WaitList::DoneFn done,
                 CancellationManager* cm, int64_t timeout_ms,
                 const std::string& what);

  mutable absl::Mutex mu_;
  WaitList waits_ ABSL_GUARDED_BY(mu_);

 private:
  void Abort(int64_t id, absl::Status status);
};

}  // namespace dfx::data_flow

#endif  // DFX_KERNELS_DATA_FLOW_WAIT_H_
