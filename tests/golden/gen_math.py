"""Golden cases of the math family: element-wise arithmetic, division and
modulo, power, comparisons, logical ops, unary functions and their
gradients, ClipByValue, ApproximateEqual, Cast, and the reductions All, Any
and EuclideanNorm, as TensorFlow 2.21 runs them on CPU.

Run with the TensorFlow virtualenv: $(tools/tf_env) tests/golden/gen_math.py

Every op is run for each dtype dfx registers it for, on inputs that include
NaN, infinities, -0.0, integer overflow, negative operands of the division
and modulo ops, and ties for Round. Binary ops are also run on broadcasting
shapes. Inputs are fed through placeholders so nothing is folded at graph
time; bfloat16 is fed as float32 and cast in the graph (the .npy feeds have
no bfloat16). Run-time errors (integer division by zero, a negative integer
exponent, shapes that do not match) record TensorFlow's error code.

Left out on purpose:
- TruncateDiv and TruncateMod of integers by zero: TensorFlow fails with
  INTERNAL ("Unexpected error in binary operator"), dfx with TensorFlow's
  InvalidArgument "Integer division by zero" as Div and FloorMod give.
- Float to integer casts out of the target's range (other than NaN and
  infinity to int32/int64): undefined in C++, and TensorFlow's own answer
  changes with the tensor's length (its vector body saturates, its scalar
  tail wraps).
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

FAMILY = "math"
BF16 = tf.bfloat16.as_numpy_dtype
raw = tf.raw_ops

F32, F64, F16 = np.float32, np.float64, np.float16
I8, I16, I32, I64, U8 = np.int8, np.int16, np.int32, np.int64, np.uint8
FLOATS = [F32, F64, F16, BF16]
NAN, INF = float("nan"), float("inf")


def dtype_name(dt):
    return "bfloat16" if dt is BF16 else np.dtype(dt).name


def is_float(dt):
    return dt is BF16 or np.dtype(dt).kind == "f"


ANY_SHAPE = "any"


def feed(value, dt, shape=None):
    """(tensor used in the graph, placeholder, value fed) for value as dtype
    dt; bfloat16 is fed as float32 and cast. `shape` overrides the
    placeholder's static shape (None dims: checked only at run time;
    ANY_SHAPE: not even the rank is known)."""
    value = np.asarray(value)
    with np.errstate(invalid="ignore", over="ignore"):
        fed = value.astype(np.float32 if dt is BF16 else dt)
    if shape is None:
        shape = fed.shape
    elif shape == ANY_SHAPE:
        shape = None
    if dt is BF16:
        ph = tf1.placeholder(tf.float32, shape)
        return tf.cast(ph, tf.bfloat16), ph, fed
    ph = tf1.placeholder(tf.as_dtype(dt), shape)
    return ph, ph, fed


def add(name, build, **kw):
    case(FAMILY, name, build, **kw)


def nary(name, fn, inputs, dt, unknown_shape=False, **kw):
    """One case: fn(*tensors) for `inputs` fed as dtype dt."""
    def build():
        tensors, feeds = [], {}
        for value in inputs:
            shape = ANY_SHAPE if unknown_shape else None
            t, ph, v = feed(value, dt, shape)
            tensors.append(t)
            feeds[ph] = v
        return fn(*tensors), feeds
    add(name, build, **kw)


# Inputs of the floating-point cases: special values first.
SPECIAL = [NAN, INF, -INF, -0.0, 0.0]


def float_values(lo, hi, n=19, seed=0, special=True):
    r = np.random.default_rng(seed)
    v = list(np.round(r.uniform(lo, hi, n), 3))
    return (SPECIAL + v) if special else v


# ---------------------------------------------------------------------------
# Unary ops.

# op -> (function, float input range).
UNARY_FLOAT = {
    "Neg": (tf.negative, (-10, 10)),
    "Abs": (tf.abs, (-10, 10)),
    "Square": (tf.square, (-10, 10)),
    "Sign": (tf.sign, (-10, 10)),
    "Round": (tf.round, (-10, 10)),
    "Floor": (tf.floor, (-10, 10)),
    "Ceil": (tf.math.ceil, (-10, 10)),
    "Reciprocal": (tf.math.reciprocal, (-10, 10)),
    "Inv": (lambda x: raw.Inv(x=x), (-10, 10)),
    "Exp": (tf.exp, (-10, 10)),
    "Expm1": (tf.math.expm1, (-5, 5)),
    "Log": (tf.math.log, (-1, 50)),
    "Log1p": (tf.math.log1p, (-1.5, 20)),
    "Sqrt": (tf.sqrt, (-1, 50)),
    "Rsqrt": (tf.math.rsqrt, (-1, 50)),
    "Tanh": (tf.tanh, (-6, 6)),
    "Sigmoid": (tf.sigmoid, (-12, 12)),
    "Erf": (tf.math.erf, (-4, 4)),
    "Erfc": (tf.math.erfc, (-4, 4)),
    "Sin": (tf.sin, (-20, 20)),
    "Cos": (tf.cos, (-20, 20)),
    "Tan": (tf.tan, (-1.4, 1.4)),
    "Asin": (tf.asin, (-1.2, 1.2)),
    "Acos": (tf.acos, (-1.2, 1.2)),
    "Atan": (tf.atan, (-30, 30)),
    "Sinh": (tf.sinh, (-8, 8)),
    "Cosh": (tf.cosh, (-8, 8)),
    "IsNan": (tf.math.is_nan, (-10, 10)),
    "IsInf": (tf.math.is_inf, (-10, 10)),
    "IsFinite": (tf.math.is_finite, (-10, 10)),
}
UNARY_INT_TYPES = {
    "Neg": [I8, I16, I32, I64],
    "Abs": [I8, I16, I32, I64],
    "Square": [I8, I16, I32, I64, U8],
    "Sign": [I8, I16, I32, I64],
    "Round": [I32, I64],
}


def int_values(dt):
    info = np.iinfo(dt)
    v = [0, 1, 2, 3, 7, 100, info.max, info.max - 1]
    if info.min < 0:
        v += [-1, -7, -100, info.min, info.min + 1]
    return np.array([x for x in v if info.min <= x <= info.max]).astype(dt)


def unary_cases():
    for op, (fn, (lo, hi)) in UNARY_FLOAT.items():
        for i, dt in enumerate(FLOATS):
            values = float_values(lo, hi, seed=i)
            if op == "Erf" and dt is F64:
                # TensorFlow 2.21's float64 Erf gives NaN for +-inf (dfx
                # gives +-1, as erf does).
                values = [v for v in values if not np.isinf(v)]
            nary(f"unary_{op}_{dtype_name(dt)}", fn, [values], dt)
    for dt in [F32, F64]:
        nary(f"unary_Rint_{dtype_name(dt)}", lambda x: raw.Rint(x=x),
             [[0.5, 1.5, 2.5, -0.5, -1.5, -2.5, 3.7, -3.7] + SPECIAL], dt)
    for op, types in UNARY_INT_TYPES.items():
        for dt in types:
            nary(f"unary_{op}_{dtype_name(dt)}", UNARY_FLOAT[op][0],
                 [int_values(dt)], dt)
    # Ties round to even, -0.5 to -0; the largest float below 0.5 to 0.
    ties = [0.5, 1.5, 2.5, 3.5, -0.5, -1.5, -2.5, 0.49999997, 8388609.0,
            -0.0]
    for dt in FLOATS:
        v = ties if dt in (F32, F64) else ties[:8]
        nary(f"round_ties_{dtype_name(dt)}", tf.round, [v], dt)
    # A [2, 3, 4] input and an empty one.
    nary("unary_Exp_rank3", tf.exp,
         [np.linspace(-3, 3, 24).reshape(2, 3, 4)], F32)
    nary("unary_Sin_empty", tf.sin, [np.zeros([0, 3])], F32)
    nary("unary_LogicalNot", tf.logical_not,
         [np.array([True, False, True])], np.bool_)


# ---------------------------------------------------------------------------
# Binary ops.

BINARY_FNS = {
    "Add": lambda x, y: raw.Add(x=x, y=y),
    "AddV2": lambda x, y: raw.AddV2(x=x, y=y),
    "Sub": lambda x, y: raw.Sub(x=x, y=y),
    "Mul": lambda x, y: raw.Mul(x=x, y=y),
    "Div": lambda x, y: raw.Div(x=x, y=y),
    "RealDiv": lambda x, y: raw.RealDiv(x=x, y=y),
    "FloorDiv": lambda x, y: raw.FloorDiv(x=x, y=y),
    "FloorMod": lambda x, y: raw.FloorMod(x=x, y=y),
    "Mod": lambda x, y: raw.Mod(x=x, y=y),
    "TruncateDiv": lambda x, y: raw.TruncateDiv(x=x, y=y),
    "TruncateMod": lambda x, y: raw.TruncateMod(x=x, y=y),
    "Pow": lambda x, y: raw.Pow(x=x, y=y),
    "Atan2": lambda x, y: raw.Atan2(y=x, x=y),
    "Maximum": lambda x, y: raw.Maximum(x=x, y=y),
    "Minimum": lambda x, y: raw.Minimum(x=x, y=y),
    "SquaredDifference": lambda x, y: raw.SquaredDifference(x=x, y=y),
    "DivNoNan": lambda x, y: raw.DivNoNan(x=x, y=y),
    "MulNoNan": lambda x, y: raw.MulNoNan(x=x, y=y),
    "Xdivy": lambda x, y: raw.Xdivy(x=x, y=y),
    "Xlogy": lambda x, y: raw.Xlogy(x=x, y=y),
    "Xlog1py": lambda x, y: raw.Xlog1py(x=x, y=y),
    "Less": lambda x, y: raw.Less(x=x, y=y),
    "LessEqual": lambda x, y: raw.LessEqual(x=x, y=y),
    "Greater": lambda x, y: raw.Greater(x=x, y=y),
    "GreaterEqual": lambda x, y: raw.GreaterEqual(x=x, y=y),
    "Equal": lambda x, y: raw.Equal(x=x, y=y),
    "NotEqual": lambda x, y: raw.NotEqual(x=x, y=y),
}
ARITH_INTS = [I32, I64, U8, I8, I16]
BINARY_TYPES = {
    "Add": FLOATS + ARITH_INTS,
    "AddV2": FLOATS + ARITH_INTS,
    "Sub": FLOATS + ARITH_INTS,
    "Mul": FLOATS + ARITH_INTS,
    "Div": FLOATS + ARITH_INTS,
    "RealDiv": FLOATS,
    "FloorDiv": FLOATS + ARITH_INTS,
    "FloorMod": FLOATS + ARITH_INTS,
    "Mod": [F32, F64, I32, I64],
    "TruncateDiv": FLOATS + ARITH_INTS,
    "TruncateMod": [F32, F64, I32, I64],
    "Pow": FLOATS + [I8, I16, I32, I64],
    "Atan2": FLOATS,
    "Maximum": FLOATS + ARITH_INTS,
    "Minimum": FLOATS + ARITH_INTS,
    "SquaredDifference": FLOATS + [I32, I64],
    "DivNoNan": FLOATS,
    "MulNoNan": FLOATS,
    "Xdivy": FLOATS,
    "Xlogy": FLOATS,
    "Xlog1py": FLOATS,
    "Less": FLOATS + ARITH_INTS,
    "LessEqual": FLOATS + ARITH_INTS,
    "Greater": FLOATS + ARITH_INTS,
    "GreaterEqual": FLOATS + ARITH_INTS,
    "Equal": FLOATS + ARITH_INTS + [np.bool_],
    "NotEqual": FLOATS + ARITH_INTS + [np.bool_],
}
DIVISION_OPS = {"Div", "FloorDiv", "FloorMod", "Mod", "TruncateDiv",
                "TruncateMod"}


def binary_operands(op, dt):
    """Same-shape operands (x, y) covering the op's interesting values."""
    if dt is np.bool_:
        return ([True, True, False, False], [True, False, True, False])
    if is_float(dt):
        if op == "Pow":
            x = [2.0, -2.0, 0.0, 0.0, -8.0, 1.0, NAN, 1.5, 0.5, 3.0, -0.0, INF]
            y = [3.0, 3.0, 0.0, -1.0, 1 / 3, NAN, 0.0, 2.5, -2.0, -0.5, 3.0,
                 -1.0]
        elif op in ("Xlogy", "Xlog1py"):
            x = [0.0, 0.0, 0.0, 1.0, 2.5, -1.5, 0.0, 3.0, NAN, 1.0, 0.5]
            y = [0.0, NAN, INF, 0.0, 4.0, 0.5, -1.0, -0.5, 2.0, INF, 7.0]
        else:
            x = [7.5, -7.5, 7.5, -7.5, 5.0, -0.0, INF, 3.0, NAN, 1.0, 0.0,
                 -3.25, 2.0, 0.0, -INF, 6.0]
            y = [2.0, 2.0, -2.0, -2.0, 0.0, 3.0, 2.0, INF, 1.0, NAN, 0.0,
                 1.75, -0.0, -2.5, INF, 3.0]
        return x, y
    info = np.iinfo(dt)
    if op in DIVISION_OPS:
        if info.min < 0:
            x = [7, -7, 7, -7, 0, 100, -100, info.max, info.min, info.min, 6, 1]
            y = [2, 2, -2, -2, 3, 7, 7, -1, -1, 1, 3, -3]
        else:
            x = [7, 0, 100, info.max, info.max, 6, 1]
            y = [2, 3, 7, 1, 16, 3, 3]
        return x, y
    if op == "Pow":
        x = [2, -3, 0, 10, 3, -2, 1, -1, 0, 7]
        y = [3, 3, 0, 10, 5, 7, 100, 101, 5, 2]
        if dt in (I8, I16):
            y = [3, 3, 0, 10, 5, 7, 100, 101, 5, 2]
        return x, y
    # Overflow wraps: max + 1, min - 1, max * 2.
    x = [1, 5, info.max, info.min, info.max, 3, 0, 100]
    y = [2, 5, 1, 1, 2, 3, 7, 3]
    if info.min < 0:
        x += [-4, -7]
        y += [3, -2]
    return x, y


def binary_cases():
    for op, types in BINARY_TYPES.items():
        for dt in types:
            x, y = binary_operands(op, dt)
            nary(f"binary_{op}_{dtype_name(dt)}", BINARY_FNS[op],
                 [np.array(x), np.array(y)], dt)
    # Broadcasting shapes, for every op on float32 and a few on int32.
    shapes = [([2, 3], [3]), ([2, 1], [1, 3]), ([], [2, 3]), ([4, 1, 3], [2, 1]),
              ([2, 3], [1, 1]), ([0, 3], [3])]
    r = np.random.default_rng(1)
    for op in BINARY_TYPES:
        if op not in ("Pow", "Atan2", "Maximum", "FloorMod", "Less",
                      "Equal", "Xlogy", "DivNoNan", "Add"):
            continue
        for i, (sx, sy) in enumerate(shapes):
            x = np.round(r.uniform(0.5, 4, sx), 2)
            y = np.round(r.uniform(0.5, 3, sy), 2)
            if op == "Equal":
                y = np.round(y)
                x = np.round(x)
            nary(f"broadcast_{op}_{i}", BINARY_FNS[op], [x, y], F32)
    for op in ("FloorDiv", "FloorMod", "Mul", "Pow"):
        for i, (sx, sy) in enumerate(shapes[:4]):
            x = r.integers(-20, 20, sx)
            y = r.integers(1, 5, sy)
            nary(f"broadcast_{op}_int32_{i}", BINARY_FNS[op], [x, y], I32)
    # Broadcasting half and bfloat16.
    for dt in (F16, BF16):
        nary(f"broadcast_Mul_{dtype_name(dt)}", BINARY_FNS["Mul"],
             [np.linspace(-2, 2, 6).reshape(2, 3), [[0.5], [2.0]]], dt)
    # Equal and NotEqual with incompatible_shape_error=False.
    for op in ("Equal", "NotEqual"):
        fn = getattr(raw, op)
        nary(f"{op}_incompatible_shapes",
             lambda x, y, fn=fn: fn(x=x, y=y, incompatible_shape_error=False),
             [np.array([1.0, 2.0]), np.array([1.0, 2.0, 3.0])], F32,
             unknown_shape=True)
    # Run-time errors: integer division by zero, a negative exponent,
    # shapes that do not broadcast.
    for op in ("Div", "FloorDiv", "FloorMod", "Mod"):
        for dt in ([I32, I64] if op == "Mod" else [I32, I64, U8, I16, I8]):
            nary(f"error_{op}_by_zero_{dtype_name(dt)}", BINARY_FNS[op],
                 [np.array([4, 5, 6]), np.array([1, 0, 2])], dt)
    nary("error_FloorDiv_by_zero_broadcast", BINARY_FNS["FloorDiv"],
         [np.array([[4, 5, 6]]), np.array(0)], I32)
    for dt in (I32, I64, I8, I16):
        nary(f"error_Pow_negative_exponent_{dtype_name(dt)}", BINARY_FNS["Pow"],
             [np.array([2, 3]), np.array([1, -1])], dt)
    nary("error_Add_incompatible_shapes", BINARY_FNS["Add"],
         [np.ones([2, 3]), np.ones([4])], F32, unknown_shape=True)
    # Logical ops, broadcasting.
    for op in ("LogicalAnd", "LogicalOr"):
        fn = getattr(raw, op)
        nary(f"binary_{op}", lambda x, y, fn=fn: fn(x=x, y=y),
             [np.array([True, True, False, False]),
              np.array([True, False, True, False])], np.bool_)
        nary(f"broadcast_{op}", lambda x, y, fn=fn: fn(x=x, y=y),
             [np.array([[True], [False]]), np.array([True, False, True])],
             np.bool_)


# ---------------------------------------------------------------------------
# Gradients of unary functions.

def grad_cases():
    r = np.random.default_rng(2)
    grads = {
        "TanhGrad": (-0.9, 0.9), "SigmoidGrad": (0.05, 0.95),
        "RsqrtGrad": (0.2, 4), "SqrtGrad": (0.2, 4),
        "ReciprocalGrad": (-4, 4), "InvGrad": (-4, 4),
    }
    for op, (lo, hi) in grads.items():
        fn = getattr(raw, op)
        for dt in FLOATS:
            y = np.round(r.uniform(lo, hi, [2, 5]), 3)
            dy = np.round(r.uniform(-2, 2, [2, 5]), 3)
            nary(f"grad_{op}_{dtype_name(dt)}",
                 lambda y, dy, fn=fn: fn(y=y, dy=dy), [y, dy], dt)
    # Same element count, other shape: the output has y's shape.
    nary("grad_TanhGrad_reshaped", lambda y, dy: raw.TanhGrad(y=y, dy=dy),
         [np.array([0.5, 0.25]), np.array([[1.0], [2.0]])], F32)
    nary("error_TanhGrad_sizes", lambda y, dy: raw.TanhGrad(y=y, dy=dy),
         [np.array([0.5, 0.25]), np.array([1.0, 2.0, 3.0])], F32,
         unknown_shape=True)


# ---------------------------------------------------------------------------
# ClipByValue and ApproximateEqual.

def clip_cases():
    for dt in FLOATS + [I8, I16, I32, I64, U8]:
        t = [1, 5, -5, 0, 2, 3] if np.dtype(
            dt if dt is not BF16 else F32).kind != "u" else [1, 5, 9, 0, 2, 3]
        lo, hi = (0, 2) if dt is not U8 else (2, 4)
        def fn(t, lo, hi):
            return raw.ClipByValue(t=t, clip_value_min=lo, clip_value_max=hi)
        nary(f"clip_scalar_{dtype_name(dt)}", fn,
             [np.array(t), np.array(lo), np.array(hi)], dt)
    def clip(t, lo, hi):
        return raw.ClipByValue(t=t, clip_value_min=lo, clip_value_max=hi)
    t = np.array([[1.0, NAN, 5.0], [-5.0, 0.5, 3.0]])
    nary("clip_tensor_bounds", clip,
         [t, np.array([[0, 0, 0], [1, 1, 4]]), np.array([[2, 2, 2], [3, 3, 5]])],
         F32)
    nary("clip_tensor_min_scalar_max", clip,
         [t, np.array([[0, 0, 0], [1, 1, 4]]), np.array(2.5)], F32)
    nary("clip_scalar_min_tensor_max", clip,
         [t, np.array(0.0), np.array([[2, 2, 2], [3, 3, 5]])], F32)
    nary("clip_min_above_max", clip,
         [np.array([1.0, 3.0, -1.0]), np.array(2.0), np.array(0.0)], F32)
    nary("clip_nan_bound", clip,
         [np.array([1.0, 3.0, -1.0, NAN]), np.array(NAN), np.array(2.0)], F32)
    nary("error_clip_shapes", clip,
         [np.array([1.0, 3.0, -1.0]), np.array([0.0, 0.0]), np.array(2.0)],
         F32, unknown_shape=True)
    for dt in (F32, F64):
        nary(f"approximate_equal_{dtype_name(dt)}",
             lambda x, y: raw.ApproximateEqual(x=x, y=y),
             [np.array([1.0, 1.0, NAN, 2.0, -3.0]),
              np.array([1.000001, 1.1, NAN, 2.0, -3.000004])], dt)
    nary("approximate_equal_tolerance",
         lambda x, y: raw.ApproximateEqual(x=x, y=y, tolerance=0.5),
         [np.array([1.0, 1.0, 5.0]), np.array([1.49, 1.5, 4.0])], F32)
    nary("error_approximate_equal_shapes",
         lambda x, y: raw.ApproximateEqual(x=x, y=y),
         [np.array([1.0, 2.0]), np.array(1.0)], F32, unknown_shape=True)


# ---------------------------------------------------------------------------
# Cast.

CAST_TYPES = [F32, F64, F16, BF16, I8, U8, I16, np.uint16, I32, np.uint32,
              I64, np.uint64, np.bool_]


def cast_source(dt):
    """Values every target type holds exactly or by rounding/truncation."""
    if dt is np.bool_:
        return np.array([True, False, True])
    if is_float(dt):
        return np.array([0.0, -0.0, 1.0, 2.7, 100.5, 127.9, 65.25, 3.999])
    return np.array([0, 1, 100, 127, 3, 42]).astype(dt)


def cast_cases():
    for src in CAST_TYPES:
        for dst in CAST_TYPES:
            if src is dst:
                continue
            nary(f"cast_{dtype_name(src)}_to_{dtype_name(dst)}",
                 lambda x, dst=dst: tf.cast(x, tf.as_dtype(dst)),
                 [cast_source(src)], src)
    # Negative values to signed types; truncation toward zero.
    neg = np.array([-1.0, -2.7, -127.9, -0.5, 55.5, -100.25])
    for src in FLOATS:
        for dst in (I8, I16, I32, I64, F32, F64, F16, BF16):
            if src is not dst:
                nary(f"cast_negative_{dtype_name(src)}_to_{dtype_name(dst)}",
                     lambda x, dst=dst: tf.cast(x, tf.as_dtype(dst)), [neg], src)
    # NaN and infinity: int32/int64 give their minimum, bool gives true.
    special = np.array([NAN, INF, -INF, 5.5])
    for src in FLOATS:
        for dst in (I32, I64, np.bool_, F32, F64, F16, BF16):
            if src is not dst:
                nary(f"cast_special_{dtype_name(src)}_to_{dtype_name(dst)}",
                     lambda x, dst=dst: tf.cast(x, tf.as_dtype(dst)),
                     [special], src)
    # Integers wrap into narrower ones; large ones round (or overflow half).
    wide = np.array([300, -1, 128, 70000, -70000, 2**31 - 1, -2**31])
    for dst in (U8, I8, I16, np.uint16, np.uint32, np.uint64, I64, F16, BF16,
                F32, np.bool_):
        nary(f"cast_int32_wrap_to_{dtype_name(dst)}",
             lambda x, dst=dst: tf.cast(x, tf.as_dtype(dst)), [wide], I32)
    wide64 = np.array([2**40 + 5, -1, 2**31, 300, -2**63, 2**63 - 1])
    for dst in (U8, I8, I16, I32, np.uint32, np.uint64, F16, BF16, F32, F64):
        nary(f"cast_int64_wrap_to_{dtype_name(dst)}",
             lambda x, dst=dst: tf.cast(x, tf.as_dtype(dst)), [wide64], I64)
    big_unsigned = np.array([2**64 - 1, 2**63, 5], dtype=np.uint64)
    for dst in (I64, I32, U8, F32, F16):
        nary(f"cast_uint64_big_to_{dtype_name(dst)}",
             lambda x, dst=dst: tf.cast(x, tf.as_dtype(dst)), [big_unsigned],
             np.uint64)
    # Rounding to half and bfloat16: ties to even, overflow to infinity.
    fine = np.array([1 + 2**-10 + 2**-11 + 2**-20, 1 + 2**-8 + 2**-9 + 2**-20,
                     1 + 2**-23 + 2**-24 + 2**-40, 70000.0, 1e-8, 65519.0,
                     65520.0, 3.0e38])
    for src in (F32, F64):
        for dst in (F16, BF16, F32):
            if src is dst:
                continue
            for truncate in (False, True):
                nary(f"cast_round_{dtype_name(src)}_to_{dtype_name(dst)}"
                     f"{'_truncate' if truncate else ''}",
                     lambda x, dst=dst, truncate=truncate: raw.Cast(
                         x=x, DstT=tf.as_dtype(dst), Truncate=truncate),
                     [fine], src)
    nary("cast_half_to_bfloat16_truncate",
         lambda x: raw.Cast(x=x, DstT=tf.bfloat16, Truncate=True),
         [np.array([1 + 2**-8 + 2**-9, 3.0, -0.0])], F16)
    nary("cast_truncate_nan",
         lambda x: raw.Cast(x=x, DstT=tf.bfloat16, Truncate=True),
         [np.array([NAN, -INF, INF, 1.0])], F32)


# ---------------------------------------------------------------------------
# All, Any, EuclideanNorm.

def logical_reduction_cases():
    b = np.array([[True, True, False], [True, True, True]])
    for op in ("All", "Any"):
        fn = getattr(raw, op)
        for axis, keep in (([0], False), ([1], True), ([0, 1], False),
                           ([-1], False), ([], False)):
            name = "_".join(str(a) for a in axis) or "none"
            nary(f"reduce_{op}_axis_{name}{'_keep' if keep else ''}",
                 lambda x, fn=fn, axis=axis, keep=keep: fn(
                     input=x, axis=tf.constant(axis, tf.int32), keep_dims=keep),
                 [b], np.bool_)
        nary(f"reduce_{op}_empty",
             lambda x, fn=fn: fn(input=x, axis=[0]), [np.zeros([0, 2], bool)],
             np.bool_)
        nary(f"reduce_{op}_int64_axis",
             lambda x, fn=fn: fn(input=x, axis=tf.constant([1], tf.int64)),
             [b], np.bool_)
    x = np.array([[3.0, -4.0, 0.5], [-1.0, 2.0, -12.0]])
    for dt in FLOATS:
        for axis in ([0], [1], [0, 1]):
            name = "_".join(str(a) for a in axis)
            nary(f"reduce_EuclideanNorm_{dtype_name(dt)}_axis_{name}",
                 lambda x, axis=axis: raw.EuclideanNorm(input=x, axis=axis),
                 [x], dt)
    xi = np.array([[3, -4, 100], [-1, 2, -12]])
    for dt in (I8, I16, I32, I64, U8):
        v = np.abs(xi) if dt is U8 else xi
        nary(f"reduce_EuclideanNorm_{dtype_name(dt)}",
             lambda x: raw.EuclideanNorm(input=x, axis=[1]), [v], dt)
    nary("reduce_EuclideanNorm_no_axis",
         lambda x: raw.EuclideanNorm(input=x, axis=tf.zeros([0], tf.int32)),
         [np.array([-3.0, 4.0])], F32)
    nary("reduce_EuclideanNorm_size1_axis",
         lambda x: raw.EuclideanNorm(input=x, axis=[0], keep_dims=True),
         [np.array([[-3.0, 4.0]])], F32)
    nary("reduce_EuclideanNorm_empty",
         lambda x: raw.EuclideanNorm(input=x, axis=[1]), [np.zeros([2, 0])],
         F32)
    def bad_axis():
        x, ph, v = feed(np.array([[True, False]]), np.bool_)
        a, pa, va = feed(np.array([2]), I32, shape=[None])
        return raw.All(input=x, axis=a), {ph: v, pa: va}
    add("error_reduce_All_axis_out_of_range", bad_axis)


def main():
    unary_cases()
    binary_cases()
    grad_cases()
    clip_cases()
    cast_cases()
    logical_reduction_cases()


if __name__ == "__main__":
    main()
