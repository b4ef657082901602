// Variant: the element type of DT_VARIANT tensors. A Variant holds one value
// of some kind (a TensorList, ...) behind a shared pointer, or nothing.
// Values are immutable once a Variant holds them, so copying a Variant (and
// a DT_VARIANT tensor) shares the value instead of copying it.
//
// On the wire a Variant is TensorFlow's VariantTensorDataProto: the kind's
// type name, opaque metadata bytes and a list of tensors. A value whose type
// name dfx does not know decodes to an OpaqueVariant that keeps the proto as
// it came, so such values pass through dfx unchanged.
#ifndef DFX_RUNTIME_VARIANT_H_
#define DFX_RUNTIME_VARIANT_H_

#include <memory>
#include <string>
#include <utility>

#include "absl/status/statusor.h"
#include "base/shared_ref.h"
#include "proto/tensor.pb.h"
#include "runtime/types.h"

namespace dfx {

// One kind of value a Variant can hold. Implementations are immutable after
// construction as far as any holder can see (kernels that own the only
// reference may move a value's members out, see Variant::use_count).
class VariantValue {
 public:
  virtual ~VariantValue() = default;
  // The name the kind travels under ("tensorflow::TensorList").
  virtual std::string TypeName() const = 0;
  // Fills metadata and tensors of `proto` (type_name is set by the caller).
  virtual void Encode(VariantTensorDataProto* proto) const = 0;
  // A short human-readable description, for errors and logs.
  virtual std::string DebugString() const = 0;
};

// A value of a kind dfx does not know: the VariantTensorDataProto it came
// as, re-encoded unchanged.
class OpaqueVariant final : public VariantValue {
 public:
  explicit OpaqueVariant(VariantTensorDataProto proto)
      : proto_(std::move(proto)) {}
  std::string TypeName() const override { return proto_.type_name(); }
  void Encode(VariantTensorDataProto* proto) const override { *proto = proto_; }
  std::string DebugString() const override;
  const VariantTensorDataProto& proto() const { return proto_; }

 private:
  const VariantTensorDataProto proto_;
};

class Variant {
 public:
  // Empty: holds no value (what a freshly allocated DT_VARIANT tensor holds).
  Variant() = default;
  explicit Variant(std::shared_ptr<const VariantValue> value)
      : value_(std::move(value)) {}

  // A Variant holding a new T built from `args`.
  template <typename T, typename... Args>
  static Variant Make(Args&&... args) {
    return Variant(std::shared_ptr<const VariantValue>(
        std::make_shared<T>(std::forward<Args>(args)...)));
  }

  bool is_empty() const { return value_.get() == nullptr; }
  // The value's type name, "" when empty.
  std::string TypeName() const;
  // The value when it is a T, else null. Borrowed from this Variant (and
  // every copy of it).
  template <typename T>
  const T* get() const {
    return dynamic_cast<const T*>(value_.get());
  }
  // The number of Variants sharing the value (0 when empty): a snapshot.
  long use_count() const { return value_.use_count(); }
  // Whether this is the only Variant holding the value. A kernel that holds
  // the only reference to a tensor's buffer (Tensor::BufferUnshared) and
  // finds this true owns the value outright; what earlier holders did with
  // it happens before.
  bool Unique() const { return value_.Unique(); }
  const std::shared_ptr<const VariantValue>& value() const {
    return value_.shared();
  }

  // Writes type_name, metadata and tensors. An empty Variant writes an empty
  // proto.
  void Encode(VariantTensorDataProto* proto) const;
  // Decodes a known kind (TensorList), an empty proto as an empty Variant,
  // and any other type name as an OpaqueVariant. InvalidArgument naming the
  // kind when a known kind's data is malformed.
  static absl::StatusOr<Variant> Decode(const VariantTensorDataProto& proto);

  // "<TensorList ...>", or "<empty>".
  std::string DebugString() const;

 private:
  SharedRef<const VariantValue> value_;
};

template <>
struct DataTypeToEnum<Variant> {
  static constexpr DataType value = DT_VARIANT;
};
template <>
struct EnumToDataType<DT_VARIANT> {
  using Type = Variant;
};

}  // namespace dfx

#endif  // DFX_RUNTIME_VARIANT_H_
