// Training in the C++ graph builder: resource or reference variables with
// their initializers, optimizers that add gradients (AddSymbolicGradients)
// and TensorFlow's update ops (dense, or sparse for variables read through
// a gather, as TensorFlow's IndexedSlices path), a replica device setter for
// parameter servers, and a checkpoint saver in TensorFlow's format. The
// nodes are those tf.compat.v1 writes (VarHandleOp or VariableV2,
// ResourceApplyAdam or ApplyAdam, SaveV2, ...), so a graph built here also
// runs on TensorFlow's servers.
#ifndef DFX_GRAPH_BUILDER_TRAIN_H_
#define DFX_GRAPH_BUILDER_TRAIN_H_

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "graph/builder/ops.h"
#include "graph/builder/scope.h"

namespace dfx::train {

// What a variable is made of: a resource variable (VarHandleOp,
// ReadVariableOp, AssignVariableOp: what TensorFlow 2 and tf.compat.v1 write
// by default) or a reference variable (VariableV2, Identity "read", Assign:
// tf.compat.v1 with use_resource=False, and older graphs).
enum class VariableKind { kResource, kRef };

// A variable: its handle (a VarHandleOp's resource, or a VariableV2's ref
// edge), a read of its value (differentiate with respect to `value`), and the
// op that assigns the initial value.
struct Variable {
  std::string name;  // the handle node's name, also its shared_name
  std::string device;  // the device it was asked for (may be empty)
  Output handle;
  Output value;
  Operation initializer;
  DataType dtype = DT_INVALID;
  std::vector<int64_t> shape;
  VariableKind kind = VariableKind::kResource;
};

// Adds a variable named by the scope (use scope.WithOpName("w")) holding
// `initial_value`, which must have `shape`. The handle, read and
// initializer are on the scope's device: for kResource "w" (VarHandleOp),
// "w/Read" and "w/Assign"; for kRef "w" (VariableV2), "w/read" and
// "w/Assign", as tf.compat.v1 names them. An invalid Variable (and the
// scope's error) when `initial_value` is invalid.
Variable NewVariable(const Scope& scope, const Output& initial_value,
                     DataType dtype, const std::vector<int64_t>& shape,
                     VariableKind kind = VariableKind::kResource);

// A fresh read of the variable's value in `scope` (ReadVariableOp, or an
// Identity of the ref), e.g. after control dependencies.
Output ReadValue(const Scope& scope, const Variable& var);
// Assigns `value` to the variable (AssignVariableOp, or Assign).
Operation AssignValue(const Scope& scope, const Variable& var,
                      const Output& value);

// Initial values. `seed` goes straight to the random op as (seed, 0), so
// the numbers are those TensorFlow's RandomUniform / TruncatedNormal give
// for that seed pair; a tf initializer with op seed `seed` gives others (it
// mixes in the graph-level seed).
Output GlorotUniform(const Scope& scope, const std::vector<int64_t>& shape,
                     int64_t seed);
Output TruncatedNormal(const Scope& scope, const std::vector<int64_t>& shape,
                       float stddev, int64_t seed);
Output Zeros(const Scope& scope, const std::vector<int64_t>& shape);

// Groups the initializers of `vars` into one NoOp to run once.
Operation InitializeAll(const Scope& scope, absl::Span<const Variable> vars);

// Where variables go: parameter-server tasks in turn (round robin), or
// each to the ps task holding the fewest bytes so far (greedy), as
// TensorFlow's replica_device_setter does with its load-balancing
// strategies.
class ReplicaDeviceSetter {
 public:
  enum class Strategy { kRoundRobin, kGreedyBySize };
  explicit ReplicaDeviceSetter(int num_ps_tasks,
                               Strategy strategy = Strategy::kRoundRobin,
                               std::string ps_job = "ps");
  // The device of the next variable ("/job:ps/task:1").
  std::string NextDevice(DataType dtype, const std::vector<int64_t>& shape);

 private:
  const int num_ps_;
  const Strategy strategy_;
  const std::string job_;
  int next_ = 0;
  std::vector<int64_t> bytes_;
};

// An optimizer: Minimize adds the gradients of `loss` with respect to every
// variable's value, the slots the optimizer keeps (each on its variable's
// device, of its variable's kind), and one update op per variable (on the
// variable's device); it returns a NoOp that runs them all. Slots'
// initializers are in slots().
//
// Sparse updates (on by default, as TensorFlow's IndexedSlices): a variable
// of rank >= 1 whose every use on the way to the loss is a gather of rows --
// GatherV2 (axis a Const 0, batch_dims 0) or Gather of its value or ref,
// ResourceGather of its handle -- gets the gradient of the gathered rows
// only, and the optimizer's sparse update: ResourceScatterSub / ScatterSub
// for GradientDescent, ResourceSparseApplyMomentum / SparseApplyMomentum,
// ResourceSparseApplyAdagrad / SparseApplyAdagrad (duplicate ids summed
// first, as TensorFlow does). Rows not gathered are not touched, slots
// included (so Momentum differs from its dense form on rows whose
// accumulator is non-zero, as in TensorFlow). Optimizers without a sparse
// form (Adam) apply the densified gradient. A variable read both through a
// gather (ResourceGather) and densely gets the sum of both, applied densely.
class Optimizer {
 public:
  virtual ~Optimizer() = default;
  absl::StatusOr<Operation> Minimize(const Scope& scope, const Output& loss,
                                     absl::Span<const Variable> vars);
  // The second half of Minimize (TensorFlow's apply_gradients): applies the
  // dense gradient grads[i] to vars[i] (same dtype and shape), each update
  // on its variable's device, and returns the NoOp "train" that runs them.
  // For gradients computed elsewhere (all-reduced across replicas, say).
  absl::StatusOr<Operation> ApplyGradients(const Scope& scope,
                                           absl::Span<const Variable> vars,
                                           absl::Span<const Output> grads);
  // The variables the optimizer made (accumulators, Adam's moments): their
  // initializers must run too (InitializeAll over them).
  const std::vector<Variable>& slots() const { return slots_; }
  // false: every variable gets a dense gradient (a gather's is an
  // UnsortedSegmentSum) and the dense update.
  void set_sparse_updates(bool on) { sparse_updates_ = on; }

 protected:
  // Adds the update of `var` by `grad`; `scope` is on var's device.
  virtual Operation ApplyDense(const Scope& scope, const Variable& var,
                               const Output& grad) = 0;
  // Adds the update of `var` by the rows `values` (one per entry of the
  // vector `indices`; ids may repeat). The default densifies them
  // (UnsortedSegmentSum) and calls ApplyDense.
  virtual Operation ApplySparse(const Scope& scope, const Variable& var,
                                const Output& values, const Output& indices);
  // `values` with one row per distinct index: {summed values, unique
  // indices}, as TensorFlow's _deduplicate_indexed_slices.
  static std::pair<Output, Output> Deduplicate(const Scope& scope,
                                               const Output& values,
                                               const Output& indices);
  // Runs after every ApplyDense of one Minimize, in a scope that depends on
  // all of them (Adam advances its beta powers here). Returns the ops the
  // final NoOp must wait for besides the updates.
  virtual std::vector<Operation> Finish(const Scope& scope) { return {}; }
  // A slot variable `name` (under `scope`'s prefix) on var's device, of
  // var's kind, filled with `initial`.
  Variable Slot(const Scope& scope, const Variable& var,
                const std::string& name, float initial = 0.0f);
  // A scalar variable of `kind` on `scope`'s device (Adam's beta powers: on
  // the first variable's device).
  Variable ScalarSlot(const Scope& scope, const std::string& name,
                      float initial,
                      VariableKind kind = VariableKind::kResource);

  std::vector<Variable> slots_;

 private:
  // A scope for var's update, on var's device.
  static Scope UpdateScope(const Scope& scope, const Variable& var);
  // Finish and the NoOp "train" over `updates`.
  absl::StatusOr<Operation> TrainOp(const Scope& scope,
                                    std::vector<Operation> updates);

  bool sparse_updates_ = true;
};

class GradientDescent : public Optimizer {
 public:
  explicit GradientDescent(float learning_rate) : lr_(learning_rate) {}

 protected:
  Operation ApplyDense(const Scope& scope, const Variable& var,
                       const Output& grad) override;
  Operation ApplySparse(const Scope& scope, const Variable& var,
                        const Output& values, const Output& indices) override;

 private:
  const float lr_;
};

class Momentum : public Optimizer {
 public:
  Momentum(float learning_rate, float momentum, bool use_nesterov = false)
      : lr_(learning_rate), momentum_(momentum), nesterov_(use_nesterov) {}

 protected:
  Operation ApplyDense(const Scope& scope, const Variable& var,
                       const Output& grad) override;
  Operation ApplySparse(const Scope& scope, const Variable& var,
                        const Output& values, const Output& indices) override;

 private:
  const float lr_;
  const float momentum_;
  const bool nesterov_;
};

// TensorFlow's Adagrad (tf.compat.v1.train.AdagradOptimizer): accumulators
// start at `initial_accumulator_value`.
class Adagrad : public Optimizer {
 public:
  explicit Adagrad(float learning_rate,
                   float initial_accumulator_value = 0.1f)
      : lr_(learning_rate), initial_(initial_accumulator_value) {}

 protected:
  Operation ApplyDense(const Scope& scope, const Variable& var,
                       const Output& grad) override;
  Operation ApplySparse(const Scope& scope, const Variable& var,
                        const Output& values, const Output& indices) override;

 private:
  const float lr_;
  const float initial_;
};

class Adam : public Optimizer {
 public:
  explicit Adam(float learning_rate = 0.001f, float beta1 = 0.9f,
                float beta2 = 0.999f, float epsilon = 1e-8f)
      : lr_(learning_rate), beta1_(beta1), beta2_(beta2), epsilon_(epsilon) {}

 protected:
  Operation ApplyDense(const Scope& scope, const Variable& var,
                       const Output& grad) override;
  std::vector<Operation> Finish(const Scope& scope) override;

 private:
  Variable& Powers(const Scope& scope, VariableKind kind);
  const float lr_, beta1_, beta2_, epsilon_;
  bool have_powers_ = false;
  Variable beta1_power_, beta2_power_;
  std::vector<Operation> updates_;
};

// Saves `vars` under their names in TensorFlow's checkpoint format at
// `prefix` (a scalar string Output): one SaveV2 on the scope's device, which
// writes the files there (the values travel to it). tf.train.load_checkpoint
// and tf.compat.v1.train.Saver read the result.
Operation Save(const Scope& scope, const Output& prefix,
               absl::Span<const Variable> vars);
// Assigns every variable its saved value.
Operation Restore(const Scope& scope, const Output& prefix,
                  absl::Span<const Variable> vars);

}  // namespace dfx::train

#endif  // DFX_GRAPH_BUILDER_TRAIN_H_
