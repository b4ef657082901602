// RendezvousMgr: one rendezvous per step id, created on first use and
// removed (and aborted) when the step is cleaned up.
#ifndef DFX_RENDEZVOUS_RENDEZVOUS_MGR_H_
#define DFX_RENDEZVOUS_RENDEZVOUS_MGR_H_

#include <cstdint>
#include <functional>
#include <memory>

#include <deque>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "runtime/rendezvous.h"

namespace dfx {

// Thread-safe.
class RendezvousMgr {
 public:
  // Makes the rendezvous of a new step; defaults to a LocalRendezvous.
  using Factory = std::function<std::shared_ptr<Rendezvous>(int64_t step_id)>;

  RendezvousMgr();
  explicit RendezvousMgr(Factory factory);
  // Aborts every remaining step's rendezvous.
  ~RendezvousMgr();

  // The step's rendezvous, created on first use. Every executor of the step
  // on this process shares it.
  std::shared_ptr<Rendezvous> Find(int64_t step_id);

  // For a tensor another task pushed to this one: Find, unless the step was
  // cleaned up here lately (one of the last kRememberedCleanups), when the
  // push came after the step ended: null then. A step a push creates
  // before its RunGraph comes waits as any other, and goes with its
  // CleanupGraph or CleanupIdle.
  std::shared_ptr<Rendezvous> FindForPush(int64_t step_id);
  // The step's rendezvous when it exists; never creates one.
  std::shared_ptr<Rendezvous> FindIfLive(int64_t step_id) const;
  static constexpr size_t kRememberedCleanups = 4096;

  // Aborts the step's rendezvous with Cancelled (pending receives fail,
  // nothing waits forever) and forgets it. Holders of the shared_ptr keep a
  // valid, aborted object. Unknown step ids are ignored.
  void Cleanup(int64_t step_id);
  void CleanupAll();
  // Cleans up (as Cleanup) every step that nothing outside this table holds
  // (no executor of the step runs here, no receive waits) and that nobody
  // has found for `idle`: a step whose CleanupGraph never came because its
  // master died. Returns how many went.
  size_t CleanupIdle(absl::Duration idle);

  // Steps with a live rendezvous.
  size_t NumSteps() const;

 private:
  const Factory factory_;
  struct Slot {
    std::shared_ptr<Rendezvous> rendezvous;
    absl::Time last_found;
  };
  void RememberCleanupLocked(int64_t step_id) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  mutable absl::Mutex mu_;
  absl::flat_hash_map<int64_t, Slot> table_ ABSL_GUARDED_BY(mu_);
  // The steps cleaned up last, oldest first, and the same as a set.
  std::deque<int64_t> cleaned_order_ ABSL_GUARDED_BY(mu_);
  absl::flat_hash_set<int64_t> cleaned_ ABSL_GUARDED_BY(mu_);
};

}  // namespace dfx

#endif  // DFX_RENDEZVOUS_RENDEZVOUS_MGR_H_
