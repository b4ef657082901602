// tf.data's save format (Dataset.save / Dataset.load: kernels/data/
// dataset4_kernels.cc) for the other ops that write and read it:
// SnapshotDatasetV2 and SnapshotDataset (kernels/data/dataset5_kernels.cc).
#ifndef DFX_KERNELS_DATA_SAVE_FORMAT_H_
#define DFX_KERNELS_DATA_SAVE_FORMAT_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "kernels/data/dataset.h"

namespace dfx::data {

// A dataset that passes `input`'s elements through and writes them under
// `path` as SaveDatasetV2 does (a new run each iterator: metadata first,
// finalized at the input's end). `shard_func`, run on each element and
// `captured`, picks its shard (null: every element to shard 0). `compression`:
// "", GZIP, ZLIB or SNAPPY (others are none, as in TensorFlow). `node` names
// the op in errors; every path goes through ResolveDataPath.
absl::StatusOr<DatasetPtr> MakeSaveDataset(
    const std::string& node, DatasetPtr input, const std::string& path,
    const std::string& compression,
    std::shared_ptr<const DatasetFunction> shard_func,
    std::vector<Tensor> captured);

// The elements saved under `path`, as LoadDataset reads them: `reader_func`
// (with `captured`) gets the dataset of the run's shard datasets (null:
// the shards are read one after the other, in name order). NotFound when
// `path` holds no metadata.
absl::StatusOr<DatasetPtr> MakeLoadDataset(
    const std::string& node, const std::string& path,
    const std::string& compression, DataTypeVector dtypes,
    std::shared_ptr<const DatasetFunction> reader_func,
    std::vector<Tensor> captured);

// Component `i` of a stored element (the save format's and distributed
// snapshots' records are one TensorProto per component), which must be of
// `dtype`. DataLoss "Unable to parse tensor from stored proto." when the
// record does not parse or its shape claims more elements than the record
// could hold (every element stores at least a byte: a corrupted shape
// must not make the reader allocate); InvalidArgument "component i of
// <element> is <type>, but the dataset's <spec> <dtype>" for another
// dtype.
absl::StatusOr<Tensor> StoredComponent(const std::string& record,
                                       DataType dtype, size_t i,
                                       absl::string_view element,
                                       absl::string_view spec);

// Whether the save under `path` is finished (its metadata finalized);
// NotFound when `path` holds no metadata, OutOfRange when it does not
// parse.
absl::StatusOr<bool> SaveFinalized(const std::string& node,
                                   const std::string& path);

// The metadata of the save under `path`: whether it is finished and when
// it began (microseconds since the epoch); errors as SaveFinalized's.
struct SaveState {
  bool finalized = false;
  int64_t creation_micros = 0;
};
absl::StatusOr<SaveState> ReadSaveState(const std::string& node,
                                        const std::string& path);

}  // namespace dfx::data

#endif  // DFX_KERNELS_DATA_SAVE_FORMAT_H_
