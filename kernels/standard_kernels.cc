#include "kernels/kernels.h"
#include "kernels/array/legacy_kernels.h"
#include "kernels/array/ragged2_kernels.h"

#include "kernels/collective/collective_kernels.h"
#include "kernels/data/dataset.h"
#if DFX_HAVE_CUDA
#include "gpu/kernels/gpu_kernels.h"
#endif

namespace dfx {

// kernels/readers/. Declared here rather than in kernels.h until main
// merges the readers family (a new line in kernels.h rebuilds every kernel).
void RegisterReadersKernels(KernelRegistry* registry);
void RegisterReaders2Kernels(KernelRegistry* registry);
// The fused LSTM and GRU cells (kernels/nn/rnn_kernels.cc), declared here
// for the same reason.
void RegisterRnnKernels(KernelRegistry* registry);
// TensorMap and the ragged variant kernels (kernels/map/), declared here for
// the same reason.
void RegisterTmapKernels(KernelRegistry* registry);

// tfdbg's Copy and Debug* kernels (kernels/debug/), declared here for the
// same reason.
void RegisterDebugKernels(KernelRegistry* registry);

// Switch, Merge, Enter, Exit, NextIteration, LoopCond, ControlTrigger
// (kernels/control_flow/).
void RegisterControlFlowKernels(KernelRegistry* registry);
// OptionalFromValue, OptionalNone, OptionalHasValue, OptionalGetValue
// (kernels/list/optional_kernels.cc).
void RegisterOptionalKernels(KernelRegistry* registry);
// Old names of tf.data ops, SleepDataset, SlidingWindowDataset
// (kernels/data/dataset2_kernels.cc); declared here, not in kernels.h, so
// adding them rebuilds one file.
void RegisterDataset2Kernels(KernelRegistry* registry);
// The eight-bit quantized inference kernels (kernels/quantized/); declared
// here, not in kernels.h, so adding them rebuilds one file.
void RegisterQuantizedKernels(KernelRegistry* registry);
// TensorFlow's uniform quantized kernels (kernels/quantized/uquant_kernels.cc);
// declared here for the same reason.
void RegisterUquantKernels(KernelRegistry* registry);
// The fused quantized convolutions and matmuls
// (kernels/quantized/qfused_kernels.cc).
void RegisterQfusedKernels(KernelRegistry* registry);
// _FusedConv2D and _FusedMatMul (kernels/conv/fused_conv_kernels.cc,
// kernels/nn/fused_matmul_kernels.cc).
void RegisterFusedKernels(KernelRegistry* registry);
// Session handles (kernels/state/session_handle_kernels.cc).
void RegisterSessKernels(KernelRegistry* registry);
// FixedLengthRecordDataset, the CSV datasets, MatchingFilesDataset, thread
// pools, DatasetToTFRecord (kernels/data/dataset3_kernels.cc and
// csv_dataset_kernels.cc); declared here for the same reason.
void RegisterDataset3Kernels(KernelRegistry* registry);
// tf.data's save and load (kernels/data/dataset4_kernels.cc).
void RegisterDataset4Kernels(KernelRegistry* registry);
// tf.data's pipeline assertions and fingerprint
// (kernels/data/dataset5_kernels.cc).
void RegisterDataset5Kernels(KernelRegistry* registry);
// Datasets as graphs and random access (kernels/data/dataset6_kernels.cc).
void RegisterDataset6Kernels(KernelRegistry* registry);
// The datasets and MapDefun that tf.data's optimizer emits
// (kernels/data/dataopt_kernels.cc).
void RegisterDataOptKernels(KernelRegistry* registry);
// tf.CriticalSection's MutexV2, MutexLock and ConsumeMutexLock
// (kernels/data_flow/mutex_kernels.cc); declared here for the same reason.
void RegisterMutexKernels(KernelRegistry* registry);
// DecodePaddedRaw, IsotonicRegression, ParallelConcat, StatefulStandardNormal
// v1 (kernels/array/small_kernels.cc); declared here for the same reason.
void RegisterSmallKernels(KernelRegistry* registry);

// TensorFlow's V1 checkpoint kernels Save, SaveSlices, Restore,
// RestoreSlice (kernels/io/ckptv1_kernels.cc), declared here for the same
// reason.
void RegisterCkptV1Kernels(KernelRegistry* registry);
// MutableDenseHashTable(V2) (kernels/lookup/dense_hash_table.cc) and
// InitializeTableFromDataset (table_from_dataset.cc); declared here for the
// same reason.
void RegisterDenseHashTableKernels(KernelRegistry* registry);
void RegisterTableFromDatasetKernels(KernelRegistry* registry);
// K-means clustering, GenerateVocabRemapping, SdcaFprint and SdcaShrinkL1
// (kernels/training/estimator_kernels.cc); declared here for the same
// reason.
void RegisterEstimatorKernels(KernelRegistry* registry);
// CustomAggregator, CalibrationStatisticsSaver, DumpTensor
// (kernels/quantized/calib_kernels.cc); declared here for the same reason.
void RegisterCalibKernels(KernelRegistry* registry);
// AudioMicrofrontend (kernels/audio/microfrontend_kernels.cc); declared here
// for the same reason.
void RegisterMicrofrontendKernels(KernelRegistry* registry);

// BatchFunction, Batch, Unbatch, UnbatchGrad (kernels/batching/);
// declared here for the same reason.
namespace batching {
void RegisterBatchingKernels(KernelRegistry* registry);
}

// The CSR sparse matrix kernels (sparse/csr_kernels.cc, csr_eigen_kernels.cc).
void RegisterCsrKernels(KernelRegistry* registry);
// DecodeJSONExample, DecodeProtoV2, EncodeProto (io/proto_kernels.cc).
void RegisterProtoKernels(KernelRegistry* registry);
// TensorFlow's XLA reduce and sort ops (kernels/xla/xla_reduce_*.cc).
void RegisterXla2Kernels(KernelRegistry* registry);
// The misc2 family's small kernels (kernels/misc2/misc2_kernels.cc).
void RegisterMisc2Kernels(KernelRegistry* registry);
// Conv, the fused pad/resize convolutions, ApproxTopK, RefSelect, Fact
// (kernels/conv/conv3_kernels.cc); declared here for the same reason.
void RegisterConv3Kernels(KernelRegistry* registry);
// SdcaOptimizer(V2) (kernels/training/sdca_kernels.cc).
void RegisterSdcaKernels(KernelRegistry* registry);
// SymbolicGradient's kernel, which only fails: the op is lowered, and
// the CompositeTensorVariant ops (kernels/function/graphfn_*.cc).
void RegisterGraphfnKernels(KernelRegistry* registry);
// CreateSummaryDbWriter (kernels/summary/summary_db_writer.cc).
void RegisterSummarydbKernels(KernelRegistry* registry);

// TensorFlow's RPC ops: a gRPC server of registered functions, a client,
// futures (kernels/rpc/rpc_kernels.cc).
void RegisterRpcKernels(KernelRegistry* registry);
// AnonymousRandomSeedGenerator, For's lowered pieces, FakeParam, FakeQueue,
// SleepOp, ... (kernels/misc/seedfor_kernels.cc and
// kernels/data/shuffle_kernels.cc).
void RegisterSeedforKernels(KernelRegistry* registry);
// SobolSample (kernels/random/sobol_kernels.cc).
void RegisterSobolKernels(KernelRegistry* registry);

// tf.data statistics aggregators, the statistics datasets and
// ComputeBatchSize (kernels/data/stats_kernels.cc); declared here for the
// same reason.
namespace data {
void RegisterStatsKernels(KernelRegistry* registry);
}
// ListSnapshotChunksDataset and SnapshotChunkDataset, tf.data distributed
// snapshots read back (kernels/data/distsnap_kernels.cc); declared here
// for the same reason.
namespace data {
void RegisterDistsnapKernels(KernelRegistry* registry);
}

// PyFunc, PyFuncStateless, EagerPyFunc: they fail as on a TensorFlow
// server in another process (kernels/function/pyfunc_kernels.cc).
void RegisterPyfuncKernels(KernelRegistry* registry);
// The tf.data service client (kernels/data/service/).
void RegisterDataserviceKernels(KernelRegistry* registry);

// TensorFlow's XLA array ops on CPU (kernels/xla/xla_array_*.cc).
namespace xla_array {
void RegisterXlaArrayKernels(KernelRegistry* registry);
}

void RegisterStandardKernels(KernelRegistry* registry) {
  RegisterArrayKernels(registry);
  RegisterMathKernels(registry);
  RegisterNnKernels(registry);
  RegisterFunctionKernels(registry);
  RegisterSendRecvKernels(registry);
  RegisterArrayIndexKernels(registry);
  RegisterGatherKernels(registry);
  RegisterConvKernels(registry);
  RegisterLinalgKernels(registry);
  RegisterMatrixKernels(registry);
  RegisterSpecialMathKernels(registry);
  RegisterMiscKernels(registry);
  RegisterCountingKernels(registry);
  RegisterBitwiseKernels(registry);
  RegisterRandomKernels(registry);
  RegisterIoKernels(registry);
  RegisterStateKernels(registry);
  RegisterTrainingKernels(registry);
  RegisterControlFlowKernels(registry);
  RegisterDataFlowKernels(registry);
  RegisterListKernels(registry);
  RegisterLookupKernels(registry);
  RegisterStringKernels(registry);
  RegisterSparseKernels(registry);
  RegisterOptionalKernels(registry);
  RegisterCollectiveKernels(registry);
  data::RegisterDatasetKernels(registry);
  RegisterDataset2Kernels(registry);
  RegisterDataset3Kernels(registry);
  RegisterDataset4Kernels(registry);
  RegisterDataset5Kernels(registry);
  RegisterDataset6Kernels(registry);
  RegisterDataOptKernels(registry);
  RegisterImageKernels(registry);
  RegisterVolumetricKernels(registry);
  RegisterFftKernels(registry);
  RegisterCodecKernels(registry);
  RegisterNn2Kernels(registry);
  RegisterSummaryKernels(registry);
  RegisterTextKernels(registry);
  RegisterRng2Kernels(registry);
  RegisterState2Kernels(registry);
  RegisterImage2Kernels(registry);
  RegisterRagged2Kernels(registry);
  RegisterReadersKernels(registry);
  RegisterReaders2Kernels(registry);
  RegisterLegacyKernels(registry);
  RegisterRnnKernels(registry);
  RegisterQuantizedKernels(registry);
  RegisterUquantKernels(registry);
  RegisterQfusedKernels(registry);
  RegisterFusedKernels(registry);
  RegisterSessKernels(registry);
  RegisterTmapKernels(registry);
  RegisterMutexKernels(registry);
  RegisterSmallKernels(registry);
  RegisterCkptV1Kernels(registry);
  RegisterDenseHashTableKernels(registry);
  RegisterTableFromDatasetKernels(registry);
  RegisterDebugKernels(registry);
  RegisterEstimatorKernels(registry);
  batching::RegisterBatchingKernels(registry);
  RegisterCsrKernels(registry);
  RegisterProtoKernels(registry);
  RegisterXla2Kernels(registry);
  RegisterMisc2Kernels(registry);
  RegisterConv3Kernels(registry);
  RegisterSdcaKernels(registry);
  RegisterGraphfnKernels(registry);
  RegisterSummarydbKernels(registry);
  RegisterCalibKernels(registry);
  RegisterMicrofrontendKernels(registry);
  RegisterSeedforKernels(registry);
  RegisterDataserviceKernels(registry);
  RegisterSobolKernels(registry);
  xla_array::RegisterXlaArrayKernels(registry);
  RegisterRpcKernels(registry);
  data::RegisterStatsKernels(registry);
  RegisterPyfuncKernels(registry);
  data::RegisterDistsnapKernels(registry);
  RegisterDeviceHostKernels(registry, "GPU");
#if DFX_HAVE_CUDA
  gpu::RegisterGpuKernels(registry);
#endif
}

const KernelRegistry* StandardKernelRegistry() {
  static const KernelRegistry* registry = [] {
    auto* r = new KernelRegistry;
    RegisterStandardKernels(r);
    return r;
  }();
  return registry;
}

}  // namespace dfx
