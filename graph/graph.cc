#include "graph/graph.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "base/logging.h"
#include "base/status_macros.h"
#include "graph/node_def_util.h"

namespace dfx {

const Edge* Node::input_edge(int i) const {
  for (const Edge* e : in_edges_) {
    if (e->dst_input == i) return e;
  }
  return nullptr;
}

Graph::Graph(const OpRegistry* ops) : ops_(ops) {}
Graph::~Graph() = default;

absl::StatusOr<Node*> Graph::AddNode(NodeDef def) {
  const OpRegistrationData* op = ops_->LookUp(def.op());
  if (op == nullptr) {
    return absl::NotFoundError(absl::StrCat("node '", def.name(),
                                            "': Op type not registered '",
                                            def.op(), "'"));
  }
  return AddNode(std::move(def), *op);
}

absl::StatusOr<Node**> Graph::ClaimName(const std::string& name) {
  auto [slot, inserted] = by_name_.try_emplace(name, nullptr);
  if (!inserted) {
    return absl::AlreadyExistsError(
        absl::StrCat("duplicate node name '", name, "'"));
  }
  return &slot->second;
}

Node* Graph::Append(std::unique_ptr<Node> node, Node** slot) {
  node->id_ = static_cast<int>(nodes_.size());
  *slot = node.get();
  nodes_.push_back(std::move(node));
  ++num_nodes_;
  return *slot;
}

absl::StatusOr<Node*> Graph::AddNode(NodeDef&& def,
                                     const OpRegistrationData& op) {
  DFX_ASSIGN_OR_RETURN(Node * *slot, ClaimName(def.name()));
  auto node = std::unique_ptr<Node>(new Node);
  AddDefaultAttrs(op.op_def, &def);
  if (absl::Status s = InOutTypesForNode(def, op.op_def, &node->input_types_,
                                         &node->output_types_);
      !s.ok()) {
    by_name_.erase(def.name());
    return s;
  }
  node->in_edges_.reserve(def.input_size());
  node->def_ = std::make_shared<NodeDef>(std::move(def));
  node->op_ = &op;
  return Append(std::move(node), slot);
}

absl::StatusOr<Node*> Graph::CopyNode(const Node& src) {
  DFX_ASSIGN_OR_RETURN(Node * *slot, ClaimName(src.name()));
  auto node = std::unique_ptr<Node>(new Node);
  node->def_ = std::make_shared<NodeDef>(*src.def_);
  node->def_->clear_input();
  node->op_ = src.op_;
  node->input_types_ = src.input_types_;
  node->output_types_ = src.output_types_;
  node->assigned_device_ = src.assigned_device_;
  node->in_edges_.reserve(src.in_edges_.size());
  node->out_edges_.reserve(src.out_edges_.size());
  return Append(std::move(node), slot);
}

const Edge* Graph::AddEdge(Node* src, int src_output, Node* dst,
                           int dst_input) {
  DFX_CHECK(src != nullptr && dst != nullptr);
  DFX_CHECK(src_output == kControlSlot ||
            (src_output >= 0 && src_output < src->num_outputs()));
  DFX_CHECK(dst_input == kControlSlot ||
            (dst_input >= 0 && dst_input < dst->num_inputs()));
  Edge* edge = NewEdge();
  *edge = Edge{static_cast<int>(edges_.size()), src, src_output, dst, dst_input,
               static_cast<int>(src->out_edges_.size()),
               static_cast<int>(dst->in_edges_.size())};
  edges_.push_back(edge);
  src->out_edges_.push_back(edge);
  dst->in_edges_.push_back(edge);
  return edge;
}

Edge* Graph::NewEdge() {
  if (edge_block_used_ == edge_block_size_) {
    // 16, 32, ... up to 4096 edges a block: small graphs stay small.
    edge_block_size_ = std::min<size_t>(
        4096, edge_block_size_ == 0 ? 16 : 2 * edge_block_size_);
    edge_blocks_.push_back(std::make_unique<Edge[]>(edge_block_size_));
    edge_block_used_ = 0;
  }
  return &edge_blocks_.back()[edge_block_used_++];
}

const Edge* Graph::AddControlEdge(Node* src, Node* dst) {
  // The shorter of the two lists: a NoOp that waits for 100,000 nodes must
  // not make adding its control edges quadratic.
  if (src->out_edges_.size() < dst->in_edges_.size()) {
    for (const Edge* e : src->out_edges_) {
      if (e->IsControlEdge() && e->dst == dst) return e;
    }
  } else {
    for (const Edge* e : dst->in_edges_) {
      if (e->IsControlEdge() && e->src == src) return e;
    }
  }
  return AddEdge(src, kControlSlot, dst, kControlSlot);
}

void Graph::RemoveEdge(const Edge* edge) {
  // The last edge of each list takes the removed one's place: constant
  // time, so that taking every consumer off a node read by n others (a
  // constant feeding a long chain) is O(n), not O(n^2).
  Node* src = edge->src;
  const Edge* last = src->out_edges_.back();
  src->out_edges_[edge->src_pos] = last;
  edges_[last->id]->src_pos = edge->src_pos;
  src->out_edges_.pop_back();
  Node* dst = edge->dst;
  last = dst->in_edges_.back();
  dst->in_edges_[edge->dst_pos] = last;
  edges_[last->id]->dst_pos = edge->dst_pos;
  dst->in_edges_.pop_back();
  edges_[edge->id] = nullptr;
}

void Graph::RemoveNode(Node* node) {
  // Copies: RemoveEdge mutates the vectors.
  for (const Edge* e : std::vector<const Edge*>(node->in_edges_)) RemoveEdge(e);
  for (const Edge* e : std::vector<const Edge*>(node->out_edges_)) {
    RemoveEdge(e);
  }
  by_name_.erase(node->name());
  --num_nodes_;
  nodes_[node->id()].reset();
}

Node* Graph::FindNode(absl::string_view name) const {
  auto it = by_name_.find(name);
  return it == by_name_.end() ? nullptr : it->second;
}

Node* Graph::FindNodeId(int id) const {
  if (id < 0 || id >= static_cast<int>(nodes_.size())) return nullptr;
  return nodes_[id].get();
}

std::vector<Node*> Graph::nodes() const {
  std::vector<Node*> out;
  out.reserve(num_nodes_);
  for (const auto& n : nodes_) {
    if (n) out.push_back(n.get());
  }
  return out;
}

std::vector<const Edge*> Graph::edges() const {
  std::vector<const Edge*> out;
  for (const Edge* e : edges_) {
    if (e != nullptr) out.push_back(e);
  }
  return out;
}

}  // namespace dfx
