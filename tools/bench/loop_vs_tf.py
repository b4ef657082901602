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
servers (`dfx cluster up`), and on two dfx servers with the push path off
(`--no-push`: every cross-task tensor asked for with RecvTensor, as
TensorFlow's workers do); the three clusters run side by side and their
steps alternate, so the machine's load weighs on each alike. The figure is
the best of --repeats steps of --iters iterations, divided by --iters;
--settings one (or two) measures only that setting.

    $(tools/tf_env) tools/bench/loop_vs_tf.py --dfx build/bin/dfx
    $(tools/tf_env) tools/bench/loop_vs_tf.py --dfx build/bin/dfx \
        --settings one --repeats 10
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


def per_iteration(targets, body_device, iters, repeats):
    """Best µs per iteration on each target, the steps interleaved (one
    step on each target in turn, --repeats rounds), so that a machine whose
    load changes during the run charges every target alike."""
    graph, n, result = build_loop(body_device)
    sessions = {}
    try:
        for name, target in targets.items():
            sess = tf1.Session(target, graph=graph)
            sessions[name] = sess
            assert sess.run(result, {n: 10}) == 10
            sess.run(result, {n: iters})  # warm-up at full length
        best = {name: float("inf") for name in targets}
        for _ in range(repeats):
            for name, sess in sessions.items():
                start = time.perf_counter()
                got = sess.run(result, {n: iters})
                best[name] = min(best[name], time.perf_counter() - start)
                assert got == iters, (name, got)
    finally:
        for sess in sessions.values():
            sess.close()
    return {name: b / iters * 1e6 for name, b in best.items()}


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--dfx", required=True)
    p.add_argument("--iters", type=int, default=10000)
    p.add_argument("--repeats", type=int, default=5)
    p.add_argument("--settings", choices=("both", "one", "two"),
                   default="both",
                   help="one: only the one-task loop; two: only two tasks")
    args = p.parse_args()
    settings = (("one task", "/job:worker/task:0"),
                ("two tasks", "/job:worker/task:1"))
    if args.settings == "one":
        settings = settings[:1]
    elif args.settings == "two":
        settings = settings[1:]
    # TensorFlow's servers; dfx's; dfx's with the push path off (every
    # cross-task tensor asked for with RecvTensor, as TensorFlow does).
    starts = (("tf", start_tf_cluster),
              ("dfx", lambda w: start_dfx_cluster(args.dfx, w)),
              ("dfx-pull",
               lambda w: start_dfx_cluster(args.dfx, w, push=False)))
    stops = []
    targets = {}
    results = {}
    try:
        for name, start in starts:
            cluster, stop = start(2)
            stops.append(stop)
            targets[name] = f"grpc://{cluster['worker'][0]}"
        for setting, device in settings:
            results[setting] = per_iteration(targets, device, args.iters,
                                             args.repeats)
    finally:
        for stop in stops:
            stop()
    print(f"# {args.iters} iterations per step, best of {args.repeats} "
          "(steps interleaved)")
    print("| setting | TensorFlow µs/iteration | dfx µs/iteration "
          "| dfx / TF | dfx --no-push µs/iteration | --no-push / TF |")
    print("|---|---|---|---|---|---|")
    for setting, _ in settings:
        r = results[setting]
        t, d, pull = r["tf"], r["dfx"], r["dfx-pull"]
        print(f"| {setting} | {t:.2f} | {d:.2f} | {d / t:.2f} "
              f"| {pull:.2f} | {pull / t:.2f} |")


if __name__ == "__main__":
    main()
