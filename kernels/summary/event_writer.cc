// Event files. Records are framed in memory and written with stdio; a
// flush pushes them to the kernel (fflush), as TensorFlow's Flush does
// before its Sync.
#include "kernels/summary/event_writer.h"

#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <system_error>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "base/status_macros.h"
#include "checkpoint/crc32c.h"
#include "kernels/summary/summary_convert.h"

namespace dfx::summary {
namespace {

void AppendLe(uint64_t v, int bytes, std::string* out) {
  for (int i = 0; i < bytes; ++i) out->push_back(static_cast<char>(v >> (8 * i)));
}

uint64_t ReadLe(const char* p, int bytes) {
  uint64_t v = 0;
  for (int i = 0; i < bytes; ++i) {
    v |= uint64_t{static_cast<unsigned char>(p[i])} << (8 * i);
  }
  return v;
}

int64_t NowMicros() { return absl::ToUnixMicros(absl::Now()); }

std::string Hostname() {
  char name[256] = {};
  if (gethostname(name, sizeof(name) - 1) != 0) return "localhost";
  return name;
}

// TensorFlow numbers the event files of a process from 0.
std::atomic<int64_t> next_file_number{0};

}  // namespace

void AppendRecord(const std::string& data, std::string* out) {
  std::string header;
  AppendLe(data.size(), 8, &header);
  out->append(header);
  AppendLe(crc32c::Mask(crc32c::Value(header.data(), 8)), 4, out);
  out->append(data);
  AppendLe(crc32c::Mask(crc32c::Value(data.data(), data.size())), 4, out);
}

absl::StatusOr<std::vector<std::string>> ParseRecords(const std::string& bytes,
                                                      const std::string& name) {
  std::vector<std::string> records;
  size_t at = 0;
  auto loss = [&](const char* what) {
    return absl::DataLossError(
        absl::StrCat(what, " of the record at offset ", at, " in ", name));
  };
  while (at < bytes.size()) {
    if (bytes.size() - at < 12) return loss("truncated header");
    const uint64_t length = ReadLe(bytes.data() + at, 8);
    if (crc32c::Mask(crc32c::Value(bytes.data() + at, 8)) !=
        ReadLe(bytes.data() + at + 8, 4)) {
      return loss("corrupted length");
    }
    if (length > bytes.size() - at - 12 ||
        bytes.size() - at - 12 - length < 4) {
      return loss("truncated data");
    }
    std::string data = bytes.substr(at + 12, length);
    if (crc32c::Mask(crc32c::Value(data.data(), data.size())) !=
        ReadLe(bytes.data() + at + 12 + length, 4)) {
      return loss("corrupted data");
    }
    records.push_back(std::move(data));
    at += 16 + length;
  }
  return records;
}

double WallTime() { return static_cast<double>(NowMicros()) / 1.0e6; }

namespace {

std::unique_ptr<Event> NewEvent(int64_t step) {
  auto e = std::make_unique<Event>();
  e->set_step(step);
  e->set_wall_time(WallTime());
  return e;
}

}  // namespace

absl::Status SummaryWriterInterface::WriteTensor(
    int64_t step, const Tensor& t, const std::string& tag,
    const std::string& serialized_metadata) {
  std::unique_ptr<Event> e = NewEvent(step);
  Summary::Value* v = e->mutable_summary()->add_value();
  SetTensor(t, v);
  v->set_tag(tag);
  if (!serialized_metadata.empty()) {
    (void)v->mutable_metadata()->ParseFromString(serialized_metadata);
  }
  return WriteEvent(std::move(e));
}

absl::Status SummaryWriterInterface::WriteScalar(int64_t step, const Tensor& t,
                                                 const std::string& tag) {
  float value = 0;
  VisitNumericType(t.dtype(), [&]<typename T>() {
    value = static_cast<float>(t.data<T>()[0]);
  });
  std::unique_ptr<Event> e = NewEvent(step);
  Summary::Value* v = e->mutable_summary()->add_value();
  v->set_tag(tag);
  v->set_simple_value(value);
  return WriteEvent(std::move(e));
}

absl::StatusOr<std::unique_ptr<EventsFile>> EventsFile::Open(
    const std::string& dir, const std::string& suffix) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) {
    if (fs::exists(dir, ec)) {
      return absl::FailedPreconditionError(
          absl::StrCat(dir, " is not a directory"));
    }
    fs::create_directories(dir, ec);
    if (ec) {
      return absl::PermissionDeniedError(absl::StrCat(
          "Could not create directory ", dir, ": ", ec.message()));
    }
  }
  const int64_t secs = NowMicros() / 1000000;
  const std::string name = absl::StrFormat(
      "events.out.tfevents.%010d.%s.%d.%d%s%s", secs, Hostname(),
      static_cast<int64_t>(getpid()), next_file_number.fetch_add(1),
      !suffix.empty() && suffix[0] == '.' ? "" : ".", suffix);
  const std::string path = (fs::path(dir) / name).string();
  std::FILE* file = std::fopen(path.c_str(), "wb");
  if (file == nullptr) {
    return absl::PermissionDeniedError(absl::StrCat(
        "Creating writable file ", path, ": ", std::strerror(errno)));
  }
  std::unique_ptr<EventsFile> events(new EventsFile(path, file));
  Event version;
  version.set_wall_time(static_cast<double>(secs));
  version.set_file_version("brain.Event:2");
  version.mutable_source_metadata()->set_writer(
      "tensorflow.core.util.events_writer");
  events->Write(version);
  DFX_RETURN_IF_ERROR(events->Flush());
  return events;
}

EventsFile::~EventsFile() {
  (void)Flush();
  std::fclose(file_);
}

void EventsFile::Write(const Event& event) {
  AppendRecord(event.SerializeAsString(), &pending_);
}

absl::Status EventsFile::Flush() {
  if (pending_.empty()) return absl::OkStatus();
  const size_t wrote = std::fwrite(pending_.data(), 1, pending_.size(), file_);
  const bool ok = wrote == pending_.size() && std::fflush(file_) == 0;
  pending_.clear();
  if (!ok) {
    return absl::DataLossError(absl::StrCat("Failed to flush events to ",
                                            path_, ": ", std::strerror(errno)));
  }
  return absl::OkStatus();
}

absl::StatusOr<std::shared_ptr<SummaryFileWriter>> SummaryFileWriter::Create(
    const std::string& logdir, int max_queue, int flush_millis,
    const std::string& filename_suffix) {
  absl::StatusOr<std::unique_ptr<EventsFile>> file =
      EventsFile::Open(logdir, filename_suffix);
  if (!file.ok()) {
    return absl::Status(file.status().code(),
                        absl::StrCat(file.status().message(),
                                     "\n\tCould not initialize events writer."));
  }
  return std::shared_ptr<SummaryFileWriter>(
      new SummaryFileWriter(*std::move(file), max_queue, flush_millis));
}

SummaryFileWriter::SummaryFileWriter(std::unique_ptr<EventsFile> file,
                                     int max_queue, int flush_millis)
    : max_queue_(max_queue), flush_millis_(flush_millis), file_(std::move(file)) {
  last_flush_micros_ = NowMicros();
}

SummaryFileWriter::~SummaryFileWriter() {
  absl::MutexLock lock(&mu_);
  (void)FlushLocked();
}

std::string SummaryFileWriter::DebugString() const {
  return "SummaryFileWriter";
}

absl::Status SummaryFileWriter::WriteEvent(std::unique_ptr<Event> event) {
  absl::MutexLock lock(&mu_);
  queue_.push_back(std::move(event));
  // TensorFlow compares as unsigned: a negative max_queue or flush_millis
  // never triggers a flush.
  const uint64_t since = static_cast<uint64_t>(NowMicros() - last_flush_micros_);
  if (queue_.size() > static_cast<size_t>(max_queue_) ||
      since > 1000 * static_cast<uint64_t>(static_cast<int64_t>(flush_millis_))) {
    return FlushLocked();
  }
  return absl::OkStatus();
}

absl::Status SummaryFileWriter::Flush() {
  absl::MutexLock lock(&mu_);
  return FlushLocked();
}

absl::Status SummaryFileWriter::FlushLocked() {
  for (const std::unique_ptr<Event>& e : queue_) file_->Write(*e);
  queue_.clear();
  absl::Status s = file_->Flush();
  last_flush_micros_ = NowMicros();
  if (!s.ok()) {
    return absl::Status(s.code(), absl::StrCat(s.message(),
                                               "\n\tCould not flush events file."));
  }
  return absl::OkStatus();
}

}  // namespace dfx::summary
