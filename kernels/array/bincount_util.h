// CountInto: the counting loop that Bincount, DenseBincount and
// SparseBincount share.
#ifndef DFX_KERNELS_ARRAY_BINCOUNT_UTIL_H_
#define DFX_KERNELS_ARRAY_BINCOUNT_UTIL_H_

#include <cstdint>

#include "absl/status/status.h"

namespace dfx {

// Adds weights[i] (or 1 when weights is null; sets 1 when binary) into
// bins[arr[i]] for each i in [first, last) with arr[i] < size; values >= size
// are dropped. InvalidArgument "Input arr must be non-negative!" (TensorFlow's
// message) on a negative value, leaving the bins partly counted.
template <typename Tidx, typename T>
absl::Status CountInto(const Tidx* arr, const T* weights, int64_t first,
                       int64_t last, int64_t size, bool binary, T* bins) {
  for (int64_t i = first; i < last; ++i) {
    const Tidx v = arr[i];
    if (v < 0) {
      return absl::InvalidArgumentError("Input arr must be non-negative!");
    }
    if (v >= size) continue;
    if (binary) {
      bins[v] = T(1);
    } else {
      bins[v] += weights == nullptr ? T(1) : weights[i];
    }
  }
  return absl::OkStatus();
}

}  // namespace dfx

#endif  // DFX_KERNELS_ARRAY_BINCOUNT_UTIL_H_
