// What GrpcRemoteWorker (rpc/grpc_remote_worker.cc) and its RecvTensor
// call (rpc/recv_tensor_call.cc) share. For those two files only; the
// remote worker's API is rpc/grpc_remote_worker.h.
#ifndef DFX_RPC_GRPC_REMOTE_WORKER_SHARED_H_
#define DFX_RPC_GRPC_REMOTE_WORKER_SHARED_H_

#include <cstdint>
#include <memory>
#include <string>

#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "grpcpp/client_context.h"
#include "grpcpp/generic/generic_stub.h"
#include "proto/worker_service.grpc.pb.h"
#include "rpc/bulk_transport.h"
#include "rpc/grpc_remote_worker.h"

namespace dfx::remote_worker_internal {

// What every call of one remote worker uses; the worker owns it and
// outlives its calls.
//
// Lifetime rule for every call below: whatever holds the channel (a
// ClientContext holds it too) is released *before* `done` runs. gRPC's
// callbacks run on threads of its own completion queue, and the C++
// channel's destructor, if it ran there (the caller dropping the worker
// right after `done`, the callback's captures dropping the last reference),
// would shut that queue down from one of its own threads: gRPC 1.51 then
// aborts ("prior > 0" in grpc_cq_internal_unref).
struct Shared {
  Shared(std::shared_ptr<grpc::Channel> channel, std::string task_name,
         const GrpcRemoteWorkerOptions& options);

  const std::unique_ptr<tensorflow::WorkerService::Stub> stub;
  grpc::GenericStub generic;
  const std::string task;
  const int64_t max_chunk_bytes;
  const bool allow_bulk;
  const std::string bulk_auth_token;
  const std::shared_ptr<const BulkTls> bulk_tls;
  const std::string bulk_tls_host;
  const std::shared_ptr<BulkClient> bulk;

  // Whether RecvTensor may offer to take this task's tensors over the
  // bulk plane: not after DisableBulk, for a while.
  bool BulkEnabled();
  // The bulk plane of the task could not be reached: gRPC alone for a
  // while (a firewall that drops the connection attempts must not cost
  // every RecvTensor a connect timeout).
  void DisableBulk(const absl::Status& why);

  // Control calls in flight, so CancelAllCalls can end them (a peer that
  // stopped answering must not hold this process's shutdown).
  absl::Mutex mu;
  bool cancelled ABSL_GUARDED_BY(mu) = false;
  absl::flat_hash_map<grpc::ClientContext*, std::weak_ptr<grpc::ClientContext>>
      live ABSL_GUARDED_BY(mu);
  absl::Time bulk_retry_at ABSL_GUARDED_BY(mu) = absl::InfinitePast();
};

// The status of a finished call. `what` says which call ("RunGraph",
// "RecvTensor of '<key>'").
absl::Status CallStatus(const Shared& shared, absl::string_view what,
                        const grpc::Status& status);

}  // namespace dfx::remote_worker_internal

#endif  // DFX_RPC_GRPC_REMOTE_WORKER_SHARED_H_
