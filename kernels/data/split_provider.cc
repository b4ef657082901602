#include "kernels/data/split_provider.h"

#include <map>
#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "base/status_macros.h"
#include "kernels/data/dataset.h"

namespace dfx::data {
namespace {

// Indices 0..n-1, `repeats` times (-1: for ever).
class IndexSplitProvider final : public SplitProvider {
 public:
  IndexSplitProvider(int64_t n, int64_t repeats) : n_(n), repeats_(repeats) {}
  absl::Status GetNext(int64_t* split, bool* end) override {
    absl::MutexLock lock(&mu_);
    if (next_ >= n_) {
      next_ = 0;
      ++pass_;
    }
    *end = n_ <= 0 || (repeats_ >= 0 && pass_ >= repeats_);
    if (*end) return absl::OkStatus();
    *split = next_++;
    return absl::OkStatus();
  }

 private:
  const int64_t n_;
  const int64_t repeats_;
  absl::Mutex mu_;
  int64_t next_ ABSL_GUARDED_BY(mu_) = 0;
  int64_t pass_ ABSL_GUARDED_BY(mu_) = 0;
};

bool IsFileSource(const std::string& op) {
  return op == "TFRecordDataset" || op == "TFRecordDatasetV2" ||
         op == "TextLineDataset" || op == "FixedLengthRecordDataset" ||
         op == "FixedLengthRecordDatasetV2";
}

bool IsElementSource(const std::string& op) {
  return op == "RangeDataset" || op == "TensorSliceDataset" ||
         op == "TensorDataset";
}

absl::Status NotSplittable(const std::string& op) {
  return absl::UnimplementedError(absl::StrCat(
      "Cannot create split providers for dataset of type ", op,
      "Op::Dataset, because the dataset implements neither `InputDatasets` "
      "nor `MakeSplitProvider`."));
}

// Follows `root`'s inputs to its source; `*repeats` multiplies the counts
// of the RepeatDatasets on the way (-1: for ever).
absl::StatusOr<const DatasetBase*> FindSource(const DatasetBase& root,
                                              int64_t* repeats) {
  const DatasetBase* d = &root;
  *repeats = 1;
  while (true) {
    std::shared_ptr<const DatasetBase::Node> node = d->node();
    if (node == nullptr || node->def == nullptr) {
      return absl::UnimplementedError(absl::StrCat(
          "Cannot create split providers for dataset ", d->DebugString(),
          ": dfx does not know how it was built"));
    }
    const std::string& op = node->def->op();
    if (node->inputs.empty()) {
      if (IsElementSource(op) || IsFileSource(op)) return d;
      return NotSplittable(op);
    }
    if (node->inputs.size() > 1) {
      return absl::UnimplementedError(absl::StrCat(
          "dfx's tf.data service splits pipelines with one source dataset; ",
          op, " (node ", node->def->name(), ") has ", node->inputs.size(),
          " input datasets"));
    }
    if (op == "RepeatDataset" && !node->args.empty() &&
        node->args[0].NumElements() == 1 && node->args[0].dtype() == DT_INT64) {
      const int64_t count = node->args[0].data<int64_t>()[0];
      if (count < 0 || *repeats < 0) {
        *repeats = -1;
      } else {
        *repeats *= count;
      }
    }
    d = node->inputs[0].get();
  }
}

absl::Mutex registry_mu(absl::kConstInit);
std::map<const DatasetBase*, std::shared_ptr<SplitProvider>>& Registry()
    ABSL_EXCLUSIVE_LOCKS_REQUIRED(registry_mu) {
  static auto* registry =
      new std::map<const DatasetBase*, std::shared_ptr<SplitProvider>>();
  return *registry;
}

}  // namespace

absl::StatusOr<const DatasetBase*> SplitSource(const DatasetBase& root) {
  int64_t repeats = 0;
  return FindSource(root, &repeats);
}

absl::StatusOr<std::unique_ptr<SplitProvider>> MakeSplitProvider(
    const DatasetBase& root) {
  int64_t repeats = 0;
  DFX_ASSIGN_OR_RETURN(const DatasetBase* source, FindSource(root, &repeats));
  std::shared_ptr<const DatasetBase::Node> node = source->node();
  int64_t n = 0;
  if (IsFileSource(node->def->op())) {
    if (node->args.empty()) {
      return absl::InvalidArgumentError(
          absl::StrCat(node->def->name(), " names no files"));
    }
    n = node->args[0].NumElements();
  } else {
    n = source->Cardinality();
    if (n < 0) {
      return absl::InvalidArgumentError(
          absl::StrCat("the source dataset ", source->DebugString(),
                       " has no finite cardinality to split"));
    }
  }
  return std::unique_ptr<SplitProvider>(new IndexSplitProvider(n, repeats));
}

void AttachSplitProvider(const DatasetBase* source,
                         std::shared_ptr<SplitProvider> provider) {
  absl::MutexLock lock(&registry_mu);
  Registry()[source] = std::move(provider);
}

void DetachSplitProvider(const DatasetBase* source) {
  absl::MutexLock lock(&registry_mu);
  Registry().erase(source);
}

std::shared_ptr<SplitProvider> AttachedSplitProvider(
    const DatasetBase* dataset) {
  absl::MutexLock lock(&registry_mu);
  auto& registry = Registry();
  if (registry.empty()) return nullptr;
  auto it = registry.find(dataset);
  return it == registry.end() ? nullptr : it->second;
}

absl::Status NextSplitFile(SplitProvider& provider, const DatasetBase& dataset,
                           size_t num_files, size_t* file, bool* end) {
  int64_t split = 0;
  DFX_RETURN_IF_ERROR(provider.GetNext(&split, end));
  if (*end) return absl::OkStatus();
  if (split < 0 || static_cast<uint64_t>(split) >= num_files) {
    return absl::InvalidArgumentError(absl::StrCat(
        "split ", split, " is not a file of ", dataset.DebugString()));
  }
  *file = static_cast<size_t>(split);
  return absl::OkStatus();
}

absl::Status GetNextBySplit(IteratorContext* ctx, const DatasetBase& dataset,
                            SplitProvider& provider, std::vector<Tensor>* out,
                            bool* end) {
  int64_t split = 0;
  DFX_RETURN_IF_ERROR(provider.GetNext(&split, end));
  if (*end) return absl::OkStatus();
  return dataset.Get(ctx, split, out);
}

}  // namespace dfx::data
