// Dawson's integral, the exponential integral Ei and the Fresnel integrals,
// in double precision, for the Dawsn, Expint, FresnelCos and FresnelSin ops
// (kernels/math/special_integral_ops.cc). Each is accurate to a few ulps of
// double over its whole domain; float inputs are computed in double and
// rounded once.
//
// Where TensorFlow's kernels (Cephes' rational approximations, evaluated in
// the input's precision) differ on purpose:
// - Expint(+inf) is +inf (TensorFlow: exp(inf) * 0 = NaN).
// - Fresnel past |x| = 36974 keeps its oscillating term (TensorFlow answers
//   +-0.5 there, off by up to 1 / (pi |x|), 8.6e-6 at the cutoff).
// - Float Expint between 88.7 and 94.9 is finite (TensorFlow's float exp
//   overflows first).
#ifndef DFX_KERNELS_MATH_SPECIAL_INTEGRALS_H_
#define DFX_KERNELS_MATH_SPECIAL_INTEGRALS_H_

namespace dfx::special {

// F(x) = exp(-x^2) * integral_0^x exp(t^2) dt; odd, F(+-inf) = +-0.
double Dawson(double x);

// Ei(x) = -PV integral_{-x}^inf exp(-t) / t dt for x > 0; -inf at 0, NaN
// below 0 (as TensorFlow's Expint), +inf at +inf.
double ExpIntegralEi(double x);

// C(x) = integral_0^x cos(pi t^2 / 2) dt, S(x) = the same with sin; odd,
// +-0.5 at +-inf.
struct FresnelPair {
  double c;
  double s;
};
FresnelPair Fresnel(double x);

}  // namespace dfx::special

#endif  // DFX_KERNELS_MATH_SPECIAL_INTEGRALS_H_
