// GrpcEagerService: serves an EagerService (eager/eager_service.h) over
// gRPC under TensorFlow's method paths (/tensorflow.eager.EagerService/
// <Method>), StreamingEnqueue included. Calls block (an eager _Recv waits
// for its tensor), so each runs on a pool thread, never on a gRPC thread.
#ifndef DFX_RPC_GRPC_EAGER_SERVICE_H_
#define DFX_RPC_GRPC_EAGER_SERVICE_H_

#include <memory>
#include <string>

#include "eager/eager_service.h"
#include "grpcpp/server_builder.h"

namespace dfx {

// Requests are taken raw and parsed by a RequestGate (rpc/request_gate.h):
// a call without the auth token is Unauthenticated, a body that does not
// parse InvalidArgument naming the request type. A client that cancels a
// call (or whose deadline passes, or that goes away) cancels the operation
// it waits in.
//
// StreamingEnqueue answers each request with one response, in order; the
// first error ends the stream with that error (as TensorFlow's servers do).
//
// Shutting down: the grpc::Server's Shutdown (it cancels the calls in
// flight) and destruction first, then this service, then the EagerService.
class GrpcEagerService {
 public:
  // Borrows the service. `num_threads` (at least 1): how many calls run at
  // once (threads start as calls need them and end when idle); up to
  // `max_queued` more wait, beyond that ResourceExhausted.
  GrpcEagerService(EagerService* service, int num_threads,
                   int max_queued = 1024, std::string auth_token = "");
  // Waits for the calls running on the pool.
  ~GrpcEagerService();
  GrpcEagerService(const GrpcEagerService&) = delete;
  GrpcEagerService& operator=(const GrpcEagerService&) = delete;

  // Adds the service to `builder`; the service must outlive the server.
  void RegisterWith(grpc::ServerBuilder* builder);

 private:
  class Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace dfx

#endif  // DFX_RPC_GRPC_EAGER_SERVICE_H_
