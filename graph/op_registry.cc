#include "graph/op_registry.h"

#include <algorithm>
#include <cctype>
#include <mutex>

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "base/logging.h"
#include "base/status_macros.h"
#include "google/protobuf/text_format.h"
#include "graph/ops/ops.h"
#include "graph/types.h"

namespace dfx {
namespace {

const std::vector<DataType>* NamedTypeSet(absl::string_view name) {
  static const auto* kRealNumber = new std::vector<DataType>{
      DT_FLOAT, DT_DOUBLE, DT_INT32, DT_UINT8, DT_INT16, DT_INT8, DT_INT64,
      DT_BFLOAT16, DT_UINT16, DT_HALF, DT_UINT32, DT_UINT64};
  static const auto* kNumber = new std::vector<DataType>{
      DT_FLOAT, DT_DOUBLE, DT_INT32, DT_UINT8, DT_INT16, DT_INT8,
      DT_COMPLEX64, DT_INT64, DT_QINT8, DT_QUINT8, DT_QINT32, DT_BFLOAT16,
      DT_QINT16, DT_QUINT16, DT_UINT16, DT_COMPLEX128, DT_HALF, DT_UINT32,
      DT_UINT64};
  if (name == "realnumbertype") return kRealNumber;
  if (name == "numbertype") return kNumber;
  return nullptr;
}

bool IsIdentifier(absl::string_view s) {
  if (s.empty() || !(std::isalpha(static_cast<unsigned char>(s[0])) || s[0] == '_')) {
    return false;
  }
  return std::all_of(s.begin(), s.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
  });
}

absl::string_view Trim(absl::string_view s) {
  return absl::StripAsciiWhitespace(s);
}

// Splits "a, b, c" at top-level commas (ignores commas inside quotes).
std::vector<absl::string_view> SplitList(absl::string_view s) {
  std::vector<absl::string_view> out;
  if (Trim(s).empty()) return out;
  size_t start = 0;
  char quote = 0;
  for (size_t i = 0; i < s.size(); ++i) {
    const char c = s[i];
    if (quote) {
      if (c == quote) quote = 0;
    } else if (c == '\'' || c == '"') {
      quote = c;
    } else if (c == ',') {
      out.push_back(Trim(s.substr(start, i - start)));
      start = i + 1;
    }
  }
  out.push_back(Trim(s.substr(start)));
  return out;
}

bool ParseType(absl::string_view s, DataType* dtype) {
  s = Trim(s);
  if (absl::ConsumePrefix(&s, "DT_")) {
    std::string lower = absl::AsciiStrToLower(s);
    return DataTypeFromString(lower, dtype);
  }
  return DataTypeFromString(s, dtype);
}

bool ParseQuoted(absl::string_view s, std::string* out) {
  s = Trim(s);
  if (s.size() < 2 || (s.front() != '\'' && s.front() != '"') ||
      s.back() != s.front()) {
    return false;
  }
  *out = std::string(s.substr(1, s.size() - 2));
  return true;
}

// Parses one scalar default value of attr type `type` into `value`.
bool ParseScalarValue(absl::string_view type, absl::string_view text,
                      AttrValue* value) {
  text = Trim(text);
  if (type == "int") {
    int64_t i;
    if (!absl::SimpleAtoi(text, &i)) return false;
    value->set_i(i);
  } else if (type == "float") {
    float f;
    if (!absl::SimpleAtof(text, &f)) return false;
    value->set_f(f);
  } else if (type == "bool") {
    if (text == "true") {
      value->set_b(true);
    } else if (text == "false") {
      value->set_b(false);
    } else {
      return false;
    }
  } else if (type == "string") {
    std::string s;
    if (!ParseQuoted(text, &s)) return false;
    value->set_s(s);
  } else if (type == "type") {
    DataType t;
    if (!ParseType(text, &t)) return false;
    value->set_type(t);
  } else if (type == "shape") {
    if (!google::protobuf::TextFormat::ParseFromString(
            std::string(absl::StripPrefix(absl::StripSuffix(text, "}"), "{")),
            value->mutable_shape())) {
      return false;
    }
  } else if (type == "tensor") {
    if (!google::protobuf::TextFormat::ParseFromString(
            std::string(absl::StripPrefix(absl::StripSuffix(text, "}"), "{")),
            value->mutable_tensor())) {
      return false;
    }
  } else {
    return false;
  }
  return true;
}

bool ParseDefault(absl::string_view type, absl::string_view text,
                  AttrValue* value) {
  absl::string_view inner = type;
  if (absl::ConsumePrefix(&inner, "list(") && absl::ConsumeSuffix(&inner, ")")) {
    text = Trim(text);
    if (!absl::ConsumePrefix(&text, "[") || !absl::ConsumeSuffix(&text, "]")) {
      return false;
    }
    AttrValue::ListValue* list = value->mutable_list();
    for (absl::string_view item : SplitList(text)) {
      AttrValue one;
      if (!ParseScalarValue(inner, item, &one)) return false;
      switch (one.value_case()) {
        case AttrValue::kI: list->add_i(one.i()); break;
        case AttrValue::kF: list->add_f(one.f()); break;
        case AttrValue::kB: list->add_b(one.b()); break;
        case AttrValue::kS: list->add_s(one.s()); break;
        case AttrValue::kType: list->add_type(one.type()); break;
        case AttrValue::kShape: *list->add_shape() = one.shape(); break;
        case AttrValue::kTensor: *list->add_tensor() = one.tensor(); break;
        default: return false;
      }
    }
    return true;
  }
  return ParseScalarValue(type, text, value);
}

bool IsKnownAttrType(absl::string_view type) {
  static constexpr absl::string_view kTypes[] = {
      "string", "int", "float", "bool", "type", "shape", "tensor", "func"};
  absl::string_view inner = type;
  if (absl::ConsumePrefix(&inner, "list(") && absl::ConsumeSuffix(&inner, ")")) {
    type = inner;
  }
  return std::find(std::begin(kTypes), std::end(kTypes), type) !=
         std::end(kTypes);
}

absl::Status ParseAttrSpec(absl::string_view op, absl::string_view spec,
                           OpDef::AttrDef* attr) {
  auto bad = [&](absl::string_view why) {
    return absl::InvalidArgumentError(absl::StrCat(
        "op ", op, ": bad attr spec '", spec, "': ", why));
  };
  const size_t colon = spec.find(':');
  if (colon == absl::string_view::npos) return bad("missing ':'");
  const absl::string_view name = Trim(spec.substr(0, colon));
  if (!IsIdentifier(name)) return bad("attr name is not an identifier");
  attr->set_name(std::string(name));
  absl::string_view rest = Trim(spec.substr(colon + 1));

  absl::string_view default_text;
  bool has_default = false;
  // The default follows the first '=' that is not part of ">=".
  for (size_t i = 0; i < rest.size(); ++i) {
    if (rest[i] == '=' && (i == 0 || rest[i - 1] != '>')) {
      default_text = Trim(rest.substr(i + 1));
      rest = Trim(rest.substr(0, i));
      has_default = true;
      break;
    }
  }
  const size_t ge = rest.find(">=");
  if (ge != absl::string_view::npos) {
    int64_t min;
    if (!absl::SimpleAtoi(Trim(rest.substr(ge + 2)), &min)) {
      return bad("minimum is not an integer");
    }
    attr->set_has_minimum(true);
    attr->set_minimum(min);
    rest = Trim(rest.substr(0, ge));
  }

  // A set of allowed values: "{float, int32}", "list({float, int32})",
  // "{'SAME', 'VALID'}", or a named type set.
  bool is_list = false;
  absl::string_view inner = rest;
  if (absl::ConsumePrefix(&inner, "list(") && absl::ConsumeSuffix(&inner, ")")) {
    is_list = true;
  }
  inner = Trim(inner);
  if (const std::vector<DataType>* set = NamedTypeSet(inner)) {
    attr->set_type(is_list ? "list(type)" : "type");
    for (DataType t : *set) {
      attr->mutable_allowed_values()->mutable_list()->add_type(t);
    }
  } else if (inner.size() >= 2 && inner.front() == '{' && inner.back() == '}') {
    const auto items = SplitList(inner.substr(1, inner.size() - 2));
    if (items.empty()) return bad("empty set of allowed values");
    const bool strings = items[0].front() == '\'' || items[0].front() == '"';
    attr->set_type(is_list ? (strings ? "list(string)" : "list(type)")
                           : (strings ? "string" : "type"));
    for (absl::string_view item : items) {
      if (strings) {
        std::string s;
        if (!ParseQuoted(item, &s)) return bad("malformed string value");
        attr->mutable_allowed_values()->mutable_list()->add_s(s);
      } else {
        DataType t;
        if (!ParseType(item, &t)) {
          return bad(absl::StrCat("unknown type '", item, "'"));
        }
        attr->mutable_allowed_values()->mutable_list()->add_type(t);
      }
    }
  } else {
    if (!IsKnownAttrType(rest)) {
      return bad(absl::StrCat("unknown attr type '", rest, "'"));
    }
    attr->set_type(std::string(rest));
  }

  if (has_default) {
    absl::string_view scalar = attr->type();
    if (!ParseDefault(scalar, default_text, attr->mutable_default_value())) {
      return bad(absl::StrCat("cannot parse default '", default_text,
                              "' as ", attr->type()));
    }
  }
  return absl::OkStatus();
}

absl::Status ParseArgSpec(absl::string_view op, absl::string_view spec,
                          const OpDef& def, OpDef::ArgDef* arg) {
  auto bad = [&](absl::string_view why) {
    return absl::InvalidArgumentError(absl::StrCat(
        "op ", op, ": bad input/output spec '", spec, "': ", why));
  };
  const size_t colon = spec.find(':');
  if (colon == absl::string_view::npos) return bad("missing ':'");
  const absl::string_view name = Trim(spec.substr(0, colon));
  if (!IsIdentifier(name)) return bad("name is not an identifier");
  arg->set_name(std::string(name));
  absl::string_view type = Trim(spec.substr(colon + 1));
  if (absl::ConsumePrefix(&type, "Ref(")) {
    if (!absl::ConsumeSuffix(&type, ")")) return bad("unbalanced Ref(");
    arg->set_is_ref(true);
    type = Trim(type);
  }
  auto find_attr = [&](absl::string_view attr_name) -> const OpDef::AttrDef* {
    for (const auto& a : def.attr()) {
      if (a.name() == attr_name) return &a;
    }
    return nullptr;
  };
  const size_t star = type.find('*');
  if (star != absl::string_view::npos) {
    const absl::string_view number = Trim(type.substr(0, star));
    const OpDef::AttrDef* n = find_attr(number);
    if (n == nullptr || n->type() != "int") {
      return bad(absl::StrCat("'", number, "' is not an int attr"));
    }
    arg->set_number_attr(std::string(number));
    type = Trim(type.substr(star + 1));
  }
  DataType dtype;
  if (ParseType(type, &dtype)) {
    arg->set_type(dtype);
    return absl::OkStatus();
  }
  const OpDef::AttrDef* attr = find_attr(type);
  if (attr == nullptr) {
    return bad(absl::StrCat("'", type, "' is neither a type nor an attr"));
  }
  if (attr->type() == "type") {
    arg->set_type_attr(std::string(type));
  } else if (attr->type() == "list(type)" && arg->number_attr().empty()) {
    arg->set_type_list_attr(std::string(type));
  } else {
    return bad(absl::StrCat("attr '", type, "' is not a type attr"));
  }
  return absl::OkStatus();
}

}  // namespace

OpDefBuilder::OpDefBuilder(std::string op_name) : name_(std::move(op_name)) {}

OpDefBuilder& OpDefBuilder::Input(absl::string_view spec) {
  inputs_.emplace_back(spec);
  return *this;
}
OpDefBuilder& OpDefBuilder::Output(absl::string_view spec) {
  outputs_.emplace_back(spec);
  return *this;
}
OpDefBuilder& OpDefBuilder::Attr(absl::string_view spec) {
  attrs_.emplace_back(spec);
  return *this;
}
OpDefBuilder& OpDefBuilder::SetIsStateful() {
  stateful_ = true;
  return *this;
}
OpDefBuilder& OpDefBuilder::SetIsCommutative() {
  commutative_ = true;
  return *this;
}
OpDefBuilder& OpDefBuilder::SetIsAggregate() {
  aggregate_ = true;
  return *this;
}
OpDefBuilder& OpDefBuilder::SetAllowsUninitializedInput() {
  allows_uninitialized_input_ = true;
  return *this;
}
OpDefBuilder& OpDefBuilder::SetShapeFn(ShapeFn fn) {
  shape_fn_ = std::move(fn);
  return *this;
}

absl::StatusOr<OpRegistrationData> OpDefBuilder::Finalize() const {
  OpRegistrationData data;
  OpDef& def = data.op_def;
  def.set_name(name_);
  if (name_.empty()) return absl::InvalidArgumentError("op with empty name");
  for (const std::string& spec : attrs_) {
    DFX_RETURN_IF_ERROR(ParseAttrSpec(name_, spec, def.add_attr()));
  }
  for (const std::string& spec : inputs_) {
    DFX_RETURN_IF_ERROR(ParseArgSpec(name_, spec, def, def.add_input_arg()));
  }
  for (const std::string& spec : outputs_) {
    DFX_RETURN_IF_ERROR(ParseArgSpec(name_, spec, def, def.add_output_arg()));
  }
  def.set_is_stateful(stateful_);
  def.set_is_commutative(commutative_);
  def.set_is_aggregate(aggregate_);
  def.set_allows_uninitialized_input(allows_uninitialized_input_);
  data.shape_fn = shape_fn_ ? shape_fn_ : ShapeFn(shape_fn::Unknown);
  return data;
}

OpRegistry* OpRegistry::Global() {
  static OpRegistry* registry = [] {
    auto* r = new OpRegistry;
    DFX_CHECK_OK(RegisterStandardOps(r));
    return r;
  }();
  return registry;
}

absl::Status OpRegistry::Register(const OpDefBuilder& builder) {
  DFX_ASSIGN_OR_RETURN(OpRegistrationData data, builder.Finalize());
  return Register(std::move(data));
}

absl::Status OpRegistry::Register(OpRegistrationData data) {
  const std::string name = data.op_def.name();
  if (fallback_ != nullptr && fallback_->LookUp(name) != nullptr) {
    return absl::AlreadyExistsError(
        absl::StrCat("op '", name, "' is already registered"));
  }
  if (!data.shape_fn) data.shape_fn = shape_fn::Unknown;
  absl::MutexLock lock(&mu_);
  auto [it, inserted] = ops_.try_emplace(name, nullptr);
  if (!inserted) {
    return absl::AlreadyExistsError(
        absl::StrCat("op '", name, "' is already registered"));
  }
  it->second = std::make_unique<OpRegistrationData>(std::move(data));
  return absl::OkStatus();
}

const OpRegistrationData* OpRegistry::LookUp(absl::string_view op) const {
  {
    absl::ReaderMutexLock lock(&mu_);
    auto it = ops_.find(op);
    if (it != ops_.end()) return it->second.get();
  }
  return fallback_ == nullptr ? nullptr : fallback_->LookUp(op);
}

absl::StatusOr<const OpRegistrationData*> OpRegistry::LookUpOrError(
    absl::string_view op) const {
  const OpRegistrationData* data = LookUp(op);
  if (data == nullptr) {
    return absl::NotFoundError(
        absl::StrCat("Op type not registered '", op, "'"));
  }
  return data;
}

std::vector<std::string> OpRegistry::ListOps() const {
  std::vector<std::string> names;
  if (fallback_ != nullptr) names = fallback_->ListOps();
  {
    absl::ReaderMutexLock lock(&mu_);
    for (const auto& [name, data] : ops_) names.push_back(name);
  }
  std::sort(names.begin(), names.end());
  return names;
}

}  // namespace dfx
