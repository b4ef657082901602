// Range and LinSpace: sequences computed as start + i * step (not by
// accumulation), so large outputs are filled in parallel and element i does
// not carry the rounding of the i before it, as in TensorFlow 2.21.
#include <cmath>
#include <cstdint>
#include <limits>
#include <type_traits>

#include "absl/strings/str_cat.h"
#include "kernels/array/array_util.h"
#include "kernels/array/index_util.h"

namespace dfx::array_internal {
namespace {

// A scalar, or (TensorFlow's legacy) a vector of one element.
bool IsScalarLike(const Tensor& t) {
  return t.dims() == 0 || (t.dims() == 1 && t.dim_size(0) == 1);
}

template <typename T>
std::string Str(const T& v) {
  if constexpr (std::is_integral_v<T>) {
    return absl::StrCat(v);
  } else {
    return absl::StrCat(static_cast<double>(v));
  }
}

template <typename T>
class RangeOp : public OpKernel {
 public:
  explicit RangeOp(OpKernelConstruction* ctx) : OpKernel(ctx) {}

  void Compute(OpKernelContext* ctx) override {
    static constexpr const char* kNames[] = {"start", "limit", "delta"};
    for (int i = 0; i < 3; ++i) {
      DFX_OP_REQUIRES(ctx, IsScalarLike(ctx->input(i)),
                      absl::InvalidArgumentError(absl::StrCat(
                          kNames[i], " must be a scalar, not shape ",
                          ctx->input(i).shape().DebugString())));
    }
    const T start = ctx->input(0).data<T>()[0];
    const T limit = ctx->input(1).data<T>()[0];
    const T delta = ctx->input(2).data<T>()[0];
    DFX_OP_REQUIRES(ctx, delta != T(0),
                    absl::InvalidArgumentError(
                        absl::StrCat("Requires delta != 0: ", Str(delta))));
    if (delta > T(0)) {
      DFX_OP_REQUIRES(ctx, start <= limit,
                      absl::InvalidArgumentError(absl::StrCat(
                          "Requires start <= limit when delta > 0: ",
                          Str(start), "/", Str(limit))));
    } else {
      DFX_OP_REQUIRES(ctx, start >= limit,
                      absl::InvalidArgumentError(absl::StrCat(
                          "Requires start >= limit when delta < 0: ",
                          Str(start), "/", Str(limit))));
    }
    int64_t size = 0;
    if constexpr (std::is_integral_v<T>) {
      // Exact in 128 bits: limit - start may not fit in T.
      const __int128 span = static_cast<__int128>(limit) - start;
      const __int128 step = delta;
      const __int128 a = span < 0 ? -span : span;
      const __int128 b = step < 0 ? -step : step;
      const __int128 count = (a + b - 1) / b;
      DFX_OP_REQUIRES(
          ctx, count <= TensorShape::kMaxElements,
          absl::InvalidArgumentError(absl::StrCat(
              "Range from ", Str(start), " to ", Str(limit), " by ", Str(delta),
              " has more than ", TensorShape::kMaxElements, " elements")));
      size = static_cast<int64_t>(count);
    } else {
      const double count = static_cast<double>(
          Eigen::numext::ceil(Eigen::numext::abs((limit - start) / delta)));
      DFX_OP_REQUIRES(
          ctx,
          count <= static_cast<double>(std::numeric_limits<int64_t>::max()),
          absl::InvalidArgumentError(
              absl::StrCat("Requires ((limit - start) / delta) <= ",
                           std::numeric_limits<int64_t>::max())));
      size = static_cast<int64_t>(count);
    }
    absl::StatusOr<TensorShape> shape = TensorShape::Build({size});
    DFX_OP_REQUIRES_OK(ctx, shape.status());
    Tensor* out = nullptr;
    DFX_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, *shape, &out));
    T* o = out->data<T>();
    ParallelFor(
        *ctx->device(), size, Eigen::TensorOpCost(0, sizeof(T), 2),
        [&](int64_t first, int64_t last) {
          for (int64_t i = first; i < last; ++i) {
            if constexpr (std::is_integral_v<T>) {
              // Modulo 2^64, so that i * delta may overflow on the
              // way to a value that fits.
              const uint64_t v =
                  static_cast<uint64_t>(static_cast<int64_t>(start)) +
                  static_cast<uint64_t>(i) *
                      static_cast<uint64_t>(static_cast<int64_t>(delta));
              o[i] = static_cast<T>(static_cast<int64_t>(v));
            } else {
              o[i] = static_cast<T>(start + static_cast<T>(i) * delta);
            }
          }
        });
  }
};

template <typename T, typename Tnum>
class LinSpaceOp : public OpKernel {
 public:
  explicit LinSpaceOp(OpKernelConstruction* ctx) : OpKernel(ctx) {}

  void Compute(OpKernelContext* ctx) override {
    static constexpr const char* kNames[] = {"start", "stop", "num"};
    for (int i = 0; i < 3; ++i) {
      DFX_OP_REQUIRES(ctx, ctx->input(i).dims() == 0,
                      absl::InvalidArgumentError(absl::StrCat(
                          kNames[i], " must be a scalar, not shape ",
                          ctx->input(i).shape().DebugString())));
    }
    const T start = ctx->input(0).scalar<T>();
    const T stop = ctx->input(1).scalar<T>();
    const Tnum num = ctx->input(2).scalar<Tnum>();
    DFX_OP_REQUIRES(
        ctx, num > 0,
        absl::InvalidArgumentError(absl::StrCat("Requires num > 0: ", num)));
    absl::StatusOr<TensorShape> shape =
        TensorShape::Build({static_cast<int64_t>(num)});
    DFX_OP_REQUIRES_OK(ctx, shape.status());
    Tensor* out = nullptr;
    DFX_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, *shape, &out));
    T* o = out->data<T>();
    o[0] = start;
    if (num == 1) return;
    const T step = (stop - start) / static_cast<T>(num - 1);
    ParallelFor(*ctx->device(), static_cast<int64_t>(num) - 2,
                Eigen::TensorOpCost(0, sizeof(T), 2),
                [&](int64_t first, int64_t last) {
                  for (int64_t i = first + 1; i <= last; ++i) {
                    o[i] = start + step * static_cast<T>(i);
                  }
                });
    // The last element is `stop` exactly, whatever the rounding.
    o[num - 1] = stop;
  }
};

}  // namespace

void RegisterRangeKernels(KernelRegistry* registry) {
  auto range = [&]<typename T>() {
    RegisterKernel<RangeOp<T>>(registry,
                               KernelDefBuilder("Range").TypeConstraint(
                                   "Tidx", {DataTypeToEnum<T>::value}));
  };
  range.template operator()<float>();
  range.template operator()<double>();
  range.template operator()<Eigen::half>();
  range.template operator()<Eigen::bfloat16>();
  range.template operator()<int32_t>();
  range.template operator()<int64_t>();
  auto linspace = [&]<typename T>() {
    RegisterKernel<LinSpaceOp<T, int32_t>>(
        registry, KernelDefBuilder("LinSpace")
                      .TypeConstraint("T", {DataTypeToEnum<T>::value})
                      .TypeConstraint("Tidx", {DT_INT32}));
    RegisterKernel<LinSpaceOp<T, int64_t>>(
        registry, KernelDefBuilder("LinSpace")
                      .TypeConstraint("T", {DataTypeToEnum<T>::value})
                      .TypeConstraint("Tidx", {DT_INT64}));
  };
  linspace.template operator()<float>();
  linspace.template operator()<double>();
}

}  // namespace dfx::array_internal
