"""Local clusters for the side-by-side benchmarks: TensorFlow servers
(tf.distribute.Server, one process per task) and dfx servers (`dfx cluster
up`), each returned as (cluster spec dict, stop function)."""

import json
import os
import socket
import subprocess
import sys
import tempfile
import time

TF_SERVER = """
import json, sys, tensorflow as tf
cluster = tf.train.ClusterSpec(json.loads(sys.argv[1]))
server = tf.distribute.Server(cluster, job_name=sys.argv[2],
                              task_index=int(sys.argv[3]))
server.join()
"""


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_for_port(addr, limit=60):
    host, port = addr.split(":")
    deadline = time.time() + limit
    while time.time() < deadline:
        with socket.socket() as s:
            if s.connect_ex((host, int(port))) == 0:
                return
        time.sleep(0.1)
    raise RuntimeError(f"nothing listens on {addr}")


def start_tf_cluster(workers, ps=0):
    cluster = {"worker": [f"127.0.0.1:{free_port()}" for _ in range(workers)]}
    if ps:
        cluster["ps"] = [f"127.0.0.1:{free_port()}" for _ in range(ps)]
    procs = []
    for job, addrs in cluster.items():
        for i in range(len(addrs)):
            procs.append(subprocess.Popen(
                [sys.executable, "-c", TF_SERVER, json.dumps(cluster), job,
                 str(i)], stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL))
    for addrs in cluster.values():
        for addr in addrs:
            wait_for_port(addr)
    return cluster, lambda: [p.kill() for p in procs]


def start_dfx_cluster(dfx, workers, ps=0):
    d = tempfile.mkdtemp(prefix="dfx-bench-")
    subprocess.run([dfx, "cluster", "up", "--workers", str(workers), "--ps",
                    str(ps), "--dir", d], check=True, capture_output=True)
    with open(os.path.join(d, "cluster.json")) as f:
        cluster = json.load(f)
    return cluster, lambda: subprocess.run(
        [dfx, "cluster", "down", "--dir", d], capture_output=True)
