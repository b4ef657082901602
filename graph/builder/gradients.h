// Symbolic gradients for graphs built with the C++ builder:
// AddSymbolicGradients adds the nodes that compute d(outputs)/d(inputs) to a
// Scope's graph, from per-op gradient functions kept in a GradientRegistry
// (graph/builder/grad/).
#ifndef DFX_GRAPH_BUILDER_GRADIENTS_H_
#define DFX_GRAPH_BUILDER_GRADIENTS_H_

#include <functional>
#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/synchronization/mutex.h"
#include "absl/types/span.h"
#include "graph/builder/scope.h"
#include "proto/node_def.pb.h"

namespace dfx {

// The gradient that is not there: an invalid Output. A gradient function
// returns it for an input that gets no gradient (an index, a condition), and
// receives it for an output no gradient reached.
inline Output NoGradient() { return Output(); }

// The forward node a gradient function differentiates: its NodeDef (attrs with
// their defaults filled in) and its data inputs and outputs as Outputs with
// their dtypes.
class GradOp {
 public:
  GradOp(const NodeDef* node, std::vector<Output> inputs,
         std::vector<const NodeDef*> input_nodes, std::vector<Output> outputs)
      : node_(node),
        inputs_(std::move(inputs)),
        input_nodes_(std::move(input_nodes)),
        outputs_(std::move(outputs)) {}

  const NodeDef& node() const { return *node_; }
  const std::string& name() const { return node_->name(); }
  const std::string& op() const { return node_->op(); }
  int num_inputs() const { return static_cast<int>(inputs_.size()); }
  int num_outputs() const { return static_cast<int>(outputs_.size()); }
  // REQUIRES: 0 <= i < num_inputs() (num_outputs()).
  const Output& input(int i) const { return inputs_[i]; }
  const Output& output(int i) const { return outputs_[i]; }
  // The NodeDef of the node that feeds input `i` (to read a Const's value).
  const NodeDef& input_node(int i) const { return *input_nodes_[i]; }

 private:
  const NodeDef* node_;
  std::vector<Output> inputs_;
  std::vector<const NodeDef*> input_nodes_;
  std::vector<Output> outputs_;
};

// Adds to `scope` the nodes computing the gradient of the op's inputs from
// the gradients of its outputs. `grad_outputs` has one entry per output of
// `op`; an entry is NoGradient() when no gradient reached that output (at
// least one entry is valid). On success `grad_inputs` holds one Output (or
// NoGradient()) per data input of `op`. An error fails the whole
// AddSymbolicGradients call; so does an error recorded in the scope.
using GradFunc = std::function<absl::Status(
    const Scope& scope, const GradOp& op, absl::Span<const Output> grad_outputs,
    std::vector<Output>* grad_inputs)>;

// Gradient functions by op name. Thread-safe; registration is expected at
// start-up.
class GradientRegistry {
 public:
  GradientRegistry() = default;
  GradientRegistry(const GradientRegistry&) = delete;
  GradientRegistry& operator=(const GradientRegistry&) = delete;

  // The process-wide registry, holding every gradient of graph/builder/grad/.
  static GradientRegistry* Global();

  // AlreadyExists when `op` has a gradient (or is declared without one).
  absl::Status Register(absl::string_view op, GradFunc fn);
  // Declares that `op` has no gradient: nothing flows back to its inputs (as
  // TensorFlow's NotDifferentiable). AlreadyExists as Register.
  absl::Status RegisterNoGradient(absl::string_view op);

  // The gradient function of `op`; a null function for an op declared
  // without gradient. NotFound "No gradient defined for op: X" otherwise.
  absl::StatusOr<GradFunc> Lookup(absl::string_view op) const;

 private:
  mutable absl::Mutex mu_;
  absl::flat_hash_map<std::string, GradFunc> fns_ ABSL_GUARDED_BY(mu_);
};

// Adds nodes to `scope`'s graph that compute the gradients of `outputs` with
// respect to `inputs`, seeded with `grad_inputs` (one per output, same dtype:
// the gradient of some scalar with respect to each output). On success
// `grad_outputs` holds one Output per input: the sum over every path from the
// input to the outputs.
//
// The nodes are named under "<scope prefix>/gradients" ("gradients_1" for a
// second call, ...), one sub-scope per forward node ("gradients/MatMul_grad/
// MatMul"), as TensorFlow's Python client names them. Where a tensor has
// several consumers, their gradients are summed with AddN.
//
// While loops (ops::WhileLoop, tf.compat.v1.while_loop with v1 control
// flow) are differentiated as TensorFlow's v1 control flow does: an
// iteration counter is added to the forward loop, each forward value the
// body's gradient needs is pushed onto a stack (StackV2) in the forward loop
// and popped in a backprop loop ("gradients/while/...") that runs as many
// iterations; the gradients of loop invariants (outside values the loop
// uses) are summed over the iterations. The added forward nodes go under
// "gradients/<loop>_grad/" (f_count..., f_acc...).
//
// Only floating-point tensors (half, bfloat16, float, double) carry
// gradients: integer, bool and string edges carry none. Gradients stop at
// StopGradient and at ops declared without gradient. An input that no
// gradient reaches (not connected to the outputs, or connected only through
// such edges and ops) gets ZerosLike(input) -- TensorFlow's Python
// unconnected_gradients=ZERO; TensorFlow's C++ API fails for an unconnected
// input instead.
//
// Errors are returned; nodes added before an error stay in the graph, unused.
// An error an op wrapper reports while gradients are built is recorded in the
// scope as well, as for any wrapper. Errors:
//   - the scope's own error, if it has one;
//   - InvalidArgument: an invalid Output or one that is not in the scope's
//     graph, grad_inputs of another count or dtype than outputs, or a graph
//     that does not import (unknown op, bad attrs);
//   - NotFound "No gradient defined for op: X (node 'n')" for a node on the
//     path that a gradient reaches and whose op has no gradient function;
//   - InvalidArgument naming the node for a PreventGradient on the path, with
//     its message;
//   - Unimplemented for a gradient into a complex tensor, through a loop
//     nested in another loop, of or with respect to a value inside a loop
//     (other than its Exits), or through a cycle that is not a while loop;
//   - any error a gradient function returns, naming its node.
absl::Status AddSymbolicGradients(const Scope& scope,
                                  absl::Span<const Output> outputs,
                                  absl::Span<const Output> inputs,
                                  absl::Span<const Output> grad_inputs,
                                  std::vector<Output>* grad_outputs);

// As above, with each output's gradient seeded with OnesLike(output): the
// gradients of the sum of all elements of all outputs.
absl::Status AddSymbolicGradients(const Scope& scope,
                                  absl::Span<const Output> outputs,
                                  absl::Span<const Output> inputs,
                                  std::vector<Output>* grad_outputs);

}  // namespace dfx

#endif  // DFX_GRAPH_BUILDER_GRADIENTS_H_
