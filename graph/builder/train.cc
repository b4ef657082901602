#include "graph/builder/train.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <utility>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "graph/builder/gradients.h"

namespace dfx::train {
namespace {

Output ShapeConst(const Scope& scope, const std::vector<int64_t>& shape) {
  std::vector<int32_t> dims(shape.begin(), shape.end());
  return ops::Const(scope, dims);
}

// The last component of a node name ("w" for "model/w").
std::string BaseName(const std::string& name) {
  const size_t slash = name.rfind('/');
  return slash == std::string::npos ? name : name.substr(slash + 1);
}

}  // namespace

Variable NewVariable(const Scope& scope, const Output& initial_value,
                     DataType dtype, const std::vector<int64_t>& shape,
                     VariableKind kind) {
  Variable var;
  if (!initial_value.valid()) {
    scope.UpdateStatus(absl::InvalidArgumentError(
        "NewVariable: the initial value is not a valid Output"));
    return var;
  }
  const bool ref = kind == VariableKind::kRef;
  var.handle = ref ? ops::VariableV2(scope, dtype, shape)
                   : ops::VarHandleOp(scope, dtype, shape, "");
  if (!var.handle.valid()) return Variable();
  var.name = var.handle.node_name();
  var.device = scope.device();
  var.kind = kind;
  const Scope inner = scope.NewSubScope(BaseName(var.name));
  if (ref) {
    var.initializer =
        ops::Assign(inner.WithOpName("Assign"), var.handle, initial_value);
    var.value = ops::Identity(inner.WithOpName("read"), var.handle);
  } else {
    var.initializer = ops::AssignVariableOp(inner.WithOpName("Assign"),
                                            var.handle, initial_value);
    var.value =
        ops::ReadVariableOp(inner.WithOpName("Read"), var.handle, dtype);
  }
  var.dtype = dtype;
  var.shape = shape;
  return var;
}

Output ReadValue(const Scope& scope, const Variable& var) {
  return var.kind == VariableKind::kRef
             ? ops::Identity(scope, var.handle)
             : ops::ReadVariableOp(scope, var.handle, var.dtype);
}

Operation AssignValue(const Scope& scope, const Variable& var,
                      const Output& value) {
  return var.kind == VariableKind::kRef
             ? Operation(ops::Assign(scope, var.handle, value))
             : ops::AssignVariableOp(scope, var.handle, value);
}

Output GlorotUniform(const Scope& scope, const std::vector<int64_t>& shape,
                     int64_t seed) {
  // TensorFlow's glorot_uniform: U(-limit, limit), limit =
  // sqrt(6 / (fan_in + fan_out)), fans from the last two dims.
  double fan_in = 1, fan_out = 1;
  if (shape.size() == 1) {
    fan_in = fan_out = static_cast<double>(shape[0]);
  } else if (shape.size() >= 2) {
    double receptive = 1;
    for (size_t i = 0; i + 2 < shape.size(); ++i) receptive *= shape[i];
    fan_in = shape[shape.size() - 2] * receptive;
    fan_out = shape[shape.size() - 1] * receptive;
  }
  const float limit =
      static_cast<float>(std::sqrt(6.0 / std::max(1.0, (fan_in + fan_out))));
  Output u = ops::RandomUniform(scope, ShapeConst(scope, shape), DT_FLOAT,
                                seed, 0);
  // u * (2 limit) - limit, as random_uniform(minval, maxval) computes it.
  return ops::Add(scope, ops::Mul(scope, u, ops::Const(scope, 2 * limit)),
                  ops::Const(scope, -limit));
}

Output TruncatedNormal(const Scope& scope, const std::vector<int64_t>& shape,
                       float stddev, int64_t seed) {
  Output t = ops::TruncatedNormal(scope, ShapeConst(scope, shape), DT_FLOAT,
                                  seed, 0);
  return ops::Mul(scope, t, ops::Const(scope, stddev));
}

Output Zeros(const Scope& scope, const std::vector<int64_t>& shape) {
  return ops::Fill(scope, ShapeConst(scope, shape), ops::Const(scope, 0.0f));
}

Operation InitializeAll(const Scope& scope, absl::Span<const Variable> vars) {
  std::vector<Operation> inits;
  for (const Variable& v : vars) inits.push_back(v.initializer);
  return ops::NoOp(scope.WithControlDependencies(inits));
}

ReplicaDeviceSetter::ReplicaDeviceSetter(int num_ps_tasks, Strategy strategy,
                                         std::string ps_job)
    : num_ps_(std::max(1, num_ps_tasks)),
      strategy_(strategy),
      job_(std::move(ps_job)),
      bytes_(num_ps_, 0) {}

std::string ReplicaDeviceSetter::NextDevice(
    DataType dtype, const std::vector<int64_t>& shape) {
  int task = 0;
  if (strategy_ == Strategy::kRoundRobin) {
    task = next_;
    next_ = (next_ + 1) % num_ps_;
  } else {
    task = static_cast<int>(std::min_element(bytes_.begin(), bytes_.end()) -
                            bytes_.begin());
  }
  int64_t bytes = DataTypeSize(dtype);
  for (int64_t d : shape) bytes *= d;
  bytes_[task] += bytes;
  return absl::StrCat("/job:", job_, "/task:", task);
}

Variable Optimizer::Slot(const Scope& scope, const Variable& var,
                         const std::string& name, float initial) {
  const Scope on_var = scope.WithDevice(var.device);
  const Output fill = ops::Fill(on_var, ShapeConst(on_var, var.shape),
                                ops::Const(on_var, initial));
  Variable slot = NewVariable(on_var.WithOpName(name), fill, var.dtype,
                              var.shape, var.kind);
  slots_.push_back(slot);
  return slot;
}

Variable Optimizer::ScalarSlot(const Scope& scope, const std::string& name,
                               float initial, VariableKind kind) {
  Variable slot = NewVariable(scope.WithOpName(name),
                              ops::Const(scope, initial), DT_FLOAT, {}, kind);
  slots_.push_back(slot);
  return slot;
}

namespace {

// "name:k" or "name" -> (name, k); "" for a control input.
std::pair<std::string, int> ParseInput(const std::string& input) {
  if (!input.empty() && input[0] == '^') return {"", -1};
  const size_t colon = input.rfind(':');
  if (colon == std::string::npos) return {input, 0};
  return {input.substr(0, colon), std::atoi(input.c_str() + colon + 1)};
}

// A Const node holding the integer 0 (scalar or one element).
bool IsConstZero(const NodeDef* node) {
  if (node == nullptr || node->op() != "Const") return false;
  auto it = node->attr().find("value");
  if (it == node->attr().end()) return false;
  const TensorProto& t = it->second.tensor();
  if (t.dtype() == DT_INT32) {
    if (t.int_val_size() == 1) return t.int_val(0) == 0;
    if (t.tensor_content().size() == 4) {
      int32_t v;
      std::memcpy(&v, t.tensor_content().data(), 4);
      return v == 0;
    }
  } else if (t.dtype() == DT_INT64) {
    if (t.int64_val_size() == 1) return t.int64_val(0) == 0;
    if (t.tensor_content().size() == 8) {
      int64_t v;
      std::memcpy(&v, t.tensor_content().data(), 8);
      return v == 0;
    }
  }
  return false;
}

int64_t IntAttrOr(const NodeDef& node, const std::string& name,
                  int64_t fallback) {
  auto it = node.attr().find(name);
  return it == node.attr().end() ? fallback : it->second.i();
}

DataType TypeAttrOr(const NodeDef& node, const std::string& name,
                    DataType fallback) {
  auto it = node.attr().find(name);
  return it == node.attr().end() ? fallback : it->second.type();
}

// How the loss reads one variable: rows gathered (their output and ids), and
// whether anything else reads it on the way to the loss.
struct Uses {
  std::vector<Output> gathered;
  std::vector<Output> ids;
  // Whether gather i reads var.value (whose gradient then includes it).
  std::vector<bool> of_value;
  bool dense = false;
};

// Finds, for each variable, its uses among the nodes the loss depends on.
std::vector<Uses> FindUses(const GraphDef& def, const Output& loss,
                           absl::Span<const Variable> vars) {
  absl::flat_hash_map<std::string, const NodeDef*> by_name;
  for (const NodeDef& n : def.node()) by_name[n.name()] = &n;
  // The nodes the loss depends on through data edges.
  absl::flat_hash_set<std::string> upstream;
  std::vector<std::string> stack = {loss.node_name()};
  while (!stack.empty()) {
    const std::string name = stack.back();
    stack.pop_back();
    if (!upstream.insert(name).second) continue;
    auto it = by_name.find(name);
    if (it == by_name.end()) continue;
    for (const std::string& in : it->second->input()) {
      const auto [src, index] = ParseInput(in);
      if (!src.empty()) stack.push_back(src);
    }
  }
  std::vector<Uses> uses(vars.size());
  for (size_t v = 0; v < vars.size(); ++v) {
    const Variable& var = vars[v];
    Uses& u = uses[v];
    if (var.shape.empty()) {
      u.dense = true;  // a scalar has no rows to gather
      continue;
    }
    for (const NodeDef& n : def.node()) {
      if (!upstream.contains(n.name())) continue;
      for (int i = 0; i < n.input_size(); ++i) {
        const auto [src, index] = ParseInput(n.input(i));
        const bool of_value =
            src == var.value.node_name() && index == var.value.index();
        const bool of_handle =
            src == var.handle.node_name() && index == var.handle.index();
        if (!of_value && !of_handle) continue;
        if (of_handle && n.name() == var.value.node_name()) continue;
        const bool gather =
            i == 0 &&
            ((n.op() == "GatherV2" && n.input_size() == 3 &&
              IntAttrOr(n, "batch_dims", 0) == 0 &&
              IsConstZero(by_name[ParseInput(n.input(2)).first])) ||
             n.op() == "Gather" ||
             (n.op() == "ResourceGather" && of_handle &&
              IntAttrOr(n, "batch_dims", 0) == 0));
        if (!gather) {
          u.dense = true;
          continue;
        }
        const auto [ids_node, ids_index] = ParseInput(n.input(1));
        u.gathered.emplace_back(n.name(), 0, var.dtype);
        u.of_value.push_back(of_value);
        u.ids.emplace_back(ids_node, ids_index,
                           TypeAttrOr(n, "Tindices", DT_INT32));
      }
    }
  }
  return uses;
}

}  // namespace

Operation Optimizer::ApplySparse(const Scope& scope, const Variable& var,
                                 const Output& values, const Output& indices) {
  const Output rows = ops::Const(scope, static_cast<int32_t>(var.shape[0]));
  return ApplyDense(scope, var,
                    ops::UnsortedSegmentSum(scope, values, indices, rows));
}

std::pair<Output, Output> Optimizer::Deduplicate(const Scope& scope,
                                                 const Output& values,
                                                 const Output& indices) {
  const ops::UniqueOutputs unique = ops::Unique(scope, indices);
  const Output summed = ops::UnsortedSegmentSum(
      scope, values, unique.idx, ops::Size(scope, unique.y));
  return {summed, unique.y};
}

absl::StatusOr<Operation> Optimizer::Minimize(
    const Scope& scope, const Output& loss, absl::Span<const Variable> vars) {
  if (vars.empty()) {
    return absl::InvalidArgumentError("Minimize: no variables to train");
  }
  std::vector<Output> values;
  for (const Variable& v : vars) {
    if (!v.handle.valid() || !v.value.valid()) {
      return absl::InvalidArgumentError(
          absl::StrCat("Minimize: variable '", v.name, "' is not valid"));
    }
    values.push_back(v.value);
  }
  // Variables read through gathers: differentiate with respect to the
  // gathered rows instead (their gradients follow the values').
  std::vector<Uses> uses(vars.size());
  if (sparse_updates_) {
    GraphDef def;
    absl::Status s = scope.ToGraphDef(&def);
    if (!s.ok()) return s;
    uses = FindUses(def, loss, vars);
  }
  // A variable also read densely keeps the gradient of its value, which
  // includes the gathers of that value: only gathers of the handle or ref
  // (ResourceGather, a gather of the ref) add rows to it.
  for (Uses& u : uses) {
    if (!u.dense) continue;
    Uses kept;
    kept.dense = true;
    for (size_t g = 0; g < u.gathered.size(); ++g) {
      if (u.of_value[g]) continue;
      kept.gathered.push_back(u.gathered[g]);
      kept.ids.push_back(u.ids[g]);
      kept.of_value.push_back(false);
    }
    u = std::move(kept);
  }
  std::vector<Output> xs;
  for (size_t i = 0; i < vars.size(); ++i) {
    if (uses[i].gathered.empty()) {
      xs.push_back(values[i]);
    } else {
      if (uses[i].dense) xs.push_back(values[i]);
      xs.insert(xs.end(), uses[i].gathered.begin(), uses[i].gathered.end());
    }
  }
  std::vector<Output> grads;
  absl::Status s = AddSymbolicGradients(scope, {loss}, xs, &grads);
  if (!s.ok()) return s;
  std::vector<Operation> updates;
  size_t next = 0;
  for (size_t i = 0; i < vars.size(); ++i) {
    const Variable& var = vars[i];
    const Scope var_scope = UpdateScope(scope, var);
    const Uses& u = uses[i];
    if (u.gathered.empty()) {
      updates.push_back(ApplyDense(var_scope, var, grads[next++]));
      continue;
    }
    Output dense;
    if (u.dense) dense = grads[next++];
    // The rows' gradients as (values, indices): one row of var's inner
    // shape per id.
    std::vector<int32_t> row_shape = {-1};
    for (size_t d = 1; d < var.shape.size(); ++d) {
      row_shape.push_back(static_cast<int32_t>(var.shape[d]));
    }
    const DataType index_type = u.ids[0].dtype();
    std::vector<Output> pieces, ids;
    for (size_t g = 0; g < u.gathered.size(); ++g) {
      pieces.push_back(ops::Reshape(var_scope, grads[next++],
                                    ops::Const(var_scope, row_shape)));
      Output flat_ids =
          ops::Reshape(var_scope, u.ids[g], ops::Const(var_scope, {-1}));
      if (u.ids[g].dtype() != index_type) {
        flat_ids = ops::Cast(var_scope, flat_ids, index_type);
      }
      ids.push_back(flat_ids);
    }
    const Output zero = ops::Const(var_scope, 0);
    const Output rows =
        pieces.size() == 1 ? pieces[0] : ops::ConcatV2(var_scope, pieces, zero);
    const Output indices =
        ids.size() == 1 ? ids[0] : ops::ConcatV2(var_scope, ids, zero);
    if (u.dense) {
      const Output sum = ops::UnsortedSegmentSum(
          var_scope, rows, indices,
          ops::Const(var_scope, static_cast<int32_t>(var.shape[0])));
      updates.push_back(
          ApplyDense(var_scope, var, ops::AddV2(var_scope, dense, sum)));
    } else {
      updates.push_back(ApplySparse(var_scope, var, rows, indices));
    }
  }
  return TrainOp(scope, std::move(updates));
}

absl::StatusOr<Operation> Optimizer::ApplyGradients(
    const Scope& scope, absl::Span<const Variable> vars,
    absl::Span<const Output> grads) {
  if (vars.empty() || vars.size() != grads.size()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "ApplyGradients: needs one gradient per variable, at least one; got ",
        vars.size(), " variables and ", grads.size(), " gradients"));
  }
  std::vector<Operation> updates;
  for (size_t i = 0; i < vars.size(); ++i) {
    const Variable& var = vars[i];
    if (!var.handle.valid() || !grads[i].valid()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "ApplyGradients: variable '", var.name, "' or its gradient (",
          i, ") is not valid"));
    }
    if (BaseType(grads[i].dtype()) != var.dtype) {
      return absl::InvalidArgumentError(absl::StrCat(
          "ApplyGradients: the gradient of '", var.name, "' is ",
          DataTypeString(grads[i].dtype()), ", the variable ",
          DataTypeString(var.dtype)));
    }
    updates.push_back(ApplyDense(UpdateScope(scope, var), var, grads[i]));
  }
  return TrainOp(scope, std::move(updates));
}

Scope Optimizer::UpdateScope(const Scope& scope, const Variable& var) {
  // The update (and its slots) go where the variable is: its handle's
  // consumers are placed with it anyway.
  std::string flat = var.name;
  std::replace(flat.begin(), flat.end(), '/', '_');
  return scope.NewSubScope(absl::StrCat("update_", flat))
      .WithDevice(var.device);
}

absl::StatusOr<Operation> Optimizer::TrainOp(const Scope& scope,
                                             std::vector<Operation> updates) {
  std::vector<Operation> more =
      Finish(scope.NewSubScope("finish").WithControlDependencies(updates));
  updates.insert(updates.end(), more.begin(), more.end());
  Operation train =
      ops::NoOp(scope.WithOpName("train").WithControlDependencies(updates));
  if (!scope.ok()) return scope.status();
  return train;
}

namespace {

bool IsRef(const Variable& var) { return var.kind == VariableKind::kRef; }

}  // namespace

Operation GradientDescent::ApplyDense(const Scope& scope, const Variable& var,
                                      const Output& grad) {
  const Output lr = ops::Const(scope, lr_);
  if (IsRef(var)) return ops::ApplyGradientDescent(scope, var.handle, lr, grad);
  return ops::ResourceApplyGradientDescent(scope, var.handle, lr, grad);
}

Operation GradientDescent::ApplySparse(const Scope& scope, const Variable& var,
                                       const Output& values,
                                       const Output& indices) {
  // var[indices] -= lr * values; repeated ids accumulate.
  const Output delta = ops::Mul(scope, values, ops::Const(scope, lr_));
  if (IsRef(var)) return ops::ScatterSub(scope, var.handle, indices, delta);
  return ops::ResourceScatterSub(scope, var.handle, indices, delta);
}

Operation Momentum::ApplyDense(const Scope& scope, const Variable& var,
                               const Output& grad) {
  Variable accum = Slot(scope, var, "Momentum");
  const Output lr = ops::Const(scope, lr_);
  const Output momentum = ops::Const(scope, momentum_);
  if (IsRef(var)) {
    return ops::ApplyMomentum(scope, var.handle, accum.handle, lr, grad,
                              momentum, /*use_locking=*/false, nesterov_);
  }
  return ops::ResourceApplyMomentum(scope, var.handle, accum.handle, lr, grad,
                                    momentum, /*use_locking=*/false,
                                    nesterov_);
}

Operation Momentum::ApplySparse(const Scope& scope, const Variable& var,
                                const Output& values, const Output& indices) {
  Variable accum = Slot(scope, var, "Momentum");
  const auto [rows, unique] = Deduplicate(scope, values, indices);
  const Output lr = ops::Const(scope, lr_);
  const Output momentum = ops::Const(scope, momentum_);
  if (IsRef(var)) {
    return ops::SparseApplyMomentum(scope, var.handle, accum.handle, lr, rows,
                                    unique, momentum, /*use_locking=*/false,
                                    nesterov_);
  }
  return ops::ResourceSparseApplyMomentum(scope, var.handle, accum.handle, lr,
                                          rows, unique, momentum,
                                          /*use_locking=*/false, nesterov_);
}

Operation Adagrad::ApplyDense(const Scope& scope, const Variable& var,
                              const Output& grad) {
  Variable accum = Slot(scope, var, "Adagrad", initial_);
  const Output lr = ops::Const(scope, lr_);
  if (IsRef(var)) {
    return ops::ApplyAdagrad(scope, var.handle, accum.handle, lr, grad);
  }
  return ops::ResourceApplyAdagrad(scope, var.handle, accum.handle, lr, grad);
}

Operation Adagrad::ApplySparse(const Scope& scope, const Variable& var,
                               const Output& values, const Output& indices) {
  Variable accum = Slot(scope, var, "Adagrad", initial_);
  const auto [rows, unique] = Deduplicate(scope, values, indices);
  const Output lr = ops::Const(scope, lr_);
  if (IsRef(var)) {
    return ops::SparseApplyAdagrad(scope, var.handle, accum.handle, lr, rows,
                                   unique);
  }
  return ops::ResourceSparseApplyAdagrad(scope, var.handle, accum.handle, lr,
                                         rows, unique);
}

Variable& Adam::Powers(const Scope& scope, VariableKind kind) {
  if (!have_powers_) {
    beta1_power_ = ScalarSlot(scope, "beta1_power", beta1_, kind);
    beta2_power_ = ScalarSlot(scope, "beta2_power", beta2_, kind);
    have_powers_ = true;
  }
  return beta1_power_;
}

Operation Adam::ApplyDense(const Scope& scope, const Variable& var,
                           const Output& grad) {
  Powers(scope.WithDevice(var.device), var.kind);
  Variable m = Slot(scope, var, "Adam");
  Variable v = Slot(scope, var, "Adam_1");
  const Output lr = ops::Const(scope, lr_);
  const Output beta1 = ops::Const(scope, beta1_);
  const Output beta2 = ops::Const(scope, beta2_);
  const Output epsilon = ops::Const(scope, epsilon_);
  Operation update;
  if (IsRef(var)) {
    update = ops::ApplyAdam(scope, var.handle, m.handle, v.handle,
                            beta1_power_.value, beta2_power_.value, lr, beta1,
                            beta2, epsilon, grad);
  } else {
    update = ops::ResourceApplyAdam(scope, var.handle, m.handle, v.handle,
                                    beta1_power_.value, beta2_power_.value,
                                    lr, beta1, beta2, epsilon, grad);
  }
  updates_.push_back(update);
  return update;
}

std::vector<Operation> Adam::Finish(const Scope& scope) {
  if (!have_powers_) return {};
  // After every update of the step, as tf.compat.v1's Adam does.
  Operation a = AssignValue(
      scope, beta1_power_,
      ops::Mul(scope, ReadValue(scope, beta1_power_), ops::Const(scope, beta1_)));
  Operation b = AssignValue(
      scope, beta2_power_,
      ops::Mul(scope, ReadValue(scope, beta2_power_), ops::Const(scope, beta2_)));
  return {a, b};
}

Operation Save(const Scope& scope, const Output& prefix,
               absl::Span<const Variable> vars) {
  std::vector<std::string> names;
  std::vector<Output> values;
  for (const Variable& v : vars) {
    names.push_back(v.name);
    values.push_back(v.value);
  }
  return ops::SaveV2(scope, prefix, ops::Const(scope, names),
                     ops::Const(scope, std::vector<std::string>(names.size())),
                     values);
}

Operation Restore(const Scope& scope, const Output& prefix,
                  absl::Span<const Variable> vars) {
  std::vector<std::string> names;
  std::vector<DataType> dtypes;
  for (const Variable& v : vars) {
    names.push_back(v.name);
    dtypes.push_back(v.dtype);
  }
  std::vector<Output> restored = ops::RestoreV2(
      scope, prefix, ops::Const(scope, names),
      ops::Const(scope, std::vector<std::string>(names.size())), dtypes);
  std::vector<Operation> assigns;
  for (size_t i = 0; i < vars.size() && i < restored.size(); ++i) {
    assigns.push_back(AssignValue(scope, vars[i], restored[i]));
  }
  return ops::NoOp(scope.WithControlDependencies(assigns));
}

}  // namespace dfx::train
