// Splits: how the tf.data service shares one epoch of a pipeline out among
// its workers (processing mode DYNAMIC, `distributed_epoch`), as
// TensorFlow's split providers do. A split is an index into the pipeline's
// source: an element of RangeDataset, TensorSliceDataset or TensorDataset
// (read with DatasetBase::Get), or a file of TFRecordDataset,
// TextLineDataset or FixedLengthRecordDataset. The dispatcher hands out
// each index once (MakeSplitProvider: a pipeline's indices, repeated as
// often as a RepeatDataset between root and source asks); a worker attaches
// a provider that asks the dispatcher to the source dataset of its own copy
// of the pipeline (AttachSplitProvider), and that source's iterators then
// read the splits they are given instead of their own range. Datasets that
// functions make (flat_map's, interleave's) are other objects: they read
// all of their elements, as in TensorFlow.
#ifndef DFX_KERNELS_DATA_SPLIT_PROVIDER_H_
#define DFX_KERNELS_DATA_SPLIT_PROVIDER_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

// Declarations only: the dispatcher's state includes this header.
namespace dfx {
class Tensor;
}  // namespace dfx

namespace dfx::data {

class DatasetBase;
struct IteratorContext;

// A sequence of split indices. Thread-safe.
class SplitProvider {
 public:
  virtual ~SplitProvider() = default;
  // The next split into `*split`, or `*end` when there is none left.
  virtual absl::Status GetNext(int64_t* split, bool* end) = 0;
};

// The one source dataset of the pipeline `root` (followed through each
// dataset's input; DatasetBase::node). Unimplemented, with TensorFlow's
// message, for a source that cannot be split; Unimplemented for a pipeline
// with several sources (zip, concatenate: TensorFlow gives each its own
// provider, dfx does not).
absl::StatusOr<const DatasetBase*> SplitSource(const DatasetBase& root);

// The dispatcher's provider of `root`'s splits: 0..n-1 for a source of n
// elements (or files), as many times as the RepeatDatasets above it repeat
// (for ever for a count of -1; a source with nothing to split ends it).
absl::StatusOr<std::unique_ptr<SplitProvider>> MakeSplitProvider(
    const DatasetBase& root);

// A worker's: `source` (of SplitSource) reads the splits of `provider`
// until DetachSplitProvider; the caller keeps `source` alive meanwhile.
void AttachSplitProvider(const DatasetBase* source,
                         std::shared_ptr<SplitProvider> provider);
void DetachSplitProvider(const DatasetBase* source);
// The provider attached to `dataset`, or null: its iterators read their
// own range.
std::shared_ptr<SplitProvider> AttachedSplitProvider(
    const DatasetBase* dataset);

// What an iterator of a splittable source keeps: the provider attached to
// its dataset, looked up on the first GetNext (a worker attaches it before
// it iterates), or none: the iterator reads its own range.
class SourceSplits {
 public:
  SplitProvider* Of(const DatasetBase* dataset) {
    if (!looked_up_) {
      provider_ = AttachedSplitProvider(dataset);
      looked_up_ = true;
    }
    return provider_.get();
  }

 private:
  std::shared_ptr<SplitProvider> provider_;
  bool looked_up_ = false;
};

// For a source of `num_files` files (`dataset`): the file of the next split
// of `provider` into `*file`, or `*end`. InvalidArgument naming `dataset`
// for a split that is not one of its files.
absl::Status NextSplitFile(SplitProvider& provider, const DatasetBase& dataset,
                           size_t num_files, size_t* file, bool* end);

// For a source with random access (DatasetBase::Get): the element of the
// next split of `provider` into `out`, or `*end`.
absl::Status GetNextBySplit(IteratorContext* ctx, const DatasetBase& dataset,
                            SplitProvider& provider, std::vector<Tensor>* out,
                            bool* end);

}  // namespace dfx::data

#endif  // DFX_KERNELS_DATA_SPLIT_PROVIDER_H_
