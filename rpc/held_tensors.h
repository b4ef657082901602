// HeldTensors: the tensors a worker holds for a peer that fetches them in
// byte ranges after RecvTensor answered with a handle, over the gRPC chunk
// call (RecvTensorChunk) or over the bulk plane (BulkServer). One table, so
// that both paths keep tensors under the same rules:
//
//   - an entry shares the tensor's buffer, never copies it;
//   - each distinct byte range counts once, however often it is served;
//     the entry goes once every byte was served (bytes sent inline in the
//     RecvTensor response count as served from the start), whichever path
//     served them;
//   - ReleaseStep (the step's CleanupGraph) and ReleaseAll (shutdown) drop
//     entries at once;
//   - an entry not asked for within `ttl` is dropped (a receiver that went
//     away), checked lazily on the table's own calls.
//
// A tensor in a device's memory that the host cannot read (a GPU tensor
// bound for another task) is held as it is, and Read copies each range
// asked for into a staging buffer from the device's host allocator
// (pinned memory on a GPU), then starts copying the range after it (the
// next one a sequential reader asks for) before it returns: the device
// copies range k+1 while the caller sends range k. A device without
// DeviceRangeCopier (runtime/device_range_copy.h) has the whole tensor
// copied to the host once, at its first Read. Staging buffers go with the
// entry (and with the last reference a sender holds to one it was given).
//
// Handles are random, non-zero and below 2^63, so one handle is both a
// bulk ticket (u64) and a chunk handle (int64), and a peer cannot guess
// another's. Thread-safe.
#ifndef DFX_RPC_HELD_TENSORS_H_
#define DFX_RPC_HELD_TENSORS_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/random/random.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "runtime/tensor.h"

namespace dfx {

class Device;

class HeldTensors {
 public:
  struct Options {
    absl::Duration ttl = absl::Minutes(10);
  };

  // A range's bytes in host memory, kept alive by `owner`: the held tensor
  // itself, or the staging buffer they were copied into.
  struct HostBytes {
    Tensor owner;
    // Where the bytes start in owner's buffer.
    uint64_t offset = 0;
    uint64_t length = 0;
    const char* data() const {
      return owner.IsInitialized()
                 ? static_cast<const char*>(owner.raw_data()) + offset
                 : nullptr;
    }
  };

  explicit HeldTensors(Options options);
  HeldTensors() : HeldTensors(Options()) {}
  HeldTensors(const HeldTensors&) = delete;
  HeldTensors& operator=(const HeldTensors&) = delete;

  // Holds `tensor` for `step_id` under a new handle. `key` names it in
  // errors (a rendezvous key). Bytes [0, served_prefix) count as served.
  // `on_served` (may be empty) runs once, outside the table's lock, on the
  // thread that served the last byte; not when the entry goes otherwise.
  // `device` (borrowed; it outlives the entry): set when `tensor` is in
  // that device's memory, which the host cannot read (see above).
  // REQUIRES: an initialized tensor of a memcpy-able dtype.
  uint64_t Hold(int64_t step_id, std::string key, Tensor tensor,
                uint64_t served_prefix = 0,
                std::function<void()> on_served = nullptr,
                Device* device = nullptr);

  // The tensor whose bytes [offset, offset + length) a peer asks for
  // (sharing its buffer), renewing the entry's time to live. NotFound when
  // no entry has `handle` (or, given `step_id`, has it for another step);
  // OutOfRange when the range is not inside the tensor. Messages say which
  // and name the tensor, not the caller: callers prefix their own. A
  // device tensor comes back as it is (its bytes are Read's to give).
  absl::StatusOr<Tensor> Lookup(uint64_t handle, uint64_t offset,
                                uint64_t length,
                                std::optional<int64_t> step_id = std::nullopt);

  // Lookup's checks, then the bytes in host memory: a host tensor's range
  // whole, from its own buffer; a device tensor's first
  // min(length, max_piece) bytes, copied into a staging buffer (the
  // caller asks again for the rest), the copy of the range after it
  // started before this returns. Blocks for the copy. Lookup's errors, and
  // the device's copy error naming the tensor and the device (its task).
  // Does not count the bytes as served (MarkServed does).
  absl::StatusOr<HostBytes> Read(uint64_t handle, uint64_t offset,
                                 uint64_t length,
                                 std::optional<int64_t> step_id = std::nullopt,
                                 uint64_t max_piece = UINT64_MAX);

  // Counts bytes [offset, offset + length) as served, once per distinct
  // range. Unknown handles are ignored.
  void MarkServed(uint64_t handle, uint64_t offset, uint64_t length);

  // Drop entries; a range being served holds its own reference to the
  // buffer and finishes. Unknown handles are ignored.
  void Release(uint64_t handle);
  void ReleaseStep(int64_t step_id);
  void ReleaseAll();

  int64_t size() const;
  absl::Duration ttl() const { return options_.ttl; }

 private:
  class Stager;  // a device tensor's staging, in held_tensors.cc

  struct Entry {
    int64_t step_id = 0;
    std::string key;
    Tensor tensor;
    // Set for a device tensor; shared with Reads in progress.
    std::shared_ptr<Stager> stager;
    uint64_t total = 0;
    uint64_t served = 0;
    absl::flat_hash_set<std::pair<uint64_t, uint64_t>> ranges;
    absl::Time expires;
    std::function<void()> on_served;
  };

  // The live entry of `handle` with `range` inside it, its TTL renewed;
  // expired entries go to `dropped` (freed outside the lock).
  absl::StatusOr<Entry*> FindLocked(uint64_t handle, uint64_t offset,
                                    uint64_t length,
                                    std::optional<int64_t> step_id,
                                    std::vector<Entry>* dropped)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Moves the expired entries to `dropped`, freed outside the lock (a
  // staging copy in flight is waited for as it goes).
  void SweepLocked(absl::Time now, std::vector<Entry>* dropped)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  const Options options_;
  mutable absl::Mutex mu_;
  absl::BitGen random_ ABSL_GUARDED_BY(mu_);
  absl::flat_hash_map<uint64_t, Entry> entries_ ABSL_GUARDED_BY(mu_);
  absl::Time next_sweep_ ABSL_GUARDED_BY(mu_);
};

}  // namespace dfx

#endif  // DFX_RPC_HELD_TENSORS_H_
