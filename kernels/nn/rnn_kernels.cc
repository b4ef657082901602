// The rnn_cells family's CPU kernels: LSTMBlockCell(Grad), BlockLSTM(V2),
// BlockLSTMGrad(V2) for float and half, GRUBlockCell(Grad) for float, as
// TensorFlow 2.21 registers them (core/kernels/rnn/lstm_ops.cc, gru_ops.cc).
//
// The products run on the shared GEMM (kernels/linalg/gemm.h: oneDNN for
// float; half converted to float, accumulated in float and rounded once,
// where TensorFlow's Eigen contraction accumulates in half). The element-wise
// steps are written in T, in TensorFlow's order of operations, so that half
// rounds after every operation as Eigen's half arithmetic does; sigmoid and
// tanh are Eigen's (the Sigmoid and Tanh kernels' functors).
//
// Gate layouts: LSTMBlockCell, BlockLSTM and both LSTM gradients' v1 forms
// read the 4 * cell_size gate columns as i, c, f, o (ICFO); BlockLSTMV2 and
// BlockLSTMGradV2 as i, f, c, o (IFCO). BlockLSTMV2 has no forget_bias (0).
// A cell_clip > 0 clips the cell state to [-cell_clip, cell_clip]; 0 or
// less does not clip. The gradients ignore the clip, as TensorFlow's do.
//
// Checks and messages are TensorFlow 2.21's, in its order. Where its kernel
// reads past a tensor's rank, CHECK-fails or indexes out of bounds (a rank
// it never checks, peephole weights whose length is not cell_size, a
// seq_len_max below 0 or past x's time steps, BlockLSTMGrad's w columns
// beyond 4 * cell_size and its forward outputs and incoming gradients,
// which it does not check at all), these kernels fail with InvalidArgument
// instead (the seq_len_max message is later TensorFlow versions'); the
// golden cases leave those inputs out.
//
// BlockLSTM(V2) leaves the time steps at and past seq_len_max zero in every
// output (TensorFlow zeroes cs and h there and leaves i, f, o, ci and co
// uninitialized). A product with nothing to sum (an empty batch for
// BlockLSTMGrad's w_grad, cell_size 0 for GRUBlockCellGrad's d_x) is zero
// here; TensorFlow's Eigen contraction leaves such a result uninitialized.
#include "kernels/nn/nn_util.h"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <vector>

#include "absl/strings/str_cat.h"
#include "kernels/linalg/gemm.h"

namespace dfx {
namespace {

using nn_internal::NodeInvalidArgument;

enum class GateLayout { kICFO, kIFCO };

// Column offsets of the four gates within a row of 4 * cell columns.
struct GateOffsets {
  int64_t i, c, f, o;
  GateOffsets(GateLayout layout, int64_t cell)
      : i(0),
        c(layout == GateLayout::kICFO ? cell : 2 * cell),
        f(layout == GateLayout::kICFO ? 2 * cell : cell),
        o(3 * cell) {}
};

template <typename T>
using ArrayMap = Eigen::Map<Eigen::Array<T, Eigen::Dynamic, 1>>;

template <typename T>
void SigmoidInPlace(T* p, int64_t n) {
  if (n > 0) ArrayMap<T>(p, n) = ArrayMap<T>(p, n).logistic();
}

template <typename T>
void TanhInPlace(T* p, int64_t n) {
  if (n > 0) ArrayMap<T>(p, n) = ArrayMap<T>(p, n).tanh();
}

template <typename T>
void Zero(T* p, int64_t n) {
  std::fill(p, p + n, T(0));
}

// Copies rows of `a` (a_cols wide) and `b` (b_cols wide) side by side into
// out (rows x (a_cols + b_cols)).
template <typename T>
void ConcatColumns(int64_t rows, const T* a, int64_t a_cols, const T* b,
                   int64_t b_cols, T* out) {
  const int64_t w = a_cols + b_cols;
  for (int64_t r = 0; r < rows; ++r) {
    std::copy(a + r * a_cols, a + (r + 1) * a_cols, out + r * w);
    std::copy(b + r * b_cols, b + (r + 1) * b_cols, out + r * w + a_cols);
  }
}

struct LstmDims {
  int64_t batch, input, cell;
};

struct LstmAttrs {
  float forget_bias = 0;
  float cell_clip = 0;
  bool use_peephole = false;
  GateLayout layout = GateLayout::kICFO;
};

// The weights of one LSTM cell: w [input + cell, 4 * cell], the peepholes
// wci, wcf, wco [cell] (read only with use_peephole), b [4 * cell].
template <typename T>
struct LstmWeights {
  const T* w;
  const T* wci;
  const T* wcf;
  const T* wco;
  const T* b;
};

// The seven [batch, cell] activations one step produces.
template <typename T>
struct LstmActs {
  T* i;
  T* cs;
  T* f;
  T* o;
  T* ci;
  T* co;
  T* h;
};

// One forward step. xh [batch, input + cell] and gates [batch, 4 * cell]
// are scratch.
template <typename T>
void LstmCellForward(const Device& device, const LstmDims& d,
                     const LstmAttrs& a, const T* x, const T* cs_prev,
                     const T* h_prev, const LstmWeights<T>& wt, T* xh, T* gates,
                     const LstmActs<T>& out) {
  const int64_t B = d.batch, C = d.cell, K = d.input + d.cell;
  ConcatColumns(B, x, d.input, h_prev, C, xh);
  linalg::Gemm<T>(device, B, 4 * C, K, xh, K, false, wt.w, 4 * C, false, gates,
                  4 * C);
  for (int64_t r = 0; r < B; ++r) {
    for (int64_t j = 0; j < 4 * C; ++j) gates[r * 4 * C + j] += wt.b[j];
  }
  const GateOffsets g(a.layout, C);
  const T forget_bias(a.forget_bias);
  for (int64_t r = 0; r < B; ++r) {
    const T* gr = gates + r * 4 * C;
    for (int64_t j = 0; j < C; ++j) {
      const int64_t k = r * C + j;
      T gi = gr[g.i + j];
      T gf = gr[g.f + j] + forget_bias;
      if (a.use_peephole) {
        gi = gi + cs_prev[k] * wt.wci[j];
        gf = gf + cs_prev[k] * wt.wcf[j];
      }
      out.i[k] = gi;
      out.f[k] = gf;
      out.ci[k] = gr[g.c + j];
    }
  }
  const int64_t n = B * C;
  SigmoidInPlace(out.i, n);
  TanhInPlace(out.ci, n);
  SigmoidInPlace(out.f, n);
  for (int64_t k = 0; k < n; ++k) {
    out.cs[k] = out.i[k] * out.ci[k] + out.f[k] * cs_prev[k];
  }
  if (a.cell_clip > 0.0f) {
    const T clip(a.cell_clip);
    for (int64_t k = 0; k < n; ++k) {
      // Eigen's scalar_clip_op: min(max(x, -clip), clip).
      T v = out.cs[k] < -clip ? -clip : out.cs[k];
      out.cs[k] = clip < v ? clip : v;
    }
  }
  std::copy(out.cs, out.cs + n, out.co);
  TanhInPlace(out.co, n);
  for (int64_t r = 0; r < B; ++r) {
    const T* gr = gates + r * 4 * C;
    for (int64_t j = 0; j < C; ++j) {
      const int64_t k = r * C + j;
      T go = gr[g.o + j];
      if (a.use_peephole) go = go + out.cs[k] * wt.wco[j];
      out.o[k] = go;
    }
  }
  SigmoidInPlace(out.o, n);
  for (int64_t k = 0; k < n; ++k) out.h[k] = out.o[k] * out.co[k];
}

// The activations one step read back: i, cs, f, o, ci, co of the step and
// its cs_prev.
template <typename T>
struct LstmSaved {
  const T* cs_prev;
  const T* i;
  const T* cs;
  const T* f;
  const T* o;
  const T* ci;
  const T* co;
};

// One backward step (TensorFlow's LSTMBlockCellBprop): dgates [batch,
// 4 * cell] in the layout's order, cs_prev_grad [batch, cell], and with
// use_peephole the step's sums over the batch added to wci/wcf/wco_grad.
template <typename T>
void LstmCellBackward(const LstmDims& d, const LstmAttrs& a,
                      const LstmWeights<T>& wt, const LstmSaved<T>& s,
                      const T* cs_grad, const T* h_grad, T* dgates,
                      T* cs_prev_grad, T* wci_grad, T* wcf_grad, T* wco_grad) {
  const int64_t B = d.batch, C = d.cell;
  const GateOffsets g(a.layout, C);
  const T one(1);
  std::vector<T> sum_ci, sum_cf, sum_co;
  if (a.use_peephole) {
    sum_ci.assign(C, T(0));
    sum_cf.assign(C, T(0));
    sum_co.assign(C, T(0));
  }
  for (int64_t r = 0; r < B; ++r) {
    T* dg = dgates + r * 4 * C;
    for (int64_t j = 0; j < C; ++j) {
      const int64_t k = r * C + j;
      const T i = s.i[k], f = s.f[k], o = s.o[k], ci = s.ci[k], co = s.co[k];
      const T hg = h_grad[k];
      const T d_o = o * (one - o) * hg * co;
      T dcs = (one - co * co) * hg * o + cs_grad[k];
      if (a.use_peephole) dcs = dcs + d_o * wt.wco[j];
      const T dci = (one - ci * ci) * dcs * i;
      const T df = f * (one - f) * dcs * s.cs_prev[k];
      const T di = i * (one - i) * dcs * ci;
      dg[g.i + j] = di;
      dg[g.c + j] = dci;
      dg[g.f + j] = df;
      dg[g.o + j] = d_o;
      T cpg = dcs * f;
      if (a.use_peephole) {
        cpg = cpg + di * wt.wci[j] + df * wt.wcf[j];
        sum_ci[j] += di * s.cs_prev[k];
        sum_cf[j] += df * s.cs_prev[k];
        sum_co[j] += d_o * s.cs[k];
      }
      cs_prev_grad[k] = cpg;
    }
  }
  if (a.use_peephole) {
    for (int64_t j = 0; j < C; ++j) {
      wci_grad[j] += sum_ci[j];
      wcf_grad[j] += sum_cf[j];
      wco_grad[j] += sum_co[j];
    }
  }
}

absl::Status RankError(const OpKernelContext& ctx, absl::string_view name,
                       int want, int got) {
  return NodeInvalidArgument(
      ctx, absl::StrCat(name, " must be rank ", want, " but is rank ", got));
}

// dim_size(0) of each peephole weight, which TensorFlow's cell kernels
// never check and then read cell_size elements of.
absl::Status CheckPeepholes(const OpKernelContext& ctx, const Tensor& wci,
                            const Tensor& wcf, const Tensor& wco,
                            int64_t cell) {
  const Tensor* ts[] = {&wci, &wcf, &wco};
  const char* names[] = {"wci", "wcf", "wco"};
  for (int k = 0; k < 3; ++k) {
    if (ts[k]->dim_size(0) != cell) {
      return NodeInvalidArgument(
          ctx, absl::StrCat(names[k], ".dim_size(0) != cell_size: ",
                            ts[k]->dim_size(0), " vs. ", cell));
    }
  }
  return absl::OkStatus();
}

#define RNN_REQUIRE(ctx, cond, ...) \
  DFX_OP_REQUIRES(ctx, cond,        \
                  NodeInvalidArgument(*ctx, absl::StrCat(__VA_ARGS__)))

template <typename T>
class LstmBlockCellOp : public OpKernel {
 public:
  explicit LstmBlockCellOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    ctx->SetStatus(ctx->GetAttr("forget_bias", &attrs_.forget_bias));
    ctx->SetStatus(ctx->GetAttr("cell_clip", &attrs_.cell_clip));
    ctx->SetStatus(ctx->GetAttr("use_peephole", &attrs_.use_peephole));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& x = ctx->input(0);
    const Tensor& cs_prev = ctx->input(1);
    const Tensor& h_prev = ctx->input(2);
    const Tensor& w = ctx->input(3);
    const Tensor& wci = ctx->input(4);
    const Tensor& wcf = ctx->input(5);
    const Tensor& wco = ctx->input(6);
    const Tensor& b = ctx->input(7);
    // TensorFlow reads these dims before it checks any rank; a rank too
    // small for them fails here with its rank message.
    const std::pair<const Tensor*, const char*> low[] = {
        {&x, "x_tensor"},
        {&cs_prev, "cs_prev_tensor"},
        {&h_prev, "h_prev_tensor"},
        {&w, "w_tensor"}};
    for (const auto& [t, name] : low) {
      RNN_REQUIRE(ctx, t->dims() >= 2, name, " must be rank 2 but is rank ",
                  t->dims(), ".");
    }
    RNN_REQUIRE(ctx, b.dims() >= 1, "b_tensor must be rank 1 but is rank ",
                b.dims(), ".");
    const int64_t batch = x.dim_size(0);
    const int64_t input = x.dim_size(1);
    const int64_t cell = cs_prev.dim_size(1);
    RNN_REQUIRE(ctx, cs_prev.dim_size(0) == batch,
                "cs_prev.dims(0) != batch_size: ", cs_prev.dim_size(0), " vs. ",
                batch);
    RNN_REQUIRE(ctx, h_prev.dim_size(0) == batch,
                "h_prev.dims(0) != batch_size: ", h_prev.dim_size(0), " vs. ",
                batch);
    RNN_REQUIRE(ctx, h_prev.dim_size(1) == cell,
                "h_prev.dims(1) != cell_size: ", h_prev.dim_size(1), " vs. ",
                cell);
    RNN_REQUIRE(ctx, w.dim_size(0) == input + cell,
                "w.dim_size(0) != input_size + cell_size: ", w.dim_size(0),
                " vs. ", input + cell);
    RNN_REQUIRE(ctx, w.dim_size(1) == cell * 4,
                "w.dim_size(1) != cell_size * 4: ", w.dim_size(1), " vs. ",
                cell * 4);
    RNN_REQUIRE(ctx, b.dim_size(0) == cell * 4,
                "b.dim_size(0) != cell_size * 4: ", b.dim_size(0), " vs. ",
                cell * 4);
    RNN_REQUIRE(ctx, x.dims() == 2, "x_tensor must be rank 2 but is rank ",
                x.dims(), ".");
    RNN_REQUIRE(ctx, cs_prev.dims() == 2,
                "cs_prev_tensor must be rank 2 but is rank ", cs_prev.dims(),
                ".");
    RNN_REQUIRE(ctx, cs_prev.dim_size(0) > 0 && cs_prev.dim_size(1) > 0,
                "cs_prev_tensor is empty, has shape: (", cs_prev.dim_size(0),
                ",", cs_prev.dim_size(1), ").");
    RNN_REQUIRE(ctx, h_prev.dims() == 2,
                "h_prev_tensor must be rank 2 but is rank ", h_prev.dims(),
                ".");
    RNN_REQUIRE(ctx, w.dims() == 2, "w_tensor must be rank 2 but is rank ",
                w.dims(), ".");
    RNN_REQUIRE(ctx, wci.dims() == 1, "wci_tensor must be rank 1 but is rank ",
                wci.dims(), ".");
    RNN_REQUIRE(ctx, wcf.dims() == 1, "wcf_tensor must be rank 1 but is rank ",
                wcf.dims(), ".");
    RNN_REQUIRE(ctx, wco.dims() == 1, "wco_tensor must be rank 1 but is rank ",
                wco.dims(), ".");
    RNN_REQUIRE(ctx, b.dims() == 1, "b_tensor must be rank 1 but is rank ",
                b.dims(), ".");
    if (attrs_.use_peephole) {
      DFX_OP_REQUIRES_OK(ctx, CheckPeepholes(*ctx, wci, wcf, wco, cell));
    }
    const TensorShape shape({batch, cell});
    T* outs[7];
    for (int k = 0; k < 7; ++k) {
      Tensor* t = nullptr;
      DFX_OP_REQUIRES_OK(ctx, ctx->allocate_output(k, shape, &t));
      outs[k] = t->data<T>();
    }
    std::vector<T> xh(batch * (input + cell)), gates(batch * 4 * cell);
    LstmCellForward<T>(
        *ctx->device(), {batch, input, cell}, attrs_, x.data<T>(),
        cs_prev.data<T>(), h_prev.data<T>(),
        {w.data<T>(), wci.data<T>(), wcf.data<T>(), wco.data<T>(), b.data<T>()},
        xh.data(), gates.data(),
        {outs[0], outs[1], outs[2], outs[3], outs[4], outs[5], outs[6]});
  }

 private:
  LstmAttrs attrs_;
};

template <typename T>
class LstmBlockCellGradOp : public OpKernel {
 public:
  explicit LstmBlockCellGradOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    ctx->SetStatus(ctx->GetAttr("use_peephole", &attrs_.use_peephole));
  }

  void Compute(OpKernelContext* ctx) override {
    static const char* const kNames[] = {
        "x", "cs_prev", "h_prev", "w", "wci", "wcf", "wco",     "b",
        "i", "cs",      "f",      "o", "ci",  "co",  "cs_grad", "h_grad"};
    // TensorFlow checks no rank here and then views each input as a matrix
    // or vector (a CHECK failure, or reads past the shape).
    for (int k = 0; k < 16; ++k) {
      const int want = (k >= 4 && k <= 7) ? 1 : 2;
      DFX_OP_REQUIRES_OK(
          ctx, ctx->input(k).dims() == want
                   ? absl::OkStatus()
                   : RankError(*ctx, kNames[k], want, ctx->input(k).dims()));
    }
    const Tensor& x = ctx->input(0);
    const Tensor& cs_prev = ctx->input(1);
    const Tensor& w = ctx->input(3);
    const Tensor& b = ctx->input(7);
    const int64_t batch = x.dim_size(0);
    const int64_t input = x.dim_size(1);
    const int64_t cell = cs_prev.dim_size(1);
    RNN_REQUIRE(ctx, cs_prev.dim_size(0) == batch,
                "cs_prev.dims(0) != batch_size: ", cs_prev.dim_size(0), " vs. ",
                batch);
    const Tensor& h_prev = ctx->input(2);
    RNN_REQUIRE(ctx, h_prev.dim_size(0) == batch,
                "h_prev.dims(0) != batch_size: ", h_prev.dim_size(0), " vs. ",
                batch);
    RNN_REQUIRE(ctx, h_prev.dim_size(1) == cell,
                "h_prev.dims(1) != cell_size: ", h_prev.dim_size(1), " vs. ",
                cell);
    RNN_REQUIRE(ctx, w.dim_size(0) == input + cell,
                "w.dim_size(0) != input_size + cell_size: ", w.dim_size(0),
                " vs. ", input + cell);
    RNN_REQUIRE(ctx, w.dim_size(1) == cell * 4,
                "w.dim_size(1) != cell_size * 4: ", w.dim_size(1), " vs. ",
                cell * 4);
    RNN_REQUIRE(ctx, b.dim_size(0) == cell * 4,
                "b.dim_size(0) != cell_size * 4: ", b.dim_size(0), " vs. ",
                cell * 4);
    // i, cs, f, o, ci, co, then the two gradients, in TensorFlow's words
    // (its message for f's dim 1 names i).
    static const char* const kDim0[] = {
        "i.dim_size(0)",          "cs.dim_size(0)",       "f.dim_size(0)",
        "o.dim_size(0)",          "ci.dim_size(0)",       "co.dim_size(0)",
        "cs_grad_tensor.dims(0)", "h_grad_tensor.dims(0)"};
    static const char* const kDim1[] = {
        "i.dim_size(1)",          "cs.dim_size(1)",       "i.dim_size(1)",
        "o.dim_size(1)",          "ci.dim_size(1)",       "co.dim_size(1)",
        "cs_grad_tensor.dims(1)", "h_grad_tensor.dims(1)"};
    for (int k = 0; k < 8; ++k) {
      const Tensor& t = ctx->input(8 + k);
      RNN_REQUIRE(ctx, t.dim_size(0) == batch, kDim0[k],
                  " != batch_size: ", t.dim_size(0), " vs. ", batch);
      RNN_REQUIRE(ctx, t.dim_size(1) == cell, kDim1[k],
                  " != cell_size: ", t.dim_size(1), " vs. ", cell);
    }
    const Tensor& wci = ctx->input(4);
    const Tensor& wcf = ctx->input(5);
    const Tensor& wco = ctx->input(6);
    if (attrs_.use_peephole) {
      DFX_OP_REQUIRES_OK(ctx, CheckPeepholes(*ctx, wci, wcf, wco, cell));
    }
    Tensor* cs_prev_grad = nullptr;
    DFX_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, TensorShape({batch, cell}),
                                                 &cs_prev_grad));
    Tensor* dicfo = nullptr;
    DFX_OP_REQUIRES_OK(
        ctx, ctx->allocate_output(1, TensorShape({batch, 4 * cell}), &dicfo));
    T* peep_grads[3];
    for (int k = 0; k < 3; ++k) {
      Tensor* t = nullptr;
      DFX_OP_REQUIRES_OK(
          ctx, ctx->allocate_output(2 + k, ctx->input(4 + k).shape(), &t));
      Zero(t->data<T>(), t->NumElements());
      peep_grads[k] = t->data<T>();
    }
    auto in = [&](int k) { return ctx->input(k).data<T>(); };
    LstmCellBackward<T>(
        {batch, input, cell}, attrs_,
        {w.data<T>(), wci.data<T>(), wcf.data<T>(), wco.data<T>(), b.data<T>()},
        {in(1), in(8), in(9), in(10), in(11), in(12), in(13)}, in(14), in(15),
        dicfo->data<T>(), cs_prev_grad->data<T>(), peep_grads[0], peep_grads[1],
        peep_grads[2]);
  }

 private:
  LstmAttrs attrs_;
};

// seq_len_max, a scalar in [0, timelen].
absl::StatusOr<int64_t> SeqLenMax(const OpKernelContext& ctx) {
  const Tensor& t = ctx.input(0);
  if (t.dims() != 0) {
    return NodeInvalidArgument(
        ctx, absl::StrCat("`seq_len_max_tensor` must be rank 0 but is rank ",
                          t.dims()));
  }
  return t.scalar<int64_t>();
}

absl::Status CheckSeqLenMax(const OpKernelContext& ctx, int64_t seq_len_max,
                            int64_t timelen) {
  if (seq_len_max >= 0 && seq_len_max <= timelen) return absl::OkStatus();
  return NodeInvalidArgument(
      ctx, absl::StrCat("seq_len_max must be between 0 and ", timelen,
                        " but is ", seq_len_max));
}

template <typename T>
class BlockLstmOp : public OpKernel {
 public:
  BlockLstmOp(OpKernelConstruction* ctx, GateLayout layout) : OpKernel(ctx) {
    attrs_.layout = layout;
    if (layout == GateLayout::kICFO) {
      ctx->SetStatus(ctx->GetAttr("forget_bias", &attrs_.forget_bias));
    }
    ctx->SetStatus(ctx->GetAttr("cell_clip", &attrs_.cell_clip));
    ctx->SetStatus(ctx->GetAttr("use_peephole", &attrs_.use_peephole));
  }

  void Compute(OpKernelContext* ctx) override {
    absl::StatusOr<int64_t> seq_len_max = SeqLenMax(*ctx);
    DFX_OP_REQUIRES_OK(ctx, seq_len_max.status());
    const Tensor& x = ctx->input(1);
    RNN_REQUIRE(ctx, x.dims() == 3, "x must be 3D");
    const int64_t timelen = x.dim_size(0);
    const int64_t batch = x.dim_size(1);
    const int64_t input = x.dim_size(2);
    const Tensor& cs_prev = ctx->input(2);
    RNN_REQUIRE(ctx, cs_prev.dims() == 2, "cs_prev must be 2D");
    RNN_REQUIRE(ctx, cs_prev.dim_size(0) == batch,
                "cs_prev.dims(0) != batch_size: ", cs_prev.dim_size(0), " vs. ",
                batch);
    const int64_t cell = cs_prev.dim_size(1);
    const Tensor& h_prev = ctx->input(3);
    RNN_REQUIRE(ctx, h_prev.dims() == 2, "h_prev must be 2D");
    RNN_REQUIRE(ctx, h_prev.dim_size(0) == batch,
                "h_prev.dims(0) != batch_size: ", h_prev.dim_size(0), " vs. ",
                batch);
    RNN_REQUIRE(ctx, h_prev.dim_size(1) == cell,
                "h_prev.dims(1) != cell_size: ", h_prev.dim_size(1), " vs. ",
                cell);
    const Tensor& w = ctx->input(4);
    RNN_REQUIRE(ctx, w.dims() == 2, "w must be 2D");
    RNN_REQUIRE(ctx, w.dim_size(0) == input + cell,
                "w.dim_size(0) != input_size + cell_size: ", w.dim_size(0),
                " vs. ", input + cell);
    RNN_REQUIRE(ctx, w.dim_size(1) == cell * 4,
                "w.dim_size(1) != cell_size * 4: ", w.dim_size(1), " vs. ",
                cell * 4);
    const char* names[] = {"wci", "wcf", "wco"};
    for (int k = 0; k < 3; ++k) {
      const Tensor& p = ctx->input(5 + k);
      RNN_REQUIRE(ctx, p.dims() == 1, names[k], " must be 1D");
      RNN_REQUIRE(ctx, p.dim_size(0) == cell, names[k],
                  ".dim_size(0) != cell_size: ", p.dim_size(0), " vs. ", cell);
    }
    const Tensor& b = ctx->input(8);
    RNN_REQUIRE(ctx, b.dims() == 1, "b must be 1D");
    RNN_REQUIRE(ctx, b.dim_size(0) == cell * 4,
                "b.dim_size(0) != cell_size * 4: ", b.dim_size(0), " vs. ",
                cell * 4);
    const TensorShape shape({timelen, batch, cell});
    T* outs[7];
    for (int k = 0; k < 7; ++k) {
      Tensor* t = nullptr;
      DFX_OP_REQUIRES_OK(ctx, ctx->allocate_output(k, shape, &t));
      outs[k] = t->data<T>();
    }
    DFX_OP_REQUIRES_OK(ctx, CheckSeqLenMax(*ctx, *seq_len_max, timelen));
    const int64_t step = batch * cell;
    std::vector<T> xh(batch * (input + cell)), gates(batch * 4 * cell);
    const LstmWeights<T> wt{w.data<T>(), ctx->input(5).data<T>(),
                            ctx->input(6).data<T>(), ctx->input(7).data<T>(),
                            b.data<T>()};
    for (int64_t t = 0; t < *seq_len_max; ++t) {
      const T* cs_in = t == 0 ? cs_prev.data<T>() : outs[1] + (t - 1) * step;
      const T* h_in = t == 0 ? h_prev.data<T>() : outs[6] + (t - 1) * step;
      const int64_t o = t * step;
      LstmCellForward<T>(*ctx->device(), {batch, input, cell}, attrs_,
                         x.data<T>() + t * batch * input, cs_in, h_in, wt,
                         xh.data(), gates.data(),
                         {outs[0] + o, outs[1] + o, outs[2] + o, outs[3] + o,
                          outs[4] + o, outs[5] + o, outs[6] + o});
    }
    for (int k = 0; k < 7; ++k) {
      Zero(outs[k] + *seq_len_max * step, (timelen - *seq_len_max) * step);
    }
  }

 private:
  LstmAttrs attrs_;
};

template <typename T, GateLayout kLayout>
class BlockLstmLayoutOp : public BlockLstmOp<T> {
 public:
  explicit BlockLstmLayoutOp(OpKernelConstruction* ctx)
      : BlockLstmOp<T>(ctx, kLayout) {}
};

template <typename T, GateLayout kLayout>
class BlockLstmGradOp : public OpKernel {
 public:
  explicit BlockLstmGradOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    attrs_.layout = kLayout;
    ctx->SetStatus(ctx->GetAttr("use_peephole", &attrs_.use_peephole));
  }

  void Compute(OpKernelContext* ctx) override {
    absl::StatusOr<int64_t> seq_len_max_or = SeqLenMax(*ctx);
    DFX_OP_REQUIRES_OK(ctx, seq_len_max_or.status());
    const int64_t seq_len_max = *seq_len_max_or;
    const Tensor& x = ctx->input(1);
    RNN_REQUIRE(ctx, x.dims() == 3, "x must be rank 3 but is rank ", x.dims());
    const int64_t timelen = x.dim_size(0);
    const int64_t batch = x.dim_size(1);
    const int64_t input = x.dim_size(2);
    const Tensor& cs_prev = ctx->input(2);
    RNN_REQUIRE(ctx, cs_prev.dims() == 2, "cs_prev must be rank 2 but is rank ",
                cs_prev.dims());
    const Tensor& h_prev = ctx->input(3);
    RNN_REQUIRE(ctx, h_prev.dims() == 2, "h_prev must be rank 2 but is rank ",
                h_prev.dims());
    const Tensor& w = ctx->input(4);
    RNN_REQUIRE(ctx, w.dims() == 2, "w must be rank 2 but is rank ", w.dims());
    const int64_t cell = w.dim_size(1) / 4;
    RNN_REQUIRE(ctx, input + cell == w.dim_size(0),
                "w matrix rows don't match: ", input + cell, " vs. ",
                w.dim_size(0));
    const char* names[] = {"wci", "wcf", "wco"};
    for (int k = 0; k < 3; ++k) {
      RNN_REQUIRE(ctx, ctx->input(5 + k).dims() == 1, names[k],
                  " must be rank 1 but is rank ", ctx->input(5 + k).dims());
    }
    const Tensor& b = ctx->input(8);
    RNN_REQUIRE(ctx, b.dims() == 1, "b must be rank 1 but is rank ", b.dims());
    RNN_REQUIRE(ctx, cell == b.dim_size(0) / 4,
                "w and b cell_size don't match: ", cell, " vs. ",
                b.dim_size(0));
    static const char* const kActs[] = {"i", "cs", "f", "o", "ci", "co", "h"};
    for (int k = 0; k < 7; ++k) {
      RNN_REQUIRE(ctx, ctx->input(9 + k).dims() == 3, kActs[k],
                  " must be rank 3. Received: ", ctx->input(9 + k).dims());
    }
    // What TensorFlow 2.21's kernel assumes and never checks.
    DFX_OP_REQUIRES_OK(ctx, CheckSeqLenMax(*ctx, seq_len_max, timelen));
    RNN_REQUIRE(ctx, w.dim_size(1) == 4 * cell,
                "w matrix columns must be a multiple of 4, but got ",
                w.dim_size(1));
    RNN_REQUIRE(ctx, b.dim_size(0) == 4 * cell,
                "w and b cell_size don't match: ", cell, " vs. ",
                b.dim_size(0));
    for (const Tensor* t : {&cs_prev, &h_prev}) {
      RNN_REQUIRE(ctx, t->dim_size(0) == batch && t->dim_size(1) == cell,
                  t == &cs_prev ? "cs_prev" : "h_prev", " must be [", batch,
                  ", ", cell, "] but is ", t->shape().DebugString());
    }
    if (attrs_.use_peephole) {
      DFX_OP_REQUIRES_OK(ctx, CheckPeepholes(*ctx, ctx->input(5), ctx->input(6),
                                             ctx->input(7), cell));
    }
    static const char* const kSeq[] = {"i",  "cs", "f",       "o",     "ci",
                                       "co", "h",  "cs_grad", "h_grad"};
    for (int k = 0; k < 9; ++k) {
      const Tensor& t = ctx->input(9 + k);
      RNN_REQUIRE(ctx,
                  t.dims() == 3 && t.dim_size(0) >= seq_len_max &&
                      t.dim_size(1) == batch && t.dim_size(2) == cell,
                  kSeq[k], " must be [>= ", seq_len_max, ", ", batch, ", ",
                  cell, "] but is ", t.shape().DebugString());
    }

    Tensor* outs[8];
    DFX_OP_REQUIRES_OK(
        ctx, ctx->allocate_output(0, TensorShape({timelen, batch, input}),
                                  &outs[0]));
    for (int k = 1; k < 8; ++k) {
      DFX_OP_REQUIRES_OK(
          ctx, ctx->allocate_output(k, ctx->input(1 + k).shape(), &outs[k]));
      Zero(outs[k]->data<T>(), outs[k]->NumElements());
    }
    T* x_grad = outs[0]->data<T>();
    T* cs_prev_grad = outs[1]->data<T>();
    T* h_prev_grad = outs[2]->data<T>();
    T* w_grad = outs[3]->data<T>();
    T* b_grad = outs[7]->data<T>();
    const int64_t step = batch * cell;
    const int64_t K = input + cell;
    std::vector<T> cs_grad(step), h_grad(step), xh(batch * K),
        xh_grad(batch * K), dgates(batch * 4 * cell), w_step(K * 4 * cell);
    const LstmWeights<T> wt{w.data<T>(), ctx->input(5).data<T>(),
                            ctx->input(6).data<T>(), ctx->input(7).data<T>(),
                            b.data<T>()};
    auto seq = [&](int k, int64_t t) {
      return ctx->input(k).data<T>() + t * step;
    };
    for (int64_t t = seq_len_max - 1; t >= 0; --t) {
      const T* cs_in = t == 0 ? cs_prev.data<T>() : seq(10, t - 1);
      const T* h_in = t == 0 ? h_prev.data<T>() : seq(15, t - 1);
      const T* cs_grad_t = seq(16, t);
      const T* h_grad_t = seq(17, t);
      for (int64_t k = 0; k < step; ++k) {
        cs_grad[k] = cs_prev_grad[k] + cs_grad_t[k];
        h_grad[k] = h_prev_grad[k] + h_grad_t[k];
      }
      LstmCellBackward<T>({batch, input, cell}, attrs_, wt,
                          {cs_in, seq(9, t), seq(10, t), seq(11, t), seq(12, t),
                           seq(13, t), seq(14, t)},
                          cs_grad.data(), h_grad.data(), dgates.data(),
                          cs_prev_grad, outs[4]->data<T>(), outs[5]->data<T>(),
                          outs[6]->data<T>());
      // xh_grad = dgates * w^T: x's part is x_grad[t], h's h_prev_grad.
      linalg::Gemm<T>(*ctx->device(), batch, K, 4 * cell, dgates.data(),
                      4 * cell, false, w.data<T>(), 4 * cell, true,
                      xh_grad.data(), K);
      for (int64_t r = 0; r < batch; ++r) {
        std::copy(xh_grad.data() + r * K, xh_grad.data() + r * K + input,
                  x_grad + (t * batch + r) * input);
        std::copy(xh_grad.data() + r * K + input, xh_grad.data() + (r + 1) * K,
                  h_prev_grad + r * cell);
      }
      // w_grad += xh^T * dgates; b_grad += the batch's sum of dgates.
      ConcatColumns(batch, x.data<T>() + t * batch * input, input, h_in, cell,
                    xh.data());
      linalg::Gemm<T>(*ctx->device(), K, 4 * cell, batch, xh.data(), K, true,
                      dgates.data(), 4 * cell, false, w_step.data(), 4 * cell);
      for (int64_t k = 0; k < K * 4 * cell; ++k) w_grad[k] += w_step[k];
      for (int64_t j = 0; j < 4 * cell; ++j) {
        T sum(0);
        for (int64_t r = 0; r < batch; ++r) sum += dgates[r * 4 * cell + j];
        b_grad[j] += sum;
      }
    }
    Zero(x_grad + seq_len_max * batch * input,
         (timelen - seq_len_max) * batch * input);
  }

 private:
  LstmAttrs attrs_;
};

class GruBlockCellOp : public OpKernel {
 public:
  explicit GruBlockCellOp(OpKernelConstruction* ctx) : OpKernel(ctx) {}

  // TensorFlow's checks of x, h_prev, w_ru, w_c, b_ru and b_c, shared by
  // the gradient. Sets *batch, *input, *cell.
  static absl::Status CheckInputs(const OpKernelContext& ctx, int64_t* batch,
                                  int64_t* input, int64_t* cell) {
    auto err = [&](auto... parts) {
      return NodeInvalidArgument(ctx, absl::StrCat(parts...));
    };
    const Tensor& x = ctx.input(0);
    if (x.dims() != 2) return err("Rank of x must be 2, got ", x.dims());
    *batch = x.dim_size(0);
    *input = x.dim_size(1);
    const Tensor& h = ctx.input(1);
    if (h.dims() != 2) return err("Rank of h_prev must be 2, got ", h.dims());
    if (h.dim_size(0) != *batch) {
      return err("h_prev.dims(0) != batch_size: ", h.dim_size(0), " vs. ",
                 *batch);
    }
    *cell = h.dim_size(1);
    const Tensor& w_ru = ctx.input(2);
    if (w_ru.dims() != 2) {
      return err("Rank of w_ru_ must be 2, got ", w_ru.dims());
    }
    if (w_ru.dim_size(0) != *input + *cell) {
      return err("w_ru.dim_size(0) != input_size + cell_size: ",
                 w_ru.dim_size(0), " vs. ", *input + *cell);
    }
    if (w_ru.dim_size(1) != *cell * 2) {
      return err("w_ru.dim_size(1) != cell_size * 2: ", w_ru.dim_size(1),
                 " vs. ", *cell * 2);
    }
    const Tensor& w_c = ctx.input(3);
    if (w_c.dims() != 2) return err("Rank of w_c must be 2, got ", w_c.dims());
    if (w_c.dim_size(0) != *input + *cell) {
      return err("w_c.dim_size(0) != input_size + cell_size: ", w_c.dim_size(0),
                 " vs. ", *input + *cell);
    }
    if (w_c.dim_size(1) != *cell) {
      return err("w_c.dim_size(1) != cell_size: ", w_c.dim_size(1), " vs. ",
                 *cell);
    }
    const Tensor& b_ru = ctx.input(4);
    if (b_ru.dims() != 1) {
      return err("Rank of b_ru must be 1, got ", b_ru.dims());
    }
    if (b_ru.dim_size(0) != *cell * 2) {
      return err("b_ru.dim_size(0) != cell_size * 2: ", b_ru.dim_size(0),
                 " vs. ", *cell * 2);
    }
    const Tensor& b_c = ctx.input(5);
    if (b_c.dims() != 1) return err("Rank of b_c must be 1, got ", b_c.dims());
    if (b_c.dim_size(0) != *cell) {
      return err("b_c.dim_size(0) != cell_size: ", b_c.dim_size(0), " vs. ",
                 *cell);
    }
    return absl::OkStatus();
  }

  void Compute(OpKernelContext* ctx) override {
    int64_t batch = 0, input = 0, cell = 0;
    DFX_OP_REQUIRES_OK(ctx, CheckInputs(*ctx, &batch, &input, &cell));
    float* out[4];
    for (int k = 0; k < 4; ++k) {
      Tensor* t = nullptr;
      DFX_OP_REQUIRES_OK(
          ctx, ctx->allocate_output(k, TensorShape({batch, cell}), &t));
      out[k] = t->data<float>();
    }
    float *r = out[0], *u = out[1], *c = out[2], *h = out[3];
    const float* x = ctx->input(0).data<float>();
    const float* h_prev = ctx->input(1).data<float>();
    const float* w_ru = ctx->input(2).data<float>();
    const float* w_c = ctx->input(3).data<float>();
    const float* b_ru = ctx->input(4).data<float>();
    const float* b_c = ctx->input(5).data<float>();
    const int64_t K = input + cell, n = batch * cell;
    std::vector<float> xh(batch * K), ru(batch * 2 * cell), hr(n);
    ConcatColumns(batch, x, input, h_prev, cell, xh.data());
    linalg::Gemm<float>(*ctx->device(), batch, 2 * cell, K, xh.data(), K, false,
                        w_ru, 2 * cell, false, ru.data(), 2 * cell);
    for (int64_t row = 0; row < batch; ++row) {
      for (int64_t j = 0; j < 2 * cell; ++j) {
        ru[row * 2 * cell + j] += b_ru[j];
      }
      std::copy(ru.data() + row * 2 * cell, ru.data() + row * 2 * cell + cell,
                r + row * cell);
      std::copy(ru.data() + row * 2 * cell + cell,
                ru.data() + (row + 1) * 2 * cell, u + row * cell);
    }
    SigmoidInPlace(r, n);
    SigmoidInPlace(u, n);
    for (int64_t k = 0; k < n; ++k) hr[k] = h_prev[k] * r[k];
    ConcatColumns(batch, x, input, hr.data(), cell, xh.data());
    linalg::Gemm<float>(*ctx->device(), batch, cell, K, xh.data(), K, false,
                        w_c, cell, false, c, cell);
    for (int64_t row = 0; row < batch; ++row) {
      for (int64_t j = 0; j < cell; ++j) c[row * cell + j] += b_c[j];
    }
    TanhInPlace(c, n);
    for (int64_t k = 0; k < n; ++k) h[k] = u[k] * (h_prev[k] - c[k]) + c[k];
  }
};

class GruBlockCellGradOp : public OpKernel {
 public:
  explicit GruBlockCellGradOp(OpKernelConstruction* ctx) : OpKernel(ctx) {}

  void Compute(OpKernelContext* ctx) override {
    int64_t batch = 0, input = 0, cell = 0;
    DFX_OP_REQUIRES_OK(
        ctx, GruBlockCellOp::CheckInputs(*ctx, &batch, &input, &cell));
    // r, u, c, d_h; TensorFlow's rank message for c names w_c.
    static const char* const kNames[] = {"r", "u", "c", "d_h"};
    static const char* const kRankNames[] = {"r", "u", "w_c", "d_h"};
    for (int k = 0; k < 4; ++k) {
      const Tensor& t = ctx->input(6 + k);
      RNN_REQUIRE(ctx, t.dims() == 2, "Rank of ", kRankNames[k],
                  " must be 2, got ", t.dims());
      RNN_REQUIRE(ctx, t.dim_size(0) == batch, kNames[k],
                  ".dims(0) != batch_size: ", t.dim_size(0), " vs. ", batch);
      RNN_REQUIRE(ctx, t.dim_size(1) == cell, kNames[k],
                  ".dims(1) != cell_size: ", t.dim_size(1), " vs. ", cell);
    }
    Tensor *d_x_t = nullptr, *d_h_prev_t = nullptr, *d_c_bar_t = nullptr,
           *d_ru_t = nullptr;
    DFX_OP_REQUIRES_OK(
        ctx, ctx->allocate_output(0, TensorShape({batch, input}), &d_x_t));
    DFX_OP_REQUIRES_OK(
        ctx, ctx->allocate_output(1, TensorShape({batch, cell}), &d_h_prev_t));
    DFX_OP_REQUIRES_OK(
        ctx, ctx->allocate_output(2, TensorShape({batch, cell}), &d_c_bar_t));
    DFX_OP_REQUIRES_OK(
        ctx, ctx->allocate_output(3, TensorShape({batch, 2 * cell}), &d_ru_t));
    const float* h_prev = ctx->input(1).data<float>();
    const float* w_ru = ctx->input(2).data<float>();
    const float* w_c = ctx->input(3).data<float>();
    const float* r = ctx->input(6).data<float>();
    const float* u = ctx->input(7).data<float>();
    const float* c = ctx->input(8).data<float>();
    const float* d_h = ctx->input(9).data<float>();
    float* d_c_bar = d_c_bar_t->data<float>();
    float* d_ru = d_ru_t->data<float>();
    const int64_t K = input + cell, n = batch * cell;
    std::vector<float> comp1(batch * K), comp2(batch * K);
    for (int64_t k = 0; k < n; ++k) {
      d_c_bar[k] = (d_h[k] * (1.0f - u[k])) * (1.0f - c[k] * c[k]);
    }
    // [d_x part 2, d_hr] = d_c_bar * w_c^T.
    linalg::Gemm<float>(*ctx->device(), batch, K, cell, d_c_bar, cell, false,
                        w_c, cell, true, comp2.data(), K);
    for (int64_t row = 0; row < batch; ++row) {
      for (int64_t j = 0; j < cell; ++j) {
        const int64_t k = row * cell + j;
        const float d_hr = comp2[row * K + input + j];
        d_ru[row * 2 * cell + j] = d_hr * h_prev[k] * r[k] * (1.0f - r[k]);
        d_ru[row * 2 * cell + cell + j] =
            d_h[k] * (h_prev[k] - c[k]) * u[k] * (1.0f - u[k]);
      }
    }
    // [d_x part 1, d_h_prev part 1] = [d_r_bar, d_u_bar] * w_ru^T.
    linalg::Gemm<float>(*ctx->device(), batch, K, 2 * cell, d_ru, 2 * cell,
                        false, w_ru, 2 * cell, true, comp1.data(), K);
    float* d_x = d_x_t->data<float>();
    float* d_h_prev = d_h_prev_t->data<float>();
    for (int64_t row = 0; row < batch; ++row) {
      for (int64_t j = 0; j < input; ++j) {
        d_x[row * input + j] = comp1[row * K + j] + comp2[row * K + j];
      }
      for (int64_t j = 0; j < cell; ++j) {
        const int64_t k = row * cell + j;
        const float d_hr = comp2[row * K + input + j];
        d_h_prev[k] = comp1[row * K + input + j] + d_hr * r[k] + d_h[k] * u[k];
      }
    }
  }
};

#undef RNN_REQUIRE

template <typename T>
void RegisterLstm(KernelRegistry* r) {
  RegisterKernel<LstmBlockCellOp<T>>(
      r, KernelDefBuilder("LSTMBlockCell").TypeConstraint<T>("T"));
  RegisterKernel<LstmBlockCellGradOp<T>>(
      r, KernelDefBuilder("LSTMBlockCellGrad").TypeConstraint<T>("T"));
  RegisterKernel<BlockLstmLayoutOp<T, GateLayout::kICFO>>(
      r, KernelDefBuilder("BlockLSTM").TypeConstraint<T>("T"));
  RegisterKernel<BlockLstmLayoutOp<T, GateLayout::kIFCO>>(
      r, KernelDefBuilder("BlockLSTMV2").TypeConstraint<T>("T"));
  RegisterKernel<BlockLstmGradOp<T, GateLayout::kICFO>>(
      r, KernelDefBuilder("BlockLSTMGrad").TypeConstraint<T>("T"));
  RegisterKernel<BlockLstmGradOp<T, GateLayout::kIFCO>>(
      r, KernelDefBuilder("BlockLSTMGradV2").TypeConstraint<T>("T"));
}

}  // namespace

void RegisterRnnKernels(KernelRegistry* registry) {
  RegisterLstm<float>(registry);
  RegisterLstm<Eigen::half>(registry);
  RegisterKernel<GruBlockCellOp>(
      registry, KernelDefBuilder("GRUBlockCell").TypeConstraint<float>("T"));
  RegisterKernel<GruBlockCellGradOp>(
      registry,
      KernelDefBuilder("GRUBlockCellGrad").TypeConstraint<float>("T"));
}

}  // namespace dfx
