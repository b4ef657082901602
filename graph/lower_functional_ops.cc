#include "graph/lower_functional_ops.h"

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "google/protobuf/io/coded_stream.h"
#include "google/protobuf/io/zero_copy_stream_impl_lite.h"
#include "graph/builder/symbolic_gradient.h"
#include "graph/node_def_util.h"

namespace dfx {
namespace {

// A tensor: a node's output slot. A null node is an input left to connect
// later (a loop's Merge, before its NextIteration exists).
using Output = std::pair<Node*, int>;

bool IsCallOp(absl::string_view op) {
  return op == "PartitionedCall" || op == "StatefulPartitionedCall";
}
bool IsIfOp(absl::string_view op) { return op == "If" || op == "StatelessIf"; }
bool IsCaseOp(absl::string_view op) {
  return op == "Case" || op == "StatelessCase";
}
bool IsSymbolicGradientOp(absl::string_view op) {
  return op == "SymbolicGradient";
}
bool IsWhileOp(absl::string_view op) {
  return op == "While" || op == "StatelessWhile" || op == "XlaWhile";
}
bool IsForOp(absl::string_view op) { return op == "For"; }

std::string NodePrefix(absl::string_view name, absl::string_view op) {
  return absl::StrCat("node '", name, "' (op ", op, "): ");
}

absl::Status NodeError(const Node& n, absl::string_view message) {
  return absl::InvalidArgumentError(
      absl::StrCat(NodePrefix(n.name(), n.type_string()), message));
}

// Types equal up to references (a ref output may feed a plain input).
bool TypesCompatible(DataType src, DataType dst) {
  if (src == dst) return true;
  return IsRefType(src) && !IsRefType(dst) && BaseType(src) == dst;
}

AttrValue TypeAttr(DataType t) {
  AttrValue v;
  v.set_type(t);
  return v;
}
AttrValue IntAttr(int64_t i) {
  AttrValue v;
  v.set_i(i);
  return v;
}
AttrValue BoolAttr(bool b) {
  AttrValue v;
  v.set_b(b);
  return v;
}
AttrValue StringAttr(const std::string& s) {
  AttrValue v;
  v.set_s(s);
  return v;
}
AttrValue TypeListAttr(const DataTypeVector& types) {
  AttrValue v;
  auto* list = v.mutable_list();
  for (DataType t : types) list->add_type(t);
  return v;
}

std::string UniqueName(const Graph& g, const std::string& base) {
  if (g.FindNode(base) == nullptr) return base;
  for (int n = 1;; ++n) {
    std::string name = absl::StrCat(base, "_", n);
    if (g.FindNode(name) == nullptr) return name;
  }
}

// Connects `inputs` (data, in order; null entries are skipped) and `controls`
// to `node`, checking slots and types.
absl::Status Connect(Graph* g, Node* node, const std::vector<Output>& inputs,
                     const std::vector<Node*>& controls) {
  if (static_cast<int>(inputs.size()) != node->num_inputs()) {
    return absl::InvalidArgumentError(absl::StrCat(
        NodePrefix(node->name(), node->type_string()), "expects ",
        node->num_inputs(), " data input(s) but gets ", inputs.size()));
  }
  for (size_t i = 0; i < inputs.size(); ++i) {
    const auto& [src, slot] = inputs[i];
    if (src == nullptr) continue;
    if (slot < 0 || slot >= src->num_outputs()) {
      return absl::InvalidArgumentError(absl::StrCat(
          NodePrefix(node->name(), node->type_string()), "input ", i,
          " names output ", slot, " of node '", src->name(), "', which has ",
          src->num_outputs(), " output(s)"));
    }
    if (!TypesCompatible(src->output_type(slot), node->input_type(i))) {
      return absl::InvalidArgumentError(absl::StrCat(
          NodePrefix(node->name(), node->type_string()), "input ", i, " ('",
          src->name(), ":", slot, "') is ",
          DataTypeString(src->output_type(slot)), " but the op expects ",
          DataTypeString(node->input_type(static_cast<int>(i)))));
    }
    g->AddEdge(src, slot, node, static_cast<int>(i));
  }
  for (Node* c : controls) {
    if (c != nullptr) g->AddControlEdge(c, node);
  }
  return absl::OkStatus();
}

// Adds a node made by the lowering: a fresh name from `base`, `op`, `device`
// and `attrs`, then its edges.
absl::StatusOr<Node*> AddLoweredNode(
    Graph* g, const std::string& base, const std::string& op,
    const std::string& device,
    std::vector<std::pair<std::string, AttrValue>> attrs,
    const std::vector<Output>& inputs, const std::vector<Node*>& controls = {},
    bool exact_name = false) {
  NodeDef def;
  def.set_name(exact_name ? base : UniqueName(*g, base));
  def.set_op(op);
  def.set_device(device);
  for (auto& [k, v] : attrs) (*def.mutable_attr())[k] = std::move(v);
  absl::StatusOr<Node*> node = g->AddNode(std::move(def));
  if (!node.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat("lowering node '", base, "': ", node.status().message()));
  }
  DFX_RETURN_IF_ERROR(Connect(g, *node, inputs, controls));
  return *node;
}

// The edges of a node that is being replaced, recorded before it is removed.
struct Detached {
  std::string name;
  std::string op;
  std::string device;
  std::vector<Output> inputs;  // by input index
  std::vector<Node*> control_inputs;
  struct Use {
    Node* dst;
    int dst_input;
    int src_output;
  };
  std::vector<Use> data_uses;
  std::vector<Node*> control_uses;
};

// Records `n`'s edges and removes it from the graph, which frees its name.
Detached Detach(Graph* g, Node* n) {
  Detached d;
  d.name = n->name();
  d.op = n->type_string();
  d.device = n->requested_device();
  d.inputs.assign(n->num_inputs(), Output{nullptr, 0});
  for (const Edge* e : n->in_edges()) {
    if (e->IsControlEdge()) {
      d.control_inputs.push_back(e->src);
    } else {
      d.inputs[e->dst_input] = {e->src, e->src_output};
    }
  }
  for (const Edge* e : n->out_edges()) {
    if (e->IsControlEdge()) {
      d.control_uses.push_back(e->dst);
    } else {
      d.data_uses.push_back({e->dst, e->dst_input, e->src_output});
    }
  }
  g->RemoveNode(n);
  return d;
}

// Points the replaced node's consumers at `outputs` (data) and `control`.
void Rewire(Graph* g, const Detached& d, const std::vector<Output>& outputs,
            Node* control) {
  for (const Detached::Use& u : d.data_uses) {
    const Output& o = outputs[u.src_output];
    g->AddEdge(o.first, o.second, u.dst, u.dst_input);
  }
  for (Node* c : d.control_uses) g->AddControlEdge(control, c);
}

// The node that keeps the replaced node's name: an IdentityN of `outputs`
// (so "name:i" can be fetched) or a NoOp when there are none; it runs after
// `after`.
absl::StatusOr<Node*> AddNamedOutput(Graph* g, const Detached& d,
                                     const std::vector<Output>& outputs,
                                     Node* after) {
  if (outputs.empty()) {
    return AddLoweredNode(g, d.name, "NoOp", d.device, {}, {}, {after},
                          /*exact_name=*/true);
  }
  DataTypeVector types;
  for (const auto& [n, slot] : outputs) {
    types.push_back(BaseType(n->output_type(slot)));
  }
  return AddLoweredNode(g, d.name, "IdentityN", d.device,
                        {{"T", TypeListAttr(types)}}, outputs, {after},
                        /*exact_name=*/true);
}

// An inlined function body.
struct Inlined {
  std::vector<Output> outputs;  // one per result
  // Runs after the body's entry, its results and its control outputs: the
  // point where "the call has run".
  Node* done = nullptr;
};

// Copies `body` into `g` under `prefix`: arguments read `inputs`, nodes
// without a device take `device`, the arguments and the nodes with no input
// at all wait for `entry` (when not null; it puts them in the right branch
// or loop frame; without it those nodes wait for the first argument).
// `context` starts error messages ("node 'x' (op If): then_branch 'f': ").
absl::StatusOr<Inlined> InlineBody(Graph* g, const FunctionBody& body,
                                   const std::string& prefix,
                                   const std::string& device,
                                   const std::vector<Output>& inputs,
                                   Node* entry, const std::string& context) {
  auto error = [&](absl::string_view message) {
    return absl::InvalidArgumentError(absl::StrCat(context, message));
  };
  if (inputs.size() != body.arg_nodes.size()) {
    return error(absl::StrCat("the function takes ", body.arg_nodes.size(),
                              " argument(s) but the call passes ",
                              inputs.size()));
  }
  absl::flat_hash_map<std::string, Node*> mapped;  // body name -> graph node
  // What nodes of the body without inputs wait for: the entry, else the
  // first argument. Either way they run in the frame and iteration of the
  // call and are dead when its inputs are (a call nested in a loop body or a
  // branch must not leave constants in the outer frame).
  Node* gate = entry;
  // Arguments.
  for (size_t i = 0; i < body.arg_nodes.size(); ++i) {
    DFX_ASSIGN_OR_RETURN(
        Node * in,
        AddLoweredNode(g, absl::StrCat(prefix, "/input/_", i), "Identity",
                       device, {{"T", TypeAttr(BaseType(body.arg_types[i]))}},
                       {inputs[i]}, {entry}));
    mapped[body.arg_nodes[i]] = in;
    if (gate == nullptr) gate = in;
  }
  // Names first, so that colocation attrs can be rewritten.
  absl::flat_hash_map<std::string, std::string> names;
  absl::flat_hash_set<std::string> taken;
  for (const NodeDef& n : body.nodes) {
    if (n.op() == "_Arg" || n.op() == "_Retval") continue;
    const std::string base = absl::StrCat(prefix, "/", n.name());
    std::string name = base;
    for (int k = 1; g->FindNode(name) != nullptr || taken.contains(name); ++k) {
      name = absl::StrCat(base, "_", k);
    }
    taken.insert(name);
    names[n.name()] = std::move(name);
  }
  std::vector<std::pair<const NodeDef*, Node*>> created;
  for (const NodeDef& n : body.nodes) {
    if (n.op() == "_Arg" || n.op() == "_Retval") continue;
    NodeDef def = n;
    def.set_name(names.at(n.name()));
    def.clear_input();
    if (def.device().empty()) def.set_device(device);
    // "_class: loc:@x" names body nodes; point it at their new names.
    if (auto it = def.mutable_attr()->find("_class");
        it != def.mutable_attr()->end() && it->second.has_list()) {
      AttrValue classes;
      classes.mutable_list();
      for (const std::string& c : it->second.list().s()) {
        if (!absl::StartsWith(c, "loc:@")) {
          classes.mutable_list()->add_s(c);
          continue;
        }
        auto target = names.find(c.substr(5));
        if (target != names.end()) {
          classes.mutable_list()->add_s(absl::StrCat("loc:@", target->second));
        }
      }
      if (classes.list().s_size() == 0) {
        def.mutable_attr()->erase(it);
      } else {
        it->second = std::move(classes);
      }
    }
    const OpRegistrationData* op = g->op_registry()->LookUp(def.op());
    if (op == nullptr) {
      return error(absl::StrCat("node '", n.name(), "': op '", n.op(),
                                "' is not registered"));
    }
    AddDefaultAttrs(op->op_def, &def);
    if (absl::Status s = ValidateNodeAttrs(def, op->op_def); !s.ok()) {
      return error(absl::StrCat("node '", n.name(), "': ", s.message()));
    }
    absl::StatusOr<Node*> node = g->AddNode(std::move(def));
    if (!node.ok()) {
      return error(absl::StrCat("node '", n.name(), "': ",
                                node.status().message()));
    }
    mapped[n.name()] = *node;
    created.emplace_back(&n, *node);
  }
  // Edges, in the body's flat naming.
  auto source = [&](const NodeDef& n, const std::string& input,
                    Output* out) -> absl::Status {
    ParsedInput parsed;
    if (absl::Status s = ParseNodeInput(input, &parsed); !s.ok()) {
      return error(absl::StrCat("node '", n.name(), "': ", s.message()));
    }
    auto it = mapped.find(parsed.node);
    if (it == mapped.end()) {
      return error(absl::StrCat("node '", n.name(), "': input '", input,
                                "' names no node of the body"));
    }
    *out = {it->second, parsed.index};
    return absl::OkStatus();
  };
  for (const auto& [n, node] : created) {
    std::vector<Output> data;
    std::vector<Node*> controls;
    for (const std::string& input : n->input()) {
      Output src;
      DFX_RETURN_IF_ERROR(source(*n, input, &src));
      if (src.second < 0) {
        controls.push_back(src.first);
      } else {
        data.push_back(src);
      }
    }
    if (absl::Status s = Connect(g, node, data, controls); !s.ok()) {
      return error(s.message());
    }
    if (node->in_edges().empty() && gate != nullptr) {
      g->AddControlEdge(gate, node);
    }
  }
  // Control outputs first: the results wait for them.
  std::vector<Node*> control_outputs;
  for (const std::string& c : body.control_ret_nodes) {
    auto it = mapped.find(c);
    if (it == mapped.end()) {
      return error(absl::StrCat("control output node '", c,
                                "' is not in the body"));
    }
    control_outputs.push_back(it->second);
  }
  // Results. Each waits for the control outputs: the master prunes a step's
  // graph after lowering, so a consumer of a result must pull in the
  // function's side effects, as needing the call does in TensorFlow (which
  // lowers after pruning) and as a call's outputs come only once the
  // function has finished.
  Inlined result;
  std::vector<Node*> done_after;
  if (gate != nullptr) done_after.push_back(gate);
  absl::flat_hash_map<std::string, const NodeDef*> by_name;
  for (const NodeDef& n : body.nodes) by_name[n.name()] = &n;
  for (size_t i = 0; i < body.ret_nodes.size(); ++i) {
    const NodeDef& ret = *by_name.at(body.ret_nodes[i]);
    Output src;
    DFX_RETURN_IF_ERROR(source(ret, ret.input(0), &src));
    absl::StatusOr<Node*> out = AddLoweredNode(
        g, absl::StrCat(prefix, "/output/_", i), "Identity", device,
        {{"T", TypeAttr(BaseType(body.ret_types[i]))}}, {src},
        control_outputs);
    if (!out.ok()) {
      return error(absl::StrCat("result ", i, ": ", out.status().message()));
    }
    result.outputs.emplace_back(*out, 0);
    done_after.push_back(*out);
  }
  done_after.insert(done_after.end(), control_outputs.begin(),
                    control_outputs.end());
  DFX_ASSIGN_OR_RETURN(
      result.done,
      AddLoweredNode(g, absl::StrCat(prefix, "/output_control_node"), "NoOp",
                     device, {}, {}, done_after));
  return result;
}

// The function a func attr names, and the attrs to instantiate it with.
absl::StatusOr<const NameAttrList*> FuncAttr(const Node& n,
                                             absl::string_view attr) {
  const AttrValue* v = FindNodeAttr(n.def(), attr);
  if (v == nullptr || v->value_case() != AttrValue::kFunc) {
    return NodeError(n, absl::StrCat("attr '", attr, "' is not a function"));
  }
  return &v->func();
}

absl::StatusOr<FunctionBody> InstantiateFor(const FunctionLibrary& library,
                                            const Node& n,
                                            absl::string_view what,
                                            const std::string& function,
                                            const FunctionAttrs& attrs) {
  if (!library.Contains(function)) {
    return NodeError(n, absl::StrCat(what, " names function '", function,
                                     "', which is not in the library"));
  }
  absl::StatusOr<FunctionBody> body = library.Instantiate(function, attrs);
  if (!body.ok()) {
    return NodeError(n, absl::StrCat(what, ": ", body.status().message()));
  }
  return body;
}

std::string TypesString(const DataTypeVector& types) {
  return DataTypeVectorString(types);
}

DataTypeVector BaseTypes(const DataTypeVector& types) {
  DataTypeVector out;
  for (DataType t : types) out.push_back(BaseType(t));
  return out;
}

absl::Status CheckTypes(const Node& n, absl::string_view what,
                        absl::string_view function_name,
                        const DataTypeVector& want, const DataTypeVector& got) {
  if (BaseTypes(want) == BaseTypes(got)) return absl::OkStatus();
  return NodeError(n, absl::StrCat(what, " of function '", function_name,
                                   "' are ", TypesString(got),
                                   " but the node has ", TypesString(want)));
}

DataTypeVector Slice(const DataTypeVector& v, size_t from) {
  return DataTypeVector(v.begin() + std::min(from, v.size()), v.end());
}

// ---- Calls ----------------------------------------------------------------

// The gradient functions SymbolicGradient nodes of one lowering built, by
// function and attrs: a function called several times in a graph has one
// SymbolicGradient per call.
using GradientCache = absl::flat_hash_map<std::string, FunctionBody>;

// "name" and the attrs, serialized deterministically (sorted by name), as a
// GradientCache key.
std::string GradientKey(const std::string& function,
                        const FunctionAttrs& attrs) {
  std::vector<std::string> names;
  for (const auto& [name, value] : attrs) names.push_back(name);
  std::sort(names.begin(), names.end());
  std::string key = function;
  for (const std::string& name : names) {
    std::string bytes;
    {
      google::protobuf::io::StringOutputStream raw(&bytes);
      google::protobuf::io::CodedOutputStream out(&raw);
      out.SetSerializationDeterministic(true);
      attrs.at(name).SerializeToCodedStream(&out);
    }
    absl::StrAppend(&key, "\n", name, "=", bytes.size(), ":", bytes);
  }
  return key;
}

absl::Status LowerCall(const FunctionLibrary& library, Graph* g, Node* n,
                       GradientCache* gradients) {
  std::string function;
  FunctionAttrs attrs;
  if (IsCallOp(n->type_string()) || IsSymbolicGradientOp(n->type_string())) {
    DFX_ASSIGN_OR_RETURN(const NameAttrList* f, FuncAttr(*n, "f"));
    function = f->name();
    attrs = f->attr();
  } else {
    function = n->type_string();
    attrs = n->def().attr();
  }
  FunctionBody body;
  if (IsSymbolicGradientOp(n->type_string())) {
    // The call runs the gradient of `function` instead, built from the
    // per-op gradients once per function and attrs in a lowering.
    const std::string key = GradientKey(function, attrs);
    auto it = gradients->find(key);
    if (it == gradients->end()) {
      DFX_ASSIGN_OR_RETURN(
          FunctionBody forward,
          InstantiateFor(library, *n, "the call", function, attrs));
      absl::StatusOr<FunctionBody> grad =
          SymbolicGradientBody(library, forward);
      if (!grad.ok()) {
        return absl::Status(
            grad.status().code(),
            absl::StrCat(NodePrefix(n->name(), n->type_string()),
                         grad.status().message()));
      }
      it = gradients->emplace(key, *std::move(grad)).first;
    }
    body = it->second;
  } else {
    DFX_ASSIGN_OR_RETURN(
        body, InstantiateFor(library, *n, "the call", function, attrs));
  }
  DFX_RETURN_IF_ERROR(CheckTypes(*n, "the arguments", function,
                                 n->input_types(), body.arg_types));
  DFX_RETURN_IF_ERROR(CheckTypes(*n, "the results", function,
                                 n->output_types(), body.ret_types));
  const std::string context = NodePrefix(n->name(), n->type_string());
  const Detached d = Detach(g, n);
  Node* entry = nullptr;
  if (!d.control_inputs.empty()) {
    DFX_ASSIGN_OR_RETURN(
        entry, AddLoweredNode(g, absl::StrCat(d.name, "/input_control_node"),
                              "NoOp", d.device, {}, {}, d.control_inputs));
  }
  DFX_ASSIGN_OR_RETURN(Inlined inlined,
                       InlineBody(g, body, d.name, d.device, d.inputs, entry,
                                  absl::StrCat(context, "function '", function,
                                               "': ")));
  DFX_ASSIGN_OR_RETURN(Node * named,
                       AddNamedOutput(g, d, inlined.outputs, inlined.done));
  Rewire(g, d, inlined.outputs, named);
  return absl::OkStatus();
}

// ---- If and Case ----------------------------------------------------------

// Lowers a conditional with `branches` (If: else then then, matching the
// Switch's outputs false / true; Case: by index) selected by input 0.
absl::Status LowerConditional(Graph* g, Node* n,
                              const std::vector<std::string>& branch_names,
                              const std::vector<FunctionBody>& bodies,
                              bool is_if) {
  const std::string context = NodePrefix(n->name(), n->type_string());
  const Detached d = Detach(g, n);
  const Output selector = d.inputs[0];
  const int num = static_cast<int>(bodies.size());
  const DataType selector_type = is_if ? DT_BOOL : DT_INT32;
  auto switch_of = [&](const std::string& base, Output data,
                       DataType type, const std::string& device,
                       std::vector<Node*> controls) {
    if (is_if) {
      return AddLoweredNode(g, base, "Switch", device,
                            {{"T", TypeAttr(type)}}, {data, selector},
                            std::move(controls));
    }
    return AddLoweredNode(g, base, "_SwitchN", device,
                          {{"T", TypeAttr(type)}, {"num_outs", IntAttr(num)}},
                          {data, selector}, std::move(controls));
  };
  DFX_ASSIGN_OR_RETURN(
      Node * switch_pred,
      switch_of(absl::StrCat(d.name, is_if ? "/switch_pred" : "/branch_index"),
                selector, selector_type, d.device, d.control_inputs));
  std::vector<Node*> pivots(num);
  for (int k = 0; k < num; ++k) {
    const std::string base =
        is_if ? absl::StrCat(d.name, k == 0 ? "/pivot_f" : "/pivot_t")
              : absl::StrCat(d.name, "/pivot_", k);
    DFX_ASSIGN_OR_RETURN(
        pivots[k], AddLoweredNode(g, base, "Identity", d.device,
                                  {{"T", TypeAttr(selector_type)}},
                                  {{switch_pred, k}}));
  }
  std::vector<Node*> switches;
  for (size_t i = 1; i < d.inputs.size(); ++i) {
    const Output& in = d.inputs[i];
    DFX_ASSIGN_OR_RETURN(
        Node * s, switch_of(absl::StrCat(d.name, "/input_", i - 1), in,
                            BaseType(in.first->output_type(in.second)),
                            in.first->requested_device(), {}));
    switches.push_back(s);
  }
  std::vector<Inlined> inlined(num);
  std::vector<Node*> dones;
  for (int k = 0; k < num; ++k) {
    std::vector<Output> inputs;
    for (Node* s : switches) inputs.emplace_back(s, k);
    const std::string prefix =
        is_if ? absl::StrCat(d.name, k == 0 ? "/else" : "/then")
              : absl::StrCat(d.name, "/branch_", k);
    DFX_ASSIGN_OR_RETURN(
        inlined[k],
        InlineBody(g, bodies[k], prefix, d.device, inputs, pivots[k],
                   absl::StrCat(context, "function '", branch_names[k],
                                "': ")));
    dones.push_back(inlined[k].done);
  }
  const size_t num_outputs = bodies[0].ret_types.size();
  std::vector<Output> merges;
  for (size_t i = 0; i < num_outputs; ++i) {
    std::vector<Output> inputs;
    for (int k = 0; k < num; ++k) inputs.push_back(inlined[k].outputs[i]);
    DFX_ASSIGN_OR_RETURN(
        Node * m,
        AddLoweredNode(g, absl::StrCat(d.name, "/output_", i), "Merge",
                       d.device,
                       {{"T", TypeAttr(BaseType(bodies[0].ret_types[i]))},
                        {"N", IntAttr(num)}},
                       inputs));
    merges.emplace_back(m, 0);
  }
  // Runs once the taken branch has run (the other branch's nodes are dead;
  // Merge waits for its control inputs, dead or alive).
  std::vector<Output> pivot_outputs;
  for (Node* p : pivots) pivot_outputs.emplace_back(p, 0);
  DFX_ASSIGN_OR_RETURN(
      Node * executed,
      AddLoweredNode(g, absl::StrCat(d.name, "/branch_executed"), "Merge",
                     d.device,
                     {{"T", TypeAttr(selector_type)}, {"N", IntAttr(num)}},
                     pivot_outputs, dones));
  DFX_RETURN_IF_ERROR(AddNamedOutput(g, d, merges, executed).status());
  Rewire(g, d, merges, executed);
  return absl::OkStatus();
}

absl::Status LowerIf(const FunctionLibrary& library, Graph* g, Node* n) {
  const AttrValue* tcond = FindNodeAttr(n->def(), "Tcond");
  if (tcond == nullptr || tcond->type() != DT_BOOL) {
    return NodeError(
        *n,
        absl::StrCat("the predicate is ",
                     DataTypeString(n->input_type(0)),
                     "; dfx lowers If only on a bool predicate"));
  }
  DFX_ASSIGN_OR_RETURN(const NameAttrList* then_f, FuncAttr(*n, "then_branch"));
  DFX_ASSIGN_OR_RETURN(const NameAttrList* else_f, FuncAttr(*n, "else_branch"));
  std::vector<FunctionBody> bodies;
  std::vector<std::string> names;
  // Index 0 is the Switch's false output: else first.
  for (const auto& [attr, f] :
       {std::pair<const char*, const NameAttrList*>{"else_branch", else_f},
        {"then_branch", then_f}}) {
    DFX_ASSIGN_OR_RETURN(FunctionBody body,
                         InstantiateFor(library, *n, attr, f->name(), f->attr()));
    DFX_RETURN_IF_ERROR(CheckTypes(*n, absl::StrCat(attr, ": the arguments"),
                                   f->name(), Slice(n->input_types(), 1),
                                   body.arg_types));
    DFX_RETURN_IF_ERROR(CheckTypes(*n, absl::StrCat(attr, ": the results"),
                                   f->name(), n->output_types(),
                                   body.ret_types));
    bodies.push_back(std::move(body));
    names.push_back(f->name());
  }
  return LowerConditional(g, n, names, bodies, /*is_if=*/true);
}

absl::Status LowerCase(const FunctionLibrary& library, Graph* g, Node* n) {
  const AttrValue* branches = FindNodeAttr(n->def(), "branches");
  if (branches == nullptr || branches->list().func_size() == 0) {
    return NodeError(*n, "attr 'branches' names no function");
  }
  std::vector<FunctionBody> bodies;
  std::vector<std::string> names;
  for (int k = 0; k < branches->list().func_size(); ++k) {
    const NameAttrList& f = branches->list().func(k);
    const std::string what = absl::StrCat("branch ", k);
    DFX_ASSIGN_OR_RETURN(FunctionBody body,
                         InstantiateFor(library, *n, what, f.name(), f.attr()));
    DFX_RETURN_IF_ERROR(CheckTypes(*n, absl::StrCat(what, ": the arguments"),
                                   f.name(), Slice(n->input_types(), 1),
                                   body.arg_types));
    DFX_RETURN_IF_ERROR(CheckTypes(*n, absl::StrCat(what, ": the results"),
                                   f.name(), n->output_types(),
                                   body.ret_types));
    bodies.push_back(std::move(body));
    names.push_back(f.name());
  }
  return LowerConditional(g, n, names, bodies, /*is_if=*/false);
}

// The TF1 frame of a lowered loop (LowerWhile, LowerFor), named after the
// replaced node: per loop variable an Enter, and for every variable but a
// resource (which enters as a constant: its handle does not change) a
// Merge of the Enter and the NextIteration, a Switch on the LoopCond and
// an Exit. Built in three steps around the condition and the body the
// caller inlines: Open, Switch, Close.
class LoopFrame {
 public:
  // Enters and Merges of `inputs` (of `types`); every Enter waits for
  // `control_inputs` when it is not null.
  static absl::StatusOr<LoopFrame> Open(Graph* g, const Detached& d,
                                        DataTypeVector types,
                                        std::vector<Output> inputs,
                                        int64_t parallel_iterations,
                                        Node* control_inputs) {
    LoopFrame f(g, d, std::move(types), std::move(inputs), parallel_iterations,
                control_inputs);
    const size_t num = f.types_.size();
    f.enters_.resize(num);
    f.merges_.assign(num, nullptr);
    f.switches_.assign(num, nullptr);
    for (size_t i = 0; i < num; ++i) {
      DFX_ASSIGN_OR_RETURN(f.enters_[i],
                           f.Enter(absl::StrCat("enter_", i), f.types_[i],
                                   f.inputs_[i], f.is_resource(i)));
      if (f.is_resource(i)) continue;
      // Input 1 comes from the NextIteration, added by Close.
      DFX_ASSIGN_OR_RETURN(
          f.merges_[i],
          AddLoweredNode(g, absl::StrCat(d.name, "/merge_", i), "Merge",
                         f.inputs_[i].first->requested_device(),
                         {{"T", TypeAttr(f.types_[i])}, {"N", IntAttr(2)}},
                         {{f.enters_[i], 0}, {nullptr, 0}}));
    }
    return f;
  }

  // An Enter of `in` into the frame, named "<loop>/<base>".
  absl::StatusOr<Node*> Enter(const std::string& base, DataType t,
                              const Output& in, bool constant) {
    return AddLoweredNode(
        g_, absl::StrCat(d_->name, "/", base), "Enter",
        in.first->requested_device(),
        {{"T", TypeAttr(t)},
         {"frame_name", StringAttr(d_->name)},
         {"is_constant", BoolAttr(constant)},
         {"parallel_iterations", IntAttr(parallel_iterations_)}},
        {in}, {control_inputs_});
  }

  // What the condition reads: each variable's Merge (a resource's Enter).
  std::vector<Output> CondInputs() const {
    std::vector<Output> out;
    for (size_t i = 0; i < types_.size(); ++i) {
      out.emplace_back(is_resource(i) ? enters_[i] : merges_[i], 0);
    }
    return out;
  }
  Output Merged(size_t i) const { return {merges_[i], 0}; }

  // The LoopCond of `pred` and the Switches on it. Returns the node the
  // body's nodes without inputs wait for (an Identity of variable
  // `carried`'s true branch), which puts them in the loop's frame and
  // iteration and kills them when the loop ends.
  absl::StatusOr<Node*> Switch(const Output& pred, size_t carried) {
    DFX_ASSIGN_OR_RETURN(Node * loop_cond,
                         AddLoweredNode(g_, absl::StrCat(d_->name, "/LoopCond"),
                                        "LoopCond", d_->device, {}, {pred}));
    for (size_t i = 0; i < types_.size(); ++i) {
      if (is_resource(i)) continue;
      DFX_ASSIGN_OR_RETURN(
          switches_[i],
          AddLoweredNode(g_, absl::StrCat(d_->name, "/switch_", i), "Switch",
                         merges_[i]->requested_device(),
                         {{"T", TypeAttr(types_[i])}},
                         {{merges_[i], 0}, {loop_cond, 0}}));
    }
    return AddLoweredNode(g_, absl::StrCat(d_->name, "/loop_body_control"),
                          "Identity", d_->device,
                          {{"T", TypeAttr(types_[carried])}},
                          {{switches_[carried], 1}});
  }

  // What the body reads: each variable's true branch (a resource's Enter).
  std::vector<Output> BodyInputs() const {
    std::vector<Output> out;
    for (size_t i = 0; i < types_.size(); ++i) {
      out.push_back(is_resource(i) ? Output{enters_[i], 0}
                                   : Output{switches_[i], 1});
    }
    return out;
  }

  // NextIterations of `next` (one per variable; a resource's is not read)
  // into the Merges, each after `done`, and the Exits. Returns each
  // variable's value after the loop (its Exit; a resource's input) and a
  // LoopExecuted NoOp that runs after every Exit.
  absl::StatusOr<std::pair<std::vector<Output>, Node*>> Close(
      const std::vector<Output>& next, Node* done) {
    std::vector<Output> outputs;
    std::vector<Node*> exits;
    for (size_t i = 0; i < types_.size(); ++i) {
      if (is_resource(i)) {
        outputs.push_back(inputs_[i]);
        continue;
      }
      DFX_ASSIGN_OR_RETURN(
          Node * exit,
          AddLoweredNode(g_, absl::StrCat(d_->name, "/exit_", i), "Exit",
                         switches_[i]->requested_device(),
                         {{"T", TypeAttr(types_[i])}}, {{switches_[i], 0}}));
      exits.push_back(exit);
      outputs.emplace_back(exit, 0);
      DFX_ASSIGN_OR_RETURN(
          Node * next_iteration,
          AddLoweredNode(g_, absl::StrCat(d_->name, "/next_iteration_", i),
                         "NextIteration", merges_[i]->requested_device(),
                         {{"T", TypeAttr(types_[i])}}, {next[i]}, {done}));
      g_->AddEdge(next_iteration, 0, merges_[i], 1);
    }
    DFX_ASSIGN_OR_RETURN(
        Node * executed,
        AddLoweredNode(g_, absl::StrCat(d_->name, "/LoopExecuted"), "NoOp",
                       d_->device, {}, {}, exits));
    return std::make_pair(std::move(outputs), executed);
  }

 private:
  LoopFrame(Graph* g, const Detached& d, DataTypeVector types,
            std::vector<Output> inputs, int64_t parallel_iterations,
            Node* control_inputs)
      : g_(g),
        d_(&d),
        types_(std::move(types)),
        inputs_(std::move(inputs)),
        parallel_iterations_(parallel_iterations),
        control_inputs_(control_inputs) {}

  bool is_resource(size_t i) const { return types_[i] == DT_RESOURCE; }

  Graph* g_;
  const Detached* d_;
  DataTypeVector types_;
  std::vector<Output> inputs_;
  int64_t parallel_iterations_;
  Node* control_inputs_;
  std::vector<Node*> enters_, merges_, switches_;
};

// A NoOp after the replaced node's control inputs, which the loop's Enters
// wait for (null when there are none).
absl::StatusOr<Node*> LoopControlInputs(Graph* g, const Detached& d) {
  if (d.control_inputs.empty()) return nullptr;
  return AddLoweredNode(g, absl::StrCat(d.name, "/LoopControlInputs"), "NoOp",
                        d.device, {}, {}, d.control_inputs);
}

// ---- While ----------------------------------------------------------------

absl::Status LowerWhile(const FunctionLibrary& library, Graph* g, Node* n) {
  DFX_ASSIGN_OR_RETURN(const NameAttrList* cond_f, FuncAttr(*n, "cond"));
  DFX_ASSIGN_OR_RETURN(const NameAttrList* body_f, FuncAttr(*n, "body"));
  int64_t parallel_iterations = 10;
  if (FindNodeAttr(n->def(), "parallel_iterations") != nullptr) {
    DFX_RETURN_IF_ERROR(
        GetNodeAttr(n->def(), "parallel_iterations", &parallel_iterations));
  }
  if (parallel_iterations < 1) {
    return NodeError(*n, absl::StrCat("parallel_iterations must be at least "
                                      "1, got ",
                                      parallel_iterations));
  }
  const DataTypeVector types = n->input_types();
  DFX_ASSIGN_OR_RETURN(
      FunctionBody cond,
      InstantiateFor(library, *n, "cond", cond_f->name(), cond_f->attr()));
  DFX_ASSIGN_OR_RETURN(
      FunctionBody body,
      InstantiateFor(library, *n, "body", body_f->name(), body_f->attr()));
  DFX_RETURN_IF_ERROR(CheckTypes(*n, "cond: the arguments", cond_f->name(),
                                 types, cond.arg_types));
  if (BaseTypes(cond.ret_types) != DataTypeVector{DT_BOOL}) {
    return NodeError(*n, absl::StrCat("cond function '", cond_f->name(),
                                      "' returns ",
                                      TypesString(cond.ret_types),
                                      " instead of one bool"));
  }
  DFX_RETURN_IF_ERROR(CheckTypes(*n, "body: the arguments", body_f->name(),
                                 types, body.arg_types));
  DFX_RETURN_IF_ERROR(CheckTypes(*n, "body: the results", body_f->name(),
                                 types, body.ret_types));
  int first_carried = -1;
  for (size_t i = 0; i < types.size(); ++i) {
    if (types[i] != DT_RESOURCE) {
      first_carried = static_cast<int>(i);
      break;
    }
  }
  if (first_carried < 0) {
    return NodeError(*n, "a While needs at least one loop variable that is "
                         "not a resource");
  }
  const std::string context = NodePrefix(n->name(), n->type_string());
  // Copies: the attrs go with the node.
  const std::string cond_name = cond_f->name();
  const std::string body_name = body_f->name();
  const Detached d = Detach(g, n);
  DFX_ASSIGN_OR_RETURN(Node * control_inputs, LoopControlInputs(g, d));
  DFX_ASSIGN_OR_RETURN(LoopFrame frame,
                       LoopFrame::Open(g, d, types, d.inputs,
                                       parallel_iterations, control_inputs));
  DFX_ASSIGN_OR_RETURN(
      Inlined cond_inlined,
      InlineBody(g, cond, absl::StrCat(d.name, "/cond"), d.device,
                 frame.CondInputs(), frame.Merged(first_carried).first,
                 absl::StrCat(context, "cond function '", cond_name, "': ")));
  DFX_ASSIGN_OR_RETURN(Node * body_control,
                       frame.Switch(cond_inlined.outputs[0], first_carried));
  DFX_ASSIGN_OR_RETURN(
      Inlined body_inlined,
      InlineBody(g, body, absl::StrCat(d.name, "/body"), d.device,
                 frame.BodyInputs(), body_control,
                 absl::StrCat(context, "body function '", body_name, "': ")));
  DFX_ASSIGN_OR_RETURN(auto closed,
                       frame.Close(body_inlined.outputs, body_inlined.done));
  const auto& [outputs, executed] = closed;
  DFX_RETURN_IF_ERROR(AddNamedOutput(g, d, outputs, executed).status());
  Rewire(g, d, outputs, executed);
  return absl::OkStatus();
}

// ---- For ------------------------------------------------------------------

// For(start, limit, delta, inputs) with body(i, inputs...) -> inputs: a loop
// over (iter, inputs...), built as LowerWhile builds one, whose condition is
// _ForLoopCond(iter, limit, delta) and whose iter goes up by delta after
// each body. "<for>/start" (_ForLoopStart) fails the step with TensorFlow's
// InvalidArgument for a start/limit/delta its ForOp refuses; limit and delta
// enter the frame as constants. One iteration at a time
// (parallel_iterations 1), as TensorFlow's kernel runs the body.
absl::Status LowerFor(const FunctionLibrary& library, Graph* g, Node* n) {
  DFX_ASSIGN_OR_RETURN(const NameAttrList* body_f, FuncAttr(*n, "body"));
  const DataTypeVector types = Slice(n->input_types(), 3);
  DFX_ASSIGN_OR_RETURN(
      FunctionBody body,
      InstantiateFor(library, *n, "body", body_f->name(), body_f->attr()));
  DataTypeVector body_args = {DT_INT32};
  body_args.insert(body_args.end(), types.begin(), types.end());
  DFX_RETURN_IF_ERROR(CheckTypes(*n, "body: the arguments", body_f->name(),
                                 body_args, body.arg_types));
  if (body.ret_types.size() > types.size()) {
    // TensorFlow's ForOp: InvalidArgument once the body has run.
    return NodeError(*n, absl::StrCat("For loop body returned ",
                                      body.ret_types.size(),
                                      " arguments. Expected: ", types.size()));
  }
  DFX_RETURN_IF_ERROR(CheckTypes(*n, "body: the results", body_f->name(),
                                 types, body.ret_types));
  const std::string context = NodePrefix(n->name(), n->type_string());
  const std::string body_name = body_f->name();
  const Detached d = Detach(g, n);
  DFX_ASSIGN_OR_RETURN(Node * control_inputs, LoopControlInputs(g, d));
  // The loop starts once every input is there, as TensorFlow's kernel
  // does (the inputs are _ForLoopStart's too): a resource read in the body
  // then follows what made the other inputs (a variable's initializer, say).
  DFX_ASSIGN_OR_RETURN(
      Node * start,
      AddLoweredNode(g, absl::StrCat(d.name, "/start"), "_ForLoopStart",
                     d.device, {{"T", TypeListAttr(types)}}, d.inputs,
                     {control_inputs}));
  // Loop variable 0 is the iteration counter; 1.. are the inputs.
  DataTypeVector vtypes = {DT_INT32};
  vtypes.insert(vtypes.end(), types.begin(), types.end());
  std::vector<Output> loop_inputs = {{start, 0}};
  loop_inputs.insert(loop_inputs.end(), d.inputs.begin() + 3, d.inputs.end());
  DFX_ASSIGN_OR_RETURN(
      LoopFrame frame,
      LoopFrame::Open(g, d, vtypes, loop_inputs, /*parallel_iterations=*/1,
                      control_inputs));
  DFX_ASSIGN_OR_RETURN(Node * limit,
                       frame.Enter("enter_limit", DT_INT32, d.inputs[1], true));
  DFX_ASSIGN_OR_RETURN(Node * delta,
                       frame.Enter("enter_delta", DT_INT32, d.inputs[2], true));
  DFX_ASSIGN_OR_RETURN(
      Node * go_on,
      AddLoweredNode(g, absl::StrCat(d.name, "/cond"), "_ForLoopCond", d.device,
                     {}, {frame.Merged(0), {limit, 0}, {delta, 0}}));
  DFX_ASSIGN_OR_RETURN(Node * body_control, frame.Switch({go_on, 0}, 0));
  const std::vector<Output> body_inputs = frame.BodyInputs();
  DFX_ASSIGN_OR_RETURN(
      Inlined body_inlined,
      InlineBody(g, body, absl::StrCat(d.name, "/body"), d.device, body_inputs,
                 body_control,
                 absl::StrCat(context, "body function '", body_name, "': ")));
  DFX_ASSIGN_OR_RETURN(
      Node * next_iter,
      AddLoweredNode(g, absl::StrCat(d.name, "/next_iter"), "AddV2", d.device,
                     {{"T", TypeAttr(DT_INT32)}},
                     {body_inputs[0], {delta, 0}}));
  std::vector<Output> next = {{next_iter, 0}};
  next.insert(next.end(), body_inlined.outputs.begin(),
              body_inlined.outputs.end());
  DFX_ASSIGN_OR_RETURN(auto closed, frame.Close(next, body_inlined.done));
  // The iteration counter's Exit is no output; LoopExecuted waits for it.
  const std::vector<Output> outputs(closed.first.begin() + 1,
                                    closed.first.end());
  DFX_RETURN_IF_ERROR(AddNamedOutput(g, d, outputs, closed.second).status());
  Rewire(g, d, outputs, closed.second);
  return absl::OkStatus();
}

absl::Status LowerNode(const FunctionLibrary& library, Graph* g, Node* n,
                       GradientCache* gradients) {
  const std::string& op = n->type_string();
  if (IsIfOp(op)) return LowerIf(library, g, n);
  if (IsCaseOp(op)) return LowerCase(library, g, n);
  if (IsWhileOp(op)) return LowerWhile(library, g, n);
  if (IsForOp(op)) return LowerFor(library, g, n);
  return LowerCall(library, g, n, gradients);
}

}  // namespace

bool IsFunctionalNode(const FunctionLibrary& library, const Node& node) {
  const std::string& op = node.type_string();
  return IsCallOp(op) || IsIfOp(op) || IsCaseOp(op) || IsWhileOp(op) ||
         IsForOp(op) || IsSymbolicGradientOp(op) || library.Contains(op);
}

absl::Status LowerFunctionalOps(const FunctionLibrary& library, Graph* graph,
                                const LowerOptions& options) {
  // Each round lowers what the previous one inlined. The library has no
  // recursion, so nesting is at most one level per function.
  const int max_rounds = library.num_functions() + 2;
  GradientCache gradients;
  for (int round = 0;; ++round) {
    std::vector<int> ids;
    for (Node* n : graph->nodes()) {
      if (IsFunctionalNode(library, *n)) ids.push_back(n->id());
    }
    if (ids.empty()) return absl::OkStatus();
    if (round >= max_rounds) {
      const Node* n = graph->FindNodeId(ids[0]);
      return NodeError(*n, absl::StrCat("still not lowered after ", round,
                                        " rounds of lowering"));
    }
    for (int id : ids) {
      Node* n = graph->FindNodeId(id);
      if (n == nullptr) continue;
      const std::string name = n->name();
      DFX_RETURN_IF_ERROR(LowerNode(library, graph, n, &gradients));
      // A function that calls another twice, nested, doubles the graph per
      // level: stop before memory runs out.
      if (graph->num_nodes() > options.max_nodes) {
        return absl::InvalidArgumentError(absl::StrCat(
            "lowering node '", name, "' grows the graph beyond ",
            options.max_nodes, " nodes (nested function calls multiply)"));
      }
    }
  }
}

}  // namespace dfx
