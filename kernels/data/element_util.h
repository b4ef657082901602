// Helpers for dataset elements: their dtypes, a row of a tensor, stacking
// elements into a batch, scalars of a dataset's declared type.
#ifndef DFX_KERNELS_DATA_ELEMENT_UTIL_H_
#define DFX_KERNELS_DATA_ELEMENT_UTIL_H_

#include <cstdint>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "graph/types.h"
#include "runtime/allocator.h"
#include "runtime/tensor.h"

namespace dfx::data {

DataTypeVector DtypesOf(const std::vector<Tensor>& components);

// OK when tensors of `dtype` can be sliced and stacked (fixed-size types,
// string, resource, variant); InvalidArgument naming component `index`
// otherwise.
absl::Status CheckSliceable(DataType dtype, int index);

// Row `i` of `t` (dims() >= 1): a tensor of t's shape without dim 0. Shares
// t's buffer for fixed-size types.
absl::StatusOr<Tensor> RowOf(const Tensor& t, int64_t i);

// Stacks component `component` of each element of `elements` into one
// tensor of shape [elements.size()] + the common shape. InvalidArgument
// when shapes differ (TensorFlow's "Cannot batch tensors with different
// shapes in component k..."); ResourceExhausted when out of memory.
absl::StatusOr<Tensor> StackComponent(
    Allocator* allocator, const std::vector<std::vector<Tensor>>& elements,
    int component);

// What holding `element` costs: its buffers plus an estimate of the heap
// each tensor takes besides (the allocator counts only buffers).
int64_t ElementBytes(const std::vector<Tensor>& element);

// OK while `held` bytes of elements a dataset keeps (a batch being built, a
// shuffle buffer) still fit under the host memory limit beside what the
// allocator holds; ResourceExhausted naming `what` otherwise. So
// range(2**40).batch(2**40) fails instead of exhausting the machine.
absl::Status CheckHeldElements(int64_t held, absl::string_view what);

// A scalar of `dtype` holding `value` (integer and floating types);
// InvalidArgument for other dtypes.
absl::StatusOr<Tensor> ScalarOfType(DataType dtype, int64_t value);

}  // namespace dfx::data

#endif  // DFX_KERNELS_DATA_ELEMENT_UTIL_H_
