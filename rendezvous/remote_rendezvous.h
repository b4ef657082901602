// RemoteRendezvous: the rendezvous of one step in a process that is one task
// of a cluster. Sends and receives whose source device is in this task meet
// in a LocalRendezvous; a receive whose _Send ran in another task fetches
// the tensor from that task (RecvTensor) through a RemoteTensorFetcher.
#ifndef DFX_RENDEZVOUS_REMOTE_RENDEZVOUS_H_
#define DFX_RENDEZVOUS_REMOTE_RENDEZVOUS_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "absl/status/status.h"
#include "rendezvous/local_rendezvous.h"
#include "runtime/rendezvous.h"

namespace dfx {

// Fetches tensors from other tasks of the cluster. Thread-safe.
class RemoteTensorFetcher {
 public:
  using FetchDone = std::function<void(const absl::Status& status,
                                       const Tensor& value, bool is_dead)>;
  // Cancels a fetch in flight; idempotent, and harmless after `done`.
  using Cancel = std::function<void()>;

  virtual ~RemoteTensorFetcher() = default;

  // Starts fetching the tensor of `key` in step `step_id` from the task of
  // key.src_device() (DeviceName::TaskName()). Calls `done` exactly once,
  // on any thread (possibly before returning). Errors name that task.
  virtual Cancel FetchAsync(int64_t step_id, const Rendezvous::ParsedKey& key,
                            FetchDone done) = 0;
};

// Thread-safe. Borrows the fetcher, which must outlive it.
class RemoteRendezvous : public Rendezvous {
 public:
  // `local_task` is this process's task, "/job:worker/replica:0/task:1".
  RemoteRendezvous(int64_t step_id, std::string local_task,
                   RemoteTensorFetcher* fetcher);
  // Aborts with Cancelled: pending receives fail and fetches in flight are
  // cancelled. Their results, if they still come, are dropped.
  ~RemoteRendezvous() override;

  // InvalidArgument naming the key when its source device is not in this
  // task (a _Send always runs where its tensor lives).
  absl::Status Send(const ParsedKey& key, const Args& args,
                    const Tensor& value, bool is_dead) override;
  // Local source: waits in the local rendezvous. Remote source: fetches,
  // honouring args.cancellation_manager (Cancelled) and StartAbort (the
  // abort status); the fetch in flight is cancelled either way. `done` runs
  // exactly once, on the thread that decided the outcome (the fetcher's, the
  // cancelling or the aborting one); whatever comes later is dropped.
  void RecvAsync(const ParsedKey& key, const Args& args,
                 DoneCallback done) override;
  // Always the local rendezvous: RecvTensor serves only what was sent here.
  void RecvLocalAsync(const ParsedKey& key, const Args& args,
                      DoneCallback done) override;
  // Aborts the local rendezvous and cancels every fetch in flight.
  void StartAbort(const absl::Status& status) override;

  int64_t step_id() const { return step_id_; }

 private:
  struct Pending;
  struct Fetches;

  void FetchRemote(const ParsedKey& key, const Args& args, DoneCallback done);

  const int64_t step_id_;
  // Canonical (DeviceName::TaskName()) spelling, compared with each key's.
  const std::string local_task_;
  RemoteTensorFetcher* const fetcher_;
  LocalRendezvous local_;
  // The abort status and the fetches in flight. Shared with the fetches'
  // callbacks and the cancellation callbacks, which may run after this
  // object is gone.
  const std::shared_ptr<Fetches> fetches_;
};

}  // namespace dfx

#endif  // DFX_RENDEZVOUS_REMOTE_RENDEZVOUS_H_
