// What the random kernels share: reading shape and seed tensors as
// TensorFlow does, the guarded generator of a stateful op, and the parallel
// fills of an output tensor from a Philox stream.
#ifndef DFX_KERNELS_RANDOM_RANDOM_UTIL_H_
#define DFX_KERNELS_RANDOM_RANDOM_UTIL_H_

#include <cstdint>

#include "absl/base/thread_annotations.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "kernels/random/philox.h"
#include "runtime/device.h"
#include "runtime/op_kernel.h"
#include "runtime/tensor.h"

namespace dfx::random {

// TensorFlow's algorithm ids (the `alg` input of the V2 stateless ops).
inline constexpr int kAlgPhilox = 1;
inline constexpr int kAlgThreeFry = 2;
inline constexpr int kAlgAutoSelect = 3;

// TensorFlow reserves this many 128-bit blocks per output value of a
// stateful op, so that variable-cost distributions never overlap the next
// call's stream.
inline constexpr uint64_t kReservedBlocksPerOutput = 256;

// The shape named by a 1-D int32 or int64 tensor. InvalidArgument "shape
// must be a vector of {int32,int64}, got shape [..]" for another rank,
// "Dimension -1 must be >= 0" for a negative dim, or an overflow error.
absl::StatusOr<TensorShape> ShapeFromTensor(const Tensor& shape);

// TensorFlow's key/counter derivation from a seed tensor of shape [2]
// (int32 or int64): the two seeds are scrambled through one Philox round
// trip so that neither half needs to be strong. InvalidArgument "seed must
// have shape [2], not .." or "Invalid seed type: .." otherwise.
absl::StatusOr<Philox> PhiloxFromSeedTensor(const Tensor& seed);

// The bounds of the uniform-int ops: minval and maxval int32 or int64
// scalars with minval < maxval. InvalidArgument "minval must be 0-D, got
// shape .." (or maxval) or "Need minval < maxval, got lo >= hi".
absl::Status ReadIntBounds(const Tensor& minval, const Tensor& maxval,
                           int64_t* lo, int64_t* hi);

// The Philox generator of a V2 stateless op from its key, counter and alg
// inputs (inputs 1, 2 and 3 of `ctx`), with TensorFlow's checks and
// messages. Only Philox (1) and auto-select (3, which is Philox on CPU) run;
// other ids are InvalidArgument "Unsupported algorithm id: N", reported
// after the shape checks as TensorFlow does (see UnsupportedAlg()).
struct KeyCounterAlg {
  Philox gen;
  int alg = kAlgPhilox;
};
absl::StatusOr<KeyCounterAlg> KeyCounterAlgFromInputs(
    const OpKernelContext& ctx);
absl::Status UnsupportedAlg(int alg);

// The generator of a stateful op. Its state advances on every call, under a
// mutex: a kernel is shared by concurrent steps. Thread-safe.
class GuardedPhilox {
 public:
  // Seeds from the node's `seed` and `seed2` attrs; both 0 means fresh
  // random seeds (TensorFlow's "nondeterministic" convention).
  absl::Status Init(const OpKernelConstruction& ctx);

  // The generator as it is now; advances the kept one by `blocks`.
  Philox Reserve(uint64_t blocks) ABSL_LOCKS_EXCLUDED(mu_);
  // Reserve() for `outputs` values of a fill (kReservedBlocksPerOutput each).
  Philox ReserveForOutputs(int64_t outputs) {
    return Reserve(static_cast<uint64_t>(outputs) * kReservedBlocksPerOutput);
  }
  // Reserve() for `words` 32-bit words, rounded up to whole blocks.
  Philox ReserveWords(int64_t words) {
    return Reserve((static_cast<uint64_t>(words) + 3) / 4);
  }

 private:
  absl::Mutex mu_;
  Philox gen_ ABSL_GUARDED_BY(mu_);
};

// The distributions of the float ops.
enum class FloatDist { kUniform, kNormal, kTruncatedNormal };

// Fills `out` (float, double, half or bfloat16) from `gen` with `dist`,
// split over the device's intra-op pool in whole groups so that the values
// do not depend on the number of threads. REQUIRES: a float dtype.
void FillFloat(const Device& device, FloatDist dist, const Philox& gen,
               Tensor* out);

// Fills `out` (int32 or int64) with lo + (bits % (hi - lo)).
// REQUIRES: lo < hi, out->dtype() int32 or int64.
void FillUniformInt(const Device& device, const Philox& gen, int64_t lo,
                    int64_t hi, Tensor* out);

// Fills `out` (int32, int64, uint32 or uint64) with raw bits.
void FillFullInt(const Device& device, const Philox& gen, Tensor* out);

// Checks the inputs of Multinomial and StatelessMultinomial (logits a
// matrix with classes > 0, num_samples a non-negative scalar; TensorFlow's
// messages) and allocates output 0, [batch, num_samples]. Returns the output,
// or null when it is empty and so already complete.
absl::StatusOr<Tensor*> PrepareMultinomialOutput(OpKernelContext* ctx,
                                                 int64_t* num_samples);

// Draws `num_samples` class indices per row of `logits` (a [batch, classes]
// matrix of half, bfloat16, float or double) into `out` ([batch,
// num_samples], int32 or int64), as TensorFlow's CPU Multinomial does: each
// sample takes two words of `gen` (a uniform double), row b starting at word
// 2 * num_samples * b, and picks the first class whose running sum of
// exp(logit - max) exceeds it (non-finite logits add nothing). TensorFlow's
// own result is the same when it runs the rows in one shard (small inputs);
// dfx's is the same for any thread count.
// REQUIRES: classes > 0, num_samples >= 0, shapes as above.
void SampleMultinomial(const Device& device, const Tensor& logits,
                       int64_t num_samples, const Philox& gen, Tensor* out);

// Sets output 0 of `ctx` to `input` with its rows (dim 0) permuted as
// TensorFlow's RandomShuffle permutes them: a Fisher-Yates variant reading
// exactly size - 1 words of `gen` (word i picks i + w % (size - i)).
// REQUIRES: input.dim_size(0) > 1.
absl::Status ShuffleRows(OpKernelContext* ctx, const Tensor& input,
                         Philox gen);

// The two halves of RegisterRandomKernels (kernels/kernels.h).
void RegisterStatefulRandomKernels(KernelRegistry* registry);
void RegisterStatelessRandomKernels(KernelRegistry* registry);

}  // namespace dfx::random

#endif  // DFX_KERNELS_RANDOM_RANDOM_UTIL_H_
