// The eager service's calls to the other tasks of a client's cluster over
// gRPC: how a task that runs a multi-device function (one with inputs on
// another task, as a ParameterServerStrategy worker's step reads the ps
// tasks' variables) registers and runs its components there.
#ifndef DFX_RPC_GRPC_EAGER_CLIENT_H_
#define DFX_RPC_GRPC_EAGER_CLIENT_H_

#include <memory>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "eager/eager_service.h"
#include "proto/cluster.pb.h"
#include "rpc/security.h"

namespace dfx {

// One channel per task of `cluster` but `local_task`, made now (they
// connect on first use). Errors name the task and its address; an unknown
// task is InvalidArgument. InvalidArgument for a task with an empty
// address. Destroy it only after every call's done has run.
absl::StatusOr<std::unique_ptr<EagerPeerClient>> NewGrpcEagerPeerClient(
    const ClusterDef& cluster, absl::string_view local_task,
    const ChannelSecurity& security = {});

}  // namespace dfx

#endif  // DFX_RPC_GRPC_EAGER_CLIENT_H_
