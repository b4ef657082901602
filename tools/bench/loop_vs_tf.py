#!/usr/bin/env python3
"""Cost of one while-loop iteration, dfx servers against TensorFlow's, from
the same TensorFlow 2.21 client in the same run.

The loop is a scalar counter built with tf.compat.v1.while_loop and control
flow v1 (Enter/Merge/Switch/LoopCond/NextIteration/Exit): `i < n`, `i + 1`.
It runs (a) entirely on /job:worker/task:0 ("one task"), and (b) with the
condition on task 0 and the body's add on task 1 ("two tasks": every
iteration sends the counter to task 1 and back, and task 1 follows the loop
through its control loop). Each setting runs on a cluster of two TensorFlow
servers (tf.distribute.Server, one process per task), then on two dfx
servers (`dfx cluster up`); the figure is the best of --repeats steps of
--iters iterations, divided by --iters. Both clusters stay up and
--rounds alternates them, so that both see the same machine load;
--settings one measures only the one-task loop.

    $(tools/tf_env) tools/bench/loop_vs_tf.py --dfx build/bin/dfx
    $(tools/tf_env) tools/bench/loop_vs_tf.py --dfx build/bin/dfx \
        --settings one --rounds 5
"""

import argparse
import os
import time

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")

import tensorflow as tf  # noqa: E402
from tensorflow.python.ops import control_flow_util  # noqa: E402

from bench_clusters import start_dfx_cluster, start_tf_cluster  # noqa: E402

tf1 = tf.compat.v1

def build_loop(body_device):
    """The counter loop; returns (graph, n placeholder, result)."""
    saved = control_flow_util.ENABLE_CONTROL_FLOW_V2
    control_flow_util.ENABLE_CONTROL_FLOW_V2 = False
    try:
        graph = tf.Graph()
        with graph.as_default():
            with tf1.device("/job:worker/task:0"):
                n = tf1.placeholder(tf.int32, [], name="n")

                def body(i):
                    with tf1.device(body_device):
                        return i + 1

                result = tf1.while_loop(lambda i: i < n, body,
                                        [tf.constant(0)],
                                        parallel_iterations=10)
        return graph, n, result
    finally:
        control_flow_util.ENABLE_CONTROL_FLOW_V2 = saved


def per_iteration_session(sess, n, result, iters, repeats):
    """Best seconds per iteration (in µs) over `repeats` steps of `sess`."""
    best = float("inf")
    for _ in range(repeats):
        start = time.perf_counter()
        got = sess.run(result, {n: iters})
        best = min(best, time.perf_counter() - start)
        assert got == iters, got
    return best / iters * 1e6


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--dfx", required=True)
    p.add_argument("--iters", type=int, default=10000)
    p.add_argument("--repeats", type=int, default=5)
    p.add_argument("--settings", choices=("both", "one", "two"),
                   default="both",
                   help="one: only the one-task loop; two: only two tasks")
    p.add_argument("--rounds", type=int, default=1,
                   help="alternate TensorFlow and dfx this many times, both "
                        "clusters up, and report the best of all rounds")
    args = p.parse_args()
    settings = [("one task", "/job:worker/task:0"),
                ("two tasks", "/job:worker/task:1")]
    if args.settings == "one":
        settings = settings[:1]
    elif args.settings == "two":
        settings = settings[1:]
    clusters = {}
    try:
        clusters["tf"] = start_tf_cluster(2)
        clusters["dfx"] = start_dfx_cluster(args.dfx, 2)
        results = {}
        for setting, device in settings:
            sessions = {}
            for name, (cluster, _) in clusters.items():
                graph, n, result = build_loop(device)
                sess = tf1.Session(f"grpc://{cluster['worker'][0]}",
                                   graph=graph)
                assert sess.run(result, {n: 10}) == 10
                sess.run(result, {n: args.iters})  # warm-up at full length
                sessions[name] = (sess, n, result)
            rounds = []
            for _ in range(args.rounds):
                rounds.append({
                    name: per_iteration_session(s, n, r, args.iters,
                                                args.repeats)
                    for name, (s, n, r) in sessions.items()})
            for s, _, _ in sessions.values():
                s.close()
            results[setting] = rounds
    finally:
        for _, stop in clusters.values():
            stop()
    print(f"# {args.iters} iterations per step, best of {args.repeats} "
          f"steps, {args.rounds} interleaved round(s)")
    print("| setting | TensorFlow µs/iteration | dfx µs/iteration "
          "| dfx / TF |")
    print("|---|---|---|---|")
    for setting, _ in settings:
        rounds = results[setting]
        t = min(r["tf"] for r in rounds)
        d = min(r["dfx"] for r in rounds)
        print(f"| {setting} | {t:.2f} | {d:.2f} | {d / t:.2f} |")
    if args.rounds > 1:
        print("# per round (TensorFlow, dfx, dfx / TF):")
        for setting, _ in settings:
            print(f"# {setting}: " + "; ".join(
                f"{r['tf']:.2f}, {r['dfx']:.2f}, {r['dfx'] / r['tf']:.2f}"
                for r in results[setting]))


if __name__ == "__main__":
    main()
