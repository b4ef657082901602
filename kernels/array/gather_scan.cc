// Cumsum and Cumprod along any axis, inclusive or exclusive, forward or
// reversed.
//
// The input is viewed as [outer, n, inner] with n the scanned axis. Work is
// split into (outer row, block of inner columns) units; each unit walks the
// axis once, keeping one running value per column, so memory is read
// contiguously whichever axis is scanned. Values accumulate in T, in axis
// order, as TensorFlow's Eigen scan does (so half rounds at every step, and
// integers wrap).
#include <algorithm>
#include <complex>
#include <cstdint>

#include "absl/strings/str_cat.h"
#include "kernels/array/gather_util.h"

namespace dfx::gather_internal {
namespace {

constexpr int64_t kColumnBlock = 256;

template <typename T, bool kProd>
void ScanRows(const Device& device, const T* in, T* out, int64_t outer,
              int64_t n, int64_t inner, bool exclusive, bool reverse) {
  const int64_t blocks_per_row = (inner + kColumnBlock - 1) / kColumnBlock;
  ParallelForWork(
      device, outer * blocks_per_row,
      n * std::min(inner, kColumnBlock) * static_cast<int64_t>(sizeof(T)),
      [&](int64_t first, int64_t last) {
        T acc[kColumnBlock];
        for (int64_t u = first; u < last; ++u) {
          const int64_t o = u / blocks_per_row;
          const int64_t c0 = (u - o * blocks_per_row) * kColumnBlock;
          const int64_t width = std::min(kColumnBlock, inner - c0);
          std::fill(acc, acc + width, kProd ? T(1) : T(0));
          for (int64_t step = 0; step < n; ++step) {
            const int64_t i = reverse ? n - 1 - step : step;
            const int64_t offset = (o * n + i) * inner + c0;
            const T* x = in + offset;
            T* y = out + offset;
            for (int64_t c = 0; c < width; ++c) {
              if (exclusive) y[c] = acc[c];
              if constexpr (kProd) {
                acc[c] = acc[c] * x[c];
              } else {
                acc[c] = acc[c] + x[c];
              }
              if (!exclusive) y[c] = acc[c];
            }
          }
        }
      });
}

template <bool kProd>
class ScanOp : public OpKernel {
 public:
  explicit ScanOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    ctx->SetStatus(ctx->GetAttr("exclusive", &exclusive_));
    ctx->SetStatus(ctx->GetAttr("reverse", &reverse_));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& input = ctx->input(0);
    const Tensor& axis_t = ctx->input(1);
    DFX_OP_REQUIRES(ctx, axis_t.dims() == 0,
                    absl::InvalidArgumentError(absl::StrCat(
                        "ScanOp: axis must be a scalar, not ",
                        axis_t.shape().DebugString())));
    const int64_t axis_in = IntAt(axis_t, 0);
    const int rank = input.dims();
    DFX_OP_REQUIRES(ctx, axis_in >= -rank && axis_in < rank,
                    absl::InvalidArgumentError(absl::StrCat(
                        "ScanOp: Expected scan axis in the range [", -rank,
                        ", ", rank, "), but got ", axis_in)));
    const int axis = static_cast<int>(axis_in < 0 ? axis_in + rank : axis_in);
    Tensor* out = nullptr;
    DFX_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, input.shape(), &out));
    if (input.NumElements() == 0) return;
    const int64_t outer = DimProduct(input.shape(), 0, axis);
    const int64_t n = input.dim_size(axis);
    const int64_t inner = DimProduct(input.shape(), axis + 1, rank);
    const bool known = VisitNumberType(input.dtype(), [&]<typename T>() {
      ScanRows<T, kProd>(*ctx->device(), input.data<T>(), out->data<T>(),
                         outer, n, inner, exclusive_, reverse_);
    });
    DFX_CHECK(known);
  }

 private:
  bool exclusive_ = false;
  bool reverse_ = false;
};

}  // namespace

void RegisterScanKernels(KernelRegistry* registry) {
  RegisterKernel<ScanOp<false>>(
      registry, KernelDefBuilder("Cumsum")
                    .TypeConstraint("T", NumberTypes())
                    .TypeConstraint("Tidx", {DT_INT32, DT_INT64}));
  RegisterKernel<ScanOp<true>>(
      registry, KernelDefBuilder("Cumprod")
                    .TypeConstraint("T", NumberTypes())
                    .TypeConstraint("Tidx", {DT_INT32, DT_INT64}));
}

}  // namespace dfx::gather_internal
