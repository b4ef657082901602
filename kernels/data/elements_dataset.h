// A dataset of elements held in memory, produced in order: one window of
// Dataset.window, one group of group_by_window, tf.data.experimental's
// from_list (ListDataset).
#ifndef DFX_KERNELS_DATA_ELEMENTS_DATASET_H_
#define DFX_KERNELS_DATA_ELEMENTS_DATASET_H_

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "kernels/data/dataset.h"
#include "kernels/data/state_util.h"

namespace dfx::data {

class ElementsDataset final : public DatasetBase {
 public:
  // `name` names it in DebugString ("ListDataset", ...).
  ElementsDataset(std::string name, DataTypeVector dtypes,
                  std::vector<std::vector<Tensor>> elements)
      : DatasetBase(std::move(dtypes)),
        name_(std::move(name)),
        elements_(std::move(elements)) {}

  int64_t Cardinality() const override {
    return static_cast<int64_t>(elements_.size());
  }
  std::string DebugString() const override {
    return absl::StrCat(name_, "(", elements_.size(), " elements)");
  }
  absl::StatusOr<std::unique_ptr<IteratorBase>> MakeIterator(
      IteratorContext*) const override {
    return std::unique_ptr<IteratorBase>(new Iterator(Self<ElementsDataset>()));
  }
  const std::vector<std::vector<Tensor>>& elements() const { return elements_; }

 private:
  class Iterator final : public IteratorBase {
   public:
    explicit Iterator(std::shared_ptr<const ElementsDataset> d)
        : d_(std::move(d)) {}
    absl::Status GetNext(IteratorContext*, std::vector<Tensor>* out,
                         bool* end) override {
      *end = next_ >= d_->elements_.size();
      if (!*end) *out = d_->elements_[next_++];
      return absl::OkStatus();
    }
    absl::Status Save(const std::string& prefix,
                      IteratorState* state) override {
      state->WriteInt(prefix, "next", static_cast<int64_t>(next_));
      return absl::OkStatus();
    }
    absl::Status Restore(IteratorContext*, const std::string& prefix,
                         const IteratorState& state) override {
      absl::StatusOr<int64_t> next = ReadIntInRange(
          state, prefix, "next", 0, static_cast<int64_t>(d_->elements_.size()));
      if (!next.ok()) return next.status();
      next_ = static_cast<size_t>(*next);
      return absl::OkStatus();
    }

   private:
    const std::shared_ptr<const ElementsDataset> d_;
    size_t next_ = 0;
  };

  const std::string name_;
  const std::vector<std::vector<Tensor>> elements_;
};

}  // namespace dfx::data

#endif  // DFX_KERNELS_DATA_ELEMENTS_DATASET_H_
