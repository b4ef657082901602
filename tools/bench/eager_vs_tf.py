#!/usr/bin/env python3
"""Remote eager round trips, a dfx server against a TensorFlow server, from
the same TensorFlow 2.21 client in the same run.

One cluster holds both: task /job:dfx/task:0 is a `dfx server`, task
/job:tf/task:0 a tf.distribute.Server, and the client joins them with
tf.config.experimental_connect_to_cluster. For each task it times, with the
client's default (synchronous) executor:

  op       `y = x + x` on the task, x already there: one Enqueue round trip
  numpy    `(x + x).numpy()`: the op, then the copy of the result back to
           the client (a remote _Send, the client's RecvTensor)
  send     `tf.constant(v)` under tf.device(task), then an op using it: a
           client-to-task copy (the task's _Recv fetching from the client)

The figure is the median of --repeats batches of --iters calls, divided by
--iters, in microseconds.

    $(tools/tf_env) tools/bench/eager_vs_tf.py --dfx build/bin/dfx
"""

import argparse
import json
import os
import statistics
import subprocess
import sys
import time

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")

import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402

from bench_clusters import TF_SERVER, free_port, wait_for_port  # noqa: E402


def per_call(fn, iters, repeats):
    fn()  # warm-up: kernels built, channels up
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        for _ in range(iters):
            fn()
        times.append((time.perf_counter() - start) / iters * 1e6)
    return statistics.median(times)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--dfx", required=True, help="the dfx binary")
    parser.add_argument("--iters", type=int, default=200)
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()

    cluster = {"dfx": [f"127.0.0.1:{free_port()}"],
               "tf": [f"127.0.0.1:{free_port()}"]}
    procs = [
        subprocess.Popen([args.dfx, "server", "--cluster", json.dumps(cluster),
                          "--job", "dfx", "--task", "0",
                          "--log-level", "warn"],
                         stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL),
        subprocess.Popen([sys.executable, "-c", TF_SERVER,
                          json.dumps(cluster), "tf", "0"],
                         stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL),
    ]
    try:
        for addrs in cluster.values():
            wait_for_port(addrs[0])
        tf.config.experimental_connect_to_cluster(
            tf.train.ClusterSpec(cluster))
        value = np.arange(16, dtype=np.float32).reshape(4, 4)
        results = {}
        for job in ("tf", "dfx"):
            with tf.device(f"/job:{job}/replica:0/task:0"):
                x = tf.constant(value)
                assert np.allclose((x + x).numpy(), value * 2)

                def op():
                    return x + x

                def numpy():
                    return (x + x).numpy()

                def send():
                    return tf.constant(value) * 2.0

                results[job] = {
                    name: per_call(fn, args.iters, args.repeats)
                    for name, fn in (("op", op), ("numpy", numpy),
                                     ("send", send))}
    finally:
        for p in procs:
            p.kill()
    print(f"# median of {args.repeats} batches of {args.iters} calls, "
          f"a 4x4 float tensor")
    print("| round trip | TensorFlow µs | dfx µs | dfx / TF |")
    print("|---|---|---|---|")
    for name in ("op", "numpy", "send"):
        t = results["tf"][name]
        d = results["dfx"][name]
        print(f"| {name} | {t:.0f} | {d:.0f} | {d / t:.2f} |")


if __name__ == "__main__":
    main()
