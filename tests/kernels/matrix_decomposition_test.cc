// Cholesky, MatrixInverse, MatrixDeterminant, LogMatrixDeterminant,
// MatrixSolve, MatrixTriangularSolve, Qr, SelfAdjointEigV2 and Svd: the
// defining identities (L L^T = A, A A^-1 = I, Q R = A, ...) on small
// batches, TensorFlow's conventions (eigenvalues ascending, singular values
// descending, NaN for a matrix that is not positive definite), and its
// errors for bad shapes and singular input.
#include <cmath>
#include <complex>
#include <cstdint>
#include <limits>
#include <vector>

#include "catch2/catch.hpp"
#include "tests/kernels/math_test_util.h"

namespace dfx {
namespace {

using testing::MakeTensor;
using testing::RunError;
using testing::RunKernel;
using testing::RunOne;
using testing::StatusIs;
using testing::TypedNode;
using testing::Values;

// Row-major n x n product of a (n x k) and b (k x m).
std::vector<double> MatMul(const std::vector<double>& a,
                           const std::vector<double>& b, int n, int k, int m) {
  std::vector<double> c(n * m, 0.0);
  for (int i = 0; i < n; ++i) {
    for (int j = 0; j < m; ++j) {
      for (int l = 0; l < k; ++l) c[i * m + j] += a[i * k + l] * b[l * m + j];
    }
  }
  return c;
}

std::vector<double> Transpose(const std::vector<double>& a, int rows,
                              int cols) {
  std::vector<double> t(a.size());
  for (int i = 0; i < rows; ++i) {
    for (int j = 0; j < cols; ++j) t[j * rows + i] = a[i * cols + j];
  }
  return t;
}

void CheckNear(const std::vector<double>& got, const std::vector<double>& want,
               double tol = 1e-10) {
  REQUIRE(got.size() == want.size());
  for (size_t i = 0; i < got.size(); ++i) {
    INFO("element " << i);
    CHECK(got[i] == Approx(want[i]).margin(tol));
  }
}

std::vector<double> Slice(const std::vector<double>& v, size_t first,
                          size_t n) {
  return std::vector<double>(v.begin() + first, v.begin() + first + n);
}

// Two symmetric positive definite 3x3 matrices.
Tensor Spd() {
  return MakeTensor<double>({4, 2, 0.6, 2, 5, 1, 0.6, 1, 3,  //
                             2, -1, 0, -1, 2, -1, 0, -1, 2},
                            TensorShape({2, 3, 3}));
}

TEST_CASE("Cholesky factors positive definite batches", "[matrix_decomp]") {
  Tensor l = RunOne(TypedNode("c", "Cholesky", DT_DOUBLE, 1).Build(), {Spd()});
  const std::vector<double> lv = Values<double>(l);
  const std::vector<double> a = Values<double>(Spd());
  for (int b = 0; b < 2; ++b) {
    const std::vector<double> lb = Slice(lv, b * 9, 9);
    CHECK(lb[1] == 0);  // upper triangle zero
    CHECK(lb[2] == 0);
    CHECK(lb[5] == 0);
    CheckNear(MatMul(lb, Transpose(lb, 3, 3), 3, 3, 3), Slice(a, b * 9, 9));
  }
}

TEST_CASE("Cholesky of a non positive definite matrix is NaN",
          "[matrix_decomp]") {
  Tensor l = RunOne(TypedNode("c", "Cholesky", DT_FLOAT, 1).Build(),
                    {MakeTensor<float>({1, 2, 2, 1}, TensorShape({2, 2}))});
  const std::vector<float> v = Values<float>(l);
  CHECK(std::isnan(v[0]));
  CHECK(std::isnan(v[2]));
  CHECK(std::isnan(v[3]));
}

TEST_CASE("Cholesky errors", "[matrix_decomp]") {
  const NodeDef node = TypedNode("c", "Cholesky", DT_FLOAT, 1).Build();
  CHECK_THAT(RunError(node, {MakeTensor<float>({1, 2, 3}, TensorShape({3}))}),
             StatusIs(absl::StatusCode::kInvalidArgument,
                      "Input tensor 0 must have rank >= 2, got 1"));
  CHECK_THAT(RunError(node, {Tensor(DT_FLOAT, TensorShape({2, 3}))}),
             StatusIs(absl::StatusCode::kInvalidArgument,
                      "Input matrix must be square."));
}

TEST_CASE("MatrixInverse and its adjoint", "[matrix_decomp]") {
  const Tensor a =
      MakeTensor<double>({2, 1, 0, 1, 3, 1, 0, 1, 4}, TensorShape({3, 3}));
  for (bool adjoint : {false, true}) {
    Tensor inv = RunOne(
        TypedNode("i", "MatrixInverse", DT_DOUBLE, 1)
            .Attr("adjoint", adjoint)
            .Build(),
        {MakeTensor<double>({2, 1, 0, 5, 3, 1, 0, 1, 4}, TensorShape({3, 3}))});
    std::vector<double> m = {2, 1, 0, 5, 3, 1, 0, 1, 4};
    if (adjoint) m = Transpose(m, 3, 3);
    CheckNear(MatMul(m, Values<double>(inv), 3, 3, 3),
              {1, 0, 0, 0, 1, 0, 0, 0, 1});
  }
  (void)a;
  Tensor empty = RunOne(TypedNode("i", "MatrixInverse", DT_FLOAT, 1).Build(),
                        {Tensor(DT_FLOAT, TensorShape({2, 0, 0}))});
  CHECK(empty.shape() == TensorShape({2, 0, 0}));
  CHECK_THAT(
      RunError(TypedNode("i", "MatrixInverse", DT_FLOAT, 1).Build(),
               {MakeTensor<float>({1, 2, 2, 4}, TensorShape({2, 2}))}),
      StatusIs(absl::StatusCode::kInvalidArgument, "Input is not invertible."));
}

TEST_CASE("MatrixDeterminant and LogMatrixDeterminant", "[matrix_decomp]") {
  const Tensor a = MakeTensor<double>({0, 1, 1, 0,   //
                                       3, 1, 2, 4,   //
                                       1, 2, 2, 4},  // singular
                                      TensorShape({3, 2, 2}));
  Tensor det =
      RunOne(TypedNode("d", "MatrixDeterminant", DT_DOUBLE, 1).Build(), {a});
  CHECK(det.shape() == TensorShape({3}));
  CheckNear(Values<double>(det), {-1, 10, 0});
  auto out = RunKernel(
      TypedNode("l", "LogMatrixDeterminant", DT_DOUBLE, 1).Build(), {a});
  REQUIRE_OK(out);
  CheckNear(Values<double>((*out)[0]), {-1, 1, 0});
  const std::vector<double> log_abs = Values<double>((*out)[1]);
  CHECK(log_abs[0] == Approx(0).margin(1e-12));
  CHECK(log_abs[1] == Approx(std::log(10.0)));
  CHECK(log_abs[2] == -std::numeric_limits<double>::infinity());
  // The determinant of an empty matrix is 1.
  Tensor one = RunOne(TypedNode("d", "MatrixDeterminant", DT_FLOAT, 1).Build(),
                      {Tensor(DT_FLOAT, TensorShape({2, 0, 0}))});
  CHECK(Values<float>(one) == std::vector<float>{1, 1});
  CHECK_THAT(RunError(TypedNode("d", "MatrixDeterminant", DT_FLOAT, 1).Build(),
                      {Tensor(DT_FLOAT, TensorShape({2, 3}))}),
             StatusIs(absl::StatusCode::kInvalidArgument,
                      "Input matrix must be square."));
}

TEST_CASE("MatrixSolve with adjoint and errors", "[matrix_decomp]") {
  const std::vector<double> m = {2, 1, 0, 5, 3, 1, 0, 1, 4};
  const Tensor a =
      MakeTensor<double>({2, 1, 0, 5, 3, 1, 0, 1, 4}, TensorShape({3, 3}));
  const Tensor rhs =
      MakeTensor<double>({1, 2, 3, 4, 5, 6}, TensorShape({3, 2}));
  for (bool adjoint : {false, true}) {
    Tensor x = RunOne(TypedNode("s", "MatrixSolve", DT_DOUBLE, 2)
                          .Attr("adjoint", adjoint)
                          .Build(),
                      {a, rhs});
    CheckNear(
        MatMul(adjoint ? Transpose(m, 3, 3) : m, Values<double>(x), 3, 3, 2),
        {1, 2, 3, 4, 5, 6});
  }
  const NodeDef node = TypedNode("s", "MatrixSolve", DT_FLOAT, 2).Build();
  CHECK_THAT(
      RunError(node, {MakeTensor<float>({1, 2, 2, 4}, TensorShape({2, 2})),
                      Tensor(DT_FLOAT, TensorShape({2, 1}))}),
      StatusIs(absl::StatusCode::kInvalidArgument,
               "Input matrix is not invertible."));
  CHECK_THAT(RunError(node, {Tensor(DT_FLOAT, TensorShape({2, 2})),
                             Tensor(DT_FLOAT, TensorShape({3, 1}))}),
             StatusIs(absl::StatusCode::kInvalidArgument,
                      "Input matrix and rhs are incompatible."));
  CHECK_THAT(
      RunError(node, {Tensor(DT_FLOAT, TensorShape({2, 2, 2})),
                      Tensor(DT_FLOAT, TensorShape({3, 2, 1}))}),
      StatusIs(absl::StatusCode::kInvalidArgument,
               "All input tensors must have the same outer dimensions."));
}

TEST_CASE("MatrixTriangularSolve reads one triangle and broadcasts",
          "[matrix_decomp]") {
  // The upper triangle (9s) must be ignored with lower=true, and the lower
  // with lower=false.
  const Tensor a = MakeTensor<double>({2, 9, 1, 4}, TensorShape({1, 2, 2}));
  const Tensor rhs =
      MakeTensor<double>({2, 6, 4, 8}, TensorShape({2, 1, 2, 1}));
  auto solve = [&](bool lower, bool adjoint) {
    return Values<double>(
        RunOne(TypedNode("t", "MatrixTriangularSolve", DT_DOUBLE, 2)
                   .Attr("lower", lower)
                   .Attr("adjoint", adjoint)
                   .Build(),
               {a, rhs}));
  };
  // L = [[2,0],[1,4]]: L x = [2,6] -> [1, 1.25].
  CheckNear(solve(true, false), {1, 1.25, 2, 1.5});
  // L^T = [[2,1],[0,4]]: -> x1 = 1.5, x0 = (2 - 1.5) / 2.
  CheckNear(solve(true, true), {0.25, 1.5, 1, 2});
  // U = [[2,9],[0,4]]: x1 = 1.5, x0 = (2 - 13.5) / 2.
  CheckNear(solve(false, false), {-5.75, 1.5, -7, 2});
  // U^T = [[2,0],[9,4]]: x0 = 1, x1 = (6 - 9) / 4.
  CheckNear(solve(false, true), {1, -0.75, 2, -2.5});
  const NodeDef node =
      TypedNode("t", "MatrixTriangularSolve", DT_FLOAT, 2).Build();
  CHECK_THAT(RunError(node, {Tensor(DT_FLOAT, TensorShape({2, 2, 2})),
                             Tensor(DT_FLOAT, TensorShape({3, 2, 1}))}),
             StatusIs(absl::StatusCode::kInvalidArgument,
                      "In[0] and In[1] must have compatible batch dimensions"));
  CHECK_THAT(RunError(node, {Tensor(DT_FLOAT, TensorShape({2, 3})),
                             Tensor(DT_FLOAT, TensorShape({2, 1}))}),
             StatusIs(absl::StatusCode::kInvalidArgument,
                      "In[0] matrices in the last dimensions must be square"));
  CHECK_THAT(RunError(node, {Tensor(DT_FLOAT, TensorShape({2, 2})),
                             Tensor(DT_FLOAT, TensorShape({3, 1}))}),
             StatusIs(absl::StatusCode::kInvalidArgument,
                      "In[0] mismatch In[1] shape: 2 vs. 3"));
}

TEST_CASE("Qr reconstructs the input", "[matrix_decomp]") {
  const std::vector<double> av = {1, 2, 3, 4, 5, 6, 7, 8, 10, 1, 0, 2};
  for (bool full : {false, true}) {
    auto out = RunKernel(
        TypedNode("q", "Qr", DT_DOUBLE, 1).Attr("full_matrices", full).Build(),
        {MakeTensor<double>({1, 2, 3, 4, 5, 6, 7, 8, 10, 1, 0, 2},
                            TensorShape({4, 3}))});
    REQUIRE_OK(out);
    const int qc = full ? 4 : 3;
    CHECK((*out)[0].shape() == TensorShape({4, qc}));
    CHECK((*out)[1].shape() == TensorShape({qc, 3}));
    const std::vector<double> q = Values<double>((*out)[0]);
    const std::vector<double> r = Values<double>((*out)[1]);
    CheckNear(MatMul(q, r, 4, qc, 3), av);
    std::vector<double> eye(qc * qc, 0.0);
    for (int i = 0; i < qc; ++i) eye[i * qc + i] = 1;
    CheckNear(MatMul(Transpose(q, 4, qc), q, qc, 4, qc), eye);
    CHECK(r[3] == 0);  // r[1][0]: upper triangular
  }
}

TEST_CASE("SelfAdjointEigV2 ascending eigenvalues", "[matrix_decomp]") {
  auto out = RunKernel(TypedNode("e", "SelfAdjointEigV2", DT_DOUBLE, 1).Build(),
                       {Spd()});
  REQUIRE_OK(out);
  const std::vector<double> e = Values<double>((*out)[0]);
  // Eigenvalues of the second matrix (tridiagonal 2,-1): 2 - sqrt2, 2, 2 +
  // sqrt2.
  CheckNear(Slice(e, 3, 3), {2 - std::sqrt(2.0), 2, 2 + std::sqrt(2.0)});
  const std::vector<double> v = Values<double>((*out)[1]);
  const std::vector<double> a = Values<double>(Spd());
  for (int b = 0; b < 2; ++b) {
    const std::vector<double> vb = Slice(v, b * 9, 9);
    std::vector<double> d(9, 0.0);
    for (int i = 0; i < 3; ++i) d[i * 3 + i] = e[b * 3 + i];
    CheckNear(MatMul(MatMul(vb, d, 3, 3, 3), Transpose(vb, 3, 3), 3, 3, 3),
              Slice(a, b * 9, 9));
  }
  auto no_v = RunKernel(TypedNode("e", "SelfAdjointEigV2", DT_DOUBLE, 1)
                            .Attr("compute_v", false)
                            .Build(),
                        {Spd()});
  REQUIRE_OK(no_v);
  CheckNear(Values<double>((*no_v)[0]), e);
  CHECK((*no_v)[1].shape() == TensorShape({2}));
  const std::vector<float> nan_in(4, std::numeric_limits<float>::quiet_NaN());
  CHECK_THAT(
      RunError(TypedNode("e", "SelfAdjointEigV2", DT_FLOAT, 1).Build(),
               {MakeTensor<float>({nan_in[0], nan_in[1], nan_in[2], nan_in[3]},
                                  TensorShape({2, 2}))}),
      StatusIs(absl::StatusCode::kInvalidArgument,
               "Self-adjoint eigen decomposition was not successful."));
}

TEST_CASE("Svd descending singular values and factors", "[matrix_decomp]") {
  const std::vector<double> av = {3, 0, 0, 0, 0, -5, 0, 1, 0};  // 3x3
  for (bool full : {false, true}) {
    auto out = RunKernel(
        TypedNode("s", "Svd", DT_DOUBLE, 1).Attr("full_matrices", full).Build(),
        {MakeTensor<double>({3, 0, 0, 0, 0, -5, 0, 1, 0},
                            TensorShape({3, 3}))});
    REQUIRE_OK(out);
    const std::vector<double> s = Values<double>((*out)[0]);
    CheckNear(s, {5, 3, 1});
    const std::vector<double> u = Values<double>((*out)[1]);
    const std::vector<double> v = Values<double>((*out)[2]);
    std::vector<double> d(9, 0.0);
    for (int i = 0; i < 3; ++i) d[i * 3 + i] = s[i];
    CheckNear(MatMul(MatMul(u, d, 3, 3, 3), Transpose(v, 3, 3), 3, 3, 3), av);
  }
  auto wide = RunKernel(TypedNode("s", "Svd", DT_FLOAT, 1).Build(),
                        {Tensor(DT_FLOAT, TensorShape({2, 0, 3}))});
  REQUIRE_OK(wide);
  CHECK((*wide)[0].shape() == TensorShape({2, 0}));
  CHECK((*wide)[1].shape() == TensorShape({2, 0, 0}));
  CHECK((*wide)[2].shape() == TensorShape({2, 3, 0}));
  auto no_uv = RunKernel(
      TypedNode("s", "Svd", DT_FLOAT, 1).Attr("compute_uv", false).Build(),
      {MakeTensor<float>({3, 4}, TensorShape({1, 2}))});
  REQUIRE_OK(no_uv);
  CHECK(Values<float>((*no_uv)[0]) == std::vector<float>{5});
  CHECK((*no_uv)[1].shape() == TensorShape({}));
}

using C = std::complex<double>;

void CheckComplex(const Tensor& t, const std::vector<C>& want) {
  const std::vector<C> got = Values<C>(t);
  REQUIRE(got.size() == want.size());
  for (size_t i = 0; i < got.size(); ++i) {
    INFO("element " << i);
    CHECK(got[i].real() == Approx(want[i].real()).margin(1e-12));
    CHECK(got[i].imag() == Approx(want[i].imag()).margin(1e-12));
  }
}

TEST_CASE("complex128 decompositions equal TensorFlow", "[matrix_decomp]") {
  // Hermitian positive definite a, general g, and TensorFlow 2.21's answers.
  const Tensor a =
      MakeTensor<C>({C(4, 0), C(1, 2), C(1, -2), C(5, 0)}, TensorShape({2, 2}));
  const Tensor g =
      MakeTensor<C>({C(1, 1), C(2, 0), C(0, 3), C(4, -1)}, TensorShape({2, 2}));
  const Tensor b = MakeTensor<C>({C(1, 0), C(2, -1)}, TensorShape({2, 1}));
  CheckComplex(
      RunOne(TypedNode("c", "Cholesky", DT_COMPLEX128, 1).Build(), {a}),
      {C(2, 0), C(0, 0), C(0.5, -1), C(1.9364916731037085, 0)});
  CheckComplex(
      RunOne(TypedNode("i", "MatrixInverse", DT_COMPLEX128, 1).Build(), {g}),
      {C(0.676470588235294, 0.20588235294117654),
       C(-0.2941176470588235, -0.17647058823529416),
       C(0.26470588235294124, -0.4411764705882353),
       C(0.05882352941176466, 0.23529411764705882)});
  CheckComplex(
      RunOne(TypedNode("d", "MatrixDeterminant", DT_COMPLEX128, 1).Build(),
             {g}),
      {C(5, -3)});
  auto slogdet = RunKernel(
      TypedNode("l", "LogMatrixDeterminant", DT_COMPLEX128, 1).Build(), {g});
  REQUIRE_OK(slogdet);
  CheckComplex((*slogdet)[0], {C(0.8574929257125441, -0.5144957554275266)});
  CheckComplex((*slogdet)[1], {C(1.7631802623080808, 0)});
  CheckComplex(RunOne(TypedNode("s", "MatrixSolve", DT_COMPLEX128, 2)
                          .Attr("adjoint", true)
                          .Build(),
                      {g, b}),
               {C(1.6470588235294117, 0.4117647058823528),
                C(-0.4117647058823529, -0.3529411764705882)});
  CheckComplex(RunOne(TypedNode("t", "MatrixTriangularSolve", DT_COMPLEX128, 2)
                          .Attr("adjoint", true)
                          .Build(),
                      {g, b}),
               {C(0.4117647058823528, 1.6470588235294117),
                C(0.4117647058823529, -0.3529411764705882)});
  auto eig = RunKernel(TypedNode("e", "SelfAdjointEigV2", DT_COMPLEX128, 1)
                           .Attr("compute_v", false)
                           .Build(),
                       {a});
  REQUIRE_OK(eig);
  CheckComplex((*eig)[0], {C(2.2087121525220805, 0), C(6.79128784747792, 0)});
  auto svd = RunKernel(
      TypedNode("v", "Svd", DT_COMPLEX128, 1).Attr("compute_uv", false).Build(),
      {g});
  REQUIRE_OK(svd);
  CheckComplex((*svd)[0], {C(5.558746659612338, 0), C(1.0489688147169391, 0)});
  auto qr = RunKernel(TypedNode("q", "Qr", DT_COMPLEX128, 1).Build(), {g});
  REQUIRE_OK(qr);
  const std::vector<C> q = Values<C>((*qr)[0]);
  const std::vector<C> r = Values<C>((*qr)[1]);
  const std::vector<C> gv = Values<C>(g);
  for (int i = 0; i < 2; ++i) {
    for (int j = 0; j < 2; ++j) {
      const C qr_ij = q[i * 2] * r[j] + q[i * 2 + 1] * r[2 + j];
      CHECK(std::abs(qr_ij - gv[i * 2 + j]) < 1e-12);
    }
  }
}

}  // namespace
}  // namespace dfx
