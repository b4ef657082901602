// TensorFlow's V1 checkpoint format (tf.compat.v1.train.Saver with
// write_version=V1, every TF1 model before 1.0): the files the Save and
// SaveSlices ops write and Restore, RestoreSlice and RestoreV2 (as a
// fallback) read, byte-compatible with TensorFlow 2.21.
//
// A V1 checkpoint is one LevelDB-format table (checkpoint/table.h) whose
// values are SavedTensorSlices protos (proto/saved_tensor_slice.proto): under
// the empty key the metadata (each tensor's name, full shape, dtype and the
// slices saved of it, and the format version), then one entry per slice
// keyed by the ordered-code encoding of (name, slice) holding the slice's
// values in a TensorProto's typed field. A sharded checkpoint is several such
// files read together through a glob ("model-?????-of-00004").
#ifndef DFX_CHECKPOINT_TENSOR_SLICE_V1_H_
#define DFX_CHECKPOINT_TENSOR_SLICE_V1_H_

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "runtime/tensor.h"
#include "runtime/tensor_shape.h"

namespace dfx {

// A slice of a tensor, one extent per dimension: TensorFlow's TensorSlice.
// A length of kFullExtent (start 0) takes the whole dimension.
struct TensorSliceV1 {
  static constexpr int64_t kFullExtent = -1;

  std::vector<int64_t> starts;
  std::vector<int64_t> lengths;

  // The slice of everything in `rank` dimensions.
  static TensorSliceV1 Full(int rank);
  int dims() const { return static_cast<int>(starts.size()); }
  bool IsFullAt(int d) const { return lengths[d] == kFullExtent; }
  // "-:0,2" (TensorFlow's DebugString and parse syntax).
  std::string DebugString() const;
  bool operator==(const TensorSliceV1& other) const {
    return starts == other.starts && lengths == other.lengths;
  }
};

// Parses "-:0,2:1,3" (':'-separated extents, each "-" or "start,length";
// empty items are skipped). InvalidArgument with TensorFlow's wording for a
// malformed extent, a negative start or a non-positive length.
absl::StatusOr<TensorSliceV1> ParseTensorSliceV1(absl::string_view text);

// The shape of `slice` taken of a tensor of `shape`. Internal (TensorFlow's
// code) "Mismatching ranks" or "Extent in dimension d out of bounds".
absl::StatusOr<TensorShape> SliceShapeV1(const TensorSliceV1& slice,
                                         const TensorShape& shape);

// A shape-and-slice spec "dim0 dim1 ... slice" (SaveSlices, RestoreSlice,
// RestoreV2): the full shape, the slice and the slice's shape.
struct ShapeAndSliceV1 {
  TensorShape shape;
  TensorSliceV1 slice;
  TensorShape slice_shape;
};
// REQUIRES: !spec.empty(). InvalidArgument for fewer than two items, a
// non-numerical or negative dimension, a bad slice; Internal when the slice
// does not fit the shape (as TensorFlow).
absl::StatusOr<ShapeAndSliceV1> ParseShapeAndSliceV1(absl::string_view spec);

// The table key of (name, slice): ordered-code 0, name, rank, then each
// extent's start and length (-1 for a full dimension) as signed numbers.
std::string EncodeTensorNameSliceV1(absl::string_view name,
                                    const TensorSliceV1& slice);

// Whether Save can write `dtype`: the fixed-size types TensorFlow's
// TF_CALL_SAVE_RESTORE_TYPES serves (uint32, uint64 and bfloat16 not
// included) and string.
bool IsV1SavableDataType(DataType dtype);

// Collects slices and writes the checkpoint file at Finish: to
// "<path>.tempstate<random>" in the same directory (which must exist, as in
// TensorFlow), synced, then renamed over `path`. Not thread-safe.
class TensorSliceWriterV1 {
 public:
  explicit TensorSliceWriterV1(std::string path);

  // Adds `data`, the values of `slice` of tensor `name` with full shape
  // `shape` and data's dtype. Errors, with TensorFlow's codes and wording:
  // Internal when shape and slice differ in rank, the slice does not fit
  // the shape, or `name` was added before with another shape or dtype;
  // InvalidArgument when data's shape is not the slice's; Unimplemented
  // ("Saving data type X not yet supported") or InvalidArgument (uint32,
  // uint64: "Tensor slice serialization not implemented for dtype N") for
  // a dtype V1 cannot hold. Adding the same slice of a name twice keeps
  // the first values (the metadata lists it twice, as TensorFlow's does).
  absl::Status Add(const std::string& name, const TensorShape& shape,
                   const TensorSliceV1& slice, const Tensor& data);

  // Writes the file. The file system's error naming the path (NotFound
  // when the directory does not exist).
  absl::Status Finish();

 private:
  struct TensorMeta {
    TensorShape shape;
    DataType dtype;
    std::vector<TensorSliceV1> slices;
  };
  const std::string path_;
  // In the order added (the metadata's order).
  std::vector<std::pair<std::string, TensorMeta>> tensors_;
  std::map<std::string, size_t> index_;
  // Encoded key -> serialized SavedTensorSlices.
  std::map<std::string, std::string> data_;
};

// Reads the V1 checkpoint files matching a pattern. Thread-compatible:
// one kernel call uses one reader.
class TensorSliceReaderV1 {
 public:
  // Expands `pattern` (glob syntax, as TensorFlow's GetMatchingPaths) and
  // loads every matching file's metadata (only shard `preferred_shard` when
  // it names one of several files; the rest when a tensor is not there).
  // NotFound "Unsuccessful TensorSliceReader constructor: Failed to find
  // any matching files for P"; DataLoss naming the file for a file that is
  // not a table or whose footer, index or metadata block is damaged (a
  // checksum mismatch, truncation);
  // Internal for a table without V1 metadata; InvalidArgument for a
  // version this code cannot read or overlapping slices.
  // `check_path`, when set, is called on each matching path before it is
  // read; its error is returned (the file policy's PermissionDenied).
  static absl::StatusOr<std::unique_ptr<TensorSliceReaderV1>> Open(
      const std::string& pattern, int preferred_shard = -1,
      const std::function<absl::Status(const std::string&)>& check_path =
          nullptr);
  ~TensorSliceReaderV1();
  TensorSliceReaderV1(const TensorSliceReaderV1&) = delete;
  TensorSliceReaderV1& operator=(const TensorSliceReaderV1&) = delete;

  // Whether tensor `name` is saved (loading the other shards when it is not
  // in those loaded); its full shape and dtype when so.
  absl::StatusOr<bool> HasTensor(const std::string& name, TensorShape* shape,
                                 DataType* dtype);

  // Copies `slice` of tensor `name` into `out` (whose shape is the slice's
  // shape and dtype the tensor's), reading only the records of the saved
  // slices it overlaps. InvalidArgument "Error copying slice data" when the
  // saved slices do not cover it or a record is missing or malformed, as
  // TensorFlow; DataLoss naming the file for a damaged block.
  absl::Status CopySliceData(const std::string& name,
                             const TensorSliceV1& slice, Tensor* out);

 private:
  struct SavedSlice {
    TensorSliceV1 slice;
    int file;
  };
  struct TensorInfo {
    TensorShape shape;
    DataType dtype;
    std::vector<SavedSlice> slices;
  };
  struct File;
  TensorSliceReaderV1();
  absl::Status LoadFile(int file);
  absl::Status LoadAll();

  std::vector<std::unique_ptr<File>> files_;
  std::map<std::string, TensorInfo> tensors_;
};

// Restore's and RestoreSlice's work, which RestoreV2 also does on a prefix
// without a V2 index: tensor `name` of dtype `dtype` from `reader`, the
// slice `spec` of it when `spec` is not empty. Errors with TensorFlow's
// codes and wording: NotFound "Tensor name "n" not found in checkpoint
// files P"; InvalidArgument for another dtype, a spec whose shape is not
// the saved one or that does not parse, a slice not covered by the saved
// slices; Internal for a slice outside the shape.
absl::StatusOr<Tensor> RestoreTensorV1(TensorSliceReaderV1* reader,
                                       const std::string& pattern,
                                       const std::string& name,
                                       const std::string& spec, DataType dtype);

// Whether `<prefix>.index` (taken as a glob, as TensorFlow's RestoreV2
// does) names an existing file: RestoreV2 reads a V1 checkpoint otherwise.
bool MatchesBundleIndex(const std::string& prefix);

}  // namespace dfx

#endif  // DFX_CHECKPOINT_TENSOR_SLICE_V1_H_
