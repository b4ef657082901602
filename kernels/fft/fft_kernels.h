// Registration of the complex-number and FFT CPU kernels (kernels/fft/).
#ifndef DFX_KERNELS_FFT_FFT_KERNELS_H_
#define DFX_KERNELS_FFT_FFT_KERNELS_H_

#include "runtime/op_kernel.h"

namespace dfx {

// Complex, Real, Imag, ComplexAbs, Angle, Conj; the complex kernels of the
// element-wise arithmetic; Cast to and from complex (complex_ops.cc).
void RegisterComplexKernels(KernelRegistry* registry);
// FFT, IFFT, RFFT, IRFFT in 1, 2 and 3 dimensions (fft_ops.cc).
void RegisterFftOpKernels(KernelRegistry* registry);

}  // namespace dfx

#endif  // DFX_KERNELS_FFT_FFT_KERNELS_H_
