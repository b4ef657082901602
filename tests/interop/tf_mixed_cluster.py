"""Tensors cross between a dfx server and a TensorFlow server of one cluster.

One cluster, job "worker": task 0 is a `dfx server`, task 1 a TensorFlow
2.21 server (tf.distribute.Server), and task 2 a second `dfx server`. A
TensorFlow client runs, once through each server as its master:

- a while loop (control flow v1) whose condition is on task 0 and whose
  body's add is on task 2: every iteration sends the counter to task 2 and
  back (pushed both ways), and task 2 follows the loop with its control
  loop. (`--body-tasks 1` puts the body on the TensorFlow task: that loop
  does not finish, with either master, before this change as after it: a
  known gap of mixed dfx/TensorFlow control loops.)
- a graph whose tensors cross from each task to each other one, small
  (pushed between the two dfx tasks) and of 1 MiB (announced there and
  fetched), both ways.

So a TensorFlow worker pulls from dfx workers and dfx workers pull from it
(RecvTensor), the dfx workers push to each other, and the numbers must be
TensorFlow's. Exit status: 0 when everything matches, 1 otherwise.

    $(tools/tf_env) tests/interop/tf_mixed_cluster.py --dfx build/bin/dfx
"""

import argparse
import json
import os
import subprocess
import sys

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")

import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402
from tensorflow.python.ops import control_flow_util  # noqa: E402

# The cluster helpers the side-by-side benchmarks use.
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "..", "tools", "bench"))
from bench_clusters import TF_SERVER, free_port, wait_for_port  # noqa: E402

tf1 = tf.compat.v1
tf1.disable_eager_execution()

def loop_graph(body_task):
    saved = control_flow_util.ENABLE_CONTROL_FLOW_V2
    control_flow_util.ENABLE_CONTROL_FLOW_V2 = False
    try:
        graph = tf.Graph()
        with graph.as_default():
            with tf1.device("/job:worker/task:0"):
                n = tf1.placeholder(tf.int32, [], name="n")

                def body(i, acc):
                    with tf1.device(f"/job:worker/task:{body_task}"):
                        return i + 1, acc + tf.cast(i, tf.float32) * 0.5

                result = tf1.while_loop(lambda i, acc: i < n, body,
                                        [tf.constant(0), tf.constant(0.0)],
                                        parallel_iterations=10)
        return graph, n, result
    finally:
        control_flow_util.ENABLE_CONTROL_FLOW_V2 = saved


def crossing_graph():
    """Each task makes a small and a 1 MiB tensor from the feed; every other
    task reduces it; task 0 sums what comes back. Returns the graph, the
    feed, the fetches and a function of the feed's value computing them
    with numpy."""
    graph = tf.Graph()
    outs = []
    with graph.as_default():
        with tf1.device("/job:worker/task:0"):
            x = tf1.placeholder(tf.float32, [4], name="x")
        for src in range(3):
            with tf1.device(f"/job:worker/task:{src}"):
                small = x * float(src + 1)
                big = tf.tile(x, [65536]) + float(src)  # 1 MiB
            for dst in range(3):
                if dst == src:
                    continue
                with tf1.device(f"/job:worker/task:{dst}"):
                    outs.append(tf.reduce_sum(small * 2.0 + 1.0))
                    outs.append(tf.reduce_sum(big * 0.25))
        with tf1.device("/job:worker/task:0"):
            total = tf.add_n(outs)

    def expected(v):
        want = []
        for src in range(3):
            small = v.astype(np.float64) * (src + 1)
            big = np.tile(v, 65536).astype(np.float64) + src
            for dst in range(3):
                if dst != src:
                    want.append(np.sum(small * 2.0 + 1.0))
                    want.append(np.sum(big * 0.25))
        return [sum(want)] + want

    return graph, x, [total] + outs, expected


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--dfx", required=True)
    p.add_argument("--iters", type=int, default=200)
    p.add_argument("--no-push", action="store_true",
                   help="start the dfx servers with --no-push")
    p.add_argument("--log-dir", help="write each server's log there")
    p.add_argument("--masters", default="0,1")
    p.add_argument("--body-tasks", default="2")
    args = p.parse_args()

    def log(name):
        if not args.log_dir:
            return subprocess.DEVNULL
        return open(os.path.join(args.log_dir, name), "w")

    extra = ["--no-push"] if args.no_push else []

    cluster = {"worker": [f"127.0.0.1:{free_port()}" for _ in range(3)]}
    env = dict(os.environ, TF_CPP_MIN_LOG_LEVEL="2")
    procs = [
        subprocess.Popen([args.dfx, "server", "--cluster", json.dumps(cluster),
                          "--job", "worker", "--task", "0"] + extra,
                         stdout=subprocess.DEVNULL, stderr=log("task0.log")),
        subprocess.Popen([sys.executable, "-c", TF_SERVER, json.dumps(cluster),
                          "worker", "1"], stdout=subprocess.DEVNULL,
                         stderr=log("task1.log"), env=env),
        subprocess.Popen([args.dfx, "server", "--cluster", json.dumps(cluster),
                          "--job", "worker", "--task", "2"] + extra,
                         stdout=subprocess.DEVNULL, stderr=log("task2.log")),
    ]
    failures = []
    try:
        for addr in cluster["worker"]:
            wait_for_port(addr)
        config = tf1.ConfigProto(operation_timeout_in_ms=120000)
        n_iters = args.iters
        want_acc = sum(i * 0.5 for i in range(n_iters))
        x_value = np.array([1.0, -4.0, 9.0, 16.0], np.float32)
        for master in [int(m) for m in args.masters.split(",")]:
            target = f"grpc://{cluster['worker'][master]}"
            kind = "dfx" if master == 0 else "TensorFlow"
            for body_task in [int(b) for b in args.body_tasks.split(",")]:
                graph, n, result = loop_graph(body_task)
                with tf1.Session(target, graph=graph, config=config) as sess:
                    for _ in range(2):  # a second step reuses the graph
                        i, acc = sess.run(result, {n: n_iters})
                        if i != n_iters or abs(acc - want_acc) > 1e-3:
                            failures.append(
                                f"loop with its body on task {body_task}, "
                                f"{kind} master: got ({i}, {acc}), want "
                                f"({n_iters}, {want_acc})")
                print(f"loop, body on task {body_task}, {kind} master: "
                      f"{'ok' if not failures else 'FAILED'}", flush=True)
            graph, x, fetches, expected = crossing_graph()
            want = expected(x_value)
            with tf1.Session(target, graph=graph, config=config) as sess:
                got = sess.run(fetches, {x: x_value})
            for k, (g, w) in enumerate(zip(got, want)):
                if not np.allclose(g, w, rtol=1e-4):
                    failures.append(f"crossing graph, {kind} master, output "
                                    f"{k}: got {g}, want {w}")
            print(f"crossing graph, {kind} master: "
                  f"{'ok' if not failures else 'FAILED'}", flush=True)
    except Exception as e:  # noqa: BLE001 - any error fails the test
        failures.append(f"{type(e).__name__}: {e}")
    finally:
        for proc in procs:
            proc.terminate()
        for proc in procs:
            try:
                proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
    for f in failures:
        print("FAILED:", f)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
