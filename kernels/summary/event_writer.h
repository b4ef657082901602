// TensorBoard event files as TensorFlow writes them: a TFRecord file
// (length, masked CRC32C of the length, data, masked CRC32C of the data)
// named events.out.tfevents.<secs>.<host>.<pid>.<n><suffix>, whose first
// record is an Event{wall_time: whole seconds, file_version:
// "brain.Event:2", source_metadata} and the rest serialized Events;
// SummaryWriterInterface, the resource behind the TF2 summary-writer ops;
// and SummaryFileWriter, the one that queues events and writes them to an
// event file when flushed (summary_db_writer.h has the SQLite one).
#ifndef DFX_KERNELS_SUMMARY_EVENT_WRITER_H_
#define DFX_KERNELS_SUMMARY_EVENT_WRITER_H_

#include <cstdint>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "proto/event.pb.h"
#include "runtime/resource_mgr.h"
#include "runtime/tensor.h"

namespace dfx::summary {

// Appends one TFRecord framing `data` to `out`.
void AppendRecord(const std::string& data, std::string* out);

// The records of a TFRecord file's bytes. DataLoss naming `name` for a
// truncated record or a checksum that does not match.
absl::StatusOr<std::vector<std::string>> ParseRecords(const std::string& bytes,
                                                      const std::string& name);

// Seconds since the Unix epoch, to the microsecond (TensorFlow's
// NowMicros() / 1e6).
double WallTime();

// One event file. Not thread-safe.
class EventsFile {
 public:
  // Creates `dir` (and its parents) when missing and opens a new file in it,
  // named as TensorFlow names it: `suffix` follows the process-wide counter
  // after a '.' unless it starts with one. Writes and flushes the version
  // event. Errors name the path.
  static absl::StatusOr<std::unique_ptr<EventsFile>> Open(
      const std::string& dir, const std::string& suffix);
  ~EventsFile();
  EventsFile(const EventsFile&) = delete;
  EventsFile& operator=(const EventsFile&) = delete;

  const std::string& path() const { return path_; }
  // Buffers one record of `event`; Flush writes buffered records through.
  void Write(const Event& event);
  absl::Status Flush();

 private:
  EventsFile(std::string path, std::FILE* file)
      : path_(std::move(path)), file_(file) {}

  const std::string path_;
  std::FILE* file_;
  std::string pending_;
};

// The resource of SummaryWriter handles, whatever Create* op made it (its
// type name is TensorFlow's, so one handle holds either kind). The Write*
// ops build events and hand them to WriteEvent, but for WriteSummary and
// WriteScalarSummary, which a writer may store as tensors: their default
// implementations build the event a file writer writes. Implementations
// are thread-safe.
class SummaryWriterInterface : public ResourceBase {
 public:
  static constexpr char kTypeName[] = "SummaryWriterInterface";
  std::string TypeName() const override { return kTypeName; }

  virtual absl::Status WriteEvent(std::unique_ptr<Event> event) = 0;
  virtual absl::Status Flush() = 0;
  // WriteSummary's tensor `t` under `tag` at `step`, with the
  // SummaryMetadata proto `serialized_metadata`.
  virtual absl::Status WriteTensor(int64_t step, const Tensor& t,
                                   const std::string& tag,
                                   const std::string& serialized_metadata);
  // WriteScalarSummary's value: the first element of `t` (REQUIRES: `t`
  // is not empty and of a real number type).
  virtual absl::Status WriteScalar(int64_t step, const Tensor& t,
                                   const std::string& tag);
};

// The file writer: events queue until more than
// `max_queue` wait, `flush_millis` passed since the last flush, or
// Flush() is called; destroying the writer (CloseSummaryWriter, a reset)
// flushes what is left. Thread-safe.
class SummaryFileWriter : public SummaryWriterInterface {
 public:
  // Opens the event file (EventsFile::Open). Errors carry TensorFlow's
  // context "Could not initialize events writer.".
  static absl::StatusOr<std::shared_ptr<SummaryFileWriter>> Create(
      const std::string& logdir, int max_queue, int flush_millis,
      const std::string& filename_suffix);
  ~SummaryFileWriter() override;

  std::string DebugString() const override;

  // Queues `event`; flushes when the queue or the time says so.
  absl::Status WriteEvent(std::unique_ptr<Event> event) override;
  absl::Status Flush() override;

 private:
  SummaryFileWriter(std::unique_ptr<EventsFile> file, int max_queue,
                    int flush_millis);
  absl::Status FlushLocked() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  const int max_queue_;
  const int flush_millis_;
  absl::Mutex mu_;
  std::unique_ptr<EventsFile> file_ ABSL_GUARDED_BY(mu_);
  std::vector<std::unique_ptr<Event>> queue_ ABSL_GUARDED_BY(mu_);
  int64_t last_flush_micros_ ABSL_GUARDED_BY(mu_) = 0;
};

}  // namespace dfx::summary

#endif  // DFX_KERNELS_SUMMARY_EVENT_WRITER_H_
