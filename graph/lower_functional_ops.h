// LowerFunctionalOps: rewrites function calls and functional control flow
// (PartitionedCall, StatefulPartitionedCall, calls by function name, If,
// StatelessIf, Case, StatelessCase, While, StatelessWhile, XlaWhile, For) into
// inlined function bodies and the TF1 control-flow primitives (Switch,
// Merge, Enter, Exit, NextIteration, LoopCond), as TensorFlow's default
// lowering does.
#ifndef DFX_GRAPH_LOWER_FUNCTIONAL_OPS_H_
#define DFX_GRAPH_LOWER_FUNCTIONAL_OPS_H_

#include "absl/status/status.h"
#include "graph/function_library.h"
#include "graph/graph.h"

namespace dfx {

// True for the ops LowerFunctionalOps rewrites, given the library that
// defines the functions a graph may call by name.
bool IsFunctionalNode(const FunctionLibrary& library, const Node& node);

// Lowers every functional node of `graph`, and again the ones that inlined
// bodies bring in, until none is left. `graph` must use
// `library.op_registry()` (or a registry with the same ops).
//
// - A call (PartitionedCall, StatefulPartitionedCall, an op that is a
//   function of the library) becomes its instantiated body: nodes named
//   "<call>/<body node>", argument and result Identity nodes
//   "<call>/input/_i" and "<call>/output/_i"; body nodes without a device
//   take the call's; the call's control inputs gate the body (through
//   "<call>/input_control_node"); consumers of the call's outputs read the
//   result nodes, which wait for the function's control outputs (so
//   fetching a result runs the function's side effects even though the
//   step's graph is pruned after lowering); a node named as the call
//   (IdentityN of the results, or a
//   NoOp when there are none) runs after the results and the body's
//   control outputs, so the call's name can still be fetched and its
//   control consumers wait for its side effects.
// - SymbolicGradient (the gradient of a call of function f, as TF1's
//   function.Defun leaves in graphs) is lowered as a call of f's gradient
//   function, built from the builder's per-op gradients
//   (graph/builder/symbolic_gradient.h); an op on the path without a
//   gradient fails with NotFound naming the op.
// - If / StatelessIf: "<if>/switch_pred" (Switch of the predicate on
//   itself) and pivots "<if>/pivot_t", "<if>/pivot_f"; a Switch per input;
//   then_branch inlined as "<if>/then", else_branch as "<if>/else", each
//   gated by its pivot; a Merge per output "<if>/output_i" and
//   "<if>/branch_executed" (Merge of the pivots after both branches).
// - Case / StatelessCase: the same with _SwitchN on the branch index
//   ("<case>/branch_index", pivots "<case>/pivot_k", branches
//   "<case>/branch_k"); an index out of range runs the last branch.
// - While / StatelessWhile / XlaWhile: per loop variable Enter (frame = the
//   While's name, its parallel_iterations), Merge, Switch on "<while>/LoopCond"
//   (the inlined cond "<while>/cond"), the body inlined as "<while>/body",
//   NextIteration and Exit; DT_RESOURCE variables enter once as constants
//   (is_constant) and are read from outside after the loop, as TensorFlow
//   does. "<while>/LoopExecuted" runs after every Exit.
// - For: the same loop over (iteration, inputs...): "<for>/start"
//   (_ForLoopStart: TensorFlow's InvalidArgument for a start/limit/delta
//   its kernel refuses), "<for>/cond" (_ForLoopCond of the iteration and
//   the constant limit and delta), the body called with (iteration,
//   inputs...), "<for>/next_iter" (iteration + delta); one iteration at a
//   time, as TensorFlow's kernel runs them. A body with more results than
//   inputs fails with TensorFlow's "For loop body returned N arguments".
// Every lowered node keeps the name of the node it replaces as an IdentityN
// (fetchable) or NoOp, so feeds, fetches and targets by name still work.
// Attrs TensorFlow adds (_lower_using_switch_merge, _read_only_resource_inputs,
// _num_original_outputs, _XlaMustCompile, output_shapes, ...) are accepted
// and do not change the lowering: dfx has no functional kernels, so every
// functional op is lowered.
//
// Errors are InvalidArgument naming the node: a function that is not in the
// library, a call whose input or output types do not match the function's
// signature, a predicate that is not bool, a cond that does not return one
// bool, parallel_iterations below 1, a body that does not fit together,
// inlining that grows the graph beyond options.max_nodes (calls nested in
// calls can double the graph per level).
// On error the graph is left partly rewritten (callers discard it).
struct LowerOptions {
  // The most nodes the graph may have once every call is inlined (about a
  // GiB of graph).
  int max_nodes = 1 << 20;
};
absl::Status LowerFunctionalOps(const FunctionLibrary& library, Graph* graph,
                                const LowerOptions& options = {});

}  // namespace dfx

#endif  // DFX_GRAPH_LOWER_FUNCTIONAL_OPS_H_
