// TF1 control flow from the C++ builder: ops::WhileLoop builds a loop frame
// (Enter, Merge, LoopCond, Switch, Exit, NextIteration) as tf.while_loop
// does, and ops::Cond a conditional (Switch, Merge) as tf.compat.v1.cond does.
//
// Values from outside. Every node built while a cond, body or branch
// function runs belongs to that loop or branch, whatever scope built it.
// Such a node may use any value from outside: the builder rewires the use
// through a loop-invariant Enter (is_constant, one per outside tensor and
// loop, shared by cond and body) or through a Switch on the predicate (one
// per outside tensor and conditional), as TensorFlow's Python builder does,
// so an outside value cannot silently skip its Enter. A control input from
// outside a loop reaches the loop through an Enter of a Const that waits for
// it. A node that depends on nothing of its iteration or branch (a Const, a
// node of loop invariants only) gets a control input from the pivot (the
// loop's first Merge for cond nodes, the body's first Identity for body
// nodes, the branch's switch_t/switch_f for branch nodes), so it runs once
// per iteration and only in the taken branch.
//
// What the builder cannot see: a value made inside a loop and used by a node
// built after WhileLoop returns (an Output kept from the body) skips the
// loop's Exit. The graph is then invalid, and running it fails with
// InvalidArgument "... has inputs from two frames ...; a value enters a loop
// only through an Enter". Use the Outputs WhileLoop returns.
//
// Gradients: AddSymbolicGradients (gradients.h) follows conditionals (the
// gradient reaches only the branch that ran; grad/control_flow_grad.cc) and
// loops, as TensorFlow's v1 control flow does: it adds an iteration counter
// to the loop, pushes the forward values the body's gradient needs onto
// stacks (StackV2/StackPushV2), and builds a backprop loop that runs the
// counter's number of iterations, popping them in reverse order; the
// gradients of loop invariants (outside values the loop uses) are summed
// over the iterations. Gradients through a loop nested in another loop are
// not built (Unimplemented naming the node).
#ifndef DFX_GRAPH_BUILDER_CONTROL_FLOW_H_
#define DFX_GRAPH_BUILDER_CONTROL_FLOW_H_

#include <functional>
#include <string>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "absl/status/status.h"
#include "graph/builder/scope.h"

namespace dfx::ops {

// Builds the loop condition from the loop variables' values in an
// iteration: `*output` is a bool scalar that is true to run the body.
using CondFn = std::function<absl::Status(
    const Scope& scope, const std::vector<Output>& inputs, Output* output)>;
// Builds one iteration: `*outputs` (empty on entry) receives the loop
// variables' next values, one per input, each of its input's dtype.
using BodyFn = std::function<absl::Status(const Scope& scope,
                                          const std::vector<Output>& inputs,
                                          std::vector<Output>* outputs)>;
// Builds one branch of a conditional from its side of the inputs;
// `*outputs` (empty on entry) receives the branch's results.
using BranchFn = std::function<absl::Status(const Scope& scope,
                                            const std::vector<Output>& inputs,
                                            std::vector<Output>* outputs)>;

struct WhileOptions {
  // The sub-scope the loop's nodes go in ("while", "while_1", ...).
  std::string name = "while";
  // The frame's name (Enter's frame_name). Empty: the loop's sub-scope
  // prefix ("outer/while"), suffixed when another loop of the graph has
  // it. A name given here must not be another loop's.
  std::string frame_name;
  // How many iterations may run at once (Enter's parallel_iterations); at
  // least 1.
  int parallel_iterations = 10;
};

// while (cond(vars)) vars = body(vars); `*outputs` = vars, one Exit per
// input. The loop's nodes go in scope.NewSubScope(options.name): Enter,
// Enter_1, ... (one per input, with `scope`'s control dependencies and
// device), Merge, ..., cond/... (built by `cond`), LoopCond, Switch, ...,
// Identity, ... (the body's inputs), body/... (built by `body`),
// NextIteration, ..., Exit, ... (`scope`'s WithOpName is not used: name the
// loop with options.name). `cond` and `body` are called once each,
// with a sub-scope of the loop that has no control dependencies and the
// loop's device; see the top of this file for outside values.
//
// Returns OK and fills `*outputs`, or returns an error (also recorded in
// `scope`) and clears `*outputs`: the scope's error when it has failed
// already; InvalidArgument naming the loop for no inputs, an invalid input,
// parallel_iterations below 1, a frame_name in use, a cond output that is
// invalid or not bool (the scalar shape is checked when the graph runs), a
// body that returns another number of outputs than inputs or an output of
// another dtype than its input; an error from `cond` or `body` with its code
// and the loop's name before its message.
absl::Status WhileLoop(const Scope& scope, const std::vector<Output>& inputs,
                       CondFn cond, BodyFn body, std::vector<Output>* outputs,
                       const WhileOptions& options = {});

// outputs = pred ? then_fn(inputs) : else_fn(inputs), as tf.compat.v1.cond
// builds it in scope.NewSubScope("cond"): Switch(pred, pred) with
// Identities switch_t and switch_f (the branch pivots), pred_id =
// Identity(pred), one Switch(input, pred_id) per input (with `scope`'s
// control dependencies), each branch on its side (then: output_true), and
// one Merge(else, then) per output. Only the taken branch runs; the other's
// nodes are dead. The branches get the cond's sub-scope without control
// dependencies; see the top of this file for outside values.
//
// Returns OK and fills `*outputs` with the Merges' outputs, or returns an
// error (also recorded in `scope`) and clears `*outputs`: the scope's error
// when it has failed already; InvalidArgument naming the cond for an invalid
// or non-bool pred, an invalid input, branches that return no outputs, a
// different number of outputs or outputs of different dtypes, an invalid
// output, or the else branch using a value of the then branch; an error
// from a branch function with its code and the cond's name before its
// message.
absl::Status Cond(const Scope& scope, Output pred,
                  const std::vector<Output>& inputs, BranchFn then_fn,
                  BranchFn else_fn, std::vector<Output>* outputs);

namespace internal {

// For AddSymbolicGradients' backprop loops (gradients.cc): WhileLoop, except
// that the nodes `body` adds whose names are in `*foreign` when it returns
// (read then; may be null) are not the loop's: they are left as built (in
// another frame) and a loop node that uses one of them takes it through an
// invariant Enter, as any outside value.
absl::Status WhileLoopWithForeignNodes(
    const Scope& scope, const std::vector<Output>& inputs, CondFn cond,
    BodyFn body, const absl::flat_hash_set<std::string>* foreign,
    std::vector<Output>* outputs, const WhileOptions& options = {});

}  // namespace internal

}  // namespace dfx::ops

#endif  // DFX_GRAPH_BUILDER_CONTROL_FLOW_H_
