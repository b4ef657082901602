// The rnn_cells family: TensorFlow's fused recurrent cells. LSTMBlockCell
// and its gradient, BlockLSTM/BlockLSTMV2 (a whole sequence) and their
// gradients, GRUBlockCell and its gradient. Signatures and shape functions
// follow TensorFlow 2.21's core/ops/rnn_ops.cc.
#include <cstdint>

#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "graph/ops/ops.h"

namespace dfx {
namespace {

// Dim i of a shape whose rank is known to be > i, or -1 (unknown).
int64_t DimOf(const PartialShape& s, int i) {
  return s.RankKnown() && i < s.rank() ? s.dims[i] : -1;
}

int64_t Times(int64_t d, int64_t k) { return d < 0 ? -1 : d * k; }

// GRUBlockCell: r, u, c, h are [batch, cell] (x's dim 0, h_prev's dim 1).
absl::Status GruCellShape(InferenceContext* c) {
  DFX_RETURN_IF_ERROR(c->WithRank(c->input(0), 2));
  DFX_RETURN_IF_ERROR(c->WithRank(c->input(1), 2));
  const PartialShape out =
      PartialShape::Known({DimOf(c->input(0), 0), DimOf(c->input(1), 1)});
  for (int i = 0; i < 4; ++i) c->set_output(i, out);
  return absl::OkStatus();
}

// GRUBlockCellGrad: d_x is x's shape, d_h_prev and d_c_bar [batch, cell],
// d_r_bar_u_bar [batch, w_ru's dim 1].
absl::Status GruCellGradShape(InferenceContext* c) {
  for (int i = 0; i < 3; ++i) DFX_RETURN_IF_ERROR(c->WithRank(c->input(i), 2));
  const int64_t batch = DimOf(c->input(0), 0);
  const int64_t cell = DimOf(c->input(1), 1);
  PartialShape x = c->input(0);
  if (!x.RankKnown()) x = UnknownDims(2);
  c->set_output(0, x);
  c->set_output(1, PartialShape::Known({batch, cell}));
  c->set_output(2, PartialShape::Known({batch, cell}));
  c->set_output(3, PartialShape::Known({batch, DimOf(c->input(2), 1)}));
  return absl::OkStatus();
}

// LSTMBlockCell: its seven outputs are [batch, cell] (x's dim 0, cs_prev's
// dim 1).
absl::Status LstmCellShape(InferenceContext* c) {
  DFX_RETURN_IF_ERROR(c->WithRank(c->input(0), 2));
  DFX_RETURN_IF_ERROR(c->WithRank(c->input(1), 2));
  const PartialShape out =
      PartialShape::Known({DimOf(c->input(0), 0), DimOf(c->input(1), 1)});
  for (int i = 0; i < 7; ++i) c->set_output(i, out);
  return absl::OkStatus();
}

// LSTMBlockCellGrad: cs_prev_grad [batch, cell], dicfo [batch, 4 * cell],
// the peephole gradients [cell].
absl::Status LstmCellGradShape(InferenceContext* c) {
  DFX_RETURN_IF_ERROR(c->WithRank(c->input(0), 2));
  DFX_RETURN_IF_ERROR(c->WithRank(c->input(1), 2));
  const int64_t batch = DimOf(c->input(0), 0);
  const int64_t cell = DimOf(c->input(1), 1);
  c->set_output(0, PartialShape::Known({batch, cell}));
  c->set_output(1, PartialShape::Known({batch, Times(cell, 4)}));
  for (int i = 2; i < 5; ++i) c->set_output(i, PartialShape::Known({cell}));
  return absl::OkStatus();
}

// BlockLSTM(V2): the seven outputs are [time, batch, cell], x [time, batch,
// input] and cell b's length / 4, which 4 must divide.
absl::Status BlockLstmShape(InferenceContext* c) {
  DFX_RETURN_IF_ERROR(c->WithRank(c->input(1), 3));
  const PartialShape& b = c->input(c->num_inputs() - 1);
  DFX_RETURN_IF_ERROR(c->WithRank(b, 1));
  int64_t cell = -1;
  const int64_t b_len = DimOf(b, 0);
  if (b_len >= 0) {
    if (b_len % 4 != 0) {
      return c->Error(absl::StrCat(
          "Dimension size must be evenly divisible by 4 but is ", b_len));
    }
    cell = b_len / 4;
  }
  const PartialShape out =
      PartialShape::Known({DimOf(c->input(1), 0), DimOf(c->input(1), 1), cell});
  for (int i = 0; i < 7; ++i) c->set_output(i, out);
  return absl::OkStatus();
}

// BlockLSTMGrad(V2): each gradient has its input's shape (x, cs_prev,
// h_prev, w, wci, wcf, wco, b), whose ranks are checked.
absl::Status BlockLstmGradShape(InferenceContext* c) {
  constexpr int kRanks[] = {3, 2, 2, 2, 1, 1, 1, 1};
  for (int i = 0; i < 8; ++i) {
    DFX_RETURN_IF_ERROR(c->WithRank(c->input(i + 1), kRanks[i]));
    PartialShape s = c->input(i + 1);
    if (!s.RankKnown()) s = UnknownDims(kRanks[i]);
    c->set_output(i, s);
  }
  return absl::OkStatus();
}

OpDefBuilder LstmInputs(OpDefBuilder b) {
  b.Input("x: T")
      .Input("cs_prev: T")
      .Input("h_prev: T")
      .Input("w: T")
      .Input("wci: T")
      .Input("wcf: T")
      .Input("wco: T")
      .Input("b: T");
  return b;
}

OpDefBuilder LstmOutputs(OpDefBuilder b) {
  b.Output("i: T")
      .Output("cs: T")
      .Output("f: T")
      .Output("o: T")
      .Output("ci: T")
      .Output("co: T")
      .Output("h: T");
  return b;
}

}  // namespace

absl::Status RegisterRnnOps(OpRegistry* r) {
  DFX_RETURN_IF_ERROR(r->Register(OpDefBuilder("GRUBlockCell")
                                      .Attr("T: {float}")
                                      .Input("x: T")
                                      .Input("h_prev: T")
                                      .Input("w_ru: T")
                                      .Input("w_c: T")
                                      .Input("b_ru: T")
                                      .Input("b_c: T")
                                      .Output("r: T")
                                      .Output("u: T")
                                      .Output("c: T")
                                      .Output("h: T")
                                      .SetShapeFn(GruCellShape)));
  DFX_RETURN_IF_ERROR(r->Register(OpDefBuilder("GRUBlockCellGrad")
                                      .Attr("T: {float}")
                                      .Input("x: T")
                                      .Input("h_prev: T")
                                      .Input("w_ru: T")
                                      .Input("w_c: T")
                                      .Input("b_ru: T")
                                      .Input("b_c: T")
                                      .Input("r: T")
                                      .Input("u: T")
                                      .Input("c: T")
                                      .Input("d_h: T")
                                      .Output("d_x: T")
                                      .Output("d_h_prev: T")
                                      .Output("d_c_bar: T")
                                      .Output("d_r_bar_u_bar: T")
                                      .SetShapeFn(GruCellGradShape)));
  DFX_RETURN_IF_ERROR(
      r->Register(LstmOutputs(LstmInputs(OpDefBuilder("LSTMBlockCell")))
                      .Attr("forget_bias: float = 1.0")
                      .Attr("cell_clip: float = 3.0")
                      .Attr("use_peephole: bool = false")
                      .Attr("T: {half, float}")
                      .SetShapeFn(LstmCellShape)));
  DFX_RETURN_IF_ERROR(r->Register(LstmInputs(OpDefBuilder("LSTMBlockCellGrad"))
                                      .Input("i: T")
                                      .Input("cs: T")
                                      .Input("f: T")
                                      .Input("o: T")
                                      .Input("ci: T")
                                      .Input("co: T")
                                      .Input("cs_grad: T")
                                      .Input("h_grad: T")
                                      .Output("cs_prev_grad: T")
                                      .Output("dicfo: T")
                                      .Output("wci_grad: T")
                                      .Output("wcf_grad: T")
                                      .Output("wco_grad: T")
                                      .Attr("use_peephole: bool")
                                      .Attr("T: {half, float}")
                                      .SetShapeFn(LstmCellGradShape)));
  for (const char* op : {"BlockLSTM", "BlockLSTMV2"}) {
    const bool v2 = absl::string_view(op) == "BlockLSTMV2";
    OpDefBuilder b =
        LstmOutputs(LstmInputs(OpDefBuilder(op).Input("seq_len_max: int64")));
    if (!v2) b.Attr("forget_bias: float = 1.0");
    b.Attr(v2 ? "cell_clip: float = 0.0" : "cell_clip: float = 3.0")
        .Attr("use_peephole: bool = false")
        .Attr("T: {half, float}")
        .SetShapeFn(BlockLstmShape);
    DFX_RETURN_IF_ERROR(r->Register(b));
  }
  for (const char* op : {"BlockLSTMGrad", "BlockLSTMGradV2"}) {
    OpDefBuilder b = LstmInputs(OpDefBuilder(op).Input("seq_len_max: int64"));
    b.Input("i: T")
        .Input("cs: T")
        .Input("f: T")
        .Input("o: T")
        .Input("ci: T")
        .Input("co: T")
        .Input("h: T")
        .Input("cs_grad: T")
        .Input("h_grad: T")
        .Output("x_grad: T")
        .Output("cs_prev_grad: T")
        .Output("h_prev_grad: T")
        .Output("w_grad: T")
        .Output("wci_grad: T")
        .Output("wcf_grad: T")
        .Output("wco_grad: T")
        .Output("b_grad: T")
        .Attr("use_peephole: bool")
        .Attr("T: {half, float}")
        .SetShapeFn(BlockLstmGradShape);
    DFX_RETURN_IF_ERROR(r->Register(b));
  }
  return absl::OkStatus();
}

}  // namespace dfx
