#!/usr/bin/env python3
"""Golden cases of the nn2 family: QuantizeV2 and Dequantize in every mode,
round mode, narrow range, axis and quantized type; and TensorFlow's OpDefs
and CPU kernel types of the family's ops.

TensorFlow runs with oneDNN's graph rewrites off (TF_ENABLE_ONEDNN_OPTS=0):
on x86 they replace QuantizeV2 (SCALED, HALF_TO_EVEN) and Dequantize with
Intel kernels (_MklQuantizeV2, _MklDequantize) that make a symmetric range
and refuse qint32, where TensorFlow's own CPU kernels, which dfx follows,
do not.

Run with the TensorFlow virtualenv:
    $(tools/tf_env) tests/golden/gen_nn2.py
"""

import os
import sys

os.environ["TF_ENABLE_ONEDNN_OPTS"] = "0"
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402

import golden_lib  # noqa: E402
from golden_lib import case, placeholder, rng, tf1  # noqa: E402

FAMILY = "nn2"
raw = tf.raw_ops

QTYPES = {
    "qint8": (tf.qint8, np.int8),
    "quint8": (tf.quint8, np.uint8),
    "qint16": (tf.qint16, np.int16),
    "quint16": (tf.quint16, np.uint16),
    "qint32": (tf.qint32, np.int32),
}
MODES = ["MIN_COMBINED", "MIN_FIRST", "SCALED"]


def qvalue(values, name):
    """values (integers) as a numpy array of TensorFlow's quantized type."""
    tf_type, storage = QTYPES[name]
    return np.asarray(values).astype(storage).view(tf_type.as_numpy_dtype)


def unknown_shape(value):
    """A placeholder of value's dtype and unknown shape (so that the shape
    function lets the kernel see what is wrong), with the value."""
    value = np.asarray(value)
    return tf1.placeholder(tf.as_dtype(value.dtype), shape=None), value


def float_input(lo, hi, n=24, seed=0):
    """Values around [lo, hi]: evenly spaced ones, exact halves of a level,
    values outside the range, and NaN and infinities."""
    r = rng(seed)
    span = max(abs(lo), abs(hi), 1.0)
    x = np.concatenate([
        np.linspace(lo, hi, n // 2),
        r.uniform(lo - 0.3 * span, hi + 0.3 * span, n - n // 2 - 3),
        [np.nan, np.inf, -np.inf],
    ]).astype(np.float32)
    return x


def quantize_cases():
    ranges = [(-1.0, 1.0), (-0.3, 2.7), (-5.0, -1.0), (0.5, 0.5),
              (-1e-3, 1e-3)]
    for tname, (tf_type, _) in QTYPES.items():
        for mode in MODES:
            for ri, (lo, hi) in enumerate(ranges):
                variants = [("", {})]
                if mode == "SCALED":
                    variants = [
                        ("", {}),
                        ("_narrow", dict(narrow_range=True)),
                        ("_even", dict(round_mode="HALF_TO_EVEN")),
                        ("_even_narrow", dict(round_mode="HALF_TO_EVEN",
                                              narrow_range=True)),
                    ]
                    if ri not in (0, 1, 2):
                        variants = variants[:1]
                for suffix, kw in variants:
                    def build(lo=lo, hi=hi, kw=kw, mode=mode, tf_type=tf_type,
                              ri=ri):
                        x, xv = placeholder(float_input(lo, hi, seed=ri))
                        r = raw.QuantizeV2(input=x, min_range=lo, max_range=hi,
                                           T=tf_type, mode=mode, **kw)
                        return list(r), {x: xv}
                    case(FAMILY, f"quantize_{tname}_{mode.lower()}_r{ri}"
                         f"{suffix}", build)
    # ensure_minimum_range widens a narrow range; 0 keeps it.
    for emr in [0.0, 0.5]:
        for mode in MODES:
            def build(emr=emr, mode=mode):
                x, xv = placeholder(float_input(-0.2, 0.1))
                r = raw.QuantizeV2(input=x, min_range=-0.2, max_range=0.1,
                                   T=tf.qint8, mode=mode,
                                   ensure_minimum_range=emr)
                return list(r), {x: xv}
            case(FAMILY, f"quantize_emr{emr}_{mode.lower()}", build)
    # Per channel along axis 0, 1 and 2 of a [2, 3, 4] input.
    r = rng(7)
    for tname, (tf_type, _) in QTYPES.items():
        for mode, kw in [("MIN_COMBINED", {}), ("SCALED", {}),
                         ("SCALED", dict(round_mode="HALF_TO_EVEN",
                                         narrow_range=True))]:
            for axis in [1, 2]:
                depth = [2, 3, 4][axis]
                mins = -np.abs(r.normal(size=depth)).astype(np.float32)
                maxs = np.abs(r.normal(size=depth)).astype(np.float32) * 2
                mins[0] = 0.0
                maxs[-1] = 0.0
                xv0 = (r.normal(size=[2, 3, 4]) * 1.5).astype(np.float32)

                def build(tf_type=tf_type, mode=mode, kw=kw, axis=axis,
                          mins=mins, maxs=maxs, xv0=xv0):
                    x, xv = placeholder(xv0)
                    lo, lov = placeholder(mins)
                    hi, hiv = placeholder(maxs)
                    out = raw.QuantizeV2(input=x, min_range=lo, max_range=hi,
                                         T=tf_type, mode=mode, axis=axis,
                                         ensure_minimum_range=0.05, **kw)
                    return list(out), {x: xv, lo: lov, hi: hiv}
                name = "even_narrow" if kw else mode.lower()
                case(FAMILY, f"quantize_axis{axis}_{tname}_{name}", build)

    def axis_size_one():
        # One channel: TensorFlow quantizes it as a whole tensor and its
        # range outputs are scalars; MIN_FIRST is allowed then.
        x, xv = placeholder(float_input(-1, 1).reshape([2, 1, 12]))
        out = raw.QuantizeV2(input=x, min_range=[-1.0], max_range=[1.0],
                             T=tf.quint8, mode="MIN_FIRST", axis=1)
        return list(out), {x: xv}
    case(FAMILY, "quantize_axis_size_one_min_first", axis_size_one)

    def empty():
        x, xv = placeholder(np.zeros([0, 3], np.float32))
        return list(raw.QuantizeV2(input=x, min_range=-1.0, max_range=1.0,
                                   T=tf.qint8)), {x: xv}
    case(FAMILY, "quantize_empty", empty)

    def empty_axis():
        x, xv = placeholder(np.zeros([0, 3], np.float32))
        return list(raw.QuantizeV2(input=x, min_range=np.zeros([0], np.float32),
                                   max_range=np.zeros([0], np.float32),
                                   T=tf.qint8, axis=0)), {x: xv}
    case(FAMILY, "quantize_empty_axis", empty_axis)

    def nan_range():
        x, xv = placeholder(float_input(-1, 1))
        lo, lov = placeholder(np.float32(np.nan))
        return list(raw.QuantizeV2(input=x, min_range=lo, max_range=1.0,
                                   T=tf.qint8)), {x: xv, lo: lov}
    case(FAMILY, "quantize_nan_min_range", nan_range)


def quantize_error_cases():
    def unknown(v):
        return unknown_shape(np.asarray(v, np.float32))

    def err(name, xv, lo, hi, **kw):
        def build():
            x, xvv = unknown(xv)
            a, av = unknown(lo)
            b, bv = unknown(hi)
            out = raw.QuantizeV2(input=x, min_range=a, max_range=b, **kw)
            return list(out), {x: xvv, a: av, b: bv}
        case(FAMILY, f"quantize_error_{name}", build)
    x = [[0.5, 1.5], [-1.0, 2.0]]
    err("max_below_min", x, 1.0, 0.5, T=tf.qint8)
    err("max_below_min_channel", x, [0.0, 2.0], [1.0, 1.0], T=tf.qint8,
        axis=1)
    err("axis_out_of_range", x, [0.0, 0.0], [1.0, 1.0], T=tf.qint8, axis=2)
    err("axis_range_size", x, [0.0, 0.0, 0.0], [1.0, 1.0, 1.0], T=tf.qint8,
        axis=1)
    err("axis_range_rank", x, [[0.0, 0.0]], [[1.0, 1.0]], T=tf.qint8, axis=1)
    err("min_first_axis", x, [0.0, 0.0], [1.0, 1.0], T=tf.qint8, axis=1,
        mode="MIN_FIRST")
    err("range_not_scalar", x, [0.0, 0.0], [1.0, 1.0], T=tf.qint8)
    err("range_empty", x, np.zeros([0]), [1.0], T=tf.qint8)
    err("half_to_even_min_combined", x, 0.0, 1.0, T=tf.qint8,
        round_mode="HALF_TO_EVEN")
    err("half_to_even_min_first", x, 0.0, 1.0, T=tf.quint8,
        mode="MIN_FIRST", round_mode="HALF_TO_EVEN")


def dequantize_cases():
    ranges = [(-1.0, 1.0), (-0.3, 2.7), (0.5, 0.5), (-100.0, 37.0)]
    r = rng(11)
    for tname, (tf_type, storage) in QTYPES.items():
        info = np.iinfo(storage)
        q = np.concatenate([[info.min, info.max, 0, 1, info.min + 1,
                             info.max - 1],
                            r.integers(info.min, info.max, size=14,
                                       endpoint=True)])
        qv0 = qvalue(q, tname)
        for mode in MODES:
            for ri, (lo, hi) in enumerate(ranges):
                variants = [("", {})]
                if mode == "SCALED" and ri in (0, 1):
                    variants.append(("_narrow", dict(narrow_range=True)))
                if mode == "MIN_COMBINED" and ri in (0, 3):
                    variants.append(("_bfloat16", dict(dtype=tf.bfloat16)))
                for suffix, kw in variants:
                    def build(lo=lo, hi=hi, kw=kw, mode=mode, qv0=qv0):
                        x, xv = placeholder(qv0)
                        out = raw.Dequantize(input=x, min_range=lo,
                                             max_range=hi, mode=mode, **kw)
                        return out, {x: xv}
                    case(FAMILY, f"dequantize_{tname}_{mode.lower()}_r{ri}"
                         f"{suffix}", build)
        for mode in ["MIN_COMBINED", "SCALED"]:
            for axis in [0, 2]:
                depth = [2, 3, 4][axis]
                mins = (-np.abs(r.normal(size=depth)) * 3).astype(np.float32)
                maxs = (np.abs(r.normal(size=depth)) * 3).astype(np.float32)
                qa = qvalue(r.integers(info.min, info.max, size=[2, 3, 4],
                                       endpoint=True), tname)

                def build(mode=mode, axis=axis, mins=mins, maxs=maxs, qa=qa):
                    x, xv = placeholder(qa)
                    lo, lov = placeholder(mins)
                    hi, hiv = placeholder(maxs)
                    out = raw.Dequantize(input=x, min_range=lo, max_range=hi,
                                         mode=mode, axis=axis,
                                         narrow_range=axis == 2)
                    return out, {x: xv, lo: lov, hi: hiv}
                case(FAMILY, f"dequantize_axis{axis}_{tname}_{mode.lower()}",
                     build)

    def empty():
        x, xv = placeholder(qvalue(np.zeros([0, 2]), "quint8"))
        return raw.Dequantize(input=x, min_range=0.0, max_range=1.0), {x: xv}
    case(FAMILY, "dequantize_empty", empty)

    def round_trip():
        x, xv = placeholder(float_input(-2, 3))
        q = raw.QuantizeV2(input=x, min_range=-2.0, max_range=3.0,
                           T=tf.quint8, mode="MIN_FIRST")
        d = raw.Dequantize(input=q.output, min_range=q.output_min,
                           max_range=q.output_max, mode="MIN_FIRST")
        return [q.output, d], {x: xv}
    case(FAMILY, "quantize_dequantize_round_trip", round_trip)

    def err(name, qv, lo, hi, **kw):
        def build():
            x, xv = placeholder(qv)
            a, av = unknown_shape(np.asarray(lo, np.float32))
            b, bv = unknown_shape(np.asarray(hi, np.float32))
            out = raw.Dequantize(input=x, min_range=a, max_range=b, **kw)
            return out, {x: xv, a: av, b: bv}
        case(FAMILY, f"dequantize_error_{name}", build)
    q = qvalue([[1, 2, 3], [4, 5, 6]], "qint8")
    err("range_size", q, [0.0, 0.0], [1.0, 1.0])
    err("axis_range_size", q, [0.0, 0.0], [1.0, 1.0], axis=1)
    err("min_first_axis", q, [0.0, 0.0, 0.0], [1.0, 1.0, 1.0], axis=1,
        mode="MIN_FIRST")
    err("bfloat16_scaled", q, 0.0, 1.0, mode="SCALED", dtype=tf.bfloat16)
    err("bfloat16_min_first", q, 0.0, 1.0, mode="MIN_FIRST",
        dtype=tf.bfloat16)


def truncated_normal_cases():
    # (name, shape, mean, stddev, minval, maxval): each of TensorFlow's three
    # samplers, one-sided and reversed bounds, parameters per batch.
    specs = [
        ("randn", [4, 5], 0.0, 1.0, -2.0, 2.0),
        ("randn_shared_100", [100], 1.0, 2.0, -5.0, 6.0),
        ("randn_shared_3d", [2, 3, 4], -1.0, 0.5, -3.0, 10.0),
        ("uniform", [3, 7], 0.0, 1.0, 0.2, 0.9),
        ("uniform_narrow", [50], 5.0, 3.0, 4.9, 5.1),
        ("exponential", [3, 7], 0.0, 1.0, 2.0, 8.0),
        ("exponential_one_sided", [25], 0.0, 1.0, 1.5, np.inf),
        ("lower_unbounded", [25], 0.0, 1.0, -np.inf, -1.5),
        ("max_below_mean", [30], 3.0, 1.0, -1.0, 0.5),
        ("per_batch", [3, 6], [0.0, 1.0, -2.0], [1.0, 0.5, 2.0],
         [-1.0, 1.2, -10.0], [1.0, 3.0, -5.0]),
        ("per_batch_mixed", [4, 5], 0.0, [1.0, 2.0, 0.5, 1.0], -1.0,
         [0.5, 1.0, 2.0, 3.0]),
        ("vector_of_one", [2, 5], [0.5], [1.0], [-1.0], [1.0]),
        ("empty", [0, 4], 0.0, 1.0, -1.0, 1.0),
        ("empty_batches", [3, 0], [0.0, 0.0, 0.0], 1.0, -1.0, 1.0),
        ("rank1_batches", [6], [0.0, 1, 2, 3, 4, 5], 1.0, -1.0, 8.0),
    ]
    for dtype in [np.float32, np.float64, np.float16]:
        dname = np.dtype(dtype).name
        for (name, shape, mean, std, lo, hi) in specs:
            if dtype != np.float32 and name in ("empty", "empty_batches",
                                                "randn_shared_3d",
                                                "rank1_batches"):
                continue

            def build(shape=shape, mean=mean, std=std, lo=lo, hi=hi,
                      dtype=dtype):
                params = [placeholder(np.asarray(v, dtype))
                          for v in (mean, std, lo, hi)]
                out = raw.ParameterizedTruncatedNormal(
                    shape=np.asarray(shape, np.int32),
                    means=params[0][0], stdevs=params[1][0],
                    minvals=params[2][0], maxvals=params[3][0],
                    seed=7, seed2=11)
                return out, {p: v for p, v in params}
            case(FAMILY, f"truncated_normal_{dname}_{name}", build)

    def int64_shape():
        return raw.ParameterizedTruncatedNormal(
            shape=np.asarray([2, 3], np.int64), means=0.0, stdevs=1.0,
            minvals=-1.0, maxvals=1.0, seed=3, seed2=0), None
    case(FAMILY, "truncated_normal_int64_shape", int64_shape)

    def seed_only():
        return raw.ParameterizedTruncatedNormal(
            shape=[10], means=0.0, stdevs=1.0, minvals=-1.0, maxvals=1.0,
            seed=0, seed2=5), None
    case(FAMILY, "truncated_normal_seed2_only", seed_only)

    def err(name, shape, mean=0.0, std=1.0, lo=-1.0, hi=1.0):
        def build():
            s, sv = unknown_shape(np.asarray(shape, np.int32))
            params = [unknown_shape(np.asarray(v, np.float32))
                      for v in (mean, std, lo, hi)]
            out = raw.ParameterizedTruncatedNormal(
                shape=s, means=params[0][0], stdevs=params[1][0],
                minvals=params[2][0], maxvals=params[3][0], seed=1, seed2=2)
            feeds = {p: v for p, v in params}
            feeds[s] = sv
            return out, feeds
        case(FAMILY, f"truncated_normal_error_{name}", build)
    err("stddev_zero", [2, 3], std=0.0)
    err("stddev_negative_per_batch", [2, 3], std=[1.0, -1.0])
    err("min_not_below_max", [2, 3], lo=1.0, hi=1.0)
    err("both_bounds_infinite", [2, 3], lo=-np.inf, hi=np.inf)
    err("mean_rank2", [2, 3], mean=[[0.0]])
    err("mean_length", [2, 3], mean=[0.0, 1.0, 2.0])
    err("shape_scalar", 3)
    err("shape_empty", np.zeros([0], np.int32))
    err("shape_negative", [2, -1])


POOL_TYPES = [np.float32, np.float64, np.int32, np.int64]


def pool_input(shape, dtype, seed):
    r = rng(seed)
    if np.issubdtype(dtype, np.integer):
        return r.integers(-50, 50, size=shape).astype(dtype)
    return r.normal(size=shape).astype(dtype)


def fractional_pool_cases():
    # (name, input shape, pooling_ratio): ratios between 1 and 2, above 2,
    # dividing the input exactly, and 1 (no pooling) in a spatial dim.
    specs = [
        ("r1_4", [2, 7, 9, 3], [1.0, 1.44, 1.73, 1.0]),
        ("r2_5", [1, 11, 10, 2], [1.0, 2.5, 3.1, 1.0]),
        ("exact", [1, 8, 6, 2], [1.0, 2.0, 2.0, 1.0]),
        ("ratio_one", [2, 5, 7, 1], [1.0, 1.0, 1.5, 1.0]),
        ("whole", [1, 4, 4, 2], [1.0, 4.0, 4.0, 1.0]),
    ]
    for op_name, op in [("max", raw.FractionalMaxPool),
                        ("avg", raw.FractionalAvgPool)]:
        for dtype in POOL_TYPES:
            dname = np.dtype(dtype).name
            for si, (name, shape, ratio) in enumerate(specs):
                for pseudo in [False, True]:
                    for overlapping in [False, True]:
                        if dtype != np.float32 and (si > 1 or overlapping):
                            continue

                        def build(shape=shape, ratio=ratio, pseudo=pseudo,
                                  overlapping=overlapping, dtype=dtype,
                                  si=si, op=op):
                            x, xv = placeholder(pool_input(shape, dtype, si))
                            out = op(value=x, pooling_ratio=ratio,
                                     pseudo_random=pseudo,
                                     overlapping=overlapping,
                                     deterministic=True, seed=17 + si,
                                     seed2=3)
                            return list(out), {x: xv}
                        kind = ("pseudo" if pseudo else "random") + (
                            "_overlapping" if overlapping else "")
                        case(FAMILY, f"fractional_{op_name}_pool_{dname}_"
                             f"{name}_{kind}", build)
        # The gradient of the pooling in the same graph, on its sequences.
        for dtype in POOL_TYPES:
            for overlapping in [False, True]:
                def build(dtype=dtype, overlapping=overlapping, op=op,
                          op_name=op_name):
                    x, xv = placeholder(pool_input([2, 7, 9, 3], dtype, 5))
                    out, rows, cols = op(value=x,
                                         pooling_ratio=[1.0, 1.5, 1.6, 1.0],
                                         overlapping=overlapping,
                                         deterministic=True, seed=4, seed2=9)
                    bp = tf.cast(tf.reshape(
                        tf.range(tf.size(out)), tf.shape(out)), dtype)
                    if op_name == "max":
                        g = raw.FractionalMaxPoolGrad(
                            orig_input=x, orig_output=out, out_backprop=bp,
                            row_pooling_sequence=rows,
                            col_pooling_sequence=cols,
                            overlapping=overlapping)
                    else:
                        g = raw.FractionalAvgPoolGrad(
                            orig_input_tensor_shape=tf.shape(x, out_type=tf.int64),
                            out_backprop=bp, row_pooling_sequence=rows,
                            col_pooling_sequence=cols, overlapping=overlapping)
                    return [out, g], {x: xv}
                dname = np.dtype(dtype).name
                ov = "_overlapping" if overlapping else ""
                case(FAMILY, f"fractional_{op_name}_pool_grad_{dname}{ov}",
                     build)

    # Gradients with explicit sequences (not drawn by a forward op).
    def max_grad(name, xv0, rows, cols, overlapping=False, bp=None):
        def build():
            x, xv = placeholder(xv0)
            r, rv = placeholder(np.asarray(rows, np.int64))
            c, cv = placeholder(np.asarray(cols, np.int64))
            # The forward pass on these sequences, computed in numpy.
            out = np.full([xv0.shape[0], len(rows) - 1, len(cols) - 1,
                           xv0.shape[3]], -np.inf)
            for i in range(len(rows) - 1):
                h1 = min(rows[i + 1] if overlapping else rows[i + 1] - 1,
                         xv0.shape[1] - 1)
                for j in range(len(cols) - 1):
                    w1 = min(cols[j + 1] if overlapping else cols[j + 1] - 1,
                             xv0.shape[2] - 1)
                    out[:, i, j, :] = xv0[:, rows[i]:h1 + 1,
                                          cols[j]:w1 + 1, :].max(axis=(1, 2))
            o, ov = placeholder(out.astype(xv0.dtype))
            b, bv = placeholder(np.arange(out.size).reshape(out.shape)
                                .astype(xv0.dtype) if bp is None else bp)
            g = raw.FractionalMaxPoolGrad(
                orig_input=x, orig_output=o, out_backprop=b,
                row_pooling_sequence=r, col_pooling_sequence=c,
                overlapping=overlapping)
            return g, {x: xv, r: rv, c: cv, o: ov, b: bv}
        case(FAMILY, f"fractional_max_pool_grad_explicit_{name}", build)
    xv = pool_input([1, 6, 5, 2], np.float32, 9)
    max_grad("uneven", xv, [0, 1, 3, 6], [0, 2, 3, 5])
    max_grad("uneven_overlapping", xv, [0, 1, 3, 6], [0, 2, 3, 5], True)
    max_grad("ties", np.ones([1, 4, 4, 1], np.float64), [0, 2, 4], [0, 1, 4])
    max_grad("int64", pool_input([2, 5, 5, 1], np.int64, 3), [0, 2, 5],
             [0, 3, 5])

    def avg_grad(name, shape, rows, cols, overlapping=False, dtype=np.float32):
        def build():
            out_shape = [shape[0], len(rows) - 1, len(cols) - 1, shape[3]]
            b, bv = placeholder((np.arange(np.prod(out_shape)) * 3 + 1)
                                .reshape(out_shape).astype(dtype))
            r, rv = placeholder(np.asarray(rows, np.int64))
            c, cv = placeholder(np.asarray(cols, np.int64))
            g = raw.FractionalAvgPoolGrad(
                orig_input_tensor_shape=np.asarray(shape, np.int64),
                out_backprop=b, row_pooling_sequence=r,
                col_pooling_sequence=c, overlapping=overlapping)
            return g, {b: bv, r: rv, c: cv}
        case(FAMILY, f"fractional_avg_pool_grad_explicit_{name}", build)
    avg_grad("uneven", [1, 6, 5, 2], [0, 1, 3, 6], [0, 2, 3, 5])
    avg_grad("uneven_overlapping", [1, 6, 5, 2], [0, 1, 3, 6], [0, 2, 3, 5],
             True)
    avg_grad("int32", [2, 5, 4, 1], [0, 2, 5], [0, 3, 4], dtype=np.int32)
    avg_grad("seq_past_end", [1, 4, 4, 1], [0, 2, 9], [0, 2, 4])
    avg_grad("float64", [1, 3, 7, 2], [0, 1, 2, 3], [0, 2, 4, 7],
             dtype=np.float64)

    def pool_err(name, xv0, ratio, op=raw.FractionalMaxPool, **kw):
        def build():
            x, xv = unknown_shape(xv0)
            kw.setdefault("deterministic", True)
            kw.setdefault("seed", 1)
            return list(op(value=x, pooling_ratio=ratio, **kw)), {x: xv}
        case(FAMILY, f"fractional_pool_error_{name}", build)
    x4 = np.zeros([1, 5, 5, 2], np.float32)
    pool_err("batch_ratio", x4, [2.0, 1.5, 1.5, 1.0])
    pool_err("channel_ratio_avg", x4, [1.0, 1.5, 1.5, 2.0],
             op=raw.FractionalAvgPool)
    pool_err("seed_not_deterministic", x4, [1.0, 1.5, 1.5, 1.0],
             deterministic=False, seed=3)
    pool_err("rank3", x4[0], [1.0, 1.5, 1.5, 1.0])
    pool_err("ratio_above_size", x4, [1.0, 6.0, 1.5, 1.0])
    pool_err("empty_avg", np.zeros([0, 5, 5, 2], np.float32),
             [1.0, 1.5, 1.5, 1.0], op=raw.FractionalAvgPool)

    def max_grad_err(name, orig, out, bp, rows, cols):
        def build():
            vals = [unknown_shape(np.asarray(v)) for v in
                    (orig, out, bp, np.asarray(rows, np.int64),
                     np.asarray(cols, np.int64))]
            g = raw.FractionalMaxPoolGrad(
                orig_input=vals[0][0], orig_output=vals[1][0],
                out_backprop=vals[2][0], row_pooling_sequence=vals[3][0],
                col_pooling_sequence=vals[4][0])
            return g, {p: v for p, v in vals}
        case(FAMILY, f"fractional_max_pool_grad_error_{name}", build)
    xi = np.arange(16, dtype=np.float32).reshape(1, 4, 4, 1)
    oi = np.array([5, 7, 13, 15], np.float32).reshape(1, 2, 2, 1)
    ones = np.ones([1, 2, 2, 1], np.float32)
    max_grad_err("wrong_output", xi, oi + 1, ones, [0, 2, 4], [0, 2, 4])
    max_grad_err("rank3", xi[0], oi, ones, [0, 2, 4], [0, 2, 4])
    max_grad_err("empty_input", np.zeros([0, 4, 4, 1], np.float32), oi, ones,
                 [0, 2, 4], [0, 2, 4])
    max_grad_err("short_sequence", xi, oi, ones, [0, 2], [0, 2, 4])
    max_grad_err("long_sequences", xi, oi, ones, np.arange(6), np.arange(6))

    def avg_grad_err(name, shape, bp, rows, cols):
        def build():
            vals = [unknown_shape(np.asarray(v)) for v in
                    (np.asarray(shape, np.int64), bp,
                     np.asarray(rows, np.int64), np.asarray(cols, np.int64))]
            g = raw.FractionalAvgPoolGrad(
                orig_input_tensor_shape=vals[0][0], out_backprop=vals[1][0],
                row_pooling_sequence=vals[2][0],
                col_pooling_sequence=vals[3][0])
            return g, {p: v for p, v in vals}
        case(FAMILY, f"fractional_avg_pool_grad_error_{name}", build)
    avg_grad_err("shape_rank", [1, 4, 4], ones, [0, 2, 4], [0, 2, 4])
    avg_grad_err("backprop_rank3", [1, 4, 4, 1], ones[0], [0, 2, 4],
                 [0, 2, 4])
    avg_grad_err("short_rows", [1, 4, 4, 1], ones, [0, 2], [0, 2, 4])
    avg_grad_err("short_cols", [1, 4, 4, 1], ones, [0, 2, 4], [0, 4])
    avg_grad_err("negative_rows", [1, 4, 4, 1], ones, [-3, 2, 4], [0, 2, 4])
    avg_grad_err("negative_cols", [1, 4, 4, 1], ones, [0, 2, 4], [0, -2, 4])
    avg_grad_err("negative_shape", [1, -4, 4, 1], ones, [0, 2, 4], [0, 2, 4])


def ctc_beam_search_cases():
    r = rng(21)
    for dtype in [np.float32, np.float64]:
        dname = np.dtype(dtype).name
        logits = r.normal(size=[8, 3, 5]).astype(dtype) * 2
        log_softmax = (logits - np.log(np.exp(logits).sum(-1, keepdims=True))
                       ).astype(dtype)
        for beam, top, merge in [(1, 1, True), (3, 1, True), (3, 3, False),
                                 (5, 2, True), (10, 4, True),
                                 (10, 4, False), (50, 8, True)]:
            for kind, values in [("logits", logits),
                                 ("log_softmax", log_softmax)]:
                if kind == "log_softmax" and beam not in (3, 10):
                    continue

                def build(values=values, beam=beam, top=top, merge=merge):
                    x, xv = placeholder(values)
                    sl, slv = placeholder(np.asarray([8, 5, 3], np.int32))
                    out = raw.CTCBeamSearchDecoder(
                        inputs=x, sequence_length=sl, beam_width=beam,
                        top_paths=top, merge_repeated=merge)
                    return (list(out.decoded_indices) +
                            list(out.decoded_values) +
                            list(out.decoded_shape) + [out.log_probability],
                            {x: xv, sl: slv})
                m = "merge" if merge else "nomerge"
                case(FAMILY, f"ctc_beam_search_{dname}_{kind}_beam{beam}_"
                     f"top{top}_{m}", build)

    def ties():
        # Equal logits everywhere: every beam ties with others.
        x, xv = placeholder(np.zeros([4, 2, 3], np.float32))
        sl, slv = placeholder(np.asarray([4, 2], np.int32))
        out = raw.CTCBeamSearchDecoder(inputs=x, sequence_length=sl,
                                       beam_width=4, top_paths=3)
        return (list(out.decoded_indices) + list(out.decoded_values) +
                list(out.decoded_shape) + [out.log_probability],
                {x: xv, sl: slv})
    case(FAMILY, "ctc_beam_search_ties", ties)

    def zero_length():
        x, xv = placeholder(r.normal(size=[3, 2, 4]).astype(np.float32))
        sl, slv = placeholder(np.asarray([0, 3], np.int32))
        out = raw.CTCBeamSearchDecoder(inputs=x, sequence_length=sl,
                                       beam_width=3, top_paths=1)
        return (list(out.decoded_indices) + list(out.decoded_values) +
                list(out.decoded_shape) + [out.log_probability],
                {x: xv, sl: slv})
    case(FAMILY, "ctc_beam_search_zero_length", zero_length)

    def two_classes():
        # One label and the blank.
        x, xv = placeholder(r.normal(size=[6, 1, 2]).astype(np.float64))
        sl, slv = placeholder(np.asarray([6], np.int32))
        out = raw.CTCBeamSearchDecoder(inputs=x, sequence_length=sl,
                                       beam_width=2, top_paths=2,
                                       merge_repeated=False)
        return (list(out.decoded_indices) + list(out.decoded_values) +
                list(out.decoded_shape) + [out.log_probability],
                {x: xv, sl: slv})
    case(FAMILY, "ctc_beam_search_two_classes", two_classes)

    def err(name, xv0, lengths, beam=3, top=1):
        def build():
            x, xv = unknown_shape(np.asarray(xv0, np.float32))
            sl, slv = unknown_shape(np.asarray(lengths, np.int32))
            out = raw.CTCBeamSearchDecoder(inputs=x, sequence_length=sl,
                                           beam_width=beam, top_paths=top)
            return [out.log_probability], {x: xv, sl: slv}
        case(FAMILY, f"ctc_beam_search_error_{name}", build)
    x3 = r.normal(size=[3, 2, 4])
    err("top_paths_above_beam", x3, [3, 3], beam=2, top=3)
    err("fewer_leaves", x3, [0, 3], beam=3, top=2)
    err("length_above_time", x3, [4, 3])
    err("length_count", x3, [3, 3, 3])
    err("rank2", x3[0], [3, 3])
    err("empty", np.zeros([0, 2, 4]), [0, 0])
    err("lengths_matrix", x3, [[3, 3]])


def shuffle_queue_cases():
    """Multi-step cases (gen_lookup.steps_case): the queue keeps its
    elements and its generator between steps."""
    from gen_lookup import steps_case
    folder = golden_lib._family_dir(FAMILY)

    def queue(min_after_dequeue=0, capacity=20, seed=7, seed2=3,
              shapes=([], [2])):
        return raw.RandomShuffleQueueV2(
            component_types=[tf.int32, tf.float32][:len(shapes)],
            shapes=list(shapes), capacity=capacity,
            min_after_dequeue=min_after_dequeue, seed=seed, seed2=seed2)

    def ops(q, n_components=2):
        types = [tf.int32, tf.float32][:n_components]
        values = [tf.range(10), tf.reshape(tf.range(20.0), [10, 2])]
        return {
            "enq": raw.QueueEnqueueManyV2(handle=q,
                                          components=values[:n_components]),
            "enq1": raw.QueueEnqueueV2(
                handle=q, components=[tf.constant(100),
                                      tf.constant([1.5, 2.5])][:n_components]),
            "one": raw.QueueDequeueV2(handle=q, component_types=types)[0],
            "many": raw.QueueDequeueManyV2(handle=q, n=3,
                                           component_types=types)[-1],
            "upto": raw.QueueDequeueUpToV2(handle=q, n=4,
                                           component_types=types)[0],
            "zero": raw.QueueDequeueManyV2(handle=q, n=0,
                                           component_types=types)[0],
            "close": raw.QueueCloseV2(handle=q),
            "size": raw.QueueSizeV2(handle=q),
        }

    steps_case(folder, "shuffle_queue_order", lambda: ops(queue()),
               [(["enq"], {}), (["one"], {}), (["one"], {}), (["many"], {}),
                (["enq1"], {}), (["size"], {}), (["upto"], {}),
                (["one"], {}), (["zero"], {}), (["size"], {})],
               note="a seeded queue's dequeue order, one and many at a "
               "time, across steps")
    steps_case(folder, "shuffle_queue_min_after_dequeue",
               lambda: ops(queue(min_after_dequeue=6, capacity=12)),
               [(["enq"], {}), (["many"], {}), (["size"], {}), (["one"], {}),
                (["close"], {}), (["many"], {}), (["size"], {}),
                (["upto"], {}), (["upto"], {}), (["size"], {})],
               note="dequeues leave min_after_dequeue elements until the "
               "queue closes; then DequeueUpTo takes the rest, then "
               "OutOfRange")
    steps_case(folder, "shuffle_queue_closed_short",
               lambda: ops(queue(seed=0, seed2=11)),
               [(["enq1"], {}), (["enq1"], {}), (["close"], {}),
                (["enq1"], {}), (["many"], {}), (["size"], {}),
                (["upto"], {}), (["one"], {})],
               note="enqueue on a closed queue is Cancelled; DequeueMany with "
               "too few is OutOfRange and keeps them; DequeueUpTo takes them")
    steps_case(folder, "shuffle_queue_one_component",
               lambda: ops(queue(seed=5, seed2=0, shapes=([],)), 1),
               [(["enq"], {}), (["enq"], {}), (["upto"], {}), (["many"], {}),
                (["one"], {}), (["size"], {})],
               note="seed2 0 with a seed; twenty elements")

    def python_api():
        tf1.set_random_seed(42)
        q = tf1.RandomShuffleQueue(capacity=10, min_after_dequeue=2,
                                   dtypes=[tf.int64], shapes=[[]])
        return {"enq": q.enqueue_many([tf.range(8, dtype=tf.int64)]),
                "deq": q.dequeue_many(3), "size": q.size()}
    steps_case(folder, "shuffle_queue_python_api", python_api,
               [(["enq"], {}), (["deq"], {}), (["deq"], {}), (["size"], {})],
               note="tf.compat.v1.RandomShuffleQueue with a graph seed")

    def unseeded():
        q = queue(seed=0, seed2=0)
        o = ops(q)
        o["sorted"] = tf.sort(raw.QueueDequeueManyV2(
            handle=q, n=10, component_types=[tf.int32, tf.float32])[0])
        return o
    steps_case(folder, "shuffle_queue_unseeded", unseeded,
               [(["enq"], {}), (["sorted"], {}), (["size"], {})],
               note="random seeds: the elements, sorted, are all there")

    def no_shapes():
        q = raw.RandomShuffleQueueV2(component_types=[tf.int32])
        return {"enq": raw.QueueEnqueueV2(handle=q,
                                          components=[tf.constant(1)]),
                "many": raw.QueueDequeueManyV2(handle=q, n=1,
                                               component_types=[tf.int32])[0],
                "one": raw.QueueDequeueV2(handle=q,
                                          component_types=[tf.int32])[0]}
    steps_case(folder, "shuffle_queue_no_shapes", no_shapes,
               [(["enq"], {}), (["many"], {}), (["one"], {})],
               note="DequeueMany needs the component shapes")

    for name, kw in [("min_not_below_capacity",
                      dict(min_after_dequeue=5, capacity=5)),
                     ("negative_min", dict(min_after_dequeue=-1))]:
        def bad(kw=kw):
            q = queue(**kw)
            return {"size": raw.QueueSizeV2(handle=q)}
        steps_case(folder, f"shuffle_queue_error_{name}", bad,
                   [(["size"], {})])


OP_NAMES = ["QuantizeV2", "Dequantize", "ParameterizedTruncatedNormal",
            "FractionalMaxPool", "FractionalAvgPool", "FractionalMaxPoolGrad",
            "FractionalAvgPoolGrad", "CTCBeamSearchDecoder",
            "RandomShuffleQueueV2"]
TYPE_ATTRS = {"Dequantize": "dtype", "ParameterizedTruncatedNormal": "dtype"}


def main():
    quantize_cases()
    quantize_error_cases()
    dequantize_cases()
    truncated_normal_cases()
    fractional_pool_cases()
    ctc_beam_search_cases()
    shuffle_queue_cases()
    golden_lib.write_op_defs(FAMILY, OP_NAMES, TYPE_ATTRS)

if __name__ == "__main__":
    main()
