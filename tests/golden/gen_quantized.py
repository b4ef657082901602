#!/usr/bin/env python3
"""Golden cases of the quantized family: the eight-bit inference ops of TF1
graphs that graph_transforms' quantize_nodes wrote -- Requantize,
RequantizationRange, QuantizeDownAndShrinkRange, QuantizedMatMul,
QuantizedConv2D, QuantizedBiasAdd, QuantizedRelu, QuantizedRelu6,
QuantizedAdd, QuantizedMul, QuantizedMaxPool, QuantizedAvgPool,
QuantizedConcat, QuantizedReshape and
QuantizedBatchNormWithGlobalNormalization -- and their OpDefs; and
QuantizeAndDequantize (v1), deprecated at GraphDef version 22, in GraphDefs
produced before that (golden_lib.legacy_case).

Most cases feed floats, quantize them with QuantizeV2 (MIN_FIRST, as
quantize_nodes did, or MIN_COMBINED), run the op and fetch its quantized
output, its range and a Dequantize of the output; others feed quantized
levels directly (qint32 extremes, zero outside the range, empty ranges).
Bad inputs record TensorFlow's error code.

TensorFlow runs with oneDNN's graph rewrites off (TF_ENABLE_ONEDNN_OPTS=0),
as for the nn2 family: on x86 they swap QuantizedMaxPool/AvgPool for
oneDNN's kernels, which round averages half to even, fail with Internal on
empty inputs and refuse depth pooling; dfx follows TensorFlow's own kernels.

Left out, because TensorFlow 2.21's CPU kernels cannot serve them:
QuantizedReluX (no kernel registered), QuantizedMatMul with a qint8
operand, QuantizedConv2D with a qint8 filter (TensorFlow registers a kernel
that, without oneDNN's rewrite, ends with "Missing 0-th output"). Left out of the cases because TensorFlow aborts (a failed CHECK):
QuantizedConv2D whose output would be empty (dfx: InvalidArgument).
Left out because TensorFlow leaves output unwritten: QuantizedAdd and
QuantizedMul of two operands broadcast against each other ([2, 1] and
[1, 3]), where its kernels fill only the larger operand's elements.

    $(tools/tf_env) tests/golden/gen_quantized.py
"""

import os
import sys

os.environ["TF_ENABLE_ONEDNN_OPTS"] = "0"
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402

import golden_lib  # noqa: E402
from golden_lib import placeholder, rng, tf1  # noqa: E402

FAMILY = "quantized"
RAW = tf.raw_ops

OP_NAMES = ["Requantize", "RequantizationRange", "QuantizeDownAndShrinkRange",
            "QuantizedMatMul", "QuantizedConv2D", "QuantizedBiasAdd",
            "QuantizedRelu", "QuantizedRelu6", "QuantizedAdd", "QuantizedMul",
            "QuantizedMaxPool", "QuantizedAvgPool", "QuantizedConcat",
            "QuantizedReshape", "QuantizedBatchNormWithGlobalNormalization",
            "QuantizeAndDequantize"]

QTYPES = {
    "qint8": (tf.qint8, np.int8),
    "quint8": (tf.quint8, np.uint8),
    "qint32": (tf.qint32, np.int32),
}


def case(name, build, **kw):
    # Every output bit for bit: levels, ranges and the Dequantize of the
    # levels (whose float arithmetic dfx repeats step by step).
    kw.setdefault("rtol", 0.0)
    kw.setdefault("atol", 0.0)
    golden_lib.case(FAMILY, name, build, **kw)


def qvalue(values, name):
    """Integers as a numpy array of TensorFlow's quantized type `name`."""
    tf_type, storage = QTYPES[name]
    return np.asarray(values).astype(storage).view(tf_type.as_numpy_dtype)


def unknown(value):
    """A placeholder of unknown shape (the shape function lets the kernel
    see what is wrong) and its value."""
    value = np.asarray(value)
    return tf1.placeholder(tf.as_dtype(value.dtype), shape=None), value


def fl(v):
    return np.float32(v)


class Feeds:
    """Collects placeholders and their values for one case."""

    def __init__(self):
        self.feed = {}

    def value(self, v, shape="same"):
        v = np.asarray(v)
        p = tf1.placeholder(tf.as_dtype(v.dtype),
                            shape=v.shape if shape == "same" else shape)
        self.feed[p] = v
        return p

    def quantize(self, x, lo, hi, qtype="quint8", mode="MIN_FIRST"):
        """Floats x fed and quantized into [lo, hi] (widened as QuantizeV2
        widens it): (levels, min, max)."""
        xp = self.value(np.asarray(x, np.float32))
        q = RAW.QuantizeV2(input=xp, min_range=fl(lo), max_range=fl(hi),
                           T=QTYPES[qtype][0], mode=mode)
        return q.output, q.output_min, q.output_max

    def levels(self, q, qtype, lo, hi, shape="same"):
        """Levels fed directly, with fed range scalars."""
        return (self.value(qvalue(q, qtype), shape),
                self.value(fl(lo)), self.value(fl(hi)))


def outputs(op_out, dequantize=True, mode="MIN_FIRST"):
    """The op's three outputs, and a Dequantize of the levels."""
    out = list(op_out)
    if dequantize:
        out.append(RAW.Dequantize(input=out[0], min_range=out[1],
                                  max_range=out[2], mode=mode))
    return out


def floats(shape, lo, hi, seed):
    return rng(seed).uniform(lo, hi, size=shape).astype(np.float32)


INT32_EDGES = [-2**31, 2**31 - 1, 0, 1, -1, 2**30, -2**30, 65536, -65535]


def int32_levels(n, seed, spread=2**31 - 1):
    r = rng(seed)
    return np.concatenate([INT32_EDGES, r.integers(-spread, spread, size=n,
                                                   endpoint=True)])


# --------------------------------------------------------------------------
# Requantize, RequantizationRange, QuantizeDownAndShrinkRange


def requantize_cases():
    q = int32_levels(15, 1)
    in_ranges = {"sym": (-1.0, 1.0), "skew": (-100.0, 37.5),
                 "empty": (0.5, 0.5), "wide": (-3e4, 2e5)}
    out_ranges = {"sym": (-1.0, 1.0), "relu6": (0.0, 6.0),
                  "neg": (-3.0, 0.0), "zero": (0.0, 0.0),
                  "small": (-0.5, 0.25)}
    for out_name, out_t in (("quint8", tf.quint8), ("qint8", tf.qint8)):
        for iname, (ilo, ihi) in in_ranges.items():
            for oname, (olo, ohi) in out_ranges.items():
                if iname in ("empty", "wide") and oname not in ("sym",
                                                                "relu6"):
                    continue

                def build(ilo=ilo, ihi=ihi, olo=olo, ohi=ohi, out_t=out_t):
                    f = Feeds()
                    x, lo, hi = f.levels(q, "qint32", ilo, ihi)
                    r = RAW.Requantize(input=x, input_min=lo, input_max=hi,
                                       requested_output_min=fl(olo),
                                       requested_output_max=fl(ohi),
                                       out_type=out_t)
                    return outputs(r, mode="MIN_COMBINED"), f.feed
                case(f"requantize_{out_name}_in_{iname}_out_{oname}", build)

    # Levels that land exactly between two output levels.
    def halves():
        f = Feeds()
        x, lo, hi = f.levels(np.arange(-40, 41, 1) * 2**24 + 2**23, "qint32",
                             -128.0, 128.0)
        r = RAW.Requantize(input=x, input_min=lo, input_max=hi,
                           requested_output_min=fl(-2.0),
                           requested_output_max=fl(2.0), out_type=tf.qint8)
        return list(r), f.feed
    case("requantize_qint8_halves", halves)

    def empty():
        f = Feeds()
        x, lo, hi = f.levels(np.zeros([0, 3]), "qint32", -1.0, 1.0)
        r = RAW.Requantize(input=x, input_min=lo, input_max=hi,
                           requested_output_min=fl(-1.0),
                           requested_output_max=fl(1.0), out_type=tf.quint8)
        return list(r), f.feed
    case("requantize_empty", empty)

    def matmul_chain():
        f = Feeds()
        a = f.quantize(floats([3, 5], -1, 1, 2), -1.0, 1.0)
        b = f.quantize(floats([5, 4], -2, 3, 3), -2.0, 3.0)
        m = RAW.QuantizedMatMul(a=a[0], b=b[0], min_a=a[1], max_a=a[2],
                                min_b=b[1], max_b=b[2], Toutput=tf.qint32)
        rr = RAW.RequantizationRange(input=m.out, input_min=m.min_out,
                                     input_max=m.max_out)
        r = RAW.Requantize(input=m.out, input_min=m.min_out,
                           input_max=m.max_out,
                           requested_output_min=rr.output_min,
                           requested_output_max=rr.output_max,
                           out_type=tf.quint8)
        return outputs(r) + list(rr), f.feed
    case("requantize_after_matmul", matmul_chain,
         note="QuantizedMatMul, RequantizationRange, Requantize, Dequantize "
         "(MIN_FIRST), as quantize_nodes chains them")

    def err(name, olo, ohi, shape_min=None, out_t=tf.quint8):
        def build():
            f = Feeds()
            x = f.value(qvalue([1, 2, 3], "qint32"))
            lo = (f.value(np.zeros(shape_min, np.float32), shape=None)
                  if shape_min is not None else fl(-1.0))
            r = RAW.Requantize(input=x, input_min=lo, input_max=fl(1.0),
                               requested_output_min=fl(olo),
                               requested_output_max=fl(ohi), out_type=out_t)
            return list(r), f.feed
        case("requantize_error_" + name, build)
    err("min_above_zero", 0.5, 2.0)
    err("max_below_min", -1.0, -2.0, out_t=tf.qint8)
    err("min_rank1", -1.0, 1.0, shape_min=[1])
    err("min_empty", -1.0, 1.0, shape_min=[0])


def range_cases():
    for name, q, lo, hi in [
            ("mixed", int32_levels(10, 4, 2**28), -1.0, 1.0),
            ("positive", [5, 2**20, 2**29, 77], -10.0, 10.0),
            ("negative", [-5, -2**20, -2**29], -4.0, 8.0),
            ("full", [-2**31, 2**31 - 1], -6.0, 6.0),
            ("empty_range", [3, -3], 2.0, 2.0),
            ("empty", np.zeros([0], np.int32), -3.0, 1.0)]:
        def build(q=q, lo=lo, hi=hi):
            f = Feeds()
            x, a, b = f.levels(q, "qint32", lo, hi)
            rr = RAW.RequantizationRange(input=x, input_min=a, input_max=b)
            sh = RAW.QuantizeDownAndShrinkRange(input=x, input_min=a,
                                                input_max=b,
                                                out_type=tf.quint8)
            return list(rr) + outputs(sh), f.feed
        case(f"range_and_shrink_{name}", build,
             note="RequantizationRange, QuantizeDownAndShrinkRange and a "
             "Dequantize of its output")

    def shrink_matrix():
        f = Feeds()
        x, a, b = f.levels(int32_levels(31, 5, 2**25).reshape(5, 8), "qint32",
                           -50.0, 50.0)
        return outputs(RAW.QuantizeDownAndShrinkRange(
            input=x, input_min=a, input_max=b, out_type=tf.quint8)), f.feed
    case("shrink_matrix", shrink_matrix)

    def range_err(name, min_shape, max_shape):
        def build():
            f = Feeds()
            x = f.value(qvalue([1, 2], "qint32"))
            lo = f.value(np.full(min_shape, -1.0, np.float32), shape=None)
            hi = f.value(np.full(max_shape, 1.0, np.float32), shape=None)
            return list(RAW.RequantizationRange(input=x, input_min=lo,
                                                input_max=hi)), f.feed
        case("range_error_" + name, build)
    range_err("empty_min", [0], [])
    range_err("empty_max", [], [0])

    def shrink_err():
        f = Feeds()
        x = f.value(qvalue([1, 2], "qint32"))
        lo = f.value(np.full([2], -1.0, np.float32), shape=None)
        return list(RAW.QuantizeDownAndShrinkRange(
            input=x, input_min=lo, input_max=fl(1.0),
            out_type=tf.quint8)), f.feed
    case("shrink_error_min_rank1", shrink_err)


# --------------------------------------------------------------------------
# QuantizedMatMul


def matmul_cases():
    ranges = {"sym": ((-1.0, 1.0), (-2.0, 3.0)),
              "positive": ((0.0, 6.0), (0.5, 4.0)),
              "negative": ((-8.0, -1.0), (-1.0, 1.0)),
              "mixed": ((-0.1, 25.0), (-3.0, -0.25))}
    for rname, ((alo, ahi), (blo, bhi)) in ranges.items():
        for ta, tb in ((False, False), (True, False), (False, True),
                       (True, True)):
            if rname != "sym" and (ta or tb):
                continue

            def build(alo=alo, ahi=ahi, blo=blo, bhi=bhi, ta=ta, tb=tb):
                f = Feeds()
                ashape = [4, 3] if ta else [3, 4]
                bshape = [2, 4] if tb else [4, 2]
                a = f.quantize(floats(ashape, alo - 1, ahi + 1, 6), alo, ahi)
                b = f.quantize(floats(bshape, blo - 1, bhi + 1, 7), blo, bhi)
                m = RAW.QuantizedMatMul(a=a[0], b=b[0], min_a=a[1],
                                        max_a=a[2], min_b=b[1], max_b=b[2],
                                        transpose_a=ta, transpose_b=tb,
                                        Toutput=tf.qint32)
                return outputs(m), f.feed
            case(f"matmul_{rname}_ta{int(ta)}_tb{int(tb)}", build)

    def combined():
        f = Feeds()
        a = f.quantize(floats([2, 6], -3, 3, 8), -3.0, 3.0,
                       mode="MIN_COMBINED")
        b = f.quantize(floats([6, 3], 0, 2, 9), 0.0, 2.0, mode="MIN_COMBINED")
        m = RAW.QuantizedMatMul(a=a[0], b=b[0], min_a=a[1], max_a=a[2],
                                min_b=b[1], max_b=b[2])
        return outputs(m, mode="MIN_COMBINED"), f.feed
    case("matmul_min_combined", combined)

    def extremes():
        f = Feeds()
        a = f.levels(np.full([2, 64], 255), "quint8", -1.0, 1.0)
        b = f.levels(np.concatenate([np.zeros([64, 1]), np.full([64, 1], 255)],
                                    axis=1), "quint8", -1.0, 1.0)
        m = RAW.QuantizedMatMul(a=a[0], b=b[0], min_a=a[1], max_a=a[2],
                                min_b=b[1], max_b=b[2])
        return list(m), f.feed
    case("matmul_extreme_levels", extremes)

    def empty():
        f = Feeds()
        a = f.quantize(np.zeros([0, 3]), 0.0, 6.0)
        b = f.quantize(np.ones([3, 2]), 0.0, 6.0)
        return list(RAW.QuantizedMatMul(a=a[0], b=b[0], min_a=a[1],
                                        max_a=a[2], min_b=b[1],
                                        max_b=b[2])), f.feed
    case("matmul_empty", empty)

    def err(name, ashape, bshape, arange=(0.0, 6.0), brange=(0.0, 6.0),
            min_a_shape=None):
        def build():
            f = Feeds()
            a = f.levels(np.ones(ashape), "quint8", *arange, shape=None)
            b = f.levels(np.ones(bshape), "quint8", *brange, shape=None)
            min_a = a[1]
            if min_a_shape is not None:
                min_a = f.value(np.zeros(min_a_shape, np.float32), shape=None)
            return list(RAW.QuantizedMatMul(a=a[0], b=b[0], min_a=min_a,
                                            max_a=a[2], min_b=b[1],
                                            max_b=b[2])), f.feed
        case("matmul_error_" + name, build)
    err("equal_range", [2, 3], [3, 2], arange=(1.0, 1.0))
    err("min_above_max", [2, 3], [3, 2], brange=(2.0, -2.0))
    err("inner_dims", [2, 3], [2, 2])
    err("rank3", [2, 3, 1], [3, 2])
    err("min_a_rank1", [2, 3], [3, 2], min_a_shape=[1])


# --------------------------------------------------------------------------
# QuantizedConv2D


def conv_cases():
    def conv(name, xshape, fshape, strides, padding, xr=(0.0, 6.0),
             fr=(-1.0, 1.0), ftype="quint8", mode="MIN_FIRST", seed=10):
        def build():
            f = Feeds()
            x = f.quantize(floats(xshape, xr[0] - 1, xr[1] + 1, seed), *xr,
                           mode=mode)
            w = f.quantize(floats(fshape, fr[0] - 0.5, fr[1] + 0.5, seed + 1),
                           *fr, qtype=ftype,
                           mode="SCALED" if ftype == "qint8" else mode)
            c = RAW.QuantizedConv2D(input=x[0], filter=w[0], min_input=x[1],
                                    max_input=x[2], min_filter=w[1],
                                    max_filter=w[2], strides=strides,
                                    padding=padding, out_type=tf.qint32)
            return outputs(c, mode=mode), f.feed
        case("conv_" + name, build)

    for ftype in ("quint8",):
        conv(f"{ftype}_same", [1, 5, 5, 2], [3, 3, 2, 3], [1, 1, 1, 1],
             "SAME", ftype=ftype)
        conv(f"{ftype}_valid", [2, 5, 4, 3], [2, 2, 3, 2], [1, 1, 1, 1],
             "VALID", ftype=ftype)
        conv(f"{ftype}_same_stride2", [1, 6, 7, 2], [3, 3, 2, 2],
             [1, 2, 2, 1], "SAME", ftype=ftype)
    conv("valid_stride3", [1, 7, 7, 1], [2, 2, 1, 2], [1, 3, 3, 1], "VALID")
    conv("same_input_positive_range", [1, 4, 4, 2], [3, 3, 2, 2],
         [1, 1, 1, 1], "SAME", xr=(0.5, 4.0))
    conv("same_input_negative_range", [1, 4, 4, 2], [3, 3, 2, 2],
         [1, 1, 1, 1], "SAME", xr=(-9.0, -2.0))
    conv("same_min_combined", [1, 4, 5, 2], [2, 3, 2, 3], [1, 1, 1, 1],
         "SAME", xr=(-2.0, 5.0), mode="MIN_COMBINED")
    conv("filter_bigger_than_image", [1, 2, 2, 1], [3, 3, 1, 1],
         [1, 1, 1, 1], "SAME")

    def err(name, xshape, fshape, strides=(1, 1, 1, 1), padding="SAME",
            dilations=(1, 1, 1, 1)):
        def build():
            f = Feeds()
            x = f.levels(np.ones(xshape), "quint8", 0.0, 6.0, shape=None)
            w = f.levels(np.ones(fshape), "quint8", -1.0, 1.0, shape=None)
            return list(RAW.QuantizedConv2D(
                input=x[0], filter=w[0], min_input=x[1], max_input=x[2],
                min_filter=w[1], max_filter=w[2], strides=list(strides),
                padding=padding, dilations=list(dilations))), f.feed
        case("conv_error_" + name, build)
    err("depth_mismatch", [1, 4, 4, 3], [2, 2, 2, 1])
    err("dilations", [1, 4, 4, 2], [2, 2, 2, 1], dilations=(1, 2, 2, 1))
    err("unequal_strides", [1, 4, 4, 2], [2, 2, 2, 1], strides=(1, 1, 2, 1))
    err("batch_stride", [1, 4, 4, 2], [2, 2, 2, 1], strides=(2, 1, 1, 1))
    err("empty_batch", [0, 3, 3, 2], [2, 2, 2, 1])
    err("input_rank3", [4, 4, 2], [2, 2, 2, 1])
    err("filter_rank3", [1, 4, 4, 2], [2, 2, 2])


# --------------------------------------------------------------------------
# QuantizedBiasAdd, QuantizedRelu, QuantizedRelu6


def bias_add_cases():
    for qtype, mode in (("quint8", "MIN_FIRST"), ("qint8", "MIN_COMBINED")):
        for name, shape, xr, br in [
                ("matrix", [3, 4], (-2.0, 5.0), (-1.0, 1.0)),
                ("rank3", [2, 2, 3], (0.0, 6.0), (-0.5, 3.0)),
                ("bias_wider", [2, 5], (0.0, 1.0), (-40.0, 10.0))]:
            def build(shape=shape, xr=xr, br=br, qtype=qtype, mode=mode):
                f = Feeds()
                x = f.quantize(floats(shape, xr[0] - 1, xr[1] + 1, 12), *xr,
                               qtype=qtype, mode=mode)
                b = f.quantize(floats(shape[-1:], *br, 13), *br, qtype=qtype,
                               mode=mode)
                r = RAW.QuantizedBiasAdd(input=x[0], bias=b[0],
                                         min_input=x[1], max_input=x[2],
                                         min_bias=b[1], max_bias=b[2],
                                         out_type=tf.qint32)
                return outputs(r, mode=mode), f.feed
            case(f"bias_add_{qtype}_{name}", build)

    def levels_case(name, xr, br):
        def build():
            f = Feeds()
            x = f.levels(np.arange(12).reshape(2, 6) * 23, "quint8", *xr)
            b = f.levels([0, 1, 127, 128, 254, 255], "quint8", *br)
            return list(RAW.QuantizedBiasAdd(
                input=x[0], bias=b[0], min_input=x[1], max_input=x[2],
                min_bias=b[1], max_bias=b[2], out_type=tf.qint32)), f.feed
        case("bias_add_levels_" + name, build)
    levels_case("empty_input_range", (2.0, 2.0), (-1.0, 1.0))
    levels_case("min_above_max", (5.0, 1.0), (-1.0, 1.0))
    levels_case("negative_ranges", (-9.0, -3.0), (-0.75, -0.25))

    def err(name, xshape, bshape, min_shape=None):
        def build():
            f = Feeds()
            x = f.levels(np.ones(xshape), "quint8", 0.0, 6.0, shape=None)
            b = f.levels(np.ones(bshape), "quint8", 0.0, 6.0, shape=None)
            lo = x[1]
            if min_shape is not None:
                lo = f.value(np.zeros(min_shape, np.float32), shape=None)
            return list(RAW.QuantizedBiasAdd(
                input=x[0], bias=b[0], min_input=lo, max_input=x[2],
                min_bias=b[1], max_bias=b[2], out_type=tf.qint32)), f.feed
        case("bias_add_error_" + name, build)
    err("bias_length", [2, 3], [2])
    err("input_rank1", [3], [3])
    err("bias_rank2", [2, 3], [1, 3])
    err("min_rank1", [2, 3], [3], min_shape=[1])


def relu_cases():
    for op in ("QuantizedRelu", "QuantizedRelu6"):
        short = "relu" if op == "QuantizedRelu" else "relu6"
        for rname, (lo, hi) in {"sym": (-3.0, 3.0), "wide": (-10.0, 20.0),
                                "positive": (2.0, 10.0),
                                "negative": (-10.0, -1.0)}.items():
            def build(op=op, lo=lo, hi=hi):
                f = Feeds()
                x = f.quantize(floats([3, 5], lo - 2, hi + 2, 14), lo, hi)
                r = getattr(RAW, op)(features=x[0], min_features=x[1],
                                     max_features=x[2], out_type=tf.quint8)
                return outputs(r), f.feed
            case(f"{short}_quint8_{rname}", build)
        for rname, (lo, hi) in {"sym": (-8.0, 8.0),
                                "empty_range": (1.0, 1.0)}.items():
            def build32(op=op, lo=lo, hi=hi):
                f = Feeds()
                x = f.levels(int32_levels(7, 15, 2**30), "qint32", lo, hi)
                r = getattr(RAW, op)(features=x[0], min_features=x[1],
                                     max_features=x[2], out_type=tf.qint32)
                return list(r), f.feed
            case(f"{short}_qint32_{rname}", build32)

        def err(op=op):
            f = Feeds()
            x = f.levels([1, 2, 3], "quint8", 0.0, 6.0)
            lo = f.value(np.zeros([2], np.float32), shape=None)
            return list(getattr(RAW, op)(features=x[0], min_features=lo,
                                         max_features=x[2],
                                         out_type=tf.quint8)), f.feed
        case(f"{short}_error_min_rank1", err)


# --------------------------------------------------------------------------
# QuantizedAdd, QuantizedMul


def binary_cases():
    shapes = {"same": ([2, 3], [2, 3]), "scalar_x": ([], [2, 3]),
              "scalar_y": ([3, 2], [1]), "one_element": ([1, 1], [2, 2]),
              "row": ([2, 3], [3]), "column_quirk": ([2, 3], [2, 1]),
              "rank3_row": ([2, 2, 4], [4]), "vector": ([5], [5]),
              "empty": ([0, 3], [3])}
    ranges = {"sym": ((-1.0, 1.0), (-2.0, 3.0)),
              "skew": ((0.0, 6.0), (-20.0, -1.0))}
    for op in ("QuantizedAdd", "QuantizedMul"):
        short = op[len("Quantized"):].lower()
        for sname, (xs, ys) in shapes.items():
            for rname, (xr, yr) in ranges.items():
                if rname != "sym" and sname not in ("same", "scalar_x",
                                                    "row"):
                    continue

                def build(op=op, xs=xs, ys=ys, xr=xr, yr=yr):
                    f = Feeds()
                    x = f.quantize(floats(xs, xr[0] - 1, xr[1] + 1, 16), *xr)
                    y = f.quantize(floats(ys, yr[0] - 1, yr[1] + 1, 17), *yr)
                    z = getattr(RAW, op)(x=x[0], y=y[0], min_x=x[1],
                                         max_x=x[2], min_y=y[1], max_y=y[2],
                                         Toutput=tf.qint32)
                    return outputs(z), f.feed
                case(f"{short}_{sname}_{rname}", build,
                     note="column_quirk: TensorFlow repeats the smaller "
                     "operand along the flat elements" if sname ==
                     "column_quirk" else "")

        def err(name, xs, ys, xr=(0.0, 6.0), yr=(0.0, 6.0), min_shape=None,
                op=op):
            def build():
                f = Feeds()
                x = f.levels(np.ones(xs), "quint8", *xr, shape=None)
                y = f.levels(np.ones(ys), "quint8", *yr, shape=None)
                lo = x[1]
                if min_shape is not None:
                    lo = f.value(np.zeros(min_shape, np.float32), shape=None)
                return list(getattr(RAW, op)(x=x[0], y=y[0], min_x=lo,
                                             max_x=x[2], min_y=y[1],
                                             max_y=y[2])), f.feed
            case(f"{short}_error_{name}", build)
        err("incompatible", [2, 3], [2, 2])
        err("three_dim_broadcast", [2, 3, 4], [3, 1])
        err("equal_range", [2], [2], xr=(1.0, 1.0))
        err("min_above_max", [2], [2], yr=(3.0, -3.0))
        err("min_rank1", [2], [2], min_shape=[1])


# --------------------------------------------------------------------------
# QuantizedMaxPool, QuantizedAvgPool


def pool_cases():
    def pool(name, op, shape, ksize, strides, padding, qtype="quint8",
             mode="MIN_FIRST"):
        def build():
            f = Feeds()
            x = f.quantize(floats(shape, -1.0, 7.0, 18), 0.0, 6.0,
                           qtype=qtype, mode=mode)
            r = getattr(RAW, op)(input=x[0], min_input=x[1], max_input=x[2],
                                 ksize=ksize, strides=strides,
                                 padding=padding)
            return outputs(r, mode=mode), f.feed
        case(name, build)

    for op, short in (("QuantizedMaxPool", "max_pool"),
                      ("QuantizedAvgPool", "avg_pool")):
        for qtype, mode in (("quint8", "MIN_FIRST"),
                            ("qint8", "MIN_COMBINED")):
            pool(f"{short}_{qtype}_same", op, [1, 5, 5, 2], [1, 2, 2, 1],
                 [1, 1, 1, 1], "SAME", qtype, mode)
            pool(f"{short}_{qtype}_valid_stride2", op, [2, 6, 5, 3],
                 [1, 3, 2, 1], [1, 2, 2, 1], "VALID", qtype, mode)
        pool(f"{short}_same_stride3", op, [1, 7, 8, 1], [1, 3, 3, 1],
             [1, 3, 3, 1], "SAME")
        pool(f"{short}_empty", op, [0, 3, 3, 1], [1, 2, 2, 1],
             [1, 1, 1, 1], "SAME")
        pool(f"{short}_error_batch_window", op, [1, 3, 3, 1], [2, 2, 2, 1],
             [1, 1, 1, 1], "SAME")
    pool("max_pool_depth", "QuantizedMaxPool", [1, 2, 3, 4], [1, 1, 1, 2],
         [1, 1, 1, 2], "VALID")
    pool("max_pool_error_depth_and_space", "QuantizedMaxPool", [1, 2, 3, 4],
         [1, 2, 1, 2], [1, 1, 1, 2], "VALID")
    pool("max_pool_error_depth_stride", "QuantizedMaxPool", [1, 2, 3, 4],
         [1, 1, 1, 2], [1, 1, 1, 1], "VALID")
    pool("max_pool_error_depth_divide", "QuantizedMaxPool", [1, 2, 3, 3],
         [1, 1, 1, 2], [1, 1, 1, 2], "VALID")
    pool("avg_pool_error_depth", "QuantizedAvgPool", [1, 3, 3, 2],
         [1, 1, 1, 2], [1, 1, 1, 2], "VALID")


# --------------------------------------------------------------------------
# QuantizedConcat, QuantizedReshape


def concat_cases():
    def concat(name, qtype, shapes, ranges, axis):
        def build():
            f = Feeds()
            values, mins, maxes = [], [], []
            for i, (shape, (lo, hi)) in enumerate(zip(shapes, ranges)):
                if qtype == "quint8":
                    x = f.quantize(floats(shape, lo - 1, hi + 1, 20 + i), lo,
                                   hi)
                else:
                    x = f.levels(rng(20 + i).integers(
                        -2**31, 2**31 - 1, size=shape, endpoint=True),
                        "qint32", lo, hi)
                values.append(x[0])
                mins.append(x[1])
                maxes.append(x[2])
            c = RAW.QuantizedConcat(concat_dim=np.int32(axis), values=values,
                                    input_mins=mins, input_maxes=maxes)
            return outputs(c, dequantize=qtype == "quint8"), f.feed
        case("concat_" + name, build)

    concat("quint8_same_ranges", "quint8", [[2, 3], [2, 2]],
           [(0.0, 6.0), (0.0, 6.0)], 1)
    concat("quint8_ranges_axis0", "quint8", [[2, 3], [1, 3], [3, 3]],
           [(0.0, 6.0), (-2.0, 4.0), (-1.0, 8.0)], 0)
    concat("quint8_ranges_axis1", "quint8", [[2, 2, 2], [2, 1, 2]],
           [(-3.0, 3.0), (1.0, 2.0)], 1)
    concat("quint8_empty_input", "quint8", [[2, 0], [2, 2]],
           [(-1.0, 1.0), (0.0, 3.0)], 1)
    concat("qint32_ranges", "qint32", [[2, 2], [2, 3]],
           [(-100.0, 50.0), (-10.0, 10.0)], 1)
    concat("qint32_same_ranges", "qint32", [[1, 2], [2, 2]],
           [(-5.0, 5.0), (-5.0, 5.0)], 0)

    def err(name, shapes, axis):
        def build():
            f = Feeds()
            values = [f.levels(np.ones(s), "quint8", 0.0, 1.0, shape=None)
                      for s in shapes]
            # Quantized feeds of rank 0 are stored as [1]: make scalars in
            # the graph, of a shape only the run knows.
            values = [(tf.reshape(v[0], f.value(np.zeros([0], np.int32),
                                                shape=None)), v[1], v[2])
                      if s == [] else v for v, s in zip(values, shapes)]
            return list(RAW.QuantizedConcat(
                concat_dim=f.value(np.int32(axis)),
                values=[v[0] for v in values],
                input_mins=[v[1] for v in values],
                input_maxes=[v[2] for v in values])), f.feed
        case("concat_error_" + name, build)
    err("axis_out_of_range", [[2, 2], [2, 2]], 2)
    err("negative_axis", [[2, 2], [2, 2]], -1)
    err("rank_mismatch", [[2, 2], [2]], 0)
    err("dim_mismatch", [[2, 2], [3, 3]], 0)
    err("scalars", [[], []], 0)


def reshape_cases():
    for name, qtype, shape, new in [("quint8", "quint8", [2, 6], [3, -1]),
                                    ("qint32", "qint32", [4, 3], [2, 2, 3]),
                                    ("int64_shape", "quint8", [6],
                                     np.array([-1, 2], np.int64)),
                                    ("empty", "quint8", [0, 4], [4, 0])]:
        def build(qtype=qtype, shape=shape, new=new):
            f = Feeds()
            x = f.levels(rng(22).integers(0, 255, size=shape), qtype, -1.5,
                         2.5)
            r = RAW.QuantizedReshape(tensor=x[0],
                                     shape=np.asarray(new, np.asarray(
                                         new).dtype if isinstance(
                                         new, np.ndarray) else np.int32),
                                     input_min=x[1], input_max=x[2])
            return list(r), f.feed
        case("reshape_" + name, build)

    def err(name, shape, new):
        def build():
            f = Feeds()
            x = f.levels(np.ones(shape), "quint8", 0.0, 1.0)
            s = f.value(np.asarray(new, np.int32), shape=None)
            return list(RAW.QuantizedReshape(tensor=x[0], shape=s,
                                             input_min=x[1],
                                             input_max=x[2])), f.feed
        case("reshape_error_" + name, build)
    err("size", [2, 3], [4])
    err("two_unknown", [2, 3], [-1, -1])
    err("not_divisible", [2, 3], [-1, 4])


# --------------------------------------------------------------------------
# QuantizedBatchNormWithGlobalNormalization


def batch_norm_cases():
    def bn(name, shape, in_range, scale_after=True, eps=0.001, var_range=(
            0.5, 4.0), seed=24):
        def build():
            f = Feeds()
            depth = shape[-1]
            t = f.quantize(floats(shape, *in_range, seed), *in_range)
            vecs = []
            for k, (lo, hi) in enumerate([(-1.0, 2.0), var_range, (-0.5, 0.5),
                                          (0.5, 1.5)]):
                vecs.append(f.quantize(floats([depth], lo, hi, seed + 1 + k),
                                       lo, hi))
            (m, v, b, g) = vecs
            r = RAW.QuantizedBatchNormWithGlobalNormalization(
                t=t[0], t_min=t[1], t_max=t[2], m=m[0], m_min=m[1],
                m_max=m[2], v=v[0], v_min=v[1], v_max=v[2], beta=b[0],
                beta_min=b[1], beta_max=b[2], gamma=g[0], gamma_min=g[1],
                gamma_max=g[2], out_type=tf.qint32, variance_epsilon=eps,
                scale_after_normalization=scale_after)
            return outputs(r), f.feed
        case("batch_norm_" + name, build)
    bn("scaled", [1, 3, 2, 4], (0.0, 6.0))
    bn("not_scaled", [2, 2, 2, 3], (-3.0, 3.0), scale_after=False)
    bn("wide_input_wraps", [1, 2, 3, 2], (0.0, 2000.0), var_range=(0.0, 0.01),
       eps=1e-6)
    bn("empty", [0, 2, 2, 2], (0.0, 1.0))

    def err(name, tshape, mshape):
        def build():
            f = Feeds()
            t = f.levels(np.ones(tshape), "quint8", 0.0, 1.0, shape=None)
            m = f.levels(np.ones(mshape), "quint8", 0.0, 1.0, shape=None)
            return list(RAW.QuantizedBatchNormWithGlobalNormalization(
                t=t[0], t_min=t[1], t_max=t[2], m=m[0], m_min=m[1],
                m_max=m[2], v=m[0], v_min=m[1], v_max=m[2], beta=m[0],
                beta_min=m[1], beta_max=m[2], gamma=m[0], gamma_min=m[1],
                gamma_max=m[2], out_type=tf.qint32, variance_epsilon=0.001,
                scale_after_normalization=True)), f.feed
        case("batch_norm_error_" + name, build)
    err("input_rank3", [2, 2, 2], [2])
    err("mean_rank2", [1, 2, 2, 2], [1, 2])


# --------------------------------------------------------------------------
# QuantizeAndDequantize (v1, deprecated at GraphDef version 22)


def qdq_v1_cases():
    def qdq(name, x, attrs):
        def build():
            xi = tf.constant(np.asarray(x), name="x")
            # A stand-in the edit turns into QuantizeAndDequantize with the
            # range as attrs.
            tf.identity(xi, name="legacy")

            def edit(graph_def):
                for node in graph_def.node:
                    if node.name != "legacy":
                        continue
                    node.op = "QuantizeAndDequantize"
                    for key, value in attrs.items():
                        if isinstance(value, bool):
                            node.attr[key].b = value
                        elif isinstance(value, int):
                            node.attr[key].i = value
                        else:
                            node.attr[key].f = value
            return edit, ["legacy:0"]
        golden_lib.legacy_case(FAMILY, "qdq_v1_" + name, build, rtol=0.0,
                               atol=0.0)

    x = np.linspace(-3.3, 5.1, 23).astype(np.float32)
    qdq("float_own_range", x, {})
    qdq("double_given_range", x.astype(np.float64),
        {"range_given": True, "input_min": -2.0, "input_max": 2.0})
    qdq("unsigned_4_bits", np.abs(x),
        {"signed_input": False, "num_bits": 4})
    qdq("given_range_unsigned", x,
        {"signed_input": False, "range_given": True, "input_min": 0.0,
         "input_max": 4.0})
    qdq("error_min_above_max", x,
        {"range_given": True, "input_min": 3.0, "input_max": 1.0})
    qdq("error_num_bits", x, {"num_bits": 0})


def main():
    requantize_cases()
    range_cases()
    matmul_cases()
    conv_cases()
    bias_add_cases()
    relu_cases()
    binary_cases()
    pool_cases()
    concat_cases()
    reshape_cases()
    batch_norm_cases()
    qdq_v1_cases()
    golden_lib.write_op_defs(FAMILY, OP_NAMES,
                             type_attrs={"Requantize": "Tinput",
                                         "RequantizationRange": "Tinput",
                                         "QuantizeDownAndShrinkRange":
                                             "Tinput",
                                         "QuantizedMatMul": "T1",
                                         "QuantizedConv2D": "Tfilter",
                                         "QuantizedBiasAdd": "T1",
                                         "QuantizedRelu": "Tinput",
                                         "QuantizedRelu6": "Tinput",
                                         "QuantizedAdd": "T1",
                                         "QuantizedMul": "T1",
                                         "QuantizedBatchNormWithGlobalNormalization":
                                             "Tinput"})


if __name__ == "__main__":
    main()
