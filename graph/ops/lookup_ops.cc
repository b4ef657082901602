// Lookup tables (TensorFlow's lookup_ops.cc, 2.21): HashTableV2 and
// MutableHashTableV2 make a table resource (HashTable and MutableHashTable,
// the TF1 forms, a reference to a [2] string handle, which the TF1 forms of
// the other ops take); InitializeTableV2 and
// InitializeTableFromTextFileV2 fill a HashTable once; LookupTableFindV2,
// InsertV2, RemoveV2, ImportV2, ExportV2 and SizeV2 use any table. The
// signatures equal TensorFlow's byte for byte (tests/kernels/lookup_test.cc
// compares them with tests/golden/data/lookup/tf_op_defs.pbtxt, written by
// gen_lookup.py). Kernels: kernels/lookup/.
#include "base/status_macros.h"
#include "graph/ops/ops.h"

namespace dfx {
namespace {

// The handle input is a scalar.
absl::Status ScalarHandleInput(InferenceContext* c) {
  return c->WithRank(c->input(0), 0);
}

// Find: dfx carries no key or value shape on a table handle, so, as
// TensorFlow does without that handle data, the values' shape is unknown.
absl::Status FindShapeFn(InferenceContext* c) {
  DFX_RETURN_IF_ERROR(ScalarHandleInput(c));
  c->set_output(0, PartialShape::Unknown());
  return absl::OkStatus();
}

absl::Status SizeShapeFn(InferenceContext* c) {
  DFX_RETURN_IF_ERROR(ScalarHandleInput(c));
  c->set_output(0, PartialShape::Scalar());
  return absl::OkStatus();
}

// Export: keys and values are (at least) vectors of the table's size.
absl::Status ExportShapeFn(InferenceContext* c) {
  DFX_RETURN_IF_ERROR(ScalarHandleInput(c));
  c->set_output(0, PartialShape::Known({-1}));
  c->set_output(1, PartialShape::Unknown());
  return absl::OkStatus();
}

// InitializeTableV2: keys and values are vectors of one length.
absl::Status InitializeShapeFn(InferenceContext* c) {
  DFX_RETURN_IF_ERROR(ScalarHandleInput(c));
  DFX_RETURN_IF_ERROR(c->WithRank(c->input(1), 1));
  DFX_RETURN_IF_ERROR(c->WithRank(c->input(2), 1));
  PartialShape merged;
  return c->Merge(c->input(1), c->input(2), &merged);
}

// The TF1 forms: the handle is a reference to 2 strings.
absl::Status RefHandleInput(InferenceContext* c) {
  PartialShape handle;
  return c->Merge(c->input(0), PartialShape::Known({2}), &handle);
}
absl::Status RefHandleOutput(InferenceContext* c) {
  c->set_output(0, PartialShape::Known({2}));
  return absl::OkStatus();
}
absl::Status RefFindShapeFn(InferenceContext* c) {
  DFX_RETURN_IF_ERROR(RefHandleInput(c));
  c->set_output(0, PartialShape::Unknown());
  return absl::OkStatus();
}
absl::Status RefSizeShapeFn(InferenceContext* c) {
  DFX_RETURN_IF_ERROR(RefHandleInput(c));
  c->set_output(0, PartialShape::Scalar());
  return absl::OkStatus();
}
absl::Status RefExportShapeFn(InferenceContext* c) {
  DFX_RETURN_IF_ERROR(RefHandleInput(c));
  c->set_output(0, PartialShape::Known({-1}));
  c->set_output(1, PartialShape::Unknown());
  return absl::OkStatus();
}

absl::Status InitializeFromTextFileShapeFn(InferenceContext* c) {
  DFX_RETURN_IF_ERROR(ScalarHandleInput(c));
  return c->WithRank(c->input(1), 0);
}

OpDefBuilder TableOp(const char* name, const char* handle) {
  return std::move(OpDefBuilder(name)
                       .Output(handle)
                       .Attr("container: string = ''")
                       .Attr("shared_name: string = ''")
                       .Attr("use_node_name_sharing: bool = false")
                       .Attr("key_dtype: type")
                       .Attr("value_dtype: type")
                       .SetIsStateful()
                       .SetShapeFn(shape_fn::Scalar));
}

}  // namespace

absl::Status RegisterLookupOps(OpRegistry* r) {
  DFX_RETURN_IF_ERROR(
      r->Register(TableOp("HashTableV2", "table_handle: resource")));
  DFX_RETURN_IF_ERROR(
      r->Register(TableOp("MutableHashTableV2", "table_handle: resource")));
  DFX_RETURN_IF_ERROR(r->Register(
      TableOp("MutableHashTableOfTensorsV2", "table_handle: resource")
          .Attr("value_shape: shape = {}")));
  DFX_RETURN_IF_ERROR(r->Register(OpDefBuilder("LookupTableImportV2")
                                      .Input("table_handle: resource")
                                      .Input("keys: Tin")
                                      .Input("values: Tout")
                                      .Attr("Tin: type")
                                      .Attr("Tout: type")
                                      .SetIsStateful()
                                      .SetShapeFn(ScalarHandleInput)));
  DFX_RETURN_IF_ERROR(r->Register(OpDefBuilder("LookupTableFindV2")
                                      .Input("table_handle: resource")
                                      .Input("keys: Tin")
                                      .Input("default_value: Tout")
                                      .Output("values: Tout")
                                      .Attr("Tin: type")
                                      .Attr("Tout: type")
                                      .SetIsStateful()
                                      .SetShapeFn(FindShapeFn)));
  DFX_RETURN_IF_ERROR(r->Register(OpDefBuilder("LookupTableInsertV2")
                                      .Input("table_handle: resource")
                                      .Input("keys: Tin")
                                      .Input("values: Tout")
                                      .Attr("Tin: type")
                                      .Attr("Tout: type")
                                      .SetIsStateful()
                                      .SetShapeFn(ScalarHandleInput)));
  DFX_RETURN_IF_ERROR(r->Register(OpDefBuilder("LookupTableRemoveV2")
                                      .Input("table_handle: resource")
                                      .Input("keys: Tin")
                                      .Attr("Tin: type")
                                      .SetIsStateful()
                                      .SetShapeFn(ScalarHandleInput)));
  DFX_RETURN_IF_ERROR(r->Register(OpDefBuilder("LookupTableSizeV2")
                                      .Input("table_handle: resource")
                                      .Output("size: int64")
                                      .SetIsStateful()
                                      .SetShapeFn(SizeShapeFn)));
  DFX_RETURN_IF_ERROR(r->Register(OpDefBuilder("LookupTableExportV2")
                                      .Input("table_handle: resource")
                                      .Output("keys: Tkeys")
                                      .Output("values: Tvalues")
                                      .Attr("Tkeys: type")
                                      .Attr("Tvalues: type")
                                      .SetIsStateful()
                                      .SetShapeFn(ExportShapeFn)));
  DFX_RETURN_IF_ERROR(r->Register(OpDefBuilder("InitializeTableV2")
                                      .Input("table_handle: resource")
                                      .Input("keys: Tkey")
                                      .Input("values: Tval")
                                      .Attr("Tkey: type")
                                      .Attr("Tval: type")
                                      .SetIsStateful()
                                      .SetShapeFn(InitializeShapeFn)));
  DFX_RETURN_IF_ERROR(
      r->Register(OpDefBuilder("InitializeTableFromTextFileV2")
                      .Input("table_handle: resource")
                      .Input("filename: string")
                      .Attr("key_index: int >= -2")
                      .Attr("value_index: int >= -2")
                      .Attr("vocab_size: int >= -1 = -1")
                      .Attr("delimiter: string = '\t'")
                      .Attr("offset: int = 0")
                      .SetIsStateful()
                      .SetShapeFn(InitializeFromTextFileShapeFn)));

  // TF1 forms (not stateful in TensorFlow, but for the table ops).
  DFX_RETURN_IF_ERROR(
      r->Register(TableOp("HashTable", "table_handle: Ref(string)")
                      .SetShapeFn(RefHandleOutput)));
  DFX_RETURN_IF_ERROR(
      r->Register(TableOp("MutableHashTable", "table_handle: Ref(string)")
                      .SetShapeFn(RefHandleOutput)));
  DFX_RETURN_IF_ERROR(r->Register(OpDefBuilder("LookupTableFind")
                                      .Input("table_handle: Ref(string)")
                                      .Input("keys: Tin")
                                      .Input("default_value: Tout")
                                      .Output("values: Tout")
                                      .Attr("Tin: type")
                                      .Attr("Tout: type")
                                      .SetShapeFn(RefFindShapeFn)));
  DFX_RETURN_IF_ERROR(r->Register(OpDefBuilder("LookupTableInsert")
                                      .Input("table_handle: Ref(string)")
                                      .Input("keys: Tin")
                                      .Input("values: Tout")
                                      .Attr("Tin: type")
                                      .Attr("Tout: type")
                                      .SetShapeFn(RefHandleInput)));
  DFX_RETURN_IF_ERROR(r->Register(OpDefBuilder("LookupTableSize")
                                      .Input("table_handle: Ref(string)")
                                      .Output("size: int64")
                                      .SetShapeFn(RefSizeShapeFn)));
  DFX_RETURN_IF_ERROR(r->Register(OpDefBuilder("LookupTableExport")
                                      .Input("table_handle: Ref(string)")
                                      .Output("keys: Tkeys")
                                      .Output("values: Tvalues")
                                      .Attr("Tkeys: type")
                                      .Attr("Tvalues: type")
                                      .SetShapeFn(RefExportShapeFn)));
  DFX_RETURN_IF_ERROR(r->Register(OpDefBuilder("LookupTableImport")
                                      .Input("table_handle: Ref(string)")
                                      .Input("keys: Tin")
                                      .Input("values: Tout")
                                      .Attr("Tin: type")
                                      .Attr("Tout: type")
                                      .SetShapeFn(RefHandleInput)));
  DFX_RETURN_IF_ERROR(r->Register(OpDefBuilder("InitializeTable")
                                      .Input("table_handle: Ref(string)")
                                      .Input("keys: Tkey")
                                      .Input("values: Tval")
                                      .Attr("Tkey: type")
                                      .Attr("Tval: type")
                                      .SetShapeFn(RefHandleInput)));
  DFX_RETURN_IF_ERROR(r->Register(OpDefBuilder("InitializeTableFromTextFile")
                                      .Input("table_handle: Ref(string)")
                                      .Input("filename: string")
                                      .Attr("key_index: int >= -2")
                                      .Attr("value_index: int >= -2")
                                      .Attr("vocab_size: int >= -1 = -1")
                                      .Attr("delimiter: string = '\t'")
                                      .Attr("offset: int = 0")
                                      .SetShapeFn(RefHandleInput)));
  return absl::OkStatus();
}

}  // namespace dfx
