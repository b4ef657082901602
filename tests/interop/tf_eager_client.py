"""A TensorFlow 2 client drives a dfx cluster through the eager service.

tf.config.experimental_connect_to_cluster on the cluster of `dfx cluster up`
(cluster.json), then eager ops placed on every task with tf.device:
constants sent from the client, matmul, +, reductions, results copied back
with .numpy(), tensors moved between tasks, a variable on /job:ps updated
and read from the client and from a worker, and an op error. Each result is
compared with the same computation run by TensorFlow on the client's CPU.
Exits non-zero naming the first mismatch.
"""
import argparse
import json
import sys

import numpy as np
import tensorflow as tf


def check(what, got, want, atol=1e-5):
    got = np.asarray(got)
    want = np.asarray(want)
    if got.shape != want.shape or got.dtype != want.dtype or not np.allclose(
            got, want, atol=atol):
        raise AssertionError(
            f"{what}: got {got!r} ({got.dtype}, {got.shape}), "
            f"TensorFlow gives {want!r} ({want.dtype}, {want.shape})")
    print(f"ok: {what}")


def ops(x, y):
    """The eager computation run on each task and, as the oracle, locally."""
    m = tf.matmul(x, y)
    s = m + x
    return {
        "matmul": m,
        "add": s,
        "reduce_sum": tf.reduce_sum(s),
        "reduce_mean_axis0": tf.reduce_mean(s, axis=0),
        "reduce_max_axis1": tf.reduce_max(s, axis=1),
        "int_add": tf.constant([1, 2, 3]) + tf.constant([10, 20, 30]),
        "relu": tf.nn.relu(x - 2.0),
        "cast": tf.cast(s, tf.int32),
    }


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--cluster", required=True)
    args = parser.parse_args()
    with open(args.cluster) as f:
        spec = json.load(f)
    jobs = {job: spec[job] for job in ("ps", "worker") if job in spec}
    tf.config.experimental_connect_to_cluster(tf.train.ClusterSpec(jobs))

    devices = [d.name for d in tf.config.list_logical_devices()]
    print("devices:", devices)
    for job, tasks in jobs.items():
        for i in range(len(tasks)):
            name = f"/job:{job}/replica:0/task:{i}/device:CPU:0"
            if name not in devices:
                raise AssertionError(f"{name} is not among {devices}")

    x_val = np.arange(6, dtype=np.float32).reshape(2, 3) / 2.0
    y_val = np.arange(12, dtype=np.float32).reshape(3, 4) - 5.0
    with tf.device("/job:localhost/replica:0/task:0/device:CPU:0"):
        want = {k: v.numpy() for k, v in ops(
            tf.constant(x_val), tf.constant(y_val)[:, :3]).items()}

    for job, tasks in jobs.items():
        for i in range(len(tasks)):
            task = f"/job:{job}/replica:0/task:{i}"
            with tf.device(task):
                x = tf.constant(x_val)
                y = tf.constant(y_val)[:, :3]
                got = ops(x, y)
            for k, v in got.items():
                if not v.device.startswith(task):
                    raise AssertionError(f"{k} ran on {v.device}, not {task}")
                check(f"{k} on {task}", v.numpy(), want[k])

    # A tensor made on one task, used on another (task to task copy).
    workers = len(jobs["worker"])
    with tf.device("/job:worker/replica:0/task:0"):
        a = tf.constant(x_val) * 3.0
    with tf.device(f"/job:worker/replica:0/task:{workers - 1}"):
        b = tf.reduce_sum(a, axis=1)
    check("worker 0 -> worker N copy", b.numpy(), (x_val * 3.0).sum(axis=1))

    # A variable on ps, updated and read from the client and a worker.
    if "ps" in jobs:
        with tf.device("/job:ps/replica:0/task:0"):
            v = tf.Variable(tf.constant([[1.0, 2.0], [3.0, 4.0]]))
        if not v.device.startswith("/job:ps/replica:0/task:0"):
            raise AssertionError(f"the variable lives on {v.device}")
        v.assign_add(tf.ones([2, 2]))
        check("variable on ps after assign_add", v.numpy(),
              np.array([[2, 3], [4, 5]], np.float32))
        with tf.device(f"/job:worker/replica:0/task:{workers - 1}"):
            r = tf.matmul(v, v)
        check("variable on ps read on a worker", r.numpy(),
              np.array([[2, 3], [4, 5]], np.float32) @
              np.array([[2, 3], [4, 5]], np.float32))
        v.assign(tf.zeros([2, 2]))
        check("variable on ps after assign", v.read_value().numpy(),
              np.zeros([2, 2], np.float32))

    # An op error comes back as TensorFlow's error class: one the client's
    # shape inference finds, and one only the task's kernel finds (an index
    # out of range), which names the op that failed.
    try:
        with tf.device("/job:worker/replica:0/task:0"):
            bad = tf.matmul(tf.ones([2, 3]), tf.ones([2, 3]))
            bad.numpy()
        raise AssertionError("a matmul of [2,3] by [2,3] did not fail")
    except tf.errors.InvalidArgumentError as e:
        print("ok: shape error raised InvalidArgumentError:",
              str(e).splitlines()[0][:120])
    try:
        with tf.device("/job:worker/replica:0/task:0"):
            bad = tf.gather(tf.constant([1.0, 2.0, 3.0]), tf.constant([5]))
            bad.numpy()
        raise AssertionError("a gather of index 5 from 3 elements did not fail")
    except tf.errors.InvalidArgumentError as e:
        if "GatherV2" not in str(e) or "task:0" not in str(e):
            raise AssertionError(f"the error does not name the op: {e}")
        print("ok: kernel error raised InvalidArgumentError:",
              str(e).splitlines()[0][:200])
    # ... and the context still works afterwards.
    with tf.device("/job:worker/replica:0/task:0"):
        after = tf.reduce_sum(tf.constant(x_val))
    check("op after an error", after.numpy(), np.float32(x_val.sum()))

    # Remote functions: one on a worker, one spanning two workers, one
    # reading the variable on ps.
    @tf.function
    def f(a, b):
        return tf.reduce_sum(tf.matmul(a, b), axis=0) + 1.0

    with tf.device("/job:worker/replica:0/task:0"):
        r = f(tf.constant(x_val), tf.constant(y_val[:, :3]))
    check("tf.function on a worker", r.numpy(),
          (x_val @ y_val[:, :3]).sum(axis=0) + 1.0)

    @tf.function
    def g(a):
        with tf.device("/job:worker/replica:0/task:0"):
            b = a * 2.0
        with tf.device(f"/job:worker/replica:0/task:{workers - 1}"):
            c = tf.reduce_sum(b, axis=1) + 1.0
        return c

    check("tf.function spanning two workers", g(tf.constant(x_val)).numpy(),
          (x_val * 2.0).sum(axis=1) + 1.0)
    if "ps" in jobs:
        with tf.device("/job:ps/replica:0/task:0"):
            w = tf.Variable(tf.constant([1.0, 2.0, 3.0]))

        @tf.function
        def step(d):
            with tf.device("/job:worker/replica:0/task:0"):
                w.assign_add(d)
            return w.read_value()

        step(tf.constant([1.0, 1.0, 1.0]))
        check("tf.function updating a ps variable from a worker",
              step(tf.constant([0.5, 0.5, 0.5])).numpy(),
              np.array([2.5, 3.5, 4.5], np.float32))
    print("all eager checks passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
