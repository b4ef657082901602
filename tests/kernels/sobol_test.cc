// The sobol family's op (tests/golden/gen_sobol.py): SobolSample's
// TensorFlow 2.21 signature and CPU types, its shape function, and what the
// golden cases cannot show: non-scalar inputs (which abort TensorFlow's
// kernel), rows split between threads at every element boundary, and the
// negated blocks past 2^30 with more than one of TensorFlow's blocks.
#include <cstdint>
#include <vector>

#include "catch2/catch.hpp"
#include "tests/kernels/kernel_test_util.h"
#include "tests/kernels/shape_fn_test_util.h"
#include "tests/testing/status_matchers.h"

namespace dfx {
namespace {

using testing::StatusIs;
using testing::TestNodeBuilder;

NodeDef SobolNode(DataType dtype) {
  return TestNodeBuilder("sobol", "SobolSample", 3)
      .Attr("dtype", dtype)
      .Build();
}

absl::StatusOr<Tensor> Sobol(DataType dtype, Tensor dim, Tensor num_results,
                             Tensor skip) {
  auto out = testing::RunKernel(SobolNode(dtype), {dim, num_results, skip});
  if (!out.ok()) return out.status();
  return (*out)[0];
}

absl::StatusOr<Tensor> Sobol(DataType dtype, int32_t dim, int32_t num_results,
                             int32_t skip) {
  return Sobol(dtype, Tensor::Scalar<int32_t>(dim),
               Tensor::Scalar<int32_t>(num_results),
               Tensor::Scalar<int32_t>(skip));
}

TEST_CASE("SobolSample has TensorFlow 2.21's signature and CPU types",
          "[sobol]") {
  testing::CheckSignaturesWithTensorFlow("sobol", 1);
}

TEST_CASE("SobolSample's shape: [num_results, dim] as far as known",
          "[sobol]") {
  const PartialShape s = PartialShape::Scalar();
  auto known = testing::InferShapes(
      SobolNode(DT_DOUBLE), {s, s, s},
      {Tensor::Scalar<int32_t>(3), Tensor::Scalar<int32_t>(4)});
  CHECK(testing::ShapesString(known) == "[4,3]");
  auto unknown = testing::InferShapes(SobolNode(DT_FLOAT), {s, s, s});
  CHECK(testing::ShapesString(unknown) == "[?,?]");
  auto bad = testing::InferShapes(SobolNode(DT_FLOAT),
                                  {s, PartialShape::Known({2}), s});
  CHECK_THAT(bad.status(), StatusIs(absl::StatusCode::kInvalidArgument));
}

TEST_CASE("SobolSample refuses non-scalar inputs", "[sobol]") {
  // TensorFlow's kernel reads each input as a scalar without checking and
  // aborts the process.
  const Tensor one = Tensor::Scalar<int32_t>(1);
  const Tensor vec = Tensor::FromVector<int32_t>({1, 2});
  CHECK_THAT(
      Sobol(DT_FLOAT, vec, one, one).status(),
      StatusIs(absl::StatusCode::kInvalidArgument, "dim must be a scalar"));
  CHECK_THAT(Sobol(DT_FLOAT, one, vec, one).status(),
             StatusIs(absl::StatusCode::kInvalidArgument,
                      "num_results must be a scalar"));
  CHECK_THAT(
      Sobol(DT_DOUBLE, one, one, vec).status(),
      StatusIs(absl::StatusCode::kInvalidArgument, "skip must be a scalar"));
}

TEST_CASE("SobolSample's first points are the Sobol sequence's", "[sobol]") {
  auto out = Sobol(DT_DOUBLE, 3, 4, 0);
  REQUIRE(out.ok());
  const std::vector<double> want = {0.5,  0.5,  0.5,  0.75,  0.25,  0.25,
                                    0.25, 0.75, 0.75, 0.375, 0.375, 0.625};
  REQUIRE(out->NumElements() == 12);
  for (int i = 0; i < 12; ++i) CHECK(out->data<double>()[i] == want[i]);
}

// Each row of `all` (rows from `skip` on) equals the same row computed
// alone, from its own Gray code.
template <typename T>
void CheckRowsAlone(DataType dtype, int32_t dim, int32_t num_results,
                    int32_t skip, int32_t row_step) {
  auto all = Sobol(dtype, dim, num_results, skip);
  REQUIRE(all.ok());
  const T* a = all->data<T>();
  int mismatches = 0;
  for (int32_t r = 0; r < num_results; r += row_step) {
    auto row = Sobol(dtype, dim, 1, skip + r);
    REQUIRE(row.ok());
    for (int32_t j = 0; j < dim; ++j) {
      if (row->data<T>()[j] != a[int64_t{r} * dim + j]) ++mismatches;
    }
  }
  CHECK(mismatches == 0);
}

TEST_CASE("SobolSample's rows agree however its elements are split",
          "[sobol]") {
  // Above the parallel threshold (32K elements): the test device's two
  // intra-op threads split the output inside rows and between them.
  SECTION("wide") { CheckRowsAlone<double>(DT_DOUBLE, 21200, 5, 12345, 1); }
  SECTION("long") { CheckRowsAlone<float>(DT_FLOAT, 7, 9000, 3, 97); }
  SECTION("odd width") {
    CheckRowsAlone<double>(DT_DOUBLE, 1111, 40, 1 << 20, 3);
  }
}

TEST_CASE("SobolSample negates TensorFlow's blocks that reach 2^30",
          "[sobol]") {
  // 2000 rows on the test device's two threads: TensorFlow's blocks are
  // rows [0, 1000) and [1000, 2000); only the second ends past 2^30 - skip
  // - 1, so only its values come out negated.
  const int32_t skip = (1 << 30) - 1500;
  auto out = Sobol(DT_DOUBLE, 1, 2000, skip);
  REQUIRE(out.ok());
  const double* o = out->data<double>();
  int wrong = 0;
  for (int r = 0; r < 2000; ++r) {
    if ((r < 1000) != (o[r] > 0)) ++wrong;
  }
  CHECK(wrong == 0);
  // One block (at most 512 rows): all of it negated once it reaches 2^30.
  auto small = Sobol(DT_FLOAT, 2, 10, (1 << 30) - 5);
  REQUIRE(small.ok());
  for (int i = 0; i < 20; ++i) CHECK(small->data<float>()[i] < 0);
}

TEST_CASE("SobolSample's errors are TensorFlow's", "[sobol]") {
  CHECK_THAT(Sobol(DT_FLOAT, 21201, 1, 0).status(),
             StatusIs(absl::StatusCode::kInvalidArgument,
                      "dim must be at most 21200"));
  CHECK_THAT(Sobol(DT_FLOAT, 1, 1, 2147483646).status(),
             StatusIs(absl::StatusCode::kInvalidArgument,
                      "num_results+skip must be less than 2147483647"));
  CHECK(Sobol(DT_FLOAT, 1, 1, 2147483645).ok());
}

}  // namespace
}  // namespace dfx
