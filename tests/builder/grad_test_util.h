// Shorthands for the gradient tests of tests/builder/: placeholders, random
// inputs, and a Catch2 check that a gradient matches finite differences.
#ifndef DFX_TESTS_BUILDER_GRAD_TEST_UTIL_H_
#define DFX_TESTS_BUILDER_GRAD_TEST_UTIL_H_

#include <string>
#include <vector>

#include "catch2/catch.hpp"
#include "graph/builder/ops.h"
#include "tests/builder/gradient_checker.h"
#include "tests/testing/status_matchers.h"

namespace dfx::testing {

// A placeholder of unknown shape: the gradients cannot rely on static shapes.
inline Output Ph(const Scope& scope, const std::string& name, DataType dtype) {
  return ops::Placeholder(scope.WithOpName(name), dtype);
}

// Uniform in [lo, hi), a different stream per seed.
inline Tensor Rand(DataType dtype, const TensorShape& shape, uint32_t seed,
                   double lo = -1.0, double hi = 1.0) {
  return RandomTensor(dtype, shape, lo, hi, seed);
}

// Thresholds on the largest Jacobian error, as TensorFlow's gradient tests
// use them: 1e-3 for float32 (delta 1e-3), 1e-8 for float64 (delta 1e-5).
inline double DefaultTolerance(DataType dtype) {
  return dtype == DT_DOUBLE ? 1e-8 : 1e-3;
}

// REQUIREs the symbolic Jacobian of ys with respect to xs to match central
// differences within `tolerance` (by the first x's dtype when <= 0).
inline void RequireGradient(const Scope& scope, const std::vector<Output>& xs,
                            const std::vector<Tensor>& values,
                            const std::vector<Output>& ys,
                            double tolerance = -1) {
  const double tol =
      tolerance > 0 ? tolerance : DefaultTolerance(values.at(0).dtype());
  absl::StatusOr<double> error = ComputeGradientError(scope, xs, values, ys);
  REQUIRE_OK(error);
  INFO("max Jacobian error " << *error << ", tolerance " << tol);
  CHECK(*error < tol);
}

}  // namespace dfx::testing

#endif  // DFX_TESTS_BUILDER_GRAD_TEST_UTIL_H_
