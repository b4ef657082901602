// Denormal floats flushed to zero while kernels run, as TensorFlow does
// (its executor and thread pools hold port::ScopedFlushDenormal): on x86
// the FTZ and DAZ bits of MXCSR, so a kernel neither makes denormal results
// nor reads denormal inputs as anything but zero. It keeps dfx's numbers
// TensorFlow's, and a product that underflows runs at full speed instead
// of through the CPU's microcode assists (a chain of 160x160 MatMuls whose
// values underflow ran 4x slower than TensorFlow's before).
#ifndef DFX_RUNTIME_DENORMAL_H_
#define DFX_RUNTIME_DENORMAL_H_

#if defined(__SSE__) || defined(__x86_64__)
#include <xmmintrin.h>
#define DFX_HAVE_MXCSR 1
#endif

namespace dfx {

// Sets flush-to-zero and denormals-are-zero for the calling thread; the
// previous mode comes back on destruction. Cheap (two MXCSR accesses).
class ScopedFlushDenormal {
 public:
#ifdef DFX_HAVE_MXCSR
  ScopedFlushDenormal() : saved_(_mm_getcsr()) {
    _mm_setcsr(saved_ | kFlushBits);
  }
  ~ScopedFlushDenormal() { _mm_setcsr(saved_); }
#else
  ScopedFlushDenormal() = default;
#endif
  ScopedFlushDenormal(const ScopedFlushDenormal&) = delete;
  ScopedFlushDenormal& operator=(const ScopedFlushDenormal&) = delete;

 private:
#ifdef DFX_HAVE_MXCSR
  // FTZ (bit 15) and DAZ (bit 6).
  static constexpr unsigned kFlushBits = 0x8040;
  const unsigned saved_;
#endif
};

// Sets the same for the rest of the calling thread's life (thread pools'
// threads).
inline void FlushDenormalsOnThisThread() {
#ifdef DFX_HAVE_MXCSR
  _mm_setcsr(_mm_getcsr() | 0x8040);
#endif
}

}  // namespace dfx

#endif  // DFX_RUNTIME_DENORMAL_H_
