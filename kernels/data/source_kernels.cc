// Source datasets: TensorDataset (one element), TensorSliceDataset (the rows
// of its components) and RangeDataset. Under a tf.data service worker
// they read the dispatcher's splits (kernels/data/split_provider.h).
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "kernels/data/dataset.h"
#include "kernels/data/element_util.h"
#include "kernels/data/split_provider.h"

namespace dfx::data {
namespace {

class TensorDataset final : public DatasetBase {
 public:
  explicit TensorDataset(std::vector<Tensor> components)
      : DatasetBase(DtypesOf(components)), components_(std::move(components)) {}

  int64_t Cardinality() const override { return 1; }
  std::string DebugString() const override { return "TensorDataset"; }
  absl::Status Get(IteratorContext*, int64_t index,
                   std::vector<Tensor>* out) const override {
    DFX_RETURN_IF_ERROR(CheckRandomAccessCompatible(index));
    *out = components_;
    return absl::OkStatus();
  }
  absl::Status RandomAccessCompatible() const override {
    return absl::OkStatus();
  }

  absl::StatusOr<std::unique_ptr<IteratorBase>> MakeIterator(
      IteratorContext*) const override {
    return std::unique_ptr<IteratorBase>(new Iterator(Self<TensorDataset>()));
  }

 private:
  class Iterator final : public IteratorBase {
   public:
    explicit Iterator(std::shared_ptr<const TensorDataset> d)
        : d_(std::move(d)) {}
    absl::Status GetNext(IteratorContext* ctx, std::vector<Tensor>* out,
                         bool* end) override {
      // A tf.data service worker's copy: the dispatcher's splits.
      if (SplitProvider* splits = splits_.Of(d_.get())) {
        return GetNextBySplit(ctx, *d_, *splits, out, end);
      }
      *end = done_;
      if (!done_) *out = d_->components_;
      done_ = true;
      return absl::OkStatus();
    }
    absl::Status Save(const std::string& prefix,
                      IteratorState* state) override {
      state->WriteInt(prefix, "done", done_);
      return absl::OkStatus();
    }
    absl::Status Restore(IteratorContext*, const std::string& prefix,
                         const IteratorState& state) override {
      DFX_ASSIGN_OR_RETURN(int64_t done, state.ReadInt(prefix, "done"));
      done_ = done != 0;
      return absl::OkStatus();
    }

   private:
    const std::shared_ptr<const TensorDataset> d_;
    SourceSplits splits_;
    bool done_ = false;
  };

  const std::vector<Tensor> components_;
};

class TensorDatasetOp final : public DatasetOpKernel {
 public:
  using DatasetOpKernel::DatasetOpKernel;

 private:
  absl::StatusOr<DatasetPtr> MakeDataset(OpKernelContext* ctx) override {
    std::vector<Tensor> components;
    for (int i = 0; i < ctx->num_inputs(); ++i) {
      components.push_back(ctx->input(i));
    }
    return std::make_shared<TensorDataset>(std::move(components));
  }
};

class TensorSliceDataset final : public DatasetBase {
 public:
  TensorSliceDataset(std::vector<Tensor> components, int64_t rows)
      : DatasetBase(DtypesOf(components)),
        components_(std::move(components)),
        rows_(rows) {}

  int64_t Cardinality() const override { return rows_; }
  std::string DebugString() const override {
    return absl::StrCat("TensorSliceDataset(", rows_, " rows)");
  }
  absl::Status Get(IteratorContext*, int64_t index,
                   std::vector<Tensor>* out) const override {
    DFX_RETURN_IF_ERROR(CheckRandomAccessCompatible(index));
    out->clear();
    for (const Tensor& t : components_) {
      DFX_ASSIGN_OR_RETURN(Tensor row, RowOf(t, index));
      out->push_back(std::move(row));
    }
    return absl::OkStatus();
  }
  absl::Status RandomAccessCompatible() const override {
    return absl::OkStatus();
  }

  absl::StatusOr<std::unique_ptr<IteratorBase>> MakeIterator(
      IteratorContext*) const override {
    return std::unique_ptr<IteratorBase>(
        new Iterator(Self<TensorSliceDataset>()));
  }

 private:
  class Iterator final : public IteratorBase {
   public:
    explicit Iterator(std::shared_ptr<const TensorSliceDataset> d)
        : d_(std::move(d)) {}
    absl::Status GetNext(IteratorContext* ctx, std::vector<Tensor>* out,
                         bool* end) override {
      // A tf.data service worker's copy: the dispatcher's splits.
      if (SplitProvider* splits = splits_.Of(d_.get())) {
        return GetNextBySplit(ctx, *d_, *splits, out, end);
      }
      *end = next_ >= d_->rows_;
      if (*end) return absl::OkStatus();
      out->clear();
      for (const Tensor& t : d_->components_) {
        DFX_ASSIGN_OR_RETURN(Tensor row, RowOf(t, next_));
        out->push_back(std::move(row));
      }
      ++next_;
      return absl::OkStatus();
    }
    absl::Status Save(const std::string& prefix,
                      IteratorState* state) override {
      state->WriteInt(prefix, "i", next_);
      return absl::OkStatus();
    }
    absl::Status Restore(IteratorContext*, const std::string& prefix,
                         const IteratorState& state) override {
      DFX_ASSIGN_OR_RETURN(int64_t i, state.ReadInt(prefix, "i"));
      if (i < 0 || i > d_->rows_) {
        return absl::InvalidArgumentError(absl::StrCat(
            "the saved position ", i, " is outside the ", d_->rows_,
            " rows of the TensorSliceDataset"));
      }
      next_ = i;
      return absl::OkStatus();
    }

   private:
    const std::shared_ptr<const TensorSliceDataset> d_;
    SourceSplits splits_;
    int64_t next_ = 0;
  };

  const std::vector<Tensor> components_;
  const int64_t rows_;
};

class TensorSliceDatasetOp final : public DatasetOpKernel {
 public:
  using DatasetOpKernel::DatasetOpKernel;

 private:
  absl::StatusOr<DatasetPtr> MakeDataset(OpKernelContext* ctx) override {
    std::vector<Tensor> components;
    int64_t rows = -1;
    for (int i = 0; i < ctx->num_inputs(); ++i) {
      const Tensor& t = ctx->input(i);
      if (t.dims() == 0) {
        return absl::InvalidArgumentError(absl::StrCat(
            "component ", i, " is a scalar: every component of a "
            "TensorSliceDataset must have at least one dimension to slice"));
      }
      DFX_RETURN_IF_ERROR(CheckSliceable(t.dtype(), i));
      if (rows >= 0 && t.dim_size(0) != rows) {
        return absl::InvalidArgumentError(absl::StrCat(
            "All components must have the same size in the 0th dimension: "
            "component 0 has ", rows, " rows, component ", i, " has ",
            t.dim_size(0)));
      }
      rows = t.dim_size(0);
      components.push_back(t);
    }
    return std::make_shared<TensorSliceDataset>(std::move(components), rows);
  }
};

class RangeDataset final : public DatasetBase {
 public:
  RangeDataset(int64_t start, int64_t stop, int64_t step, DataType dtype)
      : DatasetBase({dtype}), start_(start), stop_(stop), step_(step) {}

  int64_t Cardinality() const override {
    if (step_ > 0) {
      return stop_ > start_ ? (stop_ - start_ - 1) / step_ + 1 : 0;
    }
    return start_ > stop_ ? (start_ - stop_ - 1) / -step_ + 1 : 0;
  }
  std::string DebugString() const override {
    return absl::StrCat("RangeDataset(", start_, ", ", stop_, ", ", step_,
                        ")");
  }
  absl::Status Get(IteratorContext*, int64_t index,
                   std::vector<Tensor>* out) const override {
    DFX_RETURN_IF_ERROR(CheckRandomAccessCompatible(index));
    DFX_ASSIGN_OR_RETURN(Tensor value,
                         ScalarOfType(output_dtypes()[0],
                                      start_ + index * step_));
    out->assign(1, std::move(value));
    return absl::OkStatus();
  }
  absl::Status RandomAccessCompatible() const override {
    return absl::OkStatus();
  }

  absl::StatusOr<std::unique_ptr<IteratorBase>> MakeIterator(
      IteratorContext*) const override {
    return std::unique_ptr<IteratorBase>(new Iterator(Self<RangeDataset>()));
  }

 private:
  class Iterator final : public IteratorBase {
   public:
    explicit Iterator(std::shared_ptr<const RangeDataset> d)
        : d_(std::move(d)), next_(d_->start_) {}
    absl::Status GetNext(IteratorContext* ctx, std::vector<Tensor>* out,
                         bool* end) override {
      // A tf.data service worker's copy: the dispatcher's splits.
      if (SplitProvider* splits = splits_.Of(d_.get())) {
        return GetNextBySplit(ctx, *d_, *splits, out, end);
      }
      *end = d_->step_ > 0 ? next_ >= d_->stop_ : next_ <= d_->stop_;
      if (*end) return absl::OkStatus();
      DFX_ASSIGN_OR_RETURN(Tensor value,
                           ScalarOfType(d_->output_dtypes()[0], next_));
      out->assign(1, std::move(value));
      next_ += d_->step_;
      return absl::OkStatus();
    }
    absl::Status Save(const std::string& prefix,
                      IteratorState* state) override {
      state->WriteInt(prefix, "next", next_);
      return absl::OkStatus();
    }
    absl::Status Restore(IteratorContext*, const std::string& prefix,
                         const IteratorState& state) override {
      DFX_ASSIGN_OR_RETURN(next_, state.ReadInt(prefix, "next"));
      return absl::OkStatus();
    }

   private:
    const std::shared_ptr<const RangeDataset> d_;
    SourceSplits splits_;
    int64_t next_;
  };

  const int64_t start_, stop_, step_;
};

class RangeDatasetOp final : public DatasetOpKernel {
 public:
  explicit RangeDatasetOp(OpKernelConstruction* ctx) : DatasetOpKernel(ctx) {
    if (ctx->status().ok() && output_types().size() != 1) {
      ctx->SetStatus(absl::InvalidArgumentError(
          "RangeDataset has exactly one output type"));
    }
  }

 private:
  absl::StatusOr<DatasetPtr> MakeDataset(OpKernelContext* ctx) override {
    DFX_ASSIGN_OR_RETURN(int64_t start, ScalarInt64Input(ctx, 0, "start"));
    DFX_ASSIGN_OR_RETURN(int64_t stop, ScalarInt64Input(ctx, 1, "stop"));
    DFX_ASSIGN_OR_RETURN(int64_t step, ScalarInt64Input(ctx, 2, "step"));
    if (step == 0) {
      return absl::InvalidArgumentError("step must be a non-zero integer.");
    }
    DFX_RETURN_IF_ERROR(ScalarOfType(output_types()[0], 0).status());
    return std::make_shared<RangeDataset>(start, stop, step,
                                          output_types()[0]);
  }
};

}  // namespace

void RegisterDatasetSourceKernels(KernelRegistry* registry) {
  RegisterKernel<TensorDatasetOp>(registry, KernelDefBuilder("TensorDataset"));
  RegisterKernel<TensorSliceDatasetOp>(registry,
                                       KernelDefBuilder("TensorSliceDataset"));
  RegisterKernel<RangeDatasetOp>(registry, KernelDefBuilder("RangeDataset"));
}

}  // namespace dfx::data
