// Why each rewrite is exact:
// - x*1 is x for every real x (NaN, infinities and -0.0 included); complex
//   x*1 is not ((inf+0i)*(1+0i) has a NaN part), so complex is left alone.
// - x+(-0.0) is x for every x, but x+(+0.0) is +0.0 when x is -0.0, and
//   x-(+0.0) is x while x-(-0.0) is not. TensorFlow's constant folding
//   bypasses 0+y whatever the zero's sign (its IsZeros); dfx only where the
//   result cannot change. Integer zeros are always exact.
// - AddN adds left to right (acc = in0 + in1; acc += in_i), in T: a chain
//   ((a+b)+c)+d gives the same bits as AddN(a, b, c, d), and since float
//   addition is commutative, d+((a+b)+c) does too; (a+b)+(c+d) does not, so
//   float chains absorb at most one inner Add per node. Integer addition
//   wraps and is associative, so any tree goes.
// - Neg, Transpose pairs, Cast to the same type and shape-only ops move no
//   value: their consumers may read the input itself when the static shapes
//   prove the removed nodes could not have failed.
#include "master/optimizer/arithmetic.h"

#include <cmath>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "base/status_macros.h"
#include "graph/device_name.h"
#include "graph/node_def_util.h"

namespace dfx::optimizer {
namespace {

bool SameStaticShape(const PartialShape& a, const PartialShape& b) {
  return a.FullyDefined() && b.FullyDefined() && a.dims == b.dims;
}

bool RealType(DataType t) {
  return t == DT_FLOAT || t == DT_DOUBLE || t == DT_INT32 || t == DT_INT64;
}

enum class IdentityKind { kOne, kAddZero, kSubZero };

constexpr int64_t kMaxIdentityElements = int64_t{1} << 16;

// Whether every element of Const `c` (of dtype `t`) is the identity `what`.
bool ConstIsIdentity(const Node& c, DataType t, IdentityKind what) {
  // Decoding a big Const once per step signature costs more than the
  // rewrite could save.
  const AttrValue* attr = FindNodeAttr(c.def(), "value");
  if (attr == nullptr || !attr->has_tensor()) return false;
  int64_t elements = 1;
  for (const auto& d : attr->tensor().tensor_shape().dim()) {
    if (d.size() < 0 || __builtin_mul_overflow(elements, d.size(), &elements) ||
        elements > kMaxIdentityElements) {
      return false;
    }
  }
  absl::StatusOr<Tensor> value = ConstValue(c);
  if (!value.ok() || value->dtype() != t || value->NumElements() == 0) {
    return false;
  }
  auto check_float = [what](auto v) {
    switch (what) {
      case IdentityKind::kOne:
        return v == 1;
      case IdentityKind::kAddZero:
        return v == 0 && std::signbit(v);
      case IdentityKind::kSubZero:
        return v == 0 && !std::signbit(v);
    }
    return false;
  };
  auto check_int = [what](auto v) {
    return what == IdentityKind::kOne ? v == 1 : v == 0;
  };
  auto all = [](auto span, auto pred) {
    for (auto v : span) {
      if (!pred(v)) return false;
    }
    return true;
  };
  switch (t) {
    case DT_FLOAT:
      return all(value->span<float>(), check_float);
    case DT_DOUBLE:
      return all(value->span<double>(), check_float);
    case DT_INT32:
      return all(value->span<int32_t>(), check_int);
    case DT_INT64:
      return all(value->span<int64_t>(), check_int);
    default:
      return false;
  }
}

// A permutation from a Const of int32 or int64, or empty.
std::vector<int64_t> Permutation(const Node& c) {
  absl::StatusOr<Tensor> value = ConstValue(c);
  std::vector<int64_t> perm;
  if (!value.ok() || value->dims() != 1) return {};
  if (value->dtype() == DT_INT32) {
    for (int32_t v : value->span<int32_t>()) perm.push_back(v);
  } else if (value->dtype() == DT_INT64) {
    for (int64_t v : value->span<int64_t>()) perm.push_back(v);
  } else {
    return {};
  }
  std::vector<bool> seen(perm.size(), false);
  for (int64_t v : perm) {
    if (v < 0 || v >= static_cast<int64_t>(perm.size()) || seen[v]) return {};
    seen[v] = true;
  }
  return perm;
}

bool IsShapeOnlyOp(const Node& n) {
  const std::string& op = n.type_string();
  return op == "Reshape" || op == "Squeeze" || op == "ExpandDims";
}

class Simplifier {
 public:
  Simplifier(const KeptNodes& kept, const GraphFrames& frames,
             const KernelRegistry* kernels, StepShapes* shapes, Graph* graph)
      : kept_(kept),
        frames_(frames),
        kernels_(kernels),
        shapes_(shapes),
        graph_(graph) {}

  absl::StatusOr<ArithmeticStats> Run() {
    std::vector<std::string> order;
    for (Node* n : TopologicalOrder(*graph_)) order.push_back(n->name());
    for (const std::string& name : order) {
      Node* n = graph_->FindNode(name);
      if (n != nullptr && Candidate(*n)) TryBypass(n);
    }
    // Roots before the Adds they absorb.
    for (auto it = order.rbegin(); it != order.rend(); ++it) {
      Node* n = graph_->FindNode(*it);
      if (n != nullptr && Candidate(*n)) {
        DFX_RETURN_IF_ERROR(TryAddChain(n));
      }
    }
    return stats_;
  }

 private:
  bool Candidate(const Node& n) const {
    return InRootFrame(frames_, n) && n.num_outputs() == 1 && !n.IsStateful() &&
           AllPlainTypes(n) && !ReadsRefOrResource(n);
  }

  bool SameDevice(const Node& a, const Node& b) const {
    return a.assigned_device_name() == b.assigned_device_name();
  }

  // A node `n` may feed `m` instead of itself in a rewrite: same device,
  // root frame, no control inputs, not kept.
  bool Inner(const Node& n, const Node& m) const {
    return SameDevice(n, m) && Candidate(m) && !HasControlInputs(m) &&
           !kept_.contains(m.name());
  }

  const PartialShape& Shape(const Edge* e) const {
    return shapes_->Get(*e->src, e->src_output);
  }

  // Makes `n`'s consumers read `e`'s source instead (see the header); `also`
  // are nodes proved not to fail that may go with `n`.
  void Bypass(Node* n, const Edge* e,
              absl::flat_hash_set<const Node*> also = {}) {
    if (kept_.contains(n->name()) || !SameDevice(*n, *e->src)) return;
    const std::vector<Node*> control = ControlInputs(*n);
    if (!control.empty()) {
      for (const Edge* out : n->out_edges()) {
        if (IsControlFlowNode(*out->dst) || !SameDevice(*n, *out->dst)) {
          return;
        }
      }
    }
    ForwardOutput(graph_, n, 0, e->src, e->src_output, control);
    RemoveIfUnread(graph_, kept_, n, also);
    ++stats_.nodes_bypassed;
  }

  void TryBypass(Node* n) {
    const std::string& op = n->type_string();
    const DataType t = n->output_type(0);
    if (op == "Mul" || op == "AddV2" || op == "Add" || op == "Sub") {
      if (!RealType(t)) return;
      for (int x = 0; x < 2; ++x) {
        const int c = 1 - x;
        if (op == "Sub" && c == 0) continue;
        const Node* konst = ConstInput(*n, c);
        const Edge* in = n->input_edge(x);
        if (konst == nullptr || in == nullptr || !SameDevice(*n, *konst)) {
          continue;
        }
        const IdentityKind what = op == "Mul"   ? IdentityKind::kOne
                                  : op == "Sub" ? IdentityKind::kSubZero
                                                : IdentityKind::kAddZero;
        if (!ConstIsIdentity(*konst, t, what)) continue;
        absl::StatusOr<Tensor> value = ConstValue(*konst);
        const bool scalar = value.ok() && value->dims() == 0;
        if (!scalar && !SameStaticShape(Shape(in), shapes_->Get(*n, 0))) {
          continue;
        }
        Bypass(n, in);
        return;
      }
    } else if (op == "Neg") {
      const Edge* in = n->input_edge(0);
      if (in == nullptr || in->src->type_string() != "Neg" ||
          !Inner(*n, *in->src)) {
        return;
      }
      const Edge* x = in->src->input_edge(0);
      if (x != nullptr) Bypass(n, x, {in->src});
    } else if (op == "Transpose") {
      TryTranspose(n);
    } else if (op == "Cast") {
      const Edge* in = n->input_edge(0);
      if (in != nullptr && n->input_type(0) == t) Bypass(n, in);
    } else if (IsShapeOnlyOp(*n)) {
      TryShapeOnly(n);
    }
  }

  void TryTranspose(Node* n) {
    const Edge* in = n->input_edge(0);
    const Node* perm_node = ConstInput(*n, 1);
    if (in == nullptr || perm_node == nullptr || !SameDevice(*n, *perm_node)) {
      return;
    }
    const std::vector<int64_t> perm = Permutation(*perm_node);
    if (perm.empty()) return;
    bool identity = true;
    for (size_t i = 0; i < perm.size(); ++i) {
      identity = identity && perm[i] == static_cast<int64_t>(i);
    }
    const auto rank_is = [&](const Edge* e) {
      const PartialShape& s = Shape(e);
      return s.RankKnown() && s.rank() == static_cast<int>(perm.size());
    };
    if (identity) {
      if (rank_is(in)) Bypass(n, in);
      return;
    }
    Node* inner = in->src;
    if (inner->type_string() != "Transpose" || !Inner(*n, *inner)) return;
    const Edge* x = inner->input_edge(0);
    const Node* inner_perm_node = ConstInput(*inner, 1);
    if (x == nullptr || inner_perm_node == nullptr ||
        !SameDevice(*n, *inner_perm_node) || !rank_is(x)) {
      return;
    }
    const std::vector<int64_t> inner_perm = Permutation(*inner_perm_node);
    if (inner_perm.size() != perm.size()) return;
    // y[i] = x[inner[i]], z[j] = y[perm[j]] = x[inner[perm[j]]].
    for (size_t j = 0; j < perm.size(); ++j) {
      if (inner_perm[perm[j]] != static_cast<int64_t>(j)) return;
    }
    Bypass(n, x, {inner});
  }

  void TryShapeOnly(Node* n) {
    const PartialShape& out = shapes_->Get(*n, 0);
    const Edge* in = n->input_edge(0);
    // The input's static shape proves `n` cannot fail; so for each node of
    // the chain below.
    if (!out.FullyDefined() || in == nullptr || !Shape(in).FullyDefined()) {
      return;
    }
    absl::flat_hash_set<const Node*> chain;
    const Edge* e = in;
    while (true) {
      if (SameStaticShape(Shape(e), out)) {
        Bypass(n, e, chain);
        return;
      }
      Node* m = e->src;
      if (!IsShapeOnlyOp(*m) || !Inner(*n, *m) || m->input_edge(0) == nullptr ||
          !Shape(m->input_edge(0)).FullyDefined()) {
        break;
      }
      chain.insert(m);
      e = m->input_edge(0);
    }
    // A Reshape depends on its input's element count only: it may read the
    // bottom of the chain.
    if (n->type_string() != "Reshape" || chain.empty() ||
        !SameDevice(*n, *e->src)) {
      return;
    }
    Node* first = in->src;
    Node* src = e->src;
    const int src_output = e->src_output;
    graph_->RemoveEdge(in);
    graph_->AddEdge(src, src_output, n, 0);
    RemoveIfUnread(graph_, kept_, first, chain);
    ++stats_.nodes_bypassed;
  }

  // An Add/AddV2 of static shape `shape` and type `t` on `n`'s device whose
  // inputs have that shape too.
  bool ChainAdd(const Node& m, const Node& n, DataType t,
                const PartialShape& shape) const {
    const std::string& op = m.type_string();
    if ((op != "AddV2" && op != "Add") || !Candidate(m) ||
        m.output_type(0) != t || !SameDevice(m, n) ||
        !SameStaticShape(shapes_->Get(m, 0), shape)) {
      return false;
    }
    for (int i = 0; i < 2; ++i) {
      const Edge* e = m.input_edge(i);
      if (e == nullptr || !SameStaticShape(Shape(e), shape)) return false;
    }
    return true;
  }

  // Whether the Add feeding `e` can join the AddN of chain root `root`.
  bool Absorbable(const Edge* e, const Node& root, DataType t,
                  const PartialShape& shape) const {
    const Node& m = *e->src;
    return e->src_output == 0 && m.out_edges().size() == 1 &&
           !kept_.contains(m.name()) && ChainAdd(m, root, t, shape);
  }

  absl::Status TryAddChain(Node* root) {
    const DataType t = root->output_type(0);
    if ((t != DT_FLOAT && t != DT_DOUBLE && t != DT_INT32 && t != DT_INT64) ||
        kernels_ == nullptr) {
      return absl::OkStatus();
    }
    const PartialShape shape = shapes_->Get(*root, 0);
    if (!ChainAdd(*root, *root, t, shape)) return absl::OkStatus();
    const bool integer = t == DT_INT32 || t == DT_INT64;
    std::vector<OutputRef> leaves;
    std::vector<Node*> absorbed;
    if (integer) {
      // Any tree: integer addition is associative.
      std::vector<const Edge*> work = {root->input_edge(1),
                                       root->input_edge(0)};
      while (!work.empty()) {
        const Edge* e = work.back();
        work.pop_back();
        if (Absorbable(e, *root, t, shape)) {
          absorbed.push_back(e->src);
          work.push_back(e->src->input_edge(1));
          work.push_back(e->src->input_edge(0));
        } else {
          leaves.push_back({e->src, e->src_output});
        }
      }
    } else {
      // A chain, in the order the Adds add.
      std::vector<OutputRef> tails;
      Node* cur = root;
      while (true) {
        const Edge* a = cur->input_edge(0);
        const Edge* b = cur->input_edge(1);
        if (Absorbable(a, *root, t, shape)) {
          tails.push_back({b->src, b->src_output});
          cur = a->src;
        } else if (Absorbable(b, *root, t, shape)) {
          tails.push_back({a->src, a->src_output});
          cur = b->src;
        } else {
          leaves = {{a->src, a->src_output}, {b->src, b->src_output}};
          leaves.insert(leaves.end(), tails.rbegin(), tails.rend());
          break;
        }
        absorbed.push_back(cur);
      }
    }
    if (absorbed.empty()) return absl::OkStatus();
    NodeDef def;
    def.set_name(root->name());
    def.set_op("AddN");
    (*def.mutable_attr())["N"].set_i(static_cast<int64_t>(leaves.size()));
    (*def.mutable_attr())["T"].set_type(t);
    absl::StatusOr<DeviceName> device =
        DeviceName::Parse(root->assigned_device_name());
    if (!device.ok() || !kernels_->HasKernel(def, device->type)) {
      return absl::OkStatus();
    }
    std::vector<Node*> control;
    for (Node* m : absorbed) {
      for (Node* c : ControlInputs(*m)) control.push_back(c);
    }
    const int root_id = root->id();
    for (Node* m : absorbed) graph_->RemoveNode(m);
    DFX_ASSIGN_OR_RETURN(Node * sum,
                         ReplaceNode(graph_, root, std::move(def), leaves));
    for (Node* c : control) graph_->AddControlEdge(c, sum);
    shapes_->Alias(root_id, *sum);
    ++stats_.add_chains;
    stats_.adds_absorbed += static_cast<int>(absorbed.size());
    return absl::OkStatus();
  }

  const KeptNodes& kept_;
  const GraphFrames& frames_;
  const KernelRegistry* const kernels_;
  StepShapes* const shapes_;
  Graph* const graph_;
  ArithmeticStats stats_;
};

}  // namespace

absl::StatusOr<ArithmeticStats> SimplifyArithmetic(
    const KeptNodes& kept, const GraphFrames& frames,
    const KernelRegistry* kernels, StepShapes* shapes, Graph* graph) {
  return Simplifier(kept, frames, kernels, shapes, graph).Run();
}

}  // namespace dfx::optimizer
