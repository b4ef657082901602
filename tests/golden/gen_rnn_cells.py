"""Golden cases of the rnn_cells family: TensorFlow's fused recurrent cells
as TensorFlow 2.21 runs them. LSTMBlockCell and LSTMBlockCellGrad,
BlockLSTM and BlockLSTMV2 (a whole sequence, up to seq_len_max) with
BlockLSTMGrad and BlockLSTMGradV2, GRUBlockCell and GRUBlockCellGrad.

    $(tools/tf_env) tests/golden/gen_rnn_cells.py

The LSTM ops run float and half, the GRU ops float alone (TensorFlow's CPU
kernels). Gradients come two ways: tf.gradients through BlockLSTM and
BlockLSTMV2, as a training graph's backward pass emits them (TensorFlow's
Python gradient of both is BlockLSTMGrad, the v1 gate layout, even for
BlockLSTMV2: the cases record what TensorFlow computes); and the raw cell
gradients composed into a cell's backward pass by hand, since TensorFlow
2.21 registers no Python gradient for LSTMBlockCell or GRUBlockCell.

Left out, because TensorFlow's own kernel reads out of bounds, CHECK-fails
or reads past a tensor's rank there (dfx answers InvalidArgument, which
tests/kernels/rnn_cells_test.cc checks): inputs of too small a rank for the
dims LSTMBlockCell(Grad) reads before its rank checks, peephole weights
whose length is not cell_size, BlockLSTMGrad's forward outputs or incoming
gradients of the wrong shape, a seq_len_max below 0 or past x's time
steps (TensorFlow 2.21's BlockLSTM and BlockLSTMGrad CHECK-fail slicing
x; later TensorFlow versions check the range with the message dfx gives).
BlockLSTM's i, f, o, ci and co at and past
seq_len_max are uninitialized memory in TensorFlow (dfx writes zeros), so
the cases fetch those outputs only up to seq_len_max.

Half: TensorFlow's Eigen kernels round after every operation and its
contraction accumulates in half; dfx rounds the element-wise steps the same
way but accumulates its products in float. The forward half cases agree
within the default half tolerance (1e-3); the half gradient cases get
HALF_GRAD_TOL, several half ulps, for their sums over batch and time.

Besides the cases the generator writes the ops' signatures
(tf_op_defs.pbtxt, tf_cpu_kernels.txt) for tests/kernels/rnn_cells_test.cc.
"""

import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import golden_lib  # noqa: E402
from golden_lib import tf, tf1  # noqa: E402

FAMILY = "rnn_cells"
RAW = tf.raw_ops

OP_NAMES = ["LSTMBlockCell", "LSTMBlockCellGrad", "BlockLSTM", "BlockLSTMV2",
            "BlockLSTMGrad", "BlockLSTMGradV2", "GRUBlockCell",
            "GRUBlockCellGrad"]

# Float and the forward half cases keep golden_lib's default tolerances
# (half: 1e-3). Half gradients sum products over the batch and the time
# steps, where TensorFlow's contraction rounds to half at every step and
# dfx's GEMM once: a weight gradient then differs by several half ulps
# (6 at 0.28 in block_lstm_grad_v2_raw_plain_half).
HALF_GRAD_TOL = {"rtol": 5e-3, "atol": 5e-3}


def case(name, build, dtype=np.float32, grad=False):
    tol = HALF_GRAD_TOL if dtype == np.float16 and grad else {}
    golden_lib.case(FAMILY, name, build, **tol)


def feed(feeds, value, name, known=True):
    """A placeholder for value (its shape known, or unknown so that only
    the kernel checks it), recorded in feeds."""
    value = np.asarray(value)
    ph = tf1.placeholder(tf.as_dtype(value.dtype),
                         shape=value.shape if known else None, name=name)
    feeds[ph] = value
    return ph


def lstm_values(seed, batch, input_size, cell, dtype, time=None):
    """x ([time,] batch, input), cs_prev, h_prev, w, wci, wcf, wco, b."""
    r = golden_lib.rng(seed)

    def u(*shape, scale=1.0):
        return (r.uniform(-1, 1, shape) * scale).astype(dtype)
    x = u(batch, input_size) if time is None else u(time, batch, input_size)
    return {"x": x, "cs_prev": u(batch, cell, scale=1.5),
            "h_prev": u(batch, cell), "w": u(input_size + cell, 4 * cell,
                                              scale=0.8),
            "wci": u(cell), "wcf": u(cell), "wco": u(cell),
            "b": u(4 * cell, scale=0.5)}


LSTM_INPUTS = ["x", "cs_prev", "h_prev", "w", "wci", "wcf", "wco", "b"]


def lstm_feeds(values, feeds, known=True, override=None):
    override = override or {}
    out = {}
    for k in LSTM_INPUTS:
        v = override.get(k, values[k])
        out[k] = feed(feeds, v, k, known)
    return out


# --------------------------------------------------------------------------
# LSTMBlockCell


def lstm_cell_cases():
    def cell_case(name, dtype=np.float32, batch=2, input_size=3, cell=4,
                  seed=1, **attrs):
        v = lstm_values(seed, batch, input_size, cell, dtype)

        def build():
            feeds = {}
            p = lstm_feeds(v, feeds)
            outs = RAW.LSTMBlockCell(**p, **attrs)
            return list(outs), feeds
        case("lstm_cell_" + name, build, dtype)

    for dtype, tag in ((np.float32, ""), (np.float16, "_half")):
        cell_case("defaults" + tag, dtype)
        cell_case("peephole" + tag, dtype, use_peephole=True, seed=2)
        # cs large enough that a clip of 0.5 cuts it.
        cell_case("clip_peephole" + tag, dtype, use_peephole=True,
                  cell_clip=0.5, forget_bias=0.3, seed=3)
        cell_case("no_clip" + tag, dtype, cell_clip=-1.0, forget_bias=2.5,
                  seed=4)
        cell_case("batch1" + tag, dtype, batch=1, input_size=2, cell=3,
                  seed=5)
    cell_case("zero_clip_is_none", cell_clip=0.0, forget_bias=0.0, seed=6)
    cell_case("batch5_cell1", batch=5, input_size=4, cell=1, seed=7,
              use_peephole=True)

    def bad(name, batch=2, input_size=3, cell=4, **override):
        v = lstm_values(8, batch, input_size, cell, np.float32)

        def build():
            feeds = {}
            p = lstm_feeds(v, feeds, known=False, override=override)
            return list(RAW.LSTMBlockCell(**p)), feeds
        case("lstm_cell_error_" + name, build)

    z = np.zeros
    f32 = np.float32
    bad("empty_batch", batch=0)
    bad("zero_cell", cell=0)
    bad("cs_prev_batch", cs_prev=z((3, 4), f32))
    bad("h_prev_batch", h_prev=z((3, 4), f32))
    bad("h_prev_cell", h_prev=z((2, 5), f32))
    bad("w_rows", w=z((6, 16), f32))
    bad("w_cols", w=z((7, 12), f32))
    bad("b_len", b=z((12,), f32))
    # Every dim TensorFlow reads matches; then its rank checks fail.
    bad("x_rank3", x=z((2, 3, 1), f32))
    bad("wci_rank2", wci=z((4, 1), f32))
    bad("b_rank2", b=z((16, 1), f32))


# LSTMBlockCellGrad in a cell's backward pass: the gates' gradient dicfo
# becomes the gradients of x, h_prev, w and b as the removed contrib
# gradient composed them.
def lstm_cell_grad_cases():
    def grad_case(name, dtype=np.float32, batch=2, input_size=3, cell=4,
                  seed=11, use_peephole=False, cell_clip=3.0):
        v = lstm_values(seed, batch, input_size, cell, dtype)
        r = golden_lib.rng(seed + 100)
        cs_grad_v = r.uniform(-1, 1, (batch, cell)).astype(dtype)
        h_grad_v = r.uniform(-1, 1, (batch, cell)).astype(dtype)

        def build():
            feeds = {}
            p = lstm_feeds(v, feeds)
            i, cs, f, o, ci, co, h = RAW.LSTMBlockCell(
                **p, use_peephole=use_peephole, cell_clip=cell_clip)
            cs_grad = feed(feeds, cs_grad_v, "cs_grad")
            h_grad = feed(feeds, h_grad_v, "h_grad")
            cs_prev_grad, dicfo, wci_g, wcf_g, wco_g = RAW.LSTMBlockCellGrad(
                **p, i=i, cs=cs, f=f, o=o, ci=ci, co=co, cs_grad=cs_grad,
                h_grad=h_grad, use_peephole=use_peephole)
            xh = tf.concat([p["x"], p["h_prev"]], 1)
            xh_grad = tf.matmul(dicfo, p["w"], transpose_b=True)
            x_grad = xh_grad[:, :input_size]
            h_prev_grad = xh_grad[:, input_size:]
            w_grad = tf.matmul(xh, dicfo, transpose_a=True)
            b_grad = tf.reduce_sum(dicfo, 0)
            return [cs_prev_grad, dicfo, wci_g, wcf_g, wco_g, x_grad,
                    h_prev_grad, w_grad, b_grad, h], feeds
        case("lstm_cell_grad_" + name, build, dtype, grad=True)

    for dtype, tag in ((np.float32, ""), (np.float16, "_half")):
        grad_case("plain" + tag, dtype)
        grad_case("peephole" + tag, dtype, use_peephole=True, seed=12)
        grad_case("batch1_peephole_clip" + tag, dtype, batch=1,
                  use_peephole=True, cell_clip=0.4, seed=13)

    # Raw LSTMBlockCellGrad on an empty batch (the forward cell refuses
    # one; its gradient does not check).
    def empty():
        feeds = {}
        v = lstm_values(16, 0, 3, 4, np.float32)
        p = lstm_feeds(v, feeds)
        a = {k: feed(feeds, np.zeros((0, 4), np.float32), k)
             for k in ("i", "cs", "f", "o", "ci", "co", "cs_grad", "h_grad")}
        return list(RAW.LSTMBlockCellGrad(**p, **a, use_peephole=True)), feeds
    case("lstm_cell_grad_empty_batch", empty)

    # Raw LSTMBlockCellGrad with a mis-shaped forward output or gradient.
    def bad(name, which, shape, use_peephole=False):
        v = lstm_values(14, 2, 3, 4, np.float32)
        r = golden_lib.rng(15)
        acts = {k: r.uniform(0, 1, (2, 4)).astype(np.float32)
                for k in ("i", "cs", "f", "o", "ci", "co", "cs_grad",
                          "h_grad")}
        acts[which] = np.zeros(shape, np.float32)

        def build():
            feeds = {}
            p = lstm_feeds(v, feeds, known=False)
            a = {k: feed(feeds, acts[k], k, known=False) for k in acts}
            return list(RAW.LSTMBlockCellGrad(
                **p, **a, use_peephole=use_peephole)), feeds
        case("lstm_cell_grad_error_" + name, build)

    bad("i_batch", "i", (3, 4))
    bad("f_cell", "f", (2, 5))  # TensorFlow's message names i
    bad("co_cell", "co", (2, 3))
    bad("cs_grad_batch", "cs_grad", (1, 4))
    bad("h_grad_cell", "h_grad", (2, 6), use_peephole=True)


# --------------------------------------------------------------------------
# BlockLSTM and BlockLSTMV2, forward


def block_lstm_cases():
    def fwd(name, op="BlockLSTM", dtype=np.float32, time=4, batch=2,
            input_size=3, cell=2, seq_len_max=None, seed=21, **attrs):
        v = lstm_values(seed, batch, input_size, cell, dtype, time=time)
        slm = time if seq_len_max is None else seq_len_max

        def build():
            feeds = {}
            p = lstm_feeds(v, feeds)
            s = feed(feeds, np.int64(slm), "seq_len_max")
            i, cs, f, o, ci, co, h = getattr(RAW, op)(seq_len_max=s, **p,
                                                      **attrs)
            # Past seq_len_max TensorFlow zeroes cs and h and leaves the
            # other outputs uninitialized.
            return [t[:slm] for t in (i, f, o, ci, co)] + [cs, h], feeds
        case(("block_lstm_" if op == "BlockLSTM" else "block_lstm_v2_") +
             name, build, dtype)

    for op in ("BlockLSTM", "BlockLSTMV2"):
        v2 = op == "BlockLSTMV2"
        extra = {} if v2 else {"forget_bias": 0.7}
        for dtype, tag in ((np.float32, ""), (np.float16, "_half")):
            fwd("defaults" + tag, op, dtype)
            fwd("peephole_clip" + tag, op, dtype, use_peephole=True,
                cell_clip=0.6, seed=22, **extra)
            fwd("seq_len_max_2" + tag, op, dtype, seq_len_max=2, seed=23,
                use_peephole=True)
        fwd("no_clip", op, cell_clip=-1.0, seed=24, **extra)
        fwd("batch1_odd", op, batch=1, input_size=3, cell=3, time=3, seed=25)
        fwd("seq_len_max_0", op, seq_len_max=0, seed=26)
        fwd("empty_batch", op, batch=0, seed=27)
        fwd("empty_time", op, time=0, seed=28)
        fwd("batch3_time1", op, batch=3, input_size=1, cell=4, time=1,
            seed=29, use_peephole=True)

    def bad(name, op="BlockLSTM", seq_len_max=np.int64(3), **override):
        v = lstm_values(30, 2, 3, 2, np.float32, time=3)

        def build():
            feeds = {}
            p = lstm_feeds(v, feeds, known=False, override=override)
            s = feed(feeds, seq_len_max, "seq_len_max", known=False)
            return list(getattr(RAW, op)(seq_len_max=s, **p)), feeds
        case("block_lstm_error_" + name, build)

    z = np.zeros
    f32 = np.float32
    bad("seq_len_max_vector", seq_len_max=np.array([3], np.int64))
    bad("x_rank2", x=z((2, 3), f32))
    bad("cs_prev_rank1", cs_prev=z((2,), f32))
    bad("cs_prev_batch", cs_prev=z((3, 2), f32))
    bad("h_prev_cell", op="BlockLSTMV2", h_prev=z((2, 3), f32))
    bad("w_rows", w=z((4, 8), f32))
    bad("w_cols", w=z((5, 4), f32))
    bad("wcf_len", wcf=z((3,), f32))
    bad("wco_rank2", wco=z((2, 1), f32))
    bad("b_len", op="BlockLSTMV2", b=z((10,), f32))


# --------------------------------------------------------------------------
# Gradients: tf.gradients through BlockLSTM(V2), and BlockLSTMGradV2 raw


def block_lstm_grad_cases():
    def grad(name, op="BlockLSTM", dtype=np.float32, time=3, batch=2,
             input_size=3, cell=2, seq_len_max=None, seed=41, use_cs=True,
             skip=(), **attrs):
        v = lstm_values(seed, batch, input_size, cell, dtype, time=time)
        slm = time if seq_len_max is None else seq_len_max
        r = golden_lib.rng(seed + 100)
        hw = r.uniform(-1, 1, (time, batch, cell)).astype(dtype)
        cw = r.uniform(-1, 1, (time, batch, cell)).astype(dtype)

        def build():
            feeds = {}
            p = lstm_feeds(v, feeds)
            s = feed(feeds, np.int64(slm), "seq_len_max")
            outs = getattr(RAW, op)(seq_len_max=s, **p, **attrs)
            cs, h = outs[1], outs[6]
            loss = tf.reduce_sum(h * hw)
            if use_cs:
                loss += tf.reduce_sum(cs * cw)
            grads = tf.gradients(
                loss, [p[k] for k in LSTM_INPUTS if k not in skip])
            return [h] + grads, feeds
        case(("block_lstm_grad_" if op == "BlockLSTM"
              else "block_lstm_v2_grad_") + name, build, dtype, grad=True)

    for op in ("BlockLSTM", "BlockLSTMV2"):
        for dtype, tag in ((np.float32, ""), (np.float16, "_half")):
            grad("plain" + tag, op, dtype)
            grad("peephole_seq_len_max_2" + tag, op, dtype, time=4,
                 seq_len_max=2, use_peephole=True, seed=42)
        grad("h_only_clip", op, use_cs=False, cell_clip=0.5, seed=43)
        grad("batch1", op, batch=1, input_size=2, cell=3, seed=44,
             use_peephole=True)
        grad("seq_len_max_0", op, seq_len_max=0, seed=45)
        # w's gradient is left out: over an empty batch TensorFlow's Eigen
        # contraction adds an uninitialized buffer to it.
        grad("empty_batch", op, batch=0, seed=46, use_peephole=True,
             skip=("w",))

    # BlockLSTMGradV2, which no Python gradient emits: after BlockLSTMV2,
    # with the incoming gradients fed.
    def raw_v2(name, dtype=np.float32, time=3, batch=2, input_size=3, cell=2,
               seq_len_max=None, seed=51, use_peephole=False, cell_clip=0.0):
        v = lstm_values(seed, batch, input_size, cell, dtype, time=time)
        slm = time if seq_len_max is None else seq_len_max
        r = golden_lib.rng(seed + 100)
        hg = r.uniform(-1, 1, (time, batch, cell)).astype(dtype)
        cg = r.uniform(-1, 1, (time, batch, cell)).astype(dtype)

        def build():
            feeds = {}
            p = lstm_feeds(v, feeds)
            s = feed(feeds, np.int64(slm), "seq_len_max")
            i, cs, f, o, ci, co, h = RAW.BlockLSTMV2(
                seq_len_max=s, **p, use_peephole=use_peephole,
                cell_clip=cell_clip)
            g = RAW.BlockLSTMGradV2(
                seq_len_max=s, **p, i=i, cs=cs, f=f, o=o, ci=ci, co=co, h=h,
                cs_grad=feed(feeds, cg, "cs_grad"),
                h_grad=feed(feeds, hg, "h_grad"), use_peephole=use_peephole)
            return list(g), feeds
        case("block_lstm_grad_v2_raw_" + name, build, dtype, grad=True)

    for dtype, tag in ((np.float32, ""), (np.float16, "_half")):
        raw_v2("plain" + tag, dtype)
        raw_v2("peephole_clip" + tag, dtype, use_peephole=True,
               cell_clip=0.5, seed=52)
    raw_v2("seq_len_max_1", time=3, seq_len_max=1, seed=53,
           use_peephole=True)

    # Raw BlockLSTMGrad with bad inputs TensorFlow checks.
    def bad(name, op="BlockLSTMGrad", seq_len_max=np.int64(2), **override):
        v = lstm_values(54, 2, 3, 2, np.float32, time=2)
        r = golden_lib.rng(55)
        acts = {k: r.uniform(0, 1, (2, 2, 2)).astype(np.float32)
                for k in ("i", "cs", "f", "o", "ci", "co", "h", "cs_grad",
                          "h_grad")}
        for k in list(override):
            if k in acts:
                acts[k] = override.pop(k)

        def build():
            feeds = {}
            p = lstm_feeds(v, feeds, known=False, override=override)
            s = feed(feeds, seq_len_max, "seq_len_max", known=False)
            a = {k: feed(feeds, acts[k], k, known=False) for k in acts}
            return list(getattr(RAW, op)(seq_len_max=s, **p, **a,
                                         use_peephole=False)), feeds
        case("block_lstm_grad_error_" + name, build)

    z = np.zeros
    f32 = np.float32
    bad("seq_len_max_matrix", seq_len_max=np.zeros((1, 1), np.int64))
    bad("x_rank2", x=z((2, 3), f32))
    bad("h_prev_rank3", op="BlockLSTMGradV2", h_prev=z((2, 2, 1), f32))
    bad("w_cols_not_multiple_of_4", w=z((5, 6), f32))
    bad("w_cols_zero", w=z((3, 0), f32))
    bad("w_rows", op="BlockLSTMGradV2", w=z((6, 8), f32))
    bad("wcf_rank0", wcf=np.float32(1))
    bad("b_cell", b=z((12,), f32))
    bad("ci_rank2", ci=z((2, 2), f32))
    bad("h_rank4", op="BlockLSTMGradV2", h=z((2, 2, 2, 1), f32))


# --------------------------------------------------------------------------
# GRUBlockCell and GRUBlockCellGrad (float only)


def gru_values(seed, batch, input_size, cell):
    r = golden_lib.rng(seed)

    def u(*shape, scale=1.0):
        return (r.uniform(-1, 1, shape) * scale).astype(np.float32)
    return {"x": u(batch, input_size), "h_prev": u(batch, cell),
            "w_ru": u(input_size + cell, 2 * cell, scale=0.8),
            "w_c": u(input_size + cell, cell, scale=0.8),
            "b_ru": u(2 * cell, scale=0.5), "b_c": u(cell, scale=0.5)}


GRU_INPUTS = ["x", "h_prev", "w_ru", "w_c", "b_ru", "b_c"]


def gru_cases():
    def gru(name, batch=2, input_size=3, cell=4, seed=61, grad=True):
        v = gru_values(seed, batch, input_size, cell)
        d_h_v = golden_lib.rng(seed + 100).uniform(
            -1, 1, (batch, cell)).astype(np.float32)

        def build():
            feeds = {}
            p = {k: feed(feeds, v[k], k) for k in GRU_INPUTS}
            r, u, c, h = RAW.GRUBlockCell(**p)
            if not grad:
                return [r, u, c, h], feeds
            d_h = feed(feeds, d_h_v, "d_h")
            d_x, d_h_prev, d_c_bar, d_r_bar_u_bar = RAW.GRUBlockCellGrad(
                **p, r=r, u=u, c=c, d_h=d_h)
            # The weights' gradients, as the removed contrib gradient
            # composed them.
            x_h_prev = tf.concat([p["x"], p["h_prev"]], 1)
            x_h_prevr = tf.concat([p["x"], p["h_prev"] * r], 1)
            d_w_ru = tf.matmul(x_h_prev, d_r_bar_u_bar, transpose_a=True)
            d_w_c = tf.matmul(x_h_prevr, d_c_bar, transpose_a=True)
            d_b_ru = tf.reduce_sum(d_r_bar_u_bar, 0)
            d_b_c = tf.reduce_sum(d_c_bar, 0)
            return [r, u, c, h, d_x, d_h_prev, d_c_bar, d_r_bar_u_bar,
                    d_w_ru, d_w_c, d_b_ru, d_b_c], feeds
        case("gru_" + name, build)

    gru("cell_and_grad")
    gru("batch1", batch=1, input_size=2, cell=3, seed=62)
    gru("batch4_cell1", batch=4, input_size=5, cell=1, seed=63)
    gru("forward_only", seed=64, grad=False)
    gru("empty_batch", batch=0, seed=65)
    # No gradient: with cell_size 0 TensorFlow's products have nothing to
    # sum and leave d_x uninitialized.
    gru("zero_cell", cell=0, seed=66, grad=False)

    def bad(name, grad=False, **override):
        v = gru_values(67, 2, 3, 4)
        r = golden_lib.rng(68)
        acts = {k: r.uniform(0, 1, (2, 4)).astype(np.float32)
                for k in ("r", "u", "c", "d_h")}
        for k in list(override):
            if k in acts:
                acts[k] = override.pop(k)
        v.update(override)

        def build():
            feeds = {}
            p = {k: feed(feeds, v[k], k, known=False) for k in GRU_INPUTS}
            if not grad:
                return list(RAW.GRUBlockCell(**p)), feeds
            a = {k: feed(feeds, acts[k], k, known=False) for k in acts}
            return list(RAW.GRUBlockCellGrad(**p, **a)), feeds
        case(("gru_grad_error_" if grad else "gru_error_") + name, build)

    z = np.zeros
    f32 = np.float32
    bad("x_rank3", x=z((2, 3, 1), f32))
    bad("h_prev_rank1", h_prev=z((4,), f32))
    bad("h_prev_batch", h_prev=z((3, 4), f32))
    bad("w_ru_rank1", w_ru=z((7,), f32))
    bad("w_ru_rows", w_ru=z((6, 8), f32))
    bad("w_ru_cols", w_ru=z((7, 4), f32))
    bad("w_c_rank3", w_c=z((7, 4, 1), f32))
    bad("w_c_rows", w_c=z((8, 4), f32))
    bad("w_c_cols", w_c=z((7, 8), f32))
    bad("b_ru_rank2", b_ru=z((8, 1), f32))
    bad("b_ru_len", b_ru=z((4,), f32))
    bad("b_c_len", b_c=z((8,), f32))
    bad("w_ru_rows", grad=True, w_ru=z((6, 8), f32))
    bad("r_rank1", grad=True, r=z((8,), f32))
    bad("u_batch", grad=True, u=z((3, 4), f32))
    bad("c_rank3", grad=True, c=z((2, 4, 1), f32))  # names w_c
    bad("c_cell", grad=True, c=z((2, 2), f32))
    bad("d_h_batch", grad=True, d_h=z((1, 4), f32))
    bad("d_h_cell", grad=True, d_h=z((2, 5), f32))


def main():
    lstm_cell_cases()
    lstm_cell_grad_cases()
    block_lstm_cases()
    block_lstm_grad_cases()
    gru_cases()
    golden_lib.write_op_defs(FAMILY, OP_NAMES)


if __name__ == "__main__":
    main()
