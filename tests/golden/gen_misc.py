"""Golden cases of the misc family (ops that quantization-aware-training and
other real graphs still needed): FakeQuantWithMinMaxArgs/Vars/VarsPerChannel
and their gradients (every num_bits edge, narrow_range, a zero point past
255, ranges that do not hold zero), QuantizeAndDequantizeV2/V3/V4 (given and
found ranges, signed and unsigned, narrow_range, both round modes, per-axis
ranges, float and double) and V4Grad, with the run-time errors, as
TensorFlow 2.21 runs them.

Run with the TensorFlow virtualenv: $(tools/tf_env) tests/golden/gen_misc.py

Fake quantization is exact arithmetic on one rounding path, so its outputs
must equal TensorFlow's bitwise (rtol = atol = 0); the cases with the range
gradients (float sums whose order differs) allow 1e-6.
"""

import numpy as np
import tensorflow as tf
from tensorflow.python.ops import gen_array_ops as ga

from golden_lib import case, placeholder, rng, tf1

FAMILY = "misc"
EXACT = dict(rtol=0.0, atol=0.0)
# Cases that also fetch the min/max gradients: float sums in another order
# than Eigen's packet reduction. Their quantized outputs are exact anyway,
# and the fq_args cases check the same rounding path bitwise.
GRAD_SUM = dict(rtol=1e-6, atol=1e-6)


def values(shape, lo=-8.0, hi=8.0, seed=0, dtype=np.float32):
    """Random values in [lo, hi) with some exact ties and the range ends."""
    v = rng(seed).uniform(lo, hi, size=shape).astype(dtype)
    flat = v.reshape(-1)
    extras = [lo, hi, 0.0, -0.0, 0.5, -0.5, 1.5, -2.5]
    for i, e in enumerate(extras[:flat.size]):
        flat[(i * 7) % flat.size] = e
    return v


def fake_quant_cases():
    x = values([3, 4, 5])
    for name, kw in [("default", {}),
                     ("narrow", dict(narrow_range=True)),
                     ("bits4", dict(num_bits=4, min=-1.0, max=2.5)),
                     ("bits16", dict(num_bits=16, min=-100.0, max=1.0)),
                     ("bits2_narrow", dict(num_bits=2, narrow_range=True)),
                     ("positive_range", dict(min=0.3, max=6.1)),
                     ("negative_range", dict(min=-7.3, max=-0.2)),
                     ("odd_range", dict(min=-0.1, max=6.3))]:
        def build(kw=kw):
            p, v = placeholder(x)
            g, gv = placeholder(values([3, 4, 5], seed=1))
            out = ga.fake_quant_with_min_max_args(p, **kw)
            grad = ga.fake_quant_with_min_max_args_gradient(g, p, **kw)
            return [out, grad], {p: v, g: gv}
        case(FAMILY, f"fq_args_{name}", build, **EXACT)

    def args_bad_bits():
        p, v = placeholder(x)
        return ga.fake_quant_with_min_max_args(p, num_bits=17), {p: v}
    case(FAMILY, "fq_args_error_num_bits", args_bad_bits)

    def args_bad_range():
        p, v = placeholder(x)
        return ga.fake_quant_with_min_max_args(p, min=1.0, max=1.0), {p: v}
    case(FAMILY, "fq_args_error_range", args_bad_range)

    for name, lo, hi, kw in [("default", -3.0, 5.0, {}),
                             ("narrow", -6.0, 6.0, dict(narrow_range=True)),
                             ("bits16", -100.0, 1.0, dict(num_bits=16)),
                             ("bits3", -0.7, 0.9, dict(num_bits=3)),
                             ("positive", 0.5, 4.0, {})]:
        def build(lo=lo, hi=hi, kw=kw):
            p, v = placeholder(x)
            g, gv = placeholder(values([3, 4, 5], seed=2))
            mn, mnv = placeholder(np.float32(lo))
            mx, mxv = placeholder(np.float32(hi))
            out = ga.fake_quant_with_min_max_vars(p, mn, mx, **kw)
            grads = ga.fake_quant_with_min_max_vars_gradient(g, p, mn, mx,
                                                              **kw)
            return [out] + list(grads), {p: v, g: gv, mn: mnv, mx: mxv}
        case(FAMILY, f"fq_vars_{name}", build, **GRAD_SUM)

    def vars_min_rank():
        p, v = placeholder(x)
        mn = tf1.placeholder(tf.float32, shape=None)
        return (ga.fake_quant_with_min_max_vars(p, mn, 1.0),
                {p: v, mn: np.array([-1.0], np.float32)})
    case(FAMILY, "fq_vars_error_min_rank", vars_min_rank)

    for name, shape, kw in [("rank1", [5], {}),
                            ("rank2", [4, 5], dict(narrow_range=True)),
                            ("rank4", [2, 3, 2, 5], dict(num_bits=5)),
                            ("empty_batch", [0, 5], {})]:
        def build(shape=shape, kw=kw):
            p, v = placeholder(values(shape, seed=3))
            g, gv = placeholder(values(shape, seed=4))
            mn, mnv = placeholder(
                np.array([-3.0, -0.5, 0.2, -6.0, -1.1], np.float32))
            mx, mxv = placeholder(
                np.array([5.0, 0.5, 2.0, -0.3, 7.7], np.float32))
            out = ga.fake_quant_with_min_max_vars_per_channel(p, mn, mx, **kw)
            grads = ga.fake_quant_with_min_max_vars_per_channel_gradient(
                g, p, mn, mx, **kw)
            return [out] + list(grads), {p: v, g: gv, mn: mnv, mx: mxv}
        case(FAMILY, f"fq_per_channel_{name}", build, **GRAD_SUM)

    def per_channel_size():
        p = tf1.placeholder(tf.float32, shape=None)
        return (ga.fake_quant_with_min_max_vars_per_channel(
            p, [-1.0, -1.0], [1.0, 1.0]),
            {p: values([3, 5])})
    case(FAMILY, "fq_per_channel_error_size", per_channel_size)


def qdq_cases():
    for dtype in (np.float32, np.float64):
        dn = np.dtype(dtype).name
        x = values([2, 3, 4], lo=-3.0, hi=5.0, seed=5, dtype=dtype)
        # Exact ties of the scale 127/5 and 127/3 in the data.
        for name, kw in [
                ("found", dict(range_given=False)),
                ("given", dict(range_given=True)),
                ("unsigned", dict(range_given=True, signed_input=False)),
                ("narrow", dict(range_given=True, narrow_range=True)),
                ("half_up", dict(range_given=False, round_mode="HALF_UP")),
                ("bits3", dict(range_given=True, num_bits=3)),
                ("bits20", dict(range_given=False, num_bits=20))]:
            for axis in (-1, 1):
                def build(kw=kw, axis=axis, dtype=dtype, x=x):
                    p, v = placeholder(x)
                    if axis == -1:
                        lo, hi = dtype(-2.0), dtype(3.5)
                    else:
                        lo = np.array([-2.0, -0.7, 0.0], dtype)
                        hi = np.array([3.5, 0.7, 1.0], dtype)
                    mn, mnv = placeholder(lo)
                    mx, mxv = placeholder(hi)
                    v2 = ga.quantize_and_dequantize_v2(p, mn, mx, axis=axis,
                                                       **kw)
                    v4 = ga.quantize_and_dequantize_v4(p, mn, mx, axis=axis,
                                                       **kw)
                    kw3 = {k: v for k, v in kw.items()
                           if k not in ("num_bits", "round_mode")}
                    bits = tf.constant(kw.get("num_bits", 8), tf.int32)
                    # TensorFlow 2.21's V2/V4 refuse any given range with an
                    # axis (qdq_error_v2_axis_given); V3 takes it.
                    given_axis = axis != -1 and kw.get("range_given")
                    outs = [] if given_axis else [v2, v4]
                    if kw.get("round_mode", "HALF_TO_EVEN") == "HALF_TO_EVEN":
                        outs.append(ga.quantize_and_dequantize_v3(
                            p, mn, mx, bits, axis=axis, **kw3))
                    return outs, {p: v, mn: mnv, mx: mxv}
                case(FAMILY, f"qdq_{name}_axis{axis}_{dn}", build, **EXACT)

        for axis in (-1, 0, 2):
            def build(axis=axis, dtype=dtype, x=x):
                p, v = placeholder(x)
                g, gv = placeholder(values([2, 3, 4], seed=6, dtype=dtype))
                depth = 1 if axis == -1 else x.shape[axis]
                shape = [] if axis == -1 else [depth]
                lo = np.full(shape, -1.5, dtype)
                hi = np.linspace(0.5, 2.5, max(depth, 1)).astype(dtype)
                hi = hi.reshape(shape) if shape else dtype(hi[0])
                mn, mnv = placeholder(lo)
                mx, mxv = placeholder(hi)
                return (list(ga.quantize_and_dequantize_v4_grad(
                    g, p, mn, mx, axis=axis)),
                    {p: v, g: gv, mn: mnv, mx: mxv})
            case(FAMILY, f"qdq_v4grad_axis{axis}_{dn}", build, **EXACT)

    def empty():
        p, v = placeholder(np.zeros([0, 3], np.float32))
        return (ga.quantize_and_dequantize_v2(p, -1.0, 1.0, range_given=False),
                {p: v})
    case(FAMILY, "qdq_empty", empty, **EXACT)

    def v3_scalar_input():
        p, v = placeholder(np.float32(0.3))
        return ga.quantize_and_dequantize_v3(p, -1.0, 1.0, 8), {p: v}
    case(FAMILY, "qdq_v3_error_scalar_input", v3_scalar_input)

    def bad_range():
        p, v = placeholder(values([4]))
        mn = tf1.placeholder(tf.float32, shape=[])
        return (ga.quantize_and_dequantize_v2(p, mn, -1.0, range_given=True),
                {p: v, mn: np.float32(1.0)})
    case(FAMILY, "qdq_error_range", bad_range)

    def bad_bits():
        p, v = placeholder(values([4]))
        return (ga.quantize_and_dequantize_v2(p, -1.0, 1.0, num_bits=62),
                {p: v})
    case(FAMILY, "qdq_error_num_bits", bad_bits)

    def v3_bad_bits():
        p, v = placeholder(values([4]))
        b = tf1.placeholder(tf.int32, shape=[])
        return (ga.quantize_and_dequantize_v3(p, -1.0, 1.0, b,
                                              signed_input=False),
                {p: v, b: np.int32(63)})
    case(FAMILY, "qdq_v3_error_num_bits", v3_bad_bits)

    for name, lo, hi in [("vector", [-1.0, -1.0, -1.0], [1.0, 1.0, 1.0]),
                         ("scalar", -1.0, 1.0)]:
        def v2_axis_given(lo=lo, hi=hi):
            p, v = placeholder(values([2, 3]))
            mn = tf1.placeholder(tf.float32, shape=None)
            mx = tf1.placeholder(tf.float32, shape=None)
            return (ga.quantize_and_dequantize_v2(p, mn, mx, range_given=True,
                                                  axis=1),
                    {p: v, mn: np.array(lo, np.float32),
                     mx: np.array(hi, np.float32)})
        case(FAMILY, f"qdq_error_v2_axis_given_{name}", v2_axis_given)

    def per_axis_size():
        p = tf1.placeholder(tf.float32, shape=None)
        mn = tf1.placeholder(tf.float32, shape=None)
        return (ga.quantize_and_dequantize_v3(p, mn, [1.0, 1.0, 1.0], 8,
                                              range_given=True, axis=1),
                {p: values([2, 3]), mn: np.array([-1.0, -1.0], np.float32)})
    case(FAMILY, "qdq_error_axis_size", per_axis_size)


def bessel_cases():
    from tensorflow.python.ops import gen_special_math_ops as gs
    names = ["i0", "i0e", "i1", "i1e", "k0", "k0e", "k1", "k1e", "j0", "j1",
             "y0", "y1"]
    x = np.array([-12.5, -3.0, -1.0, -0.25, 0.0, 1e-3, 0.3, 1.0, 2.5, 7.0,
                  20.0, 80.0], np.float64)
    for dtype in (np.float16, np.float32, np.float64):
        def build(dtype=dtype):
            p, v = placeholder(x.astype(dtype))
            return ([getattr(gs, "bessel_" + n)(p) for n in names], {p: v})
        # float32: Eigen's series and rational approximations in float
        # agree to a few ulps; half rounds each result once.
        tol = dict(float16=dict(rtol=2e-3, atol=1e-3),
                   float32=dict(rtol=2e-6, atol=1e-7),
                   float64=dict(rtol=1e-13, atol=1e-15))[np.dtype(dtype).name]
        case(FAMILY, f"bessel_{np.dtype(dtype).name}", build, **tol)


def scan_cases():
    from tensorflow.python.ops import gen_math_ops as gm
    x = values([3, 4, 5], lo=-4.0, hi=4.0, seed=7)
    x[0, 0, :] = -np.inf
    x[1, 2, 1] = np.inf
    for dtype in (np.float32, np.float64, np.float16):
        for axis in (0, 1, -1):
            for exclusive in (False, True):
                for reverse in (False, True):
                    def build(dtype=dtype, axis=axis, exclusive=exclusive,
                              reverse=reverse):
                        p, v = placeholder(x.astype(dtype))
                        return (gm.cumulative_logsumexp(
                            p, axis, exclusive=exclusive, reverse=reverse),
                            {p: v})
                    tag = ("_excl" if exclusive else "") + (
                        "_rev" if reverse else "")
                    case(FAMILY, f"cumlse_{np.dtype(dtype).name}_axis{axis}"
                         f"{tag}", build)

    def bf16():
        p, v = placeholder(x[1])
        return (tf.cast(gm.cumulative_logsumexp(tf.cast(p, tf.bfloat16), 1),
                        tf.float32), {p: v})
    case(FAMILY, "cumlse_bfloat16", bf16)

    def int64_axis():
        p, v = placeholder(x)
        return gm.cumulative_logsumexp(p, tf.constant(1, tf.int64)), {p: v}
    case(FAMILY, "cumlse_int64_axis", int64_axis)

    def empty():
        p, v = placeholder(np.zeros([2, 0, 3], np.float32))
        return gm.cumulative_logsumexp(p, 1, exclusive=True), {p: v}
    case(FAMILY, "cumlse_empty", empty)

    def bad_axis():
        p, v = placeholder(x)
        a = tf1.placeholder(tf.int32, shape=[])
        return gm.cumulative_logsumexp(p, a), {p: v, a: np.int32(3)}
    case(FAMILY, "cumlse_error_axis", bad_axis)


def nth_cases():
    from tensorflow.python.ops import gen_nn_ops as gn
    base = rng(8).integers(0, 100, size=[2, 3, 7])
    for dtype in (np.float32, np.float64, np.float16, np.int32, np.uint8,
                  np.int16, np.int8, np.int64, np.uint16, np.uint32,
                  np.uint64):
        for reverse in (False, True):
            def build(dtype=dtype, reverse=reverse):
                p, v = placeholder(base.astype(dtype))
                return ([gn.nth_element(p, k, reverse=reverse)
                         for k in (0, 3, 6)], {p: v})
            case(FAMILY, f"nth_{np.dtype(dtype).name}"
                 f"{'_rev' if reverse else ''}", build, **EXACT)

    def vector():
        p, v = placeholder(values([9], seed=9))
        n = tf1.placeholder(tf.int32, shape=[])
        return gn.nth_element(p, n), {p: v, n: np.int32(4)}
    case(FAMILY, "nth_vector", vector, **EXACT)

    def empty_rows():
        p, v = placeholder(np.zeros([0, 4], np.float32))
        return gn.nth_element(p, 2), {p: v}
    case(FAMILY, "nth_empty_rows", empty_rows, **EXACT)

    def too_large():
        p = tf1.placeholder(tf.float32, shape=None)
        n = tf1.placeholder(tf.int32, shape=[])
        return gn.nth_element(p, n), {p: values([2, 3]), n: np.int32(3)}
    case(FAMILY, "nth_error_n", too_large)


# Lu's eliminations and the tridiagonal products round in another order
# than Eigen's vectorized loops; the pivots (int outputs) stay exact.
LINALG_TOL = dict(float32=dict(rtol=1e-5, atol=1e-5),
                  complex64=dict(rtol=1e-5, atol=1e-5),
                  float64=dict(rtol=1e-12, atol=1e-12),
                  complex128=dict(rtol=1e-12, atol=1e-12))


def complex_feed(value):
    """Golden .npy files hold no complex values: a complex tensor is fed as
    float pairs [..., 2] and bitcast in the graph (dfx has no Complex op)."""
    parts = np.stack([value.real, value.imag], axis=-1)
    p, v = placeholder(np.ascontiguousarray(parts))
    return tf.bitcast(p, tf.as_dtype(value.dtype)), {p: v}


def split_complex(t):
    """A complex output as float pairs [..., 2], by bitcast."""
    if t.dtype.is_complex:
        return [tf.bitcast(t, t.dtype.real_dtype)]
    return [t]


def linalg_cases():
    from tensorflow.python.ops import gen_linalg_ops as gl
    r = rng(10)
    for dtype in (np.float32, np.float64, np.complex64, np.complex128):
        dn = np.dtype(dtype).name
        is_complex = np.dtype(dtype).kind == "c"
        real = np.float32 if dtype in (np.float32, np.complex64) else np.float64

        def feed(value):
            if is_complex:
                return complex_feed(value.astype(dtype))
            p, v = placeholder(value.astype(dtype))
            return p, {p: v}

        a = r.standard_normal([2, 3, 4, 4])
        if is_complex:
            a = a + 1j * r.standard_normal([2, 3, 4, 4])
        for idx in (tf.int32, tf.int64):
            def build(a=a, idx=idx, feed=feed):
                p, feeds = feed(a)
                lu, perm = gl.lu(p, output_idx_type=idx)
                return split_complex(lu) + [perm], feeds
            case(FAMILY, f"lu_{dn}_{idx.name}", build, **LINALG_TOL[dn])
        diags = [r.standard_normal([2, 1, 5]) for _ in range(3)]
        rhs = r.standard_normal([2, 5, 3])
        if is_complex:
            diags = [d + 1j * r.standard_normal(d.shape) for d in diags]
            rhs = rhs + 1j * r.standard_normal(rhs.shape)

        def tmm(diags=diags, rhs=rhs, feed=feed):
            feeds = {}
            ins = []
            for value in diags + [rhs]:
                p, f = feed(value)
                ins.append(p)
                feeds.update(f)
            return split_complex(gl.tridiagonal_mat_mul(*ins)), feeds
        case(FAMILY, f"tridiagonal_matmul_{dn}", tmm, **LINALG_TOL[dn])
        del real

    def lu_singular():
        p, v = placeholder(np.array([[1.0, 2.0], [2.0, 4.0]]))
        return list(gl.lu(p)), {p: v}
    case(FAMILY, "lu_error_singular", lu_singular)

    def lu_empty():
        p, v = placeholder(np.zeros([3, 0, 0], np.float32))
        return list(gl.lu(p)), {p: v}
    case(FAMILY, "lu_empty", lu_empty)

    def lu_one():
        p, v = placeholder(np.array([[[-2.5]]], np.float64))
        return list(gl.lu(p)), {p: v}
    case(FAMILY, "lu_1x1", lu_one)

    def tmm_one_row():
        ps = [placeholder(np.array([[v]], np.float32)) for v in (2.0, 3.0, 4.0)]
        q, qv = placeholder(np.array([[1.0, -2.0]], np.float32))
        feeds = {p: v for p, v in ps}
        feeds[q] = qv
        return gl.tridiagonal_mat_mul(*[p for p, _ in ps], q), feeds
    case(FAMILY, "tridiagonal_matmul_one_row", tmm_one_row)

    def tmm_bad():
        ps = [tf1.placeholder(tf.float32, shape=None) for _ in range(3)]
        q, qv = placeholder(np.ones([3, 2], np.float32))
        feeds = {ps[0]: np.ones([1, 2], np.float32),
                 ps[1]: np.ones([1, 3], np.float32),
                 ps[2]: np.ones([1, 3], np.float32), q: qv}
        return gl.tridiagonal_mat_mul(*ps, q), feeds
    case(FAMILY, "tridiagonal_matmul_error_shape", tmm_bad)


def tridiagonal_solve_cases():
    from tensorflow.python.ops import gen_linalg_ops as gl
    r = rng(11)
    modes = [("pivot", dict(partial_pivoting=True)),
             ("thomas", dict(partial_pivoting=False)),
             ("perturb", dict(partial_pivoting=True, perturb_singular=True))]
    for dtype in (np.float32, np.float64, np.complex64, np.complex128):
        dn = np.dtype(dtype).name
        is_complex = np.dtype(dtype).kind == "c"
        diags = r.standard_normal([2, 3, 6])
        diags[:, 1, :] += 3.0  # diagonally dominant: stable without pivots
        diags[1, 1, 2] = 0.1   # a small pivot: pivoting swaps rows
        rhs = r.standard_normal([2, 6, 2])
        if is_complex:
            diags = diags + 1j * r.standard_normal(diags.shape)
            rhs = rhs + 1j * r.standard_normal(rhs.shape)
        for mode, kw in modes:
            def build(diags=diags, rhs=rhs, kw=kw, dtype=dtype,
                      is_complex=is_complex):
                feeds = {}
                ins = []
                for value in (diags, rhs):
                    if is_complex:
                        p, f = complex_feed(value.astype(dtype))
                    else:
                        p, v = placeholder(value.astype(dtype))
                        f = {p: v}
                    ins.append(p)
                    feeds.update(f)
                return split_complex(gl.tridiagonal_solve(*ins, **kw)), feeds
            case(FAMILY, f"tridiagonal_solve_{mode}_{dn}", build,
                 **LINALG_TOL[dn])
    # A zero pivot without row exchanges (Thomas gives NaN, pivoting solves
    # it); one equation, with a zero (NaN, or a perturbed pivot).
    zero_pivot = np.array([[[1.0, 1.0, 0.0], [1.0, 1.0, 1.0],
                            [0.0, 1.0, 1.0]]])
    for mode, kw in modes:
        def build_singular(kw=kw):
            d, dv = placeholder(zero_pivot)
            b, bv = placeholder(np.array([[[1.0], [2.0], [3.0]]]))
            return gl.tridiagonal_solve(d, b, **kw), {d: dv, b: bv}
        case(FAMILY, f"tridiagonal_solve_zero_pivot_{mode}", build_singular,
             rtol=1e-9, atol=1e-9)

        def build_one(kw=kw):
            d, dv = placeholder(np.array([[[5.0], [4.0], [7.0]],
                                          [[5.0], [0.0], [7.0]]]))
            b, bv = placeholder(np.array([[[2.0, -1.0]], [[1.0, 3.0]]]))
            return gl.tridiagonal_solve(d, b, **kw), {d: dv, b: bv}
        case(FAMILY, f"tridiagonal_solve_one_{mode}", build_one,
             rtol=1e-12, atol=1e-12)

    def bad_rows():
        d = tf1.placeholder(tf.float64, shape=None)
        b, bv = placeholder(np.ones([3, 1]))
        return gl.tridiagonal_solve(d, b), {d: np.ones([2, 3]), b: bv}
    case(FAMILY, "tridiagonal_solve_error_rows", bad_rows)


def matrix_square_root_cases():
    from tensorflow.python.ops import gen_linalg_ops as gl
    r = rng(12)
    for dtype in (np.float32, np.float64, np.complex64, np.complex128):
        dn = np.dtype(dtype).name
        is_complex = np.dtype(dtype).kind == "c"
        # Symmetric positive definite (real square roots) batches, and a
        # general matrix for the complex types.
        b = r.standard_normal([2, 4, 4])
        a = b @ np.swapaxes(b, -1, -2) + 4 * np.eye(4)
        if is_complex:
            a = a + 1j * r.standard_normal([2, 4, 4])

        def build(a=a, dtype=dtype, is_complex=is_complex):
            if is_complex:
                p, feeds = complex_feed(a.astype(dtype))
            else:
                p, v = placeholder(a.astype(dtype))
                feeds = {p: v}
            return split_complex(gl.matrix_square_root(p)), feeds
        tol = dict(float32=dict(rtol=1e-4, atol=1e-5),
                   complex64=dict(rtol=1e-4, atol=1e-5),
                   float64=dict(rtol=1e-10, atol=1e-12),
                   complex128=dict(rtol=1e-10, atol=1e-12))[dn]
        case(FAMILY, f"matrix_square_root_{dn}", build, **tol)

    def negative():
        p, v = placeholder(np.array([[-4.0, 0.0], [0.0, 9.0]]))
        return gl.matrix_square_root(p), {p: v}
    case(FAMILY, "matrix_square_root_negative_eigenvalue", negative)

    def empty():
        p, v = placeholder(np.zeros([2, 0, 0]))
        return gl.matrix_square_root(p), {p: v}
    case(FAMILY, "matrix_square_root_empty", empty)

    def not_square():
        p = tf1.placeholder(tf.float64, shape=None)
        return gl.matrix_square_root(p), {p: np.ones([2, 3])}
    case(FAMILY, "matrix_square_root_error_not_square", not_square)


def ctc_greedy_cases():
    from tensorflow.python.ops import gen_ctc_ops as gc
    r = rng(13)
    # Few classes and exact ties (values in steps of 0.5), so that repeats,
    # blanks and first-largest choices all occur.
    logits = r.integers(-4, 4, size=[7, 3, 4]).astype(np.float64) / 2
    lengths = np.array([7, 4, 0], np.int32)
    for dtype in (np.float32, np.float64):
        for merge in (False, True):
            for blank in (-1, 0, 2):
                def build(dtype=dtype, merge=merge, blank=blank):
                    p, v = placeholder(logits.astype(dtype))
                    q, qv = placeholder(lengths)
                    return (list(gc.ctc_greedy_decoder(
                        p, q, merge_repeated=merge, blank_index=blank)),
                        {p: v, q: qv})
                case(FAMILY, f"ctc_greedy_{np.dtype(dtype).name}"
                     f"{'_merge' if merge else ''}_blank{blank}", build,
                     **EXACT)

    def all_blank():
        p, v = placeholder(np.tile(np.array([0.0, 0.0, 1.0], np.float32),
                                   [3, 2, 1]))
        q, qv = placeholder(np.array([3, 2], np.int32))
        return list(gc.ctc_greedy_decoder(p, q)), {p: v, q: qv}
    case(FAMILY, "ctc_greedy_all_blank", all_blank, **EXACT)

    for name, lens, blank in [("length", [8, 1, 1], -1),
                              ("blank_index", [1, 1, 1], 4)]:
        def bad(lens=lens, blank=blank):
            p, v = placeholder(logits.astype(np.float32))
            q, qv = placeholder(np.array(lens, np.int32))
            return (list(gc.ctc_greedy_decoder(p, q, blank_index=blank)),
                    {p: v, q: qv})
        case(FAMILY, f"ctc_greedy_error_{name}", bad)


def ctc_loss_cases():
    from tensorflow.python.ops import gen_ctc_ops as gc
    r = rng(14)
    logits = r.standard_normal([6, 4, 5])
    # Batch 0: a repeat (1, 1); batch 1: a null label (4) ending the
    # sequence; batch 2: longer than its input (3 steps for 4 labels);
    # batch 3: a zero-length input.
    labels = [[1, 1, 2], [3, 0, 4], [2, 3, 1, 0], [1]]
    lengths = np.array([6, 5, 3, 0], np.int32)
    indices = np.array([[b, j] for b, l in enumerate(labels)
                        for j in range(len(l))], np.int64)
    vals = np.array([v for l in labels for v in l], np.int32)
    for dtype in (np.float32, np.float64):
        for collapse in (False, True):
            for merge in (True, False):
                def build(dtype=dtype, collapse=collapse, merge=merge):
                    p, v = placeholder(logits.astype(dtype))
                    i, iv = placeholder(indices)
                    q, qv = placeholder(vals)
                    n, nv = placeholder(lengths)
                    return (list(gc.ctc_loss(
                        p, i, q, n, preprocess_collapse_repeated=collapse,
                        ctc_merge_repeated=merge,
                        ignore_longer_outputs_than_inputs=True)),
                        {p: v, i: iv, q: qv, n: nv})
                tol = (dict(rtol=1e-5, atol=1e-6) if dtype == np.float32
                       else dict(rtol=1e-7, atol=1e-7))
                case(FAMILY, f"ctc_loss_{np.dtype(dtype).name}"
                     f"{'_collapse' if collapse else ''}"
                     f"{'' if merge else '_nomerge'}", build, **tol)

    def too_long():
        p, v = placeholder(logits.astype(np.float32))
        i, iv = placeholder(indices)
        q, qv = placeholder(vals)
        n, nv = placeholder(lengths)
        return list(gc.ctc_loss(p, i, q, n)), {p: v, i: iv, q: qv, n: nv}
    case(FAMILY, "ctc_loss_error_too_long", too_long)

    def unordered():
        p, v = placeholder(logits.astype(np.float32))
        i, iv = placeholder(indices[::-1].copy())
        q, qv = placeholder(vals)
        n, nv = placeholder(lengths)
        return (list(gc.ctc_loss(p, i, q, n,
                                 ignore_longer_outputs_than_inputs=True)),
                {p: v, i: iv, q: qv, n: nv})
    case(FAMILY, "ctc_loss_error_unordered", unordered)


def string_format_cases():
    from tensorflow.python.ops import gen_string_ops as gs
    r = rng(15)
    feeds_list = [
        ("float32", np.array([1 / 3, 0.1, 1e10, np.nan, -np.inf, -0.0,
                              2.5e-7], np.float32)),
        ("float64", np.array([[1 / 3, 2.5], [1e300, -1e-300]], np.float64)),
        ("float16", np.array([1 / 3, 65504.0, 0.5], np.float16)),
        ("int32_matrix", r.integers(-50, 50, size=[4, 5]).astype(np.int32)),
        ("int64_cube", np.arange(24, dtype=np.int64).reshape(2, 3, 4)),
        ("uint8", np.array([0, 255, 7], np.uint8)),
        ("bool", np.array([[True, False], [False, True]])),
        ("string", np.array([b"a", b'b"c\n', b"\xff\x01"], dtype=object)),
        ("scalar", np.float32(2.5)),
        ("empty", np.zeros([2, 0], np.float32)),
        ("empty_vector", np.zeros([0], np.int32)),
    ]
    for name, value in feeds_list:
        for summarize in (3, 1, 0, -1):
            def build(value=value, summarize=summarize):
                p, v = placeholder(value)
                return (gs.string_format([p], template="v={} end",
                                         placeholder="{}",
                                         summarize=summarize), {p: v})
            case(FAMILY, f"string_format_{name}_s{summarize}".replace(
                "-", "m"), build)

    def two():
        p, v = placeholder(np.array([1, 2, 3, 4, 5, 6, 7], np.int32))
        q, qv = placeholder(np.array([[1.5]], np.float32))
        return (gs.string_format([p, q], template="a %s b %s c"),
                {p: v, q: qv})
    case(FAMILY, "string_format_two_inputs", two)



if __name__ == "__main__":
    fake_quant_cases()
    qdq_cases()
    bessel_cases()
    scan_cases()
    nth_cases()
    linalg_cases()
    tridiagonal_solve_cases()
    matrix_square_root_cases()
    ctc_greedy_cases()
    ctc_loss_cases()
    string_format_cases()
