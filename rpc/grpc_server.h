// GrpcServer: one task of a cluster in one process, both master and worker:
// its CPU devices (and GPUs in a CUDA build), the worker service, the master service, the worker cache
// with a channel to every other task, and the per-step remote rendezvous.
#ifndef DFX_RPC_GRPC_SERVER_H_
#define DFX_RPC_GRPC_SERVER_H_

#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "proto/cluster.pb.h"
#include "proto/config.pb.h"
#include "rpc/security.h"

namespace dfx {

class Master;
class Worker;

struct GrpcServerOptions {
  ClusterDef cluster;
  std::string job_name;
  int task_index = 0;
  // CPU devices of this task, /job:J/replica:0/task:N/device:CPU:<i>.
  int num_cpu_devices = 1;
  // Which GPUs become /job:J/replica:0/task:N/device:GPU:<i> and how much
  // of their memory the process takes (runtime/gpu_options.h); with a
  // CUDA build only (otherwise checked, and there are no GPUs).
  GPUOptions gpu_options;
  // At most this many GPU devices (-1: all that gpu_options allows; 0:
  // none): ConfigProto.device_count["GPU"].
  int max_gpu_devices = -1;
  // Threads running nodes (0: the number of cores) and within ops (0: the
  // number of cores).
  int inter_op_threads = 0;
  int intra_op_threads = 0;
  // Master calls (RunStep, ...) that run at once; more wait.
  int master_threads = 64;
  absl::Duration session_gc_idle = absl::Hours(1);
  // MasterEnv::heartbeat_interval: how often the master asks the tasks of
  // its sessions whether they restarted (zero: never).
  absl::Duration heartbeat_interval = absl::Seconds(10);
  absl::Duration discovery_timeout = absl::Seconds(30);
  // MasterEnv::optimize_graphs: false runs every session's steps without
  // the graph optimizer.
  bool optimize_graphs = true;
  // The largest piece of a tensor in one RecvTensor response.
  int64_t max_chunk_bytes = int64_t{1} << 30;
  // Serve tensors of 1 MiB and more to dfx receivers over the bulk TCP
  // data plane (rpc/bulk_transport.h; a second, kernel-picked port on the
  // task's host). Off: everything goes over gRPC (in chunks when big).
  // With TLS the bulk plane speaks TLS too, with the same certificate, key,
  // CA and client-certificate rule.
  bool enable_bulk = true;
  // With the bulk plane: receivers on this host take its tensors from an
  // abstract Unix socket as shared memory (one copy, no TCP). Off: TCP
  // for them too.
  bool enable_bulk_local = true;
  // The push path: tensors of at most 64 KiB that a _Send of this task
  // produces for a _Recv in another dfx task go there at once, over one
  // long-lived stream per peer (rpc/tensor_push.h), instead of waiting for
  // that task's RecvTensor. TensorFlow peers are always served and asked
  // with RecvTensor. Off: this task pushes nothing (it still takes pushes).
  bool enable_push = true;
  // The most bytes of tensors the process holds at once
  // (runtime/memory_limit.h; process-wide): -1 for the default share of
  // physical memory, 0 for none.
  int64_t memory_limit_bytes = -1;
  // The status page and /metrics (rpc/status_http.h) on this port of the
  // task's host: -1 for none, 0 to pick a free one (status_url() says).
  // With TLS it is served over HTTPS with the same certificate; with an
  // auth token, / and /metrics need it.
  int http_port = -1;
  // The auth token every call must carry, and TLS (rpc/security.h); the
  // server's own calls to the other tasks use the same token, and TLS
  // with the same CA and its certificate as the client certificate.
  ServerSecurity security;
};

// Thread-safe.
class GrpcServer {
 public:
  // Builds the task and starts serving on its address from the cluster (a
  // port of 0 picks a free one; address() says which). InvalidArgument for
  // a task not in the cluster or bad options; Unavailable naming the
  // address when it cannot be bound.
  static absl::StatusOr<std::unique_ptr<GrpcServer>> Create(
      const GrpcServerOptions& options);

  // Stop().
  ~GrpcServer();
  GrpcServer(const GrpcServer&) = delete;
  GrpcServer& operator=(const GrpcServer&) = delete;

  // Cancels every running step (clients get Cancelled or Unavailable),
  // gives in-flight RPCs up to `grace` to finish, then stops serving.
  // Idempotent.
  void Stop(absl::Duration grace = absl::Seconds(5));

  // "/job:worker/replica:0/task:0".
  const std::string& task() const;
  // "host:port" being served.
  const std::string& address() const;
  // "grpc://host:port": the master target for Session::Create.
  std::string target() const;

  Master* master() const;
  Worker* worker() const;
  // "http://host:port" (https with TLS) of the status page; empty when
  // options.http_port was -1.
  std::string status_url() const;

 private:
  class Impl;
  explicit GrpcServer(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace dfx

#endif  // DFX_RPC_GRPC_SERVER_H_
