#include "checkpoint/tensor_bundle.h"

#include <algorithm>
#include <bit>
#include <cstring>
#include <limits>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "base/status_macros.h"
#include "checkpoint/crc32c.h"
#include "checkpoint/internal/file.h"
#include "graph/types.h"
#include "runtime/variant.h"

namespace dfx {

using checkpoint_internal::RandomAccessFile;
using checkpoint_internal::WritableFile;

namespace {

static_assert(std::endian::native == std::endian::little,
              "dfx writes and reads little-endian bundles only");

// Data-file writes go through a buffer of this size; reads of large tensors
// go straight into the tensor in pieces of this size, each checksummed
// while it is still in cache.
constexpr size_t kBufferSize = size_t{8} << 20;
constexpr size_t kChecksumPiece = size_t{1} << 20;

std::string TempName(const std::string& path) {
  return absl::StrCat(path, ".tempstate", checkpoint_internal::RandomId());
}

std::string HeaderBytes(int num_shards, BundleHeaderProto::Endianness endian,
                        const VersionDef& version) {
  BundleHeaderProto header;
  header.set_num_shards(num_shards);
  header.set_endianness(endian);
  *header.mutable_version() = version;
  return header.SerializeAsString();
}

VersionDef CurrentVersion() {
  VersionDef v;
  v.set_producer(kTensorBundleVersion);
  v.set_min_consumer(0);
  return v;
}

// Writes `entries` (with the header) as a table to a temporary file beside
// `index_path`, synced. Returns the temporary path; removes it on error.
absl::StatusOr<std::string> WriteIndexTemp(
    const std::string& index_path, const std::string& header,
    const std::map<std::string, BundleEntryProto>& entries) {
  table::TableBuilder builder;
  DFX_RETURN_IF_ERROR(builder.Add("", header));
  for (const auto& [key, entry] : entries) {
    DFX_RETURN_IF_ERROR(builder.Add(key, entry.SerializeAsString()));
  }
  const std::string contents = builder.Finish();
  const std::string temp = TempName(index_path);
  DFX_ASSIGN_OR_RETURN(std::unique_ptr<WritableFile> file,
                       WritableFile::Create(temp));
  absl::Status s = file->Append(contents.data(), contents.size());
  if (s.ok()) s = file->SyncAndClose();
  if (!s.ok()) {
    file.reset();
    checkpoint_internal::RemoveFileQuietly(temp);
    return s;
  }
  return temp;
}

std::string Hex32(uint32_t v) { return absl::StrFormat("%08x", v); }

}  // namespace

std::string MetaFilename(absl::string_view prefix) {
  return absl::StrCat(prefix, ".index");
}

std::string DataFilename(absl::string_view prefix, int shard, int num_shards) {
  return absl::StrFormat("%s.data-%05d-of-%05d", prefix, shard, num_shards);
}

bool IsSavableDataType(DataType dtype) {
  if (IsRefType(dtype)) return false;
  return dtype == DT_STRING || dtype == DT_VARIANT || DataTypeSize(dtype) > 0;
}

namespace {

// A variant tensor's bytes, as TensorFlow writes them: per element the
// varint64 length of its serialized VariantTensorDataProto, the proto, and
// the masked running checksum so far. `*crc` covers each length as a
// uint64, the proto and the checksum written after it.
std::string EncodeVariantTensor(const Tensor& tensor, uint32_t* crc) {
  std::string out;
  const Variant* values = tensor.data<Variant>();
  for (int64_t i = 0; i < tensor.NumElements(); ++i) {
    VariantTensorDataProto proto;
    values[i].Encode(&proto);
    const std::string elem = proto.SerializeAsString();
    const uint64_t len = elem.size();
    table::PutVarint64(&out, len);
    *crc = crc32c::Extend(*crc, &len, sizeof(len));
    out.append(elem);
    *crc = crc32c::Extend(*crc, elem.data(), elem.size());
    const uint32_t running = crc32c::Mask(*crc);
    char raw[4];
    std::memcpy(raw, &running, 4);
    out.append(raw, 4);
    *crc = crc32c::Extend(*crc, raw, 4);
  }
  return out;
}

}  // namespace

// ---------------------------------------------------------------------------
// BundleWriter.

absl::StatusOr<std::unique_ptr<BundleWriter>> BundleWriter::Create(
    std::string prefix, Options options) {
  if (options.data_alignment < 1) {
    return absl::InvalidArgumentError(absl::StrCat(
        "data_alignment must be >= 1, got ", options.data_alignment));
  }
  if (prefix.empty()) {
    return absl::InvalidArgumentError("empty checkpoint prefix");
  }
  DFX_RETURN_IF_ERROR(
      checkpoint_internal::CreateDirs(checkpoint_internal::Dirname(prefix)));
  std::string temp = TempName(DataFilename(prefix, 0, 1));
  DFX_ASSIGN_OR_RETURN(std::unique_ptr<WritableFile> data,
                       WritableFile::Create(temp));
  return std::unique_ptr<BundleWriter>(new BundleWriter(
      std::move(prefix), options, std::move(data), std::move(temp)));
}

BundleWriter::BundleWriter(std::string prefix, Options options,
                           std::unique_ptr<WritableFile> data,
                           std::string data_temp_path)
    : prefix_(std::move(prefix)),
      options_(options),
      data_(std::move(data)),
      data_temp_path_(std::move(data_temp_path)) {
  buffer_.reserve(kBufferSize);
}

BundleWriter::~BundleWriter() {
  if (!finished_ || !status_.ok()) RemoveTemps();
}

void BundleWriter::RemoveTemps() {
  data_.reset();
  checkpoint_internal::RemoveFileQuietly(data_temp_path_);
  if (!index_temp_path_.empty()) {
    checkpoint_internal::RemoveFileQuietly(index_temp_path_);
  }
}

absl::Status BundleWriter::FlushBuffer() {
  if (buffer_.empty()) return absl::OkStatus();
  absl::Status s = data_->Append(buffer_.data(), buffer_.size());
  buffer_.clear();
  return s;
}

absl::Status BundleWriter::Append(const void* data, size_t n, uint32_t* crc) {
  const char* p = static_cast<const char*>(data);
  while (n > 0) {
    if (buffer_.size() == kBufferSize) DFX_RETURN_IF_ERROR(FlushBuffer());
    const size_t take =
        std::min({n, kBufferSize - buffer_.size(), kChecksumPiece});
    const size_t start = buffer_.size();
    buffer_.append(p, take);
    if (crc != nullptr)
      *crc = crc32c::Extend(*crc, buffer_.data() + start, take);
    p += take;
    n -= take;
    offset_ += take;
  }
  return absl::OkStatus();
}

absl::Status BundleWriter::WriteStringTensor(const Tensor& tensor,
                                             uint32_t* crc, uint64_t* size) {
  const int64_t n = tensor.NumElements();
  const std::string* strings = tensor.data<std::string>();
  const uint64_t start = offset_;
  // The lengths as varints; the checksum covers each as a little-endian
  // uint32 (uint64 when it does not fit), as TensorFlow's does.
  std::string lengths;
  lengths.reserve(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) {
    const uint64_t len = strings[i].size();
    table::PutVarint64(&lengths, len);
    if (len <= std::numeric_limits<uint32_t>::max()) {
      const uint32_t len32 = static_cast<uint32_t>(len);
      *crc = crc32c::Extend(*crc, &len32, sizeof(len32));
    } else {
      *crc = crc32c::Extend(*crc, &len, sizeof(len));
    }
  }
  DFX_RETURN_IF_ERROR(Append(lengths.data(), lengths.size(), nullptr));
  const uint32_t length_checksum = crc32c::Mask(*crc);
  char raw[4];
  std::memcpy(raw, &length_checksum, 4);
  DFX_RETURN_IF_ERROR(Append(raw, 4, crc));
  for (int64_t i = 0; i < n; ++i) {
    DFX_RETURN_IF_ERROR(Append(strings[i].data(), strings[i].size(), crc));
  }
  *size = offset_ - start;
  return absl::OkStatus();
}

absl::Status BundleWriter::Add(absl::string_view key, const Tensor& tensor) {
  if (!status_.ok()) return status_;
  if (finished_) {
    return absl::FailedPreconditionError("BundleWriter::Add after Finish");
  }
  if (key.empty()) {
    status_ = absl::InvalidArgumentError(
        "a checkpoint cannot hold a tensor under the empty name (the "
        "bundle header's key)");
    return status_;
  }
  const std::string key_string(key);
  if (entries_.contains(key_string)) {
    status_ =
        absl::InvalidArgumentError(absl::StrCat("Adding duplicate key: ", key));
    return status_;
  }
  if (!IsSavableDataType(tensor.dtype())) {
    status_ = absl::InvalidArgumentError(absl::StrCat(
        "cannot save tensor '", key, "' of type ",
        DataTypeString(tensor.dtype()),
        " in a checkpoint: only fixed-size types and strings can be saved"));
    return status_;
  }
  BundleEntryProto entry;
  entry.set_dtype(tensor.dtype());
  tensor.shape().AsProto(entry.mutable_shape());
  entry.set_shard_id(0);
  entry.set_offset(static_cast<int64_t>(offset_));
  uint32_t crc = 0;
  uint64_t size = 0;
  absl::Status s;
  if (tensor.dtype() == DT_STRING) {
    s = WriteStringTensor(tensor, &crc, &size);
  } else if (tensor.dtype() == DT_VARIANT) {
    const std::string bytes = EncodeVariantTensor(tensor, &crc);
    size = bytes.size();
    s = Append(bytes.data(), bytes.size(), nullptr);
  } else {
    size = tensor.TotalBytes();
    s = Append(tensor.raw_data(), size, &crc);
  }
  if (s.ok() && options_.data_alignment > 1) {
    const uint64_t over =
        offset_ % static_cast<uint64_t>(options_.data_alignment);
    if (over != 0) {
      const std::string zeros(options_.data_alignment - over, '\0');
      s = Append(zeros.data(), zeros.size(), nullptr);
    }
  }
  if (!s.ok()) {
    status_ = s;
    return status_;
  }
  entry.set_size(static_cast<int64_t>(size));
  entry.set_crc32c(crc32c::Mask(crc));
  entries_.emplace(key_string, std::move(entry));
  return absl::OkStatus();
}

absl::Status BundleWriter::Finish() {
  if (finished_) {
    return absl::FailedPreconditionError("BundleWriter::Finish called twice");
  }
  finished_ = true;
  if (status_.ok()) status_ = FlushBuffer();
  if (status_.ok()) status_ = data_->SyncAndClose();
  if (status_.ok()) {
    absl::StatusOr<std::string> temp = WriteIndexTemp(
        MetaFilename(prefix_),
        HeaderBytes(1, BundleHeaderProto::LITTLE, CurrentVersion()), entries_);
    if (temp.ok()) {
      index_temp_path_ = *std::move(temp);
    } else {
      status_ = temp.status();
    }
  }
  // Both files are complete and synced; only the renames remain. A
  // directory in the way would fail the second rename after the first
  // replaced the old data, so it fails the save before either.
  for (const std::string& target :
       {DataFilename(prefix_, 0, 1), MetaFilename(prefix_)}) {
    if (status_.ok() && checkpoint_internal::IsDirectory(target)) {
      status_ = absl::FailedPreconditionError(
          absl::StrCat("cannot write checkpoint ", prefix_, ": ", target,
                       " is a directory"));
    }
  }
  // The data file goes first: the index names it, so a reader never finds
  // a new index without its data.
  if (status_.ok()) {
    status_ = checkpoint_internal::RenameFile(data_temp_path_,
                                              DataFilename(prefix_, 0, 1));
  }
  if (status_.ok()) {
    status_ = checkpoint_internal::RenameFile(index_temp_path_,
                                              MetaFilename(prefix_));
  }
  if (!status_.ok()) {
    RemoveTemps();
    return status_;
  }
  checkpoint_internal::SyncDirQuietly(checkpoint_internal::Dirname(prefix_));
  return absl::OkStatus();
}

// ---------------------------------------------------------------------------
// BundleReader.

absl::StatusOr<std::unique_ptr<BundleReader>> BundleReader::Open(
    std::string prefix) {
  const std::string path = MetaFilename(prefix);
  absl::StatusOr<std::string> contents =
      checkpoint_internal::ReadFileToString(path);
  if (!contents.ok()) {
    if (absl::IsNotFound(contents.status())) {
      return absl::NotFoundError(
          absl::StrCat("Failed to find any matching files for ", prefix,
                       ": no checkpoint index file ", path));
    }
    return contents.status();
  }
  DFX_ASSIGN_OR_RETURN(table::Table table,
                       table::Table::Parse(*contents, path));
  const std::string* header_bytes = table.Find("");
  if (header_bytes == nullptr) {
    return absl::DataLossError(
        absl::StrCat("corrupt checkpoint index ", path,
                     ": no bundle header (the entry under the empty key)"));
  }
  BundleHeaderProto header;
  if (!header.ParseFromString(*header_bytes)) {
    return absl::DataLossError(absl::StrCat("corrupt checkpoint index ", path,
                                            ": unable to parse the header"));
  }
  if (header.num_shards() < 1) {
    return absl::DataLossError(absl::StrCat("corrupt checkpoint index ", path,
                                            ": num_shards is ",
                                            header.num_shards()));
  }
  if (header.endianness() != BundleHeaderProto::LITTLE) {
    return absl::UnimplementedError(absl::StrCat(
        "checkpoint ", prefix,
        " was written on a big-endian machine; dfx reads little-endian "
        "checkpoints only"));
  }
  const VersionDef& v = header.version();
  if (v.producer() < 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        "Checkpoint producer version ", v.producer(),
        " below min producer 0 supported by dfx for checkpoint ", prefix));
  }
  if (v.min_consumer() > kTensorBundleVersion) {
    return absl::InvalidArgumentError(
        absl::StrCat("Checkpoint min consumer version ", v.min_consumer(),
                     " above current version ", kTensorBundleVersion,
                     " for checkpoint ", prefix));
  }
  for (int bad : v.bad_consumers()) {
    if (bad == kTensorBundleVersion) {
      return absl::InvalidArgumentError(
          absl::StrCat("Checkpoint disallows consumer version ", bad,
                       ". Please upgrade dfx: checkpoint ", prefix));
    }
  }
  return std::unique_ptr<BundleReader>(
      new BundleReader(std::move(prefix), std::move(table), std::move(header)));
}

BundleReader::BundleReader(std::string prefix, table::Table table,
                           BundleHeaderProto header)
    : prefix_(std::move(prefix)),
      table_(std::move(table)),
      header_(std::move(header)) {}

BundleReader::~BundleReader() = default;

bool BundleReader::Contains(absl::string_view key) const {
  return !key.empty() && table_.Find(key) != nullptr;
}

std::vector<std::string> BundleReader::Keys() const {
  std::vector<std::string> keys;
  keys.reserve(table_.entries().size());
  for (const auto& [key, value] : table_.entries()) {
    if (!key.empty()) keys.push_back(key);
  }
  return keys;
}

absl::StatusOr<BundleEntryProto> BundleReader::GetEntry(
    absl::string_view key) const {
  const std::string* value = key.empty() ? nullptr : table_.Find(key);
  if (value == nullptr) {
    return absl::NotFoundError(
        absl::StrCat("Key ", key, " not found in checkpoint"));
  }
  BundleEntryProto entry;
  auto corrupt = [&](absl::string_view what) {
    return absl::DataLossError(absl::StrCat("corrupt checkpoint index ",
                                            MetaFilename(prefix_), ": entry '",
                                            key, "' ", what));
  };
  if (!entry.ParseFromString(*value)) return corrupt("does not parse");
  if (!IsSavableDataType(entry.dtype())) {
    return corrupt(absl::StrCat("has dtype ", DataTypeString(entry.dtype())));
  }
  absl::StatusOr<TensorShape> shape = TensorShape::FromProto(entry.shape());
  if (!shape.ok()) {
    return corrupt(absl::StrCat("has an invalid tensor shape: ",
                                shape.status().message()));
  }
  if (entry.slices().empty()) {
    if (entry.shard_id() < 0 || entry.shard_id() >= num_shards()) {
      return corrupt(absl::StrCat("names data shard ", entry.shard_id(), " of ",
                                  num_shards()));
    }
    if (entry.offset() < 0 || entry.size() < 0) {
      return corrupt(absl::StrCat("has offset ", entry.offset(), " and size ",
                                  entry.size()));
    }
    const uint64_t size = static_cast<uint64_t>(entry.size());
    const uint64_t n = static_cast<uint64_t>(shape->num_elements());
    if (entry.dtype() == DT_VARIANT) {
      // Checked element by element when read.
    } else if (entry.dtype() == DT_STRING) {
      // Each element takes at least a one-byte length; then the 4-byte
      // checksum of the lengths.
      if (n > 0 ? (size < 4 || size - 4 < n) : (size != 0 && size != 4)) {
        return corrupt(absl::StrCat("has size ", size, " for ", n, " strings"));
      }
    } else {
      uint64_t expected;
      if (__builtin_mul_overflow(
              n, static_cast<uint64_t>(DataTypeSize(entry.dtype())),
              &expected) ||
          size != expected) {
        return absl::DataLossError(absl::StrCat(
            "Invalid size in bundle entry: key ", key, "; stored size ", size,
            "; expected size ", n, " * ", DataTypeSize(entry.dtype()),
            " (checkpoint ", MetaFilename(prefix_), ")"));
      }
    }
  }
  return entry;
}

absl::Status BundleReader::LookupDtypeAndShape(absl::string_view key,
                                               DataType* dtype,
                                               TensorShape* shape) const {
  DFX_ASSIGN_OR_RETURN(BundleEntryProto entry, GetEntry(key));
  *dtype = entry.dtype();
  DFX_ASSIGN_OR_RETURN(*shape, TensorShape::FromProto(entry.shape()));
  return absl::OkStatus();
}

absl::StatusOr<Tensor> BundleReader::Lookup(absl::string_view key,
                                            Allocator* allocator) const {
  DFX_ASSIGN_OR_RETURN(BundleEntryProto entry, GetEntry(key));
  DFX_ASSIGN_OR_RETURN(const RandomAccessFile* file,
                       CheckedDataFile(key, entry));
  DFX_ASSIGN_OR_RETURN(TensorShape shape,
                       TensorShape::FromProto(entry.shape()));
  DFX_ASSIGN_OR_RETURN(
      Tensor out,
      Tensor::Allocate(allocator != nullptr ? allocator : CpuAllocator(),
                       entry.dtype(), shape));
  DFX_RETURN_IF_ERROR(ReadInto(key, entry, *file, &out));
  return out;
}

absl::Status BundleReader::LookupInto(absl::string_view key,
                                      Tensor* out) const {
  DFX_ASSIGN_OR_RETURN(BundleEntryProto entry, GetEntry(key));
  DFX_ASSIGN_OR_RETURN(TensorShape shape,
                       TensorShape::FromProto(entry.shape()));
  if (out->dtype() != entry.dtype() || out->shape() != shape) {
    return absl::InvalidArgumentError(absl::StrCat(
        "tensor '", key, "' in checkpoint ", prefix_, " is a ",
        DataTypeString(entry.dtype()), " tensor of shape ", shape.DebugString(),
        ", not ", DataTypeString(out->dtype()), " ",
        out->shape().DebugString()));
  }
  DFX_ASSIGN_OR_RETURN(const RandomAccessFile* file,
                       CheckedDataFile(key, entry));
  return ReadInto(key, entry, *file, out);
}

absl::StatusOr<const RandomAccessFile*> BundleReader::CheckedDataFile(
    absl::string_view key, const BundleEntryProto& entry) const {
  if (!entry.slices().empty()) {
    return absl::UnimplementedError(absl::StrCat(
        "tensor '", key, "' in checkpoint ", prefix_,
        " is saved in slices (a partitioned variable); dfx restores whole "
        "tensors only"));
  }
  DFX_ASSIGN_OR_RETURN(const RandomAccessFile* file,
                       DataFile(entry.shard_id()));
  const uint64_t offset = static_cast<uint64_t>(entry.offset());
  const uint64_t size = static_cast<uint64_t>(entry.size());
  if (offset > file->size() || size > file->size() - offset) {
    return absl::DataLossError(
        absl::StrCat("checkpoint data file ", file->path(),
                     " is truncated: tensor '", key, "' needs bytes [", offset,
                     ", ", offset + size, ") but the file has ", file->size()));
  }
  return file;
}

absl::StatusOr<const RandomAccessFile*> BundleReader::DataFile(
    int shard) const {
  absl::MutexLock lock(&mu_);
  std::unique_ptr<RandomAccessFile>& file = data_files_[shard];
  if (file == nullptr) {
    absl::StatusOr<std::unique_ptr<RandomAccessFile>> opened =
        RandomAccessFile::Open(DataFilename(prefix_, shard, num_shards()));
    if (!opened.ok()) {
      data_files_.erase(shard);
      return opened.status();
    }
    file = *std::move(opened);
  }
  return file.get();
}

absl::Status BundleReader::ReadInto(absl::string_view key,
                                    const BundleEntryProto& entry,
                                    const RandomAccessFile& file,
                                    Tensor* out) const {
  const uint64_t offset = static_cast<uint64_t>(entry.offset());
  const uint64_t size = static_cast<uint64_t>(entry.size());
  auto mismatch = [&](uint32_t computed) {
    return absl::DataLossError(absl::StrCat(
        "checksum mismatch for tensor '", key, "' in checkpoint data file ",
        file.path(), " (", size, " bytes at offset ", offset, "): stored ",
        Hex32(crc32c::Unmask(entry.crc32c())), ", computed ", Hex32(computed),
        "; the file is corrupt"));
  };
  const int64_t n = out->NumElements();
  uint32_t crc = 0;

  if (entry.dtype() == DT_VARIANT) {
    std::string buf(static_cast<size_t>(size), '\0');
    DFX_RETURN_IF_ERROR(file.ReadExactly(offset, buf.size(), buf.data()));
    auto corrupt = [&](absl::string_view what) {
      return absl::DataLossError(
          absl::StrCat("variant tensor '", key, "' in checkpoint data file ",
                       file.path(), " is corrupt: ", what));
    };
    absl::string_view in(buf);
    Variant* values = out->data<Variant>();
    for (int64_t i = 0; i < n; ++i) {
      uint64_t len = 0;
      if (!table::GetVarint64(&in, &len)) return corrupt("bad element length");
      crc = crc32c::Extend(crc, &len, sizeof(len));
      if (len > in.size() || in.size() - len < 4) {
        return corrupt("an element runs past its entry");
      }
      const absl::string_view elem = in.substr(0, static_cast<size_t>(len));
      crc = crc32c::Extend(crc, elem.data(), elem.size());
      const uint32_t stored = table::DecodeFixed32(elem.data() + elem.size());
      if (crc32c::Unmask(stored) != crc) {
        return corrupt("an element's checksum does not match");
      }
      crc = crc32c::Extend(crc, elem.data() + elem.size(), 4);
      in.remove_prefix(elem.size() + 4);
      VariantTensorDataProto proto;
      if (!proto.ParseFromArray(elem.data(), static_cast<int>(elem.size()))) {
        return corrupt("an element does not parse");
      }
      DFX_ASSIGN_OR_RETURN(values[i], Variant::Decode(proto));
    }
    if (!in.empty()) return corrupt("bytes left over after the last element");
    if (crc32c::Unmask(entry.crc32c()) != crc) return mismatch(crc);
    return absl::OkStatus();
  }

  if (entry.dtype() != DT_STRING) {
    DFX_CHECK(size == out->TotalBytes());  // GetEntry checked the size
    char* dst = static_cast<char*>(out->raw_data());
    for (uint64_t done = 0; done < size;) {
      const size_t piece =
          static_cast<size_t>(std::min<uint64_t>(size - done, kBufferSize));
      DFX_RETURN_IF_ERROR(file.ReadExactly(offset + done, piece, dst + done));
      for (size_t c = 0; c < piece; c += kChecksumPiece) {
        crc = crc32c::Extend(crc, dst + done + c,
                             std::min(kChecksumPiece, piece - c));
      }
      done += piece;
    }
    if (crc32c::Unmask(entry.crc32c()) != crc) return mismatch(crc);
    if (entry.dtype() == DT_BOOL) {
      // Any byte other than 0 or 1 would be an invalid C++ bool.
      auto* bytes = reinterpret_cast<uint8_t*>(dst);
      for (uint64_t i = 0; i < size; ++i) bytes[i] = bytes[i] != 0;
    }
    return absl::OkStatus();
  }

  // Strings: varint64 lengths, their masked checksum, the bytes.
  if (size == 0 && n == 0) return absl::OkStatus();
  std::string buf(static_cast<size_t>(size), '\0');
  DFX_RETURN_IF_ERROR(file.ReadExactly(offset, buf.size(), buf.data()));
  auto corrupt = [&](absl::string_view what) {
    return absl::DataLossError(
        absl::StrCat("string tensor '", key, "' in checkpoint data file ",
                     file.path(), " is corrupt: ", what));
  };
  absl::string_view in(buf);
  std::vector<uint64_t> lengths(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) {
    if (!table::GetVarint64(&in, &lengths[i])) {
      return corrupt("bad string length");
    }
    const uint64_t len = lengths[i];
    if (len <= std::numeric_limits<uint32_t>::max()) {
      const uint32_t len32 = static_cast<uint32_t>(len);
      crc = crc32c::Extend(crc, &len32, sizeof(len32));
    } else {
      crc = crc32c::Extend(crc, &len, sizeof(len));
    }
  }
  if (in.size() < 4) return corrupt("no checksum after the lengths");
  const uint32_t length_checksum = table::DecodeFixed32(in.data());
  if (crc32c::Unmask(length_checksum) != crc) {
    return corrupt(absl::StrCat("The length checksum does not match: expected ",
                                Hex32(crc32c::Unmask(length_checksum)),
                                " but actual is ", Hex32(crc)));
  }
  crc = crc32c::Extend(crc, in.data(), 4);
  in.remove_prefix(4);
  crc = crc32c::Extend(crc, in.data(), in.size());
  if (crc32c::Unmask(entry.crc32c()) != crc) return mismatch(crc);
  std::string* strings = out->data<std::string>();
  for (int64_t i = 0; i < n; ++i) {
    if (lengths[i] > in.size()) return corrupt("a string runs past its entry");
    strings[i].assign(in.data(), static_cast<size_t>(lengths[i]));
    in.remove_prefix(static_cast<size_t>(lengths[i]));
  }
  if (!in.empty()) return corrupt("bytes left over after the last string");
  return absl::OkStatus();
}

// ---------------------------------------------------------------------------
// MergeBundles.

absl::Status MergeBundles(absl::Span<const std::string> prefixes,
                          const std::string& merged_prefix,
                          bool delete_old_dirs, bool allow_missing_files) {
  // Read and check every input before touching any file.
  std::vector<std::unique_ptr<BundleReader>> readers;
  for (const std::string& prefix : prefixes) {
    if (!checkpoint_internal::FileExists(MetaFilename(prefix))) {
      if (allow_missing_files) continue;
      return absl::InvalidArgumentError(absl::StrCat(
          "allow_missing_files was set to false and ", prefix,
          " did not exist: no checkpoint index file ", MetaFilename(prefix)));
    }
    DFX_ASSIGN_OR_RETURN(std::unique_ptr<BundleReader> reader,
                         BundleReader::Open(prefix));
    readers.push_back(std::move(reader));
  }
  if (readers.empty()) {
    return absl::InvalidArgumentError(
        "At least one prefix checkpoint file must exist, but none existed.");
  }

  const BundleHeaderProto& first = readers[0]->header();
  const std::string first_version = first.version().SerializeAsString();
  std::map<std::string, BundleEntryProto> entries;
  // Old data file -> shard id in the merged bundle, in order of first use.
  std::vector<std::string> data_files;
  std::map<std::string, int> shard_ids;
  for (const auto& reader : readers) {
    if (reader->header().endianness() != first.endianness()) {
      return absl::InvalidArgumentError(
          "Merging bundles with conflicting endianness; inputs corrupted?");
    }
    if (reader->header().version().SerializeAsString() != first_version) {
      return absl::InvalidArgumentError(
          absl::StrCat("Merging bundles with different format versions: ",
                       readers[0]->prefix(), " and ", reader->prefix()));
    }
    for (const std::string& key : reader->Keys()) {
      DFX_ASSIGN_OR_RETURN(BundleEntryProto entry, reader->GetEntry(key));
      auto existing = entries.find(key);
      if (existing != entries.end()) {
        // Only the entries of a partitioned tensor may repeat: their slice
        // lists are joined.
        if (existing->second.slices().empty() || entry.slices().empty()) {
          return absl::InvalidArgumentError(absl::StrCat(
              "Duplicate tensor keyed by ", key,
              " encountered, when merging prefix: ", reader->prefix()));
        }
        if (existing->second.dtype() != entry.dtype() ||
            existing->second.shape().SerializeAsString() !=
                entry.shape().SerializeAsString()) {
          return absl::InvalidArgumentError(absl::StrCat(
              "slices of partitioned tensor ", key,
              " disagree on its dtype or shape, when merging prefix: ",
              reader->prefix()));
        }
        for (const TensorSliceProto& slice : entry.slices()) {
          *existing->second.add_slices() = slice;
        }
        continue;
      }
      if (entry.slices().empty()) {
        const std::string file = DataFilename(
            reader->prefix(), entry.shard_id(), reader->num_shards());
        auto [it, inserted] =
            shard_ids.emplace(file, static_cast<int>(data_files.size()));
        if (inserted) data_files.push_back(file);
        entry.set_shard_id(it->second);
      }
      entries.emplace(key, std::move(entry));
    }
  }
  for (const std::string& file : data_files) {
    if (!checkpoint_internal::FileExists(file)) {
      return absl::NotFoundError(
          absl::StrCat("checkpoint data file ", file, " not found"));
    }
  }

  const int num_shards = std::max<int>(1, static_cast<int>(data_files.size()));
  DFX_RETURN_IF_ERROR(checkpoint_internal::CreateDirs(
      checkpoint_internal::Dirname(merged_prefix)));
  const std::string merged_index = MetaFilename(merged_prefix);
  DFX_ASSIGN_OR_RETURN(
      const std::string index_temp,
      WriteIndexTemp(
          merged_index,
          HeaderBytes(num_shards, first.endianness(), first.version()),
          entries));
  absl::Status status;
  for (size_t i = 0; i < data_files.size() && status.ok(); ++i) {
    const std::string target =
        DataFilename(merged_prefix, static_cast<int>(i), num_shards);
    if (data_files[i] != target) {
      status = checkpoint_internal::RenameFile(data_files[i], target);
    }
  }
  if (status.ok()) {
    status = checkpoint_internal::RenameFile(index_temp, merged_index);
  }
  if (!status.ok()) {
    checkpoint_internal::RemoveFileQuietly(index_temp);
    return status;
  }
  checkpoint_internal::SyncDirQuietly(
      checkpoint_internal::Dirname(merged_prefix));

  // Cleanup is best effort, as in TensorFlow.
  for (const auto& reader : readers) {
    if (MetaFilename(reader->prefix()) != merged_index) {
      checkpoint_internal::RemoveFileQuietly(MetaFilename(reader->prefix()));
    }
  }
  if (delete_old_dirs) {
    const std::string merged_dir = checkpoint_internal::Dirname(merged_prefix);
    for (const std::string& prefix : prefixes) {
      const std::string dir = checkpoint_internal::Dirname(prefix);
      if (dir != merged_dir && !dir.empty()) {
        checkpoint_internal::RemoveDirQuietly(dir);
      }
    }
  }
  return absl::OkStatus();
}

}  // namespace dfx
