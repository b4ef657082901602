"""Local clusters for the side-by-side benchmarks: TensorFlow servers
(tf.distribute.Server, one process per task) and dfx servers (`dfx cluster
up`), each returned as (cluster spec dict, stop function)."""

import glob
import json
import os
import shutil
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


def wait_for_port(addr, limit=180):
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
    env = dict(os.environ, TF_CPP_MIN_LOG_LEVEL="2")
    for job, addrs in cluster.items():
        for i in range(len(addrs)):
            # A session of its own, as `dfx cluster up` gives each dfx
            # server: with the kernel's autogroups on (a desktop's default)
            # a session is a scheduling group, and servers sharing the
            # clients' group would be scheduled unlike dfx's.
            procs.append(subprocess.Popen(
                [sys.executable, "-c", TF_SERVER, json.dumps(cluster), job,
                 str(i)], stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL, env=env, start_new_session=True))

    def stop():
        for p in procs:
            p.kill()
        for p in procs:
            p.wait()

    try:
        for addrs in cluster.values():
            for addr in addrs:
                wait_for_port(addr)
    except BaseException:
        stop()
        raise
    return cluster, stop


def start_dfx_cluster(dfx, workers, ps=0, push=True):
    d = tempfile.mkdtemp(prefix="dfx-bench-")
    # A machine busy with builds may take a while to start the servers.
    up = subprocess.run([dfx, "cluster", "up", "--workers", str(workers),
                         "--ps", str(ps), "--dir", d, "--timeout-ms",
                         "120000"] + ([] if push else ["--no-push"]),
                        capture_output=True, text=True)
    if up.returncode != 0:
        shutil.rmtree(d, ignore_errors=True)
        raise RuntimeError(f"dfx cluster up failed: {up.stderr.strip()}")
    with open(os.path.join(d, "cluster.json")) as f:
        cluster = json.load(f)

    def down():
        subprocess.run([dfx, "cluster", "down", "--dir", d],
                       capture_output=True)
        shutil.rmtree(d, ignore_errors=True)
    return cluster, down


def server_pids(cluster):
    """The pids of the processes listening on the cluster's addresses (both
    kinds of server), found through /proc: the processes whose CPU time a
    benchmark charges to a step. Empty where /proc cannot tell."""
    ports = {int(a.rsplit(":", 1)[1]) for addrs in cluster.values()
             for a in addrs}
    inodes = set()
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        try:
            with open(table) as f:
                rows = f.read().splitlines()[1:]
        except OSError:
            continue
        for row in rows:
            fields = row.split()
            # State 0A is LISTEN.
            if fields[3] == "0A" and int(fields[1].rsplit(":", 1)[1],
                                         16) in ports:
                inodes.add(fields[9])
    pids = set()
    for fd in glob.glob("/proc/[0-9]*/fd/*"):
        try:
            link = os.readlink(fd)
        except OSError:
            continue
        if link.startswith("socket:[") and link[8:-1] in inodes:
            pids.add(int(fd.split("/")[2]))
    return sorted(pids)


def cpu_seconds(pids):
    """CPU seconds the processes' live threads have run, in nanoseconds'
    resolution (/proc/PID/task/TID/schedstat; /proc/PID/stat counts 10 ms
    ticks, too coarse for a few hundred short steps). A thread that exited
    takes its time with it: the servers' threads live as long as they do."""
    total = 0
    for pid in pids:
        for stat in glob.glob(f"/proc/{pid}/task/*/schedstat"):
            try:
                with open(stat) as f:
                    total += int(f.read().split()[0])
            except (OSError, ValueError, IndexError):
                continue
    return total / 1e9
