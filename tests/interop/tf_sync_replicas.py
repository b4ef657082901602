#!/usr/bin/env python3
"""TensorFlow's own SyncReplicasOptimizer on a dfx cluster (1 ps, 2
workers), driven by a TensorFlow 2.21 client, one session per worker.

Each worker builds its graph (between-graph replication, variables on the
ps through replica_device_setter) with
tf.compat.v1.train.SyncReplicasOptimizer(GradientDescent,
replicas_to_aggregate=2, total_num_replicas=2): its ConditionalAccumulators
and token queue live on the ps and are shared by the two workers' sessions
through their shared names. The chief (worker 0) initializes, runs
chief_init_op and the initial tokens, and runs the chief queue runner's
sync op in a thread; both workers train a linear regression in threads.
Workers train until the global step reaches 30. Checks: no step fails
(every wait ends), the global step advanced once per aggregated update,
the loss fell below a tenth, and a queue and an accumulator made by one
session are used by another.

    $(tools/tf_env) tests/interop/tf_sync_replicas.py --cluster cluster.json
    $(tools/tf_env) tests/interop/tf_sync_replicas.py --tf   # TF's servers

Exits 1 when a check fails.
"""

import argparse
import json
import os
import socket
import sys
import threading
import time

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")

import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402

tf1 = tf.compat.v1
tf1.disable_eager_execution()

TARGET = 30  # global steps (aggregated updates)
_SERVERS = []
FEATURES = 4


def data(worker):
    rng = np.random.default_rng(worker)
    x = rng.standard_normal([64, FEATURES]).astype(np.float32)
    w = np.arange(1, FEATURES + 1, dtype=np.float32).reshape(FEATURES, 1)
    return x, x @ w


def build(worker):
    graph = tf.Graph()
    with graph.as_default(), tf1.device(tf1.train.replica_device_setter(
            ps_tasks=1, worker_device=f"/job:worker/task:{worker}")):
        global_step = tf1.train.get_or_create_global_step()
        w = tf1.get_variable("w", [FEATURES, 1],
                             initializer=tf1.zeros_initializer())
        x = tf1.placeholder(tf.float32, [None, FEATURES], name="x")
        y = tf1.placeholder(tf.float32, [None, 1], name="y")
        loss = tf.reduce_mean(tf.square(tf.matmul(x, w) - y))
        opt = tf1.train.SyncReplicasOptimizer(
            tf1.train.GradientDescentOptimizer(0.05),
            replicas_to_aggregate=2, total_num_replicas=2)
        train_op = opt.minimize(loss, global_step=global_step)
        ops = {
            "graph": graph, "x": x, "y": y, "loss": loss, "train": train_op,
            "global_step": global_step,
            "init": tf1.global_variables_initializer(),
            "local_init": tf1.local_variables_initializer(),
            "local_step_init": opt.local_step_init_op,
            "chief_init": opt.chief_init_op,
            "tokens": opt.get_init_tokens_op(),
            "sync": opt.get_chief_queue_runner().enqueue_ops[0],
        }
    return ops


def check_sharing(targets):
    """A queue and an accumulator made by one session, used by another."""
    def graph():
        g = tf.Graph()
        with g.as_default(), tf1.device("/job:ps/task:0"):
            q = tf1.FIFOQueue(4, [tf.float32], shapes=[[2]],
                              shared_name="interop_shared_q")
            acc = tf1.ConditionalAccumulator(
                tf.float32, shape=[2], shared_name="interop_shared_acc")
            return g, (q.enqueue([[1.0, 2.0]]), q.dequeue(),
                       acc.apply_grad([2.0, 4.0], local_step=0),
                       acc.take_grad(1))
    g1, (enq, _, apply, _) = graph()
    with tf1.Session(targets[0], graph=g1) as s:
        s.run([enq, apply])
    g2, (_, deq, _, take) = graph()
    config = tf1.ConfigProto(operation_timeout_in_ms=60000)
    with tf1.Session(targets[1], graph=g2, config=config) as s:
        got_q, got_acc = s.run([deq, take])
    ok = np.array_equal(got_q, [1, 2]) and np.array_equal(got_acc, [2, 4])
    print(f"shared across sessions: dequeued {got_q}, took {got_acc}")
    return ok


def train(targets, target=30):
    """Trains until the global step reaches `target`: one session per
    worker (targets[i]), the chief's sync op in a thread. Returns a dict:
    worker steps, updates, global step, first and last loss, errors,
    seconds (from the first worker step to the last update)."""
    graphs = [build(i) for i in range(2)]
    config = tf1.ConfigProto(operation_timeout_in_ms=120000)
    sessions = [tf1.Session(targets[i], graph=graphs[i]["graph"],
                            config=config) for i in range(2)]
    chief = graphs[0]
    feeds = []
    for i in range(2):
        x, y = data(i)
        feeds.append({graphs[i]["x"]: x, graphs[i]["y"]: y})
    s0 = sessions[0]
    s0.run(chief["init"])
    first_loss = s0.run(chief["loss"], feeds[0])
    for i in range(2):
        sessions[i].run(graphs[i]["local_init"])
        sessions[i].run(graphs[i]["local_step_init"])
    s0.run(chief["chief_init"])
    s0.run(chief["tokens"])

    updates = [0]
    steps = [0, 0]
    errors = []

    def chief_loop():
        # Each sync op waits in the accumulators' take until both workers'
        # fresh gradients came, then updates and hands out tokens.
        try:
            while s0.run(chief["global_step"]) < target:
                s0.run(chief["sync"])
                updates[0] += 1
        except tf.errors.OpError as err:
            errors.append(f"chief: {err}")

    def worker_loop(i):
        # Train until the target step: a worker that stopped early would
        # leave the other waiting for a token (as in TensorFlow).
        try:
            while sessions[i].run(graphs[i]["global_step"]) < target:
                sessions[i].run(graphs[i]["train"], feeds[i])
                steps[i] += 1
        except tf.errors.OpError as err:
            errors.append(f"worker {i}: {err}")

    start = time.perf_counter()
    chief_thread = threading.Thread(target=chief_loop)
    chief_thread.start()
    workers = [threading.Thread(target=worker_loop, args=(i,))
               for i in range(2)]
    for t in workers:
        t.start()
    for t in workers:
        t.join()
    chief_thread.join()
    seconds = time.perf_counter() - start
    step = s0.run(chief["global_step"])
    last_loss = s0.run(chief["loss"], feeds[0])
    for s in sessions:
        s.close()
    return {"steps": steps, "updates": updates[0], "global_step": step,
            "first_loss": first_loss, "last_loss": last_loss,
            "errors": errors, "seconds": seconds}


def free_port():
    with socket.socket() as s:
        s.bind(("localhost", 0))
        return s.getsockname()[1]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--cluster", help="dfx cluster.json")
    parser.add_argument("--tf", action="store_true",
                        help="run on TensorFlow's in-process servers instead")
    args = parser.parse_args()
    if args.tf:
        spec = {"ps": [f"localhost:{free_port()}"],
                "worker": [f"localhost:{free_port()}",
                           f"localhost:{free_port()}"]}
        servers = [tf.distribute.Server(tf.train.ClusterSpec(spec),
                                        job_name=job, task_index=i)
                   for job, addrs in spec.items()
                   for i in range(len(addrs))]
        _SERVERS.extend(servers)  # they live until the process ends
        targets = [f"grpc://{a}" for a in spec["worker"]]
    else:
        with open(args.cluster) as f:
            spec = json.load(f)
        targets = [f"grpc://{a}" for a in spec["worker"]]

    r = train(targets, TARGET)
    print(f"{'TensorFlow' if args.tf else 'dfx'}: worker steps {r['steps']}, "
          f"{r['updates']} aggregated updates, global step "
          f"{r['global_step']}, loss {r['first_loss']:.3f} -> "
          f"{r['last_loss']:.5f}")
    ok = True
    if r["errors"]:
        print("errors:", r["errors"])
        ok = False
    if r["global_step"] != TARGET or r["updates"] != TARGET:
        print(f"FAIL: global step {r['global_step']} after {r['updates']} "
              "updates")
        ok = False
    if not r["last_loss"] < 0.1 * r["first_loss"]:
        print("FAIL: the loss did not fall below a tenth")
        ok = False
    if not check_sharing(targets):
        print("FAIL: a queue or accumulator was not shared across sessions")
        ok = False
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
