"""Golden cases of the array family: slicing, tiling, padding and splitting
(StridedSlice and its gradient, Slice, Tile, Pad, PadV2, MirrorPad and its
gradient, ReverseV2, BroadcastTo, Size, Rank, Split, SplitV, Unpack, Range,
LinSpace), as TensorFlow 2.21 runs them.

Run with the TensorFlow virtualenv: $(tools/tf_env) tests/golden/gen_array.py

Inputs are fed through placeholders, so nothing is folded at graph time and
run-time errors (an index fed out of range, a zero delta) reach the kernels;
those cases record TensorFlow's error code. StridedSlice is built the way
Python subscripts build it (x[..., 1:3], x[:, None], x[::-1], ...), so the
masks are the ones real programs produce. bfloat16 is fed as float32 and
cast in the graph (the .npy feeds have no bfloat16); string and complex
tensors are left to the unit tests (the golden files hold numbers only),
and so are tensors large enough to be split between threads (the golden
files stay a few KiB per case).
"""

import numpy as np
import tensorflow as tf

from golden_lib import case, rng, tf1

FAMILY = "array"
BF16 = tf.bfloat16.as_numpy_dtype
raw = tf.raw_ops

# Every dtype the byte-moving kernels are checked with.
MOVE_TYPES = [np.float32, np.float64, np.float16, BF16, np.int32, np.int64,
              np.int8, np.int16, np.uint8, np.uint16, np.uint32, np.uint64,
              np.bool_]


def dtype_name(dt):
    return "bfloat16" if dt is BF16 else np.dtype(dt).name


def values(shape, dt, seed=0):
    """Distinct-looking values of dtype dt (bools alternate)."""
    n = int(np.prod(shape))
    if dt is np.bool_:
        return (np.arange(n) % 3 == 0).reshape(shape)
    v = np.arange(n).reshape(shape)
    if np.dtype(dt if dt is not BF16 else np.float32).kind == "f":
        v = v * 0.5 - 3.25
    elif np.dtype(dt).kind == "i":
        v = v - n // 2
    return v


def feed(value, dt, name=None, shape=None):
    """A placeholder of dtype dt fed with value: (tensor used in the graph,
    placeholder, value fed). bfloat16 is fed as float32 and cast. A scalar
    is fed as a vector of one element and reshaped in the graph, because
    golden_lib writes 0-d arrays to .npy as shape [1]."""
    value = np.asarray(value)
    if value.ndim == 0 and shape is None:
        t, ph, fed = feed(value.reshape([1]), dt, name=name)
        return tf.reshape(t, []), ph, fed
    if dt is BF16:
        fed = value.astype(np.float32)
        ph = tf1.placeholder(tf.float32, fed.shape if shape is None else shape,
                             name=name)
        return tf.cast(ph, tf.bfloat16), ph, fed
    fed = value.astype(dt)
    ph = tf1.placeholder(tf.as_dtype(dt), fed.shape if shape is None else shape,
                         name=name)
    return ph, ph, fed


def feed_any(value, dt):
    """feed() with every dim unknown at graph time, so that bad values reach
    the kernel instead of failing shape inference when the graph is built."""
    if np.ndim(value) == 0:
        return feed(value, dt)
    return feed(value, dt, shape=[None] * np.ndim(value))


def add(name, build, **kw):
    """A case; scalar fetches come back as vectors of one element (see
    feed())."""
    def wrapped():
        fetches, feeds = build()
        if not isinstance(fetches, (list, tuple)):
            fetches = [fetches]
        fetches = [tf.reshape(t, [1]) if t.shape.rank == 0 else t
                   for t in fetches]
        return fetches, feeds
    case(FAMILY, name, wrapped, **kw)


def on_input(name, fn, shape, dt=np.float32, unknown_shape=False):
    """One case: fn(x) for x a fed tensor of `shape` and dtype dt."""
    def build():
        t, ph, v = feed(values(shape, dt), dt,
                        shape=[None] * len(shape)
                        if unknown_shape and shape else None)
        out = fn(t)
        return out, {ph: v}
    add(name, build)


def ints(v, dt=np.int32):
    return tf.constant(np.asarray(v, dtype=dt))


# --------------------------------------------------------------------------
# StridedSlice

def strided_slice_cases():
    x_shape = [4, 5, 6]
    subscripts = {
        "int": lambda x: x[1],
        "neg_int": lambda x: x[-1],
        "range": lambda x: x[1:3],
        "reverse": lambda x: x[::-1],
        "neg_range_step2": lambda x: x[-3:-1:2],
        "ellipsis_range": lambda x: x[..., 1:3],
        "newaxis_second": lambda x: x[:, None],
        "newaxis_first": lambda x: x[None],
        "ellipsis_newaxis": lambda x: x[..., None],
        "int_ellipsis_int": lambda x: x[1, ..., 2],
        "rev2_shrink": lambda x: x[:, ::-2, 1],
        "newaxis_ellipsis_newaxis_int": lambda x: x[None, ..., None, 0],
        "start_past_end": lambda x: x[10:],
        "clamped": lambda x: x[-100:100],
        "empty_forward": lambda x: x[3:1],
        "backward_steps": lambda x: x[3:1:-1, 4::-3],
        "ellipsis_only": lambda x: x[...],
        "all_slices": lambda x: x[:, :, :],
        "range_int_negint": lambda x: x[1:2, 2, -1],
        "ellipsis_rev_full": lambda x: x[..., ::-1, :],
        "mixed": lambda x: x[:, tf.newaxis, 1:4:2, ::-1],
        "neg_start_rev": lambda x: x[-1::-2, -2:, :-7:-1],
        "shrink_last": lambda x: x[..., -1],
        "rows_view": lambda x: x[1:3, :, :],
    }
    for label, fn in subscripts.items():
        on_input(f"strided_slice_{label}", fn, x_shape)
    for dt in MOVE_TYPES:
        on_input(f"strided_slice_dtype_{dtype_name(dt)}",
                 lambda x: x[1:, ::-2, 1], [3, 4, 2], dt)
    # The same subscripts on an input whose shape is unknown at graph time.
    on_input("strided_slice_unknown_shape", lambda x: x[:, None, ::-1, 2],
             [3, 4, 5], unknown_shape=True)
    # int64 and int16 index tensors.
    on_input("strided_slice_index_int64",
             lambda x: tf.strided_slice(x, ints([1, -1], np.int64),
                                        ints([3, 0], np.int64),
                                        ints([1, -1], np.int64),
                                        end_mask=2), [4, 5])
    on_input("strided_slice_index_int16",
             lambda x: raw.StridedSlice(input=x, begin=ints([0, 4], np.int16),
                                        end=ints([3, 0], np.int16),
                                        strides=ints([2, -2], np.int16)),
             [4, 5])
    # Masks given directly: begin/end masks with values that would be out
    # of range, shrink with new axis on the same index.
    on_input("strided_slice_masks_explicit",
             lambda x: raw.StridedSlice(input=x, begin=ints([9, 9, 0]),
                                        end=ints([-9, 9, 1]),
                                        strides=ints([1, -1, 1]),
                                        begin_mask=1, end_mask=2,
                                        shrink_axis_mask=4), [3, 4, 2])
    on_input("strided_slice_newaxis_and_shrink_same_bit",
             lambda x: raw.StridedSlice(input=x, begin=ints([0]),
                                        end=ints([1]), strides=ints([1]),
                                        new_axis_mask=1, shrink_axis_mask=1),
             [2, 3])
    on_input("strided_slice_ellipsis_and_newaxis_same_bit",
             lambda x: raw.StridedSlice(input=x, begin=ints([0]),
                                        end=ints([1]), strides=ints([1]),
                                        ellipsis_mask=1, new_axis_mask=1),
             [2, 3])
    on_input("strided_slice_shrink_stride2",
             lambda x: raw.StridedSlice(input=x, begin=ints([1]),
                                        end=ints([2]), strides=ints([2]),
                                        shrink_axis_mask=1), [2, 3])
    # Scalars and empty tensors.
    on_input("strided_slice_scalar_ellipsis", lambda x: x[...], [])
    on_input("strided_slice_scalar_newaxis", lambda x: x[None], [])
    on_input("strided_slice_empty_input", lambda x: x[:, 1:][::-1], [0, 3])
    on_input("strided_slice_empty_result", lambda x: x[2:2, ::-1], [4, 3])

    # begin/end/strides fed at run time.
    def fed_indices(begin, end, strides, shape=(4, 5), **masks):
        def build():
            x, xph, xv = feed(values(shape, np.float32), np.float32)
            b, bph, bv = feed_any(begin, np.int32)
            e, eph, ev = feed_any(end, np.int32)
            s, sph, sv = feed_any(strides, np.int32)
            out = raw.StridedSlice(input=x, begin=b, end=e, strides=s, **masks)
            return out, {xph: xv, bph: bv, eph: ev, sph: sv}
        return build
    add("strided_slice_fed_indices",
        fed_indices([3, -1], [0, -6], [-1, -2]))
    add("strided_slice_fed_indices_masks",
        fed_indices([0, 1], [0, 0], [1, 1], begin_mask=1, end_mask=3,
                    shrink_axis_mask=0))
    add("strided_slice_error_shrink_out_of_range",
        fed_indices([5], [6], [1], shrink_axis_mask=1))
    add("strided_slice_error_shrink_negative_stride",
        fed_indices([1], [0], [-1], shrink_axis_mask=1))
    add("strided_slice_error_zero_stride", fed_indices([0], [1], [0]))
    add("strided_slice_error_too_many_indices",
        fed_indices([0, 0, 0], [1, 1, 1], [1, 1, 1]))

    def length_mismatch():
        x, xph, xv = feed(values([2, 3], np.float32), np.float32)
        b, bph, bv = feed([0], np.int32, shape=[None])
        out = raw.StridedSlice(input=x, begin=b, end=ints([1, 1]),
                               strides=ints([1, 1]))
        return out, {xph: xv, bph: bv}
    add("strided_slice_error_length_mismatch", length_mismatch)


def strided_slice_grad_cases():
    # Through tf.gradients (Shape + StridedSliceGrad), with a fed upstream
    # gradient.
    grads = {
        "range_reverse": lambda x: x[1:3, ::-1],
        "int_newaxis": lambda x: x[None, 2, ..., 1:],
        "steps": lambda x: x[::2, -1::-3, None],
    }
    for label, fn in grads.items():
        for dt in [np.float32, np.float64]:
            def build(fn=fn, dt=dt):
                x, ph, v = feed(values([4, 5, 3], dt), dt)
                y = fn(x)
                dy = rng(1).uniform(-2, 2, size=y.shape.as_list()).astype(dt)
                g, gph, gv = feed(dy, dt)
                (dx,) = tf.gradients(y, x, grad_ys=g)
                return [y, dx], {ph: v, gph: gv}
            add(f"strided_slice_grad_{label}_{dtype_name(dt)}", build)
    # The raw op, on integer and bool gradients too.
    for dt in [np.int32, np.int64, np.float16, np.bool_, np.uint8]:
        def build(dt=dt):
            dy, ph, v = feed(values([2, 3], dt), dt)
            out = raw.StridedSliceGrad(shape=ints([4, 3]), begin=ints([3, 0]),
                                       end=ints([0, 0]), strides=ints([-2, 1]),
                                       end_mask=2, dy=dy)
            return out, {ph: v}
        add(f"strided_slice_grad_raw_{dtype_name(dt)}", build)

    def bad_dy():
        dy, ph, v = feed(values([2, 3], np.float32), np.float32)
        out = raw.StridedSliceGrad(shape=ints([2, 3]), begin=ints([0]),
                                   end=ints([1]), strides=ints([1]), dy=dy)
        return out, {ph: v}
    add("strided_slice_grad_error_dy_shape", bad_dy)


# --------------------------------------------------------------------------
# Slice

def slice_cases():
    specs = {
        "rows": ([1, 0], [2, -1]),
        "inner": ([0, 2], [3, 2]),
        "all_minus_one": ([1, 1], [-1, -1]),
        "empty": ([2, 1], [0, 3]),
        "whole": ([0, 0], [4, 5]),
    }
    for label, (b, s) in specs.items():
        on_input(f"slice_{label}", lambda x, b=b, s=s: tf.slice(x, b, s),
                 [4, 5])
    on_input("slice_index_int64",
             lambda x: tf.slice(x, ints([1, 0, 1], np.int64),
                                ints([2, -1, 1], np.int64)), [3, 2, 4])
    for dt in MOVE_TYPES:
        on_input(f"slice_dtype_{dtype_name(dt)}",
                 lambda x: tf.slice(x, [1, 1], [2, 2]), [3, 4], dt)
    on_input("slice_empty_input", lambda x: tf.slice(x, [0, 1], [-1, 2]),
             [0, 3])
    on_input("slice_scalar", lambda x: tf.slice(x, ints([], np.int32),
                                                ints([], np.int32)), [])

    def fed(begin, size, shape=(4, 5)):
        def build():
            x, xph, xv = feed(values(shape, np.float32), np.float32)
            b, bph, bv = feed_any(begin, np.int32)
            s, sph, sv = feed_any(size, np.int32)
            return tf.slice(x, b, s), {xph: xv, bph: bv, sph: sv}
        return build
    add("slice_fed", fed([1, 2], [-1, 2]))
    add("slice_error_begin_out_of_range", fed([0, 6], [1, 1]))
    add("slice_error_negative_begin", fed([-1, 0], [1, 1]))
    add("slice_error_size_too_large", fed([1, 1], [4, 1]))
    add("slice_error_size_below_minus_one", fed([1, 1], [1, -2]))
    add("slice_error_empty_dim_begin", fed([1, 0], [0, 1], shape=(0, 3)))


# --------------------------------------------------------------------------
# Tile, BroadcastTo, ReverseV2

def tile_cases():
    for label, (shape, mult) in {
        "rows": ([2, 3], [3, 1]),
        "cols": ([2, 3], [1, 4]),
        "both": ([2, 3], [2, 3]),
        "rank3": ([2, 1, 3], [2, 5, 1]),
        "zero": ([2, 3], [0, 2]),
        "ones": ([2, 3], [1, 1]),
        "vector": ([4], [3]),
        "empty_input": ([0, 3], [2, 2]),
    }.items():
        on_input(f"tile_{label}", lambda x, m=mult: tf.tile(x, m), shape)
    on_input("tile_scalar", lambda x: tf.tile(x, ints([], np.int32)), [])
    on_input("tile_multiples_int64",
             lambda x: tf.tile(x, ints([2, 1, 3], np.int64)), [1, 2, 2])
    # TensorFlow has no uint16 Tile kernel (Unimplemented); dfx moves any
    # dtype's bytes, so that dtype is left to the unit tests.
    for dt in [t for t in MOVE_TYPES if t is not np.uint16]:
        on_input(f"tile_dtype_{dtype_name(dt)}", lambda x: tf.tile(x, [2, 3]),
                 [2, 2], dt)

    def fed(mult):
        def build():
            x, xph, xv = feed(values([2, 3], np.float32), np.float32)
            m, mph, mv = feed_any(mult, np.int32)
            return tf.tile(x, m), {xph: xv, mph: mv}
        return build
    add("tile_fed_multiples", fed([2, 2]))
    add("tile_error_negative_multiple", fed([1, -1]))
    add("tile_error_wrong_length", fed([1, 2, 3]))


def broadcast_to_cases():
    for label, (shape, target) in {
        "vector_to_matrix": ([3], [2, 3]),
        "column": ([2, 1], [2, 4]),
        "scalar": ([], [2, 2]),
        "middle": ([3, 1, 2], [4, 3, 5, 2]),
        "same": ([2, 3], [2, 3]),
        "to_empty": ([1, 3], [0, 3]),
        "empty": ([0, 1], [2, 0, 4]),
    }.items():
        on_input(f"broadcast_to_{label}",
                 lambda x, t=target: tf.broadcast_to(x, t), shape)
    on_input("broadcast_to_shape_int64",
             lambda x: tf.broadcast_to(x, ints([2, 2, 3], np.int64)), [3])
    for dt in MOVE_TYPES:
        on_input(f"broadcast_to_dtype_{dtype_name(dt)}",
                 lambda x: tf.broadcast_to(x, [2, 3, 2]), [3, 1], dt)

    def fed(target):
        def build():
            x, xph, xv = feed(values([2, 3], np.float32), np.float32)
            s, sph, sv = feed_any(target, np.int32)
            return tf.broadcast_to(x, s), {xph: xv, sph: sv}
        return build
    add("broadcast_to_fed_shape", fed([4, 2, 3]))
    add("broadcast_to_error_incompatible", fed([2, 2]))
    add("broadcast_to_error_rank", fed([3]))
    add("broadcast_to_error_negative", fed([-1, 3]))


def reverse_cases():
    for label, axes in {
        "first": [0], "last": [-1], "two": [0, 2], "all": [0, 1, 2],
        "none": [],
    }.items():
        on_input(f"reverse_{label}", lambda x, a=axes: tf.reverse(x, a),
                 [3, 4, 2])
    on_input("reverse_axis_int64",
             lambda x: tf.reverse(x, ints([1], np.int64)), [2, 3])
    for dt in MOVE_TYPES:
        on_input(f"reverse_dtype_{dtype_name(dt)}",
                 lambda x: tf.reverse(x, [1]), [2, 3], dt)
    on_input("reverse_empty", lambda x: tf.reverse(x, [0]), [0, 3])

    def fed(axes, shape=(2, 3)):
        def build():
            x, xph, xv = feed(values(shape, np.float32), np.float32)
            a, aph, av = feed_any(axes, np.int32)
            return tf.reverse(x, a), {xph: xv, aph: av}
        return build
    add("reverse_fed_axes", fed([1, 0]))
    add("reverse_error_duplicate_axis", fed([1, -1]))
    add("reverse_error_axis_out_of_range", fed([2]))
    add("reverse_scalar_ignores_axes", fed([5], shape=()))


# --------------------------------------------------------------------------
# Pad, PadV2, MirrorPad, MirrorPadGrad

def pad_cases():
    pads = {
        "both": [[1, 2], [0, 3]],
        "rows": [[2, 1], [0, 0]],
        "cols": [[0, 0], [3, 1]],
        "none": [[0, 0], [0, 0]],
    }
    for label, p in pads.items():
        on_input(f"pad_{label}", lambda x, p=p: tf.pad(x, p), [3, 4])
        on_input(f"padv2_{label}",
                 lambda x, p=p: tf.pad(x, p, constant_values=7.5), [3, 4])
    on_input("pad_rank3_inner_block", lambda x: tf.pad(x, [[1, 0], [0, 0],
                                                           [0, 0]]),
             [2, 3, 4])
    on_input("pad_paddings_int64",
             lambda x: tf.pad(x, ints([[1, 1], [2, 0]], np.int64)), [2, 2])
    on_input("pad_empty_input", lambda x: tf.pad(x, [[1, 1], [0, 2]]), [0, 2])
    on_input("pad_scalar", lambda x: tf.pad(x, ints(np.zeros([0, 2]))), [])
    for dt in MOVE_TYPES:
        on_input(f"pad_dtype_{dtype_name(dt)}",
                 lambda x: tf.pad(x, [[1, 0], [2, 1]]), [2, 3], dt)
        if dt is not np.bool_:
            on_input(f"padv2_dtype_{dtype_name(dt)}",
                     lambda x: tf.pad(x, [[0, 1], [1, 1]], constant_values=3),
                     [2, 2], dt)
    on_input("padv2_bool_true",
             lambda x: tf.pad(x, [[1, 1]], constant_values=True), [3],
             np.bool_)

    for mode in ["REFLECT", "SYMMETRIC"]:
        m = mode.lower()
        top = 2 if mode == "REFLECT" else 3
        for label, p in {
            "both": [[1, 2], [top, 1]],
            "rows": [[2, 1], [0, 0]],
            "cols": [[0, 0], [top, top]],
            "none": [[0, 0], [0, 0]],
        }.items():
            on_input(f"mirror_pad_{m}_{label}",
                     lambda x, p=p, mode=mode: tf.pad(x, p, mode=mode), [3, 4])
        on_input(f"mirror_pad_{m}_rank3",
                 lambda x, mode=mode: tf.pad(x, [[1, 1], [0, 0], [1, 2]],
                                             mode=mode), [2, 3, 4])
        on_input(f"mirror_pad_{m}_paddings_int64",
                 lambda x, mode=mode: tf.pad(
                     x, ints([[1, 1], [1, 0]], np.int64), mode=mode), [3, 3])
        for dt in MOVE_TYPES:
            on_input(f"mirror_pad_{m}_dtype_{dtype_name(dt)}",
                     lambda x, mode=mode: tf.pad(x, [[1, 1], [2, 1]],
                                                 mode=mode), [2, 3], dt)
    on_input("mirror_pad_symmetric_empty_dim",
             lambda x: tf.pad(x, [[0, 0], [1, 1]], mode="SYMMETRIC"), [0, 3])

    def fed(p, mode="CONSTANT", shape=(2, 3)):
        def build():
            x, xph, xv = feed(values(shape, np.float32), np.float32)
            q, qph, qv = feed_any(p, np.int32)
            return tf.pad(x, q, mode=mode), {xph: xv, qph: qv}
        return build
    add("pad_fed_paddings", fed([[1, 0], [0, 2]]))
    add("pad_error_negative", fed([[0, -1], [0, 0]]))
    add("pad_error_wrong_rank", fed([[0, 0]]))
    add("mirror_pad_fed_paddings", fed([[1, 1], [2, 0]], "REFLECT"))
    add("mirror_pad_error_reflect_too_large", fed([[0, 0], [0, 3]], "REFLECT"))
    add("mirror_pad_error_symmetric_too_large",
        fed([[0, 0], [4, 0]], "SYMMETRIC"))
    add("mirror_pad_error_negative", fed([[0, -1], [0, 0]], "SYMMETRIC"))
    add("mirror_pad_error_reflect_empty_dim",
        fed([[0, 0], [1, 1]], "REFLECT", shape=(0, 3)))

    def padv2_vector_constant():
        x, xph, xv = feed(values([2], np.float32), np.float32)
        c, cph, cv = feed([1.0], np.float32)
        return raw.PadV2(input=x, paddings=ints([[1, 1]]),
                         constant_values=c), {xph: xv, cph: cv}
    add("padv2_error_vector_constant", padv2_vector_constant)


def mirror_pad_grad_cases():
    for mode in ["REFLECT", "SYMMETRIC"]:
        m = mode.lower()
        for dt in [np.float32, np.float64, np.int32, np.int64, np.float16,
                   np.uint8, np.int8]:
            on_input(f"mirror_pad_grad_{m}_{dtype_name(dt)}",
                     lambda x, mode=mode: raw.MirrorPadGrad(
                         input=x, paddings=ints([[1, 2], [2, 1]]), mode=mode),
                     [6, 7], dt)
        on_input(f"mirror_pad_grad_{m}_rank3",
                 lambda x, mode=mode: raw.MirrorPadGrad(
                     input=x, paddings=ints([[0, 0], [1, 1], [2, 2]],
                                            np.int64), mode=mode), [2, 5, 7])

        # Through tf.gradients of tf.pad.
        def build(mode=mode):
            x, ph, v = feed(values([3, 4], np.float32), np.float32)
            y = tf.pad(x, [[1, 2], [2, 1]], mode=mode)
            dy = rng(2).uniform(-2, 2, size=y.shape.as_list()).astype(
                np.float32)
            g, gph, gv = feed(dy, np.float32)
            (dx,) = tf.gradients(y, x, grad_ys=g)
            return [y, dx], {ph: v, gph: gv}
        add(f"mirror_pad_grad_{m}_via_gradients", build)

    def fed(p, mode, n=4):
        def build():
            x, xph, xv = feed(values([n], np.float32), np.float32)
            q, qph, qv = feed_any(p, np.int32)
            return raw.MirrorPadGrad(input=x, paddings=q, mode=mode), \
                {xph: xv, qph: qv}
        return build
    add("mirror_pad_grad_error_total", fed([[2, 2]], "REFLECT"))
    add("mirror_pad_grad_error_reflect_output", fed([[2, 2]], "REFLECT", 6))
    add("mirror_pad_grad_error_negative", fed([[-1, 0]], "SYMMETRIC"))


# --------------------------------------------------------------------------
# Size, Rank, Split, SplitV, Unpack

def size_rank_cases():
    for label, shape in {"matrix": [2, 3], "scalar": [], "empty": [0, 4]}.items():
        on_input(f"size_{label}", lambda x: raw.Size(input=x), shape,
                 unknown_shape=True)
        on_input(f"size_{label}_int64",
                 lambda x: raw.Size(input=x, out_type=tf.int64), shape)
        on_input(f"rank_{label}", lambda x: raw.Rank(input=x), shape,
                 unknown_shape=True)
    on_input("size_bool", lambda x: raw.Size(input=x), [3, 2], np.bool_)


def split_cases():
    for label, (shape, num, axis) in {
        "axis0": ([6, 2], 3, 0),
        "axis1": ([2, 6], 2, 1),
        "neg_axis": ([2, 3, 4], 2, -1),
        "neg_axis_first": ([4, 3], 2, -2),
        "one": ([2, 3], 1, 1),
        "empty": ([0, 4], 2, 1),
        "leading_ones": ([1, 1, 6, 2], 3, 2),
    }.items():
        on_input(f"split_{label}",
                 lambda x, n=num, a=axis: tf.split(x, n, axis=a), shape)
    for dt in MOVE_TYPES:
        on_input(f"split_dtype_{dtype_name(dt)}",
                 lambda x: tf.split(x, 2, axis=1), [3, 4], dt)

    for label, (shape, sizes, axis, tlen) in {
        "basic": ([2, 6], [1, 3, 2], 1, np.int32),
        "minus_one": ([2, 6], [1, -1, 2], -1, np.int32),
        "int64": ([5, 2], [2, 3], 0, np.int64),
        "zero_piece": ([2, 4], [0, 4, 0], 1, np.int64),
        "minus_one_zero": ([2, 4], [4, -1], 1, np.int64),
        "one_piece": ([3, 2], [3], 0, np.int64),
    }.items():
        on_input(f"split_v_{label}",
                 lambda x, s=sizes, a=axis, t=tlen: tf.split(
                     x, ints(s, t), axis=a), shape)
    for dt in [np.float64, np.int8, np.bool_, np.float16]:
        on_input(f"split_v_dtype_{dtype_name(dt)}",
                 lambda x: tf.split(x, [1, -1], axis=0), [3, 2], dt)

    def fed_split(axis, num=2):
        def build():
            x, xph, xv = feed(values([2, 3], np.float32), np.float32)
            a, aph, av = feed_any(axis, np.int32)
            return raw.Split(axis=a, value=x, num_split=num), \
                {xph: xv, aph: av}
        return build
    add("split_fed_axis", fed_split(-2))
    add("split_error_uneven", fed_split(1))
    add("split_error_axis_out_of_range", fed_split(-3))

    def fed_split_v(sizes, axis=1, num=2):
        def build():
            x, xph, xv = feed(values([2, 3], np.float32), np.float32)
            s, sph, sv = feed_any(sizes, np.int64)
            a, aph, av = feed_any(axis, np.int32)
            return raw.SplitV(value=x, size_splits=s, axis=a,
                              num_split=num), {xph: xv, sph: sv, aph: av}
        return build
    add("split_v_fed", fed_split_v([2, -1]))
    add("split_v_error_two_minus_one", fed_split_v([-1, -1]))
    add("split_v_error_too_large", fed_split_v([-1, 5]))
    add("split_v_error_sum_mismatch", fed_split_v([1, 1]))
    add("split_v_error_negative", fed_split_v([-2, 5]))
    add("split_v_error_one_output_minus_one", fed_split_v([-1], num=1))
    add("split_v_error_axis", fed_split_v([1, 2], axis=2))


def unpack_cases():
    for label, (shape, axis) in {
        "axis0": ([3, 2], 0),
        "axis1": ([2, 3, 2], 1),
        "neg_axis": ([2, 3], -1),
        "single": ([1, 4], 0),
        "empty_inner": ([2, 0], 0),
    }.items():
        on_input(f"unpack_{label}",
                 lambda x, a=axis: tf.unstack(x, axis=a), shape)
    for dt in MOVE_TYPES:
        on_input(f"unpack_dtype_{dtype_name(dt)}",
                 lambda x: tf.unstack(x, axis=1), [2, 2], dt)

    def bad_num():
        x, xph, xv = feed(values([2, 3], np.float32), np.float32,
                          shape=[None, None])
        return raw.Unpack(value=x, num=3, axis=0), {xph: xv}
    add("unpack_error_num", bad_num)


# --------------------------------------------------------------------------
# Range, LinSpace

def range_cases():
    def range_case(name, start, limit, delta, dt):
        def build():
            s, sph, sv = feed(start, dt)
            l, lph, lv = feed(limit, dt)
            d, dph, dv = feed(delta, dt)
            return tf.range(s, l, d), {sph: sv, lph: lv, dph: dv}
        add(name, build)

    for label, args in {
        "int32": (3, 18, 5, np.int32),
        "int32_down": (5, -4, -3, np.int32),
        "int64": (-7, 100, 9, np.int64),
        "float32": (0.3, 10.0, 0.1, np.float32),
        "float32_down": (2.0, -1.0, -0.35, np.float32),
        "float64": (1.0, 0.0, -0.3, np.float64),
        "empty": (4, 4, 1, np.int32),
        "int32_extremes": (-2**31, 2**31 - 1, 2**30, np.int32),
        "error_zero_delta_int": (0, 5, 0, np.int32),
        "error_zero_delta_float": (0.0, 5.0, 0.0, np.float32),
        "error_wrong_direction_up": (5, 0, 1, np.int64),
        "error_wrong_direction_down": (0.0, 5.0, -1.0, np.float64),
        "error_infinite_limit": (0.0, np.inf, 1.0, np.float32),
    }.items():
        range_case(f"range_{label}", *args)

    def linspace_case(name, start, stop, num, dt, ndt):
        def build():
            s, sph, sv = feed(start, dt)
            e, eph, ev = feed(stop, dt)
            n, nph, nv = feed(num, ndt)
            return raw.LinSpace(start=s, stop=e, num=n), \
                {sph: sv, eph: ev, nph: nv}
        add(name, build)

    for label, args in {
        "float32": (0.0, 1.0, 7, np.float32, np.int32),
        "float64_down": (1.0, -1.0, 4, np.float64, np.int64),
        "one": (3.0, 9.0, 1, np.float32, np.int32),
        "two": (3.0, 9.0, 2, np.float64, np.int32),
        "error_zero_num": (0.0, 1.0, 0, np.float32, np.int32),
    }.items():
        linspace_case(f"linspace_{label}", *args)


def main():
    strided_slice_cases()
    strided_slice_grad_cases()
    slice_cases()
    tile_cases()
    broadcast_to_cases()
    reverse_cases()
    pad_cases()
    mirror_pad_grad_cases()
    size_rank_cases()
    split_cases()
    unpack_cases()
    range_cases()


if __name__ == "__main__":
    main()
