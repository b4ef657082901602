#include "rpc/held_tensors.h"

#include <algorithm>
#include <optional>
#include <vector>

#include "absl/strings/str_cat.h"
#include "base/log.h"
#include "base/logging.h"
#include "base/status_macros.h"
#include "graph/types.h"
#include "runtime/device.h"
#include "runtime/device_range_copy.h"

namespace dfx {
namespace {

// How often the table is swept for expired entries, at most.
constexpr absl::Duration kSweepInterval = absl::Seconds(10);

}  // namespace

// The staging of one device tensor. Reads may come on several threads at
// once (the chunk calls of one receiver); each gets a buffer of its own,
// and one read-ahead is kept: the range after the furthest one asked for,
// which the next sequential Read takes instead of starting a copy.
class HeldTensors::Stager {
 public:
  Stager(std::string key, Tensor tensor, Device* device)
      : key_(std::move(key)),
        tensor_(std::move(tensor)),
        total_(tensor_.TotalBytes()),
        device_(device),
        copier_(dynamic_cast<DeviceRangeCopier*>(device)) {}

  absl::StatusOr<HostBytes> Read(uint64_t offset, uint64_t length) {
    if (length == 0) return HostBytes{tensor_, 0, 0};  // never read
    if (copier_ == nullptr) return ReadWhole(offset, length);
    Staged mine;
    std::optional<Staged> passed;  // a read-ahead nobody will ask for
    {
      absl::MutexLock lock(&mu_);
      if (ahead_.has_value() && ahead_->offset == offset &&
          ahead_->length == length) {
        mine = *std::move(ahead_);
        ahead_.reset();
      } else {
        if (ahead_.has_value() && ahead_->offset < offset) {
          passed = std::move(ahead_);
          ahead_.reset();
        }
        mine = Start(offset, length);
      }
      max_end_ = std::max(max_end_, offset + length);
      // Started after `mine`, so it lands after it (the copies of one
      // device go in order): the device copies it while the caller sends.
      if (!ahead_.has_value() && mine.started.ok() && max_end_ < total_) {
        ahead_ = Start(max_end_, std::min(length, total_ - max_end_));
      }
    }
    passed.reset();  // waits for its copy, outside the lock
    absl::Status s = mine.started.ok() ? mine.copy->Wait() : mine.started;
    if (!s.ok()) return Named(s, offset, length);
    return HostBytes{std::move(mine.buffer), 0, length};
  }

 private:
  struct Staged {
    uint64_t offset = 0;
    uint64_t length = 0;
    Tensor buffer;
    // After `buffer`, so destroyed first: a copy not waited for lands
    // before its buffer goes.
    std::unique_ptr<DeviceRangeCopier::Pending> copy;
    absl::Status started;
  };

  // A staging buffer from the device's host allocator (pinned on a GPU;
  // pageable memory when that is full) and the copy into it, started.
  Staged Start(uint64_t offset, uint64_t length) {
    Staged staged;
    staged.offset = offset;
    staged.length = length;
    const TensorShape shape({static_cast<int64_t>(length)});
    absl::StatusOr<Tensor> buffer =
        Tensor::Allocate(device_->GetHostAllocator(), DT_INT8, shape);
    if (!buffer.ok()) buffer = Tensor::Allocate(CpuAllocator(), DT_INT8, shape);
    if (!buffer.ok()) {
      staged.started = buffer.status();
      return staged;
    }
    staged.buffer = *std::move(buffer);
    absl::StatusOr<std::unique_ptr<DeviceRangeCopier::Pending>> copy =
        copier_->StartCopyRangeToHost(tensor_, offset, length,
                                      staged.buffer.raw_data());
    if (copy.ok()) {
      staged.copy = *std::move(copy);
    } else {
      staged.started = copy.status();
    }
    return staged;
  }

  // A device that copies only whole tensors: once, at the first Read.
  absl::StatusOr<HostBytes> ReadWhole(uint64_t offset, uint64_t length) {
    absl::MutexLock lock(&mu_);
    if (!whole_.has_value()) whole_ = device_->CopyToHost(tensor_);
    if (!whole_->ok()) return Named(whole_->status(), 0, total_);
    return HostBytes{**whole_, offset, length};
  }

  absl::Status Named(const absl::Status& s, uint64_t offset,
                     uint64_t length) const {
    return absl::Status(
        s.code(), absl::StrCat("copying bytes [", offset, ", ", offset + length,
                               ") of '", key_, "' from ", device_->name(),
                               " to the host: ", s.message()));
  }

  const std::string key_;
  const Tensor tensor_;
  const uint64_t total_;
  Device* const device_;
  DeviceRangeCopier* const copier_;  // null: whole copies

  absl::Mutex mu_;
  std::optional<Staged> ahead_ ABSL_GUARDED_BY(mu_);
  uint64_t max_end_ ABSL_GUARDED_BY(mu_) = 0;
  std::optional<absl::StatusOr<Tensor>> whole_ ABSL_GUARDED_BY(mu_);
};

HeldTensors::HeldTensors(Options options) : options_(std::move(options)) {}

uint64_t HeldTensors::Hold(int64_t step_id, std::string key, Tensor tensor,
                           uint64_t served_prefix,
                           std::function<void()> on_served, Device* device) {
  DFX_CHECK(tensor.IsInitialized() && DataTypeCanMemcpy(tensor.dtype()));
  std::vector<Entry> dropped;  // freed outside the lock
  absl::MutexLock lock(&mu_);
  const absl::Time now = absl::Now();
  if (now >= next_sweep_) SweepLocked(now, &dropped);
  uint64_t handle = 0;
  while (handle == 0 || entries_.contains(handle)) {
    handle = absl::Uniform<uint64_t>(random_) >> 1;
  }
  Entry& entry = entries_[handle];
  entry.step_id = step_id;
  entry.key = std::move(key);
  entry.total = tensor.TotalBytes();
  if (device != nullptr && !tensor.OnHost()) {
    entry.stager = std::make_shared<Stager>(entry.key, tensor, device);
  }
  entry.tensor = std::move(tensor);
  entry.expires = now + options_.ttl;
  entry.on_served = std::move(on_served);
  if (served_prefix > 0) {
    entry.served = std::min(served_prefix, entry.total);
    entry.ranges.insert({0, entry.served});
  }
  return handle;
}

absl::StatusOr<HeldTensors::Entry*> HeldTensors::FindLocked(
    uint64_t handle, uint64_t offset, uint64_t length,
    std::optional<int64_t> step_id, std::vector<Entry>* dropped) {
  const absl::Time now = absl::Now();
  if (now >= next_sweep_) SweepLocked(now, dropped);
  auto it = entries_.find(handle);
  if (it != entries_.end() && it->second.expires <= now) {
    dropped->push_back(std::move(it->second));
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
  return &entry;
}

absl::StatusOr<Tensor> HeldTensors::Lookup(uint64_t handle, uint64_t offset,
                                           uint64_t length,
                                           std::optional<int64_t> step_id) {
  std::vector<Entry> dropped;  // freed outside the lock
  absl::MutexLock lock(&mu_);
  DFX_ASSIGN_OR_RETURN(Entry * entry,
                       FindLocked(handle, offset, length, step_id, &dropped));
  return entry->tensor;
}

absl::StatusOr<HeldTensors::HostBytes> HeldTensors::Read(
    uint64_t handle, uint64_t offset, uint64_t length,
    std::optional<int64_t> step_id, uint64_t max_piece) {
  Tensor tensor;
  std::shared_ptr<Stager> stager;
  {
    std::vector<Entry> dropped;  // freed outside the lock
    absl::MutexLock lock(&mu_);
    absl::StatusOr<Entry*> entry =
        FindLocked(handle, offset, length, step_id, &dropped);
    if (!entry.ok()) return entry.status();
    tensor = (*entry)->tensor;
    stager = (*entry)->stager;
  }
  if (stager == nullptr) return HostBytes{std::move(tensor), offset, length};
  return stager->Read(offset, std::min(length, max_piece));
}

void HeldTensors::MarkServed(uint64_t handle, uint64_t offset,
                             uint64_t length) {
  if (length == 0) return;
  std::optional<Entry> done;  // freed outside the lock
  std::function<void()> on_served;
  {
    absl::MutexLock lock(&mu_);
    auto it = entries_.find(handle);
    if (it == entries_.end()) return;
    Entry& entry = it->second;
    if (!entry.ranges.insert({offset, length}).second) return;
    entry.served += length;
    if (entry.served < entry.total) return;
    on_served = std::move(entry.on_served);
    done = std::move(entry);
    entries_.erase(it);
  }
  if (on_served) on_served();
}

void HeldTensors::SweepLocked(absl::Time now, std::vector<Entry>* dropped) {
  next_sweep_ = now + kSweepInterval;
  absl::erase_if(entries_, [&](auto& item) {
    if (item.second.expires > now) return false;
    spdlog::warn("'{}' of step {} was held for a peer that did not fetch it "
                 "within {}; dropped",
                 item.second.key, item.second.step_id,
                 absl::FormatDuration(options_.ttl));
    dropped->push_back(std::move(item.second));
    return true;
  });
}

void HeldTensors::Release(uint64_t handle) {
  std::optional<Entry> released;  // freed outside the lock
  absl::MutexLock lock(&mu_);
  auto it = entries_.find(handle);
  if (it == entries_.end()) return;
  released = std::move(it->second);
  entries_.erase(it);
}

void HeldTensors::ReleaseStep(int64_t step_id) {
  std::vector<Entry> released;  // freed outside the lock
  absl::MutexLock lock(&mu_);
  absl::erase_if(entries_, [&](auto& item) {
    if (item.second.step_id != step_id) return false;
    released.push_back(std::move(item.second));
    return true;
  });
}

void HeldTensors::ReleaseAll() {
  absl::flat_hash_map<uint64_t, Entry> released;  // freed outside the lock
  absl::MutexLock lock(&mu_);
  released.swap(entries_);
}

int64_t HeldTensors::size() const {
  absl::MutexLock lock(&mu_);
  return static_cast<int64_t>(entries_.size());
}

}  // namespace dfx
