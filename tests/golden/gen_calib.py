"""Golden cases of the calib family: TensorFlow 2.21's quantization
calibration and debugging ops.

    $(tools/tf_env) tests/golden/gen_calib.py

CustomAggregator (the input passed through, its min and max, and a
histogram of num_bins power-of-two-wide bins) for every calibration method,
several bin counts, shapes (scalar, matrix, empty), NaN and
infinities, and over several steps; CalibrationStatisticsSaver fed by
aggregators over several steps and its attr errors (TensorFlow's Aborted).

The files the saver and DumpTensor write have their paths in attrs, which
the golden runner cannot point at a fresh directory, so they are cases of
their own folder, data/calib_files/<case>/: graph.pb with
"@SCRATCH_DIR@" in its path attrs, steps.json with each step's feeds
(feed_<step>.npy) and targets, and TensorFlow's files under tf/.
tests/kernels/calib_test.cc runs each through a dfx session, closes it
(both ops write when their kernel goes, as in TensorFlow) and compares:
the saver's CalibrationStatisticsMap parsed (TensorFlow writes its map in
hash order, so saver_three_ids/tf/stats.pb changes bytes from run to run;
with one id the bytes are equal too), DumpTensor's zlib
TFRecord file and quant_unit.pb byte for byte.

Not here, and why:
- CustomAggregator with a negative num_bins: TensorFlow's kernel aborts the
  process (a negative dimension CHECK); dfx fails with InvalidArgument.
- CalibrationStatisticsSaver with a histogram method fed by an empty input
  or a constant one (infinite or zero bin width), or with bins far below
  the values' precision: TensorFlow's collector crashes or loops; dfx fails
  with InvalidArgument (tests/kernels/calib_test.cc). Non-scalar min or
  max: TensorFlow aborts on a CHECK; dfx fails with InvalidArgument.
- CalibrationStatisticsSaver and DumpTensor when their file or directory
  cannot be made: TensorFlow's kernels crash (their destructors write through a
  file they never opened); dfx fails with InvalidArgument.
- NaN in inputs of 8 or more values: TensorFlow's vectorized min/max
  reductions drop or keep a NaN depending on its lane; dfx follows the
  scalar reduction, which the short-input cases show.
"""

import json
import os
import shutil
import sys
import tempfile

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import golden_lib  # noqa: E402
from golden_lib import placeholder, steps_case, tf, tf1  # noqa: E402
from tensorflow.core.framework import attr_value_pb2  # noqa: E402
from tensorflow.core.framework import graph_pb2  # noqa: E402

FAMILY = "calib"
OPS = ["CustomAggregator", "CalibrationStatisticsSaver", "DumpTensor"]
SCRATCH = "@SCRATCH_DIR@"
FILES_DIR = os.path.join(golden_lib.DATA_DIR, "calib_files")
A = attr_value_pb2.AttrValue

MIN_MAX, AVERAGE_MIN_MAX, PERCENTILE, BRUTEFORCE, MAX_FREQUENCY, SYMMETRIC = (
    1, 2, 3, 4, 5, 6)


def aggregator(x, id="a", method=MIN_MAX, num_bins=0, name=None):
    g = tf1.get_default_graph()
    attrs = {"id": A(s=id.encode()), "calibration_method": A(i=method),
             "num_bins": A(i=num_bins), "min_percentile": A(f=0.001),
             "max_percentile": A(f=99.999)}
    op = g.create_op("CustomAggregator", [x],
                     [tf.float32, tf.float32, tf.float32, tf.int64],
                     attrs=attrs, name=name or "CustomAggregator")
    return op.outputs


def saver(inputs, ids, methods, path, name="Saver"):
    g = tf1.get_default_graph()
    attrs = {
        "Tin": A(list=A.ListValue(
            type=[t.dtype.as_datatype_enum for t in inputs])),
        "ids": A(list=A.ListValue(s=[i.encode() for i in ids])),
        "calibration_methods": A(list=A.ListValue(i=methods)),
        "output_file_path": A(s=path.encode())}
    return g.create_op("CalibrationStatisticsSaver", inputs, [], attrs=attrs,
                       name=name)


def dump(x, log_dir, file_name, enabled=True, name="Dump"):
    g = tf1.get_default_graph()
    attrs = {"T": A(type=x.dtype.as_datatype_enum),
             "log_dir_path": A(s=log_dir.encode()),
             "file_name": A(s=file_name.encode()), "enabled": A(b=enabled),
             "func_name": A(s=b"composite_conv_fn"),
             "node_name": A(s=name.encode())}
    return g.create_op("DumpTensor", [x], [], attrs=attrs, name=name)


def case(name, build, **kw):
    golden_lib.case(FAMILY, name, build, **kw)


def aggregator_cases():
    r = golden_lib.rng(7)
    inputs = {
        "vec": np.array([1.0, 2.0, 3.5], np.float32),
        "neg": np.array([-3.25, 0.5, -0.125, 7.0], np.float32),
        "mat": r.normal(size=[3, 4]).astype(np.float32),
        "scalar": np.array(2.5, np.float32),
        "const": np.full([5], 1.5, np.float32),
        "empty": np.zeros([0], np.float32),
        "empty2d": np.zeros([2, 0], np.float32),
        "wide": np.array([-1e30, 0.0, 1e30], np.float32),
        "tiny": np.array([1e-30, 3e-30, 2e-30], np.float32),
        "big": r.uniform(-50, 50, size=[64]).astype(np.float32),
    }
    for iname, value in inputs.items():
        for method, bins in [(MIN_MAX, 0), (AVERAGE_MIN_MAX, 8),
                             (PERCENTILE, 8), (BRUTEFORCE, 16),
                             (MAX_FREQUENCY, 3), (SYMMETRIC, 256)]:
            def build(value=value, method=method, bins=bins):
                x, v = placeholder(value)
                return aggregator(x, method=method, num_bins=bins), {x: v}
            case(f"agg_{iname}_m{method}_b{bins}", build)
    # NaN and infinities in short inputs (see the docstring for long ones).
    for iname, value in [("nan_mid", [1.0, np.nan, 2.0]),
                         ("nan_first", [np.nan, 4.0, -1.0]),
                         ("nan_last", [3.0, 1.0, np.nan]),
                         ("nan_only", [np.nan]),
                         ("inf", [1.0, np.inf, 2.0]),
                         ("neg_inf", [-np.inf, 1.0]),
                         ("both_inf", [-np.inf, np.inf])]:
        def build(value=value):
            x, v = placeholder(np.array(value, np.float32))
            return aggregator(x, method=PERCENTILE, num_bins=4), {x: v}
        case(f"agg_{iname}", build)

    # An unknown method is no histogram method, as in TensorFlow.
    def unknown():
        x, v = placeholder(np.array([1.0, 2.0, 3.0], np.float32))
        return aggregator(x, method=99, num_bins=4), {x: v}
    case("agg_method_unknown", unknown)

    def unspecified():
        x, v = placeholder(np.array([1.0, 2.0], np.float32))
        return aggregator(x, method=0), {x: v}
    case("agg_method_unspecified", unspecified)

    # Defaults: calibration_method 0 is refused even when left out.
    def defaults():
        x, v = placeholder(np.array([1.0], np.float32))
        op = tf1.get_default_graph().create_op(
            "CustomAggregator", [x],
            [tf.float32, tf.float32, tf.float32, tf.int64],
            attrs={"id": A(s=b"d")})
        return op.outputs, {x: v}
    case("agg_defaults", defaults)

    # Steps: each step's histogram is its own (no state between steps).
    folder = golden_lib.family_folder(FAMILY)

    def stepped():
        x = tf1.placeholder(tf.float32, name="x")
        out = aggregator(x, method=PERCENTILE, num_bins=8)
        return {"x": x, "out": out[0], "min": out[1], "max": out[2],
                "hist": out[3]}
    steps = [[1.0, 2.0, 3.5], [0.5, 9.0], [-4.0, -4.5, 0.0, 100.0]]
    _steps_with_feeds(folder, "agg_steps", stepped,
                      [(["out", "min", "max", "hist"], {"x": s})
                       for s in steps])


def _steps_with_feeds(folder, name, build, steps):
    """golden_lib.steps_case with a placeholder fed per step: the feeds go
    into each step's "feeds" as golden_test.cc reads them."""
    graph = tf.Graph()
    with graph.as_default():
        named = build()
        graph_def = graph.as_graph_def()
        spec = {"name": name, "note": "", "feeds": [], "steps": []}
        out_dir = os.path.join(folder, name)
        os.makedirs(out_dir)
        with tf1.Session(graph=graph,
                         config=golden_lib._session_config()) as sess:
            for s, (keys, feeds) in enumerate(steps):
                fetches = [named[k] for k in keys
                           if isinstance(named[k], tf.Tensor)]
                targets = [named[k] for k in keys
                           if not isinstance(named[k], tf.Tensor)]
                step = {"fetches": [t.name for t in fetches],
                        "targets": [op.name for op in targets],
                        "feeds": []}
                feed_dict = {}
                for i, (k, v) in enumerate(feeds.items()):
                    v = np.asarray(v, np.float32)
                    feed_dict[named[k]] = v
                    fname, dtype = golden_lib.save_value(
                        out_dir, f"feed_{s}_{i}", v)
                    step["feeds"].append({"name": named[k].name,
                                          "file": fname, "dtype": dtype})
                try:
                    out = sess.run([fetches, targets], feed_dict)[0]
                    step["outputs"] = []
                    for i, value in enumerate(out):
                        fname, dtype = golden_lib.save_value(
                            out_dir, f"out_{s}_{i}", value)
                        rtol, atol = golden_lib.DEFAULT_TOL.get(dtype,
                                                                (0.0, 0.0))
                        step["outputs"].append({"file": fname, "dtype": dtype,
                                                "rtol": rtol, "atol": atol})
                except tf.errors.OpError as err:
                    step["error"] = {
                        "code": golden_lib._CODE_NAMES.get(
                            type(err).__name__, type(err).__name__),
                        "message": golden_lib._clean_message(
                            err.message)[:300]}
                spec["steps"].append(step)
    with open(os.path.join(out_dir, "graph.pb"), "wb") as f:
        f.write(graph_def.SerializeToString(deterministic=True))
    with open(os.path.join(out_dir, "case.json"), "w") as f:
        json.dump(spec, f, indent=1, sort_keys=True)
        f.write("\n")
    codes = [s.get("error", {}).get("code", "ok") for s in spec["steps"]]
    print(f"{FAMILY}/{name}: {' '.join(codes)}", file=sys.stderr)


def saver_cases():
    folder = golden_lib.family_folder(FAMILY)
    # The statistics go to /dev/null here (a path attr cannot name a fresh
    # directory); their content is checked by the calib_files cases.
    methods = [MIN_MAX, AVERAGE_MIN_MAX, PERCENTILE, BRUTEFORCE,
               MAX_FREQUENCY, SYMMETRIC]

    def build():
        x = tf1.placeholder(tf.float32, name="x")
        inputs, ids, named = [], [], {"x": x}
        for m in methods:
            out = aggregator(x, id=f"id{m}", method=m,
                             num_bins=8 if m >= PERCENTILE else 0,
                             name=f"agg{m}")
            inputs += out[1:]
            ids.append(f"id{m}")
            named[f"min{m}"] = out[1]
            named[f"hist{m}"] = out[3]
        named["save"] = saver(inputs, ids, methods, "/dev/null")
        return named
    keys = ["save", "min1", "hist3", "hist6"]
    _steps_with_feeds(folder, "saver_steps", build,
                      [(keys, {"x": s}) for s in
                       [[1.0, 2.0, 3.5], [0.5, 9.0], [-3.0, 0.125]]])

    def bad(name, ins, ids, methods_, path="/dev/null"):
        def b():
            x = tf1.placeholder(tf.float32, name="x")
            out = aggregator(x, method=MIN_MAX)
            tensors = {"f": out[1], "h": out[3],
                       "i": tf.constant(1, tf.int32),
                       "hf": tf.constant([1.0], tf.float32)}
            return {"x": x,
                    "save": saver([tensors[k] for k in ins], ids, methods_,
                                  path)}
        _steps_with_feeds(folder, name, b, [(["save"], {"x": [1.0, 2.0]})])
    bad("saver_sizes_differ", ["f", "f", "h"], ["a", "b"], [1])
    bad("saver_too_few_inputs", ["f", "f"], ["a"], [1])
    bad("saver_too_many_inputs", ["f", "f", "h", "f"], ["a"], [1])
    bad("saver_min_not_float", ["i", "f", "h"], ["a"], [1])
    bad("saver_max_not_float", ["f", "i", "h"], ["a"], [1])
    bad("saver_histogram_not_int64", ["f", "f", "hf"], ["a"], [2])
    # The same id twice shares one collector (the first method wins).
    bad("saver_same_id_twice", ["f", "f", "h", "f", "f", "h"], ["a", "a"],
        [1, 2])


# ---------------------------------------------------------------------------
# calib_files: file cases run by tests/kernels/calib_test.cc.

def _substitute(graph_def, root):
    out = graph_pb2.GraphDef()
    out.CopyFrom(graph_def)
    for node in out.node:
        for attr in node.attr.values():
            if attr.s.startswith(SCRATCH.encode()):
                attr.s = root.encode() + attr.s[len(SCRATCH):]
    return out


def file_case(name, build, steps):
    """build() makes the graph (paths under SCRATCH) and returns (feed
    placeholder, [target ops]); steps: one feed value per step. TensorFlow
    runs it in a fresh directory, then its files are copied to tf/."""
    graph = tf.Graph()
    with graph.as_default():
        x, targets = build()
    graph_def = graph.as_graph_def()
    out_dir = os.path.join(FILES_DIR, name)
    os.makedirs(out_dir)
    scratch = tempfile.mkdtemp(prefix="dfx_gen_calib_")
    run_graph = tf.Graph()
    with run_graph.as_default():
        tf1.import_graph_def(_substitute(graph_def, scratch), name="")
        with tf1.Session(graph=run_graph,
                         config=golden_lib._session_config()) as sess:
            for value in steps:
                sess.run([t.name for t in targets],
                         {x.name: np.asarray(value, x.dtype.as_numpy_dtype)})
    spec = {"steps": [], "targets": [t.name for t in targets],
            "feed": x.name, "files": []}
    for s, value in enumerate(steps):
        fname, dtype = golden_lib.save_value(
            out_dir, f"feed_{s}", np.asarray(value, x.dtype.as_numpy_dtype))
        spec["steps"].append({"file": fname, "dtype": dtype})
    for root, _, files in os.walk(scratch):
        for f in sorted(files):
            rel = os.path.relpath(os.path.join(root, f), scratch)
            os.makedirs(os.path.dirname(os.path.join(out_dir, "tf", rel)),
                        exist_ok=True)
            shutil.copy(os.path.join(root, f), os.path.join(out_dir, "tf", rel))
            spec["files"].append(rel)
    spec["files"].sort()
    shutil.rmtree(scratch)
    with open(os.path.join(out_dir, "graph.pb"), "wb") as f:
        f.write(graph_def.SerializeToString(deterministic=True))
    with open(os.path.join(out_dir, "case.json"), "w") as f:
        json.dump(spec, f, indent=1, sort_keys=True)
        f.write("\n")
    print(f"calib_files/{name}: {spec['files']}", file=sys.stderr)


def file_cases():
    shutil.rmtree(FILES_DIR, ignore_errors=True)
    os.makedirs(FILES_DIR)
    steps = [[1.0, 2.0, 3.5], [0.5, 9.0], [-3.0, 0.1, 2.0, 2.5]]
    for m, bins in [(MIN_MAX, 0), (AVERAGE_MIN_MAX, 0), (PERCENTILE, 8),
                    (BRUTEFORCE, 16), (MAX_FREQUENCY, 4), (SYMMETRIC, 32)]:
        def build(m=m, bins=bins):
            x = tf1.placeholder(tf.float32, name="x")
            out = aggregator(x, id="only", method=m, num_bins=bins)
            return x, [saver(out[1:], ["only"], [m],
                             SCRATCH + "/stats.pb")]
        file_case(f"saver_m{m}", build, steps)

    def several():
        x = tf1.placeholder(tf.float32, name="x")
        ins, ids, ms = [], [], []
        for m in [MIN_MAX, AVERAGE_MIN_MAX, PERCENTILE]:
            out = aggregator(x * float(m), id=f"id{m}", method=m,
                             num_bins=8 if m == PERCENTILE else 0,
                             name=f"agg{m}")
            ins += out[1:]
            ids.append(f"id{m}")
            ms.append(m)
        return x, [saver(ins, ids, ms, SCRATCH + "/stats.pb")]
    file_case("saver_three_ids", several, steps)

    # An empty input: MIN_MAX saves nothing for it (its min stays at the
    # largest float), AVERAGE_MIN_MAX sums the infinities.
    for m in [MIN_MAX, AVERAGE_MIN_MAX]:
        def empty(m=m):
            x = tf1.placeholder(tf.float32, name="x")
            out = aggregator(x, id="e", method=m)
            return x, [saver(out[1:], ["e"], [m], SCRATCH + "/stats.pb")]
        file_case(f"saver_empty_m{m}", empty, [np.zeros([0], np.float32)])

    # Never run: the saver is never built, so no file.
    def unused():
        x = tf1.placeholder(tf.float32, name="x")
        out = aggregator(x, id="u", method=MIN_MAX)
        saver(out[1:], ["u"], [MIN_MAX], SCRATCH + "/stats.pb")
        return x, [out[0].op]
    file_case("saver_never_run", unused, [[1.0]])

    for dtype, values in [
            (tf.float32, [[1.0, 2.0, 3.0], [4.0]]),
            (tf.int64, [[[1, 2], [3, 4]], np.zeros([0, 2], np.int64)]),
            (tf.string, [["ab", "c"], ["", "xyz", "q"]]),
            (tf.bool, [[True, False]]),
            (tf.float64, [2.5])]:
        def dumped(dtype=dtype):
            x = tf1.placeholder(dtype, name="x")
            return x, [dump(x, SCRATCH + "/dumps/sub", "values.pb")]
        file_case(f"dump_{dtype.name}", dumped, values)

    def disabled():
        x = tf1.placeholder(tf.float32, name="x")
        return x, [dump(x, SCRATCH + "/off", "values.pb", enabled=False)]
    file_case("dump_disabled", disabled, [[1.0], [2.0]])

    # Many records: more than the 256 KiB TensorFlow gathers before it
    # deflates.
    def many():
        x = tf1.placeholder(tf.float32, name="x")
        return x, [dump(tf.tile(x, [20000]), SCRATCH + "/d", "big.pb")]
    file_case("dump_large", many,
              [np.arange(5, dtype=np.float32) * (i + 1) for i in range(4)])


def main():
    aggregator_cases()
    saver_cases()
    file_cases()
    # After the cases: the first case empties the family's folder.
    golden_lib.write_op_defs(FAMILY, OPS)


if __name__ == "__main__":
    main()
