// SparseSegmentSum, SparseSegmentMean, SparseSegmentSqrtN (and their
// WithNumSegments forms): output row s combines the data rows that
// `indices` names at the positions where segment_ids == s. And their
// gradients SparseSegment{Sum,Mean,SqrtN}Grad (and GradV2), which scatter each gradient
// row back to the data rows it came from.
//
// Results match TensorFlow's CPU kernels bit for bit: a segment is summed in
// TensorFlow's order (a head of 2..9 rows summed left to right and scaled,
// then blocks of 8 rows each summed before being added), half and bfloat16 in
// float, and a mean or sqrt-n is a multiply by 1/n for segments of fewer than
// 10 rows and a divide for longer ones. Checks run in TensorFlow's order so a
// bad input gets TensorFlow's first error.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <type_traits>
#include <vector>

#include "absl/strings/str_cat.h"
#include "kernels/sparse/sparse_util.h"

namespace dfx::sparse_internal {
namespace {

enum class Combiner { kSum, kMean, kSqrtN };

// One segment: output row `id` combines the rows indices[start, end).
struct Run {
  int64_t id;
  int64_t start;
  int64_t end;
};

// The scale TensorFlow applies after summing a segment of n > 1 rows: a
// multiply for n < 10 (returned as `factor`), a divide for n >= 10
// (returned as `divisor`); 1 for sums.
template <typename A>
void SegmentScale(Combiner combiner, int64_t n, A* factor, A* divisor) {
  A m(1);
  *divisor = A(1);
  if (combiner == Combiner::kMean) {
    if (n < 10) {
      m = A(static_cast<double>(n));
    } else {
      *divisor = A(static_cast<double>(n));
    }
  } else if (combiner == Combiner::kSqrtN) {
    if (n < 10) {
      m = A(std::sqrt(static_cast<double>(n)));
    } else {
      *divisor = A(std::sqrt(static_cast<double>(n)));
    }
  }
  *factor = A(1) / m;
}

template <Combiner kCombiner, bool kHasNumSegments>
class SparseSegmentReductionOp : public OpKernel {
 public:
  using OpKernel::OpKernel;

  void Compute(OpKernelContext* ctx) override {
    const Tensor& data = ctx->input(0);
    const Tensor& indices = ctx->input(1);
    const Tensor& segment_ids = ctx->input(2);
    int64_t num_segments = -1;
    if constexpr (kHasNumSegments) {
      const Tensor& num_t = ctx->input(3);
      DFX_OP_REQUIRES(ctx, num_t.dims() == 0,
                      absl::InvalidArgumentError(absl::StrCat(
                          "num_segments should be a scalar, not shape ",
                          num_t.shape().DebugString())));
      num_segments = IndexAt(num_t, 0);
      DFX_OP_REQUIRES(ctx, num_segments >= 0,
                      absl::InvalidArgumentError("segment ids must be >= 0"));
    }
    DFX_OP_REQUIRES(ctx, indices.dims() == 1,
                    absl::InvalidArgumentError("indices should be a vector."));
    DFX_OP_REQUIRES(
        ctx, segment_ids.dims() == 1,
        absl::InvalidArgumentError("segment_ids should be a vector."));
    const int64_t n = indices.NumElements();
    DFX_OP_REQUIRES(ctx, n == segment_ids.NumElements(),
                    absl::InvalidArgumentError(
                        "segment_ids and indices should have same size."));
    DFX_OP_REQUIRES(
        ctx, data.dims() >= 1,
        absl::InvalidArgumentError("Shape must be at least rank 1"));

    const int64_t last_id = n > 0 ? IndexAt(segment_ids, n - 1) : 0;
    const int64_t limit = indices.dtype() == DT_INT32
                              ? std::numeric_limits<int32_t>::max()
                              : std::numeric_limits<int64_t>::max();
    DFX_OP_REQUIRES(ctx, last_id < limit,
                    absl::InvalidArgumentError(absl::StrCat(
                        "Last segment id must be < kintmax, got ", last_id,
                        " limit ", limit)));
    const int64_t last_plus_one = n > 0 ? last_id + 1 : 0;
    int64_t output_rows = num_segments;
    if constexpr (kHasNumSegments) {
      DFX_OP_REQUIRES(
          ctx, output_rows >= last_plus_one,
          absl::InvalidArgumentError("segment ids must be < num_segments"));
    } else {
      output_rows = last_plus_one;
    }
    DFX_OP_REQUIRES(ctx, output_rows >= 0,
                    absl::InvalidArgumentError("segment ids must be >= 0"));

    TensorShape out_shape;
    DFX_OP_REQUIRES_OK(ctx, out_shape.AddDim(output_rows));
    int64_t cols = 1;
    for (int d = 1; d < data.dims(); ++d) {
      DFX_OP_REQUIRES_OK(ctx, out_shape.AddDim(data.dim_size(d)));
      cols *= data.dim_size(d);
    }
    Tensor* out = nullptr;
    DFX_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, out_shape, &out));
    if (out->NumElements() > 0) {
      std::memset(out->raw_data(), 0,
                  static_cast<size_t>(out->NumElements()) *
                      DataTypeSize(out->dtype()));
    }
    if (n == 0) return;
    DFX_OP_REQUIRES(ctx, output_rows > 0,
                    absl::InvalidArgumentError("segment ids must be >= 0"));

    // Segments in order, each checked as TensorFlow checks it before
    // reducing it: ids increase, the id is an output row, every index is a
    // data row.
    const int64_t data_rows = data.dim_size(0);
    std::vector<Run> runs;
    int64_t start = 0;
    while (start < n) {
      const int64_t id = IndexAt(segment_ids, start);
      int64_t end = start + 1;
      while (end < n && IndexAt(segment_ids, end) == id) ++end;
      if (end < n) {
        DFX_OP_REQUIRES(
            ctx, id < IndexAt(segment_ids, end),
            absl::InvalidArgumentError("segment ids are not increasing"));
      }
      DFX_OP_REQUIRES(
          ctx, id >= 0 && id < output_rows,
          absl::InvalidArgumentError(absl::StrCat(
              "Segment id ", id, " out of range [0, ", output_rows,
              "), possibly because 'segment_ids' input is not sorted.")));
      for (int64_t i = start; i < end; ++i) {
        const int64_t row = IndexAt(indices, i);
        DFX_OP_REQUIRES(ctx, row >= 0 && row < data_rows,
                        absl::InvalidArgumentError(absl::StrCat(
                            "Bad: indices[", i, "] == ", row,
                            " out of range [0, ", data_rows, ")")));
      }
      runs.push_back({id, start, end});
      start = end;
    }
    if (cols == 0) return;

    const bool known = VisitRealType(data.dtype(), [&]<typename T>() {
      Reduce<T>(ctx, data, indices, runs, cols, out);
    });
    DFX_OP_REQUIRES(ctx, known,
                    absl::InvalidArgumentError(absl::StrCat(
                        "unsupported dtype ", static_cast<int>(data.dtype()))));
  }

 private:
  template <typename T>
  static void Reduce(OpKernelContext* ctx, const Tensor& data,
                     const Tensor& indices, const std::vector<Run>& runs,
                     int64_t cols, Tensor* out) {
    using A = typename AccumType<T>::type;
    const T* in = data.data<T>();
    T* dst = out->data<T>();
    const int64_t rows_per_run = std::max<int64_t>(
        1, indices.NumElements() / static_cast<int64_t>(runs.size()));
    ParallelFor(
        *ctx->device(), static_cast<int64_t>(runs.size()),
        Eigen::TensorOpCost(
            static_cast<double>(rows_per_run * cols * sizeof(T)),
            static_cast<double>(cols * sizeof(T)),
            static_cast<double>(rows_per_run * cols)),
        [&](int64_t first, int64_t last) {
          std::vector<A> acc(static_cast<size_t>(cols));
          std::vector<A> block(static_cast<size_t>(cols));
          for (int64_t r = first; r < last; ++r) {
            ReduceRun<T>(in, indices, runs[r], cols, acc.data(), block.data(),
                         dst + runs[r].id * cols);
          }
        });
  }

  // One segment in TensorFlow's order of operations (see the file comment).
  template <typename T>
  static void ReduceRun(const T* in, const Tensor& indices, const Run& run,
                        int64_t cols, typename AccumType<T>::type* acc,
                        typename AccumType<T>::type* block, T* o) {
    using A = typename AccumType<T>::type;
    const int64_t num = run.end - run.start;
    auto row = [&](int64_t i) {
      return in + IndexAt(indices, run.start + i) * cols;
    };
    if (num == 1) {
      const T* src = row(0);
      for (int64_t c = 0; c < cols; ++c) o[c] = src[c];
      return;
    }
    A factor, divisor;
    SegmentScale<A>(kCombiner, num, &factor, &divisor);
    int64_t head = num & 7;
    if (head == 0) head = 8;
    if (head == 1) head = 9;
    {
      const T* src = row(0);
      for (int64_t c = 0; c < cols; ++c) acc[c] = A(src[c]);
    }
    for (int64_t i = 1; i < head; ++i) {
      const T* src = row(i);
      for (int64_t c = 0; c < cols; ++c) acc[c] = acc[c] + A(src[c]);
    }
    for (int64_t c = 0; c < cols; ++c) acc[c] = acc[c] * factor;
    for (int64_t b = head; b < num; b += 8) {
      {
        const T* src = row(b);
        for (int64_t c = 0; c < cols; ++c) block[c] = A(src[c]);
      }
      for (int64_t i = b + 1; i < b + 8; ++i) {
        const T* src = row(i);
        for (int64_t c = 0; c < cols; ++c) block[c] = block[c] + A(src[c]);
      }
      for (int64_t c = 0; c < cols; ++c) acc[c] = acc[c] + block[c];
    }
    if (kCombiner != Combiner::kSum && num >= 10) {
      for (int64_t c = 0; c < cols; ++c) acc[c] = acc[c] / divisor;
    }
    for (int64_t c = 0; c < cols; ++c) o[c] = T(acc[c]);
  }
};

// kV2: SparseSegment*GradV2, whose output has one row per distinct index
// (in increasing order, listed in a second output) instead of
// output_dim0 rows.
template <Combiner kCombiner, bool kV2>
class SparseSegmentGradOp : public OpKernel {
 public:
  using OpKernel::OpKernel;

  void Compute(OpKernelContext* ctx) override {
    const Tensor& grad = ctx->input(0);
    const Tensor& indices = ctx->input(1);
    const Tensor& segment_ids = ctx->input(2);
    const Tensor& dim0_t = ctx->input(3);
    DFX_OP_REQUIRES(ctx, indices.dims() == 1,
                    absl::InvalidArgumentError("indices should be a vector."));
    DFX_OP_REQUIRES(
        ctx, segment_ids.dims() == 1,
        absl::InvalidArgumentError("segment_ids should be a vector."));
    DFX_OP_REQUIRES(ctx, dim0_t.dims() == 0,
                    absl::InvalidArgumentError(absl::StrCat(
                        kV2 ? "dense_output_dim0" : "output_dim0",
                        " should be a scalar.")));
    const int64_t n = indices.NumElements();
    DFX_OP_REQUIRES(ctx, n == segment_ids.NumElements(),
                    absl::InvalidArgumentError(
                        "segment_ids and indices should have same size."));
    const int64_t m = dim0_t.data<int32_t>()[0];
    DFX_OP_REQUIRES(
        ctx, grad.dims() >= 1,
        absl::InvalidArgumentError("grad must be at least rank 1"));
    DFX_OP_REQUIRES(ctx, m >= 0,
                    absl::InvalidArgumentError(absl::StrCat(
                        kV2 ? "dense_output_dim0" : "output_dim0",
                        " must be non-negative, got ", m)));
    const int64_t num_segments = grad.dim_size(0);
    if (n > 0 && m > 0) {
      DFX_OP_REQUIRES(
          ctx, IndexAt(segment_ids, n - 1) + 1 <= num_segments,
          absl::InvalidArgumentError("Invalid number of segments"));
    }
    // 1/count or 1/sqrt(count) per segment, in double as TensorFlow.
    std::vector<double> scaling;
    if (kCombiner != Combiner::kSum && n > 0 && m > 0) {
      scaling.assign(static_cast<size_t>(num_segments), 0.0);
      for (int64_t i = 0; i < n; ++i) {
        const int64_t id = IndexAt(segment_ids, i);
        DFX_OP_REQUIRES(ctx, id >= 0 && id < num_segments,
                        absl::InvalidArgumentError(absl::StrCat(
                            "Segment id ", id, " out of range [0, ",
                            num_segments, ").")));
        scaling[id] += 1;
      }
      for (double& s : scaling) {
        s = kCombiner == Combiner::kMean ? 1.0 / std::max(s, 1.0)
                                         : 1.0 / std::sqrt(std::max(s, 1.0));
      }
    }
    if (n > 0 && m > 0) {
      for (int64_t i = 0; i < n; ++i) {
        const int64_t target = IndexAt(indices, i);
        DFX_OP_REQUIRES(ctx, target >= 0 && target < m,
                        absl::InvalidArgumentError(absl::StrCat(
                            "Index ", target, " out of range [0, ", m,
                            ").")));
        const int64_t id = IndexAt(segment_ids, i);
        DFX_OP_REQUIRES(ctx, id >= 0 && id < num_segments,
                        absl::InvalidArgumentError(absl::StrCat(
                            "Segment id ", id, " out of range [0, ",
                            num_segments, ").")));
      }
    }

    // The output row of each entry: its index, or for V2 the rank of its
    // index among the distinct ones.
    std::vector<int64_t> targets(static_cast<size_t>(n));
    for (int64_t i = 0; i < n; ++i) targets[i] = IndexAt(indices, i);
    int64_t out_rows = m;
    if constexpr (kV2) {
      std::vector<int64_t> unique = targets;
      std::sort(unique.begin(), unique.end());
      unique.erase(std::unique(unique.begin(), unique.end()), unique.end());
      out_rows = static_cast<int64_t>(unique.size());
      for (int64_t& t : targets) {
        t = std::lower_bound(unique.begin(), unique.end(), t) - unique.begin();
      }
      Tensor* unique_out = nullptr;
      DFX_OP_REQUIRES_OK(ctx, ctx->allocate_output(1, TensorShape({out_rows}),
                                                   &unique_out));
      for (int64_t k = 0; k < out_rows; ++k) {
        if (indices.dtype() == DT_INT32) {
          unique_out->data<int32_t>()[k] = static_cast<int32_t>(unique[k]);
        } else {
          unique_out->data<int64_t>()[k] = unique[k];
        }
      }
    }

    TensorShape out_shape;
    DFX_OP_REQUIRES_OK(ctx, out_shape.AddDim(out_rows));
    int64_t cols = 1;
    for (int d = 1; d < grad.dims(); ++d) {
      DFX_OP_REQUIRES_OK(ctx, out_shape.AddDim(grad.dim_size(d)));
      cols *= grad.dim_size(d);
    }
    Tensor* out = nullptr;
    DFX_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, out_shape, &out));
    if (out->NumElements() > 0) {
      std::memset(out->raw_data(), 0,
                  static_cast<size_t>(out->NumElements()) *
                      DataTypeSize(out->dtype()));
    }
    if (m == 0 || n == 0 || cols == 0) return;
    const bool known = VisitFloatType(grad.dtype(), [&]<typename T>() {
      Scatter<T>(ctx, grad, targets, segment_ids, scaling, out_rows, cols,
                 out);
    });
    DFX_OP_REQUIRES(ctx, known,
                    absl::InvalidArgumentError(absl::StrCat(
                        "unsupported dtype ", static_cast<int>(grad.dtype()))));
  }

 private:
  // Column ranges go to different tasks; within a column every row is
  // visited in input order, so the sums do not depend on the split. half
  // and bfloat16 accumulate in float and round once at the end, as
  // TensorFlow 2.21 does.
  template <typename T>
  static void Scatter(OpKernelContext* ctx, const Tensor& grad,
                      const std::vector<int64_t>& targets,
                      const Tensor& segment_ids,
                      const std::vector<double>& scaling, int64_t rows,
                      int64_t cols, Tensor* out) {
    using A = typename AccumType<T>::type;
    const int64_t n = static_cast<int64_t>(targets.size());
    const T* in = grad.data<T>();
    std::vector<A> wide;
    A* dst = nullptr;
    if constexpr (std::is_same_v<A, T>) {
      dst = out->data<T>();
    } else {
      wide.assign(static_cast<size_t>(rows * cols), A(0));
      dst = wide.data();
    }
    std::vector<A> scale(static_cast<size_t>(n));
    // Whether entry i is the first to reach its output row: TensorFlow
    // assigns then (keeping a -0) and adds after.
    std::vector<bool> first(static_cast<size_t>(n));
    std::vector<bool> written(static_cast<size_t>(rows), false);
    for (int64_t i = 0; i < n; ++i) {
      scale[i] = kCombiner == Combiner::kSum
                     ? A(1)
                     : A(scaling[IndexAt(segment_ids, i)]);
      first[i] = !written[targets[i]];
      written[targets[i]] = true;
    }
    ParallelFor(
        *ctx->device(), cols,
        Eigen::TensorOpCost(static_cast<double>(n * sizeof(T)),
                            static_cast<double>(n * sizeof(T)),
                            static_cast<double>(2 * n)),
        [&](int64_t c0, int64_t c1) {
          for (int64_t i = 0; i < n; ++i) {
            const T* src = in + IndexAt(segment_ids, i) * cols;
            A* o = dst + targets[i] * cols;
            const A s = scale[i];
            if (first[i]) {
              for (int64_t c = c0; c < c1; ++c) o[c] = A(src[c]) * s;
            } else {
              for (int64_t c = c0; c < c1; ++c) o[c] = o[c] + A(src[c]) * s;
            }
          }
        });
    if constexpr (!std::is_same_v<A, T>) {
      T* o = out->data<T>();
      for (int64_t k = 0; k < rows * cols; ++k) o[k] = T(wide[k]);
    }
  }
};

template <typename Kernel>
void RegisterTyped(KernelRegistry* registry, const char* name,
                   const DataTypeVector& types) {
  RegisterKernel<Kernel>(registry,
                         KernelDefBuilder(name)
                             .TypeConstraint("T", types)
                             .TypeConstraint("Tidx", {DT_INT32, DT_INT64})
                             .TypeConstraint("Tsegmentids", {DT_INT32, DT_INT64}));
}

}  // namespace

void RegisterSparseSegmentKernels(KernelRegistry* registry) {
  const DataTypeVector floats = {DT_FLOAT, DT_DOUBLE, DT_HALF, DT_BFLOAT16};
  const DataTypeVector reals = {DT_FLOAT,  DT_DOUBLE, DT_HALF,   DT_BFLOAT16,
                                DT_INT8,   DT_INT16,  DT_INT32,  DT_INT64,
                                DT_UINT8,  DT_UINT16, DT_UINT32, DT_UINT64};
  using S = Combiner;
  RegisterTyped<SparseSegmentReductionOp<S::kSum, false>>(
      registry, "SparseSegmentSum", reals);
  RegisterTyped<SparseSegmentReductionOp<S::kMean, false>>(
      registry, "SparseSegmentMean", floats);
  RegisterTyped<SparseSegmentReductionOp<S::kSqrtN, false>>(
      registry, "SparseSegmentSqrtN", floats);
  RegisterTyped<SparseSegmentReductionOp<S::kSum, true>>(
      registry, "SparseSegmentSumWithNumSegments", reals);
  RegisterTyped<SparseSegmentReductionOp<S::kMean, true>>(
      registry, "SparseSegmentMeanWithNumSegments", floats);
  RegisterTyped<SparseSegmentReductionOp<S::kSqrtN, true>>(
      registry, "SparseSegmentSqrtNWithNumSegments", floats);
  RegisterTyped<SparseSegmentGradOp<S::kSum, false>>(
      registry, "SparseSegmentSumGrad", floats);
  RegisterTyped<SparseSegmentGradOp<S::kMean, false>>(
      registry, "SparseSegmentMeanGrad", floats);
  RegisterTyped<SparseSegmentGradOp<S::kSqrtN, false>>(
      registry, "SparseSegmentSqrtNGrad", floats);
  RegisterTyped<SparseSegmentGradOp<S::kSum, true>>(
      registry, "SparseSegmentSumGradV2", floats);
  RegisterTyped<SparseSegmentGradOp<S::kMean, true>>(
      registry, "SparseSegmentMeanGradV2", floats);
  RegisterTyped<SparseSegmentGradOp<S::kSqrtN, true>>(
      registry, "SparseSegmentSqrtNGradV2", floats);
}

}  // namespace dfx::sparse_internal
