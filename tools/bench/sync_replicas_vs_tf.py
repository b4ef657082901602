#!/usr/bin/env python3
"""Synchronous parameter servers, a dfx cluster against TensorFlow's
servers (1 ps and 2 workers each, one process per task), from the same
TensorFlow 2.21 client in the same run, interleaved.

Two measurements per backend and round:
  - sync step: TensorFlow's SyncReplicasOptimizer (tests/interop/
    tf_sync_replicas.py's model: a linear regression, GradientDescent,
    replicas_to_aggregate=2), two worker sessions and the chief's sync op in
    threads, --target global steps; ms per global step.
  - queue round trip: one step of a worker session that enqueues a [1024]
    float tensor into a FIFOQueue on the ps and dequeues it back; ms/step.
Best (lowest) of --rounds rounds.

    $(tools/tf_env) tools/bench/sync_replicas_vs_tf.py --dfx build/bin/dfx
"""

import argparse
import os
import sys
import time

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")

import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402

from bench_clusters import start_dfx_cluster, start_tf_cluster  # noqa: E402

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "..", "tests", "interop"))
import tf_sync_replicas  # noqa: E402

tf1 = tf.compat.v1
tf1.disable_eager_execution()


def queue_round_trip(target, steps):
    g = tf.Graph()
    with g.as_default():
        with tf1.device("/job:ps/task:0"):
            q = tf1.FIFOQueue(16, [tf.float32], shapes=[[1024]])
        x = tf.constant(np.ones([1024], np.float32))
        with tf.control_dependencies([q.enqueue([x])]):
            y = tf.reduce_sum(q.dequeue())
        with tf1.Session(target, graph=g) as sess:
            for _ in range(10):
                sess.run(y)
            start = time.perf_counter()
            for _ in range(steps):
                sess.run(y)
            return (time.perf_counter() - start) / steps * 1e3


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--dfx", required=True)
    p.add_argument("--target", type=int, default=100)
    p.add_argument("--queue_steps", type=int, default=300)
    p.add_argument("--rounds", type=int, default=3)
    args = p.parse_args()
    best = {}
    for _ in range(args.rounds):
        for name, start in (
                ("tf", lambda: start_tf_cluster(2, ps=1)),
                ("dfx", lambda: start_dfx_cluster(args.dfx, 2, ps=1))):
            cluster, stop = start()
            try:
                targets = ["grpc://" + a for a in cluster["worker"]]
                r = tf_sync_replicas.train(targets, args.target)
                if r["errors"] or r["global_step"] != args.target:
                    print(f"FAILED on {name}: {r}")
                    return 1
                step_ms = r["seconds"] / args.target * 1e3
                queue_ms = queue_round_trip(targets[0], args.queue_steps)
            finally:
                stop()
            old = best.get(name, (float("inf"), float("inf")))
            best[name] = (min(old[0], step_ms), min(old[1], queue_ms))
            print(f"{name}: sync step {step_ms:.2f} ms, queue round trip "
                  f"{queue_ms:.3f} ms, loss {r['first_loss']:.2f} -> "
                  f"{r['last_loss']:.4f}", file=sys.stderr)
    print("| step | TensorFlow ms | dfx ms | dfx / TF |")
    print("|---|---|---|---|")
    for i, what in enumerate(["SyncReplicasOptimizer global step "
                              "(2 workers)", "enqueue + dequeue [1024] "
                              "float on the ps"]):
        t, d = best["tf"][i], best["dfx"][i]
        print(f"| {what} | {t:.2f} | {d:.2f} | {d / t:.2f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
