#include "graph/builder/gradients.h"

#include <algorithm>
#include <cstdint>
#include <deque>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "base/logging.h"
#include "base/status_macros.h"
#include "graph/builder/control_flow.h"
#include "graph/builder/grad/grad.h"
#include "graph/builder/ops.h"
#include "graph/control_flow.h"
#include "graph/graph.h"
#include "graph/graph_def_import.h"
#include "graph/node_def_util.h"
#include "graph/op_registry.h"
#include "proto/attr_value.pb.h"

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

// A node built by the loop gradient: its name and position in the scope.
struct Built {
  std::string name;
  int position = 0;
};

// Adds a node of `op` with `inputs` and `attrs` (on `device` when not empty)
// to `scope`'s graph.
absl::StatusOr<Built> AddRawNode(
    const Scope& scope, absl::string_view op, absl::string_view name,
    std::vector<std::string> inputs,
    std::vector<std::pair<std::string, AttrValue>> attrs,
    const std::string& device = "") {
  NodeDef node;
  node.set_name(scope.GetUniqueNameForOp(name));
  node.set_op(std::string(op));
  if (!device.empty()) node.set_device(device);
  for (std::string& input : inputs) node.add_input(std::move(input));
  for (auto& [attr, value] : attrs) {
    (*node.mutable_attr())[attr] = std::move(value);
  }
  Built built{node.name(), 0};
  DFX_RETURN_IF_ERROR(scope.AddNode(std::move(node)));
  built.position = scope.num_nodes() - 1;
  return built;
}

AttrValue TypeAttr(DataType t) {
  AttrValue v;
  v.set_type(t);
  return v;
}
AttrValue StringAttr(absl::string_view s) {
  AttrValue v;
  v.set_s(std::string(s));
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

std::string TensorString(const std::string& node, int index) {
  return index == 0 ? node : absl::StrCat(node, ":", index);
}

// One AddSymbolicGradients call: backprop over a snapshot of the scope's
// graph, imported to know every node's input and output types. Nodes are
// visited in reverse topological order of the subgraph that lies both
// downstream of an input and upstream of an output (the "path"); a node is
// visited once every consumer on the path has sent it a gradient (possibly
// NoGradient), so each of its outputs' gradients is summed exactly once.
//
// A while loop on the path (one frame of TF1 control flow, not nested in
// another) is visited as one node once all its Exits have their gradients:
// VisitLoop builds its backprop loop, whose body is the gradient of the
// forward body, built by a second GradientBuilder over the same graph
// restricted to that body (`allowed_`).
class GradientBuilder {
 public:
  GradientBuilder(const Scope& grads, absl::Span<const Output> outputs,
                  absl::Span<const Output> inputs,
                  absl::Span<const Output> grad_inputs)
      : grads_(grads),
        outputs_(outputs),
        inputs_(inputs),
        grad_inputs_(grad_inputs) {}

  // The gradient of one loop body: over `graph` (the outer builder's),
  // only through nodes in `allowed` (by node id); inputs no gradient reaches
  // get NoGradient.
  GradientBuilder(const Scope& grads, Graph* graph,
                  const std::vector<bool>* allowed,
                  absl::Span<const Output> outputs,
                  absl::Span<const Output> inputs,
                  absl::Span<const Output> grad_inputs)
      : grads_(grads),
        outputs_(outputs),
        inputs_(inputs),
        grad_inputs_(grad_inputs),
        graph_(graph),
        allowed_(allowed) {}

  absl::Status Build(std::vector<Output>* grad_outputs);

 private:
  struct Endpoint {
    Node* node;
    int index;
  };

  // A while loop on the path: the nodes of its frame (Enters into it
  // included), and per loop variable its Enter, Merge, Switch, Exit and
  // NextIteration (Exit may be null).
  struct Loop {
    int32_t frame = 0;
    std::vector<Node*> nodes;
    std::vector<Node*> enters, merges, switches, exits, nexts;
    std::vector<Node*> invariants;  // is_constant Enters
    Node* loop_cond = nullptr;
    int pending = 0;
  };

  absl::StatusOr<Endpoint> Resolve(const Output& output,
                                   absl::string_view what) const;
  void MarkPath(const std::vector<Endpoint>& outs,
                const std::vector<Endpoint>& ins);
  void CountPending(const std::vector<Endpoint>& outs);
  absl::Status FindLoops(const std::vector<Endpoint>& outs,
                         const std::vector<Endpoint>& ins);
  absl::Status AnalyzeLoop(Loop& loop) const;
  int LoopOf(const Node* n) const {
    return loop_of_.empty() ? -1 : loop_of_[n->id()];
  }
  // The frame a node belongs to: an Enter's is the frame it enters.
  int32_t NodeFrame(const Node* n) const;
  // The frame a node's outputs are in.
  int32_t OutFrame(const Node* n) const;
  std::string FrameName(int32_t f) const {
    return frames_.frames[f].name;
  }
  absl::Status BackpropAlongEdge(Node* src, int src_output, Output grad);
  Output SumGradients(std::vector<Output>& grads);
  absl::Status Visit(Node* n);
  absl::Status VisitLoop(Loop& loop);
  absl::Status BuildBackpropLoop(
      const Loop& loop, const std::vector<Output>& dy,
      absl::flat_hash_map<const Node*, Output>* enter_grads);

  const Scope grads_;
  absl::Span<const Output> outputs_;
  absl::Span<const Output> inputs_;
  absl::Span<const Output> grad_inputs_;

  std::unique_ptr<Graph> owned_graph_;
  Graph* graph_ = nullptr;
  const std::vector<bool>* allowed_ = nullptr;  // by node id; null: all
  std::vector<bool> on_path_;  // by node id
  std::vector<int> pending_;   // by node id: gradients still to come
  std::vector<bool> visited_;  // by node id
  // Gradients received, by node id and output index.
  std::vector<std::vector<std::vector<Output>>> backprops_;
  std::deque<Node*> ready_;
  // For each requested input endpoint (node id, index): positions in inputs_.
  absl::flat_hash_map<std::pair<int, int>, std::vector<size_t>> requested_;
  std::vector<Output> results_;
  // Loops: the graph's frames, and the loops on the path.
  GraphFrames frames_;
  absl::flat_hash_map<std::string, int32_t> frame_by_name_;
  std::vector<int> loop_of_;  // by node id: index in loops_, or -1
  std::vector<Loop> loops_;
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
  auto allowed = [this](const Node* node) {
    return allowed_ == nullptr || (*allowed_)[node->id()];
  };
  // Upstream of an output, along data edges.
  std::vector<bool> upstream(n, false);
  std::deque<Node*> queue;
  for (const Endpoint& e : outs) {
    if (!upstream[e.node->id()] && allowed(e.node)) {
      upstream[e.node->id()] = true;
      queue.push_back(e.node);
    }
  }
  while (!queue.empty()) {
    Node* node = queue.front();
    queue.pop_front();
    for (const Edge* e : node->in_edges()) {
      if (e->IsControlEdge() || upstream[e->src->id()] || !allowed(e->src)) {
        continue;
      }
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
}

// A node on the path waits for one gradient per consumer edge on the path
// and one per entry of `outputs` naming it; a loop, for one per edge from
// its Exits to the path outside it and per entry of `outputs` naming one.
void GradientBuilder::CountPending(const std::vector<Endpoint>& outs) {
  const int n = graph_->num_node_ids();
  pending_.assign(n, 0);
  backprops_.assign(n, {});
  for (Node* node : graph_->nodes()) {
    if (!on_path_[node->id()]) continue;
    backprops_[node->id()].resize(node->num_outputs());
    const int k = LoopOf(node);
    for (const Edge* e : node->out_edges()) {
      if (e->IsControlEdge() || !on_path_[e->dst->id()]) continue;
      if (k < 0) {
        ++pending_[node->id()];
      } else if (LoopOf(e->dst) != k) {
        ++loops_[k].pending;
      }
    }
  }
  for (const Endpoint& e : outs) {
    if (!on_path_[e.node->id()]) continue;
    const int k = LoopOf(e.node);
    if (k < 0) {
      ++pending_[e.node->id()];
    } else {
      ++loops_[k].pending;
    }
  }
}

int32_t GradientBuilder::NodeFrame(const Node* n) const {
  if (IsEnterNode(*n)) {
    const AttrValue* name = FindNodeAttr(n->def(), "frame_name");
    if (name != nullptr) {
      auto it = frame_by_name_.find(name->s());
      if (it != frame_by_name_.end()) return it->second;
    }
  }
  return frames_.frame_of[n->id()];
}

int32_t GradientBuilder::OutFrame(const Node* n) const {
  const int32_t f = NodeFrame(n);
  if (IsExitNode(*n) && f > 0) return frames_.frames[f].parent;
  return f;
}

absl::Status GradientBuilder::FindLoops(const std::vector<Endpoint>& outs,
                                        const std::vector<Endpoint>& ins) {
  bool has_loops = false;
  for (Node* node : graph_->nodes()) {
    if (IsEnterNode(*node)) has_loops = true;
  }
  if (!has_loops) return absl::OkStatus();
  absl::StatusOr<GraphFrames> frames = BuildGraphFrames(*graph_);
  if (!frames.ok()) {
    return absl::Status(
        frames.status().code(),
        absl::StrCat("AddSymbolicGradients: ", frames.status().message()));
  }
  frames_ = *std::move(frames);
  for (size_t f = 1; f < frames_.frames.size(); ++f) {
    frame_by_name_[frames_.frames[f].name] = static_cast<int32_t>(f);
  }
  auto check_endpoint = [&](const Endpoint& e,
                            absl::string_view what) -> absl::Status {
    if (!on_path_[e.node->id()] || OutFrame(e.node) == 0) {
      return absl::OkStatus();
    }
    return absl::UnimplementedError(absl::StrCat(
        "AddSymbolicGradients: ", what, " '", e.node->name(),
        "' is inside loop '", FrameName(OutFrame(e.node)),
        "'; gradients of or with respect to a loop's inner values are not "
        "built (use the loop's outputs and inputs)"));
  };
  for (size_t i = 0; i < outs.size(); ++i) {
    DFX_RETURN_IF_ERROR(check_endpoint(outs[i], absl::StrCat("outputs[", i, "]")));
  }
  for (size_t i = 0; i < ins.size(); ++i) {
    DFX_RETURN_IF_ERROR(check_endpoint(ins[i], absl::StrCat("inputs[", i, "]")));
  }
  loop_of_.assign(graph_->num_node_ids(), -1);
  absl::flat_hash_map<int32_t, int> loop_by_frame;
  for (Node* node : graph_->nodes()) {
    if (!on_path_[node->id()]) continue;
    const int32_t f = NodeFrame(node);
    if (f == 0) continue;
    if (frames_.frames[f].parent != 0) {
      return absl::UnimplementedError(absl::StrCat(
          "AddSymbolicGradients: node '", node->name(), "' is in loop '",
          FrameName(f), "', nested in loop '",
          FrameName(frames_.frames[f].parent),
          "'; gradients through nested loops are not built"));
    }
    if (loop_by_frame.try_emplace(f, static_cast<int>(loops_.size())).second) {
      loops_.emplace_back();
      loops_.back().frame = f;
    }
  }
  for (Node* node : graph_->nodes()) {
    auto it = loop_by_frame.find(NodeFrame(node));
    if (it == loop_by_frame.end()) continue;
    loop_of_[node->id()] = it->second;
    loops_[it->second].nodes.push_back(node);
  }
  for (Loop& loop : loops_) DFX_RETURN_IF_ERROR(AnalyzeLoop(loop));
  return absl::OkStatus();
}

// Finds each loop variable's Enter -> Merge -> Switch -> Exit chain and the
// NextIteration that feeds the Merge back, as ops::WhileLoop and
// tf.compat.v1.while_loop build them.
absl::Status GradientBuilder::AnalyzeLoop(Loop& loop) const {
  auto unrecognized = [&](const Node* n, absl::string_view what) {
    return absl::UnimplementedError(absl::StrCat(
        "AddSymbolicGradients: loop '", FrameName(loop.frame), "': node '",
        n->name(), "' ", what,
        "; only loops shaped as tf.while_loop builds them are differentiated"));
  };
  auto data_consumer = [](const Node* n, int output,
                          bool (*is)(const Node&)) -> Node* {
    for (const Edge* e : n->out_edges()) {
      if (e->src_output == output && is(*e->dst)) return e->dst;
    }
    return nullptr;
  };
  loop.loop_cond = const_cast<Node*>(frames_.frames[loop.frame].loop_cond);
  if (loop.loop_cond == nullptr) {
    return absl::UnimplementedError(
        absl::StrCat("AddSymbolicGradients: loop '", FrameName(loop.frame),
                     "' has no LoopCond"));
  }
  for (Node* n : loop.nodes) {
    if (!IsEnterNode(*n)) continue;
    bool is_constant = false;
    if (const AttrValue* c = FindNodeAttr(n->def(), "is_constant")) {
      is_constant = c->b();
    }
    if (is_constant) {
      loop.invariants.push_back(n);
      continue;
    }
    Node* merge = data_consumer(n, 0, IsMergeNode);
    if (merge == nullptr) return unrecognized(n, "(an Enter) feeds no Merge");
    Node* sw = data_consumer(merge, 0, [](const Node& d) {
      return d.type_string() == "Switch";
    });
    if (sw == nullptr) return unrecognized(merge, "(a Merge) feeds no Switch");
    Node* next = nullptr;
    for (const Edge* e : merge->in_edges()) {
      if (!e->IsControlEdge() && IsNextIterationNode(*e->src)) next = e->src;
    }
    if (next == nullptr) {
      return unrecognized(merge, "(a Merge) has no NextIteration input");
    }
    if (next->input_edge(0) == nullptr) {
      return unrecognized(next, "has no data input");
    }
    loop.enters.push_back(n);
    loop.merges.push_back(merge);
    loop.switches.push_back(sw);
    loop.nexts.push_back(next);
    loop.exits.push_back(data_consumer(sw, 0, IsExitNode));
  }
  // A conditional in the body: its untaken branch's values are dead, and a
  // dead push would stop the iteration counter (TensorFlow pushes them in
  // the branch's own context; not done here).
  for (const Node* n : loop.nodes) {
    if (!on_path_[n->id()] || n->type_string() != "Switch") continue;
    if (std::find(loop.switches.begin(), loop.switches.end(), n) !=
        loop.switches.end()) {
      continue;
    }
    return absl::UnimplementedError(absl::StrCat(
        "AddSymbolicGradients: node '", n->name(), "' is a conditional's "
        "Switch inside loop '", FrameName(loop.frame),
        "'; gradients through a conditional inside a loop are not built"));
  }
  return absl::OkStatus();
}

absl::Status GradientBuilder::BackpropAlongEdge(Node* src, int src_output,
                                                Output grad) {
  if (!on_path_[src->id()]) return absl::OkStatus();
  const DataType type = src->output_type(src_output);
  // A TensorList (a variant a TensorList op made) carries its elements'
  // gradients as a list.
  const bool list = BaseType(type) == DT_VARIANT &&
                    absl::StartsWith(src->type_string(), "TensorList");
  if (grad.valid() && !IsDifferentiable(type) && !list) {
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
  const int k = LoopOf(src);
  if (k >= 0) {
    if (--loops_[k].pending == 0) ready_.push_back(loops_[k].loop_cond);
  } else if (--pending_[src->id()] == 0) {
    ready_.push_back(src);
  }
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
  if (LoopOf(n) >= 0) return VisitLoop(loops_[LoopOf(n)]);
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

absl::Status GradientBuilder::VisitLoop(Loop& loop) {
  const int k = LoopOf(loop.loop_cond);
  for (Node* n : loop.nodes) visited_[n->id()] = true;
  // The edges on the path that bring values into the loop: into its Enters.
  std::vector<const Edge*> entering;
  for (Node* n : loop.nodes) {
    if (!on_path_[n->id()]) continue;
    for (const Edge* e : n->in_edges()) {
      if (e->IsControlEdge() || LoopOf(e->src) == k) continue;
      if (!IsEnterNode(*n)) {
        return absl::InvalidArgumentError(absl::StrCat(
            "AddSymbolicGradients: node '", n->name(), "' of loop '",
            FrameName(loop.frame), "' takes '", e->src->name(),
            "' from outside the loop without an Enter"));
      }
      entering.push_back(e);
    }
  }
  // The gradients of the loop's outputs.
  std::vector<Output> dy(loop.enters.size());
  bool any = false;
  for (size_t i = 0; i < loop.enters.size(); ++i) {
    const Node* exit = loop.exits[i];
    if (exit == nullptr || !on_path_[exit->id()]) continue;
    dy[i] = SumGradients(backprops_[exit->id()][0]);
    any = any || dy[i].valid();
    auto it = requested_.find({exit->id(), 0});
    if (it != requested_.end()) {
      for (size_t r : it->second) results_[r] = dy[i];
    }
  }
  absl::flat_hash_map<const Node*, Output> enter_grads;
  if (any) DFX_RETURN_IF_ERROR(BuildBackpropLoop(loop, dy, &enter_grads));
  for (const Edge* e : entering) {
    auto it = enter_grads.find(e->dst);
    DFX_RETURN_IF_ERROR(BackpropAlongEdge(
        e->src, e->src_output,
        it == enter_grads.end() ? NoGradient() : it->second));
  }
  return absl::OkStatus();
}

// The backprop loop of `loop`, as TensorFlow's v1 control flow builds it
// (control_flow_state.py): a counter added to the forward loop counts its
// iterations; the backprop loop runs that many, from the gradients of the
// Exits, each iteration applying the gradient of the forward body. Forward
// values that gradient uses are pushed onto a stack per value in the forward
// loop and popped in the backprop loop; pushes wait for the counter of their
// iteration and the counter's increment for the pushes (and likewise the
// pops and the backprop counter), so the values come back in reverse order
// whatever parallel_iterations. Loop invariants (is_constant Enters) get an
// accumulator each, summing their gradient over the iterations.
absl::Status GradientBuilder::BuildBackpropLoop(
    const Loop& loop, const std::vector<Output>& dy,
    absl::flat_hash_map<const Node*, Output>* enter_grads) {
  const int k = LoopOf(loop.loop_cond);
  const std::string frame = FrameName(loop.frame);
  const int64_t parallel = frames_.frames[loop.frame].parallel_iterations;
  const std::string device = loop.loop_cond->requested_device();
  const std::string base = frame.substr(frame.rfind('/') + 1);
  const Scope fwd =
      grads_.WithNoControlDependencies().NewSubScope(absl::StrCat(base, "_grad"));
  auto enter_attrs = [&](DataType t, bool is_constant) {
    return std::vector<std::pair<std::string, AttrValue>>{
        {"T", TypeAttr(t)},
        {"frame_name", StringAttr(frame)},
        {"is_constant", BoolAttr(is_constant)},
        {"parallel_iterations", IntAttr(parallel)}};
  };
  auto t_attr = [](DataType t) {
    return std::vector<std::pair<std::string, AttrValue>>{{"T", TypeAttr(t)}};
  };

  // What the backprop loop carries: the counter, the gradient of each
  // differentiable loop variable on the path, an accumulator per
  // differentiable loop invariant on the path.
  std::vector<size_t> vars;
  for (size_t i = 0; i < loop.enters.size(); ++i) {
    if (on_path_[loop.merges[i]->id()] &&
        IsDifferentiable(loop.enters[i]->output_type(0))) {
      vars.push_back(i);
    }
  }
  std::vector<const Node*> invariants;
  for (const Node* n : loop.invariants) {
    if (on_path_[n->id()] && IsDifferentiable(n->output_type(0))) {
      invariants.push_back(n);
    }
  }
  const size_t m = vars.size();

  // The forward counter: f_count = 0; each iteration f_count + 1; its Exit
  // is the number of iterations.
  const Output zero = ops::Const(fwd.WithOpName("f_count_zero"), 0);
  DFX_ASSIGN_OR_RETURN(Built c_enter,
                       AddRawNode(fwd, "Enter", "f_count", {zero.ToString()},
                                  enter_attrs(DT_INT32, false), device));
  DFX_ASSIGN_OR_RETURN(
      Built c_merge,
      AddRawNode(fwd, "Merge", "f_count_merge", {c_enter.name, c_enter.name},
                 {{"T", TypeAttr(DT_INT32)}, {"N", IntAttr(2)}}, device));
  DFX_ASSIGN_OR_RETURN(
      Built c_switch,
      AddRawNode(fwd, "Switch", "f_count_switch",
                 {c_merge.name, loop.loop_cond->name()}, t_attr(DT_INT32),
                 device));
  DFX_ASSIGN_OR_RETURN(Built c_body,
                       AddRawNode(fwd, "Identity", "f_count_body",
                                  {c_switch.name + ":1"}, t_attr(DT_INT32),
                                  device));
  const Output one = ops::Const(
      fwd.WithControlDependencies({Operation(c_body.name)})
          .WithOpName("f_count_one"),
      1);
  std::vector<std::string> add_inputs = {c_body.name, one.ToString()};
  DFX_ASSIGN_OR_RETURN(Built c_add,
                       AddRawNode(fwd, "Add", "f_count_add", add_inputs,
                                  t_attr(DT_INT32), device));
  DFX_ASSIGN_OR_RETURN(Built c_next,
                       AddRawNode(fwd, "NextIteration", "f_count_next",
                                  {c_add.name}, t_attr(DT_INT32), device));
  DFX_RETURN_IF_ERROR(
      fwd.SetNodeInputs(c_merge.position, {c_enter.name, c_next.name}));
  DFX_ASSIGN_OR_RETURN(Built c_exit,
                       AddRawNode(fwd, "Exit", "f_count_exit", {c_switch.name},
                                  t_attr(DT_INT32), device));

  // The backprop loop's initial values.
  const Scope aux = grads_.WithNoControlDependencies();
  std::vector<Output> init = {Output(c_exit.name, 0, DT_INT32)};
  for (size_t i : vars) {
    const DataType t = BaseType(loop.enters[i]->output_type(0));
    if (dy[i].valid()) {
      init.push_back(dy[i]);
    } else if (loop.exits[i] != nullptr) {
      init.push_back(ops::ZerosLike(aux, Output(loop.exits[i]->name(), 0, t)));
    } else {
      const Edge* in = loop.enters[i]->input_edge(0);
      init.push_back(
          ops::ZerosLike(aux, Output(in->src->name(), in->src_output, t)));
    }
  }
  for (const Node* n : invariants) {
    const Edge* in = n->input_edge(0);
    init.push_back(ops::ZerosLike(
        aux, Output(in->src->name(), in->src_output,
                    BaseType(n->output_type(0)))));
  }
  DFX_RETURN_IF_ERROR(aux.status());

  // The forward body's nodes the body's gradient goes through.
  std::vector<bool> allowed(graph_->num_node_ids(), false);
  for (const Node* n : loop.nodes) allowed[n->id()] = true;
  for (size_t i = 0; i < loop.enters.size(); ++i) {
    allowed[loop.enters[i]->id()] = false;
    allowed[loop.merges[i]->id()] = false;
    allowed[loop.nexts[i]->id()] = false;
    if (loop.exits[i] != nullptr) allowed[loop.exits[i]->id()] = false;
  }
  allowed[loop.loop_cond->id()] = false;

  // Nodes the backprop body adds that are not its own: the stacks (top
  // level) and the pushes (forward loop).
  absl::flat_hash_set<std::string> foreign;
  absl::flat_hash_map<std::string, std::string> popped;
  std::vector<Operation> pops;
  // The pop, in the backprop body `b`, of forward value `src:index`.
  auto pop_of = [&](const Scope& b, const Node* src,
                    int index) -> absl::StatusOr<std::string> {
    const std::string tensor = TensorString(src->name(), index);
    auto it = popped.find(tensor);
    if (it != popped.end()) return it->second;
    const DataType t = BaseType(src->output_type(index));
    const std::string& dev = src->requested_device();
    const Output max_size = ops::Const(fwd.WithOpName("f_acc_max_size"), -1);
    DFX_RETURN_IF_ERROR(fwd.status());
    foreign.insert(max_size.node_name());
    DFX_ASSIGN_OR_RETURN(
        Built stack,
        AddRawNode(fwd, "StackV2", "f_acc", {max_size.ToString()},
                   {{"elem_type", TypeAttr(t)}, {"stack_name", StringAttr("")}},
                   dev));
    foreign.insert(stack.name);
    DFX_ASSIGN_OR_RETURN(Built enter,
                         AddRawNode(fwd, "Enter", "f_acc_enter", {stack.name},
                                    enter_attrs(DT_RESOURCE, true), dev));
    foreign.insert(enter.name);
    DFX_ASSIGN_OR_RETURN(
        Built push,
        AddRawNode(fwd.WithControlDependencies({Operation(c_body.name)}),
                   "StackPushV2", "f_acc_push", {enter.name, tensor},
                   {{"T", TypeAttr(t)}, {"swap_memory", BoolAttr(false)}},
                   dev));
    foreign.insert(push.name);
    add_inputs.push_back("^" + push.name);
    DFX_ASSIGN_OR_RETURN(Built pop,
                         AddRawNode(b, "StackPopV2", "StackPopV2", {stack.name},
                                    {{"elem_type", TypeAttr(t)}}, dev));
    pops.emplace_back(pop.name);
    popped.emplace(tensor, pop.name);
    return pop.name;
  };

  // A Const of the forward body, copied into the backprop body `b` (where
  // the backprop loop's pivot makes it run each iteration) instead of
  // stacked.
  absl::flat_hash_map<std::string, std::string> copied;
  auto const_copy_of = [&](const Scope& b,
                           const Node* src) -> absl::StatusOr<std::string> {
    auto it = copied.find(src->name());
    if (it != copied.end()) return it->second;
    NodeDef copy = src->def();
    copy.clear_input();
    copy.set_name(b.GetUniqueNameForOp("Const"));
    const std::string name = copy.name();
    DFX_RETURN_IF_ERROR(b.AddNode(std::move(copy)));
    copied.emplace(src->name(), name);
    return name;
  };

  const ops::CondFn cond = [](const Scope& c, const std::vector<Output>& in,
                              Output* pred) {
    *pred = ops::Greater(c, in[0], ops::Const(c, 0));
    return c.status();
  };
  const ops::BodyFn body = [&](const Scope& b, const std::vector<Output>& in,
                               std::vector<Output>* next) -> absl::Status {
    const int begin = b.num_nodes();
    std::vector<Output> ys, xs, seeds;
    for (size_t j = 0; j < m; ++j) {
      const Edge* e = loop.nexts[vars[j]]->input_edge(0);
      ys.emplace_back(e->src->name(), e->src_output,
                      BaseType(e->src->output_type(e->src_output)));
      seeds.push_back(in[1 + j]);
      const Node* sw = loop.switches[vars[j]];
      xs.emplace_back(sw->name(), 1, BaseType(sw->output_type(1)));
    }
    for (const Node* n : invariants) {
      xs.emplace_back(n->name(), 0, BaseType(n->output_type(0)));
    }
    GradientBuilder inner(b, graph_, &allowed, ys, xs, seeds);
    std::vector<Output> dxs;
    DFX_RETURN_IF_ERROR(inner.Build(&dxs));
    // Forward values of the loop the gradient nodes use: a loop invariant
    // is taken from outside (the backprop loop enters it); any other value
    // is popped from its stack.
    const int end = b.num_nodes();
    for (int p = begin; p < end; ++p) {
      const std::vector<std::string> inputs(b.node(p).input().begin(),
                                            b.node(p).input().end());
      std::vector<std::string> rewired;
      bool changed = false;
      for (const std::string& input : inputs) {
        ParsedInput parsed;
        DFX_RETURN_IF_ERROR(ParseNodeInput(input, &parsed));
        const Node* src = graph_->FindNode(parsed.node);
        if (src == nullptr || LoopOf(src) != k || IsExitNode(*src)) {
          rewired.push_back(input);
          continue;
        }
        changed = true;
        if (parsed.IsControl()) continue;  // the backprop loop orders it
        if (IsEnterNode(*src)) {
          const Edge* e = src->input_edge(0);
          const AttrValue* c = FindNodeAttr(src->def(), "is_constant");
          if (e == nullptr || c == nullptr || !c->b()) {
            return absl::UnimplementedError(absl::StrCat(
                "node '", b.node(p).name(), "' uses loop variable Enter '",
                src->name(), "'"));
          }
          rewired.push_back(TensorString(e->src->name(), e->src_output));
          continue;
        }
        if (src->type_string() == "Const") {
          DFX_ASSIGN_OR_RETURN(std::string copy, const_copy_of(b, src));
          rewired.push_back(std::move(copy));
          continue;
        }
        DFX_ASSIGN_OR_RETURN(std::string pop, pop_of(b, src, parsed.index));
        rewired.push_back(std::move(pop));
      }
      if (changed) DFX_RETURN_IF_ERROR(b.SetNodeInputs(p, rewired));
    }
    next->push_back(
        ops::Sub(b.WithControlDependencies(pops), in[0], ops::Const(b, 1)));
    for (size_t j = 0; j < m; ++j) {
      next->push_back(dxs[j].valid() ? dxs[j] : ops::ZerosLike(b, in[1 + j]));
    }
    for (size_t q = 0; q < invariants.size(); ++q) {
      const Output& acc = in[1 + m + q];
      const Output& g = dxs[m + q];
      next->push_back(g.valid() ? ops::AddV2(b, acc, g) : acc);
    }
    return b.status();
  };
  ops::WhileOptions options;
  options.name = base.empty() ? "while" : base;
  options.parallel_iterations = static_cast<int>(parallel);
  std::vector<Output> outs;
  DFX_RETURN_IF_ERROR(ops::internal::WhileLoopWithForeignNodes(
      grads_, init, cond, body, &foreign, &outs, options));
  DFX_RETURN_IF_ERROR(fwd.SetNodeInputs(c_add.position, add_inputs));
  for (size_t j = 0; j < m; ++j) {
    (*enter_grads)[loop.enters[vars[j]]] = outs[1 + j];
  }
  for (size_t q = 0; q < invariants.size(); ++q) {
    (*enter_grads)[invariants[q]] = outs[1 + m + q];
  }
  return absl::OkStatus();
}

absl::Status GradientBuilder::Build(std::vector<Output>* grad_outputs) {
  if (outputs_.size() != grad_inputs_.size()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "AddSymbolicGradients: ", outputs_.size(), " output(s) but ",
        grad_inputs_.size(), " gradient input(s); give one per output"));
  }
  const bool body = graph_ != nullptr;  // the gradient of a loop body
  if (!body) {
    GraphDef def;
    DFX_RETURN_IF_ERROR(grads_.ToGraphDef(&def));
    ImportOptions options;
    options.validate_shapes = false;
    absl::StatusOr<std::unique_ptr<Graph>> graph =
        ImportGraphDef(def, OpRegistry::Global(), options);
    if (!graph.ok()) {
      return absl::Status(graph.status().code(),
                          absl::StrCat("AddSymbolicGradients: the scope's "
                                       "graph does not import: ",
                                       graph.status().message()));
    }
    owned_graph_ = *std::move(graph);
    graph_ = owned_graph_.get();
  }

  std::vector<Endpoint> outs, ins;
  for (size_t i = 0; i < outputs_.size(); ++i) {
    DFX_ASSIGN_OR_RETURN(
        Endpoint e, Resolve(outputs_[i], absl::StrCat("outputs[", i, "]")));
    outs.push_back(e);
    const DataType want = BaseType(e.node->output_type(e.index));
    DataType got = BaseType(grad_inputs_[i].dtype());
    if (!body) {
      // (A loop body's seeds are nodes of the backprop loop, built since.)
      DFX_ASSIGN_OR_RETURN(
          Endpoint g,
          Resolve(grad_inputs_[i], absl::StrCat("grad_inputs[", i, "]")));
      got = BaseType(g.node->output_type(g.index));
    }
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
  if (!body) DFX_RETURN_IF_ERROR(FindLoops(outs, ins));
  CountPending(outs);
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
          "' lies on a cycle that is not a while loop; gradients through "
          "such cycles are not supported"));
    }
  }

  grad_outputs->clear();
  for (size_t i = 0; i < inputs_.size(); ++i) {
    Output g = results_[i];
    if (!g.valid() && !body) g = ops::ZerosLike(grads_, inputs_[i]);
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
