// GatherV2, Gather and GatherNd kernels.
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "catch2/catch.hpp"
#include "tests/kernels/gather_test_util.h"
#include "tests/kernels/shape_fn_test_util.h"

namespace dfx {
namespace {

using gather_test::Expect;
using gather_test::Make;
using gather_test::Run;
using gather_test::RunStatus;
using gather_test::Scalar;
using testing::StatusIs;
using testing::TestNodeBuilder;

NodeDef GatherV2(DataType t, DataType ti, int64_t batch_dims = 0) {
  return TestNodeBuilder("g", "GatherV2", 3)
      .Attr("Tparams", t)
      .Attr("Tindices", ti)
      .Attr("Taxis", DT_INT32)
      .Attr("batch_dims", batch_dims)
      .Build();
}

TEST_CASE("GatherV2 picks rows along any axis, negative axes too") {
  const Tensor params = Make<float>({1, 2, 3, 4, 5, 6}, {2, 3});
  const Tensor idx = Make<int32_t>({2, 0, 2}, {3});
  Expect<float>(Run(GatherV2(DT_FLOAT, DT_INT32), {params, Make<int32_t>({1, 0}), Scalar<int32_t>(0)})[0],
                {2, 3}, {4, 5, 6, 1, 2, 3});
  Expect<float>(Run(GatherV2(DT_FLOAT, DT_INT32), {params, idx, Scalar<int32_t>(1)})[0],
                {2, 3}, {3, 1, 3, 6, 4, 6});
  Expect<float>(Run(GatherV2(DT_FLOAT, DT_INT32), {params, idx, Scalar<int32_t>(-1)})[0],
                {2, 3}, {3, 1, 3, 6, 4, 6});
  // Indices of rank 2 and a scalar index.
  Expect<float>(Run(GatherV2(DT_FLOAT, DT_INT64),
                    {params, Make<int64_t>({1, 1, 0, 1}, {2, 2}), Scalar<int32_t>(0)})[0],
                {2, 2, 3}, {4, 5, 6, 4, 5, 6, 1, 2, 3, 4, 5, 6});
  Expect<float>(Run(GatherV2(DT_FLOAT, DT_INT32), {params, Scalar<int32_t>(2), Scalar<int32_t>(1)})[0],
                {2}, {3, 6});
}

TEST_CASE("GatherV2's shape function refuses a constant axis beyond the "
          "rank, however large") {
  NodeDef node = TestNodeBuilder("g", "GatherV2", 3)
                     .Attr("Tparams", DT_FLOAT)
                     .Attr("Tindices", DT_INT32)
                     .Attr("Taxis", DT_INT64)
                     .Build();
  const std::vector<PartialShape> shapes = {
      PartialShape::Known({7, 1, 1, 1, 2}), PartialShape::Known({1}),
      PartialShape::Scalar()};
  for (int64_t axis : {int64_t{5}, int64_t{-6}, int64_t{1} << 40,
                       std::numeric_limits<int64_t>::max(),
                       std::numeric_limits<int64_t>::min()}) {
    INFO(axis);
    CHECK_THAT(testing::InferShapes(node, shapes,
                                    {Tensor(), Tensor(),
                                     Tensor::Scalar<int64_t>(axis)})
                   .status(),
               StatusIs(absl::StatusCode::kInvalidArgument, "at least rank"));
  }
  absl::StatusOr<std::vector<PartialShape>> last = testing::InferShapes(
      node, shapes, {Tensor(), Tensor(), Tensor::Scalar<int64_t>(-1)});
  REQUIRE(last.ok());
  CHECK((*last)[0].DebugString() == "[7,1,1,1,1]");
}

TEST_CASE("GatherV2 with batch_dims gathers within each batch") {
  // params [2, 3], indices [2, 2]: out[b, i] = params[b, indices[b, i]].
  const Tensor params = Make<int32_t>({1, 2, 3, 4, 5, 6}, {2, 3});
  const Tensor idx = Make<int32_t>({2, 0, 1, 1}, {2, 2});
  Expect<int32_t>(Run(GatherV2(DT_INT32, DT_INT32, 1), {params, idx, Scalar<int32_t>(1)})[0],
                  {2, 2}, {3, 1, 5, 5});
  Expect<int32_t>(Run(GatherV2(DT_INT32, DT_INT32, -1), {params, idx, Scalar<int32_t>(1)})[0],
                  {2, 2}, {3, 1, 5, 5});
  // batch_dims 1 with an outer dim between the batch and the axis:
  // params [2, 2, 2], axis 2.
  const Tensor p3 = Make<int32_t>({0, 1, 2, 3, 4, 5, 6, 7}, {2, 2, 2});
  Expect<int32_t>(Run(GatherV2(DT_INT32, DT_INT32, 1),
                      {p3, Make<int32_t>({1, 0}, {2, 1}), Scalar<int32_t>(2)})[0],
                  {2, 2, 1}, {1, 3, 4, 6});
  REQUIRE_THAT(RunStatus(GatherV2(DT_INT32, DT_INT32, 1),
                         {params, Make<int32_t>({0, 0, 0}, {3, 1}), Scalar<int32_t>(1)}),
               StatusIs(absl::StatusCode::kInvalidArgument,
                        "params.shape[0]: 2 should be equal to indices.shape[0]: 3"));
  REQUIRE_THAT(RunStatus(GatherV2(DT_INT32, DT_INT32, 1), {params, idx, Scalar<int32_t>(0)}),
               StatusIs(absl::StatusCode::kInvalidArgument,
                        "must be less than or equal to axis"));
}

TEST_CASE("GatherV2 moves strings, bools and 16-byte complex values") {
  const Tensor s = Make<std::string>({"a", "bb", "ccc"});
  Expect<std::string>(Run(GatherV2(DT_STRING, DT_INT32), {s, Make<int32_t>({2, 2, 0}), Scalar<int32_t>(0)})[0],
                      {3}, {"ccc", "ccc", "a"});
  Expect<bool>(Run(GatherV2(DT_BOOL, DT_INT32),
                   {Make<bool>({true, false}), Make<int32_t>({1, 0, 1}), Scalar<int32_t>(0)})[0],
               {3}, {false, true, false});
  using C = std::complex<double>;
  Expect<C>(Run(GatherV2(DT_COMPLEX128, DT_INT32),
                {Make<C>({C(1, 2), C(3, 4)}), Make<int32_t>({1}), Scalar<int32_t>(0)})[0],
            {1}, {C(3, 4)});
}

TEST_CASE("GatherV2 rejects an out-of-range index with its position") {
  const Tensor params = Make<float>({1, 2, 3});
  REQUIRE_THAT(RunStatus(GatherV2(DT_FLOAT, DT_INT32),
                         {params, Make<int32_t>({0, 1, 2, 5}, {2, 2}), Scalar<int32_t>(0)}),
               StatusIs(absl::StatusCode::kInvalidArgument,
                        "indices[1,1] = 5 is not in [0, 3)"));
  REQUIRE_THAT(RunStatus(GatherV2(DT_FLOAT, DT_INT64),
                         {params, Make<int64_t>({-1}), Scalar<int32_t>(0)}),
               StatusIs(absl::StatusCode::kInvalidArgument,
                        "indices[0] = -1 is not in [0, 3)"));
  REQUIRE_THAT(RunStatus(GatherV2(DT_FLOAT, DT_INT32),
                         {params, Make<int32_t>({0}), Scalar<int32_t>(1)}),
               StatusIs(absl::StatusCode::kInvalidArgument,
                        "Shape must be at least rank 2 but is rank 1"));
  REQUIRE_THAT(RunStatus(GatherV2(DT_FLOAT, DT_INT32),
                         {Scalar<float>(1), Make<int32_t>({0}), Scalar<int32_t>(0)}),
               StatusIs(absl::StatusCode::kInvalidArgument,
                        "params must be at least 1 dimensional"));
  // Nothing to copy: TensorFlow does not look at the indices.
  Expect<float>(Run(GatherV2(DT_FLOAT, DT_INT32),
                    {Tensor(DT_FLOAT, TensorShape({2, 0})), Make<int32_t>({7}), Scalar<int32_t>(0)})[0],
                {1, 0}, {});
}

TEST_CASE("Large gathers match a plain loop, rows and single elements") {
  std::mt19937 gen(7);
  SECTION("rows of 64 floats") {
    const int64_t rows = 1000, cols = 64, n = 5000;
    std::vector<float> p(rows * cols);
    for (size_t i = 0; i < p.size(); ++i) p[i] = static_cast<float>(i);
    std::vector<int64_t> idx(n);
    for (auto& v : idx) v = std::uniform_int_distribution<int64_t>(0, rows - 1)(gen);
    Tensor out = Run(GatherV2(DT_FLOAT, DT_INT64),
                     {Make<float>(p, {rows, cols}), Make<int64_t>(idx), Scalar<int32_t>(0)})[0];
    REQUIRE(out.shape() == TensorShape({n, cols}));
    for (int64_t i = 0; i < n; ++i) {
      for (int64_t c = 0; c < cols; ++c) {
        REQUIRE(out.data<float>()[i * cols + c] == p[idx[i] * cols + c]);
      }
    }
  }
  SECTION("single elements along the last axis of a matrix") {
    const int64_t rows = 3, cols = 50000, n = 70000;
    std::vector<int32_t> p(rows * cols);
    for (size_t i = 0; i < p.size(); ++i) p[i] = static_cast<int32_t>(i * 3);
    std::vector<int32_t> idx(n);
    for (auto& v : idx) v = std::uniform_int_distribution<int32_t>(0, cols - 1)(gen);
    Tensor out = Run(GatherV2(DT_INT32, DT_INT32),
                     {Make<int32_t>(p, {rows, cols}), Make<int32_t>(idx), Scalar<int32_t>(1)})[0];
    REQUIRE(out.shape() == TensorShape({rows, n}));
    for (int64_t r = 0; r < rows; ++r) {
      for (int64_t i = 0; i < n; ++i) {
        REQUIRE(out.data<int32_t>()[r * n + i] == p[r * cols + idx[i]]);
      }
    }
  }
}

TEST_CASE("Gather (v1) gathers along axis 0") {
  NodeDef node = TestNodeBuilder("g", "Gather", 2)
                     .Attr("Tparams", DT_DOUBLE)
                     .Attr("Tindices", DT_INT32)
                     .Build();
  Expect<double>(Run(node, {Make<double>({1, 2, 3, 4}, {2, 2}), Make<int32_t>({1, 1})})[0],
                 {2, 2}, {3, 4, 3, 4});
  REQUIRE_THAT(RunStatus(node, {Make<double>({1, 2}), Make<int32_t>({2})}),
               StatusIs(absl::StatusCode::kInvalidArgument, "indices[0] = 2 is not in [0, 2)"));
}

NodeDef GatherNd(DataType t, DataType ti, const char* policy = "") {
  return TestNodeBuilder("g", "GatherNd", 2)
      .Attr("Tparams", t)
      .Attr("Tindices", ti)
      .Attr("bad_indices_policy", policy)
      .Build();
}

TEST_CASE("GatherNd picks elements, rows and whole tensors") {
  const Tensor params = Make<int32_t>({1, 2, 3, 4, 5, 6}, {2, 3});
  Expect<int32_t>(Run(GatherNd(DT_INT32, DT_INT32), {params, Make<int32_t>({1, 2, 0, 1}, {2, 2})})[0],
                  {2}, {6, 2});
  Expect<int32_t>(Run(GatherNd(DT_INT32, DT_INT64), {params, Make<int64_t>({1, 0}, {2, 1})})[0],
                  {2, 3}, {4, 5, 6, 1, 2, 3});
  // indices.shape[-1] == 0: each (empty) tuple names all of params.
  Expect<int32_t>(Run(GatherNd(DT_INT32, DT_INT32), {params, Tensor(DT_INT32, TensorShape({2, 0}))})[0],
                  {2, 2, 3}, {1, 2, 3, 4, 5, 6, 1, 2, 3, 4, 5, 6});
  Expect<std::string>(Run(GatherNd(DT_STRING, DT_INT32),
                          {Make<std::string>({"x", "y", "z", "w"}, {2, 2}), Make<int32_t>({1, 0}, {1, 2})})[0],
                      {1}, {"z"});
}

TEST_CASE("GatherNd errors, and bad_indices_policy IGNORE") {
  const Tensor params = Make<float>({1, 2, 3, 4}, {2, 2});
  const Tensor bad = Make<int32_t>({0, 1, 0, 3}, {2, 1, 2});
  REQUIRE_THAT(RunStatus(GatherNd(DT_FLOAT, DT_INT32), {params, bad}),
               StatusIs(absl::StatusCode::kInvalidArgument,
                        "indices[1,0] = [0, 3] does not index into param shape [2,2]"));
  Expect<float>(Run(GatherNd(DT_FLOAT, DT_INT32, "IGNORE"), {params, bad})[0],
                {2, 1}, {2, 0});
  REQUIRE_THAT(RunStatus(GatherNd(DT_FLOAT, DT_INT32), {params, Make<int32_t>({0, 0, 0}, {1, 3})}),
               StatusIs(absl::StatusCode::kInvalidArgument,
                        "index innermost dimension length must be <= params rank"));
  REQUIRE_THAT(RunStatus(GatherNd(DT_FLOAT, DT_INT32),
                         {Tensor(DT_FLOAT, TensorShape({2, 0})), Make<int32_t>({1}, {1, 1})}),
               StatusIs(absl::StatusCode::kInvalidArgument, "params is empty"));
  REQUIRE_THAT(testing::RunKernel(GatherNd(DT_FLOAT, DT_INT32, "FOO"), {params, bad}).status(),
               StatusIs(absl::StatusCode::kInvalidArgument, "bad_indices_policy"));
}

// Hidden (run with "[.bench]"): rows of 128 floats gathered from a 25 MiB
// table into a 100 MiB output on the 2-thread test device, next to a
// memcpy of the output's bytes.
TEST_CASE("GatherV2 throughput", "[.bench]") {
  const int64_t rows = 50000, cols = 128, n = 200000;
  std::vector<float> p(rows * cols, 1.0f);
  std::mt19937 gen(1);
  std::vector<int32_t> idx(n);
  for (auto& v : idx) v = std::uniform_int_distribution<int32_t>(0, rows - 1)(gen);
  const Tensor params = Make<float>(p, {rows, cols});
  const Tensor indices = Make<int32_t>(idx);
  const NodeDef node = GatherV2(DT_FLOAT, DT_INT32);
  double best = 1e9;
  for (int rep = 0; rep < 10; ++rep) {
    const auto start = std::chrono::steady_clock::now();
    Tensor out = Run(node, {params, indices, Scalar<int32_t>(0)})[0];
    best = std::min(best, std::chrono::duration<double>(
                              std::chrono::steady_clock::now() - start).count());
  }
  std::vector<float> a(n * cols, 1.0f), b(n * cols);
  double copy = 1e9;
  for (int rep = 0; rep < 10; ++rep) {
    const auto start = std::chrono::steady_clock::now();
    std::memcpy(b.data(), a.data(), a.size() * sizeof(float));
    copy = std::min(copy, std::chrono::duration<double>(
                              std::chrono::steady_clock::now() - start).count());
  }
  const double gb = static_cast<double>(n * cols * sizeof(float)) / 1e9;
  WARN("GatherV2 [50000,128] x 200000 rows: " << best * 1e3 << " ms, "
       << gb / best << " GB/s written; memcpy of the output: " << copy * 1e3
       << " ms, " << gb / copy << " GB/s");
}

}  // namespace
}  // namespace dfx
