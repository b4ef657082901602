// tf.data's file sources beside TFRecordDataset and TextLineDataset
// (FixedLengthRecordDataset, TFRecordDatasetV2, the CSV datasets,
// MatchingFilesDataset), the thread-pool datasets, NonSerializableDataset,
// OptimizeDataset (v1), ChooseFastestDataset, Wrap/UnwrapDatasetVariant,
// ListDataset,
// ParallelFilterDataset (its kernel is FilterDataset's),
// GroupByReducerDataset and DatasetToTFRecord, each under its current and
// Experimental* names.
// Every OpDef is TensorFlow 2.21's (tests/kernels/dataset3_test.cc compares
// them with tests/golden/data/dataset3/tf_op_defs.pbtxt, written by
// gen_dataset3.py); the kernels are in kernels/data/dataset3_kernels.cc and
// kernels/data/csv_dataset_kernels.cc.
#include <initializer_list>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "graph/ops/ops.h"

namespace dfx {
namespace {

constexpr char kTypes[] = "output_types: list(type) >= 1";
constexpr char kShapes[] = "output_shapes: list(shape) >= 1";

// InvalidArgument when input `i`'s rank is known and above `rank`.
absl::Status RankAtMost(InferenceContext* c, int i, int rank) {
  const PartialShape& s = c->input(i);
  if (s.RankKnown() && s.rank() > rank) {
    return c->Error(absl::StrCat("Shape must be at most rank ", rank,
                                 " but is rank ", s.rank(), " for input ", i));
  }
  return absl::OkStatus();
}

// A dataset op's shape function: input `vector_input` (the file names) of
// rank at most 1, the inputs in `scalars` scalars, a scalar handle.
ShapeFn FileSourceShape(int vector_input, std::vector<int> scalars) {
  return [vector_input, scalars = std::move(scalars)](InferenceContext* c) {
    if (vector_input >= 0) {
      DFX_RETURN_IF_ERROR(RankAtMost(c, vector_input, 1));
    }
    for (int i : scalars) DFX_RETURN_IF_ERROR(c->WithRank(c->input(i), 0));
    return shape_fn::Scalar(c);
  };
}

absl::Status RegisterCsv(OpRegistry* r, const char* name, bool v2) {
  OpDefBuilder b(name);
  b.Input("filenames: string")
      .Input("compression_type: string")
      .Input("buffer_size: int64")
      .Input("header: bool")
      .Input("field_delim: string")
      .Input("use_quote_delim: bool")
      .Input("na_value: string")
      .Input("select_cols: int64")
      .Input("record_defaults: output_types");
  if (v2) b.Input("exclude_cols: int64");
  b.Output("handle: variant")
      .Attr("output_types: list({float, double, int32, int64, string}) >= 1")
      .Attr(kShapes)
      .SetIsStateful()
      .SetShapeFn([v2](InferenceContext* c) {
        DFX_RETURN_IF_ERROR(RankAtMost(c, 0, 1));
        for (int i = 1; i <= 6; ++i) {
          DFX_RETURN_IF_ERROR(c->WithRank(c->input(i), 0));
        }
        DFX_RETURN_IF_ERROR(c->WithRank(c->input(7), 1));
        const int defaults_end = v2 ? c->num_inputs() - 1 : c->num_inputs();
        for (int i = 8; i < defaults_end; ++i) {
          DFX_RETURN_IF_ERROR(RankAtMost(c, i, 1));
        }
        if (v2) {
          DFX_RETURN_IF_ERROR(c->WithRank(c->input(c->num_inputs() - 1), 1));
        }
        return shape_fn::Scalar(c);
      });
  return r->Register(b);
}

}  // namespace

absl::Status RegisterDataset3Ops(OpRegistry* r) {
  // --- Fixed-length records.
  for (const bool v2 : {false, true}) {
    OpDefBuilder b(v2 ? "FixedLengthRecordDatasetV2"
                      : "FixedLengthRecordDataset");
    b.Input("filenames: string")
        .Input("header_bytes: int64")
        .Input("record_bytes: int64")
        .Input("footer_bytes: int64")
        .Input("buffer_size: int64");
    if (v2) b.Input("compression_type: string");
    b.Output("handle: variant")
        .Attr("metadata: string = ''")
        .SetIsStateful()
        .SetShapeFn(v2 ? FileSourceShape(0, {1, 2, 3, 4, 5})
                       : FileSourceShape(0, {1, 2, 3, 4}));
    DFX_RETURN_IF_ERROR(r->Register(b));
  }
  DFX_RETURN_IF_ERROR(
      r->Register(OpDefBuilder("TFRecordDatasetV2")
                      .Input("filenames: string")
                      .Input("compression_type: string")
                      .Input("buffer_size: int64")
                      .Input("byte_offsets: int64")
                      .Output("handle: variant")
                      .Attr("metadata: string = ''")
                      .SetIsStateful()
                      .SetShapeFn([](InferenceContext* c) {
                        DFX_RETURN_IF_ERROR(RankAtMost(c, 0, 1));
                        DFX_RETURN_IF_ERROR(c->WithRank(c->input(1), 0));
                        DFX_RETURN_IF_ERROR(c->WithRank(c->input(2), 0));
                        DFX_RETURN_IF_ERROR(RankAtMost(c, 3, 1));
                        return shape_fn::Scalar(c);
                      })));

  // --- CSV.
  DFX_RETURN_IF_ERROR(RegisterCsv(r, "CSVDataset", false));
  DFX_RETURN_IF_ERROR(RegisterCsv(r, "ExperimentalCSVDataset", false));
  DFX_RETURN_IF_ERROR(RegisterCsv(r, "CSVDatasetV2", true));

  // --- Matching files.
  for (const char* name :
       {"MatchingFilesDataset", "ExperimentalMatchingFilesDataset"}) {
    DFX_RETURN_IF_ERROR(r->Register(OpDefBuilder(name)
                                        .Input("patterns: string")
                                        .Output("handle: variant")
                                        .SetIsStateful()
                                        .SetShapeFn(FileSourceShape(0, {}))));
  }

  // --- Thread pools (a hint in dfx) and pass-throughs.
  for (const char* name :
       {"ThreadPoolHandle", "ExperimentalThreadPoolHandle"}) {
    DFX_RETURN_IF_ERROR(
        r->Register(OpDefBuilder(name)
                        .Output("handle: resource")
                        .Attr("num_threads: int")
                        .Attr("max_intra_op_parallelism: int = 1")
                        .Attr("display_name: string")
                        .Attr("container: string = ''")
                        .Attr("shared_name: string = ''")
                        .SetIsStateful()
                        .SetShapeFn(shape_fn::Scalar)));
  }
  for (const char* name :
       {"ThreadPoolDataset", "ExperimentalThreadPoolDataset"}) {
    DFX_RETURN_IF_ERROR(r->Register(OpDefBuilder(name)
                                        .Input("input_dataset: variant")
                                        .Input("thread_pool: resource")
                                        .Output("handle: variant")
                                        .Attr(kTypes)
                                        .Attr(kShapes)
                                        .SetIsStateful()
                                        .SetShapeFn(shape_fn::Scalar)));
  }
  for (const char* name :
       {"NonSerializableDataset", "ExperimentalNonSerializableDataset"}) {
    DFX_RETURN_IF_ERROR(r->Register(OpDefBuilder(name)
                                        .Input("input_dataset: variant")
                                        .Output("handle: variant")
                                        .Attr(kTypes)
                                        .Attr(kShapes)
                                        .SetShapeFn(shape_fn::Scalar)));
  }

  // --- tf.data.experimental.from_list.
  DFX_RETURN_IF_ERROR(r->Register(OpDefBuilder("ListDataset")
                                      .Input("tensors: Tinput_types")
                                      .Output("handle: variant")
                                      .Attr("Tinput_types: list(type) >= 1")
                                      .Attr(kTypes)
                                      .Attr(kShapes)
                                      .Attr("metadata: string = ''")
                                      .SetIsStateful()
                                      .SetShapeFn(shape_fn::Scalar)));

  // --- Per-key reductions (tf.data.experimental.group_by_reducer).
  for (const char* name :
       {"GroupByReducerDataset", "ExperimentalGroupByReducerDataset"}) {
    DFX_RETURN_IF_ERROR(r->Register(
        OpDefBuilder(name)
            .Input("input_dataset: variant")
            .Input("key_func_other_arguments: Tkey_func_other_arguments")
            .Input("init_func_other_arguments: Tinit_func_other_arguments")
            .Input("reduce_func_other_arguments: Treduce_func_other_arguments")
            .Input("finalize_func_other_arguments: "
                   "Tfinalize_func_other_arguments")
            .Output("handle: variant")
            .Attr("key_func: func")
            .Attr("init_func: func")
            .Attr("reduce_func: func")
            .Attr("finalize_func: func")
            .Attr("Tkey_func_other_arguments: list(type) >= 0")
            .Attr("Tinit_func_other_arguments: list(type) >= 0")
            .Attr("Treduce_func_other_arguments: list(type) >= 0")
            .Attr("Tfinalize_func_other_arguments: list(type) >= 0")
            .Attr(kTypes)
            .Attr(kShapes)
            .SetIsStateful()
            .SetShapeFn(shape_fn::Scalar)));
  }

  // --- filter with num_parallel_calls; tuning and wrapping ops that pass
  // their input through in dfx.
  DFX_RETURN_IF_ERROR(r->Register(OpDefBuilder("ParallelFilterDataset")
                                      .Input("input_dataset: variant")
                                      .Input("other_arguments: Targuments")
                                      .Input("num_parallel_calls: int64")
                                      .Output("handle: variant")
                                      .Attr("predicate: func")
                                      .Attr("deterministic: string = 'default'")
                                      .Attr("Targuments: list(type) >= 0")
                                      .Attr(kTypes)
                                      .Attr(kShapes)
                                      .Attr("metadata: string = ''")
                                      .SetShapeFn(shape_fn::Scalar)));
  DFX_RETURN_IF_ERROR(
      r->Register(OpDefBuilder("OptimizeDataset")
                      .Input("input_dataset: variant")
                      .Input("optimizations: string")
                      .Output("handle: variant")
                      .Attr(kTypes)
                      .Attr(kShapes)
                      .Attr("optimization_configs: list(string) = []")
                      .SetShapeFn(shape_fn::Scalar)));
  for (const char* name :
       {"ChooseFastestDataset", "ExperimentalChooseFastestDataset"}) {
    DFX_RETURN_IF_ERROR(r->Register(OpDefBuilder(name)
                                        .Input("input_datasets: N * variant")
                                        .Output("handle: variant")
                                        .Attr("N: int >= 2")
                                        .Attr("num_experiments: int")
                                        .Attr(kTypes)
                                        .Attr(kShapes)
                                        .SetShapeFn(shape_fn::Scalar)));
  }
  for (const char* name : {"WrapDatasetVariant", "UnwrapDatasetVariant"}) {
    DFX_RETURN_IF_ERROR(r->Register(OpDefBuilder(name)
                                        .Input("input_handle: variant")
                                        .Output("output_handle: variant")
                                        .SetShapeFn(shape_fn::Scalar)));
  }

  // --- Writing a dataset of strings as a TFRecord file.
  for (const char* name :
       {"DatasetToTFRecord", "ExperimentalDatasetToTFRecord"}) {
    DFX_RETURN_IF_ERROR(r->Register(OpDefBuilder(name)
                                        .Input("input_dataset: variant")
                                        .Input("filename: string")
                                        .Input("compression_type: string")
                                        .SetIsStateful()
                                        .SetShapeFn([](InferenceContext* c) {
                                          DFX_RETURN_IF_ERROR(
                                              c->WithRank(c->input(1), 0));
                                          return c->WithRank(c->input(2), 0);
                                        })));
  }
  return absl::OkStatus();
}

}  // namespace dfx
