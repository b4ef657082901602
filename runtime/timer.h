// Timer: runs callbacks at deadlines, on one thread of its own that starts
// with the first deadline and is joined by the destructor. Callbacks run
// on that thread without the timer's lock held and must be short: hand
// real work to a pool. The worker's step deadlines and session collection
// and the queues' timeout_ms use it.
#ifndef DFX_RUNTIME_TIMER_H_
#define DFX_RUNTIME_TIMER_H_

#include <cstdint>
#include <functional>
#include <map>
#include <thread>
#include <utility>

#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"

namespace dfx {

class Timer {
 public:
  using Id = uint64_t;

  Timer() = default;
  // Stop().
  ~Timer();
  Timer(const Timer&) = delete;
  Timer& operator=(const Timer&) = delete;

  // Runs `fn` once `delay` has passed unless Cancel(id) comes first. After
  // Stop, does nothing and returns 0 (a callback that reschedules itself
  // while the timer stops ends there).
  Id Schedule(absl::Duration delay, std::function<void()> fn);
  // Drops the callbacks that have not started, waits for the one running,
  // and joins the thread; later Schedule calls do nothing. Idempotent. Not
  // from a callback. For owners whose callbacks use the owner: stop the
  // timer first, while what the callbacks reach is still whole.
  void Stop();
  // Drops the callback if it has not started; one that runs concurrently
  // finishes on its own.
  void Cancel(Id id);

 private:
  void Loop();

  absl::Mutex mu_;
  absl::CondVar cv_;
  bool stop_ ABSL_GUARDED_BY(mu_) = false;
  // Until when the thread sleeps: InfinitePast while it is awake (it looks
  // at the queue again before it sleeps), InfiniteFuture for an empty queue.
  absl::Time wake_at_ ABSL_GUARDED_BY(mu_) = absl::InfinitePast();
  Id next_id_ ABSL_GUARDED_BY(mu_) = 0;
  std::map<std::pair<absl::Time, Id>, std::function<void()>> queue_
      ABSL_GUARDED_BY(mu_);
  std::map<Id, absl::Time> deadlines_ ABSL_GUARDED_BY(mu_);
  std::thread thread_ ABSL_GUARDED_BY(mu_);
};

}  // namespace dfx

#endif  // DFX_RUNTIME_TIMER_H_
