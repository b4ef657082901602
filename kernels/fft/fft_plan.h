// Fast Fourier transforms of any length for the FFT kernels: complex
// transforms along one axis of a [outer, n, inner] array, and real-to-
// complex / complex-to-real transforms of contiguous rows, in float or
// double, from plans cached per (length, type).
#ifndef DFX_KERNELS_FFT_FFT_PLAN_H_
#define DFX_KERNELS_FFT_FFT_PLAN_H_

#include <complex>
#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

namespace dfx {
namespace fft_internal {

// Runs fn(first, last) over disjoint ranges covering [0, n), possibly in
// parallel, and returns when all are done. `cost` is the estimated number
// of cycles one unit takes (it sizes the blocks). The kernels pass one
// that runs on the device's intra-op pool.
using ParallelRunner = std::function<void(
    int64_t n, double cost, const std::function<void(int64_t, int64_t)>& fn)>;

// Runs everything inline on the calling thread.
void RunInline(int64_t n, double cost,
               const std::function<void(int64_t, int64_t)>& fn);

template <typename T>
struct LanePlan;

// The unnormalised discrete Fourier transform of length n >= 1:
// X[k] = sum_j x[j] exp(-+2 pi i jk / n), minus for forward.
//
// Lengths whose prime factors are at most kMaxRadix run mixed-radix
// Stockham passes (radix 4, 2, 3, 5, 7 and a generic odd radix); others go
// through Bluestein's chirp-z transform with a smooth length m >= 2n - 1,
// so every length costs O(n log n). Several lines are transformed at once,
// one per SIMD lane; a long transform splits into n1 x n2 (the four-step
// algorithm) so each part fits the cache and the parts spread over threads.
//
// Immutable after construction; any number of threads may use one plan.
template <typename T>
class FftPlan {
 public:
  using Real = T;
  static constexpr int64_t kMaxRadix = 31;

  explicit FftPlan(int64_t n);
  ~FftPlan();
  FftPlan(const FftPlan&) = delete;
  FftPlan& operator=(const FftPlan&) = delete;

  // The plan for length n from a process-wide cache (thread-safe, bounded
  // to 64 plans and about 256 MB of tables per type: the least recently
  // used plans are dropped).
  static std::shared_ptr<const FftPlan<T>> Get(int64_t n);

  int64_t size() const { return n_; }

  // Transforms the array src of shape [outer, n, inner] (row-major) along
  // its middle axis into dst (same shape), multiplying by `scale`. dst may
  // equal src; otherwise they must not overlap.
  void Transform(const std::complex<T>* src, std::complex<T>* dst,
                 int64_t outer, int64_t inner, bool forward, T scale,
                 const ParallelRunner& run) const;

 private:
  template <typename U>
  friend class RealFftPlan;

  // Whether `lines` lines go one at a time (FourStep or BigBluestein)
  // rather than through the lanes.
  bool PerLine(int64_t lines) const;
  // One contiguous line; dst may equal src.
  void FourStep(const std::complex<T>* src, std::complex<T>* dst,
                bool forward, T scale, const ParallelRunner& run) const;
  void BigBluestein(const std::complex<T>* src, std::complex<T>* dst,
                    bool forward, T scale, const ParallelRunner& run) const;

  const int64_t n_;
  // Set where one line fits the lanes' buffers (a short length, or a
  // Bluestein transform whose smooth length is short).
  std::unique_ptr<LanePlan<T>> lanes_;
  // Four-step (long smooth lengths): n = n1 * n2; columns of length n1,
  // twiddles, rows of length n2. twiddle_(e) = exp(-2 pi i e / n) from two
  // tables of about sqrt(n) entries each.
  int64_t n1_ = 0, n2_ = 0;
  std::unique_ptr<LanePlan<T>> columns_, rows_;
  int twiddle_shift_ = 0;
  std::vector<std::complex<double>> twiddle_lo_, twiddle_hi_;
  // exp(-2 pi i k1 l / n) for k1 < n1 and each SIMD lane l.
  std::vector<T> lane_tw_re_, lane_tw_im_;
  // Bluestein for long lengths with a large prime factor: the smooth plan
  // of length m, the chirp exp(-pi i j^2 / n) and the transform of the
  // convolution kernel (scaled by 1/m).
  std::shared_ptr<const FftPlan<T>> big_inner_;
  std::vector<std::complex<T>> big_chirp_, big_kernel_;
};

// Real transforms of length n >= 1 over contiguous rows: forward real-to-
// complex keeps frequencies 0..n/2; inverse complex-to-real reads them and
// ignores the imaginary parts of frequency 0 and (even n) n/2, as if the
// spectrum were completed to a Hermitian one. Even lengths run a complex
// transform of n/2 points and one pass over the result.
// Immutable after construction; thread-safe.
template <typename T>
class RealFftPlan {
 public:
  using Real = T;
  explicit RealFftPlan(int64_t n);

  static std::shared_ptr<const RealFftPlan<T>> Get(int64_t n);

  int64_t size() const { return n_; }

  // dst[r * (n/2+1) + k] <- forward transform of src[r * n .. r * n + n).
  void Forward(const T* src, std::complex<T>* dst, int64_t rows,
               const ParallelRunner& run) const;
  // dst[r * n + j] <- scale * inverse transform of
  // src[r * src_pitch .. + n/2 + 1). REQUIRES: src_pitch >= n/2 + 1.
  void Inverse(const std::complex<T>* src, int64_t src_pitch, T* dst,
               int64_t rows, T scale, const ParallelRunner& run) const;

 private:
  const int64_t n_;
  // n/2 for even n, else n.
  std::shared_ptr<const FftPlan<T>> complex_;
  // exp(-2 pi i k / n), k <= n/2 (even n).
  std::vector<T> tw_re_, tw_im_;
};

extern template class FftPlan<float>;
extern template class FftPlan<double>;
extern template class RealFftPlan<float>;
extern template class RealFftPlan<double>;

}  // namespace fft_internal
}  // namespace dfx

#endif  // DFX_KERNELS_FFT_FFT_PLAN_H_
