// Helpers for the gather-family kernel tests (tests/kernels/gather_*_test.cc):
// building small tensors and checking a kernel's outputs.
#ifndef DFX_TESTS_KERNELS_GATHER_TEST_UTIL_H_
#define DFX_TESTS_KERNELS_GATHER_TEST_UTIL_H_

#include <cstdint>
#include <string>
#include <vector>

#include "catch2/catch.hpp"
#include "runtime/tensor.h"
#include "tests/kernels/kernel_test_util.h"
#include "tests/testing/status_matchers.h"

namespace dfx::gather_test {

// A tensor of `values` with `shape` (a vector when shape is omitted).
template <typename T>
Tensor Make(const std::vector<T>& values, std::vector<int64_t> shape = {-1}) {
  if (shape.size() == 1 && shape[0] == -1) {
    shape[0] = static_cast<int64_t>(values.size());
  }
  Tensor t(DataTypeToEnum<T>::value, TensorShape::Build(shape).value());
  REQUIRE(t.NumElements() == static_cast<int64_t>(values.size()));
  T* data = t.data<T>();
  for (size_t i = 0; i < values.size(); ++i) data[i] = values[i];
  return t;
}

template <typename T>
Tensor Scalar(T v) {
  return Tensor::Scalar<T>(v);
}

// REQUIREs that `t` has dtype T, `shape` and `values`.
template <typename T>
void Expect(const Tensor& t, const std::vector<int64_t>& shape,
            const std::vector<T>& values) {
  REQUIRE(t.dtype() == DataTypeToEnum<T>::value);
  INFO("shape " << t.shape().DebugString());
  REQUIRE(t.shape() == TensorShape::Build(shape).value());
  REQUIRE(t.NumElements() == static_cast<int64_t>(values.size()));
  for (size_t i = 0; i < values.size(); ++i) {
    INFO("element " << i);
    REQUIRE(t.data<T>()[i] == values[i]);
  }
}

// Runs the node and REQUIREs success; returns the outputs.
inline std::vector<Tensor> Run(const NodeDef& node,
                               const std::vector<Tensor>& inputs) {
  absl::StatusOr<std::vector<Tensor>> out = testing::RunKernel(node, inputs);
  REQUIRE_OK(out);
  return *std::move(out);
}

// The status of running the node.
inline absl::Status RunStatus(const NodeDef& node,
                              const std::vector<Tensor>& inputs) {
  return testing::RunKernel(node, inputs).status();
}

}  // namespace dfx::gather_test

#endif  // DFX_TESTS_KERNELS_GATHER_TEST_UTIL_H_
