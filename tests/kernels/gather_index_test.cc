// DynamicStitch, ParallelDynamicStitch, DynamicPartition, Unique,
// InvertPermutation and BroadcastGradientArgs kernels, and the shape
// functions of graph/ops/gather_ops.cc.
#include <cmath>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "catch2/catch.hpp"
#include "graph/node_def_util.h"
#include "graph/op_registry.h"
#include "tests/kernels/gather_test_util.h"
#include "tests/kernels/shape_fn_test_util.h"

namespace dfx {
namespace {

using gather_test::Expect;
using gather_test::Make;
using gather_test::Run;
using gather_test::RunStatus;
using gather_test::Scalar;
using testing::InferShapes;
using testing::StatusIs;
using testing::TestNodeBuilder;

NodeDef Stitch(const char* op, int n, DataType t) {
  return TestNodeBuilder("s", op, 2 * n).Attr("N", n).Attr("T", t).Build();
}

TEST_CASE("DynamicStitch interleaves, later inputs win, gaps are zero") {
  for (const char* op : {"DynamicStitch", "ParallelDynamicStitch"}) {
    INFO(op);
    Expect<float>(Run(Stitch(op, 2, DT_FLOAT),
                      {Make<int32_t>({0, 2}), Make<int32_t>({1, 2}), Make<float>({1, 2}),
                       Make<float>({3, 4})})[0],
                  {3}, {1, 3, 4});
    Expect<float>(Run(Stitch(op, 1, DT_FLOAT), {Make<int32_t>({0, 4}), Make<float>({1, 2})})[0],
                  {5}, {1, 0, 0, 0, 2});
    // Rows, a scalar index, strings.
    Expect<std::string>(Run(Stitch(op, 2, DT_STRING),
                            {Scalar<int32_t>(1), Make<int32_t>({0}),
                             Make<std::string>({"b", "c"}), Make<std::string>({"x", "y"}, {1, 2})})[0],
                        {2, 2}, {"x", "y", "b", "c"});
    REQUIRE_THAT(RunStatus(Stitch(op, 1, DT_FLOAT), {Make<int32_t>({0, -1}), Make<float>({1, 2})}),
                 StatusIs(absl::StatusCode::kInvalidArgument, "indices[1] is out of range"));
    REQUIRE_THAT(RunStatus(Stitch(op, 1, DT_FLOAT), {Make<int32_t>({0, 1}), Make<float>({1, 2, 3})}),
                 StatusIs(absl::StatusCode::kInvalidArgument,
                          "data[0].shape = [3] does not start with indices[0].shape = [2]"));
  }
}

TEST_CASE("Large DynamicStitch matches a loop, overlaps and gaps included") {
  std::mt19937 gen(13);
  const int64_t rows = 150000, cols = 4, n = 100000;
  std::vector<Tensor> inputs(4);
  std::vector<int32_t> want(rows * cols, 0);
  for (int i = 0; i < 2; ++i) {
    std::vector<int32_t> idx(n), data(n * cols);
    for (auto& v : idx) v = std::uniform_int_distribution<int32_t>(0, rows - 1)(gen);
    idx[0] = rows - 1;  // fixes the output size
    for (size_t j = 0; j < data.size(); ++j) data[j] = static_cast<int32_t>(j) * (i + 1);
    for (int64_t j = 0; j < n; ++j) {
      for (int64_t c = 0; c < cols; ++c) want[idx[j] * cols + c] = data[j * cols + c];
    }
    inputs[i] = Make<int32_t>(idx);
    inputs[2 + i] = Make<int32_t>(data, {n, cols});
  }
  Expect<int32_t>(Run(Stitch("DynamicStitch", 2, DT_INT32), inputs)[0], {rows, cols}, want);
}

TEST_CASE("DynamicStitch of empty rows with a huge index allocates nothing") {
  Tensor out = Run(Stitch("DynamicStitch", 1, DT_FLOAT),
                   {Make<int32_t>({0, 2147483647}), Tensor(DT_FLOAT, TensorShape({2, 0}))})[0];
  REQUIRE(out.shape() == TensorShape({2147483648, 0}));
}

TEST_CASE("DynamicPartition splits rows by partition, in order") {
  NodeDef node = TestNodeBuilder("p", "DynamicPartition", 2)
                     .Attr("T", DT_INT32)
                     .Attr("num_partitions", 3)
                     .Build();
  auto out = Run(node, {Make<int32_t>({1, 2, 3, 4, 5, 6}, {3, 2}), Make<int32_t>({2, 0, 2})});
  Expect<int32_t>(out[0], {1, 2}, {3, 4});
  Expect<int32_t>(out[1], {0, 2}, {});
  Expect<int32_t>(out[2], {2, 2}, {1, 2, 5, 6});
  NodeDef strings = TestNodeBuilder("p", "DynamicPartition", 2)
                        .Attr("T", DT_STRING)
                        .Attr("num_partitions", 2)
                        .Build();
  out = Run(strings, {Make<std::string>({"a", "b", "c"}), Make<int32_t>({1, 0, 1})});
  Expect<std::string>(out[0], {1}, {"b"});
  Expect<std::string>(out[1], {2}, {"a", "c"});
  REQUIRE_THAT(RunStatus(node, {Make<int32_t>({1, 2}), Make<int32_t>({0, 3})}),
               StatusIs(absl::StatusCode::kInvalidArgument, "partitions[1] = 3 is not in [0, 3)"));
  REQUIRE_THAT(RunStatus(node, {Make<int32_t>({1, 2}), Make<int32_t>({0})}),
               StatusIs(absl::StatusCode::kInvalidArgument,
                        "data.shape must start with partitions.shape"));
}

NodeDef Unique(DataType t, DataType out_idx) {
  return TestNodeBuilder("u", "Unique", 1).Attr("T", t).Attr("out_idx", out_idx).Build();
}

TEST_CASE("Unique keeps first-occurrence order, -0 equals 0, NaNs differ") {
  auto out = Run(Unique(DT_INT32, DT_INT32), {Make<int32_t>({3, 1, 3, 2, 1})});
  Expect<int32_t>(out[0], {3}, {3, 1, 2});
  Expect<int32_t>(out[1], {5}, {0, 1, 0, 2, 1});
  out = Run(Unique(DT_FLOAT, DT_INT64), {Make<float>({0.0f, -0.0f, std::nanf(""), std::nanf(""), 1})});
  REQUIRE(out[0].NumElements() == 4);
  Expect<int64_t>(out[1], {5}, {0, 0, 1, 2, 3});
  out = Run(Unique(DT_STRING, DT_INT32), {Make<std::string>({"a", "b", "a"})});
  Expect<std::string>(out[0], {2}, {"a", "b"});
  Expect<int32_t>(out[1], {3}, {0, 1, 0});
  out = Run(Unique(DT_BOOL, DT_INT32), {Make<bool>({})});
  Expect<bool>(out[0], {0}, {});
  REQUIRE_THAT(RunStatus(Unique(DT_INT32, DT_INT32), {Make<int32_t>({1}, {1, 1})}),
               StatusIs(absl::StatusCode::kInvalidArgument, "unique expects a 1D vector."));
}

TEST_CASE("InvertPermutation inverts and rejects non-permutations") {
  NodeDef node = TestNodeBuilder("i", "InvertPermutation", 1).Attr("T", DT_INT64).Build();
  Expect<int64_t>(Run(node, {Make<int64_t>({2, 0, 1})})[0], {3}, {1, 2, 0});
  REQUIRE_THAT(RunStatus(node, {Make<int64_t>({0, 0, 1})}),
               StatusIs(absl::StatusCode::kInvalidArgument, "0 is duplicated in the input."));
  REQUIRE_THAT(RunStatus(node, {Make<int64_t>({0, 3, 1})}),
               StatusIs(absl::StatusCode::kInvalidArgument, "3 is not between 0 and 3"));
}

TEST_CASE("BroadcastGradientArgs gives the dims each side must reduce") {
  NodeDef node = TestNodeBuilder("b", "BroadcastGradientArgs", 2).Attr("T", DT_INT32).Build();
  auto out = Run(node, {Make<int32_t>({2, 1, 3}), Make<int32_t>({1, 1, 3})});
  Expect<int32_t>(out[0], {1}, {1});
  Expect<int32_t>(out[1], {2}, {0, 1});
  // Equal shapes reduce nothing, even their 1s.
  out = Run(node, {Make<int32_t>({2, 1}), Make<int32_t>({2, 1})});
  Expect<int32_t>(out[0], {0}, {});
  Expect<int32_t>(out[1], {0}, {});
  NodeDef n64 = TestNodeBuilder("b", "BroadcastGradientArgs", 2).Attr("T", DT_INT64).Build();
  out = Run(n64, {Make<int64_t>({}), Make<int64_t>({4})});
  Expect<int64_t>(out[0], {1}, {0});
  Expect<int64_t>(out[1], {0}, {});
  REQUIRE_THAT(RunStatus(node, {Make<int32_t>({2, 3}), Make<int32_t>({4})}),
               StatusIs(absl::StatusCode::kInvalidArgument, "Incompatible shapes: [2,3] vs. [4]"));
}

std::string Str(const absl::StatusOr<std::vector<PartialShape>>& r, int i = 0) {
  if (!r.ok()) return r.status().ToString();
  return (*r)[i].DebugString();
}

PartialShape S(std::vector<int64_t> dims) { return PartialShape::Known(std::move(dims)); }

TEST_CASE("Shape functions of the gather family") {
  NodeDef g = TestNodeBuilder("g", "GatherV2", 3)
                  .Attr("Tparams", DT_FLOAT)
                  .Attr("Tindices", DT_INT32)
                  .Attr("Taxis", DT_INT32)
                  .Build();
  REQUIRE(Str(InferShapes(g, {S({5, 6, 7}), S({2, 3}), S({})},
                          {Tensor(), Tensor(), Scalar<int32_t>(-2)})) ==
          "[5,2,3,7]");
  REQUIRE(Str(InferShapes(g, {S({5, 6, 7}), S({2, 3}), S({})})) == "[?,?,?,?]");
  REQUIRE_THAT(InferShapes(g, {S({5}), S({2}), S({})},
                           {Tensor(), Tensor(), Scalar<int32_t>(1)})
                   .status(),
               StatusIs(absl::StatusCode::kInvalidArgument, "at least rank 2"));
  NodeDef gb = g;
  (*gb.mutable_attr())["batch_dims"].set_i(1);
  REQUIRE(Str(InferShapes(gb, {S({4, 6, 7}), S({4, 3}), S({})},
                          {Tensor(), Tensor(), Scalar<int32_t>(2)})) ==
          "[4,6,3]");

  NodeDef nd = TestNodeBuilder("n", "GatherNd", 2).Attr("Tparams", DT_FLOAT).Attr("Tindices", DT_INT32).Build();
  REQUIRE(Str(InferShapes(nd, {S({4, 5, 6}), S({2, 3, 2})})) == "[2,3,6]");
  REQUIRE_THAT(InferShapes(nd, {S({4}), S({2, 3})}).status(),
               StatusIs(absl::StatusCode::kInvalidArgument,
                        "indices.shape[-1] must be <= params.rank"));

  NodeDef sn = TestNodeBuilder("s", "ScatterNd", 3).Attr("T", DT_FLOAT).Attr("Tindices", DT_INT32).Build();
  REQUIRE(Str(InferShapes(sn, {S({3, 1}), S({3, 4}), S({2})},
                          {Tensor(), Tensor(), Make<int32_t>({8, 4})})) ==
          "[8,4]");
  REQUIRE_THAT(
      InferShapes(sn, {S({3, 1}), S({2, 4}), S({2})},
                  {Tensor(), Tensor(), Make<int32_t>({8, 4})})
          .status(),
      StatusIs(absl::StatusCode::kInvalidArgument, "updates has shape"));

  NodeDef oh = TestNodeBuilder("o", "OneHot", 4).Attr("T", DT_FLOAT).Attr("TI", DT_INT32).Attr("axis", 0).Build();
  REQUIRE(Str(InferShapes(oh, {S({2, 3}), S({}), S({}), S({})},
                          {Tensor(), Scalar<int32_t>(4)})) == "[4,2,3]");

  NodeDef w = TestNodeBuilder("w", "Where", 1).Build();
  REQUIRE(Str(InferShapes(w, {S({2, 3})})) == "[?,2]");

  NodeDef tk = TestNodeBuilder("t", "TopKV2", 2).Attr("T", DT_FLOAT).Build();
  auto tko =
      InferShapes(tk, {S({2, 9}), S({})}, {Tensor(), Scalar<int32_t>(4)});
  REQUIRE(Str(tko, 0) == "[2,4]");
  REQUIRE(Str(tko, 1) == "[2,4]");
  REQUIRE_THAT(
      InferShapes(tk, {S({2, 3}), S({})}, {Tensor(), Scalar<int32_t>(4)})
          .status(),
      StatusIs(absl::StatusCode::kInvalidArgument, "last dimension >= k"));

  NodeDef am = TestNodeBuilder("a", "ArgMax", 2).Attr("T", DT_FLOAT).Build();
  REQUIRE(Str(InferShapes(am, {S({2, 3, 4}), S({})},
                          {Tensor(), Scalar<int32_t>(-2)})) == "[2,4]");
  REQUIRE(Str(InferShapes(am, {S({2, 3, 4}), S({})})) == "[?,?]");

  NodeDef us = TestNodeBuilder("u", "UnsortedSegmentSum", 3).Attr("T", DT_FLOAT).Attr("Tindices", DT_INT32).Build();
  REQUIRE(Str(InferShapes(us, {S({5, 2, 3}), S({5, 2}), S({})},
                          {Tensor(), Tensor(), Scalar<int32_t>(7)})) ==
          "[7,3]");
  REQUIRE_THAT(
      InferShapes(us, {S({5, 2, 3}), S({4}), S({})}).status(),
      StatusIs(absl::StatusCode::kInvalidArgument, "does not start with"));

  NodeDef ds = Stitch("DynamicStitch", 2, DT_FLOAT);
  REQUIRE(Str(InferShapes(ds, {S({2}), S({3}), S({2, 4}), S({3, 4})},
                          {Make<int32_t>({0, 7})})) == "[?,4]");
  REQUIRE(Str(InferShapes(ds, {S({2}), S({1}), S({2, 4}), S({1, 4})},
                          {Make<int32_t>({0, 7}), Make<int32_t>({3})})) ==
          "[8,4]");

  NodeDef dp = TestNodeBuilder("p", "DynamicPartition", 2).Attr("T", DT_FLOAT).Attr("num_partitions", 2).Build();
  auto dpo = InferShapes(dp, {S({5, 3}), S({5})});
  REQUIRE(Str(dpo, 0) == "[?,3]");
  REQUIRE(Str(dpo, 1) == "[?,3]");

  NodeDef un = TestNodeBuilder("u", "Unique", 1).Attr("T", DT_FLOAT).Build();
  REQUIRE(Str(InferShapes(un, {S({6})}), 1) == "[6]");
  REQUIRE_THAT(InferShapes(un, {S({2, 3})}).status(),
               StatusIs(absl::StatusCode::kInvalidArgument));
}

}  // namespace
}  // namespace dfx
