#include "kernels/data/element_util.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "kernels/data_flow/data_flow_util.h"
#include "runtime/memory_limit.h"

namespace dfx::data {

DataTypeVector DtypesOf(const std::vector<Tensor>& components) {
  DataTypeVector out;
  out.reserve(components.size());
  for (const Tensor& t : components) out.push_back(t.dtype());
  return out;
}

absl::Status CheckSliceable(DataType dtype, int index) {
  // Variants too: tf.data carries a SparseTensor as three of them.
  if (data_flow::CanMove(dtype) || dtype == DT_VARIANT) {
    return absl::OkStatus();
  }
  return absl::InvalidArgumentError(
      absl::StrCat("component ", index, " is of type ", DataTypeString(dtype),
                   ", which dfx datasets cannot slice or batch"));
}

absl::StatusOr<Tensor> RowOf(const Tensor& t, int64_t i) {
  TensorShape row = t.shape();
  row.RemoveDim(0);
  if (DataTypeCanMemcpy(t.dtype())) return t.Slice(i, i + 1).Reshaped(row);
  Tensor out(t.dtype(), row);
  const int64_t n = row.num_elements();
  data_flow::CopyElements(t, i * n, &out, 0, n);
  return out;
}

absl::StatusOr<Tensor> StackComponent(
    Allocator* allocator, const std::vector<std::vector<Tensor>>& elements,
    int component) {
  const Tensor& first = elements.front()[component];
  for (size_t e = 1; e < elements.size(); ++e) {
    const Tensor& t = elements[e][component];
    if (t.shape() != first.shape() || t.dtype() != first.dtype()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "Cannot batch tensors with different shapes in component ",
          component, ". First element had shape ", first.shape().DebugString(),
          " and element ", e, " had shape ", t.shape().DebugString(), "."));
    }
  }
  DFX_RETURN_IF_ERROR(CheckSliceable(first.dtype(), component));
  TensorShape shape = first.shape();
  TensorShape batched({static_cast<int64_t>(elements.size())});
  for (int d = 0; d < shape.dims(); ++d) {
    DFX_RETURN_IF_ERROR(batched.AddDim(shape.dim_size(d)));
  }
  DFX_ASSIGN_OR_RETURN(Tensor out,
                       Tensor::Allocate(allocator, first.dtype(), batched));
  const int64_t n = first.NumElements();
  for (size_t e = 0; e < elements.size(); ++e) {
    data_flow::CopyElements(elements[e][component], 0, &out,
                            static_cast<int64_t>(e) * n, n);
  }
  return out;
}

int64_t ElementBytes(const std::vector<Tensor>& element) {
  // A Tensor, its shape and its buffer object, and the vector slot.
  constexpr int64_t kPerTensorOverhead = 128;
  int64_t bytes = 0;
  for (const Tensor& t : element) {
    bytes += static_cast<int64_t>(t.TotalBytes()) + kPerTensorOverhead;
  }
  return bytes;
}

absl::Status CheckHeldElements(int64_t held, absl::string_view what) {
  return CheckHostMemoryHeadroom(held, absl::StrCat("the elements ", what,
                                                    " holds"));
}

absl::StatusOr<Tensor> ScalarOfType(DataType dtype, int64_t value) {
  switch (dtype) {
#define DFX_SCALAR_CASE(ENUM, T) \
  case ENUM:                     \
    return Tensor::Scalar<T>(static_cast<T>(value));
    DFX_SCALAR_CASE(DT_INT8, int8_t)
    DFX_SCALAR_CASE(DT_INT16, int16_t)
    DFX_SCALAR_CASE(DT_INT32, int32_t)
    DFX_SCALAR_CASE(DT_INT64, int64_t)
    DFX_SCALAR_CASE(DT_UINT8, uint8_t)
    DFX_SCALAR_CASE(DT_UINT16, uint16_t)
    DFX_SCALAR_CASE(DT_UINT32, uint32_t)
    DFX_SCALAR_CASE(DT_UINT64, uint64_t)
    DFX_SCALAR_CASE(DT_FLOAT, float)
    DFX_SCALAR_CASE(DT_DOUBLE, double)
#undef DFX_SCALAR_CASE
    default:
      return absl::InvalidArgumentError(
          absl::StrCat("a range of ", DataTypeString(dtype),
                       " is not supported (integer and floating types are)"));
  }
}

}  // namespace dfx::data
