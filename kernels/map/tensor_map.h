// The values DT_VARIANT tensors carry between the tmap family's kernels: a
// TensorMap (TensorFlow's map_ops: scalar key tensors to value tensors) and
// a RaggedTensorVariant (one ragged tensor, as RaggedTensorToVariant makes
// it for tf.data and tf.map_fn). Both are immutable once a Variant holds
// them; they travel under TensorFlow's type names and layouts, so a
// TensorFlow client can fetch them from dfx and feed them back.
#ifndef DFX_KERNELS_MAP_TENSOR_MAP_H_
#define DFX_KERNELS_MAP_TENSOR_MAP_H_

#include <cstddef>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "absl/status/statusor.h"
#include "runtime/op_kernel.h"
#include "runtime/tensor.h"
#include "runtime/variant.h"

namespace dfx {

class TensorMap final : public VariantValue {
 public:
  static constexpr char kTypeName[] = "tensorflow::TensorMap";

  // Keys are equal when dtype, shape and contents are (contents byte for
  // byte, strings by value; a variant or resource key equals nothing, as in
  // TensorFlow's TensorKey).
  struct KeyHash {
    size_t operator()(const Tensor& key) const;
  };
  struct KeyEq {
    bool operator()(const Tensor& a, const Tensor& b) const;
  };
  using Map = std::unordered_map<Tensor, Tensor, KeyHash, KeyEq>;

  std::string TypeName() const override { return kTypeName; }
  // TensorFlow's layout: key and value tensors alternating, no metadata.
  void Encode(VariantTensorDataProto* proto) const override;
  std::string DebugString() const override;
  // Reverses Encode; InvalidArgument when the tensors do not pair up or do
  // not parse.
  static absl::StatusOr<TensorMap> Decode(const VariantTensorDataProto& proto);

  Map tensors;
};

class RaggedTensorVariant final : public VariantValue {
 public:
  static constexpr char kTypeName[] = "RaggedTensorVariant";

  RaggedTensorVariant() = default;
  RaggedTensorVariant(std::vector<Tensor> splits, Tensor values)
      : nested_splits(std::move(splits)), values(std::move(values)) {}

  std::string TypeName() const override { return kTypeName; }
  // TensorFlow's layout: the splits tensors outermost first, then the
  // values, no metadata.
  void Encode(VariantTensorDataProto* proto) const override;
  std::string DebugString() const override;
  // Reverses Encode; InvalidArgument when there is no values tensor or a
  // tensor does not parse.
  static absl::StatusOr<RaggedTensorVariant> Decode(
      const VariantTensorDataProto& proto);

  int ragged_rank() const { return static_cast<int>(nested_splits.size()); }

  std::vector<Tensor> nested_splits;
  Tensor values;
};

// The value `v` holds when it is a T, or one decoded from an opaque variant
// of T's type name (a value that came over the wire from TensorFlow or
// another dfx process): `holder` then owns it. Null when `v` holds
// neither; InvalidArgument when an opaque T does not decode.
template <typename T>
absl::StatusOr<const T*> GetVariantValue(const Variant& v,
                                         std::shared_ptr<const T>* holder) {
  if (const T* value = v.get<T>()) return value;
  const OpaqueVariant* opaque = v.get<OpaqueVariant>();
  if (opaque == nullptr || opaque->TypeName() != T::kTypeName) {
    return static_cast<const T*>(nullptr);
  }
  absl::StatusOr<T> decoded = T::Decode(opaque->proto());
  if (!decoded.ok()) return decoded.status();
  *holder = std::make_shared<const T>(*std::move(decoded));
  return holder->get();
}

// The TensorMap and ragged-variant kernels (map_kernels.cc,
// ragged_variant_kernels.cc).
void RegisterTensorMapKernels(KernelRegistry* registry);
void RegisterRaggedVariantKernels(KernelRegistry* registry);

}  // namespace dfx

#endif  // DFX_KERNELS_MAP_TENSOR_MAP_H_
