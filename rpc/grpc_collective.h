// Collective resolution over gRPC at TensorFlow's method paths
// (/tensorflow.WorkerService/CompleteGroup and .../CompleteInstance):
// the leader's side, a generic gRPC service beside the worker service that
// answers from the process's CollectiveLeader tables, and the members'
// side, a CollectiveLeaderClient over a channel to the leader's task.
// Generic (raw) methods rather than new rpcs in worker_service.proto: the
// messages are TensorFlow's (proto/collective.proto), the wire the same.
#ifndef DFX_RPC_GRPC_COLLECTIVE_H_
#define DFX_RPC_GRPC_COLLECTIVE_H_

#include <memory>
#include <string>

#include "grpcpp/generic/async_generic_service.h"
#include "grpcpp/generic/generic_stub.h"
#include "rpc/request_gate.h"
#include "rpc/security.h"
#include "runtime/collective_leader.h"

namespace dfx {

extern const char kCompleteGroupMethod[];
extern const char kCompleteInstanceMethod[];

// Serves the two methods from `leader` (borrowed; null: this task is not
// the leader, answered FailedPrecondition) after `gate` (borrowed) admits
// the call; any other method is Unimplemented. A call waiting for the
// group's other members ends when the caller cancels. Both must outlive
// the gRPC server.
class CollectiveGenericService : public grpc::CallbackGenericService {
 public:
  CollectiveGenericService(CollectiveLeader* leader, const RequestGate* gate)
      : leader_(leader), gate_(gate) {}

  grpc::ServerGenericBidiReactor* CreateReactor(
      grpc::GenericCallbackServerContext* context) override;

 private:
  CollectiveLeader* const leader_;
  const RequestGate* const gate_;
};

// A member's way to the leader's task at `address` (its name `task` in
// errors). Calls have no deadline of their own: they end when the step's
// cancellation manager is cancelled, or the leader's task is lost
// (Unavailable naming it). Thread-safe.
class GrpcCollectiveLeaderClient : public CollectiveLeaderClient {
 public:
  GrpcCollectiveLeaderClient(const std::string& address, std::string task,
                             const ChannelSecurity& security);

  void CompleteGroupAsync(const CompleteGroupRequest* request,
                          CompleteGroupResponse* response,
                          CancellationManager* cancellation,
                          Done done) override;
  void CompleteInstanceAsync(const CompleteInstanceRequest* request,
                             CompleteInstanceResponse* response,
                             CancellationManager* cancellation,
                             Done done) override;

 private:
  void Call(const char* method, const google::protobuf::Message& request,
            google::protobuf::Message* response,
            CancellationManager* cancellation, Done done);

  const std::string task_;
  grpc::GenericStub stub_;
};

}  // namespace dfx

#endif  // DFX_RPC_GRPC_COLLECTIVE_H_
