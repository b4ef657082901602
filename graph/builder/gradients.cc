#include "graph/builder/gradients.h"

#include <deque>
#include <memory>
#include <utility>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "base/logging.h"
#include "base/status_macros.h"
#include "graph/builder/grad/grad.h"
#include "graph/builder/ops.h"
#include "graph/graph.h"
#include "graph/graph_def_import.h"
#include "graph/op_registry.h"

namespace dfx {

GradientRegistry* GradientRegistry::Global() {
  static GradientRegistry* registry = [] {
    auto* r = new GradientRegistry;
    DFX_CHECK_OK(RegisterStandardGradients(r));
    return r;
  }();
  return registry;
}

absl::Status GradientRegistry::Register(absl::string_view op, GradFunc fn) {
  if (fn == nullptr) {
    return absl::InvalidArgumentError(absl::StrCat(
        "gradient of op '", op, "': a null function (use RegisterNoGradient)"));
  }
  absl::MutexLock lock(&mu_);
  if (!fns_.try_emplace(std::string(op), std::move(fn)).second) {
    return absl::AlreadyExistsError(
        absl::StrCat("a gradient of op '", op, "' is already registered"));
  }
  return absl::OkStatus();
}

absl::Status GradientRegistry::RegisterNoGradient(absl::string_view op) {
  absl::MutexLock lock(&mu_);
  if (!fns_.try_emplace(std::string(op), nullptr).second) {
    return absl::AlreadyExistsError(
        absl::StrCat("a gradient of op '", op, "' is already registered"));
  }
  return absl::OkStatus();
}

absl::StatusOr<GradFunc> GradientRegistry::Lookup(absl::string_view op) const {
  absl::MutexLock lock(&mu_);
  auto it = fns_.find(op);
  if (it == fns_.end()) {
    return absl::NotFoundError(
        absl::StrCat("No gradient defined for op: ", op));
  }
  return it->second;
}

namespace {

bool IsDifferentiable(DataType t) {
  switch (BaseType(t)) {
    case DT_HALF:
    case DT_BFLOAT16:
    case DT_FLOAT:
    case DT_DOUBLE:
      return true;
    default:
      return false;
  }
}

bool IsComplex(DataType t) {
  return BaseType(t) == DT_COMPLEX64 || BaseType(t) == DT_COMPLEX128;
}

// One AddSymbolicGradients call: backprop over a snapshot of the scope's
// graph, imported to know every node's input and output types. Nodes are
// visited in reverse topological order of the subgraph that lies both
// downstream of an input and upstream of an output (the "path"); a node is
// visited once every consumer on the path has sent it a gradient (possibly
// NoGradient), so each of its outputs' gradients is summed exactly once.
class GradientBuilder {
 public:
  GradientBuilder(const Scope& grads, absl::Span<const Output> outputs,
                  absl::Span<const Output> inputs,
                  absl::Span<const Output> grad_inputs)
      : grads_(grads),
        outputs_(outputs),
        inputs_(inputs),
        grad_inputs_(grad_inputs) {}

  absl::Status Build(std::vector<Output>* grad_outputs);

 private:
  struct Endpoint {
    Node* node;
    int index;
  };

  absl::StatusOr<Endpoint> Resolve(const Output& output,
                                   absl::string_view what) const;
  void MarkPath(const std::vector<Endpoint>& outs,
                const std::vector<Endpoint>& ins);
  absl::Status BackpropAlongEdge(Node* src, int src_output, Output grad);
  Output SumGradients(std::vector<Output>& grads);
  absl::Status Visit(Node* n);

  const Scope grads_;
  absl::Span<const Output> outputs_;
  absl::Span<const Output> inputs_;
  absl::Span<const Output> grad_inputs_;

  std::unique_ptr<Graph> graph_;
  std::vector<bool> on_path_;  // by node id
  std::vector<int> pending_;   // by node id: gradients still to come
  std::vector<bool> visited_;  // by node id
  // Gradients received, by node id and output index.
  std::vector<std::vector<std::vector<Output>>> backprops_;
  std::deque<Node*> ready_;
  // For each requested input endpoint (node id, index): positions in inputs_.
  absl::flat_hash_map<std::pair<int, int>, std::vector<size_t>> requested_;
  std::vector<Output> results_;
};

absl::StatusOr<GradientBuilder::Endpoint> GradientBuilder::Resolve(
    const Output& output, absl::string_view what) const {
  if (!output.valid()) {
    return absl::InvalidArgumentError(
        absl::StrCat("AddSymbolicGradients: ", what,
                     " is not a valid Output (built on a failed scope?)"));
  }
  Node* node = graph_->FindNode(output.node_name());
  if (node == nullptr) {
    return absl::InvalidArgumentError(
        absl::StrCat("AddSymbolicGradients: ", what, " '", output.ToString(),
                     "' is not a node of this scope's graph"));
  }
  if (output.index() < 0 || output.index() >= node->num_outputs()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "AddSymbolicGradients: ", what, " '", output.ToString(), "': node '",
        node->name(), "' has ", node->num_outputs(), " output(s)"));
  }
  return Endpoint{node, output.index()};
}

void GradientBuilder::MarkPath(const std::vector<Endpoint>& outs,
                               const std::vector<Endpoint>& ins) {
  const int n = graph_->num_node_ids();
  // Upstream of an output, along data edges.
  std::vector<bool> upstream(n, false);
  std::deque<Node*> queue;
  for (const Endpoint& e : outs) {
    if (!upstream[e.node->id()]) {
      upstream[e.node->id()] = true;
      queue.push_back(e.node);
    }
  }
  while (!queue.empty()) {
    Node* node = queue.front();
    queue.pop_front();
    for (const Edge* e : node->in_edges()) {
      if (e->IsControlEdge() || upstream[e->src->id()]) continue;
      upstream[e->src->id()] = true;
      queue.push_back(e->src);
    }
  }
  // Of those, downstream of an input.
  on_path_.assign(n, false);
  for (const Endpoint& e : ins) {
    if (upstream[e.node->id()] && !on_path_[e.node->id()]) {
      on_path_[e.node->id()] = true;
      queue.push_back(e.node);
    }
  }
  while (!queue.empty()) {
    Node* node = queue.front();
    queue.pop_front();
    for (const Edge* e : node->out_edges()) {
      if (e->IsControlEdge()) continue;
      const int dst = e->dst->id();
      if (!upstream[dst] || on_path_[dst]) continue;
      on_path_[dst] = true;
      queue.push_back(e->dst);
    }
  }
  // A node on the path waits for one gradient per consumer edge on the path
  // and one per entry of `outputs` naming it.
  pending_.assign(n, 0);
  backprops_.assign(n, {});
  for (Node* node : graph_->nodes()) {
    if (!on_path_[node->id()]) continue;
    backprops_[node->id()].resize(node->num_outputs());
    for (const Edge* e : node->out_edges()) {
      if (!e->IsControlEdge() && on_path_[e->dst->id()]) {
        ++pending_[node->id()];
      }
    }
  }
  for (const Endpoint& e : outs) {
    if (on_path_[e.node->id()]) ++pending_[e.node->id()];
  }
}

absl::Status GradientBuilder::BackpropAlongEdge(Node* src, int src_output,
                                                Output grad) {
  if (!on_path_[src->id()]) return absl::OkStatus();
  const DataType type = src->output_type(src_output);
  if (grad.valid() && !IsDifferentiable(type)) {
    if (IsComplex(type)) {
      return absl::UnimplementedError(absl::StrCat(
          "AddSymbolicGradients: gradients of complex tensors are not "
          "supported (output ",
          src_output, " of node '", src->name(), "' is ", DataTypeString(type),
          ")"));
    }
    grad = NoGradient();  // integer, bool, string ... edges carry none
  }
  backprops_[src->id()][src_output].push_back(std::move(grad));
  if (--pending_[src->id()] == 0) ready_.push_back(src);
  return absl::OkStatus();
}

Output GradientBuilder::SumGradients(std::vector<Output>& grads) {
  std::vector<Output> valid;
  for (Output& g : grads) {
    if (g.valid()) valid.push_back(std::move(g));
  }
  grads.clear();
  if (valid.empty()) return NoGradient();
  if (valid.size() == 1) return valid[0];
  return ops::AddN(grads_, valid);
}

absl::Status GradientBuilder::Visit(Node* n) {
  visited_[n->id()] = true;
  std::vector<Output> dy(n->num_outputs());
  bool any = false;
  for (int j = 0; j < n->num_outputs(); ++j) {
    dy[j] = SumGradients(backprops_[n->id()][j]);
    any = any || dy[j].valid();
    auto it = requested_.find({n->id(), j});
    if (it != requested_.end()) {
      for (size_t k : it->second) results_[k] = dy[j];
    }
  }
  // The backprop stops where no input comes from the path.
  std::vector<const Edge*> in(n->num_inputs(), nullptr);
  bool feeds_from_path = false;
  for (int i = 0; i < n->num_inputs(); ++i) {
    in[i] = n->input_edge(i);
    if (in[i] != nullptr && on_path_[in[i]->src->id()]) feeds_from_path = true;
  }
  if (!feeds_from_path) return absl::OkStatus();

  auto no_gradient = [&]() -> absl::Status {
    for (const Edge* e : in) {
      if (e == nullptr) continue;
      DFX_RETURN_IF_ERROR(
          BackpropAlongEdge(e->src, e->src_output, NoGradient()));
    }
    return absl::OkStatus();
  };
  if (!any) return no_gradient();

  absl::StatusOr<GradFunc> fn =
      GradientRegistry::Global()->Lookup(n->type_string());
  if (!fn.ok()) {
    return absl::Status(
        fn.status().code(),
        absl::StrCat(fn.status().message(), " (node '", n->name(), "')"));
  }
  if (*fn == nullptr) return no_gradient();

  std::vector<Output> op_inputs;
  std::vector<const NodeDef*> input_nodes;
  for (int i = 0; i < n->num_inputs(); ++i) {
    if (in[i] == nullptr) {
      return absl::InternalError(
          absl::StrCat("node '", n->name(), "' has no data input ", i));
    }
    op_inputs.emplace_back(in[i]->src->name(), in[i]->src_output,
                           BaseType(n->input_type(i)));
    input_nodes.push_back(&in[i]->src->def());
  }
  std::vector<Output> op_outputs;
  for (int j = 0; j < n->num_outputs(); ++j) {
    op_outputs.emplace_back(n->name(), j, n->output_type(j));
  }
  const GradOp op(&n->def(), std::move(op_inputs), std::move(input_nodes),
                  std::move(op_outputs));
  const Scope scope = grads_.NewSubScope(absl::StrCat(n->name(), "_grad"));
  std::vector<Output> dx;
  absl::Status s = (*fn)(scope, op, dy, &dx);
  if (s.ok()) s = scope.status();
  if (!s.ok()) {
    return absl::Status(s.code(),
                        absl::StrCat("gradient of node '", n->name(), "' (op ",
                                     n->type_string(), "): ", s.message()));
  }
  if (static_cast<int>(dx.size()) != n->num_inputs()) {
    return absl::InternalError(absl::StrCat(
        "gradient of node '", n->name(), "' (op ", n->type_string(),
        "): the gradient function returned ", dx.size(), " gradient(s) for ",
        n->num_inputs(), " input(s)"));
  }
  for (int i = 0; i < n->num_inputs(); ++i) {
    if (dx[i].valid() &&
        BaseType(dx[i].dtype()) != BaseType(n->input_type(i))) {
      return absl::InternalError(absl::StrCat(
          "gradient of node '", n->name(), "' (op ", n->type_string(),
          "): the gradient of input ", i, " is ", DataTypeString(dx[i].dtype()),
          " but the input is ", DataTypeString(n->input_type(i))));
    }
    DFX_RETURN_IF_ERROR(
        BackpropAlongEdge(in[i]->src, in[i]->src_output, std::move(dx[i])));
  }
  return absl::OkStatus();
}

absl::Status GradientBuilder::Build(std::vector<Output>* grad_outputs) {
  if (outputs_.size() != grad_inputs_.size()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "AddSymbolicGradients: ", outputs_.size(), " output(s) but ",
        grad_inputs_.size(), " gradient input(s); give one per output"));
  }
  GraphDef def;
  DFX_RETURN_IF_ERROR(grads_.ToGraphDef(&def));
  ImportOptions options;
  options.validate_shapes = false;
  absl::StatusOr<std::unique_ptr<Graph>> graph =
      ImportGraphDef(def, OpRegistry::Global(), options);
  if (!graph.ok()) {
    return absl::Status(graph.status().code(),
                        absl::StrCat("AddSymbolicGradients: the scope's graph "
                                     "does not import: ",
                                     graph.status().message()));
  }
  graph_ = *std::move(graph);

  std::vector<Endpoint> outs, ins;
  for (size_t i = 0; i < outputs_.size(); ++i) {
    DFX_ASSIGN_OR_RETURN(
        Endpoint e, Resolve(outputs_[i], absl::StrCat("outputs[", i, "]")));
    outs.push_back(e);
    DFX_ASSIGN_OR_RETURN(
        Endpoint g,
        Resolve(grad_inputs_[i], absl::StrCat("grad_inputs[", i, "]")));
    const DataType want = BaseType(e.node->output_type(e.index));
    const DataType got = BaseType(g.node->output_type(g.index));
    if (want != got) {
      return absl::InvalidArgumentError(absl::StrCat(
          "AddSymbolicGradients: grad_inputs[", i, "] is ", DataTypeString(got),
          " but outputs[", i, "] is ", DataTypeString(want)));
    }
  }
  for (size_t i = 0; i < inputs_.size(); ++i) {
    DFX_ASSIGN_OR_RETURN(Endpoint e,
                         Resolve(inputs_[i], absl::StrCat("inputs[", i, "]")));
    ins.push_back(e);
    requested_[{e.node->id(), e.index}].push_back(i);
  }
  results_.assign(inputs_.size(), NoGradient());

  MarkPath(outs, ins);
  visited_.assign(graph_->num_node_ids(), false);
  for (size_t i = 0; i < outs.size(); ++i) {
    DFX_RETURN_IF_ERROR(
        BackpropAlongEdge(outs[i].node, outs[i].index, grad_inputs_[i]));
  }
  while (!ready_.empty()) {
    Node* n = ready_.front();
    ready_.pop_front();
    DFX_RETURN_IF_ERROR(Visit(n));
  }
  for (Node* n : graph_->nodes()) {
    if (on_path_[n->id()] && !visited_[n->id()]) {
      return absl::UnimplementedError(absl::StrCat(
          "AddSymbolicGradients: node '", n->name(),
          "' lies on a cycle (a while loop?); gradients through cycles are "
          "not supported"));
    }
  }

  grad_outputs->clear();
  for (size_t i = 0; i < inputs_.size(); ++i) {
    Output g = results_[i];
    if (!g.valid()) g = ops::ZerosLike(grads_, inputs_[i]);
    grad_outputs->push_back(std::move(g));
  }
  return grads_.status();
}

absl::Status AddGradients(const Scope& grads, absl::Span<const Output> outputs,
                          absl::Span<const Output> inputs,
                          absl::Span<const Output> grad_inputs,
                          std::vector<Output>* grad_outputs) {
  if (!grads.ok()) return grads.status();
  GradientBuilder builder(grads, outputs, inputs, grad_inputs);
  return builder.Build(grad_outputs);
}

}  // namespace

absl::Status AddSymbolicGradients(const Scope& scope,
                                  absl::Span<const Output> outputs,
                                  absl::Span<const Output> inputs,
                                  absl::Span<const Output> grad_inputs,
                                  std::vector<Output>* grad_outputs) {
  if (!scope.ok()) return scope.status();
  return AddGradients(scope.NewSubScope("gradients"), outputs, inputs,
                      grad_inputs, grad_outputs);
}

absl::Status AddSymbolicGradients(const Scope& scope,
                                  absl::Span<const Output> outputs,
                                  absl::Span<const Output> inputs,
                                  std::vector<Output>* grad_outputs) {
  if (!scope.ok()) return scope.status();
  const Scope grads = scope.NewSubScope("gradients");
  std::vector<Output> ones;
  for (size_t i = 0; i < outputs.size(); ++i) {
    if (!outputs[i].valid()) {
      return absl::InvalidArgumentError(
          absl::StrCat("AddSymbolicGradients: outputs[", i,
                       "] is not a valid Output (built on a failed scope?)"));
    }
    ones.push_back(ops::OnesLike(grads, outputs[i]));
  }
  if (!grads.ok()) return grads.status();
  return AddGradients(grads, outputs, inputs, ones, grad_outputs);
}

}  // namespace dfx
