// TensorPushClient: the sending end of the push path to one task, a
// long-lived /dfx.WorkerService/PushTensors stream; and the metadata both
// ends of that stream use. The receiving end is in rpc/grpc_worker_service.cc.
#ifndef DFX_RPC_TENSOR_PUSH_H_
#define DFX_RPC_TENSOR_PUSH_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "grpcpp/channel.h"
#include "proto/dfx_worker_service.grpc.pb.h"
#include "runtime/tensor.h"
#include "worker/worker_interface.h"

namespace dfx {

// Sent by the pushing task when it opens the stream: its task name,
// "/job:worker/replica:0/task:0".
inline constexpr char kPushTaskMetadata[] = "dfx-push-task";
// Sent back by a receiver that takes the stream, in its initial metadata.
// A TensorFlow worker answers Unimplemented instead.
inline constexpr char kPushReadyMetadata[] = "dfx-push-ready";

// Thread-safe.
//
// The stream is opened on the first Push (or MayPush) and used once the
// receiver's initial metadata says it takes it; until then, and after it
// ended, Push returns false and the caller keeps the tensor for RecvTensor.
// Tensors pushed while a write is on its way queue up and go together in
// the next message. When the stream ends with tensors of a step pushed on
// it (any end but Shutdown's), their `lost` runs for each such step (the
// last 256 steps it carried): the receiver may not have them. A receiver
// that refused the stream is asked again after a minute, one whose stream
// broke after a second.
class TensorPushClient {
 public:
  // `local_task`: the pushing task, as its keys spell it; `task`: the
  // receiving one, for logs.
  TensorPushClient(std::shared_ptr<grpc::Channel> channel,
                   std::string local_task, std::string task);
  // Shutdown, then waits for the stream's end.
  ~TensorPushClient();
  TensorPushClient(const TensorPushClient&) = delete;
  TensorPushClient& operator=(const TensorPushClient&) = delete;

  // See WorkerInterface::PushTensor.
  bool Push(int64_t step_id, const std::string& key, const Tensor& value,
            bool is_dead, bool pull, const WorkerInterface::PushLost* lost);
  // Cancels the stream; no new one opens. Nothing is reported lost.
  void Shutdown();

 private:
  class Stream;
  // Starts a new stream when none is open and the retry time has come.
  // Returns the stream to Start() (outside the lock), or null.
  std::shared_ptr<Stream> MaybeOpenLocked() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // From the stream's reactions.
  void StreamReady(Stream* stream, bool ready);
  void StreamDone(Stream* stream);

  const std::unique_ptr<WorkerService::Stub> stub_;
  const std::string local_task_;
  const std::string task_;

  absl::Mutex mu_;
  bool shutdown_ ABSL_GUARDED_BY(mu_) = false;
  // The stream being opened or up; null when none.
  std::shared_ptr<Stream> current_ ABSL_GUARDED_BY(mu_);
  bool current_ready_ ABSL_GUARDED_BY(mu_) = false;
  // The receiver refused the stream (until retry_at_).
  bool refused_ ABSL_GUARDED_BY(mu_) = false;
  absl::Time retry_at_ ABSL_GUARDED_BY(mu_) = absl::InfinitePast();
  // Every stream whose OnDone has not come, or came since the last
  // MaybeOpenLocked, which forgets those. A stream goes with its last
  // reference (a Push that was using it); the stub keeps the channel, so
  // that may be on any thread.
  std::vector<std::shared_ptr<Stream>> streams_ ABSL_GUARDED_BY(mu_);
};

}  // namespace dfx

#endif  // DFX_RPC_TENSOR_PUSH_H_
