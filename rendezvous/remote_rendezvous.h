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

#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "absl/synchronization/mutex.h"
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
  // `destination` (may be uninitialized): Rendezvous::Args::destination;
  // the fetch holds a reference to it until `done`.
  virtual Cancel FetchAsync(int64_t step_id, const Rendezvous::ParsedKey& key,
                            const Tensor& destination, FetchDone done) = 0;
};

// Pushes tensors to the task that will receive them (the push path), so a
// _Recv there need not ask for them with a call of its own. Thread-safe.
class RemoteTensorPusher {
 public:
  enum class Outcome {
    // Nothing sent: the receiving task takes no pushes (not a dfx worker),
    // or the stream to it is not up. The receiver will fetch the tensor.
    kNotPushed,
    // The tensor is on its way; the sender keeps nothing.
    kPushed,
    // Only the key went (the tensor is too big or not memcpy-able): the
    // receiver will fetch the tensor, which the sender must keep.
    kAnnounced,
  };

  virtual ~RemoteTensorPusher() = default;

  // Sends `value` (or the key alone, see Outcome) of `key` in step
  // `step_id` to the task of key.dst_device(). Never blocks.
  virtual Outcome Push(int64_t step_id, const Rendezvous::ParsedKey& key,
                       const Tensor& value, bool is_dead) = 0;
};

// Thread-safe. Borrows the fetcher (and pusher), which must outlive it.
//
// The push path, with a pusher: a Send whose key names a device of another
// task as its destination (and that is not client-terminated) goes to the
// pusher too, and is kept here all the same (up to kMaxKeptPushBytes a
// step), for a RecvTensor: a push is only a head start, and what a broken
// stream took is fetched instead.
// Whether the step pushes to a task is decided by its first send there and
// kept for the step, until the stream that took its pushes ends
// (PushesLost): then it pushes no more there, not even on a new stream,
// and the receiver fetches. The
// receiving side takes pushed tensors with DeliverPushed into an inbox of
// this step; a RecvAsync of a
// key from another task takes it from there, or waits there when that task
// has pushed in this step already (every later send of it to here is
// pushed or announced too), or otherwise waits there and fetches at once,
// the first answer winning (a task that just started pushing). When the
// stream from a task ends (PushStreamLost), the step's receives from it
// fetch, then and later. Every
// receive of a graph edge looks at the inbox, with or without a pusher of
// its own: whether the sender pushes is the sender's decision (this task
// may run with --no-push, or may have failed to reach the sender's task
// while it started), and a receive that only fetched what was pushed would
// wait for ever. Abort and cleanup drop the inbox.
class RemoteRendezvous : public Rendezvous {
 public:
  // How much of what a step pushed it keeps for a fetch: a loop of many
  // iterations must not hold every tensor it ever pushed. Past it, pushed
  // tensors are not kept, and a step whose stream to their task ends then
  // aborts with Unavailable, as it would without the copies.
  static constexpr int64_t kMaxKeptPushBytes = 32 << 20;

  // `local_task` is this process's task, "/job:worker/replica:0/task:1".
  // `pusher` may be null: nothing is pushed, every remote key is fetched.
  RemoteRendezvous(int64_t step_id, std::string local_task,
                   RemoteTensorFetcher* fetcher,
                   RemoteTensorPusher* pusher = nullptr);
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
  // Aborts the local rendezvous and cancels every fetch in flight; drops
  // every pushed tensor not received yet.
  void StartAbort(const absl::Status& status) override;

  // A tensor (or, with `pull`, the key alone) that task `src_task` pushed
  // to this one. Completes the receive waiting for `key`, or is held until
  // it comes (or the step ends). From now on, a receive of a key from
  // `src_task` in this step waits for its push. Dropped after an abort.
  void DeliverPushed(const std::string& src_task, const std::string& key,
                     const Tensor& value, bool is_dead, bool pull);
  // The push stream from `src_task` ended before its sender closed it:
  // what it pushed in this step may be lost, so the receives from that
  // task that wait for a push fetch instead, and so do later ones (its
  // sender kept every tensor; a dead sender fails the fetch with
  // Unavailable naming it).
  void PushStreamLost(const std::string& src_task);
  // The sending side: the stream that took this step's pushes to `task`
  // ended, so the step pushes no more there (the receiver fetches).
  void PushesLost(const std::string& task);
  // Pushed tensors held for receives that have not come yet.
  size_t NumHeldPushes() const;

  int64_t step_id() const { return step_id_; }

 private:
  struct Pending;
  struct Fetches;

  void FetchRemote(const ParsedKey& key, const Args& args, DoneCallback done);
  struct PushTo;
  // Counts a pushed tensor as kept for a fetch and returns true, or, past
  // kMaxKeptPushBytes, marks `to` dropped and returns false.
  bool KeepPushedLocked(const ParsedKey& key, const Tensor& value, PushTo* to)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(push_mu_);
  // Starts the fetch of a receive already registered in the table.
  void StartFetch(const std::shared_ptr<Pending>& pending);

  const int64_t step_id_;
  // Canonical (DeviceName::TaskName()) spelling, compared with each key's.
  const std::string local_task_;
  RemoteTensorFetcher* const fetcher_;
  RemoteTensorPusher* const pusher_;
  // Per receiving task.
  struct PushTo {
    // Whether this step pushes there (decided by the step's first send
    // there; false after PushesLost).
    bool push = false;
    // Some tensor pushed there was not kept (kMaxKeptPushBytes): when its
    // stream ends the step cannot recover and aborts.
    bool dropped = false;
  };
  absl::Mutex push_mu_;
  absl::flat_hash_map<std::string, PushTo> push_to_ ABSL_GUARDED_BY(push_mu_);
  // Bytes of pushed tensors kept here (each counted with its key).
  int64_t kept_push_bytes_ ABSL_GUARDED_BY(push_mu_) = 0;
  LocalRendezvous local_;
  // The abort status and the fetches in flight. Shared with the fetches'
  // callbacks and the cancellation callbacks, which may run after this
  // object is gone.
  const std::shared_ptr<Fetches> fetches_;
};

}  // namespace dfx

#endif  // DFX_RENDEZVOUS_REMOTE_RENDEZVOUS_H_
