// The complex64/complex128 kernels of element-wise math that TensorFlow
// 2.21's CPU kernels serve for complex and kernels/fft/complex_ops.cc does
// not: Expm1, Log1p, the trigonometric and hyperbolic functions and their
// inverses, Sigmoid, Sign, Pow, SquaredDifference, Xdivy, Xlogy, Xlog1py,
// and the gradients TanhGrad, SigmoidGrad, SqrtGrad, RsqrtGrad,
// ReciprocalGrad and InvGrad.
//
// The functions are std::complex's (glibc's casin, ctanh, cpow, ...), as in
// TensorFlow's Eigen functors. Expm1 and Log1p keep their precision near 0
// (Log1p with Eigen's formula, whose values at -1 TensorFlow gives too). SqrtGrad, RsqrtGrad and ReciprocalGrad
// conjugate y (the function's output) and TanhGrad and SigmoidGrad do not,
// as TensorFlow's complex gradient functors do.
#include <cmath>
#include <complex>

#include "kernels/math/cwise_complex_ops.h"
#include "kernels/math/cwise_ops.h"

namespace dfx {
namespace {

using math_internal::RegisterForTypes;
namespace ei = Eigen::internal;

using complex64 = std::complex<float>;
using complex128 = std::complex<double>;

// exp(z) - 1 without cancellation near 0: with z = x + iy,
// re = expm1(x) - 2 exp(x) sin^2(y / 2) (that is exp(x) cos(y) - 1),
// im = exp(x) sin(y).
template <typename C>
struct Expm1Op {
  C operator()(const C& z) const {
    using R = typename C::value_type;
    const R x = z.real();
    const R y = z.imag();
    const R em1 = std::expm1(x);
    const R e = em1 + R(1);
    const R h = std::sin(y / R(2));
    return C(em1 - R(2) * e * h * h, e * std::sin(y));
  }
};

// log(1 + z) as Eigen computes it for complex (TensorFlow's functor):
// z * log(1 + z) / ((1 + z) - 1), which keeps the precision near 0; z
// itself where 1 + z rounds to 1; log(-1 + 0i) is -inf + NaN i there.
template <typename C>
struct Log1pOp {
  C operator()(const C& z) const { return Eigen::numext::log1p(z); }
};

// The functions std::complex provides, as they are.
#define DFX_COMPLEX_STD_FUNCTOR(NAME, FN)              \
  template <typename C>                                \
  struct NAME {                                        \
    C operator()(const C& z) const { return FN(z); }   \
  };
DFX_COMPLEX_STD_FUNCTOR(SinOp, std::sin)
DFX_COMPLEX_STD_FUNCTOR(CosOp, std::cos)
DFX_COMPLEX_STD_FUNCTOR(TanOp, std::tan)
DFX_COMPLEX_STD_FUNCTOR(AsinOp, std::asin)
DFX_COMPLEX_STD_FUNCTOR(AcosOp, std::acos)
DFX_COMPLEX_STD_FUNCTOR(AtanOp, std::atan)
DFX_COMPLEX_STD_FUNCTOR(SinhOp, std::sinh)
DFX_COMPLEX_STD_FUNCTOR(CoshOp, std::cosh)
DFX_COMPLEX_STD_FUNCTOR(TanhOp, std::tanh)
DFX_COMPLEX_STD_FUNCTOR(AsinhOp, std::asinh)
DFX_COMPLEX_STD_FUNCTOR(AcoshOp, std::acosh)
DFX_COMPLEX_STD_FUNCTOR(AtanhOp, std::atanh)
#undef DFX_COMPLEX_STD_FUNCTOR

// 1 / (1 + exp(-z)).
template <typename C>
struct SigmoidOp {
  C operator()(const C& z) const { return C(1) / (C(1) + std::exp(-z)); }
};

// z / |z|, and 0 for 0.
template <typename C>
struct SignOp {
  C operator()(const C& z) const {
    using R = typename C::value_type;
    const R a = std::abs(z);
    if (a == R(0)) return C(0);
    return C(z.real() / a, z.imag() / a);
  }
};

// a ** b = exp(b log a) (glibc's cpow): 0 ** 0 is NaN, as in TensorFlow.
template <typename C>
struct PowOp {
  C operator()(const C& a, const C& b) const { return std::pow(a, b); }
};

// (a - b) * conj(a - b): |a - b|^2 with a zero imaginary part.
template <typename C>
struct SquaredDifferenceOp {
  C operator()(const C& a, const C& b) const {
    const C d = a - b;
    return d * std::conj(d);
  }
};

// 0 where a is 0, whatever b.
template <typename C>
struct XdivyOp {
  C operator()(const C& a, const C& b) const {
    return a == C(0) ? C(0) : a / b;
  }
};
template <typename C>
struct XlogyOp {
  C operator()(const C& a, const C& b) const {
    return a == C(0) ? C(0) : a * std::log(b);
  }
};
template <typename C>
struct Xlog1pyOp {
  C operator()(const C& a, const C& b) const {
    return a == C(0) ? C(0) : a * Log1pOp<C>()(b);
  }
};

// Gradients from the output y and its gradient dy.
template <typename C>
struct TanhGradOp {
  C operator()(const C& y, const C& dy) const { return dy * (C(1) - y * y); }
};
template <typename C>
struct SigmoidGradOp {
  C operator()(const C& y, const C& dy) const { return dy * y * (C(1) - y); }
};
template <typename C>
struct SqrtGradOp {
  C operator()(const C& y, const C& dy) const {
    return (C(0.5) * dy) / std::conj(y);
  }
};
template <typename C>
struct RsqrtGradOp {
  C operator()(const C& y, const C& dy) const {
    const C c = std::conj(y);
    return C(-0.5) * (dy * c) * (c * c);
  }
};
template <typename C>
struct ReciprocalGradOp {
  C operator()(const C& y, const C& dy) const {
    const C c = std::conj(y);
    return -dy * c * c;
  }
};

template <template <typename> class F>
struct Unary {
  template <typename C>
  using Kernel = math_internal::UnaryOpKernel<F<C>, C>;
};
template <template <typename> class F>
struct Binary {
  template <typename C>
  using Kernel = math_internal::BinaryOpKernel<F<C>, C>;
  template <typename C>
  using SameSizeKernel = math_internal::SameSizeBinaryOpKernel<F<C>, C>;
};

template <template <typename> class F>
void RegisterUnary(KernelRegistry* registry, const char* name) {
  RegisterForTypes<Unary<F>::template Kernel, complex64, complex128>(registry,
                                                                     name);
}
template <template <typename> class F>
void RegisterBinary(KernelRegistry* registry, const char* name) {
  RegisterForTypes<Binary<F>::template Kernel, complex64, complex128>(registry,
                                                                      name);
}
template <template <typename> class F>
void RegisterGrad(KernelRegistry* registry, const char* name) {
  RegisterForTypes<Binary<F>::template SameSizeKernel, complex64, complex128>(
      registry, name);
}

}  // namespace
}  // namespace dfx

namespace Eigen::internal {
// Scalar-only functors (std::complex has no packet math for these), with a
// rough cost per element.
#define DFX_COMPLEX_FUNCTOR_TRAITS(FUNCTOR, COST)                          \
  template <typename C>                                                    \
  struct functor_traits<dfx::FUNCTOR<C>> {                                 \
    enum { Cost = (COST) * NumTraits<C>::MulCost, PacketAccess = false };  \
  };
DFX_COMPLEX_FUNCTOR_TRAITS(Expm1Op, 20)
DFX_COMPLEX_FUNCTOR_TRAITS(Log1pOp, 20)
DFX_COMPLEX_FUNCTOR_TRAITS(SinOp, 20)
DFX_COMPLEX_FUNCTOR_TRAITS(CosOp, 20)
DFX_COMPLEX_FUNCTOR_TRAITS(TanOp, 30)
DFX_COMPLEX_FUNCTOR_TRAITS(AsinOp, 40)
DFX_COMPLEX_FUNCTOR_TRAITS(AcosOp, 40)
DFX_COMPLEX_FUNCTOR_TRAITS(AtanOp, 40)
DFX_COMPLEX_FUNCTOR_TRAITS(SinhOp, 20)
DFX_COMPLEX_FUNCTOR_TRAITS(CoshOp, 20)
DFX_COMPLEX_FUNCTOR_TRAITS(TanhOp, 30)
DFX_COMPLEX_FUNCTOR_TRAITS(AsinhOp, 40)
DFX_COMPLEX_FUNCTOR_TRAITS(AcoshOp, 40)
DFX_COMPLEX_FUNCTOR_TRAITS(AtanhOp, 40)
DFX_COMPLEX_FUNCTOR_TRAITS(SigmoidOp, 20)
DFX_COMPLEX_FUNCTOR_TRAITS(SignOp, 10)
DFX_COMPLEX_FUNCTOR_TRAITS(PowOp, 40)
DFX_COMPLEX_FUNCTOR_TRAITS(SquaredDifferenceOp, 3)
DFX_COMPLEX_FUNCTOR_TRAITS(XdivyOp, 5)
DFX_COMPLEX_FUNCTOR_TRAITS(XlogyOp, 20)
DFX_COMPLEX_FUNCTOR_TRAITS(Xlog1pyOp, 20)
DFX_COMPLEX_FUNCTOR_TRAITS(TanhGradOp, 3)
DFX_COMPLEX_FUNCTOR_TRAITS(SigmoidGradOp, 3)
DFX_COMPLEX_FUNCTOR_TRAITS(SqrtGradOp, 5)
DFX_COMPLEX_FUNCTOR_TRAITS(RsqrtGradOp, 4)
DFX_COMPLEX_FUNCTOR_TRAITS(ReciprocalGradOp, 3)
#undef DFX_COMPLEX_FUNCTOR_TRAITS
}  // namespace Eigen::internal

namespace dfx {

void RegisterCwiseComplexKernels(KernelRegistry* registry) {
  RegisterUnary<Expm1Op>(registry, "Expm1");
  RegisterUnary<Log1pOp>(registry, "Log1p");
  RegisterUnary<SinOp>(registry, "Sin");
  RegisterUnary<CosOp>(registry, "Cos");
  RegisterUnary<TanOp>(registry, "Tan");
  RegisterUnary<AsinOp>(registry, "Asin");
  RegisterUnary<AcosOp>(registry, "Acos");
  RegisterUnary<AtanOp>(registry, "Atan");
  RegisterUnary<SinhOp>(registry, "Sinh");
  RegisterUnary<CoshOp>(registry, "Cosh");
  RegisterUnary<TanhOp>(registry, "Tanh");
  RegisterUnary<AsinhOp>(registry, "Asinh");
  RegisterUnary<AcoshOp>(registry, "Acosh");
  RegisterUnary<AtanhOp>(registry, "Atanh");
  RegisterUnary<SigmoidOp>(registry, "Sigmoid");
  RegisterUnary<SignOp>(registry, "Sign");
  RegisterBinary<PowOp>(registry, "Pow");
  RegisterBinary<SquaredDifferenceOp>(registry, "SquaredDifference");
  RegisterBinary<XdivyOp>(registry, "Xdivy");
  RegisterBinary<XlogyOp>(registry, "Xlogy");
  RegisterBinary<Xlog1pyOp>(registry, "Xlog1py");
  RegisterGrad<TanhGradOp>(registry, "TanhGrad");
  RegisterGrad<SigmoidGradOp>(registry, "SigmoidGrad");
  RegisterGrad<SqrtGradOp>(registry, "SqrtGrad");
  RegisterGrad<RsqrtGradOp>(registry, "RsqrtGrad");
  RegisterGrad<ReciprocalGradOp>(registry, "ReciprocalGrad");
  RegisterGrad<ReciprocalGradOp>(registry, "InvGrad");
}

}  // namespace dfx
