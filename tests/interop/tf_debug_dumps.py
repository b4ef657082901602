"""tfdbg v1 dump files: dfx writes them, TensorFlow's debugger reads them.

One graph of DebugIdentity, DebugNanCount and DebugNumericSummary nodes with
file:// debug URLs (float tensors with NaN and Inf, a string tensor, scoped
node names, a second output slot) runs twice: in TensorFlow 2.21's own
session, dumping into one folder, and from a TensorFlow client on a dfx
cluster (`dfx cluster up`, two worker tasks; the debug nodes on task 1, so
the watched tensors cross processes), dumping into another. TensorFlow's
reader (tensorflow.python.debug.lib.debug_data.DebugDumpDir) then loads
both folders: the same watches (device, node, slot, debug op) and the same
tensors must come back; every dump file's name must be TensorFlow's, and
its Event must equal TensorFlow's but for the wall time (which the file
name carries).

Then tfdbg's own way: a plain graph (a reference variable among its nodes)
run with RunOptions.debug_options watching every node
(debug_utils.watch_graph, what tfdbg's session wrappers do), in
TensorFlow and on the dfx cluster, where the workers insert the watch
nodes. The same watches and tensors must come back, and DebugDumpDir with
its checks against the partition graphs dfx's workers wrote must load
dfx's folder.

    $(tools/tf_env) tests/interop/tf_debug_dumps.py --dfx build/bin/dfx

Exit status: 0 when everything matches, 1 otherwise.
"""

import argparse
import os
import subprocess
import sys
import tempfile

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")

import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402
from tensorflow.core.util import event_pb2  # noqa: E402
from tensorflow.python.debug.lib import debug_data  # noqa: E402
from tensorflow.python.debug.lib import debug_utils  # noqa: E402

tf1 = tf.compat.v1
tf1.disable_eager_execution()
raw = tf.raw_ops

DEVICE_ATTR = "/job:worker/replica:0/task:1/device:CPU:0"
X = np.array([[1.5, -2.0, np.nan], [np.inf, 0.0, -np.inf]], np.float32)


def run(dump_root, target=None, device=None):
    """Runs the watch graph once, dumping under dump_root; returns the
    fetched outputs."""
    url = "file://" + dump_root
    graph = tf.Graph()
    with graph.as_default():
        x = tf1.placeholder(tf.float32, [2, 3], name="x")
        with tf.device(device):
            with tf.name_scope("model"):
                doubled = tf.multiply(x, 2.0, name="doubled")
                parts = tf.split(doubled, 3, axis=1, name="split")
            words = tf.constant([b"tf", b"", b"dbg"], name="words")
            common = dict(device_name=DEVICE_ATTR, debug_urls=[url])
            outs = [
                raw.DebugIdentity(input=doubled,
                                  tensor_name="model/doubled:0", **common),
                raw.DebugIdentity(input=parts[1],
                                  tensor_name="model/split:1", **common),
                raw.DebugNanCount(input=doubled,
                                  tensor_name="model/doubled:0", **common),
                raw.DebugNumericSummary(input=doubled,
                                        tensor_name="model/doubled:0",
                                        lower_bound=-3.0, upper_bound=2.5,
                                        **common),
                raw.DebugIdentity(input=words, tensor_name="words:0",
                                  **common),
                raw.DebugIdentity(input=tf.zeros([0, 2], tf.int64),
                                  tensor_name="empty", **common),
            ]
        with tf1.Session(target or "", graph=graph) as sess:
            return sess.run(outs, feed_dict={x: X})


def config():
    """No graph rewrites, in TensorFlow or dfx: the watched nodes stay."""
    c = tf1.ConfigProto()
    c.graph_options.rewrite_options.disable_meta_optimizer = True
    c.graph_options.optimizer_options.opt_level = tf1.OptimizerOptions.L0
    c.graph_options.optimizer_options.do_constant_folding = False
    return c


def run_watched(dump_root, target=None, device=None):
    """tfdbg's own way: a run whose RunOptions.debug_options watch every
    node of a plain graph (debug_utils.watch_graph, what tfdbg's session
    wrappers do), with a reference variable among them. Returns the
    fetched value."""
    graph = tf.Graph()
    with graph.as_default():
        x = tf1.placeholder(tf.float32, [2, 3], name="x")
        with tf.device(device):
            v = tf1.Variable(np.full([2, 3], 0.5, np.float32),
                             use_resource=False, name="v")
            with tf.name_scope("net"):
                y = tf.add(tf.multiply(x, 3.0, name="scaled"), v, name="y")
                z = tf.math.log(y, name="log")
        with tf1.Session(target or "", graph=graph, config=config()) as sess:
            sess.run(v.initializer)
            options = tf1.RunOptions()
            debug_utils.watch_graph(
                options, graph,
                debug_ops=["DebugIdentity",
                           "DebugNumericSummary(mute_if_healthy=false)"],
                debug_urls=["file://" + dump_root])
            return sess.run(z, feed_dict={x: X}, options=options)


def events(dump_root):
    """{file path relative to the root, with the timestamp cut off:
    (timestamp in the name, Event without its wall_time)}."""
    out = {}
    for folder, _, files in os.walk(dump_root):
        for f in files:
            if f.startswith("_tfdbg_"):
                continue  # TensorFlow's graph and run metadata files
            path = os.path.join(folder, f)
            rel = os.path.relpath(path, dump_root)
            stem, stamp = rel.rsplit("_", 1)
            event = event_pb2.Event.FromString(open(path, "rb").read())
            wall = event.wall_time
            event.ClearField("wall_time")
            out[stem] = (stamp, wall, event)
    return out


def same(a, b):
    a, b = np.asarray(a), np.asarray(b)
    if a.dtype.kind == "f":
        return a.shape == b.shape and np.array_equal(a, b, equal_nan=True)
    return a.shape == b.shape and a.tolist() == b.tolist()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--dfx", required=True, help="the dfx binary")
    args = parser.parse_args()
    problems = []
    with tempfile.TemporaryDirectory(prefix="dfx-debug-interop-") as work:
        tf_root = os.path.join(work, "tf")
        tf_out = run(tf_root)
        tf_watched_root = os.path.join(work, "tf_watched")
        tf_watched = run_watched(tf_watched_root)

        cluster_dir = os.path.join(work, "cluster")
        up = subprocess.run([args.dfx, "cluster", "up", "--workers", "2",
                             "--dir", cluster_dir],
                            capture_output=True, text=True, timeout=120)
        if up.returncode != 0:
            print("dfx cluster up failed:", up.stderr, file=sys.stderr)
            return 1
        target = up.stdout.strip().splitlines()[-1]
        try:
            dfx_root = os.path.join(work, "dfx")
            dfx_out = run(dfx_root, target, "/job:worker/task:1")
            dfx_watched_root = os.path.join(work, "dfx_watched")
            dfx_watched = run_watched(dfx_watched_root, target,
                                      "/job:worker/task:1")
        finally:
            subprocess.run([args.dfx, "cluster", "down", "--dir",
                            cluster_dir], capture_output=True, timeout=60)

        for i, (ours, theirs) in enumerate(zip(dfx_out, tf_out)):
            if not same(ours, theirs):
                problems.append(f"output {i}: {ours} != TensorFlow's {theirs}")

        # TensorFlow's reader loads dfx's folder as its own.
        tf_dump = debug_data.DebugDumpDir(tf_root, validate=False)
        dfx_dump = debug_data.DebugDumpDir(dfx_root, validate=False)

        def watches(dump):
            return sorted((d.device_name, d.node_name, d.output_slot,
                           d.debug_op) for d in dump.dumped_tensor_data)
        if watches(dfx_dump) != watches(tf_dump):
            problems.append(f"watches {watches(dfx_dump)} != TensorFlow's "
                            f"{watches(tf_dump)}")
        for d in tf_dump.dumped_tensor_data:
            ours = dfx_dump.get_tensors(d.node_name, d.output_slot,
                                        d.debug_op, device_name=d.device_name)
            if len(ours) != 1 or not same(ours[0], d.get_tensor()):
                problems.append(f"{d.watch_key}: {ours} != TensorFlow's "
                                f"{d.get_tensor()}")
        if len(tf_dump.dumped_tensor_data) != 6:
            problems.append(f"TensorFlow dumped "
                            f"{len(tf_dump.dumped_tensor_data)} tensors")

        # The files themselves: TensorFlow's names and Events.
        tf_events, dfx_events = events(tf_root), events(dfx_root)
        if sorted(dfx_events) != sorted(tf_events):
            problems.append(f"dump files {sorted(dfx_events)} != "
                            f"TensorFlow's {sorted(tf_events)}")
        for stem, (stamp, wall, event) in dfx_events.items():
            if stamp != str(int(wall)):
                problems.append(f"{stem}: file time {stamp}, Event {wall}")
            if stem in tf_events and event != tf_events[stem][2]:
                problems.append(f"{stem} differs:\n{event}\nTensorFlow:\n"
                                f"{tf_events[stem][2]}")

        # RunOptions.debug_options: the dfx master's workers insert the
        # watches TensorFlow's would (devices differ: no comparison).
        if not same(dfx_watched, tf_watched):
            problems.append(f"watched run: {dfx_watched} != TensorFlow's "
                            f"{tf_watched}")
        tf_w = debug_data.DebugDumpDir(tf_watched_root, validate=False)
        dfx_w = debug_data.DebugDumpDir(dfx_watched_root, validate=False)

        def watched(dump):
            # Not the fed placeholder: TensorFlow's local session watches
            # the _Arg it becomes; a master's workers receive it instead.
            return [d for d in dump.dumped_tensor_data
                    if not d.node_name.startswith("_arg_")]

        def keys(dump):
            return sorted((d.node_name, d.output_slot, d.debug_op)
                          for d in watched(dump))
        if keys(dfx_w) != keys(tf_w):
            problems.append(f"watched run dumps {keys(dfx_w)} != "
                            f"TensorFlow's {keys(tf_w)}")
        for d in watched(tf_w):
            try:
                ours = dfx_w.get_tensors(d.node_name, d.output_slot,
                                         d.debug_op)
            except (ValueError, debug_data.
                    WatchKeyDoesNotExistInDebugDumpDirError):
                ours = []
            theirs = d.get_tensor()
            if len(ours) != 1 or not same(ours[0], theirs):
                problems.append(f"watched {d.watch_key}: {ours} != "
                                f"TensorFlow's {theirs}")
        num_watched = len(watched(tf_w))
        # With the graph files dfx's workers write, tfdbg's reader checks
        # the dumps against the partition graphs (each node's inputs dumped
        # before it) and knows every watched node's op.
        try:
            checked = debug_data.DebugDumpDir(dfx_watched_root)
            if checked.node_op_type("net/log") != "Log":
                problems.append("the dump's graph does not hold net/log")
        except Exception as e:  # noqa: BLE001 - any failure is the finding
            problems.append(f"DebugDumpDir(validate=True) failed: {e!r}")

    for p in problems:
        print("FAIL", p, file=sys.stderr)
    print(f"{len(tf_events)} dump files of TensorFlow's and dfx's compared; "
          f"{num_watched} tensors of a run watched through "
          f"RunOptions.debug_options compared; {len(problems)} problems")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
