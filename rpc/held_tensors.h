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
// Handles are random, non-zero and below 2^63, so one handle is both a
// bulk ticket (u64) and a chunk handle (int64), and a peer cannot guess
// another's. Thread-safe.
#ifndef DFX_RPC_HELD_TENSORS_H_
#define DFX_RPC_HELD_TENSORS_H_

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <utility>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/random/random.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "runtime/tensor.h"

namespace dfx {

class HeldTensors {
 public:
  struct Options {
    absl::Duration ttl = absl::Minutes(10);
  };

  explicit HeldTensors(Options options);
  HeldTensors() : HeldTensors(Options()) {}
  HeldTensors(const HeldTensors&) = delete;
  HeldTensors& operator=(const HeldTensors&) = delete;

  // Holds `tensor` for `step_id` under a new handle. `key` names it in
  // errors (a rendezvous key). Bytes [0, served_prefix) count as served.
  // `on_served` (may be empty) runs once, outside the table's lock, on the
  // thread that served the last byte; not when the entry goes otherwise.
  // REQUIRES: an initialized tensor of a memcpy-able dtype.
  uint64_t Hold(int64_t step_id, std::string key, Tensor tensor,
                uint64_t served_prefix = 0,
                std::function<void()> on_served = nullptr);

  // The tensor whose bytes [offset, offset + length) a peer asks for
  // (sharing its buffer), renewing the entry's time to live. NotFound when
  // no entry has `handle` (or, given `step_id`, has it for another step);
  // OutOfRange when the range is not inside the tensor. Messages say which
  // and name the tensor, not the caller: callers prefix their own.
  absl::StatusOr<Tensor> Lookup(uint64_t handle, uint64_t offset,
                                uint64_t length,
                                std::optional<int64_t> step_id = std::nullopt);

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
  struct Entry {
    int64_t step_id = 0;
    std::string key;
    Tensor tensor;
    uint64_t total = 0;
    uint64_t served = 0;
    absl::flat_hash_set<std::pair<uint64_t, uint64_t>> ranges;
    absl::Time expires;
    std::function<void()> on_served;
  };

  void SweepLocked(absl::Time now) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  const Options options_;
  mutable absl::Mutex mu_;
  absl::BitGen random_ ABSL_GUARDED_BY(mu_);
  absl::flat_hash_map<uint64_t, Entry> entries_ ABSL_GUARDED_BY(mu_);
  absl::Time next_sweep_ ABSL_GUARDED_BY(mu_);
};

}  // namespace dfx

#endif  // DFX_RPC_HELD_TENSORS_H_
