"""TensorFlow 2.21 reads checkpoints that dfx wrote, and a TensorFlow client
saves and restores through a dfx cluster.

1. dfx writes (`dfx run` of a GraphDef that TensorFlow built):
   - one SaveV2 of constants of every dtype a bundle holds;
   - the graph tf.compat.v1.train.Saver(sharded=True) builds (StringJoin,
     StaticRegexFullMatch, Select, ShardedFilename, one SaveV2 per device,
     Pack, MergeV2Checkpoints), over two local devices.
   TensorFlow then reads each checkpoint three ways and checks every value
   bit for bit: tf.train.load_checkpoint, tf.raw_ops.RestoreV2, and
   tf.compat.v1.train.Saver().restore into variables.
2. On a dfx cluster (`dfx cluster up`, two worker tasks), a TensorFlow
   client session runs the same sharded save graph with one shard on each
   task: the dfx servers write the files; TensorFlow reads them.
3. When the dfx binary has variable ops (VariableV2, VarHandleOp, ...), a
   real tf.compat.v1.train.Saver(sharded=True) over variables on both tasks
   saves from a TensorFlow client session on the dfx cluster, TensorFlow
   reads the files, and the same client restores a TensorFlow-written
   checkpoint into the variables on the cluster and fetches them.

    $(tools/tf_env) tests/interop/tf_read_checkpoint.py --dfx build/bin/dfx

Exit status: 0 when every check passes, 1 otherwise.
"""

import argparse
import os
import subprocess
import sys
import tempfile

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")

import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402

tf1 = tf.compat.v1
tf1.disable_eager_execution()

STRINGS = [b"", b"a\x00b", b"\xff\xfe\x00", b"x" * 300, b"last"]


def variable_values():
    """Values of every dtype a TensorFlow variable can hold on CPU."""
    r = np.random.default_rng(11)
    return {
        "dense/kernel": r.standard_normal((3, 4)).astype(np.float32),
        "dense/bias": np.array([0.5, -1.25, np.inf, np.nan], np.float32),
        "global_step": np.array(-1234567890123, np.int64),
        "counts": r.integers(-1000, 1000, (2, 3)).astype(np.int32),
        "mask": np.array([True, False, True]),
        "names": np.array(STRINGS, dtype=object),
        "title": np.array(b"dfx \x00 wrote this", dtype=object),
        "f64": r.standard_normal(3),
        "f16": r.standard_normal(4).astype(np.float16),
        "bf16": r.standard_normal((2, 2)).astype(tf.bfloat16.as_numpy_dtype),
        "i8": np.array([-128, 0, 127], np.int8),
        "u8": np.array([0, 1, 255], np.uint8),
        "i16": np.array([-32768, 7, 32767], np.int16),
        "u16": np.array([0, 65535], np.uint16),
        "c64": np.array([1 + 2j, -3.5 - 0.25j], np.complex64),
        "c128": np.array([1e300 + 1j], np.complex128),
        "empty": np.zeros((0, 3), np.float32),
    }


def all_values():
    v = variable_values()
    v["u32"] = np.array([0, 4000000000], np.uint32)
    v["u64"] = np.array([0, 18446744073709551615], np.uint64)
    v["empty_strings"] = np.array([], dtype=object).reshape(0, 2)
    v["scalar_f32"] = np.array(3.25, np.float32)
    return v


def constant(value):
    value = np.asarray(value)
    if value.dtype == object:
        return tf.constant(value, dtype=tf.string)
    return tf.constant(value)


def same(got, want):
    got = np.asarray(got)
    want = np.asarray(want)
    if got.shape != want.shape:
        return False
    if want.dtype == object:
        return [bytes(x) for x in got.reshape(-1)] == \
               [bytes(x) for x in want.reshape(-1)]
    return got.dtype == want.dtype and got.tobytes() == want.tobytes()


class Checker:
    def __init__(self):
        self.failures = 0
        self.checks = 0

    def expect(self, ok, what):
        self.checks += 1
        if not ok:
            self.failures += 1
            print(f"FAIL {what}", file=sys.stderr)


# ---------------------------------------------------------------------------
# Graphs for dfx to run.

def save_graph(prefix, values):
    """One SaveV2 of constants; returns (GraphDef, target node)."""
    graph = tf.Graph()
    with graph.as_default():
        names = sorted(values)
        save = tf.raw_ops.SaveV2(
            prefix=prefix, tensor_names=names,
            shape_and_slices=[""] * len(names),
            tensors=[constant(values[n]) for n in names], name="save")
    return complex_as_content(graph.as_graph_def()), save.name


def sharded_save_graph(prefix, values, devices):
    """The graph Saver(sharded=True) builds, constants in place of
    variables, one shard per device; returns (GraphDef, target tensor)."""
    graph = tf.Graph()
    names = sorted(values)
    groups = [names[i::len(devices)] for i in range(len(devices))]
    with graph.as_default():
        with tf1.device(devices[0]):
            filename = tf.constant(prefix, name="save/Const")
            is_s3 = tf.strings.regex_full_match(filename, "^s3://.*")
            suffix = tf1.where(is_s3, tf.constant(".part"),
                               tf.constant("_temp/part"))
            tmp = tf.strings.join([filename, suffix])
            num_shards = tf.constant(len(devices), name="save/num_shards")
        shard_files = []
        saves = []
        for shard, (device, group) in enumerate(zip(devices, groups)):
            with tf1.device(device):
                fname = tf.raw_ops.ShardedFilename(
                    basename=tmp, shard=shard, num_shards=num_shards)
                tensors = [constant(values[n]) for n in group]
                saves.append(tf.raw_ops.SaveV2(
                    prefix=fname, tensor_names=group,
                    shape_and_slices=[""] * len(group), tensors=tensors))
                shard_files.append(fname)
        with tf1.device(devices[0]):
            with tf.control_dependencies(saves):
                prefixes = tf.stack(shard_files)
            merge = tf.raw_ops.MergeV2Checkpoints(
                checkpoint_prefixes=prefixes, destination_prefix=filename,
                delete_old_dirs=True)
            with tf.control_dependencies([merge]):
                done = tf.identity(filename, name="save/done")
    return complex_as_content(graph.as_graph_def()), done.name


def complex_as_content(graph_def):
    """Rewrites complex Const values from scomplex_val/dcomplex_val to
    tensor_content, the form dfx's TensorProto decoding reads for complex
    types (TensorFlow reads both)."""
    for node in graph_def.node:
        if node.op != "Const":
            continue
        proto = node.attr["value"].tensor
        if proto.dtype in (tf.complex64.as_datatype_enum,
                           tf.complex128.as_datatype_enum):
            array = tf.make_ndarray(proto)
            proto.ClearField("scomplex_val")
            proto.ClearField("dcomplex_val")
            proto.tensor_content = np.ascontiguousarray(array).tobytes()
    return graph_def


def run_dfx(dfx, graph_def, target, workdir, extra=()):
    path = os.path.join(workdir, "graph.pb")
    with open(path, "wb") as f:
        f.write(graph_def.SerializeToString())
    node = target.split(":")[0]
    proc = subprocess.run([dfx, "run", "--graph", path, "--target", node,
                           *extra], capture_output=True, text=True,
                          timeout=300)
    if proc.returncode != 0:
        raise RuntimeError(f"dfx run failed: {proc.stderr}")


# ---------------------------------------------------------------------------
# TensorFlow reading.

def check_checkpoint(checker, prefix, values, label):
    """TensorFlow reads `prefix` three ways; every value must equal."""
    reader = tf.train.load_checkpoint(prefix)
    dtypes = reader.get_variable_to_dtype_map()
    checker.expect(sorted(dtypes) == sorted(values),
                   f"{label}: keys {sorted(dtypes)}")
    for name, want in values.items():
        if name in dtypes:
            checker.expect(same(reader.get_tensor(name), want),
                           f"{label}: load_checkpoint {name}")

    names = sorted(values)
    graph = tf.Graph()
    with graph.as_default():
        restored = tf.raw_ops.RestoreV2(
            prefix=prefix, tensor_names=names,
            shape_and_slices=[""] * len(names),
            dtypes=[constant(values[n]).dtype for n in names])
        with tf1.Session(graph=graph) as sess:
            got = sess.run(restored)
    for name, value in zip(names, got):
        checker.expect(same(value, values[name]), f"{label}: RestoreV2 {name}")

    # Saver.restore into variables of the same names (those a variable can
    # hold), starting from zeros.
    var_names = [n for n in names if n in variable_values()]
    graph = tf.Graph()
    with graph.as_default():
        variables = {}
        for i, n in enumerate(var_names):
            want = np.asarray(values[n])
            init = np.zeros_like(want) if want.dtype != object else \
                np.full(want.shape, b"", dtype=object)
            variables[n] = tf1.Variable(constant(init), name=n,
                                        use_resource=(i % 2 == 1))
        saver = tf1.train.Saver(variables)
        with tf1.Session(graph=graph) as sess:
            saver.restore(sess, prefix)
            got = sess.run({n: v.value() for n, v in variables.items()})
    for n in var_names:
        checker.expect(same(got[n], values[n]), f"{label}: Saver.restore {n}")


def have_variable_ops(dfx):
    for op in ("VariableV2", "VarHandleOp", "AssignVariableOp",
               "ReadVariableOp", "VarIsInitializedOp", "Assign"):
        out = subprocess.run([dfx, "ops", "--filter", op],
                             capture_output=True, text=True)
        if out.returncode != 0 or op not in out.stdout:
            return False
    return True


def cluster_variables(values, devices):
    """Variables alternating between `devices` and between the reference
    and resource forms, initialized from placeholders (fed values travel as
    tensor_content, which dfx decodes for every dtype); returns (variables
    in name order, feed dict for the initializer)."""
    variables = []
    feeds = {}
    for i, (name, value) in enumerate(sorted(values.items())):
        value = np.asarray(value)
        dtype = tf.string if value.dtype == object else tf.as_dtype(value.dtype)
        with tf1.device(devices[i % 2]):
            init = tf1.placeholder(dtype, shape=value.shape,
                                   name=f"init/{name}")
            variables.append(tf1.Variable(init, name=name,
                                          use_resource=(i % 2 == 0)))
        feeds[init] = value
    return variables, feeds


def real_saver_on_cluster(checker, target, workdir):
    """A real Saver over variables on both tasks, from a TF client."""
    values = variable_values()
    devices = ["/job:worker/task:0", "/job:worker/task:1"]
    prefix = os.path.join(workdir, "saver_cluster", "model.ckpt")
    os.makedirs(os.path.dirname(prefix))
    graph = tf.Graph()
    with graph.as_default():
        variables, feeds = cluster_variables(values, devices)
        saver = tf1.train.Saver(variables, sharded=True)
        init = tf1.global_variables_initializer()
        config = tf1.ConfigProto(operation_timeout_in_ms=120000)
        with tf1.Session(target, graph=graph, config=config) as sess:
            sess.run(init, feed_dict=feeds)
            saved = saver.save(sess, prefix, write_meta_graph=False,
                               write_state=False)
            checker.expect(saved == prefix, f"Saver.save returned {saved}")
        check_checkpoint(checker, prefix, values, "Saver on a dfx cluster")

    # TensorFlow writes a checkpoint of other values; the client restores it
    # into the variables on the cluster and fetches them.
    other = {n: (np.asarray(v)[::-1].copy() if np.asarray(v).ndim == 1
                 else v) for n, v in values.items()}
    tf_prefix = os.path.join(workdir, "tf_written", "model.ckpt")
    os.makedirs(os.path.dirname(tf_prefix))
    graph = tf.Graph()
    with graph.as_default():
        tf_vars = [tf1.Variable(constant(other[n]), name=n)
                   for n in sorted(other)]
        with tf1.Session(graph=graph) as sess:
            sess.run(tf1.global_variables_initializer())
            tf1.train.Saver(tf_vars).save(sess, tf_prefix,
                                          write_meta_graph=False,
                                          write_state=False)
    g2 = tf.Graph()
    with g2.as_default():
        variables, _ = cluster_variables(values, devices)
        saver = tf1.train.Saver(variables, sharded=True)
        config = tf1.ConfigProto(operation_timeout_in_ms=120000)
        with tf1.Session(target, graph=g2, config=config) as sess:
            saver.restore(sess, tf_prefix)
            got = sess.run([v.value() for v in variables])
    for name, value in zip(sorted(values), got):
        checker.expect(same(value, other[name]),
                       f"Saver.restore on a dfx cluster: {name}")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--dfx", required=True, help="the dfx binary")
    args = parser.parse_args()
    checker = Checker()

    with tempfile.TemporaryDirectory(prefix="dfx-ckpt-interop-") as work:
        # 1. dfx writes in a local session.
        prefix = os.path.join(work, "plain", "all_dtypes")
        graph_def, target = save_graph(prefix, all_values())
        run_dfx(args.dfx, graph_def, target, work)
        check_checkpoint(checker, prefix, all_values(), "dfx SaveV2")

        prefix = os.path.join(work, "sharded", "model.ckpt")
        os.makedirs(os.path.dirname(prefix))
        graph_def, target = sharded_save_graph(
            prefix, all_values(), ["/device:CPU:0", "/device:CPU:1"])
        run_dfx(args.dfx, graph_def, target, work,
                extra=["--local-devices", "2"])
        checker.expect(sorted(os.listdir(os.path.dirname(prefix))) == [
            "model.ckpt.data-00000-of-00002",
            "model.ckpt.data-00001-of-00002", "model.ckpt.index"],
            f"sharded files: {os.listdir(os.path.dirname(prefix))}")
        check_checkpoint(checker, prefix, all_values(), "dfx sharded save")

        # 2. A TensorFlow client saves through a dfx cluster.
        cluster_dir = os.path.join(work, "cluster")
        up = subprocess.run([args.dfx, "cluster", "up", "--workers", "2",
                             "--ps", "0", "--dir", cluster_dir],
                            capture_output=True, text=True, timeout=120)
        if up.returncode != 0:
            print("dfx cluster up failed:", up.stderr, file=sys.stderr)
            return 1
        target = up.stdout.strip().splitlines()[-1]
        try:
            prefix = os.path.join(work, "cluster_save", "model.ckpt")
            os.makedirs(os.path.dirname(prefix))
            graph_def, done = sharded_save_graph(
                prefix, all_values(),
                ["/job:worker/task:0", "/job:worker/task:1"])
            graph = tf.Graph()
            with graph.as_default():
                tf1.import_graph_def(graph_def, name="")
                config = tf1.ConfigProto(operation_timeout_in_ms=120000)
                with tf1.Session(target, graph=graph, config=config) as sess:
                    got = sess.run(graph.get_tensor_by_name(done))
            checker.expect(got == prefix.encode(), f"save returned {got}")
            check_checkpoint(checker, prefix, all_values(),
                             "TF client, dfx cluster")

            # 3. A real Saver over variables, when dfx has variables.
            if have_variable_ops(args.dfx):
                real_saver_on_cluster(checker, target, work)
            else:
                print("note: this dfx has no variable ops; the real Saver "
                      "check did not run")
        finally:
            subprocess.run([args.dfx, "cluster", "down", "--dir",
                            cluster_dir], capture_output=True, timeout=60)

    print(f"{checker.checks - checker.failures} of {checker.checks} "
          f"checkpoint checks pass (TensorFlow reading what dfx wrote)")
    return 1 if checker.failures else 0


if __name__ == "__main__":
    sys.exit(main())
