// What SQLite users among the kernels share (SqlDataset in
// kernels/data/readers2_kernels.cc, the summary database writer in
// kernels/summary/summary_db_writer.cc): TensorFlow's mapping of SQLite
// result codes to status codes, and the settings every connection a graph
// opens gets.
#ifndef DFX_KERNELS_SQLITE_UTIL_H_
#define DFX_KERNELS_SQLITE_UTIL_H_

#include "absl/status/status.h"

struct sqlite3;

namespace dfx {

// The status code TensorFlow gives SQLite's result code `rc` (extended
// codes reduce to their primary code): lib/db/sqlite.cc's table.
absl::StatusCode SqliteStatusCode(int rc);

// Settings for a connection to a database a graph names: no ATTACH, no
// extension loading, SQLite's defensive mode (no writable_schema, no
// shadow-table writes), schema functions untrusted, triggers off (a
// prepared database's triggers do not run on our statements).
void HardenSqliteConnection(sqlite3* db);

}  // namespace dfx

#endif  // DFX_KERNELS_SQLITE_UTIL_H_
