// The dhash family's ops (tests/golden/gen_dhash.py: MutableDenseHashTable
// and V2, MutableHashTableOfTensors, InitializeTableFromDataset):
// TensorFlow 2.21's signatures and CPU kernel types, shape functions,
// TensorFlow's messages for bad tables and arguments (the goldens check
// codes), the inputs on which TensorFlow's own kernels crash, and
// concurrent inserts.
#include <cstdint>
#include <string>
#include <thread>
#include <vector>

#include "base/status_macros.h"
#include "catch2/catch.hpp"
#include "graph/node_def_util.h"
#include "graph/op_registry.h"
#include "tests/kernels/kernel_test_util.h"
#include "tests/kernels/math_test_util.h"
#include "tests/testing/status_matchers.h"

namespace dfx {
namespace {

using absl::StatusCode;
using testing::MakeVector;
using testing::RunError;
using testing::RunKernel;
using testing::StatusIs;
using testing::TestNodeBuilder;
using testing::Values;

TEST_CASE("Every dhash op has TensorFlow 2.21's signature and CPU types",
          "[dhash]") {
  testing::CheckSignaturesWithTensorFlow("dhash", 8);
}

absl::StatusOr<PartialShape> Infer(const NodeDef& node_in,
                                   std::vector<PartialShape> inputs) {
  const OpRegistrationData* op = OpRegistry::Global()->LookUp(node_in.op());
  if (op == nullptr) return absl::NotFoundError(node_in.op());
  NodeDef node = node_in;
  AddDefaultAttrs(op->op_def, &node);
  std::vector<const TensorProto*> consts(inputs.size(), nullptr);
  InferenceContext c(node, op->op_def, std::move(inputs), consts,
                     op->op_def.output_arg_size());
  DFX_RETURN_IF_ERROR(op->shape_fn(&c));
  return c.output(0);
}

NodeDef DenseNode(DataType key, DataType value, int64_t buckets = 8,
                  float load = 0.8f, const char* op = "MutableDenseHashTableV2",
                  int inputs = 2) {
  return TestNodeBuilder("dense", op, inputs)
      .Attr("key_dtype", key)
      .Attr("value_dtype", value)
      .Attr("initial_num_buckets", buckets)
      .Attr("max_load_factor", load)
      .Build();
}

Tensor Int64(int64_t v) { return Tensor::Scalar<int64_t>(v); }

// A new int64 -> float dense table (empty key -1, deleted key -2).
Tensor DenseTable(int64_t buckets = 8) {
  absl::StatusOr<std::vector<Tensor>> out =
      RunKernel(DenseNode(DT_INT64, DT_FLOAT, buckets), {Int64(-1), Int64(-2)});
  REQUIRE_OK(out);
  return (*out)[0];
}

NodeDef Op(const char* op, int inputs, DataType key, DataType value) {
  TestNodeBuilder b(op, op, inputs);
  if (std::string(op) == "LookupTableRemoveV2") {
    b.Attr("Tin", key);
  } else if (std::string(op) == "LookupTableExportV2") {
    b.Attr("Tkeys", key).Attr("Tvalues", value);
  } else if (std::string(op) != "LookupTableSizeV2") {
    b.Attr("Tin", key).Attr("Tout", value);
  }
  return b.Build();
}

int64_t Size(const Tensor& t) {
  absl::StatusOr<std::vector<Tensor>> out =
      RunKernel(Op("LookupTableSizeV2", 1, DT_INT64, DT_FLOAT), {t});
  REQUIRE_OK(out);
  return (*out)[0].scalar<int64_t>();
}

TEST_CASE(
    "Dense-table shape functions: a scalar or [2] handle, keys of "
    "rank 1 at most",
    "[dhash]") {
  const NodeDef v2 = DenseNode(DT_INT64, DT_FLOAT);
  auto shape = Infer(v2, {PartialShape::Known({2}), PartialShape::Known({2})});
  REQUIRE_OK(shape);
  CHECK(shape->DebugString() == PartialShape::Scalar().DebugString());
  CHECK_THAT(
      Infer(v2, {PartialShape::Known({1, 1}), PartialShape::Scalar()}).status(),
      StatusIs(StatusCode::kInvalidArgument, "at most rank 1"));
  const NodeDef v1 =
      DenseNode(DT_INT64, DT_FLOAT, 8, 0.8f, "MutableDenseHashTable", 1);
  shape = Infer(v1, {PartialShape::Scalar()});
  REQUIRE_OK(shape);
  CHECK(shape->DebugString() == PartialShape::Known({2}).DebugString());
  const NodeDef init =
      TestNodeBuilder("init", "InitializeTableFromDataset", 2).Build();
  CHECK_THAT(
      Infer(init, {PartialShape::Known({1}), PartialShape::Scalar()}).status(),
      StatusIs(StatusCode::kInvalidArgument));
}

TEST_CASE(
    "A dense table's bad attrs and keys fail with TensorFlow's "
    "messages",
    "[dhash]") {
  auto make = [](int64_t buckets, float load, Tensor empty, Tensor deleted) {
    return RunKernel(DenseNode(DT_INT64, DT_FLOAT, buckets, load),
                     {empty, deleted})
        .status();
  };
  CHECK_THAT(make(12, 0.8f, Int64(-1), Int64(-2)),
             StatusIs(StatusCode::kInvalidArgument,
                      "Number of buckets must be at least 4 and a power of "
                      "2, got: 12"));
  // A value_shape that is not fully defined (a construction error, which
  // names the node; the executor names it for the others).
  TensorShapeProto partial;
  partial.add_dim()->set_size(-1);
  CHECK_THAT(
      RunKernel(TestNodeBuilder("dense", "MutableDenseHashTableV2", 2)
                    .Attr("key_dtype", DT_INT64)
                    .Attr("value_dtype", DT_FLOAT)
                    .Attr("value_shape", partial)
                    .Build(),
                {Int64(-1), Int64(-2)})
          .status(),
      StatusIs(StatusCode::kInvalidArgument,
               "node 'dense' (op MutableDenseHashTableV2): value_shape must "
               "be fully defined"));
  CHECK_THAT(make(8, 1.0f, Int64(-1), Int64(-2)),
             StatusIs(StatusCode::kInvalidArgument,
                      "max_load_factor must be between 0 and 1, got: 1"));
  CHECK_THAT(make(8, 0.8f, Int64(-1), Int64(-1)),
             StatusIs(StatusCode::kInvalidArgument,
                      "Empty and deleted keys cannot be equal"));
  CHECK_THAT(make(8, 0.8f, MakeVector<int64_t>({-1, -1}), Int64(-2)),
             StatusIs(StatusCode::kInvalidArgument,
                      "Empty and deleted keys must have same shape, got "
                      "shapes: [2] and []"));
  CHECK_THAT(RunKernel(DenseNode(DT_INT64, DT_FLOAT, 8, 0.8f,
                                 "MutableDenseHashTable", 1),
                       {Int64(-1)})
                 .status(),
             StatusIs(StatusCode::kInvalidArgument,
                      "Unknown input name: deleted_key"));

  const Tensor t = DenseTable();
  const NodeDef insert = Op("LookupTableInsertV2", 3, DT_INT64, DT_FLOAT);
  CHECK_THAT(RunError(insert, {t, MakeVector<int64_t>({3, -1}),
                               MakeVector<float>({1, 2})}),
             StatusIs(StatusCode::kInvalidArgument,
                      "Using the empty_key as a table key is not allowed"));
  // The keys before the empty key went in, as in TensorFlow.
  CHECK(Size(t) == 1);
  const NodeDef find = Op("LookupTableFindV2", 3, DT_INT64, DT_FLOAT);
  CHECK_THAT(
      RunError(find, {t, MakeVector<int64_t>({-2}), Tensor::Scalar<float>(0)}),
      StatusIs(StatusCode::kInvalidArgument,
               "Using the deleted_key as a table key is not allowed"));
  CHECK_THAT(
      RunError(
          insert,
          {t, Tensor::FromVector<int64_t>({1, 2, 3, 4}, TensorShape({2, 2})),
           Tensor::FromVector<float>({1, 2, 3, 4}, TensorShape({2, 2}))}),
      StatusIs(StatusCode::kInvalidArgument,
               "Expected key shape [2] got [2,2]"));
  CHECK_THAT(RunError(find, {t, MakeVector<int64_t>({1}),
                             MakeVector<float>({0, 0, 0})}),
             StatusIs(StatusCode::kInvalidArgument,
                      "Expected shape [] or [1] for default value, got [3]"));
}

TEST_CASE("What crashes TensorFlow's dense table is InvalidArgument in dfx",
          "[dhash]") {
  const Tensor t = DenseTable();
  // TensorFlow reads dim 0 of a scalar key to remove.
  CHECK_THAT(
      RunError(Op("LookupTableRemoveV2", 2, DT_INT64, DT_FLOAT), {t, Int64(5)}),
      StatusIs(StatusCode::kInvalidArgument, "Expected key shape"));
  // Bucket arrays that are not a [num_buckets, 1] matrix, or no bucket:
  // TensorFlow's matrix<K>() check fails, or it probes an empty array.
  const NodeDef import = Op("LookupTableImportV2", 3, DT_INT64, DT_FLOAT);
  CHECK_THAT(RunError(import, {t, MakeVector<int64_t>({-1, 5}),
                               MakeVector<float>({0})}),
             StatusIs(StatusCode::kInvalidArgument, "[num_buckets, 1]"));
  CHECK_THAT(RunError(import, {t, Tensor(DT_INT64, TensorShape({0, 1})),
                               Tensor(DT_FLOAT, TensorShape({0, 1}))}),
             StatusIs(StatusCode::kInvalidArgument, "num_buckets > 0"));
  // An import of a bucket count that is not a power of two works (as in
  // TensorFlow); the next growth fails.
  REQUIRE_OK(RunKernel(
      import, {t, Tensor::FromVector<int64_t>({-1, -1, 7}, TensorShape({3, 1})),
               Tensor::FromVector<float>({0, 0, 70}, TensorShape({3, 1}))}));
  CHECK(Size(t) == 1);
  auto found =
      RunKernel(Op("LookupTableFindV2", 3, DT_INT64, DT_FLOAT),
                {t, MakeVector<int64_t>({7, 8}), Tensor::Scalar<float>(-1)});
  REQUIRE_OK(found);
  CHECK(Values<float>((*found)[0]) == std::vector<float>{70, -1});
  CHECK_THAT(RunError(Op("LookupTableInsertV2", 3, DT_INT64, DT_FLOAT),
                      {t, MakeVector<int64_t>({1, 2, 3}),
                       MakeVector<float>({1, 2, 3})}),
             StatusIs(StatusCode::kInvalidArgument, "a power of 2, got: 6"));
}

TEST_CASE("Concurrent inserts into one dense table all land", "[dhash]") {
  const Tensor t = DenseTable(4);
  const NodeDef insert = Op("LookupTableInsertV2", 3, DT_INT64, DT_FLOAT);
  constexpr int kThreads = 4;
  constexpr int kPerThread = 50;
  std::vector<absl::Status> statuses(kThreads * kPerThread);
  std::vector<std::thread> threads;
  for (int i = 0; i < kThreads; ++i) {
    threads.emplace_back([&, i] {
      for (int j = 0; j < kPerThread; ++j) {
        const int64_t key = i * kPerThread + j;
        statuses[key] = RunKernel(insert, {t, MakeVector<int64_t>({key}),
                                           MakeVector<float>({1.0f * key})})
                            .status();
      }
    });
  }
  for (std::thread& th : threads) th.join();
  for (const absl::Status& s : statuses) CHECK(s.ok());
  CHECK(Size(t) == kThreads * kPerThread);
  auto found = RunKernel(
      Op("LookupTableFindV2", 3, DT_INT64, DT_FLOAT),
      {t, MakeVector<int64_t>({0, 199, 200}), Tensor::Scalar<float>(-1)});
  REQUIRE_OK(found);
  CHECK(Values<float>((*found)[0]) == std::vector<float>{0, 199, -1});
}

// A TensorSliceDataset of `components`.
Tensor Slices(std::vector<Tensor> components) {
  DataTypeVector types;
  for (const Tensor& c : components) types.push_back(c.dtype());
  absl::StatusOr<std::vector<Tensor>> out =
      RunKernel(TestNodeBuilder("slices", "TensorSliceDataset",
                                static_cast<int>(components.size()))
                    .Attr("Toutput_types", types)
                    .Build(),
                components);
  REQUIRE_OK(out);
  return (*out)[0];
}

TEST_CASE("InitializeTableFromDataset checks the dataset's components",
          "[dhash]") {
  auto table = [] {
    absl::StatusOr<std::vector<Tensor>> out =
        RunKernel(TestNodeBuilder("t", "HashTableV2", 0)
                      .Attr("key_dtype", DT_INT64)
                      .Attr("value_dtype", DT_STRING)
                      .Build(),
                  {});
    REQUIRE_OK(out);
    return (*out)[0];
  };
  const NodeDef init =
      TestNodeBuilder("init", "InitializeTableFromDataset", 2).Build();
  const Tensor strings =
      Tensor::FromVector<std::string>({"a", "b"}, TensorShape({2}));
  // TensorFlow 2.21 aborts on each of these (gen_dhash.py).
  CHECK_THAT(
      RunError(init, {table(), Slices({MakeVector<int32_t>({1, 2}), strings})}),
      StatusIs(StatusCode::kInvalidArgument,
               "Key dtype expected: int64 but obtained: int32 from "
               "the dataset"));
  CHECK_THAT(RunError(init, {table(), Slices({MakeVector<int64_t>({1, 2}),
                                              MakeVector<int64_t>({1, 2})})}),
             StatusIs(StatusCode::kInvalidArgument,
                      "Value dtype expected: string but obtained: int64"));
  CHECK_THAT(RunError(init, {table(), Slices({MakeVector<int64_t>({1, 2}),
                                              strings, strings})}),
             StatusIs(StatusCode::kInvalidArgument,
                      "Dataset should have two output types only"));
  CHECK_THAT(
      RunError(
          init,
          {table(),
           Slices({Tensor::FromVector<int64_t>({1, 2}, TensorShape({1, 2})),
                   Tensor::FromVector<std::string>({"a"}, TensorShape({1}))})}),
      StatusIs(StatusCode::kInvalidArgument,
               "Expected scalar for key. Obtained: [2]"));
  // Into a table that is not a HashTable.
  CHECK_THAT(RunError(init, {DenseTable(), Slices({MakeVector<int64_t>({1}),
                                                   MakeVector<float>({1})})}),
             StatusIs(StatusCode::kInvalidArgument, "is not initializable"));
  const Tensor t = table();
  REQUIRE_OK(
      RunKernel(init, {t, Slices({MakeVector<int64_t>({4, 5}), strings})}));
  auto found =
      RunKernel(Op("LookupTableFindV2", 3, DT_INT64, DT_STRING),
                {t, MakeVector<int64_t>({5, 6}),
                 Tensor::FromVector<std::string>({"?"}, TensorShape())});
  REQUIRE_OK(found);
  CHECK(Values<std::string>((*found)[0]) == std::vector<std::string>{"b", "?"});
}

}  // namespace
}  // namespace dfx
