// The readers2 family (graph/ops/readers2_ops.cc, kernels/data/
// readers2_kernels.cc): TensorFlow 2.21's signatures, the shape checks a
// graph meets at import, and what the golden cases (tests/golden/
// gen_readers2.py) cannot show: SqlDataset runs only read-only queries
// (nothing a hostile query asks writes a file or reaches another one), its
// database stays inside the server's --data-dir, a missing database is not
// created, and a running query stops when its step is cancelled.
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "base/status_macros.h"
#include "catch2/catch.hpp"
#include "kernels/data/dataset.h"
#include "runtime/cancellation.h"
#include "runtime/file_policy.h"
#include "tests/kernels/kernel_test_util.h"
#include "tests/kernels/shape_fn_test_util.h"
#include "tests/testing/status_matchers.h"
#include "tests/testing/temp_dir.h"

namespace dfx {
namespace {

using testing::RunKernel;
using testing::StatusIs;
using testing::TestNodeBuilder;

NodeDef SqlNode(const DataTypeVector& types) {
  NodeDef node = TestNodeBuilder("sql", "SqlDataset", 3)
                     .Attr("output_types", types)
                     .Build();
  auto* shapes = (*node.mutable_attr())["output_shapes"].mutable_list();
  for (size_t i = 0; i < types.size(); ++i) shapes->add_shape();
  return node;
}

// The dataset SqlDataset makes of `path` and `query`.
absl::StatusOr<data::DatasetPtr> Sql(const std::string& path,
                                     const std::string& query,
                                     const DataTypeVector& types = {DT_INT64}) {
  DFX_ASSIGN_OR_RETURN(
      std::vector<Tensor> out,
      RunKernel(SqlNode(types), {Tensor::Scalar<std::string>("sqlite"),
                                 Tensor::Scalar<std::string>(path),
                                 Tensor::Scalar<std::string>(query)}));
  return data::DatasetFromTensor(out[0], "sql");
}

// Every row of the query (or its first error), column 0 as int64.
absl::StatusOr<std::vector<int64_t>> Rows(const std::string& path,
                                          const std::string& query,
                                          CancellationManager* cm = nullptr) {
  DFX_ASSIGN_OR_RETURN(data::DatasetPtr d, Sql(path, query));
  data::IteratorContext ctx;
  ctx.cancellation_manager = cm;
  DFX_ASSIGN_OR_RETURN(std::unique_ptr<data::IteratorBase> it,
                       d->MakeIterator(&ctx));
  std::vector<int64_t> rows;
  while (true) {
    std::vector<Tensor> element;
    bool end = false;
    DFX_RETURN_IF_ERROR(it->GetNext(&ctx, &element, &end));
    if (end) return rows;
    rows.push_back(element[0].data<int64_t>()[0]);
  }
}

std::string ReadAll(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

// A copy of the golden cases' database (table t: i = 1, -300, 2^40 + 5,
// NULL, -2^63) in `dir`.
std::string CopyDatabase(const testing::TempDir& dir) {
  const std::string from = std::string(DFX_TEST_DATA_DIR) +
                           "/../golden/data/readers2/columns_as_int64/"
                           "x.sqlite";
  const std::string to = dir.File("x.sqlite");
  std::filesystem::copy_file(from, to);
  return to;
}

TEST_CASE("Every readers2 op has TensorFlow 2.21's signature and CPU types",
          "[readers2]") {
  testing::CheckSignaturesWithTensorFlow("readers2", 5);
}

TEST_CASE("SqlDataset's driver, source and query are scalars", "[readers2]") {
  const NodeDef node = SqlNode({DT_INT64});
  const PartialShape scalar = PartialShape::Scalar();
  const PartialShape vector = PartialShape::Known({1});
  absl::StatusOr<PartialShape> ok =
      testing::InferShape(node, {scalar, scalar, scalar});
  REQUIRE(ok.ok());
  CHECK(ok->rank() == 0);
  for (int i = 0; i < 3; ++i) {
    std::vector<PartialShape> in(3, scalar);
    in[i] = vector;
    CHECK_THAT(testing::InferShape(node, in).status(),
               StatusIs(absl::StatusCode::kInvalidArgument));
  }
  // A vector fed where the shapes were unknown: the kernel refuses it.
  CHECK_THAT(RunKernel(node, {Tensor::FromVector<std::string>({"sqlite"}),
                              Tensor::Scalar<std::string>("x"),
                              Tensor::Scalar<std::string>("SELECT 1")})
                 .status(),
             StatusIs(absl::StatusCode::kInvalidArgument));
}

TEST_CASE("SqlDataset reads rows and refuses every query that writes",
          "[readers2]") {
  const testing::TempDir tmp;
  const std::string db = CopyDatabase(tmp);
  const std::string before = ReadAll(db);
  absl::StatusOr<std::vector<int64_t>> rows =
      Rows(db, "SELECT i FROM t WHERE i IS NOT NULL ORDER BY i");
  REQUIRE(rows.ok());
  CHECK(*rows == std::vector<int64_t>{INT64_MIN, -300, 1, (1LL << 40) + 5});

  const std::string other = tmp.File("other.sqlite");
  const std::string hostile[] = {
      "INSERT INTO t(i) VALUES (9) RETURNING i",
      "UPDATE t SET i = 0 RETURNING i",
      "DELETE FROM t RETURNING i",
      "ATTACH DATABASE '" + other + "' AS o",
      "PRAGMA journal_mode = DELETE",
      "PRAGMA table_info(t)",
      "VACUUM INTO '" + other + "'",
      "CREATE TABLE u AS SELECT 1",
      "BEGIN IMMEDIATE",
      "WITH x AS (SELECT 1) INSERT INTO t(i) SELECT * FROM x RETURNING i",
  };
  for (const std::string& query : hostile) {
    INFO(query);
    CHECK_THAT(Rows(db, query).status(),
               StatusIs(absl::StatusCode::kPermissionDenied));
  }
  CHECK(ReadAll(db) == before);
  CHECK(!std::filesystem::exists(other));
  // load_extension is disabled (Unknown "not authorized", as TensorFlow).
  CHECK_THAT(Rows(db, "SELECT load_extension('libm.so.6')").status(),
             StatusIs(absl::StatusCode::kUnknown, "not authorized"));
}

TEST_CASE("SqlDataset does not create a missing database", "[readers2]") {
  const testing::TempDir tmp;
  const std::string missing = tmp.File("missing.sqlite");
  absl::StatusOr<std::vector<int64_t>> rows = Rows(missing, "SELECT 7");
  REQUIRE(rows.ok());
  CHECK(*rows == std::vector<int64_t>{7});
  CHECK_THAT(Rows(missing, "SELECT i FROM t").status(),
             StatusIs(absl::StatusCode::kUnknown, "no such table: t"));
  CHECK_THAT(Rows(missing, "CREATE TABLE t(i) ").status(),
             StatusIs(absl::StatusCode::kPermissionDenied));
  CHECK(!std::filesystem::exists(missing));
  // In a directory that does not exist TensorFlow cannot create it either.
  CHECK_THAT(Rows(tmp.File("no/such/dir/x.sqlite"), "SELECT 7").status(),
             StatusIs(absl::StatusCode::kInvalidArgument,
                      "unable to open database file"));
}

TEST_CASE("A SqlDataset value is at most 256 MiB", "[readers2]") {
  const testing::TempDir tmp;
  const std::string db = CopyDatabase(tmp);
  absl::StatusOr<std::vector<int64_t>> small =
      Rows(db, "SELECT length(zeroblob(1000))");
  REQUIRE(small.ok());
  CHECK(*small == std::vector<int64_t>{1000});
  CHECK_THAT(Rows(db, "SELECT length(zeroblob(300000000))").status(),
             StatusIs(absl::StatusCode::kResourceExhausted, "too big"));
}

TEST_CASE("SqlDataset's database stays inside the server's --data-dir",
          "[readers2]") {
  const testing::TempDir data_tmp;
  const testing::TempDir outside_tmp;
  CopyDatabase(data_tmp);
  const std::string outside = CopyDatabase(outside_tmp);
  REQUIRE(SetDataDir(data_tmp.path()).ok());
  absl::StatusOr<std::vector<int64_t>> inside =
      Rows("x.sqlite", "SELECT count(*) FROM t");
  const absl::Status out = Sql(outside, "SELECT count(*) FROM t").status();
  const absl::Status up =
      Sql("../" +
              std::filesystem::path(outside_tmp.path()).filename().string() +
              "/x.sqlite",
          "SELECT 1")
          .status();
  REQUIRE(SetDataDir("").ok());
  REQUIRE(inside.ok());
  CHECK(*inside == std::vector<int64_t>{5});
  CHECK_THAT(out, StatusIs(absl::StatusCode::kPermissionDenied));
  CHECK_THAT(up, StatusIs(absl::StatusCode::kPermissionDenied));
}

TEST_CASE("A SqlDataset query stops when its step is cancelled", "[readers2]") {
  const testing::TempDir tmp;
  const std::string db = CopyDatabase(tmp);
  // Without cancellation this aggregate over an endless recursion never
  // returns a row.
  const std::string endless =
      "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) "
      "SELECT count(*) FROM c";
  {
    CancellationManager cm;
    cm.StartCancel();
    CHECK_THAT(Rows(db, endless, &cm).status(),
               StatusIs(absl::StatusCode::kCancelled));
  }
  // Cancelled from another thread, before or while the query runs.
  CancellationManager cm;
  std::thread canceller([&cm] { cm.StartCancel(); });
  const absl::Status s = Rows(db, endless, &cm).status();
  canceller.join();
  CHECK_THAT(s, StatusIs(absl::StatusCode::kCancelled));
}

TEST_CASE("SqlDataset's restore refuses a negative row count", "[readers2]") {
  const testing::TempDir tmp;
  const std::string db = CopyDatabase(tmp);
  absl::StatusOr<data::DatasetPtr> d = Sql(db, "SELECT i FROM t");
  REQUIRE(d.ok());
  data::IteratorContext ctx;
  absl::StatusOr<std::unique_ptr<data::IteratorBase>> it =
      (*d)->MakeIterator(&ctx);
  REQUIRE(it.ok());
  data::IteratorState state;
  state.WriteInt("p", "next_calls", -1);
  CHECK_THAT((*it)->Restore(&ctx, "p", state),
             StatusIs(absl::StatusCode::kInvalidArgument, "next_calls"));
}

TEST_CASE("The LMDB ops answer Unimplemented, as TensorFlow 2.21's",
          "[readers2]") {
  NodeDef node = TestNodeBuilder("lmdb", "LMDBDataset", 1)
                     .Attr("output_types", DataTypeVector{DT_STRING, DT_STRING})
                     .Build();
  auto* shapes = (*node.mutable_attr())["output_shapes"].mutable_list();
  shapes->add_shape();
  shapes->add_shape();
  CHECK_THAT(
      RunKernel(node, {Tensor::FromVector<std::string>({"a.mdb"})}).status(),
      StatusIs(absl::StatusCode::kUnimplemented, "LMDB support is removed"));
  CHECK_THAT(RunKernel(TestNodeBuilder("reader", "LMDBReader", 0).Build(), {})
                 .status(),
             StatusIs(absl::StatusCode::kUnimplemented));
}

}  // namespace
}  // namespace dfx
