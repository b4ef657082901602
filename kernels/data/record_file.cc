// See record_file.h. The record format is TensorFlow's TFRecord: an 8-byte
// little-endian length, its masked CRC32C, the data and the data's masked
// CRC32C.
//
// SNAPPY files are TensorFlow's SnappyOutputBuffer's: blocks, each a 4-byte
// big-endian length and that many bytes of raw snappy. The writer buffers
// up to 256 KiB (TensorFlow's input_buffer_size) and compresses the buffer
// as one block when a write does not fit (a write larger than the buffer
// becomes a block of its own) and at Close, as TensorFlow does: the same
// blocks holding the same bytes (each block's compressed bytes are those
// of the snappy linked, Debian's 1.1.9; TensorFlow 2.21's picks other
// matches at times, and each reads the other's).
#include "kernels/data/record_file.h"

#include <algorithm>
#include <cstring>
#include <utility>

#include <snappy.h>

#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "checkpoint/crc32c.h"
#include "runtime/file_policy.h"
#include "runtime/memory_limit.h"

namespace dfx::data {

absl::StatusOr<Compression> ParseCompression(const std::string &type) {
  if (type.empty()) return Compression::kNone;
  if (type == "ZLIB") return Compression::kZlib;
  if (type == "GZIP") return Compression::kGzip;
  return absl::InvalidArgumentError(absl::StrCat(
      "compression_type must be \"\", \"ZLIB\" or \"GZIP\", not \"", type,
      "\""));
}

absl::StatusOr<std::unique_ptr<FileReader>> FileReader::Open(
    const std::string &node, const std::string &path, Compression compression) {
  DFX_ASSIGN_OR_RETURN(std::string resolved, ResolveDataPath(node, path));
  auto r = std::unique_ptr<FileReader>(new FileReader(path, compression));
  r->in_.open(resolved, std::ios::binary);
  if (!r->in_) {
    return absl::NotFoundError(
        absl::StrCat(path, "; No such file or directory (or unreadable)"));
  }
  if (compression == Compression::kZlib || compression == Compression::kGzip) {
    // 16 + MAX_WBITS: a gzip header and trailer around the stream.
    const int bits =
        compression == Compression::kGzip ? 16 + MAX_WBITS : MAX_WBITS;
    if (inflateInit2(&r->zs_, bits) != Z_OK) {
      return absl::InternalError("zlib: inflateInit2 failed");
    }
    r->zs_open_ = true;
  }
  return r;
}

FileReader::~FileReader() {
  if (zs_open_) inflateEnd(&zs_);
}

absl::StatusOr<bool> FileReader::NextRecord(std::string *out) {
  char header[12];
  DFX_ASSIGN_OR_RETURN(size_t got, Read(header, sizeof(header)));
  // A file cut off within a record's header ends there, as TensorFlow's
  // RecordReader takes it (its header read is OutOfRange, the end of the
  // file); one cut off in a record's data or footer is DataLoss.
  if (got < sizeof(header)) return false;
  uint64_t length = 0;
  uint32_t length_crc = 0;
  std::memcpy(&length, header, 8);  // little-endian on dfx's hosts
  std::memcpy(&length_crc, header + 8, 4);
  if (crc32c::Mask(crc32c::Value(header, 8)) != length_crc) {
    return Corrupted("length");
  }
  if (length > (uint64_t{1} << 31)) {
    return absl::DataLossError(
        absl::StrCat("record of ", length, " bytes at offset ", offset_, " in ",
                     path_, ": longer than 2 GiB"));
  }
  // A hostile length must not make the server allocate what it lacks.
  DFX_RETURN_IF_ERROR(CheckHostMemoryHeadroom(
      static_cast<int64_t>(length),
      absl::StrCat("a record at offset ", offset_, " of ", path_)));
  out->resize(length);
  DFX_ASSIGN_OR_RETURN(got, Read(out->data(), length));
  if (got != length) return Truncated("data");
  char footer[4];
  DFX_ASSIGN_OR_RETURN(got, Read(footer, 4));
  if (got != 4) return Truncated("footer");
  uint32_t data_crc = 0;
  std::memcpy(&data_crc, footer, 4);
  if (crc32c::Mask(crc32c::Value(out->data(), out->size())) != data_crc) {
    return Corrupted("data");
  }
  offset_ += 16 + length;
  return true;
}

absl::StatusOr<bool> FileReader::NextLine(std::string *out) {
  out->clear();
  while (true) {
    const size_t newline = pending_.find('\n', scanned_);
    if (newline != std::string::npos) {
      out->assign(pending_, 0, newline);
      pending_.erase(0, newline + 1);
      scanned_ = 0;
      break;
    }
    scanned_ = pending_.size();
    char chunk[1 << 14];
    DFX_ASSIGN_OR_RETURN(size_t got, Read(chunk, sizeof(chunk)));
    if (got == 0) {
      if (pending_.empty()) return false;
      out->swap(pending_);  // a last line without "\n"
      pending_.clear();
      scanned_ = 0;
      break;
    }
    pending_.append(chunk, got);
    DFX_RETURN_IF_ERROR(
        CheckHostMemoryHeadroom(static_cast<int64_t>(pending_.size()),
                                absl::StrCat("a line of ", path_)));
  }
  if (!out->empty() && out->back() == '\r') out->pop_back();
  return true;
}

FileReader::FileReader(std::string path, Compression compression)
    : path_(std::move(path)), compression_(compression) {}

absl::StatusOr<size_t> FileReader::Read(char *buf, size_t n) {
  if (compression_ == Compression::kNone) {
    in_.read(buf, static_cast<std::streamsize>(n));
    if (in_.bad()) {
      return absl::DataLossError(absl::StrCat("cannot read ", path_));
    }
    return static_cast<size_t>(in_.gcount());
  }
  if (compression_ == Compression::kSnappy) {
    size_t done = 0;
    while (done < n) {
      if (block_pos_ == block_.size()) {
        unsigned char len[4];
        in_.read(reinterpret_cast<char *>(len), 4);
        const std::streamsize got = in_.gcount();
        if (got == 0) break;  // the end of the file
        if (got != 4) {
          return absl::DataLossError(
              absl::StrCat("truncated snappy block length in ", path_));
        }
        const uint32_t size = (uint32_t{len[0]} << 24) |
                              (uint32_t{len[1]} << 16) |
                              (uint32_t{len[2]} << 8) | len[3];
        DFX_RETURN_IF_ERROR(CheckHostMemoryHeadroom(
            size, absl::StrCat("a snappy block of ", path_)));
        std::string compressed(size, '\0');
        in_.read(compressed.data(), size);
        if (static_cast<uint32_t>(in_.gcount()) != size) {
          return absl::DataLossError(
              absl::StrCat("truncated snappy block in ", path_));
        }
        size_t length = 0;
        if (!snappy::GetUncompressedLength(compressed.data(), size, &length)) {
          return absl::DataLossError(
              absl::StrCat("corrupted snappy block in ", path_));
        }
        DFX_RETURN_IF_ERROR(
            CheckHostMemoryHeadroom(static_cast<int64_t>(length),
                                    absl::StrCat("a snappy block of ", path_)));
        block_.clear();
        block_pos_ = 0;
        if (!snappy::Uncompress(compressed.data(), size, &block_)) {
          return absl::DataLossError(
              absl::StrCat("corrupted snappy block in ", path_));
        }
        continue;
      }
      const size_t take = std::min(n - done, block_.size() - block_pos_);
      std::memcpy(buf + done, block_.data() + block_pos_, take);
      block_pos_ += take;
      done += take;
    }
    return done;
  }
  zs_.next_out = reinterpret_cast<Bytef *>(buf);
  zs_.avail_out = static_cast<uInt>(n);
  while (zs_.avail_out > 0 && !stream_end_) {
    if (zs_.avail_in == 0) {
      in_.read(compressed_.data(),
               static_cast<std::streamsize>(compressed_.size()));
      const std::streamsize got = in_.gcount();
      if (got <= 0) {
        return absl::DataLossError(
            absl::StrCat("truncated compressed data in ", path_));
      }
      zs_.next_in = reinterpret_cast<Bytef *>(compressed_.data());
      zs_.avail_in = static_cast<uInt>(got);
    }
    const int ret = inflate(&zs_, Z_NO_FLUSH);
    if (ret == Z_STREAM_END) {
      stream_end_ = true;
    } else if (ret != Z_OK && ret != Z_BUF_ERROR) {
      return absl::DataLossError(absl::StrCat(
          "corrupted compressed data in ", path_, " (zlib error ", ret, ")"));
    }
  }
  return n - zs_.avail_out;
}

absl::StatusOr<uint64_t> FileReader::Skip(uint64_t n) {
  char scratch[1 << 14];
  uint64_t skipped = 0;
  while (skipped < n) {
    const size_t want =
        static_cast<size_t>(std::min<uint64_t>(n - skipped, sizeof(scratch)));
    DFX_ASSIGN_OR_RETURN(size_t got, Read(scratch, want));
    skipped += got;
    if (got < want) break;
  }
  return skipped;
}

absl::Status FileReader::Truncated(const char *what) const {
  return absl::DataLossError(absl::StrCat(
      "truncated record ", what, " at offset ", offset_, " in ", path_));
}
absl::Status FileReader::Corrupted(const char *what) const {
  return absl::DataLossError(absl::StrCat("corrupted record ", what,
                                          " at offset ", offset_, " in ", path_,
                                          " (CRC32C mismatch)"));
}

absl::StatusOr<std::unique_ptr<RecordWriter>> RecordWriter::Create(
    const std::string &node, const std::string &path, Compression compression) {
  DFX_ASSIGN_OR_RETURN(std::string resolved, ResolveDataPath(node, path));
  auto w = std::unique_ptr<RecordWriter>(new RecordWriter(path, compression));
  w->out_.open(resolved, std::ios::binary | std::ios::trunc);
  if (!w->out_) {
    return absl::NotFoundError(
        absl::StrCat(path, "; cannot create the file (a missing directory?)"));
  }
  if (compression == Compression::kZlib || compression == Compression::kGzip) {
    const int bits =
        compression == Compression::kGzip ? 16 + MAX_WBITS : MAX_WBITS;
    // memLevel 9, as TensorFlow's ZlibCompressionOptions: the same bytes as
    // TensorFlow's writer (deflate's output does not depend on how the
    // input is cut between calls, only on where the stream is flushed).
    if (deflateInit2(&w->zs_, Z_DEFAULT_COMPRESSION, Z_DEFLATED, bits, 9,
                     Z_DEFAULT_STRATEGY) != Z_OK) {
      return absl::InternalError("zlib: deflateInit2 failed");
    }
    w->zs_open_ = true;
  }
  return w;
}

RecordWriter::RecordWriter(std::string path, Compression compression)
    : path_(std::move(path)), compression_(compression) {}

RecordWriter::~RecordWriter() {
  if (zs_open_) deflateEnd(&zs_);
}

absl::Status RecordWriter::Write(absl::string_view record) {
  char header[12];
  const uint64_t length = record.size();
  std::memcpy(header, &length, 8);  // little-endian on dfx's hosts
  const uint32_t length_crc = crc32c::Mask(crc32c::Value(header, 8));
  std::memcpy(header + 8, &length_crc, 4);
  const uint32_t data_crc =
      crc32c::Mask(crc32c::Value(record.data(), record.size()));
  char footer[4];
  std::memcpy(footer, &data_crc, 4);
  DFX_RETURN_IF_ERROR(Put(header, sizeof(header), Z_NO_FLUSH));
  DFX_RETURN_IF_ERROR(Put(record.data(), record.size(), Z_NO_FLUSH));
  return Put(footer, sizeof(footer), Z_NO_FLUSH);
}

absl::Status RecordWriter::Flush() {
  if (closed_) return absl::OkStatus();
  if (zs_open_ || compression_ == Compression::kSnappy) {
    DFX_RETURN_IF_ERROR(Put(nullptr, 0, Z_PARTIAL_FLUSH));
  }
  out_.flush();
  if (!out_) return absl::DataLossError(absl::StrCat("cannot write ", path_));
  return absl::OkStatus();
}

absl::Status RecordWriter::Close() {
  if (closed_) return absl::OkStatus();
  closed_ = true;
  if (zs_open_ || compression_ == Compression::kSnappy) {
    DFX_RETURN_IF_ERROR(Put(nullptr, 0, Z_FINISH));
  }
  out_.flush();
  if (!out_) return absl::DataLossError(absl::StrCat("cannot write ", path_));
  out_.close();
  return absl::OkStatus();
}

absl::Status RecordWriter::PutBlock(const char *data, size_t n) {
  std::string compressed;
  snappy::Compress(data, n, &compressed);
  const uint32_t size = static_cast<uint32_t>(compressed.size());
  const char len[4] = {static_cast<char>(size >> 24),
                       static_cast<char>(size >> 16),
                       static_cast<char>(size >> 8), static_cast<char>(size)};
  out_.write(len, 4);
  out_.write(compressed.data(), static_cast<std::streamsize>(size));
  return absl::OkStatus();
}

absl::Status RecordWriter::Put(const char *data, size_t n, int flush) {
  constexpr size_t kSnappyBuffer = 256 << 10;
  if (compression_ == Compression::kSnappy) {
    if (n > kSnappyBuffer - pending_.size() || flush != Z_NO_FLUSH) {
      if (!pending_.empty()) {
        DFX_RETURN_IF_ERROR(PutBlock(pending_.data(), pending_.size()));
        pending_.clear();
      }
    }
    if (n > kSnappyBuffer) {
      DFX_RETURN_IF_ERROR(PutBlock(data, n));
    } else if (n > 0) {
      pending_.append(data, n);
    }
  } else if (compression_ == Compression::kNone) {
    out_.write(data, static_cast<std::streamsize>(n));
  } else {
    zs_.next_in = reinterpret_cast<Bytef *>(const_cast<char *>(data));
    zs_.avail_in = static_cast<uInt>(n);
    int ret = Z_OK;
    do {
      zs_.next_out = reinterpret_cast<Bytef *>(deflated_.data());
      zs_.avail_out = static_cast<uInt>(deflated_.size());
      ret = deflate(&zs_, flush);
      if (ret == Z_STREAM_ERROR) {
        return absl::InternalError(
            absl::StrCat("zlib: deflate failed writing ", path_));
      }
      out_.write(deflated_.data(), static_cast<std::streamsize>(
                                       deflated_.size() - zs_.avail_out));
    } while (zs_.avail_out == 0 || (flush == Z_FINISH && ret != Z_STREAM_END));
  }
  if (!out_) return absl::DataLossError(absl::StrCat("cannot write ", path_));
  return absl::OkStatus();
}

}  // namespace dfx::data
