// BatchMatMul's shape rules, shared by its CPU and GPU kernels: batch dims
// checked (V1) or broadcast (V2, V3), the product's m, k and n, and
// TensorFlow's errors.
#ifndef DFX_KERNELS_LINALG_BATCH_MATMUL_SHAPE_H_
#define DFX_KERNELS_LINALG_BATCH_MATMUL_SHAPE_H_

#include <algorithm>
#include <cstdint>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "runtime/tensor.h"
#include "runtime/tensor_shape.h"

namespace dfx::linalg {

// kV1: BatchMatMul (equal batch dims); kV2: V2 and V3 (broadcast).
enum class Version { kV1, kV2 };

// The shapes of one call: batch dims of the output and of each operand
// (padded with leading 1s to the output's batch rank), and m, n, k.
struct BatchMatMulShapes {
  std::vector<int64_t> out_batch;
  std::vector<int64_t> x_batch;
  std::vector<int64_t> y_batch;
  int64_t m = 0, n = 0, k = 0;
  TensorShape out_shape;
};

// x times y (each adjoint when adj_*): InvalidArgument with TensorFlow's
// message when they are not batches of matrices or do not multiply.
inline absl::Status ComputeBatchMatMulShapes(const Tensor& x, const Tensor& y,
                                             bool adj_x, bool adj_y,
                                             Version version,
                                             BatchMatMulShapes* s) {
  if (x.dims() < 2) {
    return absl::InvalidArgumentError(
        absl::StrCat("In[0] ndims must be >= 2: ", x.dims()));
  }
  if (y.dims() < 2) {
    return absl::InvalidArgumentError(
        absl::StrCat("In[1] ndims must be >= 2: ", y.dims()));
  }
  const int xr = x.dims();
  const int yr = y.dims();
  if (version == Version::kV1) {
    if (xr != yr) {
      return absl::InvalidArgumentError(absl::StrCat(
          "In[0] and In[1] has different ndims: ", x.shape().DebugString(),
          " vs. ", y.shape().DebugString()));
    }
    for (int i = 0; i < xr - 2; ++i) {
      if (x.dim_size(i) != y.dim_size(i)) {
        return absl::InvalidArgumentError(absl::StrCat(
            "In[0].dim(", i, ") and In[1].dim(", i, ") must be the same: ",
            x.shape().DebugString(), " vs ", y.shape().DebugString()));
      }
    }
  }
  const int rank = std::max(xr, yr) - 2;
  s->out_batch.assign(rank, 1);
  s->x_batch.assign(rank, 1);
  s->y_batch.assign(rank, 1);
  for (int i = 0; i < rank; ++i) {
    const int ix = xr - 2 - rank + i;
    const int iy = yr - 2 - rank + i;
    const int64_t dx = ix >= 0 ? x.dim_size(ix) : 1;
    const int64_t dy = iy >= 0 ? y.dim_size(iy) : 1;
    if (dx != dy && dx != 1 && dy != 1) {
      return absl::InvalidArgumentError(absl::StrCat(
          "In[0] and In[1] must have compatible batch dimensions: ",
          x.shape().DebugString(), " vs. ", y.shape().DebugString()));
    }
    s->x_batch[i] = dx;
    s->y_batch[i] = dy;
    s->out_batch[i] = dx == 1 ? dy : dx;
  }
  s->m = x.dim_size(adj_x ? xr - 1 : xr - 2);
  s->k = x.dim_size(adj_x ? xr - 2 : xr - 1);
  const int64_t ky = y.dim_size(adj_y ? yr - 1 : yr - 2);
  s->n = y.dim_size(adj_y ? yr - 2 : yr - 1);
  if (s->k != ky) {
    return absl::InvalidArgumentError(absl::StrCat(
        "Matrix size-incompatible: In[0]: ", x.shape().DebugString(),
        ", In[1]: ", y.shape().DebugString()));
  }
  std::vector<int64_t> out_dims = s->out_batch;
  out_dims.push_back(s->m);
  out_dims.push_back(s->n);
  auto shape = TensorShape::Build(out_dims);
  if (!shape.ok()) return shape.status();
  s->out_shape = *std::move(shape);
  return absl::OkStatus();
}

}  // namespace dfx::linalg

#endif  // DFX_KERNELS_LINALG_BATCH_MATMUL_SHAPE_H_
