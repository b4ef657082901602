#!/usr/bin/env python3
"""Golden cases of the xla2 family: TensorFlow's XLA reduction, sort and loop
ops (tensorflow/compiler/tf2xla/ops/xla_ops.cc), which TensorFlow 2.21 runs
on the CPU by compiling each with XLA -- XlaReduce, XlaVariadicReduce,
XlaVariadicReduceV2, XlaReduceWindow (window sizes, strides, base and window
dilations, padding), XlaSelectAndScatter, XlaSort, XlaKeyValueSort,
XlaVariadicSort (comparator, dimension, is_stable), XlaWhile and
XlaRngBitGenerator (Philox, the one algorithm TensorFlow 2.21's CPU runs:
1, and 3 which picks it; bit for bit, uint8, uint32 and uint64, the 128-bit
counter carrying) -- and their OpDefs.

Functions are TF1 Defuns. Most bodies are one op of the two arguments (dfx's
fast path); the others (a tuple reducer, a lexicographic comparator, a body
with more than one op) go through dfx's function runtime. Values are small
integers held in floats, so that every order of a reduction gives TensorFlow's
answer bit for bit. Unstable sorts with ties fetch the keys only (ties may
come out in either order); stable ones fetch everything.

Left out: XlaIf (TensorFlow 2.21 cannot run it on the CPU: "No attr named
'output_shapes' in NodeDef"), XlaCallModule (StableHLO, out of scope),
XlaReplicaId (crashes TensorFlow).

    $(tools/tf_env) tests/golden/gen_xla2.py
"""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402
from tensorflow.compiler.tf2xla.ops import gen_xla_ops as xla  # noqa: E402
from tensorflow.python.framework import function  # noqa: E402

import golden_lib  # noqa: E402
from golden_lib import placeholder  # noqa: E402

FAMILY = "xla2"
OP_NAMES = [
    "XlaReduce", "XlaVariadicReduce", "XlaVariadicReduceV2",
    "XlaReduceWindow", "XlaSelectAndScatter", "XlaSort", "XlaKeyValueSort",
    "XlaVariadicSort", "XlaWhile", "XlaRngBitGenerator",
]


def case(name, build, **kw):
    golden_lib.case(FAMILY, name, build, **kw)


def binary(tf_dtype, fn, name):
    """A Defun of two scalars of tf_dtype."""
    @function.Defun(tf_dtype, tf_dtype, func_name=name)
    def f(a, b):
        return fn(a, b)
    return f


OPS = {
    "add": tf.add, "mul": tf.multiply, "max": tf.maximum, "min": tf.minimum,
    "and": tf.logical_and, "or": tf.logical_or,
}


def values(shape, dtype, lo=-4, hi=5, seed=0):
    r = np.random.default_rng(seed)
    if dtype == np.bool_:
        return r.integers(0, 2, size=shape).astype(np.bool_)
    if np.issubdtype(dtype, np.complexfloating):
        return (r.integers(lo, hi, size=shape) +
                1j * r.integers(lo, hi, size=shape)).astype(dtype)
    if np.issubdtype(dtype, np.unsignedinteger):
        lo = 0
    return r.integers(lo, hi, size=shape).astype(dtype)


def reduce_cases():
    configs = [
        # (case name, numpy dtype, tf dtype, op, init, dims, shape)
        ("f32_add", np.float32, tf.float32, "add", 0, [0, 2], [2, 3, 4]),
        ("f64_max", np.float64, tf.float64, "max", -100, [0, 1], [3, 4]),
        ("f16_add", np.float16, tf.float16, "add", 1, [1], [3, 4]),
        ("bf16_min", None, tf.bfloat16, "min", 100, [0], [4, 3]),
        ("i32_add", np.int32, tf.int32, "add", 0, [1], [3, 5]),
        ("i64_mul", np.int64, tf.int64, "mul", 1, [0], [3, 4]),
        ("i8_min", np.int8, tf.int8, "min", 127, [1], [2, 6]),
        ("i16_max", np.int16, tf.int16, "max", -5, [0, 1], [3, 3]),
        ("u8_add_wraps", np.uint8, tf.uint8, "add", 250, [0], [4, 2]),
        ("u16_max", np.uint16, tf.uint16, "max", 0, [1], [2, 3]),
        ("u32_add", np.uint32, tf.uint32, "add", 7, [0], [3, 2]),
        ("u64_mul", np.uint64, tf.uint64, "mul", 1, [1], [2, 3]),
        ("bool_and", np.bool_, tf.bool, "and", True, [1], [3, 4]),
        ("bool_or", np.bool_, tf.bool, "or", False, [0], [3, 4]),
        ("c64_add", np.complex64, tf.complex64, "add", 0, [0], [3, 2]),
        ("c128_mul", np.complex128, tf.complex128, "mul", 1, [1], [2, 2]),
        ("no_dims", np.float32, tf.float32, "add", 0, [], [2, 3]),
        ("empty_input", np.float32, tf.float32, "add", 3, [0], [0, 3]),
        ("to_scalar", np.int32, tf.int32, "max", -9, [0, 1, 2], [2, 2, 2]),
    ]
    for name, np_dtype, tf_dtype, op, init, dims, shape in configs:
        def build(np_dtype=np_dtype, tf_dtype=tf_dtype, op=op, init=init,
                  dims=dims, shape=shape, name=name):
            if np_dtype is None:
                x = tf.cast(values(shape, np.float32), tf_dtype)
                feeds = {}
            else:
                x, v = placeholder(values(shape, np_dtype))
                feeds = {x: v}
            f = binary(tf_dtype, OPS[op], "reducer_" + name)
            return xla.xla_reduce(x, tf.constant(init, tf_dtype), dims,
                                  f), feeds
        case("reduce_" + name, build)

    # Bodies dfx cannot take the fast path for: more than one op.
    def general():
        x, v = placeholder(values([3, 4], np.float32))
        f = binary(tf.float32, lambda a, b: tf.maximum(a, b * 1.0) + 0.0,
                   "reducer_general")
        return xla.xla_reduce(x, -50.0, [1], f), {x: v}
    case("reduce_general_body", general)

    def identity_body():
        x, v = placeholder(values([3, 4], np.int32))
        f = binary(tf.int32, lambda a, b: tf.identity(tf.add(a, b)),
                   "reducer_identity")
        return xla.xla_reduce(x, 0, [0], f), {x: v}
    case("reduce_identity_body", identity_body)

    # Not a case: dimensions_to_reduce out of range on an input of unknown
    # rank aborts TensorFlow 2.21 ("LLVM ERROR: Failed to infer result
    # type(s)"); dfx answers InvalidArgument (tests/kernels/xla2_test.cc).

    def variadic():
        x, xv = placeholder(values([3, 4], np.float32, seed=1))
        y, yv = placeholder(values([3, 4], np.float32, seed=2))

        @function.Defun(tf.float32, tf.float32, tf.float32, tf.float32,
                        func_name="pair_sum")
        def f(a0, a1, b0, b1):
            return a0 + b0, a1 * b1
        return xla.xla_variadic_reduce([x, y], [0.0, 1.0], [1], f), \
            {x: xv, y: yv}
    case("variadic_reduce_pair", variadic)

    def argmax():
        # Distinct values: the index of the maximum is unique.
        x, xv = placeholder(np.array([[3, 9, 1, 4], [7, 2, 8, 5],
                                      [0, 6, 11, 10]], np.float32))
        idx = tf.broadcast_to(tf.range(4), [3, 4])

        @function.Defun(tf.float32, tf.int32, tf.float32, tf.int32,
                        func_name="argmax_reducer")
        def f(a, ai, b, bi):
            take_a = a >= b
            return tf.where(take_a, a, b), tf.where(take_a, ai, bi)
        return xla.xla_variadic_reduce_v2(
            [x, idx], [tf.constant(-1e9), tf.constant(-1)], [1], f), {x: xv}
    case("variadic_reduce_v2_argmax", argmax)

    def v2_single():
        x, xv = placeholder(values([2, 3, 2], np.int64))
        f = binary(tf.int64, tf.add, "v2_add")
        return xla.xla_variadic_reduce_v2([x], [tf.constant(0, tf.int64)],
                                          [0, 2], f), {x: xv}
    case("variadic_reduce_v2_single", v2_single)


def window_cases():
    configs = [
        # name, dtype, op, init, shape, window, strides, base dil, win dil,
        # padding
        ("sum_2x2", tf.float32, "add", 0, [3, 4], [2, 2], [1, 1], [1, 1],
         [1, 1], [[0, 0], [0, 0]]),
        ("max_stride2_pad", tf.float32, "max", -1000, [4, 5], [2, 3],
         [2, 2], [1, 1], [1, 1], [[1, 1], [0, 1]]),
        ("base_dilation", tf.int32, "add", 0, [3, 3], [2, 2], [1, 1],
         [2, 2], [1, 1], [[0, 0], [1, 0]]),
        ("window_dilation", tf.int32, "max", -99, [5, 6], [2, 2], [1, 2],
         [1, 1], [2, 2], [[0, 0], [0, 0]]),
        ("all_features_3d", tf.float64, "add", 1, [2, 5, 4], [1, 3, 2],
         [1, 2, 1], [1, 2, 1], [1, 1, 2], [[0, 0], [2, 1], [1, 1]]),
        ("min_1d_i64", tf.int64, "min", 100, [7], [3], [2], [1], [1],
         [[1, 1]]),
        ("empty_output", tf.float32, "add", 0, [2, 2], [3, 1], [1, 1],
         [1, 1], [1, 1], [[0, 0], [0, 0]]),
        ("bool_or", tf.bool, "or", False, [4, 4], [2, 2], [2, 2], [1, 1],
         [1, 1], [[0, 0], [0, 0]]),
        ("u8_add", tf.uint8, "add", 0, [6], [3], [1], [1], [1], [[2, 2]]),
        ("f16_max", tf.float16, "max", -60000, [4, 4], [2, 2], [1, 1],
         [1, 1], [1, 1], [[1, 0], [0, 1]]),
    ]
    for (name, dtype, op, init, shape, win, strides, bdil, wdil,
         pad) in configs:
        def build(dtype=dtype, op=op, init=init, shape=shape, win=win,
                  strides=strides, bdil=bdil, wdil=wdil, pad=pad, name=name):
            x, v = placeholder(values(shape, dtype.as_numpy_dtype, seed=3))
            f = binary(dtype, OPS[op], "window_" + name)
            return xla.xla_reduce_window(x, tf.constant(init, dtype), win,
                                         strides, bdil, wdil, pad, f), \
                {x: v}
        case("reduce_window_" + name, build)

    def general():
        x, v = placeholder(values([4, 4], np.float32, seed=4))
        f = binary(tf.float32, lambda a, b: tf.minimum(a, b) * 1.0,
                   "window_general")
        return xla.xla_reduce_window(x, 100.0, [2, 2], [2, 1], [1, 1],
                                     [1, 1], [[0, 0], [0, 1]], f), {x: v}
    case("reduce_window_general_body", general)

    def int64_indices():
        x, v = placeholder(values([4, 4], np.int32, seed=5))
        f = binary(tf.int32, tf.add, "window_i64")
        i64 = lambda v: tf.constant(v, tf.int64)  # noqa: E731
        return xla.xla_reduce_window(x, 0, i64([2, 2]), i64([2, 2]),
                                     i64([1, 1]), i64([1, 1]),
                                     i64([[0, 0], [0, 0]]), f), {x: v}
    case("reduce_window_int64_indices", int64_indices)

    # Not a case: a window whose rank is not the input's aborts TensorFlow
    # 2.21 (std::bad_optional_access); dfx answers InvalidArgument
    # (tests/kernels/xla2_test.cc).

    def ge(dtype, name):
        return binary(dtype, tf.greater_equal, name)

    def sas(name, dtype, shape, win, strides, pad, seed, select=None):
        def build():
            # Distinct operand values: the selected element is unique.
            n = int(np.prod(shape))
            x, v = placeholder(np.random.default_rng(seed).permutation(n)
                               .reshape(shape).astype(dtype.as_numpy_dtype))
            out = []
            for d in range(len(shape)):
                padded = shape[d] + pad[d][0] + pad[d][1]
                out.append((padded - win[d]) // strides[d] + 1)
            s, sv = placeholder(values(out, dtype.as_numpy_dtype, 1, 5,
                                       seed + 1))
            sel = select or ge(dtype, "select_" + name)
            return xla.xla_select_and_scatter(
                x, win, strides, pad, s, tf.constant(0, dtype), sel,
                binary(dtype, tf.add, "scatter_" + name)), {x: v, s: sv}
        case("select_and_scatter_" + name, build)

    sas("maxpool_grad", tf.float32, [4, 4], [2, 2], [2, 2],
        [[0, 0], [0, 0]], 6)
    sas("overlapping", tf.float32, [4, 5], [3, 3], [1, 2],
        [[0, 0], [1, 1]], 7)
    sas("i32_1d_padded", tf.int32, [7], [3], [2], [[1, 1]], 8)
    sas("f64_3d", tf.float64, [2, 3, 4], [1, 2, 2], [1, 1, 2],
        [[0, 0], [0, 1], [0, 0]], 9)
    sas("min_select", tf.int64, [5, 4], [2, 2], [1, 1], [[0, 0], [0, 0]],
        10, select=binary(tf.int64, tf.less_equal, "select_min"))
    sas("general_select", tf.float32, [4, 4], [2, 2], [2, 2],
        [[0, 0], [0, 0]], 11,
        select=binary(tf.float32,
                      lambda a, b: tf.logical_not(tf.less(a, b)),
                      "select_general"))


def sort_cases():
    for name, dtype, shape in [
            ("f32_1d", np.float32, [9]), ("f32_2d", np.float32, [3, 5]),
            ("f64", np.float64, [2, 4]), ("i32_3d", np.int32, [2, 2, 5]),
            ("i8", np.int8, [7]), ("u8", np.uint8, [8]),
            ("u64", np.uint64, [6]), ("i64", np.int64, [3, 4]),
            ("f16", np.float16, [6]), ("bool", np.bool_, [2, 5]),
            ("empty", np.float32, [3, 0]), ("scalar", np.int32, [])]:
        def build(dtype=dtype, shape=shape):
            x, v = placeholder(values(shape, dtype, -20, 20, seed=12))
            return xla.xla_sort(x), {x: v}
        case("sort_" + name, build)

    def bf16():
        return xla.xla_sort(tf.cast(values([7], np.float32, seed=13),
                                    tf.bfloat16)), {}
    case("sort_bf16", bf16)

    def strings():
        return xla.xla_sort(tf.constant(["b", "a"])), {}
    case("sort_error_string", strings)

    def kv(name, kdtype, vdtype, shape, ties, fetch_values):
        def build():
            n = shape[-1]
            r = np.random.default_rng(14)
            if ties:
                k = values(shape, kdtype, 0, 3, seed=15)
            else:
                k = np.stack([r.permutation(n) for _ in
                              range(int(np.prod(shape[:-1])))]).reshape(
                                  shape).astype(kdtype)
            kp, kvv = placeholder(k)
            vp, vv = placeholder(values(shape, vdtype, seed=16))
            sk, sv = xla.xla_key_value_sort(kp, vp)
            return ([sk, sv] if fetch_values else [sk]), {kp: kvv, vp: vv}
        case("key_value_sort_" + name, build)

    kv("f32_i32", np.float32, np.int32, [6], False, True)
    kv("i32_f64_2d", np.int32, np.float64, [3, 4], False, True)
    kv("u16_bool", np.uint16, np.bool_, [2, 5], False, True)
    kv("i64_c64", np.int64, np.complex64, [5], False, True)
    kv("ties_keys_only", np.float32, np.int32, [10], True, False)

    def vs(name, dim, stable, comparator, arrays, fetch):
        def build():
            phs, feeds = [], {}
            for a in arrays:
                p, v = placeholder(a)
                phs.append(p)
                feeds[p] = v
            outs = xla.xla_variadic_sort(phs, dim, comparator(), stable)
            return [outs[i] for i in fetch], feeds
        case("variadic_sort_" + name, build)

    def less(dtypes, name, fn=tf.less):
        def make():
            @function.Defun(*[t for t in dtypes for _ in range(2)],
                            func_name=name)
            def f(*args):
                return fn(args[0], args[1])
            return f
        return make

    ties = np.array([3, 1, 3, 2, 1, 3, 0, 2], np.float32)
    idx = np.arange(8, dtype=np.int32)
    vs("stable_ties", 0, True, less([tf.float32, tf.int32], "vs_less"),
       [ties, idx], [0, 1])
    vs("unstable_ties_keys", 0, False,
       less([tf.float32, tf.int32], "vs_less_u"), [ties, idx], [0])
    vs("negative_dim", -1, True, less([tf.float32], "vs_neg"),
       [values([2, 5], np.float32, seed=21)], [0])
    vs("greater_dim0", 0, True, less([tf.int32], "vs_greater", tf.greater),
       [values([5, 3], np.int32, -9, 9, seed=17)], [0])
    vs("dim1_three_operands", 1, True,
       less([tf.int64, tf.float32, tf.int8], "vs_three"),
       [values([2, 6], np.int64, 0, 4, seed=18),
        values([2, 6], np.float32, seed=19),
        values([2, 6], np.int8, seed=20)], [0, 1, 2])

    def lexicographic():
        @function.Defun(tf.int32, tf.int32, tf.float32, tf.float32,
                        func_name="vs_lex")
        def f(a0, b0, a1, b1):
            return tf.logical_or(a0 < b0, tf.logical_and(a0 == b0, a1 > b1))
        return f
    vs("general_lexicographic", 0, False, lexicographic,
       [np.array([2, 1, 2, 0, 1, 2], np.int32),
        np.array([1, 5, 3, 2, 4, 0], np.float32)], [0, 1])

    def bad_dim():
        x, v = placeholder(values([3], np.float32))
        return xla.xla_variadic_sort([x], 1, less([tf.float32],
                                                  "vs_bad")(), True), {x: v}
    case("variadic_sort_error_dimension", bad_dim)


def while_cases():
    def loop():
        @function.Defun(tf.int32, tf.float32, tf.int64, func_name="w_cond")
        def cond(i, acc, v):
            return i < 6

        @function.Defun(tf.int32, tf.float32, tf.int64, func_name="w_body")
        def body(i, acc, v):
            return i + 1, acc * 2.0 + 1.0, v + tf.cast(i, tf.int64)
        i, iv = placeholder(np.int32(0))
        return xla.xla_while(
            [i, tf.constant(0.5), tf.constant([1, 2, 3], tf.int64)], cond,
            body), {i: iv}
    case("while_three_vars", loop)

    def zero_iterations():
        @function.Defun(tf.int32, tf.float32, func_name="w0_cond")
        def cond(i, x):
            return i < 0

        @function.Defun(tf.int32, tf.float32, func_name="w0_body")
        def body(i, x):
            return i + 1, x + 1.0
        return xla.xla_while([tf.constant(5), tf.constant(2.0)], cond,
                             body), {}
    case("while_zero_iterations", zero_iterations)


tf1 = golden_lib.tf1


def rng_cases():
    def gen(name, state, shape, dtype=tf.uint32, alg=1, tshape=tf.int32):
        def build():
            st = tf.constant(np.array(state, np.uint64))
            key, out = xla.xla_rng_bit_generator(
                alg, st, tf.constant(np.array(shape, np.int64), tshape),
                dtype=dtype)
            return [key, out], {}
        case("rng_bit_generator_" + name, build)

    gen("u32", [1, 2, 3], [9])
    gen("u64", [7, 11, 13], [3], tf.uint64)
    gen("u8", [0x1234567890, 5, 0], [6], tf.uint8)
    gen("u32_2d_int64_shape", [3, 0, 0], [2, 3], tshape=tf.int64)
    gen("state_of_two", [1, 2], [5])
    gen("state_of_two_carries", [3, 2**64 - 2], [12])
    gen("counter_carries", [9, 2**64 - 1, 2**64 - 1], [8])
    gen("low_counter_carries", [0xFFFFFFFFFFFF, 2**64 - 1, 7], [6],
        tf.uint64)
    gen("auto_select_is_philox", [1, 2, 3], [4], alg=3)
    gen("empty", [1, 2, 3], [2, 0, 3])
    gen("scalar", [4, 5, 6], [], tf.uint64)
    # TensorFlow 2.21's codes: ThreeFry fails in XLA's expander (Internal),
    # other algorithms are unknown (Unknown), the signed types have no
    # XLA CPU kernel (InvalidArgument), a state of 4 values fails in XLA
    # (Internal).
    gen("error_threefry", [1, 2, 3], [4], alg=2)
    gen("error_default_algorithm", [1, 2, 3], [4], alg=0)
    gen("error_algorithm_7", [1, 2, 3], [4], alg=7)
    gen("error_int32", [1, 2, 3], [4], tf.int32)
    gen("error_int64", [1, 2, 3], [4], tf.int64)
    gen("error_state_of_one", [1], [4])
    gen("error_state_of_four", [1, 2, 3, 4], [4])

    def chained():
        # The key one call returns seeds the next.
        key, a = xla.xla_rng_bit_generator(
            1, tf.constant(np.array([5, 6, 7], np.uint64)), [5],
            dtype=tf.uint32)
        key2, b = xla.xla_rng_bit_generator(1, key, [3], dtype=tf.uint64)
        return [a, key2, b], {}
    case("rng_bit_generator_chained", chained)

    def negative_dim():
        sh = tf1.placeholder(tf.int32, [None])
        _, out = xla.xla_rng_bit_generator(
            1, tf.constant(np.array([1, 2, 3], np.uint64)), sh,
            dtype=tf.uint32)
        return out, {sh: np.array([2, -1], np.int32)}
    case("rng_bit_generator_error_negative_dim", negative_dim)



def main():
    reduce_cases()
    window_cases()
    sort_cases()
    while_cases()
    rng_cases()
    golden_lib.write_op_defs(FAMILY, OP_NAMES,
                             type_attrs={"XlaKeyValueSort": "K",
                                         "XlaRngBitGenerator": "dtype"})


if __name__ == "__main__":
    main()
