// Bincount, DenseBincount, Bucketize, HistogramFixedWidth, InTopKV2, Roll,
// UniqueV2, UniqueWithCounts and UniqueWithCountsV2: TensorFlow 2.21's
// answers on small inputs, its errors, and its OpDefs.
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "catch2/catch.hpp"
#include "google/protobuf/text_format.h"
#include "google/protobuf/util/message_differencer.h"
#include "graph/op_registry.h"
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
using testing::TypedNode;
using testing::Values;

constexpr auto kInvalid = absl::StatusCode::kInvalidArgument;

TEST_CASE("Bincount counts and weighs", "[counting]") {
  const NodeDef f = TypedNode("b", "Bincount", DT_FLOAT, 3).Build();
  CHECK(Values<float>(RunOne(
            f, {MakeVector<int32_t>({1, 2, 1, 5}), Tensor::Scalar<int32_t>(3),
                MakeVector<float>({1, 2, 3, 4})})) ==
        std::vector<float>{0, 4, 2});
  const NodeDef i = TypedNode("b", "Bincount", DT_INT32, 3).Build();
  CHECK(Values<int32_t>(
            RunOne(i, {MakeTensor<int32_t>({1, 2, 0, 0}, TensorShape({2, 2})),
                       Tensor::Scalar<int32_t>(3),
                       Tensor(DT_INT32, TensorShape({0}))})) ==
        std::vector<int32_t>{2, 1, 1});
  const Tensor none(DT_FLOAT, TensorShape({0}));
  CHECK_THAT(RunError(f, {MakeVector<int32_t>({1, -1}),
                          Tensor::Scalar<int32_t>(3), none}),
             StatusIs(kInvalid, "Input arr must be non-negative!"));
  CHECK_THAT(RunError(f, {MakeVector<int32_t>({1}), Tensor::Scalar<int32_t>(-1),
                          none}),
             StatusIs(kInvalid, "size (-1) must be non-negative"));
  CHECK_THAT(
      RunError(f, {MakeVector<int32_t>({1, 2}), Tensor::Scalar<int32_t>(3),
                   MakeVector<float>({1})}),
      StatusIs(kInvalid, "Input indices and weights must have the same size."));
}

NodeDef DenseBincount(DataType t, bool binary) {
  return TypedNode("d", "DenseBincount", t, 3)
      .Attr("Tidx", DT_INT32)
      .Attr("binary_output", binary)
      .Build();
}

TEST_CASE("DenseBincount rows, weights and binary output", "[counting]") {
  const Tensor in =
      MakeTensor<int32_t>({1, 1, 2, 0, 0, 5}, TensorShape({2, 3}));
  const Tensor w = MakeTensor<float>({1, 2, 3, 4, 5, 6}, TensorShape({2, 3}));
  Tensor out = RunOne(DenseBincount(DT_FLOAT, false),
                      {in, Tensor::Scalar<int32_t>(3), w});
  CHECK(out.shape() == TensorShape({2, 3}));
  CHECK(Values<float>(out) == std::vector<float>{0, 3, 3, 9, 0, 0});
  Tensor bin = RunOne(DenseBincount(DT_FLOAT, true),
                      {in, Tensor::Scalar<int32_t>(3), w});
  CHECK(Values<float>(bin) == std::vector<float>{0, 1, 1, 1, 0, 0});
  CHECK_THAT(
      RunError(DenseBincount(DT_FLOAT, false),
               {in, Tensor::Scalar<int32_t>(3), MakeVector<float>({1, 2, 3})}),
      StatusIs(kInvalid, "`weights` must be the same shape as `arr`"));
  CHECK_THAT(RunError(DenseBincount(DT_FLOAT, false),
                      {Tensor(DT_INT32, TensorShape({1, 1, 1})),
                       Tensor::Scalar<int32_t>(3),
                       Tensor(DT_FLOAT, TensorShape({0}))}),
             StatusIs(kInvalid, "Shape must be at most rank 2 but is rank 3"));
}

TEST_CASE("Bucketize and HistogramFixedWidth", "[counting]") {
  NodeDef bucket = TypedNode("b", "Bucketize", DT_INT32, 1).Build();
  auto* list = (*bucket.mutable_attr())["boundaries"].mutable_list();
  for (float f : {0.f, 10.f, 100.f}) list->add_f(f);
  CHECK(Values<int32_t>(
            RunOne(bucket, {MakeVector<int32_t>({-5, 0, 5, 10, 100})})) ==
        std::vector<int32_t>{0, 1, 1, 2, 3});
  NodeDef unsorted = bucket;
  (*unsorted.mutable_attr())["boundaries"].mutable_list()->set_f(0, 1000.f);
  CHECK_THAT(RunError(unsorted, {MakeVector<int32_t>({1})}),
             StatusIs(kInvalid, "Expected sorted boundaries"));

  const NodeDef h = TypedNode("h", "HistogramFixedWidth", DT_FLOAT, 3).Build();
  CHECK(Values<int32_t>(RunOne(
            h, {MakeVector<float>({-1, 0, 0.5, 1, 1.5, 2, 5}),
                MakeVector<float>({0, 2}), Tensor::Scalar<int32_t>(4)})) ==
        std::vector<int32_t>{2, 1, 1, 3});
  CHECK_THAT(RunError(h, {MakeVector<float>({1}), MakeVector<float>({2, 2}),
                          Tensor::Scalar<int32_t>(4)}),
             StatusIs(kInvalid,
                      "value_range should satisfy value_range[0] < "
                      "value_range[1], but got '[2, 2]'"));
  CHECK_THAT(
      RunError(h, {MakeVector<float>({1}), MakeVector<float>({0, 2}),
                   Tensor::Scalar<int32_t>(0)}),
      StatusIs(kInvalid, "nbins should be a positive number, but got '0'"));
}

TEST_CASE("InTopKV2 ties, out-of-range targets and errors", "[counting]") {
  const NodeDef node = TypedNode("k", "InTopKV2", DT_INT32, 3).Build();
  const float inf = std::numeric_limits<float>::infinity();
  Tensor out = RunOne(
      node, {MakeTensor<float>({1, 2, 3, 3, 3, 1, 1, 2, 3, 1, inf, 0},
                               TensorShape({4, 3})),
             MakeVector<int32_t>({1, 1, 7, 0}), Tensor::Scalar<int32_t>(1)});
  const std::vector<bool> want = {false, true, false, false};
  for (int i = 0; i < 4; ++i) CHECK(out.data<bool>()[i] == want[i]);
  CHECK_THAT(
      RunError(node, {Tensor(DT_FLOAT, TensorShape({1, 3})),
                      MakeVector<int32_t>({1, 1}), Tensor::Scalar<int32_t>(1)}),
      StatusIs(kInvalid,
               "First dimension of predictions 1 must match "
               "length of targets 2"));
  CHECK_THAT(
      RunError(node, {Tensor(DT_FLOAT, TensorShape({1, 3})),
                      MakeVector<int32_t>({1}), MakeVector<int32_t>({1})}),
      StatusIs(kInvalid, "k must be 0-D, got shape [1]"));
}

NodeDef RollNode(DataType t) {
  return TypedNode("r", "Roll", t, 3)
      .Attr("Tshift", DT_INT32)
      .Attr("Taxis", DT_INT32)
      .Build();
}

TEST_CASE("Roll over repeated and negative axes", "[counting]") {
  const Tensor in =
      MakeTensor<int32_t>({1, 2, 3, 4, 5, 6}, TensorShape({2, 3}));
  CHECK(Values<int32_t>(RunOne(
            RollNode(DT_INT32),
            {in, Tensor::Scalar<int32_t>(1), Tensor::Scalar<int32_t>(-1)})) ==
        std::vector<int32_t>{3, 1, 2, 6, 4, 5});
  // Shifts on one axis add up: 2 + 2 = 4 = 1 (mod 3); axis 0 by -1.
  CHECK(Values<int32_t>(
            RunOne(RollNode(DT_INT32), {in, MakeVector<int32_t>({2, 2, -1}),
                                        MakeVector<int32_t>({1, 1, 0})})) ==
        std::vector<int32_t>{6, 4, 5, 3, 1, 2});
  CHECK_THAT(RunError(RollNode(DT_INT32), {in, MakeVector<int32_t>({1, 2}),
                                           MakeVector<int32_t>({0})}),
             StatusIs(kInvalid, "shift and axis must have the same size"));
  CHECK_THAT(RunError(RollNode(DT_INT32), {in, Tensor::Scalar<int32_t>(1),
                                           Tensor::Scalar<int32_t>(2)}),
             StatusIs(kInvalid, "axis 2 is out of range"));
  CHECK_THAT(RunError(RollNode(DT_INT32),
                      {Tensor::Scalar<int32_t>(1), Tensor::Scalar<int32_t>(1),
                       Tensor::Scalar<int32_t>(0)}),
             StatusIs(kInvalid, "input must be 1-D or higher"));
}

TEST_CASE("Unique along an axis with counts", "[counting]") {
  const Tensor in =
      MakeTensor<int32_t>({1, 2, 1, 3, 4, 3, 1, 2, 1}, TensorShape({3, 3}));
  auto out = RunKernel(TypedNode("u", "UniqueWithCountsV2", DT_INT32, 2)
                           .Attr("Taxis", DT_INT64)
                           .Attr("out_idx", DT_INT64)
                           .Build(),
                       {in, MakeVector<int64_t>({1})});
  REQUIRE_OK(out);
  // Columns [1,3,1], [2,4,2], [1,3,1]: two unique columns.
  CHECK((*out)[0].shape() == TensorShape({3, 2}));
  CHECK(Values<int32_t>((*out)[0]) == std::vector<int32_t>{1, 2, 3, 4, 1, 2});
  CHECK(Values<int64_t>((*out)[1]) == std::vector<int64_t>{0, 1, 0});
  CHECK(Values<int64_t>((*out)[2]) == std::vector<int64_t>{2, 1});
  auto rows = RunKernel(
      TypedNode("u", "UniqueV2", DT_INT32, 2).Attr("Taxis", DT_INT32).Build(),
      {in, MakeVector<int32_t>({0})});
  REQUIRE_OK(rows);
  CHECK((*rows)[0].shape() == TensorShape({2, 3}));
  CHECK(Values<int32_t>((*rows)[1]) == std::vector<int32_t>{0, 1, 0});
  const float nan = std::numeric_limits<float>::quiet_NaN();
  auto f = RunKernel(TypedNode("u", "UniqueWithCounts", DT_FLOAT, 1).Build(),
                     {MakeVector<float>({0.f, -0.f, nan, nan, 1.f})});
  REQUIRE_OK(f);
  // -0 equals 0; NaN equals nothing.
  CHECK((*f)[0].NumElements() == 4);
  CHECK(Values<int32_t>((*f)[2]) == std::vector<int32_t>{2, 1, 1, 1});
  const NodeDef v2 =
      TypedNode("u", "UniqueV2", DT_INT32, 2).Attr("Taxis", DT_INT32).Build();
  CHECK_THAT(RunError(v2, {in, MakeVector<int32_t>({2})}),
             StatusIs(kInvalid, "axis has to be between [-2, 2)"));
  CHECK_THAT(RunError(v2, {in, Tensor(DT_INT32, TensorShape({0}))}),
             StatusIs(kInvalid, "unique expects a 1D vector."));
  CHECK_THAT(RunError(v2, {in, MakeVector<int32_t>({0, 1})}),
             StatusIs(kInvalid, "axis does not support input tensors larger"));
}

// text_format.MessageToString(op_def_registry.get(name), as_one_line=True)
// of TensorFlow 2.21, double quotes swapped for single ones.
const char* const kTfOpDefs[] = {
    "name: 'Bincount' input_arg { name: 'arr' type: DT_INT32 } "
    "input_arg { name: 'size' type: DT_INT32 } input_arg { name: "
    "'weights' type_attr: 'T' } output_arg { name: 'bins' type_attr: "
    "'T' } attr { name: 'T' type: 'type' allowed_values { list { type: "
    "DT_INT32 type: DT_INT64 type: DT_FLOAT type: DT_DOUBLE } } }",
    "name: 'DenseBincount' input_arg { name: 'input' type_attr: 'Tidx' "
    "} input_arg { name: 'size' type_attr: 'Tidx' } input_arg { name: "
    "'weights' type_attr: 'T' } output_arg { name: 'output' type_attr: "
    "'T' } attr { name: 'Tidx' type: 'type' allowed_values { list { "
    "type: DT_INT32 type: DT_INT64 } } } attr { name: 'T' type: 'type' "
    "allowed_values { list { type: DT_INT32 type: DT_INT64 type: "
    "DT_FLOAT type: DT_DOUBLE } } } attr { name: 'binary_output' type: "
    "'bool' default_value { b: false } }",
    "name: 'Bucketize' input_arg { name: 'input' type_attr: 'T' } "
    "output_arg { name: 'output' type: DT_INT32 } attr { name: 'T' "
    "type: 'type' allowed_values { list { type: DT_INT32 type: DT_INT64"
    " type: DT_FLOAT type: DT_DOUBLE } } } attr { name: 'boundaries' "
    "type: 'list(float)' }",
    "name: 'HistogramFixedWidth' input_arg { name: 'values' type_attr: "
    "'T' } input_arg { name: 'value_range' type_attr: 'T' } input_arg {"
    " name: 'nbins' type: DT_INT32 } output_arg { name: 'out' "
    "type_attr: 'dtype' } attr { name: 'T' type: 'type' allowed_values "
    "{ list { type: DT_INT32 type: DT_INT64 type: DT_FLOAT type: "
    "DT_DOUBLE } } } attr { name: 'dtype' type: 'type' default_value { "
    "type: DT_INT32 } allowed_values { list { type: DT_INT32 type: "
    "DT_INT64 } } }",
    "name: 'InTopKV2' input_arg { name: 'predictions' type: DT_FLOAT } "
    "input_arg { name: 'targets' type_attr: 'T' } input_arg { name: 'k'"
    " type_attr: 'T' } output_arg { name: 'precision' type: DT_BOOL } "
    "attr { name: 'T' type: 'type' default_value { type: DT_INT32 } "
    "allowed_values { list { type: DT_INT32 type: DT_INT64 } } }",
    "name: 'Roll' input_arg { name: 'input' type_attr: 'T' } input_arg "
    "{ name: 'shift' type_attr: 'Tshift' } input_arg { name: 'axis' "
    "type_attr: 'Taxis' } output_arg { name: 'output' type_attr: 'T' } "
    "attr { name: 'T' type: 'type' } attr { name: 'Tshift' type: 'type'"
    " allowed_values { list { type: DT_INT32 type: DT_INT64 } } } attr "
    "{ name: 'Taxis' type: 'type' allowed_values { list { type: "
    "DT_INT32 type: DT_INT64 } } }",
    "name: 'UniqueV2' input_arg { name: 'x' type_attr: 'T' } input_arg "
    "{ name: 'axis' type_attr: 'Taxis' } output_arg { name: 'y' "
    "type_attr: 'T' } output_arg { name: 'idx' type_attr: 'out_idx' } "
    "attr { name: 'T' type: 'type' } attr { name: 'Taxis' type: 'type' "
    "default_value { type: DT_INT64 } allowed_values { list { type: "
    "DT_INT32 type: DT_INT64 } } } attr { name: 'out_idx' type: 'type' "
    "default_value { type: DT_INT32 } allowed_values { list { type: "
    "DT_INT32 type: DT_INT64 } } }",
    "name: 'UniqueWithCounts' input_arg { name: 'x' type_attr: 'T' } "
    "output_arg { name: 'y' type_attr: 'T' } output_arg { name: 'idx' "
    "type_attr: 'out_idx' } output_arg { name: 'count' type_attr: "
    "'out_idx' } attr { name: 'T' type: 'type' } attr { name: 'out_idx'"
    " type: 'type' default_value { type: DT_INT32 } allowed_values { "
    "list { type: DT_INT32 type: DT_INT64 } } }",
    "name: 'UniqueWithCountsV2' input_arg { name: 'x' type_attr: 'T' } "
    "input_arg { name: 'axis' type_attr: 'Taxis' } output_arg { name: "
    "'y' type_attr: 'T' } output_arg { name: 'idx' type_attr: 'out_idx'"
    " } output_arg { name: 'count' type_attr: 'out_idx' } attr { name: "
    "'T' type: 'type' } attr { name: 'Taxis' type: 'type' default_value"
    " { type: DT_INT64 } allowed_values { list { type: DT_INT32 type: "
    "DT_INT64 } } } attr { name: 'out_idx' type: 'type' default_value {"
    " type: DT_INT32 } allowed_values { list { type: DT_INT32 type: "
    "DT_INT64 } } }",
};

TEST_CASE("Counting ops have TensorFlow 2.21's signatures", "[counting]") {
  for (const char* text : kTfOpDefs) {
    OpDef want;
    REQUIRE(google::protobuf::TextFormat::ParseFromString(text, &want));
    INFO(want.name());
    const OpRegistrationData* op = OpRegistry::Global()->LookUp(want.name());
    REQUIRE(op != nullptr);
    std::string diff;
    google::protobuf::util::MessageDifferencer differ;
    differ.ReportDifferencesToString(&diff);
    differ.Compare(want, op->op_def);
    INFO(diff);
    CHECK(diff.empty());
  }
}

}  // namespace
}  // namespace dfx
