// RecentRequestIds: remembers the request_id of the last requests of one
// kind, so that a retried request (a client that sent it again after a lost
// answer, a proxy that replayed it) is recognised and does not run twice.
#ifndef DFX_RUNTIME_RECENT_REQUEST_IDS_H_
#define DFX_RUNTIME_RECENT_REQUEST_IDS_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_set.h"
#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "absl/synchronization/mutex.h"

namespace dfx {

// Thread-safe.
class RecentRequestIds {
 public:
  // Remembers the last `capacity` ids (at least 1).
  explicit RecentRequestIds(int capacity = 100000);

  // OK and remembers `request_id` the first time; Aborted naming `method`
  // and the id when it is among the remembered ones. Id 0 means the sender
  // gave none (TensorFlow's older clients): always OK, never remembered.
  absl::Status TrackUnique(int64_t request_id, absl::string_view method);

 private:
  absl::Mutex mu_;
  // A ring of the remembered ids, oldest at next_, and the same ids as a
  // set.
  std::vector<int64_t> ring_ ABSL_GUARDED_BY(mu_);
  size_t next_ ABSL_GUARDED_BY(mu_) = 0;
  absl::flat_hash_set<int64_t> ids_ ABSL_GUARDED_BY(mu_);
};

// A random non-zero id for a new request.
int64_t NewRequestId();

}  // namespace dfx

#endif  // DFX_RUNTIME_RECENT_REQUEST_IDS_H_
