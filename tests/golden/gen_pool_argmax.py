#!/usr/bin/env python3
"""Golden cases of the pool_argmax family: MaxPoolWithArgmax and
MaxPoolGradWithArgmax (float, double, half, bfloat16; include_batch_in_index
both ways; ties, NaN, overlapping windows; bad input).

Run with the TensorFlow virtualenv:
    $(tools/tf_env) tests/golden/gen_pool_argmax.py
"""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402
from golden_lib import case, placeholder, rng, tf1  # noqa: E402

FAMILY = "pool_argmax"
BF16 = tf.bfloat16.as_numpy_dtype
UNKNOWN = tf.TensorShape(None)

K2, S2 = [1, 2, 2, 1], [1, 2, 2, 1]
K3, S1 = [1, 3, 3, 1], [1, 1, 1, 1]


def distinct(shape, seed, dtype=np.float32):
    """Distinct values (a shuffled range), exact in every float dtype used."""
    n = int(np.prod(shape))
    v = (rng(seed).permutation(n).astype(np.float64) - n / 2) / 4
    return v.reshape(shape).astype(dtype)


def few_values(shape, seed, dtype=np.float32):
    """Values from {0, 1, 2}: windows with ties."""
    return rng(seed).integers(0, 3, size=shape).astype(dtype)


def with_nans(shape, seed, dtype=np.float32):
    v = distinct(shape, seed, dtype).astype(np.float64)
    flat = v.reshape(-1)
    flat[rng(seed + 1).choice(flat.size, size=flat.size // 6,
                              replace=False)] = np.nan
    return v.astype(dtype)


def argmax_case(name, x_value, ksize, strides, padding, batch_index=False,
                grads=False, seed=0):
    def build():
        x, xv = placeholder(x_value, "x")
        y, arg = tf.nn.max_pool_with_argmax(
            x, ksize=ksize, strides=strides, padding=padding,
            include_batch_in_index=batch_index)
        fetches = [y, arg]
        if grads:
            # Gradients through MaxPoolGradWithArgmax.
            dy = tf.constant(rng(seed + 7).uniform(
                -1, 1, y.shape.as_list()).astype(x_value.dtype))
            fetches += tf.gradients(y, [x], grad_ys=dy)
        return fetches, {x: xv}
    case(FAMILY, name, build)


def forward_cases():
    argmax_case("valid_2x2", distinct((2, 6, 6, 3), 1), K2, S2, "VALID")
    argmax_case("valid_2x2_batch_index", distinct((2, 6, 6, 3), 1), K2, S2,
                "VALID", batch_index=True)
    argmax_case("same_odd", distinct((2, 7, 5, 2), 2), K3, S2, "SAME")
    argmax_case("same_odd_batch_index", distinct((2, 7, 5, 2), 2), K3, S2,
                "SAME", batch_index=True)
    argmax_case("same_3x3_s1", distinct((1, 5, 6, 2), 3), K3, S1, "SAME")
    argmax_case("rect_window", distinct((1, 7, 8, 2), 4), [1, 3, 2, 1],
                [1, 2, 3, 1], "VALID")
    argmax_case("stride_gt_ksize", distinct((1, 9, 9, 2), 5), K2,
                [1, 3, 3, 1], "VALID")
    argmax_case("ties_first_wins", few_values((2, 6, 6, 3), 6), K3, S1,
                "SAME", batch_index=True)
    argmax_case("nan", with_nans((1, 6, 6, 2), 7), K2, S2, "VALID")
    # TensorFlow rejects an empty input ("tensor_in must not be empty").
    argmax_case("empty_batch_error", distinct((0, 4, 4, 2), 8), K2, S2,
                "VALID")
    argmax_case("f64", distinct((2, 5, 5, 2), 9, np.float64), K3, S2, "SAME",
                batch_index=True)
    argmax_case("f16", distinct((2, 7, 7, 3), 10, np.float16), K3, S2,
                "SAME")
    argmax_case("f16_batch_index", distinct((2, 7, 7, 3), 10, np.float16),
                K3, S2, "SAME", batch_index=True)
    argmax_case("bf16", distinct((1, 5, 5, 2), 11, BF16), K3, S2, "SAME")


def grad_cases():
    argmax_case("grad_valid", distinct((2, 6, 6, 3), 20), K2, S2, "VALID",
                grads=True, seed=20)
    argmax_case("grad_valid_batch_index", distinct((2, 6, 6, 3), 20), K2, S2,
                "VALID", batch_index=True, grads=True, seed=20)
    # Overlapping windows: one input is the maximum of several windows and
    # sums their gradients.
    argmax_case("grad_same_overlap", distinct((2, 7, 7, 2), 21), K3, S2,
                "SAME", grads=True, seed=21)
    argmax_case("grad_same_s1_batch_index", distinct((2, 5, 6, 2), 22), K3,
                S1, "SAME", batch_index=True, grads=True, seed=22)
    argmax_case("grad_ties", few_values((1, 6, 6, 2), 23), K3, S1, "SAME",
                grads=True, seed=23)
    argmax_case("grad_f64", distinct((1, 5, 5, 2), 24, np.float64), K3, S2,
                "SAME", grads=True, seed=24)
    argmax_case("grad_f16", distinct((2, 7, 7, 2), 25, np.float16), K3, S1,
                "SAME", batch_index=True, grads=True, seed=25)
    argmax_case("grad_bf16", distinct((1, 5, 5, 2), 26, BF16), K3, S2,
                "SAME", grads=True, seed=26)

    # MaxPoolGradWithArgmax on its own, with a fed argmax.
    def fed_grad(batch_index, arg_value, grad_shape=(2, 2, 2, 1)):
        def build():
            x, xv = placeholder(distinct((2, 4, 4, 1), 27), "x")
            g, gv = placeholder(
                rng(28).uniform(-1, 1, grad_shape).astype(np.float32), "g")
            a, av = placeholder(np.asarray(arg_value, np.int64), "argmax")
            y = tf.raw_ops.MaxPoolGradWithArgmax(
                input=x, grad=g, argmax=a, ksize=K2, strides=S2,
                padding="VALID", include_batch_in_index=batch_index)
            return y, {x: xv, g: gv, a: av}
        return build
    # Several gradients to one element add up.
    same = np.zeros((2, 2, 2, 1), np.int64) + 5
    case(FAMILY, "grad_fed_repeated_index", fed_grad(False, same))
    # With the batch in the index, image b's indices are offset by b * 16.
    offset = np.arange(2, dtype=np.int64).reshape(2, 1, 1, 1) * 16
    case(FAMILY, "grad_fed_repeated_index_batch",
         fed_grad(True, same + offset))


def error_cases():
    def bad_rank():
        x, xv = placeholder(distinct((4, 4, 2), 30), "x", shape=UNKNOWN)
        y, _ = tf.raw_ops.MaxPoolWithArgmax(input=x, ksize=K2, strides=S2,
                                            padding="VALID")
        return y, {x: xv}
    case(FAMILY, "rank3_error", bad_rank)

    def batch_window():
        x, xv = placeholder(distinct((2, 4, 4, 1), 31), "x", shape=UNKNOWN)
        y, _ = tf.raw_ops.MaxPoolWithArgmax(input=x, ksize=[2, 2, 2, 1],
                                            strides=S2, padding="VALID")
        return y, {x: xv}
    case(FAMILY, "batch_window_error", batch_window)

    # Targmax int32: TensorFlow has a CPU kernel for the forward op only.
    def int32_argmax():
        x, xv = placeholder(distinct((2, 5, 5, 2), 32), "x")
        y, arg = tf.raw_ops.MaxPoolWithArgmax(
            input=x, ksize=K3, strides=S2, padding="SAME", Targmax=tf.int32,
            include_batch_in_index=True)
        return [y, arg], {x: xv}
    case(FAMILY, "int32_argmax", int32_argmax)

    def grad_int32_argmax():
        x, xv = placeholder(distinct((1, 4, 4, 1), 35), "x")
        g, gv = placeholder(np.ones((1, 2, 2, 1), np.float32), "g")
        a, av = placeholder(np.zeros((1, 2, 2, 1), np.int32), "a")
        y = tf.raw_ops.MaxPoolGradWithArgmax(
            input=x, grad=g, argmax=a, ksize=K2, strides=S2, padding="VALID")
        return y, {x: xv, g: gv, a: av}
    case(FAMILY, "grad_int32_argmax_error", grad_int32_argmax)

    def grad_empty():
        x, xv = placeholder(np.zeros((0, 4, 4, 1), np.float32), "x")
        g, gv = placeholder(np.zeros((0, 2, 2, 1), np.float32), "g")
        a, av = placeholder(np.zeros((0, 2, 2, 1), np.int64), "a")
        y = tf.raw_ops.MaxPoolGradWithArgmax(
            input=x, grad=g, argmax=a, ksize=K2, strides=S2, padding="VALID")
        return y, {x: xv, g: gv, a: av}
    case(FAMILY, "grad_empty_batch", grad_empty)

    def grad_shape():
        x, xv = placeholder(distinct((1, 4, 4, 1), 33), "x", shape=UNKNOWN)
        g, gv = placeholder(np.ones((1, 3, 3, 1), np.float32), "g",
                            shape=UNKNOWN)
        a, av = placeholder(np.zeros((1, 3, 3, 1), np.int64), "a",
                            shape=UNKNOWN)
        y = tf.raw_ops.MaxPoolGradWithArgmax(
            input=x, grad=g, argmax=a, ksize=K2, strides=S2, padding="VALID")
        return y, {x: xv, g: gv, a: av}
    case(FAMILY, "grad_shape_error", grad_shape)

    # An argmax index outside its image is not a golden case: TensorFlow
    # 2.21 CHECK-fails and aborts the process; dfx fails the step with
    # InvalidArgument (tests/kernels/conv_pooling_argmax_test.cc).


def main():
    forward_cases()
    grad_cases()
    error_cases()


if __name__ == "__main__":
    main()
