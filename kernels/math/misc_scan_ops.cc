// CumulativeLogsumexp (exclusive, reverse, along any axis) and NthElement
// (the n-th smallest, or with reverse the n-th largest, of each last-dim
// row), as TensorFlow 2.21's CPU kernels compute them.
#include "kernels/eigen_util.h"  // first: defines EIGEN_USE_THREADS

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "absl/strings/str_cat.h"
#include "kernels/math/misc_kernels.h"

namespace dfx::misc_internal {
namespace {

int64_t ScalarInt(const Tensor& t) {
  return t.dtype() == DT_INT64 ? t.data<int64_t>()[0]
                               : static_cast<int64_t>(t.data<int32_t>()[0]);
}

int64_t Product(const TensorShape& shape, int begin, int end) {
  int64_t p = 1;
  for (int d = begin; d < end; ++d) p *= shape.dim_size(d);
  return p;
}

// log(exp(a) + exp(b)) as TensorFlow's LogSumExp reducer computes it, each
// step in T (so half and bfloat16 round at every step): the larger plus
// log1p(exp(smaller - larger)), and -inf when both are -inf.
template <typename T>
T LogSumExp(T a, T b) {
  const T mi = (b < a) ? b : a;
  const T ma = (a < b) ? b : a;
  if (ma < std::numeric_limits<T>::lowest()) return ma;
  return T(Eigen::numext::log1p(Eigen::numext::exp(T(mi - ma)))) + ma;
}

template <typename T>
class CumulativeLogsumexpOp : public OpKernel {
 public:
  explicit CumulativeLogsumexpOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
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
    const int rank = input.dims();
    int64_t axis_in = ScalarInt(axis_t);
    // TensorFlow names the axis after adding the rank to a negative one.
    if (axis_in < 0) axis_in += rank;
    DFX_OP_REQUIRES(ctx, axis_in >= 0 && axis_in < rank,
                    absl::InvalidArgumentError(absl::StrCat(
                        "ScanOp: Expected scan axis in the range [", -rank,
                        ", ", rank, "), but got ", axis_in)));
    const int axis = static_cast<int>(axis_in);
    Tensor* out = nullptr;
    DFX_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, input.shape(), &out));
    if (input.NumElements() == 0) return;
    const int64_t outer = Product(input.shape(), 0, axis);
    const int64_t n = input.dim_size(axis);
    const int64_t inner = Product(input.shape(), axis + 1, rank);
    const T* in = input.data<T>();
    T* o = out->data<T>();
    const bool exclusive = exclusive_;
    const bool reverse = reverse_;
    // One unit per (outer, inner) column, scanned in axis order.
    ParallelFor(*ctx->device(), outer * inner,
                Eigen::TensorOpCost(n * sizeof(T), n * sizeof(T), n * 40),
                [&](int64_t first, int64_t last) {
                  for (int64_t u = first; u < last; ++u) {
                    const int64_t base = (u / inner) * n * inner + u % inner;
                    T acc = -std::numeric_limits<T>::infinity();
                    for (int64_t step = 0; step < n; ++step) {
                      const int64_t i = reverse ? n - 1 - step : step;
                      const int64_t k = base + i * inner;
                      if (exclusive) o[k] = acc;
                      acc = LogSumExp(acc, in[k]);
                      if (!exclusive) o[k] = acc;
                    }
                  }
                });
  }

 private:
  bool exclusive_ = false;
  bool reverse_ = false;
};

template <typename T>
class NthElementOp : public OpKernel {
 public:
  explicit NthElementOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    ctx->SetStatus(ctx->GetAttr("reverse", &reverse_));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& input = ctx->input(0);
    const Tensor& n_t = ctx->input(1);
    DFX_OP_REQUIRES(ctx, n_t.dims() == 0,
                    absl::InvalidArgumentError(absl::StrCat(
                        "N must be scalar but has rank ", n_t.dims())));
    const int64_t n_in = n_t.data<int32_t>()[0];
    DFX_OP_REQUIRES(ctx, n_in >= 0,
                    absl::InvalidArgumentError(
                        absl::StrCat("n must be non-negative but is ", n_in)));
    const int rank = input.dims();
    DFX_OP_REQUIRES(ctx, rank >= 1,
                    absl::InvalidArgumentError(absl::StrCat(
                        "Input must be at least rank 1 but is rank ", rank)));
    const int64_t cols = input.dim_size(rank - 1);
    DFX_OP_REQUIRES(ctx, cols > n_in,
                    absl::InvalidArgumentError(absl::StrCat(
                        "Input must have last dimension > n = ", n_in)));
    const int64_t n = reverse_ ? cols - 1 - n_in : n_in;
    TensorShape out_shape;
    for (int d = 0; d < rank - 1; ++d) {
      DFX_OP_REQUIRES_OK(ctx, out_shape.AddDim(input.dim_size(d)));
    }
    Tensor* out = nullptr;
    DFX_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, out_shape, &out));
    const int64_t rows = out_shape.num_elements();
    const T* in = input.data<T>();
    T* o = out->data<T>();
    ParallelFor(*ctx->device(), rows,
                Eigen::TensorOpCost(cols * sizeof(T), sizeof(T), cols * 20),
                [&](int64_t first, int64_t last) {
                  std::vector<T> row(cols);
                  for (int64_t r = first; r < last; ++r) {
                    std::copy(in + r * cols, in + (r + 1) * cols, row.begin());
                    std::nth_element(row.begin(), row.begin() + n, row.end());
                    o[r] = row[n];
                  }
                });
  }

 private:
  bool reverse_ = false;
};

template <typename T>
void RegisterNth(KernelRegistry* registry) {
  RegisterKernel<NthElementOp<T>>(
      registry, KernelDefBuilder("NthElement").TypeConstraint<T>("T"));
}

template <typename T>
void RegisterCumLse(KernelRegistry* registry) {
  RegisterKernel<CumulativeLogsumexpOp<T>>(
      registry,
      KernelDefBuilder("CumulativeLogsumexp").TypeConstraint<T>("T"));
}

}  // namespace

void RegisterMiscScanKernels(KernelRegistry* registry) {
  RegisterCumLse<Eigen::half>(registry);
  RegisterCumLse<Eigen::bfloat16>(registry);
  RegisterCumLse<float>(registry);
  RegisterCumLse<double>(registry);
  RegisterNth<float>(registry);
  RegisterNth<double>(registry);
  RegisterNth<int32_t>(registry);
  RegisterNth<uint8_t>(registry);
  RegisterNth<int16_t>(registry);
  RegisterNth<int8_t>(registry);
  RegisterNth<int64_t>(registry);
  RegisterNth<Eigen::bfloat16>(registry);
  RegisterNth<uint16_t>(registry);
  RegisterNth<Eigen::half>(registry);
  RegisterNth<uint32_t>(registry);
  RegisterNth<uint64_t>(registry);
}

}  // namespace dfx::misc_internal
