#include "base/status_macros.h"
#include "graph/ops/ops.h"
#include "graph/ops/ragged2_ops.h"

namespace dfx {

// Old names of tf.data ops and a few new datasets (dataset2_ops.cc);
// declared here, not in ops.h, so adding them rebuilds one file.
absl::Status RegisterDataset2Ops(OpRegistry* registry);
// FixedLengthRecordDataset, the CSV datasets, TFRecordDatasetV2,
// MatchingFilesDataset, thread pools, DatasetToTFRecord (dataset3_ops.cc);
// declared here for the same reason.
absl::Status RegisterDataset3Ops(OpRegistry* registry);
// tf.data's save and load (dataset4_ops.cc).
absl::Status RegisterDataset4Ops(OpRegistry* registry);
// tf.data's pipeline assertions and fingerprint (dataset5_ops.cc).
absl::Status RegisterDataset5Ops(OpRegistry* registry);
// Datasets as graphs and random access (dataset6_ops.cc).
absl::Status RegisterDataset6Ops(OpRegistry* registry);
// The ops tf.data's optimizer emits: ChooseFastestBranchDataset, MapDefun,
// WindowOp (dataopt_ops.cc).
absl::Status RegisterDataOptOps(OpRegistry* registry);
// The TF1 readers (readers_ops.cc); declared here, not in ops.h, so adding
// them rebuilds one file.
absl::Status RegisterReadersOps(OpRegistry* registry);
absl::Status RegisterReaders2Ops(OpRegistry* registry);
// Old TF1 graphs' ops (legacy_ops.cc), declared here for the same reason.
absl::Status RegisterLegacyOps(OpRegistry* registry);
// The fused LSTM and GRU cells (rnn_ops.cc), declared here for the same
// reason.
absl::Status RegisterRnnOps(OpRegistry* registry);
// The eight-bit quantized inference ops (quantized_ops.cc), declared here
// for the same reason.
absl::Status RegisterQuantizedOps(OpRegistry* registry);
// Staging areas and barriers (staging_ops.cc), declared here for the same
// reason.
absl::Status RegisterStagingOps(OpRegistry* registry);
// TensorMap and the ragged variant ops (tmap_ops.cc), declared here for the
// same reason.
absl::Status RegisterTmapOps(OpRegistry* registry);
// TensorFlow's TensorArray ops before V3 and stacks before V2
// (tarray_ops.cc), declared here for the same reason.
absl::Status RegisterTarrayOps(OpRegistry* registry);
// tf.data statistics aggregators, IteratorGetModelProto, ComputeBatchSize
// (stats_ops.cc), declared here for the same reason.
absl::Status RegisterStatsOps(OpRegistry* registry);
// tf.CriticalSection's mutex (mutex_ops.cc) and the mutex family's small
// ops (small_ops.cc), declared here for the same reason.
absl::Status RegisterMutexOps(OpRegistry* registry);
absl::Status RegisterSmallOps(OpRegistry* registry);
// TensorFlow's V1 checkpoint ops Save, SaveSlices, Restore, RestoreSlice
// (ckptv1_ops.cc), declared here for the same reason.
absl::Status RegisterCkptV1Ops(OpRegistry* registry);
// Dense hash tables, MutableHashTableOfTensors and
// InitializeTableFromDataset (dhash_ops.cc), declared here for the same
// reason.
absl::Status RegisterDhashOps(OpRegistry* registry);
// TensorFlow's uniform quantized ops (uquant_ops.cc), declared here for the
// same reason.
absl::Status RegisterUquantOps(OpRegistry* registry);
// Reading tf.data distributed snapshots (distsnap_ops.cc), declared here for
// the same reason.
absl::Status RegisterDistsnapOps(OpRegistry* registry);
// Session handles (sess_ops.cc), declared here for the same reason.
absl::Status RegisterSessOps(OpRegistry* registry);

// tfdbg's Copy and Debug* ops (debug_ops.cc), declared here for the same
// reason.
absl::Status RegisterDebugOps(OpRegistry* registry);
// The ops of TF1 estimators' clustering, warm-starting and SDCA helpers
// (estimator_ops.cc), declared here for the same reason.
absl::Status RegisterEstimatorOps(OpRegistry* registry);
// In-graph batching: BatchFunction, Batch, Unbatch, UnbatchGrad
// (batching_ops.cc), declared here for the same reason.
absl::Status RegisterBatchingOps(OpRegistry* registry);
// The CSR sparse matrix ops (csr_ops.cc), declared here for the same reason.
absl::Status RegisterCsrOps(OpRegistry* registry);
// SerializeIterator and DeserializeIterator (itckpt_ops.cc).
absl::Status RegisterItckptOps(OpRegistry* registry);
// DecodeJSONExample, DecodeProtoV2, EncodeProto (proto_ops.cc).
absl::Status RegisterProtoOps(OpRegistry* registry);
// TensorFlow's XLA reduce, sort and while ops (xla2_ops.cc).
absl::Status RegisterXla2Ops(OpRegistry* registry);
// The fused quantized convolutions and matmuls (qfused_ops.cc).
absl::Status RegisterQfusedOps(OpRegistry* registry);
// _FusedConv2D and _FusedMatMul, what TensorFlow's remapper forms
// (fused_ops.cc).
absl::Status RegisterFusedOps(OpRegistry* registry);
// The misc2 family's small ops (misc2_ops.cc).
absl::Status RegisterMisc2Ops(OpRegistry* registry);
// Conv, the fused pad/resize convolutions, ApproxTopK, RefSelect, Fact
// (conv3_ops.cc).
absl::Status RegisterConv3Ops(OpRegistry* registry);
// SdcaOptimizer and SdcaOptimizerV2 (sdca_ops.cc).
absl::Status RegisterSdcaOps(OpRegistry* registry);
// TensorFlow's XLA array ops that run on CPU (xla1_ops.cc).
absl::Status RegisterXla1Ops(OpRegistry* registry);
// The tf.data service client ops (dataservice_ops.cc).
absl::Status RegisterDataserviceOps(OpRegistry* registry);
// SymbolicGradient (graphfn_ops.cc).
absl::Status RegisterGraphfnOps(OpRegistry* registry);
// TensorFlow's RPC ops: RpcServer, RpcClient, RpcCall, ... (rpc_ops.cc).
absl::Status RegisterRpcOps(OpRegistry* registry);
// CreateSummaryDbWriter (summarydb_ops.cc).
absl::Status RegisterSummarydbOps(OpRegistry* registry);
// CustomAggregator, CalibrationStatisticsSaver, DumpTensor (calib_ops.cc).
absl::Status RegisterCalibOps(OpRegistry* registry);
// AudioMicrofrontend (audio_ops.cc).
absl::Status RegisterAudioOps(OpRegistry* registry);
// AnonymousRandomSeedGenerator, For, FakeParam, FakeQueue, SleepOp, ...
// (seedfor_ops.cc).
absl::Status RegisterSeedforOps(OpRegistry* registry);
// DecodeJxl (jxl_ops.cc).
absl::Status RegisterJxlOps(OpRegistry* registry);

// PyFunc, PyFuncStateless, EagerPyFunc (pyfunc_ops.cc).
absl::Status RegisterPyfuncOps(OpRegistry* registry);
// SobolSample (sobol_ops.cc).
absl::Status RegisterSobolOps(OpRegistry* registry);

absl::Status RegisterStandardOps(OpRegistry* registry) {
  DFX_RETURN_IF_ERROR(RegisterArrayOps(registry));
  DFX_RETURN_IF_ERROR(RegisterMathOps(registry));
  DFX_RETURN_IF_ERROR(RegisterNnOps(registry));
  DFX_RETURN_IF_ERROR(RegisterSendRecvOps(registry));
  DFX_RETURN_IF_ERROR(RegisterArrayIndexOps(registry));
  DFX_RETURN_IF_ERROR(RegisterGatherOps(registry));
  DFX_RETURN_IF_ERROR(RegisterConvOps(registry));
  DFX_RETURN_IF_ERROR(RegisterLinalgOps(registry));
  DFX_RETURN_IF_ERROR(RegisterMatrixOps(registry));
  DFX_RETURN_IF_ERROR(RegisterSpecialMathOps(registry));
  DFX_RETURN_IF_ERROR(RegisterMiscOps(registry));
  DFX_RETURN_IF_ERROR(RegisterCountingOps(registry));
  DFX_RETURN_IF_ERROR(RegisterBitwiseOps(registry));
  DFX_RETURN_IF_ERROR(RegisterRandomOps(registry));
  DFX_RETURN_IF_ERROR(RegisterFunctionOps(registry));
  DFX_RETURN_IF_ERROR(RegisterControlFlowOps(registry));
  DFX_RETURN_IF_ERROR(RegisterFunctionalOps(registry));
  DFX_RETURN_IF_ERROR(RegisterIoOps(registry));
  DFX_RETURN_IF_ERROR(RegisterStateOps(registry));
  DFX_RETURN_IF_ERROR(RegisterTrainingOps(registry));
  DFX_RETURN_IF_ERROR(RegisterDataFlowOps(registry));
  DFX_RETURN_IF_ERROR(RegisterQueueOps(registry));
  DFX_RETURN_IF_ERROR(RegisterListOps(registry));
  DFX_RETURN_IF_ERROR(RegisterLookupOps(registry));
  DFX_RETURN_IF_ERROR(RegisterStringOps(registry));
  DFX_RETURN_IF_ERROR(RegisterOptionalOps(registry));
  DFX_RETURN_IF_ERROR(RegisterCollectiveOps(registry));
  DFX_RETURN_IF_ERROR(RegisterDatasetOps(registry));
  DFX_RETURN_IF_ERROR(RegisterDataset2Ops(registry));
  DFX_RETURN_IF_ERROR(RegisterDataset3Ops(registry));
  DFX_RETURN_IF_ERROR(RegisterDataset4Ops(registry));
  DFX_RETURN_IF_ERROR(RegisterDataset5Ops(registry));
  DFX_RETURN_IF_ERROR(RegisterDataset6Ops(registry));
  DFX_RETURN_IF_ERROR(RegisterDataOptOps(registry));
  DFX_RETURN_IF_ERROR(RegisterImageOps(registry));
  DFX_RETURN_IF_ERROR(RegisterCodecOps(registry));
  DFX_RETURN_IF_ERROR(RegisterSparseOps(registry));
  DFX_RETURN_IF_ERROR(RegisterVolumetricOps(registry));
  DFX_RETURN_IF_ERROR(RegisterFftOps(registry));
  DFX_RETURN_IF_ERROR(RegisterNn2Ops(registry));
  DFX_RETURN_IF_ERROR(RegisterSummaryOps(registry));
  DFX_RETURN_IF_ERROR(RegisterTextOps(registry));
  DFX_RETURN_IF_ERROR(RegisterRng2Ops(registry));
  DFX_RETURN_IF_ERROR(RegisterState2Ops(registry));
  DFX_RETURN_IF_ERROR(RegisterSeqexOps(registry));
  DFX_RETURN_IF_ERROR(RegisterImage2Ops(registry));
  DFX_RETURN_IF_ERROR(RegisterRagged2Ops(registry));
  DFX_RETURN_IF_ERROR(RegisterReadersOps(registry));
  DFX_RETURN_IF_ERROR(RegisterReaders2Ops(registry));
  DFX_RETURN_IF_ERROR(RegisterLegacyOps(registry));
  DFX_RETURN_IF_ERROR(RegisterRnnOps(registry));
  DFX_RETURN_IF_ERROR(RegisterQuantizedOps(registry));
  DFX_RETURN_IF_ERROR(RegisterStagingOps(registry));
  DFX_RETURN_IF_ERROR(RegisterTmapOps(registry));
  DFX_RETURN_IF_ERROR(RegisterTarrayOps(registry));
  DFX_RETURN_IF_ERROR(RegisterMutexOps(registry));
  DFX_RETURN_IF_ERROR(RegisterSmallOps(registry));
  DFX_RETURN_IF_ERROR(RegisterCkptV1Ops(registry));
  DFX_RETURN_IF_ERROR(RegisterDhashOps(registry));
  DFX_RETURN_IF_ERROR(RegisterUquantOps(registry));
  DFX_RETURN_IF_ERROR(RegisterSessOps(registry));
  DFX_RETURN_IF_ERROR(RegisterDebugOps(registry));
  DFX_RETURN_IF_ERROR(RegisterEstimatorOps(registry));
  DFX_RETURN_IF_ERROR(RegisterBatchingOps(registry));
  DFX_RETURN_IF_ERROR(RegisterCsrOps(registry));
  DFX_RETURN_IF_ERROR(RegisterXla2Ops(registry));
  DFX_RETURN_IF_ERROR(RegisterItckptOps(registry));
  DFX_RETURN_IF_ERROR(RegisterProtoOps(registry));
  DFX_RETURN_IF_ERROR(RegisterQfusedOps(registry));
  DFX_RETURN_IF_ERROR(RegisterFusedOps(registry));
  DFX_RETURN_IF_ERROR(RegisterMisc2Ops(registry));
  DFX_RETURN_IF_ERROR(RegisterConv3Ops(registry));
  DFX_RETURN_IF_ERROR(RegisterSdcaOps(registry));
  DFX_RETURN_IF_ERROR(RegisterStatsOps(registry));
  DFX_RETURN_IF_ERROR(RegisterDataserviceOps(registry));
  DFX_RETURN_IF_ERROR(RegisterXla1Ops(registry));
  DFX_RETURN_IF_ERROR(RegisterGraphfnOps(registry));
  DFX_RETURN_IF_ERROR(RegisterRpcOps(registry));
  DFX_RETURN_IF_ERROR(RegisterSummarydbOps(registry));
  DFX_RETURN_IF_ERROR(RegisterCalibOps(registry));
  DFX_RETURN_IF_ERROR(RegisterAudioOps(registry));
  DFX_RETURN_IF_ERROR(RegisterSeedforOps(registry));
  DFX_RETURN_IF_ERROR(RegisterPyfuncOps(registry));
  DFX_RETURN_IF_ERROR(RegisterJxlOps(registry));
  DFX_RETURN_IF_ERROR(RegisterDistsnapOps(registry));
  DFX_RETURN_IF_ERROR(RegisterSobolOps(registry));
  return absl::OkStatus();
}

}  // namespace dfx
