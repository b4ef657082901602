// WorkerCacheFetcher: the RemoteTensorFetcher that asks the source task's
// worker (found in a WorkerCacheInterface) for the tensor with RecvTensor;
// and RemoteRendezvousFactory, a RendezvousMgr::Factory of RemoteRendezvous.
#ifndef DFX_WORKER_WORKER_CACHE_FETCHER_H_
#define DFX_WORKER_WORKER_CACHE_FETCHER_H_

#include <cstdint>
#include <string>

#include "absl/base/thread_annotations.h"
#include "absl/random/random.h"
#include "absl/synchronization/mutex.h"
#include "rendezvous/remote_rendezvous.h"
#include "rendezvous/rendezvous_mgr.h"
#include "worker/worker_cache.h"

namespace dfx {

// Thread-safe. Borrows the cache (and through it the workers), which must
// outlive the fetcher and every fetch it has not finished.
//
// It is also the pusher of the push path: a tensor for a _Recv in another
// task goes to that task's worker (WorkerInterface::PushTensor) with its
// bytes when it is dead or a memcpy-able tensor of at most
// kMaxPushBytes, as its key alone (announced; fetched by the receiver)
// otherwise.
class WorkerCacheFetcher : public RemoteTensorFetcher,
                           public RemoteTensorPusher {
 public:
  static constexpr int64_t kMaxPushBytes = 64 * 1024;

  // `push_lost` (may be empty: pushes are never made) is told of a step of
  // this process whose pushed tensors may be lost (their stream ended).
  explicit WorkerCacheFetcher(const WorkerCacheInterface* cache,
                              WorkerInterface::PushLost push_lost = {})
      : cache_(cache), push_lost_(std::move(push_lost)) {}

  // Sends RecvTensor{step_id, key.FullKey(), a fresh random request_id} to
  // the worker of the key's source task. `done` runs as that worker's
  // RecvTensor completion runs it (for a LocalWorker possibly before this
  // returns). Errors keep the worker's code and are prefixed
  // "RecvTensor from task <task>: " (a dead worker's Unavailable stays
  // Unavailable); a task the cache does not know is NotFound naming it.
  // The returned Cancel cancels the call (CallOptions::StartCancel). When
  // the step is traced (TracedSteps), a completed fetch saves a RecvTensor
  // record (RecvTensorStats) under the key's destination device.
  Cancel FetchAsync(int64_t step_id, const Rendezvous::ParsedKey& key,
                    const Tensor& destination, FetchDone done) override;

  // kNotPushed without `push_lost`, for a task the cache does not know, an
  // in-process worker, or one that takes no pushes now.
  Outcome Push(int64_t step_id, const Rendezvous::ParsedKey& key,
               const Tensor& value, bool is_dead) override;

 private:
  // Non-negative, non-zero: TensorFlow's workers take request ids as int64.
  int64_t NewRequestId();

  const WorkerCacheInterface* const cache_;
  const WorkerInterface::PushLost push_lost_;
  absl::Mutex mu_;
  absl::BitGen bitgen_ ABSL_GUARDED_BY(mu_);
};

// Makes a RemoteRendezvous of task `local_task` per step, fetching remote
// tensors through `fetcher` (borrowed; it must outlive the RendezvousMgr
// and every rendezvous it made).
// With `pusher` (may be null), the step's rendezvous pushes too.
RendezvousMgr::Factory RemoteRendezvousFactory(
    std::string local_task, RemoteTensorFetcher* fetcher,
    RemoteTensorPusher* pusher = nullptr);

}  // namespace dfx

#endif  // DFX_WORKER_WORKER_CACHE_FETCHER_H_
