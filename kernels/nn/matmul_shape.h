// MatMul's shape rules, shared by its CPU and GPU kernels: the problem's
// m, k and n, or TensorFlow's error for inputs that are not matrices or do
// not multiply.
#ifndef DFX_KERNELS_NN_MATMUL_SHAPE_H_
#define DFX_KERNELS_NN_MATMUL_SHAPE_H_

#include <cstdint>

#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "runtime/tensor_shape.h"

namespace dfx {

struct MatMulDims {
  int64_t m = 0;  // rows of the product
  int64_t k = 0;  // the contracted dimension
  int64_t n = 0;  // columns of the product
};

// a (m×k, or k×m when transposed) times b (k×n, or n×k).
inline absl::StatusOr<MatMulDims> MatMulShape(const TensorShape& a,
                                              const TensorShape& b,
                                              bool transpose_a,
                                              bool transpose_b) {
  if (a.dims() != 2) {
    return absl::InvalidArgumentError(absl::StrCat(
        "In[0] is not a matrix. Instead it has shape ", a.DebugString()));
  }
  if (b.dims() != 2) {
    return absl::InvalidArgumentError(absl::StrCat(
        "In[1] is not a matrix. Instead it has shape ", b.DebugString()));
  }
  MatMulDims d;
  d.m = a.dim_size(transpose_a ? 1 : 0);
  d.k = a.dim_size(transpose_a ? 0 : 1);
  d.n = b.dim_size(transpose_b ? 0 : 1);
  if (b.dim_size(transpose_b ? 1 : 0) != d.k) {
    return absl::InvalidArgumentError(absl::StrCat(
        "Matrix size-incompatible: In[0]: ", a.DebugString(),
        ", In[1]: ", b.DebugString(), " (transpose_a=",
        transpose_a ? "true" : "false", ", transpose_b=",
        transpose_b ? "true" : "false", ")"));
  }
  return d;
}

}  // namespace dfx

#endif  // DFX_KERNELS_NN_MATMUL_SHAPE_H_
