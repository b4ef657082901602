// ClipByValue (bounds that are scalars or of the input's shape; complex
// values clipped part by part) and ApproximateEqual (inputs of one shape).
#include "kernels/math/cwise_ops.h"

#include <algorithm>
#include <complex>

namespace dfx {
namespace {

using math_internal::BinaryRun;
using math_internal::ComputeType;

// Complex values clip their real and imaginary parts separately, as
// TensorFlow's vectorised complex min and max do (its kernel's result).
template <typename C>
struct PartwiseMinOp {
  C operator()(const C& a, const C& b) const {
    using R = typename C::value_type;
    return C(std::min<R>(a.real(), b.real()), std::min<R>(a.imag(), b.imag()));
  }
};
template <typename C>
struct PartwiseMaxOp {
  C operator()(const C& a, const C& b) const {
    using R = typename C::value_type;
    return C(std::max<R>(a.real(), b.real()), std::max<R>(a.imag(), b.imag()));
  }
};

template <typename T>
struct ClipFunctors {
  using Min = Eigen::internal::scalar_min_op<ComputeType<T>>;
  using Max = Eigen::internal::scalar_max_op<ComputeType<T>>;
};
template <typename R>
struct ClipFunctors<std::complex<R>> {
  using Min = PartwiseMinOp<std::complex<R>>;
  using Max = PartwiseMaxOp<std::complex<R>>;
};

// out = min(max(t, lo), hi) as TensorFlow computes it: max(min(t, hi), lo)
// with std::min/std::max semantics, so a NaN in t stays NaN, a NaN bound is
// ignored, and lo > hi gives lo.
template <typename T>
class ClipByValueOp : public OpKernel {
 public:
  using OpKernel::OpKernel;

  void Compute(OpKernelContext* ctx) override {
    const Tensor& t = ctx->input(0);
    const Tensor& lo = ctx->input(1);
    const Tensor& hi = ctx->input(2);
    DFX_OP_REQUIRES(
        ctx,
        (lo.shape() == t.shape() || lo.dims() == 0) &&
            (hi.shape() == t.shape() || hi.dims() == 0),
        absl::InvalidArgumentError(absl::StrCat(
            "clip_value_min and clip_value_max must be either of the same "
            "shape as input, or a scalar. input shape: ",
            t.shape().DebugString(), "clip_value_min shape: ",
            lo.shape().DebugString(), "clip_value_max shape: ",
            hi.shape().DebugString())));
    Tensor* out = nullptr;
    DFX_OP_REQUIRES_OK(
        ctx, ctx->forward_input_or_allocate_output({0}, 0, t.shape(), &out));
    const int64_t lo_step = lo.dims() == 0 && t.dims() != 0 ? 0 : 1;
    const int64_t hi_step = hi.dims() == 0 && t.dims() != 0 ? 0 : 1;
    const T* in = t.data<T>();
    const T* lo_data = lo.data<T>();
    const T* hi_data = hi.data<T>();
    T* o = out->data<T>();
    using MinOp = typename ClipFunctors<T>::Min;
    using MaxOp = typename ClipFunctors<T>::Max;
    ParallelFor(*ctx->device(), t.NumElements(),
                Eigen::TensorOpCost(3 * sizeof(T), sizeof(T), 2),
                [&](int64_t first, int64_t last) {
                  // Blocks small enough that the second pass reads the
                  // first one's output from cache.
                  constexpr int64_t kBlock = 4096;
                  for (int64_t b = first; b < last; b += kBlock) {
                    const int64_t len = std::min(kBlock, last - b);
                    BinaryRun(MinOp(), in + b, 1, hi_data + b * hi_step,
                              hi_step, o + b, len);
                    BinaryRun(MaxOp(), o + b, 1, lo_data + b * lo_step,
                              lo_step, o + b, len);
                  }
                });
  }
};

// z = |x - y| <= tolerance (TensorFlow's kernel compares with <=, though
// its documentation says <).
template <typename T>
class ApproximateEqualOp : public OpKernel {
 public:
  explicit ApproximateEqualOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    float tolerance = 0;
    ctx->SetStatus(ctx->GetAttr("tolerance", &tolerance));
    tolerance_ = static_cast<T>(tolerance);
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& x = ctx->input(0);
    const Tensor& y = ctx->input(1);
    DFX_OP_REQUIRES(ctx, x.shape() == y.shape(),
                    absl::InvalidArgumentError(absl::StrCat(
                        "x and y must be of the same shape. x shape: ",
                        x.shape().DebugString(),
                        ". y shape: ", y.shape().DebugString())));
    Tensor* out = nullptr;
    DFX_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, x.shape(), &out));
    const T* a = x.data<T>();
    const T* b = y.data<T>();
    bool* o = out->data<bool>();
    const T tolerance = tolerance_;
    ParallelFor(*ctx->device(), x.NumElements(),
                Eigen::TensorOpCost(2 * sizeof(T), 1, 3),
                [&](int64_t first, int64_t last) {
                  for (int64_t i = first; i < last; ++i) {
                    const T d = a[i] - b[i];
                    o[i] = (d < T(0) ? -d : d) <= tolerance;
                  }
                });
  }

 private:
  T tolerance_ = 0;
};

}  // namespace

void RegisterClipKernels(KernelRegistry* registry) {
  using Eigen::bfloat16;
  using Eigen::half;
  math_internal::RegisterForTypes<ClipByValueOp, float, double, half,
                                  bfloat16, int8_t, int16_t, int32_t, int64_t,
                                  uint8_t, uint16_t, std::complex<float>,
                                  std::complex<double>>(registry,
                                                        "ClipByValue");
  math_internal::RegisterForTypes<ApproximateEqualOp, float, double>(
      registry, "ApproximateEqual");
}

}  // namespace dfx
