#!/usr/bin/env python3
"""Faults a TensorFlow 2 ClusterCoordinator must survive on a dfx cluster.

--phase worker: worker 1 is SIGKILLed while closures run and restarted two
seconds later; every closure must still run exactly once (each adds 1 to a
ps variable) and the coordinator must use the new process (it makes a
context there, and its per-worker dataset and iterator again: each closure
reads a batch from its worker's iterator).
--phase ps: the ps task is SIGKILLed; join() must raise TensorFlow's
UnavailableError naming the ps task (a ps failure is fatal to a
coordinator, as with TensorFlow's servers), not hang or retry for ever.

The cluster is the one `dfx cluster up --workers 2 --ps 1 --dir DIR` made.
"""

import argparse
import json
import os
import signal
import socket
import subprocess
import sys
import time

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")

import tensorflow as tf  # noqa: E402

CLOSURES = 600


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--dfx", required=True)
    p.add_argument("--dir", required=True)
    p.add_argument("--phase", choices=("worker", "ps"), required=True)
    args = p.parse_args()
    spec = json.load(open(os.path.join(args.dir, "cluster.json")))
    pids = {}
    for line in open(os.path.join(args.dir, "pids")):
        job, task, pid = line.split()
        pids[(job, int(task))] = int(pid)

    cluster = {"worker": spec["worker"], "ps": spec["ps"],
               "chief": [f"127.0.0.1:{free_port()}"]}
    resolver = tf.distribute.cluster_resolver.SimpleClusterResolver(
        tf.train.ClusterSpec(cluster), task_type="chief", task_id=0,
        rpc_layer="grpc")
    strategy = tf.distribute.ParameterServerStrategy(resolver)
    coordinator = tf.distribute.coordinator.ClusterCoordinator(strategy)
    with strategy.scope():
        count = tf.Variable(0.0)

    # Each closure reads a batch from its worker's own iterator (the
    # tutorial's per-worker dataset); a restarted worker gets a new one.
    def dataset_fn(input_context):
        return tf.data.Dataset.range(1 << 30).map(
            lambda v: tf.cast(v, tf.float32)).batch(4)

    @tf.function
    def per_worker_dataset_fn():
        return strategy.distribute_datasets_from_function(dataset_fn)

    iterator = iter(coordinator.create_per_worker_dataset(
        per_worker_dataset_fn))

    @tf.function
    def closure(iterator):
        def fn(batch):
            x = tf.random.uniform([128, 128]) + 0.0 * tf.reduce_sum(batch)
            for _ in range(10):
                x = tf.matmul(x, x) / 128.0
            count.assign_add(1.0)
            return tf.reduce_sum(x)
        return strategy.run(fn, args=(next(iterator),))

    start = time.time()
    for _ in range(CLOSURES):
        coordinator.schedule(closure, args=(iterator,))
    time.sleep(0.5)

    if args.phase == "worker":
        log_path = os.path.join(args.dir, "worker-1.log")
        os.kill(pids[("worker", 1)], signal.SIGKILL)
        print(f"worker 1 killed at {time.time() - start:.1f} s", flush=True)
        time.sleep(2.0)
        mark = os.path.getsize(log_path)
        log = open(log_path, "a")
        server = subprocess.Popen(
            [args.dfx, "server", "--cluster", json.dumps(spec), "--job",
             "worker", "--task", "1"], stdout=log, stderr=log)
        try:
            coordinator.join()
            done = time.time() - start
            # More closures after the restart, so that the new process is
            # asked for work while the others still run.
            for _ in range(CLOSURES):
                coordinator.schedule(closure, args=(iterator,))
            coordinator.join()
            with open(log_path) as f:
                f.seek(mark)
                rejoined = "eager context" in f.read()
        finally:
            server.terminate()
            server.wait()
        got = count.numpy()
        print(f"joined at {done:.1f} s; {got:.0f} closures ran "
              f"(scheduled {2 * CLOSURES}); restarted worker 1 "
              f"{'was' if rejoined else 'was NOT'} used")
        if not 2 * CLOSURES <= got <= 2 * CLOSURES + 4 or not rejoined:
            print("FAILED")
            return 1
    else:
        os.kill(pids[("ps", 0)], signal.SIGKILL)
        print(f"ps 0 killed at {time.time() - start:.1f} s", flush=True)
        try:
            coordinator.join()
            print("FAILED: join() returned with the ps task dead")
            return 1
        except tf.errors.UnavailableError as e:
            print(f"join() raised UnavailableError after "
                  f"{time.time() - start:.1f} s")
            if "/job:ps/replica:0/task:0" not in e.message:
                print("FAILED: the error does not name the ps task:",
                      e.message[:300])
                return 1
    print("OK")
    return 0


if __name__ == "__main__":
    sys.exit(main())
