// UnsortedSegmentSum/Max/Min/Prod and SegmentSum/Mean/Prod/Max/Min.
//
// Every output row is combined from its input rows in index order, so the
// results do not depend on the number of threads. Unsorted reductions split
// the work over the columns of a row when rows are wide, or over ranges of
// segments (each task scanning the ids for its own) when they are narrow;
// sorted reductions split over segments.
#include <algorithm>
#include <complex>
#include <cstdint>
#include <limits>
#include <vector>

#include "absl/strings/str_cat.h"
#include "kernels/array/gather_util.h"

namespace dfx::gather_internal {
namespace {

// Narrow rows: below this many columns the work is split over segments.
constexpr int64_t kWideRow = 16;

template <Reduce R>
class UnsortedSegmentOp : public OpKernel {
 public:
  using OpKernel::OpKernel;

  void Compute(OpKernelContext* ctx) override {
    const Tensor& data = ctx->input(0);
    const Tensor& ids = ctx->input(1);
    const Tensor& num_t = ctx->input(2);
    DFX_OP_REQUIRES(ctx, num_t.dims() == 0,
                    absl::InvalidArgumentError(absl::StrCat(
                        "num_segments should be a scalar, not shape ",
                        num_t.shape().DebugString())));
    bool prefix = data.dims() >= ids.dims();
    for (int d = 0; prefix && d < ids.dims(); ++d) {
      prefix = data.dim_size(d) == ids.dim_size(d);
    }
    DFX_OP_REQUIRES(ctx, prefix,
                    absl::InvalidArgumentError(absl::StrCat(
                        "data.shape = ", data.shape().DebugString(),
                        " does not start with segment_ids.shape = ",
                        ids.shape().DebugString())));
    const int64_t num_segments = IntAt(num_t, 0);
    DFX_OP_REQUIRES(ctx, num_segments >= 0,
                    absl::InvalidArgumentError(absl::StrCat(
                        "Input num_segments == ", num_segments,
                        " must not be negative.")));
    TensorShape out_shape;
    DFX_OP_REQUIRES_OK(ctx, out_shape.AddDim(num_segments));
    for (int d = ids.dims(); d < data.dims(); ++d) {
      DFX_OP_REQUIRES_OK(ctx, out_shape.AddDim(data.dim_size(d)));
    }
    Tensor* out = nullptr;
    DFX_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, out_shape, &out));
    const int64_t n = ids.NumElements();
    const int64_t inner = DimProduct(data.shape(), ids.dims(), data.dims());

    // int16 and uint16 ids are widened to int32 first: the reductions are
    // compiled for int32 and int64 ids only (half the instantiations; the
    // loops stay typed, as fast as before).
    std::vector<int32_t> widened;
    if (ids.dtype() == DT_INT16 || ids.dtype() == DT_UINT16) {
      widened.resize(static_cast<size_t>(n));
      for (int64_t i = 0; i < n; ++i) {
        widened[i] = static_cast<int32_t>(IntAt(ids, i));
      }
    }
    auto visit_ids = [&](auto&& fn) {
      if (ids.dtype() == DT_INT64) {
        fn(ids.data<int64_t>());
      } else if (ids.dtype() == DT_INT32) {
        fn(ids.data<int32_t>());
      } else {
        fn(static_cast<const int32_t*>(widened.data()));
      }
    };
    visit_ids([&]<typename Index>(const Index* seg) {
      // Negative ids drop their row, as in TensorFlow.
      for (int64_t i = 0; i < n; ++i) {
        const int64_t j = static_cast<int64_t>(seg[i]);
        if (j >= num_segments) {
          ctx->SetStatus(absl::InvalidArgumentError(absl::StrCat(
              "segment_ids", IndexPosition(ids.shape(), i), " = ", j,
              " is out of range [0, ", num_segments, ")")));
          return;
        }
      }
      const bool known = VisitNumberType(data.dtype(), [&]<typename T>() {
        if constexpr ((R == Reduce::kMax || R == Reduce::kMin) &&
                      !std::is_arithmetic_v<T> &&
                      !std::is_same_v<T, Eigen::half> &&
                      !std::is_same_v<T, Eigen::bfloat16>) {
          return;  // no order on complex numbers; not registered
        } else {
          Reduce_<T>(ctx, seg, n, data.data<T>(), out->data<T>(),
                     num_segments, inner);
        }
      });
      DFX_CHECK(known);
    });
  }

 private:
  template <typename T, typename Index>
  static void Reduce_(OpKernelContext* ctx, const Index* seg, int64_t n,
                      const T* in, T* out, int64_t num_segments,
                      int64_t inner) {
    const T init = Identity<T, R>();
    std::fill(out, out + num_segments * inner, init);
    if (n == 0 || inner == 0 || num_segments == 0) return;
    const Device& device = *ctx->device();
    if (inner >= kWideRow || num_segments == 1) {
      ParallelForWork(device, inner, n * static_cast<int64_t>(sizeof(T)),
                      [&](int64_t first, int64_t last) {
                        for (int64_t i = 0; i < n; ++i) {
                          const int64_t j = static_cast<int64_t>(seg[i]);
                          if (j < 0) continue;
                          T* dst = out + j * inner;
                          const T* src = in + i * inner;
                          for (int64_t c = first; c < last; ++c) {
                            Combine<T, R>(dst[c], src[c]);
                          }
                        }
                      });
      return;
    }
    // Each task owns segments [first, last) and scans every id.
    const int64_t per_segment =
        std::max<int64_t>(1, n * inner * static_cast<int64_t>(sizeof(T)) /
                                 num_segments);
    ParallelForWork(device, num_segments, per_segment + n / num_segments + 1,
                    [&](int64_t first, int64_t last) {
                      for (int64_t i = 0; i < n; ++i) {
                        const int64_t j = static_cast<int64_t>(seg[i]);
                        if (j < first || j >= last) continue;
                        T* dst = out + j * inner;
                        const T* src = in + i * inner;
                        for (int64_t c = 0; c < inner; ++c) {
                          Combine<T, R>(dst[c], src[c]);
                        }
                      }
                    });
  }
};

// The sorted segment reductions: SegmentSum, SegmentMean (kMean), and
// SegmentProd/Max/Min, whose rows without a segment are 0 (1 for
// SegmentProd) as TensorFlow's v1 kernels make them.
enum class Sorted { kSum, kMean, kProd, kMax, kMin };

template <Sorted K>
class SegmentOp : public OpKernel {
 public:
  using OpKernel::OpKernel;

  void Compute(OpKernelContext* ctx) override {
    const Tensor& data = ctx->input(0);
    const Tensor& ids = ctx->input(1);
    DFX_OP_REQUIRES(ctx, data.dims() >= 1,
                    absl::InvalidArgumentError(
                        "input must be at least rank 1"));
    DFX_OP_REQUIRES(ctx, ids.dims() == 1,
                    absl::InvalidArgumentError(
                        "segment_ids should be a vector."));
    const int64_t n = ids.NumElements();
    DFX_OP_REQUIRES(ctx, n == data.dim_size(0),
                    absl::InvalidArgumentError(
                        "segment_ids should be the same size as dimension 0 "
                        "of input."));
    const int64_t last_id = n > 0 ? IntAt(ids, n - 1) : -1;
    DFX_OP_REQUIRES(ctx, last_id >= -1,
                    absl::InvalidArgumentError("segment ids must be >= 0"));
    DFX_OP_REQUIRES(ctx, last_id < TensorShape::kMaxElements,
                    absl::InvalidArgumentError(absl::StrCat(
                        "segment id ", last_id, " is too large")));
    const int64_t output_rows = last_id + 1;

    // Segments as [start, end) runs of equal ids, checked as TensorFlow
    // checks them: increasing, and inside [0, output_rows).
    std::vector<Run> runs;
    int64_t start = 0;
    while (start < n) {
      const int64_t id = IntAt(ids, start);
      int64_t end = start + 1;
      while (end < n && IntAt(ids, end) == id) ++end;
      if (end < n) {
        DFX_OP_REQUIRES(ctx, id < IntAt(ids, end),
                        absl::InvalidArgumentError(
                            "segment ids are not increasing"));
      }
      DFX_OP_REQUIRES(
          ctx, id >= 0 && id < output_rows,
          absl::InvalidArgumentError(absl::StrCat(
              "Segment id ", id, " out of range [0, ", output_rows,
              "), possibly because 'segment_ids' input is not sorted.")));
      runs.push_back({id, start, end});
      start = end;
    }

    TensorShape out_shape;
    DFX_OP_REQUIRES_OK(ctx, out_shape.AddDim(output_rows));
    for (int d = 1; d < data.dims(); ++d) {
      DFX_OP_REQUIRES_OK(ctx, out_shape.AddDim(data.dim_size(d)));
    }
    Tensor* out = nullptr;
    DFX_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, out_shape, &out));
    const int64_t inner = DimProduct(data.shape(), 1, data.dims());
    SetZero(out);  // rows of absent segments are 0 (1 for SegmentProd)
    if constexpr (K == Sorted::kProd) FillOnes(out);
    if (runs.empty() || inner == 0) return;
    bool known = false;
    if constexpr (K == Sorted::kMax || K == Sorted::kMin) {
      known = VisitRealType(data.dtype(), [&]<typename T>() {
        ReduceRuns<T, T>(*ctx->device(), data, runs, n, inner, out);
      });
    } else {
      known = VisitNumberType(data.dtype(), [&]<typename T>() {
        ReduceRuns<T, typename AccumType<T>::type>(*ctx->device(), data, runs,
                                                   n, inner, out);
      });
    }
    DFX_CHECK(known);
  }

 private:
  struct Run {
    int64_t id;
    int64_t start;
    int64_t end;
  };

  static void FillOnes(Tensor* out) {
    VisitNumberType(out->dtype(), [&]<typename T>() {
      std::fill(out->data<T>(), out->data<T>() + out->NumElements(), T(1));
    });
  }

  // Each run's rows combined in index order, in A (AccumType<T> for sums,
  // means and products; T for max and min).
  template <typename T, typename A>
  static void ReduceRuns(const Device& device, const Tensor& data,
                         const std::vector<Run>& runs, int64_t n,
                         int64_t inner, Tensor* out) {
    const T* in = data.data<T>();
    T* dst = out->data<T>();
    ParallelForWork(
        device, static_cast<int64_t>(runs.size()),
        std::max<int64_t>(1, n / static_cast<int64_t>(runs.size())) * inner *
            static_cast<int64_t>(sizeof(T)),
        [&](int64_t first, int64_t last) {
          std::vector<A> acc(static_cast<size_t>(inner));
          for (int64_t r = first; r < last; ++r) {
            const Run& run = runs[r];
            // Sums start from 0, as Eigen's reducer does (-0 + 0 is +0);
            // the others from the first row.
            int64_t row = run.start;
            if constexpr (K == Sorted::kSum || K == Sorted::kMean) {
              std::fill(acc.begin(), acc.end(), A(0));
            } else {
              const T* row0 = in + row++ * inner;
              for (int64_t c = 0; c < inner; ++c) acc[c] = A(row0[c]);
            }
            for (; row < run.end; ++row) {
              const T* src = in + row * inner;
              for (int64_t c = 0; c < inner; ++c) {
                if constexpr (K == Sorted::kProd) {
                  acc[c] *= A(src[c]);
                } else if constexpr (K == Sorted::kMax) {
                  Combine<A, Reduce::kMax>(acc[c], A(src[c]));
                } else if constexpr (K == Sorted::kMin) {
                  Combine<A, Reduce::kMin>(acc[c], A(src[c]));
                } else {
                  acc[c] += A(src[c]);
                }
              }
            }
            T* o = dst + run.id * inner;
            if constexpr (K == Sorted::kMean) {
              const A count = A(static_cast<float>(run.end - run.start));
              for (int64_t c = 0; c < inner; ++c) o[c] = T(acc[c] / count);
            } else {
              for (int64_t c = 0; c < inner; ++c) o[c] = T(acc[c]);
            }
          }
        });
  }
};

}  // namespace

void RegisterSegmentKernels(KernelRegistry* registry) {
  RegisterKernel<UnsortedSegmentOp<Reduce::kSum>>(
      registry,
      KernelDefBuilder("UnsortedSegmentSum")
          .TypeConstraint("T", NumberTypes())
          .TypeConstraint("Tindices", {DT_INT16, DT_INT32, DT_INT64})
          .TypeConstraint("Tnumsegments", {DT_INT32, DT_INT64}));
  RegisterKernel<UnsortedSegmentOp<Reduce::kProd>>(
      registry, KernelDefBuilder("UnsortedSegmentProd")
                    .TypeConstraint("T", NumberTypes())
                    .TypeConstraint("Tindices", {DT_INT32, DT_INT64})
                    .TypeConstraint("Tnumsegments", {DT_INT32, DT_INT64}));
  RegisterKernel<UnsortedSegmentOp<Reduce::kMax>>(
      registry, KernelDefBuilder("UnsortedSegmentMax")
                    .TypeConstraint("T", RealTypes())
                    .TypeConstraint("Tindices", {DT_INT32, DT_INT64})
                    .TypeConstraint("Tnumsegments", {DT_INT32, DT_INT64}));
  RegisterKernel<UnsortedSegmentOp<Reduce::kMin>>(
      registry, KernelDefBuilder("UnsortedSegmentMin")
                    .TypeConstraint("T", RealTypes())
                    .TypeConstraint("Tindices", {DT_INT32, DT_INT64})
                    .TypeConstraint("Tnumsegments", {DT_INT32, DT_INT64}));
  RegisterKernel<SegmentOp<Sorted::kSum>>(
      registry, KernelDefBuilder("SegmentSum")
                    .TypeConstraint("T", NumberTypes())
                    .TypeConstraint("Tindices", {DT_INT32, DT_INT64}));
  RegisterKernel<SegmentOp<Sorted::kMean>>(
      registry, KernelDefBuilder("SegmentMean")
                    .TypeConstraint("T", NumberTypes())
                    .TypeConstraint("Tindices", {DT_INT32, DT_INT64}));
  RegisterKernel<SegmentOp<Sorted::kProd>>(
      registry, KernelDefBuilder("SegmentProd")
                    .TypeConstraint("T", NumberTypes())
                    .TypeConstraint("Tindices", {DT_INT32, DT_INT64}));
  RegisterKernel<SegmentOp<Sorted::kMax>>(
      registry, KernelDefBuilder("SegmentMax")
                    .TypeConstraint("T", RealTypes())
                    .TypeConstraint("Tindices", {DT_INT32, DT_INT64}));
  RegisterKernel<SegmentOp<Sorted::kMin>>(
      registry, KernelDefBuilder("SegmentMin")
                    .TypeConstraint("T", RealTypes())
                    .TypeConstraint("Tindices", {DT_INT32, DT_INT64}));
}

}  // namespace dfx::gather_internal
