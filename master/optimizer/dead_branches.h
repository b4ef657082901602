// Dead-branch pruning: a Switch whose predicate is a Const forwards its data
// to one output only; what only the other output feeds never runs (a TF1
// cond's untaken side, and a lowered If or StatelessIf's untaken branch:
// dfx lowers every functional If before steps are planned).
#ifndef DFX_MASTER_OPTIMIZER_DEAD_BRANCHES_H_
#define DFX_MASTER_OPTIMIZER_DEAD_BRANCHES_H_

#include "absl/status/statusor.h"
#include "graph/control_flow.h"
#include "graph/graph.h"
#include "master/optimizer/util.h"

namespace dfx::optimizer {

struct DeadBranchStats {
  int switches = 0;  // Switches whose dead side went
  int nodes = 0;     // nodes removed with it
};

// For each root-frame Switch whose predicate is a bool Const, removes the
// nodes that are dead whenever the step runs: those reached from its
// untaken output over data and control edges, stopping at Merges that still
// have a live data input (TensorFlow's LoopOptimizer rule). A Merge left
// with one data input becomes an Identity of it under its own name; the
// Switch becomes an Identity of its data when its predicate is a Const of
// its device with no control inputs. A Switch is left whole when its dead
// side holds a kept node, a node of a loop frame or a loop primitive, a
// ControlTrigger, a Merge of more than two inputs or whose value_index is
// read, or a node on another device or read from another device (no
// transfer the graph places disappears).
// Internal only for a graph that cannot take the rewrite (a bug).
absl::StatusOr<DeadBranchStats> PruneDeadBranches(const KeptNodes& kept,
                                                  const GraphFrames& frames,
                                                  Graph* graph);

}  // namespace dfx::optimizer

#endif  // DFX_MASTER_OPTIMIZER_DEAD_BRANCHES_H_
