#include "graph/subgraph.h"

#include <utility>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "base/status_macros.h"
#include "graph/graph_def_import.h"
#include "graph/node_def_util.h"

namespace dfx {

std::string TensorId::ToString() const { return absl::StrCat(node, ":", index); }

absl::StatusOr<TensorId> ParseTensorName(absl::string_view name) {
  auto bad = [&](absl::string_view why) {
    return absl::InvalidArgumentError(
        absl::StrCat("malformed tensor name '", name, "': ", why));
  };
  if (name.empty()) return bad("empty");
  if (name[0] == '^') return bad("a control input is not a tensor");
  TensorId id;
  const size_t colon = name.rfind(':');
  if (colon == absl::string_view::npos) {
    id.node = std::string(name);
    return id;
  }
  if (colon == 0) return bad("empty node name");
  int index = 0;
  if (!absl::SimpleAtoi(name.substr(colon + 1), &index) || index < 0) {
    return bad("the output index must be a non-negative integer");
  }
  id.node = std::string(name.substr(0, colon));
  id.index = index;
  return id;
}

namespace {

// Resolves `name` against the imported graph; InvalidArgument naming the
// tensor (as `what`, "feed" or "fetch") otherwise.
absl::StatusOr<TensorId> ResolveTensor(const Graph& graph,
                                       absl::string_view name,
                                       absl::string_view what,
                                       DataType* dtype) {
  auto parsed = ParseTensorName(name);
  if (!parsed.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat(what, " '", name, "': ", parsed.status().message()));
  }
  TensorId id = std::move(parsed).value();
  const Node* node = graph.FindNode(id.node);
  if (node == nullptr) {
    return absl::InvalidArgumentError(
        absl::StrCat(what, " tensor '", name, "' not found: the graph has no "
                     "node '", id.node, "'"));
  }
  if (id.index >= node->num_outputs()) {
    return absl::InvalidArgumentError(absl::StrCat(
        what, " tensor '", name, "' not found: node '", id.node, "' has ",
        node->num_outputs(), " output(s)"));
  }
  *dtype = node->output_type(id.index);
  return id;
}

std::string UniqueName(std::string base,
                       const absl::flat_hash_set<std::string>& taken) {
  absl::StrReplaceAll({{":", "_"}, {"/", "_"}}, &base);
  if (!taken.contains(base)) return base;
  for (int i = 1;; ++i) {
    std::string candidate = absl::StrCat(base, "_", i);
    if (!taken.contains(candidate)) return candidate;
  }
}

}  // namespace

absl::StatusOr<GraphDef> RewriteForCallFrame(
    const GraphDef& full, absl::Span<const std::string> feeds,
    absl::Span<const std::string> fetches,
    absl::Span<const std::string> targets, const OpRegistry* ops) {
  ImportOptions import_options;
  import_options.validate_shapes = false;
  DFX_ASSIGN_OR_RETURN(std::unique_ptr<Graph> graph,
                       ImportGraphDef(full, ops, import_options));

  absl::flat_hash_set<std::string> taken;
  for (const NodeDef& n : full.node()) taken.insert(n.name());

  // Fed tensor "node:i" -> the name of its _Arg node.
  absl::flat_hash_map<std::string, std::string> arg_for_tensor;
  std::vector<NodeDef> args;
  for (size_t i = 0; i < feeds.size(); ++i) {
    DataType dtype;
    DFX_ASSIGN_OR_RETURN(TensorId id,
                         ResolveTensor(*graph, feeds[i], "feed", &dtype));
    const std::string canonical = id.ToString();
    if (arg_for_tensor.contains(canonical)) {
      return absl::InvalidArgumentError(
          absl::StrCat("tensor '", canonical, "' is fed more than once"));
    }
    NodeDef arg;
    arg.set_name(UniqueName(absl::StrCat("arg_", canonical, "_", i), taken));
    arg.set_op("_Arg");
    (*arg.mutable_attr())["T"].set_type(BaseType(dtype));
    (*arg.mutable_attr())["index"].set_i(static_cast<int64_t>(i));
    taken.insert(arg.name());
    arg_for_tensor[canonical] = arg.name();
    args.push_back(std::move(arg));
  }

  std::vector<NodeDef> retvals;
  for (size_t i = 0; i < fetches.size(); ++i) {
    DataType dtype;
    DFX_ASSIGN_OR_RETURN(TensorId id,
                         ResolveTensor(*graph, fetches[i], "fetch", &dtype));
    const std::string canonical = id.ToString();
    NodeDef ret;
    ret.set_name(
        UniqueName(absl::StrCat("retval_", canonical, "_", i), taken));
    ret.set_op("_Retval");
    auto fed = arg_for_tensor.find(canonical);
    if (fed != arg_for_tensor.end()) {
      ret.add_input(fed->second);
    } else {
      ret.add_input(id.index == 0 ? id.node : canonical);
    }
    (*ret.mutable_attr())["T"].set_type(BaseType(dtype));
    (*ret.mutable_attr())["index"].set_i(static_cast<int64_t>(i));
    taken.insert(ret.name());
    retvals.push_back(std::move(ret));
  }

  for (const std::string& target : targets) {
    if (target.empty() || target[0] == '^' ||
        target.find(':') != std::string::npos) {
      return absl::InvalidArgumentError(absl::StrCat(
          "target '", target, "' must be a node name (not a tensor name)"));
    }
    if (graph->FindNode(target) == nullptr) {
      return absl::InvalidArgumentError(absl::StrCat(
          "target node '", target, "' not found in the graph"));
    }
  }

  // The graph's nodes with fed inputs redirected to their _Arg.
  std::vector<NodeDef> nodes(full.node().begin(), full.node().end());
  absl::flat_hash_map<std::string, size_t> index_of;
  for (size_t i = 0; i < nodes.size(); ++i) {
    NodeDef& n = nodes[i];
    index_of[n.name()] = i;
    n.clear_device();
    if (arg_for_tensor.empty()) continue;
    for (std::string& input : *n.mutable_input()) {
      ParsedInput parsed;
      if (!ParseNodeInput(input, &parsed).ok() || parsed.IsControl()) continue;
      auto it = arg_for_tensor.find(absl::StrCat(parsed.node, ":", parsed.index));
      if (it != arg_for_tensor.end()) input = it->second;
    }
  }

  // Backwards reachability from the _Retvals and the targets.
  absl::flat_hash_set<std::string> used_args;
  std::vector<bool> keep(nodes.size(), false);
  std::vector<size_t> stack;
  auto visit = [&](absl::string_view input) {
    ParsedInput parsed;
    if (!ParseNodeInput(input, &parsed).ok()) return;
    auto it = index_of.find(parsed.node);
    if (it != index_of.end()) {
      if (!keep[it->second]) {
        keep[it->second] = true;
        stack.push_back(it->second);
      }
    } else {
      used_args.insert(std::string(parsed.node));
    }
  };
  for (const NodeDef& ret : retvals) visit(ret.input(0));
  for (const std::string& target : targets) visit(target);
  while (!stack.empty()) {
    const size_t i = stack.back();
    stack.pop_back();
    for (const std::string& input : nodes[i].input()) visit(input);
  }

  GraphDef out;
  *out.mutable_versions() = full.versions();
  *out.mutable_library() = full.library();
  for (NodeDef& arg : args) {
    if (used_args.contains(arg.name())) *out.add_node() = std::move(arg);
  }
  for (size_t i = 0; i < nodes.size(); ++i) {
    if (keep[i]) *out.add_node() = std::move(nodes[i]);
  }
  for (NodeDef& ret : retvals) *out.add_node() = std::move(ret);
  return out;
}

}  // namespace dfx
