"""Golden cases of the numerics family: how accurately Sum, Mean, Prod, Max
and Min reduce, as TensorFlow 2.21 computes them on CPU. Large inputs are
built inside the graph (tf.ones, tf.range, tf.sin) so the files stay small:

- reduce_sum / reduce_mean of tf.ones([2**25]) (33554432 and 1.0: a sum
  accumulated one value at a time stops at 2**24) and of 2**25-element
  tf.range-based tensors;
- column reductions of [2**20, 32], middle axes, alternating axes;
- half and bfloat16 reductions, every integer type, overflow;
- empty reductions (Mean of nothing is NaN), keep_dims.

Run with the TensorFlow virtualenv:
    $(tools/tf_env) tests/golden/gen_numerics.py

Tolerances are golden_lib's dtype defaults except where a comment says why.
Half inputs are chosen so that every partial sum is exact in half:
TensorFlow accumulates half in half (reduce_sum of 10000 x 0.1 gives 997,
not 999.8, and reduce_mean of 2**20 half ones gives NaN after the half sum
overflows), while dfx accumulates half and bfloat16 in float, so the two
agree only where half loses nothing.
"""

import numpy as np
import tensorflow as tf

import golden_lib
from golden_lib import case, tf1


def _keep_rank(to_npy):
    """golden_lib._to_npy saves 0-d arrays as [1] (np.ascontiguousarray
    makes every array at least 1-d), so a scalar feed no longer matches
    its placeholder and a scalar output is compared as [1]. This keeps the
    rank; it changes nothing once golden_lib keeps it itself."""
    def wrapped(value):
        arr, name = to_npy(value)
        return arr.reshape(np.shape(value)), name
    return wrapped


golden_lib._to_npy = _keep_rank(golden_lib._to_npy)

FAMILY = "numerics"
BF16 = tf.bfloat16.as_numpy_dtype
raw = tf.raw_ops
NAN = float("nan")

REDUCERS = {
    "Sum": tf.reduce_sum,
    "Mean": tf.reduce_mean,
    "Prod": tf.reduce_prod,
    "Max": tf.reduce_max,
    "Min": tf.reduce_min,
}


def add(name, build, **kw):
    case(FAMILY, name, build, **kw)


def dtype_name(dt):
    return "bfloat16" if dt is BF16 else np.dtype(dt).name


def feed(value, dt):
    """(tensor, placeholder, value fed); bfloat16 is fed as float32 and
    cast in the graph."""
    value = np.asarray(value)
    if dt is BF16:
        ph = tf1.placeholder(tf.float32, value.shape)
        return tf.cast(ph, tf.bfloat16), ph, value.astype(np.float32)
    ph = tf1.placeholder(tf.as_dtype(dt), value.shape)
    return ph, ph, value.astype(dt)


def positive_wave(n, dtype=tf.float32):
    """1 + 0.5 sin(i) for i < n, built in the graph: positive values, so a
    relative tolerance means something for every sum."""
    return 1.0 + 0.5 * tf.sin(tf.cast(tf.range(n), dtype))


def big_cases():
    n = 2**25
    for op in ("Sum", "Mean"):
        add(f"{op}_ones_2e25",
            lambda op=op: (REDUCERS[op](tf.ones([n])), None))
        # tf.range-based: 0, 1e-3, 2e-3, ... (sum ~5.6e11).
        add(f"{op}_range_2e25",
            lambda op=op: (REDUCERS[op](
                tf.cast(tf.range(n), tf.float32) * 1e-3), None))
        add(f"{op}_wave_2e25",
            lambda op=op: (REDUCERS[op](positive_wave(n)), None))
        add(f"{op}_ones_2e25_keep_dims",
            lambda op=op: (REDUCERS[op](tf.ones([n]), keepdims=True), None))
        add(f"{op}_range_2e25_float64",
            lambda op=op: (REDUCERS[op](
                tf.cast(tf.range(n), tf.float64) * 1e-3), None))
    # Column reductions of [2**20, 32].
    rows = 2**20
    for op in ("Sum", "Mean", "Max", "Min"):
        add(f"{op}_columns_ones_2e20x32",
            lambda op=op: (REDUCERS[op](tf.ones([rows, 32]), axis=0), None))
        add(f"{op}_columns_wave_2e20x32",
            lambda op=op: (REDUCERS[op](
                tf.reshape(positive_wave(rows * 32), [rows, 32]), axis=0),
                None))
    # A ramp: TensorFlow's own column sum is off by up to 3.8e-5 relative
    # to the exact (float64) sum here, since Eigen adds each column in one
    # chain; dfx's pairwise sum is closer to exact, so the tolerance covers
    # TensorFlow's error, not dfx's.
    for op in ("Sum", "Mean"):
        add(f"{op}_columns_range_2e20x32",
            lambda op=op: (REDUCERS[op](tf.reshape(
                tf.cast(tf.range(rows * 32), tf.float32) * 1e-3, [rows, 32]),
                axis=0), None), rtol=1e-4)
    # Two columns: regrouped rows in dfx.
    add("Sum_columns_ones_2e24x2",
        lambda: (tf.reduce_sum(tf.ones([2**24 + 7, 2]), axis=0), None))
    add("Sum_rows_wave_32x2e20",
        lambda: (tf.reduce_sum(tf.reshape(positive_wave(rows * 32),
                                          [32, rows]), axis=1), None))
    # Middle and alternating axes.
    add("Sum_middle_wave_64x4096x16",
        lambda: (tf.reduce_sum(tf.reshape(positive_wave(64 * 4096 * 16),
                                          [64, 4096, 16]), axis=1), None))
    add("Mean_middle_wave_64x4096x16_keep_dims",
        lambda: (tf.reduce_mean(tf.reshape(positive_wave(64 * 4096 * 16),
                                           [64, 4096, 16]), axis=1,
                                keepdims=True), None))
    add("Sum_alternating_wave_8x1024x8x16",
        lambda: (tf.reduce_sum(tf.reshape(positive_wave(8 * 1024 * 8 * 16),
                                          [8, 1024, 8, 16]), axis=[1, 3]),
                 None))
    add("Sum_alternating_wave_16x8x1024x8",
        lambda: (tf.reduce_sum(tf.reshape(positive_wave(16 * 8 * 1024 * 8),
                                          [16, 8, 1024, 8]), axis=[0, 2]),
                 None))
    add("Max_middle_wave_64x4096x16",
        lambda: (tf.reduce_max(tf.reshape(positive_wave(64 * 4096 * 16),
                                          [64, 4096, 16]), axis=1), None))
    add("Sum_middle_int32_64x4096x16",
        lambda: (tf.reduce_sum(tf.reshape(tf.range(64 * 4096 * 16) % 1000,
                                          [64, 4096, 16]), axis=1), None))
    # bfloat16 accumulates in float in TensorFlow and dfx alike.
    # (Cast from float: dfx has no bfloat16 or half Fill kernel yet.)
    add("Sum_ones_bfloat16_2e25",
        lambda: (tf.reduce_sum(tf.cast(tf.ones([n]), tf.bfloat16)), None))
    add("Mean_ones_bfloat16_2e25",
        lambda: (tf.reduce_mean(tf.cast(tf.ones([n]), tf.bfloat16)), None))
    add("Sum_wave_bfloat16_2e20",
        lambda: (tf.reduce_sum(tf.cast(positive_wave(rows), tf.bfloat16)),
                 None))
    add("Mean_wave_bfloat16_columns_2e16x32",
        lambda: (tf.reduce_mean(tf.reshape(tf.cast(
            positive_wave(2**16 * 32), tf.bfloat16), [2**16, 32]), axis=0),
            None))
    # Half: partial sums stay exact (integers below 2048).
    add("Sum_half_small_integers_1000",
        lambda: (tf.reduce_sum(tf.cast(tf.range(1000) % 3, tf.half)), None))
    add("Mean_half_small_integers_1000",
        lambda: (tf.reduce_mean(tf.cast(tf.range(1000) % 3, tf.half)), None))
    add("Sum_half_columns_small_integers",
        lambda: (tf.reduce_sum(tf.reshape(tf.cast(tf.range(4096) % 2,
                                                  tf.half), [512, 8]),
                               axis=0), None))
    add("Mean_half_ones_4096",
        lambda: (tf.reduce_mean(tf.cast(tf.ones([4096]), tf.half)), None))
    # Integers: Sum wraps in the type, Mean accumulates in 64 bits.
    for dt in (tf.int8, tf.uint8, tf.int16, tf.int32):
        for op in ("Sum", "Mean"):
            add(f"{op}_{dt.name}_100s_100000",
                lambda op=op, dt=dt: (REDUCERS[op](
                    tf.cast(tf.fill([100000], 100), dt)), None))
    add("Sum_int64_range_2e25",
        lambda: (tf.reduce_sum(tf.range(n, dtype=tf.int64)), None))


ALL_TYPES = [np.float32, np.float64, np.float16, BF16, np.int8, np.int16,
             np.int32, np.int64, np.uint8, np.uint16, np.uint32, np.uint64]


def small_values(dt, shape):
    size = int(np.prod(shape))
    v = (np.arange(size) % 7).reshape(shape)
    if dt is BF16 or np.dtype(dt).kind == "f":
        return v * 0.5 - 1.0
    if np.dtype(dt).kind == "i":
        return v - 3
    return v


def dtype_cases():
    # Every reduction for every type, on a few axis sets.
    shape = [3, 4, 5]
    for dt in ALL_TYPES:
        for op, fn in REDUCERS.items():
            for axis in ([0], [1], [2], [0, 2], [-1, 0, 1]):
                name = "_".join(str(a).replace("-", "m") for a in axis)
                def build(fn=fn, dt=dt, axis=axis):
                    x, ph, v = feed(small_values(dt, shape), dt)
                    return fn(x, axis=axis), {ph: v}
                add(f"{op}_{dtype_name(dt)}_axis_{name}", build)
        def keep(dt=dt):
            x, ph, v = feed(small_values(dt, shape), dt)
            return [tf.reduce_sum(x, axis=[1], keepdims=True),
                    tf.reduce_max(x, axis=[0, 2], keepdims=True)], {ph: v}
        add(f"keep_dims_{dtype_name(dt)}", keep)
    # NaN propagates through Max and Min (and Sum, Prod).
    for dt in (np.float32, np.float64, np.float16, BF16):
        for op in ("Max", "Min", "Sum", "Prod"):
            def build(op=op, dt=dt):
                x, ph, v = feed([[1.0, NAN, 3.0], [4.0, 5.0, -6.0]], dt)
                return REDUCERS[op](x, axis=1), {ph: v}
            add(f"{op}_nan_{dtype_name(dt)}", build)
    # Prod of integers wraps; Prod of half stays exact here.
    def prod_wrap():
        x, ph, v = feed([100, 100, 100, 3], np.int8)
        return tf.reduce_prod(x), {ph: v}
    add("Prod_int8_wraps", prod_wrap)
    def mean_negative():
        x, ph, v = feed([[-3, -4], [-7, 0]], np.int32)
        return tf.reduce_mean(x, axis=1), {ph: v}
    add("Mean_int32_truncates_toward_zero", mean_negative)


def empty_cases():
    for dt in ALL_TYPES:
        for op, fn in REDUCERS.items():
            def build(fn=fn, dt=dt):
                x, ph, v = feed(np.zeros([2, 0]), dt)
                return fn(x, axis=1), {ph: v}
            add(f"empty_{op}_{dtype_name(dt)}", build)
    for op, fn in REDUCERS.items():
        def build(fn=fn):
            x, ph, v = feed(np.zeros([0, 3]), np.float32)
            return [fn(x, axis=0), fn(x, axis=0, keepdims=True),
                    fn(x, axis=1), fn(x)], {ph: v}
        add(f"empty_{op}_float32_shapes", build)


def main():
    big_cases()
    dtype_cases()
    empty_cases()


if __name__ == "__main__":
    main()
