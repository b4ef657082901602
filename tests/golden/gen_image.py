"""Golden cases of the image family: ResizeBilinear, ResizeNearestNeighbor,
ResizeBicubic and ResizeArea for every allowed align_corners /
half_pixel_centers combination, up and down, over the dtypes TensorFlow's
CPU kernels register; the gradients ResizeBilinearGrad,
ResizeNearestNeighborGrad and ResizeBicubicGrad; DepthToSpace and
SpaceToDepth (NHWC),
SpaceToBatchND and BatchToSpaceND (1 to 3 block dims, int32 and int64
block shapes, tf.nn.atrous_conv2d); NonMaxSuppressionV3/V4/V5 (hard and
soft, padded, half, the tf.image wrappers); CropAndResize (bilinear and
nearest, boxes flipped or outside the image, extrapolation_value, one-pixel
crops); RGBToHSV, HSVToRGB, AdjustContrastv2, AdjustSaturation and
AdjustHue; ScaleAndTranslate and its gradient (every kernel type, with and
without antialias, tf.image.resize's antialiased methods);
ImageProjectiveTransformV2/V3 (every dtype, interpolation and fill_mode;
rotations, zooms, shears and projective rows); run-time errors; and a
frozen Keras
model with Resizing and UpSampling2D(bilinear), as TensorFlow 2.21 runs
them.

Run with the TensorFlow virtualenv: $(tools/tf_env) tests/golden/gen_image.py

bfloat16 is fed as float32 and cast in the graph (.npy has no bfloat16).
"""

import os
import subprocess
import sys
import tempfile

import numpy as np

FAMILY = "image"


def freeze_keras(path):
    """Runs in a fresh, eager interpreter: a small Keras model with
    Resizing (bilinear, and nearest) and UpSampling2D (bilinear, nearest)
    frozen into a GraphDef at `path`; prints input and output names."""
    import tensorflow as tf
    from tensorflow.python.framework.convert_to_constants import (
        convert_variables_to_constants_v2)
    keras = tf.keras
    keras.utils.set_random_seed(3)
    inp = keras.Input((5, 6, 2))
    a = keras.layers.Resizing(7, 9, interpolation="bilinear")(inp)
    a = keras.layers.Conv2D(3, 3, padding="same")(a)
    a = keras.layers.UpSampling2D(2, interpolation="bilinear")(a)
    b = keras.layers.UpSampling2D((2, 3), interpolation="nearest")(inp)
    b = keras.layers.Resizing(14, 18, interpolation="nearest")(b)
    c = keras.layers.Resizing(4, 4, interpolation="bicubic")(inp)
    c = keras.layers.Resizing(14, 18, interpolation="area")(c)
    out = keras.layers.Concatenate()([a, b, c])
    model = keras.Model(inp, out)
    fn = tf.function(lambda x: model(x, training=False))
    concrete = fn.get_concrete_function(
        tf.TensorSpec([2, 5, 6, 2], tf.float32, name="x"))
    frozen = convert_variables_to_constants_v2(concrete)
    with open(path, "wb") as f:
        f.write(frozen.graph.as_graph_def().SerializeToString())
    print(frozen.inputs[0].name)
    print(frozen.outputs[0].name)


if len(sys.argv) == 3 and sys.argv[1] == "--freeze-keras":
    freeze_keras(sys.argv[2])
    sys.exit(0)

import tensorflow as tf  # noqa: E402
from tensorflow.python.ops import gen_array_ops, gen_image_ops  # noqa: E402

import golden_lib  # noqa: E402
from golden_lib import case, case_graph_def, rng, tf1  # noqa: E402

BF16 = tf.bfloat16.as_numpy_dtype


def dtype_name(dt):
    return "bfloat16" if dt is BF16 else np.dtype(dt).name


def values(shape, dt, seed):
    """Uniform floats in [-1, 1) for float types (multiples of 1/8 for
    half and bfloat16, exact in both), integers of the type's range else."""
    r = rng(seed)
    if dt in (np.float32, np.float64):
        return r.uniform(-1, 1, size=shape).astype(dt)
    if dt in (np.float16, BF16):
        return (r.integers(-8, 9, size=shape) / 8).astype(np.float32)
    if dt == np.uint8:
        return r.integers(0, 256, size=shape).astype(dt)
    if dt == np.int8:
        return r.integers(-128, 128, size=shape).astype(dt)
    if dt == np.uint16:
        return r.integers(0, 1000, size=shape).astype(dt)
    return r.integers(-500, 500, size=shape).astype(dt)


def feed(value, dt, shape="same", name=None):
    """(tensor used in the graph, placeholder, value fed)."""
    value = np.asarray(value)
    ph_shape = value.shape if shape == "same" else shape
    if dt is BF16:
        ph = tf1.placeholder(tf.float32, ph_shape, name=name)
        return tf.cast(ph, tf.bfloat16), ph, value.astype(np.float32)
    ph = tf1.placeholder(tf.as_dtype(dt), ph_shape, name=name)
    return ph, ph, value.astype(dt)


RESIZE_OPS = {
    "bilinear": gen_image_ops.resize_bilinear,
    "nearest": gen_image_ops.resize_nearest_neighbor,
    "bicubic": gen_image_ops.resize_bicubic,
    "area": gen_image_ops.resize_area,
}
MODES = [(False, False), (True, False), (False, True)]
ALL_TYPES = [np.float32, np.float64, np.float16, BF16, np.int8, np.uint8,
             np.int16, np.uint16, np.int32, np.int64]


def out_tol(op, dt):
    """Float outputs of integer or half inputs are large or rounded: an
    absolute bound relative to the value range."""
    if op == "nearest":
        return {}
    if dt in (np.float16, BF16, np.float32, np.float64):
        return dict(rtol=1e-5, atol=1e-5)
    return dict(rtol=1e-5, atol=1e-3)


def resize_case(name, op, xv, dt, size, align=False, half=False,
                shape="same", feed_size=False, **kw):
    def build():
        x, ph, val = feed(xv, dt, shape)
        feeds = {ph: val}
        if feed_size:
            s = tf1.placeholder(tf.int32, [None])
            feeds[s] = np.asarray(size, np.int32)
        else:
            s = tf.constant(size, tf.int32)
        args = dict(align_corners=align)
        if op != "area":
            args["half_pixel_centers"] = half
        out = RESIZE_OPS[op](x, s, **args)
        return out, feeds
    case(FAMILY, name, build, **kw)


def resize_cases():
    for op in RESIZE_OPS:
        modes = MODES if op != "area" else [(False, False), (True, False)]
        for align, half in modes:
            mode = f"a{int(align)}h{int(half)}"
            for size, tag in (([6, 7], "up"), ([3, 2], "down"),
                              ([1, 1], "one"), ([4, 13], "mixed")):
                xv = values((2, 4, 5, 3), np.float32, 1)
                resize_case(f"{op}_{mode}_{tag}_float32", op, xv, np.float32,
                            size, align, half, **out_tol(op, np.float32))
            for dt in ALL_TYPES:
                if dt is np.float32:
                    continue
                xv = values((1, 3, 4, 2), dt, 2)
                resize_case(f"{op}_{mode}_{dtype_name(dt)}", op, xv, dt,
                            [5, 7], align, half, **out_tol(op, dt))
        # Same size, an unknown-shaped size input, and an empty batch.
        resize_case(f"{op}_same_size", op, values((1, 4, 5, 2), np.float32, 3),
                    np.float32, [4, 5], **out_tol(op, np.float32))
        resize_case(f"{op}_fed_size", op, values((1, 4, 5, 2), np.float32, 4),
                    np.float32, [9, 3], shape=None, feed_size=True,
                    **out_tol(op, np.float32))
        resize_case(f"{op}_empty_batch", op,
                    np.zeros((0, 4, 5, 2), np.float32), np.float32, [3, 3])
        # Run-time errors (a fed size, unknown shapes, so only the kernel
        # sees them).
        for tag, xv, size in (
                ("zero_size", values((1, 4, 5, 2), np.float32, 5), [0, 3]),
                ("bad_size_len", values((1, 4, 5, 2), np.float32, 5), [3]),
                ("empty_image", np.zeros((1, 0, 5, 2), np.float32), [3, 3]),
                ("no_channels", np.zeros((1, 4, 5, 0), np.float32), [3, 3]),
                ("rank3", values((4, 5, 2), np.float32, 5), [3, 3])):
            resize_case(f"{op}_error_{tag}", op, xv, np.float32, size,
                        shape=None, feed_size=True)
        if op != "area":
            resize_case(f"{op}_error_align_and_half", op,
                        values((1, 4, 5, 2), np.float32, 6), np.float32,
                        [3, 3], True, True, shape=None)


def grad_case(name, fn, gv, gdt, **kw):
    def build():
        g, ph, val = feed(gv, gdt, shape=None)
        return fn(g), {ph: val}
    case(FAMILY, name, build, **kw)


def grad_cases():
    for align, half in MODES:
        mode = f"a{int(align)}h{int(half)}"
        for orig, tag in (((2, 3, 4, 2), "up"), ((2, 9, 11, 2), "down"),
                          ((2, 5, 7, 2), "mixed")):
            gv = values((2, 5, 7, 2), np.float32, 7)
            for dt in (np.float32, np.float64, np.float16, BF16):
                if tag != "up" and dt is not np.float32:
                    continue
                tol = {} if dt in (np.float32, np.float64) else dict(
                    rtol=1e-2, atol=1e-2)

                def bilinear(g, dt=dt, orig=orig, align=align, half=half):
                    o = tf.zeros(orig, tf.as_dtype(dt))
                    return gen_image_ops.resize_bilinear_grad(
                        g, o, align_corners=align, half_pixel_centers=half)
                grad_case(f"bilinear_grad_{mode}_{tag}_{dtype_name(dt)}",
                          bilinear, gv, np.float32,
                          **(tol if dt is not np.float32 else
                             dict(rtol=1e-5, atol=1e-5)))
            for dt in (np.float32, np.float64, np.float16, BF16, np.int32,
                       np.uint8, np.int8):
                if tag != "down" and dt is not np.float32:
                    continue
                gvt = values((2, 5, 7, 2), dt, 8)
                if dt == np.uint8:
                    gvt = (gvt // 16).astype(np.uint8)
                if dt == np.int8:
                    gvt = (gvt // 16).astype(np.int8)

                def nearest(g, orig=orig, align=align, half=half):
                    return gen_image_ops.resize_nearest_neighbor_grad(
                        g, tf.constant(orig[1:3], tf.int32),
                        align_corners=align, half_pixel_centers=half)
                grad_case(f"nearest_grad_{mode}_{tag}_{dtype_name(dt)}",
                          nearest, gvt, dt)
    for align, half in MODES:
        mode = f"a{int(align)}h{int(half)}"
        for orig, tag in (((2, 3, 4, 2), "up"), ((2, 9, 11, 2), "down")):
            gv = values((2, 5, 7, 2), np.float32, 9)
            for dt in (np.float32, np.float64):
                def bicubic(g, dt=dt, orig=orig, align=align, half=half):
                    o = tf.zeros(orig, tf.as_dtype(dt))
                    return gen_image_ops.resize_bicubic_grad(
                        g, o, align_corners=align, half_pixel_centers=half)
                grad_case(f"bicubic_grad_{mode}_{tag}_{dtype_name(dt)}",
                          bicubic, gv, np.float32, rtol=1e-5, atol=1e-5)
    grad_case("bicubic_grad_error_align_and_half",
              lambda g: gen_image_ops.resize_bicubic_grad(
                  g, tf.zeros((1, 3, 3, 2)), align_corners=True,
                  half_pixel_centers=True),
              values((1, 2, 2, 2), np.float32, 1), np.float32)
    # tf.gradients of the forward ops build the grad ops as training does.
    xv = values((1, 4, 5, 3), np.float32, 9)

    def build_tf_grad():
        x = tf1.placeholder(tf.float32, xv.shape)
        y1 = tf.image.resize(x, [7, 6], method="bilinear")
        y2 = tf.image.resize(x, [9, 11], method="nearest")
        y3 = tf.image.resize(x, [3, 8], method="bicubic")
        loss = (tf.reduce_sum(y1 * y1) + tf.reduce_sum(y2 * tf.sin(y2)) +
                tf.reduce_sum(y3 * tf.cos(y3)))
        return tf.gradients(loss, x), {x: xv}
    case(FAMILY, "tf_gradients_resize", build_tf_grad, rtol=1e-5, atol=1e-5)
    grad_case("bilinear_grad_error_align_and_half",
              lambda g: gen_image_ops.resize_bilinear_grad(
                  g, tf.zeros((1, 3, 3, 2)), align_corners=True,
                  half_pixel_centers=True),
              values((1, 2, 2, 2), np.float32, 1), np.float32)
    grad_case("bilinear_grad_error_empty_grads",
              lambda g: gen_image_ops.resize_bilinear_grad(
                  g, tf.zeros((1, 3, 3, 2))),
              np.zeros((1, 0, 2, 2), np.float32), np.float32)
    grad_case("nearest_grad_error_zero_size",
              lambda g: gen_image_ops.resize_nearest_neighbor_grad(
                  g, tf.constant([0, 3])),
              values((1, 2, 2, 2), np.float32, 1), np.float32)


def tf_image_resize_cases():
    """What tf.image.resize emits in TensorFlow 2 for each method."""
    xv = values((2, 6, 5, 3), np.float32, 10)
    for method in ("bilinear", "nearest", "bicubic", "area"):
        def build(method=method):
            x = tf1.placeholder(tf.float32, xv.shape)
            return tf.image.resize(x, [4, 9], method=method), {x: xv}
        case(FAMILY, f"tf_image_resize_{method}", build, rtol=1e-5, atol=1e-5)


def keras_case():
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "model.pb")
        out = subprocess.run(
            [sys.executable, os.path.abspath(__file__), "--freeze-keras",
             path], check=True, capture_output=True, text=True).stdout
        in_name, out_name = out.split()[-2:]
        graph_def = tf1.GraphDef()
        with open(path, "rb") as f:
            graph_def.ParseFromString(f.read())
    ops = sorted({n.op for n in graph_def.node})
    xv = values((2, 5, 6, 2), np.float32, 11)
    case_graph_def(FAMILY, "keras_resizing_upsampling", graph_def,
                   {in_name: xv}, [out_name], rtol=1e-5, atol=1e-5,
                   note="ops: " + ", ".join(ops))


def space_depth_cases():
    for op, fn, shape in (
            ("depth_to_space", tf.nn.depth_to_space, (2, 2, 3, 8)),
            ("space_to_depth", tf.nn.space_to_depth, (2, 4, 6, 2))):
        for block in (2,):
            for dt in (np.float32, np.float64, np.float16, BF16, np.int32,
                       np.uint8, np.int64, np.int8):
                xv = values(shape, dt, 12)

                def build(fn=fn, dt=dt, xv=xv, block=block):
                    x, ph, val = feed(xv, dt)
                    return fn(x, block), {ph: val}
                case(FAMILY, f"{op}_b{block}_{dtype_name(dt)}", build)
        big = (1, 3, 3, 18) if op == "depth_to_space" else (1, 6, 9, 2)
        xv = values(big, np.float32, 13)

        def build3(fn=fn, xv=xv):
            x, ph, val = feed(xv, np.float32)
            return fn(x, 3), {ph: val}
        case(FAMILY, f"{op}_b3", build3)

        def build_bool(fn=fn, shape=shape):
            x = tf1.placeholder(tf.bool, shape)
            return fn(x, 2), {x: rng(14).integers(0, 2, shape).astype(bool)}
        case(FAMILY, f"{op}_bool", build_bool)

        def build_empty(fn=fn, shape=shape):
            x = tf1.placeholder(tf.float32, None)
            return fn(x, 2), {x: np.zeros((0,) + shape[1:], np.float32)}
        case(FAMILY, f"{op}_empty_batch", build_empty)
    # Run-time errors, shapes unknown to the shape functions.
    for name, fn, xv in (
            ("depth_to_space_error_depth", tf.nn.depth_to_space,
             np.zeros((1, 2, 2, 6), np.float32)),
            ("depth_to_space_error_rank", tf.nn.depth_to_space,
             np.zeros((2, 2, 8), np.float32)),
            ("space_to_depth_error_width", tf.nn.space_to_depth,
             np.zeros((1, 4, 5, 2), np.float32)),
            ("space_to_depth_error_rank", tf.nn.space_to_depth,
             np.zeros((4, 4, 2), np.float32))):
        def build_err(fn=fn, xv=xv):
            x = tf1.placeholder(tf.float32, None)
            return fn(x, 2), {x: xv}
        case(FAMILY, name, build_err)


def batch_space_case(name, op, xv, dt, block, pads, idx=np.int32,
                     fed=False):
    def build():
        x, ph, val = feed(xv, dt, shape=None if fed else "same")
        feeds = {ph: val}
        if fed:
            # TensorFlow's shape functions need the ranks and the number
            # of block dims; only the values are left to the kernel.
            bv = np.asarray(block, idx)
            pv = np.asarray(pads, idx).reshape(-1, 2)
            b = tf1.placeholder(tf.as_dtype(idx), bv.shape)
            p = tf1.placeholder(tf.as_dtype(idx), pv.shape)
            feeds[b] = bv
            feeds[p] = pv
        else:
            b = tf.constant(block, tf.as_dtype(idx))
            p = tf.constant(np.asarray(pads, idx).reshape(-1, 2))
        f = (gen_array_ops.space_to_batch_nd if op == "s2b" else
             gen_array_ops.batch_to_space_nd)
        return f(x, b, p), feeds
    case(FAMILY, name, build)


def batch_space_cases():
    for dt in (np.float32, np.float64, np.float16, BF16, np.int32, np.uint8,
               np.int64, np.int16):
        batch_space_case(f"s2b_2d_{dtype_name(dt)}", "s2b",
                         values((2, 5, 4, 3), dt, 15), dt, [2, 2],
                         [[1, 0], [1, 3]])
        batch_space_case(f"b2s_2d_{dtype_name(dt)}", "b2s",
                         values((8, 3, 4, 2), dt, 16), dt, [2, 2],
                         [[1, 2], [0, 3]])
    batch_space_case("s2b_1d_int64_idx", "s2b", values((3, 7, 2), np.float32,
                                                       17), np.float32, [3],
                     [[2, 0]], idx=np.int64)
    batch_space_case("b2s_1d_int64_idx", "b2s", values((6, 3, 2), np.float32,
                                                       18), np.float32, [3],
                     [[1, 1]], idx=np.int64)
    batch_space_case("s2b_3d_rest", "s2b", values((2, 2, 3, 4, 2, 2),
                                                  np.float32, 19),
                     np.float32, [2, 1, 2], [[0, 0], [1, 1], [0, 2]])
    batch_space_case("b2s_3d_rest", "b2s", values((8, 2, 3, 2, 2),
                                                  np.float32, 20),
                     np.float32, [2, 1, 4], [[1, 0], [0, 2], [3, 1]])
    batch_space_case("s2b_no_block_dims", "s2b", values((2, 3), np.float32,
                                                        21), np.float32,
                     np.zeros([0], np.int32), np.zeros([0, 2], np.int32))
    batch_space_case("b2s_empty_batch", "b2s",
                     np.zeros((0, 2, 2, 1), np.float32), np.float32, [2, 2],
                     [[0, 0], [0, 0]], fed=True)
    batch_space_case("s2b_fed_shapes", "s2b", values((1, 4, 4, 1),
                                                     np.float32, 22),
                     np.float32, [2, 2], [[0, 2], [2, 0]], fed=True)
    for name, op, shape, block, pads in (
            ("s2b_error_not_divisible", "s2b", (1, 4, 4, 1), [2, 3],
             [[0, 0], [0, 0]]),
            ("s2b_error_zero_block", "s2b", (1, 4, 4, 1), [2, 0],
             [[0, 0], [0, 0]]),
            ("s2b_error_negative_pad", "s2b", (1, 4, 4, 1), [2, 2],
             [[0, -1], [0, 1]]),
            ("b2s_error_batch", "b2s", (1, 4, 4, 1), [2, 2],
             [[0, 0], [0, 0]]),
            ("b2s_error_negative_crop", "b2s", (4, 2, 2, 1), [2, 2],
             [[0, -1], [0, 0]]),
            ("b2s_error_crop_too_big", "b2s", (4, 2, 2, 1), [2, 2],
             [[3, 2], [0, 0]]),
            ("b2s_error_zero_block", "b2s", (4, 2, 2, 1), [2, 0],
             [[0, 0], [0, 0]])):
        batch_space_case(name, op, np.zeros(shape, np.float32), np.float32,
                         block, pads, fed=True)

    # What atrous (dilated) convolutions built with tf.nn ops emit.
    xv = values((1, 9, 10, 2), np.float32, 23)
    wv = values((3, 3, 2, 3), np.float32, 24)

    def build_atrous():
        x = tf1.placeholder(tf.float32, xv.shape)
        w = tf.constant(wv)
        y = tf.nn.atrous_conv2d(x, w, rate=2, padding="SAME")
        s = tf.space_to_batch(x, [2, 2], [[1, 2], [0, 2]])
        z = tf.nn.conv2d(s, w, strides=1, padding="VALID")
        return [y, tf.batch_to_space(z, [2, 2], [[0, 1], [1, 1]])], {x: xv}
    case(FAMILY, "atrous_conv2d", build_atrous, rtol=1e-5, atol=1e-5)


def nms_boxes(n, seed):
    """n boxes in clusters (so many overlap), some with corners flipped,
    one of zero area; scores with ties."""
    r = rng(seed)
    centers = r.uniform(0, 10, size=(4, 2))
    c = centers[r.integers(0, 4, size=n)] + r.normal(0, 0.4, size=(n, 2))
    hw = r.uniform(0.5, 2.0, size=(n, 2))
    boxes = np.concatenate([c - hw / 2, c + hw / 2], axis=1)
    flip = r.random(n) < 0.2
    boxes[flip] = boxes[flip][:, [2, 3, 0, 1]]
    boxes[3] = [1, 1, 1, 2]
    scores = np.round(r.uniform(0, 1, size=n), 2)
    scores[5] = scores[6]
    return boxes.astype(np.float32), scores.astype(np.float32)


def nms_case(name, version, n=40, max_size=10, iou=0.5, score=-np.inf,
             sigma=0.0, pad=False, dt=np.float32, seed=30, fed=False,
             boxes=None, scores=None):
    def build():
        bv, sv = nms_boxes(n, seed)
        if boxes is not None:
            bv, sv = boxes, scores
        b, bph, bval = feed(bv, dt)
        s, sph, sval = feed(sv, dt)
        feeds = {bph: bval, sph: sval}
        tdt = tf.as_dtype(dt) if dt is not BF16 else tf.bfloat16
        if fed:
            m = tf1.placeholder(tf.int32, [])
            i = tf1.placeholder(tdt, [])
            feeds[m] = np.int32(max_size)
            feeds[i] = np.asarray(iou, dt)
        else:
            m = tf.constant(max_size, tf.int32)
            i = tf.constant(iou, tdt)
        st = tf.constant(score, tdt)
        if version == 3:
            out = gen_image_ops.non_max_suppression_v3(b, s, m, i, st)
        elif version == 4:
            out = list(gen_image_ops.non_max_suppression_v4(
                b, s, m, i, st, pad_to_max_output_size=pad))
        else:
            out = list(gen_image_ops.non_max_suppression_v5(
                b, s, m, i, st, tf.constant(sigma, tdt),
                pad_to_max_output_size=pad))
        return out, feeds
    case(FAMILY, name, build)


def nms_cases():
    for iou in (0.0, 0.3, 0.5, 1.0):
        nms_case(f"nms_v3_iou{iou}", 3, iou=iou, max_size=40)
    nms_case("nms_v3_score_threshold", 3, score=0.4, max_size=40)
    nms_case("nms_v3_max3", 3, max_size=3)
    nms_case("nms_v3_max0", 3, max_size=0)
    nms_case("nms_v3_half", 3, dt=np.float16, max_size=40)
    nms_case("nms_v3_empty", 3, boxes=np.zeros((0, 4), np.float32),
             scores=np.zeros((0,), np.float32))
    for pad in (False, True):
        nms_case(f"nms_v4_pad{int(pad)}", 4, pad=pad, score=0.3,
                 max_size=30)
        nms_case(f"nms_v4_pad{int(pad)}_fed", 4, pad=pad, max_size=7,
                 fed=True)
        nms_case(f"nms_v5_pad{int(pad)}_hard", 5, pad=pad, max_size=25)
        nms_case(f"nms_v5_pad{int(pad)}_soft", 5, pad=pad, sigma=0.5,
                 score=0.05, max_size=40)
    nms_case("nms_v4_half", 4, dt=np.float16, pad=True, max_size=20)
    nms_case("nms_v5_soft_half", 5, dt=np.float16, sigma=0.5, score=0.1,
             max_size=40)
    nms_case("nms_v5_soft_iou1", 5, sigma=1.0, iou=1.0, max_size=40)
    nms_case("nms_v3_error_iou", 3, iou=1.5, fed=True)
    nms_case("nms_v4_error_negative_max", 4, max_size=-1, fed=True)
    nms_case("nms_v5_error_sigma", 5, sigma=-1.0)

    # The public wrappers, as detection models call them.
    bv, sv = nms_boxes(40, 31)

    def build_public():
        b = tf1.placeholder(tf.float32, bv.shape)
        s = tf1.placeholder(tf.float32, sv.shape)
        sel = tf.image.non_max_suppression(b, s, 8, iou_threshold=0.4)
        idx, scores = tf.image.non_max_suppression_with_scores(
            b, s, 12, soft_nms_sigma=0.3)
        pidx, valid = tf.image.non_max_suppression_padded(
            b, s, 9, iou_threshold=0.5, pad_to_max_output_size=True)
        return [tf.gather(b, sel), idx, scores, pidx, valid], {b: bv, s: sv}
    case(FAMILY, "nms_public_wrappers", build_public)


CROP_BOXES = np.array([
    [0.1, 0.2, 0.8, 0.9],      # inside
    [0.0, 0.0, 1.0, 1.0],      # the whole image
    [0.9, 0.8, 0.2, 0.1],      # flipped
    [-0.3, 0.5, 0.6, 1.4],     # partly outside: extrapolated
    [0.25, 0.25, 0.25, 0.75],  # zero height
    [0.4, 0.3, 0.55, 0.45],    # small
], np.float32)


def crop_case(name, image, dt, boxes, box_ind, crop, method="bilinear",
              extrapolation=0.0, fed=False, **kw):
    def build():
        x, ph, val = feed(image, dt)
        feeds = {ph: val}
        if fed:
            b = tf1.placeholder(tf.float32, [None, 4])
            i = tf1.placeholder(tf.int32, [None])
            c = tf1.placeholder(tf.int32, [2])
            feeds.update({b: np.asarray(boxes, np.float32),
                          i: np.asarray(box_ind, np.int32),
                          c: np.asarray(crop, np.int32)})
        else:
            b = tf.constant(boxes, tf.float32)
            i = tf.constant(box_ind, tf.int32)
            c = tf.constant(crop, tf.int32)
        return gen_image_ops.crop_and_resize(
            x, b, i, c, method=method,
            extrapolation_value=extrapolation), feeds
    case(FAMILY, name, build, **kw)


def crop_and_resize_cases():
    ind = [0, 1, 1, 0, 1, 0]
    for method in ("bilinear", "nearest"):
        for crop in ([3, 4], [1, 1], [1, 5], [7, 2]):
            crop_case(f"crop_{method}_{crop[0]}x{crop[1]}",
                      values((2, 5, 6, 3), np.float32, 40), np.float32,
                      CROP_BOXES, ind, crop, method, rtol=1e-5, atol=1e-5)
        crop_case(f"crop_{method}_extrapolate",
                  values((2, 5, 6, 3), np.float32, 41), np.float32,
                  CROP_BOXES, ind, [4, 4], method, extrapolation=-7.5,
                  rtol=1e-5, atol=1e-5)
        for dt in (np.float64, np.float16, np.uint8, np.uint16, np.int8,
                   np.int16, np.int32, np.int64):
            crop_case(f"crop_{method}_{dtype_name(dt)}",
                      values((2, 4, 5, 2), dt, 42), dt, CROP_BOXES, ind,
                      [3, 3], method, rtol=1e-5, atol=1e-3)
    crop_case("crop_no_boxes", values((1, 4, 5, 2), np.float32, 43),
              np.float32, np.zeros((0, 4), np.float32),
              np.zeros((0,), np.int32), [3, 3], fed=True)
    crop_case("crop_error_box_index", values((2, 4, 5, 2), np.float32, 44),
              np.float32, CROP_BOXES[:2], [0, 2], [3, 3], fed=True)
    crop_case("crop_error_zero_crop", values((2, 4, 5, 2), np.float32, 44),
              np.float32, CROP_BOXES[:2], [0, 1], [0, 3], fed=True)
    crop_case("crop_error_index_count", values((2, 4, 5, 2), np.float32, 44),
              np.float32, CROP_BOXES[:2], [0, 1, 1], [2, 3], fed=True)

    xv = values((2, 6, 7, 3), np.float32, 45)

    def build_public():
        x = tf1.placeholder(tf.float32, xv.shape)
        return tf.image.crop_and_resize(x, CROP_BOXES, [0, 1, 1, 0, 1, 1],
                                        [4, 3]), {x: xv}
    case(FAMILY, "crop_public", build_public, rtol=1e-5, atol=1e-5)


def color_pixels(shape, seed):
    """RGB values in [0, 1] with gray, black, white, pure and tied pixels
    among them."""
    v = rng(seed).uniform(0, 1, size=shape).reshape(-1, 3)
    special = np.array([[0, 0, 0], [1, 1, 1], [0.5, 0.5, 0.5], [1, 0, 0],
                        [0, 1, 0], [0, 0, 1], [0.3, 0.3, 0.1],
                        [0.2, 0.7, 0.7], [0.9, 0.1, 0.9], [0.25, 0.5, 0.0]])
    v[:len(special)] = special
    return v.reshape(shape)


def color_case(name, fn, xv, dt, shape="same", **kw):
    def build():
        x, ph, val = feed(xv, dt, shape)
        return fn(x), {ph: val}
    case(FAMILY, name, build, **kw)


def color_cases():
    for dt in (np.float32, np.float64, np.float16, BF16):
        xv = color_pixels((2, 4, 5, 3), 50)
        if dt in (np.float16, BF16):
            xv = (np.round(xv * 64) / 64).astype(np.float32)
        color_case(f"rgb_to_hsv_{dtype_name(dt)}", tf.image.rgb_to_hsv, xv,
                   dt)
        color_case(f"hsv_to_rgb_{dtype_name(dt)}", tf.image.hsv_to_rgb, xv,
                   dt)
    # Out-of-range values, a round trip, one pixel, no pixels.
    wild = rng(51).uniform(-1.5, 2.5, size=(7, 3)).astype(np.float32)
    color_case("rgb_to_hsv_out_of_range", tf.image.rgb_to_hsv, wild,
               np.float32)
    color_case("hsv_to_rgb_out_of_range", tf.image.hsv_to_rgb, wild,
               np.float32)
    color_case("hsv_round_trip", lambda x: tf.image.hsv_to_rgb(
        tf.image.rgb_to_hsv(x)), color_pixels((12, 3), 52), np.float64)
    color_case("rgb_to_hsv_one_pixel", tf.image.rgb_to_hsv,
               np.array([0.2, 0.4, 0.9], np.float32), np.float32)
    color_case("rgb_to_hsv_empty", tf.image.rgb_to_hsv,
               np.zeros((0, 3), np.float32), np.float32)
    color_case("rgb_to_hsv_error_channels", gen_image_ops.rgb_to_hsv,
               np.zeros((2, 4), np.float32), np.float32, shape=None)

    for shape, tag in (((5, 7, 3), "hw"), ((2, 5, 7, 3), "batch"),
                       ((2, 2, 1, 1, 3), "rank5"), ((1, 4, 6, 2), "c2"),
                       ((3, 1, 1, 4), "one_pixel")):
        xv = rng(53).uniform(0, 1, size=shape).astype(np.float32)
        for factor in (0.5, 2.0, -1.0):
            color_case(f"adjust_contrast_{tag}_{factor}",
                       lambda x, f=factor: gen_image_ops.adjust_contrastv2(
                           x, tf.constant(f)), xv, np.float32,
                       rtol=1e-5, atol=1e-6)
    big = rng(54).uniform(0, 1, size=(1, 37, 29, 3)).astype(np.float32)
    color_case("adjust_contrast_odd_sizes", lambda x: tf.image.adjust_contrast(
        x, 1.7), big, np.float32, rtol=1e-5, atol=1e-6)
    xv = color_pixels((2, 4, 5, 3), 55).astype(np.float32)
    for scale in (0.0, 0.4, 1.0, 2.5):
        color_case(f"adjust_saturation_{scale}",
                   lambda x, s=scale: tf.image.adjust_saturation(x, s), xv,
                   np.float32)
    for delta in (-0.9, -0.25, 0.0, 0.1, 0.5, 1.0):
        color_case(f"adjust_hue_{delta}",
                   lambda x, d=delta: tf.image.adjust_hue(x, d), xv,
                   np.float32)
    color_case("adjust_hue_out_of_range_values",
               lambda x: tf.image.adjust_hue(x, 0.3), wild.reshape(7, 1, 3),
               np.float32)
    color_case("adjust_saturation_out_of_range_values",
               lambda x: tf.image.adjust_saturation(x, 1.5),
               wild.reshape(7, 1, 3), np.float32)
    for name, fn, xv in (
            ("adjust_contrast_error_rank",
             lambda x: gen_image_ops.adjust_contrastv2(x, tf.constant(2.0)),
             np.zeros((4, 3), np.float32)),
            ("adjust_hue_error_channels",
             lambda x: gen_image_ops.adjust_hue(x, tf.constant(0.2)),
             np.zeros((2, 2, 4), np.float32)),
            ("adjust_saturation_error_channels",
             lambda x: gen_image_ops.adjust_saturation(x, tf.constant(0.2)),
             np.zeros((2, 2, 2), np.float32))):
        color_case(name, fn, xv, np.float32, shape=None)


SAMPLING_KERNELS = ["lanczos1", "lanczos3", "lanczos5", "gaussian", "box",
                    "triangle", "keyscubic", "mitchellcubic"]


def scale_translate_case(name, xv, dt, size, scale, translation, kernel,
                         antialias, fed=False, **kw):
    def build():
        x, ph, val = feed(xv, dt, shape=None if fed else "same")
        feeds = {ph: val}
        if fed:
            s = tf1.placeholder(tf.float32, [2])
            feeds[s] = np.asarray(scale, np.float32)
        else:
            s = tf.constant(scale, tf.float32)
        return gen_image_ops.scale_and_translate(
            x, tf.constant(size, tf.int32), s,
            tf.constant(translation, tf.float32), kernel_type=kernel,
            antialias=antialias), feeds
    case(FAMILY, name, build, **kw)


def scale_and_translate_cases():
    xv = values((2, 6, 7, 3), np.float32, 60)
    for kernel in SAMPLING_KERNELS:
        for antialias in (True, False):
            tag = f"{kernel}_aa{int(antialias)}"
            scale_translate_case(f"sat_{tag}_down", xv, np.float32, [4, 3],
                                 [4 / 6, 3 / 7], [0.0, 0.0], kernel,
                                 antialias, rtol=1e-5, atol=1e-5)
            scale_translate_case(f"sat_{tag}_up_shift", xv, np.float32,
                                 [9, 11], [1.5, 11 / 7], [0.7, -1.3], kernel,
                                 antialias, rtol=1e-5, atol=1e-5)
    for dt in (np.float64, np.float16, BF16, np.uint8, np.int32, np.int16):
        scale_translate_case(f"sat_{dtype_name(dt)}",
                             values((1, 5, 6, 2), dt, 61), dt, [3, 8],
                             [0.6, 8 / 6], [0.0, 0.5], "lanczos3", True,
                             rtol=1e-5, atol=1e-3)
    scale_translate_case("sat_error_scale", xv, np.float32, [3, 3],
                         [0.0, 1.0], [0.0, 0.0], "lanczos3", True, fed=True)
    scale_translate_case("sat_error_kernel", xv, np.float32, [3, 3],
                         [1.0, 1.0], [0.0, 0.0], "bogus", True, fed=True)

    # tf.image.resize's antialiased and kernel methods, and their gradient.
    for method, antialias in (("bilinear", True), ("bicubic", True),
                              ("lanczos3", False), ("lanczos5", True),
                              ("gaussian", False), ("mitchellcubic", True),
                              ("area", True)):
        def build(method=method, antialias=antialias):
            x = tf1.placeholder(tf.float32, xv.shape)
            return tf.image.resize(x, [4, 10], method=method,
                                   antialias=antialias), {x: xv}
        case(FAMILY, f"tf_image_resize_{method}_aa{int(antialias)}", build,
             rtol=1e-5, atol=1e-5)
    for kernel in ("lanczos3", "triangle", "keyscubic"):
        for antialias in (True, False):
            def build_grad(kernel=kernel, antialias=antialias):
                g = tf1.placeholder(tf.float32, None)
                return gen_image_ops.scale_and_translate_grad(
                    g, tf.zeros([2, 6, 7, 3]), tf.constant([4 / 6, 1.5]),
                    tf.constant([0.3, 0.0]), kernel_type=kernel,
                    antialias=antialias), {g: values((2, 4, 9, 3),
                                                     np.float32, 62)}
            case(FAMILY, f"sat_grad_{kernel}_aa{int(antialias)}",
                 build_grad, rtol=1e-5, atol=1e-5)

    def build_tf_grad():
        x = tf1.placeholder(tf.float32, xv.shape)
        y = tf.image.resize(x, [4, 10], method="lanczos3", antialias=True)
        return tf.gradients(tf.reduce_sum(y * y), x), {x: xv}
    case(FAMILY, "tf_gradients_scale_and_translate", build_tf_grad,
         rtol=1e-5, atol=1e-5)


def rotation(angle, h, w, dx=0.0, dy=0.0):
    """The row Keras's RandomRotation builds: output (x, y) samples the
    input rotated by `angle` about the image centre, then shifted."""
    c, s_ = np.cos(angle), np.sin(angle)
    x_off = ((w - 1) - (c * (w - 1) - s_ * (h - 1))) / 2.0 + dx
    y_off = ((h - 1) - (s_ * (w - 1) + c * (h - 1))) / 2.0 + dy
    return [c, -s_, x_off, s_, c, y_off, 0.0, 0.0]


def projective_case(name, xv, dt, transforms, out_shape, interpolation,
                    fill_mode="CONSTANT", fill=0.0, v2=False, fed=False,
                    **kw):
    def build():
        x, ph, val = feed(xv, dt, shape=None if fed else "same")
        feeds = {ph: val}
        if fed:
            t = tf1.placeholder(tf.float32, None)
            o = tf1.placeholder(tf.int32, None)
            f = tf1.placeholder(tf.float32, None)
            feeds.update({t: np.asarray(transforms, np.float32),
                          o: np.asarray(out_shape, np.int32),
                          f: np.asarray(fill, np.float32)})
        else:
            t = tf.constant(transforms, tf.float32)
            o = tf.constant(out_shape, tf.int32)
            f = tf.constant(fill, tf.float32)
        if v2:
            y = gen_image_ops.image_projective_transform_v2(
                x, t, o, interpolation=interpolation, fill_mode=fill_mode)
        else:
            y = gen_image_ops.image_projective_transform_v3(
                x, t, o, f, interpolation=interpolation,
                fill_mode=fill_mode)
        if dt is BF16:
            y = tf.cast(y, tf.float32)
        return y, feeds
    case(FAMILY, name, build, **kw)


def projective_transform_cases():
    h, w = 5, 6
    per_image = [rotation(0.6, h, w), rotation(-2.2, h, w, 1.5, -0.7)]
    for dt in (np.float32, np.float64, np.float16, BF16, np.uint8,
               np.int32, np.int64):
        xv = values((2, h, w, 3), dt, 60)
        for interpolation in ("NEAREST", "BILINEAR"):
            for mode in ("REFLECT", "WRAP", "CONSTANT", "NEAREST"):
                projective_case(
                    f"projective_{dtype_name(dt)}_{interpolation.lower()}_"
                    f"{mode.lower()}", xv, dt, per_image, [h, w],
                    interpolation, mode, fill=3.0)
    xv = values((2, h, w, 2), np.float32, 61)
    # One row for both images; outputs larger and smaller than the input;
    # zoom, shear and a true projective row (k crosses 0 on the output).
    for tag, row, shape in (
            ("zoom_out", [1.7, 0, -2.0, 0, 1.7, -1.5, 0, 0], [8, 9]),
            ("zoom_in", [0.4, 0, 1.0, 0, 0.4, 0.5, 0, 0], [3, 4]),
            ("shear", [1, 0.6, -1.0, 0.3, 1, 0, 0, 0], [h, w]),
            ("perspective", [1.1, 0.2, -0.5, 0.1, 0.9, 0.3, 0.15, -0.25],
             [7, 7]),
            ("vanishing", [1, 0, 0, 0, 1, 0, -0.25, 0], [h, w])):
        for interpolation in ("NEAREST", "BILINEAR"):
            for mode in ("REFLECT", "WRAP", "CONSTANT", "NEAREST"):
                projective_case(
                    f"projective_{tag}_{interpolation.lower()}_"
                    f"{mode.lower()}", xv, np.float32, [row], shape,
                    interpolation, mode, fill=-1.25)
    # One-pixel axes (the reflect and wrap maps' len <= 1 branch).
    projective_case("projective_one_row_reflect",
                    values((1, 1, 4, 1), np.float32, 62), np.float32,
                    [rotation(0.3, 1, 4, 0.5, 2.0)], [3, 5], "BILINEAR",
                    "REFLECT")
    projective_case("projective_one_column_wrap",
                    values((1, 4, 1, 1), np.float32, 63), np.float32,
                    [rotation(1.0, 4, 1, -3.0, 0.0)], [5, 2], "NEAREST",
                    "WRAP")
    for mode in ("REFLECT", "CONSTANT"):
        projective_case(f"projective_v2_{mode.lower()}", xv, np.float32,
                        per_image, [h, w], "BILINEAR", mode, v2=True)
    projective_case("projective_fed", xv, np.float32, per_image, [6, 4],
                    "BILINEAR", "WRAP", fill=2.0, fed=True)
    # Run-time errors, the inputs fed so that only the kernel sees them.
    for tag, xv_e, t_e, o_e, f_e in (
            ("rank", values((5, 6, 2), np.float32, 64), [rotation(0.1, 5, 6)],
             [5, 6], 0.0),
            ("transform_width", xv, [[1, 0, 0, 0, 1, 0, 0]], [5, 6], 0.0),
            ("transform_rows", xv, [rotation(0.1, 5, 6)] * 3, [5, 6], 0.0),
            ("output_shape_size", xv, per_image, [5, 6, 1], 0.0),
            ("output_shape_zero", xv, per_image, [0, 6], 0.0),
            ("fill_value_shape", xv, per_image, [5, 6], [1.0, 2.0])):
        projective_case(f"projective_error_{tag}", xv_e, np.float32, t_e,
                        o_e, "BILINEAR", fed=True, fill=f_e)


def large_cases():
    """Inputs built in the graph, large enough that dfx splits the work
    over its intra-op pool; strided samples of the outputs are fetched."""
    def image(shape):
        n = int(np.prod(shape))
        return tf.reshape(tf.sin(tf.range(n, dtype=tf.float32) * 0.37),
                          shape)

    def sample(y):
        return y[:, ::17, ::13, :]

    for name, fn in (
            ("large_bilinear", lambda x: tf.image.resize(x, [300, 310])),
            ("large_nearest", lambda x: gen_image_ops.resize_nearest_neighbor(
                x, [300, 310], half_pixel_centers=True)),
            ("large_bicubic", lambda x: gen_image_ops.resize_bicubic(
                x, [290, 330], align_corners=True)),
            ("large_area", lambda x: gen_image_ops.resize_area(x, [70, 90])),
            ("large_bilinear_grad",
             lambda x: gen_image_ops.resize_bilinear_grad(
                 x, tf.zeros([3, 140, 150, 3]), half_pixel_centers=True)),
            ("large_bicubic_grad",
             lambda x: gen_image_ops.resize_bicubic_grad(
                 x, tf.zeros([3, 140, 150, 3]))),
            ("large_nearest_grad",
             lambda x: gen_image_ops.resize_nearest_neighbor_grad(
                 x, [140, 150])),
            ("large_depth_to_space",
             lambda x: tf.nn.depth_to_space(x, 3)[..., :3]),
            ("large_space_to_batch",
             lambda x: tf.space_to_batch(x, [2, 3], [[1, 0], [2, 0]])),
            ("large_crop_and_resize",
             lambda x: tf.image.crop_and_resize(
                 x, tf.constant([[0.1, 0.1, 0.9, 0.8], [0.5, -0.2, 1.2, 0.9],
                                 [0.0, 0.0, 1.0, 1.0]]), [0, 1, 2],
                 [200, 210])),
            ("large_adjust_contrast",
             lambda x: tf.image.adjust_contrast(x, 1.3)),
            ("large_adjust_hue", lambda x: tf.image.adjust_hue(x, 0.2)),
            ("large_rgb_to_hsv", tf.image.rgb_to_hsv)):
        def build(fn=fn, name=name):
            x = image([3, 211, 223, 9] if "depth" in name else
                      [3, 211, 223, 3])
            y = fn(x)
            return [sample(y), tf.reduce_sum(y), tf.shape(y)], {}
        case(FAMILY, name, build, rtol=1e-4, atol=1e-4)


OP_NAMES = ["ResizeBilinear", "ResizeNearestNeighbor", "ResizeBicubic",
            "ResizeArea", "ResizeBilinearGrad", "ResizeNearestNeighborGrad",
            "ResizeBicubicGrad",
            "DepthToSpace", "SpaceToDepth", "SpaceToBatchND",
            "BatchToSpaceND", "NonMaxSuppressionV3", "NonMaxSuppressionV4",
            "NonMaxSuppressionV5", "CropAndResize", "RGBToHSV", "HSVToRGB",
            "AdjustContrastv2", "AdjustSaturation", "AdjustHue",
            "ScaleAndTranslate", "ScaleAndTranslateGrad",
            "ImageProjectiveTransformV2", "ImageProjectiveTransformV3"]


def main():
    resize_cases()
    grad_cases()
    tf_image_resize_cases()
    keras_case()
    space_depth_cases()
    batch_space_cases()
    nms_cases()
    crop_and_resize_cases()
    color_cases()
    scale_and_translate_cases()
    projective_transform_cases()
    large_cases()
    golden_lib.write_op_defs(
        FAMILY, OP_NAMES,
        type_attrs={n: "dtype" for n in OP_NAMES
                    if n.startswith("ImageProjectiveTransform")})


if __name__ == "__main__":
    main()
