#!/usr/bin/env python3
"""Golden cases of the dataset4 family: tf.data's save and load
(tf.data.Dataset.save / tf.data.Dataset.load: SaveDataset, SaveDatasetV2,
LoadDataset) in TensorFlow's on-disk snapshot format,
DummyIterationCounter and DeleteMemoryCache, CompressElement and
UncompressElement, SamplingDataset, and the parse_example datasets
(tf.data.experimental.parse_example_dataset: ParseExampleDatasetV2,
ParseExampleDataset, ExperimentalParseExampleDataset), and
SnapshotDatasetReader over directories TensorFlow saved, as TensorFlow 2.21
runs them. Also writes TensorFlow's OpDefs of those ops (tests/golden/data/
dataset4/tf_op_defs.pbtxt), which tests/kernels/dataset4_test.cc compares
byte for byte with dfx's.

    $(tools/tf_env) tests/golden/gen_dataset4.py

Every case is multi-step (gen_lookup.py's steps_case). A save writes
under "@SCRATCH_DIR@/saved" (a fresh directory of each run) and a load
in the same graph reads it back, so each runtime reads what it wrote.
Directories TensorFlow saved are also written into case folders
("@CASE_DIR@/saved/...": snapshot.metadata and the shard files), so dfx
loads what TensorFlow wrote; tests/golden/dataset4_dfx_saved/ holds
directories dfx saved, which the load_dfx_saved cases give to TensorFlow,
so TensorFlow reads what dfx wrote. Those are written (replaced) first
when a dfx binary is named: this script then starts a local dfx cluster
and runs the save graphs on it through a TensorFlow client:

    $(tools/tf_env) tests/golden/gen_dataset4.py --dfx build/bin/dfx

Loads use a reader_func that reads the shards in order
(datasets.flat_map(lambda d: d)) and saves a shard_func, so the order of
elements does not depend on the machine: without a shard_func TensorFlow
spreads elements round robin over as many shards as the machine has CPUs
(the cases without one save a single element). Left out: SNAPPY
compression (dfx links no snappy; Unimplemented), the distributed
snapshot format (tf.data service), and checkpointing a save's iterator;
AnonymousRandomSeedGenerator and DeleteRandomSeedGenerator, which
TensorFlow 2.21 cannot run (the generator's kernel asks for a `reshuffle`
input the op does not have: "Unknown input name: reshuffle");
RaggedFeature in the parse_example datasets (dfx's example parser has no
ragged features yet: Unimplemented); SnapshotNestedDatasetReader
(TensorFlow 2.21 crashes with SIGSEGV making its iterator).
"""

import argparse
import os
import shutil
import subprocess
import tempfile

import numpy as np

import golden_lib
from golden_lib import tf, tf1
from gen_lookup import CASE_DIR, SCRATCH_DIR, steps_case
from tensorflow.python.data.ops import load_op
from tensorflow.python.data.ops import structured_function
from tensorflow.python.ops import gen_experimental_dataset_ops as ged_ops

FAMILY = "dataset4"
OPS = ["SaveDataset", "SaveDatasetV2", "LoadDataset",
       "DummyIterationCounter", "DeleteMemoryCache", "CompressElement",
       "UncompressElement", "SamplingDataset", "ParseExampleDataset",
       "ParseExampleDatasetV2", "ExperimentalParseExampleDataset",
       "SnapshotDatasetReader"]
raw = tf.raw_ops
DFX_SAVED = os.path.join(os.path.dirname(os.path.abspath(__file__)),
                         "dataset4_dfx_saved")


def shard_function(ds, fn):
    """fn as the graph function a save op's shard_func attr names."""
    wrapped = structured_function.StructuredFunctionWrapper(
        fn if fn is not None else (lambda *x: None), "save()",
        input_structure=ds.element_spec, add_to_graph=False)
    f = wrapped.function
    f.add_to_graph(tf1.get_default_graph())
    return f


def in_order(datasets):
    return datasets.flat_map(lambda d: d)


def save_op(ds, path, fn, compression=""):
    f = shard_function(ds, fn)
    return ged_ops.save_dataset(
        ds._variant_tensor, path=path,
        shard_func_other_args=f.captured_inputs, compression=compression,
        shard_func=f, use_shard_func=fn is not None)


def save_v2(ds, path, fn, compression=""):
    f = shard_function(ds, fn)
    spec = ds.element_spec
    variant = ged_ops.save_dataset_v2(
        ds._variant_tensor, path=path,
        shard_func_other_args=f.captured_inputs, shard_func=f,
        use_shard_func=fn is not None, compression=compression,
        output_types=[s.dtype for s in tf.nest.flatten(spec)],
        output_shapes=[s.shape for s in tf.nest.flatten(spec)])
    return tf.data.experimental.from_variant(variant, spec)


def iterate(ds, prefix, out):
    """An initializable iterator of ds: out[prefix + "init"] and one key per
    component; returns the component keys."""
    it = tf1.data.make_initializable_iterator(ds)
    out[prefix + "init"] = it.initializer
    keys = []
    for i, t in enumerate(tf.nest.flatten(it.get_next(),
                                          expand_composites=True)):
        out[f"{prefix}c{i}"] = t
        keys.append(f"{prefix}c{i}")
    return keys


def load(path, spec, compression="", reader=in_order):
    return load_op._LoadDataset(path, spec, compression, reader)


def mixed():
    return tf.data.Dataset.from_tensor_slices(
        (tf.constant([0, 1, 2, 3, 4], tf.int64),
         tf.constant(["zero", "", "two", "three", "four"]),
         tf.reshape(tf.range(10, dtype=tf.float32) / 4, [5, 2]),
         tf.constant([True, False, True, True, False])))


AT = {"path": SCRATCH_DIR + "/saved"}


def save_load_cases(folder):
    for name, compression in [("save_load", ""), ("save_load_gzip", "GZIP"),
                              ("save_load_zlib", "ZLIB"),
                              ("save_load_unknown_compression", "LZ4")]:
        def build(compression=compression):
            path = tf1.placeholder(tf.string, shape=[], name="path")
            ds = mixed()
            out = {"path": path,
                   "save": save_op(ds, path, lambda a, b, c, d: a % 2,
                                   compression)}
            keys = iterate(load(path, ds.element_spec, compression), "", out)
            return out
        keys = ["c0", "c1", "c2", "c3"]
        steps_case(folder, name, build,
                   [(["save"], AT), (["init"], AT)] + [(keys, {})] * 6,
                   note="shards 0 (even) and 1 (odd), read in order")

    def typed(make, fn, name, pulls, note=""):
        def build():
            path = tf1.placeholder(tf.string, shape=[], name="path")
            ds = make()
            out = {"path": path, "save": save_op(ds, path, fn)}
            iterate(load(path, ds.element_spec), "", out)
            return out
        g = tf.Graph()
        with g.as_default():
            n = len(tf.nest.flatten(make().element_spec))
        keys = [f"c{i}" for i in range(n)]
        steps_case(folder, name, build,
                   [(["save"], AT), (["init"], AT)] + [(keys, {})] * pulls,
                   note=note)

    typed(lambda: tf.data.Dataset.from_tensor_slices(
        tf.constant([[1, 2, 3], [4, 5, 6]], tf.int32)),
        lambda x: tf.cast(x[0], tf.int64) * 3, "int32_rows", 3,
        note="shards 3 and 12")
    typed(lambda: tf.data.Dataset.from_tensors(
        (tf.constant(np.arange(6).reshape(2, 3), tf.float64),
         tf.constant([b"\x00\xff", b"a"]), tf.constant(7, tf.uint8),
         tf.constant([1.5, -2], tf.half), tf.constant([3 + 4j],
                                                      tf.complex64))),
        lambda *x: tf.constant(0, tf.int64), "dtypes", 2)
    typed(lambda: tf.data.Dataset.from_tensors(
        tf.zeros([0, 3], tf.int64)),
        lambda x: tf.constant(5, tf.int64), "empty_tensor", 2)
    typed(lambda: tf.data.Dataset.range(0),
          lambda x: x, "empty_dataset", 1,
          note="no shard directory at all")
    typed(lambda: tf.data.Dataset.range(3),
          lambda x: -x, "negative_shard", 4,
          note="shard -1 is directory 18446744073709551615.shard")
    typed(lambda: tf.data.Dataset.range(41, 42), None, "no_shard_func", 2,
          note="round robin from shard 0")
    typed(lambda: tf.data.Dataset.range(2),
          lambda x: tf.cast(x, tf.int32), "shard_func_int32", 0)
    typed(lambda: tf.data.Dataset.range(2),
          lambda x: tf.stack([x, x]), "shard_func_vector", 0)

    # A second save into the same path: the metadata names the new run.
    def twice():
        path = tf1.placeholder(tf.string, shape=[], name="path")
        out = {"path": path,
               "save1": save_op(tf.data.Dataset.range(3), path,
                                lambda x: x),
               "save2": save_op(tf.data.Dataset.range(10, 12), path,
                                lambda x: x)}
        iterate(load(path, tf.data.Dataset.range(1).element_spec), "", out)
        return out
    steps_case(folder, "save_twice", twice,
               [(["save1"], AT), (["save2"], AT), (["init"], AT)] +
               [(["c0"], {})] * 3)

    # reader_func with a captured input, and one that reorders.
    def reader(name, make_fn, pulls):
        def build():
            fn = make_fn()
            path = tf1.placeholder(tf.string, shape=[], name="path")
            ds = tf.data.Dataset.range(6)
            out = {"path": path, "save": save_op(ds, path, lambda x: x % 3)}
            iterate(load(path, ds.element_spec, reader=fn), "", out)
            return out
        steps_case(folder, name, build,
                   [(["save"], AT), (["init"], AT)] + [(["c0"], {})] * pulls)
    def skipping():
        skip = tf.constant(1, tf.int64)
        return lambda dss: dss.skip(skip).flat_map(lambda d: d)
    reader("reader_captured", skipping, 5)
    reader("reader_interleave", lambda: lambda dss: dss.interleave(
        lambda d: d, cycle_length=3), 7)
    reader("reader_take",
           lambda: lambda dss: dss.take(1).flat_map(lambda d: d), 3)

    # Errors of the load itself.
    def load_only(name, path, compression="", files=None):
        def build():
            p = tf1.placeholder(tf.string, shape=[], name="path")
            out = {"path": p}
            iterate(load(p, tf.data.Dataset.range(1).element_spec,
                         compression), "", out)
            return out
        steps_case(folder, name, build,
                   [(["init"], {"path": path}), (["c0"], {})], files=files)
    load_only("load_missing", SCRATCH_DIR + "/none")
    # A malformed metadata file: OutOfRange "Read less bytes than
    # requested", the status of TensorFlow's file stream, read to its end.
    load_only("load_bad_metadata", CASE_DIR + "/saved",
              files={"saved/snapshot.metadata": b"\xff\xff\xff"})


def save_v2_cases(folder):
    for name, compression, fn, pulls in [
            ("save_v2", "", lambda x: x % 2, 5),
            ("save_v2_gzip", "GZIP", lambda x: x % 2, 5),
            ("save_v2_no_shard_func", "", None, 1)]:
        def build(compression=compression, fn=fn, pulls=pulls):
            path = tf1.placeholder(tf.string, shape=[], name="path")
            ds = tf.data.Dataset.range(pulls)
            out = {"path": path}
            iterate(save_v2(ds, path, fn, compression), "w", out)
            iterate(load(path, ds.element_spec, compression), "r", out)
            return out
        steps_case(folder, name, build,
                   [(["winit"], AT)] + [(["wc0"], {})] * (pulls + 1) +
                   [(["rinit"], AT)] + [(["rc0"], {})] * (pulls + 1),
                   note="the elements pass, then are read back")
    # Read before the save's iterator ends: the metadata is not finalized,
    # and the shard file holds what was flushed (nothing is asserted
    # about it: TensorFlow writes on threads). Only the pass-through.
    def partial():
        path = tf1.placeholder(tf.string, shape=[], name="path")
        out = {"path": path}
        iterate(save_v2(tf.data.Dataset.range(3), path, lambda x: x), "w",
                out)
        return out
    steps_case(folder, "save_v2_partial", partial,
               [(["winit"], AT)] + [(["wc0"], {})] * 2)


def tf_saved_files(make, fn, compression):
    """The files of a directory TensorFlow saved, by relative name under
    "saved/"."""
    files = {}
    with tempfile.TemporaryDirectory(prefix="dfx_gen_") as tmp:
        path = os.path.join(tmp, "saved")
        g = tf.Graph()
        with g.as_default():
            op = save_op(make(), tf.constant(path), fn, compression)
            with tf1.Session(graph=g) as sess:
                sess.run(op)
        for root, _, names in os.walk(path):
            for n in names:
                full = os.path.join(root, n)
                with open(full, "rb") as f:
                    files[os.path.join("saved", os.path.relpath(full, path))] = \
                        f.read()
    return files


def loaded_case(folder, name, make, compression, files, pulls):
    def build():
        p = tf1.placeholder(tf.string, shape=[], name="path")
        out = {"path": p}
        iterate(load(p, make().element_spec, compression), "", out)
        return out
    g = tf.Graph()
    with g.as_default():
        n = len(tf.nest.flatten(make().element_spec))
    keys = [f"c{i}" for i in range(n)]
    steps_case(folder, name, build,
               [(["init"], {"path": CASE_DIR + "/saved"})] +
               [(keys, {})] * pulls, files=files)


def reader_cases(folder):
    """SnapshotDatasetReader over a shard of a directory TensorFlow saved
    (int64 elements 0..5, shard x % 2). (SnapshotNestedDatasetReader is
    left out: TensorFlow 2.21 crashes, SIGSEGV, making its iterator.)"""
    files = tf_saved_files(lambda: tf.data.Dataset.range(6),
                           lambda x: x % 2, "")
    shards = sorted({os.path.dirname(k) for k in files if
                     k.endswith(".snapshot")})
    spec = tf.TensorSpec([], tf.int64)

    def case(name, shard, start=0, version=2, pulls=4, compression=""):
        # The shard directory is fed: with a constant input TensorFlow's
        # constant folding tries to fold the (stateless) reader and fails.
        def build():
            d = tf1.placeholder(tf.string, [], name="dir")
            v = raw.SnapshotDatasetReader(
                shard_dir=d, start_index=start, output_types=[tf.int64],
                output_shapes=[[]], compression=compression, version=version)
            out = {"dir": d}
            iterate(plain(tf.data.experimental.from_variant(v, spec)), "",
                    out)
            return out
        steps_case(folder, name, build,
                   [(["init"], {"dir": CASE_DIR + "/" + shard})] +
                   [(["c0"], {})] * pulls, files=files)
    case("snapshot_reader", shards[0])
    case("snapshot_reader_odd", shards[1])
    case("snapshot_reader_start", shards[1], start=2, pulls=2)
    case("snapshot_reader_start_past_end", shards[0], start=4, pulls=1)
    case("snapshot_reader_missing_shard", shards[0] + "x", pulls=1)
    # (version 0 or 1, SnapshotDataset v1's custom format, is
    # Unimplemented in dfx when the dataset is made; TensorFlow reads such
    # files, and a version 2 file read as version 1 fails later, Internal.)


def cross_cases(folder):
    """dfx reads TensorFlow's directories; TensorFlow reads dfx's."""
    for name, compression in [("load_tf_saved", ""),
                              ("load_tf_saved_gzip", "GZIP")]:
        files = tf_saved_files(mixed, lambda a, b, c, d: a % 2, compression)
        loaded_case(folder, name, mixed, compression, files, 6)
    reader_cases(folder)
    if not os.path.isdir(DFX_SAVED):
        print("no", DFX_SAVED, "- the load_dfx_saved cases are skipped")
        return
    for name, compression in DFX_SAVES:
        d = os.path.join(DFX_SAVED, name)
        files = {}
        for root, _, names in os.walk(d):
            for n in names:
                full = os.path.join(root, n)
                with open(full, "rb") as f:
                    files[os.path.join("saved", os.path.relpath(full, d))] = \
                        f.read()
        loaded_case(folder, name, mixed, compression, files, 6)


DFX_SAVES = [("load_dfx_saved", ""), ("load_dfx_saved_gzip", "GZIP")]


def write_dfx_saved(dfx):
    """Saves mixed() (shard_func a % 2) on a local dfx cluster into
    DFX_SAVED/<case name>, one directory per compression."""
    shutil.rmtree(DFX_SAVED, ignore_errors=True)
    with tempfile.TemporaryDirectory(prefix="dfx_gen_") as cluster_dir:
        up = subprocess.run([dfx, "cluster", "up", "--workers", "1",
                             "--dir", cluster_dir],
                            capture_output=True, text=True, timeout=120)
        if up.returncode != 0:
            raise RuntimeError("dfx cluster up failed: " + up.stderr)
        target = up.stdout.strip().splitlines()[-1]
        try:
            for name, compression in DFX_SAVES:
                g = tf.Graph()
                with g.as_default():
                    path = os.path.join(DFX_SAVED, name)
                    op = save_op(mixed(), tf.constant(path),
                                 lambda a, b, c, d: a % 2, compression)
                    with tf1.Session(target, graph=g) as sess:
                        sess.run(op)
        finally:
            subprocess.run([dfx, "cluster", "down", "--dir", cluster_dir],
                           capture_output=True, timeout=60)


def plain(ds):
    """ds without TensorFlow's static rewrites (which dfx does not make)."""
    o = tf.data.Options()
    o.experimental_optimization.apply_default_optimizations = False
    o.experimental_optimization.inject_prefetch = False
    o.autotune.enabled = False
    return ds.with_options(o)


def resource_cases(folder):
    spec = tf.TensorSpec([], tf.int64)

    def cache(anonymous):
        def build():
            if anonymous:
                handle, deleter = raw.AnonymousMemoryCache()
            else:
                handle = raw.DummyMemoryCache()
                deleter = tf.data.Dataset.range(1)._variant_tensor
            v = raw.CacheDatasetV2(
                input_dataset=tf.data.Dataset.range(3)._variant_tensor,
                filename="", cache=handle, output_types=[tf.int64],
                output_shapes=[[]])
            out = {"delete": raw.DeleteMemoryCache(handle=handle,
                                                   deleter=deleter),
                   "counter": raw.DummyIterationCounter().op}
            iterate(plain(tf.data.experimental.from_variant(v, spec)), "",
                    out)
            return out
        return build
    # TensorFlow 2.21 refuses to delete AnonymousMemoryCache's handle
    # (Internal: "Cannot delete an unowned Resource"); DummyMemoryCache's
    # deletes.
    steps_case(folder, "memory_cache", cache(True),
               [(["init"], {})] + [(["c0"], {})] * 4 +
               [(["delete"], {}), (["counter"], {})])
    steps_case(folder, "memory_cache_dummy", cache(False),
               [(["init"], {})] + [(["c0"], {})] * 4 +
               [(["delete"], {}), (["counter"], {})])


def compress_cases(folder):
    def case(name, values, types=None, uncompress_input=None):
        def build():
            comps = [tf.constant(v) for v in values]
            c = raw.CompressElement(components=comps)
            if uncompress_input == "dataset":
                c = tf.data.Dataset.range(1)._variant_tensor
            elif uncompress_input == "vector":
                c = tf1.placeholder_with_default(tf.reshape(c, [1]),
                                                 shape=None)
            ts = types or [t.dtype for t in comps]
            out = raw.UncompressElement(
                compressed=c, output_types=ts,
                output_shapes=[tf.TensorShape(None)] * len(ts))
            return {f"c{i}": t for i, t in enumerate(out)}
        n = len(types or values)
        steps_case(folder, name, build, [([f"c{i}" for i in range(n)], {})])
    mixed_values = [np.arange(6, dtype=np.int32).reshape(2, 3),
                    np.array([b"a", b"", b"\xff\x00"]),
                    np.float64(2.5), np.zeros([0, 2], np.float16),
                    np.array([True, False]),
                    np.array([1 - 2j], np.complex128)]
    case("compress", mixed_values)
    case("compress_one", [np.array([[7]], np.uint16)])
    case("uncompress_too_many_types", [np.int64(1)], types=[tf.int64] * 2)
    case("uncompress_wrong_type", [np.int64(1)], types=[tf.int32])
    case("uncompress_not_compressed", [np.int64(1)],
         uncompress_input="dataset")
    case("uncompress_vector", [np.int64(1)], uncompress_input="vector")


def sampling_cases(folder):
    def case(name, rate, seed, seed2, n=12, pulls=13, reinit=0):
        def build():
            ds = tf.data.Dataset.range(n)
            ds = tf.data.Dataset.zip((ds, ds.map(tf.strings.as_string)))
            r = rate
            if isinstance(rate, np.ndarray):  # past the shape function
                r = tf1.placeholder_with_default(rate, shape=None)
            v = raw.SamplingDataset(
                input_dataset=ds._variant_tensor, rate=r, seed=seed,
                seed2=seed2, output_types=[tf.int64, tf.string],
                output_shapes=[[], []])
            out = {}
            iterate(plain(tf.data.experimental.from_variant(
                v, ds.element_spec)), "", out)
            return out
        steps = [(["init"], {})] + [(["c0", "c1"], {})] * pulls
        if reinit:
            steps += [(["init"], {})] + [(["c0", "c1"], {})] * reinit
        steps_case(folder, name, build, steps)
    case("sampling", 0.5, 3, 4, pulls=6, reinit=3)
    case("sampling_other_seeds", 0.3, -7, 123456789012, pulls=4)
    case("sampling_rate_zero", 0.0, 1, 2, pulls=1)
    case("sampling_rate_one", 1.0, 1, 2)
    case("sampling_random_seeds", 1.5, 0, 0, n=3, pulls=4)
    case("sampling_nan_rate", float("nan"), 1, 2, n=3, pulls=1)
    case("sampling_rate_vector", np.array([0.5], np.float32), 1, 2,
         pulls=0)


def example(**features):
    f = {}
    for k, v in features.items():
        if isinstance(v, bytes) or (isinstance(v, list) and v and
                                    isinstance(v[0], bytes)):
            f[k] = tf.train.Feature(bytes_list=tf.train.BytesList(
                value=v if isinstance(v, list) else [v]))
        elif isinstance(v, list) and v and isinstance(v[0], float):
            f[k] = tf.train.Feature(float_list=tf.train.FloatList(value=v))
        elif isinstance(v, float):
            f[k] = tf.train.Feature(float_list=tf.train.FloatList(value=[v]))
        else:
            f[k] = tf.train.Feature(int64_list=tf.train.Int64List(
                value=v if isinstance(v, list) else [v]))
    return tf.train.Example(
        features=tf.train.Features(feature=f)).SerializeToString()


def parse_example_cases(folder):
    ex = [example(age=30, name=b"ann", scores=[1.5, 2.0], pair=[1.0, 2.0],
                  seq=[1, 2, 3, 4]),
          example(age=7, name=b"bo", scores=[0.5]),
          example(name=b"cy", pair=[3.0, 4.0], seq=[5, 6]),
          example(age=99, name=b"", scores=[3.0, 4.0, 5.0])]
    features = {
        "age": tf.io.FixedLenFeature([], tf.int64, default_value=-1),
        "name": tf.io.FixedLenFeature([], tf.string),
        "scores": tf.io.VarLenFeature(tf.float32),
        "pair": tf.io.FixedLenFeature([2], tf.float32,
                                      default_value=[0.0, 0.0]),
        "seq": tf.io.FixedLenSequenceFeature([2], tf.int64,
                                             allow_missing=True,
                                             default_value=0)}

    def api_case(name, batches, feats, pulls, parallel=1):
        def make():
            return batches() if callable(batches) else batches

        def build():
            ds = tf.data.Dataset.from_tensor_slices(make())
            ds = ds.apply(tf.data.experimental.parse_example_dataset(
                feats, num_parallel_calls=parallel))
            out = {}
            iterate(plain(ds), "", out)
            return out
        g = tf.Graph()
        with g.as_default():
            ds = tf.data.Dataset.from_tensor_slices(make()).apply(
                tf.data.experimental.parse_example_dataset(feats))
            n = len(tf.nest.flatten(ds.element_spec, expand_composites=True))
        keys = [f"c{i}" for i in range(n)]
        steps_case(folder, name, build,
                   [(["init"], {})] + [(keys, {})] * pulls)
    api_case("parse_example", [ex[:2], ex[2:]], features, 3)
    api_case("parse_example_one_per_batch", [[e] for e in ex], features, 5,
             parallel=2)
    api_case("parse_example_dense_only", [ex[:2], ex[2:]],
             {"age": features["age"], "pair": features["pair"]}, 3)
    api_case("parse_example_missing_required", [ex[:2], ex[2:]],
             {"age": tf.io.FixedLenFeature([], tf.int64)}, 2,
             )
    api_case("parse_example_wrong_type", [ex[:2]],
             {"name": tf.io.FixedLenFeature([], tf.int64)}, 1)
    api_case("parse_example_malformed", [[b"not an example"]],
             {"age": features["age"]}, 1)
    api_case("parse_example_empty_batch",
             lambda: tf.zeros([2, 0], tf.string), features, 3)

    def raw_case(name, op, parallel=1, extra=None):
        def build():
            ds = tf.data.Dataset.from_tensor_slices([ex[:2], ex[2:]])
            attrs = dict(
                input_dataset=ds._variant_tensor,
                num_parallel_calls=tf.constant(parallel, tf.int64),
                dense_defaults=[tf.constant(-1, tf.int64),
                                tf.constant([0.0, 0.0])],
                sparse_keys=["scores"], dense_keys=["age", "pair"],
                sparse_types=[tf.float32], dense_shapes=[[], [2]],
                output_types=[tf.int64, tf.float32, tf.variant],
                output_shapes=[[None], [None, 2], [3]])
            attrs.update(extra or {})
            v = getattr(raw, op)(**attrs)
            spec = {"age": tf.TensorSpec([None], tf.int64),
                    "pair": tf.TensorSpec([None, 2], tf.float32),
                    "scores": tf.SparseTensorSpec([None, None], tf.float32)}
            out = {}
            iterate(plain(tf.data.experimental.from_variant(v, spec)), "",
                    out)
            return out
        keys = [f"c{i}" for i in range(5)]
        steps_case(folder, name, build, [(["init"], {})] + [(keys, {})] * 3)
    raw_case("parse_example_v1", "ParseExampleDataset",
             extra={"sloppy": False})
    raw_case("parse_example_experimental", "ExperimentalParseExampleDataset")
    raw_case("parse_example_v2_nondeterministic", "ParseExampleDatasetV2",
             extra={"deterministic": "false"})
    raw_case("parse_example_zero_calls", "ParseExampleDatasetV2",
             parallel=0)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--dfx", help="a dfx binary: first rewrite "
                        "tests/golden/dataset4_dfx_saved/ with it")
    args = parser.parse_args()
    if args.dfx:
        write_dfx_saved(os.path.abspath(args.dfx))
    folder = golden_lib.family_folder(FAMILY)
    golden_lib.write_op_defs(FAMILY, OPS)
    save_load_cases(folder)
    save_v2_cases(folder)
    cross_cases(folder)
    resource_cases(folder)
    compress_cases(folder)
    sampling_cases(folder)
    parse_example_cases(folder)


if __name__ == "__main__":
    main()
