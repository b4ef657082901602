"""A TensorFlow 2.21 client's tf.data service graphs run on a dfx cluster:
dfx registers datasets with TensorFlow's dispatcher and reads their
elements from TensorFlow's workers, and gets what TensorFlow's own session
gets from the same service.

TensorFlow's servers (tf.data.experimental.service.DispatchServer and two
WorkerServers) run in a subprocess of this script (`--serve`); a local dfx
cluster (one worker task, `dfx cluster up`) runs the graphs. Scenarios:
- distribute() in parallel_epochs mode (each worker an epoch) of
  range(6).map(x * 3), compressed (AUTO) and uncompressed (None);
- elements of several components (int64, string, float matrix, bool);
- target_workers ANY (AUTO is the default of the other scenarios);
- distributed_epoch mode: the epoch split between the workers (sorted);
- register on one side, read on the other: RegisterDatasetV2 on dfx and
  from_dataset_id on TensorFlow, and the reverse;
- a shared job (job_name): two readers in one run split one job's
  elements (their union sorted is the same);
- round-robin reads: two consumers (consumer_index 0 and 1 of
  num_consumers 2) of an infinite dataset read six rounds in lockstep;
- target_workers LOCAL without a worker in the reading process, and a
  cross-trainer cache of a finite dataset: TensorFlow's error code and
  message;
- distributed_save (DistributedSave): a snapshot written through
  TensorFlow's dispatcher from dfx, loaded (tf.data.Dataset.load) in
  TensorFlow and in dfx, and one TensorFlow saved loaded in dfx; saving
  twice to one directory and saving an infinite dataset: TensorFlow's
  error class from both;
- a read that waits on workers with nothing to give, and an unreachable
  dispatcher: dfx's run ends by the run's timeout
  (DeadlineExceeded) within seconds, no hang (dfx only: TensorFlow's
  kernel retries for 60 minutes).

    $(tools/tf_env) tests/interop/tf_data_service_client.py --dfx build/bin/dfx

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

tf1 = tf.compat.v1
service = tf.data.experimental.service


def serve():
    """Starts a dispatcher and two workers, and a fault-tolerant dispatcher
    (distributed snapshots need one) with a worker of its own; prints the
    dispatchers' addresses on one line and serves until stdin closes."""
    dispatcher = service.DispatchServer()
    address = dispatcher.target.split("://")[1]
    workers = [
        service.WorkerServer(service.WorkerConfig(dispatcher_address=address))
        for _ in range(2)
    ]
    work_dir = tempfile.mkdtemp(prefix="dfx-dispatcher-")
    ft_dispatcher = service.DispatchServer(service.DispatcherConfig(
        work_dir=work_dir, fault_tolerant_mode=True))
    ft_address = ft_dispatcher.target.split("://")[1]
    workers.append(service.WorkerServer(
        service.WorkerConfig(dispatcher_address=ft_address)))
    print(address, ft_address, flush=True)
    sys.stdin.read()
    # Without running the servers' destructors: a worker stopping waits
    # for its tasks, and a task of an infinite dataset never ends.
    sys.stdout.flush()
    shutil.rmtree(work_dir, ignore_errors=True)
    os._exit(0)


def read_all(sess, next_element, limit=100):
    out = []
    while len(out) < limit:
        try:
            out.append(sess.run(next_element))
        except tf.errors.OutOfRangeError:
            break
    return out


def plain(value):
    """A comparable form of an element."""
    if isinstance(value, (tuple, list)):
        return tuple(plain(v) for v in value)
    if isinstance(value, np.ndarray):
        return (str(value.dtype), value.shape, value.tolist())
    if isinstance(value, bytes):
        return value.decode()
    if isinstance(value, np.generic):
        return value.item()
    return value


def error_name(fn, words=None):
    """The error class fn() raises ("ok" if none), and whether its
    message has `words` when given."""
    try:
        fn()
    except tf.errors.OpError as err:
        if words is not None:
            return type(err).__name__, words in err.message
        return type(err).__name__
    return "ok"


def scenarios(target, address):
    """{name: comparable result} of every scenario, run in a session on
    `target` ('' for TensorFlow's own)."""
    out = {}
    svc = "grpc://" + address

    def run(name, build, fn):
        graph = tf.Graph()
        with graph.as_default():
            t = build()
        with tf1.Session(target, graph=graph) as sess:
            out[name] = fn(sess, t)

    def it(ds):
        return tf1.data.make_one_shot_iterator(ds).get_next()

    for compression in ("AUTO", None):
        run(f"parallel_epochs compression={compression}",
            lambda c=compression: it(tf.data.Dataset.range(6).map(
                lambda x: x * 3).apply(service.distribute(
                    "parallel_epochs", svc, compression=c))),
            lambda s, t: sorted(plain(read_all(s, t))))

    run("target_workers ANY",
        lambda: it(tf.data.Dataset.range(4).apply(service.distribute(
            "parallel_epochs", svc, target_workers="ANY"))),
        lambda s, t: sorted(plain(read_all(s, t))))

    def components():
        ds = tf.data.Dataset.range(4).map(lambda x: (
            x, tf.strings.as_string(x * 7),
            tf.fill([2, 3], tf.cast(x, tf.float32)), tf.equal(x % 2, 0)))
        return it(ds.apply(service.distribute("parallel_epochs", svc)))
    run("components", components, lambda s, t: sorted(plain(read_all(s, t))))

    run("distributed_epoch",
        lambda: it(tf.data.Dataset.range(20).apply(service.distribute(
            "distributed_epoch", svc))),
        lambda s, t: sorted(plain(read_all(s, t))))

    def register():
        ds = tf.data.Dataset.range(5).map(lambda x: x + 100)
        return service.register_dataset(svc, ds)
    run("register_dataset", register, lambda s, t: s.run(t).decode() != "")

    def shared_job():
        ds = tf.data.Dataset.range(8)
        a = it(ds.apply(service.distribute(
            "parallel_epochs", svc, job_name="shared" + (target or "tf"))))
        b = it(ds.apply(service.distribute(
            "parallel_epochs", svc, job_name="shared" + (target or "tf"))))
        return a, b

    def read_shared(s, t):
        got = []
        for _ in range(40):
            for x in t:
                try:
                    got.append(int(s.run(x)))
                except tf.errors.OutOfRangeError:
                    pass
        return sorted(got)
    run("shared job", shared_job, read_shared)

    def round_robin():
        ds = tf.data.Dataset.range(1000000).repeat()
        name = "rr" + (target or "tf")
        return [it(ds.apply(service.distribute(
            "parallel_epochs", svc, job_name=name, consumer_index=i,
            num_consumers=2))) for i in range(2)]

    def read_rounds(s, t):
        # Both consumers in one run: a round completes when each has read.
        rounds = [tuple(int(v) for v in s.run(t)) for _ in range(6)]
        return sorted(rounds)
    run("round robin", round_robin, read_rounds)

    def local():
        return it(tf.data.Dataset.range(3).apply(service.distribute(
            "parallel_epochs", svc, target_workers="LOCAL")))
    run("target_workers LOCAL", local,
        lambda s, t: error_name(lambda: s.run(t), "Local reads require "
                                "local tf.data workers, but no local worker "
                                "is found."))

    def cache_finite():
        return it(tf.data.Dataset.range(3).apply(service.distribute(
            "parallel_epochs", svc, job_name="cache" + (target or "tf"),
            cross_trainer_cache=service.CrossTrainerCache("trainer"))))
    run("cross-trainer cache of a finite dataset", cache_finite,
        lambda s, t: error_name(lambda: s.run(t), "Cross-trainer caching "
                                "requires the input dataset to be infinite. "
                                "Got input with cardinality 3"))
    return out


def cross(dfx_target, address):
    """Registration on one side, reading on the other."""
    out = {}
    svc = "grpc://" + address
    element_spec = tf.TensorSpec([], tf.int64)
    for reg, read in ((dfx_target, ""), ("", dfx_target)):
        graph = tf.Graph()
        with graph.as_default():
            ds = tf.data.Dataset.range(5).map(lambda x: x * x + 1)
            dataset_id = service.register_dataset(svc, ds)
        with tf1.Session(reg, graph=graph) as sess:
            id_value = sess.run(dataset_id).decode()
        graph = tf.Graph()
        with graph.as_default():
            got = tf1.data.make_one_shot_iterator(service.from_dataset_id(
                "parallel_epochs", svc, id_value, element_spec)).get_next()
        with tf1.Session(read, graph=graph) as sess:
            out[f"register on {'dfx' if reg else 'tf'}"] = sorted(
                plain(read_all(sess, got)))
    return out


def snapshots(dfx_target, address, plain_address, directory):
    """distributed_save and Dataset.load across dfx and TensorFlow through
    the fault-tolerant dispatcher at `address`: {name: comparable result},
    the same for every save and load side. A save through the dispatcher at
    `plain_address` (not fault tolerant) is TensorFlow's InvalidArgument."""
    out = {}

    def save(target, path, infinite=False, svc=address):
        graph = tf.Graph()
        with graph.as_default():
            ds = tf.data.Dataset.range(10).map(lambda x: x * 2)
            if infinite:
                ds = ds.repeat()
            op = tf.data.experimental.distributed_save(ds, path, svc)
        with tf1.Session(target, graph=graph) as sess:
            return error_name(lambda: sess.run(op))

    def load(target, path):
        graph = tf.Graph()
        with graph.as_default():
            x = tf1.data.make_one_shot_iterator(
                tf.data.Dataset.load(path, wait=True)).get_next()
        with tf1.Session(target, graph=graph) as sess:
            return sorted(plain(read_all(sess, x)))

    sides = (("dfx", dfx_target), ("tf", ""))
    for name, target in sides:
        path = os.path.join(directory, "save_" + name)
        out[f"distributed_save on {name}"] = save(target, path)
        out[f"distributed_save twice on {name}"] = save(target, path)
        out[f"distributed_save infinite on {name}"] = save(
            target, path + "_inf", infinite=True)
        out[f"distributed_save not fault tolerant on {name}"] = save(
            target, path + "_nft", svc=plain_address)
        for load_name, load_target in sides:
            out[f"saved on {name}, loaded on {load_name}"] = load(
                load_target, path)
    return out


def unreachable(dfx_target):
    """An unreachable dispatcher: DeadlineExceeded by the run's timeout."""
    with socket.socket() as s:
        s.bind(("localhost", 0))
        port = s.getsockname()[1]
    graph = tf.Graph()
    with graph.as_default():
        ds = tf.data.Dataset.range(3).apply(service.distribute(
            "parallel_epochs", f"grpc://localhost:{port}"))
        x = tf1.data.make_one_shot_iterator(ds).get_next()
    start = time.time()
    with tf1.Session(dfx_target, graph=graph) as sess:
        name = error_name(lambda: sess.run(
            x, options=tf1.RunOptions(timeout_in_ms=3000)))
    return name, time.time() - start


def starved(dfx_target, address):
    """A read waiting on workers that have nothing to give (a filter that
    drops every element of an infinite range): DeadlineExceeded by the
    run's timeout, the worker's pending GetElement cancelled."""
    graph = tf.Graph()
    with graph.as_default():
        ds = tf.data.Dataset.range(10**12).filter(lambda x: x < 0)
        x = tf1.data.make_one_shot_iterator(ds.apply(service.distribute(
            "parallel_epochs", "grpc://" + address))).get_next()
    start = time.time()
    with tf1.Session(dfx_target, graph=graph) as sess:
        name = error_name(lambda: sess.run(
            x, options=tf1.RunOptions(timeout_in_ms=3000)))
    return name, time.time() - start


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--dfx", help="the dfx binary")
    parser.add_argument("--serve", action="store_true",
                        help="(internal) run TensorFlow's servers")
    args = parser.parse_args()
    if args.serve:
        serve()
        return 0
    tf1.disable_eager_execution()
    servers = subprocess.Popen([sys.executable, __file__, "--serve"],
                               stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                               text=True)
    try:
        address, _, ft_address = servers.stdout.readline().strip().partition(
            " ")
        if not address or not ft_address:
            print("TensorFlow's tf.data servers did not start",
                  file=sys.stderr)
            return 1
        expected = scenarios("", address)
        with tempfile.TemporaryDirectory(prefix="dfx-dataservice-") as d:
            up = subprocess.run([args.dfx, "cluster", "up", "--workers", "1",
                                 "--dir", d],
                                capture_output=True, text=True, timeout=120)
            if up.returncode != 0:
                print("dfx cluster up failed:", up.stderr, file=sys.stderr)
                return 1
            target = up.stdout.strip().splitlines()[-1]
            try:
                actual = scenarios(target, address)
                both = cross(target, address)
                saved = snapshots(target, ft_address, address, d)
                error, seconds = unreachable(target)
                starved_error, starved_seconds = starved(target, address)
            finally:
                subprocess.run([args.dfx, "cluster", "down", "--dir", d],
                               capture_output=True, timeout=60)
    finally:
        servers.stdin.close()
        try:
            servers.wait(timeout=60)
        except subprocess.TimeoutExpired:
            servers.kill()
            servers.wait()
    failed = 0
    for name, want in expected.items():
        got = actual[name]
        ok = got == want
        failed += not ok
        print(f"{'ok' if ok else 'FAIL'} {name}: dfx {got}"
              + ("" if ok else f", TensorFlow {want}"))
    # Each of the two workers reads a whole epoch (parallel_epochs).
    want_cross = sorted(2 * [x * x + 1 for x in range(5)])
    for name, got in both.items():
        ok = got == want_cross
        failed += not ok
        print(f"{'ok' if ok else 'FAIL'} {name}: {got}")
    want_saved = sorted(2 * x for x in range(10))
    for name, got in saved.items():
        if name.startswith("saved on"):
            want = want_saved
        elif "twice" in name:
            want = "AlreadyExistsError"
        elif "infinite" in name or "not fault tolerant" in name:
            want = "InvalidArgumentError"
        else:
            want = "ok"
        ok = got == want
        failed += not ok
        print(f"{'ok' if ok else 'FAIL'} {name}: {got}"
              + ("" if ok else f", want {want}"))
    ok = error == "DeadlineExceededError" and seconds < 30
    failed += not ok
    print(f"{'ok' if ok else 'FAIL'} unreachable dispatcher: {error} "
          f"after {seconds:.1f} s")
    ok = starved_error == "DeadlineExceededError" and starved_seconds < 30
    failed += not ok
    print(f"{'ok' if ok else 'FAIL'} read with nothing to read: "
          f"{starved_error} after {starved_seconds:.1f} s")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
