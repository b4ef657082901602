// The FFT engine behind kernels/fft/fft_ops.cc.
//
// The unit of work is a group of W lines (W = the SIMD width: 8 floats or
// 4 doubles with AVX), held split by lane: element j of the group is one
// vector of W real parts and one of W imaginary parts. Every butterfly then
// works on W lines at once with plain vector arithmetic, and the lines of a
// batch, of a strided axis (adjacent lines are adjacent in memory) or of
// the two halves of a four-step split all fill the lanes the same way.
//
// A group is transformed by self-sorting (Stockham) decimation-in-
// frequency passes between two buffers: for length L = r * m at stride s,
//   y[q + s (r p + k)] = W_L^(p k) sum_j x[q + s (p + j m)] W_r^(j k),
// then length m at stride s r, until the length is 1; the result is in
// natural order. Radix 4 and 2 have their own butterflies; odd radices
// (3, 5, 7, ..., kMaxRadix) share one that pairs x_j with x_(r-j).
//
// Lengths with a prime factor above kMaxRadix use Bluestein's algorithm:
// jk = (j^2 + k^2 - (k-j)^2) / 2 turns the transform into a cyclic
// convolution with the chirp exp(-pi i j^2 / n), done by transforms of a
// smooth length m >= 2n - 1. The inverse transform is conj(F(conj(x))).
//
// Twiddles are computed in double and rounded once to T.
#include "kernels/fft/fft_plan.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <list>
#include <numbers>
#include <utility>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"

namespace dfx {
namespace fft_internal {

#if defined(__AVX__)
constexpr int kVecBytes = 32;
#else
constexpr int kVecBytes = 16;
#endif

template <typename T>
struct Simd;
template <>
struct Simd<float> {
  typedef float V __attribute__((vector_size(kVecBytes), __may_alias__));
};
template <>
struct Simd<double> {
  typedef double V __attribute__((vector_size(kVecBytes), __may_alias__));
};

// W complex numbers, one per lane.
template <typename T>
struct CV {
  using V = typename Simd<T>::V;
  static constexpr int kW = kVecBytes / sizeof(T);
  V re, im;
};

namespace {

template <typename T>
constexpr int kLanes = CV<T>::kW;

// Lines at most this long are transformed in the lanes' buffers directly
// (two buffers of kMaxLaneLength * 64 bytes stay in L2); longer ones split.
constexpr int64_t kMaxLaneLength = 2048;

template <typename T>
inline CV<T> operator+(const CV<T>& a, const CV<T>& b) {
  return {a.re + b.re, a.im + b.im};
}
template <typename T>
inline CV<T> operator-(const CV<T>& a, const CV<T>& b) {
  return {a.re - b.re, a.im - b.im};
}
// a * (wr + i wi), the same w in every lane.
template <typename T>
inline CV<T> MulS(const CV<T>& a, T wr, T wi) {
  return {a.re * wr - a.im * wi, a.re * wi + a.im * wr};
}
template <typename T>
inline CV<T> MulV(const CV<T>& a, const CV<T>& w) {
  return {a.re * w.re - a.im * w.im, a.re * w.im + a.im * w.re};
}
template <typename T>
inline CV<T> Conj(const CV<T>& a) {
  return {a.re, -a.im};
}
// -i a (forward) or i a (inverse).
template <typename T, bool kFwd>
inline CV<T> RotMinusI(const CV<T>& a) {
  if constexpr (kFwd) {
    return {a.im, -a.re};
  } else {
    return {-a.im, a.re};
  }
}
template <typename T>
inline CV<T> Zero() {
  CV<T> z;
  z.re = typename CV<T>::V{};
  z.im = typename CV<T>::V{};
  return z;
}

// exp(-2 pi i e / n), accurately for any 0 <= e < n.
std::complex<double> Root(int64_t e, int64_t n) {
  e %= n;
  if (e < 0) e += n;
  // Reduce to an angle in [-pi, pi]; exact values on the axes.
  if (4 * e == n) return {0.0, -1.0};
  if (2 * e == n) return {-1.0, 0.0};
  if (4 * e == 3 * n) return {0.0, 1.0};
  const int64_t s = 2 * e > n ? e - n : e;
  const double angle =
      -2.0 * std::numbers::pi * static_cast<double>(s) / static_cast<double>(n);
  return {std::cos(angle), std::sin(angle)};
}

bool Smooth(int64_t n, int64_t max_factor) {
  for (int64_t p = 2; p <= max_factor && n > 1; ++p) {
    while (n % p == 0) n /= p;
  }
  return n == 1;
}

// The smallest 2^a 3^b 5^c 7^d >= n.
int64_t GoodSize(int64_t n) {
  int64_t best = 1;
  while (best < n) best *= 2;
  for (int64_t f7 = 1; f7 < best; f7 *= 7) {
    for (int64_t f5 = f7; f5 < best; f5 *= 5) {
      for (int64_t f3 = f5; f3 < best; f3 *= 3) {
        int64_t v = f3;
        while (v < n) v *= 2;
        best = std::min(best, v);
      }
    }
  }
  return best;
}

}  // namespace

// A transform of one length over the lanes' buffers.
template <typename T>
struct LanePlan {
  struct Pass {
    int radix;
    int64_t m, s;     // the pass's length is radix * m, at stride s
    int64_t tw;       // twiddles: tw_re/tw_im[tw + p (radix-1) + k-1]
    int64_t consts;   // odd radix: cos/sin[consts + (j-1) h + (k-1)]
  };
  int64_t n = 1;
  std::vector<Pass> passes;
  std::vector<T> tw_re, tw_im, odd_cos, odd_sin;
  // Bluestein (inner != nullptr): chirp exp(-pi i j^2 / n), j < n, and the
  // kernel's transform / m.
  std::unique_ptr<LanePlan<T>> inner;
  std::vector<T> chirp_re, chirp_im, kern_re, kern_im;

  // CVs of `work` Run needs.
  int64_t WorkSize() const {
    return inner == nullptr ? n : 2 * inner->n;
  }
  // Transforms data[0..n) (each lane its own line); returns the buffer
  // holding the result: data, or work for a Stockham plan.
  CV<T>* Run(CV<T>* data, CV<T>* work, bool forward) const;

 private:
  template <bool kFwd>
  CV<T>* RunStockham(CV<T>* data, CV<T>* work) const;
  CV<T>* RunBluestein(CV<T>* data, CV<T>* work, bool forward) const;
};

namespace {

template <typename T>
std::unique_ptr<LanePlan<T>> MakeStockham(int64_t n) {
  auto plan = std::make_unique<LanePlan<T>>();
  plan->n = n;
  std::vector<int> radices;
  int64_t rest = n;
  while (rest % 4 == 0) {
    radices.push_back(4);
    rest /= 4;
  }
  if (rest % 2 == 0) {
    radices.push_back(2);
    rest /= 2;
  }
  for (int64_t p = 3; rest > 1; p += 2) {
    while (rest % p == 0) {
      radices.push_back(static_cast<int>(p));
      rest /= p;
    }
  }
  int64_t len = n, s = 1;
  for (int r : radices) {
    typename LanePlan<T>::Pass pass;
    pass.radix = r;
    pass.m = len / r;
    pass.s = s;
    pass.tw = static_cast<int64_t>(plan->tw_re.size());
    for (int64_t p = 0; p < pass.m; ++p) {
      for (int k = 1; k < r; ++k) {
        const std::complex<double> w = Root(p * k, len);
        plan->tw_re.push_back(static_cast<T>(w.real()));
        plan->tw_im.push_back(static_cast<T>(w.imag()));
      }
    }
    pass.consts = static_cast<int64_t>(plan->odd_cos.size());
    if (r % 2 == 1) {
      const int h = (r - 1) / 2;
      for (int j = 1; j <= h; ++j) {
        for (int k = 1; k <= h; ++k) {
          const std::complex<double> w = Root(int64_t{j} * k, r);
          plan->odd_cos.push_back(static_cast<T>(w.real()));
          // sin(2 pi jk / r): Root gives exp(-i angle).
          plan->odd_sin.push_back(static_cast<T>(-w.imag()));
        }
      }
    }
    plan->passes.push_back(pass);
    len = pass.m;
    s *= r;
  }
  return plan;
}

// The smooth length m >= 2n - 1 Bluestein uses for n.
int64_t BluesteinLength(int64_t n) { return GoodSize(2 * n - 1); }

// chirp[j] = exp(-pi i j^2 / n), j < n; kernel = F_m(conj chirp, wrapped)/m,
// computed in double.
void BluesteinTables(int64_t n, int64_t m,
                     std::vector<std::complex<double>>* chirp,
                     std::vector<std::complex<double>>* kernel);

// Loads lanes l < nl with line l: elements base[l][j * es], j < n; the
// other lanes get zeros. Written element by element straight into the
// buffer's memory, one line at a time.
template <typename T>
bool LoadRows(CV<T>* buf, int64_t n, const std::complex<T>* const* base,
              int nl, int64_t es);
template <typename T>
bool StoreRows(const CV<T>* buf, int64_t n, std::complex<T>* const* base,
               int nl, int64_t es, T scale);

template <typename T>
void LoadLanes(CV<T>* buf, int64_t n, const std::complex<T>* const* base,
               int nl, int64_t es) {
  if (LoadRows(buf, n, base, nl, es)) return;
  if (nl < kLanes<T>) {
    for (int64_t j = 0; j < n; ++j) buf[j] = Zero<T>();
  }
  for (int l = 0; l < nl; ++l) {
    const std::complex<T>* p = base[l];
    for (int64_t j = 0; j < n; ++j) {
      const std::complex<T> x = p[j * es];
      buf[j].re[l] = x.real();
      buf[j].im[l] = x.imag();
    }
  }
}

template <typename T>
void StoreLanes(const CV<T>* buf, int64_t n, std::complex<T>* const* base,
                int nl, int64_t es, T scale) {
  if (StoreRows(buf, n, base, nl, es, scale)) return;
  for (int l = 0; l < nl; ++l) {
    std::complex<T>* p = base[l];
    for (int64_t j = 0; j < n; ++j) {
      p[j * es] = std::complex<T>(buf[j].re[l] * scale, buf[j].im[l] * scale);
    }
  }
}

// W interleaved complex numbers at p <-> one CV.
template <typename T>
inline CV<T> Deinterleave(const T* p) {
  using V = typename CV<T>::V;
  V a, b;
  std::memcpy(&a, p, sizeof(V));
  std::memcpy(&b, p + kLanes<T>, sizeof(V));
  if constexpr (kLanes<T> == 8) {
    return {__builtin_shufflevector(a, b, 0, 2, 4, 6, 8, 10, 12, 14),
            __builtin_shufflevector(a, b, 1, 3, 5, 7, 9, 11, 13, 15)};
  } else if constexpr (kLanes<T> == 4) {
    return {__builtin_shufflevector(a, b, 0, 2, 4, 6),
            __builtin_shufflevector(a, b, 1, 3, 5, 7)};
  } else {
    return {__builtin_shufflevector(a, b, 0, 2),
            __builtin_shufflevector(a, b, 1, 3)};
  }
}

template <typename T>
inline void Interleave(const CV<T>& v, T* p) {
  using V = typename CV<T>::V;
  V a, b;
  if constexpr (kLanes<T> == 8) {
    a = __builtin_shufflevector(v.re, v.im, 0, 8, 1, 9, 2, 10, 3, 11);
    b = __builtin_shufflevector(v.re, v.im, 4, 12, 5, 13, 6, 14, 7, 15);
  } else if constexpr (kLanes<T> == 4) {
    a = __builtin_shufflevector(v.re, v.im, 0, 4, 1, 5);
    b = __builtin_shufflevector(v.re, v.im, 2, 6, 3, 7);
  } else {
    a = __builtin_shufflevector(v.re, v.im, 0, 2);
    b = __builtin_shufflevector(v.re, v.im, 1, 3);
  }
  std::memcpy(p, &a, sizeof(V));
  std::memcpy(p + kLanes<T>, &b, sizeof(V));
}

// rows[i][k] <-> rows[k][i] for a W x W block.
template <typename T>
inline void Transpose(typename CV<T>::V* r) {
  using V = typename CV<T>::V;
  if constexpr (kLanes<T> == 8) {
    V t[8], u[8];
    for (int i = 0; i < 8; i += 2) {
      t[i] = __builtin_shufflevector(r[i], r[i + 1], 0, 8, 1, 9, 4, 12, 5, 13);
      t[i + 1] =
          __builtin_shufflevector(r[i], r[i + 1], 2, 10, 3, 11, 6, 14, 7, 15);
    }
    for (int i = 0; i < 8; i += 4) {
      u[i] = __builtin_shufflevector(t[i], t[i + 2], 0, 1, 8, 9, 4, 5, 12, 13);
      u[i + 1] =
          __builtin_shufflevector(t[i], t[i + 2], 2, 3, 10, 11, 6, 7, 14, 15);
      u[i + 2] =
          __builtin_shufflevector(t[i + 1], t[i + 3], 0, 1, 8, 9, 4, 5, 12, 13);
      u[i + 3] = __builtin_shufflevector(t[i + 1], t[i + 3], 2, 3, 10, 11, 6,
                                         7, 14, 15);
    }
    for (int i = 0; i < 4; ++i) {
      r[i] = __builtin_shufflevector(u[i], u[i + 4], 0, 1, 2, 3, 8, 9, 10, 11);
      r[i + 4] =
          __builtin_shufflevector(u[i], u[i + 4], 4, 5, 6, 7, 12, 13, 14, 15);
    }
  } else if constexpr (kLanes<T> == 4) {
    const V t0 = __builtin_shufflevector(r[0], r[1], 0, 4, 1, 5);
    const V t1 = __builtin_shufflevector(r[0], r[1], 2, 6, 3, 7);
    const V t2 = __builtin_shufflevector(r[2], r[3], 0, 4, 1, 5);
    const V t3 = __builtin_shufflevector(r[2], r[3], 2, 6, 3, 7);
    r[0] = __builtin_shufflevector(t0, t2, 0, 1, 4, 5);
    r[1] = __builtin_shufflevector(t0, t2, 2, 3, 6, 7);
    r[2] = __builtin_shufflevector(t1, t3, 0, 1, 4, 5);
    r[3] = __builtin_shufflevector(t1, t3, 2, 3, 6, 7);
  } else {
    const V t0 = __builtin_shufflevector(r[0], r[1], 0, 2);
    const V t1 = __builtin_shufflevector(r[0], r[1], 1, 3);
    r[0] = t0;
    r[1] = t1;
  }
}

// LoadLanes / StoreLanes for W whole contiguous lines (es == 1), W x W
// blocks at a time through registers.
template <typename T>
bool LoadRows(CV<T>* buf, int64_t n, const std::complex<T>* const* base,
              int nl, int64_t es) {
  constexpr int W = kLanes<T>;
  if (nl != W || es != 1 || n % W != 0) return false;
  using V = typename CV<T>::V;
  for (int64_t j0 = 0; j0 < n; j0 += W) {
    V re[W], im[W];
    for (int l = 0; l < W; ++l) {
      const CV<T> v = Deinterleave<T>(reinterpret_cast<const T*>(base[l] + j0));
      re[l] = v.re;
      im[l] = v.im;
    }
    Transpose<T>(re);
    Transpose<T>(im);
    for (int e = 0; e < W; ++e) buf[j0 + e] = {re[e], im[e]};
  }
  return true;
}

template <typename T>
bool StoreRows(const CV<T>* buf, int64_t n, std::complex<T>* const* base,
               int nl, int64_t es, T scale) {
  constexpr int W = kLanes<T>;
  if (nl != W || es != 1 || n % W != 0) return false;
  using V = typename CV<T>::V;
  for (int64_t j0 = 0; j0 < n; j0 += W) {
    V re[W], im[W];
    for (int e = 0; e < W; ++e) {
      re[e] = buf[j0 + e].re * scale;
      im[e] = buf[j0 + e].im * scale;
    }
    Transpose<T>(re);
    Transpose<T>(im);
    for (int l = 0; l < W; ++l) {
      Interleave<T>({re[l], im[l]}, reinterpret_cast<T*>(base[l] + j0));
    }
  }
  return true;
}

// Lines c < count, line c at p + c with element stride es, into groups of
// W lanes: group g in bufs[g] (lanes past count get zeros). Row by row over
// all groups, so each visit to a row reads count adjacent elements.
template <typename T>
void LoadConsecutive(CV<T>* const* bufs, int64_t n, const std::complex<T>* p,
                     int count, int64_t es) {
  constexpr int W = kLanes<T>;
  const int full = count / W;
  const int rest = count % W;
  for (int64_t j = 0; j < n; ++j) {
    const std::complex<T>* row = p + j * es;
    for (int g = 0; g < full; ++g) {
      bufs[g][j] = Deinterleave<T>(reinterpret_cast<const T*>(row + g * W));
    }
    if (rest != 0) {
      CV<T> v = Zero<T>();
      for (int l = 0; l < rest; ++l) {
        v.re[l] = row[full * W + l].real();
        v.im[l] = row[full * W + l].imag();
      }
      bufs[full][j] = v;
    }
  }
}

template <typename T>
void StoreConsecutive(const CV<T>* const* bufs, int64_t n, std::complex<T>* p,
                      int count, int64_t es, T scale) {
  constexpr int W = kLanes<T>;
  const int full = count / W;
  const int rest = count % W;
  for (int64_t j = 0; j < n; ++j) {
    std::complex<T>* row = p + j * es;
    for (int g = 0; g <= full; ++g) {
      if (g == full && rest == 0) break;
      CV<T> v = bufs[g][j];
      if (scale != T(1)) {
        v.re *= scale;
        v.im *= scale;
      }
      if (g < full) {
        Interleave(v, reinterpret_cast<T*>(row + g * W));
      } else {
        for (int l = 0; l < rest; ++l) {
          row[full * W + l] = std::complex<T>(v.re[l], v.im[l]);
        }
      }
    }
  }
}

// How many groups of W lines to move at once through a strided layout of
// `lines` adjacent lines: enough that each row visit covers several cache
// lines, few enough that the buffers (`per_group` CVs each) stay in L2.
template <typename T>
int BlockGroups(int64_t per_group, int64_t lines) {
  const int64_t groups = (lines + kLanes<T> - 1) / kLanes<T>;
  return static_cast<int>(std::clamp<int64_t>(
      std::min(groups, 16384 / std::max<int64_t>(per_group, 1)), 1, 16));
}

// ---------------------------------------------------------------------------
// Stockham passes.

template <typename T, bool kFwd, bool kTwiddle>
inline void Radix2Row(const CV<T>* x, CV<T>* y, int64_t sm, int64_t s,
                      T w1r, T w1i) {
  for (int64_t q = 0; q < s; ++q) {
    const CV<T> a0 = x[q], a1 = x[q + sm];
    y[q] = a0 + a1;
    if constexpr (kTwiddle) {
      y[q + s] = MulS(a0 - a1, w1r, w1i);
    } else {
      y[q + s] = a0 - a1;
    }
  }
}

template <typename T, bool kFwd>
void Radix2(const CV<T>* x, CV<T>* y, int64_t m, int64_t s, const T* twr,
            const T* twi) {
  const int64_t sm = s * m;
  Radix2Row<T, kFwd, false>(x, y, sm, s, T(1), T(0));
  for (int64_t p = 1; p < m; ++p) {
    const T wi = kFwd ? twi[p] : -twi[p];
    Radix2Row<T, kFwd, true>(x + s * p, y + 2 * s * p, sm, s, twr[p], wi);
  }
}

template <typename T, bool kFwd, bool kTwiddle>
inline void Radix4Row(const CV<T>* x, CV<T>* y, int64_t sm, int64_t s,
                      const T* wr, const T* wi) {
  for (int64_t q = 0; q < s; ++q) {
    const CV<T> a0 = x[q], a1 = x[q + sm], a2 = x[q + 2 * sm],
                a3 = x[q + 3 * sm];
    const CV<T> t0 = a0 + a2, t1 = a0 - a2, t2 = a1 + a3;
    const CV<T> t3 = RotMinusI<T, kFwd>(a1 - a3);
    y[q] = t0 + t2;
    if constexpr (kTwiddle) {
      y[q + s] = MulS(t1 + t3, wr[0], wi[0]);
      y[q + 2 * s] = MulS(t0 - t2, wr[1], wi[1]);
      y[q + 3 * s] = MulS(t1 - t3, wr[2], wi[2]);
    } else {
      y[q + s] = t1 + t3;
      y[q + 2 * s] = t0 - t2;
      y[q + 3 * s] = t1 - t3;
    }
  }
}

template <typename T, bool kFwd>
void Radix4(const CV<T>* x, CV<T>* y, int64_t m, int64_t s, const T* twr,
            const T* twi) {
  const int64_t sm = s * m;
  Radix4Row<T, kFwd, false>(x, y, sm, s, nullptr, nullptr);
  for (int64_t p = 1; p < m; ++p) {
    T wr[3], wi[3];
    for (int k = 0; k < 3; ++k) {
      wr[k] = twr[3 * p + k];
      wi[k] = kFwd ? twi[3 * p + k] : -twi[3 * p + k];
    }
    Radix4Row<T, kFwd, true>(x + s * p, y + 4 * s * p, sm, s, wr, wi);
  }
}

// Odd radix r (kR, or r at run time when kR == 0).
template <typename T, bool kFwd, int kR>
void RadixOdd(int r_runtime, const CV<T>* x, CV<T>* y, int64_t m, int64_t s,
              const T* twr, const T* twi, const T* cs, const T* sn) {
  const int r = kR != 0 ? kR : r_runtime;
  const int h = (r - 1) / 2;
  const int64_t sm = s * m;
  constexpr int kMaxH = (FftPlan<T>::kMaxRadix - 1) / 2;
  CV<T> sum[kMaxH + 1], dif[kMaxH + 1], b[2 * kMaxH + 1];
  T wr[2 * kMaxH], wi[2 * kMaxH];
  for (int64_t p = 0; p < m; ++p) {
    for (int k = 0; k < r - 1; ++k) {
      wr[k] = twr[(r - 1) * p + k];
      wi[k] = kFwd ? twi[(r - 1) * p + k] : -twi[(r - 1) * p + k];
    }
    const CV<T>* xp = x + s * p;
    CV<T>* yp = y + r * s * p;
    for (int64_t q = 0; q < s; ++q) {
      const CV<T> a0 = xp[q];
      CV<T> total = a0;
      for (int j = 1; j <= h; ++j) {
        const CV<T> aj = xp[q + j * sm], ak = xp[q + (r - j) * sm];
        sum[j] = aj + ak;
        dif[j] = aj - ak;
        total = total + sum[j];
      }
      b[0] = total;
      for (int k = 1; k <= h; ++k) {
        CV<T> re = a0, im = Zero<T>();
        for (int j = 1; j <= h; ++j) {
          const T c = cs[(j - 1) * h + (k - 1)];
          const T sv = sn[(j - 1) * h + (k - 1)];
          re.re += sum[j].re * c;
          re.im += sum[j].im * c;
          im.re += dif[j].re * sv;
          im.im += dif[j].im * sv;
        }
        // b_k = re -+ i im, b_(r-k) = re +- i im.
        const CV<T> rot = RotMinusI<T, kFwd>(im);
        b[k] = re + rot;
        b[r - k] = re - rot;
      }
      yp[q] = b[0];
      if (p == 0) {
        for (int k = 1; k < r; ++k) yp[q + k * s] = b[k];
      } else {
        for (int k = 1; k < r; ++k) {
          yp[q + k * s] = MulS(b[k], wr[k - 1], wi[k - 1]);
        }
      }
    }
  }
}

}  // namespace

template <typename T>
template <bool kFwd>
CV<T>* LanePlan<T>::RunStockham(CV<T>* data, CV<T>* work) const {
  CV<T>* x = data;
  CV<T>* y = work;
  for (const Pass& pass : passes) {
    const T* twr = tw_re.data() + pass.tw;
    const T* twi = tw_im.data() + pass.tw;
    const T* cs = odd_cos.data() + pass.consts;
    const T* sn = odd_sin.data() + pass.consts;
    switch (pass.radix) {
      case 2: Radix2<T, kFwd>(x, y, pass.m, pass.s, twr, twi); break;
      case 4: Radix4<T, kFwd>(x, y, pass.m, pass.s, twr, twi); break;
      case 3:
        RadixOdd<T, kFwd, 3>(3, x, y, pass.m, pass.s, twr, twi, cs, sn);
        break;
      case 5:
        RadixOdd<T, kFwd, 5>(5, x, y, pass.m, pass.s, twr, twi, cs, sn);
        break;
      case 7:
        RadixOdd<T, kFwd, 7>(7, x, y, pass.m, pass.s, twr, twi, cs, sn);
        break;
      default:
        RadixOdd<T, kFwd, 0>(pass.radix, x, y, pass.m, pass.s, twr, twi, cs,
                             sn);
    }
    std::swap(x, y);
  }
  return x;
}

template <typename T>
CV<T>* LanePlan<T>::RunBluestein(CV<T>* data, CV<T>* work,
                                 bool forward) const {
  const int64_t m = inner->n;
  CV<T>* a = work;
  CV<T>* other = work + m;
  for (int64_t j = 0; j < n; ++j) {
    const CV<T> x = forward ? data[j] : Conj(data[j]);
    a[j] = MulS(x, chirp_re[j], chirp_im[j]);
  }
  for (int64_t j = n; j < m; ++j) a[j] = Zero<T>();
  CV<T>* r = inner->template RunStockham<true>(a, other);
  for (int64_t k = 0; k < m; ++k) r[k] = MulS(r[k], kern_re[k], kern_im[k]);
  CV<T>* r2 = inner->template RunStockham<false>(r, r == a ? other : a);
  for (int64_t k = 0; k < n; ++k) {
    const CV<T> v = MulS(r2[k], chirp_re[k], chirp_im[k]);
    data[k] = forward ? v : Conj(v);
  }
  return data;
}

template <typename T>
CV<T>* LanePlan<T>::Run(CV<T>* data, CV<T>* work, bool forward) const {
  if (inner != nullptr) return RunBluestein(data, work, forward);
  return forward ? RunStockham<true>(data, work)
                 : RunStockham<false>(data, work);
}

namespace {

template <typename T>
std::unique_ptr<LanePlan<T>> MakeBluestein(int64_t n, int64_t m) {
  auto plan = std::make_unique<LanePlan<T>>();
  plan->n = n;
  plan->inner = MakeStockham<T>(m);
  std::vector<std::complex<double>> chirp, kernel;
  BluesteinTables(n, m, &chirp, &kernel);
  for (const auto& c : chirp) {
    plan->chirp_re.push_back(static_cast<T>(c.real()));
    plan->chirp_im.push_back(static_cast<T>(c.imag()));
  }
  for (const auto& c : kernel) {
    plan->kern_re.push_back(static_cast<T>(c.real()));
    plan->kern_im.push_back(static_cast<T>(c.imag()));
  }
  return plan;
}

void BluesteinTables(int64_t n, int64_t m,
                     std::vector<std::complex<double>>* chirp,
                     std::vector<std::complex<double>>* kernel) {
  chirp->resize(n);
  for (int64_t j = 0; j < n; ++j) {
    // exp(-pi i j^2 / n) = Root(j^2 mod 2n, 2n).
    const int64_t sq = static_cast<int64_t>(
        (static_cast<unsigned __int128>(j) * j) % (2 * n));
    (*chirp)[j] = Root(sq, 2 * n);
  }
  std::vector<std::complex<double>> b(m, 0.0);
  b[0] = std::conj((*chirp)[0]);
  for (int64_t j = 1; j < n; ++j) b[j] = b[m - j] = std::conj((*chirp)[j]);
  FftPlan<double>::Get(m)->Transform(b.data(), b.data(), 1, 1, true,
                                     1.0 / static_cast<double>(m), RunInline);
  *kernel = std::move(b);
}

// Scratch that is written before it is read: left uninitialised.
template <typename T>
class LaneBuffer {
 public:
  explicit LaneBuffer(int64_t size) : data_(new CV<T>[size]) {}
  CV<T>* data() { return data_.get(); }
  CV<T>& operator[](int64_t i) { return data_[i]; }

 private:
  std::unique_ptr<CV<T>[]> data_;
};

template <typename T>
class ComplexBuffer {
 public:
  explicit ComplexBuffer(int64_t size) : data_(new T[2 * size]) {}
  std::complex<T>* data() {
    return reinterpret_cast<std::complex<T>*>(data_.get());
  }

 private:
  std::unique_ptr<T[]> data_;
};

// Cycles one line of length n takes in the lanes (about, measured: a
// group of W lines of 256 points takes ~15 K cycles with its loads and
// stores).
template <typename T>
double LaneCost(int64_t n) {
  return 0.75 * static_cast<double>(n) *
         (std::log2(static_cast<double>(std::max<int64_t>(n, 2))) + 2);
}

}  // namespace

void RunInline(int64_t n, double /*cost*/,
               const std::function<void(int64_t, int64_t)>& fn) {
  if (n > 0) fn(0, n);
}

template <typename T>
FftPlan<T>::FftPlan(int64_t n) : n_(n) {
  if (n <= 1) {
    lanes_ = std::make_unique<LanePlan<T>>();
    return;
  }
  constexpr int W = kLanes<T>;
  if (Smooth(n, kMaxRadix)) {
    if (n <= kMaxLaneLength) lanes_ = MakeStockham<T>(n);
    // n1 <= n2, n1 the divisor of n nearest sqrt(n). Short lengths get the
    // four-step split too where it fills the lanes, for single lines.
    int64_t n1 = 1;
    for (int64_t d = 1; d * d <= n; ++d) {
      if (n % d == 0) n1 = d;
    }
    if (lanes_ != nullptr && (n < 256 || n1 < W)) return;
    n1_ = n1;
    n2_ = n / n1;
    columns_ = MakeStockham<T>(n1_);
    rows_ = MakeStockham<T>(n2_);
    twiddle_shift_ = 0;
    while ((int64_t{1} << (2 * twiddle_shift_)) < n) ++twiddle_shift_;
    const int64_t lo = int64_t{1} << twiddle_shift_;
    for (int64_t e = 0; e < lo; ++e) twiddle_lo_.push_back(Root(e, n));
    for (int64_t e = 0; e * lo < n; ++e) twiddle_hi_.push_back(Root(e * lo, n));
    for (int64_t k1 = 0; k1 < n1_; ++k1) {
      for (int l = 0; l < W; ++l) {
        const std::complex<double> w = Root(k1 * l, n);
        lane_tw_re_.push_back(static_cast<T>(w.real()));
        lane_tw_im_.push_back(static_cast<T>(w.imag()));
      }
    }
    return;
  }
  const int64_t m = BluesteinLength(n);
  if (m <= kMaxLaneLength) lanes_ = MakeBluestein<T>(n, m);
  if (lanes_ != nullptr && m < 256) return;
  // Whole lines (long ones, or single short ones through m's four-step).
  big_inner_ = FftPlan<T>::Get(m);
  std::vector<std::complex<double>> chirp, kernel;
  BluesteinTables(n, m, &chirp, &kernel);
  big_chirp_.assign(chirp.begin(), chirp.end());
  big_kernel_.assign(kernel.begin(), kernel.end());
}

template <typename T>
bool FftPlan<T>::PerLine(int64_t lines) const {
  if (lanes_ == nullptr) return true;
  if (columns_ == nullptr && big_inner_ == nullptr) return false;
  // Fewer lines than about 2/3 of the lanes: the lanes would mostly idle.
  return lines * 3 < kLanes<T> * 2;
}

template <typename T>
FftPlan<T>::~FftPlan() = default;

template <typename T>
void FftPlan<T>::Transform(const std::complex<T>* src, std::complex<T>* dst,
                           int64_t outer, int64_t inner, bool forward, T scale,
                           const ParallelRunner& run) const {
  const int64_t n = n_;
  if (outer <= 0 || inner <= 0) return;
  constexpr int W = kLanes<T>;
  if (n <= 1) {
    const int64_t total = outer * inner;
    for (int64_t i = 0; i < total; ++i) dst[i] = src[i] * scale;
    return;
  }
  if (!PerLine(outer * inner)) {
    const LanePlan<T>& plan = *lanes_;
    const int64_t work = plan.WorkSize();
    if (inner >= W) {
      // Lanes across adjacent lines of the inner dim, B groups at a time.
      const int B = BlockGroups<T>(n + work, inner);
      const int64_t span = int64_t{B} * W;
      const int64_t per_outer = (inner + span - 1) / span;
      run(outer * per_outer, LaneCost<T>(n) * span,
          [&](int64_t first, int64_t last) {
            LaneBuffer<T> buf(B * (n + work));
            CV<T>* data[16];
            const CV<T>* res[16];
            for (int64_t u = first; u < last; ++u) {
              const int64_t o = u / per_outer;
              const int64_t i = (u % per_outer) * span;
              const int count =
                  static_cast<int>(std::min<int64_t>(span, inner - i));
              const int groups = (count + W - 1) / W;
              for (int g = 0; g < groups; ++g) data[g] = &buf[g * (n + work)];
              const int64_t off = o * n * inner + i;
              LoadConsecutive(data, n, src + off, count, inner);
              for (int g = 0; g < groups; ++g) {
                res[g] = plan.Run(data[g], data[g] + n, forward);
              }
              StoreConsecutive(res, n, dst + off, count, inner, scale);
            }
          });
      return;
    }
    // Lanes across lines L = o * inner + i, wherever they are.
    const int64_t lines = outer * inner;
    run((lines + W - 1) / W, LaneCost<T>(n) * W,
        [&](int64_t first, int64_t last) {
          LaneBuffer<T> buf(n + work);
          const std::complex<T>* in_base[W];
          std::complex<T>* out_base[W];
          for (int64_t g = first; g < last; ++g) {
            const int nl =
                static_cast<int>(std::min<int64_t>(W, lines - g * W));
            for (int l = 0; l < nl; ++l) {
              const int64_t line = g * W + l;
              const int64_t off = (line / inner) * n * inner + line % inner;
              in_base[l] = src + off;
              out_base[l] = dst + off;
            }
            LoadLanes(buf.data(), n, in_base, nl, inner);
            const CV<T>* r = plan.Run(buf.data(), buf.data() + n, forward);
            StoreLanes(r, n, out_base, nl, inner, scale);
          }
        });
    return;
  }
  // Long lines, one at a time (each spread over the threads).
  std::vector<std::complex<T>> line;
  if (inner > 1) line.resize(n);
  for (int64_t o = 0; o < outer; ++o) {
    for (int64_t i = 0; i < inner; ++i) {
      const int64_t off = o * n * inner + i;
      const std::complex<T>* s = src + off;
      std::complex<T>* d = dst + off;
      if (inner > 1) {
        for (int64_t j = 0; j < n; ++j) line[j] = s[j * inner];
        s = d = line.data();
      }
      if (big_inner_ != nullptr) {
        BigBluestein(s, d, forward, scale, run);
      } else {
        FourStep(s, d, forward, scale, run);
      }
      if (inner > 1) {
        for (int64_t j = 0; j < n; ++j) dst[off + j * inner] = line[j];
      }
    }
  }
}

// x[j1 n2 + j2] -> X[k1 + n1 k2]: transforms of length n1 down the columns
// (lanes across adjacent columns), twiddles W_n^(j2 k1), each column
// stored as a row of tmp (tmp[j2 n1 + k1]); then transforms of length n2
// down tmp's columns (lanes across adjacent k1, which land in adjacent
// outputs). Both passes read and write blocks of adjacent lines, so every
// visit to a row moves several cache lines.
template <typename T>
void FftPlan<T>::FourStep(const std::complex<T>* src, std::complex<T>* dst,
                          bool forward, T scale,
                          const ParallelRunner& run) const {
  constexpr int W = kLanes<T>;
  const int64_t n = n_, n1 = n1_, n2 = n2_;
  ComplexBuffer<T> tmp(n);
  const int64_t mask = (int64_t{1} << twiddle_shift_) - 1;
  // Lane l's twiddle for row k1 of column group j2: W^(k1 j2) W^(k1 l).
  const int64_t cwork = n1 + columns_->WorkSize();
  const int B1 = BlockGroups<T>(cwork, n2);
  const int64_t span1 = int64_t{B1} * W;
  run((n2 + span1 - 1) / span1, LaneCost<T>(n1) * span1 * 1.5,
      [&](int64_t first, int64_t last) {
        LaneBuffer<T> buf(B1 * cwork);
        CV<T>* data[16];
        for (int64_t u = first; u < last; ++u) {
          const int64_t c0 = u * span1;
          const int count = static_cast<int>(std::min<int64_t>(span1, n2 - c0));
          const int groups = (count + W - 1) / W;
          for (int g = 0; g < groups; ++g) data[g] = &buf[g * cwork];
          LoadConsecutive(data, n1, src + c0, count, n2);
          for (int g = 0; g < groups; ++g) {
            CV<T>* r = columns_->Run(data[g], data[g] + n1, forward);
            const int64_t j2 = c0 + g * W;
            for (int64_t k1 = 1; k1 < n1; ++k1) {
              const int64_t e = k1 * j2;  // < n
              const std::complex<double> t =
                  twiddle_hi_[e >> twiddle_shift_] * twiddle_lo_[e & mask];
              CV<T> w;
              std::memcpy(&w.re, &lane_tw_re_[k1 * W], sizeof(w.re));
              std::memcpy(&w.im, &lane_tw_im_[k1 * W], sizeof(w.im));
              w = MulS(w, static_cast<T>(t.real()), static_cast<T>(t.imag()));
              if (!forward) w.im = -w.im;
              r[k1] = MulV(r[k1], w);
            }
            // Column j2 + l becomes row j2 + l of tmp.
            const int nl = std::min(W, count - g * W);
            std::complex<T>* rows[W];
            for (int l = 0; l < nl; ++l) rows[l] = tmp.data() + (j2 + l) * n1;
            StoreLanes(r, n1, rows, nl, 1, T(1));
          }
        }
      });
  const int64_t rwork = n2 + rows_->WorkSize();
  const int B2 = BlockGroups<T>(rwork, n1);
  const int64_t span2 = int64_t{B2} * W;
  run((n1 + span2 - 1) / span2, LaneCost<T>(n2) * span2,
      [&](int64_t first, int64_t last) {
        LaneBuffer<T> buf(B2 * rwork);
        CV<T>* data[16];
        const CV<T>* res[16];
        for (int64_t u = first; u < last; ++u) {
          const int64_t r0 = u * span2;
          const int count = static_cast<int>(std::min<int64_t>(span2, n1 - r0));
          const int groups = (count + W - 1) / W;
          for (int g = 0; g < groups; ++g) data[g] = &buf[g * rwork];
          LoadConsecutive(data, n2, tmp.data() + r0, count, n1);
          for (int g = 0; g < groups; ++g) {
            res[g] = rows_->Run(data[g], data[g] + n2, forward);
          }
          StoreConsecutive(res, n2, dst + r0, count, n1, scale);
        }
      });
}

template <typename T>
void FftPlan<T>::BigBluestein(const std::complex<T>* src, std::complex<T>* dst,
                              bool forward, T scale,
                              const ParallelRunner& run) const {
  const int64_t n = n_;
  const int64_t m = big_inner_->size();
  std::vector<std::complex<T>> a(m);
  for (int64_t j = 0; j < n; ++j) {
    const std::complex<T> x = forward ? src[j] : std::conj(src[j]);
    a[j] = x * big_chirp_[j];
  }
  big_inner_->Transform(a.data(), a.data(), 1, 1, true, T(1), run);
  for (int64_t k = 0; k < m; ++k) a[k] *= big_kernel_[k];
  big_inner_->Transform(a.data(), a.data(), 1, 1, false, T(1), run);
  for (int64_t k = 0; k < n; ++k) {
    const std::complex<T> v = a[k] * big_chirp_[k];
    dst[k] = (forward ? v : std::conj(v)) * scale;
  }
}

// ---------------------------------------------------------------------------
// Real transforms.

template <typename T>
RealFftPlan<T>::RealFftPlan(int64_t n) : n_(n) {
  if (n % 2 == 0 && n >= 2) {
    const int64_t h = n / 2;
    complex_ = FftPlan<T>::Get(h);
    for (int64_t k = 0; k <= h; ++k) {
      const std::complex<double> w = Root(k, n);
      tw_re_.push_back(static_cast<T>(w.real()));
      tw_im_.push_back(static_cast<T>(w.imag()));
    }
  } else {
    complex_ = FftPlan<T>::Get(std::max<int64_t>(n, 1));
  }
}

namespace {

// Runs fn(g, nl, buf, extra) for each group g of W rows (nl of them real),
// spread by `run`: buf has room for the plan's line and work, and `extra`
// holds extra_size more CVs.
template <typename T, typename Fn>
void ForRowGroups(const LanePlan<T>& lanes, int64_t rows, int64_t extra_size,
                  const ParallelRunner& run, Fn&& fn) {
  constexpr int W = kLanes<T>;
  const int64_t len = lanes.n;
  run((rows + W - 1) / W, LaneCost<T>(len) * W,
      [&](int64_t first, int64_t last) {
        LaneBuffer<T> buf(len + lanes.WorkSize() + extra_size);
        CV<T>* extra = buf.data() + len + lanes.WorkSize();
        for (int64_t g = first; g < last; ++g) {
          fn(g, static_cast<int>(std::min<int64_t>(W, rows - g * W)), buf,
             extra);
        }
      });
}

}  // namespace

template <typename T>
void RealFftPlan<T>::Forward(const T* src, std::complex<T>* dst, int64_t rows,
                             const ParallelRunner& run) const {
  constexpr int W = kLanes<T>;
  const int64_t n = n_;
  const int64_t half = n / 2 + 1;
  if (rows <= 0 || n <= 0) return;
  const bool even = n % 2 == 0;
  const LanePlan<T>* lanes = complex_->lanes_.get();
  if (!complex_->PerLine(rows)) {
    const int64_t len = lanes->n;  // n/2 (even n) or n
    ForRowGroups(*lanes, rows, half, run,
        [&](int64_t g, int nl, LaneBuffer<T>& buf, CV<T>* out) {
          std::complex<T>* out_base[W];
          for (int l = 0; l < nl; ++l) out_base[l] = dst + (g * W + l) * half;
          if (even) {
            const std::complex<T>* base[W];
            for (int l = 0; l < nl; ++l) {
              base[l] = reinterpret_cast<const std::complex<T>*>(
                  src + (g * W + l) * n);
            }
            LoadLanes(buf.data(), len, base, nl, 1);
            const CV<T>* z = lanes->Run(buf.data(), buf.data() + len, true);
            const int64_t h = len;
            for (int64_t k = 0; k <= h; ++k) {
              const CV<T> zk = z[k == h ? 0 : k];
              const CV<T> zc = Conj(z[k == 0 ? 0 : h - k]);
              const CV<T> e = zk + zc;
              const CV<T> d = zk - zc;
              // E = e/2, O = -i d/2; X = E + w O.
              const CV<T> o = {d.im, -d.re};
              const CV<T> x = e + MulS(o, tw_re_[k], tw_im_[k]);
              out[k] = {x.re * T(0.5), x.im * T(0.5)};
            }
          } else {
            for (int64_t j = 0; j < len; ++j) {
              CV<T> v = Zero<T>();
              for (int l = 0; l < nl; ++l) v.re[l] = src[(g * W + l) * n + j];
              buf[j] = v;
            }
            const CV<T>* z = lanes->Run(buf.data(), buf.data() + len, true);
            std::copy_n(z, half, out);
          }
          StoreLanes(out, half, out_base, nl, 1, T(1));
        });
    return;
  }
  // Long rows, one at a time.
  for (int64_t r = 0; r < rows; ++r) {
    const T* x = src + r * n;
    std::complex<T>* X = dst + r * half;
    if (even) {
      const int64_t h = n / 2;
      complex_->Transform(reinterpret_cast<const std::complex<T>*>(x), X, 1, 1,
                          true, T(1), run);
      const std::complex<T> z0 = X[0];
      X[0] = std::complex<T>(z0.real() + z0.imag(), 0);
      X[h] = std::complex<T>(z0.real() - z0.imag(), 0);
      for (int64_t k = 1; 2 * k <= h; ++k) {
        const std::complex<T> zk = X[k], zh = X[h - k];
        auto post = [&](int64_t kk, std::complex<T> a, std::complex<T> b) {
          const std::complex<T> e = a + std::conj(b);
          const std::complex<T> d = a - std::conj(b);
          const std::complex<T> o(d.imag(), -d.real());
          const std::complex<T> w(tw_re_[kk], tw_im_[kk]);
          return (e + w * o) * T(0.5);
        };
        X[k] = post(k, zk, zh);
        X[h - k] = post(h - k, zh, zk);
      }
    } else {
      std::vector<std::complex<T>> line(n);
      for (int64_t j = 0; j < n; ++j) line[j] = x[j];
      complex_->Transform(line.data(), line.data(), 1, 1, true, T(1), run);
      std::copy_n(line.data(), half, X);
    }
  }
}

template <typename T>
void RealFftPlan<T>::Inverse(const std::complex<T>* src, int64_t src_pitch,
                             T* dst, int64_t rows, T scale,
                             const ParallelRunner& run) const {
  constexpr int W = kLanes<T>;
  const int64_t n = n_;
  const int64_t half = n / 2 + 1;
  if (rows <= 0 || n <= 0) return;
  const bool even = n % 2 == 0;
  const LanePlan<T>* lanes = complex_->lanes_.get();
  if (!complex_->PerLine(rows)) {
    const int64_t len = lanes->n;  // n/2 (even n) or n
    ForRowGroups(*lanes, rows, half, run,
        [&](int64_t g, int nl, LaneBuffer<T>& buf, CV<T>* in) {
          const std::complex<T>* in_base[W];
          for (int l = 0; l < nl; ++l) {
            in_base[l] = src + (g * W + l) * src_pitch;
          }
          LoadLanes(in, half, in_base, nl, 1);
          in[0].im = typename CV<T>::V{};
          if (even) {
            const int64_t h = len;
            in[h].im = typename CV<T>::V{};
            for (int64_t k = 0; k < h; ++k) {
              const CV<T> a = in[k], b = Conj(in[h - k]);
              // Z = (a + b) + i conj(w) (a - b).
              const CV<T> d = MulS(a - b, tw_re_[k], -tw_im_[k]);
              buf[k] = (a + b) + CV<T>{-d.im, d.re};
            }
            const CV<T>* z = lanes->Run(buf.data(), buf.data() + len, false);
            std::complex<T>* out_base[W];
            for (int l = 0; l < nl; ++l) {
              out_base[l] =
                  reinterpret_cast<std::complex<T>*>(dst + (g * W + l) * n);
            }
            StoreLanes(z, h, out_base, nl, 1, scale);
          } else {
            buf[0] = in[0];
            for (int64_t k = 1; k < half; ++k) {
              buf[k] = in[k];
              buf[n - k] = Conj(in[k]);
            }
            const CV<T>* z = lanes->Run(buf.data(), buf.data() + len, false);
            for (int64_t j = 0; j < n; ++j) {
              const typename CV<T>::V v = z[j].re * scale;
              for (int l = 0; l < nl; ++l) dst[(g * W + l) * n + j] = v[l];
            }
          }
        });
    return;
  }
  for (int64_t r = 0; r < rows; ++r) {
    const std::complex<T>* X = src + r * src_pitch;
    T* x = dst + r * n;
    if (even) {
      const int64_t h = n / 2;
      std::complex<T>* z = reinterpret_cast<std::complex<T>*>(x);
      for (int64_t k = 0; k < h; ++k) {
        std::complex<T> a = X[k], b = std::conj(X[h - k]);
        if (k == 0) {
          a = std::complex<T>(a.real(), 0);
          b = std::complex<T>(b.real(), 0);
        }
        const std::complex<T> w(tw_re_[k], -tw_im_[k]);
        const std::complex<T> d = w * (a - b);
        z[k] = (a + b) + std::complex<T>(-d.imag(), d.real());
      }
      complex_->Transform(z, z, 1, 1, false, scale, run);
    } else {
      std::vector<std::complex<T>> line(n);
      line[0] = std::complex<T>(X[0].real(), 0);
      for (int64_t k = 1; k < half; ++k) {
        line[k] = X[k];
        line[n - k] = std::conj(X[k]);
      }
      complex_->Transform(line.data(), line.data(), 1, 1, false, scale, run);
      for (int64_t j = 0; j < n; ++j) x[j] = line[j].real();
    }
  }
}

// ---------------------------------------------------------------------------
// Plan caches.

namespace {

// At most kMaxPlans plans of each kind and type stay cached, holding about
// kMaxPlanBytes at most (the least recently used go first; the newest
// always stays); a plan in use stays alive through its shared_ptr.
constexpr size_t kMaxPlans = 64;
constexpr int64_t kMaxPlanBytes = int64_t{256} << 20;

// A bound on a plan's tables: Bluestein's chirp and kernel (2 m <= 5 n
// complex values) dominate; the other plans hold about n twiddles.
template <typename Plan>
int64_t PlanBytes(int64_t n) {
  return 5 * n * static_cast<int64_t>(2 * sizeof(typename Plan::Real));
}

template <typename Plan>
class PlanCache {
 public:
  std::shared_ptr<const Plan> Get(int64_t n) {
    {
      absl::MutexLock lock(&mu_);
      for (auto it = plans_.begin(); it != plans_.end(); ++it) {
        if (it->first == n) {
          plans_.splice(plans_.begin(), plans_, it);
          return plans_.front().second;
        }
      }
    }
    // Built outside the lock: a plan may ask the cache for its parts.
    auto plan = std::make_shared<const Plan>(n);
    absl::MutexLock lock(&mu_);
    for (const auto& [size, cached] : plans_) {
      if (size == n) return cached;
    }
    plans_.emplace_front(n, plan);
    bytes_ += PlanBytes<Plan>(n);
    while (plans_.size() > 1 &&
           (plans_.size() > kMaxPlans || bytes_ > kMaxPlanBytes)) {
      bytes_ -= PlanBytes<Plan>(plans_.back().first);
      plans_.pop_back();
    }
    return plan;
  }

 private:
  absl::Mutex mu_;
  std::list<std::pair<int64_t, std::shared_ptr<const Plan>>> plans_
      ABSL_GUARDED_BY(mu_);
  int64_t bytes_ ABSL_GUARDED_BY(mu_) = 0;
};

}  // namespace

template <typename T>
std::shared_ptr<const FftPlan<T>> FftPlan<T>::Get(int64_t n) {
  static PlanCache<FftPlan<T>>* cache = new PlanCache<FftPlan<T>>;
  return cache->Get(n);
}

template <typename T>
std::shared_ptr<const RealFftPlan<T>> RealFftPlan<T>::Get(int64_t n) {
  static PlanCache<RealFftPlan<T>>* cache = new PlanCache<RealFftPlan<T>>;
  return cache->Get(n);
}

template struct LanePlan<float>;
template struct LanePlan<double>;
template class FftPlan<float>;
template class FftPlan<double>;
template class RealFftPlan<float>;
template class RealFftPlan<double>;

}  // namespace fft_internal
}  // namespace dfx
