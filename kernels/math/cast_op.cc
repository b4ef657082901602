// Cast between float, double, half, bfloat16, int8, uint8, int16, uint16,
// int32, uint32, int64, uint64 and bool, as TensorFlow casts on CPU:
// - integers to narrower integers wrap; anything to bool is `!= 0` (NaN is
//   true); bool to a number is 0 or 1;
// - floating point to integer truncates toward zero. Out of range (and NaN)
//   is undefined in C++; dfx gives what TensorFlow's x86 kernels give for
//   it: int32/int64 become their minimum (NaN too), int8/int16/uint8/uint16
//   go through int32 and saturate, uint32 and uint64 go through int64 and
//   wrap, with 2^31 and 2^63 where int64 is out of range. (TensorFlow
//   itself is not consistent there: its scalar tail wraps where its vector
//   body saturates; dfx follows the vector body.)
// - Truncate=true drops the low mantissa bits instead of rounding to
//   nearest even for float->half, double->half, float->bfloat16 and
//   double->float, the pairs TensorFlow truncates (NaN stays NaN).
#include "kernels/math/cast_op.h"

#include <cstring>
#include <limits>

#include "kernels/math/cwise_ops.h"

namespace dfx {
namespace {

using math_internal::ConstFlatMap;
using math_internal::FlatMap;

template <typename T>
inline constexpr bool kIsFloat =
    std::is_floating_point_v<T> || std::is_same_v<T, Eigen::half> ||
    std::is_same_v<T, Eigen::bfloat16>;

// f truncated to an integer of type Dst, with x86's answers where C++ has
// none (see the top of the file). F is float or double.
template <typename Dst, typename F>
Dst FloatToInt(F f) {
  constexpr F k2p31 = F(2147483648.0);
  constexpr F k2p63 = F(9223372036854775808.0);
  if constexpr (std::is_same_v<Dst, int64_t> || std::is_same_v<Dst, uint64_t>) {
    // NaN fails both comparisons.
    return f >= -k2p63 && f < k2p63
               ? static_cast<Dst>(static_cast<int64_t>(f))
               : static_cast<Dst>(uint64_t{1} << 63);
  } else if constexpr (std::is_same_v<Dst, uint32_t>) {
    return f > -k2p31 - F(1) && f < F(4294967296.0)
               ? static_cast<uint32_t>(static_cast<int64_t>(f))
               : uint32_t{1} << 31;
  } else {
    const int32_t i = f >= -k2p31 && f < k2p31
                          ? static_cast<int32_t>(f)
                          : std::numeric_limits<int32_t>::min();
    if constexpr (std::is_same_v<Dst, int32_t>) {
      return i;
    } else {
      return static_cast<Dst>(
          std::clamp<int32_t>(i, std::numeric_limits<Dst>::min(),
                              std::numeric_limits<Dst>::max()));
    }
  }
}

template <typename Src, typename Dst>
void CastRange(const void* in, void* out, int64_t first, int64_t last) {
  const Src* src = static_cast<const Src*>(in) + first;
  Dst* dst = static_cast<Dst*>(out) + first;
  const int64_t n = last - first;
  if constexpr (kIsFloat<Src> && std::is_integral_v<Dst> &&
                !std::is_same_v<Dst, bool>) {
    using F = std::conditional_t<std::is_same_v<Src, double>, double, float>;
    for (int64_t i = 0; i < n; ++i) {
      dst[i] = FloatToInt<Dst>(static_cast<F>(src[i]));
    }
  } else {
    FlatMap<Dst>(dst, n) = ConstFlatMap<Src>(src, n).template cast<Dst>();
  }
}

// Truncate=true: the low mantissa bits that Dst lacks are cleared before
// the (then exact) conversion.
template <typename Src, typename Dst, int kDroppedBits>
void CastRangeTruncated(const void* in, void* out, int64_t first,
                        int64_t last) {
  using Bits = std::conditional_t<sizeof(Src) == 8, uint64_t, uint32_t>;
  constexpr Bits kMask = ~((Bits{1} << kDroppedBits) - 1);
  const Src* src = static_cast<const Src*>(in);
  Dst* dst = static_cast<Dst*>(out);
  for (int64_t i = first; i < last; ++i) {
    Src v = src[i];
    if (!std::isnan(v)) {
      Bits bits;
      std::memcpy(&bits, &v, sizeof(bits));
      bits &= kMask;
      std::memcpy(&v, &bits, sizeof(bits));
    }
    dst[i] = static_cast<Dst>(v);
  }
}

template <typename... Ts>
struct TypeList {};
using CastTypes =
    TypeList<float, double, Eigen::half, Eigen::bfloat16, int8_t, uint8_t,
             int16_t, uint16_t, int32_t, uint32_t, int64_t, uint64_t, bool>;

template <typename Src, typename... Ts>
CastFn FindCastTo(DataType dst, TypeList<Ts...>) {
  CastFn fn = nullptr;
  ((DataTypeToEnum<Ts>::value == dst ? (fn = &CastRange<Src, Ts>, true)
                                     : false) ||
   ...);
  return fn;
}

template <typename... Ts>
CastFn FindCast(DataType src, DataType dst, TypeList<Ts...> list) {
  CastFn fn = nullptr;
  ((DataTypeToEnum<Ts>::value == src ? (fn = FindCastTo<Ts>(dst, list), true)
                                     : false) ||
   ...);
  return fn;
}

// The truncating cast from src to dst, or null where TensorFlow rounds
// even with Truncate=true.
CastFn FindTruncatedCast(DataType src, DataType dst) {
  if (src == DT_FLOAT && dst == DT_HALF) {
    return &CastRangeTruncated<float, Eigen::half, 13>;
  }
  if (src == DT_DOUBLE && dst == DT_HALF) {
    return &CastRangeTruncated<double, Eigen::half, 42>;
  }
  if (src == DT_FLOAT && dst == DT_BFLOAT16) {
    return &CastRangeTruncated<float, Eigen::bfloat16, 16>;
  }
  if (src == DT_DOUBLE && dst == DT_FLOAT) {
    return &CastRangeTruncated<double, float, 29>;
  }
  return nullptr;
}

DataTypeVector CastTypeEnums() {
  return {DT_FLOAT, DT_DOUBLE, DT_HALF,   DT_BFLOAT16, DT_INT8,
          DT_UINT8, DT_INT16,  DT_UINT16, DT_INT32,    DT_UINT32,
          DT_INT64, DT_UINT64, DT_BOOL};
}

// The real-to-real casts: truncated where asked and TensorFlow truncates,
// else rounded (or converted) as the top of the file says.
CastFn FindRealCast(DataType src, DataType dst, bool truncate) {
  CastFn cast = truncate ? FindTruncatedCast(src, dst) : nullptr;
  return cast != nullptr ? cast : FindCast(src, dst, CastTypes());
}

class CastOp : public OpKernel {
 public:
  CastOp(OpKernelConstruction* ctx, CastFinder find) : OpKernel(ctx) {
    DataType src, dst;
    bool truncate = false;
    ctx->SetStatus(ctx->GetAttr("SrcT", &src));
    ctx->SetStatus(ctx->GetAttr("DstT", &dst));
    ctx->SetStatus(ctx->GetAttr("Truncate", &truncate));
    if (!ctx->status().ok()) return;
    identity_ = src == dst;
    if (identity_) return;
    cast_ = find(src, dst, truncate);
    if (cast_ == nullptr) {
      ctx->SetStatus(absl::UnimplementedError(
          absl::StrCat("Cast ", DataTypeString(src), " to ",
                       DataTypeString(dst), " is not supported")));
    }
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& x = ctx->input(0);
    if (identity_) {
      ctx->set_output(0, x);
      return;
    }
    Tensor* out = nullptr;
    DFX_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, x.shape(), &out));
    const void* in = x.raw_data();
    void* o = out->raw_data();
    const Eigen::TensorOpCost cost(DataTypeSize(x.dtype()),
                                   DataTypeSize(out->dtype()), 1);
    ParallelFor(*ctx->device(), x.NumElements(), cost,
                [&](int64_t first, int64_t last) {
                  cast_(in, o, first, last);
                });
  }

 private:
  bool identity_ = false;
  CastFn cast_ = nullptr;
};

}  // namespace

void RegisterCastKernel(KernelRegistry* registry, CastFinder find,
                        const DataTypeVector& src, const DataTypeVector& dst) {
  registry->Register(KernelDefBuilder("Cast")
                         .TypeConstraint("SrcT", src)
                         .TypeConstraint("DstT", dst),
                     [find](OpKernelConstruction* ctx) {
                       return std::unique_ptr<OpKernel>(new CastOp(ctx, find));
                     });
}

void RegisterCastKernels(KernelRegistry* registry) {
  RegisterCastKernel(registry, FindRealCast, CastTypeEnums(), CastTypeEnums());
}

}  // namespace dfx
