// GrpcWorkerService: serves a Worker over gRPC under TensorFlow's method
// paths (/tensorflow.WorkerService/<Method>) with the callback API: no
// thread waits for a pending RecvTensor or RunGraph. RecvTensor answers are
// built over the tensor's own buffer (rpc/tensor_coding.h); a tensor larger
// than the receiver's chunk size goes in pieces (/dfx.WorkerService/
// RecvTensorChunk), so tensors over gRPC's 2 GiB message limit cross.
#ifndef DFX_RPC_GRPC_WORKER_SERVICE_H_
#define DFX_RPC_GRPC_WORKER_SERVICE_H_

#include <cstdint>
#include <memory>
#include <string>

#include "grpcpp/server_builder.h"
#include "rpc/bulk_transport.h"
#include "worker/worker.h"

namespace dfx {

// Every method takes its request raw and has it parsed by a RequestGate
// (rpc/request_gate.h): a call without Options.auth_token is
// Unauthenticated, a body that does not parse InvalidArgument naming the
// request type. Each call then goes to the Worker's asynchronous method and its reactor
// finishes from the worker's callback, so no gRPC thread ever waits.
// RunGraph and RecvTensor pass the client's deadline (as CallOptions'
// timeout) and cancellation (StartCancel) on to the worker. RunGraph feeds
// that do not decode are InvalidArgument naming their key; with
// store_errors_in_response_body an error goes in the response's
// status_code / status_error_message under an OK gRPC status.
//
// Chunks: a receiver that puts dfx.RecvTensorTransport in
// RecvTensorRequest.transport_options gets a tensor whose content is
// larger than min(its max_chunk_bytes if > 0, Options.max_chunk_bytes) as
// dtype, shape and the first chunk, with dfx.TensorChunks{handle,
// total_bytes} in the response's transport_options; the service holds the
// tensor (its buffer shared, not copied) until every byte was fetched with
// RecvTensorChunk, or CleanupGraph of its step or CleanupAll arrives here.
// RecvTensorChunk: NotFound for an unknown (step, handle), OutOfRange for
// a range outside the tensor or longer than the chunk size.
//
// Bulk: with Options.bulk_bind_host set, the service runs a BulkServer
// (rpc/bulk_transport.h) there. A receiver whose RecvTensorTransport says
// accepts_bulk gets a memcpy-able tensor of at least
// Options.bulk_threshold_bytes as dtype and shape with dfx.BulkTensor in
// transport_options, and fetches the bytes from the bulk server; the
// tensor is held for RecvTensorChunk too (BulkTensor.chunk_handle), so a
// receiver that cannot reach the bulk server falls back to chunks. Both
// let it go once every byte was fetched either way, or at CleanupGraph of
// its step or CleanupAll.
//
// Push: /dfx.WorkerService/PushTensors (rpc/tensor_push.h) takes the
// tensors a dfx peer pushes into the steps' rendezvous of the worker's
// RendezvousMgr, after the auth token check; see the reactor in the .cc
// for what a stream's end aborts.
//
// Thread-safe.
class GrpcWorkerService {
 public:
  struct Options {
    // The most tensor bytes one RecvTensor (or RecvTensorChunk) response
    // carries when the receiver accepts chunks and asks for no smaller
    // size (<= 0: the default; at most 2 GiB - 1 MiB). A receiver that
    // does not (TensorFlow's) gets the whole tensor in one response, or
    // ResourceExhausted naming the key and the size past 2 GiB.
    int64_t max_chunk_bytes = int64_t{1} << 30;
    // Where the bulk server listens (any port); empty: no bulk server. A
    // bulk server that cannot start is logged and the service runs
    // without one.
    std::string bulk_bind_host;
    // The smallest tensor content sent over the bulk server. At 1 MiB
    // the bulk transfer (an extra round trip on a pooled connection)
    // already beats the bytes in the gRPC response on loopback (dfx_bench
    // grpc: ~1.0 ms against ~1.6 ms).
    int64_t bulk_threshold_bytes = int64_t{1} << 20;
    // Receivers on this host take bulk tensors from the bulk server's
    // local socket as shared memory (rpc/bulk_transport.h) unless false.
    bool bulk_local = true;
    // Tests only: the address put in BulkTensor instead of the bulk
    // server's own (an unreachable one, to exercise the fallback); no
    // local address is offered then.
    std::string bulk_address_for_testing;
    // Every call (and every bulk fetch) must carry it; empty: none.
    std::string auth_token;
    // The bulk server's TLS (BulkTls::NewServer); null: plain TCP.
    std::shared_ptr<const BulkTls> bulk_tls;
  };

  // Borrows the worker, which must outlive the service.
  GrpcWorkerService(Worker* worker, Options options);
  ~GrpcWorkerService();
  GrpcWorkerService(const GrpcWorkerService&) = delete;
  GrpcWorkerService& operator=(const GrpcWorkerService&) = delete;

  // Adds the services to `builder`. Call once, before BuildAndStart; the
  // service must outlive the server built.
  void RegisterWith(grpc::ServerBuilder* builder);

  // Ends the push streams (PushTensors) peers hold open here, and refuses
  // new ones: call before the server's Shutdown, which would otherwise
  // wait its whole grace period for them.
  void EndPushStreams();

  // Drops what the service holds for peers of step `step_id` (tensors
  // they fetch by range): a step cleaned up by a call that did not come
  // through this service (a master's own task, WorkerEnv::on_step_cleanup).
  void ReleaseStep(int64_t step_id);

  // The bulk server, or null when there is none. For tests and logs.
  const BulkServer* bulk_server() const;

 private:
  class Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace dfx

#endif  // DFX_RPC_GRPC_WORKER_SERVICE_H_
