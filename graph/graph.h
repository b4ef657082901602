// Graph: nodes with their op signatures, data edges and control edges.
// A Graph is built by ImportGraphDef (graph/graph_def_import.h) or node by
// node, and turned back into a GraphDef by ToGraphDef.
#ifndef DFX_GRAPH_GRAPH_H_
#define DFX_GRAPH_GRAPH_H_

#include <memory>
#include <string>
#include "absl/strings/string_view.h"
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "graph/op_registry.h"
#include "graph/types.h"
#include "proto/graph.pb.h"

namespace dfx {

class Node;

// The src_output of a control edge.
inline constexpr int kControlSlot = -1;

struct Edge {
  int id;
  Node* src;
  int src_output;  // kControlSlot for a control edge
  Node* dst;
  int dst_input;  // kControlSlot for a control edge
  bool IsControlEdge() const { return src_output == kControlSlot; }
  // Where the edge sits in src->out_edges() and dst->in_edges() (Graph's
  // bookkeeping: RemoveEdge takes it out in constant time).
  int src_pos = 0;
  int dst_pos = 0;
};

class Node {
 public:
  int id() const { return id_; }
  const std::string& name() const { return def_->name(); }
  const std::string& type_string() const { return def_->op(); }
  // The NodeDef as imported, attrs with defaults filled in. Its `input`
  // field is not kept in step with edges; ToGraphDef rebuilds it.
  const NodeDef& def() const { return *def_; }
  // The same NodeDef, shared (a kernel built for the node keeps it instead
  // of a copy); mutable_def() copies it first when it is shared.
  std::shared_ptr<const NodeDef> shared_def() const { return def_; }
  const OpDef& op_def() const { return op_->op_def; }
  // The op's registration (its OpDef and shape function).
  const OpRegistrationData& op_registration() const { return *op_; }
  bool IsStateful() const { return op_->op_def.is_stateful(); }

  int num_inputs() const { return static_cast<int>(input_types_.size()); }
  int num_outputs() const { return static_cast<int>(output_types_.size()); }
  DataType input_type(int i) const { return input_types_[i]; }
  DataType output_type(int i) const { return output_types_[i]; }
  const DataTypeVector& input_types() const { return input_types_; }
  const DataTypeVector& output_types() const { return output_types_; }

  // The device the NodeDef asks for (may be empty or partial).
  const std::string& requested_device() const { return def_->device(); }
  // The full device name the placer chose; empty until placed.
  const std::string& assigned_device_name() const { return assigned_device_; }
  void set_assigned_device_name(std::string name) {
    assigned_device_ = std::move(name);
  }

  // Edges in insertion order, data and control edges together, until one
  // is removed: RemoveEdge moves the list's last edge into its place.
  const std::vector<const Edge*>& in_edges() const { return in_edges_; }
  const std::vector<const Edge*>& out_edges() const { return out_edges_; }
  // The data edge into input `i`, or null.
  const Edge* input_edge(int i) const;

  // Mutable access to attrs for graph rewrites (not to inputs).
  NodeDef* mutable_def() {
    if (def_.use_count() > 1) def_ = std::make_shared<NodeDef>(*def_);
    return def_.get();
  }

 private:
  friend class Graph;
  Node() = default;

  int id_ = -1;
  std::shared_ptr<NodeDef> def_;
  const OpRegistrationData* op_ = nullptr;
  DataTypeVector input_types_;
  DataTypeVector output_types_;
  std::string assigned_device_;
  std::vector<const Edge*> in_edges_;
  std::vector<const Edge*> out_edges_;
};

// Not thread-safe for mutation; concurrent readers are fine.
class Graph {
 public:
  // `ops` must outlive the graph.
  explicit Graph(const OpRegistry* ops);
  Graph(const Graph&) = delete;
  Graph& operator=(const Graph&) = delete;
  ~Graph();

  const OpRegistry* op_registry() const { return ops_; }

  // Adds a node (no edges; `def.input` is kept as given but not followed).
  // Fills in default attrs and computes input and output types.
  // NotFound for an unknown op, AlreadyExists for a duplicate name,
  // InvalidArgument for attrs the types cannot be computed from.
  absl::StatusOr<Node*> AddNode(NodeDef def);
  // The same with the op already looked up in op_registry() (ImportGraphDef
  // looks each op type up once, not once per node); `op` must be the
  // registration of def.op(). `def` is moved from only on success.
  absl::StatusOr<Node*> AddNode(NodeDef&& def, const OpRegistrationData& op);
  // A copy of `node` (of a graph with the same registry) without its
  // inputs or edges: its op, types and attrs as they are, nothing looked up
  // or computed again. AlreadyExists for a duplicate name.
  absl::StatusOr<Node*> CopyNode(const Node& node);

  // REQUIRES: both nodes belong to this graph, indices in range.
  const Edge* AddEdge(Node* src, int src_output, Node* dst, int dst_input);
  const Edge* AddControlEdge(Node* src, Node* dst);
  void RemoveEdge(const Edge* edge);
  // Removes the node and every edge touching it.
  void RemoveNode(Node* node);

  Node* FindNode(absl::string_view name) const;
  // Null for a removed or unknown id.
  Node* FindNodeId(int id) const;
  // One past the largest node id; ids of removed nodes are not reused.
  int num_node_ids() const { return static_cast<int>(nodes_.size()); }
  int num_nodes() const { return num_nodes_; }
  int num_edge_ids() const { return static_cast<int>(edges_.size()); }
  // Live nodes in id order.
  std::vector<Node*> nodes() const;
  // Live edges in id order.
  std::vector<const Edge*> edges() const;

  const VersionDef& versions() const { return versions_; }
  VersionDef* mutable_versions() { return &versions_; }
  const FunctionDefLibrary& library() const { return library_; }
  FunctionDefLibrary* mutable_library() { return &library_; }

 private:
  const OpRegistry* const ops_;
  std::vector<std::unique_ptr<Node>> nodes_;  // by id; null when removed
  // Edges live in blocks (one allocation for many: a 100,000-node graph has
  // as many edges), kept until the graph goes, removed ones included.
  Edge* NewEdge();
  // AddNode's and CopyNode's: the name's slot in by_name_ (AlreadyExists
  // when taken), then the node given its id and kept there.
  absl::StatusOr<Node**> ClaimName(const std::string& name);
  Node* Append(std::unique_ptr<Node> node, Node** slot);
  std::vector<std::unique_ptr<Edge[]>> edge_blocks_;
  size_t edge_block_size_ = 0;
  size_t edge_block_used_ = 0;
  std::vector<Edge*> edges_;  // by id; null when removed
  absl::flat_hash_map<std::string, Node*> by_name_;
  int num_nodes_ = 0;
  VersionDef versions_;
  FunctionDefLibrary library_;
};

}  // namespace dfx

#endif  // DFX_GRAPH_GRAPH_H_
