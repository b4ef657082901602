// tf.data's save and load (Dataset.save / Dataset.load): SaveDataset,
// SaveDatasetV2 and LoadDataset; DummyIterationCounter and
// DeleteMemoryCache; CompressElement and UncompressElement;
// SamplingDataset; ParseExampleDataset (V2 and Experimental);
// SnapshotDatasetReader.
// Every OpDef is TensorFlow 2.21's
// (tests/kernels/dataset4_test.cc compares them with
// tests/golden/data/dataset4/tf_op_defs.pbtxt, written by gen_dataset4.py);
// the kernels are in kernels/data/dataset4_kernels.cc.
#include <string>

#include "base/status_macros.h"
#include "graph/ops/ops.h"

namespace dfx {

absl::Status RegisterDataset4Ops(OpRegistry* r) {
  for (const bool v2 : {false, true}) {
    OpDefBuilder b(v2 ? "SaveDatasetV2" : "SaveDataset");
    b.Input("input_dataset: variant")
        .Input("path: string")
        .Input("shard_func_other_args: Tshard_func_args");
    if (v2) b.Output("handle: variant");
    b.Attr("compression: string = ''")
        .Attr("shard_func: func")
        .Attr("use_shard_func: bool = true")
        .Attr("Tshard_func_args: list(type) >= 0");
    if (v2) {
      b.Attr("output_types: list(type) >= 1")
          .Attr("output_shapes: list(shape) >= 1");
    }
    b.SetIsStateful().SetShapeFn([v2](InferenceContext* c) {
      DFX_RETURN_IF_ERROR(c->WithRank(c->input(1), 0));
      return v2 ? shape_fn::Scalar(c) : absl::OkStatus();
    });
    DFX_RETURN_IF_ERROR(r->Register(b));
  }
  DFX_RETURN_IF_ERROR(r->Register(OpDefBuilder("DeleteMemoryCache")
                                      .Input("handle: resource")
                                      .Input("deleter: variant")
                                      .SetIsStateful()
                                      .SetShapeFn(shape_fn::Unknown)));
  DFX_RETURN_IF_ERROR(r->Register(OpDefBuilder("DummyIterationCounter")
                                      .Output("handle: resource")
                                      .SetIsStateful()
                                      .SetShapeFn(shape_fn::Scalar)));
  DFX_RETURN_IF_ERROR(r->Register(OpDefBuilder("CompressElement")
                                      .Input("components: input_types")
                                      .Output("compressed: variant")
                                      .Attr("input_types: list(type) >= 1")
                                      .SetShapeFn(shape_fn::Scalar)));
  DFX_RETURN_IF_ERROR(r->Register(OpDefBuilder("UncompressElement")
                                      .Input("compressed: variant")
                                      .Output("components: output_types")
                                      .Attr("output_types: list(type) >= 1")
                                      .Attr("output_shapes: list(shape) >= 1")
                                      .SetShapeFn([](InferenceContext* c) {
                                        DFX_RETURN_IF_ERROR(
                                            c->WithRank(c->input(0), 0));
                                        return shape_fn::Unknown(c);
                                      })));
  DFX_RETURN_IF_ERROR(r->Register(OpDefBuilder("SamplingDataset")
                                      .Input("input_dataset: variant")
                                      .Input("rate: float")
                                      .Input("seed: int64")
                                      .Input("seed2: int64")
                                      .Output("handle: variant")
                                      .Attr("output_types: list(type) >= 1")
                                      .Attr("output_shapes: list(shape) >= 1")
                                      .SetShapeFn([](InferenceContext* c) {
                                        for (int i = 1; i <= 3; ++i) {
                                          DFX_RETURN_IF_ERROR(
                                              c->WithRank(c->input(i), 0));
                                        }
                                        return shape_fn::Scalar(c);
                                      })));
  for (const char* name : {"ExperimentalParseExampleDataset",
                           "ParseExampleDataset", "ParseExampleDatasetV2"}) {
    const std::string op = name;
    OpDefBuilder b(op);
    b.Input("input_dataset: variant")
        .Input("num_parallel_calls: int64")
        .Input("dense_defaults: Tdense")
        .Output("handle: variant")
        .Attr("sparse_keys: list(string) >= 0")
        .Attr("dense_keys: list(string) >= 0")
        .Attr("sparse_types: list({float,int64,string}) >= 0")
        .Attr("Tdense: list({float,int64,string}) >= 0")
        .Attr("dense_shapes: list(shape) >= 0")
        .Attr("output_types: list(type) >= 1")
        .Attr("output_shapes: list(shape) >= 1");
    if (op == "ParseExampleDatasetV2") {
      b.Attr("deterministic: string = 'default'");
    } else {
      b.Attr("sloppy: bool = false");
    }
    if (op != "ExperimentalParseExampleDataset") {
      b.Attr("ragged_keys: list(string) >= 0 = []")
          .Attr("ragged_value_types: list({float,int64,string}) >= 0 = []")
          .Attr("ragged_split_types: list({int32,int64}) >= 0 = []");
    }
    b.SetShapeFn(shape_fn::Scalar);
    DFX_RETURN_IF_ERROR(r->Register(b));
  }
  DFX_RETURN_IF_ERROR(r->Register(OpDefBuilder("SnapshotDatasetReader")
                                      .Input("shard_dir: string")
                                      .Input("start_index: int64")
                                      .Output("handle: variant")
                                      .Attr("output_types: list(type) >= 1")
                                      .Attr("output_shapes: list(shape) >= 1")
                                      .Attr("compression: string = ''")
                                      .Attr("version: int")
                                      .SetShapeFn(shape_fn::Scalar)));
  return r->Register(OpDefBuilder("LoadDataset")
                         .Input("path: string")
                         .Input("reader_func_other_args: Treader_func_args")
                         .Output("handle: variant")
                         .Attr("output_types: list(type) >= 1")
                         .Attr("output_shapes: list(shape) >= 1")
                         .Attr("compression: string = ''")
                         .Attr("reader_func: func")
                         .Attr("Treader_func_args: list(type) >= 0")
                         .SetIsStateful()
                         .SetShapeFn([](InferenceContext* c) {
                           DFX_RETURN_IF_ERROR(c->WithRank(c->input(0), 0));
                           return shape_fn::Scalar(c);
                         }));
}

}  // namespace dfx
