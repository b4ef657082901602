// String ops (TensorFlow 2.21's string_ops.cc): case mapping, lengths,
// substrings, stripping, number parsing and printing, joins and splits,
// regex replacement, base64 and hash buckets. Signatures equal
// TensorFlow's byte for byte (tests/kernels/string_ops_test.cc compares
// them with tests/golden/data/strings/tf_op_defs.pbtxt, written by
// gen_strings.py). Kernels: kernels/strings/.
#include "base/status_macros.h"
#include "graph/ops/ops.h"
#include "graph/ops/string_ops.h"

namespace dfx {
namespace {

// Substr: pos and len have one shape, which broadcasts with the input's.
absl::Status SubstrShapeFn(InferenceContext* c) {
  PartialShape pos_len;
  DFX_RETURN_IF_ERROR(c->Merge(c->input(1), c->input(2), &pos_len));
  PartialShape out;
  DFX_RETURN_IF_ERROR(c->BroadcastBinary(c->input(0), pos_len, &out));
  c->set_output(0, std::move(out));
  return absl::OkStatus();
}

// RegexReplace: the pattern and the rewrite are scalars.
absl::Status RegexReplaceShapeFn(InferenceContext* c) {
  DFX_RETURN_IF_ERROR(c->WithRank(c->input(1), 0));
  DFX_RETURN_IF_ERROR(c->WithRank(c->input(2), 0));
  c->set_output(0, c->input(0));
  return absl::OkStatus();
}

OpDefBuilder StringToString(const char* name) {
  return std::move(OpDefBuilder(name)
                       .Input("input: string")
                       .Output("output: string")
                       .SetShapeFn(shape_fn::UnchangedShape));
}

}  // namespace

absl::Status StringSplitShapeFn(InferenceContext* c) {
  DFX_RETURN_IF_ERROR(c->WithRank(c->input(0), 1));
  DFX_RETURN_IF_ERROR(c->WithRank(c->input(1), 0));
  c->set_output(0, PartialShape::Known({-1, 2}));
  c->set_output(1, PartialShape::Known({-1}));
  c->set_output(2, PartialShape::Known({2}));
  return absl::OkStatus();
}

absl::Status RegisterStringOps(OpRegistry* r) {
  DFX_RETURN_IF_ERROR(
      r->Register(StringToString("StringLower").Attr("encoding: string = ''")));
  DFX_RETURN_IF_ERROR(
      r->Register(StringToString("StringUpper").Attr("encoding: string = ''")));
  DFX_RETURN_IF_ERROR(r->Register(StringToString("StringStrip")));
  DFX_RETURN_IF_ERROR(
      r->Register(OpDefBuilder("StringLength")
                      .Input("input: string")
                      .Output("output: int32")
                      .Attr("unit: {'BYTE', 'UTF8_CHAR'} = 'BYTE'")
                      .SetShapeFn(shape_fn::UnchangedShape)));
  DFX_RETURN_IF_ERROR(
      r->Register(OpDefBuilder("Substr")
                      .Input("input: string")
                      .Input("pos: T")
                      .Input("len: T")
                      .Output("output: string")
                      .Attr("T: {int32, int64}")
                      .Attr("unit: {'BYTE', 'UTF8_CHAR'} = 'BYTE'")
                      .SetShapeFn(SubstrShapeFn)));
  DFX_RETURN_IF_ERROR(r->Register(
      OpDefBuilder("StringToNumber")
          .Input("string_tensor: string")
          .Output("output: out_type")
          .Attr("out_type: {float, double, int32, int64, uint32, uint64} = "
                "DT_FLOAT")
          .SetShapeFn(shape_fn::UnchangedShape)));
  DFX_RETURN_IF_ERROR(r->Register(
      OpDefBuilder("AsString")
          .Input("input: T")
          .Output("output: string")
          .Attr("T: {float, double, int32, uint8, int16, int8, int64, "
                "bfloat16, uint16, half, uint32, uint64, complex64, "
                "complex128, bool, variant, string}")
          .Attr("precision: int = -1")
          .Attr("scientific: bool = false")
          .Attr("shortest: bool = false")
          .Attr("width: int = -1")
          .Attr("fill: string = ''")
          .SetShapeFn(shape_fn::UnchangedShape)));
  DFX_RETURN_IF_ERROR(r->Register(OpDefBuilder("ReduceJoin")
                                      .Input("inputs: string")
                                      .Input("reduction_indices: int32")
                                      .Output("output: string")
                                      .Attr("keep_dims: bool = false")
                                      .Attr("separator: string = ''")
                                      .SetShapeFn(shape_fn::Unknown)));
  DFX_RETURN_IF_ERROR(r->Register(OpDefBuilder("StringSplitV2")
                                      .Input("input: string")
                                      .Input("sep: string")
                                      .Output("indices: int64")
                                      .Output("values: string")
                                      .Output("shape: int64")
                                      .Attr("maxsplit: int = -1")
                                      .SetShapeFn(StringSplitShapeFn)));
  DFX_RETURN_IF_ERROR(r->Register(StringToString("StaticRegexReplace")
                                      .Attr("pattern: string")
                                      .Attr("rewrite: string")
                                      .Attr("replace_global: bool = true")));
  DFX_RETURN_IF_ERROR(r->Register(OpDefBuilder("RegexReplace")
                                      .Input("input: string")
                                      .Input("pattern: string")
                                      .Input("rewrite: string")
                                      .Output("output: string")
                                      .Attr("replace_global: bool = true")
                                      .SetShapeFn(RegexReplaceShapeFn)));
  DFX_RETURN_IF_ERROR(
      r->Register(StringToString("EncodeBase64").Attr("pad: bool = false")));
  DFX_RETURN_IF_ERROR(r->Register(StringToString("DecodeBase64")));
  DFX_RETURN_IF_ERROR(r->Register(OpDefBuilder("StringToHashBucketFast")
                                      .Input("input: string")
                                      .Output("output: int64")
                                      .Attr("num_buckets: int >= 1")
                                      .SetShapeFn(shape_fn::UnchangedShape)));
  DFX_RETURN_IF_ERROR(r->Register(OpDefBuilder("StringToHashBucket")
                                      .Input("string_tensor: string")
                                      .Output("output: int64")
                                      .Attr("num_buckets: int >= 1")
                                      .SetShapeFn(shape_fn::UnchangedShape)));
  DFX_RETURN_IF_ERROR(r->Register(OpDefBuilder("StringToHashBucketStrong")
                                      .Input("input: string")
                                      .Output("output: int64")
                                      .Attr("num_buckets: int >= 1")
                                      .Attr("key: list(int)")
                                      .SetShapeFn(shape_fn::UnchangedShape)));
  return absl::OkStatus();
}

}  // namespace dfx
