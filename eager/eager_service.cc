#include "eager/eager_service.h"

#include <atomic>
#include <functional>
#include <initializer_list>
#include <map>
#include <optional>
#include <set>
#include <tuple>
#include <thread>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/container/inlined_vector.h"
#include "absl/hash/hash.h"
#include "absl/random/random.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/synchronization/mutex.h"
#include "absl/synchronization/notification.h"
#include "absl/types/span.h"
#include "base/log.h"
#include "base/status_macros.h"
#include "google/protobuf/io/coded_stream.h"
#include "google/protobuf/io/zero_copy_stream_impl_lite.h"
#include "graph/device_name.h"
#include "graph/function_library.h"
#include "graph/graph_def_import.h"
#include "graph/lower_functional_ops.h"
#include "graph/node_def_util.h"
#include "graph/partition.h"
#include "graph/placer.h"
#include "kernels/kernels.h"
#include "rendezvous/remote_rendezvous.h"
#include "runtime/denormal.h"
#include "runtime/executor.h"
#include "runtime/resource_handle.h"
#include "runtime/resource_mgr.h"
#include "runtime/tensor.h"
#include "worker/worker_cache_fetcher.h"

namespace dfx {
namespace {

// TensorFlow's "no id": an operation sent with it has its outputs returned
// in the response instead of kept.
constexpr int64_t kInvalidOpId = -1;

// The bits of the context id, as the step id of its rendezvous (TensorFlow
// casts the same way on both sides).
int64_t StepIdOf(uint64_t context_id) {
  return static_cast<int64_t>(context_id);
}

// TensorFlow's ClusterCoordinator recognises a lost context (a restarted
// or collected worker) by the start of TensorFlow's message; keep it.
absl::Status UnknownContext(uint64_t context_id) {
  return absl::InvalidArgumentError(absl::StrCat(
      "Unable to find a context_id matching the specified one (", context_id,
      "): it was never created on this task, was closed, or was collected "
      "after its client stopped sending KeepAlive (or the task restarted)"));
}

// How a context reaches the other tasks of its client's cluster (the
// client's own server included): a worker cache made from the context's
// ServerDef, and the fetcher that asks them for tensors with RecvTensor.
// Shared by the context's rendezvous; kept a while after the context goes,
// for fetches still finishing.
struct ContextPeers {
  std::unique_ptr<WorkerCacheInterface> cache;
  std::unique_ptr<WorkerCacheFetcher> fetcher;
  // Null without EagerServiceEnv::peer_client_factory.
  std::unique_ptr<EagerPeerClient> eager;
};

// The rendezvous of one step of a context (step `context_id` for single
// ops, a component function's func_step_id): sends, and receives of
// tensors sent in this task, go to the worker's rendezvous of the step,
// where the worker's RecvTensor finds them for other tasks; receives from
// other tasks fetch through the context's peers.
class StepRendezvous : public Rendezvous {
 public:
  StepRendezvous(std::shared_ptr<Rendezvous> shared, std::string local_task,
                 std::shared_ptr<ContextPeers> peers, int64_t step_id)
      : shared_(std::move(shared)),
        local_task_(std::move(local_task)),
        peers_(std::move(peers)) {
    if (peers_ != nullptr) {
      remote_ = std::make_unique<RemoteRendezvous>(step_id, local_task_,
                                                   peers_->fetcher.get());
    }
  }

  absl::Status Send(const ParsedKey& key, const Args& args,
                    const Tensor& value, bool is_dead) override {
    // Never pushed: the receiving task's eager step fetches it from the
    // worker's rendezvous here (RecvTensor), not from its own inbox.
    Args kept = args;
    kept.client_terminated = true;
    return shared_->Send(key, kept, value, is_dead);
  }
  void RecvAsync(const ParsedKey& key, const Args& args,
                 DoneCallback done) override {
    if (remote_ == nullptr || key.src().TaskName() == local_task_) {
      shared_->RecvAsync(key, args, std::move(done));
    } else {
      remote_->RecvAsync(key, args, std::move(done));
    }
  }
  void RecvLocalAsync(const ParsedKey& key, const Args& args,
                      DoneCallback done) override {
    shared_->RecvLocalAsync(key, args, std::move(done));
  }
  void StartAbort(const absl::Status& status) override {
    shared_->StartAbort(status);
    if (remote_ != nullptr) remote_->StartAbort(status);
  }

 private:
  const std::shared_ptr<Rendezvous> shared_;
  const std::string local_task_;
  // Declared before remote_, which borrows its fetcher.
  const std::shared_ptr<ContextPeers> peers_;
  std::unique_ptr<RemoteRendezvous> remote_;
};

// The part of a multi-device function on another task: a component
// function registered there, whose arguments are some of the function's.
struct RemotePart {
  std::string task;    // "/job:ps/replica:0/task:0"
  std::string device;  // the full name of the device it runs on
  std::string function;
  // The function's input index of each of the component's arguments.
  std::vector<int> args;
};

// A function instantiated for one signature (and, when multi-device, one
// set of input devices): its lowered graph's executors here, one per local
// device, and its parts on other tasks; built once.
struct ComponentFunction {
  // The graph's op registry lives in the library.
  std::shared_ptr<const FunctionLibrary> library;
  // One for a function on one device of this task.
  std::vector<std::unique_ptr<Executor>> executors;
  std::vector<RemotePart> remote;
  DataTypeVector arg_types;
  DataTypeVector ret_types;
};

// A kernel built for one op signature (device, op, attrs), kept for the
// context's life: the next op with the same signature runs it without
// building anything.
struct CachedKernel {
  std::unique_ptr<OpKernel> kernel;
  Device* device = nullptr;
  DataTypeVector input_types;
  DataTypeVector output_types;
};

// The cache key of an operation: device, op and its attrs in name order,
// each value serialized deterministically.
std::string SignatureOf(const eager::Operation& op) {
  std::string key = absl::StrCat(op.device(), "|", op.name());
  std::map<absl::string_view, const AttrValue*> sorted;
  for (const auto& [name, value] : op.attrs()) sorted.emplace(name, &value);
  for (const auto& [name, value] : sorted) {
    absl::StrAppend(&key, "|", name, "=");
    google::protobuf::io::StringOutputStream raw(&key);
    google::protobuf::io::CodedOutputStream out(&raw);
    out.SetSerializationDeterministic(true);
    value->SerializeToCodedStream(&out);
  }
  return key;
}

bool IsTransfer(absl::string_view op) {
  return op == "_Send" || op == "_Recv" || op == "_HostSend" ||
         op == "_HostRecv";
}

struct HandleKey {
  int64_t op_id;
  int32_t output_num;
  bool operator==(const HandleKey& o) const {
    return op_id == o.op_id && output_num == o.output_num;
  }
  template <typename H>
  friend H AbslHashValue(H h, const HandleKey& k) {
    return H::combine(std::move(h), k.op_id, k.output_num);
  }
};

struct RemoteTensor {
  Tensor tensor;
  Device* device = nullptr;
};

class Context {
 public:
  Context(uint64_t id, int64_t keep_alive_secs, uint64_t view_id,
          std::shared_ptr<ContextPeers> peers,
          std::shared_ptr<StepRendezvous> rendezvous)
      : id_(id),
        keep_alive_(absl::Seconds(keep_alive_secs)),
        peers_(std::move(peers)),
        rendezvous_(std::move(rendezvous)),
        view_id_(view_id),
        last_used_(absl::Now()) {}

  uint64_t id() const { return id_; }
  absl::Duration keep_alive() const { return keep_alive_; }
  StepRendezvous* rendezvous() const { return rendezvous_.get(); }
  const std::shared_ptr<ContextPeers>& peers() const { return peers_; }
  CancellationManager* cancellation() { return &cancel_; }

  uint64_t view_id() const {
    absl::MutexLock lock(&mu_);
    return view_id_;
  }
  void set_view_id(uint64_t v) {
    absl::MutexLock lock(&mu_);
    view_id_ = v;
  }

  // Calls in flight keep a context from being collected; each call's start
  // and end count as use.
  void BeginCall() {
    absl::MutexLock lock(&mu_);
    ++calls_;
    last_used_ = absl::Now();
  }
  void EndCall() {
    absl::MutexLock lock(&mu_);
    --calls_;
    last_used_ = absl::Now();
  }
  void Touch() {
    absl::MutexLock lock(&mu_);
    last_used_ = absl::Now();
  }
  bool Expired(absl::Time now) const {
    absl::MutexLock lock(&mu_);
    return keep_alive_ > absl::ZeroDuration() && calls_ == 0 &&
           now - last_used_ > keep_alive_;
  }

  absl::StatusOr<RemoteTensor> Lookup(HandleKey key) const {
    absl::MutexLock lock(&mu_);
    auto it = handles_.find(key);
    if (it == handles_.end()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "no remote tensor handle (op_id ", key.op_id, ", output_num ",
          key.output_num, ") in eager context ", id_,
          ": never made here, or already released"));
    }
    return it->second;
  }
  void Put(HandleKey key, RemoteTensor value) {
    absl::MutexLock lock(&mu_);
    // A resource made in this context is deleted with it (TensorFlow keeps
    // a context's resources in devices of its own).
    if (value.tensor.dtype() == DT_RESOURCE &&
        value.tensor.NumElements() == 1 && value.device != nullptr) {
      const ResourceHandle& h = value.tensor.scalar<ResourceHandle>();
      resources_.insert(
          {value.device, h.container(), h.name(), h.maybe_type_name()});
    }
    handles_[key] = std::move(value);
  }
  // TensorFlow's clients release each handle once; a second release (or
  // one of a handle never made) is harmless. An anonymous iterator or seed
  // generator made in this context goes with the last handle naming it:
  // TensorFlow 2 counts references to them instead of sending a delete.
  void Release(HandleKey key) {
    std::optional<ResourceKey> drop;
    {
      absl::MutexLock lock(&mu_);
      auto it = handles_.find(key);
      if (it == handles_.end()) return;
      const RemoteTensor released = std::move(it->second);
      handles_.erase(it);
      std::optional<ResourceKey> r = CountedResourceOf(released);
      if (r.has_value() && resources_.contains(*r)) {
        bool named_elsewhere = false;
        for (const auto& [k, v] : handles_) {
          std::optional<ResourceKey> other = CountedResourceOf(v);
          if (other.has_value() && !(*other < *r) && !(*r < *other)) {
            named_elsewhere = true;
            break;
          }
        }
        if (!named_elsewhere) {
          resources_.erase(*r);
          drop = std::move(r);
        }
      }
    }
    if (drop.has_value()) {
      // NotFound: the client deleted it already.
      drop->device->resource_manager()
          ->Delete(drop->container, drop->name, drop->type_name)
          .IgnoreError();
    }
  }
  int64_t NumHandles() const {
    absl::MutexLock lock(&mu_);
    return static_cast<int64_t>(handles_.size());
  }
  int64_t NumKernels() const {
    absl::MutexLock lock(&mu_);
    return static_cast<int64_t>(kernels_.size());
  }

  // The kernel of `op`'s signature when one was built; null otherwise.
  CachedKernel* CachedKernelOf(const eager::Operation& op) const {
    const std::string key = SignatureOf(op);
    absl::MutexLock lock(&mu_);
    auto it = kernels_.find(key);
    return it == kernels_.end() ? nullptr : it->second.get();
  }
  // The bytes of the tensor a handle names; -1 when there is none.
  int64_t HandleBytes(HandleKey key) const {
    absl::MutexLock lock(&mu_);
    auto it = handles_.find(key);
    return it == handles_.end()
               ? -1
               : static_cast<int64_t>(it->second.tensor.TotalBytes());
  }

  // The kernel of `op`'s signature, built on first use by `build`.
  absl::StatusOr<CachedKernel*> Kernel(
      const eager::Operation& op,
      const std::function<absl::StatusOr<std::unique_ptr<CachedKernel>>()>&
          build) {
    std::string key = SignatureOf(op);
    {
      absl::MutexLock lock(&mu_);
      auto it = kernels_.find(key);
      if (it != kernels_.end()) return it->second.get();
    }
    DFX_ASSIGN_OR_RETURN(std::unique_ptr<CachedKernel> k, build());
    absl::MutexLock lock(&mu_);
    auto [it, inserted] = kernels_.try_emplace(std::move(key), std::move(k));
    return it->second.get();
  }

  // Ends everything the context has in flight and drops what it holds.
  // Returns what must outlive the fetches it started.
  std::shared_ptr<ContextPeers> Close(const absl::Status& why) {
    cancel_.StartCancel();
    rendezvous_->StartAbort(why);
    std::vector<ResourceKey> resources;
    {
      absl::MutexLock lock(&mu_);
      handles_.clear();
      resources.assign(resources_.begin(), resources_.end());
      resources_.clear();
    }
    for (const ResourceKey& r : resources) {
      // NotFound: the client destroyed it already.
      r.device->resource_manager()
          ->Delete(r.container, r.name, r.type_name)
          .IgnoreError();
    }
    {
      absl::MutexLock lock(&mu_);
      kernels_.clear();
      components_.clear();
    }
    return peers_;
  }

 private:
  struct ResourceKey {
    Device* device;
    std::string container, name, type_name;
    bool operator<(const ResourceKey& o) const {
      return std::tie(device, container, name, type_name) <
             std::tie(o.device, o.container, o.name, o.type_name);
    }
  };

  // The resource a handle names when it is one TensorFlow reference-counts
  // (an anonymous iterator, multi-device iterator or seed generator).
  static std::optional<ResourceKey> CountedResourceOf(const RemoteTensor& t) {
    if (t.tensor.dtype() != DT_RESOURCE || t.tensor.NumElements() != 1 ||
        t.device == nullptr) {
      return std::nullopt;
    }
    const ResourceHandle& h = t.tensor.scalar<ResourceHandle>();
    if (!absl::StartsWith(h.name(), "_AnonymousIterator") &&
        !absl::StartsWith(h.name(), "_AnonymousMultiDeviceIterator") &&
        !absl::StartsWith(h.name(), "_AnonymousSeedGenerator")) {
      return std::nullopt;
    }
    return ResourceKey{t.device, h.container(), h.name(), h.maybe_type_name()};
  }

  const uint64_t id_;
  const absl::Duration keep_alive_;
  const std::shared_ptr<ContextPeers> peers_;
  const std::shared_ptr<StepRendezvous> rendezvous_;
  CancellationManager cancel_;
  mutable absl::Mutex mu_;
  uint64_t view_id_ ABSL_GUARDED_BY(mu_);
  int calls_ ABSL_GUARDED_BY(mu_) = 0;
  absl::Time last_used_ ABSL_GUARDED_BY(mu_);
  absl::flat_hash_map<HandleKey, RemoteTensor> handles_ ABSL_GUARDED_BY(mu_);
  absl::flat_hash_map<std::string, std::unique_ptr<CachedKernel>> kernels_
      ABSL_GUARDED_BY(mu_);
  std::set<ResourceKey> resources_ ABSL_GUARDED_BY(mu_);
  // Functions registered by the client, and the libraries built from them
  // per called function (dropped on a change).
  FunctionDefLibrary functions_ ABSL_GUARDED_BY(mu_);
  absl::flat_hash_map<std::string, std::shared_ptr<const FunctionLibrary>>
      libraries_ ABSL_GUARDED_BY(mu_);
  absl::flat_hash_map<std::string, std::shared_ptr<ComponentFunction>>
      components_ ABSL_GUARDED_BY(mu_);
  absl::flat_hash_map<std::string, DeviceAttributes> cluster_devices_
      ABSL_GUARDED_BY(mu_);

 public:
  // The devices of the client's cluster (CreateContext's and
  // UpdateContext's cluster_device_attributes), by full name.
  void SetClusterDevices(
      const google::protobuf::RepeatedPtrField<DeviceAttributes>& devices) {
    absl::MutexLock lock(&mu_);
    cluster_devices_.clear();
    for (const DeviceAttributes& d : devices) cluster_devices_[d.name()] = d;
  }
  absl::flat_hash_map<std::string, DeviceAttributes> ClusterDevices() const {
    absl::MutexLock lock(&mu_);
    return cluster_devices_;
  }
  // The functions registered so far.
  FunctionDefLibrary Functions() const {
    absl::MutexLock lock(&mu_);
    return functions_;
  }

  // Adds the function and the library it comes with; a function already
  // registered under its name is kept (the client registers each once per
  // context, and functions it shares with others again).
  void RegisterFunction(const eager::RegisterFunctionOp& op) {
    absl::MutexLock lock(&mu_);
    auto add = [this](const FunctionDef& f) {
      for (const FunctionDef& have : functions_.function()) {
        if (have.signature().name() == f.signature().name()) return;
      }
      *functions_.add_function() = f;
      libraries_.clear();
    };
    add(op.function_def());
    for (const FunctionDef& f : op.library().function()) add(f);
    for (const GradientDef& g : op.library().gradient()) {
      *functions_.add_gradient() = g;
    }
  }
  void RemoveFunction(const std::string& name) {
    absl::MutexLock lock(&mu_);
    auto* fns = functions_.mutable_function();
    for (int i = 0; i < fns->size(); ++i) {
      if (fns->Get(i).signature().name() == name) {
        fns->DeleteSubrange(i, 1);
        libraries_.clear();
        break;
      }
    }
    for (auto it = components_.begin(); it != components_.end();) {
      if (absl::StartsWith(it->first, absl::StrCat(name, "|"))) {
        components_.erase(it++);
      } else {
        ++it;
      }
    }
  }
  // The library of function `name` and what it calls: only the functions
  // a call reaches are validated and instantiated (a client registers
  // others that dfx need not understand), as TensorFlow looks at a
  // function only when it runs.
  absl::StatusOr<std::shared_ptr<const FunctionLibrary>> Library(
      const std::string& name, const OpRegistry* ops) {
    absl::MutexLock lock(&mu_);
    auto it = libraries_.find(name);
    if (it != libraries_.end()) return it->second;
    GraphDef call;
    call.add_node()->set_op(name);
    *call.mutable_library() = functions_;
    DFX_ASSIGN_OR_RETURN(
        std::unique_ptr<FunctionLibrary> lib,
        FunctionLibrary::Create(ReachableFunctions(call), ops));
    std::shared_ptr<const FunctionLibrary> shared = std::move(lib);
    libraries_[name] = shared;
    return shared;
  }
  // The component function of `key`, built on first use by `build`.
  absl::StatusOr<std::shared_ptr<ComponentFunction>> Component(
      const std::string& key,
      const std::function<
          absl::StatusOr<std::shared_ptr<ComponentFunction>>()>& build) {
    {
      absl::MutexLock lock(&mu_);
      auto it = components_.find(key);
      if (it != components_.end()) return it->second;
    }
    DFX_ASSIGN_OR_RETURN(std::shared_ptr<ComponentFunction> f, build());
    absl::MutexLock lock(&mu_);
    auto [it, inserted] = components_.try_emplace(key, std::move(f));
    return it->second;
  }
};

// Cancels `target` when either source is cancelled, for as long as it
// lives.
class CancelLink {
 public:
  CancelLink(CancellationManager* target,
             std::initializer_list<CancellationManager*> sources) {
    for (CancellationManager* s : sources) {
      if (s == nullptr) continue;
      CancellationToken t = s->get_cancellation_token();
      if (s->RegisterCallback(t, [target] { target->StartCancel(); })) {
        links_.emplace_back(s, t);
      } else {
        target->StartCancel();
      }
    }
  }
  ~CancelLink() {
    for (auto& [s, t] : links_) s->DeregisterCallback(t);
  }

 private:
  std::vector<std::pair<CancellationManager*, CancellationToken>> links_;
};

// Keeps a context's call count up for the duration of a call.
class CallScope {
 public:
  explicit CallScope(std::shared_ptr<Context> c) : c_(std::move(c)) {
    c_->BeginCall();
  }
  ~CallScope() { c_->EndCall(); }

 private:
  std::shared_ptr<Context> c_;
};

}  // namespace

class EagerService::Impl {
 public:
  explicit Impl(EagerServiceEnv env) : env_(std::move(env)) {
    if (env_.ops == nullptr) env_.ops = OpRegistry::Global();
    if (env_.kernels == nullptr) env_.kernels = StandardKernelRegistry();
    if (auto t = DeviceName::Parse(env_.local_task); t.ok()) {
      env_.local_task = t->TaskName();
    }
    collector_ = std::thread([this] { CollectLoop(); });
  }

  ~Impl() {
    {
      absl::MutexLock lock(&mu_);
      stopping_ = true;
    }
    collector_.join();
    std::vector<std::shared_ptr<Context>> all;
    {
      absl::MutexLock lock(&mu_);
      for (auto& [id, c] : contexts_) all.push_back(std::move(c));
      contexts_.clear();
    }
    for (auto& c : all) {
      Retire(c->Close(absl::CancelledError("the eager service is stopping")));
    }
  }

  absl::Status CreateContext(const eager::CreateContextRequest& req,
                             eager::CreateContextResponse* resp) {
    if (req.keep_alive_secs() < 0) {
      return absl::InvalidArgumentError(absl::StrCat(
          "CreateContext: keep_alive_secs must not be negative, got ",
          req.keep_alive_secs()));
    }
    DFX_RETURN_IF_ERROR(CheckServerDef(req.server_def(), "CreateContext"));
    if (req.clear_existing_contexts()) CloseAll();
    std::unique_ptr<WorkerCacheInterface> cache;
    if (env_.worker_cache_factory && req.server_def().cluster().job_size() > 0) {
      absl::StatusOr<std::unique_ptr<WorkerCacheInterface>> made =
          env_.worker_cache_factory(req.server_def());
      if (!made.ok()) {
        return absl::InvalidArgumentError(absl::StrCat(
            "CreateContext: the server_def's cluster is unusable: ",
            made.status().message()));
      }
      cache = *std::move(made);
    }
    {
      absl::MutexLock lock(&mu_);
      if (contexts_.contains(req.context_id())) {
        return absl::AlreadyExistsError(absl::StrCat(
            "CreateContext: an eager context with id ", req.context_id(),
            " already exists on this task"));
      }
    }
    std::shared_ptr<ContextPeers> peers;
    if (cache != nullptr) {
      peers = std::make_shared<ContextPeers>();
      peers->fetcher = std::make_unique<WorkerCacheFetcher>(cache.get());
      peers->cache = std::move(cache);
      if (env_.peer_client_factory) {
        absl::StatusOr<std::unique_ptr<EagerPeerClient>> eager =
            env_.peer_client_factory(req.server_def());
        if (!eager.ok()) {
          return absl::InvalidArgumentError(absl::StrCat(
              "CreateContext: the server_def's cluster is unusable: ",
              eager.status().message()));
        }
        peers->eager = *std::move(eager);
      }
    }
    const int64_t step = StepIdOf(req.context_id());
    auto rendezvous = std::make_shared<StepRendezvous>(
        env_.rendezvous_mgr->Find(step), env_.local_task, peers, step);
    auto context = std::make_shared<Context>(
        req.context_id(), req.keep_alive_secs(), req.context_view_id(),
        std::move(peers), std::move(rendezvous));
    context->SetClusterDevices(req.cluster_device_attributes());
    {
      absl::MutexLock lock(&mu_);
      auto [it, inserted] = contexts_.try_emplace(req.context_id(), context);
      if (!inserted) {
        Retire(context->Close(absl::CancelledError("duplicate context")));
        return absl::AlreadyExistsError(absl::StrCat(
            "CreateContext: an eager context with id ", req.context_id(),
            " already exists on this task"));
      }
    }
    for (Device* d : env_.device_mgr->ListDevices()) {
      *resp->add_device_attributes() = d->attributes();
    }
    spdlog::info("task {}: eager context {} created (keep-alive {}s{})",
                 env_.local_task, req.context_id(), req.keep_alive_secs(),
                 req.async() ? ", async client" : "");
    return absl::OkStatus();
  }

  absl::Status UpdateContext(const eager::UpdateContextRequest& req,
                             eager::UpdateContextResponse* resp) {
    DFX_ASSIGN_OR_RETURN(std::shared_ptr<Context> c, Find(req.context_id()));
    if (req.has_server_def()) {
      DFX_RETURN_IF_ERROR(CheckServerDef(req.server_def(), "UpdateContext"));
    }
    c->set_view_id(req.context_view_id());
    if (req.cluster_device_attributes_size() > 0) {
      c->SetClusterDevices(req.cluster_device_attributes());
    }
    c->Touch();
    for (Device* d : env_.device_mgr->ListDevices()) {
      *resp->add_device_attributes() = d->attributes();
    }
    return absl::OkStatus();
  }

  absl::Status Enqueue(const eager::EnqueueRequest& req,
                       eager::EnqueueResponse* resp,
                       CancellationManager* call_cancel) {
    DFX_ASSIGN_OR_RETURN(std::shared_ptr<Context> c, Find(req.context_id()));
    CallScope scope(c);
    for (const eager::QueueItem& item : req.queue()) {
      eager::QueueResponse* out = resp->add_queue_response();
      switch (item.item_case()) {
        case eager::QueueItem::kHandleToDecref:
          c->Release({item.handle_to_decref().op_id(),
                      item.handle_to_decref().output_num()});
          break;
        case eager::QueueItem::kOperation:
          DFX_RETURN_IF_ERROR(
              RunOperation(c.get(), item.operation(), out, call_cancel));
          break;
        case eager::QueueItem::kSendTensor:
          DFX_RETURN_IF_ERROR(SendTensor(c.get(), item.send_tensor()));
          break;
        case eager::QueueItem::kCleanupFunction:
          // The function's step is over: what it sent and nobody took goes.
          env_.rendezvous_mgr->Cleanup(item.cleanup_function().step_id());
          break;
        case eager::QueueItem::kSyncRemoteExecutorForStream:
          // Nothing runs behind the client's back: nothing to wait for.
          break;
        case eager::QueueItem::kRegisterFunction:
          c->RegisterFunction(item.register_function());
          break;
        case eager::QueueItem::kRemoveFunction:
          c->RemoveFunction(item.remove_function().function_name());
          break;
        case eager::QueueItem::kSendPackedHandle:
          return absl::UnimplementedError(
              "Enqueue: packed handles (SendPackedHandleOp) are not "
              "supported by dfx's eager service yet");
        case eager::QueueItem::ITEM_NOT_SET:
          return absl::InvalidArgumentError(
              "Enqueue: a queue item with nothing in it");
      }
    }
    return absl::OkStatus();
  }

  static bool SizedByValues(absl::string_view op) {
    static const auto* const kOps = new absl::flat_hash_set<std::string>(
        {"Fill", "Tile", "BroadcastTo", "Range", "Pad", "PadV2", "MirrorPad",
         "OneHot", "Empty", "MatrixDiag", "MatrixDiagV3"});
    return kOps->contains(op);
  }

  bool CanRunInline(const eager::EnqueueRequest& req) const {
    // Inputs up to this size make an op short enough to run on a gRPC
    // thread (an element-wise op on 64 KiB takes microseconds).
    constexpr int64_t kInlineBytes = 64 << 10;
    absl::StatusOr<std::shared_ptr<Context>> c = Find(req.context_id());
    if (!c.ok()) return true;  // fails at once
    for (const eager::QueueItem& item : req.queue()) {
      switch (item.item_case()) {
        case eager::QueueItem::kHandleToDecref:
        case eager::QueueItem::kRegisterFunction:
        case eager::QueueItem::kRemoveFunction:
        case eager::QueueItem::kSyncRemoteExecutorForStream:
          continue;
        case eager::QueueItem::kOperation:
          break;
        default:
          return false;
      }
      const eager::Operation& op = item.operation();
      // Functions may wait on other tasks, transfers on the rendezvous;
      // a kernel not built yet is built on the pool.
      if (op.is_function() || op.is_component_function() ||
          IsTransfer(op.name())) {
        return false;
      }
      // Stateful ops may wait or run for long (an iterator's next element
      // runs its pipeline); ops whose output size is set by input values
      // may be large however small their inputs.
      const OpRegistrationData* reg = env_.ops->LookUp(op.name());
      if (reg == nullptr || reg->op_def.is_stateful() ||
          SizedByValues(op.name())) {
        return false;
      }
      const CachedKernel* k = (*c)->CachedKernelOf(op);
      if (k == nullptr || k->kernel->AsAsync() != nullptr) return false;
      int64_t bytes = 0;
      for (const eager::Operation::Input& in : op.op_inputs()) {
        if (in.has_remote_handle()) {
          const int64_t b = (*c)->HandleBytes({in.remote_handle().op_id(),
                                               in.remote_handle().output_num()});
          if (b < 0) return false;
          bytes += b;
        } else {
          bytes += static_cast<int64_t>(in.tensor().ByteSizeLong());
        }
      }
      if (bytes > kInlineBytes) return false;
    }
    return true;
  }

  absl::Status WaitQueueDone(const eager::WaitQueueDoneRequest& req) {
    DFX_ASSIGN_OR_RETURN(std::shared_ptr<Context> c, Find(req.context_id()));
    c->Touch();
    return absl::OkStatus();
  }

  absl::Status RunComponentFunction(
      const eager::RunComponentFunctionRequest& req,
      eager::RunComponentFunctionResponse* resp,
      CancellationManager* call_cancel) {
    DFX_ASSIGN_OR_RETURN(std::shared_ptr<Context> c, Find(req.context_id()));
    CallScope scope(c);
    std::vector<int> output_nums(req.output_num().begin(),
                                 req.output_num().end());
    absl::Status s = RunFunction(
        c.get(), req.operation(), output_nums, call_cancel,
        [resp] { return resp->add_shape(); },
        [resp] { return resp->add_tensor(); }, [] { return nullptr; });
    return Named(s, req.operation());
  }

  absl::Status KeepAlive(const eager::KeepAliveRequest& req,
                         eager::KeepAliveResponse* resp) {
    DFX_ASSIGN_OR_RETURN(std::shared_ptr<Context> c, Find(req.context_id()));
    c->Touch();
    resp->set_context_view_id(c->view_id());
    return absl::OkStatus();
  }

  absl::Status CloseContext(const eager::CloseContextRequest& req) {
    std::shared_ptr<Context> c;
    {
      absl::MutexLock lock(&mu_);
      auto it = contexts_.find(req.context_id());
      if (it == contexts_.end()) return absl::OkStatus();
      // A close from an older view of the cluster (a client that has since
      // updated the context) is stale.
      if (req.context_view_id() < it->second->view_id()) {
        return absl::OkStatus();
      }
      c = std::move(it->second);
      contexts_.erase(it);
    }
    Retire(c->Close(absl::CancelledError(
        absl::StrCat("eager context ", c->id(), " was closed"))));
    spdlog::info("task {}: eager context {} closed", env_.local_task, c->id());
    return absl::OkStatus();
  }

  int CollectIdleContexts() {
    const absl::Time now = absl::Now();
    std::vector<std::shared_ptr<Context>> expired;
    {
      absl::MutexLock lock(&mu_);
      for (auto it = contexts_.begin(); it != contexts_.end();) {
        if (it->second->Expired(now)) {
          expired.push_back(std::move(it->second));
          contexts_.erase(it++);
        } else {
          ++it;
        }
      }
    }
    for (auto& c : expired) {
      spdlog::warn("task {}: eager context {} collected: no call for {}",
                   env_.local_task, c->id(),
                   absl::FormatDuration(c->keep_alive()));
      Retire(c->Close(absl::CancelledError(absl::StrCat(
          "eager context ", c->id(), " was collected: its client sent "
          "nothing for ", absl::FormatDuration(c->keep_alive())))));
    }
    return static_cast<int>(expired.size());
  }

  int NumContexts() const {
    absl::MutexLock lock(&mu_);
    return static_cast<int>(contexts_.size());
  }
  int64_t NumHandles(uint64_t id) const {
    absl::StatusOr<std::shared_ptr<Context>> c = Find(id);
    return c.ok() ? (*c)->NumHandles() : -1;
  }
  int64_t NumKernels(uint64_t id) const {
    absl::StatusOr<std::shared_ptr<Context>> c = Find(id);
    return c.ok() ? (*c)->NumKernels() : -1;
  }

 private:
  absl::StatusOr<std::shared_ptr<Context>> Find(uint64_t id) const {
    absl::MutexLock lock(&mu_);
    auto it = contexts_.find(id);
    if (it == contexts_.end()) return UnknownContext(id);
    return it->second;
  }

  // The ServerDef a client sends names this task (its job and index); the
  // devices and rendezvous keys all spell it.
  absl::Status CheckServerDef(const ServerDef& def, absl::string_view call) {
    const std::string task =
        absl::StrCat("/job:", def.job_name(), "/replica:0/task:",
                     def.task_index());
    if (task != env_.local_task) {
      return absl::InvalidArgumentError(absl::StrCat(
          call, ": the server_def names task ", task, ", but this is ",
          env_.local_task, " (does the client's cluster spec list this "
          "server under another job or index?)"));
    }
    return absl::OkStatus();
  }

  void CloseAll() {
    std::vector<std::shared_ptr<Context>> all;
    {
      absl::MutexLock lock(&mu_);
      for (auto& [id, c] : contexts_) all.push_back(std::move(c));
      contexts_.clear();
    }
    for (auto& c : all) {
      Retire(c->Close(absl::CancelledError(absl::StrCat(
          "eager context ", c->id(), " was cleared by a new client"))));
    }
  }

  // Keeps what a closed context's fetches may still use for a while
  // (cancelled fetches finish quickly), freed by the collector.
  void Retire(std::shared_ptr<ContextPeers> remains) {
    absl::MutexLock lock(&mu_);
    retired_.push_back({absl::Now(), std::move(remains)});
  }

  void CollectLoop() {
    absl::MutexLock lock(&mu_);
    while (!stopping_) {
      mu_.AwaitWithTimeout(absl::Condition(&stopping_), env_.gc_interval);
      if (stopping_) break;
      const absl::Time now = absl::Now();
      std::vector<std::shared_ptr<ContextPeers>> dropped;
      while (!retired_.empty() &&
             now - retired_.front().first > absl::Seconds(60)) {
        dropped.push_back(std::move(retired_.front().second));
        retired_.erase(retired_.begin());
      }
      mu_.Unlock();
      dropped.clear();
      CollectIdleContexts();
      mu_.Lock();
    }
  }

  absl::Status SendTensor(Context* c, const eager::SendTensorOp& op) {
    DFX_ASSIGN_OR_RETURN(Device * device, LocalDevice(op.device_name()));
    for (int i = 0; i < op.tensors_size(); ++i) {
      absl::StatusOr<Tensor> t =
          Tensor::FromProto(op.tensors(i), device->GetAllocator());
      if (!t.ok()) {
        return absl::InvalidArgumentError(absl::StrCat(
            "SendTensor (op_id ", op.op_id(), ") tensor ", i, ": ",
            t.status().message()));
      }
      c->Put({op.op_id(), i}, {*std::move(t), device});
    }
    return absl::OkStatus();
  }

  // A device of this task by the client's name for it.
  absl::StatusOr<Device*> LocalDevice(const std::string& name) {
    absl::StatusOr<DeviceName> parsed = DeviceName::Parse(name);
    if (!parsed.ok() || !parsed->IsFullySpecified()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "'", name, "' is not a full device name of task ", env_.local_task));
    }
    if (parsed->TaskName() != env_.local_task) {
      return absl::InvalidArgumentError(absl::StrCat(
          "device ", name, " is not on this task (", env_.local_task, ")"));
    }
    absl::StatusOr<Device*> d = env_.device_mgr->LookupDevice(name);
    if (!d.ok()) return absl::InvalidArgumentError(d.status().message());
    return d;
  }

  // `functions`: what the op's func attrs may name (the context's).
  absl::StatusOr<std::unique_ptr<CachedKernel>> BuildKernel(
      const eager::Operation& op, Device* device,
      const FunctionDefLibrary& functions) {
    DFX_ASSIGN_OR_RETURN(const OpRegistrationData* reg,
                         env_.ops->LookUpOrError(op.name()));
    NodeDef node;
    node.set_name(op.name());
    node.set_op(op.name());
    node.set_device(device->name());
    for (const auto& [name, value] : op.attrs()) {
      (*node.mutable_attr())[name] = value;
    }
    AddDefaultAttrs(reg->op_def, &node);
    DFX_RETURN_IF_ERROR(ValidateNodeAttrs(node, reg->op_def));
    auto k = std::make_unique<CachedKernel>();
    k->device = device;
    DFX_RETURN_IF_ERROR(InOutTypesForNode(node, reg->op_def, &k->input_types,
                                          &k->output_types));
    for (DataType t : k->input_types) {
      if (IsRefType(t)) {
        return absl::InvalidArgumentError(absl::StrCat(
            "op ", op.name(), " takes a reference input (",
            DataTypeString(t), "); eager operations take none"));
      }
    }
    DFX_ASSIGN_OR_RETURN(k->kernel, env_.kernels->CreateKernel(
                                        node, reg->op_def, device, &functions));
    return k;
  }

  absl::Status RunOperation(Context* c, const eager::Operation& op,
                            eager::QueueResponse* out,
                            CancellationManager* call_cancel) {
    if (op.is_function() || op.is_component_function()) {
      return Named(RunFunction(
                       c, op, {}, call_cancel,
                       [out] { return out->add_shape(); },
                       [out] { return out->add_tensor(); },
                       [out] { return out->add_device(); }),
                   op);
    }
    return Named(RunOperationOrError(c, op, out, call_cancel), op);
  }

  // The error of an operation, naming it.
  static absl::Status Named(const absl::Status& s,
                            const eager::Operation& op) {
    if (s.ok()) return s;
    return absl::Status(
        s.code(), absl::StrCat(s.message(), " [eager op ", op.name(), " id ",
                               op.id(), " on ", op.device(), "]"));
  }

  // The inputs of an operation: its remote handles, or tensors sent with it.
  // An input with a non-empty `remote[i]` (a function's input on another
  // task) is left empty here: its component reads it there.
  absl::StatusOr<std::vector<Tensor>> Inputs(
      Context* c, const eager::Operation& op, Device* device,
      const DataTypeVector& types,
      const std::vector<std::string>& remote = {}) {
    if (op.op_inputs_size() != static_cast<int>(types.size())) {
      return absl::InvalidArgumentError(absl::StrCat(
          "expects ", types.size(), " inputs, got ", op.op_inputs_size()));
    }
    std::vector<Tensor> inputs(op.op_inputs_size());
    for (int i = 0; i < op.op_inputs_size(); ++i) {
      const eager::Operation::Input& in = op.op_inputs(i);
      if (!remote.empty() && !remote[i].empty()) continue;
      if (in.has_remote_handle()) {
        DFX_ASSIGN_OR_RETURN(RemoteTensor t,
                             c->Lookup({in.remote_handle().op_id(),
                                        in.remote_handle().output_num()}));
        inputs[i] = std::move(t.tensor);
      } else if (in.has_tensor()) {
        absl::StatusOr<Tensor> t =
            Tensor::FromProto(in.tensor(), device->GetAllocator());
        if (!t.ok()) {
          return absl::InvalidArgumentError(
              absl::StrCat("input ", i, ": ", t.status().message()));
        }
        inputs[i] = *std::move(t);
      } else {
        return absl::InvalidArgumentError(
            absl::StrCat("input ", i, " is neither a handle nor a tensor"));
      }
      if (inputs[i].dtype() != types[i]) {
        return absl::InvalidArgumentError(absl::StrCat(
            "input ", i, " was expected to be a ", DataTypeString(types[i]),
            " tensor but is a ", DataTypeString(inputs[i].dtype()),
            " tensor"));
      }
    }
    return inputs;
  }

  // The device of each input that is a handle on another task (empty for
  // the others): a function with any runs across tasks.
  absl::StatusOr<std::vector<std::string>> RemoteInputDevices(
      const eager::Operation& op, bool* any) {
    std::vector<std::string> devices(op.op_inputs_size());
    *any = false;
    for (int i = 0; i < op.op_inputs_size(); ++i) {
      const eager::Operation::Input& in = op.op_inputs(i);
      if (!in.has_remote_handle()) continue;
      const eager::RemoteTensorHandle& h = in.remote_handle();
      const std::string& name = h.device().empty() ? h.op_device() : h.device();
      if (name.empty()) continue;
      absl::StatusOr<DeviceName> parsed = DeviceName::Parse(name);
      if (!parsed.ok() || !parsed->IsFullySpecified()) {
        return absl::InvalidArgumentError(absl::StrCat(
            "input ", i, " is on '", name, "', not a full device name"));
      }
      if (parsed->TaskName() == env_.local_task) continue;
      devices[i] = parsed->ToString();
      *any = true;
    }
    return devices;
  }

  // The function `op` names, instantiated from the context's library.
  absl::StatusOr<std::pair<std::shared_ptr<const FunctionLibrary>,
                           FunctionBody>>
  Instantiate(Context* c, const eager::Operation& op) {
    DFX_ASSIGN_OR_RETURN(std::shared_ptr<const FunctionLibrary> library,
                         c->Library(op.name(), env_.ops));
    if (!library->Contains(op.name())) {
      return absl::NotFoundError(absl::StrCat(
          "function '", op.name(), "' was not registered in eager context ",
          c->id()));
    }
    DFX_ASSIGN_OR_RETURN(FunctionBody body,
                         library->Instantiate(op.name(), op.attrs()));
    return std::make_pair(std::move(library), std::move(body));
  }

  static ImportOptions FunctionImport() {
    ImportOptions import;
    import.allow_internal_names = true;
    import.validate_shapes = false;
    return import;
  }

  // Builds a registered function for `op`'s attrs on `device`: TensorFlow's
  // instantiation, then the lowering every dfx graph goes through, then an
  // executor.
  absl::StatusOr<std::shared_ptr<ComponentFunction>> BuildFunction(
      Context* c, const eager::Operation& op, Device* device) {
    DFX_ASSIGN_OR_RETURN(auto instantiated, Instantiate(c, op));
    auto& [library, body] = instantiated;
    GraphDef def;
    for (NodeDef& node : body.nodes) {
      if (node.device().empty()) node.set_device(device->name());
      *def.add_node() = std::move(node);
    }
    // Kernels that run functions (a dataset's map) find them here.
    *def.mutable_library() = c->Functions();
    DFX_ASSIGN_OR_RETURN(
        std::unique_ptr<Graph> graph,
        ImportGraphDef(def, library->op_registry(), FunctionImport()));
    DFX_RETURN_IF_ERROR(LowerFunctionalOps(*library, graph.get()));
    auto f = std::make_shared<ComponentFunction>();
    f->library = library;
    f->arg_types = body.arg_types;
    f->ret_types = body.ret_types;
    ExecutorParams params;
    params.device = device;
    params.kernel_registry = env_.kernels;
    DFX_ASSIGN_OR_RETURN(std::unique_ptr<Executor> executor,
                         NewExecutor(params, std::move(graph)));
    f->executors.push_back(std::move(executor));
    return f;
  }

  // Builds a function whose inputs `remote` (by index; empty: here) live on
  // other tasks: arguments on their inputs' devices, results on `device`,
  // the rest placed over the client's cluster; one executor per device of
  // this task, and a component function registered on each other device's
  // task (named after the function and the cache key's hash, so that a
  // second build registers the same).
  absl::StatusOr<std::shared_ptr<ComponentFunction>> BuildMultiDevice(
      Context* c, const eager::Operation& op, Device* device,
      const std::vector<std::string>& remote, const std::string& key,
      CancellationManager* call_cancel) {
    EagerPeerClient* peer =
        c->peers() == nullptr ? nullptr : c->peers()->eager.get();
    if (peer == nullptr) {
      return absl::UnimplementedError(absl::StrCat(
          "function '", op.name(), "' has inputs on other tasks, and this "
          "context cannot reach them (no cluster in its ServerDef)"));
    }
    DFX_ASSIGN_OR_RETURN(auto instantiated, Instantiate(c, op));
    auto& [library, body] = instantiated;
    if (body.arg_types.size() != remote.size()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "expects ", body.arg_types.size(), " inputs, got ", remote.size()));
    }
    const absl::flat_hash_map<std::string, DeviceAttributes> cluster =
        c->ClusterDevices();
    GraphDef def;
    for (NodeDef& node : body.nodes) {
      if (node.op() == "_Arg") {
        const int64_t index = node.attr().at("index").i();
        node.set_device(remote[index].empty() ? device->name()
                                              : remote[index]);
      } else if (node.op() == "_Retval") {
        node.set_device(device->name());
      }
      *def.add_node() = std::move(node);
    }
    *def.mutable_library() = c->Functions();
    DFX_ASSIGN_OR_RETURN(
        std::unique_ptr<Graph> graph,
        ImportGraphDef(def, library->op_registry(), FunctionImport()));
    DFX_RETURN_IF_ERROR(LowerFunctionalOps(*library, graph.get()));

    // Candidates: this task's devices first (the default), then the
    // cluster's others.
    PlacerOptions placer;
    absl::flat_hash_map<std::string, uint64_t> incarnations;
    const std::vector<Device*>& local_devices = env_.device_mgr->ListDevices();
    for (Device* d : local_devices) {
      placer.devices.push_back({d->name(), d->device_type()});
      incarnations[d->name()] = d->attributes().incarnation();
    }
    for (const auto& [name, attrs] : cluster) {
      if (incarnations.contains(name)) continue;
      placer.devices.push_back({name, attrs.device_type()});
      incarnations[name] = attrs.incarnation();
    }
    std::sort(placer.devices.begin() + local_devices.size(),
              placer.devices.end(),
              [](const PlacerDevice& a, const PlacerDevice& b) {
                return a.name < b.name;
              });
    for (size_t i = 0; i < remote.size(); ++i) {
      if (!remote[i].empty() && !incarnations.contains(remote[i])) {
        return absl::InvalidArgumentError(absl::StrCat(
            "function '", op.name(), "': input ", i, " is on ", remote[i],
            ", a device the client's cluster does not list (CreateContext's "
            "cluster_device_attributes)"));
      }
    }
    placer.default_device = device->name();
    const KernelRegistry* kernels = env_.kernels;
    placer.has_kernel = [kernels](const Node& n, const std::string& type) {
      return kernels->HasKernel(n.def(), type);
    };
    DFX_RETURN_IF_ERROR(PlaceGraph(placer, graph.get()));
    PartitionOptions cut;
    cut.get_incarnation = [&incarnations](const std::string& d) {
      auto it = incarnations.find(d);
      return it == incarnations.end() ? uint64_t{0} : it->second;
    };
    DFX_ASSIGN_OR_RETURN(auto parts, Partition(*graph, cut));

    auto f = std::make_shared<ComponentFunction>();
    f->library = library;
    f->arg_types = body.arg_types;
    f->ret_types = body.ret_types;
    const FunctionDefLibrary functions = c->Functions();
    for (auto& [name, part] : parts) {
      absl::StatusOr<Device*> local = env_.device_mgr->LookupDevice(name);
      if (local.ok()) {
        DFX_ASSIGN_OR_RETURN(std::unique_ptr<Graph> g,
                             ImportGraphDef(part, library->op_registry(),
                                            FunctionImport()));
        ExecutorParams params;
        params.device = *local;
        params.kernel_registry = env_.kernels;
        DFX_ASSIGN_OR_RETURN(std::unique_ptr<Executor> executor,
                             NewExecutor(params, std::move(g)));
        f->executors.push_back(std::move(executor));
        continue;
      }
      // Another task's part: its _Arg nodes renumbered 0..k-1.
      RemotePart r;
      r.device = name;
      DFX_ASSIGN_OR_RETURN(DeviceName dn, DeviceName::Parse(name));
      r.task = dn.TaskName();
      std::map<int64_t, NodeDef*> args;
      for (NodeDef& n : *part.mutable_node()) {
        if (n.op() == "_Arg") args[n.attr().at("index").i()] = &n;
        if (n.op() == "_Retval") {
          return absl::InternalError(absl::StrCat(
              "function '", op.name(), "': result '", n.name(),
              "' was placed on ", name, ", not here"));
        }
      }
      for (auto& [index, n] : args) {
        (*n->mutable_attr())["index"].set_i(
            static_cast<int64_t>(r.args.size()));
        r.args.push_back(static_cast<int>(index));
      }
      r.function = absl::StrCat(op.name(), "_part_",
                                absl::Hash<std::string>()(key) & 0xffffffffffff,
                                "_", dn.job, "_", dn.task, "_", dn.type, "_",
                                dn.id);
      DFX_ASSIGN_OR_RETURN(FunctionDef fn,
                           GraphDefToFunctionDef(part, r.function,
                                                 *library->op_registry()));
      GraphDef reach = part;
      *reach.mutable_library() = functions;
      auto request = std::make_shared<eager::EnqueueRequest>();
      request->set_context_id(c->id());
      eager::RegisterFunctionOp* reg =
          request->add_queue()->mutable_register_function();
      *reg->mutable_function_def() = std::move(fn);
      reg->set_is_component_function(true);
      *reg->mutable_library() = ReachableFunctions(reach);
      eager::EnqueueResponse response;
      CancellationManager cancel;
      CancelLink link(&cancel, {c->cancellation(), call_cancel});
      absl::Notification done;
      absl::Status status;
      peer->EnqueueAsync(r.task, request.get(), &response, &cancel,
                         [&](absl::Status s) {
                           status = std::move(s);
                           done.Notify();
                         });
      done.WaitForNotification();
      if (!status.ok()) {
        return absl::Status(status.code(),
                            absl::StrCat("registering the part of function '",
                                         op.name(), "' on ", name, ": ",
                                         status.message()));
      }
      f->remote.push_back(std::move(r));
    }
    return f;
  }

  // Runs a function's parts at `step`: the executors here and the
  // components on other tasks, all at once; the first error aborts the
  // step's rendezvous and cancels the rest. Returns after every part has
  // ended.
  absl::Status RunParts(Context* c, const eager::Operation& op,
                        ComponentFunction& f, int64_t step,
                        CallFrameInterface* frame,
                        CancellationManager* call_cancel) {
    StepRendezvous rendezvous(env_.rendezvous_mgr->Find(step),
                              env_.local_task, c->peers(), step);
    CancellationManager cancel;
    CancelLink link(&cancel, {c->cancellation(), call_cancel});
    if (f.remote.empty() && f.executors.size() == 1) {
      Executor::Args args;
      args.step_id = step;
      args.call_frame = frame;
      args.rendezvous = &rendezvous;
      args.cancellation_manager = &cancel;
      return f.executors[0]->Run(args);
    }
    // Shared with the callbacks: the last one's unlock may come after this
    // frame has seen `pending` reach 0 and returned.
    struct Join {
      absl::Mutex mu;
      absl::Status status;
      int pending = 0;
    };
    auto join = std::make_shared<Join>();
    join->pending = static_cast<int>(f.executors.size() + f.remote.size());
    // Touches this frame's rendezvous and manager only before its part is
    // counted done.
    auto finish = [join, &rendezvous, &cancel](absl::Status s) {
      bool first_error = false;
      {
        absl::MutexLock lock(&join->mu);
        if (!s.ok() && join->status.ok()) {
          join->status = s;
          first_error = true;
        }
      }
      if (first_error) {
        rendezvous.StartAbort(s);
        cancel.StartCancel();
      }
      absl::MutexLock lock(&join->mu);
      --join->pending;
    };
    std::vector<eager::RunComponentFunctionRequest> requests(f.remote.size());
    std::vector<eager::RunComponentFunctionResponse> responses(
        f.remote.size());
    for (size_t i = 0; i < f.remote.size(); ++i) {
      const RemotePart& r = f.remote[i];
      eager::RunComponentFunctionRequest& req = requests[i];
      req.set_context_id(c->id());
      eager::Operation* call = req.mutable_operation();
      call->set_id(kInvalidOpId);
      call->set_name(r.function);
      call->set_device(r.device);
      call->set_is_component_function(true);
      call->set_func_step_id(step);
      for (int arg : r.args) *call->add_op_inputs() = op.op_inputs(arg);
      c->peers()->eager->RunComponentFunctionAsync(
          r.task, &req, &responses[i], &cancel, finish);
    }
    for (const std::unique_ptr<Executor>& e : f.executors) {
      Executor::Args args;
      args.step_id = step;
      args.call_frame = frame;
      args.rendezvous = &rendezvous;
      args.cancellation_manager = &cancel;
      e->RunAsync(args, finish);
    }
    absl::MutexLock lock(&join->mu);
    join->mu.Await(absl::Condition(
        +[](int* pending) { return *pending == 0; }, &join->pending));
    return WithRemoteOrigin(join->status, f);
  }

  // A step that failed because another task of the function went away
  // (its RecvTensor, push stream or component call: Unavailable or
  // Aborted naming the task) says so in TensorFlow's words, as TensorFlow's
  // own errors from a remote target do: its ClusterCoordinator reads "from
  // remote target /job:ps" as a ps failure (fatal) and anything else naming
  // /job:worker as this worker's failure (it would wait for this worker to
  // come back, which it never left).
  static absl::Status WithRemoteOrigin(const absl::Status& s,
                                       const ComponentFunction& f) {
    if (!absl::IsUnavailable(s) && !absl::IsAborted(s)) return s;
    constexpr absl::string_view kMarker =
        "GRPC error information from remote target ";
    if (absl::StrContains(s.message(), kMarker)) return s;
    for (const RemotePart& r : f.remote) {
      if (absl::StrContains(s.message(), r.task)) {
        return absl::Status(
            s.code(), absl::StrCat(s.message(), "\nAdditional ", kMarker,
                                   r.task, " while running this worker's "
                                   "part of the function there"));
      }
    }
    return s;
  }

  // Runs a registered (component) function: inputs from the context, the
  // step's rendezvous at func_step_id (its _Send/_Recv meet the other
  // components' there), results kept as handles (op.id(), output_nums[i])
  // or, for TensorFlow's "no id", answered as tensors. A function with
  // inputs on other tasks runs across them (BuildMultiDevice) at a step of
  // its own, whose leftovers are dropped on every task afterwards.
  absl::Status RunFunction(Context* c, const eager::Operation& op,
                           const std::vector<int>& output_nums,
                           CancellationManager* call_cancel,
                           const std::function<TensorShapeProto*()>& add_shape,
                           const std::function<TensorProto*()>& add_tensor,
                           const std::function<std::string*()>& add_device) {
    DFX_ASSIGN_OR_RETURN(Device * device, LocalDevice(op.device()));
    bool multi = false;
    DFX_ASSIGN_OR_RETURN(std::vector<std::string> remote,
                         RemoteInputDevices(op, &multi));
    std::string key = absl::StrCat(op.name(), "|", SignatureOf(op));
    if (multi) {
      for (size_t i = 0; i < remote.size(); ++i) {
        if (!remote[i].empty()) absl::StrAppend(&key, "|", i, "@", remote[i]);
      }
    }
    DFX_ASSIGN_OR_RETURN(
        std::shared_ptr<ComponentFunction> f, c->Component(key, [&] {
          return multi ? BuildMultiDevice(c, op, device, remote, key,
                                          call_cancel)
                       : BuildFunction(c, op, device);
        }));
    DFX_ASSIGN_OR_RETURN(std::vector<Tensor> inputs,
                         Inputs(c, op, device, f->arg_types, remote));
    if (!output_nums.empty() && output_nums.size() != f->ret_types.size()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "function '", op.name(), "' has ", f->ret_types.size(),
          " results, the request numbers ", output_nums.size()));
    }
    // A function run by itself (not a component of a client's function)
    // has no step of its own: on one task it uses the context's; across
    // tasks a fresh one, so that concurrent calls' transfers never meet.
    const bool own_step = multi && !op.is_component_function();
    const int64_t step =
        op.is_component_function() ? op.func_step_id()
        : own_step                 ? NewFunctionStep()
                                   : StepIdOf(c->id());
    SimpleCallFrame frame(std::move(inputs), f->ret_types.size());
    absl::Status run = RunParts(c, op, *f, step, &frame, call_cancel);
    if (own_step) CleanupStep(c, *f, step);
    DFX_RETURN_IF_ERROR(run);
    DFX_ASSIGN_OR_RETURN(std::vector<Tensor> results, frame.ConsumeRetvals());
    for (size_t i = 0; i < results.size(); ++i) {
      if (op.id() == kInvalidOpId) {
        results[i].AsProtoTensorContent(add_tensor());
        continue;
      }
      results[i].shape().AsProto(add_shape());
      if (std::string* d = add_device()) *d = device->name();
      const int num = output_nums.empty() ? static_cast<int>(i)
                                          : output_nums[i];
      c->Put({op.id(), num}, {std::move(results[i]), device});
    }
    return absl::OkStatus();
  }

  // A step id for a function run across tasks: random, positive, apart
  // from the worker's steps and the contexts' ids in probability only, as
  // TensorFlow's.
  int64_t NewFunctionStep() {
    absl::MutexLock lock(&rng_mu_);
    return static_cast<int64_t>(
        absl::Uniform<uint64_t>(rng_) & ((uint64_t{1} << 62) - 1));
  }

  // Drops what a multi-device step left in the rendezvous, here and on the
  // tasks of its parts (their CleanupFunction runs after the call returns;
  // a failure is only logged).
  void CleanupStep(Context* c, const ComponentFunction& f, int64_t step) {
    env_.rendezvous_mgr->Cleanup(step);
    std::set<std::string> tasks;
    for (const RemotePart& r : f.remote) tasks.insert(r.task);
    std::shared_ptr<ContextPeers> peers = c->peers();
    for (const std::string& task : tasks) {
      auto request = std::make_shared<eager::EnqueueRequest>();
      auto response = std::make_shared<eager::EnqueueResponse>();
      request->set_context_id(c->id());
      request->add_queue()->mutable_cleanup_function()->set_step_id(step);
      peers->eager->EnqueueAsync(
          task, request.get(), response.get(), nullptr,
          [request, response, peers, task, step](absl::Status s) {
            if (!s.ok()) {
              spdlog::warn("cleanup of function step {} on {}: {}", step,
                           task, s);
            }
          });
    }
  }

  absl::Status RunOperationOrError(Context* c, const eager::Operation& op,
                                   eager::QueueResponse* out,
                                   CancellationManager* call_cancel) {
    if (op.name().empty()) {
      return absl::InvalidArgumentError("an operation without a name (op type)");
    }
    DFX_ASSIGN_OR_RETURN(Device * device, LocalDevice(op.device()));
    // A transfer's attrs name a tensor that moves once (a fresh wire id per
    // copy): its kernel is built for the call and not kept, as TensorFlow
    // does, or the cache would grow with every copy.
    std::unique_ptr<CachedKernel> uncached;
    CachedKernel* k = nullptr;
    if (IsTransfer(op.name())) {
      DFX_ASSIGN_OR_RETURN(uncached, BuildKernel(op, device, {}));
      k = uncached.get();
    } else {
      DFX_ASSIGN_OR_RETURN(k, c->Kernel(op, [&] {
        // Only an op naming functions (a dataset's map) needs the library.
        bool names_functions = false;
        for (const auto& [name, value] : op.attrs()) {
          names_functions |= value.has_func();
        }
        return BuildKernel(op, device,
                           names_functions ? c->Functions()
                                           : FunctionDefLibrary());
      }));
    }
    DFX_ASSIGN_OR_RETURN(std::vector<Tensor> inputs,
                         Inputs(c, op, device, k->input_types));

    CancellationManager op_cancel;
    CancelLink link(&op_cancel, {c->cancellation(), call_cancel});
    // The op's own per-step container (TensorArrays and stacks live one op).
    const int64_t step = next_step_.fetch_add(1) | (int64_t{1} << 62);
    ScopedStepContainer step_container(step, device->resource_manager());
    OpKernelContext::Params params;
    params.step_id = StepIdOf(c->id());
    params.op_kernel = k->kernel.get();
    params.device = device;
    params.inputs = absl::MakeConstSpan(inputs);
    params.rendezvous = c->rendezvous();
    params.cancellation_manager = &op_cancel;
    params.step_container = &step_container;
    OpKernelContext ctx(&params);
    ScopedFlushDenormal flush;  // TensorFlow's floating-point mode
    if (AsyncOpKernel* async = k->kernel->AsAsync()) {
      absl::Notification done;
      async->ComputeAsync(&ctx, [&done] { done.Notify(); });
      // An async kernel (a _Recv) ends when its tensor comes, or with
      // Cancelled when the context closes or the call goes away.
      done.WaitForNotification();
    } else {
      k->kernel->Compute(&ctx);
    }
    DFX_RETURN_IF_ERROR(ctx.status());
    if (ctx.is_output_dead()) {
      return absl::InvalidArgumentError("produced a dead tensor");
    }
    for (int i = 0; i < ctx.num_outputs(); ++i) {
      Tensor& t = (*ctx.mutable_outputs())[i];
      if (t.dtype() != k->output_types[i] || !t.IsInitialized()) {
        return absl::InternalError(absl::StrCat(
            "output ", i, " was not set to a ",
            DataTypeString(k->output_types[i]), " tensor"));
      }
      if (op.id() == kInvalidOpId) {
        t.AsProtoTensorContent(out->add_tensor());
      } else {
        // No device: the client knows where an op's outputs are (it
        // answers "Cannot reset known devices" to one); only a function's
        // results carry theirs.
        t.shape().AsProto(out->add_shape());
        c->Put({op.id(), i}, {std::move(t), device});
      }
    }
    return absl::OkStatus();
  }

  EagerServiceEnv env_;
  std::atomic<int64_t> next_step_{1};
  absl::Mutex rng_mu_;
  absl::BitGen rng_ ABSL_GUARDED_BY(rng_mu_);
  mutable absl::Mutex mu_;
  bool stopping_ ABSL_GUARDED_BY(mu_) = false;
  absl::flat_hash_map<uint64_t, std::shared_ptr<Context>> contexts_
      ABSL_GUARDED_BY(mu_);
  std::vector<std::pair<absl::Time, std::shared_ptr<ContextPeers>>> retired_
      ABSL_GUARDED_BY(mu_);
  std::thread collector_;
};

EagerService::EagerService(EagerServiceEnv env)
    : impl_(std::make_unique<Impl>(std::move(env))) {}
EagerService::~EagerService() = default;

absl::Status EagerService::CreateContext(
    const eager::CreateContextRequest& request,
    eager::CreateContextResponse* response) {
  return impl_->CreateContext(request, response);
}
absl::Status EagerService::UpdateContext(
    const eager::UpdateContextRequest& request,
    eager::UpdateContextResponse* response) {
  return impl_->UpdateContext(request, response);
}
absl::Status EagerService::Enqueue(const eager::EnqueueRequest& request,
                                   eager::EnqueueResponse* response,
                                   CancellationManager* call_cancel) {
  return impl_->Enqueue(request, response, call_cancel);
}
bool EagerService::CanRunInline(const eager::EnqueueRequest& request) const {
  return impl_->CanRunInline(request);
}
absl::Status EagerService::WaitQueueDone(
    const eager::WaitQueueDoneRequest& request,
    eager::WaitQueueDoneResponse* /*response*/) {
  return impl_->WaitQueueDone(request);
}
absl::Status EagerService::RunComponentFunction(
    const eager::RunComponentFunctionRequest& request,
    eager::RunComponentFunctionResponse* response,
    CancellationManager* call_cancel) {
  return impl_->RunComponentFunction(request, response, call_cancel);
}
absl::Status EagerService::KeepAlive(const eager::KeepAliveRequest& request,
                                     eager::KeepAliveResponse* response) {
  return impl_->KeepAlive(request, response);
}
absl::Status EagerService::CloseContext(
    const eager::CloseContextRequest& request,
    eager::CloseContextResponse* /*response*/) {
  return impl_->CloseContext(request);
}
int EagerService::CollectIdleContexts() { return impl_->CollectIdleContexts(); }
int EagerService::NumContexts() const { return impl_->NumContexts(); }
int64_t EagerService::NumHandles(uint64_t context_id) const {
  return impl_->NumHandles(context_id);
}
int64_t EagerService::NumKernels(uint64_t context_id) const {
  return impl_->NumKernels(context_id);
}

}  // namespace dfx
