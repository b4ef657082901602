// The complex family (tests/golden/gen_complex.py): the signatures and CPU
// kernel types of the ops it adds (Asinh, Acosh, Atanh, ConjugateTranspose,
// Eig, MatrixExponential, MatrixLogarithm) against TensorFlow 2.21's; what
// golden cases cannot show: MatrixExponential (which TensorFlow refuses in
// current graphs), Eig's shape function and errors, ConjugateTranspose's
// copy where Transpose returns a view, and the complex adjoint of
// BatchMatMulV2.
#include <cmath>
#include <complex>
#include <cstdint>
#include <string>
#include <vector>

#include "base/status_macros.h"
#include "catch2/catch.hpp"
#include "graph/node_def_util.h"
#include "graph/op_registry.h"
#include "tests/kernels/kernel_test_util.h"
#include "tests/kernels/math_test_util.h"
#include "tests/kernels/shape_fn_test_util.h"

namespace dfx {
namespace {

using testing::MakeTensor;
using testing::RunError;
using testing::RunOne;
using testing::StatusIs;
using testing::TestNodeBuilder;
using testing::TypedNode;
using testing::Values;
using c64 = std::complex<float>;
using c128 = std::complex<double>;
using testing::InferShapes;

TEST_CASE("Every complex-family op has TensorFlow 2.21's signature and CPU "
          "types",
          "[complex]") {
  testing::CheckSignaturesWithTensorFlow("complex", 7);
}

TEST_CASE("Eig and MatrixLogarithm shape functions", "[complex]") {
  const NodeDef eig = TestNodeBuilder("e", "Eig", 1)
                          .Attr("T", DT_FLOAT)
                          .Attr("Tout", DT_COMPLEX64)
                          .Build();
  auto shapes = InferShapes(eig, {PartialShape::Known({2, -1, 3})});
  REQUIRE(shapes.ok());
  CHECK((*shapes)[0].DebugString() == "[2,3]");
  CHECK((*shapes)[1].DebugString() == "[2,3,3]");
  CHECK_THAT(InferShapes(eig, {PartialShape::Known({2, 3, 4})}).status(),
             StatusIs(absl::StatusCode::kInvalidArgument));
  CHECK_THAT(InferShapes(eig, {PartialShape::Known({3})}).status(),
             StatusIs(absl::StatusCode::kInvalidArgument));
  const NodeDef log = TestNodeBuilder("l", "MatrixLogarithm", 1)
                          .Attr("T", DT_COMPLEX128)
                          .Build();
  auto log_shape = InferShapes(log, {PartialShape::Known({-1, 4})});
  REQUIRE(log_shape.ok());
  CHECK((*log_shape)[0].DebugString() == "[4,4]");
}

TEST_CASE("MatrixExponential is deprecated at GraphDef version 27",
          "[complex]") {
  const OpRegistrationData* op =
      OpRegistry::Global()->LookUp("MatrixExponential");
  REQUIRE(op != nullptr);
  CHECK(op->op_def.deprecation().version() == 27);
}

TEST_CASE("MatrixExponential of diagonal, nilpotent and rotation matrices",
          "[complex]") {
  // exp(diag(1, -2)) = diag(e, e^-2); exp([[0, 1], [0, 0]]) = [[1, 1],
  // [0, 1]], batched.
  const Tensor real = MakeTensor<double>({1, 0, 0, -2, 0, 1, 0, 0},
                                         TensorShape({2, 2, 2}));
  const std::vector<double> got = Values<double>(
      RunOne(TypedNode("x", "MatrixExponential", DT_DOUBLE, 1).Build(),
             {real}));
  const std::vector<double> want = {std::exp(1.0), 0, 0, std::exp(-2.0),
                                    1, 1, 0, 1};
  REQUIRE(got.size() == want.size());
  for (size_t i = 0; i < want.size(); ++i) {
    CHECK(got[i] == Approx(want[i]).margin(1e-14));
  }
  // exp([[0, -t], [t, 0]]) is the rotation by t; exp(i t I) = e^{it} I.
  const float t = 0.7f;
  const std::vector<float> rot = Values<float>(RunOne(
      TypedNode("x", "MatrixExponential", DT_FLOAT, 1).Build(),
      {MakeTensor<float>({0, -t, t, 0}, TensorShape({2, 2}))}));
  CHECK(rot[0] == Approx(std::cos(t)).margin(1e-6));
  CHECK(rot[1] == Approx(-std::sin(t)).margin(1e-6));
  CHECK(rot[2] == Approx(std::sin(t)).margin(1e-6));
  const std::vector<c64> cx = Values<c64>(
      RunOne(TypedNode("x", "MatrixExponential", DT_COMPLEX64, 1).Build(),
             {MakeTensor<c64>({c64(0, t), 0, 0, c64(0, t)},
                              TensorShape({2, 2}))}));
  CHECK(std::abs(cx[0] - std::exp(c64(0, t))) < 1e-6f);
  CHECK(std::abs(cx[1]) < 1e-6f);
  CHECK(std::abs(cx[3] - std::exp(c64(0, t))) < 1e-6f);
  // Empty matrices and errors.
  CHECK(RunOne(TypedNode("x", "MatrixExponential", DT_COMPLEX128, 1).Build(),
               {Tensor(DT_COMPLEX128, TensorShape({3, 0, 0}))})
            .shape() == TensorShape({3, 0, 0}));
  CHECK_THAT(RunError(TypedNode("x", "MatrixExponential", DT_FLOAT, 1).Build(),
                      {Tensor(DT_FLOAT, TensorShape({2, 3}))}),
             StatusIs(absl::StatusCode::kInvalidArgument,
                      "Input matrix must be square."));
  CHECK_THAT(RunError(TypedNode("x", "MatrixExponential", DT_FLOAT, 1).Build(),
                      {Tensor(DT_FLOAT, TensorShape({3}))}),
             StatusIs(absl::StatusCode::kInvalidArgument,
                      "Input tensor 0 must have rank >= 2, got 1"));
}

TEST_CASE("Eig of a real matrix: conjugate eigenvalues, unit eigenvectors",
          "[complex]") {
  const NodeDef node = TestNodeBuilder("e", "Eig", 1)
                           .Attr("T", DT_DOUBLE)
                           .Attr("Tout", DT_COMPLEX128)
                           .Build();
  std::vector<Tensor> out;
  {
    auto r = testing::RunKernel(
        node, {MakeTensor<double>({0, -2, 2, 0}, TensorShape({2, 2}))});
    REQUIRE(r.ok());
    out = *r;
  }
  const std::vector<c128> e = Values<c128>(out[0]);
  const std::vector<c128> v = Values<c128>(out[1]);
  REQUIRE(e.size() == 2);
  CHECK(std::abs(e[0] - std::conj(e[1])) < 1e-12);
  CHECK(std::abs(std::abs(e[0].imag()) - 2.0) < 1e-12);
  for (int k = 0; k < 2; ++k) {
    // A v_k = e_k v_k with |v_k| = 1 (columns of v).
    const c128 v0 = v[0 * 2 + k];
    const c128 v1 = v[1 * 2 + k];
    CHECK(std::abs(std::norm(v0) + std::norm(v1) - 1.0) < 1e-12);
    CHECK(std::abs(-2.0 * v1 - e[k] * v0) < 1e-12);
    CHECK(std::abs(2.0 * v0 - e[k] * v1) < 1e-12);
  }
  // Without vectors v holds one zero per matrix.
  auto no_v = testing::RunKernel(
      TestNodeBuilder("e", "Eig", 1)
          .Attr("T", DT_FLOAT)
          .Attr("Tout", DT_COMPLEX64)
          .Attr("compute_v", false)
          .Build(),
      {MakeTensor<float>({1, 0, 0, 2, 3, 0, 0, 4}, TensorShape({2, 2, 2}))});
  REQUIRE(no_v.ok());
  CHECK((*no_v)[1].shape() == TensorShape({2}));
  const std::vector<c64> e2 = Values<c64>((*no_v)[0]);
  CHECK(e2 == std::vector<c64>{1, 2, 3, 4});
}

TEST_CASE("Eig rejects an output type other than its input's", "[complex]") {
  CHECK_THAT(RunError(TestNodeBuilder("e", "Eig", 1)
                          .Attr("T", DT_FLOAT)
                          .Attr("Tout", DT_COMPLEX128)
                          .Build(),
                      {MakeTensor<float>({1, 0, 0, 1}, TensorShape({2, 2}))}),
             StatusIs(absl::StatusCode::kInvalidArgument,
                      "Invalid output dtype 18 vs 8"));
}

TEST_CASE("ConjugateTranspose conjugates even where Transpose is a view",
          "[complex]") {
  const Tensor x = MakeTensor<c64>({c64(1, 2), c64(3, -4), c64(0, 1)},
                                   TensorShape({1, 3}));
  for (const bool same_order : {true, false}) {
    const Tensor perm = same_order ? MakeTensor<int32_t>({0, 1}, TensorShape({2}))
                                   : MakeTensor<int32_t>({1, 0}, TensorShape({2}));
    const Tensor y = RunOne(TestNodeBuilder("t", "ConjugateTranspose", 2)
                                .Attr("T", DT_COMPLEX64)
                                .Attr("Tperm", DT_INT32)
                                .Build(),
                            {x, perm});
    CHECK(y.shape() == (same_order ? TensorShape({1, 3}) : TensorShape({3, 1})));
    CHECK(Values<c64>(y) ==
          std::vector<c64>{c64(1, -2), c64(3, 4), c64(0, -1)});
    // The input is unchanged.
    CHECK(Values<c64>(x)[0] == c64(1, 2));
  }
}

TEST_CASE("BatchMatMulV2 adjoints conjugate complex operands", "[complex]") {
  // x = [[i]] (1x1), y = [[1 + i]]: adj_x gives -i (1 + i) = 1 - i.
  const Tensor x = MakeTensor<c128>({c128(0, 1)}, TensorShape({1, 1}));
  const Tensor y = MakeTensor<c128>({c128(1, 1)}, TensorShape({1, 1}));
  auto run = [&](bool adj_x, bool adj_y) {
    return Values<c128>(RunOne(TestNodeBuilder("m", "BatchMatMulV2", 2)
                                   .Attr("T", DT_COMPLEX128)
                                   .Attr("adj_x", adj_x)
                                   .Attr("adj_y", adj_y)
                                   .Build(),
                               {x, y}))[0];
  };
  CHECK(run(false, false) == c128(-1, 1));
  CHECK(run(true, false) == c128(1, -1));
  CHECK(run(false, true) == c128(1, 1));
  CHECK(run(true, true) == c128(-1, -1));
}

}  // namespace
}  // namespace dfx
