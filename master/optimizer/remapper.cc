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
#include <map>
#include <string>
#include <tuple>
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
           const KernelRegistry* kernels, StepShapes* shapes, Graph* graph)
      : kept_(kept),
        frames_(frames),
        kernels_(kernels),
        shapes_(*shapes),
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

  // The node reading output 0 of `n`, through any input (`*input`), when it
  // is all that reads `n` and `n` is not kept.
  Node* SoleReader(const Node& n, int* input) const {
    if (kept_.contains(n.name()) || n.out_edges().size() != 1) return nullptr;
    const Edge* e = n.out_edges()[0];
    if (e->IsControlEdge() || e->src_output != 0) return nullptr;
    *input = e->dst_input;
    return e->dst;
  }

  // The other operand of binary `m` (the pattern reads input `x_input`, a
  // 4-D NHWC tensor) when it is a Const of static shape [depth] or
  // [1, ..., 1, depth] of rank at most 4 (which broadcasts without changing
  // the shape).
  Node* ConstOperand(const Node& m, int x_input, int64_t depth) const {
    const int other = 1 - x_input;
    const Edge* e = m.num_inputs() == 2 ? m.input_edge(other) : nullptr;
    if (e == nullptr) return nullptr;
    const PartialShape& s = shapes_.Get(*e->src, e->src_output);
    if (!s.RankKnown() || s.rank() < 1 || s.rank() > 4 ||
        s.dims[s.rank() - 1] != depth) {
      return nullptr;
    }
    for (int i = 0; i + 1 < s.rank(); ++i) {
      if (s.dims[i] != 1) return nullptr;
    }
    const Node* k = ConstInput(m, other);
    return k == nullptr ? nullptr : graph_->FindNodeId(k->id());
  }

  // Mul by a [depth] Const, then Add/AddV2 of a [depth] Const, after
  // `head`: the inference batch norm Keras 3 freezes into arithmetic.
  struct ScaleShift {
    Node* mul = nullptr;
    Node* add = nullptr;
    Node* scale = nullptr;
    Node* shift = nullptr;
  };
  bool FindScaleShift(const Node& head, const Node& c, int64_t depth,
                      ScaleShift* ss) const {
    int in = 0;
    Node* mul = SoleReader(head, &in);
    if (mul == nullptr || mul->type_string() != "Mul" || !Joins(*mul, c)) {
      return false;
    }
    Node* scale = ConstOperand(*mul, in, depth);
    if (scale == nullptr) return false;
    Node* add = SoleReader(*mul, &in);
    if (add == nullptr ||
        (add->type_string() != "AddV2" && add->type_string() != "Add") ||
        !Joins(*add, c)) {
      return false;
    }
    Node* shift = ConstOperand(*add, in, depth);
    Tensor values;
    if (shift == nullptr || !FloatValues(*scale, depth, &values) ||
        !FloatValues(*shift, depth, &values)) {
      return false;
    }
    *ss = {mul, add, scale, shift};
    return true;
  }

  // A new float Const [depth] named after `base` on c's device, element i
  // fn(i).
  template <typename Fn>
  absl::StatusOr<Node*> NewConst(const std::string& base, const Node& c,
                                 int64_t depth, Fn fn) {
    Tensor value(DT_FLOAT, TensorShape({depth}));
    for (int64_t i = 0; i < depth; ++i) value.data<float>()[i] = fn(i);
    std::string name = base;
    for (int k = 1; graph_->FindNode(name) != nullptr; ++k) {
      name = absl::StrCat(base, "_", k);
    }
    DFX_ASSIGN_OR_RETURN(Node * node,
                         graph_->AddNode(ConstNodeDef(name, value)));
    node->set_assigned_device_name(c.assigned_device_name());
    return node;
  }

  // The values of a float Const of `depth` elements, or false.
  static bool FloatValues(const Node& k, int64_t depth, Tensor* value) {
    absl::StatusOr<Tensor> v = ConstValue(k);
    if (!v.ok() || v->dtype() != DT_FLOAT || v->NumElements() != depth) {
      return false;
    }
    *value = *std::move(v);
    return true;
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
    // The only reader of the contraction; BiasAdd and batch norms read it
    // as input 0, a Mul as either.
    int next_input = 0;
    Node* next = SoleReader(*c, &next_input);
    if (depth < 0 || next == nullptr || !Joins(*next, *c)) {
      return absl::OkStatus();
    }
    Node* bias_add = nullptr;
    Node* bn = nullptr;
    ScaleShift ss;
    Tensor bias_value;  // a Const bias taken into a scale and shift's mean
    bool fold_bias = false;
    if (next_input == 0 && next->type_string() == "BiasAdd" && Nhwc(*next) &&
        VectorOf(*next, 1, depth)) {
      bias_add = next;
      const Node* bias = ConstInput(*next, 1);
      // A batch norm after the BiasAdd is left alone, as TensorFlow's
      // remapper leaves it: folding the bias into its mean would compute
      // x - (mean - bias) where the graph says (x + bias) - mean, another
      // rounding. Keras 3's scale and shift take the bias exactly (below).
      const bool folds = conv && t == DT_FLOAT && bias != nullptr &&
                         FloatValues(*bias, depth, &bias_value);
      if (folds && FindScaleShift(*next, *c, depth, &ss)) fold_bias = true;
    } else if (conv && next_input == 0 && BatchNormFits(*next, *c, depth)) {
      bn = next;
    } else if (!(conv && t == DT_FLOAT && FindScaleShift(*c, *c, depth, &ss))) {
      return absl::OkStatus();
    }
    Node* last = bn != nullptr ? bn : ss.add != nullptr ? ss.add : bias_add;
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
    const bool batch_norm = bn != nullptr || ss.add != nullptr;
    fused_ops->add_s(batch_norm ? "FusedBatchNorm" : "BiasAdd");
    if (act != nullptr) fused_ops->add_s(act->type_string());
    const int num_args = batch_norm ? 4 : 1;
    attrs["num_args"].set_i(num_args);
    if (conv) {
      auto* targs = attrs["TArgs"].mutable_list();
      for (int i = 0; i < num_args; ++i) targs->add_type(t);
    }
    // A scale and shift is a batch norm of variance 1 and epsilon 0, whose
    // factor scale / sqrt(1 + 0) is the scale itself.
    float epsilon = ss.add != nullptr ? 0.0f : 1e-4f;
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
    if (fold_bias) old_bias = bias_add->input_edge(1)->src;
    if (bn != nullptr) {
      for (int i = 1; i <= 4; ++i) {
        const Edge* e = bn->input_edge(i);
        inputs.push_back({e->src, e->src_output});
      }
    } else if (ss.add != nullptr) {
      // ((x + bias) * scale + shift) as ((x - (-bias)) * scale + shift):
      // the same float operations in the same order.
      // Zero means and unit variances are shared by the fusions of one
      // device and depth, and so is the vector copy of a Const (every new
      // Const is a node the executor runs each step).
      const std::string& device = c->assigned_device_name();
      Node*& zeros = shared_[{device, depth, "zeros"}];
      Node* mean = zeros;
      if (fold_bias || zeros == nullptr) {
        DFX_ASSIGN_OR_RETURN(
            mean,
            NewConst(ss.add->name() + "/fused_mean", *c, depth, [&](int64_t i) {
              return fold_bias ? -bias_value.data<float>()[i] : 0.0f;
            }));
        if (!fold_bias) zeros = mean;
      }
      Node*& variance = shared_[{device, depth, "ones"}];
      if (variance == nullptr) {
        DFX_ASSIGN_OR_RETURN(
            variance, NewConst(ss.add->name() + "/fused_variance", *c, depth,
                               [](int64_t) { return 1.0f; }));
      }
      // The kernel takes vectors: a [1, 1, 1, depth] Const is copied into
      // a [depth] one.
      for (Node* k : {ss.scale, ss.shift}) {
        Tensor v;
        if (!FloatValues(*k, depth, &v)) return absl::OkStatus();
        Node* arg = k;
        if (v.dims() != 1) {
          Node*& copy = shared_[{device, k->id(), "vector"}];
          if (copy == nullptr) {
            DFX_ASSIGN_OR_RETURN(
                copy, NewConst(absl::StrCat(k->name(), "/vector"), *c, depth,
                               [&](int64_t i) { return v.data<float>()[i]; }));
          }
          arg = copy;
        }
        inputs.push_back({arg, 0});
      }
      inputs.push_back({mean, 0});
      inputs.push_back({variance, 0});
      if (fold_bias) ++stats_.biases_folded;
      ++stats_.scale_shifts_fused;
    } else {
      const Edge* e = bias_add->input_edge(1);
      inputs.push_back({e->src, e->src_output});
    }

    // The intermediates go; their control inputs move to the fused node.
    std::vector<Node*> intermediates = {c};
    for (Node* m : {bias_add, bn, ss.mul, ss.add, act}) {
      if (m != nullptr && m != tail) intermediates.push_back(m);
    }
    std::vector<Node*> control;
    for (Node* m : intermediates) {
      for (Node* src : ControlInputs(*m)) control.push_back(src);
    }
    for (Node* m : intermediates) graph_->RemoveNode(m);
    const int tail_id = tail->id();
    DFX_ASSIGN_OR_RETURN(Node * fused,
                         ReplaceNode(graph_, tail, std::move(def), inputs));
    // Later patterns read the fused node's shape (a convolution's depth).
    shapes_.Alias(tail_id, *fused);
    absl::flat_hash_set<Node*> seen;
    for (Node* src : control) {
      if (seen.insert(src).second) graph_->AddControlEdge(src, fused);
    }
    if (old_bias != nullptr) RemoveIfUnread(graph_, kept_, old_bias);
    if (ss.add != nullptr) {
      RemoveIfUnread(graph_, kept_, ss.scale);
      RemoveIfUnread(graph_, kept_, ss.shift);
    }
    ++(conv ? stats_.conv_fusions : stats_.matmul_fusions);
    stats_.nodes_fused += static_cast<int>(intermediates.size()) + 1;
    return absl::OkStatus();
  }

  const KeptNodes& kept_;
  const GraphFrames& frames_;
  const KernelRegistry* const kernels_;
  StepShapes& shapes_;
  Graph* const graph_;
  RemapperStats stats_;
  // Consts made for the fusions, by (device, depth or source node id,
  // kind): see TryFuse.
  std::map<std::tuple<std::string, int64_t, std::string>, Node*> shared_;
};

}  // namespace

absl::StatusOr<RemapperStats> FuseContractions(const KeptNodes& kept,
                                               const GraphFrames& frames,
                                               const KernelRegistry* kernels,
                                               StepShapes* shapes,
                                               Graph* graph) {
  return Remapper(kept, frames, kernels, shapes, graph).Run();
}

}  // namespace dfx::optimizer
