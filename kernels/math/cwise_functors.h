// Scalar functors of the element-wise math kernels that Eigen does not
// provide with TensorFlow's semantics: integer division and modulo, power,
// the "no NaN" products and quotients, sign, rounding, classification,
// logical ops and the gradients of unary functions. Each follows Eigen's
// protocol (operator() on scalars, packetOp where it vectorises, a
// functor_traits specialisation below). Private to kernels/math/.
#ifndef DFX_KERNELS_MATH_CWISE_FUNCTORS_H_
#define DFX_KERNELS_MATH_CWISE_FUNCTORS_H_

#include "kernels/eigen_util.h"  // first: defines EIGEN_USE_THREADS

#include "kernels/exact_sqrt.h"

#include <cmath>
#include <cstdint>
#include <limits>
#include <type_traits>

namespace dfx::math_internal {

namespace ei = Eigen::internal;

// ---------------------------------------------------------------------------
// Add, Sub and Mul. Integers wrap on overflow, as TensorFlow's do on every
// machine it runs on (INT64_MAX + 1 is INT64_MIN). In C++ a signed
// overflow is undefined, and so is uint16 * uint16 (promoted to int), so
// the scalar path computes in the unsigned form of the promoted type. The
// packet path is Eigen's (vector integer instructions wrap).

template <typename T, typename Base>
struct WrappingOp : Base {
  template <typename Fn>
  static T Wrap(const T& a, const T& b, Fn fn) {
    if constexpr (std::is_integral_v<T>) {
      using U = std::make_unsigned_t<decltype(a + b)>;
      return static_cast<T>(fn(static_cast<U>(a), static_cast<U>(b)));
    } else {
      return static_cast<T>(fn(a, b));
    }
  }
};

template <typename T>
struct AddOp : WrappingOp<T, ei::scalar_sum_op<T, T>> {
  T operator()(const T& a, const T& b) const {
    return this->Wrap(a, b, [](auto x, auto y) { return x + y; });
  }
};
template <typename T>
struct SubOp : WrappingOp<T, ei::scalar_difference_op<T, T>> {
  T operator()(const T& a, const T& b) const {
    return this->Wrap(a, b, [](auto x, auto y) { return x - y; });
  }
};
template <typename T>
struct MulOp : WrappingOp<T, ei::scalar_product_op<T, T>> {
  T operator()(const T& a, const T& b) const {
    return this->Wrap(a, b, [](auto x, auto y) { return x * y; });
  }
};

// Neg, Abs and Square, wrapping the same way: -INT_MIN and |INT_MIN| are
// INT_MIN, as in TensorFlow.
template <typename T>
struct NegOp : ei::scalar_opposite_op<T> {
  T operator()(const T& a) const {
    if constexpr (std::is_integral_v<T>) {
      using U = std::make_unsigned_t<decltype(+a)>;
      return static_cast<T>(U{0} - static_cast<U>(a));
    } else {
      return -a;
    }
  }
};
template <typename T>
struct AbsOp : ei::scalar_abs_op<T> {
  T operator()(const T& a) const {
    if constexpr (std::is_integral_v<T> && std::is_signed_v<T>) {
      return a < 0 ? NegOp<T>()(a) : a;
    } else {
      return ei::scalar_abs_op<T>::operator()(a);
    }
  }
};
template <typename T>
struct SquareOp : ei::scalar_square_op<T> {
  T operator()(const T& a) const {
    return WrappingOp<T, ei::scalar_square_op<T>>::Wrap(
        a, a, [](auto x, auto y) { return x * y; });
  }
};

// ---------------------------------------------------------------------------
// Integer division and modulo. The kernels reject a zero divisor before
// calling; MIN / -1 and MIN % -1 wrap (to MIN and 0) instead of trapping.

// a / b truncated toward zero: C++ and TensorFlow's Div and TruncateDiv on
// integers; trunc(a / b) on floating point (TruncateDiv).
template <typename T>
struct TruncDivOp {
  T operator()(const T& a, const T& b) const {
    if constexpr (std::is_integral_v<T>) {
      if constexpr (std::is_signed_v<T>) {
        if (b == -1) {
          return static_cast<T>(std::make_unsigned_t<T>(0) -
                                static_cast<std::make_unsigned_t<T>>(a));
        }
      }
      return static_cast<T>(a / b);
    } else {
      using std::trunc;
      return trunc(a / b);
    }
  }
};

// a / b rounded toward negative infinity (TensorFlow's FloorDiv): integers
// as Python's //, floating point as floor(a / b).
template <typename T>
struct FloorDivOp {
  T operator()(const T& a, const T& b) const {
    if constexpr (std::is_integral_v<T>) {
      const T q = TruncDivOp<T>()(a, b);
      if constexpr (std::is_signed_v<T>) {
        if (b != -1 && static_cast<T>(q * b) != a && ((a < 0) != (b < 0))) {
          return static_cast<T>(q - 1);
        }
      }
      return q;
    } else {
      using std::floor;
      return floor(a / b);
    }
  }
};

// The remainder of TruncDivOp: the sign of a (C++'s %, std::fmod).
// TensorFlow's Mod and TruncateMod.
template <typename T>
struct TruncModOp {
  T operator()(const T& a, const T& b) const {
    if constexpr (std::is_integral_v<T>) {
      if constexpr (std::is_signed_v<T>) {
        if (b == -1) return T(0);
      }
      return static_cast<T>(a % b);
    } else {
      using std::fmod;
      return fmod(a, b);
    }
  }
};

// The remainder of FloorDivOp: the sign of b (Python's %). TensorFlow's
// FloorMod.
template <typename T>
struct FloorModOp {
  T operator()(const T& a, const T& b) const {
    const T r = TruncModOp<T>()(a, b);
    if constexpr (std::is_unsigned_v<T>) {
      return r;
    } else {
      if (r != T(0) && ((r < T(0)) != (b < T(0)))) return static_cast<T>(r + b);
      return r;
    }
  }
};

// a ** b for integers by repeated squaring, wrapping on overflow as
// TensorFlow does. The kernel rejects b < 0 before calling.
template <typename T>
struct IntPowOp {
  T operator()(const T& a, const T& b) const {
    using U = std::make_unsigned_t<T>;
    U base = static_cast<U>(a);
    U result = 1;
    for (U e = static_cast<U>(b); e != 0; e >>= 1) {
      if (e & 1) result = static_cast<U>(result * base);
      base = static_cast<U>(base * base);
    }
    return static_cast<T>(result);
  }
};

// atan2(a, b), TensorFlow's Atan2(y, x).
template <typename T>
struct Atan2Op {
  T operator()(const T& y, const T& x) const {
    using std::atan2;
    return atan2(y, x);
  }
};

// ---------------------------------------------------------------------------
// Quotients and products that are 0 where TensorFlow says so, whatever the
// other operand (NaN and infinity included).

// b == 0 ? 0 : a / b.
template <typename T>
struct DivNoNanOp {
  T operator()(const T& a, const T& b) const {
    return b == T(0) ? T(0) : a / b;
  }
  template <typename Packet>
  Packet packetOp(const Packet& a, const Packet& b) const {
    return ei::pandnot(ei::pdiv(a, b), ei::pcmp_eq(b, ei::pzero(b)));
  }
};

// b == 0 ? 0 : a * b.
template <typename T>
struct MulNoNanOp {
  T operator()(const T& a, const T& b) const {
    return b == T(0) ? T(0) : a * b;
  }
  template <typename Packet>
  Packet packetOp(const Packet& a, const Packet& b) const {
    return ei::pandnot(ei::pmul(a, b), ei::pcmp_eq(b, ei::pzero(b)));
  }
};

// a == 0 ? 0 : a / b.
template <typename T>
struct XdivyOp {
  T operator()(const T& a, const T& b) const {
    return a == T(0) ? T(0) : a / b;
  }
  template <typename Packet>
  Packet packetOp(const Packet& a, const Packet& b) const {
    return ei::pandnot(ei::pdiv(a, b), ei::pcmp_eq(a, ei::pzero(a)));
  }
};

// a == 0 ? 0 : a * log(b).
template <typename T>
struct XlogyOp {
  T operator()(const T& a, const T& b) const {
    using std::log;
    return a == T(0) ? T(0) : a * log(b);
  }
  template <typename Packet>
  Packet packetOp(const Packet& a, const Packet& b) const {
    return ei::pandnot(ei::pmul(a, ei::plog(b)), ei::pcmp_eq(a, ei::pzero(a)));
  }
};

// a == 0 ? 0 : a * log1p(b).
template <typename T>
struct Xlog1pyOp {
  T operator()(const T& a, const T& b) const {
    using std::log1p;
    return a == T(0) ? T(0) : a * log1p(b);
  }
  template <typename Packet>
  Packet packetOp(const Packet& a, const Packet& b) const {
    return ei::pandnot(ei::pmul(a, ei::plog1p(b)),
                       ei::pcmp_eq(a, ei::pzero(a)));
  }
};

// ---------------------------------------------------------------------------
// Gradients of unary functions from their output y and its gradient dy, in
// TensorFlow's order of operations.

// dy * (1 - y * y).
template <typename T>
struct TanhGradOp {
  T operator()(const T& y, const T& dy) const { return dy * (T(1) - y * y); }
  template <typename Packet>
  Packet packetOp(const Packet& y, const Packet& dy) const {
    return ei::pmul(dy, ei::psub(ei::pset1<Packet>(T(1)), ei::pmul(y, y)));
  }
};

// dy * y * (1 - y).
template <typename T>
struct SigmoidGradOp {
  T operator()(const T& y, const T& dy) const { return dy * y * (T(1) - y); }
  template <typename Packet>
  Packet packetOp(const Packet& y, const Packet& dy) const {
    return ei::pmul(ei::pmul(dy, y), ei::psub(ei::pset1<Packet>(T(1)), y));
  }
};

// -0.5 * (dy * y) * (y * y).
template <typename T>
struct RsqrtGradOp {
  T operator()(const T& y, const T& dy) const {
    return T(-0.5) * (dy * y) * (y * y);
  }
  template <typename Packet>
  Packet packetOp(const Packet& y, const Packet& dy) const {
    return ei::pmul(ei::pmul(ei::pset1<Packet>(T(-0.5)), ei::pmul(dy, y)),
                    ei::pmul(y, y));
  }
};

// (0.5 * dy) / y.
template <typename T>
struct SqrtGradOp {
  T operator()(const T& y, const T& dy) const { return (T(0.5) * dy) / y; }
  template <typename Packet>
  Packet packetOp(const Packet& y, const Packet& dy) const {
    return ei::pdiv(ei::pmul(ei::pset1<Packet>(T(0.5)), dy), y);
  }
};

// -dy * y * y (ReciprocalGrad and InvGrad).
template <typename T>
struct ReciprocalGradOp {
  T operator()(const T& y, const T& dy) const { return -dy * y * y; }
  template <typename Packet>
  Packet packetOp(const Packet& y, const Packet& dy) const {
    return ei::pmul(ei::pmul(ei::pnegate(dy), y), y);
  }
};

// ---------------------------------------------------------------------------
// Unary.

// -1, 0 or 1 by the sign of a; NaN stays NaN and -0 gives +0, as
// TensorFlow's Sign.
template <typename T>
struct SignOp {
  T operator()(const T& a) const {
    if constexpr (!std::is_integral_v<T>) {
      if (a != a) return a;
    }
    return static_cast<T>((T(0) < a) - (a < T(0)));
  }
};

// Eigen's rounding functor Op with the input's sign kept on a zero result,
// as TensorFlow gives: floor(-0.0), ceil(-0.5) and rint(-0.5) are -0.0
// (Eigen's SSE2 packets give +0.0). Every other result already has the
// input's sign, so setting the sign bit where the input has it changes
// nothing else.
template <template <typename> class Op, typename T>
struct KeepSign {
  T operator()(const T& a) const {
    using std::copysign;
    return copysign(Op<T>()(a), a);
  }
  template <typename Packet>
  Packet packetOp(const Packet& a) const {
    return ei::por(Op<T>().packetOp(a),
                   ei::pand(a, ei::pset1<Packet>(T(-0.0))));
  }
};
template <typename T>
using FloorOp = KeepSign<ei::scalar_floor_op, T>;
template <typename T>
using CeilOp = KeepSign<ei::scalar_ceil_op, T>;
// Round half to even (the default rounding mode): TensorFlow's Round and
// Rint.
template <typename T>
using RoundHalfToEvenOp = KeepSign<ei::scalar_rint_op, T>;

// sqrt, correctly rounded on the float packet paths (kernels/exact_sqrt.h)
// and with sqrt(+inf) = +inf on the half ones, whose Eigen packets widen to
// Eigen 3.4's fast float sqrt (x * rsqrt(x), NaN there).
template <typename T>
struct SqrtOp {
  T operator()(const T& a) const {
    using std::sqrt;
    return sqrt(a);
  }
  template <typename Packet>
  Packet packetOp(const Packet& a) const {
    const Packet inf = ei::pset1<Packet>(std::numeric_limits<T>::infinity());
    return ei::pselect(ei::pcmp_eq(a, inf), inf, ExactPacketSqrt(a));
  }
};

template <typename T>
struct IsNanOp {
  bool operator()(const T& a) const { return a != a; }
};
template <typename T>
struct IsInfOp {
  bool operator()(const T& a) const {
    return a == std::numeric_limits<T>::infinity() ||
           a == -std::numeric_limits<T>::infinity();
  }
};
template <typename T>
struct IsFiniteOp {
  bool operator()(const T& a) const { return a - a == T(0); }
};

template <typename T>
struct LogicalAndOp {
  bool operator()(bool a, bool b) const { return a && b; }
};
template <typename T>
struct LogicalOrOp {
  bool operator()(bool a, bool b) const { return a || b; }
};
template <typename T>
struct LogicalNotOp {
  bool operator()(bool a) const { return !a; }
};

// (a - b)^2.
template <typename T>
struct SquaredDifferenceOp {
  // Integers wrap as in Sub and Mul (see WrappingOp).
  T operator()(const T& a, const T& b) const {
    using W = WrappingOp<T, ei::scalar_difference_op<T, T>>;
    const T d = W::Wrap(a, b, [](auto x, auto y) { return x - y; });
    return W::Wrap(d, d, [](auto x, auto y) { return x * y; });
  }
  template <typename Packet>
  Packet packetOp(const Packet& a, const Packet& b) const {
    const Packet d = ei::psub(a, b);
    return ei::pmul(d, d);
  }
};

}  // namespace dfx::math_internal

namespace Eigen::internal {

// Scalar-only functors, with a rough cost per element.
#define DFX_SCALAR_FUNCTOR_TRAITS(FUNCTOR, COST)                 \
  template <typename T>                                          \
  struct functor_traits<dfx::math_internal::FUNCTOR<T>> {        \
    enum { Cost = (COST) * NumTraits<T>::MulCost, PacketAccess = false }; \
  }
DFX_SCALAR_FUNCTOR_TRAITS(TruncDivOp, 4);
DFX_SCALAR_FUNCTOR_TRAITS(FloorDivOp, 6);
DFX_SCALAR_FUNCTOR_TRAITS(TruncModOp, 4);
DFX_SCALAR_FUNCTOR_TRAITS(FloorModOp, 6);
DFX_SCALAR_FUNCTOR_TRAITS(IntPowOp, 16);
DFX_SCALAR_FUNCTOR_TRAITS(Atan2Op, 40);
DFX_SCALAR_FUNCTOR_TRAITS(SignOp, 2);
DFX_SCALAR_FUNCTOR_TRAITS(IsNanOp, 1);
DFX_SCALAR_FUNCTOR_TRAITS(IsInfOp, 1);
DFX_SCALAR_FUNCTOR_TRAITS(IsFiniteOp, 1);
DFX_SCALAR_FUNCTOR_TRAITS(LogicalAndOp, 1);
DFX_SCALAR_FUNCTOR_TRAITS(LogicalOrOp, 1);
DFX_SCALAR_FUNCTOR_TRAITS(LogicalNotOp, 1);
#undef DFX_SCALAR_FUNCTOR_TRAITS

// The wrapping Add, Sub and Mul: Eigen's own traits (and packetOp).
template <typename T>
struct functor_traits<dfx::math_internal::AddOp<T>>
    : functor_traits<scalar_sum_op<T, T>> {};
template <typename T>
struct functor_traits<dfx::math_internal::SubOp<T>>
    : functor_traits<scalar_difference_op<T, T>> {};
template <typename T>
struct functor_traits<dfx::math_internal::MulOp<T>>
    : functor_traits<scalar_product_op<T, T>> {};
template <typename T>
struct functor_traits<dfx::math_internal::NegOp<T>>
    : functor_traits<scalar_opposite_op<T>> {};
template <typename T>
struct functor_traits<dfx::math_internal::AbsOp<T>>
    : functor_traits<scalar_abs_op<T>> {};
template <typename T>
struct functor_traits<dfx::math_internal::SquareOp<T>>
    : functor_traits<scalar_square_op<T>> {};

template <template <typename> class Op, typename T>
struct functor_traits<dfx::math_internal::KeepSign<Op, T>> {
  enum {
    Cost = functor_traits<Op<T>>::Cost + 2 * NumTraits<T>::AddCost,
    PacketAccess = functor_traits<Op<T>>::PacketAccess
  };
};

template <typename T>
struct functor_traits<dfx::math_internal::SqrtOp<T>> {
  enum {
    Cost = static_cast<int>(functor_traits<scalar_sqrt_op<T>>::Cost) +
           static_cast<int>(NumTraits<T>::AddCost),
    PacketAccess = packet_traits<T>::HasSqrt && packet_traits<T>::HasCmp
  };
};

// Functors with a packetOp built from the packet primitives they name.
template <typename T>
struct functor_traits<dfx::math_internal::DivNoNanOp<T>> {
  enum {
    Cost = NumTraits<T>::MulCost * 5,
    PacketAccess = packet_traits<T>::HasDiv && packet_traits<T>::HasCmp
  };
};
template <typename T>
struct functor_traits<dfx::math_internal::MulNoNanOp<T>> {
  enum {
    Cost = NumTraits<T>::MulCost * 2,
    PacketAccess = packet_traits<T>::HasMul && packet_traits<T>::HasCmp
  };
};
template <typename T>
struct functor_traits<dfx::math_internal::XdivyOp<T>> {
  enum {
    Cost = NumTraits<T>::MulCost * 5,
    PacketAccess = packet_traits<T>::HasDiv && packet_traits<T>::HasCmp
  };
};
template <typename T>
struct functor_traits<dfx::math_internal::XlogyOp<T>> {
  enum {
    Cost = NumTraits<T>::MulCost * 20,
    PacketAccess = packet_traits<T>::HasLog && packet_traits<T>::HasCmp
  };
};
template <typename T>
struct functor_traits<dfx::math_internal::Xlog1pyOp<T>> {
  enum {
    Cost = NumTraits<T>::MulCost * 20,
    PacketAccess = packet_traits<T>::HasLog1p && packet_traits<T>::HasCmp
  };
};
#define DFX_ARITH_FUNCTOR_TRAITS(FUNCTOR, COST, DIV)                          \
  template <typename T>                                                       \
  struct functor_traits<dfx::math_internal::FUNCTOR<T>> {                     \
    enum {                                                                    \
      Cost = (COST) * NumTraits<T>::MulCost,                                  \
      PacketAccess = packet_traits<T>::HasMul && packet_traits<T>::HasSub &&  \
                     (!(DIV) || packet_traits<T>::HasDiv)                     \
    };                                                                        \
  }
DFX_ARITH_FUNCTOR_TRAITS(TanhGradOp, 3, false);
DFX_ARITH_FUNCTOR_TRAITS(SigmoidGradOp, 3, false);
DFX_ARITH_FUNCTOR_TRAITS(RsqrtGradOp, 4, false);
DFX_ARITH_FUNCTOR_TRAITS(SqrtGradOp, 5, true);
DFX_ARITH_FUNCTOR_TRAITS(ReciprocalGradOp, 3, false);
DFX_ARITH_FUNCTOR_TRAITS(SquaredDifferenceOp, 2, false);
#undef DFX_ARITH_FUNCTOR_TRAITS

}  // namespace Eigen::internal

#endif  // DFX_KERNELS_MATH_CWISE_FUNCTORS_H_
