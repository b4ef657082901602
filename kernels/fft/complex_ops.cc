// CPU kernels for complex numbers: Complex, Real, Imag, ComplexAbs, Angle,
// Conj; the complex64/complex128 kernels of the element-wise arithmetic
// (Add, AddV2, Sub, Mul, Div, RealDiv, Neg, Square, Reciprocal, Exp, Log,
// Sqrt, Rsqrt, DivNoNan, MulNoNan), of Equal, NotEqual, ZerosLike and
// OnesLike, and Cast to and from the complex types.
//
// The arithmetic reuses kernels/math's broadcasting kernel templates with
// Eigen's complex functors, as TensorFlow's CPU kernels do; they live here
// rather than in kernels/math so that the complex types stay one family.
#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdint>
#include <limits>
#include <type_traits>

#include "kernels/fft/fft_kernels.h"
#include "kernels/math/cast_op.h"
#include "kernels/math/cwise_ops.h"

namespace dfx {
namespace {

using math_internal::BinaryOpKernel;
using math_internal::RegisterForTypes;
using math_internal::UnaryOpKernel;
namespace ei = Eigen::internal;

using complex64 = std::complex<float>;
using complex128 = std::complex<double>;

// Complex(real, imag): the pair as one complex value.
template <typename T>
struct MakeComplexOp {
  std::complex<T> operator()(const T& re, const T& im) const {
    return std::complex<T>(re, im);
  }
};
template <typename T>
struct RealOp {
  T operator()(const std::complex<T>& a) const { return a.real(); }
};
template <typename T>
struct ImagOp {
  T operator()(const std::complex<T>& a) const { return a.imag(); }
};
// |a| without overflow or underflow of the squares (std::abs is hypot).
template <typename T>
struct ComplexAbsOp {
  T operator()(const std::complex<T>& a) const { return std::abs(a); }
};
// atan2(imag, real), in (-pi, pi].
template <typename T>
struct AngleOp {
  T operator()(const std::complex<T>& a) const { return std::arg(a); }
};

// Equal and NotEqual: both parts equal (NaN never is).
template <typename C>
struct EqualOp {
  bool operator()(const C& a, const C& b) const { return a == b; }
};
template <typename C>
struct NotEqualOp {
  bool operator()(const C& a, const C& b) const { return a != b; }
};

// DivNoNan and MulNoNan: 0 where b is 0 (both parts), whatever a is
// (TensorFlow's gradient of ComplexAbs divides by the input this way).
template <typename C>
struct DivNoNanOp {
  C operator()(const C& a, const C& b) const {
    return b == C(0) ? C(0) : a / b;
  }
};
template <typename C>
struct MulNoNanOp {
  C operator()(const C& a, const C& b) const {
    return b == C(0) ? C(0) : a * b;
  }
};

// ZerosLike (kOne false) and OnesLike (kOne true) of a complex tensor.
template <typename C, bool kOne>
class ConstantLikeOp : public OpKernel {
 public:
  using OpKernel::OpKernel;

  void Compute(OpKernelContext* ctx) override {
    const Tensor& x = ctx->input(0);
    Tensor* out = nullptr;
    DFX_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, x.shape(), &out));
    std::fill_n(out->data<C>(), out->NumElements(), C(kOne ? 1 : 0, 0));
  }
};

// Eigen's complex functors, named with one parameter for math_internal's
// templates.
template <typename T>
using SumOp = ei::scalar_sum_op<T, T>;
template <typename T>
using DifferenceOp = ei::scalar_difference_op<T, T>;
template <typename T>
using ProductOp = ei::scalar_product_op<T, T>;
template <typename T>
using QuotientOp = ei::scalar_quotient_op<T, T>;

template <template <typename> class F>
struct ComplexBinary {
  template <typename C>
  using Kernel = BinaryOpKernel<F<C>, C>;
};
template <template <typename> class F>
struct ComplexUnary {
  template <typename C>
  using Kernel = UnaryOpKernel<F<C>, C>;
};

template <template <typename> class F>
struct ComplexBinaryToBool {
  template <typename C>
  using Kernel = BinaryOpKernel<F<C>, C, bool>;
};
template <typename C>
using ZerosLike = ConstantLikeOp<C, false>;
template <typename C>
using OnesLike = ConstantLikeOp<C, true>;

// Registers UnaryOpKernel<F<T>, complex<T>, T> for op `name` (T of the
// input complex<T>; Tout = T).
template <template <typename> class F, typename T>
void RegisterComplexToReal(KernelRegistry* registry, const char* name) {
  RegisterKernel<UnaryOpKernel<F<T>, std::complex<T>, T>>(
      registry, KernelDefBuilder(name)
                    .template TypeConstraint<std::complex<T>>("T")
                    .template TypeConstraint<T>("Tout"));
}

// ---------------------------------------------------------------------------
// Cast to and from complex, as TensorFlow's CPU Cast (Eigen's casts):
// a real number x becomes (x, 0), bool becomes (0 or 1, 0); a complex value
// becomes its real part cast to the destination type (so to bool it is
// `real != 0`); to integers as x86 truncates (see FromComplex), which is
// what TensorFlow's kernels give there.

// The complex value of a non-complex x.
template <typename C, typename Src>
C ToComplex(const Src& x) {
  using R = typename C::value_type;
  if constexpr (std::is_same_v<Src, Eigen::half> ||
                std::is_same_v<Src, Eigen::bfloat16>) {
    return C(static_cast<R>(static_cast<float>(x)), R(0));
  } else {
    return C(static_cast<R>(x), R(0));
  }
}

// x's real part as Dst (non-complex).
template <typename Dst, typename C>
Dst FromComplex(const C& x) {
  using R = typename C::value_type;
  const R re = x.real();
  if constexpr (std::is_same_v<Dst, bool>) {
    return re != R(0);
  } else if constexpr (std::is_integral_v<Dst> && sizeof(Dst) <= 2) {
    // Through int32, then wrapped: complex64(-3.6) is 253 as uint8, and
    // out of int32's range (NaN too) x86 gives INT32_MIN, so 0 here.
    return static_cast<Dst>(FromComplex<int32_t>(x));
  } else if constexpr (std::is_same_v<Dst, int32_t>) {
    constexpr R k2p31 = R(2147483648.0);
    return re >= -k2p31 && re < k2p31 ? static_cast<int32_t>(re)
                                      : std::numeric_limits<int32_t>::min();
  } else if constexpr (std::is_same_v<Dst, uint64_t>) {
    constexpr R k2p64 = R(18446744073709551616.0);
    if (re >= R(0) && re < k2p64) return static_cast<uint64_t>(re);
    return static_cast<uint64_t>(FromComplex<int64_t>(x));
  } else if constexpr (std::is_integral_v<Dst>) {
    // int64, and uint32 through it: out of int64's range (and NaN) x86
    // gives INT64_MIN.
    constexpr R k2p63 = R(9223372036854775808.0);
    const int64_t i = re >= -k2p63 && re < k2p63
                          ? static_cast<int64_t>(re)
                          : std::numeric_limits<int64_t>::min();
    return static_cast<Dst>(i);
  } else if constexpr (std::is_same_v<Dst, Eigen::half> ||
                       std::is_same_v<Dst, Eigen::bfloat16>) {
    return static_cast<Dst>(static_cast<float>(re));
  } else {
    return static_cast<Dst>(re);
  }
}

template <typename T>
inline constexpr bool kIsComplex =
    std::is_same_v<T, complex64> || std::is_same_v<T, complex128>;

template <typename Src, typename Dst>
void CastComplexRange(const void* in, void* out, int64_t first, int64_t last) {
  const Src* src = static_cast<const Src*>(in);
  Dst* dst = static_cast<Dst*>(out);
  for (int64_t i = first; i < last; ++i) {
    if constexpr (kIsComplex<Src>) {
      if constexpr (kIsComplex<Dst>) {
        dst[i] = Dst(static_cast<typename Dst::value_type>(src[i].real()),
                     static_cast<typename Dst::value_type>(src[i].imag()));
      } else {
        dst[i] = FromComplex<Dst>(src[i]);
      }
    } else {
      dst[i] = ToComplex<Dst>(src[i]);
    }
  }
}

template <typename... Ts>
struct TypeList {};
using RealTypes =
    TypeList<float, double, Eigen::half, Eigen::bfloat16, int8_t, uint8_t,
             int16_t, uint16_t, int32_t, uint32_t, int64_t, uint64_t, bool>;
using ComplexTypes = TypeList<complex64, complex128>;
using AllTypes =
    TypeList<float, double, Eigen::half, Eigen::bfloat16, int8_t, uint8_t,
             int16_t, uint16_t, int32_t, uint32_t, int64_t, uint64_t, bool,
             complex64, complex128>;

template <typename... Ts>
DataTypeVector Enums(TypeList<Ts...>) {
  return {DataTypeToEnum<Ts>::value...};
}

// The cast from Src to Dst, or null where neither is complex (those are
// cast_op.cc's).
template <typename Src, typename Dst>
CastFn CastFor() {
  if constexpr (kIsComplex<Src> || kIsComplex<Dst>) {
    return &CastComplexRange<Src, Dst>;
  } else {
    return nullptr;
  }
}

template <typename Src, typename... Ts>
CastFn FindCastTo(DataType dst, TypeList<Ts...>) {
  CastFn fn = nullptr;
  ((DataTypeToEnum<Ts>::value == dst ? (fn = CastFor<Src, Ts>(), true)
                                     : false) ||
   ...);
  return fn;
}

template <typename... Ts>
CastFn FindCast(DataType src, DataType dst, TypeList<Ts...>) {
  CastFn fn = nullptr;
  ((DataTypeToEnum<Ts>::value == src
        ? (fn = FindCastTo<Ts>(dst, AllTypes()), true)
        : false) ||
   ...);
  return fn;
}

bool IsComplex(DataType t) { return t == DT_COMPLEX64 || t == DT_COMPLEX128; }

// The casts where the source or the destination (or both) is complex; the
// other pairs are kernels/math/cast_op.cc's. Truncate changes nothing here:
// TensorFlow truncates only between real floating-point types.
CastFn FindComplexCast(DataType src, DataType dst, bool /*truncate*/) {
  if (!IsComplex(src) && !IsComplex(dst)) return nullptr;
  return FindCast(src, dst, AllTypes());
}

}  // namespace

void RegisterComplexKernels(KernelRegistry* registry) {
  RegisterKernel<BinaryOpKernel<MakeComplexOp<float>, float, complex64>>(
      registry, KernelDefBuilder("Complex")
                    .TypeConstraint<float>("T")
                    .TypeConstraint<complex64>("Tout"));
  RegisterKernel<BinaryOpKernel<MakeComplexOp<double>, double, complex128>>(
      registry, KernelDefBuilder("Complex")
                    .TypeConstraint<double>("T")
                    .TypeConstraint<complex128>("Tout"));
  RegisterComplexToReal<RealOp, float>(registry, "Real");
  RegisterComplexToReal<RealOp, double>(registry, "Real");
  RegisterComplexToReal<ImagOp, float>(registry, "Imag");
  RegisterComplexToReal<ImagOp, double>(registry, "Imag");
  RegisterComplexToReal<ComplexAbsOp, float>(registry, "ComplexAbs");
  RegisterComplexToReal<ComplexAbsOp, double>(registry, "ComplexAbs");
  RegisterComplexToReal<AngleOp, float>(registry, "Angle");
  RegisterComplexToReal<AngleOp, double>(registry, "Angle");
  RegisterForTypes<ComplexUnary<ei::scalar_conjugate_op>::Kernel, complex64,
                   complex128>(registry, "Conj");

  for (const char* name : {"Add", "AddV2"}) {
    RegisterForTypes<ComplexBinary<SumOp>::Kernel, complex64, complex128>(
        registry, name);
  }
  RegisterForTypes<ComplexBinary<DifferenceOp>::Kernel, complex64,
                   complex128>(registry, "Sub");
  RegisterForTypes<ComplexBinary<ProductOp>::Kernel, complex64, complex128>(
      registry, "Mul");
  for (const char* name : {"Div", "RealDiv"}) {
    RegisterForTypes<ComplexBinary<QuotientOp>::Kernel, complex64,
                     complex128>(registry, name);
  }
  RegisterForTypes<ComplexBinary<DivNoNanOp>::Kernel, complex64, complex128>(
      registry, "DivNoNan");
  RegisterForTypes<ComplexBinary<MulNoNanOp>::Kernel, complex64, complex128>(
      registry, "MulNoNan");
  RegisterForTypes<ComplexUnary<ei::scalar_opposite_op>::Kernel, complex64,
                   complex128>(registry, "Neg");
  RegisterForTypes<ComplexUnary<ei::scalar_square_op>::Kernel, complex64,
                   complex128>(registry, "Square");
  for (const char* name : {"Reciprocal", "Inv"}) {
    RegisterForTypes<ComplexUnary<ei::scalar_inverse_op>::Kernel, complex64,
                     complex128>(registry, name);
  }
  RegisterForTypes<ComplexUnary<ei::scalar_exp_op>::Kernel, complex64,
                   complex128>(registry, "Exp");
  RegisterForTypes<ComplexUnary<ei::scalar_log_op>::Kernel, complex64,
                   complex128>(registry, "Log");
  RegisterForTypes<ComplexUnary<ei::scalar_sqrt_op>::Kernel, complex64,
                   complex128>(registry, "Sqrt");
  RegisterForTypes<ComplexUnary<ei::scalar_rsqrt_op>::Kernel, complex64,
                   complex128>(registry, "Rsqrt");

  RegisterForTypes<ComplexBinaryToBool<EqualOp>::Kernel, complex64,
                   complex128>(registry, "Equal");
  RegisterForTypes<ComplexBinaryToBool<NotEqualOp>::Kernel, complex64,
                   complex128>(registry, "NotEqual");
  RegisterForTypes<ZerosLike, complex64, complex128>(registry, "ZerosLike");
  RegisterForTypes<OnesLike, complex64, complex128>(registry, "OnesLike");

  const DataTypeVector complex_types = Enums(ComplexTypes());
  RegisterCastKernel(registry, FindComplexCast, complex_types,
                     Enums(AllTypes()));
  RegisterCastKernel(registry, FindComplexCast, Enums(RealTypes()),
                     complex_types);
}

}  // namespace dfx
