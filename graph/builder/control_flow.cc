#include "graph/builder/control_flow.h"

#include <algorithm>
#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "graph/node_def_util.h"
#include "graph/op_registry.h"
#include "graph/types.h"
#include "proto/attr_value.pb.h"
#include "proto/node_def.pb.h"
#include "proto/tensor.pb.h"

namespace dfx::ops {
namespace {

using NameSet = absl::flat_hash_set<std::string>;

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

// A node added by this file: its name and its position in the scope's graph.
struct Added {
  std::string name;
  int position = 0;
};

// Adds a node of `op` with `inputs`, attr T = `t` (unless DT_INVALID) and
// `attrs`. Scope::AddNode records failures in the scope.
absl::StatusOr<Added> AddOp(
    const Scope& scope, absl::string_view op, std::vector<std::string> inputs,
    DataType t, std::vector<std::pair<std::string, AttrValue>> attrs = {}) {
  NodeDef node;
  node.set_name(scope.GetUniqueNameForOp(op));
  node.set_op(std::string(op));
  for (std::string& input : inputs) node.add_input(std::move(input));
  if (t != DT_INVALID) (*node.mutable_attr())["T"].set_type(t);
  for (auto& [name, value] : attrs) {
    (*node.mutable_attr())[name] = std::move(value);
  }
  Added added{node.name(), 0};
  DFX_RETURN_IF_ERROR(scope.AddNode(std::move(node)));
  added.position = scope.num_nodes() - 1;
  return added;
}

// `message` with `context` before it, keeping `s`'s code.
absl::Status Annotate(const absl::Status& s, absl::string_view context) {
  return absl::Status(s.code(), absl::StrCat(context, s.message()));
}

// The dtype of output `index` of the node called `name`, from its op's
// signature in the global registry: what an outside value used in a loop or
// branch carries, which the NodeDef input string does not say.
class OutputTypes {
 public:
  explicit OutputTypes(const Scope& scope) : scope_(scope) {}

  absl::StatusOr<DataType> Get(const std::string& name, int index) {
    if (positions_.empty() || !positions_.contains(name)) {
      for (int p = static_cast<int>(positions_.size()); p < scope_.num_nodes();
           ++p) {
        positions_.emplace(scope_.node(p).name(), p);
      }
    }
    auto it = positions_.find(name);
    if (it == positions_.end()) {
      return absl::InvalidArgumentError(
          absl::StrCat("no node '", name, "' in the graph"));
    }
    NodeDef node = scope_.node(it->second);
    DFX_ASSIGN_OR_RETURN(const OpRegistrationData* op,
                         OpRegistry::Global()->LookUpOrError(node.op()));
    AddDefaultAttrs(op->op_def, &node);
    DataTypeVector ins, outs;
    DFX_RETURN_IF_ERROR(InOutTypesForNode(node, op->op_def, &ins, &outs));
    if (index >= static_cast<int>(outs.size())) {
      return absl::InvalidArgumentError(absl::StrCat(
          "node '", name, "' has ", outs.size(), " outputs, not ", index + 1));
    }
    return BaseType(outs[index]);
  }

 private:
  const Scope& scope_;
  // Node name -> position, for the first positions_.size() nodes.
  absl::flat_hash_map<std::string, int> positions_;
};

// Where a loop or a branch takes an outside value from: `data` returns the
// tensor ("name" or "name:k") to use instead of the outside tensor
// `node:index` of dtype `t`; `control` the node to depend on instead of the
// outside node, or that node itself to keep the edge.
struct Capture {
  std::function<absl::StatusOr<std::string>(const std::string& node, int index,
                                            DataType t)>
      data;
  std::function<absl::StatusOr<std::string>(const std::string& node)> control;
};

std::string TensorName(const std::string& node, int index) {
  return index == 0 ? node : absl::StrCat(node, ":", index);
}

// Rewires the nodes at positions [begin, end) of `scope`'s graph, all part
// of a loop or branch whose nodes are `inside`: every input from a node not
// in `inside` goes through `capture`, and a node with no input (data or
// control) from `live` (the nodes of its iteration or branch) gets a control
// input from `pivot`.
absl::Status Rewire(const Scope& scope, int begin, int end,
                    const NameSet& inside, const NameSet& live,
                    const std::string& pivot, const Capture& capture,
                    OutputTypes& types, const NameSet* foreign = nullptr) {
  for (int p = begin; p < end; ++p) {
    const NodeDef& node = scope.node(p);
    const std::string node_name = node.name();
    if (foreign != nullptr && foreign->contains(node_name)) continue;
    std::vector<std::string> inputs;
    inputs.reserve(node.input_size() + 1);
    bool changed = false;
    bool has_live = false;
    // Copies: capturing adds nodes, after which `node` is not to be used.
    struct Input {
      std::string input;  // as written: "src", "src:k" or "^src"
      std::string src;
      int index;  // -1 for a control input
    };
    std::vector<Input> parsed_inputs;
    for (const std::string& input : node.input()) {
      ParsedInput parsed;
      DFX_RETURN_IF_ERROR(ParseNodeInput(input, &parsed));
      parsed_inputs.push_back({input, std::string(parsed.node), parsed.index});
    }
    for (const auto& [input, src, index] : parsed_inputs) {
      if (inside.contains(src)) {
        has_live = has_live || live.contains(src);
        inputs.push_back(input);
        continue;
      }
      changed = true;
      // (Named again: clang 14 cannot capture a structured binding.)
      auto annotate = [&, &input = input](const absl::Status& s) {
        return Annotate(s, absl::StrCat("node '", node_name, "' uses '", input,
                                        "' from outside: "));
      };
      if (index < 0) {
        absl::StatusOr<std::string> dep = capture.control(src);
        if (!dep.ok()) return annotate(dep.status());
        inputs.push_back(absl::StrCat("^", *dep));
        continue;
      }
      absl::StatusOr<DataType> t = types.Get(src, index);
      if (!t.ok()) return annotate(t.status());
      absl::StatusOr<std::string> value = capture.data(src, index, *t);
      if (!value.ok()) return annotate(value.status());
      inputs.push_back(*value);
    }
    if (!has_live && !pivot.empty()) {
      // Control inputs go after the data inputs; `inputs` keeps that order.
      inputs.push_back(absl::StrCat("^", pivot));
      changed = true;
    }
    if (changed) DFX_RETURN_IF_ERROR(scope.SetNodeInputs(p, inputs));
  }
  return absl::OkStatus();
}

// Positions [begin, end) of `scope`'s graph as names, added to `set`.
void AddNames(const Scope& scope, int begin, int end, NameSet* set) {
  for (int p = begin; p < end; ++p) set->insert(scope.node(p).name());
}

// Every frame_name an Enter of the graph uses.
NameSet FrameNames(const Scope& scope) {
  NameSet names;
  for (int p = 0; p < scope.num_nodes(); ++p) {
    const NodeDef& node = scope.node(p);
    if (node.op() != "Enter" && node.op() != "RefEnter") continue;
    if (const AttrValue* f = FindNodeAttr(node, "frame_name")) {
      names.insert(f->s());
    }
  }
  return names;
}

class WhileBuilder {
 public:
  WhileBuilder(const Scope& loop, const WhileOptions& options,
               const NameSet* foreign)
      : loop_(loop),
        inner_(loop.WithNoControlDependencies()),
        options_(options),
        foreign_(foreign),
        types_(loop) {}

  absl::Status Build(const std::vector<Output>& inputs, const CondFn& cond,
                     const BodyFn& body, std::vector<Output>* outputs) {
    DFX_RETURN_IF_ERROR(Validate(inputs, cond, body));
    DFX_RETURN_IF_ERROR(PickFrameName());
    const size_t n = inputs.size();
    std::vector<DataType> dtypes(n);
    std::vector<Added> enters(n), merges(n), switches(n), nexts(n);
    std::vector<Output> merge_outs(n), body_ins(n);
    for (size_t i = 0; i < n; ++i) {
      dtypes[i] = BaseType(inputs[i].dtype());
      DFX_ASSIGN_OR_RETURN(enters[i], Enter(loop_, inputs[i].ToString(),
                                            dtypes[i], /*is_constant=*/false));
    }
    const int merges_begin = loop_.num_nodes();
    for (size_t i = 0; i < n; ++i) {
      // The back edge from NextIteration replaces the second input below.
      DFX_ASSIGN_OR_RETURN(
          merges[i], AddOp(inner_, "Merge", {enters[i].name, enters[i].name},
                           dtypes[i], {{"N", IntAttr(2)}}));
      merge_outs[i] = Output(merges[i].name, 0, dtypes[i]);
    }

    // The condition, then LoopCond: the cond phase.
    const int cond_begin = loop_.num_nodes();
    Output pred;
    absl::Status s = cond(inner_.NewSubScope("cond"), merge_outs, &pred);
    if (!s.ok()) return Annotate(s, "cond: ");
    DFX_RETURN_IF_ERROR(loop_.status());
    if (!pred.valid()) {
      return absl::InvalidArgumentError(
          "cond returned an invalid Output (built on a failed scope?)");
    }
    if (BaseType(pred.dtype()) != DT_BOOL) {
      return absl::InvalidArgumentError(absl::StrCat(
          "cond must return a bool scalar, got ", DataTypeString(pred.dtype()),
          " ('", pred.ToString(), "')"));
    }
    DFX_ASSIGN_OR_RETURN(Added loop_cond, AddOp(inner_, "LoopCond",
                                                {pred.ToString()}, DT_INVALID));
    const int cond_end = loop_.num_nodes();

    for (size_t i = 0; i < n; ++i) {
      DFX_ASSIGN_OR_RETURN(
          switches[i],
          AddOp(inner_, "Switch", {merges[i].name, loop_cond.name}, dtypes[i]));
    }
    const int identities_begin = loop_.num_nodes();
    for (size_t i = 0; i < n; ++i) {
      DFX_ASSIGN_OR_RETURN(
          Added identity,
          AddOp(inner_, "Identity", {switches[i].name + ":1"}, dtypes[i]));
      body_ins[i] = Output(identity.name, 0, dtypes[i]);
    }

    // The body, then the NextIterations: the body phase.
    const int body_begin = loop_.num_nodes();
    std::vector<Output> results;
    s = body(inner_.NewSubScope("body"), body_ins, &results);
    if (!s.ok()) return Annotate(s, "body: ");
    DFX_RETURN_IF_ERROR(loop_.status());
    if (results.size() != n) {
      return absl::InvalidArgumentError(
          absl::StrCat("body returned ", results.size(), " output(s) for ", n,
                       " loop variable(s)"));
    }
    for (size_t i = 0; i < n; ++i) {
      if (!results[i].valid()) {
        return absl::InvalidArgumentError(
            absl::StrCat("body output ", i,
                         " is not a valid Output (built on a failed "
                         "scope?)"));
      }
      if (BaseType(results[i].dtype()) != dtypes[i]) {
        return absl::InvalidArgumentError(absl::StrCat(
            "body output ", i, " ('", results[i].ToString(), "') is ",
            DataTypeString(results[i].dtype()), " but loop variable ", i,
            " is ", DataTypeString(dtypes[i])));
      }
    }
    for (size_t i = 0; i < n; ++i) {
      DFX_ASSIGN_OR_RETURN(nexts[i], AddOp(inner_, "NextIteration",
                                           {results[i].ToString()}, dtypes[i]));
    }
    const int body_end = loop_.num_nodes();

    // Outside values in, and the pivots for nodes that would otherwise run
    // without an iteration.
    NameSet inside, cond_live, body_live;
    for (const Added& e : enters) inside.insert(e.name);
    AddNames(loop_, merges_begin, body_end, &inside);
    AddNames(loop_, merges_begin, cond_end, &cond_live);
    AddNames(loop_, identities_begin, body_end, &body_live);
    if (foreign_ != nullptr) {
      for (const std::string& name : *foreign_) {
        inside.erase(name);
        body_live.erase(name);
      }
    }
    const Capture capture{
        [this](const std::string& node, int index, DataType t) {
          return EnterInvariant(node, index, t);
        },
        [this](const std::string& node) { return EnterControl(node); }};
    DFX_RETURN_IF_ERROR(Rewire(loop_, cond_begin, cond_end, inside, cond_live,
                               merges[0].name, capture, types_));
    DFX_RETURN_IF_ERROR(Rewire(loop_, body_begin, body_end, inside, body_live,
                               body_ins[0].node_name(), capture, types_,
                               foreign_));

    for (size_t i = 0; i < n; ++i) {
      DFX_RETURN_IF_ERROR(loop_.SetNodeInputs(merges[i].position,
                                              {enters[i].name, nexts[i].name}));
    }
    std::vector<Output> exits(n);
    for (size_t i = 0; i < n; ++i) {
      DFX_ASSIGN_OR_RETURN(
          Added exit, AddOp(inner_, "Exit", {switches[i].name}, dtypes[i]));
      exits[i] = Output(exit.name, 0, dtypes[i]);
    }
    *outputs = std::move(exits);
    return loop_.status();
  }

 private:
  absl::Status Validate(const std::vector<Output>& inputs, const CondFn& cond,
                        const BodyFn& body) const {
    if (inputs.empty()) {
      return absl::InvalidArgumentError("needs at least one loop variable");
    }
    for (size_t i = 0; i < inputs.size(); ++i) {
      if (!inputs[i].valid()) {
        return absl::InvalidArgumentError(
            absl::StrCat("loop variable ", i,
                         " is not a valid Output (built on a failed "
                         "scope?)"));
      }
    }
    if (!cond || !body) {
      return absl::InvalidArgumentError("cond and body must not be empty");
    }
    if (options_.parallel_iterations < 1) {
      return absl::InvalidArgumentError(
          absl::StrCat("parallel_iterations must be at least 1, got ",
                       options_.parallel_iterations));
    }
    return absl::OkStatus();
  }

  absl::Status PickFrameName() {
    const NameSet taken = FrameNames(loop_);
    if (!options_.frame_name.empty()) {
      if (taken.contains(options_.frame_name)) {
        return absl::InvalidArgumentError(
            absl::StrCat("frame_name '", options_.frame_name,
                         "' is another loop's already"));
      }
      frame_ = options_.frame_name;
      return absl::OkStatus();
    }
    frame_ = loop_.name_prefix();
    for (int k = 1; taken.contains(frame_); ++k) {
      frame_ = absl::StrCat(loop_.name_prefix(), "_", k);
    }
    return absl::OkStatus();
  }

  absl::StatusOr<Added> Enter(const Scope& scope, const std::string& input,
                              DataType t, bool is_constant) {
    return AddOp(
        scope, "Enter", {input}, t,
        {{"frame_name", StringAttr(frame_)},
         {"is_constant", BoolAttr(is_constant)},
         {"parallel_iterations", IntAttr(options_.parallel_iterations)}});
  }

  // The loop-invariant Enter of outside tensor `node:index`, one per tensor.
  absl::StatusOr<std::string> EnterInvariant(const std::string& node, int index,
                                             DataType t) {
    const std::string tensor = TensorName(node, index);
    auto it = invariants_.find(tensor);
    if (it != invariants_.end()) return it->second;
    DFX_ASSIGN_OR_RETURN(Added enter,
                         Enter(loop_, tensor, t, /*is_constant=*/true));
    invariants_.emplace(tensor, enter.name);
    return enter.name;
  }

  // A node of the loop that waits for outside node `node`: an invariant
  // Enter of a Const that waits for it (`node` may have no outputs).
  absl::StatusOr<std::string> EnterControl(const std::string& node) {
    auto it = control_invariants_.find(node);
    if (it != control_invariants_.end()) return it->second;
    NodeDef konst;
    konst.set_name(loop_.GetUniqueNameForOp("control"));
    konst.set_op("Const");
    (*konst.mutable_attr())["dtype"].set_type(DT_INT32);
    TensorProto* value = (*konst.mutable_attr())["value"].mutable_tensor();
    value->set_dtype(DT_INT32);
    value->mutable_tensor_shape();
    value->add_int_val(0);
    const std::string konst_name = konst.name();
    DFX_RETURN_IF_ERROR(loop_.WithNoControlDependencies()
                            .WithControlDependencies({Operation(node)})
                            .AddNode(std::move(konst)));
    DFX_ASSIGN_OR_RETURN(
        Added enter, Enter(loop_, konst_name, DT_INT32, /*is_constant=*/true));
    control_invariants_.emplace(node, enter.name);
    return enter.name;
  }

  const Scope loop_;   // the loop's sub-scope, with the caller's deps
  const Scope inner_;  // the same without control dependencies
  const WhileOptions& options_;
  const NameSet* foreign_;  // nodes the body adds that are not the loop's
  OutputTypes types_;
  std::string frame_;
  // Outside tensor -> its invariant Enter; outside node -> the Enter that
  // carries a control edge from it.
  absl::flat_hash_map<std::string, std::string> invariants_;
  absl::flat_hash_map<std::string, std::string> control_invariants_;
};

class CondBuilder {
 public:
  explicit CondBuilder(const Scope& cond)
      : cond_(cond), inner_(cond.WithNoControlDependencies()), types_(cond) {}

  absl::Status Build(const Output& pred, const std::vector<Output>& inputs,
                     const BranchFn& then_fn, const BranchFn& else_fn,
                     std::vector<Output>* outputs) {
    if (!pred.valid()) {
      return absl::InvalidArgumentError(
          "pred is not a valid Output (built on a failed scope?)");
    }
    if (BaseType(pred.dtype()) != DT_BOOL) {
      return absl::InvalidArgumentError(absl::StrCat(
          "pred must be a bool scalar, got ", DataTypeString(pred.dtype()),
          " ('", pred.ToString(), "')"));
    }
    for (size_t i = 0; i < inputs.size(); ++i) {
      if (!inputs[i].valid()) {
        return absl::InvalidArgumentError(absl::StrCat(
            "input ", i, " is not a valid Output (built on a failed scope?)"));
      }
    }
    if (!then_fn || !else_fn) {
      return absl::InvalidArgumentError(
          "then_fn and else_fn must not be empty");
    }
    const int internal_begin = cond_.num_nodes();
    DFX_ASSIGN_OR_RETURN(
        Added pred_switch,
        AddOp(cond_, "Switch", {pred.ToString(), pred.ToString()}, DT_BOOL));
    DFX_ASSIGN_OR_RETURN(Added switch_t,
                         AddOp(inner_.WithOpName("switch_t"), "Identity",
                               {pred_switch.name + ":1"}, DT_BOOL));
    DFX_ASSIGN_OR_RETURN(Added switch_f,
                         AddOp(inner_.WithOpName("switch_f"), "Identity",
                               {pred_switch.name}, DT_BOOL));
    DFX_ASSIGN_OR_RETURN(Added pred_id,
                         AddOp(cond_.WithOpName("pred_id"), "Identity",
                               {pred.ToString()}, DT_BOOL));
    pred_id_ = pred_id.name;
    std::vector<Output> then_ins(inputs.size()), else_ins(inputs.size());
    for (size_t i = 0; i < inputs.size(); ++i) {
      const DataType t = BaseType(inputs[i].dtype());
      DFX_ASSIGN_OR_RETURN(
          Added sw,
          AddOp(cond_, "Switch", {inputs[i].ToString(), pred_id_}, t));
      then_ins[i] = Output(sw.name, 1, t);
      else_ins[i] = Output(sw.name, 0, t);
    }
    NameSet internal;
    AddNames(cond_, internal_begin, cond_.num_nodes(), &internal);

    NameSet then_nodes;
    std::vector<Output> then_outs, else_outs;
    DFX_RETURN_IF_ERROR(Branch(true, then_fn, then_ins, internal, switch_t.name,
                               /*other=*/nullptr, &then_nodes, &then_outs));
    NameSet else_nodes;
    DFX_RETURN_IF_ERROR(Branch(false, else_fn, else_ins, internal,
                               switch_f.name, &then_nodes, &else_nodes,
                               &else_outs));
    if (then_outs.empty() || then_outs.size() != else_outs.size()) {
      return absl::InvalidArgumentError(
          absl::StrCat("then_fn returned ", then_outs.size(),
                       " output(s) and else_fn ", else_outs.size(),
                       "; both must return the same number, at least "
                       "one"));
    }
    std::vector<Output> merges(then_outs.size());
    for (size_t i = 0; i < then_outs.size(); ++i) {
      const DataType t = BaseType(then_outs[i].dtype());
      if (BaseType(else_outs[i].dtype()) != t) {
        return absl::InvalidArgumentError(absl::StrCat(
            "output ", i, " is ", DataTypeString(then_outs[i].dtype()),
            " in then_fn ('", then_outs[i].ToString(), "') but ",
            DataTypeString(else_outs[i].dtype()), " in else_fn ('",
            else_outs[i].ToString(), "')"));
      }
      DFX_ASSIGN_OR_RETURN(
          Added merge, AddOp(inner_, "Merge",
                             {else_outs[i].ToString(), then_outs[i].ToString()},
                             t, {{"N", IntAttr(2)}}));
      merges[i] = Output(merge.name, 0, t);
    }
    *outputs = std::move(merges);
    return cond_.status();
  }

 private:
  // Builds one branch with `fn` on `ins`, rewires it (outside values through
  // Switches, `pivot` for nodes that depend on nothing of the branch) and
  // returns its outputs, outside ones switched too. `other`: the then
  // branch's nodes, which the else branch must not use.
  absl::Status Branch(bool side, const BranchFn& fn,
                      const std::vector<Output>& ins, const NameSet& internal,
                      const std::string& pivot, const NameSet* other,
                      NameSet* nodes, std::vector<Output>* outs) {
    const char* what = side ? "then_fn" : "else_fn";
    const int begin = cond_.num_nodes();
    absl::Status s = fn(inner_, ins, outs);
    if (!s.ok()) return Annotate(s, absl::StrCat(what, ": "));
    DFX_RETURN_IF_ERROR(cond_.status());
    const int end = cond_.num_nodes();
    AddNames(cond_, begin, end, nodes);
    NameSet inside = internal;
    inside.insert(nodes->begin(), nodes->end());
    NameSet live = *nodes;
    live.insert(pivot);
    for (const Output& in : ins) live.insert(in.node_name());
    auto from_then = [other](const std::string& node) -> absl::Status {
      if (other != nullptr && other->contains(node)) {
        return absl::InvalidArgumentError(
            absl::StrCat("else_fn uses '", node,
                         "' of then_fn; a branch may only use "
                         "its own values and values from outside the cond"));
      }
      return absl::OkStatus();
    };
    const Capture capture{
        [&](const std::string& node, int index,
            DataType t) -> absl::StatusOr<std::string> {
          DFX_RETURN_IF_ERROR(from_then(node));
          DFX_ASSIGN_OR_RETURN(Output v, SwitchOutside(node, index, t, side));
          return v.ToString();
        },
        [&](const std::string& node) -> absl::StatusOr<std::string> {
          DFX_RETURN_IF_ERROR(from_then(node));
          return node;  // no frames to cross: the edge stays
        }};
    DFX_RETURN_IF_ERROR(
        Rewire(cond_, begin, end, inside, live, pivot, capture, types_));
    for (size_t i = 0; i < outs->size(); ++i) {
      Output& out = (*outs)[i];
      if (!out.valid()) {
        return absl::InvalidArgumentError(
            absl::StrCat(what, " output ", i,
                         " is not a valid Output (built on a failed "
                         "scope?)"));
      }
      if (inside.contains(out.node_name())) continue;
      s = from_then(out.node_name());
      if (!s.ok()) return Annotate(s, absl::StrCat(what, " output ", i, ": "));
      DFX_ASSIGN_OR_RETURN(out, SwitchOutside(out.node_name(), out.index(),
                                              BaseType(out.dtype()), side));
    }
    return absl::OkStatus();
  }

  // `side` of the Switch on pred of outside tensor `node:index`, one
  // Switch per tensor for both branches.
  absl::StatusOr<Output> SwitchOutside(const std::string& node, int index,
                                       DataType t, bool side) {
    const std::string tensor = TensorName(node, index);
    auto it = switches_.find(tensor);
    if (it == switches_.end()) {
      DFX_ASSIGN_OR_RETURN(Added sw,
                           AddOp(cond_, "Switch", {tensor, pred_id_}, t));
      it = switches_.emplace(tensor, sw.name).first;
    }
    return Output(it->second, side ? 1 : 0, t);
  }

  const Scope cond_;   // the cond's sub-scope, with the caller's deps
  const Scope inner_;  // the same without control dependencies
  OutputTypes types_;
  std::string pred_id_;
  // Outside tensor -> the Switch that routes it into the branches.
  absl::flat_hash_map<std::string, std::string> switches_;
};

}  // namespace

namespace {

absl::Status BuildWhileLoop(const Scope& scope,
                            const std::vector<Output>& inputs,
                            const CondFn& cond, const BodyFn& body,
                            const NameSet* foreign,
                            std::vector<Output>* outputs,
                            const WhileOptions& options) {
  if (outputs == nullptr) {
    const absl::Status s =
        absl::InvalidArgumentError("WhileLoop: outputs must not be null");
    scope.UpdateStatus(s);
    return s;
  }
  outputs->clear();
  if (!scope.ok()) return scope.status();
  const Scope loop =
      scope.NewSubScope(options.name.empty() ? "while" : options.name);
  WhileBuilder builder(loop, options, foreign);
  absl::Status s = builder.Build(inputs, cond, body, outputs);
  if (s.ok()) return s;
  outputs->clear();
  s = Annotate(s, absl::StrCat("WhileLoop '", loop.name_prefix(), "': "));
  scope.UpdateStatus(s);
  return s;
}

}  // namespace

absl::Status WhileLoop(const Scope& scope, const std::vector<Output>& inputs,
                       CondFn cond, BodyFn body, std::vector<Output>* outputs,
                       const WhileOptions& options) {
  return BuildWhileLoop(scope, inputs, cond, body, /*foreign=*/nullptr,
                        outputs, options);
}

namespace internal {

absl::Status WhileLoopWithForeignNodes(
    const Scope& scope, const std::vector<Output>& inputs, CondFn cond,
    BodyFn body, const absl::flat_hash_set<std::string>* foreign,
    std::vector<Output>* outputs, const WhileOptions& options) {
  return BuildWhileLoop(scope, inputs, cond, body, foreign, outputs, options);
}

}  // namespace internal

absl::Status Cond(const Scope& scope, Output pred,
                  const std::vector<Output>& inputs, BranchFn then_fn,
                  BranchFn else_fn, std::vector<Output>* outputs) {
  if (outputs == nullptr) {
    const absl::Status s =
        absl::InvalidArgumentError("Cond: outputs must not be null");
    scope.UpdateStatus(s);
    return s;
  }
  outputs->clear();
  if (!scope.ok()) return scope.status();
  const Scope cond = scope.NewSubScope("cond");
  CondBuilder builder(cond);
  absl::Status s = builder.Build(pred, inputs, then_fn, else_fn, outputs);
  if (s.ok()) return s;
  outputs->clear();
  s = Annotate(s, absl::StrCat("Cond '", cond.name_prefix(), "': "));
  scope.UpdateStatus(s);
  return s;
}

}  // namespace dfx::ops
