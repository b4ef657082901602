#include "kernels/sqlite_util.h"

#include <sqlite3.h>

namespace dfx {

absl::StatusCode SqliteStatusCode(int rc) {
  switch (rc & 0xff) {
    case SQLITE_OK:
    case SQLITE_ROW:
    case SQLITE_DONE:
      return absl::StatusCode::kOk;
    case SQLITE_ABORT:
      return absl::StatusCode::kAborted;
    case SQLITE_READONLY:
    case SQLITE_MISMATCH:
      return absl::StatusCode::kFailedPrecondition;
    case SQLITE_MISUSE:
    case SQLITE_INTERNAL:
      return absl::StatusCode::kInternal;
    case SQLITE_RANGE:
      return absl::StatusCode::kOutOfRange;
    case SQLITE_CANTOPEN:
    case SQLITE_CONSTRAINT:
    case SQLITE_NOTFOUND:
    case SQLITE_NOTADB:
      return absl::StatusCode::kInvalidArgument;
    case SQLITE_CORRUPT:
      return absl::StatusCode::kDataLoss;
    case SQLITE_AUTH:
    case SQLITE_PERM:
      return absl::StatusCode::kPermissionDenied;
    case SQLITE_FULL:
    case SQLITE_TOOBIG:
    case SQLITE_NOLFS:
      return absl::StatusCode::kResourceExhausted;
    case SQLITE_BUSY:
    case SQLITE_LOCKED:
    case SQLITE_PROTOCOL:
    case SQLITE_NOMEM:
      return absl::StatusCode::kUnavailable;
    case SQLITE_INTERRUPT:
      return absl::StatusCode::kCancelled;
    default:
      return absl::StatusCode::kUnknown;
  }
}

void HardenSqliteConnection(sqlite3* db) {
  sqlite3_limit(db, SQLITE_LIMIT_ATTACHED, 0);
  sqlite3_db_config(db, SQLITE_DBCONFIG_ENABLE_LOAD_EXTENSION, 0, nullptr);
  sqlite3_db_config(db, SQLITE_DBCONFIG_DEFENSIVE, 1, nullptr);
  sqlite3_db_config(db, SQLITE_DBCONFIG_TRUSTED_SCHEMA, 0, nullptr);
  sqlite3_db_config(db, SQLITE_DBCONFIG_ENABLE_TRIGGER, 0, nullptr);
}

}  // namespace dfx
