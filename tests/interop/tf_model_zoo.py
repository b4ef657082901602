"""A model zoo of TensorFlow's image models (tf.keras.applications) run on
dfx and compared with TensorFlow 2.21.

For each model (weights=None, seeded, a small input where the model allows
one, a 10-class head without the softmax so that the logits are compared):
- freezes its inference function with convert_variables_to_constants_v2,
  as a user exports a model for serving (tests/golden/gen_models.py does
  the same), into a GraphDef under a scratch folder: nothing is committed,
  the models are built at test time;
- lists the graph's op types that dfx lacks (`dfx ops --graph FILE`);
- runs the GraphDef in TensorFlow's own session and on dfx (`dfx run
  --graph` in a local session) and compares the outputs with the model's
  tolerance (the maximum absolute and relative differences are printed);
- with --cluster (the default set runs the first model so), runs it again
  through a TensorFlow client session on a `dfx cluster up` cluster;
- times a step in both (median of --runs steps after warm-up, in the same
  run on the same machine: TensorFlow's session and `dfx bench`).

Prints a table: model, op types, nodes, max diff, TF ms/step, dfx
ms/step. The times are a side-by-side figure, not a pass criterion.

    $(tools/tf_env) tests/interop/tf_model_zoo.py --dfx build/bin/dfx
    $(tools/tf_env) tests/interop/tf_model_zoo.py --dfx build/bin/dfx --all
    $(tools/tf_env) tests/interop/tf_model_zoo.py --dfx build/bin/dfx \\
        --models ResNet50,VGG16 --runs 10

Exit status: 0 when every model runs on dfx with TensorFlow's outputs, 1
otherwise.
"""

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")

import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402
from tensorflow.python.framework.convert_to_constants import (  # noqa: E402
    convert_variables_to_constants_v2)

keras = tf.keras
tf1 = tf.compat.v1

# name: (input side, batch, tolerance). Inputs are the smallest side the
# model takes (32 for most; InceptionV3 needs 75, Xception 71). The
# largest absolute difference from TensorFlow's output, over the output's
# largest magnitude, must stay under the tolerance: randomly initialized
# deep models scale their outputs far from 1, and convolutions and matmuls
# sum in another order than TensorFlow's (oneDNN) through deep stacks.
MODELS = {
    "MobileNet": (32, 2, 1e-4),
    "MobileNetV2": (32, 2, 1e-4),
    "MobileNetV3Small": (32, 2, 1e-4),
    "MobileNetV3Large": (32, 2, 1e-4),
    "ResNet50": (32, 2, 1e-4),
    "ResNet50V2": (32, 2, 1e-4),
    "ResNet101": (32, 2, 1e-4),
    "EfficientNetB0": (32, 2, 1e-4),
    "EfficientNetV2B0": (32, 2, 1e-4),
    "DenseNet121": (32, 2, 1e-4),
    "InceptionV3": (75, 2, 1e-4),
    "Xception": (71, 2, 1e-4),
    "InceptionResNetV2": (75, 2, 1e-4),
    "NASNetMobile": (32, 2, 1e-4),
    "ConvNeXtTiny": (32, 2, 1e-4),
    "VGG16": (32, 2, 1e-4),
}

# The default set: small models that together take about two minutes on a
# two-core machine, covering depthwise convolutions, hard-swish,
# squeeze-and-excitation, residual blocks and dense concatenations. (Keras 3,
# which TensorFlow 2.21 ships, has no RegNet models.)
DEFAULT = ["MobileNetV2", "MobileNetV3Small", "EfficientNetB0", "DenseNet121"]


def build(name, side):
    keras.utils.set_random_seed(7)
    ctor = getattr(keras.applications, name)
    kwargs = dict(weights=None, input_shape=(side, side, 3), classes=10,
                  classifier_activation=None)
    return ctor(**kwargs)


def freeze(model, shape):
    """(frozen GraphDef, input tensor name, output tensor name)."""
    fn = tf.function(lambda x: model(x, training=False))
    concrete = fn.get_concrete_function(tf.TensorSpec(shape, tf.float32))
    frozen = convert_variables_to_constants_v2(concrete)
    graph_def = frozen.graph.as_graph_def()
    return graph_def, frozen.inputs[0].name, frozen.outputs[0].name


def tf_session_run(graph_def, in_name, out_name, x, runs, target=""):
    """(output, median ms/step over `runs` steps after warm-up) of the
    GraphDef in a TensorFlow session on `target` ('' for TensorFlow's own)."""
    graph = tf.Graph()
    with graph.as_default():
        tf.graph_util.import_graph_def(graph_def, name="")
    config = tf1.ConfigProto(operation_timeout_in_ms=600000)
    with tf1.Session(target, graph=graph, config=config) as sess:
        out = sess.run(out_name, {in_name: x})
        times = []
        for i in range(runs + 1):
            start = time.perf_counter()
            sess.run(out_name, {in_name: x})
            if i:  # the first is one more warm-up step
                times.append((time.perf_counter() - start) * 1e3)
    return out, (statistics.median(times) if times else float("nan"))


def diff(got, want):
    """(max abs diff, that over the largest output magnitude)."""
    got = np.asarray(got, np.float64)
    want = np.asarray(want, np.float64)
    if got.shape != want.shape:
        return float("inf"), float("inf")
    absd = float(np.abs(got - want).max(initial=0))
    return absd, absd / max(float(np.abs(want).max(initial=0)), 1e-30)


def missing_ops(dfx, pb):
    res = subprocess.run([dfx, "ops", "--graph", pb, "--json"],
                         capture_output=True, text=True, timeout=120)
    try:
        listing = json.loads(res.stdout)
    except json.JSONDecodeError:
        return ["? " + res.stderr.strip()[:200]]
    ops = listing.get("ops", listing) if isinstance(listing, dict) else listing
    missing = []
    for op in ops:
        if not op.get("ok", op.get("registered", True)) or op.get("missing"):
            missing.append(op.get("op", op.get("name", "?")))
    return missing


def dfx_run(dfx, pb, in_node, x_npy, out_name, work):
    out_dir = os.path.join(work, "out")
    res = subprocess.run([dfx, "run", "--graph", pb, "--feed",
                          f"{in_node}=@{x_npy}", "--fetch", out_name,
                          "--out", out_dir],
                         capture_output=True, text=True, timeout=600)
    if res.returncode != 0:
        return None, res.stderr.strip()[-600:]
    fname = out_name.replace("/", "_").replace(":", "_") + ".npy"
    return np.load(os.path.join(out_dir, fname)), ""


def dfx_bench(dfx, pb, in_node, x_npy, out_name, runs):
    res = subprocess.run([dfx, "bench", "--graph", pb, "--feed",
                          f"{in_node}=@{x_npy}", "--fetch", out_name,
                          "--iters", str(runs), "--warmup", "1", "--json"],
                         capture_output=True, text=True, timeout=600)
    if res.returncode != 0:
        return float("nan")
    return json.loads(res.stdout)["latency_us"]["p50"] / 1e3


def run_model(name, args, work, cluster_target):
    side, batch, tol = MODELS[name]
    row = {"model": name, "input": f"{batch}x{side}x{side}x3"}
    model = build(name, side)
    graph_def, in_name, out_name = freeze(model, (batch, side, side, 3))
    del model
    pb = os.path.join(work, name + ".pb")
    with open(pb, "wb") as f:
        f.write(graph_def.SerializeToString())
    x = np.random.default_rng(3).uniform(
        -1, 1, size=(batch, side, side, 3)).astype(np.float32)
    x_npy = os.path.join(work, name + "_x.npy")
    np.save(x_npy, x)
    in_node = in_name.rsplit(":", 1)[0]
    row["ops"] = len({n.op for n in graph_def.node})
    row["nodes"] = len(graph_def.node)
    row["missing"] = missing_ops(args.dfx, pb)

    want, row["tf_ms"] = tf_session_run(graph_def, in_name, out_name, x,
                                        args.runs)
    got, err = dfx_run(args.dfx, pb, in_node, x_npy, out_name, work)
    problems = []
    if got is None:
        problems.append("dfx run failed: " + err)
        row["abs"] = row["rel"] = float("nan")
        row["dfx_ms"] = float("nan")
    else:
        row["abs"], row["rel"] = diff(got, want)
        if not row["rel"] <= tol:
            problems.append(f"outputs differ by {row['rel']:.3g} of their "
                            f"largest magnitude, over {tol:g}")
        row["dfx_ms"] = dfx_bench(args.dfx, pb, in_node, x_npy, out_name,
                                  args.runs)
    if cluster_target:
        got_c, _ = tf_session_run(graph_def, in_name, out_name, x, 0,
                                  cluster_target)
        rel_c = diff(got_c, want)[1]
        if not rel_c <= tol:
            problems.append(f"the TF client on a dfx cluster differs by "
                            f"{rel_c:.3g} of the largest magnitude")
        row["cluster"] = "ok" if len(problems) == 0 or got is None else "!"
    row["problems"] = problems
    return row


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--dfx", required=True, help="the dfx binary")
    parser.add_argument("--all", action="store_true",
                        help="every model, not only the default set")
    parser.add_argument("--models", default="",
                        help="comma-separated model names")
    parser.add_argument("--runs", type=int, default=5,
                        help="timed steps per model (the median is shown)")
    parser.add_argument("--cluster", default="",
                        help="comma-separated models also run through a TF "
                        "client on a dfx cluster (default: the first)")
    parser.add_argument("--keep", default="",
                        help="write the frozen graphs and inputs here")
    args = parser.parse_args()
    args.dfx = os.path.abspath(args.dfx)

    names = (list(MODELS) if args.all else
             args.models.split(",") if args.models else DEFAULT)
    for n in names:
        if n not in MODELS:
            parser.error(f"unknown model {n}; known: {', '.join(MODELS)}")
    on_cluster = set(args.cluster.split(",")) if args.cluster else {names[0]}

    rows = []
    with tempfile.TemporaryDirectory(prefix="dfx-zoo-") as tmp:
        work = args.keep or tmp
        os.makedirs(work, exist_ok=True)
        cluster_dir = os.path.join(tmp, "cluster")
        up = subprocess.run([args.dfx, "cluster", "up", "--workers", "1",
                             "--ps", "0", "--dir", cluster_dir],
                            capture_output=True, text=True, timeout=120)
        if up.returncode != 0:
            print("dfx cluster up failed:", up.stderr, file=sys.stderr)
            return 1
        target = up.stdout.strip().splitlines()[-1]
        try:
            for name in names:
                start = time.time()
                try:
                    row = run_model(name, args, work,
                                    target if name in on_cluster else "")
                except Exception as err:  # noqa: BLE001 -- a row, not a crash
                    row = {"model": name, "input": "-", "ops": 0,
                           "nodes": 0, "missing": [], "abs": float("nan"),
                           "rel": float("nan"), "tf_ms": float("nan"),
                           "dfx_ms": float("nan"),
                           "problems": [f"{type(err).__name__}: {err}"]}
                row["s"] = time.time() - start
                rows.append(row)
                print(f"{name}: {row['s']:.1f} s" +
                      "".join("\n  " + p for p in row["problems"]),
                      flush=True)
        finally:
            subprocess.run([args.dfx, "cluster", "down", "--dir",
                            cluster_dir], capture_output=True, timeout=60)

    print()
    print(f"| model | input | ops | nodes | max abs diff | max rel diff | "
          f"TF ms/step | dfx ms/step | dfx lacks |")
    print("|---|---|---:|---:|---:|---:|---:|---:|---|")
    for r in rows:
        print(f"| {r['model']}{' (+cluster)' if 'cluster' in r else ''} | "
              f"{r['input']} | {r['ops']} | {r['nodes']} | {r['abs']:.2g} | "
              f"{r['rel']:.2g} | {r['tf_ms']:.1f} | {r['dfx_ms']:.1f} | "
              f"{', '.join(r['missing']) or '-'} |")
    failed = [r["model"] for r in rows if r["problems"] or r["missing"]]
    if failed:
        print("FAILED:", ", ".join(failed), file=sys.stderr)
        return 1
    print(f"{len(rows)} models match TensorFlow on dfx")
    return 0


if __name__ == "__main__":
    sys.exit(main())
