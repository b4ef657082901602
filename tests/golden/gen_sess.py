#!/usr/bin/env python3
"""Golden cases of the sess family: tensors a session keeps by handle --
GetSessionHandle and GetSessionHandleV2 (store a tensor, return its handle
"<node>;<id>;<device>"), GetSessionTensor (read a stored tensor back) and
DeleteSessionTensor -- and their OpDefs.

Every case is one step, and no case compares a handle's device: the same
cases run in a dfx local session (devices /job:localhost/...) and through a
TF client on a dfx cluster (tests/interop/run_tf_interop --filter sess/,
devices /job:worker/...), where a handle names a worker's device. Cases
fetch the handle without its device (StaticRegexReplace), so they show the
node name and the session's first id. Handles are only saved when the
client fetches the GetSessionHandle output itself, which TensorFlow's Python
client turns into a TensorHandle object, not a value: the multi-step
behaviour (store, read back in a later step, delete, another session, the
session's close) is tested by tests/worker/graph_mgr_test.cc, tests/
integration/session_handles_cluster_test.cc and, with TensorFlow's own
client API, tests/interop/run_tf_sess.

Left out: GetSessionTensor with a dtype other than the stored tensor's
(TensorFlow's executor answers Internal; dfx's kernel too,
tests/kernels/sess_test.cc).
"""

import numpy as np

import golden_lib
from golden_lib import tf, tf1

FAMILY = "sess"
OP_NAMES = ["GetSessionHandle", "GetSessionHandleV2", "GetSessionTensor",
            "DeleteSessionTensor"]

DTYPES = [tf.float32, tf.float64, tf.float16, tf.bfloat16, tf.int8,
          tf.int16, tf.int32, tf.int64, tf.uint8, tf.uint16, tf.uint32,
          tf.uint64, tf.bool, tf.complex64, tf.complex128, tf.string]


def case(name, build, **kw):
    golden_lib.case(FAMILY, name, build, **kw)


def without_device(handle):
    """The handle's "<node>;<id>" (the device differs between a local
    session and a cluster)."""
    return tf.raw_ops.StaticRegexReplace(input=handle, pattern=";/job:.*$",
                                         rewrite="")


def value_of(dtype, shape, seed):
    rng = golden_lib.rng(seed)
    if dtype == tf.string:
        return np.array([b"s%d" % i for i in range(int(np.prod(shape)))],
                        dtype=object).reshape(shape)
    if dtype == tf.bool:
        return rng.integers(0, 2, size=shape).astype(bool)
    if dtype.is_complex:
        return (rng.standard_normal(shape) +
                1j * rng.standard_normal(shape)).astype(dtype.as_numpy_dtype)
    if dtype.is_floating:
        # float16 and bfloat16 are fed as float32 and cast in the graph.
        return rng.standard_normal(shape).astype(
            np.float64 if dtype == tf.float64 else np.float32)
    return rng.integers(0, 100, size=shape).astype(dtype.as_numpy_dtype)


def store_cases():
    for i, dtype in enumerate(DTYPES):
        for shape, sname in (([2, 3], "2x3"), ([], "scalar"),
                             ([0, 4], "empty")):
            def build(dtype=dtype, shape=shape, seed=i):
                feed = value_of(dtype, shape, seed)
                x = tf1.placeholder(
                    tf.float32 if dtype in (tf.float16, tf.bfloat16)
                    else dtype, shape=shape, name="x")
                v = tf.cast(x, dtype) if dtype in (tf.float16,
                                                   tf.bfloat16) else x
                h = tf.raw_ops.GetSessionHandle(value=v, name="keep")
                return [without_device(h)], {x: feed}
            case(f"store_{dtype.name}_{sname}", build)

    def v2(dtype):
        def build():
            x = tf.constant(value_of(dtype, [3], 5), dtype=dtype)
            h = tf.raw_ops.GetSessionHandleV2(value=x, name="keep_v2")
            with tf.control_dependencies([h]):
                out = tf.identity(x)
            return [out], None
        return build
    for dtype in (tf.float32, tf.int64, tf.string, tf.bool):
        case(f"store_v2_{dtype.name}", v2(dtype))


def error_cases():
    def get(handle, dtype=tf.float32, feed=False):
        def build():
            if feed:
                p = tf1.placeholder(tf.string, name="p")
                t = tf.raw_ops.GetSessionTensor(handle=p, dtype=dtype)
                return [t], {p: np.array(handle, dtype=object)}
            t = tf.raw_ops.GetSessionTensor(handle=tf.constant(handle),
                                            dtype=dtype)
            return [t], None
        return build
    case("get_unknown_handle", get("nope"))
    case("get_empty_handle", get(""))
    case("get_unknown_id", get(
        "GetSessionHandle;41;/job:localhost/replica:0/task:0/device:CPU:0",
        feed=True))
    case("get_unknown_int32", get("x;0;/device:CPU:0", dtype=tf.int32))
    case("get_handle_not_scalar", get(["a", "b"], feed=True))

    def delete(handle):
        def build():
            d = tf.raw_ops.DeleteSessionTensor(handle=tf.constant(handle))
            with tf.control_dependencies([d]):
                out = tf.constant(1.0)
            return [out], None
        return build
    case("delete_unknown_handle", delete("nope"))
    case("delete_empty_handle", delete(""))

    # A handle is saved at the end of its step: reading it in the same step
    # finds nothing.
    def same_step():
        x = tf.constant([1.0, 2.0])
        h = tf.raw_ops.GetSessionHandle(value=x, name="keep")
        t = tf.raw_ops.GetSessionTensor(handle=h, dtype=tf.float32)
        return [t], None
    case("get_in_the_storing_step", same_step)

    def delete_same_step():
        x = tf.constant(3, dtype=tf.int64)
        h = tf.raw_ops.GetSessionHandle(value=x, name="keep")
        d = tf.raw_ops.DeleteSessionTensor(handle=h)
        with tf.control_dependencies([d]):
            out = tf.constant(1.0)
        return [out], None
    case("delete_in_the_storing_step", delete_same_step)


def main():
    store_cases()
    error_cases()
    golden_lib.write_op_defs(FAMILY, OP_NAMES,
                             type_attrs={"GetSessionTensor": "dtype"})


if __name__ == "__main__":
    main()
