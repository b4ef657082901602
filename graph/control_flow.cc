#include "graph/control_flow.h"

#include <algorithm>
#include <deque>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "graph/node_def_util.h"

namespace dfx {
namespace {

bool OpIs(const Node& n, const char* a, const char* b = nullptr) {
  const std::string& op = n.type_string();
  return op == a || (b != nullptr && op == b);
}

std::string NodeString(const Node& n) {
  return absl::StrCat("'", n.name(), "' (op ", n.type_string(), ")");
}

std::string FrameString(const GraphFrames& g, int32_t f) {
  return g.frames[f].name.empty() ? "the top level"
                                  : "frame '" + g.frames[f].name + "'";
}

}  // namespace

bool IsEnterNode(const Node& n) { return OpIs(n, "Enter", "RefEnter"); }
bool IsExitNode(const Node& n) { return OpIs(n, "Exit", "RefExit"); }
bool IsNextIterationNode(const Node& n) {
  return OpIs(n, "NextIteration", "RefNextIteration");
}
bool IsMergeNode(const Node& n) { return OpIs(n, "Merge", "RefMerge"); }
bool IsLoopCondNode(const Node& n) { return OpIs(n, "LoopCond"); }
bool IsControlFlowNode(const Node& n) {
  return IsEnterNode(n) || IsExitNode(n) || IsNextIterationNode(n) ||
         IsMergeNode(n) || IsLoopCondNode(n) || OpIs(n, "Switch", "RefSwitch") ||
         OpIs(n, "_SwitchN", "ControlTrigger");
}

absl::StatusOr<GraphFrames> BuildGraphFrames(const Graph& graph) {
  GraphFrames out;
  out.frames.emplace_back();  // the root
  out.frame_of.assign(graph.num_node_ids(), -1);
  absl::flat_hash_map<std::string, int32_t> by_name;
  // Which node first put each node into its frame (for error messages).
  std::vector<const Node*> placed_by(graph.num_node_ids(), nullptr);
  std::deque<const Node*> queue;
  absl::Status outside;
  for (const Node* n : graph.nodes()) {
    if (n->in_edges().empty()) {
      out.frame_of[n->id()] = 0;
      queue.push_back(n);
    }
  }
  while (!queue.empty()) {
    const Node* n = queue.front();
    queue.pop_front();
    const int32_t f = out.frame_of[n->id()];
    int32_t out_frame = f;
    if (IsEnterNode(*n)) {
      std::string name;
      DFX_RETURN_IF_ERROR(GetNodeAttr(n->def(), "frame_name", &name));
      if (name.empty()) {
        return absl::InvalidArgumentError(
            absl::StrCat("node ", NodeString(*n), ": empty frame_name"));
      }
      auto [it, inserted] =
          by_name.try_emplace(name, static_cast<int32_t>(out.frames.size()));
      if (inserted) {
        GraphFrames::Frame frame;
        frame.name = name;
        frame.parent = f;
        frame.enter = n;
        int64_t parallel = 10;
        if (n->def().attr().contains("parallel_iterations")) {
          DFX_RETURN_IF_ERROR(
              GetNodeAttr(n->def(), "parallel_iterations", &parallel));
        }
        if (parallel < 1) {
          return absl::InvalidArgumentError(absl::StrCat(
              "node ", NodeString(*n), ": parallel_iterations must be at "
              "least 1, got ", parallel));
        }
        frame.parallel_iterations =
            static_cast<int32_t>(std::min<int64_t>(parallel, 1 << 20));
        out.frames.push_back(std::move(frame));
      } else if (out.frames[it->second].parent != f) {
        return absl::InvalidArgumentError(absl::StrCat(
            "node ", NodeString(*n), " enters frame '", name, "' from ",
            FrameString(out, f), ", but other Enters enter it from ",
            FrameString(out, out.frames[it->second].parent)));
      }
      out_frame = it->second;
    } else if (f == 0 && (IsExitNode(*n) || IsNextIterationNode(*n) ||
                          IsLoopCondNode(*n))) {
      // Reported after the walk: a value that skipped its Enter (the more
      // telling error) may be what put this node at the top level.
      if (outside.ok()) {
        outside = absl::InvalidArgumentError(absl::StrCat(
            "node ", NodeString(*n), " is not inside a loop frame (no Enter "
            "leads to it)"));
      }
    } else if (IsExitNode(*n)) {
      out_frame = out.frames[f].parent;
    } else if (IsLoopCondNode(*n)) {
      const Node*& cond = out.frames[f].loop_cond;
      if (cond != nullptr && cond != n) {
        return absl::InvalidArgumentError(absl::StrCat(
            "frame '", out.frames[f].name, "' has two LoopConds: '",
            cond->name(), "' and '", n->name(), "'"));
      }
      cond = n;
    }
    for (const Edge* e : n->out_edges()) {
      const Node* dst = e->dst;
      int32_t& dst_frame = out.frame_of[dst->id()];
      if (dst_frame == -1) {
        dst_frame = out_frame;
        placed_by[dst->id()] = n;
        queue.push_back(dst);
      } else if (dst_frame != out_frame) {
        return absl::InvalidArgumentError(absl::StrCat(
            "node ", NodeString(*dst), " has inputs from two frames: ",
            FrameString(out, dst_frame), " (through '",
            placed_by[dst->id()]->name(), "') and ",
            FrameString(out, out_frame), " (through '", n->name(),
            "'); a value enters a loop only through an Enter"));
      }
    }
  }
  DFX_RETURN_IF_ERROR(outside);
  for (const Node* n : graph.nodes()) {
    if (out.frame_of[n->id()] == -1) {
      return absl::InvalidArgumentError(absl::StrCat(
          "node ", NodeString(*n), " can never run: no path from a node "
          "without inputs reaches it (a loop without an Enter?)"));
    }
  }
  return out;
}

}  // namespace dfx
