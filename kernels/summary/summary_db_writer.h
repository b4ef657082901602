// SummaryDbWriter, the summary writer CreateSummaryDbWriter makes: it
// stores summaries in a TensorBoard SQLite database with TensorFlow's
// schema (core/summary/schema.cc) and rows (summary_db_writer.cc):
// permanent ids drawn at random into Ids; Users, Experiments and Runs made
// on the first write; one Tags row per tag; each series' Tensors rows
// reserved a thousand at a time as zero blobs and filled in by step; graphs
// as Graphs, Nodes and NodeInputs rows. Every write commits at once (Flush
// does nothing); destroying the writer drops unused reserved rows as
// TensorFlow's does and stamps the run's finished_time.
#ifndef DFX_KERNELS_SUMMARY_SUMMARY_DB_WRITER_H_
#define DFX_KERNELS_SUMMARY_SUMMARY_DB_WRITER_H_

#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "kernels/summary/event_writer.h"

namespace dfx::summary {

// Opens (creating when missing) the database `name`, sets up TensorFlow's
// tables and indexes, and returns a writer for the run `run_name` of
// `experiment_name` by `user_name` (each may be empty: no run, experiment
// or user rows then). `allow_uri`: "file:" names are SQLite URIs, as in
// TensorFlow. `shown` is the name errors give. Errors carry TensorFlow's
// codes for SQLite's result codes (InvalidArgument for a file that cannot
// be opened or is not a database).
absl::StatusOr<std::shared_ptr<SummaryWriterInterface>> OpenSummaryDbWriter(
    const std::string& name, bool allow_uri, const std::string& shown,
    const std::string& experiment_name, const std::string& run_name,
    const std::string& user_name);

}  // namespace dfx::summary

#endif  // DFX_KERNELS_SUMMARY_SUMMARY_DB_WRITER_H_
