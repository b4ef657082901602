// SummaryDbWriter and the CreateSummaryDbWriter kernel. The rows are
// TensorFlow's (core/summary/summary_db_writer.cc), quirks included, so a
// database dfx writes reads as one TensorFlow wrote, ids aside (random in
// both):
// - a series reserves 1000 Tensors rows (ZEROBLOB of 1.5 times its first
//   tensor's bytes, at least 32) and each write fills the next one by
//   UPDATE OR REPLACE, so a step written again replaces the older row;
// - destroying the writer deletes unused reserved rows with TensorFlow's
//   loop, which stops halfway (the rest stay as placeholders: step and
//   dtype NULL);
// - a histogram is a [k, 3] double tensor whose first left edge is
//   DBL_MIN; an image a [3] string tensor (width, height, PNG); audio a
//   [1, 2] string tensor (WAV, "");
// - an experiment is found again by user and name, its started_time read
//   back as an integer; a run always gets a new id, and INSERT OR REPLACE
//   drops an older run of that name in the experiment.
#include "kernels/summary/summary_db_writer.h"

#include <sqlite3.h>

#include <algorithm>
#include <cfloat>
#include <cstdint>
#include <cstring>
#include <deque>
#include <random>
#include <string>
#include <utility>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "base/status_macros.h"
#include "graph/types.h"
#include "kernels/data_flow/data_flow_util.h"
#include "kernels/sqlite_util.h"
#include "proto/graph.pb.h"
#include "runtime/file_policy.h"
#include "runtime/op_kernel.h"
#include "runtime/resource_mgr.h"

namespace dfx::summary {
namespace {

// Id ranges tried in turn after collisions (SQLite stores them in 3, 4 and
// 5 bytes); 21 tries with exponential back-off from 10 µs.
constexpr uint64_t kIdTiers[] = {0x7fffffULL, 0x7fffffffULL, 0x7fffffffffffULL};
constexpr int kMaxIdTier = 2;
constexpr int kMaxIdCollisions = 21;
constexpr int kIdCollisionDelayMicros = 10;
constexpr int64_t kAbsent = 0;
constexpr int64_t kReserveMinBytes = 32;
constexpr double kReserveMultiplier = 1.5;
constexpr int64_t kPreallocateRows = 1000;
// Reserved bytes between intermediate commits (TensorFlow's "flush").
constexpr uint64_t kFlushBytes = 1024 * 1024;
// TensorFlow's application id, 0xfeedabee, which SQLite's 32-bit pragma
// parser reads as 0; the statement is TensorFlow's all the same.
constexpr char kApplicationIdPragma[] = "PRAGMA application_id=4276988910";

double NowSeconds() {
  return static_cast<double>(absl::ToUnixMicros(absl::Now())) / 1.0e6;
}

absl::Status SqliteError(int rc, absl::string_view what) {
  return absl::Status(SqliteStatusCode(rc), what);
}

absl::Status WithContext(const absl::Status& s, absl::string_view context) {
  if (s.ok()) return s;
  return absl::Status(s.code(), absl::StrCat(s.message(), "\n\t", context));
}

// One prepared statement. Unbound parameters are NULL.
class Stmt {
 public:
  Stmt(sqlite3* db, const char* sql) : db_(db), sql_(sql) {
    const int rc = sqlite3_prepare_v2(db, sql, -1, &stmt_, nullptr);
    if (rc != SQLITE_OK) {
      status_ = SqliteError(rc, absl::StrCat("Prepare() failed: [", rc, "] ",
                                             sqlite3_errmsg(db), ": ", sql));
    }
  }
  ~Stmt() { sqlite3_finalize(stmt_); }
  Stmt(const Stmt&) = delete;
  Stmt& operator=(const Stmt&) = delete;

  const absl::Status& status() const { return status_; }
  void BindInt(int i, int64_t v) { Check(sqlite3_bind_int64(stmt_, i, v)); }
  void BindDouble(int i, double v) { Check(sqlite3_bind_double(stmt_, i, v)); }
  void BindText(int i, absl::string_view v) {
    Check(sqlite3_bind_text64(stmt_, i, v.data(), v.size(), SQLITE_TRANSIENT,
                              SQLITE_UTF8));
  }
  // A null `data` binds NULL (sqlite3_bind_blob's rule).
  void BindBlob(int i, const void* data, size_t size) {
    Check(sqlite3_bind_blob64(stmt_, i, data, size, SQLITE_TRANSIENT));
  }
  void BindBlob(int i, const std::string& v) {
    BindBlob(i, v.data(), v.size());
  }

  // One step: `*row` says whether a row came.
  absl::Status Step(bool* row) {
    *row = false;
    DFX_RETURN_IF_ERROR(status_);
    const int rc = sqlite3_step(stmt_);
    if (rc == SQLITE_ROW) {
      *row = true;
      return absl::OkStatus();
    }
    if (rc == SQLITE_DONE) return absl::OkStatus();
    return SqliteError(rc, absl::StrCat("Step() failed: [", rc, "] ",
                                        sqlite3_errmsg(db_), ": ", sql_));
  }
  // Steps a statement that returns no row, then resets it and its bindings.
  absl::Status StepAndReset() {
    bool row = false;
    absl::Status s = Step(&row);
    if (s.ok() && row) {
      s = absl::InternalError(absl::StrCat("Unexpected row: ", sql_));
    }
    if (stmt_ != nullptr) {
      sqlite3_reset(stmt_);
      sqlite3_clear_bindings(stmt_);
      status_ = absl::OkStatus();  // a bind error lasts one step
    }
    return s;
  }
  int64_t ColumnInt(int i) { return sqlite3_column_int64(stmt_, i); }

 private:
  void Check(int rc) {
    if (rc != SQLITE_OK && status_.ok()) {
      status_ = SqliteError(
          rc, absl::StrCat("Bind failed: ", sqlite3_errstr(rc), ": ", sql_));
    }
  }

  sqlite3* const db_;
  const char* const sql_;
  sqlite3_stmt* stmt_ = nullptr;
  absl::Status status_;
};

absl::Status Exec(sqlite3* db, const char* sql) {
  Stmt stmt(db, sql);
  return stmt.StepAndReset();
}

// BEGIN on construction, ROLLBACK of what is not committed on destruction;
// Commit commits and begins again (TensorFlow's SqliteTransaction).
class Txn {
 public:
  explicit Txn(sqlite3* db) : db_(db) {
    sqlite3_exec(db_, "BEGIN", nullptr, nullptr, nullptr);
  }
  ~Txn() { sqlite3_exec(db_, "ROLLBACK", nullptr, nullptr, nullptr); }
  Txn(const Txn&) = delete;
  Txn& operator=(const Txn&) = delete;
  absl::Status Commit() {
    const int rc = sqlite3_exec(db_, "COMMIT", nullptr, nullptr, nullptr);
    if (rc != SQLITE_OK) {
      return SqliteError(
          rc, absl::StrCat("COMMIT failed: [", rc, "] ", sqlite3_errmsg(db_)));
    }
    sqlite3_exec(db_, "BEGIN", nullptr, nullptr, nullptr);
    return absl::OkStatus();
  }

 private:
  sqlite3* const db_;
};

// TensorFlow's tables and indexes (core/summary/schema.cc), comments and
// all in schema.cc; these are the statements.
constexpr const char* kSchema[] = {
    "CREATE TABLE IF NOT EXISTS Ids (id INTEGER PRIMARY KEY)",
    "CREATE TABLE IF NOT EXISTS Descriptions (id INTEGER PRIMARY KEY, "
    "description TEXT)",
    "CREATE TABLE IF NOT EXISTS Tensors (rowid INTEGER PRIMARY KEY, series "
    "INTEGER, step INTEGER, dtype INTEGER, computed_time REAL, shape TEXT, "
    "data BLOB)",
    "CREATE UNIQUE INDEX IF NOT EXISTS TensorSeriesStepIndex ON Tensors "
    "(series, step) WHERE series IS NOT NULL AND step IS NOT NULL",
    "CREATE TABLE IF NOT EXISTS TensorStrings (rowid INTEGER PRIMARY KEY, "
    "tensor_rowid INTEGER NOT NULL, idx INTEGER NOT NULL, data BLOB)",
    "CREATE UNIQUE INDEX IF NOT EXISTS TensorStringIndex ON TensorStrings "
    "(tensor_rowid, idx)",
    "CREATE TABLE IF NOT EXISTS Tags (rowid INTEGER PRIMARY KEY, run_id "
    "INTEGER, tag_id INTEGER NOT NULL, inserted_time DOUBLE, tag_name TEXT, "
    "display_name TEXT, plugin_name TEXT, plugin_data BLOB)",
    "CREATE UNIQUE INDEX IF NOT EXISTS TagIdIndex ON Tags (tag_id)",
    "CREATE UNIQUE INDEX IF NOT EXISTS TagRunNameIndex ON Tags (run_id, "
    "tag_name) WHERE run_id IS NOT NULL AND tag_name IS NOT NULL",
    "CREATE TABLE IF NOT EXISTS Runs (rowid INTEGER PRIMARY KEY, "
    "experiment_id INTEGER, run_id INTEGER NOT NULL, inserted_time REAL, "
    "started_time REAL, finished_time REAL, run_name TEXT)",
    "CREATE UNIQUE INDEX IF NOT EXISTS RunIdIndex ON Runs (run_id)",
    "CREATE UNIQUE INDEX IF NOT EXISTS RunNameIndex ON Runs (experiment_id, "
    "run_name) WHERE run_name IS NOT NULL",
    "CREATE TABLE IF NOT EXISTS Experiments (rowid INTEGER PRIMARY KEY, "
    "user_id INTEGER, experiment_id INTEGER NOT NULL, inserted_time REAL, "
    "started_time REAL, is_watching INTEGER, experiment_name TEXT)",
    "CREATE UNIQUE INDEX IF NOT EXISTS ExperimentIdIndex ON Experiments "
    "(experiment_id)",
    "CREATE UNIQUE INDEX IF NOT EXISTS ExperimentNameIndex ON Experiments "
    "(user_id, experiment_name) WHERE experiment_name IS NOT NULL",
    "CREATE TABLE IF NOT EXISTS Users (rowid INTEGER PRIMARY KEY, user_id "
    "INTEGER NOT NULL, inserted_time REAL, user_name TEXT, email TEXT)",
    "CREATE UNIQUE INDEX IF NOT EXISTS UserIdIndex ON Users (user_id)",
    "CREATE UNIQUE INDEX IF NOT EXISTS UserNameIndex ON Users (user_name) "
    "WHERE user_name IS NOT NULL",
    "CREATE UNIQUE INDEX IF NOT EXISTS UserEmailIndex ON Users (email) "
    "WHERE email IS NOT NULL",
    "CREATE TABLE IF NOT EXISTS Graphs (rowid INTEGER PRIMARY KEY, run_id "
    "INTEGER, graph_id INTEGER NOT NULL, inserted_time REAL, graph_def BLOB)",
    "CREATE UNIQUE INDEX IF NOT EXISTS GraphIdIndex ON Graphs (graph_id)",
    "CREATE UNIQUE INDEX IF NOT EXISTS GraphRunIndex ON Graphs (run_id) "
    "WHERE run_id IS NOT NULL",
    "CREATE TABLE IF NOT EXISTS Nodes (rowid INTEGER PRIMARY KEY, graph_id "
    "INTEGER NOT NULL, node_id INTEGER NOT NULL, node_name TEXT, op TEXT, "
    "device TEXT, node_def BLOB)",
    "CREATE UNIQUE INDEX IF NOT EXISTS NodeIdIndex ON Nodes (graph_id, "
    "node_id)",
    "CREATE UNIQUE INDEX IF NOT EXISTS NodeNameIndex ON Nodes (graph_id, "
    "node_name) WHERE node_name IS NOT NULL",
    "CREATE TABLE IF NOT EXISTS NodeInputs (rowid INTEGER PRIMARY KEY, "
    "graph_id INTEGER NOT NULL, node_id INTEGER NOT NULL, idx INTEGER NOT "
    "NULL, input_node_id INTEGER NOT NULL, input_node_idx INTEGER, "
    "is_control INTEGER)",
    "CREATE UNIQUE INDEX IF NOT EXISTS NodeInputsIndex ON NodeInputs "
    "(graph_id, node_id, idx)",
};

// The dtypes the database holds; Unimplemented for the others.
absl::Status CheckSupportedType(const Tensor& t) {
  switch (t.dtype()) {
    case DT_STRING:
    case DT_HALF:
    case DT_FLOAT:
    case DT_DOUBLE:
    case DT_COMPLEX64:
    case DT_COMPLEX128:
    case DT_INT8:
    case DT_INT16:
    case DT_INT32:
    case DT_INT64:
    case DT_UINT8:
    case DT_UINT16:
    case DT_UINT32:
    case DT_UINT64:
      return absl::OkStatus();
    default:
      return absl::UnimplementedError(absl::StrCat(
          DataTypeString(t.dtype()), " tensors unsupported on platform"));
  }
}

// The first element of `t` as a scalar of its dtype. REQUIRES: `t` holds
// at least one element of a supported dtype.
Tensor FirstAsScalar(const Tensor& t) {
  Tensor s(t.dtype(), TensorShape());
  if (t.dtype() == DT_STRING) {
    s.data<std::string>()[0] = t.data<std::string>()[0];
  } else {
    std::memcpy(s.raw_data(), t.raw_data(), s.TotalBytes());
  }
  return s;
}

std::string ShapeText(const TensorShape& shape) {
  std::string out;
  for (int i = 0; i < shape.dims(); ++i) {
    if (i > 0) out += ',';
    absl::StrAppend(&out, shape.dim_size(i));
  }
  return out;
}

void PatchPluginName(SummaryMetadata* metadata, const char* name) {
  if (metadata->plugin_data().plugin_name().empty()) {
    metadata->mutable_plugin_data()->set_plugin_name(name);
  }
}

class SummaryDbWriter : public SummaryWriterInterface {
 public:
  SummaryDbWriter(sqlite3* db, std::string experiment_name,
                  std::string run_name, std::string user_name)
      : db_(db),
        experiment_name_(std::move(experiment_name)),
        run_name_(std::move(run_name)),
        user_name_(std::move(user_name)),
        rng_(std::random_device{}()) {}

  ~SummaryDbWriter() override {
    absl::MutexLock lock(&mu_);
    (void)FinishLocked();
    if (run_id_ != kAbsent) {
      Stmt update(db_, "UPDATE Runs SET finished_time = ? WHERE run_id = ?");
      update.BindDouble(1, NowSeconds());
      update.BindInt(2, run_id_);
      (void)update.StepAndReset();
    }
    sqlite3_close_v2(db_);
  }

  std::string DebugString() const override { return "SummaryDbWriter"; }

  absl::Status Flush() override { return absl::OkStatus(); }

  absl::Status WriteTensor(int64_t step, const Tensor& t,
                           const std::string& tag,
                           const std::string& serialized_metadata) override {
    DFX_RETURN_IF_ERROR(CheckSupportedType(t));
    SummaryMetadata metadata;
    if (!metadata.ParseFromString(serialized_metadata)) {
      return absl::InvalidArgumentError("Bad serialized_metadata");
    }
    return Write(step, t, tag, metadata);
  }

  absl::Status WriteScalar(int64_t step, const Tensor& t,
                           const std::string& tag) override {
    DFX_RETURN_IF_ERROR(CheckSupportedType(t));
    SummaryMetadata metadata;
    PatchPluginName(&metadata, "scalars");
    return Write(step, FirstAsScalar(t), tag, metadata);
  }

  absl::Status WriteEvent(std::unique_ptr<Event> e) override {
    absl::MutexLock lock(&mu_);
    const std::string where =
        absl::StrCat(user_name_, "/", experiment_name_, "/", run_name_, "/");
    switch (e->what_case()) {
      case Event::kSummary:
        for (Summary::Value& v : *e->mutable_summary()->mutable_value()) {
          DFX_RETURN_IF_ERROR(
              WithContext(MigrateValueLocked(*e, &v),
                          absl::StrCat(where, v.tag(), "@", e->step())));
        }
        return absl::OkStatus();
      case Event::kGraphDef: {
        GraphDef graph;
        absl::Status s = absl::OkStatus();
        if (!graph.ParseFromString(e->graph_def())) {
          s = absl::InvalidArgumentError("bad proto");
        } else {
          s = SetGraphLocked(e->wall_time(), &graph);
        }
        return WithContext(s, absl::StrCat(where, "__graph__@", e->step()));
      }
      default:
        return absl::OkStatus();
    }
  }

 private:
  struct Series {
    std::deque<int64_t> rowids;  // reserved Tensors rows, in order
    uint64_t count = 0;          // writes that succeeded
  };

  absl::Status Write(int64_t step, const Tensor& t, const std::string& tag,
                     const SummaryMetadata& metadata) {
    absl::MutexLock lock(&mu_);
    const double now = NowSeconds();
    DFX_ASSIGN_OR_RETURN(int64_t tag_id, TagIdLocked(now, tag, metadata));
    return WithContext(AppendLocked(tag_id, step, now, t),
                       absl::StrCat(user_name_, "/", experiment_name_, "/",
                                    run_name_, "/", tag, "@", step));
  }

  absl::Status MigrateValueLocked(const Event& e, Summary::Value* v)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    const char* kind = nullptr;
    Tensor t;
    switch (v->value_case()) {
      case Summary::Value::kTensor: {
        kind = "tensor";
        absl::StatusOr<Tensor> decoded = Tensor::FromProto(v->tensor());
        if (!decoded.ok()) {
          return WithContext(absl::InvalidArgumentError("bad proto"), kind);
        }
        t = *std::move(decoded);
        DFX_RETURN_IF_ERROR(WithContext(CheckSupportedType(t), kind));
        break;
      }
      case Summary::Value::kSimpleValue:
        kind = "scalar";
        t = Tensor(DT_FLOAT, TensorShape());
        t.data<float>()[0] = v->simple_value();
        PatchPluginName(v->mutable_metadata(), "scalars");
        break;
      case Summary::Value::kHisto: {
        kind = "histo";
        const HistogramProto& h = v->histo();
        const int k = h.bucket_size();
        if (k != h.bucket_limit_size()) {
          return WithContext(absl::InvalidArgumentError("size mismatch"), kind);
        }
        t = Tensor(DT_DOUBLE, TensorShape({k, 3}));
        double* d = t.data<double>();
        for (int i = 0; i < k; ++i) {
          // TensorFlow's left edge of the first bucket: DBL_MIN, the
          // smallest positive double.
          d[3 * i] = i == 0 ? DBL_MIN : h.bucket_limit(i - 1);
          d[3 * i + 1] = h.bucket_limit(i);
          d[3 * i + 2] = h.bucket(i);
        }
        PatchPluginName(v->mutable_metadata(), "histograms");
        break;
      }
      case Summary::Value::kImage: {
        kind = "image";
        t = Tensor(DT_STRING, TensorShape({3}));
        std::string* s = t.data<std::string>();
        s[0] = absl::StrCat(v->image().width());
        s[1] = absl::StrCat(v->image().height());
        s[2] = v->image().encoded_image_string();
        PatchPluginName(v->mutable_metadata(), "images");
        break;
      }
      case Summary::Value::kAudio: {
        kind = "audio";
        t = Tensor(DT_STRING, TensorShape({1, 2}));
        t.data<std::string>()[0] = v->audio().encoded_audio_string();
        PatchPluginName(v->mutable_metadata(), "audio");
        break;
      }
      default:
        return absl::OkStatus();
    }
    absl::StatusOr<int64_t> tag_id =
        TagIdLocked(e.wall_time(), v->tag(), v->metadata());
    if (!tag_id.ok()) return WithContext(tag_id.status(), kind);
    return WithContext(AppendLocked(*tag_id, e.step(), e.wall_time(), t), kind);
  }

  // A new id, inserted into Ids.
  absl::StatusOr<int64_t> NewIdLocked() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    Stmt insert(db_, "INSERT INTO Ids (id) VALUES (?)");
    absl::Status s = insert.status();
    for (int i = 0; i < kMaxIdCollisions && insert.status().ok(); ++i) {
      int64_t id = static_cast<int64_t>(rng_() & kIdTiers[tier_]);
      if (id == kAbsent) ++id;
      insert.BindInt(1, id);
      s = insert.StepAndReset();
      if (s.ok()) return id;
      // A collision is SQLITE_CONSTRAINT, InvalidArgument.
      if (!absl::IsInvalidArgument(s)) break;
      if (tier_ < kMaxIdTier) ++tier_;
      absl::SleepFor(
          absl::Microseconds((int64_t{1} << i) * kIdCollisionDelayMicros));
    }
    return s;
  }

  absl::Status InitializeUserLocked(double now)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    if (user_id_ != kAbsent || user_name_.empty()) return absl::OkStatus();
    Stmt get(db_, "SELECT user_id FROM Users WHERE user_name = ?");
    get.BindText(1, user_name_);
    bool row = false;
    DFX_RETURN_IF_ERROR(get.Step(&row));
    if (row) {
      user_id_ = get.ColumnInt(0);
      return absl::OkStatus();
    }
    DFX_ASSIGN_OR_RETURN(user_id_, NewIdLocked());
    Stmt insert(db_,
                "INSERT INTO Users (user_id, user_name, inserted_time) "
                "VALUES (?, ?, ?)");
    insert.BindInt(1, user_id_);
    insert.BindText(2, user_name_);
    insert.BindDouble(3, now);
    return insert.StepAndReset();
  }

  absl::Status InitializeExperimentLocked(double now, double computed_time)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    if (experiment_name_.empty()) return absl::OkStatus();
    if (experiment_id_ == kAbsent) {
      DFX_RETURN_IF_ERROR(InitializeUserLocked(now));
      Stmt get(db_,
               "SELECT experiment_id, started_time FROM Experiments WHERE "
               "user_id IS ? AND experiment_name = ?");
      if (user_id_ != kAbsent) get.BindInt(1, user_id_);
      get.BindText(2, experiment_name_);
      bool row = false;
      DFX_RETURN_IF_ERROR(get.Step(&row));
      if (row) {
        experiment_id_ = get.ColumnInt(0);
        // TensorFlow reads the time back as an integer.
        experiment_started_time_ = static_cast<double>(get.ColumnInt(1));
      } else {
        DFX_ASSIGN_OR_RETURN(experiment_id_, NewIdLocked());
        experiment_started_time_ = computed_time;
        Stmt insert(db_,
                    "INSERT INTO Experiments (user_id, experiment_id, "
                    "experiment_name, inserted_time, started_time, "
                    "is_watching) VALUES (?, ?, ?, ?, ?, ?)");
        if (user_id_ != kAbsent) insert.BindInt(1, user_id_);
        insert.BindInt(2, experiment_id_);
        insert.BindText(3, experiment_name_);
        insert.BindDouble(4, now);
        insert.BindDouble(5, computed_time);
        insert.BindInt(6, 0);
        DFX_RETURN_IF_ERROR(insert.StepAndReset());
      }
    }
    if (computed_time < experiment_started_time_) {
      experiment_started_time_ = computed_time;
      Stmt update(db_,
                  "UPDATE Experiments SET started_time = ? WHERE "
                  "experiment_id = ?");
      update.BindDouble(1, computed_time);
      update.BindInt(2, experiment_id_);
      DFX_RETURN_IF_ERROR(update.StepAndReset());
    }
    return absl::OkStatus();
  }

  absl::Status InitializeRunLocked(double now, double computed_time)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    if (run_name_.empty()) return absl::OkStatus();
    DFX_RETURN_IF_ERROR(InitializeExperimentLocked(now, computed_time));
    if (run_id_ == kAbsent) {
      DFX_ASSIGN_OR_RETURN(run_id_, NewIdLocked());
      run_started_time_ = computed_time;
      Stmt insert(db_,
                  "INSERT OR REPLACE INTO Runs (experiment_id, run_id, "
                  "run_name, inserted_time, started_time) VALUES (?, ?, ?, "
                  "?, ?)");
      if (experiment_id_ != kAbsent) insert.BindInt(1, experiment_id_);
      insert.BindInt(2, run_id_);
      insert.BindText(3, run_name_);
      insert.BindDouble(4, now);
      insert.BindDouble(5, computed_time);
      DFX_RETURN_IF_ERROR(insert.StepAndReset());
    }
    if (computed_time < run_started_time_) {
      run_started_time_ = computed_time;
      Stmt update(db_, "UPDATE Runs SET started_time = ? WHERE run_id = ?");
      update.BindDouble(1, computed_time);
      update.BindInt(2, run_id_);
      DFX_RETURN_IF_ERROR(update.StepAndReset());
    }
    return absl::OkStatus();
  }

  // The tag's id: the run's rows first, then (once per tag and writer) a
  // Descriptions and a Tags row.
  absl::StatusOr<int64_t> TagIdLocked(double computed_time,
                                      const std::string& tag,
                                      const SummaryMetadata& metadata)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    const double now = NowSeconds();
    DFX_RETURN_IF_ERROR(InitializeRunLocked(now, computed_time));
    auto it = tag_ids_.find(tag);
    if (it != tag_ids_.end()) return it->second;
    DFX_ASSIGN_OR_RETURN(int64_t tag_id, NewIdLocked());
    tag_ids_[tag] = tag_id;
    Stmt desc(db_,
              "INSERT OR REPLACE INTO Descriptions (id, description) VALUES "
              "(?, ?)");
    desc.BindInt(1, tag_id);
    desc.BindText(2, metadata.summary_description());
    DFX_RETURN_IF_ERROR(desc.StepAndReset());
    Stmt insert(db_,
                "INSERT INTO Tags (run_id, tag_id, tag_name, inserted_time, "
                "display_name, plugin_name, plugin_data) VALUES (?, ?, ?, ?, "
                "?, ?, ?)");
    if (run_id_ != kAbsent) insert.BindInt(1, run_id_);
    insert.BindInt(2, tag_id);
    insert.BindText(3, tag);
    insert.BindDouble(4, now);
    insert.BindText(5, metadata.display_name());
    insert.BindText(6, metadata.plugin_data().plugin_name());
    insert.BindBlob(7, metadata.plugin_data().content());
    DFX_RETURN_IF_ERROR(insert.StepAndReset());
    return tag_id;
  }

  absl::Status AppendLocked(int64_t tag_id, int64_t step, double computed_time,
                            const Tensor& t)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    Series& series = series_[tag_id];
    if (series.rowids.empty()) {
      absl::Status s = ReserveLocked(tag_id, t, &series);
      if (!s.ok()) {
        series.rowids.clear();
        return s;
      }
    }
    const int64_t rowid = series.rowids.front();
    absl::Status s = WriteRowLocked(rowid, step, computed_time, t);
    if (s.ok()) ++series.count;
    series.rowids.pop_front();
    return s;
  }

  absl::Status ReserveLocked(int64_t tag_id, const Tensor& t, Series* series)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    int64_t bytes = kReserveMinBytes;
    if (t.dtype() != DT_STRING || t.dims() == 0) {
      const size_t size = t.dtype() == DT_STRING
                              ? t.data<std::string>()[0].size()
                              : t.TotalBytes();
      bytes = std::max(
          kReserveMinBytes,
          static_cast<int64_t>(static_cast<double>(size) * kReserveMultiplier));
    }
    Txn txn(db_);
    Stmt insert(db_,
                "INSERT INTO Tensors (series, data) VALUES (?, ZEROBLOB(?))");
    uint64_t unflushed = 0;
    for (int64_t i = 0; i < kPreallocateRows; ++i) {
      insert.BindInt(1, tag_id);
      insert.BindInt(2, bytes);
      DFX_RETURN_IF_ERROR(
          WithContext(insert.StepAndReset(), absl::StrCat("i=", i)));
      series->rowids.push_back(sqlite3_last_insert_rowid(db_));
      unflushed += static_cast<uint64_t>(bytes);
      if (unflushed >= kFlushBytes) {
        DFX_RETURN_IF_ERROR(txn.Commit());
        unflushed = 0;
      }
    }
    return txn.Commit();
  }

  absl::Status UpdateRowLocked(int64_t rowid, int64_t step,
                               double computed_time, const Tensor& t,
                               const void* data, size_t size)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    Stmt update(db_,
                "UPDATE OR REPLACE Tensors SET step = ?, computed_time = ?, "
                "dtype = ?, shape = ?, data = ? WHERE rowid = ?");
    update.BindInt(1, step);
    update.BindDouble(2, computed_time);
    update.BindInt(3, static_cast<int64_t>(t.dtype()));
    update.BindText(4, ShapeText(t.shape()));
    update.BindBlob(5, data, size);
    update.BindInt(6, rowid);
    return update.StepAndReset();
  }

  absl::Status WriteRowLocked(int64_t rowid, int64_t step, double computed_time,
                              const Tensor& t)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    if (t.dtype() != DT_STRING) {
      // An empty tensor has no buffer: its data is NULL, as TensorFlow's.
      const void* data = t.NumElements() == 0 ? nullptr : t.raw_data();
      return UpdateRowLocked(rowid, step, computed_time, t, data,
                             t.TotalBytes());
    }
    const std::string* strings = t.data<std::string>();
    if (t.dims() == 0) {
      return UpdateRowLocked(rowid, step, computed_time, t, strings[0].data(),
                             strings[0].size());
    }
    // A string tensor of rank 1 or more: data NULL, the elements in
    // TensorStrings.
    Txn txn(db_);
    DFX_RETURN_IF_ERROR(
        UpdateRowLocked(rowid, step, computed_time, t, nullptr, 0));
    Stmt del(db_, "DELETE FROM TensorStrings WHERE tensor_rowid = ?");
    del.BindInt(1, rowid);
    DFX_RETURN_IF_ERROR(WithContext(del.StepAndReset(), absl::StrCat(rowid)));
    Stmt insert(db_,
                "INSERT INTO TensorStrings (tensor_rowid, idx, data) VALUES "
                "(?, ?, ?)");
    for (int64_t i = 0; i < t.NumElements(); ++i) {
      insert.BindInt(1, rowid);
      insert.BindInt(2, i);
      insert.BindBlob(3, strings[i]);
      DFX_RETURN_IF_ERROR(
          WithContext(insert.StepAndReset(), absl::StrCat("i=", i)));
    }
    return txn.Commit();
  }

  // Stores `graph` (whose nodes it strips) for the run.
  absl::Status SetGraphLocked(double computed_time, GraphDef* graph)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    const double now = NowSeconds();
    DFX_RETURN_IF_ERROR(InitializeRunLocked(now, computed_time));
    Txn txn(db_);
    DFX_ASSIGN_OR_RETURN(int64_t graph_id, NewIdLocked());
    absl::flat_hash_map<std::string, int64_t> node_ids;
    for (int i = 0; i < graph->node_size(); ++i) {
      node_ids.emplace(graph->node(i).name(), i);
    }
    uint64_t unflushed = 0;
    auto maybe_commit = [&]() -> absl::Status {
      if (unflushed < kFlushBytes) return absl::OkStatus();
      unflushed = 0;
      return WithContext(txn.Commit(), "flushing");
    };
    {
      Stmt insert(db_,
                  "INSERT INTO NodeInputs (graph_id, node_id, idx, "
                  "input_node_id, input_node_idx, is_control) VALUES (?, ?, "
                  "?, ?, ?, ?)");
      for (int i = 0; i < graph->node_size(); ++i) {
        const NodeDef& node = graph->node(i);
        for (int idx = 0; idx < node.input_size(); ++idx) {
          absl::string_view name = node.input(idx);
          int64_t input_idx = 0;
          int64_t is_control = 0;
          const size_t colon = name.rfind(':');
          if (colon != absl::string_view::npos) {
            if (!absl::SimpleAtoi(name.substr(colon + 1), &input_idx)) {
              return WithContext(absl::DataLossError(
                                     absl::StrCat("Bad NodeDef.input: ", name)),
                                 "SaveNodeInputs");
            }
            name = name.substr(0, colon);
          }
          if (!name.empty() && name[0] == '^') {
            name.remove_prefix(1);
            is_control = 1;
          }
          auto found = node_ids.find(name);
          if (found == node_ids.end()) {
            return WithContext(absl::DataLossError(
                                   absl::StrCat("Could not find node: ", name)),
                               "SaveNodeInputs");
          }
          insert.BindInt(1, graph_id);
          insert.BindInt(2, i);
          insert.BindInt(3, idx);
          insert.BindInt(4, found->second);
          insert.BindInt(5, input_idx);
          insert.BindInt(6, is_control);
          unflushed += 48;
          DFX_RETURN_IF_ERROR(WithContext(
              insert.StepAndReset(), absl::StrCat(node.name(), " -> ", name)));
          DFX_RETURN_IF_ERROR(maybe_commit());
        }
      }
    }
    {
      Stmt insert(db_,
                  "INSERT INTO Nodes (graph_id, node_id, node_name, op, "
                  "device, node_def) VALUES (?, ?, ?, ?, ?, ?)");
      for (int i = 0; i < graph->node_size(); ++i) {
        NodeDef* node = graph->mutable_node(i);
        insert.BindInt(1, graph_id);
        insert.BindInt(2, i);
        insert.BindText(3, node->name());
        insert.BindText(4, node->op());
        insert.BindText(5, node->device());
        node->clear_name();
        node->clear_op();
        node->clear_device();
        node->clear_input();
        const std::string node_def = node->SerializeAsString();
        insert.BindBlob(6, node_def);
        unflushed += node_def.size() + 64;
        DFX_RETURN_IF_ERROR(WithContext(insert.StepAndReset(), "SaveNodes"));
        DFX_RETURN_IF_ERROR(maybe_commit());
      }
    }
    Stmt insert(db_,
                "INSERT OR REPLACE INTO Graphs (run_id, graph_id, "
                "inserted_time, graph_def) VALUES (?, ?, ?, ?)");
    if (run_id_ != kAbsent) insert.BindInt(1, run_id_);
    insert.BindInt(2, graph_id);
    insert.BindDouble(3, now);
    graph->clear_node();
    const std::string graph_def = graph->SerializeAsString();
    insert.BindBlob(4, graph_def);
    DFX_RETURN_IF_ERROR(WithContext(insert.StepAndReset(), "SaveGraph"));
    return txn.Commit();
  }

  // Deletes reserved rows no write used, with TensorFlow's loop: it
  // compares the count of writes with the shrinking queue, so about half
  // of the unused rows stay.
  absl::Status FinishLocked() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    for (auto& [tag_id, series] : series_) {
      if (series.rowids.empty()) continue;
      Txn txn(db_);
      Stmt del(db_, "DELETE FROM Tensors WHERE rowid = ?");
      for (size_t i = series.count; i < series.rowids.size(); ++i) {
        del.BindInt(1, series.rowids.front());
        DFX_RETURN_IF_ERROR(del.StepAndReset());
        series.rowids.pop_front();
      }
      DFX_RETURN_IF_ERROR(txn.Commit());
      series.rowids.clear();
    }
    return absl::OkStatus();
  }

  absl::Mutex mu_;
  sqlite3* const db_;
  const std::string experiment_name_;
  const std::string run_name_;
  const std::string user_name_;
  std::mt19937_64 rng_ ABSL_GUARDED_BY(mu_);
  int tier_ ABSL_GUARDED_BY(mu_) = 0;
  int64_t experiment_id_ ABSL_GUARDED_BY(mu_) = kAbsent;
  int64_t run_id_ ABSL_GUARDED_BY(mu_) = kAbsent;
  int64_t user_id_ ABSL_GUARDED_BY(mu_) = kAbsent;
  double experiment_started_time_ ABSL_GUARDED_BY(mu_) = 0;
  double run_started_time_ ABSL_GUARDED_BY(mu_) = 0;
  absl::flat_hash_map<std::string, int64_t> tag_ids_ ABSL_GUARDED_BY(mu_);
  absl::flat_hash_map<int64_t, Series> series_ ABSL_GUARDED_BY(mu_);
};

absl::StatusOr<std::string> ScalarString(OpKernelContext* ctx, int index,
                                         const char* what) {
  const Tensor& t = ctx->input(index);
  if (t.dims() != 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        what, " must be a scalar, got shape ", t.shape().DebugString()));
  }
  return t.data<std::string>()[0];
}

// CreateSummaryDbWriter: the handle's writer, unless it already has one
// (of either kind), as TensorFlow's LookupOrCreateResource. Under a
// --data-dir the name is a path resolved inside it, never a URI; without
// one it goes to SQLite as TensorFlow gives it (URIs and ":memory:"
// included).
class CreateSummaryDbWriterOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    auto uri = ScalarString(ctx, 1, "db_uri");
    DFX_OP_REQUIRES_OK(ctx, uri.status());
    auto experiment = ScalarString(ctx, 2, "experiment_name");
    DFX_OP_REQUIRES_OK(ctx, experiment.status());
    auto run = ScalarString(ctx, 3, "run_name");
    DFX_OP_REQUIRES_OK(ctx, run.status());
    auto user = ScalarString(ctx, 4, "user_name");
    DFX_OP_REQUIRES_OK(ctx, user.status());
    std::string container, name;
    DFX_OP_REQUIRES_OK(
        ctx, data_flow::HandleNameFromInput(ctx, 0, &container, &name));
    ResourceMgr* rm = ctx->resource_manager();
    if (rm->Lookup<SummaryWriterInterface>(container, name).ok()) return;
    std::string path = *uri;
    const bool confined = !DataDir().empty();
    if (confined && path != ":memory:" && !path.empty()) {
      absl::StatusOr<std::string> resolved =
          ResolveDataPath(this->name(), path);
      DFX_OP_REQUIRES_OK(ctx, resolved.status());
      path = *std::move(resolved);
    }
    absl::StatusOr<std::shared_ptr<SummaryWriterInterface>> writer =
        OpenSummaryDbWriter(path, !confined, *uri, *experiment, *run, *user);
    DFX_OP_REQUIRES_OK(ctx, writer.status());
    absl::Status s = rm->Create(container, name, *std::move(writer));
    // A concurrent step created it first: that one stays.
    if (!s.ok() && !absl::IsAlreadyExists(s)) ctx->SetStatus(s);
  }
};

}  // namespace

absl::StatusOr<std::shared_ptr<SummaryWriterInterface>> OpenSummaryDbWriter(
    const std::string& name, bool allow_uri, const std::string& shown,
    const std::string& experiment_name, const std::string& run_name,
    const std::string& user_name) {
  int flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE |
              SQLITE_OPEN_PRIVATECACHE | SQLITE_OPEN_FULLMUTEX;
  if (allow_uri) {
    flags |= SQLITE_OPEN_URI;
  } else {
    // A resolved path has no symlinks left: one made since does not open.
    flags |= SQLITE_OPEN_NOFOLLOW;
  }
  sqlite3* db = nullptr;
  const int rc = sqlite3_open_v2(name.c_str(), &db, flags, nullptr);
  if (rc != SQLITE_OK) {
    sqlite3_close_v2(db);
    return SqliteError(rc, absl::StrCat("Sqlite::Open(", shown,
                                        ") failed: ", sqlite3_errstr(rc)));
  }
  sqlite3_extended_result_codes(db, 1);
  HardenSqliteConnection(db);
  absl::Status s = Exec(db, "PRAGMA page_size=4096");
  if (s.ok()) s = Exec(db, kApplicationIdPragma);
  if (s.ok()) s = Exec(db, "PRAGMA user_version=0");
  for (const char* sql : kSchema) {
    if (!s.ok()) break;
    s = Exec(db, sql);
  }
  if (!s.ok()) {
    sqlite3_close_v2(db);
    return s;
  }
  return std::make_shared<SummaryDbWriter>(db, experiment_name, run_name,
                                           user_name);
}

}  // namespace dfx::summary

namespace dfx {

void RegisterSummarydbKernels(KernelRegistry* r) {
  RegisterKernel<summary::CreateSummaryDbWriterOp>(
      r, KernelDefBuilder("CreateSummaryDbWriter"));
}

}  // namespace dfx
