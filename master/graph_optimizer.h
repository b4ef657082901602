// The step-graph optimizer: rewrites the pruned, placed graph of one step
// signature before it is partitioned (master/step_planner.cc), without
// changing any result. Passes, in order:
// - constant folding: a stateless single-output node on a CPU device whose
//   data inputs are all Consts (with no control inputs) is evaluated once
//   with the real kernels and replaced, in place and under its own name, by
//   a Const; its output must have a static shape of at most
//   max_folded_constant_in_bytes;
// - common-subexpression elimination: stateless nodes of the root frame
//   with the same op, attrs, device, inputs (any order for commutative ops)
//   and control inputs are merged into one;
// - Identity and NoOp removal: in the root frame, on one device, never of
//   ref or resource tensors, never next to a control-flow node; a removed
//   Identity's control inputs move to its consumers.
// Nodes the step feeds, fetches or targets are never removed.
#ifndef DFX_MASTER_GRAPH_OPTIMIZER_H_
#define DFX_MASTER_GRAPH_OPTIMIZER_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "graph/graph.h"
#include "proto/config.pb.h"
#include "runtime/op_kernel.h"

namespace dfx {

struct GraphOptimizerOptions {
  bool constant_folding = true;
  bool common_subexpression_elimination = true;
  bool remove_identities = true;
  // TensorFlow's default, 10 MiB.
  int64_t max_folded_constant_in_bytes = int64_t{10} << 20;

  bool AnyEnabled() const {
    return constant_folding || common_subexpression_elimination ||
           remove_identities;
  }
  // No pass at all.
  static GraphOptimizerOptions Off() {
    return GraphOptimizerOptions{false, false, false};
  }
};

// What a session's ConfigProto asks for, as TensorFlow reads it:
// graph_options.rewrite_options.disable_meta_optimizer turns everything off;
// optimizer_options.opt_level L1 (the default) turns on every pass, L0 only
// the ones its do_constant_folding / do_common_subexpression_elimination
// ask for; rewrite_options.constant_folding OFF and
// dependency_optimization OFF turn off folding and Identity/NoOp removal;
// a positive max_folded_constant_in_bytes replaces the 10 MiB cap.
GraphOptimizerOptions GraphOptimizerOptionsFromConfig(
    const ConfigProto& config);

struct GraphOptimizerStats {
  int constants_folded = 0;
  int nodes_merged = 0;  // by CSE
  int identities_removed = 0;
  int noops_removed = 0;
};

// Optimizes `graph` in place. Every node must have its assigned device.
// `kept` names nodes that must stay with their names (the step's fed,
// fetched and targeted nodes). `kernels` may be null (no folding then).
// Errors only for an inconsistent graph (Internal); a node that cannot be
// folded is left as it is, so that its error comes when the step runs.
absl::Status OptimizeStepGraph(const GraphOptimizerOptions& options,
                               const std::vector<std::string>& kept,
                               const KernelRegistry* kernels, Graph* graph,
                               GraphOptimizerStats* stats = nullptr);

}  // namespace dfx

#endif  // DFX_MASTER_GRAPH_OPTIMIZER_H_
