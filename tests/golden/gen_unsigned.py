#!/usr/bin/env python3
"""Golden cases of the unsigned family: the element-wise math ops TensorFlow
2.21 registers on CPU for uint16, uint32 and uint64 (AddV2, Sub, Mul, Div,
TruncateDiv, FloorDiv, FloorMod, Maximum, Minimum, Square and the six
comparisons), with broadcasting, wrap-around at the type's limits and
division by zero.

Run with the TensorFlow virtualenv:
    $(tools/tf_env) tests/golden/gen_unsigned.py
"""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402
from golden_lib import case, placeholder, rng  # noqa: E402

FAMILY = "unsigned"
DTYPES = [np.uint16, np.uint32, np.uint64]

BINARY = ["AddV2", "Sub", "Mul", "Div", "TruncateDiv", "FloorDiv", "FloorMod",
          "Maximum", "Minimum", "Equal", "NotEqual", "Less", "LessEqual",
          "Greater", "GreaterEqual"]
DIVIDING = {"Div", "TruncateDiv", "FloorDiv", "FloorMod"}


def operands(dtype, seed, divisor):
    """x of shape [3, 4] and y of shape [4] (broadcast), including 0, 1 and
    the largest value, so sums, differences and products wrap."""
    top = np.iinfo(dtype).max
    r = rng(seed)
    x = r.integers(0, 1000, size=(3, 4)).astype(dtype)
    x[0, :] = [0, 1, top, top - 1]
    y = r.integers(0, 1000, size=(4,)).astype(dtype)
    y[:] = [3, top, 2, 0]
    if divisor:
        y[3] = 7
    return x, y


def binary_case(op, dtype):
    def build():
        xv, yv = operands(dtype, 1, op in DIVIDING)
        x, xv = placeholder(xv, "x")
        y, yv = placeholder(yv, "y")
        fn = getattr(tf.raw_ops, op)
        return fn(x=x, y=y), {x: xv, y: yv}
    case(FAMILY, f"{op.lower()}_{np.dtype(dtype).name}", build)


def main():
    for dtype in DTYPES:
        for op in BINARY:
            binary_case(op, dtype)

        def square(dtype=dtype):
            x, xv = placeholder(
                np.array([0, 3, 255, 256, np.iinfo(dtype).max], dtype), "x")
            return tf.raw_ops.Square(x=x), {x: xv}
        case(FAMILY, f"square_{np.dtype(dtype).name}", square)

        def div_by_zero(dtype=dtype):
            x, xv = placeholder(np.array([4, 5, 6], dtype), "x")
            y, yv = placeholder(np.array([1, 0, 2], dtype), "y")
            return tf.raw_ops.FloorMod(x=x, y=y), {x: xv, y: yv}
        case(FAMILY, f"floormod_by_zero_error_{np.dtype(dtype).name}",
             div_by_zero)


if __name__ == "__main__":
    main()
