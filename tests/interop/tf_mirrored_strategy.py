#!/usr/bin/env python3
"""TensorFlow's own MirroredStrategy (tf.compat.v1 graph mode, one replica
on each of two worker tasks' CPUs, TensorFlow's default cross-device
reduction for CPUs) trains on a dfx cluster driven by a TensorFlow 2.21
client, and gives the numbers it gives on TensorFlow's own servers.

The model: a two-layer MLP on a fixed batch that each replica gets half
of (strategy.experimental_distribute_values_from_function), Momentum,
10 steps; the loss is strategy.reduce(MEAN) of the replicas' losses.
Checks: every step's loss and the final variables (both replicas' copies
of each) equal TensorFlow's to 1e-5 relative, the copies are equal, and
the loss fell.

    $(tools/tf_env) tests/interop/tf_mirrored_strategy.py --cluster cluster.json

Exits 1 when a check fails.
"""

import argparse
import json
import os
import socket
import sys

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")

import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402

tf1 = tf.compat.v1
tf1.disable_eager_execution()

STEPS = 10
_SERVERS = []


def batch():
    rng = np.random.default_rng(3)
    x = rng.standard_normal([16, 6]).astype(np.float32)
    y = (x @ rng.standard_normal([6, 1]).astype(np.float32) > 0)
    return x, y.astype(np.float32)


def train(target, devices):
    graph = tf.Graph()
    with graph.as_default():
        tf1.set_random_seed(7)
        strategy = tf.distribute.MirroredStrategy(devices=devices)
        x_all, y_all = batch()
        half = len(x_all) // len(devices)

        def part(ctx):
            r = ctx.replica_id_in_sync_group
            return (tf.constant(x_all[r * half:(r + 1) * half]),
                    tf.constant(y_all[r * half:(r + 1) * half]))

        inputs = strategy.experimental_distribute_values_from_function(part)
        with strategy.scope():
            w1 = tf1.get_variable(
                "w1", [6, 8], initializer=tf1.glorot_uniform_initializer(1))
            b1 = tf1.get_variable("b1", [8], initializer=tf1.zeros_initializer())
            w2 = tf1.get_variable(
                "w2", [8, 1], initializer=tf1.glorot_uniform_initializer(2))
            opt = tf1.train.MomentumOptimizer(0.1, 0.9)

        def step(inp):
            x, y = inp
            h = tf.nn.relu(tf.matmul(x, w1) + b1)
            loss = tf.reduce_mean(tf.nn.sigmoid_cross_entropy_with_logits(
                labels=y, logits=tf.matmul(h, w2)))
            train_op = opt.minimize(loss)
            with tf.control_dependencies([train_op]):
                return tf.identity(loss)

        per_replica = strategy.run(step, args=(inputs,))
        loss = strategy.reduce(tf.distribute.ReduceOp.MEAN, per_replica,
                               axis=None)
        copies = {v.name: [c for c in strategy.experimental_local_results(v)]
                  for v in (w1, b1, w2)}
        init = tf1.global_variables_initializer()
    with tf1.Session(target, graph=graph) as s:
        s.run(init)
        losses = [float(s.run(loss)) for _ in range(STEPS)]
        values = {name: [s.run(c) for c in cs] for name, cs in copies.items()}
    return losses, values


def free_port():
    with socket.socket() as s:
        s.bind(("localhost", 0))
        return s.getsockname()[1]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--cluster", required=True, help="dfx cluster.json")
    args = parser.parse_args()
    with open(args.cluster) as f:
        dfx_spec = json.load(f)
    devices = [f"/job:worker/replica:0/task:{i}/device:CPU:0"
               for i in range(2)]
    tf_spec = {"worker": [f"localhost:{free_port()}" for _ in range(2)]}
    _SERVERS.extend(tf.distribute.Server(tf.train.ClusterSpec(tf_spec),
                                         job_name="worker", task_index=i)
                    for i in range(2))
    theirs = train(f"grpc://{tf_spec['worker'][0]}", devices)
    ours = train(f"grpc://{dfx_spec['worker'][0]}", devices)
    ok = True
    print("TensorFlow losses:", " ".join(f"{l:.6f}" for l in theirs[0]))
    print("dfx losses:       ", " ".join(f"{l:.6f}" for l in ours[0]))
    if not np.allclose(ours[0], theirs[0], rtol=1e-5, atol=1e-7):
        print("FAIL: the loss curves differ")
        ok = False
    if not ours[0][-1] < 0.8 * ours[0][0]:
        print("FAIL: the loss did not fall")
        ok = False
    for name, copies in ours[1].items():
        if not all(np.array_equal(copies[0], c) for c in copies[1:]):
            print(f"FAIL: the copies of {name} differ on dfx")
            ok = False
        if not np.allclose(copies[0], theirs[1][name][0], rtol=1e-5,
                           atol=1e-7):
            print(f"FAIL: {name} differs from TensorFlow's")
            ok = False
    print("MirroredStrategy on 2 dfx tasks:", "OK" if ok else "FAILED")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
