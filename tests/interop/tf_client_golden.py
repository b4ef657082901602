"""A real TensorFlow 2.21 client runs the golden cases on a dfx cluster.

Starts a local dfx cluster (two worker tasks, `dfx cluster up`), then for
each golden case under tests/golden/data/ opens
`tf.compat.v1.Session("grpc://...")` against it, runs the case's GraphDef
with its feeds and compares the fetched values with TensorFlow's own
(the golden outputs), or the error code with TensorFlow's. In every other
case the nodes are spread over both tasks, so tensors cross processes.

    $(tools/tf_env) tests/interop/tf_client_golden.py --dfx build/bin/dfx

Exit status: 0 when every case matches, 1 otherwise.
"""

import argparse
import base64
import json
import os
import subprocess
import sys
import tempfile
import time

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")

import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402

tf1 = tf.compat.v1
tf1.disable_eager_execution()
# AudioMicrofrontend's OpDef (the audio family's graphs) is in a library
# TensorFlow loads when its microfrontend module is imported.
from tensorflow.lite.experimental.microfrontend.python.ops import (  # noqa: E402,F401,E501
    audio_microfrontend_op)

HERE = os.path.dirname(os.path.abspath(__file__))
GOLDEN = os.path.join(HERE, "..", "golden", "data")

_CODES = {
    "InvalidArgumentError": "INVALID_ARGUMENT",
    "NotFoundError": "NOT_FOUND",
    "OutOfRangeError": "OUT_OF_RANGE",
    "UnimplementedError": "UNIMPLEMENTED",
    "ResourceExhaustedError": "RESOURCE_EXHAUSTED",
    "FailedPreconditionError": "FAILED_PRECONDITION",
    "CancelledError": "CANCELLED",
    "DeadlineExceededError": "DEADLINE_EXCEEDED",
    "InternalError": "INTERNAL",
    "UnknownError": "UNKNOWN",
    "UnavailableError": "UNAVAILABLE",
    "DeadlineExceededError": "DEADLINE_EXCEEDED",
    "DataLossError": "DATA_LOSS",
    "AlreadyExistsError": "ALREADY_EXISTS",
    "AbortedError": "ABORTED",
}

# Ops that stay on task 0 when nodes are spread: feeds and fetches go
# through the master's task either way; these just keep the spread simple.
_PINNED = {"Placeholder", "PlaceholderWithDefault", "NoOp"}


def _is_dataset_op(op):
    """tf.data ops: a dataset never crosses tasks (in TensorFlow neither), so
    a pipeline and its iterator stay together."""
    return ("Dataset" in op or "Iterator" in op or
            op.endswith(("SeedGenerator", "MemoryCache")) or
            op == "ComputeBatchSize")


def spread(graph_def):
    """A copy of graph_def with its nodes alternating between two tasks.

    Nodes TensorFlow colocates (a `_class` group; stacks and TensorArrays,
    whose gradient ops it colocates with them) and tf.data pipelines stay on
    task 0: split, they would only make an error, in TensorFlow too.
    """
    out = tf1.GraphDef()
    out.CopyFrom(graph_def)
    colocated = set()
    for node in out.node:
        if "_class" in node.attr:
            colocated.add(node.name)
            for c in node.attr["_class"].list.s:
                c = c.decode()
                if c.startswith("loc:@"):
                    colocated.add(c[5:])
    for i, node in enumerate(out.node):
        pinned = (node.op in _PINNED or node.name in colocated or
                  node.op.startswith(("Stack", "TensorArray")) or
                  _is_dataset_op(node.op))
        task = 0 if pinned else i % 2
        node.device = f"/job:worker/task:{task}"
    return out


# Quantized tensors are stored as the integers they hold
# (golden_lib._QUANTIZED).
_QUANTIZED = {"qint8": np.int8, "quint8": np.uint8, "qint16": np.int16,
              "quint16": np.uint16, "qint32": np.int32}


def load_value(case_dir, entry, feed=False, scratch_dir=None):
    """A feed's or output's value: an .npy file, or for a string tensor a
    .json file of base64 elements (golden_lib.save_value); a string feed
    "@CASE_DIR@/..." names a file of the case's folder, "@SCRATCH_DIR@/..."
    one in `scratch_dir`, the case's own fresh directory. bfloat16 is stored
    as float32: a feed is converted back, an output compared as float32;
    complex as (real, imaginary) pairs, put back together."""
    path = os.path.join(case_dir, entry["file"])
    if entry["file"].endswith(".json"):
        with open(path) as f:
            data = json.load(f)
        items = [base64.b64decode(b) for b in data["base64"]]
        roots = {b"@CASE_DIR@": case_dir}
        if scratch_dir is not None:
            roots[b"@SCRATCH_DIR@"] = scratch_dir
        for token, root in roots.items():
            items = [root.encode() + v[len(token):]
                     if v.startswith(token) else v for v in items]
        value = np.empty(len(items), dtype=object)
        value[:] = items
        return value.reshape(data["shape"])
    value = np.load(path)
    if feed and entry.get("dtype") == "bfloat16":
        value = value.astype(tf.bfloat16.as_numpy_dtype)
    if feed and entry.get("dtype") in _QUANTIZED:
        value = value.view(tf.as_dtype(entry["dtype"]).as_numpy_dtype)
    if entry.get("dtype") in ("complex64", "complex128"):
        # Stored as (real, imaginary) pairs in a trailing dim of 2.
        # (real + 1j * imag would turn an infinite part into NaNs.)
        pairs = value
        value = np.empty(pairs.shape[:-1], dtype=entry["dtype"])
        value.real = pairs[..., 0]
        value.imag = pairs[..., 1]
    return value


def same_values(got, want, out):
    """Whether a fetched value equals TensorFlow's within the output's
    tolerance (strings exactly, integers too unless given one)."""
    # Strings as objects: a scalar string fetch is a bytes object, which
    # np.asarray would make a fixed-width array that drops trailing NULs.
    got = np.asarray(got, dtype=object if want.dtype == object else None)
    if out["dtype"] == "bfloat16":
        got = got.astype(np.float32)
    if out["dtype"] in _QUANTIZED:
        got = got.view(_QUANTIZED[out["dtype"]]).reshape(got.shape)
    if got.shape != want.shape:
        return False
    if want.dtype == object:
        return [bytes(v) for v in got.reshape(-1)] == list(want.reshape(-1))
    if want.dtype.kind == "c":
        return np.allclose(got.astype(np.complex128),
                           want.astype(np.complex128), rtol=out["rtol"],
                           atol=out["atol"], equal_nan=True)
    if want.dtype.kind in "fc" or out["rtol"] or out["atol"]:
        # Integers too when the case gives them a tolerance, as
        # golden_util.cc's comparison does (gen_jxl.py's lossy decodes).
        return np.allclose(got.astype(np.float64), want.astype(np.float64),
                           rtol=out["rtol"], atol=out["atol"], equal_nan=True)
    return np.array_equal(got, want)


def run_case(target, case_dir, spread_nodes):
    with open(os.path.join(case_dir, "case.json")) as f:
        spec = json.load(f)
    graph_def = tf1.GraphDef()
    with open(os.path.join(case_dir, "graph.pb"), "rb") as f:
        graph_def.ParseFromString(f.read())
    if spread_nodes:
        graph_def = spread(graph_def)
    graph = tf.Graph()
    with graph.as_default():
        tf1.import_graph_def(graph_def, name="")
        feeds = {}
        for feed in spec["feeds"]:
            feeds[graph.get_tensor_by_name(feed["name"])] = load_value(
                case_dir, feed, feed=True)
        fetches = [graph.get_tensor_by_name(n) for n in spec["fetches"]]
        config = tf1.ConfigProto(operation_timeout_in_ms=60000)
        with tf1.Session(target, graph=graph, config=config) as sess:
            try:
                results = sess.run(fetches, feed_dict=feeds)
            except tf.errors.OpError as err:
                code = _CODES.get(type(err).__name__, type(err).__name__)
                if "error" not in spec:
                    return f"failed: {code}: {err.message[:300]}"
                if code != spec["error"]["code"]:
                    return f"failed with {code}, TensorFlow with " \
                           f"{spec['error']['code']}"
                return ""
    if "error" in spec:
        return f"succeeded; TensorFlow failed with {spec['error']['code']}"
    problems = []
    for name, got, out in zip(spec["fetches"], results, spec["outputs"]):
        want = load_value(case_dir, out)
        if np.asarray(got).shape != want.shape:
            problems.append(f"{name}: shape {np.asarray(got).shape}, "
                            f"TF {want.shape}")
        elif not same_values(got, want, out):
            problems.append(f"{name}: values differ")
    return "; ".join(problems)


def run_training_case(target, case_dir):
    """A tf.compat.v1 training loop (tests/golden/gen_train_graphs.py) run
    by the TF client on the dfx cluster: initial values bit for bit, the loss
    of every step to a relative 1e-5."""
    with open(os.path.join(case_dir, "case.json")) as f:
        spec = json.load(f)
    graph_def = tf1.GraphDef()
    with open(os.path.join(case_dir, "graph.pb"), "rb") as f:
        graph_def.ParseFromString(f.read())
    # Variables live on the servers beyond a session, as in TensorFlow:
    # another case's variable of the same name (and another shape) would
    # still be there. Session.reset clears the servers' containers.
    tf1.Session.reset(target)
    graph = tf.Graph()
    with graph.as_default():
        tf1.import_graph_def(graph_def, name="")
        config = tf1.ConfigProto(operation_timeout_in_ms=60000)
        with tf1.Session(target, graph=graph, config=config) as sess:
            sess.run(spec["init"])
            for var in spec["variables"]:
                want = np.load(os.path.join(case_dir, var["file"]))
                got = sess.run(var["read"])
                if not np.array_equal(np.asarray(got), want):
                    return f"initial value of {var['read']} differs"
            losses = np.load(os.path.join(case_dir, "losses.npy"))
            for step, want in enumerate(losses):
                got, _ = sess.run([spec["loss"], spec["train"]])
                if not np.isclose(got, want, rtol=1e-5, atol=0):
                    return f"loss at step {step}: dfx {got}, TF {want}"
    return ""


def run_stateful_case(target, case_dir):
    """A golden case whose graph creates variables (the training family).
    Variables outlive sessions on the servers, so the containers are reset
    first; the nodes stay together, since an update's variables must share a
    device (TensorFlow refuses to split them too)."""
    tf1.Session.reset(target)
    return run_case(target, case_dir, spread_nodes=False)


def run_steps_case(target, case_dir):
    """A multi-step case (the queues and lookup families, gen_queues.py and
    gen_lookup.py): the steps run in order in one session on the cluster,
    each with its own feeds, giving TensorFlow's outputs or error code.
    Nodes stay together: a queue's, accumulator's or table's users must
    share its device. Tables outlive sessions on the servers, as
    variables do, so the containers are reset first."""
    tf1.Session.reset(target)
    with open(os.path.join(case_dir, "case.json")) as f:
        spec = json.load(f)
    graph_def = tf1.GraphDef()
    with open(os.path.join(case_dir, "graph.pb"), "rb") as f:
        graph_def.ParseFromString(f.read())
    graph = tf.Graph()
    problems = []
    with graph.as_default(), \
            tempfile.TemporaryDirectory(prefix="dfx_interop_") as scratch:
        tf1.import_graph_def(graph_def, name="")
        config = tf1.ConfigProto(operation_timeout_in_ms=60000)
        with tf1.Session(target, graph=graph, config=config) as sess:
            for i, step in enumerate(spec["steps"]):
                fetches = [graph.get_tensor_by_name(n)
                           for n in step["fetches"]]
                targets = [graph.get_operation_by_name(n)
                           for n in step["targets"]]
                feeds = {graph.get_tensor_by_name(feed["name"]):
                         load_value(case_dir, feed, feed=True,
                                    scratch_dir=scratch)
                         for feed in spec.get("feeds", []) +
                         step.get("feeds", [])}
                try:
                    results = sess.run([fetches, targets],
                                       feed_dict=feeds)[0]
                except tf.errors.OpError as err:
                    code = _CODES.get(type(err).__name__, type(err).__name__)
                    want = step.get("error", {}).get("code")
                    if code != want:
                        problems.append(f"step {i}: failed with {code}, "
                                        f"TensorFlow with {want or 'ok'}")
                    continue
                if "error" in step:
                    problems.append(f"step {i}: succeeded; TensorFlow failed "
                                    f"with {step['error']['code']}")
                    continue
                for name, got, out in zip(step["fetches"], results,
                                          step["outputs"]):
                    if not same_values(got, load_value(case_dir, out), out):
                        problems.append(f"step {i}: {name} differs")
    return "; ".join(problems)


# Golden folders in other formats than golden_lib's, and how to run them
# (None: not a graph case; run by its own C++ test only).
def _is_steps_case(case_dir):
    with open(os.path.join(case_dir, "case.json")) as f:
        return "steps" in json.load(f)


_SPECIAL = {"train_graphs": run_training_case,
            "training": run_stateful_case,
            "queues": run_steps_case,
            "lookup": run_steps_case,
            # File cases with paths in attrs: tests/golden/calib_files_test.cc.
            "calib_files": None}


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--dfx", required=True, help="the dfx binary")
    parser.add_argument("--filter", default="",
                        help="run only cases whose family/name contains this")
    parser.add_argument("--spread", choices=("alternate", "all", "none"),
                        default="alternate",
                        help="which single-step cases run with their nodes "
                        "spread over both tasks: every other one (default), "
                        "all or none")
    args = parser.parse_args()

    cases = []
    for family in sorted(os.listdir(GOLDEN)):
        if family in _SPECIAL and _SPECIAL[family] is None:
            continue
        fdir = os.path.join(GOLDEN, family)
        for name in sorted(os.listdir(fdir)):
            if not os.path.isdir(os.path.join(fdir, name)):
                continue
            if args.filter in f"{family}/{name}":
                cases.append((family, name, os.path.join(fdir, name)))

    with tempfile.TemporaryDirectory(prefix="dfx-interop-") as cluster_dir:
        up = subprocess.run([args.dfx, "cluster", "up", "--workers", "2",
                             "--dir", cluster_dir],
                            capture_output=True, text=True, timeout=120)
        if up.returncode != 0:
            print("dfx cluster up failed:", up.stderr, file=sys.stderr)
            return 1
        target = up.stdout.strip().splitlines()[-1]
        try:
            failed = 0
            start = time.time()
            for i, (family, name, case_dir) in enumerate(cases):
                if family in _SPECIAL:
                    problem = _SPECIAL[family](target, case_dir)
                elif _is_steps_case(case_dir):
                    # A multi-step case in another family (codec's file
                    # pipeline, say).
                    problem = run_steps_case(target, case_dir)
                else:
                    spread_nodes = (args.spread == "all" or
                                    (args.spread == "alternate" and i % 2))
                    problem = run_case(target, case_dir, spread_nodes)
                if problem:
                    failed += 1
                    print(f"FAIL {family}/{name}: {problem}", file=sys.stderr)
            print(f"{len(cases) - failed} of {len(cases)} golden cases match "
                  f"TensorFlow through a TF client on a dfx cluster "
                  f"({time.time() - start:.1f} s)")
            return 1 if failed else 0
        finally:
            subprocess.run([args.dfx, "cluster", "down", "--dir",
                            cluster_dir], capture_output=True, timeout=60)


if __name__ == "__main__":
    sys.exit(main())
