#!/usr/bin/env python3
"""PS-training throughput, dfx servers against TensorFlow's, same TF client.

Runs examples/python/tf1_ps_train.py's model (embedding + MLP, Adagrad,
variables on 2 ps tasks) from one TensorFlow 2.21 client process, with 1 and
then 2 worker loops (threads, one session each), first on a cluster of
TensorFlow servers (tf.distribute.Server, one process per task), then on a
dfx cluster (`dfx cluster up`), and prints examples/s for each.

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

def worker(task, target, num_ps, steps, batch, out):
    graph = tf.Graph()
    with graph.as_default():
        setter = tf1.train.replica_device_setter(
            ps_tasks=num_ps, worker_device=f"/job:worker/task:{task}")
        with tf1.device(setter):
            x, ids, y, loss, _ = model.build_model(True)
            train = tf1.train.AdagradOptimizer(0.3).minimize(loss)
            init = tf1.global_variables_initializer()
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


def measure(cluster, workers, steps, batch):
    num_ps = len(cluster["ps"])
    # "warm": every loop starts timing together, after its warm-up steps.
    out = {"ready": threading.Event(), "warm": threading.Barrier(workers)}
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
    return workers * steps * batch / elapsed


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
    print("| workers | TensorFlow examples/s | dfx examples/s | dfx / TF |")
    print("|---|---|---|---|")
    for w, t, d in rows:
        print(f"| {w} | {t:.0f} | {d:.0f} | {d / t:.2f} |")


if __name__ == "__main__":
    main()
