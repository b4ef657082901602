// Dawsn, Expint, FresnelCos and FresnelSin: the special integrals of
// special_integrals.h and the kernels that apply them. Each function is
// computed in double from the series, continued fraction or asymptotic
// expansion that converges fastest at the argument, rather than from
// fitted rational approximations.
#include "kernels/math/special_integrals.h"

#include <cmath>
#include <complex>
#include <cstdint>
#include <limits>

#include "kernels/array/legacy_kernels.h"
#include "kernels/eigen_util.h"

namespace dfx {
namespace special {
namespace {

constexpr double kPi = 3.14159265358979323846;
constexpr double kHalfPi = kPi / 2;
constexpr double kInvSqrtPi = 0.56418958354775628695;    // 1 / sqrt(pi)
constexpr double kSqrtPiOver2 = 0.88622692545275801365;  // sqrt(pi) / 2
constexpr double kEuler = 0.57721566490153286061;
constexpr double kEps = 1e-17;

// Dawson's integral at |x| in [0.2, 25] by Rybicki's sum: F(x) is the
// limit as h -> 0 of (1 / sqrt(pi)) sum over odd n of exp(-(x - nh)^2) / n,
// whose error falls as exp(-(pi / 2h)^2): 2e-27 at h = 0.2. The sum is
// taken around the even n0 nearest x / h; terms further than 7 from x are
// below 1e-21.
double DawsonRybicki(double ax) {
  constexpr double h = 0.2;
  constexpr int kTerms = 35;  // odd k in [-35, 35]: |k h| up to 7
  const int64_t n0 = 2 * std::llround(ax / (2 * h));
  const double xs = ax - static_cast<double>(n0) * h;
  double sum = 0.0;
  for (int k = -kTerms; k <= kTerms; k += 2) {
    const double d = xs - k * h;
    sum += std::exp(-d * d) / static_cast<double>(k + n0);
  }
  return sum * kInvSqrtPi;
}

// cos and sin of (pi / 2) x^2 for x >= 0, with x^2 reduced modulo 4 (their
// period) exactly: x^2 = hi + lo (an FMA gives lo), each reduced on its
// own. At x >= 2^53, x is an even integer and x^2 a multiple of 4.
void HalfPiSquare(double x, double* cos_out, double* sin_out) {
  double r = 0.0;
  if (x < 0x1p53) {
    const double hi = x * x;
    const double lo = std::fma(x, x, -hi);
    r = std::fmod(hi, 4.0) + std::fmod(lo, 4.0);
  }
  const double phase = kHalfPi * r;
  *cos_out = std::cos(phase);
  *sin_out = std::sin(phase);
}

}  // namespace

double Dawson(double x) {
  if (std::isnan(x)) return x;
  const double ax = std::fabs(x);
  if (ax < 0.2) {
    // x * sum_n (-2 x^2)^n / (2n + 1)!!
    const double m = -2.0 * x * x;
    double term = 1.0;
    double sum = 1.0;
    for (int n = 1; n < 40; ++n) {
      term *= m / (2 * n + 1);
      sum += term;
      if (std::fabs(term) < kEps) break;
    }
    return x * sum;
  }
  if (ax > 25.0) {
    if (std::isinf(ax)) return std::copysign(0.0, x);
    // (1 / 2x) sum_n (2n - 1)!! / (2 x^2)^n; at |x| > 25 it reaches 1e-17
    // in a few terms, long before the terms grow again.
    const double r = 1.0 / (2.0 * ax * ax);
    double term = 1.0;
    double sum = 1.0;
    for (int n = 1; n < 40; ++n) {
      term *= (2 * n - 1) * r;
      sum += term;
      if (term < kEps * sum) break;
    }
    return std::copysign(sum / (2.0 * ax), x);
  }
  return std::copysign(DawsonRybicki(ax), x);
}

double ExpIntegralEi(double x) {
  if (std::isnan(x) || x < 0.0) {
    return std::numeric_limits<double>::quiet_NaN();
  }
  if (x == 0.0) return -std::numeric_limits<double>::infinity();
  if (std::isinf(x)) return x;
  if (x <= 40.0) {
    // Ei(x) = gamma + ln x + sum_k x^k / (k k!): every term positive.
    double power = 1.0;  // x^k / k!
    double sum = 0.0;
    for (int k = 1; k < 300; ++k) {
      power *= x / k;
      const double add = power / k;
      sum += add;
      if (add < kEps * sum) break;
    }
    return kEuler + std::log(x) + sum;
  }
  // Ei(x) ~ (e^x / x) sum_k k! / x^k, stopped at its smallest term (below
  // 1e-16 of the sum at x > 40); e^x / x is formed as e^(x/2) (e^(x/2) / x),
  // which overflows only where Ei itself does and, x / 2 being exact, keeps
  // exp's own accuracy.
  double term = 1.0;
  double sum = 1.0;
  for (int k = 1; k < 200; ++k) {
    const double next = term * k / x;
    if (next >= term) break;
    term = next;
    sum += term;
    if (term < kEps * sum) break;
  }
  const double half = std::exp(0.5 * x);
  return half * (half / x) * sum;
}

FresnelPair Fresnel(double x) {
  if (std::isnan(x)) return {x, x};
  const double ax = std::fabs(x);
  double c = 0.5;
  double s = 0.5;
  if (ax < 1.8) {
    // C + iS = x sum_m (i a)^m / (m! (2m + 1)) with a = (pi / 2) x^2.
    const double a = kHalfPi * ax * ax;
    double power = 1.0;  // a^m / m!
    c = 1.0;
    s = 0.0;
    for (int m = 1; m < 80; ++m) {
      power *= a / m;
      const double v = power / (2 * m + 1);
      switch (m % 4) {
        case 0:
          c += v;
          break;
        case 1:
          s += v;
          break;
        case 2:
          c -= v;
          break;
        default:
          s -= v;
          break;
      }
      if (power < kEps) break;
    }
    c *= ax;
    s *= ax;
  } else if (ax < 1e8) {
    // C + iS = (1 + i) / 2 * erf(z), z = (sqrt(pi) / 2) (1 - i) x, with
    // erfc(z) = exp(-z^2) / sqrt(pi) / K and K the continued fraction
    // z + (1/2) / (z + 1 / (z + (3/2) / (z + ...))), evaluated by Lentz's
    // method; exp(-z^2) = exp(i (pi / 2) x^2).
    using Complex = std::complex<double>;
    const Complex z = kSqrtPiOver2 * ax * Complex(1.0, -1.0);
    constexpr double kTiny = 1e-300;
    Complex f = z;
    Complex cc = z;
    Complex dd = 0.0;
    for (int n = 1; n < 5000; ++n) {
      const double an = 0.5 * n;
      dd = z + an * dd;
      if (std::abs(dd) < kTiny) dd = kTiny;
      dd = 1.0 / dd;
      cc = z + an / cc;
      if (std::abs(cc) < kTiny) cc = kTiny;
      const Complex delta = cc * dd;
      f *= delta;
      if (std::abs(delta - 1.0) < 1e-16) break;
    }
    double cos_p = 0.0;
    double sin_p = 0.0;
    HalfPiSquare(ax, &cos_p, &sin_p);
    const Complex erfc = Complex(cos_p, sin_p) * kInvSqrtPi / f;
    const Complex cs = Complex(0.5, 0.5) * (1.0 - erfc);
    c = cs.real();
    s = cs.imag();
  } else if (!std::isinf(ax)) {
    // C ~ 1/2 + sin(phi) / (pi x), S ~ 1/2 - cos(phi) / (pi x); the next
    // terms are below 1e-25 here.
    double cos_p = 0.0;
    double sin_p = 0.0;
    HalfPiSquare(ax, &cos_p, &sin_p);
    c = 0.5 + sin_p / (kPi * ax);
    s = 0.5 - cos_p / (kPi * ax);
  }
  return {std::copysign(c, x), std::copysign(s, x)};
}

}  // namespace special

namespace {

double FresnelCos(double x) { return special::Fresnel(x).c; }
double FresnelSin(double x) { return special::Fresnel(x).s; }

// y = f(x) element-wise for float and double, computed in double.
template <double (*F)(double)>
class SpecialIntegralOp : public OpKernel {
 public:
  using OpKernel::OpKernel;

  void Compute(OpKernelContext* ctx) override {
    const Tensor& x = ctx->input(0);
    Tensor* out = nullptr;
    DFX_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, x.shape(), &out));
    if (x.dtype() == DT_FLOAT) {
      Run<float>(*ctx->device(), x, out);
    } else {
      Run<double>(*ctx->device(), x, out);
    }
  }

 private:
  template <typename T>
  static void Run(const Device& device, const Tensor& x, Tensor* out) {
    const T* src = x.data<T>();
    T* dst = out->data<T>();
    // About a hundred flops and a few dozen exp or complex divisions.
    ParallelFor(device, x.NumElements(),
                Eigen::TensorOpCost(sizeof(T), sizeof(T), 2000),
                [&](int64_t first, int64_t last) {
                  for (int64_t i = first; i < last; ++i) {
                    dst[i] = static_cast<T>(F(static_cast<double>(src[i])));
                  }
                });
  }
};

}  // namespace

void RegisterSpecialIntegralKernels(KernelRegistry* registry) {
  // TensorFlow 2.21's CPU kernels: float and double (the OpDefs also allow
  // bfloat16 and half).
  const DataTypeVector types = {DT_FLOAT, DT_DOUBLE};
  RegisterKernel<SpecialIntegralOp<special::Dawson>>(
      registry, KernelDefBuilder("Dawsn").TypeConstraint("T", types));
  RegisterKernel<SpecialIntegralOp<special::ExpIntegralEi>>(
      registry, KernelDefBuilder("Expint").TypeConstraint("T", types));
  RegisterKernel<SpecialIntegralOp<FresnelCos>>(
      registry, KernelDefBuilder("FresnelCos").TypeConstraint("T", types));
  RegisterKernel<SpecialIntegralOp<FresnelSin>>(
      registry, KernelDefBuilder("FresnelSin").TypeConstraint("T", types));
}

}  // namespace dfx
