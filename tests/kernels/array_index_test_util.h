// Helpers of the slicing, tiling, padding and splitting kernel tests:
// building index tensors and walking multi-indices for reference loops.
#ifndef DFX_TESTS_KERNELS_ARRAY_INDEX_TEST_UTIL_H_
#define DFX_TESTS_KERNELS_ARRAY_INDEX_TEST_UTIL_H_

#include <cstdint>
#include <string>
#include <vector>

#include "runtime/tensor.h"

namespace dfx::testing {

// A vector tensor of index values in dtype T.
template <typename T>
Tensor Ints(const std::vector<int64_t>& values) {
  std::vector<T> v(values.begin(), values.end());
  return Tensor::FromVector<T>(v);
}
inline Tensor I32(const std::vector<int64_t>& values) {
  return Ints<int32_t>(values);
}
inline Tensor I64(const std::vector<int64_t>& values) {
  return Ints<int64_t>(values);
}

// A [rows, 2] paddings matrix from (before, after) pairs.
template <typename T = int32_t>
Tensor Paddings(const std::vector<std::pair<int64_t, int64_t>>& pads) {
  std::vector<T> v;
  for (const auto& [b, a] : pads) {
    v.push_back(static_cast<T>(b));
    v.push_back(static_cast<T>(a));
  }
  return Tensor::FromVector<T>(
      v, TensorShape({static_cast<int64_t>(pads.size()), 2}));
}

inline int64_t NumElements(const std::vector<int64_t>& dims) {
  int64_t n = 1;
  for (int64_t d : dims) n *= d;
  return n;
}

// A tensor of `dims` holding 0, 1, 2, ... (cast to T).
template <typename T>
Tensor Iota(const std::vector<int64_t>& dims) {
  std::vector<T> v(NumElements(dims));
  for (size_t i = 0; i < v.size(); ++i) v[i] = static_cast<T>(i);
  auto shape = TensorShape::Build(dims);
  return Tensor::FromVector<T>(v, *shape);
}

// A string tensor of `dims` holding "s0", "s1", ...
inline Tensor IotaStrings(const std::vector<int64_t>& dims) {
  std::vector<std::string> v(NumElements(dims));
  for (size_t i = 0; i < v.size(); ++i) v[i] = "s" + std::to_string(i);
  auto shape = TensorShape::Build(dims);
  return Tensor::FromVector<std::string>(v, *shape);
}

// The multi-index of flat index `flat` in a row-major `dims`.
inline std::vector<int64_t> Unravel(int64_t flat,
                                    const std::vector<int64_t>& dims) {
  std::vector<int64_t> idx(dims.size());
  for (size_t k = dims.size(); k-- > 0;) {
    idx[k] = flat % dims[k];
    flat /= dims[k];
  }
  return idx;
}

// The flat index of multi-index `idx` in a row-major `dims`.
inline int64_t Ravel(const std::vector<int64_t>& idx,
                     const std::vector<int64_t>& dims) {
  int64_t flat = 0;
  for (size_t k = 0; k < dims.size(); ++k) flat = flat * dims[k] + idx[k];
  return flat;
}

inline std::vector<int64_t> Dims(const Tensor& t) {
  return std::vector<int64_t>(t.shape().dim_sizes().begin(),
                              t.shape().dim_sizes().end());
}

template <typename T>
std::vector<T> Values(const Tensor& t) {
  return std::vector<T>(t.data<T>(), t.data<T>() + t.NumElements());
}

}  // namespace dfx::testing

#endif  // DFX_TESTS_KERNELS_ARRAY_INDEX_TEST_UTIL_H_
