#include "graph/function_library.h"

#include <algorithm>
#include <deque>
#include <functional>
#include <map>
#include <utility>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "base/status_macros.h"
#include "google/protobuf/util/message_differencer.h"
#include "graph/node_def_util.h"

namespace dfx {
namespace {

absl::Status FunctionError(absl::string_view function,
                           absl::string_view message) {
  return absl::InvalidArgumentError(
      absl::StrCat("function '", function, "': ", message));
}

absl::Status BodyNodeError(absl::string_view function, const NodeDef& node,
                           absl::string_view message) {
  return absl::InvalidArgumentError(absl::StrCat(
      "function '", function, "', node '", node.name(), "' (op ", node.op(),
      "): ", message));
}

// Calls `fn(name)` for every function name a func attr of `node` holds
// (placeholders aside).
template <typename Fn>
void ForEachFuncAttr(const NodeDef& node, Fn fn) {
  for (const auto& [attr_name, value] : node.attr()) {
    if (value.value_case() == AttrValue::kFunc) {
      fn(attr_name, value.func().name());
    } else if (value.value_case() == AttrValue::kList) {
      for (const NameAttrList& f : value.list().func()) fn(attr_name, f.name());
    }
  }
}

bool IsKnownAttrKind(absl::string_view type) {
  static constexpr absl::string_view kKinds[] = {
      "string", "int", "float", "bool", "type", "shape", "tensor", "func"};
  absl::string_view inner = type;
  if (absl::ConsumePrefix(&inner, "list(") &&
      absl::ConsumeSuffix(&inner, ")")) {
    type = inner;
  }
  return std::find(std::begin(kKinds), std::end(kKinds), type) !=
         std::end(kKinds);
}

absl::Status ValidateArg(absl::string_view function, const OpDef& sig,
                         const OpDef::ArgDef& arg, absl::string_view what) {
  auto bad = [&](absl::string_view why) {
    return FunctionError(function,
                         absl::StrCat(what, " '", arg.name(), "' ", why));
  };
  if (arg.name().empty()) {
    return FunctionError(function, absl::StrCat(what, " with an empty name"));
  }
  if (arg.name().find_first_of(":^/ ") != std::string::npos) {
    return bad("has a malformed name");
  }
  const int sources = (arg.type() != DT_INVALID) + !arg.type_attr().empty() +
                      !arg.type_list_attr().empty();
  if (sources != 1) {
    return bad(
        "must have exactly one of type, type_attr and type_list_attr");
  }
  if (!arg.number_attr().empty() && !arg.type_list_attr().empty()) {
    return bad("has both number_attr and type_list_attr");
  }
  auto need_attr = [&](const std::string& name,
                       absl::string_view kind) -> absl::Status {
    if (name.empty()) return absl::OkStatus();
    for (const OpDef::AttrDef& a : sig.attr()) {
      if (a.name() != name) continue;
      if (a.type() != kind) {
        return bad(absl::StrCat("names attr '", name, "' of kind ", a.type(),
                                ", which should be ", kind));
      }
      return absl::OkStatus();
    }
    return bad(absl::StrCat("names attr '", name,
                            "', which the signature does not declare"));
  };
  DFX_RETURN_IF_ERROR(need_attr(arg.type_attr(), "type"));
  DFX_RETURN_IF_ERROR(need_attr(arg.number_attr(), "int"));
  DFX_RETURN_IF_ERROR(need_attr(arg.type_list_attr(), "list(type)"));
  return absl::OkStatus();
}

absl::Status ValidateSignature(const OpDef& sig) {
  const std::string& fn = sig.name();
  absl::flat_hash_set<std::string> attrs;
  for (const OpDef::AttrDef& a : sig.attr()) {
    if (a.name().empty() || !attrs.insert(a.name()).second) {
      return FunctionError(
          fn, absl::StrCat("attr '", a.name(), "' is empty or declared twice"));
    }
    if (!IsKnownAttrKind(a.type())) {
      return FunctionError(fn, absl::StrCat("attr '", a.name(),
                                            "' has unknown kind '", a.type(),
                                            "'"));
    }
  }
  absl::flat_hash_set<std::string> names;
  for (const OpDef::ArgDef& arg : sig.input_arg()) {
    DFX_RETURN_IF_ERROR(ValidateArg(fn, sig, arg, "input arg"));
    if (!names.insert(arg.name()).second) {
      return FunctionError(
          fn, absl::StrCat("input arg name '", arg.name(), "' is not unique"));
    }
  }
  names.clear();
  for (const OpDef::ArgDef& arg : sig.output_arg()) {
    DFX_RETURN_IF_ERROR(ValidateArg(fn, sig, arg, "output arg"));
    if (!names.insert(arg.name()).second) {
      return FunctionError(fn, absl::StrCat("output arg name '", arg.name(),
                                            "' is not unique"));
    }
  }
  names.clear();
  for (const std::string& c : sig.control_output()) {
    if (c.empty() || !names.insert(c).second) {
      return FunctionError(fn, absl::StrCat("control output '", c,
                                            "' is empty or not unique"));
    }
  }
  return absl::OkStatus();
}

// The number of tensors output arg `arg` of `node` stands for, or -1 when
// it depends on an attr that is a placeholder (known only when instantiated).
int KnownCount(const NodeDef& node, const OpDef::ArgDef& arg) {
  if (!arg.number_attr().empty()) {
    const AttrValue* v = FindNodeAttr(node, arg.number_attr());
    if (v == nullptr || v->value_case() != AttrValue::kI) return -1;
    return static_cast<int>(v->i());
  }
  if (!arg.type_list_attr().empty()) {
    const AttrValue* v = FindNodeAttr(node, arg.type_list_attr());
    if (v == nullptr || v->value_case() != AttrValue::kList) return -1;
    return v->list().type_size();
  }
  return 1;
}

// Replaces a placeholder value ("$T" in TensorFlow's text) by the attr it
// names.
absl::Status Substitute(const FunctionAttrs& attrs, AttrValue* value,
                        absl::string_view function, const NodeDef& node) {
  if (value->value_case() == AttrValue::kPlaceholder) {
    auto it = attrs.find(value->placeholder());
    if (it == attrs.end()) {
      return BodyNodeError(function, node,
                           absl::StrCat("attr placeholder '$",
                                        value->placeholder(),
                                        "' has no value in the instantiation"));
    }
    *value = it->second;
    return absl::OkStatus();
  }
  auto substitute_func = [&](NameAttrList* f) -> absl::Status {
    for (auto& [name, inner] : *f->mutable_attr()) {
      DFX_RETURN_IF_ERROR(Substitute(attrs, &inner, function, node));
    }
    return absl::OkStatus();
  };
  if (value->value_case() == AttrValue::kFunc) {
    return substitute_func(value->mutable_func());
  }
  if (value->value_case() == AttrValue::kList) {
    for (NameAttrList& f : *value->mutable_list()->mutable_func()) {
      DFX_RETURN_IF_ERROR(substitute_func(&f));
    }
  }
  return absl::OkStatus();
}

std::string Uniquify(const std::string& base,
                     absl::flat_hash_set<std::string>* used) {
  std::string name = base;
  for (int n = 1; used->contains(name); ++n) name = absl::StrCat(base, "_", n);
  used->insert(name);
  return name;
}

}  // namespace

FunctionLibrary::FunctionLibrary(const OpRegistry* ops)
    : base_(ops), ops_(ops) {}

absl::StatusOr<std::unique_ptr<FunctionLibrary>> FunctionLibrary::Create(
    const FunctionDefLibrary& library, const OpRegistry* ops) {
  std::unique_ptr<FunctionLibrary> lib(new FunctionLibrary(ops));
  std::vector<std::string> order;  // library order, without repeats
  for (const FunctionDef& f : library.function()) {
    const std::string& name = f.signature().name();
    if (name.empty()) {
      return absl::InvalidArgumentError(
          "the function library has a function with an empty name");
    }
    if (ops->LookUp(name) != nullptr) {
      return FunctionError(name, "has the name of a registered op");
    }
    auto [it, inserted] = lib->functions_.try_emplace(name, f);
    if (!inserted) {
      if (google::protobuf::util::MessageDifferencer::Equals(it->second, f)) {
        continue;
      }
      return FunctionError(
          name, "is defined twice in the library, with different definitions");
    }
    order.push_back(name);
  }
  for (const std::string& name : order) {
    const FunctionDef& f = lib->functions_.at(name);
    DFX_RETURN_IF_ERROR(ValidateSignature(f.signature()));
    OpRegistrationData data;
    data.op_def = f.signature();
    DFX_RETURN_IF_ERROR(lib->ops_.Register(std::move(data)));
  }

  // Bodies: every node's op and references.
  absl::flat_hash_map<std::string, std::vector<std::pair<std::string, std::string>>>
      calls;  // function -> (callee, calling node)
  for (const std::string& name : order) {
    const FunctionDef& f = lib->functions_.at(name);
    const OpDef& sig = f.signature();
    absl::flat_hash_set<std::string> args;
    for (const auto& a : sig.input_arg()) args.insert(a.name());
    absl::flat_hash_map<std::string, const NodeDef*> nodes;
    absl::flat_hash_map<std::string, const OpDef*> node_ops;
    for (const NodeDef& n : f.node_def()) {
      if (n.name().empty()) {
        return FunctionError(name, absl::StrCat("a node (op ", n.op(),
                                                ") has an empty name"));
      }
      if (n.name().find_first_of(":^") != std::string::npos) {
        return BodyNodeError(name, n, "node name is malformed");
      }
      if (!nodes.emplace(n.name(), &n).second) {
        return BodyNodeError(name, n, "duplicate node name");
      }
      const OpRegistrationData* op = lib->ops_.LookUp(n.op());
      if (op == nullptr) {
        return BodyNodeError(
            name, n,
            absl::StrCat("op '", n.op(),
                         "' is neither a registered op nor a function of the "
                         "library"));
      }
      node_ops[n.name()] = &op->op_def;
      if (lib->functions_.contains(n.op())) {
        calls[name].emplace_back(n.op(), n.name());
      }
      absl::Status func_status;
      ForEachFuncAttr(n, [&](const std::string& attr, const std::string& fn) {
        if (!func_status.ok()) return;
        if (!lib->functions_.contains(fn)) {
          func_status = BodyNodeError(
              name, n,
              absl::StrCat("attr '", attr, "' names function '", fn,
                           "', which is not in the library"));
          return;
        }
        calls[name].emplace_back(fn, n.name());
      });
      DFX_RETURN_IF_ERROR(func_status);
    }
    // A data reference: an argument, "node:output_arg" or
    // "node:output_arg:index".
    auto check_ref = [&](absl::string_view ref) -> std::string {
      if (args.contains(ref)) return "";
      std::vector<absl::string_view> parts = absl::StrSplit(ref, ':');
      if (parts.size() < 2 || parts.size() > 3) {
        return absl::StrCat("'", ref,
                            "' is neither an argument nor node:output:index");
      }
      auto node = nodes.find(parts[0]);
      if (node == nodes.end()) {
        return absl::StrCat("'", ref, "' names node '", parts[0],
                            "', which is not in the function");
      }
      const OpDef& op = *node_ops.at(parts[0]);
      const OpDef::ArgDef* out = nullptr;
      for (const auto& a : op.output_arg()) {
        if (a.name() == parts[1]) out = &a;
      }
      if (out == nullptr) {
        return absl::StrCat("'", ref, "' names output '", parts[1],
                            "', which op ", op.name(), " does not have");
      }
      if (parts.size() == 3) {
        int index;
        if (!absl::SimpleAtoi(parts[2], &index) || index < 0) {
          return absl::StrCat("'", ref, "' has a malformed index");
        }
        NodeDef with_defaults = *node->second;
        AddDefaultAttrs(op, &with_defaults);
        const int count = KnownCount(with_defaults, *out);
        if (count >= 0 && index >= count) {
          return absl::StrCat("'", ref, "' names index ", index, " of output '",
                              parts[1], "', which has ", count, " tensor(s)");
        }
      }
      return "";
    };
    for (const NodeDef& n : f.node_def()) {
      for (const std::string& input : n.input()) {
        if (!input.empty() && input[0] == '^') {
          const std::string dep = input.substr(1);
          if (!nodes.contains(dep) && !args.contains(dep)) {
            return BodyNodeError(
                name, n,
                absl::StrCat("control input '", input, "' names '", dep,
                             "', which is not in the function"));
          }
          continue;
        }
        if (std::string why = check_ref(input); !why.empty()) {
          return BodyNodeError(name, n, absl::StrCat("input ", why));
        }
      }
    }
    for (const auto& out : sig.output_arg()) {
      auto it = f.ret().find(out.name());
      if (it == f.ret().end()) {
        return FunctionError(name, absl::StrCat("output '", out.name(),
                                                "' has no ret entry"));
      }
      if (std::string why = check_ref(it->second); !why.empty()) {
        return FunctionError(
            name, absl::StrCat("ret '", out.name(), "': ", why));
      }
    }
    for (const auto& [key, value] : f.ret()) {
      const std::string& ret = key;  // clang 14 cannot capture a binding
      if (std::none_of(sig.output_arg().begin(), sig.output_arg().end(),
                       [&](const auto& a) { return a.name() == ret; })) {
        return FunctionError(name, absl::StrCat("ret '", key,
                                                "' is not an output arg"));
      }
    }
    for (const std::string& c : sig.control_output()) {
      if (!f.control_ret().contains(c)) {
        return FunctionError(name, absl::StrCat("control output '", c,
                                                "' has no control_ret entry"));
      }
    }
    for (const auto& [key, value] : f.control_ret()) {
      if (std::find(sig.control_output().begin(), sig.control_output().end(),
                    key) == sig.control_output().end()) {
        return FunctionError(name, absl::StrCat("control_ret '", key,
                                                "' is not a control output"));
      }
      if (!nodes.contains(value)) {
        return FunctionError(
            name, absl::StrCat("control_ret '", key, "' names node '", value,
                               "', which is not in the function"));
      }
    }
  }

  // Recursion: a depth-first search over the call graph; a function met again
  // while it is on the stack closes a cycle.
  enum class Mark { kNone, kOnStack, kDone };
  absl::flat_hash_map<std::string, Mark> marks;
  std::vector<std::string> stack;
  std::vector<std::string> via;  // the calling node of each stack entry
  std::function<absl::Status(const std::string&)> visit =
      [&](const std::string& fn) -> absl::Status {
    marks[fn] = Mark::kOnStack;
    stack.push_back(fn);
    // A copy: visiting inserts into `calls`.
    const std::vector<std::pair<std::string, std::string>> edges = calls[fn];
    for (const auto& [callee, node] : edges) {
      const Mark m = marks[callee];
      if (m == Mark::kDone) continue;
      if (m == Mark::kOnStack) {
        const auto start = std::find(stack.begin(), stack.end(), callee);
        std::vector<std::string> cycle(start, stack.end());
        cycle.push_back(callee);
        return absl::InvalidArgumentError(absl::StrCat(
            "function '", callee, "' is recursive: ",
            absl::StrJoin(cycle, " -> "), " (node '", node, "' of function '",
            fn, "' calls '", callee, "')"));
      }
      DFX_RETURN_IF_ERROR(visit(callee));
    }
    stack.pop_back();
    marks[fn] = Mark::kDone;
    return absl::OkStatus();
  };
  for (const std::string& name : order) {
    if (marks[name] == Mark::kNone) DFX_RETURN_IF_ERROR(visit(name));
  }

  for (const GradientDef& g : library.gradient()) {
    if (!lib->functions_.contains(g.function_name())) {
      return absl::InvalidArgumentError(absl::StrCat(
          "gradient def names function '", g.function_name(),
          "', which is not in the library"));
    }
    if (!lib->functions_.contains(g.gradient_func())) {
      return FunctionError(
          g.function_name(),
          absl::StrCat("its gradient def names gradient function '",
                       g.gradient_func(), "', which is not in the library"));
    }
    auto [it, inserted] =
        lib->gradients_.try_emplace(g.function_name(), g.gradient_func());
    if (!inserted && it->second != g.gradient_func()) {
      return FunctionError(g.function_name(),
                           "has two different gradient functions");
    }
  }
  return lib;
}

const FunctionDef* FunctionLibrary::Find(absl::string_view name) const {
  auto it = functions_.find(name);
  return it == functions_.end() ? nullptr : &it->second;
}

std::vector<std::string> FunctionLibrary::ListFunctions() const {
  std::vector<std::string> names;
  names.reserve(functions_.size());
  for (const auto& [name, f] : functions_) names.push_back(name);
  std::sort(names.begin(), names.end());
  return names;
}

std::string FunctionLibrary::GradientFunction(absl::string_view name) const {
  auto it = gradients_.find(name);
  return it == gradients_.end() ? std::string() : it->second;
}

absl::StatusOr<FunctionBody> FunctionLibrary::Instantiate(
    absl::string_view name, const FunctionAttrs& attrs) const {
  const FunctionDef* f = Find(name);
  if (f == nullptr) {
    return absl::NotFoundError(
        absl::StrCat("function '", name, "' is not in the library"));
  }
  const OpDef& sig = f->signature();
  const std::string fn(name);

  // The instantiation's attrs: those given, then the signature's defaults.
  FunctionAttrs values = attrs;
  for (const OpDef::AttrDef& a : sig.attr()) {
    auto it = values.find(a.name());
    if (it == values.end()) {
      if (!a.has_default_value()) {
        return FunctionError(
            fn, absl::StrCat("instantiation needs attr '", a.name(), "'"));
      }
      values[a.name()] = a.default_value();
      continue;
    }
    if (it->second.value_case() == AttrValue::kPlaceholder) {
      return FunctionError(fn, absl::StrCat("attr '", a.name(),
                                            "' is a placeholder with no value"));
    }
    const std::string kind = AttrValueKind(it->second);
    // An empty list prints as "list()"; any list kind fits it.
    if (kind != a.type() &&
        !(kind == "list()" && absl::StartsWith(a.type(), "list("))) {
      return FunctionError(fn, absl::StrCat("attr '", a.name(), "' should be ",
                                            a.type(), " but is ", kind));
    }
  }

  FunctionBody body;
  body.name = fn;
  body.is_stateful = sig.is_stateful();
  // The signature's types, computed as a call node's would be.
  {
    NodeDef call;
    call.set_name(fn);
    call.set_op(fn);
    *call.mutable_attr() = values;
    absl::Status s =
        InOutTypesForNode(call, sig, &body.arg_types, &body.ret_types);
    if (!s.ok()) return FunctionError(fn, s.message());
  }

  absl::flat_hash_set<std::string> body_names;
  for (const NodeDef& n : f->node_def()) body_names.insert(n.name());
  absl::flat_hash_set<std::string> used = body_names;

  // Where each reference of the body's naming points, in flat form.
  absl::flat_hash_map<std::string, std::vector<std::string>> refs;
  int arg_index = 0;
  for (const OpDef::ArgDef& arg : sig.input_arg()) {
    NodeDef call;
    call.set_name(fn);
    *call.mutable_attr() = values;
    int count = 1;
    if (absl::Status s = NumTensorsForArg(call, arg, &count); !s.ok()) {
      return FunctionError(fn, s.message());
    }
    const bool list = !arg.number_attr().empty() || !arg.type_list_attr().empty();
    for (int i = 0; i < count; ++i) {
      const std::string node_name =
          Uniquify(list ? absl::StrCat(arg.name(), "_", i) : arg.name(), &used);
      NodeDef a;
      a.set_name(node_name);
      a.set_op("_Arg");
      (*a.mutable_attr())["T"].set_type(body.arg_types[arg_index]);
      (*a.mutable_attr())["index"].set_i(arg_index);
      body.nodes.push_back(std::move(a));
      body.arg_nodes.push_back(node_name);
      refs[arg.name()].push_back(node_name);
      ++arg_index;
    }
  }

  // Body nodes with substituted attrs; their outputs' flat names.
  const size_t first_body = body.nodes.size();
  for (const NodeDef& in : f->node_def()) {
    NodeDef n = in;
    for (auto& [attr_name, value] : *n.mutable_attr()) {
      DFX_RETURN_IF_ERROR(Substitute(values, &value, fn, in));
    }
    const OpRegistrationData* op = ops_.LookUp(n.op());
    if (op == nullptr) {  // Create checked; kept for a clear message
      return BodyNodeError(fn, n, "op is not registered");
    }
    AddDefaultAttrs(op->op_def, &n);
    int flat = 0;
    for (const OpDef::ArgDef& out : op->op_def.output_arg()) {
      int count = 0;
      if (absl::Status s = NumTensorsForArg(n, out, &count); !s.ok()) {
        return BodyNodeError(fn, n, s.message());
      }
      std::vector<std::string> whole;
      for (int i = 0; i < count; ++i, ++flat) {
        const std::string target =
            flat == 0 ? n.name() : absl::StrCat(n.name(), ":", flat);
        refs[absl::StrCat(n.name(), ":", out.name(), ":", i)] = {target};
        whole.push_back(target);
      }
      refs[absl::StrCat(n.name(), ":", out.name())] = std::move(whole);
    }
    body.nodes.push_back(std::move(n));
  }
  auto resolve = [&](const NodeDef& n, const std::string& ref,
                     std::vector<std::string>* out) -> absl::Status {
    auto it = refs.find(ref);
    if (it == refs.end()) {
      return BodyNodeError(
          fn, n, absl::StrCat("input '", ref,
                              "' names no output of the instantiated body"));
    }
    out->insert(out->end(), it->second.begin(), it->second.end());
    return absl::OkStatus();
  };
  for (size_t i = first_body; i < body.nodes.size(); ++i) {
    NodeDef& n = body.nodes[i];
    std::vector<std::string> data;
    std::vector<std::string> control;
    for (const std::string& input : n.input()) {
      if (!input.empty() && input[0] == '^') {
        const std::string dep = input.substr(1);
        auto arg = refs.find(dep);
        if (arg != refs.end() && !body_names.contains(dep)) {
          for (const std::string& a : arg->second) {
            control.push_back(absl::StrCat("^", a));
          }
        } else {
          control.push_back(input);
        }
        continue;
      }
      DFX_RETURN_IF_ERROR(resolve(n, input, &data));
    }
    n.clear_input();
    for (std::string& s : data) n.add_input(std::move(s));
    for (std::string& s : control) n.add_input(std::move(s));
  }

  int ret_index = 0;
  for (const OpDef::ArgDef& out : sig.output_arg()) {
    auto it = f->ret().find(out.name());
    if (it == f->ret().end()) {
      return FunctionError(fn, absl::StrCat("output '", out.name(),
                                            "' has no ret entry"));
    }
    NodeDef holder;
    holder.set_name(absl::StrCat(out.name(), "_RetVal"));
    std::vector<std::string> sources;
    DFX_RETURN_IF_ERROR(resolve(holder, it->second, &sources));
    const bool list = !out.number_attr().empty() || !out.type_list_attr().empty();
    const int want = [&] {
      NodeDef call;
      call.set_name(fn);
      *call.mutable_attr() = values;
      int count = 1;
      NumTensorsForArg(call, out, &count).IgnoreError();  // checked above
      return count;
    }();
    if (static_cast<int>(sources.size()) != want) {
      return FunctionError(
          fn, absl::StrCat("ret '", out.name(), "' ('", it->second, "') is ",
                           sources.size(), " tensor(s) but the output is ",
                           want));
    }
    for (int i = 0; i < want; ++i) {
      NodeDef r;
      r.set_name(Uniquify(list ? absl::StrCat(out.name(), "_", i, "_RetVal")
                               : absl::StrCat(out.name(), "_RetVal"),
                          &used));
      r.set_op("_Retval");
      r.add_input(sources[i]);
      (*r.mutable_attr())["T"].set_type(body.ret_types[ret_index]);
      (*r.mutable_attr())["index"].set_i(ret_index);
      body.ret_nodes.push_back(r.name());
      body.nodes.push_back(std::move(r));
      ++ret_index;
    }
  }
  for (const auto& [key, node] : f->control_ret()) {
    body.control_ret_nodes.push_back(node);
  }
  std::sort(body.control_ret_nodes.begin(), body.control_ret_nodes.end());
  body.control_ret_nodes.erase(std::unique(body.control_ret_nodes.begin(),
                                           body.control_ret_nodes.end()),
                               body.control_ret_nodes.end());
  return body;
}

FunctionDefLibrary ReachableFunctions(const GraphDef& graph) {
  const FunctionDefLibrary& library = graph.library();
  absl::flat_hash_map<std::string, const FunctionDef*> by_name;
  for (const FunctionDef& f : library.function()) {
    by_name.try_emplace(f.signature().name(), &f);
  }
  absl::flat_hash_set<std::string> reached;
  std::deque<const NodeDef*> work;
  auto reach = [&](const std::string& name) {
    auto it = by_name.find(name);
    if (it == by_name.end() || !reached.insert(name).second) return;
    for (const NodeDef& n : it->second->node_def()) work.push_back(&n);
  };
  for (const NodeDef& n : graph.node()) work.push_back(&n);
  while (!work.empty()) {
    const NodeDef* n = work.front();
    work.pop_front();
    reach(n->op());
    ForEachFuncAttr(*n, [&](const std::string&, const std::string& fn) {
      reach(fn);
    });
  }
  FunctionDefLibrary out;
  for (const FunctionDef& f : library.function()) {
    if (reached.contains(f.signature().name())) *out.add_function() = f;
  }
  for (const GradientDef& g : library.gradient()) {
    if (reached.contains(g.function_name()) &&
        reached.contains(g.gradient_func())) {
      *out.add_gradient() = g;
    }
  }
  return out;
}

}  // namespace dfx

namespace dfx {
namespace {

absl::Status PartNodeError(const std::string& fn, const NodeDef& n,
                           absl::string_view what) {
  return absl::InvalidArgumentError(absl::StrCat(
      "function '", fn, "' from a graph: node '", n.name(), "' (", n.op(),
      "): ", what));
}

// The "index" and "T" attrs of an _Arg or _Retval node.
absl::Status IndexAndType(const std::string& fn, const NodeDef& n,
                          int64_t* index, DataType* type) {
  auto i = n.attr().find("index");
  auto t = n.attr().find("T");
  if (i == n.attr().end() || t == n.attr().end() ||
      i->second.value_case() != AttrValue::kI ||
      t->second.value_case() != AttrValue::kType) {
    return PartNodeError(fn, n, "needs an int 'index' and a type 'T'");
  }
  *index = i->second.i();
  *type = t->second.type();
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<FunctionDef> GraphDefToFunctionDef(const GraphDef& graph,
                                                  const std::string& name,
                                                  const OpRegistry& ops) {
  FunctionDef f;
  f.mutable_signature()->set_name(name);
  f.mutable_signature()->set_is_stateful(true);
  std::map<int64_t, std::pair<const NodeDef*, DataType>> args, rets;
  // How a body refers to output k of each node, by "node:k".
  absl::flat_hash_map<std::string, std::vector<std::string>> outputs;
  absl::flat_hash_map<std::string, std::string> arg_names;
  for (const NodeDef& n : graph.node()) {
    if (n.op() == "_Arg" || n.op() == "_Retval") {
      int64_t index = 0;
      DataType type = DT_INVALID;
      DFX_RETURN_IF_ERROR(IndexAndType(name, n, &index, &type));
      auto& table = n.op() == "_Arg" ? args : rets;
      if (!table.emplace(index, std::make_pair(&n, type)).second) {
        return PartNodeError(name, n, absl::StrCat("index ", index, " twice"));
      }
      continue;
    }
    const OpRegistrationData* op = ops.LookUp(n.op());
    if (op == nullptr) return PartNodeError(name, n, "op is not registered");
    NodeDef with_defaults = n;
    AddDefaultAttrs(op->op_def, &with_defaults);
    std::vector<std::string>& refs = outputs[n.name()];
    for (const OpDef::ArgDef& out : op->op_def.output_arg()) {
      int count = 0;
      if (absl::Status s = NumTensorsForArg(with_defaults, out, &count);
          !s.ok()) {
        return PartNodeError(name, n, s.message());
      }
      for (int i = 0; i < count; ++i) {
        refs.push_back(absl::StrCat(n.name(), ":", out.name(), ":", i));
      }
    }
  }
  auto check_dense = [&](const auto& table) -> absl::Status {
    int64_t want = 0;
    for (const auto& [index, node] : table) {
      if (index != want++) {
        return PartNodeError(name, *node.first,
                             absl::StrCat("index ", index, " leaves a gap"));
      }
    }
    return absl::OkStatus();
  };
  DFX_RETURN_IF_ERROR(check_dense(args));
  DFX_RETURN_IF_ERROR(check_dense(rets));
  for (const auto& [index, node] : args) {
    OpDef::ArgDef* a = f.mutable_signature()->add_input_arg();
    a->set_name(absl::StrCat("arg", index));
    a->set_type(node.second);
    arg_names[node.first->name()] = a->name();
  }
  // "node:k" or "node" (output 0) in the function's form.
  auto rewrite = [&](const NodeDef& n,
                     const std::string& input) -> absl::StatusOr<std::string> {
    const bool control = !input.empty() && input[0] == '^';
    std::string src = control ? input.substr(1) : input;
    int64_t k = 0;
    if (size_t colon = src.rfind(':'); !control && colon != std::string::npos) {
      if (!absl::SimpleAtoi(src.substr(colon + 1), &k) || k < 0) {
        return PartNodeError(name, n, absl::StrCat("bad input '", input, "'"));
      }
      src.resize(colon);
    }
    if (auto a = arg_names.find(src); a != arg_names.end()) {
      if (k != 0) {
        return PartNodeError(name, n, absl::StrCat("input '", input,
                                                   "': an _Arg has 1 output"));
      }
      return control ? absl::StrCat("^", a->second) : a->second;
    }
    auto o = outputs.find(src);
    if (o == outputs.end()) {
      return PartNodeError(name, n,
                           absl::StrCat("input '", input, "' names no node"));
    }
    if (control) return input;
    if (k >= static_cast<int64_t>(o->second.size())) {
      return PartNodeError(name, n, absl::StrCat("input '", input,
                                                 "' names no output"));
    }
    return o->second[k];
  };
  for (const NodeDef& n : graph.node()) {
    if (n.op() == "_Arg" || n.op() == "_Retval") continue;
    NodeDef* body = f.add_node_def();
    *body = n;
    body->clear_input();
    for (const std::string& input : n.input()) {
      DFX_ASSIGN_OR_RETURN(std::string r, rewrite(n, input));
      body->add_input(std::move(r));
    }
  }
  for (const auto& [index, node] : rets) {
    const NodeDef& r = *node.first;
    OpDef::ArgDef* out = f.mutable_signature()->add_output_arg();
    out->set_name(absl::StrCat("ret", index));
    out->set_type(node.second);
    std::string source;
    for (const std::string& input : r.input()) {
      if (!input.empty() && input[0] == '^') continue;
      DFX_ASSIGN_OR_RETURN(source, rewrite(r, input));
    }
    if (source.empty()) return PartNodeError(name, r, "has no data input");
    (*f.mutable_ret())[out->name()] = source;
  }
  return f;
}

}  // namespace dfx
