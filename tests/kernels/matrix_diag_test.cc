// MatrixBandPart and the MatrixDiag / MatrixDiagPart / MatrixSetDiag
// families: values against hand-worked matrices (bands, k ranges, every
// alignment), and TensorFlow's errors for bad shapes and k.
#include <cstdint>
#include <vector>

#include "catch2/catch.hpp"
#include "tests/kernels/math_test_util.h"

namespace dfx {
namespace {

using testing::MakeTensor;
using testing::MakeVector;
using testing::RunError;
using testing::RunOne;
using testing::StatusIs;
using testing::TypedNode;
using testing::Values;

// 3x4 matrix with values 1..12.
Tensor M34() {
  return MakeTensor<float>({1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12},
                           TensorShape({3, 4}));
}

NodeDef BandNode(DataType t, DataType tindex) {
  return TypedNode("band", "MatrixBandPart", t, 3)
      .Attr("Tindex", tindex)
      .Build();
}

TEST_CASE("MatrixBandPart keeps the band", "[matrix_diag]") {
  const NodeDef node = BandNode(DT_FLOAT, DT_INT64);
  // Lower triangle: the causal mask of attention.
  Tensor lower = RunOne(
      node, {M34(), Tensor::Scalar<int64_t>(-1), Tensor::Scalar<int64_t>(0)});
  CHECK(Values<float>(lower) ==
        std::vector<float>{1, 0, 0, 0, 5, 6, 0, 0, 9, 10, 11, 0});
  Tensor tri = RunOne(
      node, {M34(), Tensor::Scalar<int64_t>(1), Tensor::Scalar<int64_t>(1)});
  CHECK(Values<float>(tri) ==
        std::vector<float>{1, 2, 0, 0, 5, 6, 7, 0, 0, 10, 11, 12});
  Tensor all = RunOne(
      node, {M34(), Tensor::Scalar<int64_t>(-1), Tensor::Scalar<int64_t>(-1)});
  CHECK(Values<float>(all) == Values<float>(M34()));
}

TEST_CASE("MatrixBandPart batches and int32 bounds", "[matrix_diag]") {
  const NodeDef node = BandNode(DT_INT32, DT_INT32);
  Tensor in =
      MakeTensor<int32_t>({1, 2, 3, 4, 5, 6, 7, 8}, TensorShape({2, 2, 2}));
  Tensor out = RunOne(
      node, {in, Tensor::Scalar<int32_t>(0), Tensor::Scalar<int32_t>(-1)});
  CHECK(Values<int32_t>(out) == std::vector<int32_t>{1, 2, 0, 4, 5, 6, 0, 8});
  Tensor empty(DT_INT32, TensorShape({0, 3, 3}));
  CHECK(RunOne(node,
               {empty, Tensor::Scalar<int32_t>(0), Tensor::Scalar<int32_t>(0)})
            .shape() == TensorShape({0, 3, 3}));
}

TEST_CASE("MatrixBandPart errors", "[matrix_diag]") {
  const NodeDef node = BandNode(DT_FLOAT, DT_INT64);
  CHECK_THAT(
      RunError(node, {MakeVector<float>({1, 2}), Tensor::Scalar<int64_t>(0),
                      Tensor::Scalar<int64_t>(0)}),
      StatusIs(absl::StatusCode::kInvalidArgument,
               "input must be at least 2-dim"));
  CHECK_THAT(
      RunError(node,
               {M34(), MakeVector<int64_t>({0}), Tensor::Scalar<int64_t>(0)}),
      StatusIs(absl::StatusCode::kInvalidArgument, "num_lower must be scalar"));
  CHECK_THAT(RunError(node, {M34(), Tensor::Scalar<int64_t>(4),
                             Tensor::Scalar<int64_t>(0)}),
             StatusIs(absl::StatusCode::kInvalidArgument,
                      "num_lower must be negative or less or equal to number "
                      "of rows (3) got: 4"));
  CHECK_THAT(RunError(node, {M34(), Tensor::Scalar<int64_t>(0),
                             Tensor::Scalar<int64_t>(5)}),
             StatusIs(absl::StatusCode::kInvalidArgument,
                      "num_upper must be negative"));
}

NodeDef DiagPartNode(const char* op, const char* align = nullptr) {
  auto b = TypedNode("dp", op, DT_FLOAT,
                     std::string(op) == "MatrixDiagPart" ? 1 : 3);
  if (align != nullptr) b.Attr("align", align);
  return b.Build();
}

TEST_CASE("MatrixDiagPart main diagonal", "[matrix_diag]") {
  Tensor out = RunOne(DiagPartNode("MatrixDiagPart"), {M34()});
  CHECK(out.shape() == TensorShape({3}));
  CHECK(Values<float>(out) == std::vector<float>{1, 6, 11});
}

TEST_CASE("MatrixDiagPartV3 band with each alignment", "[matrix_diag]") {
  // Diagonals 1, 0, -1 of the 3x4 matrix: [2,7,12], [1,6,11], [5,10].
  const Tensor k = MakeVector<int32_t>({-1, 1});
  const Tensor pad = Tensor::Scalar<float>(-9);
  Tensor ll =
      RunOne(DiagPartNode("MatrixDiagPartV3", "LEFT_LEFT"), {M34(), k, pad});
  CHECK(ll.shape() == TensorShape({3, 3}));
  CHECK(Values<float>(ll) == std::vector<float>{2, 7, 12, 1, 6, 11, 5, 10, -9});
  Tensor rl =
      RunOne(DiagPartNode("MatrixDiagPartV3", "RIGHT_LEFT"), {M34(), k, pad});
  CHECK(Values<float>(rl) == std::vector<float>{2, 7, 12, 1, 6, 11, 5, 10, -9});
  Tensor lr =
      RunOne(DiagPartNode("MatrixDiagPartV3", "LEFT_RIGHT"), {M34(), k, pad});
  CHECK(Values<float>(lr) == std::vector<float>{2, 7, 12, 1, 6, 11, -9, 5, 10});
  // Superdiagonal 2 is [3, 8]: right-aligned with RIGHT_RIGHT.
  Tensor rr = RunOne(DiagPartNode("MatrixDiagPartV3", "RIGHT_RIGHT"),
                     {M34(), MakeVector<int32_t>({1, 2}), pad});
  CHECK(Values<float>(rr) == std::vector<float>{-9, 3, 8, 2, 7, 12});
  // V2 aligns LEFT_LEFT.
  Tensor v2 = RunOne(DiagPartNode("MatrixDiagPartV2"),
                     {M34(), MakeVector<int32_t>({1, 2}), pad});
  CHECK(Values<float>(v2) == std::vector<float>{3, 8, -9, 2, 7, 12});
}

TEST_CASE("MatrixDiagPartV3 errors", "[matrix_diag]") {
  const NodeDef node = DiagPartNode("MatrixDiagPartV3");
  const Tensor pad = Tensor::Scalar<float>(0);
  CHECK_THAT(RunError(node, {M34(), MakeVector<int32_t>({4}), pad}),
             StatusIs(absl::StatusCode::kInvalidArgument,
                      "lower_diag_index is out of bound: 4"));
  CHECK_THAT(RunError(node, {M34(), MakeVector<int32_t>({1, 0}), pad}),
             StatusIs(absl::StatusCode::kInvalidArgument,
                      "lower_diag_index must not be larger than"));
  CHECK_THAT(RunError(node, {M34(), MakeVector<int32_t>({0, 1, 2}), pad}),
             StatusIs(absl::StatusCode::kInvalidArgument,
                      "diag_index must have only one or two elements"));
  CHECK_THAT(RunError(node, {M34(), MakeVector<int32_t>({}), pad}),
             StatusIs(absl::StatusCode::kInvalidArgument,
                      "diag_index must have only one or two elements"));
  CHECK_THAT(
      RunError(node, {MakeVector<float>({1}), Tensor::Scalar<int32_t>(0), pad}),
      StatusIs(absl::StatusCode::kInvalidArgument,
               "input must be at least 2-dim"));
  CHECK_THAT(RunError(node, {M34(), Tensor::Scalar<int32_t>(0),
                             MakeVector<float>({1, 2})}),
             StatusIs(absl::StatusCode::kInvalidArgument,
                      "padding_value must be a scalar"));
}

NodeDef DiagNode(const char* op, const char* align = nullptr) {
  auto b =
      TypedNode("d", op, DT_FLOAT, std::string(op) == "MatrixDiag" ? 1 : 5);
  if (align != nullptr) b.Attr("align", align);
  return b.Build();
}

TEST_CASE("MatrixDiag builds matrices", "[matrix_diag]") {
  Tensor out = RunOne(DiagNode("MatrixDiag"),
                      {MakeTensor<float>({1, 2, 3, 4}, TensorShape({2, 2}))});
  CHECK(out.shape() == TensorShape({2, 2, 2}));
  CHECK(Values<float>(out) == std::vector<float>{1, 0, 0, 2, 3, 0, 0, 4});
  // The inverse of the MatrixDiagPartV3 band above, RIGHT_LEFT: the padding
  // of the subdiagonal sits on its right.
  Tensor band =
      MakeTensor<float>({2, 7, 12, 1, 6, 11, 5, 10, -9}, TensorShape({3, 3}));
  Tensor m =
      RunOne(DiagNode("MatrixDiagV3"),
             {band, MakeVector<int32_t>({-1, 1}), Tensor::Scalar<int32_t>(3),
              Tensor::Scalar<int32_t>(4), Tensor::Scalar<float>(0)});
  CHECK(m.shape() == TensorShape({3, 4}));
  CHECK(Values<float>(m) ==
        std::vector<float>{1, 2, 0, 0, 5, 6, 7, 0, 0, 10, 11, 12});
  // Unknown sizes: the smallest square for superdiagonal 1.
  Tensor sq = RunOne(DiagNode("MatrixDiagV2"),
                     {MakeVector<float>({1, 2}), Tensor::Scalar<int32_t>(1),
                      Tensor::Scalar<int32_t>(-1), Tensor::Scalar<int32_t>(-1),
                      Tensor::Scalar<float>(7)});
  CHECK(sq.shape() == TensorShape({3, 3}));
  CHECK(Values<float>(sq) == std::vector<float>{7, 1, 7, 7, 7, 2, 7, 7, 7});
}

TEST_CASE("MatrixDiagV3 errors", "[matrix_diag]") {
  const NodeDef node = DiagNode("MatrixDiagV3");
  auto run = [&](Tensor diag, Tensor k, int rows, int cols) {
    return RunError(node,
                    {diag, k, Tensor::Scalar<int32_t>(rows),
                     Tensor::Scalar<int32_t>(cols), Tensor::Scalar<float>(0)});
  };
  CHECK_THAT(
      run(MakeVector<float>({1, 2}), MakeVector<int32_t>({-1, 1}), -1, -1),
      StatusIs(absl::StatusCode::kInvalidArgument,
               "The number of diagonals provided in the input"));
  CHECK_THAT(
      run(MakeVector<float>({1, 2, 3}), Tensor::Scalar<int32_t>(0), 2, -1),
      StatusIs(absl::StatusCode::kInvalidArgument,
               "The number of rows is too small."));
  CHECK_THAT(
      run(MakeVector<float>({1, 2, 3}), Tensor::Scalar<int32_t>(0), 4, 4),
      StatusIs(absl::StatusCode::kInvalidArgument,
               "The number of rows or columns is not consistent"));
  CHECK_THAT(run(Tensor::Scalar<float>(1), Tensor::Scalar<int32_t>(0), -1, -1),
             StatusIs(absl::StatusCode::kInvalidArgument,
                      "diagonal must be at least 1-dim"));
}

TEST_CASE("MatrixSetDiag replaces diagonals", "[matrix_diag]") {
  Tensor v1 = RunOne(TypedNode("s", "MatrixSetDiag", DT_FLOAT, 2).Build(),
                     {M34(), MakeVector<float>({-1, -2, -3})});
  CHECK(Values<float>(v1) ==
        std::vector<float>{-1, 2, 3, 4, 5, -2, 7, 8, 9, 10, -3, 12});
  // LEFT_RIGHT: superdiagonals and the main diagonal are left-aligned.
  Tensor diag = MakeTensor<float>({-1, -2, -3, 0, -4, -5}, TensorShape({2, 3}));
  Tensor v3 = RunOne(TypedNode("s", "MatrixSetDiagV3", DT_FLOAT, 3)
                         .Attr("align", "LEFT_RIGHT")
                         .Build(),
                     {M34(), diag, MakeVector<int32_t>({0, 1})});
  // k = [0, 1]: row 0 is superdiagonal 1 (len 3), row 1 the main diagonal.
  CHECK(Values<float>(v3) ==
        std::vector<float>{0, -1, 3, 4, 5, -4, -2, 8, 9, 10, -5, -3});
}

TEST_CASE("MatrixSetDiagV3 errors", "[matrix_diag]") {
  const NodeDef node = TypedNode("s", "MatrixSetDiagV3", DT_FLOAT, 3).Build();
  CHECK_THAT(RunError(node, {M34(), MakeVector<float>({1, 2}),
                             Tensor::Scalar<int32_t>(0)}),
             StatusIs(absl::StatusCode::kInvalidArgument,
                      "Either first dimensions of diagonal don't match"));
  CHECK_THAT(RunError(node, {M34(),
                             MakeTensor<float>({1, 2, 3, 4, 5, 6},
                                               TensorShape({2, 3})),
                             MakeVector<int32_t>({-1, 1})}),
             StatusIs(absl::StatusCode::kInvalidArgument,
                      "The number of diagonals provided in `diag`"));
  CHECK_THAT(RunError(node, {M34(), MakeVector<float>({1, 2, 3}),
                             Tensor::Scalar<int32_t>(-3)}),
             StatusIs(absl::StatusCode::kInvalidArgument,
                      "lower_diag_index is out of bound"));
}

}  // namespace
}  // namespace dfx
