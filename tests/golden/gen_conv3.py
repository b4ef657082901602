#!/usr/bin/env python3
"""Golden cases of the conv3 family, and their OpDefs:

- Conv, TensorFlow's generic convolution: 2 spatial dims (Conv2D's CPU
  launch: NHWC only, SAME, VALID and EXPLICIT padding, strides, dilations)
  and 3 (Conv3D's: NDHWC only, no dilation, no explicit padding), extra
  batch dims (batch_dims 0 and 2), every dtype TensorFlow's CPU kernel
  serves (half, bfloat16, float, double, int32), empty inputs, and the
  kernel's errors (groups > 1 and channels-first 2-D are Unimplemented).
- FusedPadConv2D and FusedResizeAndPadConv2D (graph_transforms'
  fuse_pad_and_conv and fuse_resize_pad_and_conv): REFLECT and SYMMETRIC
  mirror padding, TensorFlow's legacy bilinear resize with and without
  align_corners, up and down, SAME and VALID (whose windows TensorFlow's
  im2col centres when the stride leaves rows over), strides, dtypes, and
  the errors of bad paddings, sizes and filters.
- ApproxTopK: on CPU TensorFlow computes the exact top k of the last dim,
  sorted, ties by lower index; its kernel serves
  reduction_dimension -1 and is_max_k true only (other values:
  InvalidArgument, no kernel).
- RefSelect (multi-step: variables initialised, then the selected one read
  and assigned through the selection) and Fact.
- QuantizedResizeBilinear: quint8 (TensorFlow's 7-bit fixed point in
  16-bit sums), qint32 (30 bits in 64-bit sums, levels read through float)
  and float, with align_corners and half_pixel_centers (both at once too:
  TensorFlow's resizer state ignores half-pixel centers, so it allows
  them), up, down, the same size, one pixel; equal bit for bit.
- QuantizedInstanceNorm (quint8): the normalized range, a given one,
  min_separation, variance_epsilon; levels within one of TensorFlow's
  (its vectorized rsqrt is an approximation refined once, not 1/sqrt).

Shape errors TensorFlow raises at graph construction are the unit test's
(tests/kernels/conv3_test.cc); cases that reach the kernel's checks feed
inputs of unknown shape.

Left out: TileGrad (TensorFlow 2.21 refuses to build it: removed at
GraphDef version 3, and its CPU kernels constrain an attr the op lacks);
TensorFlow's pure test ops (Old and the like). QuantizedInstanceNorm of a
non-4-D input is not a case: TensorFlow's kernel aborts (dfx:
InvalidArgument, tests/kernels/conv3_test.cc).

    $(tools/tf_env) tests/golden/gen_conv3.py
"""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402

import golden_lib  # noqa: E402
from golden_lib import rng, steps_case, tf1  # noqa: E402

FAMILY = "conv3"
RAW = tf.raw_ops

OP_NAMES = ["Conv", "FusedPadConv2D", "FusedResizeAndPadConv2D",
            "ApproxTopK", "RefSelect", "Fact", "QuantizedResizeBilinear",
            "QuantizedInstanceNorm"]

# Sums of products: looser than an element-wise op's defaults.
TOL = {tf.float32: (1e-4, 1e-4), tf.float64: (1e-10, 1e-10),
       tf.float16: (2e-2, 5e-2), tf.bfloat16: (5e-2, 2e-1),
       tf.int32: (0.0, 0.0)}


def case(name, build, dtype=tf.float32, **kw):
    rtol, atol = TOL.get(dtype, (None, None))
    kw.setdefault("rtol", rtol)
    kw.setdefault("atol", atol)
    try:
        golden_lib.case(FAMILY, name, build, **kw)
    except ValueError as err:
        # TensorFlow's shape function refused the graph: no case; the
        # unit test checks that dfx's refuses it too.
        print(f"{FAMILY}/{name}: refused at graph construction: "
              f"{str(err).splitlines()[0][:120]}", file=sys.stderr)


def values(shape, dtype, seed, lo=-2.0, hi=2.0):
    if dtype == tf.int32:
        return rng(seed).integers(-4, 5, size=shape).astype(np.int32)
    v = rng(seed).uniform(lo, hi, size=shape).astype(np.float32)
    return v.astype(dtype.as_numpy_dtype)


def feed(v, known=True):
    v = np.asarray(v)
    p = tf1.placeholder(tf.as_dtype(v.dtype), shape=v.shape if known else None)
    return p, v


DTYPES = [("f32", tf.float32), ("f64", tf.float64), ("f16", tf.float16),
          ("bf16", tf.bfloat16), ("i32", tf.int32)]


# --------------------------------------------------------------------------
# Conv


def conv_case(name, x_shape, f_shape, dtype=tf.float32, known=True, **attrs):
    def build():
        x, xv = feed(values(x_shape, dtype, 1), known)
        f, fv = feed(values(f_shape, dtype, 2), known)
        return RAW.Conv(input=x, filter=f, **attrs), {x: xv, f: fv}
    case(name, build, dtype)


def conv_cases():
    for tag, dt in DTYPES:
        conv_case(f"conv2d_valid_{tag}", [2, 5, 6, 3], [2, 3, 3, 4], dt,
                  strides=[1, 1, 1, 1], padding="VALID")
        conv_case(f"conv2d_same_stride_{tag}", [1, 7, 6, 2], [3, 3, 2, 3], dt,
                  strides=[1, 2, 3, 1], padding="SAME")
        conv_case(f"conv3d_valid_{tag}", [2, 4, 5, 4, 2], [2, 3, 2, 2, 3], dt,
                  strides=[1, 1, 1, 1, 1], padding="VALID")
        conv_case(f"conv3d_same_stride_{tag}", [1, 5, 4, 6, 2],
                  [3, 2, 3, 2, 2], dt, strides=[1, 2, 1, 2, 1],
                  padding="SAME")
    conv_case("conv2d_explicit", [1, 5, 5, 2], [3, 2, 2, 3],
              strides=[1, 2, 1, 1], padding="EXPLICIT",
              explicit_paddings=[0, 0, 1, 2, 0, 3, 0, 0])
    conv_case("conv2d_explicit_i32", [1, 4, 4, 2], [2, 2, 2, 2], tf.int32,
              strides=[1, 1, 1, 1], padding="EXPLICIT",
              explicit_paddings=[0, 0, 2, 0, 1, 1, 0, 0])
    conv_case("conv2d_dilated_same", [1, 7, 8, 2], [3, 2, 2, 3],
              strides=[1, 1, 1, 1], padding="SAME", dilations=[1, 2, 3, 1])
    conv_case("conv2d_dilated_valid_f64", [2, 7, 7, 1], [2, 3, 1, 2],
              tf.float64, strides=[1, 2, 1, 1], padding="VALID",
              dilations=[1, 3, 2, 1])
    conv_case("conv2d_batch_dims_2", [2, 3, 5, 5, 2], [3, 3, 2, 2],
              strides=[1, 1, 1, 1], padding="SAME", batch_dims=2)
    conv_case("conv2d_batch_dims_0", [5, 6, 3], [2, 2, 3, 2],
              strides=[1, 1, 1, 1], padding="VALID", batch_dims=0)
    conv_case("conv3d_batch_dims_2", [2, 2, 3, 4, 3, 1], [2, 2, 2, 1, 2],
              strides=[1, 1, 1, 1, 1], padding="SAME", batch_dims=2)
    def wrapping():
        # int32 sums past 2^31 wrap in TensorFlow's contraction.
        xv = np.full([1, 2, 2, 2, 2], 2**20 + 7, np.int32)
        fv = np.full([2, 2, 2, 2, 1], 2**12 + 3, np.int32)
        x, _ = feed(xv)
        f, _ = feed(fv)
        return RAW.Conv(input=x, filter=f, strides=[1, 1, 1, 1, 1],
                        padding="VALID"), {x: xv, f: fv}
    case("conv3d_i32_wrapping", wrapping, tf.int32)
    conv_case("conv2d_filter_1x1", [1, 3, 3, 4], [1, 1, 4, 5],
              strides=[1, 1, 1, 1], padding="VALID")
    conv_case("conv2d_empty_batch", [0, 4, 4, 2], [2, 2, 2, 3],
              strides=[1, 1, 1, 1], padding="VALID")
    conv_case("conv2d_empty_spatial_same", [1, 0, 4, 2], [1, 2, 2, 3],
              strides=[1, 1, 1, 1], padding="SAME")
    conv_case("conv3d_empty_batch", [0, 3, 3, 3, 2], [2, 2, 2, 2, 1],
              strides=[1, 1, 1, 1, 1], padding="VALID")
    conv_case("conv2d_window_too_big_valid", [1, 2, 2, 1], [3, 3, 1, 1],
              known=False, strides=[1, 1, 1, 1], padding="VALID")
    # Errors of the kernel (unknown shapes get past the shape function).
    conv_case("error_conv2d_nchw", [1, 2, 4, 4], [2, 2, 2, 3], known=False,
              strides=[1, 1, 1, 1], padding="VALID",
              data_format="CHANNELS_FIRST")
    conv_case("error_conv3d_ncdhw", [1, 2, 3, 4, 4], [2, 2, 2, 2, 3],
              known=False, strides=[1, 1, 1, 1, 1], padding="VALID",
              data_format="CHANNELS_FIRST")
    conv_case("error_groups", [1, 4, 4, 4], [2, 2, 2, 4],
              strides=[1, 1, 1, 1], padding="VALID", groups=2)
    conv_case("error_conv3d_dilated", [1, 5, 5, 5, 2], [2, 2, 2, 2, 3],
              known=False, strides=[1, 1, 1, 1, 1], padding="SAME",
              dilations=[1, 2, 2, 2, 1])
    conv_case("error_depth_mismatch", [1, 4, 4, 4], [2, 2, 2, 3],
              known=False, strides=[1, 1, 1, 1], padding="VALID")
    conv_case("error_empty_filter", [1, 4, 4, 2], [2, 2, 2, 0], known=False,
              strides=[1, 1, 1, 1], padding="VALID")
    conv_case("error_channel_stride", [1, 4, 4, 2], [2, 2, 2, 3],
              known=False, strides=[1, 1, 1, 2], padding="VALID")
    conv_case("error_batch_dilation", [1, 4, 4, 2], [2, 2, 2, 3],
              known=False, strides=[1, 1, 1, 1], padding="VALID",
              dilations=[2, 1, 1, 1])
    conv_case("error_zero_stride", [1, 4, 4, 2], [2, 2, 2, 3], known=False,
              strides=[1, 0, 1, 1], padding="VALID")
    conv_case("error_strides_length", [1, 4, 4, 2], [2, 2, 2, 3],
              known=False, strides=[1, 1, 1], padding="VALID")
    conv_case("error_spatial_rank", [1, 4, 2], [2, 2, 3], known=False,
              strides=[1, 1, 1], padding="VALID")
    conv_case("error_explicit_batch_pad", [1, 4, 4, 2], [2, 2, 2, 3],
              known=False, strides=[1, 1, 1, 1], padding="EXPLICIT",
              explicit_paddings=[1, 0, 0, 0, 0, 0, 0, 0])
    conv_case("error_explicit_negative", [1, 4, 4, 2], [2, 2, 2, 3],
              known=False, strides=[1, 1, 1, 1], padding="EXPLICIT",
              explicit_paddings=[0, 0, -1, 0, 0, 0, 0, 0])


# --------------------------------------------------------------------------
# FusedPadConv2D and FusedResizeAndPadConv2D


def fused_case(name, x_shape, pads, f_shape, dtype=tf.float32, size=None,
               known=True, seed=3, **attrs):
    def build():
        x, xv = feed(values(x_shape, dtype, seed), known)
        f, fv = feed(values(f_shape, dtype, seed + 1), known)
        p, pv = feed(np.asarray(pads, np.int32), known)
        fd = {x: xv, f: fv, p: pv}
        if size is None:
            out = RAW.FusedPadConv2D(input=x, paddings=p, filter=f, **attrs)
        else:
            s, sv = feed(np.asarray(size, np.int32), known)
            fd[s] = sv
            out = RAW.FusedResizeAndPadConv2D(input=x, size=s, paddings=p,
                                              filter=f, **attrs)
        return out, fd
    case(name, build, dtype)


def pads2(t, b, left, r):
    return [[0, 0], [t, b], [left, r], [0, 0]]


def fused_cases():
    # One image per case: TensorFlow's fused kernels do not reset their row
    # cache between the images of a batch, so every image after the first
    # gets the first one's rows (a TensorFlow bug; the unfused resize, pad
    # and Conv2D give each image its own). dfx computes each image on its
    # own; tests/kernels/conv3_test.cc checks a batch against its images.
    for tag, dt in DTYPES[:4]:
        for mode in ("REFLECT", "SYMMETRIC"):
            fused_case(f"pad_conv_{mode.lower()}_{tag}", [1, 4, 5, 2],
                       pads2(1, 2, 3, 1), [3, 2, 2, 3], dt, mode=mode,
                       strides=[1, 1, 1, 1], padding="VALID")
        if dt == tf.bfloat16:
            continue
        for ac in (False, True):
            fused_case(f"resize_pad_conv_up_ac{int(ac)}_{tag}", [1, 3, 4, 2],
                       pads2(2, 1, 1, 2), [2, 3, 2, 2], dt, size=[7, 5],
                       resize_align_corners=ac, mode="REFLECT",
                       strides=[1, 1, 1, 1], padding="VALID")
    for ac in (False, True):
        fused_case(f"resize_pad_conv_down_ac{int(ac)}", [1, 8, 9, 3],
                   pads2(1, 1, 2, 2), [3, 3, 3, 2], size=[5, 4],
                   resize_align_corners=ac, mode="SYMMETRIC",
                   strides=[1, 2, 1, 1], padding="SAME")
        fused_case(f"resize_pad_conv_mixed_ac{int(ac)}", [1, 4, 6, 1],
                   pads2(0, 3, 1, 0), [2, 2, 1, 3], size=[6, 3],
                   resize_align_corners=ac, mode="SYMMETRIC",
                   strides=[1, 1, 2, 1], padding="VALID")
    fused_case("resize_pad_conv_to_one", [1, 4, 4, 1], pads2(0, 0, 0, 0),
               [1, 1, 1, 2], size=[1, 1], resize_align_corners=True,
               mode="REFLECT", strides=[1, 1, 1, 1], padding="VALID")
    fused_case("pad_conv_same_stride", [1, 6, 7, 2], pads2(2, 2, 1, 1),
               [3, 4, 2, 2], mode="REFLECT", strides=[1, 2, 3, 1],
               padding="SAME")
    # VALID windows centred by TensorFlow's im2col: a padded size of 13 with
    # a window of 2 and stride 4 starts at row 1.
    fused_case("pad_conv_valid_centred", [1, 11, 11, 1], pads2(1, 1, 1, 1),
               [2, 2, 1, 1], mode="SYMMETRIC", strides=[1, 4, 4, 1],
               padding="VALID")
    fused_case("pad_conv_valid_centred_wide", [1, 5, 12, 2],
               pads2(0, 0, 1, 2), [1, 3, 2, 1], mode="REFLECT",
               strides=[1, 1, 5, 1], padding="VALID")
    fused_case("pad_conv_no_padding", [1, 3, 3, 2], pads2(0, 0, 0, 0),
               [2, 2, 2, 2], mode="REFLECT", strides=[1, 1, 1, 1],
               padding="SAME")
    fused_case("pad_conv_symmetric_full", [1, 3, 2, 1], pads2(3, 3, 2, 2),
               [2, 2, 1, 1], mode="SYMMETRIC", strides=[1, 1, 1, 1],
               padding="VALID")
    # Errors.
    fused_case("error_pad_conv_reflect_too_far", [1, 3, 3, 1],
               pads2(3, 0, 0, 0), [2, 2, 1, 1], mode="REFLECT",
               strides=[1, 1, 1, 1], padding="VALID")
    fused_case("error_pad_conv_symmetric_too_far", [1, 3, 3, 1],
               pads2(0, 4, 0, 0), [2, 2, 1, 1],
               mode="SYMMETRIC", strides=[1, 1, 1, 1], padding="VALID")
    fused_case("error_pad_conv_negative", [1, 3, 3, 1], pads2(0, -1, 0, 0),
               [2, 2, 1, 1], mode="SYMMETRIC",
               strides=[1, 1, 1, 1], padding="VALID")
    fused_case("error_pad_conv_batch_padding", [2, 3, 3, 1],
               [[1, 0], [0, 0], [0, 0], [0, 0]], [2, 2, 1, 1],
               mode="SYMMETRIC", strides=[1, 1, 1, 1], padding="VALID")
    fused_case("error_pad_conv_channel_padding", [1, 3, 3, 2],
               [[0, 0], [0, 0], [0, 0], [0, 1]], [2, 2, 2, 1],
               mode="SYMMETRIC", strides=[1, 1, 1, 1], padding="VALID")
    fused_case("error_pad_conv_depth", [1, 3, 3, 2], pads2(0, 0, 0, 0),
               [2, 2, 3, 1], mode="SYMMETRIC",
               strides=[1, 1, 1, 1], padding="VALID")
    fused_case("error_pad_conv_empty_input", [1, 0, 3, 2], pads2(0, 0, 0, 0),
               [2, 2, 2, 1], mode="SYMMETRIC",
               strides=[1, 1, 1, 1], padding="VALID")
    fused_case("error_pad_conv_empty_output", [1, 3, 3, 2],
               pads2(0, 0, 0, 0), [4, 2, 2, 1],
               mode="SYMMETRIC", strides=[1, 1, 1, 1], padding="VALID")
    fused_case("error_pad_conv_paddings_rank", [1, 3, 3, 2],
               [[0, 0], [0, 0], [0, 0]], [2, 2, 2, 1],
               mode="SYMMETRIC", strides=[1, 1, 1, 1], padding="VALID")
    fused_case("error_pad_conv_channel_stride", [1, 3, 3, 2],
               pads2(0, 0, 0, 0), [2, 2, 2, 1],
               mode="SYMMETRIC", strides=[1, 1, 1, 2], padding="VALID")
    fused_case("error_resize_zero_size", [1, 3, 3, 1], pads2(0, 0, 0, 0),
               [1, 1, 1, 1], size=[0, 3], mode="REFLECT",
               strides=[1, 1, 1, 1], padding="VALID")
    fused_case("error_resize_size_length", [1, 3, 3, 1], pads2(0, 0, 0, 0),
               [1, 1, 1, 1], size=[3, 3, 3], mode="REFLECT",
               strides=[1, 1, 1, 1], padding="VALID")
    fused_case("error_resize_reflect_too_far", [1, 3, 3, 1],
               pads2(0, 0, 0, 4), [1, 1, 1, 1], size=[4, 4],
               mode="REFLECT", strides=[1, 1, 1, 1], padding="VALID")
    fused_case("error_resize_input_rank", [3, 3, 1], pads2(0, 0, 0, 0),
               [1, 1, 1, 1], size=[4, 4], mode="REFLECT",
               strides=[1, 1, 1, 1], padding="VALID")


# --------------------------------------------------------------------------
# ApproxTopK, RefSelect, Fact


def topk_case(name, x, k, dtype=tf.float32, known=True, **attrs):
    def build():
        p, v = feed(np.asarray(x, np.float32).astype(dtype.as_numpy_dtype),
                    known)
        return list(RAW.ApproxTopK(input=p, k=k, **attrs)), {p: v}
    case(name, build, dtype, rtol=0.0, atol=0.0)


def small_cases():
    ties = [[3, 1, 4, 1, 5, 9, 2, 6, 5, 5], [0, 0, 0, 1, 1, 1, 0, 0, -1, 2]]
    for tag, dt in DTYPES[:1] + DTYPES[2:4]:
        topk_case(f"topk_ties_{tag}", ties, 4, dt)
        topk_case(f"topk_rows_{tag}", values([3, 4, 6], dt, 9), 3, dt)
    # No NaN case: TensorFlow's order of NaNs follows its sort's internals
    # (for [1, nan, 3, nan, -inf, inf] and k = 4 it answers nan, 3, 1, nan,
    # leaving inf out); dfx ranks NaNs first, as its TopKV2 does.
    topk_case("topk_inf", [1.0, -np.inf, 3.0, np.inf, -2.0, np.inf], 4)
    topk_case("topk_1d_all", [2.0, -1.0, 7.0], 3)
    topk_case("topk_k0", [[2.0, -1.0, 7.0]], 0)
    topk_case("topk_no_aggregate", ties, 2, aggregate_to_topk=False,
              recall_target=0.5)
    topk_case("topk_size_override", ties, 3,
              reduction_input_size_override=100)
    topk_case("topk_empty_rows", np.zeros([0, 5]), 2)
    topk_case("error_topk_min_k", ties, 2, is_max_k=False)
    topk_case("error_topk_dim0", ties, 2, reduction_dimension=0)
    topk_case("error_topk_dim1", ties, 2, reduction_dimension=1)

    case("fact", lambda: (RAW.Fact(), None))

    def labelled():
        g = tf1.get_default_graph()
        with g._kernel_label_map({"Fact": "Sergey"}):
            return RAW.Fact(), None
    case("fact_sergey", labelled)

    folder = golden_lib.family_folder(FAMILY)

    def ref_select(dtype, a, b):
        def build():
            v1 = tf1.Variable(a, use_resource=False, name="v1")
            v2 = tf1.Variable(b, use_resource=False, name="v2")
            i = tf1.placeholder_with_default(np.int32(1), [], name="index")
            sel = RAW.RefSelect(index=i, inputs=[v1._ref(), v2._ref()])
            sel0 = RAW.RefSelect(index=0, inputs=[v1._ref(), v2._ref()])
            bad = RAW.RefSelect(index=2, inputs=[v1._ref(), v2._ref()])
            neg = RAW.RefSelect(index=-1, inputs=[v1._ref(), v2._ref()])
            assign = tf1.assign(sel, np.asarray(a, dtype))
            return {"init": tf1.global_variables_initializer(),
                    "sel": tf.identity(sel), "sel0": tf.identity(sel0),
                    "assign": assign, "v2": tf.identity(v2),
                    "bad": tf.identity(bad), "neg": tf.identity(neg)}
        return build

    steps = [["init"], ["sel", "sel0"], ["assign"], ["v2"], ["bad"], ["neg"]]
    steps_case(folder, "ref_select_float",
               ref_select(np.float32, [1.0, 2.0], [3.0, 4.0]), steps,
               note="select the second variable, assign through it, read "
               "it back; indices out of range")
    steps_case(folder, "ref_select_string",
               ref_select(object, [b"a", b"b"], [b"c", b"d"]), steps)
    steps_case(folder, "ref_select_int64",
               ref_select(np.int64, [[1, 2]], [[3, 4]]), steps)

    def uninitialized():
        v1 = tf1.Variable([1.0], use_resource=False, name="u1")
        v2 = tf1.Variable([2.0], use_resource=False, name="u2")
        sel = RAW.RefSelect(index=0, inputs=[v1._ref(), v2._ref()])
        return {"read": tf.identity(sel)}
    steps_case(folder, "ref_select_uninitialized", uninitialized, [["read"]])


# --------------------------------------------------------------------------
# QuantizedResizeBilinear and QuantizedInstanceNorm


def levels(shape, tf_type, seed, lo=None, hi=None):
    storage = {tf.quint8: np.uint8, tf.qint32: np.int32}[tf_type]
    info = np.iinfo(storage)
    lo = info.min if lo is None else lo
    hi = info.max if hi is None else hi
    v = rng(seed).integers(lo, hi, size=shape, endpoint=True).astype(storage)
    return v.view(tf_type.as_numpy_dtype)


def qfeed(v, tf_type, known=True):
    p = tf1.placeholder(tf_type, shape=np.shape(v) if known else None)
    return p, v


def resize_case(name, images, tf_type, size, known=True, mn=-1.0, mx=2.0,
                **attrs):
    def build():
        x, xv = qfeed(images, tf_type, known)
        s, sv = feed(np.asarray(size, np.int32), known)
        lo, lov = feed(np.float32(mn))
        hi, hiv = feed(np.float32(mx))
        out = RAW.QuantizedResizeBilinear(images=x, size=s, min=lo, max=hi,
                                          **attrs)
        return list(out), {x: xv, s: sv, lo: lov, hi: hiv}
    tol = (1e-5, 1e-5) if tf_type == tf.float32 else (0.0, 0.0)
    case(name, build, rtol=tol[0], atol=tol[1])


def quantized_cases():
    types = [("quint8", tf.quint8), ("qint32", tf.qint32),
             ("float", tf.float32)]
    for tag, tt in types:
        if tt == tf.float32:
            def img(shape, seed):
                return values(shape, tf.float32, seed)
        else:
            def img(shape, seed, tt=tt):
                # qint32 levels well inside int32: TensorFlow's 64-bit sums
                # of 2^30-scaled levels overflow near its ends.
                return levels(shape, tt, seed,
                              *((-2**28, 2**28) if tt == tf.qint32
                                else (None, None)))
        for ac, hp in ((False, False), (True, False), (False, True)):
            sfx = f"ac{int(ac)}_hp{int(hp)}_{tag}"
            resize_case(f"qresize_up_{sfx}", img([2, 3, 4, 3], 11), tt,
                        [7, 9], align_corners=ac, half_pixel_centers=hp)
            resize_case(f"qresize_down_{sfx}", img([1, 8, 7, 1], 12), tt,
                        [3, 5], align_corners=ac, half_pixel_centers=hp)
        resize_case(f"qresize_wide_channels_{tag}", img([1, 2, 20, 2], 13),
                    tt, [3, 17])
        resize_case(f"qresize_same_size_{tag}", img([1, 3, 3, 2], 14), tt,
                    [3, 3])
        resize_case(f"qresize_to_one_{tag}", img([1, 4, 5, 1], 15), tt,
                    [1, 1], align_corners=True)
    resize_case("qresize_ac_and_hp", levels([1, 3, 3, 1], tf.quint8, 16),
                tf.quint8, [5, 5], align_corners=True,
                half_pixel_centers=True)
    resize_case("qresize_extreme_levels",
                np.array([0, 255, 255, 0, 0, 255, 128, 1, 254],
                         np.uint8).reshape([1, 3, 3, 1]).view(
                             tf.quint8.as_numpy_dtype),
                tf.quint8, [8, 7])
    resize_case("error_qresize_zero_size", levels([1, 3, 3, 1], tf.quint8, 17),
                tf.quint8, [0, 4])
    resize_case("error_qresize_empty_image",
                levels([1, 0, 3, 1], tf.quint8, 17), tf.quint8, [2, 4])
    resize_case("error_qresize_size_length",
                levels([1, 3, 3, 1], tf.quint8, 17), tf.quint8, [2, 4, 4],
                known=False)
    resize_case("error_qresize_rank", levels([3, 3, 1], tf.quint8, 17),
                tf.quint8, [2, 4], known=False)
    # TensorFlow returns before setting the range outputs of an empty
    # image: fetching them fails.
    resize_case("qresize_empty_batch", levels([0, 3, 3, 1], tf.quint8, 18),
                tf.quint8, [2, 4])
    resize_case("error_qresize_no_channels",
                levels([1, 3, 3, 0], tf.quint8, 17), tf.quint8, [2, 4])

    def norm_case(name, x, known=True, mn=-1.0, mx=3.0, **attrs):
        def build():
            p, v = qfeed(x, tf.quint8, known)
            lo, lov = feed(np.float32(mn))
            hi, hiv = feed(np.float32(mx))
            out = RAW.QuantizedInstanceNorm(x=p, x_min=lo, x_max=hi, **attrs)
            return list(out), {p: v, lo: lov, hi: hiv}
        # Levels may differ by one where TensorFlow's vectorized rsqrt
        # (an approximation refined once) and 1/sqrt part in the last bit.
        case(name, build, rtol=1e-5, atol=1.0)

    norm_case("qnorm_basic", levels([2, 4, 5, 3], tf.quint8, 21))
    norm_case("qnorm_single_channel", levels([1, 6, 6, 1], tf.quint8, 22))
    norm_case("qnorm_given_range", levels([1, 4, 4, 2], tf.quint8, 23),
              output_range_given=True, given_y_min=-2.0, given_y_max=2.5)
    norm_case("qnorm_min_separation",
              np.full([1, 3, 3, 2], 7, np.uint8).view(
                  tf.quint8.as_numpy_dtype), min_separation=0.5)
    norm_case("qnorm_epsilon", levels([1, 3, 4, 2], tf.quint8, 24, 100, 104),
              variance_epsilon=0.25)
    norm_case("qnorm_sixteen_channels", levels([1, 2, 3, 16], tf.quint8, 25))
    norm_case("error_qnorm_given_range_inverted",
              levels([1, 2, 2, 1], tf.quint8, 26), output_range_given=True,
              given_y_min=1.0, given_y_max=1.0)
    norm_case("error_qnorm_input_range", levels([1, 2, 2, 1], tf.quint8, 26),
              mn=2.0, mx=2.0)


def main():
    conv_cases()
    fused_cases()
    small_cases()
    quantized_cases()
    golden_lib.write_op_defs(FAMILY, OP_NAMES)


if __name__ == "__main__":
    main()
