// CompletionPoller: one thread that watches work in flight on a device
// (each piece by a "done yet?" query: a GPU's cudaEventQuery) and hands
// each finished piece's callback to a thread pool, so that the thread
// that enqueued the work never waits for it. No CUDA here: the tests run
// it on every machine with fake queries.
#ifndef DFX_GPU_COMPLETION_POLLER_H_
#define DFX_GPU_COMPLETION_POLLER_H_

#include <string>
#include <thread>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/functional/any_invocable.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "runtime/thread_pool.h"

namespace dfx::gpu {

// Thread-safe.
class CompletionPoller {
 public:
  // True once the work is done; an error when it failed.
  using Query = absl::AnyInvocable<absl::StatusOr<bool>()>;
  using Callback = absl::AnyInvocable<void(absl::Status)>;

  // `name` names the poller in messages; `callbacks` runs the callbacks
  // and must outlive the poller; `timeout` bounds every watch.
  CompletionPoller(std::string name, ThreadPool* callbacks,
                   absl::Duration timeout);
  // Waits until every watched piece has finished, failed or timed out and
  // its callback has been handed to the pool.
  ~CompletionPoller();
  CompletionPoller(const CompletionPoller&) = delete;
  CompletionPoller& operator=(const CompletionPoller&) = delete;

  // Hands `done` to the pool once `query` answers true (OK), with the
  // query's error, or with DeadlineExceeded naming `what` once `timeout`
  // has passed without. `query` runs on the poller's thread only, and is
  // destroyed there (so it may own what the work needs: an event) before
  // `done` is scheduled; `done` runs exactly once, never on the caller's
  // thread.
  void Watch(Query query, std::string what, Callback done);

  // Polls between checks: yield for kSpinFor after the last completion
  // (short copies end sooner than a sleep's timer slack), then wait 10 to
  // 100 µs, waking at once for a new watch.
  static constexpr absl::Duration kSpinFor = absl::Microseconds(500);

 private:
  struct Watched {
    Query query;
    std::string what;
    Callback done;
    absl::Time deadline;
  };

  void Loop();
  // Schedules `w.done(status)` on the pool.
  void Finish(Watched w, absl::Status status);

  const std::string name_;
  ThreadPool* const callbacks_;
  const absl::Duration timeout_;
  absl::Mutex mu_;
  std::vector<Watched> incoming_ ABSL_GUARDED_BY(mu_);
  bool stop_ ABSL_GUARDED_BY(mu_) = false;
  std::thread thread_;
};

}  // namespace dfx::gpu

#endif  // DFX_GPU_COMPLETION_POLLER_H_
