#include "master/optimizer/util.h"

#include <deque>
#include <utility>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "graph/device_name.h"
#include "graph/node_def_util.h"
#include "graph/partition.h"
#include "graph/types.h"

namespace dfx::optimizer {

bool IsCpuDevice(const std::string& full_name) {
  absl::StatusOr<DeviceName> name = DeviceName::Parse(full_name);
  return name.ok() && name->type == "CPU";
}

bool PlainType(DataType t) {
  return !IsRefType(t) && t != DT_RESOURCE && t != DT_VARIANT &&
         t != DT_INVALID;
}

bool AllPlainTypes(const Node& n) {
  for (DataType t : n.input_types()) {
    if (!PlainType(t)) return false;
  }
  for (DataType t : n.output_types()) {
    if (!PlainType(t)) return false;
  }
  return true;
}

bool NeverTouched(const Node& n) {
  const std::string& op = n.type_string();
  return n.IsStateful() || IsControlFlowNode(n) || IsSendOp(op) ||
         IsRecvOp(op) || absl::StartsWith(op, "_") ||
         absl::StartsWith(op, "Placeholder") ||
         absl::StrContains(op, "Random") || op == "Multinomial" ||
         op == "TruncatedNormal" || FindNodeAttr(n.def(), "_class") != nullptr;
}

bool ReadsRefOrResource(const Node& n) {
  for (const Edge* e : n.in_edges()) {
    if (!e->IsControlEdge() && !PlainType(e->src->output_type(e->src_output))) {
      return true;
    }
  }
  return false;
}

bool HasControlInputs(const Node& n) {
  for (const Edge* e : n.in_edges()) {
    if (e->IsControlEdge()) return true;
  }
  return false;
}

std::vector<Node*> ControlInputs(const Node& n) {
  std::vector<Node*> out;
  for (const Edge* e : n.in_edges()) {
    if (e->IsControlEdge()) out.push_back(e->src);
  }
  return out;
}

std::vector<Node*> TopologicalOrder(const Graph& graph) {
  std::vector<int> pending(graph.num_node_ids(), 0);
  std::deque<Node*> ready;
  for (Node* n : graph.nodes()) {
    for (const Edge* e : n->in_edges()) {
      if (!IsNextIterationNode(*e->src)) ++pending[n->id()];
    }
    if (pending[n->id()] == 0) ready.push_back(n);
  }
  std::vector<Node*> order;
  while (!ready.empty()) {
    Node* n = ready.front();
    ready.pop_front();
    order.push_back(n);
    if (IsNextIterationNode(*n)) continue;
    for (const Edge* e : n->out_edges()) {
      if (--pending[e->dst->id()] == 0) ready.push_back(e->dst);
    }
  }
  return order;
}

bool InRootFrame(const GraphFrames& frames, const Node& n) {
  return n.id() >= static_cast<int>(frames.frame_of.size()) ||
         frames.frame_of[n.id()] == 0;
}

const Node* ConstInput(const Node& n, int i) {
  const Edge* e = n.input_edge(i);
  if (e == nullptr || e->src->type_string() != "Const" ||
      HasControlInputs(*e->src)) {
    return nullptr;
  }
  return e->src;
}

absl::StatusOr<Tensor> ConstValue(const Node& c) {
  const AttrValue* value = FindNodeAttr(c.def(), "value");
  if (value == nullptr || !value->has_tensor()) {
    return absl::InvalidArgumentError(
        absl::StrCat("Const '", c.name(), "' has no tensor value"));
  }
  return Tensor::FromProto(value->tensor());
}

NodeDef ConstNodeDef(const std::string& name, const Tensor& value) {
  NodeDef def;
  def.set_name(name);
  def.set_op("Const");
  (*def.mutable_attr())["dtype"].set_type(value.dtype());
  value.AsProtoTensorContent((*def.mutable_attr())["value"].mutable_tensor());
  return def;
}

void ForwardOutput(Graph* graph, Node* from, int from_output, Node* to,
                   int to_output, const std::vector<Node*>& extra_control) {
  std::vector<const Edge*> outs;
  for (const Edge* e : from->out_edges()) {
    if (e->src_output == from_output || e->IsControlEdge()) outs.push_back(e);
  }
  for (const Edge* e : outs) {
    Node* dst = e->dst;
    const bool control = e->IsControlEdge();
    const int dst_input = e->dst_input;
    graph->RemoveEdge(e);
    if (control) {
      graph->AddControlEdge(to, dst);
    } else {
      graph->AddEdge(to, to_output, dst, dst_input);
    }
    for (Node* c : extra_control) graph->AddControlEdge(c, dst);
  }
}

absl::StatusOr<Node*> ReplaceNode(Graph* graph, Node* n, NodeDef def,
                                  const std::vector<OutputRef>& inputs) {
  const std::string device = n->assigned_device_name();
  struct Out {
    Node* dst;
    int src_output;
    int dst_input;
  };
  std::vector<Out> outs;
  for (const Edge* e : n->out_edges()) {
    outs.push_back({e->dst, e->src_output, e->dst_input});
  }
  const std::vector<Node*> control = ControlInputs(*n);
  def.clear_input();
  def.set_device(n->def().device());
  graph->RemoveNode(n);
  DFX_ASSIGN_OR_RETURN(Node * r, graph->AddNode(std::move(def)));
  r->set_assigned_device_name(device);
  for (size_t i = 0; i < inputs.size(); ++i) {
    graph->AddEdge(inputs[i].node, inputs[i].index, r, static_cast<int>(i));
  }
  for (Node* c : control) graph->AddControlEdge(c, r);
  for (const Out& o : outs) {
    if (o.src_output == kControlSlot) {
      graph->AddControlEdge(r, o.dst);
    } else {
      graph->AddEdge(r, o.src_output, o.dst, o.dst_input);
    }
  }
  return r;
}

void RemoveIfUnread(Graph* graph, const KeptNodes& kept, Node* n,
                    const absl::flat_hash_set<const Node*>& also) {
  std::vector<Node*> work = {n};
  absl::flat_hash_set<Node*> removed;
  while (!work.empty()) {
    Node* m = work.back();
    work.pop_back();
    if (removed.contains(m) || !m->out_edges().empty() ||
        kept.contains(m->name())) {
      continue;
    }
    for (const Edge* e : m->in_edges()) {
      if (e->src->type_string() == "Const" || also.contains(e->src)) {
        work.push_back(e->src);
      }
    }
    removed.insert(m);
    graph->RemoveNode(m);
  }
}

}  // namespace dfx::optimizer
