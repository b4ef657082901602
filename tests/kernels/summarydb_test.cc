// The summarydb family beyond its golden cases (tests/golden/gen_summarydb.py):
// CreateSummaryDbWriter's signature, the database header TensorFlow sets,
// inputs TensorFlow aborts on, the server's --data-dir, one handle holding
// either kind of writer, and concurrent writes into one database.
#include <sqlite3.h>

#include <cstdint>
#include <filesystem>
#include <string>
#include <thread>
#include <vector>

#include "catch2/catch.hpp"
#include "runtime/file_policy.h"
#include "tests/kernels/kernel_test_util.h"
#include "tests/kernels/math_test_util.h"
#include "tests/testing/status_matchers.h"
#include "tests/testing/temp_dir.h"

namespace dfx {
namespace {

namespace fs = std::filesystem;
using testing::MakeTensor;
using testing::RunKernel;
using testing::RunOne;
using testing::StatusIs;
using testing::TestNodeBuilder;

Tensor Str(const std::string& v) {
  Tensor t(DT_STRING, TensorShape({}));
  t.scalar<std::string>() = v;
  return t;
}

Tensor Handle(const char* name) {
  return RunOne(TestNodeBuilder("w", "SummaryWriter", 0)
                    .Attr("shared_name", name)
                    .Build(),
                {});
}

absl::Status Create(const Tensor& writer, const Tensor& uri,
                    const std::string& run = "run") {
  return RunKernel(TestNodeBuilder("c", "CreateSummaryDbWriter", 5).Build(),
                   {writer, uri, Str("exp"), Str(run), Str("user")})
      .status();
}

absl::Status WriteScalar(const Tensor& writer, int64_t step,
                         const std::string& tag, float value) {
  return RunKernel(TestNodeBuilder("s", "WriteScalarSummary", 4)
                       .Attr("T", DT_FLOAT)
                       .Build(),
                   {writer, MakeTensor<int64_t>({step}, TensorShape({})),
                    Str(tag), MakeTensor<float>({value}, TensorShape({}))})
      .status();
}

absl::Status Close(const Tensor& writer) {
  return RunKernel(TestNodeBuilder("x", "CloseSummaryWriter", 1).Build(),
                   {writer})
      .status();
}

// The integer the one-row, one-column `sql` returns in database `path`;
// -1 when the query fails.
int64_t QueryInt(const fs::path& path, const char* sql) {
  sqlite3* db = nullptr;
  int64_t result = -1;
  if (sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READONLY, nullptr) ==
      SQLITE_OK) {
    sqlite3_stmt* stmt = nullptr;
    if (sqlite3_prepare_v2(db, sql, -1, &stmt, nullptr) == SQLITE_OK &&
        sqlite3_step(stmt) == SQLITE_ROW) {
      result = sqlite3_column_int64(stmt, 0);
    }
    sqlite3_finalize(stmt);
  }
  sqlite3_close(db);
  return result;
}

TEST_CASE("CreateSummaryDbWriter has TensorFlow 2.21's signature",
          "[summarydb]") {
  testing::CheckSignaturesWithTensorFlow("summarydb", 1);
}

TEST_CASE("The database has TensorFlow's header and tables", "[summarydb]") {
  const testing::TempDir tmp;
  const fs::path db = fs::path(tmp.path()) / "h.db";
  const Tensor w = Handle("header_test");
  REQUIRE_OK(Create(w, Str(db.string())));
  REQUIRE_OK(WriteScalar(w, 1, "a", 1.0f));
  REQUIRE_OK(Close(w));
  // TensorFlow's 0xfeedabee does not fit SQLite's 32-bit pragma: 0.
  CHECK(QueryInt(db, "PRAGMA application_id") == 0);
  CHECK(QueryInt(db, "PRAGMA user_version") == 0);
  CHECK(QueryInt(db, "PRAGMA page_size") == 4096);
  CHECK(
      QueryInt(db, "SELECT count(*) FROM sqlite_master WHERE type = 'table'") ==
      11);
  CHECK(
      QueryInt(db, "SELECT count(*) FROM sqlite_master WHERE type = 'index'") ==
      16);
  // One write, 999 reserved rows of which TensorFlow's cleanup deletes 499.
  CHECK(QueryInt(db, "SELECT count(*) FROM Tensors") == 501);
  CHECK(QueryInt(db,
                 "SELECT count(*) FROM Runs WHERE finished_time IS NOT "
                 "NULL") == 1);
}

TEST_CASE("Inputs TensorFlow aborts on are InvalidArgument", "[summarydb]") {
  const testing::TempDir tmp;
  const Tensor w = Handle("abort_test");
  const Tensor two = MakeTensor<std::string>(
      {(fs::path(tmp.path()) / "a.db").string(), "b"}, TensorShape({2}));
  CHECK_THAT(Create(w, two), StatusIs(absl::StatusCode::kInvalidArgument,
                                      "db_uri must be a scalar"));
  CHECK_THAT(
      RunKernel(TestNodeBuilder("c", "CreateSummaryDbWriter", 5).Build(),
                {w, Str((fs::path(tmp.path()) / "a.db").string()), Str("e"),
                 MakeTensor<std::string>({"r"}, TensorShape({1})), Str("u")})
          .status(),
      StatusIs(absl::StatusCode::kInvalidArgument, "run_name"));
  CHECK(!fs::exists(fs::path(tmp.path()) / "a.db"));
  // No writer was made.
  CHECK_THAT(WriteScalar(w, 1, "t", 1.0f),
             StatusIs(absl::StatusCode::kNotFound));
}

TEST_CASE("A server's --data-dir confines the database", "[summarydb]") {
  const testing::TempDir tmp;
  const fs::path data = fs::path(tmp.path()) / "data_dir";
  fs::create_directories(data);
  fs::create_symlink(tmp.path(), data / "up");
  REQUIRE_OK(SetDataDir(data.string()));
  const Tensor w = Handle("confined_db");
  const absl::Status outside =
      Create(w, Str((fs::path(tmp.path()) / "out.db").string()));
  const absl::Status via_link = Create(w, Str("up/link.db"));
  const absl::Status uri = Create(w, Str("file:uri.db?mode=memory"));
  absl::Status inside = absl::OkStatus();
  if (uri.ok()) inside = Close(w);
  if (inside.ok()) inside = Create(w, Str("runs/../in.db"));
  if (inside.ok()) inside = WriteScalar(w, 3, "t", 2.0f);
  REQUIRE_OK(SetDataDir(""));
  CHECK_THAT(outside, StatusIs(absl::StatusCode::kPermissionDenied));
  CHECK_THAT(via_link, StatusIs(absl::StatusCode::kPermissionDenied));
  CHECK(!fs::exists(fs::path(tmp.path()) / "out.db"));
  CHECK(!fs::exists(fs::path(tmp.path()) / "link.db"));
  // Under a data directory a "file:" name is a file name, not a URI.
  REQUIRE_OK(uri);
  CHECK(fs::exists(data / "file:uri.db?mode=memory"));
  REQUIRE_OK(inside);
  REQUIRE_OK(Close(w));
  CHECK(QueryInt(data / "in.db",
                 "SELECT step FROM Tensors WHERE step IS "
                 "NOT NULL") == 3);
}

TEST_CASE("A handle keeps the first writer it was given, of either kind",
          "[summarydb]") {
  const testing::TempDir tmp;
  const fs::path db = fs::path(tmp.path()) / "k.db";
  const Tensor w = Handle("kinds_test");
  REQUIRE_OK(Create(w, Str(db.string())));
  REQUIRE_OK(
      RunKernel(TestNodeBuilder("c", "CreateSummaryFileWriter", 5).Build(),
                {w, Str((fs::path(tmp.path()) / "logs").string()),
                 MakeTensor<int32_t>({10}, TensorShape({})),
                 MakeTensor<int32_t>({1000}, TensorShape({})), Str("")})
          .status());
  REQUIRE_OK(WriteScalar(w, 1, "t", 1.0f));
  REQUIRE_OK(
      RunKernel(TestNodeBuilder("f", "FlushSummaryWriter", 1).Build(), {w})
          .status());
  REQUIRE_OK(Close(w));
  CHECK(!fs::exists(fs::path(tmp.path()) / "logs"));
  CHECK(QueryInt(db, "SELECT count(*) FROM Tensors WHERE step = 1") == 1);
}

TEST_CASE("Concurrent writes into one writer all land", "[summarydb]") {
  const testing::TempDir tmp;
  const fs::path db = fs::path(tmp.path()) / "c.db";
  const Tensor w = Handle("concurrent_test");
  REQUIRE_OK(Create(w, Str(db.string())));
  constexpr int kThreads = 4;
  constexpr int kSteps = 25;
  std::vector<absl::Status> statuses(kThreads * kSteps);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < kSteps; ++i) {
        statuses[t * kSteps + i] = WriteScalar(
            w, i, "tag" + std::to_string(t % 2), static_cast<float>(t));
      }
    });
  }
  for (std::thread& t : threads) t.join();
  for (const absl::Status& s : statuses) REQUIRE_OK(s);
  REQUIRE_OK(Close(w));
  // Two tags, each written at 25 steps by two threads: a step written
  // twice keeps one row.
  CHECK(QueryInt(db, "SELECT count(*) FROM Tensors WHERE step IS NOT NULL") ==
        2 * kSteps);
  CHECK(QueryInt(db, "SELECT count(*) FROM Tags") == 2);
  // Ids: the user, experiment, run and two tags.
  CHECK(QueryInt(db, "SELECT count(*) FROM Ids") == 5);
}

}  // namespace
}  // namespace dfx
