// RaggedTensorToTensor, RaggedRange and RaggedTensorToSparse
// (kernels/sparse/ragged_ops.cc): strings, and every error path with
// TensorFlow's messages (the "sparse" golden family checks the values).
#include <cstdint>
#include <climits>
#include <string>
#include <vector>

#include "catch2/catch.hpp"
#include "tests/kernels/math_test_util.h"

namespace dfx {
namespace {

using testing::MakeTensor;
using testing::MakeVector;
using testing::RunError;
using testing::RunKernel;
using testing::RunOne;
using testing::StatusIs;
using testing::TestNodeBuilder;
using testing::Values;

constexpr auto kInvalid = absl::StatusCode::kInvalidArgument;

NodeDef ToTensor(DataType t, std::vector<std::string> types) {
  NodeDef node = TestNodeBuilder("r", "RaggedTensorToTensor",
                                 3 + static_cast<int>(types.size()))
                     .Attr("T", t)
                     .Attr("Tindex", DT_INT64)
                     .Attr("Tshape", DT_INT64)
                     .Attr("num_row_partition_tensors",
                           static_cast<int>(types.size()))
                     .Build();
  auto* list = (*node.mutable_attr())["row_partition_types"].mutable_list();
  for (const std::string& s : types) list->add_s(s);
  return node;
}

TEST_CASE("RaggedTensorToTensor pads string rows with the default",
          "[sparse]") {
  Tensor values(DT_STRING, TensorShape({3}));
  values.data<std::string>()[0] = "a";
  values.data<std::string>()[1] = "b";
  values.data<std::string>()[2] = "c";
  Tensor out = RunOne(ToTensor(DT_STRING, {"ROW_SPLITS"}),
                      {Tensor::Scalar<int64_t>(-1), values,
                       Tensor::Scalar<std::string>("<pad>"),
                       MakeVector<int64_t>({0, 1, 1, 3})});
  REQUIRE(out.shape() == TensorShape({3, 2}));
  REQUIRE(Values<std::string>(out) ==
          std::vector<std::string>({"a", "<pad>", "<pad>", "<pad>", "b", "c"}));
}

TEST_CASE("RaggedTensorToTensor rejects bad partitions and shapes",
          "[sparse]") {
  const Tensor v = MakeVector<float>({1, 2, 3, 4, 5});
  const Tensor zero = Tensor::Scalar<float>(0);
  const Tensor any = Tensor::Scalar<int64_t>(-1);
  NodeDef splits = ToTensor(DT_FLOAT, {"ROW_SPLITS"});
  REQUIRE_THAT(RunError(splits, {any, v, zero, MakeVector<int64_t>({0, 3, 2, 5})}),
               StatusIs(kInvalid, "Invalid row split size."));
  REQUIRE_THAT(RunError(splits, {any, v, zero, MakeVector<int64_t>({})}),
               StatusIs(kInvalid, "Invalid first partition input. Tensor "
                                  "requires at least one element."));
  // Splits past the values: TensorFlow reads past its buffer; dfx fails.
  REQUIRE_THAT(RunError(splits, {any, v, zero, MakeVector<int64_t>({0, 2, 7})}),
               StatusIs(kInvalid, "items below them"));
  REQUIRE_THAT(RunError(splits, {MakeVector<int64_t>({4, 4, 4}), v, zero,
                                 MakeVector<int64_t>({0, 2, 5})}),
               StatusIs(kInvalid, "rt_input.shape and shape=[4,4,4] are "
                                  "incompatible: rt_input.rank = 2 but "
                                  "shape.rank = 3"));
  const Tensor v2 = MakeTensor<float>({0, 1, 2, 3}, TensorShape({2, 2}));
  REQUIRE_THAT(RunError(splits, {MakeVector<int64_t>({-1, -1, 3}), v2, zero,
                                 MakeVector<int64_t>({0, 2})}),
               StatusIs(kInvalid, "rt_input.shape and shape=[?,?,3] are "
                                  "incompatible: rt_input.shape[2] = 2 but "
                                  "shape[2] = 3"));
  REQUIRE_THAT(RunError(splits, {any, v2, MakeVector<float>({1, 2, 3}),
                                 MakeVector<int64_t>({0, 2})}),
               StatusIs(kInvalid, "default_value.shape[-1] = 3 but "
                                  "rt_input.flat_values.shape[-1] = 2"));
  REQUIRE_THAT(RunError(splits, {any, v, MakeTensor<float>({0}, TensorShape({1, 1})),
                                 MakeVector<int64_t>({0, 5})}),
               StatusIs(kInvalid, "default_value.rank = 2  must be less than "
                                  "rt_input.flat_values.rank = 1"));
  NodeDef rowids = ToTensor(DT_FLOAT, {"FIRST_DIM_SIZE", "VALUE_ROWIDS"});
  REQUIRE_THAT(RunError(rowids, {any, v, zero, Tensor::Scalar<int64_t>(2),
                                 MakeVector<int64_t>({0, 0, 2, 2, 2})}),
               StatusIs(kInvalid, "Got next_value_rowid=2 which is not less "
                                  "than 2"));
  REQUIRE_THAT(RunKernel(ToTensor(DT_FLOAT, {"FOO"}),
                         {any, v, zero, MakeVector<int64_t>({0, 5})})
                   .status(),
               StatusIs(kInvalid, "Unknown string for partition info type: FOO"));
  REQUIRE_THAT(RunKernel(ToTensor(DT_FLOAT, {"VALUE_ROWIDS"}),
                         {any, v, zero, MakeVector<int64_t>({0, 0, 0, 0, 0})})
                   .status(),
               StatusIs(kInvalid, "Cannot handle VALUE_ROWIDS in first "
                                  "dimension."));
}

TEST_CASE("RaggedTensorToTensor takes a huge FIRST_DIM_SIZE of empty rows",
          "[sparse]") {
  NodeDef rowids = ToTensor(DT_FLOAT, {"FIRST_DIM_SIZE", "VALUE_ROWIDS"});
  Tensor out = RunOne(rowids, {Tensor::Scalar<int64_t>(-1),
                               MakeVector<float>({}), Tensor::Scalar<float>(0),
                               Tensor::Scalar<int64_t>(int64_t{1} << 40),
                               MakeVector<int64_t>({})});
  REQUIRE(out.shape() == TensorShape({int64_t{1} << 40, 0}));
}

TEST_CASE("RaggedRange rejects zero deltas and mismatched lengths",
          "[sparse]") {
  NodeDef node = TestNodeBuilder("r", "RaggedRange", 3)
                     .Attr("T", DT_INT32)
                     .Attr("Tsplits", DT_INT64)
                     .Build();
  REQUIRE_THAT(RunError(node, {MakeVector<int32_t>({0}), MakeVector<int32_t>({3}),
                               MakeVector<int32_t>({0})}),
               StatusIs(kInvalid, "Requires delta != 0"));
  REQUIRE_THAT(RunError(node, {MakeVector<int32_t>({0, 1}),
                               MakeVector<int32_t>({3, 4, 5}),
                               Tensor::Scalar<int32_t>(1)}),
               StatusIs(kInvalid, "starts, limits, and deltas must have the "
                                  "same shape"));
  REQUIRE_THAT(RunError(node, {MakeTensor<int32_t>({0}, TensorShape({1, 1})),
                               MakeVector<int32_t>({3}), MakeVector<int32_t>({1})}),
               StatusIs(kInvalid, "starts must be a scalar or vector"));
  // The full int32 span, counted without overflow: 2^32 - 1 steps of 1.
  REQUIRE_THAT(
      RunKernel(node, {Tensor::Scalar<int32_t>(INT32_MIN),
                       Tensor::Scalar<int32_t>(INT32_MAX),
                       Tensor::Scalar<int32_t>(65536)})
          .status(),
      testing::IsOk());
  absl::StatusOr<std::vector<Tensor>> out = RunKernel(
      node, {Tensor::Scalar<int32_t>(10), MakeVector<int32_t>({0, 11}),
             Tensor::Scalar<int32_t>(-3)});
  REQUIRE(out.ok());
  REQUIRE(Values<int64_t>((*out)[0]) == std::vector<int64_t>({0, 4, 4}));
  REQUIRE(Values<int32_t>((*out)[1]) == std::vector<int32_t>({10, 7, 4, 1}));
}

TEST_CASE("RaggedTensorToSparse checks its splits as TensorFlow", "[sparse]") {
  NodeDef node = TestNodeBuilder("r", "RaggedTensorToSparse", 2)
                     .Attr("RAGGED_RANK", 1)
                     .Attr("T", DT_FLOAT)
                     .Attr("Tsplits", DT_INT64)
                     .Build();
  const Tensor v = MakeVector<float>({1, 2, 3, 4, 5});
  REQUIRE_THAT(RunError(node, {MakeVector<int64_t>({0, 3, 2, 5}), v}),
               StatusIs(kInvalid, "Ragged splits should be non decreasing, but "
                                  "we got 3 followed by 2"));
  REQUIRE_THAT(RunError(node, {MakeVector<int64_t>({0, 2, 4}), v}),
               StatusIs(kInvalid, "Final value of ragged splits must match the "
                                  "length the corresponding ragged values."));
  REQUIRE_THAT(RunError(node, {MakeVector<int64_t>({1, 2, 5}), v}),
               StatusIs(kInvalid, "First value of ragged splits must be 0."));
  absl::StatusOr<std::vector<Tensor>> out =
      RunKernel(node, {MakeVector<int64_t>({0, 2, 2, 5}), v});
  REQUIRE(out.ok());
  REQUIRE(Values<int64_t>((*out)[0]) ==
          std::vector<int64_t>({0, 0, 0, 1, 2, 0, 2, 1, 2, 2}));
  REQUIRE(Values<int64_t>((*out)[2]) == std::vector<int64_t>({3, 3}));
}

}  // namespace
}  // namespace dfx
