#include "runtime/variant.h"

#include "absl/strings/str_cat.h"
#include "runtime/tensor_list.h"

namespace dfx {
namespace {

// Variants nest (a list of lists); a hostile message could nest them deep
// enough to exhaust the stack of the thread decoding it.
constexpr int kMaxVariantNesting = 64;
thread_local int decode_depth = 0;

}  // namespace

std::string OpaqueVariant::DebugString() const {
  return absl::StrCat("opaque variant of type ", proto_.type_name(), " (",
                      proto_.tensors_size(), " tensors)");
}

std::string Variant::TypeName() const {
  return value_.get() == nullptr ? std::string() : value_->TypeName();
}

void Variant::Encode(VariantTensorDataProto* proto) const {
  proto->Clear();
  if (value_.get() == nullptr) return;
  value_->Encode(proto);
  proto->set_type_name(value_->TypeName());
}

absl::StatusOr<Variant> Variant::Decode(const VariantTensorDataProto& proto) {
  if (proto.type_name().empty()) {
    if (!proto.metadata().empty() || proto.tensors_size() > 0) {
      return absl::InvalidArgumentError(
          "malformed variant: data without a type name");
    }
    return Variant();
  }
  if (proto.type_name() == TensorList::kTypeName) {
    if (decode_depth >= kMaxVariantNesting) {
      return absl::InvalidArgumentError(absl::StrCat(
          "malformed variant: nested more than ", kMaxVariantNesting,
          " levels deep"));
    }
    ++decode_depth;
    absl::StatusOr<TensorList> list = TensorList::Decode(proto);
    --decode_depth;
    if (!list.ok()) return list.status();
    return Variant::Make<TensorList>(*std::move(list));
  }
  return Variant::Make<OpaqueVariant>(proto);
}

std::string Variant::DebugString() const {
  return value_.get() == nullptr
             ? "<empty>"
             : absl::StrCat("<", value_->DebugString(), ">");
}

}  // namespace dfx
