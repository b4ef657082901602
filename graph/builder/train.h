// Training in the C++ graph builder: resource variables with their
// initializers, optimizers that add gradients (AddSymbolicGradients) and
// TensorFlow's update ops, a replica device setter for parameter servers,
// and a checkpoint saver in TensorFlow's format. The nodes are those
// tf.compat.v1 writes (VarHandleOp, ResourceApplyAdam, SaveV2, ...), so a
// graph built here also runs on TensorFlow's servers.
#ifndef DFX_GRAPH_BUILDER_TRAIN_H_
#define DFX_GRAPH_BUILDER_TRAIN_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "graph/builder/ops.h"
#include "graph/builder/scope.h"

namespace dfx::train {

// A resource variable: its handle, a read of its value (differentiate
// with respect to `value`), and the op that assigns the initial value.
struct Variable {
  std::string name;  // the handle node's name, also its shared_name
  std::string device;  // the device it was asked for (may be empty)
  Output handle;
  Output value;
  Operation initializer;
  DataType dtype = DT_INVALID;
  std::vector<int64_t> shape;
};

// Adds a variable named by the scope (use scope.WithOpName("w")) holding
// `initial_value`, which must have `shape`. The handle, read and
// initializer are on the scope's device. An invalid Variable (and the
// scope's error) when `initial_value` is invalid.
Variable NewVariable(const Scope& scope, const Output& initial_value,
                     DataType dtype, const std::vector<int64_t>& shape);

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
// device), and one update op per variable (on the variable's device); it
// returns a NoOp that runs them all. Slots' initializers are in slots().
class Optimizer {
 public:
  virtual ~Optimizer() = default;
  absl::StatusOr<Operation> Minimize(const Scope& scope, const Output& loss,
                                     absl::Span<const Variable> vars);
  // The variables the optimizer made (accumulators, Adam's moments): their
  // initializers must run too (InitializeAll over them).
  const std::vector<Variable>& slots() const { return slots_; }

 protected:
  // Adds the update of `var` by `grad`; `scope` is on var's device.
  virtual Operation ApplyDense(const Scope& scope, const Variable& var,
                               const Output& grad) = 0;
  // Runs after every ApplyDense of one Minimize, in a scope that depends on
  // all of them (Adam advances its beta powers here). Returns the ops the
  // final NoOp must wait for besides the updates.
  virtual std::vector<Operation> Finish(const Scope& scope) { return {}; }
  // A slot variable `name` (under `scope`'s prefix) on var's device,
  // zero-initialized.
  Variable Slot(const Scope& scope, const Variable& var,
                const std::string& name);
  // A scalar variable on `scope`'s device (Adam's beta powers: on the
  // first variable's device).
  Variable ScalarSlot(const Scope& scope, const std::string& name,
                      float initial);

  std::vector<Variable> slots_;
};

class GradientDescent : public Optimizer {
 public:
  explicit GradientDescent(float learning_rate) : lr_(learning_rate) {}

 protected:
  Operation ApplyDense(const Scope& scope, const Variable& var,
                       const Output& grad) override;

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

 private:
  const float lr_;
  const float momentum_;
  const bool nesterov_;
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
  Variable& Powers(const Scope& scope);
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
