// The value of an Optional (a DT_VARIANT scalar holding zero or more
// tensors), made by the Optional ops and by IteratorGetNextAsOptional.
#ifndef DFX_KERNELS_LIST_OPTIONAL_VALUE_H_
#define DFX_KERNELS_LIST_OPTIONAL_VALUE_H_

#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "runtime/tensor.h"
#include "runtime/variant.h"

namespace dfx {

// An optional: no value, or a tuple of tensors.
class OptionalValue final : public VariantValue {
 public:
  static constexpr char kTypeName[] = "tensorflow::data::Optional";

  OptionalValue() = default;
  explicit OptionalValue(std::vector<Tensor> values)
      : has_value_(true), values_(std::move(values)) {}

  std::string TypeName() const override { return kTypeName; }
  void Encode(VariantTensorDataProto* proto) const override {
    for (const Tensor& t : values_) t.AsProtoField(proto->add_tensors());
  }
  std::string DebugString() const override {
    return has_value_ ? absl::StrCat("Optional<", values_.size(), " values>")
                      : "Optional<none>";
  }
  bool has_value() const { return has_value_; }
  const std::vector<Tensor>& values() const { return values_; }

 private:
  bool has_value_ = false;
  std::vector<Tensor> values_;
};

}  // namespace dfx

#endif  // DFX_KERNELS_LIST_OPTIONAL_VALUE_H_
