#include "worker/graph_mgr.h"

#include <atomic>
#include <utility>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "base/logging.h"
#include "base/status_macros.h"
#include "google/protobuf/util/message_differencer.h"
#include "graph/graph_def_import.h"
#include "graph/partition.h"

namespace dfx {
namespace {

bool IsClientTerminated(const NodeDef& node) {
  auto it = node.attr().find("client_terminated");
  return it != node.attr().end() && it->second.b();
}

absl::Status GraphHandleNotFound(absl::string_view handle) {
  return absl::AbortedError(absl::StrCat(
      "Graph handle is not found: ", handle,
      ". Possibly, this worker just restarted."));
}

// A Cancelled status is what the step's cancellation makes of every other
// executor's work once one failed: never the root cause when another error
// exists.
bool IsDerived(const absl::Status& s) {
  return s.code() == absl::StatusCode::kCancelled;
}

bool IsSessionHandleOp(absl::string_view op) {
  return op == "GetSessionHandle" || op == "GetSessionHandleV2";
}

bool UsesSessionState(absl::string_view op) {
  return IsSessionHandleOp(op) || op == "GetSessionTensor" ||
         op == "DeleteSessionTensor";
}

}  // namespace

absl::StatusOr<std::string> CanonicalRendezvousKey(absl::string_view key) {
  DFX_ASSIGN_OR_RETURN(Rendezvous::ParsedKey parsed,
                       Rendezvous::ParsedKey::Parse(key));
  return Rendezvous::CreateKey(parsed.src_device(), parsed.src_incarnation(),
                               parsed.dst_device(), parsed.edge_name(),
                               parsed.frame_iter());
}

// ---------------------------------------------------------------------------
// StepRun: one step of one graph, from the executors' start to `done`.

class GraphMgr::StepRun : public std::enable_shared_from_this<StepRun> {
 public:
  StepRun(std::shared_ptr<const Item> item, int64_t step_id,
          RunGraphCall* call, std::shared_ptr<Rendezvous> rendezvous,
          std::vector<Rendezvous::ParsedKey> fetch_keys,
          std::shared_ptr<SessionState> session_state,
          std::vector<std::string> handle_nodes,
          CancellationManager* caller_cm, DoneCallback done)
      : item_(std::move(item)),
        step_id_(step_id),
        call_(call),
        rendezvous_(std::move(rendezvous)),
        fetch_keys_(std::move(fetch_keys)),
        session_state_(std::move(session_state)),
        handle_nodes_(std::move(handle_nodes)),
        caller_cm_(caller_cm),
        done_(std::move(done)) {}

  ~StepRun() { Unlink(); }

  // Links the caller's cancellation manager to the step's own one. False
  // when the caller's is already cancelled.
  bool LinkCancellation() {
    if (caller_cm_ == nullptr) return true;
    caller_token_ = caller_cm_->get_cancellation_token();
    // The callback holds the step's manager and rendezvous itself: the run
    // may end, and be destroyed, from inside that very callback, which is
    // still running their cancellation callbacks.
    caller_registered_ = caller_cm_->RegisterCallback(
        caller_token_,
        [cm = cm_, rendezvous = rendezvous_] { cm->StartCancel(); });
    return caller_registered_;
  }

  void Start(const Executor::Runner& runner, StepStatsCollector* stats) {
    pending_.store(static_cast<int>(item_->units.size()),
                   std::memory_order_relaxed);
    if (item_->units.empty()) {
      Finish();
      return;
    }
    // Each executor's callback holds the run alive until it has finished.
    // The last executor started may run its roots on a caller's thread
    // that would only wait (RunGraphCall::caller_runs_inline).
    const bool inline_last = call_->caller_runs_inline;
    const size_t n = item_->units.size();
    if (session_state_ != nullptr) AttachSessionState();
    for (size_t i = 0; i < n; ++i) {
      const Unit& unit = item_->units[i];
      Executor::Args args;
      args.step_id = step_id_;
      args.rendezvous = rendezvous_.get();
      args.cancellation_manager = cm_.get();
      args.stats_collector = stats;
      args.runner = runner;
      args.run_roots_inline = inline_last && i + 1 == n;
      unit.executor->RunAsync(
          args, [self = shared_from_this()](absl::Status s) {
            self->ExecutorDone(std::move(s));
          });
    }
  }

  // Fails the step before any executor started.
  void FailEarly(const absl::Status& s) {
    rendezvous_->StartAbort(s);
    Unlink();
    DoneCallback done = std::move(done_);
    done(s);
  }

 private:
  void ExecutorDone(absl::Status s) {
    if (!s.ok()) RecordError(s);
    if (pending_.fetch_sub(1, std::memory_order_acq_rel) == 1) Finish();
  }

  void RecordError(const absl::Status& s) {
    bool root = false;
    {
      absl::MutexLock lock(&mu_);
      if (status_.ok() || (IsDerived(status_) && !IsDerived(s))) {
        status_ = s;
        root = !IsDerived(s);
      }
    }
    // A root cause aborts the step's rendezvous now, so that every _Recv
    // waiting on this step (in this process or, through RecvTensor, in
    // others) fails with it rather than with a derived Cancelled.
    if (root) rendezvous_->StartAbort(s);
    cm_->StartCancel();
  }

  void Finish() {
    absl::Status status;
    {
      absl::MutexLock lock(&mu_);
      status = status_;
    }
    if (!status.ok()) {
      rendezvous_->StartAbort(status);
      Complete(status);
      return;
    }
    ReceiveFetches();
  }

  // Every fetch was sent by a client-terminated _Send of a finished
  // executor, so each RecvAsync completes at once; a key still missing
  // afterwards (a broken graph) is turned into an error instead of a wait.
  void ReceiveFetches() {
    const auto& names = call_->request.recv_key();
    call_->recv.clear();
    call_->recv.resize(fetch_keys_.size());
    // One count per receive, plus one held while they are being issued.
    outstanding_fetches_.store(static_cast<int>(fetch_keys_.size()) + 1,
                               std::memory_order_relaxed);
    std::shared_ptr<StepRun> self = shared_from_this();
    for (size_t i = 0; i < fetch_keys_.size(); ++i) {
      call_->recv[i].first = names[static_cast<int>(i)];
      Rendezvous::Args args;
      args.cancellation_manager = cm_.get();
      rendezvous_->RecvAsync(
          fetch_keys_[i], args,
          [self, i](const absl::Status& s, const Tensor& value,
                    bool is_dead) { self->FetchDone(i, s, value, is_dead); });
    }
    if (outstanding_fetches_.load(std::memory_order_acquire) > 1) {
      rendezvous_->StartAbort(absl::InternalError(absl::StrCat(
          "graph ", item_->handle, " finished step ", step_id_,
          " without sending every fetched tensor")));
    }
    FetchSettled();
  }

  void FetchDone(size_t i, const absl::Status& s, const Tensor& value,
                 bool is_dead) {
    absl::Status error = s;
    if (error.ok() && is_dead) {
      error = absl::InvalidArgumentError(
          absl::StrCat("The tensor returned for ", fetch_keys_[i].FullKey(),
                       " was not valid."));
    }
    if (error.ok()) {
      call_->recv[i].second = value;
    } else {
      absl::MutexLock lock(&mu_);
      if (status_.ok()) status_ = error;
    }
    FetchSettled();
  }

  void FetchSettled() {
    if (outstanding_fetches_.fetch_sub(1, std::memory_order_acq_rel) != 1) {
      return;
    }
    absl::Status status;
    {
      absl::MutexLock lock(&mu_);
      status = status_;
    }
    if (!status.ok()) {
      call_->recv.clear();
      rendezvous_->StartAbort(status);
    }
    Complete(status);
  }

  // The caller's manager is borrowed only until `done`.
  void Unlink() {
    if (caller_registered_) {
      caller_registered_ = false;
      caller_cm_->DeregisterCallback(caller_token_);
    }
  }

  // The session's state and the step's tensor store, where this step's
  // kernels look for them: each device's resource manager, in the step's
  // own container (step ids are random 63-bit numbers, so steps of other
  // sessions never share it).
  void AttachSessionState() {
    tensor_store_ = std::make_shared<TensorStore>();
    auto resource =
        std::make_shared<SessionStepResource>(session_state_, tensor_store_);
    const std::string container = SessionStepContainer(step_id_);
    for (const Unit& unit : item_->units) {
      // A second graph of this step on the device (never made by dfx's
      // master) shares the first one's.
      absl::StatusOr<std::shared_ptr<SessionStepResource>> r =
          unit.device->resource_manager()->LookupOrCreate<SessionStepResource>(
              container, kSessionStepName, [&resource] { return resource; });
      if (r.ok()) attached_.push_back(unit.device);
    }
  }

  // Saves the fetched handles' tensors (after a good step) and takes the
  // step's state out of the devices' resource managers.
  absl::Status DetachSessionState(absl::Status status) {
    if (tensor_store_ == nullptr) return status;
    if (status.ok()) {
      status = tensor_store_->SaveTensors(handle_nodes_, session_state_.get());
      if (!status.ok()) call_->recv.clear();
    }
    const std::string container = SessionStepContainer(step_id_);
    for (Device* device : attached_) {
      device->resource_manager()
          ->Delete(container, kSessionStepName, SessionStepResource::kTypeName)
          .IgnoreError();
    }
    attached_.clear();
    tensor_store_.reset();
    return status;
  }

  void Complete(absl::Status status) {
    status = DetachSessionState(std::move(status));
    Unlink();
    DoneCallback done = std::move(done_);
    done(status);
  }

  const std::shared_ptr<const Item> item_;
  const int64_t step_id_;
  RunGraphCall* const call_;
  const std::shared_ptr<Rendezvous> rendezvous_;
  const std::vector<Rendezvous::ParsedKey> fetch_keys_;
  // Null when the graph has no session-handle op.
  const std::shared_ptr<SessionState> session_state_;
  // The GetSessionHandle nodes whose handles this step fetches.
  const std::vector<std::string> handle_nodes_;
  std::shared_ptr<TensorStore> tensor_store_;
  std::vector<Device*> attached_;
  CancellationManager* const caller_cm_;
  DoneCallback done_;

  // The step's own manager: cancelled by the caller's, and by the first
  // error (the executors also cancel it themselves).
  const std::shared_ptr<CancellationManager> cm_ =
      std::make_shared<CancellationManager>();
  CancellationToken caller_token_ = -1;
  bool caller_registered_ = false;

  std::atomic<int> pending_{0};
  std::atomic<int> outstanding_fetches_{0};
  absl::Mutex mu_;
  absl::Status status_ ABSL_GUARDED_BY(mu_);
};

// ---------------------------------------------------------------------------
// GraphMgr

GraphMgr::GraphMgr(Env env)
    : env_(std::move(env)),
      tag_(static_cast<uint32_t>(NewIncarnation() >> 32)) {
  DFX_CHECK(env_.device_mgr != nullptr);
  DFX_CHECK(env_.rendezvous_mgr != nullptr);
  DFX_CHECK(env_.ops != nullptr);
  DFX_CHECK(env_.kernels != nullptr);
}

GraphMgr::~GraphMgr() = default;

absl::StatusOr<std::shared_ptr<OpKernel>> GraphMgr::CreateKernel(
    const Node& node, Device* device,
    const FunctionDefLibrary* library) const {
  if (!node.op_def().is_stateful()) {
    return env_.kernels->CreateKernel(node, device, library);
  }
  const std::string key = absl::StrCat(device->name(), ";", node.name());
  absl::MutexLock lock(&kernels_mu_);
  auto it = stateful_kernels_.find(key);
  // Compared as messages: attr maps serialize in no fixed order. Inputs do
  // not count: partitioning names a node's cross-device inputs after the
  // _Recv nodes of each step's graph, and the kernel (a dense table made
  // from its empty_key input, say) must not restart for that.
  google::protobuf::util::MessageDifferencer same_node;
  same_node.IgnoreField(NodeDef::descriptor()->FindFieldByName("input"));
  if (it != stateful_kernels_.end() &&
      same_node.Compare(it->second.def, node.def())) {
    return it->second.kernel;
  }
  // New, or a node of the same name that differs (a new graph version):
  // the newer definition wins.
  absl::StatusOr<std::unique_ptr<OpKernel>> kernel =
      env_.kernels->CreateKernel(node, device, library);
  if (!kernel.ok()) return kernel.status();
  std::shared_ptr<OpKernel> shared = *std::move(kernel);
  stateful_kernels_[key] = SharedKernel{node.def(), shared};
  return shared;
}

namespace {

ImportOptions RegisteredGraphImport() {
  ImportOptions options;
  options.allow_internal_names = true;
  return options;
}

}  // namespace

absl::Status GraphMgr::BuildUnits(std::unique_ptr<Graph> graph,
                                  Item* item) const {
  const ImportOptions import_options = RegisteredGraphImport();

  // Every node on a device of this worker; the devices in first-use order.
  std::vector<Device*> devices;
  for (Node* node : graph->nodes()) {
    const std::string& requested = node->requested_device();
    if (requested.empty()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "node '", node->name(), "' (op ", node->type_string(),
          ") has no device: every node of a registered graph must name a "
          "device of this worker"));
    }
    absl::StatusOr<Device*> device = env_.device_mgr->LookupDevice(requested);
    if (!device.ok()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "node '", node->name(), "' (op ", node->type_string(),
          ") is placed on '", requested,
          "', which is not a device of this worker: ",
          device.status().message()));
    }
    node->set_assigned_device_name((*device)->name());
    bool seen = false;
    for (Device* d : devices) seen |= d == *device;
    if (!seen) devices.push_back(*device);
  }

  for (const Node* graph_node : graph->nodes()) {
    if (UsesSessionState(graph_node->type_string())) {
      item->uses_session_state = true;
    }
    if (IsSendOp(graph_node->type_string()) &&
        !IsClientTerminated(graph_node->def())) {
      for (const Edge* e : graph_node->in_edges()) {
        if (!e->IsControlEdge() && e->src_output == 0 &&
            IsSessionHandleOp(e->src->type_string())) {
          item->handles_sent_away.push_back(e->src->name());
        }
      }
    }
  }

  // The keys of the client's feeds (client-terminated _Recv) and fetches
  // (client-terminated _Send).
  for (const Node* graph_node : graph->nodes()) {
    const NodeDef& node = graph_node->def();
    const bool send = IsSendOp(node.op());
    if ((!send && !IsRecvOp(node.op())) || !IsClientTerminated(node)) {
      continue;
    }
    absl::StatusOr<std::string> key = SendRecvRendezvousKey(node);
    if (key.ok()) key = CanonicalRendezvousKey(*key);
    absl::StatusOr<Rendezvous::ParsedKey> parsed =
        key.ok() ? Rendezvous::ParsedKey::Parse(*key)
                 : absl::StatusOr<Rendezvous::ParsedKey>(key.status());
    if (!parsed.ok()) {
      return absl::InvalidArgumentError(
          absl::StrCat("node '", node.name(), "' (op ", node.op(),
                       "): bad rendezvous key: ", parsed.status().message()));
    }
    auto& table = send ? item->fetches : item->feeds;
    std::string handle_node;
    if (send) {
      for (const Edge* e : graph_node->in_edges()) {
        if (!e->IsControlEdge() && e->dst_input == 0 && e->src_output == 0 &&
            IsSessionHandleOp(e->src->type_string())) {
          handle_node = e->src->name();
        }
      }
    }
    auto [it, inserted] = table.try_emplace(
        *key,
        ClientKey{*std::move(parsed), node.name(), std::move(handle_node)});
    if (!inserted) {
      return absl::InvalidArgumentError(absl::StrCat(
          "node '", node.name(), "' (op ", node.op(), ") uses rendezvous key '",
          *key, "', which node '", it->second.node, "' uses too"));
    }
  }

  ExecutorParams params;
  params.kernel_registry = env_.kernels;
  // `graph` is the one the executor is built for: its kernels see its
  // library.
  auto set_device = [this, &params](Device* device, const Graph& graph) {
    params.device = device;
    const FunctionDefLibrary* library = &graph.library();
    params.create_kernel = [this, device, library](const Node& node) {
      return CreateKernel(node, device, library);
    };
  };
  if (devices.size() <= 1) {
    Unit unit;
    unit.device = devices.empty() ? env_.device_mgr->ListDevices().front()
                                  : devices.front();
    set_device(unit.device, *graph);
    DFX_ASSIGN_OR_RETURN(unit.executor,
                         NewExecutor(params, std::move(graph)));
    item->units.push_back(std::move(unit));
    return absl::OkStatus();
  }

  // Several devices: one partition and one executor per device, joined by
  // _Send/_Recv pairs through the step's (in-process) rendezvous.
  PartitionOptions popts;
  popts.node_to_loc = [](const Node* n) { return n->assigned_device_name(); };
  popts.get_incarnation = [this](const std::string& name) -> uint64_t {
    absl::StatusOr<Device*> d = env_.device_mgr->LookupDevice(name);
    DFX_CHECK(d.ok());  // every location is a device name found above
    return (*d)->incarnation();
  };
  DFX_ASSIGN_OR_RETURN(auto partitions, Partition(*graph, popts));
  for (Device* device : devices) {
    auto it = partitions.find(device->name());
    DFX_CHECK(it != partitions.end());
    DFX_ASSIGN_OR_RETURN(
        std::unique_ptr<Graph> part,
        ImportGraphDef(std::move(it->second), env_.ops, import_options));
    Unit unit;
    unit.device = device;
    set_device(device, *part);
    DFX_ASSIGN_OR_RETURN(unit.executor, NewExecutor(params, std::move(part)));
    item->units.push_back(std::move(unit));
  }
  return absl::OkStatus();
}

absl::StatusOr<std::string> GraphMgr::Register(const GraphDef& def,
                                               const GraphOptions&) {
  DFX_ASSIGN_OR_RETURN(std::unique_ptr<Graph> graph,
                       ImportGraphDef(def, env_.ops, RegisteredGraphImport()));
  return Add(std::move(graph));
}

absl::StatusOr<std::string> GraphMgr::Register(GraphDef&& def,
                                               const GraphOptions&) {
  DFX_ASSIGN_OR_RETURN(
      std::unique_ptr<Graph> graph,
      ImportGraphDef(std::move(def), env_.ops, RegisteredGraphImport()));
  return Add(std::move(graph));
}

absl::StatusOr<std::string> GraphMgr::Add(std::unique_ptr<Graph> graph) {
  auto item = std::make_shared<Item>();
  DFX_RETURN_IF_ERROR(BuildUnits(std::move(graph), item.get()));
  absl::MutexLock lock(&mu_);
  item->handle = absl::StrFormat("%08x%08x", tag_, ++next_id_);
  std::string handle = item->handle;
  items_.emplace(handle, std::move(item));
  return handle;
}

absl::Status GraphMgr::Deregister(absl::string_view handle) {
  std::shared_ptr<const Item> item;
  {
    absl::MutexLock lock(&mu_);
    auto it = items_.find(handle);
    if (it == items_.end()) return GraphHandleNotFound(handle);
    item = std::move(it->second);
    items_.erase(it);
  }
  // `item` (and its executors) is released here unless steps still hold it.
  return absl::OkStatus();
}

void GraphMgr::DeregisterAll() {
  session_state_->Clear();
  absl::flat_hash_map<std::string, std::shared_ptr<const Item>> items;
  absl::MutexLock lock(&mu_);
  items.swap(items_);
}

size_t GraphMgr::NumGraphs() const {
  absl::MutexLock lock(&mu_);
  return items_.size();
}

std::shared_ptr<const GraphMgr::Item> GraphMgr::Find(
    absl::string_view handle) const {
  absl::MutexLock lock(&mu_);
  auto it = items_.find(handle);
  return it == items_.end() ? nullptr : it->second;
}

void GraphMgr::ExecuteAsync(absl::string_view handle, int64_t step_id,
                            RunGraphCall* call, CancellationManager* cm,
                            StepStatsCollector* stats, DoneCallback done) {
  std::shared_ptr<const Item> item = Find(handle);
  if (item == nullptr) {
    done(GraphHandleNotFound(handle));
    return;
  }
  call->partition_graphs.clear();
  if (call->request.exec_opts().record_partition_graphs()) {
    for (const Unit& unit : item->units) {
      call->partition_graphs.push_back(ToGraphDef(unit.executor->graph()));
    }
  }

  // Check every key against the graph before touching the rendezvous: a
  // feed nobody receives would linger, a missing feed or fetch would wait
  // for ever.
  std::vector<const ClientKey*> feeds;
  feeds.reserve(call->send.size());
  absl::flat_hash_set<const ClientKey*> fed;
  for (const auto& [name, tensor] : call->send) {
    absl::StatusOr<std::string> key = CanonicalRendezvousKey(name);
    if (!key.ok()) {
      done(absl::InvalidArgumentError(absl::StrCat(
          "RunGraph feed: ", key.status().message())));
      return;
    }
    auto it = item->feeds.find(*key);
    if (it == item->feeds.end()) {
      done(absl::InvalidArgumentError(absl::StrCat(
          "RunGraph feed '", name, "' is not received by any client-"
          "terminated _Recv of graph ", item->handle)));
      return;
    }
    if (!fed.insert(&it->second).second) {
      done(absl::InvalidArgumentError(
          absl::StrCat("RunGraph feed '", name, "' is given twice")));
      return;
    }
    feeds.push_back(&it->second);
  }
  if (fed.size() != item->feeds.size()) {
    for (const auto& [key, client_key] : item->feeds) {
      if (fed.contains(&client_key)) continue;
      done(absl::InvalidArgumentError(absl::StrCat(
          "graph ", item->handle, " needs a feed for '", key, "' (node '",
          client_key.node, "'), which RunGraph did not send")));
      return;
    }
  }
  std::vector<Rendezvous::ParsedKey> fetch_keys;
  fetch_keys.reserve(call->request.recv_key_size());
  std::vector<std::string> handle_nodes = item->handles_sent_away;
  absl::flat_hash_set<std::string> fetched;
  for (const std::string& name : call->request.recv_key()) {
    absl::StatusOr<std::string> key = CanonicalRendezvousKey(name);
    if (!key.ok()) {
      done(absl::InvalidArgumentError(absl::StrCat(
          "RunGraph recv_key: ", key.status().message())));
      return;
    }
    auto it = item->fetches.find(*key);
    if (it == item->fetches.end()) {
      done(absl::InvalidArgumentError(absl::StrCat(
          "RunGraph recv_key '", name, "' is not sent by any client-"
          "terminated _Send of graph ", item->handle)));
      return;
    }
    if (!fetched.insert(*key).second) {
      done(absl::InvalidArgumentError(
          absl::StrCat("RunGraph recv_key '", name, "' is given twice")));
      return;
    }
    fetch_keys.push_back(it->second.key);
    if (!it->second.handle_node.empty()) {
      handle_nodes.push_back(it->second.handle_node);
    }
  }

  std::shared_ptr<Rendezvous> rendezvous = env_.rendezvous_mgr->Find(step_id);
  const bool uses_state = item->uses_session_state;
  auto run = std::make_shared<StepRun>(
      item, step_id, call, rendezvous, std::move(fetch_keys),
      uses_state ? session_state_ : nullptr, std::move(handle_nodes), cm,
      std::move(done));
  if (!run->LinkCancellation()) {
    run->FailEarly(absl::CancelledError(
        absl::StrCat("step ", step_id, " was cancelled before it started")));
    return;
  }
  // The feeds go in before any executor starts (a Send never blocks).
  for (size_t i = 0; i < feeds.size(); ++i) {
    absl::Status s = rendezvous->Send(feeds[i]->key, Rendezvous::Args(),
                                      call->send[i].second, /*is_dead=*/false);
    if (!s.ok()) {
      run->FailEarly(s);
      return;
    }
  }
  run->Start(env_.runner, stats);
}

}  // namespace dfx
