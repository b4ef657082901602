// The ragged2 family's counting kernels: SparseBincount and RaggedBincount
// (dense bins per row, as tf.math.bincount and CategoryEncoding give for
// sparse and ragged input) and DenseCountSparseOutput,
// SparseCountSparseOutput, RaggedCountSparseOutput (tf.sparse.bincount's
// SparseTensor of counts), with TensorFlow 2.21's checks and messages.
#include <algorithm>
#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "base/status_macros.h"
#include "kernels/array/bincount_util.h"
#include "kernels/array/ragged2_kernels.h"
#include "kernels/sparse/sparse_util.h"
#include "runtime/op_kernel.h"

namespace dfx {
namespace {

absl::Status ScalarSize(const Tensor& t, int64_t* size) {
  if (t.dims() != 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("Shape must be rank 0 but is rank ", t.dims()));
  }
  *size = t.dtype() == DT_INT32 ? t.data<int32_t>()[0] : t.data<int64_t>()[0];
  if (*size < 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("size (", *size, ") must be non-negative"));
  }
  return absl::OkStatus();
}

// TensorFlow's check of a SparseTensor's parts (indices in bounds, any
// order).
absl::Status ValidateSparse(const Tensor& indices, const Tensor& values,
                            const Tensor& shape) {
  DFX_RETURN_IF_ERROR(
      sparse_internal::CheckSparseTensor(indices, values, shape));
  const int64_t nnz = indices.dim_size(0);
  const int64_t rank = indices.dim_size(1);
  const int64_t* ix = indices.data<int64_t>();
  const int64_t* dims = shape.data<int64_t>();
  for (int64_t i = 0; i < nnz; ++i) {
    for (int64_t j = 0; j < rank; ++j) {
      const int64_t v = ix[i * rank + j];
      if (v < 0 || v >= dims[j]) {
        std::vector<std::string> tuple;
        for (int64_t k = 0; k < rank; ++k) {
          tuple.push_back(absl::StrCat(ix[i * rank + k]));
        }
        return absl::InvalidArgumentError(
            absl::StrCat("Sparse index tuple indices[", i, ", :] = [",
                         absl::StrJoin(tuple, ", "), "] is out of bounds"));
      }
    }
  }
  return absl::OkStatus();
}

// TensorFlow reads weights of another size than values out of bounds;
// dfx refuses them.
absl::Status CheckWeights(const Tensor& weights, const Tensor& values) {
  if (weights.NumElements() == 0 ||
      weights.NumElements() == values.NumElements()) {
    return absl::OkStatus();
  }
  return absl::InvalidArgumentError(absl::StrCat(
      "Weights and values must have the same shape. Weight shape: ",
      weights.shape().DebugString(),
      "; values shape: ", values.shape().DebugString()));
}

template <typename Tidx, typename T>
class SparseBincountOp : public OpKernel {
 public:
  explicit SparseBincountOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    DFX_OP_REQUIRES_OK(ctx, ctx->GetAttr("binary_output", &binary_));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& indices = ctx->input(0);
    const Tensor& values = ctx->input(1);
    const Tensor& dense_shape = ctx->input(2);
    const Tensor& weights = ctx->input(4);
    int64_t size = 0;
    DFX_OP_REQUIRES_OK(ctx, ScalarSize(ctx->input(3), &size));
    DFX_OP_REQUIRES_OK(ctx, ValidateSparse(indices, values, dense_shape));
    DFX_OP_REQUIRES_OK(ctx, CheckWeights(weights, values));
    const Tidx* v = values.data<Tidx>();
    const T* w = weights.NumElements() == 0 ? nullptr : weights.data<T>();
    const int64_t n = values.NumElements();
    Tensor* out = nullptr;
    if (dense_shape.NumElements() == 1) {
      DFX_OP_REQUIRES_OK(ctx,
                         ctx->allocate_output(0, TensorShape({size}), &out));
      T* bins = out->data<T>();
      std::fill_n(bins, size, T(0));
      DFX_OP_REQUIRES_OK(ctx,
                         CountInto<Tidx, T>(v, w, 0, n, size, binary_, bins));
      return;
    }
    // Rank 2 or more: rows by the first index; a negative value is dropped,
    // as TensorFlow's batched loop does.
    const int64_t rows = dense_shape.data<int64_t>()[0];
    DFX_OP_REQUIRES_OK(
        ctx, ctx->allocate_output(0, TensorShape({rows, size}), &out));
    T* bins = out->data<T>();
    std::fill_n(bins, out->NumElements(), T(0));
    const int64_t* ix = indices.data<int64_t>();
    const int64_t rank = indices.dim_size(1);
    for (int64_t i = 0; i < n; ++i) {
      const Tidx bin = v[i];
      if (bin < 0 || bin >= size) continue;
      T& b = bins[ix[i * rank] * size + bin];
      if (binary_) {
        b = T(1);
      } else {
        b += w == nullptr ? T(1) : w[i];
      }
    }
  }

 private:
  bool binary_ = false;
};

template <typename Tidx, typename T>
class RaggedBincountOp : public OpKernel {
 public:
  explicit RaggedBincountOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    DFX_OP_REQUIRES_OK(ctx, ctx->GetAttr("binary_output", &binary_));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& splits_t = ctx->input(0);
    const Tensor& values = ctx->input(1);
    const Tensor& weights = ctx->input(3);
    int64_t size = 0;
    DFX_OP_REQUIRES_OK(ctx, ScalarSize(ctx->input(2), &size));
    DFX_OP_REQUIRES_OK(ctx, CheckWeights(weights, values));
    const int64_t num_splits = splits_t.NumElements();
    DFX_OP_REQUIRES(ctx, num_splits > 0,
                    absl::InvalidArgumentError("Splits must be non-empty"));
    const int64_t* splits = splits_t.data<int64_t>();
    const int64_t n = values.NumElements();
    DFX_OP_REQUIRES(ctx, splits[0] == 0,
                    absl::InvalidArgumentError(absl::StrCat(
                        "Splits must start with 0, not with ", splits[0])));
    DFX_OP_REQUIRES(ctx, splits[num_splits - 1] == n,
                    absl::InvalidArgumentError(absl::StrCat(
                        "Splits must end with the number of values, got ",
                        splits[num_splits - 1], " instead of ", n)));
    const int64_t rows = num_splits - 1;
    Tensor* out = nullptr;
    DFX_OP_REQUIRES_OK(
        ctx, ctx->allocate_output(0, TensorShape({rows, size}), &out));
    T* bins = out->data<T>();
    std::fill_n(bins, out->NumElements(), T(0));
    const Tidx* v = values.data<Tidx>();
    const T* w = weights.NumElements() == 0 ? nullptr : weights.data<T>();
    // TensorFlow's walk: value i belongs to the row before the first split
    // above i. Splits that decrease are not refused; the last split equals n,
    // so the walk ends.
    int64_t row = 0;
    for (int64_t i = 0; i < n; ++i) {
      while (i >= splits[row]) ++row;
      const Tidx bin = v[i];
      DFX_OP_REQUIRES(ctx, bin >= 0,
                      absl::InvalidArgumentError("Input must be non-negative"));
      if (bin >= size) continue;
      T& b = bins[(row - 1) * size + bin];
      if (binary_) {
        b = T(1);
      } else {
        b += w == nullptr ? T(1) : w[i];
      }
    }
  }

 private:
  bool binary_ = false;
};

// The counts of each batch row: value -> count, in value order.
template <typename W>
using BatchCounts = std::vector<std::map<int64_t, W>>;

// Count-op attrs and the shared counting step.
class CountBase : public OpKernel {
 public:
  explicit CountBase(OpKernelConstruction* ctx) : OpKernel(ctx) {
    DFX_OP_REQUIRES_OK(ctx, ctx->GetAttr("minlength", &minlength_));
    DFX_OP_REQUIRES_OK(ctx, ctx->GetAttr("maxlength", &maxlength_));
    DFX_OP_REQUIRES_OK(ctx, ctx->GetAttr("binary_output", &binary_));
  }

 protected:
  template <typename T, typename W>
  absl::Status Add(T value, const W* weights, int64_t i, int64_t batch,
                   BatchCounts<W>* counts, int64_t* max_seen) const {
    if (value < 0) {
      return absl::InvalidArgumentError(
          "Input values must all be non-negative");
    }
    if (maxlength_ >= 0 && value >= maxlength_) return absl::OkStatus();
    W& c = (*counts)[batch][value];
    if (binary_) {
      c = W(1);
    } else {
      c += weights == nullptr ? W(1) : weights[i];
    }
    *max_seen = std::max<int64_t>(*max_seen, value);
    return absl::OkStatus();
  }

  // Writes the SparseTensor of counts: [batch, value] entries (or [value]
  // when is_1d), the last dim maxlength when set, else max(max seen + 1,
  // minlength).
  template <typename W>
  absl::Status Output(OpKernelContext* ctx, const BatchCounts<W>& counts,
                      int64_t max_seen, bool is_1d) const {
    const int64_t width =
        maxlength_ >= 0 ? maxlength_ : std::max(max_seen + 1, minlength_);
    int64_t total = 0;
    for (const auto& m : counts) total += static_cast<int64_t>(m.size());
    const int64_t inner = is_1d ? 1 : 2;
    Tensor* indices = nullptr;
    DFX_RETURN_IF_ERROR(
        ctx->allocate_output(0, TensorShape({total, inner}), &indices));
    Tensor* values = nullptr;
    DFX_RETURN_IF_ERROR(ctx->allocate_output(1, TensorShape({total}), &values));
    Tensor* shape = nullptr;
    DFX_RETURN_IF_ERROR(ctx->allocate_output(2, TensorShape({inner}), &shape));
    int64_t* ix = indices->data<int64_t>();
    W* vals = values->data<W>();
    int64_t at = 0;
    for (size_t b = 0; b < counts.size(); ++b) {
      for (const auto& [value, count] : counts[b]) {
        if (!is_1d) *ix++ = static_cast<int64_t>(b);
        *ix++ = value;
        vals[at++] = count;
      }
    }
    int64_t* s = shape->data<int64_t>();
    if (is_1d) {
      s[0] = width;
    } else {
      s[0] = static_cast<int64_t>(counts.size());
      s[1] = width;
    }
    return absl::OkStatus();
  }

  int64_t minlength_ = -1;
  int64_t maxlength_ = -1;
  bool binary_ = false;
};

template <typename T, typename W>
class DenseCountOp : public CountBase {
 public:
  using CountBase::CountBase;

  void Compute(OpKernelContext* ctx) override {
    const Tensor& data = ctx->input(0);
    const Tensor& weights = ctx->input(1);
    DFX_OP_REQUIRES(ctx, data.dims() == 1 || data.dims() == 2,
                    absl::InvalidArgumentError(absl::StrCat(
                        "Input must be a 1 or 2-dimensional tensor. Got: ",
                        data.shape().DebugString())));
    const bool use_weights = weights.NumElements() > 0;
    DFX_OP_REQUIRES(
        ctx, !use_weights || weights.shape() == data.shape(),
        absl::InvalidArgumentError(absl::StrCat(
            "Weights and data must have the same shape. Weight shape: ",
            weights.shape().DebugString(),
            "; data shape: ", data.shape().DebugString())));
    const bool is_1d = data.dims() == 1;
    const int64_t batches = is_1d ? 1 : data.dim_size(0);
    DFX_OP_REQUIRES(ctx, batches != 0,
                    absl::InvalidArgumentError(
                        "Invalid input: Shapes dimension cannot be 0."));
    const int64_t per_batch = data.NumElements() / batches;
    BatchCounts<W> counts(static_cast<size_t>(batches));
    const T* v = data.data<T>();
    const W* w = use_weights ? weights.data<W>() : nullptr;
    int64_t max_seen = 0;
    for (int64_t i = 0; i < data.NumElements(); ++i) {
      DFX_OP_REQUIRES_OK(ctx,
                         Add(v[i], w, i, i / per_batch, &counts, &max_seen));
    }
    DFX_OP_REQUIRES_OK(ctx, Output(ctx, counts, max_seen, is_1d));
  }
};

template <typename T, typename W>
class SparseCountOp : public CountBase {
 public:
  using CountBase::CountBase;

  void Compute(OpKernelContext* ctx) override {
    const Tensor& indices = ctx->input(0);
    const Tensor& values = ctx->input(1);
    const Tensor& shape = ctx->input(2);
    const Tensor& weights = ctx->input(3);
    DFX_OP_REQUIRES(ctx, indices.dims() == 2,
                    absl::InvalidArgumentError(absl::StrCat(
                        "Input indices must be a 2-dimensional tensor. Got: ",
                        indices.shape().DebugString())));
    DFX_OP_REQUIRES(ctx, values.dims() == 1,
                    absl::InvalidArgumentError(
                        absl::StrCat("Input values must be a vector. Got: ",
                                     values.shape().DebugString())));
    DFX_OP_REQUIRES(ctx, shape.dims() == 1,
                    absl::InvalidArgumentError(
                        absl::StrCat("Input shape must be a vector. Got: ",
                                     shape.shape().DebugString())));
    DFX_OP_REQUIRES(
        ctx, values.dim_size(0) == indices.dim_size(0),
        absl::InvalidArgumentError(absl::StrCat(
            "Number of values must match first dimension of indices.Got ",
            values.dim_size(0),
            " values, indices shape: ", indices.shape().DebugString())));
    DFX_OP_REQUIRES(
        ctx, shape.dim_size(0) == indices.dim_size(1),
        absl::InvalidArgumentError(absl::StrCat(
            "Number of dimensions must match second dimension of indices.Got ",
            shape.dim_size(0),
            " dimensions, indices shape: ", indices.shape().DebugString())));
    DFX_OP_REQUIRES(ctx, shape.NumElements() > 0,
                    absl::InvalidArgumentError(
                        "The shape argument requires at least one element."));
    const int64_t n = values.NumElements();
    const int64_t rank = indices.dim_size(1);
    const int64_t* ix = indices.data<int64_t>();
    const int64_t* dims = shape.data<int64_t>();
    for (int64_t i = 0; i < n; ++i) {
      for (int64_t j = 0; j < rank; ++j) {
        const int64_t x = ix[i * rank + j];
        DFX_OP_REQUIRES(
            ctx, x >= 0 && x < dims[j],
            absl::InvalidArgumentError(absl::StrCat(
                "Invalid index value at ", i, ": dimension ", j, " has value ",
                x, " which is not in [0, ", dims[j],
                ") (as given by dense shape ", shape.DebugString())));
      }
    }
    const bool use_weights = weights.NumElements() > 0;
    DFX_OP_REQUIRES(
        ctx, !use_weights || weights.shape() == values.shape(),
        absl::InvalidArgumentError(absl::StrCat(
            "Weights and values must have the same shape. Weight shape: ",
            weights.shape().DebugString(),
            "; values shape: ", values.shape().DebugString())));
    const bool is_1d = rank == 1;
    const int64_t batches = is_1d ? 1 : dims[0];
    DFX_OP_REQUIRES(ctx, batches > 0 && batches < int64_t{2147483647},
                    absl::InvalidArgumentError(absl::StrCat(
                        "Cannot allocate ", batches,
                        " batches, is the dense shape too wide?")));
    BatchCounts<W> counts(static_cast<size_t>(batches));
    const T* v = values.data<T>();
    const W* w = use_weights ? weights.data<W>() : nullptr;
    int64_t max_seen = 0;
    for (int64_t i = 0; i < n; ++i) {
      DFX_OP_REQUIRES_OK(
          ctx, Add(v[i], w, i, is_1d ? 0 : ix[i * rank], &counts, &max_seen));
    }
    DFX_OP_REQUIRES_OK(ctx, Output(ctx, counts, max_seen, is_1d));
  }
};

template <typename T, typename W>
class RaggedCountOp : public CountBase {
 public:
  using CountBase::CountBase;

  void Compute(OpKernelContext* ctx) override {
    const Tensor& splits_t = ctx->input(0);
    const Tensor& values = ctx->input(1);
    const Tensor& weights = ctx->input(2);
    const bool use_weights = weights.NumElements() > 0;
    DFX_OP_REQUIRES(
        ctx, !use_weights || weights.shape() == values.shape(),
        absl::InvalidArgumentError(absl::StrCat(
            "Weights and values must have the same shape. Weight shape: ",
            weights.shape().DebugString(),
            "; values shape: ", values.shape().DebugString())));
    const int64_t batches = splits_t.NumElements() - 1;
    const int64_t n = values.NumElements();
    DFX_OP_REQUIRES(
        ctx, batches > 0,
        absl::InvalidArgumentError(
            "Must provide at least 2 elements for the splits argument"));
    const int64_t* splits = splits_t.data<int64_t>();
    DFX_OP_REQUIRES(ctx, splits[0] == 0,
                    absl::InvalidArgumentError(absl::StrCat(
                        "Splits must start with 0, not with ", splits[0])));
    DFX_OP_REQUIRES(ctx, splits[batches] == n,
                    absl::InvalidArgumentError(absl::StrCat(
                        "Splits must end with the number of values, got ",
                        splits[batches], " instead of ", n)));
    BatchCounts<W> counts(static_cast<size_t>(batches));
    const T* v = values.data<T>();
    const W* w = use_weights ? weights.data<W>() : nullptr;
    int64_t max_seen = 0;
    // As RaggedBincount: value i goes to the row before the first split
    // above i.
    int64_t row = 0;
    for (int64_t i = 0; i < n; ++i) {
      while (i >= splits[row]) ++row;
      DFX_OP_REQUIRES_OK(ctx, Add(v[i], w, i, row - 1, &counts, &max_seen));
    }
    DFX_OP_REQUIRES_OK(ctx, Output(ctx, counts, max_seen, false));
  }
};

template <typename Tidx, typename... Ts>
void RegisterBincounts(KernelRegistry* r) {
  (RegisterKernel<SparseBincountOp<Tidx, Ts>>(
       r, KernelDefBuilder("SparseBincount")
              .TypeConstraint("Tidx", {DataTypeToEnum<Tidx>::value})
              .TypeConstraint("T", {DataTypeToEnum<Ts>::value})),
   ...);
  (RegisterKernel<RaggedBincountOp<Tidx, Ts>>(
       r, KernelDefBuilder("RaggedBincount")
              .TypeConstraint("Tidx", {DataTypeToEnum<Tidx>::value})
              .TypeConstraint("T", {DataTypeToEnum<Ts>::value})),
   ...);
}

template <typename T, typename... Ws>
void RegisterCounts(KernelRegistry* r) {
  auto def = [](const char* name, DataType w) {
    return KernelDefBuilder(name)
        .TypeConstraint("T", {DataTypeToEnum<T>::value})
        .TypeConstraint("output_type", {w});
  };
  (RegisterKernel<DenseCountOp<T, Ws>>(
       r, def("DenseCountSparseOutput", DataTypeToEnum<Ws>::value)),
   ...);
  (RegisterKernel<SparseCountOp<T, Ws>>(
       r, def("SparseCountSparseOutput", DataTypeToEnum<Ws>::value)),
   ...);
  (RegisterKernel<RaggedCountOp<T, Ws>>(
       r, def("RaggedCountSparseOutput", DataTypeToEnum<Ws>::value)),
   ...);
}

}  // namespace

void RegisterRagged2Kernels(KernelRegistry* r) {
  RegisterBincounts<int32_t, int32_t, int64_t, float, double>(r);
  RegisterBincounts<int64_t, int32_t, int64_t, float, double>(r);
  RegisterCounts<int32_t, int32_t, int64_t, float, double>(r);
  RegisterCounts<int64_t, int32_t, int64_t, float, double>(r);
}

}  // namespace dfx
