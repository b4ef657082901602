#include "graph/builder/sync_replicas.h"

#include <algorithm>
#include <utility>

#include "absl/strings/str_cat.h"
#include "graph/builder/gradients.h"
#include "graph/builder/ops.h"

namespace dfx {
namespace ops {
namespace {

// A node of `op` with `inputs` (data edges) and `attrs`.
class Node {
 public:
  Node(const Scope& scope, absl::string_view op) : scope_(scope) {
    def_.set_op(std::string(op));
    def_.set_name(scope.GetUniqueNameForOp(op));
  }
  Node& Input(const Output& in) {
    if (!in.valid()) bad_ = true;
    def_.add_input(in.ToString());
    return *this;
  }
  Node& Attr(const std::string& name, AttrValue v) {
    (*def_.mutable_attr())[name] = std::move(v);
    return *this;
  }
  Node& Type(const std::string& name, DataType t) {
    AttrValue v;
    v.set_type(t);
    return Attr(name, v);
  }
  Node& Types(const std::string& name, const DataTypeVector& ts) {
    AttrValue v;
    for (DataType t : ts) v.mutable_list()->add_type(t);
    return Attr(name, v);
  }
  Node& Int(const std::string& name, int64_t i) {
    AttrValue v;
    v.set_i(i);
    return Attr(name, v);
  }
  Node& Bool(const std::string& name, bool b) {
    AttrValue v;
    v.set_b(b);
    return Attr(name, v);
  }
  Node& Str(const std::string& name, const std::string& s) {
    AttrValue v;
    v.set_s(s);
    return Attr(name, v);
  }
  Node& Shape(const std::string& name, const std::vector<int64_t>& dims) {
    AttrValue v;
    v.mutable_shape();  // a scalar's shape has no dims, but is set
    for (int64_t d : dims) v.mutable_shape()->add_dim()->set_size(d);
    return Attr(name, v);
  }
  // Adds the node; false (with the scope's error) when it failed.
  bool Finish() {
    if (bad_) {
      scope_.UpdateStatus(absl::InvalidArgumentError(absl::StrCat(
          def_.op(), " '", def_.name(), "': an input is not a valid Output")));
      return false;
    }
    return scope_.AddNode(def_).ok();
  }
  const std::string& name() const { return def_.name(); }

 private:
  const Scope& scope_;
  NodeDef def_;
  bool bad_ = false;
};

}  // namespace

Output FIFOQueue(const Scope& scope, const DataTypeVector& types,
                 const std::vector<std::vector<int64_t>>& shapes,
                 int64_t capacity, const std::string& shared_name) {
  Node n(scope, "FIFOQueueV2");
  AttrValue list;
  list.mutable_list();
  for (const std::vector<int64_t>& s : shapes) {
    TensorShapeProto* p = list.mutable_list()->add_shape();
    for (int64_t d : s) p->add_dim()->set_size(d);
  }
  n.Types("component_types", types)
      .Attr("shapes", list)
      .Int("capacity", capacity)
      .Str("container", "")
      .Str("shared_name", shared_name);
  if (!n.Finish()) return Output();
  return Output(n.name(), 0, DT_RESOURCE);
}

namespace {
Operation Enqueue(const Scope& scope, absl::string_view op,
                  const Output& queue, const std::vector<Output>& components) {
  Node n(scope, op);
  n.Input(queue);
  DataTypeVector types;
  for (const Output& c : components) {
    n.Input(c);
    types.push_back(c.dtype());
  }
  n.Types("Tcomponents", types).Int("timeout_ms", -1);
  if (!n.Finish()) return Operation();
  return Operation(n.name());
}

std::vector<Output> Dequeue(const Scope& scope, absl::string_view op,
                            const Output& queue, const Output* count,
                            const DataTypeVector& types) {
  Node n(scope, op);
  n.Input(queue);
  if (count != nullptr) n.Input(*count);
  n.Types("component_types", types).Int("timeout_ms", -1);
  if (!n.Finish()) return std::vector<Output>(types.size());
  std::vector<Output> out;
  for (size_t i = 0; i < types.size(); ++i) {
    out.emplace_back(n.name(), static_cast<int>(i), types[i]);
  }
  return out;
}
}  // namespace

Operation QueueEnqueue(const Scope& scope, const Output& queue,
                       const std::vector<Output>& components) {
  return Enqueue(scope, "QueueEnqueueV2", queue, components);
}

Operation QueueEnqueueMany(const Scope& scope, const Output& queue,
                           const std::vector<Output>& components) {
  return Enqueue(scope, "QueueEnqueueManyV2", queue, components);
}

std::vector<Output> QueueDequeue(const Scope& scope, const Output& queue,
                                 const DataTypeVector& types) {
  return Dequeue(scope, "QueueDequeueV2", queue, nullptr, types);
}

std::vector<Output> QueueDequeueMany(const Scope& scope, const Output& queue,
                                     const Output& n,
                                     const DataTypeVector& types) {
  return Dequeue(scope, "QueueDequeueManyV2", queue, &n, types);
}

Operation QueueClose(const Scope& scope, const Output& queue,
                     bool cancel_pending_enqueues) {
  Node n(scope, "QueueCloseV2");
  n.Input(queue).Bool("cancel_pending_enqueues", cancel_pending_enqueues);
  if (!n.Finish()) return Operation();
  return Operation(n.name());
}

Output QueueSize(const Scope& scope, const Output& queue) {
  Node n(scope, "QueueSizeV2");
  n.Input(queue);
  if (!n.Finish()) return Output();
  return Output(n.name(), 0, DT_INT32);
}

Output ConditionalAccumulator(const Scope& scope, DataType dtype,
                              const std::vector<int64_t>& shape,
                              const std::string& shared_name,
                              const std::string& reduction_type) {
  Node n(scope, "ResourceConditionalAccumulator");
  n.Type("dtype", dtype)
      .Shape("shape", shape)
      .Str("container", "")
      .Str("shared_name", shared_name)
      .Str("reduction_type", reduction_type);
  if (!n.Finish()) return Output();
  return Output(n.name(), 0, DT_RESOURCE);
}

Operation AccumulatorApplyGradient(const Scope& scope, const Output& handle,
                                   const Output& local_step,
                                   const Output& gradient) {
  Node n(scope, "ResourceAccumulatorApplyGradient");
  n.Input(handle).Input(local_step).Input(gradient).Type("dtype",
                                                         gradient.dtype());
  if (!n.Finish()) return Operation();
  return Operation(n.name());
}

Output AccumulatorTakeGradient(const Scope& scope, const Output& handle,
                               const Output& num_required, DataType dtype) {
  Node n(scope, "ResourceAccumulatorTakeGradient");
  n.Input(handle).Input(num_required).Type("dtype", dtype);
  if (!n.Finish()) return Output();
  return Output(n.name(), 0, dtype);
}

Output AccumulatorNumAccumulated(const Scope& scope, const Output& handle) {
  Node n(scope, "ResourceAccumulatorNumAccumulated");
  n.Input(handle);
  if (!n.Finish()) return Output();
  return Output(n.name(), 0, DT_INT32);
}

Operation AccumulatorSetGlobalStep(const Scope& scope, const Output& handle,
                                   const Output& new_global_step) {
  Node n(scope, "ResourceAccumulatorSetGlobalStep");
  n.Input(handle).Input(new_global_step);
  if (!n.Finish()) return Operation();
  return Operation(n.name());
}

}  // namespace ops

namespace train {

SyncReplicasOptimizer::SyncReplicasOptimizer(Optimizer* optimizer,
                                             int replicas_to_aggregate,
                                             int total_num_replicas)
    : optimizer_(optimizer),
      replicas_to_aggregate_(replicas_to_aggregate),
      total_num_replicas_(total_num_replicas < 0 ? replicas_to_aggregate
                                                 : total_num_replicas) {}

absl::Status SyncReplicasOptimizer::Build(const Scope& scope_in,
                                          absl::Span<const Variable> vars,
                                          const Variable& global_step) {
  if (!vars_.empty()) {
    return absl::FailedPreconditionError(
        "SyncReplicasOptimizer::Build called twice");
  }
  if (vars.empty()) {
    return absl::InvalidArgumentError("SyncReplicasOptimizer: no variables");
  }
  if (replicas_to_aggregate_ < 1) {
    return absl::InvalidArgumentError(absl::StrCat(
        "SyncReplicasOptimizer: replicas_to_aggregate must be >= 1, got ",
        replicas_to_aggregate_));
  }
  if (global_step.dtype != DT_INT64 || !global_step.shape.empty() ||
      global_step.kind != VariableKind::kResource) {
    return absl::InvalidArgumentError(
        "SyncReplicasOptimizer: the global step must be a scalar int64 "
        "resource variable");
  }
  vars_.assign(vars.begin(), vars.end());
  global_step_ = global_step;
  const Scope scope = scope_in.NewSubScope("sync_replicas");

  // Accumulators, each on its variable's device.
  std::vector<Operation> set_steps;
  const Scope gs_scope = scope.WithDevice(global_step.device);
  const Output step_now =
      ReadValue(gs_scope.WithOpName("global_step_read"), global_step);
  for (const Variable& v : vars_) {
    const Scope on_var = scope.WithDevice(v.device);
    // TensorFlow's shared names: every worker's graph (between-graph
    // replication, a session each) reaches the same accumulator.
    Output acc = ops::ConditionalAccumulator(
        on_var.WithOpName(absl::StrCat("accumulator_", v.name)), v.dtype,
        v.shape, /*shared_name=*/absl::StrCat(v.name, "/grad_accum"));
    accumulators_.push_back(acc);
    num_accumulated_.push_back(ops::AccumulatorNumAccumulated(on_var, acc));
    set_steps.push_back(ops::AccumulatorSetGlobalStep(on_var, acc, step_now));
  }
  chief_init_ = ops::NoOp(scope.WithOpName("chief_init").WithControlDependencies(
      set_steps));

  // The token queue, on the global step's device.
  token_queue_ = ops::FIFOQueue(gs_scope.WithOpName("sync_token_q"),
                                {DT_INT64}, {{}}, -1, "sync_token_q");
  const Output init_tokens = ops::Fill(
      gs_scope, ops::Const(gs_scope, std::vector<int32_t>{replicas_to_aggregate_}),
      step_now);
  init_tokens_ = ops::QueueEnqueueMany(gs_scope.WithOpName("init_tokens"),
                                       token_queue_, {init_tokens});

  // The chief's update: the mean gradients, applied by the wrapped
  // optimizer (Optimizer::ApplyGradients, each update on its variable's
  // device).
  const Output num_required = ops::Const(scope, replicas_to_aggregate_);
  std::vector<Output> means;
  for (size_t i = 0; i < vars_.size(); ++i) {
    const Scope on_var = scope.WithDevice(vars_[i].device);
    means.push_back(ops::AccumulatorTakeGradient(
        on_var.WithOpName(absl::StrCat("take_", vars_[i].name)),
        accumulators_[i], num_required, vars_[i].dtype));
  }
  absl::StatusOr<Operation> update =
      optimizer_->ApplyGradients(scope.NewSubScope("update"), vars_, means);
  if (!update.ok()) return update.status();
  const Scope after_update = gs_scope.WithControlDependencies({*update});
  const Operation increment = ops::AssignAddVariableOp(
      after_update.WithOpName("increment_global_step"), global_step.handle,
      ops::Const(after_update, int64_t{1}));
  const Scope after_increment = gs_scope.WithControlDependencies({increment});
  const Output new_step = ReadValue(after_increment, global_step);
  const int tokens_per_step =
      std::max(total_num_replicas_, replicas_to_aggregate_);
  const Output tokens = ops::Fill(
      after_increment, ops::Const(after_increment, std::vector<int32_t>{tokens_per_step}),
      new_step);
  sync_ = ops::QueueEnqueueMany(after_increment.WithOpName("sync_op"),
                                token_queue_, {tokens});
  return scope.status();
}

absl::StatusOr<SyncReplicasOptimizer::Replica>
SyncReplicasOptimizer::AddReplica(const Scope& scope_in, const Output& loss) {
  if (vars_.empty()) {
    return absl::FailedPreconditionError(
        "SyncReplicasOptimizer::AddReplica before Build");
  }
  const Scope scope =
      scope_in.NewSubScope(absl::StrCat("replica_", replicas_++));
  Replica r;
  // The worker's step: the global step when it starts, then each token.
  r.local_step =
      NewVariable(scope.WithOpName("local_step"),
                  ops::Const(scope, int64_t{0}), DT_INT64, {});
  r.local_step_init =
      AssignValue(scope.WithOpName("local_step_init"), r.local_step,
                  ReadValue(scope, global_step_));
  std::vector<Output> values;
  for (const Variable& v : vars_) values.push_back(v.value);
  std::vector<Output> grads;
  absl::Status s = AddSymbolicGradients(scope, {loss}, values, &grads);
  if (!s.ok()) return s;
  const Output local = ReadValue(scope, r.local_step);
  std::vector<Operation> applies;
  for (size_t i = 0; i < vars_.size(); ++i) {
    const Scope on_var = scope.WithDevice(vars_[i].device);
    applies.push_back(ops::AccumulatorApplyGradient(
        on_var, accumulators_[i], local, grads[i]));
  }
  const Scope after = scope.WithDevice(global_step_.device)
                          .WithControlDependencies(applies);
  const Output token = ops::QueueDequeue(after, token_queue_, {DT_INT64})[0];
  r.train_op = AssignValue(scope.WithOpName("train_op"), r.local_step, token);
  if (!scope.ok()) return scope.status();
  return r;
}

}  // namespace train
}  // namespace dfx
