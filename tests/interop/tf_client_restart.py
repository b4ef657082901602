"""A TensorFlow 2.21 client's session survives a dfx worker restart.

With TensorFlow's own servers a worker restart breaks every session that
used it (Aborted on each step until the client builds a new session). On a
dfx cluster the step in flight fails with UnavailableError naming the task,
and the same tf.compat.v1.Session runs again once the new process serves.

  python tf_client_restart.py --dfx PATH --dir CLUSTER_DIR
"""
import argparse
import json
import os
import signal
import subprocess
import sys
import time

import tensorflow as tf

tf1 = tf.compat.v1


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--dfx", required=True)
    parser.add_argument("--dir", required=True)
    args = parser.parse_args()
    tf1.disable_eager_execution()

    with open(os.path.join(args.dir, "cluster.json")) as f:
        cluster = json.load(f)
    pids = {}
    with open(os.path.join(args.dir, "pids")) as f:
        for line in f:
            job, task, pid = line.split()
            pids[(job, int(task))] = int(pid)
    target = "grpc://" + cluster["worker"][0]

    graph = tf.Graph()
    with graph.as_default():
        with tf.device("/job:worker/task:1"):
            c = tf.constant(2.0) * tf.constant(3.0)
        with tf.device("/job:worker/task:0"):
            y = c + 1.0
    config = tf1.ConfigProto(operation_timeout_in_ms=30000)
    session = tf1.Session(target, graph=graph, config=config)
    assert session.run(y) == 7.0

    # SIGKILL task 1, then one step: it fails, naming the task.
    os.kill(pids[("worker", 1)], signal.SIGKILL)
    time.sleep(0.2)
    try:
        session.run(y)
        raise AssertionError("a step with task 1 dead succeeded")
    except tf.errors.UnavailableError as e:
        assert "task:1" in e.message, e.message
        print("while task 1 is dead:", type(e).__name__)

    # The same task on the same port: a new process.
    log = open(os.path.join(args.dir, "worker-1.log"), "a")
    server = subprocess.Popen(
        [args.dfx, "server", "--cluster", json.dumps(cluster), "--job",
         "worker", "--task", "1"], stdout=log, stderr=log)
    try:
        restarted = time.time()
        failures = []
        while True:
            try:
                value = session.run(y)
                break
            except tf.errors.OpError as e:
                failures.append(type(e).__name__)
                if time.time() - restarted > 20:
                    raise
                time.sleep(0.1)
        assert value == 7.0, value
        # Only the process coming up (refused connections) or the session
        # rejoining may fail steps: never Aborted, never a hang.
        assert all(f == "UnavailableError" for f in failures), failures
        print("the same session runs again %.2f s after the restart "
              "(%d step(s) failed meanwhile)" % (time.time() - restarted,
                                                 len(failures)))
        for _ in range(20):
            assert session.run(y) == 7.0
        session.close()
    finally:
        server.send_signal(signal.SIGTERM)
        server.wait(timeout=30)
    print("OK")


if __name__ == "__main__":
    sys.exit(main())
