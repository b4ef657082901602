"""Golden cases of the batching family: TensorFlow Serving's in-graph
batching ops BatchFunction, Batch, Unbatch and UnbatchGrad, as TensorFlow
2.21 runs them.

A golden case is one step, so each batch here holds one request: what the
cases show is how a lone request goes through (its rows padded up to the
next allowed batch size, which a function whose output holds its batch size
reveals; a request split across batches with enable_large_batch_splitting;
captured tensors passed unbatched), TensorFlow's error codes for bad attrs
and inputs, and errors of the function. Batches of concurrent steps are
tests/golden/batching_session_test.cc's.

Batch's ids are random in TensorFlow, so no case fetches one or the id
column of a batch_index; the cases go Batch -> Unbatch and UnbatchGrad and
fetch what comes back.

    $(tools/tf_env) tests/golden/gen_batching.py

Besides the cases the generator writes the ops' signatures
(tf_op_defs.pbtxt, tf_cpu_kernels.txt), which tests/kernels/batching_test.cc
compares with dfx's registry.
"""

import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import golden_lib  # noqa: E402
from golden_lib import tf  # noqa: E402
from tensorflow.python.framework import function  # noqa: E402

FAMILY = "batching"
RAW = tf.raw_ops
OP_NAMES = ["BatchFunction", "Batch", "Unbatch", "UnbatchGrad"]


def ph(value):
    return golden_lib.placeholder(value)[0]


def case(name, build, **kw):
    golden_lib.case(FAMILY, name, build, **kw)


def batch_function(f, inputs, captured, tout, **attrs):
    kw = dict(num_batch_threads=1, max_batch_size=4,
              batch_timeout_micros=1000)
    kw.update(attrs)
    return RAW.BatchFunction(in_tensors=inputs, captured_tensors=captured,
                             f=f, Tout=tout, **kw)


def rows_and_size(dtype):
    """f(x) = (x, [batch size] per row): the output shows the padding."""
    @function.Defun(dtype)
    def f(x):
        n = tf.shape(x)[0]
        return tf.identity(x), tf.fill([n], n)
    return f


def pad_case(name, dtype, value, **attrs):
    def build():
        x = ph(value)
        out = batch_function(rows_and_size(tf.as_dtype(dtype)), [x], [],
                             [tf.as_dtype(dtype), tf.int32], **attrs)
        return list(out), {x: value}
    case(name, build)


F32 = np.arange(6, dtype=np.float32).reshape(3, 2)

# --- One request, padded to the next allowed batch size (or not at all).
pad_case("pad_float_3_to_4", np.float32, F32, allowed_batch_sizes=[2, 4])
pad_case("pad_exact_2", np.float32, F32[:2], allowed_batch_sizes=[2, 4])
pad_case("no_allowed_sizes", np.float32, F32)
pad_case("pad_int32", np.int32, np.array([[1, 2, 3]], np.int32),
         allowed_batch_sizes=[2, 4])
pad_case("pad_int64_rank1", np.int64, np.array([7, 8, 9], np.int64),
         allowed_batch_sizes=[4])
pad_case("pad_double_rank3", np.float64,
         np.arange(12, dtype=np.float64).reshape(3, 2, 2),
         allowed_batch_sizes=[1, 2, 4])
pad_case("pad_bool", np.bool_, np.array([True, False, True]),
         allowed_batch_sizes=[4])
pad_case("pad_string", object, np.array([b"a", b"bc", b"def"], object),
         allowed_batch_sizes=[4])
pad_case("pad_half", np.float16, np.array([[1.5], [2.5]], np.float16),
         allowed_batch_sizes=[3, 4])
pad_case("pad_uint8", np.uint8, np.array([1, 2, 3, 4, 5], np.uint8),
         max_batch_size=8, allowed_batch_sizes=[6, 8])
pad_case("full_batch", np.float32, np.ones([4, 1], np.float32),
         allowed_batch_sizes=[2, 4])
pad_case("zero_rows_unpadded", np.float32, np.zeros([0, 2], np.float32))
# Zero rows padded up: no row to pad with.
pad_case("zero_rows_padded", np.float32, np.zeros([0, 2], np.float32),
         allowed_batch_sizes=[2, 4])
# Larger than max_batch_size: InvalidArgument, split or not.
pad_case("too_large", np.float32, np.ones([5, 1], np.float32))
pad_case("too_large_split", np.float32, np.ones([5, 1], np.float32),
         enable_large_batch_splitting=True, allowed_batch_sizes=[2])
# Split: batches of at most the last allowed size, each padded.
pad_case("split_6_into_4_and_2", np.float32,
         np.arange(6, dtype=np.float32).reshape(6, 1), max_batch_size=8,
         enable_large_batch_splitting=True, allowed_batch_sizes=[2, 4])
pad_case("split_5_into_2s", np.float32,
         np.arange(5, dtype=np.float32).reshape(5, 1), max_batch_size=8,
         enable_large_batch_splitting=True, allowed_batch_sizes=[1, 2])
pad_case("split_no_allowed_sizes", np.float32,
         np.arange(3, dtype=np.float32).reshape(3, 1), max_batch_size=8,
         enable_large_batch_splitting=True)
# Splitting: the last allowed size may be below max_batch_size, not above.
pad_case("split_allowed_above_max", np.float32, F32,
         enable_large_batch_splitting=True, allowed_batch_sizes=[2, 8])
pad_case("split_allowed_below_max", np.float32,
         np.arange(4, dtype=np.float32).reshape(4, 1),
         enable_large_batch_splitting=True, allowed_batch_sizes=[2, 3])
# Accepted and ignored: the low-priority queue's attrs.
pad_case("low_priority_attrs", np.float32, F32, allowed_batch_sizes=[2, 4],
         low_priority_max_batch_size=8, low_priority_batch_timeout_micros=5,
         low_priority_allowed_batch_sizes=[4, 8],
         low_priority_max_enqueued_batches=3,
         mixed_priority_policy="priority_isolation",
         batch_padding_policy="PAD_UP")
pad_case("shared_name_queue", np.float32, F32, allowed_batch_sizes=[4],
         container="c", shared_name="batcher", batching_queue="q1")
pad_case("many_threads", np.float32, F32, num_batch_threads=4,
         max_enqueued_batches=100, batch_timeout_micros=0)

# --- Bad attrs: InvalidArgument.
pad_case("allowed_not_increasing", np.float32, F32,
         allowed_batch_sizes=[4, 2])
pad_case("allowed_last_not_max", np.float32, F32, allowed_batch_sizes=[2, 3])
pad_case("allowed_duplicate", np.float32, F32, allowed_batch_sizes=[4, 4])
pad_case("max_batch_size_0", np.float32, F32, max_batch_size=0)
pad_case("negative_timeout", np.float32, F32, batch_timeout_micros=-1)
# Accepted: no thread count (TensorFlow's adaptive scheduler), no limit on
# enqueued batches.
pad_case("num_batch_threads_0", np.float32, F32, num_batch_threads=0)
pad_case("max_enqueued_batches_0", np.float32, F32, max_enqueued_batches=0)
pad_case("max_enqueued_batches_negative", np.float32, F32,
         max_enqueued_batches=-1)


# --- Several inputs and outputs, captured tensors.
def multi_io():
    @function.Defun(tf.float32, tf.int32, tf.float32, tf.int32)
    def f(a, b, scale, offset):
        return a * scale, b + offset, tf.reduce_sum(a, axis=1, keepdims=True)
    a = ph(F32)
    b = ph(np.array([1, 2, 3], np.int32))
    scale = tf.constant(2.5)
    offset = tf.constant([10], tf.int32)
    out = batch_function(f, [a, b], [scale, offset],
                         [tf.float32, tf.int32, tf.float32],
                         allowed_batch_sizes=[4])
    return list(out), {a: F32, b: np.array([1, 2, 3], np.int32)}


case("inputs_and_captured", multi_io)


def bad_inputs(name, values):
    def build():
        phs = [ph(v) for v in values]

        @function.Defun(*[tf.as_dtype(v.dtype) for v in values])
        def f(*xs):
            return [tf.identity(x) for x in xs]
        out = batch_function(f, phs, [], [p.dtype for p in phs])
        return list(out), dict(zip(phs, values))
    case(name, build)


bad_inputs("scalar_input", [np.float32(1)])
bad_inputs("unequal_rows", [np.ones([2, 1], np.float32),
                            np.ones([3], np.int32)])


# --- The function's errors and outputs that do not split.
def function_case(name, body, value):
    def build():
        x = ph(value)

        @function.Defun(tf.as_dtype(value.dtype))
        def f(v):
            return body(v)
        out = batch_function(f, [x], [], [tf.as_dtype(value.dtype)],
                             allowed_batch_sizes=[2, 4])
        return list(out), {x: value}
    case(name, build)


function_case("f_fails", lambda v: tf.debugging.check_numerics(v, "bad"),
              np.array([1.0, np.inf], np.float32))
function_case("f_scalar_output", lambda v: tf.reduce_sum(v),
              np.array([1.0, 2.0], np.float32))
function_case("f_wrong_rows", lambda v: tf.concat([v, v], 0),
              np.array([1.0, 2.0], np.float32))
function_case("f_int_div_by_zero", lambda v: tf.math.floordiv(v, v - v),
              np.array([4, 2], np.int32))


# --- Batch, then Unbatch and UnbatchGrad of the same request.
def batch_roundtrip(name, value, allowed=(), grad_scale=None, **attrs):
    def build():
        x = ph(value)
        kw = dict(num_batch_threads=1, max_batch_size=4,
                  batch_timeout_micros=1000, grad_timeout_micros=1000000,
                  allowed_batch_sizes=list(allowed))
        kw.update(attrs)
        batched, index, rid = RAW.Batch(in_tensors=[x], **kw)
        fetches = [batched[0], index[:, 1:]]
        back = RAW.Unbatch(batched_tensor=batched[0], batch_index=index,
                           id=rid, timeout_micros=1000000)
        fetches.append(back)
        if grad_scale is not None:
            grad = back * grad_scale
            fetches.append(RAW.UnbatchGrad(original_input=batched[0],
                                           batch_index=index, grad=grad,
                                           id=rid))
        return fetches, {x: value}
    case(name, build)


batch_roundtrip("batch_unbatch_float", F32, allowed=[4])
batch_roundtrip("batch_unbatch_int64", np.array([5, 6], np.int64))
batch_roundtrip("batch_unbatch_string",
                np.array([[b"x"], [b"yz"]], object), allowed=[2, 4])
batch_roundtrip("batch_unbatch_grad", F32, allowed=[4],
                grad_scale=np.float32(3))
batch_roundtrip("batch_unbatch_grad_double",
                np.arange(4, dtype=np.float64).reshape(2, 2),
                grad_scale=np.float64(-1))
batch_roundtrip("batch_too_large", np.ones([5, 2], np.float32))
batch_roundtrip("batch_bad_allowed", F32, allowed=[1, 2])


def batch_two_inputs():
    a = ph(F32)
    b = ph(np.array([1, 2, 3], np.int32))
    batched, index, _ = RAW.Batch(
        in_tensors=[a, b], num_batch_threads=1, max_batch_size=4,
        batch_timeout_micros=1000, grad_timeout_micros=1000,
        allowed_batch_sizes=[4])
    return list(batched) + [index[:, 1:]], {
        a: F32, b: np.array([1, 2, 3], np.int32)}


case("batch_two_inputs", batch_two_inputs)


def unbatch_case(name, batched, index, rid, timeout=1000):
    def build():
        b = ph(batched)
        i = ph(np.asarray(index, np.int64).reshape(-1, 3))
        r = ph(np.int64(rid))
        out = RAW.Unbatch(batched_tensor=b, batch_index=i, id=r,
                          timeout_micros=timeout)
        return out, {b: batched, i: np.asarray(index, np.int64).reshape(-1, 3),
                     r: np.int64(rid)}
    case(name, build)


# The request's rows from a batch fed directly.
unbatch_case("unbatch_fed_rows", F32, [[7, 1, 3], [9, 0, 1]], 7)
# Its rows never come: DeadlineExceeded after timeout_micros.
unbatch_case("unbatch_timeout", F32[:0], [], 11)
unbatch_case("unbatch_index_past_end", F32, [[7, 1, 5]], 7)
# Not here: a batch_index row whose start is past its end, on which
# TensorFlow's Unbatch aborts the process (a CHECK in its split); dfx
# answers InvalidArgument (tests/kernels/batching_test.cc).

golden_lib.write_op_defs(FAMILY, OP_NAMES)
