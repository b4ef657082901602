// Reading TensorFlow's input files record by record: TFRecord files (every
// record's length and data checked against their masked CRC32C), text
// lines and raw bytes, plain or ZLIB/GZIP, each file confined to the
// server's --data-dir; and writing TFRecord files (RecordWriter).
// TFRecordDataset and TextLineDataset
// (kernels/data/file_kernels.cc) and the TF1 readers
// (kernels/readers/reader_kernels.cc) share it.
#ifndef DFX_KERNELS_DATA_RECORD_FILE_H_
#define DFX_KERNELS_DATA_RECORD_FILE_H_

#include <zlib.h>

#include <cstdint>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace dfx::data {

// How a file is compressed: TensorFlow's compression_type.
enum class Compression { kNone, kZlib, kGzip, kSnappy };

// "", "ZLIB" or "GZIP"; InvalidArgument otherwise. (kSnappy, TensorFlow's
// SNAPPY block framing, is asked for by the save and snapshot ops only.)
absl::StatusOr<Compression> ParseCompression(const std::string& type);

// One file read record by record (or line by line, or byte range by byte
// range), inflated on the way when compressed. Not thread-safe.
class FileReader {
 public:
  // Opens `path` for node `node` (named in a --data-dir refusal): NotFound
  // when it cannot be opened.
  static absl::StatusOr<std::unique_ptr<FileReader>> Open(
      const std::string& node, const std::string& path,
      Compression compression);
  ~FileReader();
  FileReader(const FileReader&) = delete;
  FileReader& operator=(const FileReader&) = delete;

  // The next TFRecord into `out`; false at the end of the file (also one
  // cut off within a record's header, as TensorFlow's reader). DataLoss
  // for a record cut off in its data or footer, or corrupted.
  absl::StatusOr<bool> NextRecord(std::string* out);

  // The next line (without its "\n" or "\r\n"); false at the end.
  absl::StatusOr<bool> NextLine(std::string* out);

  // Up to `n` bytes of the (inflated) file; fewer only at its end.
  absl::StatusOr<size_t> Read(char* buf, size_t n);

  // Skips up to `n` bytes of the (inflated) file; returns how many were
  // skipped (fewer only at its end).
  absl::StatusOr<uint64_t> Skip(uint64_t n);

  // Where the next record starts in the (inflated) file: NextRecord's
  // records so far (TFRecordReader's keys).
  uint64_t record_offset() const { return offset_; }

 private:
  FileReader(std::string path, Compression compression);

  absl::Status Truncated(const char* what) const;
  absl::Status Corrupted(const char* what) const;

  const std::string path_;
  const Compression compression_;
  std::ifstream in_;
  uint64_t offset_ = 0;
  std::string pending_;  // read, not yet returned as a line
  size_t scanned_ = 0;   // bytes of pending_ known to hold no newline
  z_stream zs_{};
  bool zs_open_ = false;
  bool stream_end_ = false;
  std::vector<char> compressed_ = std::vector<char>(1 << 16);
  // SNAPPY: the current block, uncompressed, and how much of it was read.
  std::string block_;
  size_t block_pos_ = 0;
};

// Writes TFRecords into one file (created or truncated), compressed on the
// way as TensorFlow's RecordWriter does, byte for byte: DatasetToTFRecord,
// snapshots, DumpTensor. Not thread-safe.
class RecordWriter {
 public:
  // Opens `path` for node `node` (named in a --data-dir refusal): NotFound
  // when it cannot be created (a missing directory).
  static absl::StatusOr<std::unique_ptr<RecordWriter>> Create(
      const std::string& node, const std::string& path,
      Compression compression);
  ~RecordWriter();
  RecordWriter(const RecordWriter&) = delete;
  RecordWriter& operator=(const RecordWriter&) = delete;

  // Appends one record: its length, the length's masked CRC32C, the data
  // and the data's masked CRC32C.
  absl::Status Write(absl::string_view record);
  // Writes out what is buffered: SNAPPY's open block, and for ZLIB and
  // GZIP a partial flush of the stream (TensorFlow's RecordWriter::Flush;
  // the stream goes on). DataLoss when the file cannot be written.
  absl::Status Flush();
  // Finishes the compressed stream and flushes; DataLoss when the file
  // cannot be written. Later calls do nothing.
  absl::Status Close();

 private:
  RecordWriter(std::string path, Compression compression);
  // `flush`: zlib's Z_NO_FLUSH, Z_PARTIAL_FLUSH or Z_FINISH (SNAPPY writes
  // its open block on either of the last two).
  absl::Status Put(const char* data, size_t n, int flush);
  // SNAPPY: writes `data` as one block.
  absl::Status PutBlock(const char* data, size_t n);

  const std::string path_;
  const Compression compression_;
  std::ofstream out_;
  z_stream zs_{};
  bool zs_open_ = false;
  bool closed_ = false;
  std::vector<char> deflated_ = std::vector<char>(1 << 16);
  std::string pending_;  // SNAPPY: buffered, not yet compressed
};

}  // namespace dfx::data

#endif  // DFX_KERNELS_DATA_RECORD_FILE_H_
