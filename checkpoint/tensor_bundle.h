// TensorFlow's tensor bundle (the V2 checkpoint format): BundleWriter,
// BundleReader and MergeBundles, byte-compatible with TensorFlow 2.21.
//
// A bundle with prefix P is P.index, a LevelDB-format table (checkpoint/
// table.h) mapping "" to a BundleHeaderProto and each tensor name to a
// BundleEntryProto, and the data files P.data-00000-of-0000N holding the
// tensor bytes: fixed-size dtypes as their little-endian elements, strings
// as the varint64 lengths, the masked CRC32C of the lengths (each taken as
// a uint32, or a uint64 when it does not fit), then the bytes. Each entry
// carries the masked CRC32C of its bytes, which readers verify.
#ifndef DFX_CHECKPOINT_TENSOR_BUNDLE_H_
#define DFX_CHECKPOINT_TENSOR_BUNDLE_H_

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/synchronization/mutex.h"
#include "absl/types/span.h"
#include "checkpoint/table.h"
#include "proto/tensor_bundle.pb.h"
#include "runtime/allocator.h"
#include "runtime/tensor.h"

namespace dfx {

namespace checkpoint_internal {
class WritableFile;
class RandomAccessFile;
}  // namespace checkpoint_internal

// "<prefix>.index".
std::string MetaFilename(absl::string_view prefix);
// "<prefix>.data-00002-of-00005".
std::string DataFilename(absl::string_view prefix, int shard, int num_shards);

// The version this code writes and reads (TensorFlow's kTensorBundleVersion).
inline constexpr int kTensorBundleVersion = 1;

// True for the dtypes a bundle can hold: every fixed-size type and string.
bool IsSavableDataType(DataType dtype);

// Writes one single-shard bundle. Tensors go to a temporary data file in
// the prefix's directory as they are added; Finish writes the index to a
// temporary file, syncs both, and only then renames them over
// `<prefix>.data-00000-of-00001` and `<prefix>.index` (data first). Any
// failure before the renames (a bad tensor, a full disk, a directory in
// the way) removes the temporary files and leaves an existing bundle at
// `prefix` untouched, as does destroying the writer before Finish. A
// reader that opens the bundle between the two renames gets DataLoss from
// the checksums, never wrong values. Not thread-safe.
class BundleWriter {
 public:
  struct Options {
    // Pads each tensor's bytes in the data file to this alignment (TF's
    // BundleWriter::Options::data_alignment). >= 1.
    int data_alignment = 1;
  };

  // Creates the directory of `prefix` when missing and opens the temporary
  // data file. Errors from the file system name the path.
  static absl::StatusOr<std::unique_ptr<BundleWriter>> Create(
      std::string prefix, Options options);
  static absl::StatusOr<std::unique_ptr<BundleWriter>> Create(
      std::string prefix) {
    return Create(std::move(prefix), Options());
  }
  ~BundleWriter();
  BundleWriter(const BundleWriter&) = delete;
  BundleWriter& operator=(const BundleWriter&) = delete;

  // Appends `tensor` under `key`; keys may come in any order. Errors:
  // InvalidArgument for the empty key (the header's), a duplicate key
  // ("Adding duplicate key: k"), or a dtype a bundle cannot hold; the file
  // system's otherwise. After an error every later call fails with it.
  // REQUIRES: the tensor is initialized.
  absl::Status Add(absl::string_view key, const Tensor& tensor);

  // Writes the index and puts the bundle in place (see the class comment).
  // Returns the first error of any Add, or of writing, syncing or renaming,
  // after removing the temporary files. Call at most once.
  absl::Status Finish();

  const std::string& prefix() const { return prefix_; }

 private:
  BundleWriter(std::string prefix, Options options,
               std::unique_ptr<checkpoint_internal::WritableFile> data,
               std::string data_temp_path);
  // Appends bytes to the data file through buffer_, extending `crc` over
  // the copied bytes (not the source, which a concurrent step may change).
  absl::Status Append(const void* data, size_t n, uint32_t* crc);
  absl::Status FlushBuffer();
  absl::Status WriteStringTensor(const Tensor& tensor, uint32_t* crc,
                                 uint64_t* size);
  void RemoveTemps();

  const std::string prefix_;
  const Options options_;
  std::unique_ptr<checkpoint_internal::WritableFile> data_;
  const std::string data_temp_path_;
  std::string index_temp_path_;
  std::string buffer_;   // pending data-file bytes, flushed when full
  uint64_t offset_ = 0;  // bytes of the data file so far, buffer included
  std::map<std::string, BundleEntryProto> entries_;
  absl::Status status_;
  bool finished_ = false;
};

// Reads a bundle (any number of data shards). Lookups are thread-safe; the
// data files are opened on first use.
class BundleReader {
 public:
  // Reads and checks `<prefix>.index`: the table, the header, the format
  // version. NotFound naming the index file when it does not exist;
  // DataLoss naming it when it is truncated or corrupt; InvalidArgument for
  // a version this code cannot read; Unimplemented for a big-endian bundle.
  static absl::StatusOr<std::unique_ptr<BundleReader>> Open(std::string prefix);
  ~BundleReader();
  BundleReader(const BundleReader&) = delete;
  BundleReader& operator=(const BundleReader&) = delete;

  const std::string& prefix() const { return prefix_; }
  int num_shards() const { return header_.num_shards(); }
  const BundleHeaderProto& header() const { return header_; }

  bool Contains(absl::string_view key) const;
  // Tensor names in order (the header's empty key excluded).
  std::vector<std::string> Keys() const;

  // The entry of `key`. NotFound "Key k not found in checkpoint"; DataLoss
  // naming the key for an entry that does not parse or describes an
  // impossible tensor (bad dtype, shape, shard, offset or size).
  absl::StatusOr<BundleEntryProto> GetEntry(absl::string_view key) const;
  absl::Status LookupDtypeAndShape(absl::string_view key, DataType* dtype,
                                   TensorShape* shape) const;

  // Reads tensor `key` into a new tensor from `allocator` (the CPU
  // allocator when null), verifying its checksum. Errors as GetEntry, and:
  // NotFound naming a missing data file; DataLoss naming the file and the
  // key when the data file is truncated or the bytes do not match their
  // checksum; Unimplemented for a tensor saved in slices.
  absl::StatusOr<Tensor> Lookup(absl::string_view key,
                                Allocator* allocator = nullptr) const;
  // As Lookup, into `*out`, which must already have the stored dtype and
  // shape (InvalidArgument naming the key otherwise).
  absl::Status LookupInto(absl::string_view key, Tensor* out) const;

 private:
  BundleReader(std::string prefix, table::Table table,
               BundleHeaderProto header);
  absl::StatusOr<const checkpoint_internal::RandomAccessFile*> DataFile(
      int shard) const;
  // The data file of a whole-tensor entry, checked to hold its bytes.
  absl::StatusOr<const checkpoint_internal::RandomAccessFile*> CheckedDataFile(
      absl::string_view key, const BundleEntryProto& entry) const;
  absl::Status ReadInto(absl::string_view key, const BundleEntryProto& entry,
                        const checkpoint_internal::RandomAccessFile& file,
                        Tensor* out) const;

  const std::string prefix_;
  const table::Table table_;
  const BundleHeaderProto header_;
  mutable absl::Mutex mu_;
  // Data files by shard, opened on first use.
  mutable std::map<int, std::unique_ptr<checkpoint_internal::RandomAccessFile>>
      data_files_ ABSL_GUARDED_BY(mu_);
};

// Merges the bundles at `prefixes` (each written by BundleWriter, or merged
// before) into one bundle at `merged_prefix`, as TensorFlow's
// MergeV2Checkpoints does: the data files are renamed to
// `<merged_prefix>.data-<i>-of-<n>`, a merged index is written (temporary
// file, synced, renamed), and the inputs' index files are removed. With
// `delete_old_dirs`, then removes each input's directory when it differs
// from the merged one and is empty. With `allow_missing_files`, prefixes
// without an index file are skipped (at least one must exist).
// Errors: InvalidArgument for a missing input (unless allowed), no input at
// all, a key in two inputs, or inputs of different endianness or version;
// the readers' and the file system's errors otherwise. Every input is read
// and checked before anything is renamed.
absl::Status MergeBundles(absl::Span<const std::string> prefixes,
                          const std::string& merged_prefix,
                          bool delete_old_dirs = false,
                          bool allow_missing_files = false);

}  // namespace dfx

#endif  // DFX_CHECKPOINT_TENSOR_BUNDLE_H_
