// Sparse segment reductions and their gradients (kernels/sparse/
// sparse_segment_ops.cc). TensorFlow's own outputs for every dtype and long
// segments are checked by the "sparse" golden family; these cover the
// semantics and every error path.
#include <cmath>
#include <cstdint>
#include <random>
#include <string>
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
using testing::TestNodeBuilder;
using testing::Values;

NodeDef Segment(const std::string& op, DataType t, int inputs,
                DataType tidx = DT_INT32, DataType tseg = DT_INT32) {
  return TestNodeBuilder("s", op, inputs)
      .Attr("T", t)
      .Attr("Tidx", tidx)
      .Attr("Tsegmentids", tseg)
      .Build();
}

Tensor Data() {
  return MakeTensor<float>({1, 2, 3, 4, 5, 6}, TensorShape({3, 2}));
}

TEST_CASE("SparseSegmentSum gathers rows and sums each segment, gaps are 0",
          "[sparse]") {
  Tensor out = RunOne(Segment("SparseSegmentSum", DT_FLOAT, 3),
                      {Data(), MakeVector<int32_t>({0, 1, 2, 0}),
                       MakeVector<int32_t>({0, 0, 2, 2})});
  REQUIRE(out.shape() == TensorShape({3, 2}));
  REQUIRE(Values<float>(out) == std::vector<float>({4, 6, 0, 0, 6, 8}));
}

TEST_CASE("SparseSegmentMean and SqrtN scale by the segment's count",
          "[sparse]") {
  const std::vector<Tensor> in = {Data(), MakeVector<int64_t>({0, 1, 2, 2}),
                                  MakeVector<int64_t>({0, 0, 0, 1})};
  Tensor mean = RunOne(
      Segment("SparseSegmentMean", DT_FLOAT, 3, DT_INT64, DT_INT64), in);
  REQUIRE(Values<float>(mean) ==
          std::vector<float>({9.0f * (1.0f / 3), 12.0f * (1.0f / 3), 5, 6}));
  Tensor sqrtn = RunOne(
      Segment("SparseSegmentSqrtN", DT_FLOAT, 3, DT_INT64, DT_INT64), in);
  const float s = 1.0f / static_cast<float>(std::sqrt(3.0));
  REQUIRE(Values<float>(sqrtn) == std::vector<float>({9 * s, 12 * s, 5, 6}));
}

TEST_CASE("SparseSegmentSum of integers and an empty selection", "[sparse]") {
  Tensor out = RunOne(
      Segment("SparseSegmentSum", DT_INT32, 3),
      {MakeTensor<int32_t>({1, 2, 3}, TensorShape({3})),
       MakeVector<int32_t>({2, 2, 1}), MakeVector<int32_t>({1, 1, 1})});
  REQUIRE(Values<int32_t>(out) == std::vector<int32_t>({0, 8}));
  Tensor empty = RunOne(Segment("SparseSegmentSum", DT_FLOAT, 3),
                        {Data(), MakeVector<int32_t>({}),
                         MakeVector<int32_t>({})});
  REQUIRE(empty.shape() == TensorShape({0, 2}));
}

TEST_CASE("WithNumSegments forms pad with zero rows up to num_segments",
          "[sparse]") {
  NodeDef node = TestNodeBuilder("s", "SparseSegmentMeanWithNumSegments", 4)
                     .Attr("T", DT_FLOAT)
                     .Build();
  Tensor out = RunOne(node, {Data(), MakeVector<int32_t>({2}),
                             MakeVector<int32_t>({1}),
                             Tensor::Scalar<int32_t>(3)});
  REQUIRE(out.shape() == TensorShape({3, 2}));
  REQUIRE(Values<float>(out) == std::vector<float>({0, 0, 5, 6, 0, 0}));
  Tensor none = RunOne(node, {Data(), MakeVector<int32_t>({}),
                              MakeVector<int32_t>({}),
                              Tensor::Scalar<int32_t>(2)});
  REQUIRE(Values<float>(none) == std::vector<float>({0, 0, 0, 0}));
  REQUIRE_THAT(RunError(node, {Data(), MakeVector<int32_t>({2}),
                               MakeVector<int32_t>({3}),
                               Tensor::Scalar<int32_t>(3)}),
               StatusIs(absl::StatusCode::kInvalidArgument,
                        "segment ids must be < num_segments"));
  REQUIRE_THAT(RunError(node, {Data(), MakeVector<int32_t>({2}),
                               MakeVector<int32_t>({0}),
                               Tensor::Scalar<int32_t>(-1)}),
               StatusIs(absl::StatusCode::kInvalidArgument,
                        "segment ids must be >= 0"));
  REQUIRE_THAT(RunError(node, {Data(), MakeVector<int32_t>({2}),
                               MakeVector<int32_t>({0}),
                               MakeVector<int32_t>({3})}),
               StatusIs(absl::StatusCode::kInvalidArgument,
                        "num_segments should be a scalar, not shape [1]"));
}

TEST_CASE("SparseSegmentSum rejects bad indices and segment ids as TensorFlow",
          "[sparse]") {
  NodeDef node = Segment("SparseSegmentSum", DT_FLOAT, 3);
  REQUIRE_THAT(RunError(node, {Data(), MakeVector<int32_t>({0, 3}),
                               MakeVector<int32_t>({0, 0})}),
               StatusIs(absl::StatusCode::kInvalidArgument,
                        "Bad: indices[1] == 3 out of range [0, 3)"));
  REQUIRE_THAT(RunError(node, {Data(), MakeVector<int32_t>({0, -1}),
                               MakeVector<int32_t>({0, 1})}),
               StatusIs(absl::StatusCode::kInvalidArgument,
                        "Bad: indices[1] == -1 out of range [0, 3)"));
  REQUIRE_THAT(RunError(node, {Data(), MakeVector<int32_t>({0, 1, 2}),
                               MakeVector<int32_t>({1, 0, 2})}),
               StatusIs(absl::StatusCode::kInvalidArgument,
                        "segment ids are not increasing"));
  REQUIRE_THAT(RunError(node, {Data(), MakeVector<int32_t>({0, 1}),
                               MakeVector<int32_t>({-1, 0})}),
               StatusIs(absl::StatusCode::kInvalidArgument,
                        "Segment id -1 out of range [0, 1)"));
  REQUIRE_THAT(RunError(node, {Data(), MakeVector<int32_t>({0, 1}),
                               MakeVector<int32_t>({0, -1})}),
               StatusIs(absl::StatusCode::kInvalidArgument,
                        "segment ids must be >= 0"));
  REQUIRE_THAT(RunError(node, {Data(), MakeVector<int32_t>({0, 1}),
                               MakeVector<int32_t>({0})}),
               StatusIs(absl::StatusCode::kInvalidArgument,
                        "segment_ids and indices should have same size."));
  REQUIRE_THAT(RunError(node, {Data(), MakeTensor<int32_t>({0}, TensorShape({1, 1})),
                               MakeVector<int32_t>({0})}),
               StatusIs(absl::StatusCode::kInvalidArgument,
                        "indices should be a vector."));
  REQUIRE_THAT(RunError(node, {Data(), MakeVector<int32_t>({0}),
                               Tensor::Scalar<int32_t>(0)}),
               StatusIs(absl::StatusCode::kInvalidArgument,
                        "segment_ids should be a vector."));
  REQUIRE_THAT(RunError(node, {Tensor::Scalar<float>(1), MakeVector<int32_t>({0}),
                               MakeVector<int32_t>({0})}),
               StatusIs(absl::StatusCode::kInvalidArgument, "at least rank 1"));
}

TEST_CASE("Long segments sum in TensorFlow's order: a head, then blocks of 8",
          "[sparse]") {
  // 11 rows: head of 3 rows, then one block of 8. In float, 1e8 + 1 + 1
  // loses both ones when added one at a time, but a block of eight ones
  // sums to 8 before it meets the large value.
  std::vector<float> data = {1e8f, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1};
  Tensor d = Tensor::FromVector<float>(data, TensorShape({11}));
  std::vector<int32_t> idx(11), seg(11, 0);
  for (int i = 0; i < 11; ++i) idx[i] = i;
  Tensor out = RunOne(Segment("SparseSegmentSum", DT_FLOAT, 3),
                      {d, Tensor::FromVector<int32_t>(idx, TensorShape({11})),
                       Tensor::FromVector<int32_t>(seg, TensorShape({11}))});
  REQUIRE(Values<float>(out)[0] == 1e8f + 8.0f);
}

TEST_CASE("SparseSegment gradients scatter scaled rows back", "[sparse]") {
  // Forward: segments 0 <- rows {0, 2}, 1 <- row {2}; data had 4 rows.
  Tensor grad = MakeTensor<float>({2, 4, 10, 20}, TensorShape({2, 2}));
  const std::vector<Tensor> in = {grad, MakeVector<int32_t>({0, 2, 2}),
                                  MakeVector<int32_t>({0, 0, 1}),
                                  Tensor::Scalar<int32_t>(4)};
  Tensor sum = RunOne(Segment("SparseSegmentSumGrad", DT_FLOAT, 4), in);
  REQUIRE(sum.shape() == TensorShape({4, 2}));
  REQUIRE(Values<float>(sum) ==
          std::vector<float>({2, 4, 0, 0, 12, 24, 0, 0}));
  Tensor mean = RunOne(Segment("SparseSegmentMeanGrad", DT_FLOAT, 4), in);
  REQUIRE(Values<float>(mean) ==
          std::vector<float>({1, 2, 0, 0, 11, 22, 0, 0}));
  Tensor sqrtn = RunOne(Segment("SparseSegmentSqrtNGrad", DT_DOUBLE, 4),
                        {MakeTensor<double>({2, 4, 10, 20}, TensorShape({2, 2})),
                         in[1], in[2], in[3]});
  const double s = 1.0 / std::sqrt(2.0);
  REQUIRE(Values<double>(sqrtn) ==
          std::vector<double>({2 * s, 4 * s, 0, 0, 2 * s + 10, 4 * s + 20, 0, 0}));
}

TEST_CASE("SparseSegment gradients reject bad inputs", "[sparse]") {
  NodeDef node = Segment("SparseSegmentMeanGrad", DT_FLOAT, 4);
  Tensor grad = MakeTensor<float>({1, 2}, TensorShape({2, 1}));
  REQUIRE_THAT(RunError(node, {grad, MakeVector<int32_t>({0, 5}),
                               MakeVector<int32_t>({0, 1}),
                               Tensor::Scalar<int32_t>(3)}),
               StatusIs(absl::StatusCode::kInvalidArgument,
                        "Index 5 out of range [0, 3)."));
  REQUIRE_THAT(RunError(node, {grad, MakeVector<int32_t>({0, 1}),
                               MakeVector<int32_t>({0, 2}),
                               Tensor::Scalar<int32_t>(3)}),
               StatusIs(absl::StatusCode::kInvalidArgument,
                        "Invalid number of segments"));
  REQUIRE_THAT(RunError(node, {grad, MakeVector<int32_t>({0, 1}),
                               MakeVector<int32_t>({-1, 1}),
                               Tensor::Scalar<int32_t>(3)}),
               StatusIs(absl::StatusCode::kInvalidArgument,
                        "Segment id -1 out of range [0, 2)."));
  REQUIRE_THAT(RunError(node, {grad, MakeVector<int32_t>({0, 1}),
                               MakeVector<int32_t>({0, 1}),
                               MakeVector<int32_t>({3})}),
               StatusIs(absl::StatusCode::kInvalidArgument,
                        "output_dim0 should be a scalar."));
  REQUIRE_THAT(RunError(node, {grad, MakeVector<int32_t>({0, 1}),
                               MakeVector<int32_t>({0, 1}),
                               Tensor::Scalar<int32_t>(-1)}),
               StatusIs(absl::StatusCode::kInvalidArgument));
}

}  // namespace
}  // namespace dfx

namespace dfx {
namespace {

TEST_CASE("SparseSegment GradV2 gives one row per distinct index", "[sparse]") {
  NodeDef node = testing::TestNodeBuilder("s", "SparseSegmentSumGradV2", 4)
                     .Attr("T", DT_FLOAT)
                     .Attr("Tidx", DT_INT64)
                     .Build();
  absl::StatusOr<std::vector<Tensor>> out = testing::RunKernel(
      node, {testing::MakeTensor<float>({2, 4, 10, 20}, TensorShape({2, 2})),
             testing::MakeVector<int64_t>({7, 2, 7}),
             testing::MakeVector<int32_t>({0, 0, 1}),
             Tensor::Scalar<int32_t>(9)});
  REQUIRE(out.ok());
  REQUIRE((*out)[0].shape() == TensorShape({2, 2}));
  REQUIRE(testing::Values<float>((*out)[0]) ==
          std::vector<float>({2, 4, 12, 24}));
  REQUIRE(testing::Values<int64_t>((*out)[1]) == std::vector<int64_t>({2, 7}));
  REQUIRE_THAT(testing::RunKernel(
                   node, {testing::MakeTensor<float>({2, 4}, TensorShape({1, 2})),
                          testing::MakeVector<int64_t>({9}),
                          testing::MakeVector<int32_t>({0}),
                          Tensor::Scalar<int32_t>(9)})
                   .status(),
               testing::StatusIs(absl::StatusCode::kInvalidArgument,
                                 "Index 9 out of range [0, 9)."));
}

}  // namespace
}  // namespace dfx

namespace dfx {
namespace {

TEST_CASE("Large sparse segment sums and gradients match a plain loop",
          "[sparse]") {
  // Enough segments and columns for the intra-op pool to split the work.
  std::mt19937 gen(5);
  const int64_t rows = 1000, n = 120000, segments = 50000;
  std::vector<int32_t> data(rows * 2), idx(n), seg(n);
  for (auto& v : data) v = static_cast<int32_t>(gen() % 100) - 50;
  for (int64_t i = 0; i < n; ++i) {
    idx[i] = static_cast<int32_t>(gen() % rows);
    seg[i] = static_cast<int32_t>(i * segments / n);
  }
  Tensor out = testing::RunOne(
      Segment("SparseSegmentSum", DT_INT32, 3),
      {Tensor::FromVector<int32_t>(data, TensorShape({rows, 2})),
       Tensor::FromVector<int32_t>(idx, TensorShape({n})),
       Tensor::FromVector<int32_t>(seg, TensorShape({n}))});
  std::vector<int32_t> want(segments * 2, 0);
  for (int64_t i = 0; i < n; ++i) {
    want[seg[i] * 2] += data[idx[i] * 2];
    want[seg[i] * 2 + 1] += data[idx[i] * 2 + 1];
  }
  REQUIRE(testing::Values<int32_t>(out) == want);

  // The gradient with wide rows (split over columns): every output row is
  // the sum of its gradient rows, exact in small integers.
  const int64_t cols = 40000, grad_rows = 4, m = 3;
  std::vector<float> grad(grad_rows * cols);
  for (auto& v : grad) v = static_cast<float>(gen() % 17);
  std::vector<int32_t> gidx = {0, 2, 2, 1, 0}, gseg = {0, 0, 1, 2, 3};
  Tensor g = testing::RunOne(
      Segment("SparseSegmentSumGrad", DT_FLOAT, 4),
      {Tensor::FromVector<float>(grad, TensorShape({grad_rows, cols})),
       Tensor::FromVector<int32_t>(gidx, TensorShape({5})),
       Tensor::FromVector<int32_t>(gseg, TensorShape({5})),
       Tensor::Scalar<int32_t>(static_cast<int32_t>(m))});
  std::vector<float> gwant(m * cols, 0.0f);
  for (int i = 0; i < 5; ++i) {
    for (int64_t c = 0; c < cols; ++c) {
      gwant[gidx[i] * cols + c] += grad[gseg[i] * cols + c];
    }
  }
  REQUIRE(testing::Values<float>(g) == gwant);
}

}  // namespace
}  // namespace dfx
