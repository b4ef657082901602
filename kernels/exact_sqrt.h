// Correctly rounded square roots for Eigen packet code.
//
// Eigen 3.4 with EIGEN_FAST_MATH (its default, which dfx keeps for the
// vectorized tanh, erf, sin and cos) computes float psqrt on SSE and AVX as
// an rsqrtps estimate plus one Newton step: one or two bits short, with
// denormals flushed to zero, sqrt(+inf) = NaN, and results that differ
// between CPU vendors (Intel's and AMD's rsqrtps estimates differ).
// TensorFlow's Eigen uses the sqrtps instruction, which is exact. Kernels
// use ExactSqrtFn (or ExactSqrt on an array expression) instead of
// Eigen's sqrt().
#ifndef DFX_KERNELS_EXACT_SQRT_H_
#define DFX_KERNELS_EXACT_SQRT_H_

#include <cmath>

#include "Eigen/Core"

namespace dfx {

template <typename Packet>
inline Packet ExactPacketSqrt(const Packet& x) {
  return Eigen::internal::psqrt(x);
}
#ifdef EIGEN_VECTORIZE_SSE
template <>
inline Eigen::internal::Packet4f ExactPacketSqrt(
    const Eigen::internal::Packet4f& x) {
  return _mm_sqrt_ps(x);
}
#endif
#ifdef EIGEN_VECTORIZE_AVX
template <>
inline Eigen::internal::Packet8f ExactPacketSqrt(
    const Eigen::internal::Packet8f& x) {
  return _mm256_sqrt_ps(x);
}
#endif
#ifdef EIGEN_VECTORIZE_AVX512
template <>
inline Eigen::internal::Packet16f ExactPacketSqrt(
    const Eigen::internal::Packet16f& x) {
  return _mm512_sqrt_ps(x);
}
#endif

// sqrt(a), element by element, correctly rounded on every path.
template <typename T>
struct ExactSqrtFn {
  T operator()(const T& a) const {
    using std::sqrt;
    return sqrt(a);
  }
  template <typename Packet>
  Packet packetOp(const Packet& a) const {
    return ExactPacketSqrt(a);
  }
};

// ExactSqrt(expr): Eigen's expr.sqrt(), correctly rounded.
template <typename Derived>
auto ExactSqrt(const Eigen::ArrayBase<Derived>& a) {
  return a.unaryExpr(ExactSqrtFn<typename Derived::Scalar>());
}

}  // namespace dfx

namespace Eigen::internal {
template <typename T>
struct functor_traits<dfx::ExactSqrtFn<T>> {
  enum {
    Cost = functor_traits<scalar_sqrt_op<T>>::Cost,
    PacketAccess = packet_traits<T>::HasSqrt
  };
};
}  // namespace Eigen::internal

#endif  // DFX_KERNELS_EXACT_SQRT_H_
