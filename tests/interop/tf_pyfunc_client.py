"""PyFunc, PyFuncStateless and EagerPyFunc (tf.compat.v1.py_func,
tf.numpy_function, tf.py_function) on a server: a TensorFlow 2.21 client
runs one graph on a TensorFlow server (tf.distribute.Server, its own
process) and on a one-task dfx cluster, and the answers must agree: the
graph's other fetches run; each Python call, plain or in a tf.data map
function, fails with InvalidArgument "ValueError: Could not find callback
with key=<token> in the registry." (the function is in this process's
registry, which no server process has).

    $(tools/tf_env) tests/interop/tf_pyfunc_client.py --dfx build/bin/dfx

Exit status: 0 when dfx answers as TensorFlow, 1 otherwise.
"""

import argparse
import os
import re
import sys

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")

import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "..", "tools", "bench"))
from bench_clusters import start_dfx_cluster, start_tf_cluster  # noqa: E402

tf1 = tf.compat.v1
tf1.disable_eager_execution()

CALLBACK = re.compile(
    r"ValueError: Could not find callback with key=\w+ in the registry\.")


def build():
    graph = tf.Graph()
    with graph.as_default():
        x = tf1.placeholder(tf.float32, [2], name="x")
        fetches = {
            "plain": x + 1,
            "py_func": tf1.py_func(lambda a: a * 2, [x], tf.float32),
            "numpy_function": tf.numpy_function(lambda a: a * 3, [x],
                                                tf.float32, stateful=False),
            "py_function": tf.py_function(lambda a: a * 4, [x], tf.float32),
        }
        mapped = tf.data.Dataset.range(3).map(
            lambda i: tf.py_function(lambda v: v + 1, [i], tf.int64))
        fetches["dataset_map"] = tf1.data.make_one_shot_iterator(
            mapped).get_next()
    return graph, x, fetches


def answers(target, graph, x, fetches):
    """{fetch: value list, or (error class, the callback error's words)}."""
    out = {}
    config = tf1.ConfigProto(operation_timeout_in_ms=60000)
    with tf1.Session(target, graph=graph, config=config) as sess:
        for name, t in fetches.items():
            try:
                out[name] = np.asarray(
                    sess.run(t, {x: np.array([1, 2], np.float32)})).tolist()
            except tf.errors.OpError as e:
                found = CALLBACK.search(e.message)
                out[name] = (type(e).__name__,
                             found.group(0) if found else e.message[:300])
    return out


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--dfx", required=True)
    args = p.parse_args()
    # One graph for both servers: its callbacks' keys are the same.
    built = build()
    tf_cluster, stop_tf = start_tf_cluster(1)
    try:
        want = answers("grpc://" + tf_cluster["worker"][0], *built)
    finally:
        stop_tf()
    dfx_cluster, stop_dfx = start_dfx_cluster(args.dfx, 1)
    try:
        got = answers("grpc://" + dfx_cluster["worker"][0], *built)
    finally:
        stop_dfx()
    failed = 0
    for name, w in want.items():
        if got.get(name) == w:
            print(f"ok {name}: {w}")
        else:
            failed += 1
            print(f"FAIL {name}: dfx {got.get(name)}, TensorFlow {w}",
                  file=sys.stderr)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
