// Synchronous parameter-server training in the C++ builder, as TensorFlow's
// SyncReplicasOptimizer builds it: every worker applies its gradients to
// one ConditionalAccumulator per variable (on the variable's device),
// tagged with the global step it read; the chief takes the mean of
// `replicas_to_aggregate` gradients per variable, updates the variables
// with the wrapped optimizer, advances the global step and refills the
// token queue; a worker's step ends by taking a token (the new global
// step) from that queue. Gradients computed at an older step than the
// accumulators' are dropped. Also the wrappers of the queue and
// accumulator ops it uses.
#ifndef DFX_GRAPH_BUILDER_SYNC_REPLICAS_H_
#define DFX_GRAPH_BUILDER_SYNC_REPLICAS_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "graph/builder/scope.h"
#include "graph/builder/train.h"

namespace dfx {
namespace ops {

// FIFOQueueV2: a queue of `types` elements (each of `shapes`, or any shape
// when `shapes` is empty); capacity -1 is unbounded.
Output FIFOQueue(const Scope& scope, const DataTypeVector& types,
                 const std::vector<std::vector<int64_t>>& shapes,
                 int64_t capacity = -1, const std::string& shared_name = "");
Operation QueueEnqueue(const Scope& scope, const Output& queue,
                       const std::vector<Output>& components);
Operation QueueEnqueueMany(const Scope& scope, const Output& queue,
                           const std::vector<Output>& components);
std::vector<Output> QueueDequeue(const Scope& scope, const Output& queue,
                                 const DataTypeVector& types);
std::vector<Output> QueueDequeueMany(const Scope& scope, const Output& queue,
                                     const Output& n,
                                     const DataTypeVector& types);
Operation QueueClose(const Scope& scope, const Output& queue,
                     bool cancel_pending_enqueues = false);
Output QueueSize(const Scope& scope, const Output& queue);

// ResourceConditionalAccumulator (what tf.compat.v1.ConditionalAccumulator
// builds) and its ops. reduction_type "MEAN" or "SUM".
Output ConditionalAccumulator(const Scope& scope, DataType dtype,
                              const std::vector<int64_t>& shape,
                              const std::string& shared_name = "",
                              const std::string& reduction_type = "MEAN");
Operation AccumulatorApplyGradient(const Scope& scope, const Output& handle,
                                   const Output& local_step,
                                   const Output& gradient);
Output AccumulatorTakeGradient(const Scope& scope, const Output& handle,
                               const Output& num_required, DataType dtype);
Output AccumulatorNumAccumulated(const Scope& scope, const Output& handle);
Operation AccumulatorSetGlobalStep(const Scope& scope, const Output& handle,
                                   const Output& new_global_step);

}  // namespace ops

namespace train {

// Wraps `optimizer` (which must outlive it). Build once with the chief's
// scope, then AddReplica once per worker.
class SyncReplicasOptimizer {
 public:
  // total_num_replicas -1: replicas_to_aggregate.
  SyncReplicasOptimizer(Optimizer* optimizer, int replicas_to_aggregate,
                        int total_num_replicas = -1);

  // Makes one accumulator per variable (on its device), the token queue
  // (on the global step's device) and the chief's ops. `global_step`: a
  // scalar int64 resource variable. `scope` is the chief's (the wrapped
  // optimizer's gradient plumbing goes there; its updates on each
  // variable's device).
  absl::Status Build(const Scope& scope, absl::Span<const Variable> vars,
                     const Variable& global_step);

  struct Replica {
    // Applies this worker's gradients at its local step, then takes a
    // token into the local step. Waits for a token when there is none.
    Operation train_op;
    // The worker's step, a scalar int64 variable on the worker's device;
    // run its initializer (local_step.initializer), then local_step_init
    // (local step = global step) before the first train_op.
    Variable local_step;
    Operation local_step_init;
  };
  // The gradients of `loss` with respect to every variable, computed in
  // `scope` (the worker's device), and the worker's train op.
  absl::StatusOr<Replica> AddReplica(const Scope& scope, const Output& loss);

  // Run once by the chief after the variables are initialized: every
  // accumulator's global step = the global step.
  Operation chief_init_op() const { return chief_init_; }
  // Run once by the chief: replicas_to_aggregate tokens of the global step,
  // so that the workers can start.
  Operation init_tokens_op() const { return init_tokens_; }
  // The chief's update, run once per global step: takes the mean gradient
  // of replicas_to_aggregate workers per variable (waiting for them),
  // applies it with the wrapped optimizer, increments the global step and
  // enqueues max(total_num_replicas, replicas_to_aggregate) tokens of the
  // new step.
  Operation sync_op() const { return sync_; }
  // How many gradients the accumulator of vars[i] holds.
  Output num_accumulated(int i) const { return num_accumulated_[i]; }
  const Output& token_queue() const { return token_queue_; }

 private:
  Optimizer* const optimizer_;
  const int replicas_to_aggregate_;
  const int total_num_replicas_;
  std::vector<Variable> vars_;
  Variable global_step_;
  std::vector<Output> accumulators_;
  std::vector<Output> num_accumulated_;
  Output token_queue_;
  Operation chief_init_;
  Operation init_tokens_;
  Operation sync_;
  int replicas_ = 0;
};

}  // namespace train
}  // namespace dfx

#endif  // DFX_GRAPH_BUILDER_SYNC_REPLICAS_H_
