#include "master/local_session.h"

#include <algorithm>
#include <chrono>
#include <future>
#include <numeric>
#include <thread>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "base/status_macros.h"
#include "graph/graph_def_import.h"
#include "graph/shape_inference.h"
#include "graph/subgraph.h"
#include "kernels/kernels.h"
#include "runtime/step_stats_collector.h"

namespace dfx {
namespace {

bool IsPlaceholder(const std::string& op) {
  return op == "Placeholder" || op == "PlaceholderV2" ||
         op == "PlaceholderWithDefault";
}

// The shape a Placeholder declares, when its `shape` attr says anything.
bool ShapeCompatible(const PartialShape& declared, const TensorShape& actual) {
  if (!declared.RankKnown()) return true;
  if (declared.rank() != actual.dims()) return false;
  for (int i = 0; i < declared.rank(); ++i) {
    if (declared.dims[i] >= 0 && declared.dims[i] != actual.dim_size(i)) {
      return false;
    }
  }
  return true;
}

}  // namespace

absl::StatusOr<std::unique_ptr<LocalSession>> LocalSession::Create(
    const SessionOptions& options) {
  return Create(options, OpRegistry::Global(), StandardKernelRegistry());
}

absl::StatusOr<std::unique_ptr<LocalSession>> LocalSession::Create(
    const SessionOptions& options, const OpRegistry* ops,
    const KernelRegistry* kernels) {
  const ConfigProto& config = options.config;
  CpuDeviceOptions device_options;
  auto cpu = config.device_count().find("CPU");
  if (cpu != config.device_count().end()) {
    if (cpu->second < 1) {
      return absl::InvalidArgumentError(absl::StrCat(
          "device_count['CPU'] must be at least 1, got ", cpu->second));
    }
    device_options.num_devices = cpu->second;
  }
  if (config.intra_op_parallelism_threads() < 0 ||
      config.inter_op_parallelism_threads() < 0) {
    return absl::InvalidArgumentError(
        "intra_op_parallelism_threads and inter_op_parallelism_threads must "
        "not be negative");
  }
  if (config.operation_timeout_in_ms() < 0) {
    return absl::InvalidArgumentError(
        "operation_timeout_in_ms must not be negative");
  }
  device_options.intra_op_threads = config.intra_op_parallelism_threads();
  DFX_ASSIGN_OR_RETURN(std::unique_ptr<DeviceMgr> devices,
                       DeviceMgr::NewCpu(device_options));
  int inter_op = config.inter_op_parallelism_threads();
  if (inter_op == 0) {
    inter_op = std::max(1, static_cast<int>(std::thread::hardware_concurrency()));
  }
  return std::unique_ptr<LocalSession>(
      new LocalSession(options, std::move(devices), inter_op, ops, kernels));
}

LocalSession::LocalSession(const SessionOptions& options,
                           std::unique_ptr<DeviceMgr> devices,
                           int inter_op_threads, const OpRegistry* ops,
                           const KernelRegistry* kernels)
    : options_(options),
      devices_(std::move(devices)),
      device_(devices_->ListDevices()[0]),
      ops_(ops),
      kernels_(kernels),
      inter_op_pool_(
          std::make_unique<ThreadPool>("inter_op", inter_op_threads)) {}

LocalSession::~LocalSession() {
  Close().IgnoreError();
  {
    absl::MutexLock lock(&mu_);
    mu_.Await(absl::Condition(
        +[](absl::flat_hash_set<CancellationManager*>* running) {
          return running->empty();
        },
        &running_));
  }
  // Waits for closures still unwinding on the pool before the executors and
  // devices go.
  inter_op_pool_.reset();
}

absl::Status LocalSession::Extend(const GraphDef& graph) {
  absl::MutexLock extend_lock(&extend_mu_);
  std::shared_ptr<const GraphState> old;
  {
    absl::MutexLock lock(&mu_);
    if (closed_) return absl::CancelledError("session is closed");
    old = graph_;
  }
  GraphDef merged;
  if (old != nullptr) {
    merged = old->def;
    absl::flat_hash_set<absl::string_view> existing;
    for (const NodeDef& n : old->def.node()) existing.insert(n.name());
    for (const NodeDef& n : graph.node()) {
      if (existing.contains(n.name())) {
        return absl::InvalidArgumentError(absl::StrCat(
            "node '", n.name(), "' already exists in the session's graph"));
      }
    }
  }
  for (const NodeDef& n : graph.node()) *merged.add_node() = n;
  if (graph.has_versions()) *merged.mutable_versions() = graph.versions();
  for (const FunctionDef& f : graph.library().function()) {
    *merged.mutable_library()->add_function() = f;
  }
  for (const GradientDef& g : graph.library().gradient()) {
    *merged.mutable_library()->add_gradient() = g;
  }
  DFX_ASSIGN_OR_RETURN(std::unique_ptr<Graph> imported,
                       ImportGraphDef(merged, ops_));
  auto state = std::make_shared<GraphState>();
  state->def = std::move(merged);
  state->graph = std::move(imported);
  absl::MutexLock lock(&mu_);
  if (closed_) return absl::CancelledError("session is closed");
  graph_ = std::move(state);
  return absl::OkStatus();
}

absl::StatusOr<std::shared_ptr<const LocalSession::PreparedStep>>
LocalSession::GetOrCreatePrepared(
    const GraphState& graph, const std::vector<std::string>& sorted_feeds,
    const std::vector<std::string>& fetches,
    const std::vector<std::string>& sorted_targets) {
  const std::string key =
      absl::StrCat(absl::StrJoin(sorted_feeds, ","), "\n",
                   absl::StrJoin(fetches, ","), "\n",
                   absl::StrJoin(sorted_targets, ","));
  {
    absl::MutexLock lock(&mu_);
    auto it = prepared_.find(key);
    if (it != prepared_.end()) return it->second;
  }
  // Built outside the lock: other steps keep running meanwhile. Two threads
  // may build the same signature at once; the first to insert wins.
  DFX_ASSIGN_OR_RETURN(GraphDef rewritten,
                       RewriteForCallFrame(graph.def, sorted_feeds, fetches,
                                           sorted_targets, ops_));
  ImportOptions import_options;
  import_options.validate_shapes = false;
  DFX_ASSIGN_OR_RETURN(std::unique_ptr<Graph> step_graph,
                       ImportGraphDef(rewritten, ops_, import_options));
  auto prepared = std::make_shared<PreparedStep>();
  DFX_ASSIGN_OR_RETURN(
      prepared->executor,
      NewExecutor(ExecutorParams{device_, kernels_}, std::move(step_graph)));
  absl::MutexLock lock(&mu_);
  auto [it, inserted] = prepared_.try_emplace(key, std::move(prepared));
  return it->second;
}

absl::Status LocalSession::Run(
    const RunOptions& run_options,
    const std::vector<std::pair<std::string, Tensor>>& feeds,
    const std::vector<std::string>& fetches,
    const std::vector<std::string>& targets, std::vector<Tensor>* outputs,
    RunMetadata* run_metadata) {
  std::shared_ptr<const GraphState> graph;
  {
    absl::MutexLock lock(&mu_);
    if (closed_) return absl::CancelledError("session is closed");
    graph = graph_;
  }
  if (graph == nullptr) {
    auto empty = std::make_shared<GraphState>();
    empty->graph = std::make_unique<Graph>(ops_);
    graph = std::move(empty);
  }

  // Feeds: validated against the graph, then put in name order (the order of
  // the cached step's _Arg indices).
  std::vector<std::string> canonical(feeds.size());
  for (size_t i = 0; i < feeds.size(); ++i) {
    const std::string& name = feeds[i].first;
    const Tensor& value = feeds[i].second;
    auto id = ParseTensorName(name);
    if (!id.ok()) {
      return absl::InvalidArgumentError(
          absl::StrCat("feed '", name, "': ", id.status().message()));
    }
    const Node* node = graph->graph->FindNode(id->node);
    if (node == nullptr) {
      return absl::InvalidArgumentError(
          absl::StrCat("feed tensor '", name, "' not found: the graph has no "
                       "node '", id->node, "'"));
    }
    if (id->index >= node->num_outputs()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "feed tensor '", name, "' not found: node '", id->node, "' has ",
          node->num_outputs(), " output(s)"));
    }
    canonical[i] = id->ToString();
    const DataType want = BaseType(node->output_type(id->index));
    if (value.dtype() != want) {
      return absl::InvalidArgumentError(absl::StrCat(
          "feed '", name, "' is a ", DataTypeString(value.dtype()),
          " tensor but tensor '", canonical[i], "' has dtype ",
          DataTypeString(want)));
    }
    if (id->index == 0 && IsPlaceholder(node->type_string())) {
      const AttrValue* shape = FindNodeAttr(node->def(), "shape");
      if (shape != nullptr && shape->has_shape()) {
        const PartialShape declared = PartialShape::FromProto(shape->shape());
        if (!ShapeCompatible(declared, value.shape())) {
          return absl::InvalidArgumentError(absl::StrCat(
              "Cannot feed value of shape ", value.shape().DebugString(),
              " for tensor '", canonical[i], "', which has shape ",
              declared.DebugString()));
        }
      }
    }
  }
  std::vector<size_t> order(feeds.size());
  std::iota(order.begin(), order.end(), 0);
  std::sort(order.begin(), order.end(),
            [&](size_t a, size_t b) { return canonical[a] < canonical[b]; });
  std::vector<std::string> sorted_feeds;
  std::vector<Tensor> args;
  sorted_feeds.reserve(feeds.size());
  args.reserve(feeds.size());
  for (size_t i : order) {
    if (!sorted_feeds.empty() && sorted_feeds.back() == canonical[i]) {
      return absl::InvalidArgumentError(
          absl::StrCat("tensor '", canonical[i], "' is fed more than once"));
    }
    sorted_feeds.push_back(canonical[i]);
    args.push_back(feeds[i].second);
  }
  std::vector<std::string> sorted_targets = targets;
  std::sort(sorted_targets.begin(), sorted_targets.end());
  sorted_targets.erase(
      std::unique(sorted_targets.begin(), sorted_targets.end()),
      sorted_targets.end());

  DFX_ASSIGN_OR_RETURN(
      std::shared_ptr<const PreparedStep> prepared,
      GetOrCreatePrepared(*graph, sorted_feeds, fetches, sorted_targets));

  SimpleCallFrame frame(std::move(args), fetches.size());
  CancellationManager cancellation;
  {
    absl::MutexLock lock(&mu_);
    if (closed_) return absl::CancelledError("session is closed");
    running_.insert(&cancellation);
  }
  const bool trace = run_options.trace_level() != RunOptions::NO_TRACE &&
                     run_metadata != nullptr;
  StepStatsCollector collector;

  Executor::Args exec_args;
  exec_args.step_id = next_step_id_.fetch_add(1, std::memory_order_relaxed);
  exec_args.call_frame = &frame;
  exec_args.cancellation_manager = &cancellation;
  exec_args.stats_collector = trace ? &collector : nullptr;
  ThreadPool* pool = inter_op_pool_.get();
  exec_args.runner = [pool](std::function<void()> fn) {
    pool->Schedule(std::move(fn));
  };
  auto promise = std::make_shared<std::promise<absl::Status>>();
  std::future<absl::Status> result = promise->get_future();
  prepared->executor->RunAsync(exec_args, [promise](absl::Status s) {
    promise->set_value(std::move(s));
  });

  const int64_t timeout_ms = run_options.timeout_in_ms() > 0
                                 ? run_options.timeout_in_ms()
                                 : options_.config.operation_timeout_in_ms();
  bool timed_out = false;
  if (timeout_ms > 0 &&
      result.wait_for(std::chrono::milliseconds(timeout_ms)) ==
          std::future_status::timeout) {
    timed_out = true;
    cancellation.StartCancel();
  }
  absl::Status status = result.get();
  {
    absl::MutexLock lock(&mu_);
    running_.erase(&cancellation);
  }
  if (timed_out && absl::IsCancelled(status)) {
    status = absl::DeadlineExceededError(absl::StrCat(
        "step did not finish within the deadline of ", timeout_ms, " ms"));
  }
  if (trace) collector.Finalize(run_metadata->mutable_step_stats());
  DFX_RETURN_IF_ERROR(status);
  DFX_ASSIGN_OR_RETURN(std::vector<Tensor> values, frame.ConsumeRetvals());
  *outputs = std::move(values);
  return absl::OkStatus();
}

absl::StatusOr<std::vector<DeviceAttributes>> LocalSession::ListDevices() {
  {
    absl::MutexLock lock(&mu_);
    if (closed_) return absl::CancelledError("session is closed");
  }
  std::vector<DeviceAttributes> out;
  for (const Device* d : devices_->ListDevices()) {
    out.push_back(d->attributes());
  }
  return out;
}

absl::Status LocalSession::Close() {
  absl::flat_hash_map<std::string, std::shared_ptr<const PreparedStep>>
      dropped;
  absl::MutexLock lock(&mu_);
  if (!closed_) {
    closed_ = true;
    // The managers stay alive while the lock is held: Run erases its own
    // under the lock before destroying it.
    for (CancellationManager* cm : running_) cm->StartCancel();
    dropped.swap(prepared_);
  }
  return absl::OkStatus();
}

}  // namespace dfx
