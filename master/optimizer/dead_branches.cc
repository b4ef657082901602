#include "master/optimizer/dead_branches.h"

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "graph/node_def_util.h"

namespace dfx::optimizer {
namespace {

// The output of `s` that never carries a value, or -1 when its predicate is
// not a bool scalar Const.
int DeadOutput(const Node& s) {
  const Edge* pred = s.input_edge(1);
  if (pred == nullptr || pred->src->type_string() != "Const") return -1;
  absl::StatusOr<Tensor> value = ConstValue(*pred->src);
  if (!value.ok() || value->dtype() != DT_BOOL || value->NumElements() != 1) {
    return -1;
  }
  return value->scalar<bool>() ? 0 : 1;
}

bool IsLoopPrimitive(const Node& n) {
  return IsEnterNode(n) || IsExitNode(n) || IsNextIterationNode(n) ||
         IsLoopCondNode(n);
}

struct DeadSide {
  absl::flat_hash_set<Node*> nodes;
  // Merges that keep a live data input, with their dead data inputs.
  absl::flat_hash_map<Node*, absl::flat_hash_set<int>> merges;
};

// The dead side of Switch `s` whose output `dead` never carries a value, or
// nothing when it must be left whole.
std::optional<DeadSide> FindDeadSide(const KeptNodes& kept,
                                     const GraphFrames& frames, const Node& s,
                                     int dead) {
  const std::string& device = s.assigned_device_name();
  DeadSide side;
  std::vector<std::pair<Node*, int>> work;  // (node, input slot or -1)
  for (const Edge* e : s.out_edges()) {
    if (e->src_output == dead) work.push_back({e->dst, e->dst_input});
  }
  auto push_outputs = [&work](const Node& n) {
    for (const Edge* e : n.out_edges()) work.push_back({e->dst, e->dst_input});
  };
  while (!work.empty()) {
    auto [n, slot] = work.back();
    work.pop_back();
    if (side.nodes.contains(n)) continue;
    if (kept.contains(n->name()) || !InRootFrame(frames, *n) ||
        IsLoopPrimitive(*n) || n->type_string() == "ControlTrigger" ||
        n->type_string() == "_SwitchN" || n->assigned_device_name() != device) {
      return std::nullopt;
    }
    if (IsMergeNode(*n)) {
      if (n->type_string() != "Merge" || n->num_inputs() > 2) {
        return std::nullopt;
      }
      for (const Edge* e : n->out_edges()) {
        if (e->src_output == 1) return std::nullopt;  // value_index is read
      }
      absl::flat_hash_set<int>& dead_inputs = side.merges[n];
      if (slot == kControlSlot) continue;
      dead_inputs.insert(slot);
      if (static_cast<int>(dead_inputs.size()) < n->num_inputs()) continue;
      side.merges.erase(n);
    }
    for (const Edge* e : n->in_edges()) {
      if (e->src->assigned_device_name() != device) return std::nullopt;
    }
    side.nodes.insert(n);
    push_outputs(*n);
  }
  return side;
}

}  // namespace

absl::StatusOr<DeadBranchStats> PruneDeadBranches(const KeptNodes& kept,
                                                  const GraphFrames& frames,
                                                  Graph* graph) {
  DeadBranchStats stats;
  std::vector<std::string> switches;
  for (Node* n : graph->nodes()) {
    if (n->type_string() == "Switch" && InRootFrame(frames, *n) &&
        !kept.contains(n->name())) {
      switches.push_back(n->name());
    }
  }
  for (const std::string& name : switches) {
    Node* s = graph->FindNode(name);
    if (s == nullptr || s->type_string() != "Switch") continue;
    const int dead = DeadOutput(*s);
    if (dead < 0) continue;
    std::optional<DeadSide> side = FindDeadSide(kept, frames, *s, dead);
    if (!side.has_value()) continue;
    ++stats.switches;
    stats.nodes += static_cast<int>(side->nodes.size());
    for (Node* n : side->nodes) graph->RemoveNode(n);
    // A Merge left with one data input passes it on: an Identity of it.
    for (const auto& [merge, dead_inputs] : side->merges) {
      if (dead_inputs.empty()) continue;
      const Edge* live = nullptr;
      for (const Edge* e : merge->in_edges()) {
        if (!e->IsControlEdge()) live = e;
      }
      if (live == nullptr) {
        return absl::InternalError(
            absl::StrCat("Merge '", merge->name(),
                         "' lost every input to dead-branch "
                         "pruning"));
      }
      NodeDef def;
      def.set_name(merge->name());
      def.set_op("Identity");
      (*def.mutable_attr())["T"].set_type(merge->output_type(0));
      DFX_RETURN_IF_ERROR(ReplaceNode(graph, merge, std::move(def),
                                      {{live->src, live->src_output}})
                              .status());
    }
    // The Switch passes its data on through the live output: an Identity,
    // when its predicate can never be dead nor come from elsewhere.
    const Edge* data = s->input_edge(0);
    Node* pred = s->input_edge(1)->src;
    if (data == nullptr || HasControlInputs(*pred) ||
        pred->assigned_device_name() != s->assigned_device_name()) {
      continue;
    }
    const int live = 1 - dead;
    if (live == 1) {
      std::vector<const Edge*> outs;
      for (const Edge* e : s->out_edges()) {
        if (e->src_output == 1) outs.push_back(e);
      }
      for (const Edge* e : outs) {
        Node* dst = e->dst;
        const int dst_input = e->dst_input;
        graph->RemoveEdge(e);
        graph->AddEdge(s, 0, dst, dst_input);
      }
    }
    NodeDef def;
    def.set_name(s->name());
    def.set_op("Identity");
    (*def.mutable_attr())["T"].set_type(s->output_type(0));
    DFX_RETURN_IF_ERROR(
        ReplaceNode(graph, s, std::move(def), {{data->src, data->src_output}})
            .status());
    RemoveIfUnread(graph, kept, pred);
  }
  return stats;
}

}  // namespace dfx::optimizer
