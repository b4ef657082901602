#include "checkpoint/table.h"

#include <algorithm>
#include <cstring>
#include <limits>
#include <optional>

#include "absl/strings/str_cat.h"
#include "base/logging.h"
#include "base/status_macros.h"
#include "checkpoint/crc32c.h"

namespace dfx::table {

void PutVarint64(std::string* dst, uint64_t value) {
  char buf[10];
  int n = 0;
  while (value >= 0x80) {
    buf[n++] = static_cast<char>((value & 0x7f) | 0x80);
    value >>= 7;
  }
  buf[n++] = static_cast<char>(value);
  dst->append(buf, n);
}

void PutFixed32(std::string* dst, uint32_t value) {
  char buf[4];
  for (int i = 0; i < 4; ++i) buf[i] = static_cast<char>(value >> (8 * i));
  dst->append(buf, 4);
}

uint32_t DecodeFixed32(const char* p) {
  const auto* u = reinterpret_cast<const unsigned char*>(p);
  return static_cast<uint32_t>(u[0]) | (static_cast<uint32_t>(u[1]) << 8) |
         (static_cast<uint32_t>(u[2]) << 16) |
         (static_cast<uint32_t>(u[3]) << 24);
}

bool GetVarint64(absl::string_view* input, uint64_t* value) {
  uint64_t result = 0;
  for (size_t i = 0; i < input->size() && i < 10; ++i) {
    const uint64_t byte = static_cast<unsigned char>((*input)[i]);
    result |= (byte & 0x7f) << (7 * i);
    if ((byte & 0x80) == 0) {
      *value = result;
      input->remove_prefix(i + 1);
      return true;
    }
  }
  return false;
}

namespace {

// The bytewise comparator's key shortening (LevelDB's, so that index
// blocks come out as TensorFlow writes them): the shortest key k with
// start <= k < limit.
void ShortestSeparator(std::string* start, absl::string_view limit) {
  const size_t min_length = std::min(start->size(), limit.size());
  size_t diff = 0;
  while (diff < min_length && (*start)[diff] == limit[diff]) ++diff;
  if (diff >= min_length) return;  // one is a prefix of the other
  const auto byte = static_cast<unsigned char>((*start)[diff]);
  if (byte < 0xff && byte + 1 < static_cast<unsigned char>(limit[diff])) {
    (*start)[diff] = static_cast<char>(byte + 1);
    start->resize(diff + 1);
  }
}

// The shortest key >= `key`.
void ShortSuccessor(std::string* key) {
  for (size_t i = 0; i < key->size(); ++i) {
    const auto byte = static_cast<unsigned char>((*key)[i]);
    if (byte != 0xff) {
      (*key)[i] = static_cast<char>(byte + 1);
      key->resize(i + 1);
      return;
    }
  }
}

std::string EncodeHandle(uint64_t offset, uint64_t size) {
  std::string out;
  PutVarint64(&out, offset);
  PutVarint64(&out, size);
  return out;
}

}  // namespace

// ---------------------------------------------------------------------------
// Writing.

void TableBuilder::BlockBuilder::Add(absl::string_view key,
                                     absl::string_view value) {
  size_t shared = 0;
  if (counter_ < restart_interval_) {
    const size_t n = std::min(last_key_.size(), key.size());
    while (shared < n && last_key_[shared] == key[shared]) ++shared;
  } else {
    restarts_.push_back(static_cast<uint32_t>(buffer_.size()));
    counter_ = 0;
  }
  PutVarint64(&buffer_, shared);
  PutVarint64(&buffer_, key.size() - shared);
  PutVarint64(&buffer_, value.size());
  buffer_.append(key.data() + shared, key.size() - shared);
  buffer_.append(value.data(), value.size());
  last_key_.assign(key.data(), key.size());
  ++counter_;
}

std::string TableBuilder::BlockBuilder::Finish() {
  for (uint32_t r : restarts_) PutFixed32(&buffer_, r);
  PutFixed32(&buffer_, static_cast<uint32_t>(restarts_.size()));
  std::string out = std::move(buffer_);
  buffer_.clear();
  restarts_.assign(1, 0);
  counter_ = 0;
  last_key_.clear();
  return out;
}

TableBuilder::TableBuilder(TableOptions options)
    : options_(options),
      data_block_(options.block_restart_interval),
      // Index blocks restart at every entry, as LevelDB's do.
      index_block_(1) {}

absl::Status TableBuilder::Add(absl::string_view key, absl::string_view value) {
  if (finished_) {
    return absl::InvalidArgumentError("TableBuilder::Add after Finish");
  }
  if (has_entries_ && key <= absl::string_view(last_key_)) {
    return absl::InvalidArgumentError(
        absl::StrCat("table keys must be added in strictly increasing order: '",
                     key, "' after '", last_key_, "'"));
  }
  if (pending_index_entry_) {
    std::string separator = last_key_;
    ShortestSeparator(&separator, key);
    index_block_.Add(separator, pending_handle_);
    pending_index_entry_ = false;
  }
  last_key_.assign(key.data(), key.size());
  has_entries_ = true;
  data_block_.Add(key, value);
  if (data_block_.SizeEstimate() >= options_.block_size) FlushDataBlock();
  return absl::OkStatus();
}

void TableBuilder::FlushDataBlock() {
  if (data_block_.empty()) return;
  pending_handle_ = WriteBlock(data_block_.Finish());
  pending_index_entry_ = true;
}

std::string TableBuilder::WriteBlock(const std::string& contents) {
  const uint64_t offset = out_.size();
  out_.append(contents);
  const char type = 0;  // no compression
  uint32_t crc = crc32c::Value(contents.data(), contents.size());
  crc = crc32c::Extend(crc, &type, 1);
  out_.push_back(type);
  PutFixed32(&out_, crc32c::Mask(crc));
  return EncodeHandle(offset, contents.size());
}

std::string TableBuilder::Finish() {
  DFX_CHECK(!finished_);
  finished_ = true;
  FlushDataBlock();
  // No filter block; an empty metaindex block.
  BlockBuilder metaindex(options_.block_restart_interval);
  const std::string metaindex_handle = WriteBlock(metaindex.Finish());
  if (pending_index_entry_) {
    std::string successor = last_key_;
    ShortSuccessor(&successor);
    index_block_.Add(successor, pending_handle_);
    pending_index_entry_ = false;
  }
  const std::string index_handle = WriteBlock(index_block_.Finish());
  std::string footer = metaindex_handle + index_handle;
  footer.resize(kFooterSize - 8, '\0');
  PutFixed32(&footer, static_cast<uint32_t>(kTableMagicNumber & 0xffffffffu));
  PutFixed32(&footer, static_cast<uint32_t>(kTableMagicNumber >> 32));
  out_.append(footer);
  return std::move(out_);
}

// ---------------------------------------------------------------------------
// Reading.

namespace {

class Parser {
 public:
  Parser(absl::string_view contents, absl::string_view filename)
      : contents_(contents), filename_(filename) {}

  absl::Status Corrupt(absl::string_view what) const {
    return absl::DataLossError(
        absl::StrCat("corrupt table file ", filename_, ": ", what));
  }

  absl::Status DecodeHandle(absl::string_view* input, uint64_t* offset,
                            uint64_t* size) const {
    if (!GetVarint64(input, offset) || !GetVarint64(input, size)) {
      return Corrupt("bad block handle");
    }
    return absl::OkStatus();
  }

  // OK when the block at [offset, offset + size) and its trailer lie
  // before the footer of a file of `file_size` bytes.
  absl::Status CheckBlockBounds(uint64_t offset, uint64_t size,
                                uint64_t file_size) const {
    const uint64_t limit = file_size - kFooterSize;
    if (offset > limit || size > limit - offset ||
        kBlockTrailerSize > limit - offset - size) {
      return Corrupt(absl::StrCat("block [", offset, ", +", size,
                                  ") lies outside the file (", file_size,
                                  " bytes); truncated?"));
    }
    return absl::OkStatus();
  }

  // The contents of the block at [offset, offset + size), its trailer
  // checked.
  absl::StatusOr<absl::string_view> ReadBlock(uint64_t offset,
                                              uint64_t size) const {
    DFX_RETURN_IF_ERROR(CheckBlockBounds(offset, size, contents_.size()));
    return CheckBlock(contents_.data() + offset, size, offset);
  }

  // The `size` bytes at `data` (a block at `offset` in the file, followed
  // by its trailer), the trailer's checksum and type checked.
  absl::StatusOr<absl::string_view> CheckBlock(const char* data, uint64_t size,
                                               uint64_t offset) const {
    const uint32_t stored = crc32c::Unmask(DecodeFixed32(data + size + 1));
    const uint32_t actual = crc32c::Value(data, size + 1);
    if (stored != actual) {
      return Corrupt(
          absl::StrCat("block checksum mismatch at offset ", offset));
    }
    switch (data[size]) {
      case 0:
        return absl::string_view(data, size);
      case 1:
        return absl::UnimplementedError(absl::StrCat(
            "table file ", filename_,
            " has a snappy-compressed block; dfx reads uncompressed tables "
            "only (TensorFlow writes bundles uncompressed)"));
      default:
        return Corrupt(
            absl::StrCat("bad block type ", static_cast<int>(data[size])));
    }
  }

  // Calls fn(key, value) for each entry of `block`.
  template <typename Fn>
  absl::Status ForEachEntry(absl::string_view block, Fn&& fn) const {
    if (block.size() < 4) return Corrupt("block shorter than 4 bytes");
    const uint32_t num_restarts =
        DecodeFixed32(block.data() + block.size() - 4);
    if (num_restarts > (block.size() - 4) / 4) {
      return Corrupt("bad restart count in a block");
    }
    const size_t restarts_offset =
        block.size() - 4 * (1 + size_t{num_restarts});
    absl::string_view in = block.substr(0, restarts_offset);
    std::string key;
    while (!in.empty()) {
      uint64_t shared, non_shared, value_size;
      if (!GetVarint64(&in, &shared) || !GetVarint64(&in, &non_shared) ||
          !GetVarint64(&in, &value_size)) {
        return Corrupt("bad entry header in a block");
      }
      if (shared > key.size() || non_shared > in.size() ||
          value_size > in.size() - non_shared) {
        return Corrupt("bad entry in a block");
      }
      key.resize(shared);
      key.append(in.data(), non_shared);
      const absl::string_view value = in.substr(non_shared, value_size);
      in.remove_prefix(non_shared + value_size);
      DFX_RETURN_IF_ERROR(fn(key, value));
    }
    return absl::OkStatus();
  }

 private:
  const absl::string_view contents_;
  const absl::string_view filename_;
};

struct Footer {
  uint64_t meta_offset, meta_size, index_offset, index_size;
};

// The footer (the last kFooterSize bytes of a file of `file_size` bytes).
absl::StatusOr<Footer> ParseFooter(const Parser& parser,
                                   absl::string_view footer,
                                   uint64_t file_size) {
  if (file_size < kFooterSize) {
    return parser.Corrupt(
        absl::StrCat("file too short to be a table (", file_size, " bytes)"));
  }
  const uint64_t magic =
      static_cast<uint64_t>(DecodeFixed32(footer.data() + kFooterSize - 8)) |
      (static_cast<uint64_t>(DecodeFixed32(footer.data() + kFooterSize - 4))
       << 32);
  if (magic != kTableMagicNumber) {
    return parser.Corrupt("not an sstable (bad magic number)");
  }
  Footer f;
  DFX_RETURN_IF_ERROR(
      parser.DecodeHandle(&footer, &f.meta_offset, &f.meta_size));
  DFX_RETURN_IF_ERROR(
      parser.DecodeHandle(&footer, &f.index_offset, &f.index_size));
  return f;
}

}  // namespace

absl::StatusOr<Table> Table::Parse(absl::string_view contents,
                                   absl::string_view filename) {
  Parser parser(contents, filename);
  DFX_ASSIGN_OR_RETURN(
      const Footer footer,
      ParseFooter(parser,
                  contents.size() < kFooterSize
                      ? absl::string_view()
                      : contents.substr(contents.size() - kFooterSize),
                  contents.size()));
  const uint64_t meta_offset = footer.meta_offset;
  const uint64_t meta_size = footer.meta_size;
  const uint64_t index_offset = footer.index_offset;
  const uint64_t index_size = footer.index_size;
  // The metaindex block (empty: bundles have no filter) is read only to
  // check it, so that damage to its handle is not silently accepted.
  DFX_ASSIGN_OR_RETURN(absl::string_view metaindex,
                       parser.ReadBlock(meta_offset, meta_size));
  DFX_RETURN_IF_ERROR(parser.ForEachEntry(
      metaindex,
      [](const std::string&, absl::string_view) { return absl::OkStatus(); }));
  DFX_ASSIGN_OR_RETURN(absl::string_view index,
                       parser.ReadBlock(index_offset, index_size));

  Table table;
  std::string previous_separator;
  bool first_block = true;
  DFX_RETURN_IF_ERROR(parser.ForEachEntry(
      index,
      [&](const std::string& separator,
          absl::string_view handle) -> absl::Status {
        if (!first_block && separator <= previous_separator) {
          return parser.Corrupt("index keys out of order");
        }
        first_block = false;
        previous_separator = separator;
        uint64_t offset, size;
        DFX_RETURN_IF_ERROR(parser.DecodeHandle(&handle, &offset, &size));
        DFX_ASSIGN_OR_RETURN(absl::string_view block,
                             parser.ReadBlock(offset, size));
        return parser.ForEachEntry(
            block,
            [&](const std::string& key,
                absl::string_view value) -> absl::Status {
              if (!table.entries_.empty() &&
                  key <= table.entries_.back().first) {
                return parser.Corrupt(
                    absl::StrCat("keys out of order at '", key, "'"));
              }
              if (key > separator) {
                return parser.Corrupt(absl::StrCat(
                    "key '", key, "' lies beyond its block's index key"));
              }
              table.entries_.emplace_back(key, std::string(value));
              return absl::OkStatus();
            });
      }));
  return table;
}

const std::string* Table::Find(absl::string_view key) const {
  auto it = std::lower_bound(
      entries_.begin(), entries_.end(), key,
      [](const std::pair<std::string, std::string>& e, absl::string_view k) {
        return absl::string_view(e.first) < k;
      });
  if (it == entries_.end() || it->first != key) return nullptr;
  return &it->second;
}

// ---------------------------------------------------------------------------
// Reading block by block.

absl::StatusOr<std::unique_ptr<TableReader>> TableReader::Open(
    ReadFn read, uint64_t file_size, std::string filename) {
  std::unique_ptr<TableReader> reader(
      new TableReader(std::move(read), file_size, std::move(filename)));
  const Parser parser("", reader->filename_);
  std::string footer_bytes;
  if (file_size >= kFooterSize) {
    footer_bytes.resize(kFooterSize);
    DFX_RETURN_IF_ERROR(reader->read_(file_size - kFooterSize, kFooterSize,
                                      footer_bytes.data()));
  }
  DFX_ASSIGN_OR_RETURN(const Footer footer,
                       ParseFooter(parser, footer_bytes, file_size));
  // The metaindex block is checked only, as Table::Parse does.
  std::string buffer;
  DFX_ASSIGN_OR_RETURN(
      absl::string_view metaindex,
      reader->ReadBlock(footer.meta_offset, footer.meta_size, &buffer));
  DFX_RETURN_IF_ERROR(parser.ForEachEntry(
      metaindex,
      [](const std::string&, absl::string_view) { return absl::OkStatus(); }));
  DFX_ASSIGN_OR_RETURN(
      absl::string_view index,
      reader->ReadBlock(footer.index_offset, footer.index_size, &buffer));
  DFX_RETURN_IF_ERROR(parser.ForEachEntry(
      index,
      [&](const std::string& separator,
          absl::string_view handle) -> absl::Status {
        if (!reader->index_.empty() &&
            separator <= reader->index_.back().separator) {
          return parser.Corrupt("index keys out of order");
        }
        IndexEntry e{separator, 0, 0};
        DFX_RETURN_IF_ERROR(parser.DecodeHandle(&handle, &e.offset, &e.size));
        DFX_RETURN_IF_ERROR(
            parser.CheckBlockBounds(e.offset, e.size, reader->file_size_));
        reader->index_.push_back(std::move(e));
        return absl::OkStatus();
      }));
  return reader;
}

absl::StatusOr<absl::string_view> TableReader::ReadBlock(
    uint64_t offset, uint64_t size, std::string* buffer) const {
  const Parser parser("", filename_);
  DFX_RETURN_IF_ERROR(parser.CheckBlockBounds(offset, size, file_size_));
  buffer->resize(size + kBlockTrailerSize);
  DFX_RETURN_IF_ERROR(read_(offset, buffer->size(), buffer->data()));
  return parser.CheckBlock(buffer->data(), size, offset);
}

absl::StatusOr<std::string> TableReader::Get(absl::string_view key) const {
  // The first block whose index key is >= key is the only one that can
  // hold it.
  auto it = std::lower_bound(index_.begin(), index_.end(), key,
                             [](const IndexEntry& e, absl::string_view k) {
                               return absl::string_view(e.separator) < k;
                             });
  if (it == index_.end()) {
    return absl::NotFoundError(absl::StrCat("key not in table ", filename_));
  }
  std::string buffer;
  DFX_ASSIGN_OR_RETURN(absl::string_view block,
                       ReadBlock(it->offset, it->size, &buffer));
  const Parser parser("", filename_);
  std::string previous;
  bool first = true;
  std::optional<std::string> found;
  DFX_RETURN_IF_ERROR(parser.ForEachEntry(
      block,
      [&](const std::string& k, absl::string_view value) -> absl::Status {
        if (!first && k <= previous) {
          return parser.Corrupt(absl::StrCat("keys out of order at '", k, "'"));
        }
        if (k > it->separator) {
          return parser.Corrupt(
              absl::StrCat("key '", k, "' lies beyond its block's index key"));
        }
        first = false;
        previous = k;
        if (k == key) found.emplace(value);
        return absl::OkStatus();
      }));
  if (!found.has_value()) {
    return absl::NotFoundError(absl::StrCat("key not in table ", filename_));
  }
  return *std::move(found);
}

}  // namespace dfx::table
