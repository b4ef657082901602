#!/usr/bin/env python3
"""Golden cases of the qfused family: TensorFlow's fused quantized
convolutions and matrix products, which Intel's quantization tools write
into int8 inference graphs and which TensorFlow 2.21's CPU build runs
through oneDNN v3 (its graph pass rewrites them to _Mkl* ops) --
QuantizedConv2DWithBias{,AndRelu,AndRequantize,AndReluAndRequantize},
QuantizedConv2DWithBias{,Signed}SumAndRelu{,AndRequantize},
QuantizedConv2DAndRelu{,AndRequantize}, QuantizedConv2DAndRequantize,
QuantizedConv2DPerChannel, QuantizedDepthwiseConv2D{,WithBias,
WithBiasAndRelu,WithBiasAndReluAndRequantize} and
QuantizedMatMulWithBias{,AndRelu,AndReluAndRequantize,AndRequantize,
AndDequantize} -- and their OpDefs.

Cases cover every type combination TensorFlow 2.21's CPU kernels serve
(quint8 and qint8 inputs, float and qint32 biases, quint8 and qint8
summands), SAME and VALID padding, strides, dilations, per-tensor and
per-channel filter ranges, depthwise multipliers, Relu cutting negative
sums, saturation of requantized outputs, degenerate (zero, inverted)
ranges whose infinite or NaN products saturate, MatMul's input_quant_mode
(which TensorFlow's rewrite passes on to the dequantizing op alone: the
others give MIN_FIRST's results in both modes), the transpose attrs (which
oneDNN's kernel ignores), empty batches, and bad inputs with TensorFlow's
codes. Every output equals TensorFlow's bit for bit.

TensorFlow requires the filter to be a Const node ("QuantizedConv: filter
must be a constant"), so every case's filter is one; dfx computes with any
filter.

Left out because TensorFlow 2.21 aborts (a failed CHECK reading a
non-scalar as a scalar, or a dimension index of a rank-3 input; dfx:
InvalidArgument, tests/kernels/qfused_test.cc): convolutions whose
min_input, max_input or min/max_freezed_output is not a scalar, or whose
input is not 4-D. Left out because TensorFlow writes past its buffers: a
summand whose shape is not the output's (TensorFlow makes the summand's
buffer the output), per-channel filter ranges whose length is not the
output depth (dfx: InvalidArgument). A fed summand crashes TensorFlow (it
cannot take over the fed buffer), so the cases compute theirs. A VALID
window larger than the input gives, in TensorFlow, a tensor of the input's
shape holding uninitialized memory (dfx: zeros), so no case has one.
Matmuls whose inner dimensions or bias length do not match are Aborted in
TensorFlow; golden_lib records no Aborted code, so the unit test checks
them.

The signed-sum op's result saturates at 127: TensorFlow hands oneDNN the
qint8 summand's buffer as the output, so the quint8 result is stored as an
int8 would be.

    $(tools/tf_env) tests/golden/gen_qfused.py
"""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402

import golden_lib  # noqa: E402
from golden_lib import rng, tf1  # noqa: E402

FAMILY = "qfused"
RAW = tf.raw_ops

CONV_OPS = [
    "QuantizedConv2DWithBias", "QuantizedConv2DWithBiasAndRelu",
    "QuantizedConv2DWithBiasAndRequantize",
    "QuantizedConv2DWithBiasAndReluAndRequantize",
    "QuantizedConv2DWithBiasSumAndRelu",
    "QuantizedConv2DWithBiasSumAndReluAndRequantize",
    "QuantizedConv2DWithBiasSignedSumAndReluAndRequantize",
    "QuantizedConv2DAndRelu", "QuantizedConv2DAndRequantize",
    "QuantizedConv2DAndReluAndRequantize", "QuantizedConv2DPerChannel",
    "QuantizedDepthwiseConv2D", "QuantizedDepthwiseConv2DWithBias",
    "QuantizedDepthwiseConv2DWithBiasAndRelu",
    "QuantizedDepthwiseConv2DWithBiasAndReluAndRequantize"]
MATMUL_OPS = [
    "QuantizedMatMulWithBias", "QuantizedMatMulWithBiasAndRelu",
    "QuantizedMatMulWithBiasAndReluAndRequantize",
    "QuantizedMatMulWithBiasAndRequantize",
    "QuantizedMatMulWithBiasAndDequantize"]
OP_NAMES = CONV_OPS + MATMUL_OPS

QT = {"quint8": (tf.quint8, np.uint8, 0, 255),
      "qint8": (tf.qint8, np.int8, -128, 127),
      "qint32": (tf.qint32, np.int32, -2**31, 2**31 - 1)}


def case(name, build, **kw):
    kw.setdefault("rtol", 0.0)
    kw.setdefault("atol", 0.0)
    golden_lib.case(FAMILY, name, build, **kw)


def levels(qtype, shape, seed, lo=None, hi=None):
    _, storage, tlo, thi = QT[qtype]
    return rng(seed).integers(tlo if lo is None else lo,
                              thi if hi is None else hi, size=shape,
                              endpoint=True).astype(storage)


class Feeds:
    def __init__(self):
        self.feed = {}

    def q(self, v, qtype, known=True):
        tf_type = QT[qtype][0]
        v = np.asarray(v).view(tf_type.as_numpy_dtype)
        p = tf1.placeholder(tf_type, shape=v.shape if known else None)
        self.feed[p] = v
        return p

    def f(self, v, known=True):
        v = np.asarray(v, np.float32)
        p = tf1.placeholder(tf.float32, shape=v.shape if known else None)
        self.feed[p] = v
        return p


def qconst(v, qtype):
    tf_type = QT[qtype][0]
    return tf.constant(np.asarray(v).view(tf_type.as_numpy_dtype), tf_type)


def op_args(op):
    from tensorflow.python.framework import op_def_registry
    return [a.name for a in op_def_registry.get(op).input_arg]


# --------------------------------------------------------------------------
# Convolutions


def conv(op, tinput="quint8", x_shape=(1, 5, 5, 3), f_shape=(3, 3, 3, 4),
         bias="float", out_type=None, strides=(1, 1, 1, 1), padding="SAME",
         dilations=(1, 1, 1, 1), in_range=(0.0, 6.0), f_range=(-1.5, 1.5),
         per_channel=None, freezed=(-20.0, 20.0), summand=None,
         s_range=(0.0, 10.0), seed=0, x=None, known=True, extra=None):
    """Builds one convolution op with level inputs of the given shapes;
    returns (outputs, feed)."""
    args = op_args(op)
    f = Feeds()
    kw = {}
    xv = levels(tinput, x_shape, seed) if x is None else x
    kw["input"] = f.q(xv, tinput, known)
    kw["filter"] = qconst(levels("qint8", f_shape, seed + 1), "qint8")
    depth = f_shape[3] * (f_shape[2] if "Depthwise" in op else 1)
    if "bias" in args:
        if bias == "qint32":
            kw["bias"] = f.q(levels("qint32", [depth], seed + 2, -3000, 3000),
                             "qint32")
        else:
            kw["bias"] = f.f(rng(seed + 2).uniform(-2, 2, [depth]))
    kw["min_input"], kw["max_input"] = in_range
    if per_channel is not None:
        kw["min_filter"] = f.f(per_channel[0])
        kw["max_filter"] = f.f(per_channel[1])
    else:
        kw["min_filter"], kw["max_filter"] = f_range
    if "min_freezed_output" in args:
        kw["min_freezed_output"], kw["max_freezed_output"] = freezed
    out_shape = None
    if summand is None:
        summand = "qint8" if "Signed" in op else "quint8"
    if "summand" in args:
        # The output's shape: TensorFlow's shape function on the op.
        g = tf.Graph()
        with g.as_default():
            probe = tf.nn.conv2d(tf.zeros(x_shape), tf.zeros(f_shape),
                                 list(strides), padding,
                                 dilations=list(dilations))
            out_shape = probe.shape.as_list()
        # TensorFlow makes the summand's buffer the output, so the summand
        # must be a tensor no one else holds (a fed one crashes
        # TensorFlow): the sum of a fed tensor and zero.
        if "min_summand" in args:
            v = levels(summand, out_shape, seed + 3)
            raw = tf1.placeholder(tf.as_dtype(v.dtype), shape=v.shape)
            f.feed[raw] = v
            kw["summand"] = tf.bitcast(raw + tf.zeros_like(raw),
                                       QT[summand][0])
            kw["min_summand"], kw["max_summand"] = s_range
        else:
            kw["summand"] = f.f(rng(seed + 3).uniform(-3, 3, out_shape)) + 0.0
    kw["strides"] = list(strides)
    kw["padding"] = padding
    kw["dilations"] = list(dilations)
    if out_type is not None:
        kw["out_type"] = QT[out_type][0]
    kw.update(extra or {})
    outs = getattr(RAW, op)(**kw)
    return list(outs), f.feed


def conv_case(name, op, **kw):
    def build():
        return conv(op, **kw)
    case(name, build)


BIAS_CONVS = {
    # op: (input types, bias types, out_type)
    "QuantizedConv2DWithBias": (["quint8", "qint8"], ["float"], "qint32"),
    "QuantizedConv2DWithBiasAndRelu": (["quint8", "qint8"], ["float"],
                                       "qint32"),
    "QuantizedConv2DWithBiasAndRequantize": (["quint8", "qint8"],
                                             ["float", "qint32"], "qint8"),
    "QuantizedConv2DWithBiasAndReluAndRequantize": (["quint8", "qint8"],
                                                    ["float", "qint32"],
                                                    "quint8"),
    "QuantizedConv2DWithBiasSumAndRelu": (["quint8"], ["float"], "qint32"),
    "QuantizedConv2DWithBiasSumAndReluAndRequantize": (["quint8"],
                                                       ["float", "qint32"],
                                                       "quint8"),
    "QuantizedConv2DWithBiasSignedSumAndReluAndRequantize": (
        ["quint8"], ["float", "qint32"], "quint8"),
    "QuantizedConv2DAndRelu": (["quint8"], [None], "qint32"),
    "QuantizedConv2DAndRequantize": (["quint8"], [None], "qint8"),
    "QuantizedConv2DAndReluAndRequantize": (["quint8"], [None], "quint8"),
    "QuantizedConv2DPerChannel": (["quint8"], [None], "qint32"),
    "QuantizedDepthwiseConv2D": (["quint8"], [None], "qint32"),
    "QuantizedDepthwiseConv2DWithBias": (["quint8"], [None], "qint32"),
    "QuantizedDepthwiseConv2DWithBiasAndRelu": (["quint8"], [None],
                                                "qint32"),
    "QuantizedDepthwiseConv2DWithBiasAndReluAndRequantize": (
        ["quint8"], ["float", "qint32"], "quint8"),
}

SHORT = {
    "QuantizedConv2DWithBias": "conv_b",
    "QuantizedConv2DWithBiasAndRelu": "conv_b_relu",
    "QuantizedConv2DWithBiasAndRequantize": "conv_b_req",
    "QuantizedConv2DWithBiasAndReluAndRequantize": "conv_b_relu_req",
    "QuantizedConv2DWithBiasSumAndRelu": "conv_b_sum_relu",
    "QuantizedConv2DWithBiasSumAndReluAndRequantize": "conv_b_sum_relu_req",
    "QuantizedConv2DWithBiasSignedSumAndReluAndRequantize":
        "conv_b_ssum_relu_req",
    "QuantizedConv2DAndRelu": "conv_relu",
    "QuantizedConv2DAndRequantize": "conv_req",
    "QuantizedConv2DAndReluAndRequantize": "conv_relu_req",
    "QuantizedConv2DPerChannel": "conv_perchannel",
    "QuantizedDepthwiseConv2D": "dw",
    "QuantizedDepthwiseConv2DWithBias": "dw_b",
    "QuantizedDepthwiseConv2DWithBiasAndRelu": "dw_b_relu",
    "QuantizedDepthwiseConv2DWithBiasAndReluAndRequantize": "dw_b_relu_req",
}


def conv_cases():
    for op, (inputs, biases, out_type) in BIAS_CONVS.items():
        short = SHORT[op]
        dw = "Depthwise" in op
        f_shape = (3, 3, 3, 2) if dw else (3, 3, 3, 4)
        for tinput in inputs:
            for bias in biases:
                extra = {} if bias is None else {"bias": bias}
                tag = f"{short}_{tinput}" + ("" if bias is None else
                                             f"_{bias}")
                in_range = (0.0, 6.0) if tinput == "quint8" else (-4.0, 4.0)
                kw = dict(tinput=tinput, f_shape=f_shape, out_type=out_type,
                          in_range=in_range, **extra)
                conv_case(f"{tag}_same", op, **kw)
                conv_case(f"{tag}_valid_stride2", op, padding="VALID",
                          strides=(1, 2, 2, 1), x_shape=(2, 6, 7, 3), **kw)
                conv_case(f"{tag}_same_dilated", op, dilations=(1, 2, 2, 1),
                          x_shape=(1, 6, 6, 3), seed=5, **kw)
        # Per-channel filter ranges (output ranges become vectors for
        # qint32 results).
        depth = f_shape[3] * (3 if dw else 1)
        mins = -np.linspace(0.5, 2.0, depth)
        maxs = np.linspace(0.25, 1.75, depth)
        if op != "QuantizedConv2DAndRequantize":  # scalar ranges only
            conv_case(f"{short}_per_channel", op, f_shape=f_shape,
                      out_type=out_type, per_channel=(mins, maxs), seed=7)
        # A wide input range and a narrow output range: saturation.
        conv_case(f"{short}_saturating", op, f_shape=f_shape,
                  out_type=out_type, in_range=(0.0, 50.0), freezed=(0.0, 2.0),
                  seed=9)
        # An empty batch.
        conv_case(f"{short}_empty_batch", op, f_shape=f_shape,
                  out_type=out_type, x_shape=(0, 5, 5, 3))

    # A 1x1 filter, strides in one direction, a qint8 summand with
    # negative levels (TensorFlow reads them as unsigned bytes).
    conv_case("conv_b_relu_req_1x1_stride_rows",
              "QuantizedConv2DWithBiasAndReluAndRequantize",
              f_shape=(1, 1, 3, 5), strides=(1, 2, 1, 1), padding="VALID",
              out_type="quint8")
    conv_case("conv_b_ssum_relu_req_wide_summand",
              "QuantizedConv2DWithBiasSignedSumAndReluAndRequantize",
              out_type="quint8", summand="qint8", s_range=(-3.0, 3.0),
              freezed=(0.0, 30.0), seed=11)
    conv_case("conv_b_sum_relu_req_summand_range",
              "QuantizedConv2DWithBiasSumAndReluAndRequantize",
              out_type="quint8", summand="quint8", s_range=(0.0, 40.0),
              freezed=(-10.0, 60.0), seed=12)
    conv_case("dw_multiplier3_stride2", "QuantizedDepthwiseConv2DWithBias",
              f_shape=(2, 2, 2, 3), x_shape=(1, 5, 6, 2),
              strides=(1, 2, 2, 1), padding="VALID")

    # Degenerate ranges: zero scales make infinite or NaN products, which
    # saturate.
    conv_case("conv_b_req_zero_input_range",
              "QuantizedConv2DWithBiasAndRequantize", out_type="qint8",
              in_range=(0.0, 0.0))
    conv_case("conv_b_zero_filter_range", "QuantizedConv2DWithBias",
              f_range=(0.0, 0.0))
    conv_case("conv_b_relu_req_zero_freezed_range",
              "QuantizedConv2DWithBiasAndReluAndRequantize",
              out_type="quint8", freezed=(0.0, 0.0))
    conv_case("conv_req_nan_qint8", "QuantizedConv2DAndRequantize",
              out_type="qint8", in_range=(0.0, 0.0), freezed=(0.0, 0.0))
    conv_case("conv_relu_nan_qint32", "QuantizedConv2DAndRelu",
              out_type="qint32", in_range=(0.0, 0.0))
    conv_case("conv_b_inverted_ranges", "QuantizedConv2DWithBias",
              in_range=(6.0, 0.0), f_range=(1.5, -1.5))

    # Errors.
    # No kernel for a quint8 summand of the signed sum.
    conv_case("err_conv_ssum_quint8_summand",
              "QuantizedConv2DWithBiasSignedSumAndReluAndRequantize",
              summand="quint8")
    conv_case("err_conv_depth_mismatch", "QuantizedConv2DWithBias",
              x_shape=(1, 5, 5, 2), known=False)
    conv_case("err_conv_empty_filter_range", "QuantizedConv2DWithBias",
              per_channel=(np.zeros([0]), np.zeros([0])))
    conv_case("err_conv_batch_stride", "QuantizedConv2DWithBias",
              strides=(2, 1, 1, 1), known=False)
    # Not a case: a VALID window larger than the input. TensorFlow's
    # kernel then returns a tensor of the input's shape holding
    # uninitialized memory (dfx: zeros of that shape).


# --------------------------------------------------------------------------
# Matrix products


def matmul(op, a_shape=(3, 5), b_shape=(5, 4), bias="float",
           a_range=(-1.0, 3.0), b_range=(-0.5, 0.7), freezed=(-6.0, 6.0),
           seed=0, mode=None, transpose=(False, False), known=True,
           range_shape=None, bias_shape=None):
    args = op_args(op)
    f = Feeds()
    kw = {"a": f.q(levels("quint8", a_shape, seed), "quint8", known),
          "b": qconst(levels("qint8", b_shape, seed + 1), "qint8")}
    n = b_shape[-1] if bias_shape is None else bias_shape[0]
    if bias == "qint32":
        kw["bias"] = f.q(levels("qint32", [n], seed + 2, -30000, 30000),
                         "qint32")
    else:
        kw["bias"] = f.f(rng(seed + 2).uniform(-2, 2, [n]))
    if range_shape is not None:
        kw["min_a"] = f.f(np.full(range_shape, a_range[0]), known=False)
    else:
        kw["min_a"] = a_range[0]
    kw["max_a"] = a_range[1]
    kw["min_b"], kw["max_b"] = b_range
    if "min_freezed_output" in args:
        kw["min_freezed_output"], kw["max_freezed_output"] = freezed
    if op == "QuantizedMatMulWithBiasAndDequantize":
        kw["Toutput"] = tf.float32
    if mode is not None:
        kw["input_quant_mode"] = mode
    kw["transpose_a"], kw["transpose_b"] = transpose
    outs = getattr(RAW, op)(**kw)
    return (list(outs) if isinstance(outs, (list, tuple)) else [outs]), f.feed


def matmul_case(name, op, **kw):
    def build():
        return matmul(op, **kw)
    case(name, build)


def matmul_cases():
    for op in MATMUL_OPS:
        short = {"QuantizedMatMulWithBias": "mm_b",
                 "QuantizedMatMulWithBiasAndRelu": "mm_b_relu",
                 "QuantizedMatMulWithBiasAndReluAndRequantize":
                     "mm_b_relu_req",
                 "QuantizedMatMulWithBiasAndRequantize": "mm_b_req",
                 "QuantizedMatMulWithBiasAndDequantize": "mm_b_deq"}[op]
        biases = ["float"] if op == "QuantizedMatMulWithBiasAndRelu" else \
            ["float", "qint32"]
        for bias in biases:
            for mode in ("MIN_FIRST", "SCALED"):
                matmul_case(f"{short}_{bias}_{mode.lower()}", op, bias=bias,
                            mode=mode)
            matmul_case(f"{short}_{bias}_positive_range", op, bias=bias,
                        a_range=(0.0, 2.0), seed=3)
        matmul_case(f"{short}_wide", op, a_shape=(2, 40), b_shape=(40, 6),
                    a_range=(-5.0, 5.0), b_range=(-2.0, 1.0), seed=4)
        matmul_case(f"{short}_empty_rows", op, a_shape=(0, 5))
    matmul_case("mm_b_req_zero_freezed_range",
                "QuantizedMatMulWithBiasAndRequantize", freezed=(0.0, 0.0))
    matmul_case("mm_b_inverted_input_range", "QuantizedMatMulWithBias",
                a_range=(3.0, -1.0))
    matmul_case("mm_b_deq_zero_weight_range",
                "QuantizedMatMulWithBiasAndDequantize", b_range=(0.0, 0.0))
    # The transpose attrs change the shape function's answer only.
    matmul_case("mm_b_transposes_ignored", "QuantizedMatMulWithBias",
                a_shape=(4, 4), b_shape=(4, 4), transpose=(True, True))
    # Errors.
    # TensorFlow answers Aborted (oneDNN cannot make the inner product) for
    # inner dimensions or a bias length that do not match; golden_lib
    # records no Aborted code, so tests/kernels/qfused_test.cc checks them.
    matmul_case("err_mm_min_a_rank1", "QuantizedMatMulWithBias",
                range_shape=[1])
    matmul_case("err_mm_req_min_a_rank1",
                "QuantizedMatMulWithBiasAndRequantize", range_shape=[1])


def main():
    conv_cases()
    matmul_cases()
    # The type attrs with non-quantized types: Tbias (float or qint32),
    # the dequantized matmul's Toutput (float).
    from tensorflow.python.framework import op_def_registry
    type_attrs = {}
    for op in OP_NAMES:
        names = [a.name for a in op_def_registry.get(op).attr]
        if op == "QuantizedMatMulWithBiasAndDequantize":
            type_attrs[op] = "Toutput"
        elif "Tbias" in names:
            type_attrs[op] = "Tbias"
    golden_lib.write_op_defs(FAMILY, OP_NAMES, type_attrs=type_attrs)


if __name__ == "__main__":
    main()
