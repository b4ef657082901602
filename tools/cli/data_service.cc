#include "tools/cli/data_service.h"

#include <signal.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <map>
#include <memory>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/synchronization/mutex.h"
#include "absl/synchronization/notification.h"
#include "absl/time/clock.h"
#include "base/status_macros.h"
#include "grpcpp/grpcpp.h"
#include "kernels/data/dataset.h"
#include "kernels/data/service/data_service_client.h"
#include "kernels/data/split_provider.h"
#include "proto/tf_data_service_rpc.grpc.pb.h"
#include "rpc/grpc_util.h"
#include "runtime/session.h"
#include "runtime/file_policy.h"
#include "runtime/tensor.h"
#include "runtime/variant.h"
#include "tools/cli/command.h"
#include "tools/cli/command_util.h"
#include "tools/cli/data_service_state.h"

namespace dfx::cli {
namespace {

constexpr char kUsage[] =
    R"(usage: dfx data-service dispatcher --port P [--work-dir D]
                               [--worker-addresses A,B,...] [--data-dir D]
       dfx data-service worker --dispatcher HOST:P --port Q
                               [--worker-address HOST:Q] [--data-dir D]

A tf.data service that TensorFlow's client reads
(tf.data.experimental.service.distribute(processing_mode="parallel_epochs",
service="grpc://HOST:P")) and dfx's DataServiceDataset too.

  --port P              port to serve on (0: any free port; the address is
                        printed as "dfx data-service: ... serving on ADDR")
  --work-dir D          the dispatcher's journal: every change of its state
                        is appended (and fsynced) there, and a dispatcher
                        started again with the same D serves the same
                        datasets, jobs and iterations (workers re-register
                        through their heartbeats)
  --worker-addresses L  TensorFlow's DispatcherConfig.worker_addresses, for
                        static sharding (FILE, DATA, FILE_OR_DATA, HINT):
                        a worker's index is the first free entry matching
                        its address (HOST:PORT, HOST:%port% or HOST); a
                        worker matching none is refused
  --dispatcher HOST:P   the dispatcher a worker registers with
  --worker-address A    the address clients reach the worker at (default
                        localhost:PORT)
  --data-dir D          confines every file a pipeline reads or writes
                        (TFRecordDataset, TextLineDataset, list_files,
                        save, snapshot, ...) to the directory D, as
                        'dfx server --data-dir' does for graphs: a path
                        outside it fails the read with PermissionDenied.
                        Without it, a client may have the service read any
                        file this process can. The dispatcher builds
                        pipelines too (for distributed_epoch's splits)

Processing modes OFF (parallel_epochs: each worker an epoch) and DYNAMIC
(distributed_epoch: each element once, every worker reading the splits of
the pipeline's source that the dispatcher hands out), and the static
sharding policies over --worker-addresses (each worker reads its share),
without round-robin reads. A worker that stops heartbeating for 10 s loses its tasks; a client that stops
for 60 s releases its iteration. Serves until SIGTERM or SIGINT.
)";

constexpr absl::Duration kWorkerTimeout = absl::Seconds(10);
constexpr absl::Duration kClientTimeout = absl::Seconds(60);
constexpr absl::Duration kHeartbeatInterval = absl::Milliseconds(250);
constexpr absl::Duration kCallTimeout = absl::Seconds(10);
// How long a GetElement waits for the pipeline's next element before the
// client is told to retry (Unavailable).
constexpr int64_t kElementTimeoutMs = 30000;

template <typename T>
grpc::Status Reply(const absl::StatusOr<T>& result) {
  return ToGrpcStatus(result.status());
}

// The element types of a registered dataset graph: the output_types of the
// node its _Retval returns.
absl::StatusOr<std::vector<int>> GraphOutputTypes(const GraphDef& graph) {
  std::string input;
  for (const NodeDef& n : graph.node()) {
    if (n.op() == "_Retval" && n.input_size() > 0) input = n.input(0);
  }
  if (input.empty()) {
    return absl::InvalidArgumentError("the dataset graph has no _Retval node");
  }
  input = input.substr(0, input.find(':'));
  for (const NodeDef& n : graph.node()) {
    if (n.name() != input) continue;
    for (const char* attr : {"output_types", "Toutput_types"}) {
      auto it = n.attr().find(attr);
      if (it == n.attr().end()) continue;
      std::vector<int> out;
      out.reserve(it->second.list().type_size());
      for (int t : it->second.list().type()) out.push_back(t);
      if (!out.empty()) return out;
    }
    return absl::InvalidArgumentError(absl::StrCat(
        "the dataset graph's output node ", input, " names no output_types"));
  }
  return absl::InvalidArgumentError(
      absl::StrCat("the dataset graph has no node ", input));
}

// A graph whose node "dataset" builds the registered pipeline
// (DatasetFromGraph of its serialized graph).
void AddDatasetNodes(const tfdata::DatasetDef& def, GraphDef* g) {
  NodeDef* c = g->add_node();
  c->set_name("graph_def");
  c->set_op("Const");
  (*c->mutable_attr())["dtype"].set_type(DT_STRING);
  TensorProto* value = (*c->mutable_attr())["value"].mutable_tensor();
  value->set_dtype(DT_STRING);
  value->mutable_tensor_shape();
  value->add_string_val(def.graph().SerializeAsString());
  NodeDef* ds = g->add_node();
  ds->set_name("dataset");
  ds->set_op("DatasetFromGraph");
  ds->add_input("graph_def");
}

// The dispatcher's split provider of a DYNAMIC iteration: the pipeline,
// built in a session of its own, tells the count of its source's splits.
absl::StatusOr<std::unique_ptr<data::SplitProvider>> MakeDispatcherSplits(
    const tfdata::DatasetDef& def) {
  GraphDef g;
  AddDatasetNodes(def, &g);
  DFX_ASSIGN_OR_RETURN(std::unique_ptr<Session> session,
                       Session::Create("local"));
  DFX_RETURN_IF_ERROR(session->Extend(g));
  std::vector<Tensor> out;
  RunOptions options;
  options.set_timeout_in_ms(kElementTimeoutMs);
  DFX_RETURN_IF_ERROR(
      session->Run(options, {}, {"dataset:0"}, {}, &out, nullptr));
  DFX_ASSIGN_OR_RETURN(data::DatasetPtr dataset,
                       data::DatasetFromTensor(out[0], "the dataset"));
  return data::MakeSplitProvider(*dataset);
}

// ---------------------------------------------------------------------------
// Dispatcher

class DispatcherImpl final
    : public ::tensorflow::data::DispatcherService::Service {
 public:
  DispatcherImpl()
      : state_(kWorkerTimeout, kClientTimeout, MakeDispatcherSplits) {}

  grpc::Status GetVersion(grpc::ServerContext*,
                          const tfdata::GetVersionRequest*,
                          tfdata::GetVersionResponse* response) override {
    response->set_version(kDataServiceVersion);
    return grpc::Status::OK;
  }
  grpc::Status GetOrRegisterDataset(
      grpc::ServerContext*, const tfdata::GetOrRegisterDatasetRequest* request,
      tfdata::GetOrRegisterDatasetResponse* response) override {
    auto id = state_.GetOrRegisterDataset(*request);
    if (id.ok()) response->set_dataset_id(*id);
    return Reply(id);
  }
  grpc::Status GetDataServiceMetadata(
      grpc::ServerContext*,
      const tfdata::GetDataServiceMetadataRequest* request,
      tfdata::GetDataServiceMetadataResponse* response) override {
    auto m = state_.GetMetadata(request->dataset_id());
    if (m.ok()) *response->mutable_metadata() = *m;
    return Reply(m);
  }
  // TensorFlow's client asks whether to keep compressing; dfx never turns
  // compression off at runtime.
  grpc::Status DisableCompressionAtRuntime(
      grpc::ServerContext*,
      const tfdata::DisableCompressionAtRuntimeRequest* request,
      tfdata::DisableCompressionAtRuntimeResponse* response) override {
    auto m = state_.GetMetadata(request->dataset_id());
    if (!m.ok()) return ToGrpcStatus(m.status());
    response->set_no_compression_to_disable(
        m->compression() != tfdata::DataServiceMetadata::COMPRESSION_SNAPPY);
    return grpc::Status::OK;
  }
  grpc::Status GetDataServiceConfig(
      grpc::ServerContext*, const tfdata::GetDataServiceConfigRequest*,
      tfdata::GetDataServiceConfigResponse* response) override {
    response->mutable_config();
    return grpc::Status::OK;
  }
  grpc::Status GetOrCreateJob(
      grpc::ServerContext*, const tfdata::GetOrCreateJobRequest* request,
      tfdata::GetOrCreateJobResponse* response) override {
    auto id = state_.GetOrCreateJob(*request);
    if (id.ok()) response->set_job_id(*id);
    return Reply(id);
  }
  grpc::Status GetOrCreateIteration(
      grpc::ServerContext*, const tfdata::GetOrCreateIterationRequest* request,
      tfdata::GetOrCreateIterationResponse* response) override {
    auto id = state_.GetOrCreateIteration(request->job_id(),
                                          request->repetition(), absl::Now());
    if (id.ok()) response->set_iteration_client_id(*id);
    return Reply(id);
  }
  grpc::Status ReleaseIterationClient(
      grpc::ServerContext*,
      const tfdata::ReleaseIterationClientRequest* request,
      tfdata::ReleaseIterationClientResponse*) override {
    return ToGrpcStatus(
        state_.ReleaseIterationClient(request->iteration_client_id()));
  }
  grpc::Status ClientHeartbeat(
      grpc::ServerContext*, const tfdata::ClientHeartbeatRequest* request,
      tfdata::ClientHeartbeatResponse* response) override {
    auto r = state_.ClientHeartbeat(*request, absl::Now());
    if (r.ok()) *response = *std::move(r);
    return Reply(r);
  }
  grpc::Status WorkerHeartbeat(
      grpc::ServerContext*, const tfdata::WorkerHeartbeatRequest* request,
      tfdata::WorkerHeartbeatResponse* response) override {
    auto r = state_.WorkerHeartbeat(*request, absl::Now());
    if (r.ok()) *response = *std::move(r);
    return Reply(r);
  }
  grpc::Status WorkerUpdate(grpc::ServerContext*,
                            const tfdata::WorkerUpdateRequest* request,
                            tfdata::WorkerUpdateResponse*) override {
    return ToGrpcStatus(state_.WorkerUpdate(*request));
  }
  grpc::Status GetSplit(grpc::ServerContext*,
                        const tfdata::GetSplitRequest* request,
                        tfdata::GetSplitResponse* response) override {
    auto r = state_.GetSplit(*request);
    if (r.ok()) *response = *std::move(r);
    return Reply(r);
  }
  grpc::Status GetWorkers(grpc::ServerContext*,
                          const tfdata::GetWorkersRequest*,
                          tfdata::GetWorkersResponse* response) override {
    for (const std::string& a : state_.Workers()) {
      response->add_workers()->set_address(a);
    }
    return grpc::Status::OK;
  }

  DispatcherState& state() { return state_; }

 private:
  DispatcherState state_;
};

// ---------------------------------------------------------------------------
// Worker

using DispatcherStub = ::tensorflow::data::DispatcherService::Stub;

void AddInt64Const(const std::string& name, int64_t v, GraphDef* g) {
  NodeDef* c = g->add_node();
  c->set_name(name);
  c->set_op("Const");
  (*c->mutable_attr())["dtype"].set_type(DT_INT64);
  TensorProto* value = (*c->mutable_attr())["value"].mutable_tensor();
  value->set_dtype(DT_INT64);
  value->mutable_tensor_shape();
  value->add_int64_val(v);
}

// Static sharding (TensorFlow's worker rewrite): the task's worker reads
// its share of the pipeline. HINT: the SHARD_HINT (-1) inputs of the
// pipeline's ShardDatasets become the worker count and index; FILE, DATA
// and FILE_OR_DATA: an AutoShardDataset of that policy (FILE_OR_DATA is
// AUTO) over the pipeline's output.
absl::Status ShardForWorker(const tfdata::TaskDef& def, GraphDef* graph) {
  const int64_t n = def.num_workers(), index = def.worker_index();
  if (n <= 0 || index < 0 || index >= n) {
    return absl::FailedPreconditionError(absl::StrCat(
        "a statically sharded task needs its worker's index among the "
        "dispatcher's worker_addresses; got ",
        index, " of ", n));
  }
  const std::string workers = "dfx_static_shard/num_workers";
  const std::string worker_index = "dfx_static_shard/index";
  const auto policy = def.processing_mode_def().sharding_policy();
  if (policy == tfdata::ProcessingModeDef::HINT) {
    std::map<std::string, bool> hint;  // Const node -> holds SHARD_HINT
    for (const NodeDef& node : graph->node()) {
      if (node.op() != "Const") continue;
      auto value = node.attr().find("value");
      if (value == node.attr().end()) continue;
      absl::StatusOr<Tensor> t = Tensor::FromProto(value->second.tensor());
      hint[node.name()] = t.ok() && t->dtype() == DT_INT64 &&
                          t->NumElements() == 1 && t->data<int64_t>()[0] == -1;
    }
    for (NodeDef& node : *graph->mutable_node()) {
      if (node.op() != "ShardDataset" || node.input_size() < 3) continue;
      for (int i : {1, 2}) {
        const std::string input =
            node.input(i).substr(0, node.input(i).find(':'));
        if (hint[input]) node.set_input(i, i == 1 ? workers : worker_index);
      }
    }
    AddInt64Const(workers, n, graph);
    AddInt64Const(worker_index, index, graph);
    return absl::OkStatus();
  }
  NodeDef* retval = nullptr;
  for (NodeDef& node : *graph->mutable_node()) {
    if (node.op() == "_Retval" && node.input_size() > 0) retval = &node;
  }
  if (retval == nullptr) {
    return absl::InvalidArgumentError("the dataset graph has no _Retval node");
  }
  const std::string output = retval->input(0);
  DFX_ASSIGN_OR_RETURN(std::vector<int> types, GraphOutputTypes(*graph));
  AttrValue type_list, shape_list;
  for (int t : types) {
    type_list.mutable_list()->add_type(static_cast<DataType>(t));
    shape_list.mutable_list()->add_shape()->set_unknown_rank(true);
  }
  NodeDef* shard = graph->add_node();
  shard->set_name("dfx_static_shard");
  shard->set_op("AutoShardDataset");
  shard->add_input(output);
  shard->add_input(workers);
  shard->add_input(worker_index);
  (*shard->mutable_attr())["auto_shard_policy"].set_i(
      policy == tfdata::ProcessingModeDef::FILE   ? 1
      : policy == tfdata::ProcessingModeDef::DATA ? 2
                                                  : 0);
  (*shard->mutable_attr())["num_replicas"].set_i(0);
  (*shard->mutable_attr())["output_types"] = type_list;
  (*shard->mutable_attr())["output_shapes"] = shape_list;
  // (`retval` may have moved when nodes were added.)
  for (NodeDef& node : *graph->mutable_node()) {
    if (node.op() == "_Retval" && node.input_size() > 0 &&
        node.input(0) == output) {
      node.set_input(0, "dfx_static_shard");
    }
  }
  AddInt64Const(workers, n, graph);
  AddInt64Const(worker_index, index, graph);
  return absl::OkStatus();
}

bool IsStaticSharding(const tfdata::ProcessingModeDef& mode) {
  const auto p = mode.sharding_policy();
  return p == tfdata::ProcessingModeDef::FILE ||
         p == tfdata::ProcessingModeDef::DATA ||
         p == tfdata::ProcessingModeDef::FILE_OR_DATA ||
         p == tfdata::ProcessingModeDef::HINT;
}

// How long a worker's GetSplit keeps trying an unreachable dispatcher (one
// restarting, say) before its pipeline fails with Unavailable.
constexpr absl::Duration kSplitRetryWindow = absl::Seconds(25);

// A worker's splits of a DYNAMIC iteration: each asked of the dispatcher.
class DispatcherSplits final : public data::SplitProvider {
 public:
  DispatcherSplits(std::shared_ptr<DispatcherStub> dispatcher,
                   int64_t iteration_id, int64_t task_id)
      : dispatcher_(std::move(dispatcher)),
        iteration_id_(iteration_id),
        task_id_(task_id) {}

  absl::Status GetNext(int64_t* split, bool* end) override {
    absl::MutexLock lock(&mu_);
    tfdata::GetSplitRequest request;
    request.set_iteration_id(iteration_id_);
    request.set_repetition(0);
    request.set_split_provider_index(0);
    // Numbered, so that a retry after a dispatcher restart gets the split
    // the lost answer held.
    request.set_dfx_task_id(task_id_);
    request.set_dfx_request_index(requests_ + 1);
    const absl::Time give_up = absl::Now() + kSplitRetryWindow;
    while (true) {
      tfdata::GetSplitResponse response;
      grpc::ClientContext ctx;
      ctx.set_deadline(absl::ToChronoTime(absl::Now() + kCallTimeout));
      const grpc::Status s = dispatcher_->GetSplit(&ctx, request, &response);
      if (s.ok()) {
        *end = response.end_of_splits();
        if (*end) return absl::OkStatus();
        ++requests_;
        if (response.split().int64_val_size() != 1) {
          return absl::InternalError(
              "the dispatcher's split is not one int64 index");
        }
        *split = response.split().int64_val(0);
        return absl::OkStatus();
      }
      if (s.error_code() != grpc::StatusCode::UNAVAILABLE ||
          absl::Now() > give_up) {
        return FromGrpcStatus(s);
      }
      absl::SleepFor(absl::Milliseconds(100));
    }
  }

 private:
  const std::shared_ptr<DispatcherStub> dispatcher_;
  const int64_t iteration_id_;
  const int64_t task_id_;
  absl::Mutex mu_;
  int64_t requests_ ABSL_GUARDED_BY(mu_) = 0;  // answered with a split
};

// One task: its pipeline in a session of its own, one element made at a
// time (GetElement calls of a task are serialized by `mu`).
struct Task {
  ~Task() {
    if (split_source != nullptr) data::DetachSplitProvider(split_source);
  }
  absl::Mutex mu;
  // Not OK when the pipeline could not start: every GetElement answers it.
  absl::Status error;
  std::unique_ptr<Session> session;
  // DYNAMIC: the pipeline the session's iterator reads, and its source,
  // which reads the dispatcher's splits.
  data::DatasetPtr dataset;
  const data::DatasetBase* split_source = nullptr;
  int num_outputs = 0;
  bool end ABSL_GUARDED_BY(mu) = false;
  int64_t next_index ABSL_GUARDED_BY(mu) = 0;
};

absl::StatusOr<std::unique_ptr<Task>> StartTask(
    const tfdata::TaskDef& def, std::shared_ptr<DispatcherStub> dispatcher) {
  DFX_ASSIGN_OR_RETURN(std::vector<int> types,
                       GraphOutputTypes(def.dataset_def().graph()));
  AttrValue type_list, shape_list;
  for (int t : types) {
    type_list.mutable_list()->add_type(static_cast<DataType>(t));
    shape_list.mutable_list()->add_shape()->set_unknown_rank(true);
  }
  GraphDef g;
  if (IsStaticSharding(def.processing_mode_def())) {
    tfdata::DatasetDef sharded = def.dataset_def();
    DFX_RETURN_IF_ERROR(ShardForWorker(def, sharded.mutable_graph()));
    AddDatasetNodes(sharded, &g);
  } else {
    AddDatasetNodes(def.dataset_def(), &g);
  }
  NodeDef* it = g.add_node();
  it->set_name("iterator");
  it->set_op("IteratorV2");
  (*it->mutable_attr())["shared_name"].set_s("task");
  (*it->mutable_attr())["container"].set_s("");
  (*it->mutable_attr())["output_types"] = type_list;
  (*it->mutable_attr())["output_shapes"] = shape_list;
  NodeDef* make = g.add_node();
  make->set_name("make");
  make->set_op("MakeIterator");
  make->add_input("dataset");
  make->add_input("iterator");
  NodeDef* next = g.add_node();
  next->set_name("next");
  next->set_op("IteratorGetNext");
  next->add_input("iterator");
  (*next->mutable_attr())["output_types"] = type_list;
  (*next->mutable_attr())["output_shapes"] = shape_list;

  auto task = std::make_unique<Task>();
  task->num_outputs = static_cast<int>(types.size());
  DFX_ASSIGN_OR_RETURN(task->session, Session::Create("local"));
  DFX_RETURN_IF_ERROR(task->session->Extend(g));
  std::vector<Tensor> out;
  if (def.processing_mode_def().sharding_policy() !=
      tfdata::ProcessingModeDef::DYNAMIC) {
    DFX_RETURN_IF_ERROR(
        task->session->Run(RunOptions(), {}, {}, {"make"}, &out, nullptr));
    return task;
  }
  // DYNAMIC: the pipeline is built first, its source given the
  // dispatcher's splits, and the iterator made of that very pipeline (fed
  // back in).
  DFX_RETURN_IF_ERROR(
      task->session->Run(RunOptions(), {}, {"dataset:0"}, {}, &out, nullptr));
  DFX_ASSIGN_OR_RETURN(task->dataset,
                       data::DatasetFromTensor(out[0], "the dataset"));
  DFX_ASSIGN_OR_RETURN(task->split_source, data::SplitSource(*task->dataset));
  data::AttachSplitProvider(
      task->split_source,
      std::make_shared<DispatcherSplits>(std::move(dispatcher),
                                         def.iteration_id(), def.task_id()));
  const Tensor dataset_tensor = out[0];
  out.clear();
  DFX_RETURN_IF_ERROR(task->session->Run(RunOptions(),
                                         {{"dataset:0", dataset_tensor}}, {},
                                         {"make"}, &out, nullptr));
  return task;
}

class WorkerImpl final : public ::tensorflow::data::WorkerService::Service {
 public:
  WorkerImpl(std::string dispatcher, std::string address)
      : address_(std::move(address)),
        dispatcher_(
            ::tensorflow::data::DispatcherService::NewStub(grpc::CreateChannel(
                dispatcher, grpc::InsecureChannelCredentials()))) {}
  ~WorkerImpl() override { Stop(); }

  void Start() {
    heartbeat_ = std::thread([this] { HeartbeatLoop(); });
  }
  void Stop() {
    if (!stop_.HasBeenNotified()) stop_.Notify();
    if (heartbeat_.joinable()) heartbeat_.join();
  }

  grpc::Status GetElement(grpc::ServerContext* context,
                          const tfdata::GetElementRequest* request,
                          tfdata::GetElementResponse* response) override {
    if (request->has_consumer_index() || request->has_round_index()) {
      return grpc::Status(grpc::StatusCode::UNIMPLEMENTED,
                          "dfx's tf.data service worker does not serve "
                          "round-robin reads");
    }
    std::shared_ptr<Task> task;
    {
      absl::MutexLock lock(&mu_);
      auto it = tasks_.find(request->task_id());
      if (it != tasks_.end()) task = it->second;
    }
    if (task == nullptr) {
      // Not started yet (the dispatcher told the client first) or gone:
      // the client retries Unavailable.
      return grpc::Status(grpc::StatusCode::UNAVAILABLE,
                          absl::StrCat("Task ", request->task_id(),
                                       " not found on worker ", address_));
    }
    if (!task->error.ok()) return ToGrpcStatus(task->error);
    absl::MutexLock lock(&task->mu);
    if (task->end) {
      response->set_end_of_sequence(true);
      return grpc::Status::OK;
    }
    std::vector<std::string> fetches;
    for (int i = 0; i < task->num_outputs; ++i) {
      fetches.push_back(absl::StrCat("next:", i));
    }
    // At most the worker's wait, and no longer than the caller waits.
    int64_t timeout_ms = kElementTimeoutMs;
    const absl::Duration left =
        absl::FromChrono(context->deadline()) - absl::Now();
    if (left < absl::Milliseconds(timeout_ms)) {
      timeout_ms = std::max<int64_t>(1, absl::ToInt64Milliseconds(left));
    }
    RunOptions options;
    options.set_timeout_in_ms(timeout_ms);
    std::vector<Tensor> element;
    absl::Status s =
        task->session->Run(options, {}, fetches, {}, &element, nullptr);
    if (absl::IsOutOfRange(s)) {
      task->end = true;
      // (How the work was shared out: the interop test reads it.)
      std::fprintf(stderr,
                   "dfx data-service worker: task %lld ended after %lld "
                   "elements\n",
                   static_cast<long long>(request->task_id()),
                   static_cast<long long>(task->next_index));
      {
        absl::MutexLock l(&mu_);
        completed_.push_back(request->task_id());
      }
      response->set_end_of_sequence(true);
      return grpc::Status::OK;
    }
    if (absl::IsDeadlineExceeded(s)) {
      return grpc::Status(grpc::StatusCode::UNAVAILABLE,
                          "no element within the worker's wait");
    }
    if (!s.ok()) return ToGrpcStatus(s);
    response->set_element_index(task->next_index++);
    if (element.size() == 1 && element[0].dtype() == DT_VARIANT &&
        element[0].dims() == 0 &&
        element[0].data<Variant>()[0].TypeName() ==
            "dfx.data.CompressedElement") {
      VariantTensorDataProto proto;
      element[0].data<Variant>()[0].Encode(&proto);
      std::vector<Tensor> components;
      for (const TensorProto& p : proto.tensors()) {
        absl::StatusOr<Tensor> t = Tensor::FromProto(p);
        if (!t.ok()) return ToGrpcStatus(t.status());
        components.push_back(*std::move(t));
      }
      auto compressed = data::EncodeCompressedElement(components);
      if (!compressed.ok()) return ToGrpcStatus(compressed.status());
      *response->mutable_compressed() = *std::move(compressed);
      return grpc::Status::OK;
    }
    for (const Tensor& t : element) {
      t.AsProtoTensorContent(
          response->mutable_uncompressed()->add_components());
    }
    return grpc::Status::OK;
  }

 private:
  void HeartbeatLoop() {
    while (!stop_.WaitForNotificationWithTimeout(kHeartbeatInterval)) {
      Heartbeat();
    }
  }

  void Heartbeat() {
    tfdata::WorkerUpdateRequest update;
    tfdata::WorkerHeartbeatRequest request;
    request.set_worker_address(address_);
    request.set_transfer_address(address_);
    {
      absl::MutexLock lock(&mu_);
      for (const auto& [id, task] : tasks_) request.add_current_tasks(id);
      for (int64_t id : completed_) {
        tfdata::TaskProgress* p = update.add_updates();
        p->set_task_id(id);
        p->set_completed(true);
      }
    }
    if (update.updates_size() > 0) {
      update.set_worker_address(address_);
      tfdata::WorkerUpdateResponse ignored;
      grpc::ClientContext ctx;
      ctx.set_deadline(absl::ToChronoTime(absl::Now() + kCallTimeout));
      if (dispatcher_->WorkerUpdate(&ctx, update, &ignored).ok()) {
        absl::MutexLock lock(&mu_);
        completed_.erase(completed_.begin(),
                         completed_.begin() + update.updates_size());
      }
    }
    tfdata::WorkerHeartbeatResponse response;
    grpc::ClientContext ctx;
    ctx.set_deadline(absl::ToChronoTime(absl::Now() + kCallTimeout));
    const grpc::Status s =
        dispatcher_->WorkerHeartbeat(&ctx, request, &response);
    if (!s.ok()) {
      // The next heartbeat tries again; a refusal (an address not among
      // the dispatcher's --worker-addresses) is said once.
      if (s.error_code() != grpc::StatusCode::UNAVAILABLE &&
          s.error_code() != grpc::StatusCode::DEADLINE_EXCEEDED &&
          !refusal_reported_) {
        refusal_reported_ = true;
        std::fprintf(stderr, "dfx data-service worker: the dispatcher: %s\n",
                     s.error_message().c_str());
      }
      return;
    }
    for (const tfdata::TaskDef& def : response.new_tasks()) {
      {
        absl::MutexLock lock(&mu_);
        if (tasks_.contains(def.task_id())) continue;
      }
      absl::StatusOr<std::unique_ptr<Task>> task = StartTask(def, dispatcher_);
      absl::MutexLock lock(&mu_);
      if (!task.ok()) {
        // A pipeline this worker cannot run: its readers get the error
        // (rather than retrying a task that never comes).
        std::fprintf(stderr, "dfx data-service worker: task %lld: %s\n",
                     static_cast<long long>(def.task_id()),
                     task.status().ToString().c_str());
        auto failed = std::make_shared<Task>();
        failed->error = task.status();
        tasks_[def.task_id()] = std::move(failed);
        continue;
      }
      tasks_[def.task_id()] = std::shared_ptr<Task>(std::move(*task));
    }
    absl::MutexLock lock(&mu_);
    for (int64_t id : response.tasks_to_delete()) tasks_.erase(id);
  }

  const std::string address_;
  const std::shared_ptr<DispatcherStub> dispatcher_;
  absl::Notification stop_;
  std::thread heartbeat_;
  bool refusal_reported_ = false;  // (the heartbeat thread's)
  absl::Mutex mu_;
  std::map<int64_t, std::shared_ptr<Task>> tasks_ ABSL_GUARDED_BY(mu_);
  std::vector<int64_t> completed_ ABSL_GUARDED_BY(mu_);
};

int Fail(const absl::Status& s, std::ostream& err, int code = kExitError) {
  ReportError("data-service", s, err);
  return code;
}

}  // namespace

int DataServiceMain(const std::vector<std::string>& args, std::ostream& out,
                    std::ostream& err) {
  if (args.empty() || args[0] == "--help" || args[0] == "-h") {
    out << kUsage;
    return args.empty() ? kExitUsage : kExitOk;
  }
  const std::string role = args[0];
  if (role != "dispatcher" && role != "worker") {
    return Fail(absl::InvalidArgumentError(absl::StrCat(
                    "unknown role '", role,
                    "': dispatcher or worker (see 'dfx data-service --help')")),
                err, kExitUsage);
  }
  absl::StatusOr<std::vector<Flag>> flags =
      SplitFlags(std::vector<std::string>(args.begin() + 1, args.end()),
                 {"--port", "--work-dir", "--dispatcher", "--worker-address",
                  "--worker-addresses", "--data-dir"},
                 {});
  if (!flags.ok()) return Fail(flags.status(), err, kExitUsage);
  int64_t port = -1;
  std::string dispatcher, worker_address, work_dir, worker_addresses, data_dir;
  for (const Flag& f : *flags) {
    if (f.name == "--help") {
      out << kUsage;
      return kExitOk;
    } else if (f.name == "--port") {
      if (!absl::SimpleAtoi(f.value, &port) || port < 0 || port > 65535) {
        return Fail(absl::InvalidArgumentError(absl::StrCat(
                        "--port '", f.value, "' is not a port number")),
                    err, kExitUsage);
      }
    } else if (f.name == "--dispatcher") {
      dispatcher = f.value;
    } else if (f.name == "--work-dir") {
      work_dir = f.value;
    } else if (f.name == "--worker-addresses") {
      worker_addresses = f.value;
    } else if (f.name == "--worker-address") {
      worker_address = f.value;
    } else if (f.name == "--data-dir") {
      data_dir = f.value;
    }
  }
  if (port < 0) {
    return Fail(absl::InvalidArgumentError("--port is required"), err,
                kExitUsage);
  }
  if (role == "worker" && dispatcher.empty()) {
    return Fail(absl::InvalidArgumentError("--dispatcher is required"), err,
                kExitUsage);
  }
  if (role == "worker" && port == 0 && worker_address.empty()) {
    return Fail(absl::InvalidArgumentError(
                    "a worker on --port 0 needs --worker-address"),
                err, kExitUsage);
  }
  if (!data_dir.empty()) {
    const absl::Status s = SetDataDir(data_dir);
    if (!s.ok()) return Fail(s, err, kExitUsage);
  }
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGTERM);
  sigaddset(&signals, SIGINT);
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);

  grpc::ServerBuilder builder;
  builder.SetMaxReceiveMessageSize(-1);
  builder.SetMaxSendMessageSize(-1);
  int bound = 0;
  builder.AddListeningPort(absl::StrCat("[::]:", port),
                           grpc::InsecureServerCredentials(), &bound);
  std::unique_ptr<DispatcherImpl> dispatcher_impl;
  std::unique_ptr<WorkerImpl> worker_impl;
  std::unique_ptr<grpc::Server> server;
  if (role == "dispatcher") {
    dispatcher_impl = std::make_unique<DispatcherImpl>();
    if (!worker_addresses.empty()) {
      dispatcher_impl->state().SetWorkerAddresses(
          absl::StrSplit(worker_addresses, ',', absl::SkipEmpty()));
    }
    if (!work_dir.empty()) {
      const absl::Status s =
          dispatcher_impl->state().OpenJournal(work_dir, absl::Now());
      if (!s.ok()) return Fail(s, err);
    }
    builder.RegisterService(dispatcher_impl.get());
    server = builder.BuildAndStart();
  } else {
    // The address clients are told: --worker-address, or this port.
    worker_impl = std::make_unique<WorkerImpl>(
        dispatcher, worker_address.empty() ? absl::StrCat("localhost:", port)
                                           : worker_address);
    builder.RegisterService(worker_impl.get());
    server = builder.BuildAndStart();
  }
  if (server == nullptr || bound == 0) {
    return Fail(
        absl::UnavailableError(absl::StrCat("cannot serve on port ", port)),
        err);
  }
  out << "dfx data-service: " << role << " serving on localhost:" << bound
      << std::endl;
  if (!data_dir.empty()) {
    err << "dfx data-service: pipelines' files are confined to " << DataDir()
        << std::endl;
  }
  std::atomic<bool> stopping{false};
  std::thread expire;
  if (dispatcher_impl != nullptr) {
    expire = std::thread([&] {
      while (!stopping) {
        absl::SleepFor(absl::Seconds(1));
        dispatcher_impl->state().Expire(absl::Now());
      }
    });
  } else {
    worker_impl->Start();
  }
  int signal = 0;
  sigwait(&signals, &signal);
  stopping = true;
  if (worker_impl != nullptr) worker_impl->Stop();
  server->Shutdown(absl::ToChronoTime(absl::Now() + absl::Seconds(5)));
  if (expire.joinable()) expire.join();
  out << "dfx data-service: stopped" << std::endl;
  return kExitOk;
}

}  // namespace dfx::cli
