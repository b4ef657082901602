"""Golden cases of the gather family: gathers, scatters, segment reductions,
OneHot, Where, TopKV2, ArgMax/ArgMin, Cumsum/Cumprod, stitch and partition,
Unique, InvertPermutation and BroadcastGradientArgs.

Run with the TensorFlow virtualenv:  $(tools/tf_env) tests/golden/gen_gather.py

Inputs are fed through placeholders so the kernels run at step time (and
run-time errors are TensorFlow's kernel errors, not graph-construction
errors). String tensors cannot be stored in a case, and complex outputs
cannot be compared, so those dtypes are covered by the C++ unit tests
(tests/kernels/gather_*_test.cc). half and bfloat16 inputs are fed as float32
and cast inside the graph.
"""

import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import golden_lib as gl  # noqa: E402
from golden_lib import tf, tf1  # noqa: E402
from tensorflow.python.ops import gen_array_ops  # noqa: E402
from tensorflow.python.ops import gen_data_flow_ops  # noqa: E402
from tensorflow.python.ops import gen_math_ops  # noqa: E402
from tensorflow.python.ops import gen_nn_ops  # noqa: E402

FAMILY = "gather"
R = gl.rng(1234)

# golden_lib._to_npy saves a scalar as shape (1,) (np.ascontiguousarray
# returns at least 1-D), so a scalar feed no longer fits its placeholder and
# a scalar output no longer matches. Until golden_lib keeps the shape, this
# family's cases are written with a copy that does.
if gl._to_npy(np.int32(0))[0].shape != ():
    _original_to_npy = gl._to_npy

    def _to_npy_keep_shape(value):
        arr, dtype = _original_to_npy(value)
        return arr.reshape(np.shape(value)), dtype

    gl._to_npy = _to_npy_keep_shape


def case(name, build, **kw):
    gl.case(FAMILY, name, build, **kw)


def ph(value, name=None, shape=None):
    return gl.placeholder(value, name=name, shape=shape)


def floats(shape, dtype=np.float32):
    return R.standard_normal(shape).astype(dtype)


def ints(shape, lo, hi, dtype=np.int32):
    return R.integers(lo, hi, size=shape).astype(dtype)


def cast_input(value, dtype, name="x"):
    """A float32 placeholder cast to `dtype` in the graph; (tensor, feeds)."""
    p, v = ph(np.asarray(value, np.float32), name)
    return tf.cast(p, dtype), {p: v}


# --------------------------------------------------------------------------
# GatherV2, Gather


def gather_v2(params, indices, axis, batch_dims=0):
    def build():
        p, pv = ph(params, "params")
        i, iv = ph(indices, "indices")
        return gen_array_ops.gather_v2(p, i, axis, batch_dims=batch_dims), {
            p: pv, i: iv}
    return build


case("gather_v2_axis0_float", gather_v2(floats([5, 3]),
                                        np.array([[4, 0], [2, 2]], np.int32), 0))
case("gather_v2_axis1_double_int64idx",
     gather_v2(floats([2, 5, 3], np.float64),
               np.array([4, 0, 4, 1], np.int64), 1))
case("gather_v2_neg_axis_int32",
     gather_v2(ints([3, 4], -50, 50), np.array([3, 1], np.int32), -1))
case("gather_v2_neg_axis2_int64",
     gather_v2(ints([3, 4, 2], -50, 50, np.int64), np.array([[2], [0]], np.int32),
               -2))
case("gather_v2_scalar_index", gather_v2(floats([4, 3]), np.int32(2), 1))
case("gather_v2_empty_indices",
     gather_v2(floats([4, 3]), np.zeros([0], np.int32), 0))
case("gather_v2_empty_params_rows",
     gather_v2(floats([4, 0]), np.array([1, 3], np.int32), 0))
case("gather_v2_batch_dims1",
     gather_v2(floats([2, 3, 4]), np.array([[2, 0], [1, 1]], np.int32), 1, 1))
case("gather_v2_batch_dims1_axis2",
     gather_v2(floats([2, 3, 4]), np.array([[3, 0, 1], [2, 2, 0]], np.int32), 2,
               1))
case("gather_v2_batch_dims_neg",
     gather_v2(ints([2, 5], 0, 100), np.array([[4, 0, 1], [3, 3, 2]], np.int32),
               1, -1))
case("gather_v2_batch_dims2",
     gather_v2(floats([2, 3, 4, 2]), ints([2, 3, 5], 0, 4), 2, 2))
for dt in [np.bool_, np.uint8, np.int8, np.int16, np.uint16, np.uint32,
           np.uint64]:
    vals = ints([4, 2], 0, 2 if dt == np.bool_ else 100).astype(dt)
    case(f"gather_v2_dtype_{np.dtype(dt).name}",
         gather_v2(vals, np.array([3, 0, 3], np.int32), 0))


def gather_v2_cast(dtype, name):
    def build():
        x, feeds = cast_input(floats([4, 3]), dtype, "params")
        i, iv = ph(np.array([[1, 3], [0, 1]], np.int64), "indices")
        feeds[i] = iv
        return gen_array_ops.gather_v2(x, i, 0), feeds
    case(name, build)


gather_v2_cast(tf.float16, "gather_v2_dtype_half")
gather_v2_cast(tf.bfloat16, "gather_v2_dtype_bfloat16")

case("gather_v2_error_out_of_range",
     gather_v2(floats([3, 2]), np.array([[0, 1], [3, 0]], np.int32), 0))
case("gather_v2_error_negative_index",
     gather_v2(floats([3, 2]), np.array([0, -1], np.int64), 1))


def gather_v2_error_batch_mismatch():
    p, pv = ph(floats([2, 3]), "params", shape=[None, 3])
    i, iv = ph(np.array([[0], [1], [2]], np.int32), "indices", shape=[None, 1])
    return gen_array_ops.gather_v2(p, i, 1, batch_dims=1), {p: pv, i: iv}


case("gather_v2_error_batch_dims_mismatch", gather_v2_error_batch_mismatch)


def gather_v2_large():
    # 4096 x 128 params built in the graph (row r holds r+1 plus a ramp),
    # 1000 gathered rows, each summed so the output stays small.
    rows = tf.cumsum(tf.fill([4096, 128], 1.0), axis=0)
    ramp = tf.cumsum(tf.fill([4096, 128], 0.001), axis=1)
    params = rows + ramp
    i, iv = ph(ints([1000], 0, 4096), "indices")
    j, jv = ph(ints([100], 0, 128), "columns")
    g = gen_array_ops.gather_v2(params, i, 0)
    g1 = gen_array_ops.gather_v2(params, j, 1)
    # Summed in float64, so the order of the sum does not matter.
    return [tf.reduce_sum(tf.cast(g, tf.float64), axis=1),
            tf.reduce_sum(tf.cast(g1, tf.float64), axis=0)], {i: iv, j: jv}


case("gather_v2_large_parallel", gather_v2_large)


def gather_v1():
    p, pv = ph(floats([4, 2]), "params")
    i, iv = ph(np.array([[3, 3, 0]], np.int64), "indices")
    return gen_array_ops.gather(p, i), {p: pv, i: iv}


case("gather_v1_float", gather_v1)


def gather_v1_error():
    p, pv = ph(ints([4], 0, 10), "params")
    i, iv = ph(np.array([4], np.int32), "indices")
    return gen_array_ops.gather(p, i), {p: pv, i: iv}


case("gather_v1_error_out_of_range", gather_v1_error)


# --------------------------------------------------------------------------
# GatherNd


def gather_nd(params, indices, policy=""):
    def build():
        p, pv = ph(params, "params")
        i, iv = ph(indices, "indices")
        return gen_array_ops.gather_nd(p, i, bad_indices_policy=policy), {
            p: pv, i: iv}
    return build


case("gather_nd_elements_float",
     gather_nd(floats([3, 4]), np.array([[2, 3], [0, 0], [2, 3]], np.int32)))
case("gather_nd_rows_int64idx",
     gather_nd(ints([3, 4], 0, 9), np.array([[2], [0]], np.int64)))
case("gather_nd_batched_indices",
     gather_nd(floats([2, 3, 2], np.float64),
               np.array([[[1, 2], [0, 0]], [[1, 0], [1, 1]]], np.int32)))
case("gather_nd_k0_whole_params",
     gather_nd(floats([2, 3]), np.zeros([2, 0], np.int32)))
case("gather_nd_empty_indices",
     gather_nd(floats([2, 3]), np.zeros([0, 2], np.int32)))
case("gather_nd_bool",
     gather_nd(np.array([[True, False], [False, True]]),
               np.array([[1, 1], [0, 1]], np.int64)))
case("gather_nd_ignore_policy",
     gather_nd(floats([3, 2]), np.array([[0, 1], [5, 0], [2, -1], [2, 1]],
                                        np.int32), "IGNORE"))
case("gather_nd_error_out_of_range",
     gather_nd(floats([3, 2]), np.array([[0, 1], [1, 2]], np.int32)))
case("gather_nd_error_params_empty",
     gather_nd(floats([2, 0]), np.array([[1]], np.int32)))


# --------------------------------------------------------------------------
# ScatterNd, TensorScatterUpdate, TensorScatterAdd


def scatter_nd(indices, updates, shape, policy=""):
    def build():
        i, iv = ph(indices, "indices")
        u, uv = ph(updates, "updates")
        s, sv = ph(np.asarray(shape, indices.dtype), "shape")
        return gen_array_ops.scatter_nd(i, u, s, bad_indices_policy=policy), {
            i: iv, u: uv, s: sv}
    return build


case("scatter_nd_duplicates_float",
     scatter_nd(np.array([[4], [1], [4], [4]], np.int32),
                np.array([1.5, 2, 3, 4], np.float32), [6]))
case("scatter_nd_rows_int64idx",
     scatter_nd(np.array([[1], [0], [1]], np.int64), ints([3, 3], -9, 9), [3, 3]))
case("scatter_nd_elements_double",
     scatter_nd(np.array([[[0, 1], [2, 2]], [[0, 1], [1, 0]]], np.int32),
                floats([2, 2], np.float64), [3, 3]))
case("scatter_nd_int64_values",
     scatter_nd(np.array([[0], [0]], np.int32),
                np.array([[1, 2], [3, 4]], np.int64), [2, 2]))
case("scatter_nd_bool",
     scatter_nd(np.array([[0], [2], [2]], np.int32),
                np.array([True, False, True]), [3]))
case("scatter_nd_empty_indices",
     scatter_nd(np.zeros([0, 1], np.int32), np.zeros([0, 2], np.float32), [3, 2]))
case("scatter_nd_ignore_policy",
     scatter_nd(np.array([[1], [7], [-1], [1]], np.int32),
                np.array([1, 2, 3, 4], np.float32), [3], "IGNORE"))
case("scatter_nd_error_out_of_range",
     scatter_nd(np.array([[0], [3]], np.int32), np.array([1, 2], np.float32),
                [3]))
case("scatter_nd_error_negative_index",
     scatter_nd(np.array([[0, -1]], np.int64), np.array([1], np.float32),
                [2, 2]))


def scatter_nd_half():
    u, feeds = cast_input([1, 2, 3], tf.float16, "updates")
    i, iv = ph(np.array([[1], [1], [0]], np.int32), "indices")
    feeds[i] = iv
    return gen_array_ops.scatter_nd(i, u, [3]), feeds


case("scatter_nd_half", scatter_nd_half)


def tensor_scatter(op, tensor, indices, updates, policy=""):
    def build():
        t, tv = ph(tensor, "tensor")
        i, iv = ph(indices, "indices")
        u, uv = ph(updates, "updates")
        return op(t, i, u, bad_indices_policy=policy), {t: tv, i: iv, u: uv}
    return build


TSU = gen_array_ops.tensor_scatter_update
TSA = gen_array_ops.tensor_scatter_add
case("tensor_scatter_update_float",
     tensor_scatter(TSU, floats([4, 2]), np.array([[3], [0]], np.int32),
                    floats([2, 2])))
case("tensor_scatter_update_duplicates_last_wins",
     tensor_scatter(TSU, ints([5], 0, 9), np.array([[1], [1], [3]], np.int64),
                    np.array([7, 8, 9], np.int32)))
case("tensor_scatter_update_bool",
     tensor_scatter(TSU, np.array([True, False, False]),
                    np.array([[1]], np.int32), np.array([True])))
case("tensor_scatter_update_elements_2d",
     tensor_scatter(TSU, floats([3, 3], np.float64),
                    np.array([[0, 2], [2, 0]], np.int32), floats([2], np.float64)))
case("tensor_scatter_add_duplicates_float",
     tensor_scatter(TSA, floats([4, 2]), np.array([[1], [1], [2]], np.int32),
                    floats([3, 2])))
case("tensor_scatter_add_int64",
     tensor_scatter(TSA, ints([3, 2], 0, 9, np.int64),
                    np.array([[2, 1], [2, 1]], np.int64),
                    np.array([5, 6], np.int64)))
case("tensor_scatter_add_ignore_policy",
     tensor_scatter(TSA, ints([3], 0, 9), np.array([[4], [1]], np.int32),
                    np.array([10, 20], np.int32), "IGNORE"))
case("tensor_scatter_add_error_out_of_range",
     tensor_scatter(TSA, floats([3]), np.array([[1], [3]], np.int32),
                    floats([2])))
case("tensor_scatter_update_error_out_of_range",
     tensor_scatter(TSU, floats([3, 2]), np.array([[-1]], np.int32),
                    floats([1, 2])))


def tensor_scatter_add_bf16():
    t, feeds = cast_input([1, 2, 3, 4], tf.bfloat16, "tensor")
    u = tf.cast(tf.constant([0.5, 0.25]), tf.bfloat16)
    i, iv = ph(np.array([[3], [3]], np.int32), "indices")
    feeds[i] = iv
    return TSA(t, i, u), feeds


case("tensor_scatter_add_bfloat16", tensor_scatter_add_bf16)


# --------------------------------------------------------------------------
# OneHot


def one_hot(indices, depth, on, off, axis):
    def build():
        i, iv = ph(indices, "indices")
        d, dv = ph(np.int32(depth), "depth")
        a, av = ph(np.asarray(on), "on")
        b, bv = ph(np.asarray(off), "off")
        return gen_array_ops.one_hot(i, d, a, b, axis=axis), {
            i: iv, d: dv, a: av, b: bv}
    return build


case("one_hot_axis_last_float",
     one_hot(np.array([0, 2, -1, 3, 1], np.int64), 3, np.float32(1),
             np.float32(0), -1))
case("one_hot_axis0_int32",
     one_hot(np.array([[0, 2], [1, 1]], np.int32), 3, np.int32(5),
             np.int32(-1), 0))
case("one_hot_axis1_3d_double",
     one_hot(np.array([[0, 2, 1], [1, 0, 9]], np.int32), 4, np.float64(2.5),
             np.float64(-1), 1))
case("one_hot_uint8_indices",
     one_hot(np.array([0, 2, 255], np.uint8), 3, np.float32(1), np.float32(0),
             -1))
case("one_hot_int8_indices_bool",
     one_hot(np.array([[1, -1]], np.int8), 2, np.bool_(True), np.bool_(False),
             -1))
case("one_hot_depth0",
     one_hot(np.array([0, 1], np.int32), 0, np.float32(1), np.float32(0), -1))
case("one_hot_scalar_index",
     one_hot(np.int64(2), 4, np.int64(1), np.int64(0), -1))
case("one_hot_error_negative_depth",
     one_hot(np.array([0, 1], np.int32), -2, np.float32(1), np.float32(0), -1))


# --------------------------------------------------------------------------
# Where


def where(value, shape=None):
    def build():
        x, xv = ph(value, "x", shape=shape)
        return gen_array_ops.where(x), {x: xv}
    return build


case("where_bool_1d", where(np.array([True, False, True, True])))
case("where_bool_3d", where(R.integers(0, 2, size=[2, 3, 4]).astype(bool)))
case("where_float_nan_negzero",
     where(np.array([[0.0, np.nan], [-0.0, 2.0], [np.inf, 0.0]], np.float32)))
case("where_int32", where(ints([3, 5], -1, 2)))
case("where_int64", where(ints([6], -1, 2, np.int64)))
case("where_uint8", where(ints([2, 2], 0, 2, np.uint8)))
case("where_double", where(np.array([0.0, 1e-300, 0.0], np.float64)))
case("where_all_false", where(np.zeros([3, 2], bool)))
case("where_empty", where(np.zeros([0, 3], bool)))
case("where_error_scalar", where(np.bool_(True), shape=None))


def where_large():
    # Every 7th element of 300k is non-zero (a reshaped OneHot), so the
    # coordinates come from many blocks; fetch their sum and count.
    pattern = gen_array_ops.one_hot(tf.fill([300000 // 7 + 1], 3), 7, 1, 0)
    coords = gen_array_ops.where(tf.reshape(pattern, [-1]))
    return [tf.reduce_sum(coords), tf.shape(coords)], {}


case("where_large_parallel", where_large)


# --------------------------------------------------------------------------
# TopKV2


def top_k(values, k, sorted_=True, index_type=tf.int32, k_dtype=np.int32):
    def build():
        x, xv = ph(values, "x")
        kk, kv = ph(np.asarray(k, k_dtype), "k")
        v, i = gen_nn_ops.top_kv2(x, kk, sorted=sorted_, index_type=index_type)
        if not sorted_:
            # The order of an unsorted top-k is not specified: compare sets.
            return [tf.reduce_sum(v, axis=-1), tf.reduce_sum(i, axis=-1),
                    tf.reduce_max(v, axis=-1)], {x: xv, kk: kv}
        return [v, i], {x: xv, kk: kv}
    return build


case("top_k_float", top_k(floats([7]), 3))
case("top_k_ties_lower_index_first",
     top_k(np.array([3, 1, 3, 2, 3, 1], np.int32), 4))
case("top_k_k0", top_k(floats([2, 5]), 0))
case("top_k_k_equals_n", top_k(np.array([[2, 2, 1], [0, 5, 5]], np.float32), 3))
case("top_k_rows_int64_index", top_k(floats([4, 6], np.float64), 2,
                                     index_type=tf.int64))
case("top_k_k1", top_k(ints([3, 9], 0, 4), 1))
case("top_k_int64_values", top_k(ints([10], -5, 5, np.int64), 5,
                                 k_dtype=np.int64))
case("top_k_uint8", top_k(ints([2, 6], 0, 255, np.uint8), 2))
case("top_k_int16_index", top_k(floats([3, 4]), 2, index_type=tf.int16))
case("top_k_unsorted", top_k(floats([3, 8]), 3, sorted_=False))
case("top_k_error_k_too_large", top_k(floats([2, 3]), 4))
case("top_k_error_negative_k", top_k(floats([3]), -1))


def top_k_cast(dtype, name):
    def build():
        x, feeds = cast_input(np.array([[1, 3, 3, 0.5], [2, -1, 4, 4]]), dtype)
        v, i = gen_nn_ops.top_kv2(x, 2)
        return [v, i], feeds
    case(name, build)


top_k_cast(tf.float16, "top_k_half")
top_k_cast(tf.bfloat16, "top_k_bfloat16")


def top_k_large():
    x = tf.cumsum(tf.fill([64, 4096], 0.25), axis=1)
    x = x - tf.cumsum(tf.fill([64, 4096], 1.0), axis=0)
    i, iv = ph(ints([64], 0, 4096), "shift")
    # Make the rows differ: a one-hot bump at a fed column per row.
    x = x + 5000.0 * gen_array_ops.one_hot(i, 4096, 1.0, 0.0)
    v, idx = gen_nn_ops.top_kv2(x, 5)
    return [v, idx], {i: iv}


case("top_k_large_parallel", top_k_large)


# --------------------------------------------------------------------------
# ArgMax, ArgMin


def arg(op, values, dim, output_type=tf.int64, dim_dtype=np.int32):
    def build():
        x, xv = ph(values, "x")
        d, dv = ph(np.asarray(dim, dim_dtype), "dim")
        return op(x, d, output_type=output_type), {x: xv, d: dv}
    return build


ARGMAX = gen_math_ops.arg_max
ARGMIN = gen_math_ops.arg_min
M = np.array([[1, 5, 5, 0], [7, 0, 7, 7], [-1, -1, -2, 9]], np.float32)
case("arg_max_axis0", arg(ARGMAX, M, 0))
case("arg_max_axis1_ties", arg(ARGMAX, M, 1))
case("arg_max_neg_axis_int32_out", arg(ARGMAX, M, -1, tf.int32))
case("arg_min_axis0", arg(ARGMIN, M, 0))
case("arg_min_axis1_int32_out", arg(ARGMIN, M, 1, tf.int32, np.int64))
case("arg_max_int16_out", arg(ARGMAX, floats([3, 4]), 1, tf.int16))
case("arg_max_uint16_out", arg(ARGMAX, floats([3, 4]), 0, tf.uint16))
case("arg_max_3d_middle_axis", arg(ARGMAX, floats([2, 5, 3], np.float64), 1))
case("arg_min_3d_int64", arg(ARGMIN, ints([2, 3, 4], 0, 5, np.int64), 2))
case("arg_max_int32_values", arg(ARGMAX, ints([4, 6], -3, 3), 0))
case("arg_max_uint8", arg(ARGMAX, ints([5], 0, 255, np.uint8), 0))
case("arg_max_bool", arg(ARGMAX, np.array([[False, True, True], [False] * 3]),
                         1))
case("arg_min_bool", arg(ARGMIN, np.array([[True, False, False], [True] * 3]),
                         1))
case("arg_max_nan", arg(ARGMAX, np.array([[1, np.nan, 3], [np.nan, 5, 3],
                                          [np.nan, np.nan, np.nan]], np.float32),
                        1))
case("arg_min_nan", arg(ARGMIN, np.array([[1, np.nan, 0], [np.nan, -5, 3]],
                                         np.float32), 1))
case("arg_max_neg_inf", arg(ARGMAX, np.array([-np.inf, -np.inf], np.float32), 0))
case("arg_max_error_axis_out_of_range", arg(ARGMAX, floats([2, 3]), 2))
case("arg_min_error_empty_axis", arg(ARGMIN, np.zeros([0, 3], np.float32), 0))


def arg_cast(op, dtype, name):
    def build():
        x, feeds = cast_input(np.array([[1, 3, 3, 0.5], [2, -1, 4, -1]]), dtype)
        return op(x, 1), feeds
    case(name, build)


arg_cast(ARGMAX, tf.float16, "arg_max_half")
arg_cast(ARGMIN, tf.bfloat16, "arg_min_bfloat16")


def arg_large():
    x = tf.cumsum(tf.fill([3, 5000, 40], 0.5), axis=1)
    i, iv = ph(ints([3, 40], 0, 5000), "bump")
    x = x - tf.transpose(gen_array_ops.one_hot(i, 5000, 1e5, 0.0), [0, 2, 1])
    return [ARGMAX(x, 1), ARGMIN(x, 1)], {i: iv}


case("arg_max_large_parallel", arg_large)


# --------------------------------------------------------------------------
# Cumsum, Cumprod


def scan(op, values, axis, exclusive=False, reverse=False, axis_dtype=np.int32):
    def build():
        x, xv = ph(values, "x")
        a, av = ph(np.asarray(axis, axis_dtype), "axis")
        return op(x, a, exclusive=exclusive, reverse=reverse), {x: xv, a: av}
    return build


CUMSUM = gen_math_ops.cumsum
CUMPROD = gen_math_ops.cumprod
X = floats([3, 4])
for op, opname in [(CUMSUM, "cumsum"), (CUMPROD, "cumprod")]:
    for axis in [0, 1, -1]:
        for exclusive in [False, True]:
            for reverse in [False, True]:
                case(f"{opname}_axis{axis}_ex{int(exclusive)}_rev{int(reverse)}",
                     scan(op, X, axis, exclusive, reverse))
case("cumsum_int32", scan(CUMSUM, ints([2, 5], -9, 9), 1, True))
case("cumsum_int64_axis_int64", scan(CUMSUM, ints([4, 2], -9, 9, np.int64), 0,
                                     axis_dtype=np.int64))
case("cumsum_double_3d", scan(CUMSUM, floats([2, 3, 4], np.float64), 1,
                              reverse=True))
case("cumsum_uint8_wraps", scan(CUMSUM, np.array([200, 100, 3], np.uint8), 0))
case("cumprod_int32", scan(CUMPROD, ints([6], -3, 4), 0, reverse=True))
case("cumsum_empty", scan(CUMSUM, np.zeros([0, 3], np.float32), 1))
case("cumsum_error_axis_out_of_range", scan(CUMSUM, floats([2, 3]), 2))


def scan_cast(op, dtype, name):
    def build():
        x, feeds = cast_input(np.array([[1, 3, 3, 0.5], [2, -1, 4, 4]]), dtype)
        return op(x, 1), feeds
    case(name, build)


scan_cast(CUMSUM, tf.float16, "cumsum_half")
scan_cast(CUMSUM, tf.bfloat16, "cumsum_bfloat16")
scan_cast(CUMPROD, tf.float16, "cumprod_half")


def cumsum_large():
    x = tf.fill([600, 700], 0.5)
    return [tf.reduce_sum(CUMSUM(x, 0), axis=1),
            tf.reduce_sum(CUMSUM(x, 1, exclusive=True, reverse=True), axis=0)], {}


case("cumsum_large_parallel", cumsum_large)


# --------------------------------------------------------------------------
# UnsortedSegmentSum/Max/Min/Prod


def unsorted(op, data, ids, num, num_dtype=np.int32):
    def build():
        d, dv = ph(data, "data")
        i, iv = ph(ids, "ids")
        n, nv = ph(np.asarray(num, num_dtype), "num_segments")
        return op(d, i, n), {d: dv, i: iv, n: nv}
    return build


USUM = gen_math_ops.unsorted_segment_sum
UMAX = gen_math_ops.unsorted_segment_max
UMIN = gen_math_ops.unsorted_segment_min
UPROD = gen_math_ops.unsorted_segment_prod
D = floats([6, 3])
IDS = np.array([3, 0, 3, -1, 3, 1], np.int32)
case("unsorted_segment_sum_dup_and_negative", unsorted(USUM, D, IDS, 5))
case("unsorted_segment_max_empty_segments", unsorted(UMAX, D, IDS, 5))
case("unsorted_segment_min_empty_segments", unsorted(UMIN, D, IDS, 5))
case("unsorted_segment_prod_empty_segments", unsorted(UPROD, D, IDS, 5))
case("unsorted_segment_sum_2d_ids_int64",
     unsorted(USUM, floats([2, 3, 2], np.float64),
              np.array([[0, 2, 2], [1, 0, -3]], np.int64), 3, np.int64))
case("unsorted_segment_sum_int16_ids",
     unsorted(USUM, ints([4], -9, 9), np.array([1, 1, 0, 1], np.int16), 2))
case("unsorted_segment_sum_int64_values",
     unsorted(USUM, ints([5, 2], -9, 9, np.int64), np.array([0, 0, 1, 1, 0],
                                                          np.int32), 3))
case("unsorted_segment_max_int32",
     unsorted(UMAX, ints([5], -9, 9), np.array([1, 1, 0, 1, 3], np.int32), 4))
case("unsorted_segment_min_int64",
     unsorted(UMIN, ints([5], -9, 9, np.int64), np.array([1, 1, 0, 1, 3],
                                                         np.int64), 4))
case("unsorted_segment_max_nan",
     unsorted(UMAX, np.array([1, np.nan, 0, np.nan, 1], np.float32),
              np.array([0, 0, 0, 1, 1], np.int32), 2))
case("unsorted_segment_sum_zero_segments",
     unsorted(USUM, floats([0, 2]), np.zeros([0], np.int32), 0))
case("unsorted_segment_sum_error_id_too_large",
     unsorted(USUM, floats([3]), np.array([0, 3, 1], np.int32), 3))
case("unsorted_segment_sum_error_negative_num_segments",
     unsorted(USUM, floats([3]), np.array([0, 1, 1], np.int32), -1))


def unsorted_cast(op, dtype, name):
    def build():
        d, feeds = cast_input(np.array([[1, 3], [3, 0.5], [2, -1], [4, 4]]),
                              dtype, "data")
        i, iv = ph(np.array([1, 1, 2, 1], np.int32), "ids")
        feeds[i] = iv
        return op(d, i, 3), feeds
    case(name, build)


unsorted_cast(USUM, tf.float16, "unsorted_segment_sum_half")
unsorted_cast(USUM, tf.bfloat16, "unsorted_segment_sum_bfloat16")
unsorted_cast(UMAX, tf.float16, "unsorted_segment_max_half")


def unsorted_large():
    # 200k ids built in the graph: an ascending and a descending ramp over
    # [-1, 700), so rows of one segment are far apart and some are dropped.
    up = tf.cast(tf.cumsum(tf.fill([100000], 0.00699), axis=0), tf.int32) - 1
    down = tf.cast(tf.cumsum(tf.fill([100000], 0.00699), axis=0, reverse=True),
                   tf.int32) - 1
    ids = tf.concat([up, down], axis=0)
    n, nv = ph(np.int32(700), "num_segments")
    wide = tf.cumsum(tf.fill([200000, 40], 0.001), axis=1)
    narrow = tf.cumsum(tf.fill([200000], 1.0), axis=0)
    wide_sum = tf.reduce_sum(tf.cast(USUM(wide, ids, n), tf.float64), axis=1)
    return [wide_sum, USUM(narrow, ids, n), UMAX(narrow, ids, n),
            UMIN(narrow, ids, n)], {n: nv}


case("unsorted_segment_sum_large_parallel", unsorted_large)


# --------------------------------------------------------------------------
# SegmentSum, SegmentMean


def segment(op, data, ids):
    def build():
        d, dv = ph(data, "data")
        i, iv = ph(ids, "ids")
        return op(d, i), {d: dv, i: iv}
    return build


SSUM = gen_math_ops.segment_sum
SMEAN = gen_math_ops.segment_mean
SIDS = np.array([0, 0, 2, 2, 2, 5], np.int32)
case("segment_sum_float_gaps", segment(SSUM, floats([6, 2]), SIDS))
case("segment_mean_float_gaps", segment(SMEAN, floats([6, 2]), SIDS))
case("segment_sum_int64_ids", segment(SSUM, ints([4], -9, 9, np.int64),
                                      np.array([1, 1, 1, 3], np.int64)))
case("segment_mean_int32_truncates", segment(SMEAN, np.array([1, 2, 4, -3, -4],
                                                            np.int32),
                                             np.array([0, 0, 1, 2, 2], np.int32)))
case("segment_sum_double_3d", segment(SSUM, floats([3, 2, 2], np.float64),
                                      np.array([0, 1, 1], np.int32)))
case("segment_sum_empty", segment(SSUM, floats([0, 3]), np.zeros([0], np.int32)))
case("segment_sum_error_not_sorted", segment(SSUM, floats([3]),
                                             np.array([0, 2, 1], np.int32)))
case("segment_mean_error_negative_id", segment(SMEAN, floats([3]),
                                               np.array([-1, 0, 1], np.int32)))


def segment_cast(op, dtype, name):
    def build():
        d, feeds = cast_input(np.array([[1, 3], [3, 0.5], [2, -1], [4, 4]]),
                              dtype, "data")
        i, iv = ph(np.array([0, 0, 2, 2], np.int32), "ids")
        feeds[i] = iv
        return op(d, i), feeds
    case(name, build)


segment_cast(SSUM, tf.float16, "segment_sum_half")
segment_cast(SMEAN, tf.bfloat16, "segment_mean_bfloat16")


# --------------------------------------------------------------------------
# DynamicStitch, ParallelDynamicStitch, DynamicPartition


def stitch(op, indices, data):
    def build():
        feeds = {}
        ins, ds = [], []
        for n, (i, d) in enumerate(zip(indices, data)):
            ip, iv = ph(i, f"indices_{n}")
            dp, dv = ph(d, f"data_{n}")
            feeds[ip] = iv
            feeds[dp] = dv
            ins.append(ip)
            ds.append(dp)
        return op(ins, ds), feeds
    return build


DS = gen_data_flow_ops.dynamic_stitch
PDS = gen_data_flow_ops.parallel_dynamic_stitch
case("dynamic_stitch_overlap_later_wins",
     stitch(DS, [np.array([0, 2], np.int32), np.array([1, 2], np.int32)],
            [floats([2]), floats([2])]))
case("dynamic_stitch_rows_gaps",
     stitch(DS, [np.array([[6, 1]], np.int32), np.array([3], np.int32)],
            [ints([1, 2, 3], -9, 9), ints([1, 3], -9, 9)]))
case("dynamic_stitch_scalar_index",
     stitch(DS, [np.int32(1), np.array([0], np.int32)],
            [floats([2], np.float64), floats([1, 2], np.float64)]))
case("dynamic_stitch_empty",
     stitch(DS, [np.zeros([0], np.int32)], [np.zeros([0, 3], np.float32)]))
case("dynamic_stitch_bool",
     stitch(DS, [np.array([1, 0], np.int32)], [np.array([True, False])]))
case("parallel_dynamic_stitch",
     stitch(PDS, [np.array([0, 4], np.int32), np.array([1, 3, 2], np.int32)],
            [floats([2, 2]), floats([3, 2])]))
case("dynamic_stitch_error_negative_index",
     stitch(DS, [np.array([0, -1], np.int32)], [floats([2])]))


def partition(data, parts, num):
    def build():
        d, dv = ph(data, "data")
        p, pv = ph(parts, "partitions")
        return gen_data_flow_ops.dynamic_partition(d, p, num), {d: dv, p: pv}
    return build


case("dynamic_partition_rows",
     partition(floats([5, 2]), np.array([2, 0, 2, 2, 1], np.int32), 3))
case("dynamic_partition_empty_partition",
     partition(ints([4], 0, 9, np.int64), np.array([0, 0, 2, 0], np.int32), 3))
case("dynamic_partition_2d_partitions",
     partition(floats([2, 2, 3]), np.array([[1, 0], [0, 1]], np.int32), 2))
case("dynamic_partition_bool",
     partition(np.array([True, False, True]), np.array([1, 1, 0], np.int32), 2))
case("dynamic_partition_error_out_of_range",
     partition(floats([3]), np.array([0, 2, 1], np.int32), 2))


# --------------------------------------------------------------------------
# Unique, InvertPermutation, BroadcastGradientArgs


def unique(values, out_idx=tf.int32):
    def build():
        x, xv = ph(values, "x")
        y, idx = gen_array_ops.unique(x, out_idx=out_idx)
        return [y, idx], {x: xv}
    return build


case("unique_int32_order", unique(np.array([3, 1, 3, 2, 1, 7], np.int32)))
case("unique_int64_out_idx_int64", unique(np.array([5, 5, -1], np.int64),
                                          tf.int64))
case("unique_float_negzero_nan",
     unique(np.array([0.0, -0.0, np.nan, np.nan, 1.0, 1.0], np.float32)))
case("unique_double", unique(floats([4], np.float64).repeat(2)))
case("unique_bool", unique(np.array([True, False, True])))
case("unique_uint8", unique(np.array([9, 9, 0, 255], np.uint8)))
case("unique_empty", unique(np.zeros([0], np.float32)))


def invert(values):
    def build():
        x, xv = ph(values, "x")
        return gen_array_ops.invert_permutation(x), {x: xv}
    return build


case("invert_permutation_int32", invert(np.array([2, 0, 3, 1], np.int32)))
case("invert_permutation_int64", invert(np.array([0, 2, 1], np.int64)))
case("invert_permutation_empty", invert(np.zeros([0], np.int32)))
case("invert_permutation_error_duplicate", invert(np.array([0, 0, 1], np.int32)))
case("invert_permutation_error_out_of_range",
     invert(np.array([0, 3, 1], np.int64)))


def bga(s0, s1, dtype=np.int32):
    def build():
        a, av = ph(np.asarray(s0, dtype), "s0", shape=[None])
        b, bv = ph(np.asarray(s1, dtype), "s1", shape=[None])
        r0, r1 = gen_array_ops.broadcast_gradient_args(a, b)
        return [r0, r1], {a: av, b: bv}
    return build


case("broadcast_gradient_args_basic", bga([2, 1, 3], [1, 1, 3]))
case("broadcast_gradient_args_rank_differs", bga([5, 4], [4]))
case("broadcast_gradient_args_equal_shapes", bga([2, 1], [2, 1]))
case("broadcast_gradient_args_scalar_int64", bga([], [3, 4], np.int64))
case("broadcast_gradient_args_all_ones", bga([1, 1], [1]))
case("broadcast_gradient_args_zero_dim", bga([0, 1], [1, 4]))
case("broadcast_gradient_args_error_incompatible", bga([2, 3], [4]))


# --------------------------------------------------------------------------
# Gradients of an embedding lookup


def embedding_grad_static():
    params, pv = ph(floats([10, 4]), "params")
    ids, iv = ph(np.array([[1, 7], [1, 3], [9, 1]], np.int32), "ids")
    emb = tf.nn.embedding_lookup(params, ids)
    loss = tf.reduce_sum(emb * emb)
    (grad,) = tf.gradients(loss, [params])
    return [loss, tf.convert_to_tensor(grad)], {params: pv, ids: iv}


case("embedding_lookup_gradient_static_shapes", embedding_grad_static)


def embedding_grad_dynamic():
    # Unknown shapes: the Mul gradient needs BroadcastGradientArgs at run
    # time, the gather gradient Shape/Size/StridedSlice, and the dense
    # gradient UnsortedSegmentSum.
    params, pv = ph(floats([8, 3]), "params", shape=[None, None])
    ids, iv = ph(np.array([5, 0, 5, 2], np.int32), "ids", shape=[None])
    w, wv = ph(floats([3]), "w", shape=[None])
    emb = tf.nn.embedding_lookup(params, ids)
    loss = tf.reduce_sum(emb * w)
    gp, gw = tf.gradients(loss, [params, w])
    return [loss, tf.convert_to_tensor(gp), gw], {params: pv, ids: iv, w: wv}


case("embedding_lookup_gradient_dynamic_shapes", embedding_grad_dynamic)
