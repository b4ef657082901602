#include "master/graph_optimizer.h"

#include <algorithm>
#include <map>
#include <memory>
#include <utility>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "google/protobuf/io/coded_stream.h"
#include "google/protobuf/io/zero_copy_stream_impl_lite.h"
#include "graph/control_flow.h"
#include "graph/device_name.h"
#include "graph/node_def_util.h"
#include "graph/partition.h"
#include "graph/shape_inference.h"
#include "graph/subgraph.h"
#include "graph/types.h"
#include "master/optimizer/arithmetic.h"
#include "master/optimizer/dead_branches.h"
#include "master/optimizer/remapper.h"
#include "master/optimizer/shapes.h"
#include "master/optimizer/util.h"
#include "runtime/device.h"
#include "runtime/executor.h"
#include "runtime/tensor.h"

namespace dfx {
namespace {

using optimizer::AllPlainTypes;
using optimizer::ConstInput;
using optimizer::HasControlInputs;
using optimizer::IsCpuDevice;
using optimizer::NeverTouched;
using optimizer::PlainType;
using optimizer::ReadsRefOrResource;
using optimizer::TopologicalOrder;

// ---------------------------------------------------------------------------
// Constant folding.

// A CPU device of its own for evaluating folded nodes (one intra-op thread).
Device* FoldingDevice() {
  static DeviceMgr* const mgr = [] {
    CpuDeviceOptions options;
    options.task_name = "/job:localhost/replica:0/task:0";
    options.intra_op_threads = 1;
    absl::StatusOr<std::unique_ptr<DeviceMgr>> made =
        DeviceMgr::NewCpu(options);
    return made.ok() ? made->release() : nullptr;
  }();
  return mgr == nullptr ? nullptr : mgr->ListDevices()[0];
}

// Whether the output of `n` (whose inputs are the Consts `inputs`) has a
// static shape of at most `max_bytes`, by its shape function.
bool OutputFitsStatically(const Graph& graph, const Node& n,
                          const std::vector<const Node*>& inputs,
                          int64_t max_bytes) {
  const OpRegistrationData* reg = graph.op_registry()->LookUp(n.type_string());
  if (reg == nullptr) return false;
  std::vector<PartialShape> shapes;
  std::vector<const TensorProto*> values;
  for (const Node* c : inputs) {
    const AttrValue* value = FindNodeAttr(c->def(), "value");
    if (value == nullptr || !value->has_tensor()) return false;
    shapes.push_back(PartialShape::FromProto(value->tensor().tensor_shape()));
    values.push_back(&value->tensor());
  }
  InferenceContext ctx(n.def(), n.op_def(), std::move(shapes),
                       std::move(values), n.num_outputs());
  if (!reg->shape_fn(&ctx).ok()) return false;
  const PartialShape& out = ctx.output(0);
  if (!out.FullyDefined()) return false;
  const int element = DataTypeSize(n.output_type(0));
  if (element <= 0) return false;
  int64_t bytes = element;
  for (int64_t d : out.dims) {
    if (d < 0 || (d > 0 && bytes > max_bytes / d)) return false;
    bytes *= d;
  }
  return bytes <= max_bytes;
}

// Runs `n` over the values of `inputs` with the CPU kernels.
absl::StatusOr<Tensor> Evaluate(const Graph& graph, const Node& n,
                                const std::vector<const Node*>& inputs,
                                const KernelRegistry* kernels, Device* device) {
  auto g = std::make_unique<Graph>(graph.op_registry());
  std::vector<Node*> copies;
  for (size_t i = 0; i < inputs.size(); ++i) {
    NodeDef def = inputs[i]->def();
    def.set_name(absl::StrCat("in", i));
    def.clear_input();
    def.clear_device();
    DFX_ASSIGN_OR_RETURN(Node * c, g->AddNode(std::move(def)));
    c->set_assigned_device_name(device->name());
    copies.push_back(c);
  }
  NodeDef def = n.def();
  def.set_name("folded");
  def.clear_input();
  def.clear_device();
  DFX_ASSIGN_OR_RETURN(Node * node, g->AddNode(std::move(def)));
  node->set_assigned_device_name(device->name());
  for (size_t i = 0; i < copies.size(); ++i) {
    g->AddEdge(copies[i], 0, node, static_cast<int>(i));
  }
  NodeDef ret;
  ret.set_name("retval");
  ret.set_op("_Retval");
  (*ret.mutable_attr())["T"].set_type(n.output_type(0));
  (*ret.mutable_attr())["index"].set_i(0);
  DFX_ASSIGN_OR_RETURN(Node * r, g->AddNode(std::move(ret)));
  r->set_assigned_device_name(device->name());
  g->AddEdge(node, 0, r, 0);

  ExecutorParams params;
  params.device = device;
  params.kernel_registry = kernels;
  DFX_ASSIGN_OR_RETURN(std::unique_ptr<Executor> executor,
                       NewExecutor(params, std::move(g)));
  SimpleCallFrame frame({}, 1);
  Executor::Args args;
  args.call_frame = &frame;
  DFX_RETURN_IF_ERROR(executor->Run(args));
  DFX_ASSIGN_OR_RETURN(std::vector<Tensor> out, frame.ConsumeRetvals());
  return std::move(out[0]);
}

// Replaces `n` by a Const holding `value`, under the same name and device,
// with the same consumers. Returns the new node.
absl::StatusOr<Node*> ReplaceByConst(Graph* graph, Node* n,
                                     const Tensor& value) {
  NodeDef def;
  def.set_name(n->name());
  def.set_op("Const");
  def.set_device(n->def().device());
  (*def.mutable_attr())["dtype"].set_type(value.dtype());
  value.AsProtoTensorContent((*def.mutable_attr())["value"].mutable_tensor());
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
  graph->RemoveNode(n);
  DFX_ASSIGN_OR_RETURN(Node * c, graph->AddNode(std::move(def)));
  c->set_assigned_device_name(device);
  for (const Out& o : outs) {
    if (o.src_output == kControlSlot) {
      graph->AddControlEdge(c, o.dst);
    } else {
      graph->AddEdge(c, 0, o.dst, o.dst_input);
    }
  }
  return c;
}

absl::Status FoldConstants(const GraphOptimizerOptions& options,
                           const absl::flat_hash_set<std::string>& kept,
                           const KernelRegistry* kernels, Graph* graph,
                           GraphOptimizerStats* stats) {
  if (kernels == nullptr) return absl::OkStatus();
  Device* device = FoldingDevice();
  if (device == nullptr) return absl::OkStatus();
  // Names, since folding replaces nodes.
  std::vector<std::string> order;
  for (Node* n : TopologicalOrder(*graph)) order.push_back(n->name());
  absl::flat_hash_set<std::string> folded_inputs;
  for (const std::string& name : order) {
    Node* n = graph->FindNode(name);
    if (n == nullptr || n->type_string() == "Const" || NeverTouched(*n) ||
        n->num_inputs() == 0 || n->num_outputs() != 1 || !AllPlainTypes(*n) ||
        HasControlInputs(*n) || !IsCpuDevice(n->assigned_device_name()) ||
        !DataTypeCanMemcpy(n->output_type(0))) {
      continue;
    }
    std::vector<const Node*> inputs;
    for (int i = 0; i < n->num_inputs(); ++i) {
      const Node* c = ConstInput(*n, i);
      // Only from its own device: folding never removes a transfer between
      // devices or tasks, so a graph's cross-device edges (and where it
      // fails when a task is gone) stay as the graph places them.
      if (c == nullptr ||
          c->assigned_device_name() != n->assigned_device_name()) {
        break;
      }
      inputs.push_back(c);
    }
    if (static_cast<int>(inputs.size()) != n->num_inputs()) continue;
    if (!OutputFitsStatically(*graph, *n, inputs,
                              options.max_folded_constant_in_bytes)) {
      continue;
    }
    absl::StatusOr<Tensor> value =
        Evaluate(*graph, *n, inputs, kernels, device);
    // Left for the step to run (and report its error).
    if (!value.ok()) continue;
    if (value->dtype() != n->output_type(0) ||
        static_cast<int64_t>(value->TotalBytes()) >
            options.max_folded_constant_in_bytes) {
      continue;
    }
    for (const Node* c : inputs) folded_inputs.insert(c->name());
    DFX_RETURN_IF_ERROR(ReplaceByConst(graph, n, *value).status());
    if (stats != nullptr) ++stats->constants_folded;
  }
  // Consts that fed only folded nodes are dead now.
  for (const std::string& name : folded_inputs) {
    Node* c = graph->FindNode(name);
    if (c != nullptr && c->out_edges().empty() && !kept.contains(name)) {
      graph->RemoveNode(c);
    }
  }
  return absl::OkStatus();
}

// ---------------------------------------------------------------------------
// Common-subexpression elimination.

std::string AttrsKey(const NodeDef& def) {
  std::map<std::string, std::string> sorted;
  for (const auto& [name, value] : def.attr()) {
    std::string bytes;
    google::protobuf::io::StringOutputStream stream(&bytes);
    google::protobuf::io::CodedOutputStream coded(&stream);
    coded.SetSerializationDeterministic(true);
    value.SerializeToCodedStream(&coded);
    coded.Trim();
    sorted[name] = std::move(bytes);
  }
  std::string key;
  for (const auto& [name, bytes] : sorted) {
    absl::StrAppend(&key, name.size(), ":", name, bytes.size(), ":", bytes);
  }
  return key;
}

// Null when `n` is not a candidate.
std::unique_ptr<std::string> CseKey(const Node& n) {
  if (NeverTouched(n) || !AllPlainTypes(n) || n.num_outputs() == 0 ||
      ReadsRefOrResource(n)) {
    return nullptr;
  }
  std::vector<int> control;
  for (const Edge* e : n.in_edges()) {
    if (e->IsControlEdge()) control.push_back(e->src->id());
  }
  std::vector<std::pair<int, int>> sources(n.num_inputs(), {-1, -1});
  for (const Edge* e : n.in_edges()) {
    if (!e->IsControlEdge()) {
      sources[e->dst_input] = {e->src->id(), e->src_output};
    }
  }
  if (n.op_def().is_commutative()) std::sort(sources.begin(), sources.end());
  std::sort(control.begin(), control.end());
  control.erase(std::unique(control.begin(), control.end()), control.end());
  auto key = std::make_unique<std::string>(
      absl::StrCat(n.type_string(), "|", n.assigned_device_name(), "|"));
  for (const auto& [id, out] : sources) {
    absl::StrAppend(key.get(), id, ":", out, ",");
  }
  absl::StrAppend(key.get(), "|^");
  for (int id : control) absl::StrAppend(key.get(), id, ",");
  absl::StrAppend(key.get(), "|", AttrsKey(n.def()));
  return key;
}

// Moves every consumer of `from` to the same output of `to`, then removes
// `from`.
void MergeInto(Graph* graph, Node* from, Node* to) {
  std::vector<const Edge*> outs(from->out_edges().begin(),
                                from->out_edges().end());
  for (const Edge* e : outs) {
    Node* dst = e->dst;
    const int src_output = e->src_output;
    const int dst_input = e->dst_input;
    graph->RemoveEdge(e);
    if (src_output == kControlSlot) {
      graph->AddControlEdge(to, dst);
    } else {
      graph->AddEdge(to, src_output, dst, dst_input);
    }
  }
  graph->RemoveNode(from);
}

void EliminateCommonSubexpressions(const absl::flat_hash_set<std::string>& kept,
                                   const GraphFrames& frames, Graph* graph,
                                   GraphOptimizerStats* stats) {
  absl::flat_hash_map<std::string, Node*> seen;
  for (Node* n : TopologicalOrder(*graph)) {
    if (!optimizer::InRootFrame(frames, *n)) continue;
    std::unique_ptr<std::string> key = CseKey(*n);
    if (key == nullptr) continue;
    auto [it, inserted] = seen.try_emplace(*key, n);
    if (inserted) continue;
    Node* other = it->second;
    if (!kept.contains(n->name())) {
      MergeInto(graph, n, other);
    } else if (!kept.contains(other->name())) {
      MergeInto(graph, other, n);
      it->second = n;
    } else {
      continue;
    }
    if (stats != nullptr) ++stats->nodes_merged;
  }
}

// ---------------------------------------------------------------------------
// Identity and NoOp removal.

bool NeighboursAreSafe(const Node& n, bool allow_control_out) {
  for (const Edge* e : n.in_edges()) {
    if (IsControlFlowNode(*e->src) ||
        e->src->assigned_device_name() != n.assigned_device_name()) {
      return false;
    }
  }
  for (const Edge* e : n.out_edges()) {
    if (IsControlFlowNode(*e->dst) ||
        e->dst->assigned_device_name() != n.assigned_device_name() ||
        (e->IsControlEdge() && !allow_control_out)) {
      return false;
    }
  }
  return true;
}

void RemoveIdentitiesAndNoOps(const absl::flat_hash_set<std::string>& kept,
                              const GraphFrames& frames, Graph* graph,
                              GraphOptimizerStats* stats) {
  for (Node* n : graph->nodes()) {
    if (!optimizer::InRootFrame(frames, *n) || kept.contains(n->name())) {
      continue;
    }
    if (n->type_string() == "Identity") {
      if (!PlainType(n->input_type(0)) || ReadsRefOrResource(*n) ||
          !NeighboursAreSafe(*n, false)) {
        continue;
      }
      const Edge* in = n->input_edge(0);
      if (in == nullptr) continue;
      Node* src = in->src;
      const int src_output = in->src_output;
      std::vector<Node*> control_inputs;
      for (const Edge* e : n->in_edges()) {
        if (e->IsControlEdge()) control_inputs.push_back(e->src);
      }
      std::vector<std::pair<Node*, int>> consumers;
      for (const Edge* e : n->out_edges()) {
        consumers.push_back({e->dst, e->dst_input});
      }
      graph->RemoveNode(n);
      for (const auto& [dst, input] : consumers) {
        graph->AddEdge(src, src_output, dst, input);
        for (Node* c : control_inputs) graph->AddControlEdge(c, dst);
      }
      if (stats != nullptr) ++stats->identities_removed;
    } else if (n->type_string() == "NoOp") {
      if (!NeighboursAreSafe(*n, true)) continue;
      std::vector<Node*> ins;
      std::vector<Node*> outs;
      for (const Edge* e : n->in_edges()) ins.push_back(e->src);
      for (const Edge* e : n->out_edges()) outs.push_back(e->dst);
      // Rewiring must not multiply the edges (TensorFlow's rule too).
      if (ins.size() * outs.size() > ins.size() + outs.size()) continue;
      graph->RemoveNode(n);
      for (Node* a : ins) {
        for (Node* b : outs) graph->AddControlEdge(a, b);
      }
      if (stats != nullptr) ++stats->noops_removed;
    }
  }
}

}  // namespace

GraphOptimizerOptions GraphOptimizerOptionsFromConfig(
    const ConfigProto& config) {
  const GraphOptions& graph = config.graph_options();
  if (graph.rewrite_options().disable_meta_optimizer()) {
    return GraphOptimizerOptions::Off();
  }
  GraphOptimizerOptions options;
  const OptimizerOptions& opt = graph.optimizer_options();
  if (opt.opt_level() == OptimizerOptions::L0) {
    options = GraphOptimizerOptions::Off();
    options.constant_folding = opt.do_constant_folding();
    options.common_subexpression_elimination =
        opt.do_common_subexpression_elimination();
  }
  if (graph.rewrite_options().constant_folding() == RewriterConfig::OFF) {
    options.constant_folding = false;
  }
  if (graph.rewrite_options().dependency_optimization() ==
      RewriterConfig::OFF) {
    options.remove_identities = false;
  }
  if (graph.rewrite_options().arithmetic_optimization() ==
      RewriterConfig::OFF) {
    options.arithmetic_simplification = false;
  }
  if (graph.rewrite_options().remapping() == RewriterConfig::OFF) {
    options.remapping = false;
  }
  if (opt.max_folded_constant_in_bytes() > 0) {
    options.max_folded_constant_in_bytes = opt.max_folded_constant_in_bytes();
  }
  return options;
}

absl::Status OptimizeStepGraph(const GraphOptimizerOptions& options,
                               const std::vector<std::string>& kept_names,
                               const KernelRegistry* kernels, Graph* graph,
                               GraphOptimizerStats* stats,
                               const optimizer::FeedShapes* feed_shapes) {
  if (!options.AnyEnabled()) return absl::OkStatus();
  GraphOptimizerStats local_stats;
  if (stats == nullptr) stats = &local_stats;
  absl::flat_hash_set<std::string> kept;
  for (const std::string& name : kept_names) {
    absl::StatusOr<TensorId> id = ParseTensorName(name);
    kept.insert(id.ok() ? id->node : name);
  }
  if (options.constant_folding) {
    DFX_RETURN_IF_ERROR(FoldConstants(options, kept, kernels, graph, stats));
  }
  // The passes below touch root-frame nodes only; a graph whose frames
  // cannot be worked out is left alone (the step reports what is wrong).
  absl::StatusOr<GraphFrames> frames = BuildGraphFrames(*graph);
  if (!frames.ok()) return absl::OkStatus();
  if (options.dead_branch_pruning) {
    DFX_ASSIGN_OR_RETURN(optimizer::DeadBranchStats dead,
                         optimizer::PruneDeadBranches(kept, *frames, graph));
    stats->dead_switches += dead.switches;
    stats->dead_nodes_removed += dead.nodes;
    if (dead.switches > 0) {
      frames = BuildGraphFrames(*graph);
      if (!frames.ok()) return absl::OkStatus();
    }
  }
  if (options.constant_folding || options.arithmetic_simplification) {
    const optimizer::FeedShapes no_feeds;
    optimizer::StepShapes shapes(
        *graph, *frames, feed_shapes == nullptr ? no_feeds : *feed_shapes);
    if (options.constant_folding) {
      DFX_ASSIGN_OR_RETURN(const int materialized, optimizer::MaterializeShapes(
                                                       *frames, shapes, graph));
      stats->shapes_materialized += materialized;
    }
    if (options.arithmetic_simplification) {
      DFX_ASSIGN_OR_RETURN(optimizer::ArithmeticStats arithmetic,
                           optimizer::SimplifyArithmetic(kept, *frames, kernels,
                                                         &shapes, graph));
      stats->add_chains += arithmetic.add_chains;
      stats->adds_absorbed += arithmetic.adds_absorbed;
      stats->nodes_bypassed += arithmetic.nodes_bypassed;
    }
  }
  if (options.common_subexpression_elimination) {
    EliminateCommonSubexpressions(kept, *frames, graph, stats);
  }
  if (options.remove_identities) {
    RemoveIdentitiesAndNoOps(kept, *frames, graph, stats);
  }
  if (options.remapping) {
    // Shapes of the graph as the passes above left it (the fusions need the
    // arguments' and filters' static shapes).
    const optimizer::FeedShapes no_feeds;
    optimizer::StepShapes shapes(
        *graph, *frames, feed_shapes == nullptr ? no_feeds : *feed_shapes);
    DFX_ASSIGN_OR_RETURN(
        optimizer::RemapperStats remapped,
        optimizer::FuseContractions(kept, *frames, kernels, &shapes, graph));
    stats->conv_fusions += remapped.conv_fusions;
    stats->matmul_fusions += remapped.matmul_fusions;
    stats->nodes_fused += remapped.nodes_fused;
    stats->biases_folded += remapped.biases_folded;
    stats->scale_shifts_fused += remapped.scale_shifts_fused;
  }
  return absl::OkStatus();
}

}  // namespace dfx
