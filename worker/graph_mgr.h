// GraphMgr: the partitions one worker session registered, each split by
// device into one executor per device, and how one step of them runs.
#ifndef DFX_WORKER_GRAPH_MGR_H_
#define DFX_WORKER_GRAPH_MGR_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/synchronization/mutex.h"
#include "graph/op_registry.h"
#include "proto/config.pb.h"
#include "proto/graph.pb.h"
#include "rendezvous/rendezvous_mgr.h"
#include "runtime/cancellation.h"
#include "runtime/device.h"
#include "runtime/executor.h"
#include "runtime/op_kernel.h"
#include "runtime/rendezvous.h"
#include "runtime/session_state.h"
#include "runtime/step_stats_collector.h"
#include "worker/worker_interface.h"

namespace dfx {

// Thread-safe: Register, Deregister and ExecuteAsync may be called from many
// threads at once, and many steps of one graph may run concurrently (each
// with its own step id). A graph deregistered while steps of it run stays
// alive until they finish.
class GraphMgr {
 public:
  // What the manager borrows; everything must outlive it and every step it
  // started.
  struct Env {
    const DeviceMgr* device_mgr = nullptr;
    RendezvousMgr* rendezvous_mgr = nullptr;
    // Where executors schedule their nodes (the worker's inter-op pool).
    Executor::Runner runner;
    const OpRegistry* ops = nullptr;
    const KernelRegistry* kernels = nullptr;
  };

  explicit GraphMgr(Env env);
  GraphMgr(const GraphMgr&) = delete;
  GraphMgr& operator=(const GraphMgr&) = delete;
  ~GraphMgr();

  // Imports `def` (internal '_' names allowed), checks that every node's
  // `device` names a device of this worker, splits the graph by device when
  // it spans several (the inserted _Send/_Recv keys stay in this process)
  // and builds one executor per device. Returns a handle unique within this
  // manager (16 hex digits, random per manager). `options` is accepted for
  // TensorFlow compatibility; no graph optimisation runs.
  // Errors: InvalidArgument from the import, or naming the node for an
  // empty device or one this worker does not have; the kernel registry's
  // error (naming the node) for a node without a usable kernel;
  // InvalidArgument naming the node for a client-terminated _Send/_Recv
  // whose rendezvous key cannot be built, or two of them with one key.
  absl::StatusOr<std::string> Register(const GraphDef& def,
                                       const GraphOptions& options = {});
  // The same, moving the nodes out of `def` instead of copying them.
  absl::StatusOr<std::string> Register(GraphDef&& def,
                                       const GraphOptions& options = {});

  // Forgets the graph; running steps of it finish normally.
  // Aborted "Graph handle is not found: <h>..." for an unknown handle.
  absl::Status Deregister(absl::string_view handle);
  // Forgets every graph and frees every tensor the session stored by
  // handle (the session is deleted).
  void DeregisterAll();

  // The tensors this session keeps by handle (GetSessionHandle): a step of
  // a graph with session-handle ops gives its kernels this state and a
  // tensor store of its own; when the step ends well, the stored tensors
  // whose handles it fetched move into the state. Never null.
  SessionState* session_state() const { return session_state_.get(); }

  using DoneCallback = std::function<void(const absl::Status&)>;

  // Runs one step of the graph `handle`:
  // - takes the step's rendezvous from the RendezvousMgr (Find(step_id));
  // - sends every feed of call->send into it under its key (canonicalised:
  //   the key the graph's client-terminated _Recv uses);
  // - runs every device executor of the graph concurrently on the runner;
  // - on success, receives every call->request.recv_key (sent by the
  //   graph's client-terminated _Sends) into call->recv, in that order,
  //   each named by the key as the request spelled it;
  // - then saves the tensors its GetSessionHandle nodes stored whose
  //   handles it fetched, or sent to another task (where the master's
  //   client-terminated _Send is), into session_state() (an error there, a
  //   handle stored twice, fails the step);
  // - with request.exec_opts().record_partition_graphs, puts each device's
  //   graph into call->partition_graphs.
  // On the first error of any executor (or of the feeds) the rendezvous is
  // aborted with it at once (so _Recvs waiting on this step, here or in other
  // processes, fail now) and the step is cancelled; the step then reports
  // that first error, preferring a root cause over a Cancelled status that
  // the cancellation caused. A step cancelled through `cm` ends Cancelled
  // (and aborts the rendezvous with that).
  // Errors before anything runs: Aborted "Graph handle is not found" for an
  // unknown handle; InvalidArgument naming the key for a malformed feed or
  // recv key, a feed key no client-terminated _Recv of the graph uses, a
  // recv key no client-terminated _Send of the graph uses, a key given
  // twice, or a client-terminated _Recv of the graph left without a feed.
  // A fetched tensor that is dead is InvalidArgument naming its key.
  // `call`, `cm` (optional) and `stats` (optional) are borrowed until
  // `done`, which runs exactly once on any thread (the caller's, before
  // ExecuteAsync returns, for the errors before anything runs).
  void ExecuteAsync(absl::string_view handle, int64_t step_id,
                    RunGraphCall* call, CancellationManager* cm,
                    StepStatsCollector* stats, DoneCallback done);

  // Number of registered graphs.
  size_t NumGraphs() const;

 private:
  struct ClientKey {
    Rendezvous::ParsedKey key;
    std::string node;  // the _Send or _Recv that uses it
    // For a fetch of a GetSessionHandle(V2)'s handle: that node's name.
    std::string handle_node;
  };
  struct Unit {
    Device* device = nullptr;
    std::unique_ptr<Executor> executor;
  };
  // One registered graph; shared with its running steps.
  struct Item {
    std::string handle;
    std::vector<Unit> units;
    // By canonical key (Rendezvous::CreateKey spelling).
    absl::flat_hash_map<std::string, ClientKey> feeds;
    absl::flat_hash_map<std::string, ClientKey> fetches;
    // Whether a node reaches the session state (a session-handle op): only
    // then does a step give its devices the session's state.
    bool uses_session_state = false;
    // GetSessionHandle(V2) nodes whose handle goes to another task through
    // a _Send: the master fetches it there (the client's _Send sits on the
    // client's device), so every good step of the graph keeps its tensor.
    std::vector<std::string> handles_sent_away;
  };
  class StepRun;

  // `graph` as imported from the registered GraphDef.
  absl::Status BuildUnits(std::unique_ptr<Graph> graph, Item* item) const;
  // Both Registers after the import: the units, kept under a new handle.
  absl::StatusOr<std::string> Add(std::unique_ptr<Graph> graph);
  // The kernel of `node` on `device`. Kernels of stateful ops (random
  // generators, variables) are made once per session and shared by every
  // graph that has the node, so a generator's stream does not restart when
  // the client fetches something else (TensorFlow's OpSegment). `library`:
  // the functions of the node's graph.
  absl::StatusOr<std::shared_ptr<OpKernel>> CreateKernel(
      const Node& node, Device* device,
      const FunctionDefLibrary* library) const;
  std::shared_ptr<const Item> Find(absl::string_view handle) const;

  const Env env_;
  const uint32_t tag_;  // random per manager; part of every handle
  const std::shared_ptr<SessionState> session_state_ =
      std::make_shared<SessionState>();
  mutable absl::Mutex mu_;
  uint32_t next_id_ ABSL_GUARDED_BY(mu_) = 0;
  absl::flat_hash_map<std::string, std::shared_ptr<const Item>> items_
      ABSL_GUARDED_BY(mu_);
  struct SharedKernel {
    NodeDef def;  // the node it was built from
    std::shared_ptr<OpKernel> kernel;
  };
  mutable absl::Mutex kernels_mu_;
  // By "device;node name".
  mutable absl::flat_hash_map<std::string, SharedKernel> stateful_kernels_
      ABSL_GUARDED_BY(kernels_mu_);
};

// The spelling Rendezvous::CreateKey gives `key` (16-digit incarnation):
// what a LocalRendezvous matches on. InvalidArgument naming the key when it
// does not parse.
absl::StatusOr<std::string> CanonicalRendezvousKey(absl::string_view key);

}  // namespace dfx

#endif  // DFX_WORKER_GRAPH_MGR_H_
