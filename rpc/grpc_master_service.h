// GrpcMasterService: serves a Master over gRPC under TensorFlow's method
// paths (/tensorflow.MasterService/<Method>). Master calls block, so each
// runs on a pool thread, never on a gRPC thread.
#ifndef DFX_RPC_GRPC_MASTER_SERVICE_H_
#define DFX_RPC_GRPC_MASTER_SERVICE_H_

#include <memory>
#include <string>

#include "grpcpp/server_builder.h"
#include "master/master.h"

namespace dfx {

// Requests are taken raw and parsed by a RequestGate (rpc/request_gate.h):
// a call without the auth token is Unauthenticated, a body that does not
// parse InvalidArgument naming the request type.
//
// Answers each RPC with the Master's status (RunStep with
// store_errors_in_response_body: gRPC OK with the error in status_code and
// status_error_message). The Master validates requests.
//
// Shutting down: Master::Shutdown() first (it ends running steps), then the
// grpc::Server's Shutdown (which waits for the calls in flight) and its
// destruction, then this service, then the Master.
class GrpcMasterService {
 public:
  // Borrows the master. `num_threads`: how many calls run at once (at
  // least 1; threads start as calls need them and end when idle); up to `max_queued` more wait for a thread, and calls beyond
  // those are answered ResourceExhausted at once (backpressure instead of
  // an unbounded queue). `auth_token` (empty: none): every call must
  // carry it, else Unauthenticated.
  GrpcMasterService(Master* master, int num_threads, int max_queued = 1024,
                    std::string auth_token = "");
  // Waits for the calls running on the pool.
  ~GrpcMasterService();
  GrpcMasterService(const GrpcMasterService&) = delete;
  GrpcMasterService& operator=(const GrpcMasterService&) = delete;

  // Adds the service to `builder`; the service must outlive the server
  // built.
  void RegisterWith(grpc::ServerBuilder* builder);

 private:
  class Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace dfx

#endif  // DFX_RPC_GRPC_MASTER_SERVICE_H_
