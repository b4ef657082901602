#!/usr/bin/env python3
"""Golden cases of the conv family: convolutions (Conv2D, Conv2DTranspose,
depthwise, their gradients), pooling and fused batch normalization.

Run with the TensorFlow virtualenv:  $(tools/tf_env) tests/golden/gen_conv.py
"""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402
from golden_lib import case, placeholder, rng, tf1  # noqa: E402

FAMILY = "conv"

# float32 convolution sums run in a different order in dfx (oneDNN's blocked
# kernels) than in TensorFlow (Eigen's contraction), so results differ by a
# few ulps times the number of terms (up to ~600 here); rtol 1e-4 / atol 1e-5
# covers that and still catches any wrong index or padding.
CONV_TOL = dict(rtol=1e-4, atol=1e-5)
# float64 sums likewise, at double precision.
CONV_TOL_F64 = dict(rtol=1e-10, atol=1e-12)
# float16 / bfloat16 convolutions: both sides accumulate in float and
# round once, so the dtype defaults hold.
CONV_TOL_F16 = {}
CONV_TOL_BF16 = {}
# Their gradients: TensorFlow's CPU gradient kernels for half and bfloat16
# add the products in 16 bits, dfx in float, so TensorFlow's sums drift by
# several 16-bit ulps of the summands (seen: 4e-3 for half, 1.6e-2 for
# bfloat16, on values of magnitude ~1).
GRAD_TOL_F16 = dict(rtol=1e-2, atol=1e-2)
GRAD_TOL_BF16 = dict(rtol=5e-2, atol=5e-2)


def grad_tol_for(dtype):
    if dtype == np.float16:
        return GRAD_TOL_F16
    if dtype == BF16:
        return GRAD_TOL_BF16
    return tol_for(dtype)


def tol_for(dtype):
    return {
        np.float32: CONV_TOL,
        np.float64: CONV_TOL_F64,
        np.float16: CONV_TOL_F16,
        tf.bfloat16.as_numpy_dtype: CONV_TOL_BF16,
        np.int32: {},
    }[dtype]


BF16 = tf.bfloat16.as_numpy_dtype
# A placeholder shape of unknown rank: errors then come from the kernel.
UNKNOWN = tf.TensorShape(None)


def values(shape, seed, dtype=np.float32, low=-1.0, high=1.0):
    """Random values; integers for int dtypes."""
    r = rng(seed)
    if np.issubdtype(np.dtype(dtype), np.integer):
        return r.integers(-5, 6, size=shape).astype(dtype)
    return r.uniform(low, high, size=shape).astype(np.float32).astype(dtype)


def distinct(shape, seed, dtype=np.float32):
    """Distinct values (a shuffled range), so max pooling has no ties."""
    n = int(np.prod(shape))
    v = rng(seed).permutation(n).astype(np.float64) - n / 2
    if np.dtype(dtype) in (np.dtype(np.float16), np.dtype(BF16)):
        v = v / 4  # exact in 16 bits for the small sizes used here
    return v.reshape(shape).astype(dtype)


def pattern(shape, scale, dtype=tf.float32):
    """A deterministic tensor built inside the graph (no feed): large inputs
    stay out of the case files."""
    n = int(np.prod(shape))
    t = tf.sin(tf.range(n, dtype=tf.float32) * scale)
    return tf.cast(tf.reshape(t, shape), dtype)


# ---------------------------------------------------------------------------
# Conv2D.

def conv_case(name, x_shape, f_shape, strides=1, padding="SAME",
              dilations=1, dtype=np.float32, data_format="NHWC", seed=0,
              unknown_shapes=False, tol=None):
    def build():
        x, xv = placeholder(values(x_shape, seed, dtype), "x",
                            shape=UNKNOWN if unknown_shapes else x_shape)
        f, fv = placeholder(values(f_shape, seed + 1, dtype), "f",
                            shape=UNKNOWN if unknown_shapes else f_shape)
        y = tf.nn.conv2d(x, f, strides=strides, padding=padding,
                         dilations=dilations, data_format=data_format)
        return y, {x: xv, f: fv}
    case(FAMILY, name, build, **(tol if tol is not None else tol_for(dtype)))


def raw_conv_case(name, x_shape, f_shape, dtype=np.float32, seed=0,
                  unknown_shapes=False, **attrs):
    def build():
        x, xv = placeholder(values(x_shape, seed, dtype), "x",
                            shape=UNKNOWN if unknown_shapes else x_shape)
        f, fv = placeholder(values(f_shape, seed + 1, dtype), "f",
                            shape=UNKNOWN if unknown_shapes else f_shape)
        y = tf.raw_ops.Conv2D(input=x, filter=f, **attrs)
        return y, {x: xv, f: fv}
    case(FAMILY, name, build, **tol_for(dtype))


def conv2d_cases():
    conv_case("conv2d_same_3x3", (1, 5, 5, 3), (3, 3, 3, 4))
    conv_case("conv2d_valid_stride2", (2, 7, 7, 3), (3, 3, 3, 5), strides=2,
              padding="VALID")
    conv_case("conv2d_same_stride2_odd", (1, 7, 6, 3), (3, 2, 3, 4),
              strides=2)
    conv_case("conv2d_same_stride_2x3", (1, 9, 10, 2), (2, 3, 2, 3),
              strides=[1, 2, 3, 1])
    conv_case("conv2d_same_even_kernel", (1, 6, 6, 2), (4, 4, 2, 3))
    conv_case("conv2d_1x1", (2, 4, 4, 5), (1, 1, 5, 7))
    conv_case("conv2d_dilation2_same", (1, 9, 9, 2), (3, 3, 2, 3),
              dilations=2)
    conv_case("conv2d_dilation_2x1_valid", (1, 9, 8, 2), (3, 3, 2, 3),
              dilations=[1, 2, 1, 1], padding="VALID")
    conv_case("conv2d_explicit_padding", (1, 5, 6, 2), (3, 3, 2, 3),
              padding=[[0, 0], [1, 2], [0, 3], [0, 0]])
    conv_case("conv2d_explicit_stride2", (1, 6, 5, 2), (2, 3, 2, 4),
              strides=2, padding=[[0, 0], [2, 0], [1, 1], [0, 0]])
    conv_case("conv2d_grouped", (1, 5, 5, 4), (3, 3, 2, 6))
    conv_case("conv2d_grouped_depthwise_like", (1, 5, 5, 4), (3, 3, 1, 8),
              strides=2)
    conv_case("conv2d_kernel_larger_than_input_same", (1, 2, 3, 2),
              (5, 5, 2, 3))
    conv_case("conv2d_f64", (1, 6, 5, 3), (3, 3, 3, 4), strides=2,
              dtype=np.float64)
    conv_case("conv2d_f64_grouped_dilated", (1, 7, 7, 4), (3, 3, 2, 4),
              dilations=2, dtype=np.float64)
    conv_case("conv2d_f16", (1, 5, 5, 3), (3, 3, 3, 4), dtype=np.float16)
    conv_case("conv2d_bf16", (1, 5, 5, 3), (3, 3, 3, 4), dtype=BF16)
    conv_case("conv2d_int32", (1, 5, 5, 3), (3, 3, 3, 4), dtype=np.int32,
              strides=2)
    conv_case("conv2d_empty_batch", (0, 5, 5, 3), (3, 3, 3, 4))
    conv_case("conv2d_empty_depth", (1, 5, 5, 3), (3, 3, 3, 0))
    # NCHW is not implemented by TensorFlow's CPU kernel.
    conv_case("conv2d_nchw_error", (1, 3, 5, 5), (3, 3, 3, 4),
              data_format="NCHW")
    # Errors only the kernel can see (shapes unknown to the graph).
    conv_case("conv2d_depth_not_divisible_error", (1, 5, 5, 3),
              (3, 3, 2, 4), unknown_shapes=True)
    conv_case("conv2d_groups_not_dividing_output_error", (1, 5, 5, 4),
              (3, 3, 2, 3), unknown_shapes=True)
    conv_case("conv2d_valid_zero_output", (1, 2, 2, 3), (3, 3, 3, 4),
              padding="VALID", unknown_shapes=True)
    conv_case("conv2d_negative_output_error", (1, 1, 2, 3), (3, 3, 3, 4),
              padding="VALID", unknown_shapes=True)
    conv_case("conv2d_rank3_input_error", (5, 5, 3), (3, 3, 3, 4),
              unknown_shapes=True)
    raw_conv_case("conv2d_batch_stride_error", (1, 5, 5, 3), (3, 3, 3, 4),
                  strides=[2, 1, 1, 1], padding="SAME")

    # A ResNet-style layer, big enough for oneDNN's vectorised kernels; the
    # inputs are built in the graph.
    def resnet_layer():
        x = pattern((2, 6, 6, 32), 0.37)
        f = pattern((3, 3, 32, 48), 0.11) * 0.1
        return tf.nn.conv2d(x, f, 1, "SAME"), None
    case(FAMILY, "conv2d_resnet_like_32_to_48", resnet_layer, **CONV_TOL)

    def strided_wide():
        x = pattern((1, 9, 9, 64), 0.23)
        f = pattern((3, 3, 64, 16), 0.05) * 0.1
        return tf.nn.conv2d(x, f, 2, "SAME"), None
    case(FAMILY, "conv2d_wide_stride2", strided_wide, **CONV_TOL)


# ---------------------------------------------------------------------------
# Conv2DBackpropInput (Conv2DTranspose) and Conv2DBackpropFilter.

def transpose_case(name, x_shape, f_shape, output_shape, strides,
                   padding="SAME", dilations=1, dtype=np.float32, seed=3):
    def build():
        x, xv = placeholder(values(x_shape, seed, dtype), "x")
        f, fv = placeholder(values(f_shape, seed + 1, dtype), "f")
        y = tf.nn.conv2d_transpose(x, f, output_shape, strides,
                                   padding=padding, dilations=dilations)
        return y, {x: xv, f: fv}
    case(FAMILY, name, build, **tol_for(dtype))


def conv_gradients(x, f, y, dy):
    """The gradients of y = conv2d(x, f) as TensorFlow's registered gradient
    (nn_grad._Conv2DGrad) builds them: Conv2DBackpropInput and
    Conv2DBackpropFilter with the conv's attrs. tf.gradients would take the
    shapes with ShapeN, which is not a conv op; Shape stands in for it."""
    op = y.op
    attrs = dict(strides=op.get_attr("strides"),
                 padding=op.get_attr("padding").decode(),
                 explicit_paddings=op.get_attr("explicit_paddings"),
                 dilations=op.get_attr("dilations"),
                 data_format=op.get_attr("data_format").decode())
    dx = tf.raw_ops.Conv2DBackpropInput(input_sizes=tf.shape(x), filter=f,
                                        out_backprop=dy, **attrs)
    df = tf.raw_ops.Conv2DBackpropFilter(input=x, filter_sizes=tf.shape(f),
                                         out_backprop=dy, **attrs)
    return dx, df


def grad_case(name, x_shape, f_shape, strides=1, padding="SAME",
              dilations=1, dtype=np.float32, seed=5):
    """Gradients of a conv w.r.t. input and filter."""
    def build():
        x, xv = placeholder(values(x_shape, seed, dtype), "x")
        f, fv = placeholder(values(f_shape, seed + 1, dtype), "f")
        y = tf.nn.conv2d(x, f, strides=strides, padding=padding,
                         dilations=dilations)
        dy = tf.constant(values(y.shape.as_list(), seed + 2, dtype))
        dx, df = conv_gradients(x, f, y, dy)
        return [dx, df], {x: xv, f: fv}
    case(FAMILY, name, build, **grad_tol_for(dtype))


def raw_backprop_input_case(name, sizes, f_shape, dy_shape, dtype=np.float32,
                            seed=7, **attrs):
    def build():
        f, fv = placeholder(values(f_shape, seed, dtype), "f", shape=UNKNOWN)
        dy, dyv = placeholder(values(dy_shape, seed + 1, dtype), "dy",
                              shape=UNKNOWN)
        s, sv = placeholder(np.array(sizes, np.int32), "sizes", shape=UNKNOWN)
        y = tf.raw_ops.Conv2DBackpropInput(input_sizes=s, filter=f,
                                           out_backprop=dy, **attrs)
        return y, {f: fv, dy: dyv, s: sv}
    case(FAMILY, name, build, **tol_for(dtype))


def raw_backprop_filter_case(name, x_shape, sizes, dy_shape,
                             dtype=np.float32, seed=9, **attrs):
    def build():
        x, xv = placeholder(values(x_shape, seed, dtype), "x", shape=UNKNOWN)
        dy, dyv = placeholder(values(dy_shape, seed + 1, dtype), "dy",
                              shape=UNKNOWN)
        s, sv = placeholder(np.array(sizes, np.int32), "sizes", shape=UNKNOWN)
        y = tf.raw_ops.Conv2DBackpropFilter(input=x, filter_sizes=s,
                                            out_backprop=dy, **attrs)
        return y, {x: xv, dy: dyv, s: sv}
    case(FAMILY, name, build, **tol_for(dtype))


def conv_grad_cases():
    # Conv2DTranspose output shapes: stride 2 maps 4 -> 7 or 8.
    transpose_case("conv2d_transpose_same_s2_to8", (1, 4, 4, 3),
                   (3, 3, 5, 3), (1, 8, 8, 5), 2)
    transpose_case("conv2d_transpose_same_s2_to7", (1, 4, 4, 3),
                   (3, 3, 5, 3), (1, 7, 7, 5), 2)
    transpose_case("conv2d_transpose_valid_s2", (2, 3, 4, 3),
                   (3, 3, 2, 3), (2, 7, 9, 2), 2, padding="VALID")
    transpose_case("conv2d_transpose_valid_s2_extra", (1, 3, 3, 2),
                   (2, 2, 3, 2), (1, 7, 7, 3), 2, padding="VALID")
    # TensorFlow's CPU gradient kernels reject dilations.
    transpose_case("conv2d_transpose_s1_dilated_error", (1, 5, 5, 2),
                   (3, 3, 3, 2), (1, 5, 5, 3), 1, dilations=2)
    transpose_case("conv2d_transpose_s3_4x4", (1, 3, 3, 4), (4, 4, 2, 4),
                   (1, 9, 9, 2), 3)
    transpose_case("conv2d_transpose_f64", (1, 4, 4, 3), (3, 3, 5, 3),
                   (1, 8, 8, 5), 2, dtype=np.float64)
    transpose_case("conv2d_transpose_f16", (1, 4, 4, 3), (3, 3, 5, 3),
                   (1, 8, 8, 5), 2, dtype=np.float16)
    transpose_case("conv2d_transpose_bf16", (1, 4, 4, 3), (3, 3, 5, 3),
                   (1, 8, 8, 5), 2, dtype=BF16)

    grad_case("conv2d_grad_same", (1, 5, 5, 3), (3, 3, 3, 4))
    grad_case("conv2d_grad_valid_s2", (2, 7, 6, 3), (3, 2, 3, 4), strides=2,
              padding="VALID")
    grad_case("conv2d_grad_same_s2_odd", (1, 7, 7, 2), (3, 3, 2, 3),
              strides=2)
    grad_case("conv2d_grad_dilated_error", (1, 8, 8, 2), (3, 3, 2, 3),
              dilations=2)
    grad_case("conv2d_grad_explicit", (1, 5, 5, 2), (3, 3, 2, 3),
              padding=[[0, 0], [2, 1], [0, 2], [0, 0]])
    grad_case("conv2d_grad_f64", (1, 5, 5, 3), (3, 3, 3, 4), strides=2,
              dtype=np.float64)
    grad_case("conv2d_grad_f16", (1, 5, 5, 3), (3, 3, 3, 4),
              dtype=np.float16)
    grad_case("conv2d_grad_bf16", (1, 5, 5, 3), (3, 3, 3, 4), dtype=BF16)

    def big_filter_grad():
        x = pattern((2, 6, 6, 16), 0.31)
        f = pattern((3, 3, 16, 24), 0.07) * 0.1
        y = tf.nn.conv2d(x, f, 1, "SAME")
        dy = pattern((2, 6, 6, 24), 0.13)
        dx, df = conv_gradients(x, f, y, dy)
        return [dx, df], None
    case(FAMILY, "conv2d_grad_16_to_24", big_filter_grad, **CONV_TOL)

    raw_backprop_input_case(
        "conv2d_backprop_input_two_sizes", [5, 5], (3, 3, 2, 4),
        (2, 3, 3, 4), strides=[1, 2, 2, 1], padding="SAME")
    raw_backprop_input_case(
        "conv2d_backprop_input_int32", [1, 5, 5, 2], (3, 3, 2, 4),
        (1, 5, 5, 4), dtype=np.int32, strides=[1, 1, 1, 1], padding="SAME")
    raw_backprop_input_case(
        "conv2d_backprop_input_mismatch_error", [1, 5, 5, 2], (3, 3, 2, 4),
        (1, 4, 5, 4), strides=[1, 1, 1, 1], padding="SAME")
    raw_backprop_input_case(
        "conv2d_backprop_input_bad_sizes_error", [1, 5, 5], (3, 3, 2, 4),
        (1, 5, 5, 4), strides=[1, 1, 1, 1], padding="SAME")
    raw_backprop_input_case(
        "conv2d_backprop_input_depth_error", [1, 5, 5, 3], (3, 3, 2, 4),
        (1, 5, 5, 4), strides=[1, 1, 1, 1], padding="SAME")
    # Grouped convolutions have no gradient kernels on CPU.
    raw_backprop_input_case(
        "conv2d_backprop_input_grouped_error", [1, 5, 5, 4], (3, 3, 2, 6),
        (1, 5, 5, 6), strides=[1, 1, 1, 1], padding="SAME")
    raw_backprop_input_case(
        "conv2d_backprop_input_nchw_error", [1, 2, 5, 5], (3, 3, 2, 4),
        (1, 4, 5, 5), strides=[1, 1, 1, 1], padding="SAME",
        data_format="NCHW")
    raw_backprop_filter_case(
        "conv2d_backprop_filter_explicit_s2", (1, 6, 7, 2), [2, 3, 2, 3],
        (1, 4, 3, 3), strides=[1, 2, 2, 1], padding="EXPLICIT",
        explicit_paddings=[0, 0, 1, 1, 0, 1, 0, 0])
    raw_backprop_filter_case(
        "conv2d_backprop_filter_grouped_error", (1, 5, 5, 4), [3, 3, 2, 6],
        (1, 5, 5, 6), strides=[1, 1, 1, 1], padding="SAME")
    raw_backprop_filter_case(
        "conv2d_backprop_filter_mismatch_error", (1, 5, 5, 2), [3, 3, 2, 4],
        (1, 5, 5, 3), strides=[1, 1, 1, 1], padding="SAME")
    raw_backprop_filter_case(
        "conv2d_backprop_filter_nchw_error", (1, 2, 5, 5), [3, 3, 2, 4],
        (1, 4, 5, 5), strides=[1, 1, 1, 1], padding="SAME",
        data_format="NCHW")


# ---------------------------------------------------------------------------
# Depthwise convolutions.

def depthwise_case(name, x_shape, f_shape, strides=1, padding="SAME",
                   dtype=np.float32, seed=11, grads=False, dilations=None,
                   grads_only=False):
    def build():
        x, xv = placeholder(values(x_shape, seed, dtype), "x")
        f, fv = placeholder(values(f_shape, seed + 1, dtype), "f")
        attrs = {}
        if dilations is not None:
            attrs["dilations"] = dilations
        y = tf.raw_ops.DepthwiseConv2dNative(
            input=x, filter=f, strides=[1, strides, strides, 1],
            padding=padding, **attrs)
        fetches = [y]
        if grads:
            dy = tf.constant(values(y.shape.as_list(), seed + 2, dtype))
            fetches += tf.gradients(y, [x, f], grad_ys=dy)
        if grads_only:
            fetches = fetches[1:]
        return fetches, {x: xv, f: fv}
    case(FAMILY, name, build,
         **(grad_tol_for(dtype) if grads_only else tol_for(dtype)))


def depthwise_cases():
    depthwise_case("depthwise_m1_same", (1, 5, 5, 3), (3, 3, 3, 1))
    depthwise_case("depthwise_m2_valid_s2", (2, 7, 7, 3), (3, 3, 3, 2),
                   strides=2, padding="VALID")
    depthwise_case("depthwise_m3_same_s2_odd", (1, 7, 6, 2), (3, 3, 2, 3),
                   strides=2)
    # TensorFlow's CPU depthwise kernel does not implement dilations.
    depthwise_case("depthwise_dilated_error", (1, 9, 9, 2), (3, 3, 2, 2),
                   dilations=[1, 2, 2, 1])
    depthwise_case("depthwise_grads_m1", (1, 6, 6, 4), (3, 3, 4, 1),
                   grads=True)
    depthwise_case("depthwise_grads_m2_s2", (2, 7, 7, 3), (3, 3, 3, 2),
                   strides=2, grads=True)
    depthwise_case("depthwise_grads_valid_m3", (1, 6, 7, 2), (2, 3, 2, 3),
                   padding="VALID", grads=True)
    depthwise_case("depthwise_f64_grads", (1, 5, 5, 3), (3, 3, 3, 2),
                   dtype=np.float64, grads=True)
    depthwise_case("depthwise_f16", (1, 5, 5, 3), (3, 3, 3, 2),
                   dtype=np.float16)
    depthwise_case("depthwise_bf16", (1, 5, 5, 3), (3, 3, 3, 2), dtype=BF16)
    depthwise_case("depthwise_f16_grads", (1, 5, 5, 3), (3, 3, 3, 2),
                   dtype=np.float16, grads=True, grads_only=True)
    depthwise_case("depthwise_bf16_grads", (1, 5, 5, 3), (3, 3, 3, 2),
                   dtype=BF16, grads=True, grads_only=True)

    def explicit():
        x, xv = placeholder(values((1, 5, 6, 3), 13), "x")
        f, fv = placeholder(values((3, 3, 3, 2), 14), "f")
        y = tf.raw_ops.DepthwiseConv2dNative(
            input=x, filter=f, strides=[1, 1, 1, 1], padding="EXPLICIT",
            explicit_paddings=[0, 0, 1, 0, 2, 1, 0, 0])
        return y, {x: xv, f: fv}
    case(FAMILY, "depthwise_explicit", explicit, **CONV_TOL)

    def wide():
        x = pattern((2, 8, 8, 32), 0.29)
        f = pattern((3, 3, 32, 1), 0.41)
        y = tf.nn.depthwise_conv2d(x, f, [1, 1, 1, 1], "SAME")
        dy = pattern((2, 8, 8, 32), 0.17)
        dx, df = tf.gradients(y, [x, f], grad_ys=dy)
        return [y, dx, df], None
    case(FAMILY, "depthwise_32_channels_grads", wide, **CONV_TOL)

    def nchw():
        x = tf.constant(values((1, 3, 5, 5), 15))
        f = tf.constant(values((3, 3, 3, 1), 16))
        return tf.raw_ops.DepthwiseConv2dNative(
            input=x, filter=f, strides=[1, 1, 1, 1], padding="SAME",
            data_format="NCHW"), None
    case(FAMILY, "depthwise_nchw_error", nchw)

    def unequal_strides():
        x = tf.constant(values((1, 6, 6, 3), 15))
        f = tf.constant(values((3, 3, 3, 1), 16))
        return tf.raw_ops.DepthwiseConv2dNative(
            input=x, filter=f, strides=[1, 1, 2, 1], padding="SAME"), None
    case(FAMILY, "depthwise_unequal_strides_error", unequal_strides)

    def depth_mismatch():
        x, xv = placeholder(values((1, 5, 5, 3), 17), "x", shape=UNKNOWN)
        f, fv = placeholder(values((3, 3, 2, 1), 18), "f", shape=UNKNOWN)
        return tf.raw_ops.DepthwiseConv2dNative(
            input=x, filter=f, strides=[1, 1, 1, 1],
            padding="SAME"), {x: xv, f: fv}
    case(FAMILY, "depthwise_depth_mismatch_error", depth_mismatch)

    def raw_backprop_input():
        f, fv = placeholder(values((3, 3, 3, 2), 19), "f")
        dy, dyv = placeholder(values((1, 3, 3, 6), 20), "dy")
        return tf.raw_ops.DepthwiseConv2dNativeBackpropInput(
            input_sizes=[1, 6, 5, 3], filter=f, out_backprop=dy,
            strides=[1, 2, 2, 1], padding="SAME"), {f: fv, dy: dyv}
    case(FAMILY, "depthwise_backprop_input_raw", raw_backprop_input,
         **CONV_TOL)

    def raw_backprop_filter():
        x, xv = placeholder(values((2, 5, 5, 2), 21), "x")
        dy, dyv = placeholder(values((2, 5, 5, 4), 22), "dy")
        return tf.raw_ops.DepthwiseConv2dNativeBackpropFilter(
            input=x, filter_sizes=[3, 3, 2, 2], out_backprop=dy,
            strides=[1, 1, 1, 1], padding="SAME"), {x: xv, dy: dyv}
    case(FAMILY, "depthwise_backprop_filter_raw", raw_backprop_filter,
         **CONV_TOL)


# ---------------------------------------------------------------------------
# Pooling.

def pool_case(name, op, x_shape, ksize, strides, padding, dtype=np.float32,
              seed=30, data_format="NHWC", grads=False, **attrs):
    def build():
        x, xv = placeholder(distinct(x_shape, seed, dtype), "x")
        fn = {"max": tf.raw_ops.MaxPool, "avg": tf.raw_ops.AvgPool}[op]
        kw = dict(ksize=ksize, strides=strides, padding=padding,
                  data_format=data_format, **attrs)
        y = fn(input=x, **kw) if op == "max" else fn(value=x, **kw)
        fetches = [y]
        if grads:
            dy = tf.constant(values(y.shape.as_list(), seed + 1, dtype))
            fetches += tf.gradients(y, [x], grad_ys=dy)
        return fetches, {x: xv}
    case(FAMILY, name, build)


def pooling_cases():
    k2, s2 = [1, 2, 2, 1], [1, 2, 2, 1]
    k3 = [1, 3, 3, 1]
    s1 = [1, 1, 1, 1]
    pool_case("maxpool_valid_2x2", "max", (2, 6, 6, 3), k2, s2, "VALID")
    pool_case("maxpool_same_odd", "max", (1, 7, 5, 2), k3, s2, "SAME")
    pool_case("maxpool_same_3x3_s1", "max", (1, 5, 6, 2), k3, s1, "SAME")
    pool_case("maxpool_stride_gt_ksize", "max", (1, 9, 9, 2), k2,
              [1, 3, 3, 1], "VALID")
    pool_case("maxpool_rect_window", "max", (1, 7, 8, 2), [1, 3, 2, 1],
              [1, 2, 3, 1], "SAME")
    pool_case("maxpool_explicit", "max", (1, 5, 5, 2), k3, s2, "EXPLICIT",
              explicit_paddings=[0, 0, 1, 1, 1, 0, 0, 0])
    pool_case("maxpool_depth", "max", (1, 3, 3, 6), [1, 1, 1, 3],
              [1, 1, 1, 3], "VALID")
    for dtype, tag in [(np.float64, "f64"), (np.float16, "f16"),
                       (BF16, "bf16"), (np.int32, "int32"),
                       (np.int64, "int64"), (np.uint8, "uint8"),
                       (np.int8, "int8"), (np.int16, "int16"),
                       (np.uint16, "uint16")]:
        pool_case(f"maxpool_same_odd_{tag}", "max", (1, 5, 5, 2), k3, s2,
                  "SAME", dtype=dtype)
    pool_case("maxpool_nchw_error", "max", (1, 2, 6, 6), k2, s2, "VALID",
              data_format="NCHW")
    pool_case("maxpool_batch_window_error", "max", (2, 4, 4, 1),
              [2, 2, 2, 1], s2, "VALID")
    pool_case("maxpool_empty_batch", "max", (0, 4, 4, 2), k2, s2, "VALID")

    pool_case("avgpool_valid_2x2", "avg", (2, 6, 6, 3), k2, s2, "VALID")
    pool_case("avgpool_same_odd", "avg", (1, 7, 5, 2), k3, s2, "SAME")
    pool_case("avgpool_same_3x3_s1", "avg", (1, 5, 6, 2), k3, s1, "SAME")
    pool_case("avgpool_rect_window", "avg", (1, 7, 8, 2), [1, 3, 2, 1],
              [1, 2, 3, 1], "SAME")
    for dtype, tag in [(np.float64, "f64"), (np.float16, "f16"),
                       (BF16, "bf16")]:
        pool_case(f"avgpool_same_odd_{tag}", "avg", (1, 5, 5, 2), k3, s2,
                  "SAME", dtype=dtype)
    pool_case("avgpool_nchw_error", "avg", (1, 2, 6, 6), k2, s2, "VALID",
              data_format="NCHW")

    # Gradients (MaxPoolGrad, AvgPoolGrad) through tf.gradients.
    pool_case("maxpool_grad_valid", "max", (2, 6, 6, 3), k2, s2, "VALID",
              grads=True)
    pool_case("maxpool_grad_same_overlap", "max", (1, 7, 7, 2), k3, s2,
              "SAME", grads=True)
    pool_case("maxpool_grad_same_s1", "max", (1, 5, 6, 2), k3, s1, "SAME",
              grads=True)
    pool_case("maxpool_grad_explicit", "max", (1, 5, 5, 2), k3, s2,
              "EXPLICIT", grads=True,
              explicit_paddings=[0, 0, 1, 1, 1, 0, 0, 0])
    pool_case("maxpool_grad_f64", "max", (1, 5, 5, 2), k3, s2, "SAME",
              dtype=np.float64, grads=True)
    pool_case("maxpool_grad_f16", "max", (1, 5, 5, 2), k3, s2, "SAME",
              dtype=np.float16, grads=True)
    pool_case("maxpool_grad_bf16", "max", (1, 5, 5, 2), k3, s2, "SAME",
              dtype=BF16, grads=True)
    pool_case("avgpool_grad_valid", "avg", (2, 6, 6, 3), k2, s2, "VALID",
              grads=True)
    pool_case("avgpool_grad_same_overlap", "avg", (1, 7, 7, 2), k3, s2,
              "SAME", grads=True)
    pool_case("avgpool_grad_rect", "avg", (1, 7, 8, 2), [1, 3, 2, 1],
              [1, 2, 3, 1], "SAME", grads=True)
    pool_case("avgpool_grad_f64", "avg", (1, 5, 5, 2), k3, s2, "SAME",
              dtype=np.float64, grads=True)
    pool_case("avgpool_grad_f16", "avg", (1, 5, 5, 2), k3, s2, "SAME",
              dtype=np.float16, grads=True)
    pool_case("avgpool_grad_bf16", "avg", (1, 5, 5, 2), k3, s2, "SAME",
              dtype=BF16, grads=True)

    def maxpool_v2(grads):
        def build():
            x, xv = placeholder(distinct((1, 7, 7, 2), 40), "x")
            y = tf.raw_ops.MaxPoolV2(input=x, ksize=[1, 3, 3, 1],
                                     strides=[1, 2, 2, 1], padding="SAME")
            fetches = [y]
            if grads:
                dy = tf.constant(values((1, 4, 4, 2), 41))
                fetches += tf.gradients(y, [x], grad_ys=dy)
            return fetches, {x: xv}
        return build
    case(FAMILY, "maxpool_v2", maxpool_v2(False))
    case(FAMILY, "maxpool_v2_grad", maxpool_v2(True))

    def maxpool_v2_fed_window():
        x, xv = placeholder(distinct((1, 6, 6, 2), 42), "x")
        k, kv = placeholder(np.array([1, 2, 2, 1], np.int32), "k")
        s, sv = placeholder(np.array([1, 2, 2, 1], np.int32), "s")
        y = tf.raw_ops.MaxPoolV2(input=x, ksize=k, strides=s,
                                 padding="VALID")
        return y, {x: xv, k: kv, s: sv}
    case(FAMILY, "maxpool_v2_fed_window", maxpool_v2_fed_window)

    def maxpool_v2_bad_window():
        x, xv = placeholder(distinct((1, 6, 6, 2), 42), "x")
        k, kv = placeholder(np.array([1, 2, 2], np.int32), "k", shape=UNKNOWN)
        s, sv = placeholder(np.array([1, 2, 2, 1], np.int32), "s")
        y = tf.raw_ops.MaxPoolV2(input=x, ksize=k, strides=s,
                                 padding="VALID")
        return y, {x: xv, k: kv, s: sv}
    case(FAMILY, "maxpool_v2_bad_ksize_error", maxpool_v2_bad_window)

    def avgpool_grad_raw():
        dy, dyv = placeholder(values((1, 3, 3, 2), 43), "dy")
        return tf.raw_ops.AvgPoolGrad(
            orig_input_shape=[1, 6, 5, 2], grad=dy, ksize=[1, 3, 3, 1],
            strides=[1, 2, 2, 1], padding="SAME"), {dy: dyv}
    case(FAMILY, "avgpool_grad_raw", avgpool_grad_raw)

    def maxpool_big():
        x = pattern((1, 11, 11, 32), 0.77)
        y = tf.nn.max_pool2d(x, 3, 2, "SAME")
        dy = pattern((1, 6, 6, 32), 0.19)
        (dx,) = tf.gradients(y, [x], grad_ys=dy)
        return [y, dx], None
    case(FAMILY, "maxpool_32_channels_grad", maxpool_big)

    def avgpool_big():
        x = pattern((1, 11, 11, 32), 0.77)
        y = tf.nn.avg_pool2d(x, 3, 2, "SAME")
        dy = pattern((1, 6, 6, 32), 0.19)
        (dx,) = tf.gradients(y, [x], grad_ys=dy)
        return [y, dx], None
    case(FAMILY, "avgpool_32_channels_grad", avgpool_big)


# ---------------------------------------------------------------------------
# Fused batch normalization.

def bn_case(name, x_shape, version=3, is_training=True, data_format="NHWC",
            dtype=np.float32, epsilon=0.001, factor=1.0, fetch_reserve=True,
            seed=50, empty_stats=False):
    channel = 1 if data_format in ("NCHW", "NCDHW") else len(x_shape) - 1
    c = x_shape[channel]

    def build():
        x, xv = placeholder(values(x_shape, seed, dtype, -2, 3), "x")
        scale = tf.constant(values((c,), seed + 1, np.float32, 0.5, 1.5))
        offset = tf.constant(values((c,), seed + 2))
        if empty_stats:
            mean = tf.constant([], tf.float32)
            var = tf.constant([], tf.float32)
        else:
            mean = tf.constant(values((c,), seed + 3))
            var = tf.constant(values((c,), seed + 4, np.float32, 0.5, 2))
        if version == 1:
            op = tf.raw_ops.FusedBatchNorm
        elif version == 2:
            op = tf.raw_ops.FusedBatchNormV2
        else:
            op = tf.raw_ops.FusedBatchNormV3
        outs = op(x=x, scale=scale, offset=offset, mean=mean, variance=var,
                  epsilon=epsilon, exponential_avg_factor=factor,
                  data_format=data_format, is_training=is_training)
        fetches = [outs[0], outs[1], outs[2]]
        if fetch_reserve and is_training:
            fetches += [outs[3], outs[4]]
        if version == 3:
            fetches.append(outs[5])
        return fetches, {x: xv}
    # y is normalised in float: float32's defaults hold; 16-bit y rounds.
    case(FAMILY, name, build)


def bn_grad_case(name, x_shape, is_training=True, dtype=np.float32,
                 data_format="NHWC", seed=60, version=3):
    channel = 1 if data_format in ("NCHW", "NCDHW") else len(x_shape) - 1
    c = x_shape[channel]

    def build():
        x, xv = placeholder(values(x_shape, seed, dtype, -2, 3), "x")
        scale = tf.constant(values((c,), seed + 1, np.float32, 0.5, 1.5))
        offset = tf.constant(values((c,), seed + 2))
        mean = tf.constant(values((c,), seed + 3))
        var = tf.constant(values((c,), seed + 4, np.float32, 0.5, 2))
        fn = {2: tf.raw_ops.FusedBatchNormV2,
              3: tf.raw_ops.FusedBatchNormV3}[version]
        outs = fn(x=x, scale=scale, offset=offset, mean=mean, variance=var,
                  epsilon=0.001, data_format=data_format,
                  is_training=is_training)
        dy = tf.constant(values(x_shape, seed + 5, dtype))
        grads = tf.gradients(outs[0], [x, scale, offset], grad_ys=dy)
        return grads, {x: xv}
    # Gradients sum over the batch; float32 sums differ in order (see
    # CONV_TOL).
    tol = {np.float32: CONV_TOL, np.float16: CONV_TOL_F16,
           BF16: CONV_TOL_BF16}[dtype]
    case(FAMILY, name, build, **tol)


def batch_norm_cases():
    bn_case("fbn_v3_train_nhwc", (2, 4, 4, 3))
    bn_case("fbn_v3_train_nchw", (2, 3, 4, 5), data_format="NCHW")
    bn_case("fbn_v3_train_avg_factor", (2, 3, 3, 4), factor=0.1)
    bn_case("fbn_v3_train_empty_running_stats", (2, 3, 3, 4),
            empty_stats=True)
    bn_case("fbn_v3_train_eps_0_1", (1, 5, 5, 2), epsilon=0.1)
    bn_case("fbn_v3_train_single_element", (1, 1, 1, 3))
    bn_case("fbn_v3_infer_nhwc", (2, 4, 4, 3), is_training=False)
    bn_case("fbn_v3_infer_nchw", (2, 3, 4, 5), is_training=False,
            data_format="NCHW")
    bn_case("fbn_v3_train_ndhwc", (2, 2, 3, 3, 4), data_format="NDHWC")
    bn_case("fbn_v3_train_ncdhw", (2, 3, 2, 3, 2), data_format="NCDHW")
    bn_case("fbn_v3_infer_ncdhw", (1, 3, 2, 3, 2), data_format="NCDHW",
            is_training=False)
    bn_case("fbn_v3_train_f16", (2, 4, 4, 3), dtype=np.float16)
    bn_case("fbn_v3_train_bf16", (2, 4, 4, 3), dtype=BF16)
    bn_case("fbn_v3_infer_f16", (2, 4, 4, 3), dtype=np.float16,
            is_training=False)
    bn_case("fbn_v3_infer_bf16_nchw", (2, 3, 4, 4), dtype=BF16,
            is_training=False, data_format="NCHW")
    bn_case("fbn_v2_train", (2, 4, 4, 3), version=2)
    bn_case("fbn_v2_infer_f16", (2, 4, 4, 3), version=2, dtype=np.float16,
            is_training=False)
    bn_case("fbn_v1_train", (2, 4, 4, 3), version=1)
    bn_case("fbn_v1_infer_nchw", (2, 3, 4, 4), version=1, is_training=False,
            data_format="NCHW")
    # TensorFlow leaves the reserve spaces of an empty x uninitialised.
    bn_case("fbn_v3_train_empty_x", (0, 4, 4, 3), fetch_reserve=False)

    def big_train():
        x = pattern((4, 8, 8, 32), 0.013) * 3.0 + 1.0
        scale = pattern((32,), 0.5) + 1.5
        offset = pattern((32,), 0.9)
        outs = tf.raw_ops.FusedBatchNormV3(
            x=x, scale=scale, offset=offset, mean=tf.zeros([32]),
            variance=tf.ones([32]), epsilon=0.001, is_training=True,
            exponential_avg_factor=0.01)
        return [outs[0], outs[1], outs[2], outs[3], outs[4]], None
    # Means and variances over 256 values per channel: float32 sums in a
    # different order (see CONV_TOL).
    case(FAMILY, "fbn_v3_train_32_channels", big_train, **CONV_TOL)

    def bad_scale():
        x, xv = placeholder(values((1, 2, 2, 3), 70), "x")
        s, sv = placeholder(np.ones((2,), np.float32), "s", shape=UNKNOWN)
        outs = tf.raw_ops.FusedBatchNormV3(
            x=x, scale=s, offset=tf.zeros([3]), mean=tf.zeros([3]),
            variance=tf.ones([3]), is_training=True)
        return outs[0], {x: xv, s: sv}
    case(FAMILY, "fbn_v3_bad_scale_error", bad_scale)

    def bad_mean_inference():
        x, xv = placeholder(values((1, 2, 2, 3), 71), "x")
        m, mv = placeholder(np.zeros((2,), np.float32), "m", shape=UNKNOWN)
        outs = tf.raw_ops.FusedBatchNormV3(
            x=x, scale=tf.ones([3]), offset=tf.zeros([3]), mean=m,
            variance=tf.ones([3]), is_training=False)
        return outs[0], {x: xv, m: mv}
    case(FAMILY, "fbn_v3_bad_mean_inference_error", bad_mean_inference)

    def bad_rank():
        x, xv = placeholder(values((2, 2, 3), 72), "x", shape=UNKNOWN)
        outs = tf.raw_ops.FusedBatchNormV3(
            x=x, scale=tf.ones([3]), offset=tf.zeros([3]),
            mean=tf.zeros([3]), variance=tf.ones([3]), is_training=True)
        return outs[0], {x: xv}
    case(FAMILY, "fbn_v3_rank3_error", bad_rank)

    bn_grad_case("fbn_grad_v3_train_nhwc", (2, 4, 4, 3))
    bn_grad_case("fbn_grad_v3_train_nchw", (2, 3, 4, 4), data_format="NCHW")
    bn_grad_case("fbn_grad_v3_infer_nhwc", (2, 4, 4, 3), is_training=False)
    bn_grad_case("fbn_grad_v3_train_f16", (2, 4, 4, 3), dtype=np.float16)
    bn_grad_case("fbn_grad_v3_train_bf16", (2, 4, 4, 3), dtype=BF16)
    bn_grad_case("fbn_grad_v3_train_ndhwc", (2, 2, 3, 3, 4),
                 data_format="NDHWC")
    bn_grad_case("fbn_grad_v2_train", (2, 4, 4, 3), version=2)

    def grad_v1():
        x, xv = placeholder(values((2, 3, 3, 4), 80, np.float32, -2, 3), "x")
        outs = tf.raw_ops.FusedBatchNorm(
            x=x, scale=tf.constant(values((4,), 81, np.float32, 0.5, 1.5)),
            offset=tf.zeros([4]), mean=tf.constant([], tf.float32),
            variance=tf.constant([], tf.float32), is_training=True)
        dy = tf.constant(values((2, 3, 3, 4), 82))
        g = tf.raw_ops.FusedBatchNormGrad(
            y_backprop=dy, x=x, scale=tf.constant(values((4,), 81, np.float32,
                                                         0.5, 1.5)),
            reserve_space_1=outs[3], reserve_space_2=outs[4],
            is_training=True)
        return [g[0], g[1], g[2], g[3], g[4]], {x: xv}
    case(FAMILY, "fbn_grad_v1_raw", grad_v1, **CONV_TOL)

    def grad_v3_infer_nchw():
        x, xv = placeholder(values((1, 3, 2, 2), 83), "x")
        g = tf.raw_ops.FusedBatchNormGradV3(
            y_backprop=tf.constant(values((1, 3, 2, 2), 84)), x=x,
            scale=tf.ones([3]), reserve_space_1=tf.zeros([3]),
            reserve_space_2=tf.ones([3]), reserve_space_3=tf.zeros([3]),
            is_training=False, data_format="NCHW")
        return g[0], {x: xv}
    case(FAMILY, "fbn_grad_v3_infer_nchw_error", grad_v3_infer_nchw)


# ---------------------------------------------------------------------------
# Keras layers as TensorFlow exports them (frozen: weights are constants).

# The frozen graph is made in a child process: golden_lib turns eager
# execution off, and Keras 3 builds its layers eagerly.
_KERAS_FREEZE = r"""
import os, sys
os.environ["TF_CPP_MIN_LOG_LEVEL"] = "2"
import numpy as np
import tensorflow as tf
from tensorflow.python.framework.convert_to_constants import (
    convert_variables_to_constants_v2)
kind, shape, seed, path = sys.argv[1], eval(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
if kind == "conv1d":
    layer = tf.keras.layers.Conv1D(4, 3, padding="same", activation="relu")
else:
    layer = tf.keras.layers.SeparableConv2D(5, 3, padding="same",
                                            depth_multiplier=2, strides=2)
layer.build((None,) + tuple(shape[1:]))
r = np.random.default_rng(seed)
layer.set_weights([r.uniform(-0.5, 0.5, w.shape).astype(np.float32)
                   for w in layer.get_weights()])
fn = tf.function(lambda x: layer(x)).get_concrete_function(
    tf.TensorSpec(shape, tf.float32, name="x"))
frozen = convert_variables_to_constants_v2(fn)
with open(path, "wb") as f:
    f.write(frozen.graph.as_graph_def().SerializeToString())
print(frozen.outputs[0].name)
"""


def keras_graph_case(name, kind, in_shape, seed):
    import subprocess
    import tempfile
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "graph.pb")
        out_name = subprocess.run(
            [sys.executable, "-c", _KERAS_FREEZE, kind, repr(in_shape),
             str(seed), path], check=True, capture_output=True,
            text=True).stdout.strip().splitlines()[-1]
        graph_def = tf1.GraphDef()
        with open(path, "rb") as f:
            graph_def.ParseFromString(f.read())
    # Freezing writes some zero constants as TensorProtos without values,
    # which TensorFlow reads as zeros but dfx's Tensor::FromProto rejects
    # (reported to the runtime's owner); spell the values out.
    for node in graph_def.node:
        if node.op == "Const":
            value = tf.make_ndarray(node.attr["value"].tensor)
            node.attr["value"].tensor.CopyFrom(tf.make_tensor_proto(value))

    def build():
        x, xv = placeholder(values(in_shape, seed + 1), "input")
        (y,) = tf1.import_graph_def(graph_def, input_map={"x:0": x},
                                    return_elements=[out_name], name="model")
        return y, {x: xv}
    case(FAMILY, name, build, **CONV_TOL)


def keras_cases():
    # Conv1D: ExpandDims + Conv2D + Squeeze, BiasAdd, Relu.
    keras_graph_case("keras_conv1d", "conv1d", (2, 10, 3), 90)
    # SeparableConv2D: DepthwiseConv2dNative + 1x1 Conv2D, BiasAdd.
    keras_graph_case("keras_separable_conv2d", "separable", (1, 7, 7, 3), 91)


def main():
    conv2d_cases()
    conv_grad_cases()
    depthwise_cases()
    pooling_cases()
    batch_norm_cases()
    keras_cases()


if __name__ == "__main__":
    main()
