// OneHot, Where, TopKV2, ArgMax, ArgMin, Cumsum and Cumprod kernels.
#include <cmath>
#include <cstdint>
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

NodeDef OneHot(DataType t, DataType ti, int64_t axis) {
  return TestNodeBuilder("o", "OneHot", 4)
      .Attr("T", t)
      .Attr("TI", ti)
      .Attr("axis", axis)
      .Build();
}

TEST_CASE("OneHot on the last axis and axis 0, out-of-range is all off") {
  const Tensor idx = Make<int64_t>({0, 2, -1, 5});
  Expect<float>(Run(OneHot(DT_FLOAT, DT_INT64, -1),
                    {idx, Scalar<int32_t>(3), Scalar<float>(1), Scalar<float>(0)})[0],
                {4, 3}, {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0});
  Expect<int32_t>(Run(OneHot(DT_INT32, DT_UINT8, 0),
                      {Make<uint8_t>({0, 2, 1, 1}, {2, 2}), Scalar<int32_t>(3),
                       Scalar<int32_t>(5), Scalar<int32_t>(-1)})[0],
                  {3, 2, 2}, {5, -1, -1, -1, -1, -1, 5, 5, -1, 5, -1, -1});
  Expect<std::string>(Run(OneHot(DT_STRING, DT_INT32, -1),
                          {Make<int32_t>({1}), Scalar<int32_t>(2), Scalar<std::string>("on"),
                           Scalar<std::string>("off")})[0],
                      {1, 2}, {"off", "on"});
  REQUIRE_THAT(RunStatus(OneHot(DT_FLOAT, DT_INT64, -1),
                         {idx, Scalar<int32_t>(-1), Scalar<float>(1), Scalar<float>(0)}),
               StatusIs(absl::StatusCode::kInvalidArgument, "depth must be non-negative, got: -1"));
  REQUIRE_THAT(RunStatus(OneHot(DT_FLOAT, DT_INT64, 2),
                         {idx, Scalar<int32_t>(3), Scalar<float>(1), Scalar<float>(0)}),
               StatusIs(absl::StatusCode::kInvalidArgument, "Expected axis to be -1 or between [0, 2)"));
}

TEST_CASE("Where gives row-major coordinates of true and non-zero elements") {
  NodeDef node = TestNodeBuilder("w", "Where", 1).Attr("T", DT_BOOL).Build();
  Expect<int64_t>(Run(node, {Make<bool>({true, false, true, true}, {2, 2})})[0],
                  {3, 2}, {0, 0, 1, 0, 1, 1});
  NodeDef f = TestNodeBuilder("w", "Where", 1).Attr("T", DT_FLOAT).Build();
  // -0 is zero, NaN is not.
  Expect<int64_t>(Run(f, {Make<float>({0, std::nanf(""), -0.0f, 2}, {2, 1, 2})})[0],
                  {2, 3}, {0, 0, 1, 1, 0, 1});
  Expect<int64_t>(Run(f, {Tensor(DT_FLOAT, TensorShape({0, 3}))})[0], {0, 2}, {});
  REQUIRE_THAT(RunStatus(node, {Scalar<bool>(true)}),
               StatusIs(absl::StatusCode::kInvalidArgument, "Unhandled input dimensions: 0"));
  // Many blocks: coordinates stay in order.
  const int64_t n = 100003;
  std::vector<int32_t> v(n);
  std::vector<int64_t> want;
  for (int64_t i = 0; i < n; ++i) {
    v[i] = (i % 7 == 3) ? 1 : 0;
    if (v[i]) want.push_back(i);
  }
  NodeDef i32 = TestNodeBuilder("w", "Where", 1).Attr("T", DT_INT32).Build();
  Expect<int64_t>(Run(i32, {Make<int32_t>(v)})[0], {static_cast<int64_t>(want.size()), 1}, want);
}

NodeDef TopK(DataType t, DataType index_type = DT_INT32, bool sorted = true) {
  return TestNodeBuilder("t", "TopKV2", 2)
      .Attr("T", t)
      .Attr("Tk", DT_INT32)
      .Attr("index_type", index_type)
      .Attr("sorted", sorted)
      .Build();
}

TEST_CASE("TopKV2 is sorted, ties go to the lower index") {
  auto out = Run(TopK(DT_INT32), {Make<int32_t>({3, 1, 3, 2, 3}), Scalar<int32_t>(2)});
  Expect<int32_t>(out[0], {2}, {3, 3});
  Expect<int32_t>(out[1], {2}, {0, 2});
  out = Run(TopK(DT_FLOAT, DT_INT64), {Make<float>({3, 1, 2, 1, 1, 0}, {2, 3}), Scalar<int32_t>(3)});
  Expect<float>(out[0], {2, 3}, {3, 2, 1, 1, 1, 0});
  Expect<int64_t>(out[1], {2, 3}, {0, 2, 1, 0, 1, 2});
  out = Run(TopK(DT_FLOAT), {Make<float>({3, 1}), Scalar<int32_t>(0)});
  Expect<float>(out[0], {0}, {});
  out = Run(TopK(DT_DOUBLE, DT_INT16), {Make<double>({1, 5, 2, 8}), Scalar<int32_t>(1)});
  Expect<double>(out[0], {1}, {8});
  Expect<int16_t>(out[1], {1}, {3});
  REQUIRE_THAT(RunStatus(TopK(DT_FLOAT), {Make<float>({1, 2}), Scalar<int32_t>(3)}),
               StatusIs(absl::StatusCode::kInvalidArgument,
                        "input must have at least k columns. Had 2, needed 3"));
  REQUIRE_THAT(RunStatus(TopK(DT_FLOAT), {Make<float>({1, 2}), Scalar<int32_t>(-1)}),
               StatusIs(absl::StatusCode::kInvalidArgument, "Need k >= 0, got -1"));
}

TEST_CASE("TopKV2 over many rows matches a stable sort") {
  const int64_t rows = 300, cols = 500, k = 7;
  std::mt19937 gen(5);
  std::vector<int32_t> v(rows * cols);
  for (auto& x : v) x = std::uniform_int_distribution<int32_t>(0, 50)(gen);
  auto out = Run(TopK(DT_INT32), {Make<int32_t>(v, {rows, cols}), Scalar<int32_t>(k)});
  for (int64_t r = 0; r < rows; ++r) {
    std::vector<int64_t> order(cols);
    for (int64_t c = 0; c < cols; ++c) order[c] = c;
    std::stable_sort(order.begin(), order.end(), [&](int64_t a, int64_t b) {
      return v[r * cols + a] > v[r * cols + b];
    });
    for (int64_t j = 0; j < k; ++j) {
      REQUIRE(out[1].data<int32_t>()[r * k + j] == order[j]);
      REQUIRE(out[0].data<int32_t>()[r * k + j] == v[r * cols + order[j]]);
    }
  }
}

NodeDef Arg(const char* op, DataType t, DataType out) {
  return TestNodeBuilder("a", op, 2)
      .Attr("T", t)
      .Attr("Tidx", DT_INT32)
      .Attr("output_type", out)
      .Build();
}

TEST_CASE("ArgMax and ArgMin: first of ties, NaN never wins, any axis") {
  const Tensor m = Make<float>({1, 5, 5, 7, 0, 7}, {2, 3});
  Expect<int64_t>(Run(Arg("ArgMax", DT_FLOAT, DT_INT64), {m, Scalar<int32_t>(1)})[0], {2}, {1, 0});
  Expect<int32_t>(Run(Arg("ArgMax", DT_FLOAT, DT_INT32), {m, Scalar<int32_t>(0)})[0], {3}, {1, 0, 1});
  Expect<int64_t>(Run(Arg("ArgMin", DT_FLOAT, DT_INT64), {m, Scalar<int32_t>(-1)})[0], {2}, {0, 1});
  const float nan = std::nanf("");
  Expect<int64_t>(Run(Arg("ArgMax", DT_FLOAT, DT_INT64), {Make<float>({nan, 5, 3}), Scalar<int32_t>(0)})[0],
                  {}, {1});
  Expect<int64_t>(Run(Arg("ArgMin", DT_FLOAT, DT_INT64), {Make<float>({1, nan, 0}), Scalar<int32_t>(0)})[0],
                  {}, {2});
  Expect<int16_t>(Run(Arg("ArgMax", DT_BOOL, DT_INT16), {Make<bool>({false, true, true}), Scalar<int32_t>(0)})[0],
                  {}, {1});
  REQUIRE_THAT(RunStatus(Arg("ArgMax", DT_FLOAT, DT_INT64), {Tensor(DT_FLOAT, TensorShape({0, 3})), Scalar<int32_t>(0)}),
               StatusIs(absl::StatusCode::kInvalidArgument, "Reduction axis 0 is empty in shape [0,3]"));
  REQUIRE_THAT(RunStatus(Arg("ArgMax", DT_FLOAT, DT_INT64), {m, Scalar<int32_t>(2)}),
               StatusIs(absl::StatusCode::kInvalidArgument, "Expected dimension in the range [-2, 2), but got 2"));
}

TEST_CASE("ArgMax over a large middle axis matches a loop") {
  const int64_t outer = 3, n = 2000, inner = 300;
  std::mt19937 gen(9);
  std::vector<int32_t> v(outer * n * inner);
  for (auto& x : v) x = std::uniform_int_distribution<int32_t>(0, 1000)(gen);
  Tensor out = Run(Arg("ArgMax", DT_INT32, DT_INT64),
                   {Make<int32_t>(v, {outer, n, inner}), Scalar<int32_t>(1)})[0];
  for (int64_t o = 0; o < outer; ++o) {
    for (int64_t c = 0; c < inner; ++c) {
      int64_t best = 0;
      for (int64_t i = 1; i < n; ++i) {
        if (v[(o * n + i) * inner + c] > v[(o * n + best) * inner + c]) best = i;
      }
      REQUIRE(out.data<int64_t>()[o * inner + c] == best);
    }
  }
}

NodeDef Scan(const char* op, DataType t, bool exclusive, bool reverse) {
  return TestNodeBuilder("c", op, 2)
      .Attr("T", t)
      .Attr("Tidx", DT_INT32)
      .Attr("exclusive", exclusive)
      .Attr("reverse", reverse)
      .Build();
}

TEST_CASE("Cumsum and Cumprod: exclusive, reverse, any axis") {
  const Tensor x = Make<int32_t>({1, 2, 3, 4, 5, 6}, {2, 3});
  Expect<int32_t>(Run(Scan("Cumsum", DT_INT32, false, false), {x, Scalar<int32_t>(1)})[0],
                  {2, 3}, {1, 3, 6, 4, 9, 15});
  Expect<int32_t>(Run(Scan("Cumsum", DT_INT32, true, true), {x, Scalar<int32_t>(1)})[0],
                  {2, 3}, {5, 3, 0, 11, 6, 0});
  Expect<int32_t>(Run(Scan("Cumsum", DT_INT32, false, false), {x, Scalar<int32_t>(0)})[0],
                  {2, 3}, {1, 2, 3, 5, 7, 9});
  Expect<int32_t>(Run(Scan("Cumprod", DT_INT32, true, false), {x, Scalar<int32_t>(-1)})[0],
                  {2, 3}, {1, 1, 2, 1, 4, 20});
  Expect<int32_t>(Run(Scan("Cumprod", DT_INT32, false, true), {x, Scalar<int32_t>(0)})[0],
                  {2, 3}, {4, 10, 18, 4, 5, 6});
  // uint8 wraps as in TensorFlow.
  Expect<uint8_t>(Run(Scan("Cumsum", DT_UINT8, false, false), {Make<uint8_t>({200, 100}), Scalar<int32_t>(0)})[0],
                  {2}, {200, 44});
  REQUIRE_THAT(RunStatus(Scan("Cumsum", DT_INT32, false, false), {x, Scalar<int32_t>(2)}),
               StatusIs(absl::StatusCode::kInvalidArgument,
                        "ScanOp: Expected scan axis in the range [-2, 2), but got 2"));
  REQUIRE_THAT(RunStatus(Scan("Cumsum", DT_INT32, false, false), {x, Make<int32_t>({0})}),
               StatusIs(absl::StatusCode::kInvalidArgument, "ScanOp: axis must be a scalar"));
}

TEST_CASE("Large Cumsum along the outer axis matches a loop") {
  const int64_t n = 700, inner = 600;
  std::vector<int64_t> v(n * inner);
  for (size_t i = 0; i < v.size(); ++i) v[i] = static_cast<int64_t>(i % 13);
  Tensor out = Run(Scan("Cumsum", DT_INT64, false, false),
                   {Make<int64_t>(v, {n, inner}), Scalar<int32_t>(0)})[0];
  std::vector<int64_t> want(v.size());
  for (int64_t c = 0; c < inner; ++c) {
    int64_t acc = 0;
    for (int64_t i = 0; i < n; ++i) {
      acc += v[i * inner + c];
      want[i * inner + c] = acc;
    }
  }
  Expect<int64_t>(out, {n, inner}, want);
}

}  // namespace
}  // namespace dfx
