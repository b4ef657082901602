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
- distributed_epoch mode: each element once, both services splitting the
  epoch between their workers (range, from_tensor_slices, TextLineDataset
  files, list_files + flat_map): on dfx's, every worker served some (each
  worker logs how many elements each of its tasks made); a source that
  cannot be split is TensorFlow's error;
- static sharding (FILE, DATA, FILE_OR_DATA, HINT) over a dispatcher with
  worker_addresses: each of two workers reads its share;
- a dfx worker stopped: after the dispatcher's 10 s the epoch is read once,
  from the worker left (dfx's DataServiceDataset then reads that one, in
  parallel_epochs and distributed_epoch);
- a dfx dispatcher with --work-dir killed (SIGKILL) in the middle of a
  distributed_epoch read and started again at its port: the read goes on,
  each element once, and the dataset id is served again;
- a dispatcher and a worker with --data-dir: a TextLineDataset of a file
  inside the directory is read, one outside fails PermissionDenied.

    $(tools/tf_env) tests/interop/dfx_data_service_server.py --dfx build/bin/dfx

Exit status: 0 when everything matches, 1 otherwise.
"""

import argparse
import os
import shutil
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


def distributed_epoch(address, files):
    """{name: sorted elements or the error's name} of distributed_epoch
    reads of several splittable sources."""
    svc = "grpc://" + address
    sources = {
        "range": tf.data.Dataset.range(20).map(lambda x: x * 2),
        "from_tensor_slices": tf.data.Dataset.from_tensor_slices(
            tf.range(12, dtype=tf.int64)).repeat(2),
        "TextLineDataset": tf.data.TextLineDataset(files),
        "list_files": tf.data.Dataset.list_files(
            os.path.join(os.path.dirname(files[0]), "*.txt"),
            shuffle=False).flat_map(tf.data.TextLineDataset),
        # (TensorFlow's CsvDataset has no split provider; its random()
        # and zip() have, dfx's do not: not compared.)
        "not splittable": tf.data.experimental.CsvDataset(
            [files[0]], [tf.string]),
    }
    out = {}
    for name, ds in sources.items():
        try:
            out[name] = sorted(plain(list(ds.apply(service.distribute(
                "distributed_epoch", svc)).as_numpy_iterator())))
        except tf.errors.OpError as err:
            out[name] = type(err).__name__
    return out


def static_sharding(address, files):
    """{policy: sorted elements or the error's name} of the static sharding
    policies over two workers (each reads its share)."""
    svc = "grpc://" + address
    policy = service.ShardingPolicy
    reads = {
        "DATA range": (policy.DATA, tf.data.Dataset.range(10)),
        "FILE_OR_DATA range": (policy.FILE_OR_DATA,
                               tf.data.Dataset.range(7).map(lambda x: x * 5)),
        "FILE files": (policy.FILE, tf.data.Dataset.from_tensor_slices(
            files).flat_map(tf.data.TextLineDataset)),
        "HINT shard(SHARD_HINT)": (policy.HINT, tf.data.Dataset.range(9).shard(
            tf.data.experimental.SHARD_HINT, tf.data.experimental.SHARD_HINT)),
    }
    out = {}
    for name, (mode, ds) in reads.items():
        try:
            out[name] = sorted(plain(list(ds.apply(service.distribute(
                mode, svc)).as_numpy_iterator())))
        except tf.errors.OpError as err:
            out[name] = type(err).__name__
    return out


def static_services(dfx, directory, files):
    """static_sharding through TensorFlow's service and dfx's, each a
    dispatcher with worker_addresses localhost:%port% twice and two
    workers."""
    tf_dispatcher = service.DispatchServer(service.DispatcherConfig(
        worker_addresses=["localhost:%port%"] * 2))
    tf_address = tf_dispatcher.target.split("://")[1]
    tf_workers = [service.WorkerServer(service.WorkerConfig(  # noqa: F841
        dispatcher_address=tf_address)) for _ in range(2)]
    d = subprocess.Popen([dfx, "data-service", "dispatcher", "--port", "0",
                          "--worker-addresses",
                          "localhost:%port%,localhost:%port%"],
                         stdout=subprocess.PIPE, text=True)
    procs = [d]
    try:
        address = d.stdout.readline().split()[-1]
        for _ in range(2):
            procs.append(subprocess.Popen(
                [dfx, "data-service", "worker", "--dispatcher", address,
                 "--port", str(free_port())], stdout=subprocess.DEVNULL))
        time.sleep(1)
        return static_sharding(tf_address, files), static_sharding(
            address, files)
    finally:
        for p in procs:
            p.terminate()
        for p in procs:
            try:
                p.wait(timeout=30)
            except subprocess.TimeoutExpired:
                p.kill()


def confined(dfx, directory):
    """A dispatcher and a worker with --data-dir: {what: the lines read, or
    the error's name} for a file inside the directory and one outside."""
    inside = os.path.join(directory, "confined")
    os.makedirs(inside, exist_ok=True)
    ok_file = os.path.join(inside, "in.txt")
    with open(ok_file, "w") as f:
        f.write("inside 0\ninside 1\n")
    out_file = os.path.join(directory, "outside.txt")
    with open(out_file, "w") as f:
        f.write("secret\n")
    d = subprocess.Popen([dfx, "data-service", "dispatcher", "--port", "0",
                          "--data-dir", inside],
                         stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                         text=True)
    procs = [d]
    out = {}
    try:
        address = d.stdout.readline().split()[-1]
        procs.append(subprocess.Popen(
            [dfx, "data-service", "worker", "--dispatcher", address,
             "--port", str(free_port()), "--data-dir", inside],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
        for name, path in (("inside", ok_file), ("outside", out_file)):
            for mode in ("parallel_epochs", "distributed_epoch"):
                try:
                    out[f"{name} {mode}"] = sorted(plain(list(
                        tf.data.TextLineDataset([path]).apply(
                            service.distribute(mode, "grpc://" + address))
                        .as_numpy_iterator())))
                except tf.errors.OpError as err:
                    out[f"{name} {mode}"] = type(err).__name__
        return out
    finally:
        for p in procs:
            p.terminate()
        for p in procs:
            try:
                p.wait(timeout=30)
            except subprocess.TimeoutExpired:
                p.kill()


def restart(dfx, directory):
    """A dispatcher with --work-dir, SIGKILLed in the middle of a
    distributed_epoch read and started again: what the read got, the
    dataset read again by its id (parallel_epochs: each worker an epoch),
    and the workers' element counts."""
    port = free_port()
    work = os.path.join(directory, "work")

    def start_dispatcher():
        p = subprocess.Popen([dfx, "data-service", "dispatcher", "--port",
                              str(port), "--work-dir", work],
                             stdout=subprocess.PIPE, text=True)
        p.stdout.readline()
        return p

    procs = [start_dispatcher()]
    logs = [os.path.join(directory, f"w{i}.log") for i in range(2)]
    try:
        for log in logs:
            with open(log, "w") as f:
                procs.append(subprocess.Popen(
                    [dfx, "data-service", "worker", "--dispatcher",
                     f"localhost:{port}", "--port", str(free_port())],
                    stdout=subprocess.DEVNULL, stderr=f))
        svc = f"grpc://localhost:{port}"
        ds = tf.data.Dataset.range(60).map(lambda x: x + 100)
        id_before = service.register_dataset(svc, ds)
        it = iter(service.from_dataset_id(
            "distributed_epoch", svc, id_before, ds.element_spec))
        got = [int(next(it)) for _ in range(20)]
        procs[0].kill()
        procs[0].wait(timeout=30)
        time.sleep(1)
        procs[0] = start_dispatcher()
        deadline = time.time() + 120
        for x in it:
            got.append(int(x))
            if time.time() > deadline:
                break
        # The restarted dispatcher serves the dataset by its id.
        again = sorted(int(x) for x in service.from_dataset_id(
            "parallel_epochs", svc, id_before, ds.element_spec))
    finally:
        for p in procs:
            p.terminate()
        for p in procs:
            try:
                p.wait(timeout=30)
            except subprocess.TimeoutExpired:
                p.kill()
    return sorted(got), again, served(logs)


def served(logs):
    """How many elements each worker's tasks made (its log lines)."""
    counts = []
    for log in logs:
        n = 0
        with open(log) as f:
            for line in f:
                if " ended after " in line:
                    n += int(line.split(" ended after ")[1].split()[0])
        counts.append(n)
    return counts


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
        got = {}
        for mode in ("parallel_epochs", "distributed_epoch"):
            graph = tf.Graph()
            with graph.as_default():
                ds = tf.data.Dataset.range(6).map(lambda x: x * 3).apply(
                    service.distribute(mode, "grpc://" + address))
                x = tf.compat.v1.data.make_one_shot_iterator(ds).get_next()
            got[mode] = []
            with tf.compat.v1.Session(target, graph=graph) as sess:
                while len(got[mode]) < 100:
                    try:
                        got[mode].append(int(sess.run(x)))
                    except tf.errors.OutOfRangeError:
                        break
            got[mode].sort()
        return got
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
    tmpdir = tempfile.mkdtemp(prefix="dfx-ds-")
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
        logs = [os.path.join(tmpdir, f"worker{i}.log") for i in range(2)]
        for log in logs:
            port = free_port()
            with open(log, "w") as f:
                procs.append(subprocess.Popen(
                    [args.dfx, "data-service", "worker", "--dispatcher",
                     dfx_address, "--port", str(port)],
                    stdout=subprocess.DEVNULL, stderr=f))
        expected = scenarios(tf_address)
        actual = scenarios(dfx_address)
        files = []
        for i in range(3):
            files.append(os.path.join(tmpdir, f"f{i}.txt"))
            with open(files[-1], "w") as f:
                f.write("".join(f"file{i} line{j}\n" for j in range(4)))
        de_tf = distributed_epoch(tf_address, files)
        de_dfx = distributed_epoch(dfx_address, files)
        de_served = served(logs)
        static_tf, static_dfx = static_services(args.dfx, tmpdir, files)
        restarted = restart(args.dfx, tmpdir)
        confinement = confined(args.dfx, tmpdir)
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
    for name, want in de_tf.items():
        got = de_dfx[name]
        ok = got == want
        failed += not ok
        print(f"{'ok' if ok else 'FAIL'} distributed_epoch {name}: dfx "
              f"service {got}" + ("" if ok else f", TensorFlow's {want}"))
    ok = de_tf["range"] == [2 * x for x in range(20)]
    failed += not ok
    print(f"{'ok' if ok else 'FAIL'} distributed_epoch range: each element "
          "once")
    ok = all(n > 0 for n in de_served)
    failed += not ok
    print(f"{'ok' if ok else 'FAIL'} distributed_epoch: every dfx worker "
          f"served some (elements per worker {de_served})")
    for name, want in static_tf.items():
        got = static_dfx[name]
        ok = got == want and not isinstance(want, str)
        failed += not ok
        print(f"{'ok' if ok else 'FAIL'} static sharding {name}: dfx "
              f"service {got}" + ("" if ok else f", TensorFlow's {want}"))
    got, again, counts = restarted
    ok = got == list(range(100, 160)) and all(n > 0 for n in counts)
    failed += not ok
    print(f"{'ok' if ok else 'FAIL'} dispatcher killed and restarted with "
          f"--work-dir: read {got}, elements per worker {counts}")
    ok = again == sorted(list(range(100, 160)) * 2)
    failed += not ok
    print(f"{'ok' if ok else 'FAIL'} the restarted dispatcher serves the "
          f"dataset id: {len(again)} elements")
    for mode in ("parallel_epochs", "distributed_epoch"):
        got = (confinement[f"inside {mode}"], confinement[f"outside {mode}"])
        ok = got == (["inside 0", "inside 1"], "PermissionDeniedError")
        failed += not ok
        print(f"{'ok' if ok else 'FAIL'} --data-dir, {mode}: a file inside "
              f"read, one outside refused: {got}")
    ok = lost == [0, 1, 2, 3]
    failed += not ok
    print(f"{'ok' if ok else 'FAIL'} a worker stopped: one epoch {lost}")
    want = {m: [3 * x for x in range(6)]
            for m in ("parallel_epochs", "distributed_epoch")}
    ok = from_dfx == want
    failed += not ok
    print(f"{'ok' if ok else 'FAIL'} dfx's DataServiceDataset on dfx's "
          f"service: {from_dfx}")
    # Without the servers' destructors: a TensorFlow worker stopping waits
    # for its tasks.
    shutil.rmtree(tmpdir, ignore_errors=True)
    sys.stdout.flush()
    os._exit(1 if failed else 0)


if __name__ == "__main__":
    main()
