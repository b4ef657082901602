#!/usr/bin/env python3
"""Golden cases of the seedfor family: small op types TensorFlow 2.21
graphs still hold, as TensorFlow runs them.

    $(tools/tf_env) tests/golden/gen_seedfor.py

- DeleteRandomSeedGenerator (DeleteSeedGenerator's older name) on a
  DummySeedGenerator's handle, whose resource does not exist: NotFound.
  Beside it, the machinery old ShuffleDatasetV2 graphs use: a
  ShuffleDatasetV2 whose AnonymousSeedGenerator reshuffles gives every
  epoch of a repeat new seeds, so each epoch's order is TensorFlow's.
- For: TF1's functional for-loop (functional_ops.For, a Defun body called
  with the iteration and the loop variables): positive, negative and zero
  deltas, no iteration at all, several loop variables of other dtypes, a
  resource variable carried through the loop; the errors (a start/limit/
  delta TensorFlow refuses, a start that is not a scalar, a body returning
  more values than the loop has).
- FakeParam: its shape (the memory TensorFlow outputs is uninitialized,
  so only empty tensors and strings show values), unknown dimensions as 0,
  an unknown rank as a scalar.
- FakeQueue: a FIFOQueueV2 used through TF1's reference-handle queue ops,
  and the [container, name] handle of another resource.
- FileSystemSetConfiguration: Unimplemented for the file systems
  TensorFlow registers ("", file, ram, gs) and for unknown schemes;
  InvalidArgument for a non-scalar argument.
- SleepOp / SleepIdentityOp (TensorFlow's test ops, built through the
  op-def library: tf.raw_ops has no wrapper): no sleep and a short one.
- SymbolicGradient through Atanh (the builder's new Atanh gradient).

Not here, and why:
- DeleteRandomSeedGenerator (and DeleteSeedGenerator) on an
  AnonymousSeedGenerator's handle: TensorFlow 2.21 fails with Internal
  ("Cannot delete an unowned Resource ... ref-counting ResourceHandle is
  exposed to weak ResourceHandle code paths": the anonymous handle is
  ref-counted, the delete kernel deletes by name); dfx deletes the
  generator, as its DeleteSeedGenerator always has.
- AnonymousRandomSeedGenerator: TensorFlow 2.21 registers
  AnonymousSeedGenerator's kernel for it, which reads a `reshuffle` input
  the op does not have, so every run fails with InvalidArgument "Unknown
  input name: reshuffle"; dfx leaves it unregistered.
- TopK and TileGrad: TensorFlow 2.21 cannot run them. TopK's CPU kernels
  constrain attr index_type, which TopK's OpDef lacks ("OpKernel 'TopK'
  has constraint on attr 'index_type' not in NodeDef"), and TileGrad's
  constrain Tmultiples, which TileGrad's lacks; so neither is registered
  in dfx.
- SymbolicGradient through Asinh and Acosh: TensorFlow's function
  gradients (core/ops/math_grad.cc) compute dy * cosh(y) and dy * sinh(y),
  the reciprocals of the derivatives; tf.gradients of the plain ops gives
  dy / cosh(y) and dy / sinh(y), which dfx's builder gradients give
  (tests/builder/op_golden_test.cc checks them against tf.gradients).
- SleepOp with a non-scalar sleep_seconds: TensorFlow's kernel reads a
  scalar without checking and aborts; dfx returns InvalidArgument
  (tests/kernels/seedfor_test.cc). A cancelled sleep is also checked there.
- A For body with more results than loop variables that runs only once,
  or with fewer: TensorFlow checks the count only before the second
  iteration (one iteration succeeds) and copies fewer results into the
  first loop variables; dfx refuses both when it lowers the graph
  (InvalidArgument naming the node; tests/graph/
  lower_functional_ops_test.cc).

Besides the cases the generator writes the ops' signatures
(tf_op_defs.pbtxt, tf_cpu_kernels.txt), which tests/kernels/seedfor_test.cc
compares with dfx's registry.
"""

import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import golden_lib  # noqa: E402
from golden_lib import placeholder, tf, tf1  # noqa: E402
from tensorflow.python.framework import function  # noqa: E402
from tensorflow.python.framework import op_def_library  # noqa: E402
from tensorflow.python.ops import functional_ops  # noqa: E402

FAMILY = "seedfor"
OP_NAMES = ["DeleteRandomSeedGenerator", "For", "FakeParam", "FakeQueue", "FileSystemSetConfiguration",
            "SleepOp", "SleepIdentityOp"]
RAW = tf.raw_ops
TOL = dict(rtol=1e-5, atol=1e-5)


def case(name, build, **kw):
    golden_lib.case(FAMILY, name, build, **kw)


def apply_op(op_type, **kw):
    """An op tf.raw_ops has no wrapper for; returns the Operation."""
    _, _, op, _ = op_def_library._apply_op_helper(op_type, **kw)
    return op


# --------------------------------------------------------------------------
# DeleteRandomSeedGenerator


def shuffled(seed, seed2, buffer_size, n, epochs):
    def build():
        handle, _ = RAW.AnonymousSeedGenerator(
            seed=tf.constant(seed, tf.int64),
            seed2=tf.constant(seed2, tf.int64),
            reshuffle=tf.constant(True))
        base = tf.data.Dataset.range(n)
        variant = RAW.ShuffleDatasetV2(
            input_dataset=base._variant_tensor,
            buffer_size=tf.constant(buffer_size, tf.int64),
            seed_generator=handle, output_types=[tf.int64],
            output_shapes=[[]])
        variant = RAW.RepeatDataset(
            input_dataset=variant, count=tf.constant(epochs, tf.int64),
            output_types=[tf.int64], output_shapes=[[]])
        ds = tf.data.experimental.from_variant(
            variant, tf.TensorSpec([], tf.int64))
        it = tf1.data.make_initializable_iterator(ds)
        fetches = []
        deps = [it.initializer]
        for _ in range(n * epochs):
            with tf.control_dependencies(deps):
                fetches.append(it.get_next())
            deps = [fetches[-1]]
        return [tf.stack(fetches)], None
    return build


def seed_generator_cases():
    case("shuffle_v2_generator_epochs", shuffled(3, 5, 10, 8, 3))
    case("shuffle_v2_generator_small_buffer", shuffled(42, 0, 2, 7, 2))

    def delete_dummy():
        _, deleter = RAW.AnonymousSeedGenerator(
            seed=tf.constant(1, tf.int64), seed2=tf.constant(2, tf.int64),
            reshuffle=tf.constant(False))
        gone = RAW.DeleteRandomSeedGenerator(
            handle=RAW.DummySeedGenerator(), deleter=deleter)
        with tf.control_dependencies([gone]):
            return [tf.constant(0)], None
    case("delete_random_seed_generator_missing", delete_dummy)


# --------------------------------------------------------------------------
# For


@function.Defun(tf.int32, tf.float32)
def AddTwiceAndIter(i, v):
    return v * 2.0 + tf.cast(i, tf.float32)


def for_case(name, start, limit, delta, as_feeds=False):
    def build():
        if as_feeds:
            s, sv = placeholder(np.array(start, np.int32), "start")
            lim, lv = placeholder(np.array(limit, np.int32), "limit")
            d, dv = placeholder(np.array(delta, np.int32), "delta")
            feeds = {s: sv, lim: lv, d: dv}
        else:
            s, lim, d, feeds = start, limit, delta, None
        out = functional_ops.For(s, lim, d, [tf.constant(1.0)],
                                 AddTwiceAndIter)
        return out, feeds
    case(name, build)


@function.Defun(tf.int32, tf.int64, tf.float64, tf.string)
def ManyTypes(i, a, b, s):
    return (a * tf.cast(i, tf.int64) + 1, b / 2.0 + tf.cast(i, tf.float64),
            tf.strings.join([s, tf.strings.as_string(i)], separator=","))


@function.Defun(tf.int32, tf.int32)
def ReturnsTooMany(i, v):
    return v, v


def for_cases():
    for_case("for_up", 0, 5, 2)
    for_case("for_up_exact", 0, 6, 2)
    for_case("for_down", 5, 0, -2)
    for_case("for_down_feeds", 10, -3, -4, as_feeds=True)
    for_case("for_zero_delta_empty", 3, 3, 0, as_feeds=True)
    for_case("for_empty_range", 3, 3, 1)
    for_case("for_empty_range_down", 3, 3, -1)
    for_case("for_one_iteration", 7, 8, 5)
    # TensorFlow refuses these ranges: InvalidArgument.
    for_case("for_zero_delta_error", 3, 4, 0, as_feeds=True)
    for_case("for_wrong_direction_up", 0, 10, -1, as_feeds=True)
    for_case("for_wrong_direction_down", 5, 0, 1, as_feeds=True)

    def start_not_scalar():
        s, sv = placeholder(np.array([0], np.int32), "start")
        return functional_ops.For(s, 3, 1, [tf.constant(1.0)],
                                  AddTwiceAndIter), {s: sv}
    case("for_start_not_scalar", start_not_scalar)

    def limit_not_scalar():
        lim, lv = placeholder(np.array([3, 4], np.int32), "limit")
        return functional_ops.For(0, lim, 1, [tf.constant(1.0)],
                                  AddTwiceAndIter), {lim: lv}
    case("for_limit_not_scalar", limit_not_scalar)

    def many_types():
        a, av = placeholder(np.array([1, -2, 3], np.int64), "a")
        b, bv = placeholder(np.array([[0.5, 4.0]], np.float64), "b")
        s, sv = placeholder(np.array(["x", "yz"], object), "s")
        return functional_ops.For(1, 4, 1, [a, b, s], ManyTypes), \
            {a: av, b: bv, s: sv}
    case("for_int64_double_string", many_types)

    def too_many():
        return functional_ops.For(0, 10, 1, [tf.constant(1)],
                                  ReturnsTooMany), None
    case("for_body_returns_too_many", too_many)

    def with_resource():
        v = tf1.Variable(np.array([1.0, 2.0], np.float32), use_resource=True,
                         name="w")

        @function.Defun(tf.int32, tf.resource, tf.float32)
        def Body(i, h, acc):
            w = RAW.ReadVariableOp(resource=h, dtype=tf.float32)
            return h, acc + w * tf.cast(i, tf.float32)

        with tf.control_dependencies([v.initializer]):
            acc0 = tf.zeros([2], tf.float32)
        out = functional_ops.For(0, 4, 1, [v.handle, acc0], Body)
        return [out[1]], None
    case("for_resource_loop_variable", with_resource)

    def nested_for():
        @function.Defun(tf.int32, tf.float32)
        def Inner(j, x):
            return x + tf.cast(j, tf.float32)

        @function.Defun(tf.int32, tf.float32)
        def Outer(i, x):
            return functional_ops.For(0, i, 1, [x * 2.0], Inner)[0]

        return functional_ops.For(0, 4, 1, [tf.constant(0.5)], Outer), None
    case("for_nested", nested_for)


# --------------------------------------------------------------------------
# FakeParam, FakeQueue


def fake_param_cases():
    def shape_of(dtype, shape):
        def build():
            p = RAW.FakeParam(dtype=dtype, shape=shape)
            return [tf.shape(p)], None
        return build
    case("fake_param_shape_float", shape_of(tf.float32, [2, 3]))
    case("fake_param_shape_int64", shape_of(tf.int64, [4]))
    case("fake_param_unknown_dims_are_zero",
         shape_of(tf.float32, [2, None, 3]))
    case("fake_param_unknown_rank_is_scalar", shape_of(tf.float32, None))

    def values(dtype, shape):
        def build():
            return [RAW.FakeParam(dtype=dtype, shape=shape)], None
        return build
    case("fake_param_empty_float", values(tf.float32, [None, 3]))
    case("fake_param_empty_int32", values(tf.int32, [0]))
    case("fake_param_strings", values(tf.string, [2, 2]))


def fake_queue_cases():
    def queue():
        q = RAW.FIFOQueueV2(component_types=[tf.int32], shapes=[[]],
                            capacity=10, shared_name="fq")
        ref = RAW.FakeQueue(resource=q)
        x = tf1.placeholder_with_default(tf.constant(5), [])
        return {
            "enqueue": RAW.QueueEnqueue(handle=ref, components=[x]),
            "enqueue_many": RAW.QueueEnqueueMany(
                handle=ref, components=[tf.constant([7, 8, 9])]),
            "size_v1": RAW.QueueSize(handle=ref),
            "size_v2": RAW.QueueSizeV2(handle=q),
            "dequeue_v2": RAW.QueueDequeueV2(
                handle=q, component_types=[tf.int32])[0],
            "dequeue_v1": RAW.QueueDequeue(
                handle=ref, component_types=[tf.int32])[0],
            "close_v1": RAW.QueueClose(handle=ref),
            "closed_v2": RAW.QueueIsClosedV2(handle=q),
        }
    golden_lib.steps_case(
        golden_lib.family_folder(FAMILY), "fake_queue_v1_ops_on_v2_queue",
        queue,
        [["enqueue"], ["size_v1"], ["enqueue_many"], ["size_v2"],
         ["dequeue_v2"], ["dequeue_v1"], ["size_v1"], ["close_v1"],
         ["closed_v2"], ["dequeue_v1"], ["dequeue_v2"], ["dequeue_v1"]])

    def handle_of_variable():
        v = tf1.Variable(1.0, use_resource=True, name="counter")
        return [RAW.FakeQueue(resource=v.handle)], None
    case("fake_queue_handle_of_variable", handle_of_variable)


# --------------------------------------------------------------------------
# FileSystemSetConfiguration, SleepOp, SleepIdentityOp


def file_system_cases():
    def configure(scheme, key="key", value="value"):
        def build():
            s, sv = placeholder(np.array(scheme, object), "scheme")
            k, kv = placeholder(np.array(key, object), "key")
            v, vv = placeholder(np.array(value, object), "value")
            op = RAW.FileSystemSetConfiguration(scheme=s, key=k, value=v)
            with tf.control_dependencies([op]):
                done = tf.constant(1)
            return [done], {s: sv, k: kv, v: vv}
        return build
    for name, scheme in [("local", ""), ("file", "file"), ("ram", "ram"),
                         ("gs", "gs"), ("s3", "s3"), ("unknown", "foo"),
                         ("upper_case_file", "FILE")]:
        case(f"fs_config_{name}", configure(scheme))
    case("fs_config_scheme_not_scalar", configure(["file"]))
    case("fs_config_key_not_scalar", configure("file", key=["a", "b"]))
    case("fs_config_value_not_scalar", configure("", value=[["v"]]))


def sleep_cases():
    def sleep_identity(seconds, value):
        def build():
            s, sv = placeholder(np.array(seconds, np.int32), "seconds")
            x, xv = placeholder(value, "x")
            out = apply_op("SleepIdentityOp", sleep_seconds=s,
                           input=x).outputs[0]
            return [out], {s: sv, x: xv}
        return build
    case("sleep_identity_float", sleep_identity(0, np.array(
        [[1.5, -2.0], [3.0, 4.0]], np.float32)))
    case("sleep_identity_string", sleep_identity(
        -3, np.array(["a", "bc"], object)))
    case("sleep_identity_one_second_int64", sleep_identity(
        1, np.array([5, 6, 7], np.int64)))
    case("sleep_identity_empty", sleep_identity(0, np.zeros([0, 2],
                                                            np.bool_)))

    def sleep_op():
        s, sv = placeholder(np.array(0, np.int32), "seconds")
        op = apply_op("SleepOp", sleep_seconds=s)
        with tf.control_dependencies([op]):
            done = tf.constant(True)
        return [done], {s: sv}
    case("sleep_op_zero", sleep_op)


# --------------------------------------------------------------------------
# SymbolicGradient through Atanh


def atanh_gradient_case(dtype, name):
    t = tf.as_dtype(dtype)

    @function.Defun(t, t)
    def F(x, y):
        return tf.math.atanh(x) * y + tf.math.atanh(x * y)

    def build():
        x, xv = placeholder(
            golden_lib.rng(1).uniform(-0.9, 0.9, [2, 3]).astype(dtype), "x")
        y, yv = placeholder(
            golden_lib.rng(2).uniform(-0.9, 0.9, [2, 3]).astype(dtype), "y")
        return tf.gradients(F(x, y), [x, y]), {x: xv, y: yv}
    case(name, build, **TOL)


def main():
    seed_generator_cases()
    for_cases()
    fake_param_cases()
    fake_queue_cases()
    file_system_cases()
    sleep_cases()
    atanh_gradient_case(np.float32, "atanh_gradient_float32")
    atanh_gradient_case(np.float64, "atanh_gradient_float64")
    golden_lib.write_op_defs(FAMILY, OP_NAMES)


if __name__ == "__main__":
    main()
