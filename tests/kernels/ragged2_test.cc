// The ragged2 family's ops (tests/golden/gen_ragged2.py: SparseBincount,
// RaggedBincount, the *CountSparseOutput ops, SparseCrossV2,
// SparseCrossHashed, RaggedCross, RaggedFillEmptyRows and its gradient):
// TensorFlow 2.21's signatures and CPU kernel types, the shape functions,
// and what the golden cases cannot show: inputs on which TensorFlow's
// kernels read out of bounds or abort are refused.
#include <cstdint>
#include <vector>

#include "catch2/catch.hpp"
#include "graph/node_def_util.h"
#include "graph/op_registry.h"
#include "tests/kernels/kernel_test_util.h"
#include "tests/kernels/shape_fn_test_util.h"
#include "tests/testing/status_matchers.h"

namespace dfx {
namespace {

using testing::InferShapes;
using testing::RunKernel;
using testing::StatusIs;
using testing::TestNodeBuilder;

std::string Str(const absl::StatusOr<std::vector<PartialShape>>& s) {
  if (!s.ok()) return s.status().ToString();
  std::string out;
  for (const PartialShape& p : *s) out += p.DebugString() + " ";
  return out;
}

TEST_CASE("Every ragged2 op has TensorFlow 2.21's signature and CPU types",
          "[ragged2]") {
  testing::CheckSignaturesWithTensorFlow("ragged2", 10);
}

TEST_CASE("Count ops' shape functions give a SparseTensor of the input's rank",
          "[ragged2]") {
  auto count = [](const char* op, int inputs) {
    return TestNodeBuilder("c", op, inputs)
        .Attr("T", DT_INT64)
        .Attr("output_type", DT_FLOAT)
        .Attr("binary_output", false)
        .Build();
  };
  const NodeDef dense = count("DenseCountSparseOutput", 2);
  CHECK(Str(InferShapes(
            dense, {PartialShape::Known({4, 3}), PartialShape::Known({0})})) ==
        "[?,2] [?] [2] ");
  CHECK(Str(InferShapes(dense, {PartialShape::Known({4, 3}),
                                PartialShape::Known({4, 3})})) ==
        "[?,2] [?] [2] ");
  CHECK_THAT(InferShapes(dense, {PartialShape::Known({4, 3}),
                                 PartialShape::Known({4, 2})})
                 .status(),
             StatusIs(absl::StatusCode::kInvalidArgument));
  const NodeDef sparse = count("SparseCountSparseOutput", 4);
  CHECK(Str(InferShapes(
            sparse, {PartialShape::Known({-1, 3}), PartialShape::Known({-1}),
                     PartialShape::Known({3}), PartialShape::Known({0})})) ==
        "[?,3] [?] [3] ");
  const NodeDef ragged = count("RaggedCountSparseOutput", 3);
  CHECK(Str(InferShapes(ragged,
                        {PartialShape::Known({-1}), PartialShape::Known({-1}),
                         PartialShape::Known({0})})) == "[?,2] [?] [2] ");
  CHECK(Str(InferShapes(ragged,
                        {PartialShape::Known({-1}), PartialShape::Unknown(),
                         PartialShape::Known({0})})) == "[?,?] [?] [?] ");
}

TEST_CASE("Bincount on sparse and ragged input refuses weights of another size",
          "[ragged2]") {
  const NodeDef sparse = TestNodeBuilder("sb", "SparseBincount", 5)
                             .Attr("Tidx", DT_INT32)
                             .Attr("T", DT_FLOAT)
                             .Build();
  const Tensor indices =
      Tensor::FromVector<int64_t>({0, 0, 2, 0}, TensorShape({2, 2}));
  const Tensor values = Tensor::FromVector<int32_t>({1, 1});
  const Tensor shape = Tensor::FromVector<int64_t>({3, 4});
  const Tensor size = Tensor::Scalar<int32_t>(3);
  CHECK_THAT(RunKernel(sparse, {indices, values, shape, size,
                                Tensor::FromVector<float>({1})})
                 .status(),
             StatusIs(absl::StatusCode::kInvalidArgument,
                      "Weights and values must have the same shape"));
  auto out = RunKernel(sparse, {indices, values, shape, size,
                                Tensor::FromVector<float>({2, 3})});
  REQUIRE(out.ok());
  CHECK(std::vector<float>(out->at(0).span<float>().begin(),
                           out->at(0).span<float>().end()) ==
        std::vector<float>{0, 2, 0, 0, 0, 0, 0, 3, 0});

  const NodeDef ragged = TestNodeBuilder("rb", "RaggedBincount", 4)
                             .Attr("Tidx", DT_INT32)
                             .Attr("T", DT_FLOAT)
                             .Build();
  CHECK_THAT(RunKernel(ragged, {Tensor::FromVector<int64_t>({0, 2}), values,
                                size, Tensor::FromVector<float>({1, 2, 3})})
                 .status(),
             StatusIs(absl::StatusCode::kInvalidArgument,
                      "Weights and values must have the same shape"));
}

TEST_CASE("Ragged count ops refuse splits that do not cover the values",
          "[ragged2]") {
  const NodeDef rc = TestNodeBuilder("rc", "RaggedCountSparseOutput", 3)
                         .Attr("T", DT_INT32)
                         .Attr("output_type", DT_INT64)
                         .Attr("binary_output", false)
                         .Build();
  const Tensor values = Tensor::FromVector<int32_t>({1, 2, 2});
  const Tensor no_weights = Tensor::FromVector<int64_t>({});
  CHECK_THAT(
      RunKernel(rc, {Tensor::FromVector<int64_t>({0, 5}), values, no_weights})
          .status(),
      StatusIs(absl::StatusCode::kInvalidArgument,
               "Splits must end with the number of values, got 5 "
               "instead of 3"));
  auto out = RunKernel(
      rc, {Tensor::FromVector<int64_t>({0, 1, 3}), values, no_weights});
  REQUIRE(out.ok());
  CHECK(std::vector<int64_t>(out->at(0).span<int64_t>().begin(),
                             out->at(0).span<int64_t>().end()) ==
        std::vector<int64_t>{0, 1, 1, 2});
  CHECK(std::vector<int64_t>(out->at(1).span<int64_t>().begin(),
                             out->at(1).span<int64_t>().end()) ==
        std::vector<int64_t>{1, 2});
  CHECK(std::vector<int64_t>(out->at(2).span<int64_t>().begin(),
                             out->at(2).span<int64_t>().end()) ==
        std::vector<int64_t>{2, 3});
}

TEST_CASE("SparseCrossHashed refuses a strong hash of int64 dense input",
          "[ragged2]") {
  const NodeDef node = TestNodeBuilder("x", "SparseCrossHashed", 4)
                           .Attr("N", int64_t{0})
                           .Attr("sparse_types", DataTypeVector{})
                           .Attr("dense_types", DataTypeVector{DT_INT64})
                           .Build();
  const Tensor dense = Tensor::FromVector<int64_t>({3, 4}, TensorShape({2, 1}));
  const Tensor buckets = Tensor::Scalar<int64_t>(10);
  const Tensor salt = Tensor::FromVector<int64_t>({1, 2});
  CHECK_THAT(RunKernel(node, {dense, buckets, Tensor::Scalar<bool>(true), salt})
                 .status(),
             StatusIs(absl::StatusCode::kInvalidArgument, "strong_hash"));
  // Without strong_hash a dense int64 hashes as its value.
  auto out =
      RunKernel(node, {dense, buckets, Tensor::Scalar<bool>(false), salt});
  REQUIRE(out.ok());
  CHECK(std::vector<int64_t>(out->at(1).span<int64_t>().begin(),
                             out->at(1).span<int64_t>().end()) ==
        std::vector<int64_t>{3, 4});
  CHECK_THAT(RunKernel(node, {dense, Tensor::FromVector<int64_t>({1, 2}),
                              Tensor::Scalar<bool>(false), salt})
                 .status(),
             StatusIs(absl::StatusCode::kInvalidArgument));
}

TEST_CASE("RaggedCross refuses row splits of another type than its output's",
          "[ragged2]") {
  const NodeDef node =
      TestNodeBuilder("rc", "RaggedCross", 2)
          .Attr("Nsparse", int64_t{0})
          .Attr("input_order", "R")
          .Attr("hashed_output", false)
          .Attr("num_buckets", int64_t{0})
          .Attr("hash_key", int64_t{0})
          .Attr("ragged_values_types", DataTypeVector{DT_INT64})
          .Attr("ragged_splits_types", DataTypeVector{DT_INT32})
          .Attr("sparse_values_types", DataTypeVector{})
          .Attr("dense_types", DataTypeVector{})
          .Attr("out_values_type", DT_STRING)
          .Attr("out_row_splits_type", DT_INT64)
          .Build();
  CHECK_THAT(
      RunKernel(node, {Tensor::FromVector<int64_t>({1, 2}),
                       Tensor::FromVector<int32_t>({0, 2})})
          .status(),
      StatusIs(absl::StatusCode::kInvalidArgument, "out_row_splits_type"));
}

}  // namespace
}  // namespace dfx
