#!/usr/bin/env python3
"""PS-training throughput, dfx servers against TensorFlow's, same TF client.

Runs examples/python/tf1_ps_train.py's model (embedding + MLP, Adagrad,
variables on 2 ps tasks) from one TensorFlow 2.21 client process, with 1 and
then 2 worker loops (threads, one session each), first on a cluster of
TensorFlow servers (tf.distribute.Server, one process per task), then on a
dfx cluster (`dfx cluster up`), and prints examples/s for each, and the
share of step time with a RecvTensor transfer in flight, from the step_stats
of a few FULL_TRACE steps run after the timed ones (TensorFlow's servers
record the same RecvTensor transfers at FULL_TRACE).

    $(tools/tf_env) tools/bench/ps_train_vs_tf.py --dfx build/bin/dfx
"""

import argparse
import os
import sys
import threading
import time

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "examples", "python"))
import tf1_ps_train as model  # noqa: E402
from bench_clusters import start_dfx_cluster, start_tf_cluster  # noqa: E402

import tensorflow as tf  # noqa: E402

tf1 = tf.compat.v1

TRACED_STEPS = 5

def recv_share(step_stats):
    """The share of a traced step's span (first node start to last end, all
    tasks) during which at least one RecvTensor transfer was in flight."""
    spans, transfers = [], []
    for dev in step_stats.dev_stats:
        for n in dev.node_stats:
            start = n.all_start_micros
            end = start + n.all_end_rel_micros
            spans.append((start, end))
            if n.node_name == "RecvTensor":
                transfers.append((start, end))
    if not spans:
        return 0.0
    total = max(e for _, e in spans) - min(s for s, _ in spans)
    busy, cur_s, cur_e = 0, None, None
    for s, e in sorted(transfers):
        if cur_e is None or s > cur_e:
            if cur_e is not None:
                busy += cur_e - cur_s
            cur_s, cur_e = s, e
        else:
            cur_e = max(cur_e, e)
    if cur_e is not None:
        busy += cur_e - cur_s
    return busy / total if total > 0 else 0.0


def build_train_graph(task, num_ps):
    """The training graph of worker `task` (variables on `num_ps` ps tasks);
    returns (graph, x, ids, y, loss, train, init). compare_tf uses it too."""
    graph = tf.Graph()
    with graph.as_default():
        setter = tf1.train.replica_device_setter(
            ps_tasks=num_ps, worker_device=f"/job:worker/task:{task}")
        with tf1.device(setter):
            x, ids, y, loss, _ = model.build_model(True)
            train = tf1.train.AdagradOptimizer(0.3).minimize(loss)
            init = tf1.global_variables_initializer()
    return graph, x, ids, y, loss, train, init


def worker(task, target, num_ps, steps, batch, out):
    graph, x, ids, y, loss, train, init = build_train_graph(task, num_ps)
    with graph.as_default():
        tx, tids, ty = model.dataset(4096, seed=10 + task)
        with tf1.Session(target, graph=graph) as sess:
            if task == 0:
                sess.run(init)
            out["ready"].wait()
            for i in range(5):  # warm-up: graph registration, first steps
                sess.run(train, {x: tx[:batch], ids: tids[:batch],
                                 y: ty[:batch]})
            out["warm"].wait()
            start = time.time()
            for i in range(steps):
                lo = (i * batch) % (len(tx) - batch)
                sess.run(train, {x: tx[lo:lo + batch],
                                 ids: tids[lo:lo + batch],
                                 y: ty[lo:lo + batch]})
            out[task] = time.time() - start
            # After the timed steps (and after every loop's: tracing slows
            # a step): a few FULL_TRACE steps for the RecvTensor share.
            out["timed"].wait()
            options = tf1.RunOptions(trace_level=tf1.RunOptions.FULL_TRACE)
            shares = []
            for i in range(TRACED_STEPS):
                md = tf1.RunMetadata()
                sess.run(train, {x: tx[:batch], ids: tids[:batch],
                                 y: ty[:batch]},
                         options=options, run_metadata=md)
                shares.append(recv_share(md.step_stats))
            out[("share", task)] = sum(shares) / len(shares)


def measure(cluster, workers, steps, batch):
    num_ps = len(cluster["ps"])
    # "warm": every loop starts timing together, after its warm-up steps.
    out = {"ready": threading.Event(), "warm": threading.Barrier(workers),
           "timed": threading.Barrier(workers)}
    threads = [threading.Thread(
        target=worker, args=(t, f"grpc://{cluster['worker'][t]}", num_ps,
                             steps, batch, out)) for t in range(workers)]
    for t in threads:
        t.start()
    time.sleep(1)
    out["ready"].set()
    for t in threads:
        t.join()
    elapsed = max(out[t] for t in range(workers))
    share = sum(out[("share", t)] for t in range(workers)) / workers
    return workers * steps * batch / elapsed, share


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--dfx", required=True)
    p.add_argument("--steps", type=int, default=200)
    p.add_argument("--batch", type=int, default=64)
    args = p.parse_args()
    rows = []
    for workers in (1, 2):
        results = {}
        for name, start in (("tf", lambda w: start_tf_cluster(w, 2)),
                            ("dfx", lambda w: start_dfx_cluster(args.dfx, w,
                                                                2))):
            cluster, stop = start(workers)
            try:
                tf1.Session.reset(f"grpc://{cluster['worker'][0]}")
                results[name] = measure(cluster, workers, args.steps,
                                        args.batch)
            finally:
                stop()
        rows.append((workers, results["tf"], results["dfx"]))
    print("| workers | TensorFlow examples/s | dfx examples/s | dfx / TF "
          "| RecvTensor share, TF | RecvTensor share, dfx |")
    print("|---|---|---|---|---|---|")
    for w, (t, ts), (d, ds) in rows:
        print(f"| {w} | {t:.0f} | {d:.0f} | {d / t:.2f} | {ts:.0%} "
              f"| {ds:.0%} |")
    print(f"RecvTensor share: the part of a step (first node start to last "
          f"node end, every task) with a RecvTensor transfer in flight, from "
          f"RunMetadata.step_stats of {TRACED_STEPS} FULL_TRACE steps per "
          f"worker loop after the timed ones (mean)")


if __name__ == "__main__":
    main()
