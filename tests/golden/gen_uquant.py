#!/usr/bin/env python3
"""Golden cases of the uquant family: TensorFlow's uniform quantized ops,
whose levels mean (level - zero_point) * scale with one scale and zero
point per tensor or per slice along `quantization_axis` --
UniformQuantize, UniformDequantize, UniformRequantize, UniformQuantizedAdd,
UniformQuantizedClipByValue, UniformQuantizedDot,
UniformQuantizedDotHybrid, UniformQuantizedConvolution and
UniformQuantizedConvolutionHybrid (every attr: strides, SAME, VALID and
EXPLICIT padding, lhs and rhs dilation, feature and batch groups, and
dimension_numbers, a serialized proto) -- and the per-channel requantization of qint32
NHWC tensors, RequantizePerChannel and RequantizationRangePerChannel
(oneDNN's kernels in TensorFlow: rounding half to even, saturating), and
QuantizedConcatV2 (oneDNN's kernel: 4-D inputs of one range are copied,
others requantized into a common range) -- and their OpDefs.

Cases cover every dtype TensorFlow 2.21's CPU kernels serve, per-tensor and
per-axis parameters on each axis, halves (quantization rounds
floor(x / scale + 0.5)), saturation, zero points at the ends of the range,
level ranges narrower than the type and wider (TensorFlow truncates the
clamped int32 to the type), qint32 levels beyond 2^24 (TensorFlow reads
them through float), a per-tensor dot long enough for its float
accumulation to round, multipliers at the ends of QuantizeMultiplier's
range, empty tensors, and bad attrs and inputs with TensorFlow's codes.
Every output must equal TensorFlow's bit for bit.

Left out because TensorFlow 2.21 aborts or reads out of bounds (dfx:
InvalidArgument, tests/kernels/uquant_test.cc): UniformQuantizedAdd with a
per-tensor lhs and a per-axis output (TensorFlow reads the output's scale
vector as a scalar: a failed CHECK), and with a per-tensor rhs whose rank
is too small for the output's axis or whose size along it exceeds the
output's scales.

Left out of the cases because TensorFlow aborts or reads out of bounds
(dfx: InvalidArgument): RequantizePerChannel of an empty input or of one
with more channels than scales, and with an empty requested_output_max.

Left out of the cases for the same reason: convolutions whose
dimension_numbers name a dimension twice, or whose rhs input feature
dimension is empty (TensorFlow divides by it).

Not in this family, left for later: QuantizedInstanceNorm,
QuantizedResizeBilinear.

    $(tools/tf_env) tests/golden/gen_uquant.py
"""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402

import golden_lib  # noqa: E402
from golden_lib import rng, tf1  # noqa: E402

FAMILY = "uquant"
RAW = tf.raw_ops

OP_NAMES = ["UniformQuantize", "UniformDequantize", "UniformRequantize",
            "UniformQuantizedAdd", "UniformQuantizedClipByValue",
            "UniformQuantizedDot", "UniformQuantizedDotHybrid",
            "RequantizePerChannel", "RequantizationRangePerChannel",
            "QuantizedConcatV2", "UniformQuantizedConvolution",
            "UniformQuantizedConvolutionHybrid"]

QTYPES = {
    "qint8": (tf.qint8, np.int8, -128, 127),
    "quint8": (tf.quint8, np.uint8, 0, 255),
    "qint32": (tf.qint32, np.int32, -2**31, 2**31 - 1),
}


def case(name, build, **kw):
    kw.setdefault("rtol", 0.0)
    kw.setdefault("atol", 0.0)
    golden_lib.case(FAMILY, name, build, **kw)


class Feeds:
    """Collects placeholders and their values for one case."""

    def __init__(self):
        self.feed = {}

    def value(self, v, dtype=None, known=True):
        v = np.asarray(v) if dtype is None else np.asarray(v, dtype)
        p = tf1.placeholder(tf.as_dtype(v.dtype),
                            shape=v.shape if known else None)
        self.feed[p] = v
        return p

    def levels(self, v, qtype, known=True):
        tf_type, storage, _, _ = QTYPES[qtype]
        v = np.asarray(v).astype(storage).view(tf_type.as_numpy_dtype)
        p = tf1.placeholder(tf_type, shape=v.shape if known else None)
        self.feed[p] = v
        return p

    def scales(self, s, known=True):
        return self.value(np.asarray(s, np.float32), known=known)

    def zps(self, z, known=True):
        return self.value(np.asarray(z, np.int32), known=known)


def floats(shape, lo, hi, seed):
    return rng(seed).uniform(lo, hi, size=shape).astype(np.float32)


def ints(shape, lo, hi, seed):
    return rng(seed).integers(lo, hi, size=shape, endpoint=True)


HALVES = np.array([-2.5, -1.5, -0.5, 0.5, 1.5, 2.5, 0.49999997, -0.49999997,
                   3.75, -3.75, 0.0, -0.0], np.float32)


# --------------------------------------------------------------------------
# UniformQuantize


def quantize(f, x, s, z, qtype, lo=None, hi=None, axis=-1, known=True):
    _, _, tlo, thi = QTYPES[qtype]
    return RAW.UniformQuantize(
        input=f.value(np.asarray(x, np.float32), known=known),
        scales=f.scales(s, known), zero_points=f.zps(z, known),
        Tout=QTYPES[qtype][0], quantization_axis=axis,
        quantization_min_val=tlo if lo is None else lo,
        quantization_max_val=thi if hi is None else hi)


def quantize_cases():
    x = np.concatenate([HALVES, floats([20], -40, 40, 1),
                        [1e9, -1e9, 3e38, -3e38]]).astype(np.float32)
    for qtype in QTYPES:
        _, _, tlo, thi = QTYPES[qtype]
        for sname, s in (("s1", 1.0), ("s0p5", 0.5), ("s0p3", 0.3),
                         ("s7", 7.0)):
            for zname, z in (("z0", 0), ("zlo", tlo), ("zhi", thi),
                             ("z3", 3)):
                if qtype == "qint32" and zname in ("zlo", "zhi") and \
                        sname != "s1":
                    continue

                def build(s=s, z=z, qtype=qtype):
                    f = Feeds()
                    return quantize(f, x, s, z, qtype), f.feed
                case(f"quantize_{qtype}_{sname}_{zname}", build)

    for qtype in QTYPES:
        for axis, shape in ((0, [3, 4]), (1, [3, 4]), (1, [2, 3, 2]),
                            (2, [2, 2, 3]), (0, [4])):
            n = shape[axis]

            def build(axis=axis, shape=shape, n=n, qtype=qtype):
                f = Feeds()
                _, _, tlo, thi = QTYPES[qtype]
                zs = np.linspace(tlo, thi, n).astype(np.int64)
                zs = np.clip(zs, -2**31, 2**31 - 1).astype(np.int32)
                return quantize(f, floats(shape, -300, 300, axis + n),
                                np.linspace(0.25, 3.0, n), zs, qtype,
                                axis=axis), f.feed
            case(f"quantize_{qtype}_axis{axis}_rank{len(shape)}", build)

    # Narrow ranges, a range wider than the type (the clamped int32 is
    # truncated to it), min above max, NaN and infinities, odd scales.
    specials = np.array([np.nan, np.inf, -np.inf, 200, -200, 300, 1000,
                         -1000, 127.5, -128.5, 0], np.float32)
    for name, qtype, lo, hi, s, z in (
            ("narrow_qint8", "qint8", -127, 127, 1.0, 0),
            ("wide_qint8", "qint8", -1000, 1000, 1.0, 0),
            ("wide_quint8", "quint8", -1000, 1000, 1.0, 0),
            ("swapped_qint8", "qint8", 10, -10, 1.0, 0),
            ("zero_scale", "qint8", -128, 127, 0.0, 3),
            ("negative_scale", "qint8", -128, 127, -0.5, 3),
            ("tiny_scale_qint32", "qint32", -2**31, 2**31 - 1, 1e-30, 0),
            ("zp_wraps_qint32", "qint32", -2**31, 2**31 - 1, 1.0, -5),
            ("subnormal_scale", "quint8", 0, 255, 1e-40, 0)):
        def build(qtype=qtype, lo=lo, hi=hi, s=s, z=z):
            f = Feeds()
            return quantize(f, specials, s, z, qtype, lo, hi), f.feed
        case(f"quantize_{name}", build)

    def big32():
        f = Feeds()
        return quantize(f, [2147483520.0, 2147483647.0, -2147483648.0,
                            16777217.0, 1.5e9, -1.5e9], 1.0, 0,
                        "qint32"), f.feed
    case("quantize_qint32_edges", big32)

    def empty(axis):
        def build():
            f = Feeds()
            n = [0, 3][axis] if axis >= 0 else None
            s = 1.0 if n is None else np.ones([n])
            z = 0 if n is None else np.zeros([n])
            return quantize(f, np.zeros([0, 3]), s, z, "qint8",
                            axis=axis), f.feed
        return build
    case("quantize_empty", empty(-1))
    case("quantize_empty_axis0", empty(0))
    case("quantize_empty_axis1", empty(1))

    # Errors: the attr, then the scales' and zero points' shapes.
    for name, x, s, z, axis in (
            ("axis_minus2", [1.0], 1.0, 0, -2),
            ("axis_out_of_range", [[1.0]], [1.0], [0], 2),
            ("scale_zp_mismatch", [[1.0, 2.0]], [1.0, 1.0], [0], 1),
            ("vector_scales_per_tensor", [1.0, 2.0], [1.0, 1.0], [0, 0], -1),
            ("scalar_scales_per_axis", [1.0, 2.0], 1.0, 0, 0),
            ("scales_size_mismatch", [[1.0, 2.0]], [1.0, 1.0, 1.0],
             [0, 0, 0], 1),
            ("scales_rank2", [[1.0, 2.0]], [[1.0, 1.0]], [[0, 0]], 1)):
        def build(x=x, s=s, z=z, axis=axis):
            f = Feeds()
            return quantize(f, x, s, z, "qint8", axis=axis,
                            known=False), f.feed
        case(f"quantize_error_{name}", build)


# --------------------------------------------------------------------------
# UniformDequantize


def dequantize(f, q, qtype, s, z, axis=-1, known=True):
    _, _, tlo, thi = QTYPES[qtype]
    return RAW.UniformDequantize(
        input=f.levels(q, qtype, known), scales=f.scales(s, known),
        zero_points=f.zps(z, known), Tout=tf.float32, quantization_axis=axis,
        quantization_min_val=tlo, quantization_max_val=thi)


def dequantize_cases():
    for qtype in QTYPES:
        _, _, tlo, thi = QTYPES[qtype]
        q = np.concatenate([[tlo, thi, 0, 1, -1 if tlo < 0 else 2],
                            ints([12], max(tlo, -1000), min(thi, 1000), 3)])
        for sname, s in (("s1", 1.0), ("s0p3", 0.3), ("s1e30", 1e30)):
            for zname, z in (("z0", 0), ("zlo", tlo), ("zhi", thi),
                             ("z7", 7)):
                def build(q=q, qtype=qtype, s=s, z=z):
                    f = Feeds()
                    return dequantize(f, q, qtype, s, z), f.feed
                case(f"dequantize_{qtype}_{sname}_{zname}", build)
        for axis, shape in ((0, [3, 4]), (1, [3, 4]), (1, [2, 3, 2])):
            n = shape[axis]

            def build(axis=axis, shape=shape, n=n, qtype=qtype):
                f = Feeds()
                _, _, tlo, thi = QTYPES[qtype]
                zs = np.linspace(max(tlo, -100), min(thi, 100), n)
                return dequantize(f, ints(shape, max(tlo, -10**6),
                                          min(thi, 10**6), n + axis),
                                  qtype, np.linspace(0.5, 2.5, n),
                                  zs.astype(np.int32), axis), f.feed
            case(f"dequantize_{qtype}_axis{axis}_rank{len(shape)}", build)

    def big32():
        f = Feeds()
        return dequantize(f, [2**31 - 1, 2**31 - 64, 16777217, 16777219,
                              -2**31, -2**31 + 1, 5], "qint32", 1.0,
                          -3), f.feed
    case("dequantize_qint32_beyond_2e24", big32)

    def empty():
        f = Feeds()
        return dequantize(f, np.zeros([2, 0]), "qint8", np.ones([2]),
                          np.zeros([2]), 0), f.feed
    case("dequantize_empty", empty)

    for name, s, z, axis in (("zero_scale", 0.0, 0, -1),
                             ("negative_scale_axis", [1.0, -1.0], [0, 0], 0),
                             ("nan_scale", np.nan, 0, -1),
                             ("axis_out_of_range", [1.0, 1.0], [0, 0], 1),
                             ("scale_zp_mismatch", [1.0, 1.0], 0, 0)):
        def build(s=s, z=z, axis=axis):
            f = Feeds()
            return dequantize(f, [1, 2], "qint8", s, z, axis,
                              known=False), f.feed
        case(f"dequantize_error_{name}", build)


# --------------------------------------------------------------------------
# UniformRequantize


def requantize(f, q, tin, isc, izp, osc, ozp, in_axis=-1, out_axis=-1,
               lo=-128, hi=127, known=True):
    _, _, tlo, thi = QTYPES[tin]
    return RAW.UniformRequantize(
        input=f.levels(q, tin, known), input_scales=f.scales(isc, known),
        input_zero_points=f.zps(izp, known),
        output_scales=f.scales(osc, known),
        output_zero_points=f.zps(ozp, known), Tout=tf.qint8,
        input_quantization_axis=in_axis, input_quantization_min_val=tlo,
        input_quantization_max_val=thi, output_quantization_axis=out_axis,
        output_quantization_min_val=lo, output_quantization_max_val=hi)


def requantize_cases():
    q8 = np.concatenate([[-128, 127, 0, 1, -1, 3, -3, 5, -5],
                         ints([11], -128, 127, 5)])
    q32 = np.concatenate([[-2**31, 2**31 - 1, 2**31 - 64, 16777217, 0, 1, -1,
                           3, -3, 1000, -1000], ints([9], -5000, 5000, 6)])
    for tin, q in (("qint8", q8), ("qint32", q32)):
        for name, isc, izp, osc, ozp in (
                ("same", 1.0, 0, 1.0, 0),
                ("half", 1.0, 0, 2.0, 0),
                ("halves_zp", 1.0, 3, 2.0, -7),
                ("x4", 1.0, 0, 0.25, 0),
                ("third", 0.1, -128, 0.3, 127),
                ("x1e9", 1e9, 0, 1.0, 0),
                ("tiny", 1e-20, 0, 1.0, 0),
                ("x2e9_edge", 2.0, 0, 1e-9, 0),
                ("ratio_0p999999999", 0.999999999, 0, 1.0, 0)):
            def build(q=q, tin=tin, isc=isc, izp=izp, osc=osc, ozp=ozp):
                f = Feeds()
                return requantize(f, q, tin, isc, izp, osc, ozp), f.feed
            case(f"requantize_{tin}_{name}", build)

    shape = [3, 4]
    q = ints(shape, -128, 127, 9)
    for name, isc, izp, osc, ozp, ia, oa in (
            ("axis0_to_tensor", [1.0, 2.0, 0.5], [0, 1, -1], 0.7, 4, 0, -1),
            ("tensor_to_axis1", 1.3, 2, [0.5, 1.0, 2.0, 4.0], [0, -3, 3, 127],
             -1, 1),
            ("axis1_to_axis1", [1.0, 2.0, 3.0, 4.0], [0, 1, 2, 3],
             [4.0, 3.0, 2.0, 1.0], [-128, 0, 0, 127], 1, 1)):
        def build(isc=isc, izp=izp, osc=osc, ozp=ozp, ia=ia, oa=oa):
            f = Feeds()
            return requantize(f, q, "qint8", isc, izp, osc, ozp, ia,
                              oa), f.feed
        case(f"requantize_{name}", build)

    def narrow():
        f = Feeds()
        return requantize(f, q8, "qint8", 1.0, 0, 0.5, 0, lo=-20,
                          hi=20), f.feed
    case("requantize_narrow_range", narrow)

    def wide():
        f = Feeds()
        return requantize(f, q32, "qint32", 1.0, 0, 1.0, 0, lo=-2**31,
                          hi=2**31 - 1), f.feed
    case("requantize_range_wider_than_qint8", wide)

    def empty():
        f = Feeds()
        return requantize(f, np.zeros([0, 2]), "qint32", [1.0, 1.0], [0, 0],
                          1.0, 0, 1, -1), f.feed
    case("requantize_empty", empty)

    for name, isc, izp, osc, ozp, ia, oa in (
            ("axes_differ", [1.0, 1.0], [0, 0], [1.0, 1.0], [0, 0], 0, 1),
            ("axis_minus2", 1.0, 0, 1.0, 0, -2, -1),
            ("output_axis_minus2", 1.0, 0, 1.0, 0, -1, -2),
            ("zero_output_scale", 1.0, 0, 0.0, 0, -1, -1),
            ("negative_input_scale", -1.0, 0, 1.0, 0, -1, -1),
            ("ratio_overflows", 3e38, 0, 1e-38, 0, -1, -1),
            ("output_scales_mismatch", 1.0, 0, [1.0, 1.0, 1.0], [0, 0, 0],
             -1, 0),
            ("zp_rank_mismatch", 1.0, [0], 1.0, 0, -1, -1)):
        def build(isc=isc, izp=izp, osc=osc, ozp=ozp, ia=ia, oa=oa):
            f = Feeds()
            return requantize(f, [[1, 2], [3, 4]], "qint8", isc, izp, osc,
                              ozp, ia, oa, known=False), f.feed
        case(f"requantize_error_{name}", build)


# --------------------------------------------------------------------------
# UniformQuantizedAdd

I32 = (-2**31, 2**31 - 1)


def add(f, lhs, rhs, ls, lz, rs, rz, os_, oz, la=-1, ra=-1, oa=-1,
        lo=I32[0], hi=I32[1], known=True):
    return RAW.UniformQuantizedAdd(
        lhs=f.levels(lhs, "qint32", known), rhs=f.levels(rhs, "qint32", known),
        lhs_scales=f.scales(ls, known), lhs_zero_points=f.zps(lz, known),
        rhs_scales=f.scales(rs, known), rhs_zero_points=f.zps(rz, known),
        output_scales=f.scales(os_, known),
        output_zero_points=f.zps(oz, known),
        lhs_quantization_axis=la, lhs_quantization_min_val=I32[0],
        lhs_quantization_max_val=I32[1], rhs_quantization_axis=ra,
        rhs_quantization_min_val=I32[0], rhs_quantization_max_val=I32[1],
        output_quantization_axis=oa, output_quantization_min_val=lo,
        output_quantization_max_val=hi)


def add_cases():
    a = ints([2, 3], -1000, 1000, 11)
    b = ints([2, 3], -1000, 1000, 12)
    for name, ls, lz, rs, rz, os_, oz in (
            ("same_scales", 1.0, 0, 1.0, 0, 1.0, 0),
            ("zero_points", 1.0, 5, 1.0, -7, 1.0, 3),
            ("rescaled", 0.5, 1, 0.25, -2, 0.3, 11),
            ("output_finer", 1.0, 0, 2.0, 0, 0.001, -100)):
        def build(ls=ls, lz=lz, rs=rs, rz=rz, os_=os_, oz=oz):
            f = Feeds()
            return add(f, a, b, ls, lz, rs, rz, os_, oz), f.feed
        case(f"add_{name}", build)

    def edges():
        f = Feeds()
        lhs = [2**31 - 1, 2**30, 2**31 - 1, -2**31, -2**31, 2**30 + 5, 100,
               16777217, -16777219]
        rhs = [1, 2**30, 0, -1, 0, 2**30, 100, 0, 0]
        return add(f, lhs, rhs, 1.0, 0, 1.0, 0, 1.0, 1), f.feed
    case("add_qint32_edges", edges)

    def clamp(lo, hi):
        def build():
            f = Feeds()
            return add(f, a, b, 1.0, 0, 1.0, 0, 1.0, 0, lo=lo,
                       hi=hi), f.feed
        return build
    case("add_clamped", clamp(-100, 250))
    case("add_min_above_max", clamp(10, -10))

    for name, lshape, rshape in (("broadcast_row", [2, 3], [3]),
                                 ("broadcast_col", [2, 1], [1, 3]),
                                 ("scalar_lhs", [], [2, 3]),
                                 ("scalar_rhs", [2, 2], []),
                                 ("rank3", [2, 1, 3], [2, 1])):
        def build(lshape=lshape, rshape=rshape):
            f = Feeds()
            return add(f, ints(lshape, -50, 50, 13), ints(rshape, -50, 50, 14),
                       0.5, 1, 1.5, -1, 0.75, 2), f.feed
        case(f"add_{name}", build)

    # Per-axis operands and outputs, in each combination TensorFlow can
    # run.
    a3 = ints([2, 3], -500, 500, 15)
    for name, lhs, rhs, ls, lz, rs, rz, os_, oz, la, ra, oa in (
            ("lhs_axis1_out_axis1", a3, a3[::-1], [0.5, 1.0, 2.0], [0, 1, 2],
             0.5, 3, [1.0, 0.5, 0.25], [5, 6, 7], 1, -1, 1),
            ("lhs_axis0_out_tensor", a3, a3, [0.5, 2.0], [3, -3], 1.0, 0,
             0.7, 9, 0, -1, -1),
            ("rhs_axis1_out_tensor", a3, a3, 1.0, 0, [0.3, 0.6, 0.9],
             [1, 2, 3], 0.4, 0, -1, 1, -1),
            ("both_axis0_out_axis0", a3, a3, [1.0, 2.0], [0, 0], [3.0, 4.0],
             [1, 1], [0.5, 0.25], [10, -10], 0, 0, 0),
            ("rhs_row_out_axis1", a3, a3[:1], [0.5, 1.0, 2.0], [0, 1, 2],
             [0.3, 0.6, 0.9], [1, 2, 3], [1.0, 0.5, 0.25], [5, 6, 7],
             1, 1, 1),
            # The rhs is per tensor and the output per axis: TensorFlow
            # requantizes the rhs along the output's axis of its own dims
            # (one slice here, which takes the first scale).
            ("rhs_tensor_broadcast_out_axis0", a3, a3[:1], [1.0, 2.0],
             [0, 0], 0.5, 1, [0.25, 4.0], [3, -3], 0, -1, 0)):
        def build(lhs=lhs, rhs=rhs, ls=ls, lz=lz, rs=rs, rz=rz, os_=os_,
                  oz=oz, la=la, ra=ra, oa=oa):
            f = Feeds()
            return add(f, lhs, rhs, ls, lz, rs, rz, os_, oz, la, ra,
                       oa), f.feed
        case(f"add_{name}", build)

    def empty():
        f = Feeds()
        return add(f, np.zeros([0, 3]), np.zeros([3]), 1.0, 0, 1.0, 0, 1.0,
                   0), f.feed
    case("add_empty", empty)

    for name, lhs, rhs, ls, os_, la, ra, oa in (
            ("shapes", [[1, 2, 3]], [[1, 2]], 1.0, 1.0, -1, -1, -1),
            ("axis_minus2", [1], [1], 1.0, 1.0, -2, -1, -1),
            ("lhs_axis_out_of_range", [1], [1], 1.0, 1.0, 1, -1, -1),
            ("axes_do_not_match", [[1, 2], [3, 4]], [[1, 2], [3, 4]],
             [1.0, 1.0], [1.0, 1.0], 0, -1, 1),
            ("zero_scale", [1], [1], 0.0, 1.0, -1, -1, -1),
            ("negative_output_scale", [1], [1], 1.0, -1.0, -1, -1, -1),
            ("multiplier_overflows", [1], [1], 3e38, 1e-38, -1, -1, -1)):
        def build(lhs=lhs, rhs=rhs, ls=ls, os_=os_, la=la, ra=ra, oa=oa):
            f = Feeds()
            n = len(lhs) if la == 0 or oa == 0 else 0
            lz = np.zeros([n], np.int32) if la == 0 else 0
            oz = np.zeros([len(os_)], np.int32) if oa >= 0 else 0
            return add(f, lhs, rhs, ls, lz, 1.0, 0, os_, oz, la, ra, oa,
                       known=False), f.feed
        case(f"add_error_{name}", build)


# --------------------------------------------------------------------------
# UniformQuantizedClipByValue


def clip(f, x, lo, hi, s, z, axis=-1, known=True):
    return RAW.UniformQuantizedClipByValue(
        operand=f.levels(x, "qint32", known), min=f.levels(lo, "qint32", known),
        max=f.levels(hi, "qint32", known), scales=f.scales(s, known),
        zero_points=f.zps(z, known), quantization_axis=axis,
        quantization_min_val=I32[0], quantization_max_val=I32[1])


def clip_cases():
    x = np.concatenate([[2**31 - 1, -2**31, 16777217, 16777218, 0],
                        ints([10], -100, 100, 21)])

    def tensor(lo, hi):
        def build():
            f = Feeds()
            return clip(f, x, lo, hi, 1.0, 0), f.feed
        return build
    case("clip_tensor", tensor(-50, 50))
    case("clip_tensor_large", tensor(16777217, 2**31 - 2))
    case("clip_min_above_max", tensor(10, -10))

    for axis in (0, 1):
        def build(axis=axis):
            f = Feeds()
            v = ints([3, 4], -100, 100, 22)
            n = v.shape[axis]
            return clip(f, v, np.arange(n) * -10, np.arange(n) * 10 + 5,
                        np.ones([n]), np.zeros([n]), axis), f.feed
        case(f"clip_axis{axis}", build)

    def empty():
        f = Feeds()
        return clip(f, np.zeros([0]), 0, 1, 1.0, 0), f.feed
    case("clip_empty", empty)

    for name, lo, hi, s, z, axis in (
            ("min_shape", [0, 0], 1, 1.0, 0, -1),
            ("max_shape", 0, [1], 1.0, 0, -1),
            ("axis_out_of_range", [0], [1], [1.0], [0], 1),
            ("scales_zp_mismatch", 0, 1, 1.0, [0], -1)):
        def build(lo=lo, hi=hi, s=s, z=z, axis=axis):
            f = Feeds()
            return clip(f, [1, 2], lo, hi, s, z, axis, known=False), f.feed
        case(f"clip_error_{name}", build)


# --------------------------------------------------------------------------
# UniformQuantizedDot and UniformQuantizedDotHybrid


def dot(f, lhs, rhs, ls, lz, rs, rz, os_, oz, la=-1, ra=-1, oa=-1,
        lo=I32[0], hi=I32[1], known=True):
    return RAW.UniformQuantizedDot(
        lhs=f.levels(lhs, "qint8", known), rhs=f.levels(rhs, "qint8", known),
        lhs_scales=f.scales(ls, known), lhs_zero_points=f.zps(lz, known),
        rhs_scales=f.scales(rs, known), rhs_zero_points=f.zps(rz, known),
        output_scales=f.scales(os_, known),
        output_zero_points=f.zps(oz, known), Tout=tf.qint32,
        lhs_quantization_axis=la, lhs_quantization_min_val=-128,
        lhs_quantization_max_val=127, rhs_quantization_axis=ra,
        rhs_quantization_min_val=-128, rhs_quantization_max_val=127,
        output_quantization_axis=oa, output_quantization_min_val=lo,
        output_quantization_max_val=hi)


def dot_cases():
    a = ints([3, 5], -128, 127, 31)
    b = ints([5, 4], -128, 127, 32)
    for name, ls, lz, rs, rz, os_, oz in (
            ("unit", 1.0, 0, 1.0, 0, 1.0, 0),
            ("zero_points", 0.5, -128, 0.25, 127, 0.125, 1000),
            ("rescaled", 0.02, 3, 0.03, -5, 0.001, -7)):
        def build(ls=ls, lz=lz, rs=rs, rz=rz, os_=os_, oz=oz):
            f = Feeds()
            return dot(f, a, b, ls, lz, rs, rz, os_, oz), f.feed
        case(f"dot_tensor_{name}", build)

    def per_channel(out_per_channel):
        def build():
            f = Feeds()
            os_ = [0.1, 0.2, 0.3, 0.4] if out_per_channel else 0.05
            oz = [1, -2, 3, -4] if out_per_channel else 9
            oa = 1 if out_per_channel else -1
            return dot(f, a, b, 0.5, 2, [0.1, 0.5, 1.0, 2.0], [0, 1, -1, 127],
                       os_, oz, ra=1, oa=oa), f.feed
        return build
    case("dot_rhs_channel_out_channel", per_channel(True))
    case("dot_rhs_channel_out_tensor", per_channel(False))

    # Per tensor, TensorFlow adds the products in float: beyond 2^24 the
    # sum rounds (it differs from the exact sum here).
    def long_sum():
        f = Feeds()
        k = 2048
        lhs = np.full([1, k], 127)
        rhs = np.array([[127 if i % 3 else 121] for i in range(k)])
        return dot(f, lhs, rhs, 1.0, 0, 1.0, 0, 1.0, 0), f.feed
    case("dot_tensor_float_accumulation", long_sum)

    def long_sum_channel():
        f = Feeds()
        k = 2048
        lhs = np.full([1, k], 127)
        rhs = np.array([[127 if i % 3 else 121] for i in range(k)])
        return dot(f, lhs, rhs, 1.0, 0, [1.0], [0], 1.0, 0, ra=1), f.feed
    case("dot_channel_int_accumulation", long_sum_channel)

    def narrow():
        f = Feeds()
        return dot(f, a, b, 1.0, 0, 1.0, 0, 100.0, 0, lo=-128,
                   hi=127), f.feed
    case("dot_narrow_output", narrow)

    for name, ls, rs, os_ in (("huge_multiplier", 1e20, 1e20, 1e-20),
                              ("tiny_multiplier", 1e-20, 1e-20, 1.0)):
        def build(ls=ls, rs=rs, os_=os_):
            f = Feeds()
            return dot(f, a, b, ls, 0, rs, 0, os_, 0), f.feed
        case(f"dot_{name}", build)

    for name, lshape, rshape in (("empty_rows", [0, 3], [3, 2]),
                                 ("empty_depth", [2, 0], [0, 3])):
        def build(lshape=lshape, rshape=rshape):
            f = Feeds()
            return dot(f, np.zeros(lshape), np.zeros(rshape), 1.0, 0, 1.0, 5,
                       1.0, 7), f.feed
        case(f"dot_{name}", build)

    for name, lhs, rhs, ls, lz, rs, rz, os_, oz, la, ra, oa in (
            ("lhs_axis0", [[1]], [[1]], 1.0, 0, 1.0, 0, 1.0, 0, 0, -1, -1),
            ("rhs_axis0", [[1]], [[1]], 1.0, 0, 1.0, 0, 1.0, 0, -1, 0, -1),
            ("output_axis0", [[1]], [[1]], 1.0, 0, 1.0, 0, 1.0, 0, -1, -1, 0),
            ("inner_dims", [[1, 2]], [[1, 2]], 1.0, 0, 1.0, 0, 1.0, 0,
             -1, -1, -1),
            ("lhs_rank1", [1], [[1]], 1.0, 0, 1.0, 0, 1.0, 0, -1, -1, -1),
            ("lhs_vector_scales", [[1]], [[1]], [1.0], [0], 1.0, 0, 1.0, 0,
             -1, -1, -1),
            ("rhs_tensor_out_channel", [[1]], [[1]], 1.0, 0, 1.0, 0, [1.0],
             [0], -1, -1, 1),
            ("rhs_scales_size", [[1]], [[1, 2]], 1.0, 0, [1.0], [0], 1.0, 0,
             -1, 1, -1),
            ("zero_lhs_scale", [[1]], [[1]], 0.0, 0, 1.0, 0, 1.0, 0,
             -1, -1, -1),
            ("negative_rhs_scale", [[1]], [[1]], 1.0, 0, -1.0, 0, 1.0, 0,
             -1, -1, -1),
            ("multiplier_overflows", [[1]], [[1]], 3e38, 0, 3e38, 0, 1.0, 0,
             -1, -1, -1)):
        def build(lhs=lhs, rhs=rhs, ls=ls, lz=lz, rs=rs, rz=rz, os_=os_,
                  oz=oz, la=la, ra=ra, oa=oa):
            f = Feeds()
            return dot(f, lhs, rhs, ls, lz, rs, rz, os_, oz, la, ra, oa,
                       known=False), f.feed
        case(f"dot_error_{name}", build)


def hybrid(f, lhs, rhs, rs, rz, ra=-1, known=True):
    return RAW.UniformQuantizedDotHybrid(
        lhs=f.value(np.asarray(lhs, np.float32), known=known),
        rhs=f.levels(rhs, "qint8", known), rhs_scales=f.scales(rs, known),
        rhs_zero_points=f.zps(rz, known), Tout=tf.float32,
        rhs_quantization_axis=ra, rhs_quantization_min_val=-128,
        rhs_quantization_max_val=127)


def hybrid_cases():
    lhs = np.stack([floats([6], -3, 5, 41), floats([6], 0.5, 2, 42),
                    floats([6], -7, -1, 43), np.zeros([6]),
                    [1e-30, 0, 0, 0, 0, 0], [3e38, -3e38, 1, 0, 2, 3],
                    HALVES[:6]]).astype(np.float32)
    b = ints([6, 4], -128, 127, 44)
    for name, rs, rz, ra in (("tensor", 0.05, 0, -1),
                             ("tensor_zp", 0.5, -9, -1),
                             ("channel", [0.1, 0.2, 0.3, 0.4],
                              [0, 1, -128, 127], 1)):
        def build(rs=rs, rz=rz, ra=ra):
            f = Feeds()
            return hybrid(f, lhs, b, rs, rz, ra), f.feed
        case(f"hybrid_{name}", build)

    def empty():
        f = Feeds()
        return hybrid(f, np.zeros([3, 0]), np.zeros([0, 2]), 1.0, 0), f.feed
    case("hybrid_empty_depth", empty)

    for name, lhs, rhs, rs, rz, ra in (
            ("rhs_axis0", [[1.0]], [[1]], 1.0, 0, 0),
            ("inner_dims", [[1.0, 2.0]], [[1]], 1.0, 0, -1),
            ("rhs_rank3", [[1.0]], [[[1]]], 1.0, 0, -1),
            ("scales_size", [[1.0]], [[1, 2]], [1.0], [0], 1),
            ("zero_scale", [[1.0]], [[1]], 0.0, 0, -1)):
        def build(lhs=lhs, rhs=rhs, rs=rs, rz=rz, ra=ra):
            f = Feeds()
            return hybrid(f, lhs, rhs, rs, rz, ra, known=False), f.feed
        case(f"hybrid_error_{name}", build)


# --------------------------------------------------------------------------
# RequantizePerChannel and RequantizationRangePerChannel

PER_CHANNEL_LEVELS = np.array(
    [0, 1, -1, 2**31 - 1, -2**31, 2**30, 3 * 2**23, 5 * 2**23, -3 * 2**23,
     16777217 * 64, 100, -100, 7 * 2**22, -7 * 2**22, 9 * 2**21, 2**29,
     -2**29, 12345678, -87654321, 1000000, 2**31 - 2, -2**31 + 1, 64, -64],
    np.int32).reshape([2, 2, 2, 3])


def rpc(f, x, mins, maxs, rmin, rmax, out_type, known=True):
    return RAW.RequantizePerChannel(
        input=f.levels(x, "qint32", known),
        input_min=f.value(np.asarray(mins, np.float32), known=known),
        input_max=f.value(np.asarray(maxs, np.float32), known=known),
        requested_output_min=f.value(np.float32(rmin), known=known),
        requested_output_max=f.value(np.float32(rmax), known=known),
        out_type=QTYPES[out_type][0])


def rrpc(f, x, mins, maxs, clip, known=True):
    return RAW.RequantizationRangePerChannel(
        input=f.levels(x, "qint32", known),
        input_min=f.value(np.asarray(mins, np.float32), known=known),
        input_max=f.value(np.asarray(maxs, np.float32), known=known),
        clip_value_max=clip)


def per_channel_cases():
    x = PER_CHANNEL_LEVELS
    for out_type in ("qint8", "quint8"):
        for name, mins, maxs, rmin, rmax in (
                ("unit", [-1, -2, -4], [1, 2, 4], -1.0, 1.0),
                ("asymmetric", [-0.5, 0, -3], [2, 1, 1], -6.0, 2.5),
                ("narrow_request", [-1, -1, -1], [1, 1, 1], -1e-3, 1e-3),
                ("saturating", [-1e9, -1, -1], [1e9, 1, 1], -1.0, 1.0)):
            def build(mins=mins, maxs=maxs, rmin=rmin, rmax=rmax,
                      out_type=out_type):
                f = Feeds()
                return list(rpc(f, x, mins, maxs, rmin, rmax,
                                out_type)), f.feed
            case(f"requantize_per_channel_{out_type}_{name}", build)

    # Products exactly halfway between two levels round to even.
    def halves():
        f = Feeds()
        s = np.float32(127.0) * (np.float32(2048.0) / np.float32(255.0) /
                                 np.float32(2.0**31))
        v = [int(round((k + 0.5) / float(s))) for k in range(-6, 6)]
        return list(rpc(f, np.array(v).reshape([1, 1, 12, 1]), [-2048.0],
                        [2048.0], -255.0, 255.0, "qint8")), f.feed
    case("requantize_per_channel_halves", halves)

    def fewer_channels():
        f = Feeds()
        return list(rpc(f, x[..., :2], [-1, -2, -4], [1, 2, 4], -1.0, 1.0,
                        "qint8")), f.feed
    case("requantize_per_channel_fewer_channels_than_scales",
         fewer_channels)

    def zero_request():
        f = Feeds()
        return list(rpc(f, x, [-1, -2, -4], [1, 2, 4], 0.0, 0.0,
                        "quint8")), f.feed
    case("requantize_per_channel_zero_request", zero_request)

    for name, xv, mins, maxs, rmin, out_type in (
            ("rank3", x[0], [-1, -1, -1], [1, 1, 1], -1.0, "qint8"),
            ("max_size", x, [-1, -1, -1], [1, 1], -1.0, "qint8"),
            ("request_min_not_scalar", x, [-1, -1, -1], [1, 1, 1],
             [-1.0, 0.0], "qint8"),
            ("qint8_request_min_zero", x, [-1, -1, -1], [1, 1, 1], 0.0,
             "qint8")):
        def build(xv=xv, mins=mins, maxs=maxs, rmin=rmin, out_type=out_type):
            f = Feeds()
            return list(rpc(f, xv, mins, maxs, rmin, 1.0, out_type,
                            known=False)), f.feed
        case(f"requantize_per_channel_error_{name}", build)

    for name, xv, mins, maxs, clip in (
            ("mixed", x, [-1, -2, -4], [1, 2, 4], 6.0),
            ("clipped", x, [-1, -2, -4], [1, 2, 4], 0.5),
            ("non_negative", np.abs(x) % 2**30, [-1, -2, -4], [1, 2, 4],
             100.0),
            ("int32_min_channel", np.full([1, 1, 2, 3], -2**31),
             [-1, -2, -4], [1, 2, 4], 100.0),
            ("all_zero", np.zeros([1, 2, 1, 3]), [-1, -2, -4], [1, 2, 4],
             6.0),
            ("negative_range", x, [-3, 0.5, -0.25], [-1, -8, 0.125], 6.0)):
        def build(xv=xv, mins=mins, maxs=maxs, clip=clip):
            f = Feeds()
            return list(rrpc(f, xv, mins, maxs, clip)), f.feed
        case(f"requantization_range_per_channel_{name}", build)

    # TensorFlow reads a channel's extreme levels through float (from
    # 2^31 - 64 up they become INT32_MIN) and INT32_MIN's magnitude wins.
    for name, levels in (("near_int32_max", [2**31 - 2, 2**31 - 2]),
                         ("int32_min_wins", [-25165824, 2**31 - 2]),
                         ("below_2e31", [2**31 - 129, -100]),
                         ("beyond_2e24", [16777219, -3])):
        def build(levels=levels):
            f = Feeds()
            return list(rrpc(f, np.array(levels).reshape([1, 1, 2, 1]),
                             [-1.0], [1.0], 1e9)), f.feed
        case(f"requantization_range_per_channel_{name}", build)

    for name, xv, mins, maxs in (
            ("min_size", x, [-1, -1], [1, 1, 1]),
            ("min_scalar", x, -1.0, [1, 1, 1]),
            ("min_rank2", x, [[-1, -1, -1]], [1, 1, 1]),
            ("empty", np.zeros([0, 1, 1, 3]), [-1, -1, -1], [1, 1, 1]),
            ("rank2", x.reshape([8, 3]), [-1, -1, -1], [1, 1, 1]),
            ("channels", x.reshape([2, 2, 3, 2]), [-1, -1, -1], [1, 1, 1])):
        def build(xv=xv, mins=mins, maxs=maxs):
            f = Feeds()
            return list(rrpc(f, xv, mins, maxs, 6.0, known=False)), f.feed
        case(f"requantization_range_per_channel_error_{name}", build)


# --------------------------------------------------------------------------
# QuantizedConcatV2 (not in tf.raw_ops: built with _apply_op_helper)


def qconcat(f, values, qtype, axis, mins, maxs, known=True, axis_dtype=None):
    from tensorflow.python.framework import op_def_library
    vals = [f.levels(v, qtype, known) for v in values]
    ax = f.value(np.asarray(axis, axis_dtype or np.int32), known=known)
    op = op_def_library._apply_op_helper(
        "QuantizedConcatV2", values=vals, axis=ax,
        input_mins=[f.value(np.float32(m), known=known) for m in mins],
        input_maxes=[f.value(np.float32(m), known=known) for m in maxs])[2]
    return list(op.outputs)


def concat_cases():
    a4 = ints([1, 2, 2, 2], 0, 120, 51)
    b4 = ints([1, 2, 2, 3], 0, 120, 52)
    a2 = ints([2, 4], 0, 120, 53)
    b2 = ints([3, 4], 0, 120, 54)
    for qtype in ("qint8", "quint8"):
        for name, values, axis, mins, maxs in (
                ("rank4_same_range", [a4, b4], 3, [-1, -1], [2, 2]),
                ("rank4_same_range_neg_axis", [a4, b4], -1, [0, 0], [2, 2]),
                ("rank4_within_eps", [a4, b4], 3, [-1, -1.0000005],
                 [2, 2.0000005]),
                ("rank4_ranges_differ", [a4, b4], 3, [-1, 0.5], [2, 3]),
                ("rank2_same_range", [a2, b2], 0, [-1, -1], [2, 2]),
                ("rank2_ranges_differ", [a2, b2], 0, [-3, 0], [1, 6]),
                ("rank3_three_inputs", [a2[None], b2[None], a2[None]], 1,
                 [-2, -1, 0], [2, 1, 4]),
                ("rank2_empty_input", [a2, np.zeros([0, 4]), b2], 0,
                 [-1, -5, 0.5], [1, 5, 2]),
                ("rank4_all_empty", [np.zeros([1, 0, 2, 2]),
                                     np.zeros([1, 0, 2, 2])], 1, [0, 0],
                 [1, 1]),
                ("rank2_output_range", [a2, b2], 1 - 1, [-4, -4], [4, 4])):
            def build(values=values, axis=axis, mins=mins, maxs=maxs,
                      qtype=qtype):
                f = Feeds()
                return qconcat(f, values, qtype, axis, mins, maxs), f.feed
            case(f"concat_v2_{qtype}_{name}", build)

    def int64_axis():
        f = Feeds()
        return qconcat(f, [a4, a4], "quint8", 1, [0, 0], [1, 1],
                       axis_dtype=np.int64), f.feed
    case("concat_v2_int64_axis", int64_axis)

    for name, values, axis in (("axis_out_of_range", [a2, b2], 2),
                               ("ranks_differ", [a2, a4], 0),
                               ("dims_differ", [a2, b2], 1),
                               ("axis_not_scalar", [a2, b2], [0])):
        def build(values=values, axis=axis):
            f = Feeds()
            return qconcat(f, values, "quint8", axis, [0, 0], [1, 1],
                           known=False), f.feed
        case(f"concat_v2_error_{name}", build)


# --------------------------------------------------------------------------
# UniformQuantizedConvolution and UniformQuantizedConvolutionHybrid


def dimension_numbers(lhs, rhs, out):
    """(batch, feature, spatial...) of lhs, (out feature, in feature,
    spatial...) of rhs, (batch, feature, spatial...) of the output, as the
    serialized proto the attr holds."""
    from tensorflow.core.util.quantization import uniform_quant_ops_attr_pb2
    d = uniform_quant_ops_attr_pb2.UniformQuantizedConvolutionDimensionNumbersAttr()
    d.input_batch_dimension, d.input_feature_dimension = lhs[:2]
    d.input_spatial_dimensions.extend(lhs[2:])
    d.kernel_output_feature_dimension, d.kernel_input_feature_dimension = \
        rhs[:2]
    d.kernel_spatial_dimensions.extend(rhs[2:])
    d.output_batch_dimension, d.output_feature_dimension = out[:2]
    d.output_spatial_dimensions.extend(out[2:])
    return d.SerializeToString()


NHWC = dimension_numbers([0, 3, 1, 2], [3, 2, 0, 1], [0, 3, 1, 2])


def conv(f, lhs, rhs, ls=0.5, lz=1, rs=0.25, rz=-2, os_=0.1, oz=3, ra=-1,
         oa=-1, lo=I32[0], hi=I32[1], known=True, **attrs):
    attrs.setdefault("padding", "VALID")
    return RAW.UniformQuantizedConvolution(
        lhs=f.levels(lhs, "qint8", known), rhs=f.levels(rhs, "qint8", known),
        lhs_scales=f.scales(ls, known), lhs_zero_points=f.zps(lz, known),
        rhs_scales=f.scales(rs, known), rhs_zero_points=f.zps(rz, known),
        output_scales=f.scales(os_, known),
        output_zero_points=f.zps(oz, known), Tout=tf.qint32,
        lhs_quantization_min_val=-128, lhs_quantization_max_val=127,
        rhs_quantization_axis=ra, rhs_quantization_min_val=-128,
        rhs_quantization_max_val=127, output_quantization_axis=oa,
        output_quantization_min_val=lo, output_quantization_max_val=hi,
        **attrs)


def hconv(f, lhs, rhs, rs=0.25, rz=-2, ra=-1, known=True, **attrs):
    attrs.setdefault("padding", "VALID")
    return RAW.UniformQuantizedConvolutionHybrid(
        lhs=f.value(np.asarray(lhs, np.float32), known=known),
        rhs=f.levels(rhs, "qint8", known), rhs_scales=f.scales(rs, known),
        rhs_zero_points=f.zps(rz, known), Tout=tf.float32,
        rhs_quantization_axis=ra, rhs_quantization_min_val=-128,
        rhs_quantization_max_val=127, **attrs)


def conv_cases():
    lhs = ints([2, 3, 5, 5], -128, 127, 61)
    rhs = ints([4, 3, 2, 2], -128, 127, 62)
    for name, attrs in (
            ("valid", {}),
            ("same", {"padding": "SAME"}),
            ("same_strided", {"padding": "SAME", "window_strides": [2, 3]}),
            ("explicit", {"padding": "EXPLICIT",
                          "explicit_padding": [1, 0, 2, 1]}),
            ("lhs_dilation", {"lhs_dilation": [2, 1], "padding": "SAME"}),
            ("rhs_dilation", {"rhs_dilation": [1, 2]}),
            ("both_dilations_strided", {"lhs_dilation": [2, 2],
                                        "rhs_dilation": [2, 1],
                                        "window_strides": [2, 1],
                                        "padding": "EXPLICIT",
                                        "explicit_padding": [0, 1, 1, 0]})):
        def build(attrs=attrs):
            f = Feeds()
            return conv(f, lhs, rhs, **attrs), f.feed
        case(f"conv_{name}", build)

    def groups(kind):
        def build():
            f = Feeds()
            if kind == "feature":
                return conv(f, ints([1, 6, 4, 4], -128, 127, 63),
                            ints([6, 2, 2, 2], -128, 127, 64),
                            feature_group_count=3), f.feed
            return conv(f, ints([4, 2, 4, 3], -128, 127, 65),
                        ints([6, 2, 2, 2], -128, 127, 66),
                        batch_group_count=2), f.feed
        return build
    case("conv_feature_groups", groups("feature"))
    case("conv_batch_groups", groups("batch"))

    def nhwc(ra, oa):
        def build():
            f = Feeds()
            rs = [0.1, 0.2, 0.3, 0.4] if ra >= 0 else 0.25
            rz = [0, 1, -1, 127] if ra >= 0 else -2
            os_ = [0.05, 0.1, 0.2, 0.3] if oa >= 0 else 0.1
            oz = [1, 2, 3, -128] if oa >= 0 else 3
            return conv(f, ints([2, 4, 5, 3], -128, 127, 67),
                        ints([2, 3, 3, 4], -128, 127, 68), rs=rs, rz=rz,
                        os_=os_, oz=oz, ra=ra, oa=oa, padding="SAME",
                        dimension_numbers=NHWC), f.feed
        return build
    case("conv_nhwc", nhwc(-1, -1))
    case("conv_nhwc_rhs_channel", nhwc(3, -1))
    case("conv_nhwc_rhs_and_output_channel", nhwc(3, 3))

    def channel_default_dims():
        f = Feeds()
        return conv(f, lhs, rhs, rs=[0.1, 0.2, 0.3, 0.4], rz=[0, 1, 2, 3],
                    os_=[0.3, 0.2, 0.1, 0.05], oz=[0, -1, 5, 7], ra=0, oa=1,
                    lo=-128, hi=127), f.feed
    case("conv_channel_narrow_output", channel_default_dims)

    def rank(r):
        def build():
            f = Feeds()
            if r == 3:
                return conv(f, ints([2, 2, 7], -128, 127, 69),
                            ints([3, 2, 3], -128, 127, 70), padding="SAME",
                            window_strides=[2]), f.feed
            return conv(f, ints([1, 2, 3, 3, 3], -128, 127, 71),
                        ints([2, 2, 2, 2, 2], -128, 127, 72),
                        padding="SAME"), f.feed
        return build
    case("conv_rank3", rank(3))
    case("conv_rank5", rank(5))

    def empty_batch():
        f = Feeds()
        return conv(f, np.zeros([0, 3, 5, 5]), rhs), f.feed
    case("conv_empty_batch", empty_batch)

    for name, attrs, kw in (
            ("hybrid_valid", {}, {}),
            ("hybrid_same_strided", {"padding": "SAME",
                                     "window_strides": [2, 2]}, {}),
            ("hybrid_channel_nhwc", {"padding": "SAME",
                                     "dimension_numbers": NHWC},
             {"rs": [0.1, 0.2], "rz": [3, -3], "ra": 3}),
            ("hybrid_batch_groups", {"batch_group_count": 2}, {}),
            ("hybrid_dilated", {"lhs_dilation": [2, 1],
                                "rhs_dilation": [1, 2],
                                "padding": "EXPLICIT",
                                "explicit_padding": [1, 1, 0, 2]}, {})):
        def build(name=name, attrs=attrs, kw=kw):
            f = Feeds()
            if "nhwc" in name:
                x = floats([2, 4, 4, 3], -2, 5, 73)
                w = ints([2, 2, 3, 2], -128, 127, 74)
            else:
                x = floats([2, 3, 4, 4], -2, 5, 75)
                x[1] = np.abs(x[1])
                w = ints([4, 3, 2, 2], -128, 127, 76)
            return hconv(f, x, w, **kw, **attrs), f.feed
        case(f"conv_{name}", build)

    for name, kw in (
            ("bad_padding", {"padding": "FULL"}),
            ("explicit_with_valid", {"explicit_padding": [0, 0, 0, 0]}),
            ("explicit_size", {"padding": "EXPLICIT",
                               "explicit_padding": [1, 1]}),
            ("explicit_negative", {"padding": "EXPLICIT",
                                   "explicit_padding": [1, -1, 0, 0]}),
            ("bad_dimension_numbers", {"dimension_numbers": b"\xff\xff"}),
            ("dimension_out_of_range",
             {"dimension_numbers": dimension_numbers([0, 4, 2, 3],
                                                     [0, 1, 2, 3],
                                                     [0, 1, 2, 3])}),
            ("spatial_size", {"dimension_numbers": dimension_numbers(
                [0, 1, 2], [0, 1, 2, 3], [0, 1, 2, 3])}),
            ("strides_size", {"window_strides": [1]}),
            ("zero_stride", {"window_strides": [1, 0]}),
            ("zero_dilation", {"rhs_dilation": [0, 1]}),
            ("feature_groups", {"feature_group_count": 2}),
            ("batch_groups_zero", {"batch_group_count": 0}),
            ("batch_groups", {"batch_group_count": 3}),
            ("rhs_axis", {"ra": 1, "rs": [1.0, 1.0, 1.0],
                          "rz": [0, 0, 0]}),
            ("output_axis", {"oa": 0, "os_": [1.0, 1.0], "oz": [0, 0],
                             "rs": [1.0] * 4, "rz": [0] * 4, "ra": 0}),
            ("rhs_tensor_output_channel", {"oa": 1, "os_": [1.0] * 4,
                                           "oz": [0] * 4}),
            ("lhs_vector_scales", {"ls": [0.5], "lz": [1]}),
            ("zero_rhs_scale", {"rs": 0.0}),
            ("kernel_larger_than_input", {"rhs": np.zeros([4, 3, 7, 2])}),
            ("ranks_differ", {"rhs": np.zeros([4, 3, 2])})):
        def build(kw=kw):
            f = Feeds()
            kw = dict(kw)
            w = kw.pop("rhs", rhs)
            return conv(f, lhs, w, known=False, **kw), f.feed
        case(f"conv_error_{name}", build)

    def lhs_axis():
        f = Feeds()
        return RAW.UniformQuantizedConvolution(
            lhs=f.levels(lhs, "qint8", False), rhs=f.levels(rhs, "qint8", False),
            lhs_scales=f.scales([1.0, 1.0], False),
            lhs_zero_points=f.zps([0, 0], False),
            rhs_scales=f.scales(1.0, False), rhs_zero_points=f.zps(0, False),
            output_scales=f.scales(1.0, False),
            output_zero_points=f.zps(0, False), Tout=tf.qint32,
            padding="VALID", lhs_quantization_axis=0,
            lhs_quantization_min_val=-128, lhs_quantization_max_val=127,
            rhs_quantization_min_val=-128, rhs_quantization_max_val=127,
            output_quantization_min_val=I32[0],
            output_quantization_max_val=I32[1]), f.feed
    case("conv_error_lhs_axis", lhs_axis)

    def hybrid_error():
        f = Feeds()
        return hconv(f, floats([2, 3, 4, 4], -1, 1, 77), rhs, known=False,
                     rs=[1.0, 1.0, 1.0], rz=[0, 0, 0], ra=1), f.feed
    case("conv_error_hybrid_rhs_axis", hybrid_error)


def main():
    quantize_cases()
    dequantize_cases()
    requantize_cases()
    add_cases()
    clip_cases()
    dot_cases()
    hybrid_cases()
    per_channel_cases()
    concat_cases()
    conv_cases()
    golden_lib.write_op_defs(FAMILY, OP_NAMES,
                             type_attrs={"UniformQuantize": "Tin",
                                         "UniformDequantize": "Tout",
                                         "UniformRequantize": "Tin",
                                         "UniformQuantizedDot": "Tin",
                                         "UniformQuantizedDotHybrid":
                                             "Tlhs",
                                         "UniformQuantizedConvolution": "Tin",
                                         "UniformQuantizedConvolutionHybrid":
                                             "Tlhs"})


if __name__ == "__main__":
    main()
