// TensorList: the value a DT_VARIANT scalar holds between TensorFlow's list
// ops (EmptyTensorList, TensorListPushBack, ...): a sequence of tensors of
// one dtype whose shapes all fit a partial element shape. TF2 loops and
// their gradients carry accumulators this way, and TF2 TensorArrays are
// TensorLists inside tf.function. Wire name and encoding are TensorFlow's
// ("tensorflow::TensorList").
#ifndef DFX_RUNTIME_TENSOR_LIST_H_
#define DFX_RUNTIME_TENSOR_LIST_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "graph/shape_inference.h"
#include "proto/tensor.pb.h"
#include "runtime/tensor.h"
#include "runtime/variant.h"

namespace dfx {

class TensorList final : public VariantValue {
 public:
  static constexpr char kTypeName[] = "tensorflow::TensorList";

  TensorList() = default;
  TensorList(DataType dtype, PartialShape shape, int max_elements = -1)
      : element_dtype(dtype),
        element_shape(std::move(shape)),
        max_num_elements(max_elements) {}
  TensorList(const TensorList&) = default;
  TensorList(TensorList&&) = default;
  TensorList& operator=(const TensorList&) = default;
  TensorList& operator=(TensorList&&) = default;

  std::string TypeName() const override { return kTypeName; }
  // TensorFlow's layout: the set elements as tensors (typed *_val fields,
  // as TensorFlow's VariantTensorData writes them); metadata holds the
  // count and positions of unset elements, the element dtype, the maximum
  // length (uint64 max for -1) and the element shape proto, as varints and
  // bytes.
  void Encode(VariantTensorDataProto* proto) const override;
  // "TensorList<float, [2,?], 3 elements>".
  std::string DebugString() const override;

  // Reverses Encode. InvalidArgument when the metadata is malformed, the
  // element dtype is not one dfx holds, or an element's dtype or shape does
  // not fit the list's.
  static absl::StatusOr<TensorList> Decode(const VariantTensorDataProto& proto);

  // An element is set when it holds a tensor; an unset one (a default
  // Tensor, from TensorListReserve or Resize) reads as zeros of the element
  // shape.
  static bool IsSet(const Tensor& t) { return t.IsInitialized(); }

  DataType element_dtype = DT_INVALID;
  // Unknown rank by default.
  PartialShape element_shape;
  // -1: unbounded.
  int max_num_elements = -1;
  std::vector<Tensor> tensors;
};

// Partial shapes of list elements, with TensorFlow's PartialTensorShape
// semantics (unknown rank matches every shape, a -1 dim every size).

// True when some shape fits both.
bool ShapesCompatible(const PartialShape& a, const PartialShape& b);
bool ShapesCompatible(const PartialShape& a, const TensorShape& b);
// The most specific shape fitting both; InvalidArgument ("Incompatible
// shapes during merge: [3] vs. [2]") when there is none.
absl::StatusOr<PartialShape> MergeShapes(const PartialShape& a,
                                         const PartialShape& b);
PartialShape ToPartialShape(const TensorShape& shape);
// False when `shape` is not fully defined.
bool ToTensorShape(const PartialShape& shape, TensorShape* out);
void PartialShapeAsProto(const PartialShape& shape, TensorShapeProto* proto);

}  // namespace dfx

#endif  // DFX_RUNTIME_TENSOR_LIST_H_
