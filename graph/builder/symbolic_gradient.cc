#include "graph/builder/symbolic_gradient.h"

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "graph/builder/gradients.h"
#include "graph/builder/scope.h"
#include "graph/graph.h"
#include "graph/graph_def_import.h"
#include "graph/lower_functional_ops.h"
#include "graph/node_def_util.h"
#include "proto/attr_value.pb.h"

namespace dfx {
namespace {

constexpr char kForwardPrefix[] = "f/";

AttrValue TypeValue(DataType t) {
  AttrValue v;
  v.set_type(t);
  return v;
}

AttrValue IntValue(int64_t i) {
  AttrValue v;
  v.set_i(i);
  return v;
}

NodeDef PlaceholderDef(const std::string& name, DataType dtype) {
  NodeDef n;
  n.set_name(name);
  n.set_op("Placeholder");
  (*n.mutable_attr())["dtype"] = TypeValue(dtype);
  return n;
}

NodeDef ArgDef(const std::string& name, DataType dtype, int index) {
  NodeDef n;
  n.set_name(name);
  n.set_op("_Arg");
  (*n.mutable_attr())["T"] = TypeValue(dtype);
  (*n.mutable_attr())["index"] = IntValue(index);
  return n;
}

std::string Prefixed(absl::string_view input) {
  if (!input.empty() && input[0] == '^') {
    return absl::StrCat("^", kForwardPrefix, input.substr(1));
  }
  return absl::StrCat(kForwardPrefix, input);
}

}  // namespace

absl::StatusOr<FunctionBody> SymbolicGradientBody(
    const FunctionLibrary& library, const FunctionBody& forward) {
  const std::string context =
      absl::StrCat("the gradient of function '", forward.name, "': ");
  auto fail = [&](const absl::Status& s) {
    return absl::Status(s.code(), absl::StrCat(context, s.message()));
  };
  const size_t num_args = forward.arg_nodes.size();
  const size_t num_rets = forward.ret_nodes.size();

  // The body as a graph whose arguments are Placeholders and whose results
  // are tensors, with every call in it inlined.
  absl::flat_hash_map<std::string, int> arg_index;
  for (size_t i = 0; i < num_args; ++i) arg_index[forward.arg_nodes[i]] = i;
  absl::flat_hash_map<std::string, int> ret_index;
  for (size_t i = 0; i < num_rets; ++i) ret_index[forward.ret_nodes[i]] = i;
  GraphDef body_def;
  std::vector<std::string> ret_inputs(num_rets);
  for (const NodeDef& n : forward.nodes) {
    if (auto it = arg_index.find(n.name()); it != arg_index.end()) {
      *body_def.add_node() =
          PlaceholderDef(n.name(), BaseType(forward.arg_types[it->second]));
      continue;
    }
    if (auto it = ret_index.find(n.name()); it != ret_index.end()) {
      if (n.input_size() < 1) {
        return fail(absl::InvalidArgumentError(
            absl::StrCat("result node '", n.name(), "' has no input")));
      }
      ret_inputs[it->second] = n.input(0);
      continue;
    }
    *body_def.add_node() = n;
  }
  ImportOptions import;
  import.allow_internal_names = true;
  import.validate_shapes = false;
  absl::StatusOr<std::unique_ptr<Graph>> graph =
      ImportGraphDef(body_def, library.op_registry(), import);
  if (!graph.ok()) return fail(graph.status());
  if (absl::Status s = LowerFunctionalOps(library, graph->get()); !s.ok()) {
    return fail(s);
  }
  const GraphDef lowered = ToGraphDef(**graph);

  // The same nodes in a builder scope, each under "f/": added without inputs
  // first, so that loops' back edges need no order, then wired.
  Scope root = Scope::NewRootScope();
  for (const NodeDef& n : lowered.node()) {
    NodeDef copy = n;
    copy.set_name(absl::StrCat(kForwardPrefix, n.name()));
    copy.clear_input();
    copy.set_device("");
    if (absl::Status s = root.AddNode(std::move(copy)); !s.ok()) {
      return fail(s);
    }
  }
  for (int i = 0; i < lowered.node_size(); ++i) {
    const NodeDef& n = lowered.node(i);
    if (n.input_size() == 0) continue;
    std::vector<std::string> inputs;
    for (const std::string& in : n.input()) inputs.push_back(Prefixed(in));
    if (absl::Status s = root.SetNodeInputs(i, inputs); !s.ok()) {
      return fail(s);
    }
  }
  auto output_of = [&](const std::string& input) -> absl::StatusOr<Output> {
    ParsedInput parsed;
    DFX_RETURN_IF_ERROR(ParseNodeInput(input, &parsed));
    const Node* node = (*graph)->FindNode(parsed.node);
    if (node == nullptr || parsed.index < 0 ||
        parsed.index >= node->num_outputs()) {
      return absl::InvalidArgumentError(
          absl::StrCat("result input '", input, "' names no output"));
    }
    return Output(absl::StrCat(kForwardPrefix, parsed.node), parsed.index,
                  BaseType(node->output_type(parsed.index)));
  };
  std::vector<Output> xs, ys, dys;
  for (size_t i = 0; i < num_args; ++i) {
    xs.emplace_back(absl::StrCat(kForwardPrefix, forward.arg_nodes[i]), 0,
                    BaseType(forward.arg_types[i]));
  }
  for (size_t i = 0; i < num_rets; ++i) {
    absl::StatusOr<Output> y = output_of(ret_inputs[i]);
    if (!y.ok()) return fail(y.status());
    ys.push_back(*y);
    const std::string dy = absl::StrCat("dy_", i);
    if (absl::Status s = root.AddNode(PlaceholderDef(dy, y->dtype()));
        !s.ok()) {
      return fail(s);
    }
    dys.emplace_back(dy, 0, y->dtype());
  }
  std::vector<Output> dxs;
  if (absl::Status s = AddSymbolicGradients(root, ys, xs, dys, &dxs); !s.ok()) {
    return fail(s);
  }
  GraphDef grad_def;
  if (absl::Status s = root.ToGraphDef(&grad_def); !s.ok()) return fail(s);

  // Back to a function body: the Placeholders become _Args (the function's
  // arguments, then the dys), each dx a _Retval.
  FunctionBody out;
  out.name = absl::StrCat(forward.name, "/SymbolicGradient");
  out.is_stateful = forward.is_stateful;
  absl::flat_hash_map<std::string, int> new_args;
  for (size_t i = 0; i < num_args; ++i) {
    new_args[xs[i].node_name()] = i;
    out.arg_types.push_back(xs[i].dtype());
  }
  for (size_t i = 0; i < num_rets; ++i) {
    new_args[dys[i].node_name()] = num_args + i;
    out.arg_types.push_back(dys[i].dtype());
  }
  out.arg_nodes.resize(new_args.size());
  for (NodeDef& n : *grad_def.mutable_node()) {
    if (auto it = new_args.find(n.name()); it != new_args.end()) {
      out.arg_nodes[it->second] = n.name();
      out.nodes.push_back(
          ArgDef(n.name(), out.arg_types[it->second], it->second));
      continue;
    }
    out.nodes.push_back(std::move(n));
  }
  for (size_t i = 0; i < num_args; ++i) {
    NodeDef ret;
    ret.set_name(absl::StrCat("dx_", i, "_RetVal"));
    ret.set_op("_Retval");
    ret.add_input(dxs[i].ToString());
    (*ret.mutable_attr())["T"] = TypeValue(xs[i].dtype());
    (*ret.mutable_attr())["index"] = IntValue(static_cast<int64_t>(i));
    out.ret_nodes.push_back(ret.name());
    out.ret_types.push_back(xs[i].dtype());
    out.nodes.push_back(std::move(ret));
  }
  return out;
}

}  // namespace dfx
