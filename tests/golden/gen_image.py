"""Golden cases of the image family: ResizeBilinear, ResizeNearestNeighbor,
ResizeBicubic and ResizeArea for every allowed align_corners /
half_pixel_centers combination, up and down, over the dtypes TensorFlow's
CPU kernels register; the gradients ResizeBilinearGrad and
ResizeNearestNeighborGrad; run-time errors; and a frozen Keras model with
Resizing and UpSampling2D(bilinear), as TensorFlow 2.21 runs them.

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
from tensorflow.python.ops import gen_image_ops  # noqa: E402

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
    # tf.gradients of the forward ops build the grad ops as training does.
    xv = values((1, 4, 5, 3), np.float32, 9)

    def build_tf_grad():
        x = tf1.placeholder(tf.float32, xv.shape)
        y1 = tf.image.resize(x, [7, 6], method="bilinear")
        y2 = tf.image.resize(x, [9, 11], method="nearest")
        loss = tf.reduce_sum(y1 * y1) + tf.reduce_sum(y2 * tf.sin(y2))
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


def main():
    resize_cases()
    grad_cases()
    tf_image_resize_cases()
    keras_case()


if __name__ == "__main__":
    main()
