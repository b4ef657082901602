#!/usr/bin/env python3
"""A chain of small MatMuls, a dfx server against a TensorFlow server, from
the same TensorFlow 2.21 client in the same run.

The graph: 24 chained 160x160 MatMuls, each scaled by a constant; with
--underflow the values underflow to zero after a few products (denormals
on the way, which TensorFlow flushes to zero), else they stay normal.
Prints the median ms/step of --repeats batches of --steps steps per
backend, and the ratio.

    $(tools/tf_env) tools/bench/matmul_chain_vs_tf.py --dfx build/bin/dfx
"""

import argparse
import os
import statistics
import time

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")

import tensorflow as tf  # noqa: E402

from bench_clusters import start_dfx_cluster, start_tf_cluster  # noqa: E402

tf1 = tf.compat.v1
tf1.disable_eager_execution()


def time_chain(target, underflow, steps, repeats):
    g = tf.Graph()
    with g.as_default():
        x = tf1.placeholder(tf.float32, [])
        m = tf.fill([160, 160], x * (1e-3 if underflow else 1.0))
        for _ in range(24):
            m = tf.matmul(m, m) * (1e-2 if underflow else 1.0 / 160)
        out = tf.reduce_sum(m)
        config = tf1.ConfigProto()
        config.graph_options.rewrite_options.disable_meta_optimizer = True
        with tf1.Session(target, graph=g, config=config) as sess:
            sess.run(out, {x: 1.0})
            times = []
            for _ in range(repeats):
                start = time.perf_counter()
                for _ in range(steps):
                    sess.run(out, {x: 1.0})
                times.append((time.perf_counter() - start) / steps * 1e3)
    return statistics.median(times)


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--dfx", required=True)
    p.add_argument("--steps", type=int, default=50)
    p.add_argument("--repeats", type=int, default=5)
    args = p.parse_args()
    results = {}
    for name, start in (("tf", lambda: start_tf_cluster(1)),
                        ("dfx", lambda: start_dfx_cluster(args.dfx, 1))):
        cluster, stop = start()
        try:
            target = "grpc://" + cluster["worker"][0]
            for underflow in (False, True):
                results[(name, underflow)] = time_chain(
                    target, underflow, args.steps, args.repeats)
        finally:
            stop()
    print("| values | TensorFlow ms/step | dfx ms/step | dfx / TF |")
    print("|---|---|---|---|")
    for underflow in (False, True):
        t, d = results[("tf", underflow)], results[("dfx", underflow)]
        label = "underflowing" if underflow else "normal"
        print(f"| {label} | {t:.2f} | {d:.2f} | {d / t:.2f} |")


if __name__ == "__main__":
    main()
