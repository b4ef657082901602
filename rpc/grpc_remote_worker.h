// A WorkerInterface that calls a worker in another process over gRPC.
#ifndef DFX_RPC_GRPC_REMOTE_WORKER_H_
#define DFX_RPC_GRPC_REMOTE_WORKER_H_

#include <memory>
#include <string>

#include "grpcpp/channel.h"
#include "rpc/bulk_transport.h"
#include "worker/worker_interface.h"

namespace dfx {

// `task` names the worker in error messages; the worker cache passes the
// task and its address ("/job:ps/replica:0/task:0 at 127.0.0.1:2222"), so
// a task that is down answers Unavailable "task /job:ps/replica:0/task:0
// at 127.0.0.1:2222 is unavailable: ...". Other errors keep the gRPC
// status's code and message (DeadlineExceeded and Cancelled say the call
// and the task).
//
// Calls are fail-fast (a task that is down answers at once, no waiting for
// it to come up) and RunGraph and RecvTensor honour CallOptions' timeout
// (the call's deadline) and StartCancel (cancels the RPCs in flight).
// RunGraph feeds and fetches travel as TensorProto (tensor_content), and a
// RunGraphResponse error in its body (status_code) is the call's status.
// RecvTensor reads the raw response into the tensor (rpc/tensor_coding.h)
// and, when the sender splits a big tensor, fetches the rest in chunks of
// at most `max_chunk_bytes` (<= 0: 1 GiB), up to 4 at a time, each copied
// straight into the tensor. When the sender offers its bulk transport
// (rpc/bulk_transport.h; dfx.BulkTensor), the tensor's bytes come from
// there instead, read straight into the tensor on the process's one
// shared BulkClient; should
// that fail, they come in chunks after all, and when the bulk server
// could not be reached at all, this worker asks for none for 5 minutes.
//
// Thread-safe. `done` runs on a gRPC thread or a bulk transfer thread and
// must not block. Destroy
// the worker only after every call's `done` has run; nothing of a call
// holds the channel once its `done` runs, so the worker may go right
// after, but not from within `done` when it holds the last reference to
// the channel (gRPC 1.51 aborts when a channel dies on its own callback
// thread).
std::unique_ptr<WorkerInterface> NewGrpcRemoteWorker(
    std::shared_ptr<grpc::Channel> channel, std::string task,
    int64_t max_chunk_bytes = int64_t{1} << 30);

struct GrpcRemoteWorkerOptions {
  // <= 0: 1 GiB.
  int64_t max_chunk_bytes = int64_t{1} << 30;
  // Whether to accept senders' bulk transport at all.
  bool allow_bulk = true;
  // Sent with every bulk fetch (the channel's calls carry it already).
  std::string bulk_auth_token;
  // Bulk fetches over TLS (BulkTls::NewClient), the sender's certificate
  // verified as `bulk_tls_host` (the task's host in the cluster); null:
  // plain TCP.
  std::shared_ptr<const BulkTls> bulk_tls;
  std::string bulk_tls_host;
  // The push path (WorkerInterface::PushTensor; rpc/tensor_push.h): this
  // process's task, "/job:worker/replica:0/task:0", which pushes small
  // tensors to the worker over one long-lived stream when the worker takes
  // it. Empty: PushTensor is always false.
  std::string push_from_task;
};
std::unique_ptr<WorkerInterface> NewGrpcRemoteWorker(
    std::shared_ptr<grpc::Channel> channel, std::string task,
    const GrpcRemoteWorkerOptions& options);

}  // namespace dfx

#endif  // DFX_RPC_GRPC_REMOTE_WORKER_H_
