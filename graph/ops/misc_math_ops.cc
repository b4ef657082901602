// Assorted math ops real graphs still needed: the Bessel functions
// TensorFlow registers as ops, CumulativeLogsumexp, NthElement, Lu and
// TridiagonalMatMul. Signatures follow TensorFlow 2.21's
// special_math_ops.cc, math_ops.cc, nn_ops.cc and linalg_ops.cc.
#include <cstdint>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "graph/ops/misc_ops.h"
#include "graph/ops/ops.h"

namespace dfx {
namespace {

constexpr char kFloatTypes[] = "T: {bfloat16, half, float, double}";
constexpr char kRealTypes[] =
    "T: {float, double, int32, uint8, int16, int8, int64, bfloat16, uint16, "
    "half, uint32, uint64}";

// NthElement: the input without its last dim; that dim must exceed n when
// n is a constant.
absl::Status NthElementShape(InferenceContext* c) {
  const PartialShape& in = c->input(0);
  DFX_RETURN_IF_ERROR(c->WithRank(c->input(1), 0));
  if (!in.RankKnown()) {
    c->set_output(0, PartialShape::Unknown());
    return absl::OkStatus();
  }
  if (in.rank() < 1) {
    return c->Error(
        absl::StrCat("Shape must be at least rank 1 but is rank ", in.rank()));
  }
  std::vector<int64_t> n;
  if (ConstantInts(c->input_tensor(1), &n) && n.size() == 1) {
    if (n[0] < 0) {
      return c->Error(absl::StrCat("n must be non-negative but is ", n[0]));
    }
    const int64_t last = in.dims.back();
    if (last >= 0 && last <= n[0]) {
      return c->Error(absl::StrCat("Input must have last dimension > n = ",
                                   n[0]));
    }
  }
  PartialShape out = in;
  out.dims.pop_back();
  c->set_output(0, std::move(out));
  return absl::OkStatus();
}

// Square matrices [..., N, N] in, the same shape out.
absl::Status SquareMatrixShape(InferenceContext* c) {
  const PartialShape& in = c->input(0);
  if (!in.RankKnown()) {
    c->set_output(0, PartialShape::Unknown());
    return absl::OkStatus();
  }
  if (in.rank() < 2) {
    return c->Error(
        absl::StrCat("Shape must be at least rank 2 but is rank ", in.rank()));
  }
  int64_t n = -1;
  DFX_RETURN_IF_ERROR(
      c->MergeDim(in.dims[in.rank() - 2], in.dims[in.rank() - 1], &n));
  PartialShape out = in;
  out.dims[in.rank() - 2] = n;
  out.dims[in.rank() - 1] = n;
  c->set_output(0, std::move(out));
  return absl::OkStatus();
}

// Lu: lu has the input's shape (square matrices), p drops the last dim.
absl::Status LuShape(InferenceContext* c) {
  const PartialShape& in = c->input(0);
  if (!in.RankKnown()) {
    c->set_output(0, PartialShape::Unknown());
    c->set_output(1, PartialShape::Unknown());
    return absl::OkStatus();
  }
  if (in.rank() < 2) {
    return c->Error(
        absl::StrCat("Shape must be at least rank 2 but is rank ", in.rank()));
  }
  int64_t n = -1;
  DFX_RETURN_IF_ERROR(
      c->MergeDim(in.dims[in.rank() - 2], in.dims[in.rank() - 1], &n));
  PartialShape lu = in;
  lu.dims[in.rank() - 2] = n;
  lu.dims[in.rank() - 1] = n;
  PartialShape p = lu;
  p.dims.pop_back();
  c->set_output(0, std::move(lu));
  c->set_output(1, std::move(p));
  return absl::OkStatus();
}

// TridiagonalMatMul: the output has rhs's shape; each diagonal is [..., 1, M].
absl::Status TridiagonalMatMulShape(InferenceContext* c) {
  const PartialShape& rhs = c->input(3);
  for (int i = 0; i < 4; ++i) {
    const PartialShape& s = c->input(i);
    if (s.RankKnown() && s.rank() < 2) {
      return c->Error(absl::StrCat(
          "Shape must be at least rank 2 but is rank ", s.rank()));
    }
  }
  if (rhs.RankKnown()) {
    const int64_t m = rhs.dims[rhs.rank() - 2];
    for (int i = 0; i < 3; ++i) {
      const PartialShape& s = c->input(i);
      if (!s.RankKnown()) continue;
      if (s.rank() != rhs.rank()) {
        return c->Error("All input tensors must have the same rank.");
      }
      int64_t merged = 0;
      DFX_RETURN_IF_ERROR(c->MergeDim(s.dims[s.rank() - 2], 1, &merged));
      DFX_RETURN_IF_ERROR(c->MergeDim(s.dims[s.rank() - 1], m, &merged));
    }
  }
  c->set_output(0, rhs);
  return absl::OkStatus();
}

// TridiagonalSolve: diagonals [..., 3, M], rhs [..., M, K]; the output has
// rhs's shape.
absl::Status TridiagonalSolveShape(InferenceContext* c) {
  const PartialShape& diags = c->input(0);
  const PartialShape& rhs = c->input(1);
  for (int i = 0; i < 2; ++i) {
    const PartialShape& s = c->input(i);
    if (s.RankKnown() && s.rank() < 2) {
      return c->Error(absl::StrCat(
          "Shape must be at least rank 2 but is rank ", s.rank()));
    }
  }
  if (diags.RankKnown()) {
    int64_t three = 0;
    DFX_RETURN_IF_ERROR(c->MergeDim(diags.dims[diags.rank() - 2], 3, &three));
    if (rhs.RankKnown()) {
      if (diags.rank() != rhs.rank()) {
        return c->Error("All input tensors must have the same rank.");
      }
      int64_t m = 0;
      DFX_RETURN_IF_ERROR(c->MergeDim(diags.dims[diags.rank() - 1],
                                      rhs.dims[rhs.rank() - 2], &m));
    }
  }
  c->set_output(0, rhs);
  return absl::OkStatus();
}

// CTCGreedyDecoder: inputs [max_time, batch, classes], sequence_length
// [batch]; the sparse outputs' sizes are known only when run.
absl::Status CtcGreedyDecoderShape(InferenceContext* c) {
  const PartialShape& in = c->input(0);
  DFX_RETURN_IF_ERROR(c->WithRank(in, 3));
  DFX_RETURN_IF_ERROR(c->WithRank(c->input(1), 1));
  int64_t batch = -1;
  if (in.RankKnown()) batch = in.dims[1];
  if (c->input(1).RankKnown()) {
    DFX_RETURN_IF_ERROR(c->MergeDim(batch, c->input(1).dims[0], &batch));
  }
  c->set_output(0, PartialShape::Known({-1, 2}));
  c->set_output(1, PartialShape::Known({-1}));
  c->set_output(2, PartialShape::Known({2}));
  c->set_output(3, PartialShape::Known({batch, 1}));
  return absl::OkStatus();
}

// CTCLoss: loss [batch], gradient the inputs' [max_time, batch, classes].
absl::Status CtcLossShape(InferenceContext* c) {
  const PartialShape& in = c->input(0);
  DFX_RETURN_IF_ERROR(c->WithRank(in, 3));
  DFX_RETURN_IF_ERROR(c->WithRank(c->input(1), 2));
  DFX_RETURN_IF_ERROR(c->WithRank(c->input(2), 1));
  DFX_RETURN_IF_ERROR(c->WithRank(c->input(3), 1));
  int64_t rows = -1;
  if (c->input(1).RankKnown()) rows = c->input(1).dims[0];
  if (c->input(2).RankKnown()) {
    DFX_RETURN_IF_ERROR(c->MergeDim(rows, c->input(2).dims[0], &rows));
  }
  int64_t batch = -1;
  if (in.RankKnown()) batch = in.dims[1];
  if (c->input(3).RankKnown()) {
    DFX_RETURN_IF_ERROR(c->MergeDim(batch, c->input(3).dims[0], &batch));
  }
  c->set_output(0, PartialShape::Known({batch}));
  PartialShape grad = in.RankKnown() ? in : UnknownDims(3);
  grad.dims[1] = batch;
  c->set_output(1, std::move(grad));
  return absl::OkStatus();
}

// Segment*V2: [num_segments] + data's dims after the first.
absl::Status SegmentV2Shape(InferenceContext* c) {
  const PartialShape& data = c->input(0);
  DFX_RETURN_IF_ERROR(c->WithRank(c->input(1), 1));
  DFX_RETURN_IF_ERROR(c->WithRank(c->input(2), 0));
  if (!data.RankKnown()) {
    c->set_output(0, PartialShape::Unknown());
    return absl::OkStatus();
  }
  if (data.rank() < 1) {
    return c->Error(absl::StrCat(
        "Shape must be at least rank 1 but is rank ", data.rank()));
  }
  std::vector<int64_t> n;
  int64_t rows = -1;
  if (ConstantInts(c->input_tensor(2), &n) && n.size() == 1) {
    if (n[0] < 0) {
      return c->Error(absl::StrCat("Input num_segments == ", n[0],
                                   " must not be negative."));
    }
    rows = n[0];
  }
  PartialShape out = data;
  out.dims[0] = rows;
  c->set_output(0, std::move(out));
  return absl::OkStatus();
}

}  // namespace

absl::Status RegisterMiscMathOps(OpRegistry* r) {
  for (const char* name :
       {"BesselI0", "BesselI0e", "BesselI1", "BesselI1e", "BesselK0",
        "BesselK0e", "BesselK1", "BesselK1e", "BesselJ0", "BesselJ1",
        "BesselY0", "BesselY1"}) {
    DFX_RETURN_IF_ERROR(r->Register(OpDefBuilder(name)
                                        .Input("x: T")
                                        .Output("y: T")
                                        .Attr(kFloatTypes)
                                        .SetShapeFn(shape_fn::UnchangedShape)));
  }
  DFX_RETURN_IF_ERROR(r->Register(
      OpDefBuilder("CumulativeLogsumexp")
          .Input("x: T")
          .Input("axis: Tidx")
          .Output("out: T")
          .Attr("exclusive: bool = false")
          .Attr("reverse: bool = false")
          .Attr(kFloatTypes)
          .Attr("Tidx: {int32, int64} = DT_INT32")
          .SetShapeFn([](InferenceContext* c) {
            DFX_RETURN_IF_ERROR(c->WithRank(c->input(1), 0));
            return shape_fn::UnchangedShape(c);
          })));
  DFX_RETURN_IF_ERROR(r->Register(OpDefBuilder("NthElement")
                                      .Input("input: T")
                                      .Input("n: int32")
                                      .Output("values: T")
                                      .Attr("reverse: bool = false")
                                      .Attr(kRealTypes)
                                      .SetShapeFn(NthElementShape)));
  DFX_RETURN_IF_ERROR(r->Register(
      OpDefBuilder("Lu")
          .Input("input: T")
          .Output("lu: T")
          .Output("p: output_idx_type")
          .Attr("T: {double, float, half, complex64, complex128}")
          .Attr("output_idx_type: {int32, int64} = DT_INT32")
          .SetShapeFn(LuShape)));
  DFX_RETURN_IF_ERROR(r->Register(
      OpDefBuilder("TridiagonalMatMul")
          .Input("superdiag: T")
          .Input("maindiag: T")
          .Input("subdiag: T")
          .Input("rhs: T")
          .Output("output: T")
          .Attr("T: {double, float, complex64, complex128}")
          .SetShapeFn(TridiagonalMatMulShape)));
  DFX_RETURN_IF_ERROR(r->Register(
      OpDefBuilder("TridiagonalSolve")
          .Input("diagonals: T")
          .Input("rhs: T")
          .Output("output: T")
          .Attr("partial_pivoting: bool = true")
          .Attr("perturb_singular: bool = false")
          .Attr("T: {double, float, complex64, complex128}")
          .SetShapeFn(TridiagonalSolveShape)));
  DFX_RETURN_IF_ERROR(r->Register(
      OpDefBuilder("MatrixSquareRoot")
          .Input("input: T")
          .Output("output: T")
          .Attr("T: {double, float, half, complex64, complex128}")
          .SetShapeFn(SquareMatrixShape)));
  DFX_RETURN_IF_ERROR(r->Register(
      OpDefBuilder("CTCGreedyDecoder")
          .Input("inputs: T")
          .Input("sequence_length: int32")
          .Output("decoded_indices: int64")
          .Output("decoded_values: int64")
          .Output("decoded_shape: int64")
          .Output("log_probability: T")
          .Attr("merge_repeated: bool = false")
          .Attr("blank_index: int = -1")
          .Attr("T: {float, double} = DT_FLOAT")
          .SetShapeFn(CtcGreedyDecoderShape)));
  DFX_RETURN_IF_ERROR(r->Register(
      OpDefBuilder("CTCLoss")
          .Input("inputs: T")
          .Input("labels_indices: int64")
          .Input("labels_values: int32")
          .Input("sequence_length: int32")
          .Output("loss: T")
          .Output("gradient: T")
          .Attr("preprocess_collapse_repeated: bool = false")
          .Attr("ctc_merge_repeated: bool = true")
          .Attr("ignore_longer_outputs_than_inputs: bool = false")
          .Attr("T: {float, double} = DT_FLOAT")
          .SetShapeFn(CtcLossShape)));
  DFX_RETURN_IF_ERROR(r->Register(OpDefBuilder("StringFormat")
                                      .Input("inputs: T")
                                      .Output("output: string")
                                      .Attr("T: list(type) >= 0")
                                      .Attr("template: string = '%s'")
                                      .Attr("placeholder: string = '%s'")
                                      .Attr("summarize: int = 3")
                                      .SetShapeFn(shape_fn::Scalar)));
  DFX_RETURN_IF_ERROR(r->Register(
      OpDefBuilder("PrintV2")
          .Input("input: string")
          .Attr("output_stream: string = 'stderr'")
          .Attr("end: string = '\n'")
          .SetIsStateful()
          .SetShapeFn([](InferenceContext* c) {
            return c->WithRank(c->input(0), 0);
          })));
  constexpr char kNumberTypes[] =
      "T: {float, double, int32, uint8, int16, int8, complex64, int64, qint8, "
      "quint8, qint32, bfloat16, qint16, quint16, uint16, complex128, half, "
      "uint32, uint64}";
  for (const auto& [name, types] :
       {std::pair<const char*, const char*>{"SegmentSumV2", kNumberTypes},
        {"SegmentProdV2", kNumberTypes},
        {"SegmentMaxV2", kRealTypes},
        {"SegmentMinV2", kRealTypes}}) {
    DFX_RETURN_IF_ERROR(r->Register(
        OpDefBuilder(name)
            .Input("data: T")
            .Input("segment_ids: Tindices")
            .Input("num_segments: Tnumsegments")
            .Output("output: T")
            .Attr(types)
            .Attr("Tindices: {int32, int64}")
            .Attr("Tnumsegments: {int32, int64} = DT_INT32")
            .SetShapeFn(SegmentV2Shape)));
  }
  return absl::OkStatus();
}

absl::Status RegisterMiscOps(OpRegistry* registry) {
  DFX_RETURN_IF_ERROR(RegisterQuantizationOps(registry));
  return RegisterMiscMathOps(registry);
}

}  // namespace dfx
