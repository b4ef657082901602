#include "runtime/recent_request_ids.h"

#include <algorithm>

#include "absl/random/random.h"
#include "absl/strings/str_cat.h"

namespace dfx {

RecentRequestIds::RecentRequestIds(int capacity)
    : ring_(static_cast<size_t>(std::max(1, capacity)), 0) {
  ids_.reserve(ring_.size());
}

absl::Status RecentRequestIds::TrackUnique(int64_t request_id,
                                           absl::string_view method) {
  if (request_id == 0) return absl::OkStatus();
  absl::MutexLock lock(&mu_);
  if (!ids_.insert(request_id).second) {
    return absl::AbortedError(absl::StrCat(
        "the same ", method, " request (request_id ", request_id,
        ") was received twice; it runs once. A retried request needs a new "
        "request_id"));
  }
  if (ring_[next_] != 0) ids_.erase(ring_[next_]);
  ring_[next_] = request_id;
  next_ = (next_ + 1) % ring_.size();
  return absl::OkStatus();
}

int64_t NewRequestId() {
  thread_local absl::BitGen gen;
  int64_t id = 0;
  // Positive, as TensorFlow's ids are.
  while (id == 0) id = static_cast<int64_t>(absl::Uniform<uint64_t>(gen) >> 1);
  return id;
}

}  // namespace dfx
