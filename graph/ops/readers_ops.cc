// TF1 readers: TFRecordReader, TextLineReader, FixedLengthRecordReader,
// WholeFileReader and IdentityReader in their resource (V2) and reference
// string forms, the Reader* ops that read from them, MatchingFiles and
// WriteFile. Signatures equal TensorFlow 2.21's byte for byte
// (tests/kernels/readers_test.cc compares them with
// tests/golden/data/readers/tf_op_defs.pbtxt, written by gen_readers.py).
// The kernels are in kernels/readers/.
#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "graph/ops/ops.h"

namespace dfx {
namespace {

// Input `i` is a reference reader or queue handle: TensorFlow's [2]
// strings.
absl::Status TwoElementVector(InferenceContext* c, int i) {
  const PartialShape& s = c->input(i);
  DFX_RETURN_IF_ERROR(c->WithRank(s, 1));
  if (s.RankKnown() && s.dims[0] >= 0 && s.dims[0] != 2) {
    return c->Error(absl::StrCat("Dimension must be 2 but is ", s.dims[0]));
  }
  return absl::OkStatus();
}

// The handle inputs (the first `handles`) are [2] strings in the v1 forms
// and scalars in the V2 forms; the other inputs up to `scalars` are
// scalars; every output is a scalar (or, with `vectors`, a vector).
absl::Status ReaderVerbShape(InferenceContext* c, bool v1, int handles,
                             bool vectors) {
  for (int i = 0; i < c->num_inputs(); ++i) {
    if (v1 && i < handles) {
      DFX_RETURN_IF_ERROR(TwoElementVector(c, i));
    } else {
      DFX_RETURN_IF_ERROR(c->WithRank(c->input(i), 0));
    }
  }
  for (int i = 0; i < c->num_outputs(); ++i) {
    c->set_output(i, vectors ? PartialShape::Known({-1})
                             : PartialShape::Scalar());
  }
  return absl::OkStatus();
}

// A reader op `base` (+ "V2" for the resource form) with `attrs`.
absl::Status RegisterReader(OpRegistry* r, const std::string& base,
                            const std::vector<std::string>& attrs,
                            const std::vector<std::string>& v2_only_attrs,
                            bool deprecated_v1) {
  for (bool v1 : {false, true}) {
    OpDefBuilder b(v1 ? base : absl::StrCat(base, "V2"));
    b.Output(v1 ? "reader_handle: Ref(string)" : "reader_handle: resource");
    for (const std::string& a : attrs) b.Attr(a);
    if (!v1) {
      for (const std::string& a : v2_only_attrs) b.Attr(a);
    }
    b.SetIsStateful();
    b.SetShapeFn([v1](InferenceContext* c) {
      c->set_output(0, v1 ? PartialShape::Known({2}) : PartialShape::Scalar());
      return absl::OkStatus();
    });
    if (!(v1 && deprecated_v1)) {
      DFX_RETURN_IF_ERROR(r->Register(std::move(b)));
      continue;
    }
    // TensorFlow deprecated the reference forms at GraphDef version 26
    // (a field OpDefBuilder has no setter for).
    DFX_ASSIGN_OR_RETURN(OpRegistrationData data, b.Finalize());
    data.op_def.mutable_deprecation()->set_version(26);
    data.op_def.mutable_deprecation()->set_explanation(
        absl::StrCat("Use ", base, "V2"));
    DFX_RETURN_IF_ERROR(r->Register(std::move(data)));
  }
  return absl::OkStatus();
}

// The ops on a reader: `v1` the reference forms (not stateful in
// TensorFlow: they reach their state through the reference).
absl::Status RegisterReaderVerbs(OpRegistry* r, bool v1) {
  const char* reader = v1 ? "reader_handle: Ref(string)"
                          : "reader_handle: resource";
  const char* queue = v1 ? "queue_handle: Ref(string)"
                         : "queue_handle: resource";
  auto op = [&](const char* base) {
    OpDefBuilder b(v1 ? std::string(base) : absl::StrCat(base, "V2"));
    b.Input(reader);
    if (!v1) b.SetIsStateful();
    return b;
  };
  auto shape = [v1](int handles, bool vectors) {
    return [v1, handles, vectors](InferenceContext* c) {
      return ReaderVerbShape(c, v1, handles, vectors);
    };
  };
  {
    OpDefBuilder b = op("ReaderRead");
    b.Input(queue).Output("key: string").Output("value: string");
    DFX_RETURN_IF_ERROR(r->Register(std::move(b.SetShapeFn(shape(2, false)))));
  }
  {
    OpDefBuilder b = op("ReaderReadUpTo");
    b.Input(queue)
        .Input("num_records: int64")
        .Output("keys: string")
        .Output("values: string");
    DFX_RETURN_IF_ERROR(r->Register(std::move(b.SetShapeFn(shape(2, true)))));
  }
  {
    OpDefBuilder b = op("ReaderNumRecordsProduced");
    b.Output("records_produced: int64");
    DFX_RETURN_IF_ERROR(r->Register(std::move(b.SetShapeFn(shape(1, false)))));
  }
  {
    OpDefBuilder b = op("ReaderNumWorkUnitsCompleted");
    b.Output("units_completed: int64");
    DFX_RETURN_IF_ERROR(r->Register(std::move(b.SetShapeFn(shape(1, false)))));
  }
  {
    OpDefBuilder b = op("ReaderSerializeState");
    b.Output("state: string");
    DFX_RETURN_IF_ERROR(r->Register(std::move(b.SetShapeFn(shape(1, false)))));
  }
  {
    OpDefBuilder b = op("ReaderRestoreState");
    b.Input("state: string");
    DFX_RETURN_IF_ERROR(r->Register(std::move(b.SetShapeFn(shape(1, false)))));
  }
  {
    OpDefBuilder b = op("ReaderReset");
    DFX_RETURN_IF_ERROR(r->Register(std::move(b.SetShapeFn(shape(1, false)))));
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status RegisterReadersOps(OpRegistry* r) {
  const std::string container = "container: string = ''";
  const std::string shared = "shared_name: string = ''";
  DFX_RETURN_IF_ERROR(RegisterReader(
      r, "TFRecordReader",
      {container, shared, "compression_type: string = ''"}, {}, true));
  DFX_RETURN_IF_ERROR(RegisterReader(
      r, "TextLineReader", {"skip_header_lines: int = 0", container, shared},
      {}, true));
  DFX_RETURN_IF_ERROR(RegisterReader(
      r, "FixedLengthRecordReader",
      {"header_bytes: int = 0", "record_bytes: int", "footer_bytes: int = 0",
       "hop_bytes: int = 0", container, shared},
      {"encoding: string = ''"}, true));
  DFX_RETURN_IF_ERROR(
      RegisterReader(r, "WholeFileReader", {container, shared}, {}, false));
  DFX_RETURN_IF_ERROR(
      RegisterReader(r, "IdentityReader", {container, shared}, {}, true));
  DFX_RETURN_IF_ERROR(RegisterReaderVerbs(r, /*v1=*/false));
  DFX_RETURN_IF_ERROR(RegisterReaderVerbs(r, /*v1=*/true));
  DFX_RETURN_IF_ERROR(r->Register(
      OpDefBuilder("MatchingFiles")
          .Input("pattern: string")
          .Output("filenames: string")
          .SetShapeFn([](InferenceContext* c) {
            const PartialShape& p = c->input(0);
            if (p.RankKnown() && p.dims.size() > 1) {
              return c->Error(absl::StrCat(
                  "Shape must be at most rank 1 but is rank ",
                  p.dims.size()));
            }
            c->set_output(0, PartialShape::Known({-1}));
            return absl::OkStatus();
          })));
  DFX_RETURN_IF_ERROR(r->Register(
      OpDefBuilder("WriteFile")
          .Input("filename: string")
          .Input("contents: string")
          .SetIsStateful()
          .SetShapeFn([](InferenceContext* c) {
            DFX_RETURN_IF_ERROR(c->WithRank(c->input(0), 0));
            return c->WithRank(c->input(1), 0);
          })));
  return absl::OkStatus();
}

}  // namespace dfx
