// Lookup tables (graph/ops/lookup_ops.cc, kernels/lookup/): signatures equal
// TensorFlow 2.21's byte for byte, and bad arguments fail with TensorFlow's
// codes. Their results across steps of a session are compared with
// TensorFlow's by the "lookup" golden family (gen_lookup.py).
#include <string>
#include <vector>

#include "catch2/catch.hpp"
#include "graph/op_registry.h"
#include "kernels/kernels.h"
#include "proto/op_def.pb.h"
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

TEST_CASE("Every lookup-table op has TensorFlow 2.21's signature and CPU types",
          "[lookup]") {
  testing::CheckSignaturesWithTensorFlow("lookup", 20);
}

Tensor Table(const char* op, DataType key, DataType value) {
  absl::StatusOr<std::vector<Tensor>> out =
      RunKernel(TestNodeBuilder("t", op, 0)
                    .Attr("key_dtype", key)
                    .Attr("value_dtype", value)
                    .Build(),
                {});
  REQUIRE_OK(out);
  return (*out)[0];
}

Tensor Strings(std::vector<std::string> v) {
  Tensor t(DT_STRING, TensorShape({static_cast<int64_t>(v.size())}));
  for (size_t i = 0; i < v.size(); ++i) t.data<std::string>()[i] = v[i];
  return t;
}

NodeDef Find(DataType key, DataType value) {
  return TestNodeBuilder("find", "LookupTableFindV2", 3)
      .Attr("Tin", key)
      .Attr("Tout", value)
      .Build();
}

TEST_CASE("A HashTable finds only once initialized, then is read-only",
          "[lookup]") {
  const Tensor t = Table("HashTableV2", DT_STRING, DT_INT64);
  const Tensor dflt = Tensor::FromVector<int64_t>({-1}, TensorShape());
  CHECK_THAT(
      RunError(Find(DT_STRING, DT_INT64), {t, Strings({"a"}), dflt}),
      StatusIs(StatusCode::kFailedPrecondition, "Table not initialized."));
  NodeDef init = TestNodeBuilder("init", "InitializeTableV2", 3)
                     .Attr("Tkey", DT_STRING)
                     .Attr("Tval", DT_INT64)
                     .Build();
  REQUIRE_OK(
      RunKernel(init, {t, Strings({"a", "b"}), MakeVector<int64_t>({7, 8})}));
  auto found =
      RunKernel(Find(DT_STRING, DT_INT64), {t, Strings({"b", "x", "a"}), dflt});
  REQUIRE_OK(found);
  CHECK(Values<int64_t>((*found)[0]) == std::vector<int64_t>{8, -1, 7});
  // Keys of another dtype than the table's.
  CHECK_THAT(
      RunError(Find(DT_INT64, DT_INT64), {t, MakeVector<int64_t>({1}), dflt}),
      StatusIs(StatusCode::kInvalidArgument, "Signature mismatch"));
  NodeDef insert = TestNodeBuilder("insert", "LookupTableInsertV2", 3)
                       .Attr("Tin", DT_STRING)
                       .Attr("Tout", DT_INT64)
                       .Build();
  CHECK_THAT(RunError(insert, {t, Strings({"c"}), MakeVector<int64_t>({1})}),
             StatusIs(StatusCode::kUnimplemented, "Insert not supported"));
}

TEST_CASE("A MutableHashTable checks value shapes on insert", "[lookup]") {
  const Tensor t = Table("MutableHashTableV2", DT_INT64, DT_FLOAT);
  NodeDef insert = TestNodeBuilder("insert", "LookupTableInsertV2", 3)
                       .Attr("Tin", DT_INT64)
                       .Attr("Tout", DT_FLOAT)
                       .Build();
  CHECK_THAT(RunError(insert,
                      {t, MakeVector<int64_t>({1, 2}), MakeVector<float>({1})}),
             StatusIs(StatusCode::kInvalidArgument,
                      "Expected shape [2] for value, got [1]"));
  REQUIRE_OK(RunKernel(insert, {t, MakeVector<int64_t>({1, 2}),
                                MakeVector<float>({0.5f, 1.5f})}));
  auto found =
      RunKernel(Find(DT_INT64, DT_FLOAT),
                {t, MakeVector<int64_t>({2, 3}), MakeVector<float>({-1, -2})});
  REQUIRE_OK(found);
  CHECK(Values<float>((*found)[0]) == std::vector<float>{1.5f, -2.0f});
}

TEST_CASE("A MutableHashTableOfTensors needs a vector value_shape",
          "[lookup]") {
  auto status = RunKernel(TestNodeBuilder("t", "MutableHashTableOfTensorsV2", 0)
                              .Attr("key_dtype", DT_STRING)
                              .Attr("value_dtype", DT_FLOAT)
                              .Build(),
                          {})
                    .status();
  CHECK_THAT(status, StatusIs(StatusCode::kInvalidArgument,
                              "Default value must be a vector, got shape []"));
}

TEST_CASE("InitializeTableFromTextFileV2 rejects bad attrs and files",
          "[lookup]") {
  const Tensor t = Table("HashTableV2", DT_STRING, DT_INT64);
  auto node = [](const char* delimiter) {
    return TestNodeBuilder("init", "InitializeTableFromTextFileV2", 2)
        .Attr("key_index", -2)
        .Attr("value_index", -1)
        .Attr("delimiter", delimiter)
        .Build();
  };
  const Tensor name = Tensor::FromVector<std::string>(
      {"/nonexistent/vocab.txt"}, TensorShape());
  CHECK_THAT(RunError(node("ab"), {t, name}),
             StatusIs(StatusCode::kInvalidArgument,
                      "delimiter should be only 1 char"));
  CHECK_THAT(RunError(node("\t"), {t, name}), StatusIs(StatusCode::kNotFound));
  CHECK_THAT(RunError(node("\t"), {t, Strings({"a", "b"})}),
             StatusIs(StatusCode::kInvalidArgument,
                      "filename should be a single string"));
  CHECK_THAT(
      RunError(node("\t"),
               {t, Tensor::FromVector<std::string>({""}, TensorShape())}),
      StatusIs(StatusCode::kInvalidArgument, "filename cannot be empty."));
}

}  // namespace
}  // namespace dfx
