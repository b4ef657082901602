"""Writes golden cases: a TensorFlow graph, its feeds, and TensorFlow's answer.

Each generator (gen_<family>.py) calls `case(...)` once per case; the case is
run in TensorFlow 2.21 (tf.compat.v1 graph mode, Grappler off so TensorFlow
runs exactly the graph it exported) and written to

    tests/golden/data/<family>/<case>/
        graph.pb        the GraphDef, binary
        case.json       feeds, fetches, output files, tolerances, or the
                        error TensorFlow raised
        feed_<i>.npy    one per feed, in case.json order
        out_<i>.npy     one per fetch, in case.json order

Quantized tensors (qint8, quint8, qint16, quint16, qint32) are stored as
the integers they hold (int8, uint8, int16, uint16, int32), with the quantized
dtype's name in case.json. Complex tensors are stored as float32/float64 (real, imaginary) pairs in a
trailing dimension of 2, with dtype "complex64"/"complex128" in case.json.
String tensors (dtype "string" in case.json), which .npy files cannot hold
without pickle, are written as feed_<i>.json / out_<i>.json instead:
{"shape": [dims], "base64": [each element's bytes, base64, row-major]}
(golden_util.cc's ReadTensorFile reads both kinds).

Multi-step cases (gen_lookup.py's steps_case) feed file names: a string
"@CASE_DIR@/name" is a file of the case's own folder (what the case reads),
"@SCRATCH_DIR@/name" one in a fresh temporary directory that golden_test.cc
and the interop client make for each run of the case (what it writes). No
case names a fixed path outside its folder, so runs never share files.

tests/golden/golden_test.cc runs every case through a dfx local session and
compares. Run the generators with the TensorFlow virtualenv:

    $(tools/tf_env) tests/golden/gen_math.py          # one family
    tests/golden/gen_all                               # every family

A generator rewrites its whole family folder, so a removed case disappears.
Keep cases small (feeds and outputs of a few KiB); large-reduction cases build
their big inputs inside the graph (tf.ones, tf.range) instead of feeding them.
"""

import base64
import json
import os
import re
import shutil
import sys

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")

import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402

tf1 = tf.compat.v1
# Cases build their graphs inside tf.Graph().as_default(), which is graph
# mode either way; generators that freeze Keras models (tf.function and
# convert_variables_to_constants_v2) need eager mode outside those graphs
# and set DFX_GOLDEN_EAGER=1 before importing this module.
if os.environ.get("DFX_GOLDEN_EAGER") != "1":
    tf1.disable_eager_execution()

DATA_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data")

# Default tolerances by output dtype: |dfx - tf| <= atol + rtol * |tf|.
DEFAULT_TOL = {
    "float32": (1e-5, 1e-6),
    "float64": (1e-12, 1e-14),
    "float16": (1e-3, 1e-3),
    "bfloat16": (1e-2, 1e-2),
    "complex64": (1e-5, 1e-6),
    "complex128": (1e-12, 1e-14),
}

_families_started = set()


def _family_dir(family):
    path = os.path.join(DATA_DIR, family)
    if family not in _families_started:
        shutil.rmtree(path, ignore_errors=True)
        os.makedirs(path)
        _families_started.add(family)
    return path


def family_folder(family):
    """The family's data folder, emptied the first time it is asked for in
    this run (as case() does): for steps_case in a generator that calls
    case() too."""
    return _family_dir(family)


def _session_config():
    config = tf1.ConfigProto()
    rw = config.graph_options.rewrite_options
    rw.disable_meta_optimizer = True
    config.graph_options.optimizer_options.opt_level = tf1.OptimizerOptions.L0
    config.graph_options.optimizer_options.do_constant_folding = False
    config.graph_options.optimizer_options.do_function_inlining = False
    return config


def _error_code_name(err):
    return tf.errors.exception_type_from_error_code(err.error_code).__name__


# TensorFlow's error classes by canonical code name, as dfx's absl codes
# print them.
_CODE_NAMES = {
    "InvalidArgumentError": "INVALID_ARGUMENT",
    "NotFoundError": "NOT_FOUND",
    "OutOfRangeError": "OUT_OF_RANGE",
    "UnimplementedError": "UNIMPLEMENTED",
    "ResourceExhaustedError": "RESOURCE_EXHAUSTED",
    "FailedPreconditionError": "FAILED_PRECONDITION",
    "InternalError": "INTERNAL",
    "UnknownError": "UNKNOWN",
    "DataLossError": "DATA_LOSS",
    "CancelledError": "CANCELLED",
    "DeadlineExceededError": "DEADLINE_EXCEEDED",
    "AlreadyExistsError": "ALREADY_EXISTS",
    "AbortedError": "ABORTED",
}


def _clean_message(message):
    """TensorFlow's error text without the Python traceback it prepends in
    graph mode ("Graph execution error: Detected at node ... Node: 'x'")."""
    m = re.search(r"\nNode: '[^']*'\n(.*?)(\n\t \[\[|$)", message, re.S)
    if m:
        return m.group(1).strip()
    return message.split("\n\t [[")[0].strip()


# TensorFlow's quantized dtypes, which NumPy sees as one-field structured
# types; golden cases store them as the integers of that field.
_QUANTIZED = {"qint8": np.int8, "quint8": np.uint8, "qint16": np.int16,
              "quint16": np.uint16, "qint32": np.int32}


def _to_npy(value):
    """(array to save, dtype name recorded in case.json)."""
    value = np.asarray(value)
    names = value.dtype.names
    if names and len(names) == 1 and names[0] in _QUANTIZED:
        storage = value.view(_QUANTIZED[names[0]]).reshape(value.shape)
        # ascontiguousarray makes a 0-d array 1-d: reshape back.
        return np.ascontiguousarray(storage).reshape(value.shape), names[0]
    name = value.dtype.name
    if name == "bfloat16" or str(value.dtype) == "bfloat16":
        return value.astype(np.float32), "bfloat16"
    if value.dtype.kind == "c":
        # dfx's npy reader has no complex dtypes: store (real, imaginary)
        # pairs in a trailing dimension of 2 (golden_util's ComplexFromPairs).
        part = np.float32 if value.dtype == np.complex64 else np.float64
        pairs = np.stack([value.real, value.imag], axis=-1).astype(part)
        return np.ascontiguousarray(pairs), name
    if value.dtype == object:
        raise ValueError("string tensors are not supported in golden cases")
    return np.ascontiguousarray(value).reshape(value.shape), name


def _is_string(value):
    value = np.asarray(value)
    return value.dtype == object or value.dtype.kind in ("S", "U")


def save_value(out_dir, stem, value, tf_dtype=None):
    """Writes `value` as out_dir/stem.npy, or stem.json for a string tensor;
    returns (file name, dtype name for case.json). tf_dtype: the fetched
    tensor's dtype, for quantized values (which Session.run returns as
    plain integers)."""
    if tf_dtype is not None and tf_dtype.is_quantized:
        storage = _QUANTIZED[tf_dtype.name]
        value = np.asarray(value)
        value = value.view(storage) if value.dtype.names else value
        fname = stem + ".npy"
        np.save(os.path.join(out_dir, fname),
                np.ascontiguousarray(value.astype(storage)))
        return fname, tf_dtype.name
    if _is_string(value):
        value = np.asarray(value, dtype=object)
        items = []
        for v in value.reshape(-1):
            if isinstance(v, str):
                v = v.encode("utf-8")
            items.append(base64.b64encode(bytes(v)).decode("ascii"))
        fname = stem + ".json"
        with open(os.path.join(out_dir, fname), "w") as f:
            json.dump({"shape": list(value.shape), "base64": items}, f)
        return fname, "string"
    arr, dtype = _to_npy(value)
    fname = stem + ".npy"
    np.save(os.path.join(out_dir, fname), arr)
    return fname, dtype


def case(family, name, build, rtol=None, atol=None, note=""):
    """Builds, runs and writes one case.

    build() runs inside a fresh tf.Graph and returns (fetches, feed_dict):
      fetches    a tensor or a list of tensors to fetch
      feed_dict  {placeholder tensor: numpy value}, may be empty or None
    rtol/atol override the dtype defaults for every output of the case.
    When TensorFlow raises an OpError the case records the error's code
    instead of outputs, and dfx must fail with the same code.
    """
    graph = tf.Graph()
    with graph.as_default():
        fetches, feed_dict = build()
        feed_dict = feed_dict or {}
        if not isinstance(fetches, (list, tuple)):
            fetches = [fetches]
        fetches = list(fetches)
        graph_def = graph.as_graph_def()
        spec = {
            "name": name,
            "note": note,
            "feeds": [],
            "fetches": [t.name for t in fetches],
        }
        with tf1.Session(graph=graph, config=_session_config()) as sess:
            try:
                results = sess.run(fetches, feed_dict=feed_dict)
                error = None
            except tf.errors.OpError as err:  # TensorFlow's answer is an error
                results = None
                error = err
    out_dir = os.path.join(_family_dir(family), name)
    os.makedirs(out_dir)
    with open(os.path.join(out_dir, "graph.pb"), "wb") as f:
        # Deterministic: NodeDef attrs are a map, whose serialized order
        # otherwise changes between runs, and a regenerated family would
        # rewrite every graph.pb that did not change.
        f.write(graph_def.SerializeToString(deterministic=True))
    for i, (tensor, value) in enumerate(feed_dict.items()):
        fname, dtype = save_value(out_dir, f"feed_{i}", value)
        spec["feeds"].append({"name": tensor.name, "file": fname,
                              "dtype": dtype})
    _write_answer(family, out_dir, spec, [t.dtype for t in fetches], results,
                  error, rtol, atol)


def _write_answer(family, out_dir, spec, dtypes, results, error, rtol,
                  atol):
    """Adds TensorFlow's answer to spec (the error, or the outputs saved
    as out_<i> files) and writes case.json."""
    if error is not None:
        code = _CODE_NAMES.get(type(error).__name__, type(error).__name__)
        spec["error"] = {"code": code,
                         "message": _clean_message(error.message)[:300]}
    else:
        spec["outputs"] = []
        for i, value in enumerate(results):
            fname, dtype = save_value(out_dir, f"out_{i}", value,
                                      tf_dtype=dtypes[i])
            d_rtol, d_atol = DEFAULT_TOL.get(dtype, (0.0, 0.0))
            spec["outputs"].append({
                "file": fname,
                "dtype": dtype,
                "rtol": d_rtol if rtol is None else rtol,
                "atol": d_atol if atol is None else atol,
            })
    with open(os.path.join(out_dir, "case.json"), "w") as f:
        json.dump(spec, f, indent=1, sort_keys=True)
        f.write("\n")
    status = "error " + spec["error"]["code"] if error is not None else "ok"
    print(f"{family}/{spec['name']}: {status}", file=sys.stderr)


def case_graph_def(family, name, graph_def, feeds, fetches, rtol=None,
                   atol=None, note=""):
    """Writes a case for an existing GraphDef (a frozen Keras model, say).

    feeds: {tensor name ("x:0"): numpy value}; fetches: tensor names.
    """
    def build():
        tf1.import_graph_def(graph_def, name="")
        g = tf1.get_default_graph()
        return ([g.get_tensor_by_name(n) for n in fetches],
                {g.get_tensor_by_name(n): v for n, v in feeds.items()})
    case(family, name, build, rtol=rtol, atol=atol, note=note)


def placeholder(value, name=None, shape=None):
    """A placeholder with value's dtype (and shape unless given); returns
    (tensor, value) so callers can build feed dicts in one line."""
    value = np.asarray(value)
    dtype = tf.as_dtype(value.dtype)
    ph = tf1.placeholder(dtype, shape=value.shape if shape is None else shape,
                         name=name)
    return ph, value


def rng(seed=0):
    return np.random.default_rng(seed)


def write_op_defs(family, op_names, type_attrs=None, drop_types=()):
    """Writes TensorFlow 2.21's signatures of a family's ops for its C++
    signature test (testing::DiffOpDefsWithTensorFlow and
    DiffCpuKernelTypesWithTensorFlow):

        data/<family>/tf_op_defs.pbtxt    the OpDefs, as a text OpList
        data/<family>/tf_cpu_kernels.txt  one line per op,
            `<Op> <attr> <DataType numbers...>`: the types of TensorFlow's
            CPU kernels for that type attr which the OpDef allows (all it
            allows when a kernel does not constrain the attr; `*` when
            neither limits it), or `<Op>` alone when the op has no type
            attr.

    The attr is type_attrs[op] when given, else "T", else the op's first
    `type` attr. Quantized, resource, variant, float8, int4 and int2 types
    are left out (dfx has kernels for none of them but the quantized ones
    of QuantizeV2 and Dequantize, which their golden cases check), and so
    is every tf.DType in drop_types.
    """
    from google.protobuf import text_format
    from tensorflow.core.framework import op_def_pb2
    from tensorflow.python.framework import kernels, op_def_registry
    type_attrs = type_attrs or {}
    generator = os.path.basename(sys.argv[0])
    ops = op_def_pb2.OpList()
    for n in op_names:
        op = ops.op.add()
        op.CopyFrom(op_def_registry.get(n))
        # dfx's OpDef has no full-type annotations (TensorFlow's dataset and
        # variant ops carry them; nothing on the wire depends on them).
        for arg in list(op.input_arg) + list(op.output_arg):
            arg.ClearField("experimental_full_type")
    # Not _family_dir: writing the signatures alone must not wipe the cases.
    folder = os.path.join(DATA_DIR, family)
    os.makedirs(folder, exist_ok=True)
    with open(os.path.join(folder, "tf_op_defs.pbtxt"), "w") as f:
        f.write(f"# TensorFlow 2.21's OpDefs of the {family} ops, written "
                f"by {generator}.\n")
        f.write(text_format.MessageToString(ops))
    lines = []
    for op in ops.op:
        type_args = [a for a in op.attr if a.type == "type"]
        names = [a.name for a in type_args]
        attr = type_attrs.get(op.name) or ("T" if "T" in names else
                                            (names[0] if names else None))
        if attr is None:
            lines.append(op.name)
            continue
        allowed = None
        for a in type_args:
            if a.name == attr and a.allowed_values.list.type:
                allowed = set(a.allowed_values.list.type)
        types = set()
        unconstrained = False
        for k in kernels.get_registered_kernels_for_op(op.name).kernel:
            if k.device_type != "CPU":
                continue
            cs = [c for c in k.constraint if c.name == attr]
            unconstrained |= not cs
            for c in cs:
                types.update(c.allowed_values.list.type)
        if unconstrained:
            # A kernel without a constraint serves every type the OpDef
            # allows: '*' when the OpDef allows any.
            if allowed is None:
                lines.append(f"{op.name} {attr} *")
                continue
            types = set(allowed)
        if allowed is not None:
            types &= allowed
        # 24..32: the float8, int4 and int2 types, which dfx's tensors do
        # not hold.
        types = sorted(t for t in types
                       if not tf.as_dtype(t).is_quantized and
                       tf.as_dtype(t) not in (tf.resource, tf.variant) and
                       not 24 <= t <= 32 and
                       tf.as_dtype(t) not in drop_types)
        lines.append(" ".join([op.name, attr] + [str(t) for t in types]))
    with open(os.path.join(folder, "tf_cpu_kernels.txt"), "w") as f:
        f.write("# <Op> <type attr> <DataType numbers of TensorFlow 2.21's "
                f"CPU kernels the OpDef allows>, written by {generator}.\n")
        f.write("\n".join(lines) + "\n")


def flat(t):
    """Scalars come back as [1]."""
    if isinstance(t, tf.Tensor) and t.shape.rank == 0:
        return tf.reshape(t, [1])
    return t


def steps_case(folder, name, build, steps, note=""):
    """A multi-step case (gen_queues.py, gen_summary.py): one graph, then
    steps run one after another in one session. build() returns {key:
    tensor or op}; steps is a list of lists of keys (a tensor key is
    fetched, an op key run as a target). Writes folder/name/ with
    case.json's "steps" (each step's fetches, targets and outputs
    out_<step>_<i>.npy, or TensorFlow's error), which golden_test.cc runs
    in order in one dfx session."""
    graph = tf.Graph()
    with graph.as_default():
        named = build()
        named = {k: flat(v) for k, v in named.items()}
        graph_def = graph.as_graph_def()
        spec = {"name": name, "note": note, "feeds": [], "steps": []}
        results = []
        config = _session_config()
        config.operation_timeout_in_ms = 20000  # a wait is a bug here
        with tf1.Session(graph=graph, config=config) as sess:
            for keys in steps:
                fetches = [named[k] for k in keys
                           if isinstance(named[k], tf.Tensor)]
                targets = [named[k] for k in keys
                           if not isinstance(named[k], tf.Tensor)]
                step = {"fetches": [t.name for t in fetches],
                        "targets": [op.name for op in targets]}
                try:
                    out = sess.run([fetches, targets])[0]
                    results.append(out)
                except tf.errors.OpError as err:
                    code = _CODE_NAMES.get(type(err).__name__,
                                           type(err).__name__)
                    step["error"] = {
                        "code": code,
                        "message": _clean_message(err.message)[:300]}
                    results.append(None)
                spec["steps"].append(step)
    out_dir = os.path.join(folder, name)
    os.makedirs(out_dir)
    with open(os.path.join(out_dir, "graph.pb"), "wb") as f:
        f.write(graph_def.SerializeToString())
    for s, (step, out) in enumerate(zip(spec["steps"], results)):
        if out is None:
            continue
        step["outputs"] = []
        for i, value in enumerate(out):
            # .npy as before; strings as .json (save_value).
            fname, dtype = save_value(out_dir, f"out_{s}_{i}", value)
            rtol, atol = DEFAULT_TOL.get(dtype, (0.0, 0.0))
            step["outputs"].append({"file": fname, "dtype": dtype,
                                    "rtol": rtol, "atol": atol})
    with open(os.path.join(out_dir, "case.json"), "w") as f:
        json.dump(spec, f, indent=1, sort_keys=True)
        f.write("\n")
    codes = [s.get("error", {}).get("code", "ok") for s in spec["steps"]]
    print(f"{os.path.basename(folder)}/{name}: {' '.join(codes)}",
          file=sys.stderr)


# GraphDef producer version of the cases legacy_case writes: older than
# every deprecation (the oldest, BatchSelfAdjointEig's, is at version 11).
LEGACY_PRODUCER = 7


def legacy_case(family, name, build, fetches=None, note="",
                producer=LEGACY_PRODUCER, rtol=None, atol=None):
    """A case of a deprecated op TensorFlow 2.21 refuses in a new graph but
    still runs from a GraphDef produced before the deprecation.

    build() runs inside a fresh tf.Graph, makes a stand-in node in place of
    the deprecated one, and returns edit (then `fetches` names the tensors
    to fetch) or (edit, fetches): edit(graph_def) turns the stand-in into
    the deprecated op (see rename_node). The case runs the edited GraphDef,
    marked as produced at version `producer` (an op deprecated at version N
    runs in GraphDefs produced before N); TensorFlow's error, if any, is
    recorded as case() does.
    """
    graph = tf.Graph()
    with graph.as_default():
        built = build()
    edit = built
    if isinstance(built, tuple):
        edit, fetches = built
    graph_def = graph.as_graph_def()
    edit(graph_def)
    graph_def.versions.producer = producer
    run_graph = tf.Graph()
    with run_graph.as_default():
        tf1.import_graph_def(graph_def, name="")
        tensors = [run_graph.get_tensor_by_name(n) for n in fetches]
        with tf1.Session(graph=run_graph, config=_session_config()) as sess:
            try:
                results, error = sess.run(tensors), None
            except tf.errors.OpError as err:
                results, error = None, err
    out_dir = os.path.join(_family_dir(family), name)
    os.makedirs(out_dir)
    with open(os.path.join(out_dir, "graph.pb"), "wb") as f:
        # The edited GraphDef itself: its producer version is what lets
        # TensorFlow run the deprecated op.
        f.write(graph_def.SerializeToString(deterministic=True))
    spec = {"name": name, "note": note, "feeds": [], "fetches": fetches}
    _write_answer(family, out_dir, spec, [t.dtype for t in tensors], results,
                  error, rtol, atol)


def rename_node(node_name, op, drop_attrs=(), inputs=None):
    """An edit for legacy_case: node `node_name` becomes an `op` node
    without `drop_attrs`, with `inputs` (tensor names) when given."""
    def edit(graph_def):
        for node in graph_def.node:
            if node.name == node_name:
                node.op = op
                for a in drop_attrs:
                    if a in node.attr:
                        del node.attr[a]
                if inputs is not None:
                    del node.input[:]
                    node.input.extend(inputs)
    return edit
