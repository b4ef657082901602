// tf.data ops under their older names (the Experimental* ops of TF 1.x,
// the v1 forms of batch, padded batch, parallel map and parallel
// interleave, the v1 iterators) and the datasets added with them
// (SlidingWindowDataset, SleepDataset, the statistics pass-throughs). Each
// OpDef is TensorFlow 2.21's; an old name runs the kernel of the current
// name (kernels/data/), the new ones are in kernels/data/dataset2_kernels.cc.
#include <initializer_list>

#include "base/status_macros.h"
#include "graph/ops/ops.h"

namespace dfx {
namespace {

// One dataset op: its inputs and attrs in OpDef order; outputs a scalar
// variant unless `output` says otherwise.
struct DatasetOpSpec {
  const char* name;
  std::initializer_list<const char*> inputs;
  std::initializer_list<const char*> attrs;
  bool stateful = false;
  const char* output = "handle: variant";
};

constexpr char kTypes[] = "output_types: list(type) >= 1";
constexpr char kShapes[] = "output_shapes: list(shape) >= 1";
constexpr char kMetadata[] = "metadata: string = ''";
constexpr char kTargs[] = "Targuments: list(type) >= 0";

absl::Status RegisterSpec(OpRegistry* r, const DatasetOpSpec& spec) {
  OpDefBuilder b(spec.name);
  for (const char* in : spec.inputs) b.Input(in);
  b.Output(spec.output);
  for (const char* attr : spec.attrs) b.Attr(attr);
  if (spec.stateful) b.SetIsStateful();
  b.SetShapeFn(shape_fn::Scalar);
  return r->Register(b);
}

}  // namespace

absl::Status RegisterDataset2Ops(OpRegistry* r) {
  const DatasetOpSpec specs[] = {
      // --- Experimental* names of datasets dfx has under the new name.
      {"ExperimentalMapAndBatchDataset",
       {"input_dataset: variant", "other_arguments: Targuments",
        "batch_size: int64", "num_parallel_calls: int64",
        "drop_remainder: bool"},
       {"f: func", kTargs, kTypes, kShapes,
        "preserve_cardinality: bool = false"}},
      {"ExperimentalScanDataset",
       {"input_dataset: variant", "initial_state: Tstate",
        "other_arguments: Targuments"},
       {"f: func", "Tstate: list(type) >= 1", kTargs, kTypes, kShapes,
        "preserve_cardinality: bool = false"}},
      {"ExperimentalUnbatchDataset", {"input_dataset: variant"},
       {kTypes, kShapes}},
      {"ExperimentalUniqueDataset", {"input_dataset: variant"},
       {kTypes, kShapes}},
      {"ExperimentalTakeWhileDataset",
       {"input_dataset: variant", "other_arguments: Targuments"},
       {"predicate: func", kTargs, kTypes, kShapes}},
      {"ExperimentalRebatchDataset",
       {"input_dataset: variant", "num_replicas: int64"},
       {kTypes, kShapes, "use_fallback: bool = true"}},
      {"ExperimentalRandomDataset",
       {"seed: int64", "seed2: int64"},
       {kTypes, kShapes},
       /*stateful=*/true},
      {"ExperimentalGroupByWindowDataset",
       {"input_dataset: variant",
        "key_func_other_arguments: Tkey_func_other_arguments",
        "reduce_func_other_arguments: Treduce_func_other_arguments",
        "window_size_func_other_arguments: "
        "Twindow_size_func_other_arguments"},
       {"key_func: func", "reduce_func: func", "window_size_func: func",
        "Tkey_func_other_arguments: list(type) >= 0",
        "Treduce_func_other_arguments: list(type) >= 0",
        "Twindow_size_func_other_arguments: list(type) >= 0", kTypes,
        kShapes}},
      {"ExperimentalIgnoreErrorsDataset", {"input_dataset: variant"},
       {kTypes, kShapes, "log_warning: bool = false"}},
      {"ExperimentalDenseToSparseBatchDataset",
       {"input_dataset: variant", "batch_size: int64", "row_shape: int64"},
       {kTypes, kShapes}},
      {"ExperimentalDirectedInterleaveDataset",
       {"selector_input_dataset: variant", "data_input_datasets: N * variant"},
       {kTypes, kShapes, "N: int >= 1"}},
      {"ExperimentalParallelInterleaveDataset",
       {"input_dataset: variant", "other_arguments: Targuments",
        "cycle_length: int64", "block_length: int64", "sloppy: bool",
        "buffer_output_elements: int64", "prefetch_input_elements: int64"},
       {"f: func", kTargs, kTypes, kShapes}},
      {"ExperimentalDatasetCardinality",
       {"input_dataset: variant"},
       {},
       false,
       "cardinality: int64"},
      {"ExperimentalMapDataset",
       {"input_dataset: variant", "other_arguments: Targuments"},
       {"f: func", kTargs, kTypes, kShapes,
        "use_inter_op_parallelism: bool = true",
        "preserve_cardinality: bool = false",
        "force_synchronous: bool = false"}},
      {"ExperimentalMaxIntraOpParallelismDataset",
       {"input_dataset: variant", "max_intra_op_parallelism: int64"},
       {kTypes, kShapes}},
      {"ExperimentalPrivateThreadPoolDataset",
       {"input_dataset: variant", "num_threads: int64"},
       {kTypes, kShapes}},

      // --- v1 forms of batch, padded batch, parallel map and interleave.
      {"BatchDataset",
       {"input_dataset: variant", "batch_size: int64"},
       {kTypes, kShapes, kMetadata}},
      {"PaddedBatchDataset",
       {"input_dataset: variant", "batch_size: int64",
        "padded_shapes: N * int64", "padding_values: Toutput_types"},
       {"Toutput_types: list(type) >= 1", kShapes, "N: int >= 1",
        kMetadata}},
      {"ParallelMapDataset",
       {"input_dataset: variant", "other_arguments: Targuments",
        "num_parallel_calls: int32"},
       {"f: func", kTargs, kTypes, kShapes,
        "use_inter_op_parallelism: bool = true", "sloppy: bool = false",
        "preserve_cardinality: bool = false", kMetadata}},
      {"ParallelInterleaveDatasetV2",
       {"input_dataset: variant", "other_arguments: Targuments",
        "cycle_length: int64", "block_length: int64",
        "num_parallel_calls: int64"},
       {"f: func", kTargs, kTypes, kShapes, "sloppy: bool = false",
        kMetadata}},
      {"ParallelInterleaveDatasetV3",
       {"input_dataset: variant", "other_arguments: Targuments",
        "cycle_length: int64", "block_length: int64",
        "num_parallel_calls: int64"},
       {"f: func", "deterministic: string = 'default'", kTargs, kTypes,
        kShapes, kMetadata}},
      {"LegacyParallelInterleaveDatasetV2",
       {"input_dataset: variant", "other_arguments: Targuments",
        "cycle_length: int64", "block_length: int64",
        "buffer_output_elements: int64", "prefetch_input_elements: int64"},
       {"f: func", "deterministic: string = 'default'", kTargs, kTypes,
        kShapes, kMetadata}},
      {"ParallelInterleaveDataset",
       {"input_dataset: variant", "other_arguments: Targuments",
        "cycle_length: int64", "block_length: int64", "sloppy: bool",
        "buffer_output_elements: int64", "prefetch_input_elements: int64"},
       {"f: func", kTargs, kTypes, kShapes, kMetadata}},

      // --- New transformations.
      {"SlidingWindowDataset",
       {"input_dataset: variant", "window_size: int64", "window_shift: int64",
        "window_stride: int64"},
       {"drop_remainder: bool = true", kTypes, kShapes}},
      {"ExperimentalSlidingWindowDataset",
       {"input_dataset: variant", "window_size: int64", "window_shift: int64",
        "window_stride: int64"},
       {kTypes, kShapes}},

      // --- Pass-throughs: sleeping and statistics (dfx keeps no stats).
      {"SleepDataset",
       {"input_dataset: variant", "sleep_microseconds: int64"},
       {kTypes, kShapes}},
      {"ExperimentalSleepDataset",
       {"input_dataset: variant", "sleep_microseconds: int64"},
       {kTypes, kShapes}},
      {"LatencyStatsDataset",
       {"input_dataset: variant", "tag: string"},
       {kTypes, kShapes}},
      {"ExperimentalLatencyStatsDataset",
       {"input_dataset: variant", "tag: string"},
       {kTypes, kShapes}},
      {"BytesProducedStatsDataset",
       {"input_dataset: variant", "tag: string"},
       {kTypes, kShapes}},
      {"ExperimentalBytesProducedStatsDataset",
       {"input_dataset: variant", "tag: string"},
       {kTypes, kShapes}},

      // --- v1 iterators.
      {"AnonymousIterator",
       {},
       {kTypes, kShapes},
       /*stateful=*/true,
       "handle: resource"},
      {"Iterator",
       {},
       {"shared_name: string", "container: string", kTypes, kShapes},
       /*stateful=*/true,
       "handle: resource"},
      {"IteratorFromStringHandle",
       {"string_handle: string"},
       {"output_types: list(type) >= 0 = []",
        "output_shapes: list(shape) >= 0 = []"},
       /*stateful=*/true,
       "resource_handle: resource"},
      {"IteratorFromStringHandleV2",
       {"string_handle: string"},
       {"output_types: list(type) >= 0 = []",
        "output_shapes: list(shape) >= 0 = []"},
       /*stateful=*/true,
       "resource_handle: resource"},
  };
  for (const DatasetOpSpec& spec : specs) {
    DFX_RETURN_IF_ERROR(RegisterSpec(r, spec));
  }
  return absl::OkStatus();
}

}  // namespace dfx
