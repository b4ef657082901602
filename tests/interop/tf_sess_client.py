"""A TensorFlow 2.21 client keeps tensors in a dfx cluster's session by
handle (tf.compat.v1.get_session_handle / get_session_tensor /
TensorHandle.delete) and gets the answers TensorFlow's own session gives.

Starts a local dfx cluster (two worker tasks, `dfx cluster up`) and, with
the stored tensors on the second task:
- a handle fetched in one run reads back in later runs, by
  TensorHandle.eval() and by feeding it to get_session_tensor's
  placeholder, the value then used on the first task;
- a GetSessionTensor on another device than the handle's: TensorFlow's
  local session reads it (one process), a dfx cluster answers
  InvalidArgument saying where the tensor is when the device is on another
  task (compared with TensorFlow only where both run on one task);
- TensorHandle.delete() frees it: a later read is InvalidArgument naming
  the handle; so is an unknown handle;
- handles the client drops are deleted ten at a time (the client's
  dead-handle threshold), and then do not resolve;
- another session (another client) does not resolve the first's handle;
- a Reset of the cluster's master closes the session (dfx only).

    $(tools/tf_env) tests/interop/tf_sess_client.py --dfx build/bin/dfx

Exit status: 0 when everything matches, 1 otherwise.
"""

import argparse
import gc
import os
import subprocess
import sys
import tempfile

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")

import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402

tf1 = tf.compat.v1
tf1.disable_eager_execution()

STORE = "/job:worker/replica:0/task:1/device:CPU:0"
OTHER = "/job:worker/replica:0/task:0/device:CPU:0"


def error_name(fn):
    try:
        fn()
    except tf.errors.OpError as err:
        return type(err).__name__
    return "ok"


def scenarios(target, store, other):
    """Runs every scenario in a session on `target` ('' for TensorFlow's
    own) with the tensors stored on `store` and the other reader on
    `other`; returns {name: comparable result}."""
    out = {}
    graph = tf.Graph()
    with graph.as_default():
        a = tf1.placeholder(tf.float32, [None], name="a")
        with tf.device(store):
            h = tf1.get_session_handle(a * 2, name="h")
        config = tf1.ConfigProto(operation_timeout_in_ms=60000)
        sess = tf1.Session(target, graph=graph, config=config)
        hv = sess.run(h, {a: [1.0, 2.0]})
        out["handle_names_node_and_id"] = hv.handle.rsplit(";", 1)[0]
        out["handle_names_store_device"] = (
            hv.handle.rsplit(";", 1)[1] == (store or
                                            "/job:localhost/replica:0/"
                                            "task:0/device:CPU:0"))
        out["eval"] = hv.eval().tolist()

        p, t = tf1.get_session_tensor(hv.handle, tf.float32)
        with tf.device(other):
            y = t * 10
        out["feed_string"] = sess.run(y, {p: hv.handle}).tolist()
        out["read_twice"] = sess.run(t, {p: hv.handle}).tolist()
        # A reader on another device than the handle's (a raw op: TensorFlow's
        # get_session_tensor pins its reader to the handle's device).
        with tf.device(other):
            p_other = tf1.placeholder(tf.string, [], name="p_other")
            t_other = tf.raw_ops.GetSessionTensor(handle=p_other,
                                                  dtype=tf.float32)
        out["reader_elsewhere"] = error_name(
            lambda: sess.run(t_other, {p_other: hv.handle}))

        handle = hv.handle
        hv.delete()
        out["read_deleted"] = error_name(
            lambda: sess.run(t, {p: handle}))
        out["read_unknown"] = error_name(
            lambda: sess.run(t, {p: "h;999;" + handle.rsplit(";", 1)[1]}))

        # Dropped handles: the client deletes them ten at a time, when the
        # tenth is dropped.
        strings = []
        for i in range(10):
            dropped = sess.run(h, {a: [float(i)]})
            strings.append(dropped.handle)
            if i == 9:
                out["kept_until_ten"] = sess.run(t, {p: strings[0]}).tolist()
            del dropped
            gc.collect()
        out["dropped_deleted"] = [error_name(lambda s=s: sess.run(
            t, {p: s})) for s in strings[:2]]

        last = sess.run(h, {a: [4.0]})
        with tf1.Session(target, graph=graph, config=config) as second:
            out["other_session"] = error_name(
                lambda: second.run(t, {p: last.handle}))
        out["still_there"] = sess.run(t, {p: last.handle}).tolist()
        return out, sess, (t, p, last.handle)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--dfx", required=True, help="the dfx binary")
    args = parser.parse_args()

    expected, sess, _ = scenarios("", None, None)
    sess.close()

    with tempfile.TemporaryDirectory(prefix="dfx-sess-") as cluster_dir:
        up = subprocess.run([args.dfx, "cluster", "up", "--workers", "2",
                             "--dir", cluster_dir],
                            capture_output=True, text=True, timeout=120)
        if up.returncode != 0:
            print("dfx cluster up failed:", up.stderr, file=sys.stderr)
            return 1
        target = up.stdout.strip().splitlines()[-1]
        try:
            actual, sess, (t, p, handle) = scenarios(target, STORE, OTHER)
            # A Reset closes the session that stored the tensor.
            tf1.Session.reset(target)
            actual["after_reset"] = error_name(
                lambda: sess.run(t, {p: handle}))
            expected["after_reset"] = ("an error"
                                       if actual["after_reset"] == "ok"
                                       else actual["after_reset"])
            # On the cluster the reader is on another task than the tensor.
            expected["reader_elsewhere"] = "InvalidArgumentError"
        finally:
            subprocess.run([args.dfx, "cluster", "down", "--dir",
                            cluster_dir], capture_output=True, timeout=60)
    failed = 0
    for name, want in expected.items():
        got = actual.get(name)
        if got != want:
            failed += 1
            print(f"FAIL {name}: dfx {got}, TensorFlow {want}",
                  file=sys.stderr)
        else:
            print(f"ok {name}: {got}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
