// The readers2 family: SqlDataset and ExperimentalSqlDataset (rows of a
// SQLite query), and the LMDB ops TensorFlow 2.21 still declares
// (LMDBDataset, ExperimentalLMDBDataset, LMDBReader) although its kernels
// only answer that LMDB support is removed. Every OpDef is TensorFlow
// 2.21's (tests/kernels/readers2_test.cc compares them with
// tests/golden/data/readers2/tf_op_defs.pbtxt, written by gen_readers2.py);
// the kernels are in kernels/data/readers2_kernels.cc.
#include "base/status_macros.h"
#include "graph/ops/ops.h"

namespace dfx {

absl::Status RegisterReaders2Ops(OpRegistry* r) {
  for (const char* name : {"SqlDataset", "ExperimentalSqlDataset"}) {
    DFX_RETURN_IF_ERROR(r->Register(OpDefBuilder(name)
                                        .Input("driver_name: string")
                                        .Input("data_source_name: string")
                                        .Input("query: string")
                                        .Output("handle: variant")
                                        .Attr("output_types: list(type) >= 1")
                                        .Attr("output_shapes: list(shape) >= 1")
                                        .SetIsStateful()
                                        .SetShapeFn([](InferenceContext* c) {
                                          // driver_name, data_source_name and
                                          // query are scalars.
                                          for (int i = 0; i < 3; ++i) {
                                            DFX_RETURN_IF_ERROR(
                                                c->WithRank(c->input(i), 0));
                                          }
                                          return shape_fn::Scalar(c);
                                        })));
  }
  for (const char* name : {"LMDBDataset", "ExperimentalLMDBDataset"}) {
    DFX_RETURN_IF_ERROR(r->Register(OpDefBuilder(name)
                                        .Input("filenames: string")
                                        .Output("handle: variant")
                                        .Attr("output_types: list(type) >= 1")
                                        .Attr("output_shapes: list(shape) >= 1")
                                        .SetIsStateful()
                                        .SetShapeFn(shape_fn::Scalar)));
  }
  return r->Register(OpDefBuilder("LMDBReader")
                         .Output("reader_handle: Ref(string)")
                         .Attr("container: string = ''")
                         .Attr("shared_name: string = ''")
                         .SetIsStateful()
                         .SetShapeFn([](InferenceContext* c) {
                           c->set_output(0, PartialShape::Known({2}));
                           return absl::OkStatus();
                         }));
}

}  // namespace dfx
