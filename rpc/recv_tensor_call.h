// RecvTensor from a remote worker: the first response, then (for a
// chunked tensor) the remaining chunks, several in flight, each read
// straight into the tensor; or (for a bulk tensor) its bytes from the
// sender's bulk server, straight into the tensor, with the chunks as the
// fallback when that fails. Used by GrpcRemoteWorker::RecvTensorAsync.
#ifndef DFX_RPC_RECV_TENSOR_CALL_H_
#define DFX_RPC_RECV_TENSOR_CALL_H_

#include "rpc/grpc_remote_worker_shared.h"
#include "worker/worker_interface.h"

namespace dfx::remote_worker_internal {

// Starts the call; `done` runs once, after the call let go of everything
// that holds the channel (see Shared). `opts` (may be null) cancels it and
// bounds it with its timeout.
void StartRecvTensorCall(Shared* shared, CallOptions* opts,
                         const RecvTensorRequest* request,
                         RecvTensorResult* response, StatusCallback done);

}  // namespace dfx::remote_worker_internal

#endif  // DFX_RPC_RECV_TENSOR_CALL_H_
