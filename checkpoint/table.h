// LevelDB-format sorted string tables, the format of a tensor bundle's .index
// file (TensorFlow's lib/io/table is a fork of LevelDB's with the same bytes):
// TableBuilder writes one in memory, Table parses and checks one whole,
// TableReader reads one from a file block by block.
//
// Layout: data blocks of prefix-compressed entries with restart points, an
// empty metaindex block, an index block mapping a separator key per data
// block to its BlockHandle, and a 48-byte footer ending in the magic number
// 0xdb4775248b80fb57. Every block is followed by a one-byte compression type
// and the masked CRC32C of the block and that byte. dfx writes uncompressed
// blocks without a filter block, as TensorFlow does for bundles.
#ifndef DFX_CHECKPOINT_TABLE_H_
#define DFX_CHECKPOINT_TABLE_H_

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace dfx::table {

inline constexpr uint64_t kTableMagicNumber = 0xdb4775248b80fb57ull;
// Footer: two BlockHandles padded to 40 bytes, then the magic number.
inline constexpr size_t kFooterSize = 48;
// After each block: compression type (1 byte) and masked CRC32C (4 bytes).
inline constexpr size_t kBlockTrailerSize = 5;

struct TableOptions {
  // Uncompressed bytes of entries per data block (TensorFlow's default).
  size_t block_size = 262144;
  // Entries between restart points (keys stored whole).
  int block_restart_interval = 16;
};

// Builds a table in memory. Not thread-safe.
class TableBuilder {
 public:
  explicit TableBuilder(TableOptions options = {});
  TableBuilder(const TableBuilder&) = delete;
  TableBuilder& operator=(const TableBuilder&) = delete;

  // Appends an entry. InvalidArgument when `key` does not sort strictly
  // after the previous key (bytewise), or after Finish.
  absl::Status Add(absl::string_view key, absl::string_view value);

  // The table's bytes. The builder is spent afterwards.
  std::string Finish();

 private:
  // Prefix-compresses entries, added in key order, into one block.
  class BlockBuilder {
   public:
    explicit BlockBuilder(int restart_interval)
        : restart_interval_(restart_interval) {}
    void Add(absl::string_view key, absl::string_view value);
    // The block's bytes; the builder is empty again afterwards.
    std::string Finish();
    // The size Finish would return.
    size_t SizeEstimate() const {
      return buffer_.size() + 4 * restarts_.size() + 4;
    }
    bool empty() const { return buffer_.empty(); }

   private:
    const int restart_interval_;
    std::string buffer_;
    std::vector<uint32_t> restarts_{0};
    int counter_ = 0;
    std::string last_key_;
  };

  // Appends `contents` as a block with its trailer; returns its encoded
  // BlockHandle.
  std::string WriteBlock(const std::string& contents);
  void FlushDataBlock();

  const TableOptions options_;
  std::string out_;
  std::string last_key_;
  bool has_entries_ = false;
  bool finished_ = false;
  BlockBuilder data_block_;
  BlockBuilder index_block_;
  // Set after a data block is flushed: its handle waits for the next key so
  // that its index entry can use a short separator.
  bool pending_index_entry_ = false;
  std::string pending_handle_;
};

// A table read and checked whole: the footer, every block's checksum and
// structure, and the strict key order. Immutable and thread-safe after
// Parse.
class Table {
 public:
  // Parses the bytes of a table file. DataLoss naming `filename` (used only
  // in messages) for a short file, a bad magic number, a checksum mismatch,
  // a malformed block or keys out of order; Unimplemented for a compressed
  // (snappy) block.
  static absl::StatusOr<Table> Parse(absl::string_view contents,
                                     absl::string_view filename);

  // Every entry, in key order.
  const std::vector<std::pair<std::string, std::string>>& entries() const {
    return entries_;
  }
  // The value of `key`, or null when absent.
  const std::string* Find(absl::string_view key) const;

 private:
  std::vector<std::pair<std::string, std::string>> entries_;
};

// A table read block by block from a file, for tables too large to hold
// whole (V1 checkpoints, whose values are the tensors): Open reads and
// checks the footer and the index block, Get reads and checks only the
// data block that may hold a key. Thread-safe when `read` is.
class TableReader {
 public:
  // Reads exactly `n` bytes at `offset` into `dst`, or fails.
  using ReadFn =
      std::function<absl::Status(uint64_t offset, size_t n, char* dst)>;

  // The table of a file of `file_size` bytes read through `read`. DataLoss
  // naming `filename` (used only in messages) for a short file, a bad
  // magic number or a damaged metaindex or index block; Unimplemented for
  // a compressed block; `read`'s errors.
  static absl::StatusOr<std::unique_ptr<TableReader>> Open(
      ReadFn read, uint64_t file_size, std::string filename);

  // The value of `key`. NotFound when absent; DataLoss naming the file
  // when the block that would hold it is damaged; `read`'s errors.
  absl::StatusOr<std::string> Get(absl::string_view key) const;

 private:
  struct IndexEntry {
    std::string separator;
    uint64_t offset;
    uint64_t size;
  };
  TableReader(ReadFn read, uint64_t file_size, std::string filename)
      : read_(std::move(read)),
        file_size_(file_size),
        filename_(std::move(filename)) {}
  // The checked contents of the block at [offset, offset + size), read
  // into `*buffer`.
  absl::StatusOr<absl::string_view> ReadBlock(uint64_t offset, uint64_t size,
                                              std::string* buffer) const;

  const ReadFn read_;
  const uint64_t file_size_;
  const std::string filename_;
  std::vector<IndexEntry> index_;  // in key order
};

// Varint and fixed-width little-endian coding shared with the bundle code.
void PutVarint64(std::string* dst, uint64_t value);
void PutFixed32(std::string* dst, uint32_t value);
// Decodes a varint from the front of `*input` and advances it; false when
// the input ends first or the varint is longer than 10 bytes.
bool GetVarint64(absl::string_view* input, uint64_t* value);
uint32_t DecodeFixed32(const char* p);

}  // namespace dfx::table

#endif  // DFX_CHECKPOINT_TABLE_H_
