// Text, set and parsing ops (TensorFlow 2.21's string_ops.cc, set_ops.cc,
// parsing_ops.cc, array_ops.cc): RegexFullMatch, StringSplit, StringNGrams,
// UnsortedSegmentJoin, UnicodeDecode(WithOffsets), UnicodeEncode,
// UnicodeTranscode, UnicodeScript, DecodeCSV, ParseTensor, SerializeTensor,
// Fingerprint, EditDistance, SetSize, the three set operations and ListDiff.
// Signatures equal TensorFlow's byte for byte (tests/kernels/text_test.cc
// compares them with tests/golden/data/text/tf_op_defs.pbtxt, written by
// gen_text.py). Kernels: kernels/text/.
#include <initializer_list>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "graph/ops/ops.h"
#include "graph/ops/string_ops.h"

namespace dfx {
namespace {

absl::Status RankAtLeast(InferenceContext* c, int input, int rank) {
  const PartialShape& s = c->input(input);
  if (s.RankKnown() && s.rank() < rank) {
    return c->Error(absl::StrCat("Shape must be at least rank ", rank,
                                 " but is rank ", s.rank()));
  }
  return absl::OkStatus();
}

// The sparse outputs of a set operation of rank `rank` (-1 unknown).
void SetSparseOutputs(InferenceContext* c, int64_t rank) {
  c->set_output(0, PartialShape::Known({-1, rank}));
  c->set_output(1, PartialShape::Known({-1}));
  c->set_output(2, PartialShape::Known({rank}));
}

// The length of a shape vector input (-1 unknown).
int64_t VectorLength(InferenceContext* c, int input) {
  const PartialShape& s = c->input(input);
  return s.RankKnown() && s.rank() == 1 ? s.dims[0] : -1;
}

absl::Status DenseToDenseSetShapeFn(InferenceContext* c) {
  DFX_RETURN_IF_ERROR(RankAtLeast(c, 0, 2));
  DFX_RETURN_IF_ERROR(RankAtLeast(c, 1, 2));
  const PartialShape& a = c->input(0);
  const PartialShape& b = c->input(1);
  int64_t rank = -1;
  if (a.RankKnown() && b.RankKnown()) {
    if (a.rank() != b.rank()) {
      return c->Error(absl::StrCat("Shapes must be equal rank, but are ",
                                   a.rank(), " and ", b.rank()));
    }
  }
  if (a.RankKnown()) rank = a.rank();
  if (b.RankKnown()) rank = b.rank();
  SetSparseOutputs(c, rank);
  return absl::OkStatus();
}

absl::Status DenseToSparseSetShapeFn(InferenceContext* c) {
  DFX_RETURN_IF_ERROR(RankAtLeast(c, 0, 2));
  DFX_RETURN_IF_ERROR(c->WithRank(c->input(1), 2));
  DFX_RETURN_IF_ERROR(c->WithRank(c->input(2), 1));
  DFX_RETURN_IF_ERROR(c->WithRank(c->input(3), 1));
  const PartialShape& a = c->input(0);
  SetSparseOutputs(c, a.RankKnown() ? a.rank() : VectorLength(c, 3));
  return absl::OkStatus();
}

absl::Status SparseToSparseSetShapeFn(InferenceContext* c) {
  for (int i : {0, 3}) DFX_RETURN_IF_ERROR(c->WithRank(c->input(i), 2));
  for (int i : {1, 2, 4, 5}) DFX_RETURN_IF_ERROR(c->WithRank(c->input(i), 1));
  int64_t rank = VectorLength(c, 2);
  if (rank < 0) rank = VectorLength(c, 5);
  SetSparseOutputs(c, rank);
  return absl::OkStatus();
}

absl::Status RegexFullMatchShapeFn(InferenceContext* c) {
  DFX_RETURN_IF_ERROR(c->WithRank(c->input(1), 0));
  c->set_output(0, c->input(0));
  return absl::OkStatus();
}

absl::Status StringNGramsShapeFn(InferenceContext* c) {
  DFX_RETURN_IF_ERROR(c->WithRank(c->input(0), 1));
  DFX_RETURN_IF_ERROR(c->WithRank(c->input(1), 1));
  c->set_output(0, PartialShape::Known({-1}));
  c->set_output(
      1, c->input(1).RankKnown() ? c->input(1) : PartialShape::Known({-1}));
  return absl::OkStatus();
}

// UnsortedSegmentJoin: [num_segments] + data.shape[rank(segment_ids):]
// when num_segments is a constant and both ranks are known.
absl::Status UnsortedSegmentJoinShapeFn(InferenceContext* c) {
  DFX_RETURN_IF_ERROR(c->WithRank(c->input(2), 0));
  const PartialShape& data = c->input(0);
  const PartialShape& ids = c->input(1);
  std::vector<int64_t> num;
  if (!data.RankKnown() || !ids.RankKnown()) {
    c->set_output(0, PartialShape::Unknown());
    return absl::OkStatus();
  }
  if (ids.rank() > data.rank()) {
    return c->Error(absl::StrCat("Shape must be at least rank ", ids.rank(),
                                 " but is rank ", data.rank()));
  }
  std::vector<int64_t> dims = {-1};
  if (ConstantInts(c->input_tensor(2), &num) && num.size() == 1) {
    dims[0] = num[0];
  }
  for (int d = ids.rank(); d < data.rank(); ++d) dims.push_back(data.dims[d]);
  c->set_output(0, PartialShape::Known(std::move(dims)));
  return absl::OkStatus();
}

absl::Status FingerprintShapeFn(InferenceContext* c) {
  DFX_RETURN_IF_ERROR(RankAtLeast(c, 0, 1));
  DFX_RETURN_IF_ERROR(c->WithRank(c->input(1), 0));
  const PartialShape& data = c->input(0);
  c->set_output(0, PartialShape::Known(
                       {data.RankKnown() ? data.dims[0] : int64_t{-1}, 8}));
  return absl::OkStatus();
}

// EditDistance: the output's shape is the elementwise maximum of the two
// dense shapes without their last dim, known when both are constants.
absl::Status EditDistanceShapeFn(InferenceContext* c) {
  std::vector<int64_t> hyp, truth;
  if (!ConstantInts(c->input_tensor(2), &hyp) ||
      !ConstantInts(c->input_tensor(5), &truth)) {
    c->set_output(0, PartialShape::Unknown());
    return absl::OkStatus();
  }
  if (hyp.size() != truth.size()) {
    return c->Error(
        absl::StrCat("Dimension 0 in both shapes must be equal, but are ",
                     hyp.size(), " and ", truth.size()));
  }
  std::vector<int64_t> dims;
  for (size_t d = 0; d + 1 < hyp.size(); ++d) {
    dims.push_back(std::max(hyp[d], truth[d]));
  }
  c->set_output(0, PartialShape::Known(std::move(dims)));
  return absl::OkStatus();
}

absl::Status DecodeCsvShapeFn(InferenceContext* c) {
  for (int i = 1; i < c->num_inputs(); ++i) {
    const PartialShape& d = c->input(i);
    if (d.RankKnown() && (d.rank() > 1 || (d.rank() == 1 && d.dims[0] > 1))) {
      return c->Error(
          "Shape of a default must be a length-0 or length-1 vector, or a "
          "scalar.");
    }
  }
  for (int i = 0; i < c->num_outputs(); ++i) c->set_output(i, c->input(0));
  return absl::OkStatus();
}

// UnicodeDecode(WithOffsets): [input elements + 1] row splits, then one
// value (and one offset) per character.
absl::Status UnicodeDecodeShapeFn(InferenceContext* c) {
  const PartialShape& in = c->input(0);
  int64_t n = -1;
  if (in.FullyDefined()) {
    n = 1;
    for (int64_t d : in.dims) n *= d;
  }
  c->set_output(0, PartialShape::Known({n < 0 ? -1 : n + 1}));
  for (int i = 1; i < c->num_outputs(); ++i) {
    c->set_output(i, PartialShape::Known({-1}));
  }
  return absl::OkStatus();
}

absl::Status UnicodeEncodeShapeFn(InferenceContext* c) {
  DFX_RETURN_IF_ERROR(c->WithRank(c->input(0), 1));
  DFX_RETURN_IF_ERROR(c->WithRank(c->input(1), 1));
  const PartialShape& splits = c->input(1);
  const int64_t n = splits.RankKnown() ? splits.dims[0] : -1;
  c->set_output(0, PartialShape::Known({n < 0 ? -1 : n - 1}));
  return absl::OkStatus();
}

absl::Status ListDiffShapeFn(InferenceContext* c) {
  DFX_RETURN_IF_ERROR(c->WithRank(c->input(0), 1));
  DFX_RETURN_IF_ERROR(c->WithRank(c->input(1), 1));
  c->set_output(0, PartialShape::Known({-1}));
  c->set_output(1, PartialShape::Known({-1}));
  return absl::OkStatus();
}

constexpr char kSetTypes[] =
    "T: {int8, int16, int32, int64, uint8, uint16, string}";

// A set operation's OpDef: `inputs`, then the sparse result and the attrs
// all three share.
OpDefBuilder SetOperation(const char* name,
                          std::initializer_list<const char*> inputs) {
  OpDefBuilder b(name);
  for (const char* in : inputs) b.Input(in);
  b.Output("result_indices: int64")
      .Output("result_values: T")
      .Output("result_shape: int64")
      .Attr("set_operation: string")
      .Attr("validate_indices: bool = true")
      .Attr(kSetTypes);
  return b;
}

}  // namespace

absl::Status RegisterTextOps(OpRegistry* r) {
  DFX_RETURN_IF_ERROR(r->Register(OpDefBuilder("RegexFullMatch")
                                      .Input("input: string")
                                      .Input("pattern: string")
                                      .Output("output: bool")
                                      .SetShapeFn(RegexFullMatchShapeFn)));
  DFX_RETURN_IF_ERROR(r->Register(OpDefBuilder("StringSplit")
                                      .Input("input: string")
                                      .Input("delimiter: string")
                                      .Output("indices: int64")
                                      .Output("values: string")
                                      .Output("shape: int64")
                                      .Attr("skip_empty: bool = true")
                                      .SetShapeFn(StringSplitShapeFn)));
  DFX_RETURN_IF_ERROR(
      r->Register(OpDefBuilder("StringNGrams")
                      .Input("data: string")
                      .Input("data_splits: Tsplits")
                      .Output("ngrams: string")
                      .Output("ngrams_splits: Tsplits")
                      .Attr("separator: string")
                      .Attr("ngram_widths: list(int) >= 0")
                      .Attr("left_pad: string")
                      .Attr("right_pad: string")
                      .Attr("pad_width: int")
                      .Attr("preserve_short_sequences: bool")
                      .Attr("Tsplits: {int32, int64} = DT_INT64")
                      .SetShapeFn(StringNGramsShapeFn)));
  DFX_RETURN_IF_ERROR(
      r->Register(OpDefBuilder("UnsortedSegmentJoin")
                      .Input("inputs: string")
                      .Input("segment_ids: Tindices")
                      .Input("num_segments: Tnumsegments")
                      .Output("output: string")
                      .Attr("separator: string = ''")
                      .Attr("Tindices: {int32, int64}")
                      .Attr("Tnumsegments: {int32, int64} = DT_INT32")
                      .SetShapeFn(UnsortedSegmentJoinShapeFn)));
  DFX_RETURN_IF_ERROR(r->Register(
      OpDefBuilder("DecodeCSV")
          .Input("records: string")
          .Input("record_defaults: OUT_TYPE")
          .Output("output: OUT_TYPE")
          .Attr("OUT_TYPE: list({float, double, int32, int64, string}) >= 1")
          .Attr("field_delim: string = ','")
          .Attr("use_quote_delim: bool = true")
          .Attr("na_value: string = ''")
          .Attr("select_cols: list(int) = []")
          .SetShapeFn(DecodeCsvShapeFn)));
  DFX_RETURN_IF_ERROR(r->Register(OpDefBuilder("ParseTensor")
                                      .Input("serialized: string")
                                      .Output("output: out_type")
                                      .Attr("out_type: type")
                                      .SetShapeFn(shape_fn::Unknown)));
  DFX_RETURN_IF_ERROR(r->Register(OpDefBuilder("SerializeTensor")
                                      .Input("tensor: T")
                                      .Output("serialized: string")
                                      .Attr("T: type")
                                      .SetShapeFn(shape_fn::Scalar)));
  DFX_RETURN_IF_ERROR(r->Register(OpDefBuilder("Fingerprint")
                                      .Input("data: T")
                                      .Input("method: string")
                                      .Output("fingerprint: uint8")
                                      .Attr("T: type")
                                      .SetShapeFn(FingerprintShapeFn)));
  DFX_RETURN_IF_ERROR(r->Register(OpDefBuilder("EditDistance")
                                      .Input("hypothesis_indices: int64")
                                      .Input("hypothesis_values: T")
                                      .Input("hypothesis_shape: int64")
                                      .Input("truth_indices: int64")
                                      .Input("truth_values: T")
                                      .Input("truth_shape: int64")
                                      .Output("output: float")
                                      .Attr("normalize: bool = true")
                                      .Attr("T: type")
                                      .SetShapeFn(EditDistanceShapeFn)));
  DFX_RETURN_IF_ERROR(r->Register(OpDefBuilder("SetSize")
                                      .Input("set_indices: int64")
                                      .Input("set_values: T")
                                      .Input("set_shape: int64")
                                      .Output("size: int32")
                                      .Attr("validate_indices: bool = true")
                                      .Attr(kSetTypes)
                                      .SetShapeFn(shape_fn::Unknown)));
  DFX_RETURN_IF_ERROR(r->Register(
      SetOperation("DenseToDenseSetOperation", {"set1: T", "set2: T"})
          .SetShapeFn(DenseToDenseSetShapeFn)));
  DFX_RETURN_IF_ERROR(
      r->Register(SetOperation("DenseToSparseSetOperation",
                               {"set1: T", "set2_indices: int64",
                                "set2_values: T", "set2_shape: int64"})
                      .SetShapeFn(DenseToSparseSetShapeFn)));
  DFX_RETURN_IF_ERROR(
      r->Register(SetOperation("SparseToSparseSetOperation",
                               {"set1_indices: int64", "set1_values: T",
                                "set1_shape: int64", "set2_indices: int64",
                                "set2_values: T", "set2_shape: int64"})
                      .SetShapeFn(SparseToSparseSetShapeFn)));
  DFX_RETURN_IF_ERROR(
      r->Register(OpDefBuilder("ListDiff")
                      .Input("x: T")
                      .Input("y: T")
                      .Output("out: T")
                      .Output("idx: out_idx")
                      .Attr("T: type")
                      .Attr("out_idx: {int32, int64} = DT_INT32")
                      .SetShapeFn(ListDiffShapeFn)));
  for (const char* name : {"UnicodeDecode", "UnicodeDecodeWithOffsets"}) {
    OpDefBuilder b(name);
    b.Input("input: string")
        .Output("row_splits: Tsplits")
        .Output("char_values: int32");
    if (std::string(name) == "UnicodeDecodeWithOffsets") {
      b.Output("char_to_byte_starts: int64");
    }
    b.Attr("input_encoding: string")
        .Attr("errors: {'strict', 'replace', 'ignore'} = 'replace'")
        .Attr("replacement_char: int = 65533")
        .Attr("replace_control_characters: bool = false")
        .Attr("Tsplits: {int32, int64} = DT_INT64")
        .SetShapeFn(UnicodeDecodeShapeFn);
    DFX_RETURN_IF_ERROR(r->Register(std::move(b)));
  }
  DFX_RETURN_IF_ERROR(r->Register(
      OpDefBuilder("UnicodeEncode")
          .Input("input_values: int32")
          .Input("input_splits: Tsplits")
          .Output("output: string")
          .Attr("errors: {'ignore', 'replace', 'strict'} = 'replace'")
          .Attr("output_encoding: {'UTF-8', 'UTF-16-BE', 'UTF-32-BE'}")
          .Attr("replacement_char: int = 65533")
          .Attr("Tsplits: {int32, int64} = DT_INT64")
          .SetShapeFn(UnicodeEncodeShapeFn)));
  DFX_RETURN_IF_ERROR(r->Register(OpDefBuilder("UnicodeScript")
                                      .Input("input: int32")
                                      .Output("output: int32")
                                      .SetShapeFn(shape_fn::UnchangedShape)));
  DFX_RETURN_IF_ERROR(r->Register(
      OpDefBuilder("UnicodeTranscode")
          .Input("input: string")
          .Output("output: string")
          .Attr("input_encoding: string")
          .Attr("output_encoding: {'UTF-8', 'UTF-16-BE', 'UTF-32-BE'}")
          .Attr("errors: {'strict', 'replace', 'ignore'} = 'replace'")
          .Attr("replacement_char: int = 65533")
          .Attr("replace_control_characters: bool = false")
          .SetShapeFn(shape_fn::UnchangedShape)));
  return absl::OkStatus();
}

}  // namespace dfx
