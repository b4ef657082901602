"""Golden cases of the nn family: activations, their gradients, BiasAdd,
the losses and LRN, as TensorFlow 2.21 runs them.

Run with the TensorFlow virtualenv: $(tools/tf_env) tests/golden/gen_nn.py

Each float dtype TensorFlow has a CPU kernel for is covered (float32,
float64, float16, bfloat16). bfloat16 inputs are fed as float32 and cast in
the graph (the golden runner feeds .npy files, which have no bfloat16), so
those cases also run Cast. Gradient cases are built with tf.gradients and an
explicit upstream gradient (grad_ys), so they need no OnesLike/Fill; the ops
each gradient graph uses are printed at the end (--ops) for the record.
"""

import sys

import numpy as np
import tensorflow as tf
from tensorflow.python.ops import gen_nn_ops

from golden_lib import case, rng, tf1

FAMILY = "nn"
BF16 = tf.bfloat16.as_numpy_dtype

FLOAT_TYPES = [np.float32, np.float64, np.float16, BF16]
INT_TYPES = [np.int32, np.int64, np.uint8, np.int8, np.int16]

# Inputs at the edges: infinities, NaN, values that overflow exp in every
# dtype, values close to 0, and ordinary ones.
SPECIAL = np.array([-np.inf, -1e4, -100, -20, -5, -1, -0.1, -1e-3, 0, 1e-3,
                    0.1, 1, 5, 6, 20, 100, 1e4, np.inf, np.nan])

_GRAPH_OPS = {}


def dtype_name(dt):
    return "bfloat16" if dt is BF16 else np.dtype(dt).name


def feed(value, dt, name=None, shape=None):
    """A placeholder of dtype dt fed with value: (tensor used in the graph,
    placeholder, value fed). bfloat16 is fed as float32 and cast. A scalar
    is fed as [1] and reshaped: golden_lib writes .npy files through
    np.ascontiguousarray, which turns 0-d arrays into 1-d ones."""
    value = np.asarray(value)
    if value.ndim == 0 and shape is None:
        t, ph, fed = feed(value.reshape(1), dt, name)
        return tf.reshape(t, []), ph, fed
    if dt is BF16:
        fed = value.astype(np.float32)
        ph = tf1.placeholder(tf.float32, fed.shape if shape is None else shape,
                             name=name)
        return tf.cast(ph, tf.bfloat16), ph, fed
    fed = value.astype(dt)
    ph = tf1.placeholder(tf.as_dtype(dt), fed.shape if shape is None else shape,
                         name=name)
    return ph, ph, fed


def add(name, build, rtol=None, atol=None, note=""):
    def wrapped():
        fetches, feeds = build()
        # Scalars are fetched as [1] (see feed()).
        if not isinstance(fetches, (list, tuple)):
            fetches = [fetches]
        fetches = [tf.reshape(f, [1]) if f.shape.rank == 0 else f
                   for f in fetches]
        graph = tf1.get_default_graph()
        _GRAPH_OPS[name] = sorted({op.type for op in graph.get_operations()})
        return fetches, feeds
    case(FAMILY, name, wrapped, rtol=rtol, atol=atol, note=note)


def unary(name, fn, dt, x, **kw):
    def build():
        t, ph, v = feed(x, dt)
        return fn(t), {ph: v}
    add(name, build, **kw)


def unary_grad(name, fn, dt, x, seed=0, **kw):
    """y = fn(x) and dx = tf.gradients(y, x, dy) with a random dy."""
    dy = rng(seed).uniform(-2, 2, size=np.shape(x))

    def build():
        t, ph, v = feed(x, dt)
        g, gph, gv = feed(dy, dt)
        y = fn(t)
        (dx,) = tf.gradients(y, t, grad_ys=g)
        return [y, dx], {ph: v, gph: gv}
    add(name, build, **kw)


# --------------------------------------------------------------------------
# Element-wise activations and their gradient ops.

ACTIVATIONS = {
    "relu": tf.nn.relu,
    "relu6": tf.nn.relu6,
    "elu": tf.nn.elu,
    "selu": tf.nn.selu,
    "softplus": tf.nn.softplus,
    "softsign": tf.nn.softsign,
    "leaky_relu": tf.nn.leaky_relu,
    "sigmoid": tf.sigmoid,
    "tanh": tf.tanh,
}


def activation_cases():
    r = rng(1)
    normal = r.normal(0, 3, size=(3, 4, 5))
    for act, fn in ACTIVATIONS.items():
        for dt in FLOAT_TYPES:
            dn = dtype_name(dt)
            unary(f"{act}_special_{dn}", fn, dt, SPECIAL)
            unary(f"{act}_normal_{dn}", fn, dt, normal)
        unary(f"{act}_empty", fn, np.float32, np.zeros((0, 3)))
    for dt in INT_TYPES:
        dn = dtype_name(dt)
        x = np.array([[-100, -3, 0], [2, 6, 7], [100, 1, -1]])
        if dt is np.uint8:
            x = np.abs(x)
        unary(f"relu_{dn}", tf.nn.relu, dt, x)
        unary(f"relu6_{dn}", tf.nn.relu6, dt, x)
    # Softplus where exp(x) overflows or underflows, per dtype.
    big = np.array([-1e30, -1000, -90, -88, -40, -16, -14, -12, 12, 14, 16, 40,
                    88, 90, 1000, 1e30])
    unary("softplus_large_float32", tf.nn.softplus, np.float32, big)
    unary("softplus_large_float64", tf.nn.softplus, np.float64,
          np.concatenate([big, [-800, -700, 700, 800, 1e300]]))
    unary("softplus_large_float16", tf.nn.softplus, np.float16,
          np.array([-60000, -20, -10, -5, -3, 3, 5, 10, 20, 60000]))
    for alpha in [0.01, 2.0, -0.5, 0.0, 1.0]:
        for dt in [np.float32, np.float16]:
            unary(f"leaky_relu_alpha{alpha}_{dtype_name(dt)}",
                  lambda x, a=alpha: tf.nn.leaky_relu(x, alpha=a), dt, SPECIAL)


GRAD_OPS = {
    "relu_grad": gen_nn_ops.relu_grad,
    "relu6_grad": gen_nn_ops.relu6_grad,
    "elu_grad": gen_nn_ops.elu_grad,
    "selu_grad": gen_nn_ops.selu_grad,
    "softplus_grad": gen_nn_ops.softplus_grad,
    "softsign_grad": gen_nn_ops.softsign_grad,
    "leaky_relu_grad": gen_nn_ops.leaky_relu_grad,
}


def grad_op_cases():
    g = rng(2).uniform(-3, 3, size=SPECIAL.shape)
    # Elu's and Selu's outputs are > -1 and > -1.76.
    outputs = np.array([-1, -0.999, -0.5, -0.01, 0, 0.5, 2, 7, 1e4, np.inf,
                        np.nan, -1.7, -1.75, 3, 1e-3, -1e-3, 100, 6, 0.1])
    for op, fn in GRAD_OPS.items():
        x = outputs if op in ("elu_grad", "selu_grad") else SPECIAL
        for dt in FLOAT_TYPES:
            def build(fn=fn, dt=dt, x=x):
                gt, gph, gv = feed(g, dt)
                xt, xph, xv = feed(x, dt)
                return fn(gt, xt), {gph: gv, xph: xv}
            add(f"{op}_{dtype_name(dt)}", build)
    for dt in [np.int32, np.int64, np.uint8, np.int8]:
        gi = np.array([1, 2, 3, 4, 5, 6])
        xi = np.array([0, 1, 5, 6, 7, 100]) if dt is np.uint8 else \
            np.array([-3, 0, 1, 5, 6, 7])
        for op in ("relu_grad", "relu6_grad"):
            def build(op=op, dt=dt, gi=gi, xi=xi):
                gt, gph, gv = feed(gi, dt)
                xt, xph, xv = feed(xi, dt)
                return GRAD_OPS[op](gt, xt), {gph: gv, xph: xv}
            add(f"{op}_{dtype_name(dt)}", build)
    for alpha in [0.01, 3.0, -0.5]:
        def build(alpha=alpha):
            gt, gph, gv = feed(g, np.float32)
            xt, xph, xv = feed(SPECIAL, np.float32)
            return (gen_nn_ops.leaky_relu_grad(gt, xt, alpha=alpha),
                    {gph: gv, xph: xv})
        add(f"leaky_relu_grad_alpha{alpha}", build)
    # Inputs of different shapes, known only at run time.
    for op in ("relu_grad", "softplus_grad", "elu_grad"):
        def build(op=op):
            gph = tf1.placeholder(tf.float32, [None, None])
            xph = tf1.placeholder(tf.float32, [None, None])
            return GRAD_OPS[op](gph, xph), {
                gph: np.ones((2, 3), np.float32),
                xph: np.ones((3, 2), np.float32)}
        add(f"{op}_shape_mismatch", build)


def activation_gradient_cases():
    """tf.gradients of each activation: ReluGrad, Relu6Grad, EluGrad, ..."""
    r = rng(3)
    x = r.normal(0, 3, size=(4, 6))
    x[0, :] = [0, 6, -1e-3, 1e-3, 5.999, 6.001]
    for act, fn in ACTIVATIONS.items():
        for dt in FLOAT_TYPES:
            unary_grad(f"grad_{act}_{dtype_name(dt)}", fn, dt, x)
    for alpha in [0.3, 2.0]:
        unary_grad(f"grad_leaky_relu_alpha{alpha}",
                   lambda t, a=alpha: tf.nn.leaky_relu(t, alpha=a),
                   np.float32, x)


# --------------------------------------------------------------------------
# Softmax, LogSoftmax.

def softmax_cases():
    r = rng(4)
    shapes = [(5,), (3, 7), (2, 3, 4), (4, 1)]
    for op, fn in [("softmax", tf.nn.softmax), ("log_softmax", tf.nn.log_softmax)]:
        for dt in FLOAT_TYPES:
            dn = dtype_name(dt)
            for shape in shapes:
                sname = "x".join(map(str, shape))
                unary(f"{op}_{sname}_{dn}", fn, dt, r.normal(0, 4, size=shape))
            # Large logits: no overflow; the row max dominates.
            large = np.array([[1000, 1001, -1000], [60000, 60000, 100],
                              [-1e4, -1e4, -1e4], [0.5, 0.25, 0]])
            if dt is np.float16:
                large[0] = [10000, 10001, -10000]
            unary(f"{op}_large_{dn}", fn, dt, large)
            # Infinities and NaN, row by row.
            special = np.array([[-np.inf, 1, 2], [np.inf, 1, 0],
                                [np.nan, 1, 2], [-np.inf, -np.inf, -np.inf],
                                [1e30, -1e30, 0]])
            if dt is np.float16:
                special[4] = [60000, -60000, 0]
            unary(f"{op}_special_{dn}", fn, dt, special)
        unary(f"{op}_empty_rows", fn, np.float32, np.zeros((0, 3)))
        unary(f"{op}_empty_classes", fn, np.float32, np.zeros((3, 0)))
        # Many classes in half: the sum runs in float in dfx.
        unary(f"{op}_wide_float16", fn, np.float16, r.normal(0, 1, (2, 300)),
              note="TensorFlow sums in half; dfx in float")
        unary_grad(f"grad_{op}_float32", fn, np.float32, r.normal(0, 2, (3, 5)))
        unary_grad(f"grad_{op}_float64", fn, np.float64, r.normal(0, 2, (3, 5)))
        # Softmax over a non-last axis: TensorFlow transposes around it.
        unary(f"{op}_axis1", lambda t, f=fn: f(t, axis=1), np.float32,
              r.normal(0, 2, (2, 3, 4)))
        unary(f"{op}_axis0", lambda t, f=fn: f(t, axis=0), np.float32,
              r.normal(0, 2, (3, 4)))


# --------------------------------------------------------------------------
# BiasAdd, BiasAddV1, BiasAddGrad.

def bias_cases():
    r = rng(5)
    for dt in FLOAT_TYPES + [np.int32, np.int64, np.uint8, np.int8, np.int16]:
        dn = dtype_name(dt)
        ints = np.dtype(dt).kind in "iu" if dt is not BF16 else False

        def values(shape):
            v = r.integers(0, 20, size=shape) if ints else r.normal(0, 2, shape)
            return v

        def grad_values(shape):
            # TensorFlow sums half and bfloat16 in their own type, dfx in
            # float: small integers make every order of summation exact.
            if dt in (np.float16, BF16):
                return r.integers(-8, 9, size=shape).astype(np.float64)
            return values(shape)

        for fmt, shape in [("NHWC", (2, 3)), ("NHWC", (2, 3, 4, 5)),
                           ("NCHW", (2, 3, 4)), ("NCHW", (2, 3, 2, 2)),
                           ("NCHW", (1, 2, 2, 2, 3))]:
            c = shape[1] if fmt == "NCHW" else shape[-1]
            v, b = values(shape), values((c,))

            def build(v=v, b=b, fmt=fmt, dt=dt):
                vt, vph, vv = feed(v, dt)
                bt, bph, bv = feed(b, dt)
                return (tf.nn.bias_add(vt, bt, data_format=fmt),
                        {vph: vv, bph: bv})
            add(f"bias_add_{fmt}_{len(shape)}d_{dn}", build)

            def build_grad(v=grad_values(shape), fmt=fmt, dt=dt):
                vt, vph, vv = feed(v, dt)
                return (gen_nn_ops.bias_add_grad(vt, data_format=fmt),
                        {vph: vv})
            add(f"bias_add_grad_{fmt}_{len(shape)}d_{dn}", build_grad)

        def build_v1(dt=dt):
            vt, vph, vv = feed(values((3, 4)), dt)
            bt, bph, bv = feed(values((4,)), dt)
            return gen_nn_ops.bias_add_v1(vt, bt), {vph: vv, bph: bv}
        add(f"bias_add_v1_{dn}", build_v1)
    # Empty batch, and a bias longer than the channel dim at run time.
    def build_grad_empty():
        vt, vph, vv = feed(np.zeros((0, 4)), np.float32)
        return gen_nn_ops.bias_add_grad(vt), {vph: vv}
    add("bias_add_grad_empty", build_grad_empty)

    def build_empty():
        vt, vph, vv = feed(np.zeros((0, 4)), np.float32)
        bt, bph, bv = feed(np.ones(4), np.float32)
        return tf.nn.bias_add(vt, bt), {vph: vv, bph: bv}
    add("bias_add_empty", build_empty)

    def build_bad():
        v = tf1.placeholder(tf.float32, [None, None])
        b = tf1.placeholder(tf.float32, [None])
        return tf.nn.bias_add(v, b), {v: np.ones((2, 3), np.float32),
                                      b: np.ones(4, np.float32)}
    add("bias_add_wrong_bias_length", build_bad)

    # Gradients of BiasAdd through tf.gradients: BiasAddGrad.
    for fmt, shape in [("NHWC", (2, 3, 4)), ("NCHW", (2, 3, 4, 2))]:
        v = r.normal(0, 1, shape)
        c = shape[1] if fmt == "NCHW" else shape[-1]
        b = r.normal(0, 1, (c,))
        dy = r.normal(0, 1, shape)
        for dt in FLOAT_TYPES:
            def build(v=v, b=b, dy=dy, fmt=fmt, dt=dt):
                vt, vph, vv = feed(v, dt)
                bt, bph, bv = feed(b, dt)
                gt, gph, gv = feed(dy, dt)
                y = tf.nn.bias_add(vt, bt, data_format=fmt)
                dv, db = tf.gradients(y, [vt, bt], grad_ys=gt)
                return [y, dv, db], {vph: vv, bph: bv, gph: gv}
            add(f"grad_bias_add_{fmt}_{dtype_name(dt)}", build)


# --------------------------------------------------------------------------
# L2Loss, softmax cross entropies.

def loss_cases():
    r = rng(6)
    for dt in FLOAT_TYPES:
        dn = dtype_name(dt)
        unary(f"l2_loss_{dn}", tf.nn.l2_loss, dt, r.normal(0, 2, (3, 5)))
        unary(f"l2_loss_scalar_{dn}", tf.nn.l2_loss, dt, np.array(3.0))
        unary_grad(f"grad_l2_loss_{dn}", tf.nn.l2_loss, dt,
                   r.normal(0, 2, (2, 3)))
    unary("l2_loss_empty", tf.nn.l2_loss, np.float32, np.zeros((0, 2)))
    unary("l2_loss_inf_nan", tf.nn.l2_loss, np.float32,
          np.array([1, np.inf, 2]))
    unary("l2_loss_nan", tf.nn.l2_loss, np.float64, np.array([1, np.nan]))
    unary("l2_loss_many_float32", tf.nn.l2_loss, np.float32,
          r.normal(0, 1, (40, 50)))

    xent = gen_nn_ops.softmax_cross_entropy_with_logits
    logits = r.normal(0, 3, (4, 5))
    logits[3] = [1000, -1000, 0, 50, 1]
    labels = r.dirichlet(np.ones(5), size=4)
    for dt in FLOAT_TYPES:
        dn = dtype_name(dt)

        def build(dt=dt, lg=logits, lb=labels):
            lt, lph, lv = feed(lg, dt)
            yt, yph, yv = feed(lb, dt)
            loss, bp = xent(lt, yt)
            return [loss, bp], {lph: lv, yph: yv}
        add(f"xent_{dn}", build)
        # Labels broadcast: one row of labels for every example.
        for lshape in [(5,), (1, 5)]:
            def build(dt=dt, lshape=lshape):
                lt, lph, lv = feed(logits, dt)
                yt, yph, yv = feed(labels[0].reshape(lshape), dt)
                loss, bp = xent(lt, yt)
                return [loss, bp], {lph: lv, yph: yv}
            add(f"xent_labels_{len(lshape)}d_{dn}", build)
    for name, lg, lb in [
            ("xent_logits_row_broadcast", logits[:1], labels),
            ("xent_batch0", np.zeros((0, 5)), np.zeros((0, 5))),
            ("xent_batch0_labels_row", np.zeros((0, 5)), labels[:1]),
            ("xent_classes0", np.zeros((3, 0)), np.zeros((3, 0))),
            ("xent_inf_logits", np.array([[np.inf, 0], [-np.inf, 0]]),
             np.array([[0, 1], [0, 1]])),
            ("xent_unnormalized_labels", logits, labels * 3 - 0.5)]:
        def build(lg=lg, lb=lb):
            lt, lph, lv = feed(lg, np.float32)
            yt, yph, yv = feed(lb, np.float32)
            loss, bp = xent(lt, yt)
            return [loss, bp], {lph: lv, yph: yv}
        add(name, build)

    def build_bad():
        lt = tf1.placeholder(tf.float32, [None, None])
        yt = tf1.placeholder(tf.float32, None)
        loss, _ = xent(lt, yt)
        return loss, {lt: np.ones((2, 3), np.float32),
                      yt: np.ones((2, 4), np.float32)}
    add("xent_not_broadcastable", build_bad)

    def build_rank3():
        lt = tf1.placeholder(tf.float32, None)
        yt = tf1.placeholder(tf.float32, None)
        loss, _ = xent(lt, yt)
        return loss, {lt: np.ones((1, 2, 3), np.float32),
                      yt: np.ones((1, 2, 3), np.float32)}
    add("xent_rank3_at_run_time", build_rank3)

    # The public wrappers: tf.nn.softmax_cross_entropy_with_logits reshapes
    # to 2-D (and transposes for a non-last axis); its gradient.
    lg3 = r.normal(0, 2, (2, 3, 4))
    lb3 = r.dirichlet(np.ones(4), size=(2, 3))
    for axis in [-1, 1]:
        def build(axis=axis):
            lt, lph, lv = feed(lg3, np.float32)
            yt, yph, yv = feed(lb3 if axis == -1 else
                               np.transpose(lb3, (0, 2, 1)).copy(), np.float32)
            if axis == 1:
                lt2 = tf.transpose(lt, (0, 2, 1))
            else:
                lt2 = lt
            return (tf.nn.softmax_cross_entropy_with_logits(
                labels=yt, logits=lt2, axis=axis), {lph: lv, yph: yv})
        add(f"softmax_cross_entropy_3d_axis{axis}", build)
    for dt in FLOAT_TYPES:
        def build(dt=dt):
            lt, lph, lv = feed(logits, dt)
            yt, yph, yv = feed(labels, dt)
            gt, gph, gv = feed(r.normal(0, 1, (4,)), dt)
            loss = tf.nn.softmax_cross_entropy_with_logits(labels=yt,
                                                           logits=lt)
            dl, dy = tf.gradients(loss, [lt, yt], grad_ys=gt)
            return [loss, dl, dy], {lph: lv, yph: yv, gph: gv}
        add(f"grad_softmax_cross_entropy_{dtype_name(dt)}", build)

    sparse = gen_nn_ops.sparse_softmax_cross_entropy_with_logits
    slabels = np.array([0, 4, 2, 1])
    for dt in FLOAT_TYPES:
        for lt_type in [np.int32, np.int64]:
            def build(dt=dt, lt_type=lt_type):
                lt, lph, lv = feed(logits, dt)
                yph = tf1.placeholder(tf.as_dtype(lt_type), [4])
                loss, bp = sparse(lt, yph)
                return [loss, bp], {lph: lv, yph: slabels.astype(lt_type)}
            add(f"sparse_xent_{dtype_name(dt)}_{np.dtype(lt_type).name}",
                build)
    for name, lg, lb in [
            ("sparse_xent_batch0", np.zeros((0, 5)), np.zeros(0, np.int64)),
            ("sparse_xent_label_out_of_range", logits, np.array([0, 5, 1, 1])),
            ("sparse_xent_label_negative", logits, np.array([0, 1, -1, 1])),
            ("sparse_xent_label_huge", logits,
             np.array([0, 1, 2**40, 1], np.int64)),
            ("sparse_xent_no_classes", np.zeros((2, 0)), np.array([0, 0])),
            ("sparse_xent_batch_mismatch", logits, np.array([0, 1, 2])),
            ("sparse_xent_one_class", np.array([[3.0], [-1e4]]),
             np.array([0, 0]))]:
        def build(lg=lg, lb=lb):
            lph = tf1.placeholder(tf.float32, [None, None])
            yph = tf1.placeholder(tf.as_dtype(lb.dtype), [None])
            loss, bp = sparse(lph, yph)
            return [loss, bp], {lph: lg.astype(np.float32), yph: lb}
        add(name, build)
    # Not bfloat16: its gradient graph needs ZerosLike for bfloat16, which
    # dfx lacks (float16 runs in float32: TensorFlow's wrapper casts it).
    for dt in [np.float32, np.float64, np.float16]:
        def build(dt=dt):
            lt, lph, lv = feed(logits, dt)
            yph = tf1.placeholder(tf.int32, [4])
            gt, gph, gv = feed(r.normal(0, 1, (4,)), dt)
            loss = tf.nn.sparse_softmax_cross_entropy_with_logits(
                labels=yph, logits=lt)
            (dl,) = tf.gradients(loss, [lt], grad_ys=gt)
            return [loss, dl], {lph: lv, yph: slabels.astype(np.int32),
                                gph: gv}
        add(f"grad_sparse_softmax_cross_entropy_{dtype_name(dt)}", build)

    def build_sparse_3d():
        lt, lph, lv = feed(r.normal(0, 1, (2, 3, 4)), np.float32)
        yph = tf1.placeholder(tf.int64, [2, 3])
        return (tf.nn.sparse_softmax_cross_entropy_with_logits(
            labels=yph, logits=lt),
            {lph: lv, yph: np.array([[0, 1, 3], [2, 2, 0]])})
    add("sparse_softmax_cross_entropy_3d", build_sparse_3d)


# --------------------------------------------------------------------------
# LRN and its gradient.

def lrn_cases():
    r = rng(7)
    x = r.normal(0, 1, (2, 2, 3, 7))
    for dt in [np.float32, np.float16]:
        dn = dtype_name(dt)
        for radius, bias, alpha, beta in [(5, 1.0, 1.0, 0.5), (2, 2.0, 1e-3, 0.75),
                                          (0, 1.0, 1.0, 1.0), (100, 0.5, 0.3, 0.25)]:
            def fn(t, radius=radius, bias=bias, alpha=alpha, beta=beta):
                return tf.nn.local_response_normalization(
                    t, depth_radius=radius, bias=bias, alpha=alpha, beta=beta)
            unary(f"lrn_r{radius}_b{beta}_{dn}", fn, dt, x)
            if dt is np.float32:
                unary_grad(f"grad_lrn_r{radius}_b{beta}", fn, dt, x,
                           rtol=1e-4, atol=1e-5,
                           note="TensorFlow sums the window with a band "
                                "matrix product, dfx with a loop")
    unary("lrn_empty", tf.nn.local_response_normalization, np.float32,
          np.zeros((0, 2, 2, 3)))


# --------------------------------------------------------------------------
# Keras activations as TensorFlow 2.21 (Keras 3) exports them.

def keras_cases():
    import keras
    A = keras.activations
    r = rng(8)
    x = r.normal(0, 3, (3, 8))
    x[0] = [-10, -3, -1e-3, 0, 1e-3, 3, 10, np.nan]
    cases = {
        "gelu": A.gelu,
        "gelu_tanh": lambda t: A.gelu(t, approximate=True),
        "swish": A.swish,
        "silu": A.silu,
        "hard_sigmoid": A.hard_sigmoid,
        "hard_silu": A.hard_silu,
        "relu6": A.relu6,
        "mish": A.mish,
        "exponential": A.exponential,
        "log_softmax": A.log_softmax,
        "softmax": A.softmax,
        "relu_layer_max6": lambda t: keras.layers.ReLU(max_value=6.0)(t),
        "relu_layer_slope_threshold": lambda t: keras.layers.ReLU(
            negative_slope=0.1, threshold=0.5)(t),
        "elu_layer_alpha": lambda t: keras.layers.ELU(alpha=0.5)(t),
        "leaky_relu_layer": lambda t: keras.layers.LeakyReLU()(t),
    }
    for name, fn in cases.items():
        unary(f"keras_{name}", fn, np.float32, x)
    x3 = r.normal(0, 3, (2, 3, 4))
    unary("keras_softmax_axis1", lambda t: A.softmax(t, axis=1), np.float32, x3)
    unary("keras_log_softmax_axis1", lambda t: A.log_softmax(t, axis=1),
          np.float32, x3)
    unary("keras_softmax_layer_axis0",
          lambda t: keras.layers.Softmax(axis=0)(t), np.float32, x3)
    for name in ["gelu", "gelu_tanh", "swish", "hard_sigmoid", "mish"]:
        unary_grad(f"grad_keras_{name}", cases[name], np.float32, x[1:])


def main():
    activation_cases()
    grad_op_cases()
    activation_gradient_cases()
    softmax_cases()
    bias_cases()
    loss_cases()
    lrn_cases()
    keras_cases()
    if "--ops" in sys.argv:
        for name, ops in sorted(_GRAPH_OPS.items()):
            if name.startswith("grad_") or name.startswith("keras_"):
                print(f"{name}: {' '.join(ops)}")


if __name__ == "__main__":
    main()
