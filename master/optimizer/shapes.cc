#include "master/optimizer/shapes.h"

#include <cstdint>
#include <limits>
#include <utility>

#include "absl/strings/match.h"
#include "base/status_macros.h"
#include "graph/node_def_util.h"
#include "graph/op_registry.h"

namespace dfx::optimizer {
namespace {

// Whether the shape functions may speak for `n`'s outputs.
bool ShapesTrusted(const GraphFrames& frames, const Node& n) {
  return InRootFrame(frames, n) && !IsExitNode(n) && !n.IsStateful() &&
         AllPlainTypes(n) && !ReadsRefOrResource(n) &&
         !absl::StartsWith(n.type_string(), "_");
}

// The fed tensor a client-terminated _Recv stands for, or empty.
std::string FedTensor(const Node& n) {
  if (n.type_string() != "_Recv") return "";
  const AttrValue* client = FindNodeAttr(n.def(), "client_terminated");
  const AttrValue* name = FindNodeAttr(n.def(), "tensor_name");
  if (client == nullptr || !client->b() || name == nullptr) return "";
  return name->s();
}

}  // namespace

StepShapes::StepShapes(const Graph& graph, const GraphFrames& frames,
                       const FeedShapes& feeds)
    : shapes_(graph.num_node_ids()) {
  for (Node* n : TopologicalOrder(graph)) {
    std::vector<PartialShape>& out = shapes_[n->id()];
    out.assign(n->num_outputs(), PartialShape::Unknown());
    if (!feeds.empty() && n->num_outputs() == 1) {
      const std::string fed = FedTensor(*n);
      auto it = fed.empty() ? feeds.end() : feeds.find(fed);
      if (it != feeds.end()) {
        out[0] = it->second;
        continue;
      }
    }
    if (!ShapesTrusted(frames, *n)) continue;
    const OpRegistrationData* reg =
        graph.op_registry()->LookUp(n->type_string());
    if (reg == nullptr || !reg->shape_fn) continue;
    std::vector<PartialShape> inputs(n->num_inputs(), PartialShape::Unknown());
    std::vector<const TensorProto*> tensors(n->num_inputs(), nullptr);
    for (const Edge* e : n->in_edges()) {
      if (e->IsControlEdge()) continue;
      inputs[e->dst_input] = Get(*e->src, e->src_output);
      if (e->src->type_string() == "Const" && e->src_output == 0) {
        const AttrValue* value = FindNodeAttr(e->src->def(), "value");
        if (value != nullptr && value->has_tensor()) {
          tensors[e->dst_input] = &value->tensor();
        }
      }
    }
    InferenceContext ctx(n->def(), n->op_def(), std::move(inputs),
                         std::move(tensors), n->num_outputs());
    if (!reg->shape_fn(&ctx).ok()) continue;
    for (int i = 0; i < n->num_outputs(); ++i) out[i] = ctx.output(i);
  }
}

const PartialShape& StepShapes::Get(const Node& n, int output) const {
  if (n.id() >= static_cast<int>(shapes_.size())) return unknown_;
  const std::vector<PartialShape>& out = shapes_[n.id()];
  if (output < 0 || output >= static_cast<int>(out.size())) return unknown_;
  return out[output];
}

void StepShapes::Alias(int from_id, const Node& to) {
  if (from_id < 0 || from_id >= static_cast<int>(shapes_.size())) return;
  if (to.id() >= static_cast<int>(shapes_.size())) {
    shapes_.resize(to.id() + 1);
  }
  shapes_[to.id()] = shapes_[from_id];
}

namespace {

// The value Shape, Size or Rank `n` computes from `shape`, if it is known
// enough and fits the output type.
absl::StatusOr<Tensor> ShapeValue(const Node& n, const PartialShape& shape) {
  const std::string& op = n.type_string();
  const DataType out = n.output_type(0);
  auto not_known = [] { return absl::FailedPreconditionError("not known"); };
  if (op == "Rank") {
    if (!shape.RankKnown()) return not_known();
    return Tensor::Scalar<int32_t>(shape.rank());
  }
  if (!shape.FullyDefined()) return not_known();
  const int64_t limit = out == DT_INT32 ? std::numeric_limits<int32_t>::max()
                                        : std::numeric_limits<int64_t>::max();
  if (op == "Size") {
    int64_t size = 1;
    for (int64_t d : shape.dims) {
      if (__builtin_mul_overflow(size, d, &size)) return not_known();
    }
    if (size > limit) return not_known();
    return out == DT_INT32 ? Tensor::Scalar<int32_t>(static_cast<int32_t>(size))
                           : Tensor::Scalar<int64_t>(size);
  }
  for (int64_t d : shape.dims) {
    if (d > limit) return not_known();
  }
  if (out == DT_INT32) {
    std::vector<int32_t> dims(shape.dims.begin(), shape.dims.end());
    return Tensor::FromVector<int32_t>(dims);
  }
  return Tensor::FromVector<int64_t>(shape.dims);
}

}  // namespace

absl::StatusOr<int> MaterializeShapes(const GraphFrames& frames,
                                      const StepShapes& shapes, Graph* graph) {
  std::vector<Node*> candidates;
  for (Node* n : graph->nodes()) {
    const std::string& op = n->type_string();
    if ((op == "Shape" || op == "Size" || op == "Rank") &&
        n->num_outputs() == 1 && InRootFrame(frames, *n) &&
        IsCpuDevice(n->assigned_device_name())) {
      candidates.push_back(n);
    }
  }
  int replaced = 0;
  for (Node* n : candidates) {
    const Edge* in = n->input_edge(0);
    if (in == nullptr || ReadsRefOrResource(*n) ||
        in->src->assigned_device_name() != n->assigned_device_name() ||
        (n->output_type(0) != DT_INT32 && n->output_type(0) != DT_INT64)) {
      continue;
    }
    absl::StatusOr<Tensor> value =
        ShapeValue(*n, shapes.Get(*in->src, in->src_output));
    if (!value.ok()) continue;
    Node* src = in->src;
    DFX_ASSIGN_OR_RETURN(
        Node * c, ReplaceNode(graph, n, ConstNodeDef(n->name(), *value), {}));
    graph->AddControlEdge(src, c);
    ++replaced;
  }
  return replaced;
}

}  // namespace dfx::optimizer
