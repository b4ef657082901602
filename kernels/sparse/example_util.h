// Reading tf.train.Feature values, shared by the tf.Example and
// tf.SequenceExample parsers (kernels/sparse/parse_*example_ops.cc).
#ifndef DFX_KERNELS_SPARSE_EXAMPLE_UTIL_H_
#define DFX_KERNELS_SPARSE_EXAMPLE_UTIL_H_

#include <cstdint>

#include "proto/example.pb.h"
#include "runtime/tensor.h"
#include "runtime/types.h"

namespace dfx::sparse_internal {

// The number of values `f` holds as `dtype` (float, int64 or string).
int ListSize(const Feature& f, DataType dtype);

// The dtype a feature holds; DT_INVALID when its kind is not set.
DataType FeatureType(const Feature& f);

// Copies the values of `f` (of `dtype`) to out[at, at + size).
void CopyValues(const Feature& f, DataType dtype, Tensor* out, int64_t at);

}  // namespace dfx::sparse_internal

#endif  // DFX_KERNELS_SPARSE_EXAMPLE_UTIL_H_
