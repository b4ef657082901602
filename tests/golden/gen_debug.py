"""Golden cases of the debug family: the ops TensorFlow's debugger (tfdbg)
inserts on watched tensors, as TensorFlow 2.21 runs them. Copy and
CopyHost, DebugIdentity, DebugNanCount, DebugNumericSummary (tfdbg v1),
DebugIdentityV2 and DebugNumericSummaryV2 (tfdbg v2: every tensor_debug_mode
TensorFlow's CPU kernel serves, float32 and float64 outputs),
DebugGradientIdentity and DebugGradientRefIdentity.

The numeric summaries must equal TensorFlow's bit for bit (rtol = atol = 0):
every dtype TensorFlow's CPU kernels serve, empty tensors, scalars, NaN and
Inf mixes, DebugNumericSummary's lower/upper bounds and mute_if_healthy.

    $(tools/tf_env) tests/golden/gen_debug.py

No case here has a debug URL: a file:// URL would make both TensorFlow and
dfx write dump files at a path fixed in the graph. The dump files are
checked by tests/interop/tf_debug_dumps.py (TensorFlow's DebugDumpDir
reads what dfx wrote) and tests/kernels/debug_test.cc; grpc:// URLs are
not here either (TensorFlow's kernel waits up to 15 minutes for a debug
server).

Besides the cases the generator writes the ops' signatures
(tf_op_defs.pbtxt, tf_cpu_kernels.txt), which tests/kernels/debug_test.cc
compares with dfx's registry.
"""

import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import golden_lib  # noqa: E402
from golden_lib import placeholder, steps_case, tf, tf1  # noqa: E402

FAMILY = "debug"
RAW = tf.raw_ops

OP_NAMES = ["Copy", "CopyHost", "DebugIdentity", "DebugNanCount",
            "DebugNumericSummary", "DebugIdentityV2", "DebugNumericSummaryV2",
            "DebugGradientIdentity", "DebugGradientRefIdentity"]

# TensorDebugMode (tensorflow/core/protobuf/debug_event.proto).
CURT_HEALTH, CONCISE_HEALTH, FULL_HEALTH, SHAPE = 2, 3, 4, 5
FULL_NUMERICS, FULL_TENSOR, REDUCE_INF_NAN_THREE_SLOTS = 6, 7, 8
MODES = {"curt_health": CURT_HEALTH, "concise_health": CONCISE_HEALTH,
         "full_health": FULL_HEALTH, "shape": SHAPE,
         "reduce_inf_nan_three_slots": REDUCE_INF_NAN_THREE_SLOTS}

NAN, INF = np.nan, np.inf
# Finite values of both signs, zeros (one negative), NaNs and both Infs.
MIX = np.array([[1.5, -2.25, 0.0, NAN, INF], [-0.0, 3.0, -INF, NAN, 7.125],
                [1e-3, -1e3, 0.5, 2.0, -1.0]])
FINITE = np.array([[0.1, -0.7, 2.5], [3.25, 0.0, -4.0]])


def case(name, build, **kw):
    # Bit for bit: every output compared with no tolerance.
    kw.setdefault("rtol", 0.0)
    kw.setdefault("atol", 0.0)

    def built():
        out = build()
        return out if isinstance(out, tuple) else (out, None)
    golden_lib.case(FAMILY, name, built, **kw)


def folder():
    return golden_lib.family_folder(FAMILY)


def const(values, dtype):
    """A constant of `dtype` (half and bfloat16 cast from float32)."""
    values = np.asarray(values)
    if dtype in (tf.float16, tf.bfloat16):
        return tf.cast(tf.constant(values.astype(np.float32)), dtype)
    if dtype == tf.bool:
        return tf.constant(values.astype(bool))
    if dtype.is_integer:
        finite = np.where(np.isfinite(values), values, 0)
        return tf.constant(np.round(finite * 10).astype(dtype.as_numpy_dtype)
                           if not dtype.is_unsigned else
                           np.abs(np.round(finite * 10)).astype(
                               dtype.as_numpy_dtype))
    return tf.constant(values.astype(dtype.as_numpy_dtype))


REALS = [tf.float32, tf.float64, tf.int8, tf.int16, tf.int32, tf.int64,
         tf.uint8, tf.uint16, tf.uint32, tf.uint64]
HALVES = [tf.float16, tf.bfloat16]


# --------------------------------------------------------------------------
# Copy, CopyHost, DebugIdentity, DebugGradientIdentity, DebugIdentityV2


def identity_cases():
    for op in ("Copy", "CopyHost"):
        lower = op.lower()
        for dtype in (tf.float32, tf.int64, tf.bool, tf.float16):
            case(f"{lower}_{dtype.name}",
                 lambda op=op, dtype=dtype: getattr(RAW, op)(
                     input=const(FINITE, dtype), tensor_name="x:0"))
        case(f"{lower}_string", lambda op=op: getattr(RAW, op)(
            input=tf.constant([[b"a", b"bc"], [b"", b"def"]])))
        case(f"{lower}_empty", lambda op=op: getattr(RAW, op)(
            input=tf.zeros([0, 3])))
        case(f"{lower}_debug_ops_spec", lambda op=op: getattr(RAW, op)(
            input=const(MIX, tf.float32), tensor_name="x:0",
            debug_ops_spec=["DebugIdentity;file:///unused;0",
                            "DebugNanCount;grpc://localhost:1;1"]))
        # Internal: a spec element without exactly two semicolons.
        case(f"{lower}_bad_debug_ops_spec", lambda op=op: getattr(RAW, op)(
            input=tf.constant([1.0]), debug_ops_spec=["DebugIdentity;0"]))

    def fed():
        x, xv = placeholder(MIX.astype(np.float32))
        return RAW.DebugIdentity(input=x, tensor_name="x:0",
                                 device_name="/job:a/device:CPU:0"), {x: xv}
    case("debug_identity_fed", fed)
    for dtype in (tf.int32, tf.uint8, tf.float16, tf.bfloat16, tf.bool):
        case(f"debug_identity_{dtype.name}",
             lambda dtype=dtype: RAW.DebugIdentity(input=const(MIX, dtype),
                                                   tensor_name="m:0"))
    case("debug_identity_string", lambda: RAW.DebugIdentity(
        input=tf.constant([b"watch", b"me"]), tensor_name="s:0"))
    case("debug_identity_empty", lambda: RAW.DebugIdentity(
        input=tf.zeros([2, 0, 3]), tensor_name="e"))
    # InvalidArgument: no tensor name (TensorFlow splits "" into no parts),
    # a tensor name of three parts, a slot that is not a number.
    case("debug_identity_bad_tensor_name", lambda: RAW.DebugIdentity(
        input=tf.constant([1.0]), tensor_name="a:0:1"))
    case("debug_identity_no_tensor_name", lambda: RAW.DebugIdentity(
        input=tf.constant([1.0])))
    case("nan_count_no_tensor_name", lambda: RAW.DebugNanCount(
        input=tf.constant([1.0])))
    case("debug_identity_bad_output_slot", lambda: RAW.DebugIdentity(
        input=tf.constant([1.0]), tensor_name="a:zero"))
    for name, op in (("debug_gradient_identity", RAW.DebugGradientIdentity),
                     ("debug_identity_v2", RAW.DebugIdentityV2)):
        case(name + "_float", lambda op=op: op(input=const(MIX, tf.float32)))
        case(name + "_string", lambda op=op: op(
            input=tf.constant([b"x", b"yz"])))
        case(name + "_empty", lambda op=op: op(input=tf.zeros([0])))
    case("debug_identity_v2_attrs", lambda: RAW.DebugIdentityV2(
        input=const(FINITE, tf.int32), tfdbg_context_id="ctx", op_name="x",
        output_slot=0, tensor_debug_mode=FULL_HEALTH,
        circular_buffer_size=10, tfdbg_run_id="run"))

    def ref_identity():
        v = RAW.VariableV2(shape=[3], dtype=tf.float32, name="ref_var")
        init = tf1.assign(v, np.array([1.0, NAN, -INF], np.float32))
        ref = RAW.DebugGradientRefIdentity(input=v)
        add = tf1.assign_add(ref, np.ones(3, np.float32))
        return {"init": init.op, "add": add.op, "read": tf.identity(ref),
                "summary": RAW.DebugNumericSummary(
                    input=ref, tensor_name="ref_var:0")}
    steps_case(folder(), "debug_gradient_ref_identity", ref_identity,
               [["init"], ["read"], ["add"], ["read", "summary"]],
               note="a reference passed on: an update through it reaches "
               "the variable")


# --------------------------------------------------------------------------
# DebugNanCount


def nan_count_cases():
    for dtype in REALS + HALVES:
        case(f"nan_count_{dtype.name}",
             lambda dtype=dtype: RAW.DebugNanCount(input=const(MIX, dtype),
                                                 tensor_name="m:0"))
    case("nan_count_all_nan", lambda: RAW.DebugNanCount(
        input=tf.constant(np.full([4], NAN, np.float64)), tensor_name="n"))
    case("nan_count_empty", lambda: RAW.DebugNanCount(
        input=tf.zeros([0, 2]), tensor_name="n"))
    case("nan_count_scalar", lambda: RAW.DebugNanCount(
        input=tf.constant(NAN, tf.float32), tensor_name="n"))


# --------------------------------------------------------------------------
# DebugNumericSummary (v1)


def numeric_summary_cases():
    for dtype in REALS + [tf.bool]:
        case(f"numeric_summary_{dtype.name}",
             lambda dtype=dtype: RAW.DebugNumericSummary(
                 input=const(MIX, dtype), tensor_name="m:0"))

    def fed(values, **attrs):
        def build():
            x, xv = placeholder(values)
            return RAW.DebugNumericSummary(input=x, tensor_name="x:0",
                                           **attrs), {x: xv}
        return build
    rng = golden_lib.rng(3)
    case("numeric_summary_random", fed(
        rng.standard_normal([5, 7]).astype(np.float32)))
    case("numeric_summary_random_float64", fed(
        rng.standard_normal([3, 2, 4]) * 1e6))
    case("numeric_summary_bounds", fed(
        MIX.astype(np.float32), lower_bound=-1.0, upper_bound=2.0))
    case("numeric_summary_lower_bound_only", fed(
        MIX, lower_bound=-1.0))
    case("numeric_summary_upper_bound_only", fed(
        MIX, upper_bound=0.5))
    case("numeric_summary_mute_if_healthy", fed(
        FINITE.astype(np.float32), mute_if_healthy=True))
    case("numeric_summary_mute_if_unhealthy", fed(
        MIX.astype(np.float32), mute_if_healthy=True))
    case("numeric_summary_all_nan_inf", fed(
        np.array([NAN, INF, -INF, NAN], np.float32)))
    case("numeric_summary_empty", fed(np.zeros([3, 0], np.float32)))
    case("numeric_summary_scalar", fed(np.float64(-2.5)))
    case("numeric_summary_rank_five", fed(
        np.arange(24, dtype=np.float32).reshape(1, 2, 3, 4, 1) - 11.5))
    case("numeric_summary_extremes", fed(
        np.array([np.finfo(np.float32).max, np.finfo(np.float32).max,
                  -np.finfo(np.float32).tiny], np.float32)))


# --------------------------------------------------------------------------
# DebugNumericSummaryV2


def numeric_summary_v2_cases():
    def summary(values, mode, dtype=tf.float32, out=tf.float32, **attrs):
        return lambda: RAW.DebugNumericSummaryV2(
            input=const(values, dtype), tensor_debug_mode=mode,
            output_dtype=out, **attrs)

    for mode_name, mode in MODES.items():
        for out in (tf.float32, tf.float64):
            case(f"v2_{mode_name}_{out.name}",
                 summary(MIX, mode, out=out, tensor_id=7))
            case(f"v2_{mode_name}_finite_{out.name}",
                 summary(FINITE, mode, tf.float64, out))
        case(f"v2_{mode_name}_empty", summary(np.zeros([0, 4]), mode))
        case(f"v2_{mode_name}_scalar", summary(np.float32(-INF), mode))
        case(f"v2_{mode_name}_only_nan", summary(
            np.array([NAN, NAN]), mode, tf.float64, tf.float64))
        case(f"v2_{mode_name}_only_pos_inf", summary(
            np.array([1.0, INF]), mode, tf.float16))
    for dtype in REALS + HALVES + [tf.bool]:
        for mode_name in ("full_health", "concise_health", "curt_health"):
            case(f"v2_{mode_name}_in_{dtype.name}", summary(
                MIX, MODES[mode_name], dtype, tensor_id=3))
    for dtype in (tf.int8, tf.bool, tf.bfloat16):
        case(f"v2_shape_{dtype.name}", summary(MIX, SHAPE, dtype,
                                              tf.float64))
        case(f"v2_reduce_inf_nan_three_slots_{dtype.name}", summary(
            MIX, REDUCE_INF_NAN_THREE_SLOTS, dtype, tf.float64))
    # SHAPE keeps the last six dimensions of a rank-8 tensor.
    case("v2_shape_rank_eight", summary(
        np.zeros([2, 1, 3, 1, 1, 2, 1, 4]), SHAPE, out=tf.float64))
    case("v2_shape_rank_six", summary(
        np.zeros([5, 1, 3, 1, 2, 2]), SHAPE))
    # tensor_id up to 2^24 (float32) or 2^53 (float64), negative ones too;
    # REDUCE_INF_NAN_THREE_SLOTS does not look at it.
    case("v2_tensor_id_limit_float32", summary(
        FINITE, CURT_HEALTH, tensor_id=2 ** 24))
    case("v2_tensor_id_negative", summary(
        FINITE, FULL_HEALTH, tensor_id=-5, out=tf.float64))
    case("v2_tensor_id_limit_float64", summary(
        FINITE, SHAPE, out=tf.float64, tensor_id=2 ** 53))
    case("v2_tensor_id_large_float32_reduce", summary(
        MIX, REDUCE_INF_NAN_THREE_SLOTS, tensor_id=2 ** 40))
    # InvalidArgument: a tensor_id the output type cannot hold.
    case("v2_tensor_id_too_large_float32", summary(
        FINITE, CURT_HEALTH, tensor_id=2 ** 24 + 1))
    case("v2_tensor_id_too_large_float64", summary(
        FINITE, FULL_HEALTH, out=tf.float64, tensor_id=2 ** 53 + 1))
    # Unimplemented: the default mode, NO_TENSOR, FULL_NUMERICS,
    # FULL_TENSOR and unknown modes have no CPU summary.
    for mode in (-1, 0, 1, FULL_NUMERICS, FULL_TENSOR, 9):
        case(f"v2_unimplemented_mode_{mode}".replace("-", "minus_"),
             summary(FINITE, mode))


def main():
    identity_cases()
    nan_count_cases()
    numeric_summary_cases()
    numeric_summary_v2_cases()
    # Last: the first case empties the family's folder.
    golden_lib.write_op_defs(FAMILY, OP_NAMES)


if __name__ == "__main__":
    main()
