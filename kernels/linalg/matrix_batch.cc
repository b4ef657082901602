#include "kernels/linalg/matrix_batch.h"

#include "absl/strings/str_cat.h"
#include "base/status_macros.h"

namespace dfx::linalg {

absl::Status CheckRank(const Tensor& in, int index) {
  if (in.dims() < 2) {
    return absl::InvalidArgumentError(absl::StrCat(
        "Input tensor ", index, " must have rank >= 2, got ", in.dims()));
  }
  return absl::OkStatus();
}

absl::Status CheckSquare(const Tensor& in, int index) {
  DFX_RETURN_IF_ERROR(CheckRank(in, index));
  if (in.dim_size(in.dims() - 1) != in.dim_size(in.dims() - 2)) {
    return absl::InvalidArgumentError("Input matrix must be square.");
  }
  return absl::OkStatus();
}

absl::StatusOr<TensorShape> BatchShape(
    const Tensor& in, std::initializer_list<int64_t> inner) {
  TensorShape shape;
  for (int d = 0; d + 2 < in.dims(); ++d) {
    DFX_RETURN_IF_ERROR(shape.AddDim(in.dim_size(d)));
  }
  for (int64_t size : inner) DFX_RETURN_IF_ERROR(shape.AddDim(size));
  return shape;
}

int64_t NumMatrices(const Tensor& in) {
  int64_t count = 1;
  for (int d = 0; d + 2 < in.dims(); ++d) count *= in.dim_size(d);
  return count;
}

}  // namespace dfx::linalg
