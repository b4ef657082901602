// Helpers for the math kernel tests: building small tensors, running one
// node, and reading results back as vectors.
#ifndef DFX_TESTS_KERNELS_MATH_TEST_UTIL_H_
#define DFX_TESTS_KERNELS_MATH_TEST_UTIL_H_

#include <initializer_list>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "catch2/catch.hpp"
#include "runtime/tensor.h"
#include "tests/kernels/kernel_test_util.h"
#include "tests/testing/status_matchers.h"

namespace dfx::testing {

// A tensor of `shape` holding `values` (row-major).
template <typename T>
Tensor MakeTensor(std::initializer_list<T> values, const TensorShape& shape) {
  return Tensor::FromVector<T>(absl::Span<const T>(values.begin(),
                                                   values.size()),
                               shape);
}
template <typename T>
Tensor MakeVector(std::initializer_list<T> values) {
  return MakeTensor<T>(values,
                       TensorShape({static_cast<int64_t>(values.size())}));
}

template <typename T>
std::vector<T> Values(const Tensor& t) {
  const T* p = t.data<T>();
  return std::vector<T>(p, p + t.NumElements());
}

// A node `name` of `op` with attr T = dtype and `num_inputs` inputs.
inline TestNodeBuilder TypedNode(const std::string& name, const std::string& op,
                                 DataType dtype, int num_inputs) {
  TestNodeBuilder b(name, op, num_inputs);
  b.Attr("T", dtype);
  return b;
}

// Runs the node and returns its only output; REQUIREs success.
inline Tensor RunOne(const NodeDef& node, const std::vector<Tensor>& inputs) {
  absl::StatusOr<std::vector<Tensor>> out = RunKernel(node, inputs);
  REQUIRE_OK(out);
  REQUIRE(out->size() == 1);
  return (*out)[0];
}

// The error of running the node; REQUIREs that it failed.
inline absl::Status RunError(const NodeDef& node,
                             const std::vector<Tensor>& inputs) {
  absl::StatusOr<std::vector<Tensor>> out = RunKernel(node, inputs);
  REQUIRE_FALSE(out.ok());
  return out.status();
}

}  // namespace dfx::testing

#endif  // DFX_TESTS_KERNELS_MATH_TEST_UTIL_H_
