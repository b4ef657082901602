#!/usr/bin/env python3
"""Remote eager round trips, a dfx server against a TensorFlow server, from
the same TensorFlow 2.21 client in the same run.

TensorFlow's client runs remote operations asynchronously: `y = x + x` on a
remote device returns once the operation is queued on the client's stream
to the task, before the task has run it or answered. A loop of such calls
times the client's own queueing, not a round trip (3,000 of them take 60 µs
each to issue and 300-600 µs each to complete). So every case here ends
with a wait for the task's answers (the client's `async_wait`: a sync item
on the same stream, answered after everything queued before it):

  op       `y = x + x; async_wait()`, x already on the task: one operation
           and one sync, each answered, a round trip
  stream   20 of `x + x`, then one `async_wait()`; per operation: how fast a
           task consumes a stream of small operations
  numpy    `(x + x).numpy()`: the op, then the copy of the result back to
           the client (a remote _Send, the client's RecvTensor)
  send     `tf.constant(v) * 2.0` under tf.device(task), then
           `async_wait()`: a client-to-task copy (the task's _Recv fetching
           from the client), then the op

Each backend runs in a cluster of its own (the client's sync waits for every
task it knows, so one idle task of the other kind would add its round trip
and its CPU), in a client process of its own, alternating TF, dfx, TF, dfx
for --rounds rounds: each figure is the best round's median of --repeats
batches of --iters calls, in microseconds, with the server's and the
client's CPU time per call (user + system, from /proc) in the same batches.

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

CASES = ("op", "stream", "numpy", "send")
STREAM_OPS = 20


def cpu_seconds(pid):
    fields = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def measure(backend, dfx, iters, repeats):
    """One client against one server of `backend`: {case: [µs, server CPU
    µs, client CPU µs]}, per call."""
    import numpy as np
    import tensorflow as tf
    from tensorflow.python.eager import context

    from bench_clusters import TF_SERVER, free_port, wait_for_port

    cluster = {backend: [f"127.0.0.1:{free_port()}"]}
    if backend == "dfx":
        cmd = [dfx, "server", "--cluster", json.dumps(cluster), "--job", "dfx",
               "--task", "0", "--log-level", "warn"]
    else:
        cmd = [sys.executable, "-c", TF_SERVER, json.dumps(cluster), "tf",
               "0"]
    # A session of its own for either server (as `dfx cluster up` gives
    # dfx's): with autogroups on, a session is a scheduling group.
    server = subprocess.Popen(cmd, stdout=subprocess.DEVNULL,
                              stderr=subprocess.DEVNULL,
                              start_new_session=True)
    try:
        wait_for_port(cluster[backend][0])
        tf.config.experimental_connect_to_cluster(
            tf.train.ClusterSpec(cluster))
        value = np.arange(16, dtype=np.float32).reshape(4, 4)
        with tf.device(f"/job:{backend}/replica:0/task:0"):
            x = tf.constant(value)
            assert np.allclose((x + x).numpy(), value * 2)

            def op():
                x + x  # noqa: B018 (the op is the point)
                context.async_wait()

            def stream():
                for _ in range(STREAM_OPS):
                    x + x  # noqa: B018
                context.async_wait()

            def numpy():
                return (x + x).numpy()

            def send():
                tf.constant(value) * 2.0  # noqa: B018
                context.async_wait()

            results = {}
            for name, fn, per in (("op", op, 1), ("stream", stream, STREAM_OPS),
                                  ("numpy", numpy, 1), ("send", send, 1)):
                fn()  # warm-up: kernels built, channels up
                times = []
                cpu0 = cpu_seconds(server.pid)
                client0 = cpu_seconds(os.getpid())
                for _ in range(repeats):
                    start = time.perf_counter()
                    for _ in range(iters):
                        fn()
                    times.append(
                        (time.perf_counter() - start) / iters / per * 1e6)
                calls = repeats * iters * per
                results[name] = [
                    statistics.median(times),
                    (cpu_seconds(server.pid) - cpu0) / calls * 1e6,
                    (cpu_seconds(os.getpid()) - client0) / calls * 1e6]
        return results
    finally:
        server.kill()
        server.wait()


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--dfx", required=True, help="the dfx binary")
    parser.add_argument("--iters", type=int, default=100)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--child", choices=("tf", "dfx"),
                        help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        print("RESULT " + json.dumps(
            measure(args.child, args.dfx, args.iters, args.repeats)))
        return

    best = {"tf": {}, "dfx": {}}
    for _ in range(args.rounds):
        for backend in ("tf", "dfx"):
            child = subprocess.run(
                [sys.executable, os.path.abspath(__file__), "--child",
                 backend, "--dfx", os.path.abspath(args.dfx), "--iters",
                 str(args.iters), "--repeats", str(args.repeats)],
                capture_output=True, text=True, timeout=600)
            line = [l for l in child.stdout.splitlines()
                    if l.startswith("RESULT ")]
            if child.returncode != 0 or not line:
                raise RuntimeError(
                    f"the {backend} client failed (exit {child.returncode}):"
                    f"\n{child.stdout}{child.stderr[-4000:]}")
            for name, fig in json.loads(line[-1][len("RESULT "):]).items():
                if name not in best[backend] or fig[0] < best[backend][name][0]:
                    best[backend][name] = fig
    print(f"# best of {args.rounds} rounds, each the median of "
          f"{args.repeats} batches of {args.iters} calls; a 4x4 float "
          f"tensor; CPU µs per call from /proc")
    print("| round trip | TensorFlow µs | dfx µs | dfx / TF "
          "| server CPU µs, TF / dfx | client CPU µs, TF / dfx |")
    print("|---|---|---|---|---|---|")
    for name in CASES:
        t, tc, tcl = best["tf"][name]
        d, dc, dcl = best["dfx"][name]
        print(f"| {name} | {t:.0f} | {d:.0f} | {d / t:.2f} | {tc:.0f} / "
              f"{dc:.0f} | {tcl:.0f} / {dcl:.0f} |")


if __name__ == "__main__":
    main()
