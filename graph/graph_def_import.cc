#include "graph/graph_def_import.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <system_error>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "base/logging.h"
#include "base/status_macros.h"
#include "google/protobuf/io/tokenizer.h"
#include "google/protobuf/text_format.h"
#include "graph/node_def_util.h"
#include "graph/shape_inference.h"
#include "graph/types.h"

namespace dfx {
namespace {

std::string NodePrefix(const NodeDef& def) {
  return absl::StrCat("node '", def.name(), "' (op ", def.op(), "): ");
}

absl::Status NodeError(const NodeDef& def, absl::string_view message) {
  return absl::InvalidArgumentError(absl::StrCat(NodePrefix(def), message));
}

// An error from code that may not name the node (or may use another code),
// turned into InvalidArgument that does.
absl::Status AsNodeError(const NodeDef& def, const absl::Status& s) {
  if (absl::StrContains(s.message(), absl::StrCat("'", def.name(), "'"))) {
    return absl::InvalidArgumentError(s.message());
  }
  return NodeError(def, s.message());
}

// Unimplemented, in TensorFlow's words, when the op was removed at or
// before GraphDef version `producer` (its OpDef's deprecation version): a
// graph of that version cannot hold it. TensorFlow refuses such a graph at
// import too; an older graph (a lower producer) may use the op.
absl::Status CheckOpDeprecation(const OpDef& op_def, int producer) {
  if (!op_def.has_deprecation() ||
      producer < op_def.deprecation().version()) {
    return absl::OkStatus();
  }
  return absl::UnimplementedError(absl::StrCat(
      "Op ", op_def.name(), " is not available in GraphDef version ", producer,
      ". It has been removed in version ", op_def.deprecation().version(),
      ". ", op_def.deprecation().explanation(), "."));
}

bool IsNameChar(char c) {
  return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') ||
         (c >= '0' && c <= '9') || c == '_' || c == '.' || c == '/' ||
         c == '>' || c == '-';
}

// TensorFlow's node name rule: [A-Za-z0-9.][A-Za-z0-9_./>-]*, and with
// internal names allowed a leading '_' too.
absl::Status ValidateNodeName(const NodeDef& def, bool allow_internal) {
  const std::string& name = def.name();
  if (name.empty()) {
    return absl::InvalidArgumentError(
        absl::StrCat("node with empty name (op ", def.op(), ")"));
  }
  const char c = name[0];
  const bool first_ok = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') ||
                        (c >= '0' && c <= '9') || c == '.' ||
                        (allow_internal && c == '_');
  // tfdbg's watch nodes (graph/debug_watches.h) keep TensorFlow's names,
  // "__dbg_<node>:<slot>_<i>_<op>", which tfdbg's reader parses; only
  // control inputs name them (ParseNodeInput).
  const bool debug_node = allow_internal && absl::StartsWith(name, "__dbg_");
  if (!first_ok ||
      !std::all_of(name.begin(), name.end(), [&](char ch) {
        return IsNameChar(ch) || (debug_node && ch == ':');
      })) {
    return NodeError(def, "node name is not valid: it must match "
                          "[A-Za-z0-9.][A-Za-z0-9_./>-]*");
  }
  return absl::OkStatus();
}

// True when `src` feeding `dst_type` is allowed: equal types, or a ref output
// into a non-ref input of the same base type.
bool TypesCompatible(DataType src, DataType dst) {
  if (src == dst) return true;
  return IsRefType(src) && !IsRefType(dst) && BaseType(src) == dst;
}

bool IsMerge(const Node* n) {
  return n->type_string() == "Merge" || n->type_string() == "RefMerge";
}
bool IsNextIteration(const Node* n) {
  return n->type_string() == "NextIteration" ||
         n->type_string() == "RefNextIteration";
}
// A while loop's back edge, which closes the loop by design.
bool IsBackEdge(const Edge* e) {
  return IsNextIteration(e->src) && IsMerge(e->dst);
}

// Adds one node's edges from its `input` strings.
absl::Status AddInputEdges(Graph* graph, Node* node) {
  const NodeDef& def = node->def();
  int num_data = 0;
  bool seen_control = false;
  for (const std::string& input : def.input()) {
    ParsedInput parsed;
    if (absl::Status s = ParseNodeInput(input, &parsed); !s.ok()) {
      return NodeError(def, s.message());
    }
    if (parsed.IsControl()) {
      seen_control = true;
    } else if (seen_control) {
      return NodeError(def, absl::StrCat("data input '", input,
                                         "' comes after a control input; "
                                         "control inputs must come last"));
    }
    Node* src = graph->FindNode(parsed.node);
    if (src == nullptr) {
      return NodeError(def, absl::StrCat("input '", input,
                                         "' names node '", parsed.node,
                                         "', which is not in the graph"));
    }
    if (parsed.IsControl()) {
      graph->AddControlEdge(src, node);
      continue;
    }
    if (parsed.index >= src->num_outputs()) {
      return NodeError(
          def, absl::StrCat("input '", input, "' names output ", parsed.index,
                            " of node '", src->name(), "', which has ",
                            src->num_outputs(), " output(s)"));
    }
    const int dst_input = num_data++;
    if (dst_input >= node->num_inputs()) {
      continue;  // reported below with the full count
    }
    const DataType src_type = src->output_type(parsed.index);
    const DataType dst_type = node->input_type(dst_input);
    if (!TypesCompatible(src_type, dst_type)) {
      return NodeError(
          def, absl::StrCat("input ", dst_input, " ('", input, "') is ",
                            DataTypeString(src_type), " but the op expects ",
                            DataTypeString(dst_type)));
    }
    graph->AddEdge(src, parsed.index, node, dst_input);
  }
  if (num_data != node->num_inputs()) {
    return NodeError(def, absl::StrCat("expects ", node->num_inputs(),
                                       " data input(s) but has ", num_data));
  }
  return absl::OkStatus();
}

// One cycle among `stuck` nodes (those Kahn's algorithm could not order), as
// a path "a -> b -> a". Every stuck node has a stuck predecessor, so walking
// backwards must repeat a node.
std::string FindCycle(const std::vector<bool>& stuck, Node* start) {
  std::vector<Node*> path;
  absl::flat_hash_map<Node*, size_t> pos;
  Node* n = start;
  while (!pos.contains(n)) {
    pos[n] = path.size();
    path.push_back(n);
    Node* pred = nullptr;
    for (const Edge* e : n->in_edges()) {
      if (!IsBackEdge(e) && stuck[e->src->id()]) {
        pred = e->src;
        break;
      }
    }
    if (pred == nullptr) return n->name();  // not reached for a stuck node
    n = pred;
  }
  // path[pos[n]..] walks the cycle backwards; print it forwards.
  std::vector<std::string> names;
  for (size_t i = path.size(); i-- > pos[n];) names.push_back(path[i]->name());
  names.push_back(names.front());
  return absl::StrJoin(names, " -> ");
}

// Nodes in an order where every node comes after its inputs (back edges of
// loops aside); InvalidArgument naming a node on a cycle otherwise.
absl::StatusOr<std::vector<Node*>> TopologicalOrder(const Graph& graph) {
  std::vector<int> pending(graph.num_node_ids(), 0);
  std::vector<Node*> ready;
  for (Node* n : graph.nodes()) {
    for (const Edge* e : n->in_edges()) {
      if (!IsBackEdge(e)) ++pending[n->id()];
    }
    if (pending[n->id()] == 0) ready.push_back(n);
  }
  std::vector<Node*> order;
  order.reserve(graph.num_nodes());
  // Ready nodes are taken in id order at each level so the order is stable.
  std::reverse(ready.begin(), ready.end());
  while (!ready.empty()) {
    Node* n = ready.back();
    ready.pop_back();
    order.push_back(n);
    for (const Edge* e : n->out_edges()) {
      if (IsBackEdge(e)) continue;
      if (--pending[e->dst->id()] == 0) ready.push_back(e->dst);
    }
  }
  if (static_cast<int>(order.size()) == graph.num_nodes()) return order;

  std::vector<bool> stuck(graph.num_node_ids(), false);
  Node* first = nullptr;
  for (Node* n : graph.nodes()) {
    if (pending[n->id()] > 0) {
      stuck[n->id()] = true;
      if (first == nullptr) first = n;
    }
  }
  // Report a node that is on the cycle, not one merely downstream of it.
  const std::string cycle = FindCycle(stuck, first);
  const std::string on_cycle = cycle.substr(0, cycle.find(" -> "));
  const Node* node = graph.FindNode(on_cycle);
  return NodeError(node->def(),
                   absl::StrCat("node is in a cycle: ", cycle));
}

absl::Status InferShapes(const Graph& graph, const std::vector<Node*>& order) {
  std::vector<std::vector<PartialShape>> shapes(graph.num_node_ids());
  for (Node* n : order) {
    std::vector<PartialShape> inputs(n->num_inputs(), PartialShape::Unknown());
    std::vector<const TensorProto*> tensors(n->num_inputs(), nullptr);
    for (const Edge* e : n->in_edges()) {
      if (e->IsControlEdge()) continue;
      const auto& src_shapes = shapes[e->src->id()];
      if (e->src_output < static_cast<int>(src_shapes.size())) {
        inputs[e->dst_input] = src_shapes[e->src_output];
      }
      if (e->src->type_string() == "Const" && e->src_output == 0) {
        const AttrValue* value = FindNodeAttr(e->src->def(), "value");
        if (value != nullptr && value->has_tensor()) {
          tensors[e->dst_input] = &value->tensor();
        }
      }
    }
    InferenceContext c(n->def(), n->op_def(), std::move(inputs),
                       std::move(tensors), n->num_outputs());
    if (absl::Status s = n->op_registration().shape_fn(&c); !s.ok()) {
      return AsNodeError(n->def(), s);
    }
    auto& out = shapes[n->id()];
    out.reserve(n->num_outputs());
    for (int i = 0; i < n->num_outputs(); ++i) out.push_back(c.output(i));
  }
  return absl::OkStatus();
}

// Collects the text parser's first error with its position.
class FirstErrorCollector : public google::protobuf::io::ErrorCollector {
 public:
  void AddError(int line, google::protobuf::io::ColumnNumber column,
                const std::string& message) override {
    if (!error_.empty()) return;
    // The parser counts from 0; editors count from 1.
    error_ = absl::StrCat("line ", line + 1, " column ", column + 1, ": ",
                          message);
  }
  const std::string& error() const { return error_; }

 private:
  std::string error_;
};

// Parses text format, skipping fields dfx does not declare (TensorFlow's
// experimental_type, debug_info, ...). Returns the parser's first error, or
// an empty string on success.
std::string ParseText(const std::string& text, GraphDef* def) {
  google::protobuf::TextFormat::Parser parser;
  parser.AllowUnknownField(true);
  FirstErrorCollector errors;
  parser.RecordErrorsTo(&errors);
  if (parser.ParseFromString(text, def)) return "";
  return errors.error().empty() ? "unparsable text" : errors.error();
}

}  // namespace

std::vector<MissingOp> FindMissingOps(const GraphDef& def,
                                      const OpRegistry& ops) {
  absl::flat_hash_map<std::string, size_t> index;
  std::vector<MissingOp> missing;
  for (const NodeDef& node : def.node()) {
    if (ops.LookUp(node.op()) != nullptr) continue;
    auto [it, inserted] = index.try_emplace(node.op(), missing.size());
    if (inserted) missing.push_back({node.op(), {}});
    missing[it->second].nodes.push_back(node.name());
  }
  std::sort(missing.begin(), missing.end(),
            [](const MissingOp& a, const MissingOp& b) { return a.op < b.op; });
  return missing;
}

std::string MissingOpsMessage(const std::vector<MissingOp>& missing) {
  std::vector<std::string> parts;
  for (const MissingOp& m : missing) {
    std::string part = absl::StrCat("'", m.op, "' (node '", m.nodes[0], "'");
    if (m.nodes.size() > 1) absl::StrAppend(&part, " and ", m.nodes.size() - 1, " more");
    parts.push_back(absl::StrCat(part, ")"));
  }
  return absl::StrCat(missing.size() == 1 ? "Op type not registered: "
                                          : "Op types not registered: ",
                      absl::StrJoin(parts, ", "),
                      " ('dfx ops --graph FILE' lists what a graph needs)");
}

namespace {

// Builds the graph from `def`'s nodes, copied, or moved out of `movable`
// (which is then `def`) when it is not null.
absl::StatusOr<std::unique_ptr<Graph>> Import(const GraphDef& def,
                                              GraphDef* movable,
                                              const OpRegistry* ops,
                                              const ImportOptions& options) {
  // Each op type is looked up once (a registry lookup takes its lock).
  std::vector<const OpRegistrationData*> op_of(def.node_size());
  {
    absl::flat_hash_map<absl::string_view, const OpRegistrationData*> seen;
    bool missing = false;
    for (int i = 0; i < def.node_size(); ++i) {
      auto [it, inserted] = seen.try_emplace(def.node(i).op(), nullptr);
      if (inserted) it->second = ops->LookUp(def.node(i).op());
      op_of[i] = it->second;
      missing |= it->second == nullptr;
    }
    if (missing) {
      return absl::InvalidArgumentError(
          MissingOpsMessage(FindMissingOps(def, *ops)));
    }
  }
  auto graph = std::make_unique<Graph>(ops);
  if (movable != nullptr) {
    graph->mutable_versions()->Swap(movable->mutable_versions());
    graph->mutable_library()->Swap(movable->mutable_library());
  } else {
    *graph->mutable_versions() = def.versions();
    *graph->mutable_library() = def.library();
  }

  // Pass 1: every node, so that inputs may name nodes that come later.
  for (int i = 0; i < def.node_size(); ++i) {
    NodeDef node_def = movable != nullptr
                           ? std::move(*movable->mutable_node(i))
                           : def.node(i);
    DFX_RETURN_IF_ERROR(
        ValidateNodeName(node_def, options.allow_internal_names));
    const OpRegistrationData& op = *op_of[i];
    AddDefaultAttrs(op.op_def, &node_def);
    DFX_RETURN_IF_ERROR(ValidateNodeAttrs(node_def, op.op_def));
    if (node_def.op() == "GraphDefVersion") {
      // The kernel answers the producer version of the graph it came in
      // (kernels/misc2/misc2_kernels.cc); partitions carry the attr along.
      (*node_def.mutable_attr())["_graph_def_version"].set_i(
          graph->versions().producer());
    }
    if (absl::Status s =
            CheckOpDeprecation(op.op_def, graph->versions().producer());
        !s.ok()) {
      return absl::Status(s.code(),
                          absl::StrCat(NodePrefix(node_def), s.message()));
    }
    absl::StatusOr<Node*> node = graph->AddNode(std::move(node_def), op);
    if (node.status().code() == absl::StatusCode::kAlreadyExists) {
      return NodeError(node_def, "duplicate node name");
    }
    if (!node.ok()) return AsNodeError(node_def, node.status());
  }

  // Pass 2: edges, in node order.
  for (Node* node : graph->nodes()) {
    DFX_RETURN_IF_ERROR(AddInputEdges(graph.get(), node));
  }

  DFX_ASSIGN_OR_RETURN(std::vector<Node*> order, TopologicalOrder(*graph));
  if (options.validate_shapes) {
    DFX_RETURN_IF_ERROR(InferShapes(*graph, order));
  }
  return graph;
}

}  // namespace

absl::StatusOr<std::unique_ptr<Graph>> ImportGraphDef(
    const GraphDef& def, const OpRegistry* ops, const ImportOptions& options) {
  return Import(def, nullptr, ops, options);
}

absl::StatusOr<std::unique_ptr<Graph>> ImportGraphDef(
    GraphDef&& def, const OpRegistry* ops, const ImportOptions& options) {
  return Import(def, &def, ops, options);
}

GraphDef ToGraphDef(const Graph& graph) {
  GraphDef out;
  *out.mutable_versions() = graph.versions();
  *out.mutable_library() = graph.library();
  for (const Node* node : graph.nodes()) {
    NodeDef* def = out.add_node();
    *def = node->def();
    def->clear_input();
    std::vector<const Edge*> data(node->num_inputs(), nullptr);
    std::vector<const Edge*> control;
    for (const Edge* e : node->in_edges()) {
      if (e->IsControlEdge()) {
        control.push_back(e);
      } else {
        data[e->dst_input] = e;
      }
    }
    for (const Edge* e : data) {
      if (e == nullptr) continue;  // a hand-built graph with a missing input
      if (e->src_output == 0) {
        def->add_input(e->src->name());
      } else {
        def->add_input(absl::StrCat(e->src->name(), ":", e->src_output));
      }
    }
    for (const Edge* e : control) {
      def->add_input(absl::StrCat("^", e->src->name()));
    }
  }
  return out;
}

absl::StatusOr<GraphDef> ReadGraphDefFile(const std::string& path) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) {
    return absl::InvalidArgumentError(
        absl::StrCat("GraphDef file '", path, "' is a directory"));
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    const int err = errno;
    if (err == ENOENT || err == ENOTDIR) {
      return absl::NotFoundError(
          absl::StrCat("GraphDef file '", path, "' does not exist"));
    }
    if (err == EACCES) {
      return absl::PermissionDeniedError(
          absl::StrCat("GraphDef file '", path, "': permission denied"));
    }
    return absl::InvalidArgumentError(absl::StrCat(
        "cannot open GraphDef file '", path, "': ", std::strerror(err)));
  }
  std::ostringstream buffer;
  buffer << in.rdbuf();
  if (in.bad()) {
    return absl::InvalidArgumentError(
        absl::StrCat("cannot read GraphDef file '", path, "'"));
  }
  const std::string content = std::move(buffer).str();

  GraphDef def;
  const bool text_name =
      absl::EndsWith(path, ".pbtxt") || absl::EndsWith(path, ".txt");
  if (text_name) {
    const std::string error = ParseText(content, &def);
    if (!error.empty()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "GraphDef file '", path, "' is not a valid text GraphDef: ", error));
    }
    return def;
  }
  if (def.ParseFromString(content)) return def;
  def.Clear();
  const std::string error = ParseText(content, &def);
  if (!error.empty()) {
    return absl::InvalidArgumentError(
        absl::StrCat("GraphDef file '", path,
                     "' is neither a binary nor a text GraphDef (as text: ",
                     error, ")"));
  }
  return def;
}

}  // namespace dfx
