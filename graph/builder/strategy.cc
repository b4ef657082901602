#include "graph/builder/strategy.h"

#include <algorithm>
#include <tuple>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "graph/builder/gradients.h"
#include "graph/builder/ops.h"
#include "graph/device_name.h"
#include "graph/types.h"

namespace dfx::strategy {
namespace {

// A group key from the devices: FNV-1a of their names, in [1, 2^30].
int32_t DerivedGroupKey(const std::vector<std::string>& devices) {
  uint32_t h = 2166136261u;
  for (const std::string& d : devices) {
    for (unsigned char c : d + ";") {
      h ^= c;
      h *= 16777619u;
    }
  }
  return static_cast<int32_t>(h % (1u << 30)) + 1;
}

int64_t NumElements(const std::vector<int64_t>& shape) {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  return n;
}

// InvalidArgument (in the scope) unless every dim is known and >= 0.
bool CheckShape(const Scope& scope, const std::string& what,
                const std::vector<int64_t>& shape) {
  for (int64_t d : shape) {
    if (d < 0) {
      scope.UpdateStatus(absl::InvalidArgumentError(absl::StrCat(
          what, ": a distributed variable needs a fully known shape, got [",
          absl::StrJoin(shape, ","), "]")));
      return false;
    }
  }
  return true;
}

Output Flatten(const Scope& scope, const Output& x) {
  return ops::Reshape(scope, x, ops::Const(scope, std::vector<int64_t>{-1}));
}

// `full` without the scope prefix `prefix` ("a/b/w" under "a/b": "w").
std::string WithoutPrefix(const std::string& full, const std::string& prefix) {
  if (prefix.empty() || full.size() <= prefix.size() + 1) return full;
  return full.substr(prefix.size() + 1);
}

// The last component of a node name ("a/b/w": "w").
std::string LastComponent(const std::string& name) {
  const size_t slash = name.rfind('/');
  return slash == std::string::npos ? name : name.substr(slash + 1);
}

// `flat` (rank 1) padded with zeros by `pad` elements at its end.
Output PadEnd(const Scope& scope, const Output& flat, int64_t pad) {
  if (pad == 0) return flat;
  return ops::Pad(scope, flat,
                  ops::Const(scope, std::vector<int64_t>{0, pad}, {1, 2}));
}

}  // namespace

Scope Replicas::ReplicaScope(const Scope& scope, int r) const {
  return scope.WithDevice(devices_[r]).NewSubScope(absl::StrCat("replica_", r));
}

absl::Status Replicas::Init(const ReplicaOptions& options) {
  if (options.devices.empty()) {
    return absl::InvalidArgumentError("a strategy needs at least one device");
  }
  std::vector<std::pair<DeviceName, std::string>> parsed;
  for (const std::string& d : options.devices) {
    absl::StatusOr<DeviceName> name = DeviceName::Parse(d);
    if (!name.ok() || !name->IsFullySpecified()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "strategy device '", d,
          "' is not a full device name (/job:J/replica:R/task:T/device:TYPE:N)"));
    }
    parsed.emplace_back(*name, name->ToString());
  }
  // The collective group's order (runtime/collective.cc SortGroupMembers):
  // replica r is rank r.
  std::sort(parsed.begin(), parsed.end(), [](const auto& a, const auto& b) {
    return std::tie(a.first.job, a.first.replica, a.first.task, a.first.type,
                    a.first.id) < std::tie(b.first.job, b.first.replica,
                                           b.first.task, b.first.type,
                                           b.first.id);
  });
  devices_.clear();
  for (const auto& [name, full] : parsed) {
    if (!devices_.empty() && devices_.back() == full) {
      return absl::InvalidArgumentError(
          absl::StrCat("strategy device '", full, "' is listed twice"));
    }
    devices_.push_back(full);
  }
  if (options.group_key < 0 || options.first_instance_key <= 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        "strategy keys must be positive: group_key ", options.group_key,
        ", first_instance_key ", options.first_instance_key));
  }
  group_key_ = options.group_key != 0 ? options.group_key
                                      : DerivedGroupKey(devices_);
  next_instance_key_ = options.first_instance_key;
  return absl::OkStatus();
}

Replicas::Keys Replicas::MakeKeys(const Scope& scope,
                                  int32_t instance_key) const {
  return {ops::Const(scope, static_cast<int32_t>(num_replicas())),
          ops::Const(scope, group_key_), ops::Const(scope, instance_key)};
}

namespace {

// The part of Minimize both strategies share: one loss per replica,
// validated; the mean loss on replica 0; each replica's gradients applied
// to its variables by an optimizer of its own; one NoOp over all updates.
struct ReplicaUpdates {
  std::vector<std::vector<train::Variable>> vars;  // [replica][i]
  std::vector<std::vector<Output>> grads;           // [replica][i]
};

absl::Status CheckLosses(const Replicas& replicas,
                         absl::Span<const Output> losses, size_t num_vars) {
  if (losses.size() != static_cast<size_t>(replicas.num_replicas())) {
    return absl::InvalidArgumentError(absl::StrCat(
        "Minimize: needs one loss per replica (", replicas.num_replicas(),
        "), got ", losses.size()));
  }
  if (num_vars == 0) {
    return absl::InvalidArgumentError("Minimize: no variables to train");
  }
  for (size_t r = 0; r < losses.size(); ++r) {
    const DataType t = losses[r].dtype();
    if (!losses[r].valid() || (t != DT_FLOAT && t != DT_DOUBLE)) {
      return absl::InvalidArgumentError(absl::StrCat(
          "Minimize: the loss of replica ", r,
          " must be a valid float or double scalar"));
    }
  }
  return absl::OkStatus();
}

// Per replica: the gradients of its loss with respect to `xs[r]`.
absl::StatusOr<std::vector<std::vector<Output>>> ReplicaGradients(
    const Replicas& replicas, const Scope& scope,
    absl::Span<const Output> losses,
    const std::vector<std::vector<Output>>& xs) {
  std::vector<std::vector<Output>> grads(losses.size());
  for (size_t r = 0; r < losses.size(); ++r) {
    const Scope rs = replicas.ReplicaScope(scope, static_cast<int>(r))
                         .NewSubScope("gradients");
    absl::Status s = AddSymbolicGradients(rs, {losses[r]}, xs[r], &grads[r]);
    if (!s.ok()) return s;
  }
  return grads;
}

absl::StatusOr<TrainStep> ApplyOnReplicas(
    const Replicas& replicas, const Scope& scope,
    absl::Span<const Output> losses, const ReplicaUpdates& updates,
    const OptimizerFactory& make_optimizer, TrainStep step) {
  std::vector<Operation> trains;
  for (int r = 0; r < replicas.num_replicas(); ++r) {
    std::unique_ptr<train::Optimizer> optimizer = make_optimizer();
    if (optimizer == nullptr) {
      return absl::InvalidArgumentError(
          "Minimize: the optimizer factory returned no optimizer");
    }
    absl::StatusOr<Operation> train = optimizer->ApplyGradients(
        replicas.ReplicaScope(scope, r).NewSubScope("update"),
        updates.vars[r], updates.grads[r]);
    if (!train.ok()) return train.status();
    trains.push_back(*train);
    step.slots.insert(step.slots.end(), optimizer->slots().begin(),
                      optimizer->slots().end());
  }
  step.train =
      ops::NoOp(scope.WithOpName("train").WithControlDependencies(trains));
  // The mean of the replicas' losses, where replica 0 runs.
  const Scope ls = scope.WithDevice(replicas.device(0));
  const DataType t = losses[0].dtype();
  const Output n = t == DT_DOUBLE
                       ? ops::Const(ls, static_cast<double>(losses.size()))
                       : ops::Const(ls, static_cast<float>(losses.size()));
  step.loss = ops::RealDiv(
      ls.WithOpName("loss"),
      ops::AddN(ls, std::vector<Output>(losses.begin(), losses.end())), n);
  if (!scope.ok()) return scope.status();
  return step;
}

}  // namespace

// --- MirroredStrategy -------------------------------------------------------

absl::StatusOr<std::unique_ptr<MirroredStrategy>> MirroredStrategy::Create(
    const Options& options) {
  if (options.bucket_bytes < 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        "bucket_bytes must be >= 0, not ", options.bucket_bytes));
  }
  std::unique_ptr<MirroredStrategy> strategy(new MirroredStrategy);
  absl::Status s = strategy->Init(options);
  if (!s.ok()) return s;
  strategy->bucket_bytes_ = options.bucket_bytes;
  return strategy;
}

std::vector<train::Variable> MirroredStrategy::Copies(
    const Scope& scope, const Output& initial_value, DataType dtype,
    const std::vector<int64_t>& shape) {
  std::vector<train::Variable> copies;
  if (!CheckShape(scope, "CreateVariable", shape)) return copies;
  // Replica 0's copy takes the name the scope gives (WithOpName); the
  // others are named after it.
  copies.push_back(train::NewVariable(scope.WithDevice(device(0)),
                                      initial_value, dtype, shape));
  if (!copies[0].handle.valid()) return {};
  const std::string name = WithoutPrefix(copies[0].name, scope.name_prefix());
  for (int r = 1; r < num_replicas(); ++r) {
    copies.push_back(train::NewVariable(
        scope.WithDevice(device(r)).WithOpName(
            absl::StrCat(name, "_replica_", r)),
        initial_value, dtype, shape));
  }
  return copies;
}

MirroredVariable MirroredStrategy::CreateVariable(
    const Scope& scope, const Output& initial_value, DataType dtype,
    const std::vector<int64_t>& shape) {
  MirroredVariable var;
  var.replicas = Copies(scope, initial_value, dtype, shape);
  if (!var.replicas.empty()) var.name = var.replicas[0].name;
  return var;
}

SyncOnReadVariable MirroredStrategy::CreateSyncOnReadVariable(
    const Scope& scope, const Output& initial_value, DataType dtype,
    const std::vector<int64_t>& shape, Aggregation aggregation) {
  SyncOnReadVariable var;
  var.replicas = Copies(scope, initial_value, dtype, shape);
  if (!var.replicas.empty()) var.name = var.replicas[0].name;
  var.aggregation = aggregation;
  return var;
}

Output MirroredStrategy::Read(const Scope& scope,
                              const SyncOnReadVariable& var) const {
  std::vector<Output> reads;
  for (const train::Variable& copy : var.replicas) {
    reads.push_back(train::ReadValue(scope, copy));
  }
  if (reads.empty()) {
    scope.UpdateStatus(absl::InvalidArgumentError(absl::StrCat(
        "Read: sync-on-read variable '", var.name, "' has no copies")));
    return Output();
  }
  Output sum = reads.size() == 1 ? reads[0] : ops::AddN(scope, reads);
  if (var.aggregation == Aggregation::kSum) return sum;
  const Output n = ops::Cast(
      scope, ops::Const(scope, static_cast<int32_t>(reads.size())),
      var.replicas[0].dtype);
  return ops::RealDiv(scope, sum, n);
}

absl::StatusOr<TrainStep> MirroredStrategy::Minimize(
    const Scope& scope, absl::Span<const Output> replica_losses,
    absl::Span<const MirroredVariable> vars,
    const OptimizerFactory& make_optimizer) {
  absl::Status s = CheckLosses(*this, replica_losses, vars.size());
  if (!s.ok()) return s;
  ReplicaUpdates updates;
  std::vector<std::vector<Output>> xs(num_replicas());
  updates.vars.resize(num_replicas());
  for (const MirroredVariable& v : vars) {
    if (v.replicas.size() != static_cast<size_t>(num_replicas())) {
      return absl::InvalidArgumentError(absl::StrCat(
          "Minimize: variable '", v.name, "' has ", v.replicas.size(),
          " copies, the strategy ", num_replicas(), " replicas"));
    }
    for (int r = 0; r < num_replicas(); ++r) {
      updates.vars[r].push_back(v.replicas[r]);
      xs[r].push_back(v.replicas[r].value);
    }
  }
  absl::StatusOr<std::vector<std::vector<Output>>> grads =
      ReplicaGradients(*this, scope, replica_losses, xs);
  if (!grads.ok()) return grads.status();

  // Buckets: in reverse variable order, one dtype each, closed once they
  // reach bucket_bytes_.
  std::vector<std::vector<size_t>> buckets;
  int64_t bytes = 0;
  for (size_t j = vars.size(); j-- > 0;) {
    const train::Variable& v = vars[j].replicas[0];
    const int64_t size = NumElements(v.shape) * DataTypeSize(v.dtype);
    if (buckets.empty() || bytes >= bucket_bytes_ ||
        vars[buckets.back()[0]].replicas[0].dtype != v.dtype) {
      buckets.emplace_back();
      bytes = 0;
    }
    buckets.back().push_back(j);
    bytes += size;
  }

  TrainStep step;
  updates.grads.assign(num_replicas(), std::vector<Output>(vars.size()));
  for (const std::vector<size_t>& bucket : buckets) {
    const int32_t key = NextInstanceKey();
    std::vector<std::string> names;
    for (size_t j : bucket) names.push_back(vars[j].name);
    step.buckets.push_back(std::move(names));
    for (int r = 0; r < num_replicas(); ++r) {
      const Scope rs = ReplicaScope(scope, r).NewSubScope("allreduce");
      const Keys k = MakeKeys(rs, key);
      if (bucket.size() == 1) {
        updates.grads[r][bucket[0]] = ops::CollectiveReduceV2(
            rs, (*grads)[r][bucket[0]], k.group_size, k.group_key,
            k.instance_key, "Add", "Div");
        continue;
      }
      std::vector<Output> flat;
      std::vector<int64_t> sizes;
      for (size_t j : bucket) {
        flat.push_back(Flatten(rs, (*grads)[r][j]));
        sizes.push_back(NumElements(vars[j].replicas[0].shape));
      }
      const Output reduced = ops::CollectiveReduceV2(
          rs, ops::ConcatV2(rs, flat, ops::Const(rs, 0)), k.group_size,
          k.group_key, k.instance_key, "Add", "Div");
      std::vector<Output> parts =
          ops::SplitV(rs, reduced, ops::Const(rs, sizes), ops::Const(rs, 0),
                      static_cast<int64_t>(bucket.size()));
      if (parts.size() != bucket.size()) return scope.status();
      for (size_t p = 0; p < bucket.size(); ++p) {
        const size_t j = bucket[p];
        updates.grads[r][j] = ops::Reshape(
            rs, parts[p], ops::Const(rs, vars[j].replicas[0].shape));
      }
    }
  }
  if (!scope.ok()) return scope.status();
  return ApplyOnReplicas(*this, scope, replica_losses, updates,
                         make_optimizer, std::move(step));
}

// --- ShardedStrategy --------------------------------------------------------

absl::StatusOr<std::unique_ptr<ShardedStrategy>> ShardedStrategy::Create(
    const Options& options) {
  std::unique_ptr<ShardedStrategy> strategy(new ShardedStrategy);
  absl::Status s = strategy->Init(options);
  if (!s.ok()) return s;
  return strategy;
}

ShardedVariable ShardedStrategy::CreateVariable(
    const Scope& scope,
    const std::function<Output(const Scope&)>& initial_value, DataType dtype,
    const std::vector<int64_t>& shape) {
  ShardedVariable var;
  // The scope's name (WithOpName) is taken for the variable; its shards
  // are named after it.
  const std::string full = scope.GetUniqueNameForOp("Variable");
  const std::string name = WithoutPrefix(full, scope.name_prefix());
  if (!CheckShape(scope, full, shape)) return var;
  const int64_t n = num_replicas();
  var.dtype = dtype;
  var.shape = shape;
  var.num_elements = NumElements(shape);
  var.shard_elements = (var.num_elements + n - 1) / n;
  const int64_t k = var.shard_elements;
  for (int r = 0; r < num_replicas(); ++r) {
    const std::string shard = absl::StrCat(name, "_shard_", r);
    const Scope init =
        scope.WithDevice(device(r)).NewSubScope(absl::StrCat(shard, "_init"));
    const Output whole = initial_value(init);
    const Output padded =
        PadEnd(init, Flatten(init, whole), n * k - var.num_elements);
    const Output piece =
        ops::Slice(init, padded, ops::Const(init, std::vector<int64_t>{r * k}),
                   ops::Const(init, std::vector<int64_t>{k}));
    var.shards.push_back(train::NewVariable(
        scope.WithDevice(device(r)).WithOpName(shard), piece, dtype, {k}));
  }
  var.name = full;
  var.gather_key = NextInstanceKey();
  shard_bytes_ += k * DataTypeSize(dtype);
  full_bytes_ += var.num_elements * DataTypeSize(dtype);
  return var;
}

Output ShardedStrategy::Gather(const Scope& scope, const ShardedVariable& var,
                               int r) {
  if (r < 0 || r >= num_replicas() ||
      var.shards.size() != static_cast<size_t>(num_replicas())) {
    scope.UpdateStatus(absl::InvalidArgumentError(absl::StrCat(
        "Gather: sharded variable '", var.name, "' on replica ", r,
        ": no such shard")));
    return Output();
  }
  auto [it, fresh] = gathered_.try_emplace({var.name, r});
  if (!fresh) return it->second;
  const Scope gs =
      scope.WithDevice(device(r))
          .NewSubScope(absl::StrCat(LastComponent(var.name), "_gather"));
  const Keys k = MakeKeys(gs, var.gather_key);
  const Output all = ops::CollectiveGatherV2(gs, var.shards[r].value,
                                             k.group_size, k.group_key,
                                             k.instance_key);
  const Output whole =
      ops::Slice(gs, all, ops::Const(gs, std::vector<int64_t>{0}),
                 ops::Const(gs, std::vector<int64_t>{var.num_elements}));
  const Output value = ops::Reshape(gs, whole, ops::Const(gs, var.shape));
  if (value.valid()) {
    it->second = value;
  } else {
    gathered_.erase(it);
  }
  return value;
}

absl::StatusOr<TrainStep> ShardedStrategy::Minimize(
    const Scope& scope, absl::Span<const Output> replica_losses,
    absl::Span<const ShardedVariable> vars,
    const OptimizerFactory& make_optimizer) {
  absl::Status s = CheckLosses(*this, replica_losses, vars.size());
  if (!s.ok()) return s;
  ReplicaUpdates updates;
  std::vector<std::vector<Output>> xs(num_replicas());
  updates.vars.resize(num_replicas());
  for (const ShardedVariable& v : vars) {
    for (int r = 0; r < num_replicas(); ++r) {
      auto it = gathered_.find({v.name, r});
      if (it == gathered_.end()) {
        return absl::FailedPreconditionError(absl::StrCat(
            "Minimize: sharded variable '", v.name,
            "' was not gathered on replica ", r,
            " (build each replica's model from Gather)"));
      }
      xs[r].push_back(it->second);
      updates.vars[r].push_back(v.shards[r]);
    }
  }
  absl::StatusOr<std::vector<std::vector<Output>>> grads =
      ReplicaGradients(*this, scope, replica_losses, xs);
  if (!grads.ok()) return grads.status();

  TrainStep step;
  updates.grads.assign(num_replicas(), std::vector<Output>(vars.size()));
  const int64_t n = num_replicas();
  for (size_t i = 0; i < vars.size(); ++i) {
    const ShardedVariable& v = vars[i];
    const int32_t key = NextInstanceKey();
    step.buckets.push_back({v.name});
    for (int r = 0; r < num_replicas(); ++r) {
      const Scope rs = ReplicaScope(scope, r).NewSubScope("reduce_scatter");
      const Keys k = MakeKeys(rs, key);
      const Output padded = PadEnd(rs, Flatten(rs, (*grads)[r][i]),
                                   n * v.shard_elements - v.num_elements);
      updates.grads[r][i] = ops::CollectiveReduceScatterV2(
          rs, padded, k.group_size, k.group_key, k.instance_key, "Add", "Div");
    }
  }
  if (!scope.ok()) return scope.status();
  return ApplyOnReplicas(*this, scope, replica_losses, updates,
                         make_optimizer, std::move(step));
}

}  // namespace dfx::strategy
