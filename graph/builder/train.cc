#include "graph/builder/train.h"

#include <algorithm>
#include <cmath>
#include <utility>

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
                     DataType dtype, const std::vector<int64_t>& shape) {
  Variable var;
  if (!initial_value.valid()) {
    scope.UpdateStatus(absl::InvalidArgumentError(
        "NewVariable: the initial value is not a valid Output"));
    return var;
  }
  var.handle = ops::VarHandleOp(scope, dtype, shape, "");
  if (!var.handle.valid()) return Variable();
  var.name = var.handle.node_name();
  var.device = scope.device();
  const Scope inner = scope.NewSubScope(BaseName(var.name));
  var.initializer = ops::AssignVariableOp(inner.WithOpName("Assign"),
                                          var.handle, initial_value);
  var.value = ops::ReadVariableOp(inner.WithOpName("Read"), var.handle, dtype);
  var.dtype = dtype;
  var.shape = shape;
  return var;
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
                         const std::string& name) {
  const Scope on_var = scope.WithDevice(var.device);
  Variable slot = NewVariable(on_var.WithOpName(name),
                              Zeros(on_var, var.shape), var.dtype, var.shape);
  slots_.push_back(slot);
  return slot;
}

Variable Optimizer::ScalarSlot(const Scope& scope, const std::string& name,
                               float initial) {
  Variable slot = NewVariable(scope.WithOpName(name),
                              ops::Const(scope, initial), DT_FLOAT, {});
  slots_.push_back(slot);
  return slot;
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
  std::vector<Output> grads;
  absl::Status s = AddSymbolicGradients(scope, {loss}, values, &grads);
  if (!s.ok()) return s;
  std::vector<Operation> updates;
  for (size_t i = 0; i < vars.size(); ++i) {
    // The update (and its slots) go where the variable is: its handle's
    // consumers are placed with it anyway.
    std::string flat = vars[i].name;
    std::replace(flat.begin(), flat.end(), '/', '_');
    const Scope var_scope = scope.NewSubScope(absl::StrCat("update_", flat))
                                .WithDevice(vars[i].device);
    updates.push_back(ApplyDense(var_scope, vars[i], grads[i]));
  }
  std::vector<Operation> more =
      Finish(scope.NewSubScope("finish").WithControlDependencies(updates));
  updates.insert(updates.end(), more.begin(), more.end());
  Operation train =
      ops::NoOp(scope.WithOpName("train").WithControlDependencies(updates));
  if (!scope.ok()) return scope.status();
  return train;
}

Operation GradientDescent::ApplyDense(const Scope& scope, const Variable& var,
                                      const Output& grad) {
  return ops::ResourceApplyGradientDescent(
      scope, var.handle, ops::Const(scope, lr_), grad);
}

Operation Momentum::ApplyDense(const Scope& scope, const Variable& var,
                               const Output& grad) {
  Variable accum = Slot(scope, var, "Momentum");
  return ops::ResourceApplyMomentum(scope, var.handle, accum.handle,
                                    ops::Const(scope, lr_), grad,
                                    ops::Const(scope, momentum_),
                                    /*use_locking=*/false, nesterov_);
}

Variable& Adam::Powers(const Scope& scope) {
  if (!have_powers_) {
    beta1_power_ = ScalarSlot(scope, "beta1_power", beta1_);
    beta2_power_ = ScalarSlot(scope, "beta2_power", beta2_);
    have_powers_ = true;
  }
  return beta1_power_;
}

Operation Adam::ApplyDense(const Scope& scope, const Variable& var,
                           const Output& grad) {
  Powers(scope.WithDevice(var.device));
  Variable m = Slot(scope, var, "Adam");
  Variable v = Slot(scope, var, "Adam_1");
  Operation update = ops::ResourceApplyAdam(
      scope, var.handle, m.handle, v.handle, beta1_power_.value,
      beta2_power_.value, ops::Const(scope, lr_), ops::Const(scope, beta1_),
      ops::Const(scope, beta2_), ops::Const(scope, epsilon_), grad);
  updates_.push_back(update);
  return update;
}

std::vector<Operation> Adam::Finish(const Scope& scope) {
  if (!have_powers_) return {};
  // After every update of the step, as tf.compat.v1's Adam does.
  Operation a = ops::AssignVariableOp(
      scope, beta1_power_.handle,
      ops::Mul(scope, ops::ReadVariableOp(scope, beta1_power_.handle,
                                          DT_FLOAT),
               ops::Const(scope, beta1_)));
  Operation b = ops::AssignVariableOp(
      scope, beta2_power_.handle,
      ops::Mul(scope, ops::ReadVariableOp(scope, beta2_power_.handle,
                                          DT_FLOAT),
               ops::Const(scope, beta2_)));
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
    assigns.push_back(ops::AssignVariableOp(scope, vars[i].handle,
                                            restored[i]));
  }
  return ops::NoOp(scope.WithControlDependencies(assigns));
}

}  // namespace dfx::train
