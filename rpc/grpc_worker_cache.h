// The worker cache of a server: one gRPC channel per task of the cluster,
// and this server's own worker called in-process.
#ifndef DFX_RPC_GRPC_WORKER_CACHE_H_
#define DFX_RPC_GRPC_WORKER_CACHE_H_

#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "proto/cluster.pb.h"
#include "rpc/security.h"
#include "worker/worker_cache.h"
#include "worker/worker_interface.h"

namespace dfx {

// Task names are "/job:<name>/replica:0/task:<index>". `local_task` (may be
// empty: a client with no worker of its own) is served by `local_worker`
// (borrowed); every other task by a gRPC remote worker (one channel each,
// made here; chunks of at most `max_chunk_bytes`), whose errors name the
// task and its address. InvalidArgument for a job with a bad name, listed
// twice or without tasks, a negative task index, an empty address or one
// without a port, two tasks at one address, a local task not in the
// cluster, or a local task without a local worker.
//
// Destroy the cache only after every call made through its remote workers
// has finished (see rpc/grpc_remote_worker.h).
//
// `security`: how the channels reach the other tasks (TLS, and the auth
// token every call and bulk fetch carries); with TLS, bulk fetches use TLS
// too (the same CA and client certificate), each verifying its task's
// host; when that context cannot be made, no bulk fetch is made.
//
// `push`: the remote workers push tensors of `local_task` to their tasks
// (GrpcRemoteWorkerOptions::push_from_task); needs a local task.
absl::StatusOr<std::unique_ptr<WorkerCacheInterface>> NewGrpcWorkerCache(
    const ClusterDef& cluster, absl::string_view local_task,
    WorkerInterface* local_worker, int64_t max_chunk_bytes = int64_t{1} << 30,
    const ChannelSecurity& security = {}, bool push = false);

}  // namespace dfx

#endif  // DFX_RPC_GRPC_WORKER_CACHE_H_
