// Registration of the complex-number and FFT CPU kernels (kernels/fft/), and
// the one-dimensional transform they share.
#ifndef DFX_KERNELS_FFT_FFT_KERNELS_H_
#define DFX_KERNELS_FFT_FFT_KERNELS_H_

#include <complex>
#include <cstdint>
#include <memory>
#include <vector>

#include "runtime/op_kernel.h"

namespace dfx {

// Complex, Real, Imag, ComplexAbs, Angle, Conj; the complex kernels of the
// element-wise arithmetic; Cast to and from complex (complex_ops.cc).
void RegisterComplexKernels(KernelRegistry* registry);
// FFT, IFFT, RFFT, IRFFT in 1, 2 and 3 dimensions (fft_ops.cc).
void RegisterFftOpKernels(KernelRegistry* registry);

namespace fft_internal {

// An unnormalised discrete Fourier transform of one length n >= 1, in
// double precision: X[k] = sum_j x[j] exp(-+2 pi i jk / n), minus for
// forward. Mixed radix (Cooley-Tukey) over n's prime factors, and
// Bluestein's chirp-z through a power-of-two transform where n has a prime
// factor above kMaxDirectPrime, so any length costs O(n log n).
// Immutable after construction; Transform may run on many threads at once.
class FftPlan {
 public:
  static constexpr int64_t kMaxDirectPrime = 31;

  explicit FftPlan(int64_t n);

  int64_t size() const { return n_; }

  // data[0..n) <- its transform. `scratch` is resized as needed, so that a
  // thread can reuse one buffer for many lines.
  void Transform(std::complex<double>* data, bool forward,
                 std::vector<std::complex<double>>* scratch) const;

 private:
  // out[0..len) <- the transform of the `len` elements in[0], in[stride],
  // in[2 * stride], ...; factors_[level..] are len's prime factors.
  void Recurse(const std::complex<double>* in, int64_t stride,
               std::complex<double>* out, int64_t len, size_t level,
               bool forward) const;
  void Bluestein(std::complex<double>* data, bool forward,
                 std::vector<std::complex<double>>* scratch) const;

  int64_t n_;
  std::vector<int64_t> factors_;             // mixed radix: n's primes
  std::vector<std::complex<double>> roots_;  // exp(-2 pi i j / n), j < n
  // Bluestein: chirp_[j] = exp(-pi i j^2 / n), and the power-of-two plan
  // with the transform of the conjugate chirp's padded sequence.
  std::vector<std::complex<double>> chirp_;
  std::unique_ptr<FftPlan> pow2_;
  std::vector<std::complex<double>> chirp_fft_;
};

}  // namespace fft_internal
}  // namespace dfx

#endif  // DFX_KERNELS_FFT_FFT_KERNELS_H_
