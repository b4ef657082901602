// The remapper (remapper.h). Patterns are matched forward from each
// contraction (Conv2D, MatMul) in topological order; a matched pattern is
// replaced at once, so later matches see the rewritten graph.
//
// Why each condition: the fused node computes the pattern's last output
// only, so every intermediate output must be read by the next node alone
// and by nobody else (not fetched, no control consumer waiting for it to
// finish). Its kernel refuses what TensorFlow's fused kernel refuses
// (grouped convolutions, NCHW) and, unlike the unfused BiasAdd and
// FusedBatchNorm, checks argument sizes only when the output is non-empty,
// so the pass fuses only where static shapes prove the arguments fit: then
// the fused graph fails where and how the original one does, and computes
// the same values up to float rounding in the batch norm.
#include "master/optimizer/remapper.h"

#include <cstdint>
#include <string>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "graph/node_def_util.h"

namespace dfx::optimizer {
namespace {

bool IsBatchNorm(const Node& n) {
  const std::string& op = n.type_string();
  return op == "FusedBatchNorm" || op == "FusedBatchNormV2" ||
         op == "FusedBatchNormV3";
}

bool Nhwc(const Node& n) {
  const AttrValue* format = FindNodeAttr(n.def(), "data_format");
  return format == nullptr || format->s() == "NHWC";
}

// A static dim of `s`, or -1.
int64_t Dim(const PartialShape& s, int rank, int i) {
  if (!s.RankKnown() || s.rank() != rank) return -1;
  return s.dims[i];
}

class Remapper {
 public:
  Remapper(const KeptNodes& kept, const GraphFrames& frames,
           const KernelRegistry* kernels, const StepShapes& shapes,
           Graph* graph)
      : kept_(kept),
        frames_(frames),
        kernels_(kernels),
        shapes_(shapes),
        graph_(graph) {}

  absl::StatusOr<RemapperStats> Run() {
    if (kernels_ == nullptr) return stats_;
    std::vector<int> ids;
    for (Node* n : TopologicalOrder(*graph_)) ids.push_back(n->id());
    for (int id : ids) {
      Node* n = graph_->FindNodeId(id);
      if (n == nullptr) continue;  // fused away
      const std::string& op = n->type_string();
      if (op == "Conv2D" || op == "MatMul") {
        DFX_RETURN_IF_ERROR(TryFuse(n, op == "Conv2D"));
      }
    }
    return stats_;
  }

 private:
  // The node reading output 0 of `n` into its input 0 when that is all that
  // reads `n` (no other data or control consumer) and `n` is not kept.
  Node* SoleConsumer(const Node& n) const {
    if (kept_.contains(n.name()) || n.out_edges().size() != 1) return nullptr;
    const Edge* e = n.out_edges()[0];
    if (e->IsControlEdge() || e->src_output != 0 || e->dst_input != 0) {
      return nullptr;
    }
    return e->dst;
  }

  // Whether `m` may join the pattern of contraction `c`.
  bool Joins(const Node& m, const Node& c) const {
    return InRootFrame(frames_, m) &&
           m.assigned_device_name() == c.assigned_device_name() &&
           m.num_outputs() > 0 && m.output_type(0) == c.output_type(0);
  }

  // Whether data input `i` of `n` statically has shape [depth].
  bool VectorOf(const Node& n, int i, int64_t depth) const {
    const Edge* e = n.input_edge(i);
    return e != nullptr &&
           Dim(shapes_.Get(*e->src, e->src_output), 1, 0) == depth;
  }

  bool IsActivation(const Node& n, bool conv) const {
    const std::string& op = n.type_string();
    return op == "Relu" || op == "Relu6" || op == "Elu" || op == "LeakyRelu" ||
           (!conv && (op == "Sigmoid" || op == "Tanh"));
  }

  // An inference batch norm of depth `depth` after `c`, whose outputs other
  // than y nobody reads.
  bool BatchNormFits(const Node& bn, const Node& c, int64_t depth) const {
    bool training = true;
    if (!IsBatchNorm(bn) || !Joins(bn, c) || !Nhwc(bn) ||
        !GetNodeAttr(bn.def(), "is_training", &training).ok() || training) {
      return false;
    }
    for (int i = 1; i <= 4; ++i) {
      if (bn.input_type(i) != c.output_type(0) || !VectorOf(bn, i, depth)) {
        return false;
      }
    }
    for (const Edge* e : bn.out_edges()) {
      if (!e->IsControlEdge() && e->src_output != 0) return false;
    }
    return true;
  }

  // The output depth of contraction `c` when its shapes are static enough
  // (and, for Conv2D, show it is not grouped), else -1.
  int64_t Depth(const Node& c, bool conv) const {
    const Edge* a = c.input_edge(0);
    const Edge* b = c.input_edge(1);
    if (a == nullptr || b == nullptr) return -1;
    const PartialShape& bs = shapes_.Get(*b->src, b->src_output);
    if (!conv) {
      bool transpose_b = false;
      if (!GetNodeAttr(c.def(), "transpose_b", &transpose_b).ok()) {
        return -1;
      }
      return Dim(bs, 2, transpose_b ? 0 : 1);
    }
    const int64_t in_depth = Dim(shapes_.Get(*a->src, a->src_output), 4, 3);
    if (in_depth < 0 || Dim(bs, 4, 2) != in_depth) return -1;
    return Dim(bs, 4, 3);
  }

  // bias folded into mean: a new Const mean - bias on c's device, or null
  // when either is not a float vector of `depth` Const values.
  absl::StatusOr<Node*> FoldedMean(const Node& bias, const Node& mean,
                                   const Node& c, const std::string& base,
                                   int64_t depth) {
    absl::StatusOr<Tensor> b = ConstValue(bias);
    absl::StatusOr<Tensor> m = ConstValue(mean);
    if (!b.ok() || !m.ok() || b->dtype() != DT_FLOAT ||
        m->dtype() != DT_FLOAT || b->NumElements() != depth ||
        m->NumElements() != depth) {
      return nullptr;
    }
    Tensor folded(DT_FLOAT, TensorShape({depth}));
    for (int64_t i = 0; i < depth; ++i) {
      folded.data<float>()[i] = m->data<float>()[i] - b->data<float>()[i];
    }
    std::string name = absl::StrCat(base, "/folded_mean");
    for (int k = 1; graph_->FindNode(name) != nullptr; ++k) {
      name = absl::StrCat(base, "/folded_mean_", k);
    }
    DFX_ASSIGN_OR_RETURN(Node * node,
                         graph_->AddNode(ConstNodeDef(name, folded)));
    node->set_assigned_device_name(c.assigned_device_name());
    return node;
  }

  absl::Status TryFuse(Node* c, bool conv) {
    const DataType t = c->output_type(0);
    const bool served =
        conv ? (t == DT_FLOAT || t == DT_DOUBLE)
             : (t == DT_FLOAT || t == DT_HALF || t == DT_BFLOAT16);
    if (!served || !InRootFrame(frames_, *c) ||
        !IsCpuDevice(c->assigned_device_name()) || (conv && !Nhwc(*c))) {
      return absl::OkStatus();
    }
    const int64_t depth = Depth(*c, conv);
    Node* next = SoleConsumer(*c);
    if (depth < 0 || next == nullptr || !Joins(*next, *c)) {
      return absl::OkStatus();
    }
    Node* bias_add = nullptr;
    Node* bn = nullptr;
    if (next->type_string() == "BiasAdd" && Nhwc(*next) &&
        VectorOf(*next, 1, depth)) {
      bias_add = next;
      Node* after = SoleConsumer(*next);
      if (conv && after != nullptr && BatchNormFits(*after, *c, depth) &&
          ConstInput(*next, 1) != nullptr && ConstInput(*after, 3) != nullptr) {
        bn = after;
      }
    } else if (conv && BatchNormFits(*next, *c, depth)) {
      bn = next;
    } else {
      return absl::OkStatus();
    }
    Node* last = bn != nullptr ? bn : bias_add;
    Node* act = nullptr;
    if (Node* a = SoleConsumer(*last);
        a != nullptr && IsActivation(*a, conv) && Joins(*a, *c)) {
      act = a;
    }

    NodeDef def;
    def.set_op(conv ? "_FusedConv2D" : "_FusedMatMul");
    auto& attrs = *def.mutable_attr();
    attrs["T"].set_type(t);
    const char* const copied_conv[] = {"strides",           "padding",
                                       "explicit_paddings", "data_format",
                                       "dilations",         "use_cudnn_on_gpu"};
    const char* const copied_matmul[] = {"transpose_a", "transpose_b"};
    if (conv) {
      for (const char* name : copied_conv) {
        if (const AttrValue* v = FindNodeAttr(c->def(), name)) {
          attrs[name] = *v;
        }
      }
      attrs["num_host_args"].set_i(0);
      attrs["filter_format"].set_s("HWIO");
    } else {
      for (const char* name : copied_matmul) {
        if (const AttrValue* v = FindNodeAttr(c->def(), name)) {
          attrs[name] = *v;
        }
      }
    }
    auto* fused_ops = attrs["fused_ops"].mutable_list();
    fused_ops->add_s(bn != nullptr ? "FusedBatchNorm" : "BiasAdd");
    if (act != nullptr) fused_ops->add_s(act->type_string());
    const int num_args = bn != nullptr ? 4 : 1;
    attrs["num_args"].set_i(num_args);
    if (conv) {
      auto* targs = attrs["TArgs"].mutable_list();
      for (int i = 0; i < num_args; ++i) targs->add_type(t);
    }
    float epsilon = 1e-4f;
    if (bn != nullptr && !GetNodeAttr(bn->def(), "epsilon", &epsilon).ok()) {
      epsilon = 1e-4f;
    }
    attrs["epsilon"].set_f(epsilon);
    float alpha = 0.2f;
    if (act != nullptr && act->type_string() == "LeakyRelu" &&
        !GetNodeAttr(act->def(), "alpha", &alpha).ok()) {
      alpha = 0.2f;
    }
    attrs["leakyrelu_alpha"].set_f(alpha);
    Node* const tail = act != nullptr ? act : last;
    // A kept batch norm may be fetched by its other outputs, which the
    // fused node does not have.
    if (tail == bn && kept_.contains(bn->name())) return absl::OkStatus();
    def.set_name(tail->name());
    if (!kernels_->HasKernel(def, "CPU")) return absl::OkStatus();

    // The inputs: the contraction's two, then the arguments.
    std::vector<OutputRef> inputs;
    for (int i = 0; i < 2; ++i) {
      const Edge* e = c->input_edge(i);
      inputs.push_back({e->src, e->src_output});
    }
    Node* old_bias = nullptr;
    Node* old_mean = nullptr;
    if (bn != nullptr) {
      for (int i = 1; i <= 4; ++i) {
        const Edge* e = bn->input_edge(i);
        inputs.push_back({e->src, e->src_output});
      }
      if (bias_add != nullptr) {
        old_bias = bias_add->input_edge(1)->src;
        old_mean = bn->input_edge(3)->src;
        DFX_ASSIGN_OR_RETURN(Node * folded, FoldedMean(*old_bias, *old_mean, *c,
                                                       bn->name(), depth));
        if (folded == nullptr) return absl::OkStatus();
        inputs[4] = {folded, 0};
        ++stats_.biases_folded;
      }
    } else {
      const Edge* e = bias_add->input_edge(1);
      inputs.push_back({e->src, e->src_output});
    }

    // The intermediates go; their control inputs move to the fused node.
    std::vector<Node*> intermediates = {c};
    for (Node* m : {bias_add, bn, act}) {
      if (m != nullptr && m != tail) intermediates.push_back(m);
    }
    std::vector<Node*> control;
    for (Node* m : intermediates) {
      for (Node* src : ControlInputs(*m)) control.push_back(src);
    }
    for (Node* m : intermediates) graph_->RemoveNode(m);
    DFX_ASSIGN_OR_RETURN(Node * fused,
                         ReplaceNode(graph_, tail, std::move(def), inputs));
    absl::flat_hash_set<Node*> seen;
    for (Node* src : control) {
      if (seen.insert(src).second) graph_->AddControlEdge(src, fused);
    }
    if (old_bias != nullptr) RemoveIfUnread(graph_, kept_, old_bias);
    if (old_mean != nullptr) RemoveIfUnread(graph_, kept_, old_mean);
    ++(conv ? stats_.conv_fusions : stats_.matmul_fusions);
    stats_.nodes_fused += static_cast<int>(intermediates.size()) + 1;
    return absl::OkStatus();
  }

  const KeptNodes& kept_;
  const GraphFrames& frames_;
  const KernelRegistry* const kernels_;
  const StepShapes& shapes_;
  Graph* const graph_;
  RemapperStats stats_;
};

}  // namespace

absl::StatusOr<RemapperStats> FuseContractions(const KeptNodes& kept,
                                               const GraphFrames& frames,
                                               const KernelRegistry* kernels,
                                               const StepShapes& shapes,
                                               Graph* graph) {
  return Remapper(kept, frames, kernels, shapes, graph).Run();
}

}  // namespace dfx::optimizer
