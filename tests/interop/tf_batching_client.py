"""A TensorFlow 2.21 client runs batched graphs on a dfx cluster from
several threads at once, as TensorFlow Serving runs a SavedModel exported
with in-graph batching: one session, concurrent Session.run calls.

Starts a local dfx cluster (two worker tasks, `dfx cluster up`) and, with
the batching nodes on the second task:
- BatchFunction: four concurrent runs of one row each meet in one batch of
  4 (the function returns each row's batch size; the batch waits a minute
  for its fourth row, so a run that ran alone would fail the test by its
  deadline), and each gets its own row back; the same graph in TensorFlow's
  own session gives the same answers;
- a lone run closes its batch after batch_timeout_micros, padded up to
  allowed_batch_sizes;
- an error of the function reaches both runs of its batch (InvalidArgument);
- Batch then Unbatch: three concurrent runs each get their own rows back
  through the batch that went out with one of them.

    $(tools/tf_env) tests/interop/tf_batching_client.py --dfx build/bin/dfx

Exit status: 0 when everything matches, 1 otherwise.
"""

import argparse
import os
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")

import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402
from tensorflow.python.framework import function  # noqa: E402

tf1 = tf.compat.v1
tf1.disable_eager_execution()

DEVICE = "/job:worker/replica:0/task:1/device:CPU:0"


def build_graph(device):
    graph = tf.Graph()
    with graph.as_default():
        @function.Defun(tf.float32)
        def f(x):
            n = tf.cast(tf.shape(x)[0], tf.float32)
            return tf.debugging.check_numerics(x, "bad row"), tf.fill(
                tf.shape(x), n)

        x = tf1.placeholder(tf.float32, [None], name="x")
        with tf.device(device):
            full = tf.raw_ops.BatchFunction(
                in_tensors=[x], captured_tensors=[], f=f,
                Tout=[tf.float32, tf.float32], num_batch_threads=2,
                max_batch_size=4, batch_timeout_micros=60000000,
                name="full")
            padded = tf.raw_ops.BatchFunction(
                in_tensors=[x], captured_tensors=[], f=f,
                Tout=[tf.float32, tf.float32], num_batch_threads=2,
                max_batch_size=8, allowed_batch_sizes=[2, 8],
                batch_timeout_micros=20000, name="padded")
            pair = tf.raw_ops.BatchFunction(
                in_tensors=[x], captured_tensors=[], f=f,
                Tout=[tf.float32, tf.float32], num_batch_threads=2,
                max_batch_size=2, batch_timeout_micros=60000000,
                name="pair")
            batched, index, rid = tf.raw_ops.Batch(
                in_tensors=[x], num_batch_threads=1, max_batch_size=3,
                batch_timeout_micros=60000000, grad_timeout_micros=0,
                name="batch")
            back = tf.raw_ops.Unbatch(batched_tensor=batched[0],
                                      batch_index=index, id=rid,
                                      timeout_micros=60000000,
                                      name="unbatch")
    return graph, {"full": list(full), "padded": list(padded),
                   "pair": list(pair), "back": back}


def concurrent(sess, fetches, feeds):
    """Runs sess.run(fetches, {x: feed}) for every feed at once."""
    def one(value):
        try:
            return sess.run(fetches, {"x:0": value},
                            options=tf1.RunOptions(timeout_in_ms=120000))
        except tf.errors.OpError as err:
            return err
    with ThreadPoolExecutor(len(feeds)) as pool:
        return list(pool.map(one, feeds))


def scenarios(sess, t):
    """Every check's name and answers (numbers or error class names)."""
    out = {}
    rows = [np.array([float(i)], np.float32) for i in range(1, 5)]
    got = concurrent(sess, t["full"], rows)
    out["full batch of 4 concurrent runs"] = [
        (r[0].tolist(), r[1].tolist()) if not isinstance(r, Exception)
        else type(r).__name__ for r in got]
    r = sess.run(t["padded"], {"x:0": np.array([7.0], np.float32)})
    out["lone run padded after the timeout"] = (r[0].tolist(), r[1].tolist())
    got = concurrent(sess, t["pair"], [np.array([1.0], np.float32),
                                       np.array([np.inf], np.float32)])
    out["error of f reaches the batch"] = [
        type(r).__name__ if isinstance(r, Exception) else "ok" for r in got]
    got = concurrent(sess, t["back"], [np.array([1.0], np.float32),
                                       np.array([2.0], np.float32),
                                       np.array([3.0], np.float32)])
    out["Batch then Unbatch of 3 concurrent runs"] = [
        r.tolist() if not isinstance(r, Exception) else type(r).__name__
        for r in got]
    return out


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--dfx", required=True, help="the dfx binary")
    args = parser.parse_args()

    graph, t = build_graph(None)
    with tf1.Session(graph=graph) as sess:
        expected = scenarios(sess, t)

    with tempfile.TemporaryDirectory(prefix="dfx-batching-") as cluster_dir:
        up = subprocess.run([args.dfx, "cluster", "up", "--workers", "2",
                             "--dir", cluster_dir],
                            capture_output=True, text=True, timeout=120)
        if up.returncode != 0:
            print("dfx cluster up failed:", up.stderr, file=sys.stderr)
            return 1
        target = up.stdout.strip().splitlines()[-1]
        try:
            graph, t = build_graph(DEVICE)
            with tf1.Session(target, graph=graph) as sess:
                actual = scenarios(sess, t)
        finally:
            subprocess.run([args.dfx, "cluster", "down", "--dir",
                            cluster_dir], capture_output=True, timeout=60)
    failed = 0
    for name, want in expected.items():
        got = actual[name]
        status = "ok" if got == want else "FAIL"
        if got != want:
            failed += 1
            print(f"FAIL {name}: dfx {got}, TensorFlow {want}",
                  file=sys.stderr)
        print(f"{status} {name}: {got}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
