// Registration functions of the standard ops, one per family.
#ifndef DFX_GRAPH_OPS_OPS_H_
#define DFX_GRAPH_OPS_OPS_H_

#include "absl/status/status.h"
#include "graph/op_registry.h"

namespace dfx {

// Each registers its family into `registry`; an error means a malformed op
// definition in dfx itself.
absl::Status RegisterArrayOps(OpRegistry* registry);
absl::Status RegisterMathOps(OpRegistry* registry);
absl::Status RegisterNnOps(OpRegistry* registry);
absl::Status RegisterSendRecvOps(OpRegistry* registry);
// Slicing, tiling, padding, splitting: StridedSlice, Slice, Tile, Pad, ...
absl::Status RegisterArrayIndexOps(OpRegistry* registry);
// Gathers, scatters, segment sums, OneHot, Where, TopK, ArgMax, Cumsum, ...
absl::Status RegisterGatherOps(OpRegistry* registry);
// Convolutions, pooling and batch normalization, with their gradients.
absl::Status RegisterConvOps(OpRegistry* registry);
// BatchMatMul and Einsum.
absl::Status RegisterLinalgOps(OpRegistry* registry);
// Matrix band/diagonal ops, decompositions and solvers.
absl::Status RegisterMatrixOps(OpRegistry* registry);
// Lgamma, Digamma, Igamma, Igammac, Betainc, Zeta, Polygamma, Erfinv, Ndtri.
absl::Status RegisterSpecialMathOps(OpRegistry* registry);
// The misc family (graph/ops/misc_ops.h): FakeQuantWithMinMax* and
// QuantizeAndDequantizeV2/V3/V4 with gradients, Bessel functions,
// CumulativeLogsumexp, NthElement, Lu, tridiagonal ops, MatrixSquareRoot,
// CTC, StringFormat, PrintV2 and Segment*V2.
absl::Status RegisterMiscOps(OpRegistry* registry);
// Bincount, DenseBincount, Bucketize, HistogramFixedWidth, InTopKV2, Roll,
// UniqueV2, UniqueWithCounts, UniqueWithCountsV2.
absl::Status RegisterCountingOps(OpRegistry* registry);
// BitwiseAnd/Or/Xor, Invert, LeftShift, RightShift, PopulationCount,
// Bitcast, BroadcastArgs.
absl::Status RegisterBitwiseOps(OpRegistry* registry);
// Random number ops (stateful with seeds, and stateless), TensorFlow's
// Philox streams.
absl::Status RegisterRandomOps(OpRegistry* registry);
// Variables (resource and reference forms) and their update ops.
absl::Status RegisterStateOps(OpRegistry* registry);
// Optimizer updates (Apply*, ResourceApply*, their sparse forms).
absl::Status RegisterTrainingOps(OpRegistry* registry);
// Checkpoints (SaveV2, RestoreV2, MergeV2Checkpoints) and the string ops
// Saver graphs use around them (ShardedFilename, StringJoin, ...).
absl::Status RegisterIoOps(OpRegistry* registry);
// Switch, Merge, Enter, Exit, NextIteration, LoopCond, ControlTrigger.
absl::Status RegisterControlFlowOps(OpRegistry* registry);
// _Arg and _Retval: a step's feeds and fetches through a call frame.
absl::Status RegisterFunctionOps(OpRegistry* registry);
// TF1 stacks (StackV2, ...) and the TensorArrayV3 family.
absl::Status RegisterDataFlowOps(OpRegistry* registry);
// Queues (FIFOQueueV2, PaddingFIFOQueueV2 and their ops) and conditional
// accumulators (dense, sparse, resource forms).
absl::Status RegisterQueueOps(OpRegistry* registry);
// TensorList ops (EmptyTensorList, TensorListPushBack, ...) on DT_VARIANT.
absl::Status RegisterListOps(OpRegistry* registry);

// Lookup tables: HashTableV2, MutableHashTableV2, LookupTable*V2,
// InitializeTable*V2.
absl::Status RegisterLookupOps(OpRegistry* registry);
// String ops: StringLower, Substr, StringToNumber, AsString, ReduceJoin,
// StringSplitV2, RegexReplace, EncodeBase64, StringToHashBucketFast, ...
absl::Status RegisterStringOps(OpRegistry* registry);

// OptionalFromValue, OptionalNone, OptionalHasValue, OptionalGetValue.
absl::Status RegisterOptionalOps(OpRegistry* registry);

// PartitionedCall, StatefulPartitionedCall, If, Case, While and their
// stateless forms; lowered before placement, never run.
absl::Status RegisterFunctionalOps(OpRegistry* registry);

// CollectiveReduceV2, CollectiveGatherV2, CollectiveBcastSendV2/RecvV2.
absl::Status RegisterCollectiveOps(OpRegistry* registry);

// tf.data: datasets (TensorSliceDataset, MapDataset, ShuffleDatasetV3, ...),
// seed generators and iterators.
absl::Status RegisterDatasetOps(OpRegistry* registry);

// Image ops: resizing and its gradients, ScaleAndTranslate, depth/space and
// batch/space rearrangement, NonMaxSuppressionV3-V5, CropAndResize, color
// conversions and adjustments.
absl::Status RegisterImageOps(OpRegistry* registry);
// Codecs (graph/ops/codec_ops.cc): PNG, JPEG, BMP and GIF decoding and
// encoding, DecodeRaw, WAV decoding and encoding, spectrograms and MFCCs.
absl::Status RegisterCodecOps(OpRegistry* registry);
// Sparse tensors (graph/ops/sparse_ops.cc): sparse segment reductions and
// their gradients, SparseToDense, SparseTensorDenseMatMul and the other
// SparseTensor ops; tf.Example parsing (ParseExample, ParseSingleExample);
// ragged tensors (RaggedTensorToTensor, RaggedRange, RaggedTensorToSparse).
absl::Status RegisterSparseOps(OpRegistry* registry);
// 3-D convolution and pooling with their gradients, patch extraction and
// grayscale morphology (graph/ops/volumetric_ops.cc).
absl::Status RegisterVolumetricOps(OpRegistry* registry);
// Complex numbers and FFTs (graph/ops/fft_ops.cc): Complex, Real, Imag,
// ComplexAbs, Angle, Conj, and FFT/IFFT/RFFT/IRFFT in 1, 2 and 3 dims.
absl::Status RegisterFftOps(OpRegistry* registry);
// QuantizeV2 and Dequantize, ParameterizedTruncatedNormal, fractional
// pooling and its gradients, CTCBeamSearchDecoder, RandomShuffleQueueV2
// (graph/ops/nn2_ops.cc).
absl::Status RegisterNn2Ops(OpRegistry* registry);
// Text, sets and parsing: RegexFullMatch, StringSplit, StringNGrams,
// DecodeCSV, Fingerprint, tf.sets' ops, ListDiff (graph/ops/text_ops.cc).
absl::Status RegisterTextOps(OpRegistry* registry);

// Summaries, summary writers and event files, Print, Timestamp.
absl::Status RegisterSummaryOps(OpRegistry* registry);
// The tf.random.Generator ops, binomial samplers, RandomPoisson (v1),
// NonDeterministicInts (graph/ops/rng2_ops.cc).
absl::Status RegisterRng2Ops(OpRegistry* registry);
absl::Status RegisterState2Ops(OpRegistry* registry);  // graph/ops/state2_ops.cc
absl::Status RegisterSeqexOps(OpRegistry* registry);  // graph/ops/seqex_ops.cc
absl::Status RegisterImage2Ops(OpRegistry* registry);  // graph/ops/image2_ops.cc

// All of the above.
absl::Status RegisterStandardOps(OpRegistry* registry);

}  // namespace dfx

#endif  // DFX_GRAPH_OPS_OPS_H_
