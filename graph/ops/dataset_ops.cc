// tf.data ops (TensorFlow's definitions): source datasets, transformations,
// shuffling and its seed generators, and iterators. Every dataset is a
// scalar DT_VARIANT; kernels are in kernels/data/.
#include <string>

#include "base/status_macros.h"
#include "graph/ops/ops.h"

namespace dfx {
namespace {

// The attrs every transformation declares after its own.
OpDefBuilder& ElementAttrs(OpDefBuilder& b, bool metadata = true) {
  b.Attr("output_types: list(type) >= 1")
      .Attr("output_shapes: list(shape) >= 1");
  if (metadata) b.Attr("metadata: string = ''");
  return b;
}

absl::Status RegisterDataset(OpRegistry* r, OpDefBuilder& b) {
  b.Output("handle: variant").SetShapeFn(shape_fn::Scalar);
  return r->Register(b);
}

}  // namespace

absl::Status RegisterDatasetOps(OpRegistry* r) {
  // --- Sources (stateful in TensorFlow 2.21's definitions).
  {
    OpDefBuilder b("TensorDataset");
    b.Input("components: Toutput_types")
        .Attr("Toutput_types: list(type) >= 1")
        .Attr("output_shapes: list(shape) >= 1")
        .Attr("metadata: string = ''")
        .SetIsStateful();
    DFX_RETURN_IF_ERROR(RegisterDataset(r, b));
  }
  {
    OpDefBuilder b("TensorSliceDataset");
    b.Input("components: Toutput_types")
        .Attr("Toutput_types: list(type) >= 1")
        .Attr("output_shapes: list(shape) >= 1")
        .Attr("is_files: bool = false")
        .Attr("metadata: string = ''")
        .Attr("replicate_on_split: bool = false")
        .SetIsStateful();
    DFX_RETURN_IF_ERROR(RegisterDataset(r, b));
  }
  {
    OpDefBuilder b("RangeDataset");
    b.Input("start: int64").Input("stop: int64").Input("step: int64");
    ElementAttrs(b).Attr("replicate_on_split: bool = false").SetIsStateful();
    DFX_RETURN_IF_ERROR(RegisterDataset(r, b));
  }

  // --- Transformations.
  {
    OpDefBuilder b("MapDataset");
    b.Input("input_dataset: variant")
        .Input("other_arguments: Targuments")
        .Attr("f: func")
        .Attr("Targuments: list(type) >= 0");
    ElementAttrs(b, false)
        .Attr("use_inter_op_parallelism: bool = true")
        .Attr("preserve_cardinality: bool = false")
        .Attr("force_synchronous: bool = false")
        .Attr("metadata: string = ''");
    DFX_RETURN_IF_ERROR(RegisterDataset(r, b));
  }
  {
    OpDefBuilder b("ParallelMapDatasetV2");
    b.Input("input_dataset: variant")
        .Input("other_arguments: Targuments")
        .Input("num_parallel_calls: int64")
        .Attr("f: func")
        .Attr("Targuments: list(type) >= 0");
    ElementAttrs(b, false)
        .Attr("use_inter_op_parallelism: bool = true")
        .Attr("deterministic: string = 'default'")
        .Attr("preserve_cardinality: bool = false")
        .Attr("use_unbounded_threadpool: bool = false")
        .Attr("metadata: string = ''");
    DFX_RETURN_IF_ERROR(RegisterDataset(r, b));
  }
  {
    OpDefBuilder b("FlatMapDataset");
    b.Input("input_dataset: variant")
        .Input("other_arguments: Targuments")
        .Attr("f: func")
        .Attr("Targuments: list(type) >= 0");
    ElementAttrs(b);
    DFX_RETURN_IF_ERROR(RegisterDataset(r, b));
  }
  {
    OpDefBuilder b("InterleaveDataset");
    b.Input("input_dataset: variant")
        .Input("other_arguments: Targuments")
        .Input("cycle_length: int64")
        .Input("block_length: int64")
        .Attr("f: func")
        .Attr("Targuments: list(type) >= 0");
    ElementAttrs(b);
    DFX_RETURN_IF_ERROR(RegisterDataset(r, b));
  }
  {
    OpDefBuilder b("ParallelInterleaveDatasetV4");
    b.Input("input_dataset: variant")
        .Input("other_arguments: Targuments")
        .Input("cycle_length: int64")
        .Input("block_length: int64")
        .Input("buffer_output_elements: int64")
        .Input("prefetch_input_elements: int64")
        .Input("num_parallel_calls: int64")
        .Attr("f: func")
        .Attr("deterministic: string = 'default'")
        .Attr("Targuments: list(type) >= 0");
    ElementAttrs(b);
    DFX_RETURN_IF_ERROR(RegisterDataset(r, b));
  }
  {
    OpDefBuilder b("UnbatchDataset");
    b.Input("input_dataset: variant");
    ElementAttrs(b);
    DFX_RETURN_IF_ERROR(RegisterDataset(r, b));
  }
  {
    OpDefBuilder b("PaddedBatchDatasetV2");
    b.Input("input_dataset: variant")
        .Input("batch_size: int64")
        .Input("padded_shapes: N * int64")
        .Input("padding_values: Toutput_types")
        .Input("drop_remainder: bool")
        .Attr("parallel_copy: bool = false")
        .Attr("Toutput_types: list(type) >= 1")
        .Attr("output_shapes: list(shape) >= 1")
        .Attr("N: int >= 1")
        .Attr("metadata: string = ''");
    DFX_RETURN_IF_ERROR(RegisterDataset(r, b));
  }
  {
    OpDefBuilder b("FilterDataset");
    b.Input("input_dataset: variant")
        .Input("other_arguments: Targuments")
        .Attr("predicate: func")
        .Attr("Targuments: list(type) >= 0");
    ElementAttrs(b);
    DFX_RETURN_IF_ERROR(RegisterDataset(r, b));
  }
  {
    OpDefBuilder b("BatchDatasetV2");
    b.Input("input_dataset: variant")
        .Input("batch_size: int64")
        .Input("drop_remainder: bool")
        .Attr("parallel_copy: bool = false");
    ElementAttrs(b);
    DFX_RETURN_IF_ERROR(RegisterDataset(r, b));
  }
  {
    OpDefBuilder b("ParallelBatchDataset");
    b.Input("input_dataset: variant")
        .Input("batch_size: int64")
        .Input("num_parallel_calls: int64")
        .Input("drop_remainder: bool")
        .Attr("parallel_copy: bool = false")
        .Attr("output_types: list(type) >= 1")
        .Attr("output_shapes: list(shape) >= 1")
        .Attr("deterministic: string = 'default'")
        .Attr("metadata: string = ''");
    DFX_RETURN_IF_ERROR(RegisterDataset(r, b));
  }
  {
    OpDefBuilder b("RewriteDataset");
    b.Input("input_dataset: variant").Input("rewrite_name: string");
    ElementAttrs(b, false);
    DFX_RETURN_IF_ERROR(RegisterDataset(r, b));
  }
  {
    OpDefBuilder b("TakeWhileDataset");
    b.Input("input_dataset: variant")
        .Input("other_arguments: Targuments")
        .Attr("predicate: func")
        .Attr("Targuments: list(type) >= 0");
    ElementAttrs(b);
    DFX_RETURN_IF_ERROR(RegisterDataset(r, b));
  }
  {
    OpDefBuilder b("ScanDataset");
    b.Input("input_dataset: variant")
        .Input("initial_state: Tstate")
        .Input("other_arguments: Targuments")
        .Attr("f: func")
        .Attr("Tstate: list(type) >= 1")
        .Attr("Targuments: list(type) >= 0")
        .Attr("output_types: list(type) >= 1")
        .Attr("output_shapes: list(shape) >= 1")
        .Attr("preserve_cardinality: bool = false")
        .Attr("use_default_device: bool = true")
        .Attr("metadata: string = ''");
    DFX_RETURN_IF_ERROR(RegisterDataset(r, b));
  }
  for (const char* name : {"UniqueDataset", "IgnoreErrorsDataset"}) {
    OpDefBuilder b(name);
    b.Input("input_dataset: variant");
    // IgnoreErrorsDataset has log_warning instead of metadata.
    const bool ignore = std::string(name) == "IgnoreErrorsDataset";
    ElementAttrs(b, !ignore);
    if (ignore) b.Attr("log_warning: bool = false");
    DFX_RETURN_IF_ERROR(RegisterDataset(r, b));
  }
  {
    OpDefBuilder b("AssertCardinalityDataset");
    b.Input("input_dataset: variant").Input("cardinality: int64");
    ElementAttrs(b, false);
    DFX_RETURN_IF_ERROR(RegisterDataset(r, b));
  }
  {
    OpDefBuilder b("DirectedInterleaveDataset");
    b.Input("selector_input_dataset: variant")
        .Input("data_input_datasets: N * variant");
    ElementAttrs(b, false)
        .Attr("N: int >= 1")
        .Attr("stop_on_empty_dataset: bool = false");
    DFX_RETURN_IF_ERROR(RegisterDataset(r, b));
  }
  DFX_RETURN_IF_ERROR(r->Register(OpDefBuilder("ReduceDataset")
                                      .Input("input_dataset: variant")
                                      .Input("initial_state: Tstate")
                                      .Input("other_arguments: Targuments")
                                      .Output("components: output_types")
                                      .Attr("f: func")
                                      .Attr("Tstate: list(type) >= 1")
                                      .Attr("Targuments: list(type) >= 0")
                                      .Attr("output_types: list(type) >= 1")
                                      .Attr("output_shapes: list(shape) >= 1")
                                      .Attr("use_inter_op_parallelism: bool = "
                                            "true")
                                      .Attr("metadata: string = ''")
                                      .SetIsStateful()
                                      .SetShapeFn(shape_fn::Unknown)));
  DFX_RETURN_IF_ERROR(r->Register(OpDefBuilder("DatasetToSingleElement")
                                      .Input("dataset: variant")
                                      .Output("components: output_types")
                                      .Attr("output_types: list(type) >= 1")
                                      .Attr("output_shapes: list(shape) >= 1")
                                      .Attr("metadata: string = ''")
                                      .SetIsStateful()
                                      .SetShapeFn(shape_fn::Unknown)));
  for (const char* name : {"RepeatDataset", "TakeDataset", "SkipDataset"}) {
    OpDefBuilder b(name);
    b.Input("input_dataset: variant").Input("count: int64");
    ElementAttrs(b);
    DFX_RETURN_IF_ERROR(RegisterDataset(r, b));
  }
  {
    OpDefBuilder b("ShardDataset");
    b.Input("input_dataset: variant")
        .Input("num_shards: int64")
        .Input("index: int64")
        .Attr("require_non_empty: bool = false");
    ElementAttrs(b);
    DFX_RETURN_IF_ERROR(RegisterDataset(r, b));
  }
  {
    OpDefBuilder b("PrefetchDataset");
    b.Input("input_dataset: variant").Input("buffer_size: int64");
    ElementAttrs(b, false)
        .Attr("slack_period: int = 0")
        .Attr("legacy_autotune: bool = true")
        .Attr("buffer_size_min: int = 0")
        .Attr("metadata: string = ''");
    DFX_RETURN_IF_ERROR(RegisterDataset(r, b));
  }
  {
    OpDefBuilder b("ZipDataset");
    b.Input("input_datasets: N * variant");
    ElementAttrs(b, false).Attr("N: int >= 1").Attr("metadata: string = ''");
    DFX_RETURN_IF_ERROR(RegisterDataset(r, b));
  }
  {
    OpDefBuilder b("ConcatenateDataset");
    b.Input("input_dataset: variant").Input("another_dataset: variant");
    ElementAttrs(b);
    DFX_RETURN_IF_ERROR(RegisterDataset(r, b));
  }
  // Options and tuning: elements pass through unchanged.
  {
    OpDefBuilder b("OptionsDataset");
    b.Input("input_dataset: variant").Attr("serialized_options: string");
    ElementAttrs(b);
    DFX_RETURN_IF_ERROR(RegisterDataset(r, b));
  }
  {
    OpDefBuilder b("ModelDataset");
    b.Input("input_dataset: variant")
        .Attr("algorithm: int = 0")
        .Attr("cpu_budget: int = 0")
        .Attr("ram_budget: int = 0");
    ElementAttrs(b, false);
    DFX_RETURN_IF_ERROR(RegisterDataset(r, b));
  }
  {
    OpDefBuilder b("OptimizeDatasetV2");
    b.Input("input_dataset: variant")
        .Input("optimizations_enabled: string")
        .Input("optimizations_disabled: string")
        .Input("optimizations_default: string");
    ElementAttrs(b, false).Attr("optimization_configs: list(string) = []");
    DFX_RETURN_IF_ERROR(RegisterDataset(r, b));
  }
  {
    OpDefBuilder b("MaxIntraOpParallelismDataset");
    b.Input("input_dataset: variant").Input("max_intra_op_parallelism: int64");
    ElementAttrs(b, false);
    DFX_RETURN_IF_ERROR(RegisterDataset(r, b));
  }
  {
    OpDefBuilder b("PrivateThreadPoolDataset");
    b.Input("input_dataset: variant").Input("num_threads: int64");
    ElementAttrs(b, false);
    DFX_RETURN_IF_ERROR(RegisterDataset(r, b));
  }
  {
    OpDefBuilder b("FinalizeDataset");
    b.Input("input_dataset: variant").Attr("has_captured_ref: bool = false");
    ElementAttrs(b, false);
    DFX_RETURN_IF_ERROR(RegisterDataset(r, b));
  }
  {
    OpDefBuilder b("CacheDataset");
    b.Input("input_dataset: variant").Input("filename: string");
    ElementAttrs(b);
    DFX_RETURN_IF_ERROR(RegisterDataset(r, b));
  }
  {
    OpDefBuilder b("CacheDatasetV2");
    b.Input("input_dataset: variant")
        .Input("filename: string")
        .Input("cache: resource")
        .SetIsStateful();
    ElementAttrs(b);
    DFX_RETURN_IF_ERROR(RegisterDataset(r, b));
  }
  DFX_RETURN_IF_ERROR(r->Register(OpDefBuilder("DummyMemoryCache")
                                      .Output("handle: resource")
                                      .SetIsStateful()
                                      .SetShapeFn(shape_fn::Scalar)));
  DFX_RETURN_IF_ERROR(r->Register(OpDefBuilder("AnonymousMemoryCache")
                                      .Output("handle: resource")
                                      .Output("deleter: variant")
                                      .SetIsStateful()
                                      .SetShapeFn(shape_fn::Scalar)));
  for (const char* name : {"TFRecordDataset", "TextLineDataset"}) {
    OpDefBuilder b(name);
    b.Input("filenames: string")
        .Input("compression_type: string")
        .Input("buffer_size: int64")
        .Attr("metadata: string = ''")
        .SetIsStateful();
    DFX_RETURN_IF_ERROR(RegisterDataset(r, b));
  }
  DFX_RETURN_IF_ERROR(
      r->Register(OpDefBuilder("ParseExampleV2")
                      .Input("serialized: string")
                      .Input("names: string")
                      .Input("sparse_keys: string")
                      .Input("dense_keys: string")
                      .Input("ragged_keys: string")
                      .Input("dense_defaults: Tdense")
                      .Output("sparse_indices: num_sparse * int64")
                      .Output("sparse_values: sparse_types")
                      .Output("sparse_shapes: num_sparse * int64")
                      .Output("dense_values: Tdense")
                      .Output("ragged_values: ragged_value_types")
                      .Output("ragged_row_splits: ragged_split_types")
                      .Attr("Tdense: list({float,int64,string}) >= 0")
                      .Attr("num_sparse: int >= 0")
                      .Attr("sparse_types: list({float,int64,string}) >= 0")
                      .Attr("ragged_value_types: list({float,int64,string}) >= 0")
                      .Attr("ragged_split_types: list({int32,int64}) >= 0")
                      .Attr("dense_shapes: list(shape) >= 0")
                      .SetShapeFn(shape_fn::Unknown)));
  // A SparseTensor through a dataset (tf.data's encoding of its elements).
  DFX_RETURN_IF_ERROR(r->Register(OpDefBuilder("SerializeSparse")
                                      .Input("sparse_indices: int64")
                                      .Input("sparse_values: T")
                                      .Input("sparse_shape: int64")
                                      .Output("serialized_sparse: out_type")
                                      .Attr("T: type")
                                      .Attr("out_type: {string, variant} = DT_STRING")
                                      .SetShapeFn(shape_fn::Unknown)));
  DFX_RETURN_IF_ERROR(r->Register(OpDefBuilder("DeserializeSparse")
                                      .Input("serialized_sparse: Tserialized")
                                      .Output("sparse_indices: int64")
                                      .Output("sparse_values: dtype")
                                      .Output("sparse_shape: int64")
                                      .Attr("dtype: type")
                                      .Attr("Tserialized: {string, variant} = DT_STRING")
                                      .SetShapeFn(shape_fn::Unknown)));
  DFX_RETURN_IF_ERROR(r->Register(OpDefBuilder("DatasetCardinality")
                                      .Input("input_dataset: variant")
                                      .Output("cardinality: int64")
                                      .Attr("cardinality_options: string = ''")
                                      .SetShapeFn(shape_fn::Scalar)));

  // --- Shuffling.
  {
    OpDefBuilder b("ShuffleDataset");
    b.Input("input_dataset: variant")
        .Input("buffer_size: int64")
        .Input("seed: int64")
        .Input("seed2: int64")
        .Attr("reshuffle_each_iteration: bool = true");
    ElementAttrs(b);
    DFX_RETURN_IF_ERROR(RegisterDataset(r, b));
  }
  {
    OpDefBuilder b("ShuffleDatasetV2");
    b.Input("input_dataset: variant")
        .Input("buffer_size: int64")
        .Input("seed_generator: resource")
        .SetIsStateful();
    ElementAttrs(b);
    DFX_RETURN_IF_ERROR(RegisterDataset(r, b));
  }
  {
    OpDefBuilder b("ShuffleDatasetV3");
    b.Input("input_dataset: variant")
        .Input("buffer_size: int64")
        .Input("seed: int64")
        .Input("seed2: int64")
        .Input("seed_generator: resource")
        .Attr("reshuffle_each_iteration: bool = true")
        .SetIsStateful();
    ElementAttrs(b);
    DFX_RETURN_IF_ERROR(RegisterDataset(r, b));
  }
  {
    // The first form (tf.data.experimental.shuffle_and_repeat in TF1
    // graphs): seeds only, not stateful.
    OpDefBuilder b("ShuffleAndRepeatDataset");
    b.Input("input_dataset: variant")
        .Input("buffer_size: int64")
        .Input("seed: int64")
        .Input("seed2: int64")
        .Input("count: int64");
    ElementAttrs(b, false)
        .Attr("reshuffle_each_iteration: bool = true")
        .Attr("metadata: string = ''");
    DFX_RETURN_IF_ERROR(RegisterDataset(r, b));
  }
  {
    OpDefBuilder b("ShuffleAndRepeatDatasetV2");
    b.Input("input_dataset: variant")
        .Input("buffer_size: int64")
        .Input("seed: int64")
        .Input("seed2: int64")
        .Input("count: int64")
        .Input("seed_generator: resource")
        .Attr("reshuffle_each_iteration: bool = true")
        .SetIsStateful();
    ElementAttrs(b);
    DFX_RETURN_IF_ERROR(RegisterDataset(r, b));
  }
  DFX_RETURN_IF_ERROR(r->Register(OpDefBuilder("DummySeedGenerator")
                                      .Output("handle: resource")
                                      .SetIsStateful()
                                      .SetShapeFn(shape_fn::Scalar)));
  DFX_RETURN_IF_ERROR(r->Register(OpDefBuilder("AnonymousSeedGenerator")
                                      .Input("seed: int64")
                                      .Input("seed2: int64")
                                      .Input("reshuffle: bool")
                                      .Output("handle: resource")
                                      .Output("deleter: variant")
                                      .SetIsStateful()
                                      .SetShapeFn(shape_fn::Scalar)));
  DFX_RETURN_IF_ERROR(r->Register(OpDefBuilder("DeleteSeedGenerator")
                                      .Input("handle: resource")
                                      .Input("deleter: variant")
                                      .SetIsStateful()
                                      .SetShapeFn(shape_fn::Unknown)));

  // --- Iterators.
  DFX_RETURN_IF_ERROR(r->Register(OpDefBuilder("IteratorV2")
                                      .Output("handle: resource")
                                      .Attr("shared_name: string")
                                      .Attr("container: string")
                                      .Attr("output_types: list(type) >= 1")
                                      .Attr("output_shapes: list(shape) >= 1")
                                      .SetIsStateful()
                                      .SetShapeFn(shape_fn::Scalar)));
  DFX_RETURN_IF_ERROR(r->Register(OpDefBuilder("OneShotIterator")
                                      .Output("handle: resource")
                                      .Attr("dataset_factory: func")
                                      .Attr("output_types: list(type) >= 1")
                                      .Attr("output_shapes: list(shape) >= 1")
                                      .Attr("container: string = ''")
                                      .Attr("shared_name: string = ''")
                                      .SetIsStateful()
                                      .SetShapeFn(shape_fn::Scalar)));
  DFX_RETURN_IF_ERROR(r->Register(OpDefBuilder("AnonymousIteratorV2")
                                      .Output("handle: resource")
                                      .Output("deleter: variant")
                                      .Attr("output_types: list(type) >= 1")
                                      .Attr("output_shapes: list(shape) >= 1")
                                      .SetIsStateful()
                                      .SetShapeFn(shape_fn::Scalar)));
  DFX_RETURN_IF_ERROR(r->Register(OpDefBuilder("AnonymousIteratorV3")
                                      .Output("handle: resource")
                                      .Attr("output_types: list(type) >= 1")
                                      .Attr("output_shapes: list(shape) >= 1")
                                      .SetIsStateful()
                                      .SetShapeFn(shape_fn::Scalar)));
  DFX_RETURN_IF_ERROR(r->Register(OpDefBuilder("DeleteIterator")
                                      .Input("handle: resource")
                                      .Input("deleter: variant")
                                      .SetIsStateful()
                                      .SetShapeFn(shape_fn::Unknown)));
  DFX_RETURN_IF_ERROR(r->Register(OpDefBuilder("IteratorToStringHandle")
                                      .Input("resource_handle: resource")
                                      .Output("string_handle: string")
                                      .SetShapeFn(shape_fn::Scalar)));
  DFX_RETURN_IF_ERROR(r->Register(OpDefBuilder("MakeIterator")
                                      .Input("dataset: variant")
                                      .Input("iterator: resource")
                                      .SetIsStateful()
                                      .SetShapeFn(shape_fn::Unknown)));
  for (const char* name : {"IteratorGetNext", "IteratorGetNextSync"}) {
    DFX_RETURN_IF_ERROR(r->Register(OpDefBuilder(name)
                                        .Input("iterator: resource")
                                        .Output("components: output_types")
                                        .Attr("output_types: list(type) >= 1")
                                        .Attr("output_shapes: list(shape) >= 1")
                                        .SetIsStateful()
                                        .SetShapeFn(shape_fn::Unknown)));
  }
  DFX_RETURN_IF_ERROR(r->Register(OpDefBuilder("IteratorGetNextAsOptional")
                                      .Input("iterator: resource")
                                      .Output("optional: variant")
                                      .Attr("output_types: list(type) >= 1")
                                      .Attr("output_shapes: list(shape) >= 1")
                                      .SetIsStateful()
                                      .SetShapeFn(shape_fn::Scalar)));

  // --- tf.distribute's per-worker input: the multi-device iterator, the
  // generator datasets on its shards, and the remote calls between them.
  DFX_RETURN_IF_ERROR(r->Register(OpDefBuilder("GetOptions")
                                      .Input("input_dataset: variant")
                                      .Output("serialized_options: string")
                                      .SetShapeFn(shape_fn::Scalar)));
  DFX_RETURN_IF_ERROR(r->Register(OpDefBuilder("AnonymousMultiDeviceIteratorV3")
                                      .Output("handle: resource")
                                      .Attr("devices: list(string) >= 1")
                                      .Attr("output_types: list(type) >= 1")
                                      .Attr("output_shapes: list(shape) >= 1")
                                      .SetIsStateful()
                                      .SetShapeFn(shape_fn::Scalar)));
  DFX_RETURN_IF_ERROR(r->Register(OpDefBuilder("AnonymousMultiDeviceIterator")
                                      .Output("handle: resource")
                                      .Output("deleter: variant")
                                      .Attr("devices: list(string) >= 1")
                                      .Attr("output_types: list(type) >= 1")
                                      .Attr("output_shapes: list(shape) >= 1")
                                      .SetIsStateful()
                                      .SetShapeFn(shape_fn::Scalar)));
  DFX_RETURN_IF_ERROR(r->Register(OpDefBuilder("MultiDeviceIterator")
                                      .Output("handle: resource")
                                      .Attr("devices: list(string) >= 1")
                                      .Attr("shared_name: string")
                                      .Attr("container: string")
                                      .Attr("output_types: list(type) >= 1")
                                      .Attr("output_shapes: list(shape) >= 1")
                                      .SetIsStateful()
                                      .SetShapeFn(shape_fn::Scalar)));
  DFX_RETURN_IF_ERROR(r->Register(OpDefBuilder("MultiDeviceIteratorInit")
                                      .Input("dataset: variant")
                                      .Input("multi_device_iterator: resource")
                                      .Input("max_buffer_size: int64")
                                      .Output("incarnation_id: int64")
                                      .SetIsStateful()
                                      .SetShapeFn(shape_fn::Scalar)));
  DFX_RETURN_IF_ERROR(
      r->Register(OpDefBuilder("MultiDeviceIteratorToStringHandle")
                      .Input("multi_device_iterator: resource")
                      .Output("string_handle: string")
                      .SetIsStateful()
                      .SetShapeFn(shape_fn::Scalar)));
  DFX_RETURN_IF_ERROR(
      r->Register(OpDefBuilder("MultiDeviceIteratorFromStringHandle")
                      .Input("string_handle: string")
                      .Output("multi_device_iterator: resource")
                      .Attr("output_types: list(type) >= 0 = []")
                      .Attr("output_shapes: list(shape) >= 0 = []")
                      .SetIsStateful()
                      .SetShapeFn(shape_fn::Scalar)));
  DFX_RETURN_IF_ERROR(
      r->Register(OpDefBuilder("MultiDeviceIteratorGetNextFromShard")
                      .Input("multi_device_iterator: resource")
                      .Input("shard_num: int32")
                      .Input("incarnation_id: int64")
                      .Output("components: output_types")
                      .Attr("output_types: list(type) >= 1")
                      .Attr("output_shapes: list(shape) >= 1")
                      .SetIsStateful()
                      .SetShapeFn(shape_fn::Unknown)));
  DFX_RETURN_IF_ERROR(r->Register(OpDefBuilder("DeleteMultiDeviceIterator")
                                      .Input("multi_device_iterator: resource")
                                      .Input("iterators: N * resource")
                                      .Input("deleter: variant")
                                      .Attr("N: int >= 0")
                                      .SetIsStateful()
                                      .SetShapeFn(shape_fn::Unknown)));
  {
    OpDefBuilder b("GeneratorDataset");
    b.Input("init_func_other_args: Tinit_func_args")
        .Input("next_func_other_args: Tnext_func_args")
        .Input("finalize_func_other_args: Tfinalize_func_args")
        .Attr("init_func: func")
        .Attr("next_func: func")
        .Attr("finalize_func: func")
        .Attr("Tinit_func_args: list(type) >= 0")
        .Attr("Tnext_func_args: list(type) >= 0")
        .Attr("Tfinalize_func_args: list(type) >= 0")
        .SetIsStateful();
    ElementAttrs(b);
    DFX_RETURN_IF_ERROR(RegisterDataset(r, b));
  }
  DFX_RETURN_IF_ERROR(r->Register(OpDefBuilder("RemoteCall")
                                      .Input("target: string")
                                      .Input("args: Tin")
                                      .Output("output: Tout")
                                      .Attr("Tin: list(type) >= 1")
                                      .Attr("Tout: list(type) >= 1")
                                      .Attr("f: func")
                                      .SetIsStateful()
                                      .SetShapeFn(shape_fn::Unknown)));

  // --- Random numbers, windows and groups, rebatching (window_kernels.cc,
  // shuffle_kernels.cc).
  {
    OpDefBuilder b("RandomDataset");
    b.Input("seed: int64").Input("seed2: int64");
    ElementAttrs(b).SetIsStateful();
    DFX_RETURN_IF_ERROR(RegisterDataset(r, b));
  }
  {
    OpDefBuilder b("RandomDatasetV2");
    b.Input("seed: int64")
        .Input("seed2: int64")
        .Input("seed_generator: resource")
        .Attr("rerandomize_each_iteration: bool = false");
    ElementAttrs(b).SetIsStateful();
    DFX_RETURN_IF_ERROR(RegisterDataset(r, b));
  }
  {
    OpDefBuilder b("WindowDataset");
    b.Input("input_dataset: variant")
        .Input("size: int64")
        .Input("shift: int64")
        .Input("stride: int64")
        .Input("drop_remainder: bool");
    ElementAttrs(b);
    DFX_RETURN_IF_ERROR(RegisterDataset(r, b));
  }
  {
    OpDefBuilder b("GroupByWindowDataset");
    b.Input("input_dataset: variant")
        .Input("key_func_other_arguments: Tkey_func_other_arguments")
        .Input("reduce_func_other_arguments: Treduce_func_other_arguments")
        .Input(
            "window_size_func_other_arguments: "
            "Twindow_size_func_other_arguments")
        .Attr("key_func: func")
        .Attr("reduce_func: func")
        .Attr("window_size_func: func")
        .Attr("Tkey_func_other_arguments: list(type) >= 0")
        .Attr("Treduce_func_other_arguments: list(type) >= 0")
        .Attr("Twindow_size_func_other_arguments: list(type) >= 0");
    ElementAttrs(b);
    DFX_RETURN_IF_ERROR(RegisterDataset(r, b));
  }
  {
    OpDefBuilder b("RebatchDatasetV2");
    b.Input("input_dataset: variant")
        .Input("batch_sizes: int64")
        .Input("drop_remainder: bool");
    ElementAttrs(b, false);
    DFX_RETURN_IF_ERROR(RegisterDataset(r, b));
  }
  {
    OpDefBuilder b("RebatchDataset");
    b.Input("input_dataset: variant").Input("num_replicas: int64");
    ElementAttrs(b, false).Attr("use_fallback: bool = true");
    DFX_RETURN_IF_ERROR(RegisterDataset(r, b));
  }

  {
    // tf.data.experimental.map_and_batch: map, then batch, in one op.
    OpDefBuilder b("MapAndBatchDataset");
    b.Input("input_dataset: variant")
        .Input("other_arguments: Targuments")
        .Input("batch_size: int64")
        .Input("num_parallel_calls: int64")
        .Input("drop_remainder: bool")
        .Attr("f: func")
        .Attr("Targuments: list(type) >= 0");
    ElementAttrs(b, false)
        .Attr("preserve_cardinality: bool = false")
        .Attr("metadata: string = ''");
    DFX_RETURN_IF_ERROR(RegisterDataset(r, b));
  }

  // --- SparseTensors as dataset elements (sparse_serialize_kernels.cc).
  {
    OpDefBuilder b("SparseTensorSliceDataset");
    b.Input("indices: int64")
        .Input("values: Tvalues")
        .Input("dense_shape: int64")
        .Attr("Tvalues: type")
        .SetIsStateful();
    DFX_RETURN_IF_ERROR(RegisterDataset(r, b));
  }
  {
    OpDefBuilder b("DenseToSparseBatchDataset");
    b.Input("input_dataset: variant")
        .Input("batch_size: int64")
        .Input("row_shape: int64");
    ElementAttrs(b, false);
    DFX_RETURN_IF_ERROR(RegisterDataset(r, b));
  }
  DFX_RETURN_IF_ERROR(r->Register(OpDefBuilder("SerializeManySparse")
                                      .Input("sparse_indices: int64")
                                      .Input("sparse_values: T")
                                      .Input("sparse_shape: int64")
                                      .Output("serialized_sparse: out_type")
                                      .Attr("T: type")
                                      .Attr("out_type: {string, variant} = DT_STRING")
                                      .SetShapeFn(shape_fn::Unknown)));
  return absl::OkStatus();
}

}  // namespace dfx
