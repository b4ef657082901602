// ValidateNodeAttrs (declared in graph/node_def_util.h): a node's attrs
// against its op's AttrDefs.
#include <algorithm>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "graph/node_def_util.h"
#include "graph/types.h"

namespace dfx {
namespace {

std::string NodePrefix(const NodeDef& node) {
  return absl::StrCat("node '", node.name(), "' (op ", node.op(), "): ");
}

// Number of values a list holds in the field named by `kind` ("int", "type",
// ...), and the number it holds in all fields together.
int ListSize(const AttrValue::ListValue& l, absl::string_view kind) {
  if (kind == "string") return l.s_size();
  if (kind == "int") return l.i_size();
  if (kind == "float") return l.f_size();
  if (kind == "bool") return l.b_size();
  if (kind == "type") return l.type_size();
  if (kind == "shape") return l.shape_size();
  if (kind == "tensor") return l.tensor_size();
  if (kind == "func") return l.func_size();
  return 0;
}

int ListTotal(const AttrValue::ListValue& l) {
  return l.s_size() + l.i_size() + l.f_size() + l.b_size() + l.type_size() +
         l.shape_size() + l.tensor_size() + l.func_size();
}

AttrValue::ValueCase ScalarCase(absl::string_view kind) {
  if (kind == "string") return AttrValue::kS;
  if (kind == "int") return AttrValue::kI;
  if (kind == "float") return AttrValue::kF;
  if (kind == "bool") return AttrValue::kB;
  if (kind == "type") return AttrValue::kType;
  if (kind == "shape") return AttrValue::kShape;
  if (kind == "tensor") return AttrValue::kTensor;
  if (kind == "func") return AttrValue::kFunc;
  return AttrValue::VALUE_NOT_SET;
}

// True when `value` holds the kind the AttrDef type string names. An empty
// list carries no kind and fits every list type.
bool KindMatches(const AttrValue& value, absl::string_view type) {
  absl::string_view inner = type;
  if (inner.size() > 6 && inner.substr(0, 5) == "list(" && inner.back() == ')') {
    inner = inner.substr(5, inner.size() - 6);
    if (value.value_case() != AttrValue::kList) return false;
    return ListSize(value.list(), inner) == ListTotal(value.list());
  }
  return value.value_case() == ScalarCase(type);
}

std::string TypeSetString(const AttrValue::ListValue& allowed) {
  return absl::StrJoin(allowed.type(), ", ", [](std::string* out, int t) {
    absl::StrAppend(out, DataTypeString(static_cast<DataType>(t)));
  });
}

std::string StringSetString(const AttrValue::ListValue& allowed) {
  return absl::StrJoin(allowed.s(), ", ", [](std::string* out,
                                             const std::string& s) {
    absl::StrAppend(out, "\"", s, "\"");
  });
}

absl::Status CheckAllowed(const NodeDef& node, const OpDef::AttrDef& def,
                          const AttrValue& value) {
  if (!def.has_allowed_values()) return absl::OkStatus();
  const AttrValue::ListValue& allowed = def.allowed_values().list();
  auto type_ok = [&](int t) {
    return std::find(allowed.type().begin(), allowed.type().end(), t) !=
           allowed.type().end();
  };
  auto string_ok = [&](const std::string& s) {
    return std::find(allowed.s().begin(), allowed.s().end(), s) !=
           allowed.s().end();
  };
  auto bad_type = [&](int t) {
    return absl::InvalidArgumentError(absl::StrCat(
        NodePrefix(node), "attr '", def.name(), "' value ",
        DataTypeString(static_cast<DataType>(t)),
        " is not in the list of allowed values: ", TypeSetString(allowed)));
  };
  auto bad_string = [&](const std::string& s) {
    return absl::InvalidArgumentError(absl::StrCat(
        NodePrefix(node), "attr '", def.name(), "' value \"", s,
        "\" is not in the list of allowed values: ", StringSetString(allowed)));
  };
  if (def.type() == "type") {
    if (!type_ok(value.type())) return bad_type(value.type());
  } else if (def.type() == "list(type)") {
    for (int t : value.list().type()) {
      if (!type_ok(t)) return bad_type(t);
    }
  } else if (def.type() == "string") {
    if (!string_ok(value.s())) return bad_string(value.s());
  } else if (def.type() == "list(string)") {
    for (const std::string& s : value.list().s()) {
      if (!string_ok(s)) return bad_string(s);
    }
  }
  return absl::OkStatus();
}

absl::Status CheckMinimum(const NodeDef& node, const OpDef::AttrDef& def,
                          const AttrValue& value) {
  if (!def.has_minimum()) return absl::OkStatus();
  if (def.type() == "int") {
    if (value.i() < def.minimum()) {
      return absl::InvalidArgumentError(absl::StrCat(
          NodePrefix(node), "attr '", def.name(), "' value ", value.i(),
          " is below its minimum ", def.minimum()));
    }
  } else if (def.type().rfind("list(", 0) == 0) {
    const int n = ListTotal(value.list());
    if (n < def.minimum()) {
      return absl::InvalidArgumentError(absl::StrCat(
          NodePrefix(node), "attr '", def.name(), "' has ", n,
          " values, below its minimum length ", def.minimum()));
    }
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status ValidateNodeAttrs(const NodeDef& node, const OpDef& op_def) {
  for (const OpDef::AttrDef& def : op_def.attr()) {
    const AttrValue* value = FindNodeAttr(node, def.name());
    if (value == nullptr) {
      if (def.has_default_value()) continue;
      return absl::InvalidArgumentError(absl::StrCat(
          NodePrefix(node), "missing required attr '", def.name(), "' of type ",
          def.type()));
    }
    if (!KindMatches(*value, def.type())) {
      return absl::InvalidArgumentError(absl::StrCat(
          NodePrefix(node), "attr '", def.name(), "' should be ", def.type(),
          " but is ", AttrValueKind(*value)));
    }
    if (auto s = CheckAllowed(node, def, *value); !s.ok()) return s;
    if (auto s = CheckMinimum(node, def, *value); !s.ok()) return s;
  }
  // Sorted so the error names the same attr every time.
  std::vector<std::string> names;
  for (const auto& [name, value] : node.attr()) names.push_back(name);
  std::sort(names.begin(), names.end());
  for (const std::string& name : names) {
    if (!name.empty() && name[0] == '_') continue;
    const bool declared =
        std::any_of(op_def.attr().begin(), op_def.attr().end(),
                    [&](const OpDef::AttrDef& d) { return d.name() == name; });
    if (!declared) {
      return absl::InvalidArgumentError(
          absl::StrCat(NodePrefix(node), "attr '", name,
                       "' is not declared by op ", op_def.name()));
    }
  }
  return absl::OkStatus();
}

}  // namespace dfx
