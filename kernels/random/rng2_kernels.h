// The rng2 family's kernels: the generator ops on an RNG state variable
// (kernels/random/rng_state_kernels.cc), the binomial samplers
// and StatelessParameterizedTruncatedNormal
// (kernels/random/binomial_kernels.cc) and the candidate samplers
// (kernels/random/candidate_sampler_kernels.cc). RegisterRng2Kernels
// (kernels/kernels.h, in rng_state_kernels.cc) registers them all.
#ifndef DFX_KERNELS_RANDOM_RNG2_KERNELS_H_
#define DFX_KERNELS_RANDOM_RNG2_KERNELS_H_

#include <array>
#include <cstdint>

#include "absl/status/statusor.h"
#include "kernels/random/philox.h"
#include "runtime/op_kernel.h"

namespace dfx::random {

// The generator of the state variable named by the handle at input 0, as
// it is now, after advancing the variable's counter by 256 * `outputs`
// blocks (TensorFlow's UpdateMemWithPhiloxRandom; `outputs` is taken modulo
// 2^64). The state is an int64 vector: counter low and high words, then the
// key. `alg` is the op's algorithm: Philox (1) and auto-select (3) run,
// ThreeFry (2) is Unimplemented as on TensorFlow's CPU, another id
// InvalidArgument "Unsupported algorithm id: N". InvalidArgument for a
// state of another dtype, rank or a size under 3; FailedPrecondition when
// the variable does not exist. `philox_only` is StatefulRandomBinomial's
// form: auto-select refused, the size error worded as there, and the state
// left as it was when its buffer is shared (TensorFlow's update goes to the
// buffer it copied from then).
absl::StatusOr<Philox> AdvanceStateVariable(OpKernelContext* ctx, int64_t alg,
                                            uint64_t outputs,
                                            bool philox_only = false);

// One batch of ParameterizedTruncatedNormal's samples, TensorFlow's
// rejection samplers (kernels/random/parameterized_truncated_normal_op.cc):
// samples [first, limit) of N(mean, stddev) truncated to [minval, maxval],
// sample i written to out[i * stride], drawn from `gen` in order.
// InvalidArgument "Invalid parameters" for stddev <= 0, minval >= maxval or
// both bounds infinite; Internal when a sampler gives up.
absl::Status SampleTruncatedNormalBatch(Eigen::half mean, Eigen::half stddev,
                                        Eigen::half minval, Eigen::half maxval,
                                        Philox* gen, int64_t first,
                                        int64_t limit, int64_t stride,
                                        Eigen::half* out);
absl::Status SampleTruncatedNormalBatch(float mean, float stddev, float minval,
                                        float maxval, Philox* gen,
                                        int64_t first, int64_t limit,
                                        int64_t stride, float* out);
absl::Status SampleTruncatedNormalBatch(double mean, double stddev,
                                        double minval, double maxval,
                                        Philox* gen, int64_t first,
                                        int64_t limit, int64_t stride,
                                        double* out);

// StatefulRandomBinomial, StatelessRandomBinomial and
// StatelessParameterizedTruncatedNormal.
void RegisterBinomialKernels(KernelRegistry* registry);
// The candidate samplers and ComputeAccidentalHits
// (kernels/random/candidate_sampler_kernels.cc).
void RegisterCandidateSamplerKernels(KernelRegistry* registry);
// SampleDistortedBoundingBox, its V2 and its stateless form
// (kernels/image/sample_distorted_bounding_box_ops.cc).
void RegisterSampleDistortedBoundingBoxKernels(KernelRegistry* registry);
// TensorFlow's random_index_shuffle: the image of `index` under the
// permutation of [0, max_index] that `key` and `rounds` (even, >= 4) pick
// (kernels/random/shuffle_kernels.cc; GlobalShuffleDataset's too).
uint64_t IndexShuffle(uint64_t index, const std::array<uint32_t, 3>& key,
                      uint64_t max_index, int rounds);
// StatelessShuffle and RandomIndexShuffle
// (kernels/random/shuffle_kernels.cc).
void RegisterShuffleKernels(KernelRegistry* registry);

}  // namespace dfx::random

#endif  // DFX_KERNELS_RANDOM_RNG2_KERNELS_H_
