// StepCleanups: the CleanupGraph calls of a session's finished steps, held
// per worker so that they ride with that worker's next RunGraph
// (RunGraphRequest.cleanup_step_id, which dfx workers honour) instead of
// costing one RPC per worker per step. A step touching N tasks then costs N
// RunGraph calls, not 2N calls. What no RunGraph has taken within `delay`
// of being held goes out as CleanupGraph, so an idle session leaves no step
// state behind on its workers for longer than that.
#ifndef DFX_MASTER_STEP_CLEANUPS_H_
#define DFX_MASTER_STEP_CLEANUPS_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_map.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "runtime/timer.h"
#include "worker/worker_interface.h"

namespace dfx {

// Thread-safe.
class StepCleanups : public std::enable_shared_from_this<StepCleanups> {
 public:
  // Sends CleanupGraph(step_id) to `worker`. Called with this object's lock
  // held (so that Close orders every send before it returns): it starts
  // the call and must not call back into this object.
  using Send = std::function<void(WorkerInterface* worker, int64_t step_id)>;

  // More than this many held for one worker: the newest goes out at once.
  static constexpr size_t kMaxHeldPerWorker = 256;

  // `timer` must outlive the object.
  static std::shared_ptr<StepCleanups> Create(Timer* timer,
                                              absl::Duration delay, Send send);

  StepCleanups(const StepCleanups&) = delete;
  StepCleanups& operator=(const StepCleanups&) = delete;

  // Holds the cleanup of `step_id` for `worker`'s next RunGraph; sends it
  // at once after Close or when too many are held.
  void Hold(WorkerInterface* worker, int64_t step_id);
  // Takes what is held for `worker`, to send with a RunGraph.
  std::vector<int64_t> Take(WorkerInterface* worker);
  // Sends everything held; later Holds send at once. Idempotent.
  void Close();

  // How many cleanups are held (for tests).
  size_t NumHeld() const;

 private:
  StepCleanups(Timer* timer, absl::Duration delay, Send send);
  // The timer's: sends everything held.
  void Flush();
  void SendAllLocked() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  Timer* const timer_;
  const absl::Duration delay_;
  const Send send_;
  mutable absl::Mutex mu_;
  bool closed_ ABSL_GUARDED_BY(mu_) = false;
  bool flush_scheduled_ ABSL_GUARDED_BY(mu_) = false;
  size_t num_held_ ABSL_GUARDED_BY(mu_) = 0;
  absl::flat_hash_map<WorkerInterface*, std::vector<int64_t>> held_
      ABSL_GUARDED_BY(mu_);
};

}  // namespace dfx

#endif  // DFX_MASTER_STEP_CLEANUPS_H_
