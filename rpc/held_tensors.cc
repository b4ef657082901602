#include "rpc/held_tensors.h"

#include <algorithm>
#include <vector>

#include "absl/strings/str_cat.h"
#include "base/log.h"
#include "base/logging.h"
#include "graph/types.h"

namespace dfx {
namespace {

// How often the table is swept for expired entries, at most.
constexpr absl::Duration kSweepInterval = absl::Seconds(10);

}  // namespace

HeldTensors::HeldTensors(Options options) : options_(std::move(options)) {}

uint64_t HeldTensors::Hold(int64_t step_id, std::string key, Tensor tensor,
                           uint64_t served_prefix,
                           std::function<void()> on_served) {
  DFX_CHECK(tensor.IsInitialized() && DataTypeCanMemcpy(tensor.dtype()));
  absl::MutexLock lock(&mu_);
  const absl::Time now = absl::Now();
  if (now >= next_sweep_) SweepLocked(now);
  uint64_t handle = 0;
  while (handle == 0 || entries_.contains(handle)) {
    handle = absl::Uniform<uint64_t>(random_) >> 1;
  }
  Entry& entry = entries_[handle];
  entry.step_id = step_id;
  entry.key = std::move(key);
  entry.total = tensor.TotalBytes();
  entry.tensor = std::move(tensor);
  entry.expires = now + options_.ttl;
  entry.on_served = std::move(on_served);
  if (served_prefix > 0) {
    entry.served = std::min(served_prefix, entry.total);
    entry.ranges.insert({0, entry.served});
  }
  return handle;
}

absl::StatusOr<Tensor> HeldTensors::Lookup(uint64_t handle, uint64_t offset,
                                           uint64_t length,
                                           std::optional<int64_t> step_id) {
  Tensor expired;  // freed outside the lock
  absl::MutexLock lock(&mu_);
  const absl::Time now = absl::Now();
  if (now >= next_sweep_) SweepLocked(now);
  auto it = entries_.find(handle);
  if (it != entries_.end() && it->second.expires <= now) {
    expired = std::move(it->second.tensor);
    entries_.erase(it);
    it = entries_.end();
  }
  if (it == entries_.end() ||
      (step_id.has_value() && it->second.step_id != *step_id)) {
    return absl::NotFoundError(absl::StrCat(
        "no tensor is held under handle ", handle,
        step_id.has_value() ? absl::StrCat(" for step ", *step_id) : "",
        " (every byte was served, its step was cleaned up, or it was not "
        "asked for within ",
        absl::FormatDuration(options_.ttl), ")"));
  }
  Entry& entry = it->second;
  if (offset > entry.total || length > entry.total - offset) {
    return absl::OutOfRangeError(absl::StrCat(
        "bytes [", offset, ", ", offset, " + ", length,
        ") are not inside the ", entry.total, " bytes of '", entry.key,
        "' (handle ", handle, ")"));
  }
  entry.expires = now + options_.ttl;
  return entry.tensor;
}

void HeldTensors::MarkServed(uint64_t handle, uint64_t offset,
                             uint64_t length) {
  if (length == 0) return;
  Tensor done;  // freed outside the lock
  std::function<void()> on_served;
  {
    absl::MutexLock lock(&mu_);
    auto it = entries_.find(handle);
    if (it == entries_.end()) return;
    Entry& entry = it->second;
    if (!entry.ranges.insert({offset, length}).second) return;
    entry.served += length;
    if (entry.served < entry.total) return;
    done = std::move(entry.tensor);
    on_served = std::move(entry.on_served);
    entries_.erase(it);
  }
  if (on_served) on_served();
}

void HeldTensors::SweepLocked(absl::Time now) {
  next_sweep_ = now + kSweepInterval;
  absl::erase_if(entries_, [&](const auto& item) {
    if (item.second.expires > now) return false;
    spdlog::warn("'{}' of step {} was held for a peer that did not fetch it "
                 "within {}; dropped",
                 item.second.key, item.second.step_id,
                 absl::FormatDuration(options_.ttl));
    return true;
  });
}

void HeldTensors::Release(uint64_t handle) {
  Tensor released;
  absl::MutexLock lock(&mu_);
  auto it = entries_.find(handle);
  if (it == entries_.end()) return;
  released = std::move(it->second.tensor);
  entries_.erase(it);
}

void HeldTensors::ReleaseStep(int64_t step_id) {
  std::vector<Tensor> released;
  absl::MutexLock lock(&mu_);
  absl::erase_if(entries_, [&](auto& item) {
    if (item.second.step_id != step_id) return false;
    released.push_back(std::move(item.second.tensor));
    return true;
  });
}

void HeldTensors::ReleaseAll() {
  absl::flat_hash_map<uint64_t, Entry> released;
  absl::MutexLock lock(&mu_);
  released.swap(entries_);
}

int64_t HeldTensors::size() const {
  absl::MutexLock lock(&mu_);
  return static_cast<int64_t>(entries_.size());
}

}  // namespace dfx
