// Registration of the standard kernels, one function per family, and the
// process-wide registry that holds them all.
#ifndef DFX_KERNELS_KERNELS_H_
#define DFX_KERNELS_KERNELS_H_

#include <string>

#include "runtime/op_kernel.h"

namespace dfx {

void RegisterArrayKernels(KernelRegistry* registry);
void RegisterMathKernels(KernelRegistry* registry);
void RegisterNnKernels(KernelRegistry* registry);
void RegisterFunctionKernels(KernelRegistry* registry);
void RegisterSendRecvKernels(KernelRegistry* registry);
void RegisterArrayIndexKernels(KernelRegistry* registry);
void RegisterGatherKernels(KernelRegistry* registry);
void RegisterConvKernels(KernelRegistry* registry);
void RegisterLinalgKernels(KernelRegistry* registry);
// Matrix band/diagonal ops, decompositions and solvers (kernels/linalg/).
void RegisterMatrixKernels(KernelRegistry* registry);
// Lgamma, Digamma, Igamma, ... (kernels/math/special_math_ops.cc).
void RegisterSpecialMathKernels(KernelRegistry* registry);
// The misc family (kernels/math/misc_kernels.h): FakeQuant*,
// QuantizeAndDequantizeV2/V3/V4, Bessel functions, CTC, StringFormat, ...
void RegisterMiscKernels(KernelRegistry* registry);
// Bincount, Bucketize, Roll, UniqueV2, ... (kernels/array/counting_ops.cc).
void RegisterCountingKernels(KernelRegistry* registry);
// Bitwise ops, shifts, PopulationCount, Bitcast, BroadcastArgs
// (kernels/math/bitwise_ops.cc).
void RegisterBitwiseKernels(KernelRegistry* registry);
void RegisterRandomKernels(KernelRegistry* registry);
// Variables: resource and reference forms.
void RegisterStateKernels(KernelRegistry* registry);
// Optimizer updates: Apply*, ResourceApply* and their sparse forms.
void RegisterTrainingKernels(KernelRegistry* registry);
// Checkpoints (SaveV2, RestoreV2, MergeV2Checkpoints) and Saver's string ops.
void RegisterIoKernels(KernelRegistry* registry);
// TF1 stacks and the TensorArrayV3 family (per step); queues and
// conditional accumulators (shared across steps).
void RegisterDataFlowKernels(KernelRegistry* registry);

// Lookup tables: HashTableV2, MutableHashTableV2 and the LookupTable*V2 and
// InitializeTable*V2 ops (kernels/lookup/).
void RegisterLookupKernels(KernelRegistry* registry);
// String ops (kernels/strings/), and Equal/NotEqual on strings.
void RegisterStringKernels(KernelRegistry* registry);

// TensorList ops, and ZerosLike and AddN on the variants holding lists.
void RegisterListKernels(KernelRegistry* registry);
// Sparse tensors, tf.Example parsing and ragged tensors (kernels/sparse/).
void RegisterSparseKernels(KernelRegistry* registry);

// Image ops (kernels/image/): resizing and its gradients,
// ScaleAndTranslate, depth/space and batch/space rearrangement,
// NonMaxSuppressionV3-V5, CropAndResize, color conversions and adjustments.
void RegisterImageKernels(KernelRegistry* registry);
// 3-D convolution and pooling with their gradients, patch extraction and
// grayscale morphology (kernels/volumetric/).
void RegisterVolumetricKernels(KernelRegistry* registry);
// Complex numbers and FFTs (kernels/fft/): Complex, Real, Imag, ComplexAbs,
// Angle, Conj, complex arithmetic and Cast, FFT/IFFT/RFFT/IRFFT 1D-3D.
void RegisterFftKernels(KernelRegistry* registry);
// Codecs (kernels/codec/): PNG, JPEG, BMP, GIF, raw bytes, WAV audio,
// spectrograms and MFCCs.
void RegisterCodecKernels(KernelRegistry* registry);
// The nn2 family (kernels/nn/nn2_kernels.h): QuantizeV2 and Dequantize,
// ParameterizedTruncatedNormal, fractional pooling, CTCBeamSearchDecoder,
// RandomShuffleQueueV2.
void RegisterNn2Kernels(KernelRegistry* registry);
// Summaries and event-file writers (kernels/summary/), Print, Timestamp.
void RegisterSummaryKernels(KernelRegistry* registry);
// The text family (kernels/text/): text, sets and parsing ops.
void RegisterTextKernels(KernelRegistry* registry);
// The rng2 family (kernels/random/rng2_kernels.h).
void RegisterRng2Kernels(KernelRegistry* registry);
void RegisterState2Kernels(KernelRegistry* registry);  // kernels/state/state2_*.cc
void RegisterImage2Kernels(KernelRegistry* registry);  // kernels/image/image2_kernels.h

// The CPU kernels that `device` (a device type whose memory the host
// cannot read: "GPU") runs as they are: shape-only ops, and int32 shape
// arithmetic on the host (kernels/array/device_host_kernels.cc).
void RegisterDeviceHostKernels(KernelRegistry* registry,
                               const std::string& device);

// All of the above.
void RegisterStandardKernels(KernelRegistry* registry);

// A process-wide registry holding every standard kernel, built on first use.
const KernelRegistry* StandardKernelRegistry();

}  // namespace dfx

#endif  // DFX_KERNELS_KERNELS_H_
