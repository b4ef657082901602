#!/usr/bin/env python3
"""TensorFlow 2 parameter-server training on a dfx cluster, unchanged TF code.

tf.distribute.ParameterServerStrategy keeps the variables on the ps tasks;
tf.distribute.coordinator.ClusterCoordinator, in this process (the chief),
schedules a tf.function step on whichever worker is free. Each step runs on
its worker through dfx's eager service, reading and updating the ps tasks'
variables across tasks.

    dfx cluster up --workers 2 --ps 2 --dir /tmp/c
    $(tools/tf_env) examples/python/ps_v2_coordinator.py --cluster /tmp/c/cluster.json
    dfx cluster down --dir /tmp/c

A linear regression, y = x·w + b, trained with plain gradient descent:
first --exact-steps steps one at a time (each joined before the next), whose
variables must equal a NumPy computation of the same updates; then
--async-steps steps scheduled all at once (the workers update the
variables as they come, as asynchronous PS training does), after which the
loss must be below --max-loss. Exits 1 when a check fails.
"""

import argparse
import json
import os
import socket
import sys

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")

import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402

FEATURES = 4
BATCH = 16
LEARNING_RATE = 0.1


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def batches(count, seed=7):
    """`count` (x, y) batches of a fixed linear model plus a little noise."""
    rng = np.random.default_rng(seed)
    w_true = np.array([[2.0], [-1.0], [0.5], [3.0]], np.float32)
    b_true = np.array([0.25], np.float32)
    out = []
    for _ in range(count):
        x = rng.standard_normal((BATCH, FEATURES)).astype(np.float32)
        noise = 0.01 * rng.standard_normal((BATCH, 1)).astype(np.float32)
        out.append((x, x @ w_true + b_true + noise))
    return out


def numpy_steps(data, w, b):
    """The updates the step makes, in NumPy: mean squared error, SGD."""
    for x, y in data:
        err = x @ w + b - y
        grad_w = 2.0 / BATCH * x.T @ err
        grad_b = 2.0 / BATCH * err.sum(axis=0)
        w = w - LEARNING_RATE * grad_w
        b = b - LEARNING_RATE * grad_b
    return w, b


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--cluster", required=True,
                   help="cluster.json of `dfx cluster up` (worker and ps)")
    p.add_argument("--exact-steps", type=int, default=5)
    p.add_argument("--async-steps", type=int, default=60)
    p.add_argument("--max-loss", type=float, default=0.01)
    args = p.parse_args()

    spec = json.load(open(args.cluster))
    # The chief is this process: its address must be in the cluster spec
    # (the workers' _Recv ops fetch tensors it sends from its server).
    cluster = {"worker": spec["worker"], "ps": spec["ps"],
               "chief": [f"127.0.0.1:{free_port()}"]}
    resolver = tf.distribute.cluster_resolver.SimpleClusterResolver(
        tf.train.ClusterSpec(cluster), task_type="chief", task_id=0,
        rpc_layer="grpc")
    strategy = tf.distribute.ParameterServerStrategy(resolver)
    coordinator = tf.distribute.coordinator.ClusterCoordinator(strategy)

    w0 = np.zeros((FEATURES, 1), np.float32)
    b0 = np.zeros((1,), np.float32)
    with strategy.scope():
        w = tf.Variable(w0, name="w")
        b = tf.Variable(b0, name="b")
    print(f"variables: w on {w.device}, b on {b.device}")

    @tf.function
    def train_step(x, y):
        def replica_fn(x, y):
            with tf.GradientTape() as tape:
                loss = tf.reduce_mean(tf.square(tf.matmul(x, w) + b - y))
            grad_w, grad_b = tape.gradient(loss, [w, b])
            w.assign_sub(LEARNING_RATE * grad_w)
            b.assign_sub(LEARNING_RATE * grad_b)
            return loss
        return strategy.run(replica_fn, args=(x, y))

    failures = []

    # One step at a time: the same updates as NumPy's, in the same order.
    data = batches(args.exact_steps)
    for x, y in data:
        coordinator.schedule(train_step,
                             args=(tf.constant(x), tf.constant(y)))
        coordinator.join()
    want_w, want_b = numpy_steps(data, w0, b0)
    got_w, got_b = w.numpy(), b.numpy()
    if not (np.allclose(got_w, want_w, atol=1e-5)
            and np.allclose(got_b, want_b, atol=1e-5)):
        failures.append(f"after {args.exact_steps} steps w={got_w.ravel()} "
                        f"b={got_b}, NumPy gives w={want_w.ravel()} "
                        f"b={want_b}")
    print(f"{args.exact_steps} steps one at a time: w={got_w.ravel()} "
          f"b={got_b} (NumPy: w={want_w.ravel()} b={want_b})")

    # All at once, on whichever worker is free.
    losses = [coordinator.schedule(train_step,
                                   args=(tf.constant(x), tf.constant(y)))
              for x, y in batches(args.async_steps, seed=11)]
    coordinator.join()
    last = [float(r.fetch()) for r in losses[-5:]]
    print(f"{args.async_steps} steps scheduled at once: last losses "
          + ", ".join(f"{v:.5f}" for v in last))
    print(f"w={w.numpy().ravel()} b={b.numpy()}")
    if max(last) > args.max_loss:
        failures.append(f"loss {max(last):.5f} is above {args.max_loss}")

    for f in failures:
        print("FAILED:", f)
    if failures:
        return 1
    print("OK")
    return 0


if __name__ == "__main__":
    sys.exit(main())
