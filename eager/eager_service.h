// EagerService: TensorFlow's eager service (what a TF2 client reaches with
// tf.config.experimental_connect_to_cluster) over one server's devices, with
// no RPC types; rpc/grpc_eager_service.h serves it over gRPC.
//
// A client makes a context (CreateContext) on every task, then sends
// operations to run one at a time on a named device of the task (Enqueue).
// Each output is kept in the context as the remote tensor handle
// (operation id, output number) and the client gets its shape; later
// operations name their inputs by such handles, and the client drops them
// (handle_to_decref) when its EagerTensor dies. Tensors move between the
// client and the tasks as TensorFlow moves them: an eager `_Send` on one
// side and `_Recv` on the other, meeting in the rendezvous of step
// `context_id` (the client's RecvTensor reaches this server's worker, and a
// `_Recv` here fetches from the client's own server, named in the context's
// ServerDef).
//
// A function whose inputs live on other tasks (handles the client made
// there, named by their device) runs across tasks, as TensorFlow's
// ProcessFunctionLibraryRuntime runs it: each argument is placed on its
// input's device, the rest by the placer (resource users go with their
// resource), results here; the graph is cut per device, the parts on this
// task run here, and each other device's part is registered and run on its
// task as a component function of the same context and step.
#ifndef DFX_EAGER_EAGER_SERVICE_H_
#define DFX_EAGER_EAGER_SERVICE_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "graph/op_registry.h"
#include "proto/eager_service.pb.h"
#include "proto/tensorflow_server.pb.h"
#include "rendezvous/rendezvous_mgr.h"
#include "runtime/cancellation.h"
#include "runtime/device.h"
#include "runtime/op_kernel.h"
#include "worker/worker_cache.h"

namespace dfx {

// How a context reaches the eager services of the other tasks of its
// client's cluster: a task running a function with inputs on another task
// (a ParameterServerStrategy worker's step reading the ps tasks' variables)
// registers and runs the function's components there, in the same context.
// rpc/grpc_eager_client.h implements it over gRPC. Thread-safe.
class EagerPeerClient {
 public:
  virtual ~EagerPeerClient() = default;
  // `task`: "/job:ps/replica:0/task:0". `done` runs once, with the call's
  // status (its message names the task); `cancel` (may be null) ends the
  // call with Cancelled. The request and response must outlive `done`.
  virtual void EnqueueAsync(const std::string& task,
                            const eager::EnqueueRequest* request,
                            eager::EnqueueResponse* response,
                            CancellationManager* cancel,
                            std::function<void(absl::Status)> done) = 0;
  virtual void RunComponentFunctionAsync(
      const std::string& task,
      const eager::RunComponentFunctionRequest* request,
      eager::RunComponentFunctionResponse* response,
      CancellationManager* cancel, std::function<void(absl::Status)> done) = 0;
};

// What the service borrows; everything must outlive it.
struct EagerServiceEnv {
  const DeviceMgr* device_mgr = nullptr;
  // The worker's: a client's RecvTensor finds what an eager _Send put into
  // step `context_id`'s rendezvous here.
  RendezvousMgr* rendezvous_mgr = nullptr;
  // This server's task, "/job:worker/replica:0/task:0".
  std::string local_task;
  // Null: OpRegistry::Global() and StandardKernelRegistry().
  const OpRegistry* ops = nullptr;
  const KernelRegistry* kernels = nullptr;
  // Makes the worker cache through which a context's _Recv ops fetch from
  // the other tasks of its ServerDef's cluster (the client's own server
  // included). Null: contexts can receive only from this task.
  std::function<absl::StatusOr<std::unique_ptr<WorkerCacheInterface>>(
      const ServerDef& server_def)>
      worker_cache_factory;
  // Makes the client through which a context runs the components of a
  // multi-device function on the other tasks of its ServerDef's cluster.
  // Null: a function with an input on another task is Unimplemented.
  std::function<absl::StatusOr<std::unique_ptr<EagerPeerClient>>(
      const ServerDef& server_def)>
      peer_client_factory;
  // How often contexts past their keep-alive are looked for.
  absl::Duration gc_interval = absl::Seconds(1);
};

// Thread-safe. Calls block until their operations have run (an eager
// `_Recv` until its tensor comes, or the context or `call_cancel` is
// cancelled); run them off gRPC's threads.
//
// Errors: an unknown context is InvalidArgument naming its id (as
// TensorFlow's); an operation's error keeps the kernel's code and names the
// operation (type, id, device).
class EagerService {
 public:
  explicit EagerService(EagerServiceEnv env);
  // Stops the collector and closes every context.
  ~EagerService();
  EagerService(const EagerService&) = delete;
  EagerService& operator=(const EagerService&) = delete;

  absl::Status CreateContext(const eager::CreateContextRequest& request,
                             eager::CreateContextResponse* response);
  absl::Status UpdateContext(const eager::UpdateContextRequest& request,
                             eager::UpdateContextResponse* response);
  // Runs the queue's items in order; the first error ends the request (the
  // items before it have run, their outputs are kept). `call_cancel`
  // (may be null): cancels a waiting operation when the call goes away.
  absl::Status Enqueue(const eager::EnqueueRequest& request,
                       eager::EnqueueResponse* response,
                       CancellationManager* call_cancel = nullptr);
  // True when running `request` takes only microseconds and cannot wait:
  // only stateless synchronous operations whose kernels are built, with at
  // most 64 KiB of input and an output not sized by input values (no
  // functions, transfers, iterators, Fill), and bookkeeping items. The
  // RPC layer runs such a request on the thread that read it instead of
  // handing it to its pool (a thread hand-off costs more than the op).
  bool CanRunInline(const eager::EnqueueRequest& request) const;
  // Operations run as they are enqueued, so nothing is ever pending: OK for
  // a known context.
  absl::Status WaitQueueDone(const eager::WaitQueueDoneRequest& request,
                             eager::WaitQueueDoneResponse* response);
  absl::Status RunComponentFunction(
      const eager::RunComponentFunctionRequest& request,
      eager::RunComponentFunctionResponse* response,
      CancellationManager* call_cancel = nullptr);
  absl::Status KeepAlive(const eager::KeepAliveRequest& request,
                         eager::KeepAliveResponse* response);
  // OK for an unknown context too (it may have been collected), as
  // TensorFlow's.
  absl::Status CloseContext(const eager::CloseContextRequest& request,
                            eager::CloseContextResponse* response);

  // Closes every context not used for longer than its keep_alive_secs
  // (contexts with keep_alive_secs 0 live until closed); the collector
  // thread calls it every gc_interval. Returns how many went.
  int CollectIdleContexts();

  // Contexts alive now; and the remote tensor handles one holds (-1 when
  // there is no such context). For tests and the status page.
  int NumContexts() const;
  int64_t NumHandles(uint64_t context_id) const;
  // Kernels a context keeps (one per op signature; transfers keep none).
  int64_t NumKernels(uint64_t context_id) const;

 private:
  class Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace dfx

#endif  // DFX_EAGER_EAGER_SERVICE_H_
