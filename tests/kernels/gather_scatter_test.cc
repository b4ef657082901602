// ScatterNd, TensorScatterUpdate, TensorScatterAdd and the segment
// reductions.
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "catch2/catch.hpp"
#include "tests/kernels/gather_test_util.h"

namespace dfx {
namespace {

using gather_test::Expect;
using gather_test::Make;
using gather_test::Run;
using gather_test::RunStatus;
using gather_test::Scalar;
using testing::StatusIs;
using testing::TestNodeBuilder;

NodeDef ScatterNd(DataType t, DataType ti = DT_INT32,
                  const char* policy = "") {
  return TestNodeBuilder("s", "ScatterNd", 3)
      .Attr("T", t)
      .Attr("Tindices", ti)
      .Attr("bad_indices_policy", policy)
      .Build();
}

NodeDef TensorScatter(const char* op, DataType t, DataType ti = DT_INT32) {
  return TestNodeBuilder("s", op, 3).Attr("T", t).Attr("Tindices", ti).Build();
}

TEST_CASE("ScatterNd sums duplicate indices into zeros") {
  Expect<float>(Run(ScatterNd(DT_FLOAT), {Make<int32_t>({1, 3, 1}, {3, 1}),
                                          Make<float>({1, 2, 4}),
                                          Make<int32_t>({5})})[0],
                {5}, {0, 5, 0, 2, 0});
  // Slices of rows, int64 indices.
  Expect<int64_t>(Run(ScatterNd(DT_INT64, DT_INT64),
                      {Make<int64_t>({1, 0, 1}, {3, 1}),
                       Make<int64_t>({1, 2, 3, 4, 5, 6}, {3, 2}),
                       Make<int64_t>({2, 2})})[0],
                  {2, 2}, {3, 4, 6, 8});
  // Strings concatenate, bools or.
  Expect<std::string>(Run(ScatterNd(DT_STRING), {Make<int32_t>({1, 1}, {2, 1}),
                                                 Make<std::string>({"a", "b"}),
                                                 Make<int32_t>({3})})[0],
                      {3}, {"", "ab", ""});
  Expect<bool>(Run(ScatterNd(DT_BOOL), {Make<int32_t>({0, 0}, {2, 1}),
                                        Make<bool>({true, false}),
                                        Make<int32_t>({2})})[0],
               {2}, {true, false});
}

TEST_CASE("ScatterNd errors follow TensorFlow") {
  REQUIRE_THAT(RunStatus(ScatterNd(DT_FLOAT), {Make<int32_t>({5}, {1, 1}),
                                               Make<float>({1}), Make<int32_t>({4})}),
               StatusIs(absl::StatusCode::kInvalidArgument,
                        "indices[0] = [5] does not index into shape [4]"));
  REQUIRE_THAT(RunStatus(ScatterNd(DT_FLOAT), {Make<int32_t>({1}, {1, 1}),
                                               Make<float>({1, 2}), Make<int32_t>({4})}),
               StatusIs(absl::StatusCode::kInvalidArgument, "Dimensions [0,1) of indices"));
  REQUIRE_THAT(RunStatus(ScatterNd(DT_FLOAT), {Make<int32_t>({1}, {1, 1}),
                                               Make<float>({1}), Make<int32_t>({-4})}),
               StatusIs(absl::StatusCode::kInvalidArgument, "Dimension -4 must be >= 0"));
  REQUIRE_THAT(RunStatus(ScatterNd(DT_FLOAT), {Make<int32_t>({1}, {1, 1}),
                                               Make<float>({}, {1, 0}), Make<int32_t>({2, 0})}),
               StatusIs(absl::StatusCode::kInvalidArgument, "empty output shape"));
  // IGNORE drops the bad tuple, negative ones too.
  Expect<float>(Run(ScatterNd(DT_FLOAT, DT_INT32, "IGNORE"),
                    {Make<int32_t>({5, -1, 1}, {3, 1}), Make<float>({1, 2, 3}),
                     Make<int32_t>({3})})[0],
                {3}, {0, 3, 0});
}

TEST_CASE("TensorScatterUpdate keeps the last duplicate, Add sums") {
  const Tensor base = Make<int32_t>({1, 2, 3, 4});
  const Tensor idx = Make<int32_t>({1, 1, 3}, {3, 1});
  const Tensor upd = Make<int32_t>({10, 20, 30});
  Expect<int32_t>(Run(TensorScatter("TensorScatterUpdate", DT_INT32), {base, idx, upd})[0],
                  {4}, {1, 20, 3, 30});
  Expect<int32_t>(Run(TensorScatter("TensorScatterAdd", DT_INT32), {base, idx, upd})[0],
                  {4}, {1, 32, 3, 34});
  // The input is not modified.
  Expect<int32_t>(base, {4}, {1, 2, 3, 4});
  Expect<std::string>(Run(TensorScatter("TensorScatterUpdate", DT_STRING),
                          {Make<std::string>({"a", "b"}), Make<int32_t>({1}, {1, 1}),
                           Make<std::string>({"z"})})[0],
                      {2}, {"a", "z"});
  REQUIRE_THAT(RunStatus(TensorScatter("TensorScatterUpdate", DT_INT32),
                         {base, Make<int32_t>({7}, {1, 1}), Make<int32_t>({1})}),
               StatusIs(absl::StatusCode::kInvalidArgument,
                        "indices[0] = [7] does not index into shape [4]"));
  REQUIRE_THAT(RunStatus(TensorScatter("TensorScatterAdd", DT_FLOAT),
                         {Scalar<float>(1), Make<int32_t>({}, {0}), Scalar<float>(2)}),
               StatusIs(absl::StatusCode::kInvalidArgument,
                        "Updates shape must have rank at least one"));
}

TEST_CASE("Large TensorScatterAdd with duplicates is exact and deterministic") {
  const int64_t rows = 50, cols = 3000, n = 400;
  std::mt19937 gen(3);
  std::vector<int64_t> idx(n);
  for (auto& v : idx) v = std::uniform_int_distribution<int64_t>(0, rows - 1)(gen);
  std::vector<int64_t> upd(n * cols);
  for (size_t i = 0; i < upd.size(); ++i) upd[i] = static_cast<int64_t>(i % 97);
  std::vector<int64_t> want(rows * cols, 1);
  for (int64_t i = 0; i < n; ++i) {
    for (int64_t c = 0; c < cols; ++c) want[idx[i] * cols + c] += upd[i * cols + c];
  }
  Tensor out = Run(TensorScatter("TensorScatterAdd", DT_INT64, DT_INT64),
                   {Make<int64_t>(std::vector<int64_t>(rows * cols, 1), {rows, cols}),
                    Make<int64_t>(idx, {n, 1}), Make<int64_t>(upd, {n, cols})})[0];
  Expect<int64_t>(out, {rows, cols}, want);
}

NodeDef Unsorted(const char* op, DataType t, DataType ti = DT_INT32) {
  return TestNodeBuilder("u", op, 3)
      .Attr("T", t)
      .Attr("Tindices", ti)
      .Attr("Tnumsegments", DT_INT32)
      .Build();
}

TEST_CASE("Unsorted segment reductions: identities, negative ids, NaN") {
  const Tensor data = Make<float>({1, 2, 3, 4, 5, 6}, {3, 2});
  const Tensor ids = Make<int32_t>({2, -1, 2});
  Expect<float>(Run(Unsorted("UnsortedSegmentSum", DT_FLOAT), {data, ids, Scalar<int32_t>(3)})[0],
                {3, 2}, {0, 0, 0, 0, 6, 8});
  Expect<float>(Run(Unsorted("UnsortedSegmentProd", DT_FLOAT), {data, ids, Scalar<int32_t>(3)})[0],
                {3, 2}, {1, 1, 1, 1, 5, 12});
  const float lowest = std::numeric_limits<float>::lowest();
  Expect<float>(Run(Unsorted("UnsortedSegmentMax", DT_FLOAT), {data, ids, Scalar<int32_t>(3)})[0],
                {3, 2}, {lowest, lowest, lowest, lowest, 5, 6});
  Expect<int32_t>(Run(Unsorted("UnsortedSegmentMin", DT_INT32),
                      {Make<int32_t>({4, 1, 7}), Make<int32_t>({0, 0, 0}), Scalar<int32_t>(2)})[0],
                  {2}, {1, std::numeric_limits<int32_t>::max()});
  // A NaN wins only when it comes first (TensorFlow's std::max(v, acc)).
  const float nan = std::nanf("");
  Tensor mx = Run(Unsorted("UnsortedSegmentMax", DT_FLOAT),
                  {Make<float>({1, nan, 0, nan, 1}), Make<int32_t>({0, 0, 0, 1, 1}),
                   Scalar<int32_t>(2)})[0];
  REQUIRE(mx.data<float>()[0] == 0);
  REQUIRE(mx.data<float>()[1] == 1);
  // Ids of rank 2 over data [2, 2, 1].
  Expect<int64_t>(Run(Unsorted("UnsortedSegmentSum", DT_INT64, DT_INT64),
                      {Make<int64_t>({1, 2, 3, 4}, {2, 2, 1}), Make<int64_t>({0, 1, 1, 1}, {2, 2}),
                       Scalar<int32_t>(2)})[0],
                  {2, 1}, {1, 9});
  REQUIRE_THAT(RunStatus(Unsorted("UnsortedSegmentSum", DT_FLOAT), {data, Make<int32_t>({0, 5, 1}), Scalar<int32_t>(3)}),
               StatusIs(absl::StatusCode::kInvalidArgument,
                        "segment_ids[1] = 5 is out of range [0, 3)"));
  REQUIRE_THAT(RunStatus(Unsorted("UnsortedSegmentSum", DT_FLOAT), {data, ids, Scalar<int32_t>(-1)}),
               StatusIs(absl::StatusCode::kInvalidArgument, "must not be negative"));
  REQUIRE_THAT(RunStatus(Unsorted("UnsortedSegmentSum", DT_FLOAT), {data, Make<int32_t>({0, 1}), Scalar<int32_t>(3)}),
               StatusIs(absl::StatusCode::kInvalidArgument, "does not start with segment_ids.shape"));
}

TEST_CASE("Large unsorted segment sums match a loop, narrow and wide rows") {
  std::mt19937 gen(11);
  for (int64_t cols : {1, 300}) {
    INFO("cols " << cols);
    const int64_t n = 200000 / cols, segments = 1000;
    std::vector<int32_t> ids(n);
    for (auto& v : ids) v = std::uniform_int_distribution<int32_t>(-1, segments - 1)(gen);
    std::vector<int64_t> data(n * cols);
    for (size_t i = 0; i < data.size(); ++i) data[i] = static_cast<int64_t>(i % 1013);
    std::vector<int64_t> want(segments * cols, 0);
    for (int64_t i = 0; i < n; ++i) {
      if (ids[i] < 0) continue;
      for (int64_t c = 0; c < cols; ++c) want[ids[i] * cols + c] += data[i * cols + c];
    }
    Tensor out = Run(Unsorted("UnsortedSegmentSum", DT_INT64),
                     {Make<int64_t>(data, {n, cols}), Make<int32_t>(ids),
                      Scalar<int32_t>(static_cast<int32_t>(segments))})[0];
    Expect<int64_t>(out, {segments, cols}, want);
  }
}

NodeDef Segment(const char* op, DataType t) {
  return TestNodeBuilder("s", op, 2).Attr("T", t).Attr("Tindices", DT_INT32).Build();
}

TEST_CASE("SegmentSum and SegmentMean over sorted ids, gaps are zero") {
  const Tensor data = Make<float>({1, 2, 3, 4, 5, 6}, {3, 2});
  const Tensor ids = Make<int32_t>({0, 0, 2});
  Expect<float>(Run(Segment("SegmentSum", DT_FLOAT), {data, ids})[0], {3, 2}, {4, 6, 0, 0, 5, 6});
  Expect<float>(Run(Segment("SegmentMean", DT_FLOAT), {data, ids})[0], {3, 2}, {2, 3, 0, 0, 5, 6});
  // Integer means truncate.
  Expect<int32_t>(Run(Segment("SegmentMean", DT_INT32), {Make<int32_t>({1, 2, 4}), Make<int32_t>({0, 0, 1})})[0],
                  {2}, {1, 4});
  Expect<float>(Run(Segment("SegmentSum", DT_FLOAT), {Tensor(DT_FLOAT, TensorShape({0, 2})), Make<int32_t>({})})[0],
                {0, 2}, {});
  REQUIRE_THAT(RunStatus(Segment("SegmentSum", DT_FLOAT), {data, Make<int32_t>({0, 2, 1})}),
               StatusIs(absl::StatusCode::kInvalidArgument, "segment ids are not increasing"));
  REQUIRE_THAT(RunStatus(Segment("SegmentSum", DT_FLOAT), {data, Make<int32_t>({-1, 0, 1})}),
               StatusIs(absl::StatusCode::kInvalidArgument, "Segment id -1 out of range [0, 2)"));
  REQUIRE_THAT(RunStatus(Segment("SegmentSum", DT_FLOAT), {data, Make<int32_t>({0, 0})}),
               StatusIs(absl::StatusCode::kInvalidArgument, "same size as dimension 0"));
}

}  // namespace
}  // namespace dfx
