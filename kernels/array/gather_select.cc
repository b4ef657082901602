// OneHot, Where, TopKV2, ArgMax and ArgMin.
#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdint>
#include <limits>
#include <numeric>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "kernels/array/array_util.h"
#include "kernels/array/gather_util.h"

namespace dfx::gather_internal {
namespace {

// Calls fn.template operator()<O>() with the C++ type of an output index
// dtype: int16, uint16, int32, int64.
template <typename Fn>
bool VisitOutIndex(DataType dtype, Fn&& fn) {
  return VisitIndexType(dtype, fn);
}

class OneHotOp : public OpKernel {
 public:
  explicit OneHotOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    ctx->SetStatus(ctx->GetAttr("axis", &axis_));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& indices = ctx->input(0);
    const Tensor& depth_t = ctx->input(1);
    const Tensor& on = ctx->input(2);
    const Tensor& off = ctx->input(3);
    const int output_dims = indices.dims() + 1;
    DFX_OP_REQUIRES(
        ctx, axis_ == -1 || (axis_ >= 0 && axis_ < output_dims),
        absl::InvalidArgumentError(absl::StrCat(
            "Expected axis to be -1 or between [0, ", output_dims,
            ").  But received: ", axis_)));
    DFX_OP_REQUIRES(ctx, depth_t.dims() == 0,
                    absl::InvalidArgumentError(absl::StrCat(
                        "depth must be a scalar, but got: ",
                        depth_t.shape().DebugString())));
    DFX_OP_REQUIRES(ctx, on.dims() == 0,
                    absl::InvalidArgumentError(absl::StrCat(
                        "on_value must be a scalar, but got: ",
                        on.shape().DebugString())));
    DFX_OP_REQUIRES(ctx, off.dims() == 0,
                    absl::InvalidArgumentError(absl::StrCat(
                        "off_value must be a scalar, but got: ",
                        off.shape().DebugString())));
    const int axis = axis_ == -1 ? indices.dims() : static_cast<int>(axis_);
    const int64_t depth = depth_t.scalar<int32_t>();
    DFX_OP_REQUIRES(ctx, depth >= 0,
                    absl::InvalidArgumentError(absl::StrCat(
                        "depth must be non-negative, got: ", depth)));
    TensorShape out_shape;
    for (int d = 0; d < indices.dims(); ++d) {
      if (d == axis) DFX_OP_REQUIRES_OK(ctx, out_shape.AddDim(depth));
      DFX_OP_REQUIRES_OK(ctx, out_shape.AddDim(indices.dim_size(d)));
    }
    if (axis == indices.dims()) {
      DFX_OP_REQUIRES_OK(ctx, out_shape.AddDim(depth));
    }
    Tensor* out = nullptr;
    DFX_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, out_shape, &out));
    if (out->NumElements() == 0) return;
    // out viewed as [prefix, depth, suffix]; indices as [prefix, suffix].
    const int64_t suffix = DimProduct(indices.shape(), axis, indices.dims());
    VisitMoveType(out->dtype(), [&]<typename E>() {
      const E on_v = MoveData<E>(on)[0];
      const E off_v = MoveData<E>(off)[0];
      E* dst = MoveData<E>(out);
      // Each task writes whole (prefix, depth) rows of `suffix` elements.
      const int64_t rows = out->NumElements() / suffix;
      ParallelForWork(
          *ctx->device(), rows, suffix * static_cast<int64_t>(sizeof(E)),
          [&](int64_t first, int64_t last) {
            for (int64_t r = first; r < last; ++r) {
              const int64_t p = r / depth;
              const int64_t d = r - p * depth;
              E* o = dst + r * suffix;
              for (int64_t s = 0; s < suffix; ++s) {
                o[s] = IntAt(indices, p * suffix + s) == d ? on_v : off_v;
              }
            }
          });
    });
  }

 private:
  int64_t axis_ = -1;
};

template <typename T>
bool IsNonZero(const T& v) {
  if constexpr (std::is_same_v<T, bool>) {
    return v;
  } else {
    return v != T(0);
  }
}

class WhereOp : public OpKernel {
 public:
  using OpKernel::OpKernel;

  void Compute(OpKernelContext* ctx) override {
    const Tensor& input = ctx->input(0);
    const int rank = input.dims();
    DFX_OP_REQUIRES(ctx, rank > 0,
                    absl::InvalidArgumentError(absl::StrCat(
                        "WhereOp : Unhandled input dimensions: ", rank)));
    const int64_t n = input.NumElements();
    // Blocks of the input: each counts its true elements, then writes its
    // coordinates after those of the blocks before it.
    constexpr int64_t kBlock = 16 * 1024;
    const int64_t blocks = (n + kBlock - 1) / kBlock;
    std::vector<int64_t> counts(static_cast<size_t>(blocks) + 1, 0);
    auto visit = [&](auto&& body) {
      bool known = VisitNumberType(input.dtype(), body);
      if (!known && input.dtype() == DT_BOOL) {
        body.template operator()<bool>();
        known = true;
      }
      DFX_CHECK(known);
    };
    visit([&]<typename T>() {
      const T* in = input.data<T>();
      ParallelForWork(*ctx->device(), blocks, kBlock * sizeof(T),
                      [&](int64_t first, int64_t last) {
                        for (int64_t b = first; b < last; ++b) {
                          const int64_t end = std::min(n, (b + 1) * kBlock);
                          int64_t c = 0;
                          for (int64_t i = b * kBlock; i < end; ++i) {
                            c += IsNonZero(in[i]) ? 1 : 0;
                          }
                          counts[b + 1] = c;
                        }
                      });
    });
    for (int64_t b = 0; b < blocks; ++b) counts[b + 1] += counts[b];
    Tensor* out = nullptr;
    DFX_OP_REQUIRES_OK(
        ctx, ctx->allocate_output(0, TensorShape({counts[blocks], rank}),
                                  &out));
    int64_t* coords = out->data<int64_t>();
    visit([&]<typename T>() {
      const T* in = input.data<T>();
      ParallelForWork(
          *ctx->device(), blocks, kBlock * sizeof(T),
          [&](int64_t first, int64_t last) {
            std::vector<int64_t> pos(rank);
            for (int64_t b = first; b < last; ++b) {
              const int64_t begin = b * kBlock;
              const int64_t end = std::min(n, begin + kBlock);
              int64_t flat = begin;
              for (int d = rank - 1; d >= 0; --d) {
                pos[d] = flat % input.dim_size(d);
                flat /= input.dim_size(d);
              }
              int64_t* o = coords + counts[b] * rank;
              for (int64_t i = begin; i < end; ++i) {
                if (IsNonZero(in[i])) {
                  std::copy(pos.begin(), pos.end(), o);
                  o += rank;
                }
                for (int d = rank - 1; d >= 0; --d) {
                  if (++pos[d] < input.dim_size(d)) break;
                  pos[d] = 0;
                }
              }
            }
          });
    });
  }
};

template <typename T>
bool IsNan(const T& v) {
  if constexpr (std::numeric_limits<T>::has_quiet_NaN) {
    return Eigen::numext::isnan(v);
  } else {
    return false;
  }
}

class TopKOp : public OpKernel {
 public:
  explicit TopKOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    ctx->SetStatus(ctx->GetAttr("sorted", &sorted_));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& input = ctx->input(0);
    const Tensor& k_t = ctx->input(1);
    DFX_OP_REQUIRES(ctx, k_t.dims() == 0,
                    absl::InvalidArgumentError(absl::StrCat(
                        "k must be scalar, got shape ",
                        k_t.shape().DebugString())));
    const int64_t k = IntAt(k_t, 0);
    DFX_OP_REQUIRES(ctx, k >= 0,
                    absl::InvalidArgumentError(
                        absl::StrCat("Need k >= 0, got ", k)));
    DFX_OP_REQUIRES(ctx, input.dims() >= 1,
                    absl::InvalidArgumentError(absl::StrCat(
                        "input must be >= 1-D, got shape ",
                        input.shape().DebugString())));
    const int64_t cols = input.dim_size(input.dims() - 1);
    DFX_OP_REQUIRES(ctx, cols >= k,
                    absl::InvalidArgumentError(absl::StrCat(
                        "input must have at least k columns. Had ", cols,
                        ", needed ", k)));
    TensorShape out_shape = input.shape();
    out_shape.set_dim(input.dims() - 1, k);
    Tensor* values = nullptr;
    Tensor* indices = nullptr;
    DFX_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, out_shape, &values));
    DFX_OP_REQUIRES_OK(ctx, ctx->allocate_output(1, out_shape, &indices));
    if (k == 0 || values->NumElements() == 0) return;
    DFX_OP_REQUIRES(
        ctx, indices->dtype() != DT_INT16 || cols <= 32768,
        absl::InvalidArgumentError(absl::StrCat(
            "input has ", cols, " columns, too many for int16 indices")));
    const int64_t rows = input.NumElements() / cols;
    const bool known = VisitRealType(input.dtype(), [&]<typename T>() {
      VisitOutIndex(indices->dtype(), [&]<typename O>() {
        TopKRows<T, O>(*ctx->device(), input.data<T>(), rows, cols, k,
                       values->data<T>(), indices->data<O>());
      });
    });
    DFX_CHECK(known);
  }

 private:
  // Puts the positions of row's k largest elements first in `order`
  // (size cols), descending by value, ties (and NaNs, which rank above every
  // number) by lower index. Always sorted, which `sorted=false` allows.
  template <typename T>
  static void SelectTopK(const T* row, int64_t cols, int64_t k,
                         std::vector<int64_t>* order) {
    auto before = [row](int64_t a, int64_t b) {
      const T& x = row[a];
      const T& y = row[b];
      const bool xn = IsNan(x);
      const bool yn = IsNan(y);
      if (xn || yn) return xn && yn ? a < b : xn;
      if (y < x) return true;
      if (x < y) return false;
      return a < b;
    };
    std::iota(order->begin(), order->end(), int64_t{0});
    if (k == 1) {
      int64_t best = 0;
      for (int64_t c = 1; c < cols; ++c) {
        if (before(c, best)) best = c;
      }
      (*order)[0] = best;
    } else if (k == cols) {
      std::sort(order->begin(), order->end(), before);
    } else {
      std::partial_sort(order->begin(), order->begin() + k, order->end(),
                        before);
    }
  }

  template <typename T, typename O>
  static void TopKRows(const Device& device, const T* in, int64_t rows,
                       int64_t cols, int64_t k, T* values, O* indices) {
    const double log_k = std::log2(static_cast<double>(k) + 1);
    ParallelForWork(
        device, rows,
        static_cast<int64_t>(static_cast<double>(cols * sizeof(T)) * log_k) + 1,
        [&](int64_t first, int64_t last) {
          std::vector<int64_t> order(static_cast<size_t>(cols));
          for (int64_t r = first; r < last; ++r) {
            const T* row = in + r * cols;
            SelectTopK(row, cols, k, &order);
            for (int64_t j = 0; j < k; ++j) {
              values[r * k + j] = row[order[j]];
              indices[r * k + j] = static_cast<O>(order[j]);
            }
          }
        });
  }

  bool sorted_ = true;
};

// ArgMax (kMax) and ArgMin. Scans as TensorFlow's Eigen reducer does: the
// running best starts at (index 0, lowest value) for max ((0, highest) for
// min) and moves to a later element only when it is strictly better, so ties
// keep the lowest index and NaNs never win.
template <bool kMax>
class ArgOp : public OpKernel {
 public:
  using OpKernel::OpKernel;

  void Compute(OpKernelContext* ctx) override {
    const Tensor& input = ctx->input(0);
    const Tensor& dim_t = ctx->input(1);
    DFX_OP_REQUIRES(ctx, dim_t.dims() == 0,
                    absl::InvalidArgumentError(absl::StrCat(
                        "dim must be a scalar, but received tensor of shape: ",
                        dim_t.shape().DebugString())));
    const int64_t dim = IntAt(dim_t, 0);
    const int rank = input.dims();
    const int64_t axis = dim < 0 ? dim + rank : dim;
    DFX_OP_REQUIRES(ctx, axis >= 0 && axis < rank,
                    absl::InvalidArgumentError(absl::StrCat(
                        "Expected dimension in the range [", -rank, ", ", rank,
                        "), but got ", dim)));
    const int ax = static_cast<int>(axis);
    DFX_OP_REQUIRES(ctx, input.dim_size(ax) > 0,
                    absl::InvalidArgumentError(absl::StrCat(
                        "Reduction axis ", dim, " is empty in shape ",
                        input.shape().DebugString())));
    TensorShape out_shape = input.shape();
    out_shape.RemoveDim(ax);
    Tensor* out = nullptr;
    DFX_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, out_shape, &out));
    if (out->NumElements() == 0) return;
    const int64_t outer = DimProduct(input.shape(), 0, ax);
    const int64_t n = input.dim_size(ax);
    const int64_t inner = DimProduct(input.shape(), ax + 1, rank);

    auto run = [&]<typename T>() {
      VisitOutIndex(out->dtype(), [&]<typename O>() {
        ArgRows<T, O>(*ctx->device(), input.data<T>(), outer, n, inner,
                      out->data<O>());
      });
    };
    bool known = VisitRealType(input.dtype(), run);
    if (!known && input.dtype() == DT_BOOL) {
      run.template operator()<bool>();
      known = true;
    }
    DFX_CHECK(known);
  }

 private:
  // Columns of a row are scanned in blocks of this many, so every task
  // reads contiguous memory however the reduced axis lies.
  static constexpr int64_t kColumnBlock = 256;

  template <typename T, typename O>
  static void ArgRows(const Device& device, const T* in, int64_t outer,
                      int64_t n, int64_t inner, O* out) {
    const int64_t blocks_per_row = (inner + kColumnBlock - 1) / kColumnBlock;
    ParallelForWork(
        device, outer * blocks_per_row,
        n * std::min(inner, kColumnBlock) * static_cast<int64_t>(sizeof(T)),
        [&](int64_t first, int64_t last) {
          T best[kColumnBlock];
          int64_t best_i[kColumnBlock];
          for (int64_t u = first; u < last; ++u) {
            const int64_t o = u / blocks_per_row;
            const int64_t c0 = (u - o * blocks_per_row) * kColumnBlock;
            const int64_t width = std::min(kColumnBlock, inner - c0);
            const T init = kMax ? std::numeric_limits<T>::lowest()
                                : std::numeric_limits<T>::max();
            std::fill(best, best + width, init);
            std::fill(best_i, best_i + width, int64_t{0});
            const T* base = in + o * n * inner + c0;
            for (int64_t i = 0; i < n; ++i) {
              const T* row = base + i * inner;
              for (int64_t c = 0; c < width; ++c) {
                const bool better = kMax ? best[c] < row[c] : row[c] < best[c];
                if (better) {
                  best[c] = row[c];
                  best_i[c] = i;
                }
              }
            }
            O* dst = out + o * inner + c0;
            for (int64_t c = 0; c < width; ++c) {
              dst[c] = static_cast<O>(best_i[c]);
            }
          }
        });
  }
};

}  // namespace

void RegisterSelectKernels(KernelRegistry* registry) {
  RegisterKernel<OneHotOp>(
      registry, KernelDefBuilder("OneHot")
                    .TypeConstraint("T", array_internal::MovableTypes())
                    .TypeConstraint("TI", {DT_UINT8, DT_INT8, DT_INT32,
                                           DT_INT64}));
  DataTypeVector where_types = NumberTypes();
  where_types.push_back(DT_BOOL);
  RegisterKernel<WhereOp>(
      registry, KernelDefBuilder("Where").TypeConstraint("T", where_types));
  RegisterKernel<TopKOp>(
      registry,
      KernelDefBuilder("TopKV2")
          .TypeConstraint("T", RealTypes())
          .TypeConstraint("Tk", {DT_INT16, DT_INT32, DT_INT64})
          .TypeConstraint("index_type", {DT_INT16, DT_INT32, DT_INT64}));
  DataTypeVector arg_types = RealTypes();
  arg_types.push_back(DT_BOOL);
  RegisterKernel<ArgOp<true>>(
      registry,
      KernelDefBuilder("ArgMax")
          .TypeConstraint("T", arg_types)
          .TypeConstraint("Tidx", {DT_INT16, DT_INT32, DT_INT64})
          .TypeConstraint("output_type",
                          {DT_INT16, DT_UINT16, DT_INT32, DT_INT64}));
  RegisterKernel<ArgOp<false>>(
      registry, KernelDefBuilder("ArgMin")
                    .TypeConstraint("T", arg_types)
                    .TypeConstraint("Tidx", {DT_INT32, DT_INT64})
                    .TypeConstraint("output_type", {DT_INT32, DT_INT64}));
}

}  // namespace dfx::gather_internal
