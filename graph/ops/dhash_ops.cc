// Dense hash tables and the remaining lookup-table ops (TensorFlow's
// lookup_ops.cc, 2.21): MutableDenseHashTableV2
// (tf.lookup.experimental.DenseHashTable) and its v1 form
// MutableDenseHashTable, MutableHashTableOfTensors (the v1 form of
// MutableHashTableOfTensorsV2, lookup_ops.cc) and InitializeTableFromDataset
// (tf.data.experimental.DatasetInitializer), and the Anonymous* tables
// (AnonymousHashTable, AnonymousMutableHashTable,
// AnonymousMutableHashTableOfTensors, AnonymousMutableDenseHashTable: a new
// table per run, what experimental_is_anonymous tables use). The
// LookupTable*V2 ops of
// lookup_ops.cc use the tables. The signatures equal TensorFlow's byte for
// byte (tests/kernels/dhash_test.cc compares them with
// tests/golden/data/dhash/tf_op_defs.pbtxt, written by gen_dhash.py).
// Kernels: kernels/lookup/dense_hash_table.cc, table_from_dataset.cc.
#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "graph/ops/ops.h"

namespace dfx {
namespace {

// The empty key (and the deleted key) is a scalar or a vector; the handle
// a scalar resource or, for the v1 forms, a [2] string reference.
absl::Status DenseTableShapeFn(InferenceContext* c, bool ref) {
  for (int i = 0; i < c->num_inputs(); ++i) {
    if (c->input(i).RankKnown() && c->input(i).rank() > 1) {
      return c->Error(absl::StrCat("Shape must be at most rank 1 but is rank ",
                                   c->input(i).rank()));
    }
  }
  c->set_output(0, ref ? PartialShape::Known({2}) : PartialShape::Scalar());
  return absl::OkStatus();
}

// `v2`: the resource form; `anonymous`: without a name (a table per run).
OpDefBuilder DenseTableOp(const char* name, bool v2, bool anonymous = false) {
  OpDefBuilder b(name);
  b.Input("empty_key: key_dtype");
  if (v2) b.Input("deleted_key: key_dtype");
  b.Output(v2 ? "table_handle: resource" : "table_handle: Ref(string)");
  if (!anonymous) {
    b.Attr("container: string = ''")
        .Attr("shared_name: string = ''")
        .Attr("use_node_name_sharing: bool = false");
  }
  return std::move(b.Attr("key_dtype: type")
                       .Attr("value_dtype: type")
                       .Attr("value_shape: shape = {}")
                       .Attr("initial_num_buckets: int = 131072")
                       .Attr("max_load_factor: float = 0.8")
                       .SetIsStateful()
                       .SetShapeFn([v2](InferenceContext* c) {
                         return DenseTableShapeFn(c, !v2);
                       }));
}

}  // namespace

absl::Status RegisterDhashOps(OpRegistry* r) {
  DFX_RETURN_IF_ERROR(
      r->Register(DenseTableOp("MutableDenseHashTableV2", /*v2=*/true)));
  DFX_RETURN_IF_ERROR(
      r->Register(DenseTableOp("MutableDenseHashTable", /*v2=*/false)));
  DFX_RETURN_IF_ERROR(
      r->Register(OpDefBuilder("MutableHashTableOfTensors")
                      .Output("table_handle: Ref(string)")
                      .Attr("container: string = ''")
                      .Attr("shared_name: string = ''")
                      .Attr("use_node_name_sharing: bool = false")
                      .Attr("key_dtype: type")
                      .Attr("value_dtype: type")
                      .Attr("value_shape: shape = {}")
                      .SetIsStateful()
                      .SetShapeFn([](InferenceContext* c) {
                        c->set_output(0, PartialShape::Known({2}));
                        return absl::OkStatus();
                      })));
  DFX_RETURN_IF_ERROR(r->Register(DenseTableOp(
      "AnonymousMutableDenseHashTable", /*v2=*/true, /*anonymous=*/true)));
  for (const char* op : {"AnonymousHashTable", "AnonymousMutableHashTable"}) {
    DFX_RETURN_IF_ERROR(r->Register(OpDefBuilder(op)
                                        .Output("table_handle: resource")
                                        .Attr("key_dtype: type")
                                        .Attr("value_dtype: type")
                                        .SetIsStateful()
                                        .SetShapeFn(shape_fn::Scalar)));
  }
  DFX_RETURN_IF_ERROR(
      r->Register(OpDefBuilder("AnonymousMutableHashTableOfTensors")
                      .Output("table_handle: resource")
                      .Attr("key_dtype: type")
                      .Attr("value_dtype: type")
                      .Attr("value_shape: shape = {}")
                      .SetIsStateful()
                      .SetShapeFn(shape_fn::Scalar)));
  DFX_RETURN_IF_ERROR(r->Register(OpDefBuilder("InitializeTableFromDataset")
                                      .Input("table_handle: resource")
                                      .Input("dataset: variant")
                                      .SetIsStateful()
                                      .SetShapeFn([](InferenceContext* c) {
                                        DFX_RETURN_IF_ERROR(
                                            c->WithRank(c->input(0), 0));
                                        return c->WithRank(c->input(1), 0);
                                      })));
  return absl::OkStatus();
}

}  // namespace dfx
