// The loop frames of a graph with TF1 control flow: which frame each node
// runs in (the root frame, or the loop entered by the Enters leading to it),
// found by walking the graph from its nodes without inputs. Used by the
// executor (per-frame state) and the partitioner (control loops for a frame
// that spans devices).
#ifndef DFX_GRAPH_CONTROL_FLOW_H_
#define DFX_GRAPH_CONTROL_FLOW_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "graph/graph.h"

namespace dfx {

bool IsEnterNode(const Node& n);
bool IsExitNode(const Node& n);
bool IsNextIterationNode(const Node& n);
bool IsMergeNode(const Node& n);
bool IsLoopCondNode(const Node& n);
// Any of the primitives: Switch, _SwitchN, Merge, Enter, Exit,
// NextIteration, LoopCond, ControlTrigger (and Ref forms).
bool IsControlFlowNode(const Node& n);

struct GraphFrames {
  struct Frame {
    std::string name;      // the Enters' frame_name; empty for the root
    int32_t parent = -1;   // index in `frames`; -1 for the root
    const Node* enter = nullptr;     // the first Enter found into it
    int32_t parallel_iterations = 1;  // from that Enter (default 10)
    const Node* loop_cond = nullptr;  // its LoopCond, if any
  };
  std::vector<Frame> frames;     // [0] is the root frame
  std::vector<int32_t> frame_of;  // by node id: the frame the node runs in
};

// Finds the frames. A node's frame is its inputs' frame, except that an
// Enter's outputs are in the frame it names and an Exit's outputs are in its
// frame's parent. InvalidArgument naming the node for: an Exit or
// NextIteration outside any loop, a node fed from two frames (a value that
// enters a loop without an Enter), one frame entered from two parent frames,
// an empty frame_name or parallel_iterations below 1, two LoopConds in one
// frame, and a node no node without inputs leads to (it could never run).
absl::StatusOr<GraphFrames> BuildGraphFrames(const Graph& graph);

}  // namespace dfx

#endif  // DFX_GRAPH_CONTROL_FLOW_H_
