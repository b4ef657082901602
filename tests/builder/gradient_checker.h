// Test helpers for graph/builder/gradients.h: running a Scope's graph in a
// local session, and a finite-difference gradient checker in the manner of
// TensorFlow's ComputeGradientError.
#ifndef DFX_TESTS_BUILDER_GRADIENT_CHECKER_H_
#define DFX_TESTS_BUILDER_GRADIENT_CHECKER_H_

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "graph/builder/scope.h"
#include "runtime/tensor.h"

namespace dfx::testing {

// Runs the scope's graph once in a fresh local session: feeds by Output,
// fetches by Output. The scope's error, or the session's.
absl::StatusOr<std::vector<Tensor>> RunScope(
    const Scope& scope, const std::vector<std::pair<Output, Tensor>>& feeds,
    const std::vector<Output>& fetches);

// A float or double tensor of `shape` with values uniform in [lo, hi) from a
// fixed-seed generator (`seed` picks the stream).
Tensor RandomTensor(DataType dtype, const TensorShape& shape, double lo,
                    double hi, uint32_t seed);
// A float or double tensor from values. REQUIRES: values fit the shape.
Tensor MakeTensor(DataType dtype, const TensorShape& shape,
                  const std::vector<double>& values);

// Element i of a float, double, half or bfloat16 tensor.
double GetAsDouble(const Tensor& t, int64_t i);

// The largest |symbolic - numeric| over every entry of the Jacobian of `ys`
// with respect to `xs`. `xs` are Placeholders of the scope's graph fed with
// `x_values`; `ys` depend on them. The symbolic Jacobian comes from
// AddSymbolicGradients (one run per element of the ys, seeded with a one-hot
// gradient); the numeric one from central differences (x +- delta, one pair
// of runs per element of the xs). `delta` <= 0 picks 1e-3 for float32 and
// 1e-5 for float64. Errors: the gradient builder's, the session's, or
// InvalidArgument when a gradient's shape differs from its input's.
absl::StatusOr<double> ComputeGradientError(const Scope& scope,
                                            const std::vector<Output>& xs,
                                            const std::vector<Tensor>& x_values,
                                            const std::vector<Output>& ys,
                                            double delta = -1);

// One x and one y.
inline absl::StatusOr<double> ComputeGradientError(const Scope& scope,
                                                   const Output& x,
                                                   const Tensor& x_value,
                                                   const Output& y,
                                                   double delta = -1) {
  return ComputeGradientError(scope, std::vector<Output>{x},
                              std::vector<Tensor>{x_value},
                              std::vector<Output>{y}, delta);
}

}  // namespace dfx::testing

#endif  // DFX_TESTS_BUILDER_GRADIENT_CHECKER_H_
