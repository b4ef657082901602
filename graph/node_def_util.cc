#include "graph/node_def_util.h"

#include <algorithm>

#include "absl/strings/numbers.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "base/status_macros.h"

namespace dfx {
namespace {

absl::Status MissingAttr(const NodeDef& node, absl::string_view name) {
  return absl::NotFoundError(absl::StrCat("node '", node.name(), "' (op ",
                                          node.op(), ") has no attr '", name,
                                          "'"));
}

absl::Status WrongKind(const NodeDef& node, absl::string_view name,
                       absl::string_view want, const AttrValue& v) {
  return absl::InvalidArgumentError(absl::StrCat(
      "node '", node.name(), "' (op ", node.op(), "): attr '", name,
      "' should be ", want, " but is ", AttrValueKind(v)));
}

template <typename Getter>
absl::Status GetScalar(const NodeDef& node, absl::string_view name,
                       AttrValue::ValueCase want_case, absl::string_view want,
                       Getter get) {
  const AttrValue* v = FindNodeAttr(node, name);
  if (v == nullptr) return MissingAttr(node, name);
  if (v->value_case() != want_case) return WrongKind(node, name, want, *v);
  get(*v);
  return absl::OkStatus();
}

// A list attr that is empty carries no kind, so any list kind accepts it.
const AttrValue::ListValue* GetList(const NodeDef& node, absl::string_view name,
                                    absl::string_view want, absl::Status* s) {
  const AttrValue* v = FindNodeAttr(node, name);
  if (v == nullptr) {
    *s = MissingAttr(node, name);
    return nullptr;
  }
  if (v->value_case() != AttrValue::kList) {
    *s = WrongKind(node, name, want, *v);
    return nullptr;
  }
  return &v->list();
}

}  // namespace

const AttrValue* FindNodeAttr(const NodeDef& node, absl::string_view name) {
  auto it = node.attr().find(std::string(name));
  return it == node.attr().end() ? nullptr : &it->second;
}

std::string AttrValueKind(const AttrValue& value) {
  switch (value.value_case()) {
    case AttrValue::kS: return "string";
    case AttrValue::kI: return "int";
    case AttrValue::kF: return "float";
    case AttrValue::kB: return "bool";
    case AttrValue::kType: return "type";
    case AttrValue::kShape: return "shape";
    case AttrValue::kTensor: return "tensor";
    case AttrValue::kFunc: return "func";
    case AttrValue::kPlaceholder: return "placeholder";
    case AttrValue::kList: {
      const auto& l = value.list();
      if (l.s_size()) return "list(string)";
      if (l.i_size()) return "list(int)";
      if (l.f_size()) return "list(float)";
      if (l.b_size()) return "list(bool)";
      if (l.type_size()) return "list(type)";
      if (l.shape_size()) return "list(shape)";
      if (l.tensor_size()) return "list(tensor)";
      if (l.func_size()) return "list(func)";
      return "list()";
    }
    case AttrValue::VALUE_NOT_SET: return "empty";
  }
  return "unknown";
}

absl::Status GetNodeAttr(const NodeDef& node, absl::string_view name,
                         int64_t* value) {
  return GetScalar(node, name, AttrValue::kI, "int",
                   [&](const AttrValue& v) { *value = v.i(); });
}
absl::Status GetNodeAttr(const NodeDef& node, absl::string_view name,
                         int32_t* value) {
  int64_t v;
  DFX_RETURN_IF_ERROR(GetNodeAttr(node, name, &v));
  if (v < INT32_MIN || v > INT32_MAX) {
    return absl::InvalidArgumentError(
        absl::StrCat("node '", node.name(), "': attr '", name, "' value ", v,
                     " does not fit in int32"));
  }
  *value = static_cast<int32_t>(v);
  return absl::OkStatus();
}
absl::Status GetNodeAttr(const NodeDef& node, absl::string_view name,
                         float* value) {
  return GetScalar(node, name, AttrValue::kF, "float",
                   [&](const AttrValue& v) { *value = v.f(); });
}
absl::Status GetNodeAttr(const NodeDef& node, absl::string_view name,
                         bool* value) {
  return GetScalar(node, name, AttrValue::kB, "bool",
                   [&](const AttrValue& v) { *value = v.b(); });
}
absl::Status GetNodeAttr(const NodeDef& node, absl::string_view name,
                         DataType* value) {
  return GetScalar(node, name, AttrValue::kType, "type",
                   [&](const AttrValue& v) { *value = v.type(); });
}
absl::Status GetNodeAttr(const NodeDef& node, absl::string_view name,
                         std::string* value) {
  return GetScalar(node, name, AttrValue::kS, "string",
                   [&](const AttrValue& v) { *value = v.s(); });
}
absl::Status GetNodeAttr(const NodeDef& node, absl::string_view name,
                         TensorShapeProto* value) {
  return GetScalar(node, name, AttrValue::kShape, "shape",
                   [&](const AttrValue& v) { *value = v.shape(); });
}
absl::Status GetNodeAttr(const NodeDef& node, absl::string_view name,
                         TensorProto* value) {
  return GetScalar(node, name, AttrValue::kTensor, "tensor",
                   [&](const AttrValue& v) { *value = v.tensor(); });
}
absl::Status GetNodeAttr(const NodeDef& node, absl::string_view name,
                         std::vector<int64_t>* value) {
  absl::Status s;
  const AttrValue::ListValue* l = GetList(node, name, "list(int)", &s);
  if (l == nullptr) return s;
  value->assign(l->i().begin(), l->i().end());
  return absl::OkStatus();
}
absl::Status GetNodeAttr(const NodeDef& node, absl::string_view name,
                         std::vector<int32_t>* value) {
  std::vector<int64_t> v;
  DFX_RETURN_IF_ERROR(GetNodeAttr(node, name, &v));
  value->assign(v.begin(), v.end());
  return absl::OkStatus();
}
absl::Status GetNodeAttr(const NodeDef& node, absl::string_view name,
                         DataTypeVector* value) {
  absl::Status s;
  const AttrValue::ListValue* l = GetList(node, name, "list(type)", &s);
  if (l == nullptr) return s;
  value->clear();
  for (int t : l->type()) value->push_back(static_cast<DataType>(t));
  return absl::OkStatus();
}
absl::Status GetNodeAttr(const NodeDef& node, absl::string_view name,
                         std::vector<std::string>* value) {
  absl::Status s;
  const AttrValue::ListValue* l = GetList(node, name, "list(string)", &s);
  if (l == nullptr) return s;
  value->assign(l->s().begin(), l->s().end());
  return absl::OkStatus();
}

void AddDefaultAttrs(const OpDef& op_def, NodeDef* node) {
  for (const OpDef::AttrDef& attr : op_def.attr()) {
    if (attr.has_default_value() && !node->attr().contains(attr.name())) {
      (*node->mutable_attr())[attr.name()] = attr.default_value();
    }
  }
}

absl::Status NumTensorsForArg(const NodeDef& node, const OpDef::ArgDef& arg,
                              int* count) {
  if (!arg.number_attr().empty()) {
    int64_t n;
    DFX_RETURN_IF_ERROR(GetNodeAttr(node, arg.number_attr(), &n));
    if (n < 0) {
      return absl::InvalidArgumentError(
          absl::StrCat("node '", node.name(), "': attr '", arg.number_attr(),
                       "' must be non-negative, got ", n));
    }
    *count = static_cast<int>(n);
  } else if (!arg.type_list_attr().empty()) {
    DataTypeVector types;
    DFX_RETURN_IF_ERROR(GetNodeAttr(node, arg.type_list_attr(), &types));
    *count = static_cast<int>(types.size());
  } else {
    *count = 1;
  }
  return absl::OkStatus();
}

namespace {

absl::Status AddArgTypes(const NodeDef& node, const OpDef::ArgDef& arg,
                         DataTypeVector* types) {
  if (!arg.type_list_attr().empty()) {
    DataTypeVector list;
    DFX_RETURN_IF_ERROR(GetNodeAttr(node, arg.type_list_attr(), &list));
    for (DataType t : list) types->push_back(arg.is_ref() ? MakeRefType(t) : t);
    return absl::OkStatus();
  }
  DataType dtype = arg.type();
  if (!arg.type_attr().empty()) {
    DFX_RETURN_IF_ERROR(GetNodeAttr(node, arg.type_attr(), &dtype));
  }
  if (dtype == DT_INVALID) {
    return absl::InvalidArgumentError(absl::StrCat(
        "node '", node.name(), "': arg '", arg.name(), "' has no type"));
  }
  if (arg.is_ref()) dtype = MakeRefType(dtype);
  int count;
  DFX_RETURN_IF_ERROR(NumTensorsForArg(node, arg, &count));
  for (int i = 0; i < count; ++i) types->push_back(dtype);
  return absl::OkStatus();
}

}  // namespace

absl::Status InOutTypesForNode(const NodeDef& node, const OpDef& op_def,
                               DataTypeVector* inputs,
                               DataTypeVector* outputs) {
  inputs->clear();
  outputs->clear();
  for (const auto& arg : op_def.input_arg()) {
    DFX_RETURN_IF_ERROR(AddArgTypes(node, arg, inputs));
  }
  for (const auto& arg : op_def.output_arg()) {
    DFX_RETURN_IF_ERROR(AddArgTypes(node, arg, outputs));
  }
  return absl::OkStatus();
}

absl::Status ParseNodeInput(absl::string_view input, ParsedInput* parsed) {
  auto bad = [&](absl::string_view why) {
    return absl::InvalidArgumentError(
        absl::StrCat("malformed input '", input, "': ", why));
  };
  if (input.empty()) return bad("empty");
  if (input[0] == '^') {
    parsed->node = input.substr(1);
    parsed->index = -1;
    if (parsed->node.empty()) return bad("empty control input");
    // tfdbg's watch nodes (graph/debug_watches.h) have TensorFlow's names,
    // "__dbg_<node>:<slot>_<i>_<op>", and only control inputs name them.
    if (parsed->node.find(':') != absl::string_view::npos &&
        !absl::StartsWith(parsed->node, "__dbg_")) {
      return bad("control input with an output index");
    }
    return absl::OkStatus();
  }
  const size_t colon = input.rfind(':');
  if (colon == absl::string_view::npos) {
    parsed->node = input;
    parsed->index = 0;
    return absl::OkStatus();
  }
  parsed->node = input.substr(0, colon);
  if (parsed->node.empty()) return bad("empty node name");
  int index;
  absl::string_view digits = input.substr(colon + 1);
  if (digits.empty() ||
      !std::all_of(digits.begin(), digits.end(),
                   [](char c) { return c >= '0' && c <= '9'; }) ||
      !absl::SimpleAtoi(digits, &index)) {
    return bad("output index is not a non-negative integer");
  }
  parsed->index = index;
  return absl::OkStatus();
}

}  // namespace dfx
