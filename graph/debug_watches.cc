// The tfdbg watch ops of a partition (debug_watches.h).
#include "graph/debug_watches.h"

#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "base/status_macros.h"
#include "graph/node_def_util.h"
#include "graph/types.h"

namespace dfx {
namespace {

struct Watch {
  std::vector<std::string> ops;
  std::vector<std::string> urls;
  bool tolerate = false;
};

// "Op" or "Op(key=value; key=value)": the op's name and its attrs.
absl::Status ParseDebugOpName(
    const std::string& spec, std::string* name,
    std::vector<std::pair<std::string, std::string>>* attrs) {
  const size_t open = spec.find('(');
  const size_t close = spec.find(')');
  if (open == std::string::npos && close == std::string::npos) {
    *name = spec;
    return absl::OkStatus();
  }
  if (open == std::string::npos || open == 0 || close != spec.size() - 1) {
    return absl::InvalidArgumentError(
        absl::StrCat("Malformed debug op name \"", spec, "\""));
  }
  *name = spec.substr(0, open);
  absl::flat_hash_set<std::string> seen;
  for (absl::string_view seg : absl::StrSplit(
           absl::string_view(spec).substr(open + 1, close - open - 1), ';')) {
    seg = absl::StripAsciiWhitespace(seg);
    if (seg.empty()) continue;
    const size_t eq = seg.find('=');
    if (eq == absl::string_view::npos || eq == 0 || eq + 1 == seg.size()) {
      return absl::InvalidArgumentError(
          absl::StrCat("Malformed attributes in debug op name \"", spec, "\""));
    }
    std::string key(seg.substr(0, eq));
    if (!seen.insert(key).second) {
      return absl::InvalidArgumentError(
          absl::StrCat("Duplicate attribute name \"", key,
                       "\" found in the debug op: \"", spec, "\""));
    }
    attrs->emplace_back(std::move(key), std::string(seg.substr(eq + 1)));
  }
  return absl::OkStatus();
}

absl::Status ParseBool(const std::string& text, bool* value) {
  const std::string lower = absl::AsciiStrToLower(text);
  if (lower == "false" || lower == "f" || lower == "0") {
    *value = false;
  } else if (lower == "true" || lower == "t" || lower == "1") {
    *value = true;
  } else {
    return absl::InvalidArgumentError(
        absl::StrCat("Invalid string for bool value: ", text));
  }
  return absl::OkStatus();
}

// Sets the op's attrs named in `attrs` on `node`, typed by its OpDef.
absl::Status SetCustomAttrs(
    const OpDef& op_def,
    const std::vector<std::pair<std::string, std::string>>& attrs,
    NodeDef* node) {
  for (const auto& [key, text] : attrs) {
    const OpDef::AttrDef* def = nullptr;
    for (const auto& a : op_def.attr()) {
      if (a.name() == key) def = &a;
    }
    if (def == nullptr) {
      return absl::InvalidArgumentError(absl::StrCat(
          "Unfulfilled attribute ", key, " of debug node ", node->name()));
    }
    AttrValue& v = (*node->mutable_attr())[key];
    bool ok = true;
    if (def->type() == "string") {
      v.set_s(text);
    } else if (def->type() == "float") {
      float f = 0;
      ok = absl::SimpleAtof(text, &f);
      v.set_f(f);
    } else if (def->type() == "int") {
      int64_t i = 0;
      ok = absl::SimpleAtoi(text, &i);
      v.set_i(i);
    } else if (def->type() == "bool") {
      bool b = false;
      DFX_RETURN_IF_ERROR(ParseBool(text, &b));
      v.set_b(b);
    } else {
      ok = false;
    }
    if (!ok) {
      return absl::InvalidArgumentError(absl::StrCat(
          "Invalid value string for ", def->type(), "-type attribute ", key,
          " of debug node ", node->name(), ": \"", text, "\""));
    }
  }
  return absl::OkStatus();
}

// The debug node `spec` (number `i`) watching `tensor` through `copy`.
absl::StatusOr<NodeDef> MakeDebugNode(const OpRegistry& ops,
                                      const std::string& spec, int i,
                                      const std::string& tensor,
                                      const std::string& copy,
                                      const std::string& device, DataType t,
                                      const Watch& watch) {
  std::string op;
  std::vector<std::pair<std::string, std::string>> attrs;
  DFX_RETURN_IF_ERROR(ParseDebugOpName(spec, &op, &attrs));
  const OpRegistrationData* reg = ops.LookUp(op);
  if (reg == nullptr) {
    return absl::NotFoundError(
        absl::StrCat("Op type not registered '", op, "'"));
  }
  NodeDef node;
  node.set_name(absl::StrCat("__dbg_", tensor, "_", i, "_", op));
  node.set_op(op);
  node.set_device(device);
  node.add_input(copy);
  auto& a = *node.mutable_attr();
  a["T"].set_type(t);
  a["device_name"].set_s(device);
  a["tensor_name"].set_s(tensor);
  for (const std::string& url : watch.urls) {
    a["debug_urls"].mutable_list()->add_s(url);
  }
  DFX_RETURN_IF_ERROR(SetCustomAttrs(reg->op_def, attrs, &node));
  AddDefaultAttrs(reg->op_def, &node);
  DFX_RETURN_IF_ERROR(ValidateNodeAttrs(node, reg->op_def));
  return node;
}

// What a watched tensor's consumers are rewired to.
struct Rewire {
  std::string copy;
  std::vector<std::string> debug_nodes;
  bool is_ref = false;
  bool no_control = false;  // an Enter or NextIteration producer
};

}  // namespace

absl::Status InsertDebugWatches(const DebugOptions& options,
                                const OpRegistry& ops, GraphDef* def) {
  absl::flat_hash_map<std::string, Watch> watches;  // by "node:slot"
  absl::flat_hash_set<std::string> watched_nodes;
  for (const DebugTensorWatch& w : options.debug_tensor_watch_opts()) {
    if (w.output_slot() < 0 || w.debug_ops().empty()) continue;
    Watch& watch = watches[absl::StrCat(w.node_name(), ":", w.output_slot())];
    watch.ops.assign(w.debug_ops().begin(), w.debug_ops().end());
    watch.urls.assign(w.debug_urls().begin(), w.debug_urls().end());
    watch.tolerate = w.tolerate_debug_op_creation_failures();
    watched_nodes.insert(w.node_name());
  }
  if (watches.empty()) return absl::OkStatus();

  absl::flat_hash_map<std::string, Rewire> rewires;  // by "node:slot"
  std::vector<NodeDef> added;
  const int original = def->node_size();
  for (int n = 0; n < original; ++n) {
    const NodeDef& node = def->node(n);
    if (!watched_nodes.contains(node.name())) continue;
    const OpRegistrationData* reg = ops.LookUp(node.op());
    if (reg == nullptr) {
      return absl::InvalidArgumentError(
          absl::StrCat("cannot watch the outputs of node ", node.name(),
                       ": op '", node.op(), "' is not registered"));
    }
    NodeDef with_defaults = node;
    AddDefaultAttrs(reg->op_def, &with_defaults);
    DataTypeVector in_types, out_types;
    DFX_RETURN_IF_ERROR(
        InOutTypesForNode(with_defaults, reg->op_def, &in_types, &out_types));
    for (int slot = 0; slot < static_cast<int>(out_types.size()); ++slot) {
      const std::string tensor = absl::StrCat(node.name(), ":", slot);
      auto it = watches.find(tensor);
      if (it == watches.end()) continue;
      const Watch& watch = it->second;
      const DataType t = BaseType(out_types[slot]);
      Rewire rewire;
      rewire.copy = absl::StrCat("__copy_", node.name(), "_", slot);
      rewire.is_ref = IsRefType(out_types[slot]);
      rewire.no_control = node.op() == "Enter" || node.op() == "RefEnter" ||
                          node.op() == "NextIteration" ||
                          node.op() == "RefNextIteration";
      NodeDef copy;
      copy.set_name(rewire.copy);
      copy.set_op("Copy");
      copy.set_device(node.device());
      copy.add_input(tensor);
      (*copy.mutable_attr())["T"].set_type(t);
      (*copy.mutable_attr())["tensor_name"].set_s("");
      auto* spec = (*copy.mutable_attr())["debug_ops_spec"].mutable_list();
      for (const std::string& op : watch.ops) {
        std::string name;
        std::vector<std::pair<std::string, std::string>> attrs;
        absl::Status s = ParseDebugOpName(op, &name, &attrs);
        bool gated = false;
        for (const auto& [key, value] : attrs) {
          if (s.ok() && key == "gated_grpc") s = ParseBool(value, &gated);
        }
        if (!s.ok()) {
          return absl::FailedPreconditionError(
              absl::StrCat("Failed to create Copy/CopyHost node for tensor ",
                           tensor, ", due to: ", s.message()));
        }
        for (const std::string& url : watch.urls) {
          spec->add_s(absl::StrCat(name, ";", url, ";", gated ? "1" : "0"));
        }
      }
      for (int i = 0; i < static_cast<int>(watch.ops.size()); ++i) {
        absl::StatusOr<NodeDef> dbg = MakeDebugNode(
            ops, watch.ops[i], i, tensor, rewire.copy, node.device(), t, watch);
        if (!dbg.ok()) {
          if (watch.tolerate) continue;
          return absl::FailedPreconditionError(absl::StrCat(
              "Failed to create debug node ", watch.ops[i], " for tensor ",
              tensor, ", due to: ", dbg.status().message()));
        }
        rewire.debug_nodes.push_back(dbg->name());
        added.push_back(*std::move(dbg));
      }
      added.push_back(std::move(copy));
      rewires.emplace(tensor, std::move(rewire));
    }
  }
  if (rewires.empty()) return absl::OkStatus();

  // The consumers read the copy and wait for the debug nodes.
  for (int n = 0; n < original; ++n) {
    NodeDef* node = def->mutable_node(n);
    std::vector<std::string> controls;
    absl::flat_hash_set<std::string> have;
    for (const std::string& in : node->input()) {
      if (absl::StartsWith(in, "^")) have.insert(in.substr(1));
    }
    for (int i = 0; i < node->input_size(); ++i) {
      ParsedInput parsed;
      if (!ParseNodeInput(node->input(i), &parsed).ok() || parsed.IsControl()) {
        continue;
      }
      auto it = rewires.find(absl::StrCat(parsed.node, ":", parsed.index));
      if (it == rewires.end()) continue;
      const Rewire& r = it->second;
      if (!r.is_ref) node->set_input(i, r.copy);
      if (r.no_control) continue;
      for (const std::string& d : r.debug_nodes) {
        if (have.insert(d).second) controls.push_back(d);
      }
    }
    for (const std::string& c : controls) node->add_input("^" + c);
  }
  for (NodeDef& node : added) *def->add_node() = std::move(node);
  return absl::OkStatus();
}

}  // namespace dfx
