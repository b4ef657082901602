// Random access to datasets (DatasetBase::Get, kernels/data/dataset.h):
// the base's defaults and TensorFlow's checks before a Get. The datasets
// that have random access implement Get beside their iterators.
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "kernels/data/dataset.h"

namespace dfx::data {
namespace {

// The dataset's op ("FilterDataset") where a node made it, else its
// DebugString.
std::string OpOf(const DatasetBase& d) {
  std::shared_ptr<const DatasetBase::Node> node = d.node();
  return node != nullptr ? node->def->op() : d.DebugString();
}

}  // namespace

absl::Status DatasetBase::Get(IteratorContext*, int64_t,
                              std::vector<Tensor>*) const {
  return absl::UnimplementedError(absl::StrCat(
      "Random access is not implemented for dataset ", DebugString()));
}

absl::Status DatasetBase::RandomAccessCompatible() const {
  return absl::FailedPreconditionError(
      absl::StrCat(OpOf(*this), " does not support random access."));
}

absl::Status DatasetBase::CheckRandomAccessCompatible(int64_t index) const {
  const int64_t n = Cardinality();
  if (n == kInfiniteCardinality || n == kUnknownCardinality) {
    return absl::FailedPreconditionError(
        absl::StrCat("Dataset of type ", DebugString(), " has ",
                     n == kInfiniteCardinality ? "infinite" : "unknown",
                     " cardinality, which does not support random access."));
  }
  if (index < 0 || index >= n) {
    return absl::OutOfRangeError(
        absl::StrCat("Index out of range [0, ", n, "):", index));
  }
  return absl::OkStatus();
}

}  // namespace dfx::data
