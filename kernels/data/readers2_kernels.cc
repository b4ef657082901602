// Kernels of the readers2 family (graph/ops/readers2_ops.cc).
//
// SqlDataset and ExperimentalSqlDataset: one element per row of a SQLite
// query, each column converted to its output dtype as TensorFlow's
// SqliteQueryConnection converts it (SQLite's own conversions: integers
// through sqlite3_column_int64 and a C++ cast, so they wrap; bool is that
// integer != 0; double through sqlite3_column_double; strings are the
// column's bytes, NULL giving "" and 0). The query runs when the first
// element is asked for, and its errors carry TensorFlow's codes and texts
// ("Prepare() failed: [1] no such table: t: <query>", the SQLite result
// code mapped as TensorFlow's sqlite.cc maps it).
//
// A graph's query is not trusted. The database file is confined to the
// server's --data-dir (runtime/file_policy.h) and opened read-only, never
// as a URI; an authorizer lets a statement only read (SELECT, recursive
// CTEs, functions): INSERT, UPDATE, DELETE, CREATE, PRAGMA, ATTACH,
// DETACH, VACUUM (INTO) and transactions are PermissionDenied when the
// query is prepared. No database can be attached, extensions cannot be
// loaded (load_extension fails as in TensorFlow), the schema is not
// trusted (SQLITE_DBCONFIG_TRUSTED_SCHEMA off, defensive mode on), a value
// is at most 256 MiB, and a step that runs long stops with Cancelled when
// the asking step is cancelled. Where TensorFlow differs: a missing file is
// not created (TensorFlow opens it read-write and creates an empty
// database): dfx queries an empty in-memory database instead, which gives
// TensorFlow's results ("no such table", or rows of a query that reads no
// table) without writing anything.
//
// Save/Restore as TensorFlow's: the number of GetNext calls made since the
// query started; a restore runs the query again and skips that many rows.
//
// LMDBDataset, ExperimentalLMDBDataset and LMDBReader: TensorFlow 2.21's
// kernels only answer Unimplemented ("LMDB support is removed from
// TensorFlow"), and so do dfx's.
#include <sqlite3.h>
#include <sys/stat.h>

#include <cerrno>
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "graph/node_def_util.h"
#include "kernels/data/dataset.h"
#include "kernels/kernels.h"
#include "kernels/sqlite_util.h"
#include "runtime/cancellation.h"
#include "runtime/file_policy.h"
#include "runtime/memory_limit.h"

namespace dfx::data {
namespace {

// The largest string or blob a query may make (SQLITE_LIMIT_LENGTH).
constexpr int kMaxValueBytes = 256 << 20;
// SQLite virtual machine instructions between cancellation checks.
constexpr int kProgressInterval = 10000;

bool IsSqlOutputType(DataType t) {
  switch (t) {
    case DT_STRING:
    case DT_INT8:
    case DT_INT16:
    case DT_INT32:
    case DT_INT64:
    case DT_UINT8:
    case DT_UINT16:
    case DT_BOOL:
    case DT_DOUBLE:
      return true;
    default:
      return false;
  }
}

// One open query: the database and the prepared statement. Not
// thread-safe (an iterator's calls are serialized).
class SqlQuery {
 public:
  ~SqlQuery() {
    if (stmt_ != nullptr) sqlite3_finalize(stmt_);
    if (db_ != nullptr) sqlite3_close(db_);
  }

  // Opens `path` (resolved; `shown` is the name errors give) read-only.
  absl::Status Open(const std::string& path, const std::string& shown) {
    struct stat st;
    bool missing = stat(path.c_str(), &st) != 0 && errno == ENOENT;
    if (missing) {
      // TensorFlow could not create the file either: SQLite's CANTOPEN.
      const size_t slash = path.rfind('/');
      const std::string dir =
          slash == std::string::npos ? "." : path.substr(0, slash + 1);
      if (stat(dir.c_str(), &st) != 0) {
        return absl::InvalidArgumentError(
            absl::StrCat("Sqlite::Open(", shown,
                         ") failed: ", sqlite3_errstr(SQLITE_CANTOPEN)));
      }
    }
    // A relative name never reads as a URI, whatever SQLite's defaults.
    const std::string name =
        missing ? std::string(":memory:")
                : (!path.empty() && path[0] != '/' ? "./" + path : path);
    // Under a data directory the path has no symlinks left
    // (ResolveDataPath resolved them): one made since does not open.
    int flags = (missing ? SQLITE_OPEN_READWRITE : SQLITE_OPEN_READONLY) |
                SQLITE_OPEN_PRIVATECACHE;
    if (!DataDir().empty()) flags |= SQLITE_OPEN_NOFOLLOW;
    int rc = sqlite3_open_v2(name.c_str(), &db_, flags, nullptr);
    if (rc != SQLITE_OK) {
      return absl::Status(SqliteStatusCode(rc),
                          absl::StrCat("Sqlite::Open(", shown,
                                       ") failed: ", sqlite3_errstr(rc)));
    }
    sqlite3_extended_result_codes(db_, 1);
    HardenSqliteConnection(db_);
    sqlite3_limit(db_, SQLITE_LIMIT_LENGTH, kMaxValueBytes);
    sqlite3_set_authorizer(db_, &SqlQuery::AuthorizeReadOnly, this);
    sqlite3_progress_handler(db_, kProgressInterval, &SqlQuery::Progress, this);
    return absl::OkStatus();
  }

  // Prepares the first statement of `query` (TensorFlow ignores the rest)
  // and checks its column count.
  absl::Status Prepare(const std::string& query, size_t num_outputs) {
    query_ = query;
    int rc = sqlite3_prepare_v2(
        db_, query.data(), static_cast<int>(query.size()), &stmt_, nullptr);
    if (rc != SQLITE_OK) {
      stmt_ = nullptr;
      std::string msg = absl::StrCat("Prepare() failed: [", rc, "] ",
                                     sqlite3_errmsg(db_), ": ", query);
      // (SQLite reports some refusals as other errors: SQLITE_SCHEMA for
      // CREATE TABLE ... AS SELECT.)
      if (denied_ || (rc & 0xff) == SQLITE_AUTH) {
        return absl::PermissionDeniedError(
            absl::StrCat(msg, " (SqlDataset runs read-only queries only)"));
      }
      return absl::Status(SqliteStatusCode(rc), msg);
    }
    if (!sqlite3_stmt_readonly(stmt_)) {
      sqlite3_finalize(stmt_);
      stmt_ = nullptr;
      return absl::PermissionDeniedError(
          absl::StrCat("SqlDataset runs read-only queries only: ", query));
    }
    const int columns = sqlite3_column_count(stmt_);
    if (columns != static_cast<int>(num_outputs)) {
      sqlite3_finalize(stmt_);
      stmt_ = nullptr;
      return absl::InvalidArgumentError(
          absl::StrCat("The number of columns in query (", columns,
                       ") must match the number of elements in output_types (",
                       num_outputs, ")."));
    }
    return absl::OkStatus();
  }

  bool prepared() const { return stmt_ != nullptr; }

  // The next row into `out` (one scalar per column), or `*end`.
  absl::Status Step(CancellationManager* cm, const DataTypeVector& types,
                    std::vector<Tensor>* out, bool* end) {
    cm_ = cm;
    const int rc = sqlite3_step(stmt_);
    cm_ = nullptr;
    if (rc == SQLITE_DONE) {
      *end = true;
      return absl::OkStatus();
    }
    if (rc != SQLITE_ROW) {
      *end = true;
      return absl::Status(SqliteStatusCode(rc),
                          absl::StrCat("Step() failed: [", rc, "] ",
                                       sqlite3_errmsg(db_), ": ", query_));
    }
    *end = false;
    out->clear();
    for (int i = 0; i < static_cast<int>(types.size()); ++i) {
      DFX_ASSIGN_OR_RETURN(Tensor t, Column(i, types[i]));
      out->push_back(std::move(t));
    }
    return absl::OkStatus();
  }

 private:
  // Lets a statement read and nothing else.
  static int AuthorizeReadOnly(void* self, int action, const char*, const char*,
                               const char*, const char*) {
    switch (action) {
      case SQLITE_SELECT:
      case SQLITE_READ:
      case SQLITE_FUNCTION:
      case SQLITE_RECURSIVE:
        return SQLITE_OK;
      default:
        static_cast<SqlQuery*>(self)->denied_ = true;
        return SQLITE_DENY;
    }
  }

  static int Progress(void* self) {
    CancellationManager* cm = static_cast<SqlQuery*>(self)->cm_;
    return cm != nullptr && cm->IsCancelled() ? 1 : 0;
  }

  absl::StatusOr<Tensor> Column(int i, DataType dtype) {
    switch (dtype) {
      case DT_STRING: {
        const void* data = sqlite3_column_blob(stmt_, i);
        const int size = sqlite3_column_bytes(stmt_, i);
        DFX_RETURN_IF_ERROR(
            CheckHostMemoryHeadroom(size, "a SqlDataset column value"));
        return Tensor::Scalar<std::string>(
            data == nullptr ? std::string()
                            : std::string(static_cast<const char*>(data),
                                          static_cast<size_t>(size)));
      }
      case DT_DOUBLE:
        return Tensor::Scalar<double>(sqlite3_column_double(stmt_, i));
      case DT_BOOL:
        return Tensor::Scalar<bool>(sqlite3_column_int64(stmt_, i) != 0);
      default:
        break;
    }
    const int64_t v = sqlite3_column_int64(stmt_, i);
    switch (dtype) {
      case DT_INT8:
        return Tensor::Scalar<int8_t>(static_cast<int8_t>(v));
      case DT_INT16:
        return Tensor::Scalar<int16_t>(static_cast<int16_t>(v));
      case DT_INT32:
        return Tensor::Scalar<int32_t>(static_cast<int32_t>(v));
      case DT_INT64:
        return Tensor::Scalar<int64_t>(v);
      case DT_UINT8:
        return Tensor::Scalar<uint8_t>(static_cast<uint8_t>(v));
      case DT_UINT16:
        return Tensor::Scalar<uint16_t>(static_cast<uint16_t>(v));
      default:
        return absl::InternalError(
            absl::StrCat("SqlDataset cannot produce ", DataTypeString(dtype)));
    }
  }

  sqlite3* db_ = nullptr;
  sqlite3_stmt* stmt_ = nullptr;
  std::string query_;
  CancellationManager* cm_ = nullptr;  // during Step only
  bool denied_ = false;                // the authorizer refused an action
};

class SqlDataset final : public DatasetBase {
 public:
  SqlDataset(DataTypeVector types, std::string path, std::string shown,
             std::string query)
      : DatasetBase(std::move(types)),
        path_(std::move(path)),
        shown_(std::move(shown)),
        query_(std::move(query)) {}

  std::string DebugString() const override { return "SqlDataset"; }
  absl::StatusOr<std::unique_ptr<IteratorBase>> MakeIterator(
      IteratorContext*) const override {
    return std::unique_ptr<IteratorBase>(new Iterator(Self<SqlDataset>()));
  }

 private:
  class Iterator final : public IteratorBase {
   public:
    explicit Iterator(std::shared_ptr<const SqlDataset> d) : d_(std::move(d)) {}

    absl::Status GetNext(IteratorContext* ctx, std::vector<Tensor>* out,
                         bool* end) override {
      if (query_ == nullptr) DFX_RETURN_IF_ERROR(Start());
      if (!end_) {
        ++next_calls_;
        DFX_RETURN_IF_ERROR(Next(ctx, out));
      }
      *end = end_;
      if (end_) out->clear();
      return absl::OkStatus();
    }

    absl::Status Save(const std::string& prefix,
                      IteratorState* state) override {
      if (query_ != nullptr) state->WriteInt(prefix, "next_calls", next_calls_);
      return absl::OkStatus();
    }

    absl::Status Restore(IteratorContext* ctx, const std::string& prefix,
                         const IteratorState& state) override {
      query_.reset();
      end_ = false;
      next_calls_ = 0;
      if (!state.Contains(prefix, "next_calls")) return absl::OkStatus();
      DFX_ASSIGN_OR_RETURN(int64_t calls, state.ReadInt(prefix, "next_calls"));
      if (calls < 0) {
        return absl::InvalidArgumentError(absl::StrCat(
            "SqlDataset state ", prefix, "/next_calls is negative: ", calls));
      }
      DFX_RETURN_IF_ERROR(Start());
      next_calls_ = calls;
      std::vector<Tensor> skipped;
      for (int64_t i = 0; i < calls && !end_; ++i) {
        DFX_RETURN_IF_ERROR(Next(ctx, &skipped));
      }
      return absl::OkStatus();
    }

   private:
    // Opens the database, as TensorFlow's first GetNext: a failed open
    // leaves the query started, so the next call prepares it again.
    absl::Status Start() {
      end_ = false;
      next_calls_ = 0;
      query_ = std::make_unique<SqlQuery>();
      absl::Status s = query_->Open(d_->path_, d_->shown_);
      if (!s.ok()) query_.reset();
      return s;
    }

    absl::Status Next(IteratorContext* ctx, std::vector<Tensor>* out) {
      if (!query_->prepared()) {
        DFX_RETURN_IF_ERROR(
            query_->Prepare(d_->query_, d_->output_dtypes().size()));
      }
      return query_->Step(ctx->cancellation_manager, d_->output_dtypes(), out,
                          &end_);
    }

    const std::shared_ptr<const SqlDataset> d_;
    std::unique_ptr<SqlQuery> query_;
    bool end_ = false;
    int64_t next_calls_ = 0;
  };

  const std::string path_;
  const std::string shown_;
  const std::string query_;
};

class SqlDatasetOp : public DatasetOpKernel {
 public:
  explicit SqlDatasetOp(OpKernelConstruction* c) : DatasetOpKernel(c) {
    if (!c->status().ok()) return;
    for (DataType t : output_types()) {
      if (!IsSqlOutputType(t)) {
        c->SetStatus(absl::InvalidArgumentError(
            "Each element of `output_types_` must be one of: DT_STRING, "
            "DT_INT8, DT_INT16, DT_INT32, DT_INT64, DT_UINT8, DT_UINT16, "
            "DT_BOOL, DT_DOUBLE "));
        return;
      }
    }
    const AttrValue* shapes = FindNodeAttr(c->def(), "output_shapes");
    if (shapes == nullptr) return;
    for (const TensorShapeProto& s : shapes->list().shape()) {
      if (s.unknown_rank() || s.dim_size() != 0) {
        c->SetStatus(absl::InvalidArgumentError(
            "Each element of `output_shapes_` must be a scalar."));
        return;
      }
    }
  }

 protected:
  absl::StatusOr<DatasetPtr> MakeDataset(OpKernelContext* ctx) override {
    std::string args[3];
    const char* names[3] = {"driver_name", "data_source_name", "query"};
    for (int i = 0; i < 3; ++i) {
      const Tensor& t = ctx->input(i);
      if (t.dims() != 0) {
        return absl::InvalidArgumentError(
            absl::StrCat(names[i], " must be a scalar"));
      }
      args[i] = t.data<std::string>()[0];
    }
    if (args[0] != "sqlite") {
      return absl::InvalidArgumentError(absl::StrCat(
          "The database type, ", args[0],
          ", is not supported by SqlDataset. The set of supported databases "
          "is: {'sqlite'}."));
    }
    DFX_ASSIGN_OR_RETURN(std::string path, ResolveDataPath(name(), args[1]));
    return std::make_shared<SqlDataset>(output_types(), std::move(path),
                                        args[1], args[2]);
  }
};

// TensorFlow 2.21's LMDB kernels: their construction fails.
class LmdbRemovedOp : public OpKernel {
 public:
  explicit LmdbRemovedOp(OpKernelConstruction* c) : OpKernel(c) {
    c->SetStatus(absl::UnimplementedError(
        "LMDB support is removed from TensorFlow. This API will be deleted "
        "in the next TensorFlow release. If you need LMDB support, please "
        "file a GitHub issue."));
  }
  void Compute(OpKernelContext*) override {}
};

}  // namespace
}  // namespace dfx::data

namespace dfx {

void RegisterReaders2Kernels(KernelRegistry* registry) {
  for (const char* op : {"SqlDataset", "ExperimentalSqlDataset"}) {
    RegisterKernel<data::SqlDatasetOp>(registry, KernelDefBuilder(op));
  }
  for (const char* op :
       {"LMDBDataset", "ExperimentalLMDBDataset", "LMDBReader"}) {
    RegisterKernel<data::LmdbRemovedOp>(registry, KernelDefBuilder(op));
  }
}

}  // namespace dfx
