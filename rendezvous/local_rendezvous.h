// LocalRendezvous: the in-process Rendezvous. Hands tensors over without
// copying their buffers; the key table is sharded so concurrent transfers
// of different keys do not contend on one lock.
#ifndef DFX_RENDEZVOUS_LOCAL_RENDEZVOUS_H_
#define DFX_RENDEZVOUS_LOCAL_RENDEZVOUS_H_

#include <array>
#include <atomic>
#include <cstdint>
#include <string>

#include "absl/container/flat_hash_map.h"
#include "absl/synchronization/mutex.h"
#include "runtime/rendezvous.h"

namespace dfx {

// Thread-safe. Callbacks run without any of its locks held.
class LocalRendezvous : public Rendezvous {
 public:
  LocalRendezvous() = default;
  ~LocalRendezvous() override;

  absl::Status Send(const ParsedKey& key, const Args& args,
                    const Tensor& value, bool is_dead) override;
  void RecvAsync(const ParsedKey& key, const Args& args,
                 DoneCallback done) override;
  void StartAbort(const absl::Status& status) override;

  // The abort status, OK while not aborted.
  absl::Status status() const;

 private:
  static constexpr int kNumShards = 16;

  // A key holds either a sent value waiting for its receiver, or a receiver
  // waiting for its value.
  struct Item {
    bool has_value = false;
    Tensor value;
    bool is_dead = false;
    DoneCallback waiter;
    CancellationManager* cancellation_manager = nullptr;
    int64_t cancellation_token = -1;
  };

  struct Shard {
    absl::Mutex mu;
    absl::flat_hash_map<std::string, Item> items ABSL_GUARDED_BY(mu);
  };

  Shard& ShardFor(const ParsedKey& key) {
    return shards_[key.hash() % kNumShards];
  }
  // Called when the cancellation manager of a pending receive fires.
  void CancelWaiter(const ParsedKey& key, int64_t token);

  std::array<Shard, kNumShards> shards_;
  // Set once by StartAbort, before the shards are swept; read under a shard
  // lock so that no receive can slip in after its shard was swept.
  std::atomic<bool> aborted_{false};
  mutable absl::Mutex status_mu_;
  absl::Status abort_status_ ABSL_GUARDED_BY(status_mu_);
};

}  // namespace dfx

#endif  // DFX_RENDEZVOUS_LOCAL_RENDEZVOUS_H_
