// Counting and bucketing kernels: Bincount, DenseBincount, Bucketize,
// HistogramFixedWidth, InTopKV2, Roll, UniqueV2, UniqueWithCounts and
// UniqueWithCountsV2, with TensorFlow's checks and messages.
#include "kernels/eigen_util.h"  // first: defines EIGEN_USE_THREADS

#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdint>
#include <functional>
#include <string>
#include <type_traits>
#include <unordered_map>
#include <vector>

#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "graph/node_def_util.h"
#include "kernels/array/bincount_util.h"
#include "kernels/array/gather_util.h"
#include "kernels/kernels.h"
#include "runtime/op_kernel.h"

namespace dfx {
namespace {

using gather_internal::MoveData;
using gather_internal::VisitMoveType;

template <typename T>
class BincountOp : public OpKernel {
 public:
  using OpKernel::OpKernel;

  void Compute(OpKernelContext* ctx) override {
    const Tensor& arr = ctx->input(0);
    const Tensor& size_t_ = ctx->input(1);
    const Tensor& weights = ctx->input(2);
    DFX_OP_REQUIRES(ctx, size_t_.dims() == 0,
                    absl::InvalidArgumentError(absl::StrCat(
                        "Shape must be rank 0 but is rank ", size_t_.dims())));
    const int32_t size = size_t_.data<int32_t>()[0];
    DFX_OP_REQUIRES(ctx, size >= 0,
                    absl::InvalidArgumentError(absl::StrCat(
                        "size (", size, ") must be non-negative")));
    DFX_OP_REQUIRES(ctx,
                    weights.NumElements() == 0 ||
                        weights.NumElements() == arr.NumElements(),
                    absl::InvalidArgumentError(
                        "Input indices and weights must have the same size."));
    Tensor* out = nullptr;
    DFX_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, TensorShape({size}), &out));
    T* bins = out->data<T>();
    std::fill_n(bins, size, T(0));
    DFX_OP_REQUIRES_OK(
        ctx, CountInto<int32_t, T>(
                 arr.data<int32_t>(),
                 weights.NumElements() == 0 ? nullptr : weights.data<T>(), 0,
                 arr.NumElements(), size, false, bins));
  }
};

template <typename Tidx, typename T>
class DenseBincountOp : public OpKernel {
 public:
  explicit DenseBincountOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    ctx->SetStatus(GetNodeAttr(ctx->def(), "binary_output", &binary_));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& data = ctx->input(0);
    const Tensor& size_t_ = ctx->input(1);
    const Tensor& weights = ctx->input(2);
    DFX_OP_REQUIRES(
        ctx, data.dims() <= 2,
        absl::InvalidArgumentError(absl::StrCat(
            "Shape must be at most rank 2 but is rank ", data.dims())));
    DFX_OP_REQUIRES(ctx, size_t_.dims() == 0,
                    absl::InvalidArgumentError(absl::StrCat(
                        "Shape must be rank 0 but is rank ", size_t_.dims())));
    const Tidx size = size_t_.data<Tidx>()[0];
    DFX_OP_REQUIRES(ctx, size >= 0,
                    absl::InvalidArgumentError(absl::StrCat(
                        "size (", size, ") must be non-negative")));
    DFX_OP_REQUIRES(
        ctx, weights.NumElements() == 0 || weights.shape() == data.shape(),
        absl::InvalidArgumentError(absl::StrCat(
            "`weights` must be the same shape as `arr` or a length-0 "
            "`Tensor`, in which case it acts as all weights equal to 1. "
            "Received ",
            weights.shape().DebugString())));
    const bool rows = data.dims() == 2;
    const int64_t num_rows = rows ? data.dim_size(0) : 1;
    const int64_t row_len = rows ? data.dim_size(1) : data.NumElements();
    TensorShape shape =
        rows ? TensorShape({num_rows, static_cast<int64_t>(size)})
             : TensorShape({static_cast<int64_t>(size)});
    Tensor* out = nullptr;
    DFX_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, shape, &out));
    T* bins = out->data<T>();
    std::fill_n(bins, out->NumElements(), T(0));
    const Tidx* arr = data.data<Tidx>();
    const T* w = weights.NumElements() == 0 ? nullptr : weights.data<T>();
    for (int64_t r = 0; r < num_rows; ++r) {
      DFX_OP_REQUIRES_OK(
          ctx, CountInto<Tidx, T>(arr, w, r * row_len, (r + 1) * row_len, size,
                                  binary_, bins + r * size));
    }
  }

 private:
  bool binary_ = false;
};

template <typename T>
class BucketizeOp : public OpKernel {
 public:
  explicit BucketizeOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    const AttrValue* b = FindNodeAttr(ctx->def(), "boundaries");
    if (b == nullptr) {
      ctx->SetStatus(
          absl::InvalidArgumentError("Bucketize requires the boundaries attr"));
      return;
    }
    boundaries_.assign(b->list().f().begin(), b->list().f().end());
    if (!std::is_sorted(boundaries_.begin(), boundaries_.end())) {
      ctx->SetStatus(absl::InvalidArgumentError("Expected sorted boundaries"));
    }
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& in = ctx->input(0);
    Tensor* out = nullptr;
    DFX_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, in.shape(), &out));
    const T* v = in.data<T>();
    int32_t* o = out->data<int32_t>();
    // The number of boundaries <= the value, comparing as T < float does.
    ParallelFor(
        *ctx->device(), in.NumElements(), Eigen::TensorOpCost(sizeof(T), 4, 20),
        [&](int64_t first, int64_t last) {
          for (int64_t i = first; i < last; ++i) {
            o[i] = static_cast<int32_t>(
                std::upper_bound(boundaries_.begin(), boundaries_.end(), v[i]) -
                boundaries_.begin());
          }
        });
  }

 private:
  std::vector<float> boundaries_;
};

template <typename T, typename Tout>
class HistogramFixedWidthOp : public OpKernel {
 public:
  using OpKernel::OpKernel;

  void Compute(OpKernelContext* ctx) override {
    const Tensor& values = ctx->input(0);
    const Tensor& range = ctx->input(1);
    const Tensor& nbins_t = ctx->input(2);
    DFX_OP_REQUIRES(
        ctx, range.dims() == 1,
        absl::InvalidArgumentError("value_range should be a vector."));
    DFX_OP_REQUIRES(ctx, range.NumElements() == 2,
                    absl::InvalidArgumentError(
                        "value_range should be a vector of 2 elements."));
    DFX_OP_REQUIRES(ctx, nbins_t.dims() == 0,
                    absl::InvalidArgumentError("nbins should be a scalar."));
    const int32_t nbins = nbins_t.data<int32_t>()[0];
    DFX_OP_REQUIRES(
        ctx, nbins > 0,
        absl::InvalidArgumentError(absl::StrCat(
            "nbins should be a positive number, but got '", nbins, "'")));
    const T lo = range.data<T>()[0];
    const T hi = range.data<T>()[1];
    DFX_OP_REQUIRES(
        ctx, lo < hi,
        absl::InvalidArgumentError(absl::StrCat(
            "value_range should satisfy value_range[0] < value_range[1], "
            "but got '[",
            lo, ", ", hi, "]'")));
    Tensor* out = nullptr;
    DFX_OP_REQUIRES_OK(ctx,
                       ctx->allocate_output(0, TensorShape({nbins}), &out));
    Tout* o = out->data<Tout>();
    std::fill_n(o, nbins, Tout(0));
    // TensorFlow's bin: (max(x, lo) - lo) in T, over the step in double,
    // capped at nbins - 1, then truncated.
    const double step = static_cast<double>(hi - lo) / nbins;
    const double last = nbins - 1;
    const T* v = values.data<T>();
    for (int64_t i = 0; i < values.NumElements(); ++i) {
      const T clamped = v[i] > lo ? v[i] : lo;
      const double bin =
          std::min(static_cast<double>(clamped - lo) / step, last);
      o[static_cast<int32_t>(bin)] += Tout(1);
    }
  }
};

template <typename T>
class InTopKOp : public OpKernel {
 public:
  // InTopK (v1) takes k as an attr, InTopKV2 as its third input.
  explicit InTopKOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    if (ctx->def().op() == "InTopK") ctx->SetStatus(ctx->GetAttr("k", &k_attr_));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& pred = ctx->input(0);
    const Tensor& targets = ctx->input(1);
    DFX_OP_REQUIRES(
        ctx, pred.dims() == 2,
        absl::InvalidArgumentError("predictions must be 2-dimensional"));
    DFX_OP_REQUIRES(
        ctx, targets.dims() == 1,
        absl::InvalidArgumentError("targets must be 1-dimensional"));
    DFX_OP_REQUIRES(
        ctx, pred.dim_size(0) == targets.dim_size(0),
        absl::InvalidArgumentError(absl::StrCat(
            "First dimension of predictions ", pred.dim_size(0),
            " must match length of targets ", targets.dim_size(0))));
    int64_t k = k_attr_;
    if (ctx->num_inputs() == 3) {
      const Tensor& k_t = ctx->input(2);
      DFX_OP_REQUIRES(ctx, k_t.dims() == 0,
                      absl::InvalidArgumentError(
                          absl::StrCat("k must be 0-D, got shape ",
                                       k_t.shape().DebugString())));
      k = k_t.data<T>()[0];
    }
    const int64_t batch = pred.dim_size(0);
    const int64_t classes = pred.dim_size(1);
    Tensor* out = nullptr;
    DFX_OP_REQUIRES_OK(ctx,
                       ctx->allocate_output(0, TensorShape({batch}), &out));
    const float* p = pred.data<float>();
    const T* t = targets.data<T>();
    bool* o = out->data<bool>();
    for (int64_t b = 0; b < batch; ++b) {
      const float* row = p + b * classes;
      const T target = t[b];
      // Out-of-range targets and non-finite predictions say false.
      bool cannot_say =
          target < 0 || target >= classes || !std::isfinite(row[target]);
      int64_t more_probable = 0;
      if (!cannot_say) {
        const float target_pred = row[target];
        for (int64_t c = 0; c < classes; ++c) {
          if (!std::isfinite(row[c])) {
            cannot_say = true;
            break;
          }
          if (row[c] > target_pred && ++more_probable > k) break;
        }
      }
      o[b] = !cannot_say && more_probable < k;
    }
  }

 private:
  int64_t k_attr_ = 0;
};

class RollOp : public OpKernel {
 public:
  using OpKernel::OpKernel;

  void Compute(OpKernelContext* ctx) override {
    const Tensor& in = ctx->input(0);
    const Tensor& shift = ctx->input(1);
    const Tensor& axis = ctx->input(2);
    DFX_OP_REQUIRES(ctx, in.dims() >= 1,
                    absl::InvalidArgumentError("input must be 1-D or higher"));
    DFX_OP_REQUIRES(ctx, shift.dims() <= 1,
                    absl::InvalidArgumentError(absl::StrCat(
                        "shift must be a scalar or a 1-D vector. Found: ",
                        shift.shape().DebugString())));
    DFX_OP_REQUIRES(ctx, axis.dims() <= 1,
                    absl::InvalidArgumentError(absl::StrCat(
                        "axis must be a scalar or a 1-D vector. Found: ",
                        axis.shape().DebugString())));
    DFX_OP_REQUIRES(
        ctx, shift.shape() == axis.shape(),
        absl::InvalidArgumentError("shift and axis must have the same size"));
    const int rank = in.dims();
    std::vector<int64_t> total(rank, 0);
    for (int64_t i = 0; i < axis.NumElements(); ++i) {
      int64_t a = IntAt(axis, i);
      if (a < 0) a += rank;
      DFX_OP_REQUIRES(ctx, a >= 0 && a < rank,
                      absl::InvalidArgumentError(absl::StrCat(
                          "axis ", IntAt(axis, i), " is out of range")));
      const int64_t dim = in.dim_size(static_cast<int>(a));
      if (dim == 0) continue;
      total[a] = ((total[a] + IntAt(shift, i)) % dim + dim) % dim;
    }
    Tensor* out = nullptr;
    DFX_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, in.shape(), &out));
    const int64_t n = in.NumElements();
    if (n == 0) return;
    // Rolls whole rows of the innermost dims that do not move.
    int inner_rank = rank;
    int64_t row = 1;
    while (inner_rank > 0 && total[inner_rank - 1] == 0) {
      row *= in.dim_size(inner_rank - 1);
      --inner_rank;
    }
    VisitMoveType(in.dtype(), [&]<typename E>() {
      const E* src = MoveData<E>(in);
      E* dst = MoveData<E>(out);
      const int64_t rows = n / row;
      std::vector<int64_t> coord(inner_rank, 0);
      for (int64_t r = 0; r < rows; ++r) {
        int64_t to = 0;
        for (int d = 0; d < inner_rank; ++d) {
          const int64_t dim = in.dim_size(d);
          to = to * dim + (coord[d] + total[d]) % dim;
        }
        std::copy_n(src + r * row, row, dst + to * row);
        for (int d = inner_rank - 1; d >= 0; --d) {
          if (++coord[d] < in.dim_size(d)) break;
          coord[d] = 0;
        }
      }
    });
  }
};

// Element hash and equality as TensorFlow's unordered_map uses them:
// floating-point ==, so -0 equals 0 and NaN equals nothing.
template <typename T>
size_t HashOf(const T& v) {
  if constexpr (std::is_same_v<T, Eigen::half> ||
                std::is_same_v<T, Eigen::bfloat16>) {
    const float f = static_cast<float>(v);
    return std::hash<float>()(f == 0.0f ? 0.0f : f);
  } else if constexpr (std::is_floating_point_v<T>) {
    return std::hash<T>()(v == T(0) ? T(0) : v);
  } else {
    return std::hash<T>()(v);
  }
}

// Unique slices along `axis` of x viewed as [outer, n, inner]: ids of each
// slice in first-occurrence order, and the slice each id came from.
template <typename T>
void UniqueSlices(const T* x, int64_t outer, int64_t n, int64_t inner,
                  std::vector<int64_t>* ids, std::vector<int64_t>* first) {
  auto hash = [&](int64_t s) {
    size_t h = 0;
    for (int64_t o = 0; o < outer; ++o) {
      for (int64_t i = 0; i < inner; ++i) {
        h = h * 31 + HashOf(x[(o * n + s) * inner + i]);
      }
    }
    return h;
  };
  auto eq = [&](int64_t a, int64_t b) {
    for (int64_t o = 0; o < outer; ++o) {
      for (int64_t i = 0; i < inner; ++i) {
        if (!(x[(o * n + a) * inner + i] == x[(o * n + b) * inner + i])) {
          return false;
        }
      }
    }
    return true;
  };
  std::unordered_map<int64_t, int64_t, decltype(hash), decltype(eq)> seen(
      2 * n, hash, eq);
  ids->resize(n);
  for (int64_t s = 0; s < n; ++s) {
    auto [it, inserted] = seen.emplace(s, static_cast<int64_t>(first->size()));
    if (inserted) first->push_back(s);
    (*ids)[s] = it->second;
  }
}

// UniqueV2 (axis input), UniqueWithCounts (1-D) and UniqueWithCountsV2.
template <typename T>
class UniqueOp : public OpKernel {
 public:
  using OpKernel::OpKernel;

  void Compute(OpKernelContext* ctx) override {
    const Tensor& x = ctx->input(0);
    int axis = 0;
    bool flat = true;
    if (ctx->num_inputs() > 1) {
      const Tensor& a = ctx->input(1);
      DFX_OP_REQUIRES(ctx, a.dims() == 1,
                      absl::InvalidArgumentError("axis expects a 1D vector."));
      DFX_OP_REQUIRES(
          ctx, a.NumElements() <= 1,
          absl::InvalidArgumentError(
              "axis does not support input tensors larger than 1 elements"));
      if (a.NumElements() == 1) {
        int64_t v = IntAt(a, 0);
        DFX_OP_REQUIRES(
            ctx, v >= -x.dims() && v < x.dims(),
            absl::InvalidArgumentError(absl::StrCat(
                "axis has to be between [", -x.dims(), ", ", x.dims(), ")")));
        axis = static_cast<int>(v < 0 ? v + x.dims() : v);
        flat = false;
      }
    }
    if (flat) {
      DFX_OP_REQUIRES(
          ctx, x.dims() == 1,
          absl::InvalidArgumentError("unique expects a 1D vector."));
    }
    int64_t outer = 1;
    int64_t inner = 1;
    for (int d = 0; d < axis; ++d) outer *= x.dim_size(d);
    for (int d = axis + 1; d < x.dims(); ++d) inner *= x.dim_size(d);
    const int64_t n = x.dim_size(axis);
    DFX_OP_REQUIRES(
        ctx, output_type(1) != DT_INT32 || n <= INT32_MAX,
        absl::InvalidArgumentError(
            "unique does not support input tensors larger than 2^31-1 "
            "elements with int32 indices"));
    std::vector<int64_t> ids;
    std::vector<int64_t> first;
    UniqueSlices<T>(x.data<T>(), outer, n, inner, &ids, &first);
    const int64_t num_unique = static_cast<int64_t>(first.size());
    TensorShape y_shape = x.shape();
    y_shape.set_dim(axis, num_unique);
    Tensor* y = nullptr;
    DFX_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, y_shape, &y));
    const T* src = x.data<T>();
    T* dst = y->data<T>();
    for (int64_t o = 0; o < outer; ++o) {
      for (int64_t u = 0; u < num_unique; ++u) {
        std::copy_n(src + (o * n + first[u]) * inner, inner,
                    dst + (o * num_unique + u) * inner);
      }
    }
    Tensor* idx = nullptr;
    DFX_OP_REQUIRES_OK(ctx, ctx->allocate_output(1, TensorShape({n}), &idx));
    std::vector<int64_t> counts(num_unique, 0);
    for (int64_t s = 0; s < n; ++s) ++counts[ids[s]];
    WriteInts(ids, idx);
    if (ctx->num_outputs() > 2) {
      Tensor* count = nullptr;
      DFX_OP_REQUIRES_OK(
          ctx, ctx->allocate_output(2, TensorShape({num_unique}), &count));
      WriteInts(counts, count);
    }
  }

 private:
  static void WriteInts(const std::vector<int64_t>& v, Tensor* t) {
    if (t->dtype() == DT_INT32) {
      std::transform(v.begin(), v.end(), t->data<int32_t>(),
                     [](int64_t i) { return static_cast<int32_t>(i); });
    } else {
      std::copy(v.begin(), v.end(), t->data<int64_t>());
    }
  }
};

template <typename... Ts>
void RegisterUnique(KernelRegistry* r) {
  for (const char* name :
       {"UniqueV2", "UniqueWithCounts", "UniqueWithCountsV2"}) {
    (RegisterKernel<UniqueOp<Ts>>(
         r, KernelDefBuilder(name).TypeConstraint<Ts>("T")),
     ...);
  }
}

template <typename Tidx, typename... Ts>
void RegisterDenseBincount(KernelRegistry* r) {
  (RegisterKernel<DenseBincountOp<Tidx, Ts>>(
       r, KernelDefBuilder("DenseBincount")
              .TypeConstraint("Tidx", {DataTypeToEnum<Tidx>::value})
              .TypeConstraint("T", {DataTypeToEnum<Ts>::value})),
   ...);
}

template <typename Tout, typename... Ts>
void RegisterHistogram(KernelRegistry* r) {
  (RegisterKernel<HistogramFixedWidthOp<Ts, Tout>>(
       r, KernelDefBuilder("HistogramFixedWidth")
              .TypeConstraint("T", {DataTypeToEnum<Ts>::value})
              .TypeConstraint("dtype", {DataTypeToEnum<Tout>::value})),
   ...);
}

}  // namespace

void RegisterCountingKernels(KernelRegistry* r) {
  RegisterKernel<BincountOp<int32_t>>(
      r, KernelDefBuilder("Bincount").TypeConstraint<int32_t>("T"));
  RegisterKernel<BincountOp<int64_t>>(
      r, KernelDefBuilder("Bincount").TypeConstraint<int64_t>("T"));
  RegisterKernel<BincountOp<float>>(
      r, KernelDefBuilder("Bincount").TypeConstraint<float>("T"));
  RegisterKernel<BincountOp<double>>(
      r, KernelDefBuilder("Bincount").TypeConstraint<double>("T"));
  RegisterDenseBincount<int32_t, int32_t, int64_t, float, double>(r);
  RegisterDenseBincount<int64_t, int32_t, int64_t, float, double>(r);
  RegisterKernel<BucketizeOp<int32_t>>(
      r, KernelDefBuilder("Bucketize").TypeConstraint<int32_t>("T"));
  RegisterKernel<BucketizeOp<int64_t>>(
      r, KernelDefBuilder("Bucketize").TypeConstraint<int64_t>("T"));
  RegisterKernel<BucketizeOp<float>>(
      r, KernelDefBuilder("Bucketize").TypeConstraint<float>("T"));
  RegisterKernel<BucketizeOp<double>>(
      r, KernelDefBuilder("Bucketize").TypeConstraint<double>("T"));
  RegisterHistogram<int32_t, int32_t, int64_t, float, double>(r);
  RegisterHistogram<int64_t, int32_t, int64_t, float, double>(r);
  RegisterKernel<InTopKOp<int32_t>>(
      r, KernelDefBuilder("InTopKV2").TypeConstraint<int32_t>("T"));
  RegisterKernel<InTopKOp<int64_t>>(
      r, KernelDefBuilder("InTopKV2").TypeConstraint<int64_t>("T"));
  RegisterKernel<InTopKOp<int32_t>>(
      r, KernelDefBuilder("InTopK").TypeConstraint<int32_t>("T"));
  RegisterKernel<InTopKOp<int64_t>>(
      r, KernelDefBuilder("InTopK").TypeConstraint<int64_t>("T"));
  RegisterKernel<RollOp>(r, KernelDefBuilder("Roll"));
  RegisterUnique<float, double, Eigen::half, Eigen::bfloat16, int8_t, uint8_t,
                 int16_t, uint16_t, int32_t, int64_t, uint32_t, uint64_t, bool,
                 std::string>(r);
}

}  // namespace dfx
