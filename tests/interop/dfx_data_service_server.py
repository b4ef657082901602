"""TensorFlow 2.21's tf.data service client reads from dfx's own
dispatcher and workers (`dfx data-service dispatcher|worker`, each in a
process of its own) and gets what it gets from TensorFlow's own service
(a DispatchServer and two WorkerServers in this process); dfx's
DataServiceDataset (a graph run on a one-worker dfx cluster) reads dfx's
service too.

Scenarios, each read through both services:
- distribute() in parallel_epochs mode (each of the two workers an epoch)
  of range(6).map(x * 3), compressed (AUTO) and uncompressed (None);
- elements of several components (int64, string, float matrix, bool);
- register_dataset then from_dataset_id;
- a shared job (job_name): two readers split one job's elements;
- distributed_epoch mode: each element once (TensorFlow's service splits
  the epoch between its workers, dfx's reads it on one worker);
- a dfx worker stopped: after the dispatcher's 10 s the epoch is read once,
  from the worker left (dfx's DataServiceDataset then reads that one).

    $(tools/tf_env) tests/interop/dfx_data_service_server.py --dfx build/bin/dfx

Exit status: 0 when everything matches, 1 otherwise.
"""

import argparse
import os
import socket
import subprocess
import sys
import tempfile
import time

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")

import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402

service = tf.data.experimental.service


def free_port():
    with socket.socket() as s:
        s.bind(("localhost", 0))
        return s.getsockname()[1]


def plain(value):
    if isinstance(value, (tuple, list)):
        return tuple(plain(v) for v in value)
    if isinstance(value, np.ndarray):
        return (str(value.dtype), value.shape, value.tolist())
    if isinstance(value, bytes):
        return value.decode()
    if isinstance(value, np.generic):
        return value.item()
    return value


def scenarios(address):
    """{name: comparable result} of every scenario against the service
    at `address` (eager TensorFlow)."""
    svc = "grpc://" + address
    out = {}
    for compression in ("AUTO", None):
        ds = tf.data.Dataset.range(6).map(lambda x: x * 3).apply(
            service.distribute("parallel_epochs", svc,
                               compression=compression))
        out[f"parallel_epochs compression={compression}"] = sorted(
            plain(list(ds.as_numpy_iterator())))

    ds = tf.data.Dataset.range(4).map(lambda x: (
        x, tf.strings.as_string(x * 7),
        tf.fill([2, 3], tf.cast(x, tf.float32)), tf.equal(x % 2, 0)))
    out["components"] = sorted(plain(list(ds.apply(service.distribute(
        "parallel_epochs", svc)).as_numpy_iterator())))

    ds = tf.data.Dataset.range(5).map(lambda x: x * x + 1)
    # (TensorFlow's dispatcher gives a second registration of this
    # pipeline another id: its fingerprint sees the dataset ops' metadata
    # names, which change; dfx's leaves them out and gives the same id.)
    dataset_id = service.register_dataset(svc, ds)
    read = service.from_dataset_id("parallel_epochs", svc, dataset_id,
                                   ds.element_spec)
    out["register_dataset, from_dataset_id"] = sorted(
        plain(list(read.as_numpy_iterator())))

    ds = tf.data.Dataset.range(8)
    name = "shared"
    a = iter(ds.apply(service.distribute("parallel_epochs", svc,
                                         job_name=name)))
    b = iter(ds.apply(service.distribute("parallel_epochs", svc,
                                         job_name=name)))
    got = []
    for it in (a, b) * 20:
        try:
            got.append(int(next(it)))
        except StopIteration:
            pass
    out["shared job"] = sorted(got)
    return out


def distributed_epoch(address):
    ds = tf.data.Dataset.range(10).apply(service.distribute(
        "distributed_epoch", "grpc://" + address))
    try:
        return sorted(int(x) for x in ds)
    except tf.errors.OpError as err:
        return type(err).__name__


def dfx_client(dfx, address, directory):
    """dfx's DataServiceDataset on a dfx cluster reading the service."""
    tf.compat.v1.disable_eager_execution()
    up = subprocess.run([dfx, "cluster", "up", "--workers", "1", "--dir",
                         directory], capture_output=True, text=True,
                        timeout=120)
    if up.returncode != 0:
        return "dfx cluster up failed: " + up.stderr
    target = up.stdout.strip().splitlines()[-1]
    try:
        graph = tf.Graph()
        with graph.as_default():
            ds = tf.data.Dataset.range(6).map(lambda x: x * 3).apply(
                service.distribute("parallel_epochs", "grpc://" + address))
            x = tf.compat.v1.data.make_one_shot_iterator(ds).get_next()
        got = []
        with tf.compat.v1.Session(target, graph=graph) as sess:
            while len(got) < 100:
                try:
                    got.append(int(sess.run(x)))
                except tf.errors.OutOfRangeError:
                    break
        return sorted(got)
    finally:
        subprocess.run([dfx, "cluster", "down", "--dir", directory],
                       capture_output=True, timeout=60)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--dfx", required=True, help="the dfx binary")
    args = parser.parse_args()

    dispatcher = service.DispatchServer()
    tf_address = dispatcher.target.split("://")[1]
    tf_workers = [service.WorkerServer(service.WorkerConfig(
        dispatcher_address=tf_address)) for _ in range(2)]

    procs = []
    try:
        d = subprocess.Popen([args.dfx, "data-service", "dispatcher",
                              "--port", "0"], stdout=subprocess.PIPE,
                             text=True)
        procs.append(d)
        line = d.stdout.readline().split()
        if not line:
            print("dfx's dispatcher did not start", file=sys.stderr)
            return 1
        dfx_address = line[-1]
        for _ in range(2):
            port = free_port()
            procs.append(subprocess.Popen(
                [args.dfx, "data-service", "worker", "--dispatcher",
                 dfx_address, "--port", str(port)],
                stdout=subprocess.DEVNULL))
        expected = scenarios(tf_address)
        actual = scenarios(dfx_address)
        de_tf = distributed_epoch(tf_address)
        de_dfx = distributed_epoch(dfx_address)
        # A worker that stops: once the dispatcher has given up on it
        # (10 s without a heartbeat), a read is one epoch, the other
        # worker's.
        procs[2].terminate()
        procs[2].wait(timeout=30)
        time.sleep(12)
        lost = sorted(int(x) for x in tf.data.Dataset.range(4).apply(
            service.distribute("parallel_epochs", "grpc://" + dfx_address)))
        with tempfile.TemporaryDirectory(prefix="dfx-ds-server-") as tmp:
            from_dfx = dfx_client(args.dfx, dfx_address, tmp)
    finally:
        for p in procs:
            p.terminate()
        for p in procs:
            try:
                p.wait(timeout=30)
            except subprocess.TimeoutExpired:
                p.kill()
    failed = 0
    for name, want in expected.items():
        got = actual[name]
        ok = got == want
        failed += not ok
        print(f"{'ok' if ok else 'FAIL'} {name}: dfx service {got}"
              + ("" if ok else f", TensorFlow's {want}"))
    ok = de_tf == list(range(10)) and de_dfx == de_tf
    failed += not ok
    print(f"{'ok' if ok else 'FAIL'} distributed_epoch: TensorFlow's "
          f"{de_tf}, dfx's {de_dfx}")
    ok = lost == [0, 1, 2, 3]
    failed += not ok
    print(f"{'ok' if ok else 'FAIL'} a worker stopped: one epoch {lost}")
    want = [3 * x for x in range(6)]
    ok = from_dfx == want
    failed += not ok
    print(f"{'ok' if ok else 'FAIL'} dfx's DataServiceDataset on dfx's "
          f"service: {from_dfx}")
    # Without the servers' destructors: a TensorFlow worker stopping waits
    # for its tasks.
    sys.stdout.flush()
    os._exit(1 if failed else 0)


if __name__ == "__main__":
    main()
