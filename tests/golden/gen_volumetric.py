#!/usr/bin/env python3
"""Golden cases of the volumetric family: Conv3D and its gradients, 3-D max
and average pooling with their gradients, ExtractImagePatches and
ExtractVolumePatches, Dilation2D and its gradients, a frozen Keras Conv3D
model and a tf.compat.v1 training step of the same shape; and TensorFlow's
OpDefs and CPU kernel types of these ops.

Run with the TensorFlow virtualenv:
    $(tools/tf_env) tests/golden/gen_volumetric.py
"""

import os
import sys

# The Keras case is frozen in eager mode; every other case builds its own
# tf.Graph, which is graph mode either way.
os.environ["DFX_GOLDEN_EAGER"] = "1"
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402
from tensorflow.python.framework.convert_to_constants import (  # noqa: E402
    convert_variables_to_constants_v2)

import golden_lib  # noqa: E402
from golden_lib import case, placeholder, rng, tf1  # noqa: E402

FAMILY = "volumetric"
raw = tf.raw_ops
BF16 = tf.bfloat16.as_numpy_dtype

# float32 sums run in another order in dfx (direct loops) than in TensorFlow
# (oneDNN's blocked kernels); up to ~250 terms here.
TOL = {
    np.float32: dict(rtol=1e-4, atol=1e-5),
    # TensorFlow's float64 Conv3D gradients are off by up to ~1e-7 from
    # the exact sums (checked against numpy); dfx sums in double.
    np.float64: dict(rtol=1e-6, atol=1e-6),
    # Both sides sum in float and round once; TensorFlow's gradient kernels
    # for 16-bit types may round partial sums, so leave a few 16-bit ulps.
    np.float16: dict(rtol=1e-2, atol=1e-2),
    BF16: dict(rtol=5e-2, atol=5e-2),
}


def values(shape, seed, dtype=np.float32):
    return rng(seed).uniform(-1, 1, size=shape).astype(np.float32).astype(
        dtype)


def distinct(shape, seed, dtype=np.float32):
    """Distinct values, exact in bfloat16 (multiples of 1/4 below 64), so
    max pooling has no ties."""
    n = int(np.prod(shape))
    v = (rng(seed).permutation(n).astype(np.float64) - n / 2) / 4
    return v.reshape(shape).astype(dtype)


def to_format(shape, data_format):
    """An NDHWC shape in data_format."""
    if data_format == "NCDHW":
        return (shape[0], shape[4], shape[1], shape[2], shape[3])
    return tuple(shape)


def spatial5(v, data_format):
    """A 5-element attr list with spatial values `v` (3 ints or one)."""
    if isinstance(v, int):
        v = [v, v, v]
    if data_format == "NCDHW":
        return [1, 1] + list(v)
    return [1] + list(v) + [1]


# ---------------------------------------------------------------------------
# Conv3D and its gradients.

def conv3d_case(name, x_shape, f_shape, strides=1, padding="SAME",
                dilations=1, dtype=np.float32, data_format="NDHWC", seed=0,
                grads=True):
    """Conv3D and its gradients of one geometry; x_shape is NDHWC."""
    def build():
        xs = to_format(x_shape, data_format)
        x, xv = placeholder(values(xs, seed, dtype), "x")
        f, fv = placeholder(values(f_shape, seed + 1, dtype), "f")
        attrs = dict(strides=spatial5(strides, data_format), padding=padding,
                     dilations=spatial5(dilations, data_format),
                     data_format=data_format)
        y = raw.Conv3D(input=x, filter=f, **attrs)
        dy = tf.cast(tf.sin(tf.cast(
            tf.reshape(tf.range(tf.size(y)), tf.shape(y)), tf.float32)),
            dtype)
        dx = raw.Conv3DBackpropInputV2(input_sizes=tf.shape(x), filter=f,
                                       out_backprop=dy, **attrs)
        df = raw.Conv3DBackpropFilterV2(input=x, filter_sizes=tf.shape(f),
                                        out_backprop=dy, **attrs)
        fetches = [y, dx, df] if grads else [y]
        return fetches, {x: xv, f: fv}
    case(FAMILY, name, build, **TOL[dtype])


def conv3d_error_case(name, x_shape, f_shape, **attrs):
    def build():
        # Unknown shapes, so the error comes from the kernel.
        x, xv = placeholder(values(x_shape, 0), "x",
                            shape=tf.TensorShape(None))
        f, fv = placeholder(values(f_shape, 1), "f",
                            shape=tf.TensorShape(None))
        return raw.Conv3D(input=x, filter=f, **attrs), {x: xv, f: fv}
    case(FAMILY, name, build)


def conv3d_cases():
    conv3d_case("conv3d_same_3x3x3", (1, 4, 5, 5, 2), (3, 3, 3, 2, 3))
    conv3d_case("conv3d_valid_stride2", (2, 7, 6, 5, 2), (3, 2, 3, 2, 4),
                strides=2, padding="VALID")
    conv3d_case("conv3d_same_stride_mixed", (1, 5, 7, 6, 3), (2, 3, 2, 3, 2),
                strides=[1, 2, 3])
    conv3d_case("conv3d_same_even_kernel", (1, 4, 4, 4, 1), (4, 2, 2, 1, 2))
    conv3d_case("conv3d_1x1x1", (2, 3, 3, 3, 4), (1, 1, 1, 4, 5))
    conv3d_case("conv3d_dilation2_same", (1, 6, 6, 6, 2), (3, 3, 2, 2, 2),
                dilations=[2, 2, 1])
    conv3d_case("conv3d_dilation_valid", (1, 7, 6, 5, 1), (2, 2, 2, 1, 3),
                dilations=[3, 1, 2], padding="VALID",
                # TensorFlow's oneDNN gradient kernels abort on this
                # geometry ("could not create a primitive descriptor").
                grads=False)
    conv3d_case("conv3d_ncdhw", (2, 4, 5, 4, 3), (2, 3, 2, 3, 2), strides=2,
                data_format="NCDHW")
    conv3d_case("conv3d_ncdhw_valid", (1, 5, 4, 6, 2), (3, 2, 2, 2, 3),
                padding="VALID", data_format="NCDHW")
    conv3d_case("conv3d_f64", (1, 4, 4, 4, 2), (3, 3, 3, 2, 2),
                dtype=np.float64, strides=[2, 1, 1])
    conv3d_case("conv3d_f16", (1, 3, 4, 4, 2), (2, 2, 2, 2, 3),
                dtype=np.float16)
    conv3d_case("conv3d_bf16", (1, 3, 4, 4, 2), (2, 2, 2, 2, 3), dtype=BF16,
                padding="VALID")
    conv3d_case("conv3d_filter_larger_than_input_same", (1, 2, 2, 2, 1),
                (3, 3, 3, 1, 2))
    # No empty-batch case: TensorFlow's oneDNN Conv3D returns its input's
    # shape [0,3,3,3,2] for a [0,3,3,3,2] x [2,2,2,2,3] convolution instead
    # of [0,3,3,3,3]; the unit tests cover empty tensors.
    conv3d_error_case("conv3d_depth_mismatch", (1, 3, 3, 3, 2),
                      (2, 2, 2, 3, 3), strides=[1] * 5, padding="VALID")
    conv3d_error_case("conv3d_filter_rank4", (1, 3, 3, 3, 2), (2, 2, 2, 3),
                      strides=[1] * 5, padding="VALID")
    conv3d_error_case("conv3d_batch_stride", (1, 3, 3, 3, 2),
                      (2, 2, 2, 2, 3), strides=[2, 1, 1, 1, 1],
                      padding="VALID")


# ---------------------------------------------------------------------------
# 3-D pooling and its gradients.

def pool3d_case(name, x_shape, ksize, strides, padding, dtype=np.float32,
                data_format="NDHWC", seed=0, ties=False):
    """MaxPool3D and AvgPool3D of one geometry and their gradients (and
    MaxPool3DGradGrad); x_shape is NDHWC."""
    def build():
        xs = to_format(x_shape, data_format)
        if ties:
            # Few distinct values: windows hold tied maxima.
            xv0 = rng(seed).integers(0, 3, size=xs).astype(dtype)
        else:
            xv0 = distinct(xs, seed, dtype)
        x, xv = placeholder(xv0, "x")
        attrs = dict(ksize=spatial5(ksize, data_format),
                     strides=spatial5(strides, data_format), padding=padding,
                     data_format=data_format)
        mx = raw.MaxPool3D(input=x, **attrs)
        av = raw.AvgPool3D(input=x, **attrs)
        dy = tf.cast(tf.sin(tf.cast(
            tf.reshape(tf.range(tf.size(mx)), tf.shape(mx)), tf.float32)),
            dtype)
        dmx = raw.MaxPool3DGrad(orig_input=x, orig_output=mx, grad=dy,
                                **attrs)
        dav = raw.AvgPool3DGrad(orig_input_shape=tf.shape(x), grad=dy,
                                **attrs)
        ddx = tf.cast(tf.cos(tf.cast(
            tf.reshape(tf.range(tf.size(x)), tf.shape(x)), tf.float32)),
            dtype)
        gg = raw.MaxPool3DGradGrad(orig_input=x, orig_output=mx, grad=ddx,
                                   **attrs)
        if mx.shape == x.shape:
            # TensorFlow's MaxPool3DGradGrad forwards its grad input's buffer
            # to the output when the shapes agree and zeroes it before
            # reading it, so its answer is all zeros: compare it only where
            # the pooled shape differs from the input's.
            return [mx, av, dmx, dav], {x: xv}
        if data_format == "NCDHW":
            # TensorFlow's CPU MaxPool3DGradGrad takes NDHWC only
            # (maxpool3d_gradgrad_ncdhw checks the error).
            return [mx, av, dmx, dav], {x: xv}
        return [mx, av, dmx, dav, gg], {x: xv}
    case(FAMILY, name, build, **TOL[dtype])


def pool3d_error_case(name, op, x_shape, **attrs):
    def build():
        x, xv = placeholder(values(x_shape, 0), "x",
                            shape=tf.TensorShape(None))
        return getattr(raw, op)(input=x, **attrs), {x: xv}
    case(FAMILY, name, build)


def gradgrad_ncdhw_case():
    def build():
        x, xv = placeholder(distinct((1, 2, 3, 3, 3), 0), "x")
        attrs = dict(ksize=[1, 1, 2, 2, 2], strides=[1] * 5, padding="VALID",
                     data_format="NCDHW")
        y = raw.MaxPool3D(input=x, **attrs)
        return raw.MaxPool3DGradGrad(orig_input=x, orig_output=y, grad=x,
                                     **attrs), {x: xv}
    case(FAMILY, "maxpool3d_gradgrad_ncdhw", build)


def pool3d_cases():
    pool3d_case("pool3d_valid_2x2x2", (1, 4, 4, 4, 2), 2, 2, "VALID")
    pool3d_case("pool3d_same_3x3x3_stride2", (2, 5, 5, 5, 2), 3, 2, "SAME")
    pool3d_case("pool3d_same_overlap", (1, 5, 4, 6, 1), [2, 3, 2],
                [1, 2, 1], "SAME")
    pool3d_case("pool3d_valid_mixed", (1, 6, 5, 4, 3), [3, 2, 1],
                [2, 2, 1], "VALID")
    pool3d_case("pool3d_ncdhw", (1, 5, 5, 4, 2), [2, 2, 3], [2, 1, 2],
                "SAME", data_format="NCDHW")
    pool3d_case("pool3d_bf16", (1, 4, 4, 4, 2), 2, 1, "SAME", dtype=BF16)
    pool3d_case("pool3d_ties", (1, 4, 4, 4, 1), 2, 1, "VALID", ties=True)
    pool3d_case("pool3d_window_bigger_than_input_same", (1, 2, 2, 2, 1), 3,
                1, "SAME")
    # No empty-batch case: TensorFlow's oneDNN MaxPool3DGrad crashes on it
    # (a CHECK failure); the unit tests cover empty tensors.
    pool3d_error_case("maxpool3d_depth_window", "MaxPool3D", (1, 4, 4, 4, 2),
                      ksize=[1, 2, 2, 2, 2], strides=[1] * 5,
                      padding="VALID")
    pool3d_error_case("avgpool3d_batch_window", "AvgPool3D", (2, 4, 4, 4, 2),
                      ksize=[2, 2, 2, 2, 1], strides=[1] * 5,
                      padding="VALID")
    gradgrad_ncdhw_case()


# ---------------------------------------------------------------------------
# ExtractImagePatches and ExtractVolumePatches.

def patches_case(name, op, x_shape, ksizes, strides, padding, rates=None,
                 dtype=np.float32, seed=0):
    def build():
        if np.issubdtype(np.dtype(dtype), np.integer):
            xv0 = rng(seed).integers(0, 100, size=x_shape).astype(dtype)
        else:
            xv0 = values(x_shape, seed, dtype)
        x, xv = placeholder(xv0, "x")
        if op == "ExtractImagePatches":
            y = raw.ExtractImagePatches(images=x, ksizes=ksizes,
                                        strides=strides, rates=rates,
                                        padding=padding)
        else:
            y = raw.ExtractVolumePatches(input=x, ksizes=ksizes,
                                         strides=strides, padding=padding)
        return y, {x: xv}
    # Pure data movement: exact.
    case(FAMILY, name, build, rtol=0.0, atol=0.0)


def patches_error_case(name, op, x_shape, **attrs):
    def build():
        x, xv = placeholder(values(x_shape, 0), "x",
                            shape=tf.TensorShape(None))
        if op == "ExtractImagePatches":
            return raw.ExtractImagePatches(images=x, **attrs), {x: xv}
        return raw.ExtractVolumePatches(input=x, **attrs), {x: xv}
    case(FAMILY, name, build)


def patches_cases():
    eip = "ExtractImagePatches"
    patches_case("image_patches_valid_3x3", eip, (2, 5, 6, 2), [1, 3, 3, 1],
                 [1, 1, 1, 1], "VALID", rates=[1, 1, 1, 1])
    patches_case("image_patches_same_stride2", eip, (1, 7, 6, 3),
                 [1, 3, 2, 1], [1, 2, 2, 1], "SAME", rates=[1, 1, 1, 1])
    patches_case("image_patches_rates", eip, (1, 8, 9, 2), [1, 2, 3, 1],
                 [1, 3, 2, 1], "SAME", rates=[1, 2, 3, 1])
    patches_case("image_patches_rates_valid", eip, (1, 8, 9, 1),
                 [1, 3, 2, 1], [1, 1, 2, 1], "VALID", rates=[1, 3, 2, 1])
    patches_case("image_patches_window_bigger_same", eip, (1, 2, 3, 1),
                 [1, 4, 4, 1], [1, 1, 1, 1], "SAME", rates=[1, 1, 1, 1])
    patches_case("image_patches_empty_batch", eip, (0, 4, 4, 2),
                 [1, 2, 2, 1], [1, 1, 1, 1], "VALID", rates=[1, 1, 1, 1])
    for dtype in (np.float64, np.float16, BF16, np.int8, np.uint8, np.int16,
                  np.uint16, np.int32, np.uint32, np.int64, np.uint64):
        # complex64/128 too in TensorFlow; golden_util reads no complex .npy,
        # so the unit tests cover those.
        patches_case("image_patches_" + np.dtype(dtype).name, eip,
                     (1, 4, 5, 2), [1, 2, 3, 1], [1, 2, 1, 1], "SAME",
                     rates=[1, 1, 1, 1], dtype=dtype)
    patches_error_case("image_patches_depth_window", eip, (1, 4, 4, 2),
                       ksizes=[1, 2, 2, 2], strides=[1, 1, 1, 1],
                       rates=[1, 1, 1, 1], padding="VALID")
    patches_error_case("image_patches_zero_rate", eip, (1, 4, 4, 2),
                       ksizes=[1, 2, 2, 1], strides=[1, 1, 1, 1],
                       rates=[1, 0, 1, 1], padding="VALID")
    patches_error_case("image_patches_rank3", eip, (4, 4, 2),
                       ksizes=[1, 2, 2, 1], strides=[1, 1, 1, 1],
                       rates=[1, 1, 1, 1], padding="VALID")

    evp = "ExtractVolumePatches"
    patches_case("volume_patches_valid", evp, (2, 3, 4, 4, 2),
                 [1, 2, 2, 2, 1], [1, 1, 1, 1, 1], "VALID")
    patches_case("volume_patches_same_strided", evp, (1, 5, 4, 6, 2),
                 [1, 2, 3, 2, 1], [1, 2, 2, 3, 1], "SAME")
    patches_case("volume_patches_window_bigger_same", evp, (1, 2, 2, 3, 1),
                 [1, 3, 3, 2, 1], [1, 1, 2, 1, 1], "SAME")
    for dtype in (np.float64, np.float16, BF16, np.int8, np.uint8, np.int16,
                  np.uint16, np.int32, np.uint32, np.int64, np.uint64):
        patches_case("volume_patches_" + np.dtype(dtype).name, evp,
                     (1, 3, 3, 4, 1), [1, 2, 2, 2, 1], [1, 1, 2, 1, 1],
                     "SAME", dtype=dtype)
    patches_error_case("volume_patches_batch_stride", evp, (2, 3, 3, 3, 1),
                       ksizes=[1, 2, 2, 2, 1], strides=[2, 1, 1, 1, 1],
                       padding="VALID")
    patches_error_case("volume_patches_zero_ksize", evp, (1, 3, 3, 3, 1),
                       ksizes=[1, 0, 2, 2, 1], strides=[1, 1, 1, 1, 1],
                       padding="VALID")


# ---------------------------------------------------------------------------
# Dilation2D and its gradients.

def dilation_case(name, x_shape, f_shape, strides, rates, padding,
                  dtype=np.float32, seed=0, ints=False):
    """Dilation2D and both gradients; `ints` draws small integers, so
    windows hold tied maxima."""
    def build():
        if ints or np.issubdtype(np.dtype(dtype), np.integer):
            xv0 = rng(seed).integers(0, 4, size=x_shape).astype(dtype)
            fv0 = rng(seed + 1).integers(0, 3, size=f_shape).astype(dtype)
        else:
            xv0 = values(x_shape, seed, dtype)
            fv0 = values(f_shape, seed + 1, dtype)
        x, xv = placeholder(xv0, "x")
        f, fv = placeholder(fv0, "f")
        attrs = dict(strides=strides, rates=rates, padding=padding)
        y = raw.Dilation2D(input=x, filter=f, **attrs)
        dy = tf.cast(tf.reshape(tf.range(tf.size(y)) % 7 - 3, tf.shape(y)),
                     dtype)
        dx = raw.Dilation2DBackpropInput(input=x, filter=f, out_backprop=dy,
                                         **attrs)
        df = raw.Dilation2DBackpropFilter(input=x, filter=f, out_backprop=dy,
                                          **attrs)
        return [y, dx, df], {x: xv, f: fv}
    # Maxima and sums of small integers: exact in every dtype.
    case(FAMILY, name, build, **TOL.get(dtype, {}))


def erosion_case():
    def build():
        x, xv = placeholder(values((1, 5, 6, 2), 3), "x")
        f, fv = placeholder(values((2, 3, 2), 4), "f")
        y = tf.nn.erosion2d(x, f, strides=[1, 2, 1, 1], padding="SAME",
                            data_format="NHWC", dilations=[1, 1, 2, 1])
        grads = tf.gradients(tf.reduce_sum(y * y), [x, f])
        return [y] + grads, {x: xv, f: fv}
    case(FAMILY, "erosion2d_with_gradients", build, rtol=1e-5, atol=1e-6)


def dilation_error_case(name, x_shape, f_shape, **attrs):
    def build():
        x, xv = placeholder(values(x_shape, 0), "x",
                            shape=tf.TensorShape(None))
        f, fv = placeholder(values(f_shape, 1), "f",
                            shape=tf.TensorShape(None))
        return raw.Dilation2D(input=x, filter=f, **attrs), {x: xv, f: fv}
    case(FAMILY, name, build)


def dilation_cases():
    one = [1, 1, 1, 1]
    dilation_case("dilation2d_valid", (2, 5, 6, 3), (2, 3, 3), one, one,
                  "VALID")
    dilation_case("dilation2d_same_strided", (1, 7, 6, 2), (3, 2, 2),
                  [1, 2, 3, 1], one, "SAME")
    dilation_case("dilation2d_rates", (1, 8, 9, 2), (2, 3, 2), [1, 1, 2, 1],
                  [1, 3, 2, 1], "SAME")
    dilation_case("dilation2d_rates_valid", (1, 9, 8, 1), (3, 2, 1), one,
                  [1, 2, 3, 1], "VALID")
    dilation_case("dilation2d_ties", (1, 5, 5, 2), (3, 3, 2), one, one,
                  "SAME", ints=True)
    dilation_case("dilation2d_window_bigger_same", (1, 2, 3, 1), (4, 4, 1),
                  one, one, "SAME")
    for dtype in (np.float64, np.float16, BF16, np.int8, np.uint8, np.int16,
                  np.uint16, np.int32, np.uint32, np.int64, np.uint64):
        dilation_case("dilation2d_" + np.dtype(dtype).name, (1, 4, 5, 2),
                      (2, 3, 2), [1, 2, 1, 1], one, "SAME", dtype=dtype)
    erosion_case()
    dilation_error_case("dilation2d_depth_mismatch", (1, 4, 4, 2), (2, 2, 3),
                        strides=one, rates=one, padding="VALID")
    dilation_error_case("dilation2d_batch_stride", (1, 4, 4, 2), (2, 2, 2),
                        strides=[2, 1, 1, 1], rates=one, padding="VALID")
    dilation_error_case("dilation2d_filter_rank4", (1, 4, 4, 2),
                        (2, 2, 2, 1), strides=one, rates=one,
                        padding="VALID")


# ---------------------------------------------------------------------------
# A frozen Keras model and a training step.

def keras_conv3d_model():
    keras = tf.keras
    keras.utils.set_random_seed(7)
    model = keras.Sequential([
        keras.Input((4, 6, 6, 2)),
        keras.layers.Conv3D(4, 3, padding="same", activation="relu"),
        keras.layers.MaxPooling3D(2),
        keras.layers.Conv3D(6, (1, 2, 2), strides=(1, 2, 1),
                            padding="valid"),
        keras.layers.AveragePooling3D((1, 2, 2), padding="same"),
        keras.layers.GlobalAveragePooling3D(),
        keras.layers.Dense(5, activation="softmax"),
    ])
    fn = tf.function(lambda x: model(x, training=False))
    concrete = fn.get_concrete_function(
        tf.TensorSpec((2, 4, 6, 6, 2), tf.float32))
    frozen = convert_variables_to_constants_v2(concrete)
    graph_def = frozen.graph.as_graph_def()
    x = values((2, 4, 6, 6, 2), 3)
    ops = sorted({n.op for n in graph_def.node})
    golden_lib.case_graph_def(
        FAMILY, "keras_conv3d_model", graph_def,
        {frozen.inputs[0].name: x}, [t.name for t in frozen.outputs],
        rtol=1e-4, atol=1e-5, note="ops: " + ", ".join(ops))


def training_step():
    """tf.compat.v1: Conv3D -> MaxPool3D -> AvgPool3D -> mean -> dense ->
    softmax cross entropy; fetches the loss and tf.gradients of every
    weight and of the input."""
    def build():
        x, xv = placeholder(values((2, 4, 4, 4, 2), 5), "x")
        labels, lv = placeholder(np.array([1, 2], np.int32), "labels")
        w = tf.constant(values((3, 3, 3, 2, 4), 6), name="w")
        b = tf.constant(values((4,), 7), name="b")
        dw = tf.constant(values((4, 3), 8), name="dense_w")
        h = tf.nn.relu(tf.nn.conv3d(x, w, strides=[1, 1, 1, 1, 1],
                                    padding="SAME") + b)
        h = tf.nn.max_pool3d(h, ksize=2, strides=2, padding="VALID")
        h = tf.nn.avg_pool3d(h, ksize=[1, 2, 2], strides=1, padding="SAME")
        h = tf.reduce_mean(h, axis=[1, 2, 3])
        logits = tf.matmul(h, dw)
        loss = tf.reduce_mean(
            tf.nn.sparse_softmax_cross_entropy_with_logits(
                labels=labels, logits=logits))
        grads = tf.gradients(loss, [w, b, dw, x])
        return [loss] + grads, {x: xv, labels: lv}
    case(FAMILY, "train_step_conv3d_pool3d", build, rtol=1e-4, atol=1e-6)


OP_NAMES = ["Conv3D", "Conv3DBackpropInputV2", "Conv3DBackpropFilterV2",
            "MaxPool3D", "AvgPool3D", "MaxPool3DGrad", "AvgPool3DGrad",
            "MaxPool3DGradGrad", "ExtractImagePatches",
            "ExtractVolumePatches", "Dilation2D", "Dilation2DBackpropInput",
            "Dilation2DBackpropFilter"]


def main():
    conv3d_cases()
    pool3d_cases()
    patches_cases()
    dilation_cases()
    keras_conv3d_model()
    training_step()
    golden_lib.write_op_defs(FAMILY, OP_NAMES)


if __name__ == "__main__":
    main()
