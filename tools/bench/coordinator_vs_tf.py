#!/usr/bin/env python3
"""ClusterCoordinator closure round trips, dfx servers against TensorFlow's,
from the same TensorFlow 2.21 client code in the same run.

Each backend gets a cluster of 1 worker and 1 ps task (TensorFlow's
tf.distribute.Server processes, or `dfx cluster up`), and a chief process
of its own (a coordinator per process): ParameterServerStrategy with a
variable on the ps, and a tf.function closure that reads the variable, adds
to it and returns a scalar. A round trip is `coordinator.schedule(closure)`
then `.fetch()` of its result: the chief's call to the worker, the
worker's call to the ps, and back. The figure is the median of --repeats
batches of --iters round trips, in microseconds; a second row times a closure that
touches no ps (the client's and the worker's share alone); --rounds alternates the
backends that many times (fresh clusters each time) and keeps each one's
best round, so that both see the machine's load alike.

    $(tools/tf_env) tools/bench/coordinator_vs_tf.py --dfx build/bin/dfx
"""

import argparse
import json
import os
import statistics
import subprocess
import sys
import time

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")

from bench_clusters import (free_port, start_dfx_cluster,  # noqa: E402
                            start_tf_cluster)


def chief(spec, iters, repeats):
    """Runs in a child process: the coordinator, timing round trips of a
    closure on the ps variable and of one that touches no ps (the floor:
    the client's and the worker's share alone)."""
    import tensorflow as tf
    cluster = {"worker": spec["worker"], "ps": spec["ps"],
               "chief": [f"127.0.0.1:{free_port()}"]}
    resolver = tf.distribute.cluster_resolver.SimpleClusterResolver(
        tf.train.ClusterSpec(cluster), task_type="chief", task_id=0,
        rpc_layer="grpc")
    strategy = tf.distribute.ParameterServerStrategy(resolver)
    coordinator = tf.distribute.coordinator.ClusterCoordinator(strategy)
    with strategy.scope():
        v = tf.Variable(0.0)

    @tf.function
    def closure():
        def fn():
            v.assign_add(1.0)
            return v.read_value() * 2.0
        return strategy.run(fn)

    @tf.function
    def local_closure():
        return strategy.run(lambda: tf.constant(2.0) * 3.0)

    def median(fn):
        for _ in range(20):  # warm-up: function registered, channels up
            coordinator.schedule(fn).fetch()
        times = []
        for _ in range(repeats):
            start = time.perf_counter()
            for _ in range(iters):
                coordinator.schedule(fn).fetch()
            times.append((time.perf_counter() - start) / iters * 1e6)
        return statistics.median(times)

    result = {"ps": median(closure), "local": median(local_closure)}
    assert v.numpy() == 20 + iters * repeats, v.numpy()
    return result


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--dfx", help="the dfx binary (parent)")
    p.add_argument("--iters", type=int, default=100)
    p.add_argument("--repeats", type=int, default=5)
    p.add_argument("--rounds", type=int, default=2)
    p.add_argument("--chief", help=argparse.SUPPRESS)  # child: cluster json
    args = p.parse_args()
    if args.chief:
        print(json.dumps(chief(json.loads(args.chief), args.iters,
                               args.repeats)))
        return 0
    if not args.dfx:
        p.error("--dfx is required")

    starts = {"tf": lambda: start_tf_cluster(1, ps=1),
              "dfx": lambda: start_dfx_cluster(args.dfx, 1, ps=1)}
    rows = (("ps", "closure on a ps variable (schedule + fetch)"),
            ("local", "closure touching no ps (schedule + fetch)"))
    best = {name: {row: float("inf") for row, _ in rows} for name in starts}
    for _ in range(args.rounds):
        for name, start in starts.items():
            spec, stop = start()
            try:
                child = subprocess.run(
                    [sys.executable, __file__, "--chief", json.dumps(spec),
                     "--iters", str(args.iters), "--repeats",
                     str(args.repeats)],
                    capture_output=True, text=True, timeout=600)
            finally:
                stop()
            if child.returncode != 0:
                raise RuntimeError(f"{name} chief failed:\n{child.stderr}")
            got = json.loads(child.stdout.strip().splitlines()[-1])
            for row, _ in rows:
                best[name][row] = min(best[name][row], got[row])
    print(f"# median of {args.repeats} batches of {args.iters} round trips, "
          f"best of {args.rounds} alternating rounds; 1 worker, 1 ps")
    print("| round trip | TensorFlow µs | dfx µs | dfx / TF |")
    print("|---|---|---|---|")
    for row, label in rows:
        t, d = best["tf"][row], best["dfx"][row]
        print(f"| {label} | {t:.0f} | {d:.0f} | {d / t:.2f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
